//! Built-in instructions in WGSL, forward and with their adjoint rules
//! (the local derivatives rendered through [`Deriv`]).

use super::*;
use crate::adjoint::Slots;

impl W<'_> {
    pub(super) fn instruction_call(&mut self, name: &str, call: &Call, span: Span) {
        let instr = crate::builtins::instruction(name);
        if instr.is_none_or(|i| i.arity != call.args.len()) {
            // Reported by the checks (E0108); nothing to generate.
            return;
        }
        let mut places = Vec::new();
        for &i in instr.map(|i| i.mutates).unwrap_or(&[]) {
            let Some(p) = call.args.get(i).and_then(|a| self.place(a)) else {
                return;
            };
            places.push(p);
        }
        let Some(&(ref a, ak)) = places.first() else {
            return;
        };
        let a = a.clone();
        let Some(instr) = instr else { return };
        // The rule is the analysis's (`builtins::Rule`); this renders it in
        // WGSL, as `Gen::instruction_call` does in Rust.
        match instr.rule {
            crate::builtins::Rule::Linear { rows, .. } => {
                let olds: Vec<String> = places
                    .iter()
                    .enumerate()
                    .map(|(i, (p, _))| {
                        let t = self.fresh(["ta", "tb"].get(i).copied().unwrap_or("tx"));
                        self.line(&format!("let {t} = {p};"));
                        t
                    })
                    .collect();
                let ty = wgsl_ty(ak);
                let angle = match instr.rule.angle_read() {
                    Some(k) => {
                        let th = self.value_as(&call.args[k], ak);
                        let (s, c) = (self.fresh("s"), self.fresh("c"));
                        self.line(&format!("let {s} = {};", trans("sin", &th, ty)));
                        self.line(&format!("let {c} = {};", trans("cos", &th, ty)));
                        Some((s, c))
                    }
                    None => None,
                };
                let rsqrt2 = format!("{ty}(0.7071067811865476)");
                let factors = crate::Factors {
                    angle: angle.as_ref(),
                    rsqrt2: &rsqrt2,
                };
                for ((place, _), row) in places.iter().zip(rows) {
                    let value = factors.linear_combination(row, &olds);
                    self.line(&format!("{place} = {value};"));
                }
            }
            crate::builtins::Rule::Scale { by, divide } => {
                let n = self.value_as(&call.args[by], ak);
                let sym = if divide { "/" } else { "*" };
                self.line(&format!("{a} = {a} {sym} {n};"));
            }
            crate::builtins::Rule::Shift { up } => {
                let one = self.conv("1".into(), K::LitInt, ak);
                let sym = if up { "+=" } else { "-=" };
                self.line(&format!("{a} {sym} {one};"));
            }
            // Kernels compute on real floats: their conjugate is themselves.
            crate::builtins::Rule::Conj => {}
            crate::builtins::Rule::Stack => self.unsupported(span, &format!("`{name}`")),
        }
    }

    /// The adjoint rule of `target op= value` in a reverse pass (see
    /// `Gen::ad_instruction`).
    pub(super) fn ad_instruction(&mut self, target: &Expr, op: InstrOp, value: &Expr, span: Span) {
        if !matches!(self.place_kind(target), K::Float(_)) {
            return;
        }
        let sign_plus = match op {
            InstrOp::Sub => true,
            InstrOp::Add => false,
            _ => return self.unsupported(span, "differentiating this instruction"),
        };
        let Some(tb) = self.bar_lvalue(target) else {
            return;
        };
        let mut partials = Vec::new();
        // A long product's prefix and suffix products go into one function
        // array, each computed once (the partials linear in its length).
        self.partial_slots = Some(Slots::default());
        push_partials(self, value, None, &mut partials);
        let Slots { name, codes } = self.partial_slots.take().unwrap_or_default();
        if !codes.is_empty() {
            let f = self.float;
            self.line(&format!("var {name}: array<{f}, {}>;", codes.len()));
            for (k, code) in codes.iter().enumerate() {
                self.line(&format!("{name}[{k}] = {code};"));
            }
        }
        if partials.is_empty() {
            return;
        }
        let g = self.fresh("g");
        self.line(&format!("let {g} = {tb};"));
        for (leaf, p) in partials {
            let amount = if sign_plus {
                format!("{g} * {p}")
            } else {
                format!("-({g} * {p})")
            };
            self.bar_add(&leaf, &amount);
        }
    }

    pub(super) fn place_kind(&mut self, e: &Expr) -> K {
        let saved = (self.out.len(), self.diagnostics.len());
        let k = self.expr(e).1;
        self.out.truncate(saved.0);
        self.diagnostics.truncate(saved.1);
        k
    }

    pub(super) fn ad_instruction_call(&mut self, name: &str, call: &Call, span: Span) {
        if crate::builtins::instruction(name).is_none_or(|i| i.arity != call.args.len()) {
            return;
        }
        let Some(a0) = call.args.first() else { return };
        if !matches!(self.place_kind(a0), K::Float(_)) {
            return;
        }
        let fl = self.float;
        let bar = |w: &mut Self, i: usize| call.args.get(i).and_then(|a| w.bar_lvalue(a));
        let Some(instr) = crate::builtins::instruction(name) else {
            return;
        };
        // This instruction undoes its inverse `F`: the adjoints go through
        // `F`'s transposed Jacobian (`Instruction::adjoint_rows`).
        match instr.rule {
            crate::builtins::Rule::Linear { .. } => {
                let (Some(rows), Some(forward)) = (
                    instr.adjoint_rows(),
                    crate::builtins::instruction(instr.inverse),
                ) else {
                    return;
                };
                let mut bars = Vec::new();
                for i in 0..rows.len() {
                    let Some(b) = bar(self, i) else { return };
                    bars.push(b);
                }
                let temps: Vec<String> = bars
                    .iter()
                    .enumerate()
                    .map(|(i, b)| {
                        let t = self.fresh(["ta", "tb"].get(i).copied().unwrap_or("tx"));
                        self.line(&format!("let {t} = {b};"));
                        t
                    })
                    .collect();
                let angle = match forward.rule {
                    crate::builtins::Rule::Linear {
                        angle: Some(at),
                        dangle,
                        ..
                    } => {
                        let th = self.value_as(&call.args[at], K::Float(fl));
                        let (s, c) = (self.fresh("s"), self.fresh("c"));
                        self.line(&format!("let {s} = {};", trans("sin", &th, fl)));
                        self.line(&format!("let {c} = {};", trans("cos", &th, fl)));
                        // θ gets Σ ā'ᵢ ∂aᵢ'/∂θ, read off `F`'s results.
                        let values: Vec<String> = (0..bars.len())
                            .map(|i| self.value_as(&call.args[i], K::Float(fl)))
                            .collect();
                        let derivatives = crate::Factors::angle_derivatives(dangle, &values);
                        let mut partials = Vec::new();
                        push_partials(self, &call.args[at], None, &mut partials);
                        for (leaf, p) in partials {
                            let sum: Vec<String> = temps
                                .iter()
                                .zip(&derivatives)
                                .map(|(t, d)| format!("{t} * {p} * {d}"))
                                .collect();
                            self.bar_add(&leaf, &sum.join(" + "));
                        }
                        Some((s, c))
                    }
                    _ => None,
                };
                let rsqrt2 = format!("{fl}(0.7071067811865476)");
                let factors = crate::Factors {
                    angle: angle.as_ref(),
                    rsqrt2: &rsqrt2,
                };
                for (target, row) in bars.iter().zip(&rows) {
                    let value = factors.linear_combination(row, &temps);
                    self.line(&format!("{target} = {value};"));
                }
            }
            crate::builtins::Rule::Scale { by, divide } => {
                let Some(a) = bar(self, 0) else { return };
                let n = self.value_as(&call.args[by], K::Float(fl));
                // `MULINT` undoes `y /= n`: ȳ becomes ȳ / n; `DIVINT`, ȳ n.
                let sym = if divide { "*" } else { "/" };
                self.line(&format!("{a} = {a} {sym} {n};"));
            }
            crate::builtins::Rule::Shift { .. } | crate::builtins::Rule::Conj => {}
            crate::builtins::Rule::Stack => {
                self.unsupported(span, &format!("an adjoint rule for `{name}`"))
            }
        }
    }
}

impl Deriv for W<'_> {
    fn one(&mut self) -> String {
        format!("{}(1)", self.float)
    }

    fn leaf(&mut self, e: &Expr) -> bool {
        matches!(self.place_kind(e), K::Float(_))
    }

    fn complex_operand(&mut self, _: &Expr) -> bool {
        false
    }

    fn is_int(&mut self, e: &Expr) -> bool {
        matches!(self.place_kind(e), K::Int | K::LitInt)
    }

    fn value(&mut self, e: &Expr) -> String {
        let f = self.float;
        self.value_as(e, K::Float(f))
    }

    fn int_exponent(&mut self, e: &Expr) -> (String, String) {
        let n = self.value_as(e, K::Int);
        (n.clone(), format!("{}({n})", self.float))
    }

    fn real_fn(&mut self, f: &str, v: &str) -> String {
        match f {
            "signum" => format!("sign({v})"),
            "sqrt" => format!("sqrt({v})"),
            "ln" => trans("log", v, self.float),
            f => trans(f, v, self.float),
        }
    }

    fn powi(&mut self, x: &str, n: &str) -> String {
        format!("nil_powi_{}({x}, {n})", self.float)
    }

    fn powf(&mut self, x: &str, p: &str) -> String {
        trans("pow", &format!("{x}, {p}"), self.float)
    }

    fn pick(&mut self, a: &str, cmp: &str, b: &str, yes: bool) -> String {
        let f = self.float;
        let (t, e) = if yes { ("1", "0") } else { ("0", "1") };
        format!("select({f}({e}), {f}({t}), {a} {cmp} {b})")
    }

    fn zero_at_zero(&mut self, x: &str, q: &str) -> String {
        let f = self.float;
        format!("select({q}, {f}(0), {x} == {f}(0))")
    }

    fn guarded(&mut self, m: &str, q: &str) -> String {
        format!("nil_times_{}({m}, {q})", self.float)
    }

    fn binds(&self) -> bool {
        self.partial_slots.is_some()
    }

    fn bind(&mut self, code: String) -> String {
        let Some(slots) = &mut self.partial_slots else {
            return code;
        };
        let tmp = &mut self.tmp;
        slots.bind(code, || fresh_name(tmp, "pp"))
    }

    fn unsupported(&mut self, span: Span, what: &str) {
        W::unsupported(self, span, what)
    }
}

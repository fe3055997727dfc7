//! Instructions in the Rust backend: `y op= e` on one place or broadcast
//! over an array, and the built-in instructions, rendered from the
//! analysis's rules (`builtins::Rule`).

use super::*;

impl Gen<'_> {
    pub(super) fn instruction(&mut self, target: &Expr, op: InstrOp, value: &Expr, span: Span) {
        let Some((place, kind, negated)) = self.lvalue(target) else {
            return;
        };
        // typeck refuses a complex value into a real place (E0603).
        let (code, from) = self.expr(value);
        let op = if negated { op.inverse() } else { op };
        if self.fixed_update(target, &place, &kind, op, code.clone(), &from, span) {
            return;
        }
        let code = convert(code, &from, &kind);
        let t = self.fresh("v");
        let first = !negated
            && matches!(kind, Kind::Float(_) | Kind::Generic(_))
            && target
                .root_var()
                .and_then(|(_, root)| self.resolution.def_at(root))
                .is_some_and(|id| self.mode.first_writes.contains(&(span, id)));
        let update = match op {
            // The cell holds zero (`first_writes`).
            InstrOp::Add if first => format!("{place} = {t};"),
            InstrOp::Sub if first && matches!(kind, Kind::Float(_)) => {
                format!("{place} = -{t};")
            }
            _ => match self.update(&place, &kind, op, &t, span) {
                Some(update) => update,
                None => return,
            },
        };
        self.line(&format!("let {t} = {code};"));
        self.line(&update);
    }

    pub(super) fn update(
        &mut self,
        place: &str,
        kind: &Kind,
        op: InstrOp,
        value: &str,
        span: Span,
    ) -> Option<String> {
        // An integer place wraps around, as Julia's integers do (a debug
        // build's `+=` would panic).
        if let Kind::Int(_) = kind {
            let f = match op {
                InstrOp::Add => Some("add"),
                InstrOp::Sub => Some("sub"),
                InstrOp::Mul => Some("mul"),
                _ => None,
            };
            if let Some(f) = f {
                return Some(format!("nilang::wrapping::{f}(&mut {place}, {value});"));
            }
        }
        let sym = match op {
            InstrOp::Add => "+=",
            InstrOp::Sub => "-=",
            InstrOp::Xor => "^=",
            InstrOp::Mul => "*=",
            InstrOp::Div => "/=",
            InstrOp::Assign => {
                self.unsupported(span, "an irreversible assignment");
                return None;
            }
        };
        Some(format!("{place} {sym} {value};"))
    }

    /// `x .+= f.(y, z)`: a loop over the elements of `x` (a vector, a matrix
    /// column `A[:, j]` or a matrix); array operands of the value are read
    /// element by element and must have `x`'s shape.
    /// The element place, shape and element kind of a broadcast target.
    pub(super) fn bcast_target(&mut self, target: &Expr) -> Option<BcastTarget> {
        let text = crate::printer::print_expr(target);
        if let Some((m, c, elem)) = self.column_of(target) {
            return Some(BcastTarget {
                place: format!("{m}[[__i, {c}]]"),
                shape: format!("{m}.nrows()"),
                elem,
                text,
                two_d: false,
            });
        }
        let (place, kind, negated) = self.lvalue(target)?;
        if negated {
            self.unsupported(target.span, "a negated broadcast target");
            return None;
        }
        match kind {
            Kind::Array(e) => Some(BcastTarget {
                place: format!("{place}[__i]"),
                shape: format!("{place}.len()"),
                elem: *e,
                text,
                two_d: false,
            }),
            Kind::Matrix(e) => Some(BcastTarget {
                place: format!("{place}[[__r, __c]]"),
                shape: format!("({place}.nrows(), {place}.ncols())"),
                elem: *e,
                text,
                two_d: true,
            }),
            _ => {
                self.unsupported(target.span, "a broadcast into a scalar");
                None
            }
        }
    }

    /// A loop over the elements of a broadcast target running `body`
    /// (`__i`, or `__r` and `__c`), after checking that every array operand
    /// has the target's shape.
    pub(super) fn bcast_loop(
        &mut self,
        t: &BcastTarget,
        operands: Vec<(String, String)>,
        span: Span,
        body: &[String],
    ) {
        self.line("{");
        self.level += 1;
        self.line(&format!("let __shape = {};", t.shape));
        let location = self.location(span);
        let mut checked = Vec::new();
        for (operand_shape, text) in operands {
            if checked.contains(&operand_shape) {
                continue;
            }
            checked.push(operand_shape.clone());
            let what = format!("`{text}` must have the shape of `{}`", t.text);
            self.line(&format!(
                "if {operand_shape} != __shape {{ return Err(nilang::Error::new({location}, nilang::Check::Shape, {what:?}, __shape, {operand_shape})); }}"
            ));
        }
        if t.two_d {
            self.line("for __c in 0..__shape.1 {");
            self.line("    for __r in 0..__shape.0 {");
            for l in body {
                self.line(&format!("        {l}"));
            }
            self.line("    }");
        } else {
            self.line("for __i in 0..__shape {");
            for l in body {
                self.line(&format!("    {l}"));
            }
        }
        self.line("}");
        self.level -= 1;
        self.line("}");
    }

    pub(super) fn broadcast_instruction(
        &mut self,
        target: &Expr,
        op: InstrOp,
        value: &Expr,
        span: Span,
    ) {
        let Some(t) = self.bcast_target(target) else {
            return;
        };
        self.bcast = Some(Bcast {
            two_d: t.two_d,
            operands: Vec::new(),
        });
        let code = self.value_as(value, &t.elem);
        let operands = self.bcast.take().map(|b| b.operands).unwrap_or_default();
        let Some(update) = self.update(&t.place, &t.elem, op, "__v", span) else {
            return;
        };
        self.bcast_loop(&t, operands, span, &[format!("let __v = {code};"), update]);
    }

    /// Runs `f` outside the current broadcast: arrays are whole values again
    /// (the base of `x[k]`, the argument of `length(x)`).
    pub(super) fn whole<R>(&mut self, f: impl FnOnce(&mut Self) -> R) -> R {
        let saved = self.bcast.take();
        let r = f(self);
        self.bcast = saved;
        r
    }

    pub(super) fn value_as(&mut self, value: &Expr, kind: &Kind) -> String {
        if let Some(code) = self.construct(value, kind) {
            return code;
        }
        let (code, from) = self.expr(value);
        convert(code, &from, kind)
    }

    pub(super) fn instruction_call(&mut self, name: &str, call: &Call, span: Span) {
        let mut places = Vec::new();
        let instr = crate::builtins::instruction(name).expect("known instruction");
        for (i, arg) in call.args.iter().enumerate() {
            if instr.mutates.contains(&i) {
                match self.lvalue(arg) {
                    Some((place, kind, false)) => places.push((place, kind)),
                    Some(_) => {
                        self.unsupported(arg.span, "a negated argument to an instruction");
                        return;
                    }
                    None => return,
                }
            }
        }
        if call.inverted {
            // `~SWAP(a, b)` is `SWAP`'s inverse instruction.
            let inverse = crate::builtins::instruction(instr.inverse).expect("inverse");
            let call = Call {
                inverted: false,
                callee: Ident {
                    name: inverse.name.to_string(),
                    span: call.callee.span,
                },
                ..call.clone()
            };
            self.instruction_call(inverse.name, &call, span);
            return;
        }
        let scalar = |k: &Kind| rust_scalar(k).unwrap_or_else(|| "f64".into());
        let Some((_, ka)) = places.first().cloned() else {
            return;
        };
        // The instruction's rule is the analysis's (`builtins::Rule`); this
        // renders it in Rust.
        match instr.rule {
            // `NEG` of an integer wraps (the minimum stays itself).
            crate::builtins::Rule::Linear { rows, .. }
                if matches!(ka, Kind::Int(_))
                    && rows == [&[(0, crate::builtins::Factor::MinusOne)][..]] =>
            {
                self.line(&format!("nilang::wrapping::neg(&mut {});", places[0].0));
            }
            crate::builtins::Rule::Linear { rows, .. } => {
                let olds = self.old_values(&places);
                let angle = match instr.rule.angle_read() {
                    Some(k) => {
                        let theta = self.value_as(&call.args[k], &ka);
                        let (s, c) = (self.fresh("s"), self.fresh("c"));
                        self.line(&format!(
                            "let ({s}, {c}) = (nilang::Real::sin({theta}), nilang::Real::cos({theta}));"
                        ));
                        Some((s, c))
                    }
                    None => None,
                };
                let rsqrt2 = format!(
                    "<{} as nilang::Real>::from_f64(std::f64::consts::FRAC_1_SQRT_2)",
                    scalar(&ka)
                );
                let factors = Factors {
                    angle: angle.as_ref(),
                    rsqrt2: &rsqrt2,
                };
                for ((place, _), row) in places.iter().zip(rows) {
                    let value = factors.linear_combination(row, &olds);
                    self.line(&format!("{place} = {value};"));
                }
            }
            crate::builtins::Rule::Scale { by, divide } => {
                let (a, k) = places[0].clone();
                let n = self.value_as(&call.args[by], &k);
                let op = if divide { InstrOp::Div } else { InstrOp::Mul };
                let t = self.fresh("n");
                self.line(&format!("let {t} = {n};"));
                if let Some(update) = self.update(&a, &k, op, &t, span) {
                    self.line(&update);
                }
            }
            crate::builtins::Rule::Shift { up } if matches!(ka, Kind::Fixed | Kind::Complex(_)) => {
                // `a += 1` as any other update of a fixed-point (checked)
                // or complex place.
                let one = Expr {
                    kind: ExprKind::Int("1".into()),
                    span,
                };
                let op = if up { InstrOp::Add } else { InstrOp::Sub };
                self.instruction(&call.args[0], op, &one, span);
            }
            crate::builtins::Rule::Shift { up } => {
                let (a, k) = places[0].clone();
                let op = if up { InstrOp::Add } else { InstrOp::Sub };
                let one = format!("nilang::one::<{}>()", scalar(&k));
                if let Some(update) = self.update(&a, &k, op, &one, span) {
                    self.line(&update);
                }
            }
            crate::builtins::Rule::Conj => {
                // The conjugate of a real number is itself.
                let (a, k) = &places[0];
                if matches!(k, Kind::Complex(_)) {
                    self.line(&format!("{a} = nilang::complex::conj({a});"));
                }
            }
            crate::builtins::Rule::Stack => {
                self.unsupported(span, &format!("the instruction `{name}` here"))
            }
        }
    }

    /// Copies of the old values of an instruction's changed places, so each
    /// new value reads the old ones (a single place that only itself reads
    /// needs none, but the copy costs nothing after optimization).
    pub(super) fn old_values(&mut self, places: &[(String, Kind)]) -> Vec<String> {
        let names: Vec<String> = (0..places.len())
            .map(|i| self.fresh(["a", "b"].get(i).copied().unwrap_or("x")))
            .collect();
        if let [single] = names.as_slice() {
            self.line(&format!("let {single} = {};", places[0].0));
        } else {
            let values: Vec<&str> = places.iter().map(|(p, _)| p.as_str()).collect();
            self.line(&format!(
                "let ({}) = ({});",
                names.join(", "),
                values.join(", ")
            ));
        }
        names
    }
}

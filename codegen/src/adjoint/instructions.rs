//! The adjoint rules of the built-in instructions (from the analysis's
//! `builtins::Rule`) and of arguments passed to calls.

use super::*;

impl Gen<'_> {
    /// The adjoint rule of a built-in instruction in an inverse program.
    pub(crate) fn ad_instruction_call(&mut self, name: &str, call: &Call, span: Span) {
        if call.inverted {
            let instr = crate::builtins::instruction(name).expect("instruction");
            let inverse = crate::builtins::instruction(instr.inverse).expect("inverse");
            let call = Call {
                inverted: false,
                ..call.clone()
            };
            return self.ad_instruction_call(inverse.name, &call, span);
        }
        let arg_kind = |g: &mut Self, i: usize| {
            call.args
                .get(i)
                .map(|a| g.whole(|g| g.expr(a)).1)
                .unwrap_or(Kind::Unknown)
        };
        let ka = arg_kind(self, 0);
        if !differentiable(&ka) {
            return;
        }
        let complex = matches!(ka, Kind::Complex(_));
        let instr = crate::builtins::instruction(name).expect("instruction");
        let k = self.ad_kind();
        let one = self.ad_one();
        let bar = |g: &mut Self, i: usize| call.args.get(i).and_then(|a| g.bar_place(a));
        // The rule is the analysis's (`builtins::Rule`): this instruction
        // undoes its inverse `F`, whose transposed Jacobian the adjoints of
        // the changed arguments go through (`Instruction::adjoint_rows`).
        match instr.rule {
            crate::builtins::Rule::Linear { .. } => {
                let Some(rows) = instr.adjoint_rows() else {
                    return;
                };
                let forward = crate::builtins::instruction(instr.inverse).expect("inverse");
                let permutation = rows.iter().flatten().all(|(_, f)| *f == Factor::One);
                let negation = rows.len() == 1 && rows[0] == [(0, Factor::MinusOne)];
                if complex && !permutation && !negation {
                    self.unsupported(
                        span,
                        &format!("an adjoint rule for `{name}` of a complex number"),
                    );
                    return;
                }
                let mut bars = Vec::new();
                for i in 0..rows.len() {
                    let Some(b) = bar(self, i) else { return };
                    bars.push(b);
                }
                if negation {
                    // One adjoint scaled in place (both parts of a complex one).
                    let parts: Vec<String> = if complex {
                        vec![format!("{}.re", bars[0]), format!("{}.im", bars[0])]
                    } else {
                        vec![bars[0].clone()]
                    };
                    for p in parts {
                        self.line(&format!("nilang::Adjoint::scale(&mut {p}, -{one});"));
                    }
                    return;
                }
                let temps: Vec<String> = (0..bars.len())
                    .map(|i| self.fresh(["ta", "tb"].get(i).copied().unwrap_or("tx")))
                    .collect();
                self.line(&format!(
                    "let ({}) = ({});",
                    temps.join(", "),
                    bars.join(", ")
                ));
                let angle = match forward.rule {
                    crate::builtins::Rule::Linear {
                        angle: Some(at),
                        dangle,
                        ..
                    } => {
                        let theta = self.value_as(&call.args[at], &k);
                        let (s, c) = (self.fresh("s"), self.fresh("c"));
                        self.line(&format!(
                            "let ({s}, {c}) = (nilang::Real::sin({theta}), nilang::Real::cos({theta}));"
                        ));
                        // θ gets Σ ā'ᵢ · ∂aᵢ'/∂θ, with ∂a'/∂θ read off the
                        // values before this statement (`F`'s results).
                        let values: Vec<String> = (0..bars.len())
                            .map(|i| self.value_as(&call.args[i], &k))
                            .collect();
                        let derivatives = crate::Factors::angle_derivatives(dangle, &values);
                        // An angle that reads a complex number (`real(z)`,
                        // `abs(z)`): θ̄ is summed first and sent through
                        // the Wirtinger pairs of the angle's expression, as
                        // `x += f(z)` sends its adjoint.
                        let complex_angle = self.has_complex(&call.args[at]);
                        if complex_angle {
                            let theta_bar = self.fresh("tbar");
                            let zero = self.ad_zero();
                            self.line(&format!("let mut {theta_bar} = {zero};"));
                            for (t, d) in temps.iter().zip(&derivatives) {
                                let l = self.add_scaled(&theta_bar, t, d);
                                self.line(&l);
                            }
                            let lines =
                                self.complex_rule_lines(&theta_bar, false, true, &call.args[at]);
                            for l in lines {
                                self.line(&l);
                            }
                        }
                        let real_leaves = match complex_angle {
                            true => Vec::new(),
                            false => self.partials(&call.args[at]),
                        };
                        for (leaf, p) in real_leaves {
                            if let Some(lb) = self.bar_place(&leaf) {
                                for (t, d) in temps.iter().zip(&derivatives) {
                                    let l = self.add_scaled(&lb, t, &format!("({p} * {d})"));
                                    self.line(&l);
                                }
                            }
                        }
                        Some((s, c))
                    }
                    _ => None,
                };
                let rsqrt2 = format!(
                    "<{} as nilang::Real>::from_f64(std::f64::consts::FRAC_1_SQRT_2)",
                    self.ad_scalar()
                );
                let factor = |f: Factor| -> Option<String> {
                    let (s, c) = angle.clone().unwrap_or_default();
                    match f {
                        Factor::One => None,
                        Factor::MinusOne => Some(format!("(-{one})")),
                        Factor::Cos => Some(c),
                        Factor::Sin => Some(s),
                        Factor::MinusSin => Some(format!("(-{s})")),
                        Factor::Rsqrt2 => Some(rsqrt2.clone()),
                        Factor::MinusRsqrt2 => Some(format!("(-{rsqrt2})")),
                    }
                };
                for (target, row) in bars.iter().zip(&rows) {
                    let Some(((first, f0), rest)) = row.split_first() else {
                        continue;
                    };
                    self.line(&format!("{target} = {};", temps[*first]));
                    if let Some(f) = factor(*f0) {
                        self.line(&format!("nilang::Adjoint::scale(&mut {target}, {f});"));
                    }
                    for (j, f) in rest {
                        let f = factor(*f).unwrap_or_else(|| one.clone());
                        let l = self.add_scaled(target, &temps[*j], &f);
                        self.line(&l);
                    }
                }
            }
            crate::builtins::Rule::Scale { by, divide } => {
                // This instruction undoes its inverse: `MULINT` undoes
                // `y /= n` (ȳ becomes ȳ / n), `DIVINT` undoes `y *= n`;
                // a complex adjoint's two parts alike (n is real).
                let Some(a) = bar(self, 0) else { return };
                let n = self.value_as(&call.args[by], &k);
                let factor = if divide { n } else { format!("({one} / {n})") };
                if complex {
                    for part in ["re", "im"] {
                        self.line(&format!(
                            "nilang::Adjoint::scale(&mut {a}.{part}, {factor});"
                        ));
                    }
                } else {
                    self.line(&format!("nilang::Adjoint::scale(&mut {a}, {factor});"));
                }
            }
            crate::builtins::Rule::Shift { .. } => {}
            // z becomes conj(z): so does its adjoint.
            crate::builtins::Rule::Conj if complex => {
                let Some(a) = bar(self, 0) else { return };
                self.line(&format!("nilang::Adjoint::scale(&mut {a}.im, -{one});"));
            }
            crate::builtins::Rule::Conj => {}
            crate::builtins::Rule::Stack => {
                self.unsupported(span, &format!("an adjoint rule for `{name}`"))
            }
        }
    }

    /// A zero adjoint shaped like `arg`, for a callee's parameter that gets
    /// a value carrying no derivative; `None` when `arg` is of a kind that
    /// has no adjoint (an integer, which the caller handles).
    fn scratch_bar(&mut self, arg: &Expr) -> Option<(String, Option<(String, String)>)> {
        let zero = self.ad_zero();
        let czero = format!("nilang::Complex::new({zero}, {zero})");
        let complex = |k: &Kind| matches!(k, Kind::Complex(_));
        // The scratch value, and how it is passed: `&mut t`, `&mut t[..]`
        // or `t.view_mut()`.
        let (value, pass): (String, fn(&str) -> String) =
            // A stack and a matrix column are not values `expr` reads. A
            // stack's scratch adjoint holds a zero per value, so that a callee
            // that pushes and pops finds it in step with the stack.
            if let Some((_, Kind::Stack(inner))) = self.def_kind(arg.span)
                && let ExprKind::Var(name) = &arg.kind
            {
                let elem = if complex(&inner) { &czero } else { &zero };
                let value = format!(
                    "nilang::Stack::from_vec(vec![{elem}; {}.len()])",
                    rust_name(name)
                );
                (value, |t| format!("&mut {t}"))
            } else if let Some((m, _, elem)) = self.column_of(arg) {
                let elem = if complex(&elem) { &czero } else { &zero };
                let value = format!("vec![{elem}; {}.nrows()]", rust_name(&m));
                (value, |t| format!("&mut {t}[..]"))
            } else {
                let (code, kind) = self.whole(|g| g.expr(arg));
                if !differentiable(&kind) && bar_param_type(&kind).is_none() {
                    return None;
                }
                match &kind {
                    Kind::Struct { .. } => (
                        self.struct_bar_zero(&format!("({code})"), &kind)?,
                        |t| format!("&mut {t}"),
                    ),
                    Kind::Array(inner) if matches!(**inner, Kind::Struct { .. }) => {
                        let value = self.struct_bar_zero("__e", inner)?;
                        (
                            format!("{code}.iter().map(|__e| {value}).collect::<Vec<_>>()"),
                            |t| format!("&mut {t}[..]"),
                        )
                    }
                    Kind::Matrix(e) => (
                        format!(
                            "nilang::ndarray::Array2::from_elem({code}.raw_dim(), {})",
                            if complex(e) { &czero } else { &zero }
                        ),
                        |t| format!("{t}.view_mut()"),
                    ),
                    Kind::Array(e) | Kind::Csc(e) => {
                        let len = if matches!(kind, Kind::Csc(_)) { "nnz" } else { "len" };
                        let elem = if complex(e) { &czero } else { &zero };
                        (format!("vec![{elem}; {code}.{len}()]"), |t| format!("&mut {t}[..]"))
                    }
                    k if complex(k) => (czero.clone(), |t| format!("&mut {t}")),
                    _ => (zero.clone(), |t| format!("&mut {t}")),
                }
            };
        let t = self.fresh("scratchbar");
        Some((
            pass(&t),
            Some((format!("let mut {t} = {value};"), String::new())),
        ))
    }

    /// The adjoint argument for a parameter of kind `param_kind`, and the
    /// temporary that carries it, if any (declaration, lines after the call).
    pub(crate) fn ad_bar_arg(
        &mut self,
        arg: &Expr,
        param_kind: &Kind,
    ) -> Option<(String, Option<(String, String)>)> {
        // A constant passed where the callee takes a derivative: its share
        // goes to a scratch adjoint, dropped after the call.
        if let Some((_, span)) = arg.root_var()
            && !self.active_at(span)
            && let Some(scratch) = self.scratch_bar(arg)
        {
            return Some(scratch);
        }
        if let Some((m, c, _)) = self.column_of(arg) {
            let t = self.fresh("colbar");
            return Some((
                format!("&mut {t}"),
                Some((
                    format!(
                        "let mut {t} = nilang::ColumnMut::new({}.column_mut({c}));",
                        bar_name(&m)
                    ),
                    String::new(),
                )),
            ));
        }
        if let ExprKind::Var(name) = &arg.kind
            && let Some((id, kind)) = self.def_kind(arg.span)
            && (differentiable(&kind) || bar_param_type(&kind).is_some())
        {
            let is_param = matches!(self.resolution.defs[id].kind, DefKind::Param(_));
            let b = bar_name(name);
            return Some(match kind {
                Kind::Matrix(_) => (format!("{b}.view_mut()"), None),
                Kind::Array(_) | Kind::Csc(_) => (format!("&mut {b}[..]"), None),
                _ if is_param => (format!("&mut *{b}"), None),
                _ => (format!("&mut {b}"), None),
            });
        }
        let (_, arg_kind) = self.whole(|g| g.expr(arg));
        if !differentiable(&arg_kind) && bar_param_type(&arg_kind).is_none() {
            // An integer where the callee is generic: no derivative flows,
            // but the callee's signature wants an adjoint of that type.
            return Some(match &arg_kind {
                Kind::Array(inner) => {
                    let s = rust_scalar(inner).unwrap_or_else(|| "i64".into());
                    let (code, _) = self.whole(|g| g.expr(arg));
                    (
                        format!("&mut vec![nilang::zero::<{s}>(); {code}.len()][..]"),
                        None,
                    )
                }
                k => {
                    let s = rust_scalar(k).unwrap_or_else(|| "i64".into());
                    (format!("&mut nilang::zero::<{s}>()"), None)
                }
            });
        }
        if arg.is_place()
            && let Some(place) = self.bar_place(arg)
        {
            let t = self.fresh("argbar");
            return Some((
                format!("&mut {t}"),
                Some((format!("let mut {t} = {place};"), format!("{place} = {t};"))),
            ));
        }
        // An expression: its adjoint is collected in a temporary and passed
        // on to what it reads.
        if !differentiable(param_kind) {
            self.unsupported(arg.span, "differentiating this argument");
            return None;
        }
        let t = self.fresh("argbar");
        let complex_param = matches!(param_kind, Kind::Complex(_));
        if complex_param || self.has_complex(arg) {
            // Through the expression's Wirtinger pairs, as a complex
            // instruction's rule sends its adjoint.
            let mut after = Vec::new();
            for (leaf, a, b) in self.cpartials(arg) {
                let Some(lb) = self.bar_place(&leaf) else {
                    continue;
                };
                let leaf_complex = matches!(self.operand_kind(&leaf), Kind::Complex(_));
                let b = b.unwrap_or_else(|| self.czero());
                let f = complex::wirtinger_rule(complex_param, leaf_complex);
                after.push(format!(
                    "nilang::adjoint::wirtinger::{f}(&mut {lb}, &{t}, {a}, {b});"
                ));
            }
            let zero = self.ad_zero();
            let (ty, init) = if complex_param {
                (
                    "nilang::Complex<G>",
                    format!("nilang::Complex::new({zero}, {zero})"),
                )
            } else {
                ("G", zero)
            };
            return Some((
                format!("&mut {t}"),
                Some((format!("let mut {t}: {ty} = {init};"), after.join("\n"))),
            ));
        }
        let mut after = Vec::new();
        for (leaf, p) in self.partials(arg) {
            if let Some(lb) = self.bar_place(&leaf) {
                after.push(self.add_scaled(&lb, &t, &p));
            }
        }
        let zero = self.ad_zero();
        Some((
            format!("&mut {t}"),
            Some((format!("let mut {t}: G = {zero};"), after.join("\n"))),
        ))
    }
}

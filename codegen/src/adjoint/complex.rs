//! Adjoint rules through complex values, by Wirtinger derivatives.

use super::*;
use nilang_analysis::builtins::PureFn;
use nilang_analysis::derivative_rules::{Formula, holomorphic, local_derivative};

impl Gen<'_> {
    /// Whether an expression reads a complex value (a complex variable or
    /// array, or `im`): its adjoint rule then goes through
    /// [`Gen::cpartials`]. Only names are looked at, so nothing is generated.
    pub(crate) fn has_complex(&self, e: &Expr) -> bool {
        let mut found = false;
        e.walk(&mut |node| {
            if let ExprKind::Field { .. } = &node.kind
                && let Some(kind) = self.struct_field_kind(node)
            {
                found |= matches!(kind, Kind::Complex(_));
            }
            if let ExprKind::Var(name) = &node.kind {
                match self.def_kind(node.span) {
                    Some((_, kind)) => {
                        let element = match kind {
                            Kind::Array(inner) | Kind::Matrix(inner) | Kind::Csc(inner) => *inner,
                            k => k,
                        };
                        found |= matches!(element, Kind::Complex(_));
                    }
                    None => found |= name == "im",
                }
            }
        });
        found
    }

    /// The complex adjoint scalar kind, `Complex<S>`.
    pub(crate) fn ad_ckind(&self) -> Kind {
        Kind::Complex(Box::new(self.ad_kind()))
    }

    /// A complex constant `re + i im` from two real codes.
    pub(crate) fn cconst(&self, re: &str, im: &str) -> String {
        format!("nilang::Complex::new({re}, {im})")
    }

    /// `q`, but the complex zero where `z` is zero: the subgradient 0 at a
    /// point where a complex rule is not differentiable (the complex twin
    /// of `Deriv::zero_at_zero`).
    pub(crate) fn czero_at_zero(&self, z: &str, q: &str) -> String {
        let czero = self.czero();
        format!("(if {z} == {czero} {{ {czero} }} else {{ {q} }})")
    }

    pub(crate) fn czero(&self) -> String {
        let z = format!("nilang::zero::<{}>()", self.ad_scalar());
        self.cconst(&z, &z)
    }

    /// A holomorphic function's local derivative (`derivative_rules`) as
    /// complex code at `z`: a sum or product in brackets, `1 / a` as
    /// `nilang::complex::inv(a)`, `2` the real `one + one` (a complex
    /// number times a real one), and the subgradient 0 at a singular point
    /// the complex zero. `None` for what only real formulas hold (a second
    /// argument, the value, a comparison).
    fn complex_formula(&self, formula: &Formula, z: &str, cone: &str, two: &str) -> Option<String> {
        let term = |f: &Formula| self.complex_formula(f, z, cone, two);
        let c = |f: &str, x: &str| format!("nilang::complex::{f}({x})");
        Some(match formula {
            Formula::X => z.to_string(),
            Formula::One => cone.to_string(),
            Formula::Two => two.to_string(),
            Formula::Neg(a) => format!("(-{})", term(a)?),
            Formula::Add(a, b) => format!("({} + {})", term(a)?, term(b)?),
            Formula::Sub(a, b) => format!("({} - {})", term(a)?, term(b)?),
            Formula::Mul(a, b) => format!("({} * {})", term(a)?, term(b)?),
            Formula::Div(a, b) => format!("({} / {})", term(a)?, term(b)?),
            Formula::Inv(a) => c("inv", &term(a)?),
            Formula::Call(f, a) => c(f.name(), &term(a)?),
            Formula::ZeroAt { at, f } => self.czero_at_zero(&term(at)?, &term(f)?),
            Formula::Y | Formula::R | Formula::Pick { .. } => return None,
        })
    }

    /// The local derivatives of `value` as Wirtinger pairs: for each place
    /// `z` it reads, `(z, a, b)` with `d value = a dz + b conj(dz)` (codes
    /// of `Complex<S>`; `b` is `None` when zero, as for every holomorphic
    /// path). Real sub-expressions without complex values inside go through
    /// [`Gen::partials`].
    pub(crate) fn cpartials(&mut self, value: &Expr) -> Vec<(Expr, String, Option<String>)> {
        let mut out = Vec::new();
        self.push_cpartials(value, None, &mut out);
        out
    }

    /// `m ∘ (a2, b2)`: with `dR = a1 dN + b1 conj(dN)` and
    /// `dN = a2 dz + b2 conj(dz)`, `dR = (a1 a2 + b1 conj(b2)) dz +
    /// (a1 b2 + b1 conj(a2)) conj(dz)`.
    ///
    /// Each product is guarded (`nilang::adjoint::ctimes`): a zero
    /// cotangent times an infinite or NaN local derivative is zero.
    pub(crate) fn compose(m: &Wirt, a2: String, b2: Option<String>) -> Wirt {
        let conj = |c: &str| format!("nilang::complex::conj({c})");
        let t = |x: &str, y: &str| format!("nilang::adjoint::ctimes({x}, {y})");
        match m {
            None => Some((a2, b2)),
            Some((a1, b1)) => {
                let a = match (b1, &b2) {
                    (Some(b1), Some(b2)) => format!("({} + {})", t(a1, &a2), t(b1, &conj(b2))),
                    _ => t(a1, &a2),
                };
                let b = match (b1, b2) {
                    (Some(b1), Some(b2)) => {
                        Some(format!("({} + {})", t(a1, &b2), t(b1, &conj(&a2))))
                    }
                    (Some(b1), None) => Some(t(b1, &conj(&a2))),
                    (None, Some(b2)) => Some(t(a1, &b2)),
                    (None, None) => None,
                };
                Some((a, b))
            }
        }
    }

    pub(crate) fn push_cpartials(
        &mut self,
        e: &Expr,
        m: Wirt,
        out: &mut Vec<(Expr, String, Option<String>)>,
    ) {
        nilang_syntax::stack::deep(|| {
            let k = self.ad_kind();
            let ck = self.ad_ckind();
            let one = self.ad_one();
            let zero = format!("nilang::zero::<{}>()", self.ad_scalar());
            let cone = self.cconst(&one, &zero);
            let holo = |g: &mut Self, x: &Expr, d: String, out: &mut Vec<_>| {
                g.push_cpartials(x, Self::compose(&m, d, None), out)
            };
            if !self.has_complex(e) {
                // A real sub-expression: its real partials, as complex numbers.
                for (leaf, p) in self.partials(e) {
                    let d = self.cconst(&p, &zero);
                    match Self::compose(&m, d, None) {
                        Some((a, b)) => out.push((leaf, a, b)),
                        None => unreachable!("compose gives a pair"),
                    }
                }
                return;
            }
            match &e.kind {
                ExprKind::Var(_) | ExprKind::Index { .. } | ExprKind::Field { .. } => {
                    let kind = self.operand_kind(e);
                    if differentiable(&kind) {
                        let (a, b) = m.unwrap_or((cone, None));
                        out.push((e.clone(), a, b));
                    }
                }
                ExprKind::Paren(inner) => self.push_cpartials(inner, m, out),
                ExprKind::Adjoint(inner) => {
                    // conj: the pair swaps.
                    let (a, b) = m.unwrap_or((cone, None));
                    let swapped = (b.unwrap_or_else(|| self.czero()), Some(a));
                    self.push_cpartials(inner, Some(swapped), out)
                }
                ExprKind::Unary { op, operand } => match op {
                    UnaryOp::Neg => holo(self, operand, format!("(-{cone})"), out),
                    UnaryOp::Plus => self.push_cpartials(operand, m, out),
                    UnaryOp::Not => {}
                },
                ExprKind::Binary { op, lhs, rhs } => {
                    use BinaryOp::*;
                    // The element-wise operators of a broadcast, element by element.
                    match op.scalar() {
                        Add => {
                            self.push_cpartials(lhs, m.clone(), out);
                            self.push_cpartials(rhs, m, out);
                        }
                        Sub => {
                            self.push_cpartials(lhs, m.clone(), out);
                            holo(self, rhs, format!("(-{cone})"), out);
                        }
                        Mul => {
                            let l = self.value_as(lhs, &ck);
                            let r = self.value_as(rhs, &ck);
                            holo(self, lhs, r, out);
                            holo(self, rhs, l, out);
                        }
                        Div => {
                            let l = self.value_as(lhs, &ck);
                            let r = self.value_as(rhs, &ck);
                            holo(self, lhs, format!("({cone} / {r})"), out);
                            holo(self, rhs, format!("(-({l}) / (({r}) * ({r})))"), out);
                        }
                        Pow => {
                            let (_, rk) = self.whole(|g| g.expr(rhs));
                            if let Kind::Int(_) = rk {
                                // n z^(n-1), zero for n = 0 (not 0 · inf at z = 0).
                                let l = self.value_as(lhs, &ck);
                                let n = self.value_as(rhs, &Kind::Int(Scalar::I64));
                                let nk = convert(format!("({n})"), &Kind::Int(Scalar::I64), &k);
                                let nc = self.cconst(&nk, &zero);
                                holo(
                                    self,
                                    lhs,
                                    format!(
                                        "nilang::adjoint::ctimes({nc}, nilang::complex::powi({l}, ({n}) - 1))"
                                    ),
                                    out,
                                );
                            } else {
                                // z^w = exp(w log z): w z^w / z and z^w log z.
                                // At z = 0, the values the real x^p takes
                                // there: d/dz is 1 for w = 1, else 0 (the
                                // subgradient, or the limit for Re w > 1),
                                // and d/dw is 0.
                                let l = self.value_as(lhs, &ck);
                                let r = self.value_as(rhs, &ck);
                                let czero = self.czero();
                                let p = format!("nilang::complex::powc({l}, {r})");
                                let dz = format!(
                                    "(if {l} == {czero} {{ if {r} == {cone} {{ {cone} }} else {{ {czero} }} }} else {{ ({r}) * {p} / ({l}) }})"
                                );
                                holo(self, lhs, dz, out);
                                let dw = self
                                    .czero_at_zero(&l, &format!("{p} * nilang::complex::ln({l})"));
                                holo(self, rhs, dw, out);
                            }
                        }
                        _ => self.unsupported(e.span, "differentiating this complex expression"),
                    }
                }
                ExprKind::Call { callee, args, .. } => {
                    let c = |f: &str, x: &str| format!("nilang::complex::{f}({x})");
                    let two = format!("({one} + {one})");
                    let half = format!("({one} / {two})");
                    match (callee.name.as_str(), args.as_slice()) {
                        ("identity" | "value" | "unwrap", [x]) => self.push_cpartials(x, m, out),
                        // Values of a type or a shape: no derivative.
                        ("zero" | "one", _) => {}
                        ("conj", [x]) => {
                            let (a, b) = m.unwrap_or((cone, None));
                            let swapped = (b.unwrap_or_else(|| self.czero()), Some(a));
                            self.push_cpartials(x, Some(swapped), out)
                        }
                        ("real", [x]) => {
                            let h = self.cconst(&half, &zero);
                            self.push_cpartials(x, Self::compose(&m, h.clone(), Some(h)), out)
                        }
                        ("imag", [x]) => {
                            let a = self.cconst(&zero, &format!("(-{half})"));
                            let b = self.cconst(&zero, &half);
                            self.push_cpartials(x, Self::compose(&m, a, Some(b)), out)
                        }
                        ("abs2", [x]) => {
                            let z = self.value_as(x, &ck);
                            self.push_cpartials(x, Self::compose(&m, c("conj", &z), Some(z)), out)
                        }
                        ("abs", [x]) => {
                            // At z = 0, the subgradient 0 (not 0/0).
                            let z = self.value_as(x, &ck);
                            let r = format!("({two} * {})", c("abs", &z));
                            let a = self.czero_at_zero(&z, &format!("{} / {r}", c("conj", &z)));
                            let b = self.czero_at_zero(&z, &format!("{z} / {r}"));
                            self.push_cpartials(x, Self::compose(&m, a, Some(b)), out)
                        }
                        ("angle", [x]) => {
                            // At z = 0, where angle is not differentiable,
                            // the subgradient 0 (not 0/0).
                            let z = self.value_as(x, &ck);
                            let a =
                                format!("({} / ({z}))", self.cconst(&zero, &format!("(-{half})")));
                            let b = format!("({} / {})", self.cconst(&zero, &half), c("conj", &z));
                            let (a, b) = (self.czero_at_zero(&z, &a), self.czero_at_zero(&z, &b));
                            self.push_cpartials(x, Self::compose(&m, a, Some(b)), out)
                        }
                        // A real function of a real argument that reads a
                        // complex value (`tanh(imag(z) - a)`): its real
                        // rule, as a complex factor (the holomorphic ones
                        // keep their complex formula below).
                        (f, [x])
                            if matches!(
                                self.expr_types.at(x.span),
                                Some(Ty::Scalar(Scalar::F64 | Scalar::F32) | Ty::Generic(_))
                            ) && let Some(rule) = PureFn::named(f)
                                .filter(|f| !holomorphic(*f))
                                .and_then(|f| super::real_call_derivative(self, f, x)) =>
                        {
                            if let Some(d) = rule {
                                let d = self.cconst(&d, &zero);
                                holo(self, x, d, out);
                            }
                        }
                        (f, [x]) => {
                            let local = PureFn::named(f)
                                .filter(|f| holomorphic(*f))
                                .and_then(local_derivative);
                            // `compose` guards every product, so a pole
                            // needs nothing more.
                            let d = local.and_then(|local| {
                                let z = self.value_as(x, &ck);
                                self.complex_formula(local.formula, &z, &cone, &two)
                            });
                            let Some(d) = d else {
                                self.unsupported(
                                    e.span,
                                    &format!("an adjoint rule for `{f}` of a complex number"),
                                );
                                return;
                            };
                            holo(self, x, d, out)
                        }
                        (f, _) => self.unsupported(
                            e.span,
                            &format!("an adjoint rule for `{f}` of a complex number"),
                        ),
                    }
                }
                ExprKind::Int(_) | ExprKind::Float(_) | ExprKind::Bool(_) | ExprKind::Str(_) => {}
                _ => self.unsupported(e.span, "differentiating this complex expression"),
            }
        })
    }

    /// The adjoint rule of `target op= value` when complex numbers are
    /// involved (see [`nilang::adjoint::wirtinger`]).
    pub(crate) fn ad_complex_instruction(
        &mut self,
        target_bar: &str,
        target_complex: bool,
        sign_plus: bool,
        value: &Expr,
    ) {
        for l in self.complex_rule_lines(target_bar, target_complex, sign_plus, value) {
            self.line(&l);
        }
    }

    /// The lines of [`Gen::ad_complex_instruction`]; in a broadcast
    /// (`self.bcast`), each place's adjoint is the element the loop is at
    /// ([`Gen::bar_elem`]), and the lines are its body.
    pub(crate) fn complex_rule_lines(
        &mut self,
        target_bar: &str,
        target_complex: bool,
        sign_plus: bool,
        value: &Expr,
    ) -> Vec<String> {
        let partials = self.cpartials(value);
        let mut lines = Vec::new();
        if partials.is_empty() {
            return lines;
        }
        let g = self.fresh("g");
        lines.push(format!("let {g} = {target_bar};"));
        for (leaf, a, b) in partials {
            let Some(leaf_bar) = self.bar_elem(&leaf) else {
                continue;
            };
            let leaf_complex = matches!(self.operand_kind(&leaf), Kind::Complex(_));
            let b = b.unwrap_or_else(|| self.czero());
            let (a, b) = if sign_plus {
                (a, b)
            } else {
                (format!("(-{a})"), format!("(-{b})"))
            };
            let f = wirtinger_rule(target_complex, leaf_complex);
            lines.push(format!(
                "nilang::adjoint::wirtinger::{f}(&mut {leaf_bar}, &{g}, {a}, {b});"
            ));
        }
        lines
    }
}

/// The runtime's function (`nilang::adjoint::wirtinger::…`) that sends the
/// adjoint of a value, complex or real, to a place it read, complex or
/// real, through a Wirtinger pair.
pub(crate) fn wirtinger_rule(value_complex: bool, leaf_complex: bool) -> &'static str {
    match (value_complex, leaf_complex) {
        (true, true) => "complex_complex",
        (false, true) => "real_complex",
        (true, false) => "complex_real",
        (false, false) => "real_real",
    }
}

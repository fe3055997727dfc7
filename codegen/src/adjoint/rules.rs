//! The adjoint rules of instructions `y op= e` (scalar and broadcast),
//! adjoint places and allocations.

use super::*;

impl Gen<'_> {
    pub(crate) fn ad_kind(&self) -> Kind {
        let scalar = self
            .mode
            .ad
            .as_ref()
            .map(|a| a.scalar.as_str())
            .unwrap_or("f64");
        match Scalar::named(scalar) {
            Some(s) if s.is_float() => kind_of(&Ty::Scalar(s)),
            _ => Kind::Generic(scalar.to_string()),
        }
    }

    pub(crate) fn ad_scalar(&self) -> String {
        rust_scalar(&self.ad_kind()).unwrap_or_else(|| "f64".into())
    }

    pub(crate) fn ad_zero(&self) -> String {
        format!(
            "<{ADJOINT_TYPE} as nilang::Adjoint<{}>>::zero()",
            self.ad_scalar()
        )
    }

    pub(crate) fn ad_one(&self) -> String {
        format!("nilang::one::<{}>()", self.ad_scalar())
    }

    /// `bar += g * s`.
    pub(crate) fn add_scaled(&self, bar: &str, g: &str, s: &str) -> String {
        format!("nilang::Adjoint::add_scaled(&mut {bar}, &{g}, {s});")
    }

    /// The adjoint of a new ancilla, zero.
    pub(crate) fn ad_alloc(&mut self, name: &Ident, kind: &Kind, small: bool) {
        if !self.active_at(name.span) {
            // Computed from constants only: no adjoint.
            return;
        }
        let n = rust_name(&name.name);
        let b = bar_name(&name.name);
        let zero = self.ad_zero();
        let code = match kind {
            k if differentiable(k) => match k {
                Kind::Complex(_) => format!("nilang::Complex::new({zero}, {zero})"),
                Kind::Struct { .. } => match self.struct_bar_zero(&n, k) {
                    Some(code) => code,
                    None => return,
                },
                _ => zero,
            },
            Kind::Array(inner) if differentiable(inner) => {
                let elem = match **inner {
                    Kind::Complex(_) => format!("nilang::Complex::new({zero}, {zero})"),
                    _ => zero,
                };
                if small {
                    // Held as the array is (`codegen::small`).
                    let buf = nilang_analysis::names::small_buffer_name(&b);
                    self.line(&format!(
                        "let mut {buf} = nilang::SmallBuf::from_elem({elem}, {n}.len());"
                    ));
                    self.line(&format!("let mut {b} = &mut {buf}[..];"));
                    return;
                }
                format!("vec![{elem}; {n}.len()]")
            }
            Kind::Matrix(inner) if differentiable(inner) => match **inner {
                Kind::Complex(_) => format!(
                    "nilang::ndarray::Array2::from_elem({n}.raw_dim(), nilang::Complex::new({zero}, {zero}))"
                ),
                _ => format!("nilang::ndarray::Array2::from_elem({n}.raw_dim(), {zero})"),
            },
            Kind::Stack(inner) if differentiable(inner) => match **inner {
                Kind::Complex(_) => "nilang::Stack::<nilang::Complex<G>>::new()".into(),
                _ => format!("nilang::Stack::<{ADJOINT_TYPE}>::new()"),
            },
            _ => return,
        };
        self.line(&format!("let mut {b} = {code};"));
    }

    /// The adjoint of a place, mirroring [`Gen::lvalue`]; `None` when the
    /// place carries no derivative.
    pub(crate) fn bar_place(&mut self, expr: &Expr) -> Option<String> {
        nilang_syntax::stack::deep(|| {
            match &expr.kind {
                ExprKind::Var(name) => {
                    let (id, kind) = self.def_kind(expr.span)?;
                    if matches!(self.resolution.defs[id].kind, DefKind::KwParam(_))
                        || !self.activity.is_active(id)
                    {
                        // Keyword parameters, `Const` parameters and what is
                        // computed from them only carry no derivative.
                        return None;
                    }
                    let is_param = matches!(self.resolution.defs[id].kind, DefKind::Param(_));
                    let b = bar_name(name);
                    match kind {
                        k if differentiable(&k) && is_param => Some(format!("(*{b})")),
                        k if differentiable(&k) => Some(b),
                        Kind::Array(inner) | Kind::Matrix(inner) | Kind::Csc(inner)
                            if differentiable(&inner) =>
                        {
                            Some(b)
                        }
                        Kind::Stack(inner) if differentiable(&inner) && is_param => {
                            Some(format!("(*{b})"))
                        }
                        Kind::Stack(inner) if differentiable(&inner) => Some(b),
                        _ => None,
                    }
                }
                ExprKind::Index { base, indices } => {
                    let base_bar = self.bar_place(base)?;
                    let (_, base_kind) = self.indexed(base);
                    if base_kind == Kind::Offsets {
                        return None;
                    }
                    let of = Indexed {
                        base,
                        adjoint: true,
                        place: true,
                    };
                    let (code, elem) = self.element(base_bar, base_kind, indices, of, expr.span)?;
                    differentiable(&elem).then_some(code)
                }
                ExprKind::Field { base, field } => {
                    let (_, base_kind) = self.whole(|g| g.expr(base));
                    match (&base_kind, field.name.as_str()) {
                        (Kind::Complex(_), "re" | "im") => {
                            Some(format!("{}.{}", self.bar_place(base)?, field.name))
                        }
                        // The adjoint of a CSC matrix is the adjoint of its values.
                        (Kind::Csc(_), "nzval") => self.bar_place(base),
                        // That of a log number is the adjoint of its logarithm.
                        (Kind::ULog(_), "log") => self.bar_place(base),
                        (Kind::Struct { name, fields, .. }, f) => {
                            let (_, kind, generic) =
                                fields.iter().find(|(n, _, _)| n == f)?.clone();
                            if !differentiable(&kind) {
                                return None;
                            }
                            if !generic {
                                self.unsupported(
                                field.span,
                                &format!(
                                    "differentiating through the field `{f}` of `{name}`, whose type names no type parameter (declare it with one)"
                                ),
                            );
                                return None;
                            }
                            Some(format!("{}.{}", self.bar_place(base)?, rust_name(f)))
                        }
                        _ => None,
                    }
                }
                ExprKind::Call { callee, args, .. }
                    if matches!(callee.name.as_str(), "real" | "imag") && args.len() == 1 =>
                {
                    let (_, kind) = self.whole(|g| g.expr(&args[0]));
                    let inner = self.bar_place(&args[0])?;
                    match kind {
                        Kind::Complex(_) => Some(format!(
                            "{inner}.{}",
                            if callee.name == "real" { "re" } else { "im" }
                        )),
                        _ if callee.name == "real" => Some(inner),
                        _ => None,
                    }
                }
                ExprKind::Paren(inner) | ExprKind::Adjoint(inner) => self.bar_place(inner),
                ExprKind::Unary {
                    op: UnaryOp::Neg,
                    operand,
                } => self.bar_place(operand),
                _ => None,
            }
        })
    }

    /// The kind of an operand; in a broadcast an array stands for its
    /// element.
    pub(crate) fn operand_kind(&mut self, e: &Expr) -> Kind {
        if self.bcast.is_some() {
            self.expr(e).1
        } else {
            self.whole(|g| g.expr(e)).1
        }
    }

    /// The local derivatives of `value` with respect to the places it reads:
    /// `(place, code of d value / d place)`, in the adjoint scalar kind.
    pub(crate) fn partials(&mut self, value: &Expr) -> Vec<(Expr, String)> {
        let mut out = Vec::new();
        push_partials(self, value, None, &mut out);
        out
    }

    /// [`Gen::partials`] for lines that fill the vector a long product's
    /// partials read (the first list) before they use the partials.
    pub(crate) fn bound_partials(&mut self, value: &Expr) -> (Vec<String>, Vec<(Expr, String)>) {
        let outer = self.partial_lets.replace(Slots::default());
        let partials = self.partials(value);
        let slots = std::mem::replace(&mut self.partial_lets, outer).unwrap_or_default();
        let lines = self.slot_lines(&slots.name, slots.codes);
        (lines, partials)
    }

    /// The lines that fill an array `name` of adjoint scalars with `codes`,
    /// one slot each (none when there are no codes).
    fn slot_lines(&mut self, name: &str, codes: Vec<String>) -> Vec<String> {
        if codes.is_empty() {
            return Vec::new();
        }
        let zero = format!("nilang::zero::<{}>()", self.ad_scalar());
        // An array on the stack (a real scalar is `Copy`): no heap.
        let mut lines = vec![format!("let mut {name} = [{zero}; {}];", codes.len())];
        lines.extend(
            codes
                .into_iter()
                .enumerate()
                .map(|(i, code)| format!("{name}[{i}] = {code};")),
        );
        lines
    }

    /// The adjoint rule of `target op= value` in an inverse program, where it
    /// undoes `target (inverse op)= value`: the places `value` reads get
    /// `target`'s adjoint times their local derivative.
    pub(crate) fn ad_instruction(&mut self, target: &Expr, op: InstrOp, value: &Expr, span: Span) {
        // In the `~@routine` of a `@store @routine`: from the tape.
        if self.pop_stored(target, op, value, span) {
            return;
        }
        let Some((_, kind, negated)) = self.lvalue(target) else {
            return;
        };
        if !differentiable(&kind) {
            return;
        }
        let Some(sign_plus) = self.rule_sign(op, span) else {
            return;
        };
        let sign_plus = sign_plus != negated;
        let Some(target_bar) = self.bar_place(target) else {
            return;
        };
        let target_complex = matches!(kind, Kind::Complex(_));
        if target_complex || self.has_complex(value) {
            return self.ad_complex_instruction(&target_bar, target_complex, sign_plus, value);
        }
        for l in self.rule_lines(&target_bar, sign_plus, value) {
            self.line(&l);
        }
    }

    /// The sign of the adjoint rule of `y op= e` in a reverse pass: `y -= e`
    /// undoes `y += e`, so the reads get +ȳ ∂e (`true`); `y += e`, -ȳ ∂e.
    /// Other operators have no rule (reported).
    pub(crate) fn rule_sign(&mut self, op: InstrOp, span: Span) -> Option<bool> {
        match op {
            InstrOp::Sub => Some(true),
            InstrOp::Add => Some(false),
            _ => {
                self.unsupported(span, "differentiating this instruction");
                None
            }
        }
    }

    /// The lines of a real instruction's adjoint rule: ȳ (`target_bar`) into
    /// a temporary, then each place that `value` reads gets ±ȳ times its
    /// local derivative. Empty when `value` reads nothing differentiable.
    pub(crate) fn rule_lines(
        &mut self,
        target_bar: &str,
        sign_plus: bool,
        value: &Expr,
    ) -> Vec<String> {
        let (lets, partials) = self.bound_partials(value);
        if partials.is_empty() {
            return Vec::new();
        }
        let g = self.fresh("g");
        let mut lines = vec![format!("let {g} = {target_bar};")];
        lines.extend(lets);
        lines.extend(self.scale_partials(&g, sign_plus, partials));
        lines
    }

    /// The rule of an overwrite `y = value` in a tape loop, with ȳ taken
    /// into `g` (and zeroed) and `y` holding its old value: each place
    /// `value` reads, `y` included, gets ȳ times its local derivative.
    pub(crate) fn overwrite_rule_lines(&mut self, g: &str, value: &Expr) -> Vec<String> {
        self.scaled_partials(g, true, value)
    }

    /// [`Gen::overwrite_rule_lines`] subtracted (undoing a tape loop's
    /// overwrite rule, `tape.rs`).
    pub(crate) fn negated_overwrite_rule_lines(&mut self, g: &str, value: &Expr) -> Vec<String> {
        self.scaled_partials(g, false, value)
    }

    /// `±g ∂value/∂leaf` added to each leaf's adjoint.
    pub(crate) fn scaled_partials(
        &mut self,
        g: &str,
        sign_plus: bool,
        value: &Expr,
    ) -> Vec<String> {
        let (mut lines, partials) = self.bound_partials(value);
        lines.extend(self.scale_partials(g, sign_plus, partials));
        lines
    }

    /// The lines of `±g ∂value/∂leaf` for each `(leaf, ∂value/∂leaf)`.
    fn scale_partials(
        &mut self,
        g: &str,
        sign_plus: bool,
        partials: Vec<(Expr, String)>,
    ) -> Vec<String> {
        let mut lines = Vec::new();
        // Every local derivative is read before the first adjoint is
        // written: the compiler cannot tell that `x_bar` and `x` do not
        // overlap, and would otherwise load the operands again after each
        // store.
        // Past `MANY` of them, into the slots of one vector instead of a
        // local each (see `Deriv::bind` for why).
        const MANY: usize = 64;
        let many = partials.len() > MANY;
        let vector = if many {
            self.slot_vectors += 1;
            format!("__dd{}", self.slot_vectors)
        } else {
            String::new()
        };
        let mut codes = Vec::new();
        let mut updates = Vec::new();
        for (leaf, p) in partials {
            let Some(leaf_bar) = self.bar_elem(&leaf) else {
                continue;
            };
            let s = if sign_plus { p } else { format!("(-{p})") };
            let d = if many {
                codes.push(s);
                format!("{vector}[{}]", codes.len() - 1)
            } else {
                let d = self.fresh("d");
                lines.push(format!("let {d} = {s};"));
                d
            };
            updates.push(self.add_scaled(&leaf_bar, g, &d));
        }
        lines.extend(self.slot_lines(&vector, codes));
        lines.extend(updates);
        lines
    }

    /// The adjoint of a place read or written by an instruction: in a
    /// broadcast, of the element that the loop is at when the place is an
    /// array (`x_bar[__i]`), a matrix (`A_bar[[__r, __c]]`) or a matrix
    /// column (`A_bar[[__i, j]]`); otherwise [`Gen::bar_place`].
    pub(crate) fn bar_elem(&mut self, place: &Expr) -> Option<String> {
        let Some(two_d) = self.bcast.as_ref().map(|b| b.two_d) else {
            return self.bar_place(place);
        };
        if !two_d && let Some((_, c, elem)) = self.whole(|g| g.column_of(place)) {
            let ExprKind::Index { base, .. } = &place.kind else {
                return None;
            };
            let bar = self.whole(|g| g.bar_place(base))?;
            return differentiable(&elem).then(|| format!("{bar}[[__i, {c}]]"));
        }
        let bar = self.whole(|g| g.bar_place(place))?;
        match self.whole(|g| g.expr(place)).1 {
            Kind::Array(_) if !two_d => Some(format!("{bar}[__i]")),
            Kind::Matrix(_) if two_d => Some(format!("{bar}[[__r, __c]]")),
            Kind::Array(_) | Kind::Matrix(_) => None,
            _ => Some(bar),
        }
    }

    /// The adjoint rule of a broadcast instruction `y .+= e` (or `.-=`):
    /// the rule of `y[i] += e[i]` in a loop over the elements, before the
    /// loop that undoes the instruction (the local derivatives read the
    /// operands, which that loop leaves alone, and not `y`).
    pub(crate) fn ad_broadcast(&mut self, target: &Expr, op: InstrOp, value: &Expr, span: Span) {
        let Some(t) = self.bcast_target(target) else {
            return;
        };
        let target_complex = matches!(t.elem, Kind::Complex(_));
        let complex = target_complex || self.has_complex(value);
        if !differentiable(&t.elem) && !complex {
            return;
        }
        let Some(sign_plus) = self.rule_sign(op, span) else {
            return;
        };
        self.bcast = Some(super::Bcast {
            two_d: t.two_d,
            operands: Vec::new(),
        });
        // Through complex values, element by element by Wirtinger pairs
        // (`complex.rs`), as a scalar instruction's rule.
        let lines = match self.bar_elem(target) {
            Some(target_bar) if complex => {
                self.complex_rule_lines(&target_bar, target_complex, sign_plus, value)
            }
            Some(target_bar) => self.rule_lines(&target_bar, sign_plus, value),
            None => Vec::new(),
        };
        let operands = self.bcast.take().map(|b| b.operands).unwrap_or_default();
        if lines.len() > 1 {
            self.bcast_loop(&t, operands, span, &lines);
        }
    }
}

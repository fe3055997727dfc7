//! Stacks in the Rust backend: `Stack<T>` values and the instructions
//! `PUSH!`, `POP!`, `COPYPUSH!` and `COPYPOP!`.
//!
//! A stack is a `nilang::Stack<T>`: a parameter `s::Stack<T>` is `&mut
//! nilang::Stack<T>` (`&nilang::Stack<T>` when only read), an ancilla `s ←
//! stack(T)` a local, which must be empty when freed. The instructions:
//!
//! - `PUSH!(s, x)` moves `x` onto `s` and leaves `x` zero; its inverse
//!   `POP!(s, x)` needs `x` zero and moves the top of `s` into it;
//! - `COPYPUSH!(s, x)` pushes a copy of `x` (any expression of the stack's
//!   type); its inverse `COPYPOP!(s, x)` pops a value that must equal `x`.
//!
//! Popping an empty stack is an error whether checks are on or not (the
//! alternative would be a panic); the zero check of `POP!`, the equality
//! check of `COPYPOP!` and the emptiness check of a freed stack are the
//! run-time checks that `@invcheckoff` and `checks = false` leave out.
//!
//! Gradients: a stack of differentiable values has an adjoint stack
//! `s_bar` (`nilang::Stack<G>`) beside it that the reverse pass keeps the
//! same length: where the reverse pass pushes a value back (undoing a
//! `POP!`), the value's adjoint goes onto `s_bar` and the place's adjoint
//! becomes zero; where it pops (undoing a `PUSH!`), the place gets the
//! value and its adjoint back from `s_bar`. Undoing `COPYPUSH!` adds the
//! copy's adjoint to what `x` reads; undoing `COPYPOP!` pushes a zero
//! adjoint (the popped copy was only compared).

use super::*;

pub(super) fn is_stack_instruction(name: &str) -> bool {
    matches!(name, "PUSH!" | "POP!" | "COPYPUSH!" | "COPYPOP!")
}

/// The zero of a stack's element type, `elem_rust` in Rust: what `PUSH!`
/// leaves in the place it empties and what `POP!` wants there. `None` for
/// the element types the stack instructions do not take (the analysis's
/// `limits::stack_element`): number systems, structs, arrays, stacks.
fn element_zero(elem: &Kind, elem_rust: &str) -> Option<String> {
    let number = |k: &Kind| {
        matches!(
            k,
            Kind::Float(_)
                | Kind::Generic(_)
                | Kind::Int(Scalar::I64 | Scalar::I32)
                | Kind::Unknown
        )
    };
    match elem {
        // `num_traits::Zero` has no `bool`; its zero is `false`.
        Kind::Bool => return Some("false".into()),
        Kind::Int(_) | Kind::Float(_) | Kind::Generic(_) | Kind::Unknown => {}
        Kind::Complex(inner) if number(inner) => {}
        _ => return None,
    }
    Some(format!("<{elem_rust} as nilang::num_traits::Zero>::zero()"))
}

impl Gen<'_> {
    pub(super) fn is_stack_def(&self, span: Span) -> bool {
        matches!(self.def_kind(span), Some((_, Kind::Stack(_))))
    }

    /// A stack variable passed to a callee: `&mut s` for an ancilla, a
    /// reborrow `&mut *s` for a parameter (`&` when only read).
    pub(super) fn stack_ref(&self, id: usize, name: &str, mutable: bool) -> String {
        let m = if mutable { "&mut " } else { "&" };
        if matches!(self.resolution.defs[id].kind, DefKind::Param(_)) {
            format!("{m}*{name}")
        } else {
            format!("{m}{name}")
        }
    }

    /// The argument for a read-only `Stack<T>` parameter of a callee.
    pub(super) fn stack_arg(&mut self, arg: &Expr) -> Option<String> {
        if let ExprKind::Var(name) = &arg.kind
            && let Some((id, Kind::Stack(_))) = self.def_kind(arg.span)
        {
            return Some(self.stack_ref(id, &rust_name(name), false));
        }
        // Anything else is refused by typeck (E0620, "this is not a stack").
        None
    }

    /// `stack(T)`: a new, empty stack; `stack(x)`: one of `x`'s type.
    pub(super) fn stack_new(&mut self, t: &Expr, span: Span) -> (String, Kind) {
        let elem = self
            .type_kind(t)
            .or_else(|| self.def_kind(t.span).map(|(_, k)| k));
        match elem {
            Some(elem) if rust_scalar(&elem).is_some() && elem.is_scalar_like() => {
                let s = rust_scalar(&elem).unwrap_or_default();
                (
                    format!("nilang::Stack::<{s}>::new()"),
                    Kind::Stack(Box::new(elem)),
                )
            }
            // typeck refuses any other element type (E0620).
            _ => {
                let _ = span;
                ("()".into(), Kind::Unknown)
            }
        }
    }

    /// `s → stack(T)`: the stack must be empty.
    pub(super) fn stack_dealloc(&mut self, name: &Ident, span: Span) {
        if !self.mode.checks {
            return;
        }
        let location = self.location(span);
        let s = rust_name(&name.name);
        let what = format!("the stack `{}` must be empty when freed", name.name);
        self.line(&format!(
            "if !{s}.is_empty() {{ return Err(nilang::Error::new({location}, nilang::Check::Stack, {what:?}, nilang::Stack::<()>::new(), &{s})); }}"
        ));
    }

    /// One of the four stack instructions (an inverted call is its inverse
    /// instruction), preceded in a reverse pass by its adjoint rule.
    pub(super) fn stack_instruction(&mut self, name: &str, call: &Call, span: Span) {
        let instr = crate::builtins::instruction(name).expect("known instruction");
        let name = if call.inverted { instr.inverse } else { name };
        // A wrong number of arguments is E0108, reported by the checks.
        let [s_arg, x_arg] = call.args.as_slice() else {
            return;
        };
        let stack = match (&s_arg.kind, self.def_kind(s_arg.span)) {
            (ExprKind::Var(s), Some((_, Kind::Stack(elem)))) => Some((s.clone(), *elem)),
            _ => None,
        };
        // typeck refuses anything but a stack variable here (E0620).
        let Some((s_name, elem)) = stack else {
            return;
        };
        let s = rust_name(&s_name);
        let elem_rust = rust_scalar(&elem).unwrap_or_else(|| "f64".into());
        // The analysis refuses stacks of other elements (`limits.rs`,
        // `stack_element`).
        let Some(zero) = element_zero(&elem, &elem_rust) else {
            return;
        };
        // Integers and booleans compare exactly (and `CheckEq` has no
        // implementation for the narrow integer types).
        let differ = |a: &str, b: &str| {
            if matches!(elem, Kind::Int(_) | Kind::Bool) {
                format!("{a} != {b}")
            } else {
                format!("!nilang::CheckEq::check_eq(&{a}, &{b}, ATOL)")
            }
        };
        let location = self.location(span);
        let copy = matches!(name, "COPYPUSH!" | "COPYPOP!");
        let place = if copy {
            None
        } else {
            // A negated argument is refused by the analysis (`limits.rs`),
            // another element type by typeck (E0610).
            let Some((place, _, _)) = self.lvalue(x_arg) else {
                return;
            };
            Some(place)
        };
        // A stack nothing active is pushed on carries no derivative (and the
        // values taken from it none either).
        if self.differentiating() && kinds::differentiable(&elem) && self.active_at(s_arg.span) {
            self.ad_stack_rule(name, &s_name, x_arg, &elem, &location);
        }
        // Run plainly inside a reverse pass: `s_bar` follows after it.
        let sync = self.mode.ad.is_some() && !self.differentiating();
        let empty = format!(
            "return Err(nilang::Error::new({location}, nilang::Check::Stack, \"{name}({s_name}, {}): the stack `{s_name}` is empty\", nilang::Plain(\"a value to take\"), nilang::Plain(\"the stack `{s_name}` empty\")))",
            crate::printer::print_expr(x_arg).replace('"', "\\\"")
        );
        let x_text = crate::printer::print_expr(x_arg);
        match (name, place) {
            ("PUSH!", Some(p)) => {
                // The element type is known from the stack.
                let zero = match elem {
                    Kind::Bool => "false",
                    _ => "nilang::num_traits::Zero::zero()",
                };
                self.line(&format!("{s}.push(std::mem::replace(&mut {p}, {zero}));"));
            }
            ("POP!", Some(p)) => {
                let v = self.fresh("v");
                self.line(&format!(
                    "let {v}: {elem_rust} = match {s}.pop() {{ Some(v) => v, None => {empty} }};"
                ));
                if self.mode.checks {
                    let what = format!("`{x_text}` must be zero before `POP!({s_name}, {x_text})`");
                    let cond = differ(&p, &zero);
                    self.line(&format!(
                        "if {cond} {{ return Err(nilang::Error::new({location}, nilang::Check::Stack, {what:?}, {zero}, &{p})); }}"
                    ));
                }
                self.line(&format!("{p} = {v};"));
            }
            ("COPYPUSH!", _) => {
                let value = self.value_as(x_arg, &elem);
                self.line(&format!("{s}.push({value});"));
            }
            ("COPYPOP!", _) => {
                let v = self.fresh("v");
                self.line(&format!(
                    "let {v}: {elem_rust} = match {s}.pop() {{ Some(v) => v, None => {empty} }};"
                ));
                if self.mode.checks {
                    let value = self.value_as(x_arg, &elem);
                    let e = self.fresh("expected");
                    let what = format!(
                        "`COPYPOP!({s_name}, {x_text})`: the top of `{s_name}` must equal `{x_text}`"
                    );
                    self.line(&format!("let {e}: {elem_rust} = {value};"));
                    let cond = differ(&v, &e);
                    self.line(&format!(
                        "if {cond} {{ return Err(nilang::Error::new({location}, nilang::Check::Stack, {what:?}, &{e}, &{v})); }}"
                    ));
                } else {
                    self.line(&format!("let _ = {v};"));
                }
            }
            _ => {}
        }
        if sync {
            self.sync_stack_bar(s_arg);
        }
    }

    /// After a plain call inside a reverse pass (in a `@routine` run without
    /// rules): the adjoint stacks of the stacks passed to it follow them.
    pub(super) fn sync_call_stacks(&mut self, call: &Call) {
        if self.mode.ad.is_none()
            || self.differentiating()
            || crate::builtins::instruction(&call.callee.name).is_some()
        {
            return;
        }
        for arg in &call.args {
            if let ExprKind::Var(_) = arg.kind
                && self.is_stack_def(arg.span)
            {
                self.sync_stack_bar(arg);
            }
        }
    }

    /// In a reverse pass, after code that changed the stack `s_arg` without
    /// adjoint rules (a `@routine` run plainly, the forward part of a fused
    /// gradient, a plain call): `s_bar` is brought back in step with it, a
    /// zero adjoint for each value pushed, none kept for a value popped.
    /// That is what the rules would leave there: such code runs where the
    /// adjoints of what it writes start at zero (see `plain_routine`, which
    /// keeps its rules for a stack that held values before the routine).
    pub(super) fn sync_stack_bar(&mut self, s_arg: &Expr) {
        let ExprKind::Var(name) = &s_arg.kind else {
            return;
        };
        let Some((_, Kind::Stack(elem))) = self.def_kind(s_arg.span) else {
            return;
        };
        if !kinds::differentiable(&elem) {
            return;
        }
        let Some(sb) = self.bar_place(s_arg) else {
            return;
        };
        let s = rust_name(name);
        let zero = self.ad_zero();
        let zero = match *elem {
            Kind::Complex(_) => format!("nilang::Complex::new({zero}, {zero})"),
            _ => zero,
        };
        self.line(&format!(
            "while {sb}.len() < {s}.len() {{ {sb}.push({zero}); }}"
        ));
        self.line(&format!(
            "while {sb}.len() > {s}.len() {{ let _ = {sb}.pop(); }}"
        ));
    }

    /// The adjoint rule of a stack instruction in a reverse pass (`name` is
    /// the instruction that runs there, undoing its inverse going forwards).
    fn ad_stack_rule(
        &mut self,
        name: &str,
        s_name: &str,
        x_arg: &Expr,
        elem: &Kind,
        location: &str,
    ) {
        let sb = adjoint::bar_name(s_name);
        let s = rust_name(s_name);
        let zero = self.ad_zero();
        let czero = format!("nilang::Complex::new({zero}, {zero})");
        let complex = matches!(elem, Kind::Complex(_));
        let bar_zero = if complex { czero } else { zero };
        let short = format!(
            "match {sb}.pop() {{ Some(g) => g, None => return Err(nilang::Error::new({location}, nilang::Check::Stack, \"the adjoint stack `{sb}` is shorter than `{s_name}`\", {s}.len(), {sb}.len())) }}"
        );
        match name {
            // Undoes PUSH!: the value and its adjoint come back.
            "POP!" => {
                if let Some(b) = self.bar_place(x_arg) {
                    self.line(&format!("{b} = {short};"));
                } else {
                    self.line(&format!("let _ = {short};"));
                }
            }
            // Undoes POP!: the value goes back with its adjoint.
            "PUSH!" => {
                if let Some(b) = self.bar_place(x_arg) {
                    self.line(&format!(
                        "{sb}.push(std::mem::replace(&mut {b}, {bar_zero}));"
                    ));
                } else {
                    self.line(&format!("{sb}.push({bar_zero});"));
                }
            }
            // Undoes COPYPUSH!: the copy's adjoint goes to what `x` reads.
            "COPYPOP!" => {
                let g = self.fresh("g");
                self.line(&format!("let {g} = {short};"));
                if complex || self.has_complex(x_arg) {
                    // As for `v -= e` undoing `v += e`, with v̄ the copy's adjoint.
                    self.ad_complex_instruction(&g, complex, true, x_arg);
                } else {
                    for (leaf, p) in self.partials(x_arg) {
                        if let Some(lb) = self.bar_place(&leaf) {
                            let l = self.add_scaled(&lb, &g, &p);
                            self.line(&l);
                        }
                    }
                }
            }
            // Undoes COPYPOP!: the copy it dropped carried no adjoint.
            "COPYPUSH!" => self.line(&format!("{sb}.push({bar_zero});")),
            _ => {}
        }
    }
}

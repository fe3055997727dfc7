//! Typecasts `(T1 => T2)(x)` in the Rust backend.
//!
//! A cast changes the type of an ancilla from where it runs on, so the
//! generated code shadows it: `let mut x: T2 = ...;`. For that to be seen by
//! everything after it, the cast must sit in the block that allocates the
//! ancilla (`E0622` otherwise, and for parameters, whose Rust type the
//! caller fixes). The backend tracks the kind each ancilla has at each
//! point (`Gen::casts`). The forward program allocates an ancilla with its
//! inferred type, and each cast must start from the type the ancilla has
//! there (`E0621`). In the other passes, an ancilla allocated in a block
//! and cast later in it is allocated with the source type of the first cast
//! met, so the inverse program, which meets the casts in reverse, allocates
//! it with the type the forward program freed it with (`Mode::cast_report`
//! marks the forward program). What cannot be cast is refused by the
//! analysis (`typeck`: E0602, E0621, E0622, E0701); the backend generates
//! the casts that remain.
//!
//! With checks on, a cast must be exact (`nilang::cast::Cast::cast_exact`):
//! otherwise it returns `Check::Cast` with the `.nil` location and the
//! value. With checks off it is Rust's `as` (`cast_as`).
//!
//! Gradients: a cast between floats (also to and from complex numbers)
//! keeps the adjoint (the derivative of an exact cast is one; a complex
//! adjoint's imaginary part is dropped on the way to a real number); a
//! cast from an integer starts from a zero adjoint, and one to an integer
//! drops it.

use super::*;

impl Gen<'_> {
    /// At the start of a block: the casts that can be generated (those of
    /// ancillas the block allocates, at its top level), and the kind such an
    /// ancilla is allocated with (its first cast's source type).
    pub(super) fn cast_block(&mut self, stmts: &[Stmt]) {
        // The statements that run in this block's scope: `begin` and the
        // prefixes open none (nor do they open a Rust block).
        fn flatten<'s>(stmts: &'s [Stmt], out: &mut Vec<&'s Stmt>) {
            nilang_syntax::stack::deep(|| {
                for stmt in stmts {
                    match &stmt.kind {
                        StmtKind::Begin(block) => flatten(&block.stmts, out),
                        StmtKind::Routine(inner, _)
                        | StmtKind::InvCheckOff(inner)
                        | StmtKind::InBounds(inner) => flatten(std::slice::from_ref(inner), out),
                        _ => out.push(stmt),
                    }
                }
            })
        }
        let mut flat = Vec::new();
        flatten(stmts, &mut flat);
        // The typecasts of the block by the definition they change, in
        // order: one pass, so a block of n statements costs O(n), not O(n²).
        let mut casts: rustc_hash::FxHashMap<usize, Vec<(Span, &Type)>> =
            rustc_hash::FxHashMap::default();
        for stmt in &flat {
            if let StmtKind::Typecast { from, value, .. } = &stmt.kind
                && let Some(id) = self.resolution.def_at(value.span)
            {
                casts.entry(id).or_default().push((stmt.span, from));
            }
        }
        for stmt in &flat {
            let StmtKind::Alloc { name, .. } = &stmt.kind else {
                continue;
            };
            let Some(id) = self.resolution.def_at(name.span) else {
                continue;
            };
            // A use resolves to an allocation before it, so every cast of
            // `id` follows this allocation.
            let first = casts
                .get(&id)
                .and_then(|c| c.first())
                .map(|&(_, from)| from);
            // The forward program allocates with the inferred type (its
            // casts must start from it); the others with the type the first
            // cast they meet starts from: the inverse meets the forward
            // program's casts last first.
            if !self.mode.cast_report
                && let Some(kind) = first.and_then(cast_kind_of(&self.generics))
            {
                self.casts.push((id, kind));
            }
        }
    }

    pub(super) fn typecast(&mut self, from: &Type, to: &Type, value: &Expr, span: Span) {
        let (Some(from_kind), Some(to_kind)) = (self.cast_type(from), self.cast_type(to)) else {
            return;
        };
        // Anything but a variable is E0207, from the checks.
        let ExprKind::Var(x) = &value.kind else {
            return;
        };
        // The analysis holds the rest (`typeck`): `x` is an ancilla cast in
        // the block that allocates it (E0622), from the type it has there
        // (E0621), between number types (E0602, E0701).
        let Some((id, _)) = self.def_kind(value.span) else {
            return;
        };
        let numeric = |k: &Kind| match k {
            Kind::Int(_) | Kind::Float(_) => true,
            Kind::Complex(inner) => matches!(**inner, Kind::Float(_)),
            _ => false,
        };
        if !numeric(&from_kind) || !numeric(&to_kind) {
            return;
        }
        let (Some(t1), Some(t2)) = (rust_scalar(&from_kind), rust_scalar(&to_kind)) else {
            return;
        };
        let n = rust_name(x);
        let cast = format!("<{t1} as nilang::cast::Cast<{t2}>>");
        if self.mode.checks {
            let location = self.location(span);
            let text = format!(
                "`({} => {})({x})` must not lose information",
                crate::printer::print_type(from),
                crate::printer::print_type(to)
            );
            let expected = format!(
                "a value that {} holds exactly",
                crate::printer::print_type(to)
            );
            self.line(&format!(
                "let mut {n}: {t2} = match {cast}::cast_exact({n}) {{ Some(v) => v, None => return Err(nilang::Error::new({location}, nilang::Check::Cast, {text:?}, nilang::Plain({expected:?}), {n})) }};"
            ));
        } else {
            self.line(&format!("let mut {n}: {t2} = {cast}::cast_as({n});"));
        }
        // Its adjoint follows (ancillas keep theirs in every reverse pass,
        // also where a routine runs without rules); one that carries no
        // derivative has none.
        if self.mode.ad.is_some() && self.active_at(value.span) {
            let b = adjoint::bar_name(x);
            let zero = self.ad_zero();
            let was = kinds::differentiable(&from_kind);
            let is = kinds::differentiable(&to_kind);
            let from_complex = matches!(from_kind, Kind::Complex(_));
            let to_complex = matches!(to_kind, Kind::Complex(_));
            let line = match (was, is) {
                (true, true) if from_complex && !to_complex => {
                    Some(format!("let mut {b} = {b}.re;"))
                }
                (true, true) if !from_complex && to_complex => {
                    Some(format!("let mut {b} = nilang::Complex::new({b}, {zero});"))
                }
                (true, true) | (_, false) => None,
                (false, true) if to_complex => Some(format!(
                    "let mut {b} = nilang::Complex::new({zero}, {zero});"
                )),
                (false, true) => Some(format!("let mut {b} = {zero};")),
            };
            if let Some(l) = line {
                self.line(&l);
            }
        }
        self.casts.push((id, to_kind));
    }

    /// The kind of a type in a typecast (`None` for what is not a number
    /// type, which the analysis refuses: E0602).
    fn cast_type(&self, ty: &Type) -> Option<Kind> {
        cast_kind_of(&self.generics)(ty)
    }
}

/// The kind a typecast's type names: a scalar, a type parameter or
/// `Complex<...>` of one; `None` otherwise.
fn cast_kind_of(generics: &[String]) -> impl Fn(&Type) -> Option<Kind> + '_ {
    fn go(ty: &Type, generics: &[String]) -> Option<Kind> {
        nilang_syntax::stack::deep(|| {
            let TypeKind::Named { name, args } = &ty.kind else {
                return None;
            };
            match (name.as_str(), args.as_slice()) {
                ("Complex", [inner]) => Some(Kind::Complex(Box::new(go(inner, generics)?))),
                (n, []) if generics.iter().any(|g| g == n) => Some(Kind::Generic(n.to_string())),
                (n, []) => Scalar::named(n).map(|s| kind_of(&Ty::Scalar(s))),
                _ => None,
            }
        })
    }
    move |ty| go(ty, generics)
}

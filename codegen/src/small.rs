//! Small buffers: which ancilla arrays live on the stack.
//!
//! An ancilla array `a ← zeros(T, n)` (or `ones`) that the function only
//! reads and writes cell by cell, asks the length of, or lends whole to a
//! function that takes an array, is generated as a `nilang::SmallBuf`: up
//! to `nilang::SMALL` (32) elements sit inside the function's frame, and only a
//! longer array goes to the heap. The name then stands for a slice of that
//! buffer (`&mut [T]`), which is what the rest of the generated code
//! already reads for an array parameter, so the function's other lines are
//! those of a heap `Vec`. Its adjoint array, when it has one, is held the
//! same way.
//!
//! An array used any other way (pushed on a stack, swapped whole, copied,
//! captured by a partial application, allocated with values that are not
//! one fill) stays a `Vec`: those uses move or clone the value as a `Vec`.

use super::*;

impl Gen<'_> {
    /// Whether the ancilla allocated by `value` as `id` is held in a small
    /// buffer (see the module's documentation).
    pub(crate) fn small_buffer(&self, id: usize, value: &Expr) -> bool {
        if !matches!(self.resolution.defs[id].kind, DefKind::Ancilla)
            || !matches!(kind_of(&self.types.defs[id]), Kind::Array(_))
            || !one_fill(value)
        {
            return false;
        }
        // Mentions of `id` not yet seen to be one of the uses above.
        let (mut left, mut fine) = (0_isize, true);
        let mut spans = Vec::new();
        for stmt in &self.body {
            crate::effects::visit_stmt(stmt, &mut |s| {
                let own = matches!(
                    &s.kind,
                    StmtKind::Alloc { name, .. } | StmtKind::Dealloc { name, .. }
                        if self.resolution.def_at(name.span) == Some(id)
                );
                if let StmtKind::Alloc { value, .. } | StmtKind::Dealloc { value, .. } = &s.kind
                    && own
                {
                    fine &= one_fill(value);
                    left -= 1;
                }
                left -= self.lent_whole(s, id) as isize;
                let whole = |a: &Expr| {
                    matches!(a.kind, ExprKind::Var(_)) && self.resolution.def_at(a.span) == Some(id)
                };
                nilang_syntax::ast::stmt_exprs(s, &mut |e| {
                    e.walk(&mut |x| match &x.kind {
                        _ if whole(x) => {
                            left += 1;
                            spans.push(x.span);
                        }
                        ExprKind::Index { base, .. } if whole(base) => left -= 1,
                        ExprKind::Call { callee, args, .. }
                            if matches!(callee.name.as_str(), "length" | "size")
                                && args.first().is_some_and(whole) =>
                        {
                            left -= 1
                        }
                        _ => {}
                    });
                });
            });
        }
        // Every mention the resolution recorded is one of those walked (a
        // binary search: a long function can mention an array thousands of
        // times).
        spans.sort_unstable();
        let recorded = self.body.iter().all(|s| {
            let uses = &self.resolution.uses;
            let from = uses.partition_point(|(u, _)| u.start < s.span.start);
            uses[from..]
                .iter()
                .take_while(|(u, _)| u.start < s.span.end)
                .all(|(u, d)| *d != id || spans.binary_search(u).is_ok())
        });
        fine && left == 0 && recorded
    }

    /// `let` the small buffer of the ancilla `name ← value` and its slice
    /// under the ancilla's name.
    pub(crate) fn small_alloc(&mut self, name: &Ident, value: &Expr, kind: &Kind) {
        let ExprKind::Call { callee, args, .. } = &value.kind else {
            return;
        };
        let Some(fill) = self.fill(&callee.name, &args[0], &args[1..], value.span) else {
            return;
        };
        let elem = match kind {
            Kind::Array(k) => rust_scalar(k),
            _ => None,
        };
        let n = rust_name(&name.name);
        let buf = nilang_analysis::names::small_buffer_name(&n);
        let (ty, slice) = match elem {
            Some(e) => (format!("::<{e}>"), format!(": &mut [{e}]")),
            None => (String::new(), String::new()),
        };
        self.line(&format!(
            "let mut {buf} = nilang::SmallBuf{ty}::from_elem({}, ({}) as usize);",
            fill.elem, fill.lens[0]
        ));
        self.line(&format!("let mut {n}{slice} = &mut {buf}[..];"));
    }

    /// How many arguments of the call `s` are `id` lent whole to a
    /// function's array parameter (a call of a function of the program,
    /// not an instruction, a template or a derived function).
    fn lent_whole(&self, s: &Stmt, id: usize) -> usize {
        let StmtKind::Call(call) = &s.kind else {
            return 0;
        };
        if crate::builtins::instruction(&call.callee.name).is_some()
            || crate::ast::Derivative::of(&call.callee.name).is_some()
        {
            return 0;
        }
        let Some(sig) = self.ctx.callee(&call.callee.name) else {
            return 0;
        };
        // A template (a function with an `Fn` parameter) is called through
        // its instance, which takes its arguments in another order.
        if sig.params.len() != call.args.len()
            || sig
                .params
                .iter()
                .any(|(_, ty)| matches!(ty, Ty::Constructed(Ctor::Fn, _)))
        {
            return 0;
        }
        call.args
            .iter()
            .zip(&sig.params)
            .filter(|(a, (_, ty))| {
                matches!(a.kind, ExprKind::Var(_))
                    && self.resolution.def_at(a.span) == Some(id)
                    && matches!(kind_of(ty), Kind::Array(_))
            })
            .count()
    }
}

/// Whether `value` is one fill of one dimension: `zeros(T, n)`,
/// `ones(T, n)`.
fn one_fill(value: &Expr) -> bool {
    matches!(
        &value.kind,
        ExprKind::Call { callee, args, broadcast: false, .. }
            if matches!(callee.name.as_str(), "zeros" | "ones") && args.len() == 2
    )
}

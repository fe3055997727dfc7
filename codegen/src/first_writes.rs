//! With checks off, the first update of a scratch ancilla's cell in a run
//! of its `@routine` is an assignment.
//!
//! A scratch ancilla (`Gen::scratch_ancilla`: allocated and freed as zeros,
//! written by nothing but its routine) holds zeros whenever the routine
//! starts: after its allocation, and after every `~@routine`, which brings
//! it back (exactly, when the build sets it back to zero; by the contract
//! the checked build checks, when it uncomputes). So the first `+=` into a
//! cell adds to a zero and can be written `=`; a float's `-=` is `= -` (a
//! type parameter's stays an update: a number system's negation need not
//! be `zero - x`). For a work array walked by a running product,
//! `p[j] += p[j - 1] * t`, that takes the addition off the loop's
//! dependency chain, which it doubled. The one difference is the sign of a
//! zero: `0.0 + (-0.0)` is `+0.0`, where the assignment keeps `-0.0`; the
//! two compare equal.
//!
//! Which updates are first is decided on the routine's statements in
//! order, conservatively: a whole number or an element at a literal index
//! outside any loop, or, in a `for j = lo:hi` loop of the routine's top
//! level with a literal start and a positive literal step (or none), the
//! loop's only write of the ancilla, at `j` plus a literal offset, above
//! every cell written before (each iteration writes a cell of its own). Any
//! other write of the ancilla ends its first writes.

use super::*;

/// The top-level statements of a routine's body `inner` (`@routine begin
/// ... end`, or one statement).
pub(crate) fn routine_top(inner: &Stmt) -> &[Stmt] {
    match &inner.kind {
        StmtKind::Begin(block) => &block.stmts,
        _ => std::slice::from_ref(inner),
    }
}

/// What of one ancilla a run of the routine has written so far.
#[derive(Default)]
struct Written {
    /// Cells written at these (1-based) literal indices.
    cells: Vec<i64>,
    /// Every cell from this index on may have been written.
    from: Option<i64>,
    /// Anything may have been written.
    all: bool,
}

impl Written {
    fn covers(&self, index: i64) -> bool {
        self.all || self.cells.contains(&index) || self.from.is_some_and(|f| index >= f)
    }

    /// Whether no cell at or above `index` has been written.
    fn clear_from(&self, index: i64) -> bool {
        !self.all && self.from.is_none() && self.cells.iter().all(|&c| c < index)
    }
}

impl Gen<'_> {
    /// The spans of the updates of `routine` (`@routine inner`, undone by a
    /// `~@routine`) that are the first writes of their cells in a run of it,
    /// for the scratch ancillas (numbers, or vectors of numbers, allocated
    /// outside it) that it writes. Empty with checks on, in a reverse pass's
    /// adjoint rules, in a tape loop, or for a routine that records.
    pub(crate) fn first_writes(&self, inner: &Stmt) -> Vec<(Span, usize)> {
        if !self.uncomputation_skippable()
            || self.differentiating()
            || self.mode.tape.is_some()
            || self.routine_needs_tape(inner)
        {
            return Vec::new();
        }
        let mut inside = Vec::new();
        nested_allocations(inner, true, &mut |span| {
            inside.extend(self.resolution.def_at(span));
        });
        let mut written: Vec<usize> = Vec::new();
        self.visit_writes(std::slice::from_ref(inner), &mut |root| {
            if let Some(id) = root.and_then(|span| self.resolution.def_at(span))
                && !written.contains(&id)
            {
                written.push(id);
            }
        });
        let top = routine_top(inner);
        let mut out = Vec::new();
        for id in written {
            let number = |k: &Kind| matches!(k, Kind::Float(_) | Kind::Generic(_));
            let float = match kind_of(&self.types.defs[id]) {
                Kind::Array(elem) => number(&elem),
                kind => number(&kind),
            };
            if !float || inside.contains(&id) || !self.scratch_ancilla(id, inner) {
                continue;
            }
            let mut state = Written::default();
            self.first_writes_in(top, id, &mut state, &mut out);
        }
        out
    }

    fn first_writes_in(
        &self,
        stmts: &[Stmt],
        id: usize,
        state: &mut Written,
        out: &mut Vec<(Span, usize)>,
    ) {
        for stmt in stmts {
            if state.all {
                return;
            }
            match &stmt.kind {
                StmtKind::Begin(block) => self.first_writes_in(&block.stmts, id, state, out),
                StmtKind::Instr { .. } => match self.updated_cell(stmt, id) {
                    Some(cell) => {
                        let index = cell.unwrap_or(1);
                        if !state.covers(index) {
                            out.push((stmt.span, id));
                        }
                        state.cells.push(index);
                    }
                    None => self.forget_if_written(stmt, id, state),
                },
                StmtKind::For { var, range, body } => {
                    match self.loop_first_write(var, range, body, id, state) {
                        Some((span, from)) => {
                            out.push((span, id));
                            state.from = Some(from);
                        }
                        None => self.forget_if_written(stmt, id, state),
                    }
                }
                _ => self.forget_if_written(stmt, id, state),
            }
        }
    }

    fn forget_if_written(&self, stmt: &Stmt, id: usize, state: &mut Written) {
        if self.writes_of(std::slice::from_ref(stmt), id) != (0, false) {
            state.all = true;
        }
    }

    /// How many writes of `id` the statements make, and whether any of
    /// their effects is not a write of a variable (which might be one).
    pub(crate) fn writes_of(&self, stmts: &[Stmt], id: usize) -> (usize, bool) {
        let (mut n, mut unknown) = (0, false);
        self.visit_writes(stmts, &mut |root| match root {
            Some(span) if self.resolution.def_at(span) == Some(id) => n += 1,
            Some(_) => {}
            None => unknown = true,
        });
        (n, unknown)
    }

    /// For `id ±= e` (`Some(None)`) or `id[c] ±= e` with a literal `c`
    /// (`Some(Some(c))`): the cell it updates.
    fn updated_cell(&self, stmt: &Stmt, id: usize) -> Option<Option<i64>> {
        let (target, var) = self.accumulated(stmt)?;
        (self.resolution.def_at(var) == Some(id)).then_some(())?;
        match &target.kind {
            ExprKind::Var(_) => Some(None),
            ExprKind::Index { indices, .. } => match &indices[..] {
                [IndexArg::Expr(e)] => e.whole_number().map(Some),
                _ => None,
            },
            _ => None,
        }
    }

    /// `id[index] ±= value` with one index: the index and the value.
    pub(crate) fn element_update<'s>(
        &self,
        stmt: &'s Stmt,
        id: usize,
    ) -> Option<(&'s Expr, &'s Expr)> {
        let (target, root) = self.accumulated(stmt)?;
        (self.resolution.def_at(root) == Some(id)).then_some(())?;
        let (ExprKind::Index { indices, .. }, StmtKind::Instr { value, .. }) =
            (&target.kind, &stmt.kind)
        else {
            return None;
        };
        match &indices[..] {
            [IndexArg::Expr(index)] => Some((index, value)),
            _ => None,
        }
    }

    /// `target ±= e`, not broadcast nor negated, with its root variable's
    /// span.
    pub(crate) fn accumulated<'s>(&self, stmt: &'s Stmt) -> Option<(&'s Expr, Span)> {
        let StmtKind::Instr {
            target,
            op: InstrOp::Add | InstrOp::Sub,
            broadcast: false,
            ..
        } = &stmt.kind
        else {
            return None;
        };
        let (_, root) = target.root_var()?;
        matches!(target.kind, ExprKind::Var(_) | ExprKind::Index { .. }).then_some((target, root))
    }

    /// In `for var = range body`, the update that is the body's only write
    /// of `id`, when every cell it writes is fresh: its span and the first
    /// cell it writes.
    fn loop_first_write(
        &self,
        var: &Ident,
        range: &Range,
        body: &Block,
        id: usize,
        state: &Written,
    ) -> Option<(Span, i64)> {
        let write = self.loop_write(var, range, body, id)?;
        state
            .clear_from(write.first)
            .then_some((body.stmts[write.at].span, write.first))
    }

    /// In `for var = lo:hi body` with a literal `lo` and a positive literal
    /// step (or none), not reversed, whose body writes `id` once, at a
    /// statement of its top level `id[var + k] ±= value`: that write.
    pub(crate) fn loop_write<'s>(
        &self,
        var: &Ident,
        range: &Range,
        body: &'s Block,
        id: usize,
    ) -> Option<LoopWrite<'s>> {
        let start = range.start.whole_number()?;
        let step = range.step.as_ref().map_or(Some(1), Expr::whole_number)?;
        if range.reversed || step < 1 || self.writes_of(&body.stmts, id) != (1, false) {
            return None;
        }
        let is_var = self.is_loop_var(var);
        body.stmts.iter().enumerate().find_map(|(at, stmt)| {
            let (index, value) = self.element_update(stmt, id)?;
            let offset = offset(index, &is_var)?;
            let first = start.checked_add(offset)?;
            Some(LoopWrite {
                at,
                offset,
                first,
                value,
            })
        })
    }

    /// Whether an expression is the loop variable `var`.
    pub(crate) fn is_loop_var(&self, var: &Ident) -> impl Fn(&Expr) -> bool + '_ {
        let def = self.resolution.def_at(var.span);
        move |e: &Expr| matches!(e.kind, ExprKind::Var(_)) && self.resolution.def_at(e.span) == def
    }
}

/// A loop's one write of an ancilla (`Gen::loop_write`).
pub(crate) struct LoopWrite<'s> {
    /// Its position among the statements of the loop's body.
    pub(crate) at: usize,
    /// `k` of `id[var + k]`.
    pub(crate) offset: i64,
    /// The first cell it writes: the loop's start plus `k`.
    pub(crate) first: i64,
    /// What it adds.
    pub(crate) value: &'s Expr,
}

/// `var`, `var + c`, `c + var` or `var - c` with a literal `c`: the offset.
pub(crate) fn offset(index: &Expr, is_var: &dyn Fn(&Expr) -> bool) -> Option<i64> {
    match &index.kind {
        _ if is_var(index) => Some(0),
        ExprKind::Paren(inner) => offset(inner, is_var),
        ExprKind::Binary { op, lhs, rhs } => match op {
            BinaryOp::Add if is_var(lhs) => rhs.whole_number(),
            BinaryOp::Add if is_var(rhs) => lhs.whole_number(),
            BinaryOp::Sub if is_var(lhs) => rhs.whole_number()?.checked_neg(),
            _ => None,
        },
        _ => None,
    }
}

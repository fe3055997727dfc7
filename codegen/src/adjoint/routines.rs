//! Routines in a reverse pass: when a `@routine` can run without adjoint
//! rules, and scratch ancillas.

use super::*;
use crate::first_writes::offset;

/// What visits expressions one by one.
type Visit<'a> = &'a mut dyn FnMut(&Expr);

/// Every expression of `stmt` and of the statements inside it.
fn statement_exprs(stmt: &Stmt, f: &mut dyn FnMut(&Expr)) {
    crate::effects::visit_stmt(stmt, &mut |s| super::stmt_exprs(s, &mut *f));
}

impl Gen<'_> {
    /// In an adjoint, whether the `@routine` `stmts[at]` (`inner`, undone by
    /// `~@routine` at `end`) can run without adjoint rules, and if so the
    /// lines that set aside the adjoints it would touch before it and the
    /// lines that add them back after the `~@routine`.
    ///
    /// Let R be the routine and B the statements between it and its
    /// `~@routine`. A reverse pass runs R, then B's and ~R's adjoint rules;
    /// R's rules apply the transposed Jacobian of R's inverse. When B writes
    /// nothing that R reads or writes, R's and ~R's rules cancel on the
    /// adjoints of the variables R writes: those adjoints pass through
    /// unchanged, and with them zero R's rules change nothing. So R's
    /// adjoints are set to zero, R runs as plain code (the values are the
    /// same), and the saved adjoints are added back at the end. A variable
    /// allocated just before R (only allocations in between, as in the
    /// inverse of a function whose ancillas are freed at its end) or inside
    /// R has a zero adjoint already, and needs no saving; a stack among them
    /// starts empty, and R run plainly gives its adjoint stack a zero for
    /// each value it pushes (`sync_stack_bar`). A stack that held values
    /// before R keeps R's rules (R could pop them). This saves a whole
    /// adjoint sweep of every compute-copy-uncompute.
    pub(crate) fn plain_routine(
        &mut self,
        stmts: &[Stmt],
        at: usize,
        end: usize,
        inner: &Stmt,
    ) -> Option<(Vec<String>, Vec<String>)> {
        // What B writes; an effect that is not a variable write gives up.
        let mut b_writes = Vec::new();
        let mut unknown = false;
        self.visit_writes(&stmts[at + 1..end], &mut |root| match root
            .and_then(|span| self.resolution.def_at(span))
        {
            Some(id) => b_writes.push(id),
            None => unknown = true,
        });
        // What R writes, and every variable it mentions (with a use).
        let mut r_writes = Vec::new();
        self.visit_writes(std::slice::from_ref(inner), &mut |root| match root
            .and_then(|span| self.resolution.def_at(span))
        {
            Some(id) => r_writes.push(id),
            None => unknown = true,
        });
        if unknown {
            return None;
        }
        let mut mentioned: Vec<(usize, Span)> = Vec::new();
        let mut allocated_in_r = Vec::new();
        crate::effects::visit_stmt(inner, &mut |s| {
            if let StmtKind::Alloc { name, .. } = &s.kind
                && let Some(id) = self.resolution.def_at(name.span)
            {
                allocated_in_r.push(id);
            }
            super::stmt_exprs(s, &mut |e| {
                e.walk(&mut |e| {
                    if let ExprKind::Var(_) = e.kind
                        && let Some(id) = self.resolution.def_at(e.span)
                    {
                        mentioned.push((id, e.span));
                    }
                })
            });
        });
        if mentioned.iter().any(|(id, _)| b_writes.contains(id))
            || r_writes.iter().any(|id| b_writes.contains(id))
        {
            return None;
        }
        // Allocated in the run of allocations just before R.
        let fresh_before: Vec<usize> = stmts[..at]
            .iter()
            .rev()
            .map_while(|s| match &s.kind {
                StmtKind::Alloc { name, .. } => Some(self.resolution.def_at(name.span)),
                _ => None,
            })
            .flatten()
            .collect();
        let (mut save, mut restore) = (Vec::new(), Vec::new());
        r_writes.sort_unstable();
        r_writes.dedup();
        for id in r_writes {
            if allocated_in_r.contains(&id) || fresh_before.contains(&id) {
                continue;
            }
            // A variable that carries no derivative has no adjoint to save.
            if !self.activity.is_active(id) {
                continue;
            }
            let kind = kind_of(&self.types.defs[id]);
            let &(_, span) = mentioned.iter().find(|(d, _)| *d == id)?;
            let var = Expr {
                kind: ExprKind::Var(self.resolution.defs[id].name.clone()),
                span,
            };
            // A complex adjoint is saved whole and added back part by part.
            let (zero, parts) = match kind {
                Kind::Complex(_) => {
                    let z = self.ad_zero();
                    (
                        format!("nilang::Complex::new({z}, {z})"),
                        &[".re", ".im"][..],
                    )
                }
                k if k.is_scalar_like() => (self.ad_zero(), &[""][..]),
                Kind::Array(e) | Kind::Matrix(e) if !differentiable(&e) => continue,
                Kind::Array(e) if self.scratch_ancilla(id, inner) => {
                    // Its adjoint is dropped, not saved (see `scratch_ancilla`).
                    let bar = self.bar_place(&var)?;
                    let zero = match *e {
                        Kind::Complex(_) => {
                            let z = self.ad_zero();
                            format!("nilang::Complex::new({z}, {z})")
                        }
                        _ => self.ad_zero(),
                    };
                    save.push(format!("for __b in {bar}.iter_mut() {{ *__b = {zero}; }}"));
                    continue;
                }
                // Saving an array would allocate: keep R's rules.
                _ => return None,
            };
            let bar = match self.bar_place(&var) {
                Some(bar) => bar,
                // Integers and booleans carry no adjoint.
                None if parts.len() == 1 => continue,
                None => return None,
            };
            let s = self.fresh("saved");
            let one = self.ad_one();
            save.push(format!("let {s} = std::mem::replace(&mut {bar}, {zero});"));
            for part in parts {
                restore.push(format!(
                    "nilang::Adjoint::add_scaled(&mut {bar}{part}, &{s}{part}, {one});"
                ));
            }
        }
        Some((save, restore))
    }

    /// In a reverse pass with checks off, the scratch ancillas
    /// (`scratch_ancilla`) of the `@routine` `routine` whose values its
    /// `~@routine` updates for nothing, with the line that sets each back to
    /// zero. Such an ancilla is a number or a vector of numbers, and the
    /// routine's top-level statements fall into two runs: the first mentions
    /// it only as the target of `+=` or `-=` (a whole variable, or an
    /// element whose index does not read it: a residual summed up,
    /// `r -= x[j] * p[j]`, or a table of distances filled in), the second
    /// only reads it, in the values and indices of updates of other places
    /// (`dist[j]` in `runmin[j] += min(runmin[j - 1], dist[j])`); or one loop
    /// of the routine walks a chain up through it (`walked_chain`:
    /// `runmin` there). The uncomputation runs
    /// the statements last first, so every read (by an update or its adjoint
    /// rule) comes before the first update left out, and the rule of
    /// `a ±= e` reads `e` and `ā`, never `a`. After it the ancilla holds the
    /// zeros it was allocated with, which that line writes instead
    /// (`block_from`; as `zeroing_uncomputation` does in plain code, where
    /// the whole uncomputation goes). Not in a tape loop, nor for a routine
    /// that records.
    pub(crate) fn dead_scratch_updates(&self, routine: &Stmt) -> Vec<(usize, String)> {
        let StmtKind::Routine(inner, _) = &routine.kind else {
            return Vec::new();
        };
        if !self.differentiating()
            || !self.uncomputation_skippable()
            || self.mode.tape.is_some()
            || self.routine_needs_tape(inner)
        {
            return Vec::new();
        }
        let top = crate::first_writes::routine_top(inner);
        let mut candidates: Vec<usize> = Vec::new();
        crate::effects::visit_stmt(inner, &mut |s| {
            if let Some((id, _)) = self.accumulated_root(s)
                && !candidates.contains(&id)
            {
                candidates.push(id);
            }
        });
        let mut out = Vec::new();
        for id in candidates {
            if !self.scratch_ancilla(id, inner) {
                continue;
            }
            let scalar = |k: &Kind| match k {
                Kind::Float(_) | Kind::Int(_) | Kind::Generic(_) => rust_scalar(k),
                _ => None,
            };
            let name = rust_name(&self.resolution.defs[id].name);
            let zero = match kind_of(&self.types.defs[id]) {
                Kind::Array(elem) => {
                    scalar(&elem).map(|s| format!("{name}.fill(nilang::zero::<{s}>());"))
                }
                k => scalar(&k).map(|s| format!("{name} = nilang::zero::<{s}>();")),
            };
            let Some(zero) = zero else { continue };
            // The first run: every mention is an accumulated target.
            let split = top
                .iter()
                .position(|s| self.mentions(s.span, id) != self.accumulated_mentions(s, id))
                .unwrap_or(top.len());
            if top[split..].iter().all(|s| self.only_read(s, id))
                || self.walked_chain(top, id).is_some()
            {
                out.push((id, zero));
            }
        }
        out
    }

    /// Whether the routine's top-level statements `top` walk a chain through
    /// the scratch vector `id` whose updates its uncomputation need not
    /// make: one `for j = lo:hi` loop (a literal start, a positive literal
    /// step or none) writes it, once an iteration, at `id[j + k]`, a
    /// statement of the loop's top level (`p[j] += p[j - 1] * t`,
    /// `runmax[j] += max(runmax[j - 1], x[j])`); in the loop every other
    /// mention reads a cell below `lo + k` at a literal index, or `id[j + c]`
    /// with `c < k` up to the write (its value included) and `c <= k` after
    /// it; before the loop it is updated and read only at literal indices
    /// below `lo + k` (`p[1] += 1.0`, then `r -= x[1] * p[1]`), each cell's
    /// updates before its reads; after the loop it is only read. Going
    /// backwards, the loop runs `j` down and each iteration's statements last
    /// first, so whatever reads a cell runs before the update that would
    /// restore it: in iteration `j`, the statements after the write read at
    /// most the written cell and run before its update; those before it, and
    /// every later iteration, read lower cells; the statements before the
    /// loop, cells the loop never writes. The index of the loop in `top`.
    fn walked_chain(&self, top: &[Stmt], id: usize) -> Option<usize> {
        let loops: Vec<usize> = (0..top.len())
            .filter(|&i| {
                matches!(top[i].kind, StmtKind::For { .. }) && self.writes_of(&top[i..=i], id).0 > 0
            })
            .collect();
        let [at] = loops[..] else {
            return None;
        };
        let StmtKind::For { var, range, body } = &top[at].kind else {
            return None;
        };
        let write = self.loop_write(var, range, body, id)?;
        let is_var = self.is_loop_var(var);
        let below = |index: &Expr| index.whole_number().is_some_and(|c| c < write.first);
        for (i, s) in body.stmts.iter().enumerate() {
            let most = if i <= write.at {
                write.offset - 1
            } else {
                write.offset
            };
            let ok = &mut |index: &Expr| match offset(index, &is_var) {
                Some(c) => c <= most,
                None => below(index),
            };
            let fine = if i == write.at {
                self.cells_read(&mut |f| f(write.value), write.value.span, id, ok)
            } else {
                self.cells_read(&mut |f| statement_exprs(s, f), s.span, id, ok)
            };
            if !fine {
                return None;
            }
        }
        // Before the loop: updates of cells, then their reads.
        let mut read: Vec<i64> = Vec::new();
        for s in &top[..at] {
            let update = self.element_update(s, id).and_then(|(index, value)| {
                (self.mentions(value.span, id) == 0).then_some(index.whole_number()?)
            });
            match update {
                Some(c) if c < write.first && !read.contains(&c) => {}
                Some(_) => return None,
                None => {
                    if self.writes_of(std::slice::from_ref(s), id) != (0, false) {
                        return None;
                    }
                    let ok = &mut |index: &Expr| match index.whole_number() {
                        Some(c) if c < write.first => {
                            read.push(c);
                            true
                        }
                        _ => false,
                    };
                    if !self.cells_read(&mut |f| statement_exprs(s, f), s.span, id, ok) {
                        return None;
                    }
                }
            }
        }
        top[at + 1..]
            .iter()
            .all(|s| self.only_read(s, id))
            .then_some(at)
    }

    /// Whether, in a function that is not an adjoint, the scratch vector
    /// `id` of the `@routine` `inner` may be left holding what a run of the
    /// routine wrote instead of being set back to zero at its `~@routine`
    /// (`zeroing_uncomputation`, checks off): nothing can tell the
    /// difference.
    /// - The routine walks a chain up through it (`walked_chain`), and
    ///   nothing after the chain's loop mentions it.
    /// - Every update of it in the routine is the first write of its cell
    ///   in the run (`first_writes`), written as an assignment: its
    ///   elements are floats (a type parameter's `-=` stays an update), so
    ///   no update reads what an earlier run left.
    /// - Every read is of a cell this run wrote before it, or of a cell no
    ///   run ever writes (zero since the allocation): the chain reads
    ///   `id[j + c]` with `c` below the written offset (a cell an earlier
    ///   iteration wrote, or one below the loop's first cell) and the cell
    ///   just written; below the first cell, the cells are written only by
    ///   the updates before the loop at literal indices, which run every
    ///   time and before their reads (`walked_chain` checks both).
    /// - Outside the routine nothing mentions it but its allocation and its
    ///   deallocation, which checks nothing with checks off.
    ///
    /// A work array walked by a running product (`llsq`'s powers) then
    /// costs no `fill` for every run of its routine, which the processor
    /// cannot overlap with the next run's chain.
    pub(crate) fn stale_scratch_unread(&self, inner: &Stmt, id: usize) -> bool {
        let floats = matches!(
            kind_of(&self.types.defs[id]),
            Kind::Array(elem) if matches!(*elem, Kind::Float(_))
        );
        if self.mode.ad.is_some() || !floats {
            return false;
        }
        let top = crate::first_writes::routine_top(inner);
        let Some(at) = self.walked_chain(top, id) else {
            return false;
        };
        if top[at + 1..].iter().any(|s| self.mentions(s.span, id) > 0) {
            return false;
        }
        let firsts = self
            .first_writes(inner)
            .iter()
            .filter(|(_, d)| *d == id)
            .count();
        if self.writes_of(top, id) != (firsts, false) {
            return false;
        }
        let (mut outside, mut own) = (0, self.mentions(inner.span, id));
        for stmt in &self.body {
            outside += self.mentions(stmt.span, id);
            crate::effects::visit_stmt(stmt, &mut |s| match &s.kind {
                StmtKind::Alloc { name, .. } | StmtKind::Dealloc { name, .. }
                    if self.resolution.def_at(name.span) == Some(id) =>
                {
                    own += self.mentions(s.span, id);
                }
                _ => {}
            });
        }
        outside == own
    }

    /// Whether each of the mentions of `id` in `span` is an element
    /// `id[index]`, among the expressions `each` visits, with `ok(index)`.
    fn cells_read(
        &self,
        each: &mut dyn FnMut(Visit),
        span: Span,
        id: usize,
        ok: &mut dyn FnMut(&Expr) -> bool,
    ) -> bool {
        let (mut seen, mut fine) = (0, true);
        each(&mut |e| {
            e.walk(&mut |x| {
                if let ExprKind::Index { base, indices } = &x.kind
                    && matches!(base.kind, ExprKind::Var(_))
                    && self.resolution.def_at(base.span) == Some(id)
                {
                    // Counted as `mentions` counts them (a name may be
                    // recorded more than once at its span).
                    seen += self.mentions(base.span, id);
                    fine &= matches!(&indices[..], [IndexArg::Expr(i)] if ok(i));
                }
            })
        });
        fine && seen == self.mentions(span, id)
    }

    /// The variable an update `a ±= e` or `a[i] ±= e` accumulates into, with
    /// the number of its mentions there (none in the index).
    fn accumulated_root(&self, s: &Stmt) -> Option<(usize, usize)> {
        let (target, root) = self.accumulated(s)?;
        let id = self.resolution.def_at(root)?;
        // Counted as other mentions are (a name may be recorded more than
        // once at its span).
        let n = self.mentions(root, id);
        (self.mentions(target.span, id) == n).then_some((id, n))
    }

    /// How many times `id` is mentioned in `span`.
    fn mentions(&self, span: Span, id: usize) -> usize {
        self.resolution.defs_in(span).filter(|&d| d == id).count()
    }

    /// The mentions of `id` in `stmt` that are accumulated targets.
    fn accumulated_mentions(&self, stmt: &Stmt, id: usize) -> usize {
        let mut n = 0;
        crate::effects::visit_stmt(stmt, &mut |s| {
            if let Some((d, m)) = self.accumulated_root(s)
                && d == id
            {
                n += m;
            }
        });
        n
    }

    /// Whether `stmt` mentions `id` only where updates of other places
    /// read it (their values and indices), never as what they write.
    fn only_read(&self, stmt: &Stmt, id: usize) -> bool {
        let mut read = 0;
        crate::effects::visit_stmt(stmt, &mut |s| {
            if let StmtKind::Instr { target, value, .. } = &s.kind
                && target
                    .root_var()
                    .and_then(|(_, span)| self.resolution.def_at(span))
                    != Some(id)
            {
                read += self.mentions(target.span, id) + self.mentions(value.span, id);
            }
        });
        read == self.mentions(stmt.span, id)
    }

    /// Whether the ancilla `id` is scratch space of the routine
    /// `inner`: allocated and freed as zeros (`zeros(...)`, `zero(...)`, or
    /// `0.0`), never typecast, and written by no statement of
    /// the function outside `inner` (its `~@routine` included, as the marker
    /// it is here). Between two runs of such a pair it holds zeros, which
    /// depend on no input, so the adjoint it carries there reaches nothing
    /// but its own allocation, where it is discarded. `plain_routine` can
    /// then set that adjoint to zero instead of saving and adding it back,
    /// which for an array would allocate each time the routine runs.
    pub(crate) fn scratch_ancilla(&self, id: usize, inner: &Stmt) -> bool {
        if !matches!(self.resolution.defs[id].kind, DefKind::Ancilla) {
            return false;
        }
        // `zeros(...)`, `zero(...)`, or a zero written as a number (`0.0`,
        // `0`).
        let zeros = |e: &Expr| match &e.kind {
            ExprKind::Call { callee, .. } => matches!(callee.name.as_str(), "zeros" | "zero"),
            ExprKind::Float(text) => text.replace('_', "").parse::<f64>() == Ok(0.0),
            ExprKind::Int(text) => text.replace('_', "").parse::<i64>() == Ok(0),
            _ => false,
        };
        let mut constant = true;
        let mut spans = Vec::new();
        for stmt in &self.body {
            crate::effects::visit_stmt(stmt, &mut |s| match &s.kind {
                StmtKind::Alloc { name, value } | StmtKind::Dealloc { name, value }
                    if self.resolution.def_at(name.span) == Some(id) =>
                {
                    constant &= zeros(value);
                    spans.push(name.span);
                }
                // A typecast changes its type (and `visit_writes` below
                // does not count it as a write): the zero its callers
                // write back would have the allocated type.
                StmtKind::Typecast { value, .. }
                    if self.resolution.defs_in(value.span).any(|d| d == id) =>
                {
                    constant = false;
                }
                _ => {}
            });
        }
        if !constant {
            return false;
        }
        let count = |stmts: &[Stmt]| {
            let mut n = 0;
            self.visit_writes(stmts, &mut |root| {
                if let Some(span) = root
                    && !spans.contains(&span)
                    && self.resolution.def_at(span) == Some(id)
                {
                    n += 1;
                }
            });
            n
        };
        count(&self.body) == count(std::slice::from_ref(inner))
    }
}

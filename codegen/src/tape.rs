//! `@tape` loops in the Rust backend.
//!
//! A tape loop runs forwards in *push* mode: before each overwriting
//! statement (`y = e`, `y *= e`, `y /= e`) it pushes the old value of `y`;
//! each `if` in it pushes the index of the branch it took after the branch,
//! and each `while` in it (itself included) its trip count after its last
//! iteration, so that going backwards both are read before what their
//! bodies recorded. With the `tape_loops` option, `+=`, `-=` and `⊻=` on
//! scalars push the old value too, and are restored instead of undone.
//! Its inverse, `~(@tape loop)` in the inverse tree, runs the inverted body
//! in *pop* mode: an overwrite pops the old value back, an `if` pops its
//! branch, a `while` pops its count and runs that many iterations, a `for`
//! runs its range backwards. In a reverse pass, an overwrite's adjoint rule
//! comes right after the value is restored: `ȳ` goes to the places `e`
//! reads (`y` itself included, for `*=`, `/=` and `y = f(y)`), each times
//! the local derivative at the old values, and `ȳ` is replaced by what it
//! got from `y`'s old value.
//!
//! Which tape: a function whose own statements (outside `@routine`s) record
//! takes `__tape: &mut nilang::Tape` after its parameters, in `f`, `~f`,
//! `f_adjoint` and `uncall_f_adjoint`; calls of such functions pass it on.
//! A `@routine` whose statements record gets a local tape, declared before
//! it and read back by its `~@routine` (in the same block of the same
//! generated function). `f_grad` makes the tape that `f` fills and
//! `f_adjoint` empties, and drops it when it returns; `uncall_f_grad`
//! makes another, which `uncall_f_adjoint` fills (it runs `f` forwards)
//! and `~f` empties.
//!
//! The branch of an `if` chain goes on the tape as a `u8` (the runtime
//! tape's byte buffer) unless the chain has 255 arms or more; trip counts
//! as `usize`; overwritten values as their own type, which for the common
//! scalars is a typed buffer of the runtime tape (see `nilang::Tape`).
//! Typed buffers in the runtime rather than per-function buffers declared
//! by the generated code: one `&mut nilang::Tape` passes through calls of
//! recording functions, generic functions record values of their type
//! parameter, and the dispatch on the type folds away after
//! monomorphization, so a per-function layout would save nothing a push
//! costs.

use super::*;

/// How the statements inside a tape loop treat the tape.
#[derive(Clone, Copy, PartialEq, Eq, Debug)]
pub(super) enum TapeMode {
    Push,
    Pop,
}

/// The type an `if` chain of `arms` conditions records its branch index
/// as: one byte (the tape's byte buffer) unless the index does not fit.
fn branch_type(arms: usize) -> &'static str {
    if arms < usize::from(u8::MAX) {
        "u8"
    } else {
        "usize"
    }
}

impl Gen<'_> {
    /// The argument that hands the current tape to a callee.
    pub(super) fn tape_arg(&self) -> String {
        match self.tape.as_deref() {
            Some("__tape") | None => "&mut *__tape".to_string(),
            Some(local) => format!("&mut {local}"),
        }
    }

    fn tape_recv(&self) -> String {
        self.tape.clone().unwrap_or_else(|| "__tape".to_string())
    }

    /// Whether `stmt`, a `@routine`'s body, needs a tape of its own.
    pub(super) fn routine_needs_tape(&self, inner: &Stmt) -> bool {
        let ctx = self.ctx;
        crate::taping::stmt_uses_tape(
            inner,
            self.mode.tape.is_some(),
            &crate::taping::Recording {
                taped: &|n| ctx.callee(n).is_some_and(|s| s.taped),
                all: self.mode.record_all,
            },
        ) || crate::taping::tropical_tape(
            std::slice::from_ref(inner),
            self.resolution,
            self.types,
            true,
        )
    }

    /// `@tape for` / `@tape while` run forwards.
    pub(super) fn tape_forward(&mut self, inner: &Stmt) {
        let was = self.mode.tape.replace(TapeMode::Push);
        match &inner.kind {
            StmtKind::For { var, range, body } => {
                self.reserve = self.pushes_per_iteration(&body.stmts);
                self.for_loop(var, range, body)
            }
            StmtKind::While { cond, body } => self.tape_while_push(cond, body),
            _ => self.stmt(inner),
        }
        self.mode.tape = was;
    }

    /// What one iteration of a tape `for` pushes at its own level (nested
    /// loops and branches push more, of their own): `(Rust type, count)`,
    /// so the loop can reserve its trip count times that before it starts.
    fn pushes_per_iteration(&mut self, stmts: &[Stmt]) -> Vec<(String, usize)> {
        let mut out: Vec<(String, usize)> = Vec::new();
        let mut add = |ty: String| match out.iter_mut().find(|(t, _)| *t == ty) {
            Some((_, n)) => *n += 1,
            None => out.push((ty, 1)),
        };
        for s in stmts {
            match &s.kind {
                StmtKind::Instr {
                    target,
                    op,
                    broadcast: false,
                    ..
                } if self.mode.record_all
                    || matches!(op, InstrOp::Assign | InstrOp::Mul | InstrOp::Div) =>
                {
                    let kind = self.whole(|g| g.expr(target)).1;
                    if kind.is_scalar_like()
                        && let Some(ty) = rust_scalar(&kind)
                    {
                        add(ty);
                    }
                }
                StmtKind::If { branches, .. } => add(branch_type(branches.len()).into()),
                StmtKind::While { .. } => add("usize".into()),
                StmtKind::Tape(inner) if matches!(inner.kind, StmtKind::While { .. }) => {
                    add("usize".into())
                }
                _ => {}
            }
        }
        out
    }

    /// `~(@tape loop)`: the iterations walked back, restoring from the tape.
    pub(super) fn tape_backward(&mut self, inner: &Stmt) {
        let was = self.mode.tape.replace(TapeMode::Pop);
        let inverted = invert_stmt(inner);
        match &inverted.kind {
            StmtKind::For { var, range, body } => self.for_loop(var, range, body),
            StmtKind::While { cond, body } => self.tape_while_pop(cond, body),
            _ => self.stmt(&inverted),
        }
        self.mode.tape = was;
    }

    /// A `while` in push mode: its trip count goes on the tape after it.
    pub(super) fn tape_while_push(&mut self, cond: &Cond, body: &Block) {
        let (pre, kind) = self.expr(&cond.pre);
        let pre = convert(pre, &kind, &Kind::Bool);
        let n = self.fresh("trips");
        self.line(&format!("let mut {n}: usize = 0;"));
        self.line(&format!("while {pre} {{"));
        self.level += 1;
        self.block(&body.stmts);
        self.line(&format!("{n} += 1;"));
        self.level -= 1;
        self.line("}");
        let t = self.tape_recv();
        self.line(&format!("{t}.push::<usize>({n});"));
    }

    /// A `while` in pop mode: as many iterations as the tape says.
    pub(super) fn tape_while_pop(&mut self, cond: &Cond, body: &Block) {
        let n = self.fresh("trips");
        let location = self.location(cond.span);
        let t = self.tape_recv();
        self.line(&format!("let {n}: usize = {t}.pop::<usize>({location})?;"));
        self.line(&format!("for _ in 0..{n} {{"));
        self.level += 1;
        self.block(&body.stmts);
        self.level -= 1;
        self.line("}");
    }

    /// An `if` chain in a tape loop: push mode records the branch index,
    /// pop mode reads it back (conditions are not evaluated).
    pub(super) fn tape_if(&mut self, branches: &[Branch], otherwise: Option<&Block>, span: Span) {
        let t = self.tape_recv();
        let ty = branch_type(branches.len());
        match self.mode.tape {
            Some(TapeMode::Push) => {
                for (k, b) in branches.iter().enumerate() {
                    let (pre, kind) = self.expr(&b.cond.pre);
                    let pre = convert(pre, &kind, &Kind::Bool);
                    let head = if k == 0 { "if" } else { "} else if" };
                    self.line(&format!("{head} {pre} {{"));
                    self.level += 1;
                    self.block(&b.body.stmts);
                    // After the branch's own records: read back first.
                    self.line(&format!("{t}.push::<{ty}>({k});"));
                    self.level -= 1;
                }
                self.line("} else {");
                self.level += 1;
                if let Some(b) = otherwise {
                    self.block(&b.stmts);
                }
                self.line(&format!("{t}.push::<{ty}>({});", branches.len()));
                self.level -= 1;
                self.line("}");
            }
            _ => {
                let k = self.fresh("branch");
                let location = self.location(span);
                self.line(&format!("let {k}: {ty} = {t}.pop::<{ty}>({location})?;"));
                for (i, b) in branches.iter().enumerate() {
                    let head = if i == 0 { "if" } else { "} else if" };
                    self.line(&format!("{head} {k} == {i} {{"));
                    self.level += 1;
                    self.block(&b.body.stmts);
                    self.level -= 1;
                }
                self.line("} else {");
                self.level += 1;
                if let Some(b) = otherwise {
                    self.block(&b.stmts);
                }
                self.level -= 1;
                self.line("}");
            }
        }
    }

    /// `y = e`, `y *= e`, `y /= e` in a tape loop. In push mode: the old
    /// value on the tape, then the write. In pop mode the statement is the
    /// inverse tree's (`op` inverted: `*=` stands for a forward `/=`): the
    /// old value comes back from the tape, and in a reverse pass the
    /// adjoint rule follows.
    pub(super) fn tape_overwrite(
        &mut self,
        target: &Expr,
        op: InstrOp,
        value: &Expr,
        broadcast: bool,
        span: Span,
    ) {
        if broadcast {
            self.unsupported(span, "a broadcast overwrite in a tape loop");
            return;
        }
        let Some((place, kind, negated)) = self.lvalue(target) else {
            return;
        };
        if matches!(op, InstrOp::Add | InstrOp::Sub | InstrOp::Xor) {
            return self.recorded_update(target, op, value, span, &place, &kind);
        }
        if negated || !kind.is_scalar_like() {
            self.unsupported(
                span,
                "an overwrite of this place in a tape loop (only scalars and elements)",
            );
            return;
        }
        let t = self.tape_recv();
        match self.mode.tape {
            Some(TapeMode::Push) => {
                if self.differentiating() && kinds::differentiable(&kind) {
                    // Running forwards in a reverse pass, the rule is the
                    // inverse of the one the backward direction applies
                    // after restoring. For `y = e` that rule sets ȳ to 0
                    // (or to a multiple of ȳ that the backward rule cannot
                    // tell apart), so it has no inverse; for `*=`, `/=` it
                    // scales ȳ by a factor, which is divided back out.
                    let scaled = matches!(op, InstrOp::Mul | InstrOp::Div)
                        && !matches!(kind, Kind::Complex(_))
                        && !self.has_complex(value);
                    if !scaled {
                        self.unsupported(
                            span,
                            "differentiating an overwrite (`=`) that a reverse pass runs forwards (in `uncall_f_adjoint`, or a `@routine` that the reverse pass cannot run plainly)",
                        );
                        return;
                    }
                    self.unad_scale(target, op, value, &kind, span);
                }
                // typeck refuses a complex value into a real place (E0603).
                let (code, from) = self.expr(value);
                let code = convert(code, &from, &kind);
                let v = self.fresh("v");
                self.line(&format!("let {v} = {code};"));
                self.line(&format!("{t}.push({place});"));
                // `*=` and `/=` as outside a tape loop (an integer place
                // wraps around).
                let write = match op {
                    InstrOp::Mul | InstrOp::Div => self.update(&place, &kind, op, &v, span),
                    _ => Some(format!("{place} = {v};")),
                };
                if let Some(write) = write {
                    self.line(&write);
                }
            }
            _ => {
                let location = self.location(span);
                self.line(&format!("{place} = {t}.pop({location})?;"));
                if self.differentiating() {
                    self.ad_overwrite(target, op.inverse(), value, &kind);
                }
            }
        }
    }

    /// `y += e`, `y -= e`, `y ⊻= e` in a tape loop under the `tape_loops`
    /// option: the old value on the tape before the update (push), taken
    /// back instead of uncomputing it (pop), the usual adjoint rule in a
    /// reverse pass. Not a scalar place: updated and undone as usual.
    fn recorded_update(
        &mut self,
        target: &Expr,
        op: InstrOp,
        value: &Expr,
        span: Span,
        place: &str,
        kind: &Kind,
    ) {
        let scalar = kind.is_scalar_like();
        if self.differentiating() {
            self.ad_instruction(target, op, value, span);
        }
        match self.mode.tape {
            Some(TapeMode::Pop) if scalar => {
                let t = self.tape_recv();
                let location = self.location(span);
                self.line(&format!("{place} = {t}.pop({location})?;"));
            }
            _ => {
                if scalar {
                    let t = self.tape_recv();
                    self.line(&format!("{t}.push({place});"));
                }
                self.instruction(target, op, value, span);
            }
        }
    }

    /// The inverse of the adjoint rule of `target op value` (`op` one of
    /// `*=`, `/=`), with `target` holding its old value: the backward rule
    /// took ȳ (call it g) and left ȳ = g ∂new/∂y and v̄ += g ∂new/∂v for
    /// each other v that `value` reads; here g = ȳ / ∂new/∂y (a zero
    /// factor is an error: the forward write destroyed `y`), the v̄ get
    /// g ∂new/∂v back, and ȳ = g.
    fn unad_scale(&mut self, target: &Expr, op: InstrOp, value: &Expr, kind: &Kind, span: Span) {
        let Some(bar) = self.bar_place(target) else {
            return;
        };
        let Some(ty) = rust_scalar(kind) else {
            return;
        };
        let (code, from) = self.expr(value);
        let code = convert(code, &from, kind);
        let f = self.fresh("f");
        self.line(&format!("let {f}: {ty} = {code};"));
        let location = self.location(span);
        let zero = self.ad_zero();
        self.line(&format!(
            "if {f} == nilang::zero::<{ty}>() {{ return Err(nilang::Error::new({location}, nilang::Check::NotDifferentiable, \"cannot undo the reverse pass of an overwrite by a zero factor: it lost the adjoint\", \"a nonzero factor\", \"0\")); }}"
        ));
        // ∂new/∂y is `value` for `*=` and 1 / `value` for `/=`.
        let inverse = match op {
            InstrOp::Mul => format!("nilang::one::<{ty}>() / {f}"),
            _ => f.clone(),
        };
        let g = self.fresh("g");
        self.line(&format!("let mut {g} = {zero};"));
        self.line(&format!(
            "nilang::Adjoint::add_scaled(&mut {g}, &{bar}, {inverse});"
        ));
        self.line(&format!("{bar} = {zero};"));
        let paren = Expr {
            kind: ExprKind::Paren(Box::new(value.clone())),
            span: value.span,
        };
        let new_value = Expr {
            kind: ExprKind::Binary {
                op: if op == InstrOp::Mul {
                    BinaryOp::Mul
                } else {
                    BinaryOp::Div
                },
                lhs: Box::new(target.clone()),
                rhs: Box::new(paren),
            },
            span: value.span,
        };
        for l in self.negated_overwrite_rule_lines(&g, &new_value) {
            self.line(&l);
        }
        self.line(&format!("{bar} = {g};"));
    }

    /// The adjoint rule of a forward `target op value` (`op` one of `=`,
    /// `*=`, `/=`), with `target` holding its old value again.
    fn ad_overwrite(&mut self, target: &Expr, op: InstrOp, value: &Expr, kind: &Kind) {
        if !kinds::differentiable(kind) {
            return;
        }
        let Some(bar) = self.bar_place(target) else {
            return;
        };
        let paren = |e: &Expr| Expr {
            kind: ExprKind::Paren(Box::new(e.clone())),
            span: e.span,
        };
        let new_value = match op {
            InstrOp::Mul | InstrOp::Div => Expr {
                kind: ExprKind::Binary {
                    op: if op == InstrOp::Mul {
                        BinaryOp::Mul
                    } else {
                        BinaryOp::Div
                    },
                    lhs: Box::new(target.clone()),
                    rhs: Box::new(paren(value)),
                },
                span: value.span,
            },
            _ => value.clone(),
        };
        let zero = self.ad_zero();
        let g = self.fresh("g");
        let complex = matches!(kind, Kind::Complex(_));
        if complex || self.has_complex(value) {
            // The complex rules (Wirtinger pairs), as for `y += e`: the
            // overwritten place's adjoint goes to what the new value read.
            let zero = if complex {
                self.cconst(&zero, &zero)
            } else {
                zero
            };
            self.line(&format!("let {g} = std::mem::replace(&mut {bar}, {zero});"));
            for l in self.complex_rule_lines(&g, complex, true, &new_value) {
                self.line(&l);
            }
            return;
        }
        self.line(&format!("let {g} = std::mem::replace(&mut {bar}, {zero});"));
        for l in self.overwrite_rule_lines(&g, &new_value) {
            self.line(&l);
        }
    }
}

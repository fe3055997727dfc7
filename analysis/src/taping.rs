//! The taping plan: which functions record a tape, and the checks that
//! depend on it. A function records on its own line when it has a `@tape`
//! loop that records (any loop under the `tape_loops` option) or calls a
//! function that records ([`crate::db::project_taped`] finds them as a
//! fixpoint over the call graph). The Rust backend reads the same facts to
//! lay out tapes (`codegen::tape`).
//!
//! - E0702: `~g(...)` of a function `g` that records: the tape its forward
//!   run filled is not there;
//! - E0703: a `@routine` overwrites on its tape a variable that the
//!   statements before its `~@routine` change: the restore would drop the
//!   change.

use crate::ast::*;
use crate::diagnostics::Diagnostic;
use crate::invert::routine_pairs;
use crate::resolve::Resolution;
use crate::ty::{Ctor, Ty};
use crate::types::place_type;

/// What records: which callees do, and whether every scalar write in a
/// tape loop is recorded (the `tape_loops` option) or only overwrites.
pub struct Recording<'a> {
    pub taped: &'a dyn Fn(&str) -> bool,
    /// `+=`, `-=`, `⊻=` on scalars in tape loops are recorded too: the
    /// reverse pass restores them instead of uncomputing.
    pub all: bool,
}

/// Whether `stmts`, run in a function's own line (`@routine`s excluded:
/// they have their own tapes), touch the tape: a tape `while`, a tape `for`
/// whose body records, or a call of a function that records; inside a tape
/// loop (`in_tape`) also an overwrite (any scalar write with `r.all`), an
/// `if` or a `while`.
pub fn uses_tape(stmts: &[Stmt], in_tape: bool, r: &Recording<'_>) -> bool {
    stmts.iter().any(|s| stmt_uses_tape(s, in_tape, r))
}

pub fn stmt_uses_tape(stmt: &Stmt, in_tape: bool, r: &Recording<'_>) -> bool {
    match &stmt.kind {
        // A `while` records its trip count; a `for` records only what its
        // body does.
        StmtKind::Tape(inner) => match &inner.kind {
            StmtKind::For { body, .. } => uses_tape(&body.stmts, true, r),
            _ => true,
        },
        StmtKind::Instr { op, broadcast, .. } => {
            in_tape
                && (matches!(op, InstrOp::Assign | InstrOp::Mul | InstrOp::Div)
                    || (r.all && !broadcast))
        }
        StmtKind::Call(call) => (r.taped)(&call.callee.name),
        StmtKind::If {
            branches,
            otherwise,
        } => {
            in_tape
                || branches
                    .iter()
                    .any(|b| uses_tape(&b.body.stmts, in_tape, r))
                || otherwise
                    .as_ref()
                    .is_some_and(|b| uses_tape(&b.stmts, in_tape, r))
        }
        StmtKind::While { body, .. } => in_tape || uses_tape(&body.stmts, in_tape, r),
        StmtKind::For { body, .. } | StmtKind::Begin(body) => uses_tape(&body.stmts, in_tape, r),
        StmtKind::Inverse(inner) | StmtKind::InvCheckOff(inner) | StmtKind::InBounds(inner) => {
            stmt_uses_tape(inner, in_tape, r)
        }
        StmtKind::Routine(..)
        | StmtKind::Unroutine
        | StmtKind::Alloc { .. }
        | StmtKind::Dealloc { .. }
        | StmtKind::Safe(_)
        | StmtKind::Typecast { .. } => false,
    }
}

/// Whether anything in `stmts`, `@routine`s included, touches a tape.
pub fn any_tape(stmts: &[Stmt], r: &Recording<'_>) -> bool {
    let mut found = false;
    for s in stmts {
        crate::effects::visit_stmt(s, &mut |s| {
            if matches!(s.kind, StmtKind::Tape(_) | StmtKind::Call(_)) {
                found |= stmt_uses_tape(s, false, r);
            }
        });
    }
    found
}

/// Every `for` and `while` of `f` made a tape loop (the code generation
/// option `tape_loops`), except under `~` (E0409) and in kernels (E0805).
pub fn tape_all_loops(f: &Function) -> Function {
    if f.kernel {
        return f.clone();
    }
    Function {
        body: tape_block(&f.body),
        ..f.clone()
    }
}

fn tape_block(block: &Block) -> Block {
    Block {
        stmts: block.stmts.iter().map(tape_stmt).collect(),
    }
}

fn tape_stmt(stmt: &Stmt) -> Stmt {
    let kind = match &stmt.kind {
        StmtKind::For { var, range, body } => StmtKind::Tape(Box::new(Stmt {
            kind: StmtKind::For {
                var: var.clone(),
                range: range.clone(),
                body: tape_block(body),
            },
            span: stmt.span,
        })),
        StmtKind::While { cond, body } => StmtKind::Tape(Box::new(Stmt {
            kind: StmtKind::While {
                cond: cond.clone(),
                body: tape_block(body),
            },
            span: stmt.span,
        })),
        StmtKind::Tape(inner) => {
            let inner = tape_stmt(inner);
            match inner.kind {
                StmtKind::Tape(_) => inner.kind,
                other => StmtKind::Tape(Box::new(Stmt {
                    kind: other,
                    span: inner.span,
                })),
            }
        }
        StmtKind::If {
            branches,
            otherwise,
        } => StmtKind::If {
            branches: branches
                .iter()
                .map(|b| Branch {
                    cond: b.cond.clone(),
                    body: tape_block(&b.body),
                })
                .collect(),
            otherwise: otherwise.as_ref().map(tape_block),
        },
        StmtKind::Begin(b) => StmtKind::Begin(tape_block(b)),
        StmtKind::Routine(inner, storing) => {
            StmtKind::Routine(Box::new(tape_stmt(inner)), *storing)
        }
        StmtKind::InvCheckOff(inner) => StmtKind::InvCheckOff(Box::new(tape_stmt(inner))),
        StmtKind::InBounds(inner) => StmtKind::InBounds(Box::new(tape_stmt(inner))),
        // Run backwards in place: left reversible.
        StmtKind::Inverse(_) => stmt.kind.clone(),
        other => other.clone(),
    };
    Stmt {
        kind,
        span: stmt.span,
    }
}

/// `~g(...)` of a function `g` that records a tape, in the source of `f`
/// (also `~(... g(...) ...)`): its tape would be missing (E0702).
pub fn uncalled_taped(
    stmts: &[Stmt],
    inverted: bool,
    taped: &dyn Fn(&str) -> bool,
    out: &mut Vec<Diagnostic>,
) {
    for s in stmts {
        uncalled_taped_stmt(s, inverted, taped, out);
    }
}

fn uncalled_taped_stmt(
    stmt: &Stmt,
    inverted: bool,
    taped: &dyn Fn(&str) -> bool,
    out: &mut Vec<Diagnostic>,
) {
    match &stmt.kind {
        StmtKind::Call(call) if call.inverted != inverted && taped(&call.callee.name) => {
            // A tangent call `(∂f)` is written with its parentheses.
            let name = &match crate::derivatives::Derivative::of(&call.callee.name) {
                Some(_) => format!("({})", call.callee.name),
                None => call.callee.name.clone(),
            };
            out.push(
                Diagnostic::error(
                    "E0702",
                    call.callee.span,
                    format!("`{name}` records a tape and cannot be uncalled here"),
                )
                .with_label("this runs it backwards without the tape its forward run recorded")
                .with_help(format!(
                    "call `{name}` forwards: the inverse and the gradient of this function undo it with its tape; or write `{name}`'s loops without `@tape`"
                )),
            );
        }
        StmtKind::Inverse(inner) => uncalled_taped_stmt(inner, !inverted, taped, out),
        StmtKind::If {
            branches,
            otherwise,
        } => {
            for b in branches {
                uncalled_taped(&b.body.stmts, inverted, taped, out);
            }
            if let Some(b) = otherwise {
                uncalled_taped(&b.stmts, inverted, taped, out);
            }
        }
        StmtKind::While { body, .. } | StmtKind::For { body, .. } | StmtKind::Begin(body) => {
            uncalled_taped(&body.stmts, inverted, taped, out)
        }
        StmtKind::Routine(inner, _)
        | StmtKind::Tape(inner)
        | StmtKind::InvCheckOff(inner)
        | StmtKind::InBounds(inner) => uncalled_taped_stmt(inner, inverted, taped, out),
        _ => {}
    }
}

/// Calls `f` with the root variable of each place `stmts` write (`None`
/// where that is not known: an unknown callee, `@safe`, a typecast).
pub fn visit_writes(
    stmts: &[Stmt],
    mutates: &dyn Fn(&str) -> Option<Vec<bool>>,
    f: &mut dyn FnMut(Option<Span>),
) {
    let root = |e: &Expr| e.root_var().map(|(_, span)| span);
    for stmt in stmts {
        match &stmt.kind {
            StmtKind::Instr { target, .. } => f(root(target)),
            StmtKind::Call(call) => {
                let mutated: Vec<bool> =
                    if let Some(instr) = crate::builtins::instruction(&call.callee.name) {
                        (0..call.args.len())
                            .map(|i| instr.mutates.contains(&i))
                            .collect()
                    } else if let Some(m) = mutates(&call.callee.name) {
                        m
                    } else {
                        f(None);
                        continue;
                    };
                for (arg, m) in call.args.iter().zip(mutated) {
                    if m {
                        f(root(arg));
                    }
                }
            }
            StmtKind::Alloc { name, .. } | StmtKind::Dealloc { name, .. } => f(Some(name.span)),
            StmtKind::If {
                branches,
                otherwise,
            } => {
                for b in branches {
                    visit_writes(&b.body.stmts, mutates, f);
                }
                if let Some(o) = otherwise {
                    visit_writes(&o.stmts, mutates, f);
                }
            }
            StmtKind::While { body, .. } | StmtKind::For { body, .. } => {
                visit_writes(&body.stmts, mutates, f)
            }
            StmtKind::Begin(block) => visit_writes(&block.stmts, mutates, f),
            StmtKind::Inverse(inner)
            | StmtKind::Routine(inner, _)
            | StmtKind::Tape(inner)
            | StmtKind::InBounds(inner)
            | StmtKind::InvCheckOff(inner) => visit_writes(std::slice::from_ref(inner), mutates, f),
            StmtKind::Unroutine => {}
            StmtKind::Safe(_) | StmtKind::Typecast { .. } => f(None),
        }
    }
}

/// The E0703 check over a function body.
pub struct RoutineTapes<'a> {
    pub resolution: &'a Resolution,
    /// Whether a callee records a tape.
    pub taped: &'a dyn Fn(&str) -> bool,
    /// Which parameters of a callee it changes.
    pub mutates: &'a dyn Fn(&str) -> Option<Vec<bool>>,
    /// Every scalar write in a tape loop is recorded (`tape_loops`).
    pub record_all: bool,
    pub diagnostics: Vec<Diagnostic>,
}

impl RoutineTapes<'_> {
    /// E0703: a `@routine` that records, whose body (between it and its
    /// `~@routine`) changes a variable that the routine overwrites in a
    /// tape loop. `~@routine` restores the recorded values, which would
    /// throw the body's change away (a reversible `~@routine` would undo
    /// the routine from the changed value instead).
    pub fn routine_tapes(&mut self, stmts: &[Stmt]) {
        let pairs = routine_pairs(stmts);
        for (i, stmt) in stmts.iter().enumerate() {
            if let (StmtKind::Routine(inner, _), Some(end)) = (&stmt.kind, pairs[i]) {
                let mut overwritten = Vec::new();
                self.overwritten(inner, false, &mut overwritten);
                let ids: Vec<usize> = overwritten
                    .iter()
                    .filter_map(|s| self.resolution.def_at(*s))
                    .collect();
                let mut clash = None;
                visit_writes(&stmts[i + 1..end], self.mutates, &mut |root| {
                    if let Some(span) = root
                        && clash.is_none()
                        && self
                            .resolution
                            .def_at(span)
                            .is_some_and(|id| ids.contains(&id))
                    {
                        clash = Some(span);
                    }
                });
                if let Some(span) = clash {
                    let name = self
                        .resolution
                        .def_at(span)
                        .map(|id| self.resolution.defs[id].name.clone())
                        .unwrap_or_default();
                    self.diagnostics.push(
                        Diagnostic::error(
                            "E0703",
                            span,
                            format!("`{name}` is overwritten on a tape by the `@routine` and changed before its `~@routine`"),
                        )
                        .with_label("changed here")
                        .with_secondary(inner.span, "recorded here")
                        .with_help(format!(
                            "`~@routine` restores the recorded value of `{name}`, which would drop this change: copy `{name}` into an ancilla that the routine does not overwrite, or write the loop without `@tape`"
                        )),
                    );
                }
            }
            self.nested_routine_tapes(stmt);
        }
    }

    fn nested_routine_tapes(&mut self, stmt: &Stmt) {
        match &stmt.kind {
            StmtKind::If {
                branches,
                otherwise,
            } => {
                for b in branches {
                    self.routine_tapes(&b.body.stmts);
                }
                if let Some(b) = otherwise {
                    self.routine_tapes(&b.stmts);
                }
            }
            StmtKind::While { body, .. } | StmtKind::For { body, .. } | StmtKind::Begin(body) => {
                self.routine_tapes(&body.stmts)
            }
            StmtKind::Inverse(inner)
            | StmtKind::Routine(inner, _)
            | StmtKind::Tape(inner)
            | StmtKind::InvCheckOff(inner)
            | StmtKind::InBounds(inner) => self.nested_routine_tapes(inner),
            _ => {}
        }
    }

    /// The root spans of what `stmt` overwrites on a tape: targets of `=`,
    /// `*=`, `/=` in tape loops, and what calls of recording functions
    /// change.
    fn overwritten(&self, stmt: &Stmt, in_tape: bool, out: &mut Vec<Span>) {
        let root = |e: &Expr| e.root_var().map(|(_, span)| span);
        match &stmt.kind {
            StmtKind::Instr { target, op, .. }
                if in_tape
                    && (self.record_all
                        || matches!(op, InstrOp::Assign | InstrOp::Mul | InstrOp::Div)) =>
            {
                out.extend(root(target));
            }
            StmtKind::Call(call) => {
                if (self.taped)(&call.callee.name)
                    && let Some(mutated) = (self.mutates)(&call.callee.name)
                {
                    for (arg, m) in call.args.iter().zip(mutated) {
                        if m {
                            out.extend(root(arg));
                        }
                    }
                }
            }
            StmtKind::Tape(inner) => self.overwritten(inner, true, out),
            StmtKind::If {
                branches,
                otherwise,
            } => {
                for s in branches.iter().flat_map(|b| &b.body.stmts) {
                    self.overwritten(s, in_tape, out);
                }
                for s in otherwise.iter().flat_map(|b| &b.stmts) {
                    self.overwritten(s, in_tape, out);
                }
            }
            StmtKind::While { body, .. } | StmtKind::For { body, .. } | StmtKind::Begin(body) => {
                for s in &body.stmts {
                    self.overwritten(s, in_tape, out);
                }
            }
            StmtKind::Inverse(inner)
            | StmtKind::Routine(inner, _)
            | StmtKind::InvCheckOff(inner)
            | StmtKind::InBounds(inner) => self.overwritten(inner, in_tape, out),
            _ => {}
        }
    }
}

/// Whether a tropical `+=` (the maximum) stands in a `@tape` loop of
/// `stmts` (inside `@routine`s too when `routines`): it records the old
/// value, so the function (or the routine, which then gets a tape of its
/// own) takes a tape. (The syntactic test of `tape::uses_tape` cannot see
/// types.)
pub fn tropical_tape(
    stmts: &[Stmt],
    resolution: &crate::resolve::Resolution,
    types: &crate::types::FunctionTypes,
    routines: bool,
) -> bool {
    fn walk(
        stmt: &Stmt,
        in_tape: bool,
        routines: bool,
        is_tropical: &dyn Fn(&Expr) -> bool,
    ) -> bool {
        nilang_syntax::stack::deep(|| {
            let block =
                |b: &Block, t: bool| b.stmts.iter().any(|s| walk(s, t, routines, is_tropical));
            match &stmt.kind {
                StmtKind::Instr {
                    target,
                    op: InstrOp::Add | InstrOp::Sub,
                    ..
                } => in_tape && is_tropical(target),
                StmtKind::Tape(inner) => walk(inner, true, routines, is_tropical),
                StmtKind::Routine(inner, _) => {
                    routines && walk(inner, in_tape, routines, is_tropical)
                }
                StmtKind::Inverse(inner)
                | StmtKind::InvCheckOff(inner)
                | StmtKind::InBounds(inner) => walk(inner, in_tape, routines, is_tropical),
                StmtKind::If {
                    branches,
                    otherwise,
                } => {
                    branches.iter().any(|b| block(&b.body, in_tape))
                        || otherwise.as_ref().is_some_and(|b| block(b, in_tape))
                }
                StmtKind::While { body, .. }
                | StmtKind::For { body, .. }
                | StmtKind::Begin(body) => block(body, in_tape),
                _ => false,
            }
        })
    }
    let is_tropical = |e: &Expr| {
        matches!(
            place_type(e, resolution, &types.defs),
            Ty::Constructed(Ctor::Tropical, _)
        )
    };
    stmts.iter().any(|s| walk(s, false, routines, &is_tropical))
}

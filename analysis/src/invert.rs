//! The inverse of a function, statement by statement (table 1 of the paper).
//!
//! Inversion is an involution on the tree: `invert(invert(f)) == f`, exactly.
//! Three choices make that hold:
//! - a `for` loop over `a:s:b` inverts to one over `reverse(a:s:b)`, which
//!   visits the same elements last first (`1:2:4` gives 3 then 1; the
//!   textbook `4:-2:1` would visit 4 and 2);
//! - `~stmt` inverts to `~(inverse of stmt)`;
//! - a `@routine R ... ~@routine` pair keeps `R` forwards and inverts only
//!   what lies between (compute, inverted copy, uncompute).
//!
//! Spans are kept, so diagnostics on an inverse point at the original source.

use crate::ast::*;
use crate::builtins;

/// The inverse of `f`: its ancillas' implicit deallocations are first made
/// explicit ([`explicit_deallocations`]), so that the inverse allocates them.
pub fn invert_function(f: &Function) -> Function {
    let f = explicit_deallocations(f);
    Function {
        body: invert_block(&f.body),
        // The derivatives of `@primitive(d)` belong to `f`, not its inverse.
        primitive: None,
        ..f
    }
}

/// `f` with a `x → v` written at the end of each block for every ancilla
/// `x ← v` of that block that is still allocated there (the paper's
/// preprocessing). A program that deallocates everything explicitly is
/// returned unchanged, so `invert_function` is an involution on the result.
/// Such a deallocation sits at the `end` that closes its block (its span),
/// and its name keeps the span of the allocation's name, so a failed check
/// can point at both.
pub fn explicit_deallocations(f: &Function) -> Function {
    let mut live = Vec::new();
    let mut body = complete(&f.body.stmts, &mut live);
    close(&mut body, live, end_keyword(f.span));
    Function {
        body: Block::new(body),
        ..f.clone()
    }
}

type Live = Vec<(Ident, Expr, Span)>;

/// The `end` keyword that closes a construct spanning `span` (the whole
/// span when it does not end in one, as in a tree built by hand).
fn end_keyword(span: Span) -> Span {
    if span.end >= span.start + 3 {
        Span {
            start: span.end - 3,
            ..span
        }
    } else {
        span
    }
}

fn close(stmts: &mut Vec<Stmt>, live: Live, end: Span) {
    for (name, value, _) in live.into_iter().rev() {
        stmts.push(Stmt {
            kind: StmtKind::Dealloc { name, value },
            span: end,
        });
    }
}

fn scope(block: &Block, end: Span) -> Block {
    let mut live = Vec::new();
    let mut stmts = complete(&block.stmts, &mut live);
    close(&mut stmts, live, end);
    Block::new(stmts)
}

/// Completes nested scopes and tracks the ancillas of the current one.
fn complete(stmts: &[Stmt], live: &mut Live) -> Vec<Stmt> {
    let pairs = routine_pairs(stmts);
    let mut out = Vec::with_capacity(stmts.len());
    for (i, stmt) in stmts.iter().enumerate() {
        if let StmtKind::Unroutine = stmt.kind
            && let Some(expansion) = unroutine_expansion(stmts, &pairs, i)
        {
            track(&expansion, live);
        }
        out.push(complete_stmt(stmt, live));
    }
    out
}

fn complete_stmt(stmt: &Stmt, live: &mut Live) -> Stmt {
    let end = end_keyword(stmt.span);
    let kind = match &stmt.kind {
        StmtKind::If {
            branches,
            otherwise,
        } => StmtKind::If {
            branches: branches
                .iter()
                .map(|b| Branch {
                    cond: b.cond.clone(),
                    body: scope(&b.body, end),
                })
                .collect(),
            otherwise: otherwise.as_ref().map(|b| scope(b, end)),
        },
        StmtKind::While { cond, body } => StmtKind::While {
            cond: cond.clone(),
            body: scope(body, end),
        },
        StmtKind::For { var, range, body } => StmtKind::For {
            var: var.clone(),
            range: range.clone(),
            body: scope(body, end),
        },
        StmtKind::Begin(block) => StmtKind::Begin(Block::new(complete(&block.stmts, live))),
        StmtKind::Routine(inner, storing) => {
            StmtKind::Routine(Box::new(complete_stmt(inner, live)), *storing)
        }
        StmtKind::Tape(inner) => StmtKind::Tape(Box::new(complete_stmt(inner, live))),
        StmtKind::InvCheckOff(inner) => StmtKind::InvCheckOff(Box::new(complete_stmt(inner, live))),
        StmtKind::InBounds(inner) => StmtKind::InBounds(Box::new(complete_stmt(inner, live))),
        StmtKind::Inverse(inner) => {
            // What runs is the inverse; its allocations count, its inner
            // scopes are completed in the original orientation.
            track(&invert_stmt(inner), live);
            StmtKind::Inverse(Box::new(complete_nested(inner)))
        }
        other => {
            track(stmt, live);
            other.clone()
        }
    };
    Stmt {
        kind,
        span: stmt.span,
    }
}

/// Completes the scopes nested in `stmt` without tracking its own level.
fn complete_nested(stmt: &Stmt) -> Stmt {
    let mut scratch = Vec::new();
    complete_stmt(stmt, &mut scratch)
}

/// Updates `live` for the allocations and deallocations `stmt` performs at
/// this scope level.
fn track(stmt: &Stmt, live: &mut Live) {
    match &stmt.kind {
        StmtKind::Alloc { name, value } => live.push((name.clone(), value.clone(), stmt.span)),
        StmtKind::Dealloc { name, .. } => {
            if let Some(at) = live.iter().rposition(|(n, _, _)| n.name == name.name) {
                live.remove(at);
            }
        }
        StmtKind::Begin(block) => {
            let pairs = routine_pairs(&block.stmts);
            for (i, s) in block.stmts.iter().enumerate() {
                if let StmtKind::Unroutine = s.kind
                    && let Some(expansion) = unroutine_expansion(&block.stmts, &pairs, i)
                {
                    track(&expansion, live);
                }
                track(s, live);
            }
        }
        StmtKind::Routine(inner, _) | StmtKind::InvCheckOff(inner) | StmtKind::InBounds(inner) => {
            track(inner, live)
        }
        // A loop is a scope of its own, run forwards or backwards.
        StmtKind::Inverse(inner) if matches!(inner.kind, StmtKind::Tape(_)) => {}
        StmtKind::Inverse(inner) => track(&invert_stmt(inner), live),
        _ => {}
    }
}

pub fn invert_block(block: &Block) -> Block {
    let pairs = routine_pairs(&block.stmts);
    Block::new(invert_range(&block.stmts, &pairs, 0, block.stmts.len()))
}

/// For each `@routine` at this level, the index of its `~@routine`.
pub fn routine_pairs(stmts: &[Stmt]) -> Vec<Option<usize>> {
    let mut pairs = vec![None; stmts.len()];
    let mut open = Vec::new();
    for (i, stmt) in stmts.iter().enumerate() {
        match stmt.kind {
            StmtKind::Routine(..) => open.push(i),
            StmtKind::Unroutine => {
                if let Some(start) = open.pop() {
                    pairs[start] = Some(i);
                }
            }
            _ => {}
        }
    }
    pairs
}

fn invert_range(stmts: &[Stmt], pairs: &[Option<usize>], lo: usize, hi: usize) -> Vec<Stmt> {
    let mut segments: Vec<Vec<Stmt>> = Vec::new();
    let mut k = lo;
    while k < hi {
        match pairs[k] {
            Some(end) if end < hi => {
                let mut segment = vec![stmts[k].clone()];
                segment.extend(invert_range(stmts, pairs, k + 1, end));
                segment.push(stmts[end].clone());
                segments.push(segment);
                k = end + 1;
            }
            _ => {
                segments.push(vec![invert_stmt(&stmts[k])]);
                k += 1;
            }
        }
    }
    segments.into_iter().rev().flatten().collect()
}

pub fn invert_stmt(stmt: &Stmt) -> Stmt {
    let kind = match &stmt.kind {
        StmtKind::Instr {
            target,
            op,
            op_span,
            broadcast,
            value,
        } => StmtKind::Instr {
            target: target.clone(),
            op: op.inverse(),
            op_span: *op_span,
            broadcast: *broadcast,
            value: value.clone(),
        },
        StmtKind::Call(call) => StmtKind::Call(invert_call(call)),
        StmtKind::Alloc { name, value } => StmtKind::Dealloc {
            name: name.clone(),
            value: value.clone(),
        },
        StmtKind::Dealloc { name, value } => StmtKind::Alloc {
            name: name.clone(),
            value: value.clone(),
        },
        StmtKind::If {
            branches,
            otherwise,
        } => StmtKind::If {
            branches: branches
                .iter()
                .map(|b| Branch {
                    cond: swap_cond(&b.cond),
                    body: invert_block(&b.body),
                })
                .collect(),
            otherwise: otherwise.as_ref().map(invert_block),
        },
        StmtKind::While { cond, body } => StmtKind::While {
            cond: swap_cond(cond),
            body: invert_block(body),
        },
        StmtKind::For { var, range, body } => StmtKind::For {
            var: var.clone(),
            range: Range {
                reversed: !range.reversed,
                ..range.clone()
            },
            body: invert_block(body),
        },
        StmtKind::Begin(block) => StmtKind::Begin(invert_block(block)),
        // A tape loop has no inverse in the language: its inverse is
        // itself under `~` (it walks the iterations back, restoring from the
        // tape), and the inverse of that is the loop again.
        StmtKind::Inverse(inner) if matches!(inner.kind, StmtKind::Tape(_)) => inner.kind.clone(),
        StmtKind::Tape(_) => StmtKind::Inverse(Box::new(stmt.clone())),
        StmtKind::Inverse(inner) => StmtKind::Inverse(Box::new(invert_stmt(inner))),
        StmtKind::Routine(inner, storing) => StmtKind::Routine(inner.clone(), *storing),
        StmtKind::Unroutine => StmtKind::Unroutine,
        StmtKind::Safe(e) => StmtKind::Safe(e.clone()),
        StmtKind::InvCheckOff(inner) => StmtKind::InvCheckOff(Box::new(invert_stmt(inner))),
        StmtKind::InBounds(inner) => StmtKind::InBounds(Box::new(invert_stmt(inner))),
        StmtKind::Typecast { from, to, value } => StmtKind::Typecast {
            from: to.clone(),
            to: from.clone(),
            value: value.clone(),
        },
    };
    Stmt {
        kind,
        span: stmt.span,
    }
}

fn invert_call(call: &Call) -> Call {
    match builtins::instruction(&call.callee.name) {
        Some(instr) => Call {
            callee: Ident {
                name: instr.inverse.to_string(),
                span: call.callee.span,
            },
            ..call.clone()
        },
        None => Call {
            inverted: !call.inverted,
            ..call.clone()
        },
    }
}

fn swap_cond(cond: &Cond) -> Cond {
    match &cond.post {
        Post::Expr(post) => Cond {
            pre: post.clone(),
            post: Post::Expr(cond.pre.clone()),
            span: cond.span,
        },
        Post::SameAsPre(_) | Post::Missing => cond.clone(),
    }
}

/// What the `~@routine` at index `at` of `stmts` runs: the inverse of its
/// `@routine` (`pairs` from [`routine_pairs`]), or `None` without a partner.
pub fn unroutine_expansion(stmts: &[Stmt], pairs: &[Option<usize>], at: usize) -> Option<Stmt> {
    // The routine is before its `~@routine`, usually just before: search
    // backwards, so a block of many routines costs linear time, not
    // quadratic.
    let start = (0..at.min(pairs.len()))
        .rev()
        .find(|&k| pairs[k] == Some(at))?;
    match &stmts[start].kind {
        StmtKind::Routine(inner, _) => Some(invert_stmt(inner)),
        _ => None,
    }
}

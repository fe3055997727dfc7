//! `@store @routine`: which instructions of a stored routine keep their
//! local derivatives on a tape in a reverse pass ([`worth_storing`], read
//! by the Rust backend's `adjoint::storing`), and W0412 where a `@store`
//! would keep nothing.
//!
//! A derivative made only of loads, sums, products and comparisons costs no
//! more to compute again than to load back, so only instructions whose
//! right-hand side calls an elementary function or raises to a power other
//! than a whole-number literal store.

use nilang_syntax::ast::{BinaryOp, Expr, ExprKind, InstrOp, Span, Stmt, StmtKind, Storing};
use nilang_syntax::diagnostics::Diagnostic;

use crate::builtins::PureFn;

/// Whether the local derivatives of `value` are worth a tape: it calls an
/// elementary function (`exp`, `log`, `sqrt`, trigonometric and hyperbolic
/// functions and their inverses, `logaddexp`, `logsubexp`) or raises to a
/// power other than a whole-number literal (`x ^ 2` is a product).
pub fn worth_storing(value: &Expr) -> bool {
    use PureFn as F;
    let mut costly = false;
    value.walk(&mut |e| match &e.kind {
        ExprKind::Call { callee, .. } => {
            costly |= matches!(
                PureFn::named(&callee.name),
                Some(
                    F::Sqrt
                        | F::Exp
                        | F::Log
                        | F::Sin
                        | F::Cos
                        | F::Tan
                        | F::Sinh
                        | F::Cosh
                        | F::Tanh
                        | F::Asin
                        | F::Acos
                        | F::Atan
                        | F::Logaddexp
                        | F::Logsubexp
                )
            )
        }
        ExprKind::Binary {
            op: BinaryOp::Pow | BinaryOp::DotPow,
            rhs,
            ..
        } if rhs.whole_number().is_none() => costly = true,
        _ => {}
    });
    costly
}

/// Whether some instruction of a stored routine's body (outside the
/// routine pairs nested in it, which keep their own tapes) is a `+=` or
/// `-=` worth storing.
fn stores_something(body: &Stmt) -> bool {
    let mut found = false;
    walk(body, &mut found);
    found
}

fn walk(stmt: &Stmt, found: &mut bool) {
    match &stmt.kind {
        StmtKind::Instr {
            op: InstrOp::Add | InstrOp::Sub,
            broadcast: false,
            value,
            ..
        } => *found |= worth_storing(value),
        StmtKind::Routine(..) => {}
        StmtKind::If {
            branches,
            otherwise,
        } => {
            for b in branches {
                b.body.stmts.iter().for_each(|s| walk(s, found));
            }
            if let Some(block) = otherwise {
                block.stmts.iter().for_each(|s| walk(s, found));
            }
        }
        StmtKind::While { body, .. } | StmtKind::For { body, .. } | StmtKind::Begin(body) => {
            body.stmts.iter().for_each(|s| walk(s, found))
        }
        StmtKind::Tape(inner) | StmtKind::InvCheckOff(inner) | StmtKind::InBounds(inner) => {
            walk(inner, found)
        }
        _ => {}
    }
}

/// W0412 for each `@store @routine` of `stmts` (at any depth) that would
/// store nothing: no instruction in it is worth storing, or the function
/// carries no gradient (`differentiated` false), so no reverse pass reads
/// a tape.
pub fn check(stmts: &[Stmt], differentiated: bool, out: &mut Vec<Diagnostic>) {
    for stmt in stmts {
        crate::effects::visit_stmt(stmt, &mut |s| {
            // The span of `@store` itself.
            let StmtKind::Routine(inner, Storing::Store) = &s.kind else {
                return;
            };
            let at = Span::new(s.span.start, s.span.start + 6);
            let (message, label, help) = if !differentiated {
                (
                    "`@store` in a function that carries no gradient",
                    "no reverse pass reads this routine's tape",
                    "`@store` only changes how a gradient recomputes this routine; remove it, or give the function a differentiable parameter",
                )
            } else if !stores_something(inner) {
                (
                    "`@store` on a routine with nothing worth storing",
                    "no instruction here calls `exp`, `log`, `sqrt`, a trigonometric or hyperbolic function, or a non-integer power",
                    "a derivative made of loads, sums and products costs no more to recompute than to store; remove `@store`",
                )
            } else {
                return;
            };
            out.push(
                Diagnostic::warning("W0412", at, message)
                    .with_label(label)
                    .with_help(help),
            );
        });
    }
}

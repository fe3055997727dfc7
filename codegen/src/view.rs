//! The conjugate dataview as a place: `z' += e` changes `conj(z)` by `e`,
//! that is `z += conj(e)` (for real places `x'` is `x`).

use super::*;

impl Gen<'_> {
    /// `z' op= e` of a complex place, as `z op= conj(e)`.
    pub(super) fn conj_view(&mut self, stmt: &Stmt) -> Option<Stmt> {
        let StmtKind::Instr {
            target,
            op,
            op_span,
            broadcast: false,
            value,
        } = &stmt.kind
        else {
            return None;
        };
        let ExprKind::Adjoint(inner) = &target.kind else {
            return None;
        };
        if !matches!(op, InstrOp::Add | InstrOp::Sub) {
            return None;
        }
        let inner_kind = self.whole(|g| g.expr(inner)).1;
        if !matches!(inner_kind, Kind::Complex(_)) {
            return None;
        }
        let conj = Expr {
            kind: ExprKind::Call {
                callee: Ident {
                    name: "conj".into(),
                    span: value.span,
                },
                args: vec![value.clone()],
                kwargs: Vec::new(),
                broadcast: false,
            },
            span: value.span,
        };
        Some(Stmt {
            kind: StmtKind::Instr {
                target: (**inner).clone(),
                op: *op,
                op_span: *op_span,
                broadcast: false,
                value: conj,
            },
            span: stmt.span,
        })
    }
}

//! Number systems in the Rust backend: fixed-point (`Fixed43`), logarithmic
//! (`ULogarithmic<T>`) and tropical (`Tropical<T>`) numbers.
//!
//! Log numbers are compiled by rewriting: `x *= e` on a log number `x` is
//! `x.log += L(e)`, with `L(e)` a real expression for the logarithm of `e`
//! (`L(a * b) = L(a) + L(b)`, `L(a + b) = logaddexp(L(a), L(b))`,
//! `L(y) = y.log` for a log number `y`, `L(r) = log(r)` for a real `r`), and
//! `float(e)` of a log number is `exp(L(e))`. What is left is ordinary real
//! arithmetic on `.log` fields, so the usual inverse and adjoint rules apply;
//! the adjoint of a log number is the adjoint of its logarithm.

use crate::ast::*;
use crate::builtins;
use crate::ty::{Ctor, Scalar, Ty};
use crate::types::place_type;

use super::{Gen, Kind, convert};

fn synth(kind: ExprKind, span: Span) -> Expr {
    Expr { kind, span }
}

fn call(name: &str, args: Vec<Expr>, span: Span) -> Expr {
    nilang_syntax::stack::deep(|| Expr::call(name, args, span))
}

fn binary(op: BinaryOp, lhs: Expr, rhs: Expr, span: Span) -> Expr {
    synth(
        ExprKind::Binary {
            op,
            lhs: Box::new(lhs),
            rhs: Box::new(rhs),
        },
        span,
    )
}

fn log_field(place: &Expr, span: Span) -> Expr {
    synth(
        ExprKind::Field {
            base: Box::new(place.clone()),
            field: Ident {
                name: "log".to_string(),
                span,
            },
        },
        span,
    )
}

impl Gen<'_> {
    fn place_ty(&self, e: &Expr) -> Ty {
        place_type(e, self.resolution, &self.types.defs)
    }

    /// Whether an expression's value is a log number.
    fn is_ulog(&self, e: &Expr) -> bool {
        nilang_syntax::stack::deep(|| match &e.kind {
            ExprKind::Var(_) | ExprKind::Index { .. } | ExprKind::Field { .. } => {
                matches!(self.place_ty(e), Ty::Constructed(Ctor::ULogarithmic, _))
            }
            ExprKind::Paren(inner) => self.is_ulog(inner),
            ExprKind::Call { callee, args, .. } => match (callee.name.as_str(), args.as_slice()) {
                ("ulog", _) => true,
                ("zero" | "one" | "identity", [x]) => self.is_ulog(x),
                _ => false,
            },
            ExprKind::Binary { op, lhs, rhs } => {
                use BinaryOp::*;
                match op {
                    Add | Sub | Mul | Div => self.is_ulog(lhs) || self.is_ulog(rhs),
                    Pow => self.is_ulog(lhs),
                    _ => false,
                }
            }
            _ => false,
        })
    }

    /// `L(e)`: a real expression for the logarithm of `e`; `span` marks the
    /// nodes it makes (never the span of a variable, which names it).
    fn log_of(&self, e: &Expr, span: Span) -> Expr {
        nilang_syntax::stack::deep(|| {
            if !self.is_ulog(e) {
                return call("log", vec![self.rewrite_float(e, span)], span);
            }
            match &e.kind {
                ExprKind::Paren(inner) => self.log_of(inner, span),
                ExprKind::Call { callee, args, .. } if args.len() == 1 => {
                    match callee.name.as_str() {
                        // log 1 = 0, log 0 = -Inf.
                        "one" => synth(ExprKind::Float("0.0".into()), span),
                        "zero" => synth(
                            ExprKind::Unary {
                                op: UnaryOp::Neg,
                                operand: Box::new(synth(ExprKind::Var("Inf".into()), span)),
                            },
                            span,
                        ),
                        "identity" => self.log_of(&args[0], span),
                        _ => call("log", vec![self.rewrite_float(&args[0], span)], span),
                    }
                }
                ExprKind::Binary { op, lhs, rhs } => {
                    let (l, r) = (self.log_of(lhs, span), self.log_of(rhs, span));
                    match op {
                        BinaryOp::Mul => binary(BinaryOp::Add, l, r, span),
                        BinaryOp::Div => binary(BinaryOp::Sub, l, r, span),
                        BinaryOp::Add => call("logaddexp", vec![l, r], span),
                        BinaryOp::Sub => call("logsubexp", vec![l, r], span),
                        // `x ^ p`: `p L(x)`, with `p` a real.
                        _ => binary(BinaryOp::Mul, self.rewrite_float(rhs, span), l, span),
                    }
                }
                _ => log_field(e, span),
            }
        })
    }

    /// `e` with each `float(u)` of a log number `u` written `exp(L(u))`.
    fn rewrite_float(&self, e: &Expr, span: Span) -> Expr {
        let mut out = e.clone();
        self.rewrite_float_in(&mut out, span);
        out
    }

    fn rewrite_float_in(&self, e: &mut Expr, span: Span) {
        nilang_syntax::stack::deep(|| {
            if let ExprKind::Call { callee, args, .. } = &e.kind
                && callee.name == "float"
                && args.len() == 1
                && self.is_ulog(&args[0])
            {
                *e = call("exp", vec![self.log_of(&args[0], span)], span);
                return;
            }
            match &mut e.kind {
                ExprKind::Paren(inner) | ExprKind::Unary { operand: inner, .. } => {
                    self.rewrite_float_in(inner, span)
                }
                ExprKind::Binary { lhs, rhs, .. } => {
                    self.rewrite_float_in(lhs, span);
                    self.rewrite_float_in(rhs, span);
                }
                ExprKind::Call { args, .. } => {
                    for a in args {
                        self.rewrite_float_in(a, span);
                    }
                }
                _ => {}
            }
        })
    }

    fn mentions_float(e: &Expr) -> bool {
        nilang_syntax::stack::deep(|| match &e.kind {
            ExprKind::Call { callee, args, .. } => {
                callee.name == "float" || args.iter().any(Self::mentions_float)
            }
            ExprKind::Paren(inner) | ExprKind::Unary { operand: inner, .. } => {
                Self::mentions_float(inner)
            }
            ExprKind::Binary { lhs, rhs, .. } => {
                Self::mentions_float(lhs) || Self::mentions_float(rhs)
            }
            _ => false,
        })
    }

    /// A statement on log numbers written as one on their logarithms, or
    /// `None` when there are none.
    pub(super) fn number_rewrite(&self, stmt: &Stmt) -> Option<Stmt> {
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
        let span = stmt.span;
        if self.is_ulog(target) && matches!(op, InstrOp::Mul | InstrOp::Div) {
            let op = if *op == InstrOp::Mul {
                InstrOp::Add
            } else {
                InstrOp::Sub
            };
            return Some(Stmt {
                kind: StmtKind::Instr {
                    target: log_field(target, span),
                    op,
                    op_span: *op_span,
                    broadcast: false,
                    value: self.log_of(value, span),
                },
                span,
            });
        }
        // A log number added to a real place: its value, `float(e)`.
        let value = &if self.is_ulog(value) && !self.is_ulog(target) {
            call("float", vec![value.clone()], span)
        } else {
            value.clone()
        };
        if Self::mentions_float(value) {
            let rewritten = self.rewrite_float(value, span);
            if rewritten != *value {
                return Some(Stmt {
                    kind: StmtKind::Instr {
                        target: target.clone(),
                        op: *op,
                        op_span: *op_span,
                        broadcast: false,
                        value: rewritten,
                    },
                    span,
                });
            }
        }
        None
    }

    /// A broadcast instruction on an array of fixed-point, log or tropical
    /// numbers: not generated (E0701); true when reported.
    pub(super) fn number_broadcast(&mut self, stmt: &Stmt) -> bool {
        let StmtKind::Instr {
            target,
            broadcast: true,
            ..
        } = &stmt.kind
        else {
            return false;
        };
        let ty = self.place_ty(target);
        let name = match ty.element() {
            Ty::Constructed(name @ (Ctor::Fixed43 | Ctor::ULogarithmic | Ctor::Tropical), _) => {
                name.name()
            }
            _ => return false,
        };
        self.unsupported(
            stmt.span,
            &format!("a broadcast instruction on `{name}` elements (write a `for` loop)"),
        );
        true
    }

    /// The number system of a place or conversion, by its static type.
    fn number_type(&self, e: &Expr) -> Option<Ctor> {
        nilang_syntax::stack::deep(|| match &e.kind {
            ExprKind::Call { callee, .. } => match callee.name.as_str() {
                "fixed" => Some(Ctor::Fixed43),
                "ulog" => Some(Ctor::ULogarithmic),
                "tropical" => Some(Ctor::Tropical),
                _ => None,
            },
            ExprKind::Paren(inner) => self.number_type(inner),
            _ => match self.place_ty(e) {
                Ty::Constructed(
                    name @ (Ctor::Fixed43 | Ctor::ULogarithmic | Ctor::Tropical),
                    _,
                ) => Some(name),
                _ => None,
            },
        })
    }

    /// A pure function of a fixed-point, log or tropical value that has no
    /// meaning there (`sin(x)`): E0701 with a hint, not Rust that does not
    /// compile. True when reported.
    pub(super) fn number_math(&mut self, name: &str, args: &[Expr], span: Span) -> bool {
        let Some(ty) = args.iter().find_map(|a| self.number_type(a)) else {
            return false;
        };
        // What is generated is the catalogue's (`PureSpec::numbers`): `exp`
        // and `log` of a fixed-point number are computed in f64 and
        // rounded (`call_expr`).
        let Some(spec) = builtins::PureFn::named(name).map(|f| f.spec()) else {
            return false;
        };
        if builtins::number_arguments_generated(spec, ty == Ctor::Fixed43) {
            return false;
        }
        self.unsupported(
            span,
            &format!("`{name}` of a `{ty}` value (convert it with `float(x)` first)"),
        );
        true
    }

    /// An operator the number system lacks (`x ^ 2` on fixed-point
    /// numbers, `x % y` on log numbers): E0701. True when reported.
    pub(super) fn number_operator(
        &mut self,
        op: BinaryOp,
        lk: &Kind,
        rk: &Kind,
        span: Span,
    ) -> bool {
        use BinaryOp::*;
        let k = super::unify(lk, rk);
        let allowed = match k {
            Kind::Fixed => matches!(op, Add | Sub | Mul | Eq | Ne | Lt | Le | Gt | Ge),
            Kind::ULog(_) => matches!(op, Add | Sub | Mul | Div | Eq | Ne | Lt | Le | Gt | Ge),
            Kind::Tropical(_) => matches!(op, Add | Mul | Div | Eq | Ne | Lt | Le | Gt | Ge),
            _ => return false,
        };
        if allowed {
            return false;
        }
        let ty = match k {
            Kind::Fixed => "Fixed43",
            Kind::ULog(_) => "ULogarithmic",
            _ => "Tropical",
        };
        self.unsupported(
            span,
            &format!(
                "the operator `{}` on `{ty}` values (convert them with `float(x)` first)",
                op.as_str()
            ),
        );
        true
    }

    /// `x → e` (or its adjoint rule) on a log number: `x.log -= L(e)`.
    pub(super) fn ulog_dealloc(
        &self,
        var: &Expr,
        value: &Expr,
        span: Span,
    ) -> Option<(Expr, Expr)> {
        self.is_ulog(var)
            .then(|| (log_field(var, span), self.log_of(value, span)))
    }

    /// `+=`/`-=` on a fixed-point place: checked (an overflow error) with
    /// run-time checks, wrapping without. True when handled.
    #[allow(clippy::too_many_arguments)]
    pub(super) fn fixed_update(
        &mut self,
        target: &Expr,
        place: &str,
        kind: &Kind,
        op: InstrOp,
        code: String,
        from: &Kind,
        span: Span,
    ) -> bool {
        if *kind != Kind::Fixed || !matches!(op, InstrOp::Add | InstrOp::Sub) {
            return false;
        }
        let code = convert(code, from, kind);
        let t = self.fresh("v");
        self.line(&format!("let {t} = {code};"));
        let name = if op == InstrOp::Add { "add" } else { "sub" };
        if self.mode.checks {
            let location = self.location(span);
            let what = format!(
                "`{} {}= ...` must stay within the range of Fixed43",
                crate::printer::print_expr(target),
                if op == InstrOp::Add { '+' } else { '-' }
            );
            self.line(&format!(
                "{place} = nilang::fixed::{name}({place}, {t}, {location}, {what:?})?;"
            ));
        } else {
            self.line(&format!("{place} = {place}.wrapping_{name}({t});"));
        }
        true
    }

    /// Tropical `x += e` (the maximum) in a tape loop: going forwards the
    /// old value goes on the tape, going backwards (where the inverse
    /// program has `x -= e`) it comes back. True when handled.
    pub(super) fn tropical_max(
        &mut self,
        target: &Expr,
        op: InstrOp,
        value: &Expr,
        span: Span,
    ) -> bool {
        let Some(mode) = self.mode.tape else {
            return false;
        };
        if !matches!(op, InstrOp::Add | InstrOp::Sub)
            || !matches!(self.place_ty(target), Ty::Constructed(Ctor::Tropical, _))
        {
            return false;
        }
        let Some((place, kind, _)) = self.lvalue(target) else {
            return true;
        };
        let t = self.tape.clone().unwrap_or_else(|| "__tape".to_string());
        match mode {
            super::tape::TapeMode::Push => {
                let (code, from) = self.expr(value);
                let code = convert(code, &from, &kind);
                let v = self.fresh("v");
                self.line(&format!("let {v} = {code};"));
                self.line(&format!("{t}.push({place});"));
                self.line(&format!("{place}.max_assign({v});"));
            }
            super::tape::TapeMode::Pop => {
                let location = self.location(span);
                self.line(&format!("{place} = {t}.pop({location})?;"));
            }
        }
        true
    }

    /// The conversion and Gaussian-logarithm functions; `None` for others.
    pub(super) fn number_call(&mut self, name: &str, args: &[Expr]) -> Option<(String, Kind)> {
        let [x] = args else {
            if let ("logaddexp" | "logsubexp", [a, b]) = (name, args) {
                let (a, ak) = self.expr(a);
                let (b, bk) = self.expr(b);
                let k = super::float_kind(&super::unify(&ak, &bk));
                // Over fixed-point logarithms (`ULogarithmic<Fixed43>`), the
                // result is computed in f64 and rounded, the same every time.
                let function = if k == Kind::Fixed {
                    format!("<nilang::Fixed43 as nilang::ulog::LogBase>::{name}")
                } else {
                    format!("nilang::ulog::{name}")
                };
                return Some((
                    format!(
                        "{function}({}, {})",
                        convert(a, &ak, &k),
                        convert(b, &bk, &k)
                    ),
                    k,
                ));
            }
            return None;
        };
        match name {
            "zero" | "one" => {
                let kind = if matches!(&x.kind, ExprKind::Var(n) if n == "Fixed43")
                    && self.resolution.def_at(x.span).is_none()
                {
                    Kind::Fixed
                } else if self.number_type(x).is_some() {
                    self.whole(|g| g.expr(x)).1
                } else {
                    return None;
                };
                let zero = name == "zero";
                let code = match &kind {
                    Kind::Fixed => format!("nilang::fixed::from_i64({})", i64::from(!zero)),
                    Kind::ULog(inner) | Kind::Tropical(inner) => {
                        let t = super::rust_scalar(inner)?;
                        let ty = if let Kind::ULog(_) = kind {
                            "ULog"
                        } else {
                            "Tropical"
                        };
                        format!("nilang::{ty}::<{t}>::{name}()")
                    }
                    _ => return None,
                };
                Some((code, kind))
            }
            "fixed" => {
                let (c, k) = self.expr(x);
                Some((convert(c, &k, &Kind::Fixed), Kind::Fixed))
            }
            "ulog" | "tropical" => {
                let (c, k) = self.expr(x);
                let inner = match &k {
                    Kind::Float(_) | Kind::Generic(_) => k.clone(),
                    Kind::Fixed if name == "ulog" => Kind::Fixed,
                    _ => Kind::Float(Scalar::F64),
                };
                let target = if name == "ulog" {
                    Kind::ULog(Box::new(inner))
                } else {
                    Kind::Tropical(Box::new(inner))
                };
                Some((convert(c, &k, &target), target))
            }
            "float" => {
                let (c, k) = self.expr(x);
                Some(match k {
                    Kind::Fixed => (
                        format!("nilang::fixed::to_f64({c})"),
                        Kind::Float(Scalar::F64),
                    ),
                    Kind::ULog(inner) => (format!("nilang::ULog::value({c})"), *inner),
                    Kind::Tropical(inner) => (format!("{c}.n"), *inner),
                    Kind::Int(_) => (format!("({c} as f64)"), Kind::Float(Scalar::F64)),
                    other => (c, other),
                })
            }
            _ => None,
        }
    }
}

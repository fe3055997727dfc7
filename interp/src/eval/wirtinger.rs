//! Adjoints through complex values, as the Rust backend's reverse passes
//! define them (`codegen::adjoint::complex`, `nilang::adjoint::wirtinger`).
//!
//! Each expression's value `N` moves with what it reads as a Wirtinger pair:
//! `dN = a dz + b conj(dz)` for each operand `z` (`b = 0` on every
//! holomorphic path: sums, products, quotients, powers, `exp`, `log`,
//! `sqrt`, `sin`, `cos`, `inv`). A cotangent `c` of `N` sends
//! `conj(a) c + conj(c) b` to `z`, its real part when `z` is real. A real
//! loss then gets the adjoint `∂L/∂x + i ∂L/∂y` of each complex `x + iy`,
//! the convention of the runtime's complex adjoints.

use super::{Frame, Interpreter, R};
use crate::ops;
use crate::pure::{self, Out};
use crate::value::Value;
use nilang_analysis::ast::{BinaryOp, Span, UnaryOp};
use nilang_analysis::builtins::PureFn;
use nilang_analysis::db::body::{Expr, ExprId};
use nilang_analysis::derivative_rules::{holomorphic, local_derivative};
use nilang_analysis::ty::{Scalar, Ty};

/// A complex number as its two parts.
type C = (f64, f64);

/// A Wirtinger pair `(a, b)`: `dN = a dz + b conj(dz)`.
pub(super) type Pair = (C, C);

const ZERO: C = (0.0, 0.0);
const ONE: C = (1.0, 0.0);

fn mul(a: C, b: C) -> C {
    (a.0 * b.0 - a.1 * b.1, a.0 * b.1 + a.1 * b.0)
}

fn div(a: C, b: C) -> C {
    let d = b.0 * b.0 + b.1 * b.1;
    ((a.0 * b.0 + a.1 * b.1) / d, (a.1 * b.0 - a.0 * b.1) / d)
}

fn conj(a: C) -> C {
    (a.0, -a.1)
}

fn neg(a: C) -> C {
    (-a.0, -a.1)
}

/// A number as a complex one (`None` for what is not a number).
fn complex(v: &Value) -> Option<C> {
    match v {
        Value::Complex(re, im) => Some((*re, *im)),
        v => v.as_f64().map(|x| (x, 0.0)),
    }
}

/// `f(z)` of a complex `z`, as the interpreter computes it.
fn apply(func: PureFn, z: C) -> Option<C> {
    match pure::call(func, &[Value::Complex(z.0, z.1)]) {
        Ok(Out::Value(v)) => complex(&v),
        _ => None,
    }
}

impl<'db> Interpreter<'db> {
    /// Sends the complex cotangent `cot` of `e`'s value to the places `e`
    /// reads, through the Wirtinger pairs of each operation.
    pub(super) fn backprop_complex(
        &mut self,
        fr: &mut Frame<'db>,
        e: ExprId,
        cot: (f64, f64),
        span: Span,
    ) -> R<()> {
        let body = fr.body;
        // A real value: the real part of its cotangent, through the real
        // rules (its operands are real too); an integer or a boolean has
        // no adjoint.
        let real = match &body.expr(e).ty {
            Ty::Scalar(Scalar::F64) | Ty::Generic(_) => Some(Value::F64(cot.0)),
            Ty::Scalar(Scalar::F32) => Some(f32_cotangent(cot.0, fr.scalar)),
            Ty::Scalar(_) => return Ok(()),
            _ => None,
        };
        if let Some(cot) = real
            && !matches!(
                body.expr(e).kind,
                Expr::Local(_) | Expr::Index { .. } | Expr::Field { .. }
            )
        {
            return self.backprop(fr, e, cot, span);
        }
        match &body.expr(e).kind {
            Expr::Local(_) | Expr::Index { .. } | Expr::Field { .. } => {
                let Some(p) = self.path(fr, e)? else {
                    return Ok(());
                };
                // A real place takes the real part.
                let cot = match self.read(fr, &p, span)? {
                    Value::Complex(..) => Value::Complex(cot.0, cot.1),
                    Value::F64(_) => Value::F64(cot.0),
                    Value::F32(_) => f32_cotangent(cot.0, fr.scalar),
                    _ => return Ok(()),
                };
                let g = self.grad_read(fr, &p, span)?;
                self.grad_write(fr, &p, super::accumulate(&g, &cot), span)
            }
            Expr::Int(_)
            | Expr::Float(_)
            | Expr::Bool(_)
            | Expr::Str(_)
            | Expr::Name(_)
            | Expr::Function(_) => Ok(()),
            Expr::Unary {
                op: UnaryOp::Neg,
                operand,
            } => self.send(fr, *operand, cot, neg(ONE), ZERO, span),
            Expr::Unary {
                op: UnaryOp::Plus,
                operand,
            } => self.send(fr, *operand, cot, ONE, ZERO, span),
            Expr::Unary { .. } => Ok(()),
            Expr::Conj(inner) => self.send(fr, *inner, cot, ZERO, ONE, span),
            Expr::Binary { op, lhs, rhs } => {
                if self.send_binary(fr, op.scalar(), *lhs, *rhs, cot, span)? {
                    Ok(())
                } else {
                    Err(fr.not_differentiable(span, &format!("`{}`", op.as_str())))
                }
            }
            Expr::Pure {
                func,
                args,
                broadcast: false,
            } => {
                let [x] = args.as_slice() else {
                    return Err(fr.not_differentiable(
                        span,
                        &format!("`{}` of complex numbers", func.name()),
                    ));
                };
                let v = self.operand(fr, *x)?;
                match pure_pair(*func, &v) {
                    Some(Some((a, b))) => self.send(fr, *x, cot, a, b, span),
                    Some(None) => Ok(()),
                    None => Err(fr.not_differentiable(
                        span,
                        &format!(
                            "the interpreter has no complex adjoint rule for `{}`",
                            func.name()
                        ),
                    )),
                }
            }
            // `Complex(x, y)` = x + iy of two reals.
            Expr::Construct { name, args } if name == "Complex" => {
                let args = args.clone();
                for (&a, unit) in args.iter().zip([ONE, (0.0, 1.0)]) {
                    self.send(fr, a, cot, unit, ZERO, span)?;
                }
                Ok(())
            }
            _ => Err(fr.not_differentiable(
                span,
                "the interpreter has no complex adjoint rule for this expression",
            )),
        }
    }

    /// The complex cotangent `cot` of `lhs op rhs` to both operands,
    /// through the operator's Wirtinger pairs; `false` (nothing sent) for
    /// an operator without a rule.
    pub(super) fn send_binary(
        &mut self,
        fr: &mut Frame<'db>,
        op: BinaryOp,
        lhs: ExprId,
        rhs: ExprId,
        cot: C,
        span: Span,
    ) -> R<bool> {
        let (l, r) = (self.operand(fr, lhs)?, self.operand(fr, rhs)?);
        let Some([(al, bl), (ar, br)]) = binary_pairs(op, &l, &r) else {
            return Ok(false);
        };
        self.send(fr, lhs, cot, al, bl, span)?;
        self.send(fr, rhs, cot, ar, br, span)?;
        Ok(true)
    }

    /// `conj(a) c + conj(c) b` to the operand `x` of a value with the
    /// Wirtinger pair `(a, b)` by `x` and the cotangent `c`.
    fn send(&mut self, fr: &mut Frame<'db>, x: ExprId, c: C, a: C, b: C, span: Span) -> R<()> {
        match through((a, b), c) {
            ZERO => Ok(()),
            g => self.backprop_complex(fr, x, g, span),
        }
    }
}

/// The Wirtinger pairs `(a, b)` of `l op r` by `l` and by `r` (`b` is zero:
/// every operator is holomorphic); `None` for an operator without a rule
/// or operands that are not numbers.
pub(super) fn binary_pairs(op: BinaryOp, l: &Value, r: &Value) -> Option<[Pair; 2]> {
    let (zl, zr) = (complex(l)?, complex(r)?);
    let (al, ar) = match op {
        BinaryOp::Add => (ONE, ONE),
        BinaryOp::Sub => (ONE, neg(ONE)),
        BinaryOp::Mul => (zr, zl),
        BinaryOp::Div => (div(ONE, zr), neg(div(zl, mul(zr, zr)))),
        BinaryOp::Pow => match r {
            // n z^(n-1), zero for n = 0.
            Value::Int(n, _) => {
                let mut p = ONE;
                for _ in 1..(*n).max(1) {
                    p = mul(p, zl);
                }
                (
                    if *n == 0 {
                        ZERO
                    } else {
                        mul((*n as f64, 0.0), p)
                    },
                    ZERO,
                )
            }
            // z^w = exp(w log z): w z^w / z and z^w log z; at z = 0, 1 for
            // w = 1 (else 0) and 0.
            _ => {
                let p = complex(&ops::binary(BinaryOp::Pow, l, r).ok()?).unwrap_or(ZERO);
                if zl == ZERO {
                    (if zr == ONE { ONE } else { ZERO }, ZERO)
                } else {
                    let log = apply(PureFn::Log, zl).unwrap_or(ZERO);
                    (div(mul(zr, p), zl), mul(p, log))
                }
            }
        },
        _ => return None,
    };
    Some([(al, ZERO), (ar, ZERO)])
}

/// The Wirtinger pair of `func(z)` by `z`: `Some(None)` where it has none
/// (a value of a type, or a point where the subgradient is 0), `None` where
/// the interpreter has no rule.
pub(super) fn pure_pair(func: PureFn, v: &Value) -> Option<Option<Pair>> {
    let Some(z) = complex(v) else {
        return Some(None);
    };
    let half = 0.5;
    Some(Some(match func {
        PureFn::Identity | PureFn::Value | PureFn::Unwrap | PureFn::Float => (ONE, ZERO),
        PureFn::Zero | PureFn::One => return Some(None),
        PureFn::Conj => (ZERO, ONE),
        PureFn::Real => ((half, 0.0), (half, 0.0)),
        PureFn::Imag => ((0.0, -half), (0.0, half)),
        PureFn::Abs2 => (conj(z), z),
        // At z = 0 the subgradient 0.
        PureFn::Abs | PureFn::Angle if z == ZERO => return Some(None),
        // conj(z) / 2|z| and z / 2|z|, divided by the real 2|z| (the
        // runtime's |z|) as the Rust backend divides.
        PureFn::Abs => {
            let r = 2.0 * crate::ops::cabs(z.0, z.1);
            ((z.0 / r, -z.1 / r), (z.0 / r, z.1 / r))
        }
        PureFn::Angle => (div((0.0, -half), z), div((0.0, half), conj(z))),
        // A holomorphic function: its rule from the catalogue, on z.
        f if holomorphic(f) => {
            let d = crate::local::derivative(&local_derivative(f)?, v)?;
            (complex(&d)?, ZERO)
        }
        _ => return None,
    }))
}

/// The real cotangent `x` of an `f32` value: an `f64` in a reverse pass
/// whose adjoints are `f64` (`Frame::scalar`), else rounded to `f32`.
fn f32_cotangent(x: f64, scalar: Option<Scalar>) -> Value {
    match scalar {
        Some(Scalar::F64) => Value::F64(x),
        _ => Value::F32(x as f32),
    }
}

/// `conj(a) c + conj(c) b`: what the cotangent `c` of a value sends to an
/// operand with the Wirtinger pair `(a, b)`, as the operand's value is
/// (the real part for a real one; `None` for an integer or a boolean).
pub(super) fn share(c: C, pair: Pair, operand: &Value) -> Option<Value> {
    let g = through(pair, c);
    match operand {
        Value::Complex(..) => Some(Value::Complex(g.0, g.1)),
        Value::F64(_) => Some(Value::F64(g.0)),
        Value::F32(_) => Some(Value::F32(g.0 as f32)),
        _ => None,
    }
}

/// `conj(a) c + conj(c) b`, the cotangent `c` through the pair `(a, b)`.
///
/// Component by component, as the runtime adds it
/// (`nilang::adjoint::wirtinger`): each part of `c` scales a sum of the
/// pair's parts, and a zero part adds nothing (no `0 · ∞`).
fn through((a, b): Pair, c: C) -> C {
    let scaled = |g: f64, s: f64| if g == 0.0 { 0.0 } else { g * s };
    (
        scaled(c.0, a.0 + b.0) + scaled(c.1, a.1 + b.1),
        scaled(c.0, b.1 - a.1) + scaled(c.1, a.0 - b.0),
    )
}

/// A value's complex parts, when it is a complex number.
pub(super) fn parts(v: &Value) -> Option<C> {
    match v {
        Value::Complex(re, im) => Some((*re, *im)),
        _ => None,
    }
}

//! Dual numbers, for the tangent calls `(∂f)(...)` and `~(∂f)(...)`.
//!
//! The generated Rust runs `f` (or `uncall_f`) with its float type `T` set
//! to `nilang::Dual<T>`: each argument of that type carries its companion
//! as the dual part. The interpreter does the same with [`Value::Dual`]:
//! the arguments of `f`'s float type become duals, `T` binds to the dual
//! type ([`ty`]), and every operation that meets a dual computes as the
//! runtime's `Dual<f64>` does, formula for formula, so that the values and
//! tangents agree to the bit: a number that meets a dual is a constant
//! (zero dual part), comparisons look at the value only, and a function of
//! a dual with a zero dual part keeps a zero dual part (`Dual::chain`).
//!
//! The reverse pass of a derivative call runs a gradient run on duals; its
//! partials ([`binary_partials`], [`pure_partials`]) are the gradient run's
//! rules computed in dual arithmetic (agreeing with the generated code's
//! within the gradients' tolerance, not to the bit).

use crate::error::Fail;
use crate::value::Value;
use nilang_analysis::ast::BinaryOp;
use nilang_analysis::builtins::PureFn;

/// The value and dual part of a real number (a constant's dual part is
/// zero); `None` for what is no real number.
pub fn parts(v: &Value) -> Option<(f64, f64)> {
    match v {
        Value::Dual(re, eps) => Some((*re, *eps)),
        Value::F64(x) => Some((*x, 0.0)),
        Value::F32(x) => Some((*x as f64, 0.0)),
        Value::Int(x, _) => Some((*x as f64, 0.0)),
        Value::Bool(b) => Some((*b as i64 as f64, 0.0)),
        _ => None,
    }
}

/// A constant with the value `x`.
fn constant(x: f64) -> Value {
    Value::Dual(x, 0.0)
}

/// The runtime's `is_exact_zero` for `f64`: `x == 0` (not NaN).
fn zero(x: f64) -> bool {
    x == 0.0
}

/// `Dual::chain`: `f(re)` with derivative `d`, a constant staying one.
fn chain(eps: f64, value: f64, d: f64) -> Value {
    Value::Dual(value, scaled(eps, d))
}

/// A tangent `eps` through a derivative `d` (`Dual::chain`): zero stays
/// zero, even through an infinite `d`.
fn scaled(eps: f64, d: f64) -> f64 {
    if zero(eps) { 0.0 } else { eps * d }
}

/// `nilang::Real::powi` of an `f64`.
fn powi_f64(x: f64, n: i64) -> f64 {
    match i32::try_from(n) {
        Ok(n) => x.powi(n),
        Err(_) => x.powf(n as f64),
    }
}

/// `Dual::powi`.
fn powi(re: f64, eps: f64, n: i64) -> Value {
    if n == 0 {
        return constant(1.0);
    }
    let below = match n.checked_sub(1) {
        Some(m) => powi_f64(re, m),
        None => powi_f64(re, n) / re,
    };
    chain(eps, powi_f64(re, n), n as f64 * below)
}

/// `Dual::powf`.
fn powf((re, eps): (f64, f64), (p, p_eps): (f64, f64)) -> Value {
    if zero(p_eps) {
        if zero(p) {
            return constant(1.0);
        }
        let d = p * re.powf(p - 1.0);
        return chain(eps, re.powf(p), d);
    }
    let value = re.powf(p);
    let mut out = 0.0;
    if !zero(eps) {
        out += eps * p * re.powf(p - 1.0);
    }
    if !zero(value) {
        out += p_eps * value * re.ln();
    }
    Value::Dual(value, out)
}

/// `nilang::div` of duals: `round((a - a % b) / b)`, a constant.
fn quotient((a, _): (f64, f64), (b, _): (f64, f64)) -> Value {
    constant(((a - a % b) / b).round_ties_even())
}

/// `Dual % Dual`.
fn rem((a, da): (f64, f64), (b, db): (f64, f64)) -> Value {
    let r = a % b;
    let q = ((a - r) / b).round();
    Value::Dual(r, da - db * q)
}

/// `a op b` where one of them is a dual: as the runtime's `Dual<f64>`
/// computes it, the other a constant.
pub fn binary(op: BinaryOp, a: &Value, b: &Value) -> Result<Value, String> {
    use BinaryOp::*;
    let (Some(x), Some(y)) = (parts(a), parts(b)) else {
        return Err(format!(
            "`{}` of {} and {}",
            op.as_str(),
            a.kind_name(),
            b.kind_name()
        ));
    };
    let op = op.scalar();
    let ((p, dp), (q, dq)) = (x, y);
    Ok(match op {
        Eq => Value::Bool(p == q),
        Ne => Value::Bool(p != q),
        Lt => Value::Bool(p < q),
        Le => Value::Bool(p <= q),
        Gt => Value::Bool(p > q),
        Ge => Value::Bool(p >= q),
        Add => Value::Dual(p + q, dp + dq),
        Sub => Value::Dual(p - q, dp - dq),
        Mul => Value::Dual(p * q, p * dq + dp * q),
        Div => {
            let re = p / q;
            Value::Dual(re, (dp - re * dq) / q)
        }
        Rem => rem(x, y),
        // `÷` of floats is `nilang::div`: a constant.
        IntDiv => quotient(x, y),
        // An integer power is `Real::powi`, as for floats.
        Pow => match b {
            Value::Int(n, _) => powi(p, dp, *n),
            _ => powf(x, y),
        },
        _ => {
            return Err(format!("`{}` of dual numbers", op.as_str()));
        }
    })
}

/// `-x` of a dual.
pub fn negate(re: f64, eps: f64) -> Value {
    Value::Dual(-re, -eps)
}

/// The pure function `func` of `args`, one of which is a dual, as the
/// runtime's `Dual` computes it; `None` for a function that takes no
/// numbers (`length`, `println`, ...), which runs as usual.
pub fn pure(func: PureFn, args: &[Value]) -> Option<Result<Value, Fail>> {
    use PureFn as P;
    let numeric = matches!(
        func,
        P::Abs
            | P::Abs2
            | P::Sqrt
            | P::Exp
            | P::Log
            | P::Sin
            | P::Cos
            | P::Tan
            | P::Sinh
            | P::Cosh
            | P::Tanh
            | P::Asin
            | P::Acos
            | P::Atan
            | P::Sincos
            | P::Inv
            | P::Min
            | P::Max
            | P::Sign
            | P::Floor
            | P::Ceil
            | P::Round
            | P::Div
            | P::Rem
            | P::Mod
            | P::Logaddexp
            | P::Logsubexp
            | P::Angle
            | P::Float
    );
    if !numeric {
        return None;
    }
    let refuse = || {
        Fail::unsupported(format!(
            "`{}` of a dual number (in a tangent call)",
            func.name()
        ))
    };
    let Some(xs) = args.iter().map(parts).collect::<Option<Vec<_>>>() else {
        return Some(Err(refuse()));
    };
    let v = match (func, xs.as_slice()) {
        (P::Float, &[(re, eps)]) => Value::Dual(re, eps),
        (P::Abs, &[(re, eps)]) => {
            if re < 0.0 {
                negate(re, eps)
            } else {
                Value::Dual(re, eps)
            }
        }
        (P::Abs2, &[(re, eps)]) => Value::Dual(re * re, (re + re) * eps),
        (P::Sqrt, &[(re, eps)]) => {
            let s = re.sqrt();
            chain(eps, s, 1.0 / (s + s))
        }
        (P::Exp, &[(re, eps)]) => {
            let e = re.exp();
            chain(eps, e, e)
        }
        (P::Log, &[(re, eps)]) => chain(eps, re.ln(), 1.0 / re),
        (P::Sin, &[(re, eps)]) => chain(eps, re.sin(), re.cos()),
        (P::Cos, &[(re, eps)]) => chain(eps, re.cos(), -re.sin()),
        (P::Tan, &[(re, eps)]) => {
            let t = re.tan();
            chain(eps, t, 1.0 + t * t)
        }
        (P::Sinh, &[(re, eps)]) => chain(eps, re.sinh(), re.cosh()),
        (P::Cosh, &[(re, eps)]) => chain(eps, re.cosh(), re.sinh()),
        (P::Tanh, &[(re, eps)]) => {
            let t = re.tanh();
            chain(eps, t, 1.0 - t * t)
        }
        (P::Asin, &[(re, eps)]) => {
            let d = 1.0 / (1.0 - re * re).sqrt();
            chain(eps, re.asin(), d)
        }
        (P::Acos, &[(re, eps)]) => {
            let d = 1.0 / (1.0 - re * re).sqrt();
            chain(eps, re.acos(), -d)
        }
        (P::Atan, &[(re, eps)]) => chain(eps, re.atan(), 1.0 / (1.0 + re * re)),
        (P::Atan, &[(y, dy), (x, dx)]) => {
            let re = y.atan2(x);
            if zero(dy) && zero(dx) {
                constant(re)
            } else {
                let r2 = x * x + y * y;
                Value::Dual(re, (x * dy - y * dx) / r2)
            }
        }
        (P::Sincos, &[(re, eps)]) => Value::Tuple(std::rc::Rc::new(vec![
            chain(eps, re.sin(), re.cos()),
            chain(eps, re.cos(), -re.sin()),
        ])),
        (P::Inv, &[(re, eps)]) => {
            let r = 1.0 / re;
            Value::Dual(r, -(eps * r * r))
        }
        // `Real::min(a, b)`: `b` when its value is below `a`'s, else `a`.
        (P::Min, &[a, b]) => {
            let (re, eps) = if b.0 < a.0 { b } else { a };
            Value::Dual(re, eps)
        }
        (P::Max, &[a, b]) => {
            let (re, eps) = if b.0 > a.0 { b } else { a };
            Value::Dual(re, eps)
        }
        // `Real::signum`: a zero of either sign is its own.
        (P::Sign, &[(re, _)]) => constant(if re == 0.0 { re } else { re.signum() }),
        (P::Floor, &[(re, _)]) => constant(re.floor()),
        (P::Ceil, &[(re, _)]) => constant(re.ceil()),
        (P::Round, &[(re, _)]) => constant(re.round_ties_even()),
        // `nilang::div` and `a % b`.
        (P::Div, &[a, b]) => quotient(a, b),
        (P::Rem, &[a, b]) => rem(a, b),
        // `nilang::modulo`: the remainder, plus `b` where its sign differs.
        (P::Mod, &[a, b]) => {
            let Value::Dual(r, dr) = rem(a, b) else {
                unreachable!("a remainder of duals is a dual")
            };
            if r != 0.0 && (r < 0.0) != (b.0 < 0.0) {
                Value::Dual(r + b.0, dr + b.1)
            } else {
                Value::Dual(r, dr)
            }
        }
        // `nilang::ulog::logaddexp` on duals: hi + ln_1p(e^(lo - hi)).
        (P::Logaddexp, &[a, b]) => {
            let (hi, lo) = if a.0 >= b.0 { (a, b) } else { (b, a) };
            if lo.0 == f64::NEG_INFINITY {
                Value::Dual(hi.0, hi.1)
            } else {
                let (d, dd) = (lo.0 - hi.0, lo.1 - hi.1);
                let e = d.exp();
                let de = scaled(dd, e);
                let l = e.ln_1p();
                let dl = scaled(de, 1.0 / (1.0 + e));
                Value::Dual(hi.0 + l, hi.1 + dl)
            }
        }
        // `nilang::ulog::logsubexp` on duals: a + ln(-expm1(b - a)).
        (P::Logsubexp, &[a, b]) => {
            if b.0 == f64::NEG_INFINITY {
                Value::Dual(a.0, a.1)
            } else {
                let (d, dd) = (b.0 - a.0, b.1 - a.1);
                let m = d.exp_m1();
                let dm = scaled(dd, d.exp());
                let (n, dn) = (-m, -dm);
                let l = n.ln();
                let dl = scaled(dn, 1.0 / n);
                Value::Dual(a.0 + l, a.1 + dl)
            }
        }
        _ => return Some(Err(refuse())),
    };
    Some(Ok(v))
}

/// Whether a value holds a dual number anywhere.
pub fn holds_dual(v: &Value) -> bool {
    match v {
        Value::Dual(..) => true,
        Value::Array(items) | Value::Tuple(items) | Value::Stack(items, _) => {
            items.iter().any(holds_dual)
        }
        Value::Matrix { data, .. } => data.iter().any(holds_dual),
        Value::Struct { fields, .. } => fields.iter().any(|(_, v)| holds_dual(v)),
        _ => false,
    }
}

/// The partials of `l op r` by each operand, as duals, where an operand is
/// a dual: the gradient run's rules (`eval::grad`) on dual numbers, for
/// the reverse pass of a derivative call (second derivatives). `None` for
/// an operand without one (an integer, a comparison).
pub fn binary_partials(op: BinaryOp, l: &Value, r: &Value) -> Option<Vec<Option<Value>>> {
    use BinaryOp::*;
    let (a, b) = (parts(l)?, parts(r)?);
    let (x, y) = (Value::Dual(a.0, a.1), Value::Dual(b.0, b.1));
    let float = |v: &Value| matches!(v, Value::F64(_) | Value::F32(_) | Value::Dual(..));
    let on = |v: &Value, d: Value| float(v).then_some(d);
    let op2 = |op: BinaryOp, p: &Value, q: &Value| binary(op, p, q).ok();
    Some(match op {
        Add => vec![on(l, constant(1.0)), on(r, constant(1.0))],
        Sub => vec![on(l, constant(1.0)), on(r, constant(-1.0))],
        Mul => vec![on(l, y), on(r, x)],
        Div => {
            let dl = op2(Div, &constant(1.0), &y)?;
            let dr = negate_value(&op2(Div, &x, &op2(Mul, &y, &y)?)?);
            vec![on(l, dl), on(r, dr)]
        }
        Pow => match r {
            Value::Int(n, _) => {
                let d = if *n == 0 {
                    constant(0.0)
                } else {
                    op2(Mul, &Value::int(*n), &powi(a.0, a.1, n - 1))?
                };
                vec![on(l, d), None]
            }
            _ => {
                let below = op2(Pow, &x, &op2(Sub, &y, &constant(1.0))?)?;
                let dl = op2(Mul, &y, &below)?;
                let ln = match pure(PureFn::Log, std::slice::from_ref(&x))? {
                    Ok(v) => v,
                    Err(_) => return None,
                };
                let dr = op2(Mul, &ln, &op2(Pow, &x, &y)?)?;
                vec![on(l, dl), on(r, dr)]
            }
        },
        // From the catalogue (`eval::grad::binary_partials`).
        Rem => return None,
        IntDiv | Eq | Ne | Lt | Le | Gt | Ge | And | Or | BitAnd | BitOr | Xor | Shl | Shr => {
            vec![None, None]
        }
        DotAdd | DotSub | DotMul | DotDiv | DotPow => return None,
    })
}

fn negate_value(v: &Value) -> Value {
    match parts(v) {
        Some((re, eps)) => negate(re, eps),
        None => v.clone(),
    }
}

/// The partials of a pure function by each argument, as duals, where an
/// argument is a dual (see [`binary_partials`]); `None` where the gradient
/// run has no rule on duals. (A function of one argument has its rule from
/// the catalogue, `eval::grad::pure_partials`.)
pub fn pure_partials(func: PureFn, args: &[Value]) -> Option<Vec<Option<Value>>> {
    use PureFn as P;
    let first = args.first()?;
    parts(first)?;
    let float = matches!(first, Value::F64(_) | Value::F32(_) | Value::Dual(..));
    match func {
        P::Identity | P::Value | P::Unwrap | P::Real | P::Conj | P::Float if args.len() == 1 => {
            Some(vec![float.then_some(constant(1.0))])
        }
        P::Sign | P::Floor | P::Ceil | P::Round | P::Zero | P::One | P::Length => {
            Some(vec![None; args.len()])
        }
        _ => None,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_constant_stays_a_constant_and_a_variable_carries_its_derivative() {
        let x = Value::Dual(0.5, 1.0);
        let Some(Ok(Value::Dual(re, eps))) = pure(PureFn::Sin, std::slice::from_ref(&x)) else {
            panic!("sin of a dual")
        };
        assert_eq!((re, eps), (0.5f64.sin(), 0.5f64.cos()));
        // sqrt of a constant 0: no `0 * inf`.
        let Some(Ok(v)) = pure(PureFn::Sqrt, &[Value::Dual(0.0, 0.0)]) else {
            panic!("sqrt of a dual")
        };
        assert_eq!(v, Value::Dual(0.0, 0.0));
        // x * 3 and x ^ 2 at 2 + ε.
        let x = Value::Dual(2.0, 1.0);
        assert_eq!(
            binary(BinaryOp::Mul, &x, &Value::int(3)),
            Ok(Value::Dual(6.0, 3.0))
        );
        assert_eq!(
            binary(BinaryOp::Pow, &x, &Value::int(2)),
            Ok(Value::Dual(4.0, 4.0))
        );
        assert_eq!(
            binary(BinaryOp::Lt, &x, &Value::F64(2.5)),
            Ok(Value::Bool(true))
        );
    }
}

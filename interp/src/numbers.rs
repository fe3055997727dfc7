//! The number systems (docs/language.md, "Number systems") on values:
//! `Fixed43`, `ULogarithmic<T>` and `Tropical<T>`, computed as the runtime
//! (`nilang::fixed`, `nilang::ulog`, `nilang::tropical`) and the Rust
//! backend's rewrites compute them, so that the interpreter and the
//! generated code give the same bits.
//!
//! - A `Fixed43` is the `fixed` crate's `I21F43`, the runtime's own type:
//!   sums, differences and products of intermediates wrap; conversions from
//!   floats round to the nearest and saturate (NaN is zero); `exp` and `log`
//!   are computed in `f64` and rounded.
//! - A log number holds its logarithm (an `f64`, `f32` or `Fixed43` value).
//!   The Rust backend writes every expression on log numbers as one on
//!   logarithms, `L(e)` (`codegen::numbers`): `L(a * b) = L(a) + L(b)`,
//!   `L(a + b) = logaddexp(L(a), L(b))`, `L(a ^ p) = p L(a)`, and for a real
//!   `r`, `L(r) = log(r)` computed in `r`'s own type and then converted to
//!   the logarithm's. [`binary`] computes each operator the same way.
//! - A tropical number holds its ordinary value: `*` adds values, `/`
//!   subtracts them and `+` is the maximum.
//!
//! In gradients a log number's adjoint is its logarithm's, a plain float;
//! fixed-point and tropical numbers carry none ([`ulog_partials`],
//! [`pure_partials`]).

pub use crate::value::Fixed43;
use crate::value::{Value, tropical_unit, ulog_unit, zero_of};
use nilang_analysis::ast::BinaryOp;
use nilang_analysis::builtins::PureFn;

/// `fixed(x)`: the nearest `Fixed43`, saturating; NaN is zero
/// (`nilang::fixed::from_f64`).
pub fn fixed_from_f64(x: f64) -> Fixed43 {
    if x.is_nan() {
        Fixed43::ZERO
    } else {
        Fixed43::saturating_from_num(x)
    }
}

/// The value of a `Fixed43` as an `f64` (exact).
pub fn fixed_to_f64(x: Fixed43) -> f64 {
    x.to_num::<f64>()
}

/// `exp` of a `Fixed43`, computed in `f64` and rounded (saturating).
pub fn fixed_exp(x: Fixed43) -> Fixed43 {
    fixed_from_f64(fixed_to_f64(x).exp())
}

/// `log` of a `Fixed43`, computed in `f64` and rounded (saturating).
pub fn fixed_ln(x: Fixed43) -> Fixed43 {
    fixed_from_f64(fixed_to_f64(x).ln())
}

/// `exp` or `log` (`log` when `ln`) of a `Fixed43` in a checked build: the
/// result, or the check's message when no `Fixed43` holds it
/// (`nilang::fixed::exp_at`, `ln_at`).
pub fn fixed_math_checked(x: Fixed43, ln: bool) -> Result<Fixed43, (String, String)> {
    let v = if ln {
        fixed_to_f64(x).ln()
    } else {
        fixed_to_f64(x).exp()
    };
    if v.is_finite() && v >= fixed_to_f64(Fixed43::MIN) && v <= fixed_to_f64(Fixed43::MAX) {
        Ok(fixed_from_f64(v))
    } else {
        let name = if ln { "log" } else { "exp" };
        Err((
            format!("a result within ±{}", Fixed43::MAX),
            format!("{name}({x}) = {v}"),
        ))
    }
}

/// `a + b` (or `a - b`) of an instruction on a `Fixed43` place in a checked
/// build: the sum, or the check's expected and found values
/// (`nilang::fixed::add`, `sub`).
pub fn fixed_update_checked(
    a: Fixed43,
    b: Fixed43,
    subtract: bool,
) -> Result<Fixed43, (String, String)> {
    let (r, op) = if subtract {
        (a.checked_sub(b), '-')
    } else {
        (a.checked_add(b), '+')
    };
    r.ok_or_else(|| {
        (
            format!("|{a} {op} {b}| < {}", Fixed43::MAX),
            format!("{a} {op} {b} overflows"),
        )
    })
}

/// The value as a `Fixed43` (`fixed(x)` and the conversion into a
/// fixed-point place), or `None` for what has no fixed-point value.
pub fn to_fixed(v: &Value) -> Option<Fixed43> {
    Some(match v {
        Value::Fixed(x) => *x,
        Value::Int(x, _) => Fixed43::saturating_from_num(*x),
        Value::Bool(b) => Fixed43::saturating_from_num(*b as i64),
        Value::F64(x) => fixed_from_f64(*x),
        Value::F32(x) => fixed_from_f64(*x as f64),
        Value::ULog(log) => to_fixed(&exp_of(log))?,
        _ => return None,
    })
}

/// Whether a value is one of the number systems.
#[inline]
pub fn is_number_system(v: &Value) -> bool {
    matches!(v, Value::Fixed(_) | Value::ULog(_) | Value::Tropical(_))
}

/// `exp(log)` in the logarithm's type: a log number's value
/// (`ULog::value`).
pub fn exp_of(log: &Value) -> Value {
    match log {
        Value::F64(x) => Value::F64(x.exp()),
        Value::F32(x) => Value::F32(x.exp()),
        Value::Fixed(x) => Value::Fixed(fixed_exp(*x)),
        v => v.clone(),
    }
}

/// `ln(x)` in `x`'s own type (an integer as an `f64`): `L(x)` of a real
/// before it meets a logarithm.
fn ln_of(x: &Value) -> Result<Value, String> {
    Ok(match x {
        Value::F64(x) => Value::F64(x.ln()),
        Value::F32(x) => Value::F32(x.ln()),
        Value::Int(x, _) => Value::F64((*x as f64).ln()),
        Value::Fixed(x) => Value::Fixed(fixed_ln(*x)),
        v => return Err(format!("the logarithm of {}", v.kind_name())),
    })
}

/// `v` in the type of `like` (an `f64`, `f32` or `Fixed43`): of a
/// logarithm, or of a tropical number's value.
fn in_type_of(v: Value, like: &Value) -> Result<Value, String> {
    Ok(match (like, &v) {
        (Value::Fixed(_), _) => {
            Value::Fixed(to_fixed(&v).ok_or_else(|| format!("{} as a `Fixed43`", v.kind_name()))?)
        }
        (Value::F64(_), Value::Fixed(x)) => Value::F64(fixed_to_f64(*x)),
        (Value::F32(_), Value::Fixed(x)) => Value::F32(fixed_to_f64(*x) as f32),
        (Value::F64(_), _) => Value::F64(
            v.as_f64()
                .ok_or_else(|| format!("{} as an `f64`", v.kind_name()))?,
        ),
        (Value::F32(_), _) => Value::F32(
            v.as_f64()
                .ok_or_else(|| format!("{} as an `f32`", v.kind_name()))? as f32,
        ),
        _ => v,
    })
}

/// `L(v)`: the logarithm of `v` in the type of the logarithm `like`.
pub fn log_of(v: &Value, like: &Value) -> Result<Value, String> {
    match v {
        Value::ULog(log) => in_type_of((**log).clone(), like),
        v => in_type_of(ln_of(v)?, like),
    }
}

/// The log number of the value `x` with a logarithm of `like`'s type
/// (`ULog::from_value` of `x` converted to that type).
pub fn ulog_of(x: &Value, like: &Value) -> Result<Value, String> {
    match x {
        Value::ULog(_) => Ok(x.clone()),
        x => Ok(Value::ULog(Box::new(ln_of(&in_type_of(x.clone(), like)?)?))),
    }
}

/// `ulog(x)`: the logarithm's type is `x`'s float type, `Fixed43` for a
/// fixed-point `x`, else `f64`.
pub fn ulog(x: &Value) -> Result<Value, String> {
    let like = match x {
        Value::F32(_) => Value::F32(0.0),
        Value::Fixed(_) => Value::Fixed(Fixed43::ZERO),
        _ => Value::F64(0.0),
    };
    ulog_of(x, &like)
}

/// `tropical(x)`: the value in `x`'s float type, else `f64`.
pub fn tropical(x: &Value) -> Result<Value, String> {
    Ok(match x {
        Value::Tropical(_) => x.clone(),
        Value::F32(_) | Value::F64(_) => Value::Tropical(Box::new(x.clone())),
        x => Value::Tropical(Box::new(Value::F64(
            x.as_f64()
                .ok_or_else(|| format!("{} as a tropical number", x.kind_name()))?,
        ))),
    })
}

/// `zero(x)` (`one(x)` when `one`) of a fixed-point, log or tropical
/// number or of its type (`zero(Fixed43)`, `one(ULogarithmic{T})`);
/// `None` for any other argument.
pub fn unit_of(x: &Value, one: bool) -> Option<Value> {
    let v = match x {
        Value::Type(t) => zero_of(t)?,
        v => v.clone(),
    };
    Some(match &v {
        Value::Fixed(_) => Value::Fixed(if one { Fixed43::ONE } else { Fixed43::ZERO }),
        Value::ULog(log) => ulog_unit(log, one),
        Value::Tropical(n) => tropical_unit(n, one),
        _ => return None,
    })
}

/// `float(x)`: a fixed-point number's value as an `f64`, a log number's
/// value in its logarithm's type, a tropical number's value.
pub fn float(x: &Value) -> Value {
    match x {
        Value::Fixed(v) => Value::F64(fixed_to_f64(*v)),
        // `exp` of the logarithm in its own type, then a float of that (a
        // `Fixed43` logarithm's exponential is a `Fixed43`): the generated
        // `to_f64(exp_at(…))`.
        Value::ULog(log) => float(&exp_of(log)),
        Value::Tropical(n) => (**n).clone(),
        Value::Int(v, _) => Value::F64(*v as f64),
        v => v.clone(),
    }
}

/// `logaddexp` (or `logsubexp` when `sub`) of two logarithms of one type,
/// as the runtime computes them (`nilang::ulog`; over `Fixed43`, in `f64`
/// and rounded).
pub fn gaussian(a: &Value, b: &Value, sub: bool) -> Result<Value, String> {
    Ok(match (a, b) {
        (Value::Fixed(x), Value::Fixed(y)) => Value::Fixed(fixed_from_f64(gauss(
            sub,
            fixed_to_f64(*x),
            fixed_to_f64(*y),
        ))),
        (Value::F32(x), Value::F32(y)) => Value::F32(gauss(sub, *x, *y)),
        (a, b) => match (a.as_f64(), b.as_f64()) {
            (Some(x), Some(y)) => Value::F64(gauss(sub, x, y)),
            _ => {
                return Err(format!(
                    "`{}` of {} and {}",
                    if sub { "logsubexp" } else { "logaddexp" },
                    a.kind_name(),
                    b.kind_name()
                ));
            }
        },
    })
}

/// [`logsubexp`] when `sub`, else [`logaddexp`].
pub fn gauss<F: num_traits::Float>(sub: bool, a: F, b: F) -> F {
    if sub {
        logsubexp(a, b)
    } else {
        logaddexp(a, b)
    }
}

/// `ln(e^a + e^b)` without overflow (`nilang::ulog::logaddexp`).
pub fn logaddexp<F: num_traits::Float>(a: F, b: F) -> F {
    let (hi, lo) = if a >= b { (a, b) } else { (b, a) };
    if lo == F::neg_infinity() {
        return hi;
    }
    hi + (lo - hi).exp().ln_1p()
}

/// `ln(e^a - e^b)` for `a >= b` (`nilang::ulog::logsubexp`).
pub fn logsubexp<F: num_traits::Float>(a: F, b: F) -> F {
    if b == F::neg_infinity() {
        return a;
    }
    a + (-(b - a).exp_m1()).ln()
}

/// `a op b` when either is a fixed-point, log or tropical number (`None`
/// otherwise): a log number meets anything as a log number, then a
/// tropical number as a tropical one, then a `Fixed43` as a `Fixed43`
/// (the analysis's `promote`).
pub fn binary(op: BinaryOp, a: &Value, b: &Value) -> Option<Result<Value, String>> {
    let result = match (a, b) {
        (Value::ULog(log), _) | (_, Value::ULog(log)) => ulog_binary(op, a, b, log),
        (Value::Tropical(n), _) | (_, Value::Tropical(n)) => tropical_binary(op, a, b, n),
        (Value::Fixed(_), _) | (_, Value::Fixed(_)) => fixed_binary(op, a, b),
        _ => return None,
    };
    Some(result)
}

fn unsupported(op: BinaryOp, a: &Value, b: &Value) -> String {
    format!(
        "`{}` of {} and {}",
        op.as_str(),
        a.kind_name(),
        b.kind_name()
    )
}

/// `p op q` for a comparison operator (`None` for any other), in any
/// ordered type: the one definition of the six comparisons.
pub fn order<T: PartialOrd>(op: BinaryOp, p: T, q: T) -> Option<bool> {
    use BinaryOp::*;
    Some(match op {
        Eq => p == q,
        Ne => p != q,
        Lt => p < q,
        Le => p <= q,
        Gt => p > q,
        Ge => p >= q,
        _ => return None,
    })
}

fn compare<T: PartialOrd>(op: BinaryOp, p: T, q: T) -> Option<Value> {
    order(op, p, q).map(Value::Bool)
}

fn fixed_binary(op: BinaryOp, a: &Value, b: &Value) -> Result<Value, String> {
    use BinaryOp::*;
    let (Some(p), Some(q)) = (to_fixed(a), to_fixed(b)) else {
        return Err(unsupported(op, a, b));
    };
    // Intermediates wrap, as the generated code's `wrapping_*`.
    Ok(match op {
        Add => Value::Fixed(p.wrapping_add(q)),
        Sub => Value::Fixed(p.wrapping_sub(q)),
        Mul => Value::Fixed(p.wrapping_mul(q)),
        _ => return compare(op, p, q).ok_or_else(|| unsupported(op, a, b)),
    })
}

/// The arithmetic of the logarithms (`f64`, `f32` or `Fixed43`) that
/// `L(e)` is written in.
fn log_arith(op: BinaryOp, p: &Value, q: &Value) -> Result<Value, String> {
    match (p, q) {
        (Value::Fixed(_), _) | (_, Value::Fixed(_)) => fixed_binary(op, p, q),
        _ => float_arith(op, p, q),
    }
}

/// `p op q` (`+`, `-`, `*`, `/`) of two floats, in `f32` when both are
/// (what `crate::ops::binary` gives; the number systems' logarithms and
/// values are always of one type).
fn float_arith(op: BinaryOp, p: &Value, q: &Value) -> Result<Value, String> {
    use BinaryOp::*;
    fn apply<F: num_traits::Float>(op: BinaryOp, a: F, b: F) -> Option<F> {
        Some(match op {
            Add => a + b,
            Sub => a - b,
            Mul => a * b,
            Div => a / b,
            _ => return None,
        })
    }
    let r = match (p, q) {
        (Value::F32(a), Value::F32(b)) => apply(op, *a, *b).map(Value::F32),
        _ => match (p.as_f64(), q.as_f64()) {
            (Some(a), Some(b)) => apply(op, a, b).map(Value::F64),
            _ => None,
        },
    };
    r.ok_or_else(|| unsupported(op, p, q))
}

fn ulog_binary(op: BinaryOp, a: &Value, b: &Value, like: &Value) -> Result<Value, String> {
    use BinaryOp::*;
    if op == Pow {
        // `L(x ^ p) = p L(x)`, `p` a real.
        let Value::ULog(log) = a else {
            return Err(unsupported(op, a, b));
        };
        let p = in_type_of(b.clone(), log)?;
        return Ok(Value::ULog(Box::new(log_arith(Mul, &p, log)?)));
    }
    let (p, q) = (log_of(a, like)?, log_of(b, like)?);
    let log = match op {
        Mul => log_arith(Add, &p, &q)?,
        Div => log_arith(Sub, &p, &q)?,
        Add => gaussian(&p, &q, false)?,
        Sub => gaussian(&p, &q, true)?,
        _ => {
            return match (&p, &q) {
                (Value::Fixed(x), Value::Fixed(y)) => compare(op, *x, *y),
                _ => compare(op, p.as_f64(), q.as_f64()),
            }
            .ok_or_else(|| unsupported(op, a, b));
        }
    };
    Ok(Value::ULog(Box::new(log)))
}

fn tropical_binary(op: BinaryOp, a: &Value, b: &Value, like: &Value) -> Result<Value, String> {
    use BinaryOp::*;
    let value = |v: &Value| -> Result<Value, String> {
        match v {
            Value::Tropical(n) => Ok((**n).clone()),
            v => in_type_of(v.clone(), like),
        }
    };
    let (p, q) = (value(a)?, value(b)?);
    let n = match op {
        Mul => float_arith(Add, &p, &q)?,
        Div => float_arith(Sub, &p, &q)?,
        // The maximum, the left one where they are equal (`Tropical::add`).
        Add => {
            if q.as_f64() > p.as_f64() {
                q
            } else {
                p
            }
        }
        _ => {
            return compare(op, p.as_f64(), q.as_f64()).ok_or_else(|| unsupported(op, a, b));
        }
    };
    Ok(Value::Tropical(Box::new(n)))
}

/// `v` converted into a place holding `like`, when `like` is a number
/// system (`None` otherwise): the generated code's conversions
/// (`codegen::kinds::convert`). Out of a number system into a real place,
/// [`plain`] gives the real that is then converted.
pub fn convert(v: &Value, like: &Value) -> Option<Result<Value, String>> {
    let result = match (like, v) {
        (Value::Fixed(_), Value::Fixed(_)) => Ok(v.clone()),
        (Value::ULog(like), Value::ULog(log)) => {
            in_type_of((**log).clone(), like).map(|l| Value::ULog(Box::new(l)))
        }
        (Value::Tropical(like), Value::Tropical(n)) => {
            in_type_of((**n).clone(), like).map(|n| Value::Tropical(Box::new(n)))
        }
        (Value::Fixed(_), v) => to_fixed(v)
            .map(Value::Fixed)
            .ok_or_else(|| format!("{} into a `Fixed43`", v.kind_name())),
        (Value::ULog(log), v) => ulog_of(v, log),
        (Value::Tropical(n), v) => in_type_of(v.clone(), n).map(|n| Value::Tropical(Box::new(n))),
        _ => return None,
    };
    Some(result)
}

/// A fixed-point, log or tropical number as the real it stands for (a
/// `Fixed43`'s value as an `f64`, a log number's value, a tropical
/// number's value), to be converted into a real place; `None` for a value
/// of no number system.
pub fn plain(v: &Value) -> Option<Value> {
    Some(match v {
        Value::Fixed(x) => Value::F64(fixed_to_f64(*x)),
        Value::ULog(log) => exp_of(log),
        Value::Tropical(n) => (**n).clone(),
        _ => return None,
    })
}

/// The partials of `a op b` by each operand when either is a log number,
/// in the logarithms (the adjoint of a log number is its logarithm's; a
/// real operand `r` enters through `log(r)`, whose derivative is `1/r`);
/// `None` for an operand without a derivative (an integer, a `Fixed43`
/// logarithm). `None` overall when neither is a log number.
pub fn ulog_partials(op: BinaryOp, a: &Value, b: &Value) -> Option<Vec<Option<Value>>> {
    use BinaryOp::*;
    let like = match (a, b) {
        (Value::ULog(log), _) | (_, Value::ULog(log)) => log,
        _ => return None,
    };
    // Comparisons, and logarithms in fixed point, carry no derivative.
    if matches!(op, Eq | Ne | Lt | Le | Gt | Ge) || matches!(**like, Value::Fixed(_)) {
        return Some(vec![None, None]);
    }
    let log = |v: &Value| match v {
        Value::ULog(l) => l.as_f64(),
        v => v.as_f64().map(f64::ln),
    };
    // `∂L(v)/∂v`: 1 in the logarithm for a log number, `1/r` for a real.
    let inner = |v: &Value| match v {
        Value::ULog(l) if matches!(**l, Value::F64(_) | Value::F32(_)) => Some(1.0),
        Value::F64(r) => Some(1.0 / r),
        Value::F32(r) => Some(1.0 / *r as f64),
        _ => None,
    };
    let like_f = |x: f64| match **like {
        Value::F32(_) => Value::F32(x as f32),
        _ => Value::F64(x),
    };
    let (la, lb) = (log(a)?, log(b)?);
    let (da, db) = match op {
        Mul => (1.0, 1.0),
        Div => (1.0, -1.0),
        Add | Sub => {
            let n = gauss(op == Sub, la, lb);
            let db = (lb - n).exp();
            ((la - n).exp(), if op == Add { db } else { -db })
        }
        Pow => {
            // `p L(a)`: `p` by `L(a)`, `L(a)` by a float `p`.
            let p = b.as_f64()?;
            let dp = matches!(b, Value::F64(_) | Value::F32(_)).then(|| like_f(la));
            return Some(vec![
                matches!(a, Value::ULog(l) if matches!(**l, Value::F64(_) | Value::F32(_)))
                    .then(|| like_f(p)),
                dp,
            ]);
        }
        _ => return None,
    };
    Some(vec![
        inner(a).map(|d| like_f(da * d)),
        inner(b).map(|d| like_f(db * d)),
    ])
}

/// The partials of a pure function by each argument when an argument is a
/// fixed-point, log or tropical number (`None` otherwise): a log number's
/// value `float(u) = exp(u.log)` by its logarithm, `ulog(x)`'s logarithm
/// `log(x)` by a float `x`; nothing else carries a derivative.
pub fn pure_partials(func: PureFn, args: &[Value]) -> Option<Option<Vec<Option<Value>>>> {
    use PureFn as P;
    let float_log = |l: &Value| matches!(l, Value::F64(_) | Value::F32(_));
    let partial = match (func, args) {
        (P::Float, [Value::ULog(l)]) if float_log(l) => Some(exp_of(l)),
        (P::Identity | P::Value | P::Unwrap, [Value::ULog(l)]) if float_log(l) => {
            Some(in_type_of(Value::F64(1.0), l).ok()?)
        }
        (P::Ulog, [x @ (Value::F64(_) | Value::F32(_))]) => {
            Some(float_arith(BinaryOp::Div, &in_type_of(Value::F64(1.0), x).ok()?, x).ok()?)
        }
        (P::Ulog | P::Fixed | P::Tropical, [_]) => None,
        (_, args) if args.iter().any(is_number_system) => {
            return Some(Some(vec![None; args.len()]));
        }
        _ => return None,
    };
    Some(Some(vec![partial]))
}

/// The adjoint `cot` of a log number's logarithm sent to the value `v` it
/// was made from: unchanged to a log number, `cot / r` to a real `r`
/// (whose logarithm it is).
pub fn through_log(cot: Value, v: &Value) -> Value {
    match v {
        Value::F64(_) | Value::F32(_) => float_arith(BinaryOp::Div, &cot, v).unwrap_or(cot),
        _ => cot,
    }
}

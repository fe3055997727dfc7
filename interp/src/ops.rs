//! Arithmetic on values: the operators, the instructions' updates and the
//! conversion of a value to the type of the place it is written to.
//!
//! Numbers promote as in Julia: two integers stay an integer (of the wider
//! type), an integer meets a float as that float, `f32` meets `f64` as
//! `f64`, and a real meets a complex number as a complex one. `/` of two
//! integers is a float, `÷` truncates, `%` keeps the dividend's sign.

use crate::value::{Value, wrap};
use nilang_analysis::ast::{BinaryOp, UnaryOp};
use nilang_analysis::ty::Scalar;

/// A number, lifted to the common type of an operation.
#[derive(Clone, Copy, Debug, PartialEq)]
pub enum Num {
    Int(i64, Scalar),
    F32(f32),
    F64(f64),
    Complex(f64, f64),
}

impl Num {
    pub fn of(v: &Value) -> Option<Num> {
        Some(match v {
            Value::Int(x, s) => Num::Int(*x, *s),
            Value::Bool(b) => Num::Int(*b as i64, Scalar::Bool),
            Value::F32(x) => Num::F32(*x),
            Value::F64(x) => Num::F64(*x),
            Value::Complex(re, im) => Num::Complex(*re, *im),
            _ => return None,
        })
    }

    fn rank(self) -> u8 {
        match self {
            Num::Int(..) => 0,
            Num::F32(_) => 1,
            Num::F64(_) => 2,
            Num::Complex(..) => 3,
        }
    }

    fn f64(self) -> f64 {
        match self {
            Num::Int(x, _) => x as f64,
            Num::F32(x) => x as f64,
            Num::F64(x) => x,
            Num::Complex(re, _) => re,
        }
    }

    fn complex(self) -> (f64, f64) {
        match self {
            Num::Complex(re, im) => (re, im),
            n => (n.f64(), 0.0),
        }
    }

    pub fn value(self) -> Value {
        match self {
            Num::Int(x, Scalar::Bool) => Value::Bool(x != 0),
            Num::Int(x, s) => Value::Int(wrap(x, s), s),
            Num::F32(x) => Value::F32(x),
            Num::F64(x) => Value::F64(x),
            Num::Complex(re, im) => Value::Complex(re, im),
        }
    }
}

/// The integer type two integer types meet as.
fn wider(a: Scalar, b: Scalar) -> Scalar {
    let size = |s: Scalar| match s {
        Scalar::Bool => 0,
        Scalar::I8 | Scalar::U8 => 1,
        Scalar::I16 | Scalar::U16 => 2,
        Scalar::I32 | Scalar::U32 => 3,
        _ => 4,
    };
    match (a, b) {
        (Scalar::Bool, Scalar::Bool) => Scalar::I64,
        _ if size(a) >= size(b) => a,
        _ => b,
    }
}

fn cmul(a: (f64, f64), b: (f64, f64)) -> (f64, f64) {
    (a.0 * b.0 - a.1 * b.1, a.0 * b.1 + a.1 * b.0)
}

/// `|z|` as the runtime computes it (`nilang::complex::abs`): the larger
/// part times `sqrt(1 + r²)`, `r` the ratio of the smaller to it, so the
/// two agree to the bit.
pub(crate) fn cabs(re: f64, im: f64) -> f64 {
    let (a, b) = (re.abs(), im.abs());
    let (big, small) = if a >= b { (a, b) } else { (b, a) };
    if big == 0.0 {
        return big;
    }
    let r = small / big;
    big * (1.0 + r * r).sqrt()
}

/// `z^n` by repeated squaring, of `1/z` for a negative `n`.
fn cpowi(z: (f64, f64), n: i64) -> (f64, f64) {
    let mut base = if n < 0 {
        let d = z.0 * z.0 + z.1 * z.1;
        (z.0 / d, -z.1 / d)
    } else {
        z
    };
    let mut n = n.unsigned_abs();
    let mut acc = (1.0, 0.0);
    while n > 0 {
        if n & 1 == 1 {
            acc = cmul(acc, base);
        }
        base = cmul(base, base);
        n >>= 1;
    }
    acc
}

fn cdiv(a: (f64, f64), b: (f64, f64)) -> (f64, f64) {
    let d = b.0 * b.0 + b.1 * b.1;
    ((a.0 * b.0 + a.1 * b.1) / d, (a.1 * b.0 - a.0 * b.1) / d)
}

/// `a op b` for numbers, or why not.
/// [`binary`] of two `f64`s or two `i64`s, the most frequent operands,
/// without its promotion (`None` for any other operands or operator, which
/// [`binary`] then computes). Gives what [`binary`] gives.
#[inline(always)]
pub fn binary_fast(op: BinaryOp, a: &Value, b: &Value) -> Option<Value> {
    use BinaryOp::*;
    Some(match (a, b) {
        (Value::F64(p), Value::F64(q)) => match op {
            Add => Value::F64(p + q),
            Sub => Value::F64(p - q),
            Mul => Value::F64(p * q),
            Div => Value::F64(p / q),
            Lt => Value::Bool(p < q),
            Le => Value::Bool(p <= q),
            Gt => Value::Bool(p > q),
            Ge => Value::Bool(p >= q),
            _ => return None,
        },
        (Value::Int(p, Scalar::I64), Value::Int(q, Scalar::I64)) => match op {
            Add => Value::int(p.wrapping_add(*q)),
            Sub => Value::int(p.wrapping_sub(*q)),
            Mul => Value::int(p.wrapping_mul(*q)),
            Eq => Value::Bool(p == q),
            Ne => Value::Bool(p != q),
            Lt => Value::Bool(p < q),
            Le => Value::Bool(p <= q),
            Gt => Value::Bool(p > q),
            Ge => Value::Bool(p >= q),
            _ => return None,
        },
        _ => return None,
    })
}

/// [`binary`] of an `i64` and an `f64` (either way round) under `+`, `-`,
/// `*` and `/`, and of an `f64` to an `i64` or `f64` power: computed in
/// `f64`, as [`binary`] promotes them (`k * x` with a counter `k`, `x ^ 2`).
/// `None` for anything else. Not for an update (`updated`), whose result
/// keeps the place's type.
#[inline(always)]
pub fn binary_promoted(op: BinaryOp, a: &Value, b: &Value) -> Option<Value> {
    use BinaryOp::*;
    let (p, q) = match (a, b) {
        (Value::F64(p), Value::Int(q, Scalar::I64)) if op == Pow => {
            return Some(Value::F64(match i32::try_from(*q) {
                Ok(n) => p.powi(n),
                Err(_) => p.powf(*q as f64),
            }));
        }
        (Value::F64(p), Value::F64(q)) if op == Pow => return Some(Value::F64(p.powf(*q))),
        (Value::Int(p, Scalar::I64), Value::F64(q)) => (*p as f64, *q),
        (Value::F64(p), Value::Int(q, Scalar::I64)) => (*p, *q as f64),
        _ => return None,
    };
    Some(Value::F64(match op {
        Add => p + q,
        Sub => p - q,
        Mul => p * q,
        Div => p / q,
        _ => return None,
    }))
}

pub fn binary(op: BinaryOp, a: &Value, b: &Value) -> Result<Value, String> {
    use BinaryOp::*;
    if let (Or | And, Value::Bool(x), Value::Bool(y)) = (op, a, b) {
        return Ok(Value::Bool(if op == Or { *x || *y } else { *x && *y }));
    }
    if matches!(a, Value::Dual(..)) || matches!(b, Value::Dual(..)) {
        return crate::dual::binary(op, a, b);
    }
    let (Some(x), Some(y)) = (Num::of(a), Num::of(b)) else {
        if let Some(v) = crate::numbers::binary(op.scalar(), a, b) {
            return v;
        }
        return Err(format!(
            "`{}` of {} and {}",
            op.as_str(),
            a.kind_name(),
            b.kind_name()
        ));
    };
    let op = op.scalar();
    if matches!(op, Eq | Ne | Lt | Le | Gt | Ge) {
        return compare(op, x, y).map(Value::Bool);
    }
    let rank = x.rank().max(y.rank());
    let out = match rank {
        0 => {
            let (Num::Int(p, s), Num::Int(q, t)) = (x, y) else {
                unreachable!("rank 0 is two integers")
            };
            let s = wider(s, t);
            let int = |v: Option<i64>| match v {
                Some(v) => Ok(Num::Int(v, s)),
                None => Err(format!("integer `{}` of {p} and {q}", op.as_str())),
            };
            match op {
                Add => int(Some(p.wrapping_add(q)))?,
                Sub => int(Some(p.wrapping_sub(q)))?,
                Mul => int(Some(p.wrapping_mul(q)))?,
                Div => Num::F64(p as f64 / q as f64),
                IntDiv => int(p.checked_div(q))?,
                Rem => int(p.checked_rem(q))?,
                BitAnd => int(Some(p & q))?,
                BitOr => int(Some(p | q))?,
                Xor => int(Some(p ^ q))?,
                Shl => int(u32::try_from(q).ok().and_then(|q| p.checked_shl(q)))?,
                Shr => int(u32::try_from(q).ok().and_then(|q| p.checked_shr(q)))?,
                Pow => match u32::try_from(q) {
                    Ok(q) => int(Some(p.wrapping_pow(q)))?,
                    Err(_) => Num::F64((p as f64).powf(q as f64)),
                },
                _ => return Err(format!("`{}` of integers", op.as_str())),
            }
        }
        1 | 2 => {
            // An integer power is `powi`, as the generated Rust writes it.
            let n = match y {
                Num::Int(n, _) => i32::try_from(n).ok(),
                _ => None,
            };
            let unsupported = || format!("`{}` of floats", op.as_str());
            if rank == 1 {
                // Both `f32` (or an integer and an `f32`): computed in `f32`
                // as the generated Rust does.
                let (p, q) = (x.f64() as f32, y.f64() as f32);
                Num::F32(float_op(op, p, q, n).ok_or_else(unsupported)?)
            } else {
                Num::F64(float_op(op, x.f64(), y.f64(), n).ok_or_else(unsupported)?)
            }
        }
        _ => {
            let (p, q) = (x.complex(), y.complex());
            let (re, im) = match op {
                Add => (p.0 + q.0, p.1 + q.1),
                Sub => (p.0 - q.0, p.1 - q.1),
                Mul => cmul(p, q),
                Div => cdiv(p, q),
                // As the runtime computes them (`nilang::complex::powi`,
                // `powc`), so that the bits are the generated code's.
                Pow => match y {
                    Num::Int(n, _) => cpowi(p, n),
                    // z^w = exp(w ln z), and 0^w = 0.
                    _ if p == (0.0, 0.0) => p,
                    _ => {
                        let l = (cabs(p.0, p.1).ln(), p.1.atan2(p.0));
                        let e = cmul(q, l);
                        let r = e.0.exp();
                        (r * e.1.cos(), r * e.1.sin())
                    }
                },
                _ => return Err(format!("`{}` of complex numbers", op.as_str())),
            };
            Num::Complex(re, im)
        }
    };
    Ok(out.value())
}

/// To the nearest integer, a tie to the even one (`round_ties_even` for
/// any float type: half of `x` is exact, so `2 round(x / 2)` is the even
/// neighbour of a tie).
fn round_ties_even<F: num_traits::Float>(x: F) -> F {
    let half = F::from(0.5).expect("one half is a float");
    if (x - x.trunc()).abs() == half {
        (x * half).round() / half
    } else {
        x.round()
    }
}

/// `p op q` in one float type; `n` the exponent when it is an integer.
fn float_op<F: num_traits::Float>(op: BinaryOp, p: F, q: F, n: Option<i32>) -> Option<F> {
    use BinaryOp::*;
    Some(match op {
        Add => p + q,
        Sub => p - q,
        Mul => p * q,
        Div => p / q,
        // Julia's `div`: round((p - rem(p, q)) / q), ties to even
        // (`nilang::div`).
        IntDiv => round_ties_even((p - p % q) / q),
        Rem => p % q,
        Pow => match n {
            Some(n) => p.powi(n),
            None => p.powf(q),
        },
        _ => return None,
    })
}

fn compare(op: BinaryOp, x: Num, y: Num) -> Result<bool, String> {
    let not_comparison = || format!("`{}` is no comparison", op.as_str());
    if let (Num::Int(p, _), Num::Int(q, _)) = (x, y) {
        return crate::numbers::order(op, p, q).ok_or_else(not_comparison);
    }
    if x.rank() == 3 || y.rank() == 3 {
        let (p, q) = (x.complex(), y.complex());
        return match op {
            BinaryOp::Eq => Ok(p == q),
            BinaryOp::Ne => Ok(p != q),
            _ => Err("an order comparison of complex numbers".into()),
        };
    }
    crate::numbers::order(op, x.f64(), y.f64()).ok_or_else(not_comparison)
}

pub fn unary(op: UnaryOp, v: &Value) -> Result<Value, String> {
    match (op, v) {
        (UnaryOp::Plus, v) => Ok(v.clone()),
        (UnaryOp::Not, Value::Bool(b)) => Ok(Value::Bool(!b)),
        (UnaryOp::Not, Value::Int(x, s)) => Ok(Value::Int(wrap(!x, *s), *s)),
        (UnaryOp::Neg, v) => negate(v),
        (_, v) => Err(format!("`!` of {}", v.kind_name())),
    }
}

pub fn negate(v: &Value) -> Result<Value, String> {
    Ok(match v {
        Value::F64(x) => Value::F64(-x),
        Value::F32(x) => Value::F32(-x),
        Value::Int(x, s) => Value::Int(wrap(x.wrapping_neg(), *s), *s),
        Value::Complex(re, im) => Value::Complex(-re, -im),
        Value::Dual(re, eps) => crate::dual::negate(*re, *eps),
        Value::Fixed(x) => Value::Fixed(x.wrapping_neg()),
        v => return Err(format!("`-` of {}", v.kind_name())),
    })
}

/// `v` as a value of `like`'s type: what writing `v` into a place holding
/// `like` stores (the generated code's conversion to the place's type).
pub fn convert(v: Value, like: &Value) -> Result<Value, String> {
    if crate::numbers::is_number_system(like) || crate::numbers::is_number_system(&v) {
        if let Some(r) = crate::numbers::convert(&v, like) {
            return r;
        }
        if let Some(real) = crate::numbers::plain(&v) {
            return convert(real, like);
        }
    }
    Ok(match (like, &v) {
        // Into a place of the float type while `f` runs on duals: a
        // number is a constant (`T::from`).
        (Value::Dual(..), Value::Dual(..)) => v,
        (Value::Dual(..), _) => match crate::dual::parts(&v) {
            Some((x, _)) => Value::Dual(x, 0.0),
            None => return Err(format!("{} into a dual number", v.kind_name())),
        },
        (Value::Int(_, s), Value::Dual(x, _)) => Value::Int(wrap(*x as i64, *s), *s),
        (Value::F64(_), _) => match v {
            Value::F64(_) => v,
            _ => Value::F64(
                v.as_f64()
                    .ok_or_else(|| format!("{} into an `f64`", v.kind_name()))?,
            ),
        },
        (Value::F32(_), _) => match v {
            Value::F32(_) => v,
            _ => Value::F32(
                v.as_f64()
                    .ok_or_else(|| format!("{} into an `f32`", v.kind_name()))?
                    as f32,
            ),
        },
        (Value::Int(_, s), Value::Int(x, _)) => Value::Int(wrap(*x, *s), *s),
        (Value::Int(_, s), Value::Bool(b)) => Value::Int(*b as i64, *s),
        (Value::Int(_, s), Value::F64(x)) => Value::Int(wrap(*x as i64, *s), *s),
        (Value::Int(_, s), Value::F32(x)) => Value::Int(wrap(*x as i64, *s), *s),
        (Value::Complex(..), Value::Complex(..)) => v,
        (Value::Complex(..), _) => match v.as_f64() {
            Some(x) => Value::Complex(x, 0.0),
            None => return Err(format!("{} into a complex number", v.kind_name())),
        },
        (Value::Bool(_), Value::Bool(_)) => v,
        (Value::Bool(_), Value::Int(x, _)) => Value::Bool(*x != 0),
        _ => v,
    })
}

/// Equality as the run-time checks see it: within `atol` for floats,
/// exact otherwise, element by element for arrays (`nilang::CheckEq`).
pub fn check_eq(a: &Value, b: &Value, atol: f64) -> bool {
    match (a, b) {
        (Value::Array(x), Value::Array(y)) | (Value::Tuple(x), Value::Tuple(y)) => {
            x.len() == y.len() && x.iter().zip(y.iter()).all(|(p, q)| check_eq(p, q, atol))
        }
        (
            Value::Matrix {
                rows: r1, data: x, ..
            },
            Value::Matrix {
                rows: r2, data: y, ..
            },
        ) => {
            r1 == r2
                && x.len() == y.len()
                && x.iter().zip(y.iter()).all(|(p, q)| check_eq(p, q, atol))
        }
        (Value::Stack(x, _), Value::Stack(y, _)) => {
            x.len() == y.len() && x.iter().zip(y.iter()).all(|(p, q)| check_eq(p, q, atol))
        }
        (Value::Struct { fields: x, .. }, Value::Struct { fields: y, .. }) => {
            x.len() == y.len()
                && x.iter()
                    .zip(y.iter())
                    .all(|((_, p), (_, q))| check_eq(p, q, atol))
        }
        (Value::Bool(p), Value::Bool(q)) => p == q,
        (Value::Int(p, _), Value::Int(q, _)) => p == q,
        // A log number by its logarithm, a tropical one by its value
        // (`nilang::CheckEq`); a `Fixed43` exactly.
        (Value::ULog(x), Value::ULog(y)) => check_eq(x, y, atol),
        (Value::Tropical(x), Value::Tropical(y)) => check_eq(x, y, atol),
        (Value::Fixed(x), Value::Fixed(y)) => x == y,
        // Both parts, as `Real::approx_eq` of a `Dual`.
        (Value::Dual(..), _) | (_, Value::Dual(..)) => {
            match (crate::dual::parts(a), crate::dual::parts(b)) {
                (Some(x), Some(y)) => approx(x.0, y.0, atol) && approx(x.1, y.1, atol),
                _ => false,
            }
        }
        _ => match (Num::of(a), Num::of(b)) {
            (Some(x), Some(y)) => {
                let (p, q) = (x.complex(), y.complex());
                approx(p.0, q.0, atol) && approx(p.1, q.1, atol)
            }
            _ => a == b,
        },
    }
}

/// Whether two values are the same within `atol` (floats) and exactly
/// otherwise: what `check_inv` asks of arguments that came back. A value
/// that prints as it was given came back too: a NaN argument restored to
/// NaN, which [`check_eq`] (the deallocation check's comparison, where a
/// NaN ancilla is not zero) finds unequal to itself.
pub fn same(a: &Value, b: &Value, atol: f64) -> bool {
    check_eq(a, b, atol) || a.to_string() == b.to_string()
}

pub(crate) fn approx(a: f64, b: f64, atol: f64) -> bool {
    a == b || (a - b).abs() <= atol
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_nan_that_came_back_is_the_same() {
        let nan = Value::Array(std::rc::Rc::new(vec![
            Value::F64(f64::NAN),
            Value::F64(1.0),
        ]));
        assert!(same(&nan, &nan.clone(), 1e-8));
        assert!(!check_eq(&nan, &nan.clone(), 1e-8));
        assert!(!same(&Value::F64(f64::NAN), &Value::F64(1.0), 1e-8));
    }

    /// The fast path gives what the general one gives, on the values where
    /// rounding, overflow, signed zeros and NaN differ.
    #[test]
    fn binary_fast_agrees_with_binary() {
        use BinaryOp::*;
        let floats = [
            0.0,
            -0.0,
            1.5,
            -2.25,
            1e308,
            -1e-308,
            f64::INFINITY,
            f64::NAN,
        ];
        let ints = [0, 1, -7, 3, i64::MAX, i64::MIN];
        let values: Vec<Value> = floats
            .iter()
            .map(|&x| Value::F64(x))
            .chain(ints.iter().map(|&n| Value::int(n)))
            .collect();
        let ops = [Add, Sub, Mul, Div, Eq, Ne, Lt, Le, Gt, Ge, Pow, IntDiv, Rem];
        let mut fast = 0;
        for op in ops {
            for a in &values {
                for b in &values {
                    if let Some(v) = binary_fast(op, a, b) {
                        fast += 1;
                        let general = binary(op, a, b).unwrap();
                        let identical = match (&v, &general) {
                            (Value::F64(x), Value::F64(y)) => {
                                x.to_bits() == y.to_bits() || (x.is_nan() && y.is_nan())
                            }
                            _ => v == general,
                        };
                        assert!(
                            identical,
                            "{op:?} of {a:?} and {b:?}: {v:?} against {general:?}"
                        );
                    }
                }
            }
        }
        assert!(fast > 300, "{fast} cases took the fast path");
    }
}

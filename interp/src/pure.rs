//! The pure built-in functions ([`PureFn`]) on values. The match has no
//! catch-all arm: a new built-in does not compile until the interpreter
//! says what it does (or that it does not run it).

use crate::error::{Check, Fail};
use crate::numbers;
use crate::ops::binary;
use crate::value::{Value, zero_of};
use nilang_analysis::ast::BinaryOp;
use nilang_analysis::builtins::PureFn;
use nilang_analysis::ty::Ty;
use std::rc::Rc;

/// What a pure call gives: a value, or text to print (`println`, `print`).
pub enum Out {
    Value(Value),
    Print(String),
}

/// A real function applied to a float of either width, computed in that
/// width (as the generated Rust does), or to an integer, as an `f64`.
fn real(
    v: &Value,
    name: &str,
    f32f: fn(f32) -> f32,
    f64f: fn(f64) -> f64,
) -> Result<Value, String> {
    match v {
        Value::F32(x) => Ok(Value::F32(f32f(*x))),
        Value::F64(x) => Ok(Value::F64(f64f(*x))),
        Value::Int(x, _) => Ok(Value::F64(f64f(*x as f64))),
        v => Err(format!("`{name}` of {}", v.kind_name())),
    }
}

/// The principal logarithm, `ln|z| + i arg z` (the runtime's `ln`).
fn clog(re: f64, im: f64) -> Value {
    Value::Complex(crate::ops::cabs(re, im).ln(), im.atan2(re))
}

fn cexp(re: f64, im: f64) -> Value {
    let m = re.exp();
    Value::Complex(m * im.cos(), m * im.sin())
}

/// The principal square root, by the runtime's half-sum formula (`+i
/// sqrt|z|` on the negative real axis).
fn csqrt(re: f64, im: f64) -> Value {
    let r = crate::ops::cabs(re, im);
    let x = ((r + re) / 2.0).sqrt();
    let y = ((r - re) / 2.0).sqrt();
    Value::Complex(x, if im < 0.0 { -y } else { y })
}

fn int(v: &Value, what: &str) -> Result<i64, String> {
    v.as_i64()
        .ok_or_else(|| format!("{what} must be an integer, not {}", v.kind_name()))
}

fn the_type(v: &Value) -> Ty {
    match v {
        Value::Type(t) => (**t).clone(),
        v => v.ty(),
    }
}

fn filled(args: &[Value], one: bool) -> Result<Value, String> {
    let [ty, dims @ ..] = args else {
        return Err("`zeros` needs a type and a length".into());
    };
    let ty = the_type(ty);
    let mut elem = zero_of(&ty).ok_or_else(|| format!("no zero of `{}`", ty.display()))?;
    if one {
        elem = binary(BinaryOp::Add, &elem, &Value::int(1))
            .and_then(|v| crate::ops::convert(v, &elem))?;
    }
    let len = |v: &Value| -> Result<usize, String> {
        let n = int(v, "a length")?;
        usize::try_from(n).map_err(|_| format!("a negative length {n}"))
    };
    match dims {
        [n] => Ok(Value::Array(Rc::new(vec![elem; len(n)?]))),
        [m, n] => {
            let (rows, cols) = (len(m)?, len(n)?);
            Ok(Value::Matrix {
                rows,
                cols,
                data: Rc::new(vec![elem; rows * cols]),
            })
        }
        _ => Err("`zeros` takes one or two lengths".into()),
    }
}

fn len_of(v: &Value) -> Result<usize, String> {
    match v {
        Value::Array(items) | Value::Stack(items, _) | Value::Tuple(items) => Ok(items.len()),
        Value::Matrix { data, .. } => Ok(data.len()),
        v => Err(format!("`length` of {}", v.kind_name())),
    }
}

/// Whether Julia's `min` (`max`) of two floats is the second: the one
/// below (above), `-0.0` below `0.0`, and a NaN whichever it is
/// (`nilang::Real::min`).
fn julia_picks_second(min: bool, x: f64, y: f64) -> bool {
    let (neg_x, neg_y) = (x.is_sign_negative(), y.is_sign_negative());
    let beyond = if min {
        y < x || (neg_y && !neg_x)
    } else {
        y > x || (!neg_y && neg_x)
    };
    if beyond { !x.is_nan() } else { y.is_nan() }
}

pub fn call(func: PureFn, args: &[Value]) -> Result<Out, Fail> {
    use PureFn as P;
    if args.iter().any(|a| matches!(a, Value::Dual(..)))
        && let Some(v) = crate::dual::pure(func, args)
    {
        return v.map(Out::Value);
    }
    let one = || {
        args.first()
            .ok_or_else(|| format!("`{}` needs an argument", func.name()))
    };
    let v = match func {
        P::Identity | P::Value | P::Unwrap => one()?.clone(),
        P::Abs => match one()? {
            Value::Int(x, s) => Value::Int(x.wrapping_abs(), *s),
            Value::Complex(re, im) => Value::F64(crate::ops::cabs(*re, *im)),
            v => real(v, "abs", f32::abs, f64::abs)?,
        },
        P::Abs2 => match one()? {
            Value::Complex(re, im) => Value::F64(re * re + im * im),
            v => binary(BinaryOp::Mul, v, v)?,
        },
        P::Sqrt => match one()? {
            Value::Complex(re, im) => csqrt(*re, *im),
            v => real(v, "sqrt", f32::sqrt, f64::sqrt)?,
        },
        P::Exp => match one()? {
            Value::Fixed(x) => Value::Fixed(numbers::fixed_exp(*x)),
            Value::Complex(re, im) => cexp(*re, *im),
            v => real(v, "exp", f32::exp, f64::exp)?,
        },
        P::Log => match one()? {
            Value::Fixed(x) => Value::Fixed(numbers::fixed_ln(*x)),
            Value::Complex(re, im) => clog(*re, *im),
            v => real(v, "log", f32::ln, f64::ln)?,
        },
        P::Sin => match one()? {
            // sin(a + bi) = sin a cosh b + i cos a sinh b
            Value::Complex(a, b) => Value::Complex(a.sin() * b.cosh(), a.cos() * b.sinh()),
            v => real(v, "sin", f32::sin, f64::sin)?,
        },
        P::Cos => match one()? {
            // cos(a + bi) = cos a cosh b - i sin a sinh b
            Value::Complex(a, b) => Value::Complex(a.cos() * b.cosh(), -a.sin() * b.sinh()),
            v => real(v, "cos", f32::cos, f64::cos)?,
        },
        P::Tan => real(one()?, "tan", f32::tan, f64::tan)?,
        P::Sinh => real(one()?, "sinh", f32::sinh, f64::sinh)?,
        P::Cosh => real(one()?, "cosh", f32::cosh, f64::cosh)?,
        P::Tanh => real(one()?, "tanh", f32::tanh, f64::tanh)?,
        P::Asin => real(one()?, "asin", f32::asin, f64::asin)?,
        P::Acos => real(one()?, "acos", f32::acos, f64::acos)?,
        P::Atan => match args {
            [y, x] => match (y, x) {
                (Value::F32(y), Value::F32(x)) => Value::F32(y.atan2(*x)),
                _ => Value::F64(
                    y.as_f64()
                        .zip(x.as_f64())
                        .map(|(y, x)| y.atan2(x))
                        .ok_or("`atan` of non-real values")?,
                ),
            },
            _ => real(one()?, "atan", f32::atan, f64::atan)?,
        },
        P::Sincos => {
            let x = one()?;
            Value::Tuple(Rc::new(vec![
                real(x, "sin", f32::sin, f64::sin)?,
                real(x, "cos", f32::cos, f64::cos)?,
            ]))
        }
        P::Inv => match one()? {
            Value::Complex(re, im) => {
                let d = re * re + im * im;
                Value::Complex(re / d, -im / d)
            }
            v => binary(BinaryOp::Div, &Value::int(1), v).and_then(|r| match v {
                Value::F32(_) => crate::ops::convert(r, v),
                _ => Ok(r),
            })?,
        },
        P::Min | P::Max => {
            let [a, b] = args else {
                return Err(format!("`{}` takes two arguments", func.name()).into());
            };
            let second = match (a, b) {
                (Value::Int(x, _), Value::Int(y, _)) => {
                    if func == P::Min {
                        y < x
                    } else {
                        y > x
                    }
                }
                _ => {
                    let (Some(x), Some(y)) = (a.as_f64(), b.as_f64()) else {
                        return Err(format!(
                            "`{}` of {} and {}",
                            func.name(),
                            a.kind_name(),
                            b.kind_name()
                        )
                        .into());
                    };
                    julia_picks_second(func == P::Min, x, y)
                }
            };
            // In the operands' common type.
            let common = binary(BinaryOp::Sub, a, b)?;
            crate::ops::convert(if second { b } else { a }.clone(), &common)?
        }
        P::Sign => match one()? {
            Value::Int(x, s) => Value::Int(x.signum(), *s),
            v => real(
                v,
                "sign",
                |x| {
                    if x == 0.0 || x.is_nan() {
                        x
                    } else {
                        x.signum()
                    }
                },
                |x| {
                    if x == 0.0 || x.is_nan() {
                        x
                    } else {
                        x.signum()
                    }
                },
            )?,
        },
        P::Floor => real_or_int(one()?, "floor", f32::floor, f64::floor)?,
        P::Ceil => real_or_int(one()?, "ceil", f32::ceil, f64::ceil)?,
        P::Round => real_or_int(one()?, "round", f32::round_ties_even, f64::round_ties_even)?,
        P::Div | P::Rem | P::Mod => {
            let [a, b] = args else {
                return Err(format!("`{}` takes two arguments", func.name()).into());
            };
            let op = if func == P::Div {
                BinaryOp::IntDiv
            } else {
                BinaryOp::Rem
            };
            let r = binary(op, a, b)?;
            if func == P::Mod {
                // Julia's `mod`: the sign of the divisor.
                let zero = binary(BinaryOp::Sub, &r, &r)?;
                let r_neg = binary(BinaryOp::Lt, &r, &zero)?.as_bool() == Some(true);
                let b_neg = binary(BinaryOp::Lt, b, &zero)?.as_bool() == Some(true);
                if r != zero && r_neg != b_neg {
                    binary(BinaryOp::Add, &r, b)?
                } else {
                    r
                }
            } else {
                r
            }
        }
        P::Real => match one()? {
            Value::Complex(re, _) => Value::F64(*re),
            v => v.clone(),
        },
        P::Imag => match one()? {
            Value::Complex(_, im) => Value::F64(*im),
            v => v.zero_like(),
        },
        P::Conj => match one()? {
            Value::Complex(re, im) => Value::Complex(*re, -im),
            v => v.clone(),
        },
        P::Angle => match one()? {
            Value::Complex(re, im) => Value::F64(im.atan2(*re)),
            v => {
                let x = v.as_f64().ok_or("`angle` of a non-number")?;
                Value::F64(if x < 0.0 { std::f64::consts::PI } else { 0.0 })
            }
        },
        P::Zero | P::One if let Some(v) = numbers::unit_of(one()?, func == P::One) => v,
        P::Zero => match one()? {
            Value::Type(t) => zero_of(t).ok_or_else(|| format!("no zero of `{}`", t.display()))?,
            v => v.zero_like(),
        },
        P::One => {
            let z = match one()? {
                Value::Type(t) => {
                    zero_of(t).ok_or_else(|| format!("no one of `{}`", t.display()))?
                }
                v => v.zero_like(),
            };
            crate::ops::convert(Value::int(1), &z)?
        }
        P::Zeros => filled(args, false)?,
        P::Ones => filled(args, true)?,
        P::Stack => Value::Stack(Rc::new(Vec::new()), Rc::new(the_type(one()?))),
        P::Length => Value::int(len_of(one()?)? as i64),
        P::Size => match args {
            [Value::Matrix { rows, cols, .. }, d] => match int(d, "a dimension")? {
                1 => Value::int(*rows as i64),
                2 => Value::int(*cols as i64),
                d => return Err(format!("dimension {d} of a matrix").into()),
            },
            [Value::Matrix { rows, cols, .. }] => Value::Tuple(Rc::new(vec![
                Value::int(*rows as i64),
                Value::int(*cols as i64),
            ])),
            [v, d] if int(d, "a dimension")? == 1 => Value::int(len_of(v)? as i64),
            [v] => Value::Tuple(Rc::new(vec![Value::int(len_of(v)? as i64)])),
            _ => return Err("`size` of these arguments".into()),
        },
        P::Tget => match args {
            [Value::Tuple(items), i] => {
                let i = int(i, "an index")?;
                usize::try_from(i - 1)
                    .ok()
                    .and_then(|k| items.get(k))
                    .cloned()
                    .ok_or_else(|| format!("item {i} of a tuple of {}", items.len()))?
            }
            _ => return Err("`tget` of a non-tuple".into()),
        },
        P::Isempty => Value::Bool(len_of(one()?)? == 0),
        P::Iseven => Value::Bool(int(one()?, "the argument")? % 2 == 0),
        P::Isodd => Value::Bool(int(one()?, "the argument")? % 2 != 0),
        P::Println | P::Print => {
            let text: String = args
                .iter()
                .map(|a| match a {
                    Value::Str(s) => s.to_string(),
                    v => v.to_string(),
                })
                .collect();
            return Ok(Out::Print(if func == P::Println {
                text + "\n"
            } else {
                text
            }));
        }
        P::Float => match one()? {
            Value::F32(_) | Value::F64(_) | Value::Complex(..) => one()?.clone(),
            v if numbers::is_number_system(v) => numbers::float(v),
            v => Value::F64(v.as_f64().ok_or("`float` of a non-number")?),
        },
        P::Logaddexp | P::Logsubexp => {
            let [a, b] = args else {
                return Err(format!("`{}` takes two arguments", func.name()).into());
            };
            numbers::gaussian(a, b, func == P::Logsubexp)?
        }
        P::Fixed => Value::Fixed(numbers::to_fixed(one()?).ok_or("`fixed` of a non-number")?),
        P::Ulog => numbers::ulog(one()?)?,
        P::Tropical => numbers::tropical(one()?)?,
        P::Nnz | P::GlobalIndex => {
            return Err(Fail::unsupported(format!(
                "a built-in it lacks (`{}`)",
                func.name()
            )));
        }
    };
    Ok(Out::Value(v))
}

fn real_or_int(
    v: &Value,
    name: &str,
    f32f: fn(f32) -> f32,
    f64f: fn(f64) -> f64,
) -> Result<Value, String> {
    match v {
        Value::Int(..) => Ok(v.clone()),
        v => real(v, name, f32f, f64f),
    }
}

/// `f.(xs...)`: the function applied element by element; scalars are
/// repeated, arrays must have one length.
pub fn broadcast(func: PureFn, args: &[Value]) -> Result<Value, Fail> {
    // A matrix broadcasts as its elements, and keeps its shape.
    if let Some((rows, cols)) = args.iter().find_map(|a| match a {
        Value::Matrix { rows, cols, .. } => Some((*rows, *cols)),
        _ => None,
    }) {
        let flat: Vec<Value> = args
            .iter()
            .map(|a| match a {
                Value::Matrix { data, .. } => Value::Array(data.clone()),
                v => v.clone(),
            })
            .collect();
        let Value::Array(data) = broadcast(func, &flat)? else {
            unreachable!("a broadcast over arrays is an array")
        };
        return Ok(Value::Matrix { rows, cols, data });
    }
    let len = args.iter().find_map(|a| match a {
        Value::Array(items) => Some(items.len()),
        _ => None,
    });
    let Some(len) = len else {
        return match call(func, args)? {
            Out::Value(v) => Ok(v),
            Out::Print(_) => Err(Fail::unsupported("a broadcast `println`".into())),
        };
    };
    let mut out = Vec::with_capacity(len);
    for k in 0..len {
        let at: Vec<Value> = args
            .iter()
            .map(|a| match a {
                Value::Array(items) if items.len() == len => Ok(items[k].clone()),
                Value::Array(items) => Err(Fail {
                    check: Check::Shape,
                    what: "the arrays of a broadcast must have one length".into(),
                    expected: len.to_string(),
                    found: items.len().to_string(),
                }),
                v => Ok(v.clone()),
            })
            .collect::<Result<_, _>>()?;
        match call(func, &at)? {
            Out::Value(v) => out.push(v),
            Out::Print(_) => return Err(Fail::unsupported("a broadcast `println`".into())),
        }
    }
    Ok(Value::Array(Rc::new(out)))
}

//! The values the interpreter computes with: every value knows its own
//! type, as in Julia, and arithmetic promotes as Julia (and the generated
//! Rust, which follows the types the analysis decided) does.

use nilang_analysis::ty::{Ctor, Scalar, Ty};
use std::fmt;
use std::rc::Rc;

#[derive(Clone, Debug, PartialEq, Default)]
pub enum Value {
    F64(f64),
    F32(f32),
    /// An integer of the given type (its value kept wrapped to that type).
    Int(i64, Scalar),
    Bool(bool),
    /// `Complex<f64>`.
    Complex(f64, f64),
    /// `Fixed43` (`crate::numbers`).
    Fixed(Fixed43),
    /// `ULogarithmic<T>`: the logarithm of the value, an `F64`, `F32` or
    /// `Fixed`.
    ULog(Box<Value>),
    /// `Tropical<T>`: the ordinary value, an `F64` or `F32`.
    Tropical(Box<Value>),
    /// A dual number `re + eps ε` (`nilang::Dual<f64>`): a value of a
    /// function's float type while a tangent call `(∂f)` runs it (see
    /// `crate::dual`).
    Dual(f64, f64),
    /// `[T]` or `Vec<T>`: shared until written (copy on write).
    Array(Rc<Vec<Value>>),
    /// `Matrix<T>`, column-major.
    Matrix {
        rows: usize,
        cols: usize,
        data: Rc<Vec<Value>>,
    },
    /// `Stack<T>`: the top is the last element. The element type is kept
    /// for `zero` of a popped slot and for printing an empty stack.
    Stack(Rc<Vec<Value>>, Rc<Ty>),
    Struct {
        name: Rc<str>,
        fields: Rc<Vec<(String, Value)>>,
    },
    Tuple(Rc<Vec<Value>>),
    /// A type used as a value: `zero(f64)`, `stack(T)`.
    Type(Rc<Ty>),
    /// A function passed as a value, by its name in the project.
    Function(Rc<str>),
    /// A partial application: the function and its captured arguments
    /// (`None` for each hole, filled by the call's arguments in order).
    Partial(Rc<str>, Rc<Vec<Option<Value>>>),
    Str(Rc<str>),
    /// A slot whose value was moved into a callee for the call's length.
    #[default]
    Moved,
}

impl Value {
    /// A copy of this value for a read: a number is copied without a call
    /// of `clone` (the most frequent reads), anything else cloned (a
    /// reference count bumped).
    #[inline(always)]
    pub fn read_copy(&self) -> Value {
        match *self {
            Value::F64(x) => Value::F64(x),
            Value::Int(x, s) => Value::Int(x, s),
            Value::Bool(b) => Value::Bool(b),
            _ => self.clone(),
        }
    }

    pub fn int(v: i64) -> Value {
        Value::Int(v, Scalar::I64)
    }

    /// The type of this value.
    pub fn ty(&self) -> Ty {
        match self {
            Value::F64(_) => Ty::Scalar(Scalar::F64),
            Value::F32(_) => Ty::Scalar(Scalar::F32),
            Value::Int(_, s) => Ty::Scalar(*s),
            Value::Bool(_) => Ty::Scalar(Scalar::Bool),
            Value::Complex(..) => Ty::Constructed(Ctor::Complex, vec![Ty::Scalar(Scalar::F64)]),
            Value::Fixed(_) => Ty::Constructed(Ctor::Fixed43, Vec::new()),
            Value::ULog(log) => Ty::Constructed(Ctor::ULogarithmic, vec![log.ty()]),
            Value::Tropical(n) => Ty::Constructed(Ctor::Tropical, vec![n.ty()]),
            Value::Dual(..) => dual_ty(),
            Value::Array(items) => Ty::Slice(Box::new(
                items.first().map_or(Ty::Scalar(Scalar::F64), Value::ty),
            )),
            Value::Matrix { data, .. } => Ty::Constructed(
                Ctor::Matrix,
                vec![data.first().map_or(Ty::Scalar(Scalar::F64), Value::ty)],
            ),
            Value::Stack(_, elem) => Ty::Constructed(Ctor::Stack, vec![(**elem).clone()]),
            Value::Struct { name, fields } => Ty::Struct {
                name: name.to_string(),
                args: Vec::new(),
                fields: fields.iter().map(|(n, v)| (n.clone(), v.ty())).collect(),
                generic: vec![false; fields.len()],
            },
            Value::Tuple(items) => Ty::Tuple(items.iter().map(Value::ty).collect()),
            Value::Type(t) => (**t).clone(),
            Value::Function(_) | Value::Partial(..) | Value::Str(_) | Value::Moved => Ty::Unknown,
        }
    }

    /// The name of this value's kind, for messages.
    pub fn kind_name(&self) -> String {
        match self {
            Value::Moved => "nothing".into(),
            Value::Function(f) | Value::Partial(f, _) => format!("the function `{f}`"),
            Value::Str(_) => "a string".into(),
            v => format!("`{}`", v.ty().display()),
        }
    }

    pub fn as_f64(&self) -> Option<f64> {
        match self {
            Value::F64(x) | Value::Dual(x, _) => Some(*x),
            Value::F32(x) => Some(*x as f64),
            Value::Int(x, _) => Some(*x as f64),
            Value::Bool(b) => Some(*b as i64 as f64),
            _ => None,
        }
    }

    pub fn as_i64(&self) -> Option<i64> {
        match self {
            Value::Int(x, _) => Some(*x),
            Value::Bool(b) => Some(*b as i64),
            _ => None,
        }
    }

    pub fn as_bool(&self) -> Option<bool> {
        match self {
            Value::Bool(b) => Some(*b),
            _ => None,
        }
    }

    /// Whether this is a number (a scalar the arithmetic takes).
    pub fn is_number(&self) -> bool {
        matches!(
            self,
            Value::F64(_)
                | Value::F32(_)
                | Value::Int(..)
                | Value::Bool(_)
                | Value::Complex(..)
                | Value::Dual(..)
                | Value::Fixed(_)
                | Value::ULog(_)
                | Value::Tropical(_)
        )
    }

    /// The zero of this value's type, of its shape for arrays: also the
    /// zero adjoint of the value, so a log number's is its logarithm's
    /// (the log number zero is [`ulog_unit`]).
    pub fn zero_like(&self) -> Value {
        match self {
            Value::Fixed(_) => Value::Fixed(Fixed43::ZERO),
            Value::ULog(log) => log.zero_like(),
            Value::Tropical(n) => tropical_unit(n, false),
            Value::F64(_) => Value::F64(0.0),
            Value::F32(_) => Value::F32(0.0),
            Value::Int(_, s) => Value::Int(0, *s),
            Value::Bool(_) => Value::Bool(false),
            Value::Complex(..) => Value::Complex(0.0, 0.0),
            Value::Dual(..) => Value::Dual(0.0, 0.0),
            Value::Array(items) => {
                Value::Array(Rc::new(items.iter().map(Value::zero_like).collect()))
            }
            Value::Matrix { rows, cols, data } => Value::Matrix {
                rows: *rows,
                cols: *cols,
                data: Rc::new(data.iter().map(Value::zero_like).collect()),
            },
            Value::Stack(_, elem) => Value::Stack(Rc::new(Vec::new()), elem.clone()),
            Value::Struct { name, fields } => Value::Struct {
                name: name.clone(),
                fields: Rc::new(
                    fields
                        .iter()
                        .map(|(n, v)| (n.clone(), v.zero_like()))
                        .collect(),
                ),
            },
            Value::Tuple(items) => {
                Value::Tuple(Rc::new(items.iter().map(Value::zero_like).collect()))
            }
            Value::Type(t) => zero_of(t).unwrap_or(Value::Moved),
            // The adjoint of a partial application: its captured values'.
            Value::Partial(name, captured) => Value::Partial(
                name.clone(),
                Rc::new(
                    captured
                        .iter()
                        .map(|c| c.as_ref().map(Value::zero_like))
                        .collect(),
                ),
            ),
            v => v.clone(),
        }
    }

    /// The value as the generated code's errors show it (Rust's `Debug`).
    pub fn debug(&self) -> String {
        match self {
            Value::F64(x) => format!("{x:?}"),
            Value::F32(x) => format!("{x:?}"),
            Value::Complex(re, im) => format!("Complex {{ re: {re:?}, im: {im:?} }}"),
            Value::Dual(re, eps) => format!("Dual {{ re: {re:?}, eps: {eps:?} }}"),
            Value::Fixed(x) => format!("{x:?}"),
            Value::ULog(log) => format!("exp({})", log.debug()),
            Value::Tropical(n) => format!("Tropical({})", n.debug()),
            // As the runtime's `Stack` prints itself.
            Value::Stack(items, _) => {
                let inner: Vec<String> = items.iter().map(Value::debug).collect();
                format!("stack of {} [{}]", items.len(), inner.join(", "))
            }
            Value::Array(items) | Value::Tuple(items) => {
                let inner: Vec<String> = items.iter().map(Value::debug).collect();
                if matches!(self, Value::Tuple(_)) {
                    format!("({})", inner.join(", "))
                } else {
                    format!("[{}]", inner.join(", "))
                }
            }
            // As the generated struct's derived `Debug` prints it.
            Value::Struct { name, fields } => {
                let inner: Vec<String> = fields
                    .iter()
                    .map(|(field, v)| format!("{field}: {}", v.debug()))
                    .collect();
                format!("{name} {{ {} }}", inner.join(", "))
            }
            v => v.to_string(),
        }
    }

    /// Whether it holds a float anywhere (what has an adjoint).
    pub fn has_adjoint(&self) -> bool {
        match self {
            Value::F64(_) | Value::F32(_) | Value::Complex(..) | Value::Dual(..) => true,
            Value::ULog(log) => log.has_adjoint(),
            Value::Array(items) | Value::Tuple(items) | Value::Stack(items, _) => {
                items.iter().any(Value::has_adjoint)
            }
            Value::Matrix { data, .. } => data.iter().any(Value::has_adjoint),
            Value::Struct { fields, .. } => fields.iter().any(|(_, v)| v.has_adjoint()),
            Value::Partial(_, captured) => captured.iter().flatten().any(Value::has_adjoint),
            _ => false,
        }
    }

    /// Whether every number in it is zero (an empty stack counts as zero).
    pub fn is_zero(&self) -> bool {
        match self {
            Value::F64(x) => *x == 0.0,
            Value::F32(x) => *x == 0.0,
            Value::Int(x, _) => *x == 0,
            Value::Bool(b) => !*b,
            Value::Complex(re, im) | Value::Dual(re, im) => *re == 0.0 && *im == 0.0,
            Value::Fixed(x) => *x == Fixed43::ZERO,
            Value::Array(items) | Value::Tuple(items) => items.iter().all(Value::is_zero),
            Value::Matrix { data, .. } => data.iter().all(Value::is_zero),
            Value::Stack(items, _) => items.is_empty(),
            Value::Struct { fields, .. } => fields.iter().all(|(_, v)| v.is_zero()),
            Value::Partial(_, captured) => captured.iter().flatten().all(Value::is_zero),
            _ => false,
        }
    }
}

/// `.nil`'s `Fixed43`: the `fixed` crate's `I21F43`, the runtime's type.
pub type Fixed43 = fixed::types::I21F43;

/// `zero(x)` (`one` when `one`) of a log or tropical number, or of their
/// type's argument `inner`: the log number 0 (`log = -inf`, the most
/// negative `Fixed43`) or 1 (`log = 0`); the tropical 0 (`-inf`) or 1 (`0`).
pub fn ulog_unit(inner: &Value, one: bool) -> Value {
    Value::ULog(Box::new(match (inner, one) {
        (Value::Fixed(_), true) => Value::Fixed(Fixed43::ZERO),
        (Value::Fixed(_), false) => Value::Fixed(Fixed43::MIN),
        (Value::F32(_), true) => Value::F32(0.0),
        (Value::F32(_), false) => Value::F32(f32::NEG_INFINITY),
        (_, true) => Value::F64(0.0),
        (_, false) => Value::F64(f64::NEG_INFINITY),
    }))
}

/// The tropical zero (`-inf`) or one (`0`) with a value of `inner`'s type.
pub fn tropical_unit(inner: &Value, one: bool) -> Value {
    Value::Tropical(Box::new(match (inner, one) {
        (Value::F32(_), true) => Value::F32(0.0),
        (Value::F32(_), false) => Value::F32(f32::NEG_INFINITY),
        (_, true) => Value::F64(0.0),
        (_, false) => Value::F64(f64::NEG_INFINITY),
    }))
}

/// The zero of type `ty`, for the types that have one without a shape.
pub fn zero_of(ty: &Ty) -> Option<Value> {
    Some(match ty {
        Ty::Scalar(Scalar::F64) => Value::F64(0.0),
        Ty::Scalar(Scalar::F32) => Value::F32(0.0),
        Ty::Scalar(Scalar::Bool) => Value::Bool(false),
        Ty::Scalar(s) => Value::Int(0, *s),
        Ty::Constructed(Ctor::Complex, _) => Value::Complex(0.0, 0.0),
        Ty::Constructed(Ctor::Fixed43, _) => Value::Fixed(Fixed43::ZERO),
        Ty::Constructed(Ctor::ULogarithmic, args) => {
            ulog_unit(&zero_of(args.first()?).unwrap_or(Value::F64(0.0)), false)
        }
        Ty::Constructed(Ctor::Tropical, args) => {
            tropical_unit(&zero_of(args.first()?).unwrap_or(Value::F64(0.0)), false)
        }
        t if is_dual(t) => Value::Dual(0.0, 0.0),
        Ty::Constructed(Ctor::Stack, args) => Value::Stack(
            Rc::new(Vec::new()),
            Rc::new(args.first().cloned().unwrap_or(Ty::Unknown)),
        ),
        Ty::Struct { name, fields, .. } => Value::Struct {
            name: name.as_str().into(),
            fields: Rc::new(
                fields
                    .iter()
                    .map(|(n, t)| Some((n.clone(), zero_of(t)?)))
                    .collect::<Option<Vec<_>>>()?,
            ),
        },
        Ty::Tuple(items) => Value::Tuple(Rc::new(
            items.iter().map(zero_of).collect::<Option<Vec<_>>>()?,
        )),
        _ => return None,
    })
}

/// `v` wrapped to the integer type `s` (Rust's `as`, which the generated
/// code's integer arithmetic ends in).
pub fn wrap(v: i64, s: Scalar) -> i64 {
    match s {
        Scalar::I32 => v as i32 as i64,
        Scalar::I16 => v as i16 as i64,
        Scalar::I8 => v as i8 as i64,
        Scalar::U32 => v as u32 as i64,
        Scalar::U16 => v as u16 as i64,
        Scalar::U8 => v as u8 as i64,
        _ => v,
    }
}

/// Writes a float as Julia shows it: `1.0`, `0.5`, `1.0e-8`, `Inf`.
pub fn float_text(x: f64) -> String {
    if x.is_nan() {
        return "NaN".into();
    }
    if x.is_infinite() {
        return if x > 0.0 { "Inf".into() } else { "-Inf".into() };
    }
    let s = format!("{x:?}");
    match s.split_once('e') {
        Some((m, e)) if !m.contains('.') => format!("{m}.0e{e}"),
        _ => s,
    }
}

/// An `f32` as Julia shows a `Float32`: its shortest round trip with the
/// exponent after `f` (`0.1f0`, `1.0f-8`), `Inf32`, `NaN32`.
pub fn f32_text(x: f32) -> String {
    if x.is_nan() {
        return "NaN32".into();
    }
    if x.is_infinite() {
        return if x > 0.0 {
            "Inf32".into()
        } else {
            "-Inf32".into()
        };
    }
    let s = format!("{x:?}");
    match s.split_once('e') {
        Some((m, e)) if !m.contains('.') => format!("{m}.0f{e}"),
        Some((m, e)) => format!("{m}f{e}"),
        None => format!("{s}f0"),
    }
}

impl fmt::Display for Value {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Value::F64(x) => f.write_str(&float_text(*x)),
            Value::F32(x) => f.write_str(&f32_text(*x)),
            Value::Int(x, _) => write!(f, "{x}"),
            Value::Bool(b) => write!(f, "{b}"),
            Value::Complex(re, im) => {
                let sign = if im.is_sign_negative() { "-" } else { "+" };
                write!(f, "{} {sign} {}im", float_text(*re), float_text(im.abs()))
            }
            Value::Fixed(x) => write!(f, "Fixed43({x})"),
            // As Julia's LogarithmicNumbers shows one: `exp(0.5)`.
            Value::ULog(log) => write!(f, "exp({log})"),
            Value::Tropical(n) => write!(f, "Tropical({n})"),
            // As the runtime's `Dual` shows itself: `1.5 + 0.25ε`.
            Value::Dual(re, eps) => write!(f, "{} + {}ε", float_text(*re), float_text(*eps)),
            Value::Array(items) => list(f, "[", items, "]"),
            Value::Matrix { rows, cols, data } => {
                f.write_str("[")?;
                for r in 0..*rows {
                    if r > 0 {
                        f.write_str("; ")?;
                    }
                    for c in 0..*cols {
                        if c > 0 {
                            f.write_str(" ")?;
                        }
                        write!(f, "{}", data[c * rows + r])?;
                    }
                }
                f.write_str("]")
            }
            Value::Stack(items, elem) => {
                write!(f, "Stack{{{}}}", elem.display())?;
                list(f, "(", items, ")")
            }
            Value::Struct { name, fields } => {
                write!(f, "{name}(")?;
                for (k, (_, v)) in fields.iter().enumerate() {
                    if k > 0 {
                        f.write_str(", ")?;
                    }
                    write!(f, "{v}")?;
                }
                f.write_str(")")
            }
            Value::Tuple(items) => {
                if items.len() == 1 {
                    write!(f, "({},)", items[0])
                } else {
                    list(f, "(", items, ")")
                }
            }
            Value::Type(t) => f.write_str(&t.display()),
            Value::Function(name) => f.write_str(name),
            Value::Partial(name, args) => {
                write!(f, "{name}(")?;
                for (k, a) in args.iter().enumerate() {
                    if k > 0 {
                        f.write_str(", ")?;
                    }
                    match a {
                        Some(v) => write!(f, "{v}")?,
                        None => f.write_str("_")?,
                    }
                }
                f.write_str(")")
            }
            Value::Str(s) => write!(f, "{s:?}"),
            Value::Moved => f.write_str("#undef"),
        }
    }
}

fn list(f: &mut fmt::Formatter<'_>, open: &str, items: &[Value], close: &str) -> fmt::Result {
    f.write_str(open)?;
    for (k, v) in items.iter().enumerate() {
        if k > 0 {
            f.write_str(", ")?;
        }
        write!(f, "{v}")?;
    }
    f.write_str(close)
}

/// The name the dual type goes by as a type parameter's binding: not an
/// identifier, so no type parameter of a program is called so.
const DUAL_NAME: &str = "Dual{f64}";

/// The type of a dual value (what `T` is bound to while `f` runs on duals
/// in a tangent call; its arithmetic is `dual.rs`).
pub fn dual_ty() -> Ty {
    Ty::Generic(DUAL_NAME.into())
}

/// Whether `ty` is the dual type.
pub fn is_dual(ty: &Ty) -> bool {
    matches!(ty, Ty::Generic(n) if n == DUAL_NAME)
}

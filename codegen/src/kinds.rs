//! The Rust backend's kinds of values while it emits code (`Kind`), read
//! from the analysis's types (`kind_of`), their Rust types, and the
//! conversions between them.

use super::*;

/// A numeric kind, as far as code generation cares.
#[derive(Clone, PartialEq, Eq, Debug)]
pub(crate) enum Kind {
    Int(Scalar),
    Float(Scalar),
    Generic(String),
    Bool,
    /// `Complex<T>`: `nilang::Complex<T>`.
    Complex(Box<Kind>),
    /// `[T]`, `Vec<T>`: a slice or a `Vec`.
    Array(Box<Kind>),
    /// `Matrix<T>`: an `ndarray` view or `Array2`, column-major.
    Matrix(Box<Kind>),
    /// `Csc<T>`: a `sprs` CSC view.
    Csc(Box<Kind>),
    /// `Fixed43`: `nilang::Fixed43` (see `numbers.rs`).
    Fixed,
    /// `ULogarithmic<T>`: `nilang::ULog<T>`.
    ULog(Box<Kind>),
    /// `Tropical<T>`: `nilang::Tropical<T>`.
    Tropical(Box<Kind>),
    /// A user struct `Point<T>`: name, type arguments, and per field its
    /// name, kind and whether its declared type mentions a type parameter.
    Struct {
        name: String,
        args: Vec<Kind>,
        fields: Vec<(String, Kind, bool)>,
    },
    /// `A.colptr`, `A.rowval` of a `Csc`: 0-based `usize` offsets in Rust,
    /// read as NiLang's 1-based `i64`.
    Offsets,
    /// `Stack<T>`: a `nilang::Stack<T>` (see `codegen::stack`).
    Stack(Box<Kind>),
    Unknown,
}

impl Kind {
    pub(crate) fn is_unknown(&self) -> bool {
        matches!(self, Kind::Unknown)
    }

    /// Whether a type parameter appears in this kind (`T`, `Complex<T>`,
    /// `[Pt<T>]`).
    pub(crate) fn mentions_generic(&self) -> bool {
        match self {
            Kind::Generic(_) => true,
            Kind::Complex(k)
            | Kind::Array(k)
            | Kind::Matrix(k)
            | Kind::Csc(k)
            | Kind::ULog(k)
            | Kind::Tropical(k)
            | Kind::Stack(k) => k.mentions_generic(),
            Kind::Struct { args, .. } => args.iter().any(Kind::mentions_generic),
            Kind::Int(_) | Kind::Float(_) | Kind::Bool | Kind::Fixed | Kind::Offsets => false,
            Kind::Unknown => false,
        }
    }

    /// Whether a `&mut` parameter of this kind is written through `*name`.
    pub(crate) fn is_scalar_like(&self) -> bool {
        matches!(
            self,
            Kind::Int(_)
                | Kind::Float(_)
                | Kind::Generic(_)
                | Kind::Bool
                | Kind::Complex(_)
                | Kind::Fixed
                | Kind::ULog(_)
                | Kind::Tropical(_)
                | Kind::Struct { .. }
        )
    }
}

pub(crate) fn kind_of(ty: &Ty) -> Kind {
    match ty {
        Ty::Scalar(Scalar::Bool) => Kind::Bool,
        Ty::Scalar(s @ (Scalar::F64 | Scalar::F32)) => Kind::Float(*s),
        Ty::Scalar(s) => Kind::Int(*s),
        Ty::Generic(g) => Kind::Generic(g.clone()),
        Ty::Slice(inner) => Kind::Array(Box::new(kind_of(inner))),
        Ty::Struct {
            name,
            args,
            fields,
            generic,
        } => Kind::Struct {
            name: name.clone(),
            args: args.iter().map(kind_of).collect(),
            fields: fields
                .iter()
                .zip(generic)
                .map(|((f, t), g)| (f.clone(), kind_of(t), *g))
                .collect(),
        },
        Ty::Constructed(name, args) if args.len() == 1 => {
            let inner = Box::new(kind_of(&args[0]));
            match *name {
                Ctor::Vec => Kind::Array(inner),
                Ctor::Matrix => Kind::Matrix(inner),
                Ctor::Csc => Kind::Csc(inner),
                Ctor::Complex => Kind::Complex(inner),
                Ctor::Stack => Kind::Stack(inner),
                Ctor::ULogarithmic => Kind::ULog(inner),
                Ctor::Tropical => Kind::Tropical(inner),
                Ctor::Fixed43 | Ctor::Fn => Kind::Unknown,
            }
        }
        Ty::Constructed(Ctor::Fixed43, args) if args.is_empty() => Kind::Fixed,
        _ => Kind::Unknown,
    }
}

/// The Rust type of a local of this kind.
pub(crate) fn rust_scalar(kind: &Kind) -> Option<String> {
    match kind {
        Kind::Int(s) | Kind::Float(s) => Some(s.name().to_string()),
        Kind::Generic(g) => Some(g.clone()),
        Kind::Bool => Some("bool".into()),
        Kind::Complex(inner) => rust_scalar(inner).map(|s| format!("nilang::Complex<{s}>")),
        Kind::Array(inner) => rust_scalar(inner).map(|s| format!("Vec<{s}>")),
        Kind::Matrix(inner) => rust_scalar(inner).map(|s| format!("nilang::ndarray::Array2<{s}>")),
        Kind::Stack(inner) => rust_scalar(inner).map(|s| format!("nilang::Stack<{s}>")),
        Kind::Fixed => Some("nilang::Fixed43".into()),
        Kind::ULog(inner) => rust_scalar(inner).map(|s| format!("nilang::ULog<{s}>")),
        Kind::Tropical(inner) => rust_scalar(inner).map(|s| format!("nilang::Tropical<{s}>")),
        Kind::Struct { name, args, .. } => {
            let args: Option<Vec<String>> = args.iter().map(rust_scalar).collect();
            let args = args?;
            Some(if args.is_empty() {
                rust_name(name)
            } else {
                format!("{}<{}>", rust_name(name), args.join(", "))
            })
        }
        Kind::Csc(_) | Kind::Offsets | Kind::Unknown => None,
    }
}

/// The common kind two operands are converted to: the analysis's
/// promotion rule (`ty::promote`), the one place it is decided.
pub(crate) fn unify(a: &Kind, b: &Kind) -> Kind {
    match (a, b) {
        (Kind::Unknown, other) | (other, Kind::Unknown) => other.clone(),
        (Kind::Offsets, _) | (_, Kind::Offsets) => Kind::Int(Scalar::I64),
        _ => match (ty_of(a), ty_of(b)) {
            (Some(x), Some(y)) => kind_of(&nilang_analysis::ty::promote(&x, &y)),
            _ => a.clone(),
        },
    }
}

/// The analysis's type of a kind (`None` for the backend's own kinds).
fn ty_of(kind: &Kind) -> Option<Ty> {
    let inner = |k: &Kind| ty_of(k);
    Some(match kind {
        Kind::Int(s) | Kind::Float(s) => Ty::Scalar(*s),
        Kind::Generic(g) => Ty::Generic(g.clone()),
        Kind::Bool => Ty::Scalar(Scalar::Bool),
        Kind::Complex(k) => Ty::Constructed(Ctor::Complex, vec![inner(k)?]),
        Kind::Array(k) => Ty::Slice(Box::new(inner(k)?)),
        Kind::Matrix(k) => Ty::Constructed(Ctor::Matrix, vec![inner(k)?]),
        Kind::Csc(k) => Ty::Constructed(Ctor::Csc, vec![inner(k)?]),
        Kind::Stack(k) => Ty::Constructed(Ctor::Stack, vec![inner(k)?]),
        Kind::Fixed => Ty::Constructed(Ctor::Fixed43, vec![]),
        Kind::ULog(k) => Ty::Constructed(Ctor::ULogarithmic, vec![inner(k)?]),
        Kind::Tropical(k) => Ty::Constructed(Ctor::Tropical, vec![inner(k)?]),
        Kind::Struct { .. } | Kind::Offsets | Kind::Unknown => return None,
    })
}

pub(crate) fn convert(code: String, from: &Kind, to: &Kind) -> String {
    if from == to || *from == Kind::Unknown || *to == Kind::Unknown {
        return code;
    }
    match (from, to) {
        (Kind::Complex(a), Kind::Complex(b)) => {
            let re = convert("__z.re".into(), a, b);
            let im = convert("__z.im".into(), a, b);
            format!("{{ let __z = {code}; nilang::Complex::new({re}, {im}) }}")
        }
        (Kind::Complex(_), _) => code,
        (_, Kind::Complex(inner)) => {
            let zero = rust_scalar(inner)
                .map(|s| format!("nilang::zero::<{s}>()"))
                .unwrap_or_else(|| "0.0".into());
            format!(
                "nilang::Complex::new({}, {zero})",
                convert(code, from, inner)
            )
        }
        (Kind::Int(_) | Kind::Float(_), Kind::Int(t) | Kind::Float(t)) => {
            format!("({code} as {t})")
        }
        (Kind::Int(_), Kind::Generic(g)) => {
            format!("<{g} as nilang::Real>::from_i64({code} as i64)")
        }
        (Kind::Float(_), Kind::Generic(g)) => {
            format!("<{g} as nilang::Real>::from_f64({code} as f64)")
        }
        (Kind::Generic(_), Kind::Float(t) | Kind::Int(t)) => {
            format!("(nilang::Real::to_f64({code}) as {t})")
        }
        (Kind::Generic(a), Kind::Generic(b)) => {
            format!("<{b} as nilang::Real>::from_f64(<{a} as nilang::Real>::to_f64({code}))")
        }
        (Kind::Bool, Kind::Int(t)) => format!("({code} as {t})"),
        // Number systems (numbers.rs).
        (Kind::Int(_), Kind::Fixed) => format!("nilang::fixed::from_i64({code} as i64)"),
        (Kind::Float(_), Kind::Fixed) => format!("nilang::fixed::from_f64({code} as f64)"),
        (Kind::Generic(_), Kind::Fixed) => {
            format!("nilang::fixed::from_f64(nilang::Real::to_f64({code}))")
        }
        (Kind::Fixed, Kind::Float(_) | Kind::Generic(_) | Kind::Int(_)) => convert(
            format!("nilang::fixed::to_f64({code})"),
            &Kind::Float(Scalar::F64),
            to,
        ),
        (Kind::ULog(inner), Kind::Float(_) | Kind::Generic(_) | Kind::Fixed) => {
            convert(format!("nilang::ULog::value({code})"), inner, to)
        }
        (Kind::Tropical(inner), Kind::Float(_) | Kind::Generic(_)) => {
            convert(format!("{code}.n"), inner, to)
        }
        (Kind::Int(_) | Kind::Float(_) | Kind::Generic(_) | Kind::Fixed, Kind::ULog(inner)) => {
            format!("nilang::ULog::from_value({})", convert(code, from, inner))
        }
        (Kind::Int(_) | Kind::Float(_) | Kind::Generic(_), Kind::Tropical(inner)) => {
            format!("nilang::Tropical::new({})", convert(code, from, inner))
        }
        _ => code,
    }
}

/// Integers are computed on as `f64` by the transcendental functions.
pub(crate) fn float_kind(kind: &Kind) -> Kind {
    match kind {
        Kind::Int(_) | Kind::Unknown | Kind::Bool => Kind::Float(Scalar::F64),
        k => k.clone(),
    }
}

/// Whether values of this kind carry a derivative.
pub(crate) fn differentiable(kind: &Kind) -> bool {
    match kind {
        Kind::Float(_) | Kind::Generic(_) => true,
        Kind::Complex(inner) => differentiable(inner),
        // The adjoint of a log number is that of its logarithm (numbers.rs).
        Kind::ULog(inner) => differentiable(inner),
        // A struct carries derivatives in its fields typed by its parameters.
        Kind::Struct { fields, .. } => fields.iter().any(|(_, k, g)| *g && differentiable(k)),
        _ => false,
    }
}

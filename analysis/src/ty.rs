//! The type of a value as the analysis decides it ([`Ty`]), what a type's
//! fields are, and the rule that gives two operands their common type. The
//! lowest layer of the analysis' types: resolution, struct tables,
//! inference and the checks all build on it.

use crate::ast::*;
use crate::diagnostics::Diagnostic;

#[derive(Clone, PartialEq, Eq, Hash, Debug)]
pub enum Ty {
    /// `f64`, `i64`, `bool`, ...
    Scalar(&'static str),
    /// A type parameter from the `where` clause.
    Generic(String),
    /// `Complex<T>`, `Vec<T>`, `Matrix<T>`, `Csc<T>`, `Stack<T>`.
    Constructed(&'static str, Vec<Ty>),
    /// `[T]`
    Slice(Box<Ty>),
    Tuple(Vec<Ty>),
    /// A user struct `Point<f64>`: its name, type arguments and its fields'
    /// types with the arguments put in (see [`crate::structs`]).
    Struct {
        name: String,
        args: Vec<Ty>,
        fields: Vec<(String, Ty)>,
        /// Per field: whether its declared type mentions a type parameter
        /// of the struct (only those fields carry adjoints, see
        /// `codegen::structs`).
        generic: Vec<bool>,
    },
    /// Not known (an error was reported, or inference gave up).
    Unknown,
}

impl Ty {
    pub fn is_integer(&self) -> bool {
        matches!(self, Ty::Scalar(s) if *s != "f64" && *s != "f32")
    }

    /// Whether a value of this type carries a derivative: a real float or a
    /// type parameter, a complex or log number of one, a struct with such a
    /// field typed by its parameters.
    pub fn differentiable(&self) -> bool {
        match self {
            Ty::Scalar("f64" | "f32") | Ty::Generic(_) => true,
            Ty::Constructed("Complex" | "ULogarithmic", args) if args.len() == 1 => {
                args[0].differentiable()
            }
            Ty::Struct {
                fields, generic, ..
            } => fields
                .iter()
                .zip(generic)
                .any(|((_, t), g)| *g && t.differentiable()),
            _ => false,
        }
    }

    /// Whether a parameter of this type gets an adjoint parameter in the
    /// reverse pass: a differentiable value, or an array, matrix, sparse
    /// matrix or stack of them.
    pub fn has_adjoint(&self) -> bool {
        match self {
            Ty::Slice(inner) => inner.differentiable(),
            Ty::Constructed("Vec" | "Matrix" | "Csc" | "Stack", args) if args.len() == 1 => {
                args[0].differentiable()
            }
            t => t.differentiable(),
        }
    }

    /// The concrete float types this type is made of (`f64`, `f32`), in
    /// arrays, complex and log numbers, structs and tuples.
    pub(crate) fn floats(&self, out: &mut Vec<&'static str>) {
        match self {
            Ty::Scalar(s @ ("f64" | "f32")) => out.push(s),
            Ty::Slice(inner) => inner.floats(out),
            Ty::Constructed(_, args) | Ty::Tuple(args) => args.iter().for_each(|a| a.floats(out)),
            Ty::Struct { fields, .. } => fields.iter().for_each(|(_, t)| t.floats(out)),
            _ => {}
        }
    }

    /// The element type of an array type, the type itself for scalars.
    pub fn element(&self) -> &Ty {
        match self {
            Ty::Slice(inner) => inner.element(),
            Ty::Constructed("Vec" | "Matrix" | "Csc" | "Stack", args) if args.len() == 1 => {
                args[0].element()
            }
            other => other,
        }
    }

    pub fn display(&self) -> String {
        match self {
            Ty::Scalar(s) => s.to_string(),
            Ty::Generic(g) => g.clone(),
            Ty::Constructed(name, args) if args.is_empty() => name.to_string(),
            Ty::Constructed(name, args) => format!(
                "{name}<{}>",
                args.iter().map(Ty::display).collect::<Vec<_>>().join(", ")
            ),
            Ty::Slice(inner) => format!("[{}]", inner.display()),
            Ty::Tuple(items) => format!(
                "({})",
                items.iter().map(Ty::display).collect::<Vec<_>>().join(", ")
            ),
            Ty::Struct { name, args, .. } if args.is_empty() => name.clone(),
            Ty::Struct { name, args, .. } => format!(
                "{name}<{}>",
                args.iter().map(Ty::display).collect::<Vec<_>>().join(", ")
            ),
            Ty::Unknown => "_".to_string(),
        }
    }
}

/// E0602 for the unknown type `name` in `ty`: with Julia's spelling's
/// rewrite as help (and as a suggestion where it is certain) if `ty` is
/// written with Julia's names, else with the `otherwise` help.
pub(crate) fn unknown_type(
    ty: &Type,
    name: &str,
    otherwise: impl FnOnce() -> String,
) -> Diagnostic {
    let julia = crate::julia::type_help(ty);
    let d = Diagnostic::error("E0602", ty.span, format!("unknown type `{name}`"))
        .with_label("not a known type");
    match julia {
        Some((help, Some(replacement))) => d.with_help(help).with_suggestion(ty.span, replacement),
        Some((help, None)) => d.with_help(help),
        None => d.with_help(otherwise()),
    }
}

/// The type of a field of a built-in type: `re`/`im` of a complex number, the
/// compressed-column arrays of a sparse matrix.
pub fn field_type(base: &Ty, field: &str) -> Ty {
    match (base, field) {
        (Ty::Constructed("Complex", args), "re" | "im") if args.len() == 1 => args[0].clone(),
        (Ty::Constructed("ULogarithmic", args), "log") if args.len() == 1 => args[0].clone(),
        (Ty::Constructed("Tropical", args), "n") if args.len() == 1 => args[0].clone(),
        (Ty::Constructed("Csc", _), "colptr" | "rowval") => {
            Ty::Constructed("Vec", vec![Ty::Scalar("i64")])
        }
        (Ty::Constructed("Csc", args), "nzval") if args.len() == 1 => {
            Ty::Constructed("Vec", vec![args[0].clone()])
        }
        (Ty::Struct { fields, .. }, _) => fields
            .iter()
            .find(|(f, _)| f == field)
            .map(|(_, t)| t.clone())
            .unwrap_or(Ty::Unknown),
        _ => Ty::Unknown,
    }
}

/// The fields a value of type `base` has, with their types, in order:
/// [`field_type`]'s names (editors list them after `x.`).
pub fn fields_of(base: &Ty) -> Vec<(String, Ty)> {
    let names: &[&str] = match base {
        Ty::Constructed("Complex", _) => &["re", "im"],
        Ty::Constructed("ULogarithmic", _) => &["log"],
        Ty::Constructed("Tropical", _) => &["n"],
        Ty::Constructed("Csc", _) => &["colptr", "rowval", "nzval"],
        Ty::Struct { fields, .. } => return fields.clone(),
        _ => &[],
    };
    names
        .iter()
        .map(|n| (n.to_string(), field_type(base, n)))
        .collect()
}

/// The broad classes of types that decide what converts into what.
#[derive(Clone, Copy, PartialEq, Eq, Debug)]
pub(crate) enum Class {
    Int,
    Float,
    Bool,
    Complex,
    Fixed,
    ULog,
    Tropical,
    Array,
    Stack,
    Struct,
    Tuple,
    Unknown,
}

pub(crate) fn class(ty: &Ty) -> Class {
    match ty {
        Ty::Scalar("bool") => Class::Bool,
        Ty::Scalar("f64" | "f32") | Ty::Generic(_) => Class::Float,
        Ty::Scalar(_) => Class::Int,
        Ty::Slice(_) => Class::Array,
        Ty::Constructed("Vec" | "Matrix" | "Csc", _) => Class::Array,
        Ty::Constructed("Stack", _) => Class::Stack,
        Ty::Constructed("Complex", _) => Class::Complex,
        Ty::Constructed("Fixed43", _) => Class::Fixed,
        Ty::Constructed("ULogarithmic", _) => Class::ULog,
        Ty::Constructed("Tropical", _) => Class::Tropical,
        Ty::Struct { .. } => Class::Struct,
        Ty::Tuple(_) => Class::Tuple,
        _ => Class::Unknown,
    }
}

pub(crate) fn is_number(c: Class) -> bool {
    matches!(
        c,
        Class::Int | Class::Float | Class::Complex | Class::Fixed | Class::ULog | Class::Tropical
    )
}

/// The common type of two operands, as the backends convert them: complex
/// over real, a number system over plain numbers, a type parameter over
/// concrete scalars, float over integer.
pub fn promote(a: &Ty, b: &Ty) -> Ty {
    let (ca, cb) = (class(a), class(b));
    match (ca, cb) {
        (Class::Unknown, _) => b.clone(),
        (_, Class::Unknown) => a.clone(),
        (Class::Array, _) | (Class::Stack, _) => a.clone(),
        (_, Class::Array) | (_, Class::Stack) => b.clone(),
        (Class::Complex, Class::Complex) => match (a, b) {
            (Ty::Constructed(_, x), Ty::Constructed(_, y)) if x.len() == 1 && y.len() == 1 => {
                Ty::Constructed("Complex", vec![promote(&x[0], &y[0])])
            }
            _ => a.clone(),
        },
        (Class::Complex, _) => a.clone(),
        (_, Class::Complex) => b.clone(),
        (Class::Fixed | Class::ULog | Class::Tropical, _) => a.clone(),
        (_, Class::Fixed | Class::ULog | Class::Tropical) => b.clone(),
        _ => match (a, b) {
            (Ty::Generic(_), _) => a.clone(),
            (_, Ty::Generic(_)) => b.clone(),
            (Ty::Scalar(x), Ty::Scalar(y)) if x == y => a.clone(),
            (Ty::Scalar("f64" | "f32"), Ty::Scalar("f64" | "f32")) => Ty::Scalar("f64"),
            (Ty::Scalar("f64" | "f32"), _) => a.clone(),
            (_, Ty::Scalar("f64" | "f32")) => b.clone(),
            (Ty::Scalar("bool"), _) => b.clone(),
            _ => a.clone(),
        },
    }
}

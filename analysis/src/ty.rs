//! The type of a value as the analysis decides it ([`Ty`]), what a type's
//! fields are, and the rule that gives two operands their common type. The
//! lowest layer of the analysis' types: resolution, struct tables,
//! inference and the checks all build on it.

use crate::ast::*;
use crate::diagnostics::Diagnostic;

/// A built-in scalar type: the language's spelling is [`Scalar::name`], and
/// it is also the Rust type the backends write.
#[derive(Clone, Copy, PartialEq, Eq, Hash, Debug, PartialOrd, Ord)]
pub enum Scalar {
    F64,
    F32,
    I64,
    I32,
    I16,
    I8,
    U64,
    U32,
    U16,
    U8,
    Usize,
    Isize,
    Bool,
}

impl Scalar {
    /// Every scalar type, in the order completion lists them.
    pub const ALL: [Scalar; 13] = [
        Scalar::F64,
        Scalar::F32,
        Scalar::I64,
        Scalar::I32,
        Scalar::I16,
        Scalar::I8,
        Scalar::U64,
        Scalar::U32,
        Scalar::U16,
        Scalar::U8,
        Scalar::Usize,
        Scalar::Isize,
        Scalar::Bool,
    ];

    /// The type's name in `.nil` source and in Rust.
    pub const fn name(self) -> &'static str {
        match self {
            Scalar::F64 => "f64",
            Scalar::F32 => "f32",
            Scalar::I64 => "i64",
            Scalar::I32 => "i32",
            Scalar::I16 => "i16",
            Scalar::I8 => "i8",
            Scalar::U64 => "u64",
            Scalar::U32 => "u32",
            Scalar::U16 => "u16",
            Scalar::U8 => "u8",
            Scalar::Usize => "usize",
            Scalar::Isize => "isize",
            Scalar::Bool => "bool",
        }
    }

    /// The scalar type spelled `name`, if one is.
    pub fn named(name: &str) -> Option<Scalar> {
        Scalar::ALL.into_iter().find(|s| s.name() == name)
    }

    pub const fn is_float(self) -> bool {
        matches!(self, Scalar::F64 | Scalar::F32)
    }

    pub const fn is_unsigned(self) -> bool {
        matches!(
            self,
            Scalar::U64 | Scalar::U32 | Scalar::U16 | Scalar::U8 | Scalar::Usize
        )
    }
}

/// A built-in type constructor. Its type arguments are [`Ty::Constructed`]'s
/// list, [`Ctor::arity`] of them (`Fn` takes any number).
#[derive(Clone, Copy, PartialEq, Eq, Hash, Debug, PartialOrd, Ord)]
pub enum Ctor {
    Complex,
    Vec,
    Matrix,
    /// A compressed-sparse-column matrix.
    Csc,
    Stack,
    /// The number systems (docs/language.md, "Number systems").
    Fixed43,
    ULogarithmic,
    Tropical,
    /// `Fn<A, B>`: a reversible function passed by name (see
    /// `crate::values`).
    Fn,
}

impl Ctor {
    /// The constructors a program may write with their type arguments
    /// (`Fn` is read on its own, it takes any number).
    pub const WRITTEN: [Ctor; 8] = [
        Ctor::Complex,
        Ctor::Vec,
        Ctor::Matrix,
        Ctor::Csc,
        Ctor::Stack,
        Ctor::Fixed43,
        Ctor::ULogarithmic,
        Ctor::Tropical,
    ];

    /// The constructor's name in `.nil` source.
    pub const fn name(self) -> &'static str {
        match self {
            Ctor::Complex => "Complex",
            Ctor::Vec => "Vec",
            Ctor::Matrix => "Matrix",
            Ctor::Csc => "Csc",
            Ctor::Stack => "Stack",
            Ctor::Fixed43 => "Fixed43",
            Ctor::ULogarithmic => "ULogarithmic",
            Ctor::Tropical => "Tropical",
            Ctor::Fn => "Fn",
        }
    }

    /// How many type arguments `name<...>` takes (`None`: `Fn`, any
    /// number).
    pub const fn arity(self) -> Option<usize> {
        match self {
            Ctor::Fixed43 => Some(0),
            Ctor::Fn => None,
            _ => Some(1),
        }
    }

    /// The constructor a program writes as `name`, if one is (not `Fn`).
    pub fn written(name: &str) -> Option<Ctor> {
        Ctor::WRITTEN.into_iter().find(|c| c.name() == name)
    }
}

/// Whether `name` is a built-in type a program writes: a scalar type or a
/// type constructor.
pub fn is_builtin_type(name: &str) -> bool {
    Scalar::named(name).is_some() || Ctor::written(name).is_some()
}

impl std::fmt::Display for Scalar {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(self.name())
    }
}

impl std::fmt::Display for Ctor {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(self.name())
    }
}

#[derive(Clone, PartialEq, Eq, Hash, Debug)]
pub enum Ty {
    /// `f64`, `i64`, `bool`, ...
    Scalar(Scalar),
    /// A type parameter from the `where` clause.
    Generic(String),
    /// `Complex<T>`, `Vec<T>`, `Matrix<T>`, `Csc<T>`, `Stack<T>`, the number
    /// systems, `Fn<A, B>`.
    Constructed(Ctor, Vec<Ty>),
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
    /// Whether a type parameter may stand for this type: the backends
    /// compile type parameters as real number types (`nilang::Real`),
    /// which the floats, the signed integers and other type parameters are.
    pub fn can_be_type_argument(&self) -> bool {
        match self {
            Ty::Scalar(s) => !s.is_unsigned() && *s != Scalar::Bool,
            Ty::Generic(_) | Ty::Unknown => true,
            _ => false,
        }
    }

    pub fn is_integer(&self) -> bool {
        matches!(self, Ty::Scalar(s) if !s.is_float())
    }

    /// Whether a value of this type carries a derivative: a real float or a
    /// type parameter, a complex or log number of one, a struct with such a
    /// field typed by its parameters.
    pub fn differentiable(&self) -> bool {
        match self {
            Ty::Scalar(Scalar::F64 | Scalar::F32) | Ty::Generic(_) => true,
            Ty::Constructed(Ctor::Complex | Ctor::ULogarithmic, args) if args.len() == 1 => {
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

    /// Whether no value of this type can carry a derivative: an integer or
    /// a `bool`, or an array, matrix, sparse matrix or stack of them. (A
    /// tuple, a struct, a type parameter or an unknown type may.)
    pub fn is_discrete(&self) -> bool {
        match self {
            Ty::Scalar(s) => !s.is_float(),
            Ty::Slice(inner) => inner.is_discrete(),
            Ty::Constructed(Ctor::Vec | Ctor::Matrix | Ctor::Csc | Ctor::Stack, args)
                if args.len() == 1 =>
            {
                args[0].is_discrete()
            }
            _ => false,
        }
    }

    /// Whether a parameter of this type gets an adjoint parameter in the
    /// reverse pass: a differentiable value, or an array, matrix, sparse
    /// matrix or stack of them.
    pub fn has_adjoint(&self) -> bool {
        match self {
            Ty::Slice(inner) => inner.differentiable(),
            Ty::Constructed(Ctor::Vec | Ctor::Matrix | Ctor::Csc | Ctor::Stack, args)
                if args.len() == 1 =>
            {
                args[0].differentiable()
            }
            t => t.differentiable(),
        }
    }

    /// The concrete float types this type is made of (`f64`, `f32`), in
    /// arrays, complex and log numbers, structs and tuples.
    pub(crate) fn floats(&self, out: &mut Vec<&'static str>) {
        match self {
            Ty::Scalar(s @ (Scalar::F64 | Scalar::F32)) => out.push(s.name()),
            Ty::Slice(inner) => inner.floats(out),
            Ty::Constructed(_, args) | Ty::Tuple(args) => args.iter().for_each(|a| a.floats(out)),
            Ty::Struct { fields, .. } => fields.iter().for_each(|(_, t)| t.floats(out)),
            _ => {}
        }
    }

    /// Whether a value of this type holds an `f32` ([`Ty::floats`]).
    pub fn holds_f32(&self) -> bool {
        let mut floats = Vec::new();
        self.floats(&mut floats);
        floats.contains(&"f32")
    }

    /// The element type of an array type, the type itself for scalars.
    pub fn element(&self) -> &Ty {
        match self {
            Ty::Slice(inner) => inner.element(),
            Ty::Constructed(Ctor::Vec | Ctor::Matrix | Ctor::Csc | Ctor::Stack, args)
                if args.len() == 1 =>
            {
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
            // A tuple of one is `(i64,)`, as Julia and Rust write it.
            Ty::Tuple(items) if items.len() == 1 => format!("({},)", items[0].display()),
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
        (Ty::Constructed(Ctor::Complex, args), "re" | "im") if args.len() == 1 => args[0].clone(),
        (Ty::Constructed(Ctor::ULogarithmic, args), "log") if args.len() == 1 => args[0].clone(),
        (Ty::Constructed(Ctor::Tropical, args), "n") if args.len() == 1 => args[0].clone(),
        (Ty::Constructed(Ctor::Csc, _), "colptr" | "rowval") => {
            Ty::Constructed(Ctor::Vec, vec![Ty::Scalar(Scalar::I64)])
        }
        (Ty::Constructed(Ctor::Csc, args), "nzval") if args.len() == 1 => {
            Ty::Constructed(Ctor::Vec, vec![args[0].clone()])
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
        Ty::Constructed(Ctor::Complex, _) => &["re", "im"],
        Ty::Constructed(Ctor::ULogarithmic, _) => &["log"],
        Ty::Constructed(Ctor::Tropical, _) => &["n"],
        Ty::Constructed(Ctor::Csc, _) => &["colptr", "rowval", "nzval"],
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
        Ty::Scalar(Scalar::Bool) => Class::Bool,
        Ty::Scalar(Scalar::F64 | Scalar::F32) | Ty::Generic(_) => Class::Float,
        Ty::Scalar(_) => Class::Int,
        Ty::Slice(_) => Class::Array,
        Ty::Constructed(Ctor::Vec | Ctor::Matrix | Ctor::Csc, _) => Class::Array,
        Ty::Constructed(Ctor::Stack, _) => Class::Stack,
        Ty::Constructed(Ctor::Complex, _) => Class::Complex,
        Ty::Constructed(Ctor::Fixed43, _) => Class::Fixed,
        Ty::Constructed(Ctor::ULogarithmic, _) => Class::ULog,
        Ty::Constructed(Ctor::Tropical, _) => Class::Tropical,
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
                Ty::Constructed(Ctor::Complex, vec![promote(&x[0], &y[0])])
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
            (Ty::Scalar(Scalar::F64 | Scalar::F32), Ty::Scalar(Scalar::F64 | Scalar::F32)) => {
                Ty::Scalar(Scalar::F64)
            }
            (Ty::Scalar(Scalar::F64 | Scalar::F32), _) => a.clone(),
            (_, Ty::Scalar(Scalar::F64 | Scalar::F32)) => b.clone(),
            (Ty::Scalar(Scalar::Bool), _) => b.clone(),
            // Two integer types meet at the wider (the left one of two
            // of one width), as the interpreter computes them.
            (Ty::Scalar(x), Ty::Scalar(y)) if int_width(*y) > int_width(*x) => b.clone(),
            _ => a.clone(),
        },
    }
}

/// The width in bytes of an integer type (`isize` and `usize` as 64 bits).
fn int_width(s: Scalar) -> u8 {
    match s {
        Scalar::I8 | Scalar::U8 => 1,
        Scalar::I16 | Scalar::U16 => 2,
        Scalar::I32 | Scalar::U32 => 4,
        Scalar::Bool => 0,
        _ => 8,
    }
}

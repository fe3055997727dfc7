//! The types written in a function's source: every parameter's declared
//! type, lowered to [`Ty`]. Each ancilla's type is inferred by
//! [`crate::typeck`], the one inference, from the value it is allocated
//! with.

use crate::ast::*;
use crate::builtins;
use crate::diagnostics::Diagnostic;
use crate::resolve::{DefKind, Resolution};
use crate::structs::StructTable;
use crate::ty::{Ctor, Scalar, Ty, field_type, unknown_type};

#[derive(Clone, PartialEq, Eq, Hash, Debug, Default)]
pub struct FunctionTypes {
    /// The type of each definition of the resolution, by `DefId`.
    pub defs: Vec<Ty>,
    pub diagnostics: Vec<Diagnostic>,
}

pub fn function_types(function: &Function, resolution: &Resolution) -> FunctionTypes {
    function_types_in(function, resolution, &StructTable::default())
}

/// [`function_types`] in a project with user structs.
pub fn function_types_in(
    function: &Function,
    resolution: &Resolution,
    structs: &StructTable,
) -> FunctionTypes {
    let mut diagnostics = Vec::new();
    let lower = |ty: &Option<Type>, name: &Ident, diagnostics: &mut Vec<Diagnostic>| match ty {
        Some(ty) => lower_type(ty, function, structs, diagnostics),
        None => {
            diagnostics.push(
                Diagnostic::error(
                    "E0601",
                    name.span,
                    format!("parameter `{}` has no type", name.name),
                )
                .with_label("type needed for code generation")
                .with_help(format!(
                    "unlike NiLang.jl, which leaves types to Julia's dispatch, a parameter here needs one: `{0}::f64`, `{0}::[f64]`, or a type parameter (`{0}::T` with `where T: Real`)",
                    name.name
                )),
            );
            Ty::Unknown
        }
    };
    let params: Vec<Ty> = function
        .params
        .iter()
        .map(|p| lower(&p.ty, &p.name, &mut diagnostics))
        .collect();
    let kwparams: Vec<Ty> = function
        .kwparams
        .iter()
        .map(|p| match &p.ty {
            Some(_) => lower(&p.ty, &p.name, &mut diagnostics),
            None => literal_type(&p.default).unwrap_or(Ty::Unknown),
        })
        .collect();
    let mut defs: Vec<Ty> = Vec::with_capacity(resolution.defs.len());
    for def in &resolution.defs {
        let ty = match &def.kind {
            DefKind::Param(i) => params[*i].clone(),
            DefKind::KwParam(i) => kwparams[*i].clone(),
            DefKind::LoopVar => Ty::Scalar(Scalar::I64),
            // Decided by `typeck::check_types` when it reaches the allocation.
            DefKind::Ancilla => Ty::Unknown,
        };
        defs.push(ty);
    }
    FunctionTypes { defs, diagnostics }
}

pub(crate) fn lower_type(
    ty: &Type,
    function: &Function,
    structs: &StructTable,
    diagnostics: &mut Vec<Diagnostic>,
) -> Ty {
    match &ty.kind {
        TypeKind::Named { name, args } => {
            if let Some(s) = Scalar::named(name) {
                if !args.is_empty() {
                    diagnostics.push(
                        Diagnostic::error(
                            "E0602",
                            ty.span,
                            format!("`{name}` takes no type arguments"),
                        )
                        .with_help(format!("write `{name}`")),
                    );
                }
                return Ty::Scalar(s);
            }
            if function.generics.iter().any(|g| &g.name.name == name) && args.is_empty() {
                return Ty::Generic(name.clone());
            }
            // `Fn<A, B>`: a reversible function of two positional
            // parameters, passed by name (see `crate::values`).
            if name == "Fn" {
                let args = args
                    .iter()
                    .map(|a| lower_type(a, function, structs, diagnostics))
                    .collect();
                return Ty::Constructed(Ctor::Fn, args);
            }
            if let Some(cname) = Ctor::written(name) {
                let arity = cname.arity().unwrap_or(args.len());
                if args.len() != arity {
                    diagnostics.push(
                        Diagnostic::error(
                            "E0602",
                            ty.span,
                            format!(
                                "`{name}` takes {arity} type argument(s), {} given",
                                args.len()
                            ),
                        )
                        .with_help(if arity == 0 {
                            format!("write `{name}`")
                        } else {
                            format!("write `{name}<T>`")
                        }),
                    );
                    return Ty::Unknown;
                }
                let args = args
                    .iter()
                    .map(|a| lower_type(a, function, structs, diagnostics))
                    .collect();
                return Ty::Constructed(cname, args);
            }
            if let Some(def) = structs.get(name) {
                return lower_struct_type(ty, def, args, function, structs, diagnostics);
            }
            let known = Scalar::ALL
                .iter()
                .map(|s| s.name())
                .chain(Ctor::WRITTEN.iter().map(|c| c.name()))
                .chain(function.generics.iter().map(|g| g.name.name.as_str()))
                .chain(structs.names());
            diagnostics.push(unknown_type(ty, name, || match builtins::closest(name, known) {
                Some(s) => {
                    format!("did you mean `{s}`? Type parameters must be declared in `where`")
                }
                None => format!(
                    "declare it as a type parameter (`where {name}: Real`) or use f64, i64, [T], Vec<T>, Matrix<T>, Complex<T>"
                ),
            }));
            Ty::Unknown
        }
        TypeKind::Slice(inner) => {
            Ty::Slice(Box::new(lower_type(inner, function, structs, diagnostics)))
        }
        TypeKind::Tuple(items) => Ty::Tuple(
            items
                .iter()
                .map(|t| lower_type(t, function, structs, diagnostics))
                .collect(),
        ),
    }
}

/// `Point{T}` in a signature: a user struct with its type arguments.
fn lower_struct_type(
    ty: &Type,
    def: &StructDef,
    args: &[Type],
    function: &Function,
    structs: &StructTable,
    diagnostics: &mut Vec<Diagnostic>,
) -> Ty {
    if args.len() != def.generics.len() {
        let params: Vec<&str> = def.generics.iter().map(|g| g.name.name.as_str()).collect();
        diagnostics.push(
            Diagnostic::error(
                "E0602",
                ty.span,
                format!(
                    "struct `{}` takes {} type argument(s), {} given",
                    def.name.name,
                    params.len(),
                    args.len()
                ),
            )
            .with_label("wrong number of type arguments")
            .with_help(if params.is_empty() {
                format!("write `{}`", def.name.name)
            } else {
                format!("write `{}{{{}}}`", def.name.name, params.join(", "))
            }),
        );
        return Ty::Unknown;
    }
    let args = args
        .iter()
        .map(|a| lower_type(a, function, structs, diagnostics))
        .collect();
    crate::structs::instantiate(def, args, structs)
}

fn literal_type(expr: &Expr) -> Option<Ty> {
    nilang_syntax::stack::deep(|| match &expr.kind {
        ExprKind::Int(_) => Some(Ty::Scalar(Scalar::I64)),
        ExprKind::Float(_) => Some(Ty::Scalar(Scalar::F64)),
        ExprKind::Bool(_) => Some(Ty::Scalar(Scalar::Bool)),
        ExprKind::Unary { operand, .. } | ExprKind::Paren(operand) => literal_type(operand),
        _ => None,
    })
}

/// The type of a place (`x`, `x[i]`, `x.f`), `Unknown` when not evident.
pub fn place_type(expr: &Expr, resolution: &Resolution, defs: &[Ty]) -> Ty {
    nilang_syntax::stack::deep(|| match &expr.kind {
        ExprKind::Var(_) => resolution
            .def_at(expr.span)
            .and_then(|id| defs.get(id).cloned())
            .unwrap_or(Ty::Unknown),
        ExprKind::Index { base, .. } => place_type(base, resolution, defs).element().clone(),
        ExprKind::Field { base, field } => {
            field_type(&place_type(base, resolution, defs), &field.name)
        }
        ExprKind::Paren(inner) | ExprKind::Adjoint(inner) => place_type(inner, resolution, defs),
        _ => Ty::Unknown,
    })
}

/// The type of an allocation value; `Unknown` when it is not evident.
/// The types of a function's positional parameters (`Unknown` where one
/// has none), from its resolution and its definitions' types.
pub fn param_types(function: &Function, resolution: &Resolution, defs: &[Ty]) -> Vec<Ty> {
    function
        .params
        .iter()
        .map(|p| {
            resolution
                .def_at(p.name.span)
                .and_then(|id| defs.get(id))
                .cloned()
                .unwrap_or(Ty::Unknown)
        })
        .collect()
}

/// The scalar a function's reverse pass takes its adjoints in
/// (`G: Adjoint<scalar>` in generated code): its first type parameter; for
/// a function without one, `f32` when every float among its parameters'
/// types is `f32`, else `f64`. Decided here for the type checks (a call
/// that binds a callee's adjoints to another scalar, E0701) and the Rust
/// backend alike.
pub fn adjoint_scalar(function: &Function, params: &[Ty]) -> Ty {
    if let Some(g) = function.generics.first() {
        return Ty::Generic(g.name.name.clone());
    }
    concrete_adjoint_scalar(params)
}

/// [`adjoint_scalar`] of a function without type parameters.
pub fn concrete_adjoint_scalar(params: &[Ty]) -> Ty {
    let mut floats = Vec::new();
    params.iter().for_each(|t| t.floats(&mut floats));
    if !floats.is_empty() && floats.iter().all(|f| *f == "f32") {
        Ty::Scalar(Scalar::F32)
    } else {
        Ty::Scalar(Scalar::F64)
    }
}

/// The type of a named constant (`builtins::CONSTANTS`) that is no
/// variable: `π`, `Inf`, `NaN` are `f64`, `im` is `Complex<f64>`.
pub fn constant_type(name: &str) -> Option<Ty> {
    match name {
        "π" | "pi" | "Inf" | "NaN" => Some(Ty::Scalar(Scalar::F64)),
        "im" => Some(Ty::Constructed(
            Ctor::Complex,
            vec![Ty::Scalar(Scalar::F64)],
        )),
        _ => None,
    }
}

/// The type of `ulog(x)` or `tropical(x)` for `x` of type `arg`: over `x`'s
/// float type or type parameter, `ULogarithmic<Fixed43>` over a fixed-point
/// number (NiLang's exact log numbers), and over `f64` otherwise.
pub fn number_of(name: &str, arg: &Ty) -> Ty {
    let inner = match arg {
        t @ (Ty::Scalar(Scalar::F64 | Scalar::F32) | Ty::Generic(_)) => t.clone(),
        t @ Ty::Constructed(Ctor::Fixed43, _) if name == "ulog" => t.clone(),
        _ => Ty::Scalar(Scalar::F64),
    };
    let ctor = if name == "ulog" {
        Ctor::ULogarithmic
    } else {
        Ctor::Tropical
    };
    Ty::Constructed(ctor, vec![inner])
}

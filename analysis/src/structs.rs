//! User types: `struct Point{T} x::T; y::T end`.
//!
//! A struct is a named record of fields. Its values are built by an
//! allocation `p ← Point(a, b)` (the fields get the values of `a` and `b`)
//! and taken apart by a deallocation `p → Point(a, b)`, which at run time
//! checks that each field equals the value given for it. Its fields are
//! places (`p.x += y`, `SWAP(p.x, p.y)`, `ps[i].x -= 1`).
//!
//! This module holds the project's table of structs and the checks on
//! struct definitions (E0901-E0903, E0906, and E0602 for a field's unknown
//! type) and on their uses in functions (E0904, E0905, E0907). The types
//! module lowers a struct type to [`Ty::Struct`] through [`instantiate`].

use std::sync::Arc;

use rustc_hash::FxHashMap;

use crate::ast::*;
use crate::builtins;
use crate::diagnostics::Diagnostic;
use crate::ty::{Ctor, Scalar, Ty};

/// How deep struct types may nest inside each other (a recursive struct is
/// reported as E0903; this only bounds the work on such input).
const MAX_NESTING: u32 = 16;

/// The structs of a project by name (the first definition wins), with the
/// index of the file each is defined in.
#[derive(Clone, PartialEq, Eq, Debug, Default)]
pub struct StructTable {
    pub by_name: FxHashMap<String, (Arc<StructDef>, usize)>,
}

impl StructTable {
    pub fn get(&self, name: &str) -> Option<&StructDef> {
        self.by_name.get(name).map(|(d, _)| &**d)
    }

    /// The names of every struct, sorted (for suggestions).
    pub fn names(&self) -> Vec<&str> {
        let mut names: Vec<&str> = self.by_name.keys().map(String::as_str).collect();
        names.sort_unstable();
        names
    }
}

/// Builds the table from the structs of each file (in project order) and
/// reports the problems of the definitions: `(file index, diagnostic)` with
/// absolute spans. `is_function` says whether a name is a function of the
/// project (a struct may not share it: `Point(a, b)` would be ambiguous).
pub fn build_table(
    files: &[&[Arc<StructDef>]],
    is_function: &dyn Fn(&str) -> bool,
) -> (StructTable, Vec<(usize, Diagnostic)>) {
    let mut table = StructTable::default();
    let mut out = Vec::new();
    for (file, defs) in files.iter().enumerate() {
        for def in defs.iter() {
            let name = &def.name;
            let builtin = crate::ty::is_builtin_type(&name.name)
                || builtins::pure_function(&name.name).is_some()
                || builtins::instruction(&name.name).is_some();
            if crate::names::rust_name(&name.name) == crate::names::ADJOINT_TYPE {
                out.push((
                    file,
                    Diagnostic::error(
                        "E0110",
                        name.span,
                        format!("`{}` is a name generated code keeps for itself", name.name),
                    )
                    .with_label("this name is taken")
                    .with_help(format!(
                        "reverse passes take the adjoints' type as the type parameter `{}`, which would hide this struct inside them; rename the struct",
                        crate::names::ADJOINT_TYPE
                    )),
                ));
                continue;
            }
            if builtin || is_function(&name.name) {
                let what = if builtin {
                    "a built-in type or function"
                } else {
                    "a function of this project"
                };
                out.push((
                    file,
                    Diagnostic::error(
                        "E0901",
                        name.span,
                        format!("struct `{}` has the name of {what}", name.name),
                    )
                    .with_label("this name is taken")
                    .with_help(
                        "structs, functions and built-ins share one namespace; rename the struct",
                    ),
                ));
                continue;
            }
            if let Some((first, first_file)) = table.by_name.get(&name.name) {
                let mut d = Diagnostic::error(
                    "E0901",
                    name.span,
                    format!("struct `{}` is defined twice", name.name),
                )
                .with_label("second definition")
                .with_help("structs share one namespace per project (crate); rename one of them");
                if *first_file == file {
                    d = d.with_secondary(first.name.span, "first defined here");
                }
                out.push((file, d));
                continue;
            }
            table.by_name.insert(name.name.clone(), (def.clone(), file));
        }
    }
    // Per definition: fields, their types, recursion.
    for (file, defs) in files.iter().enumerate() {
        for def in defs.iter() {
            let mut seen: FxHashMap<&str, Span> = FxHashMap::default();
            for field in &def.fields {
                if let Some(first) = seen.insert(&field.name.name, field.name.span) {
                    out.push((
                        file,
                        Diagnostic::error(
                            "E0902",
                            field.name.span,
                            format!(
                                "field `{}` is declared twice in struct `{}`",
                                field.name.name, def.name.name
                            ),
                        )
                        .with_label("second declaration")
                        .with_secondary(first, "first declared here")
                        .with_help("rename or remove one of the fields"),
                    ));
                }
                check_field_type(&field.ty, def, &table, file, &mut out);
            }
            if table
                .by_name
                .get(&def.name.name)
                .is_some_and(|(d, _)| Arc::ptr_eq(d, def))
                && let Some(path) = cycle(def, &table)
            {
                out.push((
                    file,
                    Diagnostic::error(
                        "E0903",
                        def.name.span,
                        format!("struct `{}` contains itself", def.name.name),
                    )
                    .with_label(format!("through {}", path.join(" → ")))
                    .with_help(
                        "a value of it would be infinitely large; a struct may hold other structs, but not itself, directly or through them",
                    ),
                ));
            }
        }
    }
    (table, out)
}

/// E0602 for an unknown type in a field, E0906 for a field type a struct
/// cannot hold (arrays, stacks, tuples).
fn check_field_type(
    ty: &Type,
    def: &StructDef,
    table: &StructTable,
    file: usize,
    out: &mut Vec<(usize, Diagnostic)>,
) {
    match &ty.kind {
        TypeKind::Named { name, args } => {
            if name.is_empty()
                || Scalar::named(name).is_some()
                || (def.generics.iter().any(|g| &g.name.name == name) && args.is_empty())
            {
                return;
            }
            if name == "Complex" && args.len() == 1 {
                check_field_type(&args[0], def, table, file, out);
                return;
            }
            if let Some(s) = table.get(name) {
                if s.generics.len() != args.len() {
                    out.push((
                        file,
                        Diagnostic::error(
                            "E0602",
                            ty.span,
                            format!(
                                "struct `{name}` takes {} type argument(s), {} given",
                                s.generics.len(),
                                args.len()
                            ),
                        )
                        .with_label("wrong number of type arguments")
                        .with_help(format!(
                            "write `{name}{{{}}}`",
                            s.generics
                                .iter()
                                .map(|g| g.name.name.as_str())
                                .collect::<Vec<_>>()
                                .join(", ")
                        )),
                    ));
                }
                for a in args {
                    check_field_type(a, def, table, file, out);
                }
                return;
            }
            if Ctor::written(name).is_some() {
                unsupported_field(ty, file, out);
                return;
            }
            let known = Scalar::ALL
                .iter()
                .map(|s| s.name())
                .chain(def.generics.iter().map(|g| g.name.name.as_str()))
                .chain(table.names())
                .chain(["Complex"]);
            let d = crate::ty::unknown_type(ty, name, || match builtins::closest(name, known) {
                Some(s) => format!("did you mean `{s}`?"),
                None => format!(
                    "declare it as a type parameter of the struct (`struct {}{{{name}}}`), or use a scalar, `Complex<T>` or another struct",
                    def.name.name
                ),
            });
            out.push((file, d));
        }
        TypeKind::Slice(_) | TypeKind::Tuple(_) => unsupported_field(ty, file, out),
    }
}

fn unsupported_field(ty: &Type, file: usize, out: &mut Vec<(usize, Diagnostic)>) {
    out.push((
        file,
        Diagnostic::error("E0906", ty.span, "a struct field cannot hold an array, a stack or a tuple")
            .with_label("not a scalar, complex or struct type")
            .with_help("fields are scalars (f64, i64, ...), type parameters, `Complex<T>` or other structs; pass arrays as parameters of their own"),
    ));
}

/// The chain of struct names through which `def` contains itself, if any.
fn cycle(def: &StructDef, table: &StructTable) -> Option<Vec<String>> {
    fn visit(
        target: &str,
        current: &StructDef,
        table: &StructTable,
        path: &mut Vec<String>,
        seen: &mut Vec<String>,
    ) -> bool {
        for field in &current.fields {
            let mut names = Vec::new();
            struct_names(&field.ty, &mut names);
            for n in names {
                if n == target {
                    path.push(format!("{}.{}", current.name.name, field.name.name));
                    return true;
                }
                if seen.contains(&n) {
                    continue;
                }
                seen.push(n.clone());
                if let Some(inner) = table.get(&n) {
                    path.push(format!("{}.{}", current.name.name, field.name.name));
                    if visit(target, inner, table, path, seen) {
                        return true;
                    }
                    path.pop();
                }
            }
        }
        false
    }
    let mut path = Vec::new();
    let mut seen = Vec::new();
    visit(&def.name.name, def, table, &mut path, &mut seen).then_some(path)
}

fn struct_names(ty: &Type, out: &mut Vec<String>) {
    match &ty.kind {
        TypeKind::Named { name, args } => {
            out.push(name.clone());
            args.iter().for_each(|a| struct_names(a, out));
        }
        TypeKind::Slice(inner) => struct_names(inner, out),
        TypeKind::Tuple(items) => items.iter().for_each(|t| struct_names(t, out)),
    }
}

/// The type `Name{args...}`: its fields' types with the struct's type
/// parameters replaced by `args`. `Unknown` for a recursive struct or a
/// wrong number of arguments (both reported elsewhere).
pub fn instantiate(def: &StructDef, args: Vec<Ty>, table: &StructTable) -> Ty {
    instantiate_at(def, args, table, 0)
}

fn instantiate_at(def: &StructDef, args: Vec<Ty>, table: &StructTable, depth: u32) -> Ty {
    if depth > MAX_NESTING || args.len() != def.generics.len() {
        return Ty::Unknown;
    }
    let subst: Vec<(&str, &Ty)> = def
        .generics
        .iter()
        .map(|g| g.name.name.as_str())
        .zip(args.iter())
        .collect();
    let fields = def
        .fields
        .iter()
        .map(|f| {
            (
                f.name.name.clone(),
                field_ty(&f.ty, &subst, table, depth + 1),
            )
        })
        .collect();
    let generic = def
        .fields
        .iter()
        .map(|f| {
            let mut names = Vec::new();
            struct_names(&f.ty, &mut names);
            names
                .iter()
                .any(|n| def.generics.iter().any(|g| &g.name.name == n))
        })
        .collect();
    Ty::Struct {
        name: def.name.name.clone(),
        args,
        fields,
        generic,
    }
}

fn field_ty(ty: &Type, subst: &[(&str, &Ty)], table: &StructTable, depth: u32) -> Ty {
    let TypeKind::Named { name, args } = &ty.kind else {
        return Ty::Unknown;
    };
    if let Some(s) = Scalar::named(name) {
        return Ty::Scalar(s);
    }
    if args.is_empty()
        && let Some((_, t)) = subst.iter().find(|(g, _)| g == name)
    {
        return (*t).clone();
    }
    let lowered: Vec<Ty> = args
        .iter()
        .map(|a| field_ty(a, subst, table, depth))
        .collect();
    if name == "Complex" && lowered.len() == 1 {
        return Ty::Constructed(Ctor::Complex, lowered);
    }
    match table.get(name) {
        Some(def) => instantiate_at(def, lowered, table, depth),
        None => Ty::Unknown,
    }
}

/// The type of a construction `Name(args...)` from the types of its
/// arguments: each type parameter takes the type of the first argument
/// whose field is declared with it. `Unknown` when one stays open.
pub fn construction_type(def: &StructDef, arg_types: &[Ty], table: &StructTable) -> Ty {
    let mut bound: Vec<Option<Ty>> = vec![None; def.generics.len()];
    for (field, actual) in def.fields.iter().zip(arg_types) {
        bind(&field.ty, actual, def, &mut bound);
    }
    let args: Option<Vec<Ty>> = bound.into_iter().collect();
    match args {
        Some(args) => instantiate(def, args, table),
        None => Ty::Unknown,
    }
}

fn bind(decl: &Type, actual: &Ty, def: &StructDef, bound: &mut [Option<Ty>]) {
    let TypeKind::Named { name, args } = &decl.kind else {
        return;
    };
    if *actual == Ty::Unknown {
        return;
    }
    if args.is_empty()
        && let Some(i) = def.generics.iter().position(|g| &g.name.name == name)
    {
        if bound[i].is_none() {
            bound[i] = Some(actual.clone());
        }
        return;
    }
    match actual {
        Ty::Constructed(Ctor::Complex, inner) if name == "Complex" && args.len() == 1 => {
            bind(&args[0], &inner[0], def, bound);
        }
        Ty::Struct {
            name: n, args: a, ..
        } if n == name && a.len() == args.len() => {
            for (d, t) in args.iter().zip(a) {
                bind(d, t, def, bound);
            }
        }
        _ => {}
    }
}

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
use crate::resolve::Resolution;
use crate::types::{FunctionTypes, Ty};

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
            let builtin = builtins::SCALAR_TYPES.contains(&name.name.as_str())
                || builtins::TYPE_CONSTRUCTORS
                    .iter()
                    .any(|(n, _)| *n == name.name)
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
                || builtins::SCALAR_TYPES.contains(&name.as_str())
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
            if builtins::TYPE_CONSTRUCTORS.iter().any(|(n, _)| n == name) {
                unsupported_field(ty, file, out);
                return;
            }
            let known = builtins::SCALAR_TYPES
                .iter()
                .copied()
                .chain(def.generics.iter().map(|g| g.name.name.as_str()))
                .chain(table.names())
                .chain(["Complex"]);
            let d = crate::types::unknown_type(ty, name, || match builtins::closest(name, known) {
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
    if let Some(s) = builtins::SCALAR_TYPES.iter().find(|s| *s == name) {
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
        return Ty::Constructed("Complex", lowered);
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
        Ty::Constructed("Complex", inner) if name == "Complex" && args.len() == 1 => {
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

/// The checks of struct uses in one function (function-relative spans):
/// E0904 (a field the struct does not have), E0905 (a construction with the
/// wrong number of values), E0907 (a construction anywhere but as the value
/// of `←` or `→`).
pub fn check_function(
    function: &Function,
    resolution: &Resolution,
    types: &FunctionTypes,
    table: &StructTable,
) -> Vec<Diagnostic> {
    let mut out = Vec::new();
    if table.by_name.is_empty() {
        return out;
    }
    let mut stmts: Vec<&Stmt> = Vec::new();
    crate::effects::visit_block(&function.body, &mut |s| stmts.push(s));
    for stmt in &stmts {
        whole_struct_uses(stmt, resolution, types, table, &mut out);
    }
    for stmt in stmts {
        // The constructions allowed here: the value of `←`/`→`, and the
        // constructions nested in it as field values.
        let mut allowed: Vec<Span> = Vec::new();
        if let StmtKind::Alloc { value, .. } | StmtKind::Dealloc { value, .. } = &stmt.kind {
            allowed_constructions(value, table, &mut allowed);
        }
        crate::ast::stmt_exprs(stmt, &mut |e: &Expr| {
            e.walk(&mut |sub: &Expr| match &sub.kind {
                ExprKind::Call { callee, args, .. } => {
                    let Some(def) = table.get(&callee.name) else {
                        return;
                    };
                    if args.len() != def.fields.len() {
                        out.push(
                            Diagnostic::error(
                                "E0905",
                                callee.span,
                                format!(
                                    "struct `{}` has {} field{}, but {} value{} given",
                                    def.name.name,
                                    def.fields.len(),
                                    if def.fields.len() == 1 { "" } else { "s" },
                                    args.len(),
                                    if args.len() == 1 { " was" } else { "s were" }
                                ),
                            )
                            .with_label("wrong number of values")
                            .with_help(format!(
                                "give one value per field, in order: `{}({})`",
                                def.name.name,
                                def.fields
                                    .iter()
                                    .map(|f| f.name.name.as_str())
                                    .collect::<Vec<_>>()
                                    .join(", ")
                            )),
                        );
                    }
                    if !allowed.contains(&sub.span) {
                        out.push(
                            Diagnostic::error(
                                "E0907",
                                sub.span,
                                format!("`{}(...)` builds a struct value here", def.name.name),
                            )
                            .with_label("a construction inside an expression")
                            .with_help(format!(
                                "construct into an ancilla, `p ← {}(...)`, and take it apart with `p → {}(...)`",
                                def.name.name, def.name.name
                            )),
                        );
                    }
                }
                ExprKind::Field { base, field } => {
                    if let Some(Ty::Struct { name, fields, .. }) =
                        place_type(base, resolution, types).as_ref()
                        && !fields.iter().any(|(f, _)| *f == field.name)
                    {
                        let names: Vec<&str> = fields.iter().map(|(f, _)| f.as_str()).collect();
                        let help = match builtins::closest(&field.name, names.iter().copied()) {
                            Some(s) => format!("did you mean `{s}`?"),
                            None => format!("the fields of `{name}` are {}", names.join(", ")),
                        };
                        out.push(
                            Diagnostic::error(
                                "E0904",
                                field.span,
                                format!("struct `{name}` has no field `{}`", field.name),
                            )
                            .with_label("unknown field")
                            .with_help(help),
                        );
                    }
                }
                _ => {}
            })
        });
    }
    out
}

/// E0908: a whole struct where a number is needed, in an instruction (as
/// its target or inside its value), a condition, a range, or as the
/// operand of a built-in instruction other than `SWAP`. A whole struct may
/// be allocated from, compared at a deallocation, passed to a function, put
/// in a field of a construction, and swapped.
fn whole_struct_uses(
    stmt: &Stmt,
    resolution: &Resolution,
    types: &FunctionTypes,
    table: &StructTable,
    out: &mut Vec<Diagnostic>,
) {
    let mut values: Vec<(&Expr, bool)> = Vec::new();
    match &stmt.kind {
        StmtKind::Instr { target, value, .. } => {
            values.push((target, false));
            values.push((value, false));
        }
        StmtKind::Call(call) => {
            let instruction = builtins::instruction(&call.callee.name);
            let whole = instruction.is_none() || call.callee.name == "SWAP";
            for a in &call.args {
                values.push((a, whole));
            }
            for k in &call.kwargs {
                values.push((&k.value, whole));
            }
        }
        StmtKind::Alloc { value, .. } | StmtKind::Dealloc { value, .. } => {
            values.push((value, true));
        }
        StmtKind::If { branches, .. } => {
            for b in branches {
                values.push((&b.cond.pre, false));
                if let Post::Expr(e) = &b.cond.post {
                    values.push((e, false));
                }
            }
        }
        StmtKind::While { cond, .. } => {
            values.push((&cond.pre, false));
            if let Post::Expr(e) = &cond.post {
                values.push((e, false));
            }
        }
        StmtKind::For { range, .. } => {
            values.push((&range.start, false));
            if let Some(step) = &range.step {
                values.push((step, false));
            }
            values.push((&range.stop, false));
        }
        _ => {}
    }
    for (e, whole) in values {
        check_value(e, whole, resolution, types, table, out);
    }
}

fn check_value(
    e: &Expr,
    whole: bool,
    resolution: &Resolution,
    types: &FunctionTypes,
    table: &StructTable,
    out: &mut Vec<Diagnostic>,
) {
    nilang_syntax::stack::deep(|| {
        let children = |e: &Expr, whole: bool, out: &mut Vec<Diagnostic>| {
            check_value(e, whole, resolution, types, table, out)
        };
        match &e.kind {
            ExprKind::Var(_) | ExprKind::Index { .. } | ExprKind::Field { .. } => {
                if !whole && let Some(Ty::Struct { name, .. }) = place_type(e, resolution, types) {
                    out.push(
                    Diagnostic::error(
                        "E0908",
                        e.span,
                        format!("a whole `{name}` struct is used where a number is needed"),
                    )
                    .with_label("a struct value")
                    .with_help(
                        "use one of its fields (`p.x`); a whole struct can be allocated from, passed to a function, swapped, or put in a field of a construction",
                    ),
                );
                }
                // The base of a field access is read only through the field;
                // the indices of an element are numbers.
                if let ExprKind::Index { indices, .. } = &e.kind {
                    for i in indices {
                        match i {
                            IndexArg::Expr(x) => children(x, false, out),
                            IndexArg::Range(r) => {
                                children(&r.start, false, out);
                                if let Some(step) = &r.step {
                                    children(step, false, out);
                                }
                                children(&r.stop, false, out);
                            }
                            IndexArg::Colon(_) => {}
                        }
                    }
                }
            }
            ExprKind::Call { callee, args, .. } if table.get(&callee.name).is_some() => {
                for a in args {
                    children(a, true, out);
                }
            }
            ExprKind::Call { args, kwargs, .. } => {
                for a in args {
                    children(a, false, out);
                }
                for k in kwargs {
                    children(&k.value, false, out);
                }
            }
            ExprKind::Paren(inner) => children(inner, whole, out),
            ExprKind::Adjoint(inner) | ExprKind::Unary { operand: inner, .. } => {
                children(inner, false, out)
            }
            ExprKind::Binary { lhs, rhs, .. } => {
                children(lhs, false, out);
                children(rhs, false, out);
            }
            ExprKind::Tuple(items) => {
                for i in items {
                    children(i, whole, out);
                }
            }
            _ => {}
        }
    })
}

fn allowed_constructions(value: &Expr, table: &StructTable, out: &mut Vec<Span>) {
    nilang_syntax::stack::deep(|| {
        if let ExprKind::Call { callee, args, .. } = &value.kind
            && table.get(&callee.name).is_some()
        {
            out.push(value.span);
            for a in args {
                allowed_constructions(a, table, out);
            }
        }
    })
}

/// The type of a place (`p`, `ps[i]`, `p.q`), where it is evident.
pub fn place_type(expr: &Expr, resolution: &Resolution, types: &FunctionTypes) -> Option<Ty> {
    nilang_syntax::stack::deep(|| match &expr.kind {
        ExprKind::Var(_) => {
            let id = resolution.def_at(expr.span)?;
            types.defs.get(id).cloned()
        }
        ExprKind::Index { base, .. } => {
            Some(place_type(base, resolution, types)?.element().clone())
        }
        ExprKind::Field { base, field } => Some(crate::types::field_type(
            &place_type(base, resolution, types)?,
            &field.name,
        )),
        ExprKind::Paren(inner) => place_type(inner, resolution, types),
        _ => None,
    })
}

//! What is at a byte offset and where it leads: the symbol under the cursor,
//! its definition, its references, the function and statement containing an
//! offset.

use nilang_analysis::ast::*;
use nilang_analysis::db::{self, Db, FnId, Project, SourceFile};
use nilang_analysis::resolve::{Callee, DefId};
use nilang_analysis::{effects, struct_checks};

/// Something a name in the source stands for.
#[derive(Clone, PartialEq, Eq, Debug)]
pub enum Symbol<'db> {
    /// A function of the project, by name.
    Function(String),
    /// A built-in instruction such as `SWAP`.
    Instruction(&'static str),
    /// A parameter, ancilla or loop variable of one function.
    Local { function: FnId<'db>, def: DefId },
    /// A user struct, by name.
    Struct(String),
    /// A field of a user struct.
    Field { structure: String, field: String },
    /// A module path in a `using` or `import` line (`std.linalg`).
    Module(String),
}

/// The function whose text contains the byte `offset` of `file`.
pub fn function_at<'db>(
    db: &'db dyn Db,
    project: Project,
    file: SourceFile,
    offset: u32,
) -> Option<FnId<'db>> {
    db::file_functions(db, project, file)
        .iter()
        .copied()
        .find(|&f| {
            let start = db::function_offset(db, f);
            db::function_ast(db, f).is_some_and(|ast| ast.span.shift(start).contains(offset))
        })
}

/// The symbol under `offset` and the absolute span of the name there.
pub fn symbol_at<'db>(
    db: &'db dyn Db,
    project: Project,
    file: SourceFile,
    offset: u32,
) -> Option<(Symbol<'db>, Span)> {
    if let Some(found) = struct_symbol_at(db, file, offset) {
        return Some(found);
    }
    if let Some(found) = import_symbol_at(db, project, file, offset) {
        return Some(found);
    }
    let f = function_at(db, project, file, offset)?;
    let start = db::function_offset(db, f);
    let rel = offset.checked_sub(start)?;
    let ast = db::function_ast(db, f)?;
    let resolution = db::resolve_function(db, f);
    let mut candidates: Vec<(Span, Symbol<'db>)> = Vec::new();
    candidates.push((ast.name.span, Symbol::Function(ast.name.name.clone())));
    // A call of a function parameter (`f(x)` with `f::Fn<..>`) names the
    // parameter; a function passed by name names that function.
    let function_params = nilang_analysis::values::function_params(&ast);
    for call in &resolution.calls {
        let symbol = match &call.callee {
            Callee::Function(name) => match function_params.iter().find(|(_, p, _)| p == name) {
                Some(&(i, _, _)) => match resolution.def_at(ast.params[i].name.span) {
                    Some(def) => Symbol::Local { function: f, def },
                    None => continue,
                },
                None => Symbol::Function(name.clone()),
            },
            Callee::Instruction(name) => Symbol::Instruction(name),
        };
        candidates.push((call.span, symbol));
    }
    for (span, name) in &resolution.fn_refs {
        candidates.push((
            passed_name_span(*span, name),
            Symbol::Function(name.clone()),
        ));
    }
    for (span, def) in &resolution.uses {
        candidates.push((
            *span,
            Symbol::Local {
                function: f,
                def: *def,
            },
        ));
    }
    // Struct names and fields come first: `p.x`'s field is inside no use.
    let mut structs = struct_uses(db, f);
    structs.append(&mut candidates);
    let candidates = structs;
    // A cursor inside a name wins over one just after a name (`x|+y`).
    let inside = candidates
        .iter()
        .find(|(s, _)| s.start <= rel && rel < s.end)
        .or_else(|| candidates.iter().find(|(s, _)| s.contains(rel)))?;
    Some((inside.1.clone(), inside.0.shift(start)))
}

/// The name of a function passed as a value, from the argument's span
/// (function-relative) in [`Resolution::fn_refs`]: the argument itself for
/// a function passed by name (`map!(square!, …)`), its callee's name for a
/// partial application (`scale!(_, c)`), so that its captured arguments
/// stay themselves.
///
/// [`Resolution::fn_refs`]: nilang_analysis::resolve::Resolution::fn_refs
pub(crate) fn passed_name_span(span: Span, name: &str) -> Span {
    let written = nilang_analysis::modules::bare_name(name).len() as u32;
    Span::new(span.start, (span.start + written).min(span.end))
}

/// A name in an `import M: f, g` declaration: the function it imports.
fn import_symbol_at<'db>(
    db: &'db dyn Db,
    project: Project,
    file: SourceFile,
    offset: u32,
) -> Option<(Symbol<'db>, Span)> {
    let imports = &db::parse_file(db, file).imports;
    if let Some(import) = imports.iter().find(|i| i.module.span.contains(offset)) {
        return Some((
            Symbol::Module(import.module.name.clone()),
            import.module.span,
        ));
    }
    let name = imports
        .iter()
        .flat_map(|i| i.names.iter().flatten())
        .find(|n| n.span.contains(offset))?;
    let function = db::file_scope(db, project, file)
        .names
        .get(&name.name)
        .cloned()
        .unwrap_or_else(|| name.name.clone());
    Some((Symbol::Function(function), name.span))
}

/// Where a symbol is defined: its file and the absolute span of its name.
pub fn definition(
    db: &dyn Db,
    project: Project,
    symbol: &Symbol<'_>,
) -> Option<(SourceFile, Span)> {
    match symbol {
        Symbol::Function(name) => {
            let f = db::lookup_function(db, project, name)?;
            let ast = db::function_ast(db, f)?;
            Some((f.file(db), ast.name.span.shift(db::function_offset(db, f))))
        }
        Symbol::Instruction(_) => None,
        // A module's first file, at its start (a package: its first module).
        Symbol::Module(path) => {
            let registry = db::module_registry(db, project);
            let first = registry.modules.get(path)?.first()?;
            project
                .files(db)
                .iter()
                .copied()
                .find(|&f| db::module_path(db, project, f) == first.path)
                .map(|f| (f, Span::new(0, 0)))
        }
        Symbol::Struct(name) => {
            let structs = db::project_structs(db, project);
            let (def, i) = structs.table.by_name.get(name)?;
            Some((*structs.files.get(*i)?, def.name.span))
        }
        Symbol::Field { structure, field } => {
            let structs = db::project_structs(db, project);
            let (def, i) = structs.table.by_name.get(structure)?;
            let f = def.fields.iter().find(|f| f.name.name == *field)?;
            Some((*structs.files.get(*i)?, f.name.span))
        }
        Symbol::Local { function, def } => {
            let d = db::resolve_function(db, *function).defs.get(*def)?;
            Some((
                function.file(db),
                d.span.shift(db::function_offset(db, *function)),
            ))
        }
    }
}

/// Every occurrence of a symbol in the project, sorted by file order and
/// position. With `include_declaration`, the definition is one of them.
pub fn references(
    db: &dyn Db,
    project: Project,
    symbol: &Symbol<'_>,
    include_declaration: bool,
) -> Vec<(SourceFile, Span)> {
    let mut out = Vec::new();
    // Uses are looked for in this crate's files: the standard library and
    // the dependencies are not this crate's to list (a library function's
    // definition is still its declaration).
    let files: Vec<SourceFile> = project
        .files(db)
        .iter()
        .copied()
        .filter(|&f| db::is_local(db, project, f))
        .collect();
    match symbol {
        Symbol::Local { function, def } => {
            let resolution = db::resolve_function(db, *function);
            let offset = db::function_offset(db, *function);
            let def_span = resolution.defs.get(*def).map(|d| d.span);
            for (span, d) in &resolution.uses {
                if d == def && (include_declaration || Some(*span) != def_span) {
                    out.push((function.file(db), span.shift(offset)));
                }
            }
        }
        Symbol::Struct(_) | Symbol::Field { .. } => {
            for &file in &files {
                for &f in db::file_functions(db, project, file) {
                    let offset = db::function_offset(db, f);
                    for (span, s) in struct_uses(db, f) {
                        if s == *symbol {
                            out.push((file, span.shift(offset)));
                        }
                    }
                }
                for def in &db::parse_file(db, file).structs {
                    for field in &def.fields {
                        for (span, s) in type_struct_names(&field.ty) {
                            if matches!(symbol, Symbol::Struct(n) if *n == s) {
                                out.push((file, span));
                            }
                        }
                    }
                }
            }
            if include_declaration && let Some(declaration) = definition(db, project, symbol) {
                out.push(declaration);
            }
        }
        Symbol::Module(path) => {
            for &file in &files {
                for import in &db::parse_file(db, file).imports {
                    if import.module.name == *path {
                        out.push((file, import.module.span));
                    }
                }
            }
        }
        Symbol::Function(_) | Symbol::Instruction(_) => {
            let declaration = definition(db, project, symbol);
            for &file in &files {
                for &f in db::file_functions(db, project, file) {
                    let offset = db::function_offset(db, f);
                    let resolution = db::resolve_function(db, f);
                    for call in &resolution.calls {
                        let same = match (&call.callee, symbol) {
                            (Callee::Function(a), Symbol::Function(b)) => a == b,
                            (Callee::Instruction(a), Symbol::Instruction(b)) => a == b,
                            _ => false,
                        };
                        if same {
                            out.push((file, call.span.shift(offset)));
                        }
                    }
                    // Passed as a value: by name (`i_mapsum(sq!, …)`) or
                    // partially applied (`scale!(_, c)`).
                    if let Symbol::Function(b) = symbol {
                        for (span, name) in &resolution.fn_refs {
                            if name == b {
                                out.push((file, passed_name_span(*span, name).shift(offset)));
                            }
                        }
                    }
                }
            }
            if include_declaration && let Some(declaration) = declaration {
                out.push(declaration);
            }
        }
    }
    let order = |file: SourceFile| project.files(db).iter().position(|&f| f == file);
    out.sort_by_key(|(file, span)| (order(*file), span.start));
    out.dedup();
    out
}

/// A struct's name or one of its fields in a struct definition of `file`.
fn struct_symbol_at<'db>(
    db: &'db dyn Db,
    file: SourceFile,
    offset: u32,
) -> Option<(Symbol<'db>, Span)> {
    let parsed = db::parse_file(db, file);
    let def = parsed.structs.iter().find(|d| d.span.contains(offset))?;
    if def.name.span.contains(offset) {
        return Some((Symbol::Struct(def.name.name.clone()), def.name.span));
    }
    for field in &def.fields {
        if field.name.span.contains(offset) {
            return Some((
                Symbol::Field {
                    structure: def.name.name.clone(),
                    field: field.name.name.clone(),
                },
                field.name.span,
            ));
        }
        for (span, name) in type_struct_names(&field.ty) {
            if span.contains(offset) {
                return Some((Symbol::Struct(name), span));
            }
        }
    }
    None
}

/// The names written in a type (`Point` in `[Point{T}]`), with the span of
/// each name.
pub(crate) fn type_struct_names(ty: &Type) -> Vec<(Span, String)> {
    let mut out = Vec::new();
    fn walk(ty: &Type, out: &mut Vec<(Span, String)>) {
        nilang_syntax::stack::deep(|| match &ty.kind {
            TypeKind::Named { name, args } => {
                let end = ty.span.start + name.len() as u32;
                out.push((Span::new(ty.span.start, end), name.clone()));
                args.iter().for_each(|a| walk(a, out));
            }
            TypeKind::Slice(inner) => walk(inner, out),
            TypeKind::Tuple(items) => items.iter().for_each(|t| walk(t, out)),
        })
    }
    walk(ty, &mut out);
    out
}

/// The struct names (in parameter types and constructions) and fields
/// (`p.x` of a struct `p`) of one function, function-relative.
pub(crate) fn struct_uses<'db>(db: &'db dyn Db, f: FnId<'db>) -> Vec<(Span, Symbol<'db>)> {
    let structs = db::project_structs(db, f.project(db));
    let mut out = Vec::new();
    if structs.table.by_name.is_empty() {
        return out;
    }
    let Some(ast) = db::function_ast(db, f) else {
        return out;
    };
    let resolution = db::resolve_function(db, f);
    let types = db::function_types(db, f);
    for p in &ast.params {
        if let Some(ty) = &p.ty {
            for (span, name) in type_struct_names(ty) {
                if structs.table.get(&name).is_some() {
                    out.push((span, Symbol::Struct(name)));
                }
            }
        }
    }
    let mut stmts = Vec::new();
    effects::visit_block(&ast.body, &mut |s| stmts.push(s));
    for stmt in stmts {
        nilang_analysis::ast::stmt_exprs(stmt, &mut |e: &Expr| {
            e.walk(&mut |sub: &Expr| match &sub.kind {
                ExprKind::Call { callee, .. } if structs.table.get(&callee.name).is_some() => {
                    out.push((callee.span, Symbol::Struct(callee.name.clone())));
                }
                ExprKind::Field { base, field } => {
                    if let Some(nilang_analysis::ty::Ty::Struct { name, .. }) =
                        struct_checks::place_type(base, resolution, types)
                    {
                        out.push((
                            field.span,
                            Symbol::Field {
                                structure: name,
                                field: field.name.clone(),
                            },
                        ));
                    }
                }
                _ => {}
            })
        });
    }
    out
}

/// The innermost statement of `function` containing the function-relative
/// offset `rel`, with the block it belongs to and its index there.
pub fn statement_at(function: &Function, rel: u32) -> Option<(&[Stmt], usize)> {
    fn in_block(stmts: &[Stmt], rel: u32) -> Option<(&[Stmt], usize)> {
        let i = stmts.iter().position(|s| s.span.contains(rel))?;
        let stmt = &stmts[i];
        let inner = match &stmt.kind {
            StmtKind::If {
                branches,
                otherwise,
            } => branches
                .iter()
                .find_map(|b| in_block(&b.body.stmts, rel))
                .or_else(|| otherwise.as_ref().and_then(|b| in_block(&b.stmts, rel))),
            StmtKind::While { body, .. } | StmtKind::For { body, .. } | StmtKind::Begin(body) => {
                in_block(&body.stmts, rel)
            }
            StmtKind::Inverse(inner)
            | StmtKind::Routine(inner, _)
            | StmtKind::Tape(inner)
            | StmtKind::InvCheckOff(inner)
            | StmtKind::InBounds(inner) => in_block(std::slice::from_ref(inner), rel),
            _ => None,
        };
        inner.or(Some((stmts, i)))
    }
    in_block(&function.body.stmts, rel)
}

/// The occurrences in `file` of the symbol at `offset` (for an editor's
/// highlight of a name), each with whether it is the definition.
pub fn highlights(
    db: &dyn Db,
    project: Project,
    file: SourceFile,
    offset: u32,
) -> Vec<(Span, bool)> {
    let Some((symbol, _)) = symbol_at(db, project, file, offset) else {
        return Vec::new();
    };
    let defined = definition(db, project, &symbol);
    references(db, project, &symbol, true)
        .into_iter()
        .filter(|(f, _)| *f == file)
        .map(|(f, span)| (span, defined == Some((f, span))))
        .collect()
}

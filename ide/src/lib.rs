//! Editor queries over the database: what is at a byte offset, where it is
//! defined and used, which names are in scope, the inverse of one statement,
//! semantic classes of names, and formatting through the printer.
//!
//! Pure functions like the rest of the core: they take the database and byte
//! offsets into a file's text and return values with absolute spans. The
//! language server converts offsets to and from editor positions.

use nilang_analysis::ast::*;
use nilang_analysis::builtins;
use nilang_analysis::db::{self, Db, FnId, Project, SourceFile};
use nilang_analysis::invert::{invert_stmt, routine_pairs, unroutine_expansion};
use nilang_analysis::resolve::{Callee, DefId, DefKind};
use nilang_analysis::{effects, structs, types};
use nilang_syntax::{parser as syntax, printer};

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
    let f = function_at(db, project, file, offset)?;
    let start = db::function_offset(db, f);
    let rel = offset.checked_sub(start)?;
    let ast = db::function_ast(db, f)?;
    let resolution = db::resolve_function(db, f);
    let mut candidates: Vec<(Span, Symbol<'db>)> = Vec::new();
    candidates.push((ast.name.span, Symbol::Function(ast.name.name.clone())));
    for call in &resolution.calls {
        let symbol = match &call.callee {
            Callee::Function(name) => Symbol::Function(name.clone()),
            Callee::Instruction(name) => Symbol::Instruction(name),
        };
        candidates.push((call.span, symbol));
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
            for &file in project.files(db) {
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
        Symbol::Function(_) | Symbol::Instruction(_) => {
            let declaration = definition(db, project, symbol);
            for &file in project.files(db) {
                for &f in db::file_functions(db, project, file) {
                    let offset = db::function_offset(db, f);
                    for call in &db::resolve_function(db, f).calls {
                        let same = match (&call.callee, symbol) {
                            (Callee::Function(a), Symbol::Function(b)) => a == b,
                            (Callee::Instruction(a), Symbol::Instruction(b)) => a == b,
                            _ => false,
                        };
                        if same {
                            out.push((file, call.span.shift(offset)));
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
fn type_struct_names(ty: &Type) -> Vec<(Span, String)> {
    let mut out = Vec::new();
    fn walk(ty: &Type, out: &mut Vec<(Span, String)>) {
        match &ty.kind {
            TypeKind::Named { name, args } => {
                let end = ty.span.start + name.len() as u32;
                out.push((Span::new(ty.span.start, end), name.clone()));
                args.iter().for_each(|a| walk(a, out));
            }
            TypeKind::Slice(inner) => walk(inner, out),
            TypeKind::Tuple(items) => items.iter().for_each(|t| walk(t, out)),
        }
    }
    walk(ty, &mut out);
    out
}

/// The struct names (in parameter types and constructions) and fields
/// (`p.x` of a struct `p`) of one function, function-relative.
fn struct_uses<'db>(db: &'db dyn Db, f: FnId<'db>) -> Vec<(Span, Symbol<'db>)> {
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
                    if let Some(types::Ty::Struct { name, .. }) =
                        structs::place_type(base, resolution, types)
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
            | StmtKind::Routine(inner)
            | StmtKind::Tape(inner)
            | StmtKind::InvCheckOff(inner)
            | StmtKind::InBounds(inner) => in_block(std::slice::from_ref(inner), rel),
            _ => None,
        };
        inner.or(Some((stmts, i)))
    }
    in_block(&function.body.stmts, rel)
}

/// The inverse of the statement under `offset`, as `.nil` source, with the
/// absolute span of that statement. For `~@routine` it is what that line runs
/// (the inverse of its `@routine`).
pub fn statement_inverse(
    db: &dyn Db,
    project: Project,
    file: SourceFile,
    offset: u32,
) -> Option<(String, Span)> {
    let f = function_at(db, project, file, offset)?;
    let start = db::function_offset(db, f);
    let ast = db::function_ast(db, f)?;
    let (stmts, i) = statement_at(&ast, offset.checked_sub(start)?)?;
    let stmt = &stmts[i];
    let inverse = match stmt.kind {
        StmtKind::Unroutine => unroutine_expansion(stmts, &routine_pairs(stmts), i)?,
        _ => invert_stmt(stmt),
    };
    Some((printer::print_stmt(&inverse), stmt.span.shift(start)))
}

/// A name that can be written at some point of a function.
#[derive(Clone, PartialEq, Eq, Debug)]
pub struct ScopeName {
    pub name: String,
    pub kind: DefKind,
}

/// The variables in scope at the function-relative offset `rel`: parameters,
/// the loop variables of enclosing loops, and ancillas allocated earlier in
/// an enclosing block and not yet deallocated there.
pub fn names_in_scope(function: &Function, rel: u32) -> Vec<ScopeName> {
    let mut out: Vec<ScopeName> = Vec::new();
    for (i, p) in function.params.iter().enumerate() {
        out.push(ScopeName {
            name: p.name.name.clone(),
            kind: DefKind::Param(i),
        });
    }
    for (i, p) in function.kwparams.iter().enumerate() {
        out.push(ScopeName {
            name: p.name.name.clone(),
            kind: DefKind::KwParam(i),
        });
    }
    fn walk(stmts: &[Stmt], rel: u32, out: &mut Vec<ScopeName>) {
        for stmt in stmts {
            if stmt.span.start >= rel {
                break;
            }
            let inside = stmt.span.contains(rel);
            match &stmt.kind {
                StmtKind::Alloc { name, .. } if !inside => {
                    out.retain(|n| n.name != name.name);
                    out.push(ScopeName {
                        name: name.name.clone(),
                        kind: DefKind::Ancilla,
                    });
                }
                StmtKind::Dealloc { name, .. } if !inside => {
                    out.retain(|n| !(n.name == name.name && n.kind == DefKind::Ancilla));
                }
                StmtKind::If {
                    branches,
                    otherwise,
                } if inside => {
                    for b in branches {
                        walk(&b.body.stmts, rel, out);
                    }
                    if let Some(b) = otherwise {
                        walk(&b.stmts, rel, out);
                    }
                }
                StmtKind::While { body, .. } if inside => walk(&body.stmts, rel, out),
                StmtKind::For { var, body, .. } if inside => {
                    if var.span.end <= rel {
                        out.retain(|n| n.name != var.name);
                        out.push(ScopeName {
                            name: var.name.clone(),
                            kind: DefKind::LoopVar,
                        });
                    }
                    walk(&body.stmts, rel, out);
                }
                // `begin` and `@routine` open no scope: what they allocate
                // stays visible after them.
                StmtKind::Begin(body) => walk(&body.stmts, rel, out),
                StmtKind::Routine(inner)
                | StmtKind::Tape(inner)
                | StmtKind::InvCheckOff(inner)
                | StmtKind::InBounds(inner) => walk(std::slice::from_ref(inner), rel, out),
                _ => {}
            }
        }
    }
    walk(&function.body.stmts, rel, &mut out);
    out
}

/// What a name stands for, for semantic highlighting.
#[derive(Clone, Copy, PartialEq, Eq, Hash, Debug)]
pub enum NameClass {
    /// A function's name where it is defined.
    FunctionDefinition,
    /// A call or uncall of a project function.
    FunctionCall,
    /// A built-in instruction (`SWAP`, `INC`, ...).
    Instruction,
    /// A parameter; `mutated` when the function changes it.
    Parameter {
        mutated: bool,
    },
    KeywordParameter,
    Ancilla,
    LoopVariable,
    /// A user struct's name; `definition` where it is declared.
    Struct {
        definition: bool,
    },
    /// A struct field; `definition` where it is declared.
    Field {
        definition: bool,
    },
}

/// Every classified name of a file, sorted by position (absolute spans).
pub fn classify_names(db: &dyn Db, project: Project, file: SourceFile) -> Vec<(Span, NameClass)> {
    let mut out = Vec::new();
    for &f in db::file_functions(db, project, file) {
        let Some(ast) = db::function_ast(db, f) else {
            continue;
        };
        let offset = db::function_offset(db, f);
        let mutated = db::mutated_params(db, project, f.name(db)).unwrap_or_default();
        out.push((ast.name.span.shift(offset), NameClass::FunctionDefinition));
        let resolution = db::resolve_function(db, f);
        for call in &resolution.calls {
            let class = match call.callee {
                Callee::Function(_) => NameClass::FunctionCall,
                Callee::Instruction(_) => NameClass::Instruction,
            };
            out.push((call.span.shift(offset), class));
        }
        for (span, def) in &resolution.uses {
            let Some(d) = resolution.defs.get(*def) else {
                continue;
            };
            let class = match d.kind {
                DefKind::Param(i) => NameClass::Parameter {
                    mutated: mutated.get(i).copied().unwrap_or(false),
                },
                DefKind::KwParam(_) => NameClass::KeywordParameter,
                DefKind::Ancilla => NameClass::Ancilla,
                DefKind::LoopVar => NameClass::LoopVariable,
            };
            out.push((span.shift(offset), class));
        }
        for (span, symbol) in struct_uses(db, f) {
            let class = match symbol {
                Symbol::Field { .. } => NameClass::Field { definition: false },
                _ => NameClass::Struct { definition: false },
            };
            out.push((span.shift(offset), class));
        }
    }
    let structs = db::project_structs(db, project);
    for def in &db::parse_file(db, file).structs {
        out.push((def.name.span, NameClass::Struct { definition: true }));
        for field in &def.fields {
            out.push((field.name.span, NameClass::Field { definition: true }));
            for (span, name) in type_struct_names(&field.ty) {
                if structs.table.get(&name).is_some() {
                    out.push((span, NameClass::Struct { definition: false }));
                }
            }
        }
    }
    out.sort_by_key(|(span, _)| (span.start, span.end));
    out.dedup_by_key(|(span, _)| *span);
    out
}

/// Why a file is not formatted.
#[derive(Clone, PartialEq, Eq, Debug)]
pub enum FormatRefusal {
    /// The file has syntax errors: the printer would drop what did not parse.
    SyntaxErrors,
    /// The file has `#` comments, which the tree (and so the printer) does not keep.
    Comments,
    /// Printing and parsing again did not give the same tree (a printer bug;
    /// nothing is changed rather than risk changing the program).
    NotPreserved,
}

impl FormatRefusal {
    pub fn message(&self) -> &'static str {
        match self {
            FormatRefusal::SyntaxErrors => "not formatted: the file has syntax errors",
            FormatRefusal::Comments => {
                "not formatted: the file has `#` comments, which the formatter would drop"
            }
            FormatRefusal::NotPreserved => {
                "not formatted: the formatted text would not parse to the same program"
            }
        }
    }
}

/// Whether the text has a `#` comment (found by the parser, so `#` inside a
/// string does not count).
pub fn has_comments(text: &str) -> bool {
    let Some(tree) = syntax::parse_tree(text) else {
        return false;
    };
    let mut cursor = tree.walk();
    let mut stack = vec![tree.root_node()];
    while let Some(node) = stack.pop() {
        if node.kind() == "comment" {
            return true;
        }
        for child in node.children(&mut cursor) {
            stack.push(child);
        }
    }
    false
}

/// The file printed by the compiler's printer, one blank line between
/// functions. Refused when that could change or lose anything: syntax
/// errors, comments, or a printed text that does not parse back to the same
/// tree (spans aside).
pub fn format_file(text: &str) -> Result<String, FormatRefusal> {
    let parsed = syntax::parse(text);
    if !parsed.diagnostics.is_empty() {
        return Err(FormatRefusal::SyntaxErrors);
    }
    if has_comments(text) {
        return Err(FormatRefusal::Comments);
    }
    let formatted = print_items(&parsed.items, &parsed.structs);
    let reparsed = syntax::parse(&formatted);
    if !reparsed.diagnostics.is_empty()
        || reparsed.items.len() != parsed.items.len()
        || reparsed.structs.len() != parsed.structs.len()
        || parsed
            .structs
            .iter()
            .zip(&reparsed.structs)
            .any(|(a, b)| printer::print_struct(a) != printer::print_struct(b))
        || parsed
            .items
            .iter()
            .zip(&reparsed.items)
            .any(|(a, b)| without_spans(&a.function) != without_spans(&b.function))
    {
        return Err(FormatRefusal::NotPreserved);
    }
    Ok(formatted)
}

fn print_items(
    items: &[syntax::Item],
    structs: &[std::sync::Arc<nilang_analysis::ast::StructDef>],
) -> String {
    // Functions and structs in the order of the file.
    let mut all: Vec<(u32, String)> = items
        .iter()
        .map(|item| (item.offset, printer::print_function(&item.function)))
        .chain(
            structs
                .iter()
                .map(|s| (s.span.start, printer::print_struct(s))),
        )
        .collect();
    all.sort_by_key(|(at, _)| *at);
    let mut out = String::new();
    for (i, (_, text)) in all.iter().enumerate() {
        if i > 0 {
            out.push('\n');
        }
        out.push_str(text);
    }
    out
}

/// The tree's debug form with every span blanked, to compare two trees of
/// the same program written differently.
fn without_spans(function: &Function) -> String {
    let text = format!("{function:?}");
    let mut out = String::with_capacity(text.len());
    let bytes = text.as_bytes();
    let mut i = 0;
    while i < bytes.len() {
        // A span prints as `start..end` (digits, two dots, digits).
        if bytes[i].is_ascii_digit() && (i == 0 || !bytes[i - 1].is_ascii_alphanumeric()) {
            let mut j = i;
            while j < bytes.len() && bytes[j].is_ascii_digit() {
                j += 1;
            }
            if bytes[j..].starts_with(b"..") {
                let mut k = j + 2;
                let digits = k;
                while k < bytes.len() && bytes[k].is_ascii_digit() {
                    k += 1;
                }
                if k > digits {
                    out.push('_');
                    i = k;
                    continue;
                }
            }
        }
        let c = text[i..].chars().next().unwrap_or(' ');
        out.push(c);
        i += c.len_utf8().max(1);
    }
    out
}

/// Keywords and statement forms offered by completion, with a snippet body
/// in the LSP snippet syntax.
pub const KEYWORD_SNIPPETS: &[(&str, &str)] = &[
    ("function", "function ${1:name}(${2})\n\t$0\nend"),
    ("if", "if (${1:pre}, ${2:~})\n\t$0\nend"),
    ("while", "while (${1:pre}, ${2:post})\n\t$0\nend"),
    ("for", "for ${1:i} = ${2:1}:${3:n}\n\t$0\nend"),
    ("begin", "begin\n\t$0\nend"),
    ("@routine", "@routine begin\n\t$0\nend"),
    ("~@routine", "~@routine"),
    ("@safe", "@safe $0"),
    ("@invcheckoff", "@invcheckoff $0"),
    ("@inbounds", "@inbounds $0"),
    ("elseif", "elseif (${1:pre}, ${2:~})"),
    ("else", "else"),
    ("end", "end"),
];

/// One line describing an instruction: `SWAP(a, b)` and what it does.
pub fn instruction_summary(instruction: &builtins::Instruction) -> String {
    format!(
        "{}: {} (inverse: {})",
        instruction.name, instruction.summary, instruction.inverse
    )
}

#[cfg(test)]
mod tests {
    use super::*;
    use nilang_analysis::db::RootDatabase;

    const TEXT: &str = "\"\"\"Add x to y.\"\"\"\nfunction add(y::f64, x::f64)\n    a ← zero(f64)\n    a += x\n    y += identity(a)\n    a -= x\n    a → zero(f64)\nend\n\nfunction twice(y::f64, x::f64)\n    add(y, x)\n    ~add(y, x)\n    for i = 1:3\n        INC(y)\n    end\nend\n";

    fn setup() -> (RootDatabase, Project, SourceFile) {
        let db = RootDatabase::default();
        let file = SourceFile::new(&db, "t.nil".into(), TEXT.into());
        let project = Project::new(&db, vec![file]);
        (db, project, file)
    }

    fn at(needle: &str, nth: usize) -> u32 {
        TEXT.match_indices(needle).nth(nth).expect("needle").0 as u32
    }

    #[test]
    fn struct_names_and_fields() {
        const S: &str = "struct Point{T}\n    x::T\n    y::T\nend\nstruct Seg{T} a::Point{T}; b::Point{T} end\nfunction f(p::Point{f64}, s::Seg{f64})\n    q ← Point(p.y, 1.0)\n    p.x += s.a.y\n    q → Point(p.y, 1.0)\nend\n";
        let db = RootDatabase::default();
        let file = SourceFile::new(&db, "s.nil".into(), S.into());
        let project = Project::new(&db, vec![file]);
        let pos = |needle: &str, nth: usize| S.match_indices(needle).nth(nth).unwrap().0 as u32;
        let point_def = (file, Span::new(pos("Point", 0), pos("Point", 0) + 5));
        // A struct name in a parameter type, a construction, a field type.
        for at in [
            pos("Point{f64}", 0),
            pos("Point(p.y", 0),
            pos("Point{T}; b", 0),
        ] {
            let (symbol, span) = symbol_at(&db, project, file, at + 2).expect("struct");
            assert_eq!(symbol, Symbol::Struct("Point".into()));
            assert_eq!(&S[span.range()], "Point");
            assert_eq!(definition(&db, project, &symbol), Some(point_def));
        }
        // A field, through a parameter and through a nested struct.
        let (symbol, span) = symbol_at(&db, project, file, pos("p.x", 0) + 2).expect("field");
        assert_eq!(
            symbol,
            Symbol::Field {
                structure: "Point".into(),
                field: "x".into()
            }
        );
        assert_eq!(&S[span.range()], "x");
        let x_def = pos("x::T", 0);
        assert_eq!(
            definition(&db, project, &symbol),
            Some((file, Span::new(x_def, x_def + 1)))
        );
        let (symbol, _) = symbol_at(&db, project, file, pos("s.a.y", 0) + 4).expect("field");
        assert_eq!(
            symbol,
            Symbol::Field {
                structure: "Point".into(),
                field: "y".into()
            }
        );
        // `y` of Point: in `p.y` twice, `s.a.y`, and its declaration.
        assert_eq!(references(&db, project, &symbol, true).len(), 4);
        // On the definition itself.
        let (symbol, _) = symbol_at(&db, project, file, pos("Seg", 0) + 1).expect("struct");
        assert_eq!(symbol, Symbol::Struct("Seg".into()));
        // `Point` everywhere: definition, 2 field types, a parameter, 2 constructions.
        let refs = references(&db, project, &Symbol::Struct("Point".into()), true);
        assert_eq!(refs.len(), 6, "{refs:?}");
    }

    #[test]
    fn symbols_definitions_and_references() {
        let (db, project, file) = setup();
        let (symbol, span) = symbol_at(&db, project, file, at("add(y, x)", 0) + 1).expect("symbol");
        assert_eq!(symbol, Symbol::Function("add".into()));
        assert_eq!(&TEXT[span.range()], "add");
        let (def_file, def_span) = definition(&db, project, &symbol).expect("definition");
        assert_eq!(def_file, file);
        assert_eq!(def_span.start, at("add(y::f64", 0));
        let refs = references(&db, project, &symbol, true);
        assert_eq!(refs.len(), 3, "{refs:?}");
        let refs = references(&db, project, &symbol, false);
        assert_eq!(refs.len(), 2);

        let (symbol, _) = symbol_at(&db, project, file, at("a += x", 0)).expect("ancilla");
        let Symbol::Local { .. } = symbol else {
            panic!("not a local: {symbol:?}");
        };
        let refs = references(&db, project, &symbol, true);
        assert_eq!(
            refs.len(),
            5,
            "allocation, three uses, deallocation: {refs:?}"
        );
        let (_, def_span) = definition(&db, project, &symbol).expect("definition");
        assert_eq!(def_span.start, at("a ←", 0));
    }

    #[test]
    fn statement_inverses() {
        let (db, project, file) = setup();
        let inv = |needle: &str| {
            statement_inverse(&db, project, file, at(needle, 0) + 1)
                .expect("inverse")
                .0
        };
        assert_eq!(inv("a += x"), "a -= x");
        assert_eq!(inv("a ← zero"), "a → zero(f64)");
        assert_eq!(inv("~add"), "add(y, x)");
        assert_eq!(inv("INC(y)"), "DEC(y)");
        assert_eq!(inv("for i"), "for i = reverse(1:3)\n    DEC(y)\nend");
        assert_eq!(statement_inverse(&db, project, file, 0).map(|s| s.0), None);
    }

    #[test]
    fn scope() {
        let (db, project, file) = setup();
        let f = function_at(&db, project, file, at("y += identity", 0)).expect("function");
        let ast = db::function_ast(&db, f).expect("ast");
        let names = |needle: &str| {
            let rel = at(needle, 0) - db::function_offset(&db, f);
            names_in_scope(&ast, rel)
                .into_iter()
                .map(|n| n.name)
                .collect::<Vec<_>>()
        };
        assert_eq!(names("a ← zero"), ["y", "x"]);
        assert_eq!(names("y += identity"), ["y", "x", "a"]);
        let g = function_at(&db, project, file, at("INC", 0)).expect("function");
        let ast = db::function_ast(&db, g).expect("ast");
        let rel = at("INC", 0) - db::function_offset(&db, g);
        let names: Vec<_> = names_in_scope(&ast, rel)
            .into_iter()
            .map(|n| n.name)
            .collect();
        assert_eq!(names, ["y", "x", "i"]);
    }

    #[test]
    fn formatting() {
        assert_eq!(
            format_file("function f(x::f64)\n  INC(x) ;   DEC(x)\nend").as_deref(),
            Ok("function f(x::f64)\n    INC(x)\n    DEC(x)\nend\n")
        );
        assert_eq!(
            format_file("# note\nfunction f(x::f64)\nend\n"),
            Err(FormatRefusal::Comments)
        );
        assert_eq!(
            format_file("function f(x::f64)\n  INC(x\nend\n"),
            Err(FormatRefusal::SyntaxErrors)
        );
        assert!(!has_comments(
            "function f(x::f64)\n @safe println(\"#\")\nend\n"
        ));
        // Structs are kept, in place, one field a line.
        assert_eq!(
            format_file(
                "function f(p::P{f64})\n  p.x += 1.0\nend\n\"\"\"Doc.\"\"\"\nstruct P{T: Real} x::T; n::i64 end\n"
            )
            .as_deref(),
            Ok(
                "function f(p::P<f64>)\n    p.x += 1.0\nend\n\n\"\"\"Doc.\"\"\"\nstruct P{T: Real}\n    x::T\n    n::i64\nend\n"
            )
        );
    }

    #[test]
    fn classes() {
        let (db, project, file) = setup();
        let classes = classify_names(&db, project, file);
        let class_of = |needle: &str| {
            let start = at(needle, 0);
            classes
                .iter()
                .find(|(s, _)| s.start == start)
                .map(|(_, c)| *c)
        };
        assert_eq!(class_of("add(y::"), Some(NameClass::FunctionDefinition));
        assert_eq!(
            class_of("y::f64, x::f64)\n    a"),
            Some(NameClass::Parameter { mutated: true })
        );
        assert_eq!(
            class_of("x::f64)\n    a"),
            Some(NameClass::Parameter { mutated: false })
        );
        assert_eq!(class_of("INC"), Some(NameClass::Instruction));
        assert_eq!(class_of("add(y, x)"), Some(NameClass::FunctionCall));
    }
}

//! The outline of a file: its functions, each with its parameters,
//! ancillas and loop variables.

use nilang_analysis::ast::Span;
use nilang_analysis::db::{self, Db, Project, SourceFile};
use nilang_analysis::printer;
use nilang_analysis::resolve::DefKind;

use crate::completion::def_kind_name;

/// What a document symbol is.
#[derive(Clone, Copy, PartialEq, Eq, Debug)]
pub enum SymbolKind {
    Function,
    Struct,
    Field,
    Parameter,
    KeywordParameter,
    Ancilla,
    LoopVariable,
}

/// One entry of the outline. Spans are absolute.
#[derive(Clone, PartialEq, Eq, Debug)]
pub struct DocumentSymbol {
    pub name: String,
    /// A function's signature; `what: type` for a local (`ancilla: f64`).
    pub detail: String,
    pub kind: SymbolKind,
    /// The whole function, or the local's name where it is defined.
    pub range: Span,
    /// The name.
    pub selection_range: Span,
    /// A function's locals (none for a local).
    pub children: Vec<DocumentSymbol>,
}

/// The functions and structs of `file` in order, each function with its
/// locals in the order they are defined, each struct with its fields.
pub fn document_symbols(db: &dyn Db, project: Project, file: SourceFile) -> Vec<DocumentSymbol> {
    let mut out = Vec::new();
    for &f in db::file_functions(db, project, file) {
        let Some(ast) = db::function_ast(db, f) else {
            continue;
        };
        let offset = db::function_offset(db, f);
        let resolution = db::resolve_function(db, f);
        let types = db::function_types(db, f);
        let children = resolution
            .defs
            .iter()
            .enumerate()
            .map(|(i, d)| {
                let kind = match d.kind {
                    DefKind::Param(_) => SymbolKind::Parameter,
                    DefKind::KwParam(_) => SymbolKind::KeywordParameter,
                    DefKind::Ancilla => SymbolKind::Ancilla,
                    DefKind::LoopVar => SymbolKind::LoopVariable,
                };
                let ty = types.defs.get(i).map(|t| t.display()).unwrap_or_default();
                let span = d.span.shift(offset);
                DocumentSymbol {
                    name: d.name.clone(),
                    detail: format!("{}: {ty}", def_kind_name(&d.kind)),
                    kind,
                    range: span,
                    selection_range: span,
                    children: Vec::new(),
                }
            })
            .collect();
        out.push(DocumentSymbol {
            name: ast.name.name.clone(),
            detail: printer::print_signature(&ast),
            kind: SymbolKind::Function,
            range: ast.span.shift(offset),
            selection_range: ast.name.span.shift(offset),
            children,
        });
    }
    // The file's structs, each with its fields, in the order of the text.
    let structs = db::project_structs(db, project);
    for (def, i) in structs.table.by_name.values() {
        if structs.files.get(*i) != Some(&file) {
            continue;
        }
        out.push(DocumentSymbol {
            name: def.name.name.clone(),
            detail: "struct".to_string(),
            kind: SymbolKind::Struct,
            range: def.span,
            selection_range: def.name.span,
            children: def
                .fields
                .iter()
                .map(|f| DocumentSymbol {
                    name: f.name.name.clone(),
                    detail: printer::print_type(&f.ty),
                    kind: SymbolKind::Field,
                    range: f.span,
                    selection_range: f.name.span,
                    children: Vec::new(),
                })
                .collect(),
        });
    }
    out.sort_by_key(|s| s.range.start);
    out
}

/// The functions and structs of a project whose names contain `query`
/// (ignoring case; every one for an empty query), at most `limit` of them,
/// by file and name span, with their kind and signature.
pub fn project_symbols(
    db: &dyn Db,
    project: Project,
    query: &str,
    limit: usize,
) -> Vec<(SourceFile, DocumentSymbol)> {
    let query = query.to_lowercase();
    let matches = |name: &str| name.to_lowercase().contains(&query);
    let mut out = Vec::new();
    // This crate's symbols: not the standard library's or dependencies'.
    for &file in project
        .files(db)
        .iter()
        .filter(|&&f| db::is_local(db, project, f))
    {
        for symbol in document_symbols(db, project, file) {
            if out.len() >= limit {
                return out;
            }
            if matches(&symbol.name) {
                out.push((
                    file,
                    DocumentSymbol {
                        children: Vec::new(),
                        ..symbol
                    },
                ));
            }
        }
    }
    out
}

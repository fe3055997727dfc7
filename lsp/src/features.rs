//! Each request's answer, computed from a [`Snapshot`] on a blocking thread.
//!
//! These functions call salsa queries, which unwind with `salsa::Cancelled`
//! when an edit arrives; the caller turns that into `ContentModified`.

use nilang_compiler::ast::Span;
use nilang_compiler::builtins;
use nilang_compiler::db::{self, Db, FnId, Project, SourceFile};
use nilang_compiler::diagnostics::{Diagnostic, Severity};
use nilang_compiler::ide::{self, NameClass, Symbol};
use nilang_compiler::printer;
use nilang_compiler::resolve::DefKind;
use serde::{Deserialize, Serialize};
use serde_json::json;
use tower_lsp_server::ls_types::{self as lsp, Uri};

use crate::line_index::LineIndex;
use crate::workspace::Snapshot;

pub const SHOW_INVERSE_COMMAND: &str = "nilang.showInverse";

/// The compiler's diagnostics as LSP diagnostics: the code, the primary
/// range, the secondary labels as related information, and the help line
/// appended to the message (and in `data`, with the primary label).
pub fn to_lsp_diagnostic(d: &Diagnostic, index: &LineIndex<'_>, uri: &Uri) -> lsp::Diagnostic {
    let mut message = d.message.clone();
    if let Some(help) = &d.help {
        message.push_str("\nhelp: ");
        message.push_str(help);
    }
    let related: Vec<lsp::DiagnosticRelatedInformation> = d
        .secondary
        .iter()
        .map(|label| lsp::DiagnosticRelatedInformation {
            location: lsp::Location::new(uri.clone(), index.range(label.span)),
            message: label.message.clone(),
        })
        .collect();
    lsp::Diagnostic {
        range: index.range(d.primary.span),
        severity: Some(match d.severity {
            Severity::Error => lsp::DiagnosticSeverity::ERROR,
            Severity::Warning => lsp::DiagnosticSeverity::WARNING,
        }),
        code: Some(lsp::NumberOrString::String(d.code.to_string())),
        source: Some("nilang".to_string()),
        message,
        related_information: (!related.is_empty()).then_some(related),
        data: Some(json!({ "label": d.primary.message, "help": d.help })),
        ..Default::default()
    }
}

/// The diagnostics of one file, as `nilc check` reports them.
pub fn file_diagnostics(
    db: &dyn Db,
    project: Project,
    file: SourceFile,
    uri: &Uri,
    encoding: crate::line_index::Encoding,
) -> Vec<lsp::Diagnostic> {
    let diagnostics = db::file_check_diagnostics(db, project, file);
    let index = LineIndex::new(file.text(db), encoding);
    diagnostics
        .iter()
        .map(|d| to_lsp_diagnostic(d, &index, uri))
        .collect()
}

fn has_errors(db: &dyn Db, f: FnId<'_>) -> bool {
    db::check_function(db, f)
        .iter()
        .any(|d| d.severity == Severity::Error)
}

fn fence(code: &str) -> String {
    format!("```nilang\n{}\n```", code.trim_end())
}

/// The signature, docstring and what a function mutates, as Markdown.
fn function_summary(db: &dyn Db, project: Project, f: FnId<'_>) -> Option<String> {
    let ast = db::function_ast(db, f)?;
    let mut out = fence(&printer::print_signature(&ast));
    if let Some(doc) = &ast.doc {
        out.push_str("\n\n");
        out.push_str(doc.trim());
    }
    let mutated = db::mutated_params(db, project, f.name(db)).unwrap_or_default();
    let (changed, read): (Vec<_>, Vec<_>) = ast
        .params
        .iter()
        .enumerate()
        .partition(|(i, _)| mutated.get(*i).copied().unwrap_or(false));
    let names = |ps: Vec<(usize, &nilang_compiler::ast::Param)>| {
        if ps.is_empty() {
            "none".to_string()
        } else {
            ps.iter()
                .map(|(_, p)| format!("`{}`", p.name.name))
                .collect::<Vec<_>>()
                .join(", ")
        }
    };
    out.push_str(&format!(
        "\n\n**mutates:** {}  \n**reads only:** {}",
        names(changed),
        names(read)
    ));
    Some(out)
}

const MAX_INVERSE_LINES: usize = 60;

fn truncated(source: &str) -> String {
    let lines: Vec<&str> = source.lines().collect();
    if lines.len() <= MAX_INVERSE_LINES {
        return source.to_string();
    }
    let mut out = lines[..MAX_INVERSE_LINES].join("\n");
    out.push_str(&format!(
        "\n# … {} more lines (\"Show inverse\" shows all)",
        lines.len() - MAX_INVERSE_LINES
    ));
    out
}

pub fn hover(snap: &Snapshot, position: lsp::Position) -> Option<lsp::Hover> {
    let db = &snap.db;
    let index = snap.line_index();
    let offset = index.offset(position);
    let symbol = ide::symbol_at(db, snap.project, snap.file, offset);
    let statement = ide::statement_inverse(db, snap.project, snap.file, offset);
    let mut sections: Vec<String> = Vec::new();
    let mut range = None;
    let mut at_definition = false;
    if let Some((symbol, span)) = &symbol {
        range = Some(index.range(*span));
        match symbol {
            Symbol::Function(name) => {
                if let Some(f) = db::lookup_function(db, snap.project, name) {
                    sections.extend(function_summary(db, snap.project, f));
                    let def = ide::definition(db, snap.project, symbol);
                    at_definition = def == Some((snap.file, *span));
                    if at_definition {
                        let inverse = db::inverse_source(db, f);
                        let note = if has_errors(db, f) {
                            " (the function has errors: this may not be valid)"
                        } else {
                            ""
                        };
                        sections.push(format!(
                            "**inverse** `~{name}`{note}:\n{}",
                            fence(&truncated(inverse))
                        ));
                    }
                }
            }
            Symbol::Instruction(name) => {
                if let Some(instruction) = builtins::instruction(name) {
                    sections.push(format!(
                        "{}\n\n{}",
                        fence(&format!("{}({})", name, arg_names(instruction))),
                        ide::instruction_summary(instruction)
                    ));
                }
            }
            Symbol::Local { function, def } => {
                sections.extend(local_summary(db, snap.project, *function, *def));
            }
            Symbol::Struct(name)
            | Symbol::Field {
                structure: name, ..
            } => {
                let structs = db::project_structs(db, snap.project);
                if let Some(def) = structs.table.get(name) {
                    if let Symbol::Field { field, .. } = symbol
                        && let Some(f) = def.fields.iter().find(|f| f.name.name == *field)
                    {
                        sections.push(format!(
                            "field `{}::{}` of struct `{name}`",
                            f.name.name,
                            nilang_compiler::printer::print_type(&f.ty)
                        ));
                    }
                    sections.push(fence(
                        nilang_compiler::printer::print_struct(def).trim_end(),
                    ));
                }
            }
        }
    }
    if !at_definition && let Some((inverse, span)) = statement {
        if range.is_none() {
            range = Some(index.range(span));
        }
        sections.push(format!(
            "**inverse of this statement:**\n{}",
            fence(&truncated(&inverse))
        ));
    }
    if sections.is_empty() {
        return None;
    }
    Some(lsp::Hover {
        contents: lsp::HoverContents::Markup(lsp::MarkupContent {
            kind: lsp::MarkupKind::Markdown,
            value: sections.join("\n\n---\n\n"),
        }),
        range,
    })
}

fn arg_names(instruction: &builtins::Instruction) -> String {
    const NAMES: [&str; 3] = ["a", "b", "θ"];
    (0..instruction.arity)
        .map(|i| {
            let name = NAMES.get(i).copied().unwrap_or("x");
            if instruction.mutates.contains(&i) {
                format!("{name}!")
            } else {
                name.to_string()
            }
        })
        .collect::<Vec<_>>()
        .join(", ")
}

fn local_summary(db: &dyn Db, project: Project, f: FnId<'_>, def: usize) -> Option<String> {
    let resolution = db::resolve_function(db, f);
    let d = resolution.defs.get(def)?;
    let ty = db::function_types(db, f)
        .defs
        .get(def)
        .map(|t| t.display())
        .unwrap_or_else(|| "_".into());
    let kind = match d.kind {
        DefKind::Param(i) => {
            let mutated = db::mutated_params(db, project, f.name(db))
                .and_then(|m| m.get(i).copied())
                .unwrap_or(false);
            if mutated {
                format!("parameter {} of `{}`, **mutated**", i + 1, f.name(db))
            } else {
                format!("parameter {} of `{}`, read only", i + 1, f.name(db))
            }
        }
        DefKind::KwParam(_) => format!("keyword parameter of `{}`, read only", f.name(db)),
        DefKind::Ancilla => {
            let value = d
                .alloc_value
                .as_ref()
                .map(printer::print_expr)
                .unwrap_or_default();
            let end = if d.dealloc.is_some() {
                "deallocated explicitly"
            } else {
                "deallocated implicitly at the end of its block"
            };
            format!("ancilla, allocated as `{} ← {value}`, {end}", d.name)
        }
        DefKind::LoopVar => "loop variable, read only".to_string(),
    };
    Some(format!("{}\n\n{kind}", fence(&format!("{}::{ty}", d.name))))
}

pub fn definition(snap: &Snapshot, position: lsp::Position) -> Option<lsp::Location> {
    let db = &snap.db;
    let index = snap.line_index();
    let (symbol, _) = ide::symbol_at(db, snap.project, snap.file, index.offset(position))?;
    let (file, span) = ide::definition(db, snap.project, &symbol)?;
    Some(location(snap, file, span))
}

fn location(snap: &Snapshot, file: SourceFile, span: Span) -> lsp::Location {
    let index = LineIndex::new(file.text(&snap.db), snap.encoding);
    lsp::Location::new(snap.uri_of(file), index.range(span))
}

pub fn references(
    snap: &Snapshot,
    position: lsp::Position,
    include_declaration: bool,
) -> Option<Vec<lsp::Location>> {
    let db = &snap.db;
    let index = snap.line_index();
    let (symbol, _) = ide::symbol_at(db, snap.project, snap.file, index.offset(position))?;
    let refs = ide::references(db, snap.project, &symbol, include_declaration);
    Some(
        refs.into_iter()
            .map(|(file, span)| location(snap, file, span))
            .collect(),
    )
}

#[allow(deprecated)] // `DocumentSymbol::deprecated` must be written out
pub fn document_symbols(snap: &Snapshot) -> Vec<lsp::DocumentSymbol> {
    let db = &snap.db;
    let index = snap.line_index();
    let mut out = Vec::new();
    for &f in db::file_functions(db, snap.project, snap.file) {
        let Some(ast) = db::function_ast(db, f) else {
            continue;
        };
        let offset = db::function_offset(db, f);
        let resolution = db::resolve_function(db, f);
        let types = db::function_types(db, f);
        let children: Vec<lsp::DocumentSymbol> = resolution
            .defs
            .iter()
            .enumerate()
            .map(|(i, d)| {
                let (kind, what) = match d.kind {
                    DefKind::Param(_) => (lsp::SymbolKind::VARIABLE, "parameter"),
                    DefKind::KwParam(_) => (lsp::SymbolKind::CONSTANT, "keyword parameter"),
                    DefKind::Ancilla => (lsp::SymbolKind::VARIABLE, "ancilla"),
                    DefKind::LoopVar => (lsp::SymbolKind::VARIABLE, "loop variable"),
                };
                let ty = types.defs.get(i).map(|t| t.display()).unwrap_or_default();
                let range = index.range(d.span.shift(offset));
                lsp::DocumentSymbol {
                    name: d.name.clone(),
                    detail: Some(format!("{what}: {ty}")),
                    kind,
                    tags: None,
                    deprecated: None,
                    range,
                    selection_range: range,
                    children: None,
                }
            })
            .collect();
        out.push(lsp::DocumentSymbol {
            name: ast.name.name.clone(),
            detail: Some(printer::print_signature(&ast)),
            kind: lsp::SymbolKind::FUNCTION,
            tags: None,
            deprecated: None,
            range: index.range(ast.span.shift(offset)),
            selection_range: index.range(ast.name.span.shift(offset)),
            children: Some(children),
        });
    }
    out
}

pub fn code_lenses(snap: &Snapshot) -> Vec<lsp::CodeLens> {
    let db = &snap.db;
    let index = snap.line_index();
    db::file_functions(db, snap.project, snap.file)
        .iter()
        .filter_map(|&f| {
            let ast = db::function_ast(db, f)?;
            let span = ast.name.span.shift(db::function_offset(db, f));
            Some(lsp::CodeLens {
                range: index.range(span),
                command: Some(lsp::Command {
                    title: "Show inverse".to_string(),
                    command: SHOW_INVERSE_COMMAND.to_string(),
                    arguments: Some(vec![json!(snap.uri.as_str()), json!(ast.name.name)]),
                }),
                data: None,
            })
        })
        .collect()
}

// ------------------------------------------------------------------ semantic tokens

pub const TOKEN_TYPES: &[lsp::SemanticTokenType] = &[
    lsp::SemanticTokenType::FUNCTION,
    lsp::SemanticTokenType::PARAMETER,
    lsp::SemanticTokenType::VARIABLE,
    lsp::SemanticTokenType::STRUCT,
    lsp::SemanticTokenType::PROPERTY,
];

pub const TOKEN_MODIFIERS: &[lsp::SemanticTokenModifier] = &[
    lsp::SemanticTokenModifier::DECLARATION,
    lsp::SemanticTokenModifier::DEFAULT_LIBRARY,
    lsp::SemanticTokenModifier::READONLY,
    lsp::SemanticTokenModifier::new("mutable"),
];

fn token_kind(class: NameClass) -> (u32, u32) {
    const DECLARATION: u32 = 1;
    const DEFAULT_LIBRARY: u32 = 2;
    const READONLY: u32 = 4;
    const MUTABLE: u32 = 8;
    match class {
        NameClass::FunctionDefinition => (0, DECLARATION),
        NameClass::FunctionCall => (0, 0),
        NameClass::Instruction => (0, DEFAULT_LIBRARY),
        NameClass::Parameter { mutated: true } => (1, MUTABLE),
        NameClass::Parameter { mutated: false } | NameClass::KeywordParameter => (1, READONLY),
        NameClass::Ancilla => (2, 0),
        NameClass::LoopVariable => (2, READONLY),
        NameClass::Struct { definition } => (3, if definition { DECLARATION } else { 0 }),
        NameClass::Field { definition } => (4, if definition { DECLARATION } else { 0 }),
    }
}

pub fn semantic_tokens(snap: &Snapshot) -> Vec<lsp::SemanticToken> {
    let index = snap.line_index();
    let mut out = Vec::new();
    let mut previous = lsp::Position::new(0, 0);
    for (span, class) in ide::classify_names(&snap.db, snap.project, snap.file) {
        let range = index.range(span);
        if range.start.line != range.end.line || range.end.character <= range.start.character {
            continue;
        }
        let (token_type, modifiers) = token_kind(class);
        let delta_line = range.start.line - previous.line;
        let delta_start = if delta_line == 0 {
            range.start.character - previous.character
        } else {
            range.start.character
        };
        out.push(lsp::SemanticToken {
            delta_line,
            delta_start,
            length: range.end.character - range.start.character,
            token_type,
            token_modifiers_bitset: modifiers,
        });
        previous = range.start;
    }
    out
}

// ------------------------------------------------------------------ completion

pub fn completion(snap: &Snapshot, position: lsp::Position) -> Vec<lsp::CompletionItem> {
    let db = &snap.db;
    let index = snap.line_index();
    let offset = index.offset(position);
    let mut items = Vec::new();
    let snippet = |label: &str, body: &str| lsp::CompletionItem {
        label: label.to_string(),
        kind: Some(lsp::CompletionItemKind::KEYWORD),
        insert_text: snap.snippets.then(|| body.to_string()),
        insert_text_format: snap.snippets.then_some(lsp::InsertTextFormat::SNIPPET),
        ..Default::default()
    };
    let Some(f) = ide::function_at(db, snap.project, snap.file, offset) else {
        items.extend(
            ide::KEYWORD_SNIPPETS
                .iter()
                .filter(|(k, _)| *k == "function")
                .map(|(k, body)| snippet(k, body)),
        );
        return items;
    };
    if let Some(ast) = db::function_ast(db, f) {
        let rel = offset.saturating_sub(db::function_offset(db, f));
        for name in ide::names_in_scope(&ast, rel) {
            let detail = match name.kind {
                DefKind::Param(_) => "parameter",
                DefKind::KwParam(_) => "keyword parameter",
                DefKind::Ancilla => "ancilla",
                DefKind::LoopVar => "loop variable",
            };
            items.push(lsp::CompletionItem {
                label: name.name,
                kind: Some(lsp::CompletionItemKind::VARIABLE),
                detail: Some(detail.to_string()),
                ..Default::default()
            });
        }
    }
    for instruction in builtins::INSTRUCTIONS {
        items.push(lsp::CompletionItem {
            label: instruction.name.to_string(),
            kind: Some(lsp::CompletionItemKind::FUNCTION),
            detail: Some(format!("{}({})", instruction.name, arg_names(instruction))),
            documentation: Some(lsp::Documentation::String(ide::instruction_summary(
                instruction,
            ))),
            ..Default::default()
        });
    }
    let table = db::item_table(db, snap.project);
    let mut names: Vec<&String> = table.by_name.keys().collect();
    names.sort();
    for name in names {
        let detail = db::lookup_function(db, snap.project, name)
            .and_then(|g| db::function_ast(db, g))
            .map(|ast| printer::print_signature(&ast));
        items.push(lsp::CompletionItem {
            label: name.clone(),
            kind: Some(lsp::CompletionItemKind::FUNCTION),
            detail,
            ..Default::default()
        });
    }
    for (name, _) in builtins::PURE_FUNCTIONS {
        items.push(lsp::CompletionItem {
            label: name.to_string(),
            kind: Some(lsp::CompletionItemKind::FUNCTION),
            detail: Some("pure function (expressions only)".to_string()),
            ..Default::default()
        });
    }
    items.extend(
        ide::KEYWORD_SNIPPETS
            .iter()
            .filter(|(k, _)| *k != "function")
            .map(|(k, body)| snippet(k, body)),
    );
    items
}

// ------------------------------------------------------------------ formatting

pub fn formatting(snap: &Snapshot) -> Result<Vec<lsp::TextEdit>, ide::FormatRefusal> {
    let text = snap.text();
    let formatted = ide::format_file(text)?;
    if formatted == text {
        return Ok(Vec::new());
    }
    let index = snap.line_index();
    Ok(vec![lsp::TextEdit::new(
        lsp::Range::new(lsp::Position::new(0, 0), index.end()),
        formatted,
    )])
}

// ------------------------------------------------------------------ custom requests

/// Parameters of `nilang/inverse`: the whole file, or one function chosen by
/// name or by a position inside it.
#[derive(Deserialize, Serialize, Debug, Clone)]
#[serde(rename_all = "camelCase")]
pub struct InverseParams {
    pub text_document: lsp::TextDocumentIdentifier,
    #[serde(default)]
    pub function: Option<String>,
    #[serde(default)]
    pub position: Option<lsp::Position>,
}

#[derive(Deserialize, Serialize, Debug, Clone, PartialEq)]
#[serde(rename_all = "camelCase")]
pub struct InverseResult {
    /// The function inverted, or none for the whole file.
    pub function: Option<String>,
    /// `.nil` source of `~f` (for the whole file, every function's inverse).
    pub source: String,
}

/// Why a custom request has no answer (sent as a `RequestFailed` error).
pub type Refusal = String;

pub fn inverse(snap: &Snapshot, params: &InverseParams) -> Result<InverseResult, Refusal> {
    let db = &snap.db;
    let functions = db::file_functions(db, snap.project, snap.file);
    let chosen: Vec<FnId<'_>> = match (&params.function, params.position) {
        (Some(name), _) => {
            let f = functions
                .iter()
                .copied()
                .find(|f| f.name(db) == name)
                .ok_or_else(|| format!("no function `{name}` in this file"))?;
            vec![f]
        }
        (None, Some(position)) => {
            let offset = snap.line_index().offset(position);
            let f = ide::function_at(db, snap.project, snap.file, offset)
                .ok_or_else(|| "no function at this position".to_string())?;
            vec![f]
        }
        (None, None) => functions.clone(),
    };
    let syntax_errors = db::parse_file(db, snap.file)
        .diagnostics
        .iter()
        .any(|d| d.severity == Severity::Error);
    if syntax_errors {
        return Err("the file has syntax errors; fix them to see the inverse".to_string());
    }
    let mut sources = Vec::new();
    for &f in &chosen {
        if has_errors(db, f) {
            return Err(format!(
                "`{}` has errors; fix them to see its inverse",
                f.name(db)
            ));
        }
        sources.push(db::inverse_source(db, f).clone());
    }
    Ok(InverseResult {
        function: (chosen.len() == 1 && (params.function.is_some() || params.position.is_some()))
            .then(|| chosen[0].name(db).clone()),
        source: sources.join("\n"),
    })
}

#[derive(Deserialize, Serialize, Debug, Clone)]
#[serde(rename_all = "camelCase")]
pub struct GeneratedRustParams {
    pub text_document: lsp::TextDocumentIdentifier,
}

#[derive(Deserialize, Serialize, Debug, Clone, PartialEq)]
#[serde(rename_all = "camelCase")]
pub struct GeneratedRustResult {
    pub source: String,
}

pub fn generated_rust(snap: &Snapshot) -> Result<GeneratedRustResult, Refusal> {
    let options = nilang_compiler::codegen::Options::default();
    match db::rust_module_text(&snap.db, snap.project, snap.file, &options) {
        Ok(source) => Ok(GeneratedRustResult { source }),
        Err(errors) => {
            let index = snap.line_index();
            let list: Vec<String> = errors
                .iter()
                .take(5)
                .map(|d| {
                    let p = index.position(d.primary.span.start);
                    format!(
                        "{}:{}: {}[{}]: {}",
                        p.line + 1,
                        p.character + 1,
                        d.severity.as_str(),
                        d.code,
                        d.message
                    )
                })
                .collect();
            Err(format!(
                "no Rust is generated for a file with errors ({} in all):\n{}",
                errors.len(),
                list.join("\n")
            ))
        }
    }
}

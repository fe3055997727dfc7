//! Each request's answer, computed from a [`Snapshot`] on a blocking thread.
//!
//! Every answer comes from `nilang_ide`, which builds all the text a user
//! reads; these functions only convert byte offsets to editor positions
//! ([`LineIndex`]) and `nilang_ide`'s values to LSP types. They call salsa
//! queries, which unwind with [`nilang_ide::Cancelled`] when an edit
//! arrives; the caller turns that into `ContentModified`.

use nilang_ide::{
    self as ide, CompletionKind, Db, Diagnostic, NameClass, Project, Severity, SourceFile, Span,
    SymbolKind,
};
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
        message: ide::message_with_help(d),
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
    let diagnostics = ide::file_diagnostics(db, project, file);
    let index = LineIndex::new(file.text(db), encoding);
    diagnostics
        .iter()
        .map(|d| to_lsp_diagnostic(d, &index, uri))
        .collect()
}

/// The result id of a pulled diagnostics report: a hash of the list, so
/// that a client asking again with it gets "unchanged" while the list is.
pub fn result_id(list: &[lsp::Diagnostic]) -> String {
    use std::hash::{Hash, Hasher};
    let mut hasher = std::hash::DefaultHasher::new();
    for d in list {
        serde_json::to_string(d)
            .unwrap_or_default()
            .hash(&mut hasher);
    }
    list.len().hash(&mut hasher);
    format!("{:016x}", hasher.finish())
}

pub fn hover(snap: &Snapshot, position: lsp::Position) -> Option<lsp::Hover> {
    let index = snap.line_index();
    let hover = ide::hover(&snap.db, snap.project, snap.file, index.offset(position))?;
    Some(lsp::Hover {
        contents: lsp::HoverContents::Markup(lsp::MarkupContent {
            kind: lsp::MarkupKind::Markdown,
            value: hover.markdown,
        }),
        range: Some(index.range(hover.range)),
    })
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

/// The quick fixes for the diagnostics on the lines of `range`, each with
/// its edit and the diagnostic it answers.
pub fn code_actions(snap: &Snapshot, range: lsp::Range) -> Vec<lsp::CodeActionOrCommand> {
    let index = snap.line_index();
    let span = Span::new(index.offset(range.start), index.offset(range.end));
    let mut last: Option<Span> = None;
    ide::fixes(&snap.db, snap.project, snap.file, span)
        .into_iter()
        .map(|fix| {
            // The first fix of a diagnostic is the one to apply by default.
            let preferred = last != Some(fix.diagnostic.primary.span);
            last = Some(fix.diagnostic.primary.span);
            let edits = fix
                .edits
                .iter()
                .map(|(span, text)| lsp::TextEdit::new(index.range(*span), text.clone()))
                .collect();
            let changes = std::collections::HashMap::from([(snap.uri.clone(), edits)]);
            lsp::CodeActionOrCommand::CodeAction(lsp::CodeAction {
                title: fix.title,
                kind: Some(lsp::CodeActionKind::QUICKFIX),
                diagnostics: Some(vec![to_lsp_diagnostic(&fix.diagnostic, &index, &snap.uri)]),
                edit: Some(lsp::WorkspaceEdit::new(changes)),
                is_preferred: Some(preferred),
                ..Default::default()
            })
        })
        .collect()
}

/// The signature of the call around `position`, with the parameter the
/// cursor is at (label offsets in the encoding's code units).
pub fn signature_help(snap: &Snapshot, position: lsp::Position) -> Option<lsp::SignatureHelp> {
    let index = snap.line_index();
    let help = ide::signature_help(&snap.db, snap.project, snap.file, index.offset(position))?;
    let label_index = LineIndex::new(&help.label, snap.encoding);
    let parameters = help
        .parameters
        .iter()
        .map(|&(start, end)| lsp::ParameterInformation {
            label: lsp::ParameterLabel::LabelOffsets([
                label_index.position(start).character,
                label_index.position(end).character,
            ]),
            documentation: None,
        })
        .collect();
    Some(lsp::SignatureHelp {
        signatures: vec![lsp::SignatureInformation {
            label: help.label.clone(),
            documentation: help.documentation.map(lsp::Documentation::String),
            parameters: Some(parameters),
            active_parameter: Some(help.active as u32),
        }],
        active_signature: Some(0),
        active_parameter: Some(help.active as u32),
    })
}

/// Inlay hints in `range`: parameter names before call arguments, `!`
/// where the call changes the argument.
pub fn inlay_hints(snap: &Snapshot, range: lsp::Range) -> Vec<lsp::InlayHint> {
    let index = snap.line_index();
    let span = Span::new(index.offset(range.start), index.offset(range.end));
    ide::inlay_hints(&snap.db, snap.project, snap.file, span)
        .into_iter()
        .map(|hint| lsp::InlayHint {
            position: index.position(hint.offset),
            label: lsp::InlayHintLabel::String(hint.label),
            kind: Some(lsp::InlayHintKind::PARAMETER),
            text_edits: None,
            tooltip: hint
                .changed
                .then(|| lsp::InlayHintTooltip::String("changed by the call".to_string())),
            padding_left: None,
            padding_right: Some(true),
            data: None,
        })
        .collect()
}

/// For each position, the ranges of the syntax nodes around it, innermost
/// first, as the nested ranges of `textDocument/selectionRange`.
pub fn selection_ranges(snap: &Snapshot, positions: &[lsp::Position]) -> Vec<lsp::SelectionRange> {
    let index = snap.line_index();
    positions
        .iter()
        .map(|&p| {
            let ranges = nilang_ide::selection_ranges(snap.text(), index.offset(p));
            let mut out: Option<lsp::SelectionRange> = None;
            for (start, end) in ranges.into_iter().rev() {
                out = Some(lsp::SelectionRange {
                    range: index.range(Span::new(start, end)),
                    parent: out.map(Box::new),
                });
            }
            out.unwrap_or(lsp::SelectionRange {
                range: lsp::Range::new(p, p),
                parent: None,
            })
        })
        .collect()
}

/// What a rename at `position` would change: the name's range and text, or
/// why it cannot be renamed.
pub fn prepare_rename(
    snap: &Snapshot,
    position: lsp::Position,
) -> Result<lsp::PrepareRenameResponse, String> {
    let index = snap.line_index();
    let (span, name) =
        ide::prepare_rename(&snap.db, snap.project, snap.file, index.offset(position))?;
    Ok(lsp::PrepareRenameResponse::RangeWithPlaceholder {
        range: index.range(span),
        placeholder: name,
    })
}

/// The edits of a rename, file by file, or why it is refused.
pub fn rename(
    snap: &Snapshot,
    position: lsp::Position,
    new_name: &str,
) -> Result<lsp::WorkspaceEdit, String> {
    let index = snap.line_index();
    let edits = ide::rename(
        &snap.db,
        snap.project,
        snap.file,
        index.offset(position),
        new_name,
    )?;
    let mut changes: std::collections::HashMap<Uri, Vec<lsp::TextEdit>> =
        std::collections::HashMap::new();
    for (file, span) in edits {
        let location = location(snap, file, span);
        changes
            .entry(location.uri)
            .or_default()
            .push(lsp::TextEdit::new(location.range, new_name.to_string()));
    }
    Ok(lsp::WorkspaceEdit::new(changes))
}

/// The occurrences in this file of the name at `position`; the definition
/// is a write, the others reads.
pub fn document_highlights(
    snap: &Snapshot,
    position: lsp::Position,
) -> Vec<lsp::DocumentHighlight> {
    let index = snap.line_index();
    ide::highlights(&snap.db, snap.project, snap.file, index.offset(position))
        .into_iter()
        .map(|(span, definition)| lsp::DocumentHighlight {
            range: index.range(span),
            kind: Some(if definition {
                lsp::DocumentHighlightKind::WRITE
            } else {
                lsp::DocumentHighlightKind::READ
            }),
        })
        .collect()
}

/// Folding ranges by line. A block keeps its `end` line visible.
pub fn folding_ranges(snap: &Snapshot) -> Vec<lsp::FoldingRange> {
    let index = snap.line_index();
    ide::folding_ranges(&snap.db, snap.project, snap.file)
        .into_iter()
        .filter_map(|(span, kind)| {
            let start = index.position(span.start).line;
            let mut end = index.position(span.end).line;
            if kind == ide::FoldKind::Block {
                end = end.saturating_sub(1);
            }
            (end > start).then(|| lsp::FoldingRange {
                start_line: start,
                end_line: end,
                kind: Some(match kind {
                    ide::FoldKind::Block => lsp::FoldingRangeKind::Region,
                    ide::FoldKind::Comment => lsp::FoldingRangeKind::Comment,
                }),
                ..Default::default()
            })
        })
        .collect()
}

/// The functions and structs of every project whose names contain `query`.
#[allow(deprecated)] // `SymbolInformation::deprecated` must be written out
pub fn workspace_symbols(
    snap: &Snapshot,
    projects: &[Project],
    query: &str,
    limit: usize,
) -> Vec<lsp::SymbolInformation> {
    let mut out = Vec::new();
    for &project in projects {
        let left = limit.saturating_sub(out.len());
        for (file, symbol) in ide::project_symbols(&snap.db, project, query, left) {
            out.push(lsp::SymbolInformation {
                name: symbol.name,
                kind: match symbol.kind {
                    SymbolKind::Struct => lsp::SymbolKind::STRUCT,
                    _ => lsp::SymbolKind::FUNCTION,
                },
                tags: None,
                deprecated: None,
                location: location(snap, file, symbol.selection_range),
                container_name: None,
            });
        }
    }
    out
}

#[allow(deprecated)] // `DocumentSymbol::deprecated` must be written out
fn to_lsp_symbol(symbol: ide::DocumentSymbol, index: &LineIndex<'_>) -> lsp::DocumentSymbol {
    let kind = match symbol.kind {
        SymbolKind::Function => lsp::SymbolKind::FUNCTION,
        SymbolKind::Struct => lsp::SymbolKind::STRUCT,
        SymbolKind::Field => lsp::SymbolKind::FIELD,
        SymbolKind::KeywordParameter => lsp::SymbolKind::CONSTANT,
        SymbolKind::Parameter | SymbolKind::Ancilla | SymbolKind::LoopVariable => {
            lsp::SymbolKind::VARIABLE
        }
    };
    // A function always lists its locals and a struct its fields
    // (possibly none); a local or a field has none.
    let children = matches!(symbol.kind, SymbolKind::Function | SymbolKind::Struct).then(|| {
        symbol
            .children
            .into_iter()
            .map(|child| to_lsp_symbol(child, index))
            .collect()
    });
    lsp::DocumentSymbol {
        name: symbol.name,
        detail: Some(symbol.detail),
        kind,
        tags: None,
        deprecated: None,
        range: index.range(symbol.range),
        selection_range: index.range(symbol.selection_range),
        children,
    }
}

/// The most entries (definitions and their locals or fields) an outline
/// holds: a huge generated file would otherwise answer tens of megabytes.
/// A cut outline ends with one more entry that says so.
pub const MAX_OUTLINE: usize = 10_000;

/// What [`cut_outline`] left out: how many entries, and the name of the
/// first one in the file (where the outline stops being complete).
#[derive(Clone, Copy, PartialEq, Eq, Debug)]
pub struct OutlineCut {
    pub omitted: usize,
    pub first: Span,
}

/// `symbols` cut to `limit` entries: every definition while they fit,
/// then each one's locals or fields while those fit too (definitions
/// first: a long file keeps its whole list of functions before any
/// function's locals are left out). `None` beside it when nothing was cut.
pub fn cut_outline(
    mut symbols: Vec<ide::DocumentSymbol>,
    limit: usize,
) -> (Vec<ide::DocumentSymbol>, Option<OutlineCut>) {
    let mut omitted = 0;
    let mut first_definition = None;
    if symbols.len() > limit {
        first_definition = Some(symbols[limit].selection_range);
        omitted += symbols[limit..]
            .iter()
            .map(|s| 1 + s.children.len())
            .sum::<usize>();
        symbols.truncate(limit);
    }
    // Locals are dropped from the first definition that runs out of room
    // on, so its first dropped local comes first in the file (before every
    // dropped definition, which follows all kept ones).
    let mut first_local = None;
    let mut budget = limit - symbols.len();
    for symbol in &mut symbols {
        let keep = symbol.children.len().min(budget);
        if keep < symbol.children.len() {
            first_local.get_or_insert(symbol.children[keep].selection_range);
            omitted += symbol.children.len() - keep;
        }
        symbol.children.truncate(keep);
        budget -= keep;
    }
    let cut = first_local
        .or(first_definition)
        .map(|first| OutlineCut { omitted, first });
    (symbols, cut)
}

/// The last entry of a cut outline: how many entries are not shown, and
/// the limit; at the first one left out.
#[allow(deprecated)] // `DocumentSymbol::deprecated` must be written out
pub fn outline_cut_note(cut: OutlineCut, index: &LineIndex<'_>) -> lsp::DocumentSymbol {
    let at = index.range(cut.first);
    lsp::DocumentSymbol {
        name: format!(
            "… {} more symbol{} not shown (limit {MAX_OUTLINE})",
            cut.omitted,
            if cut.omitted == 1 { "" } else { "s" }
        ),
        detail: Some(format!(
            "the outline lists at most {MAX_OUTLINE} symbols; from here on it is incomplete"
        )),
        kind: lsp::SymbolKind::NULL,
        tags: None,
        deprecated: None,
        range: at,
        selection_range: at,
        children: None,
    }
}

/// The outline: every function and struct while they fit in
/// [`MAX_OUTLINE`] entries, each with its locals or fields while those fit
/// too ([`cut_outline`]); when anything was left out, a last entry says
/// how much ([`outline_cut_note`]).
pub fn document_symbols(snap: &Snapshot) -> Vec<lsp::DocumentSymbol> {
    let index = snap.line_index();
    let symbols = ide::document_symbols(&snap.db, snap.project, snap.file);
    let (symbols, cut) = cut_outline(symbols, MAX_OUTLINE);
    let mut out: Vec<lsp::DocumentSymbol> = symbols
        .into_iter()
        .map(|symbol| to_lsp_symbol(symbol, &index))
        .collect();
    out.extend(cut.map(|cut| outline_cut_note(cut, &index)));
    out
}

pub fn code_lenses(snap: &Snapshot) -> Vec<lsp::CodeLens> {
    let index = snap.line_index();
    ide::code_lenses(&snap.db, snap.project, snap.file)
        .into_iter()
        .map(|lens| lsp::CodeLens {
            range: index.range(lens.range),
            command: Some(match lens.action {
                ide::LensAction::ShowInverse(function) => lsp::Command {
                    title: lens.title,
                    command: SHOW_INVERSE_COMMAND.to_string(),
                    arguments: Some(vec![json!(snap.uri.as_str()), json!(function)]),
                },
                // A result to read: no command (clients show the title).
                ide::LensAction::Show => lsp::Command {
                    title: lens.title,
                    command: String::new(),
                    arguments: None,
                },
            }),
            data: None,
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
    lsp::SemanticTokenType::NAMESPACE,
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
        NameClass::Module => (5, 0),
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

/// The completion items at `position`, filtered by the word before it and
/// capped (`is_incomplete` when some were left out).
pub fn completion(snap: &Snapshot, position: lsp::Position) -> lsp::CompletionList {
    let offset = snap.line_index().offset(position);
    let (items, incomplete) = ide::completions(&snap.db, snap.project, snap.file, offset);
    let items = items
        .into_iter()
        .map(|item| {
            let snippet = item.snippet.filter(|_| snap.snippets);
            lsp::CompletionItem {
                label: item.label,
                kind: Some(match item.kind {
                    CompletionKind::Keyword => lsp::CompletionItemKind::KEYWORD,
                    CompletionKind::Variable => lsp::CompletionItemKind::VARIABLE,
                    CompletionKind::Function => lsp::CompletionItemKind::FUNCTION,
                    CompletionKind::Field => lsp::CompletionItemKind::FIELD,
                    CompletionKind::Module => lsp::CompletionItemKind::MODULE,
                }),
                detail: item.detail,
                documentation: item.documentation.map(lsp::Documentation::String),
                insert_text_format: snippet.as_ref().map(|_| lsp::InsertTextFormat::SNIPPET),
                insert_text: snippet,
                ..Default::default()
            }
        })
        .collect();
    lsp::CompletionList {
        is_incomplete: incomplete,
        items,
    }
}

// ------------------------------------------------------------------ formatting

/// The edits that format the document with the client's indentation
/// options: one per changed line.
pub fn formatting(
    snap: &Snapshot,
    options: &lsp::FormattingOptions,
) -> Result<Vec<lsp::TextEdit>, ide::FormatRefusal> {
    let indent = if options.insert_spaces {
        ide::Indent::Spaces(options.tab_size.clamp(1, 16))
    } else {
        ide::Indent::Tab
    };
    let index = snap.line_index();
    Ok(ide::format_edits(snap.text(), indent)?
        .into_iter()
        .map(|(span, text)| lsp::TextEdit::new(index.range(span), text))
        .collect())
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
    let target = match (&params.function, params.position) {
        (Some(name), _) => ide::InverseTarget::Function(name),
        (None, Some(position)) => ide::InverseTarget::At(snap.line_index().offset(position)),
        (None, None) => ide::InverseTarget::File,
    };
    let preview = ide::inverse_preview(&snap.db, snap.project, snap.file, target)
        .map_err(|refusal| refusal.message())?;
    Ok(InverseResult {
        function: preview.function,
        source: preview.source,
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
    match ide::generated_rust(&snap.db, snap.project, snap.file) {
        Ok(source) => Ok(GeneratedRustResult { source }),
        Err(refusal) => {
            let index = snap.line_index();
            Err(refusal.message(|offset| {
                let p = index.position(offset);
                (p.line, p.character)
            }))
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A definition at `at` with `locals` locals right after its name.
    fn definition(at: u32, locals: u32) -> ide::DocumentSymbol {
        let symbol = |name: String, kind, start: u32, children| ide::DocumentSymbol {
            name,
            detail: String::new(),
            kind,
            range: Span::new(start, start + 1),
            selection_range: Span::new(start, start + 1),
            children,
        };
        let children = (1..=locals)
            .map(|i| symbol(format!("x{i}"), SymbolKind::Parameter, at + i, Vec::new()))
            .collect();
        symbol(format!("f{at}"), SymbolKind::Function, at, children)
    }

    fn outline(definitions: u32, locals: u32) -> Vec<ide::DocumentSymbol> {
        (0..definitions)
            .map(|i| definition(i * 100, locals))
            .collect()
    }

    fn entries(symbols: &[ide::DocumentSymbol]) -> usize {
        symbols.iter().map(|s| 1 + s.children.len()).sum()
    }

    #[test]
    fn an_outline_that_fits_is_not_cut() {
        // Exactly at the limit: 4 definitions with 2 locals each.
        let (kept, cut) = cut_outline(outline(4, 2), 12);
        assert_eq!(kept, outline(4, 2));
        assert_eq!(cut, None);
    }

    #[test]
    fn locals_are_cut_after_the_definitions_and_the_first_dropped_is_named() {
        // 4 definitions with 2 locals: 12 entries, 3 over a limit of 9.
        let (kept, cut) = cut_outline(outline(4, 2), 9);
        assert_eq!(kept.len(), 4);
        assert_eq!(entries(&kept), 9);
        assert_eq!(kept[2].children.len(), 1);
        assert_eq!(
            cut,
            Some(OutlineCut {
                omitted: 3,
                // f200's second local.
                first: Span::new(202, 203),
            })
        );
    }

    #[test]
    fn definitions_past_the_limit_are_counted_with_their_locals() {
        // 5 definitions with 1 local, a limit of 3: 3 definitions, no local.
        let (kept, cut) = cut_outline(outline(5, 1), 3);
        assert_eq!(entries(&kept), 3);
        assert!(kept.iter().all(|s| s.children.is_empty()));
        // The first local left out (f0's) comes before the first dropped
        // definition (f300).
        assert_eq!(
            cut,
            Some(OutlineCut {
                omitted: 7,
                first: Span::new(1, 2),
            })
        );
        // Without locals, the first dropped definition.
        let (_, cut) = cut_outline(outline(5, 0), 3);
        assert_eq!(
            cut,
            Some(OutlineCut {
                omitted: 2,
                first: Span::new(300, 301),
            })
        );
    }

    #[test]
    fn the_note_says_how_many_and_the_limit() {
        let text = "function f()\nend\n";
        let index = LineIndex::new(text, crate::line_index::Encoding::Utf16);
        let note = outline_cut_note(
            OutlineCut {
                omitted: 8000,
                first: Span::new(13, 16),
            },
            &index,
        );
        assert_eq!(note.name, "… 8000 more symbols not shown (limit 10000)");
        assert_eq!(note.range.start, lsp::Position::new(1, 0));
        assert_eq!(note.selection_range, note.range);
        assert_eq!(note.children, None);
        let one = OutlineCut {
            omitted: 1,
            first: Span::new(0, 0),
        };
        assert_eq!(
            outline_cut_note(one, &index).name,
            "… 1 more symbol not shown (limit 10000)"
        );
    }
}

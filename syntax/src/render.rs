//! Rendering diagnostics for people (codespan-reporting) and for tools (JSON).

use codespan_reporting::diagnostic as cs;
use codespan_reporting::files::SimpleFile;
use codespan_reporting::term;
use serde::Serialize;

use crate::diagnostics::{Diagnostic, Severity};

/// Line and column (both 1-based, column in characters) of a byte offset.
pub fn line_col(text: &str, offset: u32) -> (usize, usize) {
    let offset = char_floor(text, offset);
    let before = &text[..offset];
    let line = before.matches('\n').count() + 1;
    let line_start = before.rfind('\n').map(|i| i + 1).unwrap_or(0);
    (line, text[line_start..offset].chars().count() + 1)
}

/// `offset` kept inside `text` and moved back to the start of the
/// character it falls in.
fn char_floor(text: &str, offset: u32) -> usize {
    let offset = (offset as usize).min(text.len());
    (0..=offset)
        .rev()
        .find(|&i| text.is_char_boundary(i))
        .unwrap_or(0)
}

/// The byte offsets at which the lines of `text` start.
pub fn line_starts(text: &str) -> Vec<u32> {
    std::iter::once(0)
        .chain(text.match_indices('\n').map(|(i, _)| i as u32 + 1))
        .collect()
}

/// [`line_col`] with the line starts of `text` computed beforehand
/// ([`line_starts`]): a binary search instead of a scan from the start.
pub fn line_col_indexed(text: &str, line_starts: &[u32], offset: u32) -> (usize, usize) {
    let offset = char_floor(text, offset);
    let line = line_starts
        .partition_point(|&start| start as usize <= offset)
        .max(1);
    let line_start = line_starts.get(line - 1).map_or(0, |&s| s as usize);
    (line, text[line_start..offset].chars().count() + 1)
}

fn to_codespan(d: &Diagnostic) -> cs::Diagnostic<()> {
    let severity = match d.severity {
        Severity::Error => cs::Severity::Error,
        Severity::Warning => cs::Severity::Warning,
    };
    let mut labels =
        vec![cs::Label::primary((), d.primary.span.range()).with_message(&d.primary.message)];
    labels.extend(
        d.secondary
            .iter()
            .map(|l| cs::Label::secondary((), l.span.range()).with_message(&l.message)),
    );
    let mut out = cs::Diagnostic::new(severity)
        .with_code(d.code)
        .with_message(&d.message)
        .with_labels(labels);
    if let Some(help) = &d.help {
        out = out.with_notes(vec![format!("help: {help}")]);
    }
    out
}

/// Renders diagnostics of one file as codespan text, with or without colour.
pub fn render_human(path: &str, text: &str, diagnostics: &[Diagnostic], color: bool) -> String {
    let file = SimpleFile::new(path, text);
    let config = term::Config::default();
    let mut out = String::new();
    for d in diagnostics {
        let cs = to_codespan(d);
        if color {
            let mut buffer = term::termcolor::Buffer::ansi();
            let _ = term::emit_to_write_style(&mut buffer, &config, &file, &cs);
            out.push_str(&String::from_utf8_lossy(buffer.as_slice()));
        } else {
            let mut s = String::new();
            let _ = term::emit_to_string(&mut s, &config, &file, &cs);
            out.push_str(&s);
        }
    }
    out
}

/// The JSON form of a diagnostic (`nilc check --format json`).
#[derive(Serialize, Debug, Clone, PartialEq)]
pub struct JsonDiagnostic {
    pub file: String,
    pub code: &'static str,
    pub severity: Severity,
    pub message: String,
    pub range: JsonRange,
    pub label: String,
    pub secondary: Vec<JsonLabel>,
    pub help: Option<String>,
    /// The edit the help line describes, where there is one.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub suggestion: Option<JsonSuggestion>,
}

#[derive(Serialize, Debug, Clone, PartialEq)]
pub struct JsonSuggestion {
    pub range: JsonRange,
    pub replacement: String,
}

#[derive(Serialize, Debug, Clone, PartialEq)]
pub struct JsonRange {
    pub start_byte: u32,
    pub end_byte: u32,
    pub start_line: usize,
    pub start_column: usize,
    pub end_line: usize,
    pub end_column: usize,
}

#[derive(Serialize, Debug, Clone, PartialEq)]
pub struct JsonLabel {
    pub range: JsonRange,
    pub message: String,
}

pub fn json_range(text: &str, span: crate::ast::Span) -> JsonRange {
    let (start_line, start_column) = line_col(text, span.start);
    let (end_line, end_column) = line_col(text, span.end);
    JsonRange {
        start_byte: span.start,
        end_byte: span.end,
        start_line,
        start_column,
        end_line,
        end_column,
    }
}

pub fn to_json(path: &str, text: &str, d: &Diagnostic) -> JsonDiagnostic {
    JsonDiagnostic {
        file: path.to_string(),
        code: d.code,
        severity: d.severity,
        message: d.message.clone(),
        range: json_range(text, d.primary.span),
        label: d.primary.message.clone(),
        secondary: d
            .secondary
            .iter()
            .map(|l| JsonLabel {
                range: json_range(text, l.span),
                message: l.message.clone(),
            })
            .collect(),
        help: d.help.clone(),
        suggestion: d.suggestion.as_ref().map(|s| JsonSuggestion {
            range: json_range(text, s.span),
            replacement: s.replacement.clone(),
        }),
    }
}

/// One GitHub Actions workflow command for a diagnostic
/// (`::error file=…,line=…,col=…,endLine=…,endColumn=…,title=…::message`),
/// which the runner turns into an annotation on the file. The message
/// carries the label and the help on further lines.
pub fn to_github(path: &str, text: &str, d: &Diagnostic) -> String {
    let range = json_range(text, d.primary.span);
    let mut message = d.message.clone();
    if !d.primary.message.is_empty() {
        message.push_str(&format!("\n{}", d.primary.message));
    }
    if let Some(help) = &d.help {
        message.push_str(&format!("\nhelp: {help}"));
    }
    format!(
        "::{} file={},line={},col={},endLine={},endColumn={},title={}::{}",
        d.severity.as_str(),
        github_property(path),
        range.start_line,
        range.start_column,
        range.end_line,
        range.end_column,
        github_property(&format!("nilc {}", d.code)),
        github_data(&message)
    )
}

/// A workflow command's message: `%`, CR and LF escaped.
fn github_data(text: &str) -> String {
    text.replace('%', "%25")
        .replace('\r', "%0D")
        .replace('\n', "%0A")
}

/// A workflow command's property: as its message, and `:` and `,` too.
fn github_property(text: &str) -> String {
    github_data(text).replace(':', "%3A").replace(',', "%2C")
}

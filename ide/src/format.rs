//! Formatting for editors: the syntax layer's layout formatter
//! ([`nilang_syntax::format`]), as the smallest set of line edits.

use nilang_analysis::ast::Span;
pub use nilang_syntax::format::Indent;
use nilang_syntax::format::{Refusal, format};

/// Why a file is not formatted.
#[derive(Clone, PartialEq, Eq, Debug)]
pub enum FormatRefusal {
    /// The file has syntax errors: the formatter would have to guess its
    /// structure.
    SyntaxErrors,
}

impl FormatRefusal {
    pub fn message(&self) -> &'static str {
        match self {
            FormatRefusal::SyntaxErrors => "not formatted: the file has syntax errors",
        }
    }
}

/// The formatted text.
pub fn format_file(text: &str, indent: Indent) -> Result<String, FormatRefusal> {
    format(text, indent).map_err(|Refusal::SyntaxErrors| FormatRefusal::SyntaxErrors)
}

/// The edits that format `text`: one per line whose text changes (its
/// content, not its line break), and one for the end of the file; empty
/// when it is formatted already.
pub fn format_edits(text: &str, indent: Indent) -> Result<Vec<(Span, String)>, FormatRefusal> {
    let formatted = format_file(text, indent)?;
    if formatted == text {
        return Ok(Vec::new());
    }
    let old = lines(text);
    let new = lines(&formatted);
    let mut edits = Vec::new();
    let common = old.len().min(new.len());
    for i in 0..common {
        let (o, n) = (old[i], new[i]);
        if text[o.0..o.1] != formatted[n.0..n.1] {
            edits.push((
                Span::new(o.0 as u32, o.1 as u32),
                formatted[n.0..n.1].to_string(),
            ));
        }
    }
    // What follows the common lines: removed blank lines, or a final line
    // break added.
    let old_tail = if common > 0 { old[common - 1].1 } else { 0 };
    let new_tail = if common > 0 { new[common - 1].1 } else { 0 };
    if text[old_tail..] != formatted[new_tail..] {
        edits.push((
            Span::new(old_tail as u32, text.len() as u32),
            formatted[new_tail..].to_string(),
        ));
    }
    Ok(edits)
}

/// Each line's content range and the end of its line break.
fn lines(text: &str) -> Vec<(usize, usize, usize)> {
    let mut out = Vec::new();
    let mut at = 0;
    for line in text.split_inclusive('\n') {
        let content = line.trim_end_matches('\n').trim_end_matches('\r');
        out.push((at, at + content.len(), at + line.len()));
        at += line.len();
    }
    out
}

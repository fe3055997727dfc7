//! Formatting through the compiler's printer, refused whenever it could
//! change or lose anything.

use nilang_analysis::ast::Function;
use nilang_syntax::{parser as syntax, printer};

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

//! The formatter: layout, not reprinting.
//!
//! It changes only the whitespace around the code: each line's indentation
//! (one level per enclosing `function`, `struct`, `if`, `while`, `for` or
//! `begin` block, with `elseif`, `else` and `end` at the level of their
//! statement), whitespace at the ends of lines, and the final line break.
//! Tokens are never rewritten, so comments stay where they were and the
//! ASCII spellings (`<-`, `^=`) stay as written; the text inside strings
//! (docstrings included) is left alone, and so are lines that continue an
//! expression from the line before, which are moved with their statement.
//! Formatting is idempotent, and a file with syntax errors is refused
//! (guessing the structure of broken code could move it wrongly).

use tree_sitter::Node;

use crate::parser::parse_tree;

/// How to indent one level.
#[derive(Clone, Copy, PartialEq, Eq, Debug)]
pub enum Indent {
    Spaces(u32),
    Tab,
}

impl Default for Indent {
    fn default() -> Self {
        Indent::Spaces(4)
    }
}

/// Why a text is not formatted.
#[derive(Clone, Copy, PartialEq, Eq, Debug)]
pub enum Refusal {
    /// The file has syntax errors.
    SyntaxErrors,
}

/// Node kinds whose lines between the first and the `end` line are one
/// level deeper.
const OWNERS: &[&str] = &[
    "function_definition",
    "struct_definition",
    "if_statement",
    "while_statement",
    "for_statement",
    "begin_block",
];

/// `text` formatted with `indent` per level.
pub fn format(text: &str, indent: Indent) -> Result<String, Refusal> {
    let tree = parse_tree(text).ok_or(Refusal::SyntaxErrors)?;
    let root = tree.root_node();
    if root.has_error() {
        return Err(Refusal::SyntaxErrors);
    }
    let starts: Vec<usize> = crate::render::line_starts(text)
        .into_iter()
        .map(|s| s as usize)
        .collect();
    let line_of = |byte: usize| starts.partition_point(|&s| s <= byte) - 1;

    // Per line: +1 for each owner whose first line is above and whose last
    // line is below; strings' inner lines are kept as they are.
    let n = starts.len();
    let mut depth = vec![0i32; n + 1];
    let mut verbatim = vec![false; n];
    let mut stack = vec![root];
    while let Some(node) = stack.pop() {
        let kind = node.kind();
        let (mut first, last) = (
            line_of(node.start_byte()),
            line_of(node.end_byte().max(1) - 1),
        );
        if OWNERS.contains(&kind) {
            // A docstring and attributes (`@primitive(d)`, `@inline`) go
            // before the definition, at its level: its first line is that
            // of the keyword.
            let mut cursor = node.walk();
            if let Some(head) = node
                .children(&mut cursor)
                .find(|c| matches!(c.kind(), "function" | "struct"))
            {
                first = line_of(head.start_byte());
            }
        }
        if OWNERS.contains(&kind) && last > first + 1 {
            depth[first + 1] += 1;
            depth[last] -= 1;
        }
        if kind == "string" {
            for flag in verbatim.iter_mut().take(last + 1).skip(first + 1) {
                *flag = true;
            }
            continue;
        }
        let mut cursor = node.walk();
        stack.extend(node.children(&mut cursor));
    }
    let mut level = 0i32;
    let levels: Vec<i32> = depth[..n]
        .iter()
        .map(|d| {
            level += d;
            level
        })
        .collect();

    let unit = match indent {
        Indent::Spaces(k) => " ".repeat(k as usize),
        Indent::Tab => "\t".to_string(),
    };
    let mut out = String::with_capacity(text.len() + 16);
    // The shift given to the first line of the statement a continuation
    // line belongs to (new indentation width minus old).
    let mut shift: i64 = 0;
    for line in 0..n {
        let start = starts[line];
        let end = starts.get(line + 1).copied().unwrap_or(text.len());
        let raw = &text[start..end];
        let (content, newline) = match raw.strip_suffix('\n') {
            Some(c) => (c.strip_suffix('\r').unwrap_or(c), &raw[c.len()..]),
            None => (raw, ""),
        };
        if verbatim[line] {
            out.push_str(raw);
            continue;
        }
        let body = content.trim_start_matches([' ', '\t']);
        let old_indent = &content[..content.len() - body.len()];
        let body = body.trim_end_matches([' ', '\t']);
        if body.is_empty() {
            out.push_str(newline);
            continue;
        }
        let first_byte = start + old_indent.len();
        let mut lvl = levels[line].max(0);
        if starts_with_word(body, "elseif") || starts_with_word(body, "else") {
            lvl = (lvl - 1).max(0);
        }
        let new_indent = if continues(root, first_byte, &starts, line) {
            let width = visual_width(old_indent) as i64 + shift;
            " ".repeat(width.max(0) as usize)
        } else {
            let new = unit.repeat(lvl as usize);
            shift = visual_width(&new) as i64 - visual_width(old_indent) as i64;
            new
        };
        out.push_str(&new_indent);
        out.push_str(body);
        out.push_str(if newline.is_empty() { "\n" } else { newline });
    }
    // One line break at the end, none after it.
    while out.ends_with("\n\n") || out.ends_with("\r\n\r\n") {
        out.pop();
        if out.ends_with('\r') {
            out.pop();
        }
    }
    if out.trim().is_empty() {
        return Ok(String::new());
    }
    Ok(out)
}

fn starts_with_word(body: &str, word: &str) -> bool {
    body.strip_prefix(word)
        .is_some_and(|rest| !rest.starts_with(|c: char| c.is_alphanumeric() || c == '_'))
}

/// Columns of an indentation (a tab counts four).
fn visual_width(indent: &str) -> usize {
    indent.chars().map(|c| if c == '\t' { 4 } else { 1 }).sum()
}

/// Whether the line whose first token is at `byte` continues something
/// begun on an earlier line (an argument list, a parameter list, an
/// expression), rather than starting a statement, a clause or `end`.
fn continues(root: Node<'_>, byte: usize, starts: &[usize], line: usize) -> bool {
    let Some(mut node) = root.descendant_for_byte_range(byte, byte) else {
        return false;
    };
    let line_start = starts[line];
    loop {
        let kind = node.kind();
        if kind == "block"
            || kind == "source_file"
            || kind == "comment"
            || OWNERS.contains(&kind)
            || kind.ends_with("_clause")
        {
            return false;
        }
        if node.start_byte() < line_start && node.is_named() {
            return true;
        }
        match node.parent() {
            Some(parent) => node = parent,
            None => return false,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn fmt(text: &str) -> String {
        format(text, Indent::default()).expect("formats")
    }

    #[test]
    fn indents_blocks_and_keeps_comments_and_spellings() {
        let text = "function f(y::f64, x::f64)\n# a comment\n  a <- 0.0\n        for i = 1:3\n  a += x   \n    # inside\n end\n  if (a > 0, ~)\n y ^= 1\n elseif (a < 0, ~)\n y += 1\n  else\n y -= 1\n      end\n  a -= x * 3\n a -> 0.0\nend";
        let expected = "function f(y::f64, x::f64)\n    # a comment\n    a <- 0.0\n    for i = 1:3\n        a += x\n        # inside\n    end\n    if (a > 0, ~)\n        y ^= 1\n    elseif (a < 0, ~)\n        y += 1\n    else\n        y -= 1\n    end\n    a -= x * 3\n    a -> 0.0\nend\n";
        assert_eq!(fmt(text), expected);
        assert_eq!(fmt(expected), expected, "idempotent");
    }

    #[test]
    fn strings_and_continuations_keep_their_layout() {
        let text = "\"\"\"Doc\n   indented inside\n\"\"\"\nfunction f(y::f64,\n           x::f64)\n  g(y,\n    x)\nend\n";
        let expected = "\"\"\"Doc\n   indented inside\n\"\"\"\nfunction f(y::f64,\n           x::f64)\n    g(y,\n      x)\nend\n";
        assert_eq!(fmt(text), expected);
        assert_eq!(fmt(expected), expected);
    }

    #[test]
    fn attributes_and_docstrings_stay_at_the_definitions_level() {
        let text = "\"\"\"Doc.\"\"\"\n@primitive(d)\nfunction f(y::f64, x::f64)\ny += x\nend\n";
        let expected =
            "\"\"\"Doc.\"\"\"\n@primitive(d)\nfunction f(y::f64, x::f64)\n    y += x\nend\n";
        assert_eq!(fmt(text), expected);
    }

    #[test]
    fn tabs_on_request_and_syntax_errors_refused() {
        assert_eq!(
            format("function f(x::f64)\n  INC(x)\nend\n", Indent::Tab).unwrap(),
            "function f(x::f64)\n\tINC(x)\nend\n"
        );
        assert_eq!(
            format("function f(x::f64)\n  INC(x\nend\n", Indent::default()),
            Err(Refusal::SyntaxErrors)
        );
    }
}

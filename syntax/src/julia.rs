//! NiLang.jl habits the grammar cannot read: `@i function`, `@from c while
//! d`, and `k!=0` (a name may end in `!`). Each gets E0006, with
//! the spelling this language uses as the help line, instead of a generic
//! syntax error. The habits the grammar does read (`add(a, b)`, Julia's
//! type names) are diagnosed by the analysis, which knows the names.

use tree_sitter::Node;

use crate::ast::Span;
use crate::diagnostics::Diagnostic;

const CODE: &str = "E0006";

/// A targeted diagnostic for an `ERROR` node, if it is a Julia habit.
pub(crate) fn error_node(node: Node<'_>, text: &str) -> Option<Diagnostic> {
    if let Some(d) = statement(node, text, 0) {
        return Some(d);
    }
    let (start, end) = (node.start_byte(), node.end_byte());
    let source = &text[start..end];
    if let Some(rest) = source.strip_prefix("@i")
        && rest.chars().next().is_none_or(char::is_whitespace)
        && (text[end..].trim_start().starts_with("function")
            || rest.trim_start().starts_with("function"))
    {
        return Some(
            Diagnostic::error(
                CODE,
                span(start, start + 2),
                "`@i` is NiLang.jl's macro; a `.nil` function is reversible without it",
            )
            .with_label("not needed here")
            .with_help("remove `@i`: write `function name(...) ... end`")
            .with_suggestion(span(start, end_of_blanks(text, start + 2)), ""),
        );
    }
    if source.starts_with('=') && text[..start].ends_with('!') {
        let name_end = start - 1;
        let name_start = text[..name_end]
            .char_indices()
            .rev()
            .take_while(|&(_, c)| c.is_alphanumeric() || c == '_' || c == '!')
            .last()
            .map_or(name_end, |(i, _)| i);
        let name = &text[name_start..name_end];
        let after = &text[start + 1..];
        let value = after.split([',', ')', '\n', '#']).next().unwrap_or("");
        let value_end = start + 1 + value.trim_end().len();
        let value = value.trim();
        return Some(
            Diagnostic::error(
                CODE,
                span(name_start, start + 1),
                format!("`{name}!=` reads as the name `{name}!` followed by `=`"),
            )
            .with_label("a name may end in `!`")
            .with_help(format!(
                "for \"not equal\", put a space before `!=`: `{name} != {value}`"
            ))
            .with_suggestion(span(name_start, value_end), format!("{name} != {value}")),
        );
    }
    None
}

/// A targeted diagnostic for a statement of a block written as NiLang.jl's
/// `@from c while d`, with spans relative to `base`. The one test of what
/// such a statement is: the lowering leaves it out, and the syntax errors
/// inside it are not reported again.
pub(crate) fn statement(node: Node<'_>, text: &str, base: usize) -> Option<Diagnostic> {
    let start = node.start_byte();
    let line = text[start..].lines().next().unwrap_or("");
    let rest = line.strip_prefix("@from")?;
    if !rest.starts_with(char::is_whitespace) || node.parent().is_none_or(|p| p.kind() != "block") {
        return None;
    }
    let rest = rest.split('#').next().unwrap_or(rest);
    let (from, condition) = rest.split_once(" while ")?;
    let (from, condition) = (from.trim(), condition.trim());
    let post = match from.split_once("==") {
        Some((a, b)) if !b.contains("==") => format!("{} != {}", a.trim(), b.trim()),
        _ => format!("!({from})"),
    };
    let end = start + code_end(line);
    Some(
        Diagnostic::error(
            CODE,
            span(start - base, end - base),
            "`@from c while d` is NiLang.jl's loop; here it is `while (d, !c)`",
        )
        .with_label("NiLang.jl spelling")
        .with_help(format!(
            "write `while ({condition}, {post})`: the first condition decides whether to iterate, the second must be false on entry and true after every iteration"
        ))
        .with_suggestion(
            span(start - base, end - base),
            format!("while ({condition}, {post})"),
        ),
    )
}

/// The length of a line's code: up to a `#` comment, trailing blanks left out.
fn code_end(line: &str) -> usize {
    line.split('#').next().unwrap_or(line).trim_end().len()
}

/// The offset after the spaces and tabs at `at`.
fn end_of_blanks(text: &str, at: usize) -> usize {
    at + (text[at..].len() - text[at..].trim_start_matches([' ', '\t']).len())
}

fn span(start: usize, end: usize) -> Span {
    Span::new(start as u32, end as u32)
}

//! Lexical highlighting from the grammar's own query
//! (`tree-sitter-nilang/queries/highlights.scm`, the file Neovim and the
//! tree-sitter CLI read), for editors that have no tree-sitter of their own
//! (the playground). A node captured by several patterns takes the earliest
//! pattern's name, as `tree-sitter-highlight` resolves it; a node inside a
//! captured node (an interpolated name in a string, say) paints over it.

use std::sync::OnceLock;

use tree_sitter::{Query, QueryCursor, StreamingIterator};

fn query() -> &'static Query {
    static QUERY: OnceLock<Query> = OnceLock::new();
    QUERY.get_or_init(|| {
        Query::new(
            &tree_sitter_nilang::LANGUAGE.into(),
            tree_sitter_nilang::HIGHLIGHTS_QUERY,
        )
        .expect("the grammar's highlights query compiles (tree-sitter-nilang tests it)")
    })
}

/// Non-overlapping byte ranges of `text`, in order, each with its capture
/// name (`keyword.function`, `number.float`, `comment`, ...). Text that no
/// pattern captures is left out.
pub fn highlight(text: &str) -> Vec<(u32, u32, &'static str)> {
    let Some(tree) = crate::parser::parse_tree(text) else {
        return Vec::new();
    };
    let query = query();
    // Every captured node once, with the earliest pattern that captured it.
    let mut nodes: Vec<(usize, usize, usize, u32)> = Vec::new();
    let mut cursor = QueryCursor::new();
    let mut matches = cursor.matches(query, tree.root_node(), text.as_bytes());
    while let Some(m) = matches.next() {
        for capture in m.captures() {
            let range = capture.node.byte_range();
            nodes.push((range.start, range.end, m.pattern_index, capture.index));
        }
    }
    // Outer nodes first, and for one node the earliest pattern last, so
    // that painting in this order leaves each byte the innermost node's
    // earliest capture.
    nodes.sort_by(|a, b| {
        (b.1 - b.0)
            .cmp(&(a.1 - a.0))
            .then(a.0.cmp(&b.0))
            .then(b.2.cmp(&a.2))
    });
    let mut paint: Vec<Option<u32>> = vec![None; text.len()];
    for &(start, end, _, capture) in &nodes {
        for p in &mut paint[start..end.min(text.len())] {
            *p = Some(capture);
        }
    }
    let names = query.capture_names();
    let mut out: Vec<(u32, u32, &'static str)> = Vec::new();
    let mut at = 0;
    while at < paint.len() {
        let here = paint[at];
        let mut end = at + 1;
        while end < paint.len() && paint[end] == here {
            end += 1;
        }
        if let Some(capture) = here {
            out.push((at as u32, end as u32, names[capture as usize]));
        }
        at = end;
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    fn tags(text: &str) -> Vec<(String, &'static str)> {
        highlight(text)
            .into_iter()
            .map(|(s, e, t)| (text[s as usize..e as usize].to_string(), t))
            .collect()
    }

    #[test]
    fn keywords_names_numbers_and_comments() {
        let text = "# sum\nfunction f(y!::f64, x::f64)\n    y! += x * 2.5\nend\n";
        let tags = tags(text);
        let find = |s: &str| tags.iter().find(|(t, _)| t == s).map(|(_, tag)| *tag);
        assert_eq!(find("# sum"), Some("comment"));
        assert_eq!(find("function"), Some("keyword.function"));
        assert_eq!(find("end"), Some("keyword.function"));
        assert_eq!(find("f64"), Some("type.builtin"));
        assert_eq!(find("2.5"), Some("number.float"));
        assert_eq!(find("+="), Some("operator"));
        // In order, and never overlapping.
        let spans = highlight(text);
        assert!(spans.windows(2).all(|w| w[0].1 <= w[1].0), "{spans:?}");
    }

    #[test]
    fn broken_text_still_highlights_what_parses() {
        let tags = tags("function f(x::f64\n    x += \nend");
        assert!(
            tags.iter()
                .any(|(t, tag)| t == "function" && tag.starts_with("keyword"))
        );
    }
}

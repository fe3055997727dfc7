//! Tree-sitter grammar for NiLang `.nil` files.
//!
//! ```
//! let mut parser = tree_sitter::Parser::new();
//! parser
//!     .set_language(&tree_sitter_nilang::LANGUAGE.into())
//!     .expect("the grammar's ABI matches the tree-sitter library");
//! let tree = parser.parse("function f(x::f64, y::f64)\n    y += x\nend\n", None).unwrap();
//! assert!(!tree.root_node().has_error());
//! ```

use tree_sitter_language::LanguageFn;

unsafe extern "C" {
    fn tree_sitter_nilang() -> *const ();
}

/// The tree-sitter [`LanguageFn`] for NiLang.
pub const LANGUAGE: LanguageFn = unsafe { LanguageFn::from_raw(tree_sitter_nilang) };

/// The content of the [`node-types.json`] file for this grammar.
///
/// [`node-types.json`]: https://tree-sitter.github.io/tree-sitter/using-parsers/6-static-node-types
pub const NODE_TYPES: &str = include_str!("../../src/node-types.json");

/// The syntax highlighting query for NiLang.
pub const HIGHLIGHTS_QUERY: &str = include_str!("../../queries/highlights.scm");

/// The local-variable query for NiLang: function and `for` scopes, parameters,
/// ancillas and loop variables as definitions, identifiers as references.
pub const LOCALS_QUERY: &str = include_str!("../../queries/locals.scm");

/// The code navigation (tags) query for NiLang: function definitions and calls.
pub const TAGS_QUERY: &str = include_str!("../../queries/tags.scm");

#[cfg(test)]
mod tests {
    use std::collections::BTreeMap;

    use tree_sitter::{Parser, Query, QueryCursor, StreamingIterator, Tree};

    fn parse(source: &str) -> Tree {
        let mut parser = Parser::new();
        parser
            .set_language(&super::LANGUAGE.into())
            .expect("Error loading NiLang parser");
        parser
            .parse(source, None)
            .expect("the parser returns a tree")
    }

    /// Runs `query` over `source` and returns, for each captured node, the
    /// capture name the way tree-sitter-highlight resolves it: when several
    /// patterns capture the same node, the earliest pattern wins. The key is the
    /// node's text with its start (row, column), so that tests can name tokens.
    fn captures(query_source: &str, source: &str) -> BTreeMap<(usize, usize, String), String> {
        let query = Query::new(&super::LANGUAGE.into(), query_source).expect("the query compiles");
        let tree = parse(source);
        let mut cursor = QueryCursor::new();
        let mut matches = cursor.matches(&query, tree.root_node(), source.as_bytes());
        let mut best: BTreeMap<(usize, usize, String), (usize, String)> = BTreeMap::new();
        while let Some(m) = matches.next() {
            for capture in m.captures() {
                let node = capture.node;
                let key = (
                    node.start_position().row,
                    node.start_position().column,
                    node.utf8_text(source.as_bytes()).unwrap().to_string(),
                );
                let name = query.capture_names()[capture.index as usize].to_string();
                let entry = best.entry(key).or_insert((m.pattern_index, name.clone()));
                if m.pattern_index < entry.0 {
                    *entry = (m.pattern_index, name);
                }
            }
        }
        best.into_iter().map(|(k, (_, name))| (k, name)).collect()
    }

    fn capture_of<'a>(
        captures: &'a BTreeMap<(usize, usize, String), String>,
        row: usize,
        text: &str,
    ) -> Option<&'a str> {
        captures
            .iter()
            .find(|((r, _, t), _)| *r == row && t == text)
            .map(|(_, name)| name.as_str())
    }

    #[test]
    fn loads_the_grammar() {
        let mut parser = Parser::new();
        parser
            .set_language(&super::LANGUAGE.into())
            .expect("Error loading NiLang parser");
    }

    #[test]
    fn node_types_is_json_naming_the_statements() {
        assert!(super::NODE_TYPES.trim_start().starts_with('['));
        for kind in [
            "instruction",
            "ancilla_statement",
            "inverse_statement",
            "typecast",
        ] {
            assert!(
                super::NODE_TYPES.contains(&format!("\"type\": \"{kind}\"")),
                "node-types.json lacks {kind}"
            );
        }
    }

    #[test]
    fn queries_compile() {
        for (name, source) in [
            ("highlights.scm", super::HIGHLIGHTS_QUERY),
            ("locals.scm", super::LOCALS_QUERY),
            ("tags.scm", super::TAGS_QUERY),
        ] {
            if let Err(error) = Query::new(&super::LANGUAGE.into(), source) {
                panic!("queries/{name} does not compile: {error}");
            }
        }
    }

    const SAMPLE: &str = r#""""Accumulate."""
@kernel function acc(out!::T, xs::[f64], n::i64; atol::f64 = 1e-8) where T: Real
    k ← 0
    @routine begin
        k += sin(π) * 2
    end
    if (k > 0, ~) SWAP(out!, k) else (~DEC)(k) end
    for i in reverse(1:2:n)
        out! += xs[i].re'
    end
    ~@routine
    @safe @show k
    y .+= f.(xs; z = true)
    k → 0 # done
end
"#;

    #[test]
    fn highlights_the_sample() {
        let caps = captures(super::HIGHLIGHTS_QUERY, SAMPLE);
        let expected = [
            (0, "\"\"\"Accumulate.\"\"\"", "string.documentation"),
            (1, "@kernel", "attribute"),
            (1, "function", "keyword.function"),
            (1, "acc", "function"),
            (1, "out!", "variable.parameter"),
            (1, "T", "type"),
            (1, "f64", "type.builtin"),
            (1, "atol", "variable.parameter"),
            (1, "1e-8", "number.float"),
            (1, "where", "keyword"),
            (1, "Real", "type"),
            (2, "←", "operator"),
            (2, "0", "number"),
            (3, "@routine", "function.macro"),
            (3, "begin", "keyword"),
            (4, "+=", "operator"),
            (4, "sin", "function.call"),
            (4, "π", "constant.builtin"),
            (5, "end", "keyword"),
            (6, "if", "keyword.conditional"),
            (6, "~", "operator"),
            (6, "SWAP", "function.builtin"),
            (6, "else", "keyword.conditional"),
            (6, "DEC", "function.builtin"),
            (7, "for", "keyword.repeat"),
            (7, "i", "variable"),
            (7, "in", "keyword.repeat"),
            (7, "reverse", "keyword"),
            (8, "re", "property"),
            (8, "'", "operator"),
            (9, "end", "keyword.repeat"),
            (10, "~@routine", "function.macro"),
            (11, "@safe", "function.macro"),
            (11, "@show", "function.macro"),
            (12, ".+=", "operator"),
            (12, "f", "function.call"),
            (12, "z", "variable.parameter"),
            (12, "true", "constant.builtin.boolean"),
            (13, "→", "operator"),
            (13, "# done", "comment"),
            (14, "end", "keyword.function"),
        ];
        let mut wrong = Vec::new();
        for (row, text, name) in expected {
            let actual = capture_of(&caps, row, text);
            if actual != Some(name) {
                wrong.push(format!(
                    "line {row} `{text}`: expected @{name}, got {actual:?}"
                ));
            }
        }
        assert!(wrong.is_empty(), "wrong highlights:\n{}", wrong.join("\n"));
    }

    #[test]
    fn builtin_instructions_are_not_plain_calls() {
        let source = "function f(a, b, s)\n    ROT(a, b, 1)\n    PUSH!(s, a)\n    g(a)\nend\n";
        let caps = captures(super::HIGHLIGHTS_QUERY, source);
        assert_eq!(capture_of(&caps, 1, "ROT"), Some("function.builtin"));
        assert_eq!(capture_of(&caps, 2, "PUSH!"), Some("function.builtin"));
        assert_eq!(capture_of(&caps, 3, "g"), Some("function.call"));
        // Only one capture per builtin name: the `not-any-of?` pattern stays out.
        let query = Query::new(&super::LANGUAGE.into(), super::HIGHLIGHTS_QUERY).unwrap();
        let tree = parse(source);
        let mut cursor = QueryCursor::new();
        let mut all = cursor.captures(&query, tree.root_node(), source.as_bytes());
        let mut names = Vec::new();
        while let Some((m, index)) = all.next() {
            let capture = m.captures()[*index];
            if capture.node.utf8_text(source.as_bytes()).unwrap() == "ROT" {
                names.push(query.capture_names()[capture.index as usize]);
            }
        }
        assert_eq!(names, ["function.builtin"]);
    }

    #[test]
    fn locals_define_parameters_ancillas_and_loop_variables() {
        let source = "function f(x; k = 1)\n    a ← 0\n    for i = 1:3\n        a += x\n    end\n    a → 0\nend\n";
        let caps = captures(super::LOCALS_QUERY, source);
        assert_eq!(capture_of(&caps, 0, "x"), Some("local.definition"));
        assert_eq!(capture_of(&caps, 0, "k"), Some("local.definition"));
        assert_eq!(capture_of(&caps, 1, "a"), Some("local.definition"));
        assert_eq!(capture_of(&caps, 2, "i"), Some("local.definition"));
        assert_eq!(capture_of(&caps, 3, "x"), Some("local.reference"));
        assert_eq!(capture_of(&caps, 5, "a"), Some("local.reference"));
    }

    #[test]
    fn tags_find_definitions_and_calls() {
        let source = "\"doc\"\nfunction f(x)\n    g(x)\n    (~h)(x)\nend\n";
        let caps = captures(super::TAGS_QUERY, source);
        assert_eq!(capture_of(&caps, 1, "f"), Some("name"));
        assert_eq!(capture_of(&caps, 0, "\"doc\""), Some("doc"));
        assert_eq!(capture_of(&caps, 2, "g"), Some("name"));
        assert_eq!(capture_of(&caps, 3, "h"), Some("name"));
        assert!(caps.values().any(|name| name == "definition.function"));
        assert!(caps.values().any(|name| name == "reference.call"));
    }
}

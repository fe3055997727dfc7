//! Runs the tree-sitter corpus (`test/corpus/*.txt`) through the Rust binding,
//! so that CI checks the grammar without the tree-sitter CLI, and checks that
//! every `.nil` file under the workspace's `examples/` folder parses cleanly.
//!
//! The corpus format is the CLI's: a header (`===` line, test name, optional
//! attribute lines such as `:error` or `:skip`, `===` line), the source, a
//! `---` line and the expected S-expression. Expected trees are compared after
//! whitespace normalisation; when they name fields (`name: (identifier)`) the
//! fields are compared too, otherwise they are stripped from the actual tree,
//! exactly as `tree-sitter test` does.
//!
//! `tree-sitter test --update` refuses to write trees that contain `ERROR` or
//! `MISSING` nodes. Setting `NILANG_BLESS_CORPUS=1` makes this test rewrite
//! the expected tree of every failing case instead (error cases included);
//! review the diff before committing it.

use std::fmt::Write as _;
use std::fs;
use std::ops::Range;
use std::path::{Path, PathBuf};

use tree_sitter::{Node, Parser, Tree};

fn crate_dir() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR"))
}

fn parser() -> Parser {
    let mut parser = Parser::new();
    parser
        .set_language(&tree_sitter_nilang::LANGUAGE.into())
        .expect("the grammar's ABI matches the tree-sitter library");
    parser
}

fn parse(source: &str) -> Tree {
    parser()
        .parse(source, None)
        .expect("the parser returns a tree")
}

#[derive(Debug, Default, Clone, Copy, PartialEq, Eq)]
enum Expectation {
    #[default]
    Tree,
    /// `:error`: the input must parse with an error; the tree is not compared.
    Error,
    /// `:skip`, an unsupported `:cst`, or a `:platform(...)` other than this one.
    Skip,
}

#[derive(Debug)]
struct Case {
    file: PathBuf,
    /// 1-based line of the opening `===` line, for messages.
    line: usize,
    name: String,
    expectation: Expectation,
    input: String,
    expected: String,
    /// Byte range of the expected output in the file, for blessing.
    expected_range: Range<usize>,
}

fn delimiter_len(line: &str, c: char) -> Option<usize> {
    let line = line.trim_end_matches(['\r', '\n']);
    (line.len() >= 3 && line.chars().all(|x| x == c)).then_some(line.len())
}

/// Reads the header that opens at `lines[start]`: returns the test's name, its
/// expectation and the index of the closing `===` line.
fn parse_header(lines: &[&str], start: usize) -> Option<(String, Expectation, usize)> {
    delimiter_len(lines[start], '=')?;
    let mut name = String::new();
    let mut expectation = Expectation::Tree;
    let mut seen_attribute = false;
    for (i, line) in lines.iter().enumerate().skip(start + 1) {
        if delimiter_len(line, '=').is_some() {
            return Some((name.trim_end().to_string(), expectation, i));
        }
        let trimmed = line.trim();
        if trimmed.is_empty() {
            if seen_attribute {
                continue;
            }
            return None;
        }
        let attribute = trimmed.split('(').next().unwrap_or(trimmed);
        match attribute {
            ":skip" | ":cst" => expectation = Expectation::Skip,
            ":error" if expectation != Expectation::Skip => expectation = Expectation::Error,
            ":platform" => {
                let os = trimmed
                    .trim_start_matches(":platform(")
                    .trim_end_matches(')');
                if os.trim() != std::env::consts::OS {
                    expectation = Expectation::Skip;
                }
            }
            ":error" | ":fail-fast" | ":language" => {}
            _ if !seen_attribute => {
                name.push_str(line.trim_end_matches(['\r', '\n']));
                name.push('\n');
                continue;
            }
            _ => {}
        }
        seen_attribute = true;
    }
    None
}

fn parse_corpus_file(file: &Path) -> Vec<Case> {
    let content =
        fs::read_to_string(file).unwrap_or_else(|e| panic!("cannot read {}: {e}", file.display()));
    parse_corpus(&content, file)
}

fn parse_corpus(content: &str, file: &Path) -> Vec<Case> {
    let lines: Vec<&str> = content.split_inclusive('\n').collect();
    let offsets: Vec<usize> = lines
        .iter()
        .scan(0, |offset, line| {
            let start = *offset;
            *offset += line.len();
            Some(start)
        })
        .chain(std::iter::once(content.len()))
        .collect();

    // (opening line, name, expectation, first body line)
    let mut headers = Vec::new();
    let mut i = 0;
    while i < lines.len() {
        if let Some((name, expectation, close)) = parse_header(&lines, i) {
            headers.push((i, name, expectation, close + 1));
            i = close + 1;
        } else {
            i += 1;
        }
    }

    let mut cases = Vec::new();
    for (index, (open, name, expectation, body_start)) in headers.iter().enumerate() {
        let body_end = headers.get(index + 1).map_or(lines.len(), |h| h.0);
        // The longest `---` line divides the input from the expected output; on
        // a tie the later one, as an earlier one belongs to the input.
        let divider = (*body_start..body_end)
            .filter_map(|l| delimiter_len(lines[l], '-').map(|len| (len, l)))
            .max();
        let Some((_, divider)) = divider else {
            panic!(
                "{}:{}: test `{name}` has no `---` line",
                file.display(),
                open + 1
            );
        };
        let mut input = lines[*body_start..divider].concat();
        if input.ends_with('\n') {
            input.pop();
        }
        if input.ends_with('\r') {
            input.pop();
        }
        let expected_range = offsets[divider + 1]..offsets[body_end];
        cases.push(Case {
            file: file.to_path_buf(),
            line: open + 1,
            name: name.clone(),
            expectation: *expectation,
            input,
            expected: content[expected_range.clone()].to_string(),
            expected_range,
        });
    }
    cases
}

/// Collapses white space the way `tree-sitter test` does; drops `;` comment lines.
fn normalize(sexp: &str) -> String {
    let mut out = String::with_capacity(sexp.len());
    for line in sexp.lines() {
        if line.trim_start().starts_with(';') {
            continue;
        }
        for word in line.split_whitespace() {
            if !out.is_empty() {
                out.push(' ');
            }
            out.push_str(word);
        }
    }
    // No space before a closing parenthesis.
    let mut result = String::with_capacity(out.len());
    for c in out.chars() {
        if c == ')' && result.ends_with(' ') {
            result.pop();
        }
        result.push(c);
    }
    result
}

/// Replaces ` field: (` by ` (`, as the CLI does for trees written without fields.
fn strip_fields(sexp: &str) -> String {
    let mut result = String::with_capacity(sexp.len());
    let mut rest = sexp;
    while let Some(pos) = rest.find(": (") {
        let head = &rest[..pos];
        match head.rfind(' ') {
            Some(space)
                if space + 1 < pos
                    && head[space + 1..]
                        .bytes()
                        .all(|b| b.is_ascii_alphanumeric() || b == b'_') =>
            {
                result.push_str(&rest[..=space]);
                result.push('(');
            }
            _ => result.push_str(&rest[..pos + 3]),
        }
        rest = &rest[pos + 3..];
    }
    result.push_str(rest);
    result
}

/// One S-expression node per line, indented two spaces a level, as in the corpus.
fn pretty(sexp: &str) -> String {
    tree_sitter::format_sexp(sexp, 0)
}

/// A line diff (longest common subsequence) of two pretty-printed trees, with
/// three lines of context around each change.
fn diff(expected: &str, actual: &str) -> String {
    const CONTEXT: usize = 3;
    let a: Vec<&str> = expected.lines().collect();
    let b: Vec<&str> = actual.lines().collect();
    let mut lcs = vec![vec![0usize; b.len() + 1]; a.len() + 1];
    for i in (0..a.len()).rev() {
        for j in (0..b.len()).rev() {
            lcs[i][j] = if a[i] == b[j] {
                lcs[i + 1][j + 1] + 1
            } else {
                lcs[i + 1][j].max(lcs[i][j + 1])
            };
        }
    }
    // (marker, line): ' ' common, '-' only expected, '+' only actual.
    let mut lines = Vec::new();
    let (mut i, mut j) = (0, 0);
    while i < a.len() || j < b.len() {
        if i < a.len() && j < b.len() && a[i] == b[j] {
            lines.push((' ', a[i]));
            i += 1;
            j += 1;
        } else if i < a.len() && (j == b.len() || lcs[i + 1][j] >= lcs[i][j + 1]) {
            lines.push(('-', a[i]));
            i += 1;
        } else {
            lines.push(('+', b[j]));
            j += 1;
        }
    }
    let changed: Vec<usize> = (0..lines.len()).filter(|&k| lines[k].0 != ' ').collect();
    let near_change = |k: usize| {
        changed
            .iter()
            .any(|&c| k + CONTEXT >= c && k <= c + CONTEXT)
    };
    let mut out = String::new();
    let mut skipped = false;
    for (k, (marker, line)) in lines.iter().enumerate() {
        if near_change(k) {
            if skipped {
                out.push_str("    ...\n");
                skipped = false;
            }
            let _ = writeln!(out, "  {marker} {line}");
        } else {
            skipped = true;
        }
    }
    if skipped {
        out.push_str("    ...\n");
    }
    out
}

fn corpus_files() -> Vec<PathBuf> {
    let dir = crate_dir().join("test").join("corpus");
    let mut files: Vec<PathBuf> = fs::read_dir(&dir)
        .unwrap_or_else(|e| panic!("cannot read {}: {e}", dir.display()))
        .map(|entry| entry.expect("a directory entry").path())
        .filter(|path| path.extension().is_some_and(|ext| ext == "txt"))
        .collect();
    files.sort();
    files
}

fn all_cases() -> Vec<Case> {
    corpus_files()
        .iter()
        .flat_map(|file| parse_corpus_file(file))
        .collect()
}

/// The first `ERROR` or `MISSING` nodes of a tree, with their positions.
fn syntax_errors(node: Node, source: &str, out: &mut Vec<String>) {
    if out.len() >= 5 {
        return;
    }
    if node.is_error() || node.is_missing() {
        let start = node.start_position();
        let what = if node.is_missing() {
            format!("missing `{}`", node.kind())
        } else {
            let text = node.utf8_text(source.as_bytes()).unwrap_or("");
            let text: String = text.chars().take(40).collect();
            format!("unexpected `{}`", text.replace('\n', "\\n"))
        };
        out.push(format!("{}:{}: {what}", start.row + 1, start.column + 1));
        return;
    }
    let mut cursor = node.walk();
    for child in node.children(&mut cursor) {
        if child.has_error() {
            syntax_errors(child, source, out);
        }
    }
}

#[test]
fn corpus() {
    let cases = all_cases();
    assert!(
        cases.len() >= 50,
        "only {} corpus cases found under test/corpus",
        cases.len()
    );
    let bless = std::env::var_os("NILANG_BLESS_CORPUS").is_some_and(|v| !v.is_empty());

    let mut failures = Vec::new();
    let mut blessed: Vec<(PathBuf, Range<usize>, String)> = Vec::new();
    let mut ran = 0;
    for case in &cases {
        let label = format!(
            "{}:{}: `{}`",
            case.file
                .strip_prefix(crate_dir())
                .unwrap_or(&case.file)
                .display(),
            case.line,
            case.name
        );
        if case.expectation == Expectation::Skip {
            continue;
        }
        ran += 1;
        let tree = parse(&case.input);
        let root = tree.root_node();
        if case.expectation == Expectation::Error {
            if !root.has_error() {
                failures.push(format!(
                    "{label} is marked :error but parses without one:\n{}",
                    pretty(&root.to_sexp())
                ));
            }
            continue;
        }

        let expected = normalize(&case.expected);
        let with_fields = expected.contains(": (");
        let actual_full = root.to_sexp();
        let actual = if with_fields {
            actual_full.clone()
        } else {
            strip_fields(&actual_full)
        };
        if normalize(&actual) == expected {
            continue;
        }
        if bless {
            blessed.push((
                case.file.clone(),
                case.expected_range.clone(),
                format!("\n{}\n\n", pretty(&actual_full)),
            ));
            continue;
        }
        failures.push(format!(
            "{label}: the tree differs (- expected, + actual):\n{}",
            diff(&pretty(&expected), &pretty(&actual))
        ));
    }

    if !blessed.is_empty() {
        write_blessed(blessed);
    }

    assert!(
        failures.is_empty(),
        "{} of {ran} corpus case(s) failed:\n\n{}",
        failures.len(),
        failures.join("\n")
    );
}

/// Replaces the expected outputs of the given cases, file by file.
fn write_blessed(mut blessed: Vec<(PathBuf, Range<usize>, String)>) {
    let count = blessed.len();
    // Within a file, rewrite from the last case backwards so ranges stay valid.
    blessed.sort_by(|x, y| x.0.cmp(&y.0).then(y.1.start.cmp(&x.1.start)));
    let mut files: Vec<(PathBuf, String)> = Vec::new();
    for (file, range, tree) in blessed {
        if files.last().is_none_or(|(f, _)| *f != file) {
            let content = fs::read_to_string(&file).expect("read corpus file");
            files.push((file, content));
        }
        let content = &mut files.last_mut().expect("a file is open").1;
        let text = if range.end == content.len() {
            tree.trim_end().to_string() + "\n"
        } else {
            tree
        };
        content.replace_range(range, &text);
    }
    for (file, content) in files {
        fs::write(&file, content).expect("write corpus file");
    }
    eprintln!("blessed {count} corpus case(s): review the diff before committing");
}

/// A file written with Windows line endings must give the same tree.
#[test]
fn corpus_with_crlf_line_endings() {
    let mut failures = Vec::new();
    for case in all_cases() {
        if case.expectation != Expectation::Tree {
            continue;
        }
        let lf = parse(&case.input).root_node().to_sexp();
        let crlf = parse(&case.input.replace('\n', "\r\n"))
            .root_node()
            .to_sexp();
        if lf != crlf {
            failures.push(format!(
                "`{}`: with CRLF line endings the tree differs:\n{}",
                case.name,
                diff(&pretty(&lf), &pretty(&crlf))
            ));
        }
    }
    assert!(failures.is_empty(), "{}", failures.join("\n"));
}

/// Every case expected to parse cleanly has no ERROR or MISSING node, and every
/// case that shows one in its expected tree really has one. This catches a
/// corpus blessed without review.
#[test]
fn corpus_error_cases_are_the_ones_with_error_nodes() {
    for case in all_cases() {
        if case.expectation != Expectation::Tree {
            continue;
        }
        let expects_error = case.expected.contains("(ERROR") || case.expected.contains("(MISSING");
        let tree = parse(&case.input);
        assert_eq!(
            tree.root_node().has_error(),
            expects_error,
            "`{}` in {}",
            case.name,
            case.file.display()
        );
        let in_errors_file = case.file.file_name().is_some_and(|n| n == "errors.txt");
        assert_eq!(
            expects_error, in_errors_file,
            "`{}`: error cases belong in test/corpus/errors.txt, and only they",
            case.name
        );
    }
}

fn nil_files(dir: &Path, out: &mut Vec<PathBuf>) {
    let Ok(entries) = fs::read_dir(dir) else {
        return;
    };
    for entry in entries.flatten() {
        let path = entry.path();
        if path.is_dir() {
            // Build outputs can hold copies of the sources.
            if path.file_name().is_some_and(|n| n == "target") {
                continue;
            }
            nil_files(&path, out);
        } else if path.extension().is_some_and(|ext| ext == "nil") {
            out.push(path);
        }
    }
}

/// Every `.nil` file under the workspace's `examples/` folder (when there is
/// one) and under this crate's `test/` folder parses without ERROR or MISSING nodes.
#[test]
fn nil_files_parse_without_errors() {
    let mut files = Vec::new();
    nil_files(&crate_dir().join("../examples"), &mut files);
    nil_files(&crate_dir().join("test"), &mut files);
    files.sort();
    assert!(
        !files.is_empty(),
        "the highlight and tag tests are .nil files"
    );

    let mut failures = Vec::new();
    for file in &files {
        let source = fs::read_to_string(file)
            .unwrap_or_else(|e| panic!("cannot read {}: {e}", file.display()));
        let tree = parse(&source);
        if tree.root_node().has_error() {
            let mut errors = Vec::new();
            syntax_errors(tree.root_node(), &source, &mut errors);
            for error in errors {
                failures.push(format!("{}:{error}", file.display()));
            }
        }
    }
    assert!(
        failures.is_empty(),
        "syntax errors in .nil files:\n{}",
        failures.join("\n")
    );
}

/// The corpus reader itself: attributes, a `---` inside the input, trees
/// written with and without field names.
#[test]
fn corpus_reader_follows_the_cli_format() {
    let text = "\
==================
First
==================

function f(x) end

---

(source_file
  (function_definition
    (identifier)
    (parameter_list (parameter (identifier)))))

==================
Second, skipped
:skip
==================

nonsense ---

-----

(whatever)
==================
Third
:error
==================

function f(
-----
";
    let cases = parse_corpus(text, Path::new("inline.txt"));
    assert_eq!(cases.len(), 3);
    assert_eq!(cases[0].name, "First");
    assert_eq!(cases[0].input, "\nfunction f(x) end\n");
    assert_eq!(cases[0].expectation, Expectation::Tree);
    assert_eq!(cases[1].name, "Second, skipped");
    assert_eq!(cases[1].expectation, Expectation::Skip);
    assert_eq!(cases[1].input, "\nnonsense ---\n");
    assert_eq!(cases[2].expectation, Expectation::Error);
    assert_eq!(cases[2].line, 24);

    let actual = parse(&cases[0].input).root_node().to_sexp();
    assert!(actual.contains("name: (identifier)"));
    assert_eq!(
        normalize(&strip_fields(&actual)),
        normalize(&cases[0].expected)
    );
    assert!(parse(&cases[2].input).root_node().has_error());
}

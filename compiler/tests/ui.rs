//! The wrong-program suite: every `.nil` file under `tests/ui/` carries the
//! diagnostics it must produce as annotations on the offending line:
//!
//! ```text
//! y += x * y          # error[E0201]
//! ```
//!
//! The test fails on any missing, extra or misplaced diagnostic.

use std::collections::BTreeSet;
use std::path::{Path, PathBuf};

use nilang_compiler::db::{self, RootDatabase, SourceFile};
use nilang_compiler::diagnostics::CODES;
use nilang_compiler::render::line_col;

/// (line, "error[E0201]")
type Expected = BTreeSet<(usize, String)>;

fn ui_files() -> Vec<PathBuf> {
    let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/ui");
    let mut files: Vec<PathBuf> = std::fs::read_dir(&dir)
        .expect("tests/ui exists")
        .map(|e| e.expect("readable entry").path())
        .filter(|p| p.extension().is_some_and(|e| e == "nil"))
        .collect();
    files.sort();
    files
}

fn annotations(text: &str) -> Expected {
    let mut out = Expected::new();
    for (i, line) in text.lines().enumerate() {
        let Some(hash) = line.find('#') else { continue };
        let comment = &line[hash..];
        for severity in ["error", "warning"] {
            let mut rest = comment;
            while let Some(at) = rest.find(&format!("{severity}[")) {
                let tail = &rest[at..];
                let end = tail.find(']').expect("annotation closes with ]");
                out.insert((i + 1, tail[..=end].to_string()));
                rest = &tail[end..];
            }
        }
    }
    out
}

fn actual(path: &Path, text: &str) -> Expected {
    let db = RootDatabase::default();
    let file = SourceFile::new(&db, path.display().to_string(), text.to_string());
    let project = db::project_with_std(&db, vec![file], Vec::new());
    db::file_diagnostics(&db, project, file)
        .iter()
        .map(|d| {
            let (line, _) = line_col(text, d.primary.span.start);
            (line, format!("{}[{}]", d.severity.as_str(), d.code))
        })
        .collect()
}

#[test]
fn every_wrong_program_gets_exactly_its_diagnostics() {
    let mut failures = Vec::new();
    for path in ui_files() {
        let text = std::fs::read_to_string(&path).expect("ui files are UTF-8");
        let expected = annotations(&text);
        let actual = actual(&path, &text);
        if expected != actual {
            let name = path.file_name().unwrap().to_string_lossy();
            let missing: Vec<_> = expected.difference(&actual).collect();
            let extra: Vec<_> = actual.difference(&expected).collect();
            failures.push(format!(
                "{name}:\n  missing: {missing:?}\n  unexpected: {extra:?}"
            ));
        }
    }
    assert!(failures.is_empty(), "\n{}", failures.join("\n"));
}

#[test]
fn the_suite_covers_every_static_check() {
    // Exercised by the CLI tests (tests/cli.rs): E0003 (deep nesting) and
    // E0005 (a file that is not UTF-8); by the module tests
    // (tests/modules.rs, with packages besides the standard library): E0113
    // and E0114 (a name two packages define); E0625, a variant that cannot
    // be made, needs a variant (a build option, not a `.nil` file): by
    // tests/cli.rs (`nilc emit --variant`), build-plugin/tests/compile.rs
    // and codegen/tests/diagnostics.
    let elsewhere = ["E0003", "E0005", "E0113", "E0114", "E0625"];
    let mut seen = BTreeSet::new();
    for path in ui_files() {
        let text = std::fs::read_to_string(&path).unwrap();
        for (_, annotation) in annotations(&text) {
            let code = annotation
                .split('[')
                .nth(1)
                .unwrap()
                .trim_end_matches(']')
                .to_string();
            seen.insert(code);
        }
    }
    let missing: Vec<_> = CODES
        .iter()
        .map(|(code, _)| *code)
        .filter(|c| !seen.contains(*c) && !elsewhere.contains(c))
        .collect();
    assert!(missing.is_empty(), "no ui test for {missing:?}");
}

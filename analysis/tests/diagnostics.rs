//! Every diagnostic code the analysis raises, as a user sees it: one small
//! program per code, `tests/diagnostics/<CODE>.nil` (or `<CODE>_<what>.nil`),
//! and the snapshot of its diagnostics rendered by `render_human` (the
//! codespan text `nilc check` prints, without colour). A fixture raises its
//! own code and nothing else, unless its `# also: CODE ...` line names
//! more. Bless a change with `INSTA_UPDATE=always cargo test -p
//! nilang-analysis --test diagnostics` after reading the diff.
//!
//! The table of codes (`nilang_syntax::diagnostics::CODES`) must stay
//! covered: each code has a fixture here, in the syntax layer
//! (`syntax/tests/diagnostics/`, the parser's codes) or in the backends
//! (`codegen/tests/diagnostics/`, codes only code generation raises), or is
//! listed below with the reason it has none.

use std::collections::BTreeSet;
use std::path::{Path, PathBuf};

use nilang_analysis::db::{self, LibraryModule};
use nilang_analysis::diagnostics::CODES;
use nilang_analysis::{RootDatabase, SourceFile};
use nilang_syntax::render::render_human;

/// Codes of the table no layer below the shells can raise, with the reason.
const NO_FIXTURE: &[(&str, &str)] = &[(
    "E0005",
    "raised by `nilc` when a file's bytes are not UTF-8 (compiler/src/bin/nilc.rs): \
     the layers take text, never bytes; compiler/tests/cli.rs covers it",
)];

/// Codes raised (and given a fixture) that the table lacks. Each is a gap
/// in the table: `nilc explain`, the SARIF rules and the docs do not know
/// it. Remove a code from here once the table has it.
const NOT_IN_THE_TABLE: &[(&str, &str)] = &[];

/// Two packages besides the standard library, each with a module
/// `shapes` defining `area!`, for the module codes (E0113, E0114).
fn libraries(db: &RootDatabase) -> Vec<LibraryModule> {
    ["alib", "blib"]
        .into_iter()
        .map(|package| LibraryModule {
            file: SourceFile::new(
                db,
                format!("{package}/shapes.nil"),
                "function area!(a::f64, w::f64, h::f64)\n    a += w * h\nend\n".into(),
            ),
            package: package.to_string(),
            path: format!("{package}.shapes"),
            rust_path: format!("::{package}::shapes"),
        })
        .collect()
}

/// The code a fixture is named after: its file name's first five
/// characters.
fn code_of(path: &Path) -> String {
    let name = path.file_name().unwrap().to_str().unwrap();
    name.get(..5)
        .filter(|c| c.starts_with(['E', 'W']) && c[1..].chars().all(|d| d.is_ascii_digit()))
        .unwrap_or_else(|| panic!("`{name}`: a fixture is named after its code"))
        .to_string()
}

/// The codes a fixture expects: its own and those of its `# also:` lines.
fn expected_codes(path: &Path, text: &str) -> BTreeSet<String> {
    let mut out: BTreeSet<String> = text
        .lines()
        .filter_map(|l| l.strip_prefix("# also:"))
        .flat_map(|l| l.split_whitespace().map(str::to_string))
        .collect();
    out.insert(code_of(path));
    out
}

fn fixtures_in(dir: &Path) -> Vec<PathBuf> {
    let Ok(entries) = std::fs::read_dir(dir) else {
        return Vec::new();
    };
    let mut out: Vec<PathBuf> = entries
        .map(|e| e.unwrap().path())
        .filter(|p| p.extension().is_some_and(|e| e == "nil"))
        .collect();
    out.sort();
    out
}

#[test]
fn each_code_rendered() {
    // Every fixture runs; the ones that raise other codes are listed at the
    // end (`glob!` lists the snapshots that differ).
    let failures = std::cell::RefCell::new(Vec::new());
    insta::glob!("diagnostics/*.nil", |path| {
        let name = path.file_name().unwrap().to_str().unwrap();
        let text = std::fs::read_to_string(path).unwrap();
        let db = RootDatabase::default();
        let file = SourceFile::new(&db, name.to_string(), text.clone());
        let project = db::project_with_std(&db, vec![file], libraries(&db));
        let diagnostics = db::file_diagnostics(&db, project, file);
        let raised: BTreeSet<String> = diagnostics.iter().map(|d| d.code.to_string()).collect();
        let expected = expected_codes(path, &text);
        if raised != expected {
            failures.borrow_mut().push(format!(
                "{name}: expected {expected:?}, got {diagnostics:#?}"
            ));
            return;
        }
        let code = code_of(path);
        let summary = CODES
            .iter()
            .find(|(c, _)| *c == code)
            .map_or("(not in the table)", |(_, s)| s);
        let mut settings = insta::Settings::clone_current();
        settings.set_description(format!("{code}: {summary}"));
        settings.set_omit_expression(true);
        settings.bind(|| {
            insta::assert_snapshot!(render_human(name, &text, diagnostics, false));
        });
    });
    let failures = failures.into_inner();
    assert!(failures.is_empty(), "{}", failures.join("\n"));
}

#[test]
fn every_code_in_the_table_has_a_fixture() {
    let root = Path::new(env!("CARGO_MANIFEST_DIR"));
    let dirs = [
        root.join("../syntax/tests/diagnostics"),
        root.join("tests/diagnostics"),
        root.join("../codegen/tests/diagnostics"),
    ];
    let covered: BTreeSet<String> = dirs
        .iter()
        .flat_map(|d| fixtures_in(d))
        .map(|p| code_of(&p))
        .collect();
    let table: BTreeSet<&str> = CODES.iter().map(|(c, _)| *c).collect();
    let missing: Vec<&str> = table
        .iter()
        .copied()
        .filter(|c| !covered.contains(*c) && !NO_FIXTURE.iter().any(|(n, _)| n == c))
        .collect();
    assert!(
        missing.is_empty(),
        "codes of the table without a fixture (add one in the lowest layer that raises it, \
         or list it in NO_FIXTURE with the reason): {missing:?}"
    );
    for (code, why) in NO_FIXTURE {
        assert!(table.contains(code), "{code} is not in the table ({why})");
        assert!(
            !covered.contains(*code),
            "{code} has a fixture now: take it out of NO_FIXTURE ({why})"
        );
    }
    // The other way round: every fixture's code is in the table, or is
    // one of the known gaps.
    let unknown: Vec<&String> = covered
        .iter()
        .filter(|c| !table.contains(c.as_str()))
        .filter(|c| !NOT_IN_THE_TABLE.iter().any(|(n, _)| n == c))
        .collect();
    assert!(unknown.is_empty(), "codes not in the table: {unknown:?}");
    for (code, where_) in NOT_IN_THE_TABLE {
        assert!(
            !table.contains(code),
            "{code} is in the table now: take it out of NOT_IN_THE_TABLE ({where_})"
        );
        assert!(covered.contains(*code), "{code} has no fixture ({where_})");
    }
}

//! Diagnostics that only code generation raises (or that only its options
//! bring out), as a user sees them: one program per case,
//! `tests/diagnostics/<CODE>.nil` (or `<CODE>_<what>.nil`), built with its
//! `# options:` line, and the snapshot of the errors `rust_module_text`
//! returns, rendered by `render_human` as `nilc` and the build plugin print
//! them. Bless a change with `INSTA_UPDATE=always cargo test -p
//! nilang-codegen --test diagnostics` after reading the diff.
//!
//! And the other way round: on every diagnostic fixture of the analysis
//! (`analysis/tests/diagnostics/`), the Rust backend reports exactly the
//! analysis's errors, and nothing of its own.

mod common;

use std::collections::BTreeSet;
use std::path::{Path, PathBuf};

use nilang_analysis::db;
use nilang_analysis::diagnostics::Severity;
use nilang_analysis::{Project, RootDatabase, SourceFile};
use nilang_codegen::Options;
use nilang_codegen::queries::rust_module_text;
use nilang_syntax::render::render_human;

fn code_of(path: &Path) -> String {
    let name = path.file_name().unwrap().to_str().unwrap();
    name.get(..5)
        .filter(|c| c.starts_with(['E', 'W']) && c[1..].chars().all(|d| d.is_ascii_digit()))
        .unwrap_or_else(|| panic!("`{name}`: a fixture is named after its code"))
        .to_string()
}

#[test]
fn each_code_rendered() {
    // Every fixture runs; the ones that raise other codes are listed at the
    // end (`glob!` lists the snapshots that differ).
    let failures = std::cell::RefCell::new(Vec::new());
    insta::glob!("diagnostics/*.nil", |path| {
        let name = path.file_name().unwrap().to_str().unwrap();
        let text = std::fs::read_to_string(path).unwrap();
        let code = code_of(path);
        let db = RootDatabase::default();
        let file = SourceFile::new(&db, name.to_string(), text.clone());
        let project = Project::new(&db, vec![file]);
        // Clean for the analysis: the backend's options bring the error.
        let analysed = db::file_diagnostics(&db, project, file);
        if !analysed.is_empty() {
            failures
                .borrow_mut()
                .push(format!("{name}: the analysis reports {analysed:#?}"));
            return;
        }
        let mut rendered = String::new();
        for (line, options) in common::options(&text) {
            let errors = rust_module_text(&db, project, file, &options).err();
            let codes: Option<BTreeSet<&str>> =
                errors.as_ref().map(|e| e.iter().map(|d| d.code).collect());
            if codes != Some(BTreeSet::from([code.as_str()])) {
                failures
                    .borrow_mut()
                    .push(format!("{name} ({line}): expected {code}, got {errors:#?}"));
                return;
            }
            let errors = errors.unwrap();
            rendered.push_str(&format!("----- options: {line}\n"));
            rendered.push_str(&render_human(name, &text, &errors, false));
        }
        let mut settings = insta::Settings::clone_current();
        settings.set_description(code.clone());
        settings.set_omit_expression(true);
        settings.bind(|| insta::assert_snapshot!(rendered));
    });
    let failures = failures.into_inner();
    assert!(failures.is_empty(), "{}", failures.join("\n"));
}

fn analysis_fixtures() -> Vec<PathBuf> {
    let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("../analysis/tests/diagnostics");
    let mut out: Vec<PathBuf> = std::fs::read_dir(&dir)
        .unwrap_or_else(|e| panic!("{}: {e}", dir.display()))
        .map(|e| e.unwrap().path())
        .filter(|p| p.extension().is_some_and(|e| e == "nil"))
        .collect();
    out.sort();
    out
}

/// Where the backend still has diagnostic sites of its own (E0701, its
/// last guard in `rust_module`), none fires on a program the analysis
/// judged: a program with errors gets exactly the analysis's errors, and
/// one with only warnings gets its code. (The module fixtures need other
/// packages and the standard library; they are left out.)
#[test]
fn the_backend_adds_no_error_to_the_analysis() {
    let mut failures = Vec::new();
    let mut checked = 0;
    for path in analysis_fixtures() {
        let name = path.file_name().unwrap().to_str().unwrap().to_string();
        let text = std::fs::read_to_string(&path).unwrap();
        if text.contains("using ") || text.contains("import ") {
            continue;
        }
        let db = RootDatabase::default();
        let file = SourceFile::new(&db, name.clone(), text);
        let project = Project::new(&db, vec![file]);
        let errors: Vec<_> = db::file_diagnostics(&db, project, file)
            .iter()
            .filter(|d| d.severity == Severity::Error)
            .cloned()
            .collect();
        let generated = rust_module_text(&db, project, file, &Options::default());
        checked += 1;
        match generated {
            Ok(_) if errors.is_empty() => {}
            Ok(_) => failures.push(format!("{name}: code generated despite {errors:?}")),
            Err(from_backend) if from_backend != errors => failures.push(format!(
                "{name}: the backend reports {from_backend:#?}\nthe analysis {errors:#?}"
            )),
            Err(_) => {}
        }
    }
    assert!(checked > 50, "{checked} fixtures");
    assert!(failures.is_empty(), "{}", failures.join("\n"));
}

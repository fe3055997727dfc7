//! One list of diagnostics per file, whoever asks: for every `.nil` file of
//! the repository (the ui suite included), what the build plugin reports
//! is exactly what `nilc check` and the language server show, the query
//! `file_diagnostics` (`compiler/tests/cli.rs` holds `nilc check
//! --format json` to it, `lsp/tests/protocol.rs` the published
//! diagnostics).

use nilang_build::Config;
use nilang_compiler::db::{self, RootDatabase, SourceFile};
use nilang_compiler::diagnostics::Diagnostic;
use nilang_tests::repository::{projects, workspace};

fn key(d: &Diagnostic) -> (u32, u32, &'static str, String) {
    (
        d.primary.span.start,
        d.primary.span.end,
        d.code,
        d.message.clone(),
    )
}

#[test]
fn the_build_plugin_reports_what_nilc_check_reports() {
    let root = workspace();
    let out = tempfile_out();
    let mut compared = 0;
    let mut with_diagnostics = 0;
    let mut mismatches = Vec::new();
    for paths in projects(&root) {
        let relative: Vec<String> = paths
            .iter()
            .map(|p| {
                p.strip_prefix(&root)
                    .unwrap()
                    .to_string_lossy()
                    .into_owned()
            })
            .collect();
        let db = RootDatabase::default();
        let files: Vec<SourceFile> = paths
            .iter()
            .zip(&relative)
            .map(|(p, r)| SourceFile::new(&db, r.clone(), std::fs::read_to_string(p).unwrap()))
            .collect();
        let project = db::project_with_std(&db, files.clone(), Vec::new());
        let reports = Config::new()
            .manifest_dir(&root)
            .out_dir(&out)
            .read_metadata(false)
            .emit_cargo_directives(false)
            .diagnostics(&relative)
            .expect("the plugin reads the files");
        for &file in &files {
            let expected: Vec<_> = db::file_diagnostics(&db, project, file)
                .iter()
                .map(key)
                .collect();
            let actual: Vec<_> = reports
                .iter()
                .find(|r| &r.path == file.path(&db))
                .map(|r| r.diagnostics.iter().map(key).collect())
                .unwrap_or_default();
            compared += 1;
            with_diagnostics += usize::from(!expected.is_empty());
            if expected != actual {
                mismatches.push(format!(
                    "{}:\n  nilc check: {expected:?}\n  plugin:     {actual:?}",
                    file.path(&db)
                ));
            }
        }
    }
    assert!(mismatches.is_empty(), "{}", mismatches.join("\n"));
    // Every ui file has diagnostics; the examples have none.
    assert!(compared >= 60, "only {compared} files");
    assert!(
        with_diagnostics >= 29,
        "only {with_diagnostics} with diagnostics"
    );
}

/// An output folder the plugin is pointed at (it writes nothing here:
/// `diagnostics` only reports).
fn tempfile_out() -> std::path::PathBuf {
    std::env::temp_dir().join(format!("nilang-same-diagnostics-{}", std::process::id()))
}

//! The Rust backend's own kind of each expression against the analysis's
//! type for it (`nilang_codegen::audit`), over the forward and inverse
//! programs of every `.nil` file of the repository, each folder loaded as one project as
//! `nilc emit` loads it. What still differs is the snapshot
//! `snapshots/kinds__disagreements.snap`: the expressions the backend makes
//! up itself (the rewrites of log-number statements into their `.log`
//! fields, `sincos` taken apart, a keyword argument's default written at the
//! call), which the analysis never saw, and the offsets of a sparse matrix,
//! which the backend keeps 0-based. A new disagreement is a type decided
//! twice; fix it in the analysis, not in the snapshot.

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

use nilang_analysis::{Project, RootDatabase, SourceFile};
use nilang_codegen::Options;
use nilang_codegen::audit::kinds_against_analysis;

fn nil_folders(dir: &Path, out: &mut BTreeMap<PathBuf, Vec<PathBuf>>) {
    let mut entries: Vec<PathBuf> = std::fs::read_dir(dir)
        .unwrap()
        .map(|e| e.unwrap().path())
        .collect();
    entries.sort();
    for p in entries {
        let name = p.file_name().unwrap().to_string_lossy();
        if p.is_dir() {
            if !matches!(name.as_ref(), "target" | "node_modules" | ".git" | "fuzz") {
                nil_folders(&p, out);
            }
        } else if name.ends_with(".nil") {
            out.entry(dir.to_path_buf()).or_default().push(p);
        }
    }
}

#[test]
fn the_backend_kinds_of_the_repository_programs_are_the_analysis_types() {
    let root = Path::new(env!("CARGO_MANIFEST_DIR")).parent().unwrap();
    let mut folders = BTreeMap::new();
    nil_folders(root, &mut folders);
    let mut counts: BTreeMap<String, usize> = BTreeMap::new();
    let mut files_seen = 0;
    for files in folders.values() {
        let db = RootDatabase::default();
        let sources: Vec<SourceFile> = files
            .iter()
            .map(|p| {
                let rel = p.strip_prefix(root).unwrap().to_string_lossy().into_owned();
                SourceFile::new(&db, rel, std::fs::read_to_string(p).unwrap())
            })
            .collect();
        let project = Project::new(&db, sources.clone());
        for file in sources {
            let (_, found) = kinds_against_analysis(|| {
                nilang_codegen::queries::rust_module_text(&db, project, file, &Options::default())
            });
            files_seen += 1;
            for m in found {
                let line = format!(
                    "{} {} ({}): `{}` is {} to the backend, {} to the analysis",
                    file.path(&db),
                    m.function,
                    m.pass,
                    m.expr,
                    m.backend,
                    m.analysis.as_deref().unwrap_or("untyped"),
                );
                *counts.entry(line).or_default() += 1;
            }
        }
    }
    assert!(files_seen > 100, "only {files_seen} files found");
    let text: String = counts
        .iter()
        .map(|(line, n)| format!("{n:>3} × {line}\n"))
        .collect();
    insta::assert_snapshot!("disagreements", text);
}

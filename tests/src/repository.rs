//! The `.nil` files of this repository, grouped into projects as the build
//! plugin and `nilc` group them, for the tests that hold every file to a
//! property (accepted ones compile; every front end reports the same).

use std::path::{Path, PathBuf};

use nilang_syntax::files::{is_nil_file, skipped_folder};

/// The workspace root.
pub fn workspace() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("..")
        .canonicalize()
        .expect("the workspace root exists")
}

fn walk(dir: &Path, out: &mut Vec<PathBuf>) {
    let Ok(entries) = std::fs::read_dir(dir) else {
        return;
    };
    let mut entries: Vec<_> = entries.filter_map(Result::ok).collect();
    entries.sort_by_key(|e| e.file_name());
    for entry in entries {
        let path = entry.path();
        let name = entry.file_name().to_string_lossy().into_owned();
        if path.is_dir() {
            if !skipped_folder(&name) {
                walk(&path, out);
            }
        } else if is_nil_file(&path) {
            out.push(path);
        }
    }
}

/// The projects: folders of `.nil` files, each file of the ui suite on its
/// own (they are independent programs), sorted by path.
pub fn projects(root: &Path) -> Vec<Vec<PathBuf>> {
    let mut files = Vec::new();
    walk(root, &mut files);
    let mut out: Vec<Vec<PathBuf>> = Vec::new();
    for file in files {
        let dir = file.parent().unwrap().to_path_buf();
        let alone = dir.ends_with("compiler/tests/ui");
        match out.last_mut() {
            Some(last) if !alone && last[0].parent() == Some(dir.as_path()) => last.push(file),
            _ => out.push(vec![file]),
        }
    }
    out
}

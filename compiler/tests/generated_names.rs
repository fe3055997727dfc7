//! Every name generated code derives from a `.nil` name is spelled in
//! `analysis/src/names.rs` alone: no other source of the compiler's crates
//! writes the prefixes of a function body (`__nil_`) or of an inverse
//! (`uncall_`) in a string, so that a change of spelling is one change and
//! the readers of names (`generated_from`, E0110) stay in step with the
//! writers. Comments and the sources' own tests are left out.

use std::path::{Path, PathBuf};

fn rust_files(dir: &Path, out: &mut Vec<PathBuf>) {
    let mut entries: Vec<_> = std::fs::read_dir(dir).unwrap().flatten().collect();
    entries.sort_by_key(|e| e.path());
    for e in entries {
        let p = e.path();
        if p.is_dir() {
            rust_files(&p, out);
        } else if p.extension().is_some_and(|x| x == "rs") {
            out.push(p);
        }
    }
}

/// The string literals of `text` outside comments and `#[cfg(test)]`
/// modules, with their lines.
fn literals(text: &str) -> Vec<(usize, String)> {
    let text = match text.find("#[cfg(test)]") {
        Some(k) => &text[..k],
        None => text,
    };
    let mut out = Vec::new();
    for (n, line) in text.lines().enumerate() {
        let code = line.trim_start();
        if code.starts_with("//") {
            continue;
        }
        let mut parts = code.split('"');
        parts.next();
        while let (Some(inside), Some(_)) = (parts.next(), parts.next()) {
            out.push((n + 1, inside.to_string()));
        }
    }
    out
}

#[test]
fn generated_prefixes_are_spelled_in_names_rs_alone() {
    let root = Path::new(env!("CARGO_MANIFEST_DIR")).parent().unwrap();
    let mut files = Vec::new();
    for krate in [
        "syntax",
        "analysis",
        "codegen",
        "compiler",
        "ide",
        "lsp",
        "build-plugin",
    ] {
        rust_files(&root.join(krate).join("src"), &mut files);
    }
    assert!(files.len() > 50, "{} files", files.len());
    let mut found = Vec::new();
    for file in &files {
        if file.ends_with("analysis/src/names.rs") {
            continue;
        }
        let text = std::fs::read_to_string(file).unwrap();
        for (line, literal) in literals(&text) {
            if literal.contains("__nil_") || literal.starts_with("uncall_") {
                found.push(format!(
                    "{}:{line}: \"{literal}\"",
                    file.strip_prefix(root).unwrap().display()
                ));
            }
        }
    }
    assert!(
        found.is_empty(),
        "generated names spelled outside names.rs:\n{}",
        found.join("\n")
    );
}

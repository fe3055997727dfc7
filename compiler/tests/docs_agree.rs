//! What the documentation tells a reader to write or run agrees with the
//! code: the Rust path of the standard library, partial application in
//! std.functional, the VS Code packaging steps, and how `nilc` is
//! installed while the crates are not published.

use std::path::{Path, PathBuf};

fn repository() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("..")
        .canonicalize()
        .unwrap()
}

fn read(relative: &str) -> String {
    std::fs::read_to_string(repository().join(relative))
        .unwrap_or_else(|e| panic!("cannot read {relative}: {e}"))
}

/// `text` with its line breaks and runs of spaces as single spaces, so a
/// phrase is found wherever the paragraph is wrapped.
fn unwrapped(text: &str) -> String {
    text.split_whitespace().collect::<Vec<_>>().join(" ")
}

#[test]
fn the_stdlib_page_names_the_runtime_crate_and_its_modules() {
    let page = unwrapped(&read("docs/stdlib.md"));
    assert!(
        page.contains("from Rust the functions are `nilang_runtime::stdlib::<module>::<function>`"),
        "docs/stdlib.md must give the Rust path of the standard library"
    );
    // Every `nilang_runtime::stdlib::<module>` the page names is a module
    // of the runtime's `stdlib`.
    let runtime = read("runtime/src/lib.rs");
    let body = runtime
        .split("pub mod stdlib {")
        .nth(1)
        .expect("runtime/src/lib.rs has `pub mod stdlib`");
    let body = &body[..body.find('}').unwrap()];
    let modules: Vec<&str> = body
        .split("pub mod ")
        .skip(1)
        .filter_map(|s| s.split_whitespace().next())
        .collect();
    assert!(modules.contains(&"functional"), "{modules:?}");
    for (i, _) in page.match_indices("nilang_runtime::stdlib::") {
        let rest = &page[i + "nilang_runtime::stdlib::".len()..];
        let name: String = rest
            .chars()
            .take_while(|c| c.is_alphanumeric() || *c == '_' || *c == '<' || *c == '>')
            .collect();
        assert!(
            name == "<module>" || modules.contains(&name.as_str()),
            "docs/stdlib.md names `nilang_runtime::stdlib::{name}`, not a module of {modules:?}"
        );
    }
}

#[test]
fn the_stdlib_page_agrees_that_partial_application_exists() {
    let language = unwrapped(&read("docs/language.md"));
    assert!(language.contains("**Partial application.**"));
    let page = unwrapped(&read("docs/stdlib.md"));
    assert!(
        !page.contains("or partial application)") && !page.contains("no partial application"),
        "docs/stdlib.md says there is no partial application"
    );
    assert!(page.contains("partially applied"), "{page}");
}

#[test]
fn the_readme_compiles_the_vs_code_extension_before_packaging_it() {
    let manifest: serde_json::Value =
        serde_json::from_str(&read("editors/vscode/package.json")).unwrap();
    let compile = manifest["scripts"]["compile"].as_str().unwrap();
    assert!(compile.starts_with("tsc"), "{compile}");
    assert_eq!(manifest["main"], "./out/extension.js");
    let readme = read("README.md");
    let line = readme
        .lines()
        .find(|l| l.contains("(editors/vscode/)") && l.contains("vsce package"))
        .expect("README.md has the VS Code command");
    let compiled = line.find("npm run compile").expect(line);
    assert!(compiled < line.find("vsce package").unwrap(), "{line}");
}

/// `cargo install` lines of the CI files: each installs from a checkout
/// (`--path`), of a folder that holds the package with the `nilc` binary.
#[test]
fn the_ci_files_install_nilc_from_a_checkout() {
    for name in ["nilc.yml", "pre-commit-hook", "pre-commit-config.yaml"] {
        let text = read(&format!("docs/ci/{name}"));
        assert!(
            !text.contains("cargo install nilang-compiler"),
            "docs/ci/{name} installs a crate that is not published"
        );
        let installs: Vec<&str> = text
            .match_indices("cargo install")
            .map(|(i, _)| text[i..].lines().next().unwrap())
            .collect();
        assert!(
            !installs.is_empty(),
            "docs/ci/{name} says how to install nilc"
        );
        for install in installs {
            let path = install
                .split_whitespace()
                .skip_while(|w| *w != "--path")
                .nth(1)
                .unwrap_or_else(|| panic!("docs/ci/{name}: `{install}` has no --path"))
                .trim_end_matches([')', '`', '.', '"']);
            // The workflow checks this repository out into `.nilang`.
            let folder = path.strip_prefix(".nilang/").unwrap_or(path);
            let manifest = read(&format!("{folder}/Cargo.toml"));
            assert!(manifest.contains("name = \"nilang-compiler\""), "{folder}");
            assert!(
                repository().join(folder).join("src/bin/nilc.rs").is_file(),
                "{folder} has no nilc binary"
            );
        }
    }
    // The workflow checks out the folder it installs from.
    let workflow = read("docs/ci/nilc.yml");
    assert!(workflow.contains("path: .nilang"), "{workflow}");
}

//! Snapshots of the Rust the backend generates for small programs, one
//! snapshot per case of the fixtures `tests/rust/*.nil` (see
//! `common/mod.rs` for their format): the case's source, then the module
//! for each of its options lines (call, uncall, and with gradients the
//! reverse passes and `f_grad` where the function has something to
//! differentiate). Bless a change with `INSTA_UPDATE=always cargo test -p
//! nilang-codegen --test rust` (or `cargo insta review`) after reading the
//! diff.
//!
//! A kernel's module embeds its WGSL as string constants; the snapshot
//! names the shader there instead (`tests/wgsl` snapshots the shaders), and
//! the test holds that each constant is one of `kernel_shaders`' shaders.

mod common;

use common::{Case, assert_case_snapshot, cases, compile, orphan_snapshots, run_all};
use nilang_analysis::db;
use nilang_codegen::queries::{kernel_shaders, rust_module_text};

/// The module of `case` for each options line, as the snapshot shows it.
fn snapshot(case: &Case) -> String {
    let c = compile(case);
    let mut shaders: Vec<(String, String)> = Vec::new();
    for &f in db::file_functions(&c.db, c.project, c.file) {
        let found = kernel_shaders(&c.db, f)
            .unwrap_or_else(|e| panic!("{}: kernel shaders: {e:?}", case.name));
        shaders.extend(found);
    }
    let mut out = format!("----- SOURCE {}\n{}", case.path(), case.text);
    for (line, options) in &case.options {
        let code = rust_module_text(&c.db, c.project, c.file, options).unwrap_or_else(|errors| {
            panic!(
                "{} ({line}): {:?}",
                case.name,
                errors
                    .iter()
                    .map(|d| format!("{}: {}", d.code, d.message))
                    .collect::<Vec<_>>()
            )
        });
        out.push_str(&format!("----- RUST ({line})\n"));
        out.push_str(&name_embedded_shaders(&case.name, &code, &shaders));
    }
    out
}

/// `code` with the value of each `pub const ..._WGSL_...: &str` replaced by
/// the label of the shader it is; fails when one is no shader of the file.
fn name_embedded_shaders(case: &str, code: &str, shaders: &[(String, String)]) -> String {
    let mut out = String::with_capacity(code.len());
    for line in code.lines() {
        let constant = line
            .strip_prefix("pub const ")
            .and_then(|rest| rest.split_once(": &str = "))
            .filter(|(name, _)| name.contains("_WGSL_"));
        match constant {
            Some((name, value)) => {
                let value = value.strip_suffix(';').unwrap();
                // A self-inverse kernel's call and uncall are one text.
                let labels: Vec<&str> = shaders
                    .iter()
                    .filter(|(_, wgsl)| format!("{wgsl:?}") == value)
                    .map(|(label, _)| label.as_str())
                    .collect();
                assert!(
                    !labels.is_empty(),
                    "{case}: `{name}` is not one of {shaders:?}"
                );
                let labels = labels.join(" = ");
                out.push_str(&format!("pub const {name}: &str = /* WGSL: {labels} */;\n"));
            }
            None => {
                out.push_str(line);
                out.push('\n');
            }
        }
    }
    out
}

#[test]
fn generated_rust() {
    let cases = cases("rust");
    run_all(&cases, |case| {
        assert_case_snapshot("rust", case, &snapshot(case));
    });
    let orphans = orphan_snapshots("rust", &cases);
    assert!(
        orphans.is_empty(),
        "snapshots of no case (remove them): {orphans:?}"
    );
}

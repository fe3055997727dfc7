//! The build plugin used for real by a crate: a good `.nil` file builds, a
//! broken one fails the build with a codespan diagnostic and a
//! `cargo::error`, and leaves nothing in OUT_DIR.

use std::path::{Path, PathBuf};
use std::process::Command;

fn workspace() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("..")
        .canonicalize()
        .unwrap()
}

/// A fresh crate in a temporary folder whose build.rs compiles `nil/`.
fn fixture(name: &str, nil: &str) -> PathBuf {
    let root = workspace();
    let dir = std::env::temp_dir().join(format!("nilang-fixture-{name}-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(dir.join("src")).unwrap();
    std::fs::create_dir_all(dir.join("nil")).unwrap();
    std::fs::write(
        dir.join("Cargo.toml"),
        format!(
            r#"[package]
name = "fixture-{name}"
version = "0.0.0"
edition = "2024"
publish = false

[dependencies]
nilang = {{ path = {runtime:?} }}

[build-dependencies]
nilang-build = {{ path = {plugin:?} }}

[workspace]
"#,
            runtime = root.join("runtime"),
            plugin = root.join("build-plugin"),
        ),
    )
    .unwrap();
    // The workspace's lock file keeps the versions (and the offline build) the same.
    std::fs::copy(root.join("Cargo.lock"), dir.join("Cargo.lock")).unwrap();
    std::fs::write(
        dir.join("build.rs"),
        "fn main() {\n    nilang_build::compile_dir(\"nil\");\n}\n",
    )
    .unwrap();
    std::fs::write(
        dir.join("src/lib.rs"),
        "nilang::include_nil!(pub mod prog);\n\n#[test]\nfn runs() {\n    let mut y = 1.0;\n    prog::f(&mut y, 2.0).unwrap();\n    assert_eq!(y, 3.0);\n}\n",
    )
    .unwrap();
    std::fs::write(dir.join("nil/prog.nil"), nil).unwrap();
    dir
}

fn build(dir: &Path) -> (bool, String, PathBuf) {
    let target = workspace().join("target/nil-fixtures");
    let out = Command::new(env!("CARGO"))
        .args(["build", "--offline", "--quiet", "--manifest-path"])
        .arg(dir.join("Cargo.toml"))
        .env("CARGO_TARGET_DIR", &target)
        .env_remove("RUSTFLAGS")
        .output()
        .expect("cargo runs");
    let stderr = String::from_utf8_lossy(&out.stderr).into_owned();
    (out.status.success(), stderr, target)
}

/// The OUT_DIR folders of the fixture's build script.
fn out_dirs(target: &Path, name: &str) -> Vec<PathBuf> {
    let build = target.join("debug/build");
    let Ok(entries) = std::fs::read_dir(&build) else {
        return Vec::new();
    };
    entries
        .filter_map(Result::ok)
        .filter(|e| {
            e.file_name()
                .to_string_lossy()
                .starts_with(&format!("fixture-{name}-"))
        })
        .map(|e| e.path().join("out"))
        .filter(|p| p.is_dir())
        .collect()
}

#[test]
fn good_and_broken_fixture_crates() {
    let good = fixture("good", "function f(y::f64, x::f64)\n    y += x\nend\n");
    // The shared fixture target keeps the OUT_DIRs of earlier builds
    // (another plugin version builds the script under another hash): the
    // one that counts is the one whose script ran last (cargo rewrites its
    // `output` file on every run).
    let (ok, stderr, target) = build(&good);
    assert!(ok, "{stderr}");
    let last_run = |out: &PathBuf| {
        out.with_file_name("output")
            .metadata()
            .and_then(|m| m.modified())
            .ok()
    };
    let latest = out_dirs(&target, "good")
        .into_iter()
        .max_by_key(last_run)
        .expect("the fixture's build script ran");
    let generated = [latest.join("prog.rs")];
    assert!(generated[0].exists(), "{}", generated[0].display());
    assert!(
        std::fs::read_to_string(&generated[0])
            .unwrap()
            .contains("pub fn uncall_f")
    );

    let broken = fixture(
        "broken",
        "function f(y::f64, x::f64)\n    y += x * y\nend\n",
    );
    let (ok, stderr, target) = build(&broken);
    assert!(!ok, "a broken .nil file must fail the build");
    // The codespan rendering, with the source line and the label.
    assert!(
        stderr.contains("error[E0201]: `y` is read and written by the same instruction"),
        "{stderr}"
    );
    assert!(stderr.contains("nil/prog.nil:2:14"), "{stderr}");
    assert!(stderr.contains("y += x * y"), "{stderr}");
    // The cargo::error line, as cargo shows it.
    assert!(
        stderr.contains("error: fixture-broken@0.0.0: nil/prog.nil:2:14: error[E0201]: `y` is read and written by the same instruction"),
        "{stderr}"
    );
    assert!(!stderr.contains("Diagnostics {"), "no Debug dump: {stderr}");
    for dir in out_dirs(&target, "broken") {
        let files: Vec<_> = std::fs::read_dir(&dir)
            .unwrap()
            .filter_map(Result::ok)
            .collect();
        assert!(
            files.is_empty(),
            "OUT_DIR {} holds {:?}",
            dir.display(),
            files
        );
    }
    let _ = std::fs::remove_dir_all(good);
    let _ = std::fs::remove_dir_all(broken);
}

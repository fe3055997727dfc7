//! The build plugin used for real by a crate: a good `.nil` file builds, a
//! broken one fails the build with a codespan diagnostic and a
//! `cargo::error`, and leaves nothing in OUT_DIR; a member of another
//! workspace gets cargo's manners (warnings, paths from the workspace root,
//! a renamed runtime, options that rerun the script, stale modules removed).

use std::path::{Path, PathBuf};
use std::process::{Command, Output};

mod fixture_crate;

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
nilang-runtime = {{ path = {runtime:?} }}

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
        "nilang_runtime::include_nil!(pub mod prog);\n\n#[test]\nfn runs() {\n    let mut y = 1.0;\n    prog::f(&mut y, 2.0).unwrap();\n    assert_eq!(y, 3.0);\n}\n",
    )
    .unwrap();
    std::fs::write(dir.join("nil/prog.nil"), nil).unwrap();
    dir
}

/// The fixtures' target folder: not this build's, which cargo holds
/// locked while tests run.
fn fixture_target() -> PathBuf {
    workspace().join("target/nil-fixtures")
}

/// `cargo <args> --manifest-path <dir>/Cargo.toml` in `dir`, offline, into
/// the fixtures' target folder.
fn cargo(args: &[&str], dir: &Path) -> Output {
    Command::new(env!("CARGO"))
        .args(args)
        .args(["--offline", "--manifest-path"])
        .arg(dir.join("Cargo.toml"))
        .current_dir(dir)
        .env("CARGO_TARGET_DIR", fixture_target())
        .env_remove("RUSTFLAGS")
        .env_remove("CARGO_TERM_COLOR")
        .output()
        .expect("cargo runs")
}

fn build(dir: &Path) -> (bool, String, PathBuf) {
    let out = cargo(&["build", "--quiet"], dir);
    let stderr = String::from_utf8_lossy(&out.stderr).into_owned();
    (out.status.success(), stderr, fixture_target())
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
    if fixture_crate::skip_slow() {
        return;
    }
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

const LINALG: &str = "\
# A warning, and a function whose deallocation check fails.
function integers_only(n::i64)
    t ← 0.5
    u ← 0.0
    u += t * t
    u -= t * t
    u → 0.0
    t → 0.5
end

function fails(out::f64, x::f64)
    t ← 0.0
    t += x
    out += t
end
";

const MAIN: &str = "\
fn main() {
    let mut out = 100.0;
    match app::linalg::fails(&mut out, 1.0) {
        Ok(()) => println!(\"ok {out}\"),
        Err(e) => println!(\"err {e} | out {out}\"),
    }
    let _ = app::extra::twice;
}
";

fn manifest(metadata: &str) -> String {
    let root = workspace();
    format!(
        "[package]\nname = \"app\"\nversion = \"0.0.0\"\nedition = \"2024\"\npublish = false\n\n\
         [dependencies]\nrt = {{ package = \"nilang-runtime\", path = {:?} }}\n\n\
         [build-dependencies]\nnilang-build = {{ path = {:?} }}\n\n\
         [package.metadata.nilang]\n{metadata}\n",
        root.join("runtime"),
        root.join("build-plugin"),
    )
}

/// `cargo run` in the outer workspace, with the fixtures' target folder
/// (not this build's, which cargo holds locked while tests run).
fn cargo_run(outer: &Path) -> Output {
    cargo(&["run", "-p", "app"], outer)
}

fn text(bytes: &[u8]) -> String {
    String::from_utf8_lossy(bytes).into_owned()
}

#[test]
fn a_member_of_another_workspace_builds_as_cargo_users_expect() {
    if fixture_crate::skip_slow() {
        return;
    }
    let tmp = std::env::temp_dir().join(format!("nilang-workspace-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&tmp);
    let ws = tmp.as_path();
    let app = ws.join("crates/app");
    std::fs::create_dir_all(app.join("src/nil")).unwrap();
    std::fs::write(
        ws.join("Cargo.toml"),
        "[workspace]\nresolver = \"3\"\nmembers = [\"crates/app\"]\n",
    )
    .unwrap();
    std::fs::copy(workspace().join("Cargo.lock"), ws.join("Cargo.lock")).unwrap();
    std::fs::write(app.join("Cargo.toml"), manifest("atol = 1e-10")).unwrap();
    std::fs::write(
        app.join("build.rs"),
        "fn main() {\n    nilang_build::compile_dir(\"src/nil\");\n}\n",
    )
    .unwrap();
    std::fs::write(
        app.join("src/lib.rs"),
        "rt::include_nil!(pub mod linalg);\nrt::include_nil!(pub mod extra);\n",
    )
    .unwrap();
    std::fs::write(app.join("src/main.rs"), MAIN).unwrap();
    std::fs::write(app.join("src/nil/linalg.nil"), LINALG).unwrap();
    std::fs::write(
        app.join("src/nil/extra.nil"),
        "function twice(y::f64, x::f64)\n    y += 2.0 * x\nend\n",
    )
    .unwrap();

    // A renamed runtime dependency, paths from the workspace root in the
    // warning and in the run-time error, and the arguments rolled back.
    let out = cargo_run(ws);
    let (stdout, stderr) = (text(&out.stdout), text(&out.stderr));
    assert!(out.status.success(), "{stderr}");
    assert!(
        stderr.contains("crates/app/src/nil/linalg.nil:5:14: warning[W0203]"),
        "the warning reaches cargo, with the path from the workspace root:\n{stderr}\n{stdout}"
    );
    assert!(
        stdout.starts_with("err crates/app/src/nil/linalg.nil:"),
        "{stdout}"
    );
    assert!(stdout.ends_with("| out 100\n"), "{stdout}");

    // A change of the metadata reruns the build script.
    std::fs::write(app.join("Cargo.toml"), manifest("checks = false")).unwrap();
    let out = cargo_run(ws);
    assert_eq!(text(&out.stdout), "ok 101\n", "{}", text(&out.stderr));

    // Warnings can be denied.
    std::fs::write(app.join("Cargo.toml"), manifest("deny_warnings = true")).unwrap();
    let out = cargo_run(ws);
    let stderr = text(&out.stderr);
    assert!(!out.status.success());
    assert!(
        stderr.contains("crates/app/src/nil/linalg.nil:5:14: warning[W0203]")
            && stderr.contains("error: app@0.0.0:"),
        "{stderr}"
    );

    // A misspelt key is an error naming it and the known ones.
    std::fs::write(app.join("Cargo.toml"), manifest("chekcs = false")).unwrap();
    let out = cargo_run(ws);
    let stderr = text(&out.stderr);
    assert!(!out.status.success());
    assert!(
        stderr.contains(
            "[package.metadata.nilang] has no key `chekcs`; the keys are `atol`, `checks`"
        ),
        "{stderr}"
    );

    // The module of a deleted `.nil` file goes with it: `include_nil!` of
    // it fails instead of compiling the old code.
    std::fs::write(app.join("Cargo.toml"), manifest("")).unwrap();
    assert!(cargo_run(ws).status.success());
    let out_dirs: Vec<PathBuf> = std::fs::read_dir(fixture_target().join("debug/build"))
        .unwrap()
        .filter_map(Result::ok)
        .map(|e| e.path().join("out"))
        .filter(|out| {
            std::fs::read_to_string(out.join(".nilang-generated"))
                .is_ok_and(|record| record.contains(&*app.to_string_lossy()))
        })
        .collect();
    assert!(out_dirs.iter().any(|out| out.join("extra.rs").exists()));
    std::fs::remove_file(app.join("src/nil/extra.nil")).unwrap();
    let out = cargo_run(ws);
    let stderr = text(&out.stderr);
    assert!(!out.status.success());
    assert!(stderr.contains("extra.rs"), "{stderr}");
    assert!(
        out_dirs.iter().all(|out| !out.join("extra.rs").exists()),
        "the stale module is removed"
    );
    let _ = std::fs::remove_dir_all(&tmp);
}

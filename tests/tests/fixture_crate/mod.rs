#![allow(dead_code)]
//! Generated crates that the property tests build and run: generated
//! modules and harnesses written under the system's temporary folder,
//! built by cargo into `target/nil-fixtures` with the workspace's lock
//! file, and the comparisons their harnesses share. Test crates outside
//! `tests/` include it by path (`tests/matrix/tests/every_cell.rs`), so it
//! depends on nothing but the standard library.

use std::path::{Path, PathBuf};
use std::process::Command;

/// The workspace's root: the nearest folder above the including crate
/// that holds `Cargo.lock`.
pub fn workspace() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .ancestors()
        .find(|dir| dir.join("Cargo.lock").is_file())
        .expect("the workspace has a Cargo.lock")
        .to_path_buf()
}

/// Whether the tests that spawn cargo skip themselves: `NILANG_SKIP_SLOW`
/// is set (the inner loop; CI leaves it unset and runs them).
pub fn skip_slow() -> bool {
    let skip = std::env::var_os("NILANG_SKIP_SLOW").is_some();
    if skip {
        eprintln!("skipped: NILANG_SKIP_SLOW is set");
    }
    skip
}

/// Writes `text` to `path` unless it holds it already (cargo then sees
/// nothing new).
pub fn write_if_changed(path: &Path, text: &str) {
    if std::fs::read_to_string(path).ok().as_deref() != Some(text) {
        std::fs::write(path, text).unwrap_or_else(|e| panic!("{}: {e}", path.display()));
    }
}

/// The debug profile of every generated crate: no debug info or
/// incremental files, which a crate built once and run does not use. The
/// same everywhere, so that the runtime and its dependencies, built once in
/// `target/nil-fixtures`, serve every fixture.
const PROFILE: &str = "[profile.dev]\ndebug = 0\nincremental = false\n";

/// `dir/src/` holding exactly `files` (name, text), and `dir/Cargo.toml`
/// for the package `name` depending on the runtime (renamed to `nilang`),
/// followed by `tail`.
fn write_package(dir: &Path, name: &str, files: &[(String, String)], tail: &str) {
    std::fs::create_dir_all(dir.join("src")).unwrap();
    for (file, text) in files {
        write_if_changed(&dir.join("src").join(file), text);
    }
    for entry in std::fs::read_dir(dir.join("src")).unwrap().flatten() {
        let file = entry.file_name().to_string_lossy().into_owned();
        if !files.iter().any(|(f, _)| *f == file) {
            let _ = std::fs::remove_file(entry.path());
        }
    }
    write_if_changed(
        &dir.join("Cargo.toml"),
        &format!(
            "[package]\nname = \"{name}\"\nversion = \"0.0.0\"\nedition = \"2024\"\npublish = false\n\n\
             [dependencies]\nnilang = {{ package = \"nilang-runtime\", path = {:?} }}\n{tail}",
            workspace().join("runtime")
        ),
    );
}

/// The workspace's `Cargo.lock` into `dir`.
fn write_lock(dir: &Path) {
    write_if_changed(
        &dir.join("Cargo.lock"),
        &std::fs::read_to_string(workspace().join("Cargo.lock")).unwrap(),
    );
}

/// A generated crate `name` under the system's temporary folder (kept
/// between runs), a workspace of its own: `Cargo.toml` (the runtime and
/// [`PROFILE`]), the workspace's `Cargo.lock`, and `src/` holding exactly
/// `files` (name, text).
pub fn write_crate(name: &str, files: &[(String, String)]) -> PathBuf {
    let dir = std::env::temp_dir().join(name);
    write_package(&dir, name, files, &format!("\n{PROFILE}\n[workspace]\n"));
    write_lock(&dir);
    dir
}

/// A generated workspace `name` under the system's temporary folder whose
/// members are the crates `members` (package name, files), each in the
/// folder of its name: one `cargo build` compiles them side by side.
pub fn write_workspace(name: &str, members: &[(String, Vec<(String, String)>)]) -> PathBuf {
    let dir = std::env::temp_dir().join(name);
    for (member, files) in members {
        write_package(&dir.join(member), member, files, "");
    }
    let list: Vec<String> = members.iter().map(|(m, _)| format!("{m:?}")).collect();
    write_if_changed(
        &dir.join("Cargo.toml"),
        &format!(
            "[workspace]\nresolver = \"3\"\nmembers = [{}]\n\n{PROFILE}",
            list.join(", ")
        ),
    );
    write_lock(&dir);
    dir
}

/// `cargo build` of a generated crate into `target/nil-fixtures`: whether it
/// succeeded, rustc's error and warning lines (`src/file.rs:line:col:
/// error...`), and all it said.
pub fn build(dir: &Path) -> (bool, Vec<String>, String) {
    let out = Command::new(env!("CARGO"))
        .args([
            "build",
            "--offline",
            "--quiet",
            // Every member of a workspace, even when one fails.
            "--keep-going",
            "--message-format=short",
            "--manifest-path",
        ])
        .arg(dir.join("Cargo.toml"))
        // From the generated crate's own folder, so that no configuration
        // of the repository's (a `.cargo/config.toml` profile) changes how
        // the fixtures build: one that set opt-level 1 for dependencies made
        // every_cell take 316 s of a CI rehearsal instead of 164 s.
        .current_dir(dir)
        .env("CARGO_TARGET_DIR", workspace().join("target/nil-fixtures"))
        .env_remove("RUSTFLAGS")
        .output()
        .expect("cargo runs");
    let stderr = String::from_utf8_lossy(&out.stderr).into_owned();
    let diagnostics = stderr
        .lines()
        .filter(|l| l.contains(": error") || l.contains(": warning"))
        .map(str::to_string)
        .collect();
    (out.status.success(), diagnostics, stderr)
}

/// Rust source for a harness crate: the trait `Same`, equality after a
/// round trip. Numbers compare within a relative tolerance (fixed-point
/// numbers too: `fixed(x)` of an `x` off by a rounding may round to the
/// neighbouring value; a tolerance of 0 asks for the same bits, or NaN on
/// both sides), the others exactly.
pub const SAME: &str = r#"
pub trait Same {
    fn same(&self, other: &Self, rtol: f64) -> bool;
}

fn close(a: f64, b: f64, rtol: f64) -> bool {
    a == b || (a.is_nan() && b.is_nan()) || (a - b).abs() <= rtol * (1.0 + a.abs().max(b.abs()))
}

impl Same for f64 {
    fn same(&self, other: &Self, rtol: f64) -> bool {
        close(*self, *other, rtol)
    }
}

impl Same for f32 {
    fn same(&self, other: &Self, rtol: f64) -> bool {
        close(f64::from(*self), f64::from(*other), rtol)
    }
}

macro_rules! exactly {
    ($($t:ty),*) => {
        $(impl Same for $t {
            fn same(&self, other: &Self, _: f64) -> bool {
                self == other
            }
        })*
    };
}

exactly!(i64, i32, i16, i8, u8, bool);

impl Same for nilang::Complex<f64> {
    fn same(&self, other: &Self, rtol: f64) -> bool {
        self.re.same(&other.re, rtol) && self.im.same(&other.im, rtol)
    }
}

impl Same for nilang::Fixed43 {
    fn same(&self, other: &Self, rtol: f64) -> bool {
        close(nilang::fixed::to_f64(*self), nilang::fixed::to_f64(*other), rtol)
    }
}

impl<T: Same> Same for nilang::ULog<T> {
    fn same(&self, other: &Self, rtol: f64) -> bool {
        self.log.same(&other.log, rtol)
    }
}

impl Same for nilang::Tropical<f64> {
    fn same(&self, other: &Self, rtol: f64) -> bool {
        self.n.same(&other.n, rtol)
    }
}

impl<T: Same> Same for Vec<T> {
    fn same(&self, other: &Self, rtol: f64) -> bool {
        self.len() == other.len() && self.iter().zip(other).all(|(a, b)| a.same(b, rtol))
    }
}

impl<T: Same> Same for nilang::ndarray::Array2<T> {
    fn same(&self, other: &Self, rtol: f64) -> bool {
        self.dim() == other.dim() && self.iter().zip(other).all(|(a, b)| a.same(b, rtol))
    }
}

impl Same for nilang::Stack<f64> {
    fn same(&self, other: &Self, rtol: f64) -> bool {
        self.len() == other.len()
            && self.as_slice().iter().zip(other.as_slice()).all(|(a, b)| a.same(b, rtol))
    }
}
"#;

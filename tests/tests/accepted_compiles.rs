//! The guarantee behind `nilc check`: a file it accepts builds. Every `.nil`
//! file of the repository that checks without errors is compiled to Rust (as
//! the build plugin would, with its default options, and once more without
//! run-time checks and once with every loop taped), and all of the
//! generated modules go through rustc in one crate, with warnings denied.
//!
//! The modules go into a few crates of one workspace, balanced by size, so
//! that cargo builds them in parallel (rustc's front end runs on one core
//! per crate).
//!
//! A project is a folder (as for the build plugin), except the ui suite,
//! whose files are independent programs. Files of a project with `@kernel`
//! functions are left out: their launchers need the runtime's `gpu` feature
//! (wgpu), and the `nilang-gpu` crate builds each of them already.

use std::fmt::Write as _;
use std::path::{Path, PathBuf};

use nilang_compiler::codegen::Options;
use nilang_compiler::db::{self, RootDatabase, SourceFile};
use nilang_compiler::render::line_col;
use nilang_tests::repository::{projects, workspace};

mod fixture_crate;

fn module_ident(path: &Path) -> String {
    db::module_name(&path.to_string_lossy())
}

/// The generated code: one module per variant and project (`checked_p3`),
/// in it one per accepted file, with its size; and what was left out, with
/// why.
struct Generated {
    units: Vec<String>,
    accepted: usize,
    backend_errors: Vec<String>,
}

fn generate(root: &Path) -> Generated {
    let variants = [
        ("checked", Options::default()),
        (
            "unchecked",
            Options {
                checks: false,
                ..Options::default()
            },
        ),
        (
            "taped",
            Options {
                tape_loops: true,
                ..Options::default()
            },
        ),
    ];
    let mut units = Vec::new();
    let mut accepted = 0;
    let mut backend_errors = Vec::new();
    for (variant, options) in &variants {
        for (k, paths) in projects(root).iter().enumerate() {
            let db = RootDatabase::default();
            let files: Vec<SourceFile> = paths
                .iter()
                .map(|p| {
                    let rel = p.strip_prefix(root).unwrap().to_string_lossy().into_owned();
                    SourceFile::new(&db, rel, std::fs::read_to_string(p).unwrap())
                })
                .collect();
            let project = db::project_with_std(&db, files.clone(), Vec::new());
            let has_kernel = files.iter().any(|&f| {
                db::file_functions(&db, project, f)
                    .iter()
                    .any(|&g| db::function_ast(&db, g).is_some_and(|a| a.kernel))
            });
            if has_kernel {
                continue;
            }
            let mut lib = format!(
                "#[allow(clippy::all, unused, non_snake_case, unused_parens)] pub mod {variant}_p{k} {{\n"
            );
            for &file in &files {
                let clean = !db::file_diagnostics(&db, project, file)
                    .iter()
                    .any(|d| d.severity == nilang_compiler::Severity::Error);
                if !clean {
                    continue;
                }
                match db::rust_module_text(&db, project, file, options) {
                    Ok(code) => {
                        if *variant == "checked" {
                            accepted += 1;
                        }
                        let _ = writeln!(
                            lib,
                            "// {}\npub mod {} {{\n{code}\n}}",
                            file.path(&db),
                            module_ident(Path::new(file.path(&db)))
                        );
                    }
                    // Only the build's default options must take every
                    // accepted file; the others may refuse with an error of
                    // their own (an uncalled recording function under
                    // `tape_loops`).
                    Err(errors) if *variant == "checked" => {
                        for d in errors {
                            let (line, col) = line_col(file.text(&db), d.primary.span.start);
                            backend_errors.push(format!(
                                "{}:{line}:{col}: error[{}]: {}",
                                file.path(&db),
                                d.code,
                                d.message
                            ));
                        }
                    }
                    Err(_) => {}
                }
            }
            lib.push_str("}\n");
            units.push(lib);
        }
    }
    Generated {
        units,
        accepted,
        backend_errors,
    }
}

#[test]
fn every_accepted_file_of_the_repository_compiles() {
    if fixture_crate::skip_slow() {
        return;
    }
    let root = workspace();
    let generated = generate(&root);
    assert!(
        generated.backend_errors.is_empty(),
        "accepted by `nilc check`, refused by the Rust backend:\n{}",
        generated.backend_errors.join("\n")
    );
    // The paper's examples, the adbench cases, the tests' own programs and
    // the clean ui files.
    assert!(
        generated.accepted >= 25,
        "only {} files",
        generated.accepted
    );

    // The largest units first, each into the crate with the least code.
    let mut units = generated.units;
    units.sort_by_key(|u| std::cmp::Reverse(u.len()));
    let mut crates = vec![String::from("#![deny(warnings)]\n"); CRATES];
    for unit in &units {
        let smallest = crates.iter_mut().min_by_key(|c| c.len()).unwrap();
        smallest.push_str(unit);
    }
    let dir = tempfile_dir("accepted");
    let members: Vec<String> = (0..CRATES).map(|i| format!("\"part{i}\"")).collect();
    std::fs::create_dir_all(&dir).unwrap();
    std::fs::write(
        dir.join("Cargo.toml"),
        format!(
            "[workspace]\nresolver = \"3\"\nmembers = [{}]\n",
            members.join(", ")
        ),
    )
    .unwrap();
    for (i, lib) in crates.iter().enumerate() {
        let part = dir.join(format!("part{i}"));
        std::fs::create_dir_all(part.join("src")).unwrap();
        std::fs::write(
            part.join("Cargo.toml"),
            format!(
                "[package]\nname = \"nilang-accepted-{i}\"\nversion = \"0.0.0\"\nedition = \"2024\"\npublish = false\n\n\
                 [dependencies]\nnilang-runtime = {{ path = {:?} }}\n",
                root.join("runtime")
            ),
        )
        .unwrap();
        std::fs::write(part.join("src/lib.rs"), lib).unwrap();
    }
    std::fs::copy(root.join("Cargo.lock"), dir.join("Cargo.lock")).unwrap();
    let (ok, diagnostics, stderr) = fixture_crate::build(&dir);
    assert!(
        ok && diagnostics.is_empty(),
        "rustc rejected generated code ({} in {}):\n{}",
        diagnostics.len(),
        dir.join("part*/src/lib.rs").display(),
        stderr
    );
    let _ = std::fs::remove_dir_all(&dir);
}

/// How many crates the generated modules are spread over.
const CRATES: usize = 8;

/// A folder under the system's temporary one, kept when the test fails (its
/// `part*/src/lib.rs` are where rustc's line numbers point).
fn tempfile_dir(name: &str) -> PathBuf {
    let dir = std::env::temp_dir().join(format!("nilang-{name}-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    dir
}

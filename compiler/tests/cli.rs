//! `nilc` as a user runs it: exit codes, output formats, and bad input.

use std::path::Path;
use std::process::{Command, Output};

mod common;
use common::path_with_nilc;

fn nilc(args: &[&str]) -> Output {
    Command::new(env!("CARGO_BIN_EXE_nilc"))
        .args(args)
        .env("NO_COLOR", "1")
        .output()
        .expect("nilc runs")
}

fn stdout(o: &Output) -> String {
    String::from_utf8_lossy(&o.stdout).into_owned()
}

/// `nilc run FILE ARGS…` refused before anything runs: status 2, nothing
/// on standard output, `message` on standard error.
fn run_is_refused(path: &str, args: Vec<&str>, message: &str) {
    let mut all = vec!["run", path];
    all.extend(args);
    let out = nilc(&all);
    assert_eq!(out.status.code(), Some(2), "{all:?}: {}", stderr(&out));
    assert_eq!(stdout(&out), "", "{all:?}");
    assert!(stderr(&out).contains(message), "{all:?}: {}", stderr(&out));
}

fn stderr(o: &Output) -> String {
    String::from_utf8_lossy(&o.stderr).into_owned()
}

/// A fresh folder under the system's temporary folder, removed again when
/// the test ends (also when it fails).
fn scratch(name: &str) -> tempfile::TempDir {
    tempfile::Builder::new()
        .prefix(&format!("nilc-test-{name}-"))
        .tempdir()
        .unwrap()
}

fn write(dir: &Path, name: &str, contents: impl AsRef<[u8]>) -> String {
    let path = dir.join(name);
    std::fs::write(&path, contents).unwrap();
    path.display().to_string()
}

const CLEAN: &str = "function f(y::f64, x::f64)\n    y += x\nend\n";
const BROKEN: &str = "function f(y::f64, x::f64)\n    y += x * y\nend\n";
/// Only a warning: a shared read where nothing is differentiated (no
/// parameter carries a gradient).
const WARNS: &str = "function f(n::i64)\n    t ← 0.5\n    u ← 0.0\n    u += t * t\n    u → 0.25\n    t → 0.5\nend\n";

#[test]
fn clean_files_exit_zero() {
    let tmp = scratch("clean");
    let dir = tmp.path();
    let path = write(dir, "a.nil", CLEAN);
    let out = nilc(&["check", &path]);
    assert_eq!(out.status.code(), Some(0), "{}", stderr(&out));
    assert!(stdout(&out).contains("checked 1 file: 0 errors, 0 warnings"));
}

#[test]
fn errors_exit_one_with_a_located_diagnostic() {
    let tmp = scratch("errors");
    let dir = tmp.path();
    let path = write(dir, "a.nil", BROKEN);
    let out = nilc(&["check", &path]);
    assert_eq!(out.status.code(), Some(1));
    let text = stdout(&out);
    assert!(text.contains("error[E0201]"), "{text}");
    assert!(text.contains(&format!("{path}:2:14")), "{text}");
    assert!(text.contains("help:"), "{text}");
    let short = nilc(&["check", "--format", "short", &path]);
    assert_eq!(
        stdout(&short).lines().next().unwrap(),
        format!("{path}:2:14: error[E0201]: `y` is read and written by the same instruction")
    );
}

#[test]
fn warnings_fail_only_when_denied() {
    let tmp = scratch("warnings");
    let dir = tmp.path();
    let path = write(dir, "a.nil", WARNS);
    assert_eq!(nilc(&["check", &path]).status.code(), Some(0));
    assert_eq!(
        nilc(&["check", "--deny-warnings", &path]).status.code(),
        Some(1)
    );
}

#[test]
fn json_output_is_one_valid_document() {
    let tmp = scratch("json");
    let dir = tmp.path();
    write(dir, "a.nil", BROKEN);
    write(dir, "b.nil", WARNS.replace("function f", "function g"));
    let out = nilc(&["check", "--format", "json", dir.to_str().unwrap()]);
    assert_eq!(out.status.code(), Some(1));
    let value: serde_json::Value = serde_json::from_slice(&out.stdout).expect("valid JSON");
    let items = value.as_array().unwrap();
    assert_eq!(items.len(), 2);
    assert_eq!(items[0]["code"], "E0201");
    assert_eq!(items[0]["severity"], "error");
    assert_eq!(items[0]["range"]["start_line"], 2);
    assert_eq!(items[0]["range"]["start_column"], 14);
    assert_eq!(items[0]["secondary"][0]["message"], "written here");
    assert_eq!(items[1]["code"], "W0203");
    assert!(items[1]["help"].as_str().unwrap().contains("abs2"));
}

#[test]
fn machine_formats_keep_the_summary_on_standard_error() {
    let tmp = scratch("summary");
    let path = write(tmp.path(), "a.nil", BROKEN);
    for format in ["short", "json", "github", "sarif"] {
        let out = nilc(&["check", "--format", format, &path]);
        assert_eq!(out.status.code(), Some(1), "{format}");
        assert!(!stdout(&out).contains("checked 1 file"), "{format}");
        assert_eq!(
            stderr(&out),
            "checked 1 file: 1 error, 0 warnings\n",
            "{format}"
        );
    }
}

#[test]
fn github_format_is_one_escaped_workflow_command_per_diagnostic() {
    let tmp = scratch("github");
    // `:` and `,` end a workflow command's properties: they are escaped.
    let path = write(tmp.path(), "odd,name:1.nil", BROKEN);
    write(
        tmp.path(),
        "b.nil",
        WARNS.replace("function f", "function g"),
    );
    let out = nilc(&["check", "--format", "github", tmp.path().to_str().unwrap()]);
    assert_eq!(out.status.code(), Some(1));
    let text = stdout(&out);
    let lines: Vec<&str> = text.lines().collect();
    assert_eq!(lines.len(), 2, "{text}");
    assert!(
        lines[0].starts_with("::warning file=") && lines[0].contains("title=nilc W0203::"),
        "{text}"
    );
    let escaped = path.replace(':', "%3A").replace(',', "%2C");
    assert_eq!(
        lines[1],
        format!(
            "::error file={escaped},line=2,col=14,endLine=2,endColumn=15,title=nilc E0201::\
             `y` is read and written by the same instruction%0Aread here%0Ahelp: copy the value \
             first: `tmp ← zero(T); tmp += y`, use `tmp` on the right, then uncompute it"
        )
    );
}

#[test]
fn sarif_output_is_valid_against_the_committed_schema() {
    let schema: serde_json::Value = serde_json::from_str(
        &std::fs::read_to_string(
            Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/data/sarif-schema-2.1.0.json"),
        )
        .unwrap(),
    )
    .unwrap();
    let validator = jsonschema::draft4::new(&schema).expect("the schema compiles");
    // Every ui file at once (errors, warnings, secondary labels, unicode),
    // and a folder with a name that needs escaping in a URI.
    let tmp = scratch("sarif");
    let odd = tmp.path().join("a dir é");
    std::fs::create_dir_all(&odd).unwrap();
    write(&odd, "b.nil", WARNS);
    let ui = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/ui");
    for target in [ui.as_path(), odd.as_path()] {
        let out = nilc(&["check", "--format", "sarif", target.to_str().unwrap()]);
        let log: serde_json::Value = serde_json::from_slice(&out.stdout).expect("valid JSON");
        let errors: Vec<String> = validator
            .iter_errors(&log)
            .map(|e| format!("{} at {}", e, e.instance_path()))
            .collect();
        assert!(errors.is_empty(), "{}", errors.join("\n"));
        let results = log["runs"][0]["results"].as_array().unwrap();
        assert!(!results.is_empty());
        for result in results {
            let rule = &log["runs"][0]["tool"]["driver"]["rules"]
                [result["ruleIndex"].as_u64().unwrap() as usize];
            assert_eq!(rule["id"], result["ruleId"]);
        }
    }
    let out = nilc(&["check", "--format", "sarif", odd.to_str().unwrap()]);
    let log: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
    let result = &log["runs"][0]["results"][0];
    assert_eq!(result["ruleId"], "W0203");
    assert_eq!(result["level"], "warning");
    let location = &result["locations"][0]["physicalLocation"];
    assert!(
        location["artifactLocation"]["uri"]
            .as_str()
            .unwrap()
            .ends_with("/a%20dir%20%C3%A9/b.nil"),
        "{location}"
    );
    assert_eq!(location["region"]["startLine"], 4);
    assert_eq!(location["region"]["startColumn"], 14);
}

#[test]
fn directories_are_searched_recursively_as_one_project() {
    let tmp = scratch("recursive");
    let dir = tmp.path();
    std::fs::create_dir_all(dir.join("sub/deeper")).unwrap();
    write(
        dir,
        "sub/deeper/callee.nil",
        "function bump(x::f64, y::f64)\n    x += y\nend\n",
    );
    write(
        dir,
        "caller.nil",
        "function caller(a::f64, b::f64)\n    bump(a, b)\nend\n",
    );
    write(dir, "notes.txt", "not a nil file");
    let out = nilc(&["check", dir.to_str().unwrap()]);
    assert_eq!(out.status.code(), Some(0), "{}", stdout(&out));
    assert!(stdout(&out).contains("checked 2 files"));
}

#[test]
fn files_that_would_be_one_rust_module_are_an_error() {
    let tmp = scratch("modules");
    let dir = tmp.path();
    write(
        dir,
        "a-b.nil",
        "function f(y::f64, x::f64)\n    y += x\nend\n",
    );
    write(
        dir,
        "a_b.nil",
        "function g(y::f64, x::f64)\n    y += x\nend\n",
    );
    let out = nilc(&["check", dir.to_str().unwrap()]);
    assert_eq!(out.status.code(), Some(1), "{}", stdout(&out));
    let text = stdout(&out);
    assert!(text.contains("error[E0110]"), "{text}");
    assert!(text.contains("both the Rust module `a_b`"), "{text}");
}

#[test]
fn missing_paths_and_empty_directories_are_usage_errors() {
    let out = nilc(&["check", "/definitely/not/here.nil"]);
    assert_eq!(out.status.code(), Some(2));
    assert!(
        stderr(&out).contains("cannot read `/definitely/not/here.nil`: no such file or directory")
    );
    assert!(out.stdout.is_empty());
    let tmp = scratch("empty");
    let dir = tmp.path();
    write(dir, "readme.md", "nothing here");
    let out = nilc(&["check", dir.to_str().unwrap()]);
    assert_eq!(out.status.code(), Some(2));
    assert!(stderr(&out).contains("no `.nil` files found"));
    assert!(out.stdout.is_empty());
    let out = nilc(&["check", "--format", "yaml", dir.to_str().unwrap()]);
    assert_eq!(out.status.code(), Some(2));
    let out = nilc(&["frobnicate"]);
    assert_eq!(out.status.code(), Some(2));
}

#[test]
fn non_utf8_files_get_a_diagnostic() {
    let tmp = scratch("utf8");
    let dir = tmp.path();
    let path = write(
        dir,
        "bad.nil",
        b"function f(x::f64)\n    x += 1\xff\xfe\nend\n",
    );
    let out = nilc(&["check", &path]);
    assert_eq!(out.status.code(), Some(1));
    let text = stdout(&out);
    assert!(
        text.contains("error[E0005]: file is not valid UTF-8"),
        "{text}"
    );
    assert!(text.contains(":2:11"), "{text}");
}

#[test]
fn random_bytes_do_not_crash() {
    let tmp = scratch("random");
    let dir = tmp.path();
    // A fixed xorshift stream: reproducible garbage, valid UTF-8 or not.
    let mut state: u64 = 0x9E37_79B9_7F4A_7C15;
    for round in 0..20 {
        let bytes: Vec<u8> = (0..4096)
            .map(|_| {
                state ^= state << 13;
                state ^= state >> 7;
                state ^= state << 17;
                if round % 2 == 0 {
                    // Printable-ish text with the language's punctuation.
                    let alphabet =
                        b"function end if while for ( ) [ ] , ; ~ @routine += -= x y 1 \n";
                    alphabet[(state % alphabet.len() as u64) as usize]
                } else {
                    state as u8
                }
            })
            .collect();
        let path = write(dir, &format!("r{round}.nil"), &bytes);
        let out = nilc(&["check", &path]);
        assert!(
            matches!(out.status.code(), Some(0 | 1)),
            "round {round}: {}",
            stderr(&out)
        );
        assert!(!stderr(&out).contains("panicked"), "round {round}");
    }
}

#[test]
fn deep_nesting_is_reported_not_overflowed() {
    let tmp = scratch("deep");
    let dir = tmp.path();
    let mut text = String::from("function deep(x::f64)\n");
    for _ in 0..1000 {
        text.push_str("begin\n");
    }
    text.push_str("x += 1\n");
    for _ in 0..1000 {
        text.push_str("end\n");
    }
    text.push_str("end\n");
    let path = write(dir, "deep.nil", &text);
    let out = nilc(&["check", &path]);
    assert_eq!(out.status.code(), Some(1), "{}", stderr(&out));
    assert!(stdout(&out).contains("error[E0003]: nesting deeper than 128 levels"));

    // A flat chain of quotients says what it is, and how to group it; a
    // flat sum or product of any length is not nesting
    // (tests/tests/chains.rs runs 2,500 terms, compiler/tests/chains.rs
    // checks 10,000).
    let terms: Vec<String> = (1..=300).map(|i| format!("{i}.0")).collect();
    let quotient = format!(
        "function flat(y::f64)\n    y += {}\nend\n",
        terms.join(" / ")
    );
    let path = write(dir, "flat.nil", &quotient);
    let out = nilc(&["check", "--format", "short", &path]);
    assert_eq!(out.status.code(), Some(1));
    let shown = stdout(&out);
    assert!(
        shown.contains("error[E0003]: a chain of more than 128 `/` operations"),
        "{shown}"
    );
    // One error for the chain, not one more for every term past the limit.
    assert_eq!(shown.matches("E0003").count(), 1, "{shown}");
    for op in [" + ", " * "] {
        let chain = quotient.replace(" / ", op);
        let path = write(dir, "flat_chain.nil", &chain);
        let out = nilc(&["check", &path]);
        assert_eq!(out.status.code(), Some(0), "{op}: {}", stdout(&out));
    }

    let mut expr = String::from("function deep_expr(y::f64, x::f64)\n    y += ");
    expr.push_str(&"(".repeat(5000));
    expr.push('x');
    expr.push_str(&")".repeat(5000));
    expr.push_str("\nend\n");
    let path = write(dir, "deep_expr.nil", &expr);
    let out = nilc(&["check", &path]);
    assert_eq!(out.status.code(), Some(1), "{}", stderr(&out));
    assert!(stdout(&out).contains("E0003"));
}

#[test]
fn a_ten_megabyte_file_is_checked() {
    let tmp = scratch("big");
    let dir = tmp.path();
    let mut text = String::with_capacity(10 << 20);
    let mut i = 0;
    while text.len() < 10 << 20 {
        text.push_str(&format!(
            "function f{i}(y::f64, x::f64, v::[f64])\n    a ← zero(f64)\n    @routine a += sin(x)\n    y += a * x\n    for k = 1:3\n        v[k] += exp(x)\n    end\n    ~@routine\nend\n\n"
        ));
        i += 1;
    }
    let path = write(dir, "big.nil", &text);
    let out = nilc(&["check", "--format", "short", &path]);
    assert_eq!(out.status.code(), Some(0), "{}", stderr(&out));
}

#[test]
fn inverse_prints_checkable_source() {
    let tmp = scratch("inverse");
    let dir = tmp.path();
    let path = write(
        dir,
        "m.nil",
        "function step(y::f64, x::f64)\n    y += 2.0 * x\nend\n\nfunction twice(y::f64, x::f64)\n    step(y, x)\n    for i = 1:2:4\n        y += x\n    end\nend\n",
    );
    let out = nilc(&["inverse", &path]);
    assert_eq!(out.status.code(), Some(0), "{}", stderr(&out));
    let inverse = stdout(&out);
    assert!(inverse.contains("y -= 2.0 * x"), "{inverse}");
    assert!(inverse.contains("for i = reverse(1:2:4)"), "{inverse}");
    assert!(inverse.contains("~step(y, x)"), "{inverse}");
    let inv_path = write(dir, "inv.nil", &inverse);
    assert_eq!(nilc(&["check", &inv_path]).status.code(), Some(0));
    // The inverse of the inverse is the original.
    let back = nilc(&["inverse", &inv_path]);
    let original = std::fs::read_to_string(&path).unwrap();
    assert_eq!(stdout(&back), original);
    // One function.
    let one = nilc(&["inverse", &path, "step"]);
    assert_eq!(
        stdout(&one),
        "function step(y::f64, x::f64)\n    y -= 2.0 * x\nend\n"
    );
    let missing = nilc(&["inverse", &path, "nope"]);
    assert_eq!(missing.status.code(), Some(2));
    assert!(stderr(&missing).contains("no function `nope`"));
    assert!(missing.stdout.is_empty());
}

#[test]
fn inverse_of_a_file_with_structs() {
    let tmp = scratch("inverse-structs");
    let dir = tmp.path();
    let original = "struct Point{T}\n    x::T\n    y::T\nend\n\nfunction f(out::f64, a::f64)\n    q ← Point(a, 2.0)\n    q.x += identity(a)\n    SWAP(q.x, q.y)\n    out += q.x * q.y\n    SWAP(q.x, q.y)\n    q.x -= identity(a)\n    q → Point(a, 2.0)\nend\n";
    let path = write(dir, "s.nil", original);
    let out = nilc(&["inverse", &path]);
    assert_eq!(out.status.code(), Some(0), "{}", stderr(&out));
    let inverse = stdout(&out);
    assert_eq!(
        inverse,
        "struct Point{T}\n    x::T\n    y::T\nend\n\nfunction f(out::f64, a::f64)\n    q ← Point(a, 2.0)\n    q.x += identity(a)\n    SWAP(q.x, q.y)\n    out -= q.x * q.y\n    SWAP(q.x, q.y)\n    q.x -= identity(a)\n    q → Point(a, 2.0)\nend\n"
    );
    // In a folder of its own (a sibling would define `Point` twice).
    let other = scratch("inverse-structs-inv");
    let inv_path = write(other.path(), "inv.nil", &inverse);
    assert_eq!(nilc(&["check", &inv_path]).status.code(), Some(0));
    assert_eq!(stdout(&nilc(&["inverse", &inv_path])), original);
}

#[test]
fn inverse_resolves_calls_into_neighbouring_files() {
    let tmp = scratch("inverse-neighbours");
    let dir = tmp.path();
    write(
        dir,
        "callee.nil",
        "function bump(x::f64, y::f64)\n    x += y\nend\n",
    );
    write(dir, "broken.nil", BROKEN);
    let path = write(
        dir,
        "caller.nil",
        "function caller(a::f64, b::f64)\n    bump(a, b)\nend\n",
    );
    let out = nilc(&["inverse", &path]);
    assert_eq!(out.status.code(), Some(0), "{}", stderr(&out));
    assert_eq!(
        stdout(&out),
        "function caller(a::f64, b::f64)\n    ~bump(a, b)\nend\n"
    );
}

#[test]
fn inverse_refuses_files_with_errors_and_prints_nothing() {
    let tmp = scratch("inverse-errors");
    let dir = tmp.path();
    let path = write(dir, "a.nil", BROKEN);
    let out = nilc(&["inverse", &path]);
    assert_eq!(out.status.code(), Some(1));
    assert!(out.stdout.is_empty());
    assert!(stderr(&out).contains("E0201"));
}

#[test]
fn emit_tapes_every_loop_on_request() {
    let tmp = scratch("emit-tape-loops");
    let dir = tmp.path();
    let path = write(
        dir,
        "loop.nil",
        "function f(y::f64, x::f64, n::i64)\n    for i = 1:n\n        y += x\n    end\nend\n",
    );
    let plain = nilc(&["emit", &path]);
    assert_eq!(plain.status.code(), Some(0), "{}", stderr(&plain));
    assert!(!stdout(&plain).contains("nilang::Tape"));
    let taped = nilc(&["emit", "--tape-loops", &path]);
    assert_eq!(taped.status.code(), Some(0), "{}", stderr(&taped));
    assert!(stdout(&taped).contains("__tape: &mut nilang::Tape"));
}

/// Generated code names a standard-library file `std/<module>.nil` in its
/// errors, never the path of the compiler's sources on the building
/// machine: also in the entry points of a derivative call of a library
/// function (`tests/nil/derivatives.nil` calls `(∇dot)` of `std.linalg`).
#[test]
fn emit_names_standard_library_files_relatively() {
    let path = repository().join("tests/nil/derivatives.nil");
    let std_dir = repository().join("analysis/std");
    for checks in [&[][..], &["--no-checks"][..]] {
        let mut args = vec!["emit", path.to_str().unwrap()];
        args.extend(checks);
        let out = nilc(&args);
        assert_eq!(out.status.code(), Some(0), "{}", stderr(&out));
        let code = stdout(&out);
        assert!(code.contains("\"std/linalg.nil\""), "{checks:?}");
        assert!(!code.contains(std_dir.to_str().unwrap()), "{checks:?}");
    }
}

/// `nilc check --format json` reports, for every `.nil` file of the
/// repository, exactly the query `file_diagnostics` (which the build
/// plugin and the language server are held to in their own tests): one
/// list whoever asks. A folder is one project, as the plugin sees it; each
/// ui file is its own.
#[test]
fn nilc_check_reports_the_shared_list_for_every_file_of_the_repository() {
    use nilang_compiler::db::{self, RootDatabase, SourceFile};
    use nilang_compiler::render;
    let root = repository();
    let files = repository_nil_files();
    let mut groups: Vec<Vec<std::path::PathBuf>> = Vec::new();
    for f in files {
        let alone = f.parent().unwrap().ends_with("compiler/tests/ui");
        match groups.last_mut() {
            Some(g) if !alone && g[0].parent() == f.parent() => g.push(f),
            _ => groups.push(vec![f]),
        }
    }
    let mut checked = 0;
    for group in groups {
        let rel: Vec<String> = group
            .iter()
            .map(|p| {
                p.strip_prefix(&root)
                    .unwrap()
                    .to_string_lossy()
                    .into_owned()
            })
            .collect();
        let db = RootDatabase::default();
        let sources: Vec<SourceFile> = group
            .iter()
            .zip(&rel)
            .map(|(p, r)| SourceFile::new(&db, r.clone(), std::fs::read_to_string(p).unwrap()))
            .collect();
        let project = nilang_compiler::project::load(
            &db,
            sources.clone(),
            group.first().map(|p| p.as_path()),
        );
        let expected: Vec<_> = sources
            .iter()
            .flat_map(|&f| {
                db::file_diagnostics(&db, project, f)
                    .iter()
                    .map(|d| render::to_json(f.path(&db), f.text(&db), d))
                    .collect::<Vec<_>>()
            })
            .collect();
        let mut args = vec!["check", "--format", "json"];
        args.extend(rel.iter().map(String::as_str));
        let out = Command::new(env!("CARGO_BIN_EXE_nilc"))
            .args(&args)
            .current_dir(&root)
            .output()
            .expect("nilc runs");
        let actual: serde_json::Value =
            serde_json::from_slice(&out.stdout).expect("nilc prints one JSON document");
        assert_eq!(
            actual,
            serde_json::to_value(&expected).unwrap(),
            "nilc check {}",
            rel.join(" ")
        );
        let failed = expected
            .iter()
            .any(|d| d.severity == nilang_compiler::Severity::Error);
        assert_eq!(
            out.status.success(),
            !failed,
            "exit status of nilc check {rel:?}"
        );
        checked += rel.len();
    }
    assert!(checked >= 60, "only {checked} files");
}

/// The repository's `docs/ci/` files, which users copy.
fn ci_doc(name: &str) -> std::path::PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("../docs/ci")
        .join(name)
}

#[test]
fn the_documented_github_workflow_commands_run() {
    let workflow = std::fs::read_to_string(ci_doc("nilc.yml")).unwrap();
    let commands: Vec<&str> = workflow
        .lines()
        .filter_map(|l| l.trim().strip_prefix("run: nilc "))
        .collect();
    assert_eq!(commands.len(), 2, "{workflow}");
    let tmp = scratch("workflow");
    write(tmp.path(), "a.nil", BROKEN);
    let run = |command: &str| {
        Command::new("sh")
            .arg("-c")
            .arg(format!("nilc {command}"))
            .current_dir(tmp.path())
            .env("PATH", path_with_nilc())
            .output()
            .unwrap()
    };
    let check = run(commands[0]);
    assert_eq!(check.status.code(), Some(1));
    assert!(
        stdout(&check).starts_with("::error file=a.nil,line=2,col=14"),
        "{}",
        stdout(&check)
    );
    assert!(run(commands[1]).status.success());
    let log: serde_json::Value =
        serde_json::from_slice(&std::fs::read(tmp.path().join("nilc.sarif")).unwrap()).unwrap();
    assert_eq!(log["runs"][0]["results"][0]["ruleId"], "E0201");
}

#[test]
fn the_documented_pre_commit_hook_refuses_broken_nil_files() {
    let tmp = scratch("hook");
    let repo = tmp.path();
    let git = |args: &[&str]| {
        let out = Command::new("git")
            .args(args)
            .current_dir(repo)
            .env("GIT_AUTHOR_NAME", "t")
            .env("GIT_AUTHOR_EMAIL", "t@example.com")
            .env("GIT_COMMITTER_NAME", "t")
            .env("GIT_COMMITTER_EMAIL", "t@example.com")
            .env("PATH", path_with_nilc())
            .output()
            .expect("git runs");
        (out.status.success(), stderr(&out) + &stdout(&out))
    };
    assert!(git(&["init", "-q"]).0);
    std::fs::copy(
        ci_doc("pre-commit-hook"),
        repo.join(".git/hooks/pre-commit"),
    )
    .unwrap();
    // A commit without .nil files does not run nilc.
    write(repo, "notes.txt", "x");
    assert!(git(&["add", "notes.txt"]).0);
    assert!(git(&["commit", "-qm", "notes"]).0);
    // A broken one is refused, with the diagnostic.
    write(repo, "a.nil", BROKEN);
    assert!(git(&["add", "a.nil"]).0);
    let (ok, output) = git(&["commit", "-qm", "broken"]);
    assert!(!ok);
    assert!(output.contains("a.nil:2:14: error[E0201]"), "{output}");
    // Fixed, it goes through.
    write(repo, "a.nil", CLEAN);
    assert!(git(&["add", "a.nil"]).0);
    let (ok, output) = git(&["commit", "-qm", "fixed"]);
    assert!(ok, "{output}");
}

fn repository() -> std::path::PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("..")
        .canonicalize()
        .unwrap()
}

/// Every `.nil` file of the repository, sorted.
fn repository_nil_files() -> Vec<std::path::PathBuf> {
    fn walk(dir: &Path, out: &mut Vec<std::path::PathBuf>) {
        let mut entries: Vec<_> = std::fs::read_dir(dir)
            .unwrap()
            .filter_map(Result::ok)
            .collect();
        entries.sort_by_key(|e| e.file_name());
        for e in entries {
            let (path, name) = (e.path(), e.file_name().to_string_lossy().into_owned());
            if path.is_dir() && !nilang_compiler::files::skipped_folder(&name) {
                walk(&path, out);
            } else if nilang_compiler::files::is_nil_file(&path) {
                out.push(path);
            }
        }
    }
    let mut files = Vec::new();
    walk(&repository(), &mut files);
    files
}

#[test]
fn every_file_of_the_repository_formats_to_itself_and_mangled_files_come_back() {
    use nilang_compiler::format::{Indent, format};
    let mut formatted = 0;
    for path in repository_nil_files() {
        let shown = path
            .strip_prefix(repository())
            .unwrap()
            .display()
            .to_string();
        // The tree-sitter highlight tests point at columns with comments.
        if shown.starts_with("tree-sitter-nilang/test/") {
            continue;
        }
        let text = std::fs::read_to_string(&path).unwrap();
        let Ok(once) = format(&text, Indent::default()) else {
            continue; // syntax errors, on purpose (ui and corpus files)
        };
        assert_eq!(once, text, "{shown} is not formatted");
        // Indentation thrown away and trailing spaces added: formatting
        // brings every line that starts a statement back.
        let mangled: String = text
            .split_inclusive('\n')
            .enumerate()
            .map(|(i, line)| {
                let (content, br) = line.split_at(line.trim_end_matches(['\n', '\r']).len());
                let pad = " ".repeat(i % 3);
                format!(
                    "{pad}{}{}{br}",
                    content.trim_start(),
                    if i % 2 == 0 { "  " } else { "" }
                )
            })
            .collect();
        let back = format(&mangled, Indent::default()).expect("still parses");
        assert_eq!(
            format(&back, Indent::default()).unwrap(),
            back,
            "{shown}: idempotent"
        );
        let differ = back
            .lines()
            .zip(text.lines())
            .filter(|(a, b)| a != b)
            .count();
        // Only continuation lines (and lines inside strings) may differ.
        let continuation = text
            .lines()
            .zip(text.lines().skip(1))
            .filter(|(a, _)| a.trim_end().ends_with([',', '(', '+', '-', '*']))
            .count();
        assert!(
            differ <= continuation + text.matches("\"\"\"").count() * 4,
            "{shown}: {differ} lines differ after formatting a mangled copy"
        );
        formatted += 1;
    }
    assert!(formatted > 300, "{formatted} files");
}

#[test]
fn nilc_fmt_writes_checks_and_refuses_broken_files() {
    let tmp = scratch("fmt");
    let dir = tmp.path();
    let messy = "# keep\nfunction f(y::f64, x::f64)\n  y += x   \nend";
    let a = write(dir, "a.nil", messy);
    let b = write(dir, "b.nil", CLEAN);
    let check = nilc(&["fmt", "--check", dir.to_str().unwrap()]);
    assert_eq!(check.status.code(), Some(1));
    assert_eq!(stdout(&check), format!("{a}\n"));
    assert!(
        stderr(&check).contains("checked 2 files: 1 to format"),
        "{}",
        stderr(&check)
    );
    assert_eq!(
        std::fs::read_to_string(&a).unwrap(),
        messy,
        "--check writes nothing"
    );
    let run = nilc(&["fmt", dir.to_str().unwrap()]);
    assert_eq!(run.status.code(), Some(0), "{}", stderr(&run));
    assert_eq!(
        std::fs::read_to_string(&a).unwrap(),
        "# keep\nfunction f(y::f64, x::f64)\n    y += x\nend\n"
    );
    assert_eq!(std::fs::read_to_string(&b).unwrap(), CLEAN);
    assert_eq!(
        nilc(&["fmt", "--check", dir.to_str().unwrap()])
            .status
            .code(),
        Some(0)
    );
    let tabs = nilc(&["fmt", "--tabs", &a]);
    assert_eq!(tabs.status.code(), Some(0));
    assert!(
        std::fs::read_to_string(&a)
            .unwrap()
            .contains("\n\ty += x\n")
    );
    let broken = write(dir, "c.nil", "function f(x::f64)\n  INC(x\nend\n");
    let out = nilc(&["fmt", &broken]);
    assert_eq!(out.status.code(), Some(1));
    assert!(stderr(&out).contains("syntax errors"), "{}", stderr(&out));
    assert_eq!(
        std::fs::read_to_string(&broken).unwrap(),
        "function f(x::f64)\n  INC(x\nend\n"
    );
}

/// Without gradient programs (`--no-gradients`), a tangent call is
/// generated and a gradient call is E0701 (not a build that fails in rustc).
#[test]
fn derivative_calls_without_gradient_programs() {
    let tmp = scratch("derivatives");
    let sq = "function sq(y::T, x::T) where T: Real\n    y += x ^ 2\nend\n\n";
    let tangent = write(
        tmp.path(),
        "tangent.nil",
        format!(
            "{sq}function slope(y::T, x::T, yd::T, xd::T) where T: Real\n    (∂sq)(y, yd, x, xd)\nend\n"
        ),
    );
    let out = nilc(&["emit", "--no-gradients", &tangent]);
    assert!(out.status.success(), "{}", stderr(&out));
    let code = stdout(&out);
    assert!(
        code.contains("fn __tangent_sq<") && !code.contains("__tangent_sq_adjoint"),
        "{code}"
    );
    let gradient = write(
        tmp.path(),
        "gradient.nil",
        format!(
            "{sq}function slope(y::T, x::T, yb::T, xb::T) where T: Real\n    (∇sq)(y, yb, x, xb)\nend\n"
        ),
    );
    let out = nilc(&["emit", "--no-gradients", &gradient]);
    assert!(!out.status.success());
    assert!(stderr(&out).contains("E0701"), "{}", stderr(&out));
    assert!(stdout(&out).is_empty());
}

#[test]
fn emit_prints_variants_with_constant_parameters() {
    let tmp = scratch("variants");
    let file = write(
        tmp.path(),
        "mul.nil",
        "function mul(y::[f64], a::[f64], x::f64)\n    for i = 1:length(y)\n        y[i] += a[i] * x\n    end\nend\n",
    );
    let out = nilc(&["emit", "--variant", "mul:a", &file]);
    assert!(out.status.success(), "{}", stderr(&out));
    let code = stdout(&out);
    let grad = code
        .split("pub fn mul_const_a_grad<")
        .nth(1)
        .and_then(|rest| rest.split(") ->").next())
        .unwrap_or_else(|| panic!("no mul_const_a_grad in\n{code}"));
    assert!(grad.contains("x_bar") && !grad.contains("a_bar"), "{grad}");
    assert!(code.contains("pub fn mul_grad<"), "{code}");

    for (arg, says) in [
        ("mul:b", "E0625"),
        ("div:a", "defines no function `div`"),
        ("mul", "such as `f:x,w`"),
    ] {
        let out = nilc(&["emit", "--variant", arg, &file]);
        assert!(!out.status.success(), "{arg}");
        assert!(stderr(&out).contains(says), "{arg}: {}", stderr(&out));
        assert!(stdout(&out).is_empty(), "{arg}");
    }
}

/// A dependency that compiles `.nil` files but has no `links` key cannot
/// pass its modules on (cargo hands build-script metadata only through
/// `links`): importing one names the missing key, not only "unknown module".
#[test]
fn a_dependency_without_a_links_key_is_named() {
    let dir = scratch("nolinks");
    let plugin = Path::new(env!("CARGO_MANIFEST_DIR")).join("../build-plugin");
    let plugin = plugin.canonicalize().unwrap();
    std::fs::create_dir_all(dir.path().join("lib/src")).unwrap();
    std::fs::create_dir_all(dir.path().join("app/src")).unwrap();
    write(
        &dir.path().join("lib"),
        "Cargo.toml",
        format!(
            "[package]\nname = \"nolinks\"\nversion = \"0.1.0\"\nedition = \"2024\"\n\n\
             [build-dependencies]\nnilang-build = {{ path = {:?} }}\n",
            plugin.display().to_string()
        ),
    );
    write(&dir.path().join("lib/src"), "lib.rs", "");
    write(
        &dir.path().join("lib/src"),
        "shapes.nil",
        "function area!(a::f64, w::f64, h::f64)\n    a += w * h\nend\n",
    );
    write(
        &dir.path().join("app"),
        "Cargo.toml",
        "[package]\nname = \"app\"\nversion = \"0.1.0\"\nedition = \"2024\"\n\n[workspace]\n\n\
         [dependencies]\nnolinks = { path = \"../lib\" }\n",
    );
    write(&dir.path().join("app/src"), "main.rs", "fn main() {}\n");
    let main = write(
        &dir.path().join("app/src"),
        "main.nil",
        "using nolinks.shapes\n\nfunction f!(a::f64)\n    area!(a, 2.0, 3.0)\nend\n",
    );
    let out = nilc(&["check", &main]);
    assert_eq!(out.status.code(), Some(1), "{}", stdout(&out));
    let text = stdout(&out);
    assert!(
        text.contains("error[E0111]: unknown module `nolinks.shapes`"),
        "{text}"
    );
    assert!(
        text.contains("the dependency `nolinks` compiles `.nil` files but does not pass them on"),
        "{text}"
    );
    assert!(
        text.contains("add `links = \"nolinks\"` under `[package]`"),
        "{text}"
    );
}

/// The `nilc run` block of README.md, run command by command from the
/// repository root: each prints exactly what the README shows.
#[test]
fn the_readme_run_examples_print_what_the_readme_shows() {
    let root = Path::new(env!("CARGO_MANIFEST_DIR")).join("..");
    let readme = std::fs::read_to_string(root.join("README.md")).unwrap();
    let start = readme
        .find("```console\n$ nilc run ")
        .expect("README.md has the nilc run block");
    let block = &readme[start + "```console\n".len()..];
    let block = &block[..block.find("```").unwrap()];
    let mut commands: Vec<(String, String)> = Vec::new();
    for line in block.lines() {
        match line.strip_prefix("$ ") {
            Some(command) => commands.push((command.to_string(), String::new())),
            None => {
                let (_, out) = commands.last_mut().expect("output after a command");
                out.push_str(line);
                out.push('\n');
            }
        }
    }
    assert!(commands.len() >= 4, "{commands:?}");
    for (command, expected) in commands {
        // The shell's quoting: words, and '...' kept whole.
        let mut words = Vec::new();
        let mut rest = command.strip_prefix("nilc ").unwrap();
        while !rest.is_empty() {
            rest = rest.trim_start();
            if let Some(quoted) = rest.strip_prefix('\'') {
                let end = quoted.find('\'').unwrap();
                words.push(quoted[..end].to_string());
                rest = &quoted[end + 1..];
            } else {
                let end = rest.find(' ').unwrap_or(rest.len());
                words.push(rest[..end].to_string());
                rest = &rest[end..];
            }
        }
        let out = Command::new(env!("CARGO_BIN_EXE_nilc"))
            .args(&words)
            .current_dir(&root)
            .env("NO_COLOR", "1")
            .output()
            .unwrap();
        assert_eq!(out.status.code(), Some(0), "{command}: {}", stderr(&out));
        assert_eq!(stdout(&out), expected, "{command}");
    }
}

#[test]
fn run_reports_bad_arguments_and_failed_checks() {
    let tmp = scratch("run");
    let dir = tmp.path();
    let path = write(
        dir,
        "a.nil",
        "function f(y::f64, x::f64)\n    y += x * 2\nend\n\nfunction g(n::i64)\n    k ← n\n    k → 3\nend\n",
    );
    let out = nilc(&["run", &path, "f", "1.5", "-0.25"]);
    assert_eq!(out.status.code(), Some(0), "{}", stderr(&out));
    assert_eq!(stdout(&out), "y = 1.0\nx = -0.25\n");
    // Bad input: a message, status 2, nothing on standard output.
    for (args, message) in [
        (
            vec!["f", "1.5"],
            "`f` takes 2 arguments (y::f64, x::f64), 1 given",
        ),
        (
            vec!["f", "1.5", "[1,"],
            "argument 2: in `[1,`: expected `]`, found the end",
        ),
        (
            vec!["f", "true", "1.0"],
            "argument `y` of `f`: expected `f64`, found `bool`",
        ),
        (vec!["h"], "no function `h`"),
        (
            vec!["f", "1.0", "2.0", "--grad", "z"],
            "`f` has no parameter `z` to seed",
        ),
    ] {
        run_is_refused(&path, args, message);
    }
    // A failed check: the generated code's error, with the place.
    let out = nilc(&["run", &path, "g", "4"]);
    assert_eq!(out.status.code(), Some(1));
    assert_eq!(stdout(&out), "");
    assert!(
        stderr(&out).contains("a.nil:7:5: deallocation check failed: `k` must equal `3` when deallocated (expected 3, found 4)"),
        "{}",
        stderr(&out)
    );
    // A file with errors is not run.
    let broken = write(dir, "b.nil", BROKEN);
    let out = nilc(&["run", &broken, "f", "1.0", "2.0"]);
    assert_eq!(out.status.code(), Some(1));
    assert_eq!(stdout(&out), "");
    assert!(
        stderr(&out).contains("fix them before running it"),
        "{}",
        stderr(&out)
    );
}

/// `nilc run` on the number systems: their values read as they are shown,
/// a value of another number system refused as bad input, and an overflow
/// of a fixed-point sum stopped as the checked build stops it.
#[test]
fn run_takes_fixed_point_log_and_tropical_numbers() {
    let tmp = scratch("run_numbers");
    let dir = tmp.path();
    let path = write(
        dir,
        "n.nil",
        "function acc(a::Fixed43, x::f64)\n    a += fixed(x)\nend\n\nfunction mul(u::ULogarithmic<f64>, t::Tropical<f64>, r::f64)\n    u *= r\n    t *= tropical(r)\nend\n",
    );
    let out = nilc(&["run", &path, "acc", "Fixed43(1.5)", "0.25"]);
    assert_eq!(out.status.code(), Some(0), "{}", stderr(&out));
    assert_eq!(stdout(&out), "a = Fixed43(1.75)\nx = 0.25\n");
    let out = nilc(&["run", &path, "mul", "exp(0.5)", "Tropical(1.0)", "2.0"]);
    assert_eq!(out.status.code(), Some(0), "{}", stderr(&out));
    assert_eq!(
        stdout(&out),
        format!(
            "u = exp({:?})\nt = Tropical(3.0)\nr = 2.0\n",
            0.5 + 2f64.ln()
        )
    );
    run_is_refused(
        &path,
        vec!["acc", "exp(1.0)", "0.25"],
        "argument `a` of `acc`: expected `Fixed43`, found `ULogarithmic<f64>`",
    );
    let out = nilc(&["run", &path, "acc", "Fixed43(1000000)", "100000.0"]);
    assert_eq!(out.status.code(), Some(1));
    assert_eq!(stdout(&out), "");
    assert!(
        stderr(&out).contains("n.nil:2:5: fixed-point overflow: `a += ...` must stay within the range of Fixed43 (expected |1000000 + 100000| < 1048575.9999999999999, found 1000000 + 100000 overflows)"),
        "{}",
        stderr(&out)
    );
}

/// A struct parameter's gradient seed: a struct of the same name, or one
/// number for every float field (integer fields carry no derivative).
#[test]
fn run_seeds_a_struct_parameter() {
    let tmp = scratch("run_struct_seed");
    let dir = tmp.path();
    let path = write(
        dir,
        "acc.nil",
        "struct Acc{T}\n    s::T\n    n::i64\nend\n\nfunction acc_add(a::Acc{T}, x::T) where T: Real\n    a.s += x * 3.0\n    a.n += 1\nend\n",
    );
    for (seed, shown) in [("a=Acc(2.0, 0)", "Acc(2.0, 0)"), ("a", "1.0")] {
        let out = nilc(&[
            "run",
            &path,
            "acc_add",
            "Acc(0.5, 4)",
            "2.0",
            "--grad",
            seed,
        ]);
        assert_eq!(out.status.code(), Some(0), "{}", stderr(&out));
        let text = stdout(&out);
        let want_x = if seed == "a" { 3.0 } else { 6.0 };
        assert!(
            text.contains(&format!("gradient (seeds: a = {shown}):"))
                && text.contains(&format!("x_bar = {want_x:?}")),
            "{text}"
        );
    }
    run_is_refused(
        &path,
        vec!["acc_add", "Acc(0.5, 4)", "2.0", "--grad", "a=[1.0]"],
        "expected a seed shaped like Acc(0.0, 0), found `[f64]`",
    );
}

/// `nilc run --launch N` runs a kernel for invocations 1..=N; a kernel
/// without it, or a function with it, is bad input.
#[test]
fn run_launches_a_kernel_over_its_invocations() {
    let tmp = scratch("launch");
    let dir = tmp.path();
    let path = write(
        dir,
        "k.nil",
        "@kernel function twice(y::[f64], x::[f64])\n    i ← global_index()\n    y[i] += 2 * x[i]\n    i → global_index()\nend\n\nfunction f(y::f64)\n    y += 1\nend\n",
    );
    let out = nilc(&[
        "run",
        &path,
        "twice",
        "[0, 0, 0]",
        "[1, 2, 3]",
        "--launch",
        "2",
    ]);
    assert_eq!(out.status.code(), Some(0), "{}", stderr(&out));
    assert_eq!(stdout(&out), "y = [2.0, 4.0, 0.0]\nx = [1.0, 2.0, 3.0]\n");
    let out = nilc(&[
        "run",
        &path,
        "twice",
        "[0, 0, 0]",
        "[1, 2, 3]",
        "--launch",
        "3",
        "--check-inv",
    ]);
    assert_eq!(out.status.code(), Some(0), "{}", stderr(&out));
    assert!(stdout(&out).ends_with("check_inv: every argument came back (atol 1.0e-8)\n"));
    // The gradient of the launch: x̄ = 2 ȳ where an invocation ran.
    let out = nilc(&[
        "run",
        &path,
        "twice",
        "[0, 0, 0]",
        "[1, 2, 3]",
        "--launch",
        "2",
        "--grad",
        "y",
    ]);
    assert_eq!(out.status.code(), Some(0), "{}", stderr(&out));
    assert!(
        stdout(&out).ends_with("y_bar = [1.0, 1.0, 1.0]\nx_bar = [2.0, 2.0, 0.0]\n"),
        "{}",
        stdout(&out)
    );
    // One invocation too many: the index check of the checked build.
    let out = nilc(&[
        "run",
        &path,
        "twice",
        "[0, 0, 0]",
        "[1, 2, 3]",
        "--launch",
        "4",
    ]);
    assert_eq!(out.status.code(), Some(1));
    assert_eq!(stdout(&out), "");
    assert!(
        stderr(&out).contains("index out of range"),
        "{}",
        stderr(&out)
    );
    for (args, message) in [
        (
            vec!["twice", "[0.0]", "[1.0]"],
            "`twice` is a `@kernel` function, run once per invocation",
        ),
        (
            vec!["f", "1.0", "--launch", "2"],
            "`f` is no `@kernel` function",
        ),
        (
            vec![
                "twice",
                "[0.0]",
                "[1.0]",
                "--launch",
                "1",
                "--grad",
                "y",
                "--check-grad",
            ],
            "cannot be used with",
        ),
    ] {
        run_is_refused(&path, args, message);
    }
}

/// `nilc repl` fed from a pipe, as a script: each line answered in turn,
/// errors on standard error, the session going on after them.
#[test]
fn repl_answers_each_line_of_its_input() {
    use std::io::Write;
    let root = Path::new(env!("CARGO_MANIFEST_DIR")).join("..");
    let mut child = Command::new(env!("CARGO_BIN_EXE_nilc"))
        .args(["repl", "examples/arithmetic.nil"])
        .current_dir(&root)
        .env("HOME", scratch("repl-home").path())
        .stdin(std::process::Stdio::piped())
        .stdout(std::process::Stdio::piped())
        .stderr(std::process::Stdio::piped())
        .spawn()
        .unwrap();
    child
        .stdin
        .take()
        .unwrap()
        .write_all(b"x = [1.0, 2.0]\nout = 0.5\nisum(out, x)\nnope(out)\n~isum(out, x)\ngrad isum(out, x) out\n:quit\n")
        .unwrap();
    let out = child.wait_with_output().unwrap();
    assert_eq!(out.status.code(), Some(0), "{}", stderr(&out));
    let printed = stdout(&out);
    let answers: Vec<&str> = printed.lines().skip(1).collect();
    assert_eq!(
        answers,
        [
            "x = [1.0, 2.0]",
            "out = 0.5",
            "out = 3.5",
            "x = [1.0, 2.0]",
            "out = 0.5",
            "x = [1.0, 2.0]",
            "out_bar = 1.0",
            "x_bar = [1.0, 1.0]"
        ],
        "{printed}"
    );
    let first = printed.lines().next().unwrap();
    assert!(
        first.contains("files loaded, ") && first.ends_with(" functions"),
        "{printed}"
    );
    assert!(
        stderr(&out).contains("error: no function `nope` is loaded"),
        "{}",
        stderr(&out)
    );
}

#[test]
fn test_runs_docstring_examples_and_fails_on_a_wrong_one() {
    let tmp = scratch("doctest");
    let dir = tmp.path();
    let path = write(
        dir,
        "a.nil",
        "\"\"\"\n```jldoctest\njulia> add(1.0, 2.0)\n(3.0, 2.0)\n\njulia> ~add(3.0, 2.0)\n(1.0, 2.0)\n```\n\"\"\"\nfunction add(y::f64, x::f64)\n    y += x\nend\n",
    );
    let out = nilc(&["test", &path]);
    assert_eq!(
        out.status.code(),
        Some(0),
        "{}{}",
        stdout(&out),
        stderr(&out)
    );
    assert_eq!(
        stdout(&out),
        format!(
            "{path}:3: add(1.0, 2.0) ... ok\n{path}:6: ~add(3.0, 2.0) ... ok\n2 examples: 2 passed, 0 failed\n"
        )
    );
    let wrong = write(
        dir,
        "b.nil",
        "\"\"\"\njulia> sub(1.0, 2.0)\n(0.0, 2.0)\n\"\"\"\nfunction sub(y::f64, x::f64)\n    y -= x\nend\n",
    );
    let out = nilc(&["test", &wrong]);
    assert_eq!(out.status.code(), Some(1));
    assert!(
        stdout(&out).contains(":2: sub(1.0, 2.0) ... FAILED: expected (0.0, 2.0), got (-1.0, 2.0)"),
        "{}",
        stdout(&out)
    );
}

/// A reader that has gone (`nilc run … | head -1`) ends `nilc` quietly, as
/// it ends other tools: no panic of `println!` on the closed pipe.
#[test]
fn a_closed_pipe_ends_nilc_without_a_panic() {
    use std::process::Stdio;
    let bessel = concat!(env!("CARGO_MANIFEST_DIR"), "/../examples/bessel.nil");
    // The reading end is closed before `nilc` starts, so its first write
    // meets a closed pipe (a pipe read later would race `nilc`, which may
    // finish writing into the pipe's buffer first).
    let (reader, writer) = std::io::pipe().expect("a pipe");
    drop(reader);
    let child = Command::new(env!("CARGO_BIN_EXE_nilc"))
        .args(["emit", bessel])
        .stdout(writer)
        .stderr(Stdio::piped())
        .spawn()
        .expect("nilc runs");
    let out = child.wait_with_output().expect("nilc ends");
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(!stderr.contains("panicked"), "{stderr}");
    #[cfg(unix)]
    {
        use std::os::unix::process::ExitStatusExt;
        assert_eq!(out.status.signal(), Some(libc::SIGPIPE), "{:?}", out.status);
    }
}

//! The fixture format the backends' snapshot tests share.
//!
//! A fixture file (`tests/rust/*.nil`, `tests/wgsl/*.nil`) holds many small
//! cases, each opened by a `## name` line. A case is compiled on its own, as
//! a file `<name>.nil` holding the lines after its `## name` line, so the
//! locations generated code embeds are the case's own lines. The case's
//! leading `#` comment says what it pins down; `# options:` lines (`checks`,
//! `gradients`, `tape_loops`, `keep_uncomputation`, `atol`, `variant=f:x,y`)
//! each ask for one more
//! module over `Options::default()`, and without them the default options
//! alone are used.

#![allow(dead_code)]

use std::collections::BTreeSet;
use std::panic::{AssertUnwindSafe, catch_unwind};
use std::path::{Path, PathBuf};

use nilang_analysis::db;
use nilang_analysis::{Project, RootDatabase, SourceFile};
use nilang_codegen::{Options, Variant};

pub struct Case {
    /// The fixture file's stem.
    pub group: String,
    pub name: String,
    /// The case's lines, compiled as a file of their own.
    pub text: String,
    /// What the case pins down (its leading comment, less the options).
    pub description: String,
    /// The fixture file, for the snapshot's header.
    pub fixture: PathBuf,
    /// Each options line and its options.
    pub options: Vec<(String, Options)>,
}

impl Case {
    /// The snapshot's name: `<group>__<case>`.
    pub fn snapshot_name(&self) -> String {
        format!("{}__{}", self.group, self.name)
    }

    /// The path the case is compiled as (and generated code names).
    pub fn path(&self) -> String {
        format!("{}.nil", self.name)
    }
}

/// Every case of every fixture `tests/<dir>/*.nil`, in file order.
pub fn cases(dir: &str) -> Vec<Case> {
    let root = Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("tests")
        .join(dir);
    let mut files: Vec<PathBuf> = std::fs::read_dir(&root)
        .unwrap_or_else(|e| panic!("{}: {e}", root.display()))
        .map(|e| e.unwrap().path())
        .filter(|p| p.extension().is_some_and(|e| e == "nil"))
        .collect();
    files.sort();
    assert!(!files.is_empty(), "no fixtures in {}", root.display());
    let mut out = Vec::new();
    let mut names = BTreeSet::new();
    for file in files {
        let group = file.file_stem().unwrap().to_str().unwrap().to_string();
        let text = std::fs::read_to_string(&file).unwrap();
        let mut current: Option<(String, Vec<&str>)> = None;
        let mut finished = Vec::new();
        for line in text.lines() {
            if let Some(name) = line.strip_prefix("## ") {
                finished.extend(current.take());
                current = Some((name.trim().to_string(), Vec::new()));
            } else if let Some((_, lines)) = &mut current {
                lines.push(line);
            }
        }
        finished.extend(current);
        assert!(!finished.is_empty(), "{}: no `## case`", file.display());
        for (name, mut lines) in finished {
            assert!(
                !name.is_empty()
                    && name
                        .chars()
                        .all(|c| c.is_ascii_lowercase() || c.is_ascii_digit() || c == '_'),
                "{}: a case name is lower_snake_case: `{name}`",
                file.display()
            );
            assert!(
                names.insert(format!("{group}__{name}")),
                "{}: the case `{name}` twice",
                file.display()
            );
            while lines.last().is_some_and(|l| l.trim().is_empty()) {
                lines.pop();
            }
            let text = format!("{}\n", lines.join("\n"));
            assert!(
                text.contains("function"),
                "{}: the case `{name}` has no function",
                file.display()
            );
            out.push(Case {
                group: group.clone(),
                description: description(&text),
                options: options(&text),
                text,
                name,
                fixture: file.clone(),
            });
        }
    }
    out
}

fn description(text: &str) -> String {
    text.lines()
        .take_while(|l| l.starts_with('#'))
        .filter(|l| !l.starts_with("# options:"))
        .map(|l| l.trim_start_matches('#').trim())
        .collect::<Vec<_>>()
        .join(" ")
}

pub fn options(text: &str) -> Vec<(String, Options)> {
    let lines: Vec<&str> = text
        .lines()
        .filter_map(|l| l.strip_prefix("# options:"))
        .map(str::trim)
        .collect();
    if lines.is_empty() {
        return vec![("default".to_string(), Options::default())];
    }
    lines
        .into_iter()
        .map(|line| {
            let mut options = Options::default();
            for pair in line.split_whitespace() {
                let (key, value) = pair
                    .split_once('=')
                    .unwrap_or_else(|| panic!("`{pair}`: an option is key=value"));
                let flag = || {
                    value
                        .parse::<bool>()
                        .unwrap_or_else(|_| panic!("`{pair}`: true or false"))
                };
                match key {
                    "checks" => options.checks = flag(),
                    "gradients" => options.gradients = flag(),
                    "tape_loops" => options.tape_loops = flag(),
                    "keep_uncomputation" => options.keep_uncomputation = flag(),
                    "atol" => {
                        options.atol = value
                            .parse()
                            .unwrap_or_else(|_| panic!("`{pair}`: a number"))
                    }
                    "variant" => {
                        let (function, constants) = value
                            .split_once(':')
                            .unwrap_or_else(|| panic!("`{pair}`: variant=f:x,y"));
                        options.variants.push(Variant {
                            function: function.to_string(),
                            constants: constants.split(',').map(str::to_string).collect(),
                        });
                    }
                    _ => panic!("unknown option `{key}`"),
                }
            }
            (line.to_string(), options)
        })
        .collect()
}

/// A database holding the case as its only file of the project (with the
/// standard library when the case imports a module).
pub struct Compiled {
    pub db: RootDatabase,
    pub project: Project,
    pub file: SourceFile,
}

pub fn compile(case: &Case) -> Compiled {
    let db = RootDatabase::default();
    let file = SourceFile::new(&db, case.path(), case.text.clone());
    let project = if case.text.contains("using ") || case.text.contains("import ") {
        db::project_with_std(&db, vec![file], Vec::new())
    } else {
        Project::new(&db, vec![file])
    };
    Compiled { db, project, file }
}

/// Runs `check` on every case, then fails with the list of the cases that
/// failed (a snapshot that differs, or a property that does not hold), so
/// one run shows them all.
pub fn run_all(cases: &[Case], check: impl Fn(&Case)) {
    let mut failed = Vec::new();
    for case in cases {
        if catch_unwind(AssertUnwindSafe(|| check(case))).is_err() {
            failed.push(format!(
                "{} ({})",
                case.snapshot_name(),
                case.fixture.display()
            ));
        }
    }
    assert!(
        failed.is_empty(),
        "{} of {} cases failed (bless with INSTA_UPDATE=always, after reading the diff):\n  {}",
        failed.len(),
        cases.len(),
        failed.join("\n  ")
    );
}

/// Snapshots `content` as `tests/snapshots/<prefix>__<group>__<case>.snap`,
/// with the fixture file and the case's description in its header.
pub fn assert_case_snapshot(prefix: &str, case: &Case, content: &str) {
    let mut settings = insta::Settings::clone_current();
    settings.set_snapshot_path(Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/snapshots"));
    settings.set_prepend_module_to_snapshot(false);
    settings.set_input_file(&case.fixture);
    settings.set_description(case.description.clone());
    settings.set_omit_expression(true);
    let name = format!("{prefix}__{}", case.snapshot_name());
    settings.bind(|| insta::assert_snapshot!(name, content));
}

/// The snapshots of `tests/snapshots/` named `<prefix>__*.snap` that no case
/// makes (a case renamed or removed leaves its old snapshot behind).
pub fn orphan_snapshots(prefix: &str, cases: &[Case]) -> Vec<String> {
    let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/snapshots");
    let wanted: BTreeSet<String> = cases
        .iter()
        .map(|c| format!("{prefix}__{}.snap", c.snapshot_name()))
        .collect();
    let Ok(entries) = std::fs::read_dir(&dir) else {
        return Vec::new();
    };
    let mut out: Vec<String> = entries
        .map(|e| e.unwrap().file_name().into_string().unwrap())
        .filter(|n| n.starts_with(&format!("{prefix}__")) && n.ends_with(".snap"))
        .filter(|n| !wanted.contains(n))
        .collect();
    out.sort();
    out
}

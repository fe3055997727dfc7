//! Every cell of the built-in matrix that the analysis accepts, compiled
//! by rustc and run (issue "one typed body", item 5: a clean check is a
//! clean build). The workspace's own build compiles a slice of the cells
//! (`generate::in_slice`, run by `tests/run.rs` in seconds); this test
//! generates all the others into two crates, members of one workspace,
//! builds those side by side in debug (so integer overflow panics), and
//! runs every cell as
//! `tests/run.rs` does: forwards and uncalled back, checked and unchecked,
//! and for floats and complex numbers its gradient against central
//! differences.
//!
//! A cell rustc rejects is named by the function its first error is in,
//! left out, and the crate built again, so that the others still run.
//! What fails (rejected by rustc, or failing when run) is the snapshot
//! `tests/matrix/every_cell.txt`, grouped by what went wrong: a cell that
//! starts or stops failing fails the test until the snapshot is reviewed
//! (`UPDATE_EXPECT=1`). Slow (1,834 cells, about five minutes on two
//! cores, most of it rustc): set `NILANG_SKIP_SLOW` to skip it.

#[path = "../../../compiler/tests/matrix/cells.rs"]
#[allow(dead_code)]
mod cells;
#[path = "../../tests/fixture_crate/mod.rs"]
mod fixture_crate;
#[path = "../generate.rs"]
mod generate;

use std::collections::{BTreeMap, BTreeSet};
use std::fmt::Write as _;
use std::process::Command;

use fixture_crate::{build, workspace, write_workspace};

/// Crates built side by side, members of one generated workspace that
/// builds into `target/nil-fixtures` (so the runtime is compiled once for
/// them and the other fixtures): rustc checks a crate on one core.
const CRATES: usize = 2;

/// The generated crate `k`'s `main.rs`: the matrix crate's helpers
/// (`src/lib.rs`) with the cells' code in `matrix.rs` next to it, and a
/// `main` that runs every cell and prints one line each.
fn main_rs() -> String {
    let helpers = include_str!("../src/lib.rs").replace(
        r#"include!(concat!(env!("OUT_DIR"), "/matrix.rs"));"#,
        r#"include!("matrix.rs");"#,
    );
    assert!(helpers.contains(r#"include!("matrix.rs");"#));
    helpers
        + r#"
fn main() {
    std::panic::set_hook(Box::new(|_| {}));
    for (name, run) in CELLS {
        let outcome = match std::panic::catch_unwind(run) {
            Ok(Ok(())) => "ok".to_string(),
            Ok(Err(why)) => why,
            Err(payload) => format!(
                "panicked: {}",
                payload
                    .downcast_ref::<&str>()
                    .map(|s| s.to_string())
                    .or_else(|| payload.downcast_ref::<String>().cloned())
                    .unwrap_or_default()
            ),
        };
        println!("cell\t{name}\t{}", outcome.replace(['\n', '\t'], " "));
    }
}
"#
}

/// The cell whose name an `mx_` identifier in `line` starts with (the
/// longest such name: `mx_exp_f64_template_h` is `mx_exp_f64_template`'s).
fn cell_in<'n>(line: &str, names: &'n BTreeSet<String>) -> Option<&'n String> {
    line.match_indices("mx_").find_map(|(at, _)| {
        let ident: String = line[at..]
            .chars()
            .take_while(|c| c.is_ascii_alphanumeric() || *c == '_')
            .collect();
        names
            .range(..=ident.clone())
            .rev()
            .find(|n| ident.starts_with(n.as_str()))
    })
}

/// The cell that rustc's `MEMBER/src/matrix.rs:LINE:COL: error...` is in
/// (`error` from after the member's folder): the nearest function above
/// the line whose name is a cell's, or a cell's helper's.
fn blamed<'n>(error: &str, code: &[&str], names: &'n BTreeSet<String>) -> Option<&'n String> {
    let line: usize = error
        .strip_prefix("/src/matrix.rs:")?
        .split(':')
        .next()?
        .parse()
        .ok()?;
    code[..line.min(code.len())]
        .iter()
        .rev()
        .filter(|l| l.contains("fn "))
        .find_map(|l| cell_in(l, names))
}

#[test]
fn every_accepted_cell_builds_and_runs() {
    if fixture_crate::skip_slow() {
        return;
    }
    let start = std::time::Instant::now();
    // The slice the workspace's build compiles runs in `tests/run.rs`.
    let accepted = generate::accepted(|c| !generate::in_slice(c));
    let checked_in = start.elapsed();
    let total = accepted.len();
    let names: BTreeSet<String> = accepted.iter().map(|c| c.name()).collect();
    let member = |k: usize| format!("nilang-every-cell-{k}");
    let main = main_rs();
    // Each crate's cells, fixed by their place in the list, so that leaving
    // a cell out rebuilds its crate only.
    let mut parts: Vec<Vec<cells::Cell>> = (0..CRATES)
        .map(|k| accepted.iter().skip(k).step_by(CRATES).copied().collect())
        .collect();
    let mut rejected: BTreeMap<String, Vec<String>> = BTreeMap::new();
    let mut rounds = 0;
    loop {
        rounds += 1;
        // Every member is written each round; one that did not change is
        // not rebuilt.
        let (written, code): (Vec<_>, Vec<String>) = (0..CRATES)
            .map(|k| {
                let (nil, rs) = generate::generate(&parts[k]);
                let files = vec![
                    ("main.rs".to_string(), main.clone()),
                    ("matrix.rs".to_string(), rs.clone()),
                    ("matrix.nil".to_string(), nil),
                ];
                ((member(k), files), rs)
            })
            .unzip();
        let root = write_workspace("nilang-every-cell", &written);
        let (ok, diagnostics, all) = build(&root);
        if ok {
            break;
        }
        let mut any_blamed = false;
        for (k, ((name, _), rs)) in written.iter().zip(&code).enumerate() {
            let code: Vec<&str> = rs.lines().collect();
            let mut blame: BTreeMap<String, String> = BTreeMap::new();
            for error in diagnostics.iter().filter(|d| d.contains(": error")) {
                let Some((_, in_member)) = error.split_once(name.as_str()) else {
                    continue;
                };
                if let Some(cell) = blamed(in_member, &code, &names) {
                    let what = error
                        .split_once(": error")
                        .map_or(error.as_str(), |(_, e)| e);
                    blame
                        .entry(cell.clone())
                        .or_insert_with(|| format!("error{what}"));
                }
            }
            if blame.is_empty() {
                continue;
            }
            parts[k].retain(|c| !blame.contains_key(&c.name()));
            for (cell, why) in blame {
                rejected.entry(why).or_default().push(cell);
            }
            any_blamed = true;
        }
        assert!(
            any_blamed,
            "a generated crate does not build, and no cell is to blame:\n{}",
            &all[..all.len().min(20_000)]
        );
    }
    let built_in = start.elapsed() - checked_in;

    // Run them.
    let mut failing: BTreeMap<String, Vec<String>> = BTreeMap::new();
    let mut ran = 0;
    let mut stderr = String::new();
    for k in 0..CRATES {
        let binary = workspace()
            .join("target/nil-fixtures/debug")
            .join(member(k));
        let run = Command::new(&binary)
            .output()
            .unwrap_or_else(|e| panic!("{}: {e}", binary.display()));
        stderr.push_str(&String::from_utf8_lossy(&run.stderr));
        for line in String::from_utf8_lossy(&run.stdout).lines() {
            let Some((name, outcome)) =
                line.strip_prefix("cell\t").and_then(|l| l.split_once('\t'))
            else {
                continue;
            };
            ran += 1;
            if outcome != "ok" {
                // Grouped by what went wrong, numbers left out.
                let why: String = outcome
                    .split(|c: char| c.is_ascii_digit())
                    .collect::<Vec<_>>()
                    .join("#");
                failing.entry(why).or_default().push(name.to_string());
            }
        }
    }
    let run_in = start.elapsed() - checked_in - built_in;
    let built_cells: Vec<&cells::Cell> = parts.iter().flatten().collect();
    let drivers: usize = built_cells
        .iter()
        .map(|c| 1 + usize::from(generate::on_duals(c)))
        .sum();
    assert_eq!(
        ran, drivers,
        "not every cell that built ran to the end; the harness said:\n{stderr}"
    );

    let mut text = String::new();
    let rejected_count: usize = rejected.values().map(Vec::len).sum();
    let failing_count: usize = failing.values().map(Vec::len).sum();
    let _ = writeln!(
        text,
        "# Every cell the analysis accepts outside the workspace's slice ({total}), compiled by rustc in debug and run.\n\
         # rustc rejects {rejected_count}; of the {} it builds, {failing_count} of {drivers} runs fail.\n",
        built_cells.len()
    );
    let _ = writeln!(text, "## rustc rejects (the first error in each cell)\n");
    for (why, cells) in &rejected {
        let _ = writeln!(
            text,
            "{why}\n    {} cells: {}\n",
            cells.len(),
            cells.join(" ")
        );
    }
    let _ = writeln!(text, "## Fails when run\n");
    for (why, cells) in &failing {
        let _ = writeln!(
            text,
            "{why}\n    {} runs: {}\n",
            cells.len(),
            cells.join(" ")
        );
    }
    eprintln!(
        "{total} cells: check {checked_in:.1?}, build {built_in:.1?} in {rounds} round(s), run {run_in:.1?}"
    );
    expect_test::expect_file!["../every_cell.txt"].assert_eq(&text);
}

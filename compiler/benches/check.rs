//! `nilc check` speed on a generated 2,000-line file: a cold check (parse and
//! every analysis in a fresh database) and a re-check after a one-line edit.
//!
//! Run with `cargo bench -p nilang-compiler --bench check`.

use nilang_compiler::db::{self, Project, RootDatabase, SourceFile};
use salsa::Setter;

fn main() {
    divan::main();
}

/// About `lines` lines of varied, valid NiLang: ancillas, routines, loops,
/// branches, calls and instructions.
fn generate(lines: usize, edit: usize) -> String {
    let mut out = String::new();
    let mut i = 0;
    while out.lines().count() < lines {
        let extra = if i == 7 {
            format!("    y += x * {edit}.0\n")
        } else {
            String::new()
        };
        out.push_str(&format!(
            r#""""Function number {i}."""
function f{i}(y::f64, x::f64, v::[f64], n::i64)
    a ← zero(f64)
    @routine begin
        a += sin(x)
        a += exp(x) / 2.0
    end
    for k = 1:n
        v[k] += a * x
        if (v[k] > 0.0, ~)
            y += v[k]
        end
    end
    while (y > 100.0, y < 1.0)
        y -= 1.0
    end
{extra}    ROT(y, x, 0.5)
    ~@routine
end

"#
        ));
        if i > 0 {
            out.push_str(&format!(
                "function g{i}(y::f64, x::f64, v::[f64], n::i64)\n    f{i}(y, x, v, n)\n    ~f{}(y, x, v, n)\nend\n\n",
                i - 1
            ));
        }
        i += 1;
    }
    out
}

#[divan::bench]
fn cold_check_2000_lines(bencher: divan::Bencher) {
    let text = generate(2000, 0);
    assert!(text.lines().count() >= 2000);
    bencher.bench(|| {
        let db = RootDatabase::default();
        let file = SourceFile::new(&db, "bench.nil".into(), text.clone());
        let project = Project::new(&db, vec![file]);
        let n = db::file_diagnostics(&db, project, file).len();
        assert_eq!(n, 0);
        n
    });
}

/// The same edits, re-checked the way `nilc check` does it: the whole file
/// parsed again, then salsa re-runs what changed.
#[divan::bench]
fn recheck_after_one_line_edit(bencher: divan::Bencher) {
    recheck(bencher, RootDatabase::default());
}

/// The same edits with incremental parsing, as the language server does:
/// tree-sitter reuses the previous tree and only the edited function is
/// lowered again.
#[divan::bench]
fn recheck_after_one_line_edit_reparsing(bencher: divan::Bencher) {
    recheck(bencher, RootDatabase::default().with_reparsing());
}

fn recheck(bencher: divan::Bencher, mut db: RootDatabase) {
    let file = SourceFile::new(&db, "bench.nil".into(), generate(2000, 0));
    let project = Project::new(&db, vec![file]);
    db::file_diagnostics(&db, project, file);
    // Two versions that differ in one line of one function, alternated.
    let texts = [generate(2000, 1), generate(2000, 22)];
    let mut turn = 0usize;
    bencher.bench_local(|| {
        turn += 1;
        file.set_text(&mut db).to(texts[turn % 2].clone());
        db::file_diagnostics(&db, project, file).len()
    });
}

#[divan::bench]
fn parse_only_2000_lines(bencher: divan::Bencher) {
    let text = generate(2000, 0);
    bencher.bench(|| nilang_compiler::syntax::parse(&text).items.len());
}

/// One function of about `statements` statements (counting nested ones):
/// blocks of an ancilla, a routine, an update, a loop and the uncomputation.
/// Checking must be linear in a function's size.
fn one_function(statements: usize, edit: usize) -> String {
    let mut out = String::from("function big(y::f64, x::f64, v::[f64], n::i64)\n");
    for k in 0..statements / 10 {
        let scale = if k == statements / 20 { edit } else { k % 7 };
        out.push_str(&format!(
            "    a{k} ← zero(f64)\n    @routine begin\n        a{k} += sin(x) * {scale}.0\n        a{k} += x / 2.0\n    end\n    y += a{k} * x\n    for i = 1:n\n        v[i] += a{k}\n    end\n    ~@routine\n    a{k} → zero(f64)\n"
        ));
    }
    out.push_str("end\n");
    out
}

/// What `nilc check` computes for a file: every diagnostic of the analysis
/// (`db::file_diagnostics`; no code is generated). `analysis_one_function`,
/// in benchmarks/HISTORY.md, was the same query once E0701 moved into
/// the analysis.
#[divan::bench(args = [2_000, 20_000])]
fn nilc_check_one_function(bencher: divan::Bencher, statements: usize) {
    let text = one_function(statements, 0);
    bencher.bench(|| {
        let db = RootDatabase::default();
        let file = SourceFile::new(&db, "big.nil".into(), text.clone());
        let project = Project::new(&db, vec![file]);
        let n = db::file_diagnostics(&db, project, file).len();
        assert_eq!(n, 0);
        n
    });
}

/// The tree-sitter parse alone (`parse_only` minus this is the lowering).
#[divan::bench]
fn tree_sitter_only_2000_lines(bencher: divan::Bencher) {
    let text = generate(2000, 0);
    bencher.bench(|| nilang_compiler::syntax::parse_tree(&text).is_some());
}

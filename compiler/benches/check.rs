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

#[divan::bench]
fn recheck_after_one_line_edit(bencher: divan::Bencher) {
    let mut db = RootDatabase::default();
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

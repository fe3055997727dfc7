//! Properties of the inverse, on every example program and every clean
//! program of the wrong-program suite.

use std::path::{Path, PathBuf};

use expect_test::expect;
use nilang_compiler::ast::{Function, StmtKind, range_values};
use nilang_compiler::db::{self, Project, RootDatabase, SourceFile};
use nilang_compiler::invert::{explicit_deallocations, invert_function};
use nilang_compiler::printer::print_function;
use nilang_compiler::syntax;

fn nil_files(dir: &Path) -> Vec<PathBuf> {
    let mut out = Vec::new();
    let Ok(entries) = std::fs::read_dir(dir) else {
        return out;
    };
    for entry in entries.flatten() {
        let path = entry.path();
        if path.is_dir() {
            out.extend(nil_files(&path));
        } else if path.extension().is_some_and(|e| e == "nil") {
            out.push(path);
        }
    }
    out.sort();
    out
}

fn example_files() -> Vec<PathBuf> {
    let root = Path::new(env!("CARGO_MANIFEST_DIR")).join("..");
    nil_files(&root.join("examples"))
}

fn functions(text: &str) -> Vec<Function> {
    let parsed = syntax::parse(text);
    assert!(parsed.diagnostics.is_empty(), "{:?}", parsed.diagnostics);
    parsed.items.iter().map(|i| (*i.function).clone()).collect()
}

/// Diagnostics of `files` checked together as one project.
fn errors(files: &[(String, String)]) -> Vec<String> {
    let db = RootDatabase::default();
    let sources: Vec<SourceFile> = files
        .iter()
        .map(|(p, t)| SourceFile::new(&db, p.clone(), t.clone()))
        .collect();
    let project = Project::new(&db, sources.clone());
    let mut out = Vec::new();
    for &file in &sources {
        for d in db::file_diagnostics(&db, project, file).iter() {
            out.push(format!("{}: {}: {}", file.path(&db), d.code, d.message));
        }
    }
    out
}

/// Prints, parses and prints again: the printer's output is a fixpoint.
fn reprint(f: &Function) -> String {
    let printed = print_function(f);
    let again = functions(&printed);
    assert_eq!(
        again.len(),
        1,
        "printed function parses as one function:\n{printed}"
    );
    print_function(&again[0])
}

#[test]
fn examples_exist() {
    assert!(
        example_files().len() >= 5,
        "the examples folder holds the paper's programs"
    );
}

#[test]
fn inverse_of_inverse_is_the_original() {
    for path in example_files() {
        let text = std::fs::read_to_string(&path).unwrap();
        for f in functions(&text) {
            let inverse = invert_function(&f);
            // Implicit deallocations become explicit, and then it is exact.
            let explicit = explicit_deallocations(&f);
            assert_eq!(explicit_deallocations(&explicit), explicit);
            assert_eq!(
                invert_function(&inverse),
                explicit,
                "{}: {}",
                path.display(),
                f.name.name
            );
            assert_eq!(invert_function(&invert_function(&explicit)), explicit);
            // Through source text too.
            let printed_inverse = print_function(&inverse);
            let reparsed = functions(&printed_inverse).remove(0);
            let back = invert_function(&reparsed);
            assert_eq!(
                print_function(&back),
                reprint(&explicit),
                "{}: {}",
                path.display(),
                f.name.name
            );
        }
    }
}

#[test]
fn printed_inverses_are_accepted_by_the_checker() {
    let originals: Vec<(String, String)> = example_files()
        .iter()
        .map(|p| (p.display().to_string(), std::fs::read_to_string(p).unwrap()))
        .collect();
    let found = errors(&originals);
    assert!(found.is_empty(), "{found:?}");
    // The inverse module: every function inverted, under the same names.
    // The inverse of a tape loop, `~(@tape for ...)`, reads the tape its
    // forward run recorded: it is no standalone program (E0409), and
    // functions with one are left out.
    let inverses: Vec<(String, String)> = originals
        .iter()
        .map(|(path, text)| {
            let inverse: Vec<String> = functions(text)
                .iter()
                .map(|f| print_function(&invert_function(f)))
                .filter(|printed| !printed.contains("~(@tape"))
                .collect();
            (format!("{path}.inverse"), inverse.join("\n"))
        })
        .collect();
    let found = errors(&inverses);
    assert!(found.is_empty(), "{found:?}");
}

#[test]
fn printing_is_a_fixpoint() {
    for path in example_files() {
        let text = std::fs::read_to_string(&path).unwrap();
        for f in functions(&text) {
            let once = print_function(&f);
            assert_eq!(reprint(&f), once, "{}", path.display());
        }
    }
}

#[test]
fn a_stepped_for_loop_inverts_to_its_elements_backwards() {
    let f = functions("function f(x::f64)\n    for i = 1:2:4\n        x += i\n    end\nend\n")
        .remove(0);
    let inverse = invert_function(&f);
    let StmtKind::For { range, .. } = &inverse.body.stmts[0].kind else {
        panic!("a for loop");
    };
    assert!(range.reversed);
    assert_eq!(range_values(1, 2, 4, false), vec![1, 3]);
    assert_eq!(range_values(1, 2, 4, range.reversed), vec![3, 1]);
    // The textbook inverse `4:-2:1` would visit 4 and 2.
    assert_eq!(range_values(4, -2, 1, false), vec![4, 2]);
    assert_eq!(range_values(5, 1, 4, false), Vec::<i64>::new());
    assert_eq!(range_values(3, -1, 1, true), vec![1, 2, 3]);
    expect![[r#"
        function f(x::f64)
            for i = reverse(1:2:4)
                x -= i
            end
        end
    "#]]
    .assert_eq(&print_function(&inverse));
}

#[test]
fn inverse_snapshot_of_control_flow_and_routines() {
    let text = r#"
"""Exercise every statement kind."""
function everything(out!::T, x::T, v::[T], n::i64) where T: Real
    a ← zero(T)
    @routine begin
        a += x * 2
        b ← zero(T)
        b += sin(a)
    end
    out! += a * b
    ~@routine
    if (x > 0, out! > 0)
        out! += x
    elseif (x < 0, ~)
        NEG(out!)
    else
        INC(n)
    end
    while (n > 0, n < 3)
        DEC(n)
    end
    for i = 1:n
        v[i] .+= identity.(x)
        ROT(v[i], out!, x)
        ~begin
            MULINT(n, 2)
            SWAP(v[i], out!)
        end
    end
    helper(out!, x)
    ~helper(out!, x)
    (T => f64)(x)
    @safe println(x)
    @invcheckoff a ⊻= 1
    a → zero(T)
end
"#;
    let f = functions(text).remove(0);
    let inverse = invert_function(&f);
    assert_eq!(invert_function(&inverse), f);
    expect![[r#"
        """Exercise every statement kind."""
        function everything(out!::T, x::T, v::[T], n::i64) where T: Real
            a ← zero(T)
            @invcheckoff a ⊻= 1
            @safe println(x)
            (f64 => T)(x)
            helper(out!, x)
            ~helper(out!, x)
            for i = reverse(1:n)
                ~begin
                    SWAP(v[i], out!)
                    DIVINT(n, 2)
                end
                IROT(v[i], out!, x)
                v[i] .-= identity.(x)
            end
            while (n < 3, n > 0)
                INC(n)
            end
            if (out! > 0, x > 0)
                out! -= x
            elseif (x < 0, ~)
                NEG(out!)
            else
                DEC(n)
            end
            @routine begin
                a += x * 2
                b ← zero(T)
                b += sin(a)
            end
            out! -= a * b
            ~@routine
            a → zero(T)
        end
    "#]]
    .assert_eq(&print_function(&inverse));
}

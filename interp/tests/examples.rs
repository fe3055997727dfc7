//! The interpreter on the repository's examples: the values the papers
//! give, and every function run forwards then backwards back to its
//! inputs.

use nilang_analysis::db::{self, RootDatabase, SourceFile};
use nilang_interp::{Direction, Interpreter, Value, literal};

fn project(db: &RootDatabase, paths: &[&str]) -> nilang_analysis::Project {
    let root = concat!(env!("CARGO_MANIFEST_DIR"), "/..");
    let files = paths
        .iter()
        .map(|p| {
            let text = std::fs::read_to_string(format!("{root}/{p}")).expect("example file");
            SourceFile::new(db, p.to_string(), text)
        })
        .collect();
    db::project_with_std(db, files, Vec::new())
}

fn values(args: &[&str]) -> Vec<Value> {
    args.iter()
        .map(|a| literal::parse(a).expect("literal"))
        .collect()
}

fn shown(vs: &[Value]) -> String {
    vs.iter()
        .map(|v| v.to_string())
        .collect::<Vec<_>>()
        .join(", ")
}

#[test]
fn fibonacci_from_the_paper() {
    let db = RootDatabase::default();
    let p = project(&db, &["examples/fib.nil"]);
    let mut i = Interpreter::new(&db, p);
    let out = i
        .call("rfib", values(&["0", "10"]), Direction::Forward)
        .unwrap();
    assert_eq!(shown(&out), "55, 10");
    let back = i.call("rfib", out, Direction::Backward).unwrap();
    assert_eq!(shown(&back), "0, 10");
    let out = i
        .call("rfibn", values(&["0", "100"]), Direction::Forward)
        .unwrap();
    assert_eq!(shown(&out), "12, 100");
}

#[test]
fn bessel_from_the_paper() {
    let db = RootDatabase::default();
    let p = project(&db, &["examples/bessel.nil", "examples/arithmetic.nil"]);
    let mut i = Interpreter::new(&db, p);
    let out = i
        .call("ibesselj", values(&["0.0", "2", "1.0"]), Direction::Forward)
        .unwrap();
    let Value::F64(j2) = out[0] else {
        panic!("{out:?}")
    };
    assert!((j2 - 0.11490348493190048).abs() < 1e-9, "{j2}");
    let back = i.call("ibesselj", out, Direction::Backward).unwrap();
    assert_eq!(shown(&back), "0.0, 2, 1.0");
}

//! Long chains through the interpreter's fast paths: a left-nested sum of
//! 10,000 terms is 10,000 levels deep, and the paths that compute integer
//! and float arithmetic without the general one must still check the stack
//! (`eval`'s accounting, `int_fast`'s bounded depth). Run on a thread with
//! a test thread's default stack (2 MiB) in a debug build, forwards and
//! back.

use nilang_analysis::db::{self, RootDatabase, SourceFile};
use nilang_interp::{Direction, Interpreter, Value};

const TERMS: usize = 10_000;

fn program() -> String {
    let ints = vec!["k"; TERMS].join(" + ");
    let floats = vec!["(x * 2.0)"; TERMS].join(" + ");
    format!(
        "function int_chain(y!::i64, k::i64)\n    y! += {ints}\nend\n\n\
         function float_chain(y!::f64, x::f64)\n    y! += {floats}\nend\n"
    )
}

fn run(name: &str, args: Vec<Value>, direction: Direction) -> Vec<Value> {
    let db = RootDatabase::default();
    let file = SourceFile::new(&db, "chains.nil".into(), program());
    let project = db::project_with_std(&db, vec![file], Vec::new());
    let mut interp = Interpreter::new(&db, project);
    interp.call(name, args, direction).expect("the chain runs")
}

fn on_small_stack<R: Send + 'static>(f: impl FnOnce() -> R + Send + 'static) -> R {
    std::thread::Builder::new()
        .stack_size(2 << 20)
        .spawn(f)
        .expect("a thread")
        .join()
        .expect("no stack overflow")
}

#[test]
fn ten_thousand_term_chains_run_forwards_and_back_on_a_small_stack() {
    on_small_stack(|| {
        let out = run(
            "int_chain",
            vec![Value::int(0), Value::int(3)],
            Direction::Forward,
        );
        assert_eq!(out[0], Value::int(3 * TERMS as i64));
        let back = run("int_chain", out, Direction::Backward);
        assert_eq!(back[0], Value::int(0));

        let out = run(
            "float_chain",
            vec![Value::F64(0.0), Value::F64(0.25)],
            Direction::Forward,
        );
        assert_eq!(out[0], Value::F64(0.5 * TERMS as f64));
        let back = run("float_chain", out, Direction::Backward);
        assert_eq!(back[0], Value::F64(0.0));
    });
}

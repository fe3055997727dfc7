//! Nested derivatives on GradBench's `particle` and `saddle` programs
//! (`gradbench/evals`): the solvers' own derivatives, `particle_slope` and
//! `saddle_gradient`, take a derivative call (`(∇f)` or `(∂f)`) of a cost
//! that itself makes one, so that the outer one runs the inner one's
//! reverse pass or runs it on dual numbers. In the interpreter each
//! nesting must agree with central differences of the cost, as
//! `gradbench/tests/nested.rs` asks of the generated code; forward over
//! forward needs duals of duals, which the interpreter refuses.

use nilang_analysis::db::{self, RootDatabase, SourceFile};
use nilang_interp::{Check, Direction, Error, Interpreter, Value};
use std::rc::Rc;

fn array(xs: &[f64]) -> Value {
    Value::Array(Rc::new(xs.iter().map(|&x| Value::F64(x)).collect()))
}

fn number(v: &Value) -> f64 {
    v.as_f64().expect("a number")
}

fn close(got: f64, want: f64, what: &str) {
    assert!(
        (got - want).abs() <= 1e-5 * want.abs().max(1e-3),
        "{what}: {got} against {want}"
    );
}

/// `(outer_reverse, inner_reverse)`; forward over forward is refused.
const NESTINGS: [(bool, bool); 3] = [(false, true), (true, false), (true, true)];

fn with_evals(test: impl FnOnce(&mut Interpreter<'_>)) {
    let db = RootDatabase::default();
    let files = ["particle", "saddle"]
        .iter()
        .map(|name| {
            let path = format!(
                "{}/../gradbench/evals/{name}.nil",
                env!("CARGO_MANIFEST_DIR")
            );
            let text = std::fs::read_to_string(path).expect("a GradBench program");
            SourceFile::new(&db, format!("gradbench/evals/{name}.nil"), text)
        })
        .collect();
    let project = db::project_with_std(&db, files, Vec::new());
    test(&mut Interpreter::new(&db, project));
}

fn refused(e: Error) {
    let Error::Run(e) = e else { panic!("{e}") };
    assert_eq!(e.check, Check::Unsupported, "{e}");
    assert!(e.what.contains("on `Dual{f64}`"), "{e}");
}

#[test]
fn the_particles_slope_is_that_of_its_differences() {
    with_evals(|run| {
        let mut miss = |w: f64| {
            let out = run
                .call(
                    "miss_r",
                    vec![Value::F64(0.0), Value::F64(w)],
                    Direction::Forward,
                )
                .unwrap();
            number(&out[0])
        };
        let h = 1e-6;
        let points: Vec<(f64, f64)> = [0.0, 0.15, 0.3]
            .into_iter()
            .map(|w| (w, (miss(w + h) - miss(w - h)) / (2.0 * h)))
            .collect();
        for (w, fd) in points {
            let slope = |run: &mut Interpreter<'_>, outer: bool, inner: bool| {
                let args = vec![
                    Value::F64(0.0),
                    Value::F64(0.0),
                    Value::F64(w),
                    Value::Bool(outer),
                    Value::Bool(inner),
                ];
                run.call("particle_slope", args, Direction::Forward)
            };
            for (outer, inner) in NESTINGS {
                let out = slope(run, outer, inner).unwrap();
                close(number(&out[0]), fd, &format!("w = {w}, {outer}, {inner}"));
            }
            refused(slope(run, false, false).unwrap_err());
        }
    });
}

#[test]
fn the_saddles_gradient_is_that_of_its_differences() {
    with_evals(|run| {
        let start = array(&[1.0, 1.0]);
        let mut cost = |a: [f64; 2]| {
            let args = vec![Value::F64(0.0), array(&a), start.clone(), Value::Bool(true)];
            number(&run.call("saddle_cost", args, Direction::Forward).unwrap()[0])
        };
        let h = 1e-6;
        let points: Vec<([f64; 2], [f64; 2])> = [[0.5, -0.25], [1.0, 1.0]]
            .into_iter()
            .map(|a| {
                let fd = [0, 1].map(|k| {
                    let (mut p, mut m) = (a, a);
                    p[k] += h;
                    m[k] -= h;
                    (cost(p) - cost(m)) / (2.0 * h)
                });
                (a, fd)
            })
            .collect();
        for (a, fd) in points {
            let gradient = |run: &mut Interpreter<'_>, outer: bool, inner: bool| {
                let args = vec![
                    array(&[0.0, 0.0]),
                    Value::F64(0.0),
                    array(&a),
                    start.clone(),
                    Value::Bool(outer),
                    Value::Bool(inner),
                ];
                run.call("saddle_gradient", args, Direction::Forward)
            };
            for (outer, inner) in NESTINGS {
                let out = gradient(run, outer, inner).unwrap();
                let Value::Array(g) = &out[0] else {
                    panic!("{}", out[0])
                };
                for k in 0..2 {
                    close(
                        number(&g[k]),
                        fd[k],
                        &format!("a = {a:?}, {outer}, {inner}"),
                    );
                }
            }
            refused(gradient(run, false, false).unwrap_err());
        }
    });
}

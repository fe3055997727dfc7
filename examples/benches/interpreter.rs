//! The reference interpreter against the generated Rust on the same
//! programs and arguments (issue 44 asks for within 100x: it is for trying
//! and testing, not production). Run with
//! `cargo bench -p nilang-examples --bench interpreter`.

use divan::black_box;
use nilang_analysis::db::{self, RootDatabase, SourceFile};
use nilang_examples::{bessel, linalg, unitary};
use nilang_interp::{Direction, Interpreter, Value};
use std::rc::Rc;

fn main() {
    divan::main();
}

/// The examples folder as one project, checked once.
fn project(db: &RootDatabase) -> nilang_analysis::Project {
    let dir = env!("CARGO_MANIFEST_DIR");
    let mut files = Vec::new();
    let mut paths: Vec<_> = std::fs::read_dir(dir)
        .unwrap()
        .map(|e| e.unwrap().path())
        .filter(|p| p.extension().is_some_and(|e| e == "nil"))
        .collect();
    paths.sort();
    for p in paths {
        let name = format!("examples/{}", p.file_name().unwrap().to_string_lossy());
        files.push(SourceFile::new(
            db,
            name,
            std::fs::read_to_string(&p).unwrap(),
        ));
    }
    let project = db::project_with_std(db, files, Vec::new());
    // Warm the queries the interpreter reads (typed bodies, mutations).
    let mut i = Interpreter::new(db, project);
    let _ = i.call(
        "ibesselj",
        vec![Value::F64(0.0), Value::int(2), Value::F64(1.0)],
        Direction::Forward,
    );
    project
}

fn f64s(n: usize) -> Value {
    Value::Array(Rc::new(
        (0..n).map(|k| Value::F64(0.1 * k as f64)).collect(),
    ))
}

mod bessel_j2 {
    use super::*;

    #[divan::bench]
    fn generated() -> f64 {
        let mut out = 0.0;
        bessel::ibesselj(&mut out, black_box(2), black_box(1.0), 1e-8).unwrap();
        out
    }

    #[divan::bench]
    fn interpreted(b: divan::Bencher) {
        let db = RootDatabase::default();
        let p = project(&db);
        let mut i = Interpreter::new(&db, p);
        b.bench_local(|| {
            i.call(
                "ibesselj",
                black_box(vec![Value::F64(0.0), Value::int(2), Value::F64(1.0)]),
                Direction::Forward,
            )
            .unwrap()
        });
    }

    #[divan::bench]
    fn generated_gradient() -> f64 {
        let (mut out, mut ob, mut zb) = (0.0, 1.0, 0.0);
        bessel::ibesselj_grad(&mut out, &mut ob, 2, black_box(1.0), &mut zb, 1e-8).unwrap();
        zb
    }

    #[divan::bench]
    fn interpreted_gradient(b: divan::Bencher) {
        let db = RootDatabase::default();
        let p = project(&db);
        let seeds = [("out!".to_string(), Value::F64(1.0))];
        let mut i = Interpreter::new(&db, p);
        b.bench_local(|| {
            i.gradient(
                "ibesselj",
                black_box(vec![Value::F64(0.0), Value::int(2), Value::F64(1.0)]),
                &seeds,
            )
            .unwrap()
        });
    }
}

/// `dot` of two vectors of 1,000 elements.
mod dot_1000 {
    use super::*;

    #[divan::bench]
    fn generated() -> f64 {
        let v: Vec<f64> = (0..1000).map(|k| 0.1 * k as f64).collect();
        let mut out = 0.0;
        linalg::dot(&mut out, black_box(&v), black_box(&v)).unwrap();
        out
    }

    #[divan::bench]
    fn interpreted(b: divan::Bencher) {
        let db = RootDatabase::default();
        let p = project(&db);
        let v = f64s(1000);
        let mut i = Interpreter::new(&db, p);
        b.bench_local(|| {
            i.call(
                "dot",
                black_box(vec![Value::F64(0.0), v.clone(), v.clone()]),
                Direction::Forward,
            )
            .unwrap()
        });
    }
}

/// `umm!` on 20 elements (190 rotations).
mod umm_20 {
    use super::*;

    #[divan::bench]
    fn generated() -> f64 {
        let mut x: Vec<f64> = (0..20).map(|k| 0.1 * k as f64).collect();
        let theta: Vec<f64> = (0..190).map(|k| 0.01 * k as f64).collect();
        unitary::umm(black_box(&mut x), black_box(&theta)).unwrap();
        x[0]
    }

    #[divan::bench]
    fn interpreted(b: divan::Bencher) {
        let db = RootDatabase::default();
        let p = project(&db);
        let (x, theta) = (f64s(20), f64s(190));
        let mut i = Interpreter::new(&db, p);
        b.bench_local(|| {
            i.call(
                "umm!",
                black_box(vec![x.clone(), theta.clone()]),
                Direction::Forward,
            )
            .unwrap()
        });
    }
}

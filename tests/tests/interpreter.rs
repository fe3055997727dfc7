//! The reference interpreter against the generated Rust over every function
//! of `nil/` that `build.rs` puts behind one signature
//! (`nilang_tests::differential`): the same arguments, forwards and then
//! backwards from the forward run's results. Where both finish, every
//! result must be the same to the bit (both compute in the same types in
//! the same order); where one stops at a check, the other must stop with
//! the same message. A disagreement is a bug in one of them: fix it and
//! keep the case. The counts are a snapshot.

use std::collections::BTreeMap;
use std::rc::Rc;

use nilang::Complex;
use nilang_compiler::db::{self, RootDatabase, SourceFile};
use nilang_compiler::ty::{Ctor, Scalar, Ty};
use nilang_interp::{Direction, Interpreter, Value};
use nilang_tests::differential::{Arg, FUNCTIONS};

/// The argument for a parameter of type `ty`, the `k`-th: the reference
/// interpreter's corpus test's values (away from integers, where `mod` and
/// rounding are not smooth).
fn argument(ty: &Ty, k: usize) -> Value {
    let x = 0.6 + 0.37 * k as f64;
    match ty {
        Ty::Scalar(Scalar::F64) | Ty::Generic(_) => Value::F64(x),
        Ty::Scalar(Scalar::F32) => Value::F32(x as f32),
        Ty::Scalar(Scalar::Bool) => Value::Bool(false),
        Ty::Scalar(s) => Value::Int(2 + k as i64, *s),
        Ty::Constructed(Ctor::Complex, _) => Value::Complex(x, 0.25),
        Ty::Constructed(Ctor::Fixed43, _) => Value::Fixed(nilang::fixed::from_f64(x)),
        // A log number by its logarithm (its value is `x`).
        Ty::Constructed(Ctor::ULogarithmic, a) => Value::ULog(Box::new(match a.as_slice() {
            [Ty::Constructed(Ctor::Fixed43, _)] => Value::Fixed(nilang::fixed::from_f64(x.ln())),
            _ => Value::F64(x.ln()),
        })),
        Ty::Constructed(Ctor::Tropical, _) => Value::Tropical(Box::new(Value::F64(x))),
        Ty::Slice(t) => Value::Array(Rc::new((0..4).map(|i| argument(t, k + i)).collect())),
        Ty::Constructed(Ctor::Matrix, args) => Value::Matrix {
            rows: 3,
            cols: 3,
            data: Rc::new((0..9).map(|i| argument(&args[0], k + i)).collect()),
        },
        other => panic!("no argument generated for `{}`", other.display()),
    }
}

fn f64_of(v: &Value) -> f64 {
    match v {
        Value::F64(x) => *x,
        Value::Int(i, _) => *i as f64,
        other => panic!("not an f64: {other}"),
    }
}

/// The floats of a value, in order (a complex number's two parts, an
/// array's or matrix's elements, an integer as a float).
fn value_floats(v: &Value) -> Vec<f64> {
    match v {
        Value::Array(xs) | Value::Matrix { data: xs, .. } => {
            xs.iter().flat_map(value_floats).collect()
        }
        Value::Complex(re, im) => vec![*re, *im],
        v => vec![f64_of(v)],
    }
}

/// The Rust argument as the interpreter's value (the inverse of `to_arg`
/// for the floats an adjoint holds).
fn to_value(a: &Arg) -> Value {
    let f64s = |xs: &[f64]| Rc::new(xs.iter().map(|&x| Value::F64(x)).collect());
    match a {
        Arg::F64(x) => Value::F64(*x),
        Arg::Complex(z) => Value::Complex(z.re, z.im),
        Arg::VecF64(xs) => Value::Array(f64s(xs)),
        Arg::VecComplex(zs) => Value::Array(Rc::new(
            zs.iter().map(|z| Value::Complex(z.re, z.im)).collect(),
        )),
        Arg::Matrix((rows, cols, xs)) => Value::Matrix {
            rows: *rows,
            cols: *cols,
            data: f64s(xs),
        },
        other => panic!("no value for {other:?}"),
    }
}

/// Gradients agree: the same length and every pair within 1e-12 relative
/// (the adjoints are sums the two may add in another order), or both NaN.
fn close(got: &[f64], want: &[f64]) -> bool {
    got.len() == want.len()
        && got.iter().zip(want).all(|(a, b)| {
            (a - b).abs() <= 1e-12 * a.abs().max(b.abs()).max(1.0) || (a.is_nan() && b.is_nan())
        })
}

/// The interpreter's value as the Rust argument `like` is.
fn to_arg(v: &Value, like: &Arg) -> Arg {
    match (like, v) {
        (Arg::F64(_), v) => Arg::F64(f64_of(v)),
        (Arg::F32(_), Value::F32(x)) => Arg::F32(*x),
        (Arg::I64(_), Value::Int(i, _)) => Arg::I64(*i),
        (Arg::I32(_), Value::Int(i, _)) => Arg::I32(*i as i32),
        (Arg::Bool(_), Value::Bool(b)) => Arg::Bool(*b),
        (Arg::Complex(_), Value::Complex(re, im)) => Arg::Complex(Complex::new(*re, *im)),
        (Arg::VecF64(_), Value::Array(xs)) => Arg::VecF64(xs.iter().map(f64_of).collect()),
        (Arg::VecI64(_), Value::Array(xs)) => {
            Arg::VecI64(xs.iter().map(|x| x.as_i64().expect("an integer")).collect())
        }
        (Arg::Matrix(_), Value::Matrix { rows, cols, data }) => {
            Arg::Matrix((*rows, *cols, data.iter().map(f64_of).collect()))
        }
        (Arg::Fixed(_), Value::Fixed(x)) => Arg::Fixed(*x),
        (Arg::ULogF64(_), Value::ULog(log)) => Arg::ULogF64(nilang::ULog::from_log(f64_of(log))),
        (Arg::ULogFixed(_), Value::ULog(log)) => match **log {
            Value::Fixed(l) => Arg::ULogFixed(nilang::ULog::from_log(l)),
            ref other => panic!("a fixed-point logarithm: {other}"),
        },
        (Arg::Tropical(_), Value::Tropical(n)) => Arg::Tropical(nilang::Tropical::new(f64_of(n))),
        (Arg::VecComplex(_), Value::Array(xs)) => Arg::VecComplex(
            xs.iter()
                .map(|x| match x {
                    Value::Complex(re, im) => Complex::new(*re, *im),
                    other => panic!("a complex number: {other}"),
                })
                .collect(),
        ),
        (Arg::VecTropical(_), Value::Array(xs)) => Arg::VecTropical(
            xs.iter()
                .map(|x| match x {
                    Value::Tropical(n) => nilang::Tropical::new(f64_of(n)),
                    other => panic!("a tropical number: {other}"),
                })
                .collect(),
        ),
        (like, v) => panic!("the interpreter gave {v} for an argument like {like:?}"),
    }
}

/// The floats of an argument, as bits, with the integers and booleans.
fn bits(args: &[Arg]) -> Vec<Vec<u64>> {
    args.iter()
        .map(|a| match a {
            Arg::F64(x) => vec![x.to_bits()],
            Arg::F32(x) => vec![x.to_bits() as u64],
            Arg::I64(i) => vec![*i as u64],
            Arg::I32(i) => vec![*i as u64],
            Arg::Bool(b) => vec![*b as u64],
            Arg::Complex(z) => vec![z.re.to_bits(), z.im.to_bits()],
            Arg::VecF64(xs) => xs.iter().map(|x| x.to_bits()).collect(),
            Arg::VecI64(xs) => xs.iter().map(|&i| i as u64).collect(),
            Arg::Matrix((_, _, xs)) => xs.iter().map(|x| x.to_bits()).collect(),
            Arg::Fixed(x) => vec![x.to_bits() as u64],
            Arg::ULogF64(u) => vec![u.log.to_bits()],
            Arg::ULogFixed(u) => vec![u.log.to_bits() as u64],
            Arg::Tropical(t) => vec![t.n.to_bits()],
            Arg::VecTropical(ts) => ts.iter().map(|t| t.n.to_bits()).collect(),
            Arg::VecComplex(zs) => zs
                .iter()
                .flat_map(|z| [z.re.to_bits(), z.im.to_bits()])
                .collect(),
        })
        .collect()
}

/// The placeholder of each parameter's variant, from the table's panics:
/// the table reads `Arg::F64` for an `f64` or a `T`, and so on.
fn variant_of(ty: &Ty) -> Arg {
    match ty {
        Ty::Scalar(Scalar::F64) | Ty::Generic(_) => Arg::F64(0.0),
        Ty::Scalar(Scalar::F32) => Arg::F32(0.0),
        Ty::Scalar(Scalar::Bool) => Arg::Bool(false),
        Ty::Scalar(Scalar::I64) => Arg::I64(0),
        Ty::Scalar(Scalar::I32) => Arg::I32(0),
        Ty::Constructed(Ctor::Complex, _) => Arg::Complex(Complex::new(0.0, 0.0)),
        Ty::Constructed(Ctor::Fixed43, _) => Arg::Fixed(nilang::Fixed43::ZERO),
        Ty::Constructed(Ctor::ULogarithmic, a)
            if matches!(a.as_slice(), [Ty::Constructed(Ctor::Fixed43, _)]) =>
        {
            Arg::ULogFixed(nilang::ULog::from_log(nilang::Fixed43::ZERO))
        }
        Ty::Constructed(Ctor::ULogarithmic, _) => Arg::ULogF64(nilang::ULog::from_log(0.0)),
        Ty::Constructed(Ctor::Tropical, _) => Arg::Tropical(nilang::Tropical::new(0.0)),
        Ty::Slice(t) if matches!(**t, Ty::Constructed(Ctor::Tropical, _)) => {
            Arg::VecTropical(Vec::new())
        }
        Ty::Slice(t) if matches!(**t, Ty::Constructed(Ctor::Complex, _)) => {
            Arg::VecComplex(Vec::new())
        }
        Ty::Slice(t) if matches!(**t, Ty::Scalar(Scalar::I64)) => Arg::VecI64(Vec::new()),
        Ty::Slice(_) => Arg::VecF64(Vec::new()),
        Ty::Constructed(Ctor::Matrix, _) => Arg::Matrix((0, 0, Vec::new())),
        other => panic!("no variant for `{}`", other.display()),
    }
}

/// The counts of each outcome, one a line, after asserting that nothing
/// disagreed (the disagreements are the failure message).
fn summary(outcomes: &BTreeMap<String, usize>, failures: &[String]) -> String {
    let summary: String = outcomes
        .iter()
        .map(|(k, n)| format!("{k}: {n}\n"))
        .collect();
    assert!(
        failures.is_empty(),
        "{} disagreements:\n{}\n\n{summary}",
        failures.len(),
        failures.join("\n\n")
    );
    summary
}

/// `nil/` as one project with the standard library, as `build.rs`
/// compiles it.
fn nil_project(db: &RootDatabase) -> nilang_compiler::Project {
    let root = concat!(env!("CARGO_MANIFEST_DIR"), "/nil");
    let mut paths: Vec<_> = std::fs::read_dir(root)
        .unwrap()
        .map(|e| e.unwrap().path())
        .filter(|p| p.extension().is_some_and(|e| e == "nil"))
        .collect();
    paths.sort();
    let files: Vec<SourceFile> = paths
        .iter()
        .map(|p| {
            let name = format!("tests/nil/{}", p.file_name().unwrap().to_string_lossy());
            SourceFile::new(db, name, std::fs::read_to_string(p).unwrap())
        })
        .collect();
    db::project_with_std(db, files, Vec::new())
}

/// The parameters of `name`, the generated arguments as the interpreter's
/// values, and the same as the table's Rust arguments.
fn arguments(interp: &Interpreter<'_>, name: &str) -> (Vec<(String, Ty)>, Vec<Value>, Vec<Arg>) {
    let f = interp.function(name).expect("a function of the table");
    let params = interp.params(f);
    let values: Vec<Value> = params
        .iter()
        .enumerate()
        .map(|(k, (_, t))| argument(t, k))
        .collect();
    let args: Vec<Arg> = params
        .iter()
        .zip(&values)
        .map(|((_, t), v)| to_arg(v, &variant_of(t)))
        .collect();
    (params, values, args)
}

#[test]
fn the_interpreter_and_the_generated_code_agree_on_every_function_of_nil() {
    let db = RootDatabase::default();
    let project = nil_project(&db);
    let mut outcomes: BTreeMap<String, usize> = BTreeMap::new();
    let mut failures = Vec::new();
    for &(file, name, glue) in FUNCTIONS {
        let mut interp = Interpreter::new(&db, project);
        let (_, mut values, mut args) = arguments(&interp, name);
        let mut outcome = |what: &str| *outcomes.entry(what.to_string()).or_default() += 1;
        for (pass, direction) in [
            ("forward", Direction::Forward),
            ("uncall", Direction::Backward),
        ] {
            let rust = glue(&mut args, direction == Direction::Backward);
            let interpreted = interp.call(name, values.clone(), direction);
            if let Err(nilang_interp::Error::Run(e)) = &interpreted
                && e.check == nilang_interp::Check::Unsupported
            {
                outcome(&format!("{pass}: not run by the interpreter: {}", e.what));
                break;
            }
            match (rust, interpreted) {
                (Ok(()), Ok(out)) => {
                    let got: Vec<Arg> = out.iter().zip(&args).map(|(v, a)| to_arg(v, a)).collect();
                    if bits(&got) != bits(&args) {
                        failures.push(format!(
                            "{file} {name} ({pass}): the interpreter gives {got:?}, the generated code {args:?}"
                        ));
                        outcome(&format!("{pass}: different results"));
                        break;
                    }
                    outcome(&format!("{pass}: the same bits"));
                    values = out;
                }
                (Err(e), Err(i)) => {
                    let (e, i) = (e.to_string(), i.to_string());
                    if e == i {
                        outcome(&format!("{pass}: the same error"));
                    } else {
                        failures.push(format!(
                            "{file} {name} ({pass}): the interpreter stops with\n{i}\nthe generated code with\n{e}"
                        ));
                        outcome(&format!("{pass}: different errors"));
                    }
                    break;
                }
                (Ok(()), Err(i)) => {
                    failures.push(format!(
                        "{file} {name} ({pass}): only the interpreter stops:\n{i}"
                    ));
                    outcome(&format!("{pass}: only the interpreter stops"));
                    break;
                }
                (Err(e), Ok(_)) => {
                    failures.push(format!(
                        "{file} {name} ({pass}): only the generated code stops:\n{e}"
                    ));
                    outcome(&format!("{pass}: only the generated code stops"));
                    break;
                }
            }
        }
    }
    let summary = summary(&outcomes, &failures);
    expect_test::expect![[r#"
        forward: the same bits: 301
        forward: the same error: 32
        uncall: the same bits: 301
    "#]]
    .assert_eq(&summary);
}

/// The interpreter and the generated code on the random programs of
/// `build.rs` (the interpreter reads the same `random.nil`): at seeded
/// points, the same bits forwards and backwards, and gradients within
/// 1e-12 relative (the adjoints are sums the two may add in another
/// order), or the same failure.
#[test]
fn the_interpreter_and_the_generated_code_agree_on_the_random_programs() {
    use nilang_tests::{GRADIENTS, PROGRAMS, Rng};
    let text = std::fs::read_to_string(concat!(env!("OUT_DIR"), "/random/random.nil")).unwrap();
    let db = RootDatabase::default();
    let file = SourceFile::new(&db, "random.nil".into(), text);
    let project = db::project_with_std(&db, vec![file], Vec::new());
    let scalars = |s: &[f64; 4], v: &[f64]| -> Vec<Value> {
        let mut out: Vec<Value> = s.iter().map(|&x| Value::F64(x)).collect();
        out.push(Value::Array(Rc::new(
            v.iter().map(|&x| Value::F64(x)).collect(),
        )));
        out
    };
    let floats = |vs: &[Value]| -> Vec<f64> { vs.iter().flat_map(value_floats).collect() };
    let mut rng = Rng(0x51_7C_C1_B7_27_22_0A_95);
    let (mut runs, mut gradients, mut failures) = (0, 0, Vec::new());
    for ((name, call, uncall), (_, _, grad, _)) in PROGRAMS.iter().zip(GRADIENTS) {
        let mut interp = Interpreter::new(&db, project);
        for _ in 0..4 {
            let v = [rng.next(), rng.next(), rng.next(), rng.next()];
            let start = [rng.next(), rng.next(), rng.next(), rng.next()];
            let mut s = start;
            let rust = call(&mut s, &v);
            let got = interp.call(name, scalars(&start, &v), Direction::Forward);
            match (rust, got) {
                (Ok(()), Ok(out)) => {
                    let want: Vec<f64> = s.iter().chain(&v).copied().collect();
                    if floats(&out).iter().map(|x| x.to_bits()).ne(want.iter().map(|x| x.to_bits())) {
                        failures.push(format!("{name} at {start:?}, {v:?}: {:?} against {want:?}", floats(&out)));
                        continue;
                    }
                    let mut back = s;
                    uncall(&mut back, &v).unwrap_or_else(|e| panic!("{name} uncall: {e}"));
                    let again = interp.call(name, out, Direction::Backward).unwrap();
                    let want: Vec<f64> = back.iter().chain(&v).copied().collect();
                    if floats(&again).iter().map(|x| x.to_bits()).ne(want.iter().map(|x| x.to_bits())) {
                        failures.push(format!("uncall of {name}: {:?} against {want:?}", floats(&again)));
                    }
                    runs += 1;
                }
                (Err(e), Err(i)) if e.to_string() == i.to_string() => runs += 1,
                (rust, got) => failures.push(format!(
                    "{name} at {start:?}, {v:?}: the generated code gives {rust:?}, the interpreter {:?}",
                    got.map(|o| floats(&o)).map_err(|e| e.to_string())
                )),
            }
            // The gradient with every adjoint seeded 1.
            let (mut s, mut g, mut gv) = (start, [1.0; 4], [1.0; 4]);
            let rust = grad(&mut s, &mut g, &v, &mut gv);
            let seeds: Vec<(String, Value)> = ["a", "b", "c", "d"]
                .iter()
                .map(|p| (p.to_string(), Value::F64(1.0)))
                .chain([(
                    "v".to_string(),
                    Value::Array(Rc::new(vec![Value::F64(1.0); 4])),
                )])
                .collect();
            let got = interp.gradient(name, scalars(&start, &v), &seeds);
            match (rust, got) {
                (Ok(()), Ok((_, adjoints))) => {
                    let got = floats(&adjoints);
                    let want: Vec<f64> = g.iter().chain(&gv).copied().collect();
                    if !close(&got, &want) {
                        failures.push(format!("gradient of {name} at {start:?}, {v:?}: {got:?} against {want:?}"));
                    }
                    gradients += 1;
                }
                (Err(e), Err(i)) if e.to_string() == i.to_string() => gradients += 1,
                (rust, got) => failures.push(format!(
                    "gradient of {name} at {start:?}, {v:?}: the generated code gives {rust:?}, the interpreter {:?}",
                    got.map(|(_, a)| floats(&a)).map_err(|e| e.to_string())
                )),
            }
        }
    }
    assert!(
        failures.is_empty(),
        "{} disagreements:\n{}",
        failures.len(),
        failures.join("\n")
    );
    assert_eq!((runs, gradients), (400, 400));
}

/// The adjoint seed 1 in the shape of `like`.
fn ones_like(like: &Arg) -> Arg {
    match like {
        // A log number's adjoint is its logarithm's, a float.
        Arg::F64(_) | Arg::ULogF64(_) => Arg::F64(1.0),
        Arg::Complex(_) => Arg::Complex(Complex::new(1.0, 0.0)),
        Arg::VecF64(xs) => Arg::VecF64(vec![1.0; xs.len()]),
        Arg::VecComplex(zs) => Arg::VecComplex(vec![Complex::new(1.0, 0.0); zs.len()]),
        Arg::Matrix((r, c, xs)) => Arg::Matrix((*r, *c, vec![1.0; xs.len()])),
        other => panic!("no adjoint for {other:?}"),
    }
}

/// The floats of arguments, in order.
fn all_floats(args: &[Arg]) -> Vec<f64> {
    args.iter()
        .flat_map(|a| match a {
            Arg::F64(x) => vec![*x],
            Arg::Complex(z) => vec![z.re, z.im],
            Arg::VecF64(xs) | Arg::Matrix((_, _, xs)) => xs.clone(),
            Arg::VecComplex(zs) => zs.iter().flat_map(|z| [z.re, z.im]).collect(),
            other => panic!("not a float argument: {other:?}"),
        })
        .collect()
}

#[test]
fn the_interpreter_and_the_generated_code_agree_on_the_gradients_of_nil() {
    use nilang_tests::differential::GRADIENTS;
    let db = RootDatabase::default();
    let project = nil_project(&db);
    let mut outcomes: BTreeMap<String, usize> = BTreeMap::new();
    let mut failures = Vec::new();
    for &(file, name, glue, with_bars) in GRADIENTS {
        let mut interp = Interpreter::new(&db, project);
        let (params, values, mut args) = arguments(&interp, name);
        // Every adjoint the gradient program takes seeded 1, and the same
        // seeds by parameter name for the interpreter.
        let mut bars: Vec<Arg> = with_bars.iter().map(|&k| ones_like(&args[k])).collect();
        let seeds: Vec<(String, Value)> = with_bars
            .iter()
            .zip(&bars)
            .map(|(&k, bar)| (params[k].0.clone(), to_value(bar)))
            .collect();
        let mut outcome = |what: &str| *outcomes.entry(what.to_string()).or_default() += 1;
        let rust = glue(&mut args, &mut bars);
        let interpreted = interp.gradient(name, values, &seeds);
        match (rust, interpreted) {
            // What the interpreter does not run: a construct it lacks, or
            // an adjoint rule it has not (its own words, "the interpreter
            // has no adjoint rule for ...").
            (_, Err(nilang_interp::Error::Run(e)))
                if e.check == nilang_interp::Check::Unsupported
                    || (e.check == nilang_interp::Check::NotDifferentiable
                        && e.what.starts_with("the interpreter")) =>
            {
                if std::env::var_os("INTERP_DETAIL").is_some() {
                    eprintln!("{file} {name}: {}", e.what);
                }
                outcome(&format!("not run by the interpreter: {}", e.what));
            }
            (Ok(()), Ok((_, adjoints))) => {
                let got: Vec<f64> = with_bars
                    .iter()
                    .flat_map(|&k| value_floats(&adjoints[k]))
                    .collect();
                let want = all_floats(&bars);
                if close(&got, &want) {
                    outcome("the same gradient within 1e-12");
                } else {
                    failures.push(format!(
                        "{file} {name}: the interpreter gives {got:?}, the generated code {want:?}"
                    ));
                    outcome("different gradients");
                }
            }
            (Err(e), Err(i)) if e.to_string() == i.to_string() => outcome("the same error"),
            // What the Rust backend does not differentiate (its gradient
            // program says so when run): the interpreter's gradient is then
            // checked against central differences (`interp/tests/corpus.rs`).
            (Err(e), Ok(_))
                if e.check == nilang::Check::NotDifferentiable
                    && e.to_string().contains("not supported by the Rust backend") =>
            {
                outcome(&format!(
                    "not differentiated by the Rust backend: {}",
                    e.to_string()
                        .rsplit("cannot differentiate: ")
                        .next()
                        .unwrap_or_default()
                ));
            }
            (rust, interpreted) => {
                failures.push(format!(
                    "{file} {name}: the generated code gives {:?}, the interpreter {:?}",
                    rust.map_err(|e| e.to_string()),
                    interpreted.map(|_| ()).map_err(|e| e.to_string())
                ));
                outcome("different outcomes");
            }
        }
    }
    let summary = summary(&outcomes, &failures);
    expect_test::expect![[r#"
        the same error: 31
        the same gradient within 1e-12: 287
    "#]]
    .assert_eq(&summary);
}

/// An all-`f32` gradient through rotations and a Hadamard gate: the
/// interpreter's adjoints are the generated code's to the bit, the rows of
/// the instructions' transposed Jacobians taken in `f32` as it takes them.
/// (The gradients above cover `f64` programs; the harness drives no `f32`
/// one.)
#[test]
fn an_f32_gradient_through_rotations_is_the_generated_one_to_the_bit() {
    use nilang_tests::typed_once as t;
    let db = RootDatabase::default();
    let project = nil_project(&db);
    for (a, b, angle) in [
        (0.6f32, -1.3f32, 0.7f32),
        (2.5, 0.25, -1.1),
        (-0.8, 0.9, 3.0),
    ] {
        let (mut x, mut y) = (a, b);
        let (mut a_bar, mut b_bar, mut t_bar) = (1.0f32, 1.0f32, 1.0f32);
        t::t41_f32_rotations_grad(&mut x, &mut a_bar, &mut y, &mut b_bar, angle, &mut t_bar)
            .unwrap();
        let mut interp = Interpreter::new(&db, project);
        let seeds: Vec<(String, Value)> = ["a!", "b!", "t"]
            .iter()
            .map(|n| (n.to_string(), Value::F32(1.0)))
            .collect();
        let (_, adjoints) = interp
            .gradient(
                "t41_f32_rotations",
                vec![Value::F32(a), Value::F32(b), Value::F32(angle)],
                &seeds,
            )
            .unwrap();
        let want = [a_bar, b_bar, t_bar].map(Value::F32);
        assert_eq!(adjoints, want, "at ({a}, {b}, {angle})");
    }
}

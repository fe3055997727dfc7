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
        (like, v) => panic!("the interpreter gave {v} for an argument like {like:?}"),
    }
}

/// The Rust argument for a parameter the table reads as `variant`.
fn from_value(v: &Value, variant: &Arg) -> Arg {
    to_arg(v, variant)
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
        Ty::Slice(t) if matches!(**t, Ty::Scalar(Scalar::I64)) => Arg::VecI64(Vec::new()),
        Ty::Slice(_) => Arg::VecF64(Vec::new()),
        Ty::Constructed(Ctor::Matrix, _) => Arg::Matrix((0, 0, Vec::new())),
        other => panic!("no variant for `{}`", other.display()),
    }
}

#[test]
fn the_interpreter_and_the_generated_code_agree_on_every_function_of_nil() {
    let root = concat!(env!("CARGO_MANIFEST_DIR"), "/nil");
    let db = RootDatabase::default();
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
            SourceFile::new(&db, name, std::fs::read_to_string(p).unwrap())
        })
        .collect();
    let project = db::project_with_std(&db, files, Vec::new());
    let mut outcomes: BTreeMap<String, usize> = BTreeMap::new();
    let mut failures = Vec::new();
    for &(file, name, glue) in FUNCTIONS {
        let mut interp = Interpreter::new(&db, project);
        let f = interp.function(name).expect("a function of the table");
        let params = interp.params(f);
        let values: Vec<Value> = params
            .iter()
            .enumerate()
            .map(|(k, (_, t))| argument(t, k))
            .collect();
        let mut args: Vec<Arg> = params
            .iter()
            .zip(&values)
            .map(|((_, t), v)| from_value(v, &variant_of(t)))
            .collect();
        let mut outcome = |what: &str| *outcomes.entry(what.to_string()).or_default() += 1;
        let mut values = values;
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
    expect_test::expect![[r#"
        forward: not run by the interpreter: a derivative call `(∂potential)(...)`: 2
        forward: not run by the interpreter: a derivative call `(∂ripple!)(...)`: 1
        forward: not run by the interpreter: a derivative call `(∂square!)(...)`: 1
        forward: not run by the interpreter: a derivative call `~(∇potential)(...)`: 3
        forward: not run by the interpreter: a derivative call `~(∇ripple!)(...)`: 1
        forward: not run by the interpreter: a derivative call `~(∇std.linalg.i_norm2)(...)`: 1
        forward: not run by the interpreter: a derivative call `~(∇tape_sum)(...)`: 1
        forward: not run by the interpreter: an instruction whose target is not a place: 2
        forward: the same bits: 209
        forward: the same error: 25
        uncall: not run by the interpreter: a derivative call `~(∇tape_sum)(...)`: 1
        uncall: the same bits: 208
    "#]]
    .assert_eq(&summary);
}

//! Every function of the repository's example and test programs, run by
//! the interpreter on generated arguments: where the forward run passes
//! its checks, the uncall must pass them too and give every argument back
//! (the language's promise). What the interpreter does not run yet is
//! counted, by construct, and the counts are a snapshot, so that coverage
//! can only be changed on purpose.

use nilang_analysis::db::{self, RootDatabase, SourceFile};
use nilang_analysis::ty::{Ctor, Scalar, Ty};
use nilang_interp::{Check, Direction, Error, Interpreter, Value};
use std::collections::BTreeMap;
use std::rc::Rc;

/// Arguments for parameters of these types, or `None` when a type is not
/// generated here (functions, structs, sparse matrices).
fn argument(ty: &Ty, k: usize) -> Option<Value> {
    // Away from integers, where `mod` and rounding are not smooth.
    let x = 0.6 + 0.37 * k as f64;
    Some(match ty {
        Ty::Scalar(Scalar::F64) | Ty::Generic(_) => Value::F64(x),
        Ty::Scalar(Scalar::F32) => Value::F32(x as f32),
        Ty::Scalar(Scalar::Bool) => Value::Bool(false),
        Ty::Scalar(s) => Value::Int(2 + k as i64, *s),
        Ty::Constructed(Ctor::Complex, _) => Value::Complex(x, 0.25),
        Ty::Constructed(Ctor::Fixed43 | Ctor::ULogarithmic | Ctor::Tropical, _) => {
            nilang_interp::coerce(Value::F64(x), ty).ok()?
        }
        Ty::Slice(t) => Value::Array(Rc::new(
            (0..4)
                .map(|i| argument(t, k + i))
                .collect::<Option<Vec<_>>>()?,
        )),
        Ty::Constructed(Ctor::Matrix, args) => {
            let t = args.first()?;
            Value::Matrix {
                rows: 3,
                cols: 3,
                data: Rc::new(
                    (0..9)
                        .map(|i| argument(t, k + i))
                        .collect::<Option<Vec<_>>>()?,
                ),
            }
        }
        _ => return None,
    })
}

#[test]
fn every_function_that_runs_comes_back() {
    let root = concat!(env!("CARGO_MANIFEST_DIR"), "/..");
    let mut outcomes: BTreeMap<String, usize> = BTreeMap::new();
    let mut failures = Vec::new();
    for dir in ["examples", "tests/nil"] {
        let mut paths: Vec<_> = std::fs::read_dir(format!("{root}/{dir}"))
            .unwrap()
            .map(|e| e.unwrap().path())
            .filter(|p| p.extension().is_some_and(|e| e == "nil"))
            .collect();
        paths.sort();
        for path in paths {
            let db = RootDatabase::default();
            let shown = format!("{dir}/{}", path.file_name().unwrap().to_string_lossy());
            let text = std::fs::read_to_string(&path).unwrap();
            // Each file with its folder, as `nilc run` loads it.
            let mut files = vec![SourceFile::new(&db, shown.clone(), text)];
            for other in std::fs::read_dir(path.parent().unwrap()).unwrap() {
                let other = other.unwrap().path();
                if other != path && other.extension().is_some_and(|e| e == "nil") {
                    let name = format!("{dir}/{}", other.file_name().unwrap().to_string_lossy());
                    files.push(SourceFile::new(
                        &db,
                        name,
                        std::fs::read_to_string(&other).unwrap(),
                    ));
                }
            }
            let project = db::project_with_std(&db, files.clone(), Vec::new());
            let has_errors = db::file_diagnostics(&db, project, files[0])
                .iter()
                .any(|d| d.severity == nilang_analysis::Severity::Error);
            if has_errors {
                *outcomes
                    .entry("file with errors (skipped)".into())
                    .or_default() += 1;
                continue;
            }
            for &f in db::file_functions(&db, project, files[0]) {
                let name = f.name(&db).clone();
                let mut interp = Interpreter::new(&db, project);
                let params = interp.params(f);
                let Some(args) = params
                    .iter()
                    .enumerate()
                    .map(|(k, (_, t))| argument(t, k))
                    .collect::<Option<Vec<_>>>()
                else {
                    *outcomes
                        .entry("parameters not generated".into())
                        .or_default() += 1;
                    continue;
                };
                let forward = interp.call(&name, args.clone(), Direction::Forward);
                let mut plain = Plain {
                    interp: Interpreter::new(&db, project),
                    name: &name,
                    shown: &shown,
                };
                plain.interp.lowered = false;
                plain.agrees(&args, Direction::Forward, &forward, &mut failures);
                let out = match forward {
                    Ok(out) => out,
                    Err(Error::Run(e)) if e.check == Check::Unsupported => {
                        if std::env::var_os("CORPUS_DETAIL").is_some() {
                            eprintln!("{shown}: {name}: {e}");
                        }
                        // By construct: "a derivative call", not which.
                        let construct = e.what.split(" `").next().unwrap_or(&e.what);
                        *outcomes.entry(format!("not run: {construct}")).or_default() += 1;
                        continue;
                    }
                    Err(Error::Run(e)) => {
                        if std::env::var_os("CORPUS_DETAIL").is_some() {
                            eprintln!("{shown}: {name}: {e}");
                        }
                        *outcomes
                            .entry(format!("stopped by a check: {}", e.check.describe()))
                            .or_default() += 1;
                        continue;
                    }
                    Err(Error::Usage(m)) => {
                        failures.push(format!("{shown}: {name}: {m}"));
                        continue;
                    }
                };
                let backward = interp.call(&name, out.clone(), Direction::Backward);
                plain.agrees(&out, Direction::Backward, &backward, &mut failures);
                match backward {
                    Ok(back) => {
                        let scale = |v: &Value| v.as_f64().map_or(1.0, |x| x.abs().max(1.0));
                        let same = args
                            .iter()
                            .zip(&back)
                            .all(|(a, b)| nilang_interp::same(a, b, 1e-9 * scale(a).max(1e3)));
                        if same {
                            *outcomes.entry("ran forwards and back".into()).or_default() += 1;
                            gradients(
                                &mut interp,
                                &mut plain,
                                &name,
                                &params,
                                &args,
                                &shown,
                                &mut outcomes,
                                &mut failures,
                            );
                        } else {
                            failures.push(format!(
                                "{shown}: {name}: given {}, forwards {}, back {}",
                                list(&args),
                                list(&out),
                                list(&back)
                            ));
                        }
                    }
                    Err(Error::Run(e)) if e.check == Check::Unsupported => {
                        let construct = e.what.split(" `").next().unwrap_or(&e.what);
                        *outcomes
                            .entry(format!("ran forwards, not run backwards: {construct}"))
                            .or_default() += 1;
                    }
                    Err(e) => failures.push(format!(
                        "{shown}: {name}: forwards gave {}, but the uncall stopped: {e}",
                        list(&out)
                    )),
                }
            }
        }
    }
    let summary: String = outcomes
        .iter()
        .map(|(k, n)| format!("{k}: {n}\n"))
        .collect();
    assert!(failures.is_empty(), "{}", failures.join("\n"));
    // What runs and what stops. Parameters not generated: functions,
    // structs, sparse matrices and stacks as arguments.
    // The checks that stop a run are the programs' own on these arguments
    // (the tests of failures among them).
    expect_test::expect![[r#"
        file with errors (skipped): 1
        gradient agrees with central differences: 332
        gradient: no float parameter: 19
        gradient: not differentiable: the reverse pass of: 1
        parameters not generated: 45
        ran forwards and back: 352
        stopped by a check: `while` postcondition was already true on entry: 2
        stopped by a check: assertion failed: 3
        stopped by a check: deallocation check failed: 9
        stopped by a check: fixed-point overflow: 1
        stopped by a check: index out of range: 29
        stopped by a check: lossy typecast: 3
        stopped by a check: shape check failed: 5
        stopped by a check: stack check failed: 4
    "#]]
    .assert_eq(&summary);
}

/// A run of one function by an interpreter without number code
/// (`Interpreter::lowered` off): the general path, the oracle of the
/// number code, which must give the same values to the bit and the same
/// errors. The same interpreter runs the function forwards, then back
/// (whose `@tape` loops read what the forward run recorded).
struct Plain<'a> {
    interp: Interpreter<'a>,
    name: &'a str,
    shown: &'a str,
}

impl Plain<'_> {
    fn agrees(
        &mut self,
        args: &[Value],
        dir: Direction,
        lowered: &Result<Vec<Value>, Error>,
        failures: &mut Vec<String>,
    ) {
        let plain = self.interp.call(self.name, args.to_vec(), dir);
        self.same(&format!("{dir:?}"), &plain, lowered, failures);
    }

    /// Whether a run without number code (`plain`) gave what the run with
    /// it gave, to the bit (`Debug` writes a float's shortest round trip).
    fn same<T: std::fmt::Debug>(
        &self,
        run: &str,
        plain: &Result<T, Error>,
        lowered: &Result<T, Error>,
        failures: &mut Vec<String>,
    ) {
        let show = |r: &Result<T, Error>| match r {
            Ok(values) => format!("{values:?}"),
            Err(e) => e.to_string(),
        };
        if show(plain) != show(lowered) {
            failures.push(format!(
                "{}: {} ({run}) with number code: {}, without: {}",
                self.shown,
                self.name,
                show(lowered),
                show(plain)
            ));
        }
    }
}

/// The gradient of `name` seeded on every float and complex parameter,
/// against central differences.
#[allow(clippy::too_many_arguments)]
fn gradients(
    interp: &mut Interpreter<'_>,
    plain: &mut Plain<'_>,
    name: &str,
    params: &[(String, Ty)],
    args: &[Value],
    shown: &str,
    outcomes: &mut BTreeMap<String, usize>,
    failures: &mut Vec<String>,
) {
    // A complex parameter is seeded 1 + 0.5i: the loss then moves with both
    // of its parts, which central differences take one at a time.
    let seeds: Vec<(String, Value)> = params
        .iter()
        .zip(args)
        .filter(|(_, a)| a.has_adjoint())
        .map(|((p, _), a)| {
            let seed = match a {
                Value::Complex(..) => Value::Complex(1.0, 0.5),
                _ => Value::F64(1.0),
            };
            (p.clone(), seed)
        })
        .collect();
    if seeds.is_empty() {
        *outcomes
            .entry("gradient: no float parameter".into())
            .or_default() += 1;
        return;
    }
    let gradient = interp.gradient(name, args.to_vec(), &seeds);
    let without = plain.interp.gradient(name, args.to_vec(), &seeds);
    plain.same("gradient", &without, &gradient, failures);
    let grads = match gradient {
        Ok((_, grads)) => grads,
        Err(Error::Run(e)) => {
            let construct = e.what.split(" `").next().unwrap_or(&e.what);
            if std::env::var_os("CORPUS_DETAIL").is_some() {
                eprintln!("{shown}: {name}: gradient: {e}");
            }
            *outcomes
                .entry(format!("gradient: {}: {construct}", e.check.describe()))
                .or_default() += 1;
            return;
        }
        Err(Error::Usage(m)) => {
            failures.push(format!("{shown}: {name}: gradient: {m}"));
            return;
        }
    };
    match interp.check_grad(name, args, &seeds, &grads) {
        Ok(differs) if differs.is_empty() => {
            *outcomes
                .entry("gradient agrees with central differences".into())
                .or_default() += 1;
        }
        Ok(differs) => {
            if std::env::var_os("CORPUS_DETAIL").is_some() {
                eprintln!("{shown}: {name}: gradient differs: {}", differs.join("; "));
            }
            *outcomes
                .entry("gradient differs from central differences".into())
                .or_default() += 1;
        }
        Err(e) => {
            *outcomes
                .entry(format!(
                    "gradient: central differences stopped: {}",
                    e.to_string().split(':').nth(3).unwrap_or("").trim()
                ))
                .or_default() += 1;
        }
    }
}

fn list(vs: &[Value]) -> String {
    vs.iter()
        .map(|v| v.to_string())
        .collect::<Vec<_>>()
        .join(", ")
}

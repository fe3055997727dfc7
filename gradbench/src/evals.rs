//! The evals' functions: each turns its JSON input into the program's
//! values (timed as `prepare`), runs the `.nil` program or its gradient
//! program as often as asked (each run timed as `evaluate`), and turns the
//! result into the JSON output GradBench expects. No derivative here is
//! written by hand: each is a `_grad` program generated from the `.nil`
//! function.

use std::time::Instant;

use serde_json::{Value, json};

use crate::protocol::{Runs, Timing};
use crate::{hello, llsq, lse};

/// The modules this tool implements.
pub const MODULES: &[&str] = &["hello", "llsq", "lse"];

/// Evaluates `module`'s `function` at `input`.
pub fn evaluate(
    module: &str,
    function: &str,
    input: &Value,
    timings: &mut Vec<Timing>,
) -> Result<Value, String> {
    let runs = Runs::of(input)?;
    match (module, function) {
        ("hello", "square" | "double") => {
            let x = prepare(timings, || number(input, "the input"))?;
            let value = runs.repeat(timings, || {
                let mut y = 0.0;
                if function == "square" {
                    hello::square(&mut y, x).map_err(|e| e.to_string())?;
                    Ok(y)
                } else {
                    let (mut y_bar, mut x_bar) = (1.0, 0.0);
                    hello::square_grad(&mut y, &mut y_bar, x, &mut x_bar)
                        .map_err(|e| e.to_string())?;
                    Ok(x_bar)
                }
            })?;
            Ok(json!(value))
        }
        ("lse", "primal" | "gradient") => {
            let x = prepare(timings, || numbers(input, "x"))?;
            if x.is_empty() {
                return Err("`x` is empty: LogSumExp needs at least one value".into());
            }
            let mut runmax = vec![0.0; x.len()];
            let mut runmax_bar = vec![0.0; x.len()];
            let mut x_bar = vec![0.0; x.len()];
            if function == "primal" {
                let out = runs.repeat(timings, || {
                    let mut out = 0.0;
                    lse::lse(&mut out, &x, &mut runmax).map_err(|e| e.to_string())?;
                    Ok(out)
                })?;
                Ok(json!(out))
            } else {
                runs.repeat(timings, || {
                    let (mut out, mut out_bar) = (0.0, 1.0);
                    x_bar.fill(0.0);
                    lse::lse_grad(
                        &mut out,
                        &mut out_bar,
                        &x,
                        &mut x_bar,
                        &mut runmax,
                        &mut runmax_bar,
                    )
                    .map_err(|e| e.to_string())
                })?;
                Ok(json!(x_bar))
            }
        }
        ("llsq", "primal" | "gradient") => {
            let (x, n) = prepare(timings, || {
                let n = input
                    .get("n")
                    .and_then(Value::as_i64)
                    .filter(|&n| n >= 0)
                    .ok_or("`n` must be a whole number of points")?;
                Ok((numbers(input, "x")?, n))
            })?;
            if function == "primal" {
                let y = runs.repeat(timings, || {
                    let mut y = 0.0;
                    llsq::llsq(&mut y, &x, n).map_err(|e| e.to_string())?;
                    Ok(y)
                })?;
                Ok(json!(y))
            } else {
                let mut x_bar = vec![0.0; x.len()];
                runs.repeat(timings, || {
                    let (mut y, mut y_bar) = (0.0, 1.0);
                    x_bar.fill(0.0);
                    llsq::llsq_grad(&mut y, &mut y_bar, &x, &mut x_bar, n)
                        .map_err(|e| e.to_string())
                })?;
                Ok(json!(x_bar))
            }
        }
        _ if MODULES.contains(&module) => Err(format!(
            "the module `{module}` has no function `{function}`"
        )),
        _ => Err(format!(
            "nilang has no implementation of the module `{module}`"
        )),
    }
}

/// Runs `f`, the conversion of the input, and times it as `prepare`.
fn prepare<T>(
    timings: &mut Vec<Timing>,
    f: impl FnOnce() -> Result<T, String>,
) -> Result<T, String> {
    let start = Instant::now();
    let value = f()?;
    timings.push(Timing {
        name: "prepare",
        duration: start.elapsed(),
    });
    Ok(value)
}

fn number(value: &Value, what: &str) -> Result<f64, String> {
    value
        .as_f64()
        .ok_or_else(|| format!("{what} must be a number, not {value}"))
}

fn numbers(input: &Value, field: &str) -> Result<Vec<f64>, String> {
    let Some(Value::Array(items)) = input.get(field) else {
        return Err(format!("the input needs an array of numbers `{field}`"));
    };
    items
        .iter()
        .map(|v| number(v, &format!("each element of `{field}`")))
        .collect()
}

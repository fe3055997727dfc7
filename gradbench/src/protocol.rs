//! GradBench's protocol (its CONTRIBUTING.md, "Protocol"): one JSON object a
//! line in each direction. The eval sends `start`, `define`, `evaluate` and
//! `analysis` messages, each with an `id`; the tool answers each with that
//! `id`, and for `define` and `evaluate` with `success` (and an `output`
//! with per-run `timings`, or an `error`).
//!
//! [`Tool::respond`] is the whole protocol on values: no IO, so the binary
//! only moves lines between it and the pipes. The tool answers `start` with
//! its name and, as `config`, the build of the programs it runs.

use std::time::{Duration, Instant};

use serde_json::{Value, json};

use crate::evals::{self, Build};

/// One timing of a response: `evaluate` for each run of the function,
/// `prepare` for turning the JSON input into the program's values.
#[derive(Clone, Debug, PartialEq)]
pub struct Timing {
    pub name: &'static str,
    pub duration: Duration,
}

/// How often to run the function: at least `min_runs` times, and until the
/// runs together took `min_seconds` (GradBench's `Runs`).
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Runs {
    pub min_runs: u64,
    pub min_seconds: f64,
}

impl Runs {
    /// The `min_runs` and `min_seconds` fields of an input; one run where
    /// there are none (the `hello` eval).
    pub fn of(input: &Value) -> Result<Runs, String> {
        let min_runs = match input.get("min_runs") {
            None => 1,
            Some(v) => v
                .as_u64()
                .ok_or_else(|| format!("`min_runs` must be a whole number, not {v}"))?,
        };
        let min_seconds = match input.get("min_seconds") {
            None => 0.0,
            Some(v) => v
                .as_f64()
                .filter(|s| s.is_finite() && *s >= 0.0)
                .ok_or_else(|| format!("`min_seconds` must be a number of seconds, not {v}"))?,
        };
        Ok(Runs {
            min_runs: min_runs.max(1),
            min_seconds,
        })
    }

    /// Runs `f` as often as asked, timing each run alone.
    pub fn repeat(
        self,
        timings: &mut Vec<Timing>,
        mut f: impl FnMut() -> nilang_runtime::Result,
    ) -> nilang_runtime::Result {
        let mut total = Duration::ZERO;
        let mut runs = 0;
        loop {
            let start = Instant::now();
            f()?;
            let duration = start.elapsed();
            timings.push(Timing {
                name: "evaluate",
                duration,
            });
            total += duration;
            runs += 1;
            if runs >= self.min_runs && total.as_secs_f64() >= self.min_seconds {
                return Ok(());
            }
        }
    }
}

/// A line that is not a message: not JSON, not an object, or without a
/// numeric `id`. It cannot be answered, since answers carry the `id`.
#[derive(Debug, PartialEq)]
pub struct Malformed(pub String);

/// The tool's state: the build its programs run in and the modules the
/// eval defined.
#[derive(Default)]
pub struct Tool {
    build: Build,
    defined: Vec<String>,
}

impl Tool {
    /// A tool that runs the checked programs.
    pub fn new() -> Tool {
        Tool::default()
    }

    /// A tool that runs the programs of `build`.
    pub fn with_build(build: Build) -> Tool {
        Tool {
            build,
            defined: Vec::new(),
        }
    }

    /// The response to one line of the eval, or why the line is no message.
    pub fn respond(&mut self, line: &str) -> Result<Value, Malformed> {
        let message: Value = serde_json::from_str(line)
            .map_err(|e| Malformed(format!("not JSON ({e}): {}", shorten(line))))?;
        let Some(id) = message.get("id").filter(|id| id.is_number()).cloned() else {
            return Err(Malformed(format!(
                "a message needs a numeric \"id\": {}",
                shorten(line)
            )));
        };
        let kind = message.get("kind").and_then(Value::as_str).unwrap_or("");
        Ok(match kind {
            "start" => json!({
                "id": id,
                "tool": "nilang",
                "config": { "build": self.build.name() },
            }),
            "define" => self.define(id, &message),
            "evaluate" => self.evaluate(id, &message),
            // `analysis` and any other kind: acknowledged.
            _ => json!({ "id": id }),
        })
    }

    fn define(&mut self, id: Value, message: &Value) -> Value {
        let Some(module) = message.get("module").and_then(Value::as_str) else {
            return failure(id, "a `define` message needs a \"module\" name");
        };
        if let Err(error) = evals::module(module) {
            return failure(id, &error);
        }
        if !self.defined.iter().any(|m| m == module) {
            self.defined.push(module.to_string());
        }
        json!({ "id": id, "success": true })
    }

    fn evaluate(&mut self, id: Value, message: &Value) -> Value {
        let field = |name: &str| message.get(name).and_then(Value::as_str);
        let (Some(module), Some(function)) = (field("module"), field("function")) else {
            return failure(
                id,
                "an `evaluate` message needs a \"module\" and a \"function\"",
            );
        };
        if !self.defined.iter().any(|m| m == module) {
            return failure(id, &format!("the module `{module}` was not defined first"));
        }
        let input = message.get("input").unwrap_or(&Value::Null);
        let mut timings = Vec::new();
        match evaluate(module, function, input, self.build, &mut timings) {
            Ok(output) => json!({
                "id": id,
                "success": true,
                "output": output,
                "timings": timings.iter().map(|t| json!({
                    "name": t.name,
                    "nanoseconds": t.duration.as_nanos() as u64,
                })).collect::<Vec<_>>(),
            }),
            Err(error) => failure(id, &error),
        }
    }
}

/// Prepares the input (timed as `prepare`), runs the function in `build` as
/// often as asked (each run timed as `evaluate`) and returns its output.
fn evaluate(
    module: &str,
    function: &str,
    input: &Value,
    build: Build,
    timings: &mut Vec<Timing>,
) -> Result<Value, String> {
    let module = evals::module(module)?;
    let which = module.which(function)?;
    let runs = Runs::of(input)?;
    let start = Instant::now();
    let mut eval = (module.prepare)(input)?;
    timings.push(Timing {
        name: "prepare",
        duration: start.elapsed(),
    });
    runs.repeat(timings, || eval.run(which, build))
        .map_err(|e| e.to_string())?;
    Ok(eval.output(which))
}

fn failure(id: Value, error: &str) -> Value {
    json!({ "id": id, "success": false, "error": error })
}

fn shorten(line: &str) -> String {
    let mut out: String = line.chars().take(80).collect();
    if line.chars().count() > 80 {
        out.push('…');
    }
    out
}

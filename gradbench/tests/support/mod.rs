//! Driving the tool over pipes, as GradBench's intermediary does.

use std::io::Write;
use std::process::{Command, Stdio};

use nilang_gradbench::evals::{self, Build};
use serde_json::Value;

/// Sends `messages` (one a line) to a fresh `nilang-gradbench
/// --multithreaded` and returns the responses, whether it exited with
/// success, and what it wrote to stderr.
#[allow(dead_code)] // tests/ht.rs always passes arguments
pub fn session(messages: &[String]) -> (Vec<Value>, bool, String) {
    session_with(&[], &[], messages)
}

/// [`session`] with more arguments and environment variables.
pub fn session_with(
    args: &[&str],
    env: &[(&str, &str)],
    messages: &[String],
) -> (Vec<Value>, bool, String) {
    let mut child = Command::new(env!("CARGO_BIN_EXE_nilang-gradbench"))
        .arg("--multithreaded")
        .args(args)
        .env_remove("NILANG_GRADBENCH_BUILD")
        .envs(env.iter().copied())
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .expect("the tool starts");
    {
        let mut stdin = child.stdin.take().expect("stdin");
        for m in messages {
            // A tool that stopped early (a bad flag) reads no more.
            if writeln!(stdin, "{m}").is_err() {
                break;
            }
        }
    }
    let out = child.wait_with_output().expect("the tool ends");
    let responses = String::from_utf8_lossy(&out.stdout)
        .lines()
        .map(|l| serde_json::from_str(l).expect("each response is one JSON object"))
        .collect();
    (
        responses,
        out.status.success(),
        String::from_utf8_lossy(&out.stderr).into_owned(),
    )
}

/// `module`'s `function` at `then`, from an eval prepared for `first` (and
/// run once on it) whose input was then replaced by `then`, in each build
/// (the two must agree). Anything input-dependent made by `prepare`, or
/// kept from a run, would answer for `first`.
pub fn replaced(module: &str, function: &str, first: &Value, then: &Value) -> Value {
    let module = evals::module(module).unwrap();
    let which = module.which(function).unwrap();
    let outputs: Vec<Value> = [Build::Checked, Build::Unchecked]
        .into_iter()
        .map(|build| {
            let mut eval = (module.prepare)(first).expect("a valid input");
            eval.run(which, build).expect("a run");
            eval.replace_input(then).expect("the same counts");
            eval.run(which, build).expect("a run");
            eval.output(which)
        })
        .collect();
    assert_builds_agree(&outputs[0], &outputs[1]);
    outputs[0].clone()
}

/// The checked and the unchecked build's answers agree: the same shape,
/// and every number within 1e-12 of the other (relative, or absolute below
/// 1). They may differ in the last bits: where the checked build
/// uncomputes a scratch ancilla, leaving rounding errors in it that the
/// next use starts from, the unchecked build sets it back to zero.
pub fn assert_builds_agree(checked: &Value, unchecked: &Value) {
    fn agree(a: &Value, b: &Value) -> bool {
        match (a, b) {
            (Value::Number(x), Value::Number(y)) => {
                let (x, y) = (x.as_f64().unwrap(), y.as_f64().unwrap());
                (x - y).abs() <= 1e-12 * x.abs().max(y.abs()).max(1.0)
            }
            (Value::Array(xs), Value::Array(ys)) => {
                xs.len() == ys.len() && xs.iter().zip(ys).all(|(x, y)| agree(x, y))
            }
            (Value::Object(xs), Value::Object(ys)) => {
                xs.len() == ys.len()
                    && xs
                        .iter()
                        .all(|(k, x)| ys.get(k).is_some_and(|y| agree(x, y)))
            }
            _ => a == b,
        }
    }
    assert!(
        agree(checked, unchecked),
        "checked and unchecked differ:\n{checked}\n{unchecked}"
    );
}

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
    assert_eq!(outputs[0], outputs[1], "checked and unchecked differ");
    outputs[0].clone()
}

//! `nilang-gradbench`: a GradBench tool speaking the protocol over stdin and
//! stdout. Run it under GradBench's CLI with `--tool "nilang-gradbench"`.

use std::io::{BufRead, Write};
use std::process::ExitCode;

use nilang_gradbench::protocol::Tool;

const USAGE: &str = "usage: nilang-gradbench [--multithreaded]\n\nA GradBench tool: reads the eval's messages, one JSON object a line, on\nstandard input and answers each on standard output. `--multithreaded` is\naccepted; the programs run on one thread.";

fn main() -> ExitCode {
    for arg in std::env::args().skip(1) {
        match arg.as_str() {
            "--multithreaded" => {}
            "-h" | "--help" => {
                println!("{USAGE}");
                return ExitCode::SUCCESS;
            }
            other => {
                eprintln!("nilang-gradbench: unknown argument `{other}`\n\n{USAGE}");
                return ExitCode::from(2);
            }
        }
    }
    let mut tool = Tool::new();
    let stdin = std::io::stdin();
    let mut stdout = std::io::stdout().lock();
    for line in stdin.lock().lines() {
        let line = match line {
            Ok(line) => line,
            Err(e) => {
                eprintln!("nilang-gradbench: cannot read the eval's messages: {e}");
                return ExitCode::FAILURE;
            }
        };
        if line.trim().is_empty() {
            continue;
        }
        match tool.respond(&line) {
            Ok(response) => {
                if writeln!(stdout, "{response}")
                    .and_then(|()| stdout.flush())
                    .is_err()
                {
                    // The eval went away; nothing is left to answer.
                    return ExitCode::SUCCESS;
                }
            }
            Err(malformed) => {
                eprintln!("nilang-gradbench: a malformed message: {}", malformed.0);
                return ExitCode::FAILURE;
            }
        }
    }
    ExitCode::SUCCESS
}

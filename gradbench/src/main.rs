//! `nilang-gradbench`: a GradBench tool speaking the protocol over stdin and
//! stdout. Run it under GradBench's CLI with `--tool "nilang-gradbench"`.

use std::io::{BufRead, Write};
use std::process::ExitCode;

use nilang_gradbench::evals::Build;
use nilang_gradbench::protocol::Tool;

const USAGE: &str = "usage: nilang-gradbench [--multithreaded] [--checked | --unchecked]

A GradBench tool: reads the eval's messages, one JSON object a line, on
standard input and answers each on standard output.

  --multithreaded  accepted; the programs run on one thread
  --checked        run the programs compiled with their run-time
                   reversibility checks (the default)
  --unchecked      run the programs compiled without them

Without either flag the environment variable NILANG_GRADBENCH_BUILD
(`checked` or `unchecked`) chooses; unset, the checked programs run. The
answer to `start` names the build in its `config`.";

/// Keeps freed memory in the process instead of handing it back to the
/// kernel. The programs allocate their ancilla arrays in every run (ode's
/// rows, lstm's states, lse's running maximum: megabytes). glibc maps a
/// block above 128 KiB (at most 32 MiB) afresh from the kernel for each
/// allocation and unmaps it when freed, so every run would write to fresh
/// pages and fault on each 4 KiB of them. Built with target-cpu=native, that
/// made ode's gradient at n = 100000, s = 1 take 41 ms against 2.9 ms with
/// the memory kept (the pages are touched by masked AVX-512 stores). With
/// mmap off and the heap never trimmed, a run reuses the pages the previous
/// one freed, as under mimalloc or jemalloc; the allocation and the zeroing
/// of the arrays are still inside every timed run.
#[cfg(all(target_os = "linux", target_env = "gnu"))]
fn keep_freed_memory() {
    // SAFETY: `mallopt` only sets glibc's allocator parameters; it is
    // called once, before any other thread exists.
    unsafe {
        libc::mallopt(libc::M_MMAP_MAX, 0);
        libc::mallopt(libc::M_TRIM_THRESHOLD, i32::MAX);
    }
}

#[cfg(not(all(target_os = "linux", target_env = "gnu")))]
fn keep_freed_memory() {}

fn main() -> ExitCode {
    keep_freed_memory();
    let mut flag = None;
    for arg in std::env::args().skip(1) {
        match arg.as_str() {
            "--multithreaded" => {}
            "--checked" => flag = Some(Build::Checked),
            "--unchecked" => flag = Some(Build::Unchecked),
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
    let build = match flag.map_or_else(Build::from_env, Ok) {
        Ok(build) => build,
        Err(e) => {
            eprintln!("nilang-gradbench: {e}\n\n{USAGE}");
            return ExitCode::from(2);
        }
    };
    let mut tool = Tool::with_build(build);
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

//! The `nilang-lsp` command line: `--help` and `--version` print and exit
//! 0 instead of waiting as a server, an unknown option is an error with a
//! clear message, and the flags clients pass (`--stdio`,
//! `--clientProcessId`) still start the server.

use std::io::{Read, Write};
use std::process::{Child, Command, ExitStatus, Stdio};
use std::time::{Duration, Instant};

/// The binary with `args`, standard input left open (a server would wait
/// on it), standard output and error piped.
fn spawn(args: &[&str]) -> Child {
    Command::new(env!("CARGO_BIN_EXE_nilang-lsp"))
        .args(args)
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .expect("nilang-lsp starts")
}

/// Waits up to 30 s for `child` to exit by itself (standard input still
/// open), then returns its status, standard output and error.
fn exits(mut child: Child, what: &str) -> (ExitStatus, String, String) {
    let start = Instant::now();
    let status = loop {
        if let Some(status) = child.try_wait().unwrap() {
            break status;
        }
        if start.elapsed() > Duration::from_secs(30) {
            let _ = child.kill();
            let _ = child.wait();
            panic!("nilang-lsp {what} did not exit: it waits as a server");
        }
        std::thread::sleep(Duration::from_millis(20));
    };
    let mut stdout = String::new();
    let mut stderr = String::new();
    // Either may have been taken by the caller, to read while it runs.
    if let Some(mut out) = child.stdout.take() {
        out.read_to_string(&mut stdout).unwrap();
    }
    if let Some(mut err) = child.stderr.take() {
        err.read_to_string(&mut stderr).unwrap();
    }
    (status, stdout, stderr)
}

#[test]
fn help_prints_the_usage_and_exits_zero() {
    for flag in ["--help", "-h"] {
        let (status, stdout, stderr) = exits(spawn(&[flag]), flag);
        assert!(status.success(), "{flag}: {status} {stderr}");
        assert!(stdout.contains("Language Server Protocol"), "{stdout}");
        assert!(stdout.contains("Usage: nilang-lsp"), "{stdout}");
        assert!(stdout.contains("--version"), "{stdout}");
        assert!(stdout.contains("--stdio"), "{stdout}");
    }
}

#[test]
fn version_prints_the_version_and_exits_zero() {
    for flag in ["--version", "-V"] {
        let (status, stdout, stderr) = exits(spawn(&[flag]), flag);
        assert!(status.success(), "{flag}: {status} {stderr}");
        assert_eq!(
            stdout,
            format!("nilang-lsp {}\n", env!("CARGO_PKG_VERSION"))
        );
    }
}

#[test]
fn an_unknown_option_is_an_error_not_a_server() {
    for args in [&["--bogus"][..], &["serve"], &["--stdio", "-x"]] {
        let (status, stdout, stderr) = exits(spawn(args), &format!("{args:?}"));
        assert_eq!(status.code(), Some(2), "{args:?}: {stderr}");
        assert!(stdout.is_empty(), "{stdout}");
        let unknown = args.last().unwrap();
        assert!(
            stderr.contains(&format!("error: unexpected argument '{unknown}' found")),
            "{args:?}: {stderr}"
        );
        assert!(stderr.contains("--help"), "{stderr}");
    }
}

/// One JSON-RPC message framed with its `Content-Length`.
fn frame(body: &str) -> String {
    format!("Content-Length: {}\r\n\r\n{body}", body.len())
}

#[test]
fn the_flags_clients_pass_start_the_server() {
    // What vscode-languageclient runs for a stdio server.
    let mut child = spawn(&["--stdio", "--clientProcessId=4242"]);
    let mut stdin = child.stdin.take().unwrap();
    let mut stdout = child.stdout.take().unwrap();
    let (tx, rx) = std::sync::mpsc::channel::<String>();
    std::thread::spawn(move || {
        let mut chunk = [0u8; 4096];
        while let Ok(n) = stdout.read(&mut chunk) {
            if n == 0
                || tx
                    .send(String::from_utf8_lossy(&chunk[..n]).into_owned())
                    .is_err()
            {
                break;
            }
        }
    });
    stdin
        .write_all(
            frame(r#"{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"capabilities":{}}}"#)
                .as_bytes(),
        )
        .unwrap();
    stdin.flush().unwrap();
    let mut seen = String::new();
    while !seen.contains("\"id\":1") {
        match rx.recv_timeout(Duration::from_secs(30)) {
            Ok(chunk) => seen.push_str(&chunk),
            Err(_) => {
                let _ = child.kill();
                panic!("no answer to initialize: {seen}");
            }
        }
    }
    assert!(seen.contains("\"serverInfo\""), "{seen}");
    let rest = [
        frame(r#"{"jsonrpc":"2.0","method":"initialized","params":{}}"#),
        frame(r#"{"jsonrpc":"2.0","id":2,"method":"shutdown"}"#),
        frame(r#"{"jsonrpc":"2.0","method":"exit"}"#),
    ]
    .concat();
    stdin.write_all(rest.as_bytes()).unwrap();
    stdin.flush().unwrap();
    let (status, _, stderr) = exits(child, "--stdio");
    assert!(status.success(), "{status}: {stderr}");
}

//! Editor latency: on a 2,000-line file, the time from a one-character
//! change (`textDocument/didChange`, incremental) to the
//! `textDocument/publishDiagnostics` for that version, over real JSON-RPC
//! framing through an in-process pipe.
//!
//! `cargo bench -p nilang-lsp --bench latency` prints divan's statistics, then
//! percentiles over 1,000 more edits (divan does not report p99).

#[path = "../tests/support/mod.rs"]
mod support;

use std::time::{Duration, Instant};

use support::TestClient;

const URI: &str = "file:///nilang-bench/latency.nil";

struct Session {
    runtime: tokio::runtime::Runtime,
    client: TestClient,
    version: i64,
    line: u32,
    column: u32,
    /// Insert a character and delete it again (every later byte of the
    /// file moves), instead of replacing one.
    insert: bool,
}

impl Session {
    fn new() -> Session {
        let text = support::generate(2000);
        assert!(text.lines().count() >= 2000);
        // The `2` of `a += exp(x) / 2.0` in the 51st function.
        let (line, column) = support::find(&text, "2.0\n", 50);
        Session::with(text, line, column)
    }

    /// One function of about `statements` statements (blocks of an ancilla,
    /// a routine, an update and a loop), edited in its middle: what a
    /// keystroke costs when the whole analysis of a large function re-runs.
    fn one_function(statements: usize) -> Session {
        let mut text = String::from("function big(y::f64, x::f64, v::[f64], n::i64)\n");
        for k in 0..statements / 10 {
            text.push_str(&format!(
                "    a{k} ← zero(f64)\n    @routine begin\n        a{k} += sin(x) * 2.0\n        a{k} += x / 5.0\n    end\n    y += a{k} * x\n    for i = 1:n\n        v[i] += a{k}\n    end\n    ~@routine\n    a{k} → zero(f64)\n"
            ));
        }
        text.push_str("end\n");
        let (line, column) = support::find(&text, "2.0\n", statements / 20);
        Session::with(text, line, column)
    }

    fn with(text: String, line: u32, column: u32) -> Session {
        let runtime = tokio::runtime::Builder::new_multi_thread()
            .worker_threads(2)
            .enable_all()
            .build()
            .expect("a runtime");
        let client = runtime.block_on(async {
            let mut client = TestClient::initialized().await;
            client.open(URI, &text).await;
            let published = client.diagnostics(URI).await;
            assert_eq!(published["diagnostics"], serde_json::json!([]));
            client
        });
        Session {
            runtime,
            client,
            version: 0,
            line,
            column,
            insert: false,
        }
    }

    /// One edit (the `2` becomes `3`, or back) and its diagnostics.
    fn edit(&mut self) -> Duration {
        self.version += 1;
        let (version, line, column, insert) = (self.version, self.line, self.column, self.insert);
        let client = &mut self.client;
        self.runtime.block_on(async {
            let started = Instant::now();
            if insert {
                // `2.0` becomes `2.00`, then `2.0` again.
                let at = column + 3;
                if version % 2 == 1 {
                    client
                        .change(URI, version, [(line, at), (line, at)], "0")
                        .await;
                } else {
                    client
                        .change(URI, version, [(line, at), (line, at + 1)], "")
                        .await;
                }
            } else {
                let digit = if version % 2 == 1 { "3" } else { "2" };
                client
                    .change(URI, version, [(line, column), (line, column + 1)], digit)
                    .await;
            }
            let published = client.diagnostics_at(URI, version).await;
            let elapsed = started.elapsed();
            assert_eq!(published["diagnostics"], serde_json::json!([]));
            elapsed
        })
    }
}

#[divan::bench(sample_count = 200, sample_size = 1)]
fn change_to_diagnostics_2000_lines(bencher: divan::Bencher) {
    let mut session = Session::new();
    bencher.bench_local(|| session.edit());
}

#[divan::bench(sample_count = 20, sample_size = 1, args = [10_000])]
fn change_to_diagnostics_one_function(bencher: divan::Bencher, statements: usize) {
    let mut session = Session::one_function(statements);
    bencher.bench_local(|| session.edit());
}

/// The peak memory of this process (server and client together), from
/// `/proc/self/status` (Linux only; `None` elsewhere).
fn peak_memory_mib() -> Option<u64> {
    let status = std::fs::read_to_string("/proc/self/status").ok()?;
    let line = status.lines().find(|l| l.starts_with("VmHWM:"))?;
    let kib: u64 = line.split_whitespace().nth(1)?.parse().ok()?;
    Some(kib / 1024)
}

/// `NILANG_BENCH_LARGE=1`: a keystroke in the middle of a 10 MB file
/// (about 44,000 functions), 20 edits after the first check.
fn large_file() {
    let text = support::generate_bytes(10 << 20);
    let functions = text.matches("function ").count();
    let edited = text.matches("2.0\n").count() / 2;
    let (line, column) = support::find(&text, "2.0\n", edited);
    let started = Instant::now();
    let mut session = Session::with(text, line, column);
    session.insert = true;
    let opened = started.elapsed();
    let mut times: Vec<Duration> = (0..20).map(|_| session.edit()).collect();
    times.sort();
    println!(
        "\n10 MB file ({functions} functions): open to diagnostics {opened:.2?}; a character typed and deleted, change → publishDiagnostics over 20 edits: fastest {:.2?}, median {:.2?}, slowest {:.2?}; peak memory of the process {} MiB",
        times[0],
        times[10],
        times[19],
        peak_memory_mib().map_or("unknown".to_string(), |m| m.to_string())
    );
}

fn main() {
    if std::env::var_os("NILANG_BENCH_LARGE").is_some() {
        large_file();
        return;
    }
    divan::main();
    if std::env::args().any(|a| a == "--test" || a == "--list") {
        return;
    }
    let mut session = Session::new();
    for _ in 0..50 {
        session.edit(); // warm up
    }
    let mut times: Vec<Duration> = (0..1000).map(|_| session.edit()).collect();
    times.sort();
    let at = |p: f64| times[((times.len() as f64 * p) as usize).min(times.len() - 1)];
    println!(
        "\nchange → publishDiagnostics, 2,000 lines, 1,000 edits: p50 {:.2?}, p90 {:.2?}, p99 {:.2?}, max {:.2?}",
        at(0.50),
        at(0.90),
        at(0.99),
        times[times.len() - 1]
    );
}

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
}

impl Session {
    fn new() -> Session {
        let runtime = tokio::runtime::Builder::new_multi_thread()
            .worker_threads(2)
            .enable_all()
            .build()
            .expect("a runtime");
        let text = support::generate(2000);
        assert!(text.lines().count() >= 2000);
        // The `2` of `a += exp(x) / 2.0` in the 51st function.
        let (line, column) = support::find(&text, "2.0\n", 50);
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
        }
    }

    /// One edit (the `2` becomes `3`, or back) and its diagnostics.
    fn edit(&mut self) -> Duration {
        self.version += 1;
        let (version, line, column) = (self.version, self.line, self.column);
        let client = &mut self.client;
        self.runtime.block_on(async {
            let started = Instant::now();
            let digit = if version % 2 == 1 { "3" } else { "2" };
            client
                .change(URI, version, [(line, column), (line, column + 1)], digit)
                .await;
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

fn main() {
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

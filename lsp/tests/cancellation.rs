//! Cancellation: an edit cancels readers that hold a snapshot, the writer
//! waits for them instead of deadlocking, and requests racing edits answer
//! either a result or `ContentModified`.

mod support;

use std::panic::AssertUnwindSafe;
use std::time::{Duration, Instant};

use nilang_compiler::db;
use nilang_lsp::workspace::Workspace;
use serde_json::json;
use support::TestClient;
use tower_lsp_server::ls_types::{TextDocumentContentChangeEvent, Uri};

#[test]
fn an_edit_cancels_a_reader_and_the_writer_proceeds() {
    let uri: Uri = "file:///nilang-test/cancel/a.nil".parse().expect("a URI");
    let mut workspace = Workspace::new();
    workspace.open(uri.clone(), support::generate(2000), 0);
    let snapshot = workspace.snapshot(&uri).expect("open");
    let reader = std::thread::spawn(move || {
        let deadline = Instant::now() + support::TIMEOUT;
        let result = salsa::Cancelled::catch(AssertUnwindSafe(|| {
            // A reader that keeps asking: each query checks for a pending write.
            while Instant::now() < deadline {
                db::file_diagnostics(&snapshot.db, snapshot.project, snapshot.file);
                std::thread::sleep(Duration::from_millis(1));
            }
        }));
        drop(snapshot);
        result
    });
    std::thread::sleep(Duration::from_millis(50));
    let started = Instant::now();
    // Blocks until the reader has unwound and dropped its snapshot.
    let changed = workspace.change(
        &uri,
        1,
        vec![TextDocumentContentChangeEvent {
            range: None,
            range_length: None,
            text: "function f(y::f64)\n    y += y\nend\n".into(),
        }],
    );
    assert!(changed);
    assert!(
        started.elapsed() < Duration::from_secs(10),
        "the writer was not kept waiting"
    );
    let result = reader.join().expect("the reader does not panic otherwise");
    assert!(
        matches!(result, Err(salsa::Cancelled::PendingWrite)),
        "the reader was cancelled: {result:?}"
    );
    let snapshot = workspace.snapshot(&uri).expect("open");
    let codes: Vec<&str> = db::file_diagnostics(&snapshot.db, snapshot.project, snapshot.file)
        .iter()
        .map(|d| d.code)
        .collect();
    assert_eq!(codes, ["E0201"], "the new text is what readers see now");
}

/// Requests sent between edits without waiting: each gets an answer, a
/// result or `ContentModified` (-32801), and the server stays consistent.
#[test]
fn requests_racing_edits_get_a_result_or_content_modified() {
    support::run(async {
        const URI: &str = "file:///nilang-test/cancel/race.nil";
        let mut client = TestClient::initialized().await;
        let text = support::generate(2000);
        client.open(URI, &text).await;
        client.diagnostics(URI).await;
        let (line, _) = support::find(&text, "    a ← zero(f64)", 3);
        let mut ids = Vec::new();
        for version in 1..=30 {
            let id = 1000 + version;
            client
                .send(
                    &json!({ "jsonrpc": "2.0", "id": id, "method": "nilang/generatedRust",
                    "params": { "textDocument": { "uri": URI } } }),
                )
                .await;
            ids.push(id);
            // A space after `a` and back: every version checks clean, so a
            // request that lands between two edits has Rust to answer with.
            let new = if version % 2 == 1 { " " } else { "" };
            let end = if version % 2 == 1 { 5 } else { 6 };
            client
                .change(URI, version, [(line, 5), (line, end)], new)
                .await;
        }
        let mut modified = 0;
        for id in ids {
            let response = client.response(id).await;
            if let Some(error) = response.get("error") {
                assert_eq!(error["code"], -32801, "{response}");
                modified += 1;
            } else {
                assert!(response["result"]["source"].is_string(), "{response}");
            }
        }
        eprintln!("{modified} of 30 requests were cancelled by an edit");
        let published = client.diagnostics_at(URI, 30).await;
        assert_eq!(published["diagnostics"], json!([]));
        client.shutdown_and_exit().await;
    });
}

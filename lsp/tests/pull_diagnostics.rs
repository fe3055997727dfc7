//! Pull diagnostics (LSP 3.17): a client that offers
//! `textDocument.diagnostic` gets a `diagnosticProvider` and asks for the
//! diagnostics of its open documents (`textDocument/diagnostic`) instead of
//! receiving `publishDiagnostics` for them; result ids make unchanged
//! reports short, and an edit that changes a list makes the server ask the
//! client to pull again (`workspace/diagnostic/refresh`). Closed files are
//! still published.

mod support;

use std::path::Path;

use serde_json::{Value, json};
use support::TestClient;

fn uri(path: &Path) -> String {
    format!("file://{}", path.display())
}

fn codes(report: &Value) -> Vec<String> {
    report["items"]
        .as_array()
        .expect("a list of diagnostics")
        .iter()
        .map(|d| d["code"].as_str().unwrap_or("").to_string())
        .collect()
}

const CALLER: &str = "function caller(a::f64, b::f64)\n    helper(a, b)\nend\n";
const HELPER: &str = "function helper(y::f64, x::f64)\n    y += x\nend\n";
/// `helper` now changes both arguments: `caller` passes them distinct, still
/// fine; with one argument twice it would be an aliasing error.
const SHARED_CALLER: &str = "function caller(a::f64, b::f64)\n    helper(a, a)\nend\n";
const SWAPPING_HELPER: &str = "function helper(y::f64, x::f64)\n    SWAP(y, x)\nend\n";

async fn pulling_client(root: Option<&Path>) -> (TestClient, Value) {
    let mut client = TestClient::start();
    let mut params = json!({
        "capabilities": {
            "textDocument": { "diagnostic": { "relatedDocumentSupport": false } },
            "workspace": { "diagnostics": { "refreshSupport": true } },
        },
    });
    if let Some(root) = root {
        params["rootUri"] = json!(uri(root));
    }
    let result = client.request("initialize", params).await;
    client.notify("initialized", json!({})).await;
    (client, result)
}

async fn pull(client: &mut TestClient, uri: &str, previous: Option<&str>) -> Value {
    let mut params = json!({ "textDocument": { "uri": uri } });
    if let Some(previous) = previous {
        params["previousResultId"] = json!(previous);
    }
    client.request("textDocument/diagnostic", params).await
}

#[test]
fn a_client_that_pulls_gets_reports_and_no_publications() {
    support::run(async {
        let (mut client, init) = pulling_client(None).await;
        let provider = &init["capabilities"]["diagnosticProvider"];
        assert_eq!(provider["interFileDependencies"], true, "{init}");
        assert_eq!(provider["workspaceDiagnostics"], false, "{init}");
        assert_eq!(provider["identifier"], "nilang");

        let (helper, caller) = ("file:///pull/helper.nil", "file:///pull/caller.nil");
        client.open(helper, HELPER).await;
        client.open(caller, SHARED_CALLER).await;

        // `helper` reads `x` and changes `y`: `helper(a, a)` reads what it
        // writes.
        let report = pull(&mut client, caller, None).await;
        assert_eq!(report["kind"], "full", "{report}");
        assert_eq!(codes(&report), vec!["E0201"], "{report}");
        let id = report["resultId"]
            .as_str()
            .expect("a result id")
            .to_string();

        // Asked again with that id: unchanged, the same id.
        let again = pull(&mut client, caller, Some(&id)).await;
        assert_eq!(again["kind"], "unchanged", "{again}");
        assert_eq!(again["resultId"], id.as_str());
        assert!(again.get("items").is_none());

        // An edit of the other file changes this one's list: the server
        // asks for a new pull, and the pull with the old id is full again.
        client.change_full(helper, 2, SWAPPING_HELPER).await;
        client.answer("workspace/diagnostic/refresh").await;
        let report = pull(&mut client, caller, Some(&id)).await;
        assert_eq!(report["kind"], "full", "{report}");
        assert_eq!(codes(&report), vec!["E0202"], "{report}");
        assert_ne!(report["resultId"], id.as_str());

        // A clean file; a file the server does not know: empty, full.
        let report = pull(&mut client, helper, None).await;
        assert_eq!(codes(&report), Vec::<String>::new());
        let unknown = pull(&mut client, "file:///pull/none.nil", None).await;
        assert_eq!(unknown["kind"], "full");
        assert_eq!(codes(&unknown), Vec::<String>::new());

        // Nothing was published, all along.
        assert!(
            !client.pending_contains("textDocument/publishDiagnostics"),
            "a pulling client got a publication"
        );
        client.shutdown_and_exit().await;
    });
}

/// Closed files are published to a pulling client too (editors pull only
/// for open documents); a file moves to pulling while it is open.
#[test]
fn closed_files_stay_published_and_open_ones_are_pulled() {
    let tmp = tempfile::tempdir().expect("a folder");
    let root = tmp.path().canonicalize().unwrap();
    std::fs::write(root.join("helper.nil"), HELPER).unwrap();
    std::fs::write(root.join("caller.nil"), CALLER).unwrap();
    std::fs::write(
        root.join("broken.nil"),
        "function broken(y::f64, x::f64)\n    y += y * x\nend\n",
    )
    .unwrap();
    let broken = uri(&root.join("broken.nil"));
    let caller = uri(&root.join("caller.nil"));
    support::run(async move {
        let (mut client, init) = pulling_client(Some(&root)).await;
        assert_eq!(
            init["capabilities"]["diagnosticProvider"]["workspaceDiagnostics"],
            false
        );
        // The first check of the workspace publishes the closed files.
        let published = client.diagnostics(&broken).await;
        assert_eq!(published["diagnostics"][0]["code"], "E0201", "{published}");

        // Opened, the file's publication is cleared and its diagnostics
        // are pulled.
        let text = std::fs::read_to_string(root.join("broken.nil")).unwrap();
        client.open(&broken, &text).await;
        let cleared = client.diagnostics(&broken).await;
        assert_eq!(cleared["diagnostics"], json!([]), "{cleared}");
        assert_eq!(cleared["version"], 0);
        let report = pull(&mut client, &broken, None).await;
        assert_eq!(codes(&report), vec!["E0201"], "{report}");

        // An open document whose list changes is not published: a refresh.
        client.open(&caller, SHARED_CALLER).await;
        client.answer("workspace/diagnostic/refresh").await;
        let report = pull(&mut client, &caller, None).await;
        assert_eq!(codes(&report), vec!["E0201"], "{report}");

        // Closed again (the disk still has the broken text): published.
        client
            .notify(
                "textDocument/didClose",
                json!({ "textDocument": { "uri": broken } }),
            )
            .await;
        let published = client
            .wait_for(|m| {
                m["method"] == "textDocument/publishDiagnostics"
                    && m["params"]["uri"] == broken.as_str()
                    && m["params"]["diagnostics"] != json!([])
            })
            .await;
        assert_eq!(published["params"]["diagnostics"][0]["code"], "E0201");
        assert_eq!(published["params"].get("version"), None);
        // The open caller never was published with its errors.
        assert!(
            !client.pending_contains("helper(a, a)"),
            "an open document's diagnostics were published"
        );
        client.shutdown_and_exit().await;
    });
}

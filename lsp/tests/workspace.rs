//! A live workspace: the server checks every `.nil` file of the workspace
//! folder, opened or not, with `$/progress` during the first check; it asks
//! the client to watch `.nil` files and follows the disk for closed files
//! (changed, created, deleted).

mod support;

use std::path::{Path, PathBuf};

use serde_json::{Value, json};
use support::TestClient;

fn uri(path: &Path) -> String {
    format!("file://{}", path.display())
}

fn codes(published: &Value) -> Vec<String> {
    published["diagnostics"]
        .as_array()
        .expect("a list")
        .iter()
        .map(|d| d["code"].as_str().unwrap_or("").to_string())
        .collect()
}

/// `FileChangeType`s of `workspace/didChangeWatchedFiles`.
const CREATED: u32 = 1;
const CHANGED: u32 = 2;
const DELETED: u32 = 3;

/// A scratch workspace: its root (canonical) with `src/` and `target/`, and
/// the folder that removes it when dropped.
fn scratch_workspace() -> (tempfile::TempDir, PathBuf, PathBuf) {
    let tmp = tempfile::tempdir().expect("a folder");
    let root = tmp.path().canonicalize().unwrap();
    let src = root.join("src");
    std::fs::create_dir_all(&src).unwrap();
    std::fs::create_dir_all(root.join("target")).unwrap();
    (tmp, root, src)
}

/// The next diagnostics published for `uri` with exactly the codes `want`
/// (publications of states the disk went through on the way are skipped).
async fn published_with(client: &mut TestClient, uri: &str, want: &[&str]) -> Value {
    client
        .wait_for(|m| {
            m["method"] == "textDocument/publishDiagnostics"
                && m["params"]["uri"] == uri
                && codes(&m["params"]) == want
        })
        .await["params"]
        .clone()
}

/// Tells the server that `uri` changed on disk, as the client's watcher does.
async fn watched(client: &mut TestClient, uri: &str, change: u32) {
    client
        .notify(
            "workspace/didChangeWatchedFiles",
            json!({ "changes": [{ "uri": uri, "type": change }] }),
        )
        .await;
}

const CALLER: &str = "function caller(y::f64, x::f64)\n    helper(y, x)\nend\n";
const HELPER: &str = "function helper(y::f64, x::f64)\n    y += x\nend\n";
const BROKEN: &str = "function broken(y::f64, x::f64)\n    y += y * x\nend\n";

#[test]
fn closed_files_are_checked_and_follow_the_disk() {
    let (_tmp, root, src) = scratch_workspace();
    // Enough files for a progress report, and one in `target/`, which is
    // not the workspace's.
    for i in 0..20 {
        std::fs::write(
            src.join(format!("f{i:02}.nil")),
            format!("function f{i}(y::f64, x::f64)\n    y += x\nend\n"),
        )
        .unwrap();
    }
    std::fs::write(root.join("target/skip.nil"), BROKEN).unwrap();
    std::fs::write(src.join("broken.nil"), BROKEN).unwrap();
    std::fs::write(src.join("caller.nil"), CALLER).unwrap();
    std::fs::write(src.join("helper.nil"), HELPER).unwrap();
    let (broken, caller, helper) = (
        uri(&src.join("broken.nil")),
        uri(&src.join("caller.nil")),
        uri(&src.join("helper.nil")),
    );

    support::run(async move {
        let mut client = TestClient::start();
        let result = client
            .request(
                "initialize",
                json!({
                    "rootUri": uri(&root),
                    "workspaceFolders": [{ "uri": uri(&root), "name": "w" }],
                    "capabilities": {
                        "workspace": { "didChangeWatchedFiles": { "dynamicRegistration": true } },
                        "window": { "workDoneProgress": true },
                    },
                }),
            )
            .await;
        assert!(result["capabilities"].is_object());
        client.notify("initialized", json!({})).await;

        // The watcher: `.nil` files, registered at run time.
        let registration = client.answer("client/registerCapability").await;
        let r = &registration["registrations"][0];
        assert_eq!(r["method"], "workspace/didChangeWatchedFiles");
        assert_eq!(
            r["registerOptions"]["watchers"][0]["globPattern"],
            "**/*.nil"
        );

        // The first check reports progress: created, begun, ended.
        let created = client.answer("window/workDoneProgress/create").await;
        let token = created["token"].clone();
        let begin = client
            .wait_for(|m| m["method"] == "$/progress" && m["params"]["value"]["kind"] == "begin")
            .await;
        assert_eq!(begin["params"]["token"], token);
        assert_eq!(begin["params"]["value"]["title"], "Checking .nil files");
        let end = client
            .wait_for(|m| m["method"] == "$/progress" && m["params"]["value"]["kind"] == "end")
            .await;
        assert_eq!(end["params"]["value"]["message"], "23/23 files checked");

        // Diagnostics for a file nobody opened, without a version.
        let published = client.diagnostics(&broken).await;
        assert_eq!(codes(&published), ["E0201"], "{published}");
        assert!(published.get("version").is_none() || published["version"].is_null());
        let published = client.diagnostics(&caller).await;
        assert_eq!(codes(&published), Vec::<String>::new());
        assert!(
            !client.pending_contains("skip.nil"),
            "files under target/ are not checked"
        );

        // Fixed on disk: the client says so, the diagnostics go.
        std::fs::write(src.join("broken.nil"), HELPER.replace("helper", "fixed")).unwrap();
        watched(&mut client, &broken, CHANGED).await;
        let published = client.diagnostics(&broken).await;
        assert_eq!(codes(&published), Vec::<String>::new(), "{published}");

        // The callee deleted: the caller (open or not) no longer resolves it.
        std::fs::remove_file(src.join("helper.nil")).unwrap();
        watched(&mut client, &helper, DELETED).await;
        let gone = client.diagnostics(&helper).await;
        assert_eq!(gone["diagnostics"], json!([]));
        let published = client.diagnostics(&caller).await;
        assert_eq!(codes(&published), ["E0102"], "{published}");

        // Created again: resolved again.
        std::fs::write(src.join("helper.nil"), HELPER).unwrap();
        watched(&mut client, &helper, CREATED).await;
        let published = client.diagnostics(&caller).await;
        assert_eq!(codes(&published), Vec::<String>::new(), "{published}");

        // An open document keeps the editor's text whatever the disk says,
        // and on closing goes back to the disk's diagnostics.
        client
            .open(&caller, &CALLER.replace("helper", "nowhere"))
            .await;
        let published = client.diagnostics_at(&caller, 0).await;
        assert_eq!(codes(&published), ["E0102"]);
        watched(&mut client, &caller, CHANGED).await;
        client
            .notify(
                "textDocument/didClose",
                json!({ "textDocument": { "uri": caller } }),
            )
            .await;
        let published = client
            .wait_for(|m| {
                m["method"] == "textDocument/publishDiagnostics"
                    && m["params"]["uri"] == caller.as_str()
                    && m["params"]["version"].is_null()
            })
            .await;
        assert_eq!(codes(&published["params"]), Vec::<String>::new());
        client.shutdown_and_exit().await;
    });
}

/// A client that watches no files for its servers (no dynamic registration
/// of `workspace/didChangeWatchedFiles`): the server watches the workspace
/// itself, so closed files still follow the disk.
#[test]
fn closed_files_follow_the_disk_without_the_client_s_watcher() {
    let (_tmp, root, src) = scratch_workspace();
    std::fs::write(src.join("broken.nil"), BROKEN).unwrap();
    std::fs::write(src.join("caller.nil"), CALLER).unwrap();
    std::fs::write(src.join("helper.nil"), HELPER).unwrap();
    let (broken, caller) = (uri(&src.join("broken.nil")), uri(&src.join("caller.nil")));

    support::run(async move {
        let mut client = TestClient::start();
        client
            .request(
                "initialize",
                json!({
                    "rootUri": uri(&root),
                    "workspaceFolders": [{ "uri": uri(&root), "name": "w" }],
                    "capabilities": {},
                }),
            )
            .await;
        client.notify("initialized", json!({})).await;
        let published = client.diagnostics(&broken).await;
        assert_eq!(codes(&published), ["E0201"], "{published}");
        assert!(
            !client.pending_contains("client/registerCapability"),
            "nothing to register with this client"
        );

        // Fixed on disk, and nobody says so: the server sees it.
        std::fs::write(src.join("broken.nil"), HELPER.replace("helper", "fixed")).unwrap();
        let published = published_with(&mut client, &broken, &[]).await;
        assert!(published["version"].is_null(), "{published}");

        // The callee deleted (the caller's call no longer resolves), then
        // written again.
        std::fs::remove_file(src.join("helper.nil")).unwrap();
        let published = published_with(&mut client, &caller, &["E0102"]).await;
        assert_eq!(codes(&published), ["E0102"]);
        std::fs::write(src.join("helper.nil"), HELPER).unwrap();
        published_with(&mut client, &caller, &[]).await;

        // A folder made after the start is watched too, with the file that
        // came with it.
        std::fs::create_dir_all(src.join("models/deep")).unwrap();
        std::fs::write(src.join("models/deep/later.nil"), BROKEN).unwrap();
        let later = uri(&src.join("models/deep/later.nil"));
        // (Its first publication may be of the file half written.)
        published_with(&mut client, &later, &["E0201"]).await;
        std::fs::write(
            src.join("models/deep/later.nil"),
            HELPER.replace("helper", "later"),
        )
        .unwrap();
        published_with(&mut client, &later, &[]).await;

        // A file under `target/` is not the workspace's: written before
        // the broken file comes back, it is never published.
        std::fs::write(root.join("target/skip.nil"), BROKEN).unwrap();
        std::fs::write(src.join("broken.nil"), BROKEN).unwrap();
        published_with(&mut client, &broken, &["E0201"]).await;
        assert!(!client.pending_contains("skip.nil"));
        client.shutdown_and_exit().await;
    });
}

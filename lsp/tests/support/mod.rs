//! A minimal LSP client over real JSON-RPC framing (`Content-Length`
//! headers), talking to the server in process through a tokio duplex pipe.
//! Shared by the tests and the latency benchmark.

#![allow(dead_code)]

use std::collections::VecDeque;
use std::time::Duration;

use serde_json::{Value, json};
use tokio::io::{AsyncReadExt, AsyncWriteExt, DuplexStream, ReadHalf, WriteHalf};
use tokio::task::JoinHandle;

pub const TIMEOUT: Duration = Duration::from_secs(20);

/// Runs a test on a thread with a large stack: in debug builds the server's
/// futures and a long test's own future are deep enough to overflow the
/// 2 MiB of a test thread.
pub fn run(test: impl std::future::Future<Output = ()> + Send + 'static) {
    std::thread::Builder::new()
        .stack_size(64 << 20)
        .spawn(move || {
            tokio::runtime::Builder::new_multi_thread()
                .worker_threads(2)
                .enable_all()
                .build()
                .expect("a runtime")
                .block_on(test)
        })
        .expect("a test thread")
        .join()
        .unwrap_or_else(|panic| std::panic::resume_unwind(panic));
}

pub struct TestClient {
    writer: WriteHalf<DuplexStream>,
    reader: ReadHalf<DuplexStream>,
    buffer: Vec<u8>,
    /// Messages read but not yet asked for (notifications, other responses).
    pending: VecDeque<Value>,
    next_id: i64,
    pub server: JoinHandle<i32>,
}

impl TestClient {
    /// Starts a server in this runtime and connects to it.
    pub fn start() -> TestClient {
        let (client_end, server_end) = tokio::io::duplex(1 << 20);
        let (server_read, server_write) = tokio::io::split(server_end);
        let server = tokio::spawn(nilang_lsp::serve(server_read, server_write));
        let (reader, writer) = tokio::io::split(client_end);
        TestClient {
            writer,
            reader,
            buffer: Vec::new(),
            pending: VecDeque::new(),
            next_id: 1,
            server,
        }
    }

    /// Starts a server and runs `initialize` / `initialized` with UTF-16 positions.
    pub async fn initialized() -> TestClient {
        let mut client = TestClient::start();
        let result = client
            .request("initialize", json!({ "capabilities": {} }))
            .await;
        assert!(result.get("capabilities").is_some(), "{result}");
        client.notify("initialized", json!({})).await;
        client
    }

    pub async fn send_raw(&mut self, bytes: &[u8]) {
        self.writer.write_all(bytes).await.expect("write to server");
        self.writer.flush().await.expect("flush");
    }

    pub async fn send(&mut self, message: &Value) {
        let body = serde_json::to_vec(message).expect("serialize");
        let mut framed = format!("Content-Length: {}\r\n\r\n", body.len()).into_bytes();
        framed.extend(body);
        self.send_raw(&framed).await;
    }

    pub async fn notify(&mut self, method: &str, params: Value) {
        self.send(&json!({ "jsonrpc": "2.0", "method": method, "params": params }))
            .await;
    }

    /// Sends a request and returns the whole response (`result` or `error`).
    pub async fn request_raw(&mut self, method: &str, params: Value) -> Value {
        let id = self.next_id;
        self.next_id += 1;
        self.send(&json!({ "jsonrpc": "2.0", "id": id, "method": method, "params": params }))
            .await;
        self.response(id).await
    }

    /// Sends a request and returns its `result`, failing the test on an error.
    pub async fn request(&mut self, method: &str, params: Value) -> Value {
        let response = self.request_raw(method, params).await;
        assert!(
            response.get("error").is_none(),
            "{method} failed: {response}"
        );
        response["result"].clone()
    }

    pub async fn response(&mut self, id: i64) -> Value {
        self.wait_for(|m| m.get("id") == Some(&json!(id)) && m.get("method").is_none())
            .await
    }

    /// The next message (already read or still to come) that satisfies `pred`.
    pub async fn wait_for(&mut self, pred: impl Fn(&Value) -> bool) -> Value {
        if let Some(i) = self.pending.iter().position(&pred) {
            return self.pending.remove(i).expect("index is valid");
        }
        let deadline = tokio::time::Instant::now() + TIMEOUT;
        loop {
            let message = tokio::time::timeout_at(deadline, self.read_message())
                .await
                .expect("timed out waiting for a message from the server");
            if pred(&message) {
                return message;
            }
            self.pending.push_back(message);
        }
    }

    /// Waits for the server's request `method`, answers it with a null
    /// result, and returns its params.
    pub async fn answer(&mut self, method: &str) -> Value {
        let method = method.to_string();
        let request = self
            .wait_for(move |m| m["method"] == method.as_str() && m.get("id").is_some())
            .await;
        self.send(&json!({ "jsonrpc": "2.0", "id": request["id"], "result": null }))
            .await;
        request["params"].clone()
    }

    /// Whether a message already read mentions `needle`.
    pub fn pending_contains(&self, needle: &str) -> bool {
        self.pending.iter().any(|m| m.to_string().contains(needle))
    }

    /// The next `textDocument/publishDiagnostics` for `uri`.
    pub async fn diagnostics(&mut self, uri: &str) -> Value {
        let uri = uri.to_string();
        self.wait_for(move |m| {
            m["method"] == "textDocument/publishDiagnostics" && m["params"]["uri"] == uri.as_str()
        })
        .await["params"]
            .clone()
    }

    /// Diagnostics for `uri` at exactly `version`, skipping older ones.
    pub async fn diagnostics_at(&mut self, uri: &str, version: i64) -> Value {
        let uri = uri.to_string();
        self.wait_for(move |m| {
            m["method"] == "textDocument/publishDiagnostics"
                && m["params"]["uri"] == uri.as_str()
                && m["params"]["version"] == version
        })
        .await["params"]
            .clone()
    }

    async fn read_message(&mut self) -> Value {
        loop {
            if let Some(message) = self.parse_buffered() {
                return message;
            }
            let mut chunk = [0u8; 65536];
            let n = self
                .reader
                .read(&mut chunk)
                .await
                .expect("read from server");
            assert!(n > 0, "the server closed the connection");
            self.buffer.extend_from_slice(&chunk[..n]);
        }
    }

    fn parse_buffered(&mut self) -> Option<Value> {
        let header_end = self.buffer.windows(4).position(|w| w == b"\r\n\r\n")?;
        let header = std::str::from_utf8(&self.buffer[..header_end]).expect("ASCII header");
        let length: usize = header
            .lines()
            .find_map(|l| l.strip_prefix("Content-Length: "))
            .expect("Content-Length header")
            .trim()
            .parse()
            .expect("a number");
        let start = header_end + 4;
        if self.buffer.len() < start + length {
            return None;
        }
        let body: Vec<u8> = self.buffer.drain(..start + length).skip(start).collect();
        Some(serde_json::from_slice(&body).expect("valid JSON from the server"))
    }

    pub async fn open(&mut self, uri: &str, text: &str) {
        self.notify(
            "textDocument/didOpen",
            json!({ "textDocument": { "uri": uri, "languageId": "nilang", "version": 0, "text": text } }),
        )
        .await;
    }

    pub async fn change_full(&mut self, uri: &str, version: i64, text: &str) {
        self.notify(
            "textDocument/didChange",
            json!({ "textDocument": { "uri": uri, "version": version }, "contentChanges": [{ "text": text }] }),
        )
        .await;
    }

    /// An incremental change: replace the range by `text`.
    pub async fn change(&mut self, uri: &str, version: i64, range: [(u32, u32); 2], text: &str) {
        let [(l1, c1), (l2, c2)] = range;
        self.notify(
            "textDocument/didChange",
            json!({
                "textDocument": { "uri": uri, "version": version },
                "contentChanges": [{
                    "range": { "start": { "line": l1, "character": c1 }, "end": { "line": l2, "character": c2 } },
                    "text": text
                }]
            }),
        )
        .await;
    }

    pub async fn shutdown_and_exit(mut self) {
        let result = self.request("shutdown", Value::Null).await;
        assert_eq!(result, Value::Null);
        self.notify("exit", Value::Null).await;
        tokio::time::timeout(TIMEOUT, self.server)
            .await
            .expect("the server stops after exit")
            .expect("the server task did not panic");
    }
}

pub fn position(line: u32, character: u32) -> Value {
    json!({ "line": line, "character": character })
}

pub fn text_position(uri: &str, line: u32, character: u32) -> Value {
    json!({ "textDocument": { "uri": uri }, "position": position(line, character) })
}

/// Line and character (UTF-16) of the `nth` occurrence of `needle` in `text`.
pub fn find(text: &str, needle: &str, nth: usize) -> (u32, u32) {
    let offset = text
        .match_indices(needle)
        .nth(nth)
        .unwrap_or_else(|| panic!("`{needle}` not found"))
        .0;
    let before = &text[..offset];
    let line = before.matches('\n').count() as u32;
    let line_start = before.rfind('\n').map(|i| i + 1).unwrap_or(0);
    let character = text[line_start..offset].encode_utf16().count() as u32;
    (line, character)
}

/// About `lines` lines of valid NiLang: functions with ancillas, routines,
/// loops, branches, calls and instructions (for the stress test and the
/// benchmark).
pub fn generate(lines: usize) -> String {
    generate_while(|_, newlines| newlines < lines)
}

/// The same functions, about `bytes` bytes of them.
#[allow(dead_code)]
pub fn generate_bytes(bytes: usize) -> String {
    generate_while(|text, _| text.len() < bytes)
}

fn generate_while(more: impl Fn(&str, usize) -> bool) -> String {
    let mut out = String::new();
    let mut newlines = 0;
    let mut i = 0;
    while more(&out, newlines) {
        let before = out.len();
        out.push_str(&format!(
            "\"\"\"Function number {i}.\"\"\"\n\
             function f{i}(y::f64, x::f64, v::[f64], n::i64)\n\
             \x20   a ← zero(f64)\n\
             \x20   @routine begin\n\
             \x20       a += sin(x)\n\
             \x20       a += exp(x) / 2.0\n\
             \x20   end\n\
             \x20   for k = 1:n\n\
             \x20       v[k] += a * x\n\
             \x20       if (v[k] > 0.0, ~)\n\
             \x20           y += v[k]\n\
             \x20       end\n\
             \x20   end\n\
             \x20   while (y > 100.0, y < 1.0)\n\
             \x20       y -= 1.0\n\
             \x20   end\n\
             \x20   ROT(y, x, 0.5)\n\
             \x20   ~@routine\n\
             end\n\n"
        ));
        if i > 0 {
            out.push_str(&format!(
                "function g{i}(y::f64, x::f64, v::[f64], n::i64)\n    f{i}(y, x, v, n)\n    ~f{}(y, x, v, n)\nend\n\n",
                i - 1
            ));
        }
        newlines += out[before..].matches('\n').count();
        i += 1;
    }
    out
}

//! The server fed arbitrary bytes: broken headers, wrong lengths, invalid
//! JSON, non-UTF-8, stray frames. It must not panic or stop, and it must
//! answer a well-formed request sent afterwards. (The same property is a
//! cargo-fuzz target, `fuzz/fuzz_targets/lsp_bytes.rs`; this test runs a
//! fixed set of generated inputs in CI.)

mod support;

use std::time::Duration;

use serde_json::json;
use support::TestClient;

/// xorshift64*: a fixed sequence, so a failure can be replayed.
struct Rng(u64);

impl Rng {
    fn next(&mut self) -> u64 {
        self.0 ^= self.0 >> 12;
        self.0 ^= self.0 << 25;
        self.0 ^= self.0 >> 27;
        self.0.wrapping_mul(0x2545_F491_4F6C_DD1D)
    }
    fn below(&mut self, n: u64) -> u64 {
        self.next() % n
    }
}

/// One piece of garbage: something a broken client or a broken pipe could
/// send.
fn piece(rng: &mut Rng) -> Vec<u8> {
    const PARTS: &[&[u8]] = &[
        b"Content-Length: ",
        b"Content-Type: application/vscode-jsonrpc; charset=utf-8\r\n",
        b"\r\n\r\n",
        b"\r\n",
        b"{\"jsonrpc\":\"2.0\",",
        b"\"method\":\"textDocument/hover\"",
        b"\"id\":",
        b"\"params\":{\"textDocument\":{\"uri\":\"file:///x.nil\"}}",
        b"}",
        b"[1,2",
        b"null",
        b"\xff\xfe\xc3",
        b"function f(y::f64)\n    y += y\nend\n",
        b"$/cancelRequest",
    ];
    match rng.below(4) {
        0 => PARTS[rng.below(PARTS.len() as u64) as usize].to_vec(),
        1 => (0..rng.below(40)).map(|_| rng.next() as u8).collect(),
        // A whole frame with a body that is not a message, or a short
        // length: the reader must get back in step.
        2 => {
            let body: Vec<u8> = (0..rng.below(30))
                .map(|_| b"{}[]\":,ab1"[rng.below(10) as usize])
                .collect();
            let mut frame = format!("Content-Length: {}\r\n\r\n", body.len()).into_bytes();
            frame.extend(body);
            frame
        }
        _ => format!("Content-Length: {}\r\n", rng.below(64)).into_bytes(),
    }
}

#[test]
fn arbitrary_bytes_never_stop_the_server() {
    support::run(async {
        let mut rng = Rng(0x9E37_79B9_7F4A_7C15);
        for case in 0..60 {
            let mut client = TestClient::start();
            let garbage: Vec<u8> = (0..1 + rng.below(12))
                .flat_map(|_| piece(&mut rng))
                .collect();
            client.send_raw(&garbage).await;
            // A well-formed request afterwards is answered (before
            // `initialize`, with the error the protocol prescribes), at the
            // latest once a short length left over by the garbage is used up.
            let mut answered = false;
            for attempt in 0..6 {
                let id = 1000 + attempt;
                client
                    .send(&json!({ "jsonrpc": "2.0", "id": id, "method": "shutdown" }))
                    .await;
                let response = tokio::time::timeout(
                    Duration::from_secs(2),
                    client.wait_for(move |m| m["id"] == json!(id) && m.get("method").is_none()),
                )
                .await;
                if response.is_ok() {
                    answered = true;
                    break;
                }
            }
            assert!(
                answered,
                "case {case}: no answer after {:?}",
                String::from_utf8_lossy(&garbage)
            );
            assert!(
                !client.server.is_finished(),
                "case {case}: the server stopped"
            );
            client.server.abort();
        }
    });
}

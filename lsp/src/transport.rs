//! A guard in front of tower-lsp-server's transport.
//!
//! tower-lsp-server 0.23 reads stdin through tokio-util's `FramedRead`, which
//! ends the stream after the first frame it cannot decode: one message with
//! invalid JSON (or JSON that is not a JSON-RPC message) would answer
//! `-32700` and then stop the server. This module sits between the real
//! input and the server: it reads the frames itself, answers an undecodable
//! body with the JSON-RPC error (`-32700` parse error, `-32600` invalid
//! request, with the request's id when it has one), and forwards only
//! well-formed messages. Frames from the server are copied to the real
//! output whole, so the two writers never interleave inside a frame.
//!
//! It also resynchronises after a broken frame: a header line is read as
//! bytes (a non-UTF-8 byte does not end the session), and a
//! `Content-Length` is found anywhere in a line, so after a frame whose
//! length was wrong or missing the next frame's header is found inside the
//! leftover bytes. It answers requests named `$/...` with MethodNotFound
//! (the library drops them unanswered), and records whether `shutdown` came
//! before `exit`, which decides the exit status (0 after `shutdown`, 1
//! otherwise).

use std::sync::atomic::{AtomicBool, Ordering};

use serde_json::{Value, json};
use tokio::io::{AsyncBufReadExt, AsyncRead, AsyncReadExt, AsyncWrite, AsyncWriteExt, BufReader};
use tokio::sync::Mutex;
use tower_lsp_server::jsonrpc::{Request, Response};

/// A frame larger than this is read and dropped (with no answer).
const MAX_BODY: usize = 256 << 20;

/// Reads one frame's headers. `Ok(None)` at the end of the input;
/// `Ok(Some(None))` for a header block without a usable `Content-Length`.
async fn read_headers<R: AsyncBufReadExt + Unpin>(
    input: &mut R,
) -> std::io::Result<Option<Option<usize>>> {
    let mut length = None;
    let mut any = false;
    loop {
        let mut bytes = Vec::new();
        let n = input.read_until(b'\n', &mut bytes).await?;
        if n == 0 {
            return Ok(None);
        }
        let line = String::from_utf8_lossy(&bytes);
        let line = line.trim_end_matches(['\r', '\n']);
        if line.is_empty() {
            if any {
                return Ok(Some(length));
            }
            continue; // stray blank lines between frames
        }
        any = true;
        if let Some(n) = content_length(line) {
            length = Some(n);
        }
    }
}

/// The value of a `Content-Length` header in `line`, also when the header
/// follows leftover bytes of a broken frame on the same line.
fn content_length(line: &str) -> Option<usize> {
    const NAME: &str = "content-length:";
    let at = line.to_ascii_lowercase().rfind(NAME)?;
    let rest = line[at + NAME.len()..].trim();
    rest.parse::<usize>().ok()
}

/// What the input side saw of the session's end.
#[derive(Default)]
pub struct Session {
    shutdown: AtomicBool,
}

impl Session {
    /// The exit status the protocol asks for: 0 when `shutdown` came
    /// before the end, 1 otherwise.
    pub fn exit_code(&self) -> i32 {
        if self.shutdown.load(Ordering::Relaxed) {
            0
        } else {
            1
        }
    }
}

/// What to do with a decodable message before the server sees it.
fn intercept(body: &[u8], session: &Session) -> Option<Value> {
    let value: Value = serde_json::from_slice(body).ok()?;
    let method = value.get("method")?.as_str()?;
    if method == "shutdown" {
        session.shutdown.store(true, Ordering::Relaxed);
    }
    let id = value.get("id")?;
    method.starts_with("$/").then(|| {
        json!({ "jsonrpc": "2.0", "error": { "code": -32601, "message": format!("Method not found: {method}") }, "id": id })
    })
}

/// The JSON-RPC error to answer for a body, or `None` when it is a message
/// the server can decode.
fn check_body(body: &[u8]) -> Option<Value> {
    let error = |code: i64, message: &str, id: Value| json!({ "jsonrpc": "2.0", "error": { "code": code, "message": message }, "id": id });
    let Ok(value) = serde_json::from_slice::<Value>(body) else {
        return Some(error(-32700, "Parse error", Value::Null));
    };
    if serde_json::from_value::<Request>(value.clone()).is_ok()
        || serde_json::from_value::<Response>(value.clone()).is_ok()
    {
        return None;
    }
    let id = match value.get("id") {
        Some(id @ (Value::Number(_) | Value::String(_))) => id.clone(),
        _ => Value::Null,
    };
    Some(error(-32600, "Invalid request", id))
}

async fn write_frame<W: AsyncWrite + Unpin>(out: &Mutex<W>, body: &[u8]) -> std::io::Result<()> {
    let mut out = out.lock().await;
    out.write_all(format!("Content-Length: {}\r\n\r\n", body.len()).as_bytes())
        .await?;
    out.write_all(body).await?;
    out.flush().await
}

/// Copies well-formed messages from `input` to `server`, answering the rest
/// on `output`. Returns at the end of the input (dropping `server`, so the
/// server sees its input end too).
pub async fn filter_input<I, S, W>(input: I, mut server: S, output: &Mutex<W>, session: &Session)
where
    I: AsyncRead + Unpin,
    S: AsyncWrite + Unpin,
    W: AsyncWrite + Unpin,
{
    let mut input = BufReader::new(input);
    loop {
        let length = match read_headers(&mut input).await {
            Ok(Some(Some(length))) => length,
            Ok(Some(None)) => {
                eprintln!("nilang-lsp: dropped a message without a valid Content-Length header");
                continue;
            }
            Ok(None) | Err(_) => return,
        };
        if length > MAX_BODY {
            eprintln!("nilang-lsp: dropped a message of {length} bytes");
            let mut rest = (&mut input).take(length as u64);
            if tokio::io::copy(&mut rest, &mut tokio::io::sink())
                .await
                .is_err()
            {
                return;
            }
            continue;
        }
        let mut body = vec![0; length];
        if input.read_exact(&mut body).await.is_err() {
            return;
        }
        if let Some(answer) = intercept(&body, session) {
            let answer = serde_json::to_vec(&answer).unwrap_or_default();
            if write_frame(output, &answer).await.is_err() {
                return;
            }
            continue;
        }
        match check_body(&body) {
            None => {
                let header = format!("Content-Length: {length}\r\n\r\n");
                let sent = async {
                    server.write_all(header.as_bytes()).await?;
                    server.write_all(&body).await?;
                    server.flush().await
                };
                if sent.await.is_err() {
                    return; // the server has stopped
                }
            }
            Some(error) => {
                eprintln!(
                    "nilang-lsp: answered an undecodable message with {}",
                    error["error"]
                );
                let body = serde_json::to_vec(&error).unwrap_or_default();
                if write_frame(output, &body).await.is_err() {
                    return;
                }
            }
        }
    }
}

/// Copies the server's frames to `output`, one whole frame at a time.
pub async fn copy_output<R, W>(from_server: R, output: &Mutex<W>)
where
    R: AsyncRead + Unpin,
    W: AsyncWrite + Unpin,
{
    let mut from_server = BufReader::new(from_server);
    loop {
        let length = match read_headers(&mut from_server).await {
            Ok(Some(Some(length))) => length,
            Ok(Some(None)) => continue,
            Ok(None) | Err(_) => return,
        };
        let mut body = vec![0; length];
        if from_server.read_exact(&mut body).await.is_err() {
            return;
        }
        if write_frame(output, &body).await.is_err() {
            return;
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_content_length_is_found_after_leftover_bytes() {
        assert_eq!(content_length("Content-Length: 12"), Some(12));
        assert_eq!(content_length("content-length:7"), Some(7));
        assert_eq!(content_length(r#"{"id":1}Content-Length: 42"#), Some(42));
        assert_eq!(content_length("Content-Type: x"), None);
    }

    #[test]
    fn dollar_requests_are_answered_and_shutdown_is_seen() {
        let session = Session::default();
        let answer = intercept(
            br#"{"jsonrpc":"2.0","id":3,"method":"$/unknown"}"#,
            &session,
        )
        .expect("an answer");
        assert_eq!(answer["error"]["code"], -32601);
        assert_eq!(answer["id"], 3);
        assert!(
            intercept(
                br#"{"jsonrpc":"2.0","method":"$/cancelRequest","params":{"id":1}}"#,
                &session
            )
            .is_none()
        );
        assert_eq!(session.exit_code(), 1);
        assert!(intercept(br#"{"jsonrpc":"2.0","id":4,"method":"shutdown"}"#, &session).is_none());
        assert_eq!(session.exit_code(), 0);
    }

    #[test]
    fn bodies_are_classified() {
        assert_eq!(
            check_body(br#"{"jsonrpc":"2.0","id":1,"method":"x"}"#),
            None
        );
        assert_eq!(check_body(br#"{"jsonrpc":"2.0","method":"x"}"#), None);
        assert_eq!(
            check_body(br#"{"jsonrpc":"2.0","id":1,"result":null}"#),
            None
        );
        let parse = check_body(b"{\"jsonrpc\": ").expect("an error");
        assert_eq!(parse["error"]["code"], -32700);
        assert_eq!(parse["id"], Value::Null);
        let invalid = check_body(br#"{"jsonrpc":"2.0","id":7,"method":5}"#).expect("an error");
        assert_eq!(invalid["error"]["code"], -32600);
        assert_eq!(invalid["id"], 7);
        assert_eq!(
            check_body(b"[1, 2]").expect("an error")["error"]["code"],
            -32600
        );
        assert_eq!(
            check_body(b"\xff\xfe").expect("an error")["error"]["code"],
            -32700
        );
    }
}

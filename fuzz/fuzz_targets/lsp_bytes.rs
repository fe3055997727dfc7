//! Feeds arbitrary bytes to the language server, then a well-formed
//! request: the server must not panic, must not stop, and must answer the
//! request (a short `Content-Length` left over by the input may swallow a
//! few attempts). `lsp/tests/arbitrary_bytes.rs` runs generated inputs of
//! the same kind in CI.
#![no_main]

use libfuzzer_sys::fuzz_target;
use tokio::io::{AsyncReadExt, AsyncWriteExt};

fn frame(id: u64) -> Vec<u8> {
    let body = format!("{{\"jsonrpc\":\"2.0\",\"id\":{id},\"method\":\"shutdown\"}}");
    format!("Content-Length: {}\r\n\r\n{body}", body.len()).into_bytes()
}

fuzz_target!(|data: &[u8]| {
    let runtime = tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()
        .expect("a runtime");
    runtime.block_on(async {
        let (client, server) = tokio::io::duplex(1 << 20);
        let (server_read, server_write) = tokio::io::split(server);
        let server = tokio::spawn(nilang_lsp::serve(server_read, server_write));
        let (mut read, mut write) = tokio::io::split(client);
        write.write_all(data).await.expect("write");
        let mut seen = Vec::new();
        let mut answered = false;
        for attempt in 0..8u64 {
            let id = 1_000_000 + attempt;
            write.write_all(&frame(id)).await.expect("write");
            let needle = format!("\"id\":{id}");
            let deadline = tokio::time::Instant::now() + std::time::Duration::from_secs(2);
            while tokio::time::Instant::now() < deadline {
                let mut chunk = [0u8; 65536];
                match tokio::time::timeout_at(deadline, read.read(&mut chunk)).await {
                    Ok(Ok(0)) | Err(_) => break,
                    Ok(Ok(n)) => seen.extend_from_slice(&chunk[..n]),
                    Ok(Err(e)) => panic!("read: {e}"),
                }
                if String::from_utf8_lossy(&seen).contains(&needle) {
                    answered = true;
                    break;
                }
            }
            if answered {
                break;
            }
        }
        assert!(answered, "no answer after the input");
        assert!(!server.is_finished(), "the server stopped");
        server.abort();
    });
});

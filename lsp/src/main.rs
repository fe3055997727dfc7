//! `nilang-lsp`: the NiLang language server, speaking LSP over stdio.

use std::time::Duration;

fn main() {
    if std::env::args().any(|a| a == "--version" || a == "-V") {
        println!("nilang-lsp {}", env!("CARGO_PKG_VERSION"));
        return;
    }
    let runtime = match tokio::runtime::Builder::new_multi_thread()
        .worker_threads(2)
        .enable_all()
        .build()
    {
        Ok(runtime) => runtime,
        Err(e) => {
            eprintln!("nilang-lsp: cannot start the async runtime: {e}");
            std::process::exit(2);
        }
    };
    // Spawned, so the server's futures live on the heap, not the main stack.
    let served = runtime.block_on(async {
        tokio::spawn(nilang_lsp::serve(tokio::io::stdin(), tokio::io::stdout())).await
    });
    let code = match served {
        Ok(code) => code,
        Err(e) => {
            eprintln!("nilang-lsp: the server stopped abnormally: {e}");
            2
        }
    };
    // Do not wait for a request still running on a blocking thread.
    runtime.shutdown_timeout(Duration::from_millis(100));
    std::process::exit(code);
}

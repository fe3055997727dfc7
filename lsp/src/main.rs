//! `nilang-lsp`: the NiLang language server, speaking LSP over stdio.

use std::time::Duration;

use clap::Parser;

/// The command line: no options needed; `--help` and `--version` print and
/// exit, an unknown option is an error (status 2) rather than a server
/// waiting on standard input.
#[derive(Parser)]
#[command(
    name = "nilang-lsp",
    version,
    about = "The NiLang language server: speaks the Language Server Protocol on standard input and output.",
    long_about = "The NiLang language server: speaks the Language Server Protocol on standard \
input and output for .nil files (diagnostics as `nilc check` gives them, hover, inverse \
previews, go to definition, references, symbols, semantic tokens, completion, formatting).\n\n\
An editor starts it; run by hand, it waits for a client's messages on standard input.",
    after_help = "Editor setups: editors/vscode and editors/neovim in the NiLang for Rust repository."
)]
struct Cli {
    /// Serve over standard input and output: the default and only
    /// transport, accepted because clients (vscode-languageclient) pass it.
    #[arg(long)]
    stdio: bool,
    /// The client's process id, which vscode-languageclient passes; not
    /// used (the server ends at `exit` or at the end of its input).
    #[arg(long = "clientProcessId", value_name = "PID", hide = true)]
    client_process_id: Option<u64>,
}

fn main() {
    let _cli = Cli::parse();
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

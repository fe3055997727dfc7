//! The NiLang language server: the compiler's salsa database behind the
//! Language Server Protocol (tower-lsp-server over stdio).
//!
//! Besides the standard requests it answers two of its own:
//! - `nilang/inverse` ([`features::InverseParams`] → [`features::InverseResult`]):
//!   the `.nil` source of `~f` for one function, or of the whole file;
//! - `nilang/generatedRust` ([`features::GeneratedRustParams`] →
//!   [`features::GeneratedRustResult`]): the Rust module the build plugin
//!   would write for the file.
//!
//! Code lenses carry the client-side command `nilang.showInverse` with the
//! arguments `[uri, functionName]`; editors implement it with `nilang/inverse`.

pub mod features;
pub mod line_index;
pub mod server;
pub mod workspace;

use tokio::io::{AsyncRead, AsyncWrite};
use tower_lsp_server::{ClientSocket, LspService, Server};

pub use server::Backend;

/// The service with the custom methods registered.
pub fn service() -> (LspService<Backend>, ClientSocket) {
    LspService::build(Backend::new)
        .custom_method("nilang/inverse", Backend::inverse)
        .custom_method("nilang/generatedRust", Backend::generated_rust)
        .finish()
}

/// Serves one client over a pair of byte streams until `exit`.
pub async fn serve<I, O>(input: I, output: O)
where
    I: AsyncRead + Unpin,
    O: AsyncWrite,
{
    let (service, socket) = service();
    Server::new(input, output, socket).serve(service).await;
}

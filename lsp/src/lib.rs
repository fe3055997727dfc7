//! The NiLang language server: the compiler's salsa database, through the
//! editor layer `nilang-ide` (its only dependency on the compiler), behind
//! the Language Server Protocol (tower-lsp-server over stdio).
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
pub mod transport;
mod watch;
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

/// Serves one client over a pair of byte streams until `exit` (or the end
/// of the input). Undecodable messages are answered with a JSON-RPC error
/// and skipped (see [`transport`]) instead of ending the session. Returns
/// the exit status the protocol asks for: 0 when `shutdown` came first, 1
/// otherwise.
pub async fn serve<I, O>(input: I, output: O) -> i32
where
    I: AsyncRead + Unpin,
    O: AsyncWrite + Unpin,
{
    let (service, socket) = service();
    let (to_server, server_input) = tokio::io::duplex(1 << 16);
    let (server_output, from_server) = tokio::io::duplex(1 << 16);
    let output = tokio::sync::Mutex::new(output);
    let server = async {
        Server::new(server_input, server_output, socket)
            .serve(service)
            .await;
    };
    let server_side = async {
        tokio::join!(server, transport::copy_output(from_server, &output));
    };
    let session = transport::Session::default();
    let input_side = transport::filter_input(input, to_server, &output, &session);
    tokio::pin!(server_side, input_side);
    tokio::select! {
        _ = &mut server_side => {}
        _ = &mut input_side => server_side.await,
    }
    session.exit_code()
}

//! Helpers shared by the integration tests that run `nilc` as a user would.

use std::path::Path;

/// `PATH` with the `nilc` under test first, as `cargo install` would have it.
pub fn path_with_nilc() -> std::ffi::OsString {
    let bin = Path::new(env!("CARGO_BIN_EXE_nilc")).parent().unwrap();
    let mut paths = vec![bin.to_path_buf()];
    paths.extend(std::env::split_paths(
        &std::env::var_os("PATH").unwrap_or_default(),
    ));
    std::env::join_paths(paths).unwrap()
}

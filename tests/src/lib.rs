//! Programs of the end-to-end tests, generated from `nil/` by `build.rs`.

nilang::include_nil!(pub mod semantics);

//! A library of `.nil` functions that other crates import: each module is
//! included at the crate root under its file's name, where dependents'
//! generated code calls it (`::nilang_testlib::geometry`).

nilang_runtime::include_nil!(pub mod geometry);
nilang_runtime::include_nil!(pub mod transforms);

//! The NiLang compiler, for its shells (`nilc`, the build plugin) and for
//! tests: the layers under one name.
//!
//! The compiler itself lives in four crates whose dependencies point one
//! way, so that no layer can reach into one above it (see ARCHITECTURE.md):
//! `nilang-syntax` (tree, parser, printer, diagnostics) ->
//! `nilang-analysis` (the salsa database, resolution, types, checks,
//! taping plan, inversion) -> `nilang-codegen` (the Rust and WGSL backends)
//! -> `nilang-ide` (what editors ask). This crate re-exports them under the
//! module names the shells use, and holds `nilc`, the only part that reads
//! files and writes to the terminal.

pub use nilang_analysis::{
    builtins, check, effects, invert, kernel, names, primitive, resolve, structs, taping, ty,
    typeck, types,
};
pub use nilang_codegen as codegen;
pub use nilang_ide as ide;
pub use nilang_syntax::{ast, diagnostics, files, format, parser as syntax, printer, render};

/// The database and every tracked query: the analysis's and the backends'.
pub mod db {
    pub use nilang_analysis::db::*;
    pub use nilang_codegen::queries::*;
}

pub use db::{Db, FnId, Project, RootDatabase, SourceFile};

pub mod project;
pub mod repl;
pub mod sarif;
pub use diagnostics::{Diagnostic, Severity};

//! The NiLang compiler core.
//!
//! A pure library: no file system, no printing. Text goes in through the
//! salsa inputs of [`db`]; trees, diagnostics, inverses and generated code
//! come out of its tracked queries. `nilc`, the build plugin and the
//! language server are thin shells around it (see ARCHITECTURE.md).

pub mod ast;
pub mod builtins;
pub mod check;
pub mod codegen;
pub mod db;
pub mod diagnostics;
pub mod effects;
pub mod ide;
pub mod invert;
pub mod kernel;
pub mod primitive;
pub mod printer;
pub mod render;
pub mod resolve;
pub mod structs;
pub mod syntax;
pub mod taping;
pub mod typeck;
pub mod types;

pub use db::{Db, FnId, Project, RootDatabase, SourceFile};
pub use diagnostics::{Diagnostic, Severity};

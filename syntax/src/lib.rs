//! The syntax layer of the NiLang compiler, the bottom of the stack
//! (syntax -> analysis -> backends -> ide -> shells; see ARCHITECTURE.md).
//!
//! Text in, values out, no IO: [`parser::parse`] turns any string into a
//! tree ([`ast`]) and syntax diagnostics, [`printer`] turns a tree back into
//! source, and [`diagnostics`] with [`render`] is the one diagnostic type
//! every layer reports with and its human and JSON renderings.

pub mod ast;
pub mod diagnostics;
mod fields;
pub mod files;
pub mod format;
pub mod highlight;
mod julia;
pub mod parser;
pub mod printer;
pub mod render;
pub mod reparse;
pub mod stack;

pub use diagnostics::{Diagnostic, Severity};

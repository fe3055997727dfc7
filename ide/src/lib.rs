//! What editors ask of NiLang code, over the database: what is at a byte
//! offset, where it is defined and used, hover text, the outline, code
//! lenses, completion items, semantic classes of names, formatting, the
//! diagnostics to publish, and previews of the inverse and of the generated
//! Rust.
//!
//! Pure functions like the rest of the core: they take the database and byte
//! offsets into a file's text and return plain values with absolute spans,
//! strings and small enums. Every text a user reads is built here; a shell
//! (the language server) only converts offsets to and from editor positions
//! and these values into its protocol's types. This crate also re-exports
//! what a shell needs to own and feed the database, so that it depends on
//! this layer alone.
//!
//! One job a module: [`navigation`] (symbols, definitions, references,
//! highlights), [`folding`], [`fixes`] (quick fixes),
//! [`hover`](mod@hover), [`symbols`] (the outline), [`lenses`],
//! [`completion`] (including the names in scope), [`highlight`] (semantic
//! classes), [`format`](mod@format), [`diagnostics`], [`previews`]
//! (inverses and generated Rust), [`rename`](mod@rename), [`signature`] (signature help), [`inlay`] (hints),
//! [`inputs`]
//! (setting the database's inputs).

pub mod completion;
pub mod diagnostics;
pub mod fixes;
pub mod folding;
pub mod format;
pub mod highlight;
pub mod hover;
pub mod inlay;
pub mod inputs;
pub mod lenses;
pub mod navigation;
pub mod previews;
pub mod rename;
pub mod signature;
pub mod symbols;

#[cfg(test)]
mod tests;

pub use completion::{
    CompletionItem, CompletionKind, KEYWORD_SNIPPETS, ScopeName, completions, names_in_scope,
};
pub use diagnostics::{file_diagnostics, message_with_help};
pub use fixes::{Fix, fixes};
pub use folding::{FoldKind, folding_ranges};
pub use format::{FormatRefusal, Indent, format_edits, format_file};
pub use highlight::{NameClass, classify_names, highlight_tokens};
pub use hover::{Hover, hover, instruction_signature, instruction_summary};
pub use inlay::{InlayHint, inlay_hints};
pub use inputs::{Cancelled, set_file_text, set_project_files, set_project_libraries};
pub use lenses::{CodeLens, LensAction, code_lenses};
pub use navigation::{
    Symbol, definition, function_at, highlights, references, statement_at, symbol_at,
};
pub use previews::{
    InversePreview, InverseRefusal, InverseTarget, RustRefusal, function_has_errors,
    generated_rust, inverse_preview, statement_inverse,
};
pub use rename::{prepare_rename, rename};
pub use signature::{SignatureHelp, signature_help};
pub use symbols::{DocumentSymbol, SymbolKind, document_symbols, project_symbols};

pub use nilang_analysis::db::{
    Db, FnId, LibraryModule, Project, RootDatabase, SourceFile, missing_packages, project_with_std,
};
pub use nilang_analysis::modules::STD as STD_PACKAGE;
pub use nilang_syntax::ast::Span;
pub use nilang_syntax::diagnostics::{Diagnostic, Label, Severity};
pub use nilang_syntax::files::{is_nil_file, skipped_folder};
/// The ranges "expand selection" steps through (syntax nodes around an
/// offset, innermost first).
pub use nilang_syntax::parser::enclosing_ranges as selection_ranges;

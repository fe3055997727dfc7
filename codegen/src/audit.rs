//! Whether the Rust backend's own kind of each expression agrees with the
//! type the analysis gave it (issue "one typed body": types decided once).
//!
//! The backend still works out a [`Kind`] for each expression it emits.
//! [`kinds_against_analysis`] runs code generation with a comparison of that
//! kind against `kind_of` of the analysis's type, for each expression of a
//! function's forward program and of its inverse (outside broadcasts, whose
//! element reads the backend makes up, and outside reverse passes, whose
//! adjoint rules it makes up too); `codegen/tests/kinds.rs` runs it over the repository's
//! programs and keeps what still differs as a snapshot, so the list can only
//! shrink. Off (one thread-local read per expression) unless a caller asks.

use std::cell::RefCell;

use nilang_analysis::ast::Expr;
use nilang_analysis::ty::Ty;

use crate::kinds::{Kind, kind_of};

/// One expression whose kinds differ.
#[derive(Clone, Debug, PartialEq, Eq, PartialOrd, Ord)]
pub struct KindMismatch {
    /// The Rust name of the function.
    pub function: String,
    /// `forward` (the function) or `inverse` (its uncall).
    pub pass: &'static str,
    /// The expression as `.nil` source.
    pub expr: String,
    /// The backend's kind, as `Debug` prints it.
    pub backend: String,
    /// The analysis's type at the expression's range, if it typed one
    /// there (`None` for an expression the backend made up itself).
    pub analysis: Option<String>,
}

thread_local! {
    static LOG: RefCell<Option<Vec<KindMismatch>>> = const { RefCell::new(None) };
}

/// Runs `f` (code generation) and returns what it returned with every
/// expression whose backend kind differed from the analysis's type.
pub fn kinds_against_analysis<R>(f: impl FnOnce() -> R) -> (R, Vec<KindMismatch>) {
    let outer = LOG.with(|log| log.borrow_mut().replace(Vec::new()));
    let result = f();
    let found = LOG.with(|log| std::mem::replace(&mut *log.borrow_mut(), outer));
    (result, found.unwrap_or_default())
}

/// Records `expr` when its kinds differ and a caller asked.
pub(crate) fn compare(
    function: &str,
    pass: &'static str,
    expr: &Expr,
    backend: &Kind,
    analysis: Option<&Ty>,
) {
    LOG.with(|log| {
        let mut log = log.borrow_mut();
        let Some(found) = log.as_mut() else {
            return;
        };
        let theirs = analysis.map(kind_of);
        if theirs.as_ref() != Some(backend) {
            found.push(KindMismatch {
                function: function.to_string(),
                pass,
                expr: crate::printer::print_expr(expr),
                backend: format!("{backend:?}"),
                analysis: theirs.map(|k| format!("{k:?}")),
            });
        }
    });
}

//! The inverse of a function, as a tree and as source.

use super::inputs::{Db, FnId, SourceFile, parse_file};
use super::items::item;
use crate::ast::Function;
use crate::invert;
use crate::printer;
use std::sync::Arc;

/// The inverse of a function as a tree (spans of the original), of the
/// function as written: names as the file spells them (`i_norm2` under
/// `using std.linalg`), not as the analysis qualifies them.
#[salsa::tracked(returns(clone))]
pub fn inverse_function<'db>(db: &'db dyn Db, f: FnId<'db>) -> Option<Arc<Function>> {
    item(db, f).map(|item| Arc::new(invert::invert_function(&item.function)))
}

/// The inverse of a function as `.nil` source. In it, calls `g(...)` and
/// uncalls `~g(...)` trade places, so the inverses of all the functions of a
/// file form a module that is the inverse of the original.
#[salsa::tracked(returns(ref))]
pub fn inverse_source<'db>(db: &'db dyn Db, f: FnId<'db>) -> String {
    inverse_function(db, f)
        .map(|inv| printer::print_function(&inv))
        .unwrap_or_default()
}

/// What the inverse of a file's functions needs above them to check on its
/// own: the file's `using` and `import` lines (the inverses call what the
/// functions call, by the same names), and for the whole file its structs
/// (their own inverse). `nilc inverse` and the editor's preview print it.
pub fn inverse_header(db: &dyn Db, file: SourceFile, whole_file: bool) -> String {
    let parsed = parse_file(db, file);
    let mut out: String = parsed.imports.iter().map(printer::print_import).collect();
    if !out.is_empty() {
        out.push('\n');
    }
    if whole_file {
        for s in &parsed.structs {
            out.push_str(&printer::print_struct(s));
            out.push('\n');
        }
    }
    out
}

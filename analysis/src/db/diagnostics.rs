//! A file's diagnostics: what every shell reports.

use super::checks::chunk_checks;
use super::inputs::{Db, Project, SourceFile, parse_file};
use super::items::{CHUNK, chunk_count, item_table, project_structs};
use super::scopes::module_diagnostics;
use crate::diagnostics::Diagnostic;
use std::sync::Arc;

/// What `nilc check`, the build plugin and the language server report for
/// a file: every diagnostic of the analysis, with absolute spans, sorted by
/// position, each once. They include what the backends cannot generate
/// (E0701, [`crate::limits`]): the backends raise nothing of their own
/// (`compiler/tests/limits.rs` and `tests/tests/same_diagnostics.rs`).
#[salsa::tracked(returns(ref))]
pub fn file_diagnostics(db: &dyn Db, project: Project, file: SourceFile) -> Arc<Vec<Diagnostic>> {
    let parsed = parse_file(db, file);
    let mut out = parsed.diagnostics.clone();
    // The chunks hold the parse's items in order; the offsets come from the
    // parse itself rather than one `function_offset` query each, which
    // would all re-run on every edit (offsets move).
    for k in 0..chunk_count(db, file) {
        let items = &parsed.items[k as usize * CHUNK..];
        for (checks, item) in chunk_checks(db, project, file, k).iter().zip(items) {
            let offset = item.offset;
            out.extend(checks.diagnostics.iter().map(|d| d.clone().shifted(offset)));
        }
    }
    let offset = |item: u32| parsed.items.get(item as usize).map_or(0, |i| i.offset);
    out.extend(
        item_table(db, project)
            .duplicates
            .iter()
            .filter(|(f, _)| *f == file)
            .map(|(_, d)| d.absolute(&offset)),
    );
    out.extend(module_diagnostics(db, project, file));
    out.extend(
        project_structs(db, project)
            .diagnostics
            .iter()
            .filter(|(f, _)| *f == file)
            .map(|(_, d)| d.clone()),
    );
    out.sort_by_key(|d| (d.primary.span.start, d.code));
    out.dedup();
    Arc::new(out)
}

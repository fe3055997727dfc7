//! Folding ranges: functions, structs, the statements that hold a block
//! (`for`, `while`, `if`, `begin`, `@routine`, `~(...)`, `@tape`), and runs
//! of comment lines.

use nilang_analysis::ast::{Span, StmtKind, walk_stmts};
use nilang_analysis::db::{self, Db, Project, SourceFile};

/// What a folding range holds.
#[derive(Clone, Copy, PartialEq, Eq, Debug)]
pub enum FoldKind {
    /// Code that ends with `end` (the editor keeps that line visible).
    Block,
    /// Two or more comment lines in a row.
    Comment,
}

/// The folding ranges of `file`, absolute spans, in order of their start.
/// Only ranges over more than one line.
pub fn folding_ranges(db: &dyn Db, project: Project, file: SourceFile) -> Vec<(Span, FoldKind)> {
    let text = file.text(db);
    let mut out = Vec::new();
    for &f in db::file_functions(db, project, file) {
        let Some(ast) = db::function_ast(db, f) else {
            continue;
        };
        let offset = db::function_offset(db, f);
        out.push((ast.span.shift(offset), FoldKind::Block));
        walk_stmts(&ast.body.stmts, &mut |s| {
            if matches!(
                s.kind,
                StmtKind::If { .. }
                    | StmtKind::While { .. }
                    | StmtKind::For { .. }
                    | StmtKind::Begin(_)
            ) {
                out.push((s.span.shift(offset), FoldKind::Block));
            }
        });
    }
    let structs = db::project_structs(db, project);
    for (def, i) in structs.table.by_name.values() {
        if structs.files.get(*i) == Some(&file) {
            out.push((def.span, FoldKind::Block));
        }
    }
    comments(text, &mut out);
    out.retain(|(span, _)| {
        text.get(span.start as usize..span.end as usize)
            .is_some_and(|t| t.trim_end().contains('\n'))
    });
    out.sort_by_key(|(span, _)| (span.start, std::cmp::Reverse(span.end)));
    out.dedup();
    out
}

/// Runs of two or more lines that hold only a comment.
fn comments(text: &str, out: &mut Vec<(Span, FoldKind)>) {
    let mut run: Option<(usize, usize, usize)> = None; // start, end, lines
    let mut at = 0;
    for line in text.split_inclusive('\n') {
        let content = line.trim_end_matches(['\n', '\r']);
        if content.trim_start().starts_with('#') {
            let end = at + content.len();
            run = Some(match run {
                Some((start, _, n)) => (start, end, n + 1),
                None => (at + (content.len() - content.trim_start().len()), end, 1),
            });
        } else if let Some((start, end, n)) = run.take()
            && n >= 2
        {
            out.push((Span::new(start as u32, end as u32), FoldKind::Comment));
        }
        at += line.len();
    }
    if let Some((start, end, n)) = run
        && n >= 2
    {
        out.push((Span::new(start as u32, end as u32), FoldKind::Comment));
    }
}

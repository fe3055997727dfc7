//! Inlay hints: before each argument of a call (of a project function or an
//! instruction), the name of the parameter it goes to, marked `!` where the
//! callee changes it, so that what a call changes is visible where it is
//! called.

use nilang_analysis::ast::{Span, StmtKind, walk_stmts};
use nilang_analysis::builtins;
use nilang_analysis::db::{self, Db, Project, SourceFile};

use crate::hover::instruction_parameters;

/// One hint: the absolute offset it goes before, and its text.
#[derive(Clone, PartialEq, Eq, Debug)]
pub struct InlayHint {
    pub offset: u32,
    pub label: String,
    /// The argument is changed by the call.
    pub changed: bool,
}

/// The hints of the calls of `file` that start inside `range`.
pub fn inlay_hints(db: &dyn Db, project: Project, file: SourceFile, range: Span) -> Vec<InlayHint> {
    let mut out = Vec::new();
    for &f in db::file_functions(db, project, file) {
        let Some(ast) = db::function_ast(db, f) else {
            continue;
        };
        let offset = db::function_offset(db, f);
        let span = ast.span.shift(offset);
        if span.end < range.start || span.start > range.end {
            continue;
        }
        let mut calls = Vec::new();
        walk_stmts(&ast.body.stmts, &mut |s| {
            if matches!(s.kind, StmtKind::Call(_)) {
                calls.push(s);
            }
        });
        for call in calls {
            let StmtKind::Call(call_ast) = &call.kind else {
                continue;
            };
            let start = call.span.start + offset;
            if start < range.start || start > range.end {
                continue;
            }
            let name = call_ast.callee.name.as_str();
            // (name, changed) per parameter.
            let params: Vec<(String, bool)> =
                if let Some(g) = db::lookup_function(db, project, name) {
                    let Some(callee) = db::function_ast(db, g) else {
                        continue;
                    };
                    let mutated = db::mutated_params(db, project, name).unwrap_or_default();
                    callee
                        .params
                        .iter()
                        .enumerate()
                        .map(|(i, p)| {
                            let changed = mutated.get(i).copied().unwrap_or(false);
                            (p.name.name.trim_end_matches('!').to_string(), changed)
                        })
                        .collect()
                } else if let Some(instruction) = builtins::instruction(name) {
                    instruction_parameters(instruction)
                        .into_iter()
                        .map(|(name, changed)| (name.to_string(), changed))
                        .collect()
                } else {
                    continue;
                };
            for (arg, (param, changed)) in call_ast.args.iter().zip(params) {
                // `x` passed to `x!`: the name says it already, unless the
                // change needs saying.
                let text = file
                    .text(db)
                    .get((arg.span.start + offset) as usize..(arg.span.end + offset) as usize)
                    .unwrap_or_default();
                if text.trim_end_matches('!') == param && !changed {
                    continue;
                }
                out.push(InlayHint {
                    offset: arg.span.start + offset,
                    label: if changed {
                        format!("{param}!:")
                    } else {
                        format!("{param}:")
                    },
                    changed,
                });
            }
        }
    }
    out
}

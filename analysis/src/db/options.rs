//! What a build's options rule out in a program that checks: the analysis
//! decides it, so the backends generate whatever the options and the
//! program ask for without failing.

use super::functions::function_ast;
use super::inputs::{Db, Project, SourceFile};
use super::items::{file_functions, function_offset};
use crate::ast::{Derivative, StmtKind};
use crate::diagnostics::Diagnostic;

/// The errors of `file` under a build that does (or does not) generate
/// the gradient programs, absolute spans: without them, each gradient call
/// `(∇f)(...)` is E0701, since its entry point runs `f`'s reverse pass.
pub fn build_option_errors(
    db: &dyn Db,
    project: Project,
    file: SourceFile,
    gradients: bool,
) -> Vec<Diagnostic> {
    let mut errors = Vec::new();
    if gradients {
        return errors;
    }
    for &f in file_functions(db, project, file) {
        let Some(ast) = function_ast(db, f) else {
            continue;
        };
        let offset = function_offset(db, f);
        crate::effects::visit_block(&ast.body, &mut |stmt| {
            let StmtKind::Call(call) = &stmt.kind else {
                return;
            };
            if let Some((Derivative::Gradient, base)) = Derivative::of(&call.callee.name) {
                errors.push(
                    Diagnostic::error(
                        "E0701",
                        call.callee.span.shift(offset),
                        format!("`(∇{base})` needs the gradient programs, which this build does not generate"),
                    )
                    .with_label("a gradient call")
                    .with_help("generate gradients (`nilang_build::Config::gradients(true)`, the default), or take the derivative with `(∂f)`"),
                );
            }
        });
    }
    errors
}

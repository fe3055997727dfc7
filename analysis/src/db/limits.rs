//! What the backends cannot generate for a function and for what a kernel
//! calls (E0701).

use super::front::{function_expr_types, function_types, resolve_function};
use super::functions::{function_ast, has_tape_loop};
use super::inputs::{Db, FnId, Project};
use super::items::lookup_function;
use crate::diagnostics::Diagnostic;
use crate::resolve::{self, Resolution};
use std::sync::Arc;

/// E0805 at a kernel's calls that reach a function with a `@tape` loop
/// (directly or through other calls): code that runs on the GPU keeps no
/// tape. The kernel's own tape loops are the checks' (`check.rs`).
pub(crate) fn kernel_callee_tapes(
    db: &dyn Db,
    project: Project,
    resolution: &Resolution,
) -> Vec<Diagnostic> {
    let mut out = Vec::new();
    for call in &resolution.calls {
        let resolve::Callee::Function(name) = &call.callee else {
            continue;
        };
        if let Some((with_tape, ())) = search_callees(db, project, name, &mut |g| {
            has_tape_loop(db, g).then_some(())
        }) {
            let via = if &with_tape == name {
                String::new()
            } else {
                format!(" (through `{with_tape}`)")
            };
            out.push(
                Diagnostic::error(
                    "E0805",
                    call.span,
                    format!("`{name}` runs a tape loop{via}, and this kernel runs on the GPU"),
                )
                .with_label("kernels and the functions they call keep no tape")
                .with_help(format!(
                    "remove `@tape` from `{with_tape}` and write the loop reversibly (`while (pre, post)`, no `=`, `*=` or `/=`)"
                )),
            );
        }
    }
    out
}

/// The first of the functions `name` calls, itself first, then the ones
/// they call (each once), of which `found` has something to say: its name
/// and what `found` said.
fn search_callees<T>(
    db: &dyn Db,
    project: Project,
    name: &str,
    found: &mut dyn FnMut(FnId<'_>) -> Option<T>,
) -> Option<(String, T)> {
    let mut seen = vec![name.to_string()];
    let mut next = vec![name.to_string()];
    while let Some(n) = next.pop() {
        let Some(g) = lookup_function(db, project, &n) else {
            continue;
        };
        if let Some(t) = found(g) {
            return Some((n, t));
        }
        for c in &resolve_function(db, g).calls {
            if let resolve::Callee::Function(m) = &c.callee
                && !seen.contains(m)
            {
                seen.push(m.clone());
                next.push(m.clone());
            }
        }
    }
    None
}

/// What the backends cannot generate in one function (E0701,
/// `limits.rs`): the Rust backend's rules, or with `device` the GPU
/// backend's as well (a kernel, or a function a kernel calls).
#[salsa::tracked(returns(ref))]
pub fn backend_limits<'db>(db: &'db dyn Db, f: FnId<'db>, device: bool) -> Arc<Vec<Diagnostic>> {
    let Some(ast) = function_ast(db, f) else {
        return Arc::default();
    };
    Arc::new(crate::limits::limits(
        &ast,
        resolve_function(db, f),
        &function_types(db, f).defs,
        function_expr_types(db, f),
        device,
    ))
}

/// The GPU backend's limits on the functions a kernel calls, directly or
/// not: E0701 at each call whose callee (or a function it calls) has a
/// parameter that is not a number or a body the GPU backend cannot
/// generate.
pub(crate) fn kernel_callee_limits(
    db: &dyn Db,
    project: Project,
    resolution: &Resolution,
) -> Vec<Diagnostic> {
    let mut out = Vec::new();
    for call in &resolution.calls {
        let resolve::Callee::Function(name) = &call.callee else {
            continue;
        };
        let reason = search_callees(db, project, name, &mut |g| {
            let ast = function_ast(db, g)?;
            let types = function_types(db, g);
            let resolution = resolve_function(db, g);
            let bad_param = ast.params.iter().find(|p| {
                resolution
                    .def_at(p.name.span)
                    .and_then(|id| types.defs.get(id))
                    .is_some_and(|t| !crate::limits::device_type(t, false))
            });
            match bad_param {
                Some(p) => Some(format!("its parameter `{}` is not a number", p.name.name)),
                None => backend_limits(db, g, true)
                    .first()
                    .map(|d| d.message.clone()),
            }
        });
        if let Some((_, reason)) = reason {
            out.push(
                Diagnostic::error(
                    "E0701",
                    call.span,
                    format!("the GPU backend cannot generate the call of `{name}` yet: {reason}"),
                )
                .with_label("called from a kernel")
                .with_help("functions a kernel calls take numbers and use what a kernel may use"),
            );
        }
    }
    out
}

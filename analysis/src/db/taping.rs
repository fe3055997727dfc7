//! Which functions record a tape.

use super::front::{Front, Typed, chunk_front, chunk_typed};
use super::functions::{for_each_function, function_chunk};
use super::inputs::{Db, Project, SourceFile};
use crate::ast::Function;
use rustc_hash::FxHashMap;
use std::sync::Arc;

/// The tape facts of a chunk's functions (see [`TapeFacts`]).
#[salsa::tracked(returns(ref))]
fn chunk_tape_facts(
    db: &dyn Db,
    project: Project,
    file: SourceFile,
    k: u32,
    tape_loops: bool,
) -> Vec<TapeFacts> {
    let fronts = chunk_front(db, project, file, k);
    let typed = chunk_typed(db, project, file, k);
    function_chunk(db, project, file, k)
        .iter()
        .zip(fronts.iter().zip(typed))
        .map(|(ast, (front, typed))| function_tape_facts(ast, front, typed, tape_loops))
        .collect()
}

/// What one function contributes to [`project_taped`]: whether it records
/// on its own (a tropical `+=` in a tape loop, a tape `while`, an overwrite
/// in a tape loop, ...) and which functions it calls where a recording
/// callee would make it record too.
#[derive(Clone, PartialEq, Eq, Debug, Default)]
pub struct TapeFacts {
    pub records: bool,
    pub callees: Vec<String>,
}

/// [`TapeFacts`] of one function. `uses_tape` is an "or" over the body in
/// which each call contributes "the callee records", so asking it once with
/// no callee recording gives `records`, and the calls it asks about are the
/// callees.
fn function_tape_facts(
    ast: &Arc<Function>,
    front: &Front,
    typed: &Typed,
    tape_loops: bool,
) -> TapeFacts {
    let tropical =
        crate::taping::tropical_tape(&ast.body.stmts, &front.resolution, &typed.types, false);
    let ast = if tape_loops {
        Arc::new(crate::taping::tape_all_loops(ast))
    } else {
        ast.clone()
    };
    let callees = std::cell::RefCell::new(Vec::new());
    let records = tropical
        || crate::taping::uses_tape(
            &ast.body.stmts,
            false,
            &crate::taping::Recording {
                taped: &|name| {
                    callees.borrow_mut().push(name.to_string());
                    false
                },
                all: tape_loops,
            },
        );
    let mut callees = callees.into_inner();
    callees.sort();
    callees.dedup();
    TapeFacts { records, callees }
}

/// The functions of the project that record a tape on their own line (see
/// [`crate::taping`]), sorted: those that record on their own (a `@tape`
/// loop there, any loop with `tape_loops`) and, transitively, those that
/// call them where a call records. Re-runs only when some function's
/// [`TapeFacts`] change.
#[salsa::tracked(returns(ref))]
pub fn project_taped(db: &dyn Db, project: Project, tape_loops: bool) -> Arc<Vec<String>> {
    let mut callers: FxHashMap<&str, Vec<&str>> = FxHashMap::default();
    let mut taped: rustc_hash::FxHashSet<&str> = Default::default();
    let mut work: Vec<&str> = Vec::new();
    let mut facts: Vec<(&str, &TapeFacts)> = Vec::new();
    for_each_function(db, project, |name, file, k, i| {
        facts.push((name, &chunk_tape_facts(db, project, file, k, tape_loops)[i]));
    });
    for &(name, facts) in &facts {
        for callee in &facts.callees {
            if let Some(recorder) = crate::derivatives::recorder(callee) {
                callers.entry(recorder).or_default().push(name);
            }
        }
        if facts.records && taped.insert(name) {
            work.push(name);
        }
    }
    while let Some(name) = work.pop() {
        for &caller in callers.get(name).map(Vec::as_slice).unwrap_or_default() {
            if taped.insert(caller) {
                work.push(caller);
            }
        }
    }
    let mut taped: Vec<String> = taped.into_iter().map(str::to_string).collect();
    taped.sort();
    Arc::new(taped)
}

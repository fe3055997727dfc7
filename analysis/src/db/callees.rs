//! The signature of anything generated code calls by name: a function or
//! a derived function ([`callee_signature`]), or a template instance,
//! found through the project's index of instance names rather than by
//! searching the list, with the module its code is generated in.

use std::sync::Arc;

use rustc_hash::FxHashMap;

use super::checks::instance_function;
use super::front::{CalleeSignature, callee_signature};
use super::functions::function_ast;
use super::inputs::{Db, Project, SourceFile, is_local};
use super::instances::{Instance, InstanceId, project_instances};
use super::items::{file_functions, lookup_function};
use crate::ty::Ty;

/// The signature of the callee generated code names `name`: a function of
/// the project, a derived function, or a template instance.
pub fn signature(db: &dyn Db, project: Project, name: &str) -> Option<Arc<CalleeSignature>> {
    if let Some(s) = callee_signature(db, project, name.to_string()) {
        return Some(Arc::clone(s));
    }
    let &i = instance_index(db, project).get(name)?;
    let instance = project_instances(db, project).get(i)?;
    instance_signature(db, project, InstanceId::new(db, instance.clone())).clone()
}

/// Each instance's position in [`project_instances`], by name.
#[salsa::tracked(returns(ref))]
fn instance_index(db: &dyn Db, project: Project) -> FxHashMap<String, usize> {
    project_instances(db, project)
        .iter()
        .enumerate()
        .map(|(i, instance)| (instance.name(), i))
        .collect()
}

/// An instance's signature: its template's parameters (the `Fn` ones are
/// skipped at the call) with the types inferred in its own tree, in its
/// home module ([`instance_home`]).
#[salsa::tracked(returns(ref))]
fn instance_signature<'db>(
    db: &'db dyn Db,
    project: Project,
    id: InstanceId<'db>,
) -> Option<Arc<CalleeSignature>> {
    let instance = id.instance(db);
    let home = instance_home(db, project, instance)?;
    let analysed = instance_function(db, project, id).clone()?;
    let type_of = |span| {
        analysed
            .resolution
            .def_at(span)
            .map(|d| analysed.types.defs[d].clone())
            .unwrap_or(Ty::Unknown)
    };
    Some(Arc::new(CalleeSignature::of_tree(
        home,
        &analysed.ast,
        type_of,
        &analysed.mutated,
        instance.template.clone(),
    )))
}

/// The file an instance's code is generated in: its template's, for a
/// template of this crate; for a library template (whose module is
/// generated in its own crate), that of the first function of this crate
/// it is passed, else that of the first file of this crate that calls it.
pub fn instance_home(db: &dyn Db, project: Project, instance: &Instance) -> Option<SourceFile> {
    let file_of = |name: &str| lookup_function(db, project, name).map(|f| f.file(db));
    let template = file_of(&instance.template)?;
    if is_local(db, project, template) {
        return Some(template);
    }
    let local_files = || {
        project
            .files(db)
            .iter()
            .copied()
            .filter(move |&f| is_local(db, project, f))
    };
    // Of only library functions: the first file that calls it.
    let calls_it = |file: SourceFile| {
        file_functions(db, project, file).iter().any(|&f| {
            let Some(ast) = function_ast(db, f) else {
                return false;
            };
            let mut found = false;
            crate::ast::walk_stmts(&ast.body.stmts, &mut |stmt| {
                if let crate::ast::StmtKind::Call(call) = &stmt.kind
                    && call.callee.name == instance.template
                    && call.args.iter().any(|a| {
                        crate::values::passed(a)
                            .is_some_and(|(p, _)| instance.functions.contains(&p))
                    })
                {
                    found = true;
                }
            });
            found
        })
    };
    instance
        .functions
        .iter()
        .filter_map(|f| file_of(&f.name))
        .find(|&f| is_local(db, project, f))
        .or_else(|| local_files().find(|&f| calls_it(f)))
        .or_else(|| local_files().next())
}

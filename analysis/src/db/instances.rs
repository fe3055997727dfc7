//! The instances of templates a project calls, and their trees.

use super::front::{
    Front, ProjectCallees, Typed, front, function_expr_types, mutated_params, param_type,
};
use super::functions::{for_each_function, function_ast, function_chunk, header};
use super::inputs::{Db, FnId, Project};
use super::items::{lookup_function, struct_table};
use crate::ast::Function;
use crate::diagnostics::{Diagnostic, Severity};
use crate::effects::{self};
use crate::ty::Ty;
use crate::types::FunctionTypes;
use std::sync::Arc;

/// The instance a call of a template reaches: the functions it passes at
/// the template's `Fn` parameters; `None` for a call of anything else, or
/// one that passes no function there.
pub(crate) fn called_instance(
    db: &dyn Db,
    project: Project,
    call: &crate::ast::Call,
) -> Option<Instance> {
    // From the header, not the tree: the checks of every caller ask this,
    // and an edit of the callee's body must not re-run them.
    let positions = &header(db, lookup_function(db, project, &call.callee.name)?)?.fn_params;
    if positions.is_empty() {
        return None;
    }
    Some(Instance {
        template: call.callee.name.clone(),
        functions: crate::values::passed_functions(call, positions.iter().copied())?,
        constants: Vec::new(),
    })
}

/// One instance of a template (`crate::values`): the template and the
/// functions passed for its `Fn` parameters, in order.
#[derive(Clone, PartialEq, Eq, Hash, Debug, PartialOrd, Ord)]
pub struct Instance {
    pub template: String,
    pub functions: Vec<crate::values::Passed>,
    /// The parameters made `Const` (a *variant*: a function that is not a
    /// template, with no functions passed, compiled again with these
    /// parameters constant, for callers in Rust that differentiate with
    /// respect to the others only).
    pub constants: Vec<String>,
}

impl Instance {
    /// A variant of `function` with the parameters `constants` made `Const`.
    pub fn variant(function: &str, constants: &[String]) -> Instance {
        Instance {
            template: function.to_string(),
            functions: Vec::new(),
            constants: constants.to_vec(),
        }
    }

    /// Its name, as calls of it are generated (`map!_with_square!`); a
    /// variant's: `f_const_x_w` (`x` and `w` constant).
    pub fn name(&self) -> String {
        if self.functions.is_empty() && !self.constants.is_empty() {
            return format!(
                "{}_const_{}",
                crate::modules::bare_name(&self.template),
                self.constants.join("_")
            );
        }
        crate::values::instance_name(&self.template, &self.functions)
    }

    /// The functions passed, for messages: `` `square!` ``, `` `scale!(_, ·)` ``.
    pub fn describe(&self) -> String {
        self.functions
            .iter()
            .map(|p| match &p.holes {
                None => format!("`{}`", p.name),
                Some(holes) => format!(
                    "`{}({})`",
                    p.name,
                    holes
                        .iter()
                        .map(|h| if *h { "_" } else { "·" })
                        .collect::<Vec<_>>()
                        .join(", ")
                ),
            })
            .collect::<Vec<_>>()
            .join(", ")
    }
}

/// An instance, as a key of the queries about it.
#[salsa::interned(debug)]
pub struct InstanceId<'db> {
    #[returns(ref)]
    pub instance: Instance,
}

/// The tree of an instance (`values::instantiate`): the template with its
/// `Fn` parameters replaced by the functions passed; `Err` with the reason
/// when it cannot be made (a function unknown, or a partial application
/// whose types do not fit the `Fn` parameter).
#[salsa::tracked(returns(ref))]
pub fn instance_tree<'db>(
    db: &'db dyn Db,
    project: Project,
    id: InstanceId<'db>,
) -> Result<Arc<Function>, String> {
    let instance = id.instance(db);
    let template = lookup_function(db, project, &instance.template)
        .and_then(|t| function_ast(db, t))
        .ok_or_else(|| format!("`{}` is not a function", instance.template))?;
    let fn_params = crate::values::function_params(&template);
    if fn_params.len() != instance.functions.len() {
        return Err("it takes another number of functions".into());
    }
    let template_generics: Vec<String> = template
        .generics
        .iter()
        .map(|g| g.name.name.clone())
        .collect();
    let mut captured = Vec::new();
    let mut fixes: Vec<(String, crate::ast::TypeKind)> = Vec::new();
    let show = |kind: &crate::ast::TypeKind| {
        crate::printer::print_type(&crate::ast::Type {
            kind: kind.clone(),
            span: template.name.span,
        })
    };
    for ((i, _, _), passed) in fn_params.iter().zip(&instance.functions) {
        let function = lookup_function(db, project, &passed.name)
            .and_then(|g| function_ast(db, g))
            .ok_or_else(|| format!("`{}` is not a function", passed.name))?;
        let fn_type = template.params[*i]
            .ty
            .as_ref()
            .ok_or_else(|| "the function parameter has no type".to_string())?;
        let fit = crate::values::fit_function(&function, passed, fn_type, &template_generics)?;
        captured.push(fit.captured);
        for (g, ty) in fit.fixes {
            match fixes.iter().find(|(h, _)| *h == g) {
                Some((_, before)) if !crate::values::same_type_kind(before, &ty) => {
                    return Err(format!(
                        "the functions passed make `{g}` two types, `{}` and `{}`",
                        show(before),
                        show(&ty)
                    ));
                }
                Some(_) => {}
                None => fixes.push((g, ty)),
            }
        }
        // A captured argument is read only: the function must not change it.
        if passed.holes.is_some() {
            let mutated = mutated_params(db, project, &passed.name).unwrap_or_default();
            if let Some(k) = passed
                .captured()
                .into_iter()
                .find(|&k| mutated.get(k).copied().unwrap_or(false))
            {
                return Err(format!(
                    "`{}` changes its parameter `{}`, which is captured",
                    passed.name, function.params[k].name.name
                ));
            }
        }
    }
    let mut tree = crate::values::instantiate(&template, &instance.functions, &captured);
    if !fixes.is_empty() {
        crate::values::fix_generics(&mut tree, &fixes)?;
    }
    if !instance.constants.is_empty() {
        for name in &instance.constants {
            let param = tree
                .params
                .iter_mut()
                .find(|p| p.name.name == *name)
                .ok_or_else(|| format!("`{}` has no parameter `{name}`", instance.template))?;
            param.constant = true;
        }
        tree.name.name = instance.name();
    }
    Ok(Arc::new(tree))
}

/// Every instance of the project's templates that its code reaches: the
/// calls of a template with functions, and the instances those reach (a
/// function passed on). One that cannot be made is left out (E0623 where
/// it is asked). Only the Rust backend asks for it.
#[salsa::tracked(returns(ref))]
pub fn project_instances(db: &dyn Db, project: Project) -> Arc<Vec<Instance>> {
    let mut roots = Vec::new();
    for_each_function(db, project, |_, file, k, i| {
        if let Some(ast) = function_chunk(db, project, file, k).get(i)
            && !crate::values::is_template(ast)
        {
            roots.extend(called_instances(db, project, ast));
        }
    });
    let mut out: Vec<Instance> = Vec::new();
    reach_instances(db, project, roots, |instance, tree| {
        if tree.is_ok() {
            out.push(instance.clone());
        }
        true
    });
    out.sort();
    Arc::new(out)
}

/// The instances the calls of `f` reach.
fn called_instances(db: &dyn Db, project: Project, f: &Function) -> Vec<Instance> {
    let mut out = Vec::new();
    effects::visit_block(&f.body, &mut |stmt| {
        if let crate::ast::StmtKind::Call(call) = &stmt.kind
            && let Some(instance) = called_instance(db, project, call)
        {
            out.push(instance);
        }
    });
    out
}

/// Visits `roots` and every instance their trees reach in turn, each
/// once, with its tree (or why it cannot be made), until `each` says stop.
pub(crate) fn reach_instances(
    db: &dyn Db,
    project: Project,
    mut work: Vec<Instance>,
    mut each: impl FnMut(&Instance, Result<&Arc<Function>, &String>) -> bool,
) {
    let mut seen: Vec<Instance> = Vec::new();
    while let Some(next) = work.pop() {
        if seen.contains(&next) {
            continue;
        }
        let tree = instance_tree(db, project, InstanceId::new(db, next.clone()));
        if !each(&next, tree.as_ref()) {
            return;
        }
        if let Ok(tree) = tree {
            work.extend(called_instances(db, project, tree));
        }
        seen.push(next);
    }
}

/// A generic function with type parameters bound to integers: the key of
/// [`integer_instance`].
#[salsa::interned(debug)]
pub struct IntegerInstance<'db> {
    #[returns(copy)]
    pub function: FnId<'db>,
    /// Sorted by parameter, as [`crate::typeck::Instantiation`] has them.
    #[returns(ref)]
    pub bindings: Vec<(String, Ty)>,
}

/// A generic body typed again at integer bindings: the first error, and
/// the calls that bind a generic callee to an integer in turn.
#[derive(Clone, PartialEq, Eq, Debug)]
pub(crate) struct InstanceTyping {
    /// The first error's code and message.
    pub(crate) refusal: Option<(&'static str, String)>,
    pub(crate) calls: Vec<crate::typeck::Instantiation>,
}

/// The body of a generic function typed with its type parameters bound to
/// integers (`typeck::check_instance_types`): its body was typed once, for a
/// float parameter, and the Rust it becomes is generic in a `Real` that
/// integers implement too, so every caller that binds an integer asks this.
/// Memoized per (function, bindings), for all callers and across edits that
/// leave the callee alone. `None` when the generic body is refused already
/// (its own errors say so) or has no tree.
#[salsa::tracked(returns(ref))]
pub(crate) fn integer_instance<'db>(
    db: &'db dyn Db,
    key: IntegerInstance<'db>,
) -> Option<InstanceTyping> {
    let f = key.function(db);
    let bindings = key.bindings(db);
    let ast = function_ast(db, f)?;
    let generic = front(db, f)?;
    let is_error = |d: &Diagnostic| d.severity == Severity::Error;
    if function_expr_types(db, f).diagnostics.iter().any(is_error) {
        return None;
    }
    let declared = FunctionTypes {
        defs: generic
            .declared
            .defs
            .iter()
            .map(|t| crate::typeck::instantiate(t, bindings))
            .collect(),
        diagnostics: Vec::new(),
    };
    let instance = Front {
        resolution: generic.resolution.clone(),
        declared: Arc::new(declared),
    };
    let project = f.project(db);
    let callees = ProjectCallees { db, project };
    let callees =
        crate::local_callees::WithLocal::new(&callees, &ast, &|i| param_type(&ast, &instance, i));
    let typed = Typed::infer_instance(
        &ast,
        &instance,
        &callees,
        struct_table(db, project),
        bindings,
    );
    Some(InstanceTyping {
        refusal: typed
            .exprs
            .diagnostics
            .iter()
            .find(|d| is_error(d))
            .map(|d| (d.code, d.message.clone())),
        calls: typed.exprs.instantiations.clone(),
    })
}

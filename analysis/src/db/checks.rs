//! The checks of each function and of each template instance.

use super::front::{
    Front, MISSING, ProjectCallees, ProjectItems, Typed, chunk_front, chunk_typed, mutated_params,
    param_type, param_types,
};
use super::functions::{function_ast, function_chunk, header, is_kernel, project_mutations};
use super::inputs::{Db, FnId, Project, SourceFile};
use super::instances::{
    Instance, InstanceId, IntegerInstance, called_instance, instance_tree, integer_instance,
    project_instances, reach_instances,
};
use super::items::{function_names, locate, lookup_function, struct_table};
use super::limits::{kernel_callee_limits, kernel_callee_tapes};
use super::taping::project_taped;
use crate::ast::Function;
use crate::check::{self, CalleeInfo};
use crate::diagnostics::Diagnostic;
use crate::effects::{self};
use crate::resolve::{self, Resolution};
use crate::types::{self, FunctionTypes};
use rustc_hash::FxHashMap;
use std::sync::Arc;

/// What the checking path derives from a function after its types.
#[derive(PartialEq, Eq, Debug, Default)]
pub(crate) struct Checks {
    pub(crate) activity: Arc<crate::activity::Activity>,
    pub(crate) reversibility: Arc<check::Checked>,
    pub(crate) kernel: Arc<crate::kernel::KernelFacts>,
    /// Every diagnostic of the function, function-relative.
    pub(crate) diagnostics: Arc<Vec<Diagnostic>>,
}

#[salsa::tracked(returns(ref))]
pub(crate) fn chunk_checks(db: &dyn Db, project: Project, file: SourceFile, k: u32) -> Vec<Checks> {
    let fronts = chunk_front(db, project, file, k);
    let typed = chunk_typed(db, project, file, k);
    function_chunk(db, project, file, k)
        .iter()
        .zip(fronts)
        .zip(typed)
        .map(|((ast, front), typed)| function_checks(db, project, ast, front, typed, false))
        .collect()
}

pub(crate) fn checks<'db>(db: &'db dyn Db, f: FnId<'db>) -> Option<&'db Checks> {
    let (file, k, i) = locate(db, f)?;
    chunk_checks(db, f.project(db), file, k).get(i)
}

/// The project's callees as the reversibility checks see them: a call of
/// a template that passes functions changes what the instance it reaches
/// changes, so a `Const` or shared argument that the functions passed only
/// read is no write.
struct InstanceCallees<'a>(ProjectCallees<'a>);

impl CalleeInfo for InstanceCallees<'_> {
    fn mutated_params(&self, name: &str) -> Option<Vec<bool>> {
        self.0.mutated_params(name)
    }

    fn constant_params(&self, name: &str) -> Option<Vec<bool>> {
        self.0.constant_params(name)
    }

    fn call_mutations(&self, call: &crate::ast::Call) -> Option<Vec<bool>> {
        let ProjectCallees { db, project } = self.0;
        match called_instance(db, project, call) {
            Some(instance) => {
                Some(instance_mutations(db, project, InstanceId::new(db, instance)).clone())
            }
            None => self.mutated_params(&call.callee.name),
        }
    }
}

/// The back half of one function's analysis, and all its diagnostics.
/// `instance`: `ast` is an instance's tree, whose instances the instance
/// that reaches it checks (`instance_error`), not it.
fn function_checks(
    db: &dyn Db,
    project: Project,
    ast: &Function,
    front: &Front,
    typed: &Typed,
    instance: bool,
) -> Checks {
    let (resolution, types) = (&front.resolution, &*typed.types);
    let expr_types = &*typed.exprs;
    let callees = InstanceCallees(ProjectCallees { db, project });
    let callees =
        crate::local_callees::WithLocal::new(&callees, ast, &|i| param_type(ast, front, i));
    let structs = &**struct_table(db, project);
    let activity =
        crate::activity::activity(ast, resolution, types, &|call| callees.call_mutations(call));
    let reversibility = check::check_function(ast, resolution, types, &callees, &activity);
    let kernel = if ast.kernel {
        crate::kernel::analyze(ast, resolution, types, &callees)
    } else {
        Default::default()
    };
    let mut out = resolution.diagnostics.clone();
    out.extend(types.diagnostics.iter().cloned());
    out.extend(reversibility.diagnostics.iter().cloned());
    out.extend(expr_types.diagnostics.iter().cloned());
    out.extend(integer_instances(db, project, expr_types));
    // The taping plan of the build's default options (the backend checks
    // its own under `tape_loops`).
    let taped_fns = project_taped(db, project, false);
    let taped = |name: &str| {
        crate::derivatives::recorder(name)
            .is_some_and(|r| taped_fns.binary_search_by(|t| t.as_str().cmp(r)).is_ok())
    };
    let mut uncalled = Vec::new();
    crate::taping::uncalled_taped(&ast.body.stmts, false, &taped, &mut uncalled);
    out.extend(uncalled);
    let mutates = |name: &str| mutated_params(db, project, name);
    let mut routine_tapes = crate::taping::RoutineTapes {
        resolution,
        taped: &taped,
        mutates: &mutates,
        record_all: false,
        diagnostics: Vec::new(),
    };
    routine_tapes.routine_tapes(&ast.body.stmts);
    out.extend(routine_tapes.diagnostics);
    if ast.kernel {
        out.extend(kernel_callee_tapes(db, project, resolution));
    }
    if let Some(d) = &ast.primitive {
        let mutated = mutated_params(db, project, &ast.name.name).unwrap_or_default();
        let d_arity = lookup_function(db, project, &d.name)
            .and_then(|g| param_types(db, g).as_ref().map(|(p, _)| p.len()));
        out.extend(crate::primitive::check_primitive(
            ast, resolution, types, &mutated, d_arity,
        ));
    }
    out.extend(kernel.diagnostics.iter().cloned());
    out.extend(crate::limits::limits(
        ast,
        resolution,
        &types.defs,
        expr_types,
        ast.kernel,
    ));
    if ast.kernel {
        out.extend(kernel_callee_limits(db, project, resolution));
    }
    out.extend(crate::struct_checks::check_function(
        ast, resolution, types, structs,
    ));
    out.extend(crate::kernel::misuse(ast, &|name| {
        is_kernel(db, project, name)
    }));
    out.extend(function_value_checks(
        db, project, ast, resolution, instance,
    ));
    out.sort_by_key(|d| (d.primary.span.start, d.code));
    out.dedup();
    Checks {
        activity: Arc::new(activity),
        reversibility: Arc::new(reversibility),
        kernel: Arc::new(kernel),
        diagnostics: Arc::new(out),
    }
}

/// An error at each call that binds a generic callee's type parameter to an
/// integer when the callee's body, typed again with that integer in place
/// of its parameter, is refused (`exp`, `ROT` or `/` of a value that would
/// be an integer): its body was checked for a float, and the Rust it
/// becomes is generic in a `Real` that integers also implement. Generic
/// calls the instance makes are followed the same way.
fn integer_instances(
    db: &dyn Db,
    project: Project,
    exprs: &crate::typeck::ExprTypes,
) -> Vec<Diagnostic> {
    let mut seen = rustc_hash::FxHashSet::default();
    exprs
        .instantiations
        .iter()
        .filter_map(|call| {
            let (code, why) = instance_refusal(db, project, call, &mut seen)?;
            let at: Vec<String> = call
                .bindings
                .iter()
                .map(|(g, t)| format!("`{g}` = `{}`", t.display()))
                .collect();
            Some(
                Diagnostic::error(
                    code,
                    call.span,
                    format!("`{}` with {}: {why}", call.callee, at.join(", ")),
                )
                .with_label(format!("this makes {}", at.join(", ")))
                .with_help(format!(
                    "`{}` was checked for a float type; call it with floats, or write a version of it for integers",
                    call.callee
                )),
            )
        })
        .collect()
}

/// What the analysis refuses in `call`'s callee typed at its bindings (the
/// first error's code and message), following the generic calls it makes;
/// `None` when it is accepted, or when the generic body is refused already
/// (its own errors say so). Each instance is typed once for the whole
/// project ([`integer_instance`]); `seen` only keeps this walk finite.
fn instance_refusal(
    db: &dyn Db,
    project: Project,
    call: &crate::typeck::Instantiation,
    seen: &mut rustc_hash::FxHashSet<(String, Vec<(String, crate::ty::Ty)>)>,
) -> Option<(&'static str, String)> {
    if !seen.insert((call.callee.clone(), call.bindings.clone())) {
        return None;
    }
    let f = lookup_function(db, project, &call.callee)?;
    let typed =
        integer_instance(db, IntegerInstance::new(db, f, call.bindings.clone())).as_ref()?;
    if let Some((code, message)) = &typed.refusal {
        return Some((code, format!("in `{}`, {message}", call.callee)));
    }
    typed
        .calls
        .iter()
        .find_map(|inner| instance_refusal(db, project, inner, seen))
}

/// The functions a function passes by name (`crate::values`): E0623 for
/// one that cannot be passed (a kernel, a template, one with a `Const`
/// parameter or one that records a tape), E0110 where the instance's
/// generated name is a function of the project already. (A kernel cannot
/// take or call a template: the GPU backend's limits say so, E0701.)
fn function_value_checks(
    db: &dyn Db,
    project: Project,
    ast: &Function,
    resolution: &Resolution,
    in_instance: bool,
) -> Vec<Diagnostic> {
    let mut out = Vec::new();
    let taped = project_taped(db, project, false);
    // The holes of each partial application (`g(_, c)`), by its span.
    let mut holes: FxHashMap<crate::ast::Span, Vec<bool>> = FxHashMap::default();
    effects::visit_block(&ast.body, &mut |stmt| {
        if let crate::ast::StmtKind::Call(call) = &stmt.kind {
            for arg in &call.args {
                if let Some((crate::values::Passed { holes: Some(h), .. }, _)) =
                    crate::values::passed(arg)
                {
                    holes.insert(arg.span, h);
                }
            }
        }
    });
    for (span, name) in &resolution.fn_refs {
        let Some(g) = lookup_function(db, project, name) else {
            continue;
        };
        let open = |i: usize| {
            holes
                .get(span)
                .is_none_or(|h| h.get(i).copied().unwrap_or(true))
        };
        let why = match (function_ast(db, g), header(db, g)) {
            (Some(a), _) if a.kernel => Some("it is a GPU kernel"),
            (Some(a), _) if crate::values::is_template(&a) => {
                Some("it takes a function itself (pass the function it should call instead)")
            }
            (_, Some(h)) if h.constant.iter().enumerate().any(|(i, c)| *c && open(i)) => Some(
                "it has a `Const` parameter the template's calls fill, and the derivative of what is passed there would be lost",
            ),
            _ if taped.iter().any(|t| t == name) => Some("it records a tape"),
            _ => None,
        };
        if let Some(why) = why {
            out.push(
                Diagnostic::error(
                    "E0623",
                    *span,
                    format!("`{name}` cannot be passed as a function"),
                )
                .with_label(why.to_string())
                .with_help("pass a reversible function without `Const` parameters or tape loops"),
            );
        }
    }
    // The instances this function's calls name (the project's function
    // names are read only where a call passes a function).
    let mut names: Option<Vec<String>> = None;
    let own: Vec<&str> = crate::values::function_params(ast)
        .into_iter()
        .map(|(_, n, _)| n)
        .collect();
    effects::visit_block(&ast.body, &mut |stmt| {
        let crate::ast::StmtKind::Call(call) = &stmt.kind else {
            return;
        };
        // The functions passed at the callee's `Fn` parameters.
        let Some(Instance { functions, .. }) = called_instance(db, project, call) else {
            return;
        };
        // An instance that cannot be made, or whose code has errors, is
        // refused here, where the functions are passed (in a template, a
        // call passing its own `Fn` parameter is checked in each of its
        // instances instead).
        let arity_ok = functions.iter().all(|p| match &p.holes {
            Some(h) => lookup_function(db, project, &p.name)
                .and_then(|g| header(db, g))
                .is_some_and(|hd| hd.signature.params.len() == h.len()),
            None => true,
        });
        if !arity_ok {
            return;
        }
        if !in_instance && !functions.iter().any(|p| own.contains(&p.name.as_str())) {
            let instance = Instance {
                template: call.callee.name.clone(),
                functions: functions.clone(),
                constants: Vec::new(),
            };
            if let Some(why) = instance_error(db, project, &instance) {
                out.push(
                    Diagnostic::error(
                        "E0623",
                        call.callee.span,
                        format!(
                            "`{}` cannot be instantiated with {}",
                            call.callee.name,
                            instance.describe()
                        ),
                    )
                    .with_label(why)
                    .with_help("pass a function whose open parameters have the types the `Fn` parameter gives, and whose captured arguments it does not change"),
                );
                return;
            }
        }
        let instance =
            crate::names::rust_name(&crate::values::instance_name(&call.callee.name, &functions));
        let names = names.get_or_insert_with(|| function_names(db, project));
        let taken_by = if names.iter().any(|n| crate::names::rust_name(n) == instance) {
            Some("a function of the project".to_string())
        } else {
            // Another instance spelled alike (`t!` with `with_x!` and
            // `t_with!` with `x!` would both be `t_with_with_x`).
            project_instances(db, project)
                .iter()
                .find(|i| {
                    (i.template != call.callee.name || i.functions != functions)
                        && crate::names::rust_name(&i.name()) == instance
                })
                .map(|i| format!("the instance of `{}` with {}", i.template, i.describe()))
        };
        if let Some(other) = taken_by {
            out.push(
                Diagnostic::error(
                    "E0110",
                    call.callee.span,
                    format!("this call's instance would be named `{instance}`, like {other}"),
                )
                .with_label("the generated function's name is taken")
                .with_help("rename one of the functions involved"),
            );
        }
    });
    out
}

/// The reversibility checks of one function (`check.rs`): their
/// diagnostics and the element aliasing left to run-time checks.
pub fn reversibility_checks<'db>(db: &'db dyn Db, f: FnId<'db>) -> &'db Arc<check::Checked> {
    checks(db, f).map_or(&MISSING.reversibility, |x| &x.reversibility)
}

/// The shared-write analysis of a `@kernel` function (its diagnostics, and
/// the array parameters several invocations read), which the checks report
/// and the GPU backend reads; empty for other functions.
pub fn kernel_facts<'db>(db: &'db dyn Db, f: FnId<'db>) -> &'db Arc<crate::kernel::KernelFacts> {
    checks(db, f).map_or(&MISSING.kernel, |x| &x.kernel)
}

/// Which variables of one function carry a derivative
/// ([`crate::activity`]).
pub fn function_activity<'db>(
    db: &'db dyn Db,
    f: FnId<'db>,
) -> &'db Arc<crate::activity::Activity> {
    checks(db, f).map_or(&MISSING.activity, |x| &x.activity)
}

/// Every diagnostic of one function, with function-relative spans.
pub fn check_function<'db>(db: &'db dyn Db, f: FnId<'db>) -> &'db Arc<Vec<Diagnostic>> {
    checks(db, f).map_or(&MISSING.diagnostics, |x| &x.diagnostics)
}

/// Everything the analysis decides about an instance's tree, as about a
/// function of the project: what the Rust backend generates it from.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct InstanceFunction {
    pub ast: Arc<Function>,
    pub resolution: Arc<Resolution>,
    pub types: Arc<FunctionTypes>,
    pub expr_types: Arc<crate::typeck::ExprTypes>,
    pub activity: Arc<crate::activity::Activity>,
    pub reversibility: Arc<check::Checked>,
    /// Which of its parameters it changes: the template's, the captured
    /// ones never.
    pub mutated: Vec<bool>,
    pub diagnostics: Arc<Vec<Diagnostic>>,
}

/// The analysis of an instance's tree (`None` when it cannot be made).
#[salsa::tracked(returns(ref))]
pub fn instance_function<'db>(
    db: &'db dyn Db,
    project: Project,
    id: InstanceId<'db>,
) -> Option<Arc<InstanceFunction>> {
    let ast = instance_tree(db, project, id).as_ref().ok()?.clone();
    let structs = &**struct_table(db, project);
    let items = ProjectItems { db, project };
    let resolution = resolve::resolve(&ast, &items);
    let declared = types::function_types_in(&ast, &resolution, structs);
    let front = Front {
        resolution: Arc::new(resolution),
        declared: Arc::new(declared),
    };
    let callees = ProjectCallees { db, project };
    let typed = Typed::infer(&ast, &front, &callees, structs);
    let checks = function_checks(db, project, &ast, &front, &typed, true);
    let template = id.instance(db).template.clone();
    let template_ast = lookup_function(db, project, &template).and_then(|t| function_ast(db, t))?;
    let fn_positions: Vec<usize> = crate::values::function_params(&template_ast)
        .into_iter()
        .map(|(i, _, _)| i)
        .collect();
    let template_mutated = instance_mutations(db, project, id);
    let mut mutated: Vec<bool> = template_mutated
        .iter()
        .enumerate()
        .filter(|(i, _)| !fn_positions.contains(i))
        .map(|(_, m)| *m)
        .collect();
    mutated.resize(ast.params.len(), false);
    Some(Arc::new(InstanceFunction {
        ast,
        resolution: front.resolution,
        types: typed.types,
        expr_types: typed.exprs,
        activity: checks.activity,
        reversibility: checks.reversibility,
        mutated,
        diagnostics: checks.diagnostics,
    }))
}

/// Which of its template's parameters an instance changes with its
/// functions passed: the effects fixpoint's node for it (`effects::solve`),
/// so that an argument the functions passed only read is `&` in the
/// instance's signature and its callers'; the template's own for a
/// variant, or an instance the fixpoint did not reach.
#[salsa::tracked(returns(ref))]
pub fn instance_mutations<'db>(
    db: &'db dyn Db,
    project: Project,
    id: InstanceId<'db>,
) -> Vec<bool> {
    let instance = id.instance(db);
    let own = (!instance.functions.is_empty())
        .then(|| {
            project_mutations(db, project)
                .get(&instance.name())
                .cloned()
        })
        .flatten();
    own.or_else(|| mutated_params(db, project, &instance.template))
        .unwrap_or_default()
}

/// Why an instance cannot be generated: it cannot be made, or its code
/// has an error (its template's checks hold for any function passed, so
/// this is rare: a type that only the function passed decides).
/// The instances it needs in turn (a function passed on) are checked with
/// it, so that no instance a call reaches fails to build.
fn instance_error(db: &dyn Db, project: Project, instance: &Instance) -> Option<String> {
    let mut why = None;
    reach_instances(db, project, vec![instance.clone()], |next, tree| {
        if let Err(e) = tree {
            why = Some(e.clone());
            return false;
        }
        let analysed = instance_function(db, project, InstanceId::new(db, next.clone()));
        let error = analysed.as_ref().and_then(|a| {
            a.diagnostics
                .iter()
                .find(|d| d.severity == crate::diagnostics::Severity::Error)
        });
        if let Some(d) = error {
            why = Some(format!(
                "its code would have an error: {} ({})",
                d.message, d.code
            ));
        }
        why.is_none()
    });
    why
}

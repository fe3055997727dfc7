//! Name resolution and types, per function (by chunks), and the callees
//! seen by a function.

use super::functions::{
    derivative_problem, derived_base, function_chunk, function_signature, project_mutations,
};
use super::inputs::{Db, FnId, Project, SourceFile};
use super::items::{function_names, locate, lookup_function, struct_table};
use super::scopes::module_registry;
use crate::ast::Function;
use crate::check::{self, CalleeInfo};
use crate::diagnostics::Diagnostic;
use crate::resolve::{self, Items, Resolution, Signature};
use crate::ty::Ty;
use crate::types::{self, FunctionTypes};
use std::sync::Arc;

/// Name resolution and the declared types (parameters, loop variables) of
/// one function: the first half of its analysis, which callers' types and
/// the project-wide facts (what callees mutate) are computed from.
#[derive(PartialEq, Eq, Debug, Default)]
pub(crate) struct Front {
    pub(crate) resolution: Arc<Resolution>,
    /// The types written in the source; ancillas are `Unknown` here until
    /// [`chunk_typed`] infers them.
    pub(crate) declared: Arc<FunctionTypes>,
}

/// One function typed by [`crate::typeck`]: the type of every definition
/// (ancillas included) and of every expression, decided once.
#[derive(PartialEq, Eq, Debug, Default)]
pub(crate) struct Typed {
    pub(crate) types: Arc<FunctionTypes>,
    pub(crate) exprs: Arc<crate::typeck::ExprTypes>,
}

impl Typed {
    /// Types `ast`, whose resolution and declared types are `front`.
    pub(crate) fn infer(
        ast: &Function,
        front: &Front,
        callees: &dyn crate::typeck::CalleeTypes,
        structs: &crate::structs::StructTable,
    ) -> Typed {
        let (types, exprs) =
            crate::typeck::check_types(ast, &front.resolution, &front.declared, callees, structs);
        Typed {
            types: Arc::new(types),
            exprs: Arc::new(exprs),
        }
    }

    /// Types `ast` as the instance of it that `instance` binds (its
    /// declared types in `front` instantiated already).
    pub(crate) fn infer_instance(
        ast: &Function,
        front: &Front,
        callees: &dyn crate::typeck::CalleeTypes,
        structs: &crate::structs::StructTable,
        instance: &[(String, crate::ty::Ty)],
    ) -> Typed {
        let (types, exprs) = crate::typeck::check_instance_types(
            ast,
            &front.resolution,
            &front.declared,
            callees,
            structs,
            instance,
        );
        Typed {
            types: Arc::new(types),
            exprs: Arc::new(exprs),
        }
    }
}

#[salsa::tracked(returns(ref))]
pub(crate) fn chunk_front(db: &dyn Db, project: Project, file: SourceFile, k: u32) -> Vec<Front> {
    let structs = &**struct_table(db, project);
    let items = ProjectItems { db, project };
    function_chunk(db, project, file, k)
        .iter()
        .map(|ast| {
            let items = crate::local_callees::WithLocal::new(&items, ast, &|_| None);
            let resolution = resolve::resolve(ast, &items);
            let declared = types::function_types_in(ast, &resolution, structs);
            Front {
                resolution: Arc::new(resolution),
                declared: Arc::new(declared),
            }
        })
        .collect()
}

/// The type of a function's `i`-th positional parameter.
pub(crate) fn param_type(ast: &Function, front: &Front, i: usize) -> Option<Ty> {
    let p = ast.params.get(i)?;
    let id = front.resolution.def_at(p.name.span)?;
    front.declared.defs.get(id).cloned()
}

pub(crate) fn front<'db>(db: &'db dyn Db, f: FnId<'db>) -> Option<&'db Front> {
    let (file, k, i) = locate(db, f)?;
    chunk_front(db, f.project(db), file, k).get(i)
}

/// The positional parameter types of a chunk's functions and which they
/// mutate: what callers are checked against (backdated when only bodies
/// change).
#[salsa::tracked(returns(ref))]
fn chunk_signatures(
    db: &dyn Db,
    project: Project,
    file: SourceFile,
    k: u32,
) -> Vec<Option<(Vec<Ty>, Vec<bool>)>> {
    let fronts = chunk_front(db, project, file, k);
    let mutations = chunk_mutations(db, project, file, k);
    function_chunk(db, project, file, k)
        .iter()
        .zip(fronts)
        .zip(mutations)
        .map(|((ast, front), mutated)| {
            let params = types::param_types(ast, &front.resolution, &front.declared.defs);
            Some((params, mutated.clone()))
        })
        .collect()
}

/// Which parameters each of a chunk's functions mutates, read from the
/// project's table: when the table changes, this re-runs for every chunk
/// (a lookup per function) and is backdated for all but the chunks whose
/// functions' mutations changed, so the signatures and the checks that read
/// them are not computed again for the others.
#[salsa::tracked(returns(ref))]
fn chunk_mutations(db: &dyn Db, project: Project, file: SourceFile, k: u32) -> Vec<Vec<bool>> {
    let table = project_mutations(db, project);
    function_chunk(db, project, file, k)
        .iter()
        .map(|ast| table.get(&ast.name.name).cloned().unwrap_or_default())
        .collect()
}

/// The type of every definition and expression of a chunk's functions,
/// and their type errors ([`crate::typeck`]); apart from [`chunk_checks`],
/// so that a kernel's checks can ask for the backend limits of a callee in
/// the same chunk.
#[salsa::tracked(returns(ref))]
pub(crate) fn chunk_typed(db: &dyn Db, project: Project, file: SourceFile, k: u32) -> Vec<Typed> {
    let callees = ProjectCallees { db, project };
    let structs = &**struct_table(db, project);
    let fronts = chunk_front(db, project, file, k);
    function_chunk(db, project, file, k)
        .iter()
        .zip(fronts)
        .map(|(ast, front)| {
            let callees =
                crate::local_callees::WithLocal::new(&callees, ast, &|i| param_type(ast, front, i));
            Typed::infer(ast, front, &callees, structs)
        })
        .collect()
}

fn typed<'db>(db: &'db dyn Db, f: FnId<'db>) -> Option<&'db Typed> {
    let (file, k, i) = locate(db, f)?;
    chunk_typed(db, f.project(db), file, k).get(i)
}

/// The values the per-function accessors answer for a function that is
/// not in its file any more.
pub(crate) struct Missing {
    pub(crate) resolution: Arc<Resolution>,
    pub(crate) types: Arc<FunctionTypes>,
    pub(crate) expr_types: Arc<crate::typeck::ExprTypes>,
    pub(crate) reversibility: Arc<check::Checked>,
    pub(crate) kernel: Arc<crate::kernel::KernelFacts>,
    pub(crate) diagnostics: Arc<Vec<Diagnostic>>,
    pub(crate) param_types: Option<(Vec<Ty>, Vec<bool>)>,
    pub(crate) activity: Arc<crate::activity::Activity>,
}

pub(crate) static MISSING: std::sync::LazyLock<Missing> = std::sync::LazyLock::new(|| Missing {
    resolution: Arc::default(),
    types: Arc::default(),
    expr_types: Arc::default(),
    reversibility: Arc::default(),
    kernel: Arc::default(),
    diagnostics: Arc::default(),
    param_types: None,
    activity: Arc::default(),
});

/// Name resolution of one function.
pub fn resolve_function<'db>(db: &'db dyn Db, f: FnId<'db>) -> &'db Arc<Resolution> {
    front(db, f).map_or(&MISSING.resolution, |x| &x.resolution)
}

/// Types of the parameters and ancillas of one function.
pub fn function_types<'db>(db: &'db dyn Db, f: FnId<'db>) -> &'db Arc<FunctionTypes> {
    typed(db, f).map_or(&MISSING.types, |x| &x.types)
}

/// The type of every expression of a function, and its type errors
/// ([`crate::typeck`]).
pub fn function_expr_types<'db>(
    db: &'db dyn Db,
    f: FnId<'db>,
) -> &'db Arc<crate::typeck::ExprTypes> {
    typed(db, f).map_or(&MISSING.expr_types, |x| &x.exprs)
}

/// The parameters of the function or derived function `name` that it
/// mutates, by position. A function's are read from its chunk's
/// [`chunk_mutations`] (which salsa backdates), not from the project's table: what reads them
/// depends on its callees' chunks, so an edit that changes what one
/// function mutates re-checks its callers rather than every function of
/// the project (in a 10 MB file, commenting out an `out! += …` took half a
/// second a keystroke when every check read the table).
pub fn mutated_params(db: &dyn Db, project: Project, name: &str) -> Option<Vec<bool>> {
    match lookup_function(db, project, name).and_then(|f| locate(db, f)) {
        Some((file, k, i)) => chunk_mutations(db, project, file, k).get(i).cloned(),
        None => project_mutations(db, project).get(name).cloned(),
    }
}

/// The positional parameter types of a function and which it mutates: what
/// a caller's types are checked against.
pub fn param_types<'db>(db: &'db dyn Db, f: FnId<'db>) -> &'db Option<(Vec<Ty>, Vec<bool>)> {
    locate(db, f)
        .and_then(|(file, k, i)| chunk_signatures(db, f.project(db), file, k).get(i))
        .unwrap_or(&MISSING.param_types)
}

/// What the name of a call stands for, looked up once: a function of the
/// project, or the derivative (`∇f`, `∂f`) of one, whose parameters are
/// `f`'s with their companions where `mask` says
/// (`derivatives::companions`). Its [`callee_signature`] is what the
/// typing, the checks and the backends know of it; the resolver reads only
/// its parameters' names ([`Callable::signature`]).
#[derive(Clone, PartialEq, Eq, Debug, salsa::SalsaValue)]
pub enum Callable<'db> {
    Function(FnId<'db>),
    Derived {
        derivative: crate::derivatives::Derivative,
        base: FnId<'db>,
        mask: Vec<bool>,
    },
}

impl<'db> Callable<'db> {
    /// The callable a call names `name` in `project`, if any.
    pub fn named(db: &'db dyn Db, project: Project, name: &str) -> Option<Self> {
        if let Some((derivative, base, mask)) = derived_base(db, project, name) {
            return Some(Callable::Derived {
                derivative,
                base,
                mask,
            });
        }
        lookup_function(db, project, name).map(Callable::Function)
    }

    /// Its parameters' names, as the call names it (`name`).
    pub fn signature(&self, db: &'db dyn Db, name: &str) -> Option<Signature> {
        match self {
            Callable::Function(f) => function_signature(db, *f),
            Callable::Derived {
                derivative,
                base,
                mask,
            } => {
                let base = function_signature(db, *base)?;
                Some(Signature {
                    name: name.to_string(),
                    params: crate::derivatives::param_names(*derivative, &base.params, mask),
                    kwparams: Vec::new(),
                })
            }
        }
    }
}

pub(crate) struct ProjectItems<'a> {
    pub(crate) db: &'a dyn Db,
    pub(crate) project: Project,
}

impl Items for ProjectItems<'_> {
    fn signature(&self, name: &str) -> Option<Signature> {
        Callable::named(self.db, self.project, name)?.signature(self.db, name)
    }

    fn function_names(&self) -> Vec<String> {
        function_names(self.db, self.project)
    }

    fn struct_arity(&self, name: &str) -> Option<usize> {
        struct_table(self.db, self.project)
            .get(name)
            .map(|d| d.fields.len())
    }

    fn derivative_problem(&self, name: &str) -> Option<String> {
        derivative_problem(self.db, self.project, name)
    }

    fn defined_in(&self, name: &str) -> Vec<String> {
        module_registry(self.db, self.project)
            .defining(name)
            .into_iter()
            .map(str::to_string)
            .collect()
    }
}

/// What the checks of one function need to know of the project's others:
/// each callee's [`callee_signature`].
pub struct ProjectCallees<'a> {
    pub db: &'a dyn Db,
    pub project: Project,
}

impl ProjectCallees<'_> {
    fn signature(&self, name: &str) -> Option<&Arc<CalleeSignature>> {
        callee_signature(self.db, self.project, name.to_string()).as_ref()
    }
}

impl CalleeInfo for ProjectCallees<'_> {
    fn mutated_params(&self, name: &str) -> Option<Vec<bool>> {
        match self.signature(name) {
            Some(s) => Some(s.mutated()),
            // A name that is no function of the project: the table's
            // answer, if it has one.
            None => mutated_params(self.db, self.project, name),
        }
    }

    fn constant_params(&self, name: &str) -> Option<Vec<bool>> {
        self.signature(name)
            .map(|s| s.params.iter().map(|p| p.constant).collect())
    }
}

impl crate::typeck::CalleeTypes for ProjectCallees<'_> {
    fn param_types(&self, name: &str) -> Option<(Vec<Ty>, Vec<bool>)> {
        self.signature(name)
            .map(|s| (s.params.iter().map(|p| p.ty.clone()).collect(), s.mutated()))
    }
}

/// One positional parameter of a callee, as its callers see it.
#[derive(Clone, PartialEq, Eq, Debug)]
pub struct ParamSignature {
    pub name: String,
    /// Its declared type (a companion's: its parameter's).
    pub ty: Ty,
    /// The callee changes it.
    pub mutated: bool,
    /// Declared `Const<T>`: it has no adjoint.
    pub constant: bool,
}

/// Everything a call needs to know of its callee (a function of the
/// project, or a derived function `∇f`, `∂f`; a template instance's is
/// `db::signature`'s), decided once per name and memoized: the typing, the
/// checks and the Rust backend all read this. The resolver reads only the
/// names ([`Callable::signature`]), since what a function changes depends
/// on the resolution of every function.
#[derive(Clone, PartialEq, Eq, Debug)]
pub struct CalleeSignature {
    /// The file whose module holds the callee's code (a derived function's:
    /// its function's).
    pub home: SourceFile,
    pub params: Vec<ParamSignature>,
    /// Keyword parameters: name, declared type, default.
    pub kwparams: Vec<(String, Ty, crate::ast::Expr)>,
    /// Which derivative it is, for a derived function.
    pub derivative: Option<crate::derivatives::Derivative>,
    /// The function whose tape decides whether a call of it records one:
    /// the function itself, an instance's template, a derivative's
    /// function (`db::project_taped`).
    pub tape_of: String,
}

impl CalleeSignature {
    /// Which positional parameters it changes.
    pub fn mutated(&self) -> Vec<bool> {
        self.params.iter().map(|p| p.mutated).collect()
    }

    /// The signature `ast` declares, its parameters' and keyword
    /// parameters' types read by `type_of` (at their names' spans) and
    /// what it changes given by `mutated`.
    pub(crate) fn of_tree(
        home: SourceFile,
        ast: &Function,
        type_of: impl Fn(crate::ast::Span) -> Ty,
        mutated: &[bool],
        tape_of: String,
    ) -> CalleeSignature {
        CalleeSignature {
            home,
            params: ast
                .params
                .iter()
                .enumerate()
                .map(|(i, p)| ParamSignature {
                    name: p.name.name.clone(),
                    ty: type_of(p.name.span),
                    mutated: mutated.get(i).copied().unwrap_or(false),
                    constant: p.constant,
                })
                .collect(),
            kwparams: ast
                .kwparams
                .iter()
                .map(|k| (k.name.name.clone(), type_of(k.name.span), k.default.clone()))
                .collect(),
            derivative: None,
            tape_of,
        }
    }
}

/// The signature of the function or derived function a call names `name`.
#[salsa::tracked(returns(ref))]
pub fn callee_signature(
    db: &dyn Db,
    project: Project,
    name: String,
) -> Option<Arc<CalleeSignature>> {
    let signature = match Callable::named(db, project, &name)? {
        Callable::Function(f) => function_callee_signature(db, f, name.clone())?,
        Callable::Derived {
            derivative,
            base,
            mask,
        } => {
            // `f`'s tape, as the call names `f` (after the `∇` or `∂`).
            let f = crate::derivatives::Derivative::of(&name).map_or(name.as_str(), |(_, f)| f);
            let base = function_callee_signature(db, base, f.to_string())?;
            // Each companion follows its parameter: changed, never `Const`.
            let params = crate::derivatives::interleave(&base.params, &mask, |p| ParamSignature {
                name: crate::derivatives::companion_name(derivative, &p.name),
                ty: p.ty.clone(),
                mutated: true,
                constant: false,
            });
            CalleeSignature {
                params,
                kwparams: Vec::new(),
                derivative: Some(derivative),
                ..base
            }
        }
    };
    Some(Arc::new(signature))
}

/// A function's signature: its declared types (not the inferred ones, which
/// its callers' typing cannot wait for) and what it changes.
/// `tape_of`: the name the call gives it.
fn function_callee_signature<'db>(
    db: &'db dyn Db,
    f: FnId<'db>,
    tape_of: String,
) -> Option<CalleeSignature> {
    let ast = super::functions::function_ast(db, f)?;
    let front = front(db, f)?;
    let (_, mutated) = param_types(db, f).as_ref()?;
    let declared = |span| {
        front
            .resolution
            .def_at(span)
            .and_then(|id| front.declared.defs.get(id).cloned())
            .unwrap_or(Ty::Unknown)
    };
    Some(CalleeSignature::of_tree(
        f.file(db),
        &ast,
        declared,
        mutated,
        tape_of,
    ))
}

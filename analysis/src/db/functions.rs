//! Each function's tree and header, and what the functions change.

use super::inputs::{Db, FnId, Project, SourceFile, library_module, parse_file};
use super::items::{CHUNK, chunk_count, item_index, item_table, locate, lookup_function};
use super::scopes::file_scope;
use crate::ast::Function;
use crate::effects::{self, LocalEffects, Mutations};
use crate::resolve::Signature;
use rustc_hash::FxHashMap;
use std::sync::Arc;

/// The trees of the `k`-th run of [`CHUNK`] functions of a file. A firewall
/// between the file's parse, which changes with every edit, and the
/// functions' trees, which mostly do not: after an edit salsa re-runs this
/// for each chunk and backdates the unchanged ones, so nothing that reads
/// them re-runs.
#[salsa::tracked(returns(ref))]
pub(crate) fn function_chunk(
    db: &dyn Db,
    project: Project,
    file: SourceFile,
    k: u32,
) -> Vec<Arc<Function>> {
    let items = &parse_file(db, file).items;
    let start = (k as usize * CHUNK).min(items.len());
    let end = (start + CHUNK).min(items.len());
    let library = library_module(db, project, file).map(|l| l.path.as_str());
    let scope = file_scope(db, project, file);
    if library.is_none() && scope.is_empty() {
        return items[start..end]
            .iter()
            .map(|i| i.function.clone())
            .collect();
    }
    items[start..end]
        .iter()
        .map(|i| Arc::new(crate::modules::rewrite(&i.function, library, scope)))
        .collect()
}

/// What callers see of a function before any analysis: its name,
/// parameters and whether it is a kernel (equal across edits of its body).
#[derive(Clone, PartialEq, Eq, Debug)]
pub(crate) struct Header {
    pub(crate) signature: Signature,
    pub(crate) kernel: bool,
    /// Which parameters are `Const<T>`.
    pub(crate) constant: Vec<bool>,
    /// The positions of its `Fn` parameters (a template's,
    /// `values::function_params`).
    pub(crate) fn_params: Vec<usize>,
}

#[salsa::tracked(returns(ref))]
fn chunk_headers(db: &dyn Db, project: Project, file: SourceFile, k: u32) -> Vec<Header> {
    function_chunk(db, project, file, k)
        .iter()
        .map(|ast| Header {
            signature: Signature {
                name: ast.name.name.clone(),
                params: ast.params.iter().map(|p| p.name.name.clone()).collect(),
                kwparams: ast.kwparams.iter().map(|p| p.name.name.clone()).collect(),
            },
            kernel: ast.kernel,
            constant: ast.params.iter().map(|p| p.constant).collect(),
            fn_params: crate::values::function_params(ast)
                .into_iter()
                .map(|(i, _, _)| i)
                .collect(),
        })
        .collect()
}

pub(crate) fn header<'db>(db: &'db dyn Db, f: FnId<'db>) -> Option<&'db Header> {
    let (file, k, i) = locate(db, f)?;
    chunk_headers(db, f.project(db), file, k).get(i)
}

/// The local effects of a chunk's functions (from their trees alone).
#[salsa::tracked(returns(ref))]
fn chunk_effects(db: &dyn Db, project: Project, file: SourceFile, k: u32) -> Vec<LocalEffects> {
    function_chunk(db, project, file, k)
        .iter()
        .map(|ast| effects::local_effects(ast))
        .collect()
}

/// The functions of every file of the project that name resolution finds
/// (the first definition of each name), with their chunk and place, in
/// file order.
pub(crate) fn for_each_function<'db>(
    db: &'db dyn Db,
    project: Project,
    mut each: impl FnMut(&'db str, SourceFile, u32, usize),
) {
    let table = item_table(db, project);
    for &file in project.files(db) {
        let mut ordinals: FxHashMap<&str, u32> = FxHashMap::default();
        ordinals.reserve(chunk_count(db, file) as usize * CHUNK);
        for k in 0..chunk_count(db, file) {
            for (i, header) in chunk_headers(db, project, file, k).iter().enumerate() {
                let name = header.signature.name.as_str();
                let ordinal = ordinals.entry(name).or_insert(0);
                if table.by_name.get(name) == Some(&(file, *ordinal)) {
                    each(name, file, k, i);
                }
                *ordinal += 1;
            }
        }
    }
}

/// Whether a function has a `@tape` loop of its own.
pub fn has_tape_loop<'db>(db: &'db dyn Db, f: FnId<'db>) -> bool {
    let Some(ast) = function_ast(db, f) else {
        return false;
    };
    let mut found = false;
    effects::visit_block(&ast.body, &mut |s| {
        found |= matches!(s.kind, crate::ast::StmtKind::Tape(_));
    });
    found
}

/// Whether the project's function `name` is a `@kernel` (read from its
/// header, so that callers are not rechecked when its body changes).
pub fn is_kernel(db: &dyn Db, project: Project, name: &str) -> bool {
    lookup_function(db, project, name)
        .and_then(|g| header(db, g))
        .is_some_and(|h| h.kernel)
}

/// The function's tree. Equal across edits of other functions.
#[salsa::tracked(returns(clone))]
pub fn function_ast<'db>(db: &'db dyn Db, f: FnId<'db>) -> Option<Arc<Function>> {
    let i = item_index(db, f)?;
    function_chunk(db, f.project(db), f.file(db), (i / CHUNK) as u32)
        .get(i % CHUNK)
        .cloned()
}

/// A function's name and parameter names.
pub fn function_signature<'db>(db: &'db dyn Db, f: FnId<'db>) -> Option<Signature> {
    header(db, f).map(|h| h.signature.clone())
}

/// The function a derivative callee (`∇f`, `∂f`) is of, with which of its
/// parameters have a companion (`crate::derivatives`); `None` when it
/// cannot be differentiated from `.nil` (E0624 says why).
pub fn derived_base<'db>(
    db: &'db dyn Db,
    project: Project,
    name: &str,
) -> Option<(crate::derivatives::Derivative, FnId<'db>, Vec<bool>)> {
    let (d, base) = crate::derivatives::Derivative::of(name)?;
    let f = lookup_function(db, project, base)?;
    let mask = crate::derivatives::companions(&*function_ast(db, f)?).ok()?;
    Some((d, f, mask))
}

/// Why `(∇f)` / `(∂f)` cannot be called (`name` is `∇f` / `∂f`) as far as
/// `f`'s signature tells, or `None` (also for an unknown `f`: E0102).
pub fn derivative_problem(db: &dyn Db, project: Project, name: &str) -> Option<String> {
    let (_, base) = crate::derivatives::Derivative::of(name)?;
    let ast = function_ast(db, lookup_function(db, project, base)?)?;
    let mask = match crate::derivatives::companions(&ast) {
        Ok(mask) => mask,
        Err(why) => return Some(why),
    };
    if !crate::values::function_params(&ast).is_empty() {
        return Some(format!("`{base}` takes a function (`Fn`) parameter"));
    }
    if !mask.contains(&true) {
        return Some(format!(
            "`{base}` has no parameter of its float type to differentiate"
        ));
    }
    // Its derivatives run it several times on copies; a change of an
    // integer would not be undone.
    let mutated = project_mutations(db, project)
        .get(base)
        .cloned()
        .unwrap_or_default();
    if let Some(p) = ast
        .params
        .iter()
        .enumerate()
        .find_map(|(k, p)| (mutated.get(k).copied().unwrap_or(false) && !mask[k]).then_some(p))
    {
        return Some(format!(
            "`{base}` changes `{}`, which is not of its float type",
            p.name.name
        ));
    }
    None
}

/// Which parameters each function of the project mutates (a fixpoint over
/// the call graph; it reads only each function's local effects).
#[salsa::tracked(returns(ref))]
pub fn project_mutations(db: &dyn Db, project: Project) -> Arc<Mutations> {
    let mut locals: Vec<(&str, &LocalEffects)> =
        Vec::with_capacity(item_table(db, project).by_name.len());
    for_each_function(db, project, |name, file, k, i| {
        locals.push((name, &chunk_effects(db, project, file, k)[i]));
    });
    Arc::new(effects::solve(locals))
}

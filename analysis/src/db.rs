//! The salsa database and the tracked queries every front end shares.
//!
//! Inputs: [`SourceFile`] (a path and its text) and [`Project`] (the files
//! compiled together: a crate's `.nil` files, or the paths given to `nilc`).
//!
//! Per-function queries are keyed by [`FnId`], an interned (file, name,
//! ordinal). They read [`function_ast`], whose spans are relative to the
//! function, so an edit inside one function leaves every other function's
//! tree equal: salsa backdates it and does not re-run their checks.

use std::sync::{Arc, Mutex};

use rustc_hash::FxHashMap;

use crate::ast::Function;
use crate::check::{self, CalleeInfo};
use crate::diagnostics::Diagnostic;
use crate::effects::{self, LocalEffects, Mutations};
use crate::invert;
pub use crate::names::module_name;
use crate::printer;
use crate::resolve::{self, Items, Resolution, Signature};
use crate::syntax::{self, ParsedFile};
use crate::types::{self, FunctionTypes, Ty};
use nilang_syntax::reparse::Reparser;

#[salsa::input(debug)]
pub struct SourceFile {
    #[returns(ref)]
    pub path: String,
    #[returns(ref)]
    pub text: String,
}

#[salsa::input(debug)]
pub struct Project {
    #[returns(ref)]
    pub files: Vec<SourceFile>,
    /// Which of `files` are modules of other packages (the standard
    /// library's, a dependency crate's), and their names. The shells check
    /// and generate code for the others only.
    #[default]
    #[returns(ref)]
    pub libraries: Vec<LibraryModule>,
}

/// A file of another package in a project (see [`crate::modules`]).
#[derive(Clone, PartialEq, Eq, Hash, Debug)]
pub struct LibraryModule {
    pub file: SourceFile,
    /// Its package: `std`, or a dependency crate's name.
    pub package: String,
    /// Its module path: `std.linalg`.
    pub path: String,
    /// The Rust module its functions are generated in, as generated code
    /// names it (`nilang::stdlib::linalg`, `::mylib::geometry`).
    pub rust_path: String,
}

/// A project of this crate's `files`, the modules of other packages in
/// `libraries` (whose files it adds) and the standard library's modules:
/// what every shell checks and builds.
pub fn project_with_std(
    db: &dyn Db,
    mut files: Vec<SourceFile>,
    mut libraries: Vec<LibraryModule>,
) -> Project {
    let (std_files, std_libraries) = crate::stdlib::library(db);
    files.extend(libraries.iter().map(|l| l.file));
    files.extend(std_files);
    libraries.extend(std_libraries);
    Project::builder(files).libraries(libraries).new(db)
}

/// The library module `file` is, if it is one.
pub fn library_module(db: &dyn Db, project: Project, file: SourceFile) -> Option<&LibraryModule> {
    project.libraries(db).iter().find(|l| l.file == file)
}

/// The module path `using` and `import` name `file` by: a library
/// module's (`std.linalg`), or a crate file's stem.
pub fn module_path(db: &dyn Db, project: Project, file: SourceFile) -> String {
    match library_module(db, project, file) {
        Some(l) => l.path.clone(),
        None => std::path::Path::new(file.path(db))
            .file_stem()
            .map(|s| s.to_string_lossy().into_owned())
            .unwrap_or_default(),
    }
}

/// Whether `file` is one of this crate's own (not a library module).
pub fn is_local(db: &dyn Db, project: Project, file: SourceFile) -> bool {
    library_module(db, project, file).is_none()
}

/// The name a function defined as `name` in `file` has in the analysis.
fn defined_name(db: &dyn Db, project: Project, file: SourceFile, name: &str) -> String {
    match library_module(db, project, file) {
        Some(l) => crate::modules::qualified(&l.path, name),
        None => name.to_string(),
    }
}

/// One function of a project: the `ordinal`-th definition named `name` in
/// `file` (ordinal > 0 only for duplicates, which are reported). Per-function
/// queries take only this id, so salsa's event log names them directly.
#[salsa::interned(debug)]
pub struct FnId<'db> {
    #[returns(copy)]
    pub project: Project,
    #[returns(copy)]
    pub file: SourceFile,
    #[returns(ref)]
    pub name: String,
    #[returns(copy)]
    pub ordinal: u32,
}

#[salsa::db]
pub trait Db: salsa::Database {
    /// Parses `text`, the current text of `file`. The result is always
    /// `syntax::parse(text)`; a database may get there faster from its
    /// previous parse of the same file (see [`RootDatabase::with_reparsing`]).
    fn parse(&self, file: SourceFile, text: &str) -> ParsedFile {
        let _ = file;
        syntax::parse(text)
    }
}

/// The last parse of each file, for incremental parsing. Shared by a
/// database and its snapshots; a parse takes the file's reparser out while
/// it runs, so two threads parsing one file just parse from scratch once.
type Reparsers = Arc<Mutex<FxHashMap<SourceFile, Reparser>>>;

/// The database. Cloning gives a handle on the same storage (a snapshot for a
/// reader thread in the language server).
#[salsa::db]
#[derive(Clone)]
pub struct RootDatabase {
    storage: salsa::Storage<Self>,
    log: Arc<Mutex<Option<Vec<ExecutedQuery>>>>,
    reparsers: Option<Reparsers>,
}

/// A query that salsa ran (not reused), from the event log.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct ExecutedQuery {
    /// Debug rendering, e.g. `check_function(Id(402))`.
    pub query: String,
    pub key: salsa::Id,
}

impl Default for RootDatabase {
    fn default() -> Self {
        RootDatabase {
            storage: salsa::Storage::new(None),
            log: Arc::default(),
            reparsers: None,
        }
    }
}

impl RootDatabase {
    /// A database that can record which queries execute (for tests and
    /// diagnosing incrementality); recording starts with `start_logging`.
    pub fn with_query_log() -> Self {
        let log: Arc<Mutex<Option<Vec<ExecutedQuery>>>> = Arc::default();
        let sink = log.clone();
        let storage = salsa::Storage::new(Some(Box::new(move |event: salsa::Event| {
            if let salsa::EventKind::WillExecute { database_key } = event.kind
                && let Ok(mut guard) = sink.lock()
                && let Some(entries) = guard.as_mut()
            {
                entries.push(ExecutedQuery {
                    query: format!("{database_key:?}"),
                    key: database_key.key_index(),
                });
            }
        })));
        RootDatabase {
            storage,
            log,
            reparsers: None,
        }
    }

    /// Keeps each file's last tree and lowered functions, so that the next
    /// version of a file is parsed incrementally (an editor's keystroke).
    /// Costs the memory of one tree-sitter tree and one copy of the text per
    /// file; a one-shot compiler run gains nothing from it.
    pub fn with_reparsing(mut self) -> Self {
        self.reparsers = Some(Arc::default());
        self
    }

    /// Drops what incremental parsing keeps for `file` (a file that left
    /// the workspace).
    pub fn forget_parse(&self, file: SourceFile) {
        if let Some(reparsers) = &self.reparsers
            && let Ok(mut map) = reparsers.lock()
        {
            map.remove(&file);
        }
    }

    /// Starts recording which queries execute (needs `with_query_log`).
    pub fn start_logging(&self) {
        if let Ok(mut guard) = self.log.lock() {
            *guard = Some(Vec::new());
        }
    }

    /// The queries executed since the last call (or `start_logging`).
    pub fn take_log(&self) -> Vec<ExecutedQuery> {
        self.log
            .lock()
            .ok()
            .and_then(|mut g| g.as_mut().map(std::mem::take))
            .unwrap_or_default()
    }
}

#[salsa::db]
impl salsa::Database for RootDatabase {}

#[salsa::db]
impl Db for RootDatabase {
    fn parse(&self, file: SourceFile, text: &str) -> ParsedFile {
        let Some(reparsers) = &self.reparsers else {
            return syntax::parse(text);
        };
        let taken = reparsers.lock().ok().and_then(|mut map| map.remove(&file));
        let mut reparser = taken.unwrap_or_default();
        let parsed = reparser.parse(text);
        if let Ok(mut map) = reparsers.lock() {
            map.insert(file, reparser);
        }
        parsed
    }
}

// ------------------------------------------------------------------ parsing

/// Parses a file into functions (with function-relative spans) and syntax errors.
#[salsa::tracked(returns(ref))]
pub fn parse_file(db: &dyn Db, file: SourceFile) -> Arc<ParsedFile> {
    Arc::new(db.parse(file, file.text(db)))
}

/// The functions of a file, in order, as ids.
#[salsa::tracked(returns(ref))]
pub fn file_functions<'db>(db: &'db dyn Db, project: Project, file: SourceFile) -> Vec<FnId<'db>> {
    let mut seen: FxHashMap<&str, u32> = FxHashMap::default();
    parse_file(db, file)
        .items
        .iter()
        .map(|item| {
            let ordinal = seen.entry(item.function.name.name.as_str()).or_insert(0);
            let name = defined_name(db, project, file, &item.function.name.name);
            let id = FnId::new(db, project, file, name, *ordinal);
            *ordinal += 1;
            id
        })
        .collect()
}

/// Where each function of a file is in its item list, by (name, ordinal).
#[salsa::tracked(returns(ref))]
fn file_item_index(db: &dyn Db, file: SourceFile) -> FxHashMap<(String, u32), usize> {
    let mut ordinals: FxHashMap<&str, u32> = FxHashMap::default();
    let mut index = FxHashMap::default();
    for (i, item) in parse_file(db, file).items.iter().enumerate() {
        let name = item.function.name.name.as_str();
        let ordinal = ordinals.entry(name).or_insert(0);
        index.insert((name.to_string(), *ordinal), i);
        *ordinal += 1;
    }
    index
}

/// Where `f` is in its file's item list.
fn item_index(db: &dyn Db, f: FnId<'_>) -> Option<usize> {
    let name = crate::modules::bare_name(f.name(db));
    file_item_index(db, f.file(db))
        .get(&(name.to_string(), f.ordinal(db)))
        .copied()
}

fn item<'a>(db: &'a dyn Db, f: FnId<'_>) -> Option<&'a syntax::Item> {
    parse_file(db, f.file(db)).items.get(item_index(db, f)?)
}

/// How many functions a chunk holds: the unit of the checking path's
/// queries. After an edit inside one function, that function's chunk is
/// analysed again, and salsa verifies one memo per chunk and query instead
/// of one per function (a 10 MB file has 44,000 functions: verifying
/// fourteen memos each cost about 290 ms a keystroke).
const CHUNK: usize = 16;

/// How many chunks a file's functions make (a query of its own, so that
/// what iterates over the chunks does not depend on the whole parse).
#[salsa::tracked(returns(copy))]
fn chunk_count(db: &dyn Db, file: SourceFile) -> u32 {
    parse_file(db, file).items.len().div_ceil(CHUNK) as u32
}

/// Where `f` is: its file, its chunk and its place in the chunk.
fn locate(db: &dyn Db, f: FnId<'_>) -> Option<(SourceFile, u32, usize)> {
    let i = item_index(db, f)?;
    Some((f.file(db), (i / CHUNK) as u32, i % CHUNK))
}

/// The trees of the `k`-th run of [`CHUNK`] functions of a file. A firewall
/// between the file's parse, which changes with every edit, and the
/// functions' trees, which mostly do not: after an edit salsa re-runs this
/// for each chunk and backdates the unchanged ones, so nothing that reads
/// them re-runs.
#[salsa::tracked(returns(ref))]
fn function_chunk(db: &dyn Db, project: Project, file: SourceFile, k: u32) -> Vec<Arc<Function>> {
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

/// The modules `using` and `import` can name (see [`crate::modules`]).
#[salsa::tracked(returns(ref))]
pub fn module_registry(db: &dyn Db, project: Project) -> Arc<crate::modules::Registry> {
    let mut registry = crate::modules::Registry::default();
    for &file in project.files(db) {
        let path = module_path(db, project, file);
        let package = library_module(db, project, file).map(|l| l.package.clone());
        let functions = parse_file(db, file)
            .items
            .iter()
            .map(|i| i.function.name.name.clone())
            .collect();
        registry.add(crate::modules::ModuleFile {
            path,
            package,
            functions,
        });
    }
    Arc::new(registry)
}

/// What names mean in `file` beyond its own crate's functions: empty for a
/// file of this crate without imports, so such files never read the
/// registry.
#[salsa::tracked(returns(ref))]
pub fn file_scope(db: &dyn Db, project: Project, file: SourceFile) -> Arc<crate::modules::Scope> {
    let imports = &parse_file(db, file).imports;
    let package = library_module(db, project, file).map(|l| l.package.as_str());
    if package.is_none() && imports.is_empty() {
        return Arc::default();
    }
    let table = item_table(db, project);
    Arc::new(crate::modules::scope(
        module_registry(db, project),
        package,
        imports,
        &|name| table.by_name.contains_key(name),
    ))
}

/// The packages this crate's files import from that the project does not
/// have (the first part of each unknown module path): what a shell looks
/// for among the crate's dependencies before reporting E0111.
pub fn missing_packages(db: &dyn Db, project: Project) -> Vec<String> {
    let registry = module_registry(db, project);
    let mut out: Vec<String> = project
        .files(db)
        .iter()
        .filter(|&&f| is_local(db, project, f))
        .flat_map(|&f| parse_file(db, f).imports.iter())
        .filter(|i| !registry.modules.contains_key(&i.module.name))
        .map(|i| {
            i.module
                .name
                .split('.')
                .next()
                .unwrap_or_default()
                .to_string()
        })
        .collect();
    out.sort();
    out.dedup();
    out
}

/// The diagnostics of a file's imports, and E0114 for its calls of a name
/// that two `using`s bring in (absolute spans).
fn module_diagnostics(db: &dyn Db, project: Project, file: SourceFile) -> Vec<Diagnostic> {
    let scope = file_scope(db, project, file);
    let mut out = scope.diagnostics.clone();
    let parsed = parse_file(db, file);
    let functions: Vec<(u32, &Function)> = parsed
        .items
        .iter()
        .map(|i| (i.offset, &*i.function))
        .collect();
    crate::modules::ambiguous_calls(&functions, scope, &mut out);
    out
}

/// What callers see of a function before any analysis: its name,
/// parameters and whether it is a kernel (equal across edits of its body).
#[derive(Clone, PartialEq, Eq, Debug)]
struct Header {
    signature: Signature,
    kernel: bool,
    /// Which parameters are `Const<T>`.
    constant: Vec<bool>,
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
        })
        .collect()
}

fn header<'db>(db: &'db dyn Db, f: FnId<'db>) -> Option<&'db Header> {
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

/// Name resolution and the types of parameters and ancillas of one
/// function: the first half of its analysis, which the project-wide facts
/// (what callees mutate, which functions record) are computed from.
#[derive(PartialEq, Eq, Debug, Default)]
struct Front {
    resolution: Arc<Resolution>,
    types: Arc<FunctionTypes>,
}

#[salsa::tracked(returns(ref))]
fn chunk_front(db: &dyn Db, project: Project, file: SourceFile, k: u32) -> Vec<Front> {
    let structs = &project_structs(db, project).table;
    let items = ProjectItems { db, project };
    function_chunk(db, project, file, k)
        .iter()
        .map(|ast| {
            let items = crate::values::WithLocal::new(&items, ast, &|_| None);
            let resolution = resolve::resolve(ast, &items);
            let types = types::function_types_in(ast, &resolution, structs);
            Front {
                resolution: Arc::new(resolution),
                types: Arc::new(types),
            }
        })
        .collect()
}

/// The type of a function's `i`-th positional parameter.
fn param_type(ast: &Function, front: &Front, i: usize) -> Option<Ty> {
    let p = ast.params.get(i)?;
    let id = front.resolution.def_at(p.name.span)?;
    front.types.defs.get(id).cloned()
}

fn front<'db>(db: &'db dyn Db, f: FnId<'db>) -> Option<&'db Front> {
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
    function_chunk(db, project, file, k)
        .iter()
        .zip(fronts)
        .map(|(ast, front)| {
            let params = types::param_types(ast, &front.resolution, &front.types.defs);
            let mutated = mutated_params(db, project, &ast.name.name).unwrap_or_default();
            Some((params, mutated))
        })
        .collect()
}

/// The type of every expression of a chunk's functions, and their type
/// errors ([`crate::typeck`]); apart from [`chunk_checks`], so that a
/// kernel's checks can ask for the backend limits of a callee in the same
/// chunk.
#[salsa::tracked(returns(ref))]
fn chunk_expr_types(
    db: &dyn Db,
    project: Project,
    file: SourceFile,
    k: u32,
) -> Vec<Arc<crate::typeck::ExprTypes>> {
    let callees = ProjectCallees { db, project };
    let structs = &project_structs(db, project).table;
    let fronts = chunk_front(db, project, file, k);
    function_chunk(db, project, file, k)
        .iter()
        .zip(fronts)
        .map(|(ast, front)| {
            let callees =
                crate::values::WithLocal::new(&callees, ast, &|i| param_type(ast, front, i));
            Arc::new(crate::typeck::check_types(
                ast,
                &front.resolution,
                &front.types,
                &callees,
                structs,
            ))
        })
        .collect()
}

/// What the checking path derives from a function after its types.
#[derive(PartialEq, Eq, Debug, Default)]
struct Checks {
    activity: Arc<crate::activity::Activity>,
    reversibility: Arc<check::Checked>,
    kernel: Arc<crate::kernel::KernelFacts>,
    /// Every diagnostic of the function, function-relative.
    diagnostics: Arc<Vec<Diagnostic>>,
}

#[salsa::tracked(returns(ref))]
fn chunk_checks(db: &dyn Db, project: Project, file: SourceFile, k: u32) -> Vec<Checks> {
    let fronts = chunk_front(db, project, file, k);
    let types = chunk_expr_types(db, project, file, k);
    function_chunk(db, project, file, k)
        .iter()
        .zip(fronts)
        .zip(types)
        .map(|((ast, front), expr_types)| {
            function_checks(db, project, ast, front, expr_types, false)
        })
        .collect()
}

fn checks<'db>(db: &'db dyn Db, f: FnId<'db>) -> Option<&'db Checks> {
    let (file, k, i) = locate(db, f)?;
    chunk_checks(db, f.project(db), file, k).get(i)
}

/// The back half of one function's analysis, and all its diagnostics.
/// `instance`: `ast` is an instance's tree, whose instances the instance
/// that reaches it checks (`instance_error`), not it.
fn function_checks(
    db: &dyn Db,
    project: Project,
    ast: &Function,
    front: &Front,
    expr_types: &crate::typeck::ExprTypes,
    instance: bool,
) -> Checks {
    let (resolution, types) = (&front.resolution, &front.types);
    let callees = ProjectCallees { db, project };
    let callees = crate::values::WithLocal::new(&callees, ast, &|i| param_type(ast, front, i));
    let structs = &project_structs(db, project).table;
    let activity =
        crate::activity::activity(ast, resolution, types, &|name| callees.mutated_params(name));
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
    out.extend(crate::structs::check_function(
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

/// The instance a call of a template reaches: the functions it passes at
/// the template's `Fn` parameters; `None` for a call of anything else, or
/// one that passes no function there.
fn called_instance(db: &dyn Db, project: Project, call: &crate::ast::Call) -> Option<Instance> {
    let template = function_ast(db, lookup_function(db, project, &call.callee.name)?)?;
    let positions: Vec<usize> = crate::values::function_params(&template)
        .into_iter()
        .map(|(i, _, _)| i)
        .collect();
    if positions.is_empty() {
        return None;
    }
    Some(Instance {
        template: call.callee.name.clone(),
        functions: crate::values::passed_functions(call, positions)?,
        constants: Vec::new(),
    })
}

/// The functions of every file of the project that name resolution finds
/// (the first definition of each name), with their chunk and place, in
/// file order.
fn for_each_function<'db>(
    db: &'db dyn Db,
    project: Project,
    mut each: impl FnMut(&'db str, SourceFile, u32, usize),
) {
    let table = item_table(db, project);
    for &file in project.files(db) {
        let mut ordinals: FxHashMap<&str, u32> = FxHashMap::default();
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
    function_chunk(db, project, file, k)
        .iter()
        .zip(fronts)
        .map(|(ast, front)| function_tape_facts(ast, front, tape_loops))
        .collect()
}

// ------------------------------------------------------------------ per function

/// The values the per-function accessors answer for a function that is
/// not in its file any more.
struct Missing {
    resolution: Arc<Resolution>,
    types: Arc<FunctionTypes>,
    expr_types: Arc<crate::typeck::ExprTypes>,
    reversibility: Arc<check::Checked>,
    kernel: Arc<crate::kernel::KernelFacts>,
    diagnostics: Arc<Vec<Diagnostic>>,
    param_types: Option<(Vec<Ty>, Vec<bool>)>,
    activity: Arc<crate::activity::Activity>,
}

static MISSING: std::sync::LazyLock<Missing> = std::sync::LazyLock::new(|| Missing {
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
    front(db, f).map_or(&MISSING.types, |x| &x.types)
}

/// The type of every expression of a function, and its type errors
/// ([`crate::typeck`]).
pub fn function_expr_types<'db>(
    db: &'db dyn Db,
    f: FnId<'db>,
) -> &'db Arc<crate::typeck::ExprTypes> {
    locate(db, f)
        .and_then(|(file, k, i)| chunk_expr_types(db, f.project(db), file, k).get(i))
        .unwrap_or(&MISSING.expr_types)
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

/// The positional parameter types of a function and which it mutates: what
/// a caller's types are checked against.
pub fn param_types<'db>(db: &'db dyn Db, f: FnId<'db>) -> &'db Option<(Vec<Ty>, Vec<bool>)> {
    locate(db, f)
        .and_then(|(file, k, i)| chunk_signatures(db, f.project(db), file, k).get(i))
        .unwrap_or(&MISSING.param_types)
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

/// Where the function starts in its file.
#[salsa::tracked(returns(copy))]
pub fn function_offset<'db>(db: &'db dyn Db, f: FnId<'db>) -> u32 {
    item(db, f).map(|i| i.offset).unwrap_or(0)
}

// ------------------------------------------------------------------ items

/// Every function of the project by name (first definition wins), and the
/// duplicate-definition errors (absolute spans, by file).
#[derive(Clone, PartialEq, Eq, Debug, Default)]
pub struct ItemTable {
    pub by_name: FxHashMap<String, (SourceFile, u32)>,
    pub duplicates: Vec<(SourceFile, Diagnostic)>,
}

#[salsa::tracked(returns(ref))]
pub fn item_table(db: &dyn Db, project: Project) -> Arc<ItemTable> {
    let mut table = ItemTable::default();
    let mut first_at: FxHashMap<String, (SourceFile, crate::ast::Span)> = FxHashMap::default();
    for &file in project.files(db) {
        let parsed = parse_file(db, file);
        let library = library_module(db, project, file);
        let mut ordinals: FxHashMap<&str, u32> = FxHashMap::default();
        for item in &parsed.items {
            let name = &item.function.name;
            let ordinal = ordinals.entry(name.name.as_str()).or_insert(0);
            let span = name.span.shift(item.offset);
            let key = match library {
                Some(l) => crate::modules::qualified(&l.path, &name.name),
                None => name.name.clone(),
            };
            match first_at.get(&key) {
                None => {
                    first_at.insert(key.clone(), (file, span));
                    table.by_name.insert(key, (file, *ordinal));
                }
                Some((first_file, first_span)) => {
                    let mut d = Diagnostic::error(
                        "E0106",
                        span,
                        format!("function `{}` is defined twice", name.name),
                    )
                    .with_label("second definition")
                    .with_help(
                        "functions share one namespace per project (crate); rename one of them",
                    );
                    if *first_file == file {
                        d = d.with_secondary(*first_span, "first defined here");
                    } else {
                        d.help = Some(format!(
                            "it is also defined in {}; functions share one namespace per project, rename one of them",
                            first_file.path(db)
                        ));
                    }
                    table.duplicates.push((file, d));
                }
            }
            *ordinal += 1;
        }
    }
    function_clashes(db, project, &mut table);
    Arc::new(table)
}

/// E0110 between functions: two names generated Rust spells alike, or a
/// function named as one generated for another (`uncall_f`, `f_adjoint`,
/// `f_grad`, a kernel's `f_gpu`, ...; `names::generated_from`); and two
/// files that are one Rust module.
fn function_clashes(db: &dyn Db, project: Project, table: &mut ItemTable) {
    use crate::names::{generated_from, reserved_name, rust_name};
    struct Named {
        file: SourceFile,
        name: String,
        spelled: String,
        span: crate::ast::Span,
    }
    let mut all = Vec::new();
    let mut modules: FxHashMap<String, SourceFile> = FxHashMap::default();
    // A library module's Rust is generated in its own crate.
    for &file in project
        .files(db)
        .iter()
        .filter(|&&f| is_local(db, project, f))
    {
        let module = module_name(file.path(db));
        if let Some(other) = modules.get(&module) {
            table.duplicates.push((
                file,
                Diagnostic::error(
                    "E0110",
                    crate::ast::Span::new(0, 0),
                    format!(
                        "this file and {} are both the Rust module `{module}`",
                        other.path(db)
                    ),
                )
                .with_label("this file's module")
                .with_help("a file's module is its name with `-`, `.` and spaces as `_`; rename one of the files"),
            ));
        } else {
            modules.insert(module, file);
        }
        for item in &parse_file(db, file).items {
            let name = &item.function.name;
            all.push(Named {
                file,
                spelled: rust_name(&name.name).trim_start_matches("r#").to_string(),
                name: name.name.clone(),
                span: name.span.shift(item.offset),
            });
        }
    }
    // The first function of each spelling, by its position in `all`.
    let mut first: FxHashMap<&str, usize> = FxHashMap::default();
    for (k, f) in all.iter().enumerate() {
        first.entry(f.spelled.as_str()).or_insert(k);
    }
    for (k, f) in all.iter().enumerate() {
        let (file, name, s, span) = (f.file, &f.name, &f.spelled, f.span);
        let other = &all[first[s.as_str()]];
        if first[s.as_str()] != k && other.name != *name {
            let mut d = Diagnostic::error(
                "E0110",
                span,
                format!(
                    "functions `{name}` and `{}` are both `{s}` in generated Rust",
                    other.name
                ),
            )
            .with_label("this name")
            .with_help("Greek letters are spelled out and `!` is dropped; rename one of them");
            if other.file == file {
                d = d.with_secondary(other.span, format!("`{}` defined here", other.name));
            }
            table.duplicates.push((file, d));
            continue;
        }
        if first[s.as_str()] != k {
            continue;
        }
        if let Some(why) = reserved_name(s) {
            table.duplicates.push((
                file,
                Diagnostic::error(
                    "E0110",
                    span,
                    format!("`{name}` is a name generated code keeps for itself"),
                )
                .with_label("this name")
                .with_help(format!("{why}; rename it")),
            ));
            continue;
        }
        let owner = generated_from(s)
            .into_iter()
            .filter_map(|base| first.get(base).copied())
            .min()
            .map(|o| &all[o].name);
        if let Some(owner) = owner.filter(|o| *o != name) {
            table.duplicates.push((
                file,
                Diagnostic::error(
                    "E0110",
                    span,
                    format!("`{name}` is the name of a function generated for `{owner}`"),
                )
                .with_label("this name")
                .with_help(format!(
                    "the compiler generates `{owner}`'s inverse, reverse passes, gradient and launchers under names built from `{owner}`; rename `{name}`"
                )),
            ));
        }
    }
}

/// The project's structs, and the problems of their definitions (absolute
/// spans, by file).
#[derive(Clone, PartialEq, Eq, Debug, Default)]
pub struct ProjectStructs {
    pub table: crate::structs::StructTable,
    /// The file each struct is defined in, by the index in `table`.
    pub files: Vec<SourceFile>,
    pub diagnostics: Vec<(SourceFile, Diagnostic)>,
}

#[salsa::tracked(returns(ref))]
pub fn project_structs(db: &dyn Db, project: Project) -> Arc<ProjectStructs> {
    let files: Vec<SourceFile> = project.files(db).clone();
    let defs: Vec<&[Arc<crate::ast::StructDef>]> = files
        .iter()
        .map(|&f| parse_file(db, f).structs.as_slice())
        .collect();
    let functions = item_table(db, project);
    let (table, diagnostics) =
        crate::structs::build_table(&defs, &|name| functions.by_name.contains_key(name));
    let diagnostics = diagnostics
        .into_iter()
        .map(|(i, d)| (files[i], d))
        .collect();
    Arc::new(ProjectStructs {
        table,
        files,
        diagnostics,
    })
}

/// The function named `name` in the project.
pub fn lookup_function<'db>(db: &'db dyn Db, project: Project, name: &str) -> Option<FnId<'db>> {
    let (file, ordinal) = *item_table(db, project).by_name.get(name)?;
    Some(FnId::new(db, project, file, name.to_string(), ordinal))
}

/// A function's name and parameter names.
pub fn function_signature<'db>(db: &'db dyn Db, f: FnId<'db>) -> Option<Signature> {
    header(db, f).map(|h| h.signature.clone())
}

/// The names of the project's functions, sorted: what name resolution
/// suggests from, and what editors complete and correct to.
#[salsa::tracked(returns(clone))]
pub fn function_names(db: &dyn Db, project: Project) -> Vec<String> {
    let mut names: Vec<String> = item_table(db, project)
        .by_name
        .keys()
        .filter(|n| crate::modules::module_of(n).is_none())
        .cloned()
        .collect();
    names.sort();
    names
}

struct ProjectItems<'a> {
    db: &'a dyn Db,
    project: Project,
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
    let mutated = mutated_params(db, project, base).unwrap_or_default();
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

impl Items for ProjectItems<'_> {
    fn signature(&self, name: &str) -> Option<Signature> {
        if let Some((d, f, mask)) = derived_base(self.db, self.project, name) {
            let base = function_signature(self.db, f)?;
            return Some(Signature {
                name: name.to_string(),
                params: crate::derivatives::param_names(d, &base.params, &mask),
                kwparams: Vec::new(),
            });
        }
        function_signature(self.db, lookup_function(self.db, self.project, name)?)
    }

    fn function_names(&self) -> Vec<String> {
        function_names(self.db, self.project)
    }

    fn struct_arity(&self, name: &str) -> Option<usize> {
        project_structs(self.db, self.project)
            .table
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

// ------------------------------------------------------------------ analyses

/// Which parameters each function of the project mutates (a fixpoint over
/// the call graph; it reads only each function's local effects).
#[salsa::tracked(returns(ref))]
pub fn project_mutations(db: &dyn Db, project: Project) -> Arc<Mutations> {
    let mut locals: Vec<(&str, &LocalEffects)> = Vec::new();
    for_each_function(db, project, |name, file, k, i| {
        locals.push((name, &chunk_effects(db, project, file, k)[i]));
    });
    locals.sort_by(|a, b| a.0.cmp(b.0));
    Arc::new(effects::solve(locals.iter().map(|&(n, e)| (n, e))))
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
    let mut captured = Vec::new();
    for ((i, _, _), passed) in fn_params.iter().zip(&instance.functions) {
        let function = lookup_function(db, project, &passed.name)
            .and_then(|g| function_ast(db, g))
            .ok_or_else(|| format!("`{}` is not a function", passed.name))?;
        let fn_type = template.params[*i]
            .ty
            .as_ref()
            .ok_or_else(|| "the function parameter has no type".to_string())?;
        captured.push(crate::values::captured_types(&function, passed, fn_type)?);
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
    let structs = &project_structs(db, project).table;
    let items = ProjectItems { db, project };
    let resolution = resolve::resolve(&ast, &items);
    let types = types::function_types_in(&ast, &resolution, structs);
    let front = Front {
        resolution: Arc::new(resolution),
        types: Arc::new(types),
    };
    let callees = ProjectCallees { db, project };
    let expr_types = Arc::new(crate::typeck::check_types(
        &ast,
        &front.resolution,
        &front.types,
        &callees,
        structs,
    ));
    let checks = function_checks(db, project, &ast, &front, &expr_types, true);
    let template = id.instance(db).template.clone();
    let template_ast = lookup_function(db, project, &template).and_then(|t| function_ast(db, t))?;
    let fn_positions: Vec<usize> = crate::values::function_params(&template_ast)
        .into_iter()
        .map(|(i, _, _)| i)
        .collect();
    let template_mutated = mutated_params(db, project, &template).unwrap_or_default();
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
        types: front.types,
        expr_types,
        activity: checks.activity,
        reversibility: checks.reversibility,
        mutated,
        diagnostics: checks.diagnostics,
    }))
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
fn reach_instances(
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

/// The parameters of `f` that it mutates, by position.
pub fn mutated_params(db: &dyn Db, project: Project, name: &str) -> Option<Vec<bool>> {
    project_mutations(db, project).get(name).cloned()
}

/// What the checks of one function need to know of the project's others.
pub struct ProjectCallees<'a> {
    pub db: &'a dyn Db,
    pub project: Project,
}

impl CalleeInfo for ProjectCallees<'_> {
    fn mutated_params(&self, name: &str) -> Option<Vec<bool>> {
        mutated_params(self.db, self.project, name)
    }

    fn constant_params(&self, name: &str) -> Option<Vec<bool>> {
        if let Some((_, f, mask)) = derived_base(self.db, self.project, name) {
            let constant = header(self.db, f)?.constant.clone();
            return Some(crate::derivatives::interleave(&constant, &mask, |_| false));
        }
        lookup_function(self.db, self.project, name)
            .and_then(|g| header(self.db, g))
            .map(|h| h.constant.clone())
    }
}

impl crate::typeck::CalleeTypes for ProjectCallees<'_> {
    fn param_types(&self, name: &str) -> Option<(Vec<Ty>, Vec<bool>)> {
        if let Some((_, f, mask)) = derived_base(self.db, self.project, name) {
            let (types, mutated) = param_types(self.db, f).clone()?;
            return Some((
                crate::derivatives::interleave(&types, &mask, Ty::clone),
                crate::derivatives::mutated(&mutated, &mask),
            ));
        }
        let f = lookup_function(self.db, self.project, name)?;
        param_types(self.db, f).clone()
    }
}

/// E0805 at a kernel's calls that reach a function with a `@tape` loop
/// (directly or through other calls): code that runs on the GPU keeps no
/// tape. The kernel's own tape loops are the checks' (`check.rs`).
fn kernel_callee_tapes(db: &dyn Db, project: Project, resolution: &Resolution) -> Vec<Diagnostic> {
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
fn kernel_callee_limits(db: &dyn Db, project: Project, resolution: &Resolution) -> Vec<Diagnostic> {
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

/// All diagnostics of a file with absolute spans, sorted by position.
#[salsa::tracked(returns(ref))]
pub fn file_diagnostics(db: &dyn Db, project: Project, file: SourceFile) -> Arc<Vec<Diagnostic>> {
    let parsed = parse_file(db, file);
    let mut out = parsed.diagnostics.clone();
    // The chunks hold the parse's items in order; the offsets come from the
    // parse itself rather than one `function_offset` query each, which
    // would all re-run on every edit (offsets move).
    for k in 0..chunk_count(db, file) {
        let items = &parsed.items[k as usize * CHUNK..];
        for (checks, item) in chunk_checks(db, project, file, k).iter().zip(items) {
            let offset = item.offset;
            out.extend(checks.diagnostics.iter().map(|d| d.clone().shifted(offset)));
        }
    }
    out.extend(
        item_table(db, project)
            .duplicates
            .iter()
            .filter(|(f, _)| *f == file)
            .map(|(_, d)| d.clone()),
    );
    out.extend(module_diagnostics(db, project, file));
    out.extend(
        project_structs(db, project)
            .diagnostics
            .iter()
            .filter(|(f, _)| *f == file)
            .map(|(_, d)| d.clone()),
    );
    out.sort_by_key(|d| (d.primary.span.start, d.code));
    Arc::new(out)
}

// ------------------------------------------------------------------ inverse

/// The inverse of a function as a tree (spans of the original), of the
/// function as written: names as the file spells them (`i_norm2` under
/// `using std.linalg`), not as the analysis qualifies them.
#[salsa::tracked(returns(clone))]
pub fn inverse_function<'db>(db: &'db dyn Db, f: FnId<'db>) -> Option<Arc<Function>> {
    item(db, f).map(|item| Arc::new(invert::invert_function(&item.function)))
}

/// The inverse of a function as `.nil` source. In it, calls `g(...)` and
/// uncalls `~g(...)` trade places, so the inverses of all the functions of a
/// file form a module that is the inverse of the original.
#[salsa::tracked(returns(ref))]
pub fn inverse_source<'db>(db: &'db dyn Db, f: FnId<'db>) -> String {
    inverse_function(db, f)
        .map(|inv| printer::print_function(&inv))
        .unwrap_or_default()
}

/// What the inverse of a file's functions needs above them to check on its
/// own: the file's `using` and `import` lines (the inverses call what the
/// functions call, by the same names), and for the whole file its structs
/// (their own inverse). `nilc inverse` and the editor's preview print it.
pub fn inverse_header(db: &dyn Db, file: SourceFile, whole_file: bool) -> String {
    let parsed = parse_file(db, file);
    let mut out: String = parsed.imports.iter().map(printer::print_import).collect();
    if !out.is_empty() {
        out.push('\n');
    }
    if whole_file {
        for s in &parsed.structs {
            out.push_str(&printer::print_struct(s));
            out.push('\n');
        }
    }
    out
}

// ------------------------------------------------------------------ taping

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
fn function_tape_facts(ast: &Arc<Function>, front: &Front, tape_loops: bool) -> TapeFacts {
    let tropical =
        crate::taping::tropical_tape(&ast.body.stmts, &front.resolution, &front.types, false);
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

/// The byte offsets at which the lines of a file start.
#[salsa::tracked(returns(ref))]
pub fn line_starts(db: &dyn Db, file: SourceFile) -> Vec<u32> {
    nilang_syntax::render::line_starts(file.text(db))
}

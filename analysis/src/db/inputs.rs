//! The inputs (source files, projects, their library modules), the database
//! itself, and parsing.

use crate::syntax::{self, ParsedFile};
use nilang_syntax::reparse::Reparser;
use rustc_hash::FxHashMap;
use std::sync::{Arc, Mutex};

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
    let (std_files, std_libraries) = std_library(db);
    files.extend(libraries.iter().map(|l| l.file));
    files.extend(std_files);
    libraries.extend(std_libraries);
    Project::builder(files).libraries(libraries).new(db)
}

/// The standard library's modules as files of a project, with the library
/// entries that say so. Generated code reaches them as
/// `<runtime>::stdlib::<name>` (the runtime is `nilang` in generated code).
fn std_library(db: &dyn Db) -> (Vec<SourceFile>, Vec<LibraryModule>) {
    let mut files = Vec::new();
    let mut libraries = Vec::new();
    for m in crate::stdlib::MODULES {
        let file = SourceFile::new(db, crate::stdlib::source_path(m.name), m.text.to_string());
        files.push(file);
        libraries.push(LibraryModule {
            file,
            package: crate::modules::STD.to_string(),
            path: format!("{}.{}", crate::modules::STD, m.name),
            rust_path: format!("nilang::stdlib::{}", m.name),
        });
    }
    (files, libraries)
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
pub(crate) fn defined_name(db: &dyn Db, project: Project, file: SourceFile, name: &str) -> String {
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

/// Parses a file into functions (with function-relative spans) and syntax errors.
#[salsa::tracked(returns(ref))]
pub fn parse_file(db: &dyn Db, file: SourceFile) -> Arc<ParsedFile> {
    Arc::new(db.parse(file, file.text(db)))
}

/// The byte offsets at which the lines of a file start.
#[salsa::tracked(returns(ref))]
pub fn line_starts(db: &dyn Db, file: SourceFile) -> Vec<u32> {
    nilang_syntax::render::line_starts(file.text(db))
}

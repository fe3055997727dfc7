//! Compile a crate's `.nil` files into Rust modules, from `build.rs`.
//!
//! ```no_run
//! // build.rs: `fn main` calls
//! nilang_build::compile_dir("src");
//! ```
//!
//! ```ignore
//! // src/lib.rs: one module per `.nil` file, named after it.
//! nilang_runtime::include_nil!(pub mod arithmetic);
//! ```
//!
//! Every `.nil` file under the folder becomes `OUT_DIR/<file stem>.rs`. The
//! files are one project: functions call each other across files, and the
//! generated modules refer to each other as siblings (`super::<stem>`), so
//! include them side by side.
//!
//! On an error, the diagnostics are printed with codespan-reporting on
//! standard error, each one is also reported as a `cargo::error=` line, no
//! file is written (a build never sees half of a generation), and the
//! script exits with status 1, so that cargo shows the diagnostics. Warnings
//! are `cargo::warning=` lines (or errors, with `deny_warnings`). Paths are
//! relative to the workspace root, as rustc's are. Files are rewritten only
//! when their content changes, the module of a deleted `.nil` file is
//! removed, and `cargo::rerun-if-changed` is printed for every file and
//! folder read and for `Cargo.toml`, so cargo reruns the script only when a
//! `.nil` file or the options change.
//!
//! Options come from [`Config`], or from the package's `Cargo.toml`:
//!
//! ```toml
//! [package.metadata.nilang]
//! atol = 1e-10    # absolute tolerance of the run-time checks (default 1e-8)
//! checks = false  # generate no run-time checks at all (default true)
//! tape_loops = true  # every loop a `@tape` loop (default false)
//! gradients = false  # no f_adjoint / f_grad functions (default true)
//! deny_warnings = true  # warnings stop the build (default false)
//! runtime_path = "crate::rt"  # how generated code names the runtime
//! ```
//!
//! A key not listed here is an error. Generated code reaches the runtime
//! crate `nilang-runtime` under the name the package depends on it by, so a
//! renamed dependency (`rt = { package = "nilang-runtime", ... }`) works as
//! it is; `runtime_path` is for a re-export.
//!
//! Without checks, code is faster but a broken `.nil` program gives a wrong
//! result instead of an error, and a `~@routine` that only restores
//! ancillas about to be freed is not run (see `codegen`).

use std::fmt;
use std::path::{Path, PathBuf};

use nilang_analysis::db::{LibraryModule, Project, RootDatabase, SourceFile};
use nilang_codegen::Options;
use nilang_codegen::queries as db;
pub use nilang_syntax::diagnostics::{Diagnostic, Severity};
use nilang_syntax::render;

/// Why compilation stopped.
#[derive(Debug)]
pub enum Error {
    /// Reading or writing a file failed, or the environment is not a build script's.
    Io(String),
    /// The `.nil` files have errors (already printed).
    Diagnostics { errors: usize },
    /// `[package.metadata.nilang]` is malformed.
    Metadata(String),
}

impl fmt::Display for Error {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Error::Io(m) | Error::Metadata(m) => f.write_str(m),
            Error::Diagnostics { errors } => write!(
                f,
                "{errors} error{} in .nil files",
                if *errors == 1 { "" } else { "s" }
            ),
        }
    }
}

impl std::error::Error for Error {}

/// Options of a compilation.
#[derive(Clone, Debug)]
pub struct Config {
    atol: Option<f64>,
    checks: Option<bool>,
    gradients: Option<bool>,
    tape_loops: Option<bool>,
    keep_uncomputation: bool,
    runtime_path: Option<String>,
    deny_warnings: Option<bool>,
    out_dir: Option<PathBuf>,
    manifest_dir: Option<PathBuf>,
    read_metadata: bool,
    emit_cargo_directives: bool,
    variants: Vec<nilang_codegen::Variant>,
}

impl Default for Config {
    fn default() -> Self {
        Config::new()
    }
}

impl Config {
    pub fn new() -> Config {
        Config {
            atol: None,
            checks: None,
            gradients: None,
            tape_loops: None,
            keep_uncomputation: false,
            runtime_path: None,
            deny_warnings: None,
            out_dir: None,
            manifest_dir: None,
            read_metadata: true,
            emit_cargo_directives: true,
            variants: Vec::new(),
        }
    }

    /// The absolute tolerance of the run-time checks (default `1e-8`, or the
    /// package's `[package.metadata.nilang] atol`).
    pub fn atol(mut self, atol: f64) -> Config {
        self.atol = Some(atol);
        self
    }

    /// Whether to make every `for` and `while` loop a `@tape` loop (default
    /// `false`, or the package's `[package.metadata.nilang] tape_loops`):
    /// the same source then records what its loops overwrite instead of
    /// recomputing it, for comparing the two. Functions that record take a
    /// `&mut nilang::Tape` last.
    pub fn tape_loops(mut self, yes: bool) -> Config {
        self.tape_loops = Some(yes);
        self
    }

    /// Whether to generate the run-time reversibility checks (default
    /// `true`, or the package's `[package.metadata.nilang] checks`); `false`
    /// is as if every statement were under `@invcheckoff`.
    pub fn checks(mut self, yes: bool) -> Config {
        self.checks = Some(yes);
        self
    }

    /// Whether a build without checks still runs every uncomputation
    /// (default `false`): a `~@routine` that only restores ancillas about to
    /// be freed is then run, and scratch ancillas are uncomputed rather
    /// than set back to zero. For benchmarks that measure what the checks
    /// themselves cost, against the same work without them; not a
    /// `[package.metadata.nilang]` key.
    pub fn keep_uncomputation(mut self, yes: bool) -> Config {
        self.keep_uncomputation = yes;
        self
    }

    /// Whether to generate the gradient functions `f_adjoint`,
    /// `uncall_f_adjoint` and `f_grad` (default `true`, or the package's
    /// `[package.metadata.nilang] gradients`).
    pub fn gradients(mut self, yes: bool) -> Config {
        self.gradients = Some(yes);
        self
    }

    /// The path through which generated code reaches the runtime crate
    /// (like prost-build's `prost_path`). Default: the package's
    /// `[package.metadata.nilang] runtime_path`, else the name under which
    /// the package depends on `nilang-runtime` (so a renamed dependency
    /// works as it is), else `nilang_runtime`. A re-export such as
    /// `crate::rt` works too.
    pub fn runtime_path(mut self, path: impl Into<String>) -> Config {
        self.runtime_path = Some(path.into());
        self
    }

    /// Also compile `function` with the parameters `constants` made
    /// `Const`, as `<function>_const_<names>` (with its uncall and gradient
    /// programs): per-call activity for Rust callers. `f(y, A, x)` with
    /// `variant("f", ["A"])` gives `f_const_a_grad(y, y_bar, A, x, x_bar)`,
    /// which takes no adjoint for `A` and does no adjoint work for it or
    /// for anything computed from constants only, beside `f_grad`, which
    /// differentiates with respect to all three. The function must not
    /// change those parameters (E0209 otherwise).
    pub fn variant<S: AsRef<str>>(
        mut self,
        function: &str,
        constants: impl IntoIterator<Item = S>,
    ) -> Config {
        self.variants.push(nilang_codegen::Variant {
            function: function.to_string(),
            constants: constants
                .into_iter()
                .map(|c| c.as_ref().to_string())
                .collect(),
        });
        self
    }

    /// Whether warnings stop the build like errors (default `false`, or
    /// the package's `[package.metadata.nilang] deny_warnings`).
    pub fn deny_warnings(mut self, yes: bool) -> Config {
        self.deny_warnings = Some(yes);
        self
    }

    /// Where to write the modules (default: `OUT_DIR`).
    pub fn out_dir(mut self, dir: impl Into<PathBuf>) -> Config {
        self.out_dir = Some(dir.into());
        self
    }

    /// The package root, for relative paths and metadata (default:
    /// `CARGO_MANIFEST_DIR`).
    pub fn manifest_dir(mut self, dir: impl Into<PathBuf>) -> Config {
        self.manifest_dir = Some(dir.into());
        self
    }

    /// Whether to read `[package.metadata.nilang]` with `cargo metadata`.
    pub fn read_metadata(mut self, yes: bool) -> Config {
        self.read_metadata = yes;
        self
    }

    /// Whether to print `cargo::` directives (off outside build scripts).
    pub fn emit_cargo_directives(mut self, yes: bool) -> Config {
        self.emit_cargo_directives = yes;
        self
    }

    fn package_root(&self) -> Result<PathBuf, Error> {
        match &self.manifest_dir {
            Some(d) => Ok(d.clone()),
            None => Ok(PathBuf::from(env("CARGO_MANIFEST_DIR")?)),
        }
    }

    /// Compiles every `.nil` file under `dir` (relative to the package
    /// root). Returns the modules written (or unchanged), by path.
    pub fn compile_dir(&self, dir: impl AsRef<Path>) -> Result<Vec<PathBuf>, Error> {
        let root = self.package_root()?.join(dir.as_ref());
        let mut files = Vec::new();
        let mut folders = Vec::new();
        walk(&root, &mut files, &mut folders)
            .map_err(|e| Error::Io(format!("cannot read `{}`: {e}", root.display())))?;
        if self.emit_cargo_directives {
            for f in &folders {
                println!("cargo::rerun-if-changed={}", f.display());
            }
        }
        self.compile(files)
    }

    /// Compiles the given `.nil` files (relative to the package root) as one
    /// project.
    pub fn compile_files<P: AsRef<Path>>(&self, files: &[P]) -> Result<Vec<PathBuf>, Error> {
        let root = self.package_root()?;
        self.compile(files.iter().map(|f| root.join(f)).collect())
    }

    /// Compiles the standard library's modules (`nilang::stdlib`): what the
    /// runtime crate's build script does. Not for other crates.
    #[doc(hidden)]
    pub fn compile_std(&self) -> Result<Vec<PathBuf>, Error> {
        let sources = nilang_analysis::stdlib::MODULES
            .iter()
            .map(|m| Source {
                path: PathBuf::from(nilang_analysis::stdlib::source_path(m.name)),
                shown: Some(format!("std/{}.nil", m.name)),
                text: m.text.to_string(),
            })
            .collect();
        self.compile_sources(sources, false)
    }

    /// Everything a compilation decides, before anything is written.
    fn run(&self, files: Vec<PathBuf>) -> Result<Run, Error> {
        let sources = self.read_sources(files)?;
        self.run_sources(sources, true)
    }

    /// Reads `files`.
    fn read_sources(&self, mut files: Vec<PathBuf>) -> Result<Vec<Source>, Error> {
        files.sort();
        files.dedup();
        let mut sources = Vec::new();
        for path in files {
            let text = std::fs::read_to_string(&path)
                .map_err(|e| Error::Io(format!("cannot read `{}`: {e}", path.display())))?;
            sources.push(Source {
                path,
                shown: None,
                text,
            });
        }
        Ok(sources)
    }

    /// Everything a compilation of `sources` decides, before anything is
    /// written; `with_std`: the standard library and the dependencies'
    /// modules are libraries of the project (not so when compiling the
    /// standard library itself).
    fn run_sources(&self, sources: Vec<Source>, with_std: bool) -> Result<Run, Error> {
        let manifest_dir = self.package_root()?;
        let out_dir = match &self.out_dir {
            Some(d) => d.clone(),
            None => PathBuf::from(env("OUT_DIR")?),
        };
        let mut options = Options::default();
        let package = if self.read_metadata {
            read_metadata(&manifest_dir, &mut options, self.emit_cargo_directives)?
        } else {
            Package::default()
        };
        if let Some(atol) = self.atol {
            options.atol = atol;
        }
        if let Some(checks) = self.checks {
            options.checks = checks;
        }
        if let Some(gradients) = self.gradients {
            options.gradients = gradients;
        }
        if let Some(tape_loops) = self.tape_loops {
            options.tape_loops = tape_loops;
        }
        options.keep_uncomputation = self.keep_uncomputation;
        options.variants.clone_from(&self.variants);
        if let Some(path) = self.runtime_path.clone().or(package.runtime_path) {
            options.runtime_path = path;
        }
        if !nilang_codegen::is_runtime_path(&options.runtime_path) {
            return Err(Error::Metadata(format!(
                "the runtime path must be a Rust path such as `nilang_runtime` or `crate::rt`, not `{}`",
                options.runtime_path
            )));
        }
        let deny_warnings = self
            .deny_warnings
            .or(package.deny_warnings)
            .unwrap_or(false);
        if !(options.atol.is_finite() && options.atol >= 0.0) {
            return Err(Error::Metadata(format!(
                "the tolerance must be a finite non-negative number, not {}",
                options.atol
            )));
        }
        // Paths in messages and in run-time errors are relative to the
        // workspace root, as rustc's are, so that they are clickable
        // from where `cargo` runs.
        let shown_root = package
            .workspace_root
            .unwrap_or_else(|| manifest_dir.clone());
        if self.emit_cargo_directives {
            for f in &sources {
                println!("cargo::rerun-if-changed={}", f.path.display());
            }
        }

        let db = RootDatabase::default();
        let files: Vec<PathBuf> = sources.iter().map(|s| s.path.clone()).collect();
        let sources: Vec<SourceFile> = sources
            .into_iter()
            .map(|s| {
                let shown = s.shown.unwrap_or_else(|| {
                    s.path
                        .strip_prefix(&shown_root)
                        .unwrap_or(&s.path)
                        .display()
                        .to_string()
                });
                SourceFile::new(&db, shown, s.text)
            })
            .collect();
        let project = if with_std {
            let libraries = self.dependency_modules(&db)?;
            nilang_analysis::db::project_with_std(&db, sources.clone(), libraries)
        } else {
            Project::new(&db, sources.clone())
        };

        for v in &options.variants {
            if nilang_analysis::db::lookup_function(&db, project, &v.function)
                .is_none_or(|f| !sources.contains(&f.file(&db)))
            {
                // The closest name they do define (`mul!` for `mul`).
                let defined: Vec<String> = sources
                    .iter()
                    .flat_map(|&file| nilang_analysis::db::file_functions(&db, project, file))
                    .map(|f| f.name(&db).clone())
                    .collect();
                let bang = format!("{}!", v.function);
                let closest = defined
                    .iter()
                    .find(|n| **n == bang)
                    .map(String::as_str)
                    .or_else(|| {
                        nilang_analysis::builtins::closest(
                            &v.function,
                            defined.iter().map(String::as_str),
                        )
                    });
                let hint = closest.map_or(String::new(), |n| format!("; did you mean `{n}`?"));
                return Err(Error::Metadata(format!(
                    "`variant(\"{}\", ...)`: the `.nil` files compiled here define no function `{}`{hint}",
                    v.function, v.function
                )));
            }
            if v.constants.is_empty() {
                return Err(Error::Metadata(format!(
                    "`variant(\"{}\", ...)` names no parameter to make constant",
                    v.function
                )));
            }
        }
        let mut outputs: Vec<Output> = Vec::new();
        let mut reports: Vec<Report> = Vec::new();
        let mut failed = false;
        let mut names: Vec<(String, String)> = Vec::new();
        for (&file, source) in sources.iter().zip(&files) {
            let module = nilang_analysis::names::module_name(file.path(&db));
            if let Some((_, other)) = names.iter().find(|(m, _)| *m == module) {
                return Err(Error::Io(format!(
                    "`{}` and `{other}` would both become the module `{module}`; rename one",
                    file.path(&db)
                )));
            }
            names.push((module.clone(), file.path(&db).clone()));
            // Warnings are the checks' (what `nilc check` shows); errors
            // are what stops this file's module, with this build's options.
            let mut diagnostics: Vec<Diagnostic> =
                nilang_analysis::db::file_diagnostics(&db, project, file)
                    .iter()
                    .filter(|d| d.severity != Severity::Error)
                    .cloned()
                    .collect();
            match db::rust_module_text(&db, project, file, &options) {
                Ok(code) => outputs.push(Output {
                    path: out_dir.join(format!("{module}.rs")),
                    source: source.clone(),
                    code,
                }),
                Err(errors) => {
                    failed = true;
                    diagnostics.extend(errors);
                }
            }
            diagnostics.sort_by_key(|d| (d.primary.span.start, d.code));
            if !diagnostics.is_empty() {
                reports.push(Report {
                    path: file.path(&db).clone(),
                    text: file.text(&db).clone(),
                    diagnostics,
                });
            }
        }
        if reports
            .iter()
            .any(|r| r.diagnostics.iter().any(|d| d.code == "E0111"))
        {
            let unexported = unexported_dependencies(&self.package_root()?);
            for r in &mut reports {
                explain_unexported(&r.text, &mut r.diagnostics, &unexported);
            }
        }
        Ok(Run {
            out_dir,
            outputs: if failed { Vec::new() } else { outputs },
            reports,
            deny_warnings,
        })
    }

    /// What compiling these `.nil` files (relative to the package root) as
    /// one project reports, file by file, without writing anything: the
    /// errors that stop the build and the warnings, the same list `nilc
    /// check` gives for the build's options.
    pub fn diagnostics<P: AsRef<Path>>(&self, files: &[P]) -> Result<Vec<Report>, Error> {
        let root = self.package_root()?;
        Ok(self
            .run(files.iter().map(|f| root.join(f)).collect())?
            .reports)
    }

    fn compile(&self, files: Vec<PathBuf>) -> Result<Vec<PathBuf>, Error> {
        let sources = self.read_sources(files)?;
        self.compile_sources(sources, true)
    }

    fn compile_sources(&self, sources: Vec<Source>, with_std: bool) -> Result<Vec<PathBuf>, Error> {
        let exported: Vec<PathBuf> = sources.iter().map(|s| s.path.clone()).collect();
        let Run {
            out_dir,
            outputs,
            reports,
            deny_warnings,
        } = self.run_sources(sources, with_std)?;
        let stops = |d: &Diagnostic| d.severity == Severity::Error || deny_warnings;
        let mut errors = 0;
        for report in &reports {
            let (path, text) = (&report.path, &report.text);
            let failed = report.diagnostics.iter().any(stops);
            // Cargo shows a build script's output only when it fails: the
            // warnings go out as `cargo::warning` lines, and the rendering
            // only with errors.
            if failed {
                eprint!(
                    "{}",
                    render::render_human(path, text, &report.diagnostics, false)
                );
            }
            for d in &report.diagnostics {
                let (line, col) = render::line_col(text, d.primary.span.start);
                let kind = if stops(d) {
                    errors += 1;
                    "error"
                } else {
                    "warning"
                };
                if self.emit_cargo_directives {
                    println!(
                        "cargo::{kind}={path}:{line}:{col}: {}[{}]: {}",
                        d.severity.as_str(),
                        d.code,
                        d.message
                    );
                }
            }
        }
        if errors > 0 {
            return Err(Error::Diagnostics { errors });
        }

        std::fs::create_dir_all(&out_dir)
            .map_err(|e| Error::Io(format!("cannot create `{}`: {e}", out_dir.display())))?;
        let mut written = Vec::new();
        for output in &outputs {
            write_if_changed(&output.path, &output.code)?;
            written.push(output.path.clone());
        }
        remove_stale(&out_dir, &outputs)?;
        if with_std {
            self.export_modules(&exported)?;
        }
        Ok(written)
    }

    /// For a package with a `links` key: tells the build scripts of the
    /// packages that depend on it where its `.nil` modules are, so that
    /// theirs can call its functions (`using <crate>.<module>`).
    fn export_modules(&self, files: &[PathBuf]) -> Result<(), Error> {
        if !self.emit_cargo_directives || std::env::var_os("CARGO_MANIFEST_LINKS").is_none() {
            return Ok(());
        }
        let files = std::env::join_paths(
            files
                .iter()
                .map(|f| std::fs::canonicalize(f).unwrap_or_else(|_| f.clone())),
        )
        .map_err(|e| Error::Io(format!("cannot list the `.nil` files for dependents: {e}")))?;
        println!("cargo::metadata=nilang_modules={}", files.to_string_lossy());
        println!(
            "cargo::metadata=nilang_crate={}",
            env("CARGO_PKG_NAME")?.replace('-', "_")
        );
        Ok(())
    }

    /// The `.nil` modules of the packages this one depends on that export
    /// theirs (see [`Config::export_modules`]), as library modules of a
    /// project in `db`.
    fn dependency_modules(&self, db: &RootDatabase) -> Result<Vec<LibraryModule>, Error> {
        let libraries = load_libraries(db, &exported_by_dependencies()?)?;
        if self.emit_cargo_directives {
            for l in &libraries {
                println!("cargo::rerun-if-changed={}", l.file.path(db));
            }
        }
        Ok(libraries)
    }
}

/// A dependency's `.nil` modules: its crate name (as Rust code names it)
/// and its files.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct DependencyModules {
    pub krate: String,
    pub files: Vec<PathBuf>,
}

/// What the build scripts of this package's dependencies passed on: cargo
/// gives each exporting dependency's metadata as `DEP_<LINKS>_NILANG_MODULES`
/// and `DEP_<LINKS>_NILANG_CRATE`.
fn exported_by_dependencies() -> Result<Vec<DependencyModules>, Error> {
    let mut found: Vec<(String, String)> = Vec::new();
    for (key, value) in std::env::vars_os() {
        let (Some(key), Some(value)) = (key.to_str(), value.to_str()) else {
            continue;
        };
        if let Some(links) = key
            .strip_prefix("DEP_")
            .and_then(|k| k.strip_suffix("_NILANG_MODULES"))
        {
            found.push((links.to_string(), value.to_string()));
        }
    }
    found.sort();
    found
        .into_iter()
        .map(|(links, files)| {
            let krate = std::env::var(format!("DEP_{links}_NILANG_CRATE")).map_err(|_| {
                Error::Io(format!(
                    "`DEP_{links}_NILANG_MODULES` is set but not `DEP_{links}_NILANG_CRATE`"
                ))
            })?;
            Ok(DependencyModules {
                krate,
                files: std::env::split_paths(&files).collect(),
            })
        })
        .collect()
}

/// The `.nil` modules of the direct dependencies of the package at
/// `manifest_dir` that have them, found with `cargo metadata` (for `nilc`
/// and the language server, which run outside a build): a dependency with
/// a `links` key and a build dependency on `nilang-build`, whose `.nil`
/// files are those under its root. A build script gets the same list from
/// the dependencies' own build scripts instead.
pub fn dependency_modules(manifest_dir: &Path) -> Result<Vec<DependencyModules>, Error> {
    let mut out = Vec::new();
    for dep in nil_dependencies(manifest_dir)? {
        if !dep.exports {
            continue;
        }
        let mut files = Vec::new();
        let mut folders = Vec::new();
        walk(&dep.root, &mut files, &mut folders)
            .map_err(|e| Error::Io(format!("cannot read `{}`: {e}", dep.root.display())))?;
        out.push(DependencyModules {
            krate: dep.krate,
            files,
        });
    }
    Ok(out)
}

/// The direct dependencies of the package at `manifest_dir` that compile
/// `.nil` files (a build dependency on `nilang-build`) but do not pass
/// them on to their dependents, for want of a `links` key in their
/// `[package]`: cargo hands a build script's metadata only to the build
/// scripts of packages that depend on one with a `links` key. Empty when
/// the metadata cannot be read.
pub fn unexported_dependencies(manifest_dir: &Path) -> Vec<String> {
    nil_dependencies(manifest_dir)
        .map(|deps| {
            deps.into_iter()
                .filter(|d| !d.exports)
                .map(|d| d.krate)
                .collect()
        })
        .unwrap_or_default()
}

/// Names the missing `links` key in each "unknown module" (E0111) of
/// `text` whose package is one of `unexported` ([`unexported_dependencies`]):
/// the module exists, its crate does not pass it on.
pub fn explain_unexported(text: &str, diagnostics: &mut [Diagnostic], unexported: &[String]) {
    for d in diagnostics.iter_mut().filter(|d| d.code == "E0111") {
        let span = d.primary.span;
        let Some(path) = text.get(span.start as usize..span.end as usize) else {
            continue;
        };
        let package = path.split('.').next().unwrap_or_default().trim();
        if unexported.iter().any(|u| u == package) {
            d.help = Some(format!(
                "the dependency `{package}` compiles `.nil` files but does not pass them on: \
                 cargo gives a dependency's build-script metadata only to dependents of a \
                 package with a `links` key; add `links = \"{package}\"` under `[package]` \
                 in its Cargo.toml"
            ));
        }
    }
}

/// A direct dependency that compiles `.nil` files: its crate name (as
/// Rust code names it), its root, and whether it passes its modules on.
struct NilDependency {
    krate: String,
    root: PathBuf,
    exports: bool,
}

/// The direct (normal) dependencies of the package at `manifest_dir` with a
/// build dependency on `nilang-build`, from `cargo metadata`.
fn nil_dependencies(manifest_dir: &Path) -> Result<Vec<NilDependency>, Error> {
    let manifest = manifest_dir.join("Cargo.toml");
    // Offline, and for this machine only: packages never downloaded
    // (other platforms' dependencies) are not needed here.
    let mut options = vec!["--offline".to_string()];
    if let Some(host) = host_triple() {
        options.extend(["--filter-platform".to_string(), host]);
    }
    let metadata = cargo_metadata::MetadataCommand::new()
        .manifest_path(&manifest)
        .other_options(options)
        .exec()
        .map_err(|e| Error::Metadata(format!("cannot read the package metadata: {e}")))?;
    let Some(package) = package_of(&metadata, &manifest) else {
        return Ok(Vec::new());
    };
    let mut out = Vec::new();
    for dependency in &package.dependencies {
        if dependency.kind != cargo_metadata::DependencyKind::Normal {
            continue;
        }
        let Some(dep) = metadata
            .packages
            .iter()
            .find(|p| p.name.as_str() == dependency.name && dependency.req.matches(&p.version))
        else {
            continue;
        };
        let compiles_nil = dep
            .dependencies
            .iter()
            .any(|d| d.kind == cargo_metadata::DependencyKind::Build && d.name == "nilang-build");
        if !compiles_nil {
            continue;
        }
        out.push(NilDependency {
            krate: dependency
                .rename
                .as_deref()
                .unwrap_or(&dependency.name)
                .replace('-', "_"),
            root: dep
                .manifest_path
                .parent()
                .map(|p| p.as_std_path().to_path_buf())
                .unwrap_or_default(),
            exports: dep.links.is_some(),
        });
    }
    Ok(out)
}

/// The package of `metadata` whose manifest is `manifest`.
fn package_of<'a>(
    metadata: &'a cargo_metadata::Metadata,
    manifest: &Path,
) -> Option<&'a cargo_metadata::Package> {
    let manifest = std::fs::canonicalize(manifest).unwrap_or_else(|_| manifest.to_path_buf());
    metadata.packages.iter().find(|p| {
        std::fs::canonicalize(p.manifest_path.as_std_path())
            .ok()
            .as_deref()
            == Some(manifest.as_path())
    })
}

/// The host's target triple, from `rustc -vV`.
fn host_triple() -> Option<String> {
    let rustc = std::env::var_os("RUSTC").unwrap_or_else(|| "rustc".into());
    let out = std::process::Command::new(rustc).arg("-vV").output().ok()?;
    String::from_utf8(out.stdout)
        .ok()?
        .lines()
        .find_map(|l| l.strip_prefix("host: "))
        .map(str::to_string)
}

/// The `.nil` modules of the dependencies of the Cargo package that
/// `path` (a file) is in, the nearest `Cargo.toml` above it, as library
/// modules of a project in `db` (what `nilc` and the language server add
/// when a file imports a package the project lacks); `None` when there is
/// no such package or it cannot be read.
pub fn libraries_near(db: &RootDatabase, path: &Path) -> Option<Vec<LibraryModule>> {
    load_libraries(db, &dependency_modules(&package_root_of(path)?).ok()?).ok()
}

/// The root of the Cargo package that `path` (a file) is in: the nearest
/// folder above it with a `Cargo.toml`.
pub fn package_root_of(path: &Path) -> Option<PathBuf> {
    let absolute = std::path::absolute(path).ok()?;
    absolute
        .ancestors()
        .skip(1)
        .find(|d| d.join("Cargo.toml").is_file())
        .map(Path::to_path_buf)
}

/// The files of `dependencies` as library modules of a project in `db`:
/// `<crate>.<file stem>`, generated in `::<crate>::<module>`.
pub fn load_libraries(
    db: &RootDatabase,
    dependencies: &[DependencyModules],
) -> Result<Vec<LibraryModule>, Error> {
    let mut libraries = Vec::new();
    for DependencyModules { krate, files } in dependencies {
        for path in files {
            let text = std::fs::read_to_string(path).map_err(|e| {
                Error::Io(format!(
                    "cannot read `{}` of the dependency `{krate}`: {e}",
                    path.display()
                ))
            })?;
            let stem = path
                .file_stem()
                .map(|s| s.to_string_lossy().into_owned())
                .unwrap_or_default();
            let module = nilang_analysis::names::module_name(&path.to_string_lossy());
            let file = SourceFile::new(db, path.display().to_string(), text);
            libraries.push(LibraryModule {
                file,
                package: krate.clone(),
                path: format!("{krate}.{stem}"),
                rust_path: format!("::{krate}::{module}"),
            });
        }
    }
    Ok(libraries)
}

/// A `.nil` file to compile: where it is, how messages show its path
/// (`None`: relative to the workspace root), its text.
struct Source {
    path: PathBuf,
    shown: Option<String>,
    text: String,
}

/// The diagnostics of one `.nil` file, as a compilation reports them.
#[derive(Clone, Debug)]
pub struct Report {
    /// The path as shown in messages (relative to the package root).
    pub path: String,
    pub text: String,
    /// Errors and warnings, sorted by position.
    pub diagnostics: Vec<Diagnostic>,
}

struct Run {
    out_dir: PathBuf,
    deny_warnings: bool,
    /// The modules to write: none when any file failed.
    outputs: Vec<Output>,
    reports: Vec<Report>,
}

/// A generated module and the `.nil` file it comes from.
struct Output {
    path: PathBuf,
    source: PathBuf,
    code: String,
}

/// The record of what the plugin wrote into an output folder: one line per
/// module, `<module path>\t<.nil path>`.
const RECORD: &str = ".nilang-generated";

/// Removes the modules written earlier for `.nil` files that no longer
/// exist, so that `include_nil!` of a deleted file fails instead of
/// compiling its old module, and records what this run wrote. Only files the
/// record names are removed: other builds' files in the folder, and the
/// modules of other `compile_*` calls whose sources still exist, are left.
fn remove_stale(out_dir: &Path, outputs: &[Output]) -> Result<(), Error> {
    let record = out_dir.join(RECORD);
    let old = std::fs::read_to_string(&record).unwrap_or_default();
    let mut kept: Vec<(PathBuf, PathBuf)> = Vec::new();
    for line in old.lines() {
        let Some((module, source)) = line.split_once('\t') else {
            continue;
        };
        let (module, source) = (PathBuf::from(module), PathBuf::from(source));
        if outputs.iter().any(|o| o.path == module) {
            continue;
        }
        if source.exists() {
            kept.push((module, source));
        } else {
            match std::fs::remove_file(&module) {
                Ok(()) => {}
                Err(e) if e.kind() == std::io::ErrorKind::NotFound => {}
                Err(e) => {
                    return Err(Error::Io(format!(
                        "cannot remove the stale module `{}`: {e}",
                        module.display()
                    )));
                }
            }
        }
    }
    kept.extend(outputs.iter().map(|o| (o.path.clone(), o.source.clone())));
    kept.sort();
    let mut text = String::new();
    for (module, source) in kept {
        text.push_str(&format!("{}\t{}\n", module.display(), source.display()));
    }
    write_if_changed(&record, &text)
}

/// Compiles every `.nil` file under `dir` with the default [`Config`]. On
/// failure it reports and makes the build fail (`cargo::error`), so a
/// `build.rs` needs nothing else.
pub fn compile_dir(dir: impl AsRef<Path>) {
    report(Config::new().compile_dir(dir));
}

/// Like [`compile_dir`], for a list of files.
pub fn compile_files<P: AsRef<Path>>(files: &[P]) {
    report(Config::new().compile_files(files));
}

/// Fails the build on an error: a `cargo::error=` line (each diagnostic
/// already has its own), then exit status 1. Cargo shows a build script's
/// standard error, and so the codespan diagnostics, only when it exits
/// unsuccessfully.
pub fn report<T>(result: Result<T, Error>) {
    match result {
        Ok(_) => {}
        Err(Error::Diagnostics { .. }) => std::process::exit(1),
        Err(other) => {
            println!("cargo::error={other}");
            eprintln!("error: {other}");
            std::process::exit(1);
        }
    }
}

fn env(name: &str) -> Result<String, Error> {
    std::env::var(name).map_err(|_| {
        Error::Io(format!(
            "`{name}` is not set: call nilang-build from a build script, or set it with `Config`"
        ))
    })
}

fn walk(dir: &Path, files: &mut Vec<PathBuf>, folders: &mut Vec<PathBuf>) -> std::io::Result<()> {
    folders.push(dir.to_path_buf());
    let mut entries: Vec<_> = std::fs::read_dir(dir)?.filter_map(Result::ok).collect();
    entries.sort_by_key(|e| e.file_name());
    for entry in entries {
        let path = entry.path();
        let kind = entry.file_type()?;
        if kind.is_dir() {
            if !nilang_syntax::files::skipped_folder(&entry.file_name().to_string_lossy()) {
                walk(&path, files, folders)?;
            }
        } else if nilang_syntax::files::is_nil_file(&path) {
            files.push(path);
        }
    }
    Ok(())
}

/// Writes `contents` unless the file already holds it; through a temporary
/// file and a rename, so that no reader ever sees a partial file.
fn write_if_changed(path: &Path, contents: &str) -> Result<(), Error> {
    if std::fs::read_to_string(path).is_ok_and(|old| old == contents) {
        return Ok(());
    }
    let tmp = path.with_extension("rs.tmp");
    std::fs::write(&tmp, contents)
        .and_then(|_| std::fs::rename(&tmp, path))
        .map_err(|e| {
            let _ = std::fs::remove_file(&tmp);
            Error::Io(format!("cannot write `{}`: {e}", path.display()))
        })
}

/// What the package's manifest says beyond the code options.
#[derive(Default)]
struct Package {
    workspace_root: Option<PathBuf>,
    runtime_path: Option<String>,
    deny_warnings: Option<bool>,
}

/// The keys of `[package.metadata.nilang]`.
const KEYS: [&str; 6] = [
    "atol",
    "checks",
    "gradients",
    "tape_loops",
    "runtime_path",
    "deny_warnings",
];

fn read_metadata(
    manifest_dir: &Path,
    options: &mut Options,
    emit_cargo_directives: bool,
) -> Result<Package, Error> {
    let manifest = manifest_dir.join("Cargo.toml");
    if !manifest.exists() {
        return Ok(Package::default());
    }
    if emit_cargo_directives {
        // The options live there: a change reruns the build script.
        println!("cargo::rerun-if-changed={}", manifest.display());
    }
    let metadata = cargo_metadata::MetadataCommand::new()
        .manifest_path(&manifest)
        .no_deps()
        .exec()
        .map_err(|e| Error::Metadata(format!("cannot read the package metadata: {e}")))?;
    let mut found = Package {
        workspace_root: Some(metadata.workspace_root.clone().into_std_path_buf()),
        ..Package::default()
    };
    let Some(package) = package_of(&metadata, &manifest) else {
        return Ok(found);
    };
    // A renamed dependency on the runtime is where generated code finds it.
    found.runtime_path = package
        .dependencies
        .iter()
        .find(|d| d.name == RUNTIME_PACKAGE && d.kind == cargo_metadata::DependencyKind::Normal)
        .map(|d| d.rename.as_deref().unwrap_or(&d.name).replace('-', "_"));
    let Some(nilang) = package.metadata.get("nilang") else {
        return Ok(found);
    };
    let Some(table) = nilang.as_object() else {
        return Err(Error::Metadata(
            "[package.metadata.nilang] must be a table".to_string(),
        ));
    };
    for key in table.keys() {
        if !KEYS.contains(&key.as_str()) {
            return Err(Error::Metadata(format!(
                "[package.metadata.nilang] has no key `{key}`; the keys are {}",
                KEYS.map(|k| format!("`{k}`")).join(", ")
            )));
        }
    }
    let flag = |key: &str| -> Result<Option<bool>, Error> {
        table
            .get(key)
            .map(|v| {
                v.as_bool().ok_or_else(|| {
                    Error::Metadata(format!(
                        "[package.metadata.nilang] {key} must be true or false, not {v}"
                    ))
                })
            })
            .transpose()
    };
    if let Some(atol) = table.get("atol") {
        options.atol = atol.as_f64().ok_or_else(|| {
            Error::Metadata(format!(
                "[package.metadata.nilang] atol must be a number, not {atol}"
            ))
        })?;
    }
    if let Some(yes) = flag("gradients")? {
        options.gradients = yes;
    }
    if let Some(yes) = flag("tape_loops")? {
        options.tape_loops = yes;
    }
    if let Some(yes) = flag("checks")? {
        options.checks = yes;
    }
    found.deny_warnings = flag("deny_warnings")?;
    if let Some(path) = table.get("runtime_path") {
        found.runtime_path = Some(path.as_str().map(str::to_string).ok_or_else(|| {
            Error::Metadata(format!(
                "[package.metadata.nilang] runtime_path must be a string, not {path}"
            ))
        })?);
    }
    Ok(found)
}

/// The runtime crate's package name, as a dependency names it.
const RUNTIME_PACKAGE: &str = "nilang-runtime";

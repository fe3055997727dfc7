//! `nilc`: the NiLang command line.
//!
//! A thin shell over the compiler core: it reads files, fills the salsa
//! database, and prints what the queries return.
//!
//! Exit codes: 0 clean, 1 errors found (or warnings with `--deny-warnings`),
//! 2 usage or IO errors.

use std::io::{IsTerminal, Write};
use std::path::{Path, PathBuf};
use std::process::ExitCode;

use clap::{Parser, Subcommand, ValueEnum};
use nilang_compiler::db::{self, Project, RootDatabase, SourceFile};
use nilang_compiler::diagnostics::{Diagnostic, Severity};
use nilang_compiler::{ast::Span, files, format, render, sarif};

#[derive(Parser)]
#[command(
    name = "nilc",
    version,
    about = "The NiLang compiler: check, invert and compile reversible .nil programs"
)]
struct Cli {
    #[command(subcommand)]
    command: Command,
}

#[derive(Subcommand)]
enum Command {
    /// Check `.nil` files for syntax and reversibility errors.
    Check {
        /// Files or directories (searched recursively for `.nil` files).
        /// Defaults to the current directory.
        paths: Vec<PathBuf>,
        /// Output format.
        #[arg(long, value_enum, default_value_t = Format::Human)]
        format: Format,
        /// Exit with status 1 on warnings too.
        #[arg(long)]
        deny_warnings: bool,
        /// When to colour the output.
        #[arg(long, value_enum, default_value_t = Color::Auto)]
        color: Color,
    },
    /// Print the inverse of the functions of a file (or of one function) as `.nil` source.
    ///
    /// The other `.nil` files of the file's folder are loaded too, so that
    /// calls into them resolve; only errors in FILE itself stop the command.
    Inverse {
        /// The `.nil` file.
        file: PathBuf,
        /// Only this function.
        function: Option<String>,
    },
    /// Format `.nil` files in place: indentation, trailing whitespace, the
    /// final line break (comments and spellings kept).
    ///
    /// With `--check`, change nothing: list the files that are not
    /// formatted and exit with status 1 if there are any.
    Fmt {
        /// Files or directories (searched recursively for `.nil` files).
        /// Defaults to the current directory.
        paths: Vec<PathBuf>,
        /// Report instead of rewriting.
        #[arg(long)]
        check: bool,
        /// Spaces per indentation level.
        #[arg(long, default_value_t = 4, value_parser = clap::value_parser!(u32).range(1..=16))]
        indent: u32,
        /// Indent with tabs instead of spaces.
        #[arg(long, conflicts_with = "indent")]
        tabs: bool,
    },
    /// Print the Rust code generated for a file (formatted by rustfmt when it is installed).
    ///
    /// Like `inverse`, the other `.nil` files of the folder are loaded for calls.
    Emit {
        /// The `.nil` file.
        file: PathBuf,
        /// Absolute tolerance of the run-time checks.
        #[arg(long, default_value_t = 1e-8)]
        atol: f64,
        /// Generate no run-time reversibility checks.
        #[arg(long)]
        no_checks: bool,
        /// With --no-checks, still run every uncomputation (for measuring
        /// what the checks themselves cost).
        #[arg(long, requires = "no_checks")]
        keep_uncomputation: bool,
        /// Generate no adjoint (gradient) functions.
        #[arg(long)]
        no_gradients: bool,
        /// Make every `for` and `while` loop a `@tape` loop (record instead
        /// of recompute), to compare the two ways on one source.
        #[arg(long)]
        tape_loops: bool,
        /// The path through which the generated code reaches the runtime
        /// crate: its name as a dependency (`nilang_runtime`, or what the
        /// dependency was renamed to), or a re-export such as `crate::rt`.
        #[arg(long, default_value = nilang_compiler::codegen::RUNTIME_CRATE, value_parser = runtime_path)]
        runtime_path: String,
        /// Also print a function compiled with some parameters constant, as
        /// the build script's `Config::variant` makes it: `f:x,w` gives
        /// `f_const_x_w`. May be repeated.
        #[arg(long = "variant", value_name = "FUNCTION:PARAMS", value_parser = variant)]
        variants: Vec<nilang_compiler::codegen::Variant>,
    },
    /// Run the examples of the functions' docstrings, written as Julia's
    /// doctests (a `julia> f(...)` line and the arguments after the call
    /// on the next), in the reference interpreter.
    Test {
        /// Files or directories (searched recursively for `.nil` files).
        /// Defaults to the current directory.
        paths: Vec<PathBuf>,
    },
    /// An interactive session: load `.nil` files, keep values in
    /// variables, call functions and their inverses, take gradients, and
    /// print inverses and generated Rust (`:help` lists the commands).
    Repl {
        /// Files to load first (with the other `.nil` files of their
        /// folders).
        files: Vec<PathBuf>,
    },
    /// Run a function of a file in the reference interpreter, with no Rust
    /// to write: `nilc run fib.nil rfib 0 10` prints every argument after
    /// the call.
    ///
    /// Arguments are written as Julia writes values: `1.5`, `-2`, `true`,
    /// `1.5f0` (an `f32`), `[1.0, 2.0]`, `[1 2; 3 4]` (a matrix), `Complex(1, 2)`, `Pt(1.0, 2.0)`
    /// (a struct), `Fixed43(1.25)`, `exp(0.5)` (a log number by its
    /// logarithm), `Tropical(2.0)`. Like `inverse`, the other `.nil` files of
    /// the folder are loaded for calls.
    Run {
        /// The `.nil` file.
        file: PathBuf,
        /// The function to run.
        function: String,
        /// Its arguments, in order.
        #[arg(allow_negative_numbers = true)]
        args: Vec<String>,
        /// Run the function's inverse, `(~f)(args...)`.
        #[arg(long, conflicts_with = "check_inv")]
        uncall: bool,
        /// Run the function, then its inverse, and check that every argument
        /// comes back within `--atol` (exit status 1 if not).
        #[arg(long)]
        check_inv: bool,
        /// Also run the gradient, seeding the adjoint of parameter NAME with
        /// 1 (`--grad out!`) or with a value (`--grad 'y=[1, 0, 0]'`); may be
        /// repeated. Prints each parameter's adjoint after the reverse run.
        #[arg(long = "grad", value_name = "NAME[=SEED]", conflicts_with = "uncall")]
        seeds: Vec<String>,
        /// With `--grad`, compare every float adjoint with central
        /// differences of the seeded results (exit status 1 if one differs).
        #[arg(long, requires = "seeds")]
        check_grad: bool,
        /// Absolute tolerance of the run-time checks and of `--check-inv`.
        #[arg(long, default_value_t = 1e-8)]
        atol: f64,
        /// Run the `@kernel` function once for each invocation index 1..=N
        /// (what `global_index()` reads), in order, on the same arguments;
        /// with `--grad`, each invocation's backward run follows the launch.
        #[arg(long, value_name = "N", conflicts_with = "check_grad")]
        launch: Option<usize>,
    },
}

/// `nilc repl`'s line editor: completion of commands, functions and
/// variables; history in `~/.nilc_history`.
struct ReplHelper {
    words: Vec<String>,
}

impl rustyline::completion::Completer for ReplHelper {
    type Candidate = String;

    fn complete(
        &self,
        line: &str,
        pos: usize,
        _: &rustyline::Context<'_>,
    ) -> rustyline::Result<(usize, Vec<String>)> {
        let start = line[..pos]
            .rfind(|c: char| !(c.is_alphanumeric() || c == '_' || c == '!' || c == ':'))
            .map_or(0, |i| i + 1);
        let word = &line[start..pos];
        let found = self
            .words
            .iter()
            .filter(|w| w.starts_with(word))
            .cloned()
            .collect();
        Ok((start, found))
    }
}

impl rustyline::hint::Hinter for ReplHelper {
    type Hint = String;
}
impl rustyline::highlight::Highlighter for ReplHelper {}
impl rustyline::validate::Validator for ReplHelper {}
impl rustyline::Helper for ReplHelper {}

/// `nilc test`: every docstring example of the files, one line each, then
/// a summary; status 1 if one fails or a file has errors.
fn doctests(paths: Vec<PathBuf>) -> Result<ExitCode, Fatal> {
    use nilang_interp::doctest::{self, Outcome};
    let loaded: Vec<Loaded> = load_all(paths)?.into_iter().map(|(_, l)| l).collect();
    let mut database = RootDatabase::default();
    let (project, sources) = build_project(&mut database, &loaded);
    let (mut passed, mut failed, mut broken) = (0usize, 0usize, 0usize);
    for (l, &file) in loaded.iter().zip(&sources) {
        if report_errors(&database, project, file, l, "testing it")?.is_some() {
            broken += 1;
            continue;
        }
        let starts = db::line_starts(&database, file);
        for &f in db::file_functions(&database, project, file) {
            let Some(ast) = db::function_ast(&database, f) else {
                continue;
            };
            let Some(doc) = &ast.doc else { continue };
            let offset = db::function_offset(&database, f) as usize;
            for example in doctest::examples(doc) {
                let at = doctest::locate(&l.text, offset, &example).unwrap_or(offset);
                let (line, _) = render::line_col_indexed(&l.text, starts, at as u32);
                let mut interpreter = nilang_interp::Interpreter::new(&database, project);
                match doctest::run(&mut interpreter, &example) {
                    Outcome::Passed(_) => {
                        passed += 1;
                        println!("{}:{line}: {} ... ok", l.path, example.call);
                    }
                    Outcome::Failed { got } => {
                        failed += 1;
                        println!(
                            "{}:{line}: {} ... FAILED: expected {}, got {got}",
                            l.path, example.call, example.expected
                        );
                    }
                    Outcome::Error(e) => {
                        failed += 1;
                        println!("{}:{line}: {} ... FAILED: {e}", l.path, example.call);
                    }
                }
            }
        }
    }
    println!(
        "{} example{}: {passed} passed, {failed} failed{}",
        passed + failed,
        plural(passed + failed),
        match broken {
            0 => String::new(),
            n => format!("; {n} file{} with errors not run", plural(n)),
        }
    );
    Ok(if failed == 0 && broken == 0 {
        ExitCode::SUCCESS
    } else {
        ExitCode::from(1)
    })
}

/// `nilc repl`: loads the files, then answers each line until `:quit` or
/// the end of input. An error is printed and the session goes on.
fn repl(files: &[PathBuf]) -> Result<ExitCode, Fatal> {
    use nilang_compiler::repl::{COMMANDS, Session, read_with_folder};
    let mut session = Session::new();
    let mut loaded = Vec::new();
    for f in files {
        loaded.extend(read_with_folder(&f.display().to_string()).map_err(Fatal)?);
    }
    if !loaded.is_empty() {
        match session.load(loaded) {
            Ok(m) => println!("{m}"),
            Err(e) => eprint!("{e}"),
        }
    }
    let mut editor: rustyline::Editor<ReplHelper, rustyline::history::DefaultHistory> =
        rustyline::Editor::new().map_err(|e| Fatal(format!("no line editor: {e}")))?;
    let history = std::env::var_os("HOME").map(|h| PathBuf::from(h).join(".nilc_history"));
    if let Some(h) = &history {
        let _ = editor.load_history(h);
    }
    loop {
        let words: Vec<String> = COMMANDS
            .iter()
            .map(|(c, _)| c.split(' ').next().unwrap_or(c).to_string())
            .chain(session.functions())
            .chain(session.variables())
            .collect();
        editor.set_helper(Some(ReplHelper { words }));
        let line = match editor.readline("nil> ") {
            Ok(line) => line,
            Err(rustyline::error::ReadlineError::Interrupted) => continue,
            Err(rustyline::error::ReadlineError::Eof) => break,
            Err(e) => return Err(Fatal(format!("reading a line: {e}"))),
        };
        if !line.trim().is_empty() {
            let _ = editor.add_history_entry(line.as_str());
        }
        if matches!(line.trim(), ":quit" | ":q" | ":exit") {
            break;
        }
        match session.line(&line) {
            Ok(text) if text.is_empty() => {}
            Ok(text) => println!("{text}"),
            Err(e) => eprintln!("error: {}", e.trim_end()),
        }
    }
    if let Some(h) = &history {
        let _ = editor.save_history(h);
    }
    Ok(ExitCode::SUCCESS)
}

#[derive(Clone, Copy, PartialEq, Eq)]
enum Way {
    /// Run the function (the default).
    Call,
    /// Run its inverse, `(~f)(args...)`.
    Uncall,
    /// Run it and then its inverse, and check that the arguments come back
    /// (NiLang's `check_inv`).
    CheckInv,
}

fn variant(text: &str) -> Result<nilang_compiler::codegen::Variant, String> {
    let (function, params) = text
        .split_once(':')
        .ok_or("expected a function and its constant parameters, such as `f:x,w`")?;
    let constants: Vec<String> = params.split(',').map(|p| p.trim().to_string()).collect();
    if function.trim().is_empty() || constants.iter().any(String::is_empty) {
        return Err("expected a function and its constant parameters, such as `f:x,w`".into());
    }
    Ok(nilang_compiler::codegen::Variant {
        function: function.trim().to_string(),
        constants,
    })
}

fn runtime_path(path: &str) -> Result<String, String> {
    if nilang_compiler::codegen::is_runtime_path(path) {
        Ok(path.to_string())
    } else {
        Err("expected a Rust path such as `nilang_runtime` or `crate::rt`".to_string())
    }
}

#[derive(Clone, Copy, ValueEnum, PartialEq, Eq)]
enum Format {
    /// Diagnostics with source excerpts.
    Human,
    /// One line per diagnostic: `file:line:col: severity[code]: message`.
    Short,
    /// A JSON array of diagnostics.
    Json,
    /// GitHub Actions workflow commands (`::error file=…`), which the
    /// runner shows as annotations on the pull request.
    Github,
    /// A SARIF 2.1.0 log, for code scanning.
    Sarif,
}

#[derive(Clone, Copy, ValueEnum, PartialEq, Eq)]
enum Color {
    Auto,
    Always,
    Never,
}

/// An error that stops the command before it produced output (exit 2).
struct Fatal(String);

/// A reader that stops reading (`nilc emit f.nil | head`) ends `nilc` as
/// SIGPIPE ends other tools, quietly, rather than with a panic of
/// `println!` on the closed pipe (Rust sets the signal to be ignored).
fn end_quietly_on_a_closed_pipe() {
    #[cfg(unix)]
    // SAFETY: setting a signal's action to its default, before any thread
    // starts, has no precondition.
    unsafe {
        libc::signal(libc::SIGPIPE, libc::SIG_DFL);
    }
}

fn main() -> ExitCode {
    end_quietly_on_a_closed_pipe();
    let cli = Cli::parse();
    let result = match cli.command {
        Command::Check {
            paths,
            format,
            deny_warnings,
            color,
        } => check(paths, format, deny_warnings, color),
        Command::Inverse { file, function } => inverse(&file, function.as_deref()),
        Command::Repl { files } => repl(&files),
        Command::Test { paths } => doctests(paths),
        Command::Run {
            file,
            function,
            args,
            uncall,
            check_inv,
            seeds,
            check_grad,
            atol,
            launch,
        } => run(
            &file,
            &function,
            &args,
            match (uncall, check_inv) {
                (true, _) => Way::Uncall,
                (_, true) => Way::CheckInv,
                _ => Way::Call,
            },
            &seeds,
            check_grad,
            atol,
            launch,
        ),
        Command::Fmt {
            paths,
            check,
            indent,
            tabs,
        } => fmt(
            paths,
            check,
            if tabs {
                format::Indent::Tab
            } else {
                format::Indent::Spaces(indent)
            },
        ),
        Command::Emit {
            file,
            atol,
            no_checks,
            keep_uncomputation,
            no_gradients,
            tape_loops,
            runtime_path,
            variants,
        } => emit(
            &file,
            nilang_compiler::codegen::Options {
                atol,
                checks: !no_checks,
                keep_uncomputation,
                gradients: !no_gradients,
                tape_loops,
                runtime_path,
                variants,
            },
        ),
    };
    match result {
        Ok(code) => code,
        Err(Fatal(message)) => {
            eprintln!("error: {message}");
            ExitCode::from(2)
        }
    }
}

/// A loaded file: its text, or the diagnostic explaining why it has none.
struct Loaded {
    path: String,
    text: String,
    /// Set when the file is not UTF-8: the only diagnostic for it.
    encoding_error: Option<Diagnostic>,
}

fn load(path: &Path) -> Result<Loaded, Fatal> {
    let bytes = std::fs::read(path).map_err(|e| {
        Fatal(format!(
            "cannot read `{}`: {}",
            path.display(),
            io_reason(&e)
        ))
    })?;
    // `nilc check .` walks `./a.nil`: shown as `a.nil`, the path from the
    // folder nilc runs in, which is what CI annotations resolve.
    let display = path.strip_prefix(".").unwrap_or(path).display().to_string();
    match String::from_utf8(bytes) {
        Ok(text) => Ok(Loaded {
            path: display,
            text,
            encoding_error: None,
        }),
        Err(e) => {
            let valid = e.utf8_error().valid_up_to();
            let text = String::from_utf8_lossy(e.as_bytes()).into_owned();
            // The lossy text has the same valid prefix, so the offset holds.
            let at = valid as u32;
            Ok(Loaded {
                path: display,
                text,
                encoding_error: Some(
                    Diagnostic::error("E0005", Span::new(at, at + 1), "file is not valid UTF-8")
                        .with_label(format!("invalid byte at offset {valid}"))
                        .with_help("save the file as UTF-8"),
                ),
            })
        }
    }
}

/// The `.nil` files of `paths` (the current folder when none), each read.
fn load_all(paths: Vec<PathBuf>) -> Result<Vec<(PathBuf, Loaded)>, Fatal> {
    let paths = if paths.is_empty() {
        vec![PathBuf::from(".")]
    } else {
        paths
    };
    collect(&paths)?
        .into_iter()
        .map(|p| load(&p).map(|l| (p, l)))
        .collect()
}

fn io_reason(e: &std::io::Error) -> String {
    match e.kind() {
        std::io::ErrorKind::NotFound => "no such file or directory".to_string(),
        std::io::ErrorKind::PermissionDenied => "permission denied".to_string(),
        _ => e.to_string(),
    }
}

/// Expands directories into their `.nil` files (sorted, hidden folders and
/// `target` skipped, symbolic links to folders not followed).
fn collect(paths: &[PathBuf]) -> Result<Vec<PathBuf>, Fatal> {
    let mut out = Vec::new();
    for path in paths {
        let meta = std::fs::metadata(path).map_err(|e| {
            Fatal(format!(
                "cannot read `{}`: {}",
                path.display(),
                io_reason(&e)
            ))
        })?;
        if meta.is_dir() {
            let before = out.len();
            walk(path, &mut out, 0)?;
            if out.len() == before {
                return Err(Fatal(format!(
                    "no `.nil` files found under `{}`",
                    path.display()
                )));
            }
        } else {
            out.push(path.clone());
        }
    }
    out.sort();
    out.dedup();
    Ok(out)
}

fn walk(dir: &Path, out: &mut Vec<PathBuf>, depth: usize) -> Result<(), Fatal> {
    if depth > 64 {
        return Ok(());
    }
    let entries = std::fs::read_dir(dir).map_err(|e| {
        Fatal(format!(
            "cannot read `{}`: {}",
            dir.display(),
            io_reason(&e)
        ))
    })?;
    let mut entries: Vec<_> = entries.filter_map(Result::ok).collect();
    entries.sort_by_key(|e| e.file_name());
    for entry in entries {
        let path = entry.path();
        let name = entry.file_name();
        let name = name.to_string_lossy();
        let Ok(kind) = entry.file_type() else {
            continue;
        };
        if kind.is_dir() {
            if !files::skipped_folder(&name) {
                walk(&path, out, depth + 1)?;
            }
        } else if files::is_nil_file(&path) {
            out.push(path);
        }
    }
    Ok(())
}

fn color_enabled(color: Color) -> bool {
    match color {
        Color::Always => true,
        Color::Never => false,
        Color::Auto => std::io::stdout().is_terminal() && std::env::var_os("NO_COLOR").is_none(),
    }
}

/// Loads files into a fresh database as one project.
fn build_project(db: &mut RootDatabase, loaded: &[Loaded]) -> (Project, Vec<SourceFile>) {
    let files: Vec<SourceFile> = loaded
        .iter()
        .map(|l| {
            let text = if l.encoding_error.is_some() {
                String::new()
            } else {
                l.text.clone()
            };
            SourceFile::new(db, l.path.clone(), text)
        })
        .collect();
    let first = loaded.first().map(|l| Path::new(&l.path));
    let project = nilang_compiler::project::load(db, files.clone(), first);
    (project, files)
}

fn check(
    paths: Vec<PathBuf>,
    format: Format,
    deny_warnings: bool,
    color: Color,
) -> Result<ExitCode, Fatal> {
    let loaded: Vec<Loaded> = load_all(paths)?.into_iter().map(|(_, l)| l).collect();
    let mut database = RootDatabase::default();
    let (project, sources) = build_project(&mut database, &loaded);

    let mut errors = 0usize;
    let mut warnings = 0usize;
    let mut human = String::new();
    let mut json = Vec::new();
    let mut checked: Vec<Vec<Diagnostic>> = Vec::new();
    let color = color_enabled(color);
    // The dependencies without a `links` key, read once, when a module is
    // unknown (E0111): their modules exist, but are not passed on.
    let mut unexported: Option<Vec<String>> = None;
    for (l, &file) in loaded.iter().zip(&sources) {
        let mut diagnostics: Vec<Diagnostic> = match &l.encoding_error {
            Some(d) => vec![d.clone()],
            None => db::file_diagnostics(&database, project, file).to_vec(),
        };
        if diagnostics.iter().any(|d| d.code == "E0111") {
            let unexported = unexported.get_or_insert_with(|| {
                nilang_compiler::project::unexported_near(Path::new(&loaded[0].path))
            });
            nilang_build::explain_unexported(&l.text, &mut diagnostics, unexported);
        }
        for d in &diagnostics {
            match d.severity {
                Severity::Error => errors += 1,
                Severity::Warning => warnings += 1,
            }
        }
        match format {
            Format::Human => {
                human.push_str(&render::render_human(&l.path, &l.text, &diagnostics, color))
            }
            Format::Short => {
                for d in &diagnostics {
                    let (line, col) = render::line_col(&l.text, d.primary.span.start);
                    human.push_str(&format!(
                        "{}:{line}:{col}: {}[{}]: {}\n",
                        l.path,
                        d.severity.as_str(),
                        d.code,
                        d.message
                    ));
                }
            }
            Format::Json => json.extend(
                diagnostics
                    .iter()
                    .map(|d| render::to_json(&l.path, &l.text, d)),
            ),
            Format::Github => {
                for d in &diagnostics {
                    human.push_str(&render::to_github(&l.path, &l.text, d));
                    human.push('\n');
                }
            }
            Format::Sarif => {}
        }
        checked.push(diagnostics);
    }
    let summary = format!(
        "checked {} file{}: {} error{}, {} warning{}",
        loaded.len(),
        plural(loaded.len()),
        errors,
        plural(errors),
        warnings,
        plural(warnings)
    );
    let mut stdout = std::io::stdout().lock();
    let written = match format {
        Format::Json | Format::Sarif => {
            let value = if format == Format::Json {
                serde_json::to_value(&json)
            } else {
                let files: Vec<sarif::Checked<'_>> = loaded
                    .iter()
                    .zip(&checked)
                    .map(|(l, diagnostics)| sarif::Checked {
                        path: &l.path,
                        text: &l.text,
                        diagnostics,
                    })
                    .collect();
                Ok(sarif::log(&files))
            };
            let text = value
                .and_then(|v| serde_json::to_string_pretty(&v))
                .map_err(|e| Fatal(e.to_string()))?;
            writeln!(stdout, "{text}")
        }
        Format::Human => write!(stdout, "{human}").and_then(|_| writeln!(stdout, "{summary}")),
        // Machine formats keep standard output for the machine.
        Format::Short | Format::Github => write!(stdout, "{human}"),
    };
    if format != Format::Human {
        eprintln!("{summary}");
    }
    if let Err(e) = written
        && e.kind() != std::io::ErrorKind::BrokenPipe
    {
        return Err(Fatal(format!("cannot write output: {e}")));
    }
    let failed = errors > 0 || (deny_warnings && warnings > 0);
    Ok(if failed {
        ExitCode::from(1)
    } else {
        ExitCode::SUCCESS
    })
}

fn plural(n: usize) -> &'static str {
    if n == 1 { "" } else { "s" }
}

/// The `.nil` files beside `path` (same folder, not recursive), `path` excluded.
fn siblings(path: &Path) -> Vec<PathBuf> {
    let dir = match path.parent() {
        Some(d) if !d.as_os_str().is_empty() => d.to_path_buf(),
        _ => PathBuf::from("."),
    };
    let Ok(entries) = std::fs::read_dir(&dir) else {
        return Vec::new();
    };
    let canonical = std::fs::canonicalize(path).ok();
    let mut out: Vec<PathBuf> = entries
        .filter_map(Result::ok)
        .map(|e| e.path())
        .filter(|p| p.extension().is_some_and(|e| e == "nil") && p.is_file())
        .filter(|p| std::fs::canonicalize(p).ok() != canonical)
        .collect();
    out.sort();
    out
}

/// Loads `path` and its sibling `.nil` files into one project.
fn load_with_siblings(path: &Path) -> Result<(RootDatabase, Project, SourceFile, Loaded), Fatal> {
    let mut all = vec![load(path)?];
    // Unreadable or non-UTF-8 neighbours are skipped: they are not the target.
    all.extend(
        siblings(path)
            .iter()
            .filter_map(|p| load(p).ok())
            .filter(|l| l.encoding_error.is_none()),
    );
    let mut database = RootDatabase::default();
    let (project, sources) = build_project(&mut database, &all);
    let file = sources[0];
    let loaded = all.swap_remove(0);
    Ok((database, project, file, loaded))
}

/// `nilc fmt`: every file is formatted (or checked) on its own; files with
/// syntax errors are reported and left alone. Status 1 when `--check`
/// finds files to format or any file has syntax errors.
fn fmt(paths: Vec<PathBuf>, check: bool, indent: format::Indent) -> Result<ExitCode, Fatal> {
    // Everything is read first: an unreadable file stops the command
    // before any file is written.
    let loaded = load_all(paths)?;
    let (mut unformatted, mut broken, mut changed) = (0usize, 0usize, 0usize);
    for (path, l) in &loaded {
        if l.encoding_error.is_some() {
            eprintln!("{}: not formatted: the file is not valid UTF-8", l.path);
            broken += 1;
            continue;
        }
        let formatted = match format::format(&l.text, indent) {
            Ok(f) => f,
            Err(format::Refusal::SyntaxErrors) => {
                eprintln!(
                    "{}: not formatted: the file has syntax errors (`nilc check` shows them)",
                    l.path
                );
                broken += 1;
                continue;
            }
        };
        if formatted == l.text {
            continue;
        }
        if check {
            println!("{}", l.path);
            unformatted += 1;
        } else {
            write_atomically(path, &formatted)?;
            changed += 1;
        }
    }
    if check {
        eprintln!(
            "checked {} file{}: {} to format{}",
            loaded.len(),
            plural(loaded.len()),
            unformatted,
            if broken > 0 {
                format!(", {broken} with errors")
            } else {
                String::new()
            }
        );
    } else {
        eprintln!(
            "formatted {} of {} file{}{}",
            changed,
            loaded.len(),
            plural(loaded.len()),
            if broken > 0 {
                format!(", {broken} left with errors")
            } else {
                String::new()
            }
        );
    }
    Ok(if unformatted > 0 || broken > 0 {
        ExitCode::from(1)
    } else {
        ExitCode::SUCCESS
    })
}

/// Writes through a temporary file beside `path` and a rename, so that an
/// interrupted `nilc fmt` never leaves half a file.
fn write_atomically(path: &Path, text: &str) -> Result<(), Fatal> {
    let mut tmp = path.as_os_str().to_owned();
    tmp.push(".nilc-fmt.tmp");
    let tmp = PathBuf::from(tmp);
    std::fs::write(&tmp, text)
        .and_then(|_| std::fs::rename(&tmp, path))
        .map_err(|e| {
            let _ = std::fs::remove_file(&tmp);
            Fatal(format!(
                "cannot write `{}`: {}",
                path.display(),
                io_reason(&e)
            ))
        })
}

fn emit(path: &Path, options: nilang_compiler::codegen::Options) -> Result<ExitCode, Fatal> {
    let atol = options.atol;
    if !(atol.is_finite() && atol >= 0.0) {
        return Err(Fatal(format!(
            "--atol must be a finite non-negative number, not {atol}"
        )));
    }
    let (database, project, file, loaded) = load_with_siblings(path)?;
    if let Some(d) = &loaded.encoding_error {
        eprint!(
            "{}",
            render::render_human(&loaded.path, &loaded.text, std::slice::from_ref(d), false)
        );
        return Ok(ExitCode::from(1));
    }
    for v in &options.variants {
        if db::lookup_function(&database, project, &v.function)
            .is_none_or(|f| f.file(&database) != file)
        {
            return Err(Fatal(format!(
                "--variant {}:{}: `{}` defines no function `{}`",
                v.function,
                v.constants.join(","),
                loaded.path,
                v.function
            )));
        }
    }
    match db::rust_module_text(&database, project, file, &options) {
        Err(errors) => {
            eprint!(
                "{}",
                render::render_human(
                    &loaded.path,
                    &loaded.text,
                    &errors,
                    std::io::stderr().is_terminal()
                )
            );
            eprintln!("error: no Rust generated for `{}`", loaded.path);
            Ok(ExitCode::from(1))
        }
        Ok(code) => {
            let code = rustfmt(&code).unwrap_or(code);
            let mut stdout = std::io::stdout().lock();
            if let Err(e) = stdout.write_all(code.as_bytes())
                && e.kind() != std::io::ErrorKind::BrokenPipe
            {
                return Err(Fatal(format!("cannot write output: {e}")));
            }
            Ok(ExitCode::SUCCESS)
        }
    }
}

/// Formats Rust source with `rustfmt`, if it is installed and succeeds.
fn rustfmt(code: &str) -> Option<String> {
    use std::process::{Command, Stdio};
    let mut child = Command::new("rustfmt")
        .args(["--edition", "2024", "--emit", "stdout"])
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::null())
        .spawn()
        .ok()?;
    let mut stdin = child.stdin.take()?;
    let input = code.to_string();
    let writer = std::thread::spawn(move || stdin.write_all(input.as_bytes()));
    let output = child.wait_with_output().ok()?;
    writer.join().ok()?.ok()?;
    output
        .status
        .success()
        .then(|| String::from_utf8(output.stdout).ok())
        .flatten()
}

/// `nilc run`: the file must check clean; the arguments are parsed and
/// given the parameters' types before anything runs, so a bad argument
/// prints nothing but its error (status 2). A run that stops at a check
/// prints the error with its `.nil` place (status 1).
#[allow(clippy::too_many_arguments)]
fn run(
    path: &Path,
    function: &str,
    args: &[String],
    way: Way,
    seeds: &[String],
    check_grad: bool,
    atol: f64,
    launch: Option<usize>,
) -> Result<ExitCode, Fatal> {
    use nilang_interp::{Direction, Interpreter, Value, literal};
    // A function is called; a kernel launched over its invocations.
    let exec =
        |interpreter: &mut Interpreter, values: Vec<Value>, direction: Direction| match launch {
            Some(n) => interpreter.launch(function, n, values, direction),
            None => interpreter.call(function, values, direction),
        };
    let (database, project, file, loaded) = load_with_siblings(path)?;
    if let Some(code) = report_errors(&database, project, file, &loaded, "running it")? {
        return Ok(code);
    }
    let mut interpreter = Interpreter::new(&database, project);
    interpreter.atol = atol;
    let f = interpreter.function(function).ok_or_else(|| {
        let mut names: Vec<&str> = db::file_functions(&database, project, file)
            .iter()
            .map(|f| f.name(&database).as_str())
            .collect();
        names.sort_unstable();
        Fatal(format!(
            "no function `{function}` in `{}`; it defines: {}",
            loaded.path,
            if names.is_empty() {
                "nothing".to_string()
            } else {
                names.join(", ")
            }
        ))
    })?;
    let params = interpreter.params(f);
    let mut values = Vec::with_capacity(args.len());
    for (k, a) in args.iter().enumerate() {
        let v = literal::parse(a).map_err(|e| Fatal(format!("argument {}: {e}", k + 1)))?;
        values.push(v);
    }
    let inputs: Vec<Value> = match params.len() == values.len() {
        true => params
            .iter()
            .zip(values.clone())
            .map(|((n, t), v)| {
                nilang_interp::coerce(v, t)
                    .map_err(|e| Fatal(format!("argument `{n}` of `{function}`: {e}")))
            })
            .collect::<Result<_, _>>()?,
        false => values.clone(),
    };
    let seeds: Vec<(String, Value)> = seeds
        .iter()
        .map(|s| match s.split_once('=') {
            Some((name, v)) => literal::parse(v)
                .map(|v| (name.trim().to_string(), v))
                .map_err(|e| Fatal(format!("the seed of `{}`: {e}", name.trim()))),
            None => Ok((s.trim().to_string(), Value::F64(1.0))),
        })
        .collect::<Result<_, _>>()?;
    let direction = match way {
        Way::Uncall => Direction::Backward,
        _ => Direction::Forward,
    };
    let out = match exec(&mut interpreter, values, direction) {
        Ok(out) => out,
        Err(nilang_interp::Error::Usage(m)) => return Err(Fatal(m)),
        Err(nilang_interp::Error::Run(e)) => {
            return Ok(stopped(&interpreter.output, "", e));
        }
    };
    let back = match way {
        Way::CheckInv => match exec(&mut interpreter, out.clone(), Direction::Backward) {
            Ok(back) => Some(back),
            Err(nilang_interp::Error::Usage(m)) => return Err(Fatal(m)),
            Err(nilang_interp::Error::Run(e)) => {
                return Ok(stopped(&interpreter.output, "the inverse stopped: ", e));
            }
        },
        _ => None,
    };
    let gradient = if seeds.is_empty() {
        None
    } else {
        let mut again = Interpreter::new(&database, project);
        again.atol = atol;
        let ran = match launch {
            Some(n) => again.launch_gradient(function, n, inputs.clone(), &seeds),
            None => again.gradient(function, inputs.clone(), &seeds),
        };
        match ran {
            Ok((_, grads)) => Some(grads),
            Err(nilang_interp::Error::Usage(m)) => return Err(Fatal(m)),
            Err(nilang_interp::Error::Run(e)) => {
                return Ok(stopped(&interpreter.output, "the gradient stopped: ", e));
            }
        }
    };
    print!("{}", interpreter.output);
    for ((name, _), v) in params.iter().zip(&out) {
        println!("{name} = {v}");
    }
    if let Some(grads) = &gradient {
        let shown: Vec<String> = seeds.iter().map(|(n, v)| format!("{n} = {v}")).collect();
        println!("gradient (seeds: {}):", shown.join(", "));
        // Integers and booleans have no adjoint to show.
        for ((name, _), g) in params.iter().zip(grads) {
            if g.has_adjoint() {
                println!("{} = {g}", nilang_compiler::names::bar_name(name));
            }
        }
        if check_grad {
            let mut probe = Interpreter::new(&database, project);
            probe.atol = atol;
            let differs = probe
                .check_grad(function, &inputs, &seeds, grads)
                .map_err(|e| Fatal(format!("check_grad: {e}")))?;
            if differs.is_empty() {
                println!("check_grad: every adjoint agrees with central differences");
            } else {
                for d in &differs {
                    eprintln!("error: check_grad: {d}");
                }
                return Ok(ExitCode::from(1));
            }
        }
    }
    if let Some(back) = back {
        let differs: Vec<String> = params
            .iter()
            .zip(inputs.iter().zip(&back))
            .filter(|(_, (a, b))| !nilang_interp::same(a, b, atol))
            .map(|((n, _), (a, b))| format!("`{n}`: given {a}, came back {b}"))
            .collect();
        if differs.is_empty() {
            println!(
                "check_inv: every argument came back (atol {})",
                nilang_interp::value::float_text(atol)
            );
        } else {
            for d in &differs {
                eprintln!("error: check_inv: {d}");
            }
            return Ok(ExitCode::from(1));
        }
    }
    Ok(ExitCode::SUCCESS)
}

/// A run that stopped at a check: what it printed before, then the error
/// (status 1).
fn stopped(output: &str, what: &str, e: nilang_interp::RunError) -> ExitCode {
    print!("{output}");
    eprintln!("error: {what}{e}");
    ExitCode::from(1)
}

/// Renders the errors of `file` and returns status 1 if it has any.
fn report_errors(
    database: &RootDatabase,
    project: Project,
    file: SourceFile,
    loaded: &Loaded,
    doing: &str,
) -> Result<Option<ExitCode>, Fatal> {
    let diagnostics: Vec<Diagnostic> = match &loaded.encoding_error {
        Some(d) => vec![d.clone()],
        None => db::file_diagnostics(database, project, file)
            .iter()
            .filter(|d| d.severity == Severity::Error)
            .cloned()
            .collect(),
    };
    if diagnostics.is_empty() {
        return Ok(None);
    }
    eprint!(
        "{}",
        render::render_human(
            &loaded.path,
            &loaded.text,
            &diagnostics,
            std::io::stderr().is_terminal()
        )
    );
    eprintln!(
        "error: `{}` has errors; fix them before {doing}",
        loaded.path
    );
    Ok(Some(ExitCode::from(1)))
}

fn inverse(path: &Path, function: Option<&str>) -> Result<ExitCode, Fatal> {
    let (database, project, file, loaded) = load_with_siblings(path)?;
    let diagnostics: Vec<Diagnostic> = match &loaded.encoding_error {
        Some(d) => vec![d.clone()],
        None => db::file_diagnostics(&database, project, file)
            .iter()
            .filter(|d| d.severity == Severity::Error)
            .cloned()
            .collect(),
    };
    if !diagnostics.is_empty() {
        eprint!(
            "{}",
            render::render_human(
                &loaded.path,
                &loaded.text,
                &diagnostics,
                std::io::stderr().is_terminal()
            )
        );
        eprintln!(
            "error: `{}` has errors; fix them before inverting it",
            loaded.path
        );
        return Ok(ExitCode::from(1));
    }
    let functions = db::file_functions(&database, project, file);
    let selected: Vec<_> = match function {
        Some(name) => {
            let found: Vec<_> = functions
                .iter()
                .copied()
                .filter(|f| f.name(&database) == name)
                .collect();
            if found.is_empty() {
                let mut names: Vec<&str> = functions
                    .iter()
                    .map(|f| f.name(&database).as_str())
                    .collect();
                names.sort_unstable();
                return Err(Fatal(format!(
                    "no function `{name}` in `{}`; it defines: {}",
                    loaded.path,
                    if names.is_empty() {
                        "nothing".to_string()
                    } else {
                        names.join(", ")
                    }
                )));
            }
            found
        }
        None => functions.to_vec(),
    };
    // The imports, and the structs (their own inverse) for the whole file:
    // the inverse module checks on its own.
    let mut out = db::inverse_header(&database, file, function.is_none());
    for (i, f) in selected.iter().enumerate() {
        if i > 0 {
            out.push('\n');
        }
        out.push_str(db::inverse_source(&database, *f));
    }
    let mut stdout = std::io::stdout().lock();
    if let Err(e) = stdout.write_all(out.as_bytes())
        && e.kind() != std::io::ErrorKind::BrokenPipe
    {
        return Err(Fatal(format!("cannot write output: {e}")));
    }
    Ok(ExitCode::SUCCESS)
}

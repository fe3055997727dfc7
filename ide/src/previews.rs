//! Previews of what the compiler makes of the code: the inverse of one
//! statement, the inverse of a function or of a whole file (`~f` as `.nil`
//! source), and the Rust module the build plugin would generate, each with
//! the reason when there is none to show.

use nilang_analysis::ast::{Span, StmtKind};
use nilang_analysis::db::{self, Db, FnId, Project, SourceFile};
use nilang_analysis::diagnostics::{Diagnostic, Severity};
use nilang_analysis::invert::{invert_stmt, routine_pairs, unroutine_expansion};
use nilang_analysis::printer;
use nilang_codegen::queries;

use crate::navigation::{function_at, statement_at};

/// The inverse of the statement under `offset`, as `.nil` source, with the
/// absolute span of that statement. For `~@routine` it is what that line runs
/// (the inverse of its `@routine`).
pub fn statement_inverse(
    db: &dyn Db,
    project: Project,
    file: SourceFile,
    offset: u32,
) -> Option<(String, Span)> {
    let f = function_at(db, project, file, offset)?;
    let start = db::function_offset(db, f);
    let ast = db::function_ast(db, f)?;
    let (stmts, i) = statement_at(&ast, offset.checked_sub(start)?)?;
    let stmt = &stmts[i];
    let inverse = match stmt.kind {
        StmtKind::Unroutine => unroutine_expansion(stmts, &routine_pairs(stmts), i)?,
        _ => invert_stmt(stmt),
    };
    Some((printer::print_stmt(&inverse), stmt.span.shift(start)))
}

/// Whether a function's own checks report an error (its inverse may then
/// not be valid).
pub fn function_has_errors(db: &dyn Db, f: FnId<'_>) -> bool {
    db::check_function(db, f)
        .iter()
        .any(|d| d.severity == Severity::Error)
}

/// Which inverse to preview.
#[derive(Clone, Copy, PartialEq, Eq, Debug)]
pub enum InverseTarget<'a> {
    /// Every function of the file, in order.
    File,
    /// The function of the file with this name.
    Function(&'a str),
    /// The function containing this byte offset.
    At(u32),
}

/// An inverse to show.
#[derive(Clone, PartialEq, Eq, Debug)]
pub struct InversePreview {
    /// The function inverted; `None` for the whole file.
    pub function: Option<String>,
    /// `.nil` source of `~f` (for the whole file, every function's inverse,
    /// one after the other).
    pub source: String,
}

/// Why there is no inverse to show.
#[derive(Clone, PartialEq, Eq, Debug)]
pub enum InverseRefusal {
    /// [`InverseTarget::Function`] names no function of the file.
    NoSuchFunction(String),
    /// [`InverseTarget::At`] is outside every function.
    NoFunctionAt,
    /// The file does not parse.
    SyntaxErrors,
    /// This function has errors (its inverse would not be valid).
    FunctionHasErrors(String),
}

impl InverseRefusal {
    pub fn message(&self) -> String {
        match self {
            InverseRefusal::NoSuchFunction(name) => format!("no function `{name}` in this file"),
            InverseRefusal::NoFunctionAt => "no function at this position".to_string(),
            InverseRefusal::SyntaxErrors => {
                "the file has syntax errors; fix them to see the inverse".to_string()
            }
            InverseRefusal::FunctionHasErrors(name) => {
                format!("`{name}` has errors; fix them to see its inverse")
            }
        }
    }
}

/// The inverse of one function of `file`, or of all of them. Refused for a
/// file with syntax errors or a function with errors.
pub fn inverse_preview(
    db: &dyn Db,
    project: Project,
    file: SourceFile,
    target: InverseTarget<'_>,
) -> Result<InversePreview, InverseRefusal> {
    let functions = db::file_functions(db, project, file);
    let chosen: Vec<FnId<'_>> = match target {
        InverseTarget::Function(name) => {
            let f = functions
                .iter()
                .copied()
                .find(|f| f.name(db) == name)
                .ok_or_else(|| InverseRefusal::NoSuchFunction(name.to_string()))?;
            vec![f]
        }
        InverseTarget::At(offset) => {
            vec![function_at(db, project, file, offset).ok_or(InverseRefusal::NoFunctionAt)?]
        }
        InverseTarget::File => functions.clone(),
    };
    let syntax_errors = db::parse_file(db, file)
        .diagnostics
        .iter()
        .any(|d| d.severity == Severity::Error);
    if syntax_errors {
        return Err(InverseRefusal::SyntaxErrors);
    }
    let mut sources = Vec::new();
    for &f in &chosen {
        if function_has_errors(db, f) {
            return Err(InverseRefusal::FunctionHasErrors(f.name(db).clone()));
        }
        sources.push(db::inverse_source(db, f).clone());
    }
    let one = chosen.len() == 1 && target != InverseTarget::File;
    Ok(InversePreview {
        function: one.then(|| chosen[0].name(db).clone()),
        // The same text as `nilc inverse`: the file's imports (and for the
        // whole file its structs) above the inverses.
        source: db::inverse_header(db, file, !one) + &sources.join("\n"),
    })
}

/// Why there is no generated Rust to show.
#[derive(Clone, PartialEq, Eq, Debug)]
pub enum RustRefusal {
    /// The file has errors (absolute spans), which stop the build too.
    FileHasErrors(Vec<Diagnostic>),
}

impl RustRefusal {
    /// How many errors are listed in [`RustRefusal::message`].
    pub const LISTED: usize = 5;

    /// The refusal with the first errors listed as `line:column: error[code]:
    /// message`. `position` turns a byte offset of the file into a 0-based
    /// line and column in the editor's units.
    pub fn message(&self, position: impl Fn(u32) -> (u32, u32)) -> String {
        match self {
            RustRefusal::FileHasErrors(errors) => {
                let list: Vec<String> = errors
                    .iter()
                    .take(Self::LISTED)
                    .map(|d| {
                        let (line, column) = position(d.primary.span.start);
                        format!(
                            "{}:{}: {}[{}]: {}",
                            line + 1,
                            column + 1,
                            d.severity.as_str(),
                            d.code,
                            d.message
                        )
                    })
                    .collect();
                format!(
                    "no Rust is generated for a file with errors ({} in all):\n{}",
                    errors.len(),
                    list.join("\n")
                )
            }
        }
    }
}

/// The Rust module the build plugin would write for `file`, with the
/// default options.
pub fn generated_rust(
    db: &dyn Db,
    project: Project,
    file: SourceFile,
) -> Result<String, RustRefusal> {
    let options = nilang_codegen::Options::default();
    queries::rust_module_text(db, project, file, &options).map_err(RustRefusal::FileHasErrors)
}

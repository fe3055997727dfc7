//! Code lenses: a "Show inverse" above every function of a file.

use nilang_analysis::ast::Span;
use nilang_analysis::db::{self, Db, Project, SourceFile};

/// One lens: a title over a function's name, to show that function's
/// inverse when chosen.
#[derive(Clone, PartialEq, Eq, Debug)]
pub struct CodeLens {
    /// The function's name (absolute span).
    pub range: Span,
    pub title: String,
    /// The function the lens is about.
    pub function: String,
}

/// A "Show inverse" lens for each function of `file`, in order.
pub fn code_lenses(db: &dyn Db, project: Project, file: SourceFile) -> Vec<CodeLens> {
    db::file_functions(db, project, file)
        .iter()
        .filter_map(|&f| {
            let ast = db::function_ast(db, f)?;
            Some(CodeLens {
                range: ast.name.span.shift(db::function_offset(db, f)),
                title: "Show inverse".to_string(),
                function: ast.name.name.clone(),
            })
        })
        .collect()
}

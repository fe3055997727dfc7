//! Code lenses: a "Show inverse" above every function of a file, and on
//! each example of a docstring (a `julia>` line, Julia's doctest form) what
//! the reference interpreter gives for it.

use nilang_analysis::ast::Span;
use nilang_analysis::db::{self, Db, Project, SourceFile};
use nilang_interp::doctest::{self, Outcome};

/// What choosing a lens does.
#[derive(Clone, PartialEq, Eq, Debug)]
pub enum LensAction {
    /// Show the inverse of the function named.
    ShowInverse(String),
    /// Nothing: the lens shows a result.
    Show,
}

/// One lens: a title over a range of the file.
#[derive(Clone, PartialEq, Eq, Debug)]
pub struct CodeLens {
    /// What it sits on (absolute span): a function's name, or an example's
    /// call.
    pub range: Span,
    pub title: String,
    pub action: LensAction,
}

/// How many statements an example may run before its lens gives up (an
/// example that loops forever must not stop the editor).
const EXAMPLE_STEPS: u64 = 1_000_000;

/// The lenses of `file`, in order: for each function a "Show inverse", and
/// for each example of its docstring, whether the interpreter agrees.
pub fn code_lenses(db: &dyn Db, project: Project, file: SourceFile) -> Vec<CodeLens> {
    let text = file.text(db);
    let clean = !db::file_diagnostics(db, project, file)
        .iter()
        .any(|d| d.severity == nilang_analysis::Severity::Error);
    let mut out = Vec::new();
    for &f in db::file_functions(db, project, file) {
        let Some(ast) = db::function_ast(db, f) else {
            continue;
        };
        let offset = db::function_offset(db, f);
        out.push(CodeLens {
            range: ast.name.span.shift(offset),
            title: "Show inverse".to_string(),
            action: LensAction::ShowInverse(ast.name.name.clone()),
        });
        let Some(doc) = &ast.doc else { continue };
        for example in doctest::examples(doc) {
            let Some(start) = doctest::locate(text, offset as usize, &example) else {
                continue;
            };
            let start = start as u32;
            let title = if clean {
                let mut interpreter = nilang_interp::Interpreter::new(db, project);
                interpreter.fuel = Some(EXAMPLE_STEPS);
                match doctest::run(&mut interpreter, &example) {
                    Outcome::Passed(got) => format!("✓ {got}"),
                    Outcome::Failed { got } => format!("✗ gives {got}"),
                    Outcome::Error(e) => format!("✗ {e}"),
                }
            } else {
                "not run: the file has errors".to_string()
            };
            out.push(CodeLens {
                range: Span::new(start, start + example.call.len() as u32),
                title,
                action: LensAction::Show,
            });
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;
    use nilang_analysis::db::RootDatabase;

    #[test]
    fn examples_get_the_interpreters_answer() {
        let text = "\"\"\"\nAdds `x` to `y`.\n\n```jldoctest\njulia> add(1.0, 2.0)\n(3.0, 2.0)\n\njulia> add(1.0, 2.0)\n(4.0, 2.0)\n\njulia> spin(0)\n0\n```\n\"\"\"\nfunction add(y::f64, x::f64)\n    y += x\nend\n\nfunction spin(k::i64)\n    while (true, k != 0)\n        k += 1\n    end\nend\n";
        let db = RootDatabase::default();
        let file = SourceFile::new(&db, "a.nil".into(), text.into());
        let project = db::project_with_std(&db, vec![file], Vec::new());
        let lenses = code_lenses(&db, project, file);
        let shown: Vec<String> = lenses
            .iter()
            .map(|l| {
                format!(
                    "{} {:?}",
                    &text[l.range.start as usize..l.range.end as usize],
                    l.title
                )
            })
            .collect();
        expect_test::expect![[r#"
            [
                "add \"Show inverse\"",
                "add(1.0, 2.0) \"✓ (3.0, 2.0)\"",
                "add(1.0, 2.0) \"✗ gives (3.0, 2.0)\"",
                "spin(0) \"✗ a.nil:21:9: too many steps: the run was stopped at its limit of statements (expected a run that ends sooner, found more statements)\"",
                "spin \"Show inverse\"",
            ]
        "#]]
        .assert_debug_eq(&shown);
    }
}

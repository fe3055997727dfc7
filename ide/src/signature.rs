//! Signature help: inside the argument list of a call, the callee's
//! signature and which parameter the cursor is at.
//!
//! The call is found in the text (the unmatched `(` before the cursor and
//! the name before it), not in the tree: while an argument list is being
//! typed the file rarely parses.

use nilang_analysis::builtins;
use nilang_analysis::db::{self, Db, Project, SourceFile};
use nilang_analysis::derivatives::{self, Derivative};
use nilang_analysis::printer;

use crate::completion::name_start;
use crate::hover::{instruction_signature, instruction_summary};

/// The signature of the call around the cursor.
#[derive(Clone, PartialEq, Eq, Debug)]
pub struct SignatureHelp {
    /// The signature as one line (`function f(y::f64, x::f64)`).
    pub label: String,
    /// Each parameter's byte range in `label`.
    pub parameters: Vec<(u32, u32)>,
    /// The parameter the cursor is at (counting from 0).
    pub active: usize,
    /// The callee's docstring, or what an instruction does.
    pub documentation: Option<String>,
}

/// The signature help at the byte `offset` of `file`, when it is inside the
/// argument list of a call of a project function or an instruction.
pub fn signature_help(
    db: &dyn Db,
    project: Project,
    file: SourceFile,
    offset: u32,
) -> Option<SignatureHelp> {
    let text = file.text(db);
    let offset = (offset as usize).min(text.len());
    // The search stays inside the function around the cursor, or (when
    // the text being typed does not parse as one) the last 4 KiB.
    let from = match crate::navigation::function_at(db, project, file, offset as u32) {
        Some(f) => (db::function_offset(db, f) as usize).min(offset),
        None => (offset.saturating_sub(4096)..=offset)
            .find(|&i| text.is_char_boundary(i))
            .unwrap_or(offset),
    };
    let before = text.get(from..offset)?;
    let (open, active) = open_paren(before)?;
    // `(∇f)(` / `(∂f)(`: the derived function's parameters, companions
    // included.
    if let Some(callee) = before[..open].strip_suffix(')') {
        let start = name_start(callee)?;
        let (before, name) = callee.split_at(start);
        let derivative = Derivative::written_before(before)?;
        let ast = db::function_ast(db, db::lookup_function(db, project, name)?)?;
        let label = printer::print_signature(&derivatives::derived_function(derivative, &ast)?);
        return Some(SignatureHelp {
            parameters: parameter_ranges(&label)?,
            label,
            active,
            documentation: ast.doc.clone(),
        });
    }
    let name = &before[name_start(&before[..open])?..open];
    let (label, documentation) = match db::lookup_function(db, project, name) {
        Some(f) => {
            let ast = db::function_ast(db, f)?;
            (printer::print_signature(&ast), ast.doc.clone())
        }
        None => {
            let instruction = builtins::instruction(name)?;
            (
                instruction_signature(instruction),
                Some(instruction_summary(instruction)),
            )
        }
    };
    let parameters = parameter_ranges(&label)?;
    Some(SignatureHelp {
        label,
        parameters,
        active,
        documentation,
    })
}

/// The byte range of each parameter in a signature's parentheses
/// (separated by `,`, or `;` before the keyword parameters).
fn parameter_ranges(label: &str) -> Option<Vec<(u32, u32)>> {
    let open = label.find('(')? + 1;
    let inside = &label[open..label.rfind(')')?];
    let mut parameters = Vec::new();
    let mut at = open;
    for part in inside.split([',', ';']) {
        let start = at + (part.len() - part.trim_start().len());
        let end = at + part.trim_end().len();
        if end > start {
            parameters.push((start as u32, end as u32));
        }
        at += part.len() + 1;
    }
    Some(parameters)
}

/// The byte offset of the `(` whose argument list `before` ends in, and
/// how many top-level commas follow it: `None` outside any.
fn open_paren(before: &str) -> Option<(usize, usize)> {
    let mut depth = 0usize;
    let mut commas = 0;
    for (i, c) in before.char_indices().rev() {
        match c {
            ')' | ']' | '}' => depth += 1,
            '(' | '[' | '{' if depth > 0 => depth -= 1,
            '(' => return Some((i, commas)),
            '[' | '{' => return None,
            ',' if depth == 0 => commas += 1,
            _ => {}
        }
    }
    None
}

#[cfg(test)]
mod tests {
    use super::open_paren;

    #[test]
    fn the_open_parenthesis_and_the_commas_before_the_cursor() {
        assert_eq!(open_paren("    f(a, g(b, c), "), Some((5, 2)));
        assert_eq!(open_paren("    f("), Some((5, 0)));
        assert_eq!(open_paren("    f(a)"), None);
        assert_eq!(open_paren("    x[f(a, "), Some((7, 1)));
        assert_eq!(open_paren("    x[i, "), None);
    }
}

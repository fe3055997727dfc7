//! Hover text: what a name under the cursor is (a function's signature,
//! docstring and effects, a local's type and role, an instruction, a struct
//! or field) and the inverse of the statement there, as Markdown.

use nilang_analysis::ast::Derivative;
use nilang_analysis::ast::Span;
use nilang_analysis::builtins;
use nilang_analysis::db::{self, Db, FnId, Project, SourceFile};
use nilang_analysis::printer;
use nilang_analysis::resolve::DefKind;

use crate::navigation::{self, Symbol};
use crate::previews::{function_has_errors, statement_inverse};

/// What to show for a hover: Markdown, and the absolute span it is about
/// (the name under the cursor, or the statement whose inverse is shown).
#[derive(Clone, PartialEq, Eq, Debug)]
pub struct Hover {
    pub range: Span,
    pub markdown: String,
}

/// How many lines of an inverse a hover shows.
const MAX_INVERSE_LINES: usize = 60;

/// The hover at the byte `offset` of `file`: sections separated by rules.
/// On a function's own name, its inverse; elsewhere in a statement, that
/// statement's inverse. `None` where there is nothing to say.
pub fn hover(db: &dyn Db, project: Project, file: SourceFile, offset: u32) -> Option<Hover> {
    let symbol = navigation::symbol_at(db, project, file, offset);
    let statement = statement_inverse(db, project, file, offset);
    let mut sections: Vec<String> = Vec::new();
    let mut range = None;
    let mut at_definition = false;
    if let Some((symbol, span)) = &symbol {
        range = Some(*span);
        match symbol {
            Symbol::Function(name) => {
                if let Some(f) = db::lookup_function(db, project, name) {
                    // `f` in `(∇f)(...)` / `(∂f)(...)`: the derived
                    // function's parameters first.
                    let before = &file.text(db)[..span.start as usize];
                    if let Some(d) = Derivative::written_before(before)
                        && let Some(ast) = db::function_ast(db, f)
                        && let Some(derived) =
                            nilang_analysis::derivatives::derived_function(d, &ast)
                    {
                        let what = match d {
                            Derivative::Gradient => {
                                "gradient call: the arguments come back unchanged, each companion `b` becomes `Jᵀb`"
                            }
                            Derivative::Tangent => {
                                "tangent call: the arguments become the results, each companion `ẋ` becomes `J ẋ`"
                            }
                        };
                        sections.push(format!(
                            "**{what}**\n{}",
                            fence(&printer::print_signature(&derived))
                        ));
                    }
                    sections.extend(function_summary(db, project, f));
                    let def = navigation::definition(db, project, symbol);
                    at_definition = def == Some((file, *span));
                    if at_definition {
                        let inverse = db::inverse_source(db, f);
                        let note = if function_has_errors(db, f) {
                            " (the function has errors: this may not be valid)"
                        } else {
                            ""
                        };
                        sections.push(format!(
                            "**inverse** `~{name}`{note}:\n{}",
                            fence(&truncated(inverse))
                        ));
                    }
                }
            }
            Symbol::Module(path) => {
                let registry = db::module_registry(db, project);
                if let Some(files) = registry.modules.get(path) {
                    let mut functions: Vec<&str> = files
                        .iter()
                        .flat_map(|m| m.functions.iter().map(String::as_str))
                        .collect();
                    functions.sort_unstable();
                    sections.push(format!(
                        "**module** `{path}`: {} function{}\n\n{}",
                        functions.len(),
                        if functions.len() == 1 { "" } else { "s" },
                        functions
                            .iter()
                            .map(|f| format!("`{f}`"))
                            .collect::<Vec<_>>()
                            .join(", ")
                    ));
                }
            }
            Symbol::Instruction(name) => {
                if let Some(instruction) = builtins::instruction(name) {
                    sections.push(format!(
                        "{}\n\n{}",
                        fence(&instruction_signature(instruction)),
                        instruction_summary(instruction)
                    ));
                }
            }
            Symbol::Local { function, def } => {
                sections.extend(local_summary(db, project, *function, *def));
            }
            Symbol::Struct(name)
            | Symbol::Field {
                structure: name, ..
            } => {
                let structs = db::project_structs(db, project);
                if let Some(def) = structs.table.get(name) {
                    if let Symbol::Field { field, .. } = symbol
                        && let Some(f) = def.fields.iter().find(|f| f.name.name == *field)
                    {
                        sections.push(format!(
                            "field `{}::{}` of struct `{name}`",
                            f.name.name,
                            printer::print_type(&f.ty)
                        ));
                    }
                    sections.push(fence(printer::print_struct(def).trim_end()));
                }
            }
        }
    }
    if !at_definition && let Some((inverse, span)) = statement {
        if range.is_none() {
            range = Some(span);
        }
        sections.push(format!(
            "**inverse of this statement:**\n{}",
            fence(&truncated(&inverse))
        ));
    }
    if sections.is_empty() {
        return None;
    }
    Some(Hover {
        range: range?,
        markdown: sections.join("\n\n---\n\n"),
    })
}

fn fence(code: &str) -> String {
    format!("```nilang\n{}\n```", code.trim_end())
}

/// The first [`MAX_INVERSE_LINES`] lines of an inverse, and how many more.
fn truncated(source: &str) -> String {
    let lines: Vec<&str> = source.lines().collect();
    if lines.len() <= MAX_INVERSE_LINES {
        return source.to_string();
    }
    let mut out = lines[..MAX_INVERSE_LINES].join("\n");
    out.push_str(&format!(
        "\n# … {} more lines (\"Show inverse\" shows all)",
        lines.len() - MAX_INVERSE_LINES
    ));
    out
}

/// The signature, docstring and what a function mutates, as Markdown.
fn function_summary(db: &dyn Db, project: Project, f: FnId<'_>) -> Option<String> {
    let ast = db::function_ast(db, f)?;
    let mut out = fence(&printer::print_signature(&ast));
    if let Some(doc) = &ast.doc {
        out.push_str("\n\n");
        out.push_str(doc.trim());
    }
    let mutated = db::mutated_params(db, project, f.name(db)).unwrap_or_default();
    let (changed, read): (Vec<_>, Vec<_>) = ast
        .params
        .iter()
        .enumerate()
        .partition(|(i, _)| mutated.get(*i).copied().unwrap_or(false));
    let names = |ps: Vec<(usize, &nilang_analysis::ast::Param)>| {
        if ps.is_empty() {
            "none".to_string()
        } else {
            ps.iter()
                .map(|(_, p)| format!("`{}`", p.name.name))
                .collect::<Vec<_>>()
                .join(", ")
        }
    };
    out.push_str(&format!(
        "\n\n**mutates:** {}  \n**reads only:** {}",
        names(changed),
        names(read)
    ));
    Some(out)
}

/// A parameter's, ancilla's or loop variable's type and role, as Markdown.
fn local_summary(db: &dyn Db, project: Project, f: FnId<'_>, def: usize) -> Option<String> {
    let resolution = db::resolve_function(db, f);
    let d = resolution.defs.get(def)?;
    let ty = db::function_types(db, f)
        .defs
        .get(def)
        .map(|t| t.display())
        .unwrap_or_else(|| "_".into());
    let kind = match d.kind {
        DefKind::Param(i) => {
            let mutated = db::mutated_params(db, project, f.name(db))
                .and_then(|m| m.get(i).copied())
                .unwrap_or(false);
            if mutated {
                format!("parameter {} of `{}`, **mutated**", i + 1, f.name(db))
            } else {
                format!("parameter {} of `{}`, read only", i + 1, f.name(db))
            }
        }
        DefKind::KwParam(_) => format!("keyword parameter of `{}`, read only", f.name(db)),
        DefKind::Ancilla => {
            let value = d
                .alloc_value
                .as_ref()
                .map(printer::print_expr)
                .unwrap_or_default();
            let end = if d.dealloc.is_some() {
                "deallocated explicitly"
            } else {
                "deallocated implicitly at the end of its block"
            };
            format!("ancilla, allocated as `{} ← {value}`, {end}", d.name)
        }
        DefKind::LoopVar => "loop variable, read only".to_string(),
    };
    Some(format!("{}\n\n{kind}", fence(&format!("{}::{ty}", d.name))))
}

/// How an instruction is called, with `!` on the arguments it changes:
/// `SWAP(a!, b!)`.
pub fn instruction_signature(instruction: &builtins::Instruction) -> String {
    let args = instruction_parameters(instruction)
        .into_iter()
        .map(|(name, changed)| {
            if changed {
                format!("{name}!")
            } else {
                name.to_string()
            }
        })
        .collect::<Vec<_>>()
        .join(", ");
    format!("{}({args})", instruction.name)
}

/// The names an instruction's parameters are shown with (`a`, `b`, `θ`),
/// each with whether the instruction changes it.
pub(crate) fn instruction_parameters(
    instruction: &builtins::Instruction,
) -> Vec<(&'static str, bool)> {
    const NAMES: [&str; 3] = ["a", "b", "θ"];
    (0..instruction.arity)
        .map(|i| {
            let name = NAMES.get(i).copied().unwrap_or("x");
            (name, instruction.mutates.contains(&i))
        })
        .collect()
}

/// One line describing an instruction: its name, what it does, its inverse.
pub fn instruction_summary(instruction: &builtins::Instruction) -> String {
    format!(
        "{}: {} (inverse: {})",
        instruction.name, instruction.summary, instruction.inverse
    )
}

//! Semantic classes of names, for highlighting.

use nilang_analysis::ast::Span;
use nilang_analysis::db::{self, Db, Project, SourceFile};
use nilang_analysis::resolve::{Callee, DefKind};

use crate::navigation::{Symbol, passed_name_span, struct_uses, type_struct_names};

/// What a name stands for, for semantic highlighting.
#[derive(Clone, Copy, PartialEq, Eq, Hash, Debug)]
pub enum NameClass {
    /// A function's name where it is defined.
    FunctionDefinition,
    /// A call or uncall of a project function, or one passed as a value.
    FunctionCall,
    /// A built-in instruction (`SWAP`, `INC`, ...).
    Instruction,
    /// A parameter; `mutated` when the function changes it.
    Parameter {
        mutated: bool,
    },
    KeywordParameter,
    Ancilla,
    LoopVariable,
    /// A user struct's name; `definition` where it is declared.
    Struct {
        definition: bool,
    },
    /// A struct field; `definition` where it is declared.
    Field {
        definition: bool,
    },
    /// A module path in a `using` or `import` line.
    Module,
}

/// Every classified name of a file, sorted by position (absolute spans).
pub fn classify_names(db: &dyn Db, project: Project, file: SourceFile) -> Vec<(Span, NameClass)> {
    let mut out = Vec::new();
    for &f in db::file_functions(db, project, file) {
        let Some(ast) = db::function_ast(db, f) else {
            continue;
        };
        let offset = db::function_offset(db, f);
        let mutated = db::mutated_params(db, project, f.name(db)).unwrap_or_default();
        out.push((ast.name.span.shift(offset), NameClass::FunctionDefinition));
        let resolution = db::resolve_function(db, f);
        for call in &resolution.calls {
            let class = match call.callee {
                Callee::Function(_) => NameClass::FunctionCall,
                Callee::Instruction(_) => NameClass::Instruction,
            };
            out.push((call.span.shift(offset), class));
        }
        // A function passed as a value is a function too.
        for (span, name) in &resolution.fn_refs {
            out.push((
                passed_name_span(*span, name).shift(offset),
                NameClass::FunctionCall,
            ));
        }
        for (span, def) in &resolution.uses {
            let Some(d) = resolution.defs.get(*def) else {
                continue;
            };
            if span.start == span.end {
                continue; // a name the compiler wrote (`for x in xs`)
            }
            let class = match d.kind {
                DefKind::Param(i) => NameClass::Parameter {
                    mutated: mutated.get(i).copied().unwrap_or(false),
                },
                DefKind::KwParam(_) => NameClass::KeywordParameter,
                DefKind::Ancilla => NameClass::Ancilla,
                DefKind::LoopVar => NameClass::LoopVariable,
            };
            out.push((span.shift(offset), class));
        }
        for (span, symbol) in struct_uses(db, f) {
            let class = match symbol {
                Symbol::Field { .. } => NameClass::Field { definition: false },
                _ => NameClass::Struct { definition: false },
            };
            out.push((span.shift(offset), class));
        }
    }
    for import in &db::parse_file(db, file).imports {
        out.push((import.module.span, NameClass::Module));
        for name in import.names.iter().flatten() {
            out.push((name.span, NameClass::FunctionCall));
        }
    }
    let structs = db::project_structs(db, project);
    for def in &db::parse_file(db, file).structs {
        out.push((def.name.span, NameClass::Struct { definition: true }));
        for field in &def.fields {
            out.push((field.name.span, NameClass::Field { definition: true }));
            for (span, name) in type_struct_names(&field.ty) {
                if structs.table.get(&name).is_some() {
                    out.push((span, NameClass::Struct { definition: false }));
                }
            }
        }
    }
    out.sort_by_key(|(span, _)| (span.start, span.end));
    out.dedup_by_key(|(span, _)| *span);
    out
}

/// Highlighting for an editor without tree-sitter (the playground): the
/// grammar's own lexical classes (`nilang_syntax::highlight`), with the
/// names the analysis knows more about refined: a parameter the function
/// changes is `variable.parameter.mutated`, one it only reads
/// `variable.parameter`, an ancilla `variable.ancilla`. Non-overlapping,
/// in order, absolute byte spans.
pub fn highlight_tokens(
    db: &dyn Db,
    project: Project,
    file: SourceFile,
) -> Vec<(Span, &'static str)> {
    let text = file.text(db);
    let mut tokens: Vec<(Span, &'static str)> = nilang_syntax::highlight::highlight(text)
        .into_iter()
        .map(|(start, end, tag)| (Span::new(start, end), tag))
        .collect();
    for (span, class) in classify_names(db, project, file) {
        let tag = match class {
            NameClass::Parameter { mutated: true } => "variable.parameter.mutated",
            NameClass::Parameter { mutated: false } | NameClass::KeywordParameter => {
                "variable.parameter"
            }
            NameClass::Ancilla => "variable.ancilla",
            _ => continue,
        };
        // The name's own token, or a gap between tokens.
        let at = tokens.partition_point(|(s, _)| s.end <= span.start);
        match tokens.get(at) {
            Some((s, t)) if *s == span => {
                tokens[at] = (*s, if t.starts_with("variable") { tag } else { t })
            }
            Some((s, _)) if s.start < span.end => {}
            _ => tokens.insert(at, (span, tag)),
        }
    }
    tokens
}

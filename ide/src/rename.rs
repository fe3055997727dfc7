//! Renaming a symbol: every occurrence in the project, refused where the new
//! name is not a name or would clash with another one.

use nilang_analysis::ast::{Span, StmtKind};
use nilang_analysis::db::{self, Db, Project, SourceFile};
use nilang_analysis::{builtins, resolve};
use nilang_syntax::parser;

use crate::navigation::{Symbol, references, symbol_at};

/// What can be renamed at `offset`: the absolute span of the name there and
/// the name itself, or why not.
pub fn prepare_rename(
    db: &dyn Db,
    project: Project,
    file: SourceFile,
    offset: u32,
) -> Result<(Span, String), String> {
    let (_, span) = renamable(db, project, file, offset)?;
    let name = file
        .text(db)
        .get(span.start as usize..span.end as usize)
        .unwrap_or_default()
        .to_string();
    Ok((span, name))
}

/// The edits that rename the symbol at `offset` to `new_name`: every
/// occurrence in the project (the definition included), by file and
/// absolute span; or why the rename is refused.
pub fn rename(
    db: &dyn Db,
    project: Project,
    file: SourceFile,
    offset: u32,
    new_name: &str,
) -> Result<Vec<(SourceFile, Span)>, String> {
    let (symbol, _) = renamable(db, project, file, offset)?;
    if !is_name(new_name) {
        return Err(format!("`{new_name}` is not a name"));
    }
    if let Some(clash) = clash(db, project, &symbol, new_name) {
        return Err(clash);
    }
    Ok(references(db, project, &symbol, true))
}

/// The symbol at `offset` and its name's span, if a rename may change it.
fn renamable<'db>(
    db: &'db dyn Db,
    project: Project,
    file: SourceFile,
    offset: u32,
) -> Result<(Symbol<'db>, Span), String> {
    match symbol_at(db, project, file, offset) {
        None => Err("there is no name here to rename".to_string()),
        Some((Symbol::Instruction(name), _)) => Err(format!("`{name}` is a built-in instruction")),
        Some((Symbol::Module(path), _)) => Err(format!("`{path}` is a module: rename its file")),
        // Another package's function: its definition and its other users
        // are not this crate's to edit.
        Some((Symbol::Function(name), _))
            if db::lookup_function(db, project, &name)
                .is_some_and(|f| !db::is_local(db, project, f.file(db))) =>
        {
            let module = nilang_analysis::modules::module_of(&name).unwrap_or_default();
            Err(format!(
                "`{}` belongs to the module `{module}` of another package",
                nilang_analysis::modules::bare_name(&name)
            ))
        }
        Some(found) => Ok(found),
    }
}

/// Whether `name` parses as a variable name (not a keyword, not two tokens).
fn is_name(name: &str) -> bool {
    if name.is_empty() || name.chars().any(char::is_whitespace) {
        return false;
    }
    let probe = format!("function probe()\n    {name} ← 0\nend\n");
    let parsed = parser::parse(&probe);
    parsed.diagnostics.is_empty()
        && parsed.items.len() == 1
        && matches!(
            parsed.items[0].function.body.stmts.as_slice(),
            [s] if matches!(&s.kind, StmtKind::Alloc { name: n, .. } if n.name == name)
        )
}

/// Why `new_name` cannot be given to `symbol`, if it cannot.
fn clash(db: &dyn Db, project: Project, symbol: &Symbol<'_>, new_name: &str) -> Option<String> {
    let builtin =
        builtins::instruction(new_name).is_some() || builtins::pure_function(new_name).is_some();
    match symbol {
        Symbol::Function(old) => {
            if old == new_name {
                return None;
            }
            if db::lookup_function(db, project, new_name).is_some() {
                return Some(format!("a function named `{new_name}` exists already"));
            }
            builtin.then(|| format!("`{new_name}` is a built-in function or instruction"))
        }
        Symbol::Local { function, def } => {
            let resolution = db::resolve_function(db, *function);
            let old = resolution.defs.get(*def).map(|d| d.name.as_str());
            if old == Some(new_name) {
                return None;
            }
            let name_of = |d: &resolve::Def| d.name == new_name;
            if resolution.defs.iter().any(name_of) {
                let function_name = db::function_ast(db, *function)
                    .map(|f| f.name.name.clone())
                    .unwrap_or_default();
                return Some(format!(
                    "`{new_name}` is already a name in `{function_name}`"
                ));
            }
            builtin.then(|| format!("`{new_name}` is a built-in function or instruction"))
        }
        Symbol::Struct(old) => {
            if old == new_name {
                return None;
            }
            let structs = db::project_structs(db, project);
            structs
                .table
                .by_name
                .contains_key(new_name)
                .then(|| format!("a struct named `{new_name}` exists already"))
        }
        Symbol::Field { structure, field } => {
            if field == new_name {
                return None;
            }
            let structs = db::project_structs(db, project);
            let (def, _) = structs.table.by_name.get(structure)?;
            def.fields
                .iter()
                .any(|f| f.name.name == new_name)
                .then(|| format!("`{structure}` has a field `{new_name}` already"))
        }
        Symbol::Instruction(name) => Some(format!("`{name}` is a built-in instruction")),
        Symbol::Module(path) => Some(format!("`{path}` is a module: rename its file")),
    }
}

#[cfg(test)]
mod tests {
    use super::is_name;

    #[test]
    fn names_are_what_parses_as_one_variable() {
        for good in ["x", "out!", "θ", "x_2", "Δt"] {
            assert!(is_name(good), "{good}");
        }
        for bad in ["", "2x", "end", "function", "x y", "x+y", "x;", "#x", "a.b"] {
            assert!(!is_name(bad), "{bad}");
        }
    }
}

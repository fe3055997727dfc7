//! Modules: which function a name in a file stands for.
//!
//! A package is one namespace: the `.nil` files of a crate, the standard
//! library (`std`), a dependency crate's `.nil` files. Each file is a module
//! of its package, named by its path (`std.linalg`; a crate's own file by its
//! stem, `geometry`). A file sees the functions of its own package by their
//! names, and another package's through `using M` (every function of the
//! module, or of the package when `M` names one) and `import M: f, g` (those
//! functions only).
//!
//! A function of another package has a qualified name inside the analysis,
//! `std.linalg.i_dot` ([`qualified`]): the project's tables (`db::item_table`)
//! hold it by that name, so two packages may both define `i_dot`. Each file's
//! function trees are rewritten once, as they enter the analysis
//! (`db::function_chunk`): a library module's definitions get their qualified
//! names, and every call (and function passed by name) that resolves to
//! another package's function gets the qualified name too ([`rewrite`]).
//! Everything after that (resolution, types, checks, code generation) reads
//! one name per function and knows nothing of modules.
//!
//! Precedence in a file of this crate: the crate's own functions, then the
//! names it imports. `import M: f` of a name the crate defines is E0113; a
//! name that two `using`s bring in and that the file calls is E0114 (name it
//! with `import`, which wins over `using`). An unknown module is E0111, a
//! name the module lacks E0112.

use rustc_hash::{FxHashMap, FxHashSet};

use crate::ast::*;
use crate::builtins;
use crate::diagnostics::Diagnostic;

/// The standard library's package name: `using std.linalg`.
pub const STD: &str = "std";

/// The name a function of module `module` has inside the analysis.
pub fn qualified(module: &str, name: &str) -> String {
    format!("{module}.{name}")
}

/// A function's name without its module (`i_dot` of `std.linalg.i_dot`).
pub fn bare_name(name: &str) -> &str {
    name.rsplit('.').next().unwrap_or(name)
}

/// The module of a qualified name (`std.linalg` of `std.linalg.i_dot`).
pub fn module_of(name: &str) -> Option<&str> {
    name.rsplit_once('.').map(|(m, _)| m)
}

/// One module `using`/`import` can name: a library file, or a file of this
/// crate.
#[derive(Clone, PartialEq, Eq, Debug)]
pub struct ModuleFile {
    /// Its path: `std.linalg`, or a crate file's stem.
    pub path: String,
    /// Its package, `None` for this crate.
    pub package: Option<String>,
    /// Its functions' own names (unqualified).
    pub functions: Vec<String>,
}

/// Every module path a file can name, with the files it stands for: a
/// library file's path, a library package's name (all its files), a crate
/// file's stem.
#[derive(Clone, PartialEq, Eq, Debug, Default)]
pub struct Registry {
    pub modules: FxHashMap<String, Vec<ModuleFile>>,
}

impl Registry {
    pub fn add(&mut self, file: ModuleFile) {
        if let Some(package) = &file.package
            && *package != file.path
        {
            self.modules
                .entry(package.clone())
                .or_default()
                .push(file.clone());
        }
        self.modules
            .entry(file.path.clone())
            .or_default()
            .push(file);
    }

    /// The module paths, sorted (for help lines).
    pub fn paths(&self) -> Vec<&str> {
        let mut paths: Vec<&str> = self.modules.keys().map(String::as_str).collect();
        paths.sort_unstable();
        paths
    }

    /// The library modules that define `name`, sorted.
    pub fn defining(&self, name: &str) -> Vec<&str> {
        let mut out: Vec<&str> = self
            .modules
            .values()
            .flatten()
            .filter(|m| m.package.is_some() && m.functions.iter().any(|f| f == name))
            .map(|m| m.path.as_str())
            .collect();
        out.sort_unstable();
        out.dedup();
        out
    }
}

/// What names mean in one file beyond its own crate's functions.
#[derive(Clone, PartialEq, Eq, Debug, Default)]
pub struct Scope {
    /// Each name that stands for another package's function: its qualified
    /// name.
    pub names: FxHashMap<String, String>,
    /// Names two `using`s bring in (neither imported by name nor defined
    /// in the file's own package): the modules, sorted. Calls of them are
    /// E0114 and are rewritten to the first.
    pub ambiguous: FxHashMap<String, Vec<String>>,
    /// The import declarations' own errors (absolute spans).
    pub diagnostics: Vec<Diagnostic>,
}

impl Scope {
    pub fn is_empty(&self) -> bool {
        self.names.is_empty() && self.ambiguous.is_empty()
    }
}

/// The scope of a file with these imports. `package` is the file's own
/// package when it is a library module (its package's functions are then
/// in scope by name); `crate_defines` tells whether this crate has a
/// function of that name (it wins over imports in the crate's files).
pub fn scope(
    registry: &Registry,
    package: Option<&str>,
    imports: &[Import],
    crate_defines: &dyn Fn(&str) -> bool,
) -> Scope {
    // Candidates per name, by strength: 3 imported by name, 2 of the
    // file's own package, 1 through `using`.
    let mut candidates: FxHashMap<String, Vec<(u8, String)>> = FxHashMap::default();
    let mut add = |name: &str, module: &str, strength: u8| {
        let list = candidates.entry(name.to_string()).or_default();
        if !list.iter().any(|(s, m)| *s == strength && m == module) {
            list.push((strength, module.to_string()));
        }
    };
    if let Some(package) = package
        && let Some(files) = registry.modules.get(package)
    {
        for m in files {
            for f in &m.functions {
                add(f, &m.path, 2);
            }
        }
    }
    let mut diagnostics = Vec::new();
    for import in imports {
        let path = &import.module.name;
        let Some(files) = registry.modules.get(path) else {
            diagnostics.push(unknown_module(registry, &import.module));
            continue;
        };
        // A module of this crate: its functions are in scope already;
        // `import` still checks that the names are there.
        let local = files.iter().all(|m| m.package.is_none());
        match &import.names {
            None if local => {}
            None => {
                for m in files {
                    for f in &m.functions {
                        add(f, &m.path, 1);
                    }
                }
            }
            Some(names) => {
                for name in names {
                    let Some(m) = files.iter().find(|m| m.functions.contains(&name.name)) else {
                        diagnostics.push(
                            Diagnostic::error(
                                "E0112",
                                name.span,
                                format!("module `{path}` has no function `{}`", name.name),
                            )
                            .with_label("not defined there")
                            .with_help(
                                match builtins::closest(
                                    &name.name,
                                    files
                                        .iter()
                                        .flat_map(|m| m.functions.iter().map(String::as_str)),
                                ) {
                                    Some(s) => {
                                        format!("a function with a similar name exists: `{s}`")
                                    }
                                    None => format!(
                                        "check the spelling, or the module: `{}`",
                                        name.name
                                    ),
                                },
                            ),
                        );
                        continue;
                    };
                    if local {
                        continue;
                    }
                    if package.is_none() && crate_defines(&name.name) {
                        diagnostics.push(
                            Diagnostic::error(
                                "E0113",
                                name.span,
                                format!(
                                    "`{}` is imported from `{}` and also defined in this crate",
                                    name.name, m.path
                                ),
                            )
                            .with_label("imported here")
                            .with_help(format!(
                                "rename this crate's `{}`, or leave it out of the import",
                                name.name
                            )),
                        );
                        continue;
                    }
                    add(&name.name, &m.path, 3);
                }
            }
        }
    }
    let mut out = Scope {
        diagnostics,
        ..Scope::default()
    };
    for (name, list) in candidates {
        if package.is_none() && crate_defines(&name) {
            continue;
        }
        let top = list.iter().map(|(s, _)| *s).max().unwrap_or(0);
        let mut modules: Vec<String> = list
            .into_iter()
            .filter(|(s, _)| *s == top)
            .map(|(_, m)| m)
            .collect();
        modules.sort();
        modules.dedup();
        out.names
            .insert(name.clone(), qualified(&modules[0], &name));
        if modules.len() > 1 {
            out.ambiguous.insert(name, modules);
        }
    }
    out
}

fn unknown_module(registry: &Registry, module: &Ident) -> Diagnostic {
    let paths = registry.paths();
    let help = match builtins::closest(&module.name, paths.iter().copied()) {
        Some(s) => format!("a module with a similar name exists: `{s}`"),
        None => format!(
            "the modules are the standard library's ({}), this crate's files and the `.nil` modules of its dependencies",
            paths
                .iter()
                .filter(|p| p.starts_with("std."))
                .copied()
                .collect::<Vec<_>>()
                .join(", ")
        ),
    };
    Diagnostic::error(
        "E0111",
        module.span,
        format!("unknown module `{}`", module.name),
    )
    .with_label("no module of this name")
    .with_help(help)
}

/// A function's tree as the analysis reads it: a library module's
/// definition under its qualified name (`module` is then the file's module
/// path), and each call and function argument that `scope` resolves to
/// another package's function under that function's qualified name.
/// Variables keep their names: an argument is taken for a function only
/// when the function defines no variable of that name.
pub fn rewrite(function: &Function, module: Option<&str>, scope: &Scope) -> Function {
    let mut out = function.clone();
    if let Some(module) = module {
        out.name.name = qualified(module, &function.name.name);
    }
    if scope.is_empty() {
        return out;
    }
    let locals = variable_names(function);
    walk_calls_mut(&mut out.body.stmts, &mut |call| {
        if builtins::instruction(&call.callee.name).is_none() {
            // `(∇f)` of an imported `f` is the derivative of its qualified name.
            let (derivative, base) = match Derivative::of(&call.callee.name) {
                Some((d, base)) => (Some(d), base),
                None => (None, call.callee.name.as_str()),
            };
            if let Some(q) = scope.names.get(base) {
                call.callee.name = match derivative {
                    Some(d) => d.name(q),
                    None => q.clone(),
                };
            }
        }
        for arg in &mut call.args {
            if let ExprKind::Var(n) = &mut arg.kind
                && !locals.contains(n.as_str())
                && let Some(q) = scope.names.get(n.as_str())
            {
                *n = q.clone();
            }
        }
    });
    if let Some(d) = &mut out.primitive
        && let Some(q) = scope.names.get(&d.name)
    {
        d.name = q.clone();
    }
    out
}

/// The names a function gives variables: parameters, ancillas, loop
/// variables.
fn variable_names(function: &Function) -> FxHashSet<&str> {
    let mut out: FxHashSet<&str> = function
        .params
        .iter()
        .map(|p| p.name.name.as_str())
        .chain(function.kwparams.iter().map(|p| p.name.name.as_str()))
        .collect();
    walk_stmts(&function.body.stmts, &mut |s| match &s.kind {
        StmtKind::Alloc { name, .. } | StmtKind::Dealloc { name, .. } => {
            out.insert(&name.name);
        }
        StmtKind::For { var, .. } => {
            out.insert(&var.name);
        }
        _ => {}
    });
    out
}

/// E0114 for each call in `functions` (with their offsets in the file) of
/// a name that two `using`s bring in.
pub fn ambiguous_calls(functions: &[(u32, &Function)], scope: &Scope, out: &mut Vec<Diagnostic>) {
    if scope.ambiguous.is_empty() {
        return;
    }
    for (offset, function) in functions {
        walk_stmts(&function.body.stmts, &mut |s| {
            let StmtKind::Call(call) = &s.kind else {
                return;
            };
            let Some(modules) = scope.ambiguous.get(&call.callee.name) else {
                return;
            };
            let name = &call.callee.name;
            out.push(
                Diagnostic::error(
                    "E0114",
                    call.callee.span.shift(*offset),
                    format!(
                        "`{name}` is defined in {}",
                        modules
                            .iter()
                            .map(|m| format!("`{m}`"))
                            .collect::<Vec<_>>()
                            .join(" and ")
                    ),
                )
                .with_label("which one is meant is ambiguous")
                .with_help(format!(
                    "import it by name from one of them: `import {}: {name}`",
                    modules[0]
                )),
            );
        });
    }
}

//! Modules: the registry of a project's modules, each file's scope, and the
//! diagnostics of `using` and `import`.

use super::inputs::{Db, Project, SourceFile, is_local, library_module, module_path, parse_file};
use super::items::{file_names, item_table};
use crate::ast::Function;
use crate::diagnostics::Diagnostic;
use std::sync::Arc;

/// The modules `using` and `import` can name (see [`crate::modules`]).
#[salsa::tracked(returns(ref))]
pub fn module_registry(db: &dyn Db, project: Project) -> Arc<crate::modules::Registry> {
    let mut registry = crate::modules::Registry::default();
    for &file in project.files(db) {
        let path = module_path(db, project, file);
        let package = library_module(db, project, file).map(|l| l.package.clone());
        let functions = file_names(db, file)
            .iter()
            .map(|(name, _)| name.clone())
            .collect();
        registry.add(crate::modules::ModuleFile {
            path,
            package,
            functions,
        });
    }
    Arc::new(registry)
}

/// What names mean in `file` beyond its own crate's functions: empty for a
/// file of this crate without imports, so such files never read the
/// registry.
#[salsa::tracked(returns(ref))]
pub fn file_scope(db: &dyn Db, project: Project, file: SourceFile) -> Arc<crate::modules::Scope> {
    let imports = &parse_file(db, file).imports;
    let package = library_module(db, project, file).map(|l| l.package.as_str());
    if package.is_none() && imports.is_empty() {
        return Arc::default();
    }
    let table = item_table(db, project);
    Arc::new(crate::modules::scope(
        module_registry(db, project),
        package,
        imports,
        &|name| table.by_name.contains_key(name),
    ))
}

/// The packages this crate's files import from that the project does not
/// have (the first part of each unknown module path): what a shell looks
/// for among the crate's dependencies before reporting E0111.
pub fn missing_packages(db: &dyn Db, project: Project) -> Vec<String> {
    let registry = module_registry(db, project);
    let mut out: Vec<String> = project
        .files(db)
        .iter()
        .filter(|&&f| is_local(db, project, f))
        .flat_map(|&f| imported_modules(db, f).iter())
        .filter(|m| !registry.modules.contains_key(*m))
        .map(|m| m.split('.').next().unwrap_or_default().to_string())
        .collect();
    out.sort();
    out.dedup();
    out
}

/// The modules a file's `using` and `import` lines name: what a shell asks
/// about on every edit ([`missing_packages`]), apart from the parse so that
/// the question is not answered again while they stay the same.
#[salsa::tracked(returns(ref))]
fn imported_modules(db: &dyn Db, file: SourceFile) -> Vec<String> {
    parse_file(db, file)
        .imports
        .iter()
        .map(|i| i.module.name.clone())
        .collect()
}

/// The diagnostics of a file's imports, and E0114 for its calls of a name
/// that two `using`s bring in (absolute spans).
pub(crate) fn module_diagnostics(
    db: &dyn Db,
    project: Project,
    file: SourceFile,
) -> Vec<Diagnostic> {
    let scope = file_scope(db, project, file);
    let mut out = scope.diagnostics.clone();
    let parsed = parse_file(db, file);
    let functions: Vec<(u32, &Function)> = parsed
        .items
        .iter()
        .map(|i| (i.offset, &*i.function))
        .collect();
    crate::modules::ambiguous_calls(&functions, scope, &mut out);
    out
}

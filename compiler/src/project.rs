//! The project `nilc` checks: the files given, the standard library, and
//! the `.nil` modules of the Cargo dependencies of the package the files
//! are in, when the files import a package the rest lacks.

use std::path::Path;

use crate::db::{self, Project, RootDatabase, SourceFile};

/// A project of `files` (this crate's), whose first file is at `first`.
pub fn load(db: &RootDatabase, files: Vec<SourceFile>, first: Option<&Path>) -> Project {
    let project = db::project_with_std(db, files.clone(), Vec::new());
    if db::missing_packages(db, project).is_empty() {
        return project;
    }
    match first.and_then(|p| nilang_build::libraries_near(db, p)) {
        Some(libraries) => db::project_with_std(db, files, libraries),
        None => project,
    }
}

/// The dependencies of the Cargo package `path` (a file) is in that
/// compile `.nil` files without passing them on (no `links` key), for
/// [`nilang_build::explain_unexported`]; empty outside a package.
pub fn unexported_near(path: &Path) -> Vec<String> {
    nilang_build::package_root_of(path)
        .map(|root| nilang_build::unexported_dependencies(&root))
        .unwrap_or_default()
}

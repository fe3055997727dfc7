//! The project `nilc` checks: the files given, the standard library, and
//! the `.nil` modules of the Cargo dependencies of the package the files
//! are in, when the files import a package the rest lacks.

use std::path::Path;

use crate::db::{self, LibraryModule, Project, RootDatabase, SourceFile};

/// A project of `files` (this crate's), whose first file is at `first`.
pub fn load(db: &RootDatabase, files: Vec<SourceFile>, first: Option<&Path>) -> Project {
    let project = db::project_with_std(db, files.clone(), Vec::new());
    if db::missing_packages(db, project).is_empty() {
        return project;
    }
    match first.and_then(|p| dependency_libraries(db, p)) {
        Some(libraries) => db::project_with_std(db, files, libraries),
        None => project,
    }
}

/// The `.nil` modules of the dependencies of the Cargo package `path` is
/// in (the nearest `Cargo.toml` above it), if that can be read.
fn dependency_libraries(db: &RootDatabase, path: &Path) -> Option<Vec<LibraryModule>> {
    let absolute = std::path::absolute(path).ok()?;
    let root = absolute
        .ancestors()
        .skip(1)
        .find(|d| d.join("Cargo.toml").is_file())?;
    let dependencies = nilang_build::dependency_modules(root).ok()?;
    nilang_build::load_libraries(db, &dependencies).ok()
}

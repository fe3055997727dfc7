//! Feeding the database: what a shell (the language server) needs to change
//! its inputs and to notice that a change cancelled a reader.

use nilang_analysis::db::{Db, Project, SourceFile};
use salsa::Setter;

/// Raised (as a panic payload) in a reader whose snapshot an edit made
/// stale; `Cancelled::catch` turns it into an `Err`.
pub use salsa::Cancelled;

/// Replaces the text of `file`. Waits until every snapshot of the database
/// has been dropped (salsa cancels their queries).
pub fn set_file_text(db: &mut dyn Db, file: SourceFile, text: String) {
    file.set_text(db).to(text);
}

/// Replaces the files of `project`. Waits like [`set_file_text`].
pub fn set_project_files(db: &mut dyn Db, project: Project, files: Vec<SourceFile>) {
    project.set_files(db).to(files);
}

/// Sets which of a project's files are other packages' modules.
pub fn set_project_libraries(
    db: &mut dyn Db,
    project: Project,
    libraries: Vec<nilang_analysis::db::LibraryModule>,
) {
    project.set_libraries(db).to(libraries);
}

//! The diagnostics an editor shows for a file.

use nilang_analysis::db::{self, Db, Project, SourceFile};
use nilang_analysis::diagnostics::Diagnostic;

/// What `nilc check` reports for `file` (absolute spans, sorted by
/// position): [`nilang_analysis::db::file_diagnostics`], so that the
/// editor and the command line always agree.
pub fn file_diagnostics(db: &dyn Db, project: Project, file: SourceFile) -> &[Diagnostic] {
    db::file_diagnostics(db, project, file)
}

/// A diagnostic's message with its help line, if any, after it
/// (`…\nhelp: …`), as one text for editors that show one.
pub fn message_with_help(d: &Diagnostic) -> String {
    let mut message = d.message.clone();
    if let Some(help) = &d.help {
        message.push_str("\nhelp: ");
        message.push_str(help);
    }
    message
}

//! Feeds arbitrary bytes through parsing, every check, inversion and printing.
//! Any panic, overflow or hang is a bug.
#![no_main]

use libfuzzer_sys::fuzz_target;
use nilang_compiler::db::{self, Project, RootDatabase, SourceFile};

fuzz_target!(|data: &[u8]| {
    let text = String::from_utf8_lossy(data).into_owned();
    let db = RootDatabase::default();
    let file = SourceFile::new(&db, "fuzz.nil".into(), text);
    let project = Project::new(&db, vec![file]);
    let diagnostics = db::file_diagnostics(&db, project, file);
    for d in diagnostics.iter() {
        assert!(d.primary.span.start <= d.primary.span.end);
    }
    for &f in db::file_functions(&db, project, file) {
        let _ = db::inverse_source(&db, f);
    }
});

//! Salsa recomputes only what an edit touches: after a one-line edit inside
//! one function, only the analyses of that function's chunk (16 functions)
//! run again (read from salsa's event log).

use nilang_compiler::db::{self, Project, RootDatabase, SourceFile};
use salsa::Setter;

fn source(body_of_second: &str) -> String {
    format!(
        r#"function first(y::f64, x::f64)
    y += sin(x)
end

function second(y::f64, x::f64)
    a ← zero(f64)
    {body_of_second}
    y += a * x
    a -= exp(x)
end

"""Calls the other two."""
function third(y::f64, x::f64, z::f64)
    first(y, x)
    second(z, x)
end
"#
    )
}

/// How many times `query` ran since the log was last taken (for the
/// chunk queries, whose keys are not functions).
fn runs(db: &RootDatabase, query: &str) -> usize {
    count(&db.take_log(), query)
}

/// How many times `query` ran in `log`.
fn count(log: &[db::ExecutedQuery], query: &str) -> usize {
    log.iter()
        .filter(|q| q.query.starts_with(&format!("{query}(")))
        .count()
}

/// 300 functions `f{i}(y, x)` (19 chunks), each `y += x * 2.0` but `f150`,
/// whose body is `line`; then `tail`.
fn many_functions(line: &str, tail: &str) -> String {
    let mut t: String = (0..300)
        .map(|i| {
            let line = if i == 150 { line } else { "y += x * 2.0" };
            format!("function f{i}(y::f64, x::f64)\n    {line}\nend\n\n")
        })
        .collect();
    t.push_str(tail);
    t
}

/// A function that calls `f150` of [`many_functions`].
const CALLER: &str = "function caller(a::f64, b::f64)\n    f150(a, b)\nend\n";

/// The queries that ran to check `after` in a database (reparsing
/// incrementally) that had checked `before`; both must check clean.
fn recheck_after_edit(before: &str, after: &str) -> Vec<db::ExecutedQuery> {
    let mut db = RootDatabase::with_query_log().with_reparsing();
    let file = SourceFile::new(&db, "many.nil".into(), before.to_string());
    let project = Project::new(&db, vec![file]);
    assert!(db::file_diagnostics(&db, project, file).is_empty());
    file.set_text(&mut db).to(after.to_string());
    db.start_logging();
    assert!(db::file_diagnostics(&db, project, file).is_empty());
    db.take_log()
}

/// The analyses of one chunk, in the order they build on each other.
const CHUNK_QUERIES: [&str; 4] = [
    "chunk_front",
    "chunk_typed",
    "chunk_checks",
    "chunk_signatures",
];

#[test]
fn a_one_line_edit_rechecks_only_its_function() {
    let mut db = RootDatabase::with_query_log();
    let file = SourceFile::new(&db, "edit.nil".into(), source("a += exp(x)"));
    let project = Project::new(&db, vec![file]);
    assert!(db::file_diagnostics(&db, project, file).is_empty());

    // Lengthen a line inside `second`: every later offset in the file moves.
    file.set_text(&mut db).to(source("a += exp(x) + 0.0 * x"));
    db.start_logging();
    let diagnostics = db::file_diagnostics(&db, project, file).clone();
    let log = db.take_log();
    // The file's one chunk is analysed again, once.
    for query in ["chunk_front", "chunk_typed", "chunk_checks"] {
        assert_eq!(count(&log, query), 1, "{query}");
    }
    // `second`'s parameter types and effects are unchanged, so no
    // project-wide fact is computed again.
    assert_eq!(count(&log, "project_mutations"), 0);
    assert_eq!(count(&log, "project_taped"), 0);
    assert!(log.iter().any(|q| q.query.starts_with("parse_file(")));
    // The new line reads `x` twice: a shared read, reported after the edit.
    assert_eq!(
        diagnostics.iter().map(|d| d.code).collect::<Vec<_>>(),
        vec!["E0210"]
    );
}

#[test]
fn an_edit_that_keeps_the_tree_equal_rechecks_nothing() {
    let mut db = RootDatabase::with_query_log();
    let file = SourceFile::new(&db, "same.nil".into(), source("a += exp(x)"));
    let project = Project::new(&db, vec![file]);
    db::file_diagnostics(&db, project, file);
    // A comment and extra spaces: the text changes, the tree does not.
    let edited = source("a += exp(x)").replace("function first", "# a comment\nfunction first");
    file.set_text(&mut db).to(edited);
    db.start_logging();
    db::file_diagnostics(&db, project, file);
    for query in CHUNK_QUERIES {
        assert_eq!(runs(&db, query), 0, "{query}");
    }
}

#[test]
fn changing_what_a_callee_mutates_rechecks_its_callers() {
    let mut db = RootDatabase::with_query_log();
    let callee = "function bump(x::f64, y::f64)\n    x += y\nend\n";
    let caller = "function caller(a::f64)\n    bump(a, a)\nend\n";
    let f1 = SourceFile::new(&db, "bump.nil".into(), callee.into());
    let f2 = SourceFile::new(&db, "caller.nil".into(), caller.into());
    let project = Project::new(&db, vec![f1, f2]);
    let codes = |db: &RootDatabase| -> Vec<&'static str> {
        db::file_diagnostics(db, project, f2)
            .iter()
            .map(|d| d.code)
            .collect()
    };
    // `bump` mutates x and reads y: passing `a` twice is a read-write clash.
    assert_eq!(codes(&db), vec!["E0201"]);
    // Now it mutates both: the clash becomes an aliasing error, across files.
    f1.set_text(&mut db)
        .to("function bump(x::f64, y::f64)\n    SWAP(x, y)\nend\n".into());
    assert_eq!(codes(&db), vec!["E0202"]);
}

/// In a file of many functions, an edit re-runs `function_ast` for the
/// functions of one chunk only, and the analyses of that chunk only, not of
/// every function of the file; and the incrementally parsed database
/// reports what a fresh one reports.
#[test]
fn an_edit_in_a_large_file_rederives_one_chunk_of_trees() {
    let text = |scale: &str| many_functions(&format!("y += x * {scale}"), "");
    let mut db = RootDatabase::with_query_log().with_reparsing();
    let file = SourceFile::new(&db, "many.nil".into(), text("2.0"));
    let project = Project::new(&db, vec![file]);
    assert!(db::file_diagnostics(&db, project, file).is_empty());
    // One more character in `f150`: every later function moves by a byte.
    file.set_text(&mut db).to(text("2.05"));
    db.start_logging();
    let diagnostics = db::file_diagnostics(&db, project, file).clone();
    let log = db.take_log();
    for query in ["chunk_front", "chunk_typed", "chunk_checks"] {
        let n = count(&log, query);
        assert_eq!(n, 1, "{query} ran for {n} of the file's 19 chunks");
    }
    // The project's tables are built from the functions' names, which the
    // edit leaves as they were (`file_names` is backdated): not again.
    for query in ["item_table", "module_registry"] {
        assert_eq!(count(&log, query), 0, "{query} ran again");
    }
    // An error introduced and fixed again: both states agree with a fresh
    // database.
    for version in [text("2.0 +"), text("2.0")] {
        file.set_text(&mut db).to(version.clone());
        let fresh = RootDatabase::default();
        let fresh_file = SourceFile::new(&fresh, "many.nil".into(), version);
        let fresh_project = Project::new(&fresh, vec![fresh_file]);
        assert_eq!(
            db::file_diagnostics(&db, project, file),
            db::file_diagnostics(&fresh, fresh_project, fresh_file)
        );
    }
    assert!(diagnostics.is_empty());
}

/// An edit that changes what one function mutates re-checks that function
/// and its callers (their chunks), not every function of the project: each
/// function's checks read its callees' mutations one name at a time.
#[test]
fn changing_what_one_function_mutates_rechecks_its_callers_only() {
    // `f150` now changes `x` instead of `y`.
    let log = recheck_after_edit(
        &many_functions("y += x * 2.0", CALLER),
        &many_functions("x += y * 2.0", CALLER),
    );
    assert_eq!(count(&log, "project_mutations"), 1);
    // `f150`'s chunk and the caller's, of 19.
    assert_eq!(count(&log, "chunk_checks"), 2, "chunk_checks");
}

/// An edit of a callee's body that keeps what it mutates does not recheck
/// its callers: what the checks read of a callee (its header, its
/// mutations) is backdated, not its tree.
#[test]
fn an_edit_of_a_callee_body_rechecks_its_chunk_only() {
    let log = recheck_after_edit(
        &many_functions("y += x * 2.0", CALLER),
        &many_functions("y += x * 3.0", CALLER),
    );
    assert_eq!(count(&log, "chunk_checks"), 1);
}

/// A struct defined below the edit moves with it; the functions that do not
/// use it are not checked again for that.
#[test]
fn an_edit_above_a_struct_rechecks_one_chunk() {
    let structs =
        "struct Pt\n    x::f64\n    y::f64\nend\n\nfunction g(p::Pt, z::f64)\n    z += p.x\nend\n";
    let log = recheck_after_edit(
        &many_functions("y += x * 2.0", structs),
        &many_functions("y += x * 2.05", structs),
    );
    assert_eq!(count(&log, "chunk_checks"), 1);
}

/// A generic function called at an integer is typed again at that integer
/// once for all its callers (`integer_instance`, keyed by the function and
/// its bindings), and not again when a caller is edited.
#[test]
fn an_integer_instance_is_typed_once_for_all_its_callers() {
    let mut db = RootDatabase::with_query_log();
    let generic = "function g(y!::T, x::T) where T: Real\n    y! += exp(x)\nend\n";
    let callers = |extra: &str| {
        format!(
            "function a(y::i64, x::i64)\n    g(y, x)\nend\n\n\
             function b(y::i64, x::i64)\n    g(y, x)\n    {extra}\nend\n"
        )
    };
    let lib = SourceFile::new(&db, "g.nil".into(), generic.into());
    let file = SourceFile::new(&db, "callers.nil".into(), callers(""));
    let project = Project::new(&db, vec![lib, file]);
    let refused = |db: &RootDatabase| -> usize {
        db::file_diagnostics(db, project, file)
            .iter()
            .filter(|d| d.message.starts_with("`g` with `T` = `i64`: in `g`"))
            .count()
    };
    db.start_logging();
    assert_eq!(refused(&db), 2, "both calls are refused at the integer");
    assert_eq!(runs(&db, "integer_instance"), 1);
    file.set_text(&mut db).to(callers("y += x"));
    assert_eq!(refused(&db), 2);
    assert_eq!(
        runs(&db, "integer_instance"),
        0,
        "the callee did not change"
    );
}

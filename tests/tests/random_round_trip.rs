//! Round trips of the inverse over the generated programs (issue 42 item
//! 5), as `inverse_round_trip.rs` does for the repository's `.nil` files:
//! for each file that `build.rs` generates (the 100 random programs, their
//! `Const` twins and template callers, their generic twins and derivative
//! calls, the aliased programs, the chains, the programs with failures
//! injected and the singular built-ins), the inverse module as `nilc
//! inverse` prints it checks clean beside the other files of its project,
//! and inverting each printed inverse again gives back the original
//! function (its implicit deallocations written out), as printed. The
//! template instances the random programs make (`via!`, `part!`, `cap!`
//! with each program, `pN` partially applied) are inverted twice too, as
//! trees (an instance's name is not one a file may spell).

use std::path::Path;

use nilang_compiler::db::{self, InstanceId, RootDatabase, SourceFile};
use nilang_compiler::invert::{explicit_deallocations, invert_function};
use nilang_compiler::printer::print_function;
use nilang_compiler::{Severity, syntax};

fn errors(db: &RootDatabase, project: db::Project, file: SourceFile) -> Vec<String> {
    db::file_diagnostics(db, project, file)
        .iter()
        .filter(|d| d.severity == Severity::Error)
        .map(|d| format!("{}: {}", d.code, d.message))
        .collect()
}

/// The generated `.nil` files of one folder of `OUT_DIR` (one project, as
/// `build.rs` compiles it), name and text, by name.
fn generated(folder: &str) -> Vec<(String, String)> {
    let dir = Path::new(env!("OUT_DIR")).join(folder);
    let mut files: Vec<(String, String)> = std::fs::read_dir(&dir)
        .unwrap_or_else(|e| panic!("{}: {e}", dir.display()))
        .map(|e| e.unwrap().path())
        .filter(|p| p.extension().is_some_and(|x| x == "nil"))
        .map(|p| {
            let name = p.file_name().unwrap().to_string_lossy().into_owned();
            (name, std::fs::read_to_string(&p).unwrap())
        })
        .collect();
    files.sort();
    files
}

/// What one project's round trips found.
#[derive(Default)]
struct Found {
    files: usize,
    functions: usize,
    instances: usize,
    failures: Vec<String>,
}

/// `invert(parse(text))` printed, against `expected` printed.
fn inverts_back(
    found: &mut Found,
    what: &str,
    inverse_text: &str,
    original: &nilang_compiler::ast::Function,
) {
    let again = syntax::parse(inverse_text);
    if !again.diagnostics.is_empty() || again.items.len() != 1 {
        found.failures.push(format!(
            "{what}: the printed inverse does not parse as one function: {:?}\n{inverse_text}",
            again.diagnostics
        ));
        return;
    }
    let back = print_function(&invert_function(&again.items[0].function));
    let mut original = original.clone();
    original.primitive = None;
    let expected = print_function(&explicit_deallocations(&original));
    if back != expected {
        found.failures.push(format!(
            "{what} inverted twice is not the original:\n{back}\n---\n{expected}"
        ));
    }
}

fn round_trips(folder: &str, found: &mut Found) {
    let texts = generated(folder);
    let load = |db: &RootDatabase, texts: &[(String, String)]| -> Vec<SourceFile> {
        texts
            .iter()
            .map(|(name, text)| SourceFile::new(db, name.clone(), text.clone()))
            .collect()
    };
    let db = RootDatabase::default();
    let files = load(&db, &texts);
    let project = db::project_with_std(&db, files.clone(), Vec::new());
    for (k, &file) in files.iter().enumerate() {
        let name = &texts[k].0;
        let found_errors = errors(&db, project, file);
        assert!(
            found_errors.is_empty(),
            "{folder}/{name} does not check: {found_errors:?}"
        );
        let functions = db::file_functions(&db, project, file);
        let inverses: Vec<String> = functions
            .iter()
            .map(|&f| db::inverse_source(&db, f).clone())
            .collect();
        let module = db::inverse_header(&db, file, true) + &inverses.join("\n");
        // 1. The inverse module checks clean beside the other files.
        let db2 = RootDatabase::default();
        let mut files2 = load(&db2, &texts);
        files2[k] = SourceFile::new(&db2, name.clone(), module.clone());
        let project2 = db::project_with_std(&db2, files2.clone(), Vec::new());
        let inverse_errors = errors(&db2, project2, files2[k]);
        if !inverse_errors.is_empty() {
            found.failures.push(format!(
                "{folder}/{name}: the inverse does not check: {:?}",
                &inverse_errors[..inverse_errors.len().min(10)]
            ));
            continue;
        }
        found.files += 1;
        // 2. Inverting each printed inverse gives back the original.
        let originals = syntax::parse(&texts[k].1);
        assert_eq!(originals.items.len(), inverses.len());
        for (original, inverse) in originals.items.iter().zip(&inverses) {
            let what = format!("{folder}/{name}: `{}`", original.function.name.name);
            inverts_back(found, &what, inverse, &original.function);
            found.functions += 1;
        }
    }
    // 3. The template instances, through their printed inverses.
    for instance in db::project_instances(&db, project).iter() {
        let tree = db::instance_tree(&db, project, InstanceId::new(&db, instance.clone()))
            .clone()
            .unwrap_or_else(|e| panic!("{}: {e}", instance.describe()));
        // An instance's name is not one a file may spell, so the round
        // trip is on the tree.
        let back = print_function(&invert_function(&invert_function(&tree)));
        let expected = print_function(&explicit_deallocations(&tree));
        if back != expected {
            found.failures.push(format!(
                "{folder}: the instance {} inverted twice is not the original:\n{back}\n---\n{expected}",
                instance.describe()
            ));
        }
        found.instances += 1;
    }
}

#[test]
fn every_generated_inverse_checks_clean_and_inverts_back() {
    let mut found = Found::default();
    for folder in ["random", "rollback", "singular"] {
        round_trips(folder, &mut found);
    }
    let Found {
        files,
        functions,
        instances,
        failures,
    } = found;
    eprintln!(
        "generated inverse round trips: {files} files, {functions} functions, {instances} template instances"
    );
    assert!(
        failures.is_empty(),
        "{} failures:\n{}",
        failures.len(),
        failures[..failures.len().min(20)].join("\n\n")
    );
    // random.nil, random_const.nil, random_derivatives.nil, aliased.nil,
    // chains.nil, random_rollback.nil, singular_builtins.nil.
    assert_eq!(files, 7);
    // 100 random programs, their twins and callers (355), 63 generic ones
    // and derivative calls, 41 aliased, 3 chains, the rollback and
    // singular files.
    assert!(functions > 700, "only {functions} functions");
    assert!(instances >= 100, "only {instances} instances");
}

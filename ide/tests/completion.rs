//! Completion at a `$0` cursor: the names in scope, as the editor lists them.

mod fixture;

use fixture::Fixture;

fn labels(marked: &str) -> Vec<String> {
    let f = Fixture::new(marked);
    let (items, _) = nilang_ide::completions(&f.db, f.project, f.file, f.offset);
    items.into_iter().map(|i| i.label).collect()
}

#[test]
fn the_element_of_a_for_each_loop_is_in_scope_and_its_position_is_not() {
    let names = labels(
        "function f(y::f64, xs::[f64])\n    for v in xs\n        y += v\n        $0\n    end\nend\n",
    );
    assert!(names.iter().any(|n| n == "v"), "{names:?}");
    assert!(names.iter().any(|n| n == "xs"), "{names:?}");
    assert!(!names.iter().any(|n| n.starts_with("__")), "{names:?}");
}

#[test]
fn destructured_names_are_in_scope_after_their_line() {
    let names = labels(
        "function f(y::f64, A::Matrix<f64>)\n    m, n ← size(A)\n    y += $0\n    m, n → size(A)\nend\n",
    );
    assert!(names.iter().any(|n| n == "m"), "{names:?}");
    assert!(names.iter().any(|n| n == "n"), "{names:?}");
}

/// Completion labels at `$0`, in a project with the library module
/// `lib.shapes` (`Fixture::with_library`).
fn labels_with_library(marked: &str) -> Vec<String> {
    let (f, _) = Fixture::with_library(marked);
    let (items, _) = nilang_ide::completions(&f.db, f.project, f.file, f.offset);
    items.into_iter().map(|i| i.label).collect()
}

#[test]
fn module_paths_complete_part_by_part_after_using_and_import() {
    assert_eq!(labels_with_library("using $0\n"), ["lib", "std"]);
    assert_eq!(labels_with_library("using l$0\n"), ["lib"]);
    assert_eq!(labels_with_library("import lib.$0\n"), ["shapes"]);
    let std = labels_with_library("using std.$0\n");
    assert!(std.iter().any(|m| m == "linalg"), "{std:?}");
    assert!(!std.iter().any(|m| m.contains('.')), "{std:?}");
}

#[test]
fn an_import_completes_the_modules_functions_not_yet_named() {
    assert_eq!(
        labels_with_library("import lib.shapes: $0\n"),
        ["area!", "perimeter!"]
    );
    assert_eq!(
        labels_with_library("import lib.shapes: area!, $0\n"),
        ["perimeter!"]
    );
}

#[test]
fn imported_functions_complete_by_the_names_calls_use() {
    let names =
        labels_with_library("using lib.shapes\nfunction f(a::f64, w::f64)\n    ar$0\nend\n");
    assert_eq!(names, ["area!"]);
    // Not imported: not offered.
    let names = labels_with_library("function f(a::f64, w::f64)\n    ar$0\nend\n");
    assert!(names.is_empty(), "{names:?}");
}

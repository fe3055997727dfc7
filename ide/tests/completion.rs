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

//! An index out of range in a checked build returns an `Err` that names the
//! `.nil` file, line and column, what was indexed, the 1-based index and
//! the length (what Julia's `BoundsError` tells), and leaves the arguments
//! as they were passed; `@inbounds` keeps Rust's panic
//! (`tests/nil/index_errors.nil`).

use nilang::Check;
use nilang::ndarray::Array2;
use nilang_tests::index_errors as ie;

#[test]
fn an_index_past_the_end_or_zero_is_an_error_with_its_place() {
    let x = [1.0, 2.0];
    for (i, line_col) in [(3, "5:12"), (0, "5:12"), (-1, "5:12")] {
        let mut y = 0.5;
        let err = ie::pick(&mut y, &x, i).unwrap_err();
        assert_eq!(err.check, Check::Index, "{err}");
        assert_eq!(
            format!("{}:{}", err.location.line, err.location.column),
            line_col
        );
        assert_eq!(err.location.file, "tests/nil/index_errors.nil");
        assert_eq!(err.what, "`x` has 2 elements");
        assert_eq!(err.expected, "an index in 1:2");
        assert_eq!(err.found, i.to_string());
        assert_eq!(y, 0.5);
    }
    let mut y = 0.5;
    ie::pick(&mut y, &x, 2).unwrap();
    assert_eq!(y, 2.5);
    let shown = ie::pick(&mut y, &x, 3).unwrap_err().to_string();
    assert_eq!(
        shown,
        "tests/nil/index_errors.nil:5:12: index out of range: `x` has 2 elements (expected an index in 1:2, found 3)"
    );
}

#[test]
fn a_matrix_names_the_axis() {
    let a = Array2::from_shape_fn((2, 3), |(i, j)| (i * 3 + j) as f64);
    let mut y = 0.0;
    let err = ie::pick_matrix(&mut y, a.view(), 3, 1).unwrap_err();
    assert_eq!(err.what, "`A` has 2 rows");
    let err = ie::pick_matrix(&mut y, a.view(), 1, 4).unwrap_err();
    assert_eq!(err.what, "`A` has 3 columns");
    assert_eq!(err.found, "4");
    ie::pick_matrix(&mut y, a.view(), 2, 3).unwrap();
    assert_eq!(y, 5.0);
}

#[test]
fn a_failure_after_writes_puts_the_array_back_in_the_call_uncall_and_gradient() {
    let x0 = vec![0.1, 0.7, 1e16];
    let mut x = x0.clone();
    let err = ie::add_all_then_at(&mut x, 4).unwrap_err();
    assert_eq!(err.check, Check::Index);
    assert_eq!(err.location.line, 17);
    assert_eq!(x, x0);
    let err = ie::uncall_add_all_then_at(&mut x, 4).unwrap_err();
    assert_eq!(err.check, Check::Index);
    assert_eq!(x, x0);

    let x = [1.0, 2.0];
    let (mut y, mut y_bar, mut x_bar) = (0.5, 1.0, vec![0.0; 2]);
    let err = ie::pick_grad(&mut y, &mut y_bar, &x, &mut x_bar, 3).unwrap_err();
    assert_eq!(err.check, Check::Index);
    assert_eq!((y, y_bar, x_bar.as_slice()), (0.5, 1.0, &[0.0, 0.0][..]));
}

#[test]
fn inbounds_keeps_rusts_panic() {
    let x = [1.0, 2.0];
    let mut y = 0.0;
    let caught = std::panic::catch_unwind(move || ie::pick_inbounds(&mut y, &x, 3));
    assert!(caught.is_err());
}

#[test]
fn a_loop_window_is_checked_once_and_fails_where_the_loop_would() {
    let x = [1.0, 2.0, 3.0];
    // (n, o): the index a plain loop would have failed at first.
    for (n, o, index) in [(4, 0, 4), (3, 1, 4), (2, -1, 0), (3, 5, 6)] {
        let mut y = 0.5;
        let err = ie::window_sum(&mut y, &x, n, o).unwrap_err();
        assert_eq!(err.check, Check::Index, "{err}");
        assert_eq!((err.location.line, err.location.column), (27, 16), "{err}");
        assert_eq!(err.what, "`x` has 3 elements");
        assert_eq!(err.found, index.to_string(), "n = {n}, o = {o}");
        assert_eq!(y, 0.5);
    }
    // Walking down from `n + o`.
    for (n, o, index) in [(4, 0, 4), (3, -1, 0), (2, 2, 4)] {
        let mut y = 0.5;
        let err = ie::window_sum_down(&mut y, &x, n, o).unwrap_err();
        assert_eq!((err.check, err.location.line), (Check::Index, 34), "{err}");
        assert_eq!(err.found, index.to_string(), "n = {n}, o = {o}");
        assert_eq!(y, 0.5);
    }
    // The inverse walks the other way, and fails where its own walk
    // leaves the vector first.
    for (n, o, index) in [(3, 5, 8), (2, -1, 0)] {
        let mut y = 0.5;
        let err = ie::uncall_window_sum(&mut y, &x, n, o).unwrap_err();
        assert_eq!(err.found, index.to_string(), "~: n = {n}, o = {o}");
        assert_eq!(y, 0.5);
    }
    for (n, o, index) in [(5, -2, -1), (2, 2, 4)] {
        let mut y = 0.5;
        let err = ie::uncall_window_sum_down(&mut y, &x, n, o).unwrap_err();
        assert_eq!(err.found, index.to_string(), "~ down: n = {n}, o = {o}");
        assert_eq!(y, 0.5);
    }
    let mut y = 0.5;
    ie::window_sum(&mut y, &x, 2, 1).unwrap();
    assert_eq!(y, 5.5);
    ie::window_sum_down(&mut y, &x, 3, 0).unwrap();
    assert_eq!(y, 11.5);
    // An empty range reads nothing and checks nothing.
    ie::window_sum(&mut y, &x, 0, 10).unwrap();
    assert_eq!(y, 11.5);
}

#[test]
fn a_matrix_column_index_is_checked() {
    let a = Array2::from_shape_fn((2, 3), |(i, j)| (i * 3 + j) as f64);
    let mut y = vec![0.5, 0.25];
    for j in [0, 4] {
        let err = ie::add_column(&mut y, a.view(), j).unwrap_err();
        assert_eq!(err.check, Check::Index, "{err}");
        assert_eq!(err.what, "`A` has 3 columns");
        assert_eq!(err.found, j.to_string());
        assert_eq!((err.location.line, err.location.column), (40, 16), "{err}");
        assert_eq!(y, [0.5, 0.25]);
    }
    ie::add_column(&mut y, a.view(), 2).unwrap();
    assert_eq!(y, [1.5, 4.25]);
}

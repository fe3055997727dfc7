//! Element aliasing (`tests/nil/aliasing.nil`): an instruction or call whose
//! places turn out to be one array element stops with `Check::Alias`,
//! naming the `.nil` location, the places and the index values, forwards,
//! backwards and in the gradient; distinct indices run as before.

use nilang::Check;
use nilang::ndarray::Array2;
use nilang_tests::aliasing as a;

fn alias_error(err: nilang::Error, line: u32, what: &str, found: &str) {
    assert_eq!(err.check, Check::Alias, "{err}");
    assert_eq!(err.location.file, "tests/nil/aliasing.nil");
    assert_eq!((err.location.line, err.location.column), (line, 5), "{err}");
    assert_eq!(err.what, what);
    assert_eq!(err.found, found);
}

#[test]
fn an_element_added_to_itself_is_an_error_forwards_backwards_and_in_the_gradient() {
    let mut y = vec![1.0, 2.0];
    let err = a::alias_add(&mut y, 1, 1).unwrap_err();
    alias_error(
        err,
        5,
        "`y[i]` and `y[j]` must not overlap in `y`",
        "i = 1, j = 1",
    );
    assert_eq!(y, [1.0, 2.0], "nothing ran");
    let err = a::uncall_alias_add(&mut y, 2, 2).unwrap_err();
    assert_eq!(err.check, Check::Alias);
    assert_eq!(y, [1.0, 2.0]);
    let mut g = vec![1.0, 1.0];
    let err = a::alias_add_grad(&mut y, &mut g, 1, 1).unwrap_err();
    assert_eq!(err.check, Check::Alias);
    assert_eq!(g, [1.0, 1.0]);
    // Distinct elements: the instruction and its inverse as before.
    a::alias_add(&mut y, 1, 2).unwrap();
    assert_eq!(y, [3.0, 2.0]);
    a::uncall_alias_add(&mut y, 1, 2).unwrap();
    assert_eq!(y, [1.0, 2.0]);
    let mut g = vec![1.0, 0.0];
    a::alias_add_grad(&mut y, &mut g, 1, 2).unwrap();
    assert_eq!(g, [1.0, 1.0]);
}

#[test]
fn rot_swap_and_a_call_on_one_element_are_errors() {
    let mut y = vec![1.0, 2.0, 3.0];
    let err = a::alias_rot(&mut y, 2, 2, 0.5).unwrap_err();
    alias_error(
        err,
        9,
        "`y[i]` and `y[j]` must not overlap in `y`",
        "i = 2, j = 2",
    );
    let err = a::alias_swap(&mut y, 3, 3).unwrap_err();
    assert_eq!(err.check, Check::Alias);
    let err = a::alias_call(&mut y, 1, 1).unwrap_err();
    alias_error(
        err,
        21,
        "`y[i]` and `y[j]` must not overlap in `y`",
        "i = 1, j = 1",
    );
    assert_eq!(y, [1.0, 2.0, 3.0]);
    a::alias_swap(&mut y, 1, 3).unwrap();
    assert_eq!(y, [3.0, 2.0, 1.0]);
    a::alias_call(&mut y, 1, 2).unwrap();
    assert_eq!(y, [5.0, 2.0, 1.0]);
    a::uncall_alias_call(&mut y, 1, 2).unwrap();
    assert_eq!(y, [3.0, 2.0, 1.0]);
}

#[test]
fn matrix_elements_and_a_column_against_its_own_element() {
    let mut m = Array2::from_shape_vec((2, 2), vec![1.0, 2.0, 3.0, 4.0]).unwrap();
    let err = a::alias_matrix(m.view_mut(), 1, 2, 2).unwrap_err();
    alias_error(
        err,
        26,
        "`A[i,k]` and `A[i,j]` must not overlap in `A`",
        "k = 2, j = 2",
    );
    a::alias_matrix(m.view_mut(), 1, 1, 2).unwrap();
    assert_eq!(m[[0, 1]], 3.0);
    let err = a::alias_column(m.view_mut(), 2, 1, 1).unwrap_err();
    alias_error(
        err,
        38,
        "`A[:,j]` and `A[i,k]` must not overlap in `A`",
        "j = 1, k = 1",
    );
    a::alias_column(m.view_mut(), 2, 1, 2).unwrap();
    assert_eq!(m.column(0).to_vec(), [1.0 + 4.0, 3.0 + 4.0]);
}

#[test]
fn neighbours_need_no_check_and_an_index_read_from_its_array_has_one() {
    let mut y = vec![1.0, 2.0];
    a::neighbours(&mut y, 1).unwrap();
    assert_eq!(y, [1.0, 3.0]);
    let mut v = vec![1, 1];
    let err = a::alias_indirect(&mut v, 1).unwrap_err();
    alias_error(
        err,
        48,
        "`y[y[i]]` and `y[i]` must not overlap in `y`",
        "y[i] = 1, i = 1",
    );
    a::alias_indirect(&mut v, 2).unwrap();
    assert_eq!(v, [2, 1]);
}

//! Names that look like generated ones but are not (`nil/names.nil`):
//! they compile, and each reaches the variable it names.

use nilang_tests::names as n;

#[test]
fn a_lone_bar_name_is_an_ordinary_parameter() {
    let (mut y, mut y_bar, mut x_bar_bar) = (1.0, 1.0, 0.0);
    n::lone_bar(&mut y, 2.5).unwrap();
    assert_eq!(y, 3.5);
    // Its own adjoint is `x_bar_bar`.
    n::lone_bar_grad(&mut y, &mut y_bar, 2.5, &mut x_bar_bar).unwrap();
    assert_eq!(x_bar_bar, 1.0);
}

#[test]
fn greek_bang_and_element_loop_names_run_both_ways() {
    let xs = [1.0, 2.0, 3.0];
    let mut y = 0.5;
    n::spelled(&mut y, 2.0, &xs).unwrap();
    assert_eq!(y, 0.5 + 2.0 * 6.0);
    n::uncall_spelled(&mut y, 2.0, &xs).unwrap();
    assert_eq!(y, 0.5);
    let mut y = 0.0;
    n::crate_name(&mut y, 4.0).unwrap();
    n::uncall_g(&mut y, 1.0).unwrap();
    n::h_adjoint(&mut y, 1.0).unwrap();
    assert_eq!(y, 6.0);
}

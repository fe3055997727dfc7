//! NiLang.jl's spellings read as NiLang.jl reads them (`nil/julia_forms.nil`):
//! `end` in an index, `a ↔ b`, imaginary literals; forwards, backwards and
//! gradients against central differences.

use nilang::ndarray::{Array2, array};
use nilang::{Complex, Stack};
use nilang_tests::julia_forms as j;

#[test]
fn end_is_the_last_position_of_its_dimension() {
    let x = [1.0, 2.0, 3.0, 4.0];
    let a: Array2<f64> = array![[1.0, 2.0, 5.0], [3.0, 4.0, 6.0]];
    let mut y = 0.5;
    j::last_elements(&mut y, &x, a.view()).unwrap();
    // x[end] x[end-1] + A[1, end]
    assert_eq!(y, 0.5 + 4.0 * 3.0 + 5.0);
    j::uncall_last_elements(&mut y, &x, a.view()).unwrap();
    assert_eq!(y, 0.5);
    // The gradient reaches exactly the elements `end` names.
    let (mut y, mut y_bar) = (0.0, 1.0);
    let mut x_bar = [0.0; 4];
    let mut a_bar = Array2::<f64>::zeros((2, 3));
    j::last_elements_grad(
        &mut y,
        &mut y_bar,
        &x,
        &mut x_bar,
        a.view(),
        a_bar.view_mut(),
    )
    .unwrap();
    assert_eq!(x_bar, [0.0, 0.0, 4.0, 3.0]);
    assert_eq!(a_bar, array![[0.0, 0.0, 1.0], [0.0, 0.0, 0.0]]);
}

#[test]
fn end_as_a_target_and_with_an_offset() {
    let x = [1.0, 2.0, 3.0];
    let mut z = [0.0, 10.0, 20.0];
    j::tail_sum(&mut z, &x).unwrap();
    assert_eq!(z, [0.0, 13.0, 25.0]);
    j::uncall_tail_sum(&mut z, &x).unwrap();
    assert_eq!(z, [0.0, 10.0, 20.0]);
}

#[test]
fn the_swap_arrow_swaps() {
    let (mut a, mut b) = (1.5, -2.0);
    j::swap_arrow(&mut a, &mut b).unwrap();
    assert_eq!((a, b), (-2.0, 1.5));
    j::uncall_swap_arrow(&mut a, &mut b).unwrap();
    assert_eq!((a, b), (1.5, -2.0));
}

#[test]
fn imaginary_literals() {
    let mut z = Complex::new(1.0, 0.0);
    j::imaginary_literal(&mut z, 0.25).unwrap();
    // z += x * 2im + 1im
    assert_eq!(z, Complex::new(1.0, 0.25 * 2.0 + 1.0));
    j::uncall_imaginary_literal(&mut z, 0.25).unwrap();
    assert_eq!(z, Complex::new(1.0, 0.0));
    // d(im z)/dx with the adjoint of z seeded on the imaginary part: 2.
    let mut z = Complex::new(0.0, 0.0);
    let mut z_bar = Complex::new(0.0, 1.0);
    let mut x_bar = 0.0;
    j::imaginary_literal_grad(&mut z, &mut z_bar, 0.25, &mut x_bar).unwrap();
    assert_eq!(x_bar, 2.0);
}

#[test]
fn destructuring_allocations() {
    let a: Array2<f64> = array![[1.0, 2.0, 5.0], [3.0, 4.0, 6.0]];
    let mut y = 0.0;
    j::destructured(&mut y, a.view(), 1.5).unwrap();
    // m n p q = 2 * 3 * 1.5 * 3.0
    assert_eq!(y, 27.0);
    j::uncall_destructured(&mut y, a.view(), 1.5).unwrap();
    assert_eq!(y, 0.0);
    // d/dx (6 * x * 2x) = 24x
    let (mut y, mut y_bar, mut x_bar) = (0.0, 1.0, 0.0);
    let mut a_bar = Array2::<f64>::zeros((2, 3));
    j::destructured_grad(
        &mut y,
        &mut y_bar,
        a.view(),
        a_bar.view_mut(),
        1.5,
        &mut x_bar,
    )
    .unwrap();
    assert_eq!(x_bar, 36.0);
}

#[test]
fn for_each_element() {
    let xs = [1.0, -2.0, 3.0];
    let mut y = 1.0;
    j::sum_of_squares(&mut y, &xs).unwrap();
    assert_eq!(y, 15.0);
    j::uncall_sum_of_squares(&mut y, &xs).unwrap();
    assert_eq!(y, 1.0);
    let (mut y, mut y_bar) = (0.0, 1.0);
    let mut xs_bar = [0.0; 3];
    j::sum_of_squares_grad(&mut y, &mut y_bar, &xs, &mut xs_bar).unwrap();
    assert_eq!(xs_bar, [2.0, -4.0, 6.0]);
    // A body that changes its copy and restores it; its gradient against
    // central differences.
    let c = 0.5;
    let mut y = 0.0;
    j::shifted_products(&mut y, &xs, c).unwrap();
    assert_eq!(y, xs.iter().map(|v| (v + c) * c).sum::<f64>());
    let (mut y, mut y_bar) = (0.0, 1.0);
    let (mut xs_bar, mut c_bar) = ([0.0; 3], 0.0);
    j::shifted_products_grad(&mut y, &mut y_bar, &xs, &mut xs_bar, c, &mut c_bar).unwrap();
    assert_eq!(xs_bar, [c; 3]);
    let loss = |p: &[f64]| {
        let mut y = 0.0;
        j::shifted_products(&mut y, &p[..3], p[3]).unwrap();
        y
    };
    let point = [xs[0], xs[1], xs[2], c];
    let gradient = [xs_bar[0], xs_bar[1], xs_bar[2], c_bar];
    nilang::check_gradient(loss, &point, &gradient, 1e-6, 1e-8).unwrap();
}

#[test]
fn for_each_over_a_column_and_a_row() {
    let a: Array2<f64> = array![[1.0, 2.0, 5.0], [3.0, 4.0, 6.0]];
    let mut y = 0.0;
    j::column_and_row(&mut y, a.view(), 2, 1).unwrap();
    // column 2: 2² + 4²; row 1: 3 (1 + 2 + 5)
    assert_eq!(y, 20.0 + 24.0);
    j::uncall_column_and_row(&mut y, a.view(), 2, 1).unwrap();
    assert_eq!(y, 0.0);
    let (mut y, mut y_bar) = (0.0, 1.0);
    let mut a_bar = Array2::<f64>::zeros((2, 3));
    j::column_and_row_grad(&mut y, &mut y_bar, a.view(), a_bar.view_mut(), 2, 1).unwrap();
    assert_eq!(a_bar, array![[3.0, 3.0 + 4.0, 3.0], [0.0, 8.0, 0.0]]);
}

#[test]
fn for_each_over_a_stack_and_its_top() {
    let s = Stack::from_vec(vec![1.0, -2.0, 3.0]);
    let mut y = 0.5;
    j::stack_values(&mut y, &s).unwrap();
    assert_eq!(y, 0.5 + 14.0 + 30.0);
    j::uncall_stack_values(&mut y, &s).unwrap();
    assert_eq!(y, 0.5);
    // The adjoint of each value read lands on the adjoint stack, in place.
    let (mut y, mut y_bar) = (0.0, 1.0);
    let mut s_bar = Stack::from_vec(vec![0.0; 3]);
    j::stack_values_grad(&mut y, &mut y_bar, &s, &mut s_bar).unwrap();
    assert_eq!(s_bar.as_slice(), &[2.0, -4.0, 6.0 + 10.0]);
}

#[test]
fn moves_into_empty_slots_and_stacks() {
    let x = 1.5;
    let mut s = Stack::from_vec(vec![7.0]);
    let mut y = 0.25;
    j::moves(&mut y, x, &mut s).unwrap();
    // y += 2x, then += 2x · x; 2x stays on the stack.
    assert_eq!(y, 0.25 + 3.0 + 4.5);
    assert_eq!(s.as_slice(), &[7.0, 3.0]);
    j::uncall_moves(&mut y, x, &mut s).unwrap();
    assert_eq!((y, s.as_slice()), (0.25, &[7.0][..]));
    // d y / dx = 2 + 4x; the adjoint seeded on the pushed 2x adds 2 · 0.5.
    let mut s = Stack::from_vec(vec![7.0]);
    let mut s_bar = Stack::from_vec(vec![0.0]);
    let (mut y, mut y_bar, mut x_bar) = (0.0, 1.0, 0.0);
    j::moves(&mut y, x, &mut s).unwrap();
    s_bar.push(0.5);
    j::moves_adjoint(&mut y, &mut y_bar, x, &mut x_bar, &mut s, &mut s_bar).unwrap();
    assert_eq!(x_bar, 2.0 + 4.0 * x + 1.0);
    assert_eq!((s.as_slice(), s_bar.as_slice()), (&[7.0][..], &[0.0][..]));
}

#[test]
fn tuple_variables_forwards_backwards_and_differentiated() {
    let (x, z) = (1.5, -0.5);
    let mut y = 0.25;
    j::tuple_variable(&mut y, x, z).unwrap();
    let expected = |x: f64, z: f64| (x * z) * (x + z) + (2.0 * x + z) + (x * z) - 2.0 * (x + z);
    assert!((y - 0.25 - expected(x, z)).abs() < 1e-12, "{y}");
    j::uncall_tuple_variable(&mut y, x, z).unwrap();
    assert!((y - 0.25).abs() < 1e-12, "{y}");
    let (mut y, mut y_bar) = (0.0, 1.0);
    let (mut x_bar, mut z_bar) = (0.0, 0.0);
    j::tuple_variable_grad(&mut y, &mut y_bar, x, &mut x_bar, z, &mut z_bar).unwrap();
    let loss = |p: &[f64]| {
        let mut y = 0.0;
        j::tuple_variable(&mut y, p[0], p[1]).unwrap();
        y
    };
    nilang::check_gradient(loss, &[x, z], &[x_bar, z_bar], 1e-6, 1e-9).unwrap();
}

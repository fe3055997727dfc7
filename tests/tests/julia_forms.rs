//! NiLang.jl's spellings read as NiLang.jl reads them (`nil/julia_forms.nil`):
//! `end` in an index, `a ↔ b`, imaginary literals; forwards, backwards and
//! gradients against central differences.

use nilang::Complex;
use nilang::ndarray::{Array2, array};
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

//! `tests/nil/julia_spellings.nil`: NiLang.jl's `zero(Complex{T})`,
//! `one(ULogarithmic{Fixed43})` and `zero(Tropical{f64})`, accepted as
//! values of the type they name,
//! compile and run forwards, backwards and (where differentiable) in the
//! gradient.

use nilang::Complex;
use nilang_tests::julia_spellings as j;

#[test]
fn a_complex_zero_by_its_type() {
    let a = Complex::new(0.5, -1.5);
    let mut r = 1.0;
    j::js_complex(&mut r, a, 2.0).unwrap();
    assert_eq!(r, 2.0);
    j::uncall_js_complex(&mut r, a, 2.0).unwrap();
    assert_eq!(r, 1.0);
    let (mut r_bar, mut a_bar, mut x_bar) = (1.0, Complex::new(0.0, 0.0), 0.0);
    j::js_complex_grad(&mut r, &mut r_bar, a, &mut a_bar, 2.0, &mut x_bar).unwrap();
    assert_eq!((a_bar, x_bar), (Complex::new(2.0, 0.0), 0.5));
}

#[test]
fn a_complex_zero_of_a_type_parameter() {
    let a = Complex::new(3.0f32, 4.0);
    let mut r = 0.0f32;
    j::js_generic(&mut r, a).unwrap();
    assert_eq!(r, 25.0);
    j::uncall_js_generic(&mut r, a).unwrap();
    assert_eq!(r, 0.0);
}

#[test]
fn a_log_number_one_by_its_type() {
    let x = nilang::fixed::from_f64(2.5);
    let mut r = 0.0;
    j::js_ulog(&mut r, x).unwrap();
    assert_eq!(r, 1.0);
    j::uncall_js_ulog(&mut r, x).unwrap();
    assert_eq!(r, 0.0);
}

#[test]
fn a_tropical_zero_and_one_by_their_type() {
    let xs = [2.0, -1.0, 3.5].map(nilang::Tropical::new);
    let mut r = 0.25;
    j::js_tropical(&mut r, &xs).unwrap();
    // The maximum 3.5, plus the tropical one's value 0.
    assert_eq!(r, 3.75);
    j::uncall_js_tropical(&mut r, &xs).unwrap();
    assert_eq!(r, 0.25);
}

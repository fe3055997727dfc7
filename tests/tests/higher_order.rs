//! Reversible functions as values (`nil/higher_order.nil`): templates
//! instantiated with functions, run forwards, backwards and through their
//! gradients, against plain-Rust values and central differences.

use nilang::Stack;
use nilang_tests::higher_order as h;

const RTOL: f64 = 1e-6;
const ATOL: f64 = 1e-9;

#[test]
fn a_constant_array_through_a_template_that_only_reads_it() {
    let xs = [0.5, -1.5, 2.0];
    let mut ys = [1.0, 0.0, -1.0];
    h::squares_of_constants(&mut ys, &xs).unwrap();
    assert_eq!(ys, [1.25, 2.25, 3.0]);
    h::uncall_squares_of_constants(&mut ys, &xs).unwrap();
    assert_eq!(ys, [1.0, 0.0, -1.0]);
    // No adjoint for `xs`: the gradient takes `ys` and its adjoint only.
    let mut ys_bar = [1.0; 3];
    h::squares_of_constants_grad(&mut ys, &mut ys_bar, &xs).unwrap();
    assert_eq!(ys_bar, [1.0; 3]);
}

#[test]
fn map_with_a_function() {
    let xs = [0.5, -1.5, 2.0];
    let mut ys = [1.0, 0.0, -1.0];
    h::squares(&mut ys, &xs).unwrap();
    assert_eq!(ys, [1.25, 2.25, 3.0]);
    h::uncall_squares(&mut ys, &xs).unwrap();
    assert_eq!(ys, [1.0, 0.0, -1.0]);
    // d Σ ys / d xs = 2 xs, through the instance's adjoint.
    let mut ys_bar = [1.0; 3];
    let mut xs_bar = [0.0; 3];
    h::squares_grad(&mut ys, &mut ys_bar, &xs, &mut xs_bar).unwrap();
    assert_eq!(xs_bar, [1.0, -3.0, 4.0]);
    // The instance is a function of its own, callable from Rust.
    let mut ys = [0.0; 3];
    h::map_with_square(&mut ys, &xs).unwrap();
    assert_eq!(ys, [0.25, 2.25, 4.0]);
}

#[test]
fn mapfoldl_with_a_function_and_its_gradient() {
    let xs = [0.3, -1.2, 2.0, 0.7];
    let mut out = 0.5;
    h::sum_of_sines(&mut out, &xs).unwrap();
    let expected = 0.5 + xs.iter().map(|x: &f64| x.sin()).sum::<f64>();
    assert!((out - expected).abs() < 1e-12);
    h::uncall_sum_of_sines(&mut out, &xs).unwrap();
    assert!((out - 0.5).abs() < 1e-12);
    let (mut o, mut o_bar) = (0.0, 1.0);
    let mut xs_bar = [0.0; 4];
    h::sum_of_sines_grad(&mut o, &mut o_bar, &xs, &mut xs_bar).unwrap();
    let loss = |p: &[f64]| {
        let mut o = 0.0;
        let p = p.to_vec();
        h::sum_of_sines(&mut o, &p).unwrap();
        o
    };
    nilang::check_gradient(loss, &xs, &xs_bar, RTOL, ATOL).unwrap();
}

#[test]
fn a_template_passing_its_function_on() {
    let xs = [1.0, 2.0, -3.0];
    let mut out = 0.0;
    h::twice_sum_of_squares(&mut out, &xs).unwrap();
    assert_eq!(out, 28.0);
    let (mut o, mut o_bar) = (0.0, 1.0);
    let mut xs_bar = [0.0; 3];
    h::twice_sum_of_squares_grad(&mut o, &mut o_bar, &xs, &mut xs_bar).unwrap();
    assert_eq!(xs_bar, [4.0, 8.0, -12.0]);
}

#[test]
fn filter_into_a_stack_and_back() {
    let xs = [0.5, -1.0, 2.0, 0.0, 3.5];
    let mut out = Stack::from_vec(vec![9.0]);
    h::positives(&mut out, &xs).unwrap();
    assert_eq!(out.as_slice(), &[9.0, 0.5, 2.0, 3.5]);
    h::uncall_positives(&mut out, &xs).unwrap();
    assert_eq!(out.as_slice(), &[9.0]);
}

#[test]
fn a_template_of_another_file() {
    use nilang_tests::higher_order_use as u;
    let xs = [0.25, -2.0];
    let mut ys = [1.0, 1.0];
    u::sines(&mut ys, &xs).unwrap();
    assert_eq!(ys, [1.0 + 0.25f64.sin(), 1.0 + (-2.0f64).sin()]);
    u::triples(&mut ys, &xs).unwrap();
    u::uncall_triples(&mut ys, &xs).unwrap();
    u::uncall_sines(&mut ys, &xs).unwrap();
    assert!(ys.iter().all(|y| (y - 1.0).abs() < 1e-15), "{ys:?}");
    // Both instances live with the template, in `higher_order`.
    let mut ys_bar = [1.0, 1.0];
    let mut xs_bar = [0.0, 0.0];
    h::map_with_triple_grad(&mut ys, &mut ys_bar, &xs, &mut xs_bar).unwrap();
    assert_eq!(xs_bar, [3.0, 3.0]);
}

#[test]
fn foldl_with_a_reversible_operator_and_a_differently_named_type_parameter() {
    // `add_sin!` is generic in `U`; `foldl!` takes `Fn<T, T>`.
    let xs = [0.3, -1.2, 2.0];
    let mut acc = 1.0;
    h::folded_sines(&mut acc, &xs).unwrap();
    assert!((acc - (1.0 + xs.iter().map(|x: &f64| x.sin()).sum::<f64>())).abs() < 1e-12);
    h::uncall_folded_sines(&mut acc, &xs).unwrap();
    assert!((acc - 1.0).abs() < 1e-12);
    let (mut a, mut a_bar) = (0.0, 1.0);
    let mut xs_bar = [0.0; 3];
    h::folded_sines_grad(&mut a, &mut a_bar, &xs, &mut xs_bar).unwrap();
    for (g, x) in xs_bar.iter().zip(&xs) {
        assert!((g - x.cos()).abs() < 1e-12);
    }
}

#[test]
fn a_partial_application_captures_values_and_differentiates_them() {
    let xs = [0.5, -1.5, 2.0];
    let (c, d) = (3.0, -0.25);
    let mut ys = [1.0, 0.0, -1.0];
    h::affine_each(&mut ys, &xs, c, d).unwrap();
    assert_eq!(ys, [1.0 + 1.5 - 0.25, -4.5 - 0.25, -1.0 + 6.0 - 0.25]);
    h::uncall_affine_each(&mut ys, &xs, c, d).unwrap();
    assert_eq!(ys, [1.0, 0.0, -1.0]);
    // The gradient reaches the captured values: d Σ w_i ys_i / d c =
    // Σ w_i xs_i, / d d = Σ w_i.
    let w = [1.0, 2.0, -1.0];
    let mut ys_bar = w;
    let (mut xs_bar, mut c_bar, mut d_bar) = ([0.0; 3], 0.0, 0.0);
    h::affine_each_grad(
        &mut ys,
        &mut ys_bar,
        &xs,
        &mut xs_bar,
        c,
        &mut c_bar,
        d,
        &mut d_bar,
    )
    .unwrap();
    assert_eq!(xs_bar, [3.0, 6.0, -3.0]);
    let loss = |p: &[f64]| {
        let mut ys = [1.0, 0.0, -1.0];
        h::affine_each(&mut ys, &p[..3], p[3], p[4]).unwrap();
        ys.iter().zip(&w).map(|(y, w)| y * w).sum::<f64>()
    };
    let point = [xs[0], xs[1], xs[2], c, d];
    let gradient = [xs_bar[0], xs_bar[1], xs_bar[2], c_bar, d_bar];
    nilang::check_gradient(loss, &point, &gradient, RTOL, ATOL).unwrap();
    // The instance, callable from Rust: captured values last.
    let mut ys = [0.0; 3];
    h::map_with_affine_p3_4(&mut ys, &[1.0, 2.0, 3.0], 2.0, 1.0).unwrap();
    assert_eq!(ys, [3.0, 5.0, 7.0]);
}

#[test]
fn a_partial_application_passed_on_with_a_constant_captured() {
    let xs = [1.0, -2.0, 0.5];
    let c = 1.5;
    let mut out = 0.0;
    h::twice_scaled_squares(&mut out, &xs, c).unwrap();
    let once = c * xs.iter().map(|x| x * x).sum::<f64>();
    assert!((out - 2.0 * once).abs() < 1e-12, "{out}");
    h::uncall_twice_scaled_squares(&mut out, &xs, c).unwrap();
    assert!(out.abs() < 1e-12);
    // `c` is `Const` in `scaled_square!`: the gradient has no adjoint
    // for it; the elements get 2 · 2 c x.
    let (mut o, mut o_bar) = (0.0, 1.0);
    let mut xs_bar = [0.0; 3];
    h::twice_scaled_squares_grad(&mut o, &mut o_bar, &xs, &mut xs_bar, c).unwrap();
    assert_eq!(xs_bar, [6.0, -12.0, 3.0]);
}

#[test]
fn a_literal_captured() {
    let xs = [1.0, 2.0];
    let mut ys = [0.0, 10.0];
    h::shifted_each(&mut ys, &xs, 0.5).unwrap();
    assert_eq!(ys, [2.5, 14.5]);
}

#[test]
fn a_recursive_template_with_a_partial_application() {
    let (x, c, d) = (0.5, 2.0, -1.0);
    let mut y = 1.0;
    h::repeated_affine(&mut y, x, c, d, 3).unwrap();
    assert_eq!(y, 1.0 + 3.0 * (c * x + d));
    h::uncall_repeated_affine(&mut y, x, c, d, 3).unwrap();
    assert_eq!(y, 1.0);
    let (mut y, mut y_bar) = (0.0, 1.0);
    let (mut x_bar, mut c_bar, mut d_bar) = (0.0, 0.0, 0.0);
    h::repeated_affine_grad(
        &mut y, &mut y_bar, x, &mut x_bar, c, &mut c_bar, d, &mut d_bar, 3,
    )
    .unwrap();
    assert_eq!((x_bar, c_bar, d_bar), (3.0 * c, 3.0 * x, 3.0));
}

#[test]
fn a_partial_application_for_a_function_parameter_that_is_not_first() {
    let (x, c) = (2.0, 3.0);
    let mut y = 0.5;
    h::affine_last(&mut y, x, c).unwrap();
    assert_eq!(y, 0.5 + c * x + 1.0);
    let (mut y, mut y_bar, mut x_bar, mut c_bar) = (0.0, 1.0, 0.0, 0.0);
    h::affine_last_grad(&mut y, &mut y_bar, x, &mut x_bar, c, &mut c_bar).unwrap();
    assert_eq!((x_bar, c_bar), (c, x));
}

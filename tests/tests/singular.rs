//! Derivatives at singular points (`tests/nil/singular.nil`): a zero
//! cotangent adds exactly nothing, so a gradient that is finite stays
//! finite where a local derivative is infinite (no `0 · inf = NaN`); at the
//! singular point of `sqrt`, `x^p` (0 < p < 1), `abs` and complex `abs`,
//! the adjoint is the subgradient 0 (docs/language.md).

use nilang::Complex;
use nilang_tests::singular as s;

/// `x̄` of `f` at `x` with `ȳ`, `l̄` seeded (`l += 2x` beside `y += f(x)`).
fn real_grad(
    grad: impl Fn(&mut f64, &mut f64, &mut f64, &mut f64, f64, &mut f64) -> nilang::Result,
    x: f64,
    y_bar: f64,
    l_bar: f64,
) -> f64 {
    let (mut y, mut l) = (0.0, 0.0);
    let (mut y_bar, mut l_bar, mut x_bar) = (y_bar, l_bar, 0.0);
    grad(&mut y, &mut y_bar, &mut l, &mut l_bar, x, &mut x_bar).unwrap();
    x_bar
}

/// `z̄` of `y += abs(z); l += 2z` at `z`, with `ȳ` and `l̄ = (l_re, 0)`.
fn complex_grad(z: Complex<f64>, y_bar: f64, l_re: f64) -> Complex<f64> {
    let (mut y, mut l) = (0.0, Complex::new(0.0, 0.0));
    let (mut y_bar, mut l_bar) = (y_bar, Complex::new(l_re, 0.0));
    let mut z_bar = Complex::new(0.0, 0.0);
    s::sg_cabs_grad(&mut y, &mut y_bar, &mut l, &mut l_bar, z, &mut z_bar).unwrap();
    z_bar
}

#[test]
fn a_zero_cotangent_adds_nothing_at_a_singular_point() {
    // y's adjoint zero, the loss depends on x through l = 2x only.
    assert_eq!(real_grad(s::sg_sqrt_grad, 0.0, 0.0, 1.0), 2.0);
    assert_eq!(real_grad(s::sg_abs_grad, 0.0, 0.0, 1.0), 2.0);
    assert_eq!(real_grad(s::sg_log_grad, 0.0, 0.0, 1.0), 2.0);
    for p in [0.5, 0.25, 1.0, 1.5] {
        let pow = |y: &mut f64, yb: &mut f64, l: &mut f64, lb: &mut f64, x: f64, xb: &mut f64| {
            s::sg_pow_grad(y, yb, l, lb, x, xb, p, &mut 0.0)
        };
        assert_eq!(real_grad(pow, 0.0, 0.0, 1.0), 2.0, "p = {p}");
    }
    let z_bar = complex_grad(Complex::new(0.0, 0.0), 0.0, 1.0);
    assert_eq!(z_bar, Complex::new(2.0, 0.0));
}

#[test]
fn at_the_singular_point_the_adjoint_is_the_subgradient_zero() {
    assert_eq!(real_grad(s::sg_sqrt_grad, 0.0, 1.0, 0.0), 0.0);
    assert_eq!(real_grad(s::sg_abs_grad, 0.0, 1.0, 0.0), 0.0);
    for (p, expect) in [(0.5, 0.0), (0.25, 0.0), (1.0, 1.0), (1.5, 0.0), (2.5, 0.0)] {
        let mut p_bar = 0.0;
        let (mut y, mut l, mut y_bar, mut l_bar, mut x_bar) = (0.0, 0.0, 1.0, 0.0, 0.0);
        s::sg_pow_grad(
            &mut y, &mut y_bar, &mut l, &mut l_bar, 0.0, &mut x_bar, p, &mut p_bar,
        )
        .unwrap();
        assert_eq!(x_bar, expect, "d x^{p}/dx at 0");
        // d x^p / dp = x^p ln x, which tends to 0 at x = 0.
        assert_eq!(p_bar, 0.0, "d 0^p/dp, p = {p}");
    }
    let z_bar = complex_grad(Complex::new(0.0, 0.0), 1.0, 0.0);
    assert_eq!(z_bar, Complex::new(0.0, 0.0));
}

#[test]
fn away_from_the_singular_point_the_derivatives_are_unchanged() {
    let x = 0.64;
    assert!((real_grad(s::sg_sqrt_grad, x, 1.0, 0.0) - 0.625).abs() < 1e-12);
    assert_eq!(real_grad(s::sg_abs_grad, -x, 1.0, 0.0), -1.0);
    let mut p_bar = 0.0;
    let (mut y, mut l, mut y_bar, mut l_bar, mut x_bar) = (0.0, 0.0, 1.0, 0.0, 0.0);
    s::sg_pow_grad(
        &mut y, &mut y_bar, &mut l, &mut l_bar, x, &mut x_bar, 0.5, &mut p_bar,
    )
    .unwrap();
    assert!((x_bar - 0.625).abs() < 1e-12);
    assert!((p_bar - 0.8 * x.ln()).abs() < 1e-12);
    let z = Complex::new(0.6, -0.8);
    let z_bar = complex_grad(z, 1.0, 0.0);
    assert!((z_bar - z).norm() < 1e-12, "{z_bar}");
}

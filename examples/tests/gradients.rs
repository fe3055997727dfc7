//! Gradients of the paper's programs from the generated reverse passes, the
//! issue's acceptance values, and agreement with central differences.

use nilang_examples::{arithmetic as a, bessel, complex, linalg, unitary};
use nilang_runtime::Complex;

#[test]
fn multiplier_gradient() {
    // out += a * b at (0, 2, 3) with loss `out`: (1, 3, 2).
    let (mut out, x, y) = (0.0_f64, 2.0, 3.0);
    let (mut gout, mut gx, mut gy) = (1.0_f64, 0.0, 0.0);
    a::multiplier_grad(&mut out, &mut gout, x, &mut gx, y, &mut gy).unwrap();
    assert_eq!((gout, gx, gy), (1.0, 3.0, 2.0));
    assert_eq!(out, 0.0, "the inputs are restored");
}

#[test]
fn bessel_derivative() {
    let (mut out, mut gout, mut gz) = (0.0_f64, 1.0_f64, 0.0_f64);
    bessel::ibesselj_grad(&mut out, &mut gout, 2, 1.0, &mut gz, 1e-8).unwrap();
    assert!((gz - 0.2102436158811326).abs() < 1e-9, "{gz}");
    assert_eq!(out, 0.0);
    assert_eq!(gout, 1.0);
}

#[test]
fn dot_and_umm_gradients_match_their_closed_forms() {
    let x = [1.0_f64, -2.0, 0.5];
    let y = [3.0_f64, 4.0, -1.0];
    let (mut out, mut gout) = (0.0_f64, 1.0_f64);
    let (mut gx, mut gy) = ([0.0; 3], [0.0; 3]);
    linalg::dot_grad(&mut out, &mut gout, &x, &mut gx, &y, &mut gy).unwrap();
    assert_eq!(gx, y);
    assert_eq!(gy, x);
    // umm! is orthogonal: the loss x[1] after it has gradient row 1 of U,
    // and U's rows have norm 1; the angles' gradient against differences.
    let theta = [0.1_f64, 0.2, 0.3, 0.4, 0.5, 0.6];
    let x0 = [1.0_f64, 2.0, 3.0, 4.0];
    let loss = |theta: &[f64], x0: &[f64]| {
        let mut x = x0.to_vec();
        unitary::umm(&mut x, theta).unwrap();
        x[0]
    };
    let mut xs = x0;
    let mut gx = [1.0_f64, 0.0, 0.0, 0.0];
    let mut gtheta = [0.0_f64; 6];
    unitary::umm_grad(&mut xs, &mut gx, &theta, &mut gtheta).unwrap();
    assert!(xs.iter().zip(&x0).all(|(a, b)| (a - b).abs() < 1e-12));
    let norm: f64 = gx.iter().map(|v| v * v).sum();
    assert!((norm - 1.0).abs() < 1e-12, "{gx:?}");
    let fd_theta = nilang_runtime::central_difference(|t| loss(t, &x0), &theta, 1e-6);
    let fd_x = nilang_runtime::central_difference(|x| loss(&theta, x), &x0, 1e-6);
    for (g, f) in gtheta.iter().zip(&fd_theta).chain(gx.iter().zip(&fd_x)) {
        assert!(
            (g - f).abs() < 1e-7,
            "{gtheta:?} vs {fd_theta:?}, {gx:?} vs {fd_x:?}"
        );
    }
}

#[test]
fn bessel_second_derivative_by_forward_over_reverse() {
    use nilang_runtime::num_dual::Dual64;
    // The gradient program on dual numbers: z carries the direction 1, so
    // the adjoint of z comes back as (dJ/dz, d2J/dz2).
    let mut out = Dual64::from(0.0);
    let mut gout = Dual64::from(1.0);
    let mut gz = Dual64::from(0.0);
    let z = Dual64::new(1.0, 1.0);
    bessel::ibesselj_grad(&mut out, &mut gout, 2, z, &mut gz, 1e-8).unwrap();
    assert!((gz.re - 0.2102436158811326).abs() < 1e-9, "{gz}");
    assert!((gz.eps - 0.1344668389145689).abs() < 1e-8, "{gz}");
}

#[test]
fn jacobian_in_one_sweep_with_vector_adjoints() {
    // umm! maps x to U x; two outputs (x[1], x[2]) at once with [f64; 2]
    // adjoints give two rows of U in one reverse pass.
    let theta = [0.1_f64, 0.2, 0.3, 0.4, 0.5, 0.6];
    let x0 = [1.0_f64, 2.0, 3.0, 4.0];
    let mut x = x0;
    let mut xbar = [[1.0, 0.0], [0.0, 1.0], [0.0, 0.0], [0.0, 0.0]];
    let mut tbar = [[0.0_f64; 2]; 6];
    unitary::umm_grad(&mut x, &mut xbar, &theta, &mut tbar).unwrap();
    for out in 0..2 {
        let f = |x: &[f64]| {
            let mut v = x.to_vec();
            unitary::umm(&mut v, &theta).unwrap();
            v[out]
        };
        let row: Vec<f64> = xbar.iter().map(|g| g[out]).collect();
        nilang_runtime::check_gradient(f, &x0, &row, 1e-6, 1e-8).unwrap();
        let f = |t: &[f64]| {
            let mut v = x0.to_vec();
            unitary::umm(&mut v, t).unwrap();
            v[out]
        };
        let row: Vec<f64> = tbar.iter().map(|g| g[out]).collect();
        nilang_runtime::check_gradient(f, &theta, &row, 1e-6, 1e-8).unwrap();
    }
}

/// The paper's complex logarithm (through |x| in an ancilla, log and angle)
/// differentiated as a complex function: at y = 2+3i, x = 2-i with the
/// adjoint of y seeded 3+3i, the adjoint of x is conj(1/x) (3+3i) = 1.8+0.6i.
#[test]
fn complex_log_adjoint() {
    let x = Complex::new(2.0_f64, -1.0);
    let (mut y, mut gy) = (Complex::new(2.0_f64, 3.0), Complex::new(3.0_f64, 3.0));
    let mut gx = Complex::new(0.0_f64, 0.0);
    complex::complex_log_grad(&mut y, &mut gy, x, &mut gx).unwrap();
    assert!((gx - Complex::new(1.8, 0.6)).norm() < 1e-12, "{gx}");
    assert!((y - Complex::new(2.0, 3.0)).norm() < 1e-12, "y restored");
    assert_eq!(gy, Complex::new(3.0, 3.0));
}

/// Uncalling the gradient program gives back the inputs and the adjoints as
/// they were seeded: the gradient is removed again.
#[test]
fn uncalling_the_gradient_program_restores_inputs_and_seeds() {
    // multiplier: seed (1, 0, 0), gradient (1, 3, 2).
    let (mut out, mut gout, mut gx, mut gy) = (0.5_f64, 1.0_f64, 0.0, 0.0);
    a::multiplier_grad(&mut out, &mut gout, 2.0, &mut gx, 3.0, &mut gy).unwrap();
    assert_eq!((gx, gy), (3.0, 2.0));
    a::uncall_multiplier_grad(&mut out, &mut gout, 2.0, &mut gx, 3.0, &mut gy).unwrap();
    assert_eq!((out, gout, gx, gy), (0.5, 1.0, 0.0, 0.0));

    // Bessel: a while loop and eleven ancillas.
    let (mut out, mut gout, mut gz) = (0.25_f64, 1.0_f64, 0.0_f64);
    bessel::ibesselj_grad(&mut out, &mut gout, 2, 1.0, &mut gz, 1e-8).unwrap();
    assert!((gz - 0.2102436158811326).abs() < 1e-9);
    bessel::uncall_ibesselj_grad(&mut out, &mut gout, 2, 1.0, &mut gz, 1e-8).unwrap();
    assert!(gz.abs() < 1e-12, "{gz}");
    assert_eq!((out, gout), (0.25, 1.0));

    // dot: arrays.
    let (x, y) = ([1.0_f64, -2.0, 0.5], [3.0_f64, 4.0, -1.0]);
    let (mut out, mut gout, mut gx, mut gy) = (0.0_f64, 1.0_f64, [0.0; 3], [0.0; 3]);
    linalg::dot_grad(&mut out, &mut gout, &x, &mut gx, &y, &mut gy).unwrap();
    assert_eq!(gx, y);
    linalg::uncall_dot_grad(&mut out, &mut gout, &x, &mut gx, &y, &mut gy).unwrap();
    assert_eq!((out, gout, gx, gy), (0.0, 1.0, [0.0; 3], [0.0; 3]));

    // The complex logarithm.
    let x = Complex::new(2.0_f64, -1.0);
    let (mut y, mut gy) = (Complex::new(2.0_f64, 3.0), Complex::new(3.0_f64, 3.0));
    let mut gx = Complex::new(0.0_f64, 0.0);
    complex::complex_log_grad(&mut y, &mut gy, x, &mut gx).unwrap();
    complex::uncall_complex_log_grad(&mut y, &mut gy, x, &mut gx).unwrap();
    assert!(gx.norm() < 1e-12, "{gx}");
    assert!((y - Complex::new(2.0, 3.0)).norm() < 1e-12);
    assert!((gy - Complex::new(3.0, 3.0)).norm() < 1e-12);
}

/// Without run-time checks the forward skips a final uncomputation of
/// freed ancillas, but the reverse pass must not: its adjoint rules carry
/// the ancillas' adjoints to the inputs. The gradients agree.
#[test]
fn unchecked_gradients_equal_checked_ones() {
    use nilang_examples::unchecked;
    for z in [0.3, 1.0, 4.5] {
        let (mut out, mut gout, mut gz) = (0.0_f64, 1.0_f64, 0.0_f64);
        bessel::ibesselj_grad(&mut out, &mut gout, 2, z, &mut gz, 1e-8).unwrap();
        let (mut out2, mut gout2, mut gz2) = (0.0_f64, 1.0_f64, 0.0_f64);
        unchecked::bessel::ibesselj_grad(&mut out2, &mut gout2, 2, z, &mut gz2, 1e-8).unwrap();
        assert!((gz - gz2).abs() < 1e-14, "z = {z}: {gz} vs {gz2}");
    }
    let (mut out, mut gout, mut gx, mut gy) = (0.0_f64, 1.0_f64, 0.0, 0.0);
    unchecked::arithmetic::multiplier_grad(&mut out, &mut gout, 2.0, &mut gx, 3.0, &mut gy)
        .unwrap();
    assert_eq!((gx, gy), (3.0, 2.0));
}

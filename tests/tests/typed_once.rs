//! The programs of `tests/nil/typed_once.nil`: valid programs the analysis
//! refused, or accepted and rustc then rejected, before types were decided
//! once in the analysis. Each runs forwards, backwards (its inputs come
//! back bit for bit), and where it is differentiable its gradient agrees
//! with central differences.

use nilang::{Complex, Fixed43, ULog};
use nilang_tests::typed_once as t;

/// Central difference of `f` at `x`.
fn central(f: impl Fn(f64) -> f64, x: f64) -> f64 {
    let h = 1e-6;
    (f(x + h) - f(x - h)) / (2.0 * h)
}

fn close(a: f64, b: f64) -> bool {
    (a - b).abs() <= 1e-6 * (1.0 + b.abs())
}

#[test]
fn inc_and_dec_of_fixed_point_and_complex_numbers() {
    let (x0, z0) = (nilang::fixed::from_f64(1.25), Complex::new(0.5, -2.0));
    let (mut x, mut z) = (x0, z0);
    t::t41_inc(&mut x, &mut z).unwrap();
    assert_eq!(x, x0 + Fixed43::from_num(2));
    assert_eq!(z, Complex::new(-0.5, -2.0));
    t::uncall_t41_inc(&mut x, &mut z).unwrap();
    assert_eq!((x, z), (x0, z0));
}

#[test]
fn gaussian_logarithms_over_fixed_point_logs_come_back_bit_for_bit() {
    let log = |v: f64| ULog::from_log(nilang::fixed::from_f64(v));
    let (x0, y, z) = (log(0.75), log(1.5), log(-0.25));
    let mut x = x0;
    t::t41_ulog_fixed(&mut x, y, z).unwrap();
    // x · (y + z) / (y - z), in values.
    let value = |u: ULog<Fixed43>| nilang::fixed::to_f64(u.log).exp();
    let expect = value(x0) * (value(y) + value(z)) / (value(y) - value(z));
    assert!((value(x) - expect).abs() < 1e-9, "{} {expect}", value(x));
    t::uncall_t41_ulog_fixed(&mut x, y, z).unwrap();
    assert!(x == x0, "not restored bit for bit");
}

#[test]
fn a_partial_application_capturing_an_integer_for_a_float_parameter() {
    let (mut ys, xs) = (vec![1.0, -1.0, 0.5], vec![0.25, 2.0, -3.0]);
    t::t41_map_scale(&mut ys, &xs).unwrap();
    assert_eq!(ys, vec![1.5, 3.0, -5.5]);
    t::uncall_t41_map_scale(&mut ys, &xs).unwrap();
    assert_eq!(ys, vec![1.0, -1.0, 0.5]);
    // d ys[i] / d xs[i] = 2.
    let mut ys_bar = vec![1.0, 0.5, -1.0];
    let mut xs_bar = vec![0.0; 3];
    t::t41_map_scale_grad(&mut ys, &mut ys_bar, &xs, &mut xs_bar).unwrap();
    assert_eq!(xs_bar, vec![2.0, 1.0, -2.0]);
}

#[test]
fn generic_functions_of_complex_values_and_arrays_of_them() {
    let zs = vec![Complex::new(1.0, 2.0), Complex::new(-0.5, 0.25)];
    let (z0, x) = (Complex::new(0.1, 0.2), 1.5);
    let mut z = z0;
    t::t41_generic_complex(&mut z, x, &zs).unwrap();
    assert_eq!(z, Complex::new(0.1 + 4.5 + 0.5, 0.2 + 2.25));
    t::uncall_t41_generic_complex(&mut z, x, &zs).unwrap();
    assert!((z - z0).norm() < 1e-12);
    // The real part of z carries 3x + Σ re(zs).
    let mut z_bar = Complex::new(1.0, 0.0);
    let mut x_bar = 0.0;
    let mut zs_bar = vec![Complex::new(0.0, 0.0); 2];
    t::t41_generic_complex_grad(&mut z, &mut z_bar, x, &mut x_bar, &zs, &mut zs_bar).unwrap();
    assert_eq!(x_bar, 3.0);
    assert_eq!(zs_bar, vec![Complex::new(1.0, 0.0); 2]);
}

#[test]
fn an_array_of_generic_structs_given_one_of_f64() {
    let ps = vec![t::T41Pt { x: 1.5, y: 2.0 }, t::T41Pt { x: -0.5, y: 4.0 }];
    let mut s = 1.0;
    t::t41_points(&mut s, &ps).unwrap();
    assert_eq!(s, 1.0 + 3.0 - 2.0);
    t::uncall_t41_points(&mut s, &ps).unwrap();
    assert_eq!(s, 1.0);
    let mut s_bar = 1.0;
    let mut ps_bar = vec![t::T41Pt { x: 0.0, y: 0.0 }; 2];
    t::t41_points_grad(&mut s, &mut s_bar, &ps, &mut ps_bar).unwrap();
    assert_eq!((ps_bar[0].x, ps_bar[0].y), (2.0, 1.5));
    assert_eq!((ps_bar[1].x, ps_bar[1].y), (4.0, -0.5));
}

#[test]
fn a_generic_struct_given_one_of_f64() {
    let p = t::T41Pt { x: 1.5, y: 2.0 };
    let mut s = 1.0;
    t::t41_point(&mut s, p).unwrap();
    assert_eq!(s, 4.0);
    t::uncall_t41_point(&mut s, p).unwrap();
    assert_eq!(s, 1.0);
    let mut s_bar = 1.0;
    let mut p_bar = t::T41Pt { x: 0.0, y: 0.0 };
    t::t41_point_grad(&mut s, &mut s_bar, p, &mut p_bar).unwrap();
    assert_eq!((p_bar.x, p_bar.y), (2.0, 1.5));
}

/// A read-only `Complex{T}` argument given a `Complex{f64}` (rustc
/// rejected the conversion to the callee's `T` before); the gradient is
/// compared with the interpreter's in `tests/interpreter.rs`.
#[test]
fn a_generic_function_reads_a_complex_of_f64() {
    let (w, x) = (Complex::new(0.5, -1.0), 2.0);
    let mut z = Complex::new(1.0, 1.0);
    t::t41_read_complex(&mut z, w, x).unwrap();
    let want =
        Complex::new(1.0, 1.0) + w * 0.5 + Complex::new(1.0, 2.0) * x + Complex::new(1.5, -0.5) * x;
    assert!((z - want).norm() < 1e-12, "{z}");
    t::uncall_t41_read_complex(&mut z, w, x).unwrap();
    assert!((z - Complex::new(1.0, 1.0)).norm() < 1e-12);
}

#[test]
fn an_all_f32_function_calls_a_generic_one_and_takes_f32_adjoints() {
    let x = 0.75f32;
    let mut y = 0.5f32;
    t::t41_all_f32(&mut y, x).unwrap();
    assert!((y - (0.5 + 1.5 + x.sin())).abs() < 1e-6);
    t::uncall_t41_all_f32(&mut y, x).unwrap();
    assert!((y - 0.5).abs() < 1e-6);
    let (mut y_bar, mut x_bar) = (1.0f32, 0.0f32);
    t::t41_all_f32_grad(&mut y, &mut y_bar, x, &mut x_bar).unwrap();
    assert!((x_bar - (2.0 + x.cos())).abs() < 1e-6, "{x_bar}");
}

#[test]
fn complex_ancillas_from_a_literal_and_from_zero_are_differentiable() {
    let a = Complex::new(0.3, -0.7);
    let loss = |re: f64, im: f64| {
        let mut r = 0.0;
        t::t41_complex_ancillas(&mut r, Complex::new(re, im)).unwrap();
        r
    };
    let mut r = 0.0;
    t::t41_complex_ancillas(&mut r, a).unwrap();
    // |2a|² + 3 re(a)
    assert!(close(r, 4.0 * a.norm_sqr() + 0.9));
    t::uncall_t41_complex_ancillas(&mut r, a).unwrap();
    assert!(r.abs() < 1e-12);
    let (mut r_bar, mut a_bar) = (1.0, Complex::new(0.0, 0.0));
    t::t41_complex_ancillas_grad(&mut r, &mut r_bar, a, &mut a_bar).unwrap();
    let d_re = central(|v| loss(v, a.im), a.re);
    let d_im = central(|v| loss(a.re, v), a.im);
    assert!(
        close(a_bar.re, d_re) && close(a_bar.im, d_im),
        "{a_bar} against ({d_re}, {d_im})"
    );
}

#[test]
fn nnz_counts_the_entries_of_a_sparse_matrix() {
    let a =
        nilang::sprs::CsMat::new_csc((3, 3), vec![0, 1, 1, 3], vec![0, 0, 2], vec![1.0, 2.0, 3.0]);
    let mut n = 1;
    t::t41_count(&mut n, a.view()).unwrap();
    assert_eq!(n, 4);
}

#[test]
fn an_integer_instance_of_a_generic_function_with_a_stack() {
    let (a0, b0, c) = (3_i64, -4_i64, 5_i64);
    let (mut a, mut b) = (a0, b0);
    t::t41_integer_stack(&mut a, &mut b, c).unwrap();
    assert_eq!((a, b), (8, 4));
    t::uncall_t41_integer_stack(&mut a, &mut b, c).unwrap();
    assert_eq!((a, b), (a0, b0));
}

#[test]
fn an_f64_gradient_lends_its_adjoints_to_f32_callees() {
    // Dyadic values, so that every f32 step is exact and each run's
    // uncomputation gives its ancillas back exactly.
    let b = 0.5f64;
    let mut a = 0.25;
    t::t41_f64_calls_f32(&mut a, b).unwrap();
    // v = w₁u and s = 2u with u = b and w₁ = b², in f32.
    let (u, w1) = (b as f32, (b * b) as f32);
    assert_eq!(a, 0.25 + (w1 * u) as f64 * 3.0 + (2.0 * u) as f64);
    t::uncall_t41_f64_calls_f32(&mut a, b).unwrap();
    assert_eq!(a, 0.25);
    let (mut a_bar, mut b_bar) = (1.0, 0.0);
    t::t41_f64_calls_f32_grad(&mut a, &mut a_bar, b, &mut b_bar).unwrap();
    // d/db (3b³ + 2b), the callees' share computed in f32.
    assert_eq!(b_bar, 9.0 * b * b + 2.0);
    let loss = |b: f64| {
        let mut a = 0.0;
        t::t41_f64_calls_f32(&mut a, b).unwrap();
        a
    };
    // The central difference of a cubic is its derivative plus h² f'''/6
    // (here 3h²).
    let h = 0.0625;
    let d = (loss(b + h) - loss(b - h)) / (2.0 * h);
    assert!(
        (b_bar - (d - 3.0 * h * h)).abs() < 1e-9,
        "{b_bar} against {d}"
    );
}

#[test]
fn an_f32_gradient_lends_its_adjoints_to_an_f64_callee() {
    let (x, z) = (0.75f32, -1.5f32);
    let mut y = 0.5f32;
    t::t41_f32_calls_f64(&mut y, x, z).unwrap();
    assert_eq!(y, 0.5 + ((x as f64).powi(2) * z as f64) as f32);
    t::uncall_t41_f32_calls_f64(&mut y, x, z).unwrap();
    assert_eq!(y, 0.5);
    let (mut y_bar, mut x_bar, mut z_bar) = (1.0f32, 0.0f32, 0.0f32);
    t::t41_f32_calls_f64_grad(&mut y, &mut y_bar, x, &mut x_bar, z, &mut z_bar).unwrap();
    assert!((x_bar - 2.0 * x * z).abs() < 1e-6, "{x_bar}");
    assert!((z_bar - x * x).abs() < 1e-6, "{z_bar}");
}

/// Rotations whose angles read a complex number (`real(z)`, `abs(z)`,
/// `imag(z)`): each part of `z`'s adjoint is the derivative of the loss `x`
/// along it (the Rust backend's gradient stopped here before).
#[test]
fn a_rotation_angle_read_from_a_complex_number_is_differentiated() {
    let (x0, y0, z) = (0.3, 0.7, Complex::new(0.4, -0.9));
    let loss = |x: f64, y: f64, re: f64, im: f64| {
        let (mut x, mut y) = (x, y);
        t::t41_rot_complex_angle(&mut x, &mut y, Complex::new(re, im)).unwrap();
        x
    };
    let (mut x, mut y) = (x0, y0);
    t::t41_rot_complex_angle(&mut x, &mut y, z).unwrap();
    t::uncall_t41_rot_complex_angle(&mut x, &mut y, z).unwrap();
    assert!((x - x0).abs() < 1e-12 && (y - y0).abs() < 1e-12, "{x} {y}");
    let (mut x_bar, mut y_bar, mut z_bar) = (1.0, 0.0, Complex::new(0.0, 0.0));
    t::t41_rot_complex_angle_grad(&mut x, &mut x_bar, &mut y, &mut y_bar, z, &mut z_bar).unwrap();
    let want = [
        central(|v| loss(v, y0, z.re, z.im), x0),
        central(|v| loss(x0, v, z.re, z.im), y0),
        central(|v| loss(x0, y0, v, z.im), z.re),
        central(|v| loss(x0, y0, z.re, v), z.im),
    ];
    let got = [x_bar, y_bar, z_bar.re, z_bar.im];
    for (g, w) in got.iter().zip(&want) {
        assert!(close(*g, *w), "{got:?} against {want:?}");
    }
}

//! Every adjoint rule against central differences, with `+=` and `-=`, at
//! several points; the instructions; calls, branches, loops and ancillas;
//! and the acceptance values.

use nilang_tests::{rules as r, semantics as s};

const RTOL: f64 = 1e-6;
const ATOL: f64 = 1e-8;

/// Points (y, a, b) inside every rule's domain (asin and acos need |a| < 1,
/// log and sqrt a > 0; a != b keeps min and max differentiable).
const POINTS: [[f64; 3]; 4] = [
    [0.3, 0.4, 1.7],
    [-1.2, 0.9, 0.6],
    [2.0, 0.15, -2.5],
    [0.0, 0.6, 3.1],
];

/// Weights of the loss w . (y, a, b) after the call: every adjoint is seeded.
const W: [f64; 3] = [1.0, 0.7, -0.4];

type Fwd = fn(&mut f64, f64, f64) -> nilang::Result;
type Grad = fn(&mut f64, &mut f64, f64, &mut f64, f64, &mut f64) -> nilang::Result;

fn check_rule(name: &str, forward: Fwd, grad: Grad) {
    for p in POINTS {
        let loss = |x: &[f64]| {
            let mut y = x[0];
            forward(&mut y, x[1], x[2]).unwrap();
            W[0] * y + W[1] * x[1] + W[2] * x[2]
        };
        let (mut y, mut gy, mut ga, mut gb) = (p[0], W[0], W[1], W[2]);
        grad(&mut y, &mut gy, p[1], &mut ga, p[2], &mut gb).unwrap();
        assert!((y - p[0]).abs() < 1e-12, "{name}: y restored");
        nilang::check_gradient(loss, &p, &[gy, ga, gb], RTOL, ATOL)
            .unwrap_or_else(|e| panic!("{name} at {p:?}: {e}"));
    }
}

#[test]
fn every_rule_with_plus_and_minus_equals() {
    check_rule(
        "rule_identity_add",
        r::rule_identity_add,
        r::rule_identity_add_grad,
    );
    check_rule(
        "rule_identity_sub",
        r::rule_identity_sub,
        r::rule_identity_sub_grad,
    );
    check_rule("rule_add_add", r::rule_add_add, r::rule_add_add_grad);
    check_rule("rule_add_sub", r::rule_add_sub, r::rule_add_sub_grad);
    check_rule("rule_sub_add", r::rule_sub_add, r::rule_sub_add_grad);
    check_rule("rule_sub_sub", r::rule_sub_sub, r::rule_sub_sub_grad);
    check_rule("rule_mul_add", r::rule_mul_add, r::rule_mul_add_grad);
    check_rule("rule_mul_sub", r::rule_mul_sub, r::rule_mul_sub_grad);
    check_rule("rule_div_add", r::rule_div_add, r::rule_div_add_grad);
    check_rule("rule_div_sub", r::rule_div_sub, r::rule_div_sub_grad);
    check_rule("rule_rem_add", r::rule_rem_add, r::rule_rem_add_grad);
    check_rule("rule_rem_sub", r::rule_rem_sub, r::rule_rem_sub_grad);
    check_rule("rule_pow_add", r::rule_pow_add, r::rule_pow_add_grad);
    check_rule("rule_pow_sub", r::rule_pow_sub, r::rule_pow_sub_grad);
    check_rule("rule_powi_add", r::rule_powi_add, r::rule_powi_add_grad);
    check_rule("rule_powi_sub", r::rule_powi_sub, r::rule_powi_sub_grad);
    check_rule("rule_abs_add", r::rule_abs_add, r::rule_abs_add_grad);
    check_rule("rule_abs_sub", r::rule_abs_sub, r::rule_abs_sub_grad);
    check_rule("rule_abs2_add", r::rule_abs2_add, r::rule_abs2_add_grad);
    check_rule("rule_abs2_sub", r::rule_abs2_sub, r::rule_abs2_sub_grad);
    check_rule("rule_sqrt_add", r::rule_sqrt_add, r::rule_sqrt_add_grad);
    check_rule("rule_sqrt_sub", r::rule_sqrt_sub, r::rule_sqrt_sub_grad);
    check_rule("rule_exp_add", r::rule_exp_add, r::rule_exp_add_grad);
    check_rule("rule_exp_sub", r::rule_exp_sub, r::rule_exp_sub_grad);
    check_rule("rule_log_add", r::rule_log_add, r::rule_log_add_grad);
    check_rule("rule_log_sub", r::rule_log_sub, r::rule_log_sub_grad);
    check_rule("rule_sin_add", r::rule_sin_add, r::rule_sin_add_grad);
    check_rule("rule_sin_sub", r::rule_sin_sub, r::rule_sin_sub_grad);
    check_rule("rule_cos_add", r::rule_cos_add, r::rule_cos_add_grad);
    check_rule("rule_cos_sub", r::rule_cos_sub, r::rule_cos_sub_grad);
    check_rule("rule_tan_add", r::rule_tan_add, r::rule_tan_add_grad);
    check_rule("rule_tan_sub", r::rule_tan_sub, r::rule_tan_sub_grad);
    check_rule("rule_sinh_add", r::rule_sinh_add, r::rule_sinh_add_grad);
    check_rule("rule_sinh_sub", r::rule_sinh_sub, r::rule_sinh_sub_grad);
    check_rule("rule_cosh_add", r::rule_cosh_add, r::rule_cosh_add_grad);
    check_rule("rule_cosh_sub", r::rule_cosh_sub, r::rule_cosh_sub_grad);
    check_rule("rule_tanh_add", r::rule_tanh_add, r::rule_tanh_add_grad);
    check_rule("rule_tanh_sub", r::rule_tanh_sub, r::rule_tanh_sub_grad);
    check_rule("rule_asin_add", r::rule_asin_add, r::rule_asin_add_grad);
    check_rule("rule_asin_sub", r::rule_asin_sub, r::rule_asin_sub_grad);
    check_rule("rule_acos_add", r::rule_acos_add, r::rule_acos_add_grad);
    check_rule("rule_acos_sub", r::rule_acos_sub, r::rule_acos_sub_grad);
    check_rule("rule_atan_add", r::rule_atan_add, r::rule_atan_add_grad);
    check_rule("rule_atan_sub", r::rule_atan_sub, r::rule_atan_sub_grad);
    check_rule("rule_atan2_add", r::rule_atan2_add, r::rule_atan2_add_grad);
    check_rule("rule_atan2_sub", r::rule_atan2_sub, r::rule_atan2_sub_grad);
    check_rule("rule_inv_add", r::rule_inv_add, r::rule_inv_add_grad);
    check_rule("rule_inv_sub", r::rule_inv_sub, r::rule_inv_sub_grad);
    check_rule("rule_min_add", r::rule_min_add, r::rule_min_add_grad);
    check_rule("rule_min_sub", r::rule_min_sub, r::rule_min_sub_grad);
    check_rule("rule_max_add", r::rule_max_add, r::rule_max_add_grad);
    check_rule("rule_max_sub", r::rule_max_sub, r::rule_max_sub_grad);
    check_rule("rule_call", r::rule_call, r::rule_call_grad);
    check_rule("rule_branch", r::rule_branch, r::rule_branch_grad);
    check_rule("rule_ancilla", r::rule_ancilla, r::rule_ancilla_grad);
    check_rule(
        "rule_ancilla_value",
        r::rule_ancilla_value,
        r::rule_ancilla_value_grad,
    );
}

/// Checks an instruction on (up to) three floats against differences of
/// the loss w . outputs.
fn check_three(
    name: &str,
    forward: impl Fn(&mut [f64; 3]),
    grad: impl Fn(&mut [f64; 3], &mut [f64; 3]),
) {
    for p in POINTS {
        let loss = |x: &[f64]| {
            let mut v = [x[0], x[1], x[2]];
            forward(&mut v);
            v.iter().zip(W).map(|(a, w)| a * w).sum::<f64>()
        };
        let mut v = p;
        let mut g = W;
        grad(&mut v, &mut g);
        assert!(
            v.iter().zip(p).all(|(a, b)| (a - b).abs() < 1e-12),
            "{name}: restored"
        );
        nilang::check_gradient(loss, &p, &g, RTOL, ATOL)
            .unwrap_or_else(|e| panic!("{name} at {p:?}: {e}"));
    }
}

#[test]
fn instructions() {
    check_three(
        "sincos",
        |[a, b, c]| r::rule_sincos(a, b, *c).unwrap(),
        |[a, b, c], [ga, gb, gc]| r::rule_sincos_grad(a, ga, b, gb, *c, gc).unwrap(),
    );
    check_three(
        "SWAP",
        |[a, b, _]| r::rule_swap(a, b).unwrap(),
        |[a, b, _], [ga, gb, _]| r::rule_swap_grad(a, ga, b, gb).unwrap(),
    );
    check_three(
        "ROT",
        |[a, b, c]| r::rule_rot(a, b, *c).unwrap(),
        |[a, b, c], [ga, gb, gc]| r::rule_rot_grad(a, ga, b, gb, *c, gc).unwrap(),
    );
    check_three(
        "IROT",
        |[a, b, c]| r::rule_irot(a, b, *c).unwrap(),
        |[a, b, c], [ga, gb, gc]| r::rule_irot_grad(a, ga, b, gb, *c, gc).unwrap(),
    );
    check_three(
        "HADAMARD",
        |[a, b, _]| r::rule_hadamard(a, b).unwrap(),
        |[a, b, _], [ga, gb, _]| r::rule_hadamard_grad(a, ga, b, gb).unwrap(),
    );
    check_three(
        "INC/DEC",
        |[a, b, _]| r::rule_inc_dec(a, b).unwrap(),
        |[a, b, _], [ga, gb, _]| r::rule_inc_dec_grad(a, ga, b, gb).unwrap(),
    );
    check_three(
        "NEG",
        |[a, _, _]| r::rule_neg(a).unwrap(),
        |[a, _, _], [ga, _, _]| r::rule_neg_grad(a, ga).unwrap(),
    );
    check_three(
        "MULINT",
        |[a, _, _]| r::rule_mulint(a, 3).unwrap(),
        |[a, _, _], [ga, _, _]| r::rule_mulint_grad(a, ga, 3).unwrap(),
    );
    check_three(
        "DIVINT",
        |[a, _, _]| r::rule_divint(a, 4).unwrap(),
        |[a, _, _], [ga, _, _]| r::rule_divint_grad(a, ga, 4).unwrap(),
    );
}

#[test]
fn sqrt_of_sum_of_squares_gradient() {
    // y += x[i]^2; res += sqrt(y) over [1, 2, 3], loss res.
    let (mut res, mut y, x) = (0.0_f64, 0.0_f64, [1.0, 2.0, 3.0]);
    let (mut gres, mut gy, mut gx) = (1.0_f64, 0.0_f64, [0.0; 3]);
    s::sqrt_of_squares_grad(&mut res, &mut gres, &mut y, &mut gy, &x, &mut gx).unwrap();
    let close = |a: f64, b: f64| (a - b).abs() < 1e-15;
    assert_eq!(gres, 1.0);
    assert!(close(gy, 0.1336306209562122), "{gy}");
    let expected = [0.2672612419124244, 0.5345224838248488, 0.8017837257372732];
    assert!(gx.iter().zip(expected).all(|(a, b)| close(*a, b)), "{gx:?}");
    assert_eq!((res, y, x), (0.0, 0.0, [1.0, 2.0, 3.0]));
}

type C = nilang::Complex<f64>;
type CFwd = fn(&mut C, &mut C, &mut C) -> nilang::Result;
type CGrad = fn(&mut C, &mut C, &mut C, &mut C, &mut C, &mut C) -> nilang::Result;

/// Points (y, a, b), each complex, away from the branch cut of log and sqrt
/// and from zero (inv, angle, abs).
const CPOINTS: [[f64; 6]; 3] = [
    [0.3, -0.2, 0.4, 0.8, 1.7, -0.5],
    [-1.2, 0.5, 1.9, -0.6, 0.6, 0.3],
    [2.0, 1.0, 0.7, 0.45, -0.8, 1.2],
];

/// Weights of the loss w . (y.re, y.im, a.re, a.im, b.re, b.im).
const CW: [f64; 6] = [1.0, -0.6, 0.7, 0.2, -0.4, 0.9];

/// Checks a statement on three complex numbers: the gradient of the loss
/// with respect to the six real parts, `dL/dre + i dL/dim` for each,
/// against central differences.
fn check_complex(name: &str, forward: CFwd, grad: CGrad) {
    let c = |v: &[f64], i: usize| C::new(v[2 * i], v[2 * i + 1]);
    for p in CPOINTS {
        let loss = |x: &[f64]| {
            let (mut y, mut a, mut b) = (c(x, 0), c(x, 1), c(x, 2));
            forward(&mut y, &mut a, &mut b).unwrap();
            let out = [y.re, y.im, a.re, a.im, b.re, b.im];
            out.iter().zip(CW).map(|(v, w)| v * w).sum::<f64>()
        };
        let (mut y, mut a, mut b) = (c(&p, 0), c(&p, 1), c(&p, 2));
        let (mut gy, mut ga, mut gb) = (c(&CW, 0), c(&CW, 1), c(&CW, 2));
        grad(&mut y, &mut gy, &mut a, &mut ga, &mut b, &mut gb).unwrap();
        let restored = [y.re, y.im, a.re, a.im, b.re, b.im];
        for (r, v) in restored.iter().zip(p) {
            assert!((r - v).abs() < 1e-12, "{name}: inputs restored");
        }
        let gradient = [gy.re, gy.im, ga.re, ga.im, gb.re, gb.im];
        nilang::check_gradient(loss, &p, &gradient, RTOL, ATOL)
            .unwrap_or_else(|e| panic!("{name} at {p:?}: {e}"));
    }
}

/// Adapts a rule that reads `a` and `b` to the uniform signature.
macro_rules! complex_rule {
    // `Tape`: a rule in a tape loop, whose forward program records.
    ($name:ident, $grad:ident $(, $tape:ident)?) => {{
        fn forward(y: &mut C, a: &mut C, b: &mut C) -> nilang::Result {
            nilang_tests::crules::$name(y, *a, *b $(, &mut nilang::$tape::new())?)
        }
        fn grad(
            y: &mut C,
            gy: &mut C,
            a: &mut C,
            ga: &mut C,
            b: &mut C,
            gb: &mut C,
        ) -> nilang::Result {
            nilang_tests::crules::$grad(y, gy, *a, ga, *b, gb)
        }
        check_complex(stringify!($name), forward, grad);
    }};
}

#[test]
fn complex_rules_against_differences() {
    complex_rule!(crule_identity_add, crule_identity_add_grad);
    complex_rule!(crule_mul_add, crule_mul_add_grad);
    complex_rule!(crule_mul_sub, crule_mul_sub_grad);
    complex_rule!(crule_div_add, crule_div_add_grad);
    complex_rule!(crule_div_sub, crule_div_sub_grad);
    complex_rule!(crule_exp_log, crule_exp_log_grad);
    complex_rule!(crule_log_sub, crule_log_sub_grad);
    complex_rule!(crule_sqrt, crule_sqrt_grad);
    complex_rule!(crule_sin_cos, crule_sin_cos_grad);
    complex_rule!(crule_inv, crule_inv_grad);
    complex_rule!(crule_conj, crule_conj_grad);
    complex_rule!(crule_real_imag, crule_real_imag_grad);
    complex_rule!(crule_parts, crule_parts_grad);
    complex_rule!(crule_abs, crule_abs_grad);
    complex_rule!(crule_angle, crule_angle_grad);
    complex_rule!(crule_add_sub, crule_add_sub_grad);
    complex_rule!(crule_pow_complex, crule_pow_complex_grad);
    complex_rule!(crule_pow_real, crule_pow_real_grad);
    complex_rule!(crule_abs2_angle, crule_abs2_angle_grad);
    complex_rule!(crule_view_places, crule_view_places_grad);
    complex_rule!(crule_call_expression, crule_call_expression_grad);
    complex_rule!(crule_call_real_of_complex, crule_call_real_of_complex_grad);
    complex_rule!(crule_unwrap, crule_unwrap_grad);
    complex_rule!(crule_tape_scale, crule_tape_scale_grad, Tape);
    complex_rule!(crule_tape_assign, crule_tape_assign_grad, Tape);
    complex_rule!(
        crule_tape_real_of_complex,
        crule_tape_real_of_complex_grad,
        Tape
    );
    // The instructions change a and b too.
    check_complex(
        "crule_neg_conj_swap",
        nilang_tests::crules::crule_neg_conj_swap,
        nilang_tests::crules::crule_neg_conj_swap_grad,
    );
}

/// The acceptance value: `y += log(x)` at y = 2+3i, x = 2-i with
/// ȳ = 3+3i gives x̄ = conj(1/x) ȳ = 1.8+0.6i.
#[test]
fn complex_log_adjoint() {
    let (mut y, mut gy, mut gx) = (C::new(2.0, 3.0), C::new(3.0, 3.0), C::new(0.0, 0.0));
    nilang_tests::crules::clog_grad(&mut y, &mut gy, C::new(2.0, -1.0), &mut gx).unwrap();
    assert!((gx - C::new(1.8, 0.6)).norm() < 1e-12, "{gx}");
    assert!((y - C::new(2.0, 3.0)).norm() < 1e-12, "y restored");
    assert_eq!(gy, C::new(3.0, 3.0));
}

/// A user-defined adjoint rule (`@primitive`) for a sawtooth (`mod`),
/// directly and through a call and an uncall; the same body without it, by
/// the compiler's own rule for `mod`, gives the same derivatives.
#[test]
fn primitive_with_user_defined_derivatives() {
    check_rule("sawtooth", r::sawtooth::<f64>, r::sawtooth_grad::<f64, f64>);
    check_rule("rule_primitive", r::rule_primitive, r::rule_primitive_grad);
    check_rule("sawtooth_plain", r::sawtooth_plain, r::sawtooth_plain_grad);
    let (mut y, mut gy, mut gx, mut gs) = (0.0, 1.0, 0.0, 0.0);
    r::sawtooth_plain_grad(&mut y, &mut gy, 2.3, &mut gx, 2.0, &mut gs).unwrap();
    assert!(
        (gx - 2.0).abs() < 1e-12 && (gs - 0.3).abs() < 1e-12,
        "{gx} {gs}"
    );
}

/// Broadcasts `.+=` and `.-=` on vectors, matrices and a matrix column
/// against differences of a weighted sum of every argument after the call.
#[test]
fn broadcasts() {
    use nilang::ndarray::{Array2, ArrayView2, ArrayViewMut2};
    // The loss weights: a fixed pseudo-random sequence in [-1, 1).
    let weights = |n: usize| -> Vec<f64> {
        (0..n)
            .map(|i| ((i * 37 + 11) % 23) as f64 / 11.5 - 1.0)
            .collect()
    };
    let dot = |a: &[f64], b: &[f64]| a.iter().zip(b).map(|(x, y)| x * y).sum::<f64>();

    // y .+= sin.(x) .* s; y .-= x .^ 2 ./ (2 + s), with y, x of length 5.
    let n = 5;
    let w = weights(2 * n + 1);
    for p in POINTS {
        let x0: Vec<f64> = (0..2 * n)
            .map(|i| p[i % 3] + 0.1 * i as f64)
            .chain([p[0] + 1.0])
            .collect();
        let loss = |x: &[f64]| {
            let mut y = x[..n].to_vec();
            r::rule_broadcast(&mut y, &x[n..2 * n], x[2 * n]).unwrap();
            dot(&y, &w[..n]) + dot(&x[n..], &w[n..])
        };
        let mut y = x0[..n].to_vec();
        let mut y_bar = w[..n].to_vec();
        let mut x_bar = w[n..2 * n].to_vec();
        let mut s_bar = w[2 * n];
        r::rule_broadcast_grad(
            &mut y,
            &mut y_bar,
            &x0[n..2 * n],
            &mut x_bar,
            x0[2 * n],
            &mut s_bar,
        )
        .unwrap();
        assert!(
            y.iter().zip(&x0).all(|(a, b)| (a - b).abs() < 1e-12),
            "y restored"
        );
        let g: Vec<f64> = y_bar
            .iter()
            .chain(&x_bar)
            .chain([&s_bar])
            .copied()
            .collect();
        nilang::check_gradient(loss, &x0, &g, RTOL, ATOL)
            .unwrap_or_else(|e| panic!("rule_broadcast at {p:?}: {e}"));
    }

    // Y .+= exp.(X .* s) ./ 3 on 3 x 2 matrices; the flat order is Y, X, s.
    let (rows, cols) = (3, 2);
    let m = rows * cols;
    let w = weights(2 * m + 1);
    let mat = |v: &[f64]| Array2::from_shape_vec((rows, cols), v.to_vec()).unwrap();
    for p in POINTS {
        let x0: Vec<f64> = (0..2 * m + 1)
            .map(|i| 0.3 * p[i % 3] - 0.05 * i as f64)
            .collect();
        let loss = |x: &[f64]| {
            let mut y = mat(&x[..m]);
            let xm = mat(&x[m..2 * m]);
            r::rule_broadcast_matrix(y.view_mut(), xm.view(), x[2 * m]).unwrap();
            dot(y.as_slice().unwrap(), &w[..m]) + dot(&x[m..], &w[m..])
        };
        let mut y = mat(&x0[..m]);
        let xm = mat(&x0[m..2 * m]);
        let mut y_bar = mat(&w[..m]);
        let mut x_bar = mat(&w[m..2 * m]);
        let mut s_bar = w[2 * m];
        let (yv, xv): (ArrayViewMut2<f64>, ArrayView2<f64>) = (y.view_mut(), xm.view());
        r::rule_broadcast_matrix_grad(
            yv,
            y_bar.view_mut(),
            xv,
            x_bar.view_mut(),
            x0[2 * m],
            &mut s_bar,
        )
        .unwrap();
        assert!(
            y.iter().zip(&x0).all(|(a, b)| (a - b).abs() < 1e-12),
            "Y restored"
        );
        let g: Vec<f64> = y_bar
            .iter()
            .chain(x_bar.iter())
            .chain([&s_bar])
            .copied()
            .collect();
        nilang::check_gradient(loss, &x0, &g, RTOL, ATOL)
            .unwrap_or_else(|e| panic!("rule_broadcast_matrix at {p:?}: {e}"));
    }

    // A[:, 2] .-= x .* B[:, 1] with A, B 3 x 2 and x of length 3; flat
    // order A, x, B.
    let w = weights(2 * m + rows);
    for p in POINTS {
        let x0: Vec<f64> = (0..2 * m + rows)
            .map(|i| p[(i + 1) % 3] + 0.2 * i as f64)
            .collect();
        let loss = |x: &[f64]| {
            let mut a = mat(&x[..m]);
            let b = mat(&x[m + rows..]);
            r::rule_broadcast_column(a.view_mut(), &x[m..m + rows], b.view()).unwrap();
            dot(a.as_slice().unwrap(), &w[..m]) + dot(&x[m..], &w[m..])
        };
        let mut a = mat(&x0[..m]);
        let b = mat(&x0[m + rows..]);
        let mut a_bar = mat(&w[..m]);
        let mut x_bar = w[m..m + rows].to_vec();
        let mut b_bar = mat(&w[m + rows..]);
        r::rule_broadcast_column_grad(
            a.view_mut(),
            a_bar.view_mut(),
            &x0[m..m + rows],
            &mut x_bar,
            b.view(),
            b_bar.view_mut(),
        )
        .unwrap();
        assert!(
            a.iter().zip(&x0).all(|(u, v)| (u - v).abs() < 1e-12),
            "A restored"
        );
        let g: Vec<f64> = a_bar
            .iter()
            .chain(&x_bar)
            .chain(b_bar.iter())
            .copied()
            .collect();
        nilang::check_gradient(loss, &x0, &g, RTOL, ATOL)
            .unwrap_or_else(|e| panic!("rule_broadcast_column at {p:?}: {e}"));
    }
}

type ScratchFwd = fn(&mut f64, &[f64], &[f64]) -> nilang::Result;
type ScratchGrad = fn(&mut f64, &mut f64, &[f64], &mut [f64], &[f64], &mut [f64]) -> nilang::Result;

/// Array ancillas of a routine rerun in a loop: with the ancilla written
/// only by the routine (its adjoint zeroed, not saved) and with it written
/// outside as well (the routine keeps its adjoint rules); both against
/// central differences in every input.
#[test]
fn array_scratch_of_a_routine_in_a_loop() {
    let cases: [(&str, ScratchFwd, ScratchGrad); 2] = [
        (
            "scratch_in_loop",
            s::scratch_in_loop,
            s::scratch_in_loop_grad,
        ),
        (
            "scratch_written_outside",
            s::scratch_written_outside,
            s::scratch_written_outside_grad,
        ),
    ];
    let p = [0.3, -1.1, 0.8, 0.45, 1.3, -0.7, 0.2];
    for (name, forward, grad) in cases {
        let loss = |v: &[f64]| {
            let mut out = 0.0;
            forward(&mut out, &v[..4], &v[4..]).unwrap();
            out
        };
        let (mut out, mut gout) = (0.0, 1.0);
        let (mut gx, mut gw) = ([0.0; 4], [0.0; 3]);
        grad(&mut out, &mut gout, &p[..4], &mut gx, &p[4..], &mut gw).unwrap();
        assert!(out.abs() < 1e-12, "{name}: out restored, {out}");
        let g: Vec<f64> = gx.iter().chain(&gw).copied().collect();
        nilang::check_gradient(loss, &p, &g, RTOL, ATOL).unwrap_or_else(|e| panic!("{name}: {e}"));
    }
}

/// The conjugate dataview as a place: `y' += a * b` is `y += conj(a * b)`.
#[test]
fn conjugate_view_as_a_place() {
    let (a, b) = (C::new(0.5, -1.0), C::new(2.0, 0.25));
    let mut y = C::new(1.0, 1.0);
    nilang_tests::crules::crule_view_places(&mut y, a, b).unwrap();
    let expected = C::new(1.0, 1.0) + C::new(a.im * b.re, -b.norm()) + (a * b).conj();
    assert!((y - expected).norm() < 1e-12, "{y} vs {expected}");
    nilang_tests::crules::uncall_crule_view_places(&mut y, a, b).unwrap();
    assert!((y - C::new(1.0, 1.0)).norm() < 1e-12, "{y}");
}

//! `@store @routine` (`tests/nil/storing.nil`): each stored program against
//! its recomputing twin. Forwards they are the same code; their gradients
//! agree to rounding (a stored derivative is taken at the forward's values,
//! a recomputed one at the values the uncomputation restored) and with
//! central differences. A tape read in the wrong order, or a rule that
//! popped what another instruction pushed, would fail them.

use nilang_tests::storing;

const RTOL: f64 = 1e-6;
const ATOL: f64 = 1e-8;

type Forward = fn(&mut f64, &[f64], &[f64]) -> nilang::Result;
type Gradient = fn(&mut f64, &mut f64, &[f64], &mut [f64], &[f64], &mut [f64]) -> nilang::Result;

/// The two gradients within `1e-12` of each other, relatively.
fn close(stored: &[f64], recomputed: &[f64]) {
    assert_eq!(stored.len(), recomputed.len());
    for (s, r) in stored.iter().zip(recomputed) {
        assert!(
            (s - r).abs() <= 1e-12 * r.abs().max(1.0),
            "stored {stored:?}, recomputed {recomputed:?}"
        );
    }
}

/// Runs a stored program and its twin at `x` and `ys`: the same value,
/// forwards and back; gradients that agree, leave `out` as they found it,
/// and match central differences.
fn agrees_with_recomputing(
    stored: (Forward, Forward, Gradient),
    twin: (Forward, Gradient),
    x: &[f64],
    ys: &[f64],
) {
    let run = |f: Forward| {
        let mut out: f64 = 0.125;
        f(&mut out, x, ys).unwrap();
        out
    };
    let out = run(stored.0);
    assert_eq!(out.to_bits(), run(twin.0).to_bits());
    let mut back = out;
    stored.1(&mut back, x, ys).unwrap();
    assert!((back - 0.125).abs() < 1e-12, "the uncall gives back {back}");
    let grad = |f: Gradient| {
        let (mut out, mut out_bar) = (0.5, 1.0);
        let (mut x_bar, mut ys_bar) = (vec![0.0; x.len()], vec![0.0; ys.len()]);
        f(&mut out, &mut out_bar, x, &mut x_bar, ys, &mut ys_bar).unwrap();
        assert_eq!(out, 0.5, "the gradient leaves `out` as it found it");
        (x_bar, ys_bar)
    };
    let (x_bar, ys_bar) = grad(stored.2);
    let (x_twin, ys_twin) = grad(twin.1);
    close(&x_bar, &x_twin);
    close(&ys_bar, &ys_twin);
    let loss = |x: &[f64], ys: &[f64]| {
        let mut out = 0.0;
        stored.0(&mut out, x, ys).unwrap();
        out
    };
    nilang::check_gradient(|x| loss(x, ys), x, &x_bar, RTOL, ATOL).unwrap();
    nilang::check_gradient(|ys| loss(x, ys), ys, &ys_bar, RTOL, ATOL).unwrap();
}

/// A stored routine in a loop, with a branch taken both ways, a nested
/// routine pair and a nested stored routine: every iteration's reverse pass
/// pops what its run pushed.
#[test]
fn a_stored_routine_in_a_loop_agrees_with_recomputing() {
    let x = [0.3, -1.2, 2.0, -0.7, 0.45];
    for ts in [vec![0.5], vec![0.5, -1.5, 1.25]] {
        agrees_with_recomputing(
            (
                storing::stored_in_a_loop,
                storing::uncall_stored_in_a_loop,
                storing::stored_in_a_loop_grad,
            ),
            (
                storing::recomputed_in_a_loop,
                storing::recomputed_in_a_loop_grad,
            ),
            &x,
            &ts,
        );
    }
}

/// LogSumExp with its routine at the end, checked, generic (`T = f64`) and
/// unchecked (whose reverse pass also leaves out the running maximum's
/// uncomputation).
#[test]
fn a_stored_routine_at_the_end_agrees_with_recomputing() {
    let x = [0.3, -1.2, 2.0, -0.7, 2.5, 0.1];
    let w = [1.0, 0.5, 2.0, 1.5, 0.25, 3.0];
    let twin = (
        storing::recomputed_at_the_end as Forward,
        storing::recomputed_at_the_end_grad as Gradient,
    );
    agrees_with_recomputing(
        (
            storing::stored_at_the_end,
            storing::uncall_stored_at_the_end,
            storing::stored_at_the_end_grad,
        ),
        twin,
        &x,
        &w,
    );
    agrees_with_recomputing(
        (
            storing::stored_generic::<f64>,
            storing::uncall_stored_generic::<f64>,
            storing::stored_generic_grad::<f64, f64>,
        ),
        twin,
        &x,
        &w,
    );
    agrees_with_recomputing(
        (
            storing::stored_at_the_end_unchecked,
            storing::uncall_stored_at_the_end_unchecked,
            storing::stored_at_the_end_unchecked_grad,
        ),
        twin,
        &x,
        &w,
    );
}

/// A gradient that runs its final routine once (`f_grad` pushes in its
/// forward part, then goes on with the reverse pass, which pops): the same
/// gradient as the recomputing LogSumExp, through `y! += log(...)` and
/// `out! += abs2(y!)`.
#[test]
fn a_stored_routine_in_a_fused_gradient_agrees_with_central_differences() {
    let x = [0.3, -1.2, 2.0, -0.7, 2.5, 0.1];
    let w = [1.0, 0.5, 2.0, 1.5, 0.25, 3.0];
    let loss = |x: &[f64], w: &[f64]| {
        let (mut out, mut y) = (0.0, 0.25);
        storing::stored_fused(&mut out, &mut y, x, w).unwrap();
        out
    };
    let (mut out, mut out_bar, mut y, mut y_bar) = (0.0, 1.0, 0.25, 0.0);
    let (mut x_bar, mut w_bar) = (vec![0.0; x.len()], vec![0.0; w.len()]);
    storing::stored_fused_grad(
        &mut out,
        &mut out_bar,
        &mut y,
        &mut y_bar,
        &x,
        &mut x_bar,
        &w,
        &mut w_bar,
    )
    .unwrap();
    assert_eq!((out, y), (0.0, 0.25), "the gradient restores its arguments");
    nilang::check_gradient(|x| loss(x, &w), &x, &x_bar, RTOL, ATOL).unwrap();
    nilang::check_gradient(|w| loss(&x, w), &w, &w_bar, RTOL, ATOL).unwrap();
    // y's adjoint: d out / d y = 2 (y + log Σ w e^(x - max x)).
    let lse = {
        let mut out = 0.0;
        storing::recomputed_at_the_end(&mut out, &x, &w).unwrap();
        out
    };
    let shifted = lse - 2.5;
    assert!(
        (y_bar - 2.0 * (0.25 + shifted)).abs() < 1e-12,
        "y_bar {y_bar}"
    );
}

//! Regressions (`tests/nil/regressions.nil`): programs that `nilc check`
//! accepted but whose generated Rust did not compile, or panicked. Each runs
//! forwards and backwards, and its gradient is compared with central
//! differences where it has one.

use nilang::{Check, Complex, Stack};
use nilang_tests::regressions;

const RTOL: f64 = 1e-6;
const ATOL: f64 = 1e-8;

/// Bug 1: `f_grad` of a function that pushes onto its stack parameter gave
/// the adjoint stack no entry for the pushed value, and the reverse pass
/// panicked reading `s_bar[end]`.
#[test]
fn a_gradient_that_pushes_onto_a_stack_parameter() {
    let x = 1.3;
    for below in [vec![], vec![0.7], vec![1.0, -2.0]] {
        // Forwards and backwards.
        let mut s = Stack::from_vec(below.clone());
        let mut out = 0.5;
        regressions::push_then_read(&mut out, x, &mut s).unwrap();
        assert_eq!(out, 0.5 + 2.0 * x);
        assert_eq!(s.len(), below.len() + 1);
        assert_eq!(s.top(), Some(&x));
        regressions::uncall_push_then_read(&mut out, x, &mut s).unwrap();
        assert_eq!((out, s.as_slice()), (0.5, &below[..]));
        // The gradient, whatever the adjoints of the values below.
        let mut s_bar = Stack::from_vec(vec![0.25; below.len()]);
        let (mut out, mut out_bar, mut x_bar) = (0.5, 1.0, 0.0);
        regressions::push_then_read_grad(&mut out, &mut out_bar, x, &mut x_bar, &mut s, &mut s_bar)
            .unwrap();
        assert_eq!(x_bar, 2.0);
        assert_eq!((out, s.as_slice()), (0.5, &below[..]));
        assert_eq!(s_bar.as_slice(), &vec![0.25; below.len()][..]);
        let loss = |p: &[f64]| {
            let mut s = Stack::from_vec(below.clone());
            let mut out = 0.0;
            regressions::push_then_read(&mut out, p[0], &mut s).unwrap();
            out
        };
        nilang::check_gradient(loss, &[x], &[x_bar], RTOL, ATOL).unwrap();
    }
    // An adjoint stack out of step with the stack is reported, and the
    // arguments are left as they were.
    let mut s = Stack::from_vec(vec![1.0]);
    let mut s_bar = Stack::new();
    let (mut out, mut out_bar, mut x_bar) = (0.5, 1.0, 0.0);
    let e =
        regressions::push_then_read_grad(&mut out, &mut out_bar, x, &mut x_bar, &mut s, &mut s_bar)
            .unwrap_err();
    assert_eq!((e.check, e.location.line), (Check::Stack, 11));
    assert!(e.what.contains("adjoint stack `s_bar`"), "{e}");
    assert_eq!((e.expected.as_str(), e.found.as_str()), ("1", "0"));
    assert_eq!((out, out_bar, x_bar), (0.5, 1.0, 0.0));
    assert_eq!((s.as_slice(), s_bar.len()), (&[1.0][..], 0));
    // The reverse pass alone too: after the call, `s` holds two values.
    regressions::push_then_read(&mut out, x, &mut s).unwrap();
    let mut s_bar = Stack::from_vec(vec![0.0]);
    let e = regressions::push_then_read_adjoint(
        &mut out,
        &mut out_bar,
        x,
        &mut x_bar,
        &mut s,
        &mut s_bar,
    )
    .unwrap_err();
    assert_eq!(e.check, Check::Stack);
}

/// Bug 1, popping: the value popped into `x!` takes the seed of `x!` back
/// onto the adjoint stack; the adjoint the stack's top came in with seeded
/// nothing (no output sits there after the call), and is replaced.
#[test]
fn a_gradient_that_pops_a_stack_parameter() {
    let mut s = Stack::from_vec(vec![1.0, 2.0]);
    let mut s_bar = Stack::from_vec(vec![10.0, 20.0]);
    let (mut x, mut x_bar) = (0.0, 3.0);
    regressions::pop_top_into_grad(&mut s, &mut s_bar, &mut x, &mut x_bar).unwrap();
    assert_eq!((s.as_slice(), x), (&[1.0, 2.0][..], 0.0));
    assert_eq!((s_bar.as_slice(), x_bar), (&[10.0, 3.0][..], 0.0));
    // The loss seeded so: 10 s[1] + 3 x after the call.
    let loss = |p: &[f64]| {
        let mut s = Stack::from_vec(p.to_vec());
        let mut x = 0.0;
        regressions::pop_top_into(&mut s, &mut x).unwrap();
        10.0 * s[0] + 3.0 * x
    };
    nilang::check_gradient(loss, &[1.0, 2.0], s_bar.as_slice(), RTOL, ATOL).unwrap();
}

/// Bug 1, a stack ancilla that a callee pushes onto, or that is pushed onto
/// inside a routine: the reverse pass runs the routine as plain code, and
/// the ancilla's adjoint stack follows it.
#[test]
fn a_gradient_through_a_stack_ancilla_pushed_in_a_routine() {
    type Forward = fn(&mut f64, f64) -> nilang::Result;
    type Gradient = fn(&mut f64, &mut f64, f64, &mut f64) -> nilang::Result;
    let cases: [(Forward, Forward, Gradient, f64); 3] = [
        (
            regressions::through_callee_push,
            regressions::uncall_through_callee_push,
            regressions::through_callee_push_grad,
            1.0,
        ),
        (
            regressions::through_callee_push_neg,
            regressions::uncall_through_callee_push_neg,
            regressions::through_callee_push_neg_grad,
            -1.0,
        ),
        (
            regressions::push_in_routine,
            regressions::uncall_push_in_routine,
            regressions::push_in_routine_grad,
            1.0,
        ),
    ];
    for (forward, backward, gradient, sign) in cases {
        for (x, y0) in [(1.3, 0.5), (-0.4, -2.0)] {
            let mut y = y0;
            forward(&mut y, x).unwrap();
            assert!((y - sign * (y0 + 3.0 * x * x)).abs() < 1e-12);
            backward(&mut y, x).unwrap();
            assert!((y - y0).abs() < 1e-12);
            let (mut y, mut y_bar, mut x_bar) = (y0, 1.0, 0.0);
            gradient(&mut y, &mut y_bar, x, &mut x_bar).unwrap();
            assert_eq!(y, y0);
            assert!((x_bar - sign * 6.0 * x).abs() < 1e-12, "{x_bar}");
            let loss = |p: &[f64]| {
                let mut y = p[1];
                forward(&mut y, p[0]).unwrap();
                y
            };
            nilang::check_gradient(loss, &[x, y0], &[x_bar, y_bar], RTOL, ATOL).unwrap();
        }
    }
}

/// Bug 2: stacks of booleans (their zero is `false`) and of narrow
/// integers (compared exactly).
#[test]
fn stacks_of_booleans_and_integers() {
    let (mut b, mut c) = (true, false);
    regressions::move_flag(&mut b, &mut c).unwrap();
    assert_eq!((b, c), (false, true));
    regressions::uncall_move_flag(&mut b, &mut c).unwrap();
    assert_eq!((b, c), (true, false));
    // POP! into a flag that is set.
    let (mut b, mut c) = (true, true);
    let e = regressions::move_flag(&mut b, &mut c).unwrap_err();
    assert_eq!((e.check, e.location.line), (Check::Stack, 69));
    assert_eq!((e.expected.as_str(), e.found.as_str()), ("false", "true"));
    assert_eq!((b, c), (true, true));

    let mut s = Stack::from_vec(vec![false]);
    let mut b = true;
    regressions::push_flags(&mut s, &mut b, false).unwrap();
    assert_eq!((s.as_slice(), b), (&[false, false, true][..], false));
    regressions::pop_push_flag(&mut s).unwrap();
    regressions::uncall_pop_push_flag(&mut s).unwrap();
    assert_eq!(s.as_slice(), &[false, false, true]);
    regressions::uncall_push_flags(&mut s, &mut b, false).unwrap();
    assert_eq!((s.as_slice(), b), (&[false][..], true));
    // COPYPOP! of a flag other than the top.
    let mut s = Stack::from_vec(vec![true, false]);
    let e = regressions::uncall_push_flags(&mut s, &mut false, false).unwrap_err();
    assert_eq!((e.check, e.location.line), (Check::Stack, 74));
    assert_eq!((e.expected.as_str(), e.found.as_str()), ("false", "true"));

    let (mut b, mut c) = (200u8, 0u8);
    regressions::move_byte(&mut b, &mut c).unwrap();
    assert_eq!((b, c), (0, 200));
    regressions::uncall_move_byte(&mut b, &mut c).unwrap();
    assert_eq!((b, c), (200, 0));
    let e = regressions::move_byte(&mut 1, &mut 2).unwrap_err();
    assert_eq!((e.check, e.found.as_str()), (Check::Stack, "2"));

    let (mut z, mut w) = (Complex::new(3i64, -4), Complex::new(0, 0));
    regressions::move_gaussian(&mut z, &mut w).unwrap();
    assert_eq!((z, w), (Complex::new(0, 0), Complex::new(3, -4)));
    regressions::uncall_move_gaussian(&mut z, &mut w).unwrap();
    assert_eq!((z, w), (Complex::new(3, -4), Complex::new(0, 0)));
}

/// Bug 3: without checks, the uncomputation of a routine with a routine of
/// its own inside a loop sets the outer ancillas back to zero; those of the
/// inner routine are out of scope there (and were "reset" too, which did
/// not compile).
#[test]
fn a_routine_in_a_loop_of_a_routine_unchecked() {
    type Forward = fn(&mut f64, &[f64], &[f64]) -> nilang::Result;
    type Gradient =
        fn(&mut f64, &mut f64, &[f64], &mut [f64], &[f64], &mut [f64]) -> nilang::Result;
    let a = [0.3, -1.2, 2.0, 0.7];
    let b = [1.1, 0.4, -0.5, 2.5];
    let n = a.len() as f64;
    let (ma, mb) = (a.iter().sum::<f64>() / n, b.iter().sum::<f64>() / n);
    let expected: f64 = a
        .iter()
        .zip(&b)
        .map(|(x, y)| (x - ma) * (y - mb))
        .sum::<f64>()
        / n;
    let cases: [(Forward, Forward, Gradient); 2] = [
        (
            regressions::centered_cross,
            regressions::uncall_centered_cross,
            regressions::centered_cross_grad,
        ),
        (
            regressions::centered_cross_unchecked,
            regressions::uncall_centered_cross_unchecked,
            regressions::centered_cross_unchecked_grad,
        ),
    ];
    for (forward, backward, gradient) in cases {
        let mut cov = 0.25;
        forward(&mut cov, &a, &b).unwrap();
        assert!((cov - 0.25 - expected).abs() < 1e-12, "{cov} vs {expected}");
        backward(&mut cov, &a, &b).unwrap();
        assert!((cov - 0.25).abs() < 1e-12);
        let (mut cov, mut cov_bar) = (0.25, 1.0);
        let (mut a_bar, mut b_bar) = ([0.0; 4], [0.0; 4]);
        gradient(&mut cov, &mut cov_bar, &a, &mut a_bar, &b, &mut b_bar).unwrap();
        assert_eq!(cov, 0.25);
        let loss = |p: &[f64]| {
            let mut cov = 0.0;
            forward(&mut cov, &p[..4], &p[4..]).unwrap();
            cov
        };
        let point: Vec<f64> = a.iter().chain(&b).copied().collect();
        let grad: Vec<f64> = a_bar.iter().chain(&b_bar).copied().collect();
        nilang::check_gradient(loss, &point, &grad, RTOL, ATOL).unwrap();
    }
}

/// Ancillas of `i16` and `i8`, whose zero and check the runtime lacked.
#[test]
fn narrow_integer_ancillas() {
    let mut y = 0.5;
    regressions::narrow_integers(&mut y, 3, -2).unwrap();
    assert_eq!(y, 0.5 - 6.0);
    regressions::uncall_narrow_integers(&mut y, 3, -2).unwrap();
    assert_eq!(y, 0.5);
}

/// Without checks, the reverse pass drops the uncomputation's update of a
/// scalar scratch ancilla that the routine only adds into (`r`) and sets
/// it to zero after the `~@routine`; with `r` allocated outside the loop,
/// each iteration the reverse pass handles must still start from zero (a
/// build that leaves out the zeroing fails here). The gradient agrees with
/// central differences and, bit for bit, with the checked build, which
/// uncomputes `r`. `s`, read in the routine after its update, is zeroed too.
#[test]
fn a_summed_scratch_is_zeroed_in_an_unchecked_reverse_pass() {
    let x = [0.3, -1.2, 2.0, 0.7, -0.4];
    let grad = |checked: bool| {
        let (mut out, mut out_bar, mut x_bar) = (0.5, 1.0, [0.0; 5]);
        if checked {
            regressions::summed_residuals_checked_grad(&mut out, &mut out_bar, &x, &mut x_bar)
        } else {
            regressions::summed_residuals_grad(&mut out, &mut out_bar, &x, &mut x_bar)
        }
        .unwrap();
        assert_eq!(out, 0.5, "the gradient leaves `out` as it found it");
        x_bar
    };
    let unchecked = grad(false);
    assert_eq!(unchecked, grad(true));
    let loss = |p: &[f64]| {
        let mut out = 0.0;
        regressions::summed_residuals(&mut out, p).unwrap();
        out
    };
    nilang::check_gradient(loss, &x, &unchecked, RTOL, ATOL).unwrap();
    // The forward value: Σ_i x_i² sin(2 x_i).
    let mut out = 0.0;
    regressions::summed_residuals(&mut out, &x).unwrap();
    let expected: f64 = x.iter().map(|v| v * v * (2.0 * v).sin()).sum();
    assert!((out - expected).abs() < 1e-12, "{out} vs {expected}");
}

/// Without checks, the reverse pass drops the uncomputation of a scratch
/// vector that the routine fills in and then only reads (a table of
/// distances), and fills it with zeros after the `~@routine`: each
/// iteration the reverse pass handles adds into it again, so a build
/// without the zeroing gets the gradient wrong. The gradient, in the
/// centres and the points, agrees with central differences and, bit for
/// bit, with the checked build.
#[test]
fn a_filled_in_table_is_zeroed_in_an_unchecked_reverse_pass() {
    let c = [0.3, -1.2, 2.0];
    let p = [1.1, -0.4, 0.9, -2.5];
    let grad = |checked: bool| {
        let (mut out, mut out_bar) = (0.5, 1.0);
        let (mut c_bar, mut p_bar) = ([0.0; 3], [0.0; 4]);
        let f = if checked {
            regressions::nearest_table_checked_grad
        } else {
            regressions::nearest_table_grad
        };
        f(&mut out, &mut out_bar, &c, &mut c_bar, &p, &mut p_bar).unwrap();
        assert_eq!(out, 0.5, "the gradient leaves `out` as it found it");
        (c_bar, p_bar)
    };
    let (c_bar, p_bar) = grad(false);
    assert_eq!((c_bar, p_bar), grad(true));
    // Σ_i min_j (c_j - p_i)²: the nearest centres are 0.3, 0.3, 0.3, -1.2.
    let loss = |c: &[f64], p: &[f64]| {
        let mut out = 0.0;
        regressions::nearest_table(&mut out, c, p).unwrap();
        out
    };
    let expected = 0.64 + 0.49 + 0.36 + 1.69;
    assert!((loss(&c, &p) - expected).abs() < 1e-12);
    nilang::check_gradient(|c| loss(c, &p), &c, &c_bar, RTOL, ATOL).unwrap();
    nilang::check_gradient(|p| loss(&c, p), &p, &p_bar, RTOL, ATOL).unwrap();
}

/// An integer ancilla made a float by a typecast keeps the derivative of
/// what flows into it, and a typecast scratch ancilla is not zeroed with
/// its allocated type in an unchecked build (that code did not compile).
#[test]
fn typecast_ancillas_keep_their_derivatives_and_types() {
    let (mut y, mut y_bar, mut x_bar) = (0.5, 1.0, 0.0);
    regressions::cast_carries_a_derivative_grad(&mut y, &mut y_bar, 0.25, &mut x_bar).unwrap();
    assert_eq!((y, x_bar), (0.5, 3.0));

    let mut y = 0.5;
    regressions::cast_scratch_unchecked(&mut y, 4, 0.25).unwrap();
    assert_eq!(y, 0.5 + 2.5);
    regressions::uncall_cast_scratch_unchecked(&mut y, 4, 0.25).unwrap();
    assert_eq!(y, 0.5);
    let (mut y, mut y_bar, mut x_bar) = (0.5, 1.0, 0.0);
    regressions::cast_scratch_unchecked_grad(&mut y, &mut y_bar, 4, 0.25, &mut x_bar).unwrap();
    assert_eq!((y, x_bar), (0.5, 2.0));
}

/// `out! += f(x, ts)` and its gradient program, of a build without checks
/// and of the same function with them.
type Forward = fn(&mut f64, &[f64], &[f64]) -> nilang::Result;
type Gradient = fn(&mut f64, &mut f64, &[f64], &mut [f64], &[f64], &mut [f64]) -> nilang::Result;

/// Runs `unchecked` and `checked` (each a function and its gradient
/// program) at `x` and `ts`: their values from 0.125 and their gradients
/// agree bit for bit, and the unchecked gradient agrees with central
/// differences. Gives the unchecked value.
fn agrees_with_the_checked_build(
    unchecked: (Forward, Gradient),
    checked: (Forward, Gradient),
    x: &[f64],
    ts: &[f64],
) -> f64 {
    let run = |f: Forward| {
        let mut out: f64 = 0.125;
        f(&mut out, x, ts).unwrap();
        out
    };
    let out = run(unchecked.0);
    assert_eq!(out.to_bits(), run(checked.0).to_bits());
    let grad = |f: Gradient| {
        let (mut out, mut out_bar) = (0.5, 1.0);
        let (mut x_bar, mut ts_bar) = (vec![0.0; x.len()], vec![0.0; ts.len()]);
        f(&mut out, &mut out_bar, x, &mut x_bar, ts, &mut ts_bar).unwrap();
        assert_eq!(out, 0.5, "the gradient leaves `out` as it found it");
        (x_bar, ts_bar)
    };
    let (x_bar, ts_bar) = grad(unchecked.1);
    assert_eq!((x_bar.clone(), ts_bar.clone()), grad(checked.1));
    let loss = |x: &[f64], ts: &[f64]| {
        let mut out = 0.0;
        unchecked.0(&mut out, x, ts).unwrap();
        out
    };
    nilang::check_gradient(|x| loss(x, ts), x, &x_bar, RTOL, ATOL).unwrap();
    nilang::check_gradient(|ts| loss(x, ts), ts, &ts_bar, RTOL, ATOL).unwrap();
    out
}

/// Uncalls `unchecked` and `checked` from `out` (the value both builds
/// gave from 0.125): they agree bit for bit and come back to 0.125.
fn uncalls_agree_back_to_the_start(
    unchecked: Forward,
    checked: Forward,
    out: f64,
    x: &[f64],
    ts: &[f64],
) {
    let (mut back, mut back_checked) = (out, out);
    unchecked(&mut back, x, ts).unwrap();
    checked(&mut back_checked, x, ts).unwrap();
    assert_eq!(back.to_bits(), back_checked.to_bits());
    assert!((back - 0.125).abs() < 1e-12, "{back}");
}

/// Without checks, a scratch vector walked up by its routine and read
/// nowhere else is not set back to zero between runs, while two that are
/// read where a run may not have written (above a shorter chain, or
/// outside the routine) still are: forwards, backwards and in the
/// gradient, the build agrees bit for bit with the checked one, and with
/// the sums written out.
#[test]
fn a_walked_scratch_left_as_it_is_agrees_with_the_checked_build() {
    let x: [f64; 5] = [0.3, -1.2, 2.0, 0.7, -0.4];
    let ts: [f64; 4] = [0.5, -1.5, 2.25, 0.75];
    let out = agrees_with_the_checked_build(
        (
            regressions::shrinking_chains,
            regressions::shrinking_chains_grad,
        ),
        (
            regressions::shrinking_chains_checked,
            regressions::shrinking_chains_checked_grad,
        ),
        &x,
        &ts,
    );
    let m = x.len();
    let expected: f64 = 0.125
        + ts.iter()
            .enumerate()
            .map(|(i, t)| {
                let len = m - i;
                let mut r: f64 = (0..len).map(|j| x[j] * t.powi(j as i32)).sum();
                // `q[m]`: the top of `q`'s chain, reached in the first run only.
                if len == m {
                    r += t.powi(m as i32 - 1);
                }
                r * t.powi(m as i32 - 1)
            })
            .sum::<f64>();
    assert!((out - expected).abs() < 1e-12, "{out} vs {expected}");
    uncalls_agree_back_to_the_start(
        regressions::uncall_shrinking_chains,
        regressions::uncall_shrinking_chains_checked,
        out,
        &x,
        &ts,
    );
}

/// Without checks, the first update of each cell of a scratch vector in a
/// run of its routine is an assignment (the vector holds zeros then):
/// forwards, backwards and in the gradient, the build agrees bit for bit
/// with the checked one, which adds, and with the polynomial written out. A
/// build that took `p[1]`'s second update for a first would halve every
/// power; one that did not set the vector back to zero would add each run
/// onto the last.
#[test]
fn first_writes_of_a_scratch_vector_are_assignments_without_checks() {
    let x: [f64; 4] = [0.3, -1.2, 2.0, 0.7];
    let ts: [f64; 3] = [0.5, -1.5, 2.25];
    let out = agrees_with_the_checked_build(
        (
            regressions::running_powers,
            regressions::running_powers_grad,
        ),
        (
            regressions::running_powers_checked,
            regressions::running_powers_checked_grad,
        ),
        &x,
        &ts,
    );
    let expected: f64 = 0.125
        + ts.iter()
            .map(|t| {
                x.iter()
                    .enumerate()
                    .map(|(j, xj)| xj * t.powi(j as i32))
                    .sum::<f64>()
            })
            .sum::<f64>();
    assert!((out - expected).abs() < 1e-12, "{out} vs {expected}");
    uncalls_agree_back_to_the_start(
        regressions::uncall_running_powers,
        regressions::uncall_running_powers_checked,
        out,
        &x,
        &ts,
    );
}

/// Without checks, the reverse pass leaves out the updates of a chain
/// walked up through a scratch vector (`p[j] += p[j - 1] * t`, each cell
/// read only after its write) and fills it with zeros, and keeps those of
/// one read before its write (`q`). Forwards and in the gradient the build
/// agrees bit for bit with the checked one, and with central differences;
/// a rule that also left out `q`'s updates gets `x`'s gradient wrong.
#[test]
fn an_unchecked_reverse_pass_leaves_out_a_walked_chain() {
    agrees_with_the_checked_build(
        (regressions::walked_chains, regressions::walked_chains_grad),
        (
            regressions::walked_chains_checked,
            regressions::walked_chains_checked_grad,
        ),
        &[0.3, -1.2, 2.0, 0.7],
        &[0.5, -1.5, 2.25],
    );
}

/// A work array lent whole to a function is held in a small buffer
/// (`codegen::small`): on either side of `nilang::SMALL` elements (in the
/// frame, and spilled to the heap) the value, the inverse and the gradient
/// are those of `Σ x_i²`.
#[test]
fn a_work_array_in_a_small_buffer_on_either_side_of_its_capacity() {
    for n in [1, nilang::SMALL - 1, nilang::SMALL, nilang::SMALL + 1, 100] {
        let x: Vec<f64> = (0..n).map(|i| 0.25 * i as f64 - 1.5).collect();
        let squares: f64 = x.iter().map(|v| v * v).sum();
        let mut out = 0.5;
        regressions::lent_squares(&mut out, &x).unwrap();
        assert!((out - (0.5 + squares)).abs() < 1e-12, "n = {n}: {out}");
        regressions::uncall_lent_squares(&mut out, &x).unwrap();
        assert!((out - 0.5).abs() < 1e-12, "n = {n}: {out}");
        let (mut out, mut out_bar, mut x_bar) = (0.5, 1.0, vec![0.0; n]);
        regressions::lent_squares_grad(&mut out, &mut out_bar, &x, &mut x_bar).unwrap();
        for (g, v) in x_bar.iter().zip(&x) {
            assert!((g - 2.0 * v).abs() < 1e-12, "n = {n}: {g} vs {}", 2.0 * v);
        }
    }
}

/// The deallocation check of an array in a small buffer reads all of it,
/// in the frame and spilled: a last cell left holding a value fails with
/// the array's name, and one left at zero passes.
#[test]
fn a_dirty_small_buffer_fails_its_deallocation_check() {
    for n in [3, nilang::SMALL + 8] {
        let mut x = vec![0.0; n];
        regressions::frees_a_dirty_work_array(&x).unwrap();
        x[n - 1] = 0.75;
        let err = regressions::frees_a_dirty_work_array(&x).unwrap_err();
        assert_eq!(err.check, Check::Deallocation, "n = {n}");
        assert!(err.what.contains("`w`"), "n = {n}: {}", err.what);
        assert!(err.found.contains("0.75"), "n = {n}: {}", err.found);
    }
}

//! `@tape` loops (examples/tape.nil) and the modules compiled with every
//! loop taped (`nilang_examples::taped`): values, round trips through the
//! tape, and gradients against central differences and against the
//! reverse-computed gradients of the same source.

use nilang_examples::petersen::{self, L1, L2, Rng, VERTICES, view};
use nilang_examples::{bessel, graph, tape as t, taped, unchecked};
use nilang_runtime::{Tape, check_gradient};

/// A gradient function `grad(x, g)` of a loss over `x`, checked against
/// central differences of `loss`.
fn check(loss: impl Fn(&[f64]) -> f64, grad: impl Fn(&[f64], &mut [f64]), x: &[f64]) {
    let mut g = vec![0.0; x.len()];
    grad(x, &mut g);
    check_gradient(loss, x, &g, 1e-6, 1e-8).unwrap_or_else(|e| panic!("at {x:?}: {e}"));
}

#[test]
fn bessel_tape_matches_the_reversible_bessel() {
    for &(v, z) in &[(0_i64, 0.3_f64), (1, 1.0), (2, 1.0), (3, 2.5), (2, -1.7)] {
        let mut a = 0.0;
        t::besselj_tape(&mut a, v, z).unwrap();
        let mut b = 0.0;
        bessel::ibesselj(&mut b, v, z, 1e-8).unwrap();
        assert!((a - b).abs() < 1e-8, "J_{v}({z}): {a} vs {b}");
        // The uncall restores the output (its routine keeps its own tape).
        t::uncall_besselj_tape(&mut a, v, z).unwrap();
        assert_eq!(a, 0.0);
        // Gradient: the reversible one, and central differences.
        let (mut out, mut out_bar, mut z_bar) = (0.0, 1.0, 0.0);
        t::besselj_tape_grad(&mut out, &mut out_bar, v, z, &mut z_bar).unwrap();
        let (mut out2, mut out_bar2, mut z_bar2) = (0.0, 1.0, 0.0);
        bessel::ibesselj_grad(&mut out2, &mut out_bar2, v, z, &mut z_bar2, 1e-8).unwrap();
        assert!((z_bar - z_bar2).abs() < 1e-7, "{z_bar} vs {z_bar2}");
        assert_eq!(out, 0.0, "the inputs are restored");
        check(
            |x| {
                let mut o = 0.0;
                t::besselj_tape(&mut o, v, x[0]).unwrap();
                o
            },
            |_, g| g[0] = z_bar,
            &[z],
        );
    }
}

#[test]
fn overwrites_of_a_parameter_round_trip_through_the_tape() {
    let (mut y, x, n) = (0.7_f64, 1.3, 5);
    let mut tape = Tape::new();
    t::sin_iterate(&mut y, x, n, &mut tape).unwrap();
    assert_eq!(tape.len(), 2 * n as usize, "one value per overwrite");
    let mut plain = 0.7_f64;
    for _ in 0..n {
        plain = plain.sin() * x;
    }
    assert_eq!(y, plain);
    t::uncall_sin_iterate(&mut y, x, n, &mut tape).unwrap();
    assert_eq!(y, 0.7);
    assert!(tape.is_empty(), "the uncall reads the whole tape back");
    // Without the tape its forward run recorded, the uncall fails cleanly.
    let err = t::uncall_sin_iterate(&mut y, x, n, &mut Tape::new()).unwrap_err();
    assert_eq!(err.check, nilang_runtime::Check::Tape);
}

#[test]
fn sin_iterate_gradient() {
    for &(y, x) in &[(0.7, 1.3), (-0.4, 0.8), (2.0, -1.1)] {
        check(
            |v| {
                let mut y = v[0];
                t::sin_iterate(&mut y, v[1], 4, &mut Tape::new()).unwrap();
                y
            },
            |v, g| {
                let (mut y, mut y_bar, mut x_bar) = (v[0], 1.0, 0.0);
                t::sin_iterate_grad(&mut y, &mut y_bar, v[1], &mut x_bar, 4).unwrap();
                assert_eq!(y, v[0], "the input is restored");
                (g[0], g[1]) = (y_bar, x_bar);
            },
            &[y, x],
        );
    }
}

#[test]
fn branches_in_a_tape_loop() {
    // Points where no iteration sits next to a branch switch.
    for &(y, x) in &[(0.9, 0.7), (0.3, 0.2), (-0.5, 0.4), (0.2, 1.5)] {
        let loss = |v: &[f64]| {
            let mut y = v[0];
            t::branchy(&mut y, v[1], 6, &mut Tape::new()).unwrap();
            y
        };
        check(
            loss,
            |v, g| {
                let (mut y, mut y_bar, mut x_bar) = (v[0], 1.0, 0.0);
                t::branchy_grad(&mut y, &mut y_bar, v[1], &mut x_bar, 6).unwrap();
                assert_eq!(y, v[0]);
                (g[0], g[1]) = (y_bar, x_bar);
            },
            &[y, x],
        );
    }
    // One branch index per `if` executed.
    let mut tape = Tape::new();
    let mut y = 0.9;
    t::branchy(&mut y, 0.7, 6, &mut tape).unwrap();
    assert_eq!(tape.len(), 12);
}

#[test]
fn a_tape_loop_beside_a_reversible_loop() {
    check(
        |v| {
            let (mut out, mut y) = (0.0, v[0]);
            t::mixed(&mut out, &mut y, v[1], 4, &mut Tape::new()).unwrap();
            out + y
        },
        |v, g| {
            let (mut out, mut out_bar, mut y, mut y_bar, mut x_bar) = (0.0, 1.0, v[0], 1.0, 0.0);
            t::mixed_grad(
                &mut out,
                &mut out_bar,
                &mut y,
                &mut y_bar,
                v[1],
                &mut x_bar,
                4,
            )
            .unwrap();
            (g[0], g[1]) = (y_bar, x_bar);
        },
        &[0.8, 1.7],
    );
}

#[test]
fn nested_tape_loops_and_calls() {
    for &(y, x) in &[(0.4, 1.2), (0.1, 0.9), (1.0, 1.5)] {
        check(
            |v| {
                let mut y = v[0];
                t::nested(&mut y, v[1], 3, &mut Tape::new()).unwrap();
                y
            },
            |v, g| {
                let (mut y, mut y_bar, mut x_bar) = (v[0], 1.0, 0.0);
                t::nested_grad(&mut y, &mut y_bar, v[1], &mut x_bar, 3).unwrap();
                assert_eq!(y, v[0]);
                (g[0], g[1]) = (y_bar, x_bar);
            },
            &[y, x],
        );
    }
}

#[test]
fn the_taped_bessel_agrees_with_the_reverse_computed_one() {
    for &(v, z) in &[(0_i64, 0.3_f64), (2, 1.0), (3, 2.5)] {
        let (mut a, mut b) = (0.0, 0.0);
        bessel::ibesselj(&mut a, v, z, 1e-8).unwrap();
        taped::bessel::ibesselj(&mut b, v, z, 1e-8).unwrap();
        assert_eq!(a, b);
        let (mut out, mut out_bar, mut gz) = (0.0, 1.0, 0.0);
        bessel::ibesselj_grad(&mut out, &mut out_bar, v, z, &mut gz, 1e-8).unwrap();
        let (mut out2, mut out_bar2, mut gz2) = (0.0, 1.0, 0.0);
        taped::bessel::ibesselj_grad(&mut out2, &mut out_bar2, v, z, &mut gz2, 1e-8).unwrap();
        assert!(
            (gz - gz2).abs() <= 1e-12 * gz.abs().max(1.0),
            "{gz} vs {gz2}"
        );
        assert_eq!(out2, 0.0);
    }
}

#[test]
fn the_taped_graph_loss_agrees_with_the_reverse_computed_one() {
    let mut rng = Rng::new(7);
    for k in [2usize, 5] {
        let x: Vec<f64> = (0..k * VERTICES)
            .map(|_| rng.uniform() * 2.0 - 1.0)
            .collect();
        let (mut a, mut b) = (0.0, 0.0);
        graph::embedding_loss(&mut a, view(&x, k), &L1, &L2).unwrap();
        taped::graph::embedding_loss(&mut b, view(&x, k), &L1, &L2).unwrap();
        assert!((a - b).abs() <= 1e-12 * a.abs().max(1.0), "{a} vs {b}");
        let mut g = vec![0.0; x.len()];
        petersen::gradient_by(graph::embedding_loss_grad, &x, k, &mut g).unwrap();
        let mut g2 = vec![0.0; x.len()];
        petersen::gradient_by(taped::graph::embedding_loss_grad, &x, k, &mut g2).unwrap();
        for (p, q) in g.iter().zip(&g2) {
            assert!((p - q).abs() <= 1e-12 * p.abs().max(1.0), "{p} vs {q}");
        }
        let _ = petersen::plain_loss(&x, k);
    }
}

#[test]
fn a_tape_while_on_the_function_line() {
    for &(y, x) in &[(50.0, 0.9), (7.3, 0.8), (0.5, 0.7)] {
        check(
            |v| {
                let mut y = v[0];
                t::shrink(&mut y, v[1], &mut Tape::new()).unwrap();
                y
            },
            |v, g| {
                let (mut y, mut y_bar, mut x_bar) = (v[0], 1.0, 0.0);
                t::shrink_grad(&mut y, &mut y_bar, v[1], &mut x_bar).unwrap();
                assert_eq!(y, v[0]);
                (g[0], g[1]) = (y_bar, x_bar);
            },
            &[y, x],
        );
    }
}

#[test]
fn overwrites_of_elements_and_integers() {
    let v0 = [0.3, -1.2, 2.0];
    let s0 = 0.7;
    let loss = |p: &[f64]| {
        let mut v = p[..3].to_vec();
        let mut steps = 0;
        t::scale_all(&mut v, p[3], &mut steps, &mut Tape::new()).unwrap();
        assert_eq!(steps, 7);
        v[0] + 2.0 * v[1] - v[2]
    };
    let mut x: Vec<f64> = v0.to_vec();
    x.push(s0);
    check(
        loss,
        |p, g| {
            let mut v = p[..3].to_vec();
            let mut v_bar = [1.0, 2.0, -1.0];
            let (mut s_bar, mut steps) = (0.0, 0);
            t::scale_all_grad(&mut v, &mut v_bar, p[3], &mut s_bar, &mut steps).unwrap();
            assert_eq!(v, p[..3], "the inputs are restored");
            assert_eq!(steps, 0);
            g[..3].copy_from_slice(&v_bar);
            g[3] = s_bar;
        },
        &x,
    );
}

#[test]
fn the_unchecked_taped_cases_agree_with_the_unchecked_reverse_computed_ones() {
    let (mut gz, mut gz2) = (0.0_f64, 0.0_f64);
    let (mut out, mut out_bar) = (0.0, 1.0);
    unchecked::bessel::ibesselj_grad(&mut out, &mut out_bar, 2, 1.0, &mut gz, 1e-8).unwrap();
    let (mut out, mut out_bar) = (0.0, 1.0);
    unchecked::taped::bessel::ibesselj_grad(&mut out, &mut out_bar, 2, 1.0, &mut gz2, 1e-8)
        .unwrap();
    assert!((gz - gz2).abs() <= 1e-12, "{gz} vs {gz2}");
    let k = 3;
    let mut rng = Rng::new(11);
    let x: Vec<f64> = (0..k * VERTICES)
        .map(|_| rng.uniform() * 2.0 - 1.0)
        .collect();
    let mut g = vec![0.0; x.len()];
    let mut g2 = vec![0.0; x.len()];
    petersen::gradient_by(unchecked::graph::embedding_loss_grad, &x, k, &mut g).unwrap();
    petersen::gradient_by(unchecked::taped::graph::embedding_loss_grad, &x, k, &mut g2).unwrap();
    for (p, q) in g.iter().zip(&g2) {
        assert!((p - q).abs() <= 1e-12 * p.abs().max(1.0), "{p} vs {q}");
    }
}

/// Issue 4's round trip for functions that record: `uncall_f_grad` after
/// `f_grad` gives back the inputs and the seeds. The tape `f_grad` used is
/// dropped, so `uncall_f_grad` records a fresh one.
#[test]
fn uncalling_the_gradient_of_a_function_that_records() {
    for &(x, n) in &[(0.75_f64, 5_i64), (-1.25, 4), (2.0, 0)] {
        let (mut out, mut out_bar, mut x_bar) = (0.5_f64, 1.0_f64, 0.25_f64);
        t::tape_sum_grad(&mut out, &mut out_bar, x, &mut x_bar, n).unwrap();
        assert_eq!(out, 0.5, "the inputs are restored");
        let f = |v: &[f64]| {
            let mut o = 0.0;
            t::tape_sum(&mut o, v[0], n, &mut Tape::new()).unwrap();
            o
        };
        check(f, |_, g| g[0] = x_bar - 0.25, &[x]);
        t::uncall_tape_sum_grad(&mut out, &mut out_bar, x, &mut x_bar, n).unwrap();
        assert_eq!((out, out_bar), (0.5, 1.0));
        assert!((x_bar - 0.25).abs() < 1e-12, "{x_bar}");
    }

    // The sources compiled with every loop taped (each `+=` in a loop
    // recorded): linalg, heat, arithmetic.
    let (x, y) = ([1.0_f64, -2.0, 0.5], [3.0_f64, 4.0, -1.0]);
    let (mut out, mut gout, mut gx, mut gy) = (0.0_f64, 1.0_f64, [0.0; 3], [0.0; 3]);
    taped::linalg::dot_grad(&mut out, &mut gout, &x, &mut gx, &y, &mut gy).unwrap();
    assert_eq!(gx, y);
    taped::linalg::uncall_dot_grad(&mut out, &mut gout, &x, &mut gx, &y, &mut gy).unwrap();
    assert_eq!((out, gout, gx, gy), (0.0, 1.0, [0.0; 3], [0.0; 3]));

    let (mut out, mut gout, mut gx) = (0.5_f64, 2.0_f64, [0.0; 3]);
    taped::linalg::norm2_grad(&mut out, &mut gout, &x, &mut gx).unwrap();
    assert_eq!(gx, [4.0, -8.0, 2.0]);
    taped::linalg::uncall_norm2_grad(&mut out, &mut gout, &x, &mut gx).unwrap();
    assert_eq!((out, gout, gx), (0.5, 2.0, [0.0; 3]));

    let (mut out, mut gout, mut gx) = (0.0_f64, 1.0_f64, [0.5; 3]);
    taped::arithmetic::isum_grad(&mut out, &mut gout, &x, &mut gx).unwrap();
    assert_eq!(gx, [1.5; 3]);
    taped::arithmetic::uncall_isum_grad(&mut out, &mut gout, &x, &mut gx).unwrap();
    assert_eq!((out, gout, gx), (0.0, 1.0, [0.5; 3]));

    let u = [0.0_f64, 1.0, 0.5, 0.25, 0.0];
    let (mut v, mut gv, mut gu, mut gr) = ([0.0_f64; 5], [1.0, -1.0, 0.5, 2.0, 1.0], [0.0; 5], 0.0);
    taped::heat::heat_step_grad(&mut v, &mut gv, &u, &mut gu, 0.25, &mut gr).unwrap();
    assert!(gr != 0.0 && gu.iter().any(|g| *g != 0.0));
    taped::heat::uncall_heat_step_grad(&mut v, &mut gv, &u, &mut gu, 0.25, &mut gr).unwrap();
    assert_eq!(v, [0.0; 5]);
    assert_eq!(gv, [1.0, -1.0, 0.5, 2.0, 1.0]);
    assert!(
        gu.iter().all(|g| g.abs() < 1e-15) && gr.abs() < 1e-15,
        "{gu:?} {gr}"
    );
}

/// `y *= x`, `y /= i` in a tape loop: their reverse pass scales ȳ by the
/// factor, which `uncall_mixed_grad` divides back out; a zero factor is an
/// error there (the forward write destroyed `y` and its adjoint).
#[test]
fn the_gradient_of_scaling_overwrites_can_be_uncalled() {
    let (mut out, mut out_bar, mut y, mut y_bar, mut x_bar) = (0.5, 1.0, 0.8, 0.75_f64, 0.125_f64);
    t::mixed_grad(
        &mut out,
        &mut out_bar,
        &mut y,
        &mut y_bar,
        1.7,
        &mut x_bar,
        4,
    )
    .unwrap();
    // `y` comes back from the tape, `out` is uncomputed (to rounding).
    assert_eq!(y, 0.8);
    assert!((out - 0.5_f64).abs() < 1e-12, "{out}");
    assert!(x_bar != 0.125 && y_bar != 0.75);
    t::uncall_mixed_grad(
        &mut out,
        &mut out_bar,
        &mut y,
        &mut y_bar,
        1.7,
        &mut x_bar,
        4,
    )
    .unwrap();
    assert_eq!((y, out_bar), (0.8, 1.0));
    assert!((out - 0.5_f64).abs() < 1e-12, "{out}");
    assert!((y_bar - 0.75).abs() < 1e-12, "{y_bar}");
    assert!((x_bar - 0.125).abs() < 1e-12, "{x_bar}");

    let (mut out, mut out_bar, mut y, mut y_bar, mut x_bar) = (0.0, 1.0, 0.8, 0.0, 0.0);
    t::mixed_grad(
        &mut out,
        &mut out_bar,
        &mut y,
        &mut y_bar,
        0.0,
        &mut x_bar,
        2,
    )
    .unwrap();
    let err = t::uncall_mixed_grad(
        &mut out,
        &mut out_bar,
        &mut y,
        &mut y_bar,
        0.0,
        &mut x_bar,
        2,
    )
    .unwrap_err()
    .to_string();
    assert!(
        err.contains("tape.nil") && err.contains("zero factor"),
        "{err}"
    );
}

/// An overwrite `y = e` in a tape loop: its reverse pass replaces the
/// adjoint of `y` by what the old `y` contributed, so the seed is gone and
/// `uncall_f_grad` says so (naming the overwrite) and changes nothing.
#[test]
fn the_gradient_of_an_overwrite_cannot_be_uncalled() {
    let (mut y, mut y_bar, mut x_bar) = (0.7_f64, 1.0_f64, 0.0_f64);
    t::sin_iterate_grad(&mut y, &mut y_bar, 1.3, &mut x_bar, 3).unwrap();
    let (yb, xb) = (y_bar, x_bar);
    let err = t::uncall_sin_iterate_grad(&mut y, &mut y_bar, 1.3, &mut x_bar, 3).unwrap_err();
    let text = err.to_string();
    assert!(text.contains("tape.nil"), "{text}");
    assert!(
        text.contains("cannot undo the gradient of `sin_iterate`"),
        "{text}"
    );
    assert_eq!((y, y_bar, x_bar), (0.7, yb, xb));
}

//! Derivative calls (`nil/derivatives.nil`): a `.nil` function that takes
//! the gradient (`(∇f)`) or the tangent (`(∂f)`) of another, run forwards
//! and backwards, and differentiated again: by its own gradient program
//! (reverse over reverse, reverse over forward) and on dual numbers
//! (forward over reverse, forward over forward), against a plain-Rust
//! formula and central differences.

use nilang::Dual;
use nilang_tests::derivatives as d;

/// |∇ₓ p(x; w)|² written out by hand.
fn energy(x: [f64; 2], w: f64) -> f64 {
    let (r1x, r1y) = (x[0] - 10.0, x[1] - 10.0 + w);
    let (r2x, r2y) = (x[0] - 10.0, x[1]);
    let d1 = (r1x * r1x + r1y * r1y).powf(1.5);
    let d2 = (r2x * r2x + r2y * r2y).powf(1.5);
    let gx = -r1x / d1 - r2x / d2;
    let gy = -r1y / d1 - r2y / d2;
    gx * gx + gy * gy
}

type Program = fn(&mut f64, &[f64], f64) -> nilang::Result;

fn run(f: Program, x: [f64; 2], w: f64) -> f64 {
    let mut out = 0.0;
    f(&mut out, &x, w).unwrap();
    out
}

/// |∇ p(x; w)|² over x and w.
fn full_energy(x: [f64; 2], w: f64) -> f64 {
    let r1y = x[1] - 10.0 + w;
    let d1 = ((x[0] - 10.0).powi(2) + r1y * r1y).powf(1.5);
    energy(x, w) + (r1y / d1).powi(2)
}

/// Central differences of `energy` in (x1, x2, w).
fn differences(x: [f64; 2], w: f64) -> [f64; 3] {
    differences_of(energy, x, w)
}

fn differences_of(energy: fn([f64; 2], f64) -> f64, x: [f64; 2], w: f64) -> [f64; 3] {
    let h = 1e-5;
    let at = |k: usize, s: f64| {
        let (mut x, mut w) = (x, w);
        if k < 2 {
            x[k] += s;
        } else {
            w += s;
        }
        energy(x, w)
    };
    [0, 1, 2].map(|k| (at(k, h) - at(k, -h)) / (2.0 * h))
}

fn close(a: f64, b: f64, what: &str) {
    assert!(
        (a - b).abs() <= 1e-6 * b.abs().max(1.0),
        "{what}: {a} against {b}"
    );
}

const POINTS: [([f64; 2], f64); 3] = [([0.0, 8.0], 0.0), ([3.5, 6.25], 0.5), ([1.0, -2.0], -1.25)];

#[test]
fn gradient_and_tangent_calls_compute_the_field() {
    for (x, w) in POINTS {
        let e = energy(x, w);
        close(run(d::field_energy, x, w), e, "by (∇potential)");
        close(run(d::field_energy_fwd, x, w), e, "by (∂potential)");
    }
}

#[test]
fn uncalls_undo_them() {
    let (x, w) = POINTS[1];
    for (f, inv) in [
        (
            d::field_energy as Program,
            d::uncall_field_energy as Program,
        ),
        (d::field_energy_fwd, d::uncall_field_energy_fwd),
    ] {
        let mut out = 1.5;
        f(&mut out, &x, w).unwrap();
        inv(&mut out, &x, w).unwrap();
        close(out, 1.5, "uncall");
    }
}

/// Reverse over reverse (`field_energy_grad`) and reverse over forward
/// (`field_energy_fwd_grad`).
#[test]
fn gradient_programs_differentiate_derivative_calls() {
    for (x, w) in POINTS {
        let fd = differences(x, w);
        for name in ["reverse over reverse", "reverse over forward"] {
            let (mut out, mut out_bar) = (0.0, 1.0);
            let (xv, mut x_bar) = (x, [0.0; 2]);
            let mut w_bar = 0.0;
            if name == "reverse over reverse" {
                d::field_energy_grad(&mut out, &mut out_bar, &xv, &mut x_bar, w, &mut w_bar)
            } else {
                d::field_energy_fwd_grad(&mut out, &mut out_bar, &xv, &mut x_bar, w, &mut w_bar)
            }
            .unwrap();
            close(x_bar[0], fd[0], name);
            close(x_bar[1], fd[1], name);
            close(w_bar, fd[2], name);
            assert_eq!(xv, x, "{name}: the inputs are restored");
            close(out, 0.0, name);
        }
    }
}

/// Two adjoints in one sweep: the lanes of `[f64; 2]` each go through the
/// derivative calls' reverse passes.
#[test]
fn vector_adjoints_take_one_direction_a_lane() {
    let (x, w) = POINTS[1];
    let fd = differences(x, w);
    let (mut out, mut out_bar) = (0.0, [1.0, 2.0]);
    let (xv, mut x_bar) = (x, [[0.0; 2]; 2]);
    let mut w_bar = [0.0; 2];
    d::field_energy_grad(&mut out, &mut out_bar, &xv, &mut x_bar, w, &mut w_bar).unwrap();
    for lane in 0..2 {
        let s = (lane + 1) as f64;
        close(x_bar[0][lane], s * fd[0], "lane");
        close(x_bar[1][lane], s * fd[1], "lane");
        close(w_bar[lane], s * fd[2], "lane");
    }
}

/// Forward over reverse and forward over forward: the functions run on
/// dual numbers, the derivative calls inside them on duals of duals.
#[test]
fn derivative_calls_run_on_dual_numbers() {
    for (x, w) in POINTS {
        let fd = differences(x, w);
        type DualProgram = fn(&mut Dual<f64>, &[Dual<f64>], Dual<f64>) -> nilang::Result;
        for (name, f) in [
            ("forward over reverse", d::field_energy as DualProgram),
            ("forward over forward", d::field_energy_fwd),
        ] {
            for (k, want) in fd.into_iter().enumerate() {
                let xs = [0, 1].map(|i| Dual::new(x[i], if i == k { 1.0 } else { 0.0 }));
                let wd = Dual::new(w, if k == 2 { 1.0 } else { 0.0 });
                let mut out = Dual::constant(0.0);
                f(&mut out, &xs, wd).unwrap();
                close(out.re, energy(x, w), name);
                close(out.eps, want, name);
            }
        }
    }
}

/// The reverse pass of `~(∇potential)` with adjoints flowing through it.
#[test]
fn the_inverse_gradient_call_is_differentiated_too() {
    for (x, w) in POINTS {
        let mut out = 0.0;
        d::full_energy(&mut out, &x, w).unwrap();
        close(out, full_energy(x, w), "value");
        let fd = differences_of(full_energy, x, w);
        let (mut out, mut out_bar) = (0.0, 1.0);
        let (xv, mut x_bar) = (x, [0.0; 2]);
        let mut w_bar = 0.0;
        d::full_energy_grad(&mut out, &mut out_bar, &xv, &mut x_bar, w, &mut w_bar).unwrap();
        close(x_bar[0], fd[0], "x1");
        close(x_bar[1], fd[1], "x2");
        close(w_bar, fd[2], "w");
    }
}

/// The reverse pass of a tangent call with adjoints for the direction:
/// d/d(x, v, w) of (∇ₓp · v)².
#[test]
fn a_tangent_calls_direction_gets_its_adjoint() {
    // ∇ₓp by central differences of p.
    let p = |x: [f64; 2], w: f64| {
        let d1 = ((x[0] - 10.0).powi(2) + (x[1] - 10.0 + w).powi(2)).sqrt();
        let d2 = ((x[0] - 10.0).powi(2) + x[1].powi(2)).sqrt();
        1.0 / d1 + 1.0 / d2
    };
    let slope = |z: [f64; 5]| {
        let h = 1e-4;
        let g = [0, 1].map(|k| {
            let (mut a, mut b) = ([z[0], z[1]], [z[0], z[1]]);
            a[k] += h;
            b[k] -= h;
            (p(a, z[4]) - p(b, z[4])) / (2.0 * h)
        });
        (g[0] * z[2] + g[1] * z[3]).powi(2)
    };
    let z = [3.5, 6.25, 0.75, -1.5, 0.5];
    let (mut out, mut out_bar) = (0.0, 1.0);
    let (x, mut x_bar) = ([z[0], z[1]], [0.0; 2]);
    let (mut v, mut v_bar) = ([z[2], z[3]], [0.0; 2]);
    let mut w_bar = 0.0;
    d::slope_squared_grad(
        &mut out,
        &mut out_bar,
        &x,
        &mut x_bar,
        &mut v,
        &mut v_bar,
        z[4],
        &mut w_bar,
    )
    .unwrap();
    let got = [x_bar[0], x_bar[1], v_bar[0], v_bar[1], w_bar];
    for k in 0..5 {
        let h = 1e-3;
        let (mut a, mut b) = (z, z);
        a[k] += h;
        b[k] -= h;
        let fd = (slope(a) - slope(b)) / (2.0 * h);
        assert!(
            (got[k] - fd).abs() <= 1e-5 * fd.abs().max(1.0),
            "component {k}: {} against {fd}",
            got[k]
        );
    }
}

/// Derivative calls of a library function and of another file's, and the
/// gradient programs through them.
#[test]
fn derivative_calls_reach_other_modules() {
    let x = [0.5, -1.25, 2.0];
    let mut out = 0.0;
    d::library_gradient(&mut out, &x).unwrap();
    let sq: f64 = x.iter().map(|v| v * v).sum();
    close(out, 4.0 * sq, "library gradient");
    // d/dx of 4 Σ x² is 8 x: the library function's reverse pass.
    let (mut out, mut out_bar, mut x_bar) = (0.0, 1.0, [0.0; 3]);
    d::library_gradient_grad(&mut out, &mut out_bar, &x, &mut x_bar).unwrap();
    for (g, v) in x_bar.iter().zip(x) {
        close(*g, 8.0 * v, "its gradient");
    }
    let mut y = 1.0;
    d::other_file_tangent(&mut y, 1.5, 0.25).unwrap();
    close(y, 1.0 + 2.0 * 1.5 * 0.25, "other file's tangent");
    // d y / d(x, t) = (2 t, 2 x).
    let (mut y, mut y_bar, mut x_bar, mut t_bar) = (0.0, 1.0, 0.0, 0.0);
    d::other_file_tangent_grad(&mut y, &mut y_bar, 1.5, &mut x_bar, 0.25, &mut t_bar).unwrap();
    close(x_bar, 0.5, "d/dx");
    close(t_bar, 3.0, "d/dt");
}

/// Derivative calls of a function that changes an array and takes a
/// `Const` value: the first-order values against central differences of
/// `chain!`, and the gradient programs through them against central
/// differences of the callers.
#[test]
fn derivative_calls_of_a_function_that_changes_an_array() {
    let chain = |y: &[f64], x: f64| {
        let mut y = y.to_vec();
        d::ripple(&mut y, x, 0.5).unwrap();
        y
    };
    let y0 = [0.3, -0.7, 1.1, 0.4];
    let x0 = 0.8;
    let h = 1e-6;
    // d Σ chain(y, x) / d(y, x) by central differences.
    let sum = |y: &[f64], x: f64| chain(y, x).iter().sum::<f64>();
    let mut g: Vec<f64> = (0..4)
        .map(|k| {
            let (mut p, mut m) = (y0, y0);
            p[k] += h;
            m[k] -= h;
            (sum(&p, x0) - sum(&m, x0)) / (2.0 * h)
        })
        .collect();
    g.push((sum(&y0, x0 + h) - sum(&y0, x0 - h)) / (2.0 * h));
    let want: f64 = g.iter().map(|v| v * v).sum();
    let energy = |y: &[f64], x: f64| {
        let mut out = 0.0;
        let mut y = y.to_vec();
        d::ripple_gradient(&mut out, &mut y, x).unwrap();
        out
    };
    close(energy(&y0, x0), want, "Σ of the squared gradient");
    // Its gradient (reverse over reverse) against central differences.
    let (mut out, mut out_bar) = (0.0, 1.0);
    let (mut y, mut y_bar) = (y0, [0.0; 4]);
    let mut x_bar = 0.0;
    d::ripple_gradient_grad(&mut out, &mut out_bar, &mut y, &mut y_bar, x0, &mut x_bar).unwrap();
    let hh = 1e-5;
    for k in 0..5 {
        let at = |s: f64| {
            let (mut y, mut x) = (y0, x0);
            if k < 4 {
                y[k] += s
            } else {
                x += s
            }
            energy(&y, x)
        };
        let fd = (at(hh) - at(-hh)) / (2.0 * hh);
        let got = if k < 4 { y_bar[k] } else { x_bar };
        close(got, fd, "reverse over reverse, an array changed");
    }
    // The tangent along (ẏ, ẋ), and its gradient.
    let yd0 = [0.2, 0.1, -0.4, 0.3];
    let xd0 = -0.6;
    let slope = |y: &[f64], x: f64, yd: &[f64], xd: f64| {
        let mut out = 0.0;
        let (mut y, mut yd, mut xd) = (y.to_vec(), yd.to_vec(), xd);
        d::ripple_tangent(&mut out, &mut y, x, &mut yd, &mut xd).unwrap();
        out
    };
    let tangent: Vec<f64> = {
        let up: Vec<f64> = chain(
            &y0.iter()
                .zip(yd0)
                .map(|(a, b)| a + h * b)
                .collect::<Vec<_>>(),
            x0 + h * xd0,
        );
        let down: Vec<f64> = chain(
            &y0.iter()
                .zip(yd0)
                .map(|(a, b)| a - h * b)
                .collect::<Vec<_>>(),
            x0 - h * xd0,
        );
        up.iter()
            .zip(&down)
            .map(|(u, d)| (u - d) / (2.0 * h))
            .collect()
    };
    close(
        slope(&y0, x0, &yd0, xd0),
        tangent.iter().map(|t| t * t).sum(),
        "the tangent",
    );
    let (mut out, mut out_bar) = (0.0, 1.0);
    let (mut y, mut y_bar, mut yd, mut yd_bar) = (y0, [0.0; 4], yd0, [0.0; 4]);
    let (mut x_bar, mut xd, mut xd_bar) = (0.0, xd0, 0.0);
    d::ripple_tangent_grad(
        &mut out,
        &mut out_bar,
        &mut y,
        &mut y_bar,
        x0,
        &mut x_bar,
        &mut yd,
        &mut yd_bar,
        &mut xd,
        &mut xd_bar,
    )
    .unwrap();
    let mut z: Vec<f64> = y0.to_vec();
    z.push(x0);
    z.extend(yd0);
    z.push(xd0);
    let got: Vec<f64> = y_bar
        .iter()
        .chain([&x_bar])
        .chain(&yd_bar)
        .chain([&xd_bar])
        .copied()
        .collect();
    for k in 0..10 {
        let at = |s: f64| {
            let mut z = z.clone();
            z[k] += s;
            slope(&z[0..4], z[4], &z[5..9], z[9])
        };
        let fd = (at(hh) - at(-hh)) / (2.0 * hh);
        close(got[k], fd, "reverse over forward, an array changed");
    }
}

/// A gradient call of a function that records a tape: forwards, backwards,
/// and through the caller's gradient program (reverse over reverse); the
/// reverse pass of its inverse is not available, and says so.
#[test]
fn gradient_calls_of_a_function_that_records() {
    // tape_sum adds x² (1 + 2 + 3 + 4) = 10 x²: its gradient is 20 x.
    let (mut out, mut seed, mut gx) = (0.0, 1.0, 0.5);
    d::tape_sum_gradient(&mut out, &mut seed, 1.5, &mut gx).unwrap();
    close(gx, 0.5 + 30.0, "the gradient call");
    close(out, 0.0, "the output restored");
    d::uncall_tape_sum_gradient(&mut out, &mut seed, 1.5, &mut gx).unwrap();
    close(gx, 0.5, "its uncall");
    // d gx' / d(seed, x, gx) = (20 x, 20 seed, 1), seeded on gx'.
    let (mut out, mut out_bar, mut seed, mut seed_bar) = (0.0, 0.0, 2.0, 0.0);
    let (mut x_bar, mut gx, mut gx_bar) = (0.0, 0.0, 1.0);
    d::tape_sum_gradient_grad(
        &mut out,
        &mut out_bar,
        &mut seed,
        &mut seed_bar,
        1.5,
        &mut x_bar,
        &mut gx,
        &mut gx_bar,
    )
    .unwrap();
    close(seed_bar, 30.0, "d/dseed");
    close(x_bar, 40.0, "d/dx");
    close(gx_bar, 1.0, "d/dgx");
    // The function itself runs, and its gradient program reports what it
    // cannot do, naming `tape_sum`'s definition.
    let mut y = 0.0;
    d::tape_sum_slope(&mut y, 1.5).unwrap();
    close(y, 900.0, "(20 x)²");
    let (mut y, mut y_bar, mut x_bar) = (0.0, 1.0, 0.0);
    let e = d::tape_sum_slope_grad(&mut y, &mut y_bar, 1.5, &mut x_bar).unwrap_err();
    assert_eq!(e.check, nilang::Check::NotDifferentiable, "{e}");
    assert!(e.to_string().contains("derivatives.nil"), "{e}");
    assert!(e.to_string().contains("tape_sum"), "{e}");
}

/// A tangent call of a function that records a tape runs it on the
/// caller's tape: the caller records, its uncall takes that tape, and its
/// gradient program (reverse over forward) reads it back.
#[test]
fn tangent_calls_of_a_function_that_records() {
    let mut tape = nilang::Tape::new();
    let mut out = 1.0;
    d::tape_sum_tangent(&mut out, 1.5, 0.25, &mut tape).unwrap();
    close(out, 1.0 + 20.0 * 1.5 * 0.25, "the tangent, 20 x t");
    assert!(!tape.is_empty(), "the caller recorded");
    d::uncall_tape_sum_tangent(&mut out, 1.5, 0.25, &mut tape).unwrap();
    close(out, 1.0, "its uncall");
    assert!(tape.is_empty(), "the uncall took back what was recorded");
    // d out / d(x, t) = (20 t, 20 x).
    let (mut out, mut out_bar, mut x_bar, mut t_bar) = (0.0, 1.0, 0.0, 0.0);
    d::tape_sum_tangent_grad(&mut out, &mut out_bar, 1.5, &mut x_bar, 0.25, &mut t_bar).unwrap();
    close(x_bar, 5.0, "d/dx");
    close(t_bar, 30.0, "d/dt");
    // Two adjoints in one sweep: each lane reads the tape from a copy.
    let (mut out, mut out_bar, mut x_bar, mut t_bar) = (0.0, [1.0, 2.0], [0.0; 2], [0.0; 2]);
    d::tape_sum_tangent_grad(&mut out, &mut out_bar, 1.5, &mut x_bar, 0.25, &mut t_bar).unwrap();
    close(x_bar[1], 10.0, "d/dx, lane 2");
    close(t_bar[1], 60.0, "d/dt, lane 2");
}

/// A tangent call whose companion is shorter than its array (`x` of four
/// elements, the tangent `zeros(T, 2)` of `field_energy_fwd`) stops with a
/// shape error, rolled back, instead of reading past the companion's end
/// (it panicked, found by `tests/interpreter.rs`).
#[test]
fn a_companion_shorter_than_its_array_is_a_shape_error() {
    let mut out = 0.5;
    let err = d::field_energy_fwd(&mut out, &[1.0, 2.0, 3.0, 4.0], 0.5).unwrap_err();
    assert_eq!(err.check, nilang::Check::Shape);
    let text = err.to_string();
    assert!(
        text.contains("the companion of argument 2 of `(∂potential)` must be as long as the argument (expected 4, found 2)"),
        "{text}"
    );
    assert_eq!(out, 0.5, "the call is rolled back");
}

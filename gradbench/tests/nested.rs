//! The nested derivatives of `particle.nil` and `saddle.nil` on their own:
//! the outer derivative of each cost, whose inner derivative is a
//! derivative call, against central differences of the cost, in each of
//! the four nestings: taken from Rust (the gradient program or dual numbers
//! outside, `(∇f)` or `(∂f)` inside), and taken in `.nil` by the solvers'
//! `particle_slope` and `saddle_gradient` (`(∇f)` or `(∂f)` outside too).

use nilang_gradbench::nil::{particle, saddle};
use nilang_runtime::Dual;

fn close(got: f64, want: f64, what: &str) {
    assert!(
        (got - want).abs() <= 1e-5 * want.abs().max(1e-3),
        "{what}: {got} against {want}"
    );
}

/// Central differences of `cost` at `a`, one per coordinate.
fn differences(cost: &dyn Fn([f64; 2]) -> f64, a: [f64; 2]) -> [f64; 2] {
    let h = 1e-6;
    [0, 1].map(|k| {
        let (mut p, mut m) = (a, a);
        p[k] += h;
        m[k] -= h;
        (cost(p) - cost(m)) / (2.0 * h)
    })
}

type Cost = fn(&mut f64, f64) -> nilang_runtime::Result;

fn miss(f: Cost, w: f64) -> f64 {
    let mut out = 0.0;
    f(&mut out, w).unwrap();
    out
}

#[test]
fn the_particles_cost_has_the_slope_of_its_differences() {
    // Away from the points where the number of Euler steps changes, the
    // cost is smooth in w.
    for w in [0.0, 0.15, 0.3] {
        let h = 1e-6;
        let fd = (miss(particle::miss_r, w + h) - miss(particle::miss_r, w - h)) / (2.0 * h);
        close(
            miss(particle::miss_f, w),
            miss(particle::miss_r, w),
            "the two inner modes",
        );
        let (mut out, mut out_bar, mut w_bar) = (0.0, 1.0, 0.0);
        particle::miss_r_grad(&mut out, &mut out_bar, w, &mut w_bar).unwrap();
        close(w_bar, fd, "reverse over reverse");
        let (mut out, mut out_bar, mut w_bar) = (0.0, 1.0, 0.0);
        particle::miss_f_grad(&mut out, &mut out_bar, w, &mut w_bar).unwrap();
        close(w_bar, fd, "reverse over forward");
        for (name, f) in [
            (
                "forward over reverse",
                particle::miss_r::<Dual<f64>>
                    as fn(&mut Dual<f64>, Dual<f64>) -> nilang_runtime::Result,
            ),
            ("forward over forward", particle::miss_f::<Dual<f64>>),
        ] {
            let mut out = Dual::constant(0.0);
            f(&mut out, Dual::variable(w)).unwrap();
            close(out.eps, fd, name);
        }
    }
}

#[test]
fn the_saddles_inner_maximum_has_the_gradient_of_its_differences() {
    let start = [1.0, 1.0];
    let cost = |a: [f64; 2]| {
        let mut out = 0.0;
        saddle::max_cost_r(&mut out, &a, &start).unwrap();
        out
    };
    for a in [[0.5, -0.25], [1.0, 1.0]] {
        let fd = differences(&cost, a);
        for inner in ["reverse", "forward"] {
            let (mut out, mut out_bar, mut a_bar) = (0.0, 1.0, [0.0; 2]);
            if inner == "reverse" {
                saddle::max_cost_r_grad(&mut out, &mut out_bar, &a, &mut a_bar, &start)
            } else {
                saddle::max_cost_f_grad(&mut out, &mut out_bar, &a, &mut a_bar, &start)
            }
            .unwrap();
            close(a_bar[0], fd[0], inner);
            close(a_bar[1], fd[1], inner);
            for (k, want) in fd.into_iter().enumerate() {
                let ad = [0, 1].map(|i| Dual::new(a[i], if i == k { 1.0 } else { 0.0 }));
                let sd = start.map(Dual::constant);
                let mut out = Dual::constant(0.0);
                if inner == "reverse" {
                    saddle::max_cost_r(&mut out, &ad, &sd)
                } else {
                    saddle::max_cost_f(&mut out, &ad, &sd)
                }
                .unwrap();
                close(out.eps, want, "forward outside");
            }
        }
    }
}

/// The four nestings as `particle_slope`'s and `saddle_gradient`'s flags
/// (`outer_reverse`, `inner_reverse`).
const NESTINGS: [(bool, bool); 4] = [(false, false), (false, true), (true, false), (true, true)];

#[test]
fn the_particles_slope_in_nil_is_that_of_its_differences() {
    for w in [0.0, 0.15, 0.3] {
        let h = 1e-6;
        let fd = (miss(particle::miss_r, w + h) - miss(particle::miss_r, w - h)) / (2.0 * h);
        for (outer_reverse, inner_reverse) in NESTINGS {
            let (mut g, mut c) = (0.0, 0.0);
            particle::particle_slope(&mut g, &mut c, w, outer_reverse, inner_reverse).unwrap();
            let what = format!("outer reverse {outer_reverse}, inner reverse {inner_reverse}");
            close(g, fd, &what);
            // The tangent program leaves the cost in `c`; the gradient
            // program leaves `c` as it was.
            let want = if outer_reverse {
                0.0
            } else {
                miss(particle::miss_r, w)
            };
            close(c, want, &what);
        }
    }
}

#[test]
fn the_saddles_gradient_in_nil_is_that_of_its_differences() {
    let start = [1.0, 1.0];
    let cost = |a: [f64; 2]| {
        let mut out = 0.0;
        saddle::saddle_cost(&mut out, &a, &start, true).unwrap();
        out
    };
    for a in [[0.5, -0.25], [1.0, 1.0]] {
        let fd = differences(&cost, a);
        for (outer_reverse, inner_reverse) in NESTINGS {
            let (mut g, mut c) = ([0.0; 2], 0.0);
            saddle::saddle_gradient(&mut g, &mut c, &a, &start, outer_reverse, inner_reverse)
                .unwrap();
            let what = format!("outer reverse {outer_reverse}, inner reverse {inner_reverse}");
            close(g[0], fd[0], &what);
            close(g[1], fd[1], &what);
            // One tangent program a coordinate, each adding the cost.
            let want = if outer_reverse { 0.0 } else { 2.0 * cost(a) };
            close(c, want, &what);
        }
    }
}

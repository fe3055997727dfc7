//! The heat equation (`heat.nil`) run through Bennett's schedule
//! (`nilang_runtime::bennett`): the same last state as plain iteration, few states
//! alive, and a gradient through 100 steps that agrees with differences.

use nilang_examples::heat;
use nilang_runtime::bennett::Bennett;

const R: f64 = 0.25;
const STEPS: usize = 100;
const K: usize = 4;

fn initial(n: usize) -> Vec<f64> {
    (0..n)
        .map(|i| {
            let t = i as f64 / (n - 1) as f64;
            (3.0 * t).sin() + 0.5 * t
        })
        .collect()
}

/// `STEPS` steps one after the other, each into a fresh zero state.
fn plain(x0: &[f64]) -> Vec<f64> {
    let mut x = x0.to_vec();
    for _ in 0..STEPS {
        let mut y = vec![0.0; x.len()];
        heat::heat_step(&mut y, &x, R).unwrap();
        x = y;
    }
    x
}

fn loss(xn: &[f64]) -> f64 {
    xn.iter().map(|v| v * v).sum()
}

fn step(y: &mut [f64], x: &[f64]) -> nilang_runtime::Result {
    heat::heat_step(y, x, R)
}

fn unstep(y: &mut [f64], x: &[f64]) -> nilang_runtime::Result {
    heat::uncall_heat_step(y, x, R)
}

#[test]
fn bennett_matches_plain_iteration_with_few_states() {
    let x0 = initial(24);
    let b = Bennett::new(K, 1e-10).unwrap();
    let (last, counts) = b.run(&x0, STEPS, step, unstep).unwrap();
    assert_eq!(last, plain(&x0));
    // 100 < 4^4: four levels, at most 4 (k - 1) + 2 states alive, against
    // the 101 of keeping every state.
    assert!(counts.peak_states <= 4 * (K - 1) + 2, "{counts:?}");
    assert!(counts.total() > STEPS as u64, "{counts:?}");
}

#[test]
fn gradient_through_bennett_agrees_with_differences() {
    let x0 = initial(24);
    let b = Bennett::new(K, 1e-10).unwrap();
    let xn = plain(&x0);
    let xn_bar: Vec<f64> = xn.iter().map(|v| 2.0 * v).collect();
    let mut r_bar = 0.0;
    let mut r_bar2 = 0.0;
    let (last, x0_bar, counts) = b
        .gradient(
            &x0,
            STEPS,
            &xn_bar,
            step,
            unstep,
            |y, yb, x, xb| heat::heat_step_adjoint(y, yb, x, xb, R, &mut r_bar),
            |y, yb, x, xb| heat::uncall_heat_step_adjoint(y, yb, x, xb, R, &mut r_bar2),
        )
        .unwrap();
    assert_eq!(last, xn);
    assert!(counts.peak_states <= 4 * (K - 1) + 2, "{counts:?}");
    nilang_runtime::check_gradient(|x| loss(&plain(x)), &x0, &x0_bar, 1e-6, 1e-8).unwrap();
    // A wrong seed gives a different gradient: the check can fail.
    let doubled: Vec<f64> = x0_bar.iter().map(|g| 2.0 * g).collect();
    assert!(
        nilang_runtime::check_gradient(|x| loss(&plain(x)), &x0, &doubled, 1e-6, 1e-8).is_err()
    );
}

//! Embedding the Petersen graph (the long paper, seed 000, section 4.5).
//!
//! Trains the positions of the ten vertices in k = 5 dimensions with Adam on
//! the gradient generated from `graph.nil`, then with a damped Newton method
//! on its Hessian (the gradient program run on dual numbers), and prints the
//! ratio of the two distances; then shows that in k = 1 to 4 dimensions the
//! loss stays well above zero.
//!
//! `cargo run --release -p nilang-examples --bin petersen`

use std::time::Instant;

use nilang_examples::petersen::{self, L1, L2, Rng};

fn main() -> Result<(), nilang_runtime::Error> {
    let k = 5;
    let seed = 1;
    let start = Rng::new(seed).positions(k);
    println!("Petersen graph in k = {k} dimensions, vertices 1 and 2 fixed, start seed {seed}");

    println!("Adam, learning rate 0.01:");
    let mut x = start.clone();
    let t = Instant::now();
    let steps = 3000;
    let f = petersen::adam(&mut x, k, steps, 0.01, |step, f| {
        if step == 1 || step % 500 == 0 {
            println!("  step {step:5}: loss {f:.3e}");
        }
    })?;
    println!(
        "  after {steps} steps: loss {f:.3e}, l2/l1 = {:.10} ({:.1?})",
        petersen::ratio(&x, k),
        t.elapsed()
    );

    println!("Newton on the generated Hessian (Levenberg-Marquardt damping), same start:");
    let mut x = start;
    let t = Instant::now();
    let r = petersen::newton(&mut x, k, 200, 0.0)?;
    let elapsed = t.elapsed();
    let (d1, d2) = (
        petersen::distances(&x, k, &L1),
        petersen::distances(&x, k, &L2),
    );
    let spread = |d: &[f64]| {
        let (lo, hi) = d.iter().fold((f64::INFINITY, 0.0_f64), |(lo, hi), &v| {
            (lo.min(v), hi.max(v))
        });
        (lo, hi)
    };
    let ((a1, b1), (a2, b2)) = (spread(&d1), spread(&d2));
    println!(
        "  {} Hessians: loss {:.3e} (the same loss in plain Rust, two-pass variance: {:.3e}) ({elapsed:.1?})",
        r.hessians,
        r.loss,
        petersen::plain_loss(&x, k)
    );
    println!("  edges:     {a1:.12} to {b1:.12}");
    println!("  non-edges: {a2:.12} to {b2:.12}");
    println!(
        "  l2/l1 = {:.12} (sqrt 2 = {:.12})",
        petersen::ratio(&x, k),
        std::f64::consts::SQRT_2
    );

    let starts = 10;
    println!("Fewer dimensions: the lowest loss Newton reaches from {starts} random starts");
    for k in 1..=4 {
        let t = Instant::now();
        let best = petersen::best_of(k, starts, 100, 200)?;
        println!("  k = {k}: {best:.6} ({:.1?})", t.elapsed());
    }
    Ok(())
}

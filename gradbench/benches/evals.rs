//! The evals at GradBench's default sizes: each function's primal and its
//! gradient program, for the derivative / primal ratios in BENCHMARKS.md.
//! The inputs are uniform in [0, 1) as GradBench's (seeded here with a
//! splitmix generator rather than numpy's).
//!
//! `cargo bench -p nilang-gradbench --bench evals`

use nilang_gradbench::{llsq, lse};

fn main() {
    divan::main();
}

/// `n` numbers in [0, 1), seeded.
fn uniform(n: usize, seed: u64) -> Vec<f64> {
    let mut state = seed;
    (0..n)
        .map(|_| {
            state = state.wrapping_add(0x9e37_79b9_7f4a_7c15);
            let mut z = state;
            z = (z ^ (z >> 30)).wrapping_mul(0xbf58_476d_1ce4_e5b9);
            z = (z ^ (z >> 27)).wrapping_mul(0x94d0_49bb_1331_11eb);
            ((z ^ (z >> 31)) >> 11) as f64 / (1u64 << 53) as f64
        })
        .collect()
}

#[divan::bench(args = [10_000, 160_000, 1_280_000])]
fn lse_primal(bencher: divan::Bencher, n: usize) {
    let x = uniform(n, 31337);
    let mut runmax = vec![0.0; n];
    bencher.bench_local(|| {
        let mut out = 0.0;
        lse::lse(&mut out, &x, &mut runmax).unwrap();
        out
    });
}

#[divan::bench(args = [10_000, 160_000, 1_280_000])]
fn lse_gradient(bencher: divan::Bencher, n: usize) {
    let x = uniform(n, 31337);
    let (mut runmax, mut runmax_bar, mut x_bar) = (vec![0.0; n], vec![0.0; n], vec![0.0; n]);
    bencher.bench_local(|| {
        let (mut out, mut out_bar) = (0.0, 1.0);
        x_bar.fill(0.0);
        lse::lse_grad(
            &mut out,
            &mut out_bar,
            &x,
            &mut x_bar,
            &mut runmax,
            &mut runmax_bar,
        )
        .unwrap();
        x_bar[0]
    });
}

/// m = 128 (GradBench's default), n points.
#[divan::bench(args = [1024, 4096, 16392])]
fn llsq_primal(bencher: divan::Bencher, n: i64) {
    let x = uniform(128, 31337);
    bencher.bench_local(|| {
        let mut y = 0.0;
        llsq::llsq(&mut y, &x, n).unwrap();
        y
    });
}

#[divan::bench(args = [1024, 4096, 16392])]
fn llsq_gradient(bencher: divan::Bencher, n: i64) {
    let x = uniform(128, 31337);
    let mut x_bar = vec![0.0; 128];
    bencher.bench_local(|| {
        let (mut y, mut y_bar) = (0.0, 1.0);
        x_bar.fill(0.0);
        llsq::llsq_grad(&mut y, &mut y_bar, &x, &mut x_bar, n).unwrap();
        x_bar[0]
    });
}

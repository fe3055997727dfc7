//! ADBench's GMM on the 10k-point inputs: the plain-Rust objective, the
//! `.nil` objective (with and without run-time checks), the `.nil` gradient
//! (`gmm_objective_grad`) and the hand-written gradient. Run with
//! `cargo bench -p nilang-adbench --bench gmm`; ADBench's headline number is
//! gradient time over objective time.

use divan::black_box;
use nilang_adbench::gmm::{self, Gmm};
use nilang_adbench::{data_dir, gmm_nil, unchecked};

const FILES: &[&str] = &["gmm_d2_K5", "gmm_d10_K5", "gmm_d2_K200", "gmm_d10_K50"];

fn main() {
    divan::main();
}

fn load(name: &str) -> Gmm {
    Gmm::read(data_dir().join("gmm/10k").join(format!("{name}.txt"))).unwrap()
}

#[divan::bench(args = FILES, sample_count = 10, sample_size = 1)]
fn plain_objective(bencher: divan::Bencher, name: &str) {
    let g = load(name);
    bencher.bench(|| gmm::objective(black_box(&g)));
}

macro_rules! nil_objective {
    ($module:path, $g:expr, $c:expr) => {{
        use $module as m;
        let g = $g;
        let mut out = 0.0;
        m::gmm_objective(
            &mut out, &g.alphas, &g.means, &g.icf, &g.x, g.d as i64, g.k as i64, g.n as i64,
            g.gamma, g.m, $c,
        )
        .unwrap();
        out
    }};
}

#[divan::bench(args = FILES, sample_count = 10, sample_size = 1)]
fn nil_objective(bencher: divan::Bencher, name: &str) {
    let g = load(name);
    let c = g.constant_term();
    bencher.bench(|| nil_objective!(gmm_nil, black_box(&g), c));
}

#[divan::bench(args = FILES, sample_count = 10, sample_size = 1)]
fn nil_objective_unchecked(bencher: divan::Bencher, name: &str) {
    let g = load(name);
    let c = g.constant_term();
    bencher.bench(|| nil_objective!(unchecked::gmm_nil, black_box(&g), c));
}

/// Buffers for the gradient's adjoints, allocated once per benchmark.
struct Bars {
    alphas: Vec<f64>,
    means: Vec<f64>,
    icf: Vec<f64>,
    x: Vec<f64>,
}

macro_rules! nil_gradient {
    ($module:path, $g:expr, $c:expr, $b:expr) => {{
        use $module as m;
        let (g, b): (&Gmm, &mut Bars) = ($g, $b);
        b.alphas.fill(0.0);
        b.means.fill(0.0);
        b.icf.fill(0.0);
        b.x.fill(0.0);
        let (mut out, mut out_bar, mut gamma_bar, mut c_bar) = (0.0, 1.0, 0.0, 0.0);
        m::gmm_objective_grad(
            &mut out,
            &mut out_bar,
            &g.alphas,
            &mut b.alphas,
            &g.means,
            &mut b.means,
            &g.icf,
            &mut b.icf,
            &g.x,
            &mut b.x,
            g.d as i64,
            g.k as i64,
            g.n as i64,
            g.gamma,
            &mut gamma_bar,
            g.m,
            $c,
            &mut c_bar,
        )
        .unwrap();
        b.alphas[0]
    }};
}

fn bars(g: &Gmm) -> Bars {
    Bars {
        alphas: vec![0.0; g.alphas.len()],
        means: vec![0.0; g.means.len()],
        icf: vec![0.0; g.icf.len()],
        x: vec![0.0; g.x.len()],
    }
}

#[divan::bench(args = FILES, sample_count = 10, sample_size = 1)]
fn nil_gradient(bencher: divan::Bencher, name: &str) {
    let g = load(name);
    let c = g.constant_term();
    let mut b = bars(&g);
    bencher.bench_local(|| nil_gradient!(gmm_nil, black_box(&g), c, &mut b));
}

#[divan::bench(args = FILES, sample_count = 10, sample_size = 1)]
fn nil_gradient_unchecked(bencher: divan::Bencher, name: &str) {
    let g = load(name);
    let c = g.constant_term();
    let mut b = bars(&g);
    bencher.bench_local(|| nil_gradient!(unchecked::gmm_nil, black_box(&g), c, &mut b));
}

#[divan::bench(args = FILES, sample_count = 10, sample_size = 1)]
fn manual_gradient(bencher: divan::Bencher, name: &str) {
    let g = load(name);
    let mut grad = vec![0.0; g.n_params()];
    bencher.bench_local(|| {
        gmm::manual_gradient(black_box(&g), &mut grad);
        grad[0]
    });
}

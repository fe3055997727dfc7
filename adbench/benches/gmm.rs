//! ADBench's GMM on the 10k-point inputs: the plain-Rust objective, the
//! `.nil` objective (with and without run-time checks), the `.nil` gradient
//! (`gmm_objective_grad`) and the hand-written gradient. Run with
//! `cargo bench -p nilang-adbench --bench gmm`; ADBench's headline number is
//! gradient time over objective time.

use divan::black_box;
use nilang_adbench::gmm::{self, Bars, Gmm};
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

/// No run-time checks, but every uncomputation run: the checked build's
/// work without its checks.
#[divan::bench(args = FILES, sample_count = 10, sample_size = 1)]
fn nil_objective_uncomputing(bencher: divan::Bencher, name: &str) {
    let g = load(name);
    let c = g.constant_term();
    bencher.bench(|| nil_objective!(unchecked::uncomputing::gmm_nil, black_box(&g), c));
}

#[divan::bench(args = FILES, sample_count = 10, sample_size = 1)]
fn nil_gradient(bencher: divan::Bencher, name: &str) {
    let g = load(name);
    let c = g.constant_term();
    let mut b = Bars::new(&g);
    bencher.bench_local(|| {
        b.run(gmm_nil::gmm_objective_grad, black_box(&g), c)
            .unwrap();
        b.alphas[0]
    });
}

#[divan::bench(args = FILES, sample_count = 10, sample_size = 1)]
fn nil_gradient_unchecked(bencher: divan::Bencher, name: &str) {
    let g = load(name);
    let c = g.constant_term();
    let mut b = Bars::new(&g);
    bencher.bench_local(|| {
        b.run(unchecked::gmm_nil::gmm_objective_grad, black_box(&g), c)
            .unwrap();
        b.alphas[0]
    });
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

/// The checked gradient's body alone (`__nil_gmm_objective_grad`), without
/// the entry point's rollback copies (of every `_bar` array; the data `x`
/// is `Const` and has none): beside `nil_gradient`, the cost of the
/// rollback.
#[divan::bench(args = FILES, sample_count = 10, sample_size = 1)]
fn nil_gradient_body_only(bencher: divan::Bencher, name: &str) {
    let g = load(name);
    let c = g.constant_term();
    let mut b = Bars::new(&g);
    bencher.bench_local(|| {
        b.run(gmm_nil::__nil_gmm_objective_grad, black_box(&g), c)
            .unwrap();
        b.alphas[0]
    });
}

/// The checked objective's body alone (`__nil_gmm_objective`): beside
/// `nil_objective`, the cost of the rollback copy of `out`.
#[divan::bench(args = FILES, sample_count = 10, sample_size = 1)]
fn nil_objective_body_only(bencher: divan::Bencher, name: &str) {
    let g = load(name);
    let c = g.constant_term();
    bencher.bench(|| {
        let g = black_box(&g);
        let mut out = 0.0;
        gmm_nil::__nil_gmm_objective(
            &mut out, &g.alphas, &g.means, &g.icf, &g.x, g.d as i64, g.k as i64, g.n as i64,
            g.gamma, g.m, c,
        )
        .unwrap();
        out
    });
}

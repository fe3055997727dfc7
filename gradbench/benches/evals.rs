//! The evals at GradBench's default sizes: each function's primal and its
//! gradient program, for the derivative / primal ratios in BENCHMARKS.md.
//! The inputs are uniform in [0, 1) as GradBench's (seeded here with a
//! splitmix generator rather than numpy's).
//!
//! `cargo bench -p nilang-gradbench --bench evals`

use nilang_gradbench::{det, gmm_posterior, kmeans, llsq, lse, lstm, ode};
use nilang_runtime::num_dual::Dual64;

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

/// GMM at n = 1000 (GradBench's), for some of its (d, k): inputs as its
/// generator draws them (x, alpha, q, l normal, mu uniform), m = 0, γ = 1.
const GMM: [(usize, usize); 4] = [(2, 5), (10, 25), (20, 50), (64, 100)];

struct GmmInput {
    d: i64,
    k: i64,
    alpha: Vec<f64>,
    mu: Vec<f64>,
    icf: Vec<f64>,
    x: Vec<f64>,
}

fn gmm_input(case: usize) -> GmmInput {
    let (d, k) = GMM[case];
    let normal = |n: usize, seed: u64| -> Vec<f64> {
        let u = uniform(2 * n, seed);
        (0..n)
            .map(|i| {
                (-2.0 * (1.0 - u[2 * i]).ln()).sqrt() * (std::f64::consts::TAU * u[2 * i + 1]).cos()
            })
            .collect()
    };
    let l_sz = d * (d - 1) / 2;
    let (q, l) = (normal(k * d, 3), normal(k * l_sz, 4));
    let mut icf = Vec::new();
    for kk in 0..k {
        icf.extend_from_slice(&q[kk * d..(kk + 1) * d]);
        icf.extend_from_slice(&l[kk * l_sz..(kk + 1) * l_sz]);
    }
    GmmInput {
        d: d as i64,
        k: k as i64,
        alpha: normal(k, 1),
        mu: uniform(k * d, 2),
        icf,
        x: normal(1000 * d, 5),
    }
}

#[divan::bench(args = [0, 1, 2, 3], sample_count = 10, sample_size = 1)]
fn gmm_objective(bencher: divan::Bencher, case: usize) {
    let g = gmm_input(case);
    bencher.bench_local(|| {
        let mut out = 0.0;
        gmm_posterior::gmm_posterior(
            &mut out, &g.alpha, &g.mu, &g.icf, &g.x, g.d, g.k, 1000, 1.0, 0, 0.0,
        )
        .unwrap();
        out
    });
}

#[divan::bench(args = [0, 1, 2, 3], sample_count = 10, sample_size = 1)]
fn gmm_jacobian(bencher: divan::Bencher, case: usize) {
    let g = gmm_input(case);
    let mut bars = [g.alpha.len(), g.mu.len(), g.icf.len(), g.x.len()].map(|len| vec![0.0; len]);
    bencher.bench_local(|| {
        let (mut out, mut out_bar, mut gamma_bar, mut c_bar) = (0.0, 1.0, 0.0, 0.0);
        bars.iter_mut().for_each(|b| b.fill(0.0));
        let [a, m, i, x] = &mut bars;
        gmm_posterior::gmm_posterior_grad(
            &mut out,
            &mut out_bar,
            &g.alpha,
            a,
            &g.mu,
            m,
            &g.icf,
            i,
            &g.x,
            x,
            g.d,
            g.k,
            1000,
            1.0,
            &mut gamma_bar,
            0,
            0.0,
            &mut c_bar,
        )
        .unwrap();
        out
    });
}

/// BA instances as GradBench sends them: the header and the one camera,
/// point, weight and feature of ADBench's file, expanded by the tool's
/// rule (`adbench/data/ba`).
const BA: [&str; 3] = [
    "ba1_n49_m7776_p31843",
    "ba4_n372_m47423_p204472",
    "ba8_n88_m64298_p383937",
];

fn ba_input(name: &str) -> nilang_adbench::ba::BaInput {
    let path = format!(
        "{}/../adbench/data/ba/{name}.txt",
        env!("CARGO_MANIFEST_DIR")
    );
    let text = std::fs::read_to_string(&path).expect("an ADBench BA file");
    let mut lines = text.lines().map(|l| {
        l.split_whitespace()
            .map(|t| t.parse::<f64>().expect("a number"))
            .collect::<Vec<f64>>()
    });
    let mut next = || lines.next().expect("the header lines");
    let header = next();
    let (n, m, p) = (header[0] as usize, header[1] as usize, header[2] as usize);
    let (cam, x, w, feat) = (next(), next(), next()[0], next());
    nilang_adbench::ba::BaInput {
        n,
        m,
        p,
        cams: cam.repeat(n),
        points: x.repeat(m),
        weights: vec![w; p],
        feats: feat.repeat(p),
        obs: (0..p).map(|i| (i % n, i % m)).collect(),
    }
}

#[divan::bench(args = BA, sample_count = 10, sample_size = 1)]
fn ba_objective(bencher: divan::Bencher, name: &str) {
    let ba = ba_input(name);
    let (mut reproj, mut w_err) = (vec![0.0; 2 * ba.p], vec![0.0; ba.p]);
    bencher
        .bench_local(|| nilang_adbench::ba::nil_residuals(&ba, &mut reproj, &mut w_err).unwrap());
}

#[divan::bench(args = BA, sample_count = 10, sample_size = 1)]
fn ba_jacobian(bencher: divan::Bencher, name: &str) {
    let ba = ba_input(name);
    let mut jac = nilang_adbench::ba::BaJacobian::new(&ba);
    bencher.bench_local(|| nilang_adbench::ba::nil_jacobian(&ba, &mut jac).unwrap());
}

/// The determinant by minors of an ell × ell matrix (GradBench: ell 5-11).
#[divan::bench(args = [5, 7, 9], sample_count = 10, sample_size = 1)]
fn det_primal(bencher: divan::Bencher, ell: i64) {
    let a = uniform((ell * ell) as usize, 31337);
    bencher.bench_local(|| {
        let mut out = 0.0;
        det::det(&mut out, &a, ell).unwrap();
        out
    });
}

#[divan::bench(args = [5, 7, 9], sample_count = 10, sample_size = 1)]
fn det_gradient(bencher: divan::Bencher, ell: i64) {
    let a = uniform((ell * ell) as usize, 31337);
    let mut a_bar = vec![0.0; a.len()];
    bencher.bench_local(|| {
        let (mut out, mut out_bar) = (0.0, 1.0);
        a_bar.fill(0.0);
        det::det_grad(&mut out, &mut out_bar, &a, &mut a_bar, ell).unwrap();
        out
    });
}

/// k-means at (n, k, d) of GradBench's: points uniform, the centroids the
/// last k points.
const KMEANS: [(usize, usize, usize); 2] = [(1000, 10, 8), (10_000, 100, 16)];

#[divan::bench(args = [0, 1], sample_count = 10, sample_size = 1)]
fn kmeans_cost(bencher: divan::Bencher, case: usize) {
    let (n, k, d) = KMEANS[case];
    let p = uniform(n * d, 31337);
    let c = p[(n - k) * d..].to_vec();
    let (mut dist, mut runmin) = (vec![0.0; k], vec![0.0; k]);
    bencher.bench_local(|| {
        let mut cost = 0.0;
        kmeans::kmeans_cost(
            &mut cost,
            &p,
            &c,
            n as i64,
            k as i64,
            d as i64,
            &mut dist,
            &mut runmin,
        )
        .unwrap();
        cost
    });
}

/// Newton's direction: the gradient program on dual numbers (J and the
/// Hessian's diagonal in one sweep), then J / H.
#[divan::bench(args = [0, 1], sample_count = 10, sample_size = 1)]
fn kmeans_dir(bencher: divan::Bencher, case: usize) {
    let (n, k, d) = KMEANS[case];
    let p = uniform(n * d, 31337);
    let zero = Dual64::from(0.0);
    let pd: Vec<Dual64> = p.iter().map(|&v| Dual64::from(v)).collect();
    let cd: Vec<Dual64> = p[(n - k) * d..]
        .iter()
        .map(|&v| Dual64::new(v, 1.0))
        .collect();
    let (mut pd_bar, mut cd_bar) = (vec![zero; pd.len()], vec![zero; cd.len()]);
    let (mut dist, mut dist_bar, mut runmin, mut runmin_bar) =
        (vec![zero; k], vec![zero; k], vec![zero; k], vec![zero; k]);
    let mut dir = vec![0.0; cd.len()];
    bencher.bench_local(|| {
        let (mut cost, mut cost_bar) = (zero, Dual64::from(1.0));
        pd_bar.fill(zero);
        cd_bar.fill(zero);
        kmeans::kmeans_cost_grad(
            &mut cost,
            &mut cost_bar,
            &pd,
            &mut pd_bar,
            &cd,
            &mut cd_bar,
            n as i64,
            k as i64,
            d as i64,
            &mut dist,
            &mut dist_bar,
            &mut runmin,
            &mut runmin_bar,
        )
        .unwrap();
        for (out, g) in dir.iter_mut().zip(&cd_bar) {
            *out = g.re / g.eps;
        }
        dir[0]
    });
}

/// The ODE at (n, s) of GradBench's.
const ODE: [(usize, i64); 3] = [(1000, 10), (10_000, 100), (100_000, 10)];

#[divan::bench(args = [0, 1, 2], sample_count = 10, sample_size = 1)]
fn ode_primal(bencher: divan::Bencher, case: usize) {
    let (n, s) = ODE[case];
    let x = uniform(n, 31337);
    let mut ys = vec![0.0; (s as usize + 1) * n];
    let mut ks = [0; 4].map(|_| vec![0.0; n]);
    let mut yf = vec![0.0; n];
    bencher.bench_local(|| {
        yf.fill(0.0);
        let [k1, k2, k3, k4] = &mut ks;
        ode::ode(&mut yf, &x, s, &mut ys, k1, k2, k3, k4).unwrap();
        yf[n - 1]
    });
}

#[divan::bench(args = [0, 1, 2], sample_count = 10, sample_size = 1)]
fn ode_gradient(bencher: divan::Bencher, case: usize) {
    let (n, s) = ODE[case];
    let x = uniform(n, 31337);
    let (mut ys, mut ys_bar) = (
        vec![0.0; (s as usize + 1) * n],
        vec![0.0; (s as usize + 1) * n],
    );
    let (mut ks, mut ks_bar) = ([0; 4].map(|_| vec![0.0; n]), [0; 4].map(|_| vec![0.0; n]));
    let (mut yf, mut yf_bar, mut x_bar) = (vec![0.0; n], vec![0.0; n], vec![0.0; n]);
    bencher.bench_local(|| {
        yf.fill(0.0);
        yf_bar.fill(0.0);
        yf_bar[n - 1] = 1.0;
        x_bar.fill(0.0);
        let [k1, k2, k3, k4] = &mut ks;
        let [k1b, k2b, k3b, k4b] = &mut ks_bar;
        ode::ode_grad(
            &mut yf,
            &mut yf_bar,
            &x,
            &mut x_bar,
            s,
            &mut ys,
            &mut ys_bar,
            k1,
            k1b,
            k2,
            k2b,
            k3,
            k3b,
            k4,
            k4b,
        )
        .unwrap();
        x_bar[0]
    });
}

/// The LSTM at (l, c) of GradBench's, b = 14 bits a character (its text's
/// characters take 7 bits; ADBench's b is 14), inputs uniform.
const LSTM: [(usize, usize); 3] = [(2, 1024), (4, 4096), (6, 8192)];
const LSTM_B: usize = 14;

struct LstmInput {
    l: i64,
    c: i64,
    main: Vec<f64>,
    extra: Vec<f64>,
    state: Vec<f64>,
    seq: Vec<f64>,
    work: [Vec<f64>; 5],
}

fn lstm_input(case: usize) -> LstmInput {
    let (l, c) = LSTM[case];
    let b = LSTM_B;
    LstmInput {
        l: l as i64,
        c: c as i64,
        main: uniform(8 * b * l, 1),
        extra: uniform(3 * b, 2),
        state: uniform(2 * b * l, 3),
        seq: uniform(c * b, 4),
        work: [
            vec![0.0; c * l * b],
            vec![0.0; c * l * b],
            vec![0.0; (c - 1) * l * b],
            vec![0.0; c - 1],
            vec![0.0; c - 1],
        ],
    }
}

#[divan::bench(args = [0, 1, 2], sample_count = 10, sample_size = 1)]
fn lstm_objective(bencher: divan::Bencher, case: usize) {
    let mut x = lstm_input(case);
    bencher.bench_local(|| {
        let mut loss = 0.0;
        let [h, c, i, s, g] = &mut x.work;
        lstm::lstm_objective(
            &mut loss,
            &x.main,
            &x.extra,
            &x.state,
            &x.seq,
            x.l,
            x.c,
            LSTM_B as i64,
            h,
            c,
            i,
            s,
            g,
        )
        .unwrap();
        loss
    });
}

#[divan::bench(args = [0, 1, 2], sample_count = 10, sample_size = 1)]
fn lstm_jacobian(bencher: divan::Bencher, case: usize) {
    let mut x = lstm_input(case);
    let mut bars = [&x.main, &x.extra, &x.state, &x.seq].map(|v| vec![0.0; v.len()]);
    let mut work_bars = x.work.clone();
    bencher.bench_local(|| {
        let (mut loss, mut loss_bar) = (0.0, 1.0);
        bars.iter_mut().for_each(|v| v.fill(0.0));
        let [mb, eb, sb, qb] = &mut bars;
        let [h, c, i, s, g] = &mut x.work;
        let [hb, cb, ib, s_b, gb] = &mut work_bars;
        lstm::lstm_objective_grad(
            &mut loss,
            &mut loss_bar,
            &x.main,
            mb,
            &x.extra,
            eb,
            &x.state,
            sb,
            &x.seq,
            qb,
            x.l,
            x.c,
            LSTM_B as i64,
            h,
            hb,
            c,
            cb,
            i,
            ib,
            s,
            s_b,
            g,
            gb,
        )
        .unwrap();
        loss
    });
}

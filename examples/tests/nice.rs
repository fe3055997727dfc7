//! The NICE flow of `nice.nil`: the inverse, the log-likelihood against a
//! plain Rust implementation, and the gradients with respect to the
//! network's parameters against central differences (`nilang_runtime::fd`).

use nilang_examples::baseline::SplitMix;
use nilang_examples::nice;
use nilang_runtime::Check;
use nilang_runtime::ndarray::{Array2, ShapeBuilder};
use std::f64::consts::PI;

/// Sizes: samples of dimension 2d, h hidden units, `layers` coupling layers.
#[derive(Clone, Copy)]
struct Shape {
    d: usize,
    h: usize,
    layers: usize,
}

/// The four parameter matrices, column-major, one column per layer.
#[derive(Clone)]
struct Params {
    w1: Array2<f64>,
    b1: Array2<f64>,
    w2: Array2<f64>,
    b2: Array2<f64>,
}

impl Params {
    fn random(s: Shape, seed: u64) -> Params {
        let mut rng = SplitMix(seed);
        let mut fill = |rows: usize, scale: f64| {
            let mut m = Array2::zeros((rows, s.layers).f());
            m.iter_mut().for_each(|v| *v = scale * rng.symmetric());
            m
        };
        Params {
            w1: fill(s.h * s.d, 0.8),
            b1: fill(s.h, 0.3),
            w2: fill(s.d * s.h, 0.8),
            b2: fill(s.d, 0.3),
        }
    }

    /// All parameters in one vector (w1, b1, w2, b2, each column-major).
    /// The mean log-likelihood of the columns of `xs` (`nice_batch_logp`).
    fn mean_logp(&self, xs: &Array2<f64>) -> f64 {
        let mut ys = xs.clone();
        let mut logp = 0.0;
        nice::nice_batch_logp(
            &mut logp,
            ys.view_mut(),
            self.w1.view(),
            self.b1.view(),
            self.w2.view(),
            self.b2.view(),
        )
        .unwrap();
        logp / xs.ncols() as f64
    }

    /// The gradient of the mean log-likelihood by `nice_batch_logp_grad`:
    /// returns what the call left in `logp` (restored, so about 0) and the
    /// parameters' adjoints; the samples' adjoints go to `xs_bar`, and `xs`
    /// is given back restored.
    fn mean_logp_grad(&self, xs: &mut Array2<f64>, xs_bar: &mut Array2<f64>) -> (f64, Params) {
        let mut g = self.clone();
        for m in [&mut g.w1, &mut g.b1, &mut g.w2, &mut g.b2] {
            m.fill(0.0);
        }
        let (mut logp, mut logp_bar) = (0.0, 1.0 / xs.ncols() as f64);
        nice::nice_batch_logp_grad(
            &mut logp,
            &mut logp_bar,
            xs.view_mut(),
            xs_bar.view_mut(),
            self.w1.view(),
            g.w1.view_mut(),
            self.b1.view(),
            g.b1.view_mut(),
            self.w2.view(),
            g.w2.view_mut(),
            self.b2.view(),
            g.b2.view_mut(),
        )
        .unwrap();
        (logp, g)
    }

    fn flat(&self) -> Vec<f64> {
        [&self.w1, &self.b1, &self.w2, &self.b2]
            .iter()
            .flat_map(|m| m.t().iter().copied().collect::<Vec<_>>())
            .collect()
    }

    fn from_flat(s: Shape, v: &[f64]) -> Params {
        let mut p = Params::random(s, 0);
        let mut it = v.iter();
        for m in [&mut p.w1, &mut p.b1, &mut p.w2, &mut p.b2] {
            // column-major order: walk the transpose row by row.
            for x in m.view_mut().reversed_axes().iter_mut() {
                *x = *it.next().unwrap();
            }
        }
        p
    }
}

/// The flow in plain Rust, written from the definition.
fn plain_flow(s: Shape, p: &Params, x: &[f64]) -> Vec<f64> {
    let mut x = x.to_vec();
    for l in 0..s.layers {
        let (a, b) = if l % 2 == 0 { (0, s.d) } else { (s.d, 0) };
        let hidden: Vec<f64> = (0..s.h)
            .map(|k| {
                let pre = p.b1[(k, l)]
                    + (0..s.d)
                        .map(|j| p.w1[(k + j * s.h, l)] * x[a + j])
                        .sum::<f64>();
                pre.max(0.0)
            })
            .collect();
        for i in 0..s.d {
            x[b + i] += p.b2[(i, l)]
                + (0..s.h)
                    .map(|k| p.w2[(i + k * s.d, l)] * hidden[k])
                    .sum::<f64>();
        }
    }
    x
}

fn plain_logp(s: Shape, p: &Params, x: &[f64]) -> f64 {
    let z = plain_flow(s, p, x);
    -0.5 * z.iter().map(|v| v * v).sum::<f64>() - 0.5 * z.len() as f64 * (2.0 * PI).ln()
}

fn batch(s: Shape, n: usize, seed: u64) -> Array2<f64> {
    let mut rng = SplitMix(seed);
    let mut xs = Array2::zeros((2 * s.d, n).f());
    xs.iter_mut().for_each(|v| *v = 1.5 * rng.symmetric());
    xs
}

const SHAPE: Shape = Shape {
    d: 3,
    h: 8,
    layers: 4,
};

#[test]
fn the_inverse_restores_x_and_the_flow_matches_plain_rust() {
    let p = Params::random(SHAPE, 11);
    let xs = batch(SHAPE, 20, 12);
    for x0 in xs.columns() {
        let x0 = x0.to_vec();
        let mut x = x0.clone();
        nice::nice_network(&mut x, p.w1.view(), p.b1.view(), p.w2.view(), p.b2.view()).unwrap();
        let z = plain_flow(SHAPE, &p, &x0);
        let err = x
            .iter()
            .zip(&z)
            .map(|(a, b)| (a - b).abs())
            .fold(0.0, f64::max);
        assert!(err < 1e-13, "z differs by {err:e}");
        assert!(
            x.iter().zip(&x0).any(|(a, b)| (a - b).abs() > 0.1),
            "the flow moved x"
        );
        nice::uncall_nice_network(&mut x, p.w1.view(), p.b1.view(), p.w2.view(), p.b2.view())
            .unwrap();
        let back = x
            .iter()
            .zip(&x0)
            .map(|(a, b)| (a - b).abs())
            .fold(0.0, f64::max);
        assert!(back < 1e-13, "round trip error {back:e}");
    }
}

#[test]
fn log_likelihood_equals_plain_rust() {
    let p = Params::random(SHAPE, 21);
    let mut xs = batch(SHAPE, 16, 22);
    let x0 = xs.clone();
    let want: f64 = x0
        .columns()
        .into_iter()
        .map(|x| plain_logp(SHAPE, &p, &x.to_vec()))
        .sum();
    let mut logp = 0.0;
    nice::nice_batch_logp(
        &mut logp,
        xs.view_mut(),
        p.w1.view(),
        p.b1.view(),
        p.w2.view(),
        p.b2.view(),
    )
    .unwrap();
    assert!((logp - want).abs() < 1e-11 * want.abs(), "{logp} vs {want}");
    // Backwards: logp back to 0, the samples back from their z.
    nice::uncall_nice_batch_logp(
        &mut logp,
        xs.view_mut(),
        p.w1.view(),
        p.b1.view(),
        p.w2.view(),
        p.b2.view(),
    )
    .unwrap();
    assert!(logp.abs() < 1e-11, "{logp}");
    let back = (&xs - &x0).iter().map(|v| v.abs()).fold(0.0, f64::max);
    assert!(back < 1e-13, "{back:e}");
}

#[test]
fn parameter_gradients_match_central_differences() {
    let s = SHAPE;
    let p = Params::random(s, 31);
    let xs0 = batch(s, 6, 32);
    // L = mean log-likelihood of the batch.
    let loss = |v: &[f64]| Params::from_flat(s, v).mean_logp(&xs0);
    let mut xs = xs0.clone();
    let mut xs_bar = Array2::zeros(xs.raw_dim().f());
    let (logp, g) = p.mean_logp_grad(&mut xs, &mut xs_bar);
    assert!(
        logp.abs() < 1e-12,
        "the output is restored up to rounding: {logp}"
    );
    let back = (&xs - &xs0).iter().map(|v| v.abs()).fold(0.0, f64::max);
    assert!(back < 1e-13, "the samples are restored: {back:e}");
    let flat = p.flat();
    let grad = g.flat();
    assert!(grad.iter().filter(|v| v.abs() > 1e-3).count() > grad.len() / 2);
    nilang_runtime::check_gradient(loss, &flat, &grad, 1e-6, 1e-8).unwrap();
    // The samples' adjoints: d L / d x, against differences too.
    let loss_x = |v: &[f64]| {
        let xs = Array2::from_shape_vec((2 * s.d, xs0.ncols()).f(), v.to_vec()).unwrap();
        p.mean_logp(&xs)
    };
    let x_flat: Vec<f64> = xs0.t().iter().copied().collect();
    let gx: Vec<f64> = xs_bar.t().iter().copied().collect();
    nilang_runtime::check_gradient(loss_x, &x_flat, &gx, 1e-6, 1e-8).unwrap();
}

#[test]
fn gradient_ascent_raises_the_likelihood() {
    // A few hundred steps of plain gradient ascent on the mean
    // log-likelihood of a 2-d data set whose second coordinate is nearly a
    // shifted copy of the first: the layers learn to subtract one from the
    // other. The likelihood must rise clearly.
    let s = Shape {
        d: 1,
        h: 8,
        layers: 4,
    };
    let mut rng = SplitMix(41);
    let mut xs = Array2::zeros((2, 64).f());
    for mut c in xs.columns_mut() {
        let (u, v) = (rng.symmetric(), rng.symmetric());
        c[0] = 2.0 * u;
        c[1] = 2.0 * u + 0.3 * v + 1.0;
    }
    let mut p = Params::random(s, 42);
    p.w1.mapv_inplace(|v| 0.3 * v);
    p.w2.mapv_inplace(|v| 0.3 * v);
    let start = p.mean_logp(&xs);
    for _ in 0..300 {
        let mut ys = xs.clone();
        let mut ys_bar = Array2::zeros(ys.raw_dim().f());
        let (_, g) = p.mean_logp_grad(&mut ys, &mut ys_bar);
        let rate = 0.05;
        p.w1.scaled_add(rate, &g.w1);
        p.b1.scaled_add(rate, &g.b1);
        p.w2.scaled_add(rate, &g.w2);
        p.b2.scaled_add(rate, &g.b2);
    }
    let end = p.mean_logp(&xs);
    eprintln!("mean log-likelihood: {start:.4} -> {end:.4}");
    assert!(end > start + 1.0, "{start} -> {end}");
}

#[test]
fn wrong_shapes_are_errors_not_panics() {
    let p = Params::random(SHAPE, 51);
    let mut x = vec![0.5; 2 * SHAPE.d + 1];
    let err =
        nice::nice_network(&mut x, p.w1.view(), p.b1.view(), p.w2.view(), p.b2.view()).unwrap_err();
    assert_eq!(err.check, Check::Deallocation);
    assert_eq!(err.location.file, "examples/nice.nil");
    let mut x = vec![0.5; 2 * SHAPE.d];
    let short = p.w1.slice(nilang_runtime::ndarray::s![1.., ..]);
    let err = nice::nice_network(&mut x, short, p.b1.view(), p.w2.view(), p.b2.view()).unwrap_err();
    assert_eq!(err.check, Check::Deallocation);
    assert_eq!(x, vec![0.5; 2 * SHAPE.d]);
}

//! Embedding the Petersen graph in k dimensions (the long paper, seed 000,
//! section 4.5): the loss of `graph.nil`, trained with Adam on its generated
//! gradient and with a damped Newton method on its Hessian (the generated
//! gradient program run on dual numbers, one column per sweep).
//!
//! Positions are a flat column-major `k x 10` slice: vertex `v` (0-based)
//! occupies `x[v * k..(v + 1) * k]`. Vertices 1 and 2 (an edge) stay where
//! they start; without that the loss would shrink the whole graph to a point.
//! The binary `petersen` runs the whole experiment.

use std::ops::Range;

use nilang_runtime::ndarray::{ArrayView2, ArrayViewMut2, ShapeBuilder};
use nilang_runtime::num_dual::Dual64;

use crate::graph;

/// The number of vertices.
pub const VERTICES: usize = 10;
/// The number of vertices held fixed during training (the first ones).
pub const FIXED: usize = 2;

/// The 15 edges (the set L1), 1-based vertex pairs laid out one after the
/// other: the spokes, the outer 5-cycle, the inner pentagram.
pub const L1: [i64; 30] = [
    1, 6, 2, 7, 3, 8, 4, 9, 5, 10, // spokes
    1, 2, 2, 3, 3, 4, 4, 5, 1, 5, // outer cycle
    6, 8, 8, 10, 7, 10, 7, 9, 6, 9, // inner pentagram
];

/// The 30 pairs of vertices that are not joined by an edge (the set L2), in
/// the same layout.
pub const L2: [i64; 60] = [
    1, 3, 1, 4, 1, 7, 1, 8, 1, 9, 1, 10, //
    2, 4, 2, 5, 2, 6, 2, 8, 2, 9, 2, 10, //
    3, 5, 3, 6, 3, 7, 3, 9, 3, 10, //
    4, 6, 4, 7, 4, 8, 4, 10, //
    5, 6, 5, 7, 5, 8, 5, 9, //
    6, 7, 6, 10, //
    7, 8, //
    8, 9, //
    9, 10,
];

/// The positions as the `k x 10` matrix the generated code takes.
pub fn view<T>(x: &[T], k: usize) -> ArrayView2<'_, T> {
    ArrayView2::from_shape((k, VERTICES).f(), x).expect("x has 10 k entries")
}

/// [`view`], mutable (for adjoints).
pub fn view_mut<T>(x: &mut [T], k: usize) -> ArrayViewMut2<'_, T> {
    ArrayViewMut2::from_shape((k, VERTICES).f(), x).expect("x has 10 k entries")
}

/// The gradient of the loss at `x` into `g` (cleared first) by one build of
/// `embedding_loss_grad` (checked, unchecked, taped: pass the function),
/// the loss adjoint seeded to 1. Returns what the call left in the output,
/// 0 up to rounding, since the gradient program gives its inputs back.
/// Generic rather than a function pointer, so that the call inlines as a
/// direct one would.
#[inline]
pub fn gradient_by<F>(grad: F, x: &[f64], k: usize, g: &mut [f64]) -> nilang_runtime::Result<f64>
where
    F: FnOnce(
        &mut f64,
        &mut f64,
        ArrayView2<'_, f64>,
        ArrayViewMut2<'_, f64>,
        &[i64],
        &[i64],
    ) -> nilang_runtime::Result,
{
    g.fill(0.0);
    let (mut out, mut out_bar) = (0.0, 1.0);
    grad(&mut out, &mut out_bar, view(x, k), view_mut(g, k), &L1, &L2)?;
    Ok(out)
}

fn distance(x: &[f64], k: usize, a: i64, b: i64) -> f64 {
    let (a, b) = ((a as usize - 1) * k, (b as usize - 1) * k);
    let mut s = 0.0;
    for i in 0..k {
        let d = x[a + i] - x[b + i];
        s += d * d;
    }
    s.sqrt()
}

/// The Euclidean distances of the pairs of `pairs` (laid out as [`L1`]).
pub fn distances(x: &[f64], k: usize, pairs: &[i64]) -> Vec<f64> {
    pairs
        .chunks_exact(2)
        .map(|p| distance(x, k, p[0], p[1]))
        .collect()
}

/// Sample variance (n - 1 in the denominator) and mean.
fn var_and_mean(d: &[f64]) -> (f64, f64) {
    let n = d.len() as f64;
    let mean = d.iter().sum::<f64>() / n;
    let var = d.iter().map(|v| (v - mean) * (v - mean)).sum::<f64>() / (n - 1.0);
    (var, mean)
}

/// The loss written directly in Rust (two-pass variance, no uncomputation):
/// `Var(d1) + Var(d2) + exp(relu(mean(d1) - mean(d2) + 0.1)) - 1`, where
/// `d1`, `d2` are the distances over L1 and L2.
pub fn plain_loss(x: &[f64], k: usize) -> f64 {
    assert_eq!(x.len(), VERTICES * k);
    let mut d1 = [0.0; 15];
    let mut d2 = [0.0; 30];
    for (d, p) in d1.iter_mut().zip(L1.chunks_exact(2)) {
        *d = distance(x, k, p[0], p[1]);
    }
    for (d, p) in d2.iter_mut().zip(L2.chunks_exact(2)) {
        *d = distance(x, k, p[0], p[1]);
    }
    let (v1, m1) = var_and_mean(&d1);
    let (v2, m2) = var_and_mean(&d2);
    // exp(0) - 1 is exactly 0, so tiny variances survive (v1 + v2 + exp(0)
    // would round them away when 1 is added and taken off again).
    v1 + v2 + ((m1 - m2 + 0.1).max(0.0).exp() - 1.0)
}

/// The ratio of the mean distance of non-adjacent vertices to the mean
/// edge length, `l2 / l1`.
pub fn ratio(x: &[f64], k: usize) -> f64 {
    let (_, m1) = var_and_mean(&distances(x, k, &L1));
    let (_, m2) = var_and_mean(&distances(x, k, &L2));
    m2 / m1
}

/// The loss by the generated forward program.
pub fn loss(x: &[f64], k: usize) -> nilang_runtime::Result<f64> {
    let mut out = 0.0;
    graph::embedding_loss(&mut out, view(x, k), &L1, &L2)?;
    Ok(out)
}

/// The loss and its gradient (written to `g`): the generated forward, then
/// its reverse pass `embedding_loss_adjoint` (together, what
/// `embedding_loss_grad` does, but the loss is read in between).
pub fn value_and_gradient(x: &[f64], k: usize, g: &mut [f64]) -> nilang_runtime::Result<f64> {
    g.fill(0.0);
    let (mut out, mut out_bar) = (0.0, 1.0);
    graph::embedding_loss(&mut out, view(x, k), &L1, &L2)?;
    let value = out;
    graph::embedding_loss_adjoint(&mut out, &mut out_bar, view(x, k), view_mut(g, k), &L1, &L2)?;
    Ok(value)
}

/// The block `vars x vars` of the Hessian (row-major), forward over
/// reverse: for each `j` in `vars`, the generated gradient program runs on
/// dual numbers with `x[j]` carrying the direction 1, and the derivative
/// parts of the adjoints are column `j`.
pub fn hessian(x: &[f64], k: usize, vars: Range<usize>) -> nilang_runtime::Result<Vec<f64>> {
    let n = vars.len();
    let mut h = vec![0.0; n * n];
    let mut xd: Vec<Dual64> = x.iter().map(|&v| Dual64::from(v)).collect();
    let mut gd = vec![Dual64::from(0.0); x.len()];
    for (c, j) in vars.clone().enumerate() {
        xd[j].eps = 1.0;
        gd.fill(Dual64::from(0.0));
        let (mut out, mut out_bar) = (Dual64::from(0.0), Dual64::from(1.0));
        graph::embedding_loss_grad(
            &mut out,
            &mut out_bar,
            view(&xd, k),
            view_mut(&mut gd, k),
            &L1,
            &L2,
        )?;
        xd[j].eps = 0.0;
        for (r, i) in vars.clone().enumerate() {
            h[r * n + c] = gd[i].eps;
        }
    }
    Ok(h)
}

/// A small deterministic generator (xorshift64*), so that runs repeat
/// without a `rand` dependency.
pub struct Rng(u64);

impl Rng {
    pub fn new(seed: u64) -> Self {
        Rng(seed.wrapping_mul(0x9E37_79B9_7F4A_7C15) | 1)
    }

    pub fn next_u64(&mut self) -> u64 {
        self.0 ^= self.0 >> 12;
        self.0 ^= self.0 << 25;
        self.0 ^= self.0 >> 27;
        self.0.wrapping_mul(0x2545_F491_4F6C_DD1D)
    }

    /// Uniform in (0, 1).
    pub fn uniform(&mut self) -> f64 {
        ((self.next_u64() >> 11) as f64 + 0.5) / (1u64 << 53) as f64
    }

    /// Standard normal (Box-Muller).
    pub fn normal(&mut self) -> f64 {
        let (u, v) = (self.uniform(), self.uniform());
        (-2.0 * u.ln()).sqrt() * (2.0 * std::f64::consts::PI * v).cos()
    }

    /// Random positions for `k` dimensions, every coordinate standard normal.
    pub fn positions(&mut self, k: usize) -> Vec<f64> {
        (0..VERTICES * k).map(|_| self.normal()).collect()
    }
}

/// Adam (Kingma and Ba; beta1 = 0.9, beta2 = 0.999, epsilon = 1e-8) on the
/// free coordinates for `steps` steps with learning rate `lr`. `report` sees
/// the step number and the loss before that step. Returns the final loss.
pub fn adam(
    x: &mut [f64],
    k: usize,
    steps: usize,
    lr: f64,
    mut report: impl FnMut(usize, f64),
) -> nilang_runtime::Result<f64> {
    let (b1, b2, eps) = (0.9, 0.999, 1e-8);
    let free = FIXED * k..x.len();
    let mut g = vec![0.0; x.len()];
    let mut m = vec![0.0; x.len()];
    let mut v = vec![0.0; x.len()];
    for t in 1..=steps {
        let f = value_and_gradient(x, k, &mut g)?;
        report(t, f);
        let (c1, c2) = (1.0 - powt(b1, t), 1.0 - powt(b2, t));
        for i in free.clone() {
            m[i] = b1 * m[i] + (1.0 - b1) * g[i];
            v[i] = b2 * v[i] + (1.0 - b2) * g[i] * g[i];
            x[i] -= lr * (m[i] / c1) / ((v[i] / c2).sqrt() + eps);
        }
    }
    loss(x, k)
}

fn powt(b: f64, t: usize) -> f64 {
    b.powi(t.min(i32::MAX as usize) as i32)
}

/// What [`newton`] did.
#[derive(Clone, Copy, Debug)]
pub struct NewtonReport {
    /// The loss at the end.
    pub loss: f64,
    /// How many Hessians were computed (one per accepted or attempted
    /// iteration).
    pub hessians: usize,
}

/// Solves `a y = b` for a symmetric `n x n` row-major `a` by Cholesky
/// factorisation, in place (`a` becomes its factor, `b` the solution).
/// `false` when `a` is not positive definite.
pub fn cholesky_solve(a: &mut [f64], n: usize, b: &mut [f64]) -> bool {
    for j in 0..n {
        let mut d = a[j * n + j];
        for p in 0..j {
            d -= a[j * n + p] * a[j * n + p];
        }
        if d <= 0.0 || !d.is_finite() {
            return false;
        }
        let d = d.sqrt();
        a[j * n + j] = d;
        for i in j + 1..n {
            let mut s = a[i * n + j];
            for p in 0..j {
                s -= a[i * n + p] * a[j * n + p];
            }
            a[i * n + j] = s / d;
        }
    }
    // L y = b, then L' x = y.
    for i in 0..n {
        let mut s = b[i];
        for p in 0..i {
            s -= a[i * n + p] * b[p];
        }
        b[i] = s / a[i * n + i];
    }
    for i in (0..n).rev() {
        let mut s = b[i];
        for p in i + 1..n {
            s -= a[p * n + i] * b[p];
        }
        b[i] = s / a[i * n + i];
    }
    true
}

/// Newton's method on the free coordinates, damped in the manner of
/// Levenberg and Marquardt: the step solves `(H + lambda I) p = -g`; a step
/// that lowers the loss is taken and `lambda` shrinks, otherwise (or when
/// `H + lambda I` is not positive definite) `lambda` grows and the step is
/// solved again. Stops when the loss is below `tol`, after `max_hessians`
/// Hessians, or when no damping gives a lower loss (the loss has reached
/// its rounding floor or a stationary point).
pub fn newton(
    x: &mut [f64],
    k: usize,
    max_hessians: usize,
    tol: f64,
) -> nilang_runtime::Result<NewtonReport> {
    let free = FIXED * k..x.len();
    let n = free.len();
    let mut g = vec![0.0; x.len()];
    let mut trial = x.to_vec();
    let mut lambda = 1e-3;
    let mut hessians = 0;
    let mut f = loss(x, k)?;
    while f >= tol && hessians < max_hessians {
        f = value_and_gradient(x, k, &mut g)?;
        let h = hessian(x, k, free.clone())?;
        hessians += 1;
        let mut improved = false;
        while lambda < 1e12 {
            let mut a = h.clone();
            for i in 0..n {
                a[i * n + i] += lambda;
            }
            let mut p: Vec<f64> = free.clone().map(|i| -g[i]).collect();
            if cholesky_solve(&mut a, n, &mut p) {
                trial.copy_from_slice(x);
                for (t, d) in trial[free.clone()].iter_mut().zip(&p) {
                    *t += d;
                }
                let ft = loss(&trial, k)?;
                if ft < f {
                    x.copy_from_slice(&trial);
                    f = ft;
                    lambda = (lambda / 3.0).max(1e-15);
                    improved = true;
                    break;
                }
            }
            lambda = (lambda * 4.0).max(1e-8);
        }
        if !improved {
            break;
        }
    }
    Ok(NewtonReport { loss: f, hessians })
}

/// The lowest loss [`newton`] reaches from `restarts` random starts for
/// dimension `k` (seeds `seed`, `seed + 1`, ...).
pub fn best_of(
    k: usize,
    restarts: u64,
    seed: u64,
    max_hessians: usize,
) -> nilang_runtime::Result<f64> {
    let mut best = f64::INFINITY;
    for s in seed..seed + restarts {
        let mut x = Rng::new(s).positions(k);
        best = best.min(newton(&mut x, k, max_hessians, 0.0)?.loss);
    }
    Ok(best)
}

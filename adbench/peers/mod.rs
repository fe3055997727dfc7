//! The peers of the benchmark issue: every case written once more, generic
//! over a small scalar trait [`Ad`], and differentiated by other crates:
//! num-dual (forward mode: vector duals for gradients, second-order vector
//! duals for Hessians), echidna and easy-ml (reverse mode on a tape).
//!
//! The generic code follows the plain-Rust versions (`gmm::objective`,
//! `ba::project`, `petersen::plain_loss`, the paper's `besselj`) operation
//! for operation, so that every tool differentiates the same algorithm.
//! Shared by `tests/peers.rs` and `benches/summary.rs` (a folder module, so
//! that cargo takes it for neither; the peers are dev-dependencies).

#![allow(dead_code)]

use std::ops::{Add, Div, Mul, Neg, Sub};

use nalgebra::SVector;
use nilang_adbench::ba::{BLOCK, BaInput, BaJacobian, CAM};
use nilang_adbench::gmm::Gmm;
use num_dual::DualNum;

/// What the generic cases need from a number type.
pub trait Ad:
    Copy
    + Add<Output = Self>
    + Sub<Output = Self>
    + Mul<Output = Self>
    + Div<Output = Self>
    + Neg<Output = Self>
{
    /// A constant (no derivative).
    fn cst(v: f64) -> Self;
    /// The value, without derivatives.
    fn val(self) -> f64;
    fn sqrt(self) -> Self;
    fn exp(self) -> Self;
    fn ln(self) -> Self;
    fn sin(self) -> Self;
    fn cos(self) -> Self;
}

impl Ad for f64 {
    fn cst(v: f64) -> Self {
        v
    }
    fn val(self) -> f64 {
        self
    }
    fn sqrt(self) -> Self {
        f64::sqrt(self)
    }
    fn exp(self) -> Self {
        f64::exp(self)
    }
    fn ln(self) -> Self {
        f64::ln(self)
    }
    fn sin(self) -> Self {
        f64::sin(self)
    }
    fn cos(self) -> Self {
        f64::cos(self)
    }
}

macro_rules! ad_for_num_dual {
    ($([$($gen:tt)*] $t:ty),* $(,)?) => {$(
        impl<$($gen)*> Ad for $t {
            fn cst(v: f64) -> Self {
                Self::from(v)
            }
            fn val(self) -> f64 {
                num_dual::DualStruct::re(&self)
            }
            fn sqrt(self) -> Self {
                DualNum::sqrt(&self)
            }
            fn exp(self) -> Self {
                DualNum::exp(&self)
            }
            fn ln(self) -> Self {
                DualNum::ln(&self)
            }
            fn sin(self) -> Self {
                DualNum::sin(&self)
            }
            fn cos(self) -> Self {
                DualNum::cos(&self)
            }
        }
    )*};
}

ad_for_num_dual!(
    [] num_dual::Dual64,
    [] num_dual::Dual2_64,
    [const N: usize] num_dual::DualSVec64<N>,
    [const N: usize] num_dual::Dual2SVec64<N>,
);

impl Ad for echidna::Reverse<f64> {
    fn cst(v: f64) -> Self {
        echidna::Reverse::constant(v)
    }
    fn val(self) -> f64 {
        echidna::scalar::Scalar::value(&self)
    }
    fn sqrt(self) -> Self {
        num_traits::Float::sqrt(self)
    }
    fn exp(self) -> Self {
        num_traits::Float::exp(self)
    }
    fn ln(self) -> Self {
        num_traits::Float::ln(self)
    }
    fn sin(self) -> Self {
        num_traits::Float::sin(self)
    }
    fn cos(self) -> Self {
        num_traits::Float::cos(self)
    }
}

type Rec<'a> = easy_ml::differentiation::Record<'a, f64>;

impl Ad for Rec<'_> {
    fn cst(v: f64) -> Self {
        easy_ml::differentiation::Record::constant(v)
    }
    fn val(self) -> f64 {
        self.number
    }
    fn sqrt(self) -> Self {
        easy_ml::numeric::extra::Sqrt::sqrt(self)
    }
    fn exp(self) -> Self {
        easy_ml::numeric::extra::Exp::exp(self)
    }
    fn ln(self) -> Self {
        easy_ml::numeric::extra::Ln::ln(self)
    }
    fn sin(self) -> Self {
        easy_ml::numeric::extra::Sin::sin(self)
    }
    fn cos(self) -> Self {
        easy_ml::numeric::extra::Cos::cos(self)
    }
}

// ---------------------------------------------------------------------------
// Bessel J_v(z)

/// J_v(z) by its series, as the paper's irreversible `besselj`.
pub fn besselj<T: Ad>(v: i64, z: T, atol: f64) -> T {
    let mut fact = 1.0;
    for i in 1..=v {
        fact *= i as f64;
    }
    let halfz = z / T::cst(2.0);
    let mut p = T::cst(1.0);
    for _ in 0..v {
        p = p * halfz;
    }
    let hz2 = halfz * halfz;
    let mut s = p / T::cst(fact);
    let mut out = s;
    let mut k = 0_i64;
    while s.val().abs() > atol {
        k += 1;
        s = s * (T::cst(-1.0 / k as f64 / (k + v) as f64) * hz2);
        out = out + s;
    }
    out
}

// ---------------------------------------------------------------------------
// Graph embedding (the Petersen graph, `petersen::plain_loss`)

fn var_and_mean<T: Ad>(d: &[T]) -> (T, T) {
    let n = d.len() as f64;
    let mut sum = T::cst(0.0);
    for &v in d {
        sum = sum + v;
    }
    let mean = sum / T::cst(n);
    let mut var = T::cst(0.0);
    for &v in d {
        let c = v - mean;
        var = var + c * c;
    }
    (var / T::cst(n - 1.0), mean)
}

fn distance<T: Ad>(x: &[T], k: usize, a: i64, b: i64) -> T {
    let (a, b) = ((a as usize - 1) * k, (b as usize - 1) * k);
    let mut s = T::cst(0.0);
    for i in 0..k {
        let d = x[a + i] - x[b + i];
        s = s + d * d;
    }
    s.sqrt()
}

/// The embedding loss of `graph.nil` at the positions `x` (column-major
/// `k x 10`).
pub fn graph_loss<T: Ad>(x: &[T], k: usize) -> T {
    use nilang_examples::petersen::{L1, L2};
    let d1: Vec<T> = L1
        .chunks_exact(2)
        .map(|p| distance(x, k, p[0], p[1]))
        .collect();
    let d2: Vec<T> = L2
        .chunks_exact(2)
        .map(|p| distance(x, k, p[0], p[1]))
        .collect();
    let (v1, m1) = var_and_mean(&d1);
    let (v2, m2) = var_and_mean(&d2);
    let gap = m1 - m2 + T::cst(0.1);
    let pen = if gap.val() > 0.0 {
        gap.exp() - T::cst(1.0)
    } else {
        T::cst(0.0)
    };
    v1 + v2 + pen
}

// ---------------------------------------------------------------------------
// GMM (`gmm::objective`)

/// The parameters in ADBench's order: alphas, means, icf.
pub fn gmm_params(g: &Gmm) -> Vec<f64> {
    let mut p = g.alphas.clone();
    p.extend_from_slice(&g.means);
    p.extend_from_slice(&g.icf);
    p
}

fn log_sum_exp<T: Ad>(v: &[T]) -> T {
    let mut mx = v[0];
    for &e in &v[1..] {
        if e.val() > mx.val() {
            mx = e;
        }
    }
    let mut s = T::cst(0.0);
    for &e in v {
        s = s + (e - mx).exp();
    }
    s.ln() + mx
}

/// ADBench's GMM objective of the parameters `p` ([`gmm_params`]'s order);
/// the data and the constants are plain numbers.
pub fn gmm_objective<T: Ad>(g: &Gmm, p: &[T]) -> T {
    let (d, kn, icf_sz) = (g.d, g.k, g.icf_sz());
    let (alphas, rest) = p.split_at(kn);
    let (means, icf) = rest.split_at(kn * d);
    let mut qdiag = Vec::with_capacity(kn * d);
    let mut sum_qs = Vec::with_capacity(kn);
    for k in 0..kn {
        let mut s = T::cst(0.0);
        for j in 0..d {
            let q = icf[k * icf_sz + j];
            s = s + q;
            qdiag.push(q.exp());
        }
        sum_qs.push(s);
    }
    let mut xc = vec![T::cst(0.0); d];
    let mut main = vec![T::cst(0.0); kn];
    let mut slse = T::cst(0.0);
    for i in 0..g.n {
        let xi = &g.x[i * d..(i + 1) * d];
        for k in 0..kn {
            for j in 0..d {
                xc[j] = T::cst(xi[j]) - means[k * d + j];
            }
            let l = &icf[k * icf_sz + d..(k + 1) * icf_sz];
            // y = Q xc with Q's strict lower part stored column by column;
            // its squared norm, row by row.
            let mut sq = T::cst(0.0);
            for r in 0..d {
                let mut y = qdiag[k * d + r] * xc[r];
                for (c, &xcc) in xc[..r].iter().enumerate() {
                    let idx = c * (2 * d - c - 1) / 2 + (r - c - 1);
                    y = y + l[idx] * xcc;
                }
                sq = sq + y * y;
            }
            main[k] = alphas[k] + sum_qs[k] - T::cst(0.5) * sq;
        }
        slse = slse + log_sum_exp(&main);
    }
    let mut w = T::cst(0.0);
    let half_g2 = T::cst(0.5 * g.gamma * g.gamma);
    for k in 0..kn {
        let mut fro = T::cst(0.0);
        for j in 0..d {
            fro = fro + qdiag[k * d + j] * qdiag[k * d + j];
        }
        for j in d..icf_sz {
            fro = fro + icf[k * icf_sz + j] * icf[k * icf_sz + j];
        }
        w = w + half_g2 * fro - T::cst(g.m as f64) * sum_qs[k];
    }
    T::cst(g.constant_term()) + slse - T::cst(g.n as f64) * log_sum_exp(alphas) + w
}

// ---------------------------------------------------------------------------
// Bundle adjustment (`ba::project`)

fn cross<T: Ad>(a: [T; 3], b: [T; 3]) -> [T; 3] {
    [
        a[1] * b[2] - a[2] * b[1],
        a[2] * b[0] - a[0] * b[2],
        a[0] * b[1] - a[1] * b[0],
    ]
}

/// The weighted reprojection error of one observation from its 15 unknowns
/// `v` (camera 11, point 3, weight 1), as `ba::project`.
pub fn ba_project<T: Ad>(v: &[T], feat: &[f64]) -> [T; 2] {
    let cam = &v[..CAM];
    let x = &v[CAM..CAM + 3];
    let w = v[CAM + 3];
    let xo = [x[0] - cam[3], x[1] - cam[4], x[2] - cam[5]];
    let r = [cam[0], cam[1], cam[2]];
    let s = r[0] * r[0] + r[1] * r[1] + r[2] * r[2];
    let xc: [T; 3] = if s.val() != 0.0 {
        let t = s.sqrt();
        let (st, ct) = (t.sin(), t.cos());
        let a = [r[0] / t, r[1] / t, r[2] / t];
        let dot = a[0] * xo[0] + a[1] * xo[1] + a[2] * xo[2];
        let cr = cross(a, xo);
        let one_ct = T::cst(1.0) - ct;
        std::array::from_fn(|i| xo[i] * ct + cr[i] * st + a[i] * dot * one_ct)
    } else {
        let cr = cross(r, xo);
        std::array::from_fn(|i| xo[i] + cr[i])
    };
    let u = [xc[0] / xc[2], xc[1] / xc[2]];
    let rsq = u[0] * u[0] + u[1] * u[1];
    let l = T::cst(1.0) + cam[9] * rsq + cam[10] * rsq * rsq;
    [
        w * (u[0] * l * cam[6] + cam[7] - T::cst(feat[0])),
        w * (u[1] * l * cam[6] + cam[8] - T::cst(feat[1])),
    ]
}

/// The 15 unknowns of observation `k`.
pub fn ba_unknowns(input: &BaInput, k: usize) -> [f64; BLOCK] {
    let (c, j) = input.obs[k];
    let mut v = [0.0; BLOCK];
    v[..CAM].copy_from_slice(input.cam(c));
    v[CAM..CAM + 3].copy_from_slice(input.point(j));
    v[CAM + 3] = input.weights[k];
    v
}

/// The residuals in plain Rust through the generic code (a check that it is
/// the same function).
pub fn ba_residuals_generic(input: &BaInput, reproj: &mut [f64]) {
    for k in 0..input.p {
        let e = ba_project::<f64>(&ba_unknowns(input, k), &input.feats[2 * k..2 * k + 2]);
        reproj[2 * k] = e[0];
        reproj[2 * k + 1] = e[1];
    }
}

/// Fills the Jacobian's values from `block(k)`, the 2 x 15 block of
/// observation `k` (rows laid out one after the other).
fn fill_jacobian(input: &BaInput, jac: &mut BaJacobian, mut block: impl FnMut(usize, &mut [f64])) {
    let p = input.p;
    for k in 0..p {
        block(k, &mut jac.vals[2 * BLOCK * k..2 * BLOCK * (k + 1)]);
    }
    for (k, &w) in input.weights.iter().enumerate() {
        jac.vals[2 * BLOCK * p + k] = -2.0 * w;
    }
}

/// The Jacobian by num-dual: one forward pass per observation with
/// 15-component vector duals gives both rows of its block.
pub fn ba_jacobian_num_dual(input: &BaInput, jac: &mut BaJacobian) {
    fill_jacobian(input, jac, |k, out| {
        let v = ba_unknowns(input, k);
        let vd: [num_dual::DualSVec64<BLOCK>; BLOCK] =
            std::array::from_fn(|i| num_dual::DualSVec64::<BLOCK>::from_re(v[i]).derivative(i));
        let r = ba_project(&vd, &input.feats[2 * k..2 * k + 2]);
        for row in 0..2 {
            let dst = &mut out[BLOCK * row..BLOCK * (row + 1)];
            match &r[row].eps.0 {
                Some(eps) => dst.copy_from_slice(eps.as_slice()),
                None => dst.fill(0.0),
            }
        }
    });
}

/// The Jacobian by echidna: per observation, one tape (reused) recorded
/// once and swept backwards twice, seeded on each residual.
pub fn ba_jacobian_echidna(input: &BaInput, jac: &mut BaJacobian) {
    use echidna::{Reverse, tape::Tape, tape::TapeGuard};
    let mut tape = Tape::<f64>::with_capacity(256);
    fill_jacobian(input, jac, |k, out| {
        let v = ba_unknowns(input, k);
        tape.clear();
        let vr: [Reverse<f64>; BLOCK] = std::array::from_fn(|i| {
            let (idx, val) = tape.new_variable(v[i]);
            Reverse::from_tape(val, idx)
        });
        let guard = TapeGuard::new(&mut tape);
        let r = ba_project(&vr, &input.feats[2 * k..2 * k + 2]);
        drop(guard);
        for row in 0..2 {
            let adj = tape.reverse(r[row].index());
            out[BLOCK * row..BLOCK * (row + 1)].copy_from_slice(&adj[..BLOCK]);
        }
    });
}

/// The Jacobian by easy-ml: per observation, one Wengert list (reused)
/// recorded once; each residual's `derivatives()` is one backward sweep.
pub fn ba_jacobian_easy_ml(input: &BaInput, jac: &mut BaJacobian) {
    let list = easy_ml::differentiation::WengertList::<f64>::new();
    fill_jacobian(input, jac, |k, out| {
        let v = ba_unknowns(input, k);
        list.clear();
        let vr: [Rec<'_>; BLOCK] = std::array::from_fn(|i| Rec::variable(v[i], &list));
        let r = ba_project(&vr, &input.feats[2 * k..2 * k + 2]);
        for row in 0..2 {
            let der = r[row].derivatives();
            for i in 0..BLOCK {
                out[BLOCK * row + i] = der[&vr[i]];
            }
        }
    });
}

// ---------------------------------------------------------------------------
// Drivers: gradients and Hessians of a generic scalar function

/// A scalar function written once for every [`Ad`] type.
pub trait Objective {
    fn eval<T: Ad>(&self, x: &[T]) -> T;
}

/// The graph loss in `k` dimensions.
pub struct Graph(pub usize);

impl Objective for Graph {
    fn eval<T: Ad>(&self, x: &[T]) -> T {
        graph_loss(x, self.0)
    }
}

/// The GMM objective of one instance.
pub struct GmmObjective<'a>(pub &'a Gmm);

impl Objective for GmmObjective<'_> {
    fn eval<T: Ad>(&self, x: &[T]) -> T {
        gmm_objective(self.0, x)
    }
}

/// num-dual's gradient: one forward pass with `N`-component vector duals.
pub fn num_dual_gradient<const N: usize>(f: &impl Objective, x: &[f64]) -> (f64, Vec<f64>) {
    let (v, g) = num_dual::gradient(
        |v: SVector<num_dual::DualSVec64<N>, N>| f.eval(v.as_slice()),
        &SVector::<f64, N>::from_column_slice(x),
    );
    (v, g.as_slice().to_vec())
}

/// num-dual's Hessian: one forward pass with second-order vector duals
/// (`N` gradient components and an `N x N` block each). Row-major.
pub fn num_dual_hessian<const N: usize>(f: &impl Objective, x: &[f64]) -> Vec<f64> {
    let (_, _, h) = num_dual::hessian(
        |v: SVector<num_dual::Dual2SVec64<N>, N>| f.eval(v.as_slice()),
        &SVector::<f64, N>::from_column_slice(x),
    );
    h.transpose().as_slice().to_vec()
}

/// echidna's gradient (`echidna::grad`: record the tape, one reverse sweep).
pub fn echidna_gradient(f: &impl Objective, x: &[f64]) -> Vec<f64> {
    echidna::grad(|v: &[echidna::Reverse<f64>]| f.eval(v), x)
}

/// easy-ml's gradient: record on a Wengert list, one reverse sweep.
pub fn easy_ml_gradient(f: &impl Objective, x: &[f64]) -> Vec<f64> {
    let list = easy_ml::differentiation::WengertList::<f64>::new();
    let v: Vec<Rec<'_>> = x.iter().map(|&e| Rec::variable(e, &list)).collect();
    let der = f.eval(&v).derivatives();
    v.iter().map(|e| der[e]).collect()
}

/// dJ_v/dz by num-dual (one dual number).
pub fn bessel_num_dual(v: i64, z: f64) -> f64 {
    besselj(v, num_dual::Dual64::new(z, 1.0), 1e-8).eps
}

/// d^2 J_v/dz^2 by num-dual (a second-order dual).
pub fn bessel_num_dual_second(v: i64, z: f64) -> f64 {
    besselj(v, num_dual::Dual2_64::new(z, 1.0, 0.0), 1e-8).v2
}

/// dJ_v/dz by echidna.
pub fn bessel_echidna(v: i64, z: f64) -> f64 {
    echidna::grad(|x: &[echidna::Reverse<f64>]| besselj(v, x[0], 1e-8), &[z])[0]
}

/// dJ_v/dz by easy-ml.
pub fn bessel_easy_ml(v: i64, z: f64) -> f64 {
    let list = easy_ml::differentiation::WengertList::<f64>::new();
    let x = Rec::variable(z, &list);
    besselj(v, x, 1e-8).derivatives()[&x]
}

// ---------------------------------------------------------------------------
// Ours: thin wrappers around the generated programs, for tests and benches

/// dJ_v/dz by `ibesselj_grad` (forward, then the reverse pass).
pub fn bessel_nil_gradient(v: i64, z: f64) -> f64 {
    let (mut out, mut out_bar, mut z_bar) = (0.0, 1.0, 0.0);
    nilang_examples::bessel::ibesselj_grad(&mut out, &mut out_bar, v, z, &mut z_bar, 1e-8)
        .expect("ibesselj_grad");
    z_bar
}

/// dJ_v/dz from `bessel.nil` compiled with every loop taped.
pub fn bessel_nil_gradient_taped(v: i64, z: f64) -> f64 {
    let (mut out, mut out_bar, mut z_bar) = (0.0, 1.0, 0.0);
    nilang_examples::taped::bessel::ibesselj_grad(&mut out, &mut out_bar, v, z, &mut z_bar, 1e-8)
        .expect("taped ibesselj_grad");
    z_bar
}

/// d^2 J_v/dz^2 forward over reverse: `ibesselj_grad` on a dual number.
pub fn bessel_nil_second(v: i64, z: f64) -> f64 {
    use num_dual::Dual64;
    let (mut out, mut out_bar, mut z_bar) =
        (Dual64::from(0.0), Dual64::from(1.0), Dual64::from(0.0));
    nilang_examples::bessel::ibesselj_grad(
        &mut out,
        &mut out_bar,
        v,
        Dual64::new(z, 1.0),
        &mut z_bar,
        1e-8,
    )
    .expect("ibesselj_grad on duals");
    z_bar.eps
}

/// The adjoint buffers of `gmm_objective_grad` (the library's).
pub use nilang_adbench::gmm::Bars as GmmBars;

/// F by `gmm_objective` (checked).
pub fn gmm_nil_objective(g: &Gmm, constant: f64) -> f64 {
    let mut out = 0.0;
    nilang_adbench::gmm_nil::gmm_objective(
        &mut out, &g.alphas, &g.means, &g.icf, &g.x, g.d as i64, g.k as i64, g.n as i64, g.gamma,
        g.m, constant,
    )
    .expect("gmm_objective");
    out
}

/// The gradient by `gmm_objective_grad` (checked) into `b`.
pub fn gmm_nil_gradient(g: &Gmm, constant: f64, b: &mut GmmBars) {
    b.run(nilang_adbench::gmm_nil::gmm_objective_grad, g, constant)
        .expect("gmm_objective_grad");
}

/// `gmm_objective_grad` of `gmm.nil` compiled with every loop taped.
pub fn gmm_nil_gradient_taped(g: &Gmm, constant: f64, b: &mut GmmBars) {
    b.run(
        nilang_adbench::taped::gmm_nil::gmm_objective_grad,
        g,
        constant,
    )
    .expect("gmm_objective_grad (loops taped)");
}

//! ADBench's Gaussian mixture model objective in plain Rust: a reader for
//! its input files, the objective as ADBench's C++ (`gmm.h`) evaluates it,
//! and the hand-written closed-form gradient (ADBench's "manual" column).
//!
//! Storage is flat and row-major, as ADBench keeps it: `means[k * d + j]`,
//! `icf[k * icf_sz + j]` with `icf_sz = d (d + 1) / 2`, `x[i * d + j]`. Each
//! component's `icf` block holds the `d` logarithms of the diagonal of the
//! lower-triangular factor `Q_k` (whose `Q_k Q_k^T` is the inverse
//! covariance) followed by its strictly lower part, column after column.

// The loops index several flat arrays with the same counters, as the
// formulas do; iterator chains would hide which entry of Q is which.
#![allow(clippy::needless_range_loop)]

use std::fmt;
use std::path::Path;

/// The value of pi that ADBench's `defs.h` uses; F depends on it at the
/// 1e-12 level, so the golden values need this one.
#[allow(clippy::approx_constant)]
pub const ADBENCH_PI: f64 = 3.14159265359;

/// One GMM instance: `k` components in `d` dimensions, `n` points, and the
/// Wishart prior's `gamma` and `m`.
#[derive(Clone, Debug, PartialEq)]
pub struct Gmm {
    pub d: usize,
    pub k: usize,
    pub n: usize,
    /// Unnormalised log weights, one per component.
    pub alphas: Vec<f64>,
    /// `k * d` means, component after component.
    pub means: Vec<f64>,
    /// `k * icf_sz` parameters of the inverse covariance factors.
    pub icf: Vec<f64>,
    /// `n * d` points, point after point.
    pub x: Vec<f64>,
    pub gamma: f64,
    pub m: i64,
}

/// Why an input file could not be read.
#[derive(Debug)]
pub enum ReadError {
    Io(std::io::Error),
    /// The text ended before everything the header promises was read.
    Truncated {
        expected: &'static str,
    },
    /// A token that is not the number expected there.
    BadToken {
        token: String,
        expected: &'static str,
    },
    /// A header with a zero or absurd size.
    BadHeader(String),
}

impl fmt::Display for ReadError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            ReadError::Io(e) => write!(f, "cannot read the GMM input: {e}"),
            ReadError::Truncated { expected } => {
                write!(f, "GMM input ends early: {expected} missing")
            }
            ReadError::BadToken { token, expected } => {
                write!(f, "GMM input: `{token}` is not {expected}")
            }
            ReadError::BadHeader(s) => write!(f, "GMM input: bad header: {s}"),
        }
    }
}

impl std::error::Error for ReadError {}

impl From<std::io::Error> for ReadError {
    fn from(e: std::io::Error) -> Self {
        ReadError::Io(e)
    }
}

struct Tokens<'a>(std::str::SplitWhitespace<'a>);

impl Tokens<'_> {
    fn next<T: std::str::FromStr>(&mut self, expected: &'static str) -> Result<T, ReadError> {
        let tok = self.0.next().ok_or(ReadError::Truncated { expected })?;
        tok.parse().map_err(|_| ReadError::BadToken {
            token: tok.to_string(),
            expected,
        })
    }

    fn floats(&mut self, count: usize, expected: &'static str) -> Result<Vec<f64>, ReadError> {
        (0..count).map(|_| self.next(expected)).collect()
    }
}

impl Gmm {
    /// The number of `icf` parameters per component, `d (d + 1) / 2`.
    pub fn icf_sz(&self) -> usize {
        self.d * (self.d + 1) / 2
    }

    /// The length of the gradient: `k (d + 1) (d + 2) / 2`.
    pub fn n_params(&self) -> usize {
        self.k + self.k * self.d + self.k * self.icf_sz()
    }

    /// Reads an ADBench GMM file (`d K N`, then alphas, means, icf, points,
    /// `gamma m`, all separated by white space).
    pub fn read(path: impl AsRef<Path>) -> Result<Gmm, ReadError> {
        Gmm::parse(&std::fs::read_to_string(path)?)
    }

    /// Parses the text of an ADBench GMM file.
    pub fn parse(text: &str) -> Result<Gmm, ReadError> {
        let mut t = Tokens(text.split_whitespace());
        let d: usize = t.next("the dimension d")?;
        let k: usize = t.next("the number of components K")?;
        let n: usize = t.next("the number of points N")?;
        if d == 0 || k == 0 || n == 0 {
            return Err(ReadError::BadHeader(format!("d={d} K={k} N={n}")));
        }
        let icf_sz = d
            .checked_add(1)
            .and_then(|d1| d1.checked_mul(d))
            .map(|s| s / 2)
            .ok_or_else(|| ReadError::BadHeader(format!("d={d} too large")))?;
        let (Some(kd), Some(kicf), Some(nd)) =
            (k.checked_mul(d), k.checked_mul(icf_sz), n.checked_mul(d))
        else {
            return Err(ReadError::BadHeader(format!("d={d} K={k} N={n} too large")));
        };
        // The count is checked against the text's size before allocating,
        // so a hostile header cannot ask for a huge buffer.
        if kd.saturating_add(kicf).saturating_add(nd) > text.len() {
            return Err(ReadError::Truncated {
                expected: "the values the header announces",
            });
        }
        let alphas = t.floats(k, "an alpha")?;
        let means = t.floats(kd, "a mean coordinate")?;
        let icf = t.floats(kicf, "an icf value")?;
        let x = t.floats(nd, "a point coordinate")?;
        let gamma = t.next("gamma")?;
        let m = t.next("m (an integer)")?;
        Ok(Gmm {
            d,
            k,
            n,
            alphas,
            means,
            icf,
            x,
            gamma,
            m,
        })
    }

    /// The terms of F that depend on no parameter:
    /// `-N d/2 ln(2 pi) - K C` with the Wishart normaliser `C`.
    pub fn constant_term(&self) -> f64 {
        let d = self.d as f64;
        let n = self.n as f64;
        let n_w = d + self.m as f64 + 1.0;
        let mut log_gamma_d = 0.25 * d * (d - 1.0) * ADBENCH_PI.ln();
        for j in 1..=self.d {
            log_gamma_d += lgamma(0.5 * n_w + 0.5 * (1.0 - j as f64));
        }
        let c = n_w * d * (self.gamma.ln() - 0.5 * 2f64.ln()) - log_gamma_d;
        -n * d * 0.5 * (2.0 * ADBENCH_PI).ln() - self.k as f64 * c
    }
}

/// `ln Γ(x)` for `x > 0` by the Lanczos approximation (g = 7, nine
/// coefficients), with the reflection formula below 1/2. Relative error
/// near 1e-15, far below what F needs; ADBench's arguments are at least 1
/// (`(d + m + 1 - j + 1) / 2` with `j <= d`). Written here rather than
/// taken from `libm` to keep the crate free of dependencies beyond the
/// runtime.
pub fn lgamma(x: f64) -> f64 {
    const G: f64 = 7.0;
    const C: [f64; 9] = [
        0.999_999_999_999_809_9,
        676.520_368_121_885_1,
        -1_259.139_216_722_402_8,
        771.323_428_777_653_1,
        -176.615_029_162_140_6,
        12.507_343_278_686_905,
        -0.138_571_095_265_720_12,
        9.984_369_578_019_572e-6,
        1.505_632_735_149_311_6e-7,
    ];
    if x < 0.5 {
        // Γ(x) Γ(1 - x) = π / sin(π x)
        let pi = std::f64::consts::PI;
        return (pi / (pi * x).sin()).abs().ln() - lgamma(1.0 - x);
    }
    let x = x - 1.0;
    let mut a = C[0];
    let t = x + G + 0.5;
    for (i, c) in C.iter().enumerate().skip(1) {
        a += c / (x + i as f64);
    }
    0.5 * (2.0 * std::f64::consts::PI).ln() + (x + 0.5) * t.ln() - t + a.ln()
}

/// `max(v) + ln sum exp(v - max(v))`.
fn log_sum_exp(v: &[f64]) -> f64 {
    let mx = v.iter().copied().fold(f64::NEG_INFINITY, f64::max);
    mx + v.iter().map(|a| (a - mx).exp()).sum::<f64>().ln()
}

/// `y = Q xc` for the lower-triangular `Q` with diagonal `qdiag` and strict
/// lower part `l` stored column after column.
#[inline]
fn q_times(qdiag: &[f64], l: &[f64], xc: &[f64], y: &mut [f64]) {
    let d = xc.len();
    for j in 0..d {
        y[j] = qdiag[j] * xc[j];
    }
    let mut idx = 0;
    for c in 0..d {
        let xcc = xc[c];
        for r in c + 1..d {
            y[r] += l[idx] * xcc;
            idx += 1;
        }
    }
}

/// Per-component quantities that do not depend on the point:
/// `exp(q_k)` (`k * d`) and `sum_j q_kj` (`k`).
fn component_terms(g: &Gmm) -> (Vec<f64>, Vec<f64>) {
    let (d, icf_sz) = (g.d, g.icf_sz());
    let mut qdiag = vec![0.0; g.k * d];
    let mut sum_qs = vec![0.0; g.k];
    for k in 0..g.k {
        let q = &g.icf[k * icf_sz..k * icf_sz + d];
        sum_qs[k] = q.iter().sum();
        for j in 0..d {
            qdiag[k * d + j] = q[j].exp();
        }
    }
    (qdiag, sum_qs)
}

/// The Wishart prior's part of F without its constant:
/// `sum_k 0.5 gamma^2 (|exp(q_k)|^2 + |l_k|^2) - m sum_qs_k`.
fn wishart(g: &Gmm, qdiag: &[f64], sum_qs: &[f64]) -> f64 {
    let (d, icf_sz) = (g.d, g.icf_sz());
    let mut w = 0.0;
    for k in 0..g.k {
        let frob: f64 = qdiag[k * d..(k + 1) * d].iter().map(|v| v * v).sum::<f64>()
            + g.icf[k * icf_sz + d..(k + 1) * icf_sz]
                .iter()
                .map(|v| v * v)
                .sum::<f64>();
        w += 0.5 * g.gamma * g.gamma * frob - g.m as f64 * sum_qs[k];
    }
    w
}

/// The GMM objective F, in the order of operations of ADBench's C++.
pub fn objective(g: &Gmm) -> f64 {
    let (d, icf_sz) = (g.d, g.icf_sz());
    let (qdiag, sum_qs) = component_terms(g);
    let mut xc = vec![0.0; d];
    let mut y = vec![0.0; d];
    let mut main = vec![0.0; g.k];
    let mut slse = 0.0;
    for i in 0..g.n {
        let xi = &g.x[i * d..(i + 1) * d];
        for k in 0..g.k {
            for j in 0..d {
                xc[j] = xi[j] - g.means[k * d + j];
            }
            let l = &g.icf[k * icf_sz + d..(k + 1) * icf_sz];
            q_times(&qdiag[k * d..(k + 1) * d], l, &xc, &mut y);
            let sq: f64 = y.iter().map(|v| v * v).sum();
            main[k] = g.alphas[k] + sum_qs[k] - 0.5 * sq;
        }
        slse += log_sum_exp(&main);
    }
    g.constant_term() + slse - g.n as f64 * log_sum_exp(&g.alphas) + wishart(g, &qdiag, &sum_qs)
}

/// The closed-form gradient of F, written into `grad` (length
/// [`Gmm::n_params`]) in ADBench's order: alphas, then means, then icf
/// (per component: the `d` log-diagonal entries, then the lower part).
///
/// Per point, every component's `xc = x - mu`, `y = Q xc` and log-density
/// are kept in buffers allocated once, the responsibilities `r_k` follow
/// from them, and the adjoints of `-0.5 |y|^2` are scattered to mu, q and l.
pub fn manual_gradient(g: &Gmm, grad: &mut [f64]) {
    let (d, k_n, icf_sz) = (g.d, g.k, g.icf_sz());
    assert_eq!(grad.len(), g.n_params(), "gradient length");
    grad.fill(0.0);
    let (ga, rest) = grad.split_at_mut(k_n);
    let (gm, gi) = rest.split_at_mut(k_n * d);
    let (qdiag, sum_qs) = component_terms(g);
    let mut xc = vec![0.0; k_n * d];
    let mut y = vec![0.0; k_n * d];
    let mut main = vec![0.0; k_n];
    for i in 0..g.n {
        let xi = &g.x[i * d..(i + 1) * d];
        for k in 0..k_n {
            let xck = &mut xc[k * d..(k + 1) * d];
            for j in 0..d {
                xck[j] = xi[j] - g.means[k * d + j];
            }
            let l = &g.icf[k * icf_sz + d..(k + 1) * icf_sz];
            let yk = &mut y[k * d..(k + 1) * d];
            q_times(&qdiag[k * d..(k + 1) * d], l, xck, yk);
            let sq: f64 = yk.iter().map(|v| v * v).sum();
            main[k] = g.alphas[k] + sum_qs[k] - 0.5 * sq;
        }
        let lse = log_sum_exp(&main);
        for k in 0..k_n {
            let r = (main[k] - lse).exp();
            ga[k] += r;
            let xck = &xc[k * d..(k + 1) * d];
            let yk = &y[k * d..(k + 1) * d];
            let gmk = &mut gm[k * d..(k + 1) * d];
            let gik = &mut gi[k * icf_sz..(k + 1) * icf_sz];
            let qd = &qdiag[k * d..(k + 1) * d];
            let l = &g.icf[k * icf_sz + d..(k + 1) * icf_sz];
            // d(-0.5 |y|^2)/d mu = Q^T y, taken column by column.
            for c in 0..d {
                gmk[c] += r * qd[c] * yk[c];
                gik[c] += r * (1.0 - yk[c] * xck[c] * qd[c]);
            }
            let mut idx = 0;
            for c in 0..d {
                let mut acc = 0.0;
                for r_ in c + 1..d {
                    acc += l[idx] * yk[r_];
                    gik[d + idx] -= r * yk[r_] * xck[c];
                    idx += 1;
                }
                gmk[c] += r * acc;
            }
        }
    }
    // The alphas' normalisation and the Wishart prior.
    let amax = g.alphas.iter().copied().fold(f64::NEG_INFINITY, f64::max);
    let asum: f64 = g.alphas.iter().map(|a| (a - amax).exp()).sum();
    let n_f = g.n as f64;
    let g2 = g.gamma * g.gamma;
    for k in 0..k_n {
        ga[k] -= n_f * (g.alphas[k] - amax).exp() / asum;
        for j in 0..d {
            gi[k * icf_sz + j] += g2 * qdiag[k * d + j] * qdiag[k * d + j] - g.m as f64;
        }
        for j in d..icf_sz {
            gi[k * icf_sz + j] += g2 * g.icf[k * icf_sz + j];
        }
    }
}

/// The signature of a compiled `gmm_objective` on `f64` (checked,
/// unchecked or taped: every build of `gmm.nil` has this one).
pub type NilObjective = fn(
    &mut f64,
    &[f64],
    &[f64],
    &[f64],
    &[f64],
    i64,
    i64,
    i64,
    f64,
    i64,
    f64,
) -> nilang_runtime::Result;

impl Gmm {
    /// F by one build of `gmm_objective`, given the constant term
    /// ([`Gmm::constant_term`], which a caller timing the objective
    /// computes once).
    pub fn nil_objective(
        &self,
        objective: NilObjective,
        constant: f64,
    ) -> nilang_runtime::Result<f64> {
        let mut out = 0.0;
        objective(
            &mut out,
            &self.alphas,
            &self.means,
            &self.icf,
            &self.x,
            self.d as i64,
            self.k as i64,
            self.n as i64,
            self.gamma,
            self.m,
            constant,
        )?;
        Ok(out)
    }
}

/// The signature of a compiled `gmm_objective_grad` on `f64` (checked,
/// unchecked or taped: every build of `gmm.nil` has this one).
pub type NilGradient = fn(
    &mut f64,
    &mut f64,
    &[f64],
    &mut [f64],
    &[f64],
    &mut [f64],
    &[f64],
    &mut [f64],
    &[f64],
    i64,
    i64,
    i64,
    f64,
    &mut f64,
    i64,
    f64,
    &mut f64,
) -> nilang_runtime::Result;

/// The adjoint buffers of a `gmm_objective_grad` call, allocated once and
/// reused by [`Bars::run`].
#[derive(Clone, Debug, PartialEq)]
pub struct Bars {
    pub alphas: Vec<f64>,
    pub means: Vec<f64>,
    pub icf: Vec<f64>,
    /// What the call left in `out` (the gradient program gives its inputs
    /// back, so 0 up to rounding), and the adjoints of `gamma` and of the
    /// constant term.
    pub out: f64,
    pub gamma: f64,
    pub constant: f64,
}

impl Bars {
    pub fn new(g: &Gmm) -> Self {
        Bars {
            alphas: vec![0.0; g.alphas.len()],
            means: vec![0.0; g.means.len()],
            icf: vec![0.0; g.icf.len()],
            out: 0.0,
            gamma: 0.0,
            constant: 0.0,
        }
    }

    /// Runs `grad` on `g` with the adjoint of the objective seeded to 1,
    /// every other adjoint cleared first, and keeps the adjoints here.
    pub fn run(&mut self, grad: NilGradient, g: &Gmm, constant: f64) -> nilang_runtime::Result {
        self.alphas.fill(0.0);
        self.means.fill(0.0);
        self.icf.fill(0.0);
        let (mut out_bar, mut gamma_bar, mut c_bar) = (1.0, 0.0, 0.0);
        let mut out = 0.0;
        grad(
            &mut out,
            &mut out_bar,
            &g.alphas,
            &mut self.alphas,
            &g.means,
            &mut self.means,
            &g.icf,
            &mut self.icf,
            &g.x,
            g.d as i64,
            g.k as i64,
            g.n as i64,
            g.gamma,
            &mut gamma_bar,
            g.m,
            constant,
            &mut c_bar,
        )?;
        self.out = out;
        self.gamma = gamma_bar;
        self.constant = c_bar;
        Ok(())
    }

    /// The gradient in ADBench's order: alphas, means, icf.
    pub fn gradient(&self) -> Vec<f64> {
        let mut v = self.alphas.clone();
        v.extend_from_slice(&self.means);
        v.extend_from_slice(&self.icf);
        v
    }
}

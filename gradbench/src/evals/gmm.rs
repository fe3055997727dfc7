//! `gmm`: GradBench's log posterior, and its gradient in alpha, mu, q and l
//! from the gradient program. Each run computes the objective's constant
//! (the Wishart normaliser and the Gaussians' -N d/2 ln(2π)) from `d`,
//! `k`, `n`, `m` and `gamma`, as every other tool does.

use serde_json::{Value, json};

use super::{Build, Eval, Which, field_number, numbers, rows, same_count, whole};

/// The input in ADBench's flat layout (`mu` and `x` row after row, each
/// component's `q` then `l` as its block of `icf`) and the adjoints.
pub struct Gmm {
    d: usize,
    k: usize,
    n: usize,
    alpha: Vec<f64>,
    mu: Vec<f64>,
    icf: Vec<f64>,
    x: Vec<f64>,
    gamma: f64,
    m: i64,
    out: f64,
    /// alpha, mu, icf, x.
    bars: [Vec<f64>; 3],
}

impl Gmm {
    pub fn of(input: &Value) -> Result<Gmm, String> {
        let size = |name: &str| -> Result<usize, String> {
            usize::try_from(whole(input, name)?)
                .map_err(|_| format!("`{name}` must not be negative"))
        };
        let (d, k, n) = (size("d")?, size("k")?, size("n")?);
        let m = whole(input, "m")?;
        let gamma = field_number(input, "gamma")?;
        let l_sz = d * d.saturating_sub(1) / 2;
        let alpha = numbers(input, "alpha")?;
        let sized = |field: &str, count: usize, width: usize| -> Result<Vec<f64>, String> {
            let (v, r, w) = rows(input, field)?;
            if r != count || (count > 0 && w != width) {
                return Err(format!("`{field}` must be {count} rows of {width} numbers"));
            }
            Ok(v)
        };
        let (mu, q, l, x) = (
            sized("mu", k, d)?,
            sized("q", k, d)?,
            sized("l", k, l_sz)?,
            sized("x", n, d)?,
        );
        if alpha.len() != k {
            return Err(format!("`alpha` has {} values, not k = {k}", alpha.len()));
        }
        let mut icf = Vec::with_capacity(k * (d + l_sz));
        for kk in 0..k {
            icf.extend_from_slice(&q[kk * d..(kk + 1) * d]);
            icf.extend_from_slice(&l[kk * l_sz..(kk + 1) * l_sz]);
        }
        let bars = [alpha.len(), mu.len(), icf.len()].map(|len| vec![0.0; len]);
        Ok(Gmm {
            d,
            k,
            n,
            alpha,
            mu,
            icf,
            x,
            gamma,
            m,
            out: 0.0,
            bars,
        })
    }

    /// -N d/2 ln(2π) + K C, C the Wishart normaliser (ln Γ_d by ADBench's
    /// Lanczos ln Γ).
    fn constant(&self) -> f64 {
        let (df, nw) = (self.d as f64, (self.d as i64 + self.m + 1) as f64);
        let mut log_gamma_d = 0.25 * df * (df - 1.0) * std::f64::consts::PI.ln();
        for j in 1..=self.d {
            log_gamma_d += nilang_adbench::gmm::lgamma(0.5 * nw + 0.5 * (1.0 - j as f64));
        }
        let c = nw * df * (self.gamma.ln() - 0.5 * 2f64.ln()) - log_gamma_d;
        -(self.n as f64) * df * 0.5 * (2.0 * std::f64::consts::PI).ln() + self.k as f64 * c
    }
}

impl Eval for Gmm {
    fn run(&mut self, which: Which, build: Build) -> nilang_runtime::Result {
        let (d, k, n) = (self.d as i64, self.k as i64, self.n as i64);
        let constant = self.constant();
        self.out = 0.0;
        match which {
            Which::Primal => call!(
                build,
                gmm_posterior::gmm_posterior(
                    &mut self.out,
                    &self.alpha,
                    &self.mu,
                    &self.icf,
                    &self.x,
                    d,
                    k,
                    n,
                    self.gamma,
                    self.m,
                    constant,
                )
            ),
            Which::Derivative | Which::Nested(..) => {
                let (mut out_bar, mut gamma_bar, mut constant_bar) = (1.0, 0.0, 0.0);
                self.bars.iter_mut().for_each(|b| b.fill(0.0));
                let [alpha_bar, mu_bar, icf_bar] = &mut self.bars;
                call!(
                    build,
                    gmm_posterior::gmm_posterior_grad(
                        &mut self.out,
                        &mut out_bar,
                        &self.alpha,
                        alpha_bar,
                        &self.mu,
                        mu_bar,
                        &self.icf,
                        icf_bar,
                        &self.x,
                        d,
                        k,
                        n,
                        self.gamma,
                        &mut gamma_bar,
                        self.m,
                        constant,
                        &mut constant_bar,
                    )
                )
            }
        }
    }

    fn replace_input(&mut self, input: &Value) -> Result<(), String> {
        let new = Gmm::of(input)?;
        same_count("`d`", self.d, new.d)?;
        same_count("`k`", self.k, new.k)?;
        same_count("`n`", self.n, new.n)?;
        (self.alpha, self.mu, self.icf, self.x) = (new.alpha, new.mu, new.icf, new.x);
        (self.gamma, self.m) = (new.gamma, new.m);
        Ok(())
    }

    fn output(&self, which: Which) -> Value {
        match which {
            Which::Primal => json!(self.out),
            Which::Derivative | Which::Nested(..) => {
                // GradBench's `Independent`: `alpha`, and `mu`, `q`, `l` a
                // row per component.
                let (d, k) = (self.d, self.k);
                let [alpha, mu, icf] = &self.bars;
                let icf_sz = icf.len() / k.max(1);
                let mu: Vec<&[f64]> = mu.chunks(d.max(1)).collect();
                let q: Vec<&[f64]> = (0..k)
                    .map(|kk| &icf[kk * icf_sz..kk * icf_sz + d])
                    .collect();
                let l: Vec<&[f64]> = (0..k)
                    .map(|kk| &icf[kk * icf_sz + d..(kk + 1) * icf_sz])
                    .collect();
                json!({ "alpha": alpha, "mu": mu, "q": q, "l": l })
            }
        }
    }
}

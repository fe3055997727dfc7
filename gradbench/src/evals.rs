//! The evals' functions: each turns its JSON input into the program's
//! values (timed as `prepare`), runs the `.nil` program or its gradient
//! program as often as asked (each run timed as `evaluate`), and turns the
//! result into the JSON output GradBench expects. No derivative here is
//! written by hand: each is a `_grad` program generated from the `.nil`
//! function.

use std::time::Instant;

use serde_json::{Value, json};

use crate::protocol::{Runs, Timing};
use nilang_runtime::num_dual::Dual64;

use crate::{det, gmm_posterior, hello, kmeans, llsq, lse, lstm, ode};

/// The modules this tool implements.
pub const MODULES: &[&str] = &[
    "ba", "det", "gmm", "hello", "kmeans", "llsq", "lse", "lstm", "ode",
];

/// Evaluates `module`'s `function` at `input`.
pub fn evaluate(
    module: &str,
    function: &str,
    input: &Value,
    timings: &mut Vec<Timing>,
) -> Result<Value, String> {
    let runs = Runs::of(input)?;
    match (module, function) {
        ("hello", "square" | "double") => {
            let x = prepare(timings, || number(input, "the input"))?;
            let value = runs.repeat(timings, || {
                let mut y = 0.0;
                if function == "square" {
                    hello::square(&mut y, x).map_err(|e| e.to_string())?;
                    Ok(y)
                } else {
                    let (mut y_bar, mut x_bar) = (1.0, 0.0);
                    hello::square_grad(&mut y, &mut y_bar, x, &mut x_bar)
                        .map_err(|e| e.to_string())?;
                    Ok(x_bar)
                }
            })?;
            Ok(json!(value))
        }
        ("lse", "primal" | "gradient") => {
            let x = prepare(timings, || numbers(input, "x"))?;
            if x.is_empty() {
                return Err("`x` is empty: LogSumExp needs at least one value".into());
            }
            let mut runmax = vec![0.0; x.len()];
            let mut runmax_bar = vec![0.0; x.len()];
            let mut x_bar = vec![0.0; x.len()];
            if function == "primal" {
                let out = runs.repeat(timings, || {
                    let mut out = 0.0;
                    lse::lse(&mut out, &x, &mut runmax).map_err(|e| e.to_string())?;
                    Ok(out)
                })?;
                Ok(json!(out))
            } else {
                runs.repeat(timings, || {
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
                    .map_err(|e| e.to_string())
                })?;
                Ok(json!(x_bar))
            }
        }
        ("llsq", "primal" | "gradient") => {
            let (x, n) = prepare(timings, || {
                let n = input
                    .get("n")
                    .and_then(Value::as_i64)
                    .filter(|&n| n >= 0)
                    .ok_or("`n` must be a whole number of points")?;
                Ok((numbers(input, "x")?, n))
            })?;
            if function == "primal" {
                let y = runs.repeat(timings, || {
                    let mut y = 0.0;
                    llsq::llsq(&mut y, &x, n).map_err(|e| e.to_string())?;
                    Ok(y)
                })?;
                Ok(json!(y))
            } else {
                let mut x_bar = vec![0.0; x.len()];
                runs.repeat(timings, || {
                    let (mut y, mut y_bar) = (0.0, 1.0);
                    x_bar.fill(0.0);
                    llsq::llsq_grad(&mut y, &mut y_bar, &x, &mut x_bar, n)
                        .map_err(|e| e.to_string())
                })?;
                Ok(json!(x_bar))
            }
        }
        ("det", "primal" | "gradient") => {
            let (a, ell) = prepare(timings, || {
                let a = numbers(input, "A")?;
                let ell = input
                    .get("ell")
                    .and_then(Value::as_i64)
                    .filter(|&l| l > 0 && (l * l) as usize == a.len())
                    .ok_or("`ell` must be the edge of the square matrix `A`")?;
                Ok((a, ell))
            })?;
            if function == "primal" {
                let out = runs.repeat(timings, || {
                    let mut out = 0.0;
                    det::det(&mut out, &a, ell).map_err(|e| e.to_string())?;
                    Ok(out)
                })?;
                Ok(json!(out))
            } else {
                let mut a_bar = vec![0.0; a.len()];
                runs.repeat(timings, || {
                    let (mut out, mut out_bar) = (0.0, 1.0);
                    a_bar.fill(0.0);
                    det::det_grad(&mut out, &mut out_bar, &a, &mut a_bar, ell)
                        .map_err(|e| e.to_string())
                })?;
                Ok(json!(a_bar))
            }
        }
        ("kmeans", "cost" | "dir") => {
            let (p, c, n, k, d) = prepare(timings, || {
                let rows_of = |field: &str| -> Result<(Vec<f64>, usize, usize), String> {
                    let count = input
                        .get(field)
                        .and_then(Value::as_array)
                        .map(Vec::len)
                        .ok_or_else(|| format!("the input needs an array of points `{field}`"))?;
                    let width = input[field]
                        .get(0)
                        .and_then(Value::as_array)
                        .map_or(0, Vec::len);
                    Ok((rows(input, field, count, width)?, count, width))
                };
                let (p, n, d) = rows_of("points")?;
                let (c, k, dc) = rows_of("centroids")?;
                if dc != d || k == 0 || d == 0 {
                    return Err("`points` and `centroids` need the same positive dimension and at least one centroid".to_string());
                }
                Ok((p, c, n, k, d))
            })?;
            let (ni, ki, di) = (n as i64, k as i64, d as i64);
            if function == "cost" {
                let (mut dist, mut runmin) = (vec![0.0; k], vec![0.0; k]);
                let cost = runs.repeat(timings, || {
                    let mut cost = 0.0;
                    kmeans::kmeans_cost(&mut cost, &p, &c, ni, ki, di, &mut dist, &mut runmin)
                        .map_err(|e| e.to_string())?;
                    Ok(cost)
                })?;
                Ok(json!(cost))
            } else {
                // Forward over reverse: the gradient program on dual numbers
                // with every centroid coordinate seeded 1 gives J (values)
                // and H·1, the diagonal of the diagonal Hessian (tangents).
                let pd: Vec<Dual64> = p.iter().map(|&v| Dual64::from(v)).collect();
                let cd: Vec<Dual64> = c.iter().map(|&v| Dual64::new(v, 1.0)).collect();
                let zero = Dual64::from(0.0);
                let (mut pd_bar, mut cd_bar) = (vec![zero; p.len()], vec![zero; c.len()]);
                let (mut dist, mut dist_bar) = (vec![zero; k], vec![zero; k]);
                let (mut runmin, mut runmin_bar) = (vec![zero; k], vec![zero; k]);
                let mut dir = vec![0.0; c.len()];
                runs.repeat(timings, || {
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
                        ni,
                        ki,
                        di,
                        &mut dist,
                        &mut dist_bar,
                        &mut runmin,
                        &mut runmin_bar,
                    )
                    .map_err(|e| e.to_string())?;
                    for (out, g) in dir.iter_mut().zip(&cd_bar) {
                        *out = g.re / g.eps;
                    }
                    Ok(())
                })?;
                let rows: Vec<&[f64]> = dir.chunks(d).collect();
                Ok(json!(rows))
            }
        }
        ("ode", "primal" | "gradient") => {
            let (x, s) = prepare(timings, || {
                let s = input
                    .get("s")
                    .and_then(Value::as_i64)
                    .filter(|&s| s > 0)
                    .ok_or("`s` must be a positive number of steps")?;
                let x = numbers(input, "x")?;
                if x.is_empty() {
                    return Err("`x` is empty".to_string());
                }
                Ok((x, s))
            })?;
            let n = x.len();
            let mut ys = vec![0.0; (s as usize + 1) * n];
            let mut ks = [0; 4].map(|_| vec![0.0; n]);
            if function == "primal" {
                let mut yf = vec![0.0; n];
                runs.repeat(timings, || {
                    yf.fill(0.0);
                    let [k1, k2, k3, k4] = &mut ks;
                    ode::ode(&mut yf, &x, s, &mut ys, k1, k2, k3, k4).map_err(|e| e.to_string())
                })?;
                Ok(json!(yf))
            } else {
                // The gradient of the last component: its adjoint seeded 1.
                let (mut yf, mut yf_bar, mut x_bar) = (vec![0.0; n], vec![0.0; n], vec![0.0; n]);
                let mut ys_bar = vec![0.0; ys.len()];
                let mut ks_bar = [0; 4].map(|_| vec![0.0; n]);
                runs.repeat(timings, || {
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
                    .map_err(|e| e.to_string())
                })?;
                Ok(json!(x_bar))
            }
        }
        ("lstm", "objective" | "jacobian") => {
            let x = prepare(timings, || Lstm::of(input))?;
            let (l, c, b) = (x.l as i64, x.c as i64, x.b as i64);
            let mut work = x.work();
            if function == "objective" {
                let loss = runs.repeat(timings, || {
                    let mut loss = 0.0;
                    let [hiddens, cells, inputs, sumexp, golds] = &mut work;
                    lstm::lstm_objective(
                        &mut loss, &x.main, &x.extra, &x.state, &x.seq, l, c, b, hiddens, cells,
                        inputs, sumexp, golds,
                    )
                    .map_err(|e| e.to_string())?;
                    Ok(loss)
                })?;
                Ok(json!(loss))
            } else {
                let mut bars = [&x.main, &x.extra, &x.state, &x.seq].map(|v| vec![0.0; v.len()]);
                let mut work_bars = x.work();
                runs.repeat(timings, || {
                    let (mut loss, mut loss_bar) = (0.0, 1.0);
                    bars.iter_mut().for_each(|v| v.fill(0.0));
                    let [main_bar, extra_bar, state_bar, seq_bar] = &mut bars;
                    let [hiddens, cells, inputs, sumexp, golds] = &mut work;
                    let [hb, cb, ib, sb, gb] = &mut work_bars;
                    lstm::lstm_objective_grad(
                        &mut loss,
                        &mut loss_bar,
                        &x.main,
                        main_bar,
                        &x.extra,
                        extra_bar,
                        &x.state,
                        state_bar,
                        &x.seq,
                        seq_bar,
                        l,
                        c,
                        b,
                        hiddens,
                        hb,
                        cells,
                        cb,
                        inputs,
                        ib,
                        sumexp,
                        sb,
                        golds,
                        gb,
                    )
                    .map_err(|e| e.to_string())
                })?;
                let jacobian: Vec<f64> = bars[0].iter().chain(&bars[1]).copied().collect();
                Ok(json!(jacobian))
            }
        }
        ("gmm", "objective" | "jacobian") => {
            let g = prepare(timings, || Gmm::of(input))?;
            let (d, k, n) = (g.d as i64, g.k as i64, g.n as i64);
            if function == "objective" {
                let out = runs.repeat(timings, || {
                    let mut out = 0.0;
                    gmm_posterior::gmm_posterior(
                        &mut out, &g.alpha, &g.mu, &g.icf, &g.x, d, k, n, g.gamma, g.m, g.constant,
                    )
                    .map_err(|e| e.to_string())?;
                    Ok(out)
                })?;
                Ok(json!(out))
            } else {
                let mut bars =
                    [g.alpha.len(), g.mu.len(), g.icf.len(), g.x.len()].map(|len| vec![0.0; len]);
                runs.repeat(timings, || {
                    let (mut out, mut out_bar, mut gamma_bar, mut constant_bar) =
                        (0.0, 1.0, 0.0, 0.0);
                    bars.iter_mut().for_each(|b| b.fill(0.0));
                    let [alpha_bar, mu_bar, icf_bar, x_bar] = &mut bars;
                    gmm_posterior::gmm_posterior_grad(
                        &mut out,
                        &mut out_bar,
                        &g.alpha,
                        alpha_bar,
                        &g.mu,
                        mu_bar,
                        &g.icf,
                        icf_bar,
                        &g.x,
                        x_bar,
                        d,
                        k,
                        n,
                        g.gamma,
                        &mut gamma_bar,
                        g.m,
                        g.constant,
                        &mut constant_bar,
                    )
                    .map_err(|e| e.to_string())
                })?;
                Ok(g.jacobian(&bars[0], &bars[1], &bars[2]))
            }
        }
        ("ba", "objective" | "jacobian") => {
            let ba = prepare(timings, || ba_input(input))?;
            if function == "objective" {
                let (mut reproj, mut w_err) = (vec![0.0; 2 * ba.p], vec![0.0; ba.p]);
                runs.repeat(timings, || {
                    nilang_adbench::ba::nil_residuals(&ba, &mut reproj, &mut w_err)
                        .map_err(|e| e.to_string())
                })?;
                // GradBench sends one camera, point and feature repeated, and
                // takes back one residual of each kind with its count.
                Ok(json!({
                    "reproj_error": { "elements": &reproj[..2], "repeated": ba.p },
                    "w_err": { "element": w_err[0], "repeated": ba.p },
                }))
            } else {
                // The sparsity structure depends on the input only.
                let mut jac = nilang_adbench::ba::BaJacobian::new(&ba);
                runs.repeat(timings, || {
                    nilang_adbench::ba::nil_jacobian(&ba, &mut jac).map_err(|e| e.to_string())
                })?;
                Ok(json!({
                    "rows": first_and_last(&jac.rows),
                    "cols": first_and_last(&jac.cols),
                    "vals": first_and_last(&jac.vals),
                }))
            }
        }
        _ if MODULES.contains(&module) => Err(format!(
            "the module `{module}` has no function `{function}`"
        )),
        _ => Err(format!(
            "nilang has no implementation of the module `{module}`"
        )),
    }
}

/// GradBench's `gmm` input in ADBench's flat layout: `mu` and `x` row after
/// row, each component's `q` then `l` as its block of `icf`.
struct Gmm {
    d: usize,
    k: usize,
    n: usize,
    alpha: Vec<f64>,
    mu: Vec<f64>,
    icf: Vec<f64>,
    x: Vec<f64>,
    gamma: f64,
    m: i64,
    /// -N d/2 ln(2π) + K C, C the Wishart normaliser.
    constant: f64,
}

impl Gmm {
    fn of(input: &Value) -> Result<Gmm, String> {
        let size = |name: &str| -> Result<usize, String> {
            input
                .get(name)
                .and_then(Value::as_u64)
                .map(|v| v as usize)
                .ok_or_else(|| format!("`{name}` must be a whole number"))
        };
        let (d, k, n) = (size("d")?, size("k")?, size("n")?);
        let m = input
            .get("m")
            .and_then(Value::as_i64)
            .ok_or("`m` must be a whole number")?;
        let gamma = number(input.get("gamma").unwrap_or(&Value::Null), "`gamma`")?;
        let l_sz = d * d.saturating_sub(1) / 2;
        let alpha = numbers(input, "alpha")?;
        let mu = rows(input, "mu", k, d)?;
        let q = rows(input, "q", k, d)?;
        let l = rows(input, "l", k, l_sz)?;
        let x = rows(input, "x", n, d)?;
        if alpha.len() != k {
            return Err(format!("`alpha` has {} values, not k = {k}", alpha.len()));
        }
        let mut icf = Vec::with_capacity(k * (d + l_sz));
        for kk in 0..k {
            icf.extend_from_slice(&q[kk * d..(kk + 1) * d]);
            icf.extend_from_slice(&l[kk * l_sz..(kk + 1) * l_sz]);
        }
        let (df, nw) = (d as f64, (d as i64 + m + 1) as f64);
        let mut log_gamma_d = 0.25 * df * (df - 1.0) * std::f64::consts::PI.ln();
        for j in 1..=d {
            log_gamma_d += nilang_adbench::gmm::lgamma(0.5 * nw + 0.5 * (1.0 - j as f64));
        }
        let c = nw * df * (gamma.ln() - 0.5 * 2f64.ln()) - log_gamma_d;
        let constant = -(n as f64) * df * 0.5 * (2.0 * std::f64::consts::PI).ln() + k as f64 * c;
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
            constant,
        })
    }

    /// GradBench's `Independent` from the adjoints: `alpha`, and `mu`, `q`,
    /// `l` a row per component.
    fn jacobian(&self, alpha: &[f64], mu: &[f64], icf: &[f64]) -> Value {
        let (d, k) = (self.d, self.k);
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

/// GradBench's `lstm` input: its rows concatenated, with l layers (two
/// rows of `main_params` each), width b and c characters.
struct Lstm {
    l: usize,
    c: usize,
    b: usize,
    main: Vec<f64>,
    extra: Vec<f64>,
    state: Vec<f64>,
    seq: Vec<f64>,
}

impl Lstm {
    fn of(input: &Value) -> Result<Lstm, String> {
        let rows_of = |field: &str| -> Result<(Vec<f64>, usize, usize), String> {
            let count = input
                .get(field)
                .and_then(Value::as_array)
                .map(Vec::len)
                .ok_or_else(|| format!("the input needs an array of arrays `{field}`"))?;
            let width = input[field]
                .get(0)
                .and_then(Value::as_array)
                .map_or(0, Vec::len);
            Ok((rows(input, field, count, width)?, count, width))
        };
        let (main, main_rows, main_width) = rows_of("main_params")?;
        let (l, b) = (main_rows / 2, main_width / 4);
        if l == 0 || b == 0 || main_rows % 2 != 0 || main_width % 4 != 0 {
            return Err("`main_params` must have two rows of 4b numbers per layer".into());
        }
        let (extra, extra_rows, extra_width) = rows_of("extra_params")?;
        let (state, state_rows, state_width) = rows_of("state")?;
        let (seq, c, seq_width) = rows_of("sequence")?;
        if (extra_rows, extra_width) != (3, b)
            || (state_rows, state_width) != (2 * l, b)
            || seq_width != b
            || c < 2
        {
            return Err(format!(
                "for {l} layers of width {b}: `extra_params` must be 3 rows, `state` {} rows and `sequence` at least 2 rows, each of {b} numbers",
                2 * l
            ));
        }
        Ok(Lstm {
            l,
            c,
            b,
            main,
            extra,
            state,
            seq,
        })
    }

    /// Zeroed work arrays: hiddens, cells, inputs, sumexp, golds.
    fn work(&self) -> [Vec<f64>; 5] {
        let (l, c, b) = (self.l, self.c, self.b);
        [
            vec![0.0; c * l * b],
            vec![0.0; c * l * b],
            vec![0.0; (c - 1) * l * b],
            vec![0.0; c - 1],
            vec![0.0; c - 1],
        ]
    }
}

/// What GradBench takes back of a long list: its first 30 entries (for
/// `vals`, the first observation's two rows) and its last; a list of 30 or
/// fewer (`rows` when p < 10) whole.
fn first_and_last<T: Copy>(v: &[T]) -> Vec<T> {
    if v.len() <= 31 {
        return v.to_vec();
    }
    v[..30].iter().chain(v.last()).copied().collect()
}

/// GradBench's `ba` input expanded as its reference does: the one camera
/// `n` times, the one point `m` times, the weight and the feature `p` times,
/// observation `i` pairing camera `i mod n` with point `i mod m`.
fn ba_input(input: &Value) -> Result<nilang_adbench::ba::BaInput, String> {
    let size = |name: &str| -> Result<usize, String> {
        input
            .get(name)
            .and_then(Value::as_u64)
            .filter(|&v| v > 0)
            .map(|v| v as usize)
            .ok_or_else(|| format!("`{name}` must be a positive whole number"))
    };
    let (n, m, p) = (size("n")?, size("m")?, size("p")?);
    let fixed = |name: &str, len: usize| -> Result<Vec<f64>, String> {
        let v = numbers(input, name)?;
        if v.len() != len {
            return Err(format!("`{name}` has {} values, not {len}", v.len()));
        }
        Ok(v)
    };
    let (cam, x, feat) = (fixed("cam", 11)?, fixed("x", 3)?, fixed("feat", 2)?);
    let w = number(input.get("w").unwrap_or(&Value::Null), "`w`")?;
    Ok(nilang_adbench::ba::BaInput {
        n,
        m,
        p,
        cams: cam.repeat(n),
        points: x.repeat(m),
        weights: vec![w; p],
        feats: feat.repeat(p),
        obs: (0..p).map(|i| (i % n, i % m)).collect(),
    })
}

/// A `rows` × `width` array of arrays, flattened row after row.
fn rows(input: &Value, field: &str, rows: usize, width: usize) -> Result<Vec<f64>, String> {
    let Some(Value::Array(items)) = input.get(field) else {
        return Err(format!("the input needs an array of arrays `{field}`"));
    };
    if items.len() != rows {
        return Err(format!("`{field}` has {} rows, not {rows}", items.len()));
    }
    let mut out = Vec::with_capacity(rows * width);
    for (i, row) in items.iter().enumerate() {
        let Value::Array(row) = row else {
            return Err(format!("row {i} of `{field}` is not an array"));
        };
        if row.len() != width {
            return Err(format!(
                "row {i} of `{field}` has {} values, not {width}",
                row.len()
            ));
        }
        for v in row {
            out.push(number(v, &format!("each element of `{field}`"))?);
        }
    }
    Ok(out)
}

/// Runs `f`, the conversion of the input, and times it as `prepare`.
fn prepare<T>(
    timings: &mut Vec<Timing>,
    f: impl FnOnce() -> Result<T, String>,
) -> Result<T, String> {
    let start = Instant::now();
    let value = f()?;
    timings.push(Timing {
        name: "prepare",
        duration: start.elapsed(),
    });
    Ok(value)
}

fn number(value: &Value, what: &str) -> Result<f64, String> {
    value
        .as_f64()
        .ok_or_else(|| format!("{what} must be a number, not {value}"))
}

fn numbers(input: &Value, field: &str) -> Result<Vec<f64>, String> {
    let Some(Value::Array(items)) = input.get(field) else {
        return Err(format!("the input needs an array of numbers `{field}`"));
    };
    items
        .iter()
        .map(|v| number(v, &format!("each element of `{field}`")))
        .collect()
}

//! `saddle`: min over a of max over b of f(a, b), by GradBench's solver,
//! then max over b of f(r₁, b) (`saddle.nil`). The inner maximum is the
//! `.nil` function `max_cost_*`, whose own solver loop takes ∇_b f by a
//! derivative call (`(∇saddle_f)` in `max_cost_r`, `(∂saddle_f)` in
//! `max_cost_f`); the outer derivative, for the solver here, is the
//! gradient program `max_cost_*_grad` (reverse) or the function run on
//! `nilang::Dual` (forward), and the last maximum takes ∇_b f in the outer
//! mode too.

use serde_json::{Value, json};

use super::{Eval, Mode, Which, numbers, solver};
use crate::nil::saddle;
use nilang_runtime::{Dual, Real, Result};

pub struct Saddle {
    start: [f64; 2],
    out: [f64; 4],
}

impl Saddle {
    pub fn of(input: &Value) -> std::result::Result<Saddle, String> {
        match numbers(input, "start")?.as_slice() {
            &[a, b] => Ok(Saddle {
                start: [a, b],
                out: [0.0; 4],
            }),
            other => Err(format!("`start` must hold 2 numbers, not {}", other.len())),
        }
    }
}

/// `out += max_b f(a, b)`, on `f64` or dual numbers, with the inner
/// derivative in mode `inner`.
fn add_max_cost<T: Real>(inner: Mode, out: &mut T, a: &[T], start: &[T]) -> Result {
    match inner {
        Mode::Reverse => saddle::max_cost_r(out, a, start),
        Mode::Forward => saddle::max_cost_f(out, a, start),
    }
}

/// max_b f(a, b).
fn max_cost(inner: Mode, a: &[f64], start: &[f64]) -> Result<f64> {
    let mut out = 0.0;
    add_max_cost(inner, &mut out, a, start)?;
    Ok(out)
}

/// The gradient program of `max_cost` with the inner derivative in mode
/// `inner`.
type Gradient = fn(&mut f64, &mut f64, &[f64], &mut [f64], &[f64], &mut [f64]) -> Result;

/// ∇_a max_b f(a, b), the outer derivative in mode `outer`.
fn max_cost_gradient(outer: Mode, inner: Mode, a: &[f64], start: &[f64]) -> Result<Vec<f64>> {
    match outer {
        Mode::Reverse => {
            let gradient: Gradient = match inner {
                Mode::Reverse => saddle::max_cost_r_grad,
                Mode::Forward => saddle::max_cost_f_grad,
            };
            let (mut out, mut out_bar) = (0.0, 1.0);
            let (mut a_bar, mut start_bar) = ([0.0; 2], [0.0; 2]);
            gradient(&mut out, &mut out_bar, a, &mut a_bar, start, &mut start_bar)?;
            Ok(a_bar.to_vec())
        }
        Mode::Forward => (0..2)
            .map(|k| {
                let start: Vec<Dual<f64>> = start.iter().map(|&s| Dual::constant(s)).collect();
                let mut out = Dual::constant(0.0);
                add_max_cost(inner, &mut out, &direction(a, k), &start)?;
                Ok(out.eps)
            })
            .collect(),
    }
}

/// `x` as dual numbers with the direction of coordinate `k`.
fn direction(x: &[f64], k: usize) -> [Dual<f64>; 2] {
    [0, 1].map(|i| Dual::new(x[i], if i == k { 1.0 } else { 0.0 }))
}

/// -f(a, b).
fn minus_f(a: &[f64], b: &[f64]) -> Result<f64> {
    let mut out = 0.0;
    saddle::saddle_f(&mut out, a, b)?;
    Ok(-out)
}

/// -∇_b f(a, b), in mode `outer`.
fn minus_f_gradient(outer: Mode, a: &[f64], b: &[f64]) -> Result<Vec<f64>> {
    match outer {
        Mode::Reverse => {
            let (mut out, mut out_bar) = (0.0, 1.0);
            let (mut a_bar, mut b_bar) = ([0.0; 2], [0.0; 2]);
            saddle::saddle_f_grad(&mut out, &mut out_bar, a, &mut a_bar, b, &mut b_bar)?;
            Ok(b_bar.iter().map(|g| -g).collect())
        }
        Mode::Forward => (0..2)
            .map(|k| {
                let a = [a[0], a[1]].map(Dual::constant);
                let mut out = Dual::constant(0.0);
                saddle::saddle_f(&mut out, &a, &direction(b, k))?;
                Ok(-out.eps)
            })
            .collect(),
    }
}

impl Eval for Saddle {
    fn run(&mut self, which: Which) -> Result {
        let (outer, inner) = match which {
            Which::Nested(outer, inner) => (outer, inner),
            // `which` only gives the nestings for this module.
            Which::Primal | Which::Derivative => (Mode::Reverse, Mode::Reverse),
        };
        let start = self.start;
        let r1 = solver::argmin(&start, &mut |a| max_cost(inner, a, &start), &mut |a| {
            max_cost_gradient(outer, inner, a, &start)
        })?;
        let r2 = solver::argmin(&start, &mut |b| minus_f(&r1, b), &mut |b| {
            minus_f_gradient(outer, &r1, b)
        })?;
        self.out = [r1[0], r1[1], r2[0], r2[1]];
        Ok(())
    }

    fn output(&self, _which: Which) -> Value {
        json!(self.out)
    }
}

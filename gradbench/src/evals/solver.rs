//! GradBench's solver for `particle` and `saddle` (its Futhark and C++
//! tools' `multivariate_argmin`): gradient descent from `x`, with a step
//! `eta` (first 1e-5) doubled after 10 accepted steps in a row and halved
//! after a rejected one, until the gradient or a step is shorter than 1e-5.
//! It is the driver only: the function and its gradient are the `.nil`
//! programs' (the gradient a gradient program, or the function run on dual
//! numbers), given as closures.

use nilang_runtime::Result;

/// The minimiser of `f` from `x`, with `g` its gradient.
pub fn argmin(
    x: &[f64],
    f: &mut dyn FnMut(&[f64]) -> Result<f64>,
    g: &mut dyn FnMut(&[f64]) -> Result<Vec<f64>>,
) -> Result<Vec<f64>> {
    let mut x = x.to_vec();
    let mut fx = f(&x)?;
    let mut gx = g(&x)?;
    let mut eta = 1e-5;
    let mut i = 0;
    loop {
        if norm(&gx) <= 1e-5 {
            return Ok(x);
        }
        if i == 10 {
            eta *= 2.0;
            i = 0;
            continue;
        }
        let next: Vec<f64> = x.iter().zip(&gx).map(|(a, d)| a - eta * d).collect();
        let step: Vec<f64> = x.iter().zip(&next).map(|(a, b)| a - b).collect();
        if norm(&step) <= 1e-5 {
            return Ok(x);
        }
        let f_next = f(&next)?;
        if f_next < fx {
            x = next;
            fx = f_next;
            gx = g(&x)?;
            i += 1;
        } else {
            eta /= 2.0;
            i = 0;
        }
    }
}

fn norm(v: &[f64]) -> f64 {
    v.iter().map(|a| a * a).sum::<f64>().sqrt()
}

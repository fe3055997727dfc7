//! `particle`: the control `w` that makes the charged particle cross the x
//! axis at the origin, by GradBench's solver on the cost `miss_*`, whose
//! force is itself a derivative (`particle.nil`). The four functions nest
//! the two derivatives in each combination of modes:
//! - the inner one (the force, inside the `.nil` cost): `(∇potential)` in
//!   `miss_r`, `(∂potential)` in `miss_f`;
//! - the outer one (d cost / dw, for the solver): the gradient program
//!   `miss_*_grad` (reverse) or the cost run on `nilang::Dual` (forward).

use serde_json::{Value, json};

use super::{Eval, Mode, Which, field_number, solver};
use crate::nil::particle;
use nilang_runtime::{Dual, Real, Result};

pub struct Particle {
    w0: f64,
    w: f64,
}

impl Particle {
    pub fn of(input: &Value) -> std::result::Result<Particle, String> {
        let w0 = field_number(input, "w")?;
        Ok(Particle { w0, w: w0 })
    }
}

/// `out += ` the cost at `w`, on `f64` or dual numbers, with the inner
/// derivative in mode `inner`.
fn add_cost<T: Real>(inner: Mode, out: &mut T, w: T) -> Result {
    match inner {
        Mode::Reverse => particle::miss_r(out, w),
        Mode::Forward => particle::miss_f(out, w),
    }
}

/// The cost at `w`.
fn cost(inner: Mode, w: f64) -> Result<f64> {
    let mut out = 0.0;
    add_cost(inner, &mut out, w)?;
    Ok(out)
}

/// d cost / dw, the outer derivative in mode `outer`.
fn slope(outer: Mode, inner: Mode, w: f64) -> Result<f64> {
    match outer {
        Mode::Reverse => {
            let gradient: fn(&mut f64, &mut f64, f64, &mut f64) -> Result = match inner {
                Mode::Reverse => particle::miss_r_grad,
                Mode::Forward => particle::miss_f_grad,
            };
            let (mut out, mut out_bar, mut w_bar) = (0.0, 1.0, 0.0);
            gradient(&mut out, &mut out_bar, w, &mut w_bar)?;
            Ok(w_bar)
        }
        Mode::Forward => {
            let mut out = Dual::constant(0.0);
            add_cost(inner, &mut out, Dual::variable(w))?;
            Ok(out.eps)
        }
    }
}

impl Eval for Particle {
    fn run(&mut self, which: Which) -> Result {
        let (outer, inner) = match which {
            Which::Nested(outer, inner) => (outer, inner),
            // `which` only gives the nestings for this module.
            Which::Primal | Which::Derivative => (Mode::Reverse, Mode::Reverse),
        };
        let w = solver::argmin(&[self.w0], &mut |w| cost(inner, w[0]), &mut |w| {
            Ok(vec![slope(outer, inner, w[0])?])
        })?;
        self.w = w[0];
        Ok(())
    }

    fn output(&self, _which: Which) -> Value {
        json!(self.w)
    }
}

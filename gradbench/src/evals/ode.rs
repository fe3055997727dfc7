//! `ode`: the Runge-Kutta solution, and the gradient of its last component
//! from the gradient program.

use serde_json::{Value, json};

use super::{Build, Eval, Which, numbers, same_count, whole};

pub struct Ode {
    x: Vec<f64>,
    s: i64,
    yf: Vec<f64>,
    x_bar: Vec<f64>,
    yf_bar: Vec<f64>,
}

impl Ode {
    pub fn of(input: &Value) -> Result<Ode, String> {
        let s = whole(input, "s")?;
        let x = numbers(input, "x")?;
        if s <= 0 || x.is_empty() {
            return Err("`s` must be a positive number of steps and `x` not empty".into());
        }
        let n = x.len();
        Ok(Ode {
            x,
            s,
            yf: vec![0.0; n],
            x_bar: vec![0.0; n],
            yf_bar: vec![0.0; n],
        })
    }
}

impl Eval for Ode {
    fn run(&mut self, which: Which, build: Build) -> nilang_runtime::Result {
        self.yf.fill(0.0);
        match which {
            Which::Primal => call!(build, ode::ode(&mut self.yf, &self.x, self.s)),
            Which::Derivative | Which::Nested(..) => {
                // The gradient of the last component: its adjoint seeded 1.
                let n = self.x.len();
                self.yf_bar.fill(0.0);
                self.yf_bar[n - 1] = 1.0;
                self.x_bar.fill(0.0);
                call!(
                    build,
                    ode::ode_grad(
                        &mut self.yf,
                        &mut self.yf_bar,
                        &self.x,
                        &mut self.x_bar,
                        self.s,
                    )
                )
            }
        }
    }

    fn replace_input(&mut self, input: &Value) -> Result<(), String> {
        let new = Ode::of(input)?;
        same_count("the length of `x`", self.x.len(), new.x.len())?;
        same_count("`s`", self.s as usize, new.s as usize)?;
        self.x = new.x;
        Ok(())
    }

    fn output(&self, which: Which) -> Value {
        match which {
            Which::Primal => json!(self.yf),
            Which::Derivative | Which::Nested(..) => json!(self.x_bar),
        }
    }
}

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
    /// The steps' rows and stages (zeros between runs), and their adjoints.
    ys: Vec<f64>,
    ks: [Vec<f64>; 4],
    ys_bar: Vec<f64>,
    ks_bar: [Vec<f64>; 4],
}

impl Ode {
    pub fn of(input: &Value) -> Result<Ode, String> {
        let s = whole(input, "s")?;
        let x = numbers(input, "x")?;
        if s <= 0 || x.is_empty() {
            return Err("`s` must be a positive number of steps and `x` not empty".into());
        }
        let n = x.len();
        let rows = (s as usize + 1) * n;
        Ok(Ode {
            x,
            s,
            yf: vec![0.0; n],
            x_bar: vec![0.0; n],
            yf_bar: vec![0.0; n],
            ys: vec![0.0; rows],
            ks: [0; 4].map(|_| vec![0.0; n]),
            ys_bar: vec![0.0; rows],
            ks_bar: [0; 4].map(|_| vec![0.0; n]),
        })
    }
}

impl Eval for Ode {
    fn run(&mut self, which: Which, build: Build) -> nilang_runtime::Result {
        self.yf.fill(0.0);
        let [k1, k2, k3, k4] = &mut self.ks;
        match which {
            Which::Primal => call!(
                build,
                ode::ode(&mut self.yf, &self.x, self.s, &mut self.ys, k1, k2, k3, k4)
            ),
            Which::Derivative | Which::Nested(..) => {
                // The gradient of the last component: its adjoint seeded 1.
                let n = self.x.len();
                self.yf_bar.fill(0.0);
                self.yf_bar[n - 1] = 1.0;
                self.x_bar.fill(0.0);
                // The work arrays' adjoints too: a reverse sweep leaves
                // rounding errors in them, which would seed this run.
                self.ys_bar.fill(0.0);
                self.ks_bar.iter_mut().for_each(|v| v.fill(0.0));
                let [k1b, k2b, k3b, k4b] = &mut self.ks_bar;
                call!(
                    build,
                    ode::ode_grad(
                        &mut self.yf,
                        &mut self.yf_bar,
                        &self.x,
                        &mut self.x_bar,
                        self.s,
                        &mut self.ys,
                        &mut self.ys_bar,
                        k1,
                        k1b,
                        k2,
                        k2b,
                        k3,
                        k3b,
                        k4,
                        k4b,
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

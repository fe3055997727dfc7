//! `lse`: LogSumExp and its gradient program.

use serde_json::{Value, json};

use super::{Eval, Which, numbers};
use crate::nil::lse;

pub struct Lse {
    x: Vec<f64>,
    out: f64,
    x_bar: Vec<f64>,
    /// The running maximum the program keeps (zeros between runs).
    runmax: Vec<f64>,
    runmax_bar: Vec<f64>,
}

impl Lse {
    pub fn of(input: &Value) -> Result<Lse, String> {
        let x = numbers(input, "x")?;
        if x.is_empty() {
            return Err("`x` is empty: LogSumExp needs at least one value".into());
        }
        let n = x.len();
        Ok(Lse {
            x,
            out: 0.0,
            x_bar: vec![0.0; n],
            runmax: vec![0.0; n],
            runmax_bar: vec![0.0; n],
        })
    }
}

impl Eval for Lse {
    fn run(&mut self, which: Which) -> nilang_runtime::Result {
        self.out = 0.0;
        match which {
            Which::Primal => lse::lse(&mut self.out, &self.x, &mut self.runmax),
            Which::Derivative | Which::Nested(..) => {
                let mut out_bar = 1.0;
                self.x_bar.fill(0.0);
                lse::lse_grad(
                    &mut self.out,
                    &mut out_bar,
                    &self.x,
                    &mut self.x_bar,
                    &mut self.runmax,
                    &mut self.runmax_bar,
                )
            }
        }
    }

    fn output(&self, which: Which) -> Value {
        match which {
            Which::Primal => json!(self.out),
            Which::Derivative | Which::Nested(..) => json!(self.x_bar),
        }
    }
}

//! `lse`: LogSumExp and its gradient program.

use serde_json::{Value, json};

use super::{Build, Eval, Which, numbers, same_count};

pub struct Lse {
    x: Vec<f64>,
    out: f64,
    x_bar: Vec<f64>,
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
        })
    }
}

impl Eval for Lse {
    fn run(&mut self, which: Which, build: Build) -> nilang_runtime::Result {
        self.out = 0.0;
        match which {
            Which::Primal => call!(build, lse::lse(&mut self.out, &self.x)),
            Which::Derivative | Which::Nested(..) => {
                let mut out_bar = 1.0;
                self.x_bar.fill(0.0);
                call!(
                    build,
                    lse::lse_grad(&mut self.out, &mut out_bar, &self.x, &mut self.x_bar)
                )
            }
        }
    }

    fn replace_input(&mut self, input: &Value) -> Result<(), String> {
        let x = numbers(input, "x")?;
        same_count("the length of `x`", self.x.len(), x.len())?;
        self.x = x;
        Ok(())
    }

    fn output(&self, which: Which) -> Value {
        match which {
            Which::Primal => json!(self.out),
            Which::Derivative | Which::Nested(..) => json!(self.x_bar),
        }
    }
}

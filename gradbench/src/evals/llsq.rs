//! `llsq`: the linear least squares objective and its gradient program.

use serde_json::{Value, json};

use super::{Build, Eval, Which, numbers, same_count, whole};

pub struct Llsq {
    x: Vec<f64>,
    n: i64,
    y: f64,
    x_bar: Vec<f64>,
}

impl Llsq {
    pub fn of(input: &Value) -> Result<Llsq, String> {
        let n = whole(input, "n")?;
        if n < 0 {
            return Err("`n` must be a whole number of points".into());
        }
        let x = numbers(input, "x")?;
        let m = x.len();
        Ok(Llsq {
            x,
            n,
            y: 0.0,
            x_bar: vec![0.0; m],
        })
    }
}

impl Eval for Llsq {
    fn run(&mut self, which: Which, build: Build) -> nilang_runtime::Result {
        self.y = 0.0;
        match which {
            Which::Primal => call!(build, llsq::llsq(&mut self.y, &self.x, self.n)),
            Which::Derivative | Which::Nested(..) => {
                let mut y_bar = 1.0;
                self.x_bar.fill(0.0);
                call!(
                    build,
                    llsq::llsq_grad(&mut self.y, &mut y_bar, &self.x, &mut self.x_bar, self.n)
                )
            }
        }
    }

    fn replace_input(&mut self, input: &Value) -> Result<(), String> {
        let new = Llsq::of(input)?;
        same_count("the length of `x`", self.x.len(), new.x.len())?;
        (self.x, self.n) = (new.x, new.n);
        Ok(())
    }

    fn output(&self, which: Which) -> Value {
        match which {
            Which::Primal => json!(self.y),
            Which::Derivative | Which::Nested(..) => json!(self.x_bar),
        }
    }
}

//! `det`: the determinant by minors and its gradient program.

use serde_json::{Value, json};

use super::{Build, Eval, Which, numbers, same_count, whole};

pub struct Det {
    a: Vec<f64>,
    ell: i64,
    out: f64,
    a_bar: Vec<f64>,
}

impl Det {
    pub fn of(input: &Value) -> Result<Det, String> {
        let a = numbers(input, "A")?;
        let ell = whole(input, "ell")?;
        if ell <= 0 || (ell * ell) as usize != a.len() {
            return Err("`ell` must be the edge of the square matrix `A`".into());
        }
        let len = a.len();
        Ok(Det {
            a,
            ell,
            out: 0.0,
            a_bar: vec![0.0; len],
        })
    }
}

impl Eval for Det {
    fn run(&mut self, which: Which, build: Build) -> nilang_runtime::Result {
        self.out = 0.0;
        match which {
            Which::Primal => call!(build, det::det(&mut self.out, &self.a, self.ell)),
            Which::Derivative | Which::Nested(..) => {
                let mut out_bar = 1.0;
                self.a_bar.fill(0.0);
                call!(
                    build,
                    det::det_grad(
                        &mut self.out,
                        &mut out_bar,
                        &self.a,
                        &mut self.a_bar,
                        self.ell,
                    )
                )
            }
        }
    }

    fn replace_input(&mut self, input: &Value) -> Result<(), String> {
        let new = Det::of(input)?;
        same_count("`ell`", self.ell as usize, new.ell as usize)?;
        self.a = new.a;
        Ok(())
    }

    fn output(&self, which: Which) -> Value {
        match which {
            Which::Primal => json!(self.out),
            Which::Derivative | Which::Nested(..) => json!(self.a_bar),
        }
    }
}

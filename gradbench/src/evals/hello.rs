//! `hello`: `square` is y = x², `double` its gradient program.

use serde_json::{Value, json};

use super::{Build, Eval, Which, number};

pub struct Hello {
    x: f64,
    y: f64,
    x_bar: f64,
}

impl Hello {
    pub fn of(input: &Value) -> Result<Hello, String> {
        Ok(Hello {
            x: number(input, "the input")?,
            y: 0.0,
            x_bar: 0.0,
        })
    }
}

impl Eval for Hello {
    fn run(&mut self, which: Which, build: Build) -> nilang_runtime::Result {
        self.y = 0.0;
        match which {
            Which::Primal => call!(build, hello::square(&mut self.y, self.x)),
            Which::Derivative | Which::Nested(..) => {
                let mut y_bar = 1.0;
                self.x_bar = 0.0;
                call!(
                    build,
                    hello::square_grad(&mut self.y, &mut y_bar, self.x, &mut self.x_bar)
                )
            }
        }
    }

    fn replace_input(&mut self, input: &Value) -> Result<(), String> {
        self.x = Hello::of(input)?.x;
        Ok(())
    }

    fn output(&self, which: Which) -> Value {
        match which {
            Which::Primal => json!(self.y),
            Which::Derivative | Which::Nested(..) => json!(self.x_bar),
        }
    }
}

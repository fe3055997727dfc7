//! `saddle`: min over a of max over b of f(a, b), then max over b of
//! f(r₁, b). The whole function is one `.nil` call, `saddle_point!`
//! (`saddle.nil`): GradBench's solver over a on the cost `max_cost_*`,
//! itself the solver over b, then the solver over b at the a found. The
//! four functions pick the modes of the two nested derivatives, both
//! derivative calls in the `.nil` file:
//! - the inner one (∇_b f, inside the cost): `(∇saddle_f)` in
//!   `max_cost_r`, `(∂saddle_f)` in `max_cost_f`;
//! - the outer one (∇_a of the cost, for the solver over a):
//!   `(∇max_cost_*)` (reverse) or one `(∂max_cost_*)` a coordinate
//!   (forward).
//!
//! The last maximum over b takes ∇_b f in the outer mode.

use serde_json::{Value, json};

use super::{Build, Eval, Which, numbers};
use nilang_runtime::{Result, Tape};

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

impl Eval for Saddle {
    fn run(&mut self, which: Which, build: Build) -> Result {
        let (outer_reverse, inner_reverse) = which.reverse_modes();
        // The solvers' loops record on this tape (the old values they
        // overwrite); nothing reads it back.
        let mut tape = Tape::new();
        let (mut a, mut b) = ([0.0; 2], [0.0; 2]);
        call!(
            build,
            saddle::saddle_point(
                &mut a,
                &mut b,
                &self.start,
                outer_reverse,
                inner_reverse,
                &mut tape,
            )
        )?;
        self.out = [a[0], a[1], b[0], b[1]];
        Ok(())
    }

    fn replace_input(&mut self, input: &Value) -> std::result::Result<(), String> {
        self.start = Saddle::of(input)?.start;
        Ok(())
    }

    fn output(&self, _which: Which) -> Value {
        json!(self.out)
    }
}

//! `particle`: the control `w` that makes the charged particle cross the x
//! axis at the origin. The whole function is one `.nil` call,
//! `best_control!` (`particle.nil`): GradBench's solver on the cost
//! `miss_*`, whose force is itself a derivative. The four functions pick
//! the modes of the two nested derivatives, both derivative calls in the
//! `.nil` file:
//! - the inner one (the force, inside the cost): `(∇potential)` in
//!   `miss_r`, `(∂potential)` in `miss_f`;
//! - the outer one (d cost / dw, for the solver): `(∇miss_*)` (reverse) or
//!   `(∂miss_*)` (forward).

use serde_json::{Value, json};

use super::{Build, Eval, Which, field_number};
use nilang_runtime::{Result, Tape};

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

impl Eval for Particle {
    fn run(&mut self, which: Which, build: Build) -> Result {
        let (outer_reverse, inner_reverse) = which.reverse_modes();
        // The solver's loop records on this tape (the old values it
        // overwrites); nothing reads it back.
        let mut tape = Tape::new();
        let mut w = 0.0;
        call!(
            build,
            particle::best_control(&mut w, self.w0, outer_reverse, inner_reverse, &mut tape)
        )?;
        self.w = w;
        Ok(())
    }

    fn replace_input(&mut self, input: &Value) -> std::result::Result<(), String> {
        self.w0 = Particle::of(input)?.w0;
        Ok(())
    }

    fn output(&self, _which: Which) -> Value {
        json!(self.w)
    }
}

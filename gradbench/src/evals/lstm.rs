//! `lstm`: the LSTM loss and its gradient in the parameters, from the
//! gradient program.

use serde_json::{Value, json};

use super::{Build, Eval, Which, rows, same_count};

/// GradBench's input, its rows concatenated: l layers (two rows of
/// `main_params` each), width b, c characters; the program keeps its work
/// arrays as its own ancillas, and the state and the sequence are `Const`
/// (no adjoints).
pub struct Lstm {
    l: i64,
    c: i64,
    b: i64,
    /// main, extra, state, sequence.
    inputs: [Vec<f64>; 4],
    /// The adjoints of main and extra.
    input_bars: [Vec<f64>; 2],
    loss: f64,
}

impl Lstm {
    pub fn of(input: &Value) -> Result<Lstm, String> {
        let (main, main_rows, main_width) = rows(input, "main_params")?;
        let (l, b) = (main_rows / 2, main_width / 4);
        if l == 0 || b == 0 || main_rows % 2 != 0 || main_width % 4 != 0 {
            return Err("`main_params` must have two rows of 4b numbers per layer".into());
        }
        let (extra, extra_rows, extra_width) = rows(input, "extra_params")?;
        let (state, state_rows, state_width) = rows(input, "state")?;
        let (seq, c, seq_width) = rows(input, "sequence")?;
        if (extra_rows, extra_width) != (3, b)
            || (state_rows, state_width) != (2 * l, b)
            || seq_width != b
            || c < 2
        {
            return Err(format!(
                "for {l} layers of width {b}: `extra_params` must be 3 rows, `state` {} rows and `sequence` at least 2 rows, each of {b} numbers",
                2 * l
            ));
        }
        let input_bars = [vec![0.0; main.len()], vec![0.0; extra.len()]];
        Ok(Lstm {
            l: l as i64,
            c: c as i64,
            b: b as i64,
            inputs: [main, extra, state, seq],
            input_bars,
            loss: 0.0,
        })
    }
}

impl Eval for Lstm {
    fn run(&mut self, which: Which, build: Build) -> nilang_runtime::Result {
        self.loss = 0.0;
        let [main, extra, state, seq] = &self.inputs;
        let (l, c, b) = (self.l, self.c, self.b);
        match which {
            Which::Primal => call!(
                build,
                lstm::lstm_objective(&mut self.loss, main, extra, state, seq, l, c, b)
            ),
            Which::Derivative | Which::Nested(..) => {
                let mut loss_bar = 1.0;
                for bar in &mut self.input_bars {
                    bar.fill(0.0);
                }
                let [main_bar, extra_bar] = &mut self.input_bars;
                call!(
                    build,
                    lstm::lstm_objective_grad(
                        &mut self.loss,
                        &mut loss_bar,
                        main,
                        main_bar,
                        extra,
                        extra_bar,
                        state,
                        seq,
                        l,
                        c,
                        b,
                    )
                )
            }
        }
    }

    fn replace_input(&mut self, input: &Value) -> Result<(), String> {
        let new = Lstm::of(input)?;
        same_count("the layers", self.l as usize, new.l as usize)?;
        same_count("the width", self.b as usize, new.b as usize)?;
        same_count("the characters", self.c as usize, new.c as usize)?;
        self.inputs = new.inputs;
        Ok(())
    }

    fn output(&self, which: Which) -> Value {
        match which {
            Which::Primal => json!(self.loss),
            // The gradient in `main_params` then in `extra_params`.
            Which::Derivative | Which::Nested(..) => json!(
                self.input_bars[0]
                    .iter()
                    .chain(&self.input_bars[1])
                    .collect::<Vec<_>>()
            ),
        }
    }
}

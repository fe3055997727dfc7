//! Values written as Julia writes them (`1.5`, `-2`, `true`, `1.5f0` and
//! `Float32(1.5)` for an `f32`, `[1, 2, 3]`,
//! `[1 2; 3 4]`, `Complex(1, 2)`, `Pt(1.0, 2.0)`, and the number systems
//! `Fixed43(1.5)`, `exp(0.5)` (a log number by its logarithm) and
//! `Tropical(2.0)`), for the arguments of
//! `nilc run` and the REPL. JSON numbers, booleans and arrays read the
//! same. Integers are `i64` and floats `f64` until the parameter they are
//! given for says otherwise ([`crate::coerce`]).

use crate::value::Value;
use std::rc::Rc;

/// Parses one value; the error says where and what was expected.
pub fn parse(text: &str) -> Result<Value, String> {
    let mut p = Parser {
        chars: text.char_indices().collect(),
        pos: 0,
        text,
    };
    let v = p.value()?;
    p.spaces();
    if p.pos < p.chars.len() {
        return Err(p.error("the end of the value"));
    }
    Ok(v)
}

struct Parser<'a> {
    chars: Vec<(usize, char)>,
    pos: usize,
    text: &'a str,
}

impl Parser<'_> {
    fn peek(&self) -> Option<char> {
        self.chars.get(self.pos).map(|&(_, c)| c)
    }

    fn spaces(&mut self) {
        while self
            .peek()
            .is_some_and(|c| c == ' ' || c == '\t' || c == '\n')
        {
            self.pos += 1;
        }
    }

    fn error(&self, expected: &str) -> String {
        match self.chars.get(self.pos) {
            Some(&(at, c)) => format!(
                "in `{}`: expected {expected} at column {}, found `{c}`",
                self.text,
                self.text[..at].chars().count() + 1
            ),
            None => format!("in `{}`: expected {expected}, found the end", self.text),
        }
    }

    fn eat(&mut self, c: char) -> bool {
        self.spaces();
        if self.peek() == Some(c) {
            self.pos += 1;
            true
        } else {
            false
        }
    }

    fn value(&mut self) -> Result<Value, String> {
        self.spaces();
        match self.peek() {
            Some('[') => self.array(),
            Some('(') => self.tuple(),
            Some(c) if c.is_ascii_digit() || c == '-' || c == '+' || c == '.' => self.number(),
            Some(c) if c.is_alphabetic() || c == '_' => self.word(),
            _ => Err(self.error("a value")),
        }
    }

    fn number(&mut self) -> Result<Value, String> {
        let start = self.pos;
        if matches!(self.peek(), Some('-' | '+')) {
            self.pos += 1;
        }
        if !self
            .peek()
            .is_some_and(|c| c.is_ascii_digit() || c == '.' || c.is_alphabetic())
        {
            // A sign before nothing a number starts with (`--check-inv`
            // after `--`, where it is a value): the whole of it is named.
            let text: String = self.chars[start..].iter().map(|&(_, c)| c).collect();
            return Err(format!("`{text}` is not a number"));
        }
        if self.peek().is_some_and(|c| c.is_alphabetic()) {
            // -Inf
            let w = self.word()?;
            return match w {
                Value::F64(x) => Ok(Value::F64(if self.chars[start].1 == '-' { -x } else { x })),
                Value::F32(x) => Ok(Value::F32(if self.chars[start].1 == '-' { -x } else { x })),
                _ => Err("a sign before a word that is no number".into()),
            };
        }
        let mut float = false;
        while let Some(c) = self.peek() {
            match c {
                '0'..='9' | '_' => {}
                '.' | 'e' | 'E' => float = true,
                '-' | '+' if matches!(self.chars[self.pos - 1].1, 'e' | 'E') => {}
                _ => break,
            }
            self.pos += 1;
        }
        let text: String = self.chars[start..self.pos]
            .iter()
            .map(|&(_, c)| c)
            .filter(|&c| c != '_')
            .collect();
        // Julia's `Float32` literal: `1.5f0`, `2f-3` (the exponent after
        // `f`), as the interpreter shows an `f32` (`1.0e-8f0` too).
        if self.peek() == Some('f') {
            self.pos += 1;
            let at = self.pos;
            if matches!(self.peek(), Some('-' | '+')) {
                self.pos += 1;
            }
            while self.peek().is_some_and(|c| c.is_ascii_digit()) {
                self.pos += 1;
            }
            let exponent: String = self.chars[at..self.pos].iter().map(|&(_, c)| c).collect();
            let exponent = exponent
                .parse::<i32>()
                .map_err(|_| format!("`{text}f{exponent}` is not a `Float32` (`1.5f0`)"))?;
            let digits = match exponent {
                0 => text.clone(),
                _ if text.contains(['e', 'E']) => {
                    return Err(format!("`{text}f{exponent}` has two exponents"));
                }
                _ => format!("{text}e{exponent}"),
            };
            return digits
                .parse::<f32>()
                .map(Value::F32)
                .map_err(|_| format!("`{text}f{exponent}` is not a number"));
        }
        if float {
            text.parse::<f64>()
                .map(Value::F64)
                .map_err(|_| format!("`{text}` is not a number"))
        } else {
            text.parse::<i64>()
                .map(Value::int)
                .map_err(|_| format!("`{text}` is not an integer that fits in 64 bits"))
        }
    }

    fn word(&mut self) -> Result<Value, String> {
        let start = self.pos;
        while self
            .peek()
            .is_some_and(|c| c.is_alphanumeric() || c == '_' || c == '!')
        {
            self.pos += 1;
        }
        let word: String = self.chars[start..self.pos]
            .iter()
            .map(|&(_, c)| c)
            .collect();
        match word.as_str() {
            "true" => return Ok(Value::Bool(true)),
            "false" => return Ok(Value::Bool(false)),
            "Inf" => return Ok(Value::F64(f64::INFINITY)),
            "NaN" => return Ok(Value::F64(f64::NAN)),
            "Inf32" => return Ok(Value::F32(f32::INFINITY)),
            "NaN32" => return Ok(Value::F32(f32::NAN)),
            "π" | "pi" => return Ok(Value::F64(std::f64::consts::PI)),
            _ => {}
        }
        if !self.eat('(') {
            return Err(format!(
                "`{word}` is not a value (a number, `true`, `false`, `[...]`, `Complex(re, im)`, `Fixed43(x)`, `exp(log)`, `Tropical(x)` or a struct `Name(...)`)"
            ));
        }
        let mut args = Vec::new();
        if !self.eat(')') {
            loop {
                args.push(self.value()?);
                if self.eat(')') {
                    break;
                }
                if !self.eat(',') {
                    return Err(self.error("`,` or `)`"));
                }
            }
        }
        if word == "Complex" {
            let re = args.first().and_then(Value::as_f64);
            let im = args.get(1).map_or(Some(0.0), Value::as_f64);
            return match (re, im, args.len()) {
                (Some(re), Some(im), 1 | 2) => Ok(Value::Complex(re, im)),
                _ => Err("`Complex` takes one or two real numbers".into()),
            };
        }
        // The number systems, as the interpreter shows them.
        let real = |what: &str| match args.as_slice() {
            [x] => x
                .as_f64()
                .ok_or_else(|| format!("`{what}` takes one real number")),
            _ => Err(format!("`{what}` takes one real number")),
        };
        match word.as_str() {
            "Float32" => return Ok(Value::F32(real("Float32")? as f32)),
            "Float64" => return Ok(Value::F64(real("Float64")?)),
            "Fixed43" => {
                return Ok(Value::Fixed(crate::numbers::fixed_from_f64(real(
                    "Fixed43",
                )?)));
            }
            "Tropical" => return Ok(Value::Tropical(Box::new(Value::F64(real("Tropical")?)))),
            // A log number by its logarithm, `exp(0.5)`.
            "exp" => return Ok(Value::ULog(Box::new(Value::F64(real("exp")?)))),
            _ => {}
        }
        // A struct: its fields are named when the parameter's type is known.
        Ok(Value::Struct {
            name: word.as_str().into(),
            fields: Rc::new(args.into_iter().map(|v| (String::new(), v)).collect()),
        })
    }

    /// `(a, b)`, `(a,)`: a tuple, as Julia shows the arguments after a call.
    fn tuple(&mut self) -> Result<Value, String> {
        self.pos += 1;
        let mut items = Vec::new();
        loop {
            if self.eat(')') {
                break;
            }
            items.push(self.value()?);
            if self.eat(')') {
                break;
            }
            if !self.eat(',') {
                return Err(self.error("`,` or `)`"));
            }
        }
        Ok(Value::Tuple(Rc::new(items)))
    }

    /// `[a, b, c]`, or a matrix `[a b; c d]` (rows separated by `;`).
    fn array(&mut self) -> Result<Value, String> {
        self.pos += 1;
        let mut rows: Vec<Vec<Value>> = vec![Vec::new()];
        let mut commas = false;
        loop {
            self.spaces();
            match self.peek() {
                Some(']') => {
                    self.pos += 1;
                    break;
                }
                Some(',') => {
                    self.pos += 1;
                    commas = true;
                }
                Some(';') => {
                    self.pos += 1;
                    rows.push(Vec::new());
                }
                None => return Err(self.error("`]`")),
                _ => {
                    let v = self.value()?;
                    rows.last_mut().expect("one row at least").push(v);
                }
            }
        }
        if rows.len() == 1 && (commas || rows[0].len() <= 1) {
            return Ok(Value::Array(Rc::new(rows.pop().unwrap_or_default())));
        }
        if commas {
            return Err(format!(
                "in `{}`: a matrix separates its columns by spaces, its rows by `;`",
                self.text
            ));
        }
        let cols = rows[0].len();
        if rows.iter().any(|r| r.len() != cols) {
            return Err(format!(
                "in `{}`: the rows of a matrix must have one length",
                self.text
            ));
        }
        let n = rows.len();
        let mut data = Vec::with_capacity(n * cols);
        for c in 0..cols {
            for r in &rows {
                data.push(r[c].clone());
            }
        }
        Ok(Value::Matrix {
            rows: n,
            cols,
            data: Rc::new(data),
        })
    }
}

#[cfg(test)]
mod tests {
    use super::parse;

    fn nilang_value_f32(x: f32) -> crate::Value {
        crate::Value::F32(x)
    }

    #[test]
    fn values_as_julia_writes_them() {
        let shown = |t: &str| match parse(t) {
            Ok(v) => v.to_string(),
            Err(e) => format!("error: {e}"),
        };
        assert_eq!(shown("1.5"), "1.5");
        assert_eq!(shown("-2"), "-2");
        assert_eq!(shown("1e-3"), "0.001");
        assert_eq!(shown("[1, 2, 3]"), "[1, 2, 3]");
        assert_eq!(shown("[1.0 2.0; 3.0 4.0]"), "[1.0 2.0; 3.0 4.0]");
        assert_eq!(shown("Complex(1, -2)"), "1.0 - 2.0im");
        assert_eq!(shown("[]"), "[]");
        assert_eq!(shown("-Inf"), "-Inf");
        // `Float32`s, as Julia writes them and as they are shown.
        assert_eq!(shown("1.5f0"), "1.5f0");
        assert_eq!(shown("-2f-3"), "-0.002f0");
        assert_eq!(shown("Float32(0.1)"), "0.1f0");
        assert_eq!(shown("Float64(1)"), "1.0");
        assert_eq!(parse("1.0e-8f0"), Ok(nilang_value_f32(1e-8)));
        assert_eq!(shown("1e-8f0"), "1.0f-8");
        assert_eq!(shown("-Inf32"), "-Inf32");
        assert_eq!(shown("1e2f1"), "error: `1e2f1` has two exponents");
        assert_eq!(shown("1.5fx"), "error: `1.5f` is not a `Float32` (`1.5f0`)");
        assert_eq!(shown("--check-inv"), "error: `--check-inv` is not a number");
        assert_eq!(shown("-"), "error: `-` is not a number");
        assert_eq!(
            shown("[1, 2"),
            "error: in `[1, 2`: expected `]`, found the end"
        );
        assert_eq!(
            shown("x"),
            "error: `x` is not a value (a number, `true`, `false`, `[...]`, `Complex(re, im)`, `Fixed43(x)`, `exp(log)`, `Tropical(x)` or a struct `Name(...)`)"
        );
        // The number systems read back as they are shown.
        assert_eq!(shown("Fixed43(1.25)"), "Fixed43(1.25)");
        assert_eq!(shown("exp(0.5)"), "exp(0.5)");
        assert_eq!(shown("Tropical(-Inf)"), "Tropical(-Inf)");
        assert_eq!(
            shown("Fixed43(1, 2)"),
            "error: `Fixed43` takes one real number"
        );
        assert_eq!(
            shown("[1 2; 3]"),
            "error: in `[1 2; 3]`: the rows of a matrix must have one length"
        );
    }
}

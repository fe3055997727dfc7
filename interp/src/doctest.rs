//! Examples in docstrings, run as tests (`nilc test`, and the editor's
//! code lens), written as Julia's doctests are:
//!
//! ````text
//! """
//! Accumulate `x * y` into `out!`.
//!
//! ```jldoctest
//! julia> multiplier(2.0, 3.0, 5.0)
//! (17.0, 3.0, 5.0)
//! ```
//! """
//! ````
//!
//! A `julia>` line calls a function (`f(...)`, or `~f(...)` for its
//! inverse) on values; the line after it is what the call leaves in its
//! arguments, a tuple of them (or the one value of a one-parameter
//! function). Values compare within `1e-8`, exactly for integers.

use crate::eval::{Direction, Error, Interpreter};
use crate::value::Value;
use crate::{literal, ops};

/// One example of a docstring.
#[derive(Clone, Debug, PartialEq)]
pub struct Example {
    /// Byte offset of the `julia>` line's call in the docstring.
    pub offset: usize,
    /// The call as written, after `julia> `.
    pub call: String,
    /// The expected arguments as written.
    pub expected: String,
}

/// The examples of a docstring, in order.
pub fn examples(doc: &str) -> Vec<Example> {
    let mut out = Vec::new();
    let mut lines = doc.lines().peekable();
    let mut at = 0;
    while let Some(line) = lines.next() {
        let start = at;
        at += line.len() + 1;
        let trimmed = line.trim_start();
        let Some(call) = trimmed.strip_prefix("julia> ") else {
            continue;
        };
        let offset = start + (line.len() - trimmed.len()) + "julia> ".len();
        let expected = match lines.peek() {
            Some(next) if !next.trim().is_empty() && !next.trim_start().starts_with("julia>") => {
                let next = lines.next().unwrap_or_default();
                at += next.len() + 1;
                next.trim().to_string()
            }
            _ => String::new(),
        };
        out.push(Example {
            offset,
            call: call.trim().to_string(),
            expected,
        });
    }
    out
}

/// Where `example`'s call is in `text`, the file of a function starting at
/// `function` (its docstring is part of it): an absolute byte offset.
pub fn locate(text: &str, function: usize, example: &Example) -> Option<usize> {
    let prompt = format!("julia> {}", example.call);
    let at = text.get(function..)?.find(&prompt)?;
    Some(function + at + "julia> ".len())
}

/// What running an example gave.
#[derive(Clone, Debug, PartialEq)]
pub enum Outcome {
    /// The arguments after the call are the expected ones.
    Passed(String),
    /// They are not: what they are.
    Failed { got: String },
    /// The example could not run: why.
    Error(String),
}

/// Runs one example in `interpreter`'s project.
pub fn run(interpreter: &mut Interpreter<'_>, example: &Example) -> Outcome {
    let (call, direction) = match example.call.strip_prefix('~') {
        Some(rest) => (rest.trim(), Direction::Backward),
        None => (example.call.as_str(), Direction::Forward),
    };
    let Some(open) = call.find('(') else {
        return Outcome::Error(format!("`{}` is not a call `f(...)`", example.call));
    };
    let name = call[..open].trim();
    let Some(inner) = call[open + 1..].trim_end().strip_suffix(')') else {
        return Outcome::Error(format!("`{}` does not end with `)`", example.call));
    };
    let args = match literal::parse(&format!("({inner},)")) {
        Ok(Value::Tuple(items)) => (*items).clone(),
        Ok(v) => vec![v],
        Err(e) => return Outcome::Error(format!("the arguments: {e}")),
    };
    let out = match interpreter.call(name, args, direction) {
        Ok(out) => out,
        Err(Error::Usage(m)) => return Outcome::Error(m),
        Err(Error::Run(e)) => return Outcome::Error(e.to_string()),
    };
    let got = if out.len() == 1 {
        out[0].to_string()
    } else {
        Value::Tuple(std::rc::Rc::new(out.clone())).to_string()
    };
    let expected = match literal::parse(&example.expected) {
        Ok(Value::Tuple(items)) if out.len() != 1 => (*items).clone(),
        Ok(v) => vec![v],
        Err(e) => {
            return Outcome::Error(format!("the expected result `{}`: {e}", example.expected));
        }
    };
    let agree = expected.len() == out.len()
        && out
            .iter()
            .zip(&expected)
            .all(|(g, e)| ops::same(g, e, 1e-8) || same_number(g, e));
    if agree {
        Outcome::Passed(got)
    } else {
        Outcome::Failed { got }
    }
}

/// An integer written for a float result (`55` for `55.0`) is the same
/// number.
fn same_number(got: &Value, expected: &Value) -> bool {
    match (got.as_f64(), expected.as_f64()) {
        (Some(g), Some(e)) if got.is_number() && expected.is_number() => (g - e).abs() <= 1e-8,
        _ => false,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn examples_are_read_as_julia_writes_doctests() {
        let doc = "Adds.\n\n```jldoctest\njulia> f(1.0, 2.0)\n(3.0, 2.0)\n\njulia> ~f(3.0, 2.0)\n(1.0, 2.0)\n```\n";
        let found = examples(doc);
        assert_eq!(found.len(), 2);
        assert_eq!(found[0].call, "f(1.0, 2.0)");
        assert_eq!(found[0].expected, "(3.0, 2.0)");
        assert_eq!(&doc[found[0].offset..found[0].offset + 3], "f(1");
        assert_eq!(found[1].call, "~f(3.0, 2.0)");
        assert_eq!(found[1].expected, "(1.0, 2.0)");
    }
}

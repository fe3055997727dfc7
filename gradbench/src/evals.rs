//! The evals: each module's input is turned once into the values of its
//! `.nil` program ([`prepare`], timed as `prepare`), then one of its two
//! functions runs as often as asked ([`Eval::run`], each run timed as
//! `evaluate`), and its result becomes GradBench's JSON ([`Eval::output`],
//! not timed). No derivative is written by hand: each is a gradient
//! program generated from the `.nil` function (or that program run on dual
//! numbers, for `kmeans`'s Hessian).

mod ba;
mod det;
mod gmm;
mod hello;
mod kmeans;
mod llsq;
mod lse;
mod lstm;
mod ode;

use serde_json::Value;

/// Which of a module's two functions: the primal (`objective`, `primal`,
/// `cost`, `square`) or its derivative (`jacobian`, `gradient`, `dir`,
/// `double`).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Which {
    Primal,
    Derivative,
}

/// One module's prepared input and the buffers its programs run in.
pub trait Eval {
    /// Runs the function once (what a timing measures).
    fn run(&mut self, which: Which) -> nilang_runtime::Result;
    /// The result of the last run, as GradBench expects it.
    fn output(&self, which: Which) -> Value;
}

/// Each module with the names of its primal and its derivative.
pub const MODULES: &[(&str, &str, &str)] = &[
    ("ba", "objective", "jacobian"),
    ("det", "primal", "gradient"),
    ("gmm", "objective", "jacobian"),
    ("hello", "square", "double"),
    ("kmeans", "cost", "dir"),
    ("llsq", "primal", "gradient"),
    ("lse", "primal", "gradient"),
    ("lstm", "objective", "jacobian"),
    ("ode", "primal", "gradient"),
];

/// Whether this tool implements `module`.
pub fn implements(module: &str) -> bool {
    MODULES.iter().any(|(m, _, _)| *m == module)
}

/// The names of the modules, for messages.
pub fn module_names() -> String {
    MODULES
        .iter()
        .map(|(m, _, _)| *m)
        .collect::<Vec<_>>()
        .join(", ")
}

/// Which function of `module` `function` names.
pub fn which(module: &str, function: &str) -> Result<Which, String> {
    let Some(&(_, primal, derivative)) = MODULES.iter().find(|(m, _, _)| *m == module) else {
        return Err(format!(
            "nilang has no implementation of the module `{module}`"
        ));
    };
    match function {
        f if f == primal => Ok(Which::Primal),
        f if f == derivative => Ok(Which::Derivative),
        _ => Err(format!(
            "the module `{module}` has no function `{function}` (it has `{primal}` and `{derivative}`)"
        )),
    }
}

/// Turns `module`'s JSON input into its program's values.
pub fn prepare(module: &str, input: &Value) -> Result<Box<dyn Eval>, String> {
    Ok(match module {
        "ba" => Box::new(ba::Ba::of(input)?),
        "det" => Box::new(det::Det::of(input)?),
        "gmm" => Box::new(gmm::Gmm::of(input)?),
        "hello" => Box::new(hello::Hello::of(input)?),
        "kmeans" => Box::new(kmeans::Kmeans::of(input)?),
        "llsq" => Box::new(llsq::Llsq::of(input)?),
        "lse" => Box::new(lse::Lse::of(input)?),
        "lstm" => Box::new(lstm::Lstm::of(input)?),
        "ode" => Box::new(ode::Ode::of(input)?),
        _ => {
            return Err(format!(
                "nilang has no implementation of the module `{module}`"
            ));
        }
    })
}

// ------------------------------------------------------------ JSON input

fn number(value: &Value, what: &str) -> Result<f64, String> {
    value
        .as_f64()
        .ok_or_else(|| format!("{what} must be a number, not {value}"))
}

fn field_number(input: &Value, field: &str) -> Result<f64, String> {
    number(
        input.get(field).unwrap_or(&Value::Null),
        &format!("`{field}`"),
    )
}

fn whole(input: &Value, field: &str) -> Result<i64, String> {
    input
        .get(field)
        .and_then(Value::as_i64)
        .ok_or_else(|| format!("`{field}` must be a whole number"))
}

fn numbers(input: &Value, field: &str) -> Result<Vec<f64>, String> {
    let Some(Value::Array(items)) = input.get(field) else {
        return Err(format!("the input needs an array of numbers `{field}`"));
    };
    items
        .iter()
        .map(|v| number(v, &format!("each element of `{field}`")))
        .collect()
}

/// An array of equally long arrays of numbers, flattened row after row,
/// with its number of rows and their length.
fn rows(input: &Value, field: &str) -> Result<(Vec<f64>, usize, usize), String> {
    let Some(Value::Array(items)) = input.get(field) else {
        return Err(format!("the input needs an array of arrays `{field}`"));
    };
    let width = items.first().and_then(Value::as_array).map_or(0, Vec::len);
    let mut out = Vec::with_capacity(items.len() * width);
    for (i, row) in items.iter().enumerate() {
        let Value::Array(row) = row else {
            return Err(format!("row {i} of `{field}` is not an array"));
        };
        if row.len() != width {
            return Err(format!(
                "row {i} of `{field}` has {} values, not {width}",
                row.len()
            ));
        }
        for v in row {
            out.push(number(v, &format!("each element of `{field}`"))?);
        }
    }
    Ok((out, items.len(), width))
}

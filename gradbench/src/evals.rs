//! The evals: each module's input is turned into the arrays of its `.nil`
//! program ([`prepare`], timed as `prepare`), then one of its two functions
//! runs as often as asked ([`Eval::run`], each run timed as `evaluate`), and
//! its result becomes GradBench's JSON ([`Eval::output`], not timed). No
//! derivative is written by hand: each is a gradient program generated from
//! the `.nil` function (or that program run on dual numbers, for `kmeans`'s
//! Hessian and `ht`'s forward mode), or for `particle` and `saddle`, whose
//! solvers are `.nil` too, derivative calls (`(∇f)`, `(∂f)`) inside the
//! `.nil` programs.
//!
//! Timed as every other GradBench tool is: `prepare` only converts the JSON
//! into the program's arrays and sizes the buffers the programs work in (by
//! the input's counts, never by its values); everything else that depends
//! on the input and belongs to the function (`ba`'s sparse structure, the
//! vertices `ht` skins, `gmm`'s Wishart constant, the dual-number copies of
//! `kmeans` and `ht`) happens in [`Eval::run`]. [`Eval::replace_input`] lets
//! the tests hold the evals to that.

/// Calls `module::function(args)` of the checked programs ([`crate::nil`])
/// or of the unchecked ones ([`crate::nil_unchecked`]), as `build` says.
macro_rules! call {
    ($build:expr, $module:ident :: $function:ident ( $($arg:expr),* $(,)? )) => {
        match $build {
            $crate::evals::Build::Checked => $crate::nil::$module::$function($($arg),*),
            $crate::evals::Build::Unchecked => {
                $crate::nil_unchecked::$module::$function($($arg),*)
            }
        }
    };
}

mod ba;
mod det;
mod gmm;
mod hello;
mod ht;
mod kmeans;
mod llsq;
mod lse;
mod lstm;
mod ode;
mod particle;
mod saddle;

use serde_json::Value;

/// Which of a module's functions: the primal (`objective`, `primal`,
/// `cost`, `square`), its derivative (`jacobian`, `gradient`, `dir`,
/// `double`), or for `particle` and `saddle` one of the four nestings of
/// derivatives (`ff`, `fr`, `rf`, `rr`).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Which {
    Primal,
    Derivative,
    /// The outer derivative's mode, then the inner one's.
    Nested(Mode, Mode),
}

impl Which {
    /// For `particle` and `saddle`, whose `.nil` solvers take the modes as
    /// flags: whether the outer derivative, then the inner one, is reverse
    /// mode (only nestings reach them; anything else is both reverse).
    fn reverse_modes(self) -> (bool, bool) {
        match self {
            Which::Nested(outer, inner) => (outer == Mode::Reverse, inner == Mode::Reverse),
            Which::Primal | Which::Derivative => (true, true),
        }
    }
}

/// Forward or reverse mode.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Mode {
    Forward,
    Reverse,
}

/// `ff`, `fr`, `rf`, `rr`.
const NESTINGS: &[(&str, Which)] = &[
    ("ff", Which::Nested(Mode::Forward, Mode::Forward)),
    ("fr", Which::Nested(Mode::Forward, Mode::Reverse)),
    ("rf", Which::Nested(Mode::Reverse, Mode::Forward)),
    ("rr", Which::Nested(Mode::Reverse, Mode::Reverse)),
];

/// Which build of the `.nil` programs runs: compiled with the run-time
/// reversibility checks (the compiler's default) or without them.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub enum Build {
    #[default]
    Checked,
    Unchecked,
}

impl Build {
    /// The environment variable that chooses the build when no flag does.
    pub const VARIABLE: &'static str = "NILANG_GRADBENCH_BUILD";

    /// `checked` or `unchecked`.
    pub fn name(self) -> &'static str {
        match self {
            Build::Checked => "checked",
            Build::Unchecked => "unchecked",
        }
    }

    /// The build named `name` (`checked` or `unchecked`).
    pub fn named(name: &str) -> Result<Build, String> {
        match name {
            "checked" => Ok(Build::Checked),
            "unchecked" => Ok(Build::Unchecked),
            other => Err(format!("`{other}` is no build: `checked` or `unchecked`")),
        }
    }

    /// The build [`Build::VARIABLE`] names; checked where it is unset or
    /// empty.
    pub fn from_env() -> Result<Build, String> {
        match std::env::var(Build::VARIABLE) {
            Ok(name) if !name.is_empty() => {
                Build::named(&name).map_err(|e| format!("{}: {e}", Build::VARIABLE))
            }
            Ok(_) | Err(std::env::VarError::NotPresent) => Ok(Build::default()),
            Err(std::env::VarError::NotUnicode(_)) => Err(format!(
                "{} is not `checked` or `unchecked`",
                Build::VARIABLE
            )),
        }
    }
}

/// One module's prepared input (the program's arrays, converted from the
/// JSON) and the buffers its programs run in.
pub trait Eval {
    /// Runs the function once, in `build` (what a timing measures).
    fn run(&mut self, which: Which, build: Build) -> nilang_runtime::Result;
    /// The result of the last run, as GradBench expects it.
    fn output(&self, which: Which) -> Value;
    /// Converts `input` as [`prepare`] does and puts its arrays in place of
    /// the prepared ones, keeping everything else `prepare` made (the
    /// buffers): a run afterwards must answer for `input`, which shows that
    /// `prepare` left nothing that depends on the input's values (or on
    /// more than the counts the buffers are sized by) outside the timed
    /// run. `input` must have the counts the buffers were sized for (an
    /// error names the one that differs).
    fn replace_input(&mut self, input: &Value) -> Result<(), String>;
}

/// A module: the names of its two functions and how its input is prepared.
pub struct Module {
    pub name: &'static str,
    pub functions: &'static [(&'static str, Which)],
    pub prepare: fn(&Value) -> Result<Box<dyn Eval>, String>,
}

/// The modules this tool implements.
pub const MODULES: &[Module] = &[
    Module {
        name: "ba",
        functions: &[
            ("objective", Which::Primal),
            ("jacobian", Which::Derivative),
        ],
        prepare: |v| Ok(Box::new(ba::Ba::of(v)?)),
    },
    Module {
        name: "det",
        functions: &[("primal", Which::Primal), ("gradient", Which::Derivative)],
        prepare: |v| Ok(Box::new(det::Det::of(v)?)),
    },
    Module {
        name: "gmm",
        functions: &[
            ("objective", Which::Primal),
            ("jacobian", Which::Derivative),
        ],
        prepare: |v| Ok(Box::new(gmm::Gmm::of(v)?)),
    },
    Module {
        name: "hello",
        functions: &[("square", Which::Primal), ("double", Which::Derivative)],
        prepare: |v| Ok(Box::new(hello::Hello::of(v)?)),
    },
    Module {
        name: "ht",
        functions: &[
            ("objective", Which::Primal),
            ("jacobian", Which::Derivative),
        ],
        prepare: |v| Ok(Box::new(ht::Ht::of(v)?)),
    },
    Module {
        name: "kmeans",
        functions: &[("cost", Which::Primal), ("dir", Which::Derivative)],
        prepare: |v| Ok(Box::new(kmeans::Kmeans::of(v)?)),
    },
    Module {
        name: "llsq",
        functions: &[("primal", Which::Primal), ("gradient", Which::Derivative)],
        prepare: |v| Ok(Box::new(llsq::Llsq::of(v)?)),
    },
    Module {
        name: "lse",
        functions: &[("primal", Which::Primal), ("gradient", Which::Derivative)],
        prepare: |v| Ok(Box::new(lse::Lse::of(v)?)),
    },
    Module {
        name: "lstm",
        functions: &[
            ("objective", Which::Primal),
            ("jacobian", Which::Derivative),
        ],
        prepare: |v| Ok(Box::new(lstm::Lstm::of(v)?)),
    },
    Module {
        name: "particle",
        functions: NESTINGS,
        prepare: |v| Ok(Box::new(particle::Particle::of(v)?)),
    },
    Module {
        name: "saddle",
        functions: NESTINGS,
        prepare: |v| Ok(Box::new(saddle::Saddle::of(v)?)),
    },
    Module {
        name: "ode",
        functions: &[("primal", Which::Primal), ("gradient", Which::Derivative)],
        prepare: |v| Ok(Box::new(ode::Ode::of(v)?)),
    },
];

impl Module {
    /// Which of this module's functions `function` names.
    pub fn which(&self, function: &str) -> Result<Which, String> {
        self.functions
            .iter()
            .find(|(name, _)| *name == function)
            .map(|&(_, which)| which)
            .ok_or_else(|| {
                format!(
                    "the module `{}` has no function `{function}` (it has {})",
                    self.name,
                    self.functions
                        .iter()
                        .map(|(n, _)| format!("`{n}`"))
                        .collect::<Vec<_>>()
                        .join(", ")
                )
            })
    }
}

/// The module named `name`.
pub fn module(name: &str) -> Result<&'static Module, String> {
    MODULES.iter().find(|m| m.name == name).ok_or_else(|| {
        format!(
            "nilang has no implementation of the module `{name}` (it has {})",
            MODULES
                .iter()
                .map(|m| m.name)
                .collect::<Vec<_>>()
                .join(", ")
        )
    })
}

/// Turns `module`'s JSON input into its program's arrays.
pub fn prepare(module_name: &str, input: &Value) -> Result<Box<dyn Eval>, String> {
    (module(module_name)?.prepare)(input)
}

// ------------------------------------------------------------ JSON input

/// Fails unless the count `what` of a replacing input is the prepared one.
fn same_count(what: &str, prepared: usize, replacing: usize) -> Result<(), String> {
    if prepared == replacing {
        Ok(())
    } else {
        Err(format!(
            "the buffers were sized for {what} = {prepared}, not {replacing}"
        ))
    }
}

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

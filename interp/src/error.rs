//! What a run that stops reports: the `.nil` place, the check that failed,
//! what was compared, and the values expected and found, in the words and
//! format of the generated code's `nilang::Error`, so that the two can be
//! compared line for line.

use std::fmt;

/// A place in a `.nil` file (1-based line and column).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Location {
    pub file: String,
    pub line: u32,
    pub column: u32,
}

impl fmt::Display for Location {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}:{}:{}", self.file, self.line, self.column)
    }
}

/// Why a run stopped. The first variants are the run-time checks of the
/// checked build (`nilang::Check`, described the same way); the last are
/// the interpreter's own.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Check {
    Deallocation,
    IfPostcondition,
    WhileEntry,
    WhileIteration,
    ForBounds,
    Shape,
    NotDifferentiable,
    Assertion,
    Stack,
    Alias,
    ForStep,
    Index,
    /// A typecast `(T1 => T2)(x)` that would lose information.
    Cast,
    /// The inverse of a tape loop found its tape empty (no forward run
    /// recorded it).
    Tape,
    /// A sum of `Fixed43` numbers, or an `exp` or `log` of one, outside
    /// the range of `Fixed43`.
    Overflow,
    /// An operation on values it is not defined for (an integer divided
    /// by zero, a square root of a negative integer).
    Domain,
    /// A construct the interpreter does not run yet (it says which).
    Unsupported,
    /// Nesting deeper than the interpreter's limit (runaway recursion).
    Depth,
    /// More statements than the caller allowed (`Interpreter::fuel`).
    Steps,
}

impl Check {
    pub fn describe(self) -> &'static str {
        match self {
            Check::Deallocation => "deallocation check failed",
            Check::IfPostcondition => "`if` postcondition check failed",
            Check::WhileEntry => "`while` postcondition was already true on entry",
            Check::WhileIteration => "`while` postcondition was false after an iteration",
            Check::ForBounds => "`for` range changed by its body",
            Check::Shape => "shape check failed",
            Check::NotDifferentiable => "not differentiable",
            Check::Assertion => "assertion failed",
            Check::Stack => "stack check failed",
            Check::Alias => "one array element reached twice by one instruction",
            Check::ForStep => "`for` step is zero",
            Check::Index => "index out of range",
            Check::Tape => "tape mismatch",
            Check::Cast => "lossy typecast",
            Check::Overflow => "fixed-point overflow",
            Check::Domain => "operation not defined for these values",
            Check::Unsupported => "not supported by the interpreter",
            Check::Depth => "calls nested too deeply",
            Check::Steps => "too many steps",
        }
    }
}

/// A run that stopped: where, which check, what was compared, and the
/// values required and found.
#[derive(Clone, Debug, PartialEq)]
pub struct RunError {
    pub location: Location,
    pub check: Check,
    pub what: String,
    pub expected: String,
    pub found: String,
}

impl fmt::Display for RunError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(
            f,
            "{}: {}: {} (expected {}, found {})",
            self.location,
            self.check.describe(),
            self.what,
            self.expected,
            self.found
        )
    }
}

impl std::error::Error for RunError {}

/// A failure found where no place is known yet (an operation on values);
/// the evaluator adds the place.
#[derive(Clone, Debug, PartialEq)]
pub struct Fail {
    pub check: Check,
    pub what: String,
    pub expected: String,
    pub found: String,
}

impl Fail {
    pub fn unsupported(what: String) -> Fail {
        Fail {
            check: Check::Unsupported,
            expected: "a construct the interpreter runs".into(),
            found: what.clone(),
            what,
        }
    }
}

impl From<String> for Fail {
    fn from(what: String) -> Fail {
        Fail {
            check: Check::Domain,
            what,
            expected: "values it is defined for".into(),
            found: "others".into(),
        }
    }
}

impl From<&str> for Fail {
    fn from(what: &str) -> Fail {
        Fail::from(what.to_string())
    }
}

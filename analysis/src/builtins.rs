//! The built-in instructions and the pure functions expressions may call.

/// A built-in reversible instruction, called like a function: `SWAP(a, b)`.
#[derive(Clone, Copy, PartialEq, Eq, Debug)]
pub struct Instruction {
    pub name: &'static str,
    /// The instruction that undoes this one.
    pub inverse: &'static str,
    /// Number of arguments.
    pub arity: usize,
    /// Which arguments it changes (by position); the rest are only read.
    pub mutates: &'static [usize],
    pub summary: &'static str,
}

pub const INSTRUCTIONS: &[Instruction] = &[
    Instruction {
        name: "SWAP",
        inverse: "SWAP",
        arity: 2,
        mutates: &[0, 1],
        summary: "exchange the values of `a` and `b`",
    },
    Instruction {
        name: "ROT",
        inverse: "IROT",
        arity: 3,
        mutates: &[0, 1],
        summary: "rotate `(a, b)` by the angle `θ`: `a cos θ - b sin θ, b cos θ + a sin θ`",
    },
    Instruction {
        name: "IROT",
        inverse: "ROT",
        arity: 3,
        mutates: &[0, 1],
        summary: "rotate `(a, b)` by `-θ`, undoing `ROT`",
    },
    Instruction {
        name: "NEG",
        inverse: "NEG",
        arity: 1,
        mutates: &[0],
        summary: "negate `a`",
    },
    Instruction {
        name: "CONJ",
        inverse: "CONJ",
        arity: 1,
        mutates: &[0],
        summary: "complex-conjugate `a`",
    },
    Instruction {
        name: "INC",
        inverse: "DEC",
        arity: 1,
        mutates: &[0],
        summary: "add one to `a`",
    },
    Instruction {
        name: "DEC",
        inverse: "INC",
        arity: 1,
        mutates: &[0],
        summary: "subtract one from `a`",
    },
    Instruction {
        name: "MULINT",
        inverse: "DIVINT",
        arity: 2,
        mutates: &[0],
        summary: "multiply `a` by the integer `n`",
    },
    Instruction {
        name: "DIVINT",
        inverse: "MULINT",
        arity: 2,
        mutates: &[0],
        summary: "divide `a` by the integer `n`",
    },
    Instruction {
        name: "HADAMARD",
        inverse: "HADAMARD",
        arity: 2,
        mutates: &[0, 1],
        summary: "`(a, b) ← ((a + b)/√2, (a - b)/√2)`, its own inverse",
    },
    Instruction {
        name: "PUSH!",
        inverse: "POP!",
        arity: 2,
        mutates: &[0, 1],
        summary: "push `x` onto `stack` and zero `x`",
    },
    Instruction {
        name: "POP!",
        inverse: "PUSH!",
        arity: 2,
        mutates: &[0, 1],
        summary: "pop the top of `stack` into `x`, which must be zero",
    },
    Instruction {
        name: "COPYPUSH!",
        inverse: "COPYPOP!",
        arity: 2,
        mutates: &[0],
        summary: "push a copy of `x` onto `stack`",
    },
    Instruction {
        name: "COPYPOP!",
        inverse: "COPYPUSH!",
        arity: 2,
        mutates: &[0],
        summary: "pop the top of `stack`, which must equal `x`",
    },
];

pub fn instruction(name: &str) -> Option<&'static Instruction> {
    INSTRUCTIONS.iter().find(|i| i.name == name)
}

/// Pure functions an expression may call, with their arity (`None`: any).
pub const PURE_FUNCTIONS: &[(&str, Option<usize>)] = &[
    ("identity", Some(1)),
    ("abs", Some(1)),
    ("abs2", Some(1)),
    ("sqrt", Some(1)),
    ("exp", Some(1)),
    ("log", Some(1)),
    ("sin", Some(1)),
    ("cos", Some(1)),
    ("tan", Some(1)),
    ("sinh", Some(1)),
    ("cosh", Some(1)),
    ("tanh", Some(1)),
    ("asin", Some(1)),
    ("acos", Some(1)),
    ("atan", None),
    ("sincos", Some(1)),
    ("inv", Some(1)),
    ("min", Some(2)),
    ("max", Some(2)),
    ("sign", Some(1)),
    ("floor", Some(1)),
    ("ceil", Some(1)),
    ("round", Some(1)),
    ("div", Some(2)),
    ("rem", Some(2)),
    ("mod", Some(2)),
    ("real", Some(1)),
    ("imag", Some(1)),
    ("conj", Some(1)),
    ("angle", Some(1)),
    ("zero", Some(1)),
    ("one", Some(1)),
    ("zeros", None),
    ("ones", None),
    ("stack", Some(1)),
    ("length", Some(1)),
    ("size", None),
    ("value", Some(1)),
    ("unwrap", Some(1)),
    ("tget", Some(2)),
    ("isempty", Some(1)),
    ("iseven", Some(1)),
    ("isodd", Some(1)),
    ("println", None),
    ("global_index", Some(0)),
    ("print", None),
    // Number systems: conversions and the Gaussian logarithm.
    ("fixed", Some(1)),
    ("ulog", Some(1)),
    ("tropical", Some(1)),
    ("float", Some(1)),
    ("logaddexp", Some(2)),
    ("logsubexp", Some(2)),
];

pub fn pure_function(name: &str) -> Option<Option<usize>> {
    PURE_FUNCTIONS
        .iter()
        .find(|(n, _)| *n == name)
        .map(|(_, arity)| *arity)
}

/// Names that mean a value rather than a variable.
pub const CONSTANTS: &[&str] = &["π", "pi", "im", "Inf", "NaN", "nothing"];

/// Scalar type names, and type constructors with their number of arguments.
pub const SCALAR_TYPES: &[&str] = &[
    "f64", "f32", "i64", "i32", "i16", "i8", "u64", "u32", "u16", "u8", "usize", "isize", "bool",
];

pub const TYPE_CONSTRUCTORS: &[(&str, usize)] = &[
    ("Complex", 1),
    ("Vec", 1),
    ("Matrix", 1),
    ("Csc", 1),
    ("Stack", 1),
    // Number systems (docs/language.md, "Number systems").
    ("Fixed43", 0),
    ("ULogarithmic", 1),
    ("Tropical", 1),
];

/// Candidates for "did you mean": the closest name by edit distance.
pub fn closest<'a>(name: &str, candidates: impl IntoIterator<Item = &'a str>) -> Option<&'a str> {
    let max = name.chars().count() / 3;
    if max == 0 {
        return None;
    }
    candidates
        .into_iter()
        .map(|c| (edit_distance(name, c), c))
        .filter(|(d, _)| *d <= max)
        .min_by_key(|(d, _)| *d)
        .map(|(_, c)| c)
}

/// Optimal string alignment distance: edits and adjacent transpositions.
fn edit_distance(a: &str, b: &str) -> usize {
    let a: Vec<char> = a.to_lowercase().chars().collect();
    let b: Vec<char> = b.to_lowercase().chars().collect();
    let (n, m) = (a.len(), b.len());
    let mut d = vec![vec![0usize; m + 1]; n + 1];
    for (i, row) in d.iter_mut().enumerate() {
        row[0] = i;
    }
    for (j, cell) in d[0].iter_mut().enumerate() {
        *cell = j;
    }
    for i in 1..=n {
        for j in 1..=m {
            let cost = usize::from(a[i - 1] != b[j - 1]);
            d[i][j] = (d[i - 1][j] + 1)
                .min(d[i][j - 1] + 1)
                .min(d[i - 1][j - 1] + cost);
            if i > 1 && j > 1 && a[i - 1] == b[j - 2] && a[i - 2] == b[j - 1] {
                d[i][j] = d[i][j].min(d[i - 2][j - 2] + 1);
            }
        }
    }
    d[n][m]
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn instruction_inverses_are_involutions() {
        for i in INSTRUCTIONS {
            let inv = instruction(i.inverse).expect("inverse exists");
            assert_eq!(inv.inverse, i.name);
            assert_eq!(inv.arity, i.arity);
        }
    }

    #[test]
    fn closest_finds_typos() {
        assert_eq!(closest("SWPA", ["SWAP", "ROT"]), Some("SWAP"));
        assert_eq!(closest("z", ["k"]), None);
        assert_eq!(closest("zzzzzz", ["SWAP", "ROT"]), None);
    }
}

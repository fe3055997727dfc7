//! The built-in instructions and the pure functions expressions may call.

/// What an instruction does to the arguments it changes, defined once for
/// every backend: each backend renders the forward update from it, and the
/// adjoint rule its reverse pass runs before the instruction's inverse.
///
/// A reverse pass meets an instruction `X` in the inverse program, where it
/// undoes the forward instruction `F = X.inverse`; the adjoints of `X`'s
/// changed arguments then go through `F`'s transposed Jacobian. Each backend
/// gets that from [`Instruction::adjoint_rows`] instead of its own copy.
#[derive(Clone, Copy, PartialEq, Eq, Debug)]
pub enum Rule {
    /// New values of the changed arguments as linear combinations of their
    /// old values: `rows[i]` is `(j, factor)` for `new[i] = Σ factor ·
    /// old[j]`. With `angle`, the factors depend on the angle argument
    /// there, and `d new[i] / dθ` is `dangle[i]` applied to the new values.
    Linear {
        rows: &'static [&'static [(usize, Factor)]],
        angle: Option<usize>,
        dangle: &'static [&'static [(usize, Factor)]],
    },
    /// `a *= n` (or `a /= n`) with the integer argument at `by`.
    Scale { by: usize, divide: bool },
    /// `a += 1` (or `a -= 1`): the adjoint passes through.
    Shift { up: bool },
    /// `a = conj(a)`: the adjoint is conjugated too.
    Conj,
    /// A stack instruction (the backends' stack code, `codegen::stack`).
    Stack,
}

impl Rule {
    /// The angle argument, when some factor of the rule reads it (its sine
    /// and cosine must then be computed first).
    pub fn angle_read(&self) -> Option<usize> {
        match self {
            Rule::Linear {
                rows,
                angle: Some(k),
                ..
            } if rows
                .iter()
                .flat_map(|r| r.iter())
                .any(|(_, f)| f.uses_angle()) =>
            {
                Some(*k)
            }
            _ => None,
        }
    }
}

/// A factor of a linear rule: a constant, or a function of the angle.
#[derive(Clone, Copy, PartialEq, Eq, Debug)]
pub enum Factor {
    One,
    MinusOne,
    Cos,
    Sin,
    MinusSin,
    /// `1/√2`.
    Rsqrt2,
    /// `-1/√2`.
    MinusRsqrt2,
}

impl Factor {
    /// The value of the factor at angle `theta` (for tests and constant
    /// folding).
    pub fn at(self, theta: f64) -> f64 {
        match self {
            Factor::One => 1.0,
            Factor::MinusOne => -1.0,
            Factor::Cos => theta.cos(),
            Factor::Sin => theta.sin(),
            Factor::MinusSin => -theta.sin(),
            Factor::Rsqrt2 => std::f64::consts::FRAC_1_SQRT_2,
            Factor::MinusRsqrt2 => -std::f64::consts::FRAC_1_SQRT_2,
        }
    }

    /// The value of the factor at an `f32` angle, computed in `f32` as the
    /// generated code computes it (`nilang::Real::sin` of an `f32`): the
    /// `f64` sine rounded to `f32` can differ from it in the last bit.
    pub fn at_f32(self, theta: f32) -> f32 {
        match self {
            Factor::Cos => theta.cos(),
            Factor::Sin => theta.sin(),
            Factor::MinusSin => -theta.sin(),
            f => f.at(f64::from(theta)) as f32,
        }
    }

    /// Whether it needs the angle's sine and cosine.
    pub fn uses_angle(self) -> bool {
        matches!(self, Factor::Cos | Factor::Sin | Factor::MinusSin)
    }
}

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
    /// What it does to the arguments it changes.
    pub rule: Rule,
}

impl Instruction {
    /// The rule the adjoints of this instruction's changed arguments follow
    /// in a reverse pass, where it undoes its inverse `F`: `F`'s transposed
    /// Jacobian, `adjoint[i] = Σ factor · adjoint_after[j]`. `None` for the
    /// non-linear rules.
    pub fn adjoint_rows(&self) -> Option<Vec<Vec<(usize, Factor)>>> {
        let forward = instruction(self.inverse)?;
        let Rule::Linear { rows, .. } = forward.rule else {
            return None;
        };
        let mut out = vec![Vec::new(); rows.len()];
        for (i, row) in rows.iter().enumerate() {
            for &(j, f) in *row {
                out[j].push((i, f));
            }
        }
        Some(out)
    }
}

const ROT_ROWS: &[&[(usize, Factor)]] = &[
    &[(0, Factor::Cos), (1, Factor::MinusSin)],
    &[(1, Factor::Cos), (0, Factor::Sin)],
];
const IROT_ROWS: &[&[(usize, Factor)]] = &[
    &[(0, Factor::Cos), (1, Factor::Sin)],
    &[(1, Factor::Cos), (0, Factor::MinusSin)],
];

pub const INSTRUCTIONS: &[Instruction] = &[
    Instruction {
        name: "SWAP",
        inverse: "SWAP",
        arity: 2,
        mutates: &[0, 1],
        summary: "exchange the values of `a` and `b`",
        rule: Rule::Linear {
            rows: &[&[(1, Factor::One)], &[(0, Factor::One)]],
            angle: None,
            dangle: &[],
        },
    },
    Instruction {
        name: "ROT",
        inverse: "IROT",
        arity: 3,
        mutates: &[0, 1],
        summary: "rotate `(a, b)` by the angle `θ`: `a cos θ - b sin θ, b cos θ + a sin θ`",
        rule: Rule::Linear {
            rows: ROT_ROWS,
            angle: Some(2),
            // d/dθ of the rotation by θ is a quarter turn of its result.
            dangle: &[&[(1, Factor::MinusOne)], &[(0, Factor::One)]],
        },
    },
    Instruction {
        name: "IROT",
        inverse: "ROT",
        arity: 3,
        mutates: &[0, 1],
        summary: "rotate `(a, b)` by `-θ`, undoing `ROT`",
        rule: Rule::Linear {
            rows: IROT_ROWS,
            angle: Some(2),
            dangle: &[&[(1, Factor::One)], &[(0, Factor::MinusOne)]],
        },
    },
    Instruction {
        name: "NEG",
        inverse: "NEG",
        arity: 1,
        mutates: &[0],
        summary: "negate `a`",
        rule: Rule::Linear {
            rows: &[&[(0, Factor::MinusOne)]],
            angle: None,
            dangle: &[],
        },
    },
    Instruction {
        name: "CONJ",
        inverse: "CONJ",
        arity: 1,
        mutates: &[0],
        summary: "complex-conjugate `a`",
        rule: Rule::Conj,
    },
    Instruction {
        name: "INC",
        inverse: "DEC",
        arity: 1,
        mutates: &[0],
        summary: "add one to `a`",
        rule: Rule::Shift { up: true },
    },
    Instruction {
        name: "DEC",
        inverse: "INC",
        arity: 1,
        mutates: &[0],
        summary: "subtract one from `a`",
        rule: Rule::Shift { up: false },
    },
    Instruction {
        name: "MULINT",
        inverse: "DIVINT",
        arity: 2,
        mutates: &[0],
        summary: "multiply `a` by the integer `n`",
        rule: Rule::Scale {
            by: 1,
            divide: false,
        },
    },
    Instruction {
        name: "DIVINT",
        inverse: "MULINT",
        arity: 2,
        mutates: &[0],
        summary: "divide `a` by the integer `n`",
        rule: Rule::Scale {
            by: 1,
            divide: true,
        },
    },
    Instruction {
        name: "HADAMARD",
        inverse: "HADAMARD",
        arity: 2,
        mutates: &[0, 1],
        summary: "`(a, b) ← ((a + b)/√2, (a - b)/√2)`, its own inverse",
        rule: Rule::Linear {
            rows: &[
                &[(0, Factor::Rsqrt2), (1, Factor::Rsqrt2)],
                &[(0, Factor::Rsqrt2), (1, Factor::MinusRsqrt2)],
            ],
            angle: None,
            dangle: &[],
        },
    },
    Instruction {
        name: "PUSH!",
        inverse: "POP!",
        arity: 2,
        mutates: &[0, 1],
        summary: "push `x` onto `stack` and zero `x`",
        rule: Rule::Stack,
    },
    Instruction {
        name: "POP!",
        inverse: "PUSH!",
        arity: 2,
        mutates: &[0, 1],
        summary: "pop the top of `stack` into `x`, which must be zero",
        rule: Rule::Stack,
    },
    Instruction {
        name: "COPYPUSH!",
        inverse: "COPYPOP!",
        arity: 2,
        mutates: &[0],
        summary: "push a copy of `x` onto `stack`",
        rule: Rule::Stack,
    },
    Instruction {
        name: "COPYPOP!",
        inverse: "COPYPUSH!",
        arity: 2,
        mutates: &[0],
        summary: "pop the top of `stack`, which must equal `x`",
        rule: Rule::Stack,
    },
];

pub fn instruction(name: &str) -> Option<&'static Instruction> {
    INSTRUCTIONS.iter().find(|i| i.name == name)
}

/// A pure function an expression may call. Everything the compiler knows
/// of one is in [`PureFn::spec`], an exhaustive match: a new function does
/// not compile until it says its arity, which numbers of arguments each
/// backend generates, and what the Rust backend does with complex
/// arguments. The resolver, `typeck` and `limits` read it.
#[derive(Clone, Copy, PartialEq, Eq, Hash, Debug)]
pub enum PureFn {
    Identity,
    Abs,
    Abs2,
    Sqrt,
    Exp,
    Log,
    Sin,
    Cos,
    Tan,
    Sinh,
    Cosh,
    Tanh,
    Asin,
    Acos,
    Atan,
    Sincos,
    Inv,
    Min,
    Max,
    Sign,
    Floor,
    Ceil,
    Round,
    Div,
    Rem,
    Mod,
    Real,
    Imag,
    Conj,
    Angle,
    Zero,
    One,
    Zeros,
    Ones,
    Stack,
    Length,
    Size,
    Nnz,
    Value,
    Unwrap,
    Tget,
    Isempty,
    Iseven,
    Isodd,
    Println,
    GlobalIndex,
    Print,
    Fixed,
    Ulog,
    Tropical,
    Float,
    Logaddexp,
    Logsubexp,
}

/// What a backend does with complex arguments of a pure function.
#[derive(Clone, Copy, PartialEq, Eq, Debug)]
pub enum ComplexArgs {
    /// The Rust backend generates it for complex numbers.
    Generated,
    /// It is refused for complex numbers (E0701, by `typeck`).
    Refused,
    /// Not a question of this function alone (other rules decide).
    Other,
}

/// What a pure function does with its first argument.
#[derive(Clone, Copy, PartialEq, Eq, Debug)]
pub enum FirstArg {
    /// Reads its value.
    Value,
    /// Reads only its shape (`length(x)`, `size(x)`, `nnz(A)`): the values
    /// in it may change without changing the result.
    Shape,
    /// A type name (`zero(f64)`, `stack(T)`) or a value read only for its
    /// type (`zero(x)`).
    Type,
}

/// What the Rust backend does with an argument that is a fixed-point, log
/// or tropical number.
#[derive(Clone, Copy, PartialEq, Eq, Debug)]
pub enum NumberArgs {
    /// Generated for all three: a conversion, a query of the shape or type,
    /// a function of the number system itself.
    Generated,
    /// Generated for fixed-point numbers only (computed in f64 and rounded
    /// back); refused for log and tropical numbers.
    FixedOnly,
    /// Refused (E0701): the value is converted with `float(x)` first.
    Refused,
}

/// Julia's type queries, which the language does not have: their first
/// argument is a type, so it is not reported as an unknown variable on top
/// of the call itself.
pub const JULIA_TYPE_QUERIES: &[&str] = &["eltype", "typemax", "typemin"];

/// Whether the first argument of a call of `name` is a type or read only
/// for its shape or type, not for its value.
pub fn first_argument_not_read(name: &str) -> bool {
    match PureFn::named(name) {
        Some(f) => f.spec().first != FirstArg::Value,
        None => JULIA_TYPE_QUERIES.contains(&name),
    }
}

/// Whether the Rust backend generates the pure function of `spec` for an
/// argument of a number system: a fixed-point number (`fixed_point`), or a
/// log or tropical number.
pub fn number_arguments_generated(spec: PureSpec, fixed_point: bool) -> bool {
    match spec.numbers {
        NumberArgs::Generated => true,
        NumberArgs::FixedOnly => fixed_point,
        NumberArgs::Refused => false,
    }
}

/// Whether the first argument of a call of `name` may be a type name.
pub fn first_argument_may_be_a_type(name: &str) -> bool {
    match PureFn::named(name) {
        Some(f) => f.spec().first == FirstArg::Type,
        None => JULIA_TYPE_QUERIES.contains(&name),
    }
}

/// The facts of one pure function.
#[derive(Clone, Copy, Debug)]
pub struct PureSpec {
    pub name: &'static str,
    /// The number of arguments the resolver checks (`None`: several forms,
    /// checked where they are typed).
    pub arity: Option<usize>,
    /// The numbers of arguments the Rust backend generates a call with
    /// (empty: not at all).
    pub rust: &'static [usize],
    /// The same for the GPU backend.
    pub gpu: &'static [usize],
    pub complex: ComplexArgs,
    /// Fixed-point, log and tropical arguments (the Rust backend).
    pub numbers: NumberArgs,
    pub first: FirstArg,
    /// Whether it takes unsigned integers: the conversions, integer
    /// division and remainder, the queries of shape and type, printing.
    /// The math functions compute through real-number arithmetic
    /// (`nilang::Real`), which unsigned integers lack (E0701).
    pub unsigned: bool,
    /// Whether it takes booleans: only what passes a value through
    /// (`identity`, `real`, `conj`, `value`), makes one of its type
    /// (`zero`, `one`), prints, or does not read the value. A `bool` is not
    /// a number of the runtime's arithmetic (`nilang::Real`): the math
    /// functions, the quotients and the conversions refuse it (E0610).
    pub boolean: bool,
}

impl PureFn {
    pub const ALL: [PureFn; 53] = [
        PureFn::Identity,
        PureFn::Abs,
        PureFn::Abs2,
        PureFn::Sqrt,
        PureFn::Exp,
        PureFn::Log,
        PureFn::Sin,
        PureFn::Cos,
        PureFn::Tan,
        PureFn::Sinh,
        PureFn::Cosh,
        PureFn::Tanh,
        PureFn::Asin,
        PureFn::Acos,
        PureFn::Atan,
        PureFn::Sincos,
        PureFn::Inv,
        PureFn::Min,
        PureFn::Max,
        PureFn::Sign,
        PureFn::Floor,
        PureFn::Ceil,
        PureFn::Round,
        PureFn::Div,
        PureFn::Rem,
        PureFn::Mod,
        PureFn::Real,
        PureFn::Imag,
        PureFn::Conj,
        PureFn::Angle,
        PureFn::Zero,
        PureFn::One,
        PureFn::Zeros,
        PureFn::Ones,
        PureFn::Stack,
        PureFn::Length,
        PureFn::Size,
        PureFn::Nnz,
        PureFn::Value,
        PureFn::Unwrap,
        PureFn::Tget,
        PureFn::Isempty,
        PureFn::Iseven,
        PureFn::Isodd,
        PureFn::Println,
        PureFn::GlobalIndex,
        PureFn::Print,
        PureFn::Fixed,
        PureFn::Ulog,
        PureFn::Tropical,
        PureFn::Float,
        PureFn::Logaddexp,
        PureFn::Logsubexp,
    ];

    pub fn spec(self) -> PureSpec {
        use ComplexArgs::{Generated as Complex, Other, Refused as NotComplex};
        use FirstArg::*;
        use NumberArgs::*;
        let (name, arity, rust, gpu, complex, numbers, first): (
            _,
            _,
            &'static [usize],
            &'static [usize],
            _,
            _,
            _,
        ) = match self {
            PureFn::Identity => ("identity", Some(1), &[1], &[1], Other, Generated, Value),
            PureFn::Abs => ("abs", Some(1), &[1], &[1], Complex, Refused, Value),
            PureFn::Abs2 => ("abs2", Some(1), &[1], &[1], Complex, Refused, Value),
            PureFn::Sqrt => ("sqrt", Some(1), &[1], &[1], Complex, Refused, Value),
            PureFn::Exp => ("exp", Some(1), &[1], &[1], Complex, FixedOnly, Value),
            PureFn::Log => ("log", Some(1), &[1], &[1], Complex, FixedOnly, Value),
            PureFn::Sin => ("sin", Some(1), &[1], &[1], Complex, Refused, Value),
            PureFn::Cos => ("cos", Some(1), &[1], &[1], Complex, Refused, Value),
            PureFn::Tan => ("tan", Some(1), &[1], &[1], NotComplex, Refused, Value),
            PureFn::Sinh => ("sinh", Some(1), &[1], &[1], NotComplex, Refused, Value),
            PureFn::Cosh => ("cosh", Some(1), &[1], &[1], NotComplex, Refused, Value),
            PureFn::Tanh => ("tanh", Some(1), &[1], &[1], NotComplex, Refused, Value),
            PureFn::Asin => ("asin", Some(1), &[1], &[1], NotComplex, Refused, Value),
            PureFn::Acos => ("acos", Some(1), &[1], &[1], NotComplex, Refused, Value),
            PureFn::Atan => ("atan", None, &[1, 2], &[1, 2], NotComplex, Refused, Value),
            PureFn::Sincos => ("sincos", Some(1), &[], &[], Other, Refused, Value),
            PureFn::Inv => ("inv", Some(1), &[1], &[1], Complex, Refused, Value),
            PureFn::Min => ("min", Some(2), &[2], &[2], NotComplex, Refused, Value),
            PureFn::Max => ("max", Some(2), &[2], &[2], NotComplex, Refused, Value),
            PureFn::Sign => ("sign", Some(1), &[1], &[1], NotComplex, Refused, Value),
            PureFn::Floor => ("floor", Some(1), &[1], &[1], NotComplex, Refused, Value),
            PureFn::Ceil => ("ceil", Some(1), &[1], &[1], NotComplex, Refused, Value),
            PureFn::Round => ("round", Some(1), &[1], &[1], NotComplex, Refused, Value),
            PureFn::Div => ("div", Some(2), &[2], &[2], NotComplex, Refused, Value),
            PureFn::Rem => ("rem", Some(2), &[2], &[2], NotComplex, Refused, Value),
            PureFn::Mod => ("mod", Some(2), &[2], &[2], NotComplex, Refused, Value),
            PureFn::Real => ("real", Some(1), &[1], &[1], Complex, Refused, Value),
            PureFn::Imag => ("imag", Some(1), &[1], &[], Complex, Refused, Value),
            PureFn::Conj => ("conj", Some(1), &[1], &[1], Complex, Refused, Value),
            PureFn::Angle => ("angle", Some(1), &[1], &[], Complex, Refused, Value),
            PureFn::Zero => ("zero", Some(1), &[1], &[1], Other, Generated, Type),
            PureFn::One => ("one", Some(1), &[1], &[1], Other, Generated, Type),
            PureFn::Zeros => ("zeros", None, &[2, 3], &[], Other, Generated, Type),
            PureFn::Ones => ("ones", None, &[2, 3], &[], Other, Generated, Type),
            PureFn::Stack => ("stack", Some(1), &[1], &[], Other, Generated, Type),
            PureFn::Length => ("length", Some(1), &[1], &[1], Other, Generated, Shape),
            PureFn::Size => ("size", None, &[1, 2], &[], Other, Generated, Shape),
            PureFn::Nnz => ("nnz", Some(1), &[1], &[], Other, Generated, Shape),
            PureFn::Value => ("value", Some(1), &[1], &[1], Other, Generated, Value),
            PureFn::Unwrap => ("unwrap", Some(1), &[1], &[1], Other, Generated, Value),
            PureFn::Tget => ("tget", Some(2), &[], &[], Other, Refused, Value),
            PureFn::Isempty => ("isempty", Some(1), &[], &[], Other, Refused, Value),
            PureFn::Iseven => ("iseven", Some(1), &[], &[1], Other, Refused, Value),
            PureFn::Isodd => ("isodd", Some(1), &[], &[1], Other, Refused, Value),
            PureFn::Println => ("println", None, &[], &[], Other, Refused, Value),
            PureFn::GlobalIndex => ("global_index", Some(0), &[0], &[0], Other, Refused, Value),
            PureFn::Print => ("print", None, &[], &[], Other, Refused, Value),
            PureFn::Fixed => ("fixed", Some(1), &[1], &[], Other, Generated, Value),
            PureFn::Ulog => ("ulog", Some(1), &[1], &[], Other, Generated, Value),
            PureFn::Tropical => ("tropical", Some(1), &[1], &[], Other, Generated, Value),
            PureFn::Float => ("float", Some(1), &[1], &[], NotComplex, Generated, Value),
            PureFn::Logaddexp => (
                "logaddexp",
                Some(2),
                &[2],
                &[],
                NotComplex,
                FixedOnly,
                Value,
            ),
            PureFn::Logsubexp => (
                "logsubexp",
                Some(2),
                &[2],
                &[],
                NotComplex,
                FixedOnly,
                Value,
            ),
        };
        let boolean = match self {
            PureFn::Identity
            | PureFn::Real
            | PureFn::Conj
            | PureFn::Value
            | PureFn::Unwrap
            | PureFn::Tget
            | PureFn::Zero
            | PureFn::One
            | PureFn::Zeros
            | PureFn::Ones
            | PureFn::Stack
            | PureFn::Length
            | PureFn::Size
            | PureFn::Nnz
            | PureFn::Isempty
            | PureFn::Print
            | PureFn::Println
            | PureFn::GlobalIndex => true,
            PureFn::Abs
            | PureFn::Abs2
            | PureFn::Sqrt
            | PureFn::Exp
            | PureFn::Log
            | PureFn::Sin
            | PureFn::Cos
            | PureFn::Tan
            | PureFn::Sinh
            | PureFn::Cosh
            | PureFn::Tanh
            | PureFn::Asin
            | PureFn::Acos
            | PureFn::Atan
            | PureFn::Sincos
            | PureFn::Inv
            | PureFn::Min
            | PureFn::Max
            | PureFn::Sign
            | PureFn::Floor
            | PureFn::Ceil
            | PureFn::Round
            | PureFn::Div
            | PureFn::Rem
            | PureFn::Mod
            | PureFn::Imag
            | PureFn::Angle
            | PureFn::Iseven
            | PureFn::Isodd
            | PureFn::Fixed
            | PureFn::Ulog
            | PureFn::Tropical
            | PureFn::Float
            | PureFn::Logaddexp
            | PureFn::Logsubexp => false,
        };
        let unsigned = match self {
            PureFn::Identity
            | PureFn::Float
            | PureFn::Fixed
            | PureFn::Ulog
            | PureFn::Tropical
            | PureFn::Value
            | PureFn::Unwrap
            | PureFn::Real
            | PureFn::Div
            | PureFn::Rem
            | PureFn::Mod
            | PureFn::Print
            | PureFn::Println
            | PureFn::Zero
            | PureFn::Zeros
            | PureFn::Ones
            | PureFn::Stack
            | PureFn::Length
            | PureFn::Size
            | PureFn::Nnz => true,
            PureFn::Abs
            | PureFn::Abs2
            | PureFn::Sqrt
            | PureFn::Exp
            | PureFn::Log
            | PureFn::Sin
            | PureFn::Cos
            | PureFn::Tan
            | PureFn::Sinh
            | PureFn::Cosh
            | PureFn::Tanh
            | PureFn::Asin
            | PureFn::Acos
            | PureFn::Atan
            | PureFn::Sincos
            | PureFn::Inv
            | PureFn::Min
            | PureFn::Max
            | PureFn::Sign
            | PureFn::Floor
            | PureFn::Ceil
            | PureFn::Round
            | PureFn::Imag
            | PureFn::Conj
            | PureFn::Angle
            | PureFn::One
            | PureFn::Tget
            | PureFn::Isempty
            | PureFn::Iseven
            | PureFn::Isodd
            | PureFn::GlobalIndex
            | PureFn::Logaddexp
            | PureFn::Logsubexp => false,
        };
        PureSpec {
            name,
            arity,
            rust,
            gpu,
            complex,
            numbers,
            first,
            unsigned,
            boolean,
        }
    }

    pub fn name(self) -> &'static str {
        self.spec().name
    }

    /// The pure function called `name`, if there is one.
    pub fn named(name: &str) -> Option<PureFn> {
        PureFn::ALL.into_iter().find(|f| f.name() == name)
    }
}

/// The arity of the pure function `name` (`Some(None)`: several forms), or
/// `None` when no pure function has that name.
pub fn pure_function(name: &str) -> Option<Option<usize>> {
    PureFn::named(name).map(|f| f.spec().arity)
}

/// Names that mean a value rather than a variable.
pub const CONSTANTS: &[&str] = &["π", "pi", "im", "Inf", "NaN", "nothing"];

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

    /// Each linear rule's inverse really inverts it (at a few angles), and
    /// the adjoint rows are the transpose of the inverse's rows.
    #[test]
    fn linear_rules_invert_each_other() {
        let apply = |rows: &[&[(usize, Factor)]], x: &[f64], t: f64| -> Vec<f64> {
            rows.iter()
                .map(|row| row.iter().map(|(j, f)| f.at(t) * x[*j]).sum())
                .collect()
        };
        for i in INSTRUCTIONS {
            let (Rule::Linear { rows, .. }, Rule::Linear { rows: inv, .. }) =
                (i.rule, instruction(i.inverse).unwrap().rule)
            else {
                continue;
            };
            for t in [0.0, 0.3, -1.7] {
                let x = [0.25, -1.5][..rows.len()].to_vec();
                let back = apply(inv, &apply(rows, &x, t), t);
                for (a, b) in x.iter().zip(&back) {
                    assert!((a - b).abs() < 1e-12, "{}: {x:?} -> {back:?}", i.name);
                }
            }
            let adj = i.adjoint_rows().unwrap();
            for (j, row) in inv.iter().enumerate() {
                for &(k, f) in *row {
                    assert!(adj[k].contains(&(j, f)), "{}", i.name);
                }
            }
        }
    }

    /// `dangle` is the derivative of the rule with respect to its angle.
    #[test]
    fn angle_derivatives_match_differences() {
        for i in INSTRUCTIONS {
            let Rule::Linear {
                rows,
                angle: Some(_),
                dangle,
            } = i.rule
            else {
                continue;
            };
            let x = [0.7, -0.2];
            let new = |t: f64| -> Vec<f64> {
                rows.iter()
                    .map(|row| row.iter().map(|(j, f)| f.at(t) * x[*j]).sum())
                    .collect()
            };
            let (t, h) = (0.4, 1e-6);
            let at = new(t);
            for (k, row) in dangle.iter().enumerate() {
                let exact: f64 = row.iter().map(|(j, f)| f.at(t) * at[*j]).sum();
                let numeric = (new(t + h)[k] - new(t - h)[k]) / (2.0 * h);
                assert!((exact - numeric).abs() < 1e-8, "{} row {k}", i.name);
            }
        }
    }

    #[test]
    fn closest_finds_typos() {
        assert_eq!(closest("SWPA", ["SWAP", "ROT"]), Some("SWAP"));
        assert_eq!(closest("z", ["k"]), None);
        assert_eq!(closest("zzzzzz", ["SWAP", "ROT"]), None);
    }

    /// Each pure function is found by its own name, and only by it; a
    /// function a backend generates takes its resolver arity there.
    #[test]
    fn the_catalogue_of_pure_functions_is_consistent() {
        for f in PureFn::ALL {
            assert_eq!(PureFn::named(f.name()), Some(f));
            let spec = f.spec();
            if let Some(n) = spec.arity {
                for arities in [spec.rust, spec.gpu] {
                    assert!(arities.iter().all(|&a| a == n), "{}", spec.name);
                }
            }
        }
        let mut names: Vec<&str> = PureFn::ALL.map(PureFn::name).to_vec();
        names.sort();
        names.dedup();
        assert_eq!(names.len(), PureFn::ALL.len());
        assert_eq!(PureFn::named("no_such"), None);
    }
}

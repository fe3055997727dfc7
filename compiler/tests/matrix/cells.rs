//! The cells of the built-in matrix (issue "one typed body", item 5): every
//! built-in operation x every number type x every position it can sit in,
//! each a small `.nil` function. Pure text generation, no dependencies:
//! `compiler/tests/matrix.rs` checks each cell through the analysis and
//! both backends (no rustc), and `tests/build.rs` compiles the accepted
//! ones for `tests/tests/matrix.rs`, which runs them forwards, backwards
//! and through their gradients.
//!
//! A cell's function always takes three values of its position's shape,
//! `a!`, `b!` and `c` (for the scalar position `a!::T, b!::T, c::T`), and
//! its operation is written over three places `{a}`, `{b}`, `{c}` in them (for
//! the element position `a![2]`, `b![1]`, `c[2]`). The operation may
//! change `A` and `B`, and reads `C`.

/// A number type a built-in can meet.
#[derive(Clone, Copy, PartialEq, Eq, Debug)]
pub enum Num {
    F64,
    F32,
    I64,
    I32,
    I8,
    U8,
    Bool,
    Fixed,
    ULogF64,
    ULogFixed,
    ComplexF64,
    Tropical,
}

impl Num {
    pub const ALL: [Num; 12] = [
        Num::F64,
        Num::F32,
        Num::I64,
        Num::I32,
        Num::I8,
        Num::U8,
        Num::Bool,
        Num::Fixed,
        Num::ULogF64,
        Num::ULogFixed,
        Num::ComplexF64,
        Num::Tropical,
    ];

    /// How `.nil` spells it.
    pub fn nil(self) -> &'static str {
        match self {
            Num::F64 => "f64",
            Num::F32 => "f32",
            Num::I64 => "i64",
            Num::I32 => "i32",
            Num::I8 => "i8",
            Num::U8 => "u8",
            Num::Bool => "bool",
            Num::Fixed => "Fixed43",
            Num::ULogF64 => "ULogarithmic<f64>",
            Num::ULogFixed => "ULogarithmic<Fixed43>",
            Num::ComplexF64 => "Complex<f64>",
            Num::Tropical => "Tropical<f64>",
        }
    }

    /// A short name for cell names.
    pub fn tag(self) -> &'static str {
        match self {
            Num::F64 => "f64",
            Num::F32 => "f32",
            Num::I64 => "i64",
            Num::I32 => "i32",
            Num::I8 => "i8",
            Num::U8 => "u8",
            Num::Bool => "bool",
            Num::Fixed => "fx",
            Num::ULogF64 => "ulf",
            Num::ULogFixed => "ulx",
            Num::ComplexF64 => "cf",
            Num::Tropical => "tr",
        }
    }

    /// A Rust expression of this type for the test value `k` (0, 1, 2 for
    /// `a`, `b`, `c`; more for array elements). The values are dyadic, so
    /// every type holds them exactly, and stay away from the kinks of
    /// `floor`, `round`, `abs`, `min` and the domains of `log`, `asin`.
    pub fn value(self, k: usize) -> String {
        let f = [0.75, 0.625, 0.375, 0.5, 0.875, 0.25][k % 6];
        let i = [6, 5, 3, 4, 2, 7][k % 6];
        match self {
            Num::F64 => format!("{f:?}_f64"),
            Num::F32 => format!("{f:?}_f32"),
            Num::I64 | Num::I32 | Num::I8 | Num::U8 => format!("{i}_{}", self.nil()),
            Num::Bool => format!("{}", k.is_multiple_of(2)),
            Num::Fixed => format!("nilang::fixed::from_f64({f:?})"),
            Num::ULogF64 => format!("nilang::ULog::from_log({f:?}_f64)"),
            Num::ULogFixed => format!("nilang::ULog::from_log(nilang::fixed::from_f64({f:?}))"),
            Num::ComplexF64 => {
                let g = [0.25, -0.5, 0.125, 0.375, -0.25, 0.5][k % 6];
                format!("nilang::Complex::new({f:?}_f64, {g:?}_f64)")
            }
            Num::Tropical => format!("nilang::Tropical::new({f:?}_f64)"),
        }
    }

    /// Whether a gradient is asked of it: its adjoint is a float of the
    /// same precision (a complex adjoint for a complex number).
    pub fn differentiable(self) -> bool {
        matches!(self, Num::F64 | Num::F32 | Num::ComplexF64)
    }

    /// Whether a GPU kernel is asked of it.
    pub fn on_gpu(self) -> bool {
        matches!(self, Num::F32 | Num::F64 | Num::I32 | Num::Bool)
    }
}

/// Where the operation's places are.
#[derive(Clone, Copy, PartialEq, Eq, Debug)]
pub enum Pos {
    /// Scalar parameters.
    Scalar,
    /// Elements of arrays.
    Element,
    /// Elements of columns of matrices, passed as `A[:, j]` to a function
    /// that changes them.
    Column,
    /// Fields of a generic struct.
    Field,
    /// Inside a function given to `std.functional`'s `i_map!` with its
    /// third argument captured (a partial application).
    Captured,
    /// Inside an instance of a template (a function taking a function).
    Template,
    /// Inside a generic function (`where U: Real`), instantiated at the type.
    Generic,
    /// Elements of arrays in a `@tape` loop.
    Tape,
}

impl Pos {
    pub const ALL: [Pos; 8] = [
        Pos::Scalar,
        Pos::Element,
        Pos::Column,
        Pos::Field,
        Pos::Captured,
        Pos::Template,
        Pos::Generic,
        Pos::Tape,
    ];

    pub fn tag(self) -> &'static str {
        match self {
            Pos::Scalar => "scalar",
            Pos::Element => "element",
            Pos::Column => "column",
            Pos::Field => "field",
            Pos::Captured => "captured",
            Pos::Template => "template",
            Pos::Generic => "generic",
            Pos::Tape => "tape",
        }
    }

    /// The shape of the three parameters `a!`, `b!`, `c`.
    pub fn shapes(self) -> [Shape; 3] {
        use Shape::*;
        match self {
            Pos::Scalar | Pos::Template | Pos::Generic => [One, One, One],
            Pos::Element | Pos::Tape => [Array, Array, Array],
            Pos::Column => [Matrix, Matrix, Matrix],
            Pos::Field => [Struct, Struct, Struct],
            Pos::Captured => [Array, Array, One],
        }
    }
}

/// The shape of a cell's parameter.
#[derive(Clone, Copy, PartialEq, Eq, Debug)]
pub enum Shape {
    One,
    /// Two elements.
    Array,
    /// 2 x 2, column-major.
    Matrix,
    /// `MPt{T}` with fields `x` and `y`.
    Struct,
}

impl Shape {
    pub fn nil(self, t: &str) -> String {
        match self {
            Shape::One => t.to_string(),
            Shape::Array => format!("[{t}]"),
            Shape::Matrix => format!("Matrix<{t}>"),
            Shape::Struct => format!("MPt{{{t}}}"),
        }
    }
}

/// A built-in operation, written over the places `{a}`, `{b}`, `{c}`.
pub struct Op {
    pub name: &'static str,
    /// Statements, one per line.
    pub body: &'static str,
}

/// Every built-in the matrix covers: the instructions, the update
/// operators, the pure functions a number is given to, the conversions,
/// and stacks and ancillas of the type.
pub const OPS: &[Op] = &[
    // Instructions.
    Op {
        name: "SWAP",
        body: "SWAP({a}, {b})",
    },
    Op {
        name: "NEG",
        body: "NEG({a})",
    },
    Op {
        name: "CONJ",
        body: "CONJ({a})",
    },
    Op {
        name: "INC",
        body: "INC({a})",
    },
    Op {
        name: "DEC",
        body: "DEC({a})",
    },
    Op {
        name: "MULINT",
        body: "MULINT({a}, 3)",
    },
    Op {
        name: "DIVINT",
        body: "DIVINT({a}, 2)",
    },
    Op {
        name: "ROT",
        body: "ROT({a}, {b}, {c})",
    },
    Op {
        name: "IROT",
        body: "IROT({a}, {b}, {c})",
    },
    Op {
        name: "HADAMARD",
        body: "HADAMARD({a}, {b})",
    },
    Op {
        name: "PUSH_POP",
        body: "s ← stack({t})\n{a} += {c}\nPUSH!(s, {a})\n{b} += s[1]\nPOP!(s, {a})\ns → stack({t})",
    },
    Op {
        name: "COPYPUSH",
        body: "s ← stack({t})\nCOPYPUSH!(s, {c})\n{a} += s[1] * {b}\nCOPYPOP!(s, {c})\ns → stack({t})",
    },
    // Update operators.
    Op {
        name: "add",
        body: "{a} += {b}",
    },
    Op {
        name: "sub",
        body: "{a} -= {b}",
    },
    Op {
        name: "add_mul",
        body: "{a} += {b} * {c}",
    },
    Op {
        name: "sub_div",
        body: "{a} -= {b} / {c}",
    },
    Op {
        name: "add_sum",
        body: "{a} += {b} + {c}",
    },
    Op {
        name: "add_diff",
        body: "{a} += {b} - {c}",
    },
    Op {
        name: "add_neg",
        body: "{a} += -{b}",
    },
    Op {
        name: "add_pow",
        body: "{a} += {b} ^ 2",
    },
    Op {
        name: "mul",
        body: "{a} *= {b}",
    },
    Op {
        name: "div",
        body: "{a} /= {b}",
    },
    Op {
        name: "mul_sum",
        body: "{a} *= {b} + {c}",
    },
    Op {
        name: "mul_diff",
        body: "{a} *= {b} - {c}",
    },
    Op {
        name: "xor",
        body: "{a} ⊻= {b}",
    },
    // An ancilla of the type, allocated from a place, computed and uncomputed.
    Op {
        name: "ancilla",
        body: "t ← zero({b})\nt += {b} * {c}\n{a} += t\nt -= {b} * {c}\nt → zero({b})",
    },
    Op {
        name: "one",
        body: "{a} += one({b})",
    },
    // Pure functions of one number.
    Op {
        name: "identity",
        body: "{a} += identity({b})",
    },
    Op {
        name: "abs",
        body: "{a} += abs({b})",
    },
    Op {
        name: "abs2",
        body: "{a} += abs2({b})",
    },
    Op {
        name: "sqrt",
        body: "{a} += sqrt({b})",
    },
    Op {
        name: "exp",
        body: "{a} += exp({b})",
    },
    Op {
        name: "log",
        body: "{a} += log({b})",
    },
    Op {
        name: "sin",
        body: "{a} += sin({b})",
    },
    Op {
        name: "cos",
        body: "{a} += cos({b})",
    },
    Op {
        name: "tan",
        body: "{a} += tan({b})",
    },
    Op {
        name: "sinh",
        body: "{a} += sinh({b})",
    },
    Op {
        name: "cosh",
        body: "{a} += cosh({b})",
    },
    Op {
        name: "tanh",
        body: "{a} += tanh({b})",
    },
    Op {
        name: "asin",
        body: "{a} += asin({b})",
    },
    Op {
        name: "acos",
        body: "{a} += acos({b})",
    },
    Op {
        name: "atan",
        body: "{a} += atan({b})",
    },
    Op {
        name: "inv",
        body: "{a} += inv({b})",
    },
    Op {
        name: "sign",
        body: "{a} += sign({b})",
    },
    Op {
        name: "floor",
        body: "{a} += floor({b})",
    },
    Op {
        name: "ceil",
        body: "{a} += ceil({b})",
    },
    Op {
        name: "round",
        body: "{a} += round({b})",
    },
    Op {
        name: "real",
        body: "{a} += real({b})",
    },
    Op {
        name: "imag",
        body: "{a} += imag({b})",
    },
    Op {
        name: "conjf",
        body: "{a} += conj({b})",
    },
    Op {
        name: "angle",
        body: "{a} += angle({b})",
    },
    Op {
        name: "float",
        body: "{a} += float({b})",
    },
    // Pure functions of two numbers.
    Op {
        name: "min",
        body: "{a} += min({b}, {c})",
    },
    Op {
        name: "max",
        body: "{a} += max({b}, {c})",
    },
    Op {
        name: "atan2",
        body: "{a} += atan({b}, {c})",
    },
    Op {
        name: "divf",
        body: "{a} += div({b}, {c})",
    },
    Op {
        name: "rem",
        body: "{a} += rem({b}, {c})",
    },
    Op {
        name: "mod",
        body: "{a} += mod({b}, {c})",
    },
    Op {
        name: "rem_op",
        body: "{a} += {b} % {c}",
    },
    Op {
        name: "logaddexp",
        body: "{a} += logaddexp({b}, {c})",
    },
    Op {
        name: "logsubexp",
        body: "{a} += logsubexp({b}, {c})",
    },
    // Conditions on the type.
    Op {
        name: "if_less",
        body: "if ({b} < {c}, ~)\n    {a} += {c}\nend",
    },
];

/// One cell: an operation at a type in a position.
#[derive(Clone, Copy)]
pub struct Cell {
    pub op: &'static Op,
    pub num: Num,
    pub pos: Pos,
}

/// What every file of cells starts with (after `using std.functional`
/// where a cell needs it, [`Cell::needs_std`]).
pub const PRELUDE: &str = "struct MPt{T}
    x::T
    y::T
end

function mx_apply!(f::Fn<U, U, U>, a!::U, b!::U, c::U) where U
    f(a!, b!, c)
end
";

impl Cell {
    /// Every cell of the matrix.
    pub fn all() -> Vec<Cell> {
        let mut out = Vec::new();
        for op in OPS {
            for num in Num::ALL {
                for pos in Pos::ALL {
                    out.push(Cell { op, num, pos });
                }
            }
        }
        out
    }

    /// The cell's function name (helpers add a suffix).
    pub fn name(&self) -> String {
        format!(
            "mx_{}_{}_{}",
            self.op.name.to_lowercase(),
            self.num.tag(),
            self.pos.tag()
        )
    }

    /// `{a}`, `{b}`, `{c}` and the type `{t}` in the operation, for places of the shape.
    fn body(&self, places: [&str; 3], t: &str) -> String {
        self.op
            .body
            .lines()
            .map(|line| {
                format!(
                    "    {}\n",
                    line.replace("{a}", places[0])
                        .replace("{b}", places[1])
                        .replace("{c}", places[2])
                        .replace("{t}", t)
                )
            })
            .collect()
    }

    fn function(name: &str, params: [String; 3], where_: &str, body: &str) -> String {
        format!(
            "function {name}(a!::{}, b!::{}, c::{}){where_}\n{body}end\n",
            params[0], params[1], params[2]
        )
    }

    /// Whether the cell calls the standard library.
    pub fn needs_std(&self) -> bool {
        self.pos == Pos::Captured
    }

    /// The cell as a file of its own.
    pub fn file(&self) -> String {
        let using = if self.needs_std() {
            "using std.functional\n\n"
        } else {
            ""
        };
        format!("{using}{PRELUDE}\n{}", self.text())
    }

    /// The cell's `.nil` text (after [`PRELUDE`]): its function and the
    /// helpers it calls.
    pub fn text(&self) -> String {
        let name = self.name();
        let t = self.num.nil();
        let params = |shapes: [Shape; 3], t: &str| shapes.map(|s| s.nil(t));
        let scalar = [Shape::One; 3];
        // The operation on three scalars, as a function of its own.
        let scalar_helper = |helper: &str| {
            Self::function(
                helper,
                params(scalar, t),
                "",
                &self.body(["a!", "b!", "c"], t),
            ) + "\n"
        };
        let array = [Shape::Array; 3];
        match self.pos {
            Pos::Scalar => Self::function(
                &name,
                params(scalar, t),
                "",
                &self.body(["a!", "b!", "c"], t),
            ),
            Pos::Element => Self::function(
                &name,
                params(array, t),
                "",
                &self.body(["a![2]", "b![1]", "c[2]"], t),
            ),
            Pos::Tape => Self::function(
                &name,
                params(array, t),
                "",
                &format!(
                    "    @tape for i = 1:2\n{}    end\n",
                    self.body(["a![i]", "b![3 - i]", "c[i]"], t)
                        .lines()
                        .map(|l| format!("    {l}\n"))
                        .collect::<String>()
                ),
            ),
            Pos::Field => Self::function(
                &name,
                params([Shape::Struct; 3], t),
                "",
                &self.body(["a!.y", "b!.x", "c.y"], t),
            ),
            Pos::Column => {
                let helper = format!("{name}_col");
                Self::function(
                    &helper,
                    params(array, t),
                    "",
                    &self.body(["a![2]", "b![1]", "c[2]"], t),
                ) + "\n"
                    + &Self::function(
                        &name,
                        params([Shape::Matrix; 3], t),
                        "",
                        &format!("    {helper}(a![:, 2], b![:, 1], c[:, 2])\n"),
                    )
            }
            Pos::Captured => {
                let helper = format!("{name}_one");
                scalar_helper(&helper)
                    + &Self::function(
                        &name,
                        params(Pos::Captured.shapes(), t),
                        "",
                        &format!("    i_map!({helper}(_, _, c), a!, b!)\n"),
                    )
            }
            Pos::Template => {
                let helper = format!("{name}_one");
                scalar_helper(&helper)
                    + &Self::function(
                        &name,
                        params(scalar, t),
                        "",
                        &format!("    mx_apply!({helper}, a!, b!, c)\n"),
                    )
            }
            Pos::Generic => {
                let helper = format!("{name}_gen");
                Self::function(
                    &helper,
                    params(scalar, "U"),
                    " where U: Real",
                    &self.body(["a!", "b!", "c"], "U"),
                ) + "\n"
                    + &Self::function(
                        &name,
                        params(scalar, t),
                        "",
                        &format!("    {helper}(a!, b!, c)\n"),
                    )
            }
        }
    }

    /// The element-position operation as a GPU kernel, for the types a
    /// kernel can hold.
    pub fn kernel_text(&self) -> Option<String> {
        if self.pos != Pos::Element || !self.num.on_gpu() {
            return None;
        }
        let t = self.num.nil();
        let params = [Shape::Array; 3].map(|s| s.nil(t));
        let body = format!(
            "    i ← global_index()\n{}    i → global_index()\n",
            self.body(["a![i]", "b![i]", "c[i]"], t)
        );
        Some(format!(
            "@kernel\n{}",
            Self::function(&format!("{}_kernel", self.name()), params, "", &body)
        ))
    }
}

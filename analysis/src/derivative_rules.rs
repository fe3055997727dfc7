//! How the reverse pass differentiates a call of a pure function: the rule
//! of each function for each number of arguments ([`call_rule`]) and, for
//! the functions of one and two arguments, the local (partial) derivatives
//! as formulas in the arguments and the value ([`Formula`]).
//!
//! This is the one place a derivative of a built-in function is written.
//! The Rust and WGSL backends render a formula as code
//! (`codegen/src/adjoint/partials.rs`, and `complex.rs` for complex
//! arguments), and the reference interpreter evaluates it on the
//! argument's value in the argument's own number type, real, dual or
//! complex (`interp/src/local.rs`). Each matches [`Formula`] exhaustively,
//! so a new kind of term does not compile until every one of them can say
//! what it means. The operators' rules, but the remainder's, are still
//! written in each backend.

use crate::builtins::PureFn;

/// How the reverse pass takes the derivative of a call.
#[derive(Clone, Copy, PartialEq, Eq, Debug)]
pub enum CallRule {
    /// Shapes, constants, indices, conversions: no derivative.
    Constant,
    /// The argument's own (`identity`, `real`, `conj`, ...).
    Through,
    /// A function of one argument with its local derivative.
    Unary(Local),
    /// A function of two arguments with its partial derivatives by each.
    Binary([Local; 2]),
    /// A step function: derivative zero.
    Flat,
    /// `float`: the argument's own derivative, for a float.
    Float,
    /// None written: the call cannot be differentiated.
    Missing,
}

impl CallRule {
    /// Whether a local derivative of the rule has a pole, where a zero
    /// cotangent must add nothing (not `0 · ∞`).
    pub fn has_pole(&self) -> bool {
        match self {
            CallRule::Unary(local) => local.singular == Singular::Pole,
            CallRule::Binary(partials) => partials.iter().any(|p| p.singular == Singular::Pole),
            _ => false,
        }
    }
}

/// A local derivative: of a function of one argument, or a partial
/// derivative of a function of two.
#[derive(Clone, Copy, PartialEq, Eq, Debug)]
pub struct Local {
    /// `f'(x)`, `∂f/∂x` or `∂f/∂y`.
    pub formula: &'static Formula,
    /// Where the formula is not finite, and what the rule takes there
    /// (docs/language.md, "Derivatives at singular points").
    pub singular: Singular,
}

/// Whether a local derivative has a pole at a finite argument.
#[derive(Clone, Copy, PartialEq, Eq, Debug)]
pub enum Singular {
    /// It is finite wherever the function is (a subgradient is written
    /// into the formula with [`Formula::ZeroAt`]).
    Nowhere,
    /// It has a pole: the cotangent times the formula is zero where the
    /// cotangent is zero (no `0 · ∞`).
    Pole,
}

/// A formula in the arguments `x` (and `y`) of a function and its value
/// `r`. Binary terms keep the order of their operands as written here:
/// backends and the interpreter compute them in that order, so their
/// results agree to the bit.
#[derive(Clone, Copy, PartialEq, Eq, Debug)]
pub enum Formula {
    /// The first argument.
    X,
    /// The second argument.
    Y,
    /// The function's value.
    R,
    One,
    /// `1 + 1`, exact in every number type.
    Two,
    Neg(&'static Formula),
    Add(&'static Formula, &'static Formula),
    Sub(&'static Formula, &'static Formula),
    Mul(&'static Formula, &'static Formula),
    Div(&'static Formula, &'static Formula),
    /// `1 / a`.
    Inv(&'static Formula),
    /// A pure function of one argument applied to a formula.
    Call(PureFn, &'static Formula),
    /// `f`, but zero where `at` is zero: the subgradient 0 where the
    /// function is not differentiable, or where `f` would be `0/0`
    /// (docs/language.md, "Derivatives at singular points").
    ZeroAt {
        at: &'static Formula,
        f: &'static Formula,
    },
    /// One where `a cmp b` holds (`then`) or where it does not (`!then`),
    /// else zero.
    Pick {
        a: &'static Formula,
        cmp: Cmp,
        b: &'static Formula,
        then: bool,
    },
}

/// A comparison in a [`Formula::Pick`].
#[derive(Clone, Copy, PartialEq, Eq, Debug)]
pub enum Cmp {
    Le,
    Ge,
}

impl Cmp {
    pub fn as_str(self) -> &'static str {
        match self {
            Cmp::Le => "<=",
            Cmp::Ge => ">=",
        }
    }
}

impl Formula {
    /// Whether the formula reads the function's value.
    pub fn reads_value(&self) -> bool {
        match self {
            F::R => true,
            F::X | F::Y | F::One | F::Two => false,
            F::Neg(a) | F::Inv(a) | F::Call(_, a) => a.reads_value(),
            F::Add(a, b) | F::Sub(a, b) | F::Mul(a, b) | F::Div(a, b) => {
                a.reads_value() || b.reads_value()
            }
            F::ZeroAt { at, f } => at.reads_value() || f.reads_value(),
            F::Pick { a, b, .. } => a.reads_value() || b.reads_value(),
        }
    }
}

use Formula as F;

const fn local(formula: &'static Formula, singular: Singular) -> CallRule {
    CallRule::Unary(Local { formula, singular })
}

const fn partial(formula: &'static Formula, singular: Singular) -> Local {
    Local { formula, singular }
}

/// One where `x cmp y` holds (`then`), or where it does not.
const fn pick(cmp: Cmp, then: bool) -> Formula {
    F::Pick {
        a: &F::X,
        cmp,
        b: &F::Y,
        then,
    }
}

const SQUARE: Formula = F::Mul(&F::X, &F::X);
/// `atan(y, x)`'s `x² + y²`, with `y` the first argument.
const RADIUS2: Formula = F::Add(&F::Mul(&F::Y, &F::Y), &F::Mul(&F::X, &F::X));
/// The partials of a remainder `r = x - y q` with the quotient `q` held
/// constant: `1` and `-(x - r)/y`.
const REMAINDER: [Local; 2] = [
    partial(&F::One, Singular::Nowhere),
    partial(
        &F::Div(&F::Neg(&F::Sub(&F::X, &F::R)), &F::Y),
        Singular::Pole,
    ),
];

/// The rule of `f` called with `n` arguments, matched exhaustively, so that
/// a new pure function has none until it is given one.
pub fn call_rule(f: PureFn, n: usize) -> CallRule {
    use PureFn::*;
    use Singular::*;
    match (f, n) {
        (Zero | One | Zeros | Length | Size | Nnz | GlobalIndex | Fixed | Tropical, _) => {
            CallRule::Constant
        }
        (Float, 1) => CallRule::Float,
        (Identity | Value | Unwrap | Real | Conj, 1) => CallRule::Through,
        (Abs, 1) => local(&F::Call(Sign, &F::X), Nowhere),
        (Abs2, 1) => local(&F::Mul(&F::Two, &F::X), Nowhere),
        (Sqrt, 1) => local(
            &F::ZeroAt {
                at: &F::X,
                f: &F::Inv(&F::Mul(&F::Call(Sqrt, &F::X), &F::Two)),
            },
            Nowhere,
        ),
        (Exp, 1) => local(&F::Call(Exp, &F::X), Nowhere),
        (Log, 1) => local(&F::Inv(&F::X), Pole),
        (Sin, 1) => local(&F::Call(Cos, &F::X), Nowhere),
        (Cos, 1) => local(&F::Neg(&F::Call(Sin, &F::X)), Nowhere),
        (Tan, 1) => local(
            &F::Add(&F::One, &F::Mul(&F::Call(Tan, &F::X), &F::Call(Tan, &F::X))),
            Nowhere,
        ),
        (Sinh, 1) => local(&F::Call(Cosh, &F::X), Nowhere),
        (Cosh, 1) => local(&F::Call(Sinh, &F::X), Nowhere),
        (Tanh, 1) => local(
            &F::Sub(
                &F::One,
                &F::Mul(&F::Call(Tanh, &F::X), &F::Call(Tanh, &F::X)),
            ),
            Nowhere,
        ),
        (Asin, 1) => local(&F::Inv(&F::Call(Sqrt, &F::Sub(&F::One, &SQUARE))), Pole),
        (Acos, 1) => local(
            &F::Neg(&F::Inv(&F::Call(Sqrt, &F::Sub(&F::One, &SQUARE)))),
            Pole,
        ),
        (Atan, 1) => local(&F::Inv(&F::Add(&F::One, &SQUARE)), Nowhere),
        (Inv, 1) => local(&F::Neg(&F::Inv(&SQUARE)), Pole),
        // At the origin, where atan(y, x) is not differentiable, the
        // subgradient 0 (not 0/0).
        (Atan, 2) => CallRule::Binary([
            partial(
                &F::ZeroAt {
                    at: &RADIUS2,
                    f: &F::Div(&F::Y, &RADIUS2),
                },
                Pole,
            ),
            partial(
                &F::ZeroAt {
                    at: &RADIUS2,
                    f: &F::Div(&F::Neg(&F::X), &RADIUS2),
                },
                Pole,
            ),
        ]),
        // The imaginary part and the angle of a real number are constants
        // (0, and 0 or π); complex arguments have rules of their own.
        (Sign | Floor | Ceil | Round | Imag | Angle, 1) => CallRule::Flat,
        (Div, 2) => CallRule::Flat,
        (Rem | Mod, 2) => CallRule::Binary(REMAINDER),
        // The Gaussian logarithm r = ln(e^x ± e^y): e^(x - r), ±e^(y - r).
        (Logaddexp, 2) => CallRule::Binary([
            partial(&F::Call(Exp, &F::Sub(&F::X, &F::R)), Pole),
            partial(&F::Call(Exp, &F::Sub(&F::Y, &F::R)), Pole),
        ]),
        (Logsubexp, 2) => CallRule::Binary([
            partial(&F::Call(Exp, &F::Sub(&F::X, &F::R)), Pole),
            partial(&F::Neg(&F::Call(Exp, &F::Sub(&F::Y, &F::R))), Pole),
        ]),
        // The argument picked gets the whole derivative (the first, at a
        // tie).
        (Min, 2) => CallRule::Binary([
            partial(const { &pick(Cmp::Le, true) }, Nowhere),
            partial(const { &pick(Cmp::Le, false) }, Nowhere),
        ]),
        (Max, 2) => CallRule::Binary([
            partial(const { &pick(Cmp::Ge, true) }, Nowhere),
            partial(const { &pick(Cmp::Ge, false) }, Nowhere),
        ]),
        (
            Identity | Value | Unwrap | Real | Conj | Abs | Abs2 | Sqrt | Exp | Log | Sin | Cos
            | Tan | Sinh | Cosh | Tanh | Asin | Acos | Inv | Atan | Sign | Floor | Ceil | Round
            | Logaddexp | Logsubexp | Min | Max | Ones | Imag | Angle | Sincos | Div | Rem | Mod
            | Float | Stack | Tget | Isempty | Iseven | Isodd | Println | Print | Ulog,
            _,
        ) => CallRule::Missing,
    }
}

/// The partials of the remainder `x % y` (and of `rem` and `mod`).
pub fn remainder() -> [Local; 2] {
    REMAINDER
}

/// The local derivative of `f` of one argument, if it has one.
pub fn local_derivative(f: PureFn) -> Option<Local> {
    match call_rule(f, 1) {
        CallRule::Unary(local) => Some(local),
        _ => None,
    }
}

/// Whether `f` of a complex argument is holomorphic, so that its local
/// derivative is the same formula on complex numbers (its Wirtinger pair
/// is `(f'(z), 0)`). The other functions the Rust backend takes complex
/// numbers to (`abs`, `abs2`, `real`, `imag`, `conj`, `angle`) have pairs
/// of their own.
pub fn holomorphic(f: PureFn) -> bool {
    use PureFn::*;
    matches!(f, Sqrt | Exp | Log | Sin | Cos | Inv)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::builtins::ComplexArgs;

    /// The formula, evaluated on `f64`s (`x`, `y`, the value `r`), for the
    /// tests below.
    fn eval(formula: &Formula, v: [f64; 3]) -> f64 {
        let e = |f: &Formula| eval(f, v);
        match formula {
            F::X => v[0],
            F::Y => v[1],
            F::R => v[2],
            F::One => 1.0,
            F::Two => 2.0,
            F::Neg(a) => -e(a),
            F::Add(a, b) => e(a) + e(b),
            F::Sub(a, b) => e(a) - e(b),
            F::Mul(a, b) => e(a) * e(b),
            F::Div(a, b) => e(a) / e(b),
            F::Inv(a) => 1.0 / e(a),
            F::Call(f, a) => apply(*f, e(a)),
            F::ZeroAt { at, f } => {
                if e(at) == 0.0 {
                    0.0
                } else {
                    e(f)
                }
            }
            F::Pick { a, cmp, b, then } => {
                let holds = match cmp {
                    Cmp::Le => e(a) <= e(b),
                    Cmp::Ge => e(a) >= e(b),
                };
                (holds == *then) as u8 as f64
            }
        }
    }

    fn apply2(f: PureFn, x: f64, y: f64) -> f64 {
        match f {
            PureFn::Atan => x.atan2(y),
            PureFn::Rem => x % y,
            PureFn::Mod => x - y * (x / y).floor(),
            PureFn::Logaddexp => (x.exp() + y.exp()).ln(),
            PureFn::Logsubexp => (x.exp() - y.exp()).ln(),
            PureFn::Min => x.min(y),
            PureFn::Max => x.max(y),
            f => panic!("no test value for {f:?}"),
        }
    }

    fn apply(f: PureFn, x: f64) -> f64 {
        match f {
            PureFn::Abs => x.abs(),
            PureFn::Abs2 => x * x,
            PureFn::Sqrt => x.sqrt(),
            PureFn::Exp => x.exp(),
            PureFn::Log => x.ln(),
            PureFn::Sin => x.sin(),
            PureFn::Cos => x.cos(),
            PureFn::Tan => x.tan(),
            PureFn::Sinh => x.sinh(),
            PureFn::Cosh => x.cosh(),
            PureFn::Tanh => x.tanh(),
            PureFn::Asin => x.asin(),
            PureFn::Acos => x.acos(),
            PureFn::Atan => x.atan(),
            PureFn::Inv => 1.0 / x,
            PureFn::Sign => x.signum(),
            f => panic!("no test value for {f:?}"),
        }
    }

    #[test]
    fn every_local_derivative_agrees_with_central_differences() {
        let mut checked = 0;
        for f in PureFn::ALL {
            let Some(local) = local_derivative(f) else {
                continue;
            };
            for x in [0.3, 0.55, 0.8] {
                let h = 1e-6;
                let numeric = (apply(f, x + h) - apply(f, x - h)) / (2.0 * h);
                let rule = eval(local.formula, [x, 0.0, apply(f, x)]);
                assert!(
                    (numeric - rule).abs() <= 1e-6 * (1.0 + rule.abs()),
                    "{f:?} at {x}: the rule gives {rule}, central differences {numeric}"
                );
            }
            checked += 1;
        }
        assert_eq!(checked, 15);
    }

    #[test]
    fn every_partial_derivative_agrees_with_central_differences() {
        let mut checked = 0;
        for f in PureFn::ALL {
            let CallRule::Binary(partials) = call_rule(f, 2) else {
                continue;
            };
            for (x, y) in [(0.7, 0.3), (1.9, 0.55), (-0.45, -0.8)] {
                let h = 1e-6;
                let r = apply2(f, x, y);
                let numeric = [
                    (apply2(f, x + h, y) - apply2(f, x - h, y)) / (2.0 * h),
                    (apply2(f, x, y + h) - apply2(f, x, y - h)) / (2.0 * h),
                ];
                for (k, p) in partials.iter().enumerate() {
                    let rule = eval(p.formula, [x, y, r]);
                    assert!(
                        (numeric[k] - rule).abs() <= 1e-6 * (1.0 + rule.abs()),
                        "{f:?} at ({x}, {y}), by argument {k}: the rule gives {rule}, central differences {}",
                        numeric[k]
                    );
                }
            }
            checked += 1;
        }
        assert_eq!(checked, 7);
    }

    #[test]
    fn a_holomorphic_function_is_one_the_rust_backend_takes_complex_numbers_to() {
        for f in PureFn::ALL.into_iter().filter(|f| holomorphic(*f)) {
            assert_eq!(f.spec().complex, ComplexArgs::Generated, "{f:?}");
            assert!(local_derivative(f).is_some(), "{f:?}");
        }
    }

    #[test]
    fn a_function_without_a_rule_of_one_argument_is_missing_not_flat() {
        assert_eq!(call_rule(PureFn::Sincos, 1), CallRule::Missing);
        assert_eq!(call_rule(PureFn::Atan, 3), CallRule::Missing);
        assert!(matches!(call_rule(PureFn::Atan, 2), CallRule::Binary(_)));
    }
}

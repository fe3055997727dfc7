//! How the reverse pass differentiates a call of a pure function: the rule
//! of each function for each number of arguments ([`call_rule`]) and, for
//! the functions of one argument, the local derivative as a formula in the
//! argument ([`Formula`]).
//!
//! This is the one place a derivative of a built-in function is written.
//! The Rust and WGSL backends render a formula as code
//! (`codegen/src/adjoint/partials.rs`, and `complex.rs` for complex
//! arguments), and the reference interpreter evaluates it on the
//! argument's value in the argument's own number type, real, dual or
//! complex (`interp/src/local.rs`). Each matches [`Formula`] exhaustively,
//! so a new kind of term does not compile until every one of them can say
//! what it means. The rules of two arguments and of the operators are
//! still written in each backend.

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
    /// A step function: derivative zero.
    Flat,
    /// `float`: the argument's own derivative, for a float.
    Float,
    /// `rem`, `mod`.
    Remainder,
    /// `atan(y, x)`.
    Atan2,
    /// `logaddexp`, `logsubexp`.
    Gaussian,
    MinMax,
    /// None written: the call cannot be differentiated.
    Missing,
}

/// The local derivative of a function of one argument.
#[derive(Clone, Copy, PartialEq, Eq, Debug)]
pub struct Local {
    /// `f'(x)`.
    pub formula: &'static Formula,
    /// Where the formula is not finite, and what the rule takes there
    /// (docs/language.md, "Derivatives at singular points").
    pub singular: Singular,
}

/// Where a local derivative is not finite at a finite argument.
#[derive(Clone, Copy, PartialEq, Eq, Debug)]
pub enum Singular {
    /// Nowhere.
    Nowhere,
    /// At `x = 0`, where the rule takes the subgradient 0 (`sqrt`).
    AtZero,
    /// At a pole: the cotangent times the formula is zero where the
    /// cotangent is zero (no `0 · ∞`).
    Pole,
}

/// A formula in the argument `x` of a function of one argument. Binary
/// terms keep the order of their operands as written here: backends and
/// the interpreter compute them in that order, so their results agree to
/// the bit.
#[derive(Clone, Copy, PartialEq, Eq, Debug)]
pub enum Formula {
    X,
    One,
    /// `1 + 1`, exact in every number type.
    Two,
    Neg(&'static Formula),
    Add(&'static Formula, &'static Formula),
    Sub(&'static Formula, &'static Formula),
    Mul(&'static Formula, &'static Formula),
    /// `1 / a`.
    Inv(&'static Formula),
    /// A pure function of one argument applied to a formula.
    Call(PureFn, &'static Formula),
}

use Formula as F;

const fn local(formula: &'static Formula, singular: Singular) -> CallRule {
    CallRule::Unary(Local { formula, singular })
}

const SQUARE: Formula = F::Mul(&F::X, &F::X);

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
        (Sqrt, 1) => local(&F::Inv(&F::Mul(&F::Call(Sqrt, &F::X), &F::Two)), AtZero),
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
        (Atan, 2) => CallRule::Atan2,
        // The imaginary part and the angle of a real number are constants
        // (0, and 0 or π); complex arguments have rules of their own.
        (Sign | Floor | Ceil | Round | Imag | Angle, 1) => CallRule::Flat,
        (Div, 2) => CallRule::Flat,
        (Rem | Mod, 2) => CallRule::Remainder,
        (Logaddexp | Logsubexp, 2) => CallRule::Gaussian,
        (Min | Max, 2) => CallRule::MinMax,
        (
            Identity | Value | Unwrap | Real | Conj | Abs | Abs2 | Sqrt | Exp | Log | Sin | Cos
            | Tan | Sinh | Cosh | Tanh | Asin | Acos | Inv | Atan | Sign | Floor | Ceil | Round
            | Logaddexp | Logsubexp | Min | Max | Ones | Imag | Angle | Sincos | Div | Rem | Mod
            | Float | Stack | Tget | Isempty | Iseven | Isodd | Println | Print | Ulog,
            _,
        ) => CallRule::Missing,
    }
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

    /// The formula, evaluated on an `f64`, for the tests below.
    fn eval(formula: &Formula, x: f64) -> f64 {
        match formula {
            F::X => x,
            F::One => 1.0,
            F::Two => 2.0,
            F::Neg(a) => -eval(a, x),
            F::Add(a, b) => eval(a, x) + eval(b, x),
            F::Sub(a, b) => eval(a, x) - eval(b, x),
            F::Mul(a, b) => eval(a, x) * eval(b, x),
            F::Inv(a) => 1.0 / eval(a, x),
            F::Call(f, a) => apply(*f, eval(a, x)),
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
                let rule = eval(local.formula, x);
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
        assert_eq!(call_rule(PureFn::Atan, 2), CallRule::Atan2);
    }
}

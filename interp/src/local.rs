//! The local derivatives of the pure functions (the analysis's
//! `derivative_rules`, where each is written once), evaluated on a value.
//!
//! A formula is computed in the argument's own number type, term by term
//! in the order it is written, with the interpreter's arithmetic: on an
//! `f64` or an `f32` as the generated Rust computes it in that type, on a
//! dual number for the reverse pass of a derivative call, and on a complex
//! number for a holomorphic function (whose Wirtinger pair is
//! `(f'(z), 0)`). So the interpreter's gradients are those of the
//! generated code, to the bit where the arithmetic is the same.

use nilang_analysis::ast::BinaryOp;
use nilang_analysis::builtins::PureFn;
use nilang_analysis::derivative_rules::{Cmp, Formula, Local};

use crate::ops;
use crate::pure::{self, Out};
use crate::value::Value;

/// `f'(x)` for the rule `local` of a function of one argument, in `x`'s
/// number type. `None` where the arithmetic has no meaning for the value
/// (an array, a string).
pub(crate) fn derivative(local: &Local, x: &Value) -> Option<Value> {
    formula(local.formula, &[x.clone(), x.zero_like(), x.zero_like()])
}

/// A partial derivative of a function of two arguments, at its arguments
/// `x`, `y` and its value `r`, all of one number type.
pub(crate) fn partial(local: &Local, [x, y, r]: [&Value; 3]) -> Option<Value> {
    formula(local.formula, &[x.clone(), y.clone(), r.clone()])
}

/// Whether `x` is zero as the generated code compares it (a dual number
/// by its value).
fn at_zero(x: &Value) -> bool {
    match x {
        Value::Dual(re, _) => *re == 0.0,
        x => x.is_zero(),
    }
}

fn formula(f: &Formula, vars: &[Value; 3]) -> Option<Value> {
    let x = &vars[0];
    let term = |f: &Formula| formula(f, vars);
    let op = |op: BinaryOp, a: &Formula, b: &Formula| ops::binary(op, &term(a)?, &term(b)?).ok();
    match f {
        Formula::X => Some(x.clone()),
        Formula::Y => Some(vars[1].clone()),
        Formula::R => Some(vars[2].clone()),
        Formula::One => one(x),
        // A complex number times the real `1 + 1`, as the Rust backend
        // writes it.
        Formula::Two => match x {
            Value::Complex(..) => Some(Value::F64(2.0)),
            x => ops::binary(BinaryOp::Add, &one(x)?, &one(x)?).ok(),
        },
        Formula::Neg(a) => ops::negate(&term(a)?).ok(),
        Formula::Add(a, b) => op(BinaryOp::Add, a, b),
        Formula::Sub(a, b) => op(BinaryOp::Sub, a, b),
        Formula::Mul(a, b) => op(BinaryOp::Mul, a, b),
        Formula::Div(a, b) => op(BinaryOp::Div, a, b),
        Formula::Inv(a) => apply(PureFn::Inv, term(a)?),
        Formula::Call(g, a) => apply(*g, term(a)?),
        Formula::ZeroAt { at, f } => match at_zero(&term(at)?) {
            true => Some(x.zero_like()),
            false => term(f),
        },
        Formula::Pick { a, cmp, b, then } => {
            let cmp = match cmp {
                Cmp::Le => BinaryOp::Le,
                Cmp::Ge => BinaryOp::Ge,
            };
            let holds = ops::binary(cmp, &term(a)?, &term(b)?).ok()? == Value::Bool(true);
            match holds == *then {
                true => one(x),
                false => Some(x.zero_like()),
            }
        }
    }
}

/// One, in `x`'s number type.
fn one(x: &Value) -> Option<Value> {
    ops::convert(Value::F64(1.0), x).ok()
}

fn apply(f: PureFn, v: Value) -> Option<Value> {
    match pure::call(f, std::slice::from_ref(&v)) {
        Ok(Out::Value(v)) => Some(v),
        _ => None,
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use nilang_analysis::derivative_rules::local_derivative;

    fn at(f: PureFn, x: Value) -> Value {
        derivative(&local_derivative(f).unwrap(), &x).unwrap()
    }

    #[test]
    fn a_formula_is_computed_in_the_arguments_own_type() {
        assert!(matches!(at(PureFn::Sin, Value::F32(0.5)), Value::F32(d) if d == 0.5f32.cos()));
        assert!(matches!(at(PureFn::Sin, Value::F64(0.5)), Value::F64(d) if d == 0.5f64.cos()));
        // tan' = 1 + tan²: on a dual number, the derivative of that too.
        let Value::Dual(re, eps) = at(PureFn::Tan, Value::Dual(0.3, 1.0)) else {
            panic!("not a dual")
        };
        let t = 0.3f64.tan();
        assert_eq!(re, 1.0 + t * t);
        assert!((eps - 2.0 * t * (1.0 + t * t)).abs() < 1e-15);
    }

    #[test]
    fn a_rule_singular_at_zero_takes_the_subgradient_zero_there() {
        assert!(matches!(at(PureFn::Sqrt, Value::F64(0.0)), Value::F64(d) if d == 0.0));
        assert!(matches!(at(PureFn::Sqrt, Value::F64(4.0)), Value::F64(d) if d == 0.25));
    }

    #[test]
    fn a_holomorphic_rule_on_a_complex_number() {
        // log' = 1/z, at z = i: -i.
        let Value::Complex(re, im) = at(PureFn::Log, Value::Complex(0.0, 1.0)) else {
            panic!("not complex")
        };
        assert_eq!((re, im), (0.0, -1.0));
        // sqrt' = 1 / (2 sqrt z), at z = 4: 1/4.
        let Value::Complex(re, im) = at(PureFn::Sqrt, Value::Complex(4.0, 0.0)) else {
            panic!("not complex")
        };
        assert_eq!((re, im), (0.25, 0.0));
    }
}

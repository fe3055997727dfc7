//! Fixed-point numbers: `.nil`'s `Fixed43`.
//!
//! A `Fixed43` is the `fixed` crate's [`I21F43`](fixed::types::I21F43): a
//! signed 64-bit integer read as a multiple of 2^-43, so a sign bit, 20
//! integer bits and 43 fraction bits (the layout NiLang uses), covering
//! about ±1.05e6 in steps of about 1.1e-13.
//!
//! Adding and subtracting fixed-point numbers is integer arithmetic on the
//! underlying bits, so `x += y` followed by `x -= y` gives back `x` bit for
//! bit, whatever `y` is. On overflow generated code behaves as configured:
//! with run-time checks on, [`add`] and [`sub`] return an [`Error`] naming
//! the `.nil` location ([`Check::Overflow`]); with checks off the sum wraps
//! around, which is still exactly undone by the opposite instruction (the
//! numbers form a group modulo 2^64).

use crate::{Check, Error, Location, Plain};

/// The fixed-point type of `.nil`'s `Fixed43`.
pub type Fixed43 = fixed::types::I21F43;

/// `x` rounded to the nearest fixed-point number; out-of-range values
/// saturate and NaN becomes zero (`fixed(x)` in `.nil`).
#[inline]
pub fn from_f64(x: f64) -> Fixed43 {
    if x.is_nan() {
        Fixed43::ZERO
    } else {
        Fixed43::saturating_from_num(x)
    }
}

/// An integer as a fixed-point number, saturating out of range.
#[inline]
pub fn from_i64(x: i64) -> Fixed43 {
    Fixed43::saturating_from_num(x)
}

/// The nearest `f64` (exact: 43 fraction bits and 20 integer bits fit in a
/// double's 53-bit mantissa).
#[inline]
pub fn to_f64(x: Fixed43) -> f64 {
    x.to_num::<f64>()
}

/// `e^x`, computed in `f64` and rounded to the nearest `Fixed43`
/// (saturating): the same `x` always gives the same bits, so `y += exp(x)`
/// is undone exactly by `y -= exp(x)`.
#[inline]
pub fn exp(x: Fixed43) -> Fixed43 {
    from_f64(to_f64(x).exp())
}

/// `ln x`, computed in `f64` and rounded to the nearest `Fixed43`
/// (saturating: `ln 0` is the most negative `Fixed43`; a negative `x` gives
/// zero, as NaN does in [`from_f64`]).
#[inline]
pub fn ln(x: Fixed43) -> Fixed43 {
    from_f64(to_f64(x).ln())
}

/// [`exp`] in a checked build: a result outside the range of `Fixed43` is
/// an overflow error at `location` instead of a saturated value.
#[inline]
pub fn exp_at(x: Fixed43, location: Location, what: &str) -> Result<Fixed43, Error> {
    in_range(to_f64(x).exp(), location, what, "exp", x)
}

/// [`ln`] in a checked build: `ln` of zero or of a negative number, whose
/// result no `Fixed43` holds, is an error at `location`.
#[inline]
pub fn ln_at(x: Fixed43, location: Location, what: &str) -> Result<Fixed43, Error> {
    in_range(to_f64(x).ln(), location, what, "log", x)
}

#[inline]
fn in_range(
    v: f64,
    location: Location,
    what: &str,
    function: &str,
    x: Fixed43,
) -> Result<Fixed43, Error> {
    if v.is_finite() && v >= to_f64(Fixed43::MIN) && v <= to_f64(Fixed43::MAX) {
        Ok(from_f64(v))
    } else {
        Err(Error::new(
            location,
            Check::Overflow,
            what,
            Plain(&format!("a result within ±{}", Fixed43::MAX)),
            Plain(&format!("{function}({x}) = {v}")),
        ))
    }
}

/// `a + b`, or an overflow error at `location`.
#[inline]
pub fn add(a: Fixed43, b: Fixed43, location: Location, what: &str) -> Result<Fixed43, Error> {
    a.checked_add(b)
        .ok_or_else(|| overflow(location, what, a, b, '+'))
}

/// `a - b`, or an overflow error at `location`.
#[inline]
pub fn sub(a: Fixed43, b: Fixed43, location: Location, what: &str) -> Result<Fixed43, Error> {
    a.checked_sub(b)
        .ok_or_else(|| overflow(location, what, a, b, '-'))
}

#[cold]
fn overflow(location: Location, what: &str, a: Fixed43, b: Fixed43, op: char) -> Error {
    Error::new(
        location,
        Check::Overflow,
        what,
        Plain(&format!("|{a} {op} {b}| < {}", Fixed43::MAX)),
        Plain(&format!("{a} {op} {b} overflows")),
    )
}

/// Fixed-point numbers are compared exactly, bit for bit.
impl crate::CheckEq for Fixed43 {
    fn check_eq(&self, other: &Self, _atol: f64) -> bool {
        self == other
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn layout_is_sign_20_integer_43_fraction_bits() {
        assert_eq!(Fixed43::FRAC_NBITS, 43);
        assert_eq!(Fixed43::INT_NBITS, 21); // sign bit included
        assert_eq!(to_f64(from_f64(0.5)), 0.5);
        assert_eq!(Fixed43::DELTA.to_num::<f64>(), 2f64.powi(-43));
    }

    #[test]
    fn add_then_sub_restores_every_bit_and_overflow_is_an_error() {
        let loc = Location {
            file: "t.nil",
            line: 1,
            column: 1,
        };
        let x = from_f64(1.0 / 3.0);
        let y = from_f64(std::f64::consts::PI);
        let s = add(x, y, loc, "x += y").unwrap();
        assert_eq!(sub(s, y, loc, "x -= y").unwrap().to_bits(), x.to_bits());
        let e = add(Fixed43::MAX, y, loc, "x += y").unwrap_err();
        assert_eq!(e.check, Check::Overflow);
        assert!(e.to_string().contains("t.nil:1:1"), "{e}");
        assert_eq!(from_f64(f64::NAN), Fixed43::ZERO);
        assert_eq!(from_f64(1e300), Fixed43::MAX);
    }

    #[test]
    fn exp_and_ln_round_to_the_same_bits_and_report_results_out_of_range() {
        let loc = Location {
            file: "t.nil",
            line: 2,
            column: 5,
        };
        let x = from_f64(1.25);
        assert_eq!(exp(x).to_bits(), exp(x).to_bits());
        assert_eq!(exp_at(x, loc, "exp").unwrap(), exp(x));
        assert_eq!(ln_at(x, loc, "log").unwrap(), ln(x));
        assert!((to_f64(ln(exp(x))) - 1.25).abs() < 1e-12);
        let e = exp_at(from_f64(20.0), loc, "`y += exp(x)`").unwrap_err();
        assert_eq!(e.check, Check::Overflow);
        assert!(e.to_string().contains("exp(20) = 485165195"), "{e}");
        let e = ln_at(from_f64(-1.0), loc, "`y += log(x)`").unwrap_err();
        assert!(e.to_string().contains("log(-1) = NaN"), "{e}");
        assert!(ln_at(Fixed43::ZERO, loc, "log").is_err());
    }
}

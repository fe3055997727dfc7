//! Integer division in the generated code: `a ÷ b`, `a % b`, `div`, `rem`
//! and `mod` of integers. A zero divisor (and `typemin ÷ -1`, whose
//! quotient does not fit) is an error naming the `.nil` location and the
//! operands, the reference interpreter's, where Rust would panic; with or
//! without run-time checks, since no value could stand for the result.

use std::fmt::Display;

use num_traits::{CheckedRem, PrimInt};

use crate::{Check, Error, Location, Plain, Result};

fn undefined<T: Display>(op: &str, a: T, b: T, at: Location) -> Error {
    Error::new(
        at,
        Check::Domain,
        format!("integer `{op}` of {a} and {b}"),
        Plain("values it is defined for"),
        Plain("others"),
    )
}

/// `a ÷ b`, the quotient truncated toward zero (Julia's `div`).
#[inline]
pub fn div<T: PrimInt + Display>(a: T, b: T, at: Location) -> Result<T> {
    a.checked_div(&b).ok_or_else(|| undefined("÷", a, b, at))
}

/// `a % b`, with the sign of `a` (Julia's `rem`).
#[inline]
pub fn rem<T: PrimInt + CheckedRem + Display>(a: T, b: T, at: Location) -> Result<T> {
    CheckedRem::checked_rem(&a, &b).ok_or_else(|| undefined("%", a, b, at))
}

/// `mod(a, b)`, with the sign of `b` (Julia's `mod`).
#[inline]
pub fn modulo<T: PrimInt + CheckedRem + Display>(a: T, b: T, at: Location) -> Result<T> {
    let r = rem(a, b, at)?;
    let zero = T::zero();
    Ok(if r != zero && (r < zero) != (b < zero) {
        r + b
    } else {
        r
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    const AT: Location = Location {
        file: "t.nil",
        line: 3,
        column: 5,
    };

    #[test]
    fn quotients_and_remainders_as_julia_gives_them() {
        assert_eq!(div(-7i64, 2, AT).unwrap(), -3);
        assert_eq!(rem(-7i64, 2, AT).unwrap(), -1);
        assert_eq!(modulo(-7i64, 2, AT).unwrap(), 1);
        assert_eq!(modulo(7i8, -2, AT).unwrap(), -1);
        assert_eq!(modulo(7u16, 2, AT).unwrap(), 1);
    }

    #[test]
    fn a_zero_divisor_is_an_error_with_the_operands() {
        let e = div(5i64, 0, AT).unwrap_err();
        assert_eq!(
            e.to_string(),
            "t.nil:3:5: operation not defined for these values: integer `÷` of 5 and 0 (expected values it is defined for, found others)"
        );
        assert!(rem(5i32, 0, AT).is_err());
        assert!(modulo(5u8, 0, AT).is_err());
        assert!(div(i64::MIN, -1, AT).is_err());
    }
}

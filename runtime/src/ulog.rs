//! Logarithmic numbers: `.nil`'s `ULogarithmic<T>`.
//!
//! A [`ULog<T>`] holds a non-negative number `x` as its natural logarithm
//! `log = ln x` (zero is `log = -inf`). Multiplying and dividing add and
//! subtract logarithms, which (unlike multiplying floating-point numbers)
//! can be undone: `x *= y` is `x.log += y.log`, undone by `x /= y`. Sums go
//! through the Gaussian logarithm, `ln(e^a + e^b)` computed as
//! `max(a, b) + ln(1 + e^-|a - b|)` so that neither exponential overflows
//! ([`logaddexp`], [`logsubexp`]).
//!
//! In gradients the adjoint of a log number is the adjoint of its
//! logarithm, `dL/d(log)`, a plain `T` (or `G: Adjoint<T>`): the compiler
//! writes each statement on log numbers as a statement on `.log` fields.

// Products of these numbers add underlying values: intended.
#![allow(clippy::suspicious_arithmetic_impl, clippy::suspicious_op_assign_impl)]

use std::ops::{Add, Div, DivAssign, Mul, MulAssign, Sub};

use crate::{CheckEq, Real};

/// A non-negative number stored as its logarithm.
#[derive(Clone, Copy, PartialEq, PartialOrd)]
pub struct ULog<T> {
    /// The natural logarithm of the value.
    pub log: T,
}

impl<T: Real> ULog<T> {
    /// The log number whose logarithm is `log`.
    #[inline]
    pub fn from_log(log: T) -> Self {
        ULog { log }
    }

    /// The log number of the value `x` (`x >= 0`; a negative `x` gives NaN).
    #[inline]
    pub fn from_value(x: T) -> Self {
        ULog { log: x.ln() }
    }

    /// The value, `exp(log)`.
    #[inline]
    pub fn value(self) -> T {
        self.log.exp()
    }

    /// One (`log = 0`).
    #[inline]
    pub fn one() -> Self {
        ULog { log: crate::zero() }
    }
}

/// `ln(e^a + e^b)`, without overflow.
#[inline]
pub fn logaddexp<T: Real>(a: T, b: T) -> T {
    let (hi, lo) = if a >= b { (a, b) } else { (b, a) };
    if lo.to_f64() == f64::NEG_INFINITY {
        return hi;
    }
    hi + (crate::one::<T>() + (lo - hi).exp()).ln()
}

/// `ln(e^a - e^b)` for `a >= b` (NaN below, `-inf` when equal).
#[inline]
pub fn logsubexp<T: Real>(a: T, b: T) -> T {
    if b.to_f64() == f64::NEG_INFINITY {
        return a;
    }
    a + (crate::one::<T>() - (b - a).exp()).ln()
}

impl<T: Real> Mul for ULog<T> {
    type Output = Self;
    #[inline]
    fn mul(self, rhs: Self) -> Self {
        ULog {
            log: self.log + rhs.log,
        }
    }
}

impl<T: Real> Div for ULog<T> {
    type Output = Self;
    #[inline]
    fn div(self, rhs: Self) -> Self {
        ULog {
            log: self.log - rhs.log,
        }
    }
}

impl<T: Real> Add for ULog<T> {
    type Output = Self;
    #[inline]
    fn add(self, rhs: Self) -> Self {
        ULog {
            log: logaddexp(self.log, rhs.log),
        }
    }
}

impl<T: Real> Sub for ULog<T> {
    type Output = Self;
    #[inline]
    fn sub(self, rhs: Self) -> Self {
        ULog {
            log: logsubexp(self.log, rhs.log),
        }
    }
}

impl<T: Real> MulAssign for ULog<T> {
    #[inline]
    fn mul_assign(&mut self, rhs: Self) {
        self.log += rhs.log;
    }
}

impl<T: Real> DivAssign for ULog<T> {
    #[inline]
    fn div_assign(&mut self, rhs: Self) {
        self.log -= rhs.log;
    }
}

impl<T: Real> CheckEq for ULog<T> {
    fn check_eq(&self, other: &Self, atol: f64) -> bool {
        self.log.approx_eq(other.log, atol)
    }
}

impl<T: std::fmt::Debug> std::fmt::Debug for ULog<T> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "exp({:?})", self.log)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn products_add_logs_and_sums_use_the_gaussian_logarithm() {
        let x = ULog::from_value(3.0_f64);
        let y = ULog::from_value(5.0_f64);
        assert!(((x * y).value() - 15.0).abs() < 1e-12);
        assert!(((y / x).value() - 5.0 / 3.0).abs() < 1e-12);
        assert!(((x + y).value() - 8.0).abs() < 1e-12);
        assert!(((y - x).value() - 2.0).abs() < 1e-12);
        // No overflow where exp(log) would.
        let big = ULog::from_log(1000.0_f64);
        assert!(((big + big).log - (1000.0 + 2f64.ln())).abs() < 1e-12);
        assert_eq!(logaddexp(f64::NEG_INFINITY, 2.0), 2.0);
        assert_eq!(logsubexp(2.0, f64::NEG_INFINITY), 2.0);
        let mut z = x;
        z *= y;
        z /= y;
        assert!(z.check_eq(&x, 1e-14));
        assert_eq!(format!("{:?}", ULog::<f64>::one()), "exp(0.0)");
    }
}

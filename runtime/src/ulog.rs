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
//! The logarithm is a float type (any [`Real`]) or a [`Fixed43`]
//! ([`LogBase`]). With `Fixed43`, products and quotients add and subtract
//! fixed-point numbers, which is exact: `x *= y; x /= y` gives `x` back bit
//! for bit, as NiLang's `ULogarithmic{Fixed43}` does; logarithms and
//! exponentials are computed in `f64` and rounded to the nearest `Fixed43`,
//! so the same value always gives the same bits.
//!
//! In gradients the adjoint of a log number is the adjoint of its
//! logarithm, `dL/d(log)`, a plain `T` (or `G: Adjoint<T>`): the compiler
//! writes each statement on log numbers as a statement on `.log` fields.

// Products of these numbers add underlying values: intended.
#![allow(clippy::suspicious_arithmetic_impl, clippy::suspicious_op_assign_impl)]

use std::ops::{Add, Div, DivAssign, Mul, MulAssign, Sub};

use crate::{CheckEq, Fixed43, Real};

/// What the logarithm of a [`ULog`] can be: a float type, through
/// [`Real`], or [`Fixed43`].
pub trait LogBase:
    Copy
    + PartialEq
    + PartialOrd
    + std::ops::Add<Output = Self>
    + std::ops::Sub<Output = Self>
    + std::ops::AddAssign
    + std::ops::SubAssign
{
    /// `ln x`.
    fn ln(self) -> Self;
    /// `e^x`.
    fn exp(self) -> Self;
    /// The logarithm of one.
    fn log_one() -> Self;
    /// The logarithm of zero (`-inf`, or the most negative `Fixed43`).
    fn log_zero() -> Self;
    /// `ln(e^a + e^b)`.
    fn logaddexp(a: Self, b: Self) -> Self;
    /// `ln(e^a - e^b)`.
    fn logsubexp(a: Self, b: Self) -> Self;
    /// Whether two logarithms agree (within `atol` for floats, exactly for
    /// fixed-point numbers).
    fn same(self, other: Self, atol: f64) -> bool;
}

impl<T: Real> LogBase for T {
    #[inline]
    fn ln(self) -> Self {
        Real::ln(self)
    }
    #[inline]
    fn exp(self) -> Self {
        Real::exp(self)
    }
    #[inline]
    fn log_one() -> Self {
        crate::zero()
    }
    #[inline]
    fn log_zero() -> Self {
        T::from_f64(f64::NEG_INFINITY)
    }
    #[inline]
    fn logaddexp(a: Self, b: Self) -> Self {
        logaddexp(a, b)
    }
    #[inline]
    fn logsubexp(a: Self, b: Self) -> Self {
        logsubexp(a, b)
    }
    #[inline]
    fn same(self, other: Self, atol: f64) -> bool {
        self.approx_eq(other, atol)
    }
}

impl LogBase for Fixed43 {
    #[inline]
    fn ln(self) -> Self {
        crate::fixed::ln(self)
    }
    #[inline]
    fn exp(self) -> Self {
        crate::fixed::exp(self)
    }
    #[inline]
    fn log_one() -> Self {
        Fixed43::ZERO
    }
    #[inline]
    fn log_zero() -> Self {
        Fixed43::MIN
    }
    #[inline]
    fn logaddexp(a: Self, b: Self) -> Self {
        let (a, b) = (crate::fixed::to_f64(a), crate::fixed::to_f64(b));
        crate::fixed::from_f64(logaddexp(a, b))
    }
    #[inline]
    fn logsubexp(a: Self, b: Self) -> Self {
        let (a, b) = (crate::fixed::to_f64(a), crate::fixed::to_f64(b));
        crate::fixed::from_f64(logsubexp(a, b))
    }
    #[inline]
    fn same(self, other: Self, _atol: f64) -> bool {
        self == other
    }
}

/// A non-negative number stored as its logarithm.
#[derive(Clone, Copy, PartialEq, PartialOrd)]
pub struct ULog<T> {
    /// The natural logarithm of the value.
    pub log: T,
}

impl<T: LogBase> ULog<T> {
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
        ULog { log: T::log_one() }
    }

    /// Zero (`log = -inf`; for `Fixed43`, the most negative logarithm).
    #[inline]
    pub fn zero() -> Self {
        ULog { log: T::log_zero() }
    }
}

/// `ln(e^a + e^b)`, without overflow.
#[inline]
pub fn logaddexp<T: Real>(a: T, b: T) -> T {
    let (hi, lo) = if a >= b { (a, b) } else { (b, a) };
    if lo.to_f64() == f64::NEG_INFINITY {
        return hi;
    }
    // `ln_1p` keeps the digits of a small `e^(lo - hi)`.
    hi + (lo - hi).exp().ln_1p()
}

/// `ln(e^a - e^b)` for `a >= b` (NaN below, `-inf` when equal).
#[inline]
pub fn logsubexp<T: Real>(a: T, b: T) -> T {
    if b.to_f64() == f64::NEG_INFINITY {
        return a;
    }
    // `-expm1` keeps the digits of `1 - e^(b - a)` when `b` is near `a`.
    a + (-(b - a).exp_m1()).ln()
}

impl<T: LogBase> Mul for ULog<T> {
    type Output = Self;
    #[inline]
    fn mul(self, rhs: Self) -> Self {
        ULog {
            log: self.log + rhs.log,
        }
    }
}

impl<T: LogBase> Div for ULog<T> {
    type Output = Self;
    #[inline]
    fn div(self, rhs: Self) -> Self {
        ULog {
            log: self.log - rhs.log,
        }
    }
}

impl<T: LogBase> Add for ULog<T> {
    type Output = Self;
    #[inline]
    fn add(self, rhs: Self) -> Self {
        ULog {
            log: T::logaddexp(self.log, rhs.log),
        }
    }
}

impl<T: LogBase> Sub for ULog<T> {
    type Output = Self;
    #[inline]
    fn sub(self, rhs: Self) -> Self {
        ULog {
            log: T::logsubexp(self.log, rhs.log),
        }
    }
}

impl<T: LogBase> MulAssign for ULog<T> {
    #[inline]
    fn mul_assign(&mut self, rhs: Self) {
        self.log += rhs.log;
    }
}

impl<T: LogBase> DivAssign for ULog<T> {
    #[inline]
    fn div_assign(&mut self, rhs: Self) {
        self.log -= rhs.log;
    }
}

impl<T: LogBase> CheckEq for ULog<T> {
    fn check_eq(&self, other: &Self, atol: f64) -> bool {
        self.log.same(other.log, atol)
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

    #[test]
    fn fixed_point_logarithms_multiply_and_divide_exactly() {
        let x = ULog::from_value(crate::fixed::from_f64(3.0));
        let y = ULog::from_value(crate::fixed::from_f64(0.7));
        assert!((crate::fixed::to_f64((x * y).value()) - 2.1).abs() < 1e-9);
        assert!((crate::fixed::to_f64((x + y).value()) - 3.7).abs() < 1e-9);
        let mut z = x;
        for _ in 0..1000 {
            z *= y;
            z *= x;
        }
        for _ in 0..1000 {
            z /= x;
            z /= y;
        }
        assert_eq!(z.log.to_bits(), x.log.to_bits());
        assert!(z.check_eq(&x, 0.0));
        assert!(!ULog::<Fixed43>::one().check_eq(&ULog::from_log(Fixed43::DELTA), 1.0));
        assert_eq!(ULog::<Fixed43>::zero().log, Fixed43::MIN);
    }
}

#[cfg(test)]
mod precision {
    use super::{logaddexp, logsubexp};

    #[test]
    fn far_apart_and_nearly_equal_arguments_keep_their_digits() {
        // ln(1 + e^-40) = e^-40 to double precision; 1 + e^-40 rounds to 1.
        let far = logaddexp(0.0_f64, -40.0);
        assert!((far / (-40.0_f64).exp() - 1.0).abs() < 1e-15, "{far}");
        // ln(1 - e^-1e-10) = ln(1e-10 - 5e-21 + ...).
        let near = logsubexp(0.0_f64, -1e-10);
        let exact = (1e-10_f64 - 5e-21).ln();
        assert!((near - exact).abs() < 1e-14, "{near} vs {exact}");
    }
}

//! Tropical numbers: `.nil`'s `Tropical<T>`, the max-plus semiring.
//!
//! A [`Tropical<T>`] wraps a value `n`. Tropical multiplication is ordinary
//! addition of the values (`x *= y` is `x.n += y.n`, undone by `x /= y`,
//! which subtracts); tropical addition is the maximum, with `-inf` its zero
//! and `0` its one. The maximum loses the smaller value, so `x += y` is not
//! reversible on its own: `.nil` accepts it only inside `@tape` loops,
//! which record the old value of `x` going forwards and put it back going
//! backwards.

// Products of these numbers add underlying values: intended.
#![allow(clippy::suspicious_arithmetic_impl, clippy::suspicious_op_assign_impl)]

use std::ops::{Add, Div, DivAssign, Mul, MulAssign};

use crate::{CheckEq, Real};

/// A max-plus number.
#[derive(Clone, Copy, PartialEq, PartialOrd)]
pub struct Tropical<T> {
    /// The ordinary value.
    pub n: T,
}

impl<T: Real> Tropical<T> {
    #[inline]
    pub fn new(n: T) -> Self {
        Tropical { n }
    }

    /// The tropical zero, `-inf` (the identity of `max`).
    #[inline]
    pub fn zero() -> Self {
        Tropical {
            n: T::from_f64(f64::NEG_INFINITY),
        }
    }

    /// The tropical one, `0` (the identity of `+`).
    #[inline]
    pub fn one() -> Self {
        Tropical { n: crate::zero() }
    }

    /// Tropical addition in place: `self = max(self, other)`.
    #[inline]
    pub fn max_assign(&mut self, other: Self) {
        if other.n > self.n {
            *self = other;
        }
    }
}

impl<T: Real> Mul for Tropical<T> {
    type Output = Self;
    #[inline]
    fn mul(self, rhs: Self) -> Self {
        Tropical { n: self.n + rhs.n }
    }
}

impl<T: Real> Div for Tropical<T> {
    type Output = Self;
    #[inline]
    fn div(self, rhs: Self) -> Self {
        Tropical { n: self.n - rhs.n }
    }
}

impl<T: Real> Add for Tropical<T> {
    type Output = Self;
    #[inline]
    fn add(self, rhs: Self) -> Self {
        if rhs.n > self.n { rhs } else { self }
    }
}

impl<T: Real> MulAssign for Tropical<T> {
    #[inline]
    fn mul_assign(&mut self, rhs: Self) {
        self.n += rhs.n;
    }
}

impl<T: Real> DivAssign for Tropical<T> {
    #[inline]
    fn div_assign(&mut self, rhs: Self) {
        self.n -= rhs.n;
    }
}

impl<T: Real> CheckEq for Tropical<T> {
    fn check_eq(&self, other: &Self, atol: f64) -> bool {
        self.n == other.n || self.n.approx_eq(other.n, atol)
    }
}

impl<T: std::fmt::Debug> std::fmt::Debug for Tropical<T> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "Tropical({:?})", self.n)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn max_plus_semiring() {
        let a = Tropical::new(2.0_f64);
        let b = Tropical::new(5.0_f64);
        assert_eq!((a * b).n, 7.0);
        assert_eq!((a + b).n, 5.0);
        assert_eq!((a + Tropical::zero()).n, 2.0);
        assert_eq!((a * Tropical::one()).n, 2.0);
        let mut c = a;
        c *= b;
        c /= b;
        assert_eq!(c, a);
        c.max_assign(b);
        assert_eq!(c, b);
        assert!(Tropical::<f64>::zero().check_eq(&Tropical::zero(), 1e-8));
    }
}

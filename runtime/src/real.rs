use std::fmt::{Debug, Display};
use std::ops::{
    Add, AddAssign, Div, DivAssign, Mul, MulAssign, Neg, Rem, RemAssign, Sub, SubAssign,
};

/// The numbers a generic `.nil` function (`where T: Real`) works on.
///
/// Implemented for `f64`, `f32`, `i64` and `i32`. Integers are included
/// because NiLang code is generic over them too (`ifactorial` runs on
/// integers inside `ibesselj`); on integers the transcendental functions go
/// through `f64` and truncate back, and `/` is integer division.
///
/// `num_traits::Num` is a supertrait so that `num_complex::Complex<T>` has
/// its arithmetic for every `T: Real`.
pub trait Real:
    Copy
    + Debug
    + Display
    + PartialEq
    + PartialOrd
    + Add<Output = Self>
    + Sub<Output = Self>
    + Mul<Output = Self>
    + Div<Output = Self>
    + Rem<Output = Self>
    + Neg<Output = Self>
    + AddAssign
    + SubAssign
    + MulAssign
    + DivAssign
    + RemAssign
    + num_traits::Num
    + 'static
{
    fn from_i64(v: i64) -> Self;
    fn from_f64(v: f64) -> Self;
    fn to_f64(self) -> f64;
    fn abs(self) -> Self;
    fn sqrt(self) -> Self;
    fn exp(self) -> Self;
    fn ln(self) -> Self;
    /// `ln(1 + self)`, accurate for small `self` where the type can be.
    fn ln_1p(self) -> Self {
        (Self::one() + self).ln()
    }
    /// `e^self - 1`, accurate for small `self` where the type can be.
    fn exp_m1(self) -> Self {
        self.exp() - Self::one()
    }
    fn sin(self) -> Self;
    fn cos(self) -> Self;
    fn tan(self) -> Self;
    fn sinh(self) -> Self;
    fn cosh(self) -> Self;
    fn tanh(self) -> Self;
    fn asin(self) -> Self;
    fn acos(self) -> Self;
    fn atan(self) -> Self;
    fn atan2(self, x: Self) -> Self;
    /// `self ^ n` for an integer power.
    fn powi(self, n: i64) -> Self;
    /// `self ^ p` for a power of the same type.
    fn powf(self, p: Self) -> Self;
    fn min(self, other: Self) -> Self;
    fn max(self, other: Self) -> Self;
    fn floor(self) -> Self;
    fn ceil(self) -> Self;
    fn round(self) -> Self;
    fn signum(self) -> Self;
    /// Whether two values agree: within `atol` for floating point, exactly
    /// for integers.
    fn approx_eq(self, other: Self, atol: f64) -> bool;
    /// Whether this is exactly zero, every part of it (a dual number's
    /// derivative part too, which `==` does not compare): a zero adjoint
    /// that adds nothing (`Adjoint::add_scaled`).
    #[inline]
    fn is_exactly_zero(self) -> bool {
        self == crate::zero()
    }
    fn abs2(self) -> Self {
        self * self
    }
    /// Rounds toward zero (Julia's `div` and `÷` truncate the quotient).
    fn trunc(self) -> Self {
        if self < <Self as num_traits::Zero>::zero() {
            self.ceil()
        } else {
            self.floor()
        }
    }
    fn inv(self) -> Self {
        <Self as num_traits::One>::one() / self
    }
}

macro_rules! float_real {
    ($t:ty) => {
        impl Real for $t {
            fn from_i64(v: i64) -> Self {
                v as $t
            }
            fn from_f64(v: f64) -> Self {
                v as $t
            }
            fn to_f64(self) -> f64 {
                self as f64
            }
            fn abs(self) -> Self {
                <$t>::abs(self)
            }
            fn sqrt(self) -> Self {
                <$t>::sqrt(self)
            }
            fn exp(self) -> Self {
                <$t>::exp(self)
            }
            fn ln(self) -> Self {
                <$t>::ln(self)
            }
            fn ln_1p(self) -> Self {
                <$t>::ln_1p(self)
            }
            fn exp_m1(self) -> Self {
                <$t>::exp_m1(self)
            }
            fn sin(self) -> Self {
                <$t>::sin(self)
            }
            fn cos(self) -> Self {
                <$t>::cos(self)
            }
            fn tan(self) -> Self {
                <$t>::tan(self)
            }
            fn sinh(self) -> Self {
                <$t>::sinh(self)
            }
            fn cosh(self) -> Self {
                <$t>::cosh(self)
            }
            fn tanh(self) -> Self {
                <$t>::tanh(self)
            }
            fn asin(self) -> Self {
                <$t>::asin(self)
            }
            fn acos(self) -> Self {
                <$t>::acos(self)
            }
            fn atan(self) -> Self {
                <$t>::atan(self)
            }
            fn atan2(self, x: Self) -> Self {
                <$t>::atan2(self, x)
            }
            fn powi(self, n: i64) -> Self {
                match i32::try_from(n) {
                    Ok(n) => <$t>::powi(self, n),
                    Err(_) => <$t>::powf(self, n as $t),
                }
            }
            fn powf(self, p: Self) -> Self {
                <$t>::powf(self, p)
            }
            /// Julia's `min`: a NaN if either is one, `-0.0` below `0.0`
            /// (Rust's `min` drops a NaN).
            fn min(self, other: Self) -> Self {
                let below = other < self || (other.is_sign_negative() && !self.is_sign_negative());
                if julia_picks_other(below, self.is_nan(), other.is_nan()) {
                    other
                } else {
                    self
                }
            }
            /// Julia's `max`: a NaN if either is one, `0.0` above `-0.0`.
            fn max(self, other: Self) -> Self {
                let above = other > self || (!other.is_sign_negative() && self.is_sign_negative());
                if julia_picks_other(above, self.is_nan(), other.is_nan()) {
                    other
                } else {
                    self
                }
            }
            fn floor(self) -> Self {
                <$t>::floor(self)
            }
            fn ceil(self) -> Self {
                <$t>::ceil(self)
            }
            /// To the nearest integer, ties to even, as Julia's `round`.
            fn round(self) -> Self {
                <$t>::round_ties_even(self)
            }
            /// Julia's `sign`: a zero (of either sign) and a NaN are
            /// their own sign.
            fn signum(self) -> Self {
                if self == 0.0 {
                    self
                } else {
                    <$t>::signum(self)
                }
            }
            fn approx_eq(self, other: Self, atol: f64) -> bool {
                self == other || ((self - other) as f64).abs() <= atol
            }
        }
    };
}

macro_rules! int_real {
    ($t:ty) => {
        impl Real for $t {
            fn from_i64(v: i64) -> Self {
                v as $t
            }
            fn from_f64(v: f64) -> Self {
                v as $t
            }
            fn to_f64(self) -> f64 {
                self as f64
            }
            fn abs(self) -> Self {
                <$t>::wrapping_abs(self)
            }
            fn sqrt(self) -> Self {
                (self as f64).sqrt() as $t
            }
            fn exp(self) -> Self {
                (self as f64).exp() as $t
            }
            fn ln(self) -> Self {
                (self as f64).ln() as $t
            }
            fn sin(self) -> Self {
                (self as f64).sin() as $t
            }
            fn cos(self) -> Self {
                (self as f64).cos() as $t
            }
            fn tan(self) -> Self {
                (self as f64).tan() as $t
            }
            fn sinh(self) -> Self {
                (self as f64).sinh() as $t
            }
            fn cosh(self) -> Self {
                (self as f64).cosh() as $t
            }
            fn tanh(self) -> Self {
                (self as f64).tanh() as $t
            }
            fn asin(self) -> Self {
                (self as f64).asin() as $t
            }
            fn acos(self) -> Self {
                (self as f64).acos() as $t
            }
            fn atan(self) -> Self {
                (self as f64).atan() as $t
            }
            fn atan2(self, x: Self) -> Self {
                (self as f64).atan2(x as f64) as $t
            }
            fn powi(self, n: i64) -> Self {
                match u32::try_from(n) {
                    Ok(n) => <$t>::wrapping_pow(self, n),
                    Err(_) => (self as f64).powf(n as f64) as $t,
                }
            }
            fn powf(self, p: Self) -> Self {
                Real::powi(self, p as i64)
            }
            fn min(self, other: Self) -> Self {
                Ord::min(self, other)
            }
            fn max(self, other: Self) -> Self {
                Ord::max(self, other)
            }
            fn floor(self) -> Self {
                self
            }
            fn ceil(self) -> Self {
                self
            }
            fn round(self) -> Self {
                self
            }
            fn signum(self) -> Self {
                <$t>::signum(self)
            }
            fn approx_eq(self, other: Self, _atol: f64) -> bool {
                self == other
            }
        }
    };
}

float_real!(f64);
float_real!(f32);
int_real!(i64);
int_real!(i32);
int_real!(i16);
int_real!(i8);
int_real!(isize);

/// Zero of any [`Real`] (the additive identity); generated code writes
/// `nilang_runtime::zero::<T>()` for NiLang's `zero(T)`.
#[inline]
pub fn zero<T: Real>() -> T {
    <T as num_traits::Zero>::zero()
}

/// Whether Julia's `min` or `max` of two floats is the second: the one
/// `beyond` the first (below it, above it), unless the first is a NaN; and
/// a NaN second otherwise.
fn julia_picks_other(beyond: bool, first_nan: bool, other_nan: bool) -> bool {
    if beyond { !first_nan } else { other_nan }
}

/// Julia's `mod` of two [`Real`]s: the remainder `a % b` moved into the
/// divisor's sign by adding `b` where the two signs differ, which is exact
/// (`((a % b) + b) % b` rounds the sum: `mod(0.97, 1.34)` would be
/// `0.9699999999999998`).
#[inline]
pub fn modulo<T: Real>(a: T, b: T) -> T {
    let r = a % b;
    let z = zero::<T>();
    if r != z && (r < z) != (b < z) {
        r + b
    } else {
        r
    }
}

/// Julia's `div` (and `÷`) of two [`Real`]s: the quotient rounded toward
/// zero without an intermediate rounding, computed as Julia computes it,
/// `round((a - rem(a, b)) / b)`. The quotient rounded first is off where it
/// rounds up to an integer: `trunc(1.0 / 0.1)` is 10, `div(1.0, 0.1)` is 9.
#[inline]
pub fn div<T: Real>(a: T, b: T) -> T {
    ((a - a % b) / b).round()
}

/// One of any [`Real`] (the multiplicative identity).
#[inline]
pub fn one<T: Real>() -> T {
    <T as num_traits::One>::one()
}

/// Dual numbers (`num_dual::Dual64`: a value and one directional
/// derivative) are `Real`, so generated code, gradients included, runs on
/// them: the gradient program on duals is forward-over-reverse, one column
/// of a Hessian per run. Comparisons, `min`, `max` and rounding look at the
/// value only; the tolerance check compares both parts.
impl Real for num_dual::Dual64 {
    fn is_exactly_zero(self) -> bool {
        self.re == 0.0 && self.eps == 0.0
    }
    fn from_i64(v: i64) -> Self {
        num_dual::Dual64::from(v as f64)
    }
    fn from_f64(v: f64) -> Self {
        num_dual::Dual64::from(v)
    }
    fn to_f64(self) -> f64 {
        self.re
    }
    fn abs(self) -> Self {
        if self.re < 0.0 { -self } else { self }
    }
    fn sqrt(self) -> Self {
        num_dual::DualNum::sqrt(&self)
    }
    fn exp(self) -> Self {
        num_dual::DualNum::exp(&self)
    }
    fn ln(self) -> Self {
        num_dual::DualNum::ln(&self)
    }
    fn ln_1p(self) -> Self {
        num_dual::DualNum::ln_1p(&self)
    }
    fn exp_m1(self) -> Self {
        num_dual::DualNum::exp_m1(&self)
    }
    fn sin(self) -> Self {
        num_dual::DualNum::sin(&self)
    }
    fn cos(self) -> Self {
        num_dual::DualNum::cos(&self)
    }
    fn tan(self) -> Self {
        num_dual::DualNum::tan(&self)
    }
    fn sinh(self) -> Self {
        num_dual::DualNum::sinh(&self)
    }
    fn cosh(self) -> Self {
        num_dual::DualNum::cosh(&self)
    }
    fn tanh(self) -> Self {
        num_dual::DualNum::tanh(&self)
    }
    fn asin(self) -> Self {
        num_dual::DualNum::asin(&self)
    }
    fn acos(self) -> Self {
        num_dual::DualNum::acos(&self)
    }
    fn atan(self) -> Self {
        num_dual::DualNum::atan(&self)
    }
    fn atan2(self, x: Self) -> Self {
        num_dual::DualNum::atan2(&self, x)
    }
    fn powi(self, n: i64) -> Self {
        match i32::try_from(n) {
            Ok(n) => num_dual::DualNum::powi(&self, n),
            Err(_) => num_dual::DualNum::powf(&self, n as f64),
        }
    }
    fn powf(self, p: Self) -> Self {
        if p.eps == 0.0 {
            num_dual::DualNum::powf(&self, p.re)
        } else {
            num_dual::DualNum::powd(&self, p)
        }
    }
    fn min(self, other: Self) -> Self {
        if other.re < self.re { other } else { self }
    }
    fn max(self, other: Self) -> Self {
        if other.re > self.re { other } else { self }
    }
    fn floor(self) -> Self {
        Self::from(self.re.floor())
    }
    fn ceil(self) -> Self {
        Self::from(self.re.ceil())
    }
    fn round(self) -> Self {
        Self::from(self.re.round_ties_even())
    }
    fn signum(self) -> Self {
        Self::from(if self.re == 0.0 {
            0.0
        } else {
            self.re.signum()
        })
    }
    fn approx_eq(self, other: Self, atol: f64) -> bool {
        self.re.approx_eq(other.re, atol) && self.eps.approx_eq(other.eps, atol)
    }
}

#[cfg(test)]
mod tests {
    use super::{Real, div, modulo};

    #[test]
    fn min_and_max_keep_a_nan_and_order_signed_zeros_as_julia_does() {
        assert!(Real::min(f64::NAN, 1.0).is_nan());
        assert!(Real::min(1.0, f64::NAN).is_nan());
        assert!(Real::max(f64::NAN, 1.0_f32 as f64).is_nan());
        assert!(Real::max(1.0_f32, f32::NAN).is_nan());
        assert!(Real::min(0.0_f64, -0.0).is_sign_negative());
        assert!(Real::min(-0.0_f64, 0.0).is_sign_negative());
        assert!(Real::max(-0.0_f64, 0.0).is_sign_positive());
        assert!(Real::max(0.0_f64, -0.0).is_sign_positive());
        assert_eq!(Real::min(2.0_f64, -3.0), -3.0);
        assert_eq!(Real::max(2.0_f64, -3.0), 2.0);
        assert_eq!(Real::max(-1.0_f64, -0.5), -0.5);
    }

    #[test]
    fn round_takes_ties_to_even_as_julia_does() {
        assert_eq!(Real::round(2.5_f64), 2.0);
        assert_eq!(Real::round(3.5_f64), 4.0);
        assert_eq!(Real::round(-0.5_f64), -0.0);
        assert!(Real::signum(-0.0_f64).is_sign_negative());
        assert!(Real::signum(f64::NAN).is_nan());
        assert_eq!(Real::round(2.5_f32), 2.0);
        assert_eq!(Real::round(num_dual::Dual64::from(0.5)).re, 0.0);
    }

    #[test]
    fn div_rounds_the_exact_quotient_toward_zero() {
        assert_eq!(div(1.0, 0.1), 9.0);
        assert_eq!(div(7.0, 2.0), 3.0);
        assert_eq!(div(-7.0, 2.0), -3.0);
        assert_eq!(div(7.5_f32, -2.5), -3.0);
        assert_eq!(div(-7_i64, 2), -3);
    }

    #[test]
    fn modulo_has_the_divisors_sign_and_is_exact() {
        assert_eq!(modulo(0.97, 0.6 + 0.37 * 2.0), 0.97);
        assert_eq!(modulo(-1.0, 3.0), 2.0);
        assert_eq!(modulo(1.0, -3.0), -2.0);
        assert_eq!(modulo(6.0, 3.0), 0.0);
        assert_eq!(modulo(-7_i64, 3), 2);
    }

    #[test]
    fn floats_compare_within_the_tolerance() {
        assert!(1.0f64.approx_eq(1.0 + 1e-9, 1e-8));
        assert!(!1.0f64.approx_eq(1.0 + 1e-7, 1e-8));
        assert!(f64::INFINITY.approx_eq(f64::INFINITY, 1e-8));
        assert!(!f64::NAN.approx_eq(f64::NAN, 1e-8));
    }

    #[test]
    fn integers_compare_exactly_and_power() {
        assert!(!3i64.approx_eq(4, 10.0));
        assert_eq!(Real::powi(3i64, 4), 81);
        assert_eq!(Real::powi(2.0f64, -1), 0.5);
        assert_eq!(Real::powi(2.0f32, 3), 8.0);
    }
}

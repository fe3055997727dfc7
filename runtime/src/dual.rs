//! Forward-mode dual numbers over any [`Real`], nesting to any order.
//!
//! See [`Dual`].

use std::cmp::Ordering;
use std::fmt::{self, Display};
use std::ops::{
    Add, AddAssign, Div, DivAssign, Mul, MulAssign, Neg, Rem, RemAssign, Sub, SubAssign,
};

use num_traits::{Num, One, Zero};

use crate::Real;

/// A dual number `re + eps ε` (with `ε² = 0`): a value and its derivative
/// along one direction, for forward-mode differentiation of generic `.nil`
/// functions (`where T: Real`).
///
/// `Dual<T>` is itself a [`Real`] for every `T: Real`, so it nests:
/// `Dual<Dual<f64>>` carries second derivatives (Hessian-vector products),
/// `Dual<Dual<Dual<f64>>>` third ones, and `Dual<f32>` works as well. Seed
/// the variable with `eps = 1` ([`Dual::variable`]); for a second
/// derivative seed both levels:
///
/// ```
/// use nilang_runtime::{Dual, Real};
///
/// let x = Dual::new(Dual::new(0.5, 1.0), Dual::new(1.0, 0.0));
/// let y = x.sin();
/// assert_eq!(y.re.re, 0.5f64.sin()); // value
/// assert_eq!(y.re.eps, 0.5f64.cos()); // first derivative
/// assert_eq!(y.eps.eps, -0.5f64.sin()); // second derivative
/// ```
///
/// Comparisons (`==`, `<`, ...), `min`, `max`, `abs` and the rounding
/// functions look at the value `re` only, as branches in generated code
/// should; `min` and `max` return the whole chosen dual, and `floor`,
/// `ceil`, `round` and `signum` have zero derivative. [`Real::approx_eq`]
/// (and so the run-time checks, [`CheckEq`](crate::CheckEq)) compares both
/// parts. A function of a dual whose `eps` is exactly zero (a constant)
/// has `eps` exactly zero, even where the derivative is infinite (`sqrt`
/// of `0`).
#[derive(Clone, Copy, Debug, Default)]
pub struct Dual<T> {
    /// The value.
    pub re: T,
    /// The derivative along the seeded direction.
    pub eps: T,
}

impl<T: Real> Dual<T> {
    /// The dual `re + eps ε`.
    #[inline]
    pub fn new(re: T, eps: T) -> Self {
        Dual { re, eps }
    }

    /// A constant: `re` with zero derivative.
    #[inline]
    pub fn constant(re: T) -> Self {
        Dual { re, eps: T::zero() }
    }

    /// The variable differentiated by: `re` with derivative one.
    #[inline]
    pub fn variable(re: T) -> Self {
        Dual { re, eps: T::one() }
    }

    /// `f(self)` from `f(re)` and `f'(re)`: the chain rule, except that a
    /// constant stays a constant (no `0 * inf`).
    #[inline]
    fn chain(self, value: T, derivative: T) -> Self {
        Dual {
            re: value,
            eps: if is_exact_zero(self.eps) {
                T::zero()
            } else {
                self.eps * derivative
            },
        }
    }
}

/// Whether every part of `x` is zero (`is_zero` looks at the value only).
#[inline]
fn is_exact_zero<T: Real>(x: T) -> bool {
    x.approx_eq(T::zero(), 0.0)
}

impl<T: Real> From<T> for Dual<T> {
    /// A constant.
    #[inline]
    fn from(re: T) -> Self {
        Dual::constant(re)
    }
}

/// `1.5 + 0.25ε`; a nested dual in parentheses, `(1.5 + 1ε) + (1 + 0ε)ε`.
/// A precision (`{:.3}`) applies to every number.
impl<T: Real> Display for Dual<T> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let precision = f.precision();
        let part = |x: T| {
            let s = match precision {
                Some(p) => format!("{x:.p$}"),
                None => format!("{x}"),
            };
            if s.contains('ε') {
                format!("({s})")
            } else {
                s
            }
        };
        write!(f, "{} + {}ε", part(self.re), part(self.eps))
    }
}

/// By value only.
impl<T: Real> PartialEq for Dual<T> {
    #[inline]
    fn eq(&self, other: &Self) -> bool {
        self.re == other.re
    }
}

/// By value only.
impl<T: Real> PartialOrd for Dual<T> {
    #[inline]
    fn partial_cmp(&self, other: &Self) -> Option<Ordering> {
        self.re.partial_cmp(&other.re)
    }
}

impl<T: Real> Add for Dual<T> {
    type Output = Self;
    #[inline]
    fn add(self, o: Self) -> Self {
        Dual::new(self.re + o.re, self.eps + o.eps)
    }
}

impl<T: Real> Sub for Dual<T> {
    type Output = Self;
    #[inline]
    fn sub(self, o: Self) -> Self {
        Dual::new(self.re - o.re, self.eps - o.eps)
    }
}

impl<T: Real> Mul for Dual<T> {
    type Output = Self;
    #[inline]
    fn mul(self, o: Self) -> Self {
        Dual::new(self.re * o.re, self.re * o.eps + self.eps * o.re)
    }
}

impl<T: Real> Div for Dual<T> {
    type Output = Self;
    #[inline]
    fn div(self, o: Self) -> Self {
        let re = self.re / o.re;
        Dual::new(re, (self.eps - re * o.eps) / o.re)
    }
}

/// `re % o.re` (the sign of `re`, as Rust's `%`), with derivative
/// `eps - o.eps * trunc(re / o.re)`.
impl<T: Real> Rem for Dual<T> {
    type Output = Self;
    #[inline]
    fn rem(self, o: Self) -> Self {
        let r = self.re % o.re;
        // The truncated quotient, an integer: `round` removes the rounding
        // error of the division and, on nested duals, every derivative.
        let q = Real::round((self.re - r) / o.re);
        Dual::new(r, self.eps - o.eps * q)
    }
}

impl<T: Real> Neg for Dual<T> {
    type Output = Self;
    #[inline]
    fn neg(self) -> Self {
        Dual::new(-self.re, -self.eps)
    }
}

macro_rules! assign_op {
    ($trait:ident, $method:ident, $op:tt) => {
        impl<T: Real> $trait for Dual<T> {
            #[inline]
            fn $method(&mut self, o: Self) {
                *self = *self $op o;
            }
        }
    };
}

assign_op!(AddAssign, add_assign, +);
assign_op!(SubAssign, sub_assign, -);
assign_op!(MulAssign, mul_assign, *);
assign_op!(DivAssign, div_assign, /);
assign_op!(RemAssign, rem_assign, %);

/// `is_zero` looks at the value only, as `==` does.
impl<T: Real> Zero for Dual<T> {
    #[inline]
    fn zero() -> Self {
        Dual::constant(T::zero())
    }
    #[inline]
    fn is_zero(&self) -> bool {
        self.re.is_zero()
    }
}

impl<T: Real> One for Dual<T> {
    #[inline]
    fn one() -> Self {
        Dual::constant(T::one())
    }
}

/// Parses a constant.
impl<T: Real> Num for Dual<T> {
    type FromStrRadixErr = T::FromStrRadixErr;
    fn from_str_radix(s: &str, radix: u32) -> Result<Self, Self::FromStrRadixErr> {
        T::from_str_radix(s, radix).map(Dual::constant)
    }
}

impl<T: Real> Real for Dual<T> {
    #[inline]
    fn is_exactly_zero(self) -> bool {
        self.re.is_exactly_zero() && self.eps.is_exactly_zero()
    }

    #[inline]
    fn from_i64(v: i64) -> Self {
        Dual::constant(T::from_i64(v))
    }
    #[inline]
    fn from_f64(v: f64) -> Self {
        Dual::constant(T::from_f64(v))
    }
    #[inline]
    fn to_f64(self) -> f64 {
        self.re.to_f64()
    }
    #[inline]
    fn abs(self) -> Self {
        if self.re < T::zero() { -self } else { self }
    }
    #[inline]
    fn sqrt(self) -> Self {
        let s = self.re.sqrt();
        self.chain(s, (s + s).inv())
    }
    #[inline]
    fn exp(self) -> Self {
        let e = self.re.exp();
        self.chain(e, e)
    }
    #[inline]
    fn ln(self) -> Self {
        self.chain(self.re.ln(), self.re.inv())
    }
    #[inline]
    fn ln_1p(self) -> Self {
        self.chain(self.re.ln_1p(), (T::one() + self.re).inv())
    }
    #[inline]
    fn exp_m1(self) -> Self {
        self.chain(self.re.exp_m1(), self.re.exp())
    }
    #[inline]
    fn sin(self) -> Self {
        self.chain(self.re.sin(), self.re.cos())
    }
    #[inline]
    fn cos(self) -> Self {
        self.chain(self.re.cos(), -self.re.sin())
    }
    #[inline]
    fn tan(self) -> Self {
        let t = self.re.tan();
        self.chain(t, T::one() + t * t)
    }
    #[inline]
    fn sinh(self) -> Self {
        self.chain(self.re.sinh(), self.re.cosh())
    }
    #[inline]
    fn cosh(self) -> Self {
        self.chain(self.re.cosh(), self.re.sinh())
    }
    #[inline]
    fn tanh(self) -> Self {
        let t = self.re.tanh();
        self.chain(t, T::one() - t * t)
    }
    #[inline]
    fn asin(self) -> Self {
        let d = (T::one() - self.re * self.re).sqrt().inv();
        self.chain(self.re.asin(), d)
    }
    #[inline]
    fn acos(self) -> Self {
        let d = (T::one() - self.re * self.re).sqrt().inv();
        self.chain(self.re.acos(), -d)
    }
    #[inline]
    fn atan(self) -> Self {
        self.chain(self.re.atan(), (T::one() + self.re * self.re).inv())
    }
    /// `atan2(y, x)` with `y = self`: derivative
    /// `(x y' - y x') / (x² + y²)`, from both arguments.
    #[inline]
    fn atan2(self, x: Self) -> Self {
        let re = self.re.atan2(x.re);
        if is_exact_zero(self.eps) && is_exact_zero(x.eps) {
            return Dual::constant(re);
        }
        let r2 = x.re * x.re + self.re * self.re;
        Dual::new(re, (x.re * self.eps - self.re * x.eps) / r2)
    }
    #[inline]
    fn powi(self, n: i64) -> Self {
        if n == 0 {
            return Dual::one();
        }
        let below = match n.checked_sub(1) {
            Some(m) => self.re.powi(m),
            None => self.re.powi(n) / self.re,
        };
        self.chain(self.re.powi(n), T::from_i64(n) * below)
    }
    /// `self ^ p`. With a constant `p` the derivative is `p x^(p-1) x'`
    /// only (no `ln x`, so a base of `0` or below is fine wherever the value
    /// is); `x ^ 0` is `1` with zero derivative.
    #[inline]
    fn powf(self, p: Self) -> Self {
        if is_exact_zero(p.eps) {
            if is_exact_zero(p.re) {
                return Dual::one();
            }
            let d = p.re * self.re.powf(p.re - T::one());
            return self.chain(self.re.powf(p.re), d);
        }
        let value = self.re.powf(p.re);
        let mut eps = T::zero();
        if !is_exact_zero(self.eps) {
            eps += self.eps * p.re * self.re.powf(p.re - T::one());
        }
        // d/dp x^p = x^p ln x, which is 0 where x^p is (no `0 * -inf`).
        if !is_exact_zero(value) {
            eps += p.eps * value * self.re.ln();
        }
        Dual::new(value, eps)
    }
    #[inline]
    fn min(self, other: Self) -> Self {
        if other.re < self.re { other } else { self }
    }
    #[inline]
    fn max(self, other: Self) -> Self {
        if other.re > self.re { other } else { self }
    }
    #[inline]
    fn floor(self) -> Self {
        Dual::constant(self.re.floor())
    }
    #[inline]
    fn ceil(self) -> Self {
        Dual::constant(self.re.ceil())
    }
    #[inline]
    fn round(self) -> Self {
        Dual::constant(self.re.round())
    }
    #[inline]
    fn signum(self) -> Self {
        Dual::constant(self.re.signum())
    }
    #[inline]
    fn approx_eq(self, other: Self, atol: f64) -> bool {
        self.re.approx_eq(other.re, atol) && self.eps.approx_eq(other.eps, atol)
    }
    #[inline]
    fn abs2(self) -> Self {
        Dual::new(self.re * self.re, (self.re + self.re) * self.eps)
    }
    #[inline]
    fn inv(self) -> Self {
        let r = self.re.inv();
        Dual::new(r, -(self.eps * r * r))
    }
}

//! Adjoints: what the reverse pass of generated code accumulates.

use crate::Real;

/// The adjoint of a scalar of type `T`: `T` itself for a gradient, or
/// `[T; N]` for `N` adjoints carried through one reverse pass (the rows of
/// a Jacobian with `N` outputs, in one sweep).
pub trait Adjoint<T: Real>: Copy {
    fn zero() -> Self;
    /// `self += g * s`.
    fn add_scaled(&mut self, g: &Self, s: T);
    /// `self *= s`.
    fn scale(&mut self, s: T);
}

impl<T: Real> Adjoint<T> for T {
    #[inline]
    fn zero() -> Self {
        crate::zero()
    }
    #[inline]
    fn add_scaled(&mut self, g: &Self, s: T) {
        *self += *g * s;
    }
    #[inline]
    fn scale(&mut self, s: T) {
        *self *= s;
    }
}

impl<T: Real, const N: usize> Adjoint<T> for [T; N] {
    #[inline]
    fn zero() -> Self {
        [crate::zero(); N]
    }
    #[inline]
    fn add_scaled(&mut self, g: &Self, s: T) {
        for (a, b) in self.iter_mut().zip(g) {
            *a += *b * s;
        }
    }
    #[inline]
    fn scale(&mut self, s: T) {
        for a in self.iter_mut() {
            *a *= s;
        }
    }
}

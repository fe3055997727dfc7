//! Adjoints: what the reverse pass of generated code accumulates.

use crate::Real;

/// The adjoint of a scalar of type `T`: `T` itself for a gradient, or
/// `[T; N]` for `N` adjoints carried through one reverse pass (the rows of
/// a Jacobian with `N` outputs, in one sweep).
pub trait Adjoint<T: Real>: Copy + 'static {
    fn zero() -> Self;
    /// `self += g * s`.
    fn add_scaled(&mut self, g: &Self, s: T);
    /// `self *= s`.
    fn scale(&mut self, s: T);
    /// The number of adjoints carried (sweeps done at once).
    const LANES: usize;
    /// Adjoint number `l` (`l < LANES`).
    fn lane(&self, l: usize) -> T;
    /// Adjoint number `l`, to change it.
    fn lane_mut(&mut self, l: usize) -> &mut T;
}

impl<T: Real> Adjoint<T> for T {
    #[inline]
    fn zero() -> Self {
        crate::zero()
    }
    /// A zero cotangent `g` adds exactly nothing, also where the local
    /// derivative `s` is infinite or NaN (no `0 · inf`).
    #[inline]
    fn add_scaled(&mut self, g: &Self, s: T) {
        if !g.is_exactly_zero() {
            *self += *g * s;
        }
    }
    #[inline]
    fn scale(&mut self, s: T) {
        // A zero adjoint stays zero whatever the factor (`DIVINT(a, 0)`'s
        // `1/0`, `ROT` by an infinite angle): no `0 · inf`.
        if !self.is_exactly_zero() {
            *self *= s;
        }
    }
    const LANES: usize = 1;
    #[inline]
    fn lane(&self, _l: usize) -> T {
        *self
    }
    #[inline]
    fn lane_mut(&mut self, _l: usize) -> &mut T {
        self
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
            a.add_scaled(b, s);
        }
    }
    #[inline]
    fn scale(&mut self, s: T) {
        for a in self.iter_mut() {
            a.scale(s);
        }
    }
    const LANES: usize = N;
    #[inline]
    fn lane(&self, l: usize) -> T {
        self[l]
    }
    #[inline]
    fn lane_mut(&mut self, l: usize) -> &mut T {
        &mut self[l]
    }
}

/// Adjoint updates through complex numbers.
///
/// A statement's right-hand side `e` changes with one of the places it reads,
/// `z`, as `de = a dz + b conj(dz)` (its Wirtinger derivatives: `b` is zero
/// for holomorphic functions, `a = b = 1/2` for `real(z)`). With the
/// convention that the adjoint of a complex value is `dL/dre + i dL/dim`,
/// and `g` the adjoint of what the statement wrote, `z` receives
/// `conj(a) g + conj(g) b`; a real `z` receives the real part of
/// `conj(g) (a + b)`. Each function below is one pairing of a real or complex
/// target with a real or complex place read.
/// `m * q` for a cotangent `m` met inside an expression and a local
/// derivative `q`, but exactly `m` (a zero) where `m` is zero: a zero
/// cotangent contributes nothing even where `q` is infinite or NaN (`0 ·
/// inf`), as [`Adjoint::add_scaled`] does for the statement's own adjoint.
#[inline(always)]
pub fn times<T: Real>(m: T, q: T) -> T {
    if m.is_exactly_zero() { m } else { m * q }
}

/// [`times`] for complex cotangents (the Wirtinger rules).
#[inline(always)]
pub fn ctimes<T: Real>(m: crate::Complex<T>, q: crate::Complex<T>) -> crate::Complex<T> {
    if m.re.is_exactly_zero() && m.im.is_exactly_zero() {
        m
    } else {
        m * q
    }
}

pub mod wirtinger {
    use super::Adjoint;
    use crate::{Complex, Real};

    /// Complex target, complex place read.
    #[inline]
    pub fn complex_complex<T: Real, G: Adjoint<T>>(
        bar: &mut Complex<G>,
        g: &Complex<G>,
        a: Complex<T>,
        b: Complex<T>,
    ) {
        // conj(a) g + conj(g) b, component by component, with g's parts
        // scaled by scalars so that G may hold several adjoints.
        bar.re.add_scaled(&g.re, a.re + b.re);
        bar.re.add_scaled(&g.im, a.im + b.im);
        bar.im.add_scaled(&g.re, b.im - a.im);
        bar.im.add_scaled(&g.im, a.re - b.re);
    }

    /// Real target, complex place read.
    #[inline]
    pub fn real_complex<T: Real, G: Adjoint<T>>(
        bar: &mut Complex<G>,
        g: &G,
        a: Complex<T>,
        b: Complex<T>,
    ) {
        bar.re.add_scaled(g, a.re + b.re);
        bar.im.add_scaled(g, b.im - a.im);
    }

    /// Complex target, real place read.
    #[inline]
    pub fn complex_real<T: Real, G: Adjoint<T>>(
        bar: &mut G,
        g: &Complex<G>,
        a: Complex<T>,
        b: Complex<T>,
    ) {
        bar.add_scaled(&g.re, a.re + b.re);
        bar.add_scaled(&g.im, a.im + b.im);
    }

    /// Real target, real place read.
    #[inline]
    pub fn real_real<T: Real, G: Adjoint<T>>(bar: &mut G, g: &G, a: Complex<T>, b: Complex<T>) {
        bar.add_scaled(g, a.re + b.re);
    }

    #[cfg(test)]
    mod tests {
        use super::*;

        /// `y += log(x)`: a = 1/x, b = 0. With ȳ = 3+3i at x = 2-i the
        /// adjoint of x is conj(1/x) ȳ = 1.8+0.6i.
        #[test]
        fn holomorphic_log() {
            let x = Complex::new(2.0, -1.0);
            let a = crate::complex::inv(x);
            let mut bar = Complex::new(0.0, 0.0);
            complex_complex(&mut bar, &Complex::new(3.0, 3.0), a, Complex::new(0.0, 0.0));
            assert!((bar.re - 1.8).abs() < 1e-14 && (bar.im - 0.6).abs() < 1e-14);
        }

        /// `r += abs2(z)`: a = conj(z), b = z, so z̄ = 2 z r̄.
        #[test]
        fn abs2_of_complex() {
            let z = Complex::new(0.5, -2.0);
            let mut bar = Complex::new(0.0, 0.0);
            real_complex(&mut bar, &3.0, z.conj(), z);
            assert_eq!(bar, Complex::new(3.0, -12.0));
        }
    }
}

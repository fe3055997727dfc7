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
    /// The same adjoints in the scalar `S`: what a reverse pass in `T`
    /// hands a callee whose reverse pass is in another precision (an `f64`
    /// function calling an `f32` one; see [`Precision`]).
    type In<S: Real>: Adjoint<S>;
    /// These adjoints in `S`, lane by lane.
    fn to_precision<S: Real>(&self) -> Self::In<S>;
    /// Adjoints in `S` back in `T`, lane by lane.
    fn from_precision<S: Real>(a: &Self::In<S>) -> Self;
}

/// One lane from one precision to another. Through `f64`, which holds an
/// `f32` exactly, so that `f32 -> f64 -> f32` gives the value back.
#[inline]
fn convert<A: Real, B: Real>(a: A) -> B {
    B::from_f64(a.to_f64())
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
    type In<S: Real> = S;
    #[inline]
    fn to_precision<S: Real>(&self) -> S {
        convert(*self)
    }
    #[inline]
    fn from_precision<S: Real>(a: &S) -> Self {
        convert(*a)
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
    type In<S: Real> = [S; N];
    #[inline]
    fn to_precision<S: Real>(&self) -> [S; N] {
        self.map(convert)
    }
    #[inline]
    fn from_precision<S: Real>(a: &[S; N]) -> Self {
        a.map(convert)
    }
}

/// A caller's adjoint lent to a call whose reverse pass is in the scalar
/// `S` (an `f64` gradient calling a function whose gradient is in `f32`):
/// it holds the adjoint converted to `S` for the call, and when dropped
/// writes what the callee left back into the caller's place, converted
/// back. The callee works in its own precision, as it would called alone.
pub struct Precision<'a, T: Real, S: Real, G: Adjoint<T>> {
    place: &'a mut G,
    value: G::In<S>,
    _scalar: core::marker::PhantomData<T>,
}

impl<'a, T: Real, S: Real, G: Adjoint<T>> Precision<'a, T, S, G> {
    #[inline]
    pub fn new(place: &'a mut G) -> Self {
        let value = place.to_precision::<S>();
        Precision {
            place,
            value,
            _scalar: core::marker::PhantomData,
        }
    }
}

impl<T: Real, S: Real, G: Adjoint<T>> core::ops::Deref for Precision<'_, T, S, G> {
    type Target = G::In<S>;
    #[inline]
    fn deref(&self) -> &G::In<S> {
        &self.value
    }
}

impl<T: Real, S: Real, G: Adjoint<T>> core::ops::DerefMut for Precision<'_, T, S, G> {
    #[inline]
    fn deref_mut(&mut self) -> &mut G::In<S> {
        &mut self.value
    }
}

impl<T: Real, S: Real, G: Adjoint<T>> Drop for Precision<'_, T, S, G> {
    #[inline]
    fn drop(&mut self) {
        *self.place = G::from_precision::<S>(&self.value);
    }
}

/// [`Precision`] for the adjoints of an array argument.
pub struct Precisions<'a, T: Real, S: Real, G: Adjoint<T>> {
    place: &'a mut [G],
    values: Vec<G::In<S>>,
    _scalar: core::marker::PhantomData<T>,
}

impl<'a, T: Real, S: Real, G: Adjoint<T>> Precisions<'a, T, S, G> {
    pub fn new(place: &'a mut [G]) -> Self {
        let values = place.iter().map(|g| g.to_precision::<S>()).collect();
        Precisions {
            place,
            values,
            _scalar: core::marker::PhantomData,
        }
    }
}

impl<T: Real, S: Real, G: Adjoint<T>> core::ops::Deref for Precisions<'_, T, S, G> {
    type Target = [G::In<S>];
    #[inline]
    fn deref(&self) -> &[G::In<S>] {
        &self.values
    }
}

impl<T: Real, S: Real, G: Adjoint<T>> core::ops::DerefMut for Precisions<'_, T, S, G> {
    #[inline]
    fn deref_mut(&mut self) -> &mut [G::In<S>] {
        &mut self.values
    }
}

impl<T: Real, S: Real, G: Adjoint<T>> Drop for Precisions<'_, T, S, G> {
    fn drop(&mut self) {
        for (g, v) in self.place.iter_mut().zip(&self.values) {
            *g = G::from_precision::<S>(v);
        }
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

#[cfg(test)]
mod tests {
    use super::*;

    /// An `f64` adjoint lent to an `f32` reverse pass comes back with what
    /// the callee added, in `f64`; an `f32` one lent to an `f64` pass
    /// comes back rounded to `f32`.
    #[test]
    fn a_lent_adjoint_comes_back_converted() {
        let mut bar = 0.1f64;
        {
            let mut lent = Precision::<f64, f32, _>::new(&mut bar);
            assert_eq!(*lent, 0.1f32);
            lent.add_scaled(&1.0f32, 2.0f32);
        }
        assert_eq!(bar, (0.1f32 + 2.0f32) as f64);
        let mut lanes = [1.0f32, 2.0f32];
        {
            let mut lent = Precision::<f32, f64, _>::new(&mut lanes);
            lent.scale(1.0 / 3.0);
        }
        assert_eq!(lanes, [(1.0f64 / 3.0) as f32, (2.0f64 / 3.0) as f32]);
        let mut bars = vec![0.5f64, 0.25];
        {
            let mut lent = Precisions::<f64, f32, _>::new(&mut bars[..]);
            lent[1] += 1.0f32;
        }
        assert_eq!(bars, [0.5, 1.25]);
    }
}

//! Complex functions for `Complex<T>` with `T: Real`.
//!
//! `num_complex` gives the arithmetic for every `T: Num`, but its elementary
//! functions (`exp`, `ln`, `norm`, ...) need `num_traits::Float`, which
//! integer and (later) fixed-point scalars do not have. These are the same
//! formulas written against [`Real`], so generated code can call them for
//! any scalar a `.nil` function is generic over.

use crate::Real;
pub use num_complex::Complex;

/// `|z|`, computed without overflow for large parts.
#[inline]
pub fn abs<T: Real>(z: Complex<T>) -> T {
    let (a, b) = (z.re.abs(), z.im.abs());
    let (big, small) = if a >= b { (a, b) } else { (b, a) };
    if big == crate::zero() {
        return big;
    }
    let r = small / big;
    big * (crate::one::<T>() + r * r).sqrt()
}

/// `|z|^2`.
#[inline]
pub fn abs2<T: Real>(z: Complex<T>) -> T {
    z.re * z.re + z.im * z.im
}

/// The argument of `z`, in (-π, π].
#[inline]
pub fn angle<T: Real>(z: Complex<T>) -> T {
    z.im.atan2(z.re)
}

#[inline]
pub fn conj<T: Real>(z: Complex<T>) -> Complex<T> {
    Complex::new(z.re, -z.im)
}

#[inline]
pub fn exp<T: Real>(z: Complex<T>) -> Complex<T> {
    let r = z.re.exp();
    Complex::new(r * z.im.cos(), r * z.im.sin())
}

/// The principal branch of the logarithm: `ln|z| + i arg z`.
#[inline]
pub fn ln<T: Real>(z: Complex<T>) -> Complex<T> {
    Complex::new(abs(z).ln(), angle(z))
}

/// The principal square root (non-negative real part). On the negative
/// real axis the result is `+i sqrt|z|` whatever the sign of a zero
/// imaginary part (`Real` has no signed zero for integers).
#[inline]
pub fn sqrt<T: Real>(z: Complex<T>) -> Complex<T> {
    let two = crate::one::<T>() + crate::one::<T>();
    let r = abs(z);
    let re = ((r + z.re) / two).sqrt();
    let im = ((r - z.re) / two).sqrt();
    Complex::new(re, if z.im < crate::zero() { -im } else { im })
}

#[inline]
pub fn sin<T: Real>(z: Complex<T>) -> Complex<T> {
    Complex::new(z.re.sin() * z.im.cosh(), z.re.cos() * z.im.sinh())
}

#[inline]
pub fn cos<T: Real>(z: Complex<T>) -> Complex<T> {
    Complex::new(z.re.cos() * z.im.cosh(), -(z.re.sin() * z.im.sinh()))
}

#[inline]
pub fn inv<T: Real>(z: Complex<T>) -> Complex<T> {
    let d = abs2(z);
    Complex::new(z.re / d, -z.im / d)
}

/// `z^n` for an integer `n`, by repeated squaring.
pub fn powi<T: Real>(z: Complex<T>, n: i64) -> Complex<T> {
    let mut base = if n < 0 { inv(z) } else { z };
    let mut n = n.unsigned_abs();
    let mut acc = Complex::new(crate::one::<T>(), crate::zero());
    while n > 0 {
        if n & 1 == 1 {
            acc *= base;
        }
        base *= base;
        n >>= 1;
    }
    acc
}

/// `z^p` for a complex power, `exp(p ln z)`; `0^p` is 0.
pub fn powc<T: Real>(z: Complex<T>, p: Complex<T>) -> Complex<T> {
    if z.re == crate::zero() && z.im == crate::zero() {
        return z;
    }
    exp(p * ln(z))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn close(a: Complex<f64>, b: Complex<f64>) -> bool {
        (a - b).norm() < 1e-12
    }

    #[test]
    fn agrees_with_num_complex_float_functions() {
        for &(re, im) in &[
            (2.0, -1.0),
            (-0.5, 0.25),
            (3.0, 4.0),
            (-2.0, 0.0),
            (1e200, 1e200),
        ] {
            let z = Complex::new(re, im);
            let scale = z.norm().max(1.0);
            assert!((abs(z) - z.norm()).abs() <= 1e-15 * scale, "{z}");
            assert!((angle(z) - z.arg()).abs() < 1e-15, "{z}");
            if z.norm() < 1e10 {
                assert!(close(exp(z), z.exp()), "{z}");
                assert!(close(ln(z), z.ln()), "{z}");
                assert!(close(sqrt(z), z.sqrt()), "{z}");
                assert!(close(sin(z), z.sin()), "{z}");
                assert!(close(cos(z), z.cos()), "{z}");
                assert!(close(inv(z), z.inv()), "{z}");
                assert!(close(powi(z, 3), z.powi(3)), "{z}");
                assert!(close(powi(z, -2), z.powi(-2)), "{z}");
                let p = Complex::new(0.5, -1.5);
                assert!(close(powc(z, p), z.powc(p)), "{z}");
            }
        }
    }

    #[test]
    fn the_paper_complex_log_value() {
        // log(2 - i) = ln(sqrt 5) - i atan(1/2)
        let l = ln(Complex::new(2.0, -1.0));
        assert!((l.re - 5f64.sqrt().ln()).abs() < 1e-15);
        assert!((l.im + 0.5f64.atan()).abs() < 1e-15);
    }
}

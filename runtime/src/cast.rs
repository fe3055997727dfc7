//! The numeric conversions of typecasts `(T1 => T2)(x)`.
//!
//! A typecast is reversible only when it loses nothing: `(f64 => i64)(x)`
//! with `x = 2.0` gives `2`, and `(i64 => f64)(x)` gives `2.0` back; with
//! `x = 2.5` there is no integer to go to. With checks on, generated code
//! calls [`Cast::cast_exact`] and reports a lossy cast as a failed check
//! ([`Check::Cast`](crate::Check::Cast)) naming the `.nil` line and the
//! value. With checks off it calls [`Cast::cast_as`], Rust's `as`: floats
//! to integers truncate toward zero and saturate, integers wrap, `f64` to
//! `f32` rounds, the imaginary part of a complex number is dropped. Such a
//! cast is then not undone by its inverse.

use num_complex::Complex;

/// A conversion from `Self` to `To`.
pub trait Cast<To>: Copy {
    /// The value as a `To`, or `None` when `To` cannot hold it exactly
    /// (out of range, a fraction, bits of a mantissa, an imaginary part).
    /// NaN converts to NaN between floats.
    fn cast_exact(self) -> Option<To>;
    /// The value as a `To`, as Rust's `as` converts it.
    fn cast_as(self) -> To;
}

macro_rules! int_to {
    ($($from:ty),*) => { $( int_to!(@from $from; i8 i16 i32 i64 isize u8 u16 u32 u64 usize; f32 f64); )* };
    (@from $from:ty; $($int:ty)*; $($float:ty)*) => {
        $(
            impl Cast<$int> for $from {
                #[inline]
                fn cast_exact(self) -> Option<$int> {
                    <$int>::try_from(self).ok()
                }
                #[inline]
                fn cast_as(self) -> $int {
                    self as $int
                }
            }
        )*
        $(
            impl Cast<$float> for $from {
                #[inline]
                fn cast_exact(self) -> Option<$float> {
                    let f = self as $float;
                    // i128 holds every integer these types have and every
                    // float they round to (at most 2^64).
                    (f as i128 == self as i128).then_some(f)
                }
                #[inline]
                fn cast_as(self) -> $float {
                    self as $float
                }
            }
        )*
    };
}

int_to!(i8, i16, i32, i64, isize, u8, u16, u32, u64, usize);

macro_rules! float_to {
    ($($from:ty),*) => { $( float_to!(@from $from; i8 i16 i32 i64 isize u8 u16 u32 u64 usize; f32 f64); )* };
    (@from $from:ty; $($int:ty)*; $($float:ty)*) => {
        $(
            impl Cast<$int> for $from {
                #[inline]
                fn cast_exact(self) -> Option<$int> {
                    // NaN becomes 0 and fails the comparison; values beyond
                    // i128 saturate and fail either it or `try_from`.
                    let w = self as i128;
                    if w as $from == self {
                        <$int>::try_from(w).ok()
                    } else {
                        None
                    }
                }
                #[inline]
                fn cast_as(self) -> $int {
                    self as $int
                }
            }
        )*
        $(
            impl Cast<$float> for $from {
                #[inline]
                fn cast_exact(self) -> Option<$float> {
                    let f = self as $float;
                    (f as $from == self || self.is_nan()).then_some(f)
                }
                #[inline]
                fn cast_as(self) -> $float {
                    self as $float
                }
            }
        )*
    };
}

float_to!(f32, f64);

macro_rules! complex {
    ($($from:ty),*) => { $( complex!(@from $from; f32 f64); )* };
    (@from $from:ty; $($to:ty)*) => {
        $(
            /// A real number as a complex one: exact when its value is.
            impl Cast<Complex<$to>> for $from {
                #[inline]
                fn cast_exact(self) -> Option<Complex<$to>> {
                    Some(Complex::new(Cast::<$to>::cast_exact(self)?, 0.0))
                }
                #[inline]
                fn cast_as(self) -> Complex<$to> {
                    Complex::new(self as $to, 0.0)
                }
            }
            /// The real part: exact when the imaginary part is zero.
            impl Cast<$from> for Complex<$to> {
                #[inline]
                fn cast_exact(self) -> Option<$from> {
                    if self.im == 0.0 {
                        Cast::<$from>::cast_exact(self.re)
                    } else {
                        None
                    }
                }
                #[inline]
                fn cast_as(self) -> $from {
                    self.re as $from
                }
            }
        )*
    };
}

complex!(i8, i16, i32, i64, isize, u8, u16, u32, u64, usize, f32, f64);

macro_rules! complex_complex {
    ($($from:ty => $to:ty),*) => {
        $(
            impl Cast<Complex<$to>> for Complex<$from> {
                #[inline]
                fn cast_exact(self) -> Option<Complex<$to>> {
                    Some(Complex::new(
                        Cast::<$to>::cast_exact(self.re)?,
                        Cast::<$to>::cast_exact(self.im)?,
                    ))
                }
                #[inline]
                fn cast_as(self) -> Complex<$to> {
                    Complex::new(self.re as $to, self.im as $to)
                }
            }
        )*
    };
}

complex_complex!(f32 => f64, f64 => f32, f32 => f32, f64 => f64);

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn exact_casts_round_trip() {
        assert_eq!(Cast::<i64>::cast_exact(2.0f64), Some(2));
        assert_eq!(Cast::<f64>::cast_exact(2i64), Some(2.0));
        assert_eq!(Cast::<f32>::cast_exact(0.5f64), Some(0.5f32));
        assert_eq!(Cast::<u8>::cast_exact(255i64), Some(255u8));
        assert_eq!(
            Cast::<Complex<f64>>::cast_exact(1.5f64),
            Some(Complex::new(1.5, 0.0))
        );
        assert_eq!(
            Cast::<f64>::cast_exact(Complex::new(1.5f64, 0.0)),
            Some(1.5)
        );
        assert!(Cast::<f32>::cast_exact(f64::NAN).is_some_and(f32::is_nan));
    }

    #[test]
    fn lossy_casts_are_refused() {
        assert_eq!(Cast::<i64>::cast_exact(2.5f64), None);
        assert_eq!(Cast::<i64>::cast_exact(f64::NAN), None);
        assert_eq!(Cast::<i64>::cast_exact(9.3e18f64), None);
        assert_eq!(Cast::<i64>::cast_exact(i64::MAX as f64), None);
        assert_eq!(Cast::<f64>::cast_exact(i64::MAX), None);
        assert_eq!(Cast::<f64>::cast_exact(u64::MAX), None);
        assert_eq!(Cast::<f32>::cast_exact(0.1f64), None);
        assert_eq!(Cast::<u8>::cast_exact(256i64), None);
        assert_eq!(Cast::<u32>::cast_exact(-1i64), None);
        assert_eq!(Cast::<f64>::cast_exact(Complex::new(1.0f64, 1.0)), None);
        // Without checks: Rust's `as`.
        assert_eq!(Cast::<i64>::cast_as(2.7f64), 2);
        assert_eq!(Cast::<u8>::cast_as(300i64), 44);
    }
}

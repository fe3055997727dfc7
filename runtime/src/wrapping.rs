//! Integer updates that wrap around on overflow, as Julia's integers and
//! the reference interpreter do, in a debug build as in a release one (a
//! debug build's `+=` would panic instead). Generated code writes
//! `nilang::wrapping::add(&mut n, v)` for `n += v` on an integer place,
//! and `a.wrapping_add(b)` inside expressions; the opposite update undoes
//! a wrapped one exactly.

use num_traits::{WrappingAdd, WrappingMul, WrappingNeg, WrappingSub};

/// `*place += v`, wrapping.
#[inline(always)]
pub fn add<T: WrappingAdd>(place: &mut T, v: T) {
    *place = place.wrapping_add(&v);
}

/// `*place -= v`, wrapping.
#[inline(always)]
pub fn sub<T: WrappingSub>(place: &mut T, v: T) {
    *place = place.wrapping_sub(&v);
}

/// `*place *= v`, wrapping.
#[inline(always)]
pub fn mul<T: WrappingMul>(place: &mut T, v: T) {
    *place = place.wrapping_mul(&v);
}

/// `*place = -*place`, wrapping (the minimum stays itself).
#[inline(always)]
pub fn neg<T: WrappingNeg>(place: &mut T) {
    *place = place.wrapping_neg();
}

#[cfg(test)]
mod tests {
    #[test]
    fn updates_wrap_and_undo_exactly() {
        let mut a = 126i8;
        super::add(&mut a, 3);
        assert_eq!(a, -127);
        super::sub(&mut a, 3);
        assert_eq!(a, 126);
        let mut u = 65530u16;
        super::add(&mut u, 7);
        assert_eq!(u, 1);
        let mut m = i64::MIN;
        super::neg(&mut m);
        assert_eq!(m, i64::MIN);
        let mut p = 100i8;
        super::mul(&mut p, 2);
        assert_eq!(p, -56);
    }
}

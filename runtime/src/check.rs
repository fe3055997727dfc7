use crate::Real;

/// Equality as the run-time checks see it: within the tolerance for floating
/// point, exact otherwise; element by element for arrays.
pub trait CheckEq {
    fn check_eq(&self, other: &Self, atol: f64) -> bool;
}

impl<T: Real> CheckEq for T {
    fn check_eq(&self, other: &Self, atol: f64) -> bool {
        self.approx_eq(*other, atol)
    }
}

impl CheckEq for bool {
    fn check_eq(&self, other: &Self, _atol: f64) -> bool {
        self == other
    }
}

impl<T: CheckEq> CheckEq for [T] {
    fn check_eq(&self, other: &Self, atol: f64) -> bool {
        self.len() == other.len() && self.iter().zip(other).all(|(a, b)| a.check_eq(b, atol))
    }
}

impl<T: CheckEq> CheckEq for Vec<T> {
    fn check_eq(&self, other: &Self, atol: f64) -> bool {
        self.as_slice().check_eq(other.as_slice(), atol)
    }
}

impl<T: CheckEq, const N: usize> CheckEq for [T; N] {
    fn check_eq(&self, other: &Self, atol: f64) -> bool {
        self.as_slice().check_eq(other.as_slice(), atol)
    }
}

impl<T: Real> CheckEq for num_complex::Complex<T> {
    fn check_eq(&self, other: &Self, atol: f64) -> bool {
        self.re.approx_eq(other.re, atol) && self.im.approx_eq(other.im, atol)
    }
}

impl<T, S, D> CheckEq for ndarray::ArrayBase<S, D>
where
    T: CheckEq,
    S: ndarray::Data<Elem = T>,
    D: ndarray::Dimension,
{
    fn check_eq(&self, other: &Self, atol: f64) -> bool {
        self.shape() == other.shape() && self.iter().zip(other).all(|(a, b)| a.check_eq(b, atol))
    }
}

/// Whether an array has a shape and holds one value everywhere (within
/// `atol`): the deallocation check of `x → zeros(T, n)` without building the
/// array of zeros to compare with.
pub trait CheckFill<T> {
    /// The length of a vector, the rows and columns of a matrix.
    type Shape;
    fn check_fill(&self, shape: Self::Shape, value: &T, atol: f64) -> bool;
}

impl<T: CheckEq> CheckFill<T> for [T] {
    type Shape = usize;
    /// Compares a block of elements at a time without stopping inside a
    /// block (`&`, not `&&`), so that the compiler can compare a block in
    /// vector registers: an ancilla's check at its deallocation then costs
    /// a fraction of the loop that filled it. The answer is the same as
    /// stopping at the first element that differs.
    fn check_fill(&self, len: usize, value: &T, atol: f64) -> bool {
        self.len() == len
            && self.chunks(16).all(|block| {
                block
                    .iter()
                    .fold(true, |ok, a| ok & a.check_eq(value, atol))
            })
    }
}

impl<T: CheckEq> CheckFill<T> for Vec<T> {
    type Shape = usize;
    fn check_fill(&self, len: usize, value: &T, atol: f64) -> bool {
        self.as_slice().check_fill(len, value, atol)
    }
}

impl<T, S> CheckFill<T> for ndarray::ArrayBase<S, ndarray::Ix2>
where
    T: CheckEq,
    S: ndarray::Data<Elem = T>,
{
    type Shape = (usize, usize);
    /// A matrix whose elements lie in one piece of memory (any owned one)
    /// is checked as that slice, in blocks; a strided view element by
    /// element.
    fn check_fill(&self, (rows, cols): (usize, usize), value: &T, atol: f64) -> bool {
        self.dim() == (rows, cols)
            && match self.as_slice_memory_order() {
                Some(all) => all.check_fill(all.len(), value, atol),
                None => self.iter().all(|a| a.check_eq(value, atol)),
            }
    }
}

macro_rules! tuple_check_eq {
    ($($name:ident $index:tt),+) => {
        impl<$($name: CheckEq),+> CheckEq for ($($name,)+) {
            fn check_eq(&self, other: &Self, atol: f64) -> bool {
                $(self.$index.check_eq(&other.$index, atol))&&+
            }
        }
    };
}

tuple_check_eq!(A 0);
tuple_check_eq!(A 0, B 1);
tuple_check_eq!(A 0, B 1, C 2);
tuple_check_eq!(A 0, B 1, C 2, D 3);
tuple_check_eq!(A 0, B 1, C 2, D 3, E 4);
tuple_check_eq!(A 0, B 1, C 2, D 3, E 4, F 5);

/// Runs `call` then `uncall` on `state` and reports whether `state` came back
/// (within `atol`). `state` is left as the uncall leaves it.
///
/// ```
/// let mut state = (0.0_f64, 3.0_f64);
/// let restored = nilang_runtime::check_inv(
///     &mut state,
///     |(y, x)| { *y += *x * 2.0; Ok(()) },
///     |(y, x)| { *y -= *x * 2.0; Ok(()) },
///     nilang_runtime::DEFAULT_ATOL,
/// );
/// assert_eq!(restored, Ok(true));
/// ```
pub fn check_inv<S, F, G>(state: &mut S, call: F, uncall: G, atol: f64) -> crate::Result<bool>
where
    S: Clone + CheckEq,
    F: FnOnce(&mut S) -> crate::Result,
    G: FnOnce(&mut S) -> crate::Result,
{
    let before = state.clone();
    call(state)?;
    uncall(state)?;
    Ok(state.check_eq(&before, atol))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::{Check, Error, Location};

    #[test]
    fn arrays_and_tuples_compare_elementwise() {
        assert!(vec![1.0, 2.0].check_eq(&vec![1.0, 2.0 + 1e-10], 1e-8));
        assert!(!vec![1.0, 2.0].check_eq(&vec![1.0], 1e-8));
        assert!((1i64, vec![true]).check_eq(&(1, vec![true]), 0.0));
        assert!(!(1i64, 2.0f64).check_eq(&(1, 2.1), 1e-8));
    }

    #[test]
    fn a_fill_check_compares_the_shape_and_every_element() {
        assert!(vec![0.0, 1e-10].check_fill(2, &0.0, 1e-8));
        assert!(!vec![0.0, 1e-10].check_fill(3, &0.0, 1e-8));
        assert!(!vec![0.0, 1e-6].check_fill(2, &0.0, 1e-8));
        assert!(vec![true; 3].check_fill(3, &true, 0.0));
        let m = ndarray::Array2::<f64>::ones((2, 3));
        assert!(m.check_fill((2, 3), &1.0, 1e-8));
        assert!(!m.check_fill((3, 2), &1.0, 1e-8));
        assert!(!m.view().check_fill((2, 3), &0.0, 1e-8));
    }

    #[test]
    fn a_fill_check_finds_one_element_off_in_any_block() {
        // 16 elements a block: the first, a middle and a short last block.
        for len in [1, 15, 16, 17, 40] {
            assert!(vec![0.0; len].check_fill(len, &0.0, 1e-8));
            for at in 0..len {
                for bad in [1e-6, -1e-6, f64::NAN, f64::INFINITY] {
                    let mut v = vec![0.0; len];
                    v[at] = bad;
                    assert!(!v.check_fill(len, &0.0, 1e-8), "{bad} at {at} of {len}");
                }
            }
        }
        // A matrix in one piece is checked as its slice; a strided view
        // (every other column) element by element: the same answers.
        let mut m = ndarray::Array2::<f64>::zeros((5, 8));
        assert!(m.check_fill((5, 8), &0.0, 1e-8));
        assert!(
            m.slice(ndarray::s![.., ..;2])
                .check_fill((5, 4), &0.0, 1e-8)
        );
        m[[3, 6]] = f64::NAN;
        assert!(!m.check_fill((5, 8), &0.0, 1e-8));
        assert!(!m.t().check_fill((8, 5), &0.0, 1e-8));
        assert!(
            !m.slice(ndarray::s![.., ..;2])
                .check_fill((5, 4), &0.0, 1e-8)
        );
        assert!(
            m.slice(ndarray::s![.., 1..;2])
                .check_fill((5, 4), &0.0, 1e-8)
        );
    }

    #[test]
    fn check_inv_detects_a_wrong_uncall_and_passes_errors_on() {
        let mut s = (1.0f64, 2.0f64);
        let ok = check_inv(
            &mut s,
            |(a, b)| {
                *a += *b;
                Ok(())
            },
            |(a, b)| {
                *a += *b;
                Ok(())
            },
            1e-8,
        );
        assert_eq!(ok, Ok(false));
        let location = Location {
            file: "f.nil",
            line: 3,
            column: 5,
        };
        let failing = check_inv(
            &mut s,
            |_| {
                Err(Error::new(
                    location,
                    Check::Deallocation,
                    "`z` must equal `0`",
                    0,
                    -9,
                ))
            },
            |_| Ok(()),
            1e-8,
        );
        let err = failing.unwrap_err();
        assert_eq!(
            err.to_string(),
            "f.nil:3:5: deallocation check failed: `z` must equal `0` (expected 0, found -9)"
        );
    }
}

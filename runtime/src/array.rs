//! Dense and sparse arrays as generated code sees them.
//!
//! NiLang follows Julia: matrices are column-major and a column `A[:, j]` is
//! a contiguous vector. Generated functions take `ndarray` views for
//! `Matrix<T>` and `sprs` views for `Csc<T>`; a column is passed on to a
//! function taking a slice without a copy when the matrix is column-major
//! (`Array2::zeros((m, n).f())`), and through a temporary otherwise.

use std::borrow::Cow;
use std::ops::{Deref, DerefMut};

use ndarray::{ArrayView1, ArrayViewMut1};

/// How many elements of an ancilla array live in the frame of the function
/// that allocates it: a longer array goes to the heap. 32 holds the work
/// vectors of the examples (the graph loss's 15 and 30 distances) while a
/// buffer of `f64` stays at 256 bytes of stack.
pub const SMALL: usize = 32;

/// The storage of an ancilla array that the code generator keeps off the
/// heap when it is short (`codegen::small` decides which arrays): a
/// `smallvec::SmallVec` of [`SMALL`] elements inline, which generated code
/// reads through a slice of it.
pub type SmallBuf<T> = smallvec::SmallVec<[T; SMALL]>;

/// A read-only column as a slice: borrowed when contiguous, copied if not.
#[inline]
pub fn column<'a, T: Clone>(view: ArrayView1<'a, T>) -> Cow<'a, [T]> {
    match view.to_slice() {
        Some(s) => Cow::Borrowed(s),
        None => Cow::Owned(view.to_vec()),
    }
}

/// A mutable column as a mutable slice. When the column is not contiguous
/// the slice is a copy, written back to the matrix when this is dropped.
pub struct ColumnMut<'a, T: Clone> {
    view: ArrayViewMut1<'a, T>,
    copy: Option<Vec<T>>,
}

impl<'a, T: Clone> ColumnMut<'a, T> {
    #[inline]
    pub fn new(view: ArrayViewMut1<'a, T>) -> Self {
        let copy = if view.as_slice().is_some() {
            None
        } else {
            Some(view.to_vec())
        };
        ColumnMut { view, copy }
    }
}

impl<T: Clone> Deref for ColumnMut<'_, T> {
    type Target = [T];
    #[inline]
    fn deref(&self) -> &[T] {
        match &self.copy {
            Some(v) => v,
            None => self.view.as_slice().unwrap_or(&[]),
        }
    }
}

impl<T: Clone> DerefMut for ColumnMut<'_, T> {
    #[inline]
    fn deref_mut(&mut self) -> &mut [T] {
        match &mut self.copy {
            Some(v) => v,
            None => self.view.as_slice_mut().unwrap_or(&mut []),
        }
    }
}

impl<T: Clone> Drop for ColumnMut<'_, T> {
    fn drop(&mut self) {
        if let Some(copy) = self.copy.take() {
            for (dst, src) in self.view.iter_mut().zip(copy) {
                *dst = src;
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use ndarray::{Array2, ShapeBuilder};

    #[test]
    fn columns_of_column_major_matrices_are_borrowed() {
        let a = Array2::from_shape_vec((2, 2).f(), vec![1.0, 2.0, 3.0, 4.0]).unwrap();
        assert!(matches!(column(a.column(1)), Cow::Borrowed(&[3.0, 4.0])));
        let c = Array2::from_shape_vec((2, 2), vec![1.0, 3.0, 2.0, 4.0]).unwrap();
        let col = column(c.column(1));
        assert!(matches!(col, Cow::Owned(_)));
        assert_eq!(&*col, &[3.0, 4.0]);
    }

    #[test]
    fn a_copied_mutable_column_is_written_back() {
        for mut a in [
            Array2::from_shape_vec((2, 2), vec![1.0, 3.0, 2.0, 4.0]).unwrap(),
            Array2::from_shape_vec((2, 2).f(), vec![1.0, 2.0, 3.0, 4.0]).unwrap(),
        ] {
            {
                let mut col = ColumnMut::new(a.column_mut(1));
                col[0] += 10.0;
                col[1] *= 2.0;
            }
            assert_eq!(a[[0, 1]], 13.0);
            assert_eq!(a[[1, 1]], 8.0);
            assert_eq!(a[[0, 0]], 1.0);
        }
    }
}

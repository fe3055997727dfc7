//! `Stack<T>`: the explicit, typed stack of `PUSH!`, `POP!`, `COPYPUSH!` and
//! `COPYPOP!`.
//!
//! A stack is an ordinary value of the generated code (a parameter
//! `s::Stack<f64>` or an ancilla `s ← stack(f64)`), never global state. The
//! instructions are generated inline; what they need from this type is a
//! push, a pop that reports an empty stack, and a look at the top. In a
//! reverse pass each stack has an adjoint stack of the same length beside
//! it (`s_bar: Stack<G>`), which moves in step with it.

use std::fmt;

/// A last-in, first-out stack of values (a `Vec` inside).
#[derive(Clone, PartialEq, Default)]
pub struct Stack<T> {
    items: Vec<T>,
}

impl<T> Stack<T> {
    pub const fn new() -> Self {
        Stack { items: Vec::new() }
    }

    /// A stack holding `items`, the last one on top.
    pub fn from_vec(items: Vec<T>) -> Self {
        Stack { items }
    }

    #[inline]
    pub fn push(&mut self, value: T) {
        self.items.push(value);
    }

    /// The top value, removed; `None` when the stack is empty.
    #[inline]
    pub fn pop(&mut self) -> Option<T> {
        self.items.pop()
    }

    /// The top value.
    #[inline]
    pub fn top(&self) -> Option<&T> {
        self.items.last()
    }

    #[inline]
    pub fn len(&self) -> usize {
        self.items.len()
    }

    #[inline]
    pub fn is_empty(&self) -> bool {
        self.items.is_empty()
    }

    /// The values, bottom first.
    pub fn as_slice(&self) -> &[T] {
        &self.items
    }

    /// Makes the stack hold `items` (bottom first), reusing its storage.
    pub fn assign(&mut self, items: &[T])
    where
        T: Clone,
    {
        self.items.clear();
        self.items.extend_from_slice(items);
    }

    pub fn into_vec(self) -> Vec<T> {
        self.items
    }
}

impl<T> From<Vec<T>> for Stack<T> {
    fn from(items: Vec<T>) -> Self {
        Stack { items }
    }
}

/// `s[k]` (0-based here; the `.nil` source counts from 1 at the bottom):
/// how generated code reads a value in place, for `for v in s` and `s[k]`.
impl<T> std::ops::Index<usize> for Stack<T> {
    type Output = T;

    #[inline]
    fn index(&self, k: usize) -> &T {
        &self.items[k]
    }
}

/// Only adjoint stacks are written in place: the reverse pass of a read of
/// `s[k]` adds to `s_bar[k]`. A `.nil` program cannot write into a stack
/// (E0620).
impl<T> std::ops::IndexMut<usize> for Stack<T> {
    #[inline]
    fn index_mut(&mut self, k: usize) -> &mut T {
        &mut self.items[k]
    }
}

impl<T: fmt::Debug> fmt::Debug for Stack<T> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "stack of {} ", self.items.len())?;
        f.debug_list().entries(&self.items).finish()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn last_in_first_out() {
        let mut s = Stack::new();
        s.push(1.0);
        s.push(2.0);
        assert_eq!(s.len(), 2);
        assert_eq!(s.top(), Some(&2.0));
        assert_eq!(s.pop(), Some(2.0));
        assert_eq!(s.pop(), Some(1.0));
        assert_eq!(s.pop(), None);
        assert!(s.is_empty());
        assert_eq!(
            format!("{:?}", Stack::from_vec(vec![1, 2])),
            "stack of 2 [1, 2]"
        );
    }
}

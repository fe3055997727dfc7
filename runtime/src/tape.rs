//! The tape of `@tape` loops.
//!
//! Going forwards, a tape loop pushes the value each overwriting statement
//! (`y = e`, `y *= e`, `y /= e`) is about to destroy, the branch each `if`
//! takes and the trip count of each `while`; going backwards, its inverse
//! pops them in the opposite order. The generated code owns the tape: the
//! gradient `f_grad` makes one, hands it to `f` and then to `f_adjoint`, and
//! drops it at its end; a `@routine` that records keeps its own, local to
//! the function, for its `~@routine`.
//!
//! Values are kept in one stack per type (found by [`TypeId`], a short
//! linear search), so pushing a scalar allocates only when its stack grows.
//! Since pops mirror pushes exactly, each type's stack is popped in the
//! reverse order of its pushes.

use std::any::{Any, TypeId};

use crate::{Check, Error, Location};

/// A stack of values of any `'static` types.
#[derive(Default)]
pub struct Tape {
    stacks: Vec<(TypeId, Box<dyn Any>)>,
    len: usize,
}

impl std::fmt::Debug for Tape {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Tape")
            .field("stacks", &self.stacks.len())
            .field("len", &self.len)
            .finish()
    }
}

impl Tape {
    pub fn new() -> Tape {
        Tape::default()
    }

    fn stack<V: 'static>(&mut self) -> &mut Vec<V> {
        let id = TypeId::of::<V>();
        let at = match self.stacks.iter().position(|(t, _)| *t == id) {
            Some(at) => at,
            None => {
                self.stacks.push((id, Box::new(Vec::<V>::new())));
                self.stacks.len() - 1
            }
        };
        self.stacks[at]
            .1
            .downcast_mut::<Vec<V>>()
            .expect("the stack of a TypeId holds that type")
    }

    /// Makes room for `n` more values of type `V` (a `for` loop reserves
    /// its trip count). A hint: when that much memory cannot be had, the
    /// stack grows as values come instead.
    pub fn reserve<V: 'static>(&mut self, n: usize) {
        let _ = self.stack::<V>().try_reserve(n);
    }

    /// Records a value.
    #[inline]
    pub fn push<V: 'static>(&mut self, v: V) {
        self.stack::<V>().push(v);
        self.len += 1;
    }

    /// Takes back the last value of type `V` recorded, or an error at
    /// `location` when there is none (a tape not made by the matching
    /// forward run).
    #[inline]
    pub fn pop<V: 'static>(&mut self, location: Location) -> Result<V, Error> {
        let v = self.stack::<V>().pop();
        self.len -= usize::from(v.is_some());
        v.ok_or_else(|| {
            Error::new(
                location,
                Check::Tape,
                "the tape is empty: it was not recorded by the forward run",
                "a recorded value",
                "none",
            )
        })
    }

    /// How many values the tape holds, of every type.
    pub fn len(&self) -> usize {
        self.len
    }

    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn pops_mirror_pushes_per_type() {
        let mut t = Tape::new();
        t.push(1.5f64);
        t.push(3usize);
        t.push(2.5f64);
        let loc = Location {
            file: "t.nil",
            line: 1,
            column: 1,
        };
        assert_eq!(t.pop::<f64>(loc).unwrap(), 2.5);
        assert_eq!(t.pop::<usize>(loc).unwrap(), 3);
        assert_eq!(t.pop::<f64>(loc).unwrap(), 1.5);
        assert!(t.pop::<f64>(loc).is_err());
        assert!(t.is_empty());
        // An impossible reservation is ignored.
        t.reserve::<f64>(usize::MAX);
        t.push(1.0f64);
        assert_eq!(t.len(), 1);
    }
}

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
//! # Layout
//!
//! Pops mirror pushes exactly (the whole tape is one last-in first-out
//! sequence), so the values can be split into one stack per type and each
//! stack is still popped in the reverse order of its pushes. The common
//! types have a typed buffer of their own: `f64`, `f32`, `i64`, `i32`,
//! `usize` (the trip counts of `while` loops) and a byte buffer for
//! `u8` (the branch indices of `if` chains: one byte each) and `bool`. [`Tape::push`] and
//! [`Tape::pop`] are generic; which buffer a type goes to is decided by
//! comparing [`TypeId`]s of two known types, which the compiler folds after
//! monomorphization, so a recorded `f64` costs one `Vec::push`. Any other
//! `'static` type (complex numbers, fixed-point numbers, a generic `T`
//! instantiated with a dual number) goes to a fallback: one boxed stack per
//! type, found by a short linear search.
//!
//! # Rollback
//!
//! A checked entry point that takes a tape marks it ([`Tape::mark`]) and
//! puts it back when the call fails ([`Tape::rollback`]), as it does with
//! its other arguments. A pop does not drop the value: each buffer keeps a
//! top below which its values are live, and the values above it stay in
//! place until a push overwrites them, so rolling back is moving the tops
//! back: values recorded by the failed call are forgotten, values it
//! popped are live again. One case is not undone: a call that pops values
//! it did not record and then records values of the same type over them.
//!
//! The tape's memory is the capacity of those buffers: a `for` loop
//! reserves its trip count times what one iteration records before it
//! starts ([`Tape::reserve`]); it is given back when the tape is dropped
//! (at the end of `f_grad`, or of the block whose `@routine` made it).
//! Small buffers (at most 4 KiB together) are kept for the next tape made
//! on the same thread, up to 8 tapes' worth (32 KiB a thread at most): a
//! `@routine` in a loop body makes a tape per iteration, and a gradient
//! called in a loop one per call, which would otherwise cost an
//! allocation and a free each time. Larger buffers are freed at once, so
//! the memory a long loop recorded does not outlive its uncall.

use std::any::{Any, TypeId};
use std::cell::RefCell;

use crate::{Check, Error, Location};

/// A stack of values of any `'static` types, with typed buffers for the
/// scalar types the generated code records.
#[derive(Default)]
pub struct Tape {
    b: Buffers,
    others: Vec<(TypeId, Box<dyn OtherStack>)>,
}

/// One stack of a tape: the values below `top` are live; those above it
/// were popped and stay until a push overwrites them (for [`Tape::rollback`]).
struct Lifo<T> {
    v: Vec<T>,
    top: usize,
}

impl<T> Default for Lifo<T> {
    fn default() -> Self {
        Lifo {
            v: Vec::new(),
            top: 0,
        }
    }
}

impl<T: Clone> Lifo<T> {
    #[inline(always)]
    fn push(&mut self, x: T) {
        if self.top == self.v.len() {
            self.v.push(x);
        } else {
            self.v[self.top] = x;
        }
        self.top += 1;
    }

    #[inline(always)]
    fn pop(&mut self) -> Option<T> {
        self.top = self.top.checked_sub(1)?;
        self.v.get(self.top).cloned()
    }

    fn reserve(&mut self, n: usize) -> Result<(), std::collections::TryReserveError> {
        let spare = self.v.len() - self.top;
        self.v.try_reserve(n.saturating_sub(spare))
    }

    fn clear(&mut self) {
        self.v.clear();
        self.top = 0;
    }
}

/// The typed buffers of a tape.
#[derive(Default)]
struct Buffers {
    f64s: Lifo<f64>,
    f32s: Lifo<f32>,
    i64s: Lifo<i64>,
    i32s: Lifo<i32>,
    words: Lifo<usize>,
    /// `u8`s (branch indices) and `bool`s.
    bytes: Lifo<u8>,
}

impl Buffers {
    fn capacity_bytes(&self) -> usize {
        use std::mem::size_of;
        self.f64s.v.capacity() * size_of::<f64>()
            + self.f32s.v.capacity() * size_of::<f32>()
            + self.i64s.v.capacity() * size_of::<i64>()
            + self.i32s.v.capacity() * size_of::<i32>()
            + self.words.v.capacity() * size_of::<usize>()
            + self.bytes.v.capacity()
    }

    fn clear(&mut self) {
        self.f64s.clear();
        self.f32s.clear();
        self.i64s.clear();
        self.i32s.clear();
        self.words.clear();
        self.bytes.clear();
    }

    fn tops(&self) -> [usize; 6] {
        [
            self.f64s.top,
            self.f32s.top,
            self.i64s.top,
            self.i32s.top,
            self.words.top,
            self.bytes.top,
        ]
    }
}

/// The fallback stack of one type, with what rollback and `len` need of
/// it, and the way back to its type.
trait OtherStack {
    fn top(&self) -> usize;
    fn set_top(&mut self, top: usize);
    fn as_any(&mut self) -> &mut dyn Any;
}

impl<V: Clone + 'static> OtherStack for Lifo<V> {
    fn top(&self) -> usize {
        self.top
    }
    fn set_top(&mut self, top: usize) {
        self.top = top.min(self.v.len());
    }
    fn as_any(&mut self) -> &mut dyn Any {
        self
    }
}

/// Where a tape stood when a call began ([`Tape::mark`]).
#[derive(Debug)]
pub struct Mark {
    tops: [usize; 6],
    /// The tops of the fallback stacks that existed, in their order.
    others: Vec<usize>,
}

/// The most bytes of buffers a dropped tape hands to the next one made on
/// its thread; larger buffers are freed.
const KEPT_BYTES: usize = 4096;
/// How many dropped tapes' buffers a thread keeps.
const KEPT_TAPES: usize = 8;

thread_local! {
    /// Buffers of dropped tapes, at most [`KEPT_TAPES`] of at most
    /// [`KEPT_BYTES`] each, for the next tapes made on this thread.
    static KEPT: RefCell<Vec<Buffers>> = const { RefCell::new(Vec::new()) };
}

impl Drop for Tape {
    fn drop(&mut self) {
        let size = self.b.capacity_bytes();
        if size == 0 || size > KEPT_BYTES {
            return;
        }
        let mut b = std::mem::take(&mut self.b);
        b.clear();
        let _ = KEPT.try_with(|k| {
            if let Ok(mut k) = k.try_borrow_mut()
                && k.len() < KEPT_TAPES
            {
                k.push(b);
            }
        });
    }
}

impl std::fmt::Debug for Tape {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Tape")
            .field("len", &self.len())
            .field("others", &self.others.len())
            .finish()
    }
}

/// `a` as a `B` when `A` is `B` (folded to a constant after
/// monomorphization: no check is left at run time).
#[inline(always)]
fn cast<A: 'static, B: 'static>(a: A) -> Result<B, A> {
    if TypeId::of::<A>() != TypeId::of::<B>() {
        return Err(a);
    }
    let mut slot = Some(a);
    match (&mut slot as &mut dyn Any).downcast_mut::<Option<B>>() {
        Some(b) => b.take().ok_or_else(|| unreachable!("the slot is filled")),
        None => Err(slot
            .take()
            .unwrap_or_else(|| unreachable!("the slot is filled"))),
    }
}

/// Which buffer a value of type `V` goes to.
#[derive(Clone, Copy, PartialEq, Eq)]
enum Buffer {
    F64,
    F32,
    I64,
    I32,
    Word,
    Byte,
    Bool,
    Other,
}

#[inline(always)]
fn buffer<V: 'static>() -> Buffer {
    let id = TypeId::of::<V>();
    if id == TypeId::of::<f64>() {
        Buffer::F64
    } else if id == TypeId::of::<f32>() {
        Buffer::F32
    } else if id == TypeId::of::<i64>() {
        Buffer::I64
    } else if id == TypeId::of::<i32>() {
        Buffer::I32
    } else if id == TypeId::of::<usize>() {
        Buffer::Word
    } else if id == TypeId::of::<u8>() {
        Buffer::Byte
    } else if id == TypeId::of::<bool>() {
        Buffer::Bool
    } else {
        Buffer::Other
    }
}

fn empty(location: Location) -> Error {
    Error::new(
        location,
        Check::Tape,
        "the tape is empty: it was not recorded by the forward run",
        "a recorded value",
        "none",
    )
}

impl Tape {
    /// An empty tape. It takes over the buffers of a small tape dropped
    /// earlier on this thread when there is one (a tape made per iteration
    /// of a loop, or per call of a gradient, then allocates nothing), and
    /// otherwise allocates nothing until values come.
    #[inline]
    pub fn new() -> Tape {
        let b = KEPT
            .try_with(|k| k.try_borrow_mut().ok().and_then(|mut k| k.pop()))
            .ok()
            .flatten()
            .unwrap_or_default();
        Tape {
            b,
            others: Vec::new(),
        }
    }

    fn other<V: Clone + 'static>(&mut self) -> &mut Lifo<V> {
        let id = TypeId::of::<V>();
        let at = match self.others.iter().position(|(t, _)| *t == id) {
            Some(at) => at,
            None => {
                self.others.push((id, Box::new(Lifo::<V>::default())));
                self.others.len() - 1
            }
        };
        // The stack stored under `TypeId::of::<V>()` is a `Lifo<V>`.
        match self.others[at].1.as_any().downcast_mut::<Lifo<V>>() {
            Some(v) => v,
            None => unreachable!("the stack of a TypeId holds that type"),
        }
    }

    /// Where the tape stands now, for [`Tape::rollback`]. Allocates only
    /// when values of types without a buffer of their own were recorded.
    pub fn mark(&mut self) -> Mark {
        Mark {
            tops: self.b.tops(),
            others: self.others.iter().map(|(_, s)| s.top()).collect(),
        }
    }

    /// Puts the tape back where it stood at `mark`: values recorded since
    /// are forgotten, values popped since are live again (see the module's
    /// "Rollback").
    pub fn rollback(&mut self, mark: Mark) {
        let [f64s, f32s, i64s, i32s, words, bytes] = mark.tops;
        let b = &mut self.b;
        b.f64s.top = f64s.min(b.f64s.v.len());
        b.f32s.top = f32s.min(b.f32s.v.len());
        b.i64s.top = i64s.min(b.i64s.v.len());
        b.i32s.top = i32s.min(b.i32s.v.len());
        b.words.top = words.min(b.words.v.len());
        b.bytes.top = bytes.min(b.bytes.v.len());
        let mut tops = mark.others.into_iter();
        for (_, stack) in &mut self.others {
            stack.set_top(tops.next().unwrap_or(0));
        }
    }

    /// Makes room for `n` more values of type `V` (a `for` loop reserves
    /// its trip count). A hint: when that much memory cannot be had, the
    /// stack grows as values come instead.
    pub fn reserve<V: Clone + 'static>(&mut self, n: usize) {
        let _ = match buffer::<V>() {
            Buffer::F64 => self.b.f64s.reserve(n),
            Buffer::F32 => self.b.f32s.reserve(n),
            Buffer::I64 => self.b.i64s.reserve(n),
            Buffer::I32 => self.b.i32s.reserve(n),
            Buffer::Word => self.b.words.reserve(n),
            Buffer::Byte | Buffer::Bool => self.b.bytes.reserve(n),
            Buffer::Other => self.other::<V>().reserve(n),
        };
    }

    /// Records a value.
    #[inline]
    pub fn push<V: Clone + 'static>(&mut self, v: V) {
        let v = match cast::<V, f64>(v) {
            Ok(x) => return self.b.f64s.push(x),
            Err(v) => v,
        };
        let v = match cast::<V, f32>(v) {
            Ok(x) => return self.b.f32s.push(x),
            Err(v) => v,
        };
        let v = match cast::<V, i64>(v) {
            Ok(x) => return self.b.i64s.push(x),
            Err(v) => v,
        };
        let v = match cast::<V, i32>(v) {
            Ok(x) => return self.b.i32s.push(x),
            Err(v) => v,
        };
        let v = match cast::<V, usize>(v) {
            Ok(x) => return self.b.words.push(x),
            Err(v) => v,
        };
        let v = match cast::<V, u8>(v) {
            Ok(x) => return self.b.bytes.push(x),
            Err(v) => v,
        };
        let v = match cast::<V, bool>(v) {
            Ok(x) => return self.b.bytes.push(u8::from(x)),
            Err(v) => v,
        };
        self.other::<V>().push(v);
    }

    /// Takes back the last value of type `V` recorded, or an error at
    /// `location` when there is none (a tape not made by the matching
    /// forward run).
    #[inline]
    pub fn pop<V: Clone + 'static>(&mut self, location: Location) -> Result<V, Error> {
        fn back<A: 'static, V: 'static>(a: Option<A>, location: Location) -> Result<V, Error> {
            match a {
                Some(a) => cast::<A, V>(a).map_err(|_| empty(location)),
                None => Err(empty(location)),
            }
        }
        match buffer::<V>() {
            Buffer::F64 => back(self.b.f64s.pop(), location),
            Buffer::F32 => back(self.b.f32s.pop(), location),
            Buffer::I64 => back(self.b.i64s.pop(), location),
            Buffer::I32 => back(self.b.i32s.pop(), location),
            Buffer::Word => back(self.b.words.pop(), location),
            Buffer::Byte => back(self.b.bytes.pop(), location),
            Buffer::Bool => back(self.b.bytes.pop().map(|b| b != 0), location),
            Buffer::Other => self.other::<V>().pop().ok_or_else(|| empty(location)),
        }
    }

    /// How many values the tape holds, of every type.
    pub fn len(&self) -> usize {
        self.b.tops().iter().sum::<usize>()
            + self.others.iter().map(|(_, s)| s.top()).sum::<usize>()
    }

    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }

    /// Bytes of memory the typed buffers hold (their capacity; the
    /// fallback stacks are not counted).
    pub fn capacity_bytes(&self) -> usize {
        self.b.capacity_bytes()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const LOC: Location = Location {
        file: "t.nil",
        line: 1,
        column: 1,
    };

    #[test]
    fn pops_mirror_pushes_per_type() {
        let mut t = Tape::new();
        t.push(1.5f64);
        t.push(3usize);
        t.push(2.5f64);
        t.push(2u8);
        t.push(true);
        t.push(-4i64);
        t.push(0.5f32);
        t.push(7i32);
        assert_eq!(t.len(), 8);
        assert_eq!(t.pop::<i32>(LOC).unwrap(), 7);
        assert_eq!(t.pop::<f32>(LOC).unwrap(), 0.5);
        assert_eq!(t.pop::<i64>(LOC).unwrap(), -4);
        assert!(t.pop::<bool>(LOC).unwrap());
        assert_eq!(t.pop::<u8>(LOC).unwrap(), 2);
        assert_eq!(t.pop::<f64>(LOC).unwrap(), 2.5);
        assert_eq!(t.pop::<usize>(LOC).unwrap(), 3);
        assert_eq!(t.pop::<f64>(LOC).unwrap(), 1.5);
        assert!(t.pop::<f64>(LOC).is_err());
        assert!(t.is_empty());
        // An impossible reservation is ignored.
        t.reserve::<f64>(usize::MAX);
        t.push(1.0f64);
        assert_eq!(t.len(), 1);
    }

    #[test]
    fn other_types_use_the_fallback() {
        let mut t = Tape::new();
        t.push(crate::Complex::new(1.0f64, 2.0));
        t.push(9u16);
        t.push(crate::Complex::new(3.0f64, 4.0));
        assert_eq!(t.pop::<crate::Complex<f64>>(LOC).unwrap().re, 3.0);
        assert_eq!(t.pop::<u16>(LOC).unwrap(), 9);
        assert_eq!(t.pop::<crate::Complex<f64>>(LOC).unwrap().im, 2.0);
        assert!(t.pop::<u16>(LOC).is_err());
    }

    #[test]
    fn rollback_forgets_what_was_recorded_and_restores_what_was_popped() {
        let mut t = Tape::new();
        t.push(1.5f64);
        t.push(2usize);
        t.push(crate::Complex::new(1.0f64, -1.0));
        // A forward call that records, then fails.
        let mark = t.mark();
        t.push(9.0f64);
        t.push(true);
        t.push(crate::Complex::new(5.0f64, 5.0));
        t.push(7u16);
        t.rollback(mark);
        assert_eq!(t.len(), 3);
        // An uncall that pops, then fails.
        let mark = t.mark();
        assert_eq!(t.pop::<f64>(LOC).unwrap(), 1.5);
        assert_eq!(t.pop::<crate::Complex<f64>>(LOC).unwrap().im, -1.0);
        assert_eq!(t.pop::<usize>(LOC).unwrap(), 2);
        assert!(t.is_empty());
        t.rollback(mark);
        assert_eq!(t.len(), 3);
        // Everything is back, in order.
        assert_eq!(t.pop::<crate::Complex<f64>>(LOC).unwrap().re, 1.0);
        assert_eq!(t.pop::<usize>(LOC).unwrap(), 2);
        assert_eq!(t.pop::<f64>(LOC).unwrap(), 1.5);
        assert!(t.pop::<u16>(LOC).is_err());
        assert!(t.pop::<bool>(LOC).is_err());
        // Popped slots are reused by later pushes.
        t.push(4.0f64);
        assert_eq!(t.pop::<f64>(LOC).unwrap(), 4.0);
    }

    #[test]
    fn reservations_are_the_memory() {
        let mut t = Tape::new();
        assert_eq!(t.capacity_bytes(), 0);
        t.reserve::<f64>(100);
        t.reserve::<u8>(100);
        assert!(t.capacity_bytes() >= 900);
        drop(t);
        // Small buffers go to the next tape of this thread, emptied.
        let mut t = Tape::new();
        assert!(t.capacity_bytes() >= 900);
        assert!(t.is_empty());
        t.push(1.0f64);
        drop(t);
        // Large ones are freed.
        let mut t = Tape::new();
        t.reserve::<f64>(100_000);
        drop(t);
        let big = (0..super::KEPT_TAPES + 1)
            .map(|_| Tape::new().capacity_bytes())
            .max();
        assert!(big.unwrap_or(0) <= super::KEPT_BYTES);
    }
}

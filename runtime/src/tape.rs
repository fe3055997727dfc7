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
//! A checked entry point that takes a tape puts it back when the call
//! fails, as it does with its other arguments. A call that only records
//! (`f`) marks the tape's lengths ([`Tape::mark`]) and cuts back to them
//! ([`Tape::rollback`]): no copy. A call that pops what an earlier call
//! recorded (`uncall_f`, `f_adjoint`) copies the tape first
//! ([`Tape::snapshot`]) and puts the copy back ([`Tape::restore`]). The
//! gradient `f_grad` owns its tape and does neither, so pushes and pops stay
//! one `Vec` operation each.
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
    /// Values in `others`, of every type.
    others_len: usize,
}

/// The fallback stack of one type (a `Vec<V>`), with what rollback needs
/// of it and the way back to its type.
trait OtherStack {
    fn len(&self) -> usize;
    fn truncate(&mut self, len: usize);
    fn clone_box(&self) -> Box<dyn OtherStack>;
    fn as_any(&mut self) -> &mut dyn Any;
}

impl<V: Clone + 'static> OtherStack for Vec<V> {
    fn len(&self) -> usize {
        Vec::len(self)
    }
    fn truncate(&mut self, len: usize) {
        Vec::truncate(self, len);
    }
    fn clone_box(&self) -> Box<dyn OtherStack> {
        Box::new(self.clone())
    }
    fn as_any(&mut self) -> &mut dyn Any {
        self
    }
}

/// Where a tape stood when a call began ([`Tape::mark`]).
#[derive(Debug)]
pub struct Mark {
    lens: [usize; 6],
    /// The lengths of the fallback stacks that existed, in their order.
    others: Vec<usize>,
}

/// The typed buffers of a tape.
#[derive(Default, Clone)]
struct Buffers {
    f64s: Vec<f64>,
    f32s: Vec<f32>,
    i64s: Vec<i64>,
    i32s: Vec<i32>,
    words: Vec<usize>,
    /// `u8`s (branch indices) and `bool`s.
    bytes: Vec<u8>,
}

impl Buffers {
    fn capacity_bytes(&self) -> usize {
        use std::mem::size_of;
        self.f64s.capacity() * size_of::<f64>()
            + self.f32s.capacity() * size_of::<f32>()
            + self.i64s.capacity() * size_of::<i64>()
            + self.i32s.capacity() * size_of::<i32>()
            + self.words.capacity() * size_of::<usize>()
            + self.bytes.capacity()
    }

    fn lens(&self) -> [usize; 6] {
        [
            self.f64s.len(),
            self.f32s.len(),
            self.i64s.len(),
            self.i32s.len(),
            self.words.len(),
            self.bytes.len(),
        ]
    }

    fn clear(&mut self) {
        self.f64s.clear();
        self.f32s.clear();
        self.i64s.clear();
        self.i32s.clear();
        self.words.clear();
        self.bytes.clear();
    }
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
            others_len: 0,
        }
    }

    fn other<V: Clone + 'static>(&mut self) -> &mut Vec<V> {
        let id = TypeId::of::<V>();
        let at = match self.others.iter().position(|(t, _)| *t == id) {
            Some(at) => at,
            None => {
                self.others.push((id, Box::new(Vec::<V>::new())));
                self.others.len() - 1
            }
        };
        // The stack stored under `TypeId::of::<V>()` is a `Vec<V>`.
        match self.others[at].1.as_any().downcast_mut::<Vec<V>>() {
            Some(v) => v,
            None => unreachable!("the stack of a TypeId holds that type"),
        }
    }

    /// The tape's lengths, for [`Tape::rollback`] after a call that only
    /// records. Allocates only when values of types without a buffer of
    /// their own were recorded.
    pub fn mark(&self) -> Mark {
        Mark {
            lens: self.b.lens(),
            others: self.others.iter().map(|(_, s)| s.len()).collect(),
        }
    }

    /// Forgets what was recorded since `mark`. (Values popped since are
    /// not brought back: a call that pops takes a [`Tape::snapshot`].)
    pub fn rollback(&mut self, mark: Mark) {
        let [f64s, f32s, i64s, i32s, words, bytes] = mark.lens;
        let b = &mut self.b;
        b.f64s.truncate(f64s);
        b.f32s.truncate(f32s);
        b.i64s.truncate(i64s);
        b.i32s.truncate(i32s);
        b.words.truncate(words);
        b.bytes.truncate(bytes);
        let mut lens = mark.others.into_iter();
        for (_, stack) in &mut self.others {
            stack.truncate(lens.next().unwrap_or(0));
        }
        self.others_len = self.others.iter().map(|(_, s)| s.len()).sum();
    }

    /// A copy of the tape's values, for [`Tape::restore`] after a call that
    /// pops.
    pub fn snapshot(&self) -> Tape {
        Tape {
            b: self.b.clone(),
            others: self
                .others
                .iter()
                .map(|(id, s)| (*id, s.clone_box()))
                .collect(),
            others_len: self.others_len,
        }
    }

    /// Puts back the values of a [`Tape::snapshot`].
    pub fn restore(&mut self, snapshot: Tape) {
        *self = snapshot;
    }

    /// Makes room for `n` more values of type `V` (a `for` loop reserves
    /// its trip count). A hint: when that much memory cannot be had, the
    /// stack grows as values come instead.
    pub fn reserve<V: Clone + 'static>(&mut self, n: usize) {
        let _ = match buffer::<V>() {
            Buffer::F64 => self.b.f64s.try_reserve(n),
            Buffer::F32 => self.b.f32s.try_reserve(n),
            Buffer::I64 => self.b.i64s.try_reserve(n),
            Buffer::I32 => self.b.i32s.try_reserve(n),
            Buffer::Word => self.b.words.try_reserve(n),
            Buffer::Byte | Buffer::Bool => self.b.bytes.try_reserve(n),
            Buffer::Other => self.other::<V>().try_reserve(n),
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
        self.others_len += 1;
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
            Buffer::Other => {
                let v = self.other::<V>().pop().ok_or_else(|| empty(location))?;
                self.others_len -= 1;
                Ok(v)
            }
        }
    }

    /// How many values the tape holds, of every type.
    pub fn len(&self) -> usize {
        self.b.f64s.len()
            + self.b.f32s.len()
            + self.b.i64s.len()
            + self.b.i32s.len()
            + self.b.words.len()
            + self.b.bytes.len()
            + self.others_len
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
    fn rollback_forgets_what_was_recorded_and_restore_brings_back_what_was_popped() {
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
        let saved = t.snapshot();
        assert_eq!(t.pop::<f64>(LOC).unwrap(), 1.5);
        assert_eq!(t.pop::<crate::Complex<f64>>(LOC).unwrap().im, -1.0);
        assert_eq!(t.pop::<usize>(LOC).unwrap(), 2);
        assert!(t.is_empty());
        t.restore(saved);
        assert_eq!(t.len(), 3);
        // Everything is back, in order.
        assert_eq!(t.pop::<crate::Complex<f64>>(LOC).unwrap().re, 1.0);
        assert_eq!(t.pop::<usize>(LOC).unwrap(), 2);
        assert_eq!(t.pop::<f64>(LOC).unwrap(), 1.5);
        assert!(t.pop::<u16>(LOC).is_err());
        assert!(t.pop::<bool>(LOC).is_err());
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

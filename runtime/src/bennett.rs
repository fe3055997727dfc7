//! Bennett's time-space trade-off for a chain of reversible steps (seed 001,
//! section 2 and appendix A).
//!
//! A chain `x_{i+1} = f(x_i)` of `n` steps, run by reverse computing alone,
//! either keeps every state (`O(n)` memory) or recomputes from the start.
//! Bennett's schedule splits the chain into `k` sectors, runs them forwards
//! (the P process) and then uncomputes the first `k - 1` (the Q process), so
//! that only the sector's end state stays; each sector is split the same way,
//! recursively. For `n = k^m` steps at most `m (k - 1) + 2` states are alive
//! at once and the steps run `(2k - 1)^m` times in all (forwards and
//! backwards). A length that is not a power of `k` is split into `k` nearly
//! equal parts (the first ones one step longer).
//!
//! A step is a reversible function that accumulates the next state into a
//! zero state, `step(next, current)` (a generated `f`), with its inverse
//! `unstep(next, current)` (the generated `uncall_f`), which returns `next`
//! to zero. States live in a map from their index to their value, so memory
//! follows the live states, not the chain's length; a state is freed only
//! after checking that it is zero again (within `atol`).
//!
//! [`Bennett::gradient`] runs the same schedule backwards with the steps'
//! reverse passes (`f_adjoint` and `uncall_f_adjoint`): a state that the
//! forward schedule frees is allocated again with a zero adjoint, and a
//! state it allocates is freed with its adjoint, as for any ancilla.

use std::collections::BTreeMap;

use crate::{Check, CheckEq, Error, Location, Real, Result, zero};

/// How often the steps ran and how many states were alive at once.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Counts {
    /// Calls of the step, forwards.
    pub steps: u64,
    /// Calls of its inverse.
    pub unsteps: u64,
    /// The largest number of states alive at once, the input included.
    pub peak_states: usize,
}

impl Counts {
    /// Every call, forwards and backwards.
    pub fn total(&self) -> u64 {
        self.steps + self.unsteps
    }
}

/// Bennett's schedule with `k` sectors per level.
#[derive(Clone, Copy, Debug)]
pub struct Bennett {
    k: usize,
    atol: f64,
}

/// The lengths of the sectors a run of `len` steps is split into.
fn sectors(len: usize, k: usize) -> impl DoubleEndedIterator<Item = (usize, usize)> {
    let parts = k.min(len);
    let (base, extra) = (len / parts, len % parts);
    (0..parts).map(move |j| {
        let start = j * base + j.min(extra);
        let size = base + usize::from(j < extra);
        (start, size)
    })
}

/// The state update of one leaf of the schedule.
trait Leaf<T> {
    /// `next = 0` is allocated, then accumulated from `current`.
    fn forward(&mut self, i: usize, states: &mut States<T>) -> Result;
    /// `next` is returned to zero from `current`, then freed.
    fn backward(&mut self, i: usize, states: &mut States<T>) -> Result;
}

/// The live states (and, in a gradient, their adjoints).
struct States<T> {
    values: BTreeMap<usize, Vec<T>>,
    bars: BTreeMap<usize, Vec<T>>,
    width: usize,
    counts: Counts,
    atol: f64,
    location: Location,
}

impl<T: Real> States<T> {
    fn get(&self, i: usize) -> &[T] {
        &self.values[&i]
    }

    fn alloc(&self) -> Vec<T> {
        vec![zero::<T>(); self.width]
    }

    fn insert(&mut self, i: usize, v: Vec<T>) {
        self.values.insert(i, v);
        self.counts.peak_states = self.counts.peak_states.max(self.values.len());
    }

    /// Frees state `i` after checking that it is zero.
    fn free(&mut self, i: usize, v: Vec<T>) -> Result {
        let z = zero::<T>();
        if !v.iter().all(|x| x.check_eq(&z, self.atol)) {
            let zeros = self.alloc();
            return Err(Error::new(
                self.location,
                Check::Deallocation,
                format!(
                    "state {i} of the chain must be zero again when Bennett's schedule frees it"
                ),
                &zeros,
                &v,
            ));
        }
        Ok(())
    }
}

impl Bennett {
    /// A schedule with `k >= 2` sectors per level; freed states are checked
    /// against zero within `atol`.
    pub fn new(k: usize, atol: f64) -> Option<Bennett> {
        (k >= 2).then_some(Bennett { k, atol })
    }

    pub fn k(&self) -> usize {
        self.k
    }

    /// Runs `n` steps from `x0` and returns the last state. Only the input
    /// and the last state are alive when it returns.
    ///
    /// `step(next, current)` must accumulate into a zero `next`, and
    /// `unstep` must undo it. An error from either, or a state that is not
    /// zero when freed, stops the run.
    #[track_caller]
    pub fn run<T, S, U>(&self, x0: &[T], n: usize, step: S, unstep: U) -> Result<(Vec<T>, Counts)>
    where
        T: Real,
        S: FnMut(&mut [T], &[T]) -> Result,
        U: FnMut(&mut [T], &[T]) -> Result,
    {
        let mut states = self.states(x0, std::panic::Location::caller());
        let mut leaf = Plain { step, unstep };
        self.exec(&mut leaf, &mut states, 0, n, true)?;
        let last = states.values.remove(&n).unwrap_or_else(|| x0.to_vec());
        Ok((last, states.counts))
    }

    /// The gradient through `n` steps: runs the schedule forwards, then
    /// backwards with the steps' reverse passes, starting from the adjoint
    /// `xn_bar` of the last state. Returns the last state and the adjoint of
    /// `x0`.
    ///
    /// `step_adjoint(next, next_bar, current, current_bar)` is the reverse
    /// pass of `step` (it returns `next` to zero and adds to `current_bar`),
    /// `uncall_step_adjoint` its inverse.
    #[allow(clippy::too_many_arguments)]
    #[track_caller]
    pub fn gradient<T, S, U, A, B>(
        &self,
        x0: &[T],
        n: usize,
        xn_bar: &[T],
        step: S,
        unstep: U,
        step_adjoint: A,
        uncall_step_adjoint: B,
    ) -> Result<(Vec<T>, Vec<T>, Counts)>
    where
        T: Real,
        S: FnMut(&mut [T], &[T]) -> Result,
        U: FnMut(&mut [T], &[T]) -> Result,
        A: FnMut(&mut [T], &mut [T], &[T], &mut [T]) -> Result,
        B: FnMut(&mut [T], &mut [T], &[T], &mut [T]) -> Result,
    {
        let mut states = self.states(x0, std::panic::Location::caller());
        self.exec(&mut Plain { step, unstep }, &mut states, 0, n, true)?;
        let last = states
            .values
            .get(&n)
            .cloned()
            .unwrap_or_else(|| x0.to_vec());
        if n == 0 {
            return Ok((last, xn_bar.to_vec(), states.counts));
        }
        states.bars.insert(0, vec![zero::<T>(); x0.len()]);
        states.bars.insert(n, xn_bar.to_vec());
        let mut leaf = Reverse {
            step_adjoint,
            uncall_step_adjoint,
        };
        // The reverse pass runs the inverse schedule: its leaves that free a
        // state are the forward's allocations, taken back.
        self.exec(&mut leaf, &mut states, 0, n, false)?;
        let x0_bar = states.bars.remove(&0).unwrap_or_default();
        Ok((last, x0_bar, states.counts))
    }

    fn states<T: Real>(&self, x0: &[T], caller: &std::panic::Location<'static>) -> States<T> {
        let mut values = BTreeMap::new();
        values.insert(0, x0.to_vec());
        States {
            values,
            bars: BTreeMap::new(),
            width: x0.len(),
            counts: Counts {
                peak_states: 1,
                ..Counts::default()
            },
            atol: self.atol,
            location: Location {
                file: caller.file(),
                line: caller.line(),
                column: caller.column(),
            },
        }
    }

    /// The sector `[i, i + len)`: computed when `forwards`, otherwise
    /// uncomputed (the same calls inverted, in the opposite order).
    fn exec<T: Real>(
        &self,
        leaf: &mut impl Leaf<T>,
        states: &mut States<T>,
        i: usize,
        len: usize,
        forwards: bool,
    ) -> Result {
        if len == 0 {
            return Ok(());
        }
        if len == 1 {
            return if forwards {
                leaf.forward(i, states)
            } else {
                leaf.backward(i, states)
            };
        }
        let parts: Vec<(usize, usize)> = sectors(len, self.k).collect();
        let inner = &parts[..parts.len() - 1];
        if forwards {
            // P: every sector forwards; Q: all but the last one undone.
            for &(s, l) in &parts {
                self.exec(leaf, states, i + s, l, true)?;
            }
            for &(s, l) in inner.iter().rev() {
                self.exec(leaf, states, i + s, l, false)?;
            }
        } else {
            for &(s, l) in inner {
                self.exec(leaf, states, i + s, l, true)?;
            }
            for &(s, l) in parts.iter().rev() {
                self.exec(leaf, states, i + s, l, false)?;
            }
        }
        Ok(())
    }
}

/// The forward leaves: `step` and `unstep`.
struct Plain<S, U> {
    step: S,
    unstep: U,
}

impl<T: Real, S, U> Leaf<T> for Plain<S, U>
where
    S: FnMut(&mut [T], &[T]) -> Result,
    U: FnMut(&mut [T], &[T]) -> Result,
{
    fn forward(&mut self, i: usize, states: &mut States<T>) -> Result {
        let mut next = states.alloc();
        (self.step)(&mut next, states.get(i))?;
        states.counts.steps += 1;
        states.insert(i + 1, next);
        Ok(())
    }

    fn backward(&mut self, i: usize, states: &mut States<T>) -> Result {
        let mut next = states.values.remove(&(i + 1)).unwrap_or_default();
        (self.unstep)(&mut next, states.get(i))?;
        states.counts.unsteps += 1;
        states.free(i + 1, next)
    }
}

/// The reverse pass's leaves. In the inverse schedule a leaf that
/// allocates `next` is the reverse of one that freed it: `next` comes back
/// with a zero adjoint and is recomputed by `uncall_step_adjoint`. A leaf
/// that frees `next` is the reverse of its computation: `step_adjoint`
/// returns it to zero, adds to the adjoint of `current`, and `next`'s
/// adjoint is dropped with it.
struct Reverse<A, B> {
    step_adjoint: A,
    uncall_step_adjoint: B,
}

impl<T: Real, A, B> Leaf<T> for Reverse<A, B>
where
    A: FnMut(&mut [T], &mut [T], &[T], &mut [T]) -> Result,
    B: FnMut(&mut [T], &mut [T], &[T], &mut [T]) -> Result,
{
    fn forward(&mut self, i: usize, states: &mut States<T>) -> Result {
        let mut next = states.alloc();
        let mut next_bar = states.alloc();
        let mut bar = states.bars.remove(&i).unwrap_or_default();
        let r = (self.uncall_step_adjoint)(&mut next, &mut next_bar, states.get(i), &mut bar);
        states.bars.insert(i, bar);
        r?;
        states.counts.steps += 1;
        states.insert(i + 1, next);
        states.bars.insert(i + 1, next_bar);
        Ok(())
    }

    fn backward(&mut self, i: usize, states: &mut States<T>) -> Result {
        let mut next = states.values.remove(&(i + 1)).unwrap_or_default();
        let mut next_bar = states.bars.remove(&(i + 1)).unwrap_or_default();
        let mut bar = states.bars.remove(&i).unwrap_or_default();
        let r = (self.step_adjoint)(&mut next, &mut next_bar, states.get(i), &mut bar);
        states.bars.insert(i, bar);
        r?;
        states.counts.unsteps += 1;
        states.free(i + 1, next)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn double(y: &mut [f64], x: &[f64]) -> Result {
        y[0] += 2.0 * x[0];
        Ok(())
    }

    fn undouble(y: &mut [f64], x: &[f64]) -> Result {
        y[0] -= 2.0 * x[0];
        Ok(())
    }

    #[test]
    fn powers_of_k_meet_the_bounds() {
        for (k, m) in [(2usize, 1u32), (2, 5), (3, 3), (4, 2), (4, 3), (5, 2)] {
            let n = k.pow(m);
            let b = Bennett::new(k, 0.0).unwrap();
            let (last, counts) = b.run(&[1.0], n, double, undouble).unwrap();
            assert_eq!(last, vec![2f64.powi(n as i32)], "k = {k}, m = {m}");
            assert_eq!(
                counts.peak_states,
                m as usize * (k - 1) + 2,
                "k = {k}, m = {m}"
            );
            assert_eq!(
                counts.total(),
                (2 * k as u64 - 1).pow(m),
                "k = {k}, m = {m}"
            );
            // Only the last state stays allocated.
            assert_eq!(counts.steps - counts.unsteps, 1);
        }
    }

    #[test]
    fn any_length_reaches_the_end() {
        let b = Bennett::new(3, 0.0).unwrap();
        for n in 0..40 {
            let (last, counts) = b.run(&[1.0], n, double, undouble).unwrap();
            assert_eq!(last, vec![2f64.powi(n as i32)], "n = {n}");
            assert_eq!(counts.steps - counts.unsteps, u64::from(n > 0));
        }
    }

    #[test]
    fn gradient_of_doubling() {
        let b = Bennett::new(4, 0.0).unwrap();
        let adj = |y: &mut [f64], yb: &mut [f64], x: &[f64], xb: &mut [f64]| {
            xb[0] += 2.0 * yb[0];
            y[0] -= 2.0 * x[0];
            Ok(())
        };
        let unadj = |y: &mut [f64], yb: &mut [f64], x: &[f64], xb: &mut [f64]| {
            y[0] += 2.0 * x[0];
            xb[0] -= 2.0 * yb[0];
            Ok(())
        };
        let (last, x0_bar, _) = b
            .gradient(&[3.0], 10, &[1.0], double, undouble, adj, unadj)
            .unwrap();
        assert_eq!(last, vec![3.0 * 1024.0]);
        assert_eq!(x0_bar, vec![1024.0]);
    }

    #[test]
    fn a_dirty_state_is_an_error() {
        let b = Bennett::new(2, 1e-12).unwrap();
        let sloppy = |y: &mut [f64], x: &[f64]| {
            y[0] -= 2.0 * x[0] + 1.0;
            Ok(())
        };
        let e = b.run(&[1.0], 4, double, sloppy).unwrap_err();
        assert_eq!(e.check, Check::Deallocation);
        assert!(e.location.file.ends_with("bennett.rs"), "{}", e.location);
        assert!(e.what.contains("state"), "{}", e.what);
    }

    #[test]
    fn k_below_two_is_refused() {
        assert!(Bennett::new(1, 0.0).is_none());
        assert!(Bennett::new(0, 0.0).is_none());
    }
}

//! Copies of the arguments a generated entry point can change, so that a
//! call returning `Err` gives them back bit for bit (README, "Using `.nil`
//! files from Rust"). The buffers come from a per-thread pool and go back to
//! it, so a function called again (a gradient in a loop) allocates nothing
//! after its first call.

use std::any::{Any, TypeId};
use std::cell::RefCell;

thread_local! {
    /// Per element type, the buffers not in use (a stack of `Vec<T>`).
    static POOL: RefCell<Vec<(TypeId, Box<dyn Any>)>> = const { RefCell::new(Vec::new()) };
}

fn take<T: 'static>() -> Vec<T> {
    POOL.try_with(|pool| {
        let mut pool = pool.try_borrow_mut().ok()?;
        let (_, free) = pool.iter_mut().find(|(t, _)| *t == TypeId::of::<T>())?;
        free.downcast_mut::<Vec<Vec<T>>>()?.pop()
    })
    .ok()
    .flatten()
    .unwrap_or_default()
}

fn give_back<T: 'static>(mut items: Vec<T>) {
    items.clear();
    if items.capacity() == 0 {
        return;
    }
    let _ = POOL.try_with(|pool| {
        let Ok(mut pool) = pool.try_borrow_mut() else {
            return;
        };
        let at = match pool.iter().position(|(t, _)| *t == TypeId::of::<T>()) {
            Some(at) => at,
            None => {
                pool.push((TypeId::of::<T>(), Box::new(Vec::<Vec<T>>::new())));
                pool.len() - 1
            }
        };
        if let Some(free) = pool[at].1.downcast_mut::<Vec<Vec<T>>>() {
            free.push(items);
        }
    });
}

/// The values of one argument at the entry of a call.
pub struct Saved<T: 'static> {
    items: Vec<T>,
}

impl<T: Clone + 'static> Saved<T> {
    /// A copy of `values`.
    pub fn of(values: &[T]) -> Saved<T> {
        Self::of_iter(values.iter())
    }

    /// A copy of the values `iter` visits (a matrix view's elements).
    pub fn of_iter<'a>(iter: impl Iterator<Item = &'a T>) -> Saved<T> {
        let mut items = take::<T>();
        items.extend(iter.cloned());
        Saved { items }
    }

    /// Writes the copy back into `values`, which has the length it had.
    pub fn restore(&self, values: &mut [T]) {
        values.clone_from_slice(&self.items);
    }

    /// Writes the copy back through `iter`, which visits the elements
    /// `of_iter` did, in the same order.
    pub fn restore_iter<'a>(&self, iter: impl Iterator<Item = &'a mut T>) {
        for (to, from) in iter.zip(&self.items) {
            to.clone_from(from);
        }
    }

    /// The values saved.
    pub fn as_slice(&self) -> &[T] {
        &self.items
    }
}

impl<T: 'static> Drop for Saved<T> {
    fn drop(&mut self) {
        give_back(std::mem::take(&mut self.items));
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn saves_restores_and_reuses_its_buffer() {
        let mut v = vec![1.0, 2.0, 3.0];
        let saved = Saved::of(&v);
        v[1] = 9.0;
        saved.restore(&mut v);
        assert_eq!(v, [1.0, 2.0, 3.0]);
        let ptr = saved.as_slice().as_ptr();
        drop(saved);
        let again = Saved::of(&v);
        assert_eq!(again.as_slice().as_ptr(), ptr, "the buffer is reused");
    }
}

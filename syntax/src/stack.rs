//! Deep trees without stack overflows.
//!
//! A left-nested chain (`a + b + c + …`, 10,000 terms) is as deep as it is
//! long, and every pass walks it recursively. Each recursive walker calls
//! [`deep`] on its way down: when little of the thread's stack is left it
//! continues on a fresh segment allocated on the heap, so any depth fits in
//! any thread (a test's 2 MiB thread included), in debug builds too.

/// How much stack must be left before a recursive step runs: more than the
/// largest frames between two calls of [`deep`] in a debug build.
const RED_ZONE: usize = 512 * 1024;

/// The size of each segment added when the red zone is reached.
const SEGMENT: usize = 8 * 1024 * 1024;

/// Runs `f`, on a new stack segment if this thread's is nearly used up.
#[inline]
pub fn deep<R>(f: impl FnOnce() -> R) -> R {
    stacker::maybe_grow(RED_ZONE, SEGMENT, f)
}

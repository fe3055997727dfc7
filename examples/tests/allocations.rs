//! The gradient needs no tape: a counting global allocator sees no
//! allocation at all while the reverse pass runs, however long the run.
//! (The checked build's entry points copy the arrays a call changes, for
//! rollback on `Err`, into per-thread buffers that later calls reuse: a
//! function's first call may allocate them, later calls do not.)

use std::alloc::{GlobalAlloc, Layout, System};
use std::sync::atomic::{AtomicUsize, Ordering};

use nilang_examples::{bessel, linalg, unitary};

struct Counting;

static ALLOCATIONS: AtomicUsize = AtomicUsize::new(0);

unsafe impl GlobalAlloc for Counting {
    unsafe fn alloc(&self, layout: Layout) -> *mut u8 {
        ALLOCATIONS.fetch_add(1, Ordering::SeqCst);
        unsafe { System.alloc(layout) }
    }
    unsafe fn dealloc(&self, ptr: *mut u8, layout: Layout) {
        unsafe { System.dealloc(ptr, layout) }
    }
    unsafe fn realloc(&self, ptr: *mut u8, layout: Layout, new_size: usize) -> *mut u8 {
        ALLOCATIONS.fetch_add(1, Ordering::SeqCst);
        unsafe { System.realloc(ptr, layout, new_size) }
    }
}

#[global_allocator]
static GLOBAL: Counting = Counting;

fn allocations_during(f: impl FnOnce()) -> usize {
    let before = ALLOCATIONS.load(Ordering::SeqCst);
    f();
    ALLOCATIONS.load(Ordering::SeqCst) - before
}

// One test function, so that no other test allocates concurrently.
#[test]
fn gradients_allocate_nothing() {
    // Bessel: the series loop runs more iterations for larger z; a tape
    // would grow with them, uncomputation does not.
    for z in [0.5_f64, 5.0, 20.0] {
        let n = allocations_during(|| {
            let (mut out, mut gout, mut gz) = (0.0_f64, 1.0_f64, 0.0_f64);
            bessel::ibesselj_grad(&mut out, &mut gout, 2, z, &mut gz, 1e-8).unwrap();
            assert!(gz.is_finite());
        });
        assert_eq!(n, 0, "ibesselj_grad at z = {z}");
    }
    // Arrays: the gradient storage is the caller's; nothing else.
    let x: Vec<f64> = (0..10_000).map(|i| (i as f64).sin()).collect();
    let y: Vec<f64> = (0..10_000).map(|i| (i as f64).cos()).collect();
    let mut gx = vec![0.0; x.len()];
    let mut gy = vec![0.0; y.len()];
    let n = allocations_during(|| {
        let (mut out, mut gout) = (0.0_f64, 1.0_f64);
        linalg::dot_grad(&mut out, &mut gout, &x, &mut gx, &y, &mut gy).unwrap();
    });
    assert_eq!(n, 0, "dot_grad");
    assert_eq!(gx, y);
    let mut v: Vec<f64> = (0..64).map(f64::from).collect();
    let theta: Vec<f64> = (0..64 * 63 / 2).map(|i| 0.001 * f64::from(i)).collect();
    let mut gv = vec![1.0; 64];
    let mut gt = vec![0.0; theta.len()];
    // The first call gets the rollback buffers for `v`, `gv` and `gt`.
    unitary::umm_grad(&mut v, &mut gv, &theta, &mut gt).unwrap();
    let n = allocations_during(|| {
        unitary::umm_grad(&mut v, &mut gv, &theta, &mut gt).unwrap();
    });
    assert_eq!(n, 0, "umm_grad");
    // The counter works: a Vec allocates.
    assert!(allocations_during(|| drop(vec![1u8; 16])) >= 1);
}

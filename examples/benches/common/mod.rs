//! Inputs and plain-Rust versions shared by the benchmarks (`forward`,
//! `gradients`). A folder module, so that cargo does not take it for a
//! benchmark of its own.

use nilang::sprs::{CsMat, TriMat};

/// Two 1000 x 1000 CSC matrices with 10,000 nonzeros each (1% dense), in
/// different random patterns.
pub fn sparse_pair() -> (CsMat<f64>, CsMat<f64>) {
    let mut state = 7_u64;
    let mut next = move || {
        state = state
            .wrapping_mul(6364136223846793005)
            .wrapping_add(1442695040888963407);
        (state >> 33) as usize
    };
    let mut make = || {
        let mut t = TriMat::new((1000, 1000));
        let mut seen = std::collections::HashSet::new();
        while seen.len() < 10_000 {
            let (i, j) = (next() % 1000, next() % 1000);
            if seen.insert((i, j)) {
                t.add_triplet(i, j, (next() % 1000) as f64 / 100.0);
            }
        }
        t.to_csc()
    };
    (make(), make())
}

/// trace(A'B) by the same merge of sorted row lists, column by column.
pub fn plain_sparse_dot(a: &CsMat<f64>, b: &CsMat<f64>) -> f64 {
    let mut r = 0.0;
    for (ca, cb) in a.outer_iterator().zip(b.outer_iterator()) {
        let (ia, va) = (ca.indices(), ca.data());
        let (ib, vb) = (cb.indices(), cb.data());
        let (mut x, mut y) = (0, 0);
        while x < ia.len() && y < ib.len() {
            match ia[x].cmp(&ib[y]) {
                std::cmp::Ordering::Equal => {
                    r += va[x] * vb[y];
                    x += 1;
                    y += 1;
                }
                std::cmp::Ordering::Less => x += 1,
                std::cmp::Ordering::Greater => y += 1,
            }
        }
    }
    r
}

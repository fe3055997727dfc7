//! Inputs shared by the benchmarks (`forward`, `gradients`). A folder
//! module, so that cargo does not take it for a benchmark of its own.

pub use nilang_examples::baseline::sparse_dot as plain_sparse_dot;
use nilang_runtime::sprs::CsMat;

/// Two 1000 x 1000 CSC matrices with 10,000 nonzeros each (1% dense), in
/// different random patterns.
pub fn sparse_pair() -> (CsMat<f64>, CsMat<f64>) {
    nilang_examples::baseline::random_csc_pair(7, 1000, 10_000)
}

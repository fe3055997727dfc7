//! Plain-Rust inputs and baselines that the benchmarks of this crate and the
//! summary benchmark of `nilang-adbench` share, so that both time the same
//! things.

use nilang_runtime::sprs::{CsMat, TriMat};

use crate::petersen::Rng;

/// splitmix64: a small deterministic generator for the tests' inputs.
pub struct SplitMix(pub u64);

impl SplitMix {
    pub fn next_u64(&mut self) -> u64 {
        self.0 = self.0.wrapping_add(0x9e37_79b9_7f4a_7c15);
        let mut z = self.0;
        z = (z ^ (z >> 30)).wrapping_mul(0xbf58_476d_1ce4_e5b9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94d0_49bb_1331_11eb);
        z ^ (z >> 31)
    }

    /// Uniform in the open interval (0, 1).
    pub fn uniform(&mut self) -> f64 {
        ((self.next_u64() >> 11) as f64 + 0.5) / (1u64 << 53) as f64
    }

    /// Uniform in [-1, 1).
    pub fn symmetric(&mut self) -> f64 {
        (self.next_u64() >> 11) as f64 / (1u64 << 52) as f64 - 1.0
    }
}

/// The series' first term, (z/2)^v / v!, as both Bessel baselines start.
fn besselj_first_term(v: i64, z: f64) -> f64 {
    let mut fact = 1.0;
    for i in 1..=v {
        fact *= i as f64;
    }
    (z / 2.0).powi(v as i32) / fact
}

/// J_v(z) by the Taylor series, the paper's irreversible `besselj`: the
/// running term is multiplied in place until it is below `atol`.
pub fn besselj(v: i64, z: f64, atol: f64) -> f64 {
    let mut k = 0_i64;
    let mut s = besselj_first_term(v, z);
    let mut out = s;
    while s.abs() > atol {
        k += 1;
        s *= -1.0 / k as f64 / (k + v) as f64 * (z / 2.0).powi(2);
        out += s;
    }
    out
}

/// The primal work that any gradient of `ibesselj` (bessel.nil) has to do,
/// written directly in Rust, with no adjoints and no checks: the forward
/// sweep of the series with the paper's approximate in-place multiplier
/// (`imul`: a product into a dirty ancilla, the old term uncomputed from it
/// by a division, then a swap), and the sweep back that recovers every term
/// by uncomputing, down to the first one. Returns the sum, the recovered
/// first term and the dirty ancilla (about 0 again). The benchmarks time it
/// as the floor of the gradient's cost: a reverse pass without a tape must
/// at least redo this.
pub fn besselj_primal_sweeps(v: i64, z: f64, atol: f64) -> (f64, f64, f64) {
    let halfz = z / 2.0;
    let halfz_power_2 = halfz * halfz;
    let mut term = besselj_first_term(v, z);
    let mut dirty = 0.0f64;
    let mut sum = term;
    let mut k = 0_i64;
    let factor = |k: i64| halfz_power_2 / -((k as f64) * ((k + v) as f64));
    while term.abs() > atol && dirty.abs() < atol {
        k += 1;
        let x = factor(k);
        // imul(term, x, dirty)
        let product = dirty + term * x;
        dirty = term - product / x;
        term = product;
        sum += term;
    }
    while k != 0 {
        let x = factor(k);
        // ~imul(term, x, dirty)
        let (mut out, mut anc) = (dirty, term);
        out += anc / x;
        anc -= out * x;
        term = out;
        dirty = anc;
        k -= 1;
    }
    (sum, term, dirty)
}

/// A `n` x `n` CSC matrix with exactly `nnz` nonzeros at random places, the
/// values uniform in (0, 10); the same `rng` state gives the same matrix.
pub fn random_csc(rng: &mut Rng, n: usize, nnz: usize) -> CsMat<f64> {
    assert!(nnz <= n * n, "{nnz} nonzeros do not fit in {n} x {n}");
    let mut t = TriMat::new((n, n));
    let mut seen = std::collections::HashSet::with_capacity(nnz);
    while seen.len() < nnz {
        let i = (rng.next_u64() % n as u64) as usize;
        let j = (rng.next_u64() % n as u64) as usize;
        if seen.insert((i, j)) {
            t.add_triplet(i, j, rng.uniform() * 10.0);
        }
    }
    t.to_csc()
}

/// Two such matrices from one seed, in different random patterns.
pub fn random_csc_pair(seed: u64, n: usize, nnz: usize) -> (CsMat<f64>, CsMat<f64>) {
    let mut rng = Rng::new(seed);
    let a = random_csc(&mut rng, n, nnz);
    let b = random_csc(&mut rng, n, nnz);
    (a, b)
}

/// trace(A'B) by the merge of the sorted row lists of each column, the
/// algorithm of `sparse.nil` written directly.
pub fn sparse_dot(a: &CsMat<f64>, b: &CsMat<f64>) -> f64 {
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

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn besselj_matches_the_paper() {
        // J2(1.0) as the paper gives it.
        assert!((besselj(2, 1.0, 1e-12) - 0.114_903_484_931_900_48).abs() < 1e-15);
    }

    #[test]
    fn sparse_dot_equals_the_dense_sum() {
        let (a, b) = random_csc_pair(3, 30, 200);
        assert_eq!(a.nnz(), 200);
        assert_ne!(a, b);
        let (da, db) = (a.to_dense(), b.to_dense());
        let dense: f64 = da.iter().zip(db.iter()).map(|(x, y)| x * y).sum();
        let r = sparse_dot(&a, &b);
        assert!(
            (r - dense).abs() <= 1e-12 * dense.abs(),
            "{r} against {dense}"
        );
    }
}

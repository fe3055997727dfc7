//! Gradients from the generated reverse passes against the plain-Rust
//! forward, for the graph embedding (k = 5) and the sparse product. Run
//! with `cargo bench -p nilang-examples --bench gradients`; the numbers are
//! in BENCHMARKS.md.

use divan::black_box;
use nilang_examples::petersen::{self, L1, L2, Rng, view};
use nilang_examples::{graph, sparse, unchecked};

mod common;

fn main() {
    divan::main();
}

/// The Petersen graph's loss at random positions in 5 dimensions.
mod graph_embedding_k5 {
    use super::*;

    const K: usize = 5;

    fn data() -> Vec<f64> {
        Rng::new(1).positions(K)
    }

    /// The loss written directly (`petersen::plain_loss`).
    #[divan::bench]
    fn plain(bencher: divan::Bencher) {
        let x = data();
        bencher.bench(|| petersen::plain_loss(black_box(&x), K));
    }

    type Loss = for<'a> fn(
        &mut f64,
        nilang_runtime::ndarray::ArrayView2<'a, f64>,
        &[i64],
        &[i64],
    ) -> nilang_runtime::Result;

    /// A build called through a function pointer: not inlined into the
    /// bench's loop, whatever its size.
    fn by_pointer(bencher: divan::Bencher, f: Loss) {
        let x = data();
        bencher.bench(|| {
            let mut out = 0.0;
            black_box(f)(&mut out, view(black_box(&x), K), &L1, &L2).unwrap();
            out
        });
    }

    /// The checked forward and the unchecked one that keeps its
    /// uncomputation, neither inlined: what the checks cost apart from
    /// what inlining makes of each build (called directly, the smaller
    /// unchecked build is inlined into the loop and the checked one is not).
    #[divan::bench]
    fn pointer_checked(bencher: divan::Bencher) {
        by_pointer(bencher, graph::embedding_loss);
    }

    #[divan::bench]
    fn pointer_uncomputing(bencher: divan::Bencher) {
        by_pointer(bencher, unchecked::uncomputing::graph::embedding_loss);
    }

    #[divan::bench]
    fn reversible_forward(bencher: divan::Bencher) {
        let x = data();
        bencher.bench(|| {
            let mut out = 0.0;
            graph::embedding_loss(&mut out, view(black_box(&x), K), &L1, &L2).unwrap();
            out
        });
    }

    #[divan::bench]
    fn reversible_forward_unchecked(bencher: divan::Bencher) {
        let x = data();
        bencher.bench(|| {
            let mut out = 0.0;
            unchecked::graph::embedding_loss(&mut out, view(black_box(&x), K), &L1, &L2).unwrap();
            out
        });
    }

    /// No run-time checks, but every uncomputation run: the checked build's
    /// work without its checks.
    #[divan::bench]
    fn reversible_forward_uncomputing(bencher: divan::Bencher) {
        let x = data();
        bencher.bench(|| {
            let mut out = 0.0;
            unchecked::uncomputing::graph::embedding_loss(
                &mut out,
                view(black_box(&x), K),
                &L1,
                &L2,
            )
            .unwrap();
            out
        });
    }

    /// `embedding_loss_grad`: the forward, then the reverse pass.
    #[divan::bench]
    fn gradient(bencher: divan::Bencher) {
        let x = data();
        let mut g = vec![0.0; x.len()];
        bencher.bench_local(|| {
            petersen::gradient_by(graph::embedding_loss_grad, black_box(&x), K, &mut g).unwrap();
            g[0]
        });
    }

    /// Without run-time checks (the reverse pass still runs every
    /// uncomputation; `unchecked_gradient_matches_checked` tests the values).
    #[divan::bench]
    fn gradient_unchecked(bencher: divan::Bencher) {
        let x = data();
        let mut g = vec![0.0; x.len()];
        bencher.bench_local(|| {
            petersen::gradient_by(
                unchecked::graph::embedding_loss_grad,
                black_box(&x),
                K,
                &mut g,
            )
            .unwrap();
            g[0]
        });
    }

    /// The 40 x 40 Hessian block of the free coordinates: 40 runs of the
    /// gradient program on dual numbers.
    #[divan::bench]
    fn hessian_free_block(bencher: divan::Bencher) {
        let x = data();
        bencher
            .bench(|| petersen::hessian(black_box(&x), K, petersen::FIXED * K..x.len()).unwrap());
    }
}

/// trace(A'B) for two 1000 x 1000 CSC matrices at 1% density.
mod sparse_dot_1000 {
    use super::*;

    #[divan::bench]
    fn plain(bencher: divan::Bencher) {
        let (a, b) = common::sparse_pair();
        bencher.bench(|| common::plain_sparse_dot(black_box(&a), black_box(&b)));
    }

    #[divan::bench]
    fn reversible_forward(bencher: divan::Bencher) {
        let (a, b) = common::sparse_pair();
        bencher.bench(|| {
            let mut r = 0.0;
            sparse::sparse_dot(&mut r, black_box(&a).view(), black_box(&b).view()).unwrap();
            r
        });
    }

    #[divan::bench]
    fn reversible_forward_unchecked(bencher: divan::Bencher) {
        let (a, b) = common::sparse_pair();
        bencher.bench(|| {
            let mut r = 0.0;
            unchecked::sparse::sparse_dot(&mut r, black_box(&a).view(), black_box(&b).view())
                .unwrap();
            r
        });
    }

    /// `sparse_dot_grad`: d trace(A'B) / d A.nzval and / d B.nzval.
    #[divan::bench]
    fn gradient(bencher: divan::Bencher) {
        let (a, b) = common::sparse_pair();
        let (mut ga, mut gb) = (vec![0.0; a.nnz()], vec![0.0; b.nnz()]);
        bencher.bench_local(|| {
            let (mut r, mut r_bar) = (0.0, 1.0);
            sparse::sparse_dot_grad(
                &mut r,
                &mut r_bar,
                black_box(&a).view(),
                &mut ga,
                black_box(&b).view(),
                &mut gb,
            )
            .unwrap();
            r
        });
    }

    #[divan::bench]
    fn gradient_unchecked(bencher: divan::Bencher) {
        let (a, b) = common::sparse_pair();
        let (mut ga, mut gb) = (vec![0.0; a.nnz()], vec![0.0; b.nnz()]);
        bencher.bench_local(|| {
            let (mut r, mut r_bar) = (0.0, 1.0);
            unchecked::sparse::sparse_dot_grad(
                &mut r,
                &mut r_bar,
                black_box(&a).view(),
                &mut ga,
                black_box(&b).view(),
                &mut gb,
            )
            .unwrap();
            r
        });
    }
}

//! The reversible forward (and uncall) of the examples against the same
//! algorithm written in plain Rust. Run with
//! `cargo bench -p nilang-examples --bench forward`.

use divan::black_box;
use nilang_examples::{bessel, fib, linalg, qr, sparse, unchecked, unitary};
use nilang_runtime::ndarray::{Array2, ShapeBuilder};

mod common;

fn main() {
    divan::main();
}

use nilang_examples::baseline::{besselj, besselj_primal_sweeps};

mod bessel_j2 {
    use super::*;

    #[divan::bench]
    fn plain() -> f64 {
        besselj(black_box(2), black_box(1.0), 1e-8)
    }

    #[divan::bench]
    fn reversible_forward() -> f64 {
        let mut out = 0.0;
        bessel::ibesselj(&mut out, black_box(2), black_box(1.0), 1e-8).unwrap();
        out
    }

    /// Compiled with `Config::checks(false)`: no run-time checks, and the
    /// final `~@routine` (which only restores freed ancillas) is skipped.
    #[divan::bench]
    fn reversible_forward_unchecked() -> f64 {
        let mut out = 0.0;
        unchecked::bessel::ibesselj(&mut out, black_box(2), black_box(1.0), 1e-8).unwrap();
        out
    }

    /// Compiled with `Config::checks(false).keep_uncomputation(true)`: no
    /// run-time checks, but the final `~@routine` still runs, so this is the
    /// checked build's work without its checks.
    #[divan::bench]
    fn reversible_forward_uncomputing() -> f64 {
        let mut out = 0.0;
        unchecked::uncomputing::bessel::ibesselj(&mut out, black_box(2), black_box(1.0), 1e-8)
            .unwrap();
        out
    }

    type J = fn(&mut f64, i64, f64, f64) -> nilang_runtime::Result;

    /// A build called through a function pointer: not inlined into the
    /// bench's loop, whatever its size.
    fn by_pointer(f: J) -> f64 {
        let mut out = 0.0;
        black_box(f)(&mut out, black_box(2), black_box(1.0), 1e-8).unwrap();
        out
    }

    /// The checked forward and the unchecked one that keeps its
    /// uncomputation, neither inlined: what the checks cost apart from
    /// what inlining makes of each build.
    #[divan::bench]
    fn pointer_checked() -> f64 {
        by_pointer(bessel::ibesselj)
    }

    #[divan::bench]
    fn pointer_uncomputing() -> f64 {
        by_pointer(unchecked::uncomputing::bessel::ibesselj)
    }

    /// The gradient dJ/dz: forward, then the reverse pass (checks on).
    #[divan::bench]
    fn gradient() -> f64 {
        let (mut out, mut gout, mut gz) = (0.0, 1.0, 0.0);
        bessel::ibesselj_grad(
            &mut out,
            &mut gout,
            black_box(2),
            black_box(1.0),
            &mut gz,
            1e-8,
        )
        .unwrap();
        gz
    }

    #[divan::bench]
    fn gradient_unchecked() -> f64 {
        let (mut out, mut gout, mut gz) = (0.0, 1.0, 0.0);
        unchecked::bessel::ibesselj_grad(
            &mut out,
            &mut gout,
            black_box(2),
            black_box(1.0),
            &mut gz,
            1e-8,
        )
        .unwrap();
        gz
    }

    /// Not a build of ours: the two primal sweeps that any tape-free
    /// gradient of this program must run, in plain Rust (no adjoints, no
    /// checks). The floor under `gradient`.
    #[divan::bench]
    fn primal_sweeps() -> (f64, f64, f64) {
        besselj_primal_sweeps(black_box(2), black_box(1.0), 1e-8)
    }

    #[divan::bench]
    fn uncall() -> f64 {
        let mut out = 0.11490348492980633;
        bessel::uncall_ibesselj(&mut out, black_box(2), black_box(1.0), 1e-8).unwrap();
        out
    }
}

/// The same builds, and the primal sweeps, with the series cut at other
/// tolerances: 3, 5, 7 and 8 terms after the first for `atol` = 1e-4, 1e-8,
/// 1e-12, 1e-16. The slope over the terms is the cost of one term, apart
/// from the fixed cost of the call.
mod bessel_j2_terms {
    use super::*;

    const ATOL: [f64; 4] = [1e-4, 1e-8, 1e-12, 1e-16];

    #[divan::bench(args = ATOL)]
    fn plain(atol: f64) -> f64 {
        besselj(black_box(2), black_box(1.0), atol)
    }

    #[divan::bench(args = ATOL)]
    fn primal_sweeps(atol: f64) -> (f64, f64, f64) {
        besselj_primal_sweeps(black_box(2), black_box(1.0), atol)
    }

    #[divan::bench(args = ATOL)]
    fn reversible_forward(atol: f64) -> f64 {
        let mut out = 0.0;
        bessel::ibesselj(&mut out, black_box(2), black_box(1.0), atol).unwrap();
        out
    }

    #[divan::bench(args = ATOL)]
    fn reversible_forward_unchecked(atol: f64) -> f64 {
        let mut out = 0.0;
        unchecked::bessel::ibesselj(&mut out, black_box(2), black_box(1.0), atol).unwrap();
        out
    }

    #[divan::bench(args = ATOL)]
    fn gradient(atol: f64) -> f64 {
        let (mut out, mut gout, mut gz) = (0.0, 1.0, 0.0);
        bessel::ibesselj_grad(
            &mut out,
            &mut gout,
            black_box(2),
            black_box(1.0),
            &mut gz,
            atol,
        )
        .unwrap();
        gz
    }

    #[divan::bench(args = ATOL)]
    fn gradient_unchecked(atol: f64) -> f64 {
        let (mut out, mut gout, mut gz) = (0.0, 1.0, 0.0);
        unchecked::bessel::ibesselj_grad(
            &mut out,
            &mut gout,
            black_box(2),
            black_box(1.0),
            &mut gz,
            atol,
        )
        .unwrap();
        gz
    }
}

mod dot_1000 {
    use super::*;

    fn data() -> (Vec<f64>, Vec<f64>) {
        let a: Vec<f64> = (0..1000).map(|i| (i as f64 * 0.37).sin()).collect();
        let b: Vec<f64> = (0..1000).map(|i| (i as f64 * 0.11).cos()).collect();
        (a, b)
    }

    #[divan::bench]
    fn plain(bencher: divan::Bencher) {
        let (a, b) = data();
        bencher.bench(|| {
            let (a, b) = (black_box(&a), black_box(&b));
            let mut out = 0.0;
            for i in 0..a.len() {
                out += a[i] * b[i];
            }
            out
        });
    }

    #[divan::bench]
    fn reversible_forward(bencher: divan::Bencher) {
        let (a, b) = data();
        bencher.bench(|| {
            let mut out = 0.0;
            linalg::dot(&mut out, black_box(&a), black_box(&b)).unwrap();
            out
        });
    }

    #[divan::bench]
    fn reversible_forward_unchecked(bencher: divan::Bencher) {
        let (a, b) = data();
        bencher.bench(|| {
            let mut out = 0.0;
            unchecked::linalg::dot(&mut out, black_box(&a), black_box(&b)).unwrap();
            out
        });
    }

    #[divan::bench]
    fn gradient(bencher: divan::Bencher) {
        let (a, b) = data();
        let (mut ga, mut gb) = (vec![0.0; a.len()], vec![0.0; b.len()]);
        bencher.bench_local(|| {
            let (mut out, mut gout) = (0.0, 1.0);
            linalg::dot_grad(
                &mut out,
                &mut gout,
                black_box(&a),
                &mut ga,
                black_box(&b),
                &mut gb,
            )
            .unwrap();
            out
        });
    }
}

mod umm_16 {
    use super::*;

    fn data() -> (Vec<f64>, Vec<f64>) {
        let n = 16;
        let x: Vec<f64> = (0..n).map(|i| i as f64).collect();
        let theta: Vec<f64> = (0..n * (n - 1) / 2).map(|i| 0.01 * i as f64).collect();
        (x, theta)
    }

    #[divan::bench]
    fn plain(bencher: divan::Bencher) {
        let (x, theta) = data();
        bencher.bench(|| {
            let mut x = x.clone();
            let n = x.len();
            let mut k = 0;
            for j in 0..n {
                for i in (j..n - 1).rev() {
                    let (s, c) = theta[k].sin_cos();
                    let (a, b) = (x[i], x[i + 1]);
                    x[i] = a * c - b * s;
                    x[i + 1] = b * c + a * s;
                    k += 1;
                }
            }
            x
        });
    }

    #[divan::bench]
    fn reversible_forward(bencher: divan::Bencher) {
        let (x, theta) = data();
        bencher.bench(|| {
            let mut x = x.clone();
            unitary::umm(&mut x, black_box(&theta)).unwrap();
            x
        });
    }
}

mod fib_20 {
    use super::*;

    fn plain_fib(n: f64) -> f64 {
        if n <= 2.0 {
            1.0
        } else {
            plain_fib(n - 1.0) + plain_fib(n - 2.0)
        }
    }

    #[divan::bench]
    fn plain() -> f64 {
        plain_fib(black_box(20.0))
    }

    #[divan::bench]
    fn reversible_forward() -> f64 {
        let mut out = 0.0;
        fib::rfib(&mut out, black_box(20.0)).unwrap();
        out
    }

    #[divan::bench]
    fn reversible_forward_unchecked() -> f64 {
        let mut out = 0.0;
        unchecked::fib::rfib(&mut out, black_box(20.0)).unwrap();
        out
    }
}

mod qr_16 {
    use super::*;

    fn data() -> Array2<f64> {
        let n = 16;
        Array2::from_shape_fn((n, n).f(), |(i, j)| {
            if i == j {
                4.0
            } else {
                ((i * 7 + j * 3) % 11) as f64 / 11.0
            }
        })
    }

    /// The same Gram-Schmidt, written directly (ri is recomputed into a
    /// buffer instead of uncomputed).
    fn plain_qr(q: &mut Array2<f64>, r: &mut Array2<f64>, a: &Array2<f64>) {
        let n = a.nrows();
        let mut ri = vec![0.0; n];
        for col in 0..a.ncols() {
            for (x, y) in ri.iter_mut().zip(a.column(col)) {
                *x = *y;
            }
            for pre in 0..col {
                let d: f64 = q.column(pre).iter().zip(&ri).map(|(x, y)| x * y).sum();
                r[[pre, col]] = d;
                for row in 0..n {
                    ri[row] -= d * q[[row, pre]];
                }
            }
            let norm = ri.iter().map(|x| x * x).sum::<f64>().sqrt();
            r[[col, col]] = norm;
            for row in 0..n {
                q[[row, col]] = ri[row] / norm;
            }
        }
    }

    #[divan::bench]
    fn plain(bencher: divan::Bencher) {
        let a = data();
        bencher.bench(|| {
            let mut q = Array2::<f64>::zeros((16, 16).f());
            let mut r = Array2::<f64>::zeros((16, 16).f());
            plain_qr(&mut q, &mut r, black_box(&a));
            (q, r)
        });
    }

    #[divan::bench]
    fn reversible_forward(bencher: divan::Bencher) {
        let a = data();
        bencher.bench(|| {
            let mut q = Array2::<f64>::zeros((16, 16).f());
            let mut r = Array2::<f64>::zeros((16, 16).f());
            qr::qr(q.view_mut(), r.view_mut(), black_box(&a).view()).unwrap();
            (q, r)
        });
    }

    #[divan::bench]
    fn reversible_forward_unchecked(bencher: divan::Bencher) {
        let a = data();
        bencher.bench(|| {
            let mut q = Array2::<f64>::zeros((16, 16).f());
            let mut r = Array2::<f64>::zeros((16, 16).f());
            unchecked::qr::qr(q.view_mut(), r.view_mut(), black_box(&a).view()).unwrap();
            (q, r)
        });
    }
}

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
}

//! The reversible forward (and uncall) of the examples against the same
//! algorithm written in plain Rust. Run with
//! `cargo bench -p nilang-examples --bench forward`.

use divan::black_box;
use nilang_examples::{bessel, fib, linalg, unitary};

fn main() {
    divan::main();
}

/// Plain Rust J_v(z), the paper's irreversible `besselj`.
fn besselj(v: i64, z: f64, atol: f64) -> f64 {
    let mut k = 0_i64;
    let mut fact = 1.0;
    for i in 1..=v {
        fact *= i as f64;
    }
    let mut s = (z / 2.0).powi(v as i32) / fact;
    let mut out = s;
    while s.abs() > atol {
        k += 1;
        s *= -1.0 / k as f64 / (k + v) as f64 * (z / 2.0).powi(2);
        out += s;
    }
    out
}

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

    #[divan::bench]
    fn uncall() -> f64 {
        let mut out = 0.11490348492980633;
        bessel::uncall_ibesselj(&mut out, black_box(2), black_box(1.0), 1e-8).unwrap();
        out
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
}

//! The standard library written in `.nil` (`analysis/std/*.nil`, see
//! docs/stdlib.md): every function run forwards against a plain-Rust value,
//! backwards (its uncall restores the inputs), and, where it has
//! differentiable parameters, through its gradient against central
//! differences, at a few sizes. The templates of std.functional are reached
//! through their instances in `nil/stdlib_use.nil`.

use nilang::Stack;
use nilang::ndarray::{Array2, ShapeBuilder};
use nilang::sprs::{CsMat, TriMat};
use nilang::stdlib::{
    functional as fu, linalg as la, lognumber as ln, sorting as so, sparse as sp, special as sf,
    stats as st,
};
use nilang_tests::Rng;
use nilang_tests::stdlib_use as su;

const RTOL: f64 = 1e-6;
const ATOL: f64 = 1e-8;
const SIZES: [usize; 4] = [1, 2, 5, 9];

fn vector(rng: &mut Rng, n: usize) -> Vec<f64> {
    (0..n).map(|_| rng.next()).collect()
}

/// An m×n matrix stored by column, as generated code wants it.
fn matrix(rng: &mut Rng, m: usize, n: usize) -> Array2<f64> {
    Array2::from_shape_vec((m, n).f(), vector(rng, m * n)).unwrap()
}

fn close(a: f64, b: f64, tol: f64) -> bool {
    (a - b).abs() <= tol * (1.0 + b.abs())
}

fn assert_close(what: &str, a: f64, b: f64, tol: f64) {
    assert!(close(a, b, tol), "{what}: {a} against {b}");
}

fn assert_all_close(what: &str, a: &[f64], b: &[f64], tol: f64) {
    assert_eq!(a.len(), b.len(), "{what}: lengths");
    for (i, (x, y)) in a.iter().zip(b).enumerate() {
        assert!(close(*x, *y, tol), "{what}[{i}]: {x} against {y}");
    }
}

/// The gradient `grad` against central differences of `loss` at `p`.
fn check_gradient(what: &str, p: &[f64], grad: &[f64], loss: impl FnMut(&[f64]) -> f64) {
    nilang::check_gradient(loss, p, grad, RTOL, ATOL).unwrap_or_else(|e| panic!("{what}: {e}"));
}

/// `Σ w[i] y[i]`.
fn weighted(w: &[f64], y: &[f64]) -> f64 {
    w.iter().zip(y).map(|(a, b)| a * b).sum()
}

fn cat(parts: &[&[f64]]) -> Vec<f64> {
    parts.iter().flat_map(|p| p.iter().copied()).collect()
}

// ---------------------------------------------------------------- linalg

/// A scalar reduction `out += r(x, y)` of two vectors: forwards against
/// `expect`, backwards, and its gradient (`out` and both vectors).
type Reduce2 = fn(&mut f64, &[f64], &[f64]) -> nilang::Result;
type Reduce2Grad = fn(&mut f64, &mut f64, &[f64], &mut [f64], &[f64], &mut [f64]) -> nilang::Result;

fn check_reduce2(
    what: &str,
    call: Reduce2,
    uncall: Reduce2,
    grad: Reduce2Grad,
    expect: fn(&[f64], &[f64]) -> f64,
) {
    let mut rng = Rng(0x5EED_0001);
    for n in [0, 1, 3, 8] {
        let (x, y) = (vector(&mut rng, n), vector(&mut rng, n));
        let mut out = 0.75;
        call(&mut out, &x, &y).unwrap();
        assert_close(what, out, 0.75 + expect(&x, &y), 1e-12);
        uncall(&mut out, &x, &y).unwrap();
        assert_close(what, out, 0.75, 1e-12);
        let (mut out, mut out_bar) = (0.75, 1.0);
        let (mut x_bar, mut y_bar) = (vec![0.0; n], vec![0.0; n]);
        grad(&mut out, &mut out_bar, &x, &mut x_bar, &y, &mut y_bar).unwrap();
        assert_close(what, out, 0.75, 1e-12);
        let p = cat(&[&[0.75], &x, &y]);
        check_gradient(what, &p, &cat(&[&[out_bar], &x_bar, &y_bar]), |p| {
            let mut out = p[0];
            call(&mut out, &p[1..=n], &p[n + 1..]).unwrap();
            out
        });
    }
}

#[test]
fn dot_sqdistance() {
    check_reduce2(
        "i_dot",
        la::i_dot,
        la::uncall_i_dot,
        la::i_dot_grad,
        weighted,
    );
    check_reduce2(
        "i_sqdistance",
        la::i_sqdistance,
        la::uncall_i_sqdistance,
        la::i_sqdistance_grad,
        |x, y| x.iter().zip(y).map(|(a, b)| (a - b) * (a - b)).sum(),
    );
}

#[test]
fn mismatched_lengths_are_an_assertion_error() {
    let mut out = 0.0;
    let err = la::i_dot(&mut out, &[1.0, 2.0], &[1.0]).unwrap_err();
    assert_eq!(err.check, nilang::Check::Assertion);
    assert_eq!(out, 0.0);
}

#[test]
fn norm2_sum() {
    type Reduce1 = fn(&mut f64, &[f64]) -> nilang::Result;
    type Reduce1Grad = fn(&mut f64, &mut f64, &[f64], &mut [f64]) -> nilang::Result;
    type Case = (
        &'static str,
        Reduce1,
        Reduce1,
        Reduce1Grad,
        fn(&[f64]) -> f64,
    );
    let cases: [Case; 2] = [
        (
            "i_norm2",
            la::i_norm2,
            la::uncall_i_norm2,
            la::i_norm2_grad,
            |x| x.iter().map(|a| a * a).sum(),
        ),
        ("i_sum", la::i_sum, la::uncall_i_sum, la::i_sum_grad, |x| {
            x.iter().sum()
        }),
    ];
    let mut rng = Rng(0x5EED_0002);
    for (what, call, uncall, grad, expect) in cases {
        for n in [0, 1, 4, 11] {
            let x = vector(&mut rng, n);
            let mut out = -0.5;
            call(&mut out, &x).unwrap();
            assert_close(what, out, -0.5 + expect(&x), 1e-12);
            uncall(&mut out, &x).unwrap();
            assert_close(what, out, -0.5, 1e-12);
            let (mut o, mut o_bar, mut x_bar) = (-0.5, 1.0, vec![0.0; n]);
            grad(&mut o, &mut o_bar, &x, &mut x_bar).unwrap();
            check_gradient(what, &cat(&[&[-0.5], &x]), &cat(&[&[o_bar], &x_bar]), |p| {
                let mut out = p[0];
                call(&mut out, &p[1..]).unwrap();
                out
            });
        }
    }
}

#[test]
fn axpy() {
    let mut rng = Rng(0x5EED_0003);
    for n in SIZES {
        let (a, x, y0, w) = (
            rng.next(),
            vector(&mut rng, n),
            vector(&mut rng, n),
            vector(&mut rng, n),
        );
        let mut y = y0.clone();
        la::i_axpy(a, &x, &mut y).unwrap();
        let expect: Vec<f64> = y0.iter().zip(&x).map(|(yi, xi)| yi + a * xi).collect();
        assert_all_close("i_axpy!", &y, &expect, 1e-12);
        la::uncall_i_axpy(a, &x, &mut y).unwrap();
        assert_all_close("i_axpy! undone", &y, &y0, 1e-12);
        // Loss Σ w y: the seeds w go in y_bar.
        let (mut a_bar, mut x_bar, mut y_bar) = (0.0, vec![0.0; n], w.clone());
        let mut y = y0.clone();
        la::i_axpy_grad(a, &mut a_bar, &x, &mut x_bar, &mut y, &mut y_bar).unwrap();
        assert_all_close("i_axpy! grad restores y", &y, &y0, 1e-12);
        let p = cat(&[&[a], &x, &y0]);
        check_gradient("i_axpy!", &p, &cat(&[&[a_bar], &x_bar, &y_bar]), |p| {
            let mut y = p[n + 1..].to_vec();
            la::i_axpy(p[0], &p[1..=n], &mut y).unwrap();
            weighted(&w, &y)
        });

        // The matrix form, n×2.
        let (xm, y0m, wm) = (
            matrix(&mut rng, n, 2),
            matrix(&mut rng, n, 2),
            matrix(&mut rng, n, 2),
        );
        let mut ym = y0m.clone();
        la::i_axpy_mat(a, xm.view(), ym.view_mut()).unwrap();
        let expect = &y0m + &(&xm * a);
        assert_all_close(
            "i_axpy_mat!",
            ym.as_slice_memory_order().unwrap(),
            expect.as_slice_memory_order().unwrap(),
            1e-12,
        );
        la::uncall_i_axpy_mat(a, xm.view(), ym.view_mut()).unwrap();
        assert_all_close(
            "i_axpy_mat! undone",
            ym.as_slice_memory_order().unwrap(),
            y0m.as_slice_memory_order().unwrap(),
            1e-12,
        );
        let mut a_bar = 0.0;
        let mut xm_bar = Array2::zeros((n, 2).f());
        let mut ym_bar = wm.clone();
        let mut ym = y0m.clone();
        la::i_axpy_mat_grad(
            a,
            &mut a_bar,
            xm.view(),
            xm_bar.view_mut(),
            ym.view_mut(),
            ym_bar.view_mut(),
        )
        .unwrap();
        let flat = |m: &Array2<f64>| m.as_slice_memory_order().unwrap().to_vec();
        let p = cat(&[&[a], &flat(&xm), &flat(&y0m)]);
        let k = 2 * n;
        check_gradient(
            "i_axpy_mat!",
            &p,
            &cat(&[&[a_bar], &flat(&xm_bar), &flat(&ym_bar)]),
            |p| {
                let x = Array2::from_shape_vec((n, 2).f(), p[1..=k].to_vec()).unwrap();
                let mut y = Array2::from_shape_vec((n, 2).f(), p[k + 1..].to_vec()).unwrap();
                la::i_axpy_mat(p[0], x.view(), y.view_mut()).unwrap();
                weighted(&flat(&wm), &flat(&y))
            },
        );
    }
}

fn flat(m: &Array2<f64>) -> Vec<f64> {
    m.as_slice_memory_order().unwrap().to_vec()
}

fn from_flat(m: usize, n: usize, p: &[f64]) -> Array2<f64> {
    Array2::from_shape_vec((m, n).f(), p.to_vec()).unwrap()
}

#[test]
fn matrix_products() {
    let mut rng = Rng(0x5EED_0004);
    for (m, k, n) in [(1, 1, 1), (2, 3, 4), (5, 2, 3)] {
        let (a, b, c0, w) = (
            matrix(&mut rng, m, k),
            matrix(&mut rng, k, n),
            matrix(&mut rng, m, n),
            matrix(&mut rng, m, n),
        );
        let mut c = c0.clone();
        la::i_mul(c.view_mut(), a.view(), b.view()).unwrap();
        assert_all_close("i_mul!", &flat(&c), &flat(&(&c0 + &a.dot(&b))), 1e-12);
        la::uncall_i_mul(c.view_mut(), a.view(), b.view()).unwrap();
        assert_all_close("i_mul! undone", &flat(&c), &flat(&c0), 1e-12);
        let mut c = c0.clone();
        let (mut c_bar, mut a_bar, mut b_bar) = (
            w.clone(),
            Array2::zeros((m, k).f()),
            Array2::zeros((k, n).f()),
        );
        la::i_mul_grad(
            c.view_mut(),
            c_bar.view_mut(),
            a.view(),
            a_bar.view_mut(),
            b.view(),
            b_bar.view_mut(),
        )
        .unwrap();
        let p = cat(&[&flat(&c0), &flat(&a), &flat(&b)]);
        let (mn, mk) = (m * n, m * k);
        check_gradient(
            "i_mul!",
            &p,
            &cat(&[&flat(&c_bar), &flat(&a_bar), &flat(&b_bar)]),
            |p| {
                let mut c = from_flat(m, n, &p[..mn]);
                let a = from_flat(m, k, &p[mn..mn + mk]);
                let b = from_flat(k, n, &p[mn + mk..]);
                la::i_mul(c.view_mut(), a.view(), b.view()).unwrap();
                weighted(&flat(&w), &flat(&c))
            },
        );

        // Matrix-vector: A is m×k, x has length k.
        let (x, y0, wy) = (
            vector(&mut rng, k),
            vector(&mut rng, m),
            vector(&mut rng, m),
        );
        let mut y = y0.clone();
        la::i_matvec(&mut y, a.view(), &x).unwrap();
        let ax = a.dot(&nilang::ndarray::Array1::from(x.clone()));
        let expect: Vec<f64> = y0.iter().zip(ax.iter()).map(|(p, q)| p + q).collect();
        assert_all_close("i_matvec!", &y, &expect, 1e-12);
        la::uncall_i_matvec(&mut y, a.view(), &x).unwrap();
        assert_all_close("i_matvec! undone", &y, &y0, 1e-12);
        let mut y = y0.clone();
        let (mut y_bar, mut a_bar, mut x_bar) =
            (wy.clone(), Array2::zeros((m, k).f()), vec![0.0; k]);
        la::i_matvec_grad(
            &mut y,
            &mut y_bar,
            a.view(),
            a_bar.view_mut(),
            &x,
            &mut x_bar,
        )
        .unwrap();
        let p = cat(&[&y0, &flat(&a), &x]);
        check_gradient(
            "i_matvec!",
            &p,
            &cat(&[&y_bar, &flat(&a_bar), &x_bar]),
            |p| {
                let mut y = p[..m].to_vec();
                let a = from_flat(m, k, &p[m..m + mk]);
                la::i_matvec(&mut y, a.view(), &p[m + mk..]).unwrap();
                weighted(&wy, &y)
            },
        );

        // Outer product: x (m) yᵀ (n) into c (m×n).
        let (u, v) = (vector(&mut rng, m), vector(&mut rng, n));
        let mut c = c0.clone();
        la::i_outer(c.view_mut(), &u, &v).unwrap();
        for j in 0..n {
            for i in 0..m {
                assert_close("i_outer!", c[[i, j]], c0[[i, j]] + u[i] * v[j], 1e-12);
            }
        }
        la::uncall_i_outer(c.view_mut(), &u, &v).unwrap();
        assert_all_close("i_outer! undone", &flat(&c), &flat(&c0), 1e-12);
        let mut c = c0.clone();
        let (mut c_bar, mut u_bar, mut v_bar) = (w.clone(), vec![0.0; m], vec![0.0; n]);
        la::i_outer_grad(
            c.view_mut(),
            c_bar.view_mut(),
            &u,
            &mut u_bar,
            &v,
            &mut v_bar,
        )
        .unwrap();
        let p = cat(&[&flat(&c0), &u, &v]);
        check_gradient(
            "i_outer!",
            &p,
            &cat(&[&flat(&c_bar), &u_bar, &v_bar]),
            |p| {
                let mut c = from_flat(m, n, &p[..mn]);
                la::i_outer(c.view_mut(), &p[mn..mn + m], &p[mn + m..]).unwrap();
                weighted(&flat(&w), &flat(&c))
            },
        );
    }
}

#[test]
fn trace() {
    let mut rng = Rng(0x5EED_0005);
    for n in SIZES {
        let a = matrix(&mut rng, n, n);
        let mut out = 1.0;
        la::i_trace(&mut out, a.view()).unwrap();
        assert_close("i_trace", out, 1.0 + a.diag().sum(), 1e-12);
        la::uncall_i_trace(&mut out, a.view()).unwrap();
        assert_close("i_trace undone", out, 1.0, 1e-12);
        let (mut o, mut o_bar, mut a_bar) = (1.0, 1.0, Array2::zeros((n, n).f()));
        la::i_trace_grad(&mut o, &mut o_bar, a.view(), a_bar.view_mut()).unwrap();
        check_gradient(
            "i_trace",
            &cat(&[&[1.0], &flat(&a)]),
            &cat(&[&[o_bar], &flat(&a_bar)]),
            |p| {
                let mut out = p[0];
                la::i_trace(&mut out, from_flat(n, n, &p[1..]).view()).unwrap();
                out
            },
        );
    }
}

#[test]
fn affine() {
    let mut rng = Rng(0x5EED_0006);
    for (m, n) in [(1, 1), (3, 2), (2, 5), (6, 4)] {
        let (wt, b, x, y0, seed) = (
            matrix(&mut rng, m, n),
            vector(&mut rng, m),
            vector(&mut rng, n),
            vector(&mut rng, m),
            vector(&mut rng, m),
        );
        let mut y = y0.clone();
        la::i_affine(&mut y, wt.view(), &b, &x).unwrap();
        let wx = wt.dot(&nilang::ndarray::Array1::from(x.clone()));
        let expect: Vec<f64> = (0..m).map(|i| y0[i] + wx[i] + b[i]).collect();
        assert_all_close("i_affine!", &y, &expect, 1e-12);
        la::uncall_i_affine(&mut y, wt.view(), &b, &x).unwrap();
        assert_all_close("i_affine! undone", &y, &y0, 1e-12);
        let mut y = y0.clone();
        let (mut y_bar, mut w_bar, mut b_bar, mut x_bar) = (
            seed.clone(),
            Array2::zeros((m, n).f()),
            vec![0.0; m],
            vec![0.0; n],
        );
        la::i_affine_grad(
            &mut y,
            &mut y_bar,
            wt.view(),
            w_bar.view_mut(),
            &b,
            &mut b_bar,
            &x,
            &mut x_bar,
        )
        .unwrap();
        let mn = m * n;
        let p = cat(&[&y0, &flat(&wt), &b, &x]);
        check_gradient(
            "i_affine!",
            &p,
            &cat(&[&y_bar, &flat(&w_bar), &b_bar, &x_bar]),
            |p| {
                let mut y = p[..m].to_vec();
                let wt = from_flat(m, n, &p[m..m + mn]);
                la::i_affine(&mut y, wt.view(), &p[m + mn..2 * m + mn], &p[2 * m + mn..]).unwrap();
                weighted(&seed, &y)
            },
        );
    }
}

/// The rotations of `i_umm!` applied to one column in plain Rust.
fn rotate(x: &mut [f64], theta: &[f64]) {
    let m = x.len();
    let mut k = 0;
    for j in 0..m {
        for i in (j..m - 1).rev() {
            let (c, s) = (theta[k].cos(), theta[k].sin());
            let (a, b) = (x[i], x[i + 1]);
            x[i] = a * c - b * s;
            x[i + 1] = b * c + a * s;
            k += 1;
        }
    }
}

#[test]
fn unitary_matrix_multiplication() {
    let mut rng = Rng(0x5EED_0007);
    for m in [1, 2, 3, 6] {
        let theta = vector(&mut rng, m * (m - 1) / 2);
        // On a vector.
        let (x0, w) = (vector(&mut rng, m), vector(&mut rng, m));
        let mut x = x0.clone();
        la::i_umm_vec(&mut x, &theta).unwrap();
        let mut expect = x0.clone();
        rotate(&mut expect, &theta);
        assert_all_close("i_umm_vec!", &x, &expect, 1e-12);
        let norm = |v: &[f64]| v.iter().map(|a| a * a).sum::<f64>();
        assert_close("i_umm_vec! keeps the norm", norm(&x), norm(&x0), 1e-12);
        la::uncall_i_umm_vec(&mut x, &theta).unwrap();
        assert_all_close("i_umm_vec! undone", &x, &x0, 1e-12);
        let mut x = x0.clone();
        let (mut x_bar, mut t_bar) = (w.clone(), vec![0.0; theta.len()]);
        la::i_umm_vec_grad(&mut x, &mut x_bar, &theta, &mut t_bar).unwrap();
        assert_all_close("i_umm_vec! grad restores x", &x, &x0, 1e-12);
        check_gradient(
            "i_umm_vec!",
            &cat(&[&x0, &theta]),
            &cat(&[&x_bar, &t_bar]),
            |p| {
                let mut x = p[..m].to_vec();
                la::i_umm_vec(&mut x, &p[m..]).unwrap();
                weighted(&w, &x)
            },
        );
        // On the columns of an m×3 matrix.
        let (x0, w) = (matrix(&mut rng, m, 3), matrix(&mut rng, m, 3));
        let mut x = x0.clone();
        la::i_umm(x.view_mut(), &theta).unwrap();
        for l in 0..3 {
            let mut col: Vec<f64> = x0.column(l).to_vec();
            rotate(&mut col, &theta);
            assert_all_close("i_umm!", &x.column(l).to_vec(), &col, 1e-12);
        }
        la::uncall_i_umm(x.view_mut(), &theta).unwrap();
        assert_all_close("i_umm! undone", &flat(&x), &flat(&x0), 1e-12);
        let mut x = x0.clone();
        let (mut x_bar, mut t_bar) = (w.clone(), vec![0.0; theta.len()]);
        la::i_umm_grad(x.view_mut(), x_bar.view_mut(), &theta, &mut t_bar).unwrap();
        let k = 3 * m;
        check_gradient(
            "i_umm!",
            &cat(&[&flat(&x0), &theta]),
            &cat(&[&flat(&x_bar), &t_bar]),
            |p| {
                let mut x = from_flat(m, 3, &p[..k]);
                la::i_umm(x.view_mut(), &p[k..]).unwrap();
                weighted(&flat(&w), &flat(&x))
            },
        );
    }
    // A wrong number of angles is an assertion error.
    let mut x = [1.0, 2.0, 3.0];
    let err = la::i_umm_vec(&mut x, &[0.1]).unwrap_err();
    assert_eq!(err.check, nilang::Check::Assertion);
}

// ---------------------------------------------------------------- stats

fn mean(x: &[f64]) -> f64 {
    x.iter().sum::<f64>() / x.len() as f64
}

fn variance(x: &[f64]) -> f64 {
    let m = mean(x);
    x.iter().map(|a| (a - m) * (a - m)).sum::<f64>() / (x.len() - 1) as f64
}

#[test]
fn mean_and_sum() {
    let mut rng = Rng(0x5EED_0008);
    for n in SIZES {
        let x = vector(&mut rng, n);
        let (mut m, mut s) = (0.0, 0.0);
        st::i_mean_sum(&mut m, &mut s, &x).unwrap();
        assert_close("sum", s, x.iter().sum(), 1e-12);
        assert_close("mean", m, mean(&x), 1e-12);
        st::uncall_i_mean_sum(&mut m, &mut s, &x).unwrap();
        assert_eq!((m, s), (0.0, 0.0));
        // Loss: 2 mean + 0.5 sum.
        let (mut m, mut m_bar, mut s, mut s_bar, mut x_bar) = (0.0, 2.0, 0.0, 0.5, vec![0.0; n]);
        st::i_mean_sum_grad(&mut m, &mut m_bar, &mut s, &mut s_bar, &x, &mut x_bar).unwrap();
        check_gradient(
            "i_mean_sum",
            &cat(&[&[0.0, 0.0], &x]),
            &cat(&[&[m_bar, s_bar], &x_bar]),
            |p| {
                let (mut m, mut s) = (p[0], p[1]);
                st::i_mean_sum(&mut m, &mut s, &p[2..]).unwrap();
                2.0 * m + 0.5 * s
            },
        );
    }
}

#[test]
fn variance_mean_sum() {
    let mut rng = Rng(0x5EED_0009);
    for n in [2, 3, 7, 12] {
        let x = vector(&mut rng, n);
        let mut o = [0.0; 4];
        let [var, vsum, m, s] = &mut o;
        st::i_var_mean_sum(var, vsum, m, s, &x).unwrap();
        assert_close("var", *var, variance(&x), 1e-12);
        assert_close("varsum", *vsum, variance(&x) * (n - 1) as f64, 1e-12);
        assert_close("mean", *m, mean(&x), 1e-12);
        assert_close("sum", *s, x.iter().sum(), 1e-12);
        st::uncall_i_var_mean_sum(var, vsum, m, s, &x).unwrap();
        for v in o {
            assert!(v.abs() < 1e-12, "undone: {o:?}");
        }
        let seeds = [1.0, -0.5, 0.25, 2.0];
        let mut o = [0.0; 4];
        let mut b = seeds;
        let mut x_bar = vec![0.0; n];
        let [var, vsum, m, s] = &mut o;
        let [vb, vsb, mb, sb] = &mut b;
        st::i_var_mean_sum_grad(var, vb, vsum, vsb, m, mb, s, sb, &x, &mut x_bar).unwrap();
        check_gradient(
            "i_var_mean_sum",
            &cat(&[&[0.0; 4], &x]),
            &cat(&[&b, &x_bar]),
            |p| {
                let mut o = [p[0], p[1], p[2], p[3]];
                let [var, vsum, m, s] = &mut o;
                st::i_var_mean_sum(var, vsum, m, s, &p[4..]).unwrap();
                weighted(&seeds, &o)
            },
        );
    }
    let mut o = [0.0; 4];
    let [var, vsum, m, s] = &mut o;
    let err = st::i_var_mean_sum(var, vsum, m, s, &[1.0]).unwrap_err();
    assert_eq!(err.check, nilang::Check::Assertion);
}

#[test]
fn normal_logpdf() {
    for (x, mu, sigma) in [(0.3, 0.0, 1.0), (-1.7, 0.4, 0.6), (2.5, -1.0, 3.2)] {
        let expect = -(x - mu) * (x - mu) / (2.0 * sigma * sigma)
            - f64::ln(sigma)
            - 0.5 * f64::ln(2.0 * std::f64::consts::PI);
        let mut out = 0.1;
        st::i_normal_logpdf(&mut out, x, mu, sigma).unwrap();
        assert_close("i_normal_logpdf", out, 0.1 + expect, 1e-12);
        st::uncall_i_normal_logpdf(&mut out, x, mu, sigma).unwrap();
        assert_close("i_normal_logpdf undone", out, 0.1, 1e-12);
        let (mut o, mut o_bar) = (0.1, 1.0);
        let (mut xb, mut mb, mut sb) = (0.0, 0.0, 0.0);
        st::i_normal_logpdf_grad(&mut o, &mut o_bar, x, &mut xb, mu, &mut mb, sigma, &mut sb)
            .unwrap();
        check_gradient(
            "i_normal_logpdf",
            &[0.1, x, mu, sigma],
            &[o_bar, xb, mb, sb],
            |p| {
                let mut out = p[0];
                st::i_normal_logpdf(&mut out, p[1], p[2], p[3]).unwrap();
                out
            },
        );
    }
}

#[test]
fn correlation_and_covariance() {
    let mut rng = Rng(0x5EED_000A);
    for n in [2, 3, 6, 10] {
        let (a, b) = (vector(&mut rng, n), vector(&mut rng, n));
        let (ma, mb) = (mean(&a), mean(&b));
        let cov: f64 = a
            .iter()
            .zip(&b)
            .map(|(x, y)| (x - ma) * (y - mb))
            .sum::<f64>()
            / (n - 1) as f64;
        let rho = cov / (variance(&a).sqrt() * variance(&b).sqrt());
        let (mut r, mut c) = (0.0, 0.0);
        st::i_cor_cov(&mut r, &mut c, &a, &b).unwrap();
        assert_close("cov", c, cov, 1e-12);
        assert_close("cor", r, rho, 1e-12);
        assert!(r.abs() <= 1.0 + 1e-12);
        st::uncall_i_cor_cov(&mut r, &mut c, &a, &b).unwrap();
        assert!(r.abs() < 1e-12 && c.abs() < 1e-12);
        let (mut r, mut rb, mut c, mut cb) = (0.0, 1.0, 0.0, 0.5);
        let (mut ab, mut bb) = (vec![0.0; n], vec![0.0; n]);
        st::i_cor_cov_grad(&mut r, &mut rb, &mut c, &mut cb, &a, &mut ab, &b, &mut bb).unwrap();
        check_gradient(
            "i_cor_cov",
            &cat(&[&[0.0, 0.0], &a, &b]),
            &cat(&[&[rb, cb], &ab, &bb]),
            |p| {
                let (mut r, mut c) = (p[0], p[1]);
                st::i_cor_cov(&mut r, &mut c, &p[2..2 + n], &p[2 + n..]).unwrap();
                r + 0.5 * c
            },
        );
    }
}

// ---------------------------------------------------------------- sparse

/// A random m×n CSC matrix with about `fill` of its entries set (many
/// empty columns when `fill` is small).
fn sparse(rng: &mut Rng, m: usize, n: usize, fill: f64) -> CsMat<f64> {
    let mut t = TriMat::new((m, n));
    for j in 0..n {
        for i in 0..m {
            if (rng.next() + 2.0) / 4.0 < fill {
                t.add_triplet(i, j, rng.next());
            }
        }
    }
    t.to_csc::<usize>()
}

fn dense(a: &CsMat<f64>) -> Array2<f64> {
    let mut d = Array2::zeros((a.rows(), a.cols()).f());
    for (v, (i, j)) in a.iter() {
        d[[i, j]] += *v;
    }
    d
}

/// `a` with its stored values replaced by `data`.
fn with_data(a: &CsMat<f64>, data: &[f64]) -> CsMat<f64> {
    CsMat::new_csc(
        a.shape(),
        a.indptr().raw_storage().to_vec(),
        a.indices().to_vec(),
        data.to_vec(),
    )
}

#[test]
fn sparse_matrix_products() {
    let mut rng = Rng(0x5EED_000B);
    for (m, k, n, fill) in [
        (1, 1, 1, 1.0),
        (3, 4, 2, 0.5),
        (6, 5, 3, 0.3),
        (4, 7, 2, 0.1),
    ] {
        let a = sparse(&mut rng, m, k, fill);
        let nnz = a.nnz();
        let (b, c0, w, alpha) = (
            matrix(&mut rng, k, n),
            matrix(&mut rng, m, n),
            matrix(&mut rng, m, n),
            rng.next(),
        );
        let mut c = c0.clone();
        sp::i_spmul(c.view_mut(), a.view(), b.view(), alpha).unwrap();
        let expect = &c0 + &(dense(&a).dot(&b) * alpha);
        assert_all_close("i_spmul!", &flat(&c), &flat(&expect), 1e-12);
        sp::uncall_i_spmul(c.view_mut(), a.view(), b.view(), alpha).unwrap();
        assert_all_close("i_spmul! undone", &flat(&c), &flat(&c0), 1e-12);
        let mut c = c0.clone();
        let (mut c_bar, mut a_bar, mut b_bar, mut al_bar) =
            (w.clone(), vec![0.0; nnz], Array2::zeros((k, n).f()), 0.0);
        sp::i_spmul_grad(
            c.view_mut(),
            c_bar.view_mut(),
            a.view(),
            &mut a_bar,
            b.view(),
            b_bar.view_mut(),
            alpha,
            &mut al_bar,
        )
        .unwrap();
        let (mn, kn) = (m * n, k * n);
        let p = cat(&[&flat(&c0), a.data(), &flat(&b), &[alpha]]);
        check_gradient(
            "i_spmul!",
            &p,
            &cat(&[&flat(&c_bar), &a_bar, &flat(&b_bar), &[al_bar]]),
            |p| {
                let mut c = from_flat(m, n, &p[..mn]);
                let a = with_data(&a, &p[mn..mn + nnz]);
                let b = from_flat(k, n, &p[mn + nnz..mn + nnz + kn]);
                sp::i_spmul(c.view_mut(), a.view(), b.view(), p[mn + nnz + kn]).unwrap();
                weighted(&flat(&w), &flat(&c))
            },
        );

        // The vector form.
        let (x, y0, wy) = (
            vector(&mut rng, k),
            vector(&mut rng, m),
            vector(&mut rng, m),
        );
        let mut y = y0.clone();
        sp::i_spmulvec(&mut y, a.view(), &x, alpha).unwrap();
        let ax = dense(&a).dot(&nilang::ndarray::Array1::from(x.clone()));
        let expect: Vec<f64> = (0..m).map(|i| y0[i] + alpha * ax[i]).collect();
        assert_all_close("i_spmulvec!", &y, &expect, 1e-12);
        sp::uncall_i_spmulvec(&mut y, a.view(), &x, alpha).unwrap();
        assert_all_close("i_spmulvec! undone", &y, &y0, 1e-12);
        let mut y = y0.clone();
        let (mut y_bar, mut a_bar, mut x_bar, mut al_bar) =
            (wy.clone(), vec![0.0; nnz], vec![0.0; k], 0.0);
        sp::i_spmulvec_grad(
            &mut y,
            &mut y_bar,
            a.view(),
            &mut a_bar,
            &x,
            &mut x_bar,
            alpha,
            &mut al_bar,
        )
        .unwrap();
        let p = cat(&[&y0, a.data(), &x, &[alpha]]);
        check_gradient(
            "i_spmulvec!",
            &p,
            &cat(&[&y_bar, &a_bar, &x_bar, &[al_bar]]),
            |p| {
                let mut y = p[..m].to_vec();
                let a = with_data(&a, &p[m..m + nnz]);
                sp::i_spmulvec(&mut y, a.view(), &p[m + nnz..m + nnz + k], p[m + nnz + k]).unwrap();
                weighted(&wy, &y)
            },
        );
    }
}

#[test]
fn sparse_dot_product() {
    let mut rng = Rng(0x5EED_000C);
    for (m, n, fa, fb) in [
        (1, 1, 1.0, 1.0),
        (3, 3, 0.6, 0.6),
        (8, 6, 0.3, 0.5),
        (10, 9, 0.15, 0.2),
        (5, 4, 0.0, 0.7),
    ] {
        let (a, b) = (sparse(&mut rng, m, n, fa), sparse(&mut rng, m, n, fb));
        let expect: f64 = (&dense(&a) * &dense(&b)).sum();
        let mut r = 0.25;
        sp::i_spdot(&mut r, a.view(), b.view()).unwrap();
        assert_close("i_spdot", r, 0.25 + expect, 1e-12);
        sp::uncall_i_spdot(&mut r, a.view(), b.view()).unwrap();
        assert_close("i_spdot undone", r, 0.25, 1e-12);
        let (mut r, mut r_bar) = (0.25, 1.0);
        let (mut a_bar, mut b_bar) = (vec![0.0; a.nnz()], vec![0.0; b.nnz()]);
        sp::i_spdot_grad(
            &mut r,
            &mut r_bar,
            a.view(),
            &mut a_bar,
            b.view(),
            &mut b_bar,
        )
        .unwrap();
        // d trace(AᵀB) / dA[i, j] = B[i, j].
        for ((_, (i, j)), g) in a.iter().zip(&a_bar) {
            assert_eq!(*g, b.get(i, j).copied().unwrap_or(0.0));
        }
        for ((_, (i, j)), g) in b.iter().zip(&b_bar) {
            assert_eq!(*g, a.get(i, j).copied().unwrap_or(0.0));
        }
        let na = a.nnz();
        check_gradient(
            "i_spdot",
            &cat(&[&[0.25], a.data(), b.data()]),
            &cat(&[&[r_bar], &a_bar, &b_bar]),
            |p| {
                let mut r = p[0];
                sp::i_spdot(
                    &mut r,
                    with_data(&a, &p[1..=na]).view(),
                    with_data(&b, &p[na + 1..]).view(),
                )
                .unwrap();
                r
            },
        );
    }
    // Columns where one matrix is empty and the other's first row matches
    // the other matrix's next column (what NiLang.jl's merge misreads).
    let a = CsMat::new_csc((2, 2), vec![0, 0, 1], vec![0], vec![3.0]);
    let b = CsMat::new_csc((2, 2), vec![0, 2, 2], vec![0, 1], vec![5.0, 7.0]);
    let mut r = 0.0;
    sp::i_spdot(&mut r, a.view(), b.view()).unwrap();
    assert_eq!(r, 0.0);
}

// ---------------------------------------------------------------- lognumber

/// A unary `y += f(x)`: forwards, backwards, and the gradient at each
/// point against the derivative `df`, and against central differences
/// where `f` is moderate (beyond, the rounding of `y` swamps them).
type Unary = fn(&mut f64, f64) -> nilang::Result;
type UnaryGrad = fn(&mut f64, &mut f64, f64, &mut f64) -> nilang::Result;

fn check_unary(
    what: &str,
    (call, uncall, grad): (Unary, Unary, UnaryGrad),
    f: fn(f64) -> f64,
    df: fn(f64) -> f64,
    points: &[f64],
    tol: f64,
) {
    for &x in points {
        let mut y = 0.5;
        call(&mut y, x).unwrap();
        assert_close(&format!("{what}({x})"), y - 0.5, f(x), tol);
        uncall(&mut y, x).unwrap();
        // Adding a large value to 0.5 and taking it away loses 0.5's bits.
        assert!(
            (y - 0.5).abs() <= 1e-12 * (1.0 + f(x).abs()),
            "{what}({x}) undone: {y}"
        );
        let (mut y, mut y_bar, mut x_bar) = (0.5, 1.0, 0.0);
        grad(&mut y, &mut y_bar, x, &mut x_bar).unwrap();
        assert!(
            (y - 0.5).abs() <= 1e-12 * (1.0 + f(x).abs()),
            "{what}({x}) grad restores y: {y}"
        );
        assert_eq!(y_bar, 1.0);
        assert_close(&format!("{what}'({x})"), x_bar, df(x), 1e-12);
        if f(x).abs() < 100.0 {
            check_gradient(&format!("{what}({x})"), &[0.5, x], &[y_bar, x_bar], |p| {
                let mut y = p[0];
                call(&mut y, p[1]).unwrap();
                y
            });
        }
    }
}

#[test]
fn exp_log_sqrt() {
    let points = [
        -700.0, -30.0, -7.5, -1.2, -0.01, 0.0, 0.3, 1.0, 3.5, 12.0, 30.0, 700.0,
    ];
    // exp's condition number is |x|: at 700 the relative error is ~700 ε.
    check_unary(
        "i_exp",
        (ln::i_exp, ln::uncall_i_exp, ln::i_exp_grad),
        f64::exp,
        f64::exp,
        &points,
        1e-12,
    );
    let points = [1e-3, 0.4, 1.0, 2.5, 1e4];
    check_unary(
        "i_log",
        (ln::i_log, ln::uncall_i_log, ln::i_log_grad),
        f64::ln,
        |x| 1.0 / x,
        &points,
        1e-14,
    );
    let points = [1e-2, 0.25, 2.0, 900.0];
    check_unary(
        "i_sqrt",
        (ln::i_sqrt, ln::uncall_i_sqrt, ln::i_sqrt_grad),
        f64::sqrt,
        |x| 0.5 / x.sqrt(),
        &points,
        1e-14,
    );
    // exp(0) = 1 and √0 = 0 (no log number of zero is formed).
    let mut y = 0.0;
    ln::i_exp(&mut y, 0.0).unwrap();
    assert_eq!(y, 1.0);
    ln::uncall_i_exp(&mut y, 0.0).unwrap();
    assert_eq!(y, 0.0);
    ln::i_sqrt(&mut y, 0.0).unwrap();
    assert_eq!(y, 0.0);
}

#[test]
fn power() {
    for n in -3..=7_i64 {
        for x in [-1.7, -0.4, 0.6, 1.0, 2.3] {
            let expect = f64::powi(x, n as i32);
            let mut y = 0.5;
            ln::i_power(&mut y, x, n).unwrap();
            assert_close(&format!("{x}^{n}"), y - 0.5, expect, 1e-12);
            ln::uncall_i_power(&mut y, x, n).unwrap();
            assert_close(&format!("{x}^{n} undone"), y, 0.5, 1e-12);
            let (mut y, mut y_bar, mut x_bar) = (0.5, 1.0, 0.0);
            ln::i_power_grad(&mut y, &mut y_bar, x, &mut x_bar, n).unwrap();
            check_gradient(&format!("{x}^{n}"), &[0.5, x], &[y_bar, x_bar], |p| {
                let mut y = p[0];
                ln::i_power(&mut y, p[1], n).unwrap();
                y
            });
        }
    }
    for (n, expect) in [(0, 1.0), (1, 0.0), (4, 0.0)] {
        let mut y = 0.0;
        ln::i_power(&mut y, 0.0, n).unwrap();
        assert_eq!(y, expect, "0^{n}");
        ln::uncall_i_power(&mut y, 0.0, n).unwrap();
        assert_eq!(y, 0.0);
    }
}

// ---------------------------------------------------------------- sorting

#[test]
fn ascending() {
    let cases: [&[f64]; 5] = [
        &[],
        &[2.0],
        &[1.0, 3.0, 2.0, 3.0, 5.0, -1.0],
        &[5.0, 4.0, 3.0],
        &[0.1, 0.2, 0.3, 0.4],
    ];
    for arr in cases {
        let (mut xs, mut inds) = (Stack::new(), Stack::new());
        so::i_ascending(&mut xs, &mut inds, arr).unwrap();
        // The running maxima, by hand.
        let (mut ex, mut ei) = (vec![], vec![]);
        for (i, &a) in arr.iter().enumerate() {
            if ex.last().is_none_or(|&l| a > l) {
                ex.push(a);
                ei.push(i as i64 + 1);
            }
        }
        assert_eq!(xs.as_slice(), &ex[..]);
        assert_eq!(inds.as_slice(), &ei[..]);
        so::uncall_i_ascending(&mut xs, &mut inds, arr).unwrap();
        assert!(xs.is_empty() && inds.is_empty());
    }
    // The reverse pass alone (`_adjoint`), from the pushed values and a
    // seed per value: each seed goes back to the element it was copied from.
    let arr = [1.0, 3.0, 2.0, 3.5, -4.0];
    let (mut xs, mut inds) = (Stack::new(), Stack::new());
    so::i_ascending(&mut xs, &mut inds, &arr).unwrap();
    assert_eq!(xs.as_slice(), &[1.0, 3.0, 3.5]);
    let mut xs_bar = Stack::from_vec(vec![0.5, -2.0, 1.0]);
    let mut arr_bar = vec![0.0; 5];
    so::i_ascending_adjoint(&mut xs, &mut xs_bar, &mut inds, &arr, &mut arr_bar).unwrap();
    assert!(xs.is_empty() && inds.is_empty() && xs_bar.is_empty());
    assert_eq!(arr_bar, [0.5, -2.0, 0.0, 1.0, 0.0]);
}

#[test]
fn maximum() {
    let mut rng = Rng(0x5EED_0011);
    for n in [1, 2, 5, 12] {
        let x = vector(&mut rng, n);
        let m = x.iter().copied().fold(f64::NEG_INFINITY, f64::max);
        let mut out = 0.25;
        so::i_maximum(&mut out, &x).unwrap();
        assert_eq!(out, 0.25 + m);
        so::uncall_i_maximum(&mut out, &x).unwrap();
        assert_close("i_maximum undone", out, 0.25, 1e-15);
        let (mut o, mut ob, mut x_bar) = (0.25, 1.0, vec![0.0; n]);
        so::i_maximum_grad(&mut o, &mut ob, &x, &mut x_bar).unwrap();
        let at = x.iter().position(|&v| v == m).unwrap();
        for (i, g) in x_bar.iter().enumerate() {
            assert_eq!(*g, if i == at { 1.0 } else { 0.0 });
        }
        check_gradient(
            "i_maximum",
            &cat(&[&[0.25], &x]),
            &cat(&[&[ob], &x_bar]),
            |p| {
                let mut out = p[0];
                so::i_maximum(&mut out, &p[1..]).unwrap();
                out
            },
        );
    }
    let mut out = 0.0;
    assert_eq!(
        so::i_maximum(&mut out, &[]).unwrap_err().check,
        nilang::Check::Assertion
    );
}

#[test]
fn compare_and_swap() {
    let mut flags = Stack::new();
    for (a, b, up, swaps) in [
        (3.0, 1.0, true, true),
        (1.0, 3.0, true, false),
        (1.0, 3.0, false, true),
        (2.0, 2.0, false, false),
    ] {
        let (mut x, mut y) = (a, b);
        so::i_compare_swap(&mut x, &mut y, up, &mut flags).unwrap();
        assert_eq!(flags.top(), Some(&swaps));
        assert!(if up { x <= y } else { x >= y });
        so::uncall_i_compare_swap(&mut x, &mut y, up, &mut flags).unwrap();
        assert_eq!((x, y), (a, b));
        assert!(flags.is_empty());
    }
}

#[test]
fn bitonic_sort() {
    let mut rng = Rng(0x5EED_000D);
    for n in [1usize, 2, 4, 8, 16, 32] {
        // Rounded to a quarter, so that some values repeat.
        let x0: Vec<f64> = (0..n)
            .map(|_| (rng.next() * 4.0).round() / 4.0 + 0.01 * rng.next())
            .collect();
        let mut x = x0.clone();
        let mut flags = Stack::new();
        so::i_bitonic_sort(&mut x, &mut flags).unwrap();
        let mut sorted = x0.clone();
        sorted.sort_by(f64::total_cmp);
        assert_eq!(x, sorted, "n = {n}");
        let log = n.trailing_zeros() as usize;
        assert_eq!(
            flags.len(),
            n * log * (log + 1) / 4,
            "one flag per comparator"
        );
        so::uncall_i_bitonic_sort(&mut x, &mut flags).unwrap();
        assert_eq!(x, x0, "unsorted again");
        assert!(flags.is_empty());
        // Σ w[i] sorted[i]: the gradient is w put back in the original order.
        let w = vector(&mut rng, n);
        let (mut x, mut x_bar, mut flags) = (x0.clone(), w.clone(), Stack::new());
        so::i_bitonic_sort_grad(&mut x, &mut x_bar, &mut flags).unwrap();
        assert_eq!(x, x0);
        let mut by_rank: Vec<usize> = (0..n).collect();
        by_rank.sort_by(|&i, &j| x0[i].total_cmp(&x0[j]));
        for (rank, &i) in by_rank.iter().enumerate() {
            assert_eq!(x_bar[i], w[rank]);
        }
        check_gradient("i_bitonic_sort!", &x0, &x_bar, |p| {
            let mut x = p.to_vec();
            so::i_bitonic_sort(&mut x, &mut Stack::new()).unwrap();
            weighted(&w, &x)
        });
    }
    let mut x = [3.0, 1.0, 2.0];
    let err = so::i_bitonic_sort(&mut x, &mut Stack::new()).unwrap_err();
    assert_eq!(err.check, nilang::Check::Assertion);
    assert_eq!(x, [3.0, 1.0, 2.0]);
}

// ---------------------------------------------------------------- special

#[test]
fn dirty_multiplication() {
    for (out0, x) in [(1.5, 2.5), (-0.3, 7.0), (4.0, -0.125)] {
        let (mut out, mut anc) = (out0, 0.0);
        sf::i_dirtymul(&mut out, x, &mut anc).unwrap();
        assert_close("i_dirtymul", out, out0 * x, 1e-15);
        assert!(anc.abs() < 1e-15, "the ancilla keeps only rounding: {anc}");
        sf::uncall_i_dirtymul(&mut out, x, &mut anc).unwrap();
        assert_close("i_dirtymul undone", out, out0, 1e-15);
        let (mut out, mut ob, mut xb, mut anc, mut ab) = (out0, 1.0, 0.0, 0.0, 1.0);
        sf::i_dirtymul_grad(&mut out, &mut ob, x, &mut xb, &mut anc, &mut ab).unwrap();
        check_gradient("i_dirtymul", &[out0, x, 0.0], &[ob, xb, ab], |p| {
            let (mut out, mut anc) = (p[0], p[2]);
            sf::i_dirtymul(&mut out, p[1], &mut anc).unwrap();
            out + anc
        });
    }
}

#[test]
fn factorial() {
    let mut f = 1_i64;
    for n in 0..=20_i64 {
        if n > 0 {
            f *= n;
        }
        let mut out = 7;
        sf::i_factorial(&mut out, n).unwrap();
        assert_eq!(out, 7 + f, "{n}!");
        sf::uncall_i_factorial(&mut out, n).unwrap();
        assert_eq!(out, 7);
    }
    let mut out = 0;
    assert_eq!(
        sf::i_factorial(&mut out, -1).unwrap_err().check,
        nilang::Check::Assertion
    );
}

/// Reference values from mpmath (30 digits), rounded to f64: order, z,
/// J_ν(z) or I_ν(z), and the relative tolerance (J at large z cancels; at
/// z = 700 the logarithms of the terms, near 700, carry ~1e-13 each). The
/// gradient is checked against central differences where the tolerance
/// is tight enough for them.
const BESSEL_J: [(i64, f64, f64, f64); 10] = [
    (0, 1.0, 0.765_197_686_557_966_6, 1e-13),
    (1, 1.0, 0.440_050_585_744_933_5, 1e-13),
    (2, 1.0, 0.114_903_484_931_900_48, 1e-13),
    (3, 2.5, 0.216_600_391_039_113_52, 1e-13),
    (3, -2.5, -0.216_600_391_039_113_52, 1e-13),
    (0, 10.0, -0.245_935_764_451_348_34, 1e-10),
    (5, 7.3, 0.313_706_170_897_309_1, 1e-12),
    (4, 0.01, 2.604_153_645_860_460_3e-11, 1e-13),
    (2, -0.7, 0.058_786_944_364_191_705, 1e-13),
    (1, 20.0, 0.066_833_124_175_850_05, 1e-7),
];

const BESSEL_I: [(i64, f64, f64, f64); 6] = [
    (0, 1.0, 1.266_065_877_752_008_4, 1e-13),
    (1, 2.0, 1.590_636_854_637_329, 1e-13),
    (2, 0.5, 0.031_906_149_177_738_25, 1e-13),
    (3, -4.0, -3.337_275_778_420_344_4, 1e-13),
    (0, 30.0, 781_672_297_823.977_5, 1e-13),
    (2, 700.0, 1.525_226_203_699_776_8e302, 1e-10),
];

type Bessel = fn(&mut f64, i64, f64) -> nilang::Result;
type BesselGrad = fn(&mut f64, &mut f64, i64, f64, &mut f64) -> nilang::Result;

fn check_bessel(
    what: &str,
    call: Bessel,
    uncall: Bessel,
    grad: BesselGrad,
    table: &[(i64, f64, f64, f64)],
) {
    for &(nu, z, expect, tol) in table {
        let mut out = 0.0;
        call(&mut out, nu, z).unwrap();
        assert!(
            (out - expect).abs() <= tol * expect.abs(),
            "{what}_{nu}({z}) = {out} against {expect}"
        );
        uncall(&mut out, nu, z).unwrap();
        assert!(
            out.abs() <= tol * expect.abs(),
            "{what}_{nu}({z}) undone: {out}"
        );
        let (mut o, mut ob, mut zb) = (0.5, 1.0, 0.0);
        grad(&mut o, &mut ob, nu, z, &mut zb).unwrap();
        assert_eq!(ob, 1.0);
        if tol <= 1e-11 {
            check_gradient(&format!("{what}_{nu}({z})"), &[z], &[zb], |p| {
                let mut out = 0.0;
                call(&mut out, nu, p[0]).unwrap();
                out
            });
        }
    }
    // At z = 0: 1 for order 0, 0 otherwise.
    for (nu, expect) in [(0, 1.0), (1, 0.0), (3, 0.0)] {
        let mut out = 0.0;
        call(&mut out, nu, 0.0).unwrap();
        assert_eq!(out, expect);
        uncall(&mut out, nu, 0.0).unwrap();
        assert_eq!(out, 0.0);
    }
}

#[test]
fn bessel_functions() {
    check_bessel(
        "J",
        sf::i_besselj,
        sf::uncall_i_besselj,
        sf::i_besselj_grad,
        &BESSEL_J,
    );
    check_bessel(
        "I",
        sf::i_besseli,
        sf::uncall_i_besseli,
        sf::i_besseli_grad,
        &BESSEL_I,
    );
    // d J0 / dz = -J1, at 1 and at 10 (where central differences are
    // swamped by the series' cancellation).
    for (z, j1) in [
        (1.0, 0.440_050_585_744_933_5),
        (10.0, 0.043_472_746_168_861_44),
    ] {
        let (mut o, mut ob, mut zb) = (0.0, 1.0, 0.0);
        sf::i_besselj_grad(&mut o, &mut ob, 0, z, &mut zb).unwrap();
        assert_close("J0'", zb, -j1, 1e-10);
    }
}

#[test]
fn relu() {
    for x in [-1.5_f64, -0.2, 0.3, 2.0] {
        let mut out = 0.25;
        sf::i_relu(&mut out, x).unwrap();
        assert_eq!(out, 0.25 + x.max(0.0));
        sf::uncall_i_relu(&mut out, x).unwrap();
        assert_close("i_relu undone", out, 0.25, 1e-15);
        let (mut o, mut ob, mut xb) = (0.25, 1.0, 0.0);
        sf::i_relu_grad(&mut o, &mut ob, x, &mut xb).unwrap();
        assert_eq!(xb, if x > 0.0 { 1.0 } else { 0.0 });
    }
}

fn logsumexp(x: &[f64]) -> f64 {
    let m = x.iter().copied().fold(f64::NEG_INFINITY, f64::max);
    m + x.iter().map(|a| (a - m).exp()).sum::<f64>().ln()
}

#[test]
fn log_sum_exp_and_cross_entropy() {
    let mut rng = Rng(0x5EED_000E);
    for n in SIZES {
        // Large entries: the plain sum of exponentials would overflow.
        let x: Vec<f64> = vector(&mut rng, n).iter().map(|a| a * 400.0).collect();
        let (mut lse, mut z, mut xs, mut inds) = (0.0, 0.0, Stack::new(), Stack::new());
        sf::i_logsumexp(&mut lse, &mut z, &mut xs, &mut inds, &x).unwrap();
        assert_close("i_logsumexp", lse, logsumexp(&x), 1e-13);
        let m = x.iter().copied().fold(f64::NEG_INFINITY, f64::max);
        assert_eq!(xs.top(), Some(&m));
        sf::uncall_i_logsumexp(&mut lse, &mut z, &mut xs, &mut inds, &x).unwrap();
        assert!(lse.abs() < 1e-12 && z.abs() < 1e-12 && xs.is_empty() && inds.is_empty());

        // The gradient: forwards, then the reverse pass alone, with a zero
        // adjoint for each value pushed (`i_logsumexp_grad` does not extend
        // `xs_bar` for them: a compiler bug).
        let x = vector(&mut rng, n);
        let (mut lse, mut z, mut xs, mut inds) = (0.0, 0.0, Stack::new(), Stack::new());
        sf::i_logsumexp(&mut lse, &mut z, &mut xs, &mut inds, &x).unwrap();
        let (mut lb, mut zb, mut x_bar) = (1.0, 0.3, vec![0.0; n]);
        let mut xs_bar = Stack::from_vec(vec![0.0; xs.len()]);
        sf::i_logsumexp_adjoint(
            &mut lse,
            &mut lb,
            &mut z,
            &mut zb,
            &mut xs,
            &mut xs_bar,
            &mut inds,
            &x,
            &mut x_bar,
        )
        .unwrap();
        assert!(xs.is_empty() && xs_bar.is_empty() && lse.abs() < 1e-12);
        check_gradient(
            "i_logsumexp",
            &cat(&[&[0.0, 0.0], &x]),
            &cat(&[&[lb, zb], &x_bar]),
            |p| {
                let (mut lse, mut z) = (p[0], p[1]);
                sf::i_logsumexp(
                    &mut lse,
                    &mut z,
                    &mut Stack::new(),
                    &mut Stack::new(),
                    &p[2..],
                )
                .unwrap();
                lse + 0.3 * z
            },
        );

        // Without stacks: the same value, and the softmax as its gradient.
        let big: Vec<f64> = x.iter().map(|a| a * 400.0).collect();
        for v in [&x, &big] {
            let mut out = 0.5;
            sf::i_logsumexp_nostack(&mut out, v).unwrap();
            assert_close("i_logsumexp_nostack", out, 0.5 + logsumexp(v), 1e-13);
            sf::uncall_i_logsumexp_nostack(&mut out, v).unwrap();
            assert_close("i_logsumexp_nostack undone", out, 0.5, 1e-13);
        }
        let (mut o, mut ob, mut x_bar) = (0.0, 1.0, vec![0.0; n]);
        sf::i_logsumexp_nostack_grad(&mut o, &mut ob, &x, &mut x_bar).unwrap();
        let l = logsumexp(&x);
        for i in 0..n {
            assert_close("softmax", x_bar[i], (x[i] - l).exp(), 1e-12);
        }
        check_gradient(
            "i_logsumexp_nostack",
            &cat(&[&[0.0], &x]),
            &cat(&[&[ob], &x_bar]),
            |p| {
                let mut out = p[0];
                sf::i_logsumexp_nostack(&mut out, &p[1..]).unwrap();
                out
            },
        );

        // Cross entropy of a distribution p against softmax(x).
        let raw: Vec<f64> = vector(&mut rng, n).iter().map(|a| a + 2.5).collect();
        let total: f64 = raw.iter().sum();
        let p: Vec<f64> = raw.iter().map(|a| a / total).collect();
        let l = logsumexp(&x);
        let expect: f64 = p.iter().zip(&x).map(|(pi, xi)| pi * (l - xi)).sum();
        let mut out = 0.0;
        sf::i_softmax_crossentropy(&mut out, &x, &p).unwrap();
        assert_close("i_softmax_crossentropy", out, expect, 1e-13);
        sf::uncall_i_softmax_crossentropy(&mut out, &x, &p).unwrap();
        assert!(out.abs() < 1e-13);
        let (mut o, mut ob, mut x_bar, mut p_bar) = (0.0, 1.0, vec![0.0; n], vec![0.0; n]);
        sf::i_softmax_crossentropy_grad(&mut o, &mut ob, &x, &mut x_bar, &p, &mut p_bar).unwrap();
        // d/dx = softmax(x) Σp - p.
        for i in 0..n {
            assert_close("softmax - p", x_bar[i], (x[i] - l).exp() - p[i], 1e-12);
        }
        check_gradient(
            "i_softmax_crossentropy",
            &cat(&[&x, &p]),
            &cat(&[&x_bar, &p_bar]),
            |q| {
                let mut out = 0.0;
                sf::i_softmax_crossentropy(&mut out, &q[..n], &q[n..]).unwrap();
                out
            },
        );
    }
}

// ---------------------------------------------------------------- functional

#[test]
fn add() {
    let mut y = 1.0;
    fu::i_add(&mut y, 2.5).unwrap();
    assert_eq!(y, 3.5);
    fu::uncall_i_add(&mut y, 2.5).unwrap();
    assert_eq!(y, 1.0);
}

#[test]
fn map_with_a_function() {
    let mut rng = Rng(0x5EED_000F);
    for n in [0, 1, 3, 8] {
        let (xs, y0, w) = (
            vector(&mut rng, n),
            vector(&mut rng, n),
            vector(&mut rng, n),
        );
        let mut ys = y0.clone();
        su::cubes(&mut ys, &xs).unwrap();
        let expect: Vec<f64> = (0..n).map(|i| y0[i] + xs[i].powi(3)).collect();
        assert_all_close("i_map!", &ys, &expect, 1e-12);
        su::uncall_cubes(&mut ys, &xs).unwrap();
        assert_all_close("i_map! undone", &ys, &y0, 1e-12);
        let mut ys = y0.clone();
        let (mut ys_bar, mut xs_bar) = (w.clone(), vec![0.0; n]);
        su::cubes_grad(&mut ys, &mut ys_bar, &xs, &mut xs_bar).unwrap();
        check_gradient(
            "i_map!",
            &cat(&[&y0, &xs]),
            &cat(&[&ys_bar, &xs_bar]),
            |p| {
                let mut ys = p[..n].to_vec();
                su::cubes(&mut ys, &p[n..]).unwrap();
                weighted(&w, &ys)
            },
        );
    }
}

#[test]
fn filter_into_a_stack() {
    let xs = [0.5, -1.0, 2.0, -0.25, 0.0, -3.0];
    let mut out = Stack::from_vec(vec![9.0]);
    su::negatives(&mut out, &xs).unwrap();
    assert_eq!(out.as_slice(), &[9.0, -1.0, -0.25, -3.0]);
    su::uncall_negatives(&mut out, &xs).unwrap();
    assert_eq!(out.as_slice(), &[9.0]);
    let none = [1.0, 2.0];
    su::negatives(&mut out, &none).unwrap();
    assert_eq!(out.as_slice(), &[9.0]);
}

/// A fold `out += Σ g(xs[i])` through a template instance: forwards against
/// `g`, backwards, and its gradient.
type Fold = fn(&mut f64, &[f64]) -> nilang::Result;
type FoldGrad = fn(&mut f64, &mut f64, &[f64], &mut [f64]) -> nilang::Result;

fn check_fold(what: &str, call: Fold, uncall: Fold, grad: FoldGrad, g: fn(f64) -> f64) {
    let mut rng = Rng(0x5EED_0010);
    for n in [0, 1, 4, 9] {
        let xs = vector(&mut rng, n);
        let mut out = 0.5;
        call(&mut out, &xs).unwrap();
        assert_close(
            what,
            out,
            0.5 + xs.iter().map(|&x| g(x)).sum::<f64>(),
            1e-12,
        );
        uncall(&mut out, &xs).unwrap();
        assert_close(what, out, 0.5, 1e-12);
        let (mut o, mut ob, mut xb) = (0.5, 1.0, vec![0.0; n]);
        grad(&mut o, &mut ob, &xs, &mut xb).unwrap();
        check_gradient(what, &cat(&[&[0.5], &xs]), &cat(&[&[ob], &xb]), |p| {
            let mut out = p[0];
            call(&mut out, &p[1..]).unwrap();
            out
        });
    }
}

#[test]
fn folds() {
    check_fold(
        "i_mapfoldl",
        su::sine_of_cubes,
        su::uncall_sine_of_cubes,
        su::sine_of_cubes_grad,
        |x| x.powi(3).sin(),
    );
    check_fold(
        "i_foldl",
        su::fold_of_sines,
        su::uncall_fold_of_sines,
        su::fold_of_sines_grad,
        f64::sin,
    );
    check_fold(
        "i_foldl with i_add!",
        su::folded_sum,
        su::uncall_folded_sum,
        su::folded_sum_grad,
        |x| x,
    );
    check_fold(
        "i_mapsum",
        su::sum_of_cubes,
        su::uncall_sum_of_cubes,
        su::sum_of_cubes_grad,
        |x| x.powi(3),
    );
}

// ---------------------------------------------------------------- element types

#[test]
fn generic_in_the_element_type() {
    // The same functions at f32.
    let (x, y) = ([1.0_f32, 2.0, -0.5], [0.5_f32, -1.0, 4.0]);
    let mut out = 0.0_f32;
    la::i_dot(&mut out, &x, &y).unwrap();
    assert_eq!(out, -3.5);
    let mut p = 0.0_f32;
    ln::i_power(&mut p, -1.5_f32, 3).unwrap();
    assert!((p + 3.375).abs() < 1e-5);
    ln::uncall_i_power(&mut p, -1.5_f32, 3).unwrap();
    assert_eq!(p, 0.0);
    let mut v = [3.0_f32, -1.0, 2.0, 0.0];
    let mut flags = Stack::new();
    so::i_bitonic_sort(&mut v, &mut flags).unwrap();
    assert_eq!(v, [-1.0, 0.0, 2.0, 3.0]);
    // The series (`i_exp`, the Bessel functions) leave f32 rounding
    // residues of ~1e-7 in their ancillas, above the default tolerance of
    // the deallocation checks (1e-8, absolute): at f32 they need a build
    // with a larger `atol`.
    let mut j = 0.0_f32;
    let err = sf::i_besselj(&mut j, 2, 1.0_f32).unwrap_err();
    assert_eq!(err.check, nilang::Check::Deallocation);
    assert_eq!(j, 0.0, "the output is set back");
}

//! The gradient of every example function not covered elsewhere against
//! central differences (`nilang_runtime::check_gradient`): QR (which reads `A`
//! through a broadcast), `norm2`, `var_and_mean_sq`, `isum`, `test_umm!`,
//! `rfib` and Bennett's scheme. Each loss is a weighted sum of every
//! argument after the call, so every output's adjoint is seeded; the
//! gradient program must also give back the arguments it was called with.
//! (multiplier, Bessel, dot, `umm!` and the complex log are in
//! gradients.rs, the graph loss in graph.rs, the sparse product in
//! sparse_gradient.rs.)

use nilang_examples::{arithmetic as a, bennett, fib, linalg, qr, unitary};
use nilang_runtime::ndarray::Array2;

const RTOL: f64 = 1e-6;
const ATOL: f64 = 1e-8;

/// Loss weights: a fixed sequence in [-1, 1).
fn weights(n: usize) -> Vec<f64> {
    (0..n)
        .map(|i| ((i * 29 + 7) % 19) as f64 / 9.5 - 1.0)
        .collect()
}

fn dot(a: &[f64], b: &[f64]) -> f64 {
    a.iter().zip(b).map(|(x, y)| x * y).sum()
}

fn close(a: &[f64], b: &[f64]) -> bool {
    a.iter().zip(b).all(|(x, y)| (x - y).abs() < 1e-10)
}

#[test]
fn qr_gradient() {
    let n = 3;
    let m = n * n;
    let mat = |v: &[f64]| Array2::from_shape_vec((n, n), v.to_vec()).unwrap();
    let w = weights(3 * m);
    // Flat inputs: Q, R (zero, as qr expects), then A.
    let a0 = [2.0, -0.5, 1.0, 0.3, 1.5, -1.2, 0.7, 0.4, 3.0];
    let x0: Vec<f64> = vec![0.0; 2 * m].into_iter().chain(a0).collect();
    let loss = |x: &[f64]| {
        let (mut q, mut r, am) = (mat(&x[..m]), mat(&x[m..2 * m]), mat(&x[2 * m..]));
        qr::qr(q.view_mut(), r.view_mut(), am.view()).unwrap();
        let flat: Vec<f64> = q.iter().chain(r.iter()).chain(am.iter()).copied().collect();
        dot(&flat, &w)
    };
    let (mut q, mut r, am) = (mat(&x0[..m]), mat(&x0[m..2 * m]), mat(&a0));
    let (mut qb, mut rb, mut ab) = (mat(&w[..m]), mat(&w[m..2 * m]), mat(&w[2 * m..]));
    qr::qr_grad(
        q.view_mut(),
        qb.view_mut(),
        r.view_mut(),
        rb.view_mut(),
        am.view(),
        ab.view_mut(),
    )
    .unwrap();
    assert!(
        q.iter().chain(r.iter()).all(|v| v.abs() < 1e-12),
        "Q, R restored"
    );
    let g: Vec<f64> = qb
        .iter()
        .chain(rb.iter())
        .chain(ab.iter())
        .copied()
        .collect();
    nilang_runtime::check_gradient(loss, &x0, &g, RTOL, ATOL).unwrap();
}

#[test]
fn norm2_var_and_isum_gradients() {
    let v = [1.5, -0.7, 2.2, 0.4];
    let w = weights(6);
    // norm2(out, vec): inputs (out, vec).
    let x0: Vec<f64> = [0.3].into_iter().chain(v).collect();
    let loss = |x: &[f64]| {
        let mut out = x[0];
        linalg::norm2(&mut out, &x[1..]).unwrap();
        w[0] * out + dot(&x[1..], &w[1..5])
    };
    let (mut out, mut ob, mut vb) = (0.3, w[0], w[1..5].to_vec());
    linalg::norm2_grad(&mut out, &mut ob, &v, &mut vb).unwrap();
    assert!((out - 0.3).abs() < 1e-12);
    let g: Vec<f64> = [ob].into_iter().chain(vb).collect();
    nilang_runtime::check_gradient(loss, &x0, &g, RTOL, ATOL).unwrap();

    // var_and_mean_sq(var, mean, sqv): inputs (var, mean, sqv); sqv holds
    // squares.
    let v = [1.5, 0.7, 2.2, 0.4];
    let x0: Vec<f64> = [0.1, -0.2].into_iter().chain(v).collect();
    let loss = |x: &[f64]| {
        let (mut var, mut mean) = (x[0], x[1]);
        linalg::var_and_mean_sq(&mut var, &mut mean, &x[2..]).unwrap();
        w[0] * var + w[1] * mean + dot(&x[2..], &w[2..])
    };
    let (mut var, mut mean) = (0.1, -0.2);
    let (mut varb, mut meanb, mut vb) = (w[0], w[1], w[2..].to_vec());
    linalg::var_and_mean_sq_grad(&mut var, &mut varb, &mut mean, &mut meanb, &v, &mut vb).unwrap();
    assert!(close(&[var, mean], &[0.1, -0.2]));
    let g: Vec<f64> = [varb, meanb].into_iter().chain(vb).collect();
    nilang_runtime::check_gradient(loss, &x0, &g, RTOL, ATOL).unwrap();

    // isum(out, x).
    let x0: Vec<f64> = [0.5].into_iter().chain(v).collect();
    let loss = |x: &[f64]| {
        let mut out = x[0];
        a::isum(&mut out, &x[1..]).unwrap();
        w[0] * out + dot(&x[1..], &w[1..5])
    };
    let (mut out, mut ob, mut vb) = (0.5, w[0], w[1..5].to_vec());
    a::isum_grad(&mut out, &mut ob, &v, &mut vb).unwrap();
    let g: Vec<f64> = [ob].into_iter().chain(vb).collect();
    nilang_runtime::check_gradient(loss, &x0, &g, RTOL, ATOL).unwrap();
}

#[test]
fn test_umm_gradient() {
    let x = [0.2, -1.1, 0.8, 1.7];
    let theta = [0.3, -0.9, 1.4, 0.05, 2.2, -0.6];
    let w = weights(11);
    let x0: Vec<f64> = [0.4].into_iter().chain(x).chain(theta).collect();
    let loss = |v: &[f64]| {
        let (mut out, mut xs) = (v[0], v[1..5].to_vec());
        unitary::test_umm(&mut out, &mut xs, &v[5..]).unwrap();
        w[0] * out + dot(&xs, &w[1..5]) + dot(&v[5..], &w[5..])
    };
    let (mut out, mut xs) = (0.4, x.to_vec());
    let (mut ob, mut xb, mut tb) = (w[0], w[1..5].to_vec(), w[5..].to_vec());
    unitary::test_umm_grad(&mut out, &mut ob, &mut xs, &mut xb, &theta, &mut tb).unwrap();
    assert!(close(&xs, &x) && (out - 0.4).abs() < 1e-12);
    let g: Vec<f64> = [ob].into_iter().chain(xb).chain(tb).collect();
    nilang_runtime::check_gradient(loss, &x0, &g, RTOL, ATOL).unwrap();
}

#[test]
fn rfib_gradient() {
    // rfib(out, n) adds fib(n) to out: d/d out = 1, and n only picks
    // branches, so d/d n = 0 between integers.
    let x0 = [0.25, 7.5];
    let w = [1.0, -0.5];
    let loss = |x: &[f64]| {
        let mut out = x[0];
        fib::rfib(&mut out, x[1]).unwrap();
        w[0] * out + w[1] * x[1]
    };
    let (mut out, mut ob, mut nb) = (x0[0], w[0], w[1]);
    fib::rfib_grad(&mut out, &mut ob, x0[1], &mut nb).unwrap();
    assert_eq!(out, x0[0]);
    nilang_runtime::check_gradient(loss, &x0, &[ob, nb], RTOL, ATOL).unwrap();
}

#[test]
fn bennett_gradient() {
    // k = 2, len = 8: state[9] = 2^8 state[1], the states between are
    // uncomputed. Every state is an input of the weighted loss.
    let len = 8;
    let w = weights(len + 1);
    let mut x0 = vec![0.0; len + 1];
    x0[0] = 0.75;
    let loss = |x: &[f64]| {
        let mut s = x.to_vec();
        bennett::bennett(&mut s, 2, 1, len as i64).unwrap();
        dot(&s, &w)
    };
    let (mut s, mut sb) = (x0.clone(), w.clone());
    bennett::bennett_grad(&mut s, &mut sb, 2, 1, len as i64).unwrap();
    assert!(close(&s, &x0));
    assert!((sb[0] - (w[0] + 256.0 * w[len])).abs() < 1e-9, "{sb:?}");
    nilang_runtime::check_gradient(loss, &x0, &sb, RTOL, ATOL).unwrap();
}

//! `cmul.nil`: the complex sparse product y += A x against a plain loop, its
//! inverse, and its gradient against central differences of a real loss.

use nilang_adbench::cmul_nil;
use nilang_runtime::Complex;
use nilang_runtime::sprs::{CsMat, TriMat};

type C = Complex<f64>;

fn matrix() -> CsMat<C> {
    let mut t = TriMat::new((4, 3));
    for (i, j, re, im) in [
        (0, 0, 1.0, -0.5),
        (2, 0, 0.3, 0.2),
        (1, 1, -2.0, 1.0),
        (3, 1, 0.7, 0.0),
        (0, 2, 0.1, 0.9),
        (3, 2, -1.1, -0.4),
    ] {
        t.add_triplet(i, j, C::new(re, im));
    }
    t.to_csc()
}

fn plain(a: &CsMat<C>, x: &[C]) -> Vec<C> {
    let mut y = vec![C::new(0.0, 0.0); a.rows()];
    for (j, col) in a.outer_iterator().enumerate() {
        for (i, &v) in col.iter() {
            y[i] += v * x[j];
        }
    }
    y
}

/// L = sum_i Re(conj(w_i) y_i): its gradient by a complex number z is
/// dL/dRe z + i dL/dIm z, the convention of the adjoints.
fn loss(a: &CsMat<C>, x: &[C], w: &[C]) -> f64 {
    plain(a, x)
        .iter()
        .zip(w)
        .map(|(y, w)| (w.conj() * y).re)
        .sum()
}

#[test]
fn product_inverse_and_gradient() {
    let a = matrix();
    let x = [C::new(0.5, -1.0), C::new(2.0, 0.25), C::new(-0.75, 0.5)];
    let w = [
        C::new(1.0, 0.5),
        C::new(-0.3, 2.0),
        C::new(0.8, -1.2),
        C::new(0.0, 1.0),
    ];
    let mut y = vec![C::new(0.0, 0.0); 4];
    cmul_nil::cmul(&mut y, a.view(), &x).unwrap();
    let want = plain(&a, &x);
    for (g, e) in y.iter().zip(&want) {
        assert!((g - e).norm() < 1e-14);
    }
    cmul_nil::uncall_cmul(&mut y, a.view(), &x).unwrap();
    assert!(y.iter().all(|v| v.norm() < 1e-14));

    let mut y_bar = w.to_vec();
    let mut a_bar = vec![C::new(0.0, 0.0); a.nnz()];
    let mut x_bar = vec![C::new(0.0, 0.0); 3];
    cmul_nil::cmul_grad(&mut y, &mut y_bar, a.view(), &mut a_bar, &x, &mut x_bar).unwrap();
    let h = 1e-6;
    let diff = |f: &dyn Fn(f64) -> f64| (f(h) - f(-h)) / (2.0 * h);
    for (k, g) in a_bar.iter().enumerate() {
        let shift = |d: C| {
            let mut b = a.clone();
            b.data_mut()[k] += d;
            loss(&b, &x, &w)
        };
        let re = diff(&|e| shift(C::new(e, 0.0)));
        let im = diff(&|e| shift(C::new(0.0, e)));
        assert!(
            (g.re - re).abs() < 1e-7 && (g.im - im).abs() < 1e-7,
            "A[{k}]: {g} vs {re} + {im}i"
        );
    }
    for (j, g) in x_bar.iter().enumerate() {
        let shift = |d: C| {
            let mut xs = x;
            xs[j] += d;
            loss(&a, &xs, &w)
        };
        let re = diff(&|e| shift(C::new(e, 0.0)));
        let im = diff(&|e| shift(C::new(0.0, e)));
        assert!(
            (g.re - re).abs() < 1e-7 && (g.im - im).abs() < 1e-7,
            "x[{j}]: {g} vs {re} + {im}i"
        );
    }
    // With `A` constant (the build script's variant `cmul_const_A`), the
    // adjoint of `x` is the same, bit for bit.
    let mut y_bar_const = w.to_vec();
    let mut x_bar_const = vec![C::new(0.0, 0.0); 3];
    cmul_nil::cmul_const_A_grad(&mut y, &mut y_bar_const, a.view(), &x, &mut x_bar_const).unwrap();
    assert_eq!(x_bar_const, x_bar);
    assert_eq!(y_bar_const, y_bar);
}

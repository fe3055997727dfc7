//! Long flat chains compiled and run: `random/chains.nil` (written by the
//! build script) sums and multiplies 1,010 terms, forwards, backwards and
//! differentiated.

use nilang_tests::chains::*;

const TERMS: usize = 1_010;

fn input() -> Vec<f64> {
    (1..=TERMS).map(|i| 1.0 + (i % 13) as f64 / 8.0).collect()
}

#[test]
fn a_long_sum_runs_uncalls_and_differentiates() {
    let x = input();
    // The terms in the order written, as the generated code adds them.
    let mut expected = x[0];
    for (k, v) in x.iter().enumerate().skip(1) {
        let i = k + 1;
        if i % 3 == 0 {
            expected -= v
        } else {
            expected += v
        }
    }
    let mut y = 0.5;
    long_sum(&mut y, &x).unwrap();
    assert_eq!(y, 0.5 + expected);
    uncall_long_sum(&mut y, &x).unwrap();
    assert_eq!(y, 0.5);

    let mut y_bar = 1.0;
    let mut x_bar = vec![0.0; TERMS];
    long_sum_grad(&mut y, &mut y_bar, &x, &mut x_bar).unwrap();
    for (k, g) in x_bar.iter().enumerate() {
        let i = k + 1;
        let want = if i > 1 && i % 3 == 0 { -1.0 } else { 1.0 };
        assert_eq!(*g, want, "x_bar[{i}]");
    }
}

#[test]
fn a_long_weighted_sum_differentiates() {
    let x = input();
    let mut y = 0.0;
    let mut y_bar = 2.0;
    let mut x_bar = vec![0.0; TERMS];
    long_weighted_grad(&mut y, &mut y_bar, &x, &mut x_bar).unwrap();
    for (k, g) in x_bar.iter().enumerate() {
        let i = k + 1;
        // `0.0 + 3.0 * x[2] + 4.0 * x[3] + …`: `x[1]` is not in it.
        let weight = if i == 1 { 0.0 } else { (i % 7 + 1) as f64 };
        assert_eq!(*g, 2.0 * weight, "x_bar[{i}]");
    }
}

#[test]
fn a_long_and_chain_decides() {
    let mut x = input();
    let mut y = 0.0;
    long_and(&mut y, &x).unwrap();
    assert_eq!(y, 1.0);
    x[TERMS - 1] = -1.0;
    let mut y = 0.0;
    long_and(&mut y, &x).unwrap();
    assert_eq!(y, 0.0);
    uncall_long_and(&mut y, &x).unwrap();
    assert_eq!(y, 0.0);
}

#[test]
fn a_long_product_runs_uncalls_and_differentiates() {
    // Factors near 1, so that the product of 1,010 stays near 1 too; every
    // seventh factor is `exp(x[i] - 1.0)`.
    let x: Vec<f64> = (1..=TERMS)
        .map(|i| 1.0 + ((i % 13) as f64 - 6.0) / 1000.0)
        .collect();
    let factor = |k: usize| {
        if (k + 1).is_multiple_of(7) {
            (x[k] - 1.0).exp()
        } else {
            x[k]
        }
    };
    let product: f64 = (0..TERMS).map(factor).product();
    let mut y = 0.0;
    long_product(&mut y, &x).unwrap();
    assert!(
        (y - product).abs() <= 1e-12 * product.abs(),
        "{y} vs {product}"
    );
    uncall_long_product(&mut y, &x).unwrap();
    assert_eq!(y, 0.0);

    let mut y_bar = 3.0;
    let mut x_bar = vec![0.0; TERMS];
    long_product_grad(&mut y, &mut y_bar, &x, &mut x_bar).unwrap();
    for (k, g) in x_bar.iter().enumerate() {
        // d/dx of x is 1 and of exp(x - 1) is exp(x - 1): the product of
        // the other factors, times the factor's own derivative.
        let others: f64 = (0..TERMS).filter(|&j| j != k).map(factor).product();
        let own = if (k + 1).is_multiple_of(7) {
            factor(k)
        } else {
            1.0
        };
        let want = 3.0 * others * own;
        assert!(
            (g - want).abs() <= 1e-12 * want.abs(),
            "x_bar[{}]: {g} vs {want}",
            k + 1
        );
    }
}

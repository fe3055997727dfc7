//! Long flat chains compiled and run: `random/chains.nil` (written by the
//! build script) sums 2,500 terms, forwards, backwards and differentiated.

use nilang_tests::chains::*;

const TERMS: usize = 2_500;

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

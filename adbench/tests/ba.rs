//! BA residuals and Jacobians (plain, hand-derived, and from `ba.nil`'s
//! gradient program) against ADBench's golden values, each other and
//! central differences.

// The golden values are written as ADBench prints them.
#![allow(clippy::excessive_precision)]

use nilang_adbench::ba::{self, BaInput, BaJacobian};
use nilang_adbench::data_dir;

const REPROJ: [f64; 2] = [-2.69048849235189402e-01, 2.59944792677901881e-01];
const WERR: f64 = 8.26092651515999976e-01;
const ROW0: [f64; 15] = [
    228.877202208246757,
    634.574811495545418,
    -782.222866259340549,
    2.42892615607159668,
    -11.7828079628011313,
    2.54169312487743460,
    -1.03657084958518086,
    0.417022,
    0.0,
    -350.739521096005205,
    -912.107773668008576,
    -2.42892615607159668,
    11.7828079628011313,
    -2.54169312487743460,
    -0.645167039712987389,
];
const ROW1: [f64; 15] = [
    -120.542435994996879,
    -385.673240766460424,
    97.5476291403326456,
    -1.78372108529576567,
    4.15466799433126077,
    2.04025718029898906,
    0.349176397433145880,
    0.0,
    0.417022,
    118.149147704414503,
    307.250108960343255,
    1.78372108529576567,
    -4.15466799433126077,
    -2.04025718029898906,
    0.623335921553064054,
];

fn test_input() -> BaInput {
    BaInput::read(data_dir().join("ba/test.txt")).expect("ba/test.txt")
}

fn close(a: f64, b: f64, tol: f64) -> bool {
    (a - b).abs() <= tol * (1.0 + b.abs())
}

#[test]
fn residuals_match_adbench_golden() {
    let input = test_input();
    assert_eq!((input.n, input.m, input.p), (2, 10, 10));
    let mut r = vec![0.0; 2 * input.p];
    let mut w = vec![0.0; input.p];
    ba::residuals(&input, &mut r, &mut w);
    let mut rn = vec![0.0; 2 * input.p];
    let mut wn = vec![0.0; input.p];
    ba::nil_residuals(&input, &mut rn, &mut wn).unwrap();
    let mut ru = vec![0.0; 2 * input.p];
    let mut wu = vec![0.0; input.p];
    ba::nil_unchecked_residuals(&input, &mut ru, &mut wu).unwrap();
    for k in 0..input.p {
        for i in 0..2 {
            for v in [r[2 * k + i], rn[2 * k + i], ru[2 * k + i]] {
                assert!(
                    (v - REPROJ[i]).abs() < 1e-8,
                    "obs {k}: {v} vs {}",
                    REPROJ[i]
                );
            }
        }
        for v in [w[k], wn[k], wu[k]] {
            assert!((v - WERR).abs() < 1e-8, "weight {k}: {v}");
        }
    }
}

fn check_golden_jacobian(j: &BaJacobian) {
    assert_eq!((j.nrows, j.ncols), (30, 62));
    assert_eq!(j.rows.len(), 31);
    assert_eq!(j.cols.len(), 310);
    assert_eq!(j.vals.len(), 310);
    for k in 0..10 {
        let (cam, pt) = (k % 2, k % 10);
        for (row, golden) in [ROW0, ROW1].iter().enumerate() {
            let r = 2 * k + row;
            assert_eq!(j.rows[r], 15 * r);
            let cols: Vec<usize> = (11 * cam..11 * cam + 11)
                .chain(22 + 3 * pt..22 + 3 * pt + 3)
                .chain([52 + k])
                .collect();
            assert_eq!(&j.cols[15 * r..15 * r + 15], &cols[..]);
            for (e, g) in golden.iter().enumerate() {
                let v = j.vals[15 * r + e];
                assert!((v - g).abs() < 1e-8, "row {r} entry {e}: {v} vs {g}");
            }
        }
    }
    for k in 0..10 {
        assert_eq!(j.rows[20 + k], 300 + k);
        assert_eq!(j.cols[300 + k], 52 + k);
        assert!((j.vals[300 + k] + 0.834044).abs() < 1e-8);
    }
    assert_eq!(j.rows[30], 310);
}

#[test]
fn jacobians_match_adbench_golden() {
    let input = test_input();
    let mut manual = BaJacobian::new(&input);
    ba::manual_jacobian(&input, &mut manual);
    check_golden_jacobian(&manual);
    let mut nil = BaJacobian::new(&input);
    ba::nil_jacobian(&input, &mut nil).unwrap();
    check_golden_jacobian(&nil);
    let mut unchecked = BaJacobian::new(&input);
    ba::nil_unchecked_jacobian(&input, &mut unchecked).unwrap();
    check_golden_jacobian(&unchecked);
}

/// Three distinct cameras (the second with r = 0, so the first-order
/// rotation), four points, seven observations with distinct weights and
/// features.
fn distinct_input() -> BaInput {
    #[rustfmt::skip]
    let cams = vec![
        0.10, -0.20, 0.05, 0.3, -0.1, -5.0, 300.0, 2.0, -1.0, 0.01, -0.002,
        0.0, 0.0, 0.0, -0.2, 0.4, -6.0, 250.0, -3.0, 1.5, -0.03, 0.004,
        -0.3, 0.25, 0.4, 0.1, 0.2, -4.5, 410.0, 0.5, 0.7, 0.02, 0.001,
    ];
    #[rustfmt::skip]
    let points = vec![
        0.5, -0.3, 0.2,
        -0.4, 0.6, -0.1,
        0.2, 0.1, 0.7,
        -0.6, -0.5, 0.3,
    ];
    let obs = vec![(0, 0), (1, 1), (2, 2), (0, 3), (1, 0), (2, 1), (1, 3)];
    let p = obs.len();
    BaInput {
        n: 3,
        m: 4,
        p,
        cams,
        points,
        weights: (0..p).map(|k| 0.3 + 0.1 * k as f64).collect(),
        feats: (0..2 * p).map(|i| 10.0 * (i as f64).sin()).collect(),
        obs,
    }
}

/// Sets unknown `c` (the Jacobian's column order) of `input` to `v`.
fn unknown(input: &mut BaInput, c: usize) -> &mut f64 {
    let (n, m) = (input.n, input.m);
    if c < 11 * n {
        &mut input.cams[c]
    } else if c < 11 * n + 3 * m {
        &mut input.points[c - 11 * n]
    } else {
        &mut input.weights[c - 11 * n - 3 * m]
    }
}

fn all_residuals(input: &BaInput) -> Vec<f64> {
    let mut r = vec![0.0; 2 * input.p];
    let mut w = vec![0.0; input.p];
    ba::residuals(input, &mut r, &mut w);
    r.extend(w);
    r
}

#[test]
fn distinct_instance_nil_manual_and_differences_agree() {
    let input = distinct_input();
    let mut manual = BaJacobian::new(&input);
    ba::manual_jacobian(&input, &mut manual);
    let mut nil = BaJacobian::new(&input);
    ba::nil_jacobian(&input, &mut nil).unwrap();
    for (e, (a, b)) in nil.vals.iter().zip(&manual.vals).enumerate() {
        assert!(
            (a - b).abs() <= 1e-8 * a.abs().max(b.abs()).max(1e-8),
            "entry {e}: nil {a} manual {b}"
        );
    }
    // .nil residuals equal the plain ones.
    let mut rn = vec![0.0; 2 * input.p];
    let mut wn = vec![0.0; input.p];
    ba::nil_residuals(&input, &mut rn, &mut wn).unwrap();
    rn.extend(wn);
    let plain = all_residuals(&input);
    for (a, b) in rn.iter().zip(&plain) {
        assert!(close(*a, *b, 1e-12), "{a} vs {b}");
    }
    // Central differences of the plain residuals, column by column.
    let dense = manual.to_dense();
    for c in 0..input.ncols() {
        let x0 = *unknown(&mut input.clone(), c);
        let h = 1e-6 * x0.abs().max(1.0);
        let mut plus = input.clone();
        *unknown(&mut plus, c) = x0 + h;
        let mut minus = input.clone();
        *unknown(&mut minus, c) = x0 - h;
        let (fp, fm) = (all_residuals(&plus), all_residuals(&minus));
        for (r, row) in dense.iter().enumerate() {
            let fd = (fp[r] - fm[r]) / (2.0 * h);
            assert!(
                close(row[c], fd, 1e-5),
                "J[{r}][{c}] = {} but differences give {fd}",
                row[c]
            );
        }
    }
}

#[test]
fn reader_rejects_bad_input() {
    let text = std::fs::read_to_string(data_dir().join("ba/test.txt")).unwrap();
    let tokens: Vec<&str> = text.split_whitespace().collect();
    let truncated = tokens[..tokens.len() - 3].join(" ");
    let err = BaInput::parse(&truncated).unwrap_err().to_string();
    assert!(err.contains("ends inside the weight"), "{err}");
    let err = BaInput::parse("2 x 10").unwrap_err().to_string();
    assert!(err.contains("not a count"), "{err}");
    let bad = tokens.join(" ").replacen("2 10 10", "2 10 10 oops", 1);
    assert!(BaInput::parse(&bad).is_err());
    assert!(BaInput::parse("0 1 5 1 2 3 4 5 6 7 8 9 10 11 1 2 3 1 1 1").is_err());
    assert!(BaInput::read(data_dir().join("ba/no-such-file.txt")).is_err());
}

#[test]
fn reader_expands_like_adbench() {
    let input = BaInput::read(data_dir().join("ba/test.txt")).unwrap();
    assert_eq!(input.cams.len(), 22);
    assert_eq!(input.cam(0), input.cam(1));
    assert_eq!(input.points.len(), 30);
    assert_eq!(input.obs[3], (1, 3));
    assert_eq!(input.feats.len(), 20);
}

//! The Box-Muller transform of `boxmuller.nil`: forwards against the
//! textbook formula, backwards back to the uniform numbers, the gradient
//! against central differences, and the statistics of many samples.

use nilang_examples::baseline::SplitMix;
use nilang_examples::boxmuller::{box_muller, box_muller_grad, uncall_box_muller};
use nilang_runtime::Check;
use std::f64::consts::PI;

fn plain(u1: f64, u2: f64) -> (f64, f64) {
    let r = (-2.0 * u1.ln()).sqrt();
    (r * (2.0 * PI * u2).cos(), r * (2.0 * PI * u2).sin())
}

#[test]
fn forwards_matches_the_formula_and_backwards_restores_the_uniforms() {
    let mut rng = SplitMix(1);
    let mut cases = vec![
        (0.5, 0.0),
        (1e-300, 0.25),
        (0.999_999, 0.999_999),
        (0.3, 0.5),
    ];
    cases.extend((0..10_000).map(|_| (rng.uniform(), rng.uniform())));
    let (mut worst_fwd, mut worst_back) = (0.0_f64, 0.0_f64);
    for (u1, u2) in cases {
        let (mut x, mut y) = (u1, u2);
        box_muller(&mut x, &mut y).unwrap();
        let (z1, z2) = plain(u1, u2);
        worst_fwd = worst_fwd.max((x - z1).abs()).max((y - z2).abs());
        assert_eq!((x, y), (z1, z2), "u = ({u1}, {u2})");
        uncall_box_muller(&mut x, &mut y).unwrap();
        worst_back = worst_back.max((x - u1).abs()).max((y - u2).abs());
        assert!(
            (x - u1).abs() < 1e-12 && (y - u2).abs() < 1e-12,
            "u = ({u1}, {u2}) came back as ({x}, {y})"
        );
    }
    eprintln!("forward max |error| {worst_fwd:e}, round trip {worst_back:e}");
}

#[test]
fn the_uniform_one_is_outside_the_domain() {
    // u1 = 1 gives r = 0: the angle, and with it u2, is lost; the
    // deallocation check of the uncomputed u2 says so instead of returning
    // a wrong result.
    let (mut x, mut y) = (1.0, 0.3);
    let err = box_muller(&mut x, &mut y).unwrap_err();
    assert_eq!(err.check, Check::Deallocation);
    assert_eq!(err.location.file, "examples/boxmuller.nil");
    assert!(err.what.contains("z2"), "{err}");
}

#[test]
fn gradient_against_central_differences() {
    // L = 3 z1 - 2 z2 + z1 z2 as a function of (u1, u2).
    let loss = |u: &[f64]| {
        let (mut x, mut y) = (u[0], u[1]);
        box_muller(&mut x, &mut y).unwrap();
        3.0 * x - 2.0 * y + x * y
    };
    let mut rng = SplitMix(7);
    for _ in 0..20 {
        // Away from the edges, where the differences would leave (0, 1).
        let u = [0.05 + 0.9 * rng.uniform(), 0.05 + 0.9 * rng.uniform()];
        let (z1, z2) = plain(u[0], u[1]);
        let (mut x, mut y) = (u[0], u[1]);
        let (mut gx, mut gy) = (3.0 + z2, -2.0 + z1);
        box_muller_grad(&mut x, &mut gx, &mut y, &mut gy).unwrap();
        assert!((x - u[0]).abs() < 1e-12 && (y - u[1]).abs() < 1e-12);
        nilang_runtime::check_gradient(loss, &u, &[gx, gy], 1e-6, 1e-8).unwrap();
    }
}

#[test]
fn many_samples_are_standard_normal() {
    // 10^5 pairs from a fixed seed. Honest tolerances: with n = 2·10^5
    // numbers the standard error of the mean is 1/sqrt(n) = 0.0022 and that
    // of the variance sqrt(2/n) = 0.0032; we allow five of each. The
    // fraction within one standard deviation (0.6827) has standard error
    // sqrt(p (1 - p) / n) = 0.001, and the correlation of z1 and z2 within
    // a pair 1/sqrt(10^5) = 0.0032.
    let pairs = 100_000;
    let mut rng = SplitMix(2024);
    let mut zs = Vec::with_capacity(2 * pairs);
    let mut cross = 0.0;
    for _ in 0..pairs {
        let (mut x, mut y) = (rng.uniform(), rng.uniform());
        box_muller(&mut x, &mut y).unwrap();
        cross += x * y;
        zs.push(x);
        zs.push(y);
    }
    let n = zs.len() as f64;
    let mean = zs.iter().sum::<f64>() / n;
    let var = zs.iter().map(|z| (z - mean).powi(2)).sum::<f64>() / (n - 1.0);
    let within = zs.iter().filter(|z| z.abs() < 1.0).count() as f64 / n;
    let corr = cross / pairs as f64;
    eprintln!("mean {mean:.5}, variance {var:.5}, within 1σ {within:.5}, corr {corr:.5}");
    assert!(mean.abs() < 5.0 * 0.0022, "mean {mean}");
    assert!((var - 1.0).abs() < 5.0 * 0.0032, "variance {var}");
    assert!(
        (within - 0.682_689).abs() < 5.0 * 0.001,
        "within one sigma {within}"
    );
    assert!(corr.abs() < 5.0 * 0.0032, "correlation {corr}");
}

//! Learning by consistency (seed 000, appendix D) with `consistency.nil`:
//! the appendix's training loop, run on `f1` and `f2`.

use nilang_examples::consistency::{f1, f2, uncall_f1, uncall_f2};

/// The appendix's `train`: start from p = 1.6; 100 times, run forwards from
/// y = 0, x = 0.3, record y (the output before the target is imposed), set
/// y to the target 1 and run backwards, which updates p. Returns the
/// recorded outputs and the final p.
fn train(uses_f2: bool) -> (Vec<f64>, f64) {
    let mut outputs = Vec::new();
    let mut p = 1.6_f64;
    for _ in 0..100 {
        let (mut y, mut x) = (0.0_f64, 0.3_f64);
        if uses_f2 {
            f2(&mut y, &mut x, &mut p).unwrap();
        } else {
            f1(&mut y, x, &mut p).unwrap();
        }
        outputs.push(y);
        y = 1.0;
        if uses_f2 {
            uncall_f2(&mut y, &mut x, &mut p).unwrap();
        } else {
            uncall_f1(&mut y, x, &mut p).unwrap();
        }
    }
    (outputs, p)
}

#[test]
fn f2_converges_to_the_target() {
    let (outputs, p) = train(true);
    // The fixed point: exp(p + 0.3) - exp(0.3) = 1.
    let p_star = (1.0 + 0.3_f64.exp()).ln() - 0.3;
    let last = *outputs.last().unwrap();
    eprintln!(
        "f2: y - 1 after 1, 10, 50, 100 steps: {:e} {:e} {:e} {:e}; p = {p}, p* = {p_star}",
        outputs[0] - 1.0,
        outputs[9] - 1.0,
        outputs[49] - 1.0,
        last - 1.0
    );
    // The map is a contraction with factor 1/e^0.3 = 0.74 near the fixed
    // point, so 100 steps take the error from 5 to rounding level.
    assert!((last - 1.0).abs() < 1e-12, "y = {last}");
    assert!((p - p_star).abs() < 1e-12, "p = {p}, fixed point {p_star}");
    assert!(
        (outputs[0] - 1.0).abs() > 1.0,
        "it started far away: {}",
        outputs[0]
    );
    // The first steps overshoot back and forth; from step 10 on, every ten
    // steps shrink the error by more than 10 (0.74^10 = 0.05) until it
    // reaches rounding level.
    for k in (10..=50).step_by(10) {
        let (before, after) = ((outputs[k - 1] - 1.0).abs(), (outputs[k + 9] - 1.0).abs());
        assert!(
            after < before / 10.0 || after < 1e-13,
            "step {k}: {before:e} -> {after:e}"
        );
    }
}

#[test]
fn f1_does_not_learn() {
    let (outputs, p) = train(false);
    // The output side x, p + x determines p: every backward run gives the
    // old p back (up to the rounding of p + 0.3 - 0.3), and y stays
    // exp(1.9) - exp(0.3) = 5.3367 steps after step.
    let stuck = 1.9_f64.exp() - 0.3_f64.exp();
    eprintln!("f1: y after 100 steps {}, p = {p}", outputs[99]);
    assert!((p - 1.6).abs() < 1e-14, "p moved to {p}");
    for y in &outputs {
        assert!((y - stuck).abs() < 1e-12, "{y} vs {stuck}");
    }
}

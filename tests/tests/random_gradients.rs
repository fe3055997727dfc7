//! Property: for the random programs of build.rs (see random_programs.rs),
//! the generated gradient (`p_grad`, run forwards then backwards, no tape)
//! agrees with central differences of the forward program, for every
//! mutated output as the loss, at seeded random points; and `p_grad` leaves
//! its inputs as it found them.
//!
//! The programs branch on floats (`if (c > 0.0, ~)`, `if (a > b, ~)`), loop
//! a float-dependent number of times, and read through `abs`, `min`, `max`,
//! `atan(y, x)`, `floor` and `sign`, so the forward value is only piecewise
//! smooth. A component is compared only where the
//! forward value is smooth along it at the scale of the steps: central
//! differences with steps `H` and `H_WIDE` agree. Where they do not (a
//! branch boundary within `H_WIDE` of the point), the component is skipped
//! and counted, and the test asserts that skips are rare.

use nilang::{Check, CheckEq, central_difference};
use nilang_tests::{Agreement, GRADIENTS, H, H_WIDE, Rng};

/// Random points per program.
const POINTS: usize = 32;

#[test]
fn gradients_agree_with_central_differences() {
    assert_eq!(GRADIENTS.len(), 100);
    let mut rng = Rng(0xD1B5_4A32_D192_ED03);
    let mut outputs = 0usize;
    let mut not_differentiable = Vec::new();
    let mut agreement = Agreement::default();
    for (name, call, grad, mutated) in GRADIENTS {
        'points: for _ in 0..POINTS {
            // Inputs in [-2, 2), one in eight within 2e-7 of 0, on a
            // branch boundary `if (c > 0.0, ~)` when c is still an input.
            let x: Vec<f64> = (0..8)
                .map(|_| {
                    let near_zero = rng.next() < -1.5;
                    rng.next() * if near_zero { 1e-7 } else { 1.0 }
                })
                .collect();
            let (s0, v0) = ([x[0], x[1], x[2], x[3]], [x[4], x[5], x[6], x[7]]);
            for k in (0..4).filter(|&k| mutated[k]) {
                // The forward program's output k, as a function of all eight inputs.
                let loss = |x: &[f64]| {
                    let mut s = [x[0], x[1], x[2], x[3]];
                    call(&mut s, &x[4..]).unwrap_or_else(|e| panic!("{name}: {e}"));
                    s[k]
                };
                let mut s = s0;
                let mut bar = [0.0; 4];
                bar[k] = 1.0;
                let mut v_bar = [0.0; 4];
                match grad(&mut s, &mut bar, &v0, &mut v_bar) {
                    Ok(()) => {}
                    Err(e) if e.check == Check::NotDifferentiable => {
                        not_differentiable.push(format!("{name}: {e}"));
                        break 'points;
                    }
                    Err(e) => panic!("{name}_grad at {x:?}: {e}"),
                }
                assert!(
                    s.check_eq(&s0, 1e-12),
                    "{name}_grad did not restore its inputs: {s0:?} came back as {s:?}"
                );
                outputs += 1;
                let gradient: Vec<f64> = bar.iter().chain(&v_bar).copied().collect();
                let fd = central_difference(loss, &x, H);
                let wide = central_difference(loss, &x, H_WIDE);
                let scale = 1.0 + loss(&x).abs() + x.iter().fold(0.0f64, |m, a| m.max(a.abs()));
                agreement.compare(&gradient, &fd, &wide, scale, &|i| {
                    format!("{name}, output {k}, input {i} at {x:?}")
                });
            }
        }
    }
    let Agreement {
        checked,
        skipped,
        worst,
        failures,
    } = agreement;
    eprintln!(
        "{} programs, {POINTS} points each, {outputs} (point, output) pairs: {checked} components checked, {skipped} skipped as not smooth, worst error/tolerance {worst:.3}",
        GRADIENTS.len()
    );
    assert!(
        not_differentiable.is_empty(),
        "not differentiable:\n{}",
        not_differentiable.join("\n")
    );
    assert!(
        failures.is_empty(),
        "{} gradient components disagree:\n{}",
        failures.len(),
        failures.join("\n")
    );
    assert!(
        skipped * 50 <= checked + skipped,
        "{skipped} of {} components skipped as not smooth",
        checked + skipped
    );
}

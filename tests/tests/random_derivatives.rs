//! Property: derivative calls of the random programs of build.rs
//! (`derivative_programs`: `grad_of_pN` is `(∇gen_pN)(a, ga, ..., v, gv)`,
//! `tan_of_pN` is `(∂gen_pN)(...)`, `gen_pN` the program generic in its
//! float type), at seeded random points:
//! - each call is undone by its uncall;
//! - `(∇gen_pN)` leaves in the companions what `pN`'s own gradient program
//!   leaves in its adjoints, and `(∂gen_pN)` the directional derivative of
//!   `pN` along the companions (central differences);
//! - the gradient program of each (a second derivative of `pN`: the reverse
//!   passes of the derivative calls) agrees with central differences of the
//!   call, for a random weighting of all its outputs.
//!
//! The programs branch on floats and read through non-smooth functions, so
//! a component is compared only where the differences at two steps agree
//! (as in random_gradients.rs); the test asserts that skips are rare.

use nilang::{CheckEq, central_difference};
use nilang_tests::{Agreement, DERIVED, DerivedProgram, GRADIENTS, H, H_WIDE, PROGRAMS, Rng};

const POINTS: usize = 8;

/// The 16 inputs: the scalars `a, ga, b, gb, c, gc, d, gd`, `v`, `gv`.
fn split(x: &[f64]) -> ([f64; 8], Vec<f64>, Vec<f64>) {
    (
        x[..8].try_into().unwrap(),
        x[8..12].to_vec(),
        x[12..16].to_vec(),
    )
}

fn run(f: DerivedProgram, x: &[f64]) -> Vec<f64> {
    let (mut s, mut v, mut gv) = split(x);
    f(&mut s, &mut v, &mut gv).unwrap_or_else(|e| panic!("at {x:?}: {e}"));
    s.iter().chain(&v).chain(&gv).copied().collect()
}

fn point(rng: &mut Rng) -> Vec<f64> {
    (0..16).map(|_| rng.next()).collect()
}

#[test]
fn derivative_calls_of_random_programs() {
    assert_eq!(DERIVED.len(), 20);
    let mut rng = Rng(0x6A09_E667_F3BC_C908);
    let mut agreement = Agreement::default();
    for &(name, gcall, guncall, ggrad, tcall, tuncall, tgrad) in DERIVED {
        let (_, pcall, _) = PROGRAMS
            .iter()
            .find(|p| p.0 == name)
            .expect("a random program");
        let (_, _, pgrad, _) = GRADIENTS
            .iter()
            .find(|p| p.0 == name)
            .expect("its gradient");
        for _ in 0..POINTS {
            let x = point(&mut rng);
            for (kind, call, uncall, grad) in [
                ("(∇)", gcall, guncall, ggrad),
                ("(∂)", tcall, tuncall, tgrad),
            ] {
                let what = format!("{kind}{name} at {x:?}");
                // Undone by its uncall.
                let (mut s, mut v, mut gv) = split(&x);
                call(&mut s, &mut v, &mut gv).unwrap();
                uncall(&mut s, &mut v, &mut gv).unwrap();
                let back: Vec<f64> = s.iter().chain(&v).chain(&gv).copied().collect();
                assert!(back.check_eq(&x, 1e-9), "{what}: uncall gave {back:?}");
                // Second derivatives: the gradient program of the call
                // against central differences of a weighted sum of its
                // outputs.
                let w: Vec<f64> = (0..16).map(|_| rng.next()).collect();
                let loss = |x: &[f64]| run(call, x).iter().zip(&w).map(|(o, w)| o * w).sum::<f64>();
                let (mut s, mut v, mut gv) = split(&x);
                let mut s_bar: [f64; 8] = w[..8].try_into().unwrap();
                let (mut v_bar, mut gv_bar) = (w[8..12].to_vec(), w[12..16].to_vec());
                grad(&mut s, &mut s_bar, &mut v, &mut v_bar, &mut gv, &mut gv_bar)
                    .unwrap_or_else(|e| panic!("{what}: gradient: {e}"));
                let after: Vec<f64> = s.iter().chain(&v).chain(&gv).copied().collect();
                assert!(
                    after.check_eq(&x, 1e-9),
                    "{what}: the gradient program did not restore its inputs"
                );
                let gradient: Vec<f64> =
                    s_bar.iter().chain(&v_bar).chain(&gv_bar).copied().collect();
                let fd = central_difference(loss, &x, H);
                let wide = central_difference(loss, &x, H_WIDE);
                let scale = 1.0 + loss(&x).abs() + x.iter().fold(0.0f64, |m, a| m.max(a.abs()));
                agreement.compare(&gradient, &fd, &wide, scale, &|i| {
                    format!("{what}, second order, component {i}")
                });
            }
            // `(∇gen_pN)` is `pN`'s gradient program on the companions.
            let out = run(gcall, &x);
            let mut s4 = [x[0], x[2], x[4], x[6]];
            let mut g4 = [x[1], x[3], x[5], x[7]];
            let mut v_bar = x[12..16].to_vec();
            pgrad(&mut s4, &mut g4, &x[8..12], &mut v_bar).unwrap();
            let want: Vec<f64> = g4.iter().chain(&v_bar).copied().collect();
            let got: Vec<f64> = [out[1], out[3], out[5], out[7]]
                .iter()
                .chain(&out[12..16])
                .copied()
                .collect();
            assert!(
                got.check_eq(&want, 1e-9),
                "(∇){name} at {x:?}: {got:?} against {name}_grad's {want:?}"
            );
            // `(∂gen_pN)` is the derivative of `pN` along the companions.
            let out = run(tcall, &x);
            let along = |t: f64| {
                let mut s = [
                    x[0] + t * x[1],
                    x[2] + t * x[3],
                    x[4] + t * x[5],
                    x[6] + t * x[7],
                ];
                let v: Vec<f64> = (0..4).map(|i| x[8 + i] + t * x[12 + i]).collect();
                pcall(&mut s, &v).unwrap();
                s
            };
            let (up, down) = (along(H), along(-H));
            let (up_w, down_w) = (along(H_WIDE), along(-H_WIDE));
            let fd: Vec<f64> = (0..4).map(|k| (up[k] - down[k]) / (2.0 * H)).collect();
            let wide: Vec<f64> = (0..4)
                .map(|k| (up_w[k] - down_w[k]) / (2.0 * H_WIDE))
                .collect();
            let tangent = [out[1], out[3], out[5], out[7]];
            let scale = 1.0 + x.iter().fold(0.0f64, |m, a| m.max(a.abs()));
            agreement.compare(&tangent, &fd, &wide, scale, &|i| {
                format!("(∂){name} at {x:?}, component {i}")
            });
        }
    }
    let Agreement {
        checked,
        skipped,
        failures,
        ..
    } = agreement;
    eprintln!(
        "{} programs, {POINTS} points: {checked} components checked, {skipped} skipped as not smooth",
        DERIVED.len()
    );
    assert!(
        failures.is_empty(),
        "{} components disagree:\n{}",
        failures.len(),
        failures.join("\n")
    );
    assert!(
        skipped * 20 <= checked + skipped,
        "{skipped} of {} components skipped",
        checked + skipped
    );
}

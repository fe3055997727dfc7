//! The leapfrog study (`leapfrog.nil`, `src/solar.rs`): round trips of the
//! three variants in f64 and f32, energy over a short run, and the gradient
//! through a chain of steps by reverse computing, by Bennett's schedule and
//! from stored states, against central differences.

use nilang_examples::solar::{self, Variant};

const N: usize = 1000;

fn round_trip_errors<T: nilang_runtime::Real>() -> [f64; 4] {
    let s0 = solar::initial_state::<T>();
    Variant::ALL.map(|v| {
        let s = solar::round_trip::<T>(v, N).expect("the steps' checks pass");
        solar::position_error(&s, &s0)
    })
}

// Floating-point addition is not exactly invertible: `(x + d) - d` can
// differ from `x` in the last place. So no variant returns bit for bit; the
// reversible one returns within the bound of a random walk of a few
// roundings per step, like the regular one, while the accumulative one
// also perturbs the positions inside every pair's acceleration.
//
// f64, N = 1000: positions up to 50 AU have an ulp of 7e-15; 2000 steps of
// a few roundings each, accumulating like a random walk, give some 1e-13.
// Measured: regular 2.2e-14, reversible 6.9e-14, accumulative 6.8e-13.
#[test]
fn f64_round_trips() {
    let [regular, reversible, _, accumulative] = round_trip_errors::<f64>();
    assert!(regular > 0.0, "the regular round trip is exact: {regular}");
    assert!(
        reversible > 0.0,
        "the reversible round trip is exact: {reversible}"
    );
    assert!(reversible < 1e-12, "{reversible}");
    assert!(regular < 1e-12, "{regular}");
    assert!(reversible < 10.0 * regular, "{reversible} vs {regular}");
    assert!(
        accumulative > 5.0 * reversible,
        "{accumulative} vs {reversible}"
    );
}

// f32: the same with an ulp of 4e-6 at 50 AU. Measured: regular 1.4e-5,
// reversible 4.3e-5, accumulative 7.6e-4.
#[test]
fn f32_round_trips() {
    let [regular, reversible, _, accumulative] = round_trip_errors::<f32>();
    assert!(regular > 0.0 && reversible > 0.0);
    assert!(reversible < 1e-3, "{reversible}");
    assert!(reversible < 10.0 * regular, "{reversible} vs {regular}");
    assert!(
        accumulative > 5.0 * reversible,
        "{accumulative} vs {reversible}"
    );
    // Single precision is far less reversible than double.
    let [_, reversible64, _, _] = round_trip_errors::<f64>();
    assert!(reversible > 1e6 * reversible64);
}

// A few steps come back exactly for most coordinates: the rounding errors
// start rare and grow.
#[test]
fn short_round_trip_is_mostly_exact() {
    let s0 = solar::initial_state::<f64>();
    let s = solar::round_trip::<f64>(Variant::Reversible, 1).unwrap();
    let equal = solar::equal_elements(&s, &s0);
    assert!(equal >= s0.len() / 2, "{equal} of {}", s0.len());
}

// Leapfrog keeps the energy close to its initial value (it oscillates, it
// does not drift): 1000 steps of 10 days are 27 years, more than two orbits
// of Jupiter.
#[test]
fn energy_is_roughly_conserved() {
    for v in Variant::ALL {
        let gm = solar::gm::<f64>();
        let mut s = solar::initial_state::<f64>();
        let e0 = solar::energy(&s);
        let mut worst: f64 = 0.0;
        for _ in 0..10 {
            solar::forward(v, &mut s, &gm, solar::STEP_DAYS, N / 10).unwrap();
            worst = worst.max(((solar::energy(&s) - e0) / e0).abs());
        }
        assert!(worst < 1e-5, "{}: relative energy error {worst}", v.name());
        assert!(worst > 0.0);
        // f32 too, with the precision it has.
        let gm = solar::gm::<f32>();
        let mut s = solar::initial_state::<f32>();
        let e0 = solar::energy(&s);
        solar::forward(v, &mut s, &gm, solar::STEP_DAYS as f32, N).unwrap();
        let rel = ((solar::energy(&s) - e0) / e0).abs();
        assert!(rel < 1e-3, "{} f32: relative energy error {rel}", v.name());
    }
}

// The step without the acceleration is moving: the energy check above sees
// a changed state.
#[test]
fn the_planets_move() {
    let mut s = solar::initial_state::<f64>();
    let s0 = s.clone();
    solar::forward(
        Variant::Reversible,
        &mut s,
        &solar::gm(),
        solar::STEP_DAYS,
        100,
    )
    .unwrap();
    assert!(solar::position_error(&s, &s0) > 0.1);
}

#[test]
fn gradients_agree_on_a_short_chain() {
    let n = 40;
    let s0 = solar::initial_state::<f64>();
    let rev = solar::gradient_reverse(&s0, n).unwrap();
    let ben = solar::gradient_bennett(&s0, n, 3).unwrap().unwrap();
    let sto = solar::gradient_stored(&s0, n).unwrap();
    assert_eq!(rev.last, ben.last);
    assert_eq!(rev.last, sto.last);
    // The reverse passes start from slightly different states (uncomputed
    // vs stored), so the gradients agree to rounding, not bits.
    assert!(solar::relative_difference(&sto.grad, &rev.grad) < 1e-10);
    assert!(solar::relative_difference(&sto.grad, &ben.grad) < 1e-10);
    // Reverse computing recovers the initial state.
    let recovered = rev.recovered.unwrap();
    assert!(solar::position_error(&recovered, &s0) < 1e-13);
    // Memory: one state, at most n (k - 1) + 2 for Bennett with 40 < 3^4,
    // and all of them when stored.
    assert_eq!(rev.peak_states, 1);
    assert!(ben.peak_states <= 4 * 2 + 2, "{}", ben.peak_states);
    assert_eq!(sto.peak_states, n + 1);
    // Central differences of the loss.
    let f = |x: &[f64]| solar::loss_after(x, n).unwrap();
    nilang_runtime::check_gradient(f, &s0, &rev.grad, 1e-5, 1e-7).unwrap();
    let wrong: Vec<f64> = rev.grad.iter().map(|g| 1.01 * g).collect();
    assert!(nilang_runtime::check_gradient(f, &s0, &wrong, 1e-5, 1e-7).is_err());
    // A schedule needs at least two sectors.
    assert!(solar::gradient_bennett(&s0, n, 1).unwrap().is_none());
}

#[test]
fn the_taped_chain_gives_the_stored_states_gradient() {
    let s0 = solar::initial_state::<f64>();
    for n in [0, 1, 25] {
        let tap = solar::gradient_taped(&s0, n).unwrap();
        let sto = solar::gradient_stored(&s0, n).unwrap();
        let rev = solar::gradient_reverse(&s0, n).unwrap();
        assert_eq!(tap.last, sto.last);
        // Each step's reverse pass starts from the recorded state, as with
        // the stored states.
        assert!(solar::relative_difference(&sto.grad, &tap.grad) < 1e-14);
        assert!(solar::relative_difference(&rev.grad, &tap.grad) < 1e-10);
        // The tape gives the initial state back exactly.
        assert_eq!(tap.recovered.as_deref(), Some(&s0[..]));
        assert_eq!(tap.peak_states, n + 1);
    }
    // Against central differences, and its memory: one state per step.
    let n = 10;
    let tap = solar::gradient_taped(&s0, n).unwrap();
    let f = |x: &[f64]| solar::loss_after(x, n).unwrap();
    nilang_runtime::check_gradient(f, &s0, &tap.grad, 1e-5, 1e-7).unwrap();
    let gm = solar::gm::<f64>();
    for n in [10, 100] {
        let mut tape = nilang_runtime::Tape::new();
        let mut s = s0.clone();
        nilang_examples::unchecked::leapfrog::leap_run_taped(
            &mut s,
            &gm,
            solar::STEP_DAYS,
            n,
            &mut tape,
        )
        .unwrap();
        assert_eq!(tape.len(), n as usize * s0.len());
        assert!(tape.capacity_bytes() >= n as usize * std::mem::size_of_val(&s0[..]));
        nilang_examples::unchecked::leapfrog::uncall_leap_run_taped(
            &mut s,
            &gm,
            solar::STEP_DAYS,
            n,
            &mut tape,
        )
        .unwrap();
        assert_eq!(s, s0);
        assert!(tape.is_empty());
    }
}

#[test]
fn double_double_arithmetic() {
    use solar::dd::Dd;
    let third = Dd::from(1.0) / Dd::from(3.0);
    let one = third * Dd::from(3.0) - Dd::from(1.0);
    assert!(one.hi.abs() < 1e-31, "{one:?}");
    // 1/3 is not an f64: the low part carries digits.
    assert!(third.lo != 0.0);
    let two = Dd::from(2.0).sqrt();
    let err = two * two - Dd::from(2.0);
    assert!(err.hi.abs() < 1e-30, "{err:?}");
    assert!((Dd::from(1.0) + Dd::from(1e-20) - Dd::from(1.0)).hi == 1e-20);
}

// The paper's measure: the distance from a trajectory computed in higher
// precision (double-double here), after N steps forwards only.
#[test]
fn forward_error_against_double_double() {
    let counts = [10, 100, 1000];
    let reference = solar::reference_positions::<f64>(&counts);
    let rev = solar::forward_errors::<f64>(Variant::Reversible, &counts, &reference).unwrap();
    let reg = solar::forward_errors::<f64>(Variant::Regular, &counts, &reference).unwrap();
    let acc = solar::forward_errors::<f64>(Variant::Accumulative, &counts, &reference).unwrap();
    // Round-off only: small, but not zero, and growing.
    assert!(rev[2] > 0.0 && rev[2] < 1e-11, "{rev:?}");
    assert!(reg[2] > 0.0 && reg[2] < 1e-11, "{reg:?}");
    assert!(rev[0] <= rev[2] && reg[0] <= reg[2]);
    assert!(acc[2] > rev[2], "{acc:?} vs {rev:?}");
    // f32 against its own reference.
    let reference32 = solar::reference_positions::<f32>(&counts);
    let rev32 = solar::forward_errors::<f32>(Variant::Reversible, &counts, &reference32).unwrap();
    assert!(rev32[2] > 1e4 * rev[2] && rev32[2] < 1e-2, "{rev32:?}");
}

// The buffered reversible step does the regular step's arithmetic,
// operation for operation, and its uncall is the regular step with `-h`:
// forwards and backwards, the two agree bit for bit, in both precisions.
// So the extra error of `leap_step` comes from rounding every pair's
// contribution into the velocities, not from running backwards.
fn buffered_is_regular<T: nilang_runtime::Real>() {
    let gm = solar::gm::<T>();
    let h = T::from_f64(solar::STEP_DAYS);
    let mut a = solar::initial_state::<T>();
    let mut b = a.clone();
    solar::forward(Variant::Regular, &mut a, &gm, h, 300).unwrap();
    solar::forward(Variant::Buffered, &mut b, &gm, h, 300).unwrap();
    assert!(a == b, "forwards: {:?} vs {:?}", a, b);
    let regular_after = a.clone();
    solar::backward(Variant::Regular, &mut a, &gm, h, 300).unwrap();
    solar::backward(Variant::Buffered, &mut b, &gm, h, 300).unwrap();
    assert!(a == b, "backwards: {:?} vs {:?}", a, b);
    // ... and `leap_step` does not.
    let mut pairwise = solar::initial_state::<T>();
    solar::forward(Variant::Reversible, &mut pairwise, &gm, h, 300).unwrap();
    assert!(
        pairwise != regular_after,
        "the pairwise kick matches the regular one"
    );
}

#[test]
fn buffered_reversible_step_is_the_regular_step() {
    buffered_is_regular::<f64>();
    buffered_is_regular::<f32>();
}

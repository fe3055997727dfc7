//! Number systems (examples/numbers.nil): fixed-point accumulation undone
//! bit for bit, log-number programs (exp, powers, Bessel) and their
//! gradients, and the tropical matrix product against a plain max-plus one.

use nilang_examples::{bessel, numbers, unchecked};
use nilang_runtime::ndarray::{Array2, ShapeBuilder};
use nilang_runtime::{Fixed43, Tape, Tropical, check_gradient};

/// A small deterministic generator (SplitMix64), so no dependency is needed.
fn splitmix(state: &mut u64) -> u64 {
    *state = state.wrapping_add(0x9E37_79B9_7F4A_7C15);
    let mut z = *state;
    z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
    z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
    z ^ (z >> 31)
}

fn uniform(state: &mut u64, lo: f64, hi: f64) -> f64 {
    lo + (hi - lo) * ((splitmix(state) >> 11) as f64 / (1u64 << 53) as f64)
}

#[test]
fn a_million_fixed_point_accumulations_are_undone_bit_for_bit() {
    let mut seed = 9;
    let xs: Vec<f64> = (0..1_000_000)
        .map(|_| uniform(&mut seed, -1.0, 1.0))
        .collect();
    let start = nilang_runtime::fixed::from_f64(0.123_456_789);
    let mut acc = start;
    numbers::fixed_accumulate(&mut acc, &xs).unwrap();
    // The sum of the rounded values, exactly.
    let exact: i128 = xs
        .iter()
        .map(|&x| i128::from(nilang_runtime::fixed::from_f64(x).to_bits()))
        .sum::<i128>()
        + i128::from(start.to_bits());
    assert_eq!(i128::from(acc.to_bits()), exact);
    assert_ne!(acc.to_bits(), start.to_bits());
    numbers::uncall_fixed_accumulate(&mut acc, &xs).unwrap();
    assert_eq!(acc.to_bits(), start.to_bits());
}

#[test]
fn fixed_point_overflow_is_an_error_with_checks_and_wraps_reversibly_without() {
    let xs = vec![600_000.0, 600_000.0];
    let mut acc = Fixed43::ZERO;
    let err = numbers::fixed_accumulate(&mut acc, &xs).unwrap_err();
    assert_eq!(err.check, nilang_runtime::Check::Overflow);
    let text = err.to_string();
    assert!(text.contains("numbers.nil:11:9"), "{text}");
    assert!(text.contains("`acc += ...`"), "{text}");
    // Without checks the sum wraps around, and the uncall still undoes it.
    let mut acc = Fixed43::ZERO;
    unchecked::numbers::fixed_accumulate(&mut acc, &xs).unwrap();
    assert!(acc < Fixed43::ZERO);
    unchecked::numbers::uncall_fixed_accumulate(&mut acc, &xs).unwrap();
    assert_eq!(acc, Fixed43::ZERO);
}

#[test]
fn fixed_point_converts_to_float() {
    let mut y = 1.0;
    numbers::fixed_to_float(&mut y, nilang_runtime::fixed::from_f64(0.75)).unwrap();
    assert_eq!(y, 1.75);
    numbers::uncall_fixed_to_float(&mut y, nilang_runtime::fixed::from_f64(0.75)).unwrap();
    assert_eq!(y, 1.0);
}

#[test]
fn i_exp_with_log_numbers_and_its_gradient() {
    let mut y = 0.0_f64;
    numbers::i_exp(&mut y, 3.5).unwrap();
    assert!((y - 33.11545195869231).abs() < 1e-12, "{y}");
    numbers::uncall_i_exp(&mut y, 3.5).unwrap();
    assert!(y.abs() < 1e-12, "{y}");
    // d exp(x)/dx = exp(x).
    let (mut y, mut gy, mut gx) = (0.0_f64, 1.0_f64, 0.0_f64);
    numbers::i_exp_grad(&mut y, &mut gy, 3.5, &mut gx).unwrap();
    assert!((gx - 33.11545195869231).abs() < 1e-12, "{gx}");
    // And the finite-difference checker agrees.
    let fd = check_gradient(
        |x: &[f64]| {
            let mut y = 0.0;
            numbers::i_exp(&mut y, x[0]).unwrap();
            y
        },
        &[3.5],
        &[gx],
        1e-6,
        1e-6,
    );
    assert!(fd.is_ok(), "{fd:?}");
}

#[test]
fn i_exp_on_fixed_point_log_numbers_uncalls_bit_for_bit() {
    use nilang_runtime::fixed::{from_f64, to_f64};
    // With the log numbers over f64 (`ulog(float(x))`), the uncall left up
    // to 5 units of 2^-43 in `y` on these inputs; over Fixed43 it leaves none.
    for i in 0..400 {
        let x = from_f64(0.001 + i as f64 * 0.00873);
        let y0 = from_f64(0.25);
        let mut y = y0;
        numbers::i_exp_fixed(&mut y, x).unwrap();
        let expected = 0.25 + to_f64(x).exp();
        assert!((to_f64(y) - expected).abs() < 1e-9 * expected, "{x}: {y}");
        numbers::uncall_i_exp_fixed(&mut y, x).unwrap();
        assert_eq!(y.to_bits(), y0.to_bits(), "x = {x}");
    }
}

#[test]
fn exp_of_a_fixed_point_number_is_exact_to_undo_and_checked_for_range() {
    use nilang_runtime::fixed::{from_f64, to_f64};
    let (x, y0) = (from_f64(1.5), from_f64(-0.125));
    let mut y = y0;
    numbers::fixed_exp(&mut y, x).unwrap();
    assert!((to_f64(y) - (1.5f64.exp() - 0.125)).abs() < 1e-12);
    numbers::uncall_fixed_exp(&mut y, x).unwrap();
    assert_eq!(y.to_bits(), y0.to_bits());
    // e^20 is beyond Fixed43's range: an error naming the line, and `y`
    // as it was; unchecked, the result saturates.
    let err = numbers::fixed_exp(&mut y, from_f64(20.0)).unwrap_err();
    assert_eq!(err.check, nilang_runtime::Check::Overflow);
    assert!(
        err.to_string()
            .starts_with("examples/numbers.nil:75:10: fixed-point overflow"),
        "{err}"
    );
    assert!(err.to_string().contains("exp(20) = 485165195.4"), "{err}");
    assert_eq!(y.to_bits(), y0.to_bits());
    let mut y = from_f64(0.0);
    nilang_examples::unchecked::numbers::fixed_exp(&mut y, from_f64(20.0)).unwrap();
    assert_eq!(y, nilang_runtime::Fixed43::MAX);
}

#[test]
fn i_power_with_log_numbers_and_its_gradient() {
    let mut y = 1.0_f64;
    numbers::i_power(&mut y, 1.5, 7).unwrap();
    assert!((y - (1.0 + 1.5_f64.powi(7))).abs() < 1e-10, "{y}");
    numbers::uncall_i_power(&mut y, 1.5, 7).unwrap();
    assert!((y - 1.0).abs() < 1e-12, "{y}");
    let (mut y, mut gy, mut gx) = (0.0_f64, 1.0_f64, 0.0_f64);
    numbers::i_power_grad(&mut y, &mut gy, 1.5, &mut gx, 7).unwrap();
    assert!((gx - 7.0 * 1.5_f64.powi(6)).abs() < 1e-9, "{gx}");
}

#[test]
fn bessel_with_log_numbers_matches_the_float_version() {
    for (v, z) in [(2, 1.0), (0, 0.5), (1, 2.0), (3, 4.5)] {
        let mut plain = 0.0_f64;
        bessel::ibesselj(&mut plain, v, z, 1e-12).unwrap();
        let mut log = 0.0_f64;
        numbers::ibesselj_log(&mut log, v, z).unwrap();
        assert!((log - plain).abs() < 1e-9, "J_{v}({z}): {log} vs {plain}");
        numbers::uncall_ibesselj_log(&mut log, v, z).unwrap();
        assert!(log.abs() < 1e-12);
    }
    let mut out = 0.0_f64;
    numbers::ibesselj_log(&mut out, 2, 1.0).unwrap();
    assert!((out - 0.11490348493190048).abs() < 1e-12, "{out}");
    // At z = 10 the terms grow to about 2e3 before they shrink: the log
    // numbers keep each term to full relative precision and give J_2(10)
    // (0.25463031368512062, from the recurrence J_2 = 2 J_1 / z - J_0 with
    // tabulated J_0(10), J_1(10)) where the float version, which multiplies
    // terms by approximate factors, is off by 5e-5.
    let mut out = 0.0_f64;
    numbers::ibesselj_log(&mut out, 2, 10.0).unwrap();
    assert!((out - 0.254_630_313_685_120_6).abs() < 1e-10, "{out}");
    // The gradient through the log numbers: J_2'(z) = J_1(z) - 2 J_2(z) / z,
    // with the tabulated J_1(1) = 0.44005058574493355. (The float version's
    // gradient, through its approximate multiplier, is off by about 1e-7.)
    let (mut o, mut g, mut gz) = (0.0_f64, 1.0_f64, 0.0_f64);
    numbers::ibesselj_log_grad(&mut o, &mut g, 2, 1.0, &mut gz).unwrap();
    let exact = 0.440_050_585_744_933_55 - 2.0 * 0.114_903_484_931_900_48;
    assert!((gz - exact).abs() < 1e-12, "{gz} vs {exact}");
    let fd = check_gradient(
        |z: &[f64]| {
            let mut y = 0.0;
            numbers::ibesselj_log(&mut y, 2, z[0]).unwrap();
            y
        },
        &[1.0],
        &[gz],
        1e-6,
        1e-6,
    );
    assert!(fd.is_ok(), "{fd:?}");
}

fn tropical_matrix(seed: &mut u64, m: usize, n: usize) -> Array2<Tropical<f64>> {
    let mut a = Array2::from_elem((m, n).f(), Tropical::zero());
    for v in a.iter_mut() {
        // Some entries stay -inf: no edge.
        if !splitmix(seed).is_multiple_of(4) {
            *v = Tropical::new(uniform(seed, -5.0, 5.0).round());
        }
    }
    a
}

fn plain_max_plus(a: &Array2<Tropical<f64>>, b: &Array2<Tropical<f64>>) -> Array2<f64> {
    let (m, l, n) = (a.nrows(), a.ncols(), b.ncols());
    let mut c = Array2::from_elem((m, n), f64::NEG_INFINITY);
    for i in 0..m {
        for j in 0..n {
            for k in 0..l {
                c[[i, j]] = c[[i, j]].max(a[[i, k]].n + b[[k, j]].n);
            }
        }
    }
    c
}

#[test]
fn tropical_matmul_equals_a_plain_max_plus_product_and_uncalls() {
    let mut seed = 3;
    let a = tropical_matrix(&mut seed, 5, 4);
    let b = tropical_matrix(&mut seed, 4, 6);
    let (a0, b0) = (a.clone(), b.clone());
    let mut c = Array2::from_elem((5, 6).f(), Tropical::<f64>::zero());
    let mut tape = Tape::new();
    numbers::tropical_matmul(c.view_mut(), a.view(), b.view(), &mut tape).unwrap();
    let expected = plain_max_plus(&a, &b);
    for i in 0..5 {
        for j in 0..6 {
            assert_eq!(c[[i, j]].n, expected[[i, j]], "C[{i}, {j}]");
        }
    }
    numbers::uncall_tropical_matmul(c.view_mut(), a.view(), b.view(), &mut tape).unwrap();
    assert!(c.iter().all(|x| x.n == f64::NEG_INFINITY));
    assert_eq!((a, b), (a0, b0));
}

#[test]
fn longest_paths_by_repeated_tropical_squaring() {
    // A small weighted DAG 1 → 2 → 3 → 4 with a shortcut 1 → 3: the
    // longest path of at most three edges from 1 to 4 takes the long way.
    let n = 4;
    let mut w = Array2::from_elem((n, n).f(), Tropical::<f64>::zero());
    for i in 0..n {
        w[[i, i]] = Tropical::one();
    }
    for (i, j, x) in [(0, 1, 2.0), (1, 2, 3.0), (2, 3, 1.0), (0, 2, 4.0)] {
        w[[i, j]] = Tropical::new(x);
    }
    let mut w2 = Array2::from_elem((n, n).f(), Tropical::zero());
    let mut tape = Tape::new();
    numbers::tropical_matmul(w2.view_mut(), w.view(), w.view(), &mut tape).unwrap();
    let mut w3 = Array2::from_elem((n, n).f(), Tropical::zero());
    numbers::tropical_matmul(w3.view_mut(), w2.view(), w.view(), &mut tape).unwrap();
    assert_eq!(w3[[0, 3]].n, 6.0);
    assert_eq!(w2[[0, 3]].n, 5.0);
    // Backwards in the opposite order, restoring both products.
    numbers::uncall_tropical_matmul(w3.view_mut(), w2.view(), w.view(), &mut tape).unwrap();
    numbers::uncall_tropical_matmul(w2.view_mut(), w.view(), w.view(), &mut tape).unwrap();
    assert!(w2.iter().chain(w3.iter()).all(|x| x.n == f64::NEG_INFINITY));
}

#[test]
fn tropical_scaling_is_reversible_without_a_tape() {
    let mut xs = vec![
        Tropical::new(1.0_f64),
        Tropical::new(-2.5),
        Tropical::zero(),
    ];
    let s = Tropical::new(0.75);
    numbers::tropical_scale(&mut xs, s).unwrap();
    assert_eq!(xs[0].n, 1.75);
    assert_eq!(xs[2].n, f64::NEG_INFINITY);
    numbers::uncall_tropical_scale(&mut xs, s).unwrap();
    assert_eq!(xs[1].n, -2.5);
}

#[test]
fn a_log_number_allocated_from_a_parameter_carries_its_gradient() {
    let (mut y, mut gy, mut gx) = (0.5_f64, 1.0_f64, 0.0_f64);
    numbers::ulog_roundtrip_grad(&mut y, &mut gy, 2.25, &mut gx).unwrap();
    // The reverse pass runs the program backwards: `y` is back at its input.
    assert!((y - 0.5).abs() < 1e-12, "{y}");
    assert!((gx - 1.0).abs() < 1e-12, "{gx}");
}

#[test]
fn zero_and_one_of_number_systems() {
    let x = nilang_runtime::fixed::from_f64(1.25);
    let mut y = 0.5;
    numbers::fixed_double(&mut y, x).unwrap();
    assert_eq!(y, 3.0);
    numbers::uncall_fixed_double(&mut y, x).unwrap();
    assert_eq!(y, 0.5);

    let xs = vec![
        Tropical::new(1.0_f64),
        Tropical::new(3.5),
        Tropical::new(-2.0),
    ];
    let mut best = Tropical::new(4.0);
    let mut tape = Tape::new();
    numbers::tropical_max_square(&mut best, &xs, &mut tape).unwrap();
    assert_eq!(best.n, 7.0);
    numbers::uncall_tropical_max_square(&mut best, &xs, &mut tape).unwrap();
    assert_eq!(best.n, 4.0);
}

#[test]
fn a_tropical_sum_in_a_routine_keeps_its_own_tape() {
    let xs = vec![
        Tropical::new(1.0_f64),
        Tropical::new(3.5),
        Tropical::new(-2.0),
    ];
    let mut y = 0.25;
    numbers::tropical_max_into(&mut y, &xs).unwrap();
    assert_eq!(y, 3.75);
    numbers::uncall_tropical_max_into(&mut y, &xs).unwrap();
    assert_eq!(y, 0.25);
}

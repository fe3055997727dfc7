//! The GMM objective and its gradients (plain Rust, hand-written, and the
//! `.nil` program's `gmm_objective_grad`) against ADBench's golden values,
//! against each other, and against central differences.

// The golden values keep all the digits ADBench prints.
#![allow(clippy::excessive_precision)]

use nilang_adbench::gmm::{self, Gmm};
use nilang_adbench::{data_dir, gmm_nil};

/// ADBench's golden F for gmm/test.txt (GmmTests.cpp).
const GOLDEN_F: f64 = 8.073_804_080_049_757_91;
/// ADBench's golden gradient for gmm/test.txt.
const GOLDEN_GRAD: [f64; 18] = [
    1.086_628_555_086_524_56e-1,
    -7.412_700_395_238_984_72e-1,
    6.326_071_840_152_460_71e-1,
    1.116_925_765_327_870_13,
    1.633_330_135_514_552_69e-1,
    -2.199_898_240_711_931_42e-2,
    2.277_782_922_542_360_98e-1,
    1.209_630_256_128_321_87,
    -6.063_759_207_339_563_39e-2,
    2.585_299_940_511_622_37,
    1.126_326_945_242_137_89e-1,
    3.857_443_098_496_117_77e-1,
    7.351_805_731_823_055_08e-2,
    5.418_363_627_155_952_32,
    -3.214_944_096_774_464_69e-1,
    1.718_923_097_750_049_37,
    8.600_910_907_908_668_75e-1,
    -9.946_409_304_663_228_48e-1,
];

fn load(rel: &str) -> Gmm {
    Gmm::read(data_dir().join("gmm").join(rel)).unwrap()
}

/// F by the `.nil` program.
fn nil_objective(g: &Gmm) -> f64 {
    objective_by(gmm_nil::gmm_objective, g)
}

/// F by one build of `gmm_objective`.
fn objective_by(objective: gmm::NilObjective, g: &Gmm) -> f64 {
    g.nil_objective(objective, g.constant_term()).unwrap()
}

/// F and its gradient (ADBench's order) by a build of `gmm_objective_grad`,
/// seeded with an output adjoint of 1.
fn gradient_by(grad: gmm::NilGradient, g: &Gmm) -> (f64, Vec<f64>) {
    let mut bars = gmm::Bars::new(g);
    bars.run(grad, g, g.constant_term()).unwrap();
    // The gradient program gives back its inputs: `out` is 0 again.
    assert!(
        bars.out.abs() < 1e-9,
        "out after the gradient: {}",
        bars.out
    );
    assert_eq!(bars.constant, 1.0);
    (bars.out, bars.gradient())
}

fn nil_gradient(g: &Gmm) -> (f64, Vec<f64>) {
    gradient_by(gmm_nil::gmm_objective_grad, g)
}

/// The same with every loop of `gmm.nil` taped.
fn taped_gradient(g: &Gmm) -> (f64, Vec<f64>) {
    gradient_by(nilang_adbench::taped::gmm_nil::gmm_objective_grad, g)
}

fn manual(g: &Gmm) -> Vec<f64> {
    let mut grad = vec![0.0; g.n_params()];
    gmm::manual_gradient(g, &mut grad);
    grad
}

fn assert_close(what: &str, got: &[f64], want: &[f64], rtol: f64, atol: f64) {
    assert_eq!(got.len(), want.len(), "{what}: lengths");
    for (i, (a, b)) in got.iter().zip(want).enumerate() {
        assert!(
            (a - b).abs() <= atol + rtol * b.abs(),
            "{what}: component {i}: {a} vs {b}"
        );
    }
}

#[test]
fn objectives_match_the_golden_value() {
    let g = load("test.txt");
    assert_eq!((g.d, g.k, g.n, g.n_params()), (2, 3, 1, 18));
    let plain = gmm::objective(&g);
    let nil = nil_objective(&g);
    assert!((plain - GOLDEN_F).abs() < 1e-8, "plain F = {plain}");
    assert!((nil - GOLDEN_F).abs() < 1e-8, ".nil F = {nil}");
}

#[test]
fn gradients_match_the_golden_values() {
    let g = load("test.txt");
    assert_close("manual", &manual(&g), &GOLDEN_GRAD, 0.0, 1e-8);
    let (_, grad) = nil_gradient(&g);
    assert_close(".nil", &grad, &GOLDEN_GRAD, 0.0, 1e-8);
}

/// Central differences of the plain objective in the parameter `p`
/// (ADBench's order).
fn fd_component(g: &Gmm, p: usize) -> f64 {
    let h = 1e-6;
    let mut probe = g.clone();
    let (ka, kd) = (g.k, g.k * g.d);
    let mut eval = |delta: f64| {
        let slot = if p < ka {
            &mut probe.alphas[p]
        } else if p < ka + kd {
            &mut probe.means[p - ka]
        } else {
            &mut probe.icf[p - ka - kd]
        };
        let old = *slot;
        *slot = old + delta;
        let f = gmm::objective(&probe);
        let slot = if p < ka {
            &mut probe.alphas[p]
        } else if p < ka + kd {
            &mut probe.means[p - ka]
        } else {
            &mut probe.icf[p - ka - kd]
        };
        *slot = old;
        f
    };
    (eval(h) - eval(-h)) / (2.0 * h)
}

fn check_against_manual_and_differences(rel: &str) {
    let g = load(rel);
    let (_, grad) = nil_gradient(&g);
    assert_close(rel, &grad, &manual(&g), 1e-8, 1e-10);
    // A handful of components from each block: alphas, means, log-diagonal
    // and lower part of the last component.
    let icf0 = g.k + g.k * g.d;
    let last = icf0 + (g.k - 1) * g.icf_sz();
    let picks = [
        0,
        g.k - 1,
        g.k,
        icf0 - 1,
        icf0,
        last + g.d - 1,
        g.n_params() - 1,
    ];
    for p in picks {
        let fd = fd_component(&g, p);
        assert!(
            (grad[p] - fd).abs() <= 1e-6 * (1.0 + fd.abs()),
            "{rel}: component {p}: .nil {} vs differences {fd}",
            grad[p]
        );
    }
}

#[test]
fn gradient_d2_k5() {
    check_against_manual_and_differences("1k/gmm_d2_K5.txt");
}

#[test]
fn gradient_d10_k5() {
    check_against_manual_and_differences("1k/gmm_d10_K5.txt");
}

/// The unchecked build sets its routines' scratch arrays back to zero
/// instead of uncomputing them (`codegen`'s `zeroing_uncomputation`): the
/// same F as the checked build, up to the rounding the uncomputation left.
#[test]
fn unchecked_objective_equals_checked() {
    for rel in ["test.txt", "1k/gmm_d2_K5.txt", "1k/gmm_d10_K5.txt"] {
        let g = load(rel);
        let checked = nil_objective(&g);
        let unchecked = objective_by(nilang_adbench::unchecked::gmm_nil::gmm_objective, &g);
        assert!(
            (checked - unchecked).abs() <= 1e-12 * checked.abs().max(1.0),
            "{rel}: checked {checked}, unchecked {unchecked}"
        );
    }
}

#[test]
fn nil_objective_equals_plain_on_1k_files() {
    // d = 64 runs in a few seconds even unoptimised: keep it.
    for rel in [
        "1k/gmm_d2_K5.txt",
        "1k/gmm_d10_K5.txt",
        "1k/gmm_d64_K5.txt",
        "1k/gmm_d64_K10.txt",
    ] {
        let g = load(rel);
        let (plain, nil) = (gmm::objective(&g), nil_objective(&g));
        assert!(
            (plain - nil).abs() <= 1e-10 * plain.abs().max(1.0),
            "{rel}: plain {plain}, .nil {nil}"
        );
    }
}

#[test]
fn reader_rejects_bad_input() {
    let text = std::fs::read_to_string(data_dir().join("gmm/test.txt")).unwrap();
    let cut = &text[..text.len() / 2];
    let err = Gmm::parse(cut).unwrap_err();
    assert!(matches!(err, gmm::ReadError::Truncated { .. }), "{err}");
    assert!(err.to_string().contains("ends early"));
    assert!(Gmm::parse("2 3 x").is_err());
    assert!(Gmm::parse("0 3 1").is_err());
    assert!(Gmm::parse("2 3 1\n1.0 abc").is_err());
    assert!(Gmm::parse("99999999999 99999999999 1").is_err());
    assert!(Gmm::read(data_dir().join("gmm/missing.txt")).is_err());
}

#[test]
fn lgamma_known_values() {
    assert!(gmm::lgamma(1.0).abs() < 1e-14);
    assert!(gmm::lgamma(2.0).abs() < 1e-14);
    assert!((gmm::lgamma(0.5) - 0.5 * std::f64::consts::PI.ln()).abs() < 1e-14);
    assert!((gmm::lgamma(10.0) - 362_880f64.ln()).abs() < 1e-12);
    assert!((gmm::lgamma(33.5) - 83.302_425_502_950_04).abs() < 1e-11);
}

#[test]
fn taped_gradient_equals_the_reverse_computed_one() {
    for rel in ["test.txt", "1k/gmm_d2_K5.txt"] {
        let g = load(rel);
        let (_, reversed) = nil_gradient(&g);
        let (_, taped) = taped_gradient(&g);
        // Equal up to rounding: the taped pass restores values exactly, the
        // reverse-computed one by uncomputing.
        assert_close(rel, &taped, &reversed, 1e-9, 1e-12);
    }
}

#[test]
fn unchecked_taped_gradient_equals_the_reverse_computed_one() {
    let g = load("test.txt");
    let (_, reversed) = nil_gradient(&g);
    let (_, taped) = gradient_by(
        nilang_adbench::unchecked::taped::gmm_nil::gmm_objective_grad,
        &g,
    );
    assert_close("test.txt", &taped, &reversed, 1e-9, 1e-12);
}

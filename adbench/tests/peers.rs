//! Every peer's derivatives agree with ours: num-dual (forward mode),
//! echidna and easy-ml (tapes) against the generated reverse passes (and
//! forward over reverse for second derivatives), on Bessel, the graph
//! embedding, GMM and BA. Small inputs only; the big ones are benchmarked.

#[path = "../peers/mod.rs"]
mod peers;

use nilang_adbench::ba::{self, BaInput, BaJacobian};
use nilang_adbench::data_dir;
use nilang_adbench::gmm::{self, Gmm};
use nilang_examples::petersen;
use peers::*;

fn assert_close(what: &str, got: &[f64], want: &[f64], rtol: f64) {
    assert_eq!(got.len(), want.len(), "{what}: length");
    let scale = want.iter().fold(0.0_f64, |m, v| m.max(v.abs()));
    for (i, (a, b)) in got.iter().zip(want).enumerate() {
        assert!(
            (a - b).abs() <= rtol * (b.abs() + 1e-3 * scale),
            "{what}[{i}]: {a} vs ours {b}"
        );
    }
}

/// The series stops once a term is below atol = 1e-8; the reversible one
/// (with its approximate in-place multiplication) stops at a slightly
/// different term, so ours and the peers' agree to about atol, and the
/// peers, which run the same plain series, agree with each other exactly.
#[test]
fn bessel_derivatives() {
    for z in [0.3, 0.7, 1.0] {
        let ours = bessel_nil_gradient(2, z);
        let h = 1e-6;
        let fd = (besselj(2, z + h, 1e-8) - besselj(2, z - h, 1e-8)) / (2.0 * h);
        assert!(
            (ours - fd).abs() < 1e-7,
            "z {z}: {ours} vs differences {fd}"
        );
        let nd = bessel_num_dual(2, z);
        assert!(
            (nd - ours).abs() < 1e-8,
            "z {z}: num-dual {nd} vs ours {ours}"
        );
        for (name, peer) in [
            ("echidna", bessel_echidna(2, z)),
            ("easy-ml", bessel_easy_ml(2, z)),
        ] {
            assert_close(name, &[peer], &[nd], 1e-13);
        }
        let second = bessel_nil_second(2, z);
        let nd2 = bessel_num_dual_second(2, z);
        assert!(
            (nd2 - second).abs() < 1e-8,
            "z {z}: num-dual {nd2} vs ours {second}"
        );
    }
}

fn graph_case<const N: usize>(k: usize) {
    let x = petersen::Rng::new(3).positions(k);
    assert_eq!(x.len(), N);
    let mut ours = vec![0.0; N];
    let value = petersen::value_and_gradient(&x, k, &mut ours).unwrap();
    assert!((value - petersen::plain_loss(&x, k)).abs() < 1e-12);
    assert!((graph_loss(&x, k) - value).abs() < 1e-12);
    let f = Graph(k);
    let (v, g) = num_dual_gradient::<N>(&f, &x);
    assert!((v - value).abs() < 1e-12);
    assert_close("num-dual gradient", &g, &ours, 1e-9);
    assert_close("echidna gradient", &echidna_gradient(&f, &x), &ours, 1e-9);
    assert_close("easy-ml gradient", &easy_ml_gradient(&f, &x), &ours, 1e-9);
    let h_ours = petersen::hessian(&x, k, 0..N).unwrap();
    assert_close(
        "num-dual Hessian",
        &num_dual_hessian::<N>(&f, &x),
        &h_ours,
        1e-8,
    );
}

#[test]
fn graph_gradients_and_hessians() {
    // num-dual's second-order vector duals hold an N x N block each, and
    // its `hessian` passes them in by value: more than a test thread's stack.
    std::thread::Builder::new()
        .stack_size(256 << 20)
        .spawn(|| {
            graph_case::<20>(2);
            graph_case::<30>(3);
        })
        .unwrap()
        .join()
        .unwrap();
}

fn load(rel: &str) -> Gmm {
    Gmm::read(data_dir().join("gmm").join(rel)).unwrap()
}

fn gmm_case<const N: usize>(g: &Gmm) {
    assert_eq!(g.n_params(), N);
    let c = g.constant_term();
    let mut bars = GmmBars::new(g);
    gmm_nil_gradient(g, c, &mut bars);
    let ours = bars.gradient();
    let mut manual = vec![0.0; N];
    gmm::manual_gradient(g, &mut manual);
    assert_close("manual", &manual, &ours, 1e-9);
    let p = gmm_params(g);
    let f = gmm::objective(g);
    assert!((gmm_objective(g, &p) - f).abs() <= 1e-11 * f.abs());
    assert!((gmm_nil_objective(g, c) - f).abs() <= 1e-11 * f.abs());
    let obj = GmmObjective(g);
    let (v, nd) = num_dual_gradient::<N>(&obj, &p);
    assert!((v - f).abs() <= 1e-11 * f.abs());
    assert_close("num-dual", &nd, &ours, 1e-9);
    assert_close("echidna", &echidna_gradient(&obj, &p), &ours, 1e-9);
    assert_close("easy-ml", &easy_ml_gradient(&obj, &p), &ours, 1e-9);
}

#[test]
fn gmm_gradients() {
    gmm_case::<18>(&load("test.txt"));
    gmm_case::<30>(&load("1k/gmm_d2_K5.txt"));
}

/// Three cameras (one with r = 0, the first-order rotation), four points,
/// seven observations with distinct weights and features.
fn distinct_input() -> BaInput {
    #[rustfmt::skip]
    let cams = vec![
        0.10, -0.20, 0.05, 0.3, -0.1, -5.0, 300.0, 2.0, -1.0, 0.01, -0.002,
        0.0, 0.0, 0.0, -0.2, 0.4, -6.0, 250.0, -3.0, 1.5, -0.03, 0.004,
        -0.3, 0.25, 0.4, 0.1, 0.2, -4.5, 410.0, 0.5, 0.7, 0.02, 0.001,
    ];
    let points = vec![
        0.5, -0.3, 0.2, -0.4, 0.6, -0.1, 0.2, 0.1, 0.7, -0.6, -0.5, 0.3,
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

#[test]
fn ba_jacobians() {
    for input in [
        BaInput::read(data_dir().join("ba/test.txt")).unwrap(),
        distinct_input(),
    ] {
        let mut r = vec![0.0; 2 * input.p];
        let mut w = vec![0.0; input.p];
        ba::residuals(&input, &mut r, &mut w);
        let mut rg = vec![0.0; 2 * input.p];
        ba_residuals_generic(&input, &mut rg);
        assert_close("generic residuals", &rg, &r, 1e-13);
        let mut ours = BaJacobian::new(&input);
        ba::nil_jacobian(&input, &mut ours).unwrap();
        type Fill = fn(&BaInput, &mut BaJacobian);
        for (name, fill) in [
            ("num-dual", ba_jacobian_num_dual as Fill),
            ("echidna", ba_jacobian_echidna),
            ("easy-ml", ba_jacobian_easy_ml),
        ] {
            let mut j = BaJacobian::new(&input);
            fill(&input, &mut j);
            assert_close(name, &j.vals, &ours.vals, 1e-9);
        }
    }
}

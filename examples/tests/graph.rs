//! The graph-embedding loss of `graph.nil` (seed 000, section 4.5): the
//! generated forward against plain Rust, its uncall, its gradient against
//! central differences, its Hessian (forward over reverse) against
//! differences of the gradient, and the training of `petersen`.

use nilang_examples::petersen::{self, L1, L2, Rng, VERTICES, view, view_mut};
use nilang_examples::{graph, unchecked};
use nilang_runtime::num_dual::Dual64;

/// Random positions for dimensions 1 to 6, at two scales: at scale 1 the
/// mean distances are close, so `mean(d1) - mean(d2) + 0.1 > 0` and the
/// exponential term is on; at scale 20 the sign of `mean(d1) - mean(d2)`
/// decides, so both branches are taken.
fn points() -> Vec<(usize, Vec<f64>)> {
    let mut rng = Rng::new(42);
    let mut out = vec![];
    for k in 1..=6 {
        for scale in [1.0, 20.0] {
            for _ in 0..4 {
                let x: Vec<f64> = rng.positions(k).iter().map(|v| v * scale).collect();
                out.push((k, x));
            }
        }
    }
    out
}

fn gap(x: &[f64], k: usize) -> f64 {
    let mean = |d: Vec<f64>| d.iter().sum::<f64>() / d.len() as f64;
    mean(petersen::distances(x, k, &L1)) - mean(petersen::distances(x, k, &L2)) + 0.1
}

#[test]
fn edge_sets_are_the_petersen_graph() {
    let mut seen = std::collections::HashSet::new();
    let mut degree = [0; VERTICES];
    for p in L1.chunks_exact(2) {
        assert!(p[0] < p[1] && seen.insert((p[0], p[1])), "{p:?}");
        degree[p[0] as usize - 1] += 1;
        degree[p[1] as usize - 1] += 1;
    }
    assert_eq!(degree, [3; VERTICES], "3-regular");
    for p in L2.chunks_exact(2) {
        assert!(p[0] < p[1] && seen.insert((p[0], p[1])), "{p:?}");
    }
    assert_eq!(seen.len(), VERTICES * (VERTICES - 1) / 2, "every pair once");
    // Girth 5: no two vertices joined by an edge share a neighbour, and
    // two that are not share exactly one (a strongly regular graph).
    let adjacent = |a: i64, b: i64| {
        L1.chunks_exact(2)
            .any(|p| (p[0], p[1]) == (a.min(b), a.max(b)))
    };
    for a in 1..=10 {
        for b in a + 1..=10 {
            let common = (1..=10)
                .filter(|&c| adjacent(a, c) && adjacent(b, c))
                .count();
            assert_eq!(common, if adjacent(a, b) { 0 } else { 1 }, "{a} {b}");
        }
    }
}

#[test]
fn forward_matches_plain_rust() {
    let (mut on, mut off) = (0, 0);
    for (k, x) in points() {
        let plain = petersen::plain_loss(&x, k);
        let generated = petersen::loss(&x, k).unwrap();
        assert!(
            (generated - plain).abs() <= 1e-12 * plain.abs().max(1.0),
            "k = {k}: {generated} vs {plain}"
        );
        let mut fast = 0.0;
        unchecked::graph::embedding_loss(&mut fast, view(&x, k), &L1, &L2).unwrap();
        assert_eq!(fast, generated, "checked and unchecked agree");
        if gap(&x, k) > 0.0 { on += 1 } else { off += 1 }
    }
    assert!(on > 4 && off > 4, "both branches of the relu: {on} / {off}");
}

#[test]
fn uncall_restores_the_output() {
    for (k, x) in points() {
        let start = 0.625;
        let mut out = start;
        graph::embedding_loss(&mut out, view(&x, k), &L1, &L2).unwrap();
        let loss = petersen::plain_loss(&x, k);
        assert!((out - start - loss).abs() < 1e-12 * loss.max(1.0));
        graph::uncall_embedding_loss(&mut out, view(&x, k), &L1, &L2).unwrap();
        // Adding and subtracting the loss loses at most a few units in the
        // last place of `start + loss`.
        assert!(
            (out - start).abs() <= 4.0 * f64::EPSILON * (start + loss),
            "{out}"
        );
    }
}

#[test]
fn gradient_matches_central_differences() {
    for (k, x) in points() {
        let mut g = vec![0.0; x.len()];
        let value = petersen::value_and_gradient(&x, k, &mut g).unwrap();
        assert!((value - petersen::plain_loss(&x, k)).abs() < 1e-12 * value.max(1.0));
        // Differences lose about eps |f| / h to rounding, and the loss is in
        // the hundreds at scale 20: the absolute tolerance follows it.
        let atol = 1e-8 * value.max(1.0);
        nilang_runtime::check_gradient(|x| petersen::plain_loss(x, k), &x, &g, 1e-6, atol)
            .unwrap_or_else(|e| panic!("k = {k}: {e}"));
        // `embedding_loss_grad` (forward, then reverse pass) in one call.
        let (mut out, mut out_bar) = (0.0, 1.0);
        let mut g2 = vec![0.0; x.len()];
        graph::embedding_loss_grad(
            &mut out,
            &mut out_bar,
            view(&x, k),
            view_mut(&mut g2, k),
            &L1,
            &L2,
        )
        .unwrap();
        assert!(
            out.abs() <= 4.0 * f64::EPSILON * value,
            "the output is restored: {out}"
        );
        assert_eq!(out_bar, 1.0);
        assert_eq!(g, g2);
    }
}

/// With checks off, code generation drops a final `~@routine` that only
/// restores ancillas; in a reverse pass that `~@routine` is the routine's
/// adjoint and must stay (it once did not, and this gradient was all zeros).
#[test]
fn unchecked_gradient_matches_checked() {
    for (k, x) in points() {
        let mut g = vec![0.0; x.len()];
        petersen::value_and_gradient(&x, k, &mut g).unwrap();
        let mut g2 = vec![0.0; x.len()];
        petersen::gradient_by(unchecked::graph::embedding_loss_grad, &x, k, &mut g2).unwrap();
        for (a, b) in g.iter().zip(&g2) {
            assert!(
                (a - b).abs() <= 1e-14 * a.abs().max(1.0),
                "k = {k}: {a} vs {b}"
            );
        }
    }
}

#[test]
fn hessian_by_forward_over_reverse() {
    let h_step = 1e-5;
    for (k, x) in points().into_iter().step_by(5) {
        let n = x.len();
        let h = petersen::hessian(&x, k, 0..n).unwrap();
        let mut worst_asym: f64 = 0.0;
        for i in 0..n {
            for j in 0..i {
                let (a, b) = (h[i * n + j], h[j * n + i]);
                worst_asym = worst_asym.max((a - b).abs() / a.abs().max(1.0));
            }
        }
        assert!(
            worst_asym < 1e-10,
            "k = {k}: symmetric, off by {worst_asym:e}"
        );
        // Column j against central differences of the gradient along e_j.
        let mut probe = x.clone();
        let (mut up, mut down) = (vec![0.0; n], vec![0.0; n]);
        for j in 0..n {
            probe[j] = x[j] + h_step;
            petersen::value_and_gradient(&probe, k, &mut up).unwrap();
            probe[j] = x[j] - h_step;
            petersen::value_and_gradient(&probe, k, &mut down).unwrap();
            probe[j] = x[j];
            for i in 0..n {
                let fd = (up[i] - down[i]) / (2.0 * h_step);
                assert!(
                    (h[i * n + j] - fd).abs() <= 1e-6 * fd.abs() + 1e-6,
                    "k = {k}, H[{i}][{j}] = {} vs {fd}",
                    h[i * n + j]
                );
            }
        }
        // The gradient parts of the dual run are the gradient.
        let mut g = vec![0.0; n];
        petersen::value_and_gradient(&x, k, &mut g).unwrap();
        let xd: Vec<Dual64> = x.iter().map(|&v| Dual64::new(v, 0.0)).collect();
        let mut gd = vec![Dual64::from(0.0); n];
        let (mut out, mut out_bar) = (Dual64::from(0.0), Dual64::from(1.0));
        graph::embedding_loss_grad(
            &mut out,
            &mut out_bar,
            view(&xd, k),
            view_mut(&mut gd, k),
            &L1,
            &L2,
        )
        .unwrap();
        for (a, b) in g.iter().zip(&gd) {
            assert!((a - b.re).abs() <= 1e-14 * a.abs().max(1.0) && b.eps == 0.0);
        }
    }
}

#[test]
fn the_gradient_program_runs_backwards() {
    let k = 4;
    let x = Rng::new(7).positions(k);
    let n = x.len();
    let loss = petersen::plain_loss(&x, k);
    let mut g = vec![0.0; n];
    petersen::value_and_gradient(&x, k, &mut g).unwrap();
    let scale = g.iter().fold(0.0_f64, |m, v| m.max(v.abs()));

    // `embedding_loss_grad` is `embedding_loss` then its reverse pass
    // `embedding_loss_adjoint`. Its inverse is the reverse pass of
    // `~embedding_loss` (`uncall_embedding_loss_adjoint`: it runs
    // `embedding_loss` forwards and takes each adjoint contribution off
    // again), then `~embedding_loss`. Together they give back the output,
    // the seed, and zero adjoints.
    let (mut out, mut out_bar) = (0.5, 1.0);
    let mut x_bar = vec![0.0; n];
    graph::embedding_loss_grad(
        &mut out,
        &mut out_bar,
        view(&x, k),
        view_mut(&mut x_bar, k),
        &L1,
        &L2,
    )
    .unwrap();
    assert!((out - 0.5).abs() < 1e-14, "{out}");
    assert_eq!(x_bar, g);
    graph::uncall_embedding_loss_adjoint(
        &mut out,
        &mut out_bar,
        view(&x, k),
        view_mut(&mut x_bar, k),
        &L1,
        &L2,
    )
    .unwrap();
    assert!((out - 0.5 - loss).abs() < 1e-12 * loss.max(1.0), "{out}");
    graph::uncall_embedding_loss(&mut out, view(&x, k), &L1, &L2).unwrap();
    assert!((out - 0.5).abs() < 1e-14, "{out}");
    assert_eq!(out_bar, 1.0);
    assert!(x_bar.iter().all(|v| v.abs() < 1e-14 * scale), "{x_bar:?}");

    // On its own, the reverse pass of `~embedding_loss` (which subtracts
    // the loss) gives the negated gradient, from `out` = 0 to the loss.
    let (mut out, mut out_bar) = (0.0, 1.0);
    let mut gu = vec![0.0; n];
    graph::uncall_embedding_loss_adjoint(
        &mut out,
        &mut out_bar,
        view(&x, k),
        view_mut(&mut gu, k),
        &L1,
        &L2,
    )
    .unwrap();
    assert!(
        (out - loss).abs() < 1e-12 * loss.max(1.0),
        "{out} vs {loss}"
    );
    for (a, b) in g.iter().zip(&gu) {
        assert!((a + b).abs() <= 1e-14 * a.abs().max(1.0), "{a} {b}");
    }

    // Several seeds in one sweep: adjoints of type [f64; 2].
    let (mut out, mut out_bar) = (0.0, [1.0, -3.0]);
    let mut g2 = vec![[0.0; 2]; n];
    graph::embedding_loss_grad(
        &mut out,
        &mut out_bar,
        view(&x, k),
        view_mut(&mut g2, k),
        &L1,
        &L2,
    )
    .unwrap();
    for (a, b) in g.iter().zip(&g2) {
        assert!((a - b[0]).abs() <= 1e-14 * a.abs().max(1.0));
        assert!((3.0 * a + b[1]).abs() <= 1e-13 * a.abs().max(1.0));
    }
}

#[test]
fn newton_embeds_the_petersen_graph_in_five_dimensions() {
    let k = 5;
    let mut x = Rng::new(1).positions(k);
    let fixed = x[..petersen::FIXED * k].to_vec();
    let report = petersen::newton(&mut x, k, 60, 0.0).unwrap();
    assert!(report.loss < 1e-10, "{report:?}");
    assert!(report.hessians <= 40, "{report:?}");
    assert!(petersen::plain_loss(&x, k) < 1e-10);
    let ratio = petersen::ratio(&x, k);
    assert!(
        (ratio - std::f64::consts::SQRT_2).abs() < 1e-6,
        "l2/l1 = {ratio}"
    );
    assert_eq!(
        &x[..petersen::FIXED * k],
        &fixed[..],
        "vertices 1 and 2 stay"
    );
    // Every edge has the same length, every other pair the same distance.
    for (pairs, expected) in [(&L1[..], 1.0), (&L2[..], ratio)] {
        let l1 = petersen::distances(&x, k, &L1[..2])[0];
        for d in petersen::distances(&x, k, pairs) {
            assert!((d / l1 - expected).abs() < 1e-6, "{d} {l1}");
        }
    }
}

#[test]
fn three_or_four_dimensions_are_not_enough() {
    // Newton from three random starts each; 20 starts gave at least 0.03
    // (k = 3) and 0.005 (k = 4).
    for k in [3, 4] {
        let best = petersen::best_of(k, 3, 100, 60).unwrap();
        assert!(best > 1e-3, "k = {k}: {best}");
    }
}

#[test]
fn adam_reaches_a_small_loss_in_five_dimensions() {
    let k = 5;
    let mut x = Rng::new(1).positions(k);
    let mut first = f64::NAN;
    let loss = petersen::adam(&mut x, k, 2000, 0.01, |step, f| {
        if step == 1 {
            first = f;
        }
    })
    .unwrap();
    assert!(first > 1.0, "{first}");
    assert!(loss < 1e-8, "{loss}");
    assert!((petersen::ratio(&x, k) - std::f64::consts::SQRT_2).abs() < 1e-3);
}

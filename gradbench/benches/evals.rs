//! The evals at GradBench's default sizes, through the tool's own code: each
//! input is built as GradBench's JSON, prepared by `evals::prepare`, and
//! each function timed by `Eval::run` (what a timing in the protocol
//! measures), for the derivative / primal ratios in BENCHMARKS.md. Inputs
//! are drawn as GradBench's generators draw them, from a splitmix
//! generator rather than numpy's. The checked programs run, or the
//! unchecked ones with `NILANG_GRADBENCH_BUILD=unchecked`, as in the tool.
//!
//! `cargo bench -p nilang-gradbench --bench evals`

use nilang_gradbench::evals::{self, Build, Which};
use serde_json::{Value, json};

fn main() {
    divan::main();
}

/// `n` numbers in [0, 1), seeded.
fn uniform(n: usize, seed: u64) -> Vec<f64> {
    let mut state = seed;
    (0..n)
        .map(|_| {
            state = state.wrapping_add(0x9e37_79b9_7f4a_7c15);
            let mut z = state;
            z = (z ^ (z >> 30)).wrapping_mul(0xbf58_476d_1ce4_e5b9);
            z = (z ^ (z >> 27)).wrapping_mul(0x94d0_49bb_1331_11eb);
            ((z ^ (z >> 31)) >> 11) as f64 / (1u64 << 53) as f64
        })
        .collect()
}

/// `n` standard normal numbers (Box-Muller), seeded.
fn normal(n: usize, seed: u64) -> Vec<f64> {
    let u = uniform(2 * n, seed);
    (0..n)
        .map(|i| {
            (-2.0 * (1.0 - u[2 * i]).ln()).sqrt() * (std::f64::consts::TAU * u[2 * i + 1]).cos()
        })
        .collect()
}

fn rows(values: Vec<f64>, width: usize) -> Vec<Vec<f64>> {
    values.chunks(width).map(<[f64]>::to_vec).collect()
}

/// Times `module`'s primal or derivative at `input`.
fn bench(bencher: divan::Bencher, module: &str, input: Value, which: Which) {
    let build = Build::from_env().expect("a build");
    let mut eval = evals::prepare(module, &input).expect("a valid input");
    bencher.bench_local(|| eval.run(which, build).expect("the program runs"));
}

const BOTH: [Which; 2] = [Which::Primal, Which::Derivative];

/// The names of a table of cases, for divan's `args` (so that a row of
/// its output, and of BENCHMARKS.md, names the size, not an index).
fn names<T, const N: usize>(table: &[(&'static str, T); N]) -> [&'static str; N] {
    std::array::from_fn(|i| table[i].0)
}

/// The case of a table named `name`.
fn of<T: Copy>(table: &[(&str, T)], name: &str) -> T {
    table
        .iter()
        .find(|(n, _)| *n == name)
        .map(|&(_, case)| case)
        .expect("a case of the table")
}

#[divan::bench(args = [10_000, 160_000, 1_280_000], consts = [0, 1])]
fn lse<const W: usize>(bencher: divan::Bencher, n: usize) {
    bench(bencher, "lse", json!({ "x": uniform(n, 31337) }), BOTH[W]);
}

/// m = 128 (GradBench's), n points.
#[divan::bench(args = [1024, 4096, 16392], consts = [0, 1])]
fn llsq<const W: usize>(bencher: divan::Bencher, n: usize) {
    bench(
        bencher,
        "llsq",
        json!({ "x": uniform(128, 31337), "n": n }),
        BOTH[W],
    );
}

/// GradBench: ell 5-11.
#[divan::bench(args = [5, 7, 9], consts = [0, 1], sample_count = 10, sample_size = 1)]
fn det<const W: usize>(bencher: divan::Bencher, ell: usize) {
    bench(
        bencher,
        "det",
        json!({ "A": uniform(ell * ell, 31337), "ell": ell }),
        BOTH[W],
    );
}

/// (n, k, d) of GradBench's: points uniform, the centroids the last k.
const KMEANS: [(&str, (usize, usize, usize)); 2] = [
    ("n1000_k10_d8", (1000, 10, 8)),
    ("n10000_k100_d16", (10_000, 100, 16)),
];

#[divan::bench(args = names(&KMEANS), consts = [0, 1], sample_count = 10, sample_size = 1)]
fn kmeans<const W: usize>(bencher: divan::Bencher, case: &str) {
    let (n, k, d) = of(&KMEANS, case);
    let points = rows(uniform(n * d, 31337), d);
    let centroids = points[n - k..].to_vec();
    bench(
        bencher,
        "kmeans",
        json!({ "points": points, "centroids": centroids }),
        BOTH[W],
    );
}

/// (n, s) of GradBench's.
const ODE: [(&str, (usize, usize)); 3] = [
    ("n1000_s10", (1000, 10)),
    ("n10000_s100", (10_000, 100)),
    ("n100000_s10", (100_000, 10)),
];

#[divan::bench(args = names(&ODE), consts = [0, 1], sample_count = 10, sample_size = 1)]
fn ode<const W: usize>(bencher: divan::Bencher, case: &str) {
    let (n, s) = of(&ODE, case);
    bench(
        bencher,
        "ode",
        json!({ "x": uniform(n, 31337), "s": s }),
        BOTH[W],
    );
}

/// (l, c) of GradBench's, b = 14 bits a character (ADBench's width;
/// GradBench derives b from its text), inputs uniform.
const LSTM: [(&str, (usize, usize)); 3] = [
    ("l2_c1024", (2, 1024)),
    ("l4_c4096", (4, 4096)),
    ("l6_c8192", (6, 8192)),
];

#[divan::bench(args = names(&LSTM), consts = [0, 1], sample_count = 10, sample_size = 1)]
fn lstm<const W: usize>(bencher: divan::Bencher, case: &str) {
    let (l, c) = of(&LSTM, case);
    let b = 14;
    let input = json!({
        "main_params": rows(uniform(8 * b * l, 1), 4 * b),
        "extra_params": rows(uniform(3 * b, 2), b),
        "state": rows(uniform(2 * b * l, 3), b),
        "sequence": rows(uniform(c * b, 4), b),
    });
    bench(bencher, "lstm", input, BOTH[W]);
}

/// n = 1000 (GradBench's) and some of its (d, k), drawn as its generator
/// draws them (x, alpha, q, l normal, mu uniform), m = 0, gamma = 1.
const GMM: [(&str, (usize, usize)); 4] = [
    ("d2_k5", (2, 5)),
    ("d10_k25", (10, 25)),
    ("d20_k50", (20, 50)),
    ("d64_k100", (64, 100)),
];

#[divan::bench(args = names(&GMM), consts = [0, 1], sample_count = 10, sample_size = 1)]
fn gmm<const W: usize>(bencher: divan::Bencher, case: &str) {
    let ((d, k), n) = (of(&GMM, case), 1000);
    let l_sz = d * (d - 1) / 2;
    let input = json!({
        "d": d, "k": k, "n": n, "m": 0, "gamma": 1.0,
        "x": rows(normal(n * d, 5), d),
        "alpha": normal(k, 1),
        "mu": rows(uniform(k * d, 2), d),
        "q": rows(normal(k * d, 3), d),
        "l": rows(normal(k * l_sz, 4), l_sz.max(1)),
    });
    bench(bencher, "gmm", input, BOTH[W]);
}

/// BA instances as GradBench sends them: the header and the one camera,
/// point, weight and feature of ADBench's file (`adbench/data/ba`).
const BA: [&str; 3] = [
    "ba1_n49_m7776_p31843",
    "ba4_n372_m47423_p204472",
    "ba8_n88_m64298_p383937",
];

#[divan::bench(args = BA, consts = [0, 1], sample_count = 10, sample_size = 1)]
fn ba<const W: usize>(bencher: divan::Bencher, name: &str) {
    let path = format!(
        "{}/../adbench/data/ba/{name}.txt",
        env!("CARGO_MANIFEST_DIR")
    );
    let text = std::fs::read_to_string(&path).expect("an ADBench BA file");
    let mut lines = text.lines().map(|l| {
        l.split_whitespace()
            .map(|t| t.parse::<f64>().expect("a number"))
            .collect::<Vec<f64>>()
    });
    let mut next = || lines.next().expect("the header lines");
    let header = next();
    let (cam, x, w, feat) = (next(), next(), next()[0], next());
    let input = json!({
        "n": header[0] as u64, "m": header[1] as u64, "p": header[2] as u64,
        "cam": cam, "x": x, "w": w, "feat": feat,
    });
    bench(bencher, "ba", input, BOTH[W]);
}

/// ADBench's bone tree (wrist, four bones for each finger, forearm).
const HT_PARENTS: [i64; 22] = [
    -1, 0, 1, 2, 3, 0, 5, 6, 7, 0, 9, 10, 11, 0, 13, 14, 15, 0, 17, 18, 19, 0,
];

/// An input of the shape of GradBench's default `ht` runs (the `big`
/// model: 22 bones, 10000 vertices, 1084 triangles; the complicated
/// variant, or the simple one with `us` empty) with `n` points: ADBench's
/// files are not in this repository, so the numbers are drawn. Each
/// vertex has 1 to 4 bones of nonzero weight, about as often as in
/// ADBench's model (the program skips zero weights).
fn ht_input(n: usize, complicated: bool) -> Value {
    let (nb, nv, ntri) = (22, 10_000, 1084);
    let u = uniform(64 * nb + 12 * nv + 4 * ntri + 6 * n + 26, 31337);
    let mut at = 0;
    let mut next = || {
        at += 1;
        u[at - 1]
    };
    let mut matrix = || {
        let mut m: Vec<Vec<f64>> = (0..3)
            .map(|_| (0..4).map(|_| next() - 0.5).collect())
            .collect();
        m.push(vec![0.0, 0.0, 0.0, 1.0]);
        m
    };
    let base_relatives: Vec<_> = (0..nb).map(|_| matrix()).collect();
    let inverse_base_absolutes: Vec<_> = (0..nb).map(|_| matrix()).collect();
    let mut base_positions = Vec::with_capacity(nv);
    let mut weights = Vec::with_capacity(nv);
    for _ in 0..nv {
        base_positions.push(vec![next() - 0.5, next() - 0.5, next() - 0.5, 1.0]);
        let r = next();
        let count = 1 + usize::from(r > 0.4) + usize::from(r > 0.93) + usize::from(r > 0.965);
        let mut w = vec![0.0; nb];
        for _ in 0..count {
            w[((next() * nb as f64) as usize).min(nb - 1)] += next();
        }
        weights.push(w);
    }
    let mut pick = |below: usize| ((next() * below as f64) as usize).min(below - 1);
    let triangles: Vec<[usize; 3]> = (0..ntri).map(|_| [pick(nv), pick(nv), pick(nv)]).collect();
    let correspondences: Vec<usize> = (0..n)
        .map(|_| pick(if complicated { ntri } else { nv }))
        .collect();
    let points: Vec<Vec<f64>> = (0..n).map(|_| vec![next(), next(), next()]).collect();
    let us: Vec<Vec<f64>> = if complicated {
        (0..n).map(|_| vec![0.5 * next(), 0.5 * next()]).collect()
    } else {
        vec![]
    };
    let theta: Vec<f64> = (0..26).map(|_| next() - 0.5).collect();
    json!({
        "theta": theta,
        "us": us,
        "data": {
            "model": {
                "bone_count": nb,
                "bone_names": (0..nb).map(|b| format!("bone{b}")).collect::<Vec<_>>(),
                "parents": HT_PARENTS,
                "base_relatives": base_relatives,
                "inverse_base_absolutes": inverse_base_absolutes,
                "base_positions": base_positions,
                "weights": weights,
                "triangles": triangles,
                "is_mirrored": false,
            },
            "correspondences": correspondences,
            "points": points,
        },
    })
}

/// GradBench's hand1, hand6, hand9 and hand12 (c = 100 to 100000 points),
/// complicated (its default) and simple.
const HT: [(&str, usize); 4] = [
    ("hand1_c100", 100),
    ("hand6_c1600", 1600),
    ("hand9_c12800", 12_800),
    ("hand12_c100000", 100_000),
];

#[divan::bench(args = names(&HT), consts = [0, 1], sample_count = 5, sample_size = 1)]
fn ht_complicated<const W: usize>(bencher: divan::Bencher, case: &str) {
    bench(bencher, "ht", ht_input(of(&HT, case), true), BOTH[W]);
}

#[divan::bench(args = names(&HT), consts = [0, 1], sample_count = 5, sample_size = 1)]
fn ht_simple<const W: usize>(bencher: divan::Bencher, case: &str) {
    bench(bencher, "ht", ht_input(of(&HT, case), false), BOTH[W]);
}

/// `particle` and `saddle` (GradBench's inputs: w = 0, start (1, 1)), each
/// function a nesting of the two derivatives, `ff`, `fr`, `rf`, `rr`: the
/// whole solver run, as the protocol times it.
const NESTINGS: [&str; 4] = ["ff", "fr", "rf", "rr"];

fn nested(bencher: divan::Bencher, module: &str, input: Value, function: &str) {
    let which = evals::module(module)
        .and_then(|m| m.which(function))
        .expect("a function of the module");
    bench(bencher, module, input, which);
}

#[divan::bench(args = NESTINGS, sample_count = 20)]
fn particle(bencher: divan::Bencher, function: &str) {
    nested(bencher, "particle", json!({ "w": 0.0 }), function);
}

#[divan::bench(args = NESTINGS, sample_count = 20)]
fn saddle(bencher: divan::Bencher, function: &str) {
    nested(bencher, "saddle", json!({ "start": [1.0, 1.0] }), function);
}

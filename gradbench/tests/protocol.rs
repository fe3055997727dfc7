//! The tool driven over pipes as GradBench's intermediary drives it: every
//! message kind, repetition by `min_runs`/`min_seconds`, an undefined module,
//! a malformed line, the choice of build; and each eval's outputs against
//! independent values (a plain-Rust reference, central differences of it),
//! in both builds, and again from an eval prepared for another input whose
//! arrays were then replaced (so nothing `prepare` made may depend on the
//! input's values: that work belongs to the timed runs).

mod support;

use nilang_gradbench::evals::{self, Build};
use serde_json::{Value, json};
use support::{assert_builds_agree, replaced, session, session_with};

fn evaluate(id: u64, module: &str, function: &str, input: Value) -> String {
    json!({ "id": id, "kind": "evaluate", "module": module, "function": function, "input": input })
        .to_string()
}

fn define(id: u64, module: &str) -> String {
    json!({ "id": id, "kind": "define", "module": module }).to_string()
}

/// One module's function at one input, in a fresh session of each build:
/// the checked programs' output, which the unchecked ones must give too,
/// to rounding (the checks compare and compute nothing the result depends
/// on, but the unchecked build zeroes scratch ancillas it does not
/// uncompute: `support::assert_builds_agree`).
fn output(module: &str, function: &str, input: Value) -> Value {
    let messages = [define(0, module), evaluate(1, module, function, input)];
    let outputs: Vec<Value> = [[].as_slice(), &["--unchecked"]]
        .iter()
        .map(|args| {
            let (responses, ok, stderr) = session_with(args, &[], &messages);
            assert!(ok, "{stderr}");
            assert_eq!(responses[1]["success"], true, "{}", responses[1]);
            responses[1]["output"].clone()
        })
        .collect();
    assert_builds_agree(&outputs[0], &outputs[1]);
    outputs[0].clone()
}

/// `module`'s `function` at `input`, prepared for it, in `build`.
fn fresh(module: &str, function: &str, input: &Value, build: Build) -> Value {
    let module = evals::module(module).unwrap();
    let which = module.which(function).unwrap();
    let mut eval = (module.prepare)(input).expect("a valid input");
    eval.run(which, build).expect("a run");
    eval.output(which)
}

#[test]
fn every_message_kind_is_answered_with_its_id() {
    let messages = [
        json!({ "id": 0, "kind": "start", "eval": "hello" }).to_string(),
        define(1, "hello"),
        evaluate(2, "hello", "square", json!(3.0)),
        json!({ "id": 3, "kind": "analysis", "of": 2, "valid": true }).to_string(),
        evaluate(4, "hello", "double", json!(-1.5)),
        json!({ "id": 5, "kind": "analysis", "of": 4, "valid": false, "error": "wrong" })
            .to_string(),
        json!({ "id": 6, "kind": "something-new" }).to_string(),
    ];
    let (responses, ok, stderr) = session(&messages);
    assert!(ok, "{stderr}");
    let ids: Vec<u64> = responses
        .iter()
        .map(|r| r["id"].as_u64().unwrap())
        .collect();
    assert_eq!(ids, [0, 1, 2, 3, 4, 5, 6]);
    assert_eq!(responses[0]["tool"], "nilang");
    assert_eq!(responses[0]["config"]["build"], "checked");
    assert_eq!(responses[1], json!({ "id": 1, "success": true }));
    assert_eq!(responses[2]["output"], 9.0);
    assert_eq!(responses[4]["output"], -3.0);
    assert_eq!(responses[3], json!({ "id": 3 }));
    assert_eq!(responses[6], json!({ "id": 6 }));
    // One `evaluate` timing per run (one: hello has no `min_runs`), after
    // the `prepare` of the input.
    let names: Vec<&str> = responses[2]["timings"]
        .as_array()
        .unwrap()
        .iter()
        .map(|t| t["name"].as_str().unwrap())
        .collect();
    assert_eq!(names, ["prepare", "evaluate"]);
}

#[test]
fn runs_repeat_until_both_minimums_are_reached() {
    let count = |input: Value| -> usize {
        let (responses, ok, _) = session(&[define(0, "lse"), evaluate(1, "lse", "primal", input)]);
        assert!(ok);
        responses[1]["timings"]
            .as_array()
            .unwrap()
            .iter()
            .filter(|t| t["name"] == "evaluate")
            .count()
    };
    assert_eq!(
        count(json!({ "x": [1.0, 2.0], "min_runs": 7, "min_seconds": 0.0 })),
        7
    );
    // 0.05 s of runs of a few microseconds each: far more than one run.
    assert!(count(json!({ "x": [1.0, 2.0], "min_runs": 1, "min_seconds": 0.05 })) > 100);
}

#[test]
fn what_is_not_implemented_fails_with_an_error() {
    let (responses, ok, _) = session(&[
        define(0, "no_such_eval"),
        define(1, "lse"),
        evaluate(2, "lse", "hessian", json!({ "x": [1.0] })),
        evaluate(3, "llsq", "primal", json!({ "x": [1.0], "n": 3 })),
        evaluate(4, "lse", "primal", json!({ "x": "three" })),
    ]);
    assert!(ok);
    assert_eq!(responses[0]["success"], false);
    assert!(
        responses[0]["error"]
            .as_str()
            .unwrap()
            .contains("`no_such_eval`"),
        "{}",
        responses[0]
    );
    assert_eq!(responses[1]["success"], true);
    for (i, says) in [
        (2, "no function `hessian`"),
        (3, "not defined first"),
        (4, "array of numbers"),
    ] {
        assert_eq!(responses[i]["success"], false, "{}", responses[i]);
        let error = responses[i]["error"].as_str().unwrap();
        assert!(error.contains(says), "{error}");
    }
}

#[test]
fn a_malformed_line_stops_the_tool_with_a_message() {
    let (responses, ok, stderr) = session(&[
        define(0, "hello"),
        "{\"kind\": \"define\"".to_string(),
        define(2, "hello"),
    ]);
    assert!(!ok);
    assert_eq!(responses.len(), 1);
    assert!(stderr.contains("malformed message"), "{stderr}");
    let (_, ok, stderr) = session(&[json!({ "kind": "start" }).to_string()]);
    assert!(!ok);
    assert!(stderr.contains("numeric \"id\""), "{stderr}");
}

/// The build a session runs: checked by default, `--unchecked` or
/// NILANG_GRADBENCH_BUILD=unchecked for the other, the flag over the
/// variable, anything else refused before a message is read.
#[test]
fn a_flag_or_the_environment_chooses_the_build() {
    let start = [json!({ "id": 0, "kind": "start" }).to_string()];
    let build = |args: &[&str], env: &[(&str, &str)]| -> Value {
        let (responses, ok, stderr) = session_with(args, env, &start);
        assert!(ok, "{stderr}");
        responses[0]["config"]["build"].clone()
    };
    assert_eq!(build(&[], &[]), "checked");
    assert_eq!(build(&["--unchecked"], &[]), "unchecked");
    assert_eq!(build(&["--checked"], &[]), "checked");
    let unchecked = [("NILANG_GRADBENCH_BUILD", "unchecked")];
    assert_eq!(build(&[], &unchecked), "unchecked");
    assert_eq!(build(&["--checked"], &unchecked), "checked");
    assert_eq!(build(&[], &[("NILANG_GRADBENCH_BUILD", "")]), "checked");
    let (responses, ok, stderr) = session_with(&[], &[("NILANG_GRADBENCH_BUILD", "fast")], &start);
    assert!(!ok && responses.is_empty());
    assert!(stderr.contains("`fast` is no build"), "{stderr}");
}

/// Every module, prepared for one input and given another of the same
/// counts, answers exactly as when prepared for the second, in both
/// builds; the two inputs' answers differ, so an answer kept from the
/// first would show.
#[test]
fn every_eval_answers_for_an_input_replaced_after_prepare() {
    let ba = |w: f64, cam0: f64| {
        let mut v = ba_input(3, 5, 12);
        v["w"] = json!(w);
        v["cam"][0] = json!(cam0);
        v
    };
    let ht = |shift: f64| {
        json!({
            "theta": (0..26).map(|i| 0.01 * i as f64 + shift).collect::<Vec<_>>(),
            "data": {
                "model": {
                    "parents": [-1, 0],
                    "base_relatives": [IDENTITY, IDENTITY],
                    "inverse_base_absolutes": [IDENTITY, IDENTITY],
                    "base_positions": [[0.1, 0.2, 0.3, 1.0], [0.4, -0.5, 0.6, 1.0], [0.7, 0.8, -0.9, 1.0]],
                    "weights": [[0.5, 0.5], [1.0, 0.0], [0.2, 0.8]],
                    "triangles": [[0, 1, 2]],
                    "is_mirrored": false,
                },
                "correspondences": [2, 0],
                "points": [[0.1, 0.1, 0.1], [0.2, shift, 0.3]],
            },
        })
    };
    let pairs: Vec<(&str, Value, Value)> = vec![
        ("hello", json!(3.0), json!(-2.5)),
        (
            "lse",
            json!({ "x": [1.0, 2.0, 3.0] }),
            json!({ "x": [0.5, -4.0, 9.0] }),
        ),
        (
            "llsq",
            json!({ "x": [0.1, 0.2, 0.3], "n": 5 }),
            json!({ "x": [-0.3, 0.5, 0.7], "n": 9 }),
        ),
        (
            "det",
            json!({ "A": [1.0, 2.0, 3.0, 4.0], "ell": 2 }),
            json!({ "A": [2.0, -1.0, 0.5, 3.0], "ell": 2 }),
        ),
        (
            "kmeans",
            json!({ "points": [[0.0, 0.0], [1.0, 0.0], [0.0, 1.0], [5.0, 5.0]], "centroids": [[0.0, 0.0], [5.0, 5.0]] }),
            json!({ "points": [[1.0, 2.0], [2.0, 2.0], [4.0, 0.0], [4.0, 1.0]], "centroids": [[1.0, 1.0], [4.0, 4.0]] }),
        ),
        (
            "ode",
            json!({ "x": [0.3, 0.4, 0.5], "s": 4 }),
            json!({ "x": [0.9, -0.2, 0.1], "s": 4 }),
        ),
        (
            "gmm",
            json!({ "d": 2, "k": 2, "n": 3, "m": 0, "gamma": 1.0, "alpha": [0.1, 0.2],
                    "mu": [[0.0, 0.1], [0.2, 0.3]], "q": [[0.1, 0.0], [0.0, 0.1]], "l": [[0.3], [0.1]],
                    "x": [[1.0, 0.0], [0.0, 1.0], [0.5, 0.5]] }),
            json!({ "d": 2, "k": 2, "n": 3, "m": 3, "gamma": 0.5, "alpha": [-0.1, 0.4],
                    "mu": [[0.5, 0.1], [0.2, -0.3]], "q": [[0.2, 0.1], [-0.1, 0.1]], "l": [[-0.3], [0.2]],
                    "x": [[1.0, 2.0], [0.0, -1.0], [0.5, 1.5]] }),
        ),
        (
            "lstm",
            json!({ "main_params": [[0.1, 0.2, 0.3, 0.4], [0.2, 0.1, 0.0, -0.1]], "extra_params": [[0.3], [0.4], [0.5]],
                    "state": [[0.1], [0.2]], "sequence": [[0.3], [0.6], [0.9]] }),
            json!({ "main_params": [[0.3, -0.1, 0.2, 0.5], [-0.2, 0.4, 0.1, 0.3]], "extra_params": [[0.1], [0.7], [0.2]],
                    "state": [[0.4], [-0.2]], "sequence": [[0.8], [0.1], [0.5]] }),
        ),
        ("ba", ba(0.4, -0.75), ba(0.6, -0.5)),
        ("ht", ht(0.0), ht(0.3)),
        ("particle", json!({ "w": 0.0 }), json!({ "w": 0.1 })),
        (
            "saddle",
            json!({ "start": [1.0, 1.0] }),
            json!({ "start": [0.5, 2.0] }),
        ),
    ];
    let modules: Vec<&str> = pairs.iter().map(|(m, ..)| *m).collect();
    for module in evals::MODULES {
        assert!(
            modules.contains(&module.name),
            "no case for `{}`",
            module.name
        );
    }
    for (module, first, then) in &pairs {
        let functions = evals::module(module).unwrap().functions;
        // The solvers' four nestings share their Rust side; one is enough
        // (a solve takes seconds unoptimised).
        let functions = if functions.len() > 2 {
            &functions[functions.len() - 1..]
        } else {
            functions
        };
        for (function, _) in functions {
            let want = fresh(module, function, then, Build::Checked);
            assert_ne!(
                fresh(module, function, first, Build::Checked),
                want,
                "{module} {function}: the two inputs must answer differently"
            );
            assert_eq!(
                replaced(module, function, first, then),
                want,
                "{module} {function}"
            );
        }
    }
}

const IDENTITY: [[f64; 4]; 4] = [
    [1.0, 0.0, 0.0, 0.0],
    [0.0, 1.0, 0.0, 0.0],
    [0.0, 0.0, 1.0, 0.0],
    [0.0, 0.0, 0.0, 1.0],
];

fn lse_reference(x: &[f64]) -> f64 {
    let a = x.iter().cloned().fold(f64::NEG_INFINITY, f64::max);
    a + x.iter().map(|v| (v - a).exp()).sum::<f64>().ln()
}

fn llsq_reference(x: &[f64], n: usize) -> f64 {
    let mut sum = 0.0;
    for i in 0..n {
        let t = -1.0 + i as f64 * 2.0 / (n as f64 - 1.0);
        let mut r = if t > 0.0 {
            1.0
        } else if t < 0.0 {
            -1.0
        } else {
            0.0
        };
        for (j, xj) in x.iter().enumerate() {
            r -= xj * t.powi(j as i32);
        }
        sum += r * r;
    }
    sum / 2.0
}

/// Central differences of `f` at `x`.
fn differences(f: impl Fn(&[f64]) -> f64, x: &[f64]) -> Vec<f64> {
    (0..x.len())
        .map(|i| {
            let h = 1e-6 * x[i].abs().max(1.0);
            let (mut up, mut down) = (x.to_vec(), x.to_vec());
            up[i] += h;
            down[i] -= h;
            (f(&up) - f(&down)) / (2.0 * h)
        })
        .collect()
}

fn assert_close(got: &Value, want: &[f64], rtol: f64) {
    let got: Vec<f64> = got
        .as_array()
        .unwrap()
        .iter()
        .map(|v| v.as_f64().unwrap())
        .collect();
    assert_eq!(got.len(), want.len());
    for (g, w) in got.iter().zip(want) {
        assert!(
            (g - w).abs() <= rtol * w.abs().max(1.0),
            "{got:?} vs {want:?}"
        );
    }
}

#[test]
fn lse_against_a_reference_and_differences() {
    // Large values: the maximum taken out keeps exp finite. The program
    // keeps each earlier maximum on a stack: one input raises the maximum
    // at every element (the stack as long as the input), one never after
    // the first, one ties it, and one has a single element.
    let inputs: [&[f64]; 5] = [
        &[0.5, -1.25, 3.0, 700.0, 699.5, 2.0],
        &[-3.0, -1.0, 0.25, 2.0, 40.0, 41.5],
        &[9.0, 1.0, -2.0, 8.5, 0.0],
        &[1.5, 4.0, 4.0, -1.0, 4.0],
        &[-0.75],
    ];
    for x in inputs {
        let input = json!({ "x": x, "min_runs": 1, "min_seconds": 0.0 });
        let primal = output("lse", "primal", input.clone()).as_f64().unwrap();
        let want = lse_reference(x);
        assert!(
            (primal - want).abs() <= 1e-12 * want.abs().max(1.0),
            "{x:?}: {primal} vs {want}"
        );
        assert_close(
            &output("lse", "gradient", input),
            &differences(lse_reference, x),
            1e-6,
        );
    }
}

#[test]
fn llsq_against_a_reference_and_differences() {
    let x = [0.3, -0.2, 0.15, 0.05, -0.4];
    let n = 17;
    let input = json!({ "x": x, "n": n, "min_runs": 1, "min_seconds": 0.0 });
    let primal = output("llsq", "primal", input.clone()).as_f64().unwrap();
    let want = llsq_reference(&x, n);
    assert!(
        (primal - want).abs() <= 1e-12 * want.abs(),
        "{primal} vs {want}"
    );
    assert_close(
        &output("llsq", "gradient", input),
        &differences(|x| llsq_reference(x, n), &x),
        1e-6,
    );
}

/// GradBench's `gmm` objective written out from its README (plain loops,
/// no shared code with the tool): the parameters in GradBench's nesting.
#[allow(clippy::needless_range_loop)] // indices as the formula writes them
fn gmm_reference(
    p: &GmmCase,
    alpha: &[f64],
    mu: &[Vec<f64>],
    q: &[Vec<f64>],
    l: &[Vec<f64>],
) -> f64 {
    let (d, k) = (p.d, alpha.len());
    let lse = |v: &[f64]| {
        let a = v.iter().cloned().fold(f64::NEG_INFINITY, f64::max);
        a + v.iter().map(|x| (x - a).exp()).sum::<f64>().ln()
    };
    let pi = std::f64::consts::PI;
    let mut total = -(p.x.len() as f64) * d as f64 * 0.5 * (2.0 * pi).ln();
    for x in &p.x {
        let mut terms = Vec::new();
        for kk in 0..k {
            // Q: exp(q) on the diagonal, l below it column after column.
            let xc: Vec<f64> = (0..d).map(|j| x[j] - mu[kk][j]).collect();
            let mut y: Vec<f64> = (0..d).map(|j| q[kk][j].exp() * xc[j]).collect();
            let mut at = 0;
            for c in 0..d {
                for r in c + 1..d {
                    y[r] += l[kk][at] * xc[c];
                    at += 1;
                }
            }
            let sum_q: f64 = q[kk].iter().sum();
            terms.push(alpha[kk] + sum_q - 0.5 * y.iter().map(|v| v * v).sum::<f64>());
        }
        total += lse(&terms);
    }
    total -= p.x.len() as f64 * lse(alpha);
    let nw = (d as i64 + p.m + 1) as f64;
    // ln Γ_d(nw / 2), with ln Γ from the standard library's gamma through
    // a product: nw / 2 - (j - 1) / 2 is a half-integer or an integer here.
    let ln_gamma = |z: f64| -> f64 {
        // Γ(z) for z a positive multiple of 1/2, exactly by recursion.
        let mut g = if (z - z.floor()).abs() < 1e-12 {
            1.0
        } else {
            pi.sqrt()
        };
        let mut t = if (z - z.floor()).abs() < 1e-12 {
            1.0
        } else {
            0.5
        };
        while t < z - 1e-12 {
            g *= t;
            t += 1.0;
        }
        g.ln()
    };
    let mut log_gamma_d = 0.25 * d as f64 * (d as f64 - 1.0) * pi.ln();
    for j in 1..=d {
        log_gamma_d += ln_gamma(0.5 * nw + 0.5 * (1.0 - j as f64));
    }
    let c = nw * d as f64 * (p.gamma.ln() - 0.5 * 2f64.ln()) - log_gamma_d;
    for kk in 0..k {
        let frobenius: f64 = q[kk].iter().map(|v| (2.0 * v).exp()).sum::<f64>()
            + l[kk].iter().map(|v| v * v).sum::<f64>();
        total += p.m as f64 * q[kk].iter().sum::<f64>() - 0.5 * p.gamma * p.gamma * frobenius;
        total += c;
    }
    total
}

struct GmmCase {
    d: usize,
    m: i64,
    gamma: f64,
    x: Vec<Vec<f64>>,
}

/// The GradBench input of a `gmm` case (d 3, k 4, n 5) drawn from `seed`.
fn gmm_input(seed: u64, m: i64, gamma: f64) -> Value {
    let (d, k, n) = (3usize, 4usize, 5usize);
    let mut state = seed;
    let mut next = move || {
        state = state
            .wrapping_mul(6364136223846793005)
            .wrapping_add(1442695040888963407);
        ((state >> 11) as f64 / (1u64 << 53) as f64) * 2.0 - 1.0
    };
    let mut matrix = |rows: usize, cols: usize| -> Vec<Vec<f64>> {
        (0..rows)
            .map(|_| (0..cols).map(|_| next()).collect())
            .collect()
    };
    let (mu, q, l, x) = (matrix(k, d), matrix(k, d), matrix(k, 3), matrix(n, d));
    let alpha: Vec<f64> = matrix(1, k).remove(0);
    json!({
        "d": d, "k": k, "n": n, "alpha": alpha, "mu": mu, "q": q, "l": l, "x": x,
        "m": m, "gamma": gamma, "min_runs": 1, "min_seconds": 0.0,
    })
}

#[test]
fn gmm_against_a_reference_and_differences() {
    gmm_check(&|function, input| output("gmm", function, input));
}

/// From an eval prepared for another `gmm` input (other values, `m` and
/// `gamma`, so another Wishart constant), the same answers.
#[test]
fn gmm_replaced_after_prepare_against_the_reference() {
    let first = gmm_input(11, 0, 0.5);
    gmm_check(&|function, input| replaced("gmm", function, &first, &input));
}

/// Checks the `gmm` answers `get` gives against the reference.
fn gmm_check(get: &dyn Fn(&str, Value) -> Value) {
    let input = gmm_input(7, 2, 1.5);
    let (d, k) = (3usize, 4usize);
    let l_sz = d * (d - 1) / 2;
    let field = |name: &str| input[name].clone();
    let matrix = |name: &str| -> Vec<Vec<f64>> { serde_json::from_value(field(name)).unwrap() };
    let (mu, q, l, x) = (matrix("mu"), matrix("q"), matrix("l"), matrix("x"));
    let alpha: Vec<f64> = serde_json::from_value(field("alpha")).unwrap();
    let case = GmmCase {
        d,
        m: 2,
        gamma: 1.5,
        x,
    };
    let objective = get("objective", input.clone()).as_f64().unwrap();
    let want = gmm_reference(&case, &alpha, &mu, &q, &l);
    assert!(
        (objective - want).abs() <= 1e-10 * want.abs(),
        "{objective} vs {want}"
    );

    // The jacobian, flattened in GradBench's order, against differences of
    // the reference in the same order.
    let jacobian = get("jacobian", input);
    fn flat(v: &Value) -> Vec<f64> {
        match v {
            Value::Array(items) => items.iter().flat_map(flat).collect(),
            _ => vec![v.as_f64().unwrap()],
        }
    }
    let got: Vec<f64> = ["alpha", "mu", "q", "l"]
        .iter()
        .flat_map(|f| flat(&jacobian[f]))
        .collect();
    let point: Vec<f64> = alpha
        .iter()
        .chain(mu.iter().flatten())
        .chain(q.iter().flatten())
        .chain(l.iter().flatten())
        .copied()
        .collect();
    let unflatten = |p: &[f64]| {
        let rows = |at: usize, r: usize, c: usize| -> Vec<Vec<f64>> {
            (0..r)
                .map(|i| p[at + i * c..at + (i + 1) * c].to_vec())
                .collect()
        };
        let a = p[..k].to_vec();
        let m = rows(k, k, d);
        let qq = rows(k + k * d, k, d);
        let ll = rows(k + 2 * k * d, k, l_sz);
        gmm_reference(&case, &a, &m, &qq, &ll)
    };
    let want = differences(unflatten, &point);
    assert_eq!(got.len(), want.len());
    for (g, w) in got.iter().zip(&want) {
        assert!(
            (g - w).abs() <= 1e-6 * w.abs().max(1.0),
            "{got:?}\nvs\n{want:?}"
        );
    }
}

/// ba1's camera, point, weight and feature (ADBench's first instance), as
/// GradBench sends them.
fn ba_input(n: usize, m: usize, p: usize) -> Value {
    json!({
        "n": n, "m": m, "p": p,
        "cam": [-0.758453, -1.109613, -0.845551, 34.556073, 39.676747, 53.881673,
                419.194514, 5.864426, -8.51887, 0.087812, 0.002739],
        "x": [7.203245, 0.001144, 3.023326],
        "w": 0.417022,
        "feat": [271.760969, 834.209256],
        "min_runs": 1, "min_seconds": 0.0,
    })
}

#[test]
fn ba_against_the_plain_residuals_and_the_hand_written_jacobian() {
    ba_check(3, 5, 12, &|function, input| output("ba", function, input));
}

/// From an eval prepared for other cameras and points (n 2, m 7: other
/// columns for every observation's entries, so another sparse structure)
/// and another weight, the same answers.
#[test]
fn ba_replaced_after_prepare_against_the_plain_residuals_and_the_hand_written_jacobian() {
    let mut first = ba_input(2, 7, 12);
    first["w"] = json!(0.9);
    ba_check(3, 5, 12, &|function, input| {
        replaced("ba", function, &first, &input)
    });
}

/// Checks the `ba` answers `get` gives for n cameras, m points and p
/// observations against the plain residuals and hand-written Jacobian.
fn ba_check(n: usize, m: usize, p: usize, get: &dyn Fn(&str, Value) -> Value) {
    use nilang_adbench::ba::{BaInput, BaJacobian, manual_jacobian, residuals};
    let g = ba_input(n, m, p);
    let reference = BaInput {
        n,
        m,
        p,
        cams: serde_json::from_value::<Vec<f64>>(g["cam"].clone())
            .unwrap()
            .repeat(n),
        points: serde_json::from_value::<Vec<f64>>(g["x"].clone())
            .unwrap()
            .repeat(m),
        weights: vec![0.417022; p],
        feats: serde_json::from_value::<Vec<f64>>(g["feat"].clone())
            .unwrap()
            .repeat(p),
        obs: (0..p).map(|i| (i % n, i % m)).collect(),
    };
    let (mut reproj, mut w_err) = (vec![0.0; 2 * p], vec![0.0; p]);
    residuals(&reference, &mut reproj, &mut w_err);
    let objective = get("objective", g.clone());
    assert_eq!(objective["reproj_error"]["repeated"], p);
    assert_eq!(objective["w_err"]["repeated"], p);
    assert_close(&objective["reproj_error"]["elements"], &reproj[..2], 1e-12);
    assert!((objective["w_err"]["element"].as_f64().unwrap() - w_err[0]).abs() < 1e-15);

    let mut jac = BaJacobian::new(&reference);
    manual_jacobian(&reference, &mut jac);
    let jacobian = get("jacobian", g);
    let want_vals: Vec<f64> = jac.vals[..30]
        .iter()
        .chain(jac.vals.last())
        .copied()
        .collect();
    assert_close(&jacobian["vals"], &want_vals, 1e-9);
    let ints = |v: &Value| -> Vec<u64> {
        v.as_array()
            .unwrap()
            .iter()
            .map(|x| x.as_u64().unwrap())
            .collect()
    };
    let want_rows: Vec<u64> = jac.rows[..30]
        .iter()
        .chain(jac.rows.last())
        .map(|&r| r as u64)
        .collect();
    let want_cols: Vec<u64> = jac.cols[..30]
        .iter()
        .chain(jac.cols.last())
        .map(|&c| c as u64)
        .collect();
    assert_eq!(ints(&jacobian["rows"]), want_rows);
    assert_eq!(ints(&jacobian["cols"]), want_cols);
    // Row 0 starts at 0, each reprojection row holds 15 entries, and the
    // last entry is the last weight's column.
    assert_eq!(&want_rows[..3], &[0, 15, 30]);
    assert_eq!(*want_cols.last().unwrap() as usize, 11 * n + 3 * m + p - 1);
}

#[test]
fn ba_returns_every_row_pointer_of_a_small_jacobian() {
    // Fewer than ten observations: every row pointer comes back.
    let small = output("ba", "jacobian", ba_input(1, 1, 2));
    let rows: Vec<u64> = small["rows"]
        .as_array()
        .unwrap()
        .iter()
        .map(|x| x.as_u64().unwrap())
        .collect();
    assert_eq!(rows, [0, 15, 30, 45, 60, 61, 62]);
}

/// The determinant by Gaussian elimination with partial pivoting: another
/// algorithm than the tool's expansion by minors.
fn det_reference(a: &[f64], ell: usize) -> f64 {
    let mut m = a.to_vec();
    let mut det = 1.0;
    for col in 0..ell {
        let pivot = (col..ell)
            .max_by(|&i, &j| m[i * ell + col].abs().total_cmp(&m[j * ell + col].abs()))
            .unwrap();
        if pivot != col {
            for k in 0..ell {
                m.swap(col * ell + k, pivot * ell + k);
            }
            det = -det;
        }
        let p = m[col * ell + col];
        det *= p;
        for row in col + 1..ell {
            let f = m[row * ell + col] / p;
            for k in col..ell {
                m[row * ell + k] -= f * m[col * ell + k];
            }
        }
    }
    det
}

#[test]
fn det_against_elimination_and_differences() {
    for ell in [1usize, 2, 3, 4, 5] {
        let a: Vec<f64> = (0..ell * ell)
            .map(|i| ((i * 7919 % 97) as f64) / 97.0 - 0.4)
            .collect();
        let input = json!({ "A": a, "ell": ell, "min_runs": 1, "min_seconds": 0.0 });
        let primal = output("det", "primal", input.clone()).as_f64().unwrap();
        let want = det_reference(&a, ell);
        assert!(
            (primal - want).abs() <= 1e-12 * want.abs().max(1.0),
            "{ell}: {primal} vs {want}"
        );
        assert_close(
            &output("det", "gradient", input),
            &differences(|a| det_reference(a, ell), &a),
            1e-6,
        );
    }
}

#[test]
fn kmeans_cost_and_newton_direction_against_a_reference() {
    kmeans_check(0, &|function, input| output("kmeans", function, input));
}

/// From an eval prepared for other points and centroids (so other dual
/// numbers), the same answers.
#[test]
fn kmeans_replaced_after_prepare_against_a_reference() {
    let (first, ..) = kmeans_input(5);
    kmeans_check(0, &|function, input| {
        replaced("kmeans", function, &first, &input)
    });
}

/// 40 points of dimension 3 drawn from `seed`, the last 4 the centroids:
/// the input, the points and the centroids.
fn kmeans_input(seed: usize) -> (Value, Vec<Vec<f64>>, Vec<Vec<f64>>) {
    let (n, k, d) = (40usize, 4usize, 3usize);
    let points: Vec<Vec<f64>> = (0..n)
        .map(|i| {
            (0..d)
                .map(|c| ((i * 31 + c * 17 + seed * 7) % 53) as f64 / 53.0)
                .collect()
        })
        .collect();
    // As GradBench does: the centroids are the last k points, so each has
    // at least one point (itself).
    let centroids: Vec<Vec<f64>> = points[n - k..].to_vec();
    let input =
        json!({ "points": points, "centroids": centroids, "min_runs": 1, "min_seconds": 0.0 });
    (input, points, centroids)
}

/// Checks the `kmeans` answers `get` gives for the input of `seed`.
fn kmeans_check(seed: usize, get: &dyn Fn(&str, Value) -> Value) {
    let (input, points, centroids) = kmeans_input(seed);
    let k = centroids.len();
    let sq = |a: &[f64], b: &[f64]| a.iter().zip(b).map(|(x, y)| (x - y) * (x - y)).sum::<f64>();
    let nearest = |p: &[f64]| {
        (0..k)
            .min_by(|&a, &b| sq(&centroids[a], p).total_cmp(&sq(&centroids[b], p)))
            .unwrap()
    };
    let cost: f64 = points.iter().map(|p| sq(&centroids[nearest(p)], p)).sum();
    let got = get("cost", input.clone()).as_f64().unwrap();
    assert!((got - cost).abs() <= 1e-12 * cost, "{got} vs {cost}");
    // J / H: J_j = Σ 2 (C_j - P_i) over the points nearest to C_j, H_j = 2
    // times their count, so J / H is C_j minus the mean of its points.
    let mut want = Vec::new();
    for (j, centroid) in centroids.iter().enumerate() {
        let mine: Vec<&Vec<f64>> = points.iter().filter(|p| nearest(p) == j).collect();
        for (c, value) in centroid.iter().enumerate() {
            let mean = mine.iter().map(|p| p[c]).sum::<f64>() / mine.len() as f64;
            want.push(value - mean);
        }
    }
    let dir = get("dir", input);
    let got: Vec<f64> = dir
        .as_array()
        .unwrap()
        .iter()
        .flat_map(|row| row.as_array().unwrap().iter().map(|v| v.as_f64().unwrap()))
        .collect();
    assert_eq!(got.len(), want.len());
    for (g, w) in got.iter().zip(&want) {
        assert!((g - w).abs() <= 1e-12, "{got:?}\nvs\n{want:?}");
    }
}

/// cmpad's Runge-Kutta solution, as GradBench's C++ reference writes it.
fn ode_reference(x: &[f64], s: usize) -> Vec<f64> {
    let n = x.len();
    let f = |y: &[f64]| -> Vec<f64> {
        (0..n)
            .map(|i| if i == 0 { x[0] } else { x[i] * y[i - 1] })
            .collect()
    };
    let h = 2.0 / s as f64;
    let mut y = vec![0.0; n];
    for _ in 0..s {
        let k1 = f(&y);
        let k2 = f(&(0..n).map(|i| y[i] + h * k1[i] / 2.0).collect::<Vec<_>>());
        let k3 = f(&(0..n).map(|i| y[i] + h * k2[i] / 2.0).collect::<Vec<_>>());
        let k4 = f(&(0..n).map(|i| y[i] + h * k3[i]).collect::<Vec<_>>());
        for i in 0..n {
            y[i] += h * (k1[i] + 2.0 * k2[i] + 2.0 * k3[i] + k4[i]) / 6.0;
        }
    }
    y
}

#[test]
fn ode_against_a_reference_and_differences() {
    let x: Vec<f64> = (0..6).map(|i| 0.3 + 0.1 * i as f64).collect();
    for s in [1usize, 10] {
        let input = json!({ "x": x, "s": s, "min_runs": 1, "min_seconds": 0.0 });
        let want = ode_reference(&x, s);
        assert_close(&output("ode", "primal", input.clone()), &want, 1e-12);
        let last = |x: &[f64]| *ode_reference(x, s).last().unwrap();
        assert_close(
            &output("ode", "gradient", input),
            &differences(last, &x),
            1e-6,
        );
    }
}

/// ADBench's LSTM loss as GradBench's C++ reference computes it (state
/// overwritten in place), on flat row-major parameters.
fn lstm_reference(
    main: &[f64],
    extra: &[f64],
    state: &[f64],
    seq: &[f64],
    l: usize,
    c: usize,
    b: usize,
) -> f64 {
    let sigmoid = |x: f64| 1.0 / (1.0 + (-x).exp());
    let mut state = state.to_vec();
    let mut total = 0.0;
    for t in 0..c - 1 {
        let mut input: Vec<f64> = (0..b).map(|i| seq[t * b + i] * extra[i]).collect();
        for li in 0..l {
            let w = &main[8 * b * li..8 * b * (li + 1)];
            for i in 0..b {
                let hidden = state[2 * b * li + i];
                let forget = sigmoid(input[i] * w[i] + w[4 * b + i]);
                let ingate = sigmoid(hidden * w[b + i] + w[5 * b + i]);
                let outgate = sigmoid(input[i] * w[2 * b + i] + w[6 * b + i]);
                let change = (hidden * w[3 * b + i] + w[7 * b + i]).tanh();
                let cell = &mut state[2 * b * li + b + i];
                *cell = *cell * forget + ingate * change;
                let cell = *cell;
                state[2 * b * li + i] = outgate * cell.tanh();
            }
            input = state[2 * b * li..2 * b * li + b].to_vec();
        }
        let pred: Vec<f64> = (0..b)
            .map(|i| input[i] * extra[b + i] + extra[2 * b + i])
            .collect();
        let lse = (pred.iter().map(|p| p.exp()).sum::<f64>() + 2.0).ln();
        for i in 0..b {
            total += seq[(t + 1) * b + i] * (pred[i] - lse);
        }
    }
    -total / ((c - 1) * b) as f64
}

#[test]
fn lstm_against_a_reference_and_differences() {
    let (l, c, b) = (2usize, 5usize, 3usize);
    let value = |i: usize| ((i * 7919 % 101) as f64) / 101.0 - 0.45;
    let rows = |count: usize, width: usize, from: usize| -> Vec<Vec<f64>> {
        (0..count)
            .map(|r| (0..width).map(|i| value(from + r * width + i)).collect())
            .collect()
    };
    let (main, extra, state, seq) = (
        rows(2 * l, 4 * b, 0),
        rows(3, b, 500),
        rows(2 * l, b, 700),
        rows(c, b, 900),
    );
    let input = json!({
        "main_params": main, "extra_params": extra, "state": state, "sequence": seq,
        "min_runs": 1, "min_seconds": 0.0,
    });
    let flat = |v: &[Vec<f64>]| v.concat();
    let (m, e, s0, q) = (flat(&main), flat(&extra), flat(&state), flat(&seq));
    let loss = output("lstm", "objective", input.clone()).as_f64().unwrap();
    let want = lstm_reference(&m, &e, &s0, &q, l, c, b);
    assert!(
        (loss - want).abs() <= 1e-12 * want.abs(),
        "{loss} vs {want}"
    );
    let point: Vec<f64> = m.iter().chain(&e).copied().collect();
    let f = |p: &[f64]| lstm_reference(&p[..m.len()], &p[m.len()..], &s0, &q, l, c, b);
    assert_close(
        &output("lstm", "jacobian", input),
        &differences(f, &point),
        1e-6,
    );
}

/// `particle` and `saddle`: every nesting of the two derivatives gives the
/// eval's known answer (GradBench's `expect`: w = 0.2071918746486116 from
/// w0 = 0; each coordinate 8.246324826140356e-6 from (1, 1)).
#[test]
fn particle_and_saddle_reach_the_known_answers_in_every_nesting() {
    for function in ["ff", "fr", "rf", "rr"] {
        let w = output("particle", function, json!({ "w": 0.0 }));
        let w = w.as_f64().expect("a number");
        assert!((w - 0.2071918746486116).abs() <= 1e-12, "{function}: {w}");
        let r = output("saddle", function, json!({ "start": [1.0, 1.0] }));
        for x in r.as_array().expect("four numbers") {
            let x = x.as_f64().expect("a number");
            assert!(
                (x / 8.246324826140356e-6 - 1.0).abs() <= 1e-9,
                "{function}: {r}"
            );
        }
    }
}

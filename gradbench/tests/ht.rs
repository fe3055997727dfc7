//! The `ht` eval driven over pipes as GradBench's intermediary drives it,
//! on small generated hand models: the objective against a plain-Rust
//! transcription of ADBench's formulas (full 4x4 matrices, pose parameters
//! as a 3 x (bones + 3) matrix, every vertex skinned), the Jacobian against
//! central differences of that reference and against what is exact (the
//! translation columns are -I), for both variants, mirrored or not, and
//! both ways the tool makes it: reverse sweeps (few points) and forward
//! mode on dual numbers (from 13 points simple, 21 complicated); in both
//! builds, and again from an eval prepared for another model and other
//! points (the vertices skinned are chosen by each run, not by `prepare`).

// The reference indexes matrices as the formulas do.
#![allow(clippy::needless_range_loop)]

mod support;

use serde_json::{Value, json};

/// Sends `messages` (one a line) to the tool run with `args` and returns
/// the responses; the tool must end with success.
fn session(args: &[&str], messages: &[String]) -> Vec<Value> {
    let (responses, ok, stderr) = support::session_with(args, &[], messages);
    assert!(ok, "{stderr}");
    responses
}

/// `ht`'s `function` at `input`, in a fresh session of the tool run with
/// `args`: the response.
fn evaluate_with(args: &[&str], function: &str, input: &Value) -> Value {
    let responses = session(
        args,
        &[
            json!({ "id": 0, "kind": "define", "module": "ht" }).to_string(),
            json!({ "id": 1, "kind": "evaluate", "module": "ht", "function": function, "input": input })
                .to_string(),
        ],
    );
    assert_eq!(responses[0]["success"], true, "{}", responses[0]);
    responses[1].clone()
}

fn evaluate(function: &str, input: &Value) -> Value {
    evaluate_with(&[], function, input)
}

/// The output, of the checked build, which the unchecked one must give too.
fn output(function: &str, input: &Value) -> Value {
    let outputs: Vec<Value> = [[].as_slice(), &["--unchecked"]]
        .iter()
        .map(|args| {
            let response = evaluate_with(args, function, input);
            assert_eq!(response["success"], true, "{response}");
            response["output"].clone()
        })
        .collect();
    assert_eq!(outputs[0], outputs[1], "checked and unchecked differ");
    outputs[0].clone()
}

/// A splitmix generator: numbers in [0, 1).
struct Rng(u64);

impl Rng {
    fn next(&mut self) -> f64 {
        self.0 = self.0.wrapping_add(0x9e37_79b9_7f4a_7c15);
        let mut z = self.0;
        z = (z ^ (z >> 30)).wrapping_mul(0xbf58_476d_1ce4_e5b9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94d0_49bb_1331_11eb);
        ((z ^ (z >> 31)) >> 11) as f64 / (1u64 << 53) as f64
    }
    fn signed(&mut self) -> f64 {
        2.0 * self.next() - 1.0
    }
    fn below(&mut self, n: usize) -> usize {
        ((self.next() * n as f64) as usize).min(n - 1)
    }
}

/// The model's numbers as the reference reads them.
struct Model {
    parents: Vec<i64>,
    /// Row-major 4x4 each.
    base_rel: Vec<[[f64; 4]; 4]>,
    inv_base_abs: Vec<[[f64; 4]; 4]>,
    /// 4 homogeneous coordinates a vertex.
    base_pos: Vec<[f64; 4]>,
    /// nb a vertex.
    weights: Vec<Vec<f64>>,
    triangles: Vec<[usize; 3]>,
    mirrored: bool,
    corr: Vec<usize>,
    points: Vec<[f64; 3]>,
}

/// A model of `nb` bones and `nv` vertices with `ntri` triangles and `n`
/// points (on vertices, or on triangles when `complicated`), its theta and
/// us, as GradBench's JSON input and as the reference reads it.
fn generate(
    nb: usize,
    nv: usize,
    ntri: usize,
    n: usize,
    complicated: bool,
    mirrored: bool,
    seed: u64,
) -> (Value, Model, Vec<f64>, Vec<f64>) {
    let mut rng = Rng(seed);
    // Bone 0 and, when there are enough, bone 3 are roots; the others hang
    // from an earlier bone.
    let parents: Vec<i64> = (0..nb)
        .map(|b| {
            if b == 0 || b == 3 {
                -1
            } else {
                rng.below(b) as i64
            }
        })
        .collect();
    let matrix = |rng: &mut Rng| {
        let mut m = [[0.0; 4]; 4];
        for row in m.iter_mut().take(3) {
            for x in row.iter_mut() {
                *x = rng.signed();
            }
        }
        m[3] = [0.0, 0.0, 0.0, 1.0];
        m
    };
    let base_rel: Vec<_> = (0..nb).map(|_| matrix(&mut rng)).collect();
    let inv_base_abs: Vec<_> = (0..nb).map(|_| matrix(&mut rng)).collect();
    let base_pos: Vec<[f64; 4]> = (0..nv)
        .map(|_| [rng.signed(), rng.signed(), rng.signed(), 1.0])
        .collect();
    // About a third of the weights zero (the program skips those bones).
    let weights: Vec<Vec<f64>> = (0..nv)
        .map(|_| {
            (0..nb)
                .map(|_| {
                    let w = rng.next();
                    if w < 0.33 { 0.0 } else { w }
                })
                .collect()
        })
        .collect();
    let triangles: Vec<[usize; 3]> = (0..ntri)
        .map(|t| {
            let a = t % nv;
            let b = (a + 1 + rng.below(nv - 2)) % nv;
            // A third vertex other than a and b.
            let mut c = rng.below(nv);
            while c == a || c == b {
                c = (c + 1) % nv;
            }
            [a, b, c]
        })
        .collect();
    let corr: Vec<usize> = (0..n)
        .map(|_| rng.below(if complicated { ntri } else { nv }))
        .collect();
    let points: Vec<[f64; 3]> = (0..n)
        .map(|_| [rng.signed(), rng.signed(), rng.signed()])
        .collect();
    let us: Vec<f64> = if complicated {
        (0..2 * n).map(|_| 0.5 * rng.next()).collect()
    } else {
        vec![]
    };
    let theta: Vec<f64> = (0..26).map(|_| 0.7 * rng.signed()).collect();
    let mat_json = |m: &[[f64; 4]; 4]| m.iter().map(|r| r.to_vec()).collect::<Vec<_>>();
    let input = json!({
        "theta": theta,
        "us": us.chunks(2).map(<[f64]>::to_vec).collect::<Vec<_>>(),
        "data": {
            "model": {
                "bone_count": nb,
                "bone_names": (0..nb).map(|b| format!("bone{b}")).collect::<Vec<_>>(),
                "parents": parents,
                "base_relatives": base_rel.iter().map(mat_json).collect::<Vec<_>>(),
                "inverse_base_absolutes": inv_base_abs.iter().map(mat_json).collect::<Vec<_>>(),
                "base_positions": base_pos.iter().map(|p| p.to_vec()).collect::<Vec<_>>(),
                "weights": weights,
                "triangles": triangles.iter().map(|t| t.to_vec()).collect::<Vec<_>>(),
                "is_mirrored": mirrored,
            },
            "correspondences": corr,
            "points": points.iter().map(|p| p.to_vec()).collect::<Vec<_>>(),
        },
        "min_runs": 1,
        "min_seconds": 0.0,
    });
    let model = Model {
        parents,
        base_rel,
        inv_base_abs,
        base_pos,
        weights,
        triangles,
        mirrored,
        corr,
        points,
    };
    (input, model, theta, us)
}

type M4 = [[f64; 4]; 4];

fn mat_mult(a: &M4, b: &M4) -> M4 {
    let mut c = [[0.0; 4]; 4];
    for i in 0..4 {
        for j in 0..4 {
            c[i][j] = (0..4).map(|k| a[i][k] * b[k][j]).sum();
        }
    }
    c
}

/// ADBench's hand objective, transcribed from its formulas.
fn reference(model: &Model, theta: &[f64], us: &[f64]) -> Vec<f64> {
    let nb = model.parents.len();
    // Pose parameters: 3 x (nb + 3) columns (at least 25, as the finger
    // loop writes up to column 23), column 1 the scale of ones.
    let cols = (nb + 3).max(25);
    let mut pose = vec![[0.0; 3]; cols];
    pose[0] = [theta[0], theta[1], theta[2]];
    pose[1] = [1.0; 3];
    pose[2] = [theta[3], theta[4], theta[5]];
    let (mut i_theta, mut col) = (6, 5);
    for _finger in 0..5 {
        for i in 2..=4 {
            pose[col][0] = theta[i_theta];
            i_theta += 1;
            if i == 2 {
                pose[col][1] = theta[i_theta];
                i_theta += 1;
            }
            col += 1;
        }
        col += 1;
    }
    // Posed relatives: base relative times the Euler rotation.
    let mut absolutes: Vec<M4> = Vec::with_capacity(nb);
    for b in 0..nb {
        let xzy = pose[b + 3];
        let (tx, ty, tz) = (xzy[0], xzy[2], xzy[1]);
        let rx = [
            [1.0, 0.0, 0.0],
            [0.0, tx.cos(), -tx.sin()],
            [0.0, tx.sin(), tx.cos()],
        ];
        let ry = [
            [ty.cos(), 0.0, ty.sin()],
            [0.0, 1.0, 0.0],
            [-ty.sin(), 0.0, ty.cos()],
        ];
        let rz = [
            [tz.cos(), -tz.sin(), 0.0],
            [tz.sin(), tz.cos(), 0.0],
            [0.0, 0.0, 1.0],
        ];
        let mul3 = |a: [[f64; 3]; 3], b: [[f64; 3]; 3]| {
            let mut c = [[0.0; 3]; 3];
            for i in 0..3 {
                for j in 0..3 {
                    c[i][j] = (0..3).map(|k| a[i][k] * b[k][j]).sum();
                }
            }
            c
        };
        let r = mul3(mul3(rz, ry), rx);
        let mut tr = [[0.0; 4]; 4];
        for i in 0..3 {
            tr[i][..3].copy_from_slice(&r[i]);
        }
        tr[3][3] = 1.0;
        let relative = mat_mult(&model.base_rel[b], &tr);
        let absolute = match model.parents[b] {
            -1 => relative,
            p => mat_mult(&absolutes[p as usize], &relative),
        };
        absolutes.push(absolute);
    }
    let transforms: Vec<M4> = (0..nb)
        .map(|b| mat_mult(&absolutes[b], &model.inv_base_abs[b]))
        .collect();
    // Skinning, every vertex.
    let mut positions: Vec<[f64; 3]> = model
        .base_pos
        .iter()
        .zip(&model.weights)
        .map(|(p, w)| {
            let mut out = [0.0; 3];
            for b in 0..nb {
                for (i, o) in out.iter_mut().enumerate() {
                    *o += w[b] * (0..4).map(|k| transforms[b][i][k] * p[k]).sum::<f64>();
                }
            }
            out
        })
        .collect();
    if model.mirrored {
        positions.iter_mut().for_each(|p| p[0] = -p[0]);
    }
    // The global transform: the angle-axis rotation, its columns scaled by
    // the ones of column 1, then the translation.
    let aa = [theta[0], theta[1], theta[2]];
    let norm = aa.iter().map(|x| x * x).sum::<f64>().sqrt();
    let mut rg = [[1.0, 0.0, 0.0], [0.0, 1.0, 0.0], [0.0, 0.0, 1.0]];
    if norm >= 1e-4 {
        let (x, y, z) = (aa[0] / norm, aa[1] / norm, aa[2] / norm);
        let (s, c) = (norm.sin(), norm.cos());
        rg = [
            [
                x * x + (1.0 - x * x) * c,
                x * y * (1.0 - c) - z * s,
                x * z * (1.0 - c) + y * s,
            ],
            [
                x * y * (1.0 - c) + z * s,
                y * y + (1.0 - y * y) * c,
                y * z * (1.0 - c) - x * s,
            ],
            [
                x * z * (1.0 - c) - y * s,
                z * y * (1.0 - c) + x * s,
                z * z + (1.0 - z * z) * c,
            ],
        ];
    }
    for p in positions.iter_mut() {
        let q = *p;
        for i in 0..3 {
            p[i] = (0..3).map(|k| rg[i][k] * pose[1][k] * q[k]).sum::<f64>() + pose[2][i];
        }
    }
    let mut err = Vec::with_capacity(3 * model.corr.len());
    for (i, &c) in model.corr.iter().enumerate() {
        for j in 0..3 {
            let hand = if us.is_empty() {
                positions[c][j]
            } else {
                let [a, b, d] = model.triangles[c];
                let (u0, u1) = (us[2 * i], us[2 * i + 1]);
                u0 * positions[a][j] + u1 * positions[b][j] + (1.0 - u0 - u1) * positions[d][j]
            };
            err.push(model.points[i][j] - hand);
        }
    }
    err
}

/// The Jacobian by central differences of the reference, rows of the
/// residuals, columns as GradBench's: (du0, du1 of the row's own point, when
/// complicated) then theta.
fn differences(model: &Model, theta: &[f64], us: &[f64]) -> Vec<Vec<f64>> {
    let h = 1e-6;
    let n = model.corr.len();
    let extra = if us.is_empty() { 0 } else { 2 };
    let mut jac = vec![vec![0.0; extra + theta.len()]; 3 * n];
    for k in 0..theta.len() {
        let (mut up, mut down) = (theta.to_vec(), theta.to_vec());
        up[k] += h;
        down[k] -= h;
        let (a, b) = (reference(model, &up, us), reference(model, &down, us));
        for r in 0..3 * n {
            jac[r][extra + k] = (a[r] - b[r]) / (2.0 * h);
        }
    }
    for i in 0..n {
        for c in 0..extra {
            let (mut up, mut down) = (us.to_vec(), us.to_vec());
            up[2 * i + c] += h;
            down[2 * i + c] -= h;
            let (a, b) = (reference(model, theta, &up), reference(model, theta, &down));
            for r in 3 * i..3 * i + 3 {
                jac[r][c] = (a[r] - b[r]) / (2.0 * h);
            }
        }
    }
    jac
}

fn numbers(v: &Value) -> Vec<f64> {
    v.as_array()
        .expect("an array")
        .iter()
        .map(|x| x.as_f64().expect("a number"))
        .collect()
}

/// Objective and Jacobian of one generated case against the reference.
fn check(nb: usize, n: usize, complicated: bool, mirrored: bool, seed: u64) {
    check_with(nb, n, complicated, mirrored, seed, &output);
}

/// Objective and Jacobian of one generated case against the reference,
/// again from an eval prepared for another case of as many bones,
/// vertices and points (another model, mirrored the other way, other
/// correspondences, points, theta and us).
fn check_replaced(nb: usize, n: usize, complicated: bool, mirrored: bool, seed: u64) {
    let (first, ..) = generate(nb, 12, 7, n, complicated, !mirrored, seed + 1000);
    check_with(nb, n, complicated, mirrored, seed, &|function, input| {
        support::replaced("ht", function, &first, input)
    });
}

/// Objective and Jacobian that `get` gives for one generated case against
/// the reference.
fn check_with(
    nb: usize,
    n: usize,
    complicated: bool,
    mirrored: bool,
    seed: u64,
    get: &dyn Fn(&str, &Value) -> Value,
) {
    let (nv, ntri) = (12, 9);
    let (input, model, theta, us) = generate(nb, nv, ntri, n, complicated, mirrored, seed);
    let want = reference(&model, &theta, &us);
    let got = numbers(&get("objective", &input));
    assert_eq!(got.len(), 3 * n);
    for (r, (g, w)) in got.iter().zip(&want).enumerate() {
        assert!(
            (g - w).abs() <= 1e-12 * (1.0 + w.abs()),
            "residual {r}: {g} against {w}"
        );
    }
    // The residuals are not trivially small: a wrong pose would show.
    assert!(want.iter().map(|x| x.abs()).sum::<f64>() > 0.1 * n as f64);

    let jac = get("jacobian", &input);
    let rows = jac.as_array().expect("rows");
    let extra = if complicated { 2 } else { 0 };
    assert_eq!(rows.len(), 3 * n);
    let want = differences(&model, &theta, &us);
    let mut largest = 0.0f64;
    for (r, row) in rows.iter().enumerate() {
        let row = numbers(row);
        assert_eq!(row.len(), extra + 26, "row {r}");
        for (c, (g, w)) in row.iter().zip(&want[r]).enumerate() {
            assert!(
                (g - w).abs() <= 1e-6 * (1.0 + w.abs()),
                "row {r} column {c}: {g} against {w} by differences"
            );
            largest = largest.max(w.abs());
        }
        // d(point - hand)/d translation = -I (to rounding: in forward mode
        // the translation's tangent goes through the global transform).
        for k in 0..3 {
            let want = if k == r % 3 { -1.0 } else { 0.0 };
            let got = row[extra + 3 + k];
            assert!(
                (got - want).abs() <= 1e-12,
                "row {r}, translation {k}: {got}"
            );
        }
    }
    assert!(largest > 0.1, "a Jacobian of zeros would pass otherwise");
    // Every finger angle whose bone exists moves some residual.
    for (k, col) in (6..26).map(|k| (k, extra + k)) {
        let bone = 3 + 4 * ((k - 6) / 4) + ((k - 6) % 4).saturating_sub(1);
        if bone <= nb {
            assert!(
                want.iter().any(|row| row[col] != 0.0),
                "theta {k} (bone {bone}) moves nothing"
            );
        }
    }
}

#[test]
fn simple_against_the_reference_and_differences() {
    check(22, 7, false, false, 1);
}

#[test]
fn complicated_against_the_reference_and_differences() {
    check(22, 7, true, false, 2);
}

#[test]
fn mirrored_both_variants() {
    check(22, 5, false, true, 3);
    check(22, 5, true, true, 4);
}

#[test]
fn a_few_bones() {
    // 5 bones: the first finger's joints exist, the rest of theta moves
    // nothing (zero columns, on both sides).
    check(5, 6, true, false, 5);
    check(5, 6, false, false, 6);
}

#[test]
fn reverse_sweeps_cross_batches() {
    // Fewer points than forward mode takes (13 simple, 21 complicated), so
    // reverse sweeps, of 4 points: more than one, and a last partial one.
    // (The cases above, of 5 to 7 points, are reverse mode's too.)
    check(22, 11, true, false, 7);
    check(22, 11, false, false, 8);
}

#[test]
fn forward_mode_both_variants() {
    // Enough points for forward mode (dual numbers, a column a run).
    check(22, 23, true, false, 10);
    check(22, 23, false, false, 11);
    check(22, 30, true, true, 12);
    check(22, 30, false, true, 13);
    check(5, 40, true, false, 14);
    check(5, 40, false, false, 15);
}

#[test]
fn forward_mode_crosses_chunks() {
    // More points than forward mode's residuals take a call (256), and a
    // last partial chunk.
    check(22, 300, true, false, 16);
    check(22, 300, false, true, 17);
}

#[test]
fn replaced_after_prepare_reverse_sweeps() {
    check_replaced(22, 11, true, false, 21);
    check_replaced(22, 11, false, false, 22);
}

#[test]
fn replaced_after_prepare_forward_mode() {
    check_replaced(22, 23, true, false, 23);
    check_replaced(22, 30, false, true, 24);
}

#[test]
fn malformed_inputs_are_refused() {
    let (input, ..) = generate(6, 12, 9, 4, true, false, 9);
    let mut short = input.clone();
    short["theta"] = json!(vec![0.0; 25]);
    let mut bad_parent = input.clone();
    bad_parent["data"]["model"]["parents"][2] = json!(4);
    let mut bad_vertex = input.clone();
    bad_vertex["data"]["model"]["triangles"][0][1] = json!(12);
    let mut bad_us = input;
    bad_us["us"] = json!([[0.1, 0.2]]);
    for (case, says) in [
        (short, "theta"),
        (bad_parent, "parent"),
        (bad_vertex, "vertex"),
        (bad_us, "us"),
    ] {
        let response = evaluate("objective", &case);
        assert_eq!(response["success"], false, "{response}");
        let error = response["error"].as_str().unwrap();
        assert!(error.contains(says), "{error} should mention {says}");
    }
}

//! `ba`: bundle adjustment's residuals and sparse Jacobian, through ADBench's
//! `ba.nil` (the adbench crate's drivers: one reverse sweep with a
//! two-vector adjoint per observation fills its two Jacobian rows). Every
//! run builds the Jacobian's sparse structure anew from the observations,
//! as GradBench's `manual` does (the eval counts that encoding as part of
//! the task), in buffers kept from run to run.

use nilang_adbench::ba::{
    BLOCK, BaInput, BaJacobian, CAM, nil_jacobian, nil_residuals, nil_unchecked_jacobian,
    nil_unchecked_residuals,
};
use serde_json::{Value, json};

use super::{Build, Eval, Which, field_number, numbers, same_count, whole};

pub struct Ba {
    input: BaInput,
    reproj: Vec<f64>,
    w_err: Vec<f64>,
    /// The last Jacobian: its structure and values, both made by each run.
    jacobian: BaJacobian,
}

impl Ba {
    /// GradBench's input expanded as its reference does: the one camera
    /// `n` times, the one point `m` times, the weight and the feature `p`
    /// times, observation `i` pairing camera `i mod n` with point `i mod m`.
    fn input(input: &Value) -> Result<BaInput, String> {
        let size = |name: &str| -> Result<usize, String> {
            usize::try_from(whole(input, name)?)
                .ok()
                .filter(|&v| v > 0)
                .ok_or_else(|| format!("`{name}` must be a positive whole number"))
        };
        let (n, m, p) = (size("n")?, size("m")?, size("p")?);
        let fixed = |name: &str, len: usize| -> Result<Vec<f64>, String> {
            let v = numbers(input, name)?;
            if v.len() != len {
                return Err(format!("`{name}` has {} values, not {len}", v.len()));
            }
            Ok(v)
        };
        let (cam, x, feat) = (fixed("cam", 11)?, fixed("x", 3)?, fixed("feat", 2)?);
        let w = field_number(input, "w")?;
        Ok(BaInput {
            n,
            m,
            p,
            cams: cam.repeat(n),
            points: x.repeat(m),
            weights: vec![w; p],
            feats: feat.repeat(p),
            obs: (0..p).map(|i| (i % n, i % m)).collect(),
        })
    }

    pub fn of(input: &Value) -> Result<Ba, String> {
        let input = Ba::input(input)?;
        let p = input.p;
        let nnz = (2 * BLOCK + 1) * p;
        Ok(Ba {
            reproj: vec![0.0; 2 * p],
            w_err: vec![0.0; p],
            // Room for the structure; each run writes it.
            jacobian: BaJacobian {
                nrows: 0,
                ncols: 0,
                rows: Vec::with_capacity(3 * p + 1),
                cols: Vec::with_capacity(nnz),
                vals: vec![0.0; nnz],
            },
            input,
        })
    }
}

/// Writes the sparse structure of `input`'s Jacobian into `jac` (what
/// `BaJacobian::new` makes, in `jac`'s buffers): per observation two rows
/// of its camera's 11 columns, its point's 3 and its weight's, then one row
/// per weight.
fn structure(input: &BaInput, jac: &mut BaJacobian) {
    let (n, m, p) = (input.n, input.m, input.p);
    jac.nrows = 3 * p;
    jac.ncols = CAM * n + 3 * m + p;
    jac.rows.clear();
    jac.cols.clear();
    jac.rows.push(0);
    for (k, &(c, j)) in input.obs.iter().enumerate() {
        for _ in 0..2 {
            jac.cols.extend(CAM * c..CAM * c + CAM);
            jac.cols.extend(CAM * n + 3 * j..CAM * n + 3 * j + 3);
            jac.cols.push(CAM * n + 3 * m + k);
            jac.rows.push(jac.cols.len());
        }
    }
    for k in 0..p {
        jac.cols.push(CAM * n + 3 * m + k);
        jac.rows.push(jac.cols.len());
    }
}

impl Eval for Ba {
    fn run(&mut self, which: Which, build: Build) -> nilang_runtime::Result {
        match (which, build) {
            (Which::Primal, Build::Checked) => {
                nil_residuals(&self.input, &mut self.reproj, &mut self.w_err)
            }
            (Which::Primal, Build::Unchecked) => {
                nil_unchecked_residuals(&self.input, &mut self.reproj, &mut self.w_err)
            }
            (Which::Derivative | Which::Nested(..), build) => {
                structure(&self.input, &mut self.jacobian);
                match build {
                    Build::Checked => nil_jacobian(&self.input, &mut self.jacobian),
                    Build::Unchecked => nil_unchecked_jacobian(&self.input, &mut self.jacobian),
                }
            }
        }
    }

    fn replace_input(&mut self, input: &Value) -> Result<(), String> {
        let input = Ba::input(input)?;
        same_count("`p`", self.input.p, input.p)?;
        self.input = input;
        Ok(())
    }

    fn output(&self, which: Which) -> Value {
        match which {
            // One residual of each kind with its count: GradBench sends one
            // camera, point and feature repeated.
            Which::Primal => json!({
                "reproj_error": { "elements": &self.reproj[..2], "repeated": self.input.p },
                "w_err": { "element": self.w_err[0], "repeated": self.input.p },
            }),
            Which::Derivative | Which::Nested(..) => json!({
                "rows": first_and_last(&self.jacobian.rows),
                "cols": first_and_last(&self.jacobian.cols),
                "vals": first_and_last(&self.jacobian.vals),
            }),
        }
    }
}

/// What GradBench takes back of a long list: its first 30 entries (for
/// `vals`, the first observation's two rows) and its last; a list of 31 or
/// fewer (`rows` when p < 10) whole.
fn first_and_last<T: Copy>(v: &[T]) -> Vec<T> {
    if v.len() <= 31 {
        return v.to_vec();
    }
    v[..30].iter().chain(v.last()).copied().collect()
}

#[cfg(test)]
mod tests {
    use super::*;
    use nilang_adbench::ba::{manual_jacobian, residuals};

    /// A prepared `ba` whose arrays are then changed in place (observations
    /// paired otherwise, every camera, point, weight and feature its own)
    /// answers for the changed arrays, in both builds: the structure and
    /// the values against the plain-Rust residuals and the hand-written
    /// Jacobian. A structure built in `prepare` would keep the first
    /// pairing.
    #[test]
    fn a_run_follows_arrays_changed_after_prepare() {
        let (n, m, p) = (3, 5, 12);
        let json = json!({
            "n": n, "m": m, "p": p,
            "cam": [-0.758453, -1.109613, -0.845551, 34.556073, 39.676747, 53.881673,
                    419.194514, 5.864426, -8.51887, 0.087812, 0.002739],
            "x": [7.203245, 0.001144, 3.023326],
            "w": 0.417022,
            "feat": [271.760969, 834.209256],
        });
        for build in [Build::Checked, Build::Unchecked] {
            let mut ba = Ba::of(&json).unwrap();
            let before = ba.input.clone();
            let changed = &mut ba.input;
            changed.obs = (0..p).map(|k| ((k * 2 + 1) % n, (p - k) % m)).collect();
            let scale = |i: usize| 1.0 + 0.01 * ((i * 7) % 11) as f64;
            for (i, v) in changed.cams.iter_mut().enumerate() {
                *v *= scale(i);
            }
            for (i, v) in changed.points.iter_mut().enumerate() {
                *v *= scale(i + 3);
            }
            for (i, v) in changed.weights.iter_mut().enumerate() {
                *v *= scale(i + 5);
            }
            for (i, v) in changed.feats.iter_mut().enumerate() {
                *v *= scale(i + 1);
            }
            assert_ne!(ba.input.obs, before.obs);
            let want_structure = BaJacobian::new(&ba.input);
            assert_ne!(want_structure.cols, BaJacobian::new(&before).cols);

            ba.run(Which::Primal, build).unwrap();
            let (mut reproj, mut w_err) = (vec![0.0; 2 * p], vec![0.0; p]);
            residuals(&ba.input, &mut reproj, &mut w_err);
            for (got, want) in ba
                .reproj
                .iter()
                .zip(&reproj)
                .chain(ba.w_err.iter().zip(&w_err))
            {
                assert!(
                    (got - want).abs() <= 1e-10 * want.abs().max(1.0),
                    "{got} vs {want}"
                );
            }

            ba.run(Which::Derivative, build).unwrap();
            let mut want = want_structure;
            manual_jacobian(&ba.input, &mut want);
            let got = &ba.jacobian;
            assert_eq!((got.nrows, got.ncols), (want.nrows, want.ncols));
            assert_eq!(got.rows, want.rows);
            assert_eq!(got.cols, want.cols);
            for (g, w) in got.vals.iter().zip(&want.vals) {
                assert!((g - w).abs() <= 1e-9 * w.abs().max(1.0), "{g} vs {w}");
            }
        }
    }
}

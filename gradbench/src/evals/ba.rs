//! `ba`: bundle adjustment's residuals and sparse Jacobian, through ADBench's
//! `ba.nil` (the adbench crate's drivers: one reverse sweep with a
//! two-vector adjoint per observation fills its two Jacobian rows).

use nilang_adbench::ba::{BaInput, BaJacobian, nil_jacobian, nil_residuals};
use serde_json::{Value, json};

use super::{Eval, Which, field_number, numbers, whole};

pub struct Ba {
    input: BaInput,
    reproj: Vec<f64>,
    w_err: Vec<f64>,
    /// The sparsity structure depends on the input only: built once.
    jacobian: BaJacobian,
}

impl Ba {
    /// GradBench's input expanded as its reference does: the one camera
    /// `n` times, the one point `m` times, the weight and the feature `p`
    /// times, observation `i` pairing camera `i mod n` with point `i mod m`.
    pub fn of(input: &Value) -> Result<Ba, String> {
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
        let input = BaInput {
            n,
            m,
            p,
            cams: cam.repeat(n),
            points: x.repeat(m),
            weights: vec![w; p],
            feats: feat.repeat(p),
            obs: (0..p).map(|i| (i % n, i % m)).collect(),
        };
        Ok(Ba {
            jacobian: BaJacobian::new(&input),
            reproj: vec![0.0; 2 * p],
            w_err: vec![0.0; p],
            input,
        })
    }
}

impl Eval for Ba {
    fn run(&mut self, which: Which) -> nilang_runtime::Result {
        match which {
            Which::Primal => nil_residuals(&self.input, &mut self.reproj, &mut self.w_err),
            Which::Derivative | Which::Nested(..) => nil_jacobian(&self.input, &mut self.jacobian),
        }
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

//! Bundle adjustment (BA) as ADBench defines it: an instance reader, the
//! residuals in plain Rust, a hand-differentiated sparse Jacobian (ADBench's
//! "manual" column), and the same Jacobian from the gradient program that
//! the compiler generates for `ba.nil`.
//!
//! Each observation `k` relates one camera (11 numbers: axis-angle rotation
//! `r`, centre `C`, focal length `f`, principal point `u0, v0`, distortion
//! `k1, k2`) and one 3-D point through a weighted reprojection error (two
//! residuals) and adds a weight residual `1 - w_k^2`. The unknowns are laid
//! out as all cameras, then all points, then all weights; the residuals as
//! all reprojection pairs, then all weight errors. The Jacobian is stored
//! in compressed sparse rows with 15 entries per reprojection row (camera,
//! point, weight columns, in that order) and one per weight row.

use std::fmt;
use std::path::Path;

/// The generated `ba.nil` module, with run-time reversibility checks.
pub mod nil {
    nilang_runtime::include_nil!("ba");
}

/// The generated `ba.nil` module without run-time checks (faster; a failed
/// check would go unnoticed).
pub mod nil_unchecked {
    nilang_runtime::include_nil!("unchecked/ba");
}

/// The generated `ba.nil` module without run-time checks but running every
/// uncomputation: the checked module's work without its checks.
pub mod nil_uncomputing {
    nilang_runtime::include_nil!("uncomputing/ba");
}

/// Numbers per camera.
pub const CAM: usize = 11;
/// Nonzeros in each reprojection row: 11 camera, 3 point, 1 weight column.
pub const BLOCK: usize = 15;

/// A BA problem: cameras, points, weights, measured pixels and which camera
/// and point each observation pairs.
#[derive(Clone, Debug, PartialEq)]
pub struct BaInput {
    /// Number of cameras.
    pub n: usize,
    /// Number of points.
    pub m: usize,
    /// Number of observations.
    pub p: usize,
    /// `11 n` numbers, camera `i` at `11 i..11 i + 11`.
    pub cams: Vec<f64>,
    /// `3 m` numbers, point `j` at `3 j..3 j + 3`.
    pub points: Vec<f64>,
    /// One weight per observation.
    pub weights: Vec<f64>,
    /// `2 p` numbers: the measured pixel of each observation.
    pub feats: Vec<f64>,
    /// `(camera, point)` of each observation, 0-based.
    pub obs: Vec<(usize, usize)>,
}

/// Why an instance could not be read.
#[derive(Debug)]
pub struct BaReadError(String);

impl fmt::Display for BaReadError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.0)
    }
}

impl std::error::Error for BaReadError {}

impl BaInput {
    /// Reads an ADBench BA file (see [`BaInput::parse`]).
    pub fn read(path: impl AsRef<Path>) -> Result<Self, BaReadError> {
        let path = path.as_ref();
        let text = std::fs::read_to_string(path)
            .map_err(|e| BaReadError(format!("{}: {e}", path.display())))?;
        Self::parse(&text).map_err(|e| BaReadError(format!("{}: {}", path.display(), e.0)))
    }

    /// Parses ADBench's BA format: the header `n m p`, then a single camera
    /// (11 numbers), point (3), weight and feature (2). ADBench expands these
    /// into `n` equal cameras, `m` equal points and `p` equal weights and
    /// features, and pairs observation `k` with camera `k mod n` and point
    /// `k mod m`; so does this reader.
    pub fn parse(text: &str) -> Result<Self, BaReadError> {
        let mut tokens = text.split_whitespace();
        let mut count = |what: &str| -> Result<usize, BaReadError> {
            let tok = tokens
                .next()
                .ok_or_else(|| BaReadError(format!("the file ends before {what}")))?;
            tok.parse::<usize>()
                .map_err(|_| BaReadError(format!("{what} is `{tok}`, not a count")))
        };
        let n = count("the number of cameras")?;
        let m = count("the number of points")?;
        let p = count("the number of observations")?;
        if p > 0 && (n == 0 || m == 0) {
            return Err(BaReadError(format!(
                "{p} observations need at least one camera and one point (n = {n}, m = {m})"
            )));
        }
        let mut numbers = [0.0; CAM + 3 + 1 + 2];
        let names = ["the camera", "the point", "the weight", "the feature"];
        for (i, slot) in numbers.iter_mut().enumerate() {
            let what = match i {
                0..=10 => names[0],
                11..=13 => names[1],
                14 => names[2],
                _ => names[3],
            };
            let tok = tokens.next().ok_or_else(|| {
                BaReadError(format!(
                    "the file ends inside {what} (number {} of 17)",
                    i + 1
                ))
            })?;
            *slot = tok.parse::<f64>().map_err(|_| {
                BaReadError(format!(
                    "`{tok}` in {what} (number {} of 17) is not a number",
                    i + 1
                ))
            })?;
        }
        let cam = &numbers[..CAM];
        let point = &numbers[CAM..CAM + 3];
        let (w, feat) = (numbers[CAM + 3], &numbers[CAM + 4..]);
        Ok(BaInput {
            n,
            m,
            p,
            cams: cam.iter().copied().cycle().take(CAM * n).collect(),
            points: point.iter().copied().cycle().take(3 * m).collect(),
            weights: vec![w; p],
            feats: feat.iter().copied().cycle().take(2 * p).collect(),
            obs: (0..p).map(|k| (k % n, k % m)).collect(),
        })
    }

    /// Camera `i`'s 11 numbers.
    pub fn cam(&self, i: usize) -> &[f64] {
        &self.cams[CAM * i..CAM * i + CAM]
    }

    /// Point `j`'s 3 coordinates.
    pub fn point(&self, j: usize) -> &[f64] {
        &self.points[3 * j..3 * j + 3]
    }

    /// Number of unknowns: `11 n + 3 m + p`.
    pub fn ncols(&self) -> usize {
        CAM * self.n + 3 * self.m + self.p
    }

    /// Number of residuals: `3 p`.
    pub fn nrows(&self) -> usize {
        3 * self.p
    }
}

/// The rotated point, by Rodrigues' formula, or its first-order form
/// `xo + r x xo` when `r = 0`.
fn rotate(r: &[f64], xo: [f64; 3]) -> [f64; 3] {
    let s = r[0] * r[0] + r[1] * r[1] + r[2] * r[2];
    if s != 0.0 {
        let t = s.sqrt();
        let (st, ct) = t.sin_cos();
        let w = [r[0] / t, r[1] / t, r[2] / t];
        let dot = w[0] * xo[0] + w[1] * xo[1] + w[2] * xo[2];
        let cr = cross(w, xo);
        std::array::from_fn(|i| xo[i] * ct + cr[i] * st + w[i] * dot * (1.0 - ct))
    } else {
        let cr = cross([r[0], r[1], r[2]], xo);
        std::array::from_fn(|i| xo[i] + cr[i])
    }
}

fn cross(a: [f64; 3], b: [f64; 3]) -> [f64; 3] {
    [
        a[1] * b[2] - a[2] * b[1],
        a[2] * b[0] - a[0] * b[2],
        a[0] * b[1] - a[1] * b[0],
    ]
}

/// The weighted reprojection error `w (proj - feat)` of one observation.
pub fn project(cam: &[f64], x: &[f64], w: f64, feat: &[f64]) -> [f64; 2] {
    let xo = [x[0] - cam[3], x[1] - cam[4], x[2] - cam[5]];
    let xc = rotate(&cam[..3], xo);
    let u = [xc[0] / xc[2], xc[1] / xc[2]];
    let rsq = u[0] * u[0] + u[1] * u[1];
    let l = 1.0 + cam[9] * rsq + cam[10] * rsq * rsq;
    [
        w * (u[0] * l * cam[6] + cam[7] - feat[0]),
        w * (u[1] * l * cam[6] + cam[8] - feat[1]),
    ]
}

/// All residuals in plain Rust: `reproj` (length `2 p`) gets the
/// reprojection errors, `werr` (length `p`) the weight errors.
pub fn residuals(input: &BaInput, reproj: &mut [f64], werr: &mut [f64]) {
    for (k, &(c, j)) in input.obs.iter().enumerate() {
        let e = project(
            input.cam(c),
            input.point(j),
            input.weights[k],
            &input.feats[2 * k..2 * k + 2],
        );
        reproj[2 * k] = e[0];
        reproj[2 * k + 1] = e[1];
    }
    for (e, &w) in werr.iter_mut().zip(&input.weights) {
        *e = 1.0 - w * w;
    }
}

macro_rules! nil_functions {
    ($residuals:ident, $jacobian:ident, $module:ident, $which:literal) => {
        #[doc = concat!("All residuals computed by `project` and `weight_error` of ", $which, ", laid out as in [`residuals`].")]
        pub fn $residuals(
            input: &BaInput,
            reproj: &mut [f64],
            werr: &mut [f64],
        ) -> nilang_runtime::Result {
            for (k, &(c, j)) in input.obs.iter().enumerate() {
                let (mut e1, mut e2) = (0.0, 0.0);
                $module::project(
                    &mut e1,
                    &mut e2,
                    input.cam(c),
                    input.point(j),
                    input.weights[k],
                    input.feats[2 * k],
                    input.feats[2 * k + 1],
                )?;
                reproj[2 * k] = e1;
                reproj[2 * k + 1] = e2;
            }
            for (e, &w) in werr.iter_mut().zip(&input.weights) {
                *e = 0.0;
                $module::weight_error(e, w)?;
            }
            Ok(())
        }

        #[doc = concat!("Fills `jac.vals` (structure from [`BaJacobian::new`]) with the gradient program of ", $which, ": one reverse sweep per observation with `[f64; 2]` adjoints seeded (1, 0) and (0, 1) on the two outputs gives its 2 x 15 block; one scalar sweep of `weight_error` per weight row.")]
        pub fn $jacobian(input: &BaInput, jac: &mut BaJacobian) -> nilang_runtime::Result {
            let p = input.p;
            for (k, &(c, j)) in input.obs.iter().enumerate() {
                let (mut e1, mut e2) = (0.0, 0.0);
                let (mut e1b, mut e2b) = ([1.0, 0.0], [0.0, 1.0]);
                let mut camb = [[0.0; 2]; CAM];
                let mut xb = [[0.0; 2]; 3];
                let mut wb = [0.0; 2];
                $module::project_grad(
                    &mut e1,
                    &mut e1b,
                    &mut e2,
                    &mut e2b,
                    input.cam(c),
                    &mut camb,
                    input.point(j),
                    &mut xb,
                    input.weights[k],
                    &mut wb,
                    input.feats[2 * k],
                    input.feats[2 * k + 1],
                )?;
                let block = &mut jac.vals[2 * BLOCK * k..2 * BLOCK * (k + 1)];
                for row in 0..2 {
                    let out = &mut block[BLOCK * row..BLOCK * (row + 1)];
                    for i in 0..CAM {
                        out[i] = camb[i][row];
                    }
                    for i in 0..3 {
                        out[CAM + i] = xb[i][row];
                    }
                    out[CAM + 3] = wb[row];
                }
            }
            for (k, &w) in input.weights.iter().enumerate() {
                let (mut e, mut eb, mut wb) = (0.0, 1.0, 0.0);
                $module::weight_error_grad(&mut e, &mut eb, w, &mut wb)?;
                jac.vals[2 * BLOCK * p + k] = wb;
            }
            Ok(())
        }
    };
}

nil_functions!(
    nil_residuals,
    nil_jacobian,
    nil,
    "`ba.nil` (checked module)"
);
nil_functions!(
    nil_unchecked_residuals,
    nil_unchecked_jacobian,
    nil_unchecked,
    "`ba.nil` compiled without run-time checks"
);
nil_functions!(
    nil_uncomputing_residuals,
    nil_uncomputing_jacobian,
    nil_uncomputing,
    "`ba.nil` compiled without run-time checks but with every uncomputation"
);

/// The sparse Jacobian in compressed sparse rows: row `i`'s entries are
/// `cols[rows[i]..rows[i + 1]]` with values `vals[...]`.
#[derive(Clone, Debug, PartialEq)]
pub struct BaJacobian {
    /// Number of residuals, `3 p`.
    pub nrows: usize,
    /// Number of unknowns, `11 n + 3 m + p`.
    pub ncols: usize,
    /// Row pointers (`nrows + 1` of them).
    pub rows: Vec<usize>,
    /// Column of each nonzero (`31 p` of them).
    pub cols: Vec<usize>,
    /// Value of each nonzero.
    pub vals: Vec<f64>,
}

impl BaJacobian {
    /// The sparsity structure of `input`'s Jacobian, with zero values:
    /// computed once, then filled by [`manual_jacobian`] or [`nil_jacobian`]
    /// as often as needed.
    pub fn new(input: &BaInput) -> Self {
        let (n, m, p) = (input.n, input.m, input.p);
        let nnz = (2 * BLOCK + 1) * p;
        let mut rows = Vec::with_capacity(3 * p + 1);
        let mut cols = Vec::with_capacity(nnz);
        rows.push(0);
        for (k, &(c, j)) in input.obs.iter().enumerate() {
            for _ in 0..2 {
                cols.extend(CAM * c..CAM * c + CAM);
                cols.extend(CAM * n + 3 * j..CAM * n + 3 * j + 3);
                cols.push(CAM * n + 3 * m + k);
                rows.push(cols.len());
            }
        }
        for k in 0..p {
            cols.push(CAM * n + 3 * m + k);
            rows.push(cols.len());
        }
        BaJacobian {
            nrows: input.nrows(),
            ncols: input.ncols(),
            rows,
            cols,
            vals: vec![0.0; nnz],
        }
    }

    /// The dense form, for small tests: `nrows x ncols`, row-major.
    pub fn to_dense(&self) -> Vec<Vec<f64>> {
        let mut d = vec![vec![0.0; self.ncols]; self.nrows];
        for (i, row) in d.iter_mut().enumerate() {
            for e in self.rows[i]..self.rows[i + 1] {
                row[self.cols[e]] += self.vals[e];
            }
        }
        d
    }
}

type M3 = [[f64; 3]; 3];

/// `[a]x`, the matrix of `v -> a x v`.
fn skew(a: [f64; 3]) -> M3 {
    [[0.0, -a[2], a[1]], [a[2], 0.0, -a[0]], [-a[1], a[0], 0.0]]
}

/// The 2 x 15 block of one observation by hand-derived derivatives: columns
/// r (3), C (3), f, u0, v0, k1, k2, X (3), w.
pub fn manual_block(cam: &[f64], x: &[f64], w: f64, feat: &[f64]) -> [[f64; BLOCK]; 2] {
    let r = [cam[0], cam[1], cam[2]];
    let xo = [x[0] - cam[3], x[1] - cam[4], x[2] - cam[5]];
    let s = r[0] * r[0] + r[1] * r[1] + r[2] * r[2];
    // The rotated point, its derivative by xo (the rotation matrix) and by r.
    let (xc, dxo, dr): ([f64; 3], M3, M3) = if s != 0.0 {
        let t = s.sqrt();
        let (st, ct) = t.sin_cos();
        let a = [r[0] / t, r[1] / t, r[2] / t];
        let dot = a[0] * xo[0] + a[1] * xo[1] + a[2] * xo[2];
        let cr = cross(a, xo);
        let xc = std::array::from_fn(|i| xo[i] * ct + cr[i] * st + a[i] * dot * (1.0 - ct));
        let sa = skew(a);
        let rot: M3 = std::array::from_fn(|i| {
            std::array::from_fn(|j| {
                let id = if i == j { 1.0 } else { 0.0 };
                ct * id + st * sa[i][j] + (1.0 - ct) * a[i] * a[j]
            })
        });
        // d xc / d theta, and d xc / d a (theta fixed).
        let dth: [f64; 3] = std::array::from_fn(|i| -st * xo[i] + ct * cr[i] + st * dot * a[i]);
        let sxo = skew(xo);
        let da: M3 = std::array::from_fn(|i| {
            std::array::from_fn(|j| {
                let id = if i == j { 1.0 } else { 0.0 };
                -st * sxo[i][j] + (1.0 - ct) * (dot * id + a[i] * xo[j])
            })
        });
        // theta = |r|, a = r / theta: d theta/dr = a^T, da/dr = (I - a a^T)/theta.
        let dr: M3 = std::array::from_fn(|i| {
            std::array::from_fn(|j| {
                let mut v = dth[i] * a[j];
                for (l, dal) in da[i].iter().enumerate() {
                    let id = if l == j { 1.0 } else { 0.0 };
                    v += dal * (id - a[l] * a[j]) / t;
                }
                v
            })
        });
        (xc, rot, dr)
    } else {
        let cr = cross(r, xo);
        let sr = skew(r);
        let sxo = skew(xo);
        let xc = std::array::from_fn(|i| xo[i] + cr[i]);
        let rot = std::array::from_fn(|i| {
            std::array::from_fn(|j| sr[i][j] + if i == j { 1.0 } else { 0.0 })
        });
        let dr = std::array::from_fn(|i| std::array::from_fn(|j| -sxo[i][j]));
        (xc, rot, dr)
    };
    let iz = 1.0 / xc[2];
    let u = [xc[0] * iz, xc[1] * iz];
    let du: [[f64; 3]; 2] = [[iz, 0.0, -u[0] * iz], [0.0, iz, -u[1] * iz]];
    let (f, k1, k2) = (cam[6], cam[9], cam[10]);
    let rsq = u[0] * u[0] + u[1] * u[1];
    let l = 1.0 + k1 * rsq + k2 * rsq * rsq;
    let dl = 2.0 * (k1 + 2.0 * k2 * rsq);
    // d (w f u l) / d u, then through u to xc.
    let dd = [
        [l + dl * u[0] * u[0], dl * u[0] * u[1]],
        [dl * u[1] * u[0], l + dl * u[1] * u[1]],
    ];
    let mxc: [[f64; 3]; 2] = std::array::from_fn(|i| {
        std::array::from_fn(|j| w * f * (dd[i][0] * du[0][j] + dd[i][1] * du[1][j]))
    });
    let mut out = [[0.0; BLOCK]; 2];
    for i in 0..2 {
        let row = &mut out[i];
        for j in 0..3 {
            let (mut vr, mut vx) = (0.0, 0.0);
            for l in 0..3 {
                vr += mxc[i][l] * dr[l][j];
                vx += mxc[i][l] * dxo[l][j];
            }
            row[j] = vr;
            row[3 + j] = -vx;
            row[CAM + j] = vx;
        }
        let d = u[i] * l;
        row[6] = w * d;
        row[7 + i] = w;
        row[9] = w * f * u[i] * rsq;
        row[10] = w * f * u[i] * rsq * rsq;
        row[14] = f * d + cam[7 + i] - feat[i];
    }
    out
}

/// Fills `jac.vals` (structure from [`BaJacobian::new`]) with the
/// hand-derived Jacobian: each observation's 2 x 15 block from
/// [`manual_block`], and `-2 w_k` on weight row `k`.
pub fn manual_jacobian(input: &BaInput, jac: &mut BaJacobian) {
    let p = input.p;
    for (k, &(c, j)) in input.obs.iter().enumerate() {
        let b = manual_block(
            input.cam(c),
            input.point(j),
            input.weights[k],
            &input.feats[2 * k..2 * k + 2],
        );
        jac.vals[2 * BLOCK * k..2 * BLOCK * k + BLOCK].copy_from_slice(&b[0]);
        jac.vals[2 * BLOCK * k + BLOCK..2 * BLOCK * (k + 1)].copy_from_slice(&b[1]);
    }
    for (k, &w) in input.weights.iter().enumerate() {
        jac.vals[2 * BLOCK * p + k] = -2.0 * w;
    }
}

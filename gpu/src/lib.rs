//! The papers' GPU cases as `@kernel` functions: the SWAP and rotation
//! gates on a state vector (appendix F of the long paper) and the Bessel
//! function J_v over a batch (table 2's GPU row), plus a gather kernel whose
//! reverse pass accumulates shared adjoints atomically. Each kernel is also
//! generated for the CPU (one call per index), which the tests compare with.

nilang_runtime::include_nil!(pub mod gates);
nilang_runtime::include_nil!(pub mod bessel);
nilang_runtime::include_nil!(pub mod gather);
nilang_runtime::include_nil!(pub mod ba);
nilang_runtime::include_nil!(pub mod math);
nilang_runtime::include_nil!(pub mod circuit);

pub mod device;

/// The Bessel kernel without run-time checks, as the GPU runs it.
pub mod unchecked {
    nilang_runtime::include_nil!(pub mod bessel from "unchecked");
}

/// A deterministic pseudo-random sequence in [-1, 1), for the tests and
/// benches.
pub fn noise(n: usize, seed: u64) -> Vec<f64> {
    let step = |s: u64| {
        s.wrapping_mul(6364136223846793005)
            .wrapping_add(1442695040888963407)
    };
    let mut s = step(seed);
    (0..n)
        .map(|_| {
            s = step(s);
            ((s >> 11) as f64 / (1u64 << 53) as f64) * 2.0 - 1.0
        })
        .collect()
}

/// A GPU for the tests: `None` (with a message) when there is no adapter,
/// unless `NILANG_REQUIRE_GPU=1`, which makes a missing adapter a failure.
pub fn test_gpu() -> Option<nilang_runtime::gpu::Gpu> {
    match nilang_runtime::gpu::Gpu::new() {
        Ok(g) => Some(g),
        Err(e) if std::env::var("NILANG_REQUIRE_GPU").as_deref() != Ok("1") => {
            eprintln!("GPU test skipped: {e} (set NILANG_REQUIRE_GPU=1 to fail instead)");
            None
        }
        Err(e) => panic!("NILANG_REQUIRE_GPU=1, but: {e}"),
    }
}

/// Bundle adjustment's inputs gathered per observation for
/// [`ba::ba_project_gpu`]: camera (11 numbers), point (3), weight, pixel (2).
#[derive(Clone, Debug, PartialEq)]
pub struct BaBlocks<T> {
    pub cam: Vec<T>,
    pub x: Vec<T>,
    pub w: Vec<T>,
    pub feat: Vec<T>,
}

/// Columns of a Jacobian block: camera (11), point (3), weight.
pub const BA_BLOCK: usize = 15;

impl<T: Copy> BaBlocks<T> {
    /// Gathers observation `k`'s inputs: `cams` holds 11 numbers per
    /// camera, `points` 3 per point, `feats` 2 per observation, `obs` the
    /// (camera, point) of each observation, 0-based.
    pub fn gather(
        cams: &[f64],
        points: &[f64],
        weights: &[f64],
        feats: &[f64],
        obs: &[(usize, usize)],
        conv: impl Fn(f64) -> T,
    ) -> Self {
        let p = obs.len();
        let mut b = BaBlocks {
            cam: Vec::with_capacity(11 * p),
            x: Vec::with_capacity(3 * p),
            w: Vec::with_capacity(p),
            feat: Vec::with_capacity(2 * p),
        };
        for (k, &(c, q)) in obs.iter().enumerate() {
            b.cam
                .extend(cams[11 * c..11 * c + 11].iter().map(|&v| conv(v)));
            b.x.extend(points[3 * q..3 * q + 3].iter().map(|&v| conv(v)));
            b.w.push(conv(weights[k]));
            b.feat
                .extend(feats[2 * k..2 * k + 2].iter().map(|&v| conv(v)));
        }
        b
    }

    pub fn len(&self) -> usize {
        self.w.len()
    }

    pub fn is_empty(&self) -> bool {
        self.w.is_empty()
    }
}

/// A reprojection residual per observation (two numbers) and the 2 x 15
/// Jacobian block of each: the forward kernel, then one reverse pass per
/// residual (its adjoint seeded with ones, the other's with zeros).
#[allow(clippy::type_complexity)]
pub fn ba_jacobian_gpu<T: nilang_runtime::gpu::GpuFloat + Default>(
    gpu: &nilang_runtime::gpu::Gpu,
    b: &BaBlocks<T>,
) -> Result<(Vec<T>, Vec<T>, Vec<[[T; BA_BLOCK]; 2]>), nilang_runtime::gpu::GpuError> {
    let p = b.len();
    let (mut e1, mut e2) = (vec![T::default(); p], vec![T::default(); p]);
    ba::ba_project_gpu(gpu, p, &mut e1, &mut e2, &b.cam, &b.x, &b.w, &b.feat)?;
    let mut blocks = vec![[[T::default(); BA_BLOCK]; 2]; p];
    for row in 0..2 {
        let (mut o1, mut o2) = (e1.clone(), e2.clone());
        let one = nilang_runtime::one::<T>();
        let mut b1 = vec![if row == 0 { one } else { T::default() }; p];
        let mut b2 = vec![if row == 1 { one } else { T::default() }; p];
        let mut cam_bar = vec![T::default(); b.cam.len()];
        let mut x_bar = vec![T::default(); b.x.len()];
        let mut w_bar = vec![T::default(); p];
        let mut feat_bar = vec![T::default(); b.feat.len()];
        ba::ba_project_adjoint_gpu(
            gpu,
            p,
            &mut o1,
            &mut b1,
            &mut o2,
            &mut b2,
            &b.cam,
            &mut cam_bar,
            &b.x,
            &mut x_bar,
            &b.w,
            &mut w_bar,
            &b.feat,
            &mut feat_bar,
        )?;
        fill_row(&mut blocks, row, &cam_bar, &x_bar, &w_bar);
    }
    Ok((e1, e2, blocks))
}

/// Row `row` of every observation's block, from the reverse pass's
/// adjoints of the camera (11 per observation), point (3) and weight (1).
pub(crate) fn fill_row<T: Copy>(
    blocks: &mut [[[T; BA_BLOCK]; 2]],
    row: usize,
    cam_bar: &[T],
    x_bar: &[T],
    w_bar: &[T],
) {
    for (k, block) in blocks.iter_mut().enumerate() {
        block[row][..11].copy_from_slice(&cam_bar[11 * k..11 * k + 11]);
        block[row][11..14].copy_from_slice(&x_bar[3 * k..3 * k + 3]);
        block[row][14] = w_bar[k];
    }
}

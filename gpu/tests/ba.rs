//! Bundle adjustment's Jacobian blocks on the GPU (table 6's GPU row)
//! against the CPU: ADBench's ba1 instance, the residuals against
//! `nilang_adbench::ba::project` and the 2 x 15 blocks against the
//! hand-written derivatives (`manual_block`).

use nilang_adbench::ba::{self as cpu, BLOCK, BaInput, CAM};
use nilang_gpu::{ba, test_gpu};

/// Each observation's inputs in blocks: camera, point, weight, pixel.
pub struct Blocks<T> {
    pub cam: Vec<T>,
    pub x: Vec<T>,
    pub w: Vec<T>,
    pub feat: Vec<T>,
}

fn gather<T: Copy>(input: &BaInput, conv: impl Fn(f64) -> T) -> Blocks<T> {
    let mut b = Blocks {
        cam: Vec::with_capacity(CAM * input.p),
        x: Vec::with_capacity(3 * input.p),
        w: Vec::with_capacity(input.p),
        feat: Vec::with_capacity(2 * input.p),
    };
    for (k, &(c, p)) in input.obs.iter().enumerate() {
        b.cam.extend(input.cam(c).iter().map(|&v| conv(v)));
        b.x.extend(input.point(p).iter().map(|&v| conv(v)));
        b.w.push(conv(input.weights[k]));
        b.feat
            .extend(input.feats[2 * k..2 * k + 2].iter().map(|&v| conv(v)));
    }
    b
}

fn ba1() -> BaInput {
    let dir = nilang_adbench::data_dir().join("ba");
    let name = std::fs::read_dir(&dir)
        .unwrap()
        .map(|e| e.unwrap().file_name().into_string().unwrap())
        .find(|n| n.starts_with("ba1_"))
        .expect("ba1 in adbench/data/ba");
    BaInput::read(dir.join(name)).unwrap()
}

/// The blocks of every observation: two reverse passes, one per residual.
fn jacobian<T: nilang::gpu::GpuFloat + Default>(
    gpu: &nilang::gpu::Gpu,
    b: &Blocks<T>,
    p: usize,
) -> (Vec<T>, Vec<T>, Vec<[[T; BLOCK]; 2]>) {
    let (mut e1, mut e2) = (vec![T::default(); p], vec![T::default(); p]);
    ba::ba_project_gpu(gpu, p, &mut e1, &mut e2, &b.cam, &b.x, &b.w, &b.feat).unwrap();
    let mut blocks = vec![[[T::default(); BLOCK]; 2]; p];
    for row in 0..2 {
        let (mut o1, mut o2) = (e1.clone(), e2.clone());
        let one = nilang::one::<T>();
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
        )
        .unwrap();
        for (k, block) in blocks.iter_mut().enumerate() {
            block[row][..CAM].copy_from_slice(&cam_bar[CAM * k..CAM * k + CAM]);
            block[row][CAM..CAM + 3].copy_from_slice(&x_bar[3 * k..3 * k + 3]);
            block[row][CAM + 3] = w_bar[k];
        }
    }
    (e1, e2, blocks)
}

fn relative(a: f64, b: f64) -> f64 {
    (a - b).abs() / (1.0 + b.abs())
}

#[test]
fn jacobian_blocks_agree_with_the_cpu() {
    let Some(gpu) = test_gpu() else { return };
    let input = ba1();
    let p = input.p;
    assert!(p > 30_000, "ba1 has {p} observations");

    let b32 = gather(&input, |v| v as f32);
    let (e1, e2, j32) = jacobian(&gpu, &b32, p);
    let (mut worst_e, mut worst_j) = (0.0f64, 0.0f64);
    for (k, &(c, q)) in input.obs.iter().enumerate() {
        let feat = &input.feats[2 * k..2 * k + 2];
        let r = cpu::project(input.cam(c), input.point(q), input.weights[k], feat);
        worst_e = worst_e
            .max(relative(e1[k] as f64, r[0]))
            .max(relative(e2[k] as f64, r[1]));
        let m = cpu::manual_block(input.cam(c), input.point(q), input.weights[k], feat);
        for row in 0..2 {
            for col in 0..BLOCK {
                worst_j = worst_j.max(relative(j32[k][row][col] as f64, m[row][col]));
            }
        }
    }
    eprintln!(
        "ba1 f32 on the GPU: largest relative error {worst_e:e} (residuals), {worst_j:e} (Jacobian)"
    );
    assert!(worst_e < 1e-4, "residuals off by {worst_e}");
    assert!(worst_j < 1e-3, "Jacobian off by {worst_j}");

    if gpu.has_f64() {
        let b64 = gather(&input, |v| v);
        let (e1, e2, j64) = jacobian(&gpu, &b64, p);
        let (mut worst_e, mut worst_j) = (0.0f64, 0.0f64);
        for (k, &(c, q)) in input.obs.iter().enumerate() {
            let feat = &input.feats[2 * k..2 * k + 2];
            let r = cpu::project(input.cam(c), input.point(q), input.weights[k], feat);
            worst_e = worst_e
                .max(relative(e1[k], r[0]))
                .max(relative(e2[k], r[1]));
            let m = cpu::manual_block(input.cam(c), input.point(q), input.weights[k], feat);
            for row in 0..2 {
                for col in 0..BLOCK {
                    worst_j = worst_j.max(relative(j64[k][row][col], m[row][col]));
                }
            }
        }
        eprintln!(
            "ba1 f64 on the GPU: largest relative error {worst_e:e} (residuals), {worst_j:e} (Jacobian)"
        );
        assert!(worst_e < 1e-12, "f64 residuals off by {worst_e}");
        assert!(worst_j < 1e-10, "f64 Jacobian off by {worst_j}");
    }
}

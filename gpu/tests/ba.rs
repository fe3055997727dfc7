//! Bundle adjustment's Jacobian blocks on the GPU (table 6's GPU row)
//! against the CPU: ADBench's ba1 instance, the residuals against
//! `nilang_adbench::ba::project` and the 2 x 15 blocks against the
//! hand-written derivatives (`manual_block`).

mod support;

use nilang_adbench::ba::{self as cpu, BLOCK};
use nilang_gpu::{BaBlocks, ba_jacobian_gpu, test_gpu};
use support::ba1;

fn jacobian<T: nilang_runtime::gpu::GpuFloat + Default>(
    gpu: &nilang_runtime::gpu::Gpu,
    b: &BaBlocks<T>,
    _p: usize,
) -> (Vec<T>, Vec<T>, Vec<[[T; BLOCK]; 2]>) {
    ba_jacobian_gpu(gpu, b).unwrap()
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

    let b32 = support::blocks(&input, |v| v as f32);
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
        let b64 = support::blocks(&input, |v| v);
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

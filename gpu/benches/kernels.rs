//! The papers' GPU cases on the GPU and on the CPU (the same kernel, one
//! call per index, generated without run-time checks would be faster still;
//! these are the checked CPU functions). On Mesa's software driver the GPU
//! numbers only show that the launches work end to end; the timings that
//! matter need a real GPU. Run with
//! `cargo bench -p nilang-gpu --bench kernels`; BENCHMARKS.md has a run.

use divan::black_box;
use nilang_gpu::{bessel, gates, test_gpu};

fn main() {
    divan::main();
}

const BATCH: usize = 4000;

fn inputs() -> Vec<f32> {
    (0..BATCH)
        .map(|i| 0.05 + 2.0 * i as f32 / BATCH as f32)
        .collect()
}

/// J2 and its gradient over 4,000 inputs (table 2's GPU row).
#[path = "../tests/support/mod.rs"]
mod support;

mod bessel_batch_4000 {
    use super::*;

    #[divan::bench(sample_count = 10, sample_size = 1)]
    fn gpu_value(bencher: divan::Bencher) {
        let Some(gpu) = test_gpu() else { return };
        let z = inputs();
        bencher.bench_local(|| {
            let mut out = vec![0.0f32; BATCH];
            bessel::besselj_batch_gpu(&gpu, BATCH, &mut out, black_box(&z), 2).unwrap();
            out
        });
    }

    #[divan::bench(sample_count = 10, sample_size = 1)]
    fn gpu_gradient(bencher: divan::Bencher) {
        let Some(gpu) = test_gpu() else { return };
        let z = inputs();
        let mut out = vec![0.0f32; BATCH];
        bessel::besselj_batch_gpu(&gpu, BATCH, &mut out, &z, 2).unwrap();
        bencher.bench_local(|| {
            let mut o = out.clone();
            let mut ob = vec![1.0f32; BATCH];
            let mut zb = vec![0.0f32; BATCH];
            bessel::besselj_batch_adjoint_gpu(
                &gpu,
                BATCH,
                &mut o,
                &mut ob,
                black_box(&z),
                &mut zb,
                2,
            )
            .unwrap();
            zb
        });
    }

    /// The CPU in f64 (in f32 the checked CPU code stops at its run-time
    /// reversibility checks).
    #[divan::bench(sample_count = 10, sample_size = 1)]
    fn cpu_gradient_f64(bencher: divan::Bencher) {
        let z: Vec<f64> = inputs().iter().map(|&x| x as f64).collect();
        bencher.bench_local(|| {
            let mut zb = vec![0.0f64; BATCH];
            for (i, &x) in z.iter().enumerate() {
                let (mut o, mut ob) = (0.0, 1.0);
                bessel::ibesselj_grad(&mut o, &mut ob, 2, black_box(x), &mut zb[i], 1e-6).unwrap();
            }
            zb
        });
    }
}

/// A rotation gate on 2^16 amplitudes.
mod rotation_gate_65536 {
    use super::*;

    const N: usize = 1 << 16;

    #[divan::bench(sample_count = 10, sample_size = 1)]
    fn gpu(bencher: divan::Bencher) {
        let Some(gpu) = test_gpu() else { return };
        let mut state = vec![0.5f32; N];
        bencher.bench_local(|| {
            gates::rot_kernel_gpu(&gpu, N, black_box(&mut state), 1 << 7, 0.1).unwrap()
        });
    }

    #[divan::bench(sample_count = 10, sample_size = 1)]
    fn cpu(bencher: divan::Bencher) {
        let mut state = vec![0.5f32; N];
        bencher.bench_local(|| {
            for i in 1..=N as i64 {
                gates::rot_kernel(i, black_box(&mut state), 1 << 7, 0.1).unwrap();
            }
        });
    }
}

/// Bundle adjustment's Jacobian on ADBench's ba1 (31,843 observations):
/// the residuals and the 2 x 15 blocks on the GPU (inputs gathered per
/// observation beforehand), against the reverse pass on the CPU without
/// run-time checks (`nil_unchecked_jacobian`, which also fills the sparse
/// matrix).
mod ba1_jacobian {
    use super::*;
    use nilang_adbench::ba::{BaJacobian, nil_unchecked_jacobian};
    use nilang_gpu::ba_jacobian_gpu;

    #[divan::bench(sample_count = 10, sample_size = 1)]
    fn gpu_f32(bencher: divan::Bencher) {
        let Some(gpu) = test_gpu() else { return };
        let b = support::blocks(&support::ba1(), |v| v as f32);
        bencher.bench_local(|| ba_jacobian_gpu(&gpu, black_box(&b)).unwrap());
    }

    #[divan::bench(sample_count = 10, sample_size = 1)]
    fn gpu_f64(bencher: divan::Bencher) {
        let Some(gpu) = test_gpu() else { return };
        if !gpu.has_f64() {
            return;
        }
        let b = support::blocks(&support::ba1(), |v| v);
        bencher.bench_local(|| ba_jacobian_gpu(&gpu, black_box(&b)).unwrap());
    }

    #[divan::bench(sample_count = 10, sample_size = 1)]
    fn cpu_nil_unchecked(bencher: divan::Bencher) {
        let input = support::ba1();
        let mut jac = BaJacobian::new(&input);
        bencher.bench_local(|| nil_unchecked_jacobian(black_box(&input), &mut jac).unwrap());
    }
}

//! Device-resident arrays: kernels chained with no copy to the host,
//! views at any offset, the deterministic sums of shared adjoints (the
//! same gradient bit for bit on every run, in f32 and f64), the training
//! loop, and the errors of a bad launch or a lost device.

use nilang_gpu::device::{BaDevice, Circuit, bessel_gradients};
use nilang_gpu::{BaBlocks, ba_jacobian_gpu, bessel, circuit, gates, gather, noise, test_gpu};
use nilang_runtime::gpu::{DeviceArray, Gpu, GpuError, Reduction};

fn f32s(v: &[f64]) -> Vec<f32> {
    v.iter().map(|&x| x as f32).collect()
}

#[test]
fn chained_kernels_read_back_once() {
    let Some(gpu) = test_gpu() else { return };
    let n = 4000;
    let z: Vec<f32> = (0..n).map(|i| 0.05 + 2.0 * i as f32 / n as f32).collect();
    let dz = DeviceArray::from_slice(&gpu, &z).unwrap();
    let ones = DeviceArray::from_slice(&gpu, &vec![1.0f32; n]).unwrap();
    let mut out = DeviceArray::zeros(&gpu, n).unwrap();
    let mut seed = DeviceArray::zeros(&gpu, n).unwrap();
    let mut z_bar = DeviceArray::zeros(&gpu, n).unwrap();
    let before = gpu.transfers();
    // Three times over: forward, then reverse, all queued.
    for _ in 0..3 {
        bessel_gradients(&gpu, 2, &dz, &ones, &mut out, &mut seed, &mut z_bar).unwrap();
    }
    let queued = gpu.transfers();
    assert_eq!(queued, before, "launches on device arrays copy nothing");
    let grad = z_bar.read().unwrap();
    let after = gpu.transfers();
    assert_eq!(after.downloads, before.downloads + 1);
    assert_eq!(after.download_bytes, before.download_bytes + 4 * n as u64);
    // The slice launchers run the same shaders: the same bits.
    let mut o = vec![0.0f32; n];
    bessel::besselj_batch_gpu(&gpu, n, &mut o, &z, 2).unwrap();
    let (mut ob, mut zb) = (vec![1.0f32; n], vec![0.0f32; n]);
    bessel::besselj_batch_adjoint_gpu(&gpu, n, &mut o, &mut ob, &z, &mut zb, 2).unwrap();
    assert_eq!(grad, zb);
    assert!(grad.iter().any(|&g| g.abs() > 0.1));
}

#[test]
fn views_at_aligned_and_unaligned_offsets() {
    let Some(gpu) = test_gpu() else { return };
    let (n, m) = (100, 7);
    let w = f32s(&noise(n, 1));
    let x = f32s(&noise(m, 2));
    let idx: Vec<i64> = (0..n as i64).map(|i| (i * 3) % m as i64 + 1).collect();
    let (dw, dx, didx) = (
        DeviceArray::from_slice(&gpu, &w).unwrap(),
        DeviceArray::from_slice(&gpu, &x).unwrap(),
        DeviceArray::from_slice(&gpu, &idx).unwrap(),
    );
    let mut expected = vec![0.0f32; n];
    for i in 1..=n as i64 {
        gather::gather(i, &mut expected, &w, &x, &idx).unwrap();
    }
    // 0 and 64 f32s are 256-byte aligned (bound in place); 3 is not (bound
    // through a scratch copy).
    for offset in [0usize, 3, 64] {
        let base = vec![9.0f32; offset + n + 5];
        let mut big = DeviceArray::from_slice(&gpu, &base).unwrap();
        {
            let mut y = big.view_mut(offset..offset + n);
            gather::gather_device(&gpu, n, &mut y, &dw, &dx, &didx).unwrap();
        }
        let got = big.read().unwrap();
        for (k, v) in got.iter().enumerate() {
            let want = if (offset..offset + n).contains(&k) {
                9.0 + expected[k - offset]
            } else {
                9.0
            };
            assert!(
                (v - want).abs() < 1e-6,
                "offset {offset}, element {k}: {v} vs {want}"
            );
        }
        // A read-only view at the same offset reads the same values.
        let view = big.view(offset..offset + n).read().unwrap();
        assert_eq!(view, got[offset..offset + n]);
    }
}

/// The rotation's θ_bar (a scalar adjoint every invocation adds to) and the
/// gather's x_bar (array elements many invocations add to), of 13 elements
/// (summed densely) and of 500 (summed by sorting).
fn shared_gradients(gpu: &Gpu) -> (f32, Vec<f32>) {
    let n = 1 << 12;
    let state = f32s(&noise(n, 3));
    let (mut s, mut sb, mut tb) = (state.clone(), f32s(&noise(n, 4)), 0.0f32);
    gates::rot_kernel_adjoint_gpu(gpu, n, &mut s, &mut sb, 8, 0.3, &mut tb).unwrap();
    let mut all = Vec::new();
    for m in [13, 500] {
        let w = f32s(&noise(n, 5));
        let x = f32s(&noise(m, 6));
        let idx: Vec<i64> = (0..n as i64).map(|i| (i * 7) % m as i64 + 1).collect();
        let (mut y, mut yb, mut wb, mut xb) = (
            vec![0.0f32; n],
            f32s(&noise(n, 7)),
            vec![0.0; n],
            vec![0.0; m],
        );
        gather::gather_adjoint_gpu(gpu, n, &mut y, &mut yb, &w, &mut wb, &x, &mut xb, &idx)
            .unwrap();
        all.extend(xb);
    }
    (tb, all)
}

#[test]
fn shared_adjoints_are_the_same_bits_on_every_run() {
    let Some(mut gpu) = test_gpu() else { return };
    assert_eq!(gpu.reduction(), Reduction::Deterministic);
    let first = shared_gradients(&gpu);
    for _ in 0..4 {
        let again = shared_gradients(&gpu);
        assert_eq!(again.0.to_bits(), first.0.to_bits(), "θ_bar");
        let bits = |v: &[f32]| v.iter().map(|x| x.to_bits()).collect::<Vec<_>>();
        assert_eq!(bits(&again.1), bits(&first.1), "x_bar");
    }
    // The atomic path, where asked for: the same sums to rounding.
    gpu.set_reduction(Reduction::Atomic);
    let atomic = shared_gradients(&gpu);
    assert!((atomic.0 - first.0).abs() < 1e-3 * (1.0 + first.0.abs()));
    for (a, d) in atomic.1.iter().zip(&first.1) {
        assert!((a - d).abs() < 1e-3 * (1.0 + d.abs()), "{a} vs {d}");
    }
}

#[test]
fn f64_gather_adjoint_agrees_with_the_cpu() {
    let Some(gpu) = test_gpu() else { return };
    if !gpu.has_f64() {
        eprintln!("skipped: no SHADER_F64 on {}", gpu.adapter_name());
        return;
    }
    // 11 elements (summed densely) and 700 (by sorting, some never read).
    for m in [11, 700] {
        f64_gather(&gpu, m);
    }
}

fn f64_gather(gpu: &Gpu, m: usize) {
    let n = 3000;
    let w = noise(n, 8);
    let x = noise(m, 9);
    let idx: Vec<i64> = (0..n as i64)
        .map(|i| (i * 5) % (m as i64 - 3) + 1)
        .collect();
    let mut y = vec![0.0f64; n];
    gather::gather_gpu(gpu, n, &mut y, &w, &x, &idx).unwrap();
    let yb = noise(n, 10);
    let (mut gy, mut gyb, mut gwb, mut gxb) = (y.clone(), yb.clone(), vec![0.0; n], vec![0.0; m]);
    gather::gather_adjoint_gpu(gpu, n, &mut gy, &mut gyb, &w, &mut gwb, &x, &mut gxb, &idx)
        .unwrap();
    let (mut cy, mut cyb, mut cwb, mut cxb) = (y.clone(), yb.clone(), vec![0.0; n], vec![0.0; m]);
    for i in 1..=n as i64 {
        gather::gather_adjoint(i, &mut cy, &mut cyb, &w, &mut cwb, &x, &mut cxb, &idx).unwrap();
    }
    for k in 0..m {
        assert!(
            (gxb[k] - cxb[k]).abs() < 1e-12 * (1.0 + cxb[k].abs()),
            "m = {m}, x_bar[{k}]: GPU {}, CPU {}",
            gxb[k],
            cxb[k]
        );
    }
    for i in 0..n {
        assert_eq!(gwb[i], cwb[i], "w_bar[{i}]");
        assert!(gy[i].abs() < 1e-15, "y restored");
    }
}

#[test]
fn training_loop_on_the_device_matches_the_cpu() {
    let Some(gpu) = test_gpu() else { return };
    let c = Circuit {
        qubits: 6,
        layers: 2,
    };
    let n = c.amplitudes();
    let mut psi0 = vec![0.0f64; n];
    psi0[0] = 1.0;
    let target: Vec<f64> = {
        let t = noise(n, 11);
        let norm = t.iter().map(|v| v * v).sum::<f64>().sqrt();
        t.iter().map(|v| v / norm).collect()
    };
    let theta0 = noise(c.gates(), 12);
    let steps = 20;
    let cpu = c.train_cpu(&psi0, &target, &theta0, 0.5, steps).unwrap();
    let start = c.overlap(&psi0, &target, &theta0).unwrap();
    let end = c.overlap(&psi0, &target, &cpu).unwrap();
    assert!(
        end > start + 0.05,
        "training raises the overlap: {start} -> {end}"
    );
    let before = gpu.transfers();
    let dev32 = c
        .train_device(
            &gpu,
            &f32s(&psi0),
            &f32s(&target),
            &f32s(&theta0),
            0.5,
            steps,
        )
        .unwrap();
    let moved = gpu.transfers();
    // Uploads of ψ0, the target and θ0; one read-back of θ.
    assert_eq!(moved.uploads - before.uploads, 3);
    assert_eq!(moved.downloads - before.downloads, 1);
    for (g, c) in dev32.iter().zip(&cpu) {
        assert!((*g as f64 - c).abs() < 1e-3, "θ: GPU f32 {g}, CPU {c}");
    }
    // The slice launchers run the same kernels and sums: the same bits.
    let sl32 = c
        .train_slices(
            &gpu,
            &f32s(&psi0),
            &f32s(&target),
            &f32s(&theta0),
            0.5,
            steps,
        )
        .unwrap();
    assert_eq!(sl32, dev32);
    if gpu.has_f64() {
        let dev64 = c
            .train_device(&gpu, &psi0, &target, &theta0, 0.5, steps)
            .unwrap();
        for (g, c) in dev64.iter().zip(&cpu) {
            assert!((g - c).abs() < 1e-10, "θ: GPU f64 {g}, CPU {c}");
        }
    }
    // One step of the CPU loop is the kernels' own CPU code.
    let mut th = theta0.clone();
    let grad = vec![1.0; c.gates()];
    circuit::ascend(1, &mut th, &grad, 0.5).unwrap();
    assert_eq!(th[0], theta0[0] + 0.5);
}

#[test]
fn ba_jacobian_on_device_arrays_matches_the_slice_launchers() {
    let Some(gpu) = test_gpu() else { return };
    // A small synthetic problem: 3 cameras, 5 points, 40 observations.
    let cams: Vec<f64> = (0..3)
        .flat_map(|c| {
            let c = c as f64;
            [
                0.1 * c,
                -0.2,
                0.05,
                0.3,
                -0.1,
                5.0 + c,
                1.2,
                0.1,
                -0.2,
                0.01,
                -0.002,
            ]
        })
        .collect();
    let points: Vec<f64> = noise(15, 13);
    let obs: Vec<(usize, usize)> = (0..40).map(|k| (k % 3, (k * 2) % 5)).collect();
    let weights: Vec<f64> = (0..40).map(|k| 0.5 + 0.01 * k as f64).collect();
    let feats: Vec<f64> = noise(80, 14);
    let b = BaBlocks::gather(&cams, &points, &weights, &feats, &obs, |v| v as f32);
    let slices = ba_jacobian_gpu(&gpu, &b).unwrap();
    let mut dev = BaDevice::new(&gpu, &b).unwrap();
    let before = gpu.transfers();
    let on_device = dev.jacobian(&gpu).unwrap();
    let after = gpu.transfers();
    assert_eq!(
        after.uploads, before.uploads,
        "inputs uploaded once, at BaDevice::new"
    );
    assert_eq!(on_device, slices);
    // And again, from the same device buffers.
    assert_eq!(dev.jacobian(&gpu).unwrap(), slices);
}

#[test]
fn wrong_lengths_and_devices_name_the_kernel_and_argument() {
    let Some(gpu) = test_gpu() else { return };
    let n = 8;
    let (mut y, mut yb) = (
        DeviceArray::<f32>::zeros(&gpu, n).unwrap(),
        DeviceArray::<f32>::zeros(&gpu, n).unwrap(),
    );
    let (w, mut wb) = (
        DeviceArray::<f32>::zeros(&gpu, n).unwrap(),
        DeviceArray::<f32>::zeros(&gpu, n).unwrap(),
    );
    let x = DeviceArray::<f32>::zeros(&gpu, 4).unwrap();
    let mut xb = DeviceArray::<f32>::zeros(&gpu, 3).unwrap();
    let idx = DeviceArray::<i64>::from_slice(&gpu, &[1; 8]).unwrap();
    let e = gather::gather_adjoint_device(&gpu, n, &mut y, &mut yb, &w, &mut wb, &x, &mut xb, &idx)
        .unwrap_err();
    assert!(
        matches!(
            e,
            GpuError::Length {
                kernel: "gather_adjoint",
                argument: "x_bar",
                expected: 4,
                found: 3,
                ..
            }
        ),
        "{e}"
    );
    let text = e.to_string();
    assert!(
        text.contains("gather_adjoint") && text.contains("x_bar"),
        "{text}"
    );

    let other = Gpu::new().unwrap();
    let foreign = DeviceArray::<f32>::zeros(&other, 4).unwrap();
    let mut yy = DeviceArray::<f32>::zeros(&gpu, n).unwrap();
    let e = gather::gather_device(&gpu, n, &mut yy, &w, &foreign, &idx).unwrap_err();
    assert!(
        matches!(
            e,
            GpuError::WrongDevice {
                kernel: "gather",
                argument: "x"
            }
        ),
        "{e}"
    );
}

#[test]
fn a_lost_device_is_an_error_not_a_panic() {
    let Some(_) = test_gpu() else { return };
    let gpu = Gpu::new().unwrap();
    let mut a = DeviceArray::from_slice(&gpu, &[1.0f32, 2.0, 3.0, 4.0]).unwrap();
    gpu.destroy();
    let e = gates::rot_kernel_device(&gpu, 4, &mut a, 1, 0.5).unwrap_err();
    assert!(matches!(e, GpuError::DeviceLost(_)), "{e}");
    assert!(matches!(a.read(), Err(GpuError::DeviceLost(_))));
    assert!(matches!(
        DeviceArray::from_slice(&gpu, &[1.0f32]),
        Err(GpuError::DeviceLost(_))
    ));
    let mut s = vec![1.0f32; 4];
    let e = gates::rot_kernel_gpu(&gpu, 4, &mut s, 1, 0.5).unwrap_err();
    assert!(e.to_string().contains("lost"), "{e}");
}

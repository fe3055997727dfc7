//! The generated kernels on a real wgpu device (Mesa's lavapipe in CI)
//! against the same kernels run on the CPU, one call per index.

use nilang_gpu::{bessel, gates, gather, math, noise, test_gpu, unchecked};
use nilang_runtime::gpu::GpuError;

fn close(a: &[f32], b: &[f32], tol: f32, what: &str) {
    assert_eq!(a.len(), b.len());
    for (i, (x, y)) in a.iter().zip(b).enumerate() {
        assert!(
            (x - y).abs() <= tol * (1.0 + y.abs()),
            "{what}[{i}]: GPU {x}, CPU {y}"
        );
    }
}

#[test]
fn swap_gate_agrees_with_cpu_and_undoes_itself() {
    let Some(mut gpu) = test_gpu() else { return };
    eprintln!("adapter: {}", gpu.adapter_name());
    // 2^12 amplitudes in dispatches of at most 8 workgroups of 64.
    gpu.set_max_workgroups(8);
    let n = 1 << 12;
    let state: Vec<f32> = noise(n, 1).iter().map(|&x| x as f32).collect();
    let (mask1, mask2) = (1 << 2, 1 << 9);
    let mut on_gpu = state.clone();
    gates::swap_kernel_gpu(&gpu, n, &mut on_gpu, mask1, mask2).unwrap();
    let mut on_cpu = state.clone();
    for i in 1..=n as i64 {
        gates::swap_kernel(i, &mut on_cpu, mask1, mask2).unwrap();
    }
    assert_eq!(on_gpu, on_cpu);
    assert_ne!(on_gpu, state, "the gate changed nothing");
    // The gate swaps the amplitudes of |..0..1..> and |..1..0..>.
    let b = 3 | mask2 as usize;
    assert_eq!(on_gpu[b ^ (mask1 | mask2) as usize], state[b]);
    gates::uncall_swap_kernel_gpu(&gpu, n, &mut on_gpu, mask1, mask2).unwrap();
    assert_eq!(on_gpu, state);
}

#[test]
fn rotation_gate_forward_inverse_and_f64() {
    let Some(gpu) = test_gpu() else { return };
    let n = 1 << 10;
    let state = noise(n, 2);
    let theta = 0.3_f64;
    let mask = 1 << 4;
    let mut s32: Vec<f32> = state.iter().map(|&x| x as f32).collect();
    let start32 = s32.clone();
    gates::rot_kernel_gpu(&gpu, n, &mut s32, mask, theta as f32).unwrap();
    let mut cpu32 = start32.clone();
    for i in 1..=n as i64 {
        gates::rot_kernel(i, &mut cpu32, mask, theta as f32).unwrap();
    }
    close(&s32, &cpu32, 1e-6, "rot f32");
    let norm = |v: &[f32]| v.iter().map(|x| x * x).sum::<f32>();
    assert!(
        (norm(&s32) - norm(&start32)).abs() < 1e-3,
        "a rotation keeps the norm"
    );
    gates::uncall_rot_kernel_gpu(&gpu, n, &mut s32, mask, theta as f32).unwrap();
    close(&s32, &start32, 1e-6, "rot then uncall");

    // f64 where the adapter offers SHADER_F64, a named error where not.
    let mut s64 = state.clone();
    match gates::rot_kernel_gpu(&gpu, n, &mut s64, mask, theta) {
        Ok(()) => {
            assert!(gpu.has_f64());
            let mut cpu64 = state.clone();
            for i in 1..=n as i64 {
                gates::rot_kernel(i, &mut cpu64, mask, theta).unwrap();
            }
            for (a, b) in s64.iter().zip(&cpu64) {
                assert!((a - b).abs() < 1e-14, "rot f64: {a} vs {b}");
            }
        }
        Err(e) => {
            assert!(!gpu.has_f64(), "{e}");
            assert!(e.to_string().contains("SHADER_F64"), "{e}");
        }
    }
    let no_f64 = nilang_runtime::gpu::Gpu::with_features(false, false).unwrap();
    let e = gates::rot_kernel_gpu(&no_f64, n, &mut s64, mask, theta).unwrap_err();
    assert!(
        matches!(
            e,
            GpuError::MissingFeature {
                feature: "SHADER_F64",
                ..
            }
        ),
        "{e}"
    );
}

fn bits32(x: &[f32]) -> Vec<u32> {
    x.iter().map(|v| v.to_bits()).collect()
}

/// A launcher that fails on the host (an adjoint of the wrong length, a
/// missing `SHADER_F64`) returns before it uploads or writes anything:
/// every argument, adjoints included, comes back bit-identical (the
/// rollback promise for device launchers).
#[test]
fn launchers_that_fail_on_the_host_leave_every_argument_as_passed() {
    let Some(gpu) = test_gpu() else { return };
    let n = 256;
    let mask = 1 << 3;
    let state: Vec<f32> = noise(n, 5).iter().map(|&x| x as f32).collect();
    let seed: Vec<f32> = noise(n - 1, 6).iter().map(|&x| x as f32).collect();
    let (mut s, mut b, mut t) = (state.clone(), seed.clone(), 0.25_f32);
    let e = gates::rot_kernel_adjoint_gpu(&gpu, n, &mut s, &mut b, mask, 0.7, &mut t).unwrap_err();
    assert!(matches!(e, GpuError::Length { .. }), "{e}");
    assert_eq!(bits32(&s), bits32(&state));
    assert_eq!(bits32(&b), bits32(&seed));
    assert_eq!(t.to_bits(), 0.25_f32.to_bits());

    let no_f64 = nilang_runtime::gpu::Gpu::with_features(false, false).unwrap();
    let state64 = noise(n, 7);
    let mut s64 = state64.clone();
    let e = gates::rot_kernel_gpu(&no_f64, n, &mut s64, mask, 0.7).unwrap_err();
    assert!(matches!(e, GpuError::MissingFeature { .. }), "{e}");
    let same = s64
        .iter()
        .zip(&state64)
        .all(|(a, b)| a.to_bits() == b.to_bits());
    assert!(same, "a failed f64 launch changed its state");
}

#[test]
fn rotation_adjoint_sums_theta_in_f32_and_f64() {
    let Some(gpu) = test_gpu() else { return };
    let n = 1 << 10;
    let mask = 1 << 3;
    let theta = 0.7_f32;
    let start: Vec<f32> = noise(n, 3).iter().map(|&x| x as f32).collect();
    let seed: Vec<f32> = noise(n, 4).iter().map(|&x| x as f32).collect();
    // Outputs of the forward kernel, then the reverse pass.
    let mut out = start.clone();
    gates::rot_kernel_gpu(&gpu, n, &mut out, mask, theta).unwrap();
    let (mut g_state, mut g_bar, mut g_theta) = (out.clone(), seed.clone(), 0.0f32);
    gates::rot_kernel_adjoint_gpu(&gpu, n, &mut g_state, &mut g_bar, mask, theta, &mut g_theta)
        .unwrap();
    let (mut c_state, mut c_bar, mut c_theta) = (out.clone(), seed.clone(), 0.0f32);
    for i in 1..=n as i64 {
        gates::rot_kernel_adjoint(i, &mut c_state, &mut c_bar, mask, theta, &mut c_theta).unwrap();
    }
    close(&g_state, &start, 1e-5, "state restored");
    close(&g_bar, &c_bar, 1e-5, "state_bar");
    assert!(
        (g_theta - c_theta).abs() < 1e-3 * (1.0 + c_theta.abs()),
        "theta_bar: GPU {g_theta}, CPU {c_theta}"
    );
    assert!(
        c_theta.abs() > 1e-3,
        "a gradient that could be zero by accident"
    );
    // θ's adjoint is summed per invocation in a fixed order, so f64 runs
    // too, and agrees with the CPU in f64.
    if gpu.has_f64() {
        let start: Vec<f64> = noise(n, 3);
        let seed: Vec<f64> = noise(n, 4);
        let mut out = start.clone();
        gates::rot_kernel_gpu(&gpu, n, &mut out, mask, 0.7).unwrap();
        let (mut gs, mut gb, mut gt) = (out.clone(), seed.clone(), 0.0f64);
        gates::rot_kernel_adjoint_gpu(&gpu, n, &mut gs, &mut gb, mask, 0.7, &mut gt).unwrap();
        let (mut cs, mut cb, mut ct) = (out.clone(), seed.clone(), 0.0f64);
        for i in 1..=n as i64 {
            gates::rot_kernel_adjoint(i, &mut cs, &mut cb, mask, 0.7, &mut ct).unwrap();
        }
        assert!(
            (gt - ct).abs() < 1e-12 * (1.0 + ct.abs()),
            "f64 θ_bar: GPU {gt}, CPU {ct}"
        );
        for i in 0..n {
            assert!((gs[i] - start[i]).abs() < 1e-12 && (gb[i] - cb[i]).abs() < 1e-12);
        }
    }
}

#[test]
fn gather_adjoint_sums_shared_reads() {
    let Some(gpu) = test_gpu() else { return };
    let n = 3000;
    let m = 7;
    let w: Vec<f32> = noise(n, 5).iter().map(|&x| x as f32).collect();
    let x: Vec<f32> = noise(m, 6).iter().map(|&x| x as f32).collect();
    let idx: Vec<i64> = (0..n as i64).map(|i| (i * 5) % m as i64 + 1).collect();
    let mut y = vec![0.0f32; n];
    gather::gather_gpu(&gpu, n, &mut y, &w, &x, &idx).unwrap();
    let mut y_cpu = vec![0.0f32; n];
    for i in 1..=n as i64 {
        gather::gather(i, &mut y_cpu, &w, &x, &idx).unwrap();
    }
    close(&y, &y_cpu, 1e-6, "gather");
    let y_bar = vec![1.0f32; n];
    let (mut gy, mut gyb, mut gwb, mut gxb) =
        (y.clone(), y_bar.clone(), vec![0.0; n], vec![0.0; m]);
    gather::gather_adjoint_gpu(&gpu, n, &mut gy, &mut gyb, &w, &mut gwb, &x, &mut gxb, &idx)
        .unwrap();
    let (mut cy, mut cyb, mut cwb, mut cxb) =
        (y.clone(), y_bar.clone(), vec![0.0; n], vec![0.0; m]);
    for i in 1..=n as i64 {
        gather::gather_adjoint(i, &mut cy, &mut cyb, &w, &mut cwb, &x, &mut cxb, &idx).unwrap();
    }
    close(&gy, &vec![0.0; n], 1e-6, "y restored");
    close(&gwb, &cwb, 1e-6, "w_bar");
    // Each x_bar[k] is a sum over ~430 invocations.
    close(&gxb, &cxb, 1e-4, "x_bar");
}

#[test]
fn bessel_batch_value_and_gradient_agree_with_cpu() {
    let Some(gpu) = test_gpu() else { return };
    let n = 4000;
    let z64: Vec<f64> = (0..n).map(|i| 0.05 + 2.0 * i as f64 / n as f64).collect();
    let z: Vec<f32> = z64.iter().map(|&x| x as f32).collect();
    let mut out = vec![0.0f32; n];
    bessel::besselj_batch_gpu(&gpu, n, &mut out, &z, 2).unwrap();
    let mut out_bar = vec![1.0f32; n];
    let mut z_bar = vec![0.0f32; n];
    let mut back = out.clone();
    bessel::besselj_batch_adjoint_gpu(&gpu, n, &mut back, &mut out_bar, &z, &mut z_bar, 2).unwrap();
    close(&back, &vec![0.0; n], 1e-6, "out restored");
    // The same kernel on the CPU in f32, without run-time checks (in f32 the
    // program is not reversible to their tolerance, 1e-8; the GPU has none).
    let (mut out_cpu, mut ob_cpu, mut zb_cpu) = (vec![0.0f32; n], vec![1.0f32; n], vec![0.0f32; n]);
    for i in 1..=n as i64 {
        unchecked::bessel::besselj_batch(i, &mut out_cpu, &z, 2).unwrap();
    }
    let mut back_cpu = out_cpu.clone();
    for i in 1..=n as i64 {
        unchecked::bessel::besselj_batch_adjoint(i, &mut back_cpu, &mut ob_cpu, &z, &mut zb_cpu, 2)
            .unwrap();
    }
    // WGSL lets a driver's f32 division and `pow` be off by a few ulp (the
    // H100's driver differs from the CPU by 4.5e-5 relative at z = 1.71, both
    // within 1e-4 of the f64 value, which is checked below).
    close(&out, &out_cpu, 1e-4, "J2, GPU f32 against CPU f32");
    let worst32 = z_bar
        .iter()
        .zip(&zb_cpu)
        .map(|(g, c)| (g - c).abs())
        .fold(0.0f32, f32::max);
    eprintln!("largest |J2' GPU f32 - CPU f32| over the batch: {worst32:e}");
    let (mut worst, mut worst_cpu) = (0.0f64, 0.0f64);
    for i in 0..n {
        let mut o = 0.0f64;
        bessel::ibesselj(&mut o, 2, z64[i], 1e-6).unwrap();
        let (mut g, mut ob, mut zb) = (0.0f64, 1.0f64, 0.0f64);
        bessel::ibesselj_grad(&mut g, &mut ob, 2, z64[i], &mut zb, 1e-6).unwrap();
        assert!(
            (out[i] as f64 - o).abs() < 1e-4,
            "J2({}): GPU {}, f64 {o}",
            z64[i],
            out[i]
        );
        worst = worst.max((z_bar[i] as f64 - zb).abs());
        worst_cpu = worst_cpu.max((zb_cpu[i] as f64 - zb).abs());
    }
    // Uncomputing in f32 loses digits (the reverse pass rebuilds every term
    // of the series from the next): the CPU in f32 is as far from f64 as the
    // GPU is. The exact check is the f64 one below.
    eprintln!("largest |J2' f32 - f64| over the batch: GPU {worst:e}, CPU {worst_cpu:e}");
    assert!(
        worst < 5e-2 && worst < 2.0 * worst_cpu + 1e-3,
        "J2' off by {worst}"
    );
    if gpu.has_f64() {
        let mut out64 = vec![0.0f64; n];
        bessel::besselj_batch_gpu(&gpu, n, &mut out64, &z64, 2).unwrap();
        let mut ob = vec![1.0f64; n];
        let mut zb = vec![0.0f64; n];
        let mut back = out64.clone();
        bessel::besselj_batch_adjoint_gpu(&gpu, n, &mut back, &mut ob, &z64, &mut zb, 2).unwrap();
        let mut worst64 = 0.0f64;
        for i in 0..n {
            let mut one = [0.0f64];
            let zi = [z64[i]];
            // Index 1 of one-element arrays: the kernel body on the CPU.
            bessel::besselj_batch(1, &mut one, &zi, 2).unwrap();
            let mut ob1 = [1.0f64];
            let mut zb1 = [0.0f64];
            bessel::besselj_batch_adjoint(1, &mut one, &mut ob1, &zi, &mut zb1, 2).unwrap();
            let mut value = [0.0f64];
            bessel::besselj_batch(1, &mut value, &zi, 2).unwrap();
            assert!((out64[i] - value[0]).abs() < 1e-12, "J2 f64 at {}", z64[i]);
            worst64 = worst64.max((zb[i] - zb1[0]).abs());
        }
        eprintln!("largest |J2' GPU f64 - CPU f64| over the batch: {worst64:e}");
        assert!(worst64 < 1e-9, "f64 J2' off by {worst64}");
    }
    // The paper's value.
    let k = z64.iter().position(|&x| (x - 1.0).abs() < 1e-9);
    if let Some(k) = k {
        assert!((out[k] as f64 - 0.11490348493190048).abs() < 1e-4);
    }
}

#[test]
fn elementary_functions_in_f64_and_f32() {
    let Some(gpu) = test_gpu() else { return };
    // Large arguments too, for the argument reduction of sin, cos and exp.
    let mut x: Vec<f64> = noise(500, 7).iter().map(|v| 3.0 * v).collect();
    x.extend([0.0, 1e-9, -1e-9, 40.0, -40.0, 700.0, -700.0, 1e4, 0.5, -0.5]);
    let n = x.len();
    let mut cpu = vec![0.0f64; 12 * n];
    for i in 1..=n as i64 {
        math::elementary(i, &mut cpu, &x).unwrap();
    }
    let names = [
        "sin", "cos", "tan", "exp", "log", "pow", "sinh", "cosh", "tanh", "atan", "asin", "atan2",
    ];
    if gpu.has_f64() {
        let mut out = vec![0.0f64; 12 * n];
        math::elementary_gpu(&gpu, n, &mut out, &x).unwrap();
        // The worst error per function, for |x| <= 3 and for the large
        // arguments apart (those measure the argument reduction).
        let mut worst = [[0.0f64; 2]; 12];
        let mut failures = Vec::new();
        for (k, (g, c)) in out.iter().zip(&cpu).enumerate() {
            let tol = 4e-15 * c.abs().max(1.0) * if k % 12 == 2 { 1e3 } else { 1.0 };
            let large = usize::from(x[k / 12].abs() > 3.0);
            let w = &mut worst[k % 12][large];
            *w = w.max((g - c).abs() / c.abs().max(1.0));
            if !(g == c || (g - c).abs() <= tol || g.is_nan() && c.is_nan()) {
                failures.push(format!(
                    "{}({}): GPU {g}, CPU {c}",
                    names[k % 12],
                    x[k / 12]
                ));
            }
        }
        eprintln!("f64, largest |GPU - CPU| / max(1, |CPU|), for |x| <= 3 and beyond:");
        for (name, [small, large]) in names.iter().zip(worst) {
            eprintln!("  {name}: {small:e} {large:e}");
        }
        assert!(failures.is_empty(), "{}", failures.join("\n"));
        // The reverse pass in f64: the derivatives of all twelve.
        let mut back = out.clone();
        let mut out_bar = vec![1.0f64; 12 * n];
        let mut x_bar = vec![0.0f64; n];
        math::elementary_adjoint_gpu(&gpu, n, &mut back, &mut out_bar, &x, &mut x_bar).unwrap();
        let mut cb = cpu.clone();
        let mut c_out_bar = vec![1.0f64; 12 * n];
        let mut c_x_bar = vec![0.0f64; n];
        for i in 1..=n as i64 {
            math::elementary_adjoint(i, &mut cb, &mut c_out_bar, &x, &mut c_x_bar).unwrap();
        }
        for (i, (g, c)) in x_bar.iter().zip(&c_x_bar).enumerate() {
            assert!(
                g == c || (g - c).abs() <= 1e-12 * c.abs().max(1.0),
                "d/dx at {}: GPU {g}, CPU {c}",
                x[i]
            );
        }
    }
    // f32: the driver's own functions, on a moderate range.
    let small: Vec<f32> = x
        .iter()
        .filter(|v| v.abs() < 5.0)
        .map(|&v| v as f32)
        .collect();
    let m = small.len();
    let mut out = vec![0.0f32; 12 * m];
    math::elementary_gpu(&gpu, m, &mut out, &small).unwrap();
    let mut cpu32 = vec![0.0f32; 12 * m];
    for i in 1..=m as i64 {
        math::elementary(i, &mut cpu32, &small).unwrap();
    }
    for (k, (g, c)) in out.iter().zip(&cpu32).enumerate() {
        // Vulkan lets drivers approximate tan and asin loosely (lavapipe is
        // off by 3e-4 in asin near 0.9).
        let loose = matches!(k % 12, 2 | 10);
        let tol = c.abs().max(1.0) * if loose { 1e-3 } else { 1e-5 };
        assert!(
            (g - c).abs() <= tol,
            "{} f32({}): GPU {g}, CPU {c}",
            names[k % 12],
            small[k / 12]
        );
    }
}

/// A kernel whose parameters take the launchers' own names, `n` and `gpu`
/// (the launchers then use `__n` and `__gpu`), forwards and backwards.
#[test]
fn kernel_parameters_named_n_and_gpu() {
    let Some(gpu) = test_gpu() else { return };
    let len = 100;
    let x: Vec<f32> = noise(len, 11).iter().map(|&v| v as f32).collect();
    let mut y = vec![0.5f32; len];
    gather::scale_by_gpu(&gpu, len, &mut y, &x, 2.0, 3.0).unwrap();
    for (yi, xi) in y.iter().zip(&x) {
        assert!((yi - (0.5 + 6.0 * xi)).abs() < 1e-6);
    }
    let (mut y_bar, mut x_bar) = (vec![1.0f32; len], vec![0.0f32; len]);
    let (mut n_bar, mut gpu_bar) = (0.0f32, 0.0f32);
    gather::scale_by_adjoint_gpu(
        &gpu,
        len,
        &mut y,
        &mut y_bar,
        &x,
        &mut x_bar,
        2.0,
        3.0,
        &mut n_bar,
        &mut gpu_bar,
    )
    .unwrap();
    let sum: f32 = x.iter().sum();
    assert!(y.iter().all(|&v| (v - 0.5).abs() < 1e-6), "y restored");
    assert!(x_bar.iter().all(|&v| (v - 6.0).abs() < 1e-6));
    assert!((n_bar - 3.0 * sum).abs() < 1e-4, "n_bar {n_bar}");
    assert!((gpu_bar - 2.0 * sum).abs() < 1e-4, "gpu_bar {gpu_bar}");
}

/// A product of twelve factors (a long product: its reverse pass binds
/// prefix and suffix products in a function array of the shader): the GPU
/// adjoint agrees with the CPU's, and each x_bar with the product of the
/// other factors it appears with.
#[test]
fn a_long_product_differentiates_on_the_gpu() {
    let Some(gpu) = test_gpu() else { return };
    let n = 256;
    let x: Vec<f32> = noise(n + 11, 9)
        .iter()
        .map(|&v| 1.0 + 0.1 * v as f32)
        .collect();
    let mut y = vec![0.0_f32; n];
    math::product12_gpu(&gpu, n, &mut y, &x).unwrap();
    let y_bar: Vec<f32> = noise(n, 10).iter().map(|&v| v as f32).collect();
    let (mut gy, mut gyb, mut gxb) = (y.clone(), y_bar.clone(), vec![0.0_f32; n + 11]);
    math::product12_adjoint_gpu(&gpu, n, &mut gy, &mut gyb, &x, &mut gxb).unwrap();
    let (mut cy, mut cyb, mut cxb) = (y.clone(), y_bar.clone(), vec![0.0_f32; n + 11]);
    for i in 1..=n as i64 {
        math::product12_adjoint(i, &mut cy, &mut cyb, &x, &mut cxb).unwrap();
    }
    close(&gy, &vec![0.0; n], 1e-5, "y restored");
    close(&gxb, &cxb, 1e-4, "x_bar");
    // By hand: x_bar[j] = sum over the products x[j] is in of y_bar[i]
    // times the other eleven factors.
    let mut want = vec![0.0_f64; n + 11];
    for i in 0..n {
        for k in 0..12 {
            let others: f64 = (0..12)
                .filter(|&m| m != k)
                .map(|m| x[i + m] as f64)
                .product();
            want[i + k] += y_bar[i] as f64 * others;
        }
    }
    let want: Vec<f32> = want.iter().map(|&v| v as f32).collect();
    close(&gxb, &want, 1e-4, "x_bar by hand");
}

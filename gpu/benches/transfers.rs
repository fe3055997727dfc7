//! The GPU workloads with host slices (every launch copies its arrays in
//! and out) and on device-resident arrays (inputs uploaded once, one
//! read-back), with the share of each one's time spent on copies and the
//! copies counted. Run with `cargo bench -p nilang-gpu --bench transfers`;
//! benchmarks/HISTORY.md has runs on lavapipe and on an NVIDIA GPU; BENCHMARKS.md the latest.
//!
//! For each workload three times are taken (median of `RUNS` runs after
//! one warm-up that compiles the pipelines):
//! - slices: the slice launchers, copies included;
//! - device: the device launchers, with the final read-back;
//! - compute: the same launches on arrays already on the device, waited
//!   for, nothing copied either way.
//!
//! The share of time in transfers is `1 - compute / total` of each. The
//! CPU column is the generated CPU code for the same result (`f64`,
//! without run-time checks, one core).

use std::time::{Duration, Instant};

use nilang_gpu::device::{BaDevice, Circuit, CircuitState, bessel_gradients};
use nilang_gpu::{BaBlocks, ba_jacobian_gpu, bessel, test_gpu, unchecked};
use nilang_runtime::gpu::{DeviceArray, Gpu, GpuFloat, Transfers};

#[path = "../tests/support/mod.rs"]
mod support;

const RUNS: usize = 15;

fn median(mut f: impl FnMut()) -> Duration {
    f();
    let mut times: Vec<Duration> = (0..RUNS)
        .map(|_| {
            let t = Instant::now();
            f();
            t.elapsed()
        })
        .collect();
    times.sort();
    times[RUNS / 2]
}

fn counted(gpu: &Gpu, f: impl FnOnce()) -> Transfers {
    let a = gpu.transfers();
    f();
    let b = gpu.transfers();
    Transfers {
        uploads: b.uploads - a.uploads,
        upload_bytes: b.upload_bytes - a.upload_bytes,
        downloads: b.downloads - a.downloads,
        download_bytes: b.download_bytes - a.download_bytes,
    }
}

/// The copies and the median time of the slice run and of the device run.
fn two_ways<A, B>(
    gpu: &Gpu,
    mut slices: impl FnMut() -> A,
    mut device: impl FnMut() -> B,
) -> [(Transfers, Duration); 2] {
    let mut slices = || drop(slices());
    let mut device = || drop(device());
    let ts = counted(gpu, &mut slices);
    let td = counted(gpu, &mut device);
    [(ts, median(&mut slices)), (td, median(&mut device))]
}

fn ms(d: Duration) -> String {
    format!("{:.3} ms", d.as_secs_f64() * 1e3)
}

fn row(
    name: &str,
    slices: Duration,
    device: Duration,
    compute: Duration,
    ts: Transfers,
    td: Transfers,
    cpu: Option<Duration>,
) {
    let share = |t: Duration| 100.0 * (1.0 - compute.as_secs_f64() / t.as_secs_f64()).max(0.0);
    let copies = |t: Transfers| {
        format!(
            "{} up ({:.1} MB), {} down ({:.1} MB)",
            t.uploads,
            t.upload_bytes as f64 / 1e6,
            t.downloads,
            t.download_bytes as f64 / 1e6
        )
    };
    println!(
        "| {name} | {} | {:.0}% | {} | {} | {:.0}% | {} | {} | {} |",
        ms(slices),
        share(slices),
        copies(ts),
        ms(device),
        share(device),
        copies(td),
        ms(compute),
        cpu.map_or("".into(), |c| format!(
            "{} ({:.1}x the device run)",
            ms(c),
            c.as_secs_f64() / device.as_secs_f64()
        )),
    );
}

fn bessel_rows<T: GpuFloat + Default>(gpu: &Gpu, label: &str, cpu: Option<Duration>) {
    let n = 4000;
    let z: Vec<T> = (0..n)
        .map(|i| T::from_f64(0.05 + 2.0 * i as f64 / n as f64))
        .collect();
    let slices = || {
        let mut o = vec![T::default(); n];
        bessel::besselj_batch_gpu(gpu, n, &mut o, &z, 2).unwrap();
        let (mut ob, mut zb) = (vec![nilang_runtime::one::<T>(); n], vec![T::default(); n]);
        bessel::besselj_batch_adjoint_gpu(gpu, n, &mut o, &mut ob, &z, &mut zb, 2).unwrap();
        zb
    };
    let dz = DeviceArray::from_slice(gpu, &z).unwrap();
    let ones = DeviceArray::from_slice(gpu, &vec![nilang_runtime::one::<T>(); n]).unwrap();
    let (mut out, mut seed, mut zb) = (
        DeviceArray::zeros(gpu, n).unwrap(),
        DeviceArray::zeros(gpu, n).unwrap(),
        DeviceArray::zeros(gpu, n).unwrap(),
    );
    let mut device = || {
        bessel_gradients(gpu, 2, &dz, &ones, &mut out, &mut seed, &mut zb).unwrap();
        zb.read().unwrap()
    };
    assert_eq!(slices(), device());
    let [(ts, t_slices), (td, t_device)] = two_ways(gpu, slices, device);
    let t_compute = median(|| {
        bessel_gradients(gpu, 2, &dz, &ones, &mut out, &mut seed, &mut zb).unwrap();
        gpu.wait().unwrap();
    });
    row(
        &format!("Bessel J2, 4,000 gradients, {label}"),
        t_slices,
        t_device,
        t_compute,
        ts,
        td,
        cpu,
    );
}

fn ba_rows<T: GpuFloat + Default + PartialEq + std::fmt::Debug>(
    gpu: &Gpu,
    b: &BaBlocks<T>,
    label: &str,
    cpu: Option<Duration>,
) {
    let slices = || ba_jacobian_gpu(gpu, b).unwrap();
    let mut dev = BaDevice::new(gpu, b).unwrap();
    assert_eq!(slices(), dev.jacobian(gpu).unwrap());
    let [(ts, t_slices), (td, t_device)] = two_ways(gpu, slices, || dev.jacobian(gpu).unwrap());
    let t_compute = median(|| {
        dev.queue(gpu).unwrap();
        gpu.wait().unwrap();
    });
    row(
        &format!("ba1 Jacobian (31,843 blocks), {label}"),
        t_slices,
        t_device,
        t_compute,
        ts,
        td,
        cpu,
    );
}

fn circuit_rows<T: GpuFloat + Default + PartialEq + std::fmt::Debug>(
    gpu: &Gpu,
    c: Circuit,
    steps: usize,
    label: &str,
    cpu: Option<Duration>,
) {
    let n = c.amplitudes();
    let mut psi0 = vec![T::default(); n];
    psi0[0] = nilang_runtime::one::<T>();
    let target: Vec<T> = (0..n)
        .map(|i| T::from_f64(((i * 7919) % 101) as f64 / 101.0 - 0.5))
        .collect();
    let theta0: Vec<T> = (0..c.gates())
        .map(|g| T::from_f64(0.1 * g as f64))
        .collect();
    let rate = T::from_f64(0.01);
    let slices = || {
        c.train_slices(gpu, &psi0, &target, &theta0, rate, steps)
            .unwrap()
    };
    let device = || {
        c.train_device(gpu, &psi0, &target, &theta0, rate, steps)
            .unwrap()
    };
    if gpu.reduction() == nilang_runtime::gpu::Reduction::Deterministic {
        assert_eq!(slices(), device());
    }
    let [(ts, t_slices), (td, t_device)] = two_ways(gpu, slices, device);
    let mut state = CircuitState::new(gpu, &c, &psi0, &target, &theta0).unwrap();
    let t_compute = median(|| {
        c.queue_steps(gpu, &mut state, rate, steps).unwrap();
        gpu.wait().unwrap();
    });
    row(
        &format!(
            "training loop, {} qubits x {} layers ({} gates), {steps} steps, {label}",
            c.qubits,
            c.layers,
            c.gates()
        ),
        t_slices,
        t_device,
        t_compute,
        ts,
        td,
        cpu,
    );
}

fn main() {
    // Divan's flags (`--bench`) are accepted and ignored.
    let Some(mut gpu) = test_gpu() else { return };
    println!("adapter: {}\n", gpu.adapter_name());
    println!(
        "| workload | slices | in copies | copies | device arrays | in copies | copies | compute alone | CPU |"
    );
    println!("| --- | --- | --- | --- | --- | --- | --- | --- | --- |");

    let cpu_bessel = {
        let n = 4000;
        let z: Vec<f64> = (0..n).map(|i| 0.05 + 2.0 * i as f64 / n as f64).collect();
        median(|| {
            for &zi in &z {
                let (mut g, mut ob, mut zb) = (0.0f64, 1.0f64, 0.0f64);
                let mut o = 0.0;
                unchecked::bessel::ibesselj(&mut o, 2, zi, 1e-6).unwrap();
                g += o;
                unchecked::bessel::ibesselj_grad(&mut g, &mut ob, 2, zi, &mut zb, 1e-6).unwrap();
                std::hint::black_box(zb);
            }
        })
    };
    bessel_rows::<f32>(&gpu, "f32", Some(cpu_bessel));
    if gpu.has_f64() {
        bessel_rows::<f64>(&gpu, "f64", Some(cpu_bessel));
    }

    let input = support::ba1();
    let cpu_ba = {
        let mut jac = nilang_adbench::ba::BaJacobian::new(&input);
        median(|| {
            nilang_adbench::ba::nil_unchecked_jacobian(&input, &mut jac).unwrap();
            std::hint::black_box(&jac);
        })
    };
    let hand_ba = median(|| {
        for (k, &(c, q)) in input.obs.iter().enumerate() {
            let feat = &input.feats[2 * k..2 * k + 2];
            std::hint::black_box(nilang_adbench::ba::manual_block(
                input.cam(c),
                input.point(q),
                input.weights[k],
                feat,
            ));
        }
    });
    ba_rows(
        &gpu,
        &support::blocks(&input, |v| v as f32),
        "f32",
        Some(cpu_ba),
    );
    if gpu.has_f64() {
        ba_rows(&gpu, &support::blocks(&input, |v| v), "f64", Some(cpu_ba));
    }

    let c = Circuit {
        qubits: 14,
        layers: 2,
    };
    circuit_rows::<f32>(&gpu, c, 5, "f32", None);
    gpu.set_reduction(nilang_runtime::gpu::Reduction::Atomic);
    circuit_rows::<f32>(&gpu, c, 5, "f32, atomic sums", None);
    gpu.set_reduction(nilang_runtime::gpu::Reduction::Deterministic);
    if gpu.has_f64() {
        circuit_rows::<f64>(&gpu, c, 5, "f64", None);
    }
    println!(
        "\nCPU: the generated CPU code without run-time checks, in f64, on one core: Bessel is `ibesselj_grad` per input (series to 1e-6); BA is `nil_unchecked_jacobian` (all blocks, the sparse matrix filled). ADBench's hand-written BA blocks (`manual_block`) take {} on the same core.",
        ms(hand_ba)
    );
}

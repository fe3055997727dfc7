//! The launcher on a hand-written kernel: uniforms, buffers in and out,
//! several dispatches for one launch. Skips without an adapter unless
//! `NILANG_REQUIRE_GPU=1`.
#![cfg(feature = "gpu")]

use nilang_runtime::gpu::{DeviceArray, Gpu, GpuError, Kernel, Launch};

fn gpu() -> Option<Gpu> {
    match Gpu::new() {
        Ok(g) => Some(g),
        Err(e) if std::env::var("NILANG_REQUIRE_GPU").as_deref() != Ok("1") => {
            eprintln!("skipped: {e} (set NILANG_REQUIRE_GPU=1 to fail instead)");
            None
        }
        Err(e) => panic!("NILANG_REQUIRE_GPU=1 but {e}"),
    }
}

const AXPY: &str = r#"
struct Params { n: u32, first: u32, a: f32, k: i32 }
@group(0) @binding(0) var<uniform> params: Params;
@group(0) @binding(1) var<storage, read_write> y: array<f32>;
@group(0) @binding(2) var<storage, read> x: array<f32>;
@compute @workgroup_size(4)
fn main(@builtin(global_invocation_id) gid: vec3<u32>) {
    let i = params.first + gid.x;
    if (i >= params.n) { return; }
    y[i] += params.a * x[i] + f32(params.k);
}
"#;

fn axpy() -> Kernel {
    Kernel {
        name: "axpy",
        wgsl: AXPY,
        f64: false,
        float_atomics: false,
        workgroup_size: 4,
        reduce: &[],
    }
}

#[test]
fn launches_in_several_dispatches() {
    let Some(mut gpu) = gpu() else { return };
    eprintln!("adapter: {}", gpu.adapter_name());
    // 1003 invocations in dispatches of at most 3 workgroups of 4.
    gpu.set_max_workgroups(3);
    let n = 1003;
    let x: Vec<f32> = (0..n).map(|i| i as f32).collect();
    let mut y: Vec<f32> = (0..n).map(|i| 0.5 * i as f32).collect();
    let mut d_y = DeviceArray::from_slice(&gpu, &y).unwrap();
    let d_x = DeviceArray::from_slice(&gpu, &x).unwrap();
    let mut args = Launch::new();
    args.scalar(2.0f32).unwrap();
    args.scalar(7i64).unwrap();
    args.array_mut("y", &mut d_y);
    args.array("x", &d_x);
    gpu.run(&axpy(), n, args).unwrap();
    d_y.read_into(&mut y).unwrap();
    for (i, v) in y.iter().enumerate() {
        assert_eq!(*v, 2.5 * i as f32 + 7.0, "element {i}");
    }
}

#[test]
fn missing_feature_is_named() {
    // A device opened without SHADER_F64, as on an adapter that lacks it.
    let Some(_) = gpu() else { return };
    let gpu = Gpu::with_features(false, false).unwrap();
    assert!(!gpu.has_f64());
    let kernel = Kernel {
        f64: true,
        ..axpy()
    };
    let e = gpu.run(&kernel, 1, Launch::new()).unwrap_err();
    assert!(matches!(
        e,
        GpuError::MissingFeature {
            feature: "SHADER_F64",
            ..
        }
    ));
    assert!(e.to_string().contains("SHADER_F64"), "{e}");
    assert!(e.to_string().contains("axpy"), "{e}");
}

#[test]
fn integers_that_do_not_fit_are_errors() {
    let mut args = Launch::new();
    let e = args.scalar(1i64 << 40).unwrap_err();
    assert!(e.to_string().contains("does not fit"), "{e}");
}

#[test]
fn bad_shader_is_an_error_not_a_panic() {
    let Some(gpu) = gpu() else { return };
    let kernel = Kernel {
        name: "broken",
        wgsl: "this is not wgsl",
        ..axpy()
    };
    let e = gpu.run(&kernel, 1, Launch::new()).unwrap_err();
    assert!(e.to_string().contains("broken"), "{e}");
}

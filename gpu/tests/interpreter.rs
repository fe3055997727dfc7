//! The reference interpreter (`nilang-interp`, `Interpreter::launch` and
//! `launch_gradient`) against the generated kernels, forwards, uncalled and
//! through their reverse passes:
//!
//! - the kernels' CPU form (one generated call per index), in `f64`: the
//!   same bits, since both run the same arithmetic in the same order;
//! - the WGSL shaders on a wgpu device (Mesa's lavapipe in CI), in `f32`:
//!   within the tolerances of `kernels.rs`, since a GPU's `sin`, `exp` and
//!   powers are not Rust's.

use std::rc::Rc;

use nilang_analysis::db::{self, RootDatabase, SourceFile};
use nilang_gpu::{bessel, gates, gather, math, noise, test_gpu};
use nilang_interp::{Direction, Interpreter, Value};

/// The crate's `.nil` files as one project, as its build script compiles
/// them.
fn project(db: &RootDatabase) -> db::Project {
    let dir = env!("CARGO_MANIFEST_DIR");
    let mut paths: Vec<_> = std::fs::read_dir(dir)
        .unwrap()
        .map(|e| e.unwrap().path())
        .filter(|p| p.extension().is_some_and(|e| e == "nil"))
        .collect();
    paths.sort();
    let files = paths
        .iter()
        .map(|p| {
            let name = format!("gpu/{}", p.file_name().unwrap().to_string_lossy());
            SourceFile::new(db, name, std::fs::read_to_string(p).unwrap())
        })
        .collect();
    db::project_with_std(db, files, Vec::new())
}

/// A float array in the interpreter's values, of `f64` or `f32` elements.
trait Float: Copy + PartialEq + std::fmt::Debug {
    fn value(self) -> Value;
    fn of(v: &Value) -> Self;
    fn bits(self) -> u64;
}

impl Float for f64 {
    fn value(self) -> Value {
        Value::F64(self)
    }
    fn of(v: &Value) -> f64 {
        match v {
            Value::F64(x) => *x,
            v => panic!("not an f64: {v:?}"),
        }
    }
    fn bits(self) -> u64 {
        self.to_bits()
    }
}

impl Float for f32 {
    fn value(self) -> Value {
        Value::F32(self)
    }
    fn of(v: &Value) -> f32 {
        match v {
            Value::F32(x) => *x,
            v => panic!("not an f32: {v:?}"),
        }
    }
    fn bits(self) -> u64 {
        self.to_bits() as u64
    }
}

fn array<T: Float>(xs: &[T]) -> Value {
    Value::Array(Rc::new(xs.iter().map(|&x| x.value()).collect()))
}

fn floats<T: Float>(v: &Value) -> Vec<T> {
    match v {
        Value::Array(items) => items.iter().map(T::of).collect(),
        v => panic!("not an array: {v:?}"),
    }
}

fn integers(xs: &[i64]) -> Value {
    Value::Array(Rc::new(xs.iter().map(|&x| Value::int(x)).collect()))
}

/// Launches `kernel` over `1..=n` in the interpreter and returns the
/// parameter at `changed` after the launch.
fn launched<T: Float>(
    kernel: &str,
    n: usize,
    args: Vec<Value>,
    changed: usize,
    direction: Direction,
) -> Vec<T> {
    let out = launch(kernel, n, args, direction, 1e-8).unwrap_or_else(|e| panic!("{kernel}: {e}"));
    floats(&out[changed])
}

/// The interpreter's launch of `kernel`, its checks at tolerance `atol`.
fn launch(
    kernel: &str,
    n: usize,
    args: Vec<Value>,
    direction: Direction,
    atol: f64,
) -> Result<Vec<Value>, nilang_interp::Error> {
    let db = RootDatabase::default();
    let p = project(&db);
    let mut interpreter = Interpreter::new(&db, p);
    interpreter.atol = atol;
    interpreter.launch(kernel, n, args, direction)
}

fn same_bits<T: Float>(interpreted: &[T], generated: &[T], what: &str) {
    assert_eq!(interpreted.len(), generated.len(), "{what}");
    for (k, (a, b)) in interpreted.iter().zip(generated).enumerate() {
        assert_eq!(
            a.bits(),
            b.bits(),
            "{what}[{k}]: interpreted {a:?}, generated {b:?}"
        );
    }
}

fn close(interpreted: &[f32], gpu: &[f32], tol: f32, what: &str) {
    assert_eq!(interpreted.len(), gpu.len(), "{what}");
    for (k, (a, b)) in interpreted.iter().zip(gpu).enumerate() {
        assert!(
            (a - b).abs() <= tol * (1.0 + b.abs()),
            "{what}[{k}]: interpreted {a}, GPU {b}"
        );
    }
}

/// The kernels' arguments: one state, one batch of inputs.
struct Inputs<T> {
    n: usize,
    state: Vec<T>,
    x: Vec<T>,
    z: Vec<T>,
    idx: Vec<i64>,
}

fn inputs<T: Float>(conv: impl Fn(f64) -> T) -> Inputs<T> {
    let n = 256;
    Inputs {
        n,
        state: noise(n, 11).into_iter().map(&conv).collect(),
        // Twelve more than n, for `product12`'s window.
        x: noise(n + 12, 12)
            .into_iter()
            .map(|v| conv(2.0 * v))
            .collect(),
        z: noise(n, 13).into_iter().map(|v| conv(1.0 + v)).collect(),
        idx: (0..n as i64).map(|i| (i * 7) % 31 + 1).collect(),
    }
}

#[test]
fn the_interpreter_launches_each_kernel_as_its_cpu_form_runs_it_to_the_bit() {
    let s = inputs(|v| v);
    let n = s.n;
    let (mask1, mask2, mask, theta) = (1 << 2, 1 << 6, 1 << 3, 0.7);

    // SWAP and rotation gates, forwards then uncalled from the result.
    let mut cpu = s.state.clone();
    for i in 1..=n as i64 {
        gates::swap_kernel(i, &mut cpu, mask1, mask2).unwrap();
    }
    let args = |st: &[f64]| vec![array(st), Value::int(mask1), Value::int(mask2)];
    let ours: Vec<f64> = launched("swap_kernel", n, args(&s.state), 0, Direction::Forward);
    same_bits(&ours, &cpu, "swap_kernel");
    assert_ne!(ours, s.state, "the gate changed nothing");
    let back: Vec<f64> = launched("swap_kernel", n, args(&cpu), 0, Direction::Backward);
    same_bits(&back, &s.state, "uncall swap_kernel");

    let mut cpu = s.state.clone();
    for i in 1..=n as i64 {
        gates::rot_kernel(i, &mut cpu, mask, theta).unwrap();
    }
    let args = |st: &[f64]| vec![array(st), Value::int(mask), Value::F64(theta)];
    let ours: Vec<f64> = launched("rot_kernel", n, args(&s.state), 0, Direction::Forward);
    same_bits(&ours, &cpu, "rot_kernel");
    let mut cpu_back = cpu.clone();
    for i in 1..=n as i64 {
        gates::uncall_rot_kernel(i, &mut cpu_back, mask, theta).unwrap();
    }
    let back: Vec<f64> = launched("rot_kernel", n, args(&cpu), 0, Direction::Backward);
    same_bits(&back, &cpu_back, "uncall rot_kernel");

    // A gathered read.
    let mut cpu = vec![0.0; n];
    for i in 1..=n as i64 {
        gather::gather(i, &mut cpu, &s.state, &s.x, &s.idx).unwrap();
    }
    let args = vec![
        array(&vec![0.0; n]),
        array(&s.state),
        array(&s.x),
        integers(&s.idx),
    ];
    let ours: Vec<f64> = launched("gather", n, args, 0, Direction::Forward);
    same_bits(&ours, &cpu, "gather");

    // Twelve elementary functions of each input.
    let mut cpu = vec![0.0; 12 * n];
    for i in 1..=n as i64 {
        math::elementary(i, &mut cpu, &s.x).unwrap();
    }
    let args = vec![array(&vec![0.0; 12 * n]), array(&s.x)];
    let ours: Vec<f64> = launched("elementary", n, args, 0, Direction::Forward);
    same_bits(&ours, &cpu, "elementary");

    // A product of twelve factors.
    let mut cpu = vec![0.0; n];
    for i in 1..=n as i64 {
        math::product12(i, &mut cpu, &s.x).unwrap();
    }
    let args = vec![array(&vec![0.0; n]), array(&s.x)];
    let ours: Vec<f64> = launched("product12", n, args, 0, Direction::Forward);
    same_bits(&ours, &cpu, "product12");

    // The Bessel series over a batch: calls, a loop and ancillas.
    let mut cpu = vec![0.0; n];
    for i in 1..=n as i64 {
        bessel::besselj_batch(i, &mut cpu, &s.z, 2).unwrap();
    }
    let args = vec![array(&vec![0.0; n]), array(&s.z), Value::int(2)];
    let ours: Vec<f64> = launched("besselj_batch", n, args, 0, Direction::Forward);
    same_bits(&ours, &cpu, "besselj_batch");
}

/// The interpreter's gradient of a launch against the kernels' generated
/// reverse passes (their CPU form, one call per index after the forward
/// calls), every result seeded 1: within 1e-12 relative, since adjoints
/// are sums the two may add in another order.
#[test]
fn the_interpreters_gradient_of_a_launch_agrees_with_the_generated_reverse_passes() {
    let s = inputs(|v| v);
    let n = s.n;
    let gradient = |kernel: &str, args: Vec<Value>, seed: (&str, Value)| -> Vec<Value> {
        let db = RootDatabase::default();
        let p = project(&db);
        let mut interpreter = Interpreter::new(&db, p);
        interpreter
            .launch_gradient(kernel, n, args, &[(seed.0.to_string(), seed.1)])
            .unwrap_or_else(|e| panic!("{kernel}: {e}"))
            .1
    };
    let near = |ours: &[f64], theirs: &[f64], what: &str| {
        assert_eq!(ours.len(), theirs.len(), "{what}");
        assert!(
            theirs.iter().any(|&b| b != 0.0),
            "{what}: no adjoint at all"
        );
        for (k, (a, b)) in ours.iter().zip(theirs).enumerate() {
            assert!(
                (a - b).abs() <= 1e-12 * b.abs().max(1.0),
                "{what}[{k}]: interpreted {a}, generated {b}"
            );
        }
    };

    // Twelve elementary functions: x̄ collects the twelve derivatives.
    let mut out = vec![0.0; 12 * n];
    for i in 1..=n as i64 {
        math::elementary(i, &mut out, &s.x).unwrap();
    }
    let (mut out_bar, mut x_bar) = (vec![1.0; 12 * n], vec![0.0; n + 12]);
    for i in 1..=n as i64 {
        math::elementary_adjoint(i, &mut out, &mut out_bar, &s.x, &mut x_bar).unwrap();
    }
    let args = vec![array(&vec![0.0; 12 * n]), array(&s.x)];
    let grads = gradient("elementary", args, ("out", array(&vec![1.0; 12 * n])));
    near(&floats(&grads[1]), &x_bar, "elementary x̄");

    // A 12-factor product: each x[j] is read by twelve invocations.
    let mut y = vec![0.0; n];
    for i in 1..=n as i64 {
        math::product12(i, &mut y, &s.x).unwrap();
    }
    let (mut y_bar, mut x_bar) = (vec![1.0; n], vec![0.0; n + 12]);
    for i in 1..=n as i64 {
        math::product12_adjoint(i, &mut y, &mut y_bar, &s.x, &mut x_bar).unwrap();
    }
    let args = vec![array(&vec![0.0; n]), array(&s.x)];
    let grads = gradient("product12", args, ("y", array(&vec![1.0; n])));
    near(&floats(&grads[1]), &x_bar, "product12 x̄");

    // A gathered read: x̄ sums over the invocations that read each x[j].
    let mut y = vec![0.0; n];
    for i in 1..=n as i64 {
        gather::gather(i, &mut y, &s.state, &s.x, &s.idx).unwrap();
    }
    let (mut y_bar, mut w_bar, mut x_bar) = (vec![1.0; n], vec![0.0; n], vec![0.0; n + 12]);
    for i in 1..=n as i64 {
        gather::gather_adjoint(
            i, &mut y, &mut y_bar, &s.state, &mut w_bar, &s.x, &mut x_bar, &s.idx,
        )
        .unwrap();
    }
    let args = vec![
        array(&vec![0.0; n]),
        array(&s.state),
        array(&s.x),
        integers(&s.idx),
    ];
    let grads = gradient("gather", args, ("y", array(&vec![1.0; n])));
    near(&floats(&grads[1]), &w_bar, "gather w̄");
    near(&floats(&grads[2]), &x_bar, "gather x̄");

    // The Bessel batch: z̄ = J₂'(z), through calls, a loop and ancillas.
    let mut out = vec![0.0; n];
    for i in 1..=n as i64 {
        bessel::besselj_batch(i, &mut out, &s.z, 2).unwrap();
    }
    let (mut out_bar, mut z_bar) = (vec![1.0; n], vec![0.0; n]);
    for i in 1..=n as i64 {
        bessel::besselj_batch_adjoint(i, &mut out, &mut out_bar, &s.z, &mut z_bar, 2).unwrap();
    }
    let args = vec![array(&vec![0.0; n]), array(&s.z), Value::int(2)];
    let grads = gradient("besselj_batch", args, ("out", array(&vec![1.0; n])));
    near(&floats(&grads[1]), &z_bar, "besselj_batch z̄");
}

#[test]
fn the_interpreter_agrees_with_the_shaders_on_a_gpu() {
    let Some(gpu) = test_gpu() else { return };
    let s = inputs(|v| v as f32);
    let n = s.n;
    let (mask1, mask2, mask, theta) = (1 << 2, 1 << 6, 1 << 3, 0.7f32);

    let mut on_gpu = s.state.clone();
    gates::swap_kernel_gpu(&gpu, n, &mut on_gpu, mask1, mask2).unwrap();
    let args = |st: &[f32]| vec![array(st), Value::int(mask1), Value::int(mask2)];
    let ours: Vec<f32> = launched("swap_kernel", n, args(&s.state), 0, Direction::Forward);
    same_bits(&ours, &on_gpu, "swap_kernel");
    gates::uncall_swap_kernel_gpu(&gpu, n, &mut on_gpu, mask1, mask2).unwrap();
    let back: Vec<f32> = launched("swap_kernel", n, args(&ours), 0, Direction::Backward);
    same_bits(&back, &on_gpu, "uncall swap_kernel");

    let mut on_gpu = s.state.clone();
    gates::rot_kernel_gpu(&gpu, n, &mut on_gpu, mask, theta).unwrap();
    let args = |st: &[f32]| vec![array(st), Value::int(mask), Value::F32(theta)];
    let ours: Vec<f32> = launched("rot_kernel", n, args(&s.state), 0, Direction::Forward);
    close(&ours, &on_gpu, 1e-6, "rot_kernel");
    let mut back_gpu = on_gpu.clone();
    gates::uncall_rot_kernel_gpu(&gpu, n, &mut back_gpu, mask, theta).unwrap();
    let back: Vec<f32> = launched("rot_kernel", n, args(&on_gpu), 0, Direction::Backward);
    close(&back, &back_gpu, 1e-6, "uncall rot_kernel");

    let mut on_gpu = vec![0.0f32; n];
    gather::gather_gpu(&gpu, n, &mut on_gpu, &s.state, &s.x, &s.idx).unwrap();
    let args = vec![
        array(&vec![0.0f32; n]),
        array(&s.state),
        array(&s.x),
        integers(&s.idx),
    ];
    let ours: Vec<f32> = launched("gather", n, args, 0, Direction::Forward);
    close(&ours, &on_gpu, 1e-6, "gather");

    let mut on_gpu = vec![0.0f32; 12 * n];
    math::elementary_gpu(&gpu, n, &mut on_gpu, &s.x).unwrap();
    let args = vec![array(&vec![0.0f32; 12 * n]), array(&s.x)];
    let ours: Vec<f32> = launched("elementary", n, args, 0, Direction::Forward);
    // Vulkan lets a driver approximate its f32 functions, tan and asin
    // loosely (lavapipe is off by 3e-4 in asin near 0.9): the allowances of
    // `kernels.rs`, function by function.
    for (k, (a, g)) in ours.iter().zip(&on_gpu).enumerate() {
        let tol = if matches!(k % 12, 2 | 10) { 1e-3 } else { 1e-5 };
        close(&[*a], &[*g], tol, &format!("elementary[{k}]"));
    }

    let mut on_gpu = vec![0.0f32; n];
    math::product12_gpu(&gpu, n, &mut on_gpu, &s.x).unwrap();
    let args = vec![array(&vec![0.0f32; n]), array(&s.x)];
    let ours: Vec<f32> = launched("product12", n, args, 0, Direction::Forward);
    close(&ours, &on_gpu, 1e-5, "product12");

    // The reverse passes on the device against the interpreter's gradient
    // of the launch, in f32 (x̄ sums over several invocations, so within
    // the looser tolerance of `kernels.rs` for sums).
    let f32_gradient = |kernel: &str, args: Vec<Value>, seed: (&str, Value)| -> Vec<Value> {
        let db = RootDatabase::default();
        let p = project(&db);
        let mut interpreter = Interpreter::new(&db, p);
        interpreter
            .launch_gradient(kernel, n, args, &[(seed.0.to_string(), seed.1)])
            .unwrap_or_else(|e| panic!("{kernel}: {e}"))
            .1
    };
    let mut y = vec![0.0f32; n];
    gather::gather_gpu(&gpu, n, &mut y, &s.state, &s.x, &s.idx).unwrap();
    let (mut y_bar, mut w_bar, mut x_bar) =
        (vec![1.0f32; n], vec![0.0f32; n], vec![0.0f32; n + 12]);
    gather::gather_adjoint_gpu(
        &gpu, n, &mut y, &mut y_bar, &s.state, &mut w_bar, &s.x, &mut x_bar, &s.idx,
    )
    .unwrap();
    let args = vec![
        array(&vec![0.0f32; n]),
        array(&s.state),
        array(&s.x),
        integers(&s.idx),
    ];
    let grads = f32_gradient("gather", args, ("y", array(&vec![1.0f32; n])));
    close(&floats(&grads[1]), &w_bar, 1e-6, "gather w̄");
    close(&floats(&grads[2]), &x_bar, 1e-4, "gather x̄");
    let mut y = vec![0.0f32; n];
    math::product12_gpu(&gpu, n, &mut y, &s.x).unwrap();
    let (mut y_bar, mut x_bar) = (vec![1.0f32; n], vec![0.0f32; n + 12]);
    math::product12_adjoint_gpu(&gpu, n, &mut y, &mut y_bar, &s.x, &mut x_bar).unwrap();
    let args = vec![array(&vec![0.0f32; n]), array(&s.x)];
    let grads = f32_gradient("product12", args, ("y", array(&vec![1.0f32; n])));
    close(&floats(&grads[1]), &x_bar, 1e-4, "product12 x̄");

    // The Bessel series in f32 leaves rounding errors of about 1.5e-8 in
    // its uncomputed ancillas: the checked build's deallocation check
    // (atol 1e-8, the crate's) stops it, on the CPU and in the interpreter
    // alike, where the GPU runs the kernel unchecked. Compared with the
    // GPU at a tolerance for f32 (1e-6, the series' own).
    let mut cpu = vec![0.0f32; n];
    let cpu_error = (1..=n as i64)
        .find_map(|i| bessel::besselj_batch(i, &mut cpu, &s.z, 2).err())
        .expect("the checked f32 series stops at a deallocation check");
    let args = vec![array(&vec![0.0f32; n]), array(&s.z), Value::int(2)];
    match launch("besselj_batch", n, args.clone(), Direction::Forward, 1e-8) {
        Err(nilang_interp::Error::Run(e)) => {
            assert_eq!(
                (e.location.line, e.what.as_str()),
                (cpu_error.location.line, cpu_error.what.as_str()),
                "the interpreter and the CPU form stop at one check"
            );
        }
        other => panic!("besselj_batch in f32 at atol 1e-8: {other:?}"),
    }
    let mut on_gpu = vec![0.0f32; n];
    bessel::besselj_batch_gpu(&gpu, n, &mut on_gpu, &s.z, 2).unwrap();
    let out = launch("besselj_batch", n, args, Direction::Forward, 1e-6).unwrap();
    close(&floats(&out[0]), &on_gpu, 1e-5, "besselj_batch");
}

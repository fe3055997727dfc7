//! The reference interpreter (`nilang-interp`) against the generated Rust,
//! on the papers' programs: the same arguments, forwards and backwards,
//! and the same bits in every result (both compute in `f64` in the same
//! order, so anything else is a bug in one of them).

use nilang_analysis::db::{self, RootDatabase, SourceFile};
use nilang_examples::{
    arithmetic, bennett, bessel, boxmuller, complex, fft, fib, graph, heat, leapfrog, linalg, qr,
    unitary,
};
use nilang_interp::{Direction, Interpreter, Value};
use nilang_runtime::Complex;
use nilang_runtime::ndarray::{Array2, ShapeBuilder};
use std::rc::Rc;

/// The examples folder as one project, as `build.rs` compiles it.
fn interpreter(db: &RootDatabase) -> Interpreter<'_> {
    let dir = concat!(env!("CARGO_MANIFEST_DIR"));
    let mut files = Vec::new();
    let mut paths: Vec<_> = std::fs::read_dir(dir)
        .unwrap()
        .map(|e| e.unwrap().path())
        .filter(|p| p.extension().is_some_and(|e| e == "nil"))
        .collect();
    paths.sort();
    for p in paths {
        let name = format!("examples/{}", p.file_name().unwrap().to_string_lossy());
        files.push(SourceFile::new(
            db,
            name,
            std::fs::read_to_string(&p).unwrap(),
        ));
    }
    Interpreter::new(db, db::project_with_std(db, files, Vec::new()))
}

fn f64s(xs: &[f64]) -> Value {
    Value::Array(Rc::new(xs.iter().map(|&x| Value::F64(x)).collect()))
}

fn ints(xs: &[i64]) -> Value {
    Value::Array(Rc::new(xs.iter().map(|&x| Value::int(x)).collect()))
}

/// A column-major matrix value from a Rust matrix.
fn matrix(m: &Array2<f64>) -> Value {
    Value::Matrix {
        rows: m.nrows(),
        cols: m.ncols(),
        data: Rc::new(m.t().iter().map(|&x| Value::F64(x)).collect()),
    }
}

/// The floats in a value, in order (column-major for matrices).
fn floats(v: &Value) -> Vec<f64> {
    match v {
        Value::F64(x) => vec![*x],
        // (Exactly: an `f32`'s bits are compared as the `f64` it widens to.)
        Value::F32(x) => vec![f64::from(*x)],
        Value::Complex(re, im) => vec![*re, *im],
        Value::Array(items) | Value::Matrix { data: items, .. } => {
            items.iter().flat_map(floats).collect()
        }
        Value::Int(x, _) => vec![*x as f64],
        other => panic!("not a number: {other}"),
    }
}

/// Runs `name` in the interpreter both ways and compares each result with
/// the generated code's, bit for bit.
fn same(
    i: &mut Interpreter<'_>,
    name: &str,
    args: Vec<Value>,
    rust: &[Vec<f64>],
    rust_back: &[Vec<f64>],
) {
    let out = i.call(name, args, Direction::Forward).unwrap();
    let got: Vec<Vec<f64>> = out.iter().map(floats).collect();
    assert_eq!(
        bits(&got),
        bits(rust),
        "{name}: interpreter {got:?}, Rust {rust:?}"
    );
    let back = i.call(name, out, Direction::Backward).unwrap();
    let got: Vec<Vec<f64>> = back.iter().map(floats).collect();
    assert_eq!(
        bits(&got),
        bits(rust_back),
        "uncall of {name}: interpreter {got:?}, Rust {rust_back:?}"
    );
}

fn bits(v: &[Vec<f64>]) -> Vec<Vec<u64>> {
    v.iter()
        .map(|xs| xs.iter().map(|x| x.to_bits()).collect())
        .collect()
}

#[test]
fn scalar_programs_agree_bit_for_bit() {
    let db = RootDatabase::default();
    let mut i = interpreter(&db);
    for z in [0.3, 1.0, 2.5] {
        let mut out = 0.0;
        bessel::ibesselj(&mut out, 2, z, 1e-8).unwrap();
        let forward = vec![vec![out], vec![2.0], vec![z]];
        bessel::uncall_ibesselj(&mut out, 2, z, 1e-8).unwrap();
        let back = vec![vec![out], vec![2.0], vec![z]];
        same(
            &mut i,
            "ibesselj",
            vec![Value::F64(0.0), Value::int(2), Value::F64(z)],
            &forward,
            &back,
        );
    }
    // The generic function run in `f32`: its literals (`z / 2`, `halfz ^ 2`)
    // and its `f32` arithmetic as the generated code's, given the
    // arguments as `nilc run` reads them (`0f0`, `1.5f0`).
    for z in [0.3_f32, 1.0, 2.5] {
        let mut out = 0.0_f32;
        bessel::ibesselj(&mut out, 2, z, 1e-8).unwrap();
        let forward = vec![vec![f64::from(out)], vec![2.0], vec![f64::from(z)]];
        bessel::uncall_ibesselj(&mut out, 2, z, 1e-8).unwrap();
        let back = vec![vec![f64::from(out)], vec![2.0], vec![f64::from(z)]];
        let args = ["0f0".to_string(), "2".into(), format!("{z:?}f0")]
            .iter()
            .map(|a| nilang_interp::literal::parse(a).unwrap())
            .collect();
        same(&mut i, "ibesselj", args, &forward, &back);
    }

    let (mut out, n) = (0.0, 12.0);
    fib::rfib(&mut out, n).unwrap();
    let forward = vec![vec![out], vec![n]];
    fib::uncall_rfib(&mut out, n).unwrap();
    same(
        &mut i,
        "rfib",
        vec![Value::F64(0.0), Value::F64(n)],
        &forward,
        &[vec![out], vec![n]],
    );

    let mut out = 0_i64;
    fib::rrfib(&mut out, 15).unwrap();
    let forward = vec![vec![out as f64], vec![15.0]];
    fib::uncall_rrfib(&mut out, 15).unwrap();
    same(
        &mut i,
        "rrfib",
        vec![Value::int(0), Value::int(15)],
        &forward,
        &[vec![out as f64], vec![15.0]],
    );

    let (mut out, x, y) = (0.25, 1.5, -2.75);
    arithmetic::multiplier(&mut out, x, y).unwrap();
    let forward = vec![vec![out], vec![x], vec![y]];
    arithmetic::uncall_multiplier(&mut out, x, y).unwrap();
    same(
        &mut i,
        "multiplier",
        vec![Value::F64(0.25), Value::F64(x), Value::F64(y)],
        &forward,
        &[vec![out], vec![x], vec![y]],
    );

    let (mut x, mut y) = (0.3, 0.7);
    boxmuller::box_muller(&mut x, &mut y).unwrap();
    let forward = vec![vec![x], vec![y]];
    boxmuller::uncall_box_muller(&mut x, &mut y).unwrap();
    same(
        &mut i,
        "box_muller!",
        vec![Value::F64(0.3), Value::F64(0.7)],
        &forward,
        &[vec![x], vec![y]],
    );

    let (mut y, x) = (Complex::new(0.0, 0.0), Complex::new(1.5, -0.5));
    complex::complex_log(&mut y, x).unwrap();
    let forward = vec![vec![y.re, y.im], vec![x.re, x.im]];
    complex::uncall_complex_log(&mut y, x).unwrap();
    same(
        &mut i,
        "complex_log",
        vec![Value::Complex(0.0, 0.0), Value::Complex(1.5, -0.5)],
        &forward,
        &[vec![y.re, y.im], vec![x.re, x.im]],
    );
}

#[test]
fn array_programs_agree_bit_for_bit() {
    let db = RootDatabase::default();
    let mut i = interpreter(&db);

    let re0: Vec<f64> = (0..8).map(|k| (k as f64 * 0.7).sin()).collect();
    let im0: Vec<f64> = (0..8).map(|k| (k as f64 * 0.3).cos()).collect();
    let (mut re, mut im) = (re0.clone(), im0.clone());
    fft::fft(&mut re, &mut im).unwrap();
    let forward = vec![re.clone(), im.clone()];
    fft::uncall_fft(&mut re, &mut im).unwrap();
    same(
        &mut i,
        "fft!",
        vec![f64s(&re0), f64s(&im0)],
        &forward,
        &[re, im],
    );

    let x: Vec<f64> = (0..6).map(|k| 1.0 + (k as f64).powi(2) / 7.0).collect();
    let mut y = vec![0.0; 6];
    heat::heat_step(&mut y, &x, 0.2).unwrap();
    let forward = vec![y.clone(), x.clone(), vec![0.2]];
    heat::uncall_heat_step(&mut y, &x, 0.2).unwrap();
    same(
        &mut i,
        "heat_step",
        vec![f64s(&[0.0; 6]), f64s(&x), Value::F64(0.2)],
        &forward,
        &[y, x.clone(), vec![0.2]],
    );

    let s0: Vec<f64> = (0..12).map(|k| 0.1 * k as f64 - 0.4).collect();
    let gm = vec![1.0, 0.5];
    let mut s = s0.clone();
    leapfrog::leap_step(&mut s, &gm, 0.01).unwrap();
    let forward = vec![s.clone(), gm.clone(), vec![0.01]];
    leapfrog::uncall_leap_step(&mut s, &gm, 0.01).unwrap();
    same(
        &mut i,
        "leap_step",
        vec![f64s(&s0), f64s(&gm), Value::F64(0.01)],
        &forward,
        &[s, gm.clone(), vec![0.01]],
    );

    let v1 = vec![1.0, -2.0, 0.5, 3.25];
    let v2 = vec![0.125, 4.0, -1.5, 2.0];
    let mut out = 0.0;
    linalg::dot(&mut out, &v1, &v2).unwrap();
    let forward = vec![vec![out], v1.clone(), v2.clone()];
    linalg::uncall_dot(&mut out, &v1, &v2).unwrap();
    same(
        &mut i,
        "dot",
        vec![Value::F64(0.0), f64s(&v1), f64s(&v2)],
        &forward,
        &[vec![out], v1.clone(), v2.clone()],
    );

    let sq = vec![1.0, 2.0, 0.5, 3.25];
    let (mut var, mut mean) = (0.0, 0.0);
    linalg::var_and_mean_sq(&mut var, &mut mean, &sq).unwrap();
    let forward = vec![vec![var], vec![mean], sq.clone()];
    linalg::uncall_var_and_mean_sq(&mut var, &mut mean, &sq).unwrap();
    same(
        &mut i,
        "var_and_mean_sq",
        vec![Value::F64(0.0), Value::F64(0.0), f64s(&sq)],
        &forward,
        &[vec![var], vec![mean], sq.clone()],
    );

    let x0 = vec![0.5, -0.25, 1.0, 0.75];
    let theta: Vec<f64> = (0..6).map(|k| 0.3 * k as f64 + 0.1).collect();
    let mut x = x0.clone();
    unitary::umm(&mut x, &theta).unwrap();
    let forward = vec![x.clone(), theta.clone()];
    unitary::uncall_umm(&mut x, &theta).unwrap();
    same(
        &mut i,
        "umm!",
        vec![f64s(&x0), f64s(&theta)],
        &forward,
        &[x, theta],
    );

    let mut state = vec![0.5, 0.0, 0.0, 0.0, 0.0];
    bennett::bennett(&mut state, 2, 1, 5).unwrap();
    let forward = vec![state.clone(), vec![2.0], vec![1.0], vec![5.0]];
    bennett::uncall_bennett(&mut state, 2, 1, 5).unwrap();
    same(
        &mut i,
        "bennett",
        vec![
            f64s(&[0.5, 0.0, 0.0, 0.0, 0.0]),
            Value::int(2),
            Value::int(1),
            Value::int(5),
        ],
        &forward,
        &[state, vec![2.0], vec![1.0], vec![5.0]],
    );
}

#[test]
fn matrix_programs_agree_bit_for_bit() {
    let db = RootDatabase::default();
    let mut i = interpreter(&db);

    let a = Array2::from_shape_fn((3, 3).f(), |(r, c)| {
        1.0 + r as f64 * 0.5 + (c * c) as f64 * 0.25 + (r == c) as u8 as f64
    });
    let (mut q, mut r) = (Array2::zeros((3, 3).f()), Array2::zeros((3, 3).f()));
    qr::qr(q.view_mut(), r.view_mut(), a.view()).unwrap();
    let forward = vec![
        floats(&matrix(&q)),
        floats(&matrix(&r)),
        floats(&matrix(&a)),
    ];
    qr::uncall_qr(q.view_mut(), r.view_mut(), a.view()).unwrap();
    let zeros = Array2::zeros((3, 3).f());
    same(
        &mut i,
        "qr",
        vec![matrix(&zeros), matrix(&zeros), matrix(&a)],
        &forward,
        &[
            floats(&matrix(&q)),
            floats(&matrix(&r)),
            floats(&matrix(&a)),
        ],
    );

    let x = Array2::from_shape_fn((2, 4).f(), |(r, c)| (r as f64 - c as f64) * 0.5 + 0.1);
    let (l1, l2) = (vec![1_i64, 2, 3, 4], vec![1_i64, 3, 2, 4]);
    let mut out = 0.0;
    graph::embedding_loss(&mut out, x.view(), &l1, &l2).unwrap();
    let forward = vec![
        vec![out],
        floats(&matrix(&x)),
        vec![1.0, 2.0, 3.0, 4.0],
        vec![1.0, 3.0, 2.0, 4.0],
    ];
    graph::uncall_embedding_loss(&mut out, x.view(), &l1, &l2).unwrap();
    same(
        &mut i,
        "embedding_loss",
        vec![Value::F64(0.0), matrix(&x), ints(&l1), ints(&l2)],
        &forward,
        &[
            vec![out],
            floats(&matrix(&x)),
            vec![1.0, 2.0, 3.0, 4.0],
            vec![1.0, 3.0, 2.0, 4.0],
        ],
    );
}

/// A run that fails stops at the same check with the same message: place,
/// check, what was compared, expected and found.
#[test]
fn failures_are_reported_alike() {
    let db = RootDatabase::default();
    let mut i = interpreter(&db);
    let mut cases: Vec<(String, Result<Vec<Value>, nilang_interp::Error>)> = Vec::new();

    let (mut x, mut y) = (1.0, 0.3);
    let rust = boxmuller::box_muller(&mut x, &mut y)
        .unwrap_err()
        .to_string();
    cases.push((
        rust,
        i.call(
            "box_muller!",
            vec![Value::F64(1.0), Value::F64(0.3)],
            Direction::Forward,
        ),
    ));

    let (mut re, mut im) = (vec![1.0; 12], vec![0.0; 12]);
    let rust = fft::fft(&mut re, &mut im).unwrap_err().to_string();
    cases.push((
        rust,
        i.call(
            "fft!",
            vec![f64s(&[1.0; 12]), f64s(&[0.0; 12])],
            Direction::Forward,
        ),
    ));

    let (mut re, mut im) = (vec![1.0; 8], vec![0.0; 4]);
    let rust = fft::fft(&mut re, &mut im).unwrap_err().to_string();
    cases.push((
        rust,
        i.call(
            "fft!",
            vec![f64s(&[1.0; 8]), f64s(&[0.0; 4])],
            Direction::Forward,
        ),
    ));

    let mut out = 5.0;
    let rust = fib::rfibn(&mut out, 100.0).unwrap_err().to_string();
    cases.push((
        rust,
        i.call(
            "rfibn",
            vec![Value::F64(5.0), Value::F64(100.0)],
            Direction::Forward,
        ),
    ));

    for (rust, interpreted) in cases {
        match interpreted {
            Err(nilang_interp::Error::Run(e)) => assert_eq!(e.to_string(), rust),
            other => panic!("the interpreter gave {other:?} where Rust stopped with {rust}"),
        }
    }
}

/// `Grad` as the language defines it (the backward run on values that
/// carry adjoints) against the generated gradient programs: the same
/// adjoints within 1e-12 relative (the two may add contributions in
/// another order), and the arguments back where they were.
#[test]
fn gradients_agree_with_the_generated_gradient_programs() {
    let db = RootDatabase::default();
    let mut i = interpreter(&db);
    let mut wrong = Vec::new();
    let mut close = |name: &str, got: &[f64], want: &[f64]| {
        let agree = got.len() == want.len()
            && got
                .iter()
                .zip(want)
                .all(|(g, w)| (g - w).abs() <= 1e-12 * w.abs().max(1.0));
        if !agree {
            wrong.push(format!("{name}: interpreter {got:?}, Rust {want:?}"));
        }
    };
    let seed = |p: &str, v: Value| vec![(p.to_string(), v)];

    for z in [0.3, 1.0, 2.5] {
        let (mut out, mut out_bar, mut z_bar) = (0.0, 1.0, 0.0);
        bessel::ibesselj_grad(&mut out, &mut out_bar, 2, z, &mut z_bar, 1e-8).unwrap();
        let (back, grads) = i
            .gradient(
                "ibesselj",
                vec![Value::F64(0.0), Value::int(2), Value::F64(z)],
                &seed("out!", Value::F64(1.0)),
            )
            .unwrap();
        assert_eq!(floats(&back[2]), vec![z]);
        close("ibesselj", &floats(&grads[2]), &[z_bar]);
    }

    let (mut out, mut ob, mut xb, mut yb) = (0.5, 1.0, 0.0, 0.0);
    arithmetic::multiplier_grad(&mut out, &mut ob, 1.5, &mut xb, -2.5, &mut yb).unwrap();
    let (_, g) = i
        .gradient(
            "multiplier",
            vec![Value::F64(0.5), Value::F64(1.5), Value::F64(-2.5)],
            &seed("out!", Value::F64(1.0)),
        )
        .unwrap();
    close(
        "multiplier",
        &[floats(&g[1]), floats(&g[2])].concat(),
        &[xb, yb],
    );

    let (mut x, mut xb, mut y, mut yb) = (0.3, 0.25, 0.7, -1.5);
    boxmuller::box_muller_grad(&mut x, &mut xb, &mut y, &mut yb).unwrap();
    let (_, g) = i
        .gradient(
            "box_muller!",
            vec![Value::F64(0.3), Value::F64(0.7)],
            &[
                ("x!".to_string(), Value::F64(0.25)),
                ("y!".to_string(), Value::F64(-1.5)),
            ],
        )
        .unwrap();
    close(
        "box_muller!",
        &[floats(&g[0]), floats(&g[1])].concat(),
        &[xb, yb],
    );

    let v1 = vec![1.0, -2.0, 0.5, 3.25];
    let v2 = vec![0.125, 4.0, -1.5, 2.0];
    let (mut out, mut ob, mut g1, mut g2) = (0.0, 1.0, vec![0.0; 4], vec![0.0; 4]);
    linalg::dot_grad(&mut out, &mut ob, &v1, &mut g1, &v2, &mut g2).unwrap();
    let (_, g) = i
        .gradient(
            "dot",
            vec![Value::F64(0.0), f64s(&v1), f64s(&v2)],
            &seed("out!", Value::F64(1.0)),
        )
        .unwrap();
    close(
        "dot",
        &[floats(&g[1]), floats(&g[2])].concat(),
        &[g1, g2].concat(),
    );

    let x0 = vec![0.5, -0.25, 1.0, 0.75];
    let theta: Vec<f64> = (0..6).map(|k| 0.3 * k as f64 + 0.1).collect();
    let (mut x, mut xb, mut tb) = (x0.clone(), vec![1.0, -0.5, 0.25, 2.0], vec![0.0; 6]);
    unitary::umm_grad(&mut x, &mut xb, &theta, &mut tb).unwrap();
    let (_, g) = i
        .gradient(
            "umm!",
            vec![f64s(&x0), f64s(&theta)],
            &seed("x!", f64s(&[1.0, -0.5, 0.25, 2.0])),
        )
        .unwrap();
    close(
        "umm!",
        &[floats(&g[0]), floats(&g[1])].concat(),
        &[xb, tb].concat(),
    );

    let re0: Vec<f64> = (0..8).map(|k| (k as f64 * 0.7).sin()).collect();
    let im0: Vec<f64> = (0..8).map(|k| (k as f64 * 0.3).cos()).collect();
    let (mut re, mut im) = (re0.clone(), im0.clone());
    let (mut rb, mut ib) = (vec![1.0; 8], vec![0.5; 8]);
    fft::fft_grad(&mut re, &mut rb, &mut im, &mut ib).unwrap();
    let (_, g) = i
        .gradient(
            "fft!",
            vec![f64s(&re0), f64s(&im0)],
            &[
                ("re!".to_string(), f64s(&[1.0; 8])),
                ("im!".to_string(), f64s(&[0.5; 8])),
            ],
        )
        .unwrap();
    close(
        "fft!",
        &[floats(&g[0]), floats(&g[1])].concat(),
        &[rb, ib].concat(),
    );

    let x: Vec<f64> = (0..6).map(|k| 1.0 + (k as f64).powi(2) / 7.0).collect();
    let (mut y, mut yb, mut xb, mut rb) = (
        vec![0.0; 6],
        vec![1.0, 2.0, 3.0, 4.0, 5.0, 6.0],
        vec![0.0; 6],
        0.0,
    );
    heat::heat_step_grad(&mut y, &mut yb, &x, &mut xb, 0.2, &mut rb).unwrap();
    let (_, g) = i
        .gradient(
            "heat_step",
            vec![f64s(&[0.0; 6]), f64s(&x), Value::F64(0.2)],
            &seed("y!", f64s(&[1.0, 2.0, 3.0, 4.0, 5.0, 6.0])),
        )
        .unwrap();
    close(
        "heat_step",
        &[floats(&g[1]), floats(&g[2])].concat(),
        &[xb, vec![rb]].concat(),
    );

    let xm = Array2::from_shape_fn((2, 4).f(), |(r, c)| (r as f64 - c as f64) * 0.5 + 0.1);
    let (l1, l2) = (vec![1_i64, 2, 3, 4], vec![1_i64, 3, 2, 4]);
    let (mut out, mut ob) = (0.0, 1.0);
    let mut xbar = Array2::zeros((2, 4).f());
    graph::embedding_loss_grad(&mut out, &mut ob, xm.view(), xbar.view_mut(), &l1, &l2).unwrap();
    let (_, g) = i
        .gradient(
            "embedding_loss",
            vec![Value::F64(0.0), matrix(&xm), ints(&l1), ints(&l2)],
            &seed("out!", Value::F64(1.0)),
        )
        .unwrap();
    close("embedding_loss", &floats(&g[1]), &floats(&matrix(&xbar)));
    assert!(wrong.is_empty(), "{}", wrong.join("\n"));
}

/// The number systems (`numbers.nil`): fixed-point, log and tropical
/// numbers run as the runtime computes them, so the same bits forwards and
/// backwards, and the log-number Bessel function's gradient within 1e-12.
#[test]
fn number_system_programs_agree_with_the_generated_code() {
    use nilang_examples::numbers;
    use nilang_runtime::{Fixed43, Tropical, fixed};
    let db = RootDatabase::default();
    let mut i = interpreter(&db);
    let fx = |x: Fixed43| Value::Fixed(x);
    let fixed_bits = |v: &Value| match v {
        Value::Fixed(x) => x.to_bits(),
        other => panic!("not a Fixed43: {other}"),
    };

    // `exp` as a series of log numbers over `Fixed43` logarithms.
    for x in [0.25, 1.0, 2.5] {
        let (x, mut y) = (fixed::from_f64(x), fixed::from_f64(0.125));
        numbers::i_exp_fixed(&mut y, x).unwrap();
        let out = i
            .call(
                "i_exp_fixed",
                vec![fx(fixed::from_f64(0.125)), fx(x)],
                Direction::Forward,
            )
            .unwrap();
        assert_eq!(fixed_bits(&out[0]), y.to_bits(), "i_exp_fixed({x})");
        let back = i.call("i_exp_fixed", out, Direction::Backward).unwrap();
        assert_eq!(fixed_bits(&back[0]), fixed::from_f64(0.125).to_bits());
    }

    // Log numbers over `f64`: exp, a power, Bessel.
    for z in [0.3, 1.0, 2.5] {
        let mut y = 0.0;
        numbers::i_exp(&mut y, z).unwrap();
        let forward = vec![vec![y], vec![z]];
        numbers::uncall_i_exp(&mut y, z).unwrap();
        same(
            &mut i,
            "i_exp",
            vec![Value::F64(0.0), Value::F64(z)],
            &forward,
            &[vec![y], vec![z]],
        );
        let mut y = 0.0;
        numbers::i_power(&mut y, z, 5).unwrap();
        let forward = vec![vec![y], vec![z], vec![5.0]];
        numbers::uncall_i_power(&mut y, z, 5).unwrap();
        same(
            &mut i,
            "i_power",
            vec![Value::F64(0.0), Value::F64(z), Value::int(5)],
            &forward,
            &[vec![y], vec![z], vec![5.0]],
        );
        let mut out = 0.0;
        numbers::ibesselj_log(&mut out, 2, z).unwrap();
        let forward = vec![vec![out], vec![2.0], vec![z]];
        numbers::uncall_ibesselj_log(&mut out, 2, z).unwrap();
        same(
            &mut i,
            "ibesselj_log",
            vec![Value::F64(0.0), Value::int(2), Value::F64(z)],
            &forward,
            &[vec![out], vec![2.0], vec![z]],
        );
        let (mut out, mut out_bar, mut z_bar) = (0.0, 1.0, 0.0);
        numbers::ibesselj_log_grad(&mut out, &mut out_bar, 2, z, &mut z_bar).unwrap();
        let (_, grads) = i
            .gradient(
                "ibesselj_log",
                vec![Value::F64(0.0), Value::int(2), Value::F64(z)],
                &[("out!".to_string(), Value::F64(1.0))],
            )
            .unwrap();
        let got = floats(&grads[2])[0];
        assert!(
            (got - z_bar).abs() <= 1e-12 * z_bar.abs().max(1.0),
            "ibesselj_log'({z}): interpreter {got}, Rust {z_bar}"
        );
    }

    // The tropical maximum through a taped `@routine`.
    let xs = [1.5, -2.0, 3.25, 0.5];
    let trop = |xs: &[f64]| -> Value {
        Value::Array(Rc::new(
            xs.iter()
                .map(|&x| Value::Tropical(Box::new(Value::F64(x))))
                .collect(),
        ))
    };
    let txs: Vec<Tropical<f64>> = xs.iter().map(|&x| Tropical::new(x)).collect();
    let mut y = 0.5;
    numbers::tropical_max_into(&mut y, &txs).unwrap();
    let out = i
        .call(
            "tropical_max_into",
            vec![Value::F64(0.5), trop(&xs)],
            Direction::Forward,
        )
        .unwrap();
    assert_eq!(floats(&out[0]), vec![y]);
    assert_eq!(y, 3.75);
}

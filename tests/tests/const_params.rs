//! `Const` parameters (activity analysis): every random program of build.rs
//! has a twin whose parameters it does not change are declared `Const`. The
//! twin's gradient has no adjoint for them and does no adjoint work for them
//! or for what is computed from them only; the adjoints of the parameters it
//! changes, and the values it leaves, must be those of the original's
//! gradient.

use nilang::Check;
use nilang_tests::{CONST_TWINS, GRADIENTS, Rng};

#[test]
fn const_twins_give_the_changed_parameters_the_same_adjoints() {
    assert_eq!(CONST_TWINS.len(), GRADIENTS.len());
    let mut rng = Rng(0x9E37_79B9_7F4A_7C15);
    let (mut runs, mut compared, mut exact, mut constants) = (0usize, 0usize, 0usize, 0usize);
    for ((name, grad, twin), (same_name, _, _, mutated)) in CONST_TWINS.iter().zip(GRADIENTS) {
        assert_eq!(name, same_name);
        for _ in 0..16 {
            let s0: [f64; 4] = std::array::from_fn(|_| rng.next());
            let v: Vec<f64> = (0..4).map(|_| rng.next()).collect();
            let seed: [f64; 4] = std::array::from_fn(|_| rng.next());
            let (mut s, mut bar, mut v_bar) = (s0, seed, vec![0.0; 4]);
            let full = grad(&mut s, &mut bar, &v, &mut v_bar);
            let (mut t, mut twin_bar, mut unused) = (s0, seed, vec![0.0; 4]);
            let constant = twin(&mut t, &mut twin_bar, &v, &mut unused);
            match (&full, &constant) {
                (Ok(()), Ok(())) => {}
                (Err(a), Err(b)) if a.check == Check::NotDifferentiable => {
                    assert_eq!(a.check, b.check, "{name}: {a} / {b}");
                    break;
                }
                _ => panic!("{name}: the gradient gave {full:?}, its twin {constant:?}"),
            }
            runs += 1;
            assert_eq!(s, t, "{name}: the values left differ");
            assert!(
                unused.iter().all(|&x| x == 0.0),
                "{name}: the twin wrote an adjoint of `v`, which is `Const`"
            );
            for k in 0..4 {
                if mutated[k] {
                    compared += 1;
                    exact += usize::from(bar[k] == twin_bar[k]);
                    assert!(
                        (bar[k] - twin_bar[k]).abs() <= 1e-12 * (1.0 + bar[k].abs()),
                        "{name}: adjoint {k} is {} with `Const`, {} without",
                        twin_bar[k],
                        bar[k]
                    );
                } else {
                    // The twin has no adjoint for a `Const` parameter: its
                    // slot keeps the seed.
                    constants += 1;
                    assert_eq!(twin_bar[k], seed[k], "{name}: `Const` parameter {k}");
                }
            }
        }
    }
    assert!(runs > 1000, "{runs} runs compared");
    assert!(
        compared > 1000 && constants > 1000,
        "{compared} adjoints, {constants} constants"
    );
    // Dropping the constants' rules leaves the others' arithmetic as it was.
    assert_eq!(
        exact, compared,
        "{exact} of {compared} adjoints equal bit for bit"
    );
}

/// A data matrix, its targets and weights, and a point.
fn model() -> (nilang::ndarray::Array2<f64>, Vec<f64>, Vec<f64>, Vec<f64>) {
    let a = nilang::ndarray::Array2::from_shape_fn((4, 3), |(i, j)| {
        ((i * 3 + j) as f64 * 0.7).sin() + 0.1 * j as f64
    });
    let b = vec![0.3, -1.2, 0.8, 2.0];
    let w = vec![1.0, 0.5, 2.0, 0.25];
    let x = vec![0.4, -0.9, 1.3];
    (a, b, w, x)
}

/// The output and every adjoint of `residuals_all`'s gradient (`A`, `b`
/// and `w` differentiated too), seeded with 1.
struct Full {
    out: f64,
    x_bar: Vec<f64>,
    a_bar: nilang::ndarray::Array2<f64>,
    b_bar: Vec<f64>,
    w_bar: Vec<f64>,
}

fn full_gradient(a: &nilang::ndarray::Array2<f64>, b: &[f64], w: &[f64], x: &[f64]) -> Full {
    let (mut out, mut out_bar) = (0.0, 1.0);
    let mut f = Full {
        out: 0.0,
        x_bar: vec![0.0; x.len()],
        a_bar: nilang::ndarray::Array2::zeros(a.dim()),
        b_bar: vec![0.0; b.len()],
        w_bar: vec![0.0; w.len()],
    };
    nilang_tests::constants::residuals_all_grad(
        &mut out,
        &mut out_bar,
        x,
        &mut f.x_bar,
        a.view(),
        f.a_bar.view_mut(),
        b,
        &mut f.b_bar,
        w,
        &mut f.w_bar,
    )
    .unwrap();
    f.out = out;
    f
}

#[test]
fn a_const_matrix_gets_no_adjoint_and_the_rest_is_unchanged() {
    use nilang_tests::constants as c;
    let (a, b, w, x) = model();
    let (mut out, mut out_bar, mut x_bar) = (0.0, 1.0, vec![0.0; 3]);
    c::residuals_grad(&mut out, &mut out_bar, &x, &mut x_bar, a.view(), &b, &w).unwrap();
    let full = full_gradient(&a, &b, &w, &x);
    assert_eq!(x_bar, full.x_bar, "the adjoint of x");
    assert_eq!(out, full.out);
    assert!(
        full.a_bar.iter().any(|&v| v != 0.0),
        "the twin does differentiate A"
    );
    // Against central differences of the loss in x.
    for j in 0..3 {
        let loss = |t: f64| {
            let mut xs = x.clone();
            xs[j] = t;
            let mut o = 0.0;
            c::residuals(&mut o, &xs, a.view(), &b, &w).unwrap();
            o
        };
        let h = 1e-6;
        let fd = (loss(x[j] + h) - loss(x[j] - h)) / (2.0 * h);
        assert!(
            (fd - x_bar[j]).abs() < 1e-6 * (1.0 + fd.abs()),
            "{j}: {fd} vs {}",
            x_bar[j]
        );
    }
}

#[test]
fn a_const_passed_where_a_derivative_is_taken_goes_to_a_scratch_adjoint() {
    use nilang_tests::constants as c;
    let x = vec![0.4, -0.9, 1.3];
    let w = vec![1.5, 0.5, -2.0];
    let k = 0.7;
    let (mut out, mut out_bar, mut x_bar) = (0.0, 1.0, vec![0.0; 3]);
    c::weighted_grad(&mut out, &mut out_bar, &x, &mut x_bar, &w, k).unwrap();
    let (mut out2, mut out2_bar, mut x2_bar, mut w_bar, mut k_bar) =
        (0.0, 1.0, vec![0.0; 3], vec![0.0; 3], 0.0);
    c::weighted_all_grad(
        &mut out2,
        &mut out2_bar,
        &x,
        &mut x2_bar,
        &w,
        &mut w_bar,
        k,
        &mut k_bar,
    )
    .unwrap();
    assert_eq!(x_bar, x2_bar);
    assert_eq!(out, out2);
    // d out / d x = w + k² e1.
    let expected = [w[0] + k * k, w[1], w[2]];
    for j in 0..3 {
        assert!((x_bar[j] - expected[j]).abs() < 1e-14, "{j}");
    }
    assert_eq!(w_bar, x, "the twin's adjoint of w is x");
}

#[test]
fn constants_of_every_kind_meet_differentiated_parameters() {
    use nilang_tests::constants as c;
    // d out / d a = 3 (struct) and 2 (stack): the constants' scratch
    // adjoints do not disturb the derivative that flows.
    let (mut out, mut out_bar, mut a_bar) = (0.0, 1.0, 0.0);
    c::with_const_struct_grad(&mut out, &mut out_bar, 0.5, &mut a_bar).unwrap();
    assert_eq!((out, a_bar), (0.0, 3.0));
    let (mut out, mut out_bar, mut a_bar) = (0.0, 1.0, 0.0);
    c::with_const_stack_grad(&mut out, &mut out_bar, 0.5, &mut a_bar).unwrap();
    assert_eq!((out, a_bar), (0.0, 2.0));
    // d y / d B = 2 B, the constant A's columns contributing nothing.
    let a = nilang::ndarray::Array2::from_shape_fn((3, 2), |(i, j)| (i + 2 * j) as f64);
    let b = nilang::ndarray::Array2::from_shape_fn((3, 2), |(i, j)| 0.5 - (i * j) as f64);
    let (mut y, mut y_bar) = (0.0, 1.0);
    let mut b_bar = nilang::ndarray::Array2::zeros((3, 2));
    c::columns_of_both_grad(&mut y, &mut y_bar, a.view(), b.view(), b_bar.view_mut()).unwrap();
    assert_eq!(b_bar, &b * 2.0);
}

#[test]
fn a_complex_matrix_gets_complex_adjoints() {
    use nilang::Complex;
    use nilang_tests::constants as c;
    let (p, q) = (Complex::new(0.3, -1.2), Complex::new(2.0, 0.5));
    let seed = Complex::new(0.7, 0.25);
    let (mut out, mut out_bar) = (Complex::new(0.0, 0.0), seed);
    let (mut p_bar, mut q_bar) = (Complex::new(0.0, 0.0), Complex::new(0.0, 0.0));
    c::complex_product_grad(&mut out, &mut out_bar, p, &mut p_bar, q, &mut q_bar).unwrap();
    let m = nilang::ndarray::arr2(&[[p, q]]);
    let mut m_bar = nilang::ndarray::Array2::from_elem((1, 2), Complex::new(0.0, 0.0));
    let (mut out2, mut out2_bar) = (Complex::new(0.0, 0.0), seed);
    c::complex_matrix_product_grad(&mut out2, &mut out2_bar, m.view(), m_bar.view_mut()).unwrap();
    assert_eq!(m_bar[[0, 0]], p_bar);
    assert_eq!(m_bar[[0, 1]], q_bar);
    // conj(∂(pq)/∂p) ȳ = conj(q) ȳ.
    assert!((p_bar - q.conj() * seed).norm() < 1e-15);
}

#[test]
fn a_primitive_with_a_const_parameter_takes_its_derivative_from_d() {
    use nilang_tests::constants as c;
    let (mut y, mut y_bar, mut x_bar) = (0.0, 1.0, 0.0);
    c::scaled_sin_grad(&mut y, &mut y_bar, 0.3, &mut x_bar, 2.5).unwrap();
    assert_eq!(x_bar, 0.3f64.cos() * 2.5);
}

/// The build script's variants of `residuals_all` (`Config::variant`): the
/// same function with `A` constant, and with `A`, `b` and `w` constant. Each
/// takes no adjoint for its constants; the adjoints it gives are those of
/// the full gradient, and the all-data variant is `residuals` (declared
/// `Const` in the source) to the bit.
#[test]
fn variants_from_the_build_script_drop_the_adjoints_of_their_constants() {
    use nilang_tests::constants as c;
    let (a, b, w, x) = model();
    let Full {
        out,
        x_bar,
        b_bar,
        w_bar,
        ..
    } = full_gradient(&a, &b, &w, &x);

    let (mut out1, mut out1_bar, mut x1_bar, mut b1_bar, mut w1_bar) =
        (0.0, 1.0, vec![0.0; 3], vec![0.0; 4], vec![0.0; 4]);
    c::residuals_all_const_A_grad(
        &mut out1,
        &mut out1_bar,
        &x,
        &mut x1_bar,
        a.view(),
        &b,
        &mut b1_bar,
        &w,
        &mut w1_bar,
    )
    .unwrap();
    assert_eq!(
        (out1, &x1_bar, &b1_bar, &w1_bar),
        (out, &x_bar, &b_bar, &w_bar)
    );

    let (mut out2, mut out2_bar, mut x2_bar) = (0.0, 1.0, vec![0.0; 3]);
    c::residuals_all_const_A_b_w_grad(&mut out2, &mut out2_bar, &x, &mut x2_bar, a.view(), &b, &w)
        .unwrap();
    let (mut out3, mut out3_bar, mut x3_bar) = (0.0, 1.0, vec![0.0; 3]);
    c::residuals_grad(&mut out3, &mut out3_bar, &x, &mut x3_bar, a.view(), &b, &w).unwrap();
    assert_eq!((out2, &x2_bar), (out3, &x3_bar));
    assert_eq!(x2_bar, x_bar);

    // The variants run forwards and backwards like the function.
    let (mut y, mut z) = (0.0, 0.0);
    c::residuals_all_const_A(&mut y, &x, a.view(), &b, &w).unwrap();
    c::residuals_all(&mut z, &x, a.view(), &b, &w).unwrap();
    assert!(y > 0.0);
    assert_eq!(y, z);
    c::uncall_residuals_all_const_A(&mut y, &x, a.view(), &b, &w).unwrap();
    assert!(y.abs() < 1e-15, "{y}");
}

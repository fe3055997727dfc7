//! Every example: its values where the papers give them, and the uncall
//! restoring every input (exactly for integer and SWAP/ROT-style programs,
//! within the tolerance otherwise).

use nilang_examples::{
    arithmetic as a, bennett as b, bessel, complex, fib, linalg, qr, sparse, unitary,
};
use nilang_runtime::Complex;
use nilang_runtime::ndarray::{Array2, ShapeBuilder};
use nilang_runtime::sprs::{CsMat, TriMat};
use nilang_runtime::{CheckEq, check_inv};

const ATOL: f64 = 1e-8;

#[test]
fn multiplier_values_and_uncall() {
    let (mut out, x, y) = (2.0_f64, 3.0, 5.0);
    a::multiplier(&mut out, x, y).unwrap();
    assert_eq!((out, x, y), (17.0, 3.0, 5.0));
    a::uncall_multiplier(&mut out, x, y).unwrap();
    assert_eq!((out, x, y), (2.0, 3.0, 5.0));
    // The same code on integers.
    let mut out = 2_i64;
    a::multiplier(&mut out, 3, 5).unwrap();
    assert_eq!(out, 17);
}

#[test]
fn ibesselj_gives_j2_of_one() {
    let mut out = 0.0_f64;
    bessel::ibesselj(&mut out, 2, 1.0, 1e-8).unwrap();
    assert!((out - 0.11490348493190048).abs() < 1e-9, "{out}");
    bessel::uncall_ibesselj(&mut out, 2, 1.0, 1e-8).unwrap();
    assert_eq!(out, 0.0);
    // f32 through the same generic code.
    let mut out = 0.0_f32;
    bessel::ibesselj(&mut out, 2, 1.0, 1e-6).unwrap();
    assert!((out - 0.114_903_49).abs() < 1e-6, "{out}");
}

/// The benchmarks' floor for the Bessel gradient, the two primal sweeps in
/// plain Rust, does the same work as the generated code: the same sum, bit
/// for bit, and the sweep back ends on the first term with a clean ancilla.
#[test]
fn besselj_primal_sweeps_match_ibesselj_and_come_back() {
    use nilang_examples::baseline::besselj_primal_sweeps;
    for (z, atol) in [(1.0, 1e-8), (1.0, 1e-16), (0.3, 1e-12), (2.5, 1e-8)] {
        let mut out = 0.0_f64;
        bessel::ibesselj(&mut out, 2, z, atol).unwrap();
        let (sum, first, dirty) = besselj_primal_sweeps(2, z, atol);
        assert_eq!(sum, out, "z = {z}, atol = {atol}");
        let expected_first = (z / 2.0_f64).powi(2) / 2.0;
        assert!((first - expected_first).abs() < 1e-15, "{first} at z = {z}");
        assert!(dirty.abs() < 1e-15, "{dirty} at z = {z}");
    }
}

#[test]
fn fibonacci() {
    let mut out = 0.0_f64;
    fib::rfib(&mut out, 10.0).unwrap();
    assert_eq!(out, 55.0);
    fib::uncall_rfib(&mut out, 10.0).unwrap();
    assert_eq!(out, 0.0);

    let mut n = 0.0_f64;
    fib::rfibn(&mut n, 100.0).unwrap();
    assert_eq!(n, 12.0);
    fib::uncall_rfibn(&mut n, 100.0).unwrap();
    assert_eq!(n, 0.0);

    let mut out = 0_i64;
    fib::rrfib(&mut out, 9).unwrap();
    assert_eq!(out, 55);
    fib::uncall_rrfib(&mut out, 9).unwrap();
    assert_eq!(out, 0);
}

#[test]
fn integer_programs_round_trip_exactly() {
    let mut out = 0_i64;
    a::ifactorial(&mut out, 10).unwrap();
    assert_eq!(out, 3_628_800);
    a::uncall_ifactorial(&mut out, 10).unwrap();
    assert_eq!(out, 0);
    let mut sum = 0_i64;
    a::isum(&mut sum, &[3, 4, 5]).unwrap();
    assert_eq!(sum, 12);
}

#[test]
fn float_programs_round_trip() {
    let v1 = [1.0, -2.0, 0.5];
    let v2 = [4.0, 0.25, -3.0];
    let mut state = (0.0_f64,);
    assert_eq!(
        check_inv(
            &mut state,
            |s| linalg::dot(&mut s.0, &v1, &v2),
            |s| linalg::uncall_dot(&mut s.0, &v1, &v2),
            ATOL
        ),
        Ok(true)
    );
    let mut out = 0.0;
    linalg::dot(&mut out, &v1, &v2).unwrap();
    assert_eq!(out, 4.0 - 0.5 - 1.5);
    let mut n = 0.0;
    linalg::norm2(&mut n, &v1).unwrap();
    assert_eq!(n, 5.25);

    let sqv = [1.0, 4.0, 9.0, 16.0];
    let (mut var, mut mean) = (0.0_f64, 0.0_f64);
    linalg::var_and_mean_sq(&mut var, &mut mean, &sqv).unwrap();
    assert!((mean - 2.5).abs() < 1e-12);
    assert!((var - 5.0 / 3.0).abs() < 1e-12, "{var}");
    linalg::uncall_var_and_mean_sq(&mut var, &mut mean, &sqv).unwrap();
    assert!(var.check_eq(&0.0, ATOL) && mean.check_eq(&0.0, ATOL));

    let (mut out, mut anc) = (1.5_f64, 0.0_f64);
    a::imul(&mut out, 3.0, &mut anc).unwrap();
    assert!((out - 4.5).abs() < 1e-12);
    a::uncall_imul(&mut out, 3.0, &mut anc).unwrap();
    assert!((out - 1.5).abs() < 1e-12 && anc.abs() < 1e-12);
}

#[test]
fn umm_is_unitary_and_undone() {
    let mut x = [1.0_f64, 2.0, 3.0, 4.0];
    let theta = [0.1, 0.2, 0.3, 0.4, 0.5, 0.6];
    unitary::umm(&mut x, &theta).unwrap();
    let norm2: f64 = x.iter().map(|v| v * v).sum();
    assert!((norm2 - 30.0).abs() < 1e-12);
    unitary::uncall_umm(&mut x, &theta).unwrap();
    assert!(x.check_eq(&[1.0, 2.0, 3.0, 4.0], 1e-12), "{x:?}");
    let mut out = 0.0;
    let mut x = [1.0_f64, 2.0, 3.0, 4.0];
    unitary::test_umm(&mut out, &mut x, &theta).unwrap();
    assert!((out - x.iter().sum::<f64>()).abs() < 1e-12);
}

#[test]
fn bennett_reaches_the_last_state_and_cleans_up() {
    // k = 4 partitions of N = 16 steps of y += 2x, from state[1] = 1.
    let (k, n) = (4_i64, 16_i64);
    let mut state = vec![0.0_f64; n as usize + 1];
    state[0] = 1.0;
    b::bennett(&mut state, k, 1, n).unwrap();
    assert_eq!(state[n as usize], 2.0_f64.powi(16));
    let zeros_between = state[1..n as usize].iter().all(|&s| s == 0.0);
    assert!(zeros_between, "{state:?}");
    b::uncall_bennett(&mut state, k, 1, n).unwrap();
    assert_eq!(state[n as usize], 0.0);
    assert_eq!(state[0], 1.0);
}

#[test]
fn complex_log_matches_the_principal_logarithm_and_is_undone() {
    let x = Complex::new(2.0_f64, -1.0);
    let mut y = Complex::new(2.0_f64, 3.0);
    complex::complex_log(&mut y, x).unwrap();
    let expected = Complex::new(2.0, 3.0) + x.ln();
    assert!((y - expected).norm() < 1e-15, "{y} vs {expected}");
    complex::uncall_complex_log(&mut y, x).unwrap();
    assert!((y - Complex::new(2.0, 3.0)).norm() < 1e-15, "{y}");
}

/// A well-conditioned 4x4 matrix, column-major as Julia stores it.
fn matrix4(column_major: bool) -> Array2<f64> {
    let values = [
        [4.0, 1.0, -2.0, 0.5],
        [1.0, 3.0, 0.0, -1.0],
        [-2.0, 0.5, 5.0, 1.5],
        [0.5, -1.0, 1.0, 2.0],
    ];
    let shape = if column_major {
        (4, 4).f()
    } else {
        (4, 4).into_shape_with_order()
    };
    Array2::from_shape_fn(shape, |(i, j)| values[i][j] + 0.1 * (i * j) as f64)
}

#[test]
fn qr_factorises_and_its_uncall_zeroes_q_and_r() {
    for column_major in [true, false] {
        let a = matrix4(column_major);
        let mut q = Array2::<f64>::zeros((4, 4).f());
        let mut r = Array2::<f64>::zeros((4, 4).f());
        qr::qr(q.view_mut(), r.view_mut(), a.view()).unwrap();
        // Q R = A, Q orthogonal, R upper triangular.
        let qr_product = q.dot(&r);
        for (x, y) in qr_product.iter().zip(a.iter()) {
            assert!((x - y).abs() < 1e-12, "{qr_product} vs {a}");
        }
        let qtq = q.t().dot(&q);
        for ((i, j), v) in qtq.indexed_iter() {
            let id = if i == j { 1.0 } else { 0.0 };
            assert!((v - id).abs() < 1e-12, "Q'Q = {qtq}");
        }
        for ((i, j), v) in r.indexed_iter() {
            if i > j {
                assert_eq!(*v, 0.0);
            }
        }
        qr::uncall_qr(q.view_mut(), r.view_mut(), a.view()).unwrap();
        assert!(
            q.iter().chain(r.iter()).all(|v| v.abs() < 1e-12),
            "{q}\n{r}"
        );
        assert_eq!(a, matrix4(column_major));
    }
}

fn csc(rows: usize, cols: usize, entries: &[(usize, usize, f64)]) -> CsMat<f64> {
    let mut t = TriMat::new((rows, cols));
    for &(i, j, v) in entries {
        t.add_triplet(i, j, v);
    }
    t.to_csc()
}

#[test]
fn sparse_dot_is_the_frobenius_product_and_is_undone() {
    let a = csc(
        5,
        4,
        &[
            (0, 0, 1.5),
            (3, 0, -2.0),
            (1, 1, 4.0),
            (2, 2, 0.5),
            (4, 2, 3.0),
            (0, 3, 1.0),
        ],
    );
    let b = csc(
        5,
        4,
        &[
            (0, 0, 2.0),
            (3, 0, 1.0),
            (2, 1, 7.0),
            (2, 2, -4.0),
            (4, 2, 2.0),
            (1, 3, 9.0),
        ],
    );
    // trace(A'B) = sum of A[i,j] B[i,j] over common entries.
    let expected = 1.5 * 2.0 + (-2.0) * 1.0 + 0.5 * (-4.0) + 3.0 * 2.0;
    let mut r = 0.25_f64;
    sparse::sparse_dot(&mut r, a.view(), b.view()).unwrap();
    assert!((r - 0.25 - expected).abs() < 1e-15, "{r}");
    sparse::uncall_sparse_dot(&mut r, a.view(), b.view()).unwrap();
    assert!((r - 0.25).abs() < 1e-15, "{r}");
    // Against the dense product, on a random pattern.
    let mut state = 12345_u64;
    let mut next = || {
        state = state
            .wrapping_mul(6364136223846793005)
            .wrapping_add(1442695040888963407);
        (state >> 33) as usize
    };
    let mut ea = Vec::new();
    let mut eb = Vec::new();
    for _ in 0..60 {
        ea.push((next() % 20, next() % 15, (next() % 100) as f64 / 10.0));
        eb.push((next() % 20, next() % 15, (next() % 100) as f64 / 10.0));
    }
    let (a, b) = (csc(20, 15, &ea), csc(20, 15, &eb));
    let dense: f64 = a
        .to_dense()
        .iter()
        .zip(b.to_dense().iter())
        .map(|(x, y)| x * y)
        .sum();
    let mut r = 0.0_f64;
    sparse::sparse_dot(&mut r, a.view(), b.view()).unwrap();
    assert!((r - dense).abs() < 1e-9, "{r} vs {dense}");
}

#[test]
fn sparse_dot_refuses_a_csr_matrix() {
    let a = csc(3, 3, &[(0, 0, 1.0)]);
    let b = a.to_csr();
    let mut r = 0.0_f64;
    let err = sparse::sparse_dot(&mut r, a.view(), b.view()).unwrap_err();
    assert_eq!(err.check, nilang_runtime::Check::Shape);
    assert!(err.to_string().contains("sparse.nil"), "{err}");
    assert_eq!(r, 0.0);
}

#[test]
fn the_unchecked_build_computes_the_same_and_still_round_trips() {
    use nilang_examples::unchecked as u;
    // ibesselj: its final `~@routine` only restores ancillas, so it is not
    // generated without checks; the result and the uncall must not change.
    for z in [0.3_f64, 1.0, 2.5, 7.0] {
        for v in 0..4 {
            let (mut checked, mut unchecked) = (0.5_f64, 0.5_f64);
            bessel::ibesselj(&mut checked, v, z, 1e-8).unwrap();
            u::bessel::ibesselj(&mut unchecked, v, z, 1e-8).unwrap();
            assert_eq!(checked, unchecked, "J_{v}({z})");
            u::bessel::uncall_ibesselj(&mut unchecked, v, z, 1e-8).unwrap();
            assert!((unchecked - 0.5).abs() < 1e-15, "J_{v}({z}): {unchecked}");
        }
    }
    let (mut out, x, y) = (2.0_f64, 3.0, 5.0);
    u::arithmetic::multiplier(&mut out, x, y).unwrap();
    assert_eq!(out, 17.0);
    u::arithmetic::uncall_multiplier(&mut out, x, y).unwrap();
    assert_eq!(out, 2.0);
    let mut f = 0.0_f64;
    u::fib::rfib(&mut f, 10.0).unwrap();
    assert_eq!(f, 55.0);
    let x = Complex::new(2.0_f64, -1.0);
    let mut y = Complex::new(0.0_f64, 0.0);
    u::complex::complex_log(&mut y, x).unwrap();
    assert!((y - x.ln()).norm() < 1e-15);
}

#[test]
fn the_build_that_keeps_its_uncomputation_computes_what_the_checked_one_does() {
    use nilang_examples::petersen::{L1, L2, Rng, view};
    use nilang_examples::unchecked::uncomputing as k;
    // The same work as the checked build, without its checks: the same bits.
    for z in [0.3_f64, 1.0, 2.5, 7.0] {
        for v in 0..4 {
            let (mut checked, mut kept) = (0.5_f64, 0.5_f64);
            bessel::ibesselj(&mut checked, v, z, 1e-8).unwrap();
            k::bessel::ibesselj(&mut kept, v, z, 1e-8).unwrap();
            assert_eq!(checked.to_bits(), kept.to_bits(), "J_{v}({z})");
            k::bessel::uncall_ibesselj(&mut kept, v, z, 1e-8).unwrap();
            assert!((kept - 0.5).abs() < 1e-15, "J_{v}({z}): {kept}");
        }
    }
    for dims in [2, 5] {
        let x = Rng::new(7).positions(dims);
        let (mut checked, mut kept) = (0.0_f64, 0.0_f64);
        nilang_examples::graph::embedding_loss(&mut checked, view(&x, dims), &L1, &L2).unwrap();
        k::graph::embedding_loss(&mut kept, view(&x, dims), &L1, &L2).unwrap();
        assert_eq!(checked.to_bits(), kept.to_bits(), "k = {dims}");
    }
}

/// README's main job (this package's binary) runs every example and exits
/// 0; a reader that stops reading (`| head`) ends it quietly, as it ends
/// other programs, not with a panic of `println!` on the closed pipe.
#[test]
fn the_main_job_runs_and_ends_quietly_on_a_closed_pipe() {
    use std::process::{Command, Stdio};
    let main = env!("CARGO_BIN_EXE_nilang-examples");
    let out = Command::new(main).output().expect("the main job runs");
    assert!(out.status.success(), "{out:?}");
    assert!(String::from_utf8_lossy(&out.stdout).contains("ibesselj:   J_2(1) = 0.1149034849"));
    // The reading end is closed before the child starts, so its first
    // write meets a closed pipe (a pipe read later would race the child,
    // which may finish writing into the pipe's buffer first).
    let (reader, writer) = std::io::pipe().expect("a pipe");
    drop(reader);
    let child = Command::new(main)
        .stdout(writer)
        .stderr(Stdio::piped())
        .spawn()
        .expect("the main job runs");
    let out = child.wait_with_output().expect("the main job ends");
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(!stderr.contains("panicked"), "{stderr}");
    #[cfg(unix)]
    {
        use std::os::unix::process::ExitStatusExt;
        assert_eq!(out.status.signal(), Some(libc::SIGPIPE), "{:?}", out.status);
    }
}

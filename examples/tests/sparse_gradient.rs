//! The gradient of the sparse product `sparse_dot` (trace(A'B)), which the
//! `gradients` benchmark times: it must be the other matrix.

#[test]
fn sparse_dot_gradient_is_the_other_matrix() {
    // d trace(A'B) / d A[i, j] = B[i, j] (zero where B has no entry), and
    // the other way round; checked and unchecked builds alike.
    use nilang_runtime::sprs::TriMat;
    let mut state = 99_u64;
    let mut next = || {
        state = state
            .wrapping_mul(6364136223846793005)
            .wrapping_add(1442695040888963407);
        (state >> 33) as usize
    };
    let mut make = || {
        let mut t = TriMat::new((30, 20));
        for _ in 0..150 {
            t.add_triplet(next() % 30, next() % 20, (next() % 100) as f64 / 10.0 - 5.0);
        }
        t.to_csc::<usize>()
    };
    let (a, b) = (make(), make());
    for checked in [true, false] {
        let (mut r, mut r_bar) = (0.0_f64, 1.0_f64);
        let (mut ga, mut gb) = (vec![0.0; a.nnz()], vec![0.0; b.nnz()]);
        let run = if checked {
            nilang_examples::sparse::sparse_dot_grad
        } else {
            nilang_examples::unchecked::sparse::sparse_dot_grad
        };
        run(&mut r, &mut r_bar, a.view(), &mut ga, b.view(), &mut gb).unwrap();
        assert!(r.abs() < 1e-12, "the output is restored: {r}");
        for ((&v, (i, j)), g) in a.iter().zip(&ga) {
            assert_eq!(*g, b.get(i, j).copied().unwrap_or(0.0), "A[{i}, {j}] = {v}");
        }
        for ((_, (i, j)), g) in b.iter().zip(&gb) {
            assert_eq!(*g, a.get(i, j).copied().unwrap_or(0.0));
        }
        assert!(ga.iter().any(|&g| g != 0.0), "some entries are shared");
    }
}

#[test]
fn mismatched_shapes_are_an_assertion_error_not_a_panic() {
    // `sparse.nil` checks `@safe @assert size(B) == (m, n)`: a false
    // assertion comes back as an error naming the file and line, in the
    // checked build and in the unchecked one (an assertion is not a
    // reversibility check, so `checks(false)` keeps it).
    use nilang_runtime::sprs::CsMat;
    let a = CsMat::<f64>::eye_csc(3);
    let b = CsMat::<f64>::eye_csc(4);
    for run in [
        nilang_examples::sparse::sparse_dot,
        nilang_examples::unchecked::sparse::sparse_dot,
    ] {
        let mut r = 0.0;
        let err = run(&mut r, a.view(), b.view()).unwrap_err();
        assert_eq!(err.check, nilang_runtime::Check::Assertion);
        assert_eq!(err.location.file, "examples/sparse.nil");
        assert_eq!(err.location.line, 19);
        assert!(err.what.contains("size(B) == (m, n)"), "{}", err.what);
        assert_eq!(r, 0.0, "nothing was written");
    }
}

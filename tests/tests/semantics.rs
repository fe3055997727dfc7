//! NiLang's compiler semantics, on generated code.

use nilang::Check;
use nilang_tests::semantics as s;

/// Lines in `nil/semantics.nil`.
const FOR_WITH_STEP_LINE: u32 = 143;
const LOOP_SCRATCH_END: u32 = 153;
const FREE_FILLED_V: u32 = 168;

#[test]
fn for_runs_its_body_k_times() {
    let (mut x, y, k) = (0.0, 1.0, 3);
    s::for_sum(&mut x, y, k).unwrap();
    assert_eq!(x, 3.0);
    s::uncall_for_sum(&mut x, y, k).unwrap();
    assert_eq!(x, 0.0);
}

#[test]
fn a_for_body_changing_its_bound_is_rejected_before_it_runs() {
    // The static check (E0403) rejects it, so the build would fail; the
    // run-time check of the bounds is the second line of defence.
    use nilang_compiler::db::{self, Project, RootDatabase, SourceFile};
    let db = RootDatabase::default();
    let text = "function f(x::f64, y::f64, k::i64)\n    for i = 1:k\n        x += y\n        k += 1\n    end\nend\n";
    let file = SourceFile::new(&db, "f.nil".into(), text.into());
    let project = Project::new(&db, vec![file]);
    let codes: Vec<_> = db::file_diagnostics(&db, project, file)
        .iter()
        .map(|d| d.code)
        .collect();
    assert_eq!(codes, vec!["E0403"]);
}

#[test]
fn while_runs_until_its_precondition_fails_and_back() {
    let mut x = 0.0;
    s::while_up(&mut x, 9).unwrap();
    assert_eq!(x, 108.0);
    s::uncall_while_up(&mut x, 9).unwrap();
    assert_eq!(x, 0.0);
}

#[test]
fn a_while_postcondition_true_on_entry_fails() {
    let mut x = 0.0;
    let err = s::while_wrong_post(&mut x, 9).unwrap_err();
    assert_eq!(err.check, Check::WhileEntry);
    assert_eq!(err.location.file, "tests/nil/semantics.nil");
    assert_eq!((err.location.line, err.location.column), (17, 11));
}

#[test]
fn a_dirty_ancilla_fails_naming_line_and_values() {
    let err = s::dirty_ancilla(0).unwrap_err();
    assert_eq!(err.check, Check::Deallocation);
    assert_eq!(err.location.line, 26);
    assert_eq!((err.expected.as_str(), err.found.as_str()), ("0", "-9"));
    assert_eq!(
        err.to_string(),
        "tests/nil/semantics.nil:26:5: deallocation check failed: `z` must equal `0` when deallocated (expected 0, found -9)"
    );
}

#[test]
fn an_if_postcondition_that_disagrees_fails() {
    let mut out = 1.0;
    let err = s::if_wrong_post(&mut out, 2.0, 3.0).unwrap_err();
    assert_eq!(err.check, Check::IfPostcondition);
    assert_eq!(err.location.line, 30);
    // The message shows the values the condition read (after the rollback
    // `out` is 1.0 again; the check saw the value the branch left).
    assert_eq!(err.found, "false, where out = 7.0", "{err}");
    assert_eq!(out, 1.0);
}

#[test]
fn a_while_check_shows_what_the_condition_read() {
    let mut x = 0.0;
    let err = s::while_wrong_post(&mut x, 9).unwrap_err();
    assert_eq!(err.found, "true, where x = 0.0", "{err}");
}

#[test]
fn a_zero_step_is_an_error_not_an_empty_loop() {
    let mut x = 0.0;
    let err = s::for_with_step(&mut x, 0).unwrap_err();
    assert_eq!(err.check, Check::ForStep);
    assert_eq!(err.location.line, FOR_WITH_STEP_LINE);
    assert_eq!(
        err.to_string(),
        format!(
            "tests/nil/semantics.nil:{FOR_WITH_STEP_LINE}:13: `for` step is zero: the step of `1:s:5` must not be 0 (expected a step other than 0, found 0)"
        )
    );
    s::for_with_step(&mut x, 2).unwrap();
    assert_eq!(x, 3.0);
}

/// The interpreter stops at the same check with the same message as the
/// generated code: forwards, and in the uncall, where the range runs last
/// value first and is shown as `reverse(…)`.
#[test]
fn the_interpreter_reports_a_zero_step_as_the_generated_code_does() {
    use nilang_compiler::db::{self, RootDatabase, SourceFile};
    use nilang_interp::{Direction, Error, Interpreter, Value};
    let (mut x, mut y) = (0.0, 0.0);
    let forward = s::for_with_step(&mut x, 0).unwrap_err().to_string();
    let uncall = s::uncall_for_with_step(&mut y, 0).unwrap_err().to_string();
    assert!(uncall.contains("the step of `reverse(1:s:5)`"), "{uncall}");
    let db = RootDatabase::default();
    let path = concat!(env!("CARGO_MANIFEST_DIR"), "/nil/semantics.nil");
    let file = SourceFile::new(
        &db,
        "tests/nil/semantics.nil".into(),
        std::fs::read_to_string(path).unwrap(),
    );
    let project = db::project_with_std(&db, vec![file], Vec::new());
    for (direction, generated) in [(Direction::Forward, forward), (Direction::Backward, uncall)] {
        let mut interp = Interpreter::new(&db, project);
        let args = vec![Value::F64(0.0), Value::int(0)];
        match interp.call("for_with_step", args, direction) {
            Err(Error::Run(e)) => assert_eq!(e.to_string(), generated, "{direction:?}"),
            other => panic!("{direction:?}: {other:?}"),
        }
    }
}

#[test]
fn an_implicit_deallocation_points_at_the_end_of_its_block() {
    let mut x = 1.0;
    let err = s::loop_scratch(&mut x, 3).unwrap_err();
    assert_eq!(err.check, Check::Deallocation);
    assert_eq!(
        (err.location.line, err.location.column),
        (LOOP_SCRATCH_END, 5),
        "{err}"
    );
    assert_eq!(
        err.what,
        format!(
            "`t` (allocated at line {}) must equal `0.0` when freed at the end of its block",
            LOOP_SCRATCH_END - 3
        )
    );
    assert_eq!(x, 1.0, "rolled back");
}

#[test]
fn if_elseif_else_picks_one_branch() {
    for (x, expected) in [(1.0, 1.0), (-2.0, 2.0), (0.0, 3.0)] {
        let mut y = 0.0;
        s::branches(x, &mut y).unwrap();
        assert_eq!(y, expected, "x = {x}");
        s::uncall_branches(x, &mut y).unwrap();
        assert_eq!(y, 0.0);
    }
}

#[test]
fn inverted_blocks_run_backwards() {
    let mut out = 0.0;
    s::inverted_blocks(&mut out, 1.0).unwrap();
    assert_eq!(out, -5.0);
    s::uncall_inverted_blocks(&mut out, 1.0).unwrap();
    assert_eq!(out, 0.0);
}

#[test]
fn square_root_of_a_sum_of_squares() {
    let (mut res, mut y, x) = (0.0, 0.0, [1.0, 2.0, 3.0]);
    s::sqrt_of_squares(&mut res, &mut y, &x).unwrap();
    assert_eq!((res, y, x), (3.7416573867739413, 14.0, [1.0, 2.0, 3.0]));
    s::uncall_sqrt_of_squares(&mut res, &mut y, &x).unwrap();
    assert_eq!((res, y), (0.0, 0.0));
}

#[test]
fn a_stepped_loop_is_undone_last_element_first() {
    // Forwards visits 1 then 3; the inverse must visit 3 then 1, or `x`
    // does not come back.
    let mut x = [1.0, 10.0, 100.0, 1000.0];
    let mut out = 0.0;
    s::stepped(&mut x, &mut out).unwrap();
    assert_eq!((x, out), ([2.0, 10.0, 201.0, 1000.0], 101.0));
    s::uncall_stepped(&mut x, &mut out).unwrap();
    assert_eq!((x, out), ([1.0, 10.0, 100.0, 1000.0], 0.0));
}

#[test]
fn instructions_on_elements_of_one_array() {
    let original = [0.5, -1.25, 3.0];
    let mut v = original;
    s::swaps(&mut v, 1, 3).unwrap();
    assert_ne!(v, original);
    s::uncall_swaps(&mut v, 1, 3).unwrap();
    for (a, b) in v.iter().zip(original) {
        assert!((a - b).abs() < 1e-12, "{v:?}");
    }
}

#[test]
fn broadcasts_run_element_by_element_and_check_shapes() {
    use nilang::ndarray::{Array2, ShapeBuilder, array};
    let y = [0.5_f64, -1.0, 2.0];
    let mut x = [1.0_f64, 2.0, 3.0];
    let mut a = Array2::<f64>::zeros((3, 2).f());
    let b = array![[1.0, 2.0], [3.0, 4.0], [5.0, 6.0]];
    s::broadcasts(&mut x, &y, a.view_mut(), b.view(), 3.0).unwrap();
    for i in 0..3 {
        assert_eq!(x[i], [1.0, 2.0, 3.0][i] + y[i] * 3.0 - y[i].sin());
        assert_eq!(a[[i, 0]], 2.0 * b[[i, 0]]);
        assert_eq!(a[[i, 1]], 2.0 * b[[i, 1]] + y[i]);
    }
    s::uncall_broadcasts(&mut x, &y, a.view_mut(), b.view(), 3.0).unwrap();
    assert!(
        x.iter()
            .zip([1.0, 2.0, 3.0])
            .all(|(a, b)| (a - b).abs() < 1e-15),
        "{x:?}"
    );
    assert!(a.iter().all(|v| v.abs() < 1e-15), "{a}");
    // A `y` of the wrong length is a shape error naming the line, before
    // anything is changed.
    let mut x = [1.0_f64, 2.0, 3.0];
    let err = s::broadcasts(&mut x, &y[..2], a.view_mut(), b.view(), 3.0).unwrap_err();
    assert_eq!(err.check, Check::Shape);
    assert!(
        err.to_string().starts_with("tests/nil/semantics.nil:"),
        "{err}"
    );
    assert!(
        err.to_string().contains("`y` must have the shape of `x`"),
        "{err}"
    );
    assert_eq!(x, [1.0, 2.0, 3.0]);
}

#[test]
fn complex_arithmetic_and_its_uncall() {
    use nilang::Complex;
    let w = Complex::new(0.5_f64, -1.5);
    let z0 = Complex::new(1.0_f64, 2.0);
    let mut z = z0;
    s::complex_arith(&mut z, w, 0.25).unwrap();
    let mut expected = z0 + w * w - w.exp() / 2.0 + Complex::new(0.0, 0.25);
    expected.re += w.norm();
    assert!((z - expected).norm() < 1e-14, "{z} vs {expected}");
    s::uncall_complex_arith(&mut z, w, 0.25).unwrap();
    assert!((z - z0).norm() < 1e-14, "{z}");
}

#[test]
fn widening_and_explicit_rounding_convert_as_written() {
    use nilang_tests::conversions as c;
    let mut y = 0.0;
    c::widen(&mut y, 3).unwrap();
    assert_eq!(y, 2.0 + 4.0 + 6.0 + 0.75);
    c::uncall_widen(&mut y, 3).unwrap();
    assert_eq!(y, 0.0);

    // round(1.5) = 2 and floor(1.0) + 1 = 2: rounded, never truncated.
    let mut n = 0_i64;
    c::rounded(&mut n, 1.0).unwrap();
    assert_eq!(n, 4);
    c::uncall_rounded(&mut n, 1.0).unwrap();
    assert_eq!(n, 0);

    let mut n = 1_i64;
    c::cast_count(&mut n, 1.5).unwrap();
    assert_eq!(n, 4);
    c::uncall_cast_count(&mut n, 1.5).unwrap();
    assert_eq!(n, 1);

    let (mut z, mut r) = (nilang::Complex::new(0.0, 0.0), 0.0);
    c::complex_parts(&mut z, &mut r, 1.5).unwrap();
    assert_eq!((z.re, z.im, r), (3.0, 0.0, 6.0));
}

#[test]
fn literals_passed_for_a_generic_parameter_take_the_callers_type() {
    use nilang_tests::generic_literal as g;
    let mut x = 1.0_f32;
    g::literal_caller(&mut x).unwrap();
    assert!(
        (x - (1.0 + 0.5f32.sin() + (-2.0f32).sin())).abs() < 1e-6,
        "{x}"
    );
    let mut bar = 1.0_f32;
    g::literal_caller_grad(&mut x, &mut bar).unwrap();
    assert_eq!(bar, 1.0, "x only accumulates constants");
}

#[test]
fn an_array_freed_as_zeros_or_ones_is_checked_element_by_element() {
    let mut out = 0.0;
    s::free_filled(&mut out, 0.0, 0.0, 3).unwrap();
    assert_eq!(out, 1.0);
    let err = s::free_filled(&mut out, 0.5, 0.0, 3).unwrap_err();
    assert_eq!(err.check, Check::Deallocation);
    assert_eq!(
        err.to_string(),
        format!(
            "tests/nil/semantics.nil:{FREE_FILLED_V}:5: deallocation check failed: `v` must equal `zeros(f64, n)` when deallocated (expected [0.0, 0.0, 0.0], found [0.0, 0.5, 0.0])"
        )
    );
    // A length other than the array's.
    let err = s::free_filled(&mut out, 0.0, 0.0, 2).unwrap_err();
    assert!(
        err.to_string()
            .ends_with("(expected [0.0, 0.0], found [0.0, 0.0, 0.0])"),
        "{err}"
    );
    // The matrix.
    let err = s::free_filled(&mut out, 0.0, 0.25, 3).unwrap_err();
    assert_eq!(err.location.line, FREE_FILLED_V + 1);
    assert!(
        err.to_string()
            .contains("found [[1.0, 1.0],\n [1.25, 1.0]]"),
        "{err}"
    );
    assert_eq!(out, 1.0, "a failed call leaves `out` as it was");
}

#[test]
fn integers_wrap_and_the_uncall_undoes_it() {
    let start = (100i8, 1000i16, i64::MAX - 1, i64::MIN + 1);
    let (mut a, mut b, mut n, mut k) = start;
    s::int_wrap(&mut a, &mut b, &mut n, &mut k).unwrap();
    let a1 = 100i8.wrapping_add(100);
    assert_eq!(a, a1);
    assert_eq!(b, 1000i16.wrapping_sub((a1 as i64 * 300) as i16));
    assert_eq!(
        n,
        (i64::MAX - 1).wrapping_add((i64::MIN + 1).wrapping_mul(4))
    );
    assert_eq!(k, i64::MAX);
    s::uncall_int_wrap(&mut a, &mut b, &mut n, &mut k).unwrap();
    assert_eq!((a, b, n, k), start);
    // `NEG` of the minimum is the minimum.
    let (mut a, mut b, mut n, mut k) = (0i8, 0i16, 0i64, i64::MIN);
    s::int_wrap(&mut a, &mut b, &mut n, &mut k).unwrap();
    assert_eq!(k, i64::MIN);
}

#[test]
fn a_tape_loop_overwrite_of_an_integer_wraps_and_is_undone() {
    let (mut a, b) = (vec![200u8, 7], vec![1u8, 10]);
    let mut tape = nilang::Tape::new();
    s::int_wrap_tape(&mut a, &b, &mut tape).unwrap();
    // 1 - 3 wraps to 254; 200 * 254 wraps to 112 (a debug build panicked).
    assert_eq!(a, vec![200u8.wrapping_mul(1u8.wrapping_sub(3)), 49]);
    s::uncall_int_wrap_tape(&mut a, &b, &mut tape).unwrap();
    assert_eq!(a, vec![200, 7]);
}

#[test]
fn an_integer_quotient_by_zero_is_an_error_naming_the_line() {
    let mut q = 0;
    s::int_quotient(&mut q, -7, 2).unwrap();
    assert_eq!(q, -3 + 1);
    let mut q = 5;
    let err = s::int_quotient(&mut q, 7, 0).unwrap_err();
    assert_eq!(err.check, Check::Domain);
    assert_eq!(q, 5, "the call rolled back");
    assert!(
        err.to_string().ends_with(
            ":10: operation not defined for these values: integer `÷` of 7 and 0 (expected values it is defined for, found others)"
        ),
        "{err}"
    );
}

#[test]
fn round_takes_a_tie_to_the_even_neighbour() {
    for (x, want) in [(2.5, 2.0), (3.5, 4.0), (-2.5, -2.0), (0.4, 0.0), (1.6, 2.0)] {
        let mut y = 0.0;
        s::round_ties(&mut y, x).unwrap();
        assert_eq!(y, want, "round({x})");
    }
}

#[test]
fn div_truncates_the_exact_quotient() {
    // 0.1 is a little above a tenth, so 1.0 / 0.1 is a little below 10:
    // Julia's div is 9 (the quotient rounded first would be 10).
    for (a, b, want) in [(1.0, 0.1, 9.0), (7.0, 2.0, 3.0), (-7.0, 2.0, -3.0)] {
        let mut y = 0.0;
        s::quotient_exact(&mut y, a, b).unwrap();
        assert_eq!(y, 2.0 * want, "div({a}, {b})");
    }
}

//! A checked call that fails leaves every argument as it was passed, bit
//! for bit (`tests/nil/rollback.nil`): scalars, slices, ndarray views,
//! structs and stacks, failing at different points, inside loops and calls,
//! in the call, the uncall and the gradient.

use nilang::Check;
use nilang::ndarray::Array2;
use nilang_tests::rollback as r;

/// Values whose sums round, so that undoing the additions (`+= a; -= a`)
/// would not give them back exactly.
fn inputs() -> (f64, Vec<f64>, f64) {
    (100.0 + 1e-13, vec![0.1, 0.7, 1e16, 3.3], 0.3)
}

fn same_bits(a: &[f64], b: &[f64]) {
    let bits = |v: &[f64]| v.iter().map(|x| x.to_bits()).collect::<Vec<_>>();
    assert_eq!(bits(a), bits(b));
}

#[test]
fn a_failure_inside_a_loop_puts_back_the_scalar_and_the_slice() {
    for k in 1..=4 {
        let (mut out, mut y, x) = inputs();
        let (out0, y0) = (out, y.clone());
        let err = r::add_then_fail(&mut out, &mut y, x, k).unwrap_err();
        assert_eq!(err.check, Check::Deallocation, "{err}");
        assert_eq!(out.to_bits(), out0.to_bits(), "k = {k}");
        same_bits(&y, &y0);
    }
    // Without a failure the changes stay.
    let (mut out, mut y, x) = inputs();
    r::add_then_fail(&mut out, &mut y, x, 5).unwrap();
    assert_ne!(out, inputs().0);
    assert_ne!(y, inputs().1);
}

#[test]
fn a_failure_two_calls_deep_puts_back_what_the_outer_call_changed() {
    for k in [1, 3] {
        let (mut out, mut y, x) = inputs();
        let (out0, y0) = (out, y.clone());
        assert!(r::outer(&mut out, &mut y, x, k).is_err());
        assert_eq!(out.to_bits(), out0.to_bits());
        same_bits(&y, &y0);
        // The uncall too.
        assert!(r::uncall_outer(&mut out, &mut y, x, k).is_err());
        assert_eq!(out.to_bits(), out0.to_bits());
        same_bits(&y, &y0);
    }
}

#[test]
fn a_matrix_view_is_put_back() {
    let a0 = Array2::from_shape_vec((2, 3), vec![0.1, 0.2, 0.3, 0.4, 0.5, 0.6]).unwrap();
    for k in 1..=3 {
        let mut a = a0.clone();
        assert!(r::matrix_then_fail(a.view_mut(), 0.7, k).is_err());
        same_bits(a.as_slice().unwrap(), a0.as_slice().unwrap());
    }
    let mut a = a0.clone();
    r::matrix_then_fail(a.view_mut(), 0.7, 4).unwrap();
    assert_ne!(a, a0);
}

#[test]
fn a_struct_and_an_integer_are_put_back() {
    let mut p = r::Pair { a: 0.1, b: 0.2 };
    let mut n = 7;
    assert!(r::struct_then_fail(&mut p, &mut n, 0.3, 2).is_err());
    assert_eq!(
        (p.a.to_bits(), p.b.to_bits(), n),
        (0.1f64.to_bits(), 0.2f64.to_bits(), 7)
    );
    r::struct_then_fail(&mut p, &mut n, 0.3, 3).unwrap();
    assert_eq!(n, 12);
}

#[test]
fn a_stack_and_the_value_pushed_are_put_back() {
    let mut s = nilang::Stack::default();
    s.push(1.5);
    let mut v = 2.5;
    assert!(r::stack_then_fail(&mut s, &mut v, 1).is_err());
    assert_eq!(s.len(), 1);
    assert_eq!(v, 2.5);
    r::stack_then_fail(&mut s, &mut v, 2).unwrap();
    assert_eq!((s.len(), v), (2, 0.0));
}

#[test]
fn a_failing_gradient_puts_back_the_values_and_the_adjoints() {
    let (_, y0, _) = inputs();
    for k in 1..=4 {
        let mut out = 1.25;
        let mut out_bar = 1.0;
        let mut y_bar = vec![0.5; y0.len()];
        let err = r::grad_then_fail_grad(&mut out, &mut out_bar, &y0, &mut y_bar, k).unwrap_err();
        assert_eq!(err.check, Check::Deallocation);
        assert_eq!((out, out_bar), (1.25, 1.0));
        same_bits(&y_bar, &[0.5; 4]);
    }
}

#[test]
fn a_tape_argument_is_put_back_in_the_call_and_the_uncall() {
    let mut tape = nilang::Tape::new();
    tape.push(42.0f64);
    // The call records three values, then fails: they are forgotten.
    let mut y = 0.3;
    let err = r::tape_then_fail(&mut y, 1.7, 3, 2, 1, &mut tape).unwrap_err();
    assert_eq!(err.check, Check::Deallocation);
    assert_eq!((y, tape.len()), (0.3, 1));
    // It records for real.
    r::tape_then_fail(&mut y, 1.7, 3, 2, 2, &mut tape).unwrap();
    let (y1, len1) = (y, tape.len());
    assert!(len1 > 1);
    // The uncall pops them, then fails: they are live again, and a second
    // uncall succeeds from the same tape.
    let err = r::uncall_tape_then_fail(&mut y, 1.7, 3, 1, 2, &mut tape).unwrap_err();
    assert_eq!(err.check, Check::Deallocation);
    assert_eq!((y.to_bits(), tape.len()), (y1.to_bits(), len1));
    r::uncall_tape_then_fail(&mut y, 1.7, 3, 2, 2, &mut tape).unwrap();
    assert_eq!((y.to_bits(), tape.len()), (0.3f64.to_bits(), 1));
    assert_eq!(tape.pop::<f64>(LOCATION).unwrap(), 42.0);
}

const LOCATION: nilang::Location = nilang::Location {
    file: "rollback.rs",
    line: 1,
    column: 1,
};

#[test]
fn a_failing_accumulate_only_gradient_puts_back_the_adjoints() {
    // x < 2: no failure, the gradient is 2.
    let (mut out, mut out_bar, mut x_bar) = (1.25, 1.0, 0.25);
    r::loss_then_fail_grad(&mut out, &mut out_bar, 0.5, &mut x_bar).unwrap();
    assert_eq!(x_bar, 2.25);
    // x >= 2: the deallocation fails, and every argument is as passed.
    let (mut out, mut out_bar, mut x_bar) = (1.25, 1.0, 0.25);
    let err = r::loss_then_fail_grad(&mut out, &mut out_bar, 3.0, &mut x_bar).unwrap_err();
    assert_eq!(err.check, Check::Deallocation);
    assert_eq!((out, out_bar, x_bar), (1.25, 1.0, 0.25));
    // The gradient is the reverse pass alone, which meets the failure at
    // the inverse's deallocation (`t ← 0.0`, with t = -1): it reports the
    // failure where the forward run does, `t → 0.0` with t = 1 (issue 42
    // item 8).
    let forward = r::loss_then_fail(&mut out, 3.0).unwrap_err();
    assert_eq!(out, 1.25);
    assert_eq!(
        (err.location, &err.what, &err.expected, &err.found),
        (
            forward.location,
            &forward.what,
            &forward.expected,
            &forward.found
        ),
        "gradient: {err}\nforward: {forward}"
    );
    assert_eq!(forward.found, "1.0");
}

#[test]
fn a_fused_gradient_checks_the_final_deallocations_as_the_forward_run_does() {
    // x = 1: no failure; y and x swap, and y's adjoint goes to x.
    let (mut y, mut x, mut y_bar, mut x_bar) = (0.5, 1.0, 1.0, 0.0);
    r::fused_then_fail_grad(&mut y, &mut y_bar, &mut x, &mut x_bar).unwrap();
    assert_eq!((y, x), (0.5, 1.0));
    // x = 3: `s → 1.0` fails; the gradient says so where the forward run
    // does, with the same value, instead of running on (the fused reverse
    // pass never deallocates `s`) and returning a gradient.
    let (mut y, mut x, mut y_bar, mut x_bar) = (0.5, 3.0, 1.0, 0.25);
    let err = r::fused_then_fail_grad(&mut y, &mut y_bar, &mut x, &mut x_bar).unwrap_err();
    assert_eq!((y, x, y_bar, x_bar), (0.5, 3.0, 1.0, 0.25));
    let forward = r::fused_then_fail(&mut y, &mut x).unwrap_err();
    assert_eq!((y, x), (0.5, 3.0));
    assert_eq!(forward.check, Check::Deallocation);
    assert_eq!(
        (err.location, &err.what, &err.expected, &err.found),
        (
            forward.location,
            &forward.what,
            &forward.expected,
            &forward.found
        ),
        "gradient: {err}\nforward: {forward}"
    );
    assert_eq!(forward.found, "3.0");
}

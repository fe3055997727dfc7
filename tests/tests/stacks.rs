//! Stacks and typecasts on generated code: values, inverses, the run-time
//! checks (file, line, values) and gradients against central differences.

use nilang::{Check, Complex, Stack};
use nilang_tests::stacks;

const RTOL: f64 = 1e-6;
const ATOL: f64 = 1e-8;

#[test]
fn push_in_a_loop_then_pop_later() {
    let x = [0.3, -1.2, 2.0, 0.7];
    let mut out = 0.5;
    stacks::push_then_pop(&mut out, &x).unwrap();
    let expected: f64 = 0.5 + x.iter().map(|v| v.sin() * v).sum::<f64>();
    assert!((out - expected).abs() < 1e-12, "{out} vs {expected}");
    stacks::uncall_push_then_pop(&mut out, &x).unwrap();
    assert!((out - 0.5).abs() < 1e-12);
}

#[test]
fn push_in_a_loop_then_pop_gradient_matches_differences() {
    let x = [0.3, -1.2, 2.0, 0.7];
    let mut out = 0.0;
    let mut out_bar = 1.0;
    let mut x_bar = [0.0; 4];
    stacks::push_then_pop_grad(&mut out, &mut out_bar, &x, &mut x_bar).unwrap();
    let loss = |p: &[f64]| {
        let mut o = 0.0;
        stacks::push_then_pop(&mut o, p).unwrap();
        o
    };
    nilang::check_gradient(loss, &x, &x_bar, RTOL, ATOL).unwrap();
    // The adjoints of the pushed values came back: d/dx (x sin x).
    for (g, v) in x_bar.iter().zip(&x) {
        assert!((g - (v.sin() + v * v.cos())).abs() < 1e-12);
    }
}

#[test]
fn copy_pushed_then_popped_carries_its_adjoint() {
    let (a, b) = (0.4, -1.5);
    let mut out = 0.0;
    stacks::copy_then_pop(&mut out, a, b).unwrap();
    assert!((out - a.exp() * b).abs() < 1e-12);
    let (mut out_bar, mut a_bar, mut b_bar) = (1.0, 0.0, 0.0);
    let mut o = 0.0;
    stacks::copy_then_pop_grad(&mut o, &mut out_bar, a, &mut a_bar, b, &mut b_bar).unwrap();
    let loss = |p: &[f64]| {
        let mut o = 0.0;
        stacks::copy_then_pop(&mut o, p[0], p[1]).unwrap();
        o
    };
    nilang::check_gradient(loss, &[a, b], &[a_bar, b_bar], RTOL, ATOL).unwrap();
}

#[test]
fn through_callees_gradient_matches_differences() {
    let x = 1.3;
    let mut y = 0.0;
    stacks::through_callees(&mut y, x).unwrap();
    assert!((y - x.powi(3)).abs() < 1e-12);
    let (mut y_bar, mut x_bar) = (1.0, 0.0);
    let mut y0 = 0.0;
    stacks::through_callees_grad(&mut y0, &mut y_bar, x, &mut x_bar).unwrap();
    let loss = |p: &[f64]| {
        let mut y = 0.0;
        stacks::through_callees(&mut y, p[0]).unwrap();
        y
    };
    nilang::check_gradient(loss, &[x], &[x_bar], RTOL, ATOL).unwrap();
}

#[test]
fn a_stack_parameter_and_its_inverse() {
    let mut s = Stack::from_vec(vec![1.0]);
    let mut x = 2.5;
    stacks::push_onto(&mut s, &mut x).unwrap();
    assert_eq!((s.as_slice(), x), (&[1.0, 2.5][..], 0.0));
    stacks::uncall_push_onto(&mut s, &mut x).unwrap();
    assert_eq!((s.as_slice(), x), (&[1.0][..], 2.5));
    // COPYPUSH! of an expression, undone by COPYPOP!.
    stacks::copy_onto(&mut s, 4.0).unwrap();
    assert_eq!(s.as_slice(), &[1.0, 8.0]);
    stacks::uncall_copy_onto(&mut s, 4.0).unwrap();
    assert_eq!(s.as_slice(), &[1.0]);
}

#[test]
fn a_stack_parameter_has_an_adjoint_stack() {
    // push_onto moves x onto s: the adjoint seeded on the new top comes
    // back to x; the adjoint stack loses that entry.
    let mut s = Stack::from_vec(vec![1.0]);
    let mut x = 2.5;
    let mut s_bar = Stack::from_vec(vec![0.0]);
    let mut x_bar = 0.0;
    stacks::push_onto(&mut s, &mut x).unwrap();
    s_bar.push(3.0);
    stacks::push_onto_adjoint(&mut s, &mut s_bar, &mut x, &mut x_bar).unwrap();
    assert_eq!((x, x_bar), (2.5, 3.0));
    assert_eq!(s_bar.as_slice(), &[0.0]);
    // copy_onto pushes 2x: undoing it pops the copy's adjoint into x's, times 2.
    let mut x_bar = 0.0;
    stacks::copy_onto(&mut s, 4.0).unwrap();
    s_bar.push(1.5);
    stacks::copy_onto_adjoint(&mut s, &mut s_bar, 4.0, &mut x_bar).unwrap();
    assert_eq!(x_bar, 3.0);
    // An adjoint stack shorter than its stack is reported, not a panic.
    let mut x = 0.0;
    stacks::push_onto(&mut s, &mut x).unwrap();
    let mut empty = Stack::new();
    let e = stacks::push_onto_adjoint(&mut s, &mut empty, &mut x, &mut x_bar).unwrap_err();
    assert_eq!(e.check, Check::Stack);
    assert!(e.what.contains("adjoint stack"), "{e}");
}

#[test]
fn integer_and_complex_stacks() {
    let (mut n, mut m) = (5, 0);
    let (mut z, mut w) = (Complex::new(1.0, -2.0), Complex::new(0.0, 0.0));
    stacks::move_through(&mut n, &mut m, &mut z, &mut w).unwrap();
    assert_eq!(
        (n, m, z, w),
        (0, 5, Complex::new(0.0, 0.0), Complex::new(1.0, -2.0))
    );
    stacks::uncall_move_through(&mut n, &mut m, &mut z, &mut w).unwrap();
    assert_eq!(
        (n, m, z, w),
        (5, 0, Complex::new(1.0, -2.0), Complex::new(0.0, 0.0))
    );
    // The gradient moves w's adjoint to z.
    let (mut z_bar, mut w_bar) = (Complex::new(0.0, 0.0), Complex::new(0.25, -4.0));
    stacks::move_through_grad(&mut n, &mut m, &mut z, &mut z_bar, &mut w, &mut w_bar).unwrap();
    assert_eq!(
        (z_bar, w_bar),
        (Complex::new(0.25, -4.0), Complex::new(0.0, 0.0))
    );
    // m must be zero for POP!.
    let (mut n, mut m) = (5, 1);
    let e = stacks::move_through(&mut n, &mut m, &mut z, &mut w).unwrap_err();
    assert_eq!((e.check, e.location.line), (Check::Stack, 83));
}

#[test]
fn stack_checks_name_the_line_and_the_values() {
    // A stack freed while not empty.
    let e = stacks::leaks(&mut 1.5).unwrap_err();
    assert_eq!(e.check, Check::Stack);
    assert_eq!(e.location.file, "tests/nil/stacks.nil");
    // Freed implicitly: at the `end` of the function (the `←` is line 90).
    assert_eq!(e.location.line, 92);
    assert!(e.what.contains("must be empty"), "{e}");
    assert!(e.found.contains("1.5"), "{e}");
    // POP! from an empty stack.
    let e = stacks::pop_from(&mut Stack::new(), &mut 0.0).unwrap_err();
    assert_eq!((e.check, e.location.line), (Check::Stack, 51));
    assert!(e.what.contains("the stack `s!` is empty"), "{e}");
    assert_eq!(
        (e.expected.as_str(), e.found.as_str()),
        ("a value to take", "the stack `s!` empty")
    );
    // POP! into a value that is not zero.
    let mut s = Stack::from_vec(vec![1.0]);
    let e = stacks::pops_into_nonzero(&mut s, &mut 2.0).unwrap_err();
    assert_eq!((e.check, e.location.line), (Check::Stack, 96));
    assert!(e.what.contains("must be zero"), "{e}");
    assert_eq!(e.found, "2.0");
    // COPYPOP! of a value that is not the top.
    let mut s = Stack::from_vec(vec![1.0]);
    let e = stacks::copypop(&mut s, 3.0).unwrap_err();
    assert_eq!((e.check, e.location.line), (Check::Stack, 101));
    assert_eq!((e.expected.as_str(), e.found.as_str()), ("3.0", "1.0"));
    assert!(e.to_string().contains("tests/nil/stacks.nil:101"), "{e}");
}

#[test]
fn casts_through_integers_are_checked_lossless() {
    let mut y = 0.0;
    stacks::through_int(&mut y, 1.5).unwrap();
    assert_eq!(y, 12.0);
    stacks::uncall_through_int(&mut y, 1.5).unwrap();
    assert_eq!(y, 0.0);
    // 2.5 + 0.25 is no integer.
    let e = stacks::through_int(&mut y, 0.25).unwrap_err();
    assert_eq!((e.check, e.location.line), (Check::Cast, 109));
    assert!(e.what.contains("(f64 => i64)(z)"), "{e}");
    assert_eq!(e.found, "2.75");
    // Integer casts carry no adjoint.
    let (mut y, mut y_bar, mut x_bar) = (0.0, 1.0, 0.0);
    stacks::through_int_grad(&mut y, &mut y_bar, 1.5, &mut x_bar).unwrap();
    assert_eq!(x_bar, 0.0);
    // An integer becomes a float, and is freed as one.
    let mut y = 0.0;
    stacks::int_to_float(&mut y, 3).unwrap();
    assert_eq!(y, 1.5);
    stacks::uncall_int_to_float(&mut y, 3).unwrap();
    assert_eq!(y, 0.0);
    // u8 holds 0..=255 only.
    let mut k = 0;
    stacks::narrow(&mut k, 200).unwrap();
    assert_eq!(k, 200);
    let e = stacks::narrow(&mut k, 256).unwrap_err();
    assert_eq!((e.check, e.found.as_str()), (Check::Cast, "256"));
    let e = stacks::narrow(&mut k, -1).unwrap_err();
    assert_eq!(e.check, Check::Cast);
}

#[test]
fn float_casts_carry_the_adjoint() {
    let loss = |p: &[f64]| {
        let mut y = 0.0;
        stacks::through_complex(&mut y, p[0]).unwrap();
        y
    };
    for x in [0.7, -2.0] {
        let (mut y, mut y_bar, mut x_bar) = (0.0, 1.0, 0.0);
        stacks::through_complex_grad(&mut y, &mut y_bar, x, &mut x_bar).unwrap();
        assert_eq!(y, 0.0, "the gradient leaves the arguments as they were");
        assert!((loss(&[x]) - x * x).abs() < 1e-12);
        nilang::check_gradient(loss, &[x], &[x_bar], RTOL, ATOL).unwrap();
    }
    // f32 holds 0.75 exactly, so the cast is lossless and the adjoint 2.
    let (mut y, mut y_bar, mut x_bar) = (0.0, 1.0, 0.0);
    stacks::through_f32_grad(&mut y, &mut y_bar, 0.75, &mut x_bar).unwrap();
    assert_eq!((y, x_bar), (0.0, 2.0));
    stacks::through_f32(&mut y, 0.75).unwrap();
    assert_eq!(y, 1.5);
    // 0.1 is not an f32.
    let e = stacks::through_f32(&mut 0.0, 0.1).unwrap_err();
    assert_eq!(e.check, Check::Cast);
    assert!(e.what.contains("(f64 => f32)(z)"), "{e}");
}

#[test]
fn generic_stacks() {
    let mut s: Stack<f32> = Stack::new();
    let mut c: Stack<Complex<f32>> = Stack::new();
    let mut x = 1.5f32;
    let z = Complex::new(1.0f32, -0.5);
    stacks::generic_moves(&mut s, &mut x, &mut c, z).unwrap();
    assert_eq!((s.as_slice(), x), (&[1.5f32][..], 0.0));
    assert_eq!(c.as_slice(), &[Complex::new(2.0f32, -1.0)]);
    stacks::uncall_generic_moves(&mut s, &mut x, &mut c, z).unwrap();
    assert!(s.is_empty() && c.is_empty());
    assert_eq!(x, 1.5);
    // The adjoint of the copy goes to z, times 2; x's comes back from s_bar.
    let (mut s_bar, mut c_bar) = (Stack::new(), Stack::new());
    let (mut x_bar, mut z_bar) = (0.0f32, Complex::new(0.0f32, 0.0));
    stacks::generic_moves(&mut s, &mut x, &mut c, z).unwrap();
    s_bar.push(3.0f32);
    c_bar.push(Complex::new(1.0f32, 0.5));
    stacks::generic_moves_adjoint(
        &mut s, &mut s_bar, &mut x, &mut x_bar, &mut c, &mut c_bar, z, &mut z_bar,
    )
    .unwrap();
    assert_eq!((x, x_bar), (1.5, 3.0));
    assert_eq!(z_bar, Complex::new(2.0, 1.0));
    assert!(s_bar.is_empty() && c_bar.is_empty());
}

#[test]
fn a_routine_that_pushes_gradient_matches_differences() {
    let loss = |p: &[f64]| {
        let mut y = 0.0;
        stacks::routine_stack(&mut y, p[0]).unwrap();
        y
    };
    for x in [0.3, -1.1] {
        assert!((loss(&[x]) - x.exp() * x).abs() < 1e-12);
        let (mut y, mut y_bar, mut x_bar) = (0.0, 1.0, 0.0);
        stacks::routine_stack_grad(&mut y, &mut y_bar, x, &mut x_bar).unwrap();
        nilang::check_gradient(loss, &[x], &[x_bar], RTOL, ATOL).unwrap();
    }
}

#[test]
fn a_cast_in_a_routine_gradient_matches_differences() {
    let loss = |p: &[f64]| {
        let mut y = 0.0;
        stacks::routine_cast(&mut y, p[0]).unwrap();
        y
    };
    for x in [0.3, -1.1] {
        assert!((loss(&[x]) - x * x).abs() < 1e-12);
        let (mut y, mut y_bar, mut x_bar) = (0.0, 1.0, 0.0);
        stacks::routine_cast_grad(&mut y, &mut y_bar, x, &mut x_bar).unwrap();
        nilang::check_gradient(loss, &[x], &[x_bar], RTOL, ATOL).unwrap();
    }
    let mut y = 1.0;
    stacks::routine_cast(&mut y, 2.0).unwrap();
    stacks::uncall_routine_cast(&mut y, 2.0).unwrap();
    assert_eq!(y, 1.0);
}

#[test]
fn a_cast_in_a_routine_that_allocates_the_ancilla() {
    let loss = |p: &[f64]| {
        let mut y = p[1];
        stacks::routine_cast_neg(&mut y, p[0]).unwrap();
        y
    };
    for (x, y0) in [(0.3, 1.0), (-1.1, -0.5)] {
        assert!((loss(&[x, y0]) + y0 + x * x).abs() < 1e-12);
        let (mut y, mut y_bar, mut x_bar) = (y0, 1.0, 0.0);
        stacks::routine_cast_neg_grad(&mut y, &mut y_bar, x, &mut x_bar).unwrap();
        nilang::check_gradient(loss, &[x, y0], &[x_bar, y_bar], RTOL, ATOL).unwrap();
    }
}

#[test]
fn length_of_a_stack() {
    let s = Stack::from_vec(vec![1.0, 2.0, 3.0]);
    let mut n = 10;
    stacks::stack_size(&mut n, &s).unwrap();
    assert_eq!(n, 13);
    stacks::uncall_stack_size(&mut n, &s).unwrap();
    assert_eq!(n, 10);
    // The length is a read-only factor: d(x length(s))/dx = length(s).
    let (mut y, mut y_bar, mut x_bar) = (0.0, 1.0, 0.0);
    let mut s_bar = Stack::from_vec(vec![0.0; 3]);
    stacks::scaled_by_count_grad(&mut y, &mut y_bar, 0.5, &mut x_bar, &s, &mut s_bar).unwrap();
    assert_eq!(x_bar, 3.0);
    assert_eq!(s_bar.as_slice(), &[0.0; 3]);
}

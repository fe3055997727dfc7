//! `Dual<T>`: every `Real` method against central differences, nested
//! duals for second and third derivatives, and the value-only comparisons.

use nilang_runtime::num_traits::{Num, One, Zero};
use nilang_runtime::{CheckEq, Complex, Dual, Real, central_difference};

type D1 = Dual<f64>;
type D2 = Dual<Dual<f64>>;
type D3 = Dual<Dual<Dual<f64>>>;

const H: f64 = 1e-6;

/// A constant of any `Real`.
fn c<T: Real>(v: f64) -> T {
    T::from_f64(v)
}

/// `f'(x)` by a central difference.
fn fd(f: impl Fn(f64) -> f64, x: f64) -> f64 {
    central_difference(|v| f(v[0]), &[x], H)[0]
}

fn close(got: f64, want: f64, rtol: f64, what: &str) {
    assert!(
        (got - want).abs() <= 1e-8 + rtol * want.abs(),
        "{what}: got {got}, want {want}"
    );
}

/// `x` seeded for a second derivative: `f''(x)` comes out in `eps.eps`.
fn seed2(x: f64) -> D2 {
    Dual::new(Dual::new(x, 1.0), Dual::new(1.0, 0.0))
}

/// `x` seeded for a third derivative: `f'''(x)` in `eps.eps.eps`.
fn seed3(x: f64) -> D3 {
    Dual::new(
        Dual::new(Dual::new(x, 1.0), Dual::new(1.0, 0.0)),
        Dual::new(Dual::new(1.0, 0.0), Dual::zero()),
    )
}

/// Evaluates the expression (in `x`) on `f64`, `Dual<f64>` and
/// `Dual<Dual<f64>>` at each point: the values agree, the first derivative
/// matches a central difference of the `f64` function and the second one a
/// central difference of the first.
macro_rules! check {
    ($name:literal, |$x:ident| $body:expr, $points:expr) => {{
        fn f<T: Real>($x: T) -> T {
            $body
        }
        let f0 = f::<f64>;
        let f1 = f::<D1>;
        let f2 = f::<D2>;
        for &p in &$points {
            let what = format!("{} at {}", $name, p);
            let value = f0(p);
            let d1 = f1(D1::new(p, 1.0));
            assert_eq!(d1.re.to_bits(), value.to_bits(), "{what}: value");
            close(d1.eps, fd(f0, p), 1e-6, &format!("{what}: f'"));

            let d2 = f2(seed2(p));
            assert_eq!(d2.re.re.to_bits(), value.to_bits(), "{what}: nested value");
            close(
                d2.re.eps,
                d1.eps,
                1e-12,
                &format!("{what}: nested f' (inner)"),
            );
            close(
                d2.eps.re,
                d1.eps,
                1e-12,
                &format!("{what}: nested f' (outer)"),
            );
            let f1_eps = |v: f64| f1(D1::new(v, 1.0)).eps;
            close(d2.eps.eps, fd(f1_eps, p), 1e-6, &format!("{what}: f''"));
        }
    }};
}

#[test]
fn arithmetic() {
    check!("x + x", |x| x + x, [0.3, -1.2]);
    check!("x - 2", |x| x - c(2.0), [0.3, -1.2]);
    check!("-x * x", |x| -x * x, [0.3, -1.2]);
    check!("3 / x", |x| c::<T>(3.0) / x, [0.3, -1.2]);
    check!("x / (x + 2)", |x| x / (x + c(2.0)), [0.3, -1.2]);
    check!(
        "poly / x",
        |x| (x * x + x * c(3.0) - c::<T>(1.0) / x) / (x + c(2.0)),
        [0.7, -1.3]
    );
    check!(
        "assign ops",
        |x| {
            let mut y = x;
            y += x * x;
            y -= c(0.5);
            y *= x;
            y /= x + c(4.0);
            y
        },
        [0.7, -1.3]
    );
}

#[test]
fn transcendental() {
    check!("sqrt", |x| x.sqrt(), [0.3, 2.5]);
    check!("exp", |x| x.exp(), [-0.7, 1.3]);
    check!("ln", |x| x.ln(), [0.4, 3.0]);
    check!("ln_1p", |x| x.ln_1p(), [-0.5, 1e-3, 2.0]);
    check!("exp_m1", |x| x.exp_m1(), [-0.5, 1e-3, 1.2]);
    check!("sin", |x| x.sin(), [0.3, -1.1]);
    check!("cos", |x| x.cos(), [0.3, -1.1]);
    check!("tan", |x| x.tan(), [0.3, -1.1]);
    check!("sinh", |x| x.sinh(), [0.4, -1.3]);
    check!("cosh", |x| x.cosh(), [0.4, -1.3]);
    check!("tanh", |x| x.tanh(), [0.4, -1.3]);
    check!("asin", |x| x.asin(), [0.3, -0.6]);
    check!("acos", |x| x.acos(), [0.3, -0.6]);
    check!("atan", |x| x.atan(), [0.5, -2.0]);
    check!("abs2", |x| x.abs2(), [0.5, -2.0]);
    check!("inv", |x| x.inv(), [0.5, -2.0]);
    check!("abs", |x| x.abs(), [0.8, -0.8]);
}

#[test]
fn atan2_differentiates_both_arguments() {
    check!("atan2(x, 0.7)", |x| x.atan2(c(0.7)), [0.4, -1.5]);
    check!("atan2(x, -0.7)", |x| x.atan2(c(-0.7)), [0.4, -1.5]);
    check!("atan2(0.7, x)", |x| c::<T>(0.7).atan2(x), [0.4, -1.5]);
    check!("atan2(-0.4, x)", |x| c::<T>(-0.4).atan2(x), [0.4, -1.5]);
    check!("atan2(x*x, x)", |x| (x * x).atan2(x), [0.4, -1.5]);
}

#[test]
fn powers() {
    check!("powi 3", |x| x.powi(3), [0.6, -1.4]);
    check!("powi -2", |x| x.powi(-2), [0.6, -1.4]);
    check!("powi 1", |x| x.powi(1), [0.6, -1.4]);
    check!("powi 0", |x| x.powi(0), [0.6, -1.4]);
    check!("powi 7", |x| x.powi(7), [0.6, -1.4]);
    check!("powf 2.5", |x| x.powf(c(2.5)), [0.4, 2.0]);
    check!("powf -1.5", |x| x.powf(c(-1.5)), [0.4, 2.0]);
    check!("powf 3 of negative", |x| x.powf(c(3.0)), [-1.5, 0.8]);
    check!("1.7 ^ x", |x| c::<T>(1.7).powf(x), [0.6, -1.4]);
    check!("x ^ x", |x| x.powf(x), [0.6, 1.4]);
    check!("x ^ (2x)", |x| x.powf(x * c(2.0)), [0.6, 1.4]);
}

#[test]
fn piecewise() {
    check!("min", |x| x.min(c(0.5)), [0.2, 0.9]);
    check!("max", |x| (x * x).max(x), [0.4, 1.5]);
    check!("floor", |x| x.floor() + x, [0.3, -1.7]);
    check!("ceil", |x| x.ceil() * x, [0.3, -1.7]);
    check!("round", |x| x.round() * x, [0.3, -1.7]);
    check!("signum", |x| x.signum() * x, [0.3, -1.7]);
    check!("x % 0.7", |x| x % c(0.7), [2.3, -2.3]);
    check!("5.3 % x", |x| c::<T>(5.3) % x, [1.2, -1.9]);
    check!("x^2 % x+1", |x| (x * x) % (x + c(1.0)), [2.6, -2.8]);
    check!(
        "%=",
        |x| {
            let mut y = x * c(3.0);
            y %= x.exp();
            y
        },
        [1.1, 2.2]
    );
}

#[test]
fn second_derivatives_against_analytic_values() {
    for x in [0.3, 1.7] {
        let sin = seed2(x).sin();
        close(sin.eps.eps, -x.sin(), 1e-12, "sin''");
        let exp = seed2(x).exp();
        close(exp.eps.eps, x.exp(), 1e-12, "exp''");
        let cube = seed2(x).powi(3);
        close(cube.re.eps, 3.0 * x * x, 1e-12, "(x^3)'");
        close(cube.eps.eps, 6.0 * x, 1e-12, "(x^3)''");
        let inv2 = seed2(x).powi(-2);
        close(inv2.eps.eps, 6.0 * x.powi(-4), 1e-12, "(x^-2)''");
        let sqrt = seed2(x).sqrt();
        close(sqrt.eps.eps, -0.25 * x.powf(-1.5), 1e-12, "sqrt''");
        // atan2(x, a)'' = -2 a x / (a² + x²)², atan2(a, x)'' = 2 a x / (a² + x²)².
        let a = 0.8;
        let r4 = (a * a + x * x).powi(2);
        let y = seed2(x).atan2(c(a));
        close(y.re.eps, a / (a * a + x * x), 1e-12, "atan2(x, a)'");
        close(y.eps.eps, -2.0 * a * x / r4, 1e-12, "atan2(x, a)''");
        let y = c::<D2>(a).atan2(seed2(x));
        close(y.re.eps, -a / (a * a + x * x), 1e-12, "atan2(a, x)'");
        close(y.eps.eps, 2.0 * a * x / r4, 1e-12, "atan2(a, x)''");
    }
}

/// What generated code for a `where T: Real` function looks like.
fn generic_poly<T: Real>(x: T) -> T {
    let mut y = nilang_runtime::zero::<T>();
    y += T::from_f64(2.0) * x.powi(3);
    y -= T::from_i64(5) * x;
    y += x.exp();
    y
}

#[test]
fn a_generic_function_on_f64_dual_and_dual_of_dual() {
    for x in [0.5, -1.25] {
        let value = 2.0 * x.powi(3) - 5.0 * x + x.exp();
        let first = 6.0 * x * x - 5.0 + x.exp();
        let second = 12.0 * x + x.exp();
        close(generic_poly(x), value, 1e-14, "f64");
        let d1 = generic_poly(Dual::variable(x));
        close(d1.re, value, 1e-14, "Dual value");
        close(d1.eps, first, 1e-14, "Dual f'");
        let d2 = generic_poly(seed2(x));
        close(d2.re.re, value, 1e-14, "Dual<Dual> value");
        close(d2.re.eps, first, 1e-14, "Dual<Dual> f'");
        close(d2.eps.re, first, 1e-14, "Dual<Dual> f' (outer)");
        close(d2.eps.eps, second, 1e-14, "Dual<Dual> f''");
    }
}

#[test]
fn mixed_second_derivative_of_two_variables() {
    // f(x, y) = x² y + sin(x y); ∂²f/∂x∂y = 2x + cos(xy) - xy sin(xy).
    let f = |x: D2, y: D2| x * x * y + (x * y).sin();
    let (x0, y0) = (0.7, -1.3);
    let x = Dual::new(Dual::new(x0, 1.0), Dual::zero());
    let y = Dual::new(Dual::constant(y0), Dual::new(1.0, 0.0));
    let r = f(x, y);
    let xy = x0 * y0;
    close(r.re.eps, 2.0 * x0 * y0 + y0 * xy.cos(), 1e-12, "∂f/∂x");
    close(r.eps.re, x0 * x0 + x0 * xy.cos(), 1e-12, "∂f/∂y");
    close(
        r.eps.eps,
        2.0 * x0 + xy.cos() - xy * xy.sin(),
        1e-12,
        "∂²f/∂x∂y",
    );
}

#[test]
fn third_derivatives_and_f32() {
    for x in [0.4, -1.1] {
        let y = seed3(x).powi(4) + seed3(x).sin();
        close(y.re.re.re, x.powi(4) + x.sin(), 1e-14, "value");
        close(y.re.re.eps, 4.0 * x.powi(3) + x.cos(), 1e-12, "f'");
        close(y.re.eps.eps, 12.0 * x * x - x.sin(), 1e-12, "f''");
        close(y.eps.eps.eps, 24.0 * x - x.cos(), 1e-12, "f'''");
        let y = generic_poly(seed3(x));
        close(y.eps.eps.eps, 12.0 + x.exp(), 1e-12, "poly'''");
    }
    let y = Dual::<f32>::variable(0.5).sin() * Dual::from(2.0f32);
    assert!((y.eps - 2.0 * 0.5f32.cos()).abs() < 1e-6);
    let y = generic_poly(Dual::new(Dual::new(0.5f32, 1.0), Dual::new(1.0, 0.0)));
    assert!((y.eps.eps - (6.0 + 0.5f32.exp())).abs() < 1e-5);
}

#[test]
fn comparisons_look_at_values() {
    let a = D1::new(1.0, 5.0);
    let b = D1::new(1.0, -3.0);
    let two = D1::new(2.0, 0.0);
    assert_eq!(a, b);
    assert!(a < two && two > b && a <= b && a >= b);
    assert_eq!(a.partial_cmp(&two), Some(std::cmp::Ordering::Less));
    // min and max return the whole chosen dual.
    assert_eq!(a.min(two).eps, 5.0);
    assert_eq!(two.max(b).eps, 0.0);
    assert_eq!(D1::new(3.0, 1.0).min(D1::new(-1.0, 7.0)).eps, 7.0);
    assert_eq!(D1::new(3.0, 1.0).max(D1::new(-1.0, 7.0)).eps, 1.0);
    // abs negates the whole dual below zero.
    let n = D1::new(-2.0, 0.5).abs();
    assert_eq!((n.re, n.eps), (2.0, -0.5));
    // Branches in a generic function follow the value.
    fn relu<T: Real>(x: T) -> T {
        if x > nilang_runtime::zero() {
            x
        } else {
            nilang_runtime::zero()
        }
    }
    assert_eq!(relu(D1::new(0.5, 1.0)).eps, 1.0);
    assert_eq!(relu(D1::new(-0.5, 1.0)).eps, 0.0);
    // Nested: by the innermost value.
    assert_eq!(seed2(1.0), c::<D2>(1.0));
    assert!(seed2(1.0) < c::<D2>(1.5));
    // is_zero agrees with `==`.
    assert!(D1::new(0.0, 1.0).is_zero());
    assert_eq!(D1::new(0.0, 1.0), D1::zero());
}

#[test]
fn approx_eq_compares_both_parts() {
    let a = D1::new(1.0, 2.0);
    assert!(a.approx_eq(D1::new(1.0 + 1e-10, 2.0 - 1e-10), 1e-8));
    assert!(!a.approx_eq(D1::new(1.0, 2.1), 1e-8));
    assert!(a.check_eq(&D1::new(1.0, 2.0), 1e-8));
    assert!(!a.check_eq(&D1::new(1.0, 2.1), 1e-8));
    assert!(!seed2(1.0).check_eq(&c::<D2>(1.0), 1e-8));
    assert!(seed2(1.0).check_eq(&seed2(1.0), 0.0));
}

#[test]
fn rem_value_and_derivatives() {
    let r = D1::new(7.5, 1.0) % D1::new(2.0, 0.5);
    assert_eq!((r.re, r.eps), (1.5, 1.0 - 0.5 * 3.0));
    let r = D1::new(-7.5, 1.0) % D1::new(2.0, 0.5);
    assert_eq!((r.re, r.eps), (-1.5, 1.0 + 0.5 * 3.0));
    let r = D1::new(7.5, 1.0) % D1::new(-2.0, 0.5);
    assert_eq!((r.re, r.eps), (1.5, 1.0 + 0.5 * 3.0));
    let mut m = D1::new(7.5, 1.0);
    m %= D1::constant(2.0);
    assert_eq!((m.re, m.eps), (1.5, 1.0));
    // The quotient is an exact integer even where the division rounds.
    // ((0.3137 - 0.3137 % 0.0213) / 0.0213 is 14.000000000000002 in f64.)
    let r = D1::new(0.3137, 0.0) % D1::new(0.0213, 1.0);
    assert_eq!(r.eps, -14.0);
    // Nested: the quotient carries no derivative of its own.
    let r = seed2(7.5) % c::<D2>(2.0);
    assert_eq!(
        (r.re.re, r.re.eps, r.eps.re, r.eps.eps),
        (1.5, 1.0, 1.0, 0.0)
    );
}

#[test]
fn constants_parsing_and_display() {
    let p = <D1 as Num>::from_str_radix("2.5", 10).unwrap();
    assert_eq!((p.re, p.eps), (2.5, 0.0));
    assert!(<D1 as Num>::from_str_radix("two", 10).is_err());
    let q = <D2 as Num>::from_str_radix("-4", 10).unwrap();
    assert!(q.check_eq(&c::<D2>(-4.0), 0.0));
    let i = <Dual<i64> as Num>::from_str_radix("ff", 16).unwrap();
    assert_eq!((i.re, i.eps), (255, 0));

    assert!(D1::zero().check_eq(&D1::new(0.0, 0.0), 0.0));
    assert!(D1::one().check_eq(&D1::new(1.0, 0.0), 0.0));
    assert!(D1::default().check_eq(&D1::zero(), 0.0));
    assert!(D1::from(3.0).check_eq(&D1::constant(3.0), 0.0));
    assert!(D1::from_i64(-2).check_eq(&D1::new(-2.0, 0.0), 0.0));
    assert!(nilang_runtime::one::<D2>().check_eq(&c::<D2>(1.0), 0.0));
    assert_eq!(D1::new(1.5, 7.0).to_f64(), 1.5);
    assert_eq!(seed2(1.5).to_f64(), 1.5);

    assert_eq!(D1::new(1.5, 0.25).to_string(), "1.5 + 0.25ε");
    assert_eq!(format!("{:.2}", D1::new(1.0, -0.125)), "1.00 + -0.12ε");
    assert_eq!(seed2(1.5).to_string(), "(1.5 + 1ε) + (1 + 0ε)ε");
    assert_eq!(
        format!("{:?}", D1::new(1.5, 0.25)),
        "Dual { re: 1.5, eps: 0.25 }"
    );
}

#[test]
fn constants_stay_constant_where_the_derivative_is_infinite() {
    assert_eq!(D1::constant(0.0).sqrt().eps, 0.0);
    assert_eq!(D1::constant(0.0).ln().eps, 0.0);
    assert_eq!(D1::constant(1.0).asin().eps, 0.0);
    assert_eq!(D1::constant(0.0).atan2(D1::constant(0.0)).eps, 0.0);
    // 0 ^ p with a constant p: p 0^(p-1) x', not ln 0.
    assert_eq!(D1::new(0.0, 1.0).powf(c(2.0)).eps, 0.0);
    assert_eq!(D1::new(0.0, 1.0).powf(c(1.0)).eps, 1.0);
    assert_eq!(D1::new(0.0, 1.0).powf(c(0.0)).re, 1.0);
    assert_eq!(D1::new(0.0, 1.0).powf(c(0.0)).eps, 0.0);
    assert_eq!(D1::new(0.0, 1.0).powi(0).eps, 0.0);
    assert_eq!(D1::new(0.0, 1.0).powi(1).eps, 1.0);
    // d/dp 0^p = 0 for p > 0.
    assert_eq!(D1::constant(0.0).powf(D1::new(2.0, 1.0)).eps, 0.0);
    // On the variable, sqrt at 0 is infinite, as it should be.
    assert_eq!(D1::new(0.0, 1.0).sqrt().eps, f64::INFINITY);
}

#[test]
fn complex_numbers_of_duals() {
    // d/dx (x + i)² = 2 (x + i).
    let z = Complex::new(D1::variable(0.5), D1::one());
    let w = z * z;
    assert_eq!((w.re.re, w.im.re), (0.25 - 1.0, 1.0));
    assert_eq!((w.re.eps, w.im.eps), (1.0, 2.0));
}

#[test]
fn stdlib_logsumexp_on_duals() {
    use nilang_runtime::stdlib::special::{i_logsumexp_nostack, i_logsumexp_nostack_grad};
    let xs = [0.3, -1.2, 0.8];
    let z: f64 = xs.iter().map(|x| x.exp()).sum();
    let softmax: Vec<f64> = xs.iter().map(|x| x.exp() / z).collect();
    let v = [1.0, 0.5, -2.0];

    // Forward mode: the derivative along v is softmax · v.
    let x: Vec<D1> = xs.iter().zip(&v).map(|(&x, &v)| D1::new(x, v)).collect();
    let mut out = D1::zero();
    i_logsumexp_nostack(&mut out, &x).unwrap();
    close(out.re, z.ln(), 1e-12, "logsumexp");
    let sv: f64 = softmax.iter().zip(&v).map(|(s, v)| s * v).sum();
    close(out.eps, sv, 1e-12, "directional derivative");

    // Forward over reverse: the gradient program on duals gives the
    // gradient and the Hessian-vector product (diag(s) - s sᵀ) v.
    let mut out = D1::zero();
    let mut out_bar = D1::one();
    let mut x_bar = vec![D1::zero(); 3];
    i_logsumexp_nostack_grad(&mut out, &mut out_bar, &x, &mut x_bar).unwrap();
    for i in 0..3 {
        close(x_bar[i].re, softmax[i], 1e-12, "gradient");
        close(
            x_bar[i].eps,
            softmax[i] * (v[i] - sv),
            1e-12,
            "Hessian-vector product",
        );
    }
}

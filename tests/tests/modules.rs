//! Modules (`nil/modules.nil`): functions of another crate with `.nil`
//! modules (`tests/library`, the package `nilang-testlib`), imported with
//! `using` and `import`, run forwards, backwards and through their
//! gradients, against plain-Rust values and central differences; and the
//! library's template instantiated in this crate.

use nilang_tests::modules as m;

const RTOL: f64 = 1e-6;
const ATOL: f64 = 1e-9;

fn loss(f: fn(&mut f64, &[f64], &[f64]) -> nilang::Result, n: usize) -> impl Fn(&[f64]) -> f64 {
    move |p: &[f64]| {
        let mut out = 0.0;
        f(&mut out, &p[..n], &p[n..]).unwrap();
        out
    }
}

#[test]
fn a_library_function_forwards_backwards_and_differentiated() {
    let x = [0.5, -1.25, 2.0];
    let y = [1.5, 0.75, -0.5];
    let mut out = 0.25;
    m::lib_distance2(&mut out, &x, &y).unwrap();
    let expected = 0.25
        + x.iter()
            .zip(&y)
            .map(|(a, b)| (a - b) * (a - b))
            .sum::<f64>();
    assert!((out - expected).abs() < 1e-12, "{out} vs {expected}");
    m::uncall_lib_distance2(&mut out, &x, &y).unwrap();
    assert_eq!(out, 0.25);

    let (mut o, mut o_bar) = (0.0, 1.0);
    let (mut x_bar, mut y_bar) = ([0.0; 3], [0.0; 3]);
    m::lib_distance2_grad(&mut o, &mut o_bar, &x, &mut x_bar, &y, &mut y_bar).unwrap();
    let point: Vec<f64> = x.iter().chain(&y).copied().collect();
    let grad: Vec<f64> = x_bar.iter().chain(&y_bar).copied().collect();
    nilang::check_gradient(loss(m::lib_distance2, 3), &point, &grad, RTOL, ATOL).unwrap();
    // The library's own function, called from Rust, agrees.
    let mut direct = 0.25;
    nilang_testlib::geometry::sqdist(&mut direct, &x[..], &y[..]).unwrap();
    assert_eq!(direct, expected);
}

#[test]
fn a_library_function_calling_its_own_crates_other_module() {
    let x = [1.0, 2.0, -3.0, 0.5];
    let y = [0.5, -1.0, 2.0, 4.0];
    let mut out = 0.0;
    m::lib_dot(&mut out, &x, &y).unwrap();
    assert_eq!(out, 0.5 - 2.0 - 6.0 + 2.0);
    m::uncall_lib_dot(&mut out, &x, &y).unwrap();
    assert_eq!(out, 0.0);
    let (mut o, mut o_bar) = (0.0, 1.0);
    let (mut x_bar, mut y_bar) = ([0.0; 4], [0.0; 4]);
    m::lib_dot_grad(&mut o, &mut o_bar, &x, &mut x_bar, &y, &mut y_bar).unwrap();
    assert_eq!(x_bar, y);
    assert_eq!(y_bar, x);
}

#[test]
fn a_library_template_with_a_library_function() {
    let mut ys = [1.0, 0.0, -1.0];
    let xs = [0.5, -2.0, 4.0];
    m::lib_triples(&mut ys, &xs).unwrap();
    assert_eq!(ys, [2.5, -6.0, 11.0]);
    m::uncall_lib_triples(&mut ys, &xs).unwrap();
    assert_eq!(ys, [1.0, 0.0, -1.0]);
    let mut ys_bar = [1.0, 2.0, 3.0];
    let mut xs_bar = [0.0; 3];
    m::lib_triples_grad(&mut ys, &mut ys_bar, &xs, &mut xs_bar).unwrap();
    assert_eq!(xs_bar, [3.0, 6.0, 9.0]);
}

#[test]
fn a_library_template_with_a_function_of_this_crate() {
    let mut ys = [0.0; 3];
    let xs = [0.5, -1.5, 3.0];
    m::lib_squares(&mut ys, &xs).unwrap();
    assert_eq!(ys, [0.25, 2.25, 9.0]);
    m::uncall_lib_squares(&mut ys, &xs).unwrap();
    assert_eq!(ys, [0.0; 3]);
    let mut ys_bar = [1.0; 3];
    let mut xs_bar = [0.0; 3];
    m::lib_squares_grad(&mut ys, &mut ys_bar, &xs, &mut xs_bar).unwrap();
    assert_eq!(xs_bar, [1.0, -3.0, 6.0]);
    // The instance is generated in this crate, beside the function passed.
    let mut ys = [1.0; 3];
    m::each_pair_with_lib_square_into(&mut ys, &xs).unwrap();
    assert_eq!(ys, [1.25, 3.25, 10.0]);
}

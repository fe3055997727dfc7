//! Index windows (`nil/windows.nil`): the generated loops read and write
//! the same elements as plain Rust does, backwards too, and their
//! gradients match central differences.

use nilang_tests::windows as w;

fn shifted_plain(y: &mut [f64], x: &[f64], c: f64) {
    let n = x.len();
    for i in 1..n {
        y[i] += x[i - 1] * c;
    }
    for i in (2..=n).rev() {
        y[i - 1] += x[i - 2] * x[i - 2];
    }
}

fn packed_plain(y: &mut [f64], l: &[f64], x: &[f64]) {
    let n = x.len();
    for r in 1..=n {
        for c in 1..=r {
            y[r - 1] += l[r * (r - 1) / 2 + c - 1] * x[c - 1];
        }
        if x[r - 1] > 0.0 {
            y[r - 1] += x[r - 1];
        }
    }
}

#[test]
fn windows_read_and_write_what_plain_loops_do() {
    let x = [0.5, -1.0, 2.0, 3.0];
    let y0 = [1.0, 2.0, 3.0, 4.0];
    let (mut y, mut expected) = (y0, y0);
    w::shifted(&mut y, &x, 1.5).unwrap();
    shifted_plain(&mut expected, &x, 1.5);
    assert_eq!(y, expected);
    w::uncall_shifted(&mut y, &x, 1.5).unwrap();
    assert_eq!(y, y0);

    let l: Vec<f64> = (1..=10).map(|v| v as f64 * 0.25).collect();
    let (mut y, mut expected) = (y0, y0);
    w::packed(&mut y, &l, &x).unwrap();
    packed_plain(&mut expected, &l, &x);
    assert_eq!(y, expected);
    w::uncall_packed(&mut y, &l, &x).unwrap();
    assert_eq!(y, y0);
}

#[test]
fn windowed_gradients_match_differences() {
    let x = [0.5, -1.0, 2.0, 3.0];
    let c = 1.5;
    let mut y = [0.0; 4];
    let mut y_bar = [1.0, -2.0, 0.5, 3.0];
    let (mut x_bar, mut c_bar) = ([0.0; 4], 0.0);
    w::shifted_grad(&mut y, &mut y_bar, &x, &mut x_bar, c, &mut c_bar).unwrap();
    let weights = [1.0, -2.0, 0.5, 3.0];
    let loss = |p: &[f64]| {
        let mut y = [0.0; 4];
        w::shifted(&mut y, &p[..4], p[4]).unwrap();
        y.iter().zip(&weights).map(|(a, b)| a * b).sum::<f64>()
    };
    let point = [x[0], x[1], x[2], x[3], c];
    let gradient = [x_bar[0], x_bar[1], x_bar[2], x_bar[3], c_bar];
    nilang::check_gradient(loss, &point, &gradient, 1e-6, 1e-8).unwrap();
}

#[test]
fn a_routine_inside_a_windowed_loop() {
    let x = [0.5, -1.0, 2.0];
    let mut z = [0.0; 3];
    w::routine_inside(&mut z, &x).unwrap();
    for (zi, xi) in z.iter().zip(&x) {
        assert!((zi - 2.0 * xi.sin()).abs() < 1e-15);
    }
    let (mut z, mut z_bar, mut x_bar) = ([0.0; 3], [1.0; 3], [0.0; 3]);
    w::routine_inside_grad(&mut z, &mut z_bar, &x, &mut x_bar).unwrap();
    for (g, xi) in x_bar.iter().zip(&x) {
        assert!((g - 2.0 * xi.cos()).abs() < 1e-15);
    }
}

#[test]
fn elements_passed_to_a_call_that_only_reads_them() {
    let x = [0.5, -1.0, 2.0, 4.0];
    let y = [1.5, 2.0, -0.25, 0.5];
    let mut out = 1.0;
    w::dot_by_calls(&mut out, &x, &y).unwrap();
    assert_eq!(out, 1.0 + 0.75 - 2.0 - 0.5 + 2.0);
    w::uncall_dot_by_calls(&mut out, &x, &y).unwrap();
    assert_eq!(out, 1.0);
    let (mut o, mut o_bar) = (0.0, 1.0);
    let (mut x_bar, mut y_bar) = ([0.0; 4], [0.0; 4]);
    w::dot_by_calls_grad(&mut o, &mut o_bar, &x, &mut x_bar, &y, &mut y_bar).unwrap();
    assert_eq!((x_bar, y_bar), (y, x));
}

#[test]
fn copies_of_a_read_only_vector_pushed_in_a_loop() {
    let x = [0.5, -1.0, 2.0];
    let mut s = nilang::Stack::new();
    w::push_copies(&mut s, &x).unwrap();
    assert_eq!(s.len(), 3);
    w::uncall_push_copies(&mut s, &x).unwrap();
    assert_eq!(s.len(), 0);
}

//! Index windows (`nil/windows.nil`): the generated loops read and write
//! the same elements as plain Rust does, backwards too, and their
//! gradients match central differences.

use nilang_tests::windows as w;

/// The error the reference interpreter stops `function` of
/// `nil/windows.nil` with: the oracle for the generated loops' errors,
/// since it checks each access as it comes.
fn interpreted_error(function: &str, args: Vec<nilang_interp::Value>) -> String {
    let db = nilang_compiler::db::RootDatabase::default();
    let text =
        std::fs::read_to_string(concat!(env!("CARGO_MANIFEST_DIR"), "/nil/windows.nil")).unwrap();
    let file = nilang_compiler::db::SourceFile::new(&db, "tests/nil/windows.nil".into(), text);
    let project = nilang_compiler::db::project_with_std(&db, vec![file], Vec::new());
    let mut interp = nilang_interp::Interpreter::new(&db, project);
    interp
        .call(function, args, nilang_interp::Direction::Forward)
        .unwrap_err()
        .to_string()
}

/// A vector of `f64` as the interpreter takes it.
fn f64s(xs: &[f64]) -> nilang_interp::Value {
    nilang_interp::Value::Array(std::rc::Rc::new(
        xs.iter().map(|&v| nilang_interp::Value::F64(v)).collect(),
    ))
}

/// A row-major `rows` × `cols` matrix of `f64` as the interpreter takes it.
fn matrix_value(rows: usize, cols: usize, data: &[f64]) -> nilang_interp::Value {
    nilang_interp::Value::Matrix {
        rows,
        cols,
        data: std::rc::Rc::new(data.iter().map(|&v| nilang_interp::Value::F64(v)).collect()),
    }
}

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

fn cells_plain(y: &mut [f64], x: &mut [f64], l: &[f64], m: i64, c: usize) {
    for r in 1..=y.len() {
        y[r - 1] += l[r - 1] * 0.5;
        for k in 1..=(m.min(r as i64 - 1)) as usize {
            y[r - 1] += l[k - 1] * x[c - 1];
            x[c - 1] += 0.25 * l[k - 1];
        }
    }
}

#[test]
fn cells_hold_an_element_for_a_loop_and_write_it_back() {
    let l = [0.5, -1.0, 2.0, 3.0];
    let (y0, x0) = ([1.0, 2.0, 3.0, 4.0], [0.25, -0.75, 1.5]);
    for (m, c) in [(3, 2), (1, 3), (2, 1)] {
        let (mut y, mut x) = (y0, x0);
        w::cells(&mut y, &mut x, &l, m, c).unwrap();
        let (mut ey, mut ex) = (y0, x0);
        cells_plain(&mut ey, &mut ex, &l, m, c as usize);
        assert_eq!((y, x), (ey, ex), "m = {m}, c = {c}");
        w::uncall_cells(&mut y, &mut x, &l, m, c).unwrap();
        for (a, b) in y.iter().zip(&y0).chain(x.iter().zip(&x0)) {
            assert!((a - b).abs() < 1e-14, "m = {m}, c = {c}: {a} vs {b}");
        }
    }
    // No inner iteration: `x[9]` is never read.
    let (mut y, mut x) = (y0, x0);
    w::cells(&mut y, &mut x, &l, 0, 9).unwrap();
    assert_eq!(y, [1.25, 1.5, 4.0, 5.5]);

    // The gradient, against central differences of a weighted sum of both
    // outputs.
    let weights = [1.0, -2.0, 0.5, 3.0, 0.75, -1.25, 2.0];
    let loss = |p: &[f64]| {
        let (mut y, mut x) = ([p[0], p[1], p[2], p[3]], [p[4], p[5], p[6]]);
        let l = [p[7], p[8], p[9], p[10]];
        w::cells(&mut y, &mut x, &l, 3, 2).unwrap();
        y.iter()
            .chain(&x)
            .zip(&weights)
            .map(|(a, b)| a * b)
            .sum::<f64>()
    };
    let (mut y, mut x) = (y0, x0);
    let mut y_bar = [1.0, -2.0, 0.5, 3.0];
    let mut x_bar = [0.75, -1.25, 2.0];
    let mut l_bar = [0.0; 4];
    w::cells_grad(&mut y, &mut y_bar, &mut x, &mut x_bar, &l, &mut l_bar, 3, 2).unwrap();
    let point: Vec<f64> = y0.iter().chain(&x0).chain(&l).copied().collect();
    let gradient: Vec<f64> = y_bar.iter().chain(&x_bar).chain(&l_bar).copied().collect();
    nilang::check_gradient(loss, &point, &gradient, 1e-6, 1e-8).unwrap();
}

/// `columns` (a loop over the rows of two columns of one matrix) computes
/// what a plain loop does, and where an index is out of range stops with
/// the error the reference interpreter, which checks each access as it
/// comes, gives: the first row or column out of range.
#[test]
fn matrix_columns_read_in_a_loop_fail_as_plain_loops_do() {
    use nilang::ndarray::{Array2, ShapeBuilder};
    let data: Vec<f64> = (0..12).map(|v| 0.5 * v as f64 - 1.0).collect();
    let x = Array2::from_shape_vec((4, 3).f(), data.clone()).unwrap();
    let run = |a: i64, b: i64, c: i64| {
        let mut d = 0.25;
        w::columns(&mut d, x.view(), a, b, c).map(|()| d)
    };
    let plain = |a: usize, b: usize, c: usize| {
        let mut d = 0.25;
        for i in 1..=(4 - c) {
            let diff = x[[i + c - 1, a - 1]] - x[[i - 1, b - 1]];
            d += diff.powi(2);
        }
        d
    };
    assert_eq!(run(1, 3, 1).unwrap(), plain(1, 3, 1));
    assert_eq!(run(2, 2, 0).unwrap(), plain(2, 2, 0));
    let mut d = run(3, 1, 2).unwrap();
    w::uncall_columns(&mut d, x.view(), 3, 1, 2).unwrap();
    assert_eq!(d, 0.25);

    let matrix = matrix_value(4, 3, &data);
    // A column out of range, rows out of range at the first and at a later
    // iteration, and both.
    for (a, b, c) in [(4, 1, 0), (1, 0, 1), (1, 2, -1), (5, 1, -1)] {
        let rust = run(a, b, c).unwrap_err().to_string();
        let args = vec![
            nilang_interp::Value::F64(0.25),
            matrix.clone(),
            nilang_interp::Value::int(a),
            nilang_interp::Value::int(b),
            nilang_interp::Value::int(c),
        ];
        let interpreted = interpreted_error("columns", args);
        assert_eq!(rust, interpreted, "a = {a}, b = {b}, c = {c}");
    }
}

/// `row_line` (a row walked down beside a column, each a matrix line
/// checked once before the loop) computes what a plain loop does, undoes
/// it, has the gradient central differences give, and fails with the
/// error of the interpreter, which checks each access as it comes.
#[test]
fn a_matrix_row_walked_down_fails_as_the_plain_loop_does() {
    use nilang::ndarray::Array2;
    let data: Vec<f64> = (0..12).map(|v| 0.5 * v as f64 - 1.0).collect();
    let a = Array2::from_shape_vec((4, 3), data.clone()).unwrap();
    let run = |y: &[f64], r: i64, c: i64| {
        let mut y = y.to_vec();
        w::row_line(&mut y, a.view(), r, c).map(|()| y)
    };
    let plain = |y: &[f64], r: usize, c: usize| {
        let mut y = y.to_vec();
        for j in (1..=y.len()).rev() {
            y[j - 1] += a[[r - 1, j + c - 1]] * a[[j - 1, 0]];
        }
        y
    };
    let y0 = [0.5, -0.25, 2.0];
    assert_eq!(run(&y0, 2, 0).unwrap(), plain(&y0, 2, 0));
    assert_eq!(run(&y0[..2], 4, 1).unwrap(), plain(&y0[..2], 4, 1));
    let mut y = run(&y0, 3, 0).unwrap();
    w::uncall_row_line(&mut y, a.view(), 3, 0).unwrap();
    assert_eq!(y, y0);

    // The gradient in `A` and `y`, against central differences of a
    // weighted sum of `y`.
    let weights = [1.0, -2.0, 0.75];
    let loss = |p: &[f64]| {
        let a = Array2::from_shape_vec((4, 3), p[3..].to_vec()).unwrap();
        let mut y = p[..3].to_vec();
        w::row_line(&mut y, a.view(), 2, 0).unwrap();
        y.iter().zip(&weights).map(|(a, b)| a * b).sum::<f64>()
    };
    let mut y = y0.to_vec();
    let mut y_bar = weights.to_vec();
    let mut a_bar = Array2::zeros((4, 3));
    w::row_line_grad(&mut y, &mut y_bar, a.view(), a_bar.view_mut(), 2, 0).unwrap();
    let point: Vec<f64> = y0.iter().chain(&data).copied().collect();
    let gradient: Vec<f64> = y_bar.iter().chain(a_bar.iter()).copied().collect();
    nilang::check_gradient(loss, &point, &gradient, 1e-6, 1e-8).unwrap();

    let matrix = matrix_value(4, 3, &data);
    // Rows and columns out of range, alone and together, at the first
    // iteration and at a later one; and the column `A[j, 1]` past the
    // rows where the row runs out first.
    for (n, r, c) in [
        (2, 5, 0),
        (2, 5, 5),
        (2, 0, -1),
        (2, 1, 2),
        (2, 1, -1),
        (5, 2, 0),
        (5, 2, -2),
    ] {
        let y = &[0.5, -0.25, 2.0, 1.0, 3.0][..n];
        let rust = run(y, r, c).unwrap_err().to_string();
        let args = vec![
            f64s(y),
            matrix.clone(),
            nilang_interp::Value::int(r),
            nilang_interp::Value::int(c),
        ];
        let interpreted = interpreted_error("row_line", args);
        assert_eq!(rust, interpreted, "n = {n}, r = {r}, c = {c}");
    }
}

/// `offsets` (windows of one vector at offsets -1, 0 and 1 merged into
/// one slice, one of them changed) computes what plain loops do, undoes
/// it, has the gradient of central differences, and fails as the
/// interpreter does where the stencil runs off `x`.
#[test]
fn windows_at_whole_number_offsets_are_one_slice() {
    let t = 0.75;
    let x = [0.5, -1.0, 2.0, 3.0, -0.5];
    let run = |y: &[f64], p: &[f64], x: &[f64], o: i64| {
        let (mut y, mut p) = (y.to_vec(), p.to_vec());
        w::offsets(&mut y, &mut p, x, t, o).map(|()| (y, p))
    };
    let plain = |y: &[f64], p: &[f64], x: &[f64]| {
        let (mut y, mut p) = (y.to_vec(), p.to_vec());
        for j in 2..=p.len() {
            p[j - 1] += p[j - 2] * t;
        }
        for i in 2..y.len() {
            y[i - 1] += x[i] - 2.0 * x[i - 1] + x[i - 2];
        }
        (y, p)
    };
    let (y0, p0) = ([1.0, 2.0, 3.0, 4.0], [1.0, 0.0, 0.0, 0.0]);
    let got = run(&y0, &p0, &x, 0).unwrap();
    assert_eq!(got, plain(&y0, &p0, &x));
    let (mut y, mut p) = got;
    w::uncall_offsets(&mut y, &mut p, &x, t, 0).unwrap();
    assert_eq!((y.as_slice(), p.as_slice()), (&y0[..], &p0[..]));

    let weights = [1.0, -2.0, 0.5, 3.0, 0.25, -1.5, 2.0, 0.75];
    let loss = |q: &[f64]| {
        let (mut y, mut p) = (q[..4].to_vec(), q[4..8].to_vec());
        w::offsets(&mut y, &mut p, &q[8..], t, 0).unwrap();
        y.iter()
            .chain(&p)
            .zip(&weights)
            .map(|(a, b)| a * b)
            .sum::<f64>()
    };
    let (mut y, mut p) = (y0.to_vec(), p0.to_vec());
    let (mut y_bar, mut p_bar) = (weights[..4].to_vec(), weights[4..].to_vec());
    let (mut x_bar, mut t_bar) = (vec![0.0; 5], 0.0);
    w::offsets_grad(
        &mut y, &mut y_bar, &mut p, &mut p_bar, &x, &mut x_bar, t, &mut t_bar, 0,
    )
    .unwrap();
    let point: Vec<f64> = y0.iter().chain(&p0).chain(&x).copied().collect();
    let gradient: Vec<f64> = y_bar.iter().chain(&p_bar).chain(&x_bar).copied().collect();
    nilang::check_gradient(loss, &point, &gradient, 1e-6, 1e-8).unwrap();

    // `x` shorter than `y` (its end first), the stencil starting at 0
    // (its start first), and both.
    for (ny, nx, o) in [(5, 3, 0), (4, 5, -1), (6, 2, -1), (6, 4, 1)] {
        let y = &[1.0, 2.0, 3.0, 4.0, 5.0, 6.0][..ny];
        let rust = run(y, &p0, &x[..nx], o).unwrap_err().to_string();
        let args = vec![
            f64s(y),
            f64s(&p0),
            f64s(&x[..nx]),
            nilang_interp::Value::F64(t),
            nilang_interp::Value::int(o),
        ];
        let interpreted = interpreted_error("offsets", args);
        assert_eq!(rust, interpreted, "ny = {ny}, nx = {nx}, o = {o}");
    }
    // `interleaved`: `x[0]` and `p[1 + o]` both out of range in the first
    // iteration, `p` read first; and `x` short at its far end only.
    for (nx, np, o) in [(3, 2, 2), (3, 2, 0), (2, 4, 0), (3, 1, -1)] {
        let (y, xs, p) = ([1.0, 2.0], &x[..nx], &[0.5, 1.5, -1.0, 2.0][..np]);
        let mut out = y;
        let rust = w::interleaved(&mut out, xs, p, o).unwrap_err().to_string();
        let args = vec![f64s(&y), f64s(xs), f64s(p), nilang_interp::Value::int(o)];
        let interpreted = interpreted_error("interleaved", args);
        assert_eq!(rust, interpreted, "nx = {nx}, np = {np}, o = {o}");
    }
}

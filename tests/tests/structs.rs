//! User structs end to end: Rust callers build the generated structs,
//! field places run forwards and backwards, a destruction with the wrong
//! values fails naming the `.nil` line and both values, and gradients
//! through fields (plain, nested, array elements) match central
//! differences.

use nilang_tests::structs::{self as s, Particle, Point};

const RTOL: f64 = 1e-6;
const ATOL: f64 = 1e-8;

#[test]
fn rust_callers_build_structs_and_uncall_restores_them() {
    let mut p = Point { x: 1.5, y: -2.0 };
    s::shift(&mut p, 0.25).unwrap();
    assert_eq!(p, Point { x: -2.0, y: 2.0 });
    s::uncall_shift(&mut p, 0.25).unwrap();
    assert_eq!(p, Point { x: 1.5, y: -2.0 });
    // Generic: the same code on f32.
    let mut q = Point { x: 1.0f32, y: 3.0 };
    s::shift(&mut q, 1.0).unwrap();
    assert_eq!(q, Point { x: 3.0, y: 3.0 });
}

#[test]
fn construction_and_destruction() {
    let mut out = 0.0;
    s::built_norm(&mut out, 1.0, 2.0).unwrap();
    // Point(1, 2) shifted by 2: (1 + 4, 2) swapped → (2, 5).
    assert_eq!(out, 29.0);
    s::uncall_built_norm(&mut out, 1.0, 2.0).unwrap();
    assert_eq!(out, 0.0);
    s::bad_destruction(3.0, false).unwrap();
}

#[test]
fn a_wrong_destruction_names_the_line_and_both_values() {
    let err = s::bad_destruction(3.0, true).unwrap_err();
    let text = err.to_string();
    assert_eq!(err.check, nilang::Check::Deallocation, "{text}");
    assert!(text.contains("structs.nil"), "{text}");
    assert_eq!(err.location.line, 38, "{text}");
    assert!(text.contains("Point { x: 3.0, y: 2.0 }"), "{text}");
    assert!(text.contains("Point { x: 3.0, y: 3.0 }"), "{text}");
}

#[test]
fn arrays_of_structs() {
    let start = [
        Point { x: 1.0, y: 2.0 },
        Point { x: 3.0, y: 4.0 },
        Point { x: 5.0, y: 6.0 },
    ];
    let mut ps = start;
    s::chain(&mut ps).unwrap();
    assert_eq!(ps[0].x, 3.0);
    assert_eq!(ps[1].x, 6.0);
    assert_eq!(ps[2], start[2]);
    s::uncall_chain(&mut ps).unwrap();
    assert_eq!(ps, start);
}

#[test]
fn gradient_through_a_constructed_struct() {
    for (a, b) in [(1.0, 2.0), (-0.3, 0.7), (2.5, -1.1)] {
        let loss = |x: &[f64]| {
            let mut out = 0.0;
            s::built_norm(&mut out, x[0], x[1]).unwrap();
            out
        };
        let (mut out, mut out_bar, mut a_bar, mut b_bar) = (0.0, 1.0, 0.0, 0.0);
        s::built_norm_grad(&mut out, &mut out_bar, a, &mut a_bar, b, &mut b_bar).unwrap();
        assert_eq!(out, 0.0, "restored");
        nilang::check_gradient(loss, &[a, b], &[a_bar, b_bar], RTOL, ATOL)
            .unwrap_or_else(|e| panic!("at ({a}, {b}): {e}"));
    }
}

#[test]
fn gradient_through_struct_parameters_and_nested_fields() {
    // energy(out, pa, v) with pa = Particle(Point(x, y), m, id): the
    // gradient with respect to x, y, m (fields of the struct argument) and v.
    for p in [[0.3, -1.2, 2.0, 0.5], [1.1, 0.4, -0.7, -0.2]] {
        let loss = |x: &[f64]| {
            let mut out = 0.0;
            let mut pa = Particle {
                pos: Point { x: x[0], y: x[1] },
                mass: x[2],
                id: 4,
            };
            s::energy(&mut out, &mut pa, x[3]).unwrap();
            out + 0.5 * pa.pos.x - 0.25 * pa.mass
        };
        let mut pa = Particle {
            pos: Point { x: p[0], y: p[1] },
            mass: p[2],
            id: 4,
        };
        let mut pa_bar = Particle {
            pos: Point { x: 0.5, y: 0.0 },
            mass: -0.25,
            id: 0,
        };
        let (mut out, mut out_bar, mut v_bar) = (0.0, 1.0, 0.0);
        s::energy_grad(
            &mut out,
            &mut out_bar,
            &mut pa,
            &mut pa_bar,
            p[3],
            &mut v_bar,
        )
        .unwrap();
        assert_eq!(pa.id, 4, "restored");
        let g = [pa_bar.pos.x, pa_bar.pos.y, pa_bar.mass, v_bar];
        nilang::check_gradient(loss, &p, &g, RTOL, ATOL)
            .unwrap_or_else(|e| panic!("at {p:?}: {e}"));
    }
}

#[test]
fn gradient_through_a_nested_construction() {
    let p = [0.3, -1.2, 2.0, 0.5];
    let loss = |x: &[f64]| {
        let mut out = 0.0;
        s::particle_energy(&mut out, x[0], x[1], x[2], x[3]).unwrap();
        out
    };
    let mut g = [0.0; 4];
    let (mut out, mut out_bar) = (0.0, 1.0);
    let [gx, gy, gm, gv] = &mut g;
    s::particle_energy_grad(
        &mut out,
        &mut out_bar,
        p[0],
        gx,
        p[1],
        gy,
        p[2],
        gm,
        p[3],
        gv,
    )
    .unwrap();
    nilang::check_gradient(loss, &p, &g, RTOL, ATOL).unwrap();
}

#[test]
fn gradient_through_array_elements() {
    let start = [
        Point { x: 1.0, y: 2.0 },
        Point { x: 3.0, y: 4.0 },
        Point { x: 5.0, y: 6.0 },
    ];
    // loss = Σ w_i · (x_i, y_i) after chain.
    let w = [0.3, -0.7, 1.1, 0.2, -0.5, 0.9];
    let flat = |ps: &[Point<f64>]| -> Vec<f64> { ps.iter().flat_map(|p| [p.x, p.y]).collect() };
    let loss = |x: &[f64]| {
        let mut ps: Vec<Point<f64>> = x.chunks(2).map(|c| Point { x: c[0], y: c[1] }).collect();
        s::chain(&mut ps).unwrap();
        flat(&ps).iter().zip(w).map(|(a, b)| a * b).sum()
    };
    let mut ps = start;
    let mut bars: Vec<Point<f64>> = w.chunks(2).map(|c| Point { x: c[0], y: c[1] }).collect();
    s::chain_grad(&mut ps, &mut bars).unwrap();
    assert_eq!(ps, start);
    nilang::check_gradient(loss, &flat(&start), &flat(&bars), RTOL, ATOL).unwrap();
}

#[test]
fn a_struct_keyword_parameter_and_its_constructed_default() {
    let mut y = 1.0;
    s::offset_default(&mut y).unwrap();
    assert_eq!(y, 7.0);
    s::offset(&mut y, Point { x: 1.0, y: -1.0 }).unwrap();
    assert_eq!(y, 6.0);
}

#[test]
fn gradient_through_a_complex_field() {
    use nilang::Complex;
    use s::Wave;
    for p in [[0.3, -1.2, 2.0, 0.5], [1.1, 0.4, -0.7, -0.2]] {
        let wave = |x: &[f64]| Wave {
            amp: Complex::new(x[0], x[1]),
            k: x[2],
        };
        let loss = |x: &[f64]| {
            let mut out = 0.0;
            let mut w = wave(x);
            s::wave_energy(&mut out, &mut w, x[3]).unwrap();
            out + 0.3 * w.amp.re - 0.8 * w.amp.im + 0.1 * w.k
        };
        let mut w = wave(&p);
        let mut w_bar = Wave {
            amp: Complex::new(0.3, -0.8),
            k: 0.1,
        };
        let (mut out, mut out_bar, mut y_bar) = (0.0, 1.0, 0.0);
        s::wave_energy_grad(&mut out, &mut out_bar, &mut w, &mut w_bar, p[3], &mut y_bar).unwrap();
        let g = [w_bar.amp.re, w_bar.amp.im, w_bar.k, y_bar];
        nilang::check_gradient(loss, &p, &g, RTOL, ATOL)
            .unwrap_or_else(|e| panic!("at {p:?}: {e}"));
    }
}

#[test]
fn gradient_through_a_copied_struct() {
    for (x, y) in [(0.4, 2.0), (-1.3, 0.5)] {
        let loss = |v: &[f64]| {
            let mut out = 0.0;
            s::copied_point(&mut out, s::Point { x: v[0], y: v[1] }).unwrap();
            out
        };
        let p = s::Point { x, y };
        let mut p_bar = s::Point { x: 0.0, y: 0.0 };
        let (mut out, mut out_bar) = (0.0, 1.0);
        s::copied_point_grad(&mut out, &mut out_bar, p, &mut p_bar).unwrap();
        assert_eq!(out, 0.0, "restored");
        nilang::check_gradient(loss, &[x, y], &[p_bar.x, p_bar.y], RTOL, ATOL)
            .unwrap_or_else(|e| panic!("at ({x}, {y}): {e}"));
    }
}

//! A gradient run's adjoints are in its function's adjoint float, and the
//! values its local derivatives read are converted to it, as the Rust
//! backend's reverse pass computes them: each case's expected adjoint is
//! the generated code's formula, to the bit. (Found by `typed_random`'s
//! gradient differential, where the interpreter disagreed.)

use nilang_analysis::db::{self, RootDatabase, SourceFile};
use nilang_interp::{Interpreter, Value};
use std::rc::Rc;

fn gradient(source: &str, args: Vec<Value>, seeds: &[(&str, Value)]) -> Vec<Value> {
    let db = RootDatabase::default();
    let file = SourceFile::new(&db, "t.nil".into(), source.into());
    let project = db::project_with_std(&db, vec![file], Vec::new());
    let mut interp = Interpreter::new(&db, project);
    let seeds: Vec<(String, Value)> = seeds
        .iter()
        .map(|(n, v)| (n.to_string(), v.clone()))
        .collect();
    interp.gradient("f", args, &seeds).expect("a gradient").1
}

fn f64_of(v: &Value) -> f64 {
    match v {
        Value::F64(x) => *x,
        v => panic!("not an f64 adjoint: {v:?}"),
    }
}

/// `a += sin(u) * 0.3` with an `f32` `u` in an `f64` function: the
/// generated code's partial is `0.3 * cos(u as f64)` and `u`'s adjoint an
/// `f64`.
#[test]
fn an_f32_ancilla_of_an_f64_function_has_an_f64_adjoint() {
    let source = "function f(a!::f64, b::f64)
    u ← zero(f32)
    u += b
    a! += sin(u) * 0.3
    u -= b
    u → zero(f32)
end";
    let g = gradient(
        source,
        vec![Value::F64(0.0), Value::F64(0.7)],
        &[("a!", Value::F64(1.0))],
    );
    let u = 0.7f64 as f32;
    assert_eq!(f64_of(&g[1]), 0.3 * (u as f64).cos());
}

/// `w += sin(y)` into a complex ancilla, read by `x += sin(real(w))`: the
/// share of the `f32` `y` stays an `f64` (it was rounded to `f32`).
#[test]
fn a_complex_cotangent_into_an_f32_value_stays_in_f64() {
    let source = "function f(x::f64, z::Complex{f64}, y::f32)
    w ← zero(z)
    w += sin(y)
    x += sin(real(w))
    w -= sin(y)
    w → zero(z)
    z += 0.0
    y += 0.0
end";
    let g = gradient(
        source,
        vec![Value::F64(0.5), Value::Complex(0.25, 0.5), Value::F32(0.75)],
        &[("x", Value::F64(1.0)), ("y", Value::F64(1.0))],
    );
    let y = 0.75f32;
    let w = y.sin() as f64;
    assert_eq!(f64_of(&g[2]), 1.0 + w.cos() * (y as f64).cos());
}

/// `SWAP` of two structs moves their adjoints with them.
#[test]
fn swap_of_two_structs_moves_their_adjoints() {
    let source = "struct Pt{T}
    x::T
    y::T
end
function f(x!::f64, p!::Pt{f64}, q!::Pt{f64})
    x! += p!.x * 2.0
    SWAP(p!, q!)
    x! += sin(p!.y)
end";
    let pt = |x: f64, y: f64| Value::Struct {
        name: "Pt".into(),
        fields: Rc::new(vec![
            ("x".into(), Value::F64(x)),
            ("y".into(), Value::F64(y)),
        ]),
    };
    let g = gradient(
        source,
        vec![Value::F64(0.0), pt(0.5, 0.25), pt(1.5, 0.75)],
        &[("x!", Value::F64(1.0))],
    );
    let fields = |v: &Value| match v {
        Value::Struct { fields, .. } => fields.iter().map(|(_, f)| f64_of(f)).collect::<Vec<_>>(),
        v => panic!("not a struct: {v:?}"),
    };
    assert_eq!(fields(&g[1]), [2.0, 0.0]);
    assert_eq!(fields(&g[2]), [0.0, 0.75f64.cos()]);
}

/// `t *= e` on a tropical number, which carries no adjoint, sends none
/// (the interpreter refused it as not differentiable).
#[test]
fn a_tropical_product_sends_no_adjoint() {
    let source = "function f(x::f64, t::Tropical{f64})
    t *= sin(x)
    x += 1.0
end";
    let g = gradient(
        source,
        vec![Value::F64(0.5), Value::Tropical(Box::new(Value::F64(2.0)))],
        &[("x", Value::F64(1.0))],
    );
    assert_eq!(f64_of(&g[0]), 1.0);
}

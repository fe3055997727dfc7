//! Derivative calls inside `.nil`: the tangent call `(∂f)`, its uncall
//! `~(∂f)` and the uncall of the gradient call `~(∇f)`, on small programs
//! whose results are known exactly (the tangent is computed as the
//! runtime's dual numbers compute it, so the numbers below are those
//! formulas, bit for bit).

use nilang_analysis::db::{self, RootDatabase, SourceFile};
use nilang_interp::{Check, Direction, Error, Interpreter, Value};
use std::rc::Rc;

const SOURCE: &str = r#"
function sinmul(y::T, x::T, c::Const<T>) where T: Real
    y += sin(x) * c
end

function square(y::T, x::T) where T: Real
    y += x ^ 2
end

function scale!(y::[T], x::T) where T: Real
    for i = 1:length(y)
        y[i] += x ^ 2
    end
end

function sinmul_tangent(y::T, y_dot::T, x::T, x_dot::T) where T: Real
    (∂sinmul)(y, y_dot, x, x_dot, 2.0)
end

function sinmul_untangent(y::T, y_dot::T, x::T, x_dot::T) where T: Real
    ~(∂sinmul)(y, y_dot, x, x_dot, 2.0)
end

function slope(out::T, x::T, t::T) where T: Real
    y ← zero(T)
    y_dot ← zero(T)
    x_dot ← zero(T)
    x_dot += t
    (∂sinmul)(y, y_dot, x, x_dot, 2.0)
    out += y_dot
    ~(∂sinmul)(y, y_dot, x, x_dot, 2.0)
    x_dot -= t
end

function scale_tangent(y::[T], y_dot::[T], x::T, x_dot::T) where T: Real
    (∂scale!)(y, y_dot, x, x_dot)
end

function square_ungrad(y::T, gy::T, x::T, gx::T) where T: Real
    ~(∇square)(y, gy, x, gx)
end

function grad_squared(out::T, x::T) where T: Real
    y ← zero(T)
    gy ← one(T)
    gx ← zero(T)
    (∇square)(y, gy, x, gx)
    out += gx ^ 2
    ~(∇square)(y, gy, x, gx)
end

function tape_square(y::T, x::T, n::i64) where T: Real
    k ← 0
    @tape while k < n
        k += 1
        y += x ^ 2
    end
    k → n
end

function taped_slope(y::T, x::T) where T: Real
    o ← zero(T)
    seed ← one(T)
    gx ← zero(T)
    (∇tape_square)(o, seed, x, gx, 2)
    y += gx ^ 2
    ~(∇tape_square)(o, seed, x, gx, 2)
end

function square_grad_and_back(y::T, gy::T, x::T, gx::T) where T: Real
    (∇square)(y, gy, x, gx)
    ~(∇square)(y, gy, x, gx)
end
"#;

fn floats(xs: &[f64]) -> Vec<Value> {
    xs.iter().map(|&x| Value::F64(x)).collect()
}

fn array(xs: &[f64]) -> Value {
    Value::Array(Rc::new(floats(xs)))
}

fn f64s(vs: &[Value]) -> Vec<f64> {
    vs.iter()
        .map(|v| match v {
            Value::F64(x) => *x,
            v => panic!("not an f64: {v}"),
        })
        .collect()
}

fn with_project(test: impl FnOnce(&mut Interpreter<'_>)) {
    let db = RootDatabase::default();
    let file = SourceFile::new(&db, "derivatives.nil".into(), SOURCE.into());
    let project = db::project_with_std(&db, vec![file], Vec::new());
    let problems: Vec<String> = db::file_diagnostics(&db, project, file)
        .iter()
        .filter(|d| d.severity == nilang_analysis::Severity::Error)
        .map(|d| format!("{}: {}", d.code, d.message))
        .collect();
    assert!(problems.is_empty(), "{problems:?}");
    test(&mut Interpreter::new(&db, project));
}

#[test]
fn a_tangent_call_runs_f_on_dual_numbers() {
    with_project(|run| {
        let (x, t) = (0.3f64, 1.0);
        let args = floats(&[0.5, 0.25, x, t]);
        let out = run
            .call("sinmul_tangent", args.clone(), Direction::Forward)
            .unwrap();
        // y += sin(x) * 2 and ẏ += cos(x) ẋ * 2 (`Dual * Dual`:
        // sin(x) * 0 + cos(x) ẋ * 2); x and ẋ are read only.
        assert_eq!(
            f64s(&out),
            [0.5 + x.sin() * 2.0, 0.25 + x.cos() * t * 2.0, x, t]
        );
        // The wrapper's uncall is `~(∂sinmul)`: back to the arguments.
        let back = run
            .call("sinmul_tangent", out, Direction::Backward)
            .unwrap();
        for (b, a) in f64s(&back).iter().zip(f64s(&args)) {
            assert!((b - a).abs() < 1e-15, "{b} against {a}");
        }
    });
}

#[test]
fn the_uncall_of_a_tangent_call_runs_the_inverse_on_dual_numbers() {
    with_project(|run| {
        let x = 0.3f64;
        let out = run
            .call(
                "sinmul_untangent",
                floats(&[0.5, 0.25, x, 1.0]),
                Direction::Forward,
            )
            .unwrap();
        assert_eq!(
            f64s(&out),
            [0.5 - x.sin() * 2.0, 0.25 - x.cos() * 2.0, x, 1.0]
        );
    });
}

#[test]
fn a_tangent_call_and_its_uncall_give_the_directional_derivative() {
    with_project(|run| {
        // d/dx (2 sin x) along t = 1: exactly 2 cos x, and the ancillas
        // come back to zero (the deallocation checks pass).
        let x = 1.1f64;
        let out = run
            .call("slope", floats(&[0.0, x, 1.0]), Direction::Forward)
            .unwrap();
        assert_eq!(f64s(&out), [x.cos() * 2.0, x, 1.0]);
        let back = run.call("slope", out, Direction::Backward).unwrap();
        assert_eq!(f64s(&back), [0.0, x, 1.0]);
    });
}

#[test]
fn a_tangent_call_changes_an_array_and_its_companion() {
    with_project(|run| {
        let out = run
            .call(
                "scale_tangent",
                vec![
                    array(&[1.0, 2.0]),
                    array(&[0.5, 0.0]),
                    Value::F64(3.0),
                    Value::F64(1.0),
                ],
                Direction::Forward,
            )
            .unwrap();
        // y[i] += x², ẏ[i] += 2 x ẋ.
        assert_eq!(out[0], array(&[10.0, 11.0]));
        assert_eq!(out[1], array(&[6.5, 6.0]));
        let back = run.call("scale_tangent", out, Direction::Backward).unwrap();
        assert_eq!(back[0], array(&[1.0, 2.0]));
        assert_eq!(back[1], array(&[0.5, 0.0]));
    });
}

#[test]
fn a_companion_shorter_than_its_array_stops_at_the_function() {
    with_project(|run| {
        let e = run
            .call(
                "scale_tangent",
                vec![
                    array(&[1.0, 2.0]),
                    array(&[0.5]),
                    Value::F64(3.0),
                    Value::F64(1.0),
                ],
                Direction::Forward,
            )
            .unwrap_err();
        let Error::Run(e) = e else { panic!("{e}") };
        assert_eq!(e.check, Check::Shape);
        assert_eq!(
            e.to_string(),
            "derivatives.nil:10:10: shape check failed: the companion of argument 1 of `(∂scale!)` must be as long as the argument (expected 2, found 1)"
        );
    });
}

#[test]
fn the_uncall_of_a_gradient_call_takes_the_gradient_back_out() {
    with_project(|run| {
        // (∇square) adds 2 x ȳ to x̄; its uncall takes it back out.
        let out = run
            .call(
                "square_ungrad",
                floats(&[1.0, 1.0, 3.0, 6.5]),
                Direction::Forward,
            )
            .unwrap();
        assert_eq!(f64s(&out), [1.0, 1.0, 3.0, 0.5]);
        // The wrapper's uncall is `(∇square)`.
        let back = run.call("square_ungrad", out, Direction::Backward).unwrap();
        assert_eq!(f64s(&back), [1.0, 1.0, 3.0, 6.5]);
        let same = run
            .call(
                "square_grad_and_back",
                floats(&[1.0, 0.5, 3.0, 0.25]),
                Direction::Forward,
            )
            .unwrap();
        assert_eq!(f64s(&same), [1.0, 0.5, 3.0, 0.25]);
    });
}

/// The gradient of `slope`: out += 2 cos(x) t, by x and t.
#[test]
fn a_gradient_run_takes_the_reverse_pass_of_a_tangent_call() {
    with_project(|run| {
        let (x, t) = (1.1f64, 0.75);
        let (back, grads) = run
            .gradient(
                "slope",
                floats(&[0.0, x, t]),
                &[("out".into(), Value::F64(1.0))],
            )
            .unwrap();
        assert_eq!(f64s(&back), [0.0, x, t]);
        let want = [1.0, -2.0 * x.sin() * t, 2.0 * x.cos()];
        for (g, w) in f64s(&grads).iter().zip(want) {
            assert!((g - w).abs() < 1e-14, "{g} against {w}");
        }
    });
}

/// The gradient of `grad_squared`: out += (2x)², by x: 8x (the reverse
/// passes of `(∇square)` and `~(∇square)`).
#[test]
fn a_gradient_run_takes_the_reverse_pass_of_a_gradient_call_and_its_uncall() {
    with_project(|run| {
        let x = 1.5f64;
        let (back, grads) = run
            .gradient(
                "grad_squared",
                floats(&[0.25, x]),
                &[("out".into(), Value::F64(1.0))],
            )
            .unwrap();
        assert_eq!(f64s(&back), [0.25, x]);
        assert_eq!(f64s(&grads), [1.0, 8.0 * x]);
    });
}

/// A function that records a tape has no reverse pass of `~(∇f)`, as in
/// the generated code.
#[test]
fn the_reverse_pass_of_the_uncall_of_a_gradient_call_of_a_taped_function_stops() {
    with_project(|run| {
        let e = run
            .gradient(
                "taped_slope",
                floats(&[0.0, 0.5]),
                &[("y".into(), Value::F64(1.0))],
            )
            .unwrap_err();
        let Error::Run(e) = e else { panic!("{e}") };
        assert_eq!(e.check, Check::NotDifferentiable);
        assert_eq!(
            e.what,
            "the reverse pass of `~(∇tape_square)`: `tape_square` records a tape"
        );
    });
}

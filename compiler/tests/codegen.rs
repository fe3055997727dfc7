//! Snapshots (insta) of the Rust generated for a few functions, and the
//! backend's own errors.

use nilang_compiler::codegen::Options;
use nilang_compiler::db::{self, Project, RootDatabase, SourceFile};

/// The call and the uncall only (the adjoints have their own snapshot).
fn module(text: &str) -> Result<String, Vec<String>> {
    module_with(
        text,
        &Options {
            gradients: false,
            ..Options::default()
        },
    )
}

fn module_with(text: &str, options: &Options) -> Result<String, Vec<String>> {
    let db = RootDatabase::default();
    let file = SourceFile::new(&db, "snap.nil".into(), text.into());
    let project = Project::new(&db, vec![file]);
    db::rust_module_text(&db, project, file, options).map_err(|errors| {
        errors
            .iter()
            .map(|d| format!("{}: {}", d.code, d.message))
            .collect()
    })
}

#[test]
fn multiplier() {
    let code = module(
        "\"\"\"out! += x * y\"\"\"\nfunction multiplier(out!::T, x::T, y::T) where T: Real\n    anc ← zero(T)\n    @routine anc += x * y\n    out! += identity(anc)\n    ~@routine\nend\n",
    )
    .unwrap();
    insta::assert_snapshot!(code);
}

#[test]
fn control_flow_and_calls() {
    let code = module(
        r#"function bump(a::f64, b::i64)
    a += b
end

function control(v::[f64], n::i64, y::f64)
    for i = 1:2:n
        if (i > 2, ~)
            bump(v[i], i)
        else
            NEG(y)
        end
    end
    while (y < 10, y > 0)
        y += 3
    end
    SWAP(v[1], v[2])
    ~bump(y, n)
end
"#,
    )
    .unwrap();
    insta::assert_snapshot!(code);
}

#[test]
fn unsupported_constructs_are_errors_not_wrong_code() {
    let errors = module("function f(s::(f64, f64), w::f64)\n    w += 1.0\nend\n").unwrap_err();
    assert!(errors.iter().all(|e| e.starts_with("E0701")), "{errors:?}");
    assert!(!errors.is_empty());
}

#[test]
fn check_errors_stop_code_generation() {
    let errors = module("function f(y::f64, x::f64)\n    y += x * y\nend\n").unwrap_err();
    assert_eq!(
        errors,
        vec!["E0201: `y` is read and written by the same instruction"]
    );
}

#[test]
fn matrices_columns_and_broadcasts() {
    let code = module(
        r#"function scale_col(x::[T], c::T) where T: Real
    x .+= c .* 2
end

function mats(Q::Matrix<T>, A::Matrix<T>, j::i64) where T: Real
    Q[1, j] += A[2, j] ^ 2
    Q[:, j] .+= identity.(A[:, j])
    scale_col(Q[:, j], A[1, 1])
end
"#,
    )
    .unwrap();
    insta::assert_snapshot!(code);
}

#[test]
fn complex_and_sparse() {
    let code = module(
        r#"function cplx(y::Complex<T>, x::Complex<T>, w::Complex<T>) where T: Real
    y += x * w'
    y.im += angle(x)
end

function colsum(s::T, A::Csc<T>, j::i64) where T: Real
    for k = A.colptr[j]:A.colptr[j+1]-1
        s += A.nzval[k] * A.rowval[k]
    end
end
"#,
    )
    .unwrap();
    insta::assert_snapshot!(code);
}

#[test]
fn without_checks_a_final_uncomputation_of_freed_ancillas_is_not_generated() {
    let text = r#"function f(out::f64, x::f64)
    a ← 0.0
    b ← 0.0
    @routine begin
        a += x * 2
        b += a^2
    end
    out += identity(b)
    ~@routine
end

function g(out::f64, x::f64)
    a ← 0.0
    for i = 1:3
        @routine a += x * i
        out += identity(a)
        ~@routine
    end
end
"#;
    let unchecked = Options {
        checks: false,
        gradients: false,
        ..Options::default()
    };
    let code = module_with(text, &unchecked).unwrap();
    // f: the uncomputation (`b -= a ^ 2`, `a -= x * 2`) is gone, from the
    // call and from the uncall; in g the ancilla lives on after `~@routine`
    // (the next iteration needs it back at zero), so it stays.
    let f = &code[code.find("pub fn f(").unwrap()..code.find("pub fn g(").unwrap()];
    let g = &code[code.find("pub fn g(").unwrap()..];
    assert_eq!(f.matches("b -=").count(), 0, "{f}");
    assert_eq!(f.matches("a -=").count(), 0, "{f}");
    assert_eq!(f.matches("(*out) -=").count(), 1, "{f}");
    assert_eq!(g.matches("a -=").count(), 2, "{g}");
    // With checks the uncomputation runs and its result is checked.
    let checked = module(text).unwrap();
    let f = &checked[..checked.find("pub fn g(").unwrap()];
    assert_eq!(f.matches("b -=").count(), 2, "{f}");
    assert!(f.contains("Check::Deallocation"));
}

#[test]
fn adjoints() {
    let code = module_with(
        r#"function f(y::T, x::[T], θ::T) where T: Real
    a ← zero(T)
    @routine a += x[1] * sin(θ)
    y += a / x[2]
    ~@routine
    ROT(x[1], x[2], θ)
    SWAP(y, x[1])
end

function g(out::f64, v::[f64], c::f64, n::i64)
    ~f(out, v, c * 2.0)
    MULINT(out, n)
end
"#,
        &Options::default(),
    )
    .unwrap();
    insta::assert_snapshot!(code);
}

/// `P; @routine R; B; ~@routine; D`: the gradient runs `P; R; B` plainly,
/// then the reverse pass from `~B` on (no second `R`, no uncomputation in
/// between); the reverse pass itself recomputes `R` without adjoint rules.
/// Here `m` only adds to `out`, so `m_grad` is the reverse pass alone.
#[test]
fn gradient_of_compute_copy_uncompute() {
    let code = module_with(
        "function m(out::T, x::T, y::T) where T: Real\n    anc ← zero(T)\n    @routine anc += x * y\n    out += sin(anc)\n    ~@routine\nend\n",
        &Options::default(),
    )
    .unwrap();
    let grad = code
        .split("\n\n")
        .filter(|f| f.contains("pub fn m_adjoint") || f.contains("pub fn m_grad"))
        .collect::<Vec<_>>()
        .join("\n\n");
    insta::assert_snapshot!(grad);
}

/// `f_grad` skips `f`'s forward run when `f` only accumulates into what it
/// changes, through callees too (and when no callee gets those values, its
/// reverse pass leaves them alone); a function that reads what it changes,
/// or passes it to a callee that reads it, keeps the forward run.
#[test]
fn gradient_without_a_forward_run_only_for_accumulators() {
    let src = "\
function acc(out::T, x::T) where T: Real
    out += sin(x)
end
function through_call(out::T, x::T) where T: Real
    acc(out, x)
    ~acc(out, 2 * x)
end
function reads(out::T, y::T, x::T) where T: Real
    out += sin(x)
    y += out * x
end
function reads_in_callee(y::T, out::T, x::T) where T: Real
    reads(out, y, x)
end
function in_condition(out::T, y::T, x::T) where T: Real
    out += x
    if (out > 0, ~)
        y += x
    end
end
";
    let code = module_with(src, &Options::default()).unwrap();
    let grad_of = |name: &str| {
        code.split("\n\n")
            .find(|f| f.contains(&format!("pub fn {name}_grad")))
            .unwrap_or_else(|| panic!("no {name}_grad in {code}"))
            .to_string()
    };
    // `acc` writes `out` itself: its gradient is the reverse pass without
    // the updates of `out` (which then keeps its input), no copy needed.
    let g = grad_of("acc");
    assert!(
        g.contains("acc_adjoint_accumulating(") && !g.contains("__saved"),
        "acc: {g}"
    );
    let pass = code
        .split("\n\n")
        .find(|f| f.contains("pub fn acc_adjoint_accumulating"))
        .expect("the accumulating reverse pass");
    assert!(pass.contains("cos(x)"), "the rule is applied: {pass}");
    assert!(!pass.contains("(*out) -="), "no update of `out`: {pass}");
    // `through_call` passes `out` to a callee: the plain reverse pass, with
    // `out` saved before and set back after.
    let g = grad_of("through_call");
    assert!(
        g.contains("let __saved_0 = *out;")
            && g.contains("through_call_adjoint(")
            && !g.contains("    through_call("),
        "through_call: {g}"
    );
    assert!(
        !code.contains("through_call_adjoint_accumulating"),
        "{code}"
    );
    for name in ["reads", "reads_in_callee", "in_condition"] {
        let g = grad_of(name);
        assert!(!g.contains("__saved"), "{name}: {g}");
    }
}

#[test]
fn shape_queries_in_a_differentiated_expression_carry_no_derivative() {
    let code = module_with(
        "function h(y::f64, v::[f64])\n    y += v[1] * length(v)\nend\n",
        &Options::default(),
    )
    .unwrap();
    assert!(code.contains("pub fn h_adjoint"), "{code}");
    assert!(!code.contains("NotDifferentiable"), "{code}");
}

#[test]
fn a_complex_value_added_to_a_real_place_is_e0603() {
    let errors = module(
        "function f(y::Complex<f64>, x::Complex<f64>)\n    y.im -= log(x)\nend\n\nfunction g(y::f64, x::Complex<f64>)\n    y += imag(exp(x))\nend\n",
    )
    .unwrap_err();
    assert_eq!(
        errors,
        ["E0603: a complex value cannot be added to a real place"]
    );
}

const TAPE: &str = r#"function step(y::f64, x::f64, n::i64)
    @tape for i = 1:n
        if y > 0
            y = sin(y) * x
        else
            y /= x
        end
    end
    @tape while y > 2
        y *= 0.5
    end
end

function twice(out::f64, y::f64, x::f64)
    step(y, x, 2)
    t ← zero(y)
    @routine begin
        t += y
        @tape for i = 1:2
            t *= x
        end
    end
    out += t
    ~@routine
end
"#;

#[test]
fn tape_loops() {
    let code = module_with(TAPE, &Options::default()).unwrap();
    // `step` records on its own line: its functions take the tape, and its
    // gradient makes one. `twice` records only inside a `@routine`, on a
    // local tape, and passes its own tape to `step`.
    assert!(
        code.contains("pub fn step(y: &mut f64, x: f64, n: i64, __tape: &mut nilang::Tape)"),
        "{code}"
    );
    assert!(
        code.contains("let mut __tape = nilang::Tape::new();"),
        "{code}"
    );
    // `step` overwrites on its tape: the reverse pass loses the seed of
    // `y`, so its `uncall_step_grad` reports that instead of undoing.
    assert!(
        code.contains("cannot undo the gradient of `step`"),
        "{code}"
    );
    assert!(code.contains("let mut __tape_r"), "{code}");
    insta::assert_snapshot!(code);
}

#[test]
fn uncall_grad_of_a_function_that_records() {
    let code = module_with(
        "function count(out::f64, x::f64, n::i64)\n    k ← 0\n    @tape while k < n\n        k += 1\n        out += x * k\n    end\n    k → n\nend\n",
        &Options::default(),
    )
    .unwrap();
    // The tape `count_grad` used is gone: a fresh one is recorded by the
    // undone reverse pass (which runs `count` forwards) and read back by
    // `~count`.
    let start = code
        .find("pub fn uncall_count_grad")
        .unwrap_or_else(|| panic!("{code}"));
    let body = &code[start..];
    let body = &body[..body.find("\n}\n").unwrap_or(body.len())];
    assert!(
        body.contains("let mut __tape = nilang::Tape::new();"),
        "{body}"
    );
    assert!(
        body.contains(
            "uncall_count_adjoint(&mut *out, &mut *out_bar, x, &mut *x_bar, n, &mut __tape)?;"
        ),
        "{body}"
    );
    assert!(
        body.contains("uncall_count(&mut *out, x, n, &mut __tape)"),
        "{body}"
    );
}

#[test]
fn uncalling_a_function_that_records_is_e0702() {
    let errors = module(&format!(
        "{TAPE}\nfunction back(y::f64, x::f64)\n    ~step(y, x, 3)\n    ~(begin\n        step(y, x, 1)\n    end)\n    ~(~step(y, x, 1))\nend\n"
    ))
    .unwrap_err();
    assert_eq!(
        errors,
        [
            "E0702: `step` records a tape and cannot be uncalled here",
            "E0702: `step` records a tape and cannot be uncalled here",
        ]
    );
}

#[test]
fn every_loop_taped_is_an_option() {
    let source = "function f(y::f64, x::f64, n::i64)\n    for i = 1:n\n        y += x\n    end\n    while (y < 10, y > 0)\n        y += 3\n    end\nend\n\nfunction g(y::f64, x::f64)\n    f(y, x, 2)\nend\n";
    let plain = module(source).unwrap();
    assert!(!plain.contains("__tape"), "{plain}");
    let taped = module_with(
        source,
        &Options {
            tape_loops: true,
            ..Options::default()
        },
    )
    .unwrap();
    assert!(
        taped.contains("pub fn g(y: &mut f64, x: f64, __tape: &mut nilang::Tape)"),
        "{taped}"
    );
    assert!(
        taped.contains("push::<usize>"),
        "the trip count is recorded: {taped}"
    );
    // With the option, `+=` in a loop is recorded and restored, not
    // uncomputed.
    assert!(taped.contains("__tape.push((*y));"), "{taped}");
    assert!(taped.contains("(*y) = __tape.pop("), "{taped}");
    // Uncalling a function with loops then needs its tape.
    let errors = module_with(
        &format!("{source}\nfunction h(y::f64, x::f64)\n    ~f(y, x, 2)\nend\n"),
        &Options {
            tape_loops: true,
            ..Options::default()
        },
    )
    .unwrap_err();
    assert_eq!(
        errors,
        ["E0702: `f` records a tape and cannot be uncalled here"]
    );
}

#[test]
fn a_routine_that_records_what_its_body_changes_is_e0703() {
    let errors = module(
        "function f(y::f64, x::f64)\n    @routine begin\n        @tape for i = 1:2\n            y *= x\n        end\n    end\n    y += x\n    ~@routine\nend\n",
    )
    .unwrap_err();
    assert_eq!(
        errors,
        [
            "E0703: `y` is overwritten on a tape by the `@routine` and changed before its `~@routine`"
        ]
    );
}

#[test]
fn a_tape_loop_in_code_a_kernel_calls_is_e0805() {
    let errors = module(
        "function f(y::f32, x::f32)\n    @tape for i = 1:3\n        y *= x\n    end\nend\n\n@kernel function k(y::[f32], x::[f32])\n    i ← global_index()\n    f(y[i], x[i])\nend\n",
    )
    .unwrap_err();
    assert_eq!(
        errors,
        ["E0805: `f` runs a tape loop, and this kernel runs on the GPU"]
    );
}

#[test]
fn a_complex_value_overwriting_a_real_place_is_e0603() {
    let errors = module(
        "function f(y::f64, z::Complex<f64>, n::i64)\n    @tape for i = 1:n\n        y = exp(z)\n    end\nend\n",
    )
    .unwrap_err();
    assert_eq!(
        errors,
        ["E0603: a complex value cannot be added to a real place"]
    );
}

#[test]
fn stack_instructions_need_a_stack_of_their_type() {
    let errors = module(
        "function f(s::Stack<f64>, x::f64, n::i64, t::[f64])\n    PUSH!(s, n)\n    PUSH!(t, x)\n    COPYPUSH!(s, n > 1)\nend\n",
    )
    .unwrap_err();
    assert_eq!(
        errors,
        [
            "E0620: a value of type `i64` on a stack of `f64`",
            "E0620: this is not a stack",
            "E0620: a value of type `bool` on a stack of `f64`",
        ]
    );
    let errors = module("function h(y::f64, s::Stack<f64>)\n    y += s\nend\n").unwrap_err();
    assert_eq!(errors, ["E0620: the stack `s` is not a number"]);
    let errors =
        module("function g(x::f64)\n    s ← stack(x + 1)\n    PUSH!(s, x)\nend\n").unwrap_err();
    assert!(
        errors
            .iter()
            .any(|e| e == "E0620: `stack` needs a scalar element type"),
        "{errors:?}"
    );
}

#[test]
fn stack_code_with_and_without_checks() {
    let text = "function f(s::Stack<f64>, x::f64)\n    POP!(s, x)\n    COPYPOP!(s, x)\nend\n\nfunction g(x::f64)\n    s ← stack(f64)\n    PUSH!(s, x)\n    POP!(s, x)\nend\n";
    let checked = module(text).unwrap();
    assert!(
        checked.contains("pub fn f(s: &mut nilang::Stack<f64>, x: &mut f64)"),
        "{checked}"
    );
    assert!(
        checked.contains("let mut s: nilang::Stack<f64> = nilang::Stack::<f64>::new();"),
        "{checked}"
    );
    assert!(
        checked.contains("must be zero before `POP!(s, x)`"),
        "{checked}"
    );
    assert!(
        checked.contains("the top of `s` must equal `x`"),
        "{checked}"
    );
    assert!(checked.contains("must be empty when freed"), "{checked}");
    let unchecked = module_with(
        text,
        &Options {
            checks: false,
            gradients: false,
            ..Options::default()
        },
    )
    .unwrap();
    // Without checks only the empty pop is still reported (it cannot be
    // left to a panic).
    assert!(!unchecked.contains("must be zero"), "{unchecked}");
    assert!(!unchecked.contains("must equal"), "{unchecked}");
    assert!(!unchecked.contains("must be empty"), "{unchecked}");
    assert!(unchecked.contains("is empty"), "{unchecked}");
}

#[test]
fn typecast_errors() {
    let errors = module(
        "function f(y::f64, x::f64)\n    z ← 0.0\n    (i64 => f64)(z)\n    (f64 => i64)(x)\n    (f64 => Str)(z)\n    (f64 => i64)(z + 1)\n    if (y > 0, ~)\n        (f64 => i64)(z)\n        (i64 => f64)(z)\n    end\nend\n",
    )
    .unwrap_err();
    assert_eq!(
        errors,
        [
            "E0621: this typecast converts from `i64`, but `z` is `f64` here",
            "E0622: a typecast cannot change the type of the parameter `x`",
            "E0602: unknown type `Str` in a typecast",
            "E0207: `z + 1` is not an assignable place",
            "E0622: a typecast of `z` outside the block that allocates it",
            "E0622: a typecast of `z` outside the block that allocates it",
        ]
    );
    let errors =
        module("function g(y::T, x::T) where T: Real\n    z ← zero(T)\n    (T => f64)(z)\nend\n")
            .unwrap_err();
    assert_eq!(
        errors,
        [
            "E0701: a typecast from or to a type parameter or `bool` is not supported by the Rust backend yet"
        ]
    );
}

#[test]
fn typecast_code_with_and_without_checks() {
    let text = "function f(y::f64, x::f64)\n    z ← 0.0\n    z += x\n    (f64 => i32)(z)\n    y += z\n    (i32 => f64)(z)\n    z -= x\nend\n";
    let checked = module(text).unwrap();
    assert!(
        checked.contains("let mut z: i32 = match <f64 as nilang::cast::Cast<i32>>::cast_exact(z)"),
        "{checked}"
    );
    let unchecked = module_with(
        text,
        &Options {
            checks: false,
            gradients: false,
            ..Options::default()
        },
    )
    .unwrap();
    assert!(
        unchecked.contains("let mut z: i32 = <f64 as nilang::cast::Cast<i32>>::cast_as(z);"),
        "{unchecked}"
    );
}

#[test]
fn the_conjugate_view_of_a_complex_place() {
    let code = module("function f(y::Complex<f64>, x::Complex<f64>)\n    y' += x\nend\n").unwrap();
    assert!(code.contains("nilang::complex::conj(x)"), "{code}");
    let errors =
        module("function g(y::Complex<f64>, x::Complex<f64>)\n    SWAP(y', x)\nend\n").unwrap_err();
    assert_eq!(
        errors,
        [
            "E0701: changing the conjugate view `z'` of a complex `z` other than by `+=` or `-=` is not supported by the Rust backend yet"
        ]
    );
}

#[test]
fn number_systems() {
    // Log numbers become statements on `.log` fields (the Gaussian logarithm
    // for sums), fixed-point `+=` a checked add, tropical `+=` in a tape loop
    // a recorded maximum.
    let code = module(
        r#"function numbers(x::ULogarithmic<f64>, y::ULogarithmic<f64>, z::ULogarithmic<f64>, r::f64, f::Fixed43, t::[Tropical<f64>], s::Tropical<f64>)
    x *= y + z
    x /= y - z
    x *= r
    r += float(x)
    f += fixed(r)
    t[1] *= s
    @tape for i = 1:length(t)
        s += t[i]
    end
end
"#,
    )
    .unwrap();
    insta::assert_snapshot!(code);
}

#[test]
fn broadcasts_on_number_systems_are_e0701() {
    for ty in ["Fixed43", "ULogarithmic<f64>", "Tropical<f64>"] {
        let errors = module(&format!(
            "function b(x::Vec<{ty}>, y::Vec<{ty}>)\n    x .*= y\nend\n"
        ))
        .unwrap_err();
        // Fixed43 `*=` is already a check error (E0205).
        assert!(
            errors
                .iter()
                .all(|e| e.starts_with("E0701") || e.starts_with("E0205")),
            "{ty}: {errors:?}"
        );
        assert!(!errors.is_empty(), "{ty}");
    }
}

#[test]
fn math_and_operators_number_systems_lack_are_e0701() {
    for (decl, stmt) in [
        ("x::Fixed43", "y += sin(x)"),
        ("x::ULogarithmic<f64>", "y += exp(x)"),
        ("x::Tropical<f64>", "y += abs(x)"),
        ("x::Fixed43", "y += float(x ^ 2)"),
        ("x::Tropical<f64>, z::Tropical<f64>", "y += float(x - z)"),
    ] {
        let errors =
            module(&format!("function m(y::f64, {decl})\n    {stmt}\nend\n")).expect_err(stmt);
        assert!(
            errors.len() == 1 && errors[0].starts_with("E0701") && errors[0].contains("float(x)"),
            "{stmt}: {errors:?}"
        );
    }
}

#[test]
fn a_log_number_added_to_a_real_place_adds_its_value() {
    let code = module("function m(y::f64, s::ULogarithmic<f64>)\n    y += s\nend\n").unwrap();
    assert!(code.contains("nilang::Real::exp(s.log)"), "{code}");
}

#[test]
fn zero_and_one_of_log_and_tropical_numbers() {
    let code = module_with(
        "function m(y::f64, x::ULogarithmic<f64>, t::Tropical<f64>)\n    s ← one(x)\n    u ← zero(t)\n    s *= x\n    y += float(s)\n    s /= x\n    s → one(x)\n    u → zero(t)\nend\n",
        &Options::default(),
    )
    .unwrap();
    assert!(code.contains("nilang::ULog::<f64>::one()"), "{code}");
    assert!(code.contains("nilang::Tropical::<f64>::zero()"), "{code}");
    // The deallocation's adjoint rule subtracts log(one) = 0 from `s.log`.
    assert!(code.contains("pub fn m_grad"), "{code}");
}

const STRUCTS: &str = r#""""A point."""
struct Point{T}
    x::T
    y::T
end

function shift(p::Point{T}, d::T) where T: Real
    p.x += d
    SWAP(p.x, p.y)
end

function build(out::T, a::T) where T: Real
    q ← Point(a, zero(T))
    shift(q, a)
    out += q.x * q.y
    ~shift(q, a)
    q → Point(a, zero(T))
end
"#;

#[test]
fn structs() {
    insta::assert_snapshot!(module_with(STRUCTS, &Options::default()).unwrap());
}

#[test]
fn a_gradient_through_a_concrete_float_field_is_reported_not_dropped() {
    let code = module_with(
        "struct W{T} w::f64; v::T end\nfunction f(out::f64, p::W{f64})\n    out += p.w * p.v\nend\n",
        &Options::default(),
    )
    .unwrap();
    // The reverse pass refuses instead of giving `p.w` no adjoint.
    let adjoint = code.split("pub fn f_adjoint").nth(1).unwrap();
    let adjoint = adjoint.split("pub fn").next().unwrap();
    assert!(adjoint.contains("NotDifferentiable"), "{adjoint}");
    assert!(adjoint.contains("the field `w` of `W`"), "{adjoint}");
}

#[test]
fn structs_of_other_files_are_imported() {
    let db = RootDatabase::default();
    let a = SourceFile::new(
        &db,
        "geometry.nil".into(),
        "struct Point{T} x::T; y::T end\n".into(),
    );
    let b = SourceFile::new(
        &db,
        "use.nil".into(),
        "function f(p::Point{f64})\n    p.x += 1.0\nend\n".into(),
    );
    let project = Project::new(&db, vec![a, b]);
    let code = db::rust_module_text(&db, project, b, &Options::default()).unwrap();
    assert!(code.contains("use super::geometry::Point;"), "{code}");
    assert!(code.contains("pub fn f(p: &mut Point<f64>)"), "{code}");
    let own = db::rust_module_text(&db, project, a, &Options::default()).unwrap();
    assert!(own.contains("pub struct Point<T> {"), "{own}");
}

#[test]
fn structs_in_kernels_are_e0701() {
    let errors = module(
        "struct P x::f32 end\n@kernel function k(y::[f32], p::P)\n    i ← global_index()\n    y[i] += p.x\nend\n",
    )
    .unwrap_err();
    assert!(!errors.is_empty());
    assert!(errors.iter().all(|e| e.starts_with("E0701")), "{errors:?}");
}

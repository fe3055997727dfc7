//! Snapshots (insta) of the Rust generated for a few functions, and the
//! backend's own errors. Each `.nil` fixture under `tests/codegen/` gets
//! its snapshot from one test, `fixtures`.

use std::path::Path;

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
    module_of("snap.nil", text, options)
}

fn module_of(path: &str, text: &str, options: &Options) -> Result<String, Vec<String>> {
    let db = RootDatabase::default();
    let file = SourceFile::new(&db, path.into(), text.into());
    let project = Project::new(&db, vec![file]);
    db::rust_module_text(&db, project, file, options).map_err(|errors| {
        errors
            .iter()
            .map(|d| format!("{}: {}", d.code, d.message))
            .collect()
    })
}

/// A fixture's options: one `# options: key=value ...` line (`checks`,
/// `gradients`, `tape_loops`, `atol`, over `Options::default()`) for each
/// module to generate; no such line, the default options alone.
fn fixture_options(text: &str) -> Vec<(String, Options)> {
    let lines: Vec<&str> = text
        .lines()
        .filter_map(|l| l.strip_prefix("# options:"))
        .map(str::trim)
        .collect();
    if lines.is_empty() {
        return vec![("default".to_string(), Options::default())];
    }
    lines
        .into_iter()
        .map(|line| {
            let mut options = Options::default();
            for pair in line.split_whitespace() {
                let (key, value) = pair
                    .split_once('=')
                    .unwrap_or_else(|| panic!("`{pair}`: an option is key=value"));
                let flag = || {
                    value
                        .parse::<bool>()
                        .unwrap_or_else(|_| panic!("`{pair}`: true or false"))
                };
                match key {
                    "checks" => options.checks = flag(),
                    "gradients" => options.gradients = flag(),
                    "tape_loops" => options.tape_loops = flag(),
                    "atol" => {
                        options.atol = value
                            .parse()
                            .unwrap_or_else(|_| panic!("`{pair}`: a number"))
                    }
                    _ => panic!("unknown option `{key}`"),
                }
            }
            (line.to_string(), options)
        })
        .collect()
}

/// What a fixture pins down: its leading `#` comment, less the options.
fn fixture_description(text: &str) -> String {
    text.lines()
        .take_while(|l| l.starts_with('#'))
        .filter(|l| !l.starts_with("# options:"))
        .map(|l| l.trim_start_matches('#').trim())
        .collect::<Vec<_>>()
        .join(" ")
}

/// Every fixture `tests/codegen/*.nil` (each named after what it pins down,
/// which its leading `#` comment says): the Rust generated for it, one
/// module for each of its options lines, as one snapshot
/// `snapshots/codegen__fixtures@<fixture>.nil.snap`. `glob!` runs every
/// fixture and lists the failures at the end.
#[test]
fn fixtures() {
    let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/codegen");
    for name in WITH_PROPERTIES {
        assert!(
            dir.join(name).is_file(),
            "`properties` checks `{name}`, which is not a fixture"
        );
    }
    insta::glob!("codegen/*.nil", |path| {
        let name = path.file_name().unwrap().to_str().unwrap();
        let text = std::fs::read_to_string(path).unwrap();
        let modules: Vec<(String, String)> = fixture_options(&text)
            .into_iter()
            .map(|(line, options)| {
                let code = module_of(name, &text, &options)
                    .unwrap_or_else(|e| panic!("{name} ({line}): {e:?}"));
                (line, code)
            })
            .collect();
        let snapshot = modules
            .iter()
            .map(|(line, code)| format!("// options: {line}\n{code}"))
            .collect::<Vec<_>>()
            .join("\n");
        let mut settings = insta::Settings::clone_current();
        settings.set_description(fixture_description(&text));
        settings.bind(|| insta::assert_snapshot!(snapshot));
        properties(name, &modules);
    });
}

/// The fixtures `properties` checks.
const WITH_PROPERTIES: [&str; 6] = [
    "without_checks_a_final_uncomputation_of_freed_ancillas_is_not_generated.nil",
    "gradient_without_a_forward_run_only_for_accumulators.nil",
    "shape_queries_in_a_differentiated_expression_carry_no_derivative.nil",
    "a_gradient_through_a_concrete_float_field_is_reported_not_dropped.nil",
    "every_loop_taped_is_an_option.nil",
    "stack_code_with_and_without_checks.nil",
];

/// What a few fixtures pin down beyond their snapshot: properties a snapshot
/// diff that breaks them would not make obvious. `modules` pairs each
/// options line with its module.
fn properties(fixture: &str, modules: &[(String, String)]) {
    let code = |options: &str| module_for(fixture, modules, options);
    let item = |code, needle: &str| item_of(fixture, code, needle);
    match fixture {
        "without_checks_a_final_uncomputation_of_freed_ancillas_is_not_generated.nil" => {
            // f's uncomputation is gone from the call and the uncall; g's
            // ancilla lives on (the next iteration needs it back at zero),
            // so its uncomputation becomes setting it to zero.
            let unchecked = code("checks=false gradients=false");
            let f = &unchecked
                [unchecked.find("pub fn f(").unwrap()..unchecked.find("pub fn g(").unwrap()];
            let g = &unchecked[unchecked.find("pub fn g(").unwrap()..];
            assert_eq!(f.matches("b -=").count(), 0, "{f}");
            assert_eq!(f.matches("a -=").count(), 0, "{f}");
            assert_eq!(f.matches("(*out) -=").count(), 1, "{f}");
            assert_eq!(g.matches("a -=").count(), 0, "{g}");
            assert_eq!(g.matches("a = nilang::zero::<f64>();").count(), 2, "{g}");
            // ... and the routine's update of it, from zero, an assignment.
            assert_eq!(g.matches("a += ").count(), 0, "{g}");
            assert_eq!(g.matches("a = __v").count(), 2, "{g}");
            // With checks the uncomputation runs and its result is checked.
            let checked = code("gradients=false");
            let f = &checked[..checked.find("pub fn g(").unwrap()];
            assert_eq!(f.matches("b -=").count(), 2, "{f}");
            assert!(f.contains("Check::Deallocation"), "{f}");
        }
        "gradient_without_a_forward_run_only_for_accumulators.nil" => {
            let code = code("default");
            // `acc` writes `out` itself: its gradient is the reverse pass
            // without the updates of `out` (which then keeps its input).
            let g = item(code, "pub fn acc_grad");
            assert!(
                g.contains("acc_adjoint_accumulating(") && !g.contains("__saved"),
                "{g}"
            );
            let pass = item(code, "pub fn acc_adjoint_accumulating");
            assert!(pass.contains("cos(x)"), "the rule is applied: {pass}");
            assert!(!pass.contains("(*out) -="), "no update of `out`: {pass}");
            // `through_call` passes `out` to a callee: the plain reverse
            // pass, with `out` saved before and set back after.
            let g = item(code, "pub fn through_call_grad");
            assert!(
                g.contains("let __saved_0 = *out;")
                    && g.contains("through_call_adjoint(")
                    && !g.contains("    through_call("),
                "{g}"
            );
            assert!(
                !code.contains("through_call_adjoint_accumulating"),
                "{code}"
            );
            for name in ["reads", "reads_in_callee", "in_condition"] {
                let g = item(code, &format!("pub fn {name}_grad"));
                assert!(!g.contains("__saved"), "{name}: {g}");
            }
        }
        "shape_queries_in_a_differentiated_expression_carry_no_derivative.nil" => {
            let code = code("default");
            assert!(code.contains("pub fn h_adjoint"), "{code}");
            assert!(!code.contains("NotDifferentiable"), "{code}");
        }
        "a_gradient_through_a_concrete_float_field_is_reported_not_dropped.nil" => {
            let adjoint = item(code("default"), "pub fn f_adjoint");
            assert!(adjoint.contains("NotDifferentiable"), "{adjoint}");
            assert!(adjoint.contains("the field `w` of `W`"), "{adjoint}");
        }
        "every_loop_taped_is_an_option.nil" => {
            let plain = code("gradients=false");
            assert!(!plain.contains("__tape"), "{plain}");
            let taped = code("tape_loops=true");
            assert!(
                taped.contains("pub fn g(y: &mut f64, x: f64, __tape: &mut nilang::Tape)"),
                "{taped}"
            );
        }
        "stack_code_with_and_without_checks.nil" => {
            // Without checks only the empty pop is still reported.
            let unchecked = code("checks=false gradients=false");
            assert!(!unchecked.contains("must be zero"), "{unchecked}");
            assert!(!unchecked.contains("must equal"), "{unchecked}");
            assert!(!unchecked.contains("must be empty"), "{unchecked}");
            assert!(unchecked.contains("is empty"), "{unchecked}");
        }
        _ => assert!(!WITH_PROPERTIES.contains(&fixture), "{fixture}: no checks"),
    }
}

/// The module of `modules` generated with the options line `options`.
fn module_for<'a>(fixture: &str, modules: &'a [(String, String)], options: &str) -> &'a str {
    modules
        .iter()
        .find(|(line, _)| line == options)
        .map(|(_, code)| code.as_str())
        .unwrap_or_else(|| panic!("{fixture}: no `# options: {options}`"))
}

/// The item (doc comment and function) of `code` that contains `needle`.
fn item_of<'a>(fixture: &str, code: &'a str, needle: &str) -> &'a str {
    code.split("\n\n")
        .find(|item| item.contains(needle))
        .unwrap_or_else(|| panic!("{fixture}: no `{needle}` in {code}"))
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

/// With every loop taped (the code is the fixture
/// `codegen/every_loop_taped_is_an_option.nil`), uncalling a function with
/// loops needs its tape.
#[test]
fn uncalling_a_function_whose_loops_are_all_taped_is_e0702() {
    let source = "function f(y::f64, x::f64, n::i64)\n    for i = 1:n\n        y += x\n    end\n    while (y < 10, y > 0)\n        y += 3\n    end\nend\n\nfunction g(y::f64, x::f64)\n    f(y, x, 2)\nend\n";
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

/// `y' += x` is the fixture `codegen/the_conjugate_view_of_a_complex_place.nil`.
#[test]
fn changing_a_conjugate_view_other_than_by_adding_is_e0701() {
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

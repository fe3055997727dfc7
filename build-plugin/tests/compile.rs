//! The plugin outside cargo: output files, rewriting only on change, errors.

use nilang_build::{Config, Error};

/// A fresh folder with `nil/sub` and `out` in it, removed again when the
/// test ends (also when it fails).
fn scratch(name: &str) -> tempfile::TempDir {
    let dir = tempfile::Builder::new()
        .prefix(&format!("nilang-build-{name}-"))
        .tempdir()
        .unwrap();
    std::fs::create_dir_all(dir.path().join("nil/sub")).unwrap();
    std::fs::create_dir_all(dir.path().join("out")).unwrap();
    dir
}

fn config(dir: &std::path::Path) -> Config {
    Config::new()
        .manifest_dir(dir)
        .out_dir(dir.join("out"))
        .read_metadata(false)
        .emit_cargo_directives(false)
}

#[test]
fn writes_one_module_per_file_and_only_when_changed() {
    let tmp = scratch("rewrite");
    let dir = tmp.path();
    std::fs::write(
        dir.join("nil/a.nil"),
        "function f(y::f64, x::f64)\n    y += x\nend\n",
    )
    .unwrap();
    std::fs::write(
        dir.join("nil/sub/b.nil"),
        "function g(y::f64, x::f64)\n    f(y, x)\nend\n",
    )
    .unwrap();
    let written = config(dir).compile_dir("nil").unwrap();
    assert_eq!(written, vec![dir.join("out/a.rs"), dir.join("out/b.rs")]);
    let b = std::fs::read_to_string(dir.join("out/b.rs")).unwrap();
    assert!(b.contains("super::a::__nil_f(&mut *y, x)?;"), "{b}");

    let before = std::fs::metadata(dir.join("out/a.rs"))
        .unwrap()
        .modified()
        .unwrap();
    std::thread::sleep(std::time::Duration::from_millis(20));
    config(dir).compile_dir("nil").unwrap();
    let after = std::fs::metadata(dir.join("out/a.rs"))
        .unwrap()
        .modified()
        .unwrap();
    assert_eq!(before, after, "an unchanged module is not rewritten");

    std::fs::write(
        dir.join("nil/a.nil"),
        "function f(y::f64, x::f64)\n    y -= x\nend\n",
    )
    .unwrap();
    config(dir).compile_dir("nil").unwrap();
    assert!(
        std::fs::read_to_string(dir.join("out/a.rs"))
            .unwrap()
            .contains("-= __v")
    );
    assert!(!dir.join("out/a.rs.tmp").exists());
}

#[test]
fn errors_write_nothing() {
    let tmp = scratch("errors");
    let dir = tmp.path();
    std::fs::write(
        dir.join("nil/a.nil"),
        "function f(y::f64, x::f64)\n    y += x\nend\n",
    )
    .unwrap();
    std::fs::write(
        dir.join("nil/b.nil"),
        "function g(y::f64, x::f64)\n    y += x * y\nend\n",
    )
    .unwrap();
    match config(dir).compile_dir("nil") {
        Err(Error::Diagnostics { errors }) => assert_eq!(errors, 1),
        other => panic!("expected diagnostics, got {other:?}"),
    }
    assert_eq!(std::fs::read_dir(dir.join("out")).unwrap().count(), 0);
}

#[test]
fn clear_errors_for_bad_setups() {
    let tmp = scratch("setup");
    let dir = tmp.path();
    let err = config(dir).compile_dir("missing").unwrap_err();
    assert!(err.to_string().starts_with("cannot read `"), "{err}");
    std::fs::write(
        dir.join("nil/x.nil"),
        "function f(y::f64)\n    NEG(y)\nend\n",
    )
    .unwrap();
    std::fs::write(
        dir.join("nil/sub/x.nil"),
        "function g(y::f64)\n    NEG(y)\nend\n",
    )
    .unwrap();
    let err = config(dir).compile_dir("nil").unwrap_err();
    assert!(
        err.to_string().contains("would both become the module `x`"),
        "{err}"
    );
    let err = config(dir).atol(f64::NAN).compile_dir("nil").unwrap_err();
    assert!(err.to_string().contains("finite non-negative"), "{err}");
}

#[test]
fn package_metadata_sets_tolerance_and_checks() {
    let tmp = scratch("metadata");
    let dir = tmp.path();
    let manifest = |nilang: &str| {
        format!(
            "[package]\nname = \"fixture\"\nversion = \"0.0.0\"\nedition = \"2024\"\n\n[lib]\npath = \"lib.rs\"\n\n[package.metadata.nilang]\n{nilang}\n"
        )
    };
    std::fs::write(dir.join("lib.rs"), "").unwrap();
    std::fs::write(
        dir.join("nil/a.nil"),
        "function f(y::f64, x::f64)\n    z ← 0.0\n    z += x\n    y += z\n    z -= x\nend\n",
    )
    .unwrap();
    let with_metadata = || config(dir).read_metadata(true);

    std::fs::write(dir.join("Cargo.toml"), manifest("atol = 1e-6")).unwrap();
    with_metadata().compile_dir("nil").unwrap();
    let code = std::fs::read_to_string(dir.join("out/a.rs")).unwrap();
    assert!(code.contains("pub const ATOL: f64 = 1e-6;"), "{code}");
    assert!(code.contains("nilang::Check::Deallocation"), "{code}");

    std::fs::write(dir.join("Cargo.toml"), manifest("checks = false")).unwrap();
    with_metadata().compile_dir("nil").unwrap();
    let code = std::fs::read_to_string(dir.join("out/a.rs")).unwrap();
    assert!(!code.contains("nilang::Check::"), "{code}");
    // Config overrides the metadata.
    with_metadata().checks(true).compile_dir("nil").unwrap();
    let code = std::fs::read_to_string(dir.join("out/a.rs")).unwrap();
    assert!(code.contains("nilang::Check::Deallocation"), "{code}");

    assert!(code.contains("pub fn f_grad"), "{code}");
    std::fs::write(dir.join("Cargo.toml"), manifest("gradients = false")).unwrap();
    with_metadata().compile_dir("nil").unwrap();
    let code = std::fs::read_to_string(dir.join("out/a.rs")).unwrap();
    assert!(!code.contains("_adjoint"), "{code}");

    std::fs::write(dir.join("Cargo.toml"), manifest("checks = \"no\"")).unwrap();
    let err = with_metadata().compile_dir("nil").unwrap_err();
    assert!(
        err.to_string()
            .contains("[package.metadata.nilang] checks must be true or false"),
        "{err}"
    );
}

#[test]
fn a_variant_makes_parameters_constant_or_says_why_not() {
    let tmp = scratch("variants");
    let dir = tmp.path();
    std::fs::write(
        dir.join("nil/a.nil"),
        "function g(y::f64, a::f64, x::f64)\n    y += a * x\nend\n\nfunction f(y::f64, a::f64, x::f64)\n    y += a * x\n    a += 1.0\nend\n",
    )
    .unwrap();
    config(dir).variant("g", ["a"]).compile_dir("nil").unwrap();
    let code = std::fs::read_to_string(dir.join("out/a.rs")).unwrap();
    // The function as it is, and the variant, which takes no adjoint for `a`.
    assert!(code.contains("pub fn g_grad<"), "{code}");
    let variant = code
        .split("pub fn g_const_a_grad<")
        .nth(1)
        .and_then(|rest| rest.split(") ->").next())
        .unwrap_or_else(|| panic!("no g_const_a_grad in\n{code}"));
    assert!(
        variant.contains("x_bar") && !variant.contains("a_bar"),
        "{variant}"
    );
    assert!(code.contains("pub fn uncall_g_const_a("), "{code}");

    // `f` changes `a`, which cannot then be `Const`.
    let reports = config(dir)
        .variant("f", ["a"])
        .diagnostics(&["nil/a.nil"])
        .unwrap();
    let d = &reports[0].diagnostics[0];
    assert_eq!(d.code, "E0209", "{d:?}");
    assert!(
        d.message
            .starts_with("in the variant of `f` with `a` constant: "),
        "{}",
        d.message
    );
    assert_eq!(
        &reports[0].text[d.primary.span.start as usize..d.primary.span.end as usize],
        "a"
    );
    assert!(matches!(
        config(dir).variant("f", ["a"]).compile_dir("nil"),
        Err(Error::Diagnostics { errors: 1 })
    ));
    assert_eq!(
        std::fs::read_to_string(dir.join("out/a.rs")).unwrap(),
        code,
        "a failed build writes nothing"
    );

    // A parameter the function lacks.
    let reports = config(dir)
        .variant("g", ["b"])
        .diagnostics(&["nil/a.nil"])
        .unwrap();
    let d = &reports[0].diagnostics[0];
    assert_eq!(d.code, "E0625", "{d:?}");
    assert_eq!(d.primary.message, "`g` has no parameter `b`");

    // A name another function has, and a variant asked for twice (made once).
    std::fs::write(
        dir.join("nil/b.nil"),
        "function g_const_a(y::f64, x::f64)\n    y += x\nend\n",
    )
    .unwrap();
    let reports = config(dir)
        .variant("g", ["a"])
        .diagnostics(&["nil/a.nil", "nil/b.nil"])
        .unwrap();
    let d = &reports[0].diagnostics[0];
    assert_eq!(d.code, "E0625", "{d:?}");
    assert_eq!(d.primary.message, "its name `g_const_a` is taken");
    std::fs::remove_file(dir.join("nil/b.nil")).unwrap();
    config(dir)
        .variant("g", ["a"])
        .variant("g", ["a"])
        .compile_dir("nil")
        .unwrap();
    let twice = std::fs::read_to_string(dir.join("out/a.rs")).unwrap();
    assert_eq!(twice.matches("pub fn g_const_a_grad<").count(), 1);

    // A function the files lack.
    let err = config(dir)
        .variant("h", ["a"])
        .compile_dir("nil")
        .unwrap_err();
    assert!(err.to_string().contains("define no function `h`"), "{err}");
    assert!(!err.to_string().contains("did you mean"), "{err}");
    // A name without its `!`: the closest defined name is suggested.
    std::fs::write(
        dir.join("nil/b.nil"),
        "function mul!(y::f64, x::f64)\n    y += x\nend\n",
    )
    .unwrap();
    let err = config(dir)
        .variant("mul", ["x"])
        .compile_dir("nil")
        .unwrap_err();
    assert!(
        err.to_string()
            .contains("define no function `mul`; did you mean `mul!`?"),
        "{err}"
    );
    std::fs::remove_file(dir.join("nil/b.nil")).unwrap();
}

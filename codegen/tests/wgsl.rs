//! Snapshots of the WGSL the GPU backend generates for small kernels, one
//! snapshot per case of the fixtures `tests/wgsl/*.nil` (format in
//! `common/mod.rs`): every shader of every kernel of the case (call and
//! uncall, the reverse pass in each of its variants; `f32`, and `f64` too
//! for a generic kernel), each parsed and validated by naga (the shader
//! compiler wgpu uses, with no device). Bless a change with
//! `INSTA_UPDATE=always cargo test -p nilang-codegen --test wgsl` after
//! reading the diff.
//!
//! The helpers every shader carries are written once, in the snapshot
//! `wgsl__helpers`, and named in the others: the guarded product
//! `nil_times_<float>` and the integer power `nil_powi_<float>` (where
//! they are the same text as there) and the `f64`
//! elementary functions (`F64_MATH`, which `compiler/tests/wgsl.rs` also
//! validates on its own).

mod common;

use std::collections::BTreeMap;
use std::sync::OnceLock;

use common::{Case, assert_case_snapshot, cases, compile, orphan_snapshots, run_all};
use nilang_analysis::db;
use nilang_codegen::queries::{kernel_shaders, rust_module_text};
use nilang_codegen::wgsl::F64_MATH;

fn validate(label: &str, wgsl: &str) {
    let module = naga::front::wgsl::parse_str(wgsl)
        .unwrap_or_else(|e| panic!("{label}: {}\n{wgsl}", e.emit_to_string(wgsl)));
    let caps =
        naga::valid::Capabilities::FLOAT64 | naga::valid::Capabilities::SHADER_FLOAT32_ATOMIC;
    naga::valid::Validator::new(naga::valid::ValidationFlags::all(), caps)
        .validate(&module)
        .unwrap_or_else(|e| panic!("{label}: {}\n{wgsl}", e.emit_to_string(wgsl)));
}

/// The text of the function `fn <name>(` of `wgsl`, through its closing
/// line `}` and the blank line after it.
fn helper_of<'a>(wgsl: &'a str, name: &str) -> Option<&'a str> {
    let start = wgsl.find(&format!("fn {name}("))?;
    let end = start + wgsl[start..].find("\n}\n")? + 3;
    let end = if wgsl[end..].starts_with('\n') {
        end + 1
    } else {
        end
    };
    Some(&wgsl[start..end])
}

const NAMED_HELPERS: [&str; 4] = [
    "nil_times_f32",
    "nil_times_f64",
    "nil_powi_f32",
    "nil_powi_f64",
];

/// The guarded product and integer power helpers as the first generic kernel of the fixtures
/// writes them, which the other snapshots name instead of repeating.
fn helpers() -> &'static BTreeMap<&'static str, String> {
    static HELPERS: OnceLock<BTreeMap<&'static str, String>> = OnceLock::new();
    HELPERS.get_or_init(|| {
        let case = cases("wgsl")
            .into_iter()
            .find(|c| c.text.contains("where T: Real"))
            .expect("a generic kernel among the fixtures");
        let shaders = shaders_of(&case);
        let mut out = BTreeMap::new();
        for name in NAMED_HELPERS {
            let text = shaders
                .iter()
                .find_map(|(_, wgsl)| helper_of(wgsl, name))
                .unwrap_or_else(|| panic!("{}: no `{name}`", case.name));
            out.insert(name, text.to_string());
        }
        out
    })
}

/// `wgsl` with the helpers every shader carries named instead of written.
fn elide_helpers(wgsl: &str) -> String {
    let mut out = wgsl.replacen(
        F64_MATH,
        "// F64_MATH (codegen/src/wgsl/f64_math.wgsl)\n\n",
        1,
    );
    for (name, text) in helpers() {
        if helper_of(&out, name) == Some(text.as_str()) {
            out = out.replacen(text.as_str(), &format!("// {name} (wgsl__helpers)\n\n"), 1);
        }
    }
    out
}

/// Every shader of every kernel of `case`, in function order.
fn shaders_of(case: &Case) -> Vec<(String, String)> {
    let c = compile(case);
    let mut out = Vec::new();
    for &f in db::file_functions(&c.db, c.project, c.file) {
        let shaders = kernel_shaders(&c.db, f)
            .unwrap_or_else(|e| panic!("{}: kernel shaders: {e:?}", case.name));
        out.extend(shaders);
    }
    out
}

/// The shader constants of the case's Rust module, name and text; fails
/// on a constant that is none of `shaders`.
fn embedded(case: &Case, shaders: &[(String, String)]) -> Vec<(String, String)> {
    let c = compile(case);
    let mut out = Vec::new();
    for (line, options) in &case.options {
        let code = rust_module_text(&c.db, c.project, c.file, options)
            .unwrap_or_else(|e| panic!("{} ({line}): the Rust module: {e:?}", case.name));
        for l in code.lines() {
            let Some((name, value)) = l
                .strip_prefix("pub const ")
                .and_then(|rest| rest.split_once(": &str = "))
                .filter(|(name, _)| name.contains("_WGSL_"))
            else {
                continue;
            };
            let value = value.strip_suffix(';').unwrap();
            let wgsl = shaders
                .iter()
                .find(|(_, wgsl)| format!("{wgsl:?}") == value)
                .map(|(_, wgsl)| wgsl.clone())
                .unwrap_or_else(|| panic!("{}: `{name}` is no shader of the kernel", case.name));
            out.push((name.to_string(), wgsl));
        }
    }
    out
}

fn check(case: &Case) {
    let c = compile(case);
    let diagnostics = db::file_diagnostics(&c.db, c.project, c.file);
    assert!(diagnostics.is_empty(), "{}: {diagnostics:#?}", case.name);
    let shaders = shaders_of(case);
    assert!(!shaders.is_empty(), "{}: no kernel", case.name);
    for (label, wgsl) in &shaders {
        validate(&format!("{} {label}", case.name), wgsl);
    }
    // The launchers embed the shaders: each constant is one of them, and
    // each shader is in some constant.
    let embedded = embedded(case, &shaders);
    for (label, wgsl) in &shaders {
        assert!(
            embedded.iter().any(|(_, w)| w == wgsl),
            "{}: `{label}` is in no constant of the Rust module ({:?})",
            case.name,
            embedded.iter().map(|(n, _)| n).collect::<Vec<_>>()
        );
    }
    let mut out = format!("----- SOURCE {}\n{}", case.path(), case.text);
    for (label, wgsl) in &shaders {
        out.push_str(&format!("----- WGSL {label}\n{}", elide_helpers(wgsl)));
    }
    assert_case_snapshot("wgsl", case, &out);
}

#[test]
fn generated_wgsl() {
    let cases = cases("wgsl");
    run_all(&cases, check);
    let mut orphans = orphan_snapshots("wgsl", &cases);
    orphans.retain(|n| n != "wgsl__helpers.snap");
    assert!(
        orphans.is_empty(),
        "snapshots of no case (remove them): {orphans:?}"
    );
}

/// The helpers the other snapshots name, written out once.
#[test]
fn helpers_every_shader_carries() {
    let text: String = helpers()
        .iter()
        .map(|(name, text)| format!("----- {name}\n{text}"))
        .collect();
    for (name, body) in helpers() {
        // Each on its own is valid WGSL.
        validate(name, body);
    }
    insta::assert_snapshot!("helpers", text);
}

/// Long chains in a kernel: a 1,000-term sum and a 200-factor product,
/// whose shaders naga parses and validates (it refuses an expression
/// nested 200 deep, so the backend writes a chain of one precedence
/// flat), the product's reverse pass linear in its length (its prefix and
/// suffix products computed once, into one function array).
#[test]
fn long_chains_in_a_kernel() {
    let terms = |n: usize, sym: &str| {
        (0..n)
            .map(|k| format!("x[i + {k}]"))
            .collect::<Vec<_>>()
            .join(sym)
    };
    let kernel = |name: &str, value: String| {
        format!(
            "@kernel function {name}(y::[f32], x::[f32])\n    i ← global_index()\n    y[i] += {value}\n    i → global_index()\nend\n\n"
        )
    };
    let text = kernel("ksum", terms(1_000, " + ")) + &kernel("kprod", terms(200, " * "));
    let db = nilang_analysis::RootDatabase::default();
    let file = nilang_analysis::SourceFile::new(&db, "long.nil".to_string(), text);
    let project = nilang_analysis::Project::new(&db, vec![file]);
    let diagnostics = db::file_diagnostics(&db, project, file);
    assert!(diagnostics.is_empty(), "{diagnostics:#?}");
    let mut adjoint_len = None;
    for &f in db::file_functions(&db, project, file) {
        let shaders = kernel_shaders(&db, f).unwrap_or_else(|e| panic!("{e:?}"));
        assert!(!shaders.is_empty());
        for (label, wgsl) in &shaders {
            validate(label, wgsl);
            if label.starts_with("kprod: Adjoint") {
                adjoint_len = Some(adjoint_len.unwrap_or(0).max(wgsl.len()));
            }
        }
    }
    // Written out, the 200 partials of the product would have 199 factors
    // each (about 200 * 199 * 20 bytes, 800 KB); bound, about 60 bytes per
    // factor and slot.
    let len = adjoint_len.expect("a reverse pass of kprod");
    assert!(len < 100_000, "the product's reverse pass is {len} bytes");
}

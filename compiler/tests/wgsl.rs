//! The GPU backend's WGSL, parsed and validated by naga (the shader
//! compiler wgpu uses), with no device: every shader of every kernel of the
//! `gpu` crate and of the accepted kernels of the UI suite.

use nilang_compiler::{Project, RootDatabase, SourceFile, db};

fn validate(label: &str, wgsl: &str) {
    let module = naga::front::wgsl::parse_str(wgsl)
        .unwrap_or_else(|e| panic!("{label}: {}\n{wgsl}", e.emit_to_string(wgsl)));
    let caps =
        naga::valid::Capabilities::FLOAT64 | naga::valid::Capabilities::SHADER_FLOAT32_ATOMIC;
    naga::valid::Validator::new(naga::valid::ValidationFlags::all(), caps)
        .validate(&module)
        .unwrap_or_else(|e| panic!("{label}: {}\n{wgsl}", e.emit_to_string(wgsl)));
}

fn kernels_of(files: &[(&str, String)]) -> Vec<(String, String)> {
    let db = RootDatabase::default();
    let sources: Vec<SourceFile> = files
        .iter()
        .map(|(p, t)| SourceFile::new(&db, (*p).to_string(), t.clone()))
        .collect();
    let project = Project::new(&db, sources.clone());
    let mut out = Vec::new();
    for file in sources {
        for &f in db::file_functions(&db, project, file) {
            match db::kernel_shaders(&db, f) {
                Ok(s) => out.extend(s),
                Err(e) => panic!("{}: {e:?}", f.name(&db)),
            }
        }
    }
    out
}

fn read(path: &str) -> String {
    std::fs::read_to_string(format!("{}/../{path}", env!("CARGO_MANIFEST_DIR"))).unwrap()
}

#[test]
fn every_shader_of_the_gpu_crate_validates() {
    let files: Vec<(&str, String)> = [
        "gpu/gates.nil",
        "gpu/bessel.nil",
        "gpu/gather.nil",
        "gpu/ba.nil",
        "gpu/math.nil",
    ]
    .into_iter()
    .map(|p| (p, read(p)))
    .collect();
    let shaders = kernels_of(&files);
    // 5 kernels: call and uncall in f32 and f64, and the reverse passes.
    assert!(shaders.len() >= 5 * 4 + 5, "{}", shaders.len());
    for (label, wgsl) in &shaders {
        validate(label, wgsl);
    }
    // The reverse pass of the gather kernel adds to `x_bar` through a log
    // of its own per invocation (summed by the runtime in a fixed order),
    // or, where asked for, atomically: by compare-and-swap, or natively
    // where the device can.
    let gather: Vec<&(String, String)> = shaders
        .iter()
        .filter(|(l, _)| l.starts_with("gather: Adjoint f32"))
        .collect();
    assert_eq!(gather.len(), 3);
    assert!(
        gather
            .iter()
            .any(|(l, w)| l.ends_with("Deterministic") && w.contains("lk_x[s] = u32(i) + 1u;"))
    );
    assert!(
        gather
            .iter()
            .any(|(_, w)| w.contains("atomicCompareExchangeWeak(&b_x[i]"))
    );
    assert!(
        gather
            .iter()
            .any(|(_, w)| w.contains("atomicAdd(&b_x[i], v)"))
    );
    // In f64 only the log: WGSL has no 64-bit atomics.
    let gather64: Vec<&String> = shaders
        .iter()
        .filter(|(l, _)| l.starts_with("gather: Adjoint f64"))
        .map(|(l, _)| l)
        .collect();
    assert_eq!(gather64, ["gather: Adjoint f64 Deterministic"]);
    assert!(
        shaders
            .iter()
            .any(|(l, _)| l.starts_with("besselj_batch: Adjoint f64"))
    );
}

/// What a helper file calls that the backend writes next to it in every
/// shader that includes it: the minimal module each file is validated in.
fn helper_prelude(file: &str) -> &'static str {
    match file {
        // `nil_powi_f64` is written per float type, before `F64_MATH`.
        "f64_math.wgsl" => "fn nil_powi_f64(x: f64, n: i32) -> f64 {\n    return x;\n}\n\n",
        _ => "",
    }
}

/// The WGSL helper library (`codegen/src/wgsl/*.wgsl`, included into the
/// backend with `include_str!`), each file on its own.
#[test]
fn every_helper_wgsl_file_validates() {
    let dir = format!("{}/../codegen/src/wgsl", env!("CARGO_MANIFEST_DIR"));
    let mut files: Vec<String> = std::fs::read_dir(&dir)
        .unwrap()
        .map(|e| e.unwrap().file_name().into_string().unwrap())
        .filter(|name| name.ends_with(".wgsl"))
        .collect();
    files.sort();
    assert!(files.iter().any(|f| f == "f64_math.wgsl"), "{files:?}");
    for file in &files {
        let text = read(&format!("codegen/src/wgsl/{file}"));
        validate(file, &format!("{}{text}", helper_prelude(file)));
    }
    assert_eq!(
        nilang_compiler::codegen::wgsl::F64_MATH,
        read("codegen/src/wgsl/f64_math.wgsl")
    );
}

/// The runtime's reduction shaders (`runtime/src/gpu/reduce.wgsl`, one
/// section a shader), in f32 and f64.
#[test]
fn the_runtime_reduction_shaders_validate() {
    let text = read("runtime/src/gpu/reduce.wgsl");
    let sections: Vec<&str> = text.split("//- ").skip(1).collect();
    assert_eq!(
        sections.len(),
        7,
        "tree, pairs, bitonic, heads, segments, dense, rows"
    );
    for section in sections {
        let (name, body) = section.split_once('\n').unwrap();
        for float in ["f32", "f64"] {
            validate(
                &format!("reduce.wgsl {name} {float}"),
                &format!("alias F = {float};\n{body}"),
            );
        }
    }
}

#[test]
fn accepted_kernels_of_the_ui_suite_validate() {
    let text = read("compiler/tests/ui/kernel.nil");
    // Keep only the kernels without diagnostics.
    let keep: String = text
        .split("\n\n")
        .filter(|chunk| {
            chunk.contains("own_element") && chunk.contains("@kernel")
                || chunk.contains("function swap_gate")
        })
        .collect::<Vec<_>>()
        .join("\n\n");
    let shaders = kernels_of(&[("kernel.nil", keep)]);
    assert!(shaders.len() >= 8, "{}", shaders.len());
    for (label, wgsl) in &shaders {
        validate(label, wgsl);
    }
}

/// Functions a kernel calls, named like the shaders' own helpers
/// (`nil_powi_f32`, `nil_sin_f64` would be theirs without the `u_` prefix)
/// or a WGSL built-in, and a kernel parameter named `n`.
#[test]
fn functions_named_like_helpers_or_builtins_validate() {
    let src = "function powi_f32(y::T, x::T) where T: Real
    y += x
end

function sin_f64(y::T, x::T) where T: Real
    y += sin(x)
end

function select(y::T, x::T) where T: Real
    y += x * x
end

@kernel function calls_them(y::[T], x::[T], n::T) where T: Real
    i ← global_index()
    powi_f32(y[i], x[i])
    sin_f64(y[i], x[i])
    select(y[i], n)
    i → global_index()
end
";
    let shaders = kernels_of(&[("names.nil", src.to_string())]);
    assert!(shaders.len() >= 4, "{}", shaders.len());
    for (label, wgsl) in &shaders {
        validate(label, wgsl);
    }
}

#[test]
fn constructs_the_gpu_backend_lacks_are_e0701() {
    let text = "@kernel function k(y::[T], x::[T]) where T: Real\n    i ← global_index()\n    y .+= x\n    i → global_index()\nend\n";
    let db = RootDatabase::default();
    let file = SourceFile::new(&db, "k.nil".into(), text.into());
    let project = Project::new(&db, vec![file]);
    let f = db::file_functions(&db, project, file)[0];
    let errors = db::kernel_shaders(&db, f).unwrap_err();
    assert!(errors.iter().all(|d| d.code == "E0701"), "{errors:?}");
    assert!(errors[0].message.contains("broadcast"), "{errors:?}");
}

#[test]
fn kernels_reject_stacks_and_typecasts_cleanly() {
    let stacked = "@kernel function k(y::[f64], s::Stack<f64>)\n    i ← global_index()\n    PUSH!(s, y[i])\n    i → global_index()\nend\n";
    let cast = "@kernel function c(y::[f64])\n    i ← global_index()\n    z ← 0.0\n    (f64 => i64)(z)\n    (i64 => f64)(z)\n    i → global_index()\nend\n";
    for (text, code, what) in [(stacked, "E0801", "stack"), (cast, "E0701", "typecast")] {
        let db = RootDatabase::default();
        let file = SourceFile::new(&db, "k.nil".into(), text.into());
        let project = Project::new(&db, vec![file]);
        let diagnostics = db::file_diagnostics(&db, project, file);
        let f = db::file_functions(&db, project, file)[0];
        let errors = match db::kernel_shaders(&db, f) {
            Ok(_) => diagnostics.to_vec(),
            Err(e) => e.into_iter().chain(diagnostics.iter().cloned()).collect(),
        };
        assert!(
            errors
                .iter()
                .any(|d| d.code == code && d.message.contains(what)),
            "{errors:?}"
        );
    }
}

#[test]
fn number_systems_in_kernels_are_e0701() {
    for ty in ["Fixed43", "ULogarithmic<f32>", "Tropical<f32>"] {
        let text = format!(
            "@kernel function k(y::[{ty}], x::[{ty}])\n    i ← global_index()\n    y[i] *= x[i]\n    i → global_index()\nend\n"
        );
        let db = RootDatabase::default();
        let file = SourceFile::new(&db, "k.nil".into(), text);
        let project = Project::new(&db, vec![file]);
        let f = db::file_functions(&db, project, file)[0];
        let errors = db::kernel_shaders(&db, f).unwrap_err();
        assert!(
            !errors.is_empty() && errors.iter().all(|d| d.code == "E0701"),
            "{ty}: {errors:?}"
        );
    }
}

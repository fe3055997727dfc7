//! The Rust launchers of a kernel's shaders (through `nilang::gpu`).

use super::*;

/// The Rust launchers of a kernel and the WGSL they run, as constants.
pub fn launchers(input: &crate::Input<'_>) -> (String, Vec<Diagnostic>) {
    let f = input.function;
    let name = plain(&f.name.name);
    let generic = !f.generics.is_empty();
    let needs_atomics = needs_atomics(input);
    let shaders = match all_shaders(input) {
        Ok(s) => s,
        Err(d) => return (String::new(), d),
    };
    let mut out = String::new();
    let mut passes = vec![
        (Pass::Forward, name.clone()),
        (Pass::Inverse, format!("uncall_{name}")),
    ];
    if differentiable(&kernel_params(input, "f32")) {
        passes.push((Pass::Adjoint, format!("{name}_adjoint")));
    }
    for (pass, fn_base) in &passes {
        let const_base = format!("{}_WGSL", fn_base.to_uppercase());
        let mut variants = Vec::new();
        for (_, fl, at, wgsl) in shaders.iter().filter(|v| v.0 == *pass) {
            let suffix = match at {
                Atomics::Native => format!("{}_NATIVE_ATOMICS", fl.to_uppercase()),
                Atomics::Cas => fl.to_uppercase(),
            };
            let cname = format!("{const_base}_{suffix}");
            let _ = writeln!(out, "/// WGSL of [`{fn_base}_gpu`] ({fl}).");
            let _ = writeln!(out, "pub const {cname}: &str = {wgsl:?};");
            variants.push((*fl, *at, cname));
        }
        // The launcher.
        let params = kernel_params(input, "f32");
        let mut sig = vec!["gpu: &nilang::gpu::Gpu".to_string(), "n: usize".to_string()];
        let mut scalars = Vec::new();
        let mut arrays = Vec::new();
        let ad = *pass == Pass::Adjoint;
        for p in &params {
            let is_float = matches!(p.kind, K::Float(_) | K::Array("f32"));
            match p.kind {
                K::Array(_) => {
                    let m = if p.mutated { "&mut " } else { "&" };
                    sig.push(format!("{}: {m}[{}]", p.name, p.rust));
                    arrays.push((p.name.clone(), p.mutated));
                    if ad && is_float {
                        sig.push(format!("{}_bar: &mut [{}]", p.name, p.rust));
                        arrays.push((format!("{}_bar", p.name), true));
                    }
                }
                _ => {
                    sig.push(format!("{}: {}", p.name, p.rust));
                    scalars.push(p.name.clone());
                }
            }
        }
        let mut scalar_bars = Vec::new();
        if ad {
            for p in params
                .iter()
                .filter(|p| p.positional && matches!(p.kind, K::Float(_)))
            {
                sig.push(format!("{}_bar: &mut {}", p.name, p.rust));
                scalar_bars.push(format!("{}_bar", p.name));
            }
        }
        let generics = if generic {
            let g: Vec<String> = f
                .generics
                .iter()
                .map(|g| format!("{}: nilang::gpu::GpuFloat", g.name.name))
                .collect();
            format!("<{}>", g.join(", "))
        } else {
            String::new()
        };
        let what = match pass {
            Pass::Forward => {
                format!("Runs [`{name}`] on the GPU for every index `1..=n` (`global_index()`).")
            }
            Pass::Inverse => {
                format!("Undoes [`{name}_gpu`]: runs the inverse kernel for every index `1..=n`.")
            }
            _ => format!(
                "The adjoint kernel of [`{name}`]: for every index `1..=n`, the reverse pass (as [`{name}_adjoint`] does on the CPU): takes the outputs and their adjoints, leaves the inputs and adds the gradient to each `_bar`."
            ),
        };
        let _ = writeln!(out, "/// {what}");
        let _ = writeln!(
            out,
            "pub fn {fn_base}_gpu{generics}({}) -> Result<(), nilang::gpu::GpuError> {{",
            sig.join(", ")
        );
        let concrete_f64 = params
            .iter()
            .any(|p| matches!(p.kind, K::Float("f64") | K::Array("f64")));
        let kernel = |fl: &str, at: Atomics, cname: &str| {
            format!(
                "nilang::gpu::Kernel {{ name: {:?}, wgsl: {cname}, f64: {}, float_atomics: {}, workgroup_size: {WORKGROUP_SIZE} }}",
                format!("{fn_base}_gpu"),
                fl == "f64" || concrete_f64,
                at == Atomics::Native && ad && needs_atomics
            )
        };
        let pick_f32 = |variants: &[(&str, Atomics, String)]| -> String {
            let cas = variants
                .iter()
                .find(|v| v.0 == "f32" && v.1 == Atomics::Cas);
            let native = variants
                .iter()
                .find(|v| v.0 == "f32" && v.1 == Atomics::Native);
            match (cas, native) {
                (Some(c), Some(nv)) => format!(
                    "if gpu.has_float_atomics() {{ {} }} else {{ {} }}",
                    kernel("f32", Atomics::Native, &nv.2),
                    kernel("f32", Atomics::Cas, &c.2)
                ),
                (Some(c), None) => kernel("f32", Atomics::Cas, &c.2),
                _ => "unreachable!()".into(),
            }
        };
        let t = f
            .generics
            .first()
            .map(|g| g.name.name.clone())
            .unwrap_or_default();
        if generic {
            let f64_variant = variants.iter().find(|v| v.0 == "f64");
            let f64_code = match f64_variant {
                Some(v) => kernel("f64", Atomics::Cas, &v.2),
                None => format!(
                    "return Err(nilang::gpu::GpuError::Unsupported {{ kernel: {:?}, why: \"the reverse pass adds to adjoints from several invocations (a shared read or a scalar parameter), and WGSL has atomics of 32-bit values only: run it in f32\".into() }})",
                    format!("{fn_base}_gpu")
                ),
            };
            let _ = writeln!(
                out,
                "    let kernel = if <{t} as nilang::gpu::GpuFloat>::F64 {{ {f64_code} }} else {{ {} }};",
                pick_f32(&variants)
            );
        } else {
            let _ = writeln!(out, "    let kernel = {};", pick_f32(&variants));
        }
        out.push_str("    let mut args = nilang::gpu::Args::new();\n");
        for s in &scalars {
            let _ = writeln!(out, "    args.scalar({s})?;");
        }
        for (a, m) in &arrays {
            let _ = writeln!(out, "    args.array(&*{a}, {m})?;");
        }
        for b in &scalar_bars {
            let _ = writeln!(out, "    args.array(std::slice::from_ref(&*{b}), true)?;");
        }
        out.push_str("    gpu.launch(&kernel, n, &mut args)?;\n");
        for (k, (a, m)) in arrays.iter().enumerate() {
            if *m {
                let _ = writeln!(out, "    args.read({k}, {a});");
            }
        }
        for (k, b) in scalar_bars.iter().enumerate() {
            let _ = writeln!(
                out,
                "    args.read({}, std::slice::from_mut({b}));",
                arrays.len() + k
            );
        }
        out.push_str("    Ok(())\n}\n\n");
    }
    (out, Vec::new())
}

//! The Rust launchers of a kernel's shaders (through `nilang::gpu`): for
//! each pass, `<name>_device`, which takes device arrays and queues the
//! kernel, and `<name>_gpu`, which takes slices, uploads them, runs the
//! device launcher and reads back what changed.

use super::*;

/// One array argument of a launcher, in binding order.
struct ArrayArg {
    name: String,
    rust: String,
    mutated: bool,
    /// The adjoint of this array parameter (by position), if it is one.
    bar_of: Option<usize>,
}

/// The Rust launchers of a kernel and the WGSL they run, as constants.
pub fn launchers(input: &crate::Input<'_>) -> (String, Vec<Diagnostic>) {
    let f = input.function;
    let name = plain(&f.name.name);
    let generic = !f.generics.is_empty();
    let shaders = match all_shaders(input) {
        Ok(s) => s,
        Err(d) => return (String::new(), d),
    };
    let params = kernel_params(input, "f32");
    let concrete = concrete_f64(&params);
    let mut out = String::new();
    let mut passes = vec![Pass::Forward, Pass::Inverse];
    if differentiable(&params) {
        passes.push(Pass::Adjoint);
    }
    let t = f
        .generics
        .first()
        .map(|g| g.name.name.clone())
        .unwrap_or_default();
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
    // The CPU function of the reverse pass, and the device launcher of the
    // forward pass, which the others' docs name.
    let cpu_adjoint = Pass::Adjoint.rust_name(&f.name.name, Launcher::Cpu);
    let forward_device = Pass::Forward.rust_name(&f.name.name, Launcher::Device);
    for pass in &passes {
        let fn_base = &pass.rust_name(&f.name.name, Launcher::Cpu);
        let device_launcher = pass.rust_name(&f.name.name, Launcher::Device);
        let slice_launcher = pass.rust_name(&f.name.name, Launcher::Gpu);
        let ad = *pass == Pass::Adjoint;
        // The arguments, in the order of the shader's bindings.
        let mut scalars = Vec::new();
        let mut arrays: Vec<ArrayArg> = Vec::new();
        let mut scalar_bars: Vec<(String, String)> = Vec::new();
        let mut position = 0;
        for p in &params {
            match p.kind {
                K::Array(_) => {
                    arrays.push(ArrayArg {
                        name: p.name.clone(),
                        rust: p.rust.clone(),
                        mutated: p.mutated,
                        bar_of: None,
                    });
                    if ad && p.kind.is_float() {
                        arrays.push(ArrayArg {
                            name: names::bar_name(&p.name),
                            rust: p.rust.clone(),
                            mutated: true,
                            bar_of: Some(position),
                        });
                    }
                }
                _ => scalars.push((p.name.clone(), p.rust.clone())),
            }
            if p.positional {
                position += 1;
            }
        }
        if ad {
            for p in params
                .iter()
                .filter(|p| p.positional && matches!(p.kind, K::Float(_)))
            {
                scalar_bars.push((names::bar_name(&p.name), p.rust.clone()));
            }
        }

        // The WGSL constants, and the `Kernel` of each.
        let const_base = format!("{}_WGSL", fn_base.to_uppercase());
        let mut variants: Vec<(&str, Atomics, String)> = Vec::new();
        for s in shaders.iter().filter(|s| s.pass == *pass) {
            let suffix = match s.atomics {
                Atomics::Deterministic => String::new(),
                Atomics::Cas => "_CAS_ATOMICS".into(),
                Atomics::Native => "_NATIVE_ATOMICS".into(),
            };
            let cname = format!("{const_base}_{}{suffix}", s.float.to_uppercase());
            let _ = writeln!(
                out,
                "/// WGSL of [`{device_launcher}`] ({}, {:?} sums of shared adjoints).",
                s.float, s.atomics
            );
            let _ = writeln!(out, "pub const {cname}: &str = {:?};", s.wgsl);
            let mut reduce = Vec::new();
            if s.atomics == Atomics::Deterministic && ad {
                for (k, a) in arrays.iter().enumerate() {
                    if let Some(i) = a.bar_of
                        && input.facts.shared_reads.contains(&i)
                    {
                        let per = s.log_sites.get(&i).copied().unwrap_or(0);
                        reduce.push(format!(
                            "nilang::gpu::Reduce::Log {{ arg: {k}, per_invocation: {per} }}"
                        ));
                    }
                }
                for k in 0..scalar_bars.len() {
                    reduce.push(format!(
                        "nilang::gpu::Reduce::Slots {{ arg: {} }}",
                        arrays.len() + k
                    ));
                }
            }
            let kernel = format!(
                "nilang::gpu::Kernel {{ name: {fn_base:?}, wgsl: {cname}, f64: {}, float_atomics: {}, workgroup_size: {WORKGROUP_SIZE}, reduce: &[{}] }}",
                s.float == "f64" || concrete,
                s.atomics == Atomics::Native,
                reduce.join(", ")
            );
            variants.push((s.float, s.atomics, kernel));
        }
        let find = |fl: &str, at: Atomics| {
            variants
                .iter()
                .find(|v| v.0 == fl && v.1 == at)
                .map(|v| v.2.clone())
        };
        let unsupported = format!(
            "return Err(nilang::gpu::GpuError::Unsupported {{ kernel: {fn_base:?}, why: \"the reverse pass adds to the adjoint of an array read at computed indices inside a loop, which only atomic adds can sum, and WGSL has atomics of 32-bit values only: run it in f32\".into() }})"
        );
        // The launchers' own names: `gpu` and `n` where no parameter of the
        // kernel takes them, else `__gpu` and `__n` (names `.nil` code may not
        // use, E0110); their locals always start with `__`.
        let taken = |w: &str| {
            params.iter().any(|p| p.name == w)
                || arrays.iter().any(|a| a.name == w)
                || scalar_bars.iter().any(|(b, _)| b == w)
        };
        let gpu = if taken("gpu") { "__gpu" } else { "gpu" };
        let n = if taken("n") { "__n" } else { "n" };
        // A generic kernel's f32 shaders, or those of a kernel's own float.
        let single = if generic { "f32" } else { own_float(input) };
        let atomic = match (find(single, Atomics::Native), find(single, Atomics::Cas)) {
            (Some(nv), Some(c)) => Some(format!(
                "if {gpu}.has_float_atomics() {{ {nv} }} else {{ {c} }}"
            )),
            _ => None,
        };
        let f32_choice = match (find(single, Atomics::Deterministic), atomic) {
            (Some(d), Some(a)) => format!(
                "if {gpu}.reduction() == nilang::gpu::Reduction::Atomic {{ {a} }} else {{ {d} }}"
            ),
            (Some(d), None) => d,
            (None, Some(a)) => a,
            (None, None) => unsupported.clone(),
        };
        let choice = if generic {
            let f64_choice = find("f64", Atomics::Deterministic).unwrap_or(unsupported);
            format!(
                "if <{t} as nilang::gpu::GpuFloat>::F64 {{ {f64_choice} }} else {{ {f32_choice} }}"
            )
        } else {
            f32_choice
        };

        // The device launcher.
        let mut sig = vec![format!("{gpu}: &nilang::gpu::Gpu"), format!("{n}: usize")];
        let mut slice_sig = sig.clone();
        let mut array_iter = arrays.iter().peekable();
        for p in &params {
            if let K::Array(_) = p.kind {
                for _ in 0..(if ad && p.kind.is_float() { 2 } else { 1 }) {
                    let Some(a) = array_iter.next() else { break };
                    let m = if a.mutated { "&mut " } else { "&" };
                    sig.push(format!(
                        "{}: {m}nilang::gpu::DeviceSlice<{}>",
                        a.name, a.rust
                    ));
                    slice_sig.push(format!("{}: {m}[{}]", a.name, a.rust));
                }
            } else {
                sig.push(format!("{}: {}", p.name, p.rust));
                slice_sig.push(format!("{}: {}", p.name, p.rust));
            }
        }
        for (b, rust) in &scalar_bars {
            sig.push(format!("{b}: &mut nilang::gpu::DeviceSlice<{rust}>"));
            slice_sig.push(format!("{b}: &mut {rust}"));
        }
        let what = match pass {
            Pass::Forward => {
                format!("Runs [`{name}`] on the GPU for every index `1..=n` (`global_index()`)")
            }
            Pass::Inverse => {
                format!(
                    "Undoes [`{forward_device}`]: runs the inverse kernel for every index `1..=n`"
                )
            }
            _ => format!(
                "The adjoint kernel of [`{name}`]: for every index `1..=n`, the reverse pass (as [`{cpu_adjoint}`] does on the CPU): takes the outputs and their adjoints, leaves the inputs and adds the gradient to each `_bar`"
            ),
        };
        let _ = writeln!(
            out,
            "/// {what}, on arrays that live on the device. The kernel is queued: the call does not wait for it (reading an array back does)."
        );
        let _ = writeln!(
            out,
            "#[allow(clippy::too_many_arguments)]\npub fn {device_launcher}{generics}({}) -> Result<(), nilang::gpu::GpuError> {{",
            sig.join(", ")
        );
        for a in &arrays {
            if let Some(i) = a.bar_of {
                let primal = &params[i].name;
                let _ = writeln!(
                    out,
                    "    nilang::gpu::expect_len({fn_base:?}, {:?}, {}.len(), {primal}.len(), \"an adjoint is as long as its array\")?;",
                    a.name, a.name
                );
            }
        }
        for (b, _) in &scalar_bars {
            let _ = writeln!(
                out,
                "    nilang::gpu::expect_len({fn_base:?}, {b:?}, {b}.len(), 1, \"the adjoint of a scalar is one element\")?;"
            );
        }
        let _ = writeln!(out, "    let __kernel = {choice};");
        out.push_str("    let mut __args = nilang::gpu::Launch::new();\n");
        for (s, _) in &scalars {
            let _ = writeln!(out, "    __args.scalar({s})?;");
        }
        for a in &arrays {
            if a.mutated {
                let _ = writeln!(out, "    __args.array_mut({:?}, &mut *{});", a.name, a.name);
            } else {
                let _ = writeln!(out, "    __args.array({:?}, {});", a.name, a.name);
            }
        }
        for (b, _) in &scalar_bars {
            let _ = writeln!(out, "    __args.array_mut({b:?}, &mut *{b});");
        }
        let _ = writeln!(out, "    {gpu}.run(&__kernel, {n}, __args)\n}}\n");

        // The slice launcher.
        let _ = writeln!(
            out,
            "/// {what}: uploads the arrays, runs [`{device_launcher}`] and reads back what the kernel changed (one wait)."
        );
        let _ = writeln!(
            out,
            "#[allow(clippy::too_many_arguments)]\npub fn {slice_launcher}{generics}({}) -> Result<(), nilang::gpu::GpuError> {{",
            slice_sig.join(", ")
        );
        for a in &arrays {
            let m = if a.mutated { "mut " } else { "" };
            let _ = writeln!(
                out,
                "    let {m}__d_{0} = nilang::gpu::DeviceArray::from_slice({gpu}, {0})?;",
                a.name
            );
        }
        for (b, _) in &scalar_bars {
            let _ = writeln!(
                out,
                "    let mut __d_{b} = nilang::gpu::DeviceArray::from_slice({gpu}, std::slice::from_ref(&*{b}))?;"
            );
        }
        let mut call = vec![gpu.to_string(), n.to_string()];
        let mut array_iter = arrays.iter();
        for p in &params {
            if let K::Array(_) = p.kind {
                for _ in 0..(if ad && p.kind.is_float() { 2 } else { 1 }) {
                    if let Some(a) = array_iter.next() {
                        let m = if a.mutated { "&mut " } else { "&" };
                        call.push(format!("{m}__d_{}", a.name));
                    }
                }
            } else {
                call.push(p.name.clone());
            }
        }
        for (b, _) in &scalar_bars {
            call.push(format!("&mut __d_{b}"));
        }
        let _ = writeln!(out, "    {device_launcher}({})?;", call.join(", "));
        out.push_str("    let mut __back = nilang::gpu::Readback::new();\n");
        for a in arrays.iter().filter(|a| a.mutated) {
            let _ = writeln!(out, "    __back.add(&__d_{0}, {0});", a.name);
        }
        for (b, _) in &scalar_bars {
            let _ = writeln!(out, "    __back.add(&__d_{b}, std::slice::from_mut({b}));");
        }
        out.push_str("    __back.finish()\n}\n\n");
    }
    (out, Vec::new())
}

//! A kernel's compute shaders: bindings, the entry point, the WGSL
//! functions of its callees, and which variants are generated.

use super::*;

pub(super) fn kernel_params(input: &crate::Input<'_>, float: &'static str) -> Vec<KParam> {
    let f = input.function;
    let mut out = Vec::new();
    let rust_of = |ty: &Ty| -> String {
        match ty.element() {
            Ty::Scalar(s) => s.to_string(),
            Ty::Generic(g) => g.clone(),
            _ => "()".into(),
        }
    };
    for (i, p) in f.params.iter().enumerate() {
        let ty = input
            .resolution
            .def_at(p.name.span)
            .map(|id| input.types.defs[id].clone())
            .unwrap_or(Ty::Unknown);
        out.push(KParam {
            name: plain(&p.name.name),
            kind: kind_of_ty(&ty, float),
            rust: rust_of(&ty),
            mutated: input.mutated.get(i).copied().unwrap_or(false),
            positional: true,
        });
    }
    for kw in &f.kwparams {
        let ty = input
            .resolution
            .def_at(kw.name.span)
            .map(|id| input.types.defs[id].clone())
            .unwrap_or(Ty::Scalar(Scalar::F64));
        out.push(KParam {
            name: plain(&kw.name.name),
            kind: kind_of_ty(&ty, float),
            rust: rust_of(&ty),
            mutated: false,
            positional: false,
        });
    }
    out
}

/// The WGSL of one kernel pass (`Forward`, `Inverse` or `Adjoint`) for one
/// float type, or the reasons it cannot be generated.
pub fn kernel_shader(
    input: &crate::Input<'_>,
    float: &'static str,
    pass: Pass,
    atomics: Atomics,
) -> Result<ShaderVariant, Vec<Diagnostic>> {
    let f = input.function;
    let ad = pass.differentiating();
    let params = kernel_params(input, float);
    let mut w = W {
        resolution: input.resolution,
        types: input.types,
        mutated: input.mutated,
        ctx: input.ctx,
        float,
        out: String::new(),
        level: 1,
        tmp: 0,
        diagnostics: Vec::new(),
        ad,
        entry: true,
        atomic: input.facts.shared_reads.clone(),
        atomics,
        log_sites: Default::default(),
        needs: BTreeSet::new(),
        partial_slots: None,
    };
    for (p, ast) in params.iter().zip(&f.params) {
        if p.kind == K::Unknown {
            w.unsupported(ast.span, "this parameter type");
        }
    }
    let program = match pass {
        Pass::Forward | Pass::UncallAdjoint => explicit_deallocations(f),
        Pass::Inverse | Pass::Adjoint => invert_function(f),
    };
    w.block(&program.body.stmts);
    let body = std::mem::take(&mut w.out);

    let mut head = String::new();
    // Uniforms.
    head.push_str("struct Params {\n    n: u32,\n    first: u32,\n");
    for p in params.iter().filter(|p| !matches!(p.kind, K::Array(_))) {
        let t = if p.kind == K::Bool {
            "u32"
        } else {
            wgsl_ty(p.kind)
        };
        let _ = writeln!(head, "    v_{}: {t},", p.name);
    }
    head.push_str("}\n\n@group(0) @binding(0) var<uniform> params: Params;\n");
    let atomic_ty = match atomics {
        Atomics::Native => "atomic<f32>",
        _ => "atomic<u32>",
    };
    let det = atomics == Atomics::Deterministic;
    let mut binding = 1;
    let mut helpers = String::new();
    for (i, p) in params.iter().enumerate() {
        let K::Array(elem) = p.kind else { continue };
        let access = if p.mutated { "read_write" } else { "read" };
        let _ = writeln!(
            head,
            "@group(0) @binding({binding}) var<storage, {access}> v_{}: array<{elem}>;",
            p.name
        );
        binding += 1;
        if !(ad && elem != "i32") {
            continue;
        }
        let shared = input.facts.shared_reads.contains(&i);
        if shared && det {
            // A log of this invocation's additions: keys, then values.
            let sites = w.log_sites.get(&i).copied().unwrap_or(0);
            let _ = writeln!(
                head,
                "@group(0) @binding({binding}) var<storage, read_write> lk_{0}: array<u32>;\n\
                 @group(0) @binding({next}) var<storage, read_write> lv_{0}: array<{elem}>;\n\
                 var<private> nil_k_{0}: u32;",
                p.name,
                next = binding + 1
            );
            binding += 2;
            helpers.push_str(&log_add(&p.name, elem, sites));
        } else {
            let ty = if shared { atomic_ty } else { elem };
            let _ = writeln!(
                head,
                "@group(0) @binding({binding}) var<storage, read_write> b_{}: array<{ty}>;",
                p.name
            );
            binding += 1;
            if shared {
                helpers.push_str(&atomic_add(&format!("b_{}", p.name), atomics));
            }
        }
    }
    let scalar_bars: Vec<&KParam> = params
        .iter()
        .filter(|p| ad && p.positional && matches!(p.kind, K::Float(_)))
        .collect();
    for p in &scalar_bars {
        // One slot per invocation, or one atomic value.
        let ty = if det { float } else { atomic_ty };
        let _ = writeln!(
            head,
            "@group(0) @binding({binding}) var<storage, read_write> bsb_{}: array<{ty}>;",
            p.name
        );
        binding += 1;
        if !det {
            helpers.push_str(&atomic_add(&format!("bsb_{}", p.name), atomics));
        }
    }
    if det && !w.log_sites.is_empty() {
        head.push_str("var<private> nil_slot: u32;\n");
    }
    head.push('\n');
    head.push_str(&powi_helper("f32"));
    if float == "f64"
        || params
            .iter()
            .any(|p| matches!(p.kind, K::Float("f64") | K::Array("f64")))
    {
        head.push_str(&powi_helper("f64"));
        head.push_str(F64_MATH);
    }
    head.push_str(&helpers);

    // Callees, as often as new ones turn up.
    let mut done: BTreeSet<(String, Pass)> = BTreeSet::new();
    let mut functions = String::new();
    loop {
        let todo: Vec<(String, Pass)> = w.needs.difference(&done).cloned().collect();
        if todo.is_empty() {
            break;
        }
        for (name, p) in todo {
            done.insert((name.clone(), p));
            let Some(callee) = input.ctx.callee_body(&name) else {
                continue;
            };
            let (code, needs, diagnostics) =
                device_function(&callee, &name, p, float, input.ctx, atomics);
            // Errors inside a callee are reported at the call in the kernel.
            if let Some(d) = diagnostics.into_iter().next() {
                w.diagnostics.push(Diagnostic {
                    primary: crate::diagnostics::Label {
                        span: f.name.span,
                        message: format!("in `{name}`"),
                    },
                    // Its spans are the callee's, not the kernel's.
                    suggestion: None,
                    ..d
                });
            }
            functions.push_str(&code);
            w.needs.extend(needs);
        }
    }

    let mut main = String::new();
    let _ = writeln!(main, "@compute @workgroup_size({WORKGROUP_SIZE})");
    main.push_str("fn main(@builtin(global_invocation_id) nil_gid: vec3<u32>) {\n");
    main.push_str("    let nil_invocation = params.first + nil_gid.x;\n");
    main.push_str("    if (nil_invocation >= params.n) {\n        return;\n    }\n");
    main.push_str("    let nil_index = i32(nil_invocation) + 1;\n");
    if det && !w.log_sites.is_empty() {
        main.push_str("    nil_slot = nil_invocation;\n");
    }
    for p in params.iter().filter(|p| !matches!(p.kind, K::Array(_))) {
        if p.kind == K::Bool {
            let _ = writeln!(main, "    let v_{0} = params.v_{0} != 0u;", p.name);
        } else {
            let _ = writeln!(main, "    let v_{0} = params.v_{0};", p.name);
        }
    }
    for p in &scalar_bars {
        let _ = writeln!(main, "    var bs_{}: {float} = {float}(0);", p.name);
    }
    main.push_str(&body);
    for p in &scalar_bars {
        if det {
            let _ = writeln!(main, "    bsb_{0}[nil_invocation] = bs_{0};", p.name);
        } else {
            let _ = writeln!(main, "    nil_atomic_add_bsb_{0}(0, bs_{0});", p.name);
        }
    }
    main.push_str("}\n");
    if !w.diagnostics.is_empty() {
        return Err(w.diagnostics);
    }
    Ok(ShaderVariant {
        pass,
        float,
        atomics,
        wgsl: format!("{head}{functions}\n{main}"),
        log_sites: w.log_sites,
    })
}

/// The deterministic stand-in for an atomic add to `b_<name>[i]`: the
/// invocation's next log entry (one of `sites`, the additions written).
fn log_add(name: &str, elem: &str, sites: u32) -> String {
    format!(
        "fn nil_atomic_add_b_{name}(i: i32, v: {elem}) {{\n    \
         let s = nil_slot * {sites}u + nil_k_{name};\n    \
         lk_{name}[s] = u32(i) + 1u;\n    \
         lv_{name}[s] = v;\n    \
         nil_k_{name} = nil_k_{name} + 1u;\n}}\n\n"
    )
}

pub(super) fn atomic_add(buffer: &str, atomics: Atomics) -> String {
    match atomics {
        Atomics::Deterministic => String::new(),
        Atomics::Native => format!(
            "fn nil_atomic_add_{buffer}(i: i32, v: f32) {{\n    atomicAdd(&{buffer}[i], v);\n}}\n\n"
        ),
        Atomics::Cas => format!(
            "fn nil_atomic_add_{buffer}(i: i32, v: f32) {{\n    \
             var old = atomicLoad(&{buffer}[i]);\n    \
             loop {{\n        \
             let r = atomicCompareExchangeWeak(&{buffer}[i], old, bitcast<u32>(bitcast<f32>(old) + v));\n        \
             if (r.exchanged) {{\n            break;\n        }}\n        \
             old = r.old_value;\n    \
             }}\n}}\n\n"
        ),
    }
}

/// `nil_times_f`, a cotangent times a local derivative but zero where the
/// cotangent is (the Rust runtime's `nilang::adjoint::times`), and
/// `nil_powi_f`.
pub(super) fn powi_helper(f: &str) -> String {
    format!(
        "fn nil_times_{f}(m: {f}, q: {f}) -> {f} {{\n    \
         return select(m * q, m, m == {f}(0));\n}}\n\n\
         fn nil_powi_{f}(x: {f}, n: i32) -> {f} {{\n    \
         var r: {f} = {f}(1);\n    var b: {f} = x;\n    var k: i32 = abs(n);\n    \
         loop {{\n        if (k == 0) {{\n            break;\n        }}\n        \
         if ((k & 1) == 1) {{\n            r = r * b;\n        }}\n        \
         b = b * b;\n        k = k >> 1u;\n    }}\n    \
         if (n < 0) {{\n        return {f}(1) / r;\n    }}\n    return r;\n}}\n\n"
    )
}

/// A `.nil` function as a WGSL function for one pass; what it calls.
pub(super) fn device_function(
    callee: &CalleeBody,
    name: &str,
    pass: Pass,
    float: &'static str,
    ctx: &dyn CodegenContext,
    atomics: Atomics,
) -> (String, BTreeSet<(String, Pass)>, Vec<Diagnostic>) {
    let f = &callee.function;
    let mut w = W {
        resolution: &callee.resolution,
        types: &callee.types,
        mutated: &callee.mutated,
        ctx,
        float,
        out: String::new(),
        level: 1,
        tmp: 0,
        diagnostics: Vec::new(),
        ad: pass.differentiating(),
        entry: false,
        atomic: BTreeSet::new(),
        atomics,
        log_sites: Default::default(),
        needs: BTreeSet::new(),
        partial_slots: None,
    };
    let mut params = Vec::new();
    for (i, p) in f.params.iter().enumerate() {
        let k = callee
            .resolution
            .def_at(p.name.span)
            .map(|id| kind_of_ty(&callee.types.defs[id], float))
            .unwrap_or(K::Unknown);
        if matches!(k, K::Array(_) | K::Unknown) {
            w.unsupported(p.span, "this parameter type in a function a kernel calls");
            continue;
        }
        let n = plain(&p.name.name);
        let t = wgsl_ty(k);
        if callee.mutated.get(i).copied().unwrap_or(false) {
            params.push(format!("v_{n}: ptr<function, {t}>"));
        } else {
            params.push(format!("v_{n}: {t}"));
        }
        if w.ad && matches!(k, K::Float(_)) {
            params.push(format!("b_{n}: ptr<function, {t}>"));
        }
    }
    for kw in &f.kwparams {
        let k = callee
            .resolution
            .def_at(kw.name.span)
            .map(|id| kw_kind(kind_of_ty(&callee.types.defs[id], float), float))
            .unwrap_or(K::Float(float));
        params.push(format!("v_{}: {}", plain(&kw.name.name), wgsl_ty(k)));
    }
    let program = match pass {
        Pass::Forward | Pass::UncallAdjoint => explicit_deallocations(f),
        Pass::Inverse | Pass::Adjoint => invert_function(f),
    };
    w.block(&program.body.stmts);
    let code = format!(
        "fn {}({}) {{\n{}}}\n\n",
        fn_name(name, pass),
        params.join(", "),
        w.out
    );
    (code, w.needs, w.diagnostics)
}

pub(super) fn needs_atomics(input: &crate::Input<'_>) -> bool {
    let params = kernel_params(input, "f32");
    !input.facts.shared_reads.is_empty()
        || (differentiable(&params)
            && params
                .iter()
                .any(|p| p.positional && matches!(p.kind, K::Float(_))))
}

pub(super) fn differentiable(params: &[KParam]) -> bool {
    params.iter().any(|p| p.kind.is_float())
}

/// Whether the kernel has a concrete `f64` parameter (its shaders then
/// use `f64` whatever the float type they are generated for).
pub(super) fn concrete_f64(params: &[KParam]) -> bool {
    params
        .iter()
        .any(|p| matches!(p.kind, K::Float("f64") | K::Array("f64")))
}

/// The float type of a kernel that is not generic: `f64` where it has a
/// concrete `f64` parameter (its values, and so its adjoints, are `f64`),
/// else `f32`.
pub(super) fn own_float(input: &crate::Input<'_>) -> &'static str {
    if concrete_f64(&kernel_params(input, "f32")) {
        "f64"
    } else {
        "f32"
    }
}

/// How each pass, in each float type, may sum shared adjoints.
fn modes(input: &crate::Input<'_>, pass: Pass, float: &str) -> &'static [Atomics] {
    if pass != Pass::Adjoint || !needs_atomics(input) {
        return &[Atomics::Deterministic];
    }
    let det = input.facts.shared_in_loops.is_empty();
    let f64 = float == "f64" || concrete_f64(&kernel_params(input, "f32"));
    match (det, f64) {
        (true, true) => &[Atomics::Deterministic],
        (true, false) => &[Atomics::Deterministic, Atomics::Cas, Atomics::Native],
        // No 64-bit atomics in WGSL (E0804 for a concrete f64).
        (false, true) => &[],
        (false, false) => &[Atomics::Cas, Atomics::Native],
    }
}

/// All the shaders of a kernel (the launchers embed the same ones), or the
/// reasons they cannot be generated.
pub fn all_shaders(input: &crate::Input<'_>) -> Result<Vec<ShaderVariant>, Vec<Diagnostic>> {
    let generic = !input.function.generics.is_empty();
    let own = [own_float(input)];
    let floats: &[&'static str] = if generic { &["f32", "f64"] } else { &own };
    let mut passes = vec![Pass::Forward, Pass::Inverse];
    if differentiable(&kernel_params(input, "f32")) {
        passes.push(Pass::Adjoint);
    }
    let mut out = Vec::new();
    let mut errors = Vec::new();
    for pass in passes {
        for &fl in floats {
            for &at in modes(input, pass, fl) {
                match kernel_shader(input, fl, pass, at) {
                    Ok(w) => out.push(w),
                    Err(d) => errors.extend(d),
                }
            }
        }
    }
    if errors.is_empty() {
        Ok(out)
    } else {
        Err(errors)
    }
}

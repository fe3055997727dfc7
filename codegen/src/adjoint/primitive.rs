//! The reverse passes of `@primitive(d)` functions, from `d`'s derivatives.

use super::*;

/// A parameter of the function being generated, as its own body passes it
/// on to a call: its kind, whether the function changes it, and the Rust
/// argument (`&mut *x`, `x`, `A.view()`, ...).
pub(crate) struct ParamArg {
    pub(crate) kind: Kind,
    pub(crate) mutated: bool,
    pub(crate) value: String,
}

pub(crate) fn param_args(g: &Gen<'_>, f: &Function) -> Vec<ParamArg> {
    f.params
        .iter()
        .enumerate()
        .map(|(i, p)| {
            let kind = g
                .resolution
                .def_at(p.name.span)
                .map(|id| kind_of(&g.types.defs[id]))
                .unwrap_or(Kind::Unknown);
            let mutated = g.mutated.get(i).copied().unwrap_or(false);
            let n = rust_name(&p.name.name);
            let value = match (&kind, mutated) {
                (Kind::Matrix(_) | Kind::Csc(_), true) => format!("{n}.view_mut()"),
                (Kind::Matrix(_) | Kind::Csc(_), false) => format!("{n}.view()"),
                (_, true) => format!("&mut *{n}"),
                (_, false) => n,
            };
            ParamArg {
                kind,
                mutated,
                value,
            }
        })
        .collect()
}

/// The scalar type of `f`'s adjoints, as the analysis decides it
/// (`types::adjoint_scalar`).
pub(crate) fn adjoint_scalar(g: &Gen<'_>, f: &Function) -> String {
    let params = nilang_analysis::types::param_types(f, g.resolution, &g.types.defs);
    match nilang_analysis::types::adjoint_scalar(f, &params) {
        Ty::Generic(t) => t,
        Ty::Scalar(s) => s.to_string(),
        _ => "f64".into(),
    }
}

/// The two reverse passes of `@primitive(d) function f`, from `d`'s
/// derivatives. `f` must add to each changed parameter a function of the
/// parameters it only reads (`y += h(x)`), so that the adjoint of `y` passes
/// unchanged and each read `x` gets `ȳ ∂h/∂x`. `d` receives one zeroed
/// accumulator per (changed, read) pair of differentiable scalars, changed
/// parameters first, then `f`'s read parameters, and adds `∂h/∂x` to each.
pub(crate) fn primitive_bodies(
    g: &mut Gen<'_>,
    f: &Function,
    d: &Ident,
) -> Option<[Vec<String>; 2]> {
    let sig = g.ctx.callee(&d.name)?;
    let scalar = adjoint_scalar(g, f);
    let mut outputs = Vec::new();
    let mut inputs = Vec::new();
    let mut reads = Vec::new();
    let mut values = Vec::new();
    for (p, arg) in f.params.iter().zip(param_args(g, f)) {
        let ParamArg {
            kind,
            mutated,
            value,
        } = arg;
        // Only real scalars carry a derivative here: the analysis refuses
        // a primitive with another parameter that has an adjoint
        // (`primitive::check_primitive`, E0701).
        let differentiable = !p.constant && matches!(kind, Kind::Float(_) | Kind::Generic(_));
        values.push(value.clone());
        if mutated {
            if differentiable {
                outputs.push(bar_name(&p.name.name));
            }
        } else {
            reads.push(value);
            if differentiable {
                inputs.push(bar_name(&p.name.name));
            }
        }
    }
    for kw in &f.kwparams {
        values.push(rust_name(&kw.name.name));
    }
    let pairs: Vec<(String, String, String)> = outputs
        .iter()
        .flat_map(|o| inputs.iter().map(move |i| (o.clone(), i.clone())))
        .enumerate()
        .map(|(k, (o, i))| (format!("__d{k}"), o, i))
        .collect();
    // `d` takes these arguments: the analysis refuses it otherwise
    // (`primitive::check_primitive`, E0108).
    let own = inner_name(&rust_name(nilang_analysis::modules::bare_name(&d.name)));
    let path = match &sig.module {
        Some(m) => format!("{m}::{own}"),
        None => own,
    };
    let mut common = Vec::new();
    for (v, _, _) in &pairs {
        common.push(format!(
            "let mut {v}: {scalar} = nilang::zero::<{scalar}>();"
        ));
    }
    let args: Vec<String> = pairs
        .iter()
        .map(|(v, _, _)| format!("&mut {v}"))
        .chain(reads.iter().cloned())
        .collect();
    common.push(format!("{path}({})?;", args.join(", ")));
    let rules = |sign: &str| -> Vec<String> {
        pairs
            .iter()
            .map(|(v, o, i)| format!("nilang::Adjoint::add_scaled(&mut *{i}, &*{o}, {sign}{v});"))
            .collect()
    };
    // `f_adjoint` undoes `y += h(x)`: x̄ += ȳ h'; then runs `~f`.
    let mut backward = common.clone();
    backward.extend(rules(""));
    backward.push(format!(
        "{}({})",
        inner_name(&uncall_name(&f.name.name)),
        values.join(", ")
    ));
    // `uncall_f_adjoint` undoes `y -= h(x)`: x̄ -= ȳ h'; then runs `f`.
    let mut forward = common;
    forward.extend(rules("-"));
    forward.push(format!(
        "{}({})",
        inner_name(&rust_name(&f.name.name)),
        values.join(", ")
    ));
    Some([backward, forward])
}

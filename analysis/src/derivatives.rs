//! Derivative calls: `(∇f)(...)` runs the gradient program of `f` and
//! `(∂f)(...)` its tangent (forward-mode) program, from inside `.nil`.
//!
//! The call's callee is the derived function `∇f` / `∂f`
//! ([`crate::ast::Derivative`]). Its parameters are `f`'s, each
//! differentiable one followed by its *companion*: the adjoint (`x_bar`,
//! for `∇`) or the tangent (`x_dot`, for `∂`), of the same type. This
//! module decides, in one place, which parameters have a companion and
//! what the derived function's signature, parameter types and effects are;
//! the resolver, the type checker, the effects fixpoint and the backend read
//! them from here.
//!
//! - `(∇f)(x, x_bar, ...)` is `f_grad`: the arguments come back unchanged,
//!   and the companions go from seeds `b` to `Jᵀb` (`J` the Jacobian of what
//!   `f` computes). Its inverse `~(∇f)` takes the gradient back out.
//! - `(∂f)(x, x_dot, ...)` runs `f` on dual numbers: the arguments become
//!   `f`'s results and the companions go from `ẋ` to `J ẋ`. Its inverse
//!   `~(∂f)` runs `~f` the same way.
//!
//! Both run `f` on the backend's dual numbers (`nilang_runtime::Dual`),
//! either for the tangent itself or when a gradient program differentiates
//! a derivative call again (nested derivatives). So `f` must be generic in
//! its float type: exactly one type parameter bounded by `Real`, and its
//! parameters that type, arrays of it, or integers and booleans. Of a
//! function that records a tape, a gradient call runs `f_grad`, which keeps
//! its own; a tangent call runs `f` on its caller's tape, so the caller
//! records too (`recorder`), and `~(∂f)` is E0702 like any uncall of a
//! function that records.

use crate::ast::*;

pub use crate::ast::Derivative;

/// The suffix of a companion parameter's name.
pub fn companion_name(d: Derivative, param: &str) -> String {
    match d {
        Derivative::Gradient => crate::names::bar_name(param),
        Derivative::Tangent => format!("{}_dot", param.trim_end_matches('!')),
    }
}

/// Which of `f`'s parameters have a companion in its derivatives, or why
/// `f` cannot be differentiated from `.nil` (a sentence for E0624).
pub fn companions(f: &Function) -> Result<Vec<bool>, String> {
    let name = &f.name.name;
    if f.kernel {
        return Err(format!("`{name}` is a kernel"));
    }
    if !f.kwparams.is_empty() {
        return Err(format!("`{name}` has keyword parameters"));
    }
    let reals: Vec<&str> = f
        .generics
        .iter()
        .filter(|g| g.bounds.iter().any(|b| b.name == "Real"))
        .map(|g| g.name.name.as_str())
        .collect();
    let [t] = reals.as_slice() else {
        return Err(format!(
            "`{name}` must have exactly one type parameter bounded by `Real` (its float type), \
             since its derivatives run it on dual numbers"
        ));
    };
    let is_t = |ty: &Type| matches!(&ty.kind, TypeKind::Named { name, args } if name == t && args.is_empty());
    let is_plain = |ty: &Type| {
        matches!(&ty.kind, TypeKind::Named { name, args } if args.is_empty()
            && matches!(name.as_str(), "i64" | "i32" | "i16" | "i8" | "isize" | "u64" | "u32" | "u16" | "u8" | "usize" | "bool"))
    };
    let element = |ty: &Type| -> Option<Type> {
        match &ty.kind {
            TypeKind::Slice(inner) => Some((**inner).clone()),
            TypeKind::Named { name, args } if name == "Vec" && args.len() == 1 => {
                Some(args[0].clone())
            }
            _ => None,
        }
    };
    f.params
        .iter()
        .map(|p| {
            let Some(ty) = &p.ty else {
                return Err(format!(
                    "parameter `{}` of `{name}` has no declared type",
                    p.name.name
                ));
            };
            let scalar = element(ty).unwrap_or_else(|| ty.clone());
            if is_t(&scalar) {
                Ok(!p.constant)
            } else if is_plain(&scalar) {
                Ok(false)
            } else {
                Err(format!(
                    "parameter `{}` of `{name}` is not `{t}`, `[{t}]` or an integer: \
                     derivative calls support those",
                    p.name.name
                ))
            }
        })
        .collect()
}

/// The function into whose tape a call of `name` records, if `name`
/// records: the callee itself, or `f` for a tangent call `(∂f)` (which
/// runs `f` with its caller's tape); a gradient call `(∇f)` keeps its own
/// (`f_grad`), so it records nothing of its caller's.
pub fn recorder(name: &str) -> Option<&str> {
    match Derivative::of(name) {
        Some((Derivative::Gradient, _)) => None,
        Some((Derivative::Tangent, base)) => Some(base),
        None => Some(name),
    }
}

/// E0624 at a derivative call `(name)(...)` that cannot be made, `why`.
pub fn problem(name: &str, span: Span, why: &str) -> crate::diagnostics::Diagnostic {
    let (d, base) = Derivative::of(name).expect("a derivative callee");
    crate::diagnostics::Diagnostic::error(
        "E0624",
        span,
        format!("`({name})` cannot be called: {why}"),
    )
    .with_label(format!(
        "the {} of `{base}`",
        match d {
            Derivative::Gradient => "gradient",
            Derivative::Tangent => "tangent",
        }
    ))
    .with_help(
        "a function called as `(∇f)` or `(∂f)` must be generic in one float type \
         (`where T: Real`), with parameters of that type, arrays of it, or integers it \
         does not change",
    )
}

/// The derived function `∇f` / `∂f` as a signature to show (its body
/// empty): `f`'s parameters with their companions, of the same types.
pub fn derived_function(d: Derivative, f: &Function) -> Option<Function> {
    let mask = companions(f).ok()?;
    let params = interleave(&f.params, &mask, |p| Param {
        name: Ident {
            name: companion_name(d, &p.name.name),
            span: p.name.span,
        },
        constant: false,
        ..p.clone()
    });
    Some(Function {
        name: Ident {
            name: format!("({})", d.name(&f.name.name)),
            span: f.name.span,
        },
        params,
        body: Block::default(),
        primitive: None,
        ..f.clone()
    })
}

/// `items` with, after each item whose `mask` entry is true, its companion.
pub fn interleave<T: Clone>(items: &[T], mask: &[bool], companion: impl Fn(&T) -> T) -> Vec<T> {
    let mut out = Vec::with_capacity(items.len() * 2);
    for (i, item) in items.iter().enumerate() {
        out.push(item.clone());
        if mask.get(i).copied().unwrap_or(false) {
            out.push(companion(item));
        }
    }
    out
}

/// For each parameter of the derived function: the parameter of `f` it
/// belongs to, and whether it is that parameter's companion.
pub fn positions(mask: &[bool]) -> Vec<(usize, bool)> {
    let params: Vec<(usize, bool)> = (0..mask.len()).map(|i| (i, false)).collect();
    interleave(&params, mask, |&(i, _)| (i, true))
}

/// Which parameters the derived function changes: the companions always,
/// and what `f` changes (`∇f` restores those, but runs `f` on them).
pub fn mutated(base: &[bool], mask: &[bool]) -> Vec<bool> {
    interleave(base, mask, |_| true)
}

/// Parameter names of the derived function.
pub fn param_names(d: Derivative, base: &[String], mask: &[bool]) -> Vec<String> {
    interleave(base, mask, |p| companion_name(d, p))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn function(src: &str) -> Function {
        let parsed = crate::syntax::parse(src);
        assert!(parsed.diagnostics.is_empty(), "{:?}", parsed.diagnostics);
        (*parsed.items[0].function).clone()
    }

    #[test]
    fn companions_follow_the_float_type() {
        let f = function(
            "function f(p::T, x::[T], n::i64, c::Const<T>) where T: Real\n p += x[n] * c\nend\n",
        );
        assert_eq!(companions(&f), Ok(vec![true, true, false, false]));
        let names: Vec<String> = f.params.iter().map(|p| p.name.name.clone()).collect();
        let mask = companions(&f).unwrap();
        assert_eq!(
            param_names(Derivative::Gradient, &names, &mask),
            ["p", "p_bar", "x", "x_bar", "n", "c"]
        );
        assert_eq!(
            param_names(Derivative::Tangent, &names, &mask),
            ["p", "p_dot", "x", "x_dot", "n", "c"]
        );
        assert_eq!(
            mutated(&[true, false, false, false], &mask),
            [true, true, false, true, false, false]
        );
    }

    #[test]
    fn a_function_without_a_float_type_parameter_has_no_derivative_call() {
        let f = function("function f(p::f64, x::f64)\n p += x\nend\n");
        assert!(
            companions(&f)
                .unwrap_err()
                .contains("exactly one type parameter")
        );
        let g = function("function g(p::T, m::Matrix{T}) where T: Real\n p += m[1, 1]\nend\n");
        assert!(companions(&g).unwrap_err().contains("parameter `m`"));
    }
}

//! Reversible functions as values: a parameter `f::Fn<A, B>` takes a
//! `.nil` function of two positional parameters of types `A` and `B`,
//! passed by name (`map!(square!, xs)`).
//!
//! A function with such a parameter is a template. Inside it, `f(a, b)`
//! is checked as a call of a function that may change every argument and
//! takes none as `Const`: whatever function is passed, the template's
//! checks hold for it. The caller is checked against the `Fn` type (the
//! function's parameter types must be exactly `A, B`, E0623). The Rust
//! backend generates no code for a template itself: each combination of
//! functions it is called with becomes one instance, the template's body
//! with `f` replaced by the function (see [`instances`]), so nothing is
//! boxed and every call is direct, its uncall and adjoint included.
//!
//! What a function passed this way may not be: a kernel, a function with
//! a `Const` parameter (its derivative would be lost where the template
//! passes a value that carries one) or one that records a tape (E0623).

use crate::ast::*;
use crate::check::CalleeInfo;
use crate::resolve::{Items, Signature};
use crate::typeck::CalleeTypes;
use crate::types::Ty;

/// The `Fn`-typed parameters of a function, from its tree: `(position,
/// name, number of parameters of the function it takes)`.
pub fn function_params(function: &Function) -> Vec<(usize, &str, usize)> {
    function
        .params
        .iter()
        .enumerate()
        .filter_map(|(i, p)| match &p.ty.as_ref()?.kind {
            TypeKind::Named { name, args } if name == "Fn" => {
                Some((i, p.name.name.as_str(), args.len()))
            }
            _ => None,
        })
        .collect()
}

/// Whether a function takes a function (and so is a template).
pub fn is_template(function: &Function) -> bool {
    !function_params(function).is_empty()
}

/// The name of the instance of `template` with these functions passed
/// for its `Fn` parameters, in order: `map!` with `square!` is
/// `map!_with_square!` (Rust `map_with_square`).
pub fn instance_name(template: &str, functions: &[String]) -> String {
    // Modules are left out (`std.functional.i_map!` with `square!` is
    // `i_map!_with_square!`): an instance is generated in this crate.
    let bare = crate::modules::bare_name;
    format!(
        "{}_with_{}",
        bare(template),
        functions
            .iter()
            .map(|f| bare(f))
            .collect::<Vec<_>>()
            .join("_and_")
    )
}

/// What a template's `Fn` parameters stand for in one of its instances:
/// each parameter's name with the function passed for it.
pub fn binding(template: &Function, functions: &[String]) -> Vec<(String, String)> {
    function_params(template)
        .into_iter()
        .map(|(_, name, _)| name.to_string())
        .zip(functions.iter().cloned())
        .collect()
}

/// The functions a call passes at `positions` (a template's `Fn`
/// parameters), with a caller's own `Fn` parameters replaced by what its
/// `binding` binds them to; `None` when an argument there is not a name.
/// The instance the call reaches is `instance_name(callee, &these)`.
pub fn passed_functions(
    call: &Call,
    positions: impl IntoIterator<Item = usize>,
    binding: &[(String, String)],
) -> Option<Vec<String>> {
    positions
        .into_iter()
        .map(|i| match &call.args.get(i)?.kind {
            ExprKind::Var(name) => Some(
                binding
                    .iter()
                    .find(|(p, _)| p == name)
                    .map_or(name, |(_, g)| g)
                    .clone(),
            ),
            _ => None,
        })
        .collect()
}

/// A project's callees, seen from inside one function: its `Fn`
/// parameters are callees too, which may change every argument, take
/// none as `Const`, and have the parameter types of their `Fn` type.
pub struct WithLocal<'a, C: ?Sized> {
    pub inner: &'a C,
    /// `(name, parameter types)` of each `Fn` parameter.
    pub local: Vec<(String, Vec<Ty>)>,
}

impl<'a, C: ?Sized> WithLocal<'a, C> {
    /// `types` are the function's parameter types by position, where
    /// known (the resolver runs before them: it only needs arities).
    pub fn new(inner: &'a C, function: &Function, types: &dyn Fn(usize) -> Option<Ty>) -> Self {
        let local = function_params(function)
            .into_iter()
            .map(|(i, name, arity)| {
                let params = match types(i) {
                    Some(Ty::Constructed("Fn", args)) => args,
                    _ => vec![Ty::Unknown; arity],
                };
                (name.to_string(), params)
            })
            .collect();
        WithLocal { inner, local }
    }

    fn local(&self, name: &str) -> Option<&[Ty]> {
        self.local
            .iter()
            .find(|(n, _)| n == name)
            .map(|(_, p)| p.as_slice())
    }
}

impl<C: Items + ?Sized> Items for WithLocal<'_, C> {
    fn signature(&self, name: &str) -> Option<Signature> {
        match self.local(name) {
            Some(params) => Some(Signature {
                name: name.to_string(),
                params: (1..=params.len()).map(|i| format!("#{i}")).collect(),
                kwparams: Vec::new(),
            }),
            None => self.inner.signature(name),
        }
    }

    fn function_names(&self) -> Vec<String> {
        self.inner.function_names()
    }

    fn struct_arity(&self, name: &str) -> Option<usize> {
        self.inner.struct_arity(name)
    }

    fn defined_in(&self, name: &str) -> Vec<String> {
        self.inner.defined_in(name)
    }
}

impl<C: CalleeInfo + ?Sized> CalleeInfo for WithLocal<'_, C> {
    fn mutated_params(&self, name: &str) -> Option<Vec<bool>> {
        match self.local(name) {
            Some(params) => Some(vec![true; params.len()]),
            None => self.inner.mutated_params(name),
        }
    }

    fn constant_params(&self, name: &str) -> Option<Vec<bool>> {
        match self.local(name) {
            Some(params) => Some(vec![false; params.len()]),
            None => self.inner.constant_params(name),
        }
    }
}

impl<C: CalleeTypes + ?Sized> CalleeTypes for WithLocal<'_, C> {
    fn param_types(&self, name: &str) -> Option<(Vec<Ty>, Vec<bool>)> {
        match self.local(name) {
            Some(params) => Some((params.to_vec(), vec![true; params.len()])),
            None => self.inner.param_types(name),
        }
    }
}

//! The callees seen from inside one function: the project's, and the
//! function's own `Fn` parameters, which are callees there too.

use crate::ast::*;
use crate::check::CalleeInfo;
use crate::resolve::{Items, Signature};
use crate::ty::{Ctor, Ty};
use crate::typeck::CalleeTypes;
use crate::values::function_params;

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
                    Some(Ty::Constructed(Ctor::Fn, args)) => args,
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

    fn derivative_problem(&self, name: &str) -> Option<String> {
        self.inner.derivative_problem(name)
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

    fn call_mutations(&self, call: &Call) -> Option<Vec<bool>> {
        match self.local(&call.callee.name) {
            Some(params) => Some(vec![true; params.len()]),
            None => self.inner.call_mutations(call),
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

//! `@primitive(d)` functions: their reverse passes come from `d`, which takes
//! one accumulator per (changed, read) pair of differentiable parameters,
//! then the function's read parameters. The checks on that contract.

use crate::ast::Function;
use crate::diagnostics::Diagnostic;
use crate::resolve::Resolution;
use crate::ty::{Scalar, Ty};
use crate::types::FunctionTypes;

/// E0701 for a parameter with an adjoint that is not a real scalar; E0108
/// when `d` (with `d_arity` positional parameters) takes another number of
/// arguments than the contract gives it.
pub fn check_primitive(
    function: &Function,
    resolution: &Resolution,
    types: &FunctionTypes,
    mutated: &[bool],
    d_arity: Option<usize>,
) -> Vec<Diagnostic> {
    let mut out = Vec::new();
    let Some(d) = &function.primitive else {
        return out;
    };
    let (mut outputs, mut inputs, mut reads) = (0, 0, 0);
    for (i, p) in function.params.iter().enumerate() {
        let ty = resolution
            .def_at(p.name.span)
            .and_then(|id| types.defs.get(id))
            .cloned()
            .unwrap_or(Ty::Unknown);
        // A `Const` parameter has no derivative: it is only read.
        let real =
            !p.constant && matches!(ty, Ty::Scalar(Scalar::F64 | Scalar::F32) | Ty::Generic(_));
        if ty.has_adjoint() && !real && !p.constant {
            out.push(
                Diagnostic::error(
                    "E0701",
                    p.span,
                    format!(
                        "`@primitive` parameter `{}` is not a real scalar",
                        p.name.name
                    ),
                )
                .with_label("arrays and complex numbers cannot be primitive parameters yet")
                .with_help(
                    "give the primitive real scalar parameters, and loop over arrays in the caller",
                ),
            );
            return out;
        }
        let changed = mutated.get(i).copied().unwrap_or(false);
        match (changed, real) {
            (true, true) => outputs += 1,
            (true, false) => {}
            (false, r) => {
                reads += 1;
                inputs += usize::from(r);
            }
        }
    }
    let pairs = outputs * inputs;
    let expected = pairs + reads;
    if let Some(n) = d_arity
        && n != expected
    {
        out.push(
            Diagnostic::error(
                "E0108",
                d.span,
                format!(
                    "`{}` takes {n} arguments, but the primitive `{}` passes it {expected}",
                    d.name, function.name.name
                ),
            )
            .with_label("derivatives of this primitive")
            .with_help(format!(
                "give `{}` one parameter per (changed, read) pair of real parameters ({pairs}), then the read parameters of `{}` ({reads})",
                d.name, function.name.name
            )),
        );
    }
    out
}

//! Variants: a function compiled again with some of its parameters `Const`,
//! as a build asks (`nilang_build::Config::variant`, `nilc emit
//! --variant f:x,w`), not as the program does. Whether a variant can be
//! made is decided here; the backends generate only those that can.

use super::checks::instance_function;
use super::functions::function_ast;
use super::inputs::{Db, Project};
use super::instances::{Instance, InstanceId, instance_tree, project_instances};
use super::items::{function_names, function_offset, lookup_function};
use crate::diagnostics::{Diagnostic, Severity};
use crate::names::rust_name;

/// A function compiled again with the parameters `constants` made `Const`:
/// `f` with `x` constant becomes `f_const_x` (and `f_const_x_grad`, ...),
/// whose gradient program takes no adjoint for `x` and does no adjoint work
/// for it or for what is computed from constants only.
#[derive(Clone, PartialEq, Eq, Debug)]
pub struct Variant {
    pub function: String,
    pub constants: Vec<String>,
}

/// What keeps the `k`-th of `variants` (as a build asks for them) from
/// being generated (absolute
/// spans): E0625 when it cannot be made (its Rust name is taken, or the
/// names are not parameters of the function), else the errors of the
/// function with those parameters `Const` (E0209 where it changes one).
/// Empty: it can be generated.
pub fn variant_errors(
    db: &dyn Db,
    project: Project,
    variants: &[Variant],
    k: usize,
) -> Vec<Diagnostic> {
    let variant = &variants[k];
    let Some(f) = lookup_function(db, project, &variant.function) else {
        return Vec::new();
    };
    let offset = function_offset(db, f);
    let instance = Instance::variant(&variant.function, &variant.constants);
    let id = InstanceId::new(db, instance.clone());
    let what = format!(
        "`{}` with {} constant",
        variant.function,
        variant
            .constants
            .iter()
            .map(|c| format!("`{c}`"))
            .collect::<Vec<_>>()
            .join(", ")
    );
    // Its name must be free: a function of the project, an instance or
    // another variant spelled alike would be a second Rust function of
    // that name.
    let rust = rust_name(&instance.name());
    let taken = function_names(db, project)
        .iter()
        .any(|n| rust_name(n) == rust)
        || project_instances(db, project)
            .iter()
            .any(|i| rust_name(&i.name()) == rust)
        || variants[..k].iter().any(|v| {
            v != variant && rust_name(&Instance::variant(&v.function, &v.constants).name()) == rust
        });
    let problem = if taken {
        Some((
            format!("its name `{rust}` is taken"),
            "rename the function that has that name, or ask for the variant once",
        ))
    } else {
        instance_tree(db, project, id).as_ref().err().map(|why| {
            (
                why.clone(),
                "name parameters of the function (in `Config::variant` of the build script, or `nilc emit --variant f:x,w`)",
            )
        })
    };
    if let Some((why, help)) = problem {
        let span = function_ast(db, f).map_or_else(Default::default, |a| a.name.span);
        return vec![
            Diagnostic::error("E0625", span, format!("no variant of {what}"))
                .with_label(why)
                .with_help(help)
                .shifted(offset),
        ];
    }
    instance_function(db, project, id)
        .as_ref()
        .map(|a| {
            a.diagnostics
                .iter()
                .filter(|d| d.severity == Severity::Error)
                .map(|d| {
                    let mut d = d.clone().shifted(offset);
                    d.message = format!("in the variant of {what}: {}", d.message);
                    d
                })
                .collect()
        })
        .unwrap_or_default()
}

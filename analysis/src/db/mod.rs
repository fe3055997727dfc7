//! The salsa database and the tracked queries every front end shares.
//!
//! Inputs: [`SourceFile`] (a path and its text) and [`Project`] (the files
//! compiled together: a crate's `.nil` files, or the paths given to `nilc`).
//!
//! Per-function queries are keyed by [`FnId`], an interned (file, name,
//! ordinal). They read [`function_ast`], whose spans are relative to the
//! function, so an edit inside one function leaves every other function's
//! tree equal: salsa backdates it and does not re-run their checks.
//!
//! The queries are grouped by job, each module using only those before it
//! (`compiler/tests/import_circles.rs`):
//! - `inputs`: source files, projects, library modules, the database, parsing;
//! - `items`: where each function is (in chunks of 16 per file), the table
//!   of a project's names, its structs;
//! - `scopes`: modules, each file's scope, `using` and `import` errors;
//! - `functions`: each function's tree and header, what functions change;
//! - `front`: name resolution and types of each function, the callees it sees;
//! - `taping`: which functions record a tape;
//! - `instances`: the template instances a project calls, and their trees;
//! - `limits`: what the backends cannot generate (E0701);
//! - `checks`: the checks of each function and template instance;
//! - `callees`: the signature of whatever generated code calls by name
//!   (instances too), and the module an instance is generated in;
//! - `variants`: whether a variant a build asks for (a function with some
//!   parameters `Const`) can be made (E0625);
//! - `options`: what a build's other options rule out (a gradient call
//!   without the gradient programs, E0701);
//! - `diagnostics`: what every shell reports for a file;
//! - `inverse`: a function's inverse, as a tree and as source;
//! - `body`: each function's typed body, for the consumers that read it.
//!
//! Everything public is re-exported here: callers name `db::…` only.

pub mod body;
mod callees;
mod checks;
mod diagnostics;
mod front;
mod functions;
mod inputs;
mod instances;
mod inverse;
mod items;
mod limits;
mod options;
mod scopes;
mod taping;
mod variants;

pub use crate::names::module_name;
pub use body::function_body;
pub use callees::{instance_home, signature};
pub use checks::{
    InstanceFunction, check_function, function_activity, instance_function, instance_mutations,
    kernel_facts, reversibility_checks,
};
pub use diagnostics::file_diagnostics;
pub use front::{
    Callable, CalleeSignature, ParamSignature, ProjectCallees, callee_signature,
    function_expr_types, function_types, mutated_params, param_types, resolve_function,
};
pub use functions::{
    derivative_problem, derived_base, function_ast, function_signature, has_tape_loop, is_kernel,
    project_mutations,
};
pub use inputs::{
    Db, ExecutedQuery, FnId, LibraryModule, Project, RootDatabase, SourceFile, is_local,
    library_module, line_starts, module_path, parse_file, project_with_std,
};
pub use instances::{Instance, InstanceId, instance_tree, project_instances};
pub use inverse::{inverse_function, inverse_header, inverse_source};
pub use items::{
    ItemDiagnostic, ItemTable, ProjectStructs, file_functions, function_names, function_offset,
    item_table, lookup_function, project_structs, struct_table,
};
pub use limits::backend_limits;
pub use options::build_option_errors;
pub use scopes::{file_scope, missing_packages, module_registry};
pub use taping::{TapeFacts, project_taped};
pub use variants::{Variant, variant_errors};

//! The backends' tracked queries: the Rust of a function and of a file,
//! the WGSL shaders of a kernel, the backend's own errors (E0701) and the
//! diagnostics `nilc check` shows (the analysis's, then the backend's for
//! a file without errors).

use std::sync::Arc;

use nilang_analysis::db::*;
use nilang_analysis::diagnostics::Diagnostic;

use crate as codegen;

struct ProjectCodegen<'a> {
    db: &'a dyn Db,
    project: Project,
    file: SourceFile,
    /// Code is generated with every loop taped (`Options::tape_loops`).
    tape_loops: bool,
}

impl codegen::CodegenContext for ProjectCodegen<'_> {
    fn callee_body(&self, name: &str) -> Option<codegen::wgsl::CalleeBody> {
        let f = lookup_function(self.db, self.project, name)?;
        let ast = function_ast(self.db, f)?;
        Some(codegen::wgsl::CalleeBody {
            function: ast,
            resolution: Arc::clone(resolve_function(self.db, f)),
            types: Arc::clone(function_types(self.db, f)),
            mutated: mutated_params(self.db, self.project, name).unwrap_or_default(),
        })
    }

    fn callee(&self, name: &str) -> Option<codegen::CalleeSig> {
        let sig = signature(self.db, self.project, name)?;
        let params = sig
            .params
            .iter()
            .map(|p| (p.mutated, p.ty.clone()))
            .collect();
        let constant = sig.params.iter().map(|p| p.constant).collect();
        let taped = project_taped(self.db, self.project, self.tape_loops)
            .iter()
            .any(|t| *t == sig.tape_of);
        Some(match sig.derivative {
            // A derivative call (`(∇f)`): `f`'s parameters with their
            // companions, reached through this module's entry points; a
            // tangent call runs `f` on its caller's tape.
            Some(d) => codegen::CalleeSig {
                module: None,
                params,
                constant,
                kwparams: Vec::new(),
                taped: taped && d == nilang_analysis::ast::Derivative::Tangent,
            },
            None => codegen::CalleeSig {
                module: (sig.home != self.file)
                    .then(|| rust_module_path(self.db, self.project, sig.home)),
                params,
                constant,
                kwparams: sig.kwparams.clone(),
                taped,
            },
        })
    }
}

/// Rust code of one function (call and uncall) and the code generation
/// errors, with function-relative spans.
#[derive(Clone, PartialEq, Eq, Debug, Default)]
pub struct FunctionRust {
    pub code: String,
    pub diagnostics: Vec<Diagnostic>,
}

/// The options a function's code depends on: [`codegen::Options`] less
/// the tolerance and the runtime path (the module header's) and the
/// variants (generated apart).
#[derive(Clone, Copy, PartialEq, Eq, Hash, Debug)]
pub struct Build {
    pub checks: bool,
    pub gradients: bool,
    pub tape_loops: bool,
    pub keep_uncomputation: bool,
}

impl Build {
    pub fn of(options: &codegen::Options) -> Build {
        Build {
            checks: options.checks,
            gradients: options.gradients,
            tape_loops: options.tape_loops,
            keep_uncomputation: options.keep_uncomputation,
        }
    }
}

#[salsa::tracked(returns(ref))]
pub fn function_rust<'db>(db: &'db dyn Db, f: FnId<'db>, build: Build) -> Arc<FunctionRust> {
    let generated = generate(db, f, build, true);
    Arc::new(FunctionRust {
        code: generated.code,
        diagnostics: generated.diagnostics,
    })
}

/// Runs the Rust backend on one function (not memoized: the callers keep
/// what they need of it). Without `locations` the run-time checks name line
/// 1 of no file: the code is thrown away, and the diagnostics (relative to
/// the function) then do not depend on where the function sits in its
/// file, so an edit elsewhere does not re-run the backend on it.
fn generate<'db>(
    db: &'db dyn Db,
    f: FnId<'db>,
    build: Build,
    locations: bool,
) -> codegen::Generated {
    generate_as(db, f, None, build, locations)
}

/// [`generate`], or with `instance` the code of that instance of the
/// template `f`: its tree under the instance's name, with each `Fn`
/// parameter bound to its function.
fn generate_as<'db>(
    db: &'db dyn Db,
    f: FnId<'db>,
    instance: Option<&Instance>,
    build: Build,
    locations: bool,
) -> codegen::Generated {
    let Some(ast) = function_ast(db, f) else {
        return codegen::Generated::default();
    };
    let project = f.project(db);
    let file = f.file(db);
    // An instance is its own tree, analysed as a function of its own
    // (`db::instance_function`); spans are the template's.
    let analysed = match instance {
        Some(i) => match instance_function(db, project, InstanceId::new(db, i.clone())) {
            Some(a) => Some(a.clone()),
            None => return codegen::Generated::default(),
        },
        None => None,
    };
    let mutated = match &analysed {
        Some(a) => a.mutated.clone(),
        None => mutated_params(db, project, f.name(db)).unwrap_or_default(),
    };
    let none_facts = nilang_analysis::kernel::KernelFacts::default();
    let shown_path = nilang_analysis::stdlib::shown_path(file.path(db));
    codegen::generate_function(
        &codegen::Input {
            function: analysed.as_ref().map_or(&*ast, |a| &*a.ast),
            resolution: analysed
                .as_ref()
                .map_or(resolve_function(db, f), |a| &a.resolution),
            types: analysed
                .as_ref()
                .map_or(function_types(db, f), |a| &a.types),
            mutated: &mutated,
            activity: analysed
                .as_ref()
                .map_or(function_activity(db, f), |a| &a.activity),
            facts: if analysed.is_some() {
                &none_facts
            } else {
                kernel_facts(db, f)
            },
            expr_types: analysed
                .as_ref()
                .map_or(function_expr_types(db, f), |a| &a.expr_types),
            alias_checks: &analysed
                .as_ref()
                .map_or(reversibility_checks(db, f), |a| &a.reversibility)
                .alias_checks,
            ctx: &ProjectCodegen {
                db,
                project,
                // Where the code goes: an instance's home module.
                file: instance
                    .and_then(|i| instance_home(db, project, i))
                    .unwrap_or(file),
                tape_loops: build.tape_loops,
            },
        },
        &if locations {
            codegen::Place {
                path: &shown_path,
                text: file.text(db),
                offset: function_offset(db, f),
                line_starts: line_starts(db, file),
            }
        } else {
            codegen::Place {
                path: "",
                text: "",
                offset: 0,
                line_starts: &[0],
            }
        },
        &codegen::Options {
            checks: build.checks,
            gradients: build.gradients,
            tape_loops: build.tape_loops,
            keep_uncomputation: build.keep_uncomputation,
            ..codegen::Options::default()
        },
    )
}

/// The WGSL shaders of a `@kernel` function (empty for other functions):
/// `(label, WGSL)`, or the reasons they cannot be generated.
pub fn kernel_shaders(db: &dyn Db, f: FnId<'_>) -> Result<Vec<(String, String)>, Vec<Diagnostic>> {
    let Some(ast) = function_ast(db, f) else {
        return Ok(Vec::new());
    };
    if !ast.kernel {
        return Ok(Vec::new());
    }
    let project = f.project(db);
    let file = f.file(db);
    let mutated = mutated_params(db, project, f.name(db)).unwrap_or_default();
    let resolution = resolve_function(db, f);
    let types = function_types(db, f);
    let facts = kernel_facts(db, f);
    let shaders = codegen::wgsl::all_shaders(&codegen::Input {
        alias_checks: &[],
        expr_types: function_expr_types(db, f),
        function: &ast,
        resolution,
        types,
        mutated: &mutated,
        activity: function_activity(db, f),
        facts,
        ctx: &ProjectCodegen {
            db,
            project,
            file,
            tape_loops: false,
        },
    })?;
    Ok(shaders
        .into_iter()
        .map(|s| {
            (
                format!("{}: {:?} {} {:?}", f.name(db), s.pass, s.float, s.atomics),
                s.wgsl,
            )
        })
        .collect())
}

/// The Rust module generated from one file, or the errors that prevent it
/// (check errors first: code is generated only for a file without errors).
#[derive(Clone, PartialEq, Eq, Debug, Default)]
pub struct RustModule {
    pub code: String,
    /// Errors (absolute spans). Empty when `code` is usable.
    pub errors: Vec<Diagnostic>,
}

#[salsa::tracked(returns(ref))]
pub fn rust_module(
    db: &dyn Db,
    project: Project,
    file: SourceFile,
    build: Build,
) -> Arc<RustModule> {
    // A file with errors of its own gets exactly those (what `nilc check`
    // and the editor show), and no code generation: the backend's view of
    // code that does not check would only add noise.
    let errors: Vec<Diagnostic> = file_diagnostics(db, project, file)
        .iter()
        .filter(|d| d.severity == nilang_analysis::diagnostics::Severity::Error)
        .cloned()
        .collect();
    if !errors.is_empty() {
        return Arc::new(RustModule {
            code: String::new(),
            errors,
        });
    }
    // What the build's options rule out, decided by the analysis too.
    let errors = build_option_errors(db, project, file, build.gradients);
    if !errors.is_empty() {
        return Arc::new(RustModule {
            code: String::new(),
            errors,
        });
    }
    let mut errors = Vec::new();
    let mut code = struct_items_rust(db, project, file);
    for &f in file_functions(db, project, file) {
        // A template has no code of its own: each of its instances does.
        if function_ast(db, f).is_some_and(|a| nilang_analysis::values::is_template(&a)) {
            continue;
        }
        let offset = function_offset(db, f);
        let rust = function_rust(db, f, build);
        errors.extend(rust.diagnostics.iter().map(|d| d.clone().shifted(offset)));
        code.push('\n');
        code.push_str(&rust.code);
    }
    // The instances that live here: of this file's templates, and of
    // library templates (whose code is not this file's: no offsets).
    for instance in project_instances(db, project).iter() {
        let Some(f) = lookup_function(db, project, &instance.template) else {
            continue;
        };
        if instance_home(db, project, instance) != Some(file) {
            continue;
        }
        let offset = if f.file(db) == file {
            function_offset(db, f)
        } else {
            0
        };
        let rust = generate_as(db, f, Some(instance), build, true);
        errors.extend(rust.diagnostics.iter().map(|d| d.clone().shifted(offset)));
        code.push('\n');
        code.push_str(&rust.code);
    }
    code.push_str(&derivative_entry_points(
        db,
        project,
        file,
        build.gradients,
        build.tape_loops,
    ));
    if !errors.is_empty() {
        errors.sort_by_key(|d| (d.primary.span.start, d.code));
        errors.dedup();
        return Arc::new(RustModule {
            code: String::new(),
            errors,
        });
    }
    Arc::new(RustModule { code, errors })
}

/// How generated code names the Rust module of `file` from a sibling: a
/// library module by its path (`nilang::stdlib::linalg`), a file of this
/// crate as `super::<module>`.
fn rust_module_path(db: &dyn Db, project: Project, file: SourceFile) -> String {
    match library_module(db, project, file) {
        Some(l) => l.rust_path.clone(),
        None => format!("super::{}", codegen::rust_name(&module_name(file.path(db)))),
    }
}

/// The Rust of a file's structs, and `use` items for the structs of the
/// project's other files (sibling modules).
fn struct_items_rust(db: &dyn Db, project: Project, file: SourceFile) -> String {
    let structs = project_structs(db, project);
    let mut code = String::new();
    let mut others: Vec<(String, String)> = structs
        .table
        .by_name
        .iter()
        .filter_map(|(name, (_, i))| {
            let other = *structs.files.get(*i)?;
            (other != file).then(|| {
                (
                    rust_module_path(db, project, other),
                    codegen::rust_name(name),
                )
            })
        })
        .collect();
    others.sort();
    for (module, name) in others {
        code.push_str(&format!(
            "#[allow(unused_imports)]\nuse {module}::{name};\n"
        ));
    }
    let own = &parse_file(db, file).structs;
    if !own.is_empty() {
        code.push('\n');
        code.push_str(&codegen::structs::structs_rust(own));
    }
    code
}

/// The complete text of a generated module: header and functions.
pub fn rust_module_text(
    db: &dyn Db,
    project: Project,
    file: SourceFile,
    options: &codegen::Options,
) -> Result<String, Vec<Diagnostic>> {
    let module = rust_module(db, project, file, Build::of(options));
    if !module.errors.is_empty() {
        return Err(module.errors.clone());
    }
    let variants = variant_code(db, project, file, options)?;
    Ok(format!(
        "{}{}{variants}",
        codegen::module_header(file.path(db), options),
        module.code
    ))
}

/// The code of the variants (`Options::variants`) of `file`'s functions,
/// or their errors (absolute spans), which the analysis decides
/// (`db::variant_errors`).
fn variant_code(
    db: &dyn Db,
    project: Project,
    file: SourceFile,
    options: &codegen::Options,
) -> Result<String, Vec<Diagnostic>> {
    let mut code = String::new();
    let mut errors = Vec::new();
    for (k, variant) in options.variants.iter().enumerate() {
        let Some(f) =
            lookup_function(db, project, &variant.function).filter(|f| f.file(db) == file)
        else {
            continue;
        };
        // A variant asked for twice is generated once.
        if options.variants[..k].contains(variant) {
            continue;
        }
        let failed = variant_errors(db, project, &options.variants, k);
        if !failed.is_empty() {
            errors.extend(failed);
            continue;
        }
        let offset = function_offset(db, f);
        let instance = Instance::variant(&variant.function, &variant.constants);
        let rust = generate_as(db, f, Some(&instance), Build::of(options), true);
        errors.extend(rust.diagnostics.iter().map(|d| d.clone().shifted(offset)));
        code.push('\n');
        code.push_str(&rust.code);
    }
    if errors.is_empty() {
        Ok(code)
    } else {
        Err(errors)
    }
}

/// The entry points of the derivative calls (`(∇f)(...)`, `(∂f)(...)`)
/// that `file`'s functions make (`codegen::derivatives`), once each; the
/// reverse passes only with `gradients` (without them the analysis
/// refuses a gradient call: `db::build_option_errors`).
fn derivative_entry_points(
    db: &dyn Db,
    project: Project,
    file: SourceFile,
    gradients: bool,
    tape_loops: bool,
) -> String {
    let mut called: Vec<String> = Vec::new();
    for &f in file_functions(db, project, file) {
        let Some(ast) = function_ast(db, f) else {
            continue;
        };
        nilang_analysis::effects::visit_block(&ast.body, &mut |stmt| {
            if let nilang_analysis::ast::StmtKind::Call(call) = &stmt.kind
                && nilang_analysis::ast::Derivative::of(&call.callee.name).is_some()
            {
                called.push(call.callee.name.clone());
            }
        });
    }
    called.sort();
    called.dedup();
    let ctx = ProjectCodegen {
        db,
        project,
        file,
        tape_loops,
    };
    let mut out = String::new();
    for name in called {
        let Some((d, base)) = nilang_analysis::ast::Derivative::of(&name) else {
            continue;
        };
        let (Some(sig), Some((_, f, mask))) = (
            codegen::CodegenContext::callee(&ctx, base),
            derived_base(db, project, &name),
        ) else {
            continue;
        };
        // Where `f` is defined, for what its entry points cannot do.
        let home = f.file(db);
        let start = function_ast(db, f).map_or(0, |a| a.name.span.start) + function_offset(db, f);
        let (line, column) =
            crate::render::line_col_indexed(home.text(db), line_starts(db, home), start);
        // A standard-library function is named `std/<module>.nil`, never by
        // the build machine's path.
        let shown = nilang_analysis::stdlib::shown_path(home.path(db));
        let location = codegen::location_code(&shown, line, column);
        out.push_str(&codegen::derivatives::entry_points(
            d, base, &sig, &mask, gradients, &location,
        ));
    }
    out
}

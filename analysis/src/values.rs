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

/// A function passed for a `Fn` parameter: by name (`square!`), or
/// partially applied (`scale!(_, _, c)`: `holes` says which of its
/// parameters the template's calls fill, in order; the others are the
/// captured arguments, which the instance takes as parameters of its own).
#[derive(Clone, PartialEq, Eq, Hash, Debug, PartialOrd, Ord)]
pub struct Passed {
    pub name: String,
    pub holes: Option<Vec<bool>>,
}

impl Passed {
    /// The positions of the captured arguments (none for a name).
    pub fn captured(&self) -> Vec<usize> {
        self.holes
            .iter()
            .flatten()
            .enumerate()
            .filter(|(_, hole)| !**hole)
            .map(|(i, _)| i)
            .collect()
    }
}

/// Whether an argument of a partial application is a hole, `_`.
pub fn is_hole(e: &Expr) -> bool {
    matches!(&e.kind, ExprKind::Var(n) if n == "_")
}

/// The function an argument passes, with its captured arguments: a name,
/// or a call with at least one hole (`scale!(_, c)`). `None` for any other
/// expression.
pub fn passed(arg: &Expr) -> Option<(Passed, Vec<&Expr>)> {
    match &arg.kind {
        ExprKind::Var(name) if name != "_" => Some((
            Passed {
                name: name.clone(),
                holes: None,
            },
            Vec::new(),
        )),
        ExprKind::Call { callee, args, .. } if args.iter().any(is_hole) => Some((
            Passed {
                name: callee.name.clone(),
                holes: Some(args.iter().map(is_hole).collect()),
            },
            args.iter().filter(|a| !is_hole(a)).collect(),
        )),
        _ => None,
    }
}

/// The name of the instance of `template` with these functions passed
/// for its `Fn` parameters, in order: `map!` with `square!` is
/// `map!_with_square!` (Rust `map_with_square`); with `scale!(_, c)`,
/// `map!_with_scale!_p2` (the captured positions, from 1).
pub fn instance_name(template: &str, functions: &[Passed]) -> String {
    // Modules are left out (`std.functional.i_map!` with `square!` is
    // `i_map!_with_square!`): an instance is generated in this crate.
    let bare = crate::modules::bare_name;
    format!(
        "{}_with_{}",
        bare(template),
        functions
            .iter()
            .map(|f| {
                let captured = f.captured();
                if captured.is_empty() {
                    bare(&f.name).to_string()
                } else {
                    let at: Vec<String> = captured.iter().map(|i| (i + 1).to_string()).collect();
                    format!("{}_p{}", bare(&f.name), at.join("_"))
                }
            })
            .collect::<Vec<_>>()
            .join("_and_")
    )
}

/// The functions a call passes at `positions` (a template's `Fn`
/// parameters); `None` when an argument there passes none. The instance
/// the call reaches is `instance_name(callee, &these)`.
pub fn passed_functions(
    call: &Call,
    positions: impl IntoIterator<Item = usize>,
) -> Option<Vec<Passed>> {
    positions
        .into_iter()
        .map(|i| passed(call.args.get(i)?).map(|(p, _)| p))
        .collect()
}

/// The arguments of a call of a template as its instance takes them: the
/// arguments at the other positions than `function_positions`, then the
/// captured arguments of each partial application, in order.
pub fn instance_arguments<'a>(call: &'a Call, function_positions: &[usize]) -> Vec<&'a Expr> {
    let mut out: Vec<&Expr> = call
        .args
        .iter()
        .enumerate()
        .filter(|(i, _)| !function_positions.contains(i))
        .map(|(_, a)| a)
        .collect();
    for &i in function_positions {
        if let Some((_, captured)) = call.args.get(i).and_then(passed) {
            out.extend(captured);
        }
    }
    out
}

/// The name of the parameter of an instance that holds the `k`-th
/// captured argument of the function passed for `param`.
fn captured_param(param: &str, k: usize) -> String {
    format!("__{}_{}", crate::names::rust_name(param), k + 1)
}

/// The tree of an instance: the template with each `Fn` parameter
/// replaced by the function passed for it. A call `f(a, b)` becomes a call
/// of that function (`g(a, b)`, or `g(a, b, c)` with the captured values
/// in their places), a function passed on becomes the function itself,
/// and the `Fn` parameters give way to one parameter per captured value,
/// last, of the types and `Const`-ness `captured_types` gives (in order,
/// each type already in the template's type parameters). Spans are the template's; the new parameters and their uses get
/// empty spans of their own.
pub fn instantiate(
    template: &Function,
    functions: &[Passed],
    captured_types: &[Vec<(Type, bool)>],
) -> Function {
    let fn_params = function_params(template);
    let mut out = template.clone();
    out.name.name = instance_name(&template.name.name, functions);
    // What each `Fn` parameter stands for: the function, and the names
    // of the parameters that carry its captured values.
    let mut bound: Vec<(String, Passed, Vec<String>)> = Vec::new();
    let mut extra: Vec<Param> = Vec::new();
    for (((i, name, _), passed), types) in fn_params.iter().zip(functions).zip(captured_types) {
        let p = &template.params[*i];
        let mut names = Vec::new();
        for (k, (ty, constant)) in types.iter().enumerate() {
            let at = p.name.span.start + k as u32;
            let span = Span::new(at, at);
            let param_name = captured_param(name, k);
            names.push(param_name.clone());
            extra.push(Param {
                name: Ident {
                    name: param_name,
                    span,
                },
                ty: Some(Type {
                    kind: ty.kind.clone(),
                    span,
                }),
                span,
                constant: *constant,
            });
        }
        bound.push((name.to_string(), passed.clone(), names));
    }
    out.params = template
        .params
        .iter()
        .enumerate()
        .filter(|(i, _)| !fn_params.iter().any(|(j, _, _)| j == i))
        .map(|(_, p)| p.clone())
        .chain(extra)
        .collect();
    walk_calls_mut(&mut out.body.stmts, &mut |call| substitute(call, &bound));
    out
}

/// `captured` values as arguments at the captured positions, with empty
/// spans from `at` on (one each).
fn with_captured(holes: &[bool], filled: Vec<Expr>, captured: &[String], at: u32) -> Vec<Expr> {
    let mut filled = filled.into_iter();
    let mut captured = captured.iter().enumerate();
    holes
        .iter()
        .map(|&hole| {
            if hole {
                filled
                    .next()
                    .unwrap_or_else(|| Expr::new(ExprKind::Error, Span::new(at, at)))
            } else {
                let (k, name) = captured
                    .next()
                    .map_or((0, String::new()), |(k, n)| (k, n.clone()));
                let here = at + k as u32;
                Expr::new(ExprKind::Var(name), Span::new(here, here))
            }
        })
        .collect()
}

/// A call of the instance's tree with the `Fn` parameters in `bound`
/// replaced: one passed on becomes the function itself (a partial
/// application with the captured parameters in place), a call of one a
/// call of the function.
fn substitute(call: &mut Call, bound: &[(String, Passed, Vec<String>)]) {
    for arg in &mut call.args {
        let ExprKind::Var(n) = &arg.kind else {
            continue;
        };
        let Some((_, passed, names)) = bound.iter().find(|(p, _, _)| p == n) else {
            continue;
        };
        arg.kind = match &passed.holes {
            None => ExprKind::Var(passed.name.clone()),
            Some(holes) => {
                let hole = |k: u32| {
                    Expr::new(
                        ExprKind::Var("_".into()),
                        Span::new(arg.span.start + k, arg.span.start + k),
                    )
                };
                let filled: Vec<Expr> = (0..holes.iter().filter(|h| **h).count() as u32)
                    .map(hole)
                    .collect();
                ExprKind::Call {
                    callee: Ident {
                        name: passed.name.clone(),
                        span: Span::new(arg.span.start, arg.span.start),
                    },
                    args: with_captured(holes, filled, names, arg.span.start + holes.len() as u32),
                    kwargs: Vec::new(),
                    broadcast: false,
                }
            }
        };
    }
    if let Some((_, passed, names)) = bound.iter().find(|(p, _, _)| *p == call.callee.name) {
        call.callee.name = passed.name.clone();
        if let Some(holes) = &passed.holes {
            let args = std::mem::take(&mut call.args);
            call.args = with_captured(holes, args, names, call.callee.span.start);
        }
    }
}

/// The type parameters of both sides of a match: the passed function's
/// (bound to the template's types) and the template's (fixed by a concrete
/// function passed for them).
pub struct Fit<'a> {
    pub function_generics: &'a [String],
    pub function_map: Vec<(String, TypeKind)>,
    pub template_generics: &'a [String],
    pub template_map: Vec<(String, TypeKind)>,
}

fn bare_generic<'t>(ty: &'t Type, generics: &[String]) -> Option<&'t String> {
    match &ty.kind {
        TypeKind::Named { name, args } if args.is_empty() && generics.contains(name) => Some(name),
        _ => None,
    }
}

/// Whether `ty` names one of `generics`.
pub fn names_generic(ty: &Type, generics: &[String]) -> bool {
    match &ty.kind {
        TypeKind::Named { name, args } => {
            generics.contains(name) || args.iter().any(|a| names_generic(a, generics))
        }
        TypeKind::Slice(x) => names_generic(x, generics),
        TypeKind::Tuple(xs) => xs.iter().any(|x| names_generic(x, generics)),
    }
}

/// Whether two types are the same, wherever they are written.
pub fn same_type_kind(a: &TypeKind, b: &TypeKind) -> bool {
    match (a, b) {
        (TypeKind::Named { name: m, args: xs }, TypeKind::Named { name: n, args: ys }) => {
            m == n
                && xs.len() == ys.len()
                && xs
                    .iter()
                    .zip(ys)
                    .all(|(x, y)| same_type_kind(&x.kind, &y.kind))
        }
        (TypeKind::Slice(x), TypeKind::Slice(y)) => same_type_kind(&x.kind, &y.kind),
        (TypeKind::Tuple(xs), TypeKind::Tuple(ys)) => {
            xs.len() == ys.len()
                && xs
                    .iter()
                    .zip(ys)
                    .all(|(x, y)| same_type_kind(&x.kind, &y.kind))
        }
        _ => false,
    }
}

fn bind_once(map: &mut Vec<(String, TypeKind)>, name: &str, to: &TypeKind) -> bool {
    match map.iter().find(|(g, _)| g == name) {
        Some((_, bound)) => same_type_kind(bound, to),
        None => {
            map.push((name.to_string(), to.clone()));
            true
        }
    }
}

/// Matches a passed function's parameter type (`pattern`) against the
/// template's type in the same place (`actual`): the function's type
/// parameters bind to the template's types, and a template type parameter
/// met by a concrete type is fixed to it; `false` where the two differ
/// otherwise.
pub fn match_type(pattern: &Type, actual: &Type, fit: &mut Fit<'_>) -> bool {
    if let Some(name) = bare_generic(pattern, fit.function_generics) {
        return bind_once(&mut fit.function_map, name, &actual.kind);
    }
    if let Some(name) = bare_generic(actual, fit.template_generics) {
        return !names_generic(pattern, fit.function_generics)
            && bind_once(&mut fit.template_map, name, &pattern.kind);
    }
    match (&pattern.kind, &actual.kind) {
        (TypeKind::Named { name: a, args: xs }, TypeKind::Named { name: b, args: ys }) => {
            a == b && xs.len() == ys.len() && xs.iter().zip(ys).all(|(x, y)| match_type(x, y, fit))
        }
        (TypeKind::Slice(x), TypeKind::Slice(y)) => match_type(x, y, fit),
        (TypeKind::Tuple(xs), TypeKind::Tuple(ys)) => {
            xs.len() == ys.len() && xs.iter().zip(ys).all(|(x, y)| match_type(x, y, fit))
        }
        _ => false,
    }
}

/// `ty` with the type parameters `map` binds replaced; `None` when it
/// names one of `generics` that `map` does not bind.
pub fn substitute_type(ty: &Type, generics: &[String], map: &[(String, TypeKind)]) -> Option<Type> {
    let kind = match &ty.kind {
        TypeKind::Named { name, args } if args.is_empty() && generics.contains(name) => {
            map.iter().find(|(g, _)| g == name)?.1.clone()
        }
        TypeKind::Named { name, args } => TypeKind::Named {
            name: name.clone(),
            args: args
                .iter()
                .map(|a| substitute_type(a, generics, map))
                .collect::<Option<_>>()?,
        },
        TypeKind::Slice(x) => TypeKind::Slice(Box::new(substitute_type(x, generics, map)?)),
        TypeKind::Tuple(xs) => TypeKind::Tuple(
            xs.iter()
                .map(|x| substitute_type(x, generics, map))
                .collect::<Option<_>>()?,
        ),
    };
    Some(Type {
        kind,
        span: ty.span,
    })
}

/// How a function passed to a template fits the `Fn` parameter
/// (`fn_type`, the `Fn<A, B>` of the template, whose type parameters are
/// `template_generics`): its open parameters' types are matched against
/// the `Fn` type's. The result: the types (and `Const`-ness) of the values
/// it captures, in the template's type parameters, and the template type
/// parameters a concrete function fixes (`add!(y::f64, x::f64)` passed
/// for `Fn<T, T>` makes `T` an `f64`). `Err` with the reason when they do
/// not match or a captured type is left unbound.
pub fn fit_function(
    function: &Function,
    passed: &Passed,
    fn_type: &Type,
    template_generics: &[String],
) -> Result<FunctionFit, String> {
    let TypeKind::Named { args: fn_args, .. } = &fn_type.kind else {
        return Err("the parameter is not a function type".into());
    };
    let all_open = vec![true; function.params.len()];
    let holes = passed.holes.as_ref().unwrap_or(&all_open);
    if holes.len() != function.params.len() {
        return Err(format!(
            "`{}` takes {} arguments, and {} are given",
            function.name.name,
            function.params.len(),
            holes.len()
        ));
    }
    let generics: Vec<String> = function
        .generics
        .iter()
        .map(|g| g.name.name.clone())
        .collect();
    let mut fit = Fit {
        function_generics: &generics,
        function_map: Vec::new(),
        template_generics,
        template_map: Vec::new(),
    };
    let hole_params: Vec<&Param> = function
        .params
        .iter()
        .zip(holes)
        .filter(|(_, h)| **h)
        .map(|(p, _)| p)
        .collect();
    if hole_params.len() != fn_args.len() {
        return Err(format!(
            "it leaves {} parameters open, and the function parameter takes {}",
            hole_params.len(),
            fn_args.len()
        ));
    }
    for (p, want) in hole_params.iter().zip(fn_args) {
        let Some(ty) = &p.ty else {
            return Err(format!("`{}` has no type", p.name.name));
        };
        if !match_type(ty, want, &mut fit) {
            return Err(format!(
                "`{}` is not of the type the function parameter gives it",
                p.name.name
            ));
        }
    }
    let captured = function
        .params
        .iter()
        .zip(holes)
        .filter(|(_, h)| !**h)
        .map(|(p, _)| {
            let ty =
                p.ty.as_ref()
                    .ok_or_else(|| format!("`{}` has no type", p.name.name))?;
            let ty = substitute_type(ty, &generics, &fit.function_map).ok_or_else(|| {
                format!(
                    "the type of `{}` names a type parameter the open parameters do not fix",
                    p.name.name
                )
            })?;
            Ok((ty, p.constant))
        })
        .collect::<Result<_, String>>()?;
    Ok(FunctionFit {
        captured,
        fixes: fit.template_map,
    })
}

/// See [`fit_function`].
pub struct FunctionFit {
    pub captured: Vec<(Type, bool)>,
    pub fixes: Vec<(String, TypeKind)>,
}

/// An instance's tree with the template type parameters that the concrete
/// functions passed to it fix (`fixes`, from [`fit_function`]) replaced by
/// their types: in the parameters, in typecasts, and where the body names
/// the type (`zero(T)`); they are no longer type parameters of the
/// instance. `Err` where the body names one that is fixed to a type that
/// cannot be written there (only a type's name can: `zero(f64)`).
pub fn fix_generics(tree: &mut Function, fixes: &[(String, TypeKind)]) -> Result<(), String> {
    let names: Vec<String> = fixes.iter().map(|(g, _)| g.clone()).collect();
    // Every name in `names` is bound, so the substitution cannot fail.
    let fix = |ty: &Type| substitute_type(ty, &names, fixes).unwrap_or_else(|| ty.clone());
    let types = tree.params.iter_mut().map(|p| &mut p.ty);
    for t in types
        .chain(tree.kwparams.iter_mut().map(|p| &mut p.ty))
        .flatten()
    {
        *t = fix(t);
    }
    tree.generics.retain(|g| !names.contains(&g.name.name));
    let mut problem = None;
    crate::ast::walk_stmts_mut(&mut tree.body.stmts, &mut |stmt| {
        if let StmtKind::Typecast { from, to, .. } = &mut stmt.kind {
            *from = fix(from);
            *to = fix(to);
        }
        crate::ast::stmt_exprs_mut(stmt, &mut |e| {
            e.walk_mut(&mut |e| {
                let ExprKind::Var(name) = &e.kind else { return };
                let Some((g, kind)) = fixes.iter().find(|(g, _)| g == name) else {
                    return;
                };
                match kind {
                    TypeKind::Named { name, args } if args.is_empty() => {
                        e.kind = ExprKind::Var(name.clone());
                    }
                    _ => {
                        problem.get_or_insert_with(|| {
                            format!(
                                "its body names `{g}`, which the function passed makes a `{}`: pass a function generic in `{g}`",
                                crate::printer::print_type(&Type {
                                    kind: kind.clone(),
                                    span: e.span,
                                })
                            )
                        });
                    }
                }
            })
        });
    });
    problem.map_or(Ok(()), Err)
}

//! Reverse-mode differentiation without a tape.
//!
//! For each function `f` three more Rust functions are generated:
//! - `f_adjoint`: the reverse pass. It runs the inverse of `f` (which
//!   recovers every intermediate value by uncomputing) and, before each
//!   statement, applies that statement's adjoint rule: the adjoints of the
//!   values the statement's forward version read are increased by the
//!   adjoint of what it wrote times the local derivative;
//! - `uncall_f_adjoint`: the same for `~f`, so that adjoints pass through
//!   `~g(...)` calls;
//! - `f_grad`: `f` then `f_adjoint`: with the adjoint of the loss argument
//!   seeded (1 in its `_bar`, 0 elsewhere), it leaves the inputs restored and
//!   each `_bar` holding the derivative of the loss with respect to that input.
//!
//! Every differentiable parameter `x` (a float, a type parameter, a complex
//! number, or an array or matrix of them, a CSC matrix's values) is followed
//! by its adjoint `x_bar`, of type `G: nilang::Adjoint<T>`: `T` itself for a
//! gradient, `[T; N]` for `N` adjoints in one sweep (a Jacobian). Ancillas get
//! an adjoint next to them, dropped with them (the paper's theorem 1: the
//! adjoint of a value restored to a constant carries nothing).
//!
//! The local derivatives of an instruction's right-hand side are derived from
//! its expression tree (products, quotients, powers and the elementary
//! functions), so `y += a * b / c` needs no table entry per shape. A
//! construct the rules do not cover makes the adjoint function return
//! `Err` (check `NotDifferentiable`) naming the `.nil` location, rather than
//! breaking the build of code that is never differentiated.

use super::*;
use crate::builtins::Factor;

/// A chain of local derivatives as a Wirtinger pair `(a, b)`:
/// `d root = a d node + b conj(d node)`; `None` is the identity.
type Wirt = Option<(String, Option<String>)>;

/// Settings of an adjoint function being generated.
pub(super) struct AdMode {
    /// The scalar type of `G: nilang::Adjoint<scalar>`.
    pub scalar: String,
    pub doc: String,
    /// Lines that replace the body (the `_grad` wrapper, or an error).
    pub body: Option<Vec<String>>,
}

pub(super) fn adjoint_name(name: &str) -> String {
    format!("{}_adjoint", rust_name(name).trim_start_matches("r#"))
}

pub(super) fn uncall_adjoint_name(name: &str) -> String {
    format!("{}_adjoint", uncall_name(name))
}

fn grad_name(name: &str) -> String {
    format!("{}_grad", rust_name(name).trim_start_matches("r#"))
}

pub(super) fn bar_name(name: &str) -> String {
    format!("{}_bar", rust_name(name).trim_start_matches("r#"))
}

/// Whether values of this kind carry a derivative.
pub(super) fn differentiable(kind: &Kind) -> bool {
    match kind {
        Kind::Float(_) | Kind::Generic(_) => true,
        Kind::Complex(inner) => differentiable(inner),
        // The adjoint of a log number is that of its logarithm (numbers.rs).
        Kind::ULog(inner) => differentiable(inner),
        // A struct carries derivatives in its fields typed by its parameters.
        Kind::Struct { fields, .. } => fields.iter().any(|(_, k, g)| *g && differentiable(k)),
        _ => false,
    }
}

/// The type of the adjoint parameter of a parameter of this kind.
pub(super) fn bar_param_type(kind: &Kind) -> Option<String> {
    match kind {
        k if differentiable(k) => Some(match k {
            Kind::Complex(_) => "&mut nilang::Complex<G>".into(),
            Kind::Struct { .. } => format!("&mut {}", super::structs::bar_type(k)?),
            _ => "&mut G".into(),
        }),
        Kind::Array(inner) | Kind::Csc(inner) if differentiable(inner) => Some(match **inner {
            Kind::Complex(_) => "&mut [nilang::Complex<G>]".into(),
            Kind::Struct { .. } => format!("&mut [{}]", super::structs::bar_type(inner)?),
            _ => "&mut [G]".into(),
        }),
        Kind::Matrix(inner) if differentiable(inner) => {
            Some("nilang::ndarray::ArrayViewMut2<'_, G>".into())
        }
        // The adjoints of a stack's values, in a stack of the same length.
        Kind::Stack(inner) if differentiable(inner) => Some(match **inner {
            Kind::Complex(_) => "&mut nilang::Stack<nilang::Complex<G>>".into(),
            _ => "&mut nilang::Stack<G>".into(),
        }),
        _ => None,
    }
}

pub(super) fn generate(g: &mut Gen<'_>, f: &Function, forward: &Function, backward: &Function) {
    let scalar = adjoint_scalar(f);
    let name = rust_name(&f.name.name);
    let has_bars = f.params.iter().any(|p| {
        g.resolution
            .def_at(p.name.span)
            .is_some_and(|id| bar_param_type(&kind_of(&g.types.defs[id])).is_some())
    });
    if !has_bars {
        // Nothing differentiable goes in or out: callers use the inverse.
        return;
    }
    let passes = [
        (
            backward,
            adjoint_name(&f.name.name),
            format!(
                "Reverse pass of [`{name}`]: takes its outputs and their adjoints, runs\n\
                 its inverse, and leaves its inputs and their adjoints."
            ),
        ),
        (
            forward,
            uncall_adjoint_name(&f.name.name),
            format!("Reverse pass of [`{}`].", uncall_name(&f.name.name)),
        ),
    ];
    let primitive = match &f.primitive {
        Some(d) => match primitive_bodies(g, f, d) {
            Some(bodies) => Some(bodies),
            // Reported; no reverse pass without derivatives.
            None => return,
        },
        None => None,
    };
    let mut reverse_ok = false;
    // Why `uncall_f_adjoint` could not be generated: its location and
    // message (`uncall_f_grad` of a function that records reports it).
    let mut uncall_problem: Option<(String, String)> = None;
    for (i, (program, fn_name, doc)) in passes.into_iter().enumerate() {
        if let Some(bodies) = &primitive {
            g.ad = Some(AdMode {
                scalar: scalar.clone(),
                doc: format!(
                    "{doc}\nA primitive: its derivatives come from [`{}`].",
                    rust_name(&f.primitive.as_ref().expect("primitive").name)
                ),
                body: Some(bodies[i].clone()),
            });
            g.out.push('\n');
            g.function(program, &fn_name, false);
            continue;
        }
        let saved_out = std::mem::take(&mut g.out);
        let saved_diagnostics = std::mem::take(&mut g.diagnostics);
        g.ad = Some(AdMode {
            scalar: scalar.clone(),
            doc: doc.clone(),
            body: None,
        });
        g.function(program, &fn_name, false);
        let code = std::mem::replace(&mut g.out, saved_out);
        let problems = std::mem::replace(&mut g.diagnostics, saved_diagnostics);
        g.out.push('\n');
        if let Some(problem) = problems.first() {
            // The same signature, with a body that reports the problem.
            let location = g.location(problem.primary.span);
            let what = format!("cannot differentiate: {}", problem.message);
            if i == 1 {
                uncall_problem = Some((location.clone(), problem.message.clone()));
            }
            g.ad = Some(AdMode {
                scalar: scalar.clone(),
                doc,
                body: Some(vec![format!(
                    "Err(nilang::Error::new({location}, nilang::Check::NotDifferentiable, {what:?}, \"an adjoint rule\", \"none\"))"
                )]),
            });
            g.function(program, &fn_name, false);
        } else {
            g.out.push_str(&code);
            reverse_ok |= i == 0;
        }
    }
    if f.kernel {
        // A kernel's gradient runs per index: launch `f`, then `f_adjoint`.
        g.ad = None;
        return;
    }
    // `f_grad`: forward, then the reverse pass.
    let mut values = Vec::new();
    let mut with_bars = Vec::new();
    for (p, arg) in f.params.iter().zip(param_args(g, f)) {
        let ParamArg { kind, value, .. } = arg;
        values.push(value.clone());
        with_bars.push(value);
        if bar_param_type(&kind).is_some() {
            let b = bar_name(&p.name.name);
            with_bars.push(match kind {
                Kind::Matrix(_) => format!("{b}.view_mut()"),
                _ => format!("&mut *{b}"),
            });
        }
    }
    for kw in &f.kwparams {
        values.push(rust_name(&kw.name.name));
        with_bars.push(rust_name(&kw.name.name));
    }
    // A function that records needs its forward run: it fills the tape.
    let skipped = if reverse_ok && primitive.is_none() && !g.any_tape {
        skip_forward(g, forward, &with_bars)
    } else {
        None
    };
    let (skipped, accumulating) = match skipped {
        Some((body, ids)) => (Some(body), ids),
        None => (None, None),
    };
    let reverse_fn = match accumulating {
        Some(_) => format!("{}_accumulating", adjoint_name(&f.name.name)),
        None => adjoint_name(&f.name.name),
    };
    if let Some(ids) = accumulating {
        g.ad = Some(AdMode {
            scalar: scalar.clone(),
            doc: format!(
                "Reverse pass of [`{name}`] for [`{}`]: [`{}`] without the\n\
                 updates of the values `{}` only adds to (no adjoint rule reads\n\
                 them), which therefore keep the values they came in with.",
                grad_name(&f.name.name),
                adjoint_name(&f.name.name),
                f.name.name
            ),
            body: None,
        });
        g.skip_values = ids;
        g.out.push('\n');
        g.function(backward, &reverse_fn, false);
        g.skip_values.clear();
    }
    let fused = if reverse_ok && primitive.is_none() && !g.any_tape && skipped.is_none() {
        fused_gradient(g, &scalar, forward, backward)
    } else {
        None
    };
    let how = if skipped.is_some() {
        format!(
            "runs the reverse pass [`{reverse_fn}`] from the inputs: `{}` only adds to\n\
             what it changes and never reads it, so its reverse pass sees the state\n\
             it would see after `{}`, except for those values, which no adjoint rule\n\
             reads; {}",
            f.name.name,
            f.name.name,
            if reverse_fn.ends_with("_accumulating") {
                "that pass leaves them alone"
            } else {
                "they are set back afterwards"
            }
        )
    } else if fused.is_some() {
        format!(
            "runs it up to its final `~@routine`, then the\n\
             rest of [`{}`] (the state there is the one that pass reaches\n\
             after undoing the end of `{}`)",
            adjoint_name(&f.name.name),
            f.name.name
        )
    } else {
        format!("runs it, then [`{}`]", adjoint_name(&f.name.name))
    };
    g.ad = Some(AdMode {
        scalar,
        doc: format!(
            "Gradient of [`{name}`]: {how}. Seed the adjoint of the\n\
             loss argument (1 in its `_bar`, 0 in the others) before the call; after it\n\
             the arguments hold their inputs again and each `_bar` the derivative of\n\
             the loss with respect to that input (added to what it held)."
        ),
        body: Some(skipped.or(fused).unwrap_or_else(|| {
            if g.tape_param {
                // The tape `f` records and the reverse pass reads back,
                // dropped on return.
                vec![
                    "let mut __tape = nilang::Tape::new();".to_string(),
                    format!("{name}({}, &mut __tape)?;", values.join(", ")),
                    format!(
                        "{}({}, &mut __tape)",
                        adjoint_name(&f.name.name),
                        with_bars.join(", ")
                    ),
                ]
            } else {
                vec![
                    format!("{name}({})?;", values.join(", ")),
                    format!("{}({})", adjoint_name(&f.name.name), with_bars.join(", ")),
                ]
            }
        })),
    });
    g.out.push('\n');
    let tape_param = std::mem::replace(&mut g.tape_param, false);
    g.function(forward, &grad_name(&f.name.name), false);
    if tape_param {
        uncall_grad_taped(g, f, forward, &values, &with_bars, uncall_problem);
        g.tape_param = true;
        g.ad = None;
        return;
    }
    // `uncall_f_grad`: the gradient program backwards. `uncall_f_adjoint`
    // (the reverse pass of `~f`: it runs `f` forwards) is also the inverse of
    // `f_adjoint`: both apply the transposed Jacobian of `f`'s inverse,
    // statement by statement. It leaves `f`'s outputs, which `~f` undoes.
    g.ad = Some(AdMode {
        scalar: g.ad.as_ref().map(|a| a.scalar.clone()).unwrap_or_default(),
        doc: format!(
            "Undoes [`{}`]: from the restored arguments and the adjoints it\n\
             left, gives back the adjoints as they were seeded (the gradient\n\
             removed) with the arguments unchanged.",
            grad_name(&f.name.name)
        ),
        body: Some(vec![
            format!(
                "{}({})?;",
                uncall_adjoint_name(&f.name.name),
                with_bars.join(", ")
            ),
            format!("{}({})", uncall_name(&f.name.name), values.join(", ")),
        ]),
    });
    g.out.push('\n');
    g.function(
        forward,
        &format!("uncall_{}", grad_name(&f.name.name)),
        false,
    );
    g.ad = None;
}

/// `uncall_f_grad` of a function `f` that records (takes a tape). The tape
/// `f_grad` used is gone, so it is made again: `uncall_f_adjoint`, the
/// inverse of `f_adjoint`, runs `f` forwards from the restored inputs,
/// recording into a fresh tape what `f` records, while it takes the
/// gradient back out of the adjoints; `~f` then reads that tape back to
/// the inputs. When `uncall_f_adjoint` cannot be generated (an overwrite
/// `y = e` in a tape loop: its adjoint rule replaces ȳ by what y's old
/// value contributes, so the seed in ȳ is not a function of what is left;
/// `*=` and `/=` are undone by dividing by their factor), `uncall_f_grad`
/// returns that error and changes nothing.
fn uncall_grad_taped(
    g: &mut Gen<'_>,
    f: &Function,
    forward: &Function,
    values: &[String],
    with_bars: &[String],
    problem: Option<(String, String)>,
) {
    let name = &f.name.name;
    let body = match problem {
        None => vec![
            "let mut __tape = nilang::Tape::new();".to_string(),
            format!(
                "{}({}, &mut __tape)?;",
                uncall_adjoint_name(name),
                with_bars.join(", ")
            ),
            format!("{}({}, &mut __tape)", uncall_name(name), values.join(", ")),
        ],
        Some((location, message)) => {
            let what = if message.contains("overwrite") {
                format!(
                    "cannot undo the gradient of `{name}`: the reverse pass of this overwrite `=` in a tape loop replaces the adjoint of what it overwrites by what the old value contributed, so the seed that adjoint held is not a function of what `{}` leaves",
                    grad_name(name)
                )
            } else {
                format!("cannot undo the gradient of `{name}`: {message}")
            };
            vec![format!(
                "Err(nilang::Error::new({location}, nilang::Check::NotDifferentiable, {what:?}, \"an invertible reverse pass\", \"none\"))"
            )]
        }
    };
    g.ad = Some(AdMode {
        scalar: g.ad.as_ref().map(|a| a.scalar.clone()).unwrap_or_default(),
        doc: format!(
            "Undoes [`{}`]: from the restored arguments and the adjoints it\n\
             left, gives back the adjoints as they were seeded (the gradient\n\
             removed) with the arguments unchanged. `{name}` records a tape, so\n\
             this runs it forwards once more (with the reverse pass undone\n\
             alongside) to record a fresh one, then uncalls it with that tape.",
            grad_name(name)
        ),
        body: Some(body),
    });
    g.out.push('\n');
    g.function(forward, &format!("uncall_{}", grad_name(name)), false);
}

/// The body of `f_grad` without `f`'s forward run, when nothing but the
/// values of the parameters it accumulates into depends on it: `f` changes
/// only parameters that it never reads (every write to them is `+=` or `-=`
/// of a value that does not mention them, or passes them to a callee that
/// does the same), and has no `@safe` statement. Its ancillas end as they
/// began and its other parameters are read-only, so its reverse pass,
/// started from the inputs, sees the state it would see after `f` except
/// for those accumulators, and no adjoint rule reads them. The reverse pass
/// then leaves them at their inputs minus `f`'s contribution; they are saved
/// before and set back after. For a loss `out += L(x)` written with
/// compute-copy-uncompute inside loops this removes a third of the work.
fn skip_forward(
    g: &Gen<'_>,
    forward: &Function,
    with_bars: &[String],
) -> Option<(Vec<String>, Option<Vec<usize>>)> {
    // One walk: whether `f` has a `@safe` statement, and which variables
    // its calls are given.
    let (mut safe, mut call_args) = (false, Vec::new());
    crate::effects::visit_block(&forward.body, &mut |s| match &s.kind {
        StmtKind::Safe(_) => safe = true,
        StmtKind::Call(call) => call_args.extend(
            call.args
                .iter()
                .filter_map(|a| a.root_var().and_then(|(_, span)| g.resolution.def_at(span))),
        ),
        _ => {}
    });
    if safe || forward.kernel {
        return None;
    }
    let args = param_args(g, forward);
    let (mut save, mut restore, mut ids) = (Vec::new(), Vec::new(), Vec::new());
    for (i, (p, arg)) in forward.params.iter().zip(&args).enumerate() {
        if !arg.mutated {
            continue;
        }
        let id = g.resolution.def_at(p.name.span)?;
        if !accumulate_only(forward, g.resolution, id, g.ctx, 0) {
            return None;
        }
        ids.push(id);
        let name = rust_name(&p.name.name);
        let saved = format!("__saved_{i}");
        match &arg.kind {
            Kind::Array(_) => {
                save.push(format!("let {saved} = {name}.to_vec();"));
                restore.push(format!("{name}.copy_from_slice(&{saved});"));
            }
            k if k.is_scalar_like() => {
                save.push(format!("let {saved} = *{name};"));
                restore.push(format!("*{name} = {saved};"));
            }
            _ => return None,
        }
    }
    if save.is_empty() {
        return None;
    }
    // When only `f`'s own instructions write the accumulators (no call gets
    // one), a copy of the reverse pass that leaves out their value updates
    // (`f_adjoint_accumulating`) keeps them at their inputs: nothing to
    // save, nothing to set back, and one instruction less per update.
    let passed = ids.iter().any(|id| call_args.contains(id));
    if !passed {
        let body = vec![format!(
            "{}_accumulating({})",
            adjoint_name(&forward.name.name),
            with_bars.join(", ")
        )];
        return Some((body, Some(ids)));
    }
    let mut body = save;
    body.push(format!(
        "{}({})?;",
        adjoint_name(&forward.name.name),
        with_bars.join(", ")
    ));
    body.extend(restore);
    body.push("Ok(())".to_string());
    Some((body, None))
}

/// Whether the parameter `id` of `f` is only accumulated into: every
/// instruction that writes it is `+=` or `-=` of a value that does not
/// mention it, every call that gets it passes it once, as a place, to a
/// parameter of a `.nil` callee that is itself only accumulated into, and
/// nothing else mentions it.
fn accumulate_only(
    f: &Function,
    resolution: &Resolution,
    id: usize,
    ctx: &dyn CodegenContext,
    depth: usize,
) -> bool {
    if depth > 8 {
        return false;
    }
    let mentions = |e: &Expr| {
        let mut n = 0;
        e.walk(&mut |x| {
            if let ExprKind::Var(_) = x.kind
                && resolution.def_at(x.span) == Some(id)
            {
                n += 1;
            }
        });
        n
    };
    // A place rooted at the parameter, which it mentions only there.
    let place = |e: &Expr| {
        e.root_var()
            .is_some_and(|(_, span)| resolution.def_at(span) == Some(id))
            && mentions(e) == 1
    };
    let mut ok = true;
    for stmt in &f.body.stmts {
        crate::effects::visit_stmt(stmt, &mut |s| match &s.kind {
            StmtKind::Instr {
                target, op, value, ..
            } => {
                ok &= if place(target) {
                    matches!(op, InstrOp::Add | InstrOp::Sub) && mentions(value) == 0
                } else {
                    mentions(target) + mentions(value) == 0
                };
            }
            StmtKind::Call(call) => {
                ok &= call.kwargs.iter().all(|k| mentions(&k.value) == 0);
                let at: Vec<usize> = (0..call.args.len())
                    .filter(|&i| mentions(&call.args[i]) > 0)
                    .collect();
                match at[..] {
                    [] => {}
                    [i] if place(&call.args[i])
                        && crate::builtins::instruction(&call.callee.name).is_none() =>
                    {
                        ok &= ctx.callee_body(&call.callee.name).is_some_and(|c| {
                            c.mutated.get(i).copied().unwrap_or(false)
                                && c.function.params.get(i).is_some_and(|q| {
                                    c.resolution.def_at(q.name.span).is_some_and(|q| {
                                        accumulate_only(
                                            &c.function,
                                            &c.resolution,
                                            q,
                                            ctx,
                                            depth + 1,
                                        )
                                    })
                                })
                        });
                    }
                    _ => ok = false,
                }
            }
            _ => super::stmt_exprs(s, &mut |e| ok &= mentions(e) == 0),
        });
    }
    ok
}

/// The body of `f_grad` without the work that `f`'s end and the reverse
/// pass's beginning undo in turn, when `f` (with its deallocations written
/// out) is `P; @routine R; B; ~@routine; D` with only deallocations in `D`.
/// The reverse pass (the inverse `~D; R; ~B; ~R; ~P`) reaches, after `~D;
/// R`, the state that the forward reaches after `P; R; B`. So `f_grad` runs
/// `P; R; B` as plain code (allocating the ancillas' adjoints) and then the
/// reverse pass from `~B` on, instead of `f` whole and the reverse pass
/// whole: that saves running `R` twice, the forward's uncomputation and a
/// plain recomputation. `R` must be able to run plainly in the reverse pass
/// ([`Gen::plain_routine`]); `None` when it cannot or `f` has another shape.
fn fused_gradient(
    g: &mut Gen<'_>,
    scalar: &str,
    forward: &Function,
    backward: &Function,
) -> Option<Vec<String>> {
    let fs = &forward.body.stmts;
    let end = fs
        .iter()
        .rposition(|s| !matches!(s.kind, StmtKind::Dealloc { .. }))?;
    if !matches!(fs[end].kind, StmtKind::Unroutine) {
        return None;
    }
    let at = routine_pairs(fs).iter().position(|p| *p == Some(end))?;
    let StmtKind::Routine(inner) = &fs[at].kind else {
        return None;
    };
    // The reverse pass: `~D` (allocations), then the same routine.
    let bs = &backward.body.stmts;
    let b = bs
        .iter()
        .position(|s| !matches!(s.kind, StmtKind::Alloc { .. }))?;
    let b_end = routine_pairs(bs)[b]?;
    if bs[b] != fs[at] {
        return None;
    }
    let saved_out = std::mem::take(&mut g.out);
    let saved_diagnostics = std::mem::take(&mut g.diagnostics);
    let saved_level = std::mem::replace(&mut g.level, 0);
    let saved_ad = g.ad.replace(AdMode {
        scalar: scalar.to_string(),
        doc: String::new(),
        body: None,
    });
    // Typecasts: the kinds start over, as in a function of its own.
    g.casts.clear();
    let plan = g.plain_routine(fs, at, end, inner);
    if let Some((save, restore)) = plan {
        g.plain = true;
        g.block(&fs[..at]);
        for l in save {
            g.line(&l);
        }
        g.stmt(&fs[at]);
        g.block(&fs[at + 1..end]);
        g.plain = false;
        g.block_from(bs, b + 1, vec![(b_end, restore)]);
        g.line("Ok(())");
    }
    let code = std::mem::replace(&mut g.out, saved_out);
    let problems = std::mem::replace(&mut g.diagnostics, saved_diagnostics);
    g.level = saved_level;
    g.ad = saved_ad;
    (!code.is_empty() && problems.is_empty()).then(|| code.lines().map(str::to_string).collect())
}

/// A parameter of the function being generated, as its own body passes it
/// on to a call: its kind, whether the function changes it, and the Rust
/// argument (`&mut *x`, `x`, `A.view()`, ...).
struct ParamArg {
    kind: Kind,
    mutated: bool,
    value: String,
}

fn param_args(g: &Gen<'_>, f: &Function) -> Vec<ParamArg> {
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

/// The scalar type of `f`'s adjoints: its first type parameter, or f64.
fn adjoint_scalar(f: &Function) -> String {
    f.generics
        .first()
        .map(|t| t.name.name.clone())
        .unwrap_or_else(|| "f64".into())
}

/// The two reverse passes of `@primitive(d) function f`, from `d`'s
/// derivatives. `f` must add to each changed parameter a function of the
/// parameters it only reads (`y += h(x)`), so that the adjoint of `y` passes
/// unchanged and each read `x` gets `ȳ ∂h/∂x`. `d` receives one zeroed
/// accumulator per (changed, read) pair of differentiable scalars, changed
/// parameters first, then `f`'s read parameters, and adds `∂h/∂x` to each.
fn primitive_bodies(g: &mut Gen<'_>, f: &Function, d: &Ident) -> Option<[Vec<String>; 2]> {
    let sig = g.ctx.callee(&d.name)?;
    let scalar = adjoint_scalar(f);
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
        if bar_param_type(&kind).is_some() && !matches!(kind, Kind::Float(_) | Kind::Generic(_)) {
            g.diagnostics.push(
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
            return None;
        }
        let differentiable = matches!(kind, Kind::Float(_) | Kind::Generic(_));
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
    let expected = pairs.len() + reads.len();
    if sig.params.len() != expected {
        g.diagnostics.push(
            Diagnostic::error(
                "E0108",
                d.span,
                format!(
                    "`{}` takes {} arguments, but the primitive `{}` passes it {expected}",
                    d.name,
                    sig.params.len(),
                    f.name.name
                ),
            )
            .with_label("derivatives of this primitive")
            .with_help(format!(
                "give `{}` one parameter per (changed, read) pair of real parameters ({}), then the read parameters of `{}` ({})",
                d.name,
                pairs.len(),
                f.name.name,
                reads.len()
            )),
        );
        return None;
    }
    let path = match &sig.module {
        Some(m) => format!("super::{}::{}", rust_name(m), rust_name(&d.name)),
        None => rust_name(&d.name),
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
        uncall_name(&f.name.name),
        values.join(", ")
    ));
    // `uncall_f_adjoint` undoes `y -= h(x)`: x̄ -= ȳ h'; then runs `f`.
    let mut forward = common;
    forward.extend(rules("-"));
    forward.push(format!(
        "{}({})",
        rust_name(&f.name.name),
        values.join(", ")
    ));
    Some([backward, forward])
}

/// What the local-derivative rules ([`push_partials`]) need from a backend:
/// the Rust backend and the WGSL backend ([`super::wgsl`]) each render the
/// same derivatives in their own syntax.
pub(super) trait Deriv {
    fn one(&mut self) -> String;
    /// Whether a place read by an expression carries a derivative (a
    /// complex one is reported as not supported, and is not one).
    fn leaf(&mut self, e: &Expr) -> bool;
    /// Whether an operand is a complex number (reported, not supported).
    fn complex_operand(&mut self, e: &Expr) -> bool;
    fn is_int(&mut self, e: &Expr) -> bool;
    /// An operand's value in the adjoint scalar type.
    fn value(&mut self, e: &Expr) -> String;
    /// An integer exponent: its code as an integer and as a float.
    fn int_exponent(&mut self, e: &Expr) -> (String, String);
    /// `f(v)` for an elementary function named as `nilang::Real` names it.
    fn real_fn(&mut self, f: &str, v: &str) -> String;
    fn powi(&mut self, x: &str, n: &str) -> String;
    fn powf(&mut self, x: &str, p: &str) -> String;
    /// One if `a cmp b`, else zero (`yes`), or the other way round.
    fn pick(&mut self, a: &str, cmp: &str, b: &str, yes: bool) -> String;
    fn unsupported(&mut self, span: Span, what: &str);
}

impl Deriv for Gen<'_> {
    fn one(&mut self) -> String {
        self.ad_one()
    }

    fn leaf(&mut self, e: &Expr) -> bool {
        let kind = self.operand_kind(e);
        if matches!(kind, Kind::Complex(_)) {
            Gen::unsupported(self, e.span, "differentiating complex arithmetic");
            false
        } else {
            differentiable(&kind)
        }
    }

    fn complex_operand(&mut self, e: &Expr) -> bool {
        let complex = matches!(self.operand_kind(e), Kind::Complex(_));
        if complex {
            Gen::unsupported(self, e.span, "differentiating complex arithmetic");
        }
        complex
    }

    fn is_int(&mut self, e: &Expr) -> bool {
        matches!(self.operand_kind(e), Kind::Int(_))
    }

    fn value(&mut self, e: &Expr) -> String {
        let k = self.ad_kind();
        self.value_as(e, &k)
    }

    fn int_exponent(&mut self, e: &Expr) -> (String, String) {
        let k = self.ad_kind();
        let n = self.value_as(e, &Kind::Int("i64"));
        let nk = convert(format!("({n})"), &Kind::Int("i64"), &k);
        (n, nk)
    }

    fn real_fn(&mut self, f: &str, v: &str) -> String {
        format!("nilang::Real::{f}({v})")
    }

    fn powi(&mut self, x: &str, n: &str) -> String {
        format!("nilang::Real::powi({x}, {n})")
    }

    fn powf(&mut self, x: &str, p: &str) -> String {
        format!("nilang::Real::powf({x}, {p})")
    }

    fn pick(&mut self, a: &str, cmp: &str, b: &str, yes: bool) -> String {
        let one = self.ad_one();
        let zero = format!("nilang::zero::<{}>()", self.ad_scalar());
        let (t, f) = if yes { (one, zero) } else { (zero, one) };
        format!("(if {a} {cmp} {b} {{ {t} }} else {{ {f} }})")
    }

    fn unsupported(&mut self, span: Span, what: &str) {
        Gen::unsupported(self, span, what)
    }
}

/// Pushes the local derivatives of `e` times `mult` onto `out`: one entry
/// per place read (a place read twice gets two entries).
pub(super) fn push_partials<D: Deriv + ?Sized>(
    d: &mut D,
    e: &Expr,
    mult: Option<String>,
    out: &mut Vec<(Expr, String)>,
) {
    let one = d.one();
    let times = |m: &Option<String>, code: String| match m {
        None => code,
        Some(m) => format!("({m} * {code})"),
    };
    let negate = |m: &Option<String>| match m {
        None => Some(format!("(-{one})")),
        Some(m) => Some(format!("(-{m})")),
    };
    match &e.kind {
        ExprKind::Var(_) | ExprKind::Index { .. } | ExprKind::Field { .. } => {
            if d.leaf(e) {
                out.push((e.clone(), mult.unwrap_or(one)));
            }
        }
        ExprKind::Paren(inner) => push_partials(d, inner, mult, out),
        ExprKind::Adjoint(inner) => push_partials(d, inner, mult, out),
        ExprKind::Unary { op, operand } => match op {
            UnaryOp::Neg => push_partials(d, operand, negate(&mult), out),
            UnaryOp::Plus => push_partials(d, operand, mult, out),
            UnaryOp::Not => {}
        },
        ExprKind::Binary { op, lhs, rhs } => {
            use BinaryOp::*;
            // The element-wise operators of a broadcast, element by element.
            match op.scalar() {
                Add => {
                    push_partials(d, lhs, mult.clone(), out);
                    push_partials(d, rhs, mult, out);
                }
                Sub => {
                    push_partials(d, lhs, mult.clone(), out);
                    push_partials(d, rhs, negate(&mult), out);
                }
                Mul => {
                    let l = d.value(lhs);
                    let r = d.value(rhs);
                    push_partials(d, lhs, Some(times(&mult, r)), out);
                    push_partials(d, rhs, Some(times(&mult, l)), out);
                }
                Div => {
                    let l = d.value(lhs);
                    let r = d.value(rhs);
                    push_partials(d, lhs, Some(times(&mult, format!("({one} / {r})"))), out);
                    push_partials(
                        d,
                        rhs,
                        Some(times(&mult, format!("(-({l}) / (({r}) * ({r})))"))),
                        out,
                    );
                }
                Rem => push_partials(d, lhs, mult, out),
                Pow => {
                    let int = d.is_int(rhs);
                    let l = d.value(lhs);
                    if int {
                        let (n, nk) = d.int_exponent(rhs);
                        let p = d.powi(&l, &format!("({n}) - 1"));
                        push_partials(d, lhs, Some(times(&mult, format!("({nk} * {p})"))), out);
                    } else {
                        let p = d.value(rhs);
                        let pl = d.powf(&l, &format!("{p} - {one}"));
                        push_partials(d, lhs, Some(times(&mult, format!("({p} * {pl})"))), out);
                        let ln = d.real_fn("ln", &l);
                        let pw = d.powf(&l, &p);
                        push_partials(d, rhs, Some(times(&mult, format!("({ln} * {pw})"))), out);
                    }
                }
                // Comparisons, logic, integer division: no derivative.
                _ => {}
            }
        }
        ExprKind::Call { callee, args, .. } => call_partials(d, &callee.name, args, e, mult, out),
        ExprKind::Int(_) | ExprKind::Float(_) | ExprKind::Bool(_) | ExprKind::Str(_) => {}
        _ => d.unsupported(e.span, "differentiating this expression"),
    }
}

fn call_partials<D: Deriv + ?Sized>(
    d: &mut D,
    name: &str,
    args: &[Expr],
    e: &Expr,
    mult: Option<String>,
    out: &mut Vec<(Expr, String)>,
) {
    let one = d.one();
    let times = |code: String| match &mult {
        None => code,
        Some(m) => format!("({m} * {code})"),
    };
    if matches!(
        name,
        "zero"
            | "one"
            | "zeros"
            | "length"
            | "size"
            | "nnz"
            | "global_index"
            | "fixed"
            | "float"
            | "tropical"
    ) {
        // Shapes, constants and indices carry no derivative.
        return;
    }
    if let [x] = args
        && d.complex_operand(x)
    {
        return;
    }
    match (name, args) {
        ("identity" | "value" | "unwrap" | "real" | "conj", [x]) => push_partials(d, x, mult, out),
        ("atan", [y, x]) => {
            let yv = d.value(y);
            let xv = d.value(x);
            let q = format!("(({xv}) * ({xv}) + ({yv}) * ({yv}))");
            push_partials(d, y, Some(times(format!("(({xv}) / {q})"))), out);
            push_partials(d, x, Some(times(format!("(-({yv}) / {q})"))), out);
        }
        // The Gaussian logarithm r = ln(e^a ± e^b): dr/da = e^(a - r),
        // dr/db = ±e^(b - r).
        ("logaddexp" | "logsubexp", [a, b]) => {
            let av = d.value(a);
            let bv = d.value(b);
            let rv = d.value(e);
            let da = d.real_fn("exp", &format!("({av} - {rv})"));
            let db = d.real_fn("exp", &format!("({bv} - {rv})"));
            let db = if name == "logaddexp" {
                db
            } else {
                format!("(-{db})")
            };
            push_partials(d, a, Some(times(da)), out);
            push_partials(d, b, Some(times(db)), out);
        }
        ("min" | "max", [a, b]) => {
            let av = d.value(a);
            let bv = d.value(b);
            let cmp = if name == "min" { "<=" } else { ">=" };
            let pick_a = d.pick(&av, cmp, &bv, true);
            let pick_b = d.pick(&av, cmp, &bv, false);
            push_partials(d, a, Some(times(pick_a)), out);
            push_partials(d, b, Some(times(pick_b)), out);
        }
        (f, [x]) => {
            let v = d.value(x);
            let r = |d: &mut D, m: &str| d.real_fn(m, &v);
            let q = match f {
                "abs" => r(d, "signum"),
                "abs2" => format!("(({one} + {one}) * {v})"),
                "sqrt" => format!("({one} / (({one} + {one}) * {}))", r(d, "sqrt")),
                "exp" => r(d, "exp"),
                "log" => format!("({one} / {v})"),
                "sin" => r(d, "cos"),
                "cos" => format!("(-{})", r(d, "sin")),
                "tan" => format!("({one} + {t} * {t})", t = r(d, "tan")),
                "sinh" => r(d, "cosh"),
                "cosh" => r(d, "sinh"),
                "tanh" => format!("({one} - {t} * {t})", t = r(d, "tanh")),
                "asin" => format!(
                    "({one} / {})",
                    d.real_fn("sqrt", &format!("{one} - {v} * {v}"))
                ),
                "acos" => format!(
                    "(-{one} / {})",
                    d.real_fn("sqrt", &format!("{one} - {v} * {v}"))
                ),
                "atan" => format!("({one} / ({one} + {v} * {v}))"),
                "inv" => format!("(-{one} / ({v} * {v}))"),
                "sign" | "floor" | "ceil" | "round" => return,
                _ => {
                    d.unsupported(e.span, &format!("an adjoint rule for `{f}`"));
                    return;
                }
            };
            push_partials(d, x, Some(times(q)), out);
        }
        _ => d.unsupported(e.span, &format!("an adjoint rule for `{name}`")),
    }
}

impl Gen<'_> {
    fn ad_kind(&self) -> Kind {
        let scalar = self.ad.as_ref().map(|a| a.scalar.as_str()).unwrap_or("f64");
        match scalar {
            "f64" | "f32" => kind_of(&Ty::Scalar(if scalar == "f64" { "f64" } else { "f32" })),
            g => Kind::Generic(g.to_string()),
        }
    }

    fn ad_scalar(&self) -> String {
        rust_scalar(&self.ad_kind()).unwrap_or_else(|| "f64".into())
    }

    pub(super) fn ad_zero(&self) -> String {
        format!("<G as nilang::Adjoint<{}>>::zero()", self.ad_scalar())
    }

    pub(super) fn ad_one(&self) -> String {
        format!("nilang::one::<{}>()", self.ad_scalar())
    }

    /// `bar += g * s`.
    pub(super) fn add_scaled(&self, bar: &str, g: &str, s: &str) -> String {
        format!("nilang::Adjoint::add_scaled(&mut {bar}, &{g}, {s});")
    }

    /// In an adjoint, whether the `@routine` `stmts[at]` (`inner`, undone by
    /// `~@routine` at `end`) can run without adjoint rules, and if so the
    /// lines that set aside the adjoints it would touch before it and the
    /// lines that add them back after the `~@routine`.
    ///
    /// Let R be the routine and B the statements between it and its
    /// `~@routine`. A reverse pass runs R, then B's and ~R's adjoint rules;
    /// R's rules apply the transposed Jacobian of R's inverse. When B writes
    /// nothing that R reads or writes, R's and ~R's rules cancel on the
    /// adjoints of the variables R writes: those adjoints pass through
    /// unchanged, and with them zero R's rules change nothing. So R's
    /// adjoints are set to zero, R runs as plain code (the values are the
    /// same), and the saved adjoints are added back at the end. A variable
    /// allocated just before R (only allocations in between, as in the
    /// inverse of a function whose ancillas are freed at its end) or inside
    /// R has a zero adjoint already, and needs no saving. This saves a whole
    /// adjoint sweep of every compute-copy-uncompute.
    pub(super) fn plain_routine(
        &mut self,
        stmts: &[Stmt],
        at: usize,
        end: usize,
        inner: &Stmt,
    ) -> Option<(Vec<String>, Vec<String>)> {
        // What B writes; an effect that is not a variable write gives up.
        let mut b_writes = Vec::new();
        let mut unknown = false;
        self.visit_writes(&stmts[at + 1..end], &mut |root| match root
            .and_then(|span| self.resolution.def_at(span))
        {
            Some(id) => b_writes.push(id),
            None => unknown = true,
        });
        // What R writes, and every variable it mentions (with a use).
        let mut r_writes = Vec::new();
        self.visit_writes(std::slice::from_ref(inner), &mut |root| match root
            .and_then(|span| self.resolution.def_at(span))
        {
            Some(id) => r_writes.push(id),
            None => unknown = true,
        });
        if unknown {
            return None;
        }
        let mut mentioned: Vec<(usize, Span)> = Vec::new();
        let mut allocated_in_r = Vec::new();
        crate::effects::visit_stmt(inner, &mut |s| {
            if let StmtKind::Alloc { name, .. } = &s.kind
                && let Some(id) = self.resolution.def_at(name.span)
            {
                allocated_in_r.push(id);
            }
            super::stmt_exprs(s, &mut |e| {
                e.walk(&mut |e| {
                    if let ExprKind::Var(_) = e.kind
                        && let Some(id) = self.resolution.def_at(e.span)
                    {
                        mentioned.push((id, e.span));
                    }
                })
            });
        });
        if mentioned.iter().any(|(id, _)| b_writes.contains(id))
            || r_writes.iter().any(|id| b_writes.contains(id))
        {
            return None;
        }
        // Allocated in the run of allocations just before R.
        let fresh_before: Vec<usize> = stmts[..at]
            .iter()
            .rev()
            .map_while(|s| match &s.kind {
                StmtKind::Alloc { name, .. } => Some(self.resolution.def_at(name.span)),
                _ => None,
            })
            .flatten()
            .collect();
        let (mut save, mut restore) = (Vec::new(), Vec::new());
        r_writes.sort_unstable();
        r_writes.dedup();
        for id in r_writes {
            if allocated_in_r.contains(&id) || fresh_before.contains(&id) {
                continue;
            }
            let kind = kind_of(&self.types.defs[id]);
            let &(_, span) = mentioned.iter().find(|(d, _)| *d == id)?;
            let var = Expr {
                kind: ExprKind::Var(self.resolution.defs[id].name.clone()),
                span,
            };
            // A complex adjoint is saved whole and added back part by part.
            let (zero, parts) = match kind {
                Kind::Complex(_) => {
                    let z = self.ad_zero();
                    (
                        format!("nilang::Complex::new({z}, {z})"),
                        &[".re", ".im"][..],
                    )
                }
                k if k.is_scalar_like() => (self.ad_zero(), &[""][..]),
                Kind::Array(e) | Kind::Matrix(e) if !differentiable(&e) => continue,
                Kind::Array(e) if self.scratch_ancilla(id, inner) => {
                    // Its adjoint is dropped, not saved (see `scratch_ancilla`).
                    let bar = self.bar_place(&var)?;
                    let zero = match *e {
                        Kind::Complex(_) => {
                            let z = self.ad_zero();
                            format!("nilang::Complex::new({z}, {z})")
                        }
                        _ => self.ad_zero(),
                    };
                    save.push(format!("for __b in {bar}.iter_mut() {{ *__b = {zero}; }}"));
                    continue;
                }
                // Saving an array would allocate: keep R's rules.
                _ => return None,
            };
            let bar = match self.bar_place(&var) {
                Some(bar) => bar,
                // Integers and booleans carry no adjoint.
                None if parts.len() == 1 => continue,
                None => return None,
            };
            let s = self.fresh("saved");
            let one = self.ad_one();
            save.push(format!("let {s} = std::mem::replace(&mut {bar}, {zero});"));
            for part in parts {
                restore.push(format!(
                    "nilang::Adjoint::add_scaled(&mut {bar}{part}, &{s}{part}, {one});"
                ));
            }
        }
        Some((save, restore))
    }

    /// Whether the array ancilla `id` is scratch space of the routine
    /// `inner`: allocated and freed as zeros, and written by no statement of
    /// the function outside `inner` (its `~@routine` included, as the marker
    /// it is here). Between two runs of such a pair it holds zeros, which
    /// depend on no input, so the adjoint it carries there reaches nothing
    /// but its own allocation, where it is discarded. `plain_routine` can
    /// then set that adjoint to zero instead of saving and adding it back,
    /// which for an array would allocate each time the routine runs.
    fn scratch_ancilla(&self, id: usize, inner: &Stmt) -> bool {
        if !matches!(self.resolution.defs[id].kind, DefKind::Ancilla) {
            return false;
        }
        let zeros = |e: &Expr| match &e.kind {
            ExprKind::Call { callee, .. } => matches!(callee.name.as_str(), "zeros" | "zero"),
            _ => false,
        };
        let mut constant = true;
        let mut spans = Vec::new();
        for stmt in &self.body {
            crate::effects::visit_stmt(stmt, &mut |s| match &s.kind {
                StmtKind::Alloc { name, value } | StmtKind::Dealloc { name, value }
                    if self.resolution.def_at(name.span) == Some(id) =>
                {
                    constant &= zeros(value);
                    spans.push(name.span);
                }
                _ => {}
            });
        }
        if !constant {
            return false;
        }
        let count = |stmts: &[Stmt]| {
            let mut n = 0;
            self.visit_writes(stmts, &mut |root| {
                if let Some(span) = root
                    && !spans.contains(&span)
                    && self.resolution.def_at(span) == Some(id)
                {
                    n += 1;
                }
            });
            n
        };
        count(&self.body) == count(std::slice::from_ref(inner))
    }

    /// The adjoint of a new ancilla, zero.
    pub(super) fn ad_alloc(&mut self, name: &Ident, kind: &Kind) {
        let n = rust_name(&name.name);
        let b = bar_name(&name.name);
        let zero = self.ad_zero();
        let code = match kind {
            k if differentiable(k) => match k {
                Kind::Complex(_) => format!("nilang::Complex::new({zero}, {zero})"),
                Kind::Struct { .. } => match self.struct_bar_zero(&n, k) {
                    Some(code) => code,
                    None => return,
                },
                _ => zero,
            },
            Kind::Array(inner) if differentiable(inner) => match **inner {
                Kind::Complex(_) => {
                    format!("vec![nilang::Complex::new({zero}, {zero}); {n}.len()]")
                }
                _ => format!("vec![{zero}; {n}.len()]"),
            },
            Kind::Matrix(inner)
                if differentiable(inner) && !matches!(**inner, Kind::Complex(_)) =>
            {
                format!("nilang::ndarray::Array2::from_elem({n}.raw_dim(), {zero})")
            }
            Kind::Stack(inner) if differentiable(inner) => match **inner {
                Kind::Complex(_) => "nilang::Stack::<nilang::Complex<G>>::new()".into(),
                _ => "nilang::Stack::<G>::new()".into(),
            },
            _ => return,
        };
        self.line(&format!("let mut {b} = {code};"));
    }

    /// The adjoint of a place, mirroring [`Gen::lvalue`]; `None` when the
    /// place carries no derivative.
    pub(super) fn bar_place(&mut self, expr: &Expr) -> Option<String> {
        match &expr.kind {
            ExprKind::Var(name) => {
                let (id, kind) = self.def_kind(expr.span)?;
                if matches!(self.resolution.defs[id].kind, DefKind::KwParam(_)) {
                    // Keyword parameters are constants: no adjoint.
                    return None;
                }
                let is_param = matches!(self.resolution.defs[id].kind, DefKind::Param(_));
                let b = bar_name(name);
                match kind {
                    k if differentiable(&k) && is_param => Some(format!("(*{b})")),
                    k if differentiable(&k) => Some(b),
                    Kind::Array(inner) | Kind::Matrix(inner) | Kind::Csc(inner)
                        if differentiable(&inner) =>
                    {
                        Some(b)
                    }
                    _ => None,
                }
            }
            ExprKind::Index { base, indices } => {
                let base_bar = self.bar_place(base)?;
                let (_, base_kind) = self.whole(|g| g.expr(base));
                if base_kind == Kind::Offsets {
                    return None;
                }
                let (code, elem) = self.element(base_bar, base_kind, indices, expr.span)?;
                differentiable(&elem).then_some(code)
            }
            ExprKind::Field { base, field } => {
                let (_, base_kind) = self.whole(|g| g.expr(base));
                match (&base_kind, field.name.as_str()) {
                    (Kind::Complex(_), "re" | "im") => {
                        Some(format!("{}.{}", self.bar_place(base)?, field.name))
                    }
                    // The adjoint of a CSC matrix is the adjoint of its values.
                    (Kind::Csc(_), "nzval") => self.bar_place(base),
                    // That of a log number is the adjoint of its logarithm.
                    (Kind::ULog(_), "log") => self.bar_place(base),
                    (Kind::Struct { name, fields, .. }, f) => {
                        let (_, kind, generic) = fields.iter().find(|(n, _, _)| n == f)?.clone();
                        if !differentiable(&kind) {
                            return None;
                        }
                        if !generic {
                            self.unsupported(
                                field.span,
                                &format!(
                                    "differentiating through the field `{f}` of `{name}`, whose type names no type parameter (declare it with one)"
                                ),
                            );
                            return None;
                        }
                        Some(format!("{}.{}", self.bar_place(base)?, rust_name(f)))
                    }
                    _ => None,
                }
            }
            ExprKind::Call { callee, args, .. }
                if matches!(callee.name.as_str(), "real" | "imag") && args.len() == 1 =>
            {
                let (_, kind) = self.whole(|g| g.expr(&args[0]));
                let inner = self.bar_place(&args[0])?;
                match kind {
                    Kind::Complex(_) => Some(format!(
                        "{inner}.{}",
                        if callee.name == "real" { "re" } else { "im" }
                    )),
                    _ if callee.name == "real" => Some(inner),
                    _ => None,
                }
            }
            ExprKind::Paren(inner) | ExprKind::Adjoint(inner) => self.bar_place(inner),
            ExprKind::Unary {
                op: UnaryOp::Neg,
                operand,
            } => self.bar_place(operand),
            _ => None,
        }
    }

    /// The kind of an operand; in a broadcast an array stands for its
    /// element.
    fn operand_kind(&mut self, e: &Expr) -> Kind {
        if self.bcast.is_some() {
            self.expr(e).1
        } else {
            self.whole(|g| g.expr(e)).1
        }
    }

    /// The local derivatives of `value` with respect to the places it reads:
    /// `(place, code of d value / d place)`, in the adjoint scalar kind.
    pub(super) fn partials(&mut self, value: &Expr) -> Vec<(Expr, String)> {
        let mut out = Vec::new();
        push_partials(self, value, None, &mut out);
        out
    }

    /// The adjoint rule of `target op= value` in an inverse program, where it
    /// undoes `target (inverse op)= value`: the places `value` reads get
    /// `target`'s adjoint times their local derivative.
    pub(super) fn ad_instruction(&mut self, target: &Expr, op: InstrOp, value: &Expr, span: Span) {
        let Some((_, kind, negated)) = self.lvalue(target) else {
            return;
        };
        if !differentiable(&kind) {
            return;
        }
        let Some(sign_plus) = self.rule_sign(op, span) else {
            return;
        };
        let sign_plus = sign_plus != negated;
        let Some(target_bar) = self.bar_place(target) else {
            return;
        };
        let target_complex = matches!(kind, Kind::Complex(_));
        if target_complex || self.has_complex(value) {
            return self.ad_complex_instruction(&target_bar, target_complex, sign_plus, value);
        }
        for l in self.rule_lines(&target_bar, sign_plus, value) {
            self.line(&l);
        }
    }

    /// The sign of the adjoint rule of `y op= e` in a reverse pass: `y -= e`
    /// undoes `y += e`, so the reads get +ȳ ∂e (`true`); `y += e`, -ȳ ∂e.
    /// Other operators have no rule (reported).
    fn rule_sign(&mut self, op: InstrOp, span: Span) -> Option<bool> {
        match op {
            InstrOp::Sub => Some(true),
            InstrOp::Add => Some(false),
            _ => {
                self.unsupported(span, "differentiating this instruction");
                None
            }
        }
    }

    /// The lines of a real instruction's adjoint rule: ȳ (`target_bar`) into
    /// a temporary, then each place that `value` reads gets ±ȳ times its
    /// local derivative. Empty when `value` reads nothing differentiable.
    fn rule_lines(&mut self, target_bar: &str, sign_plus: bool, value: &Expr) -> Vec<String> {
        if self.partials(value).is_empty() {
            return Vec::new();
        }
        let g = self.fresh("g");
        let mut lines = vec![format!("let {g} = {target_bar};")];
        lines.extend(self.scaled_partials(&g, sign_plus, value));
        lines
    }

    /// The rule of an overwrite `y = value` in a tape loop, with ȳ taken
    /// into `g` (and zeroed) and `y` holding its old value: each place
    /// `value` reads, `y` included, gets ȳ times its local derivative.
    pub(super) fn overwrite_rule_lines(&mut self, g: &str, value: &Expr) -> Vec<String> {
        self.scaled_partials(g, true, value)
    }

    /// [`Gen::overwrite_rule_lines`] subtracted (undoing a tape loop's
    /// overwrite rule, `tape.rs`).
    pub(super) fn negated_overwrite_rule_lines(&mut self, g: &str, value: &Expr) -> Vec<String> {
        self.scaled_partials(g, false, value)
    }

    /// `±g ∂value/∂leaf` added to each leaf's adjoint.
    fn scaled_partials(&mut self, g: &str, sign_plus: bool, value: &Expr) -> Vec<String> {
        let partials = self.partials(value);
        let mut lines = Vec::new();
        // Every local derivative is read before the first adjoint is
        // written: the compiler cannot tell that `x_bar` and `x` do not
        // overlap, and would otherwise load the operands again after each
        // store.
        let mut updates = Vec::new();
        for (leaf, p) in partials {
            let Some(leaf_bar) = self.bar_elem(&leaf) else {
                continue;
            };
            let s = if sign_plus { p } else { format!("(-{p})") };
            let d = self.fresh("d");
            lines.push(format!("let {d} = {s};"));
            updates.push(self.add_scaled(&leaf_bar, g, &d));
        }
        lines.extend(updates);
        lines
    }

    /// The adjoint of a place read or written by an instruction: in a
    /// broadcast, of the element that the loop is at when the place is an
    /// array (`x_bar[__i]`), a matrix (`A_bar[[__r, __c]]`) or a matrix
    /// column (`A_bar[[__i, j]]`); otherwise [`Gen::bar_place`].
    fn bar_elem(&mut self, place: &Expr) -> Option<String> {
        let Some(two_d) = self.bcast.as_ref().map(|b| b.two_d) else {
            return self.bar_place(place);
        };
        if !two_d && let Some((_, c, elem)) = self.whole(|g| g.column_of(place)) {
            let ExprKind::Index { base, .. } = &place.kind else {
                return None;
            };
            let bar = self.whole(|g| g.bar_place(base))?;
            return differentiable(&elem).then(|| format!("{bar}[[__i, {c}]]"));
        }
        let bar = self.whole(|g| g.bar_place(place))?;
        match self.whole(|g| g.expr(place)).1 {
            Kind::Array(_) if !two_d => Some(format!("{bar}[__i]")),
            Kind::Matrix(_) if two_d => Some(format!("{bar}[[__r, __c]]")),
            Kind::Array(_) | Kind::Matrix(_) => None,
            _ => Some(bar),
        }
    }

    /// The adjoint rule of a broadcast instruction `y .+= e` (or `.-=`):
    /// the rule of `y[i] += e[i]` in a loop over the elements, before the
    /// loop that undoes the instruction (the local derivatives read the
    /// operands, which that loop leaves alone, and not `y`).
    pub(super) fn ad_broadcast(&mut self, target: &Expr, op: InstrOp, value: &Expr, span: Span) {
        let Some(t) = self.bcast_target(target) else {
            return;
        };
        if matches!(t.elem, Kind::Complex(_)) || self.has_complex(value) {
            self.unsupported(span, "differentiating a complex broadcast");
            return;
        }
        if !differentiable(&t.elem) {
            return;
        }
        let Some(sign_plus) = self.rule_sign(op, span) else {
            return;
        };
        self.bcast = Some(super::Bcast {
            two_d: t.two_d,
            operands: Vec::new(),
        });
        let lines = match self.bar_elem(target) {
            Some(target_bar) => self.rule_lines(&target_bar, sign_plus, value),
            None => Vec::new(),
        };
        let operands = self.bcast.take().map(|b| b.operands).unwrap_or_default();
        if lines.len() > 1 {
            self.bcast_loop(&t, operands, span, &lines);
        }
    }

    /// Whether an expression reads a complex value (a complex variable or
    /// array, or `im`): its adjoint rule then goes through
    /// [`Gen::cpartials`]. Only names are looked at, so nothing is generated.
    pub(super) fn has_complex(&self, e: &Expr) -> bool {
        let mut found = false;
        e.walk(&mut |node| {
            if let ExprKind::Field { .. } = &node.kind
                && let Some(kind) = self.struct_field_kind(node)
            {
                found |= matches!(kind, Kind::Complex(_));
            }
            if let ExprKind::Var(name) = &node.kind {
                match self.def_kind(node.span) {
                    Some((_, kind)) => {
                        let element = match kind {
                            Kind::Array(inner) | Kind::Matrix(inner) | Kind::Csc(inner) => *inner,
                            k => k,
                        };
                        found |= matches!(element, Kind::Complex(_));
                    }
                    None => found |= name == "im",
                }
            }
        });
        found
    }

    /// The complex adjoint scalar kind, `Complex<S>`.
    fn ad_ckind(&self) -> Kind {
        Kind::Complex(Box::new(self.ad_kind()))
    }

    /// A complex constant `re + i im` from two real codes.
    fn cconst(&self, re: &str, im: &str) -> String {
        format!("nilang::Complex::new({re}, {im})")
    }

    fn czero(&self) -> String {
        let z = format!("nilang::zero::<{}>()", self.ad_scalar());
        self.cconst(&z, &z)
    }

    /// The local derivatives of `value` as Wirtinger pairs: for each place
    /// `z` it reads, `(z, a, b)` with `d value = a dz + b conj(dz)` (codes
    /// of `Complex<S>`; `b` is `None` when zero, as for every holomorphic
    /// path). Real sub-expressions without complex values inside go through
    /// [`Gen::partials`].
    fn cpartials(&mut self, value: &Expr) -> Vec<(Expr, String, Option<String>)> {
        let mut out = Vec::new();
        self.push_cpartials(value, None, &mut out);
        out
    }

    /// `m ∘ (a2, b2)`: with `dR = a1 dN + b1 conj(dN)` and
    /// `dN = a2 dz + b2 conj(dz)`, `dR = (a1 a2 + b1 conj(b2)) dz +
    /// (a1 b2 + b1 conj(a2)) conj(dz)`.
    fn compose(m: &Wirt, a2: String, b2: Option<String>) -> Wirt {
        let conj = |c: &str| format!("nilang::complex::conj({c})");
        match m {
            None => Some((a2, b2)),
            Some((a1, b1)) => {
                let a = match (b1, &b2) {
                    (Some(b1), Some(b2)) => format!("({a1} * {a2} + {b1} * {})", conj(b2)),
                    _ => format!("({a1} * {a2})"),
                };
                let b = match (b1, b2) {
                    (Some(b1), Some(b2)) => Some(format!("({a1} * {b2} + {b1} * {})", conj(&a2))),
                    (Some(b1), None) => Some(format!("({b1} * {})", conj(&a2))),
                    (None, Some(b2)) => Some(format!("({a1} * {b2})")),
                    (None, None) => None,
                };
                Some((a, b))
            }
        }
    }

    fn push_cpartials(&mut self, e: &Expr, m: Wirt, out: &mut Vec<(Expr, String, Option<String>)>) {
        let k = self.ad_kind();
        let ck = self.ad_ckind();
        let one = self.ad_one();
        let zero = format!("nilang::zero::<{}>()", self.ad_scalar());
        let cone = self.cconst(&one, &zero);
        let holo = |g: &mut Self, x: &Expr, d: String, out: &mut Vec<_>| {
            g.push_cpartials(x, Self::compose(&m, d, None), out)
        };
        if !self.has_complex(e) {
            // A real sub-expression: its real partials, as complex numbers.
            for (leaf, p) in self.partials(e) {
                let d = self.cconst(&p, &zero);
                match Self::compose(&m, d, None) {
                    Some((a, b)) => out.push((leaf, a, b)),
                    None => unreachable!("compose gives a pair"),
                }
            }
            return;
        }
        match &e.kind {
            ExprKind::Var(_) | ExprKind::Index { .. } | ExprKind::Field { .. } => {
                let kind = self.operand_kind(e);
                if differentiable(&kind) {
                    let (a, b) = m.unwrap_or((cone, None));
                    out.push((e.clone(), a, b));
                }
            }
            ExprKind::Paren(inner) => self.push_cpartials(inner, m, out),
            ExprKind::Adjoint(inner) => {
                // conj: the pair swaps.
                let (a, b) = m.unwrap_or((cone, None));
                let swapped = (b.unwrap_or_else(|| self.czero()), Some(a));
                self.push_cpartials(inner, Some(swapped), out)
            }
            ExprKind::Unary { op, operand } => match op {
                UnaryOp::Neg => holo(self, operand, format!("(-{cone})"), out),
                UnaryOp::Plus => self.push_cpartials(operand, m, out),
                UnaryOp::Not => {}
            },
            ExprKind::Binary { op, lhs, rhs } => {
                use BinaryOp::*;
                // The element-wise operators of a broadcast, element by element.
                match op.scalar() {
                    Add => {
                        self.push_cpartials(lhs, m.clone(), out);
                        self.push_cpartials(rhs, m, out);
                    }
                    Sub => {
                        self.push_cpartials(lhs, m.clone(), out);
                        holo(self, rhs, format!("(-{cone})"), out);
                    }
                    Mul => {
                        let l = self.value_as(lhs, &ck);
                        let r = self.value_as(rhs, &ck);
                        holo(self, lhs, r, out);
                        holo(self, rhs, l, out);
                    }
                    Div => {
                        let l = self.value_as(lhs, &ck);
                        let r = self.value_as(rhs, &ck);
                        holo(self, lhs, format!("({cone} / {r})"), out);
                        holo(self, rhs, format!("(-({l}) / (({r}) * ({r})))"), out);
                    }
                    Pow => {
                        let (_, rk) = self.whole(|g| g.expr(rhs));
                        if let Kind::Int(_) = rk {
                            let l = self.value_as(lhs, &ck);
                            let n = self.value_as(rhs, &Kind::Int("i64"));
                            let nk = convert(format!("({n})"), &Kind::Int("i64"), &k);
                            holo(
                                self,
                                lhs,
                                format!("(nilang::complex::powi({l}, ({n}) - 1) * {nk})"),
                                out,
                            );
                        } else {
                            // z^w = exp(w log z): w z^w / z and z^w log z.
                            let l = self.value_as(lhs, &ck);
                            let r = self.value_as(rhs, &ck);
                            let p = format!("nilang::complex::powc({l}, {r})");
                            holo(self, lhs, format!("(({r}) * {p} / ({l}))"), out);
                            holo(self, rhs, format!("({p} * nilang::complex::ln({l}))"), out);
                        }
                    }
                    _ => self.unsupported(e.span, "differentiating this complex expression"),
                }
            }
            ExprKind::Call { callee, args, .. } => {
                let c = |f: &str, x: &str| format!("nilang::complex::{f}({x})");
                let two = format!("({one} + {one})");
                let half = format!("({one} / {two})");
                match (callee.name.as_str(), args.as_slice()) {
                    ("identity" | "value", [x]) => self.push_cpartials(x, m, out),
                    ("conj", [x]) => {
                        let (a, b) = m.unwrap_or((cone, None));
                        let swapped = (b.unwrap_or_else(|| self.czero()), Some(a));
                        self.push_cpartials(x, Some(swapped), out)
                    }
                    ("real", [x]) => {
                        let h = self.cconst(&half, &zero);
                        self.push_cpartials(x, Self::compose(&m, h.clone(), Some(h)), out)
                    }
                    ("imag", [x]) => {
                        let a = self.cconst(&zero, &format!("(-{half})"));
                        let b = self.cconst(&zero, &half);
                        self.push_cpartials(x, Self::compose(&m, a, Some(b)), out)
                    }
                    ("abs2", [x]) => {
                        let z = self.value_as(x, &ck);
                        self.push_cpartials(x, Self::compose(&m, c("conj", &z), Some(z)), out)
                    }
                    ("abs", [x]) => {
                        let z = self.value_as(x, &ck);
                        let r = format!("({two} * {})", c("abs", &z));
                        let a = format!("({} / {r})", c("conj", &z));
                        let b = format!("({z} / {r})");
                        self.push_cpartials(x, Self::compose(&m, a, Some(b)), out)
                    }
                    ("angle", [x]) => {
                        let z = self.value_as(x, &ck);
                        let a = format!("({} / ({z}))", self.cconst(&zero, &format!("(-{half})")));
                        let b = format!("({} / {})", self.cconst(&zero, &half), c("conj", &z));
                        self.push_cpartials(x, Self::compose(&m, a, Some(b)), out)
                    }
                    (f, [x]) => {
                        let z = self.value_as(x, &ck);
                        let d = match f {
                            "exp" => c("exp", &z),
                            "log" => c("inv", &z),
                            "sqrt" => c("inv", &format!("({} * {two})", c("sqrt", &z))),
                            "sin" => c("cos", &z),
                            "cos" => format!("(-{})", c("sin", &z)),
                            "inv" => format!("(-({i} * {i}))", i = c("inv", &z)),
                            _ => {
                                self.unsupported(
                                    e.span,
                                    &format!("an adjoint rule for `{f}` of a complex number"),
                                );
                                return;
                            }
                        };
                        holo(self, x, d, out)
                    }
                    (f, _) => self.unsupported(
                        e.span,
                        &format!("an adjoint rule for `{f}` of a complex number"),
                    ),
                }
            }
            ExprKind::Int(_) | ExprKind::Float(_) | ExprKind::Bool(_) | ExprKind::Str(_) => {}
            _ => self.unsupported(e.span, "differentiating this complex expression"),
        }
    }

    /// The adjoint rule of `target op= value` when complex numbers are
    /// involved (see [`nilang::adjoint::wirtinger`]).
    pub(super) fn ad_complex_instruction(
        &mut self,
        target_bar: &str,
        target_complex: bool,
        sign_plus: bool,
        value: &Expr,
    ) {
        let partials = self.cpartials(value);
        if partials.is_empty() {
            return;
        }
        let g = self.fresh("g");
        self.line(&format!("let {g} = {target_bar};"));
        for (leaf, a, b) in partials {
            let Some(leaf_bar) = self.bar_place(&leaf) else {
                continue;
            };
            let (_, leaf_kind) = self.whole(|g| g.expr(&leaf));
            let b = b.unwrap_or_else(|| self.czero());
            let (a, b) = if sign_plus {
                (a, b)
            } else {
                (format!("(-{a})"), format!("(-{b})"))
            };
            let f = match (target_complex, matches!(leaf_kind, Kind::Complex(_))) {
                (true, true) => "complex_complex",
                (false, true) => "real_complex",
                (true, false) => "complex_real",
                (false, false) => "real_real",
            };
            self.line(&format!(
                "nilang::adjoint::wirtinger::{f}(&mut {leaf_bar}, &{g}, {a}, {b});"
            ));
        }
    }

    /// The adjoint rule of a built-in instruction in an inverse program.
    pub(super) fn ad_instruction_call(&mut self, name: &str, call: &Call, span: Span) {
        if call.inverted {
            let instr = crate::builtins::instruction(name).expect("instruction");
            let inverse = crate::builtins::instruction(instr.inverse).expect("inverse");
            let call = Call {
                inverted: false,
                ..call.clone()
            };
            return self.ad_instruction_call(inverse.name, &call, span);
        }
        let arg_kind = |g: &mut Self, i: usize| {
            call.args
                .get(i)
                .map(|a| g.whole(|g| g.expr(a)).1)
                .unwrap_or(Kind::Unknown)
        };
        let ka = arg_kind(self, 0);
        if !differentiable(&ka) {
            return;
        }
        let complex = matches!(ka, Kind::Complex(_));
        let instr = crate::builtins::instruction(name).expect("instruction");
        let k = self.ad_kind();
        let one = self.ad_one();
        let bar = |g: &mut Self, i: usize| call.args.get(i).and_then(|a| g.bar_place(a));
        // The rule is the analysis's (`builtins::Rule`): this instruction
        // undoes its inverse `F`, whose transposed Jacobian the adjoints of
        // the changed arguments go through (`Instruction::adjoint_rows`).
        match instr.rule {
            crate::builtins::Rule::Linear { .. } => {
                let Some(rows) = instr.adjoint_rows() else {
                    return;
                };
                let forward = crate::builtins::instruction(instr.inverse).expect("inverse");
                let permutation = rows.iter().flatten().all(|(_, f)| *f == Factor::One);
                let negation = rows.len() == 1 && rows[0] == [(0, Factor::MinusOne)];
                if complex && !permutation && !negation {
                    self.unsupported(
                        span,
                        &format!("an adjoint rule for `{name}` of a complex number"),
                    );
                    return;
                }
                let mut bars = Vec::new();
                for i in 0..rows.len() {
                    let Some(b) = bar(self, i) else { return };
                    bars.push(b);
                }
                if negation {
                    // One adjoint scaled in place (both parts of a complex one).
                    let parts: Vec<String> = if complex {
                        vec![format!("{}.re", bars[0]), format!("{}.im", bars[0])]
                    } else {
                        vec![bars[0].clone()]
                    };
                    for p in parts {
                        self.line(&format!("nilang::Adjoint::scale(&mut {p}, -{one});"));
                    }
                    return;
                }
                let temps: Vec<String> = (0..bars.len())
                    .map(|i| self.fresh(["ta", "tb"].get(i).copied().unwrap_or("tx")))
                    .collect();
                self.line(&format!(
                    "let ({}) = ({});",
                    temps.join(", "),
                    bars.join(", ")
                ));
                let angle = match forward.rule {
                    crate::builtins::Rule::Linear {
                        angle: Some(at),
                        dangle,
                        ..
                    } => {
                        let theta = self.value_as(&call.args[at], &k);
                        let (s, c) = (self.fresh("s"), self.fresh("c"));
                        self.line(&format!(
                            "let ({s}, {c}) = (nilang::Real::sin({theta}), nilang::Real::cos({theta}));"
                        ));
                        // θ gets Σ ā'ᵢ · ∂aᵢ'/∂θ, with ∂a'/∂θ read off the
                        // values before this statement (`F`'s results).
                        let values: Vec<String> = (0..bars.len())
                            .map(|i| self.value_as(&call.args[i], &k))
                            .collect();
                        let factors = crate::Factors {
                            angle: None,
                            rsqrt2: "",
                        };
                        let derivatives: Vec<String> = dangle
                            .iter()
                            .map(|row| format!("({})", factors.linear_combination(row, &values)))
                            .collect();
                        for (leaf, p) in self.partials(&call.args[at]) {
                            if let Some(lb) = self.bar_place(&leaf) {
                                for (t, d) in temps.iter().zip(&derivatives) {
                                    let l = self.add_scaled(&lb, t, &format!("({p} * {d})"));
                                    self.line(&l);
                                }
                            }
                        }
                        Some((s, c))
                    }
                    _ => None,
                };
                let rsqrt2 = format!(
                    "<{} as nilang::Real>::from_f64(std::f64::consts::FRAC_1_SQRT_2)",
                    self.ad_scalar()
                );
                let factor = |f: Factor| -> Option<String> {
                    let (s, c) = angle.clone().unwrap_or_default();
                    match f {
                        Factor::One => None,
                        Factor::MinusOne => Some(format!("(-{one})")),
                        Factor::Cos => Some(c),
                        Factor::Sin => Some(s),
                        Factor::MinusSin => Some(format!("(-{s})")),
                        Factor::Rsqrt2 => Some(rsqrt2.clone()),
                        Factor::MinusRsqrt2 => Some(format!("(-{rsqrt2})")),
                    }
                };
                for (target, row) in bars.iter().zip(&rows) {
                    let Some(((first, f0), rest)) = row.split_first() else {
                        continue;
                    };
                    self.line(&format!("{target} = {};", temps[*first]));
                    if let Some(f) = factor(*f0) {
                        self.line(&format!("nilang::Adjoint::scale(&mut {target}, {f});"));
                    }
                    for (j, f) in rest {
                        let f = factor(*f).unwrap_or_else(|| one.clone());
                        let l = self.add_scaled(target, &temps[*j], &f);
                        self.line(&l);
                    }
                }
            }
            crate::builtins::Rule::Scale { by, divide } => {
                if complex {
                    self.unsupported(
                        span,
                        &format!("an adjoint rule for `{name}` of a complex number"),
                    );
                    return;
                }
                // This instruction undoes its inverse: `MULINT` undoes
                // `y /= n` (ȳ becomes ȳ / n), `DIVINT` undoes `y *= n`.
                let Some(a) = bar(self, 0) else { return };
                let n = self.value_as(&call.args[by], &k);
                let factor = if divide { n } else { format!("({one} / {n})") };
                self.line(&format!("nilang::Adjoint::scale(&mut {a}, {factor});"));
            }
            crate::builtins::Rule::Shift { .. } => {}
            // z becomes conj(z): so does its adjoint.
            crate::builtins::Rule::Conj if complex => {
                let Some(a) = bar(self, 0) else { return };
                self.line(&format!("nilang::Adjoint::scale(&mut {a}.im, -{one});"));
            }
            crate::builtins::Rule::Conj => {}
            crate::builtins::Rule::Stack => {
                self.unsupported(span, &format!("an adjoint rule for `{name}`"))
            }
        }
    }

    /// The adjoint argument for a parameter of kind `param_kind`, and the
    /// temporary that carries it, if any (declaration, lines after the call).
    pub(super) fn ad_bar_arg(
        &mut self,
        arg: &Expr,
        param_kind: &Kind,
    ) -> Option<(String, Option<(String, String)>)> {
        if let Some((m, c, _)) = self.column_of(arg) {
            let t = self.fresh("colbar");
            return Some((
                format!("&mut {t}"),
                Some((
                    format!(
                        "let mut {t} = nilang::ColumnMut::new({}.column_mut({c}));",
                        bar_name(&m)
                    ),
                    String::new(),
                )),
            ));
        }
        if let ExprKind::Var(name) = &arg.kind
            && let Some((id, kind)) = self.def_kind(arg.span)
            && (differentiable(&kind) || bar_param_type(&kind).is_some())
        {
            let is_param = matches!(self.resolution.defs[id].kind, DefKind::Param(_));
            let b = bar_name(name);
            return Some(match kind {
                Kind::Matrix(_) => (format!("{b}.view_mut()"), None),
                Kind::Array(_) | Kind::Csc(_) => (format!("&mut {b}[..]"), None),
                _ if is_param => (format!("&mut *{b}"), None),
                _ => (format!("&mut {b}"), None),
            });
        }
        let (_, arg_kind) = self.whole(|g| g.expr(arg));
        if !differentiable(&arg_kind) && bar_param_type(&arg_kind).is_none() {
            // An integer where the callee is generic: no derivative flows,
            // but the callee's signature wants an adjoint of that type.
            return Some(match &arg_kind {
                Kind::Array(inner) => {
                    let s = rust_scalar(inner).unwrap_or_else(|| "i64".into());
                    let (code, _) = self.whole(|g| g.expr(arg));
                    (
                        format!("&mut vec![nilang::zero::<{s}>(); {code}.len()][..]"),
                        None,
                    )
                }
                k => {
                    let s = rust_scalar(k).unwrap_or_else(|| "i64".into());
                    (format!("&mut nilang::zero::<{s}>()"), None)
                }
            });
        }
        if arg.is_place()
            && let Some(place) = self.bar_place(arg)
        {
            let t = self.fresh("argbar");
            return Some((
                format!("&mut {t}"),
                Some((format!("let mut {t} = {place};"), format!("{place} = {t};"))),
            ));
        }
        // An expression: its adjoint is collected in a temporary and passed
        // on to what it reads.
        if !differentiable(param_kind) || matches!(param_kind, Kind::Complex(_)) {
            self.unsupported(arg.span, "differentiating this argument");
            return None;
        }
        let t = self.fresh("argbar");
        let mut after = Vec::new();
        for (leaf, p) in self.partials(arg) {
            if let Some(lb) = self.bar_place(&leaf) {
                after.push(self.add_scaled(&lb, &t, &p));
            }
        }
        let zero = self.ad_zero();
        Some((
            format!("&mut {t}"),
            Some((format!("let mut {t}: G = {zero};"), after.join("\n"))),
        ))
    }
}

//! Whole-gradient strategies: `uncall_f_grad` of a function that records,
//! `f_grad` as the reverse pass alone (`skip_forward`, `accumulate_only`),
//! and the reverse pass that starts at a final `~@routine`
//! (`fused_gradient`).

use super::*;

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
pub(crate) fn uncall_grad_taped(
    g: &mut Gen<'_>,
    f: &Function,
    forward: &Function,
    values: &[String],
    with_bars: &[String],
    stack_sync: &[String],
    problem: Option<(String, String)>,
) {
    let name = &f.name.name;
    let body = match problem {
        None => undo_grad_body(
            vec![
                "let mut __tape = nilang::Tape::new();".to_string(),
                format!(
                    "{}({}, &mut __tape)?;",
                    inner_name(&uncall_adjoint_name(name)),
                    with_bars.join(", ")
                ),
                format!(
                    "{}({}, &mut __tape)",
                    inner_name(&uncall_name(name)),
                    values.join(", ")
                ),
            ],
            stack_sync,
        ),
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
    g.mode.ad = Some(AdMode {
        scalar: g
            .mode
            .ad
            .as_ref()
            .map(|a| a.scalar.clone())
            .unwrap_or_default(),
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
    g.function(forward, &uncall_grad_name(name), false);
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
pub(crate) fn skip_forward(
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
    // The forward run's arguments, a copy of each accumulator's input in
    // place of the accumulator (`copy` fills them in).
    let mut forward_args = Vec::new();
    let mut copies = Vec::new();
    for (i, (p, arg)) in forward.params.iter().zip(&args).enumerate() {
        if !arg.mutated {
            forward_args.push(arg.value.clone());
            continue;
        }
        forward_args.push(format!("&mut __forward_{i}"));
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
                copies.push((i, format!("{name}.to_vec()"), format!("{saved}.clone()")));
            }
            k if k.is_scalar_like() => {
                save.push(format!("let {saved} = *{name};"));
                restore.push(format!("*{name} = {saved};"));
                copies.push((i, format!("(*{name}).clone()"), format!("{saved}.clone()")));
            }
            _ => return None,
        }
    }
    if save.is_empty() {
        return None;
    }
    forward_args.extend(forward.kwparams.iter().map(|k| rust_name(&k.name.name)));
    // A check that fails in the reverse pass started from the inputs is one
    // the forward run fails too, but the reverse pass meets it elsewhere
    // (a deallocation as the inverse's allocation, with another value):
    // on a failure the forward runs on copies of the accumulators' inputs,
    // and its error, naming the statement and the value the user wrote, is
    // the one returned (the reverse pass's own if the forward passes).
    let report = |from_saved: bool| {
        let mut lines = vec!["if __reverse.is_err() {".to_string()];
        for (i, input, saved) in &copies {
            let from = if from_saved { saved } else { input };
            lines.push(format!("    let mut __forward_{i} = {from};"));
        }
        let call = format!(
            "{}({})",
            inner_name(&rust_name(&forward.name.name)),
            forward_args.join(", ")
        );
        if from_saved {
            lines.push(format!("    {call}?;"));
            lines.push("    return __reverse;".to_string());
        } else {
            // Without `?` or `Err(`: the entry point of a body that only
            // passes on its callee's failure copies no arrays, as before
            // (`Gen::function`).
            lines.push(format!("    return {call}.and(__reverse);"));
        }
        lines.push("}".to_string());
        lines
    };
    // When only `f`'s own instructions write the accumulators (no call gets
    // one), a copy of the reverse pass that leaves out their value updates
    // (`f_adjoint_accumulating`) keeps them at their inputs: nothing to
    // save, nothing to set back, and one instruction less per update.
    let passed = ids.iter().any(|id| call_args.contains(id));
    if !passed {
        // The accumulators keep their inputs through this pass.
        let mut body = vec![format!(
            "let __reverse = {}({});",
            inner_name(&accumulating_name(&forward.name.name)),
            with_bars.join(", ")
        )];
        body.extend(report(false));
        body.push("__reverse".to_string());
        return Some((body, Some(ids)));
    }
    let mut body = save;
    body.push(format!(
        "let __reverse = {}({});",
        inner_name(&adjoint_name(&forward.name.name)),
        with_bars.join(", ")
    ));
    body.extend(report(true));
    body.extend(restore);
    body.push("Ok(())".to_string());
    Some((body, None))
}

/// Whether the parameter `id` of `f` is only accumulated into: every
/// instruction that writes it is `+=` or `-=` of a value that does not
/// mention it, every call that gets it passes it once, as a place, to a
/// parameter of a `.nil` callee that is itself only accumulated into, and
/// nothing else mentions it.
pub(crate) fn accumulate_only(
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
pub(crate) fn fused_gradient(
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
    let StmtKind::Routine(inner, _) = &fs[at].kind else {
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
    let saved_ad = g.mode.ad.replace(AdMode {
        scalar: scalar.to_string(),
        doc: String::new(),
        body: None,
    });
    // Typecasts: the kinds start over, as in a function of its own.
    g.casts.clear();
    let plan = g.plain_routine(fs, at, end, inner);
    if let Some((save, restore)) = plan {
        g.mode.plain = true;
        g.block(&fs[..at]);
        for l in save {
            g.line(&l);
        }
        // A stored routine pushes here what the rules of its
        // `~@routine` in the reverse pass pop (`storing`).
        let store = matches!(fs[at].kind, StmtKind::Routine(_, Storing::Store))
            && g.stores_adjoint_scalars();
        if store {
            let tape = g.fresh("store");
            g.line(&format!("let mut {tape} = nilang::Tape::new();"));
            g.store = Some(Store {
                tape,
                mode: crate::tape::TapeMode::Push,
            });
        }
        g.stmt(&fs[at]);
        let store = g.store.take();
        g.block(&fs[at + 1..end]);
        // The final deallocations are not run (their variables live on
        // into the reverse pass, which would allocate them again), but
        // their checks are, of what the routine leaves alone: a gradient
        // reports the failure the forward run reports, where it reports
        // it. (What the routine writes holds the routine's values here;
        // the reverse pass checks it where it is allocated.)
        let mut written = Vec::new();
        g.visit_writes(std::slice::from_ref(&**inner), &mut |root| {
            written.extend(root);
        });
        let unwritten: Vec<Stmt> = fs[end + 1..]
            .iter()
            .filter(|s| match &s.kind {
                StmtKind::Dealloc { name, .. } => {
                    let id = g.resolution.def_at(name.span);
                    !written.iter().any(|w| g.resolution.def_at(*w) == id)
                }
                _ => false,
            })
            .cloned()
            .collect();
        g.block(&unwritten);
        g.mode.plain = false;
        g.seeded_stores.extend(store.map(|s| (b_end, s.tape)));
        g.block_from(bs, b + 1, vec![(b_end, restore)]);
        g.line("Ok(())");
    }
    let code = std::mem::replace(&mut g.out, saved_out);
    let problems = std::mem::replace(&mut g.diagnostics, saved_diagnostics);
    g.level = saved_level;
    g.mode.ad = saved_ad;
    (!code.is_empty() && problems.is_empty()).then(|| code.lines().map(str::to_string).collect())
}

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

mod complex;
mod instructions;
mod partials;
mod primitive;
mod routines;
mod rules;
mod storing;
mod whole;

use crate::builtins::Factor;
pub(crate) use partials::{Deriv, push_partials, real_call_derivative};
pub(crate) use storing::Store;

/// The values a rule's lines compute into one vector before they use them
/// (`Gen::bound_partials`): its name, given at the first value, and the
/// code of each slot.
#[derive(Default)]
pub(crate) struct Slots {
    pub(crate) name: String,
    pub(crate) codes: Vec<String>,
}

impl Slots {
    /// Puts `code` into the next slot and returns the slot, naming the
    /// vector first (`name`) if this is its first value. Both backends'
    /// `Deriv::bind`.
    pub(crate) fn bind(&mut self, code: String, name: impl FnOnce() -> String) -> String {
        if self.name.is_empty() {
            self.name = name();
        }
        self.codes.push(code);
        format!("{}[{}]", self.name, self.codes.len() - 1)
    }
}
use primitive::*;
use whole::*;

/// A chain of local derivatives as a Wirtinger pair `(a, b)`:
/// `d root = a d node + b conj(d node)`; `None` is the identity.
pub(crate) type Wirt = Option<(String, Option<String>)>;

/// Settings of an adjoint function being generated.
pub(super) struct AdMode {
    /// The scalar type of `G: nilang::Adjoint<scalar>`.
    pub scalar: String,
    pub doc: String,
    /// Lines that replace the body (the `_grad` wrapper, or an error).
    pub body: Option<Vec<String>>,
}

pub(super) fn adjoint_name(name: &str) -> String {
    generated_name(name, false, Pass::Adjoint, Launcher::Cpu)
}

pub(super) fn uncall_adjoint_name(name: &str) -> String {
    generated_name(name, true, Pass::Adjoint, Launcher::Cpu)
}

fn grad_name(name: &str) -> String {
    generated_name(name, false, Pass::Grad, Launcher::Cpu)
}

/// The inverse of the gradient program, `uncall_f_grad`.
fn uncall_grad_name(name: &str) -> String {
    generated_name(name, true, Pass::Grad, Launcher::Cpu)
}

/// The accumulating form of the reverse pass, `f_adjoint_accumulating`.
fn accumulating_name(name: &str) -> String {
    generated_name(name, false, Pass::AdjointAccumulating, Launcher::Cpu)
}

pub(super) use nilang_analysis::names::bar_name;
use nilang_analysis::names::{Launcher, Pass, generated_name};

use crate::kinds::differentiable;

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
        Kind::Matrix(inner) if differentiable(inner) => Some(match **inner {
            Kind::Complex(_) => "nilang::ndarray::ArrayViewMut2<'_, nilang::Complex<G>>".into(),
            _ => "nilang::ndarray::ArrayViewMut2<'_, G>".into(),
        }),
        // The adjoints of a stack's values, in a stack of the same length.
        Kind::Stack(inner) if differentiable(inner) => Some(match **inner {
            Kind::Complex(_) => "&mut nilang::Stack<nilang::Complex<G>>".into(),
            _ => "&mut nilang::Stack<G>".into(),
        }),
        _ => None,
    }
}

pub(super) fn generate(g: &mut Gen<'_>, f: &Function, forward: &Function, backward: &Function) {
    let scalar = adjoint_scalar(g, f);
    let name = rust_name(&f.name.name);
    let has_bars = f.params.iter().any(|p| {
        !p.constant
            && g.resolution
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
            g.mode.ad = Some(AdMode {
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
        g.mode.ad = Some(AdMode {
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
            g.mode.ad = Some(AdMode {
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
        g.mode.ad = None;
        return;
    }
    // `f_grad`: forward, then the reverse pass.
    let mut values = Vec::new();
    let mut with_bars = Vec::new();
    for (p, arg) in f.params.iter().zip(param_args(g, f)) {
        let ParamArg { kind, value, .. } = arg;
        values.push(value.clone());
        with_bars.push(value);
        if !p.constant && bar_param_type(&kind).is_some() {
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
    // What `f` pushes onto or pops from a stack parameter: the reverse pass
    // wants `s_bar` in step with `s` as `f` left it.
    let stack_sync = stack_bar_sync(g, f, &scalar);
    // A function that records needs its forward run: it fills the tape.
    let skipped = if reverse_ok && primitive.is_none() && !g.mode.any_tape {
        skip_forward(g, forward, &with_bars)
    } else {
        None
    };
    let (skipped, accumulating) = match skipped {
        Some((body, ids)) => (Some(body), ids),
        None => (None, None),
    };
    let accumulates = accumulating.is_some();
    let reverse_fn = if accumulates {
        accumulating_name(&f.name.name)
    } else {
        adjoint_name(&f.name.name)
    };
    if let Some(ids) = accumulating {
        g.mode.ad = Some(AdMode {
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
        g.mode.skip_values = ids;
        g.out.push('\n');
        g.function(backward, &reverse_fn, false);
        g.mode.skip_values.clear();
    }
    // The fused gradient's plain forward part keeps the adjoint stacks of
    // ancillas in step, but not those of parameters, which come in in step
    // with the stacks as they were (`stack_sync`).
    let fused = if reverse_ok
        && primitive.is_none()
        && !g.mode.any_tape
        && skipped.is_none()
        && stack_sync.is_empty()
    {
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
            if accumulates {
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
    g.mode.ad = Some(AdMode {
        scalar,
        doc: format!(
            "Gradient of [`{name}`]: {how}. Seed the adjoint of the\n\
             loss argument (1 in its `_bar`, 0 in the others) before the call; after it\n\
             the arguments hold their inputs again and each `_bar` the derivative of\n\
             the loss with respect to that input (added to what it held)."
        ),
        body: Some(skipped.or(fused).unwrap_or_else(|| {
            // `f`, the stack adjoints brought in step, the reverse pass;
            // with the tape `f` records and the reverse pass reads back,
            // dropped on return, where `f` records one.
            let tape = if g.mode.tape_param {
                ", &mut __tape"
            } else {
                ""
            };
            let mut body = Vec::new();
            if g.mode.tape_param {
                body.push("let mut __tape = nilang::Tape::new();".to_string());
            }
            body.push(format!(
                "{}({}{tape})?;",
                inner_name(&name),
                values.join(", ")
            ));
            body.extend(stack_sync.iter().cloned());
            body.push(format!(
                "{}({}{tape})",
                inner_name(&adjoint_name(&f.name.name)),
                with_bars.join(", ")
            ));
            body
        })),
    });
    g.out.push('\n');
    let tape_param = std::mem::replace(&mut g.mode.tape_param, false);
    g.function(forward, &grad_name(&f.name.name), false);
    if tape_param {
        uncall_grad_taped(
            g,
            f,
            forward,
            &values,
            &with_bars,
            &stack_sync,
            uncall_problem,
        );
        g.mode.tape_param = true;
        g.mode.ad = None;
        return;
    }
    // `uncall_f_grad`: the gradient program backwards. `uncall_f_adjoint`
    // (the reverse pass of `~f`: it runs `f` forwards) is also the inverse of
    // `f_adjoint`: both apply the transposed Jacobian of `f`'s inverse,
    // statement by statement. It leaves `f`'s outputs, which `~f` undoes.
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
             removed) with the arguments unchanged.",
            grad_name(&f.name.name)
        ),
        body: Some(undo_grad_body(
            vec![
                format!(
                    "{}({})?;",
                    inner_name(&uncall_adjoint_name(&f.name.name)),
                    with_bars.join(", ")
                ),
                format!(
                    "{}({})",
                    inner_name(&uncall_name(&f.name.name)),
                    values.join(", ")
                ),
            ],
            &stack_sync,
        )),
    });
    g.out.push('\n');
    g.function(forward, &uncall_grad_name(&f.name.name), false);
    g.mode.ad = None;
}

/// The lines that bring the adjoint stack of each stack parameter of `f`
/// that `f` changes back in step with it, after code that ran `f` (or `~f`)
/// without adjoint rules: `f_grad` runs `f`, then the reverse pass, which
/// wants an adjoint per value `f` left on the stack. A value `f` pushed gets
/// a zero adjoint (nothing is seeded on it); the adjoint of a position that
/// `f` emptied is dropped (no output sits there to seed), as an adjoint
/// stack that came in in step with the stack holds one adjoint per value.
/// `uncall_f_grad` ends with the same lines, which drop again the zeros
/// `f_grad` pushed.
fn stack_bar_sync(g: &Gen<'_>, f: &Function, scalar: &str) -> Vec<String> {
    let zero = format!("<{ADJOINT_TYPE} as nilang::Adjoint<{scalar}>>::zero()");
    let mut lines = Vec::new();
    for (p, arg) in f.params.iter().zip(param_args(g, f)) {
        let Kind::Stack(elem) = &arg.kind else {
            continue;
        };
        if p.constant || !arg.mutated || bar_param_type(&arg.kind).is_none() {
            continue;
        }
        let s = rust_name(&p.name.name);
        let sb = bar_name(&p.name.name);
        let zero = match **elem {
            Kind::Complex(_) => format!("nilang::Complex::new({zero}, {zero})"),
            _ => zero.clone(),
        };
        lines.push(format!(
            "while {sb}.len() < {s}.len() {{ {sb}.push({zero}); }}"
        ));
        lines.push(format!(
            "while {sb}.len() > {s}.len() {{ let _ = {sb}.pop(); }}"
        ));
    }
    lines
}

/// The body of `uncall_f_grad`: `uncall_f_adjoint`, then `~f` (the last of
/// `lines`, an expression), then `sync` when there is any.
fn undo_grad_body(mut lines: Vec<String>, sync: &[String]) -> Vec<String> {
    if sync.is_empty() {
        return lines;
    }
    if let Some(last) = lines.pop() {
        lines.push(format!("{last}?;"));
    }
    lines.extend(sync.iter().cloned());
    lines.push("Ok(())".to_string());
    lines
}

//! Derivative calls inside `.nil`: `(∇f)(...)`, `(∂f)(...)` and their
//! uncalls, as the Rust backend's entry points run them
//! (`nilang_codegen::derivatives`). The callee's parameters are `f`'s, each
//! one with a companion (`nilang_analysis::derivatives::companions`, the
//! call's mask) followed by it: its adjoint for `∇`, its tangent for `∂`.
//!
//! - `(∇f)` is `f_grad`: `f` forwards, then backwards with the companions
//!   as the adjoints of its results; the arguments come back and the
//!   companions go from `b` to `Jᵀb`.
//! - `~(∇f)` is `uncall_f_grad`: `uncall_f_adjoint` (`f` run forwards on
//!   values that carry adjoints, each adjoint rule undone: the companions
//!   go from `Jᵀb` back to `b`), then `~f` back to the arguments.
//! - `(∂f)` runs `f` on dual numbers (`crate::dual`): each argument of
//!   `f`'s float type with its companion, or zero, as the dual part; what
//!   `f` changes takes the values, and its companion the dual parts, after.
//! - `~(∂f)` is the same with `~f`.
//!
//! A gradient run that meets a derivative call runs its reverse pass, a
//! second derivative, as the generated reverse passes take it (forward
//! over reverse: `f`'s gradient run on dual numbers, see
//! [`Interpreter::derivative_reverse`]).

use super::{Direction, Frame, Interpreter, Path, R};
use crate::dual;
use crate::error::{Check, RunError};
use crate::value::Value;
use nilang_analysis::ast::{Derivative, Span};
use nilang_analysis::db::{self, body::ExprId};
use nilang_analysis::ty::{Ctor, Ty};
use nilang_analysis::{Db, FnId};
use std::rc::Rc;

/// Which derivative of which function a call runs, and whether it is the
/// call's uncall.
#[derive(Clone, Copy)]
pub(super) struct DerivativeCall<'db> {
    pub derivative: Derivative,
    pub base: FnId<'db>,
    pub inverted: bool,
}

impl<'db> DerivativeCall<'db> {
    /// The callee as `.nil` writes it: `` `~(∂f)` ``.
    fn callee(&self, db: &'db dyn Db) -> String {
        format!(
            "`{}({}{})`",
            if self.inverted { "~" } else { "" },
            self.derivative.symbol(),
            self.base.name(db)
        )
    }

    /// The call as messages name it: `` `~(∂f)(...)` ``.
    pub fn written(&self, db: &'db dyn Db) -> String {
        let callee = self.callee(db);
        format!("{}(...)`", callee.trim_end_matches('`'))
    }
}

/// The arguments of a derivative call, by parameter of `f`: the place
/// each is (if it is one), its value, and its companion's place.
struct Arguments {
    places: Vec<Option<Path>>,
    values: Vec<Value>,
    companions: Vec<Option<Path>>,
}

/// Whether a declared parameter type is `f`'s float type or an array of
/// it (what the generated code runs on dual numbers): `f` has exactly one
/// type parameter, which the analysis requires of a derivative call.
fn float_typed(ty: &Ty) -> bool {
    match ty {
        Ty::Generic(_) => true,
        Ty::Slice(t) => matches!(**t, Ty::Generic(_)),
        Ty::Constructed(Ctor::Vec, args) => matches!(args.as_slice(), [Ty::Generic(_)]),
        _ => false,
    }
}

/// The argument `v` as dual numbers with the dual parts `tangent` (zero
/// when `None`), element by element for an array; or what it is, when it
/// is no `f64` (the duals are `Dual<f64>`).
fn to_dual(v: &Value, tangent: Option<&Value>) -> Result<Value, String> {
    match v {
        Value::F64(_) | Value::Int(..) => {
            let eps = match tangent {
                None => 0.0,
                Some(Value::F64(t)) => *t,
                Some(Value::Int(t, _)) => *t as f64,
                Some(t) => return Err(t.kind_name()),
            };
            Ok(Value::Dual(v.as_f64().unwrap_or_default(), eps))
        }
        Value::Array(items) => {
            let out = match tangent {
                None => items
                    .iter()
                    .map(|x| to_dual(x, None))
                    .collect::<Result<_, _>>()?,
                Some(Value::Array(ts)) => items
                    .iter()
                    .zip(ts.iter())
                    .map(|(x, t)| to_dual(x, Some(t)))
                    .collect::<Result<_, _>>()?,
                Some(t) => return Err(t.kind_name()),
            };
            Ok(Value::Array(Rc::new(out)))
        }
        v => Err(v.kind_name()),
    }
}

/// The values and dual parts of what `f` left in a parameter of its float
/// type, as `f64`s.
fn split(v: &Value) -> Option<(Value, Value)> {
    match v {
        Value::Array(items) => {
            let (re, eps): (Vec<Value>, Vec<Value>) = items
                .iter()
                .map(split)
                .collect::<Option<Vec<_>>>()?
                .into_iter()
                .unzip();
            Some((Value::Array(Rc::new(re)), Value::Array(Rc::new(eps))))
        }
        v => dual::parts(v).map(|(re, eps)| (Value::F64(re), Value::F64(eps))),
    }
}

/// The dual parts of what [`split`] splits, or the value itself when it
/// holds no float.
fn eps_part(v: &Value) -> Option<Value> {
    split(v).map(|(_, eps)| eps)
}

fn re_part(v: &Value) -> Option<Value> {
    split(v).map(|(re, _)| re)
}

/// Every number of a number or an array negated.
fn negated(v: &Value) -> Value {
    match v {
        Value::Array(items) => Value::Array(Rc::new(items.iter().map(negated).collect())),
        v => crate::ops::negate(v).unwrap_or_else(|_| v.clone()),
    }
}

/// The values and adjoints of a derivative call's arguments in the
/// reverse pass, by parameter of `f`.
struct Reverse {
    /// Of `f`'s float type (run on duals).
    floats: Vec<bool>,
    /// Changed by `f`.
    mutated: Vec<bool>,
    /// With a companion (and so with adjoints of both).
    mask: Vec<bool>,
    /// The arguments' values.
    a: Vec<Value>,
    /// The companions' values (a zero where there is none).
    c: Vec<Value>,
    /// The adjoints of the arguments and of their companions (zeros where
    /// there are none).
    a_adj: Vec<Value>,
    c_adj: Vec<Value>,
}

impl<'db> Interpreter<'db> {
    /// Runs a derivative call (see the module docs).
    pub(super) fn derivative_call(
        &mut self,
        fr: &mut Frame<'db>,
        call: DerivativeCall<'db>,
        mask: &[bool],
        args: &[ExprId],
        span: Span,
    ) -> R<()> {
        let given = self.derivative_arguments(fr, call, mask, args, span)?;
        match call.derivative {
            Derivative::Gradient => self.gradient_call(fr, call, given, span),
            Derivative::Tangent => self.tangent_call(fr, call, given, span),
        }
    }

    /// The call's arguments by parameter of `f`, each array's companion
    /// checked to be as long as the array, as the generated entry point
    /// checks it (at `f`'s definition).
    fn derivative_arguments(
        &mut self,
        fr: &mut Frame<'db>,
        call: DerivativeCall<'db>,
        mask: &[bool],
        args: &[ExprId],
        span: Span,
    ) -> R<Arguments> {
        // The companions' mask and `f`'s run are by parameter of `f`.
        if self.params(call.base).len() != mask.len() {
            return Err(fr.unsupported(
                span,
                &format!("{} of a function without a body", call.written(self.db)),
            ));
        }
        let too_few =
            |fr: &Frame<'db>| fr.domain(span, "a derivative call with too few arguments".into());
        let mut given = Arguments {
            places: Vec::with_capacity(mask.len()),
            values: Vec::with_capacity(mask.len()),
            companions: Vec::with_capacity(mask.len()),
        };
        let mut rest = args.iter();
        for &has in mask {
            let Some(&a) = rest.next() else {
                return Err(too_few(fr));
            };
            given.places.push(self.path(fr, a)?);
            given.values.push(self.eval(fr, a)?);
            given.companions.push(match has {
                true => {
                    let Some(&c) = rest.next() else {
                        return Err(too_few(fr));
                    };
                    Some(
                        self.path(fr, c)?.ok_or_else(|| {
                            fr.domain(span, "a companion that is not a place".into())
                        })?,
                    )
                }
                false => None,
            });
        }
        let f = call.base;
        for (k, (c, v)) in given.companions.iter().zip(&given.values).enumerate() {
            if let (Some(p), Value::Array(xs)) = (c, v)
                && let Value::Array(cs) = self.read(fr, p, span)?
                && cs.len() != xs.len()
            {
                let info = self.info(f);
                let at = db::function_ast(self.db, f).map_or(0, |a| a.name.span.start);
                return Err(Box::new(RunError {
                    location: info.file.location(info.offset + at),
                    check: Check::Shape,
                    what: format!(
                        "the companion of argument {} of {} must be as long as the argument",
                        k + 1,
                        call.callee(self.db)
                    ),
                    expected: xs.len().to_string(),
                    found: cs.len().to_string(),
                }));
            }
        }
        Ok(given)
    }

    /// `(∇f)` and `~(∇f)`.
    fn gradient_call(
        &mut self,
        fr: &mut Frame<'db>,
        call: DerivativeCall<'db>,
        given: Arguments,
        span: Span,
    ) -> R<()> {
        let Arguments {
            places,
            values,
            companions,
        } = given;
        let seeds: Vec<Value> = companions
            .iter()
            .zip(&values)
            .map(|(c, v)| match c {
                Some(p) => self.take(fr, p, span),
                None => Ok(v.zero_like()),
            })
            .collect::<R<_>>()?;
        let (f, at) = (call.base, fr.site(span));
        let (back, grads) = if call.inverted {
            // `uncall_f_adjoint`, then `~f`.
            let (out, grads) = self.invoke(
                f,
                values,
                Some(seeds),
                Vec::new(),
                Direction::Forward,
                Some(at.clone()),
            )?;
            let (back, _) = self.invoke(f, out, None, Vec::new(), Direction::Backward, Some(at))?;
            (back, grads)
        } else {
            let (out, _) = self.invoke(
                f,
                values,
                None,
                Vec::new(),
                Direction::Forward,
                Some(at.clone()),
            )?;
            self.invoke(
                f,
                out,
                Some(seeds),
                Vec::new(),
                Direction::Backward,
                Some(at),
            )?
        };
        for (p, v) in places.iter().zip(back) {
            if let Some(p) = p {
                self.write(fr, p, v, span)?;
            }
        }
        for (c, g) in companions.iter().zip(grads.unwrap_or_default()) {
            if let Some(p) = c {
                self.write(fr, p, g, span)?;
            }
        }
        Ok(())
    }

    /// `(∂f)` and `~(∂f)`: `f` (or `~f`) on dual numbers.
    fn tangent_call(
        &mut self,
        fr: &mut Frame<'db>,
        call: DerivativeCall<'db>,
        given: Arguments,
        span: Span,
    ) -> R<()> {
        let f = call.base;
        let floats: Vec<bool> = self
            .params(f)
            .iter()
            .map(|(_, ty)| float_typed(ty))
            .collect();
        let mutated = self.info(f).mutated.clone();
        let mut duals = Vec::with_capacity(given.values.len());
        for (k, v) in given.values.iter().enumerate() {
            if !floats.get(k).copied().unwrap_or(false) {
                duals.push(v.clone());
                continue;
            }
            let tangent = match &given.companions[k] {
                Some(p) => Some(self.read(fr, p, span)?),
                None => None,
            };
            let dual = to_dual(v, tangent.as_ref()).map_err(|found| {
                fr.error(
                    span,
                    Check::Unsupported,
                    format!(
                        "a tangent call {} on {found} (it runs on `f64` dual numbers)",
                        call.written(self.db)
                    ),
                    "`f64` values".into(),
                    found.clone(),
                )
            })?;
            duals.push(dual);
        }
        let dir = if call.inverted {
            Direction::Backward
        } else {
            Direction::Forward
        };
        let at = fr.site(span);
        let (out, _) = self.invoke(f, duals, None, Vec::new(), dir, Some(at))?;
        for (k, v) in out.into_iter().enumerate() {
            if !mutated.get(k).copied().unwrap_or(false) {
                continue;
            }
            if !floats.get(k).copied().unwrap_or(false) {
                if let Some(p) = &given.places[k] {
                    self.write(fr, p, v, span)?;
                }
                continue;
            }
            let Some((re, eps)) = split(&v) else {
                return Err(fr.domain(
                    span,
                    format!(
                        "{} left {} where a dual number was",
                        call.written(self.db),
                        v.kind_name()
                    ),
                ));
            };
            if let Some(p) = &given.places[k] {
                self.write(fr, p, re, span)?;
            }
            if let Some(c) = &given.companions[k] {
                self.write(fr, c, eps, span)?;
            }
        }
        Ok(())
    }

    /// In a gradient run: the reverse pass of the derivative call `call`
    /// (as the program that this run is the reverse pass of made it), as
    /// the generated `__grad_f_adjoint`, `__tangent_f_adjoint`, ... take it
    /// (`nilang_codegen::derivatives`). The values are those after the
    /// call and go back to those before it; the adjoints of the arguments
    /// and companions after the call become those before it:
    ///
    /// - `(∂f)`: `f`'s gradient run backwards on duals, from the state
    ///   after the call (values and tangents) with seeds `B + εA` (`B` the
    ///   companions' adjoints, `A` the arguments'): it comes back to the
    ///   state before and leaves `Jᵀ B + ε (…)`, the companions' adjoints
    ///   and the arguments'. `~(∂f)`: the same run forwards.
    /// - `(∇f)`: `~(∇f)` back to the seeds `b`; the arguments' adjoints gain
    ///   the tangent of `Jᵀb` along the companions' adjoints `v` (`(∇f)` on
    ///   duals: a Hessian-vector product), and the companions' adjoints of
    ///   what `f` changes become `J v` (`f` on duals).
    /// - `~(∇f)`: with `u = J⁻¹ B` (`~f` on duals from `F(a) + εB`), the
    ///   arguments' adjoints lose the tangent of `Jᵀb` along `u`, the
    ///   companions' adjoints become `u`, and `(∇f)` runs again.
    pub(super) fn derivative_reverse(
        &mut self,
        fr: &mut Frame<'db>,
        call: DerivativeCall<'db>,
        mask: &[bool],
        args: &[ExprId],
        span: Span,
    ) -> R<()> {
        let given = self.derivative_arguments(fr, call, mask, args, span)?;
        let f = call.base;
        let name = f.name(self.db).clone();
        if call.inverted && db::project_taped(self.db, self.project, false).contains(&name) {
            let info = self.info(f);
            let at = db::function_ast(self.db, f).map_or(0, |a| a.name.span.start);
            return Err(Box::new(RunError {
                location: info.file.location(info.offset + at),
                check: Check::NotDifferentiable,
                what: format!(
                    "the reverse pass of `~({}{name})`: `{name}` records a tape",
                    call.derivative.symbol()
                ),
                // The generated code shows these as strings (`Debug`).
                expected: "\"a reverse pass\"".into(),
                found: "\"none\"".into(),
            }));
        }
        let floats: Vec<bool> = self
            .params(f)
            .iter()
            .map(|(_, ty)| float_typed(ty))
            .collect();
        let mutated: Vec<bool> = (0..mask.len())
            .map(|k| self.info(f).mutated.get(k).copied().unwrap_or(false))
            .collect();
        let mut r = Reverse {
            floats,
            mutated,
            mask: mask.to_vec(),
            a: given.values.clone(),
            c: Vec::with_capacity(mask.len()),
            a_adj: Vec::with_capacity(mask.len()),
            c_adj: Vec::with_capacity(mask.len()),
        };
        for k in 0..mask.len() {
            let zero = given.values[k].zero_like();
            let Some(cp) = &given.companions[k] else {
                r.c.push(zero.clone());
                r.a_adj.push(zero.clone());
                r.c_adj.push(zero);
                continue;
            };
            let Some(ap) = &given.places[k] else {
                return Err(fr.unsupported(
                    span,
                    &format!(
                        "the reverse pass of {} with an argument that is not a place",
                        call.written(self.db)
                    ),
                ));
            };
            r.c.push(self.read(fr, cp, span)?);
            r.a_adj.push(self.grad_read(fr, ap, span)?);
            r.c_adj.push(self.grad_read(fr, cp, span)?);
        }
        let at = fr.site(span);
        match call.derivative {
            Derivative::Tangent => self.tangent_reverse(fr, call, &mut r, &at, span)?,
            Derivative::Gradient if call.inverted => {
                self.ungradient_reverse(fr, call, &mut r, &at, span)?
            }
            Derivative::Gradient => self.gradient_reverse(fr, call, &mut r, &at, span)?,
        }
        for k in 0..mask.len() {
            if let Some(p) = &given.places[k] {
                self.write(fr, p, std::mem::take(&mut r.a[k]), span)?;
                if r.mask[k] {
                    self.grad_write(fr, p, std::mem::take(&mut r.a_adj[k]), span)?;
                }
            }
            if let Some(p) = &given.companions[k] {
                self.write(fr, p, std::mem::take(&mut r.c[k]), span)?;
                self.grad_write(fr, p, std::mem::take(&mut r.c_adj[k]), span)?;
            }
        }
        Ok(())
    }

    /// The arguments as duals: each of `f`'s float type with the dual part
    /// `eps(k)` (zero when `None`), the others as they are.
    fn duals(
        &self,
        fr: &Frame<'db>,
        call: DerivativeCall<'db>,
        floats: &[bool],
        values: &[Value],
        eps: &dyn Fn(usize) -> Option<Value>,
        span: Span,
    ) -> R<Vec<Value>> {
        values
            .iter()
            .enumerate()
            .map(|(k, v)| {
                if !floats[k] {
                    return Ok(v.clone());
                }
                to_dual(v, eps(k).as_ref()).map_err(|found| {
                    fr.unsupported(
                        span,
                        &format!(
                            "the reverse pass of {} on {found} (it runs on `f64` dual numbers)",
                            call.written(self.db)
                        ),
                    )
                })
            })
            .collect()
    }

    /// A part of what a run on duals left, or an error naming the call.
    fn part(
        &self,
        fr: &Frame<'db>,
        call: DerivativeCall<'db>,
        v: &Value,
        which: fn(&Value) -> Option<Value>,
        span: Span,
    ) -> R<Value> {
        which(v).ok_or_else(|| {
            fr.domain(
                span,
                format!(
                    "the reverse pass of {} found {} where a dual number was",
                    call.written(self.db),
                    v.kind_name()
                ),
            )
        })
    }

    /// `(∂f)` / `~(∂f)`: `f`'s gradient run on duals (see
    /// [`Self::derivative_reverse`]).
    fn tangent_reverse(
        &mut self,
        fr: &Frame<'db>,
        call: DerivativeCall<'db>,
        r: &mut Reverse,
        at: &super::Site,
        span: Span,
    ) -> R<()> {
        let d = self.duals(
            fr,
            call,
            &r.floats,
            &r.a,
            &|k| r.mask[k].then(|| r.c[k].clone()),
            span,
        )?;
        let mut seeds = Vec::with_capacity(d.len());
        for (k, v) in d.iter().enumerate() {
            seeds.push(if r.mask[k] {
                to_dual(&r.c_adj[k], Some(&r.a_adj[k]))
                    .map_err(|found| fr.unsupported(span, &format!("an adjoint {found}")))?
            } else {
                v.zero_like()
            });
        }
        // `f_adjoint` is the run backwards; `uncall_f_adjoint` forwards.
        let dir = if call.inverted {
            Direction::Forward
        } else {
            Direction::Backward
        };
        let (back, grads) =
            self.invoke(call.base, d, Some(seeds), Vec::new(), dir, Some(at.clone()))?;
        let grads = grads.unwrap_or_default();
        for k in 0..r.a.len() {
            if r.mask[k] {
                r.a_adj[k] = self.part(fr, call, &grads[k], eps_part, span)?;
                r.c_adj[k] = self.part(fr, call, &grads[k], re_part, span)?;
            }
            if !r.mutated[k] {
                continue;
            }
            if !r.floats[k] {
                r.a[k] = back[k].clone();
                continue;
            }
            r.a[k] = self.part(fr, call, &back[k], re_part, span)?;
            if r.mask[k] {
                r.c[k] = self.part(fr, call, &back[k], eps_part, span)?;
            }
        }
        Ok(())
    }

    /// `f_grad` on the arguments `a` with the seeds `seeds` (by parameter):
    /// the arguments after it, and the adjoints.
    fn grad_run(
        &mut self,
        f: FnId<'db>,
        a: Vec<Value>,
        seeds: Vec<Value>,
        at: &super::Site,
    ) -> R<(Vec<Value>, Vec<Value>)> {
        let (out, _) = self.invoke(f, a, None, Vec::new(), Direction::Forward, Some(at.clone()))?;
        let (back, grads) = self.invoke(
            f,
            out,
            Some(seeds),
            Vec::new(),
            Direction::Backward,
            Some(at.clone()),
        )?;
        Ok((back, grads.unwrap_or_default()))
    }

    /// The tangent of `Jᵀb` at the arguments along `dir` (by parameter,
    /// `b` the companions): `f_grad` on duals, a Hessian-vector product.
    /// Gives its dual parts by parameter with a companion.
    fn hessian_vector(
        &mut self,
        fr: &Frame<'db>,
        call: DerivativeCall<'db>,
        r: &Reverse,
        dir: &dyn Fn(usize) -> Option<Value>,
        at: &super::Site,
        span: Span,
    ) -> R<Vec<Option<Value>>> {
        let h = self.duals(fr, call, &r.floats, &r.a, dir, span)?;
        let mut seeds = Vec::with_capacity(h.len());
        for (k, v) in h.iter().enumerate() {
            seeds.push(if r.mask[k] {
                to_dual(&r.c[k], None)
                    .map_err(|found| fr.unsupported(span, &format!("a companion {found}")))?
            } else {
                v.zero_like()
            });
        }
        let (_, grads) = self.grad_run(call.base, h, seeds, at)?;
        (0..r.a.len())
            .map(|k| match r.mask[k] {
                true => self.part(fr, call, &grads[k], eps_part, span).map(Some),
                false => Ok(None),
            })
            .collect()
    }

    /// `f` (or `~f`) run on `values`, with what it records on the tape
    /// dropped again (the generated code gives it a tape of its own).
    fn run_alone(
        &mut self,
        f: FnId<'db>,
        values: Vec<Value>,
        dir: Direction,
        at: &super::Site,
    ) -> R<Vec<Value>> {
        let mark = self.tape.len();
        let ran = self.invoke(f, values, None, Vec::new(), dir, Some(at.clone()));
        self.tape.truncate(mark);
        Ok(ran?.0)
    }

    /// `(∇f)` (see [`Self::derivative_reverse`]).
    fn gradient_reverse(
        &mut self,
        fr: &Frame<'db>,
        call: DerivativeCall<'db>,
        r: &mut Reverse,
        at: &super::Site,
        span: Span,
    ) -> R<()> {
        let f = call.base;
        // `uncall_f_grad`: back to the seeds.
        let (out, grads) = self.invoke(
            f,
            r.a.clone(),
            Some(r.c.clone()),
            Vec::new(),
            Direction::Forward,
            Some(at.clone()),
        )?;
        let back = self.run_alone(f, out, Direction::Backward, at)?;
        let grads = grads.unwrap_or_default();
        for k in 0..r.a.len() {
            if r.mutated[k] {
                r.a[k] = back[k].clone();
            }
            if r.mask[k] {
                r.c[k] = grads[k].clone();
            }
        }
        // The arguments' adjoints gain the tangent of Jᵀb along v.
        let v = r.c_adj.clone();
        let mask = r.mask.clone();
        let tangent =
            self.hessian_vector(fr, call, r, &|k| mask[k].then(|| v[k].clone()), at, span)?;
        for (k, t) in tangent.into_iter().enumerate() {
            if let Some(t) = t {
                r.a_adj[k] = super::accumulate(&r.a_adj[k], &t);
            }
        }
        // The companions' adjoints of what `f` changes: J v.
        let j = self.duals(
            fr,
            call,
            &r.floats,
            &r.a,
            &|k| mask[k].then(|| v[k].clone()),
            span,
        )?;
        let j = self.run_alone(f, j, Direction::Forward, at)?;
        for (k, v) in j.iter().enumerate() {
            if r.mask[k] && r.mutated[k] {
                r.c_adj[k] = self.part(fr, call, v, eps_part, span)?;
            }
        }
        Ok(())
    }

    /// `~(∇f)` (see [`Self::derivative_reverse`]).
    fn ungradient_reverse(
        &mut self,
        fr: &Frame<'db>,
        call: DerivativeCall<'db>,
        r: &mut Reverse,
        at: &super::Site,
        span: Span,
    ) -> R<()> {
        let f = call.base;
        let mask = r.mask.clone();
        // u = J⁻¹ B: `~f` on duals from F(a) + εB.
        let j = self.duals(fr, call, &r.floats, &r.a, &|_| None, span)?;
        let j = self.run_alone(f, j, Direction::Forward, at)?;
        let mut u = Vec::with_capacity(j.len());
        for (k, v) in j.iter().enumerate() {
            if !r.floats[k] {
                u.push(v.clone());
                continue;
            }
            let re = self.part(fr, call, v, re_part, span)?;
            let eps = mask[k].then(|| r.c_adj[k].clone());
            u.push(
                to_dual(&re, eps.as_ref())
                    .map_err(|found| fr.unsupported(span, &format!("an adjoint {found}")))?,
            );
        }
        let u = self.run_alone(f, u, Direction::Backward, at)?;
        let mut dir = Vec::with_capacity(u.len());
        for k in 0..u.len() {
            dir.push(match (mask[k], r.mutated[k]) {
                (true, true) => Some(self.part(fr, call, &u[k], eps_part, span)?),
                (true, false) => Some(r.c_adj[k].clone()),
                (false, _) => None,
            });
        }
        // The arguments' adjoints lose the tangent of Jᵀb along u.
        let tangent = self.hessian_vector(fr, call, r, &|k| dir[k].clone(), at, span)?;
        for (k, t) in tangent.into_iter().enumerate() {
            if let Some(t) = t {
                r.a_adj[k] = super::accumulate(&r.a_adj[k], &negated(&t));
            }
            if mask[k] && r.mutated[k] {
                r.c_adj[k] = dir[k].clone().unwrap_or_default();
            }
        }
        // Then the companions forwards again: c = Jᵀ b.
        let (back, grads) = self.grad_run(f, r.a.clone(), r.c.clone(), at)?;
        for k in 0..r.a.len() {
            if r.mutated[k] {
                r.a[k] = back[k].clone();
            }
            if r.mask[k] {
                r.c[k] = grads[k].clone();
            }
        }
        Ok(())
    }
}

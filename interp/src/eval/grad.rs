//! Gradients as the language defines them: run the function forwards,
//! give its arguments adjoints (the seeds), and run it backwards with every
//! value carrying its adjoint, as NiLang.jl runs `~f` on `GVar`s.
//!
//! Each instruction the backward run executes undoes one the forward run
//! executed, and before it changes any value it sends the adjoints of what
//! it undoes to what that read: `y -= e(x)` (undoing `y += e(x)`) adds
//! `ȳ ∂e/∂x` to `x̄`, an instruction of the table goes through the transposed
//! matrix of the one it undoes ([`Instruction::adjoint_rows`]), freeing an
//! ancilla sends its adjoint to what its value reads. A zero adjoint adds
//! nothing, even through an infinite partial (the backends' rule).

use super::Error;
use super::wirtinger;
use super::{Frame, Interpreter, Path, R};
use crate::numbers;
use crate::ops::{self, convert};
use crate::value::Value;
use nilang_analysis::ast::{BinaryOp, InstrOp, Span, UnaryOp};
use nilang_analysis::builtins::{self, Instruction, PureFn, Rule};
use nilang_analysis::db;
use nilang_analysis::db::body::{Expr, ExprId};
use nilang_analysis::derivative_rules::{CallRule, Local, call_rule, remainder};

impl<'db> Interpreter<'db> {
    /// `(∇f)(args…, seeds…)`: `f` run forwards, then backwards from its
    /// results with the seeds as their adjoints. Gives the arguments (back
    /// to what they were) and their adjoints `Jᵀ seeds`, by parameter.
    pub fn gradient(
        &mut self,
        name: &str,
        args: Vec<Value>,
        seeds: &[(String, Value)],
    ) -> Result<(Vec<Value>, Vec<Value>), Error> {
        self.gradient_of(name, None, args, seeds)
    }

    /// [`Interpreter::gradient`] of a kernel launched over the invocations
    /// `1..=n` ([`Interpreter::launch`]): the launch, then each
    /// invocation's backward run with adjoints, in the same order.
    pub fn launch_gradient(
        &mut self,
        name: &str,
        n: usize,
        args: Vec<Value>,
        seeds: &[(String, Value)],
    ) -> Result<(Vec<Value>, Vec<Value>), Error> {
        self.gradient_of(name, Some(n), args, seeds)
    }

    fn gradient_of(
        &mut self,
        name: &str,
        launch: Option<usize>,
        args: Vec<Value>,
        seeds: &[(String, Value)],
    ) -> Result<(Vec<Value>, Vec<Value>), Error> {
        let f = self
            .function(name)
            .ok_or_else(|| Error::Usage(format!("no function `{name}` in the files given")))?;
        let params = self.params(f);
        for (seed, _) in seeds {
            if !params.iter().any(|(p, _)| p == seed) {
                return Err(Error::Usage(format!(
                    "`{name}` has no parameter `{seed}` to seed; it has {}",
                    params
                        .iter()
                        .map(|(p, _)| format!("`{p}`"))
                        .collect::<Vec<_>>()
                        .join(", ")
                )));
            }
        }
        let out = match launch {
            Some(n) => self.launch(name, n, args, super::Direction::Forward)?,
            None => self.call(name, args, super::Direction::Forward)?,
        };
        let mut grads: Vec<Value> = out.iter().map(Value::zero_like).collect();
        for ((p, _), g) in params.iter().zip(grads.iter_mut()) {
            if let Some((_, seed)) = seeds.iter().find(|(s, _)| s == p) {
                *g = shaped_like(seed.clone(), g)
                    .map_err(|m| Error::Usage(format!("the seed of `{p}`: {m}")))?;
            }
        }
        let Some(n) = launch else {
            let (back, grads) = self
                .invoke(
                    f,
                    out,
                    Some(grads),
                    Vec::new(),
                    super::Direction::Backward,
                    None,
                )
                .map_err(|e| Error::Run(*e))?;
            return Ok((back, grads.unwrap_or_default()));
        };
        let (mut values, mut grads) = (out, grads);
        for i in 1..=n {
            self.invocation = Some(i as i64);
            let ran = self.invoke(
                f,
                values,
                Some(grads),
                Vec::new(),
                super::Direction::Backward,
                None,
            );
            self.invocation = None;
            let (v, g) = ran.map_err(|e| Error::Run(*e))?;
            (values, grads) = (v, g.unwrap_or_default());
        }
        Ok((values, grads))
    }

    /// NiLang's `check_grad`: each float adjoint of `grads` (from
    /// [`Interpreter::gradient`] with `seeds`) against central differences
    /// of `Σ seed · result`, one input element at a time. Gives the
    /// disagreements (empty when all agree within `1e-6` relative).
    pub fn check_grad(
        &mut self,
        name: &str,
        inputs: &[Value],
        seeds: &[(String, Value)],
        grads: &[Value],
    ) -> Result<Vec<String>, Error> {
        let f = self
            .function(name)
            .ok_or_else(|| Error::Usage(format!("no function `{name}` in the files given")))?;
        let params = self.params(f);
        let weights: Vec<Option<Value>> = params
            .iter()
            .zip(inputs)
            .map(|((p, _), like)| {
                seeds
                    .iter()
                    .find(|(s, _)| s == p)
                    .and_then(|(_, v)| shaped_like(v.clone(), like).ok())
            })
            .collect();
        let loss = |this: &mut Self, args: Vec<Value>| -> Result<f64, Error> {
            let out = this.call(name, args, super::Direction::Forward)?;
            Ok(out
                .iter()
                .zip(&weights)
                .filter_map(|(o, w)| w.as_ref().map(|w| dot(o, w)))
                .sum())
        };
        // An `f64` function computing through `f32` locals rounds like one.
        let f32_inside = db::function_body(self.db, f)
            .as_ref()
            .is_some_and(|b| b.locals.iter().any(|l| l.ty.holds_f32()));
        let mut differs = Vec::new();
        for (i, ((p, _), input)) in params.iter().zip(inputs).enumerate() {
            for k in 0..float_count(input) {
                let x = nth_float(input, k).unwrap_or(0.0);
                // f32 arithmetic needs a wider step and a looser tolerance.
                let (step, tol) = if is_f32(input) || f32_inside {
                    (1e-2, 1e-2)
                } else {
                    (1e-6, 1e-6)
                };
                let h = step * x.abs().max(1.0);
                let mut plus = inputs.to_vec();
                plus[i] = with_nth_float(input, k, x + h);
                let mut minus = inputs.to_vec();
                minus[i] = with_nth_float(input, k, x - h);
                let fd = (loss(self, plus)? - loss(self, minus)?) / (2.0 * h);
                let g = grads.get(i).and_then(|g| nth_float(g, k)).unwrap_or(0.0);
                if (g - fd).abs() > tol * fd.abs().max(1.0) {
                    let at = if float_count(input) > 1 {
                        format!("[{}]", k + 1)
                    } else {
                        String::new()
                    };
                    differs.push(format!(
                        "the adjoint of `{p}{at}` is {g}, central differences give {fd}"
                    ));
                }
            }
        }
        Ok(differs)
    }

    /// Before the executed `target op= value`: the adjoint of the target
    /// goes to what `value` reads, added when the instruction undoes a `+=`
    /// and subtracted when it undoes a `-=`.
    pub(super) fn instr_adjoint(
        &mut self,
        fr: &mut Frame<'db>,
        target: &Path,
        executed: InstrOp,
        value: ExprId,
        span: Span,
    ) -> R<()> {
        // On a log number, `*=` and `/=` add and subtract logarithms, and
        // its adjoint is its logarithm's.
        let current = self.read(fr, target, span)?;
        // A place without an adjoint (a tropical number: `t *= e` adds
        // `e` to its value) sends none, as the generated code sends none.
        if !current.has_adjoint() {
            return Ok(());
        }
        let ulog =
            matches!(executed, InstrOp::Mul | InstrOp::Div) && matches!(current, Value::ULog(_));
        let subtract = match executed {
            InstrOp::Sub => false,
            InstrOp::Add => true,
            InstrOp::Div if ulog => false,
            InstrOp::Mul if ulog => true,
            InstrOp::Xor => return Ok(()),
            InstrOp::Mul | InstrOp::Div | InstrOp::Assign => {
                return Err(fr.not_differentiable(span, "`*=` and `/=`"));
            }
        };
        let cot = self.grad_read(fr, target, span)?;
        let cot = if subtract { negate_all(&cot) } else { cot };
        let cot = if ulog {
            numbers::through_log(cot, &self.eval(fr, value)?)
        } else {
            cot
        };
        self.backprop(fr, value, cot, span)
    }

    /// Before the executed `view op= value` on a view of places: `z' += e`
    /// changes `z` by `conj(e)`, so `e` gets the conjugate of `z`'s
    /// adjoint; `(s, c) += e` changes each place by its part of the tuple
    /// `e` (`sincos(a)`, or a tuple written out), which gets the places'
    /// adjoints, part by part.
    pub(super) fn view_adjoint(
        &mut self,
        fr: &mut Frame<'db>,
        view: &super::View,
        executed: InstrOp,
        value: ExprId,
        span: Span,
    ) -> R<()> {
        let subtract = match executed {
            InstrOp::Sub => false,
            InstrOp::Add => true,
            InstrOp::Xor => return Ok(()),
            _ => {
                return Err(fr.not_differentiable(
                    span,
                    "the interpreter has no adjoint rule for `*=`, `/=` or `=` on a view of places",
                ));
            }
        };
        let signed = |cot: Value| if subtract { negate_all(&cot) } else { cot };
        match view {
            super::View::Conj(inner) => {
                let Some(p) = self.path(fr, *inner)? else {
                    return Ok(());
                };
                let cot = match signed(self.grad_read(fr, &p, span)?) {
                    Value::Complex(re, im) => Value::Complex(re, -im),
                    cot => cot,
                };
                self.backprop(fr, value, cot, span)
            }
            super::View::Tuple(items) => {
                let mut cots = Vec::with_capacity(items.len());
                for &item in items {
                    cots.push(match self.path(fr, item)? {
                        Some(p) => signed(self.grad_read(fr, &p, span)?),
                        None => Value::F64(0.0),
                    });
                }
                let body = fr.body;
                match &body.expr(value).kind {
                    Expr::Tuple(parts) if parts.len() == cots.len() => {
                        for (&part, cot) in parts.iter().zip(cots) {
                            self.backprop(fr, part, cot, span)?;
                        }
                        Ok(())
                    }
                    // sincos(a) = (sin a, cos a): ā += s̄ cos a - c̄ sin a.
                    Expr::Pure {
                        func: PureFn::Sincos,
                        args,
                        broadcast: false,
                    } if args.len() == 1 && cots.len() == 2 => {
                        let a = self.operand(fr, args[0])?;
                        let (Some(x), Some(ds), Some(dc)) =
                            (real(&a), real(&cots[0]), real(&cots[1]))
                        else {
                            return Err(fr.not_differentiable(span, "`sincos` of this value"));
                        };
                        let share = like(ds * x.cos() - dc * x.sin(), &a);
                        self.backprop(fr, args[0], share, span)
                    }
                    _ => Err(fr.not_differentiable(
                        span,
                        "the interpreter has no adjoint rule for this tuple of values",
                    )),
                }
            }
        }
    }

    /// After an overwrite in a tape loop is undone (the old value back):
    /// the adjoint `cot` of the value it had written goes to what made it,
    /// `e` for `x = e`, `x` and `e` for `x *= e` and `x /= e`.
    pub(super) fn overwrite_adjoint(
        &mut self,
        fr: &mut Frame<'db>,
        target: ExprId,
        op: InstrOp,
        value: ExprId,
        cot: Value,
        span: Span,
    ) -> R<()> {
        let bop = match op {
            InstrOp::Mul => BinaryOp::Mul,
            InstrOp::Div => BinaryOp::Div,
            _ => return self.backprop(fr, value, cot, span),
        };
        if let Value::Complex(re, im) = cot {
            // A complex place: through the product's Wirtinger pairs.
            return if self.send_binary(fr, bop, target, value, (re, im), span)? {
                Ok(())
            } else {
                Err(fr.not_differentiable(span, "this overwrite"))
            };
        }
        let (x, v) = (self.operand(fr, target)?, self.operand(fr, value)?);
        let partials = binary_partials(bop, &x, &v)
            .ok_or_else(|| fr.not_differentiable(span, "this overwrite"))?;
        self.chain(fr, &[target, value], partials, &cot, span)
    }

    /// The value of `e` as a local derivative reads it: in the reverse
    /// pass's float (`Frame::scalar`), as the Rust backend converts it.
    pub(super) fn operand(&mut self, fr: &mut Frame<'db>, e: ExprId) -> R<Value> {
        Ok(super::in_scalar(self.eval(fr, e)?, fr.scalar))
    }

    /// Sends the cotangent `cot` of `e`'s value to the places `e` reads.
    pub(super) fn backprop(
        &mut self,
        fr: &mut Frame<'db>,
        e: ExprId,
        cot: Value,
        span: Span,
    ) -> R<()> {
        if !cot.has_adjoint() || cot.is_zero() {
            return Ok(());
        }
        if let Value::Complex(re, im) = cot {
            return self.backprop_complex(fr, e, (re, im), span);
        }
        if let Value::F64(c) = cot
            && self.backprop_f64(fr, e, c, span)?
        {
            return Ok(());
        }
        let body = fr.body;
        let scalar = matches!(cot, Value::F64(_) | Value::F32(_) | Value::Dual(..));
        match &body.expr(e).kind {
            Expr::Local(_) | Expr::Index { .. } | Expr::Field { .. } => {
                if let Some(p) = self.path(fr, e)? {
                    self.add_grad(fr, &p, cot, span)?;
                }
                Ok(())
            }
            // A struct built from values: each field's adjoint goes to
            // the value it was built from.
            Expr::Construct { args, .. } if matches!(cot, Value::Struct { .. }) => {
                let Value::Struct { fields, .. } = &cot else {
                    unreachable!("matched a struct")
                };
                for (&a, (_, g)) in args.iter().zip(fields.iter()) {
                    self.backprop(fr, a, g.clone(), span)?;
                }
                Ok(())
            }
            // A partial application: the adjoints of its captured values.
            Expr::Partial { args, .. } => {
                if let Value::Partial(_, captured) = &cot {
                    for (a, g) in args.iter().zip(captured.iter()) {
                        if let (Some(a), Some(g)) = (a, g) {
                            self.backprop(fr, *a, g.clone(), span)?;
                        }
                    }
                }
                Ok(())
            }
            // A value that depends on no place (`zeros(T, n)`); `imag` and
            // `angle` do, of a complex number.
            Expr::Pure { func, .. }
                if matches!(pure_partials(*func, &[]), Some(v) if v.is_empty())
                    && !matches!(func, PureFn::Imag | PureFn::Angle) =>
            {
                Ok(())
            }
            // An element-wise operation (a broadcast): the rule of each
            // element, a scalar operand collecting over all of them.
            Expr::Binary { op, lhs, rhs } if !scalar => {
                let values = [self.operand(fr, *lhs)?, self.operand(fr, *rhs)?];
                let op = op.scalar();
                self.chain_each(
                    fr,
                    &[*lhs, *rhs],
                    &values,
                    (&cot, op == BinaryOp::Div),
                    span,
                    &|vs: &[Value]| binary_partials(op, &vs[0], &vs[1]),
                    &|vs: &[Value]| {
                        wirtinger::binary_pairs(op, &vs[0], &vs[1])
                            .map(|[p, q]| vec![Some(p), Some(q)])
                    },
                )
            }
            Expr::Pure { func, args, .. } if !scalar => {
                let mut values = Vec::with_capacity(args.len());
                for &a in args {
                    values.push(self.operand(fr, a)?);
                }
                let func = *func;
                self.chain_each(
                    fr,
                    args,
                    &values,
                    // Where the rule has a pole, the generated code guards the
                    // cotangent's product (`nilang::adjoint::times`).
                    (&cot, call_rule(func, args.len()).has_pole()),
                    span,
                    &|vs: &[Value]| pure_partials(func, vs),
                    &|vs: &[Value]| match vs {
                        [v] => wirtinger::pure_pair(func, v).map(|p| vec![p]),
                        _ => None,
                    },
                )
            }
            Expr::Unary {
                op: UnaryOp::Neg,
                operand,
            } if !scalar => self.backprop(fr, *operand, negate_all(&cot), span),
            Expr::Unary {
                op: UnaryOp::Plus,
                operand,
            }
            | Expr::Conj(operand)
                if !scalar =>
            {
                self.backprop(fr, *operand, cot, span)
            }
            _ if !scalar => Err(fr.not_differentiable(
                span,
                &format!("an expression whose adjoint is {}", cot.kind_name()),
            )),
            Expr::Int(_)
            | Expr::Float(_)
            | Expr::Bool(_)
            | Expr::Str(_)
            | Expr::Name(_)
            | Expr::Function(_) => Ok(()),
            Expr::Conj(inner) => self.backprop(fr, *inner, cot, span),
            Expr::Unary { op, operand } => match op {
                UnaryOp::Neg => {
                    let n = ops::negate(&cot).map_err(|m| fr.domain(span, m))?;
                    self.backprop(fr, *operand, n, span)
                }
                UnaryOp::Plus => self.backprop(fr, *operand, cot, span),
                UnaryOp::Not => Ok(()),
            },
            Expr::Binary { op, lhs, rhs } => {
                let (l, r) = (self.operand(fr, *lhs)?, self.operand(fr, *rhs)?);
                let partials = binary_partials(*op, &l, &r)
                    .ok_or_else(|| fr.not_differentiable(span, &format!("`{}`", op.as_str())))?;
                self.chain(fr, &[*lhs, *rhs], partials, &cot, span)
            }
            Expr::Pure {
                func,
                args,
                broadcast,
            } => {
                if *broadcast {
                    return Err(fr.not_differentiable(span, "a broadcast call"));
                }
                let mut values = Vec::with_capacity(args.len());
                for &a in args {
                    values.push(self.operand(fr, a)?);
                }
                // A real function of a complex number (`abs`, `real`, ...):
                // its Wirtinger pair (`wirtinger.rs`) takes the real
                // cotangent to a complex adjoint.
                if let ([z @ Value::Complex(..)], [a]) = (values.as_slice(), args.as_slice())
                    && let (Some(pair), Some(c)) = (wirtinger::pure_pair(*func, z), real(&cot))
                {
                    return match pair.and_then(|p| wirtinger::share((c, 0.0), p, z)) {
                        Some(share) => self.backprop(fr, *a, share, span),
                        None => Ok(()),
                    };
                }
                let partials = pure_partials(*func, &values).ok_or_else(|| {
                    fr.not_differentiable(span, &format!("`{}` of these arguments", func.name()))
                })?;
                self.chain(fr, args, partials, &cot, span)
            }
            Expr::Construct { name, .. } => {
                Err(fr.not_differentiable(span, &format!("the constructor `{name}`")))
            }
            Expr::Tuple(_) | Expr::Macro { .. } | Expr::Missing => {
                Err(fr.not_differentiable(span, "this expression"))
            }
        }
    }

    /// [`Self::backprop`] of a non-zero `f64` cotangent into the forms
    /// scalar code is made of, without the general path's places, lists of
    /// partials and `Value` arithmetic: a local or an element of a local
    /// array whose adjoint is an `f64`, `+ - * /` of two `f64`s, and
    /// `identity` of one. Each computes what the general path computes
    /// (`add_grad`'s sum, `binary_partials` times the cotangent, in the
    /// same order); `false`, with nothing evaluated, for anything else.
    fn backprop_f64(&mut self, fr: &mut Frame<'db>, e: ExprId, c: f64, span: Span) -> R<bool> {
        let body = fr.body;
        match &body.expr(e).kind {
            Expr::Local(l) => match fr.grads.as_mut().map(|g| &mut g[*l]) {
                Some(Value::F64(g)) => {
                    *g += c;
                    Ok(true)
                }
                _ => Ok(false),
            },
            Expr::Index { base, indices } => {
                let Some((l, k)) = super::local_element(fr, *base, indices) else {
                    return Ok(false);
                };
                match fr.grads.as_mut().map(|g| &mut g[l]) {
                    Some(Value::Array(items)) if matches!(items.get(k), Some(Value::F64(_))) => {
                        if let Value::F64(g) = &mut std::rc::Rc::make_mut(items)[k] {
                            *g += c;
                        }
                        Ok(true)
                    }
                    _ => Ok(false),
                }
            }
            Expr::Binary { op, lhs, rhs }
                if matches!(
                    op,
                    BinaryOp::Add | BinaryOp::Sub | BinaryOp::Mul | BinaryOp::Div
                ) =>
            {
                let (l, r) = (self.operand(fr, *lhs)?, self.operand(fr, *rhs)?);
                let (Value::F64(a), Value::F64(b)) = (&l, &r) else {
                    // The general path's rule, on the values evaluated.
                    let partials = binary_partials(*op, &l, &r).ok_or_else(|| {
                        fr.not_differentiable(span, &format!("`{}`", op.as_str()))
                    })?;
                    self.chain(fr, &[*lhs, *rhs], partials, &Value::F64(c), span)?;
                    return Ok(true);
                };
                let (dl, dr) = match op {
                    BinaryOp::Add => (1.0, 1.0),
                    BinaryOp::Sub => (1.0, -1.0),
                    BinaryOp::Mul => (*b, *a),
                    _ => (1.0 / b, -a / (b * b)),
                };
                self.backprop(fr, *lhs, Value::F64(c * dl), span)?;
                self.backprop(fr, *rhs, Value::F64(c * dr), span)?;
                Ok(true)
            }
            Expr::Pure {
                func: PureFn::Identity | PureFn::Value | PureFn::Unwrap,
                args,
                broadcast: false,
            } if args.len() == 1 => match self.operand(fr, args[0])? {
                Value::F64(_) => {
                    self.backprop(fr, args[0], Value::F64(c * 1.0), span)?;
                    Ok(true)
                }
                // The general path evaluates it again: no effects.
                _ => Ok(false),
            },
            _ => Ok(false),
        }
    }

    /// [`Self::chain`] element by element, for an array or matrix `cot`;
    /// where an element or its cotangent is complex, through the Wirtinger
    /// pairs `pairs` gives (`wirtinger.rs`).
    #[allow(clippy::too_many_arguments)]
    fn chain_each(
        &mut self,
        fr: &mut Frame<'db>,
        operands: &[ExprId],
        values: &[Value],
        (cot, guarded): (&Value, bool),
        span: Span,
        partials: &dyn Fn(&[Value]) -> Partials,
        pairs: &dyn Fn(&[Value]) -> Pairs,
    ) -> R<()> {
        let cots = elements(cot);
        let mut shares: Vec<Vec<Value>> = vec![Vec::with_capacity(cots.len()); operands.len()];
        for (k, c) in cots.iter().enumerate() {
            let at: Vec<Value> = values.iter().map(|v| element(v, k)).collect();
            let complex = wirtinger::parts(c).or_else(|| {
                at.iter()
                    .any(|v| wirtinger::parts(v).is_some())
                    .then(|| (real(c).unwrap_or(0.0), 0.0))
            });
            if let Some(c) = complex {
                let ps = pairs(&at).ok_or_else(|| {
                    fr.not_differentiable(span, "this element-wise operation on complex numbers")
                })?;
                for (j, p) in ps.into_iter().enumerate() {
                    let share = p
                        .and_then(|p| wirtinger::share(c, p, &at[j]))
                        .unwrap_or_else(|| at[j].zero_like());
                    if let Some(s) = shares.get_mut(j) {
                        s.push(share);
                    }
                }
                continue;
            }
            let ps = partials(&at)
                .ok_or_else(|| fr.not_differentiable(span, "this element-wise operation"))?;
            for (j, p) in ps.into_iter().enumerate() {
                let share = match p {
                    Some(_) if guarded && c.is_zero() => c.zero_like(),
                    Some(d) => ops::binary(BinaryOp::Mul, c, &d).map_err(|m| fr.domain(span, m))?,
                    None => c.zero_like(),
                };
                if let Some(s) = shares.get_mut(j) {
                    s.push(share);
                }
            }
        }
        for ((&a, v), share) in operands.iter().zip(values).zip(shares) {
            let cot_a = match v {
                Value::Array(_) => Value::Array(std::rc::Rc::new(share)),
                Value::Matrix { rows, cols, .. } => Value::Matrix {
                    rows: *rows,
                    cols: *cols,
                    data: std::rc::Rc::new(share),
                },
                v => share
                    .iter()
                    .fold(v.zero_like(), |acc, s| super::accumulate(&acc, s)),
            };
            self.backprop(fr, a, cot_a, span)?;
        }
        Ok(())
    }

    /// `cot · ∂` sent to each operand that has a partial.
    fn chain(
        &mut self,
        fr: &mut Frame<'db>,
        operands: &[ExprId],
        partials: Vec<Option<Value>>,
        cot: &Value,
        span: Span,
    ) -> R<()> {
        for (&a, d) in operands.iter().zip(partials) {
            let Some(d) = d else { continue };
            let c = ops::binary(BinaryOp::Mul, cot, &d).map_err(|m| fr.domain(span, m))?;
            self.backprop(fr, a, c, span)?;
        }
        Ok(())
    }

    /// Adds `cot` to the adjoint of a place (integers have none).
    fn add_grad(&mut self, fr: &mut Frame<'db>, p: &Path, cot: Value, span: Span) -> R<()> {
        let g = self.grad_read(fr, p, span)?;
        let sum = super::accumulate(&g, &cot);
        self.grad_write(fr, p, sum, span)
    }

    /// Before the executed instruction `x` changes its arguments: their
    /// adjoints go through the transposed matrix of the instruction it
    /// undoes, and an angle's adjoint gets its share.
    pub(super) fn instruction_adjoint(
        &mut self,
        fr: &mut Frame<'db>,
        x: &'static Instruction,
        paths: &[Path],
        current: &[Value],
        args: &[ExprId],
        span: Span,
    ) -> R<()> {
        let Some(undone) = builtins::instruction(x.inverse) else {
            return Ok(());
        };
        if current.iter().any(crate::dual::holds_dual) {
            return Err(fr.unsupported(
                span,
                "the adjoint rule of an instruction on dual numbers (in the reverse pass of a derivative call)",
            ));
        }
        let after: Vec<Value> = paths
            .iter()
            .map(|p| self.grad_read(fr, p, span))
            .collect::<R<_>>()?;
        let real = |v: &Value| {
            v.as_f64()
                .filter(|_| matches!(v, Value::F64(_) | Value::F32(_)))
        };
        match undone.rule {
            Rule::Linear { angle, dangle, .. } => {
                let theta = match angle {
                    Some(k) => {
                        let v = self.eval(fr, args[k])?;
                        v.as_f64().unwrap_or(0.0)
                    }
                    None => 0.0,
                };
                // An angle that is a local takes its share term by term in
                // its adjoint's float, `θ̄ += ā_i · d new_i / dθ` for each
                // `i` whose `ā_i` is not zero, as the generated code adds
                // them (bit for bit in `f32` too).
                let local_angle = angle.and_then(|k| match fr.body.expr(args[k]).kind {
                    Expr::Local(l) => Some(l),
                    _ => None,
                });
                if let Some(l) = local_angle
                    && let Some(grads) = &mut fr.grads
                    && matches!(grads[l], Value::F64(_) | Value::F32(_))
                {
                    let cur = |j: usize| current.get(j).and_then(real).unwrap_or(0.0);
                    // `dangle`'s factors are ±1, read at no angle, as
                    // `Factors::angle_derivatives` renders them.
                    for (i, row) in dangle.iter().enumerate() {
                        let t = after.get(i).and_then(real).unwrap_or(0.0);
                        match &mut grads[l] {
                            Value::F32(acc) => {
                                let d = jacobian_row(row, |j| cur(j) as f32, |f| f.at_f32(0.0));
                                if t as f32 != 0.0 {
                                    *acc += t as f32 * d;
                                }
                            }
                            Value::F64(acc) => {
                                let d = jacobian_row(row, cur, |f| f.at(0.0));
                                if t != 0.0 {
                                    *acc += t * d;
                                }
                            }
                            _ => {}
                        }
                    }
                } else if let Some(k) = angle {
                    // dθ: Σ_i ā_i · d new_i / dθ, with d new / dθ read off
                    // the current (new) values.
                    let mut share = 0.0;
                    for (i, row) in dangle.iter().enumerate() {
                        let g = after.get(i).and_then(real).unwrap_or(0.0);
                        for &(j, f) in *row {
                            share += g * f.at(theta) * current.get(j).and_then(real).unwrap_or(0.0);
                        }
                    }
                    // In the reverse pass's float: an `f32` angle of an
                    // `f64` function gets an `f64` share, not one rounded.
                    let like = self.operand(fr, args[k])?;
                    let share = convert(Value::F64(share), &like).unwrap_or(Value::F64(share));
                    self.backprop(fr, args[k], share, span)?;
                }
                let Some(rows) = x.adjoint_rows() else {
                    return Ok(());
                };
                for (i, row) in rows.iter().enumerate() {
                    let Some(like) = after.get(i) else { continue };
                    // Complex adjoints go through the same real factors,
                    // part by part.
                    if let Value::Complex(..) = like {
                        let (mut re, mut im) = (0.0, 0.0);
                        for &(j, f) in row {
                            if let Some(Value::Complex(r, m)) = after.get(j) {
                                re += f.at(theta) * r;
                                im += f.at(theta) * m;
                            }
                        }
                        self.grad_write(fr, &paths[i], Value::Complex(re, im), span)?;
                        continue;
                    }
                    if !matches!(like, Value::F64(_) | Value::F32(_)) {
                        // A whole struct or array moved by a permutation
                        // (`SWAP(p, q)` of two `Pt`s): its adjoint moves
                        // with it, whatever it holds.
                        if let [(j, f)] = row.as_slice()
                            && f.at(theta) == 1.0
                            && let Some(moved) = after.get(*j)
                        {
                            self.grad_write(fr, &paths[i], moved.clone(), span)?;
                        }
                        continue;
                    }
                    let adj = |j: usize| after.get(j).and_then(real).unwrap_or(0.0);
                    // In the adjoint's own float, factors and all, as the
                    // generated code computes it (`G = T`): an `f32` row
                    // rounded in `f32` at each step, not once at the end
                    // (typed_random, seed 0x7777_0000_aaaa_5555, 763).
                    let g = match like {
                        Value::F32(_) => Value::F32(jacobian_row(
                            row,
                            |j| adj(j) as f32,
                            |f| f.at_f32(theta as f32),
                        )),
                        _ => Value::F64(jacobian_row(row, adj, |f| f.at(theta))),
                    };
                    self.grad_write(fr, &paths[i], g, span)?;
                }
                Ok(())
            }
            Rule::Scale { by, divide } => {
                let n = self.eval(fr, args[by])?;
                let op = if divide { BinaryOp::Div } else { BinaryOp::Mul };
                if let Some(g) = after.first().filter(|g| real(g).is_some()) {
                    let g2 = ops::binary(op, g, &n)
                        .and_then(|v| convert(v, g))
                        .map_err(|m| fr.domain(span, m))?;
                    self.grad_write(fr, &paths[0], g2, span)?;
                }
                Ok(())
            }
            Rule::Shift { .. } => Ok(()),
            // The adjoint of a complex number conjugated is conjugated.
            Rule::Conj => match after.first() {
                Some(Value::Complex(re, im)) => {
                    self.grad_write(fr, &paths[0], Value::Complex(*re, -im), span)
                }
                _ => Ok(()),
            },
            Rule::Stack => self.stack_adjoint(fr, x, paths, args, span),
        }
    }

    /// A stack instruction moves adjoints as it moves values: the adjoint
    /// of a stack is a stack of adjoints.
    fn stack_adjoint(
        &mut self,
        fr: &mut Frame<'db>,
        x: &Instruction,
        paths: &[Path],
        args: &[ExprId],
        span: Span,
    ) -> R<()> {
        let Some(stack) = paths.first() else {
            return Ok(());
        };
        let Value::Stack(mut items, elem) = self.grad_read(fr, stack, span)? else {
            return Ok(());
        };
        let item = match paths.get(1) {
            Some(p) => self.grad_read(fr, p, span)?,
            None => match self.path(fr, args[1])? {
                Some(p) => self.grad_read(fr, &p, span)?,
                None => return Ok(()),
            },
        };
        let empty = || fr.not_differentiable(span, "a pop from an empty adjoint stack");
        let list = std::rc::Rc::make_mut(&mut items);
        let item_out = match x.name {
            "PUSH!" => {
                let zero = item.zero_like();
                list.push(item);
                Some(zero)
            }
            "POP!" => Some(list.pop().ok_or_else(empty)?),
            "COPYPUSH!" => {
                list.push(item.zero_like());
                None
            }
            _ => {
                let top = list.pop().ok_or_else(empty)?;
                let sum = ops::binary(BinaryOp::Add, &item, &top).unwrap_or(item);
                if let Some(p) = self.path(fr, args[1])? {
                    self.grad_write(fr, &p, sum, span)?;
                }
                None
            }
        };
        self.grad_write(fr, stack, Value::Stack(items, elem), span)?;
        if let (Some(v), Some(p)) = (item_out, paths.get(1)) {
            self.grad_write(fr, p, v, span)?;
        }
        Ok(())
    }
}

/// The partial derivative by each operand (`None` for an operand without
/// one), or `None` when there is no rule for these operands.
type Partials = Option<Vec<Option<Value>>>;

/// The Wirtinger pairs of a complex operation by each operand (`None` for
/// one without a pair); `None` overall where there is no rule.
type Pairs = Option<Vec<Option<wirtinger::Pair>>>;

/// A seed given for a parameter: a number for a scalar, or an array of
/// the parameter's shape.
fn shaped_like(seed: Value, like: &Value) -> Result<Value, String> {
    match (like, seed) {
        (Value::Array(items), Value::Array(seeds)) if items.len() == seeds.len() => {
            Ok(Value::Array(std::rc::Rc::new(
                items
                    .iter()
                    .zip(seeds.iter())
                    .map(|(l, s)| shaped_like(s.clone(), l))
                    .collect::<Result<_, _>>()?,
            )))
        }
        (Value::Matrix { rows, cols, data }, s) => {
            let seeds = match s {
                Value::Matrix { data: seeds, .. } if seeds.len() == data.len() => (*seeds).clone(),
                s if s.is_number() => vec![s; data.len()],
                s => {
                    return Err(format!(
                        "expected a seed shaped like {like}, found {}",
                        s.kind_name()
                    ));
                }
            };
            Ok(Value::Matrix {
                rows: *rows,
                cols: *cols,
                data: std::rc::Rc::new(
                    data.iter()
                        .zip(seeds)
                        .map(|(l, s)| shaped_like(s, l))
                        .collect::<Result<_, _>>()?,
                ),
            })
        }
        (Value::Array(items), s) if s.is_number() => Ok(Value::Array(std::rc::Rc::new(
            items
                .iter()
                .map(|l| shaped_like(s.clone(), l))
                .collect::<Result<_, _>>()?,
        ))),
        // A struct's seed is a struct of the same name (each field's seed),
        // or one number for every field.
        (Value::Struct { name, fields }, s) => {
            let seeds: Vec<Value> = match &s {
                Value::Struct {
                    name: n,
                    fields: seeds,
                } if n == name && seeds.len() == fields.len() => {
                    seeds.iter().map(|(_, v)| v.clone()).collect()
                }
                // Integer and boolean fields carry no derivative: 0.
                s if s.is_number() => fields
                    .iter()
                    .map(|(_, l)| match l {
                        Value::Int(..) | Value::Bool(_) => Value::F64(0.0),
                        _ => s.clone(),
                    })
                    .collect(),
                s => {
                    return Err(format!(
                        "expected a seed shaped like {like}, found {}",
                        s.kind_name()
                    ));
                }
            };
            Ok(Value::Struct {
                name: name.clone(),
                fields: std::rc::Rc::new(
                    fields
                        .iter()
                        .zip(seeds)
                        .map(|((f, l), s)| Ok((f.clone(), shaped_like(s, l)?)))
                        .collect::<Result<_, String>>()?,
                ),
            })
        }
        // A log number's seed is its logarithm's.
        (Value::ULog(log), s) => shaped_like(s, log),
        (l, s) if l.is_number() && s.is_number() => convert(s, l),
        (l, s) => Err(format!(
            "expected a seed shaped like {}, found {}",
            l,
            s.kind_name()
        )),
    }
}

fn real(v: &Value) -> Option<f64> {
    match v {
        Value::F64(x) => Some(*x),
        Value::F32(x) => Some(*x as f64),
        Value::Int(x, _) => Some(*x as f64),
        _ => None,
    }
}

/// The partials of a function of two arguments (the catalogue's
/// `partials`) at its real or dual arguments and its `value`, computed in
/// the type of its first float argument as the generated code converts
/// them; an integer argument has none. `None` where an argument is
/// another kind of value (a number system: its own rules).
fn binary_rule(partials: [Local; 2], [a, b]: [&Value; 2], value: Value) -> Partials {
    let float = |v: &Value| matches!(v, Value::F64(_) | Value::F32(_) | Value::Dual(..));
    if ![a, b]
        .iter()
        .all(|v| float(v) || matches!(v, Value::Int(..) | Value::Bool(_)))
    {
        return None;
    }
    let Some(like) = [a, b].into_iter().find(|v| float(v)) else {
        return Some(vec![None, None]);
    };
    let [x, y, r] = [a.clone(), b.clone(), value].map(|v| convert(v, like).ok());
    let (x, y, r) = (x?, y?, r?);
    let mut out = Vec::with_capacity(2);
    for (arg, p) in [a, b].into_iter().zip(&partials) {
        out.push(match float(arg) {
            true => Some(crate::local::partial(p, [&x, &y, &r])?),
            false => None,
        });
    }
    Some(out)
}

/// A partial in the type of the operand it multiplies (`f32` stays `f32`).
fn like(x: f64, v: &Value) -> Value {
    match v {
        Value::F32(_) => Value::F32(x as f32),
        _ => Value::F64(x),
    }
}

/// The partials of `l op r` by each operand (`None`: none, an integer
/// or a comparison); `None` overall when the operator has no rule here.
fn binary_partials(op: BinaryOp, l: &Value, r: &Value) -> Partials {
    use BinaryOp::*;
    // The remainder's partials from the catalogue, of reals and duals.
    if op == Rem
        && let Ok(value) = ops::binary(Rem, l, r)
        && let Some(p) = binary_rule(remainder(), [l, r], value)
    {
        return Some(p);
    }
    if matches!(l, Value::Dual(..)) || matches!(r, Value::Dual(..)) {
        return crate::dual::binary_partials(op, l, r);
    }
    let (Some(a), Some(b)) = (real(l), real(r)) else {
        // Log numbers by their logarithms; fixed-point and tropical
        // numbers carry no derivative.
        if let Some(p) = numbers::ulog_partials(op, l, r) {
            return Some(p);
        }
        if numbers::is_number_system(l) || numbers::is_number_system(r) {
            return Some(vec![None, None]);
        }
        return None;
    };
    let float = |v: &Value| matches!(v, Value::F64(_) | Value::F32(_));
    let on = |v: &Value, x: f64| float(v).then(|| like(x, v));
    Some(match op {
        Add => vec![on(l, 1.0), on(r, 1.0)],
        Sub => vec![on(l, 1.0), on(r, -1.0)],
        Mul => vec![on(l, b), on(r, a)],
        Div => vec![on(l, 1.0 / b), on(r, -a / (b * b))],
        Pow => match r {
            Value::Int(n, _) => vec![
                on(
                    l,
                    if *n == 0 {
                        0.0
                    } else {
                        *n as f64 * a.powi(*n as i32 - 1)
                    },
                ),
                None,
            ],
            // At x = 0: p x^(p-1) is the subgradient 0 where it is
            // infinite (p < 1), 1 for p = 1; x^p ln x is 0 (the Rust
            // backend's rule, computed as it computes it).
            _ => {
                let at_zero = |q: f64| if a == 0.0 { 0.0 } else { q };
                let one_at_zero = (a == 0.0) as u8 as f64 * (b == 1.0) as u8 as f64;
                let dl = at_zero(b * a.powf(b - 1.0)) + one_at_zero;
                vec![on(l, dl), on(r, at_zero(a.ln() * a.powf(b)))]
            }
        },
        // Above.
        Rem => return None,
        IntDiv => vec![None, None],
        Eq | Ne | Lt | Le | Gt | Ge | And | Or | BitAnd | BitOr | Xor | Shl | Shr => {
            vec![None, None]
        }
        DotAdd | DotSub | DotMul | DotDiv | DotPow => return None,
    })
}

/// The real part of an adjoint: what flows back through a real-valued
/// function (the imaginary part multiplies a zero derivative), or into a
/// place a typecast makes real again.
pub(super) fn real_part(cot: &Value) -> Value {
    match cot {
        Value::Complex(re, _) => Value::F64(*re),
        v => v.clone(),
    }
}

/// The partials of a pure function by each argument, at real arguments.
fn pure_partials(func: PureFn, args: &[Value]) -> Partials {
    use PureFn as P;
    // Complex arguments have no rules here (the backends take Wirtinger
    // pairs): no rule, rather than a partial silently left out.
    if args.iter().any(|a| matches!(a, Value::Complex(..))) {
        return None;
    }
    // A function of one float or dual argument: its rule from the
    // catalogue, in the argument's own type.
    let rule = call_rule(func, args.len());
    if let (CallRule::Unary(rule), [v @ (Value::F64(_) | Value::F32(_) | Value::Dual(..))]) =
        (rule, args)
    {
        return Some(vec![Some(crate::local::derivative(&rule, v)?)]);
    }
    // Of two: its partials from the catalogue, at the call's value.
    if let (CallRule::Binary(partials), [a, b]) = (rule, args) {
        let value = match crate::pure::call(func, args) {
            Ok(crate::pure::Out::Value(v)) => v,
            _ => return None,
        };
        return binary_rule(partials, [a, b], value);
    }
    if args.iter().any(|a| matches!(a, Value::Dual(..))) {
        return crate::dual::pure_partials(func, args);
    }
    if (matches!(func, P::Ulog | P::Fixed | P::Tropical)
        || args.iter().any(numbers::is_number_system))
        && let Some(p) = numbers::pure_partials(func, args)
    {
        return p;
    }
    let float = |v: &Value| matches!(v, Value::F64(_) | Value::F32(_));
    let one = |d: f64| -> Partials {
        let v = args.first()?;
        Some(vec![float(v).then(|| like(d, v))])
    };
    let none = || Some(vec![None; args.len()]);
    // Of an integer: none.
    if let (CallRule::Unary(_), [v]) = (rule, args) {
        real(v)?;
        return Some(vec![None]);
    }
    match func {
        P::Identity | P::Value | P::Unwrap | P::Real | P::Conj | P::Float => one(1.0),
        // The functions of one and two arguments have their rules above.
        P::Atan
        | P::Min
        | P::Max
        | P::Rem
        | P::Mod
        | P::Logaddexp
        | P::Logsubexp
        | P::Abs
        | P::Abs2
        | P::Sqrt
        | P::Exp
        | P::Log
        | P::Sin
        | P::Cos
        | P::Tan
        | P::Sinh
        | P::Cosh
        | P::Tanh
        | P::Asin
        | P::Acos
        | P::Inv => None,
        P::Sign
        | P::Floor
        | P::Ceil
        | P::Round
        | P::Div
        | P::Imag
        | P::Angle
        | P::Zero
        | P::One
        | P::Zeros
        | P::Ones
        | P::Stack
        | P::Length
        | P::Size
        | P::Nnz
        | P::Tget
        | P::Isempty
        | P::Iseven
        | P::Isodd
        | P::Println
        | P::Print
        | P::GlobalIndex => none(),
        P::Sincos | P::Fixed | P::Ulog | P::Tropical => None,
    }
}

/// `Σ a·b` over the floats of two values of one shape.
fn dot(a: &Value, b: &Value) -> f64 {
    (0..float_count(a))
        .map(|k| nth_float(a, k).unwrap_or(0.0) * nth_float(b, k).unwrap_or(0.0))
        .sum()
}

/// How many float numbers a value holds (elements of arrays and matrices,
/// fields of structs, the logarithm of a log number: what has an adjoint).
fn float_count(v: &Value) -> usize {
    match v {
        Value::F64(_) | Value::F32(_) => 1,
        Value::Complex(..) => 2,
        Value::ULog(log) => float_count(log),
        Value::Array(items) | Value::Tuple(items) | Value::Matrix { data: items, .. } => {
            items.iter().map(float_count).sum()
        }
        Value::Struct { fields, .. } => fields.iter().map(|(_, v)| float_count(v)).sum(),
        _ => 0,
    }
}

/// The `k`-th float of a value, in [`float_count`]'s order.
fn nth_float(v: &Value, k: usize) -> Option<f64> {
    let mut k = k;
    fn go(v: &Value, k: &mut usize) -> Option<f64> {
        match v {
            Value::F64(x) if *k == 0 => Some(*x),
            Value::F32(x) if *k == 0 => Some(*x as f64),
            Value::F64(_) | Value::F32(_) => {
                *k -= 1;
                None
            }
            // The real part, then the imaginary part.
            Value::Complex(re, im) => match *k {
                0 => Some(*re),
                1 => Some(*im),
                _ => {
                    *k -= 2;
                    None
                }
            },
            Value::Array(items) | Value::Tuple(items) | Value::Matrix { data: items, .. } => {
                items.iter().find_map(|i| go(i, k))
            }
            Value::Struct { fields, .. } => fields.iter().find_map(|(_, v)| go(v, k)),
            Value::ULog(log) => go(log, k),
            _ => None,
        }
    }
    go(v, &mut k)
}

/// `v` with its `k`-th float set to `x`.
fn with_nth_float(v: &Value, k: usize, x: f64) -> Value {
    fn go(v: &Value, k: &mut Option<usize>, x: f64) -> Value {
        let here = |k: &mut Option<usize>| match k {
            Some(0) => {
                *k = None;
                true
            }
            Some(n) => {
                *n -= 1;
                false
            }
            None => false,
        };
        match v {
            Value::F64(_) if here(k) => Value::F64(x),
            Value::F32(_) if here(k) => Value::F32(x as f32),
            Value::Complex(re, im) => match k {
                Some(0) => {
                    *k = None;
                    Value::Complex(x, *im)
                }
                Some(1) => {
                    *k = None;
                    Value::Complex(*re, x)
                }
                Some(n) => {
                    *n -= 2;
                    Value::Complex(*re, *im)
                }
                None => Value::Complex(*re, *im),
            },
            Value::ULog(log) => Value::ULog(Box::new(go(log, k, x))),
            Value::Array(items) => Value::Array(std::rc::Rc::new(
                items.iter().map(|i| go(i, k, x)).collect(),
            )),
            Value::Tuple(items) => Value::Tuple(std::rc::Rc::new(
                items.iter().map(|i| go(i, k, x)).collect(),
            )),
            Value::Matrix { rows, cols, data } => Value::Matrix {
                rows: *rows,
                cols: *cols,
                data: std::rc::Rc::new(data.iter().map(|i| go(i, k, x)).collect()),
            },
            Value::Struct { name, fields } => Value::Struct {
                name: name.clone(),
                fields: std::rc::Rc::new(
                    fields
                        .iter()
                        .map(|(n, v)| (n.clone(), go(v, k, x)))
                        .collect(),
                ),
            },
            v => v.clone(),
        }
    }
    go(v, &mut Some(k), x)
}

/// Whether the floats of a value are `f32`.
fn is_f32(v: &Value) -> bool {
    match v {
        Value::F32(_) => true,
        Value::Array(items) | Value::Tuple(items) | Value::Matrix { data: items, .. } => {
            items.first().is_some_and(is_f32)
        }
        _ => false,
    }
}

/// Every number of a value negated.
fn negate_all(v: &Value) -> Value {
    match v {
        Value::Array(items) => {
            Value::Array(std::rc::Rc::new(items.iter().map(negate_all).collect()))
        }
        Value::Matrix { rows, cols, data } => Value::Matrix {
            rows: *rows,
            cols: *cols,
            data: std::rc::Rc::new(data.iter().map(negate_all).collect()),
        },
        Value::Struct { name, fields } => Value::Struct {
            name: name.clone(),
            fields: std::rc::Rc::new(
                fields
                    .iter()
                    .map(|(n, f)| (n.clone(), negate_all(f)))
                    .collect(),
            ),
        },
        v => ops::negate(v).unwrap_or_else(|_| v.clone()),
    }
}

/// The elements of an array or matrix (a scalar is its own one element).
fn elements(v: &Value) -> Vec<Value> {
    match v {
        Value::Array(items) | Value::Matrix { data: items, .. } => (**items).clone(),
        v => vec![v.clone()],
    }
}

/// The `k`-th element of an operand of a broadcast (a scalar repeats).
fn element(v: &Value, k: usize) -> Value {
    match v {
        Value::Array(items) | Value::Matrix { data: items, .. } => {
            items.get(k).cloned().unwrap_or(Value::Moved)
        }
        v => v.clone(),
    }
}

/// One row of an instruction's transposed Jacobian, `Σ factor · ā_j`, in the
/// adjoint's float and in the generated code's order: the first term's
/// adjoint scaled (`Adjoint::scale`), then each other added scaled
/// (`Adjoint::add_scaled`), an exactly zero adjoint skipped (no `0 · inf`).
fn jacobian_row<F>(
    row: &[(usize, builtins::Factor)],
    adj: impl Fn(usize) -> F,
    factor: impl Fn(builtins::Factor) -> F,
) -> F
where
    F: Copy + PartialEq + Default + std::ops::Mul<Output = F> + std::ops::Add<Output = F>,
{
    let zero = F::default();
    let Some(((first, f0), rest)) = row.split_first() else {
        return zero;
    };
    let mut acc = adj(*first);
    if *f0 != builtins::Factor::One && acc != zero {
        acc = acc * factor(*f0);
    }
    for &(j, f) in rest {
        let g = adj(j);
        if g != zero {
            acc = acc + g * factor(f);
        }
    }
    acc
}

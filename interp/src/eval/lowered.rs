//! The number code of a typed body: its arithmetic on `f64`, `i64` and
//! `bool` locals, lowered once per function into trees that compute plain
//! numbers, without a [`Value`] per step or the general path's dispatch.
//!
//! This is a cache of the general path, never a second meaning. Each node
//! gives exactly what [`super::Interpreter::eval`] gives for its expression
//! (the same operations, in the same order, on the same IEEE numbers), or
//! gives up: a local that does not hold the number its node expects (a
//! generic `T` that is an `f32` in this run, a dual number, a moved slot),
//! an index out of range, an integer division by zero. Evaluating only
//! reads, so the caller then evaluates the expression again on the
//! general path, which computes it or reports the error, with its message.
//! A run with lowering off (`Interpreter::lowered`) is the oracle the
//! corpus test compares this with, bit for bit.

use crate::ops::{approx, check_eq};
use crate::value::Value;
use nilang_analysis::ast::{BinaryOp, InstrOp, UnaryOp};
use nilang_analysis::builtins::PureFn;
use nilang_analysis::db::body::{Body, CallTarget, Expr, ExprId, Index, LocalId, Stmt, StmtId};
use nilang_analysis::ty::{Scalar, Ty};
use std::rc::Rc;

/// Expressions nest at most this deep in number code: a deeper one is left
/// to the general path (whose recursion checks the stack).
const DEPTH: u32 = 24;

/// The number code of one function: for each expression and statement, by
/// its index, its lowered form where it has one.
#[derive(Default)]
pub(super) struct Lowered {
    exprs: Vec<Option<Num>>,
    stmts: Vec<Option<Step>>,
    /// The updates a gradient run can do here, adjoints and all.
    adjoints: Vec<Option<AdjointUpdate>>,
}

impl Lowered {
    pub(super) fn of(body: &Body<'_>) -> Lowered {
        Lowered {
            exprs: body
                .expr_ids()
                .map(|e| match body.expr(e).kind {
                    // A leaf is read as fast where it is.
                    Expr::Local(_) | Expr::Int(_) | Expr::Float(_) | Expr::Bool(_) => None,
                    _ => lower(body, e, 0),
                })
                .collect(),
            stmts: body.stmt_ids().map(|s| step(body, s)).collect(),
            adjoints: body.stmt_ids().map(|s| adjoint_update(body, s)).collect(),
        }
    }

    /// Runs the statement `s` of a gradient run whose adjoints are `f64`s
    /// (`backward`: its inverse) where it is an [`AdjointUpdate`]: the
    /// adjoint of the place goes to what the value reads, then the place
    /// is updated; `false`, with nothing changed, where the general path
    /// must run it.
    #[inline]
    pub(super) fn run_adjoint(
        &self,
        s: StmtId,
        locals: &mut [Value],
        grads: &mut [Value],
        backward: bool,
    ) -> bool {
        match self.adjoints.get(s.index()) {
            Some(Some(u)) => u.run(locals, grads, backward),
            _ => false,
        }
    }

    /// The value of the expression `e`, where its number code computes it.
    #[inline]
    pub(super) fn value(&self, e: ExprId, locals: &[Value]) -> Option<Value> {
        self.exprs.get(e.index())?.as_ref()?.value(locals)
    }

    /// The value of the condition `e`, where its number code computes it.
    #[inline]
    pub(super) fn condition(&self, e: ExprId, locals: &[Value]) -> Option<bool> {
        match self.exprs.get(e.index())? {
            Some(Num::B(b)) => b.eval(locals),
            _ => None,
        }
    }

    /// Runs the statement `s` (`backward`: its inverse) where its number
    /// code does, with the deallocation checks on (`checks`, within
    /// `atol`) or off; `false`, with nothing changed, where the general
    /// path must run it.
    #[inline]
    pub(super) fn run(
        &self,
        s: StmtId,
        locals: &mut [Value],
        backward: bool,
        checks: bool,
        atol: f64,
    ) -> bool {
        match self.stmts.get(s.index()) {
            Some(Some(step)) => step.run(locals, backward, checks, atol),
            _ => false,
        }
    }
}

/// A lowered expression, by the kind of value it gives.
#[derive(Clone, Debug)]
enum Num {
    F(F),
    I(I),
    B(B),
}

/// An expression giving a `Value::F64`.
#[derive(Clone, Debug)]
enum F {
    Local(LocalId),
    Element(LocalId, Box<I>),
    Const(f64),
    /// `+ - * /` of two `f64`s, or of an `f64` and an `i64` converted
    /// (`ops::binary_promoted`).
    Arith(BinaryOp, Box<F>, Box<F>),
    /// An `i64` operand of a promoted operator.
    Promoted(Box<I>),
    /// `x ^ y` of two `f64`s (`powf`).
    Power(Box<F>, Box<F>),
    /// `x ^ n` of an `f64` to an `i64`.
    PowI(Box<F>, Box<I>),
    Neg(Box<F>),
    Abs(Box<F>),
    /// `zero(x)`: `0.0`, once `x` is read as an `f64`.
    Zero(Box<F>),
    /// `sqrt(x)`, `exp(x)`, `sin(x)` and the other functions `pure::call`
    /// computes by `real`.
    Real(fn(f64) -> f64, Box<F>),
}

/// The `f64` function `pure::call` applies to an `f64` for `func` (by
/// `real`), where it is one.
fn real(func: PureFn) -> Option<fn(f64) -> f64> {
    use PureFn as P;
    Some(match func {
        P::Sqrt => f64::sqrt,
        P::Exp => f64::exp,
        P::Log => f64::ln,
        P::Sin => f64::sin,
        P::Cos => f64::cos,
        P::Tan => f64::tan,
        P::Sinh => f64::sinh,
        P::Cosh => f64::cosh,
        P::Tanh => f64::tanh,
        P::Asin => f64::asin,
        P::Acos => f64::acos,
        P::Atan => f64::atan,
        _ => return None,
    })
}

/// An expression giving a `Value::Int(_, I64)`.
#[derive(Clone, Debug)]
enum I {
    Local(LocalId),
    Element(LocalId, Box<I>),
    Const(i64),
    /// `+ - *` (wrapping), `÷` and `%` (none by zero), as `ops` computes
    /// them.
    Arith(BinaryOp, Box<I>, Box<I>),
    Neg(Box<I>),
    Not(Box<I>),
    Zero(Box<I>),
}

/// An expression giving a `Value::Bool`.
#[derive(Clone, Debug)]
enum B {
    Local(LocalId),
    Element(LocalId, Box<I>),
    Const(bool),
    CmpF(BinaryOp, Box<F>, Box<F>),
    CmpI(BinaryOp, Box<I>, Box<I>),
    /// `&&` (`true`) or `||` (`false`), the right side read only when
    /// needed.
    Logic(bool, Box<B>, Box<B>),
    Not(Box<B>),
}

/// A statement in number code.
#[derive(Debug)]
enum Step {
    Update(Update),
    /// `x ← e` (backwards, `x → e`).
    Alloc(LocalId, Num),
    /// `x → e` (backwards, `x ← e`).
    Dealloc(LocalId, Num),
    /// `SWAP(a, b)` of two locals (its own inverse).
    Swap(LocalId, LocalId),
}

/// `x += e` or `x -= e` of a number local or an element of a local array.
#[derive(Debug)]
struct Update {
    local: LocalId,
    element: Option<I>,
    /// `-=` forwards.
    sub: bool,
    value: Num,
}

/// The kind of number a value of type `ty` is lowered as: a type parameter
/// as an `f64` (its most frequent binding; a run where it is another type
/// gives up at the first read).
fn kind(ty: &Ty) -> Option<u8> {
    match ty {
        Ty::Scalar(Scalar::F64) | Ty::Generic(_) => Some(b'f'),
        Ty::Scalar(Scalar::I64) => Some(b'i'),
        Ty::Scalar(Scalar::Bool) => Some(b'b'),
        _ => None,
    }
}

fn lower(body: &Body<'_>, e: ExprId, depth: u32) -> Option<Num> {
    if depth > DEPTH {
        return None;
    }
    let data = body.expr(e);
    let sub = |e: ExprId| lower(body, e, depth + 1);
    Some(match &data.kind {
        Expr::Local(l) => match kind(&data.ty)? {
            b'f' => Num::F(F::Local(*l)),
            b'i' => Num::I(I::Local(*l)),
            _ => Num::B(B::Local(*l)),
        },
        // As `int_literal` and `float_literal` make them.
        Expr::Int(v) => match &data.ty {
            Ty::Scalar(Scalar::F64) => Num::F(F::Const(*v as f64)),
            Ty::Scalar(Scalar::I64 | Scalar::Bool) => Num::I(I::Const(*v)),
            Ty::Scalar(_) => return None,
            _ => Num::I(I::Const(*v)),
        },
        Expr::Float(v) => match &data.ty {
            Ty::Scalar(Scalar::F32) => return None,
            _ => Num::F(F::Const(*v)),
        },
        Expr::Bool(b) => Num::B(B::Const(*b)),
        Expr::Index { base, indices } => {
            let (Expr::Local(l), [Index::At(i)]) = (&body.expr(*base).kind, indices.as_slice())
            else {
                return None;
            };
            let Num::I(i) = sub(*i)? else { return None };
            let i = Box::new(i);
            match kind(&data.ty)? {
                b'f' => Num::F(F::Element(*l, i)),
                b'i' => Num::I(I::Element(*l, i)),
                _ => Num::B(B::Element(*l, i)),
            }
        }
        Expr::Pure {
            func,
            args,
            broadcast: false,
        } if args.len() == 1 => match (func, sub(args[0])?) {
            (PureFn::Identity | PureFn::Value | PureFn::Unwrap, n) => n,
            (PureFn::Abs, Num::F(x)) => Num::F(F::Abs(Box::new(x))),
            // `pure::call`'s `zero_like` of a number.
            (PureFn::Zero, Num::F(x)) => Num::F(F::Zero(Box::new(x))),
            (PureFn::Zero, Num::I(x)) => Num::I(I::Zero(Box::new(x))),
            // `pure::call`'s `real`: the `f64` function of an `f64`, or of
            // an integer converted.
            (func, x @ (Num::F(_) | Num::I(_))) => {
                let f = real(*func)?;
                let x = match x {
                    Num::F(x) => x,
                    Num::I(k) => promoted(k),
                    Num::B(_) => return None,
                };
                Num::F(F::Real(f, Box::new(x)))
            }
            _ => return None,
        },
        Expr::Unary { op, operand } => match (op, sub(*operand)?) {
            (UnaryOp::Plus, n) => n,
            (UnaryOp::Neg, Num::F(x)) => Num::F(F::Neg(Box::new(x))),
            (UnaryOp::Neg, Num::I(x)) => Num::I(I::Neg(Box::new(x))),
            (UnaryOp::Not, Num::I(x)) => Num::I(I::Not(Box::new(x))),
            (UnaryOp::Not, Num::B(x)) => Num::B(B::Not(Box::new(x))),
            _ => return None,
        },
        Expr::Binary { op, lhs, rhs } => binary(*op, sub(*lhs)?, sub(*rhs)?, &data.ty)?,
        _ => return None,
    })
}

/// `l op r` as `Interpreter::operator` computes it: `ops::binary_fast`,
/// then `ops::binary_promoted` (and `int_fast` for an `i64` expression);
/// anything those leave to `ops::binary` is not lowered.
fn binary(op: BinaryOp, l: Num, r: Num, ty: &Ty) -> Option<Num> {
    use BinaryOp::*;
    Some(match (l, r) {
        (Num::F(p), Num::F(q)) => match op {
            Add | Sub | Mul | Div => Num::F(F::Arith(op, Box::new(p), Box::new(q))),
            Pow => Num::F(F::Power(Box::new(p), Box::new(q))),
            Lt | Le | Gt | Ge => Num::B(B::CmpF(op, Box::new(p), Box::new(q))),
            _ => return None,
        },
        (Num::I(p), Num::I(q)) => match op {
            Add | Sub | Mul => Num::I(I::Arith(op, Box::new(p), Box::new(q))),
            // `int_fast`'s, which reads an `i64` expression only.
            IntDiv | Rem if matches!(ty, Ty::Scalar(Scalar::I64)) => {
                Num::I(I::Arith(op, Box::new(p), Box::new(q)))
            }
            Eq | Ne | Lt | Le | Gt | Ge => Num::B(B::CmpI(op, Box::new(p), Box::new(q))),
            _ => return None,
        },
        (Num::F(p), Num::I(q)) => match op {
            Add | Sub | Mul | Div => Num::F(F::Arith(op, Box::new(p), Box::new(promoted(q)))),
            Pow => Num::F(F::PowI(Box::new(p), Box::new(q))),
            _ => return None,
        },
        (Num::I(p), Num::F(q)) => match op {
            Add | Sub | Mul | Div => Num::F(F::Arith(op, Box::new(promoted(p)), Box::new(q))),
            _ => return None,
        },
        (Num::B(p), Num::B(q)) => match op {
            And => Num::B(B::Logic(true, Box::new(p), Box::new(q))),
            Or => Num::B(B::Logic(false, Box::new(p), Box::new(q))),
            _ => return None,
        },
        _ => return None,
    })
}

/// An `i64` operand of an operator computed in `f64`: a literal converted
/// once (`as`, as each run would), anything else at each run.
fn promoted(k: I) -> F {
    match k {
        I::Const(k) => F::Const(k as f64),
        k => F::Promoted(Box::new(k)),
    }
}

/// The statement `s` in number code, where it has one.
fn step(body: &Body<'_>, s: StmtId) -> Option<Step> {
    match &body.stmt(s).kind {
        Stmt::Instr {
            target,
            op,
            broadcast: false,
            value,
        } => update(body, *target, *op, *value).map(Step::Update),
        // Where `allocate` stores the value as it is: an `f64` or `i64`
        // local given one (`convert` to its own type), a generic one given
        // anything (no `zero_of`, so no conversion).
        Stmt::Alloc { local, value }
        | Stmt::Dealloc {
            local: Some(local),
            value,
            ..
        } => {
            let value = lower(body, *value, 0)?;
            let kept = matches!(
                (&body.local(*local).ty, &value),
                (Ty::Scalar(Scalar::F64), Num::F(_))
                    | (Ty::Scalar(Scalar::I64), Num::I(_))
                    | (Ty::Generic(_), Num::F(_) | Num::I(_))
            );
            match (kept, &body.stmt(s).kind) {
                (false, _) => None,
                (true, Stmt::Alloc { .. }) => Some(Step::Alloc(*local, value)),
                (true, _) => Some(Step::Dealloc(*local, value)),
            }
        }
        Stmt::Call {
            target: CallTarget::Instruction(ins),
            args,
            ..
        } if ins.name == "SWAP" => match args.as_slice() {
            [a, b] => match (&body.expr(*a).kind, &body.expr(*b).kind) {
                (Expr::Local(a), Expr::Local(b)) if a != b => Some(Step::Swap(*a, *b)),
                _ => None,
            },
            _ => None,
        },
        _ => None,
    }
}

/// `target op= value` as an [`Update`], where it is one.
fn update(body: &Body<'_>, target: ExprId, op: InstrOp, value: ExprId) -> Option<Update> {
    let sub = match op {
        InstrOp::Add => false,
        InstrOp::Sub => true,
        _ => return None,
    };
    // (A place of another type, an `f32` one, is left to the general path
    // here rather than found so at each run.)
    kind(&body.expr(target).ty).filter(|&k| k != b'b')?;
    let (local, element) = match &body.expr(target).kind {
        Expr::Local(l) => (*l, None),
        Expr::Index { base, indices } => match (&body.expr(*base).kind, indices.as_slice()) {
            (Expr::Local(l), [Index::At(i)]) => match lower(body, *i, 1)? {
                Num::I(i) => (*l, Some(i)),
                _ => return None,
            },
            _ => return None,
        },
        _ => return None,
    };
    Some(Update {
        local,
        element,
        sub,
        value: lower(body, value, 0)?,
    })
}

impl Num {
    #[inline]
    fn value(&self, locals: &[Value]) -> Option<Value> {
        Some(match self {
            Num::F(x) => Value::F64(x.get(locals)?),
            Num::I(x) => Value::int(x.get(locals)?),
            Num::B(x) => Value::Bool(x.get(locals)?),
        })
    }
}

/// The element `k` (1-based) of the local array `l`, in range.
#[inline]
fn element<T: Read>(locals: &[Value], l: LocalId, k: &I) -> Option<T> {
    let k = k.get(locals)?;
    match &locals[l] {
        Value::Array(items) if k >= 1 => T::read(items.get(usize::try_from(k - 1).ok()?)?),
        _ => None,
    }
}

/// A number as a node reads it out of a value: the one kind of value it
/// takes (an `f64` node no `f32`, an `i64` node no narrower integer).
trait Read: Sized {
    fn read(v: &Value) -> Option<Self>;
}

impl Read for f64 {
    #[inline(always)]
    fn read(v: &Value) -> Option<f64> {
        match v {
            Value::F64(x) => Some(*x),
            _ => None,
        }
    }
}

impl Read for i64 {
    #[inline(always)]
    fn read(v: &Value) -> Option<i64> {
        match v {
            Value::Int(x, Scalar::I64) => Some(*x),
            _ => None,
        }
    }
}

impl Read for bool {
    #[inline(always)]
    fn read(v: &Value) -> Option<bool> {
        match v {
            Value::Bool(b) => Some(*b),
            _ => None,
        }
    }
}

impl F {
    /// [`F::eval`] with a local or a literal read inline, without a call.
    #[inline(always)]
    fn get(&self, locals: &[Value]) -> Option<f64> {
        match self {
            F::Local(l) => Read::read(&locals[*l]),
            F::Const(x) => Some(*x),
            _ => self.eval(locals),
        }
    }

    fn eval(&self, locals: &[Value]) -> Option<f64> {
        Some(match self {
            F::Local(l) => Read::read(&locals[*l])?,
            F::Element(l, k) => element(locals, *l, k)?,
            F::Const(x) => *x,
            F::Arith(op, p, q) => arith(*op, p.get(locals)?, q.get(locals)?),
            F::Promoted(k) => k.get(locals)? as f64,
            F::Power(p, q) => p.get(locals)?.powf(q.get(locals)?),
            F::PowI(p, n) => {
                let (p, n) = (p.get(locals)?, n.get(locals)?);
                match i32::try_from(n) {
                    Ok(n) => p.powi(n),
                    Err(_) => p.powf(n as f64),
                }
            }
            F::Neg(x) => -x.get(locals)?,
            F::Abs(x) => x.get(locals)?.abs(),
            F::Real(f, x) => f(x.get(locals)?),
            F::Zero(x) => {
                x.get(locals)?;
                0.0
            }
        })
    }
}

impl I {
    /// [`I::eval`] with a local or a literal read inline, without a call.
    #[inline(always)]
    fn get(&self, locals: &[Value]) -> Option<i64> {
        match self {
            I::Local(l) => Read::read(&locals[*l]),
            I::Const(x) => Some(*x),
            _ => self.eval(locals),
        }
    }

    fn eval(&self, locals: &[Value]) -> Option<i64> {
        Some(match self {
            I::Local(l) => Read::read(&locals[*l])?,
            I::Element(l, k) => element(locals, *l, k)?,
            I::Const(x) => *x,
            I::Arith(op, p, q) => {
                let (p, q) = (p.get(locals)?, q.get(locals)?);
                match op {
                    BinaryOp::Add => p.wrapping_add(q),
                    BinaryOp::Sub => p.wrapping_sub(q),
                    BinaryOp::Mul => p.wrapping_mul(q),
                    BinaryOp::IntDiv => p.checked_div(q)?,
                    _ => p.checked_rem(q)?,
                }
            }
            I::Neg(x) => x.get(locals)?.wrapping_neg(),
            I::Not(x) => !x.get(locals)?,
            I::Zero(x) => {
                x.get(locals)?;
                0
            }
        })
    }
}

impl B {
    /// [`B::eval`] with a local or a literal read inline, without a call.
    #[inline(always)]
    fn get(&self, locals: &[Value]) -> Option<bool> {
        match self {
            B::Local(l) => Read::read(&locals[*l]),
            B::Const(b) => Some(*b),
            _ => self.eval(locals),
        }
    }

    fn eval(&self, locals: &[Value]) -> Option<bool> {
        Some(match self {
            B::Local(l) => Read::read(&locals[*l])?,
            B::Element(l, k) => element(locals, *l, k)?,
            B::Const(b) => *b,
            B::CmpF(op, p, q) => compare(*op, p.get(locals)?, q.get(locals)?),
            B::CmpI(op, p, q) => compare(*op, p.get(locals)?, q.get(locals)?),
            B::Logic(and, p, q) => match p.get(locals)? {
                l if l != *and => l,
                _ => q.get(locals)?,
            },
            B::Not(x) => !x.get(locals)?,
        })
    }
}

fn compare<T: PartialOrd>(op: BinaryOp, p: T, q: T) -> bool {
    match op {
        BinaryOp::Eq => p == q,
        BinaryOp::Ne => p != q,
        BinaryOp::Lt => p < q,
        BinaryOp::Le => p <= q,
        BinaryOp::Gt => p > q,
        _ => p >= q,
    }
}

impl Step {
    fn run(&self, locals: &mut [Value], backward: bool, checks: bool, atol: f64) -> bool {
        match self {
            Step::Update(u) => u.run(locals, backward),
            Step::Alloc(l, v) | Step::Dealloc(l, v) => {
                if matches!(self, Step::Alloc(..)) != backward {
                    alloc(locals, *l, v)
                } else {
                    dealloc(locals, *l, v, checks, atol)
                }
            }
            Step::Swap(a, b) => swap(locals, *a, *b),
        }
    }
}

/// `Interpreter::instruction`'s exchange in place of two numbers of one
/// type. (This and the other rarer steps are calls, so that an update, the
/// most frequent, runs without their registers saved.)
fn swap(locals: &mut [Value], a: LocalId, b: LocalId) -> bool {
    let numbers = matches!(
        (&locals[a], &locals[b]),
        (Value::F64(_), Value::F64(_)) | (Value::Int(_, Scalar::I64), Value::Int(_, Scalar::I64))
    );
    if numbers {
        locals.swap(a, b);
    }
    numbers
}

/// `allocate`: the local takes the value.
fn alloc(locals: &mut [Value], l: LocalId, v: &Num) -> bool {
    match v.value(locals) {
        Some(v) => {
            locals[l] = v;
            true
        }
        None => false,
    }
}

/// `deallocate`: with the checks on, the local must equal the value
/// (`check_eq`; where it does not, the general path reports it); it is
/// then gone.
fn dealloc(locals: &mut [Value], l: LocalId, v: &Num, checks: bool, atol: f64) -> bool {
    if checks {
        // `check_eq` of two numbers: an `f64` within `atol` (its real
        // and imaginary parts, the imaginary both zero), an integer
        // exactly.
        let equal = match (&locals[l], v) {
            (Value::F64(found), Num::F(x)) => x.get(locals).map(|x| approx(*found, x, atol)),
            (found, v) => v.value(locals).map(|x| check_eq(found, &x, atol)),
        };
        if equal != Some(true) {
            return false;
        }
    }
    locals[l] = Value::Moved;
    true
}

impl Update {
    /// `update_in_place`'s cases: an `f64` place and an `f64` or `i64`
    /// value, an `i64` place and an `i64` value.
    fn run(&self, locals: &mut [Value], backward: bool) -> bool {
        // The value before the place, in the generated code's order.
        let v = match &self.value {
            Num::F(x) => x.get(locals).map(Operand::F),
            Num::I(x) => x.get(locals).map(Operand::I),
            Num::B(_) => None,
        };
        let Some(v) = v else { return false };
        let sub = self.sub != backward;
        let slot = match &self.element {
            None => &mut locals[self.local],
            Some(k) => {
                let Some(k) = k.get(locals) else {
                    return false;
                };
                let Value::Array(items) = &mut locals[self.local] else {
                    return false;
                };
                let k = match usize::try_from(k) {
                    Ok(k) if k >= 1 && k <= items.len() => k - 1,
                    _ => return false,
                };
                // (Written only where the update applies: a shared array
                // is not copied for nothing.)
                if !v.updates(&items[k]) {
                    return false;
                }
                &mut Rc::make_mut(items)[k]
            }
        };
        match (slot, v) {
            (Value::F64(p), Operand::F(q)) => *p = if sub { *p - q } else { *p + q },
            (Value::F64(p), Operand::I(q)) => *p = if sub { *p - q as f64 } else { *p + q as f64 },
            (Value::Int(p, Scalar::I64), Operand::I(q)) => {
                *p = if sub {
                    p.wrapping_sub(q)
                } else {
                    p.wrapping_add(q)
                }
            }
            _ => return false,
        }
        true
    }
}

/// The value of an [`Update`].
#[derive(Clone, Copy)]
enum Operand {
    F(f64),
    I(i64),
}

impl Operand {
    /// Whether `Update::run` updates a place holding `cur` by this.
    fn updates(self, cur: &Value) -> bool {
        matches!(
            (cur, self),
            (Value::F64(_), _) | (Value::Int(_, Scalar::I64), Operand::I(_))
        )
    }
}

/// `x += e` or `x -= e` of an `f64` local in a gradient run, where `e` is
/// made of `f64` locals, `f64` literals, `+ - * /` and `identity`: what
/// `instr_adjoint` and `backprop_f64` do for it (the place's adjoint,
/// negated after a `+=`, sent down the value, each operator's partials
/// times the cotangent, nothing where a cotangent is zero), then the
/// update `update_in_place` makes.
#[derive(Debug)]
struct AdjointUpdate {
    local: LocalId,
    /// `-=` forwards.
    sub: bool,
    value: A,
}

/// The value of an [`AdjointUpdate`], as `backprop_f64` walks it.
#[derive(Debug)]
enum A {
    Local(LocalId),
    /// A literal read as an `f64` (it has no adjoint).
    Const(f64),
    Arith(BinaryOp, Box<A>, Box<A>),
    /// `identity(x)`, `value(x)`, `unwrap(x)`.
    Id(Box<A>),
}

fn adjoint_update(body: &Body<'_>, s: StmtId) -> Option<AdjointUpdate> {
    let Stmt::Instr {
        target,
        op,
        broadcast: false,
        value,
    } = &body.stmt(s).kind
    else {
        return None;
    };
    let sub = match op {
        InstrOp::Add => false,
        InstrOp::Sub => true,
        _ => return None,
    };
    let target = body.expr(*target);
    let Expr::Local(local) = target.kind else {
        return None;
    };
    kind(&target.ty).filter(|&k| k == b'f')?;
    Some(AdjointUpdate {
        local,
        sub,
        value: adjoint_tree(body, *value, 0)?,
    })
}

fn adjoint_tree(body: &Body<'_>, e: ExprId, depth: u32) -> Option<A> {
    if depth > DEPTH {
        return None;
    }
    let data = body.expr(e);
    let sub = |e: ExprId| adjoint_tree(body, e, depth + 1).map(Box::new);
    Some(match &data.kind {
        Expr::Local(l) if kind(&data.ty) == Some(b'f') => A::Local(*l),
        // As `float_literal` and `int_literal` make an `f64`.
        Expr::Float(v) if !matches!(data.ty, Ty::Scalar(Scalar::F32)) => A::Const(*v),
        Expr::Int(v) if matches!(data.ty, Ty::Scalar(Scalar::F64)) => A::Const(*v as f64),
        Expr::Binary { op, lhs, rhs }
            if matches!(
                op,
                BinaryOp::Add | BinaryOp::Sub | BinaryOp::Mul | BinaryOp::Div
            ) =>
        {
            A::Arith(*op, sub(*lhs)?, sub(*rhs)?)
        }
        Expr::Pure {
            func: PureFn::Identity | PureFn::Value | PureFn::Unwrap,
            args,
            broadcast: false,
        } if args.len() == 1 => A::Id(sub(args[0])?),
        _ => return None,
    })
}

impl AdjointUpdate {
    fn run(&self, locals: &mut [Value], grads: &mut [Value], backward: bool) -> bool {
        let (Value::F64(cur), Value::F64(cot)) = (&locals[self.local], &grads[self.local]) else {
            return false;
        };
        let (cur, cot) = (*cur, *cot);
        // Every local the value reads an `f64` with an `f64` adjoint: then
        // nothing below gives up once adjoints have moved.
        let Some(v) = self.value.checked(locals, grads) else {
            return false;
        };
        let sub = self.sub != backward;
        self.value.back(if sub { cot } else { -cot }, locals, grads);
        locals[self.local] = Value::F64(if sub { cur - v } else { cur + v });
        true
    }
}

impl A {
    /// The value, where every local read holds an `f64` and its adjoint
    /// is one.
    fn checked(&self, locals: &[Value], grads: &[Value]) -> Option<f64> {
        Some(match self {
            A::Local(l) => match (&locals[*l], &grads[*l]) {
                (Value::F64(x), Value::F64(_)) => *x,
                _ => return None,
            },
            A::Const(x) => *x,
            A::Arith(op, p, q) => arith(*op, p.checked(locals, grads)?, q.checked(locals, grads)?),
            A::Id(x) => x.checked(locals, grads)?,
        })
    }

    /// The value, once [`A::checked`] found it.
    fn value(&self, locals: &[Value]) -> f64 {
        match self {
            A::Local(l) => f64::read(&locals[*l]).unwrap_or(f64::NAN),
            A::Const(x) => *x,
            A::Arith(op, p, q) => arith(*op, p.value(locals), q.value(locals)),
            A::Id(x) => x.value(locals),
        }
    }

    /// `backprop` of the cotangent `c`: `backprop_f64`'s sums, in its order.
    fn back(&self, c: f64, locals: &[Value], grads: &mut [Value]) {
        if c == 0.0 {
            return;
        }
        match self {
            A::Local(l) => {
                if let Value::F64(g) = &mut grads[*l] {
                    *g += c;
                }
            }
            A::Const(_) => {}
            A::Arith(op, p, q) => {
                let (a, b) = (p.value(locals), q.value(locals));
                let (dl, dr) = match op {
                    BinaryOp::Add => (1.0, 1.0),
                    BinaryOp::Sub => (1.0, -1.0),
                    BinaryOp::Mul => (b, a),
                    _ => (1.0 / b, -a / (b * b)),
                };
                p.back(c * dl, locals, grads);
                q.back(c * dr, locals, grads);
            }
            A::Id(x) => x.back(c * 1.0, locals, grads),
        }
    }
}

/// `+ - * /` of two `f64`s.
fn arith(op: BinaryOp, p: f64, q: f64) -> f64 {
    match op {
        BinaryOp::Add => p + q,
        BinaryOp::Sub => p - q,
        BinaryOp::Mul => p * q,
        _ => p / q,
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use nilang_analysis::db::{self, RootDatabase, SourceFile};

    /// Each statement of `f` in `text`, and whether it has number code.
    fn steps(text: &str) -> String {
        let db = RootDatabase::default();
        let file = SourceFile::new(&db, "t.nil".into(), text.into());
        let project = db::project_with_std(&db, vec![file], Vec::new());
        let f = db::lookup_function(&db, project, "f").unwrap();
        let body = db::function_body(&db, f).as_ref().unwrap();
        let at = db::function_offset(&db, f) as usize;
        let low = Lowered::of(body);
        body.stmt_ids()
            .filter(|&s| !matches!(body.stmt(s).kind, Stmt::Block(_)))
            .map(|s| {
                let span = body.stmt(s).span;
                let shown = match &low.stmts[s.index()] {
                    Some(Step::Update(_)) => "update",
                    Some(Step::Alloc(..)) => "alloc",
                    Some(Step::Dealloc(..)) => "dealloc",
                    Some(Step::Swap(..)) => "swap",
                    None => "general path",
                };
                let adjoint = match low.adjoints[s.index()] {
                    Some(_) => ", with adjoints",
                    None => "",
                };
                let text = &text[at + span.start as usize..at + span.end as usize];
                format!(
                    "{:<30} {shown}{adjoint}\n",
                    text.lines().next().unwrap_or("")
                )
            })
            .collect()
    }

    #[test]
    fn number_code_covers_f64_and_i64_arithmetic_only() {
        // (With adjoints: an `f64` local updated by `+ - * /` and
        // `identity` of `f64` locals and literals.)
        let text = "function f(y!::T, x::T, v::[f64], n::i64, s::f32) where T: Real
    k ← 0
    a ← zero(x)
    y! += a * x - identity(1.5)
    a += x * 2 + abs(x) ^ n
    y! += identity(a) / k
    v[n ÷ 2] -= x - n
    SWAP(y!, a)
    y! *= x
    s += 1.5
    k += n % 3
    a += exp(x) - sin(n) * tanh(s)
    a -= exp(x) - sin(n)
    SWAP(y!, a)
    a -= x * 2 + abs(x) ^ n
    y! -= a * x - identity(1.5)
    a → zero(x)
    k → 0
end
";
        expect_test::expect![[r#"
            k ← 0                          alloc
            a ← zero(x)                    alloc
            y! += a * x - identity(1.5)    update, with adjoints
            a += x * 2 + abs(x) ^ n        update
            y! += identity(a) / k          update
            v[n ÷ 2] -= x - n              update
            SWAP(y!, a)                    swap
            y! *= x                        general path
            s += 1.5                       general path
            k += n % 3                     update
            a += exp(x) - sin(n) * tanh(s) general path
            a -= exp(x) - sin(n)           update
            SWAP(y!, a)                    swap
            a -= x * 2 + abs(x) ^ n        update
            y! -= a * x - identity(1.5)    update, with adjoints
            a → zero(x)                    dealloc
            k → 0                          dealloc
        "#]]
        .assert_eq(&steps(text));
    }
}

//! The GPU backend: a `@kernel` function becomes WGSL compute shaders (one
//! invocation per index) and Rust launchers that run them through
//! `nilang::gpu` (wgpu).
//!
//! Each kernel gets shaders for its call, its uncall and, when it has
//! differentiable parameters, its reverse pass (the adjoint kernel), per
//! float type: `f32`, and `f64` for generic kernels (run only where the
//! device has `SHADER_F64`). Functions a kernel calls become WGSL functions
//! (scalar parameters only; the ones they change by pointer), in the passes
//! the kernel needs. The adjoint rules are the Rust backend's: the local
//! derivatives come from [`super::adjoint::push_partials`] through the
//! [`Deriv`] trait, rendered in WGSL.
//!
//! Conventions shared with `runtime/src/gpu.rs`:
//! - `global_index()` is the invocation's index, `1..=n` (1-based, like
//!   every index in NiLang);
//! - binding 0 is a uniform struct: `n`, the dispatch's first invocation,
//!   then the scalar parameters and keyword parameters in order; bindings
//!   1.. are the array parameters in order (in the reverse pass each float
//!   array followed by its adjoint), then one single-element buffer per
//!   adjoint of a float scalar parameter;
//! - integers are `i32`, booleans `u32` in the uniform block;
//! - no run-time checks (a shader cannot return an error): the static
//!   shared-write analysis ([`crate::kernel`]) is what keeps kernels right;
//! - an adjoint that several invocations add to (an array read at an index
//!   other than the invocation's own, a scalar parameter) is an
//!   `atomic<u32>` buffer updated by a compare-and-swap loop on the bits of
//!   an `f32`, or an `atomic<f32>` with `atomicAdd` where the device has
//!   `SHADER_FLOAT32_ATOMIC` (a second shader). WGSL has no 64-bit atomics:
//!   such an `f64` reverse pass is not generated, and its launcher returns
//!   `GpuError::Unsupported` saying so.

use std::collections::BTreeSet;
use std::fmt::Write;
use std::sync::Arc;

use super::adjoint::{Deriv, push_partials};
use super::{CodegenContext, rust_name};
use crate::ast::*;
use crate::diagnostics::Diagnostic;
use crate::invert::{
    explicit_deallocations, invert_function, invert_stmt, routine_pairs, unroutine_expansion,
};
use crate::resolve::{DefKind, Resolution};
use crate::types::{FunctionTypes, Ty};

/// Invocations per workgroup.
pub const WORKGROUP_SIZE: u32 = 64;

/// A function a kernel calls, as the WGSL backend needs it: the analysis's
/// memoized results, shared, not copied per call site.
pub struct CalleeBody {
    pub function: Arc<Function>,
    pub resolution: Arc<Resolution>,
    pub types: Arc<FunctionTypes>,
    pub mutated: Vec<bool>,
}

/// Which program a shader or WGSL function runs.
#[derive(Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Debug)]
pub enum Pass {
    Forward,
    Inverse,
    /// The reverse pass of the call: the inverse with adjoint rules.
    Adjoint,
    /// The reverse pass of the uncall: the call with adjoint rules.
    UncallAdjoint,
}

impl Pass {
    fn differentiating(self) -> bool {
        matches!(self, Pass::Adjoint | Pass::UncallAdjoint)
    }
}

/// How adjoints that several invocations add to are accumulated.
#[derive(Clone, Copy, PartialEq, Eq, Debug)]
pub enum Atomics {
    /// Compare-and-swap on `atomic<u32>` holding `f32` bits.
    Cas,
    /// `atomic<f32>` and `atomicAdd` (needs `SHADER_FLOAT32_ATOMIC`).
    Native,
}

/// The device type of a value.
#[derive(Clone, Copy, PartialEq, Eq, Debug)]
enum K {
    Int,
    Bool,
    Float(&'static str),
    LitInt,
    LitFloat,
    /// An array (storage buffer) of this element type.
    Array(&'static str),
    Unknown,
}

fn kind_of_ty(ty: &Ty, float: &'static str) -> K {
    match ty {
        Ty::Scalar("f64") => K::Float("f64"),
        Ty::Scalar("f32") => K::Float("f32"),
        Ty::Scalar("bool") => K::Bool,
        Ty::Scalar(_) => K::Int,
        Ty::Generic(_) => K::Float(float),
        Ty::Slice(inner) => elem_array(kind_of_ty(inner, float)),
        Ty::Constructed("Vec", args) if args.len() == 1 => elem_array(kind_of_ty(&args[0], float)),
        _ => K::Unknown,
    }
}

/// Keyword parameters of called functions (tolerances, mostly) take the
/// kernel's float type: an `f64` one would need `SHADER_F64` in an `f32`
/// kernel.
fn kw_kind(k: K, float: &'static str) -> K {
    match k {
        K::Float(_) => K::Float(float),
        k => k,
    }
}

fn elem_array(k: K) -> K {
    match k {
        K::Float(f) => K::Array(f),
        K::Int => K::Array("i32"),
        _ => K::Unknown,
    }
}

fn elem_kind(elem: &'static str) -> K {
    match elem {
        "i32" => K::Int,
        f => K::Float(f),
    }
}

fn wgsl_ty(k: K) -> &'static str {
    match k {
        K::Int | K::LitInt => "i32",
        K::Bool => "bool",
        K::Float(f) => f,
        K::LitFloat => "f32",
        K::Array(_) | K::Unknown => "i32",
    }
}

fn fn_name(name: &str, pass: Pass) -> String {
    let base = rust_name(name).trim_start_matches("r#").to_string();
    match pass {
        Pass::Forward => format!("nil_{base}"),
        Pass::Inverse => format!("nil_uncall_{base}"),
        Pass::Adjoint => format!("nil_{base}_adjoint"),
        Pass::UncallAdjoint => format!("nil_uncall_{base}_adjoint"),
    }
}

/// An elementary function of floats. Vulkan's extended instructions
/// (GLSL.std.450) compute `sin`, `exp`, `pow`, ... in 32 bits only, so in
/// `f64` they are the shader's own functions ([`F64_MATH`]); `sqrt`, `abs`,
/// `floor` and arithmetic are native in both.
fn trans(f: &str, args: &str, ty: &str) -> String {
    if ty == "f64" {
        format!("nil_{f}_f64({args})")
    } else {
        format!("{f}({args})")
    }
}

/// `f64` elementary functions in WGSL, to a few units in the last place:
/// argument reduction (Cody and Waite's split constants, as in fdlibm) and
/// Taylor series short enough to converge on the reduced interval. The text
/// is `wgsl/f64_math.wgsl`; it calls `nil_powi_f64`, which the shader writes
/// before it.
pub const F64_MATH: &str = include_str!("wgsl/f64_math.wgsl");

fn plain(name: &str) -> String {
    rust_name(name).trim_start_matches("r#").to_string()
}

struct W<'a> {
    resolution: &'a Resolution,
    types: &'a FunctionTypes,
    mutated: &'a [bool],
    ctx: &'a dyn CodegenContext,
    float: &'static str,
    out: String,
    level: usize,
    tmp: usize,
    diagnostics: Vec<Diagnostic>,
    ad: bool,
    /// The kernel's entry point (arrays, uniforms) rather than a function.
    entry: bool,
    /// Array parameters (by position) whose adjoint is atomic.
    atomic: BTreeSet<usize>,
    atomics: Atomics,
    /// The functions called, and in which pass.
    needs: BTreeSet<(String, Pass)>,
}

impl W<'_> {
    fn line(&mut self, text: &str) {
        for _ in 0..self.level {
            self.out.push_str("    ");
        }
        self.out.push_str(text);
        self.out.push('\n');
    }

    fn fresh(&mut self, prefix: &str) -> String {
        self.tmp += 1;
        format!("nil_{prefix}{}", self.tmp)
    }

    fn unsupported(&mut self, span: Span, what: &str) {
        self.diagnostics.push(
            Diagnostic::error(
                "E0701",
                span,
                format!("the GPU backend cannot generate {what} yet"),
            )
            .with_label("in a kernel")
            .with_help("kernels take scalars and 1-D arrays of numbers, and call functions with scalar parameters"),
        );
    }

    fn def_of(&self, span: Span) -> Option<usize> {
        self.resolution.def_at(span)
    }

    /// A variable: its code and kind.
    fn var(&mut self, name: &str, span: Span) -> (String, K) {
        if matches!(name, "π" | "pi") {
            return ("3.141592653589793".into(), K::LitFloat);
        }
        let Some(id) = self.def_of(span) else {
            self.unsupported(span, &format!("the name `{name}` here"));
            return ("0".into(), K::Unknown);
        };
        let def = &self.resolution.defs[id];
        let k = kind_of_ty(&self.types.defs[id], self.float);
        let n = plain(&def.name);
        match def.kind {
            DefKind::Param(i) => {
                let by_ptr = !self.entry
                    && !matches!(k, K::Array(_))
                    && self.mutated.get(i).copied().unwrap_or(false);
                if by_ptr {
                    (format!("(*v_{n})"), k)
                } else {
                    (format!("v_{n}"), k)
                }
            }
            DefKind::KwParam(_) if !self.entry => (format!("v_{n}"), kw_kind(k, self.float)),
            DefKind::KwParam(_) => (format!("v_{n}"), k),
            DefKind::Ancilla | DefKind::LoopVar => (format!("a{id}_{n}"), k),
        }
    }

    /// The adjoint of a variable, if it has one.
    fn var_bar(&self, span: Span) -> Option<String> {
        let id = self.def_of(span)?;
        let def = &self.resolution.defs[id];
        let k = kind_of_ty(&self.types.defs[id], self.float);
        if !matches!(k, K::Float(_)) {
            return None;
        }
        let n = plain(&def.name);
        match def.kind {
            DefKind::Param(_) if self.entry => Some(format!("bs_{n}")),
            DefKind::Param(_) => Some(format!("(*b_{n})")),
            DefKind::Ancilla => Some(format!("ab{id}")),
            _ => None,
        }
    }

    fn conv(&self, code: String, from: K, to: K) -> String {
        match (from, to) {
            (a, b) if a == b => code,
            (_, K::Unknown) | (K::Unknown, _) => code,
            (K::LitInt, K::Int) => code,
            (K::LitInt | K::LitFloat | K::Int, K::Float(f)) => format!("{f}({code})"),
            (K::Float(_) | K::LitFloat, K::Int) => format!("i32({code})"),
            (K::Float(_), K::Float(f)) => format!("{f}({code})"),
            (K::Bool, K::Int) => format!("select(0, 1, {code})"),
            (K::Int | K::LitInt, K::Bool) => format!("({code} != 0)"),
            _ => code,
        }
    }

    fn value_as(&mut self, e: &Expr, k: K) -> String {
        let (code, from) = self.expr(e);
        self.conv(code, from, k)
    }

    fn unify(&self, a: K, b: K) -> K {
        match (a, b) {
            (K::Float(f), _) | (_, K::Float(f)) => K::Float(f),
            (K::LitFloat, _) | (_, K::LitFloat) => K::Float(self.float),
            (K::Int, _) | (_, K::Int) => K::Int,
            (K::LitInt, K::LitInt) => K::LitInt,
            (K::Bool, K::Bool) => K::Bool,
            _ => K::Unknown,
        }
    }

    fn index(&mut self, e: &Expr) -> String {
        let i = self.value_as(e, K::Int);
        format!("({i}) - 1")
    }

    fn expr(&mut self, e: &Expr) -> (String, K) {
        match &e.kind {
            ExprKind::Var(name) => self.var(name, e.span),
            ExprKind::Int(text) => (text.replace('_', ""), K::LitInt),
            ExprKind::Float(text) => {
                let t = text.replace('_', "");
                (t, K::LitFloat)
            }
            ExprKind::Bool(b) => (b.to_string(), K::Bool),
            ExprKind::Paren(inner) => {
                let (c, k) = self.expr(inner);
                (format!("({c})"), k)
            }
            ExprKind::Index { base, indices } => {
                let (b, bk) = self.expr(base);
                match (bk, indices.as_slice()) {
                    (K::Array(elem), [IndexArg::Expr(i)]) => {
                        let i = self.index(i);
                        (format!("{b}[{i}]"), elem_kind(elem))
                    }
                    _ => {
                        self.unsupported(e.span, "this indexing");
                        ("0".into(), K::Unknown)
                    }
                }
            }
            ExprKind::Unary { op, operand } => {
                let (c, k) = self.expr(operand);
                match op {
                    UnaryOp::Neg => (format!("(-{c})"), k),
                    UnaryOp::Plus => (c, k),
                    UnaryOp::Not => (format!("(!{c})"), K::Bool),
                }
            }
            ExprKind::Binary { op, lhs, rhs } => self.binary(*op, lhs, rhs, e.span),
            ExprKind::Call { callee, args, .. } => self.call_expr(&callee.name, args, e.span),
            _ => {
                self.unsupported(e.span, "this expression");
                ("0".into(), K::Unknown)
            }
        }
    }

    fn binary(&mut self, op: BinaryOp, lhs: &Expr, rhs: &Expr, span: Span) -> (String, K) {
        use BinaryOp::*;
        let (l, lk) = self.expr(lhs);
        let (r, rk) = self.expr(rhs);
        let k = self.unify(lk, rk);
        let both = |w: &Self, k: K| (w.conv(l.clone(), lk, k), w.conv(r.clone(), rk, k));
        match op {
            Add | Sub | Mul | Rem => {
                let (a, b) = both(self, k);
                let sym = match op {
                    Add => "+",
                    Sub => "-",
                    Mul => "*",
                    _ => "%",
                };
                (format!("({a} {sym} {b})"), k)
            }
            Div => {
                let k = match k {
                    K::Int | K::LitInt => K::Float(self.float),
                    k => k,
                };
                let (a, b) = both(self, k);
                (format!("({a} / {b})"), k)
            }
            IntDiv => {
                let (a, b) = both(self, k);
                match k {
                    K::Int | K::LitInt => (format!("({a} / {b})"), k),
                    _ => (format!("floor({a} / {b})"), k),
                }
            }
            Eq | Ne | Lt | Le | Gt | Ge => {
                let (a, b) = both(self, k);
                (format!("({a} {} {b})", op.as_str()), K::Bool)
            }
            And | Or => {
                let (a, b) = both(self, K::Bool);
                (format!("({a} {} {b})", op.as_str()), K::Bool)
            }
            BitAnd | BitOr | Xor => {
                if lk == K::Bool && rk == K::Bool {
                    let sym = match op {
                        BitAnd => "&",
                        BitOr => "|",
                        _ => "!=",
                    };
                    return (format!("({l} {sym} {r})"), K::Bool);
                }
                let k = if k == K::LitInt { K::LitInt } else { K::Int };
                let (a, b) = both(self, k);
                let sym = match op {
                    BitAnd => "&",
                    BitOr => "|",
                    _ => "^",
                };
                (format!("({a} {sym} {b})"), k)
            }
            Shl | Shr => {
                let a = self.conv(l, lk, K::Int);
                let b = self.conv(r, rk, K::Int);
                let sym = if op == Shl { "<<" } else { ">>" };
                (format!("({a} {sym} u32({b}))"), K::Int)
            }
            Pow => match rk {
                K::Int | K::LitInt => {
                    let fk = match lk {
                        K::Float(f) => K::Float(f),
                        _ => K::Float(self.float),
                    };
                    let a = self.conv(l, lk, fk);
                    if r == "2" {
                        return (format!("({a} * {a})"), fk);
                    }
                    let b = self.conv(r, rk, K::Int);
                    let v = format!("nil_powi_{}({a}, {b})", wgsl_ty(fk));
                    match lk {
                        K::Int | K::LitInt => (format!("i32({v})"), K::Int),
                        _ => (v, fk),
                    }
                }
                _ => {
                    let fk = match k {
                        K::Float(f) => K::Float(f),
                        _ => K::Float(self.float),
                    };
                    let (a, b) = both(self, fk);
                    (trans("pow", &format!("{a}, {b}"), wgsl_ty(fk)), fk)
                }
            },
            DotAdd | DotSub | DotMul | DotDiv | DotPow => {
                self.unsupported(span, "a broadcast");
                ("0".into(), K::Unknown)
            }
        }
    }

    fn call_expr(&mut self, name: &str, args: &[Expr], span: Span) -> (String, K) {
        let fl = self.float;
        match (name, args) {
            ("global_index", []) if self.entry => ("nil_index".into(), K::Int),
            ("identity" | "value" | "unwrap" | "real" | "conj", [x]) => self.expr(x),
            ("imag", [x]) => {
                let (_, k) = self.expr(x);
                (self.conv("0".into(), K::LitInt, k), k)
            }
            ("abs", [x]) => {
                let (c, k) = self.expr(x);
                (format!("abs({c})"), k)
            }
            ("abs2", [x]) => {
                let (c, k) = self.expr(x);
                (format!("({c} * {c})"), k)
            }
            (
                "sqrt" | "exp" | "log" | "sin" | "cos" | "tan" | "sinh" | "cosh" | "tanh" | "asin"
                | "acos" | "atan" | "floor" | "ceil" | "round" | "sign",
                [x],
            ) => {
                let (c, k) = self.expr(x);
                let fk = match k {
                    K::Float(f) => K::Float(f),
                    _ => K::Float(fl),
                };
                let c = self.conv(c, k, fk);
                if matches!(name, "sqrt" | "floor" | "ceil" | "round" | "sign") {
                    (format!("{name}({c})"), fk)
                } else {
                    (trans(name, &c, wgsl_ty(fk)), fk)
                }
            }
            ("atan", [y, x]) => {
                let (a, ak) = self.expr(y);
                let (b, bk) = self.expr(x);
                let fk = match self.unify(ak, bk) {
                    K::Float(f) => K::Float(f),
                    _ => K::Float(fl),
                };
                let args = format!("{}, {}", self.conv(a, ak, fk), self.conv(b, bk, fk));
                (trans("atan2", &args, wgsl_ty(fk)), fk)
            }
            ("inv", [x]) => {
                let (c, k) = self.expr(x);
                let fk = match k {
                    K::Float(f) => K::Float(f),
                    _ => K::Float(fl),
                };
                let c = self.conv(c, k, fk);
                (format!("({}(1) / {c})", wgsl_ty(fk)), fk)
            }
            ("min" | "max", [a, b]) => {
                let (x, xk) = self.expr(a);
                let (y, yk) = self.expr(b);
                let k = self.unify(xk, yk);
                (
                    format!("{name}({}, {})", self.conv(x, xk, k), self.conv(y, yk, k)),
                    k,
                )
            }
            ("div" | "rem" | "mod", [a, b]) => {
                let (x, xk) = self.expr(a);
                let (y, yk) = self.expr(b);
                let k = self.unify(xk, yk);
                let (x, y) = (self.conv(x, xk, k), self.conv(y, yk, k));
                let int = matches!(k, K::Int | K::LitInt);
                let code = match (name, int) {
                    ("div", true) => format!("({x} / {y})"),
                    ("div", false) => format!("trunc({x} / {y})"),
                    ("rem", _) => format!("({x} % {y})"),
                    (_, true) => format!("((({x} % {y}) + {y}) % {y})"),
                    (_, false) => format!("({x} - {y} * floor({x} / {y}))"),
                };
                (code, k)
            }
            ("zero" | "one", [x]) => {
                let k = match &x.kind {
                    // A type: `zero(T)`, `one(f64)`.
                    ExprKind::Var(t) if self.def_of(x.span).is_none() => match t.as_str() {
                        "f32" | "f64" => K::Float(if t == "f32" { "f32" } else { "f64" }),
                        "bool" => K::Bool,
                        t if crate::builtins::SCALAR_TYPES.contains(&t) => K::Int,
                        _ => K::Float(fl),
                    },
                    _ => self.expr(x).1,
                };
                let k = match k {
                    K::Array(e) => elem_kind(e),
                    K::LitFloat => K::Float(fl),
                    K::LitInt => K::Int,
                    k => k,
                };
                let v = if name == "zero" { "0" } else { "1" };
                (format!("{}({v})", wgsl_ty(k)), k)
            }
            ("length", [x]) if self.entry => {
                let (c, k) = self.expr(x);
                if matches!(k, K::Array(_)) {
                    (format!("i32(arrayLength(&{c}))"), K::Int)
                } else {
                    self.unsupported(span, "`length` of this value");
                    ("0".into(), K::Unknown)
                }
            }
            ("iseven" | "isodd", [x]) => {
                let c = self.value_as(x, K::Int);
                let r = if name == "iseven" { 0 } else { 1 };
                (format!("(abs({c} % 2) == {r})"), K::Bool)
            }
            _ => {
                self.unsupported(span, &format!("a call of `{name}`"));
                ("0".into(), K::Unknown)
            }
        }
    }

    /// A place as an lvalue.
    fn place(&mut self, e: &Expr) -> Option<(String, K)> {
        match &e.kind {
            ExprKind::Var(name) => Some(self.var(name, e.span)),
            ExprKind::Paren(inner) => self.place(inner),
            ExprKind::Index { .. } => {
                let (c, k) = self.expr(e);
                (k != K::Unknown).then_some((c, k))
            }
            _ => {
                self.unsupported(e.span, "writing this place");
                None
            }
        }
    }

    /// The adjoint of a place that this invocation writes (never atomic).
    fn bar_lvalue(&mut self, e: &Expr) -> Option<String> {
        match &e.kind {
            ExprKind::Var(_) => self.var_bar(e.span),
            ExprKind::Paren(inner) => self.bar_lvalue(inner),
            ExprKind::Index { base, indices } => {
                let ExprKind::Var(name) = &base.kind else {
                    return None;
                };
                let id = self.def_of(base.span)?;
                let k = kind_of_ty(&self.types.defs[id], self.float);
                let (K::Array(elem), [IndexArg::Expr(i)]) = (k, indices.as_slice()) else {
                    return None;
                };
                if elem == "i32" {
                    return None;
                }
                let i = self.index(i);
                Some(format!("b_{}[{i}]", plain(name)))
            }
            _ => None,
        }
    }

    /// Adds `amount` to the adjoint of a place read (atomically where
    /// several invocations add to it).
    fn bar_add(&mut self, leaf: &Expr, amount: &str) {
        match &leaf.kind {
            ExprKind::Paren(inner) => self.bar_add(inner, amount),
            ExprKind::Index { base, indices } => {
                let Some(id) = self.def_of(base.span) else {
                    return;
                };
                let atomic = match self.resolution.defs[id].kind {
                    DefKind::Param(i) => self.entry && self.atomic.contains(&i),
                    _ => false,
                };
                let ExprKind::Var(name) = &base.kind else {
                    return;
                };
                if let (true, [IndexArg::Expr(i)]) = (atomic, indices.as_slice()) {
                    let i = self.index(i);
                    self.line(&format!("nil_atomic_add_b_{}({i}, {amount});", plain(name)));
                } else if let Some(b) = self.bar_lvalue(leaf) {
                    self.line(&format!("{b} += {amount};"));
                }
            }
            _ => {
                if let Some(b) = self.bar_lvalue(leaf) {
                    self.line(&format!("{b} += {amount};"));
                }
            }
        }
    }

    fn block(&mut self, stmts: &[Stmt]) {
        let pairs = routine_pairs(stmts);
        for (i, stmt) in stmts.iter().enumerate() {
            if let StmtKind::Unroutine = stmt.kind {
                if let Some(expansion) = unroutine_expansion(stmts, &pairs, i) {
                    self.stmt(&expansion);
                }
                continue;
            }
            self.stmt(stmt);
        }
    }

    fn stmt(&mut self, stmt: &Stmt) {
        match &stmt.kind {
            StmtKind::Instr {
                target,
                op,
                broadcast,
                value,
                ..
            } => {
                if *broadcast {
                    return self.unsupported(stmt.span, "a broadcast");
                }
                if self.ad {
                    self.ad_instruction(target, *op, value, stmt.span);
                }
                let Some((p, pk)) = self.place(target) else {
                    return;
                };
                match op {
                    InstrOp::Add | InstrOp::Sub => {
                        let v = self.value_as(value, pk);
                        let sym = if *op == InstrOp::Add { "+=" } else { "-=" };
                        self.line(&format!("{p} {sym} {v};"));
                    }
                    InstrOp::Xor if pk == K::Bool => {
                        let v = self.value_as(value, K::Bool);
                        self.line(&format!("{p} = {p} != {v};"));
                    }
                    InstrOp::Xor => {
                        let v = self.value_as(value, K::Int);
                        self.line(&format!("{p} ^= {v};"));
                    }
                    _ => self.unsupported(stmt.span, "this instruction"),
                }
            }
            StmtKind::Call(call) => {
                if crate::builtins::instruction(&call.callee.name).is_some() {
                    let name = if call.inverted {
                        crate::builtins::instruction(&call.callee.name)
                            .map(|i| i.inverse)
                            .unwrap_or("")
                    } else {
                        crate::builtins::instruction(&call.callee.name)
                            .map(|i| i.name)
                            .unwrap_or("")
                    };
                    if self.ad {
                        self.ad_instruction_call(name, call, stmt.span);
                    }
                    self.instruction_call(name, call, stmt.span);
                } else {
                    self.call(call, stmt.span);
                }
            }
            StmtKind::Alloc { name, value } => {
                let id = self.def_of(name.span);
                let k = id
                    .map(|id| kind_of_ty(&self.types.defs[id], self.float))
                    .unwrap_or(K::Unknown);
                let k = match k {
                    K::Unknown => {
                        let (_, vk) = self.expr(value);
                        match vk {
                            K::LitInt => K::Int,
                            K::LitFloat => K::Float(self.float),
                            k => k,
                        }
                    }
                    k => k,
                };
                if matches!(k, K::Array(_) | K::Unknown) {
                    return self.unsupported(stmt.span, "this ancilla");
                }
                let v = self.value_as(value, k);
                let (var, _) = self.var(&name.name, name.span);
                self.line(&format!("var {var}: {} = {v};", wgsl_ty(k)));
                if self.ad
                    && let Some(b) = self.var_bar(name.span)
                {
                    self.line(&format!("var {b}: {} = {}(0);", self.float, self.float));
                }
            }
            StmtKind::Dealloc { name, value } => {
                if self.ad {
                    let var = Expr {
                        kind: ExprKind::Var(name.name.clone()),
                        span: name.span,
                    };
                    self.ad_instruction(&var, InstrOp::Sub, value, stmt.span);
                }
            }
            StmtKind::If {
                branches,
                otherwise,
            } => {
                for (i, b) in branches.iter().enumerate() {
                    let c = self.value_as(&b.cond.pre, K::Bool);
                    if i == 0 {
                        self.line(&format!("if ({c}) {{"));
                    } else {
                        self.level -= 1;
                        self.line(&format!("}} else if ({c}) {{"));
                    }
                    self.level += 1;
                    self.block(&b.body.stmts);
                }
                if let Some(o) = otherwise {
                    self.level -= 1;
                    self.line("} else {");
                    self.level += 1;
                    self.block(&o.stmts);
                }
                self.level -= 1;
                self.line("}");
            }
            StmtKind::While { cond, body } => {
                self.line("loop {");
                self.level += 1;
                let c = self.value_as(&cond.pre, K::Bool);
                self.line(&format!("if (!({c})) {{ break; }}"));
                self.block(&body.stmts);
                self.level -= 1;
                self.line("}");
            }
            StmtKind::For { var, range, body } => {
                let a = self.value_as(&range.start, K::Int);
                let s = match &range.step {
                    Some(s) => self.value_as(s, K::Int),
                    None => "1".into(),
                };
                let b = self.value_as(&range.stop, K::Int);
                let (va, vs, vb, n, k) = (
                    self.fresh("start"),
                    self.fresh("step"),
                    self.fresh("stop"),
                    self.fresh("count"),
                    self.fresh("k"),
                );
                self.line("{");
                self.level += 1;
                self.line(&format!("let {va}: i32 = {a};"));
                self.line(&format!("let {vs}: i32 = {s};"));
                self.line(&format!("let {vb}: i32 = {b};"));
                self.line(&format!("var {n}: i32 = 0;"));
                self.line(&format!(
                    "if (!({vs} == 0 || ({vs} > 0 && {va} > {vb}) || ({vs} < 0 && {va} < {vb}))) {{ {n} = ({vb} - {va}) / {vs} + 1; }}"
                ));
                self.line(&format!("for (var {k}: i32 = 0; {k} < {n}; {k}++) {{"));
                self.level += 1;
                let step = if range.reversed {
                    format!("({n} - 1 - {k})")
                } else {
                    k.clone()
                };
                let (v, _) = self.var(&var.name, var.span);
                self.line(&format!("let {v}: i32 = {va} + {step} * {vs};"));
                self.block(&body.stmts);
                self.level -= 1;
                self.line("}");
                self.level -= 1;
                self.line("}");
            }
            StmtKind::Begin(block) => self.block(&block.stmts),
            StmtKind::Inverse(inner) if matches!(inner.kind, StmtKind::Tape(_)) => self.stmt(inner),
            StmtKind::Inverse(inner) => self.stmt(&invert_stmt(inner)),
            StmtKind::Routine(inner) | StmtKind::InBounds(inner) | StmtKind::InvCheckOff(inner) => {
                self.stmt(inner)
            }
            // Reported by the checks for the kernel itself; this is for
            // the functions it calls.
            StmtKind::Tape(_) => self.diagnostics.push(
                Diagnostic::error("E0805", stmt.span, "a tape loop in code that runs on the GPU")
                    .with_label("kernels and the functions they call keep no tape")
                    .with_help("remove `@tape` and write the loop reversibly (`while (pre, post)`, no `=`, `*=` or `/=`)"),
            ),
            StmtKind::Unroutine => {}
            // Printing and assertions do not run on the device.
            StmtKind::Safe(_) => {}
            StmtKind::Typecast { .. } => self.unsupported(stmt.span, "a typecast"),
        }
    }

    fn instruction_call(&mut self, name: &str, call: &Call, span: Span) {
        let instr = crate::builtins::instruction(name);
        if instr.is_none_or(|i| i.arity != call.args.len()) {
            // Reported by the checks (E0108); nothing to generate.
            return;
        }
        let mut places = Vec::new();
        for &i in instr.map(|i| i.mutates).unwrap_or(&[]) {
            let Some(p) = call.args.get(i).and_then(|a| self.place(a)) else {
                return;
            };
            places.push(p);
        }
        let Some(&(ref a, ak)) = places.first() else {
            return;
        };
        let a = a.clone();
        let Some(instr) = instr else { return };
        // The rule is the analysis's (`builtins::Rule`); this renders it in
        // WGSL, as `Gen::instruction_call` does in Rust.
        match instr.rule {
            crate::builtins::Rule::Linear { rows, .. } => {
                let olds: Vec<String> = places
                    .iter()
                    .enumerate()
                    .map(|(i, (p, _))| {
                        let t = self.fresh(["ta", "tb"].get(i).copied().unwrap_or("tx"));
                        self.line(&format!("let {t} = {p};"));
                        t
                    })
                    .collect();
                let ty = wgsl_ty(ak);
                let angle = match instr.rule.angle_read() {
                    Some(k) => {
                        let th = self.value_as(&call.args[k], ak);
                        let (s, c) = (self.fresh("s"), self.fresh("c"));
                        self.line(&format!("let {s} = {};", trans("sin", &th, ty)));
                        self.line(&format!("let {c} = {};", trans("cos", &th, ty)));
                        Some((s, c))
                    }
                    None => None,
                };
                let rsqrt2 = format!("{ty}(0.7071067811865476)");
                let factors = crate::Factors {
                    angle: angle.as_ref(),
                    rsqrt2: &rsqrt2,
                };
                for ((place, _), row) in places.iter().zip(rows) {
                    let value = factors.linear_combination(row, &olds);
                    self.line(&format!("{place} = {value};"));
                }
            }
            crate::builtins::Rule::Scale { by, divide } => {
                let n = self.value_as(&call.args[by], ak);
                let sym = if divide { "/" } else { "*" };
                self.line(&format!("{a} = {a} {sym} {n};"));
            }
            crate::builtins::Rule::Shift { up } => {
                let one = self.conv("1".into(), K::LitInt, ak);
                let sym = if up { "+=" } else { "-=" };
                self.line(&format!("{a} {sym} {one};"));
            }
            // Kernels compute on real floats: their conjugate is themselves.
            crate::builtins::Rule::Conj => {}
            crate::builtins::Rule::Stack => self.unsupported(span, &format!("`{name}`")),
        }
    }

    /// The adjoint rule of `target op= value` in a reverse pass (see
    /// `Gen::ad_instruction`).
    fn ad_instruction(&mut self, target: &Expr, op: InstrOp, value: &Expr, span: Span) {
        if !matches!(self.place_kind(target), K::Float(_)) {
            return;
        }
        let sign_plus = match op {
            InstrOp::Sub => true,
            InstrOp::Add => false,
            _ => return self.unsupported(span, "differentiating this instruction"),
        };
        let Some(tb) = self.bar_lvalue(target) else {
            return;
        };
        let mut partials = Vec::new();
        push_partials(self, value, None, &mut partials);
        if partials.is_empty() {
            return;
        }
        let g = self.fresh("g");
        self.line(&format!("let {g} = {tb};"));
        for (leaf, p) in partials {
            let amount = if sign_plus {
                format!("{g} * {p}")
            } else {
                format!("-({g} * {p})")
            };
            self.bar_add(&leaf, &amount);
        }
    }

    fn place_kind(&mut self, e: &Expr) -> K {
        let saved = (self.out.len(), self.diagnostics.len());
        let k = self.expr(e).1;
        self.out.truncate(saved.0);
        self.diagnostics.truncate(saved.1);
        k
    }

    fn ad_instruction_call(&mut self, name: &str, call: &Call, span: Span) {
        if crate::builtins::instruction(name).is_none_or(|i| i.arity != call.args.len()) {
            return;
        }
        let Some(a0) = call.args.first() else { return };
        if !matches!(self.place_kind(a0), K::Float(_)) {
            return;
        }
        let fl = self.float;
        let bar = |w: &mut Self, i: usize| call.args.get(i).and_then(|a| w.bar_lvalue(a));
        let Some(instr) = crate::builtins::instruction(name) else {
            return;
        };
        // This instruction undoes its inverse `F`: the adjoints go through
        // `F`'s transposed Jacobian (`Instruction::adjoint_rows`).
        match instr.rule {
            crate::builtins::Rule::Linear { .. } => {
                let (Some(rows), Some(forward)) = (
                    instr.adjoint_rows(),
                    crate::builtins::instruction(instr.inverse),
                ) else {
                    return;
                };
                let mut bars = Vec::new();
                for i in 0..rows.len() {
                    let Some(b) = bar(self, i) else { return };
                    bars.push(b);
                }
                let temps: Vec<String> = bars
                    .iter()
                    .enumerate()
                    .map(|(i, b)| {
                        let t = self.fresh(["ta", "tb"].get(i).copied().unwrap_or("tx"));
                        self.line(&format!("let {t} = {b};"));
                        t
                    })
                    .collect();
                let angle = match forward.rule {
                    crate::builtins::Rule::Linear {
                        angle: Some(at),
                        dangle,
                        ..
                    } => {
                        let th = self.value_as(&call.args[at], K::Float(fl));
                        let (s, c) = (self.fresh("s"), self.fresh("c"));
                        self.line(&format!("let {s} = {};", trans("sin", &th, fl)));
                        self.line(&format!("let {c} = {};", trans("cos", &th, fl)));
                        // θ gets Σ ā'ᵢ ∂aᵢ'/∂θ, read off `F`'s results.
                        let values: Vec<String> = (0..bars.len())
                            .map(|i| self.value_as(&call.args[i], K::Float(fl)))
                            .collect();
                        let derivatives = crate::Factors::angle_derivatives(dangle, &values);
                        let mut partials = Vec::new();
                        push_partials(self, &call.args[at], None, &mut partials);
                        for (leaf, p) in partials {
                            let sum: Vec<String> = temps
                                .iter()
                                .zip(&derivatives)
                                .map(|(t, d)| format!("{t} * {p} * {d}"))
                                .collect();
                            self.bar_add(&leaf, &sum.join(" + "));
                        }
                        Some((s, c))
                    }
                    _ => None,
                };
                let rsqrt2 = format!("{fl}(0.7071067811865476)");
                let factors = crate::Factors {
                    angle: angle.as_ref(),
                    rsqrt2: &rsqrt2,
                };
                for (target, row) in bars.iter().zip(&rows) {
                    let value = factors.linear_combination(row, &temps);
                    self.line(&format!("{target} = {value};"));
                }
            }
            crate::builtins::Rule::Scale { by, divide } => {
                let Some(a) = bar(self, 0) else { return };
                let n = self.value_as(&call.args[by], K::Float(fl));
                // `MULINT` undoes `y /= n`: ȳ becomes ȳ / n; `DIVINT`, ȳ n.
                let sym = if divide { "*" } else { "/" };
                self.line(&format!("{a} = {a} {sym} {n};"));
            }
            crate::builtins::Rule::Shift { .. } | crate::builtins::Rule::Conj => {}
            crate::builtins::Rule::Stack => {
                self.unsupported(span, &format!("an adjoint rule for `{name}`"))
            }
        }
    }

    /// A call of a `.nil` function: a WGSL function call, arguments that
    /// are not local variables going through temporaries.
    fn call(&mut self, call: &Call, span: Span) {
        let Some(callee) = self.ctx.callee_body(&call.callee.name) else {
            return self.unsupported(span, &format!("a call of `{}`", call.callee.name));
        };
        let pass = match (self.ad, call.inverted) {
            (false, false) => Pass::Forward,
            (false, true) => Pass::Inverse,
            (true, true) => Pass::Adjoint,
            (true, false) => Pass::UncallAdjoint,
        };
        self.needs.insert((call.callee.name.clone(), pass));
        let fl = self.float;
        let mut args = Vec::new();
        let mut after: Vec<After> = Vec::new();
        for (i, p) in callee.function.params.iter().enumerate() {
            let Some(arg) = call.args.get(i) else { return };
            let pk = callee
                .resolution
                .def_at(p.name.span)
                .map(|id| kind_of_ty(&callee.types.defs[id], fl))
                .unwrap_or(K::Unknown);
            if matches!(pk, K::Array(_) | K::Unknown) {
                return self.unsupported(arg.span, "passing an array to a function from a kernel");
            }
            let changed = callee.mutated.get(i).copied().unwrap_or(false);
            if changed {
                let Some((code, k)) = self.place(arg) else {
                    return;
                };
                if let Some(ptr) = code
                    .strip_prefix("(*")
                    .and_then(|c| c.strip_suffix(')'))
                    .filter(|_| k == pk)
                {
                    args.push(ptr.to_string());
                } else if k == pk && self.is_local_var(arg) {
                    args.push(format!("&{code}"));
                } else {
                    let t = self.fresh("arg");
                    self.line(&format!(
                        "var {t}: {} = {};",
                        wgsl_ty(pk),
                        self.conv(code.clone(), k, pk)
                    ));
                    args.push(format!("&{t}"));
                    after.push(After::Line(format!("{code} = {};", self.conv(t, pk, k))));
                }
            } else {
                let v = self.value_as(arg, pk);
                args.push(v);
            }
            if self.ad && matches!(pk, K::Float(_)) && !matches!(self.place_kind(arg), K::Float(_))
            {
                // An integer argument of a generic callee: no derivative.
                let t = self.fresh("bar");
                self.line(&format!("var {t}: {fl} = {fl}(0);"));
                args.push(format!("&{t}"));
            } else if self.ad && matches!(pk, K::Float(_)) {
                let direct = match &arg.kind {
                    ExprKind::Var(_) => self.var_bar(arg.span),
                    _ => None,
                };
                match direct {
                    Some(b) if b.starts_with("(*") => {
                        args.push(b[2..b.len() - 1].to_string());
                    }
                    Some(b) => args.push(format!("&{b}")),
                    None if changed => {
                        let Some(b) = self.bar_lvalue(arg) else {
                            return self.unsupported(arg.span, "the adjoint of this argument");
                        };
                        let t = self.fresh("bar");
                        self.line(&format!("var {t}: {fl} = {b};"));
                        args.push(format!("&{t}"));
                        after.push(After::Line(format!("{b} = {t};")));
                    }
                    None => {
                        // A read argument: its adjoint goes to what it reads.
                        let t = self.fresh("bar");
                        self.line(&format!("var {t}: {fl} = {fl}(0);"));
                        args.push(format!("&{t}"));
                        after.push(After::Spread { adjoint: t, arg: i });
                    }
                }
            }
        }
        for kw in &callee.function.kwparams {
            let k = callee
                .resolution
                .def_at(kw.name.span)
                .map(|id| kw_kind(kind_of_ty(&callee.types.defs[id], fl), fl))
                .unwrap_or(K::Float(fl));
            let value = call
                .kwargs
                .iter()
                .find(|a| a.name.name == kw.name.name)
                .map(|a| self.value_as(&a.value, k));
            let value = match value {
                Some(v) => v,
                None => {
                    // The default is written in the callee's terms: a literal.
                    let mut w = W {
                        resolution: &callee.resolution,
                        types: &callee.types,
                        mutated: &callee.mutated,
                        ctx: self.ctx,
                        float: fl,
                        out: String::new(),
                        level: 0,
                        tmp: 0,
                        diagnostics: Vec::new(),
                        ad: false,
                        entry: false,
                        atomic: BTreeSet::new(),
                        atomics: self.atomics,
                        needs: BTreeSet::new(),
                    };
                    let v = w.value_as(&kw.default, k);
                    self.diagnostics.extend(w.diagnostics);
                    v
                }
            };
            args.push(value);
        }
        self.line(&format!(
            "{}({});",
            fn_name(&call.callee.name, pass),
            args.join(", ")
        ));
        for a in after {
            match a {
                After::Line(l) => self.line(&l),
                After::Spread { adjoint, arg } => {
                    let mut partials = Vec::new();
                    push_partials(self, &call.args[arg], None, &mut partials);
                    for (leaf, p) in partials {
                        self.bar_add(&leaf, &format!("{adjoint} * {p}"));
                    }
                }
            }
        }
    }

    /// Whether `e` is an ancilla (a `var` of this function, which a
    /// pointer can point to).
    fn is_local_var(&self, e: &Expr) -> bool {
        matches!(e.kind, ExprKind::Var(_))
            && self
                .def_of(e.span)
                .is_some_and(|id| self.resolution.defs[id].kind == DefKind::Ancilla)
    }
}

/// What follows a call of a WGSL function.
enum After {
    /// Copy a temporary back.
    Line(String),
    /// An expression argument's adjoint (in the temporary `adjoint`) goes
    /// to the places the argument `arg` reads.
    Spread { adjoint: String, arg: usize },
}

impl Deriv for W<'_> {
    fn one(&mut self) -> String {
        format!("{}(1)", self.float)
    }

    fn leaf(&mut self, e: &Expr) -> bool {
        matches!(self.place_kind(e), K::Float(_))
    }

    fn complex_operand(&mut self, _: &Expr) -> bool {
        false
    }

    fn is_int(&mut self, e: &Expr) -> bool {
        matches!(self.place_kind(e), K::Int | K::LitInt)
    }

    fn value(&mut self, e: &Expr) -> String {
        let f = self.float;
        self.value_as(e, K::Float(f))
    }

    fn int_exponent(&mut self, e: &Expr) -> (String, String) {
        let n = self.value_as(e, K::Int);
        (n.clone(), format!("{}({n})", self.float))
    }

    fn real_fn(&mut self, f: &str, v: &str) -> String {
        match f {
            "signum" => format!("sign({v})"),
            "sqrt" => format!("sqrt({v})"),
            "ln" => trans("log", v, self.float),
            f => trans(f, v, self.float),
        }
    }

    fn powi(&mut self, x: &str, n: &str) -> String {
        format!("nil_powi_{}({x}, {n})", self.float)
    }

    fn powf(&mut self, x: &str, p: &str) -> String {
        trans("pow", &format!("{x}, {p}"), self.float)
    }

    fn pick(&mut self, a: &str, cmp: &str, b: &str, yes: bool) -> String {
        let f = self.float;
        let (t, e) = if yes { ("1", "0") } else { ("0", "1") };
        format!("select({f}({e}), {f}({t}), {a} {cmp} {b})")
    }

    fn unsupported(&mut self, span: Span, what: &str) {
        W::unsupported(self, span, what)
    }
}

/// One parameter of a kernel as the launcher and the shader see it.
struct KParam {
    name: String,
    kind: K,
    /// The Rust type (element type for arrays).
    rust: String,
    mutated: bool,
    positional: bool,
}

fn kernel_params(input: &crate::Input<'_>, float: &'static str) -> Vec<KParam> {
    let f = input.function;
    let mut out = Vec::new();
    let rust_of = |ty: &Ty| -> String {
        match ty.element() {
            Ty::Scalar(s) => s.to_string(),
            Ty::Generic(g) => g.clone(),
            _ => "()".into(),
        }
    };
    for (i, p) in f.params.iter().enumerate() {
        let ty = input
            .resolution
            .def_at(p.name.span)
            .map(|id| input.types.defs[id].clone())
            .unwrap_or(Ty::Unknown);
        out.push(KParam {
            name: plain(&p.name.name),
            kind: kind_of_ty(&ty, float),
            rust: rust_of(&ty),
            mutated: input.mutated.get(i).copied().unwrap_or(false),
            positional: true,
        });
    }
    for kw in &f.kwparams {
        let ty = input
            .resolution
            .def_at(kw.name.span)
            .map(|id| input.types.defs[id].clone())
            .unwrap_or(Ty::Scalar("f64"));
        out.push(KParam {
            name: plain(&kw.name.name),
            kind: kind_of_ty(&ty, float),
            rust: rust_of(&ty),
            mutated: false,
            positional: false,
        });
    }
    out
}

/// The WGSL of one kernel pass (`Forward`, `Inverse` or `Adjoint`) for one
/// float type, or the reasons it cannot be generated.
pub fn kernel_shader(
    input: &crate::Input<'_>,
    float: &'static str,
    pass: Pass,
    atomics: Atomics,
) -> Result<String, Vec<Diagnostic>> {
    let f = input.function;
    let ad = pass.differentiating();
    let params = kernel_params(input, float);
    let mut w = W {
        resolution: input.resolution,
        types: input.types,
        mutated: input.mutated,
        ctx: input.ctx,
        float,
        out: String::new(),
        level: 1,
        tmp: 0,
        diagnostics: Vec::new(),
        ad,
        entry: true,
        atomic: input.facts.shared_reads.clone(),
        atomics,
        needs: BTreeSet::new(),
    };
    for (p, ast) in params.iter().zip(&f.params) {
        if p.kind == K::Unknown {
            w.unsupported(ast.span, "this parameter type");
        }
    }
    let program = match pass {
        Pass::Forward | Pass::UncallAdjoint => explicit_deallocations(f),
        Pass::Inverse | Pass::Adjoint => invert_function(f),
    };
    w.block(&program.body.stmts);
    let body = std::mem::take(&mut w.out);

    let mut head = String::new();
    // Uniforms.
    head.push_str("struct Params {\n    n: u32,\n    first: u32,\n");
    for p in params.iter().filter(|p| !matches!(p.kind, K::Array(_))) {
        let t = if p.kind == K::Bool {
            "u32"
        } else {
            wgsl_ty(p.kind)
        };
        let _ = writeln!(head, "    v_{}: {t},", p.name);
    }
    head.push_str("}\n\n@group(0) @binding(0) var<uniform> params: Params;\n");
    let atomic_ty = match atomics {
        Atomics::Cas => "atomic<u32>",
        Atomics::Native => "atomic<f32>",
    };
    let mut binding = 1;
    let mut helpers = String::new();
    for (i, p) in params.iter().enumerate() {
        let K::Array(elem) = p.kind else { continue };
        let access = if p.mutated { "read_write" } else { "read" };
        let _ = writeln!(
            head,
            "@group(0) @binding({binding}) var<storage, {access}> v_{}: array<{elem}>;",
            p.name
        );
        binding += 1;
        if ad && elem != "i32" {
            let atomic = input.facts.shared_reads.contains(&i);
            let ty = if atomic { atomic_ty } else { elem };
            let _ = writeln!(
                head,
                "@group(0) @binding({binding}) var<storage, read_write> b_{}: array<{ty}>;",
                p.name
            );
            binding += 1;
            if atomic {
                helpers.push_str(&atomic_add(&format!("b_{}", p.name), atomics));
            }
        }
    }
    let scalar_bars: Vec<&KParam> = params
        .iter()
        .filter(|p| ad && p.positional && matches!(p.kind, K::Float(_)))
        .collect();
    for p in &scalar_bars {
        let _ = writeln!(
            head,
            "@group(0) @binding({binding}) var<storage, read_write> bsb_{}: array<{atomic_ty}>;",
            p.name
        );
        binding += 1;
        helpers.push_str(&atomic_add(&format!("bsb_{}", p.name), atomics));
    }
    head.push('\n');
    head.push_str(&powi_helper("f32"));
    if float == "f64"
        || params
            .iter()
            .any(|p| matches!(p.kind, K::Float("f64") | K::Array("f64")))
    {
        head.push_str(&powi_helper("f64"));
        head.push_str(F64_MATH);
    }
    head.push_str(&helpers);

    // Callees, as often as new ones turn up.
    let mut done: BTreeSet<(String, Pass)> = BTreeSet::new();
    let mut functions = String::new();
    loop {
        let todo: Vec<(String, Pass)> = w.needs.difference(&done).cloned().collect();
        if todo.is_empty() {
            break;
        }
        for (name, p) in todo {
            done.insert((name.clone(), p));
            let Some(callee) = input.ctx.callee_body(&name) else {
                continue;
            };
            let (code, needs, diagnostics) =
                device_function(&callee, &name, p, float, input.ctx, atomics);
            // Errors inside a callee are reported at the call in the kernel.
            if let Some(d) = diagnostics.into_iter().next() {
                w.diagnostics.push(Diagnostic {
                    primary: crate::diagnostics::Label {
                        span: f.name.span,
                        message: format!("in `{name}`"),
                    },
                    ..d
                });
            }
            functions.push_str(&code);
            w.needs.extend(needs);
        }
    }

    let mut main = String::new();
    let _ = writeln!(main, "@compute @workgroup_size({WORKGROUP_SIZE})");
    main.push_str("fn main(@builtin(global_invocation_id) nil_gid: vec3<u32>) {\n");
    main.push_str("    let nil_invocation = params.first + nil_gid.x;\n");
    main.push_str("    if (nil_invocation >= params.n) {\n        return;\n    }\n");
    main.push_str("    let nil_index = i32(nil_invocation) + 1;\n");
    for p in params.iter().filter(|p| !matches!(p.kind, K::Array(_))) {
        if p.kind == K::Bool {
            let _ = writeln!(main, "    let v_{0} = params.v_{0} != 0u;", p.name);
        } else {
            let _ = writeln!(main, "    let v_{0} = params.v_{0};", p.name);
        }
    }
    for p in &scalar_bars {
        let _ = writeln!(main, "    var bs_{}: {float} = {float}(0);", p.name);
    }
    main.push_str(&body);
    for p in &scalar_bars {
        let _ = writeln!(main, "    nil_atomic_add_bsb_{0}(0, bs_{0});", p.name);
    }
    main.push_str("}\n");
    if !w.diagnostics.is_empty() {
        return Err(w.diagnostics);
    }
    Ok(format!("{head}{functions}\n{main}"))
}

fn atomic_add(buffer: &str, atomics: Atomics) -> String {
    match atomics {
        Atomics::Native => format!(
            "fn nil_atomic_add_{buffer}(i: i32, v: f32) {{\n    atomicAdd(&{buffer}[i], v);\n}}\n\n"
        ),
        Atomics::Cas => format!(
            "fn nil_atomic_add_{buffer}(i: i32, v: f32) {{\n    \
             var old = atomicLoad(&{buffer}[i]);\n    \
             loop {{\n        \
             let r = atomicCompareExchangeWeak(&{buffer}[i], old, bitcast<u32>(bitcast<f32>(old) + v));\n        \
             if (r.exchanged) {{\n            break;\n        }}\n        \
             old = r.old_value;\n    \
             }}\n}}\n\n"
        ),
    }
}

fn powi_helper(f: &str) -> String {
    format!(
        "fn nil_powi_{f}(x: {f}, n: i32) -> {f} {{\n    \
         var r: {f} = {f}(1);\n    var b: {f} = x;\n    var k: i32 = abs(n);\n    \
         loop {{\n        if (k == 0) {{\n            break;\n        }}\n        \
         if ((k & 1) == 1) {{\n            r = r * b;\n        }}\n        \
         b = b * b;\n        k = k >> 1u;\n    }}\n    \
         if (n < 0) {{\n        return {f}(1) / r;\n    }}\n    return r;\n}}\n\n"
    )
}

/// A `.nil` function as a WGSL function for one pass; what it calls.
fn device_function(
    callee: &CalleeBody,
    name: &str,
    pass: Pass,
    float: &'static str,
    ctx: &dyn CodegenContext,
    atomics: Atomics,
) -> (String, BTreeSet<(String, Pass)>, Vec<Diagnostic>) {
    let f = &callee.function;
    let mut w = W {
        resolution: &callee.resolution,
        types: &callee.types,
        mutated: &callee.mutated,
        ctx,
        float,
        out: String::new(),
        level: 1,
        tmp: 0,
        diagnostics: Vec::new(),
        ad: pass.differentiating(),
        entry: false,
        atomic: BTreeSet::new(),
        atomics,
        needs: BTreeSet::new(),
    };
    let mut params = Vec::new();
    for (i, p) in f.params.iter().enumerate() {
        let k = callee
            .resolution
            .def_at(p.name.span)
            .map(|id| kind_of_ty(&callee.types.defs[id], float))
            .unwrap_or(K::Unknown);
        if matches!(k, K::Array(_) | K::Unknown) {
            w.unsupported(p.span, "this parameter type in a function a kernel calls");
            continue;
        }
        let n = plain(&p.name.name);
        let t = wgsl_ty(k);
        if callee.mutated.get(i).copied().unwrap_or(false) {
            params.push(format!("v_{n}: ptr<function, {t}>"));
        } else {
            params.push(format!("v_{n}: {t}"));
        }
        if w.ad && matches!(k, K::Float(_)) {
            params.push(format!("b_{n}: ptr<function, {t}>"));
        }
    }
    for kw in &f.kwparams {
        let k = callee
            .resolution
            .def_at(kw.name.span)
            .map(|id| kw_kind(kind_of_ty(&callee.types.defs[id], float), float))
            .unwrap_or(K::Float(float));
        params.push(format!("v_{}: {}", plain(&kw.name.name), wgsl_ty(k)));
    }
    let program = match pass {
        Pass::Forward | Pass::UncallAdjoint => explicit_deallocations(f),
        Pass::Inverse | Pass::Adjoint => invert_function(f),
    };
    w.block(&program.body.stmts);
    let code = format!(
        "fn {}({}) {{\n{}}}\n\n",
        fn_name(name, pass),
        params.join(", "),
        w.out
    );
    (code, w.needs, w.diagnostics)
}

/// Every shader generated for a kernel: `(pass, float, atomics, WGSL)`.
pub type ShaderVariant = (Pass, &'static str, Atomics, String);

fn needs_atomics(input: &crate::Input<'_>) -> bool {
    let params = kernel_params(input, "f32");
    !input.facts.shared_reads.is_empty()
        || (differentiable(&params)
            && params
                .iter()
                .any(|p| p.positional && matches!(p.kind, K::Float(_))))
}

fn differentiable(params: &[KParam]) -> bool {
    params
        .iter()
        .any(|p| matches!(p.kind, K::Float(_) | K::Array("f32")))
}

/// All the shaders of a kernel (the launchers embed the same ones), or the
/// reasons they cannot be generated.
pub fn all_shaders(input: &crate::Input<'_>) -> Result<Vec<ShaderVariant>, Vec<Diagnostic>> {
    let generic = !input.function.generics.is_empty();
    let floats: &[&'static str] = if generic { &["f32", "f64"] } else { &["f32"] };
    let atomic = needs_atomics(input);
    let mut passes = vec![Pass::Forward, Pass::Inverse];
    if differentiable(&kernel_params(input, "f32")) {
        passes.push(Pass::Adjoint);
    }
    let mut out = Vec::new();
    let mut errors = Vec::new();
    for pass in passes {
        for &fl in floats {
            let modes: &[Atomics] = match (pass == Pass::Adjoint && atomic, fl) {
                (true, "f64") => &[],
                (true, _) => &[Atomics::Cas, Atomics::Native],
                _ => &[Atomics::Cas],
            };
            for &at in modes {
                match kernel_shader(input, fl, pass, at) {
                    Ok(w) => out.push((pass, fl, at, w)),
                    Err(d) => errors.extend(d),
                }
            }
        }
    }
    if errors.is_empty() {
        Ok(out)
    } else {
        Err(errors)
    }
}

/// The Rust launchers of a kernel and the WGSL they run, as constants.
pub fn launchers(input: &crate::Input<'_>) -> (String, Vec<Diagnostic>) {
    let f = input.function;
    let name = plain(&f.name.name);
    let generic = !f.generics.is_empty();
    let needs_atomics = needs_atomics(input);
    let shaders = match all_shaders(input) {
        Ok(s) => s,
        Err(d) => return (String::new(), d),
    };
    let mut out = String::new();
    let mut passes = vec![
        (Pass::Forward, name.clone()),
        (Pass::Inverse, format!("uncall_{name}")),
    ];
    if differentiable(&kernel_params(input, "f32")) {
        passes.push((Pass::Adjoint, format!("{name}_adjoint")));
    }
    for (pass, fn_base) in &passes {
        let const_base = format!("{}_WGSL", fn_base.to_uppercase());
        let mut variants = Vec::new();
        for (_, fl, at, wgsl) in shaders.iter().filter(|v| v.0 == *pass) {
            let suffix = match at {
                Atomics::Native => format!("{}_NATIVE_ATOMICS", fl.to_uppercase()),
                Atomics::Cas => fl.to_uppercase(),
            };
            let cname = format!("{const_base}_{suffix}");
            let _ = writeln!(out, "/// WGSL of [`{fn_base}_gpu`] ({fl}).");
            let _ = writeln!(out, "pub const {cname}: &str = {wgsl:?};");
            variants.push((*fl, *at, cname));
        }
        // The launcher.
        let params = kernel_params(input, "f32");
        let mut sig = vec!["gpu: &nilang::gpu::Gpu".to_string(), "n: usize".to_string()];
        let mut scalars = Vec::new();
        let mut arrays = Vec::new();
        let ad = *pass == Pass::Adjoint;
        for p in &params {
            let is_float = matches!(p.kind, K::Float(_) | K::Array("f32"));
            match p.kind {
                K::Array(_) => {
                    let m = if p.mutated { "&mut " } else { "&" };
                    sig.push(format!("{}: {m}[{}]", p.name, p.rust));
                    arrays.push((p.name.clone(), p.mutated));
                    if ad && is_float {
                        sig.push(format!("{}_bar: &mut [{}]", p.name, p.rust));
                        arrays.push((format!("{}_bar", p.name), true));
                    }
                }
                _ => {
                    sig.push(format!("{}: {}", p.name, p.rust));
                    scalars.push(p.name.clone());
                }
            }
        }
        let mut scalar_bars = Vec::new();
        if ad {
            for p in params
                .iter()
                .filter(|p| p.positional && matches!(p.kind, K::Float(_)))
            {
                sig.push(format!("{}_bar: &mut {}", p.name, p.rust));
                scalar_bars.push(format!("{}_bar", p.name));
            }
        }
        let generics = if generic {
            let g: Vec<String> = f
                .generics
                .iter()
                .map(|g| format!("{}: nilang::gpu::GpuFloat", g.name.name))
                .collect();
            format!("<{}>", g.join(", "))
        } else {
            String::new()
        };
        let what = match pass {
            Pass::Forward => {
                format!("Runs [`{name}`] on the GPU for every index `1..=n` (`global_index()`).")
            }
            Pass::Inverse => {
                format!("Undoes [`{name}_gpu`]: runs the inverse kernel for every index `1..=n`.")
            }
            _ => format!(
                "The adjoint kernel of [`{name}`]: for every index `1..=n`, the reverse pass (as [`{name}_adjoint`] does on the CPU): takes the outputs and their adjoints, leaves the inputs and adds the gradient to each `_bar`."
            ),
        };
        let _ = writeln!(out, "/// {what}");
        let _ = writeln!(
            out,
            "pub fn {fn_base}_gpu{generics}({}) -> Result<(), nilang::gpu::GpuError> {{",
            sig.join(", ")
        );
        let concrete_f64 = params
            .iter()
            .any(|p| matches!(p.kind, K::Float("f64") | K::Array("f64")));
        let kernel = |fl: &str, at: Atomics, cname: &str| {
            format!(
                "nilang::gpu::Kernel {{ name: {:?}, wgsl: {cname}, f64: {}, float_atomics: {}, workgroup_size: {WORKGROUP_SIZE} }}",
                format!("{fn_base}_gpu"),
                fl == "f64" || concrete_f64,
                at == Atomics::Native && ad && needs_atomics
            )
        };
        let pick_f32 = |variants: &[(&str, Atomics, String)]| -> String {
            let cas = variants
                .iter()
                .find(|v| v.0 == "f32" && v.1 == Atomics::Cas);
            let native = variants
                .iter()
                .find(|v| v.0 == "f32" && v.1 == Atomics::Native);
            match (cas, native) {
                (Some(c), Some(nv)) => format!(
                    "if gpu.has_float_atomics() {{ {} }} else {{ {} }}",
                    kernel("f32", Atomics::Native, &nv.2),
                    kernel("f32", Atomics::Cas, &c.2)
                ),
                (Some(c), None) => kernel("f32", Atomics::Cas, &c.2),
                _ => "unreachable!()".into(),
            }
        };
        let t = f
            .generics
            .first()
            .map(|g| g.name.name.clone())
            .unwrap_or_default();
        if generic {
            let f64_variant = variants.iter().find(|v| v.0 == "f64");
            let f64_code = match f64_variant {
                Some(v) => kernel("f64", Atomics::Cas, &v.2),
                None => format!(
                    "return Err(nilang::gpu::GpuError::Unsupported {{ kernel: {:?}, why: \"the reverse pass adds to adjoints from several invocations (a shared read or a scalar parameter), and WGSL has atomics of 32-bit values only: run it in f32\".into() }})",
                    format!("{fn_base}_gpu")
                ),
            };
            let _ = writeln!(
                out,
                "    let kernel = if <{t} as nilang::gpu::GpuFloat>::F64 {{ {f64_code} }} else {{ {} }};",
                pick_f32(&variants)
            );
        } else {
            let _ = writeln!(out, "    let kernel = {};", pick_f32(&variants));
        }
        out.push_str("    let mut args = nilang::gpu::Args::new();\n");
        for s in &scalars {
            let _ = writeln!(out, "    args.scalar({s})?;");
        }
        for (a, m) in &arrays {
            let _ = writeln!(out, "    args.array(&*{a}, {m})?;");
        }
        for b in &scalar_bars {
            let _ = writeln!(out, "    args.array(std::slice::from_ref(&*{b}), true)?;");
        }
        out.push_str("    gpu.launch(&kernel, n, &mut args)?;\n");
        for (k, (a, m)) in arrays.iter().enumerate() {
            if *m {
                let _ = writeln!(out, "    args.read({k}, {a});");
            }
        }
        for (k, b) in scalar_bars.iter().enumerate() {
            let _ = writeln!(
                out,
                "    args.read({}, std::slice::from_mut({b}));",
                arrays.len() + k
            );
        }
        out.push_str("    Ok(())\n}\n\n");
    }
    (out, Vec::new())
}

//! The static shared-write analysis of `@kernel` functions.
//!
//! A kernel runs once per index, all invocations at the same time, with no
//! run-time checks. A write is accepted only where its index is provably
//! distinct per invocation:
//! - `x[e]` where `e` is the invocation's index `g = global_index()` plus a
//!   sum of invariants (literals, scalar parameters, `length(x)`), directly
//!   or through an ancilla `b ← g + a` that is never changed;
//! - `x[(b ⊻ M) + c]` (the partner of `b` under a mask) when every write to
//!   `x` sits under a guard `(b & K) == C` for each operand `K` of
//!   `M = K1 | K2 | ...`: the partner of an invocation then fails the guard,
//!   so the pairs `{b, b ⊻ M}` of active invocations are disjoint (for
//!   `M = 0` the pair is one element).
//!
//! All writes to one array must use one such index (two offsets could meet
//! across invocations), and a written array may be read only where the
//! invocation itself writes. Everything else is E0801 (the write) or E0802
//! (the read). An array read at other indices than the invocation's own is
//! a *shared read*: its adjoint is accumulated atomically in the reverse
//! pass ([`KernelFacts::shared_reads`]).

use std::collections::{BTreeMap, BTreeSet};

use crate::ast::*;
use crate::builtins;
use crate::diagnostics::Diagnostic;
use crate::printer::print_expr;
use crate::resolve::{DefId, DefKind, Resolution};
use crate::ty::{Ctor, Scalar, Ty};
use crate::types::FunctionTypes;

/// A sum of invariant terms: a constant and signed printed terms.
#[derive(Clone, PartialEq, Eq, Debug, Default)]
pub struct Lin {
    pub constant: i64,
    pub terms: Vec<(bool, String)>,
}

impl Lin {
    fn scale(self, k: i64) -> Lin {
        Lin {
            constant: self.constant.wrapping_mul(k),
            terms: self
                .terms
                .into_iter()
                .map(|(n, t)| (n, format!("{k} * ({t})")))
                .collect(),
        }
    }

    fn add(mut self, other: Lin, negate: bool) -> Lin {
        self.constant = if negate {
            self.constant.wrapping_sub(other.constant)
        } else {
            self.constant.wrapping_add(other.constant)
        };
        for (neg, t) in other.terms {
            let neg = neg != negate;
            if let Some(k) = self.terms.iter().position(|(n, u)| *u == t && *n != neg) {
                self.terms.remove(k);
            } else {
                self.terms.push((neg, t));
            }
        }
        self.terms.sort();
        self
    }
}

/// An index as a function of the invocation index `g`:
/// `stride ((g + a) ⊻ M) + c + w` with `w` in `window` (a loop variable's
/// range; without `M`, stride 1 and an empty window, `c` is folded into
/// `a`). Two invocations' indices differ when the window is narrower than
/// the stride.
#[derive(Clone, PartialEq, Eq, Debug)]
pub struct Distinct {
    pub a: Lin,
    /// The mask and its `|` operands, printed.
    pub xor: Option<(String, Vec<String>)>,
    pub c: Lin,
    pub stride: i64,
    pub window: (i64, i64),
}

impl Distinct {
    fn plain(&self) -> bool {
        self.xor.is_none() && self.stride == 1 && self.window == (0, 0)
    }

    /// The same index up to the window.
    fn same_key(&self, other: &Distinct) -> bool {
        self.stride == other.stride
            && self.a == other.a
            && self.c == other.c
            && self.xor == other.xor
    }
}

/// What the analysis found.
#[derive(Clone, PartialEq, Eq, Debug, Default)]
pub struct KernelFacts {
    pub diagnostics: Vec<Diagnostic>,
    /// Array parameters (by position) read at an index other than the
    /// invocation's own: several invocations add to their adjoints.
    pub shared_reads: BTreeSet<usize>,
    /// Those of [`KernelFacts::shared_reads`] read inside a loop: an
    /// invocation may add to their adjoints any number of times, so the
    /// reverse pass cannot give each addition a slot of its own and sums
    /// them with atomic adds (32-bit only).
    pub shared_in_loops: BTreeSet<usize>,
}

struct Access {
    form: Option<Distinct>,
    span: Span,
    /// Guards `(base & K) == C` in effect: (base's `a`, `K`).
    guards: Vec<(Lin, String)>,
}

struct Analysis<'a> {
    resolution: &'a Resolution,
    types: &'a FunctionTypes,
    callees: &'a dyn crate::check::CalleeInfo,
    index_vars: BTreeMap<DefId, Distinct>,
    /// Loop variables with constant bounds: their range.
    loop_ranges: BTreeMap<DefId, (i64, i64)>,
    written_roots: BTreeSet<DefId>,
    guards: Vec<(Lin, String)>,
    writes: BTreeMap<DefId, Vec<Access>>,
    reads: BTreeMap<DefId, Vec<Access>>,
    /// Loops around the statement being read, and the arrays read in one.
    loop_depth: usize,
    read_in_loops: BTreeSet<DefId>,
    out: Vec<Diagnostic>,
}

fn is_array(ty: &Ty) -> bool {
    matches!(ty, Ty::Slice(_) | Ty::Constructed(Ctor::Vec, _))
}

/// The shared-write analysis of a kernel; `None` for other functions.
pub fn analyze(
    f: &Function,
    resolution: &Resolution,
    types: &FunctionTypes,
    callees: &dyn crate::check::CalleeInfo,
) -> KernelFacts {
    let mut a = Analysis {
        resolution,
        types,
        callees,
        index_vars: BTreeMap::new(),
        loop_ranges: BTreeMap::new(),
        written_roots: BTreeSet::new(),
        guards: Vec::new(),
        writes: BTreeMap::new(),
        reads: BTreeMap::new(),
        loop_depth: 0,
        read_in_loops: BTreeSet::new(),
        out: Vec::new(),
    };
    // Roots written anywhere, so that an index ancilla that changes is not
    // taken for one.
    a.collect_written(&f.body.stmts);
    a.block(&f.body.stmts);
    let mut facts = a.finish();
    // The reverse pass gives each addition to a shared adjoint a slot of
    // its own and sums the slots in a fixed order, in f32 and f64 alike:
    // a scalar parameter's adjoint (one addition per invocation) and an
    // array read at computed indices outside loops (a fixed number per
    // invocation). An array read so inside a loop takes atomic adds, which
    // WGSL has for 32-bit values only: a concrete `f64` cannot have them.
    let differentiated = f.params.iter().any(|p| {
        resolution.def_at(p.name.span).is_some_and(|id| {
            matches!(
                types.defs[id].element(),
                Ty::Generic(_) | Ty::Scalar(Scalar::F32 | Scalar::F64)
            )
        })
    });
    for &i in &facts.shared_in_loops {
        let Some(p) = f.params.get(i) else { continue };
        let Some(id) = resolution.def_at(p.name.span) else {
            continue;
        };
        if differentiated && *types.defs[id].element() == Ty::Scalar(Scalar::F64) {
            facts.diagnostics.push(
                Diagnostic::error(
                    "E0804",
                    p.span,
                    format!("`{}` is read by several invocations inside a loop: the adjoint kernel would add to its adjoint atomically, and WGSL has no 64-bit atomic adds", p.name.name),
                )
                .with_label("an f64 adjoint shared by invocations, added to in a loop")
                .with_help("read it outside the loop (into an ancilla), make it generic (`T`, the reverse pass then runs in f32), or read it at the invocation's own index"),
            );
        }
    }
    facts
        .diagnostics
        .sort_by_key(|d| (d.primary.span.start, d.code));
    facts
}

impl Analysis<'_> {
    fn def(&self, span: Span) -> Option<DefId> {
        self.resolution.def_at(span)
    }

    fn param_index(&self, id: DefId) -> Option<usize> {
        match self.resolution.defs[id].kind {
            DefKind::Param(i) => Some(i),
            _ => None,
        }
    }

    fn mutated_args(&self, call: &Call) -> Vec<usize> {
        if let Some(i) = builtins::instruction(&call.callee.name) {
            return i.mutates.to_vec();
        }
        self.callees
            .mutated_params(&call.callee.name)
            .map(|m| {
                m.iter()
                    .enumerate()
                    .filter(|(_, b)| **b)
                    .map(|(i, _)| i)
                    .collect()
            })
            .unwrap_or_default()
    }

    fn collect_written(&mut self, stmts: &[Stmt]) {
        for s in stmts {
            self.visit_stmt_writes(s);
        }
    }

    fn visit_stmt_writes(&mut self, s: &Stmt) {
        let root = |a: &mut Self, e: &Expr| {
            if let Some((_, span)) = e.root_var()
                && let Some(id) = a.def(span)
            {
                a.written_roots.insert(id);
            }
        };
        match &s.kind {
            StmtKind::Instr { target, .. } => root(self, target),
            StmtKind::Call(call) => {
                for i in self.mutated_args(call) {
                    if let Some(arg) = call.args.get(i) {
                        root(self, arg);
                    }
                }
            }
            StmtKind::If {
                branches,
                otherwise,
            } => {
                for b in branches {
                    self.collect_written(&b.body.stmts);
                }
                if let Some(o) = otherwise {
                    self.collect_written(&o.stmts);
                }
            }
            StmtKind::While { body, .. } | StmtKind::For { body, .. } => {
                self.collect_written(&body.stmts)
            }
            StmtKind::Begin(b) => self.collect_written(&b.stmts),
            StmtKind::Inverse(inner)
            | StmtKind::Routine(inner, _)
            | StmtKind::Tape(inner)
            | StmtKind::InvCheckOff(inner)
            | StmtKind::InBounds(inner) => self.visit_stmt_writes(inner),
            _ => {}
        }
    }

    /// An invariant: the same value in every invocation.
    fn invariant(&self, e: &Expr) -> Option<Lin> {
        nilang_syntax::stack::deep(|| match &e.kind {
            ExprKind::Int(text) => {
                let t = text.replace('_', "");
                let v = if let Some(h) = t.strip_prefix("0x") {
                    i64::from_str_radix(h, 16).ok()?
                } else {
                    t.parse().ok()?
                };
                Some(Lin {
                    constant: v,
                    terms: Vec::new(),
                })
            }
            ExprKind::Paren(inner) => self.invariant(inner),
            ExprKind::Binary {
                op: op @ (BinaryOp::Add | BinaryOp::Sub),
                lhs,
                rhs,
            } => Some(
                self.invariant(lhs)?
                    .add(self.invariant(rhs)?, *op == BinaryOp::Sub),
            ),
            ExprKind::Unary {
                op: UnaryOp::Neg,
                operand,
            } => Some(Lin::default().add(self.invariant(operand)?, true)),
            _ if self.opaque_invariant(e) => Some(Lin {
                constant: 0,
                terms: vec![(false, print_expr(e))],
            }),
            _ => None,
        })
    }

    /// Whether every leaf of `e` is invariant (scalar parameters, keyword
    /// parameters, literals, array lengths).
    fn opaque_invariant(&self, e: &Expr) -> bool {
        nilang_syntax::stack::deep(|| match &e.kind {
            ExprKind::Int(_) | ExprKind::Float(_) | ExprKind::Bool(_) => true,
            ExprKind::Var(_) => self.def(e.span).is_some_and(|id| {
                let d = &self.resolution.defs[id];
                match d.kind {
                    DefKind::Param(_) => {
                        !is_array(&self.types.defs[id]) && !self.written_roots.contains(&id)
                    }
                    DefKind::KwParam(_) => true,
                    _ => false,
                }
            }),
            ExprKind::Paren(inner) | ExprKind::Unary { operand: inner, .. } => {
                self.opaque_invariant(inner)
            }
            ExprKind::Binary { lhs, rhs, .. } => {
                self.opaque_invariant(lhs) && self.opaque_invariant(rhs)
            }
            ExprKind::Call { callee, args, .. } if callee.name == "length" => {
                args.iter().all(|a| matches!(a.kind, ExprKind::Var(_)))
            }
            _ => false,
        })
    }

    /// An index as a function of the invocation index.
    fn form(&self, e: &Expr) -> Option<Distinct> {
        nilang_syntax::stack::deep(|| {
            match &e.kind {
                ExprKind::Call { callee, args, .. }
                    if callee.name == "global_index" && args.is_empty() =>
                {
                    Some(Distinct {
                        a: Lin::default(),
                        xor: None,
                        c: Lin::default(),
                        stride: 1,
                        window: (0, 0),
                    })
                }
                ExprKind::Var(_) => self
                    .def(e.span)
                    .and_then(|id| self.index_vars.get(&id).cloned()),
                ExprKind::Paren(inner) => self.form(inner),
                ExprKind::Binary { op, lhs, rhs } => match op {
                    BinaryOp::Add | BinaryOp::Sub => {
                        let neg = *op == BinaryOp::Sub;
                        let (mut f, other) = match (self.form(lhs), neg) {
                            (Some(f), _) => (f, rhs),
                            (None, false) => (self.form(rhs)?, lhs),
                            (None, true) => return None,
                        };
                        if let Some(inv) = self.invariant(other) {
                            if f.plain() {
                                f.a = f.a.add(inv, neg);
                            } else if f.xor.is_none() && inv.terms.is_empty() {
                                // A constant shifts the window of a strided index.
                                let k = if neg {
                                    inv.constant.checked_neg()?
                                } else {
                                    inv.constant
                                };
                                f.window = (f.window.0.checked_add(k)?, f.window.1.checked_add(k)?);
                            } else {
                                f.c = f.c.add(inv, neg);
                            }
                        } else {
                            let (lo, hi) = self.window_of(other)?;
                            let (lo, hi) = if neg {
                                (hi.checked_neg()?, lo.checked_neg()?)
                            } else {
                                (lo, hi)
                            };
                            f.window = (f.window.0.checked_add(lo)?, f.window.1.checked_add(hi)?);
                        }
                        Some(f)
                    }
                    BinaryOp::Mul => {
                        let (f, k) = match self.form(lhs) {
                            Some(f) => (f, rhs),
                            None => (self.form(rhs)?, lhs),
                        };
                        let k = self.invariant(k)?;
                        if !k.terms.is_empty() || k.constant <= 0 || f.xor.is_some() {
                            return None;
                        }
                        let k = k.constant;
                        Some(Distinct {
                            stride: f.stride.checked_mul(k)?,
                            c: f.c.scale(k),
                            window: (f.window.0.checked_mul(k)?, f.window.1.checked_mul(k)?),
                            ..f
                        })
                    }
                    BinaryOp::Xor => {
                        let (f, m) = match self.form(lhs) {
                            Some(f) => (f, rhs),
                            None => (self.form(rhs)?, lhs),
                        };
                        if !f.plain() || !self.opaque_invariant(m) {
                            return None;
                        }
                        let mut operands = Vec::new();
                        or_operands(m, &mut operands);
                        Some(Distinct {
                            a: f.a,
                            xor: Some((print_expr(m), operands)),
                            c: Lin::default(),
                            stride: 1,
                            window: (0, 0),
                        })
                    }
                    _ => None,
                },
                _ => None,
            }
        })
    }

    /// The range of an offset built from loop variables with constant
    /// bounds and literals.
    fn window_of(&self, e: &Expr) -> Option<(i64, i64)> {
        nilang_syntax::stack::deep(|| match &e.kind {
            ExprKind::Var(_) => self.loop_ranges.get(&self.def(e.span)?).copied(),
            ExprKind::Int(_) => {
                let v = self.invariant(e)?.constant;
                Some((v, v))
            }
            ExprKind::Paren(inner) => self.window_of(inner),
            ExprKind::Unary {
                op: UnaryOp::Neg,
                operand,
            } => {
                let (lo, hi) = self.window_of(operand)?;
                Some((hi.checked_neg()?, lo.checked_neg()?))
            }
            ExprKind::Binary {
                op: op @ (BinaryOp::Add | BinaryOp::Sub),
                lhs,
                rhs,
            } => {
                let (a, b) = self.window_of(lhs)?;
                let (c, d) = self.window_of(rhs)?;
                Some(if *op == BinaryOp::Add {
                    (a.checked_add(c)?, b.checked_add(d)?)
                } else {
                    (a.checked_sub(d)?, b.checked_sub(c)?)
                })
            }
            _ => None,
        })
    }

    /// `(b & K) == C` (either side, any order of `&`): `(b's a, K)`.
    fn guard(&self, e: &Expr) -> Option<(Lin, String)> {
        let ExprKind::Binary {
            op: BinaryOp::Eq | BinaryOp::Ne,
            lhs,
            rhs,
        } = &strip(e).kind
        else {
            return None;
        };
        let (masked, c) = if self.opaque_invariant(rhs) {
            (lhs, rhs)
        } else {
            (rhs, lhs)
        };
        if !self.opaque_invariant(c) {
            return None;
        }
        let ExprKind::Binary {
            op: BinaryOp::BitAnd,
            lhs: x,
            rhs: k,
        } = &strip(masked).kind
        else {
            return None;
        };
        let (base, k) = match self.form(x) {
            Some(f) => (f, k),
            None => (self.form(k)?, x),
        };
        if base.xor.is_some() || !self.opaque_invariant(k) {
            return None;
        }
        Some((base.a, print_expr(strip(k))))
    }

    fn conjuncts<'e>(e: &'e Expr, out: &mut Vec<&'e Expr>) {
        nilang_syntax::stack::deep(|| match &strip(e).kind {
            ExprKind::Binary {
                op: BinaryOp::And,
                lhs,
                rhs,
            } => {
                Self::conjuncts(lhs, out);
                Self::conjuncts(rhs, out);
            }
            _ => out.push(strip(e)),
        })
    }

    fn block(&mut self, stmts: &[Stmt]) {
        for s in stmts {
            self.stmt(s);
        }
    }

    fn stmt(&mut self, s: &Stmt) {
        match &s.kind {
            StmtKind::Instr {
                target,
                value,
                broadcast,
                ..
            } => {
                self.write(target, *broadcast);
                self.reads_of(value);
            }
            StmtKind::Call(call) => {
                let mutated = self.mutated_args(call);
                for (i, arg) in call.args.iter().enumerate() {
                    if mutated.contains(&i) {
                        self.write(arg, false);
                    } else {
                        self.reads_of(arg);
                    }
                }
                if let Some(instr) = builtins::instruction(&call.callee.name)
                    && instr.name.ends_with('!')
                {
                    self.out.push(
                        Diagnostic::error(
                            "E0801",
                            s.span,
                            format!("`{}` in a kernel: a stack is shared by every invocation", instr.name),
                        )
                        .with_label("not per invocation")
                        .with_help("kernels keep their state in ancillas and in elements indexed by `global_index()`"),
                    );
                }
            }
            StmtKind::Alloc { name, value } => {
                self.reads_of(value);
                if let Some(id) = self.def(name.span)
                    && !self.written_roots.contains(&id)
                    && let Some(f) = self.form(value)
                {
                    self.index_vars.insert(id, f);
                }
            }
            StmtKind::Dealloc { value, .. } => self.reads_of(value),
            StmtKind::If {
                branches,
                otherwise,
            } => {
                for (k, b) in branches.iter().enumerate() {
                    self.reads_of(&b.cond.pre);
                    if let Post::Expr(e) = &b.cond.post {
                        self.reads_of(e);
                    }
                    let saved = self.guards.len();
                    if k == 0 {
                        let mut cs = Vec::new();
                        Self::conjuncts(&b.cond.pre, &mut cs);
                        for c in cs {
                            if let Some(g) = self.guard(c) {
                                self.guards.push(g);
                            }
                        }
                    }
                    self.block(&b.body.stmts);
                    self.guards.truncate(saved);
                }
                if let Some(o) = otherwise {
                    self.block(&o.stmts);
                }
            }
            StmtKind::While { cond, body } => {
                self.reads_of(&cond.pre);
                if let Post::Expr(e) = &cond.post {
                    self.reads_of(e);
                }
                self.loop_depth += 1;
                self.block(&body.stmts);
                self.loop_depth -= 1;
            }
            StmtKind::For { var, range, body } => {
                let constant = |e: &Expr| {
                    self.invariant(e)
                        .filter(|l| l.terms.is_empty())
                        .map(|l| l.constant)
                };
                let step_ok = range
                    .step
                    .as_ref()
                    .is_none_or(|s| constant(s).is_some_and(|v| v > 0));
                if let (Some(lo), Some(hi), true, Some(id)) = (
                    constant(&range.start),
                    constant(&range.stop),
                    step_ok,
                    self.def(var.span),
                ) {
                    self.loop_ranges.insert(id, (lo.min(hi), hi.max(lo)));
                }
                self.reads_of(&range.start);
                self.reads_of(&range.stop);
                if let Some(step) = &range.step {
                    self.reads_of(step);
                }
                self.loop_depth += 1;
                self.block(&body.stmts);
                self.loop_depth -= 1;
            }
            StmtKind::Begin(b) => self.block(&b.stmts),
            StmtKind::Inverse(inner)
            | StmtKind::Routine(inner, _)
            | StmtKind::Tape(inner)
            | StmtKind::InvCheckOff(inner)
            | StmtKind::InBounds(inner) => self.stmt(inner),
            StmtKind::Unroutine | StmtKind::Safe(_) | StmtKind::Typecast { .. } => {}
        }
    }

    /// A write of `place`.
    fn write(&mut self, place: &Expr, broadcast: bool) {
        let place = strip_place(place);
        match &place.kind {
            ExprKind::Index { base, indices } => {
                for i in indices {
                    if let IndexArg::Expr(e) = i {
                        self.reads_of(e);
                    }
                }
                let Some(id) = base.root_var().and_then(|(_, span)| self.def(span)) else {
                    return;
                };
                let form = match (indices.as_slice(), &base.kind) {
                    ([IndexArg::Expr(e)], ExprKind::Var(_)) if !broadcast => self.form(e),
                    _ => None,
                };
                self.writes.entry(id).or_default().push(Access {
                    form,
                    span: place.span,
                    guards: self.guards.clone(),
                });
            }
            _ => {
                let Some(id) = place.root_var().and_then(|(_, span)| self.def(span)) else {
                    return;
                };
                let d = &self.resolution.defs[id];
                if matches!(d.kind, DefKind::Param(_) | DefKind::KwParam(_)) {
                    // A parameter itself: every invocation writes it.
                    self.writes.entry(id).or_default().push(Access {
                        form: None,
                        span: place.span,
                        guards: self.guards.clone(),
                    });
                }
            }
        }
    }

    /// The array elements `e` reads.
    fn reads_of(&mut self, e: &Expr) {
        let mut found = Vec::new();
        e.walk(&mut |x| match &x.kind {
            ExprKind::Index { base, indices } => {
                if let ExprKind::Var(_) = base.kind
                    && let Some(id) = self.def(base.span)
                {
                    let form = match indices.as_slice() {
                        [IndexArg::Expr(i)] => self.form(i),
                        _ => None,
                    };
                    found.push((id, form, x.span));
                }
            }
            ExprKind::Var(_) => {
                // A whole array read (passed to a call, `length` aside).
                if let Some(id) = self.def(x.span)
                    && is_array(&self.types.defs[id])
                {
                    found.push((id, None, x.span));
                }
            }
            _ => {}
        });
        // `length(x)` reads no element: drop whole-array reads under it.
        let mut shape_only = Vec::new();
        e.walk(&mut |x| {
            if let ExprKind::Call { callee, args, .. } = &x.kind
                && matches!(callee.name.as_str(), "length" | "size" | "zero" | "one")
            {
                for a in args {
                    shape_only.push(a.span);
                }
            }
        });
        let guards = self.guards.clone();
        for (id, form, span) in found {
            if form.is_none() && shape_only.contains(&span) {
                continue;
            }
            if self.loop_depth > 0 {
                self.read_in_loops.insert(id);
            }
            self.reads.entry(id).or_default().push(Access {
                form,
                span,
                guards: guards.clone(),
            });
        }
    }

    fn finish(mut self) -> KernelFacts {
        let mut shared = BTreeSet::new();
        let mut in_loops = BTreeSet::new();
        let writes = std::mem::take(&mut self.writes);
        let mut reads = std::mem::take(&mut self.reads);
        // Drop the whole-array reads that are the base of an element read.
        // (An element read starts where its base does and is longer, also
        // when its index has no form the analysis knows.)
        for v in reads.values_mut() {
            let spans: Vec<Span> = v.iter().map(|r| r.span).collect();
            v.retain(|r| {
                r.form.is_some()
                    || !spans
                        .iter()
                        .any(|s| s.start == r.span.start && s.end > r.span.end)
            });
        }
        for (id, ws) in &writes {
            let name = &self.resolution.defs[*id].name;
            let (allowed, (lo, hi)) = self.check_writes(name, ws);
            for r in reads.get(id).into_iter().flatten() {
                let ok = r.form.as_ref().is_some_and(|f| {
                    allowed.iter().any(|a| a.same_key(f))
                        && lo <= f.window.0
                        && f.window.1 <= hi
                        && (f.xor.is_none() && !allowed.iter().any(|a| a.xor.is_some())
                            || covered(f_xor(&allowed), &r.guards))
                });
                if !ok {
                    self.out.push(
                        Diagnostic::error(
                            "E0802",
                            r.span,
                            format!("this kernel reads an element of `{name}` that another invocation may write"),
                        )
                        .with_label("not this invocation's own element")
                        .with_help(format!("read `{name}` only where this invocation writes it, or pass the values in another array")),
                    );
                }
            }
        }
        for (id, rs) in &reads {
            if writes.contains_key(id) {
                continue;
            }
            let Some(i) = self.param_index(*id) else {
                continue;
            };
            let first = rs.first().and_then(|r| r.form.clone());
            let own = first.as_ref().is_some_and(|f| {
                let (mut lo, mut hi) = f.window;
                let same = rs.iter().all(|r| {
                    r.form.as_ref().is_some_and(|g| {
                        lo = lo.min(g.window.0);
                        hi = hi.max(g.window.1);
                        g.same_key(f)
                    })
                });
                f.xor.is_none() && same && i128::from(hi) - i128::from(lo) < i128::from(f.stride)
            });
            if !own {
                shared.insert(i);
                if self.read_in_loops.contains(id) {
                    in_loops.insert(i);
                }
            }
        }
        self.out.sort_by_key(|d| (d.primary.span.start, d.code));
        self.out.dedup();
        KernelFacts {
            diagnostics: self.out,
            shared_reads: shared,
            shared_in_loops: in_loops,
        }
    }

    /// Checks the writes to one array; returns the indices they use and
    /// the union of their windows.
    fn check_writes(&mut self, name: &str, ws: &[Access]) -> (Vec<Distinct>, (i64, i64)) {
        let mut allowed: Vec<Distinct> = Vec::new();
        let reference = ws
            .iter()
            .filter_map(|w| w.form.clone())
            .find(|f| f.xor.is_some())
            .or_else(|| ws.iter().find_map(|w| w.form.clone()));
        if let Some(r) = &reference {
            allowed.push(r.clone());
            if r.xor.is_some() {
                allowed.push(Distinct {
                    a: r.a.clone().add(r.c.clone(), false),
                    xor: None,
                    c: Lin::default(),
                    stride: 1,
                    window: (0, 0),
                });
            }
        }
        let xor = f_xor(&allowed);
        for w in ws {
            let Some(f) = &w.form else {
                self.out.push(
                    Diagnostic::error(
                        "E0801",
                        w.span,
                        format!("this kernel writes `{name}` at an index that is not provably distinct per invocation"),
                    )
                    .with_label("every invocation may write here")
                    .with_help("write `x[i]` with `i ← global_index()` (plus a constant), a block `x[(i - 1) * s + j]` with `j` in `1:s`, or `x[(i ⊻ m) + c]` under a guard `(i & m) == c` for each mask of `m`"),
                );
                continue;
            };
            if !allowed.iter().any(|a| a.same_key(f)) {
                self.out.push(
                    Diagnostic::error(
                        "E0801",
                        w.span,
                        format!("this kernel writes `{name}` at two different offsets from the invocation index"),
                    )
                    .with_label("another invocation may write this element")
                    .with_help("write each array at one index per invocation, e.g. always `x[i]`"),
                );
                continue;
            }
            if xor.is_some() && !covered(xor, &w.guards) {
                self.out.push(
                    Diagnostic::error(
                        "E0801",
                        w.span,
                        format!("this kernel writes `{name}` at `i` and at `i ⊻ m` without a guard that keeps the partners apart"),
                    )
                    .with_label("the partner invocation may write the same element")
                    .with_help("put every write of this array under `if ((i & k) == c, ~)` for each mask `k` of `m = k1 | k2 | ...`"),
                );
            }
        }
        // The windows of one invocation's writes must not reach the
        // next invocation's.
        let mut window: Option<(i64, i64)> = None;
        for w in ws {
            let Some(f) = w
                .form
                .as_ref()
                .filter(|f| allowed.iter().any(|a| a.same_key(f)))
            else {
                continue;
            };
            let u = match window {
                None => f.window,
                Some((lo, hi)) => (lo.min(f.window.0), hi.max(f.window.1)),
            };
            let width = i128::from(u.1) - i128::from(u.0);
            if width >= i128::from(f.stride) {
                self.out.push(
                    Diagnostic::error(
                        "E0801",
                        w.span,
                        format!(
                            "this kernel writes `{name}` over {} elements per invocation, which the stride {} does not keep apart",
                            width + 1,
                            f.stride
                        ),
                    )
                    .with_label("the next invocation's elements start here")
                    .with_help("give each invocation a block at least as wide as what it writes: `x[(i - 1) * s + j]` with `j` in `1:s`"),
                );
                continue;
            }
            window = Some(u);
        }
        (allowed, window.unwrap_or((0, 0)))
    }
}

fn f_xor(allowed: &[Distinct]) -> Option<(&Lin, &[String])> {
    allowed
        .iter()
        .find_map(|f| f.xor.as_ref().map(|(_, ops)| (&f.a, ops.as_slice())))
}

/// Whether the guards test `(b & k) == c` for every operand `k` of the
/// mask, with `b` the unmasked base.
fn covered(xor: Option<(&Lin, &[String])>, guards: &[(Lin, String)]) -> bool {
    let Some((a, ops)) = xor else {
        return true;
    };
    ops.iter()
        .all(|k| guards.iter().any(|(ga, gk)| ga == a && gk == k))
}

fn or_operands(e: &Expr, out: &mut Vec<String>) {
    nilang_syntax::stack::deep(|| match &strip(e).kind {
        ExprKind::Binary {
            op: BinaryOp::BitOr,
            lhs,
            rhs,
        } => {
            or_operands(lhs, out);
            or_operands(rhs, out);
        }
        _ => out.push(print_expr(strip(e))),
    })
}

fn strip(e: &Expr) -> &Expr {
    nilang_syntax::stack::deep(|| match &e.kind {
        ExprKind::Paren(inner) => strip(inner),
        _ => e,
    })
}

fn strip_place(e: &Expr) -> &Expr {
    nilang_syntax::stack::deep(|| match &e.kind {
        ExprKind::Paren(inner) | ExprKind::Adjoint(inner) => strip_place(inner),
        ExprKind::Unary {
            op: UnaryOp::Neg,
            operand,
        } => strip_place(operand),
        _ => e,
    })
}

/// `global_index()` outside a kernel, and calls of kernels (a kernel is
/// launched, not called): E0803.
pub fn misuse(f: &Function, is_kernel: &dyn Fn(&str) -> bool) -> Vec<Diagnostic> {
    let mut out = Vec::new();
    let mut visit = |e: &Expr| {
        e.walk(&mut |x| {
            if let ExprKind::Call { callee, .. } = &x.kind
                && callee.name == "global_index"
                && !f.kernel
            {
                out.push(
                    Diagnostic::error(
                        "E0803",
                        x.span,
                        "`global_index()` outside a `@kernel` function",
                    )
                    .with_label("there is no invocation here")
                    .with_help("mark the function `@kernel`, or pass the index as a parameter"),
                );
            }
        })
    };
    let mut calls = Vec::new();
    walk_stmts(&f.body.stmts, &mut |s| {
        crate::ast::stmt_exprs(s, &mut visit);
        if let StmtKind::Call(call) = &s.kind {
            calls.push(call.callee.clone());
        }
    });
    for c in calls {
        if is_kernel(&c.name) {
            out.push(
                Diagnostic::error("E0803", c.span, format!("`{}` is a `@kernel`: it is launched, not called", c.name))
                    .with_label("a kernel call")
                    .with_help("launch it from Rust with the generated `_gpu` function, or call a plain function from here"),
            );
        }
    }
    out
}

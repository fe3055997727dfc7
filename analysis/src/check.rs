//! The static reversibility checks of one function (BRIEF section 3).
//!
//! Places are compared by their root variable and access path: `x` overlaps
//! `x[i]`, `x.re` does not overlap `x.im`. Elements are compared by their
//! indices ([`Place::alias`]): `x[i]` and `x[i]` are one element (an error,
//! as for names), `x[i]` and `x[i + 1]` two; where only the values can tell
//! (`x[i]` and `x[j]`), the instruction gets an [`AliasCheck`] that the
//! checked build runs before it.

use rustc_hash::{FxHashMap, FxHashSet};

use crate::activity::Activity;
use crate::ast::*;
use crate::builtins;
use crate::diagnostics::Diagnostic;
use crate::effects::{visit_block, visit_stmt};
use crate::printer::print_expr;
use crate::resolve::{DefKind, Resolution};
use crate::ty::{Ctor, Ty};
use crate::types::FunctionTypes;

/// What the checks need to know about callees.
pub trait CalleeInfo {
    /// Which parameters of the `.nil` function `name` it mutates.
    fn mutated_params(&self, name: &str) -> Option<Vec<bool>>;

    /// Which parameters of the `.nil` function `name` are `Const`.
    fn constant_params(&self, _name: &str) -> Option<Vec<bool>> {
        None
    }

    /// Which parameters the callee of `call` mutates: its function's, or
    /// for a call of a template that passes functions, those of the
    /// instance it reaches (`db::instance_mutations`).
    fn call_mutations(&self, call: &Call) -> Option<Vec<bool>> {
        self.mutated_params(&call.callee.name)
    }
}

/// What the checks of one function found: their diagnostics, and the
/// element aliasing only a run-time check can rule out.
#[derive(Clone, PartialEq, Eq, Debug, Default)]
pub struct Checked {
    pub diagnostics: Vec<Diagnostic>,
    pub alias_checks: Vec<AliasCheck>,
}

pub fn check_function(
    function: &Function,
    resolution: &Resolution,
    types: &FunctionTypes,
    callees: &dyn CalleeInfo,
    activity: &Activity,
) -> Checked {
    let differentiated = function.params.iter().any(|p| {
        !p.constant
            && resolution
                .def_at(p.name.span)
                .is_some_and(|id| carries_gradient(&types.defs[id]))
    });
    let mut checker = Checker {
        resolution,
        types,
        callees,
        activity,
        constant_params: function.params.iter().map(|p| p.constant).collect(),
        differentiated,
        tape: 0,
        inverted: 0,
        kernel: function.kernel,
        out: Vec::new(),
        alias_checks: Vec::new(),
        stmt: Span::default(),
    };
    checker.block(&function.body);
    checker.open_ancillas(function);
    crate::storing::check(&function.body.stmts, differentiated, &mut checker.out);
    Checked {
        diagnostics: checker.out,
        alias_checks: checker.alias_checks,
    }
}

/// A run-time check the checked build makes before one instruction or
/// call: the places `first` and `second` (one written, the other read or
/// written) are the same element when every pair of index expressions in
/// `pairs` has equal values; that is an error (the instruction would read
/// and write one element, or write it twice).
#[derive(Clone, PartialEq, Eq, Debug)]
pub struct AliasCheck {
    /// The statement the check precedes (function-relative).
    pub stmt: Span,
    /// The array (root and access path up to the element), as written.
    pub array: String,
    /// The two places, as written.
    pub first: String,
    pub second: String,
    /// The index expressions compared, pairwise.
    pub pairs: Vec<(Expr, Expr)>,
}

/// How two places relate, as far as the source tells.
#[derive(Debug)]
enum Alias {
    /// Never the same storage.
    Distinct,
    /// Always overlapping.
    Same,
    /// The same element exactly when each pair of indices is equal.
    Maybe(Vec<(Expr, Expr)>),
}

/// An index as `base + offset` with a constant offset (`i`, `i + 1`, `3`,
/// `n - 2`), to tell elements apart statically.
fn linear_index(e: &Expr) -> (Option<String>, i64) {
    nilang_syntax::stack::deep(|| {
        let int = |e: &Expr| match &e.kind {
            ExprKind::Int(v) => v.replace('_', "").parse::<i64>().ok(),
            _ => None,
        };
        if let Some(v) = int(e) {
            return (None, v);
        }
        match &e.kind {
            ExprKind::Paren(inner) => linear_index(inner),
            ExprKind::Binary {
                op: op @ (BinaryOp::Add | BinaryOp::Sub),
                lhs,
                rhs,
            } => match (int(lhs), int(rhs)) {
                (_, Some(c)) => {
                    let (base, k) = linear_index(lhs);
                    let c = if *op == BinaryOp::Add {
                        c
                    } else {
                        c.wrapping_neg()
                    };
                    (base, k.wrapping_add(c))
                }
                (Some(c), _) if *op == BinaryOp::Add => {
                    let (base, k) = linear_index(rhs);
                    (base, k.wrapping_add(c))
                }
                _ => (Some(print_expr(e)), 0),
            },
            _ => (Some(print_expr(e)), 0),
        }
    })
}

/// A place as a root variable and an access path, e.g. `x`, `[i]`, `.re`.
#[derive(Clone, PartialEq, Eq, Debug)]
struct Place {
    root: String,
    root_span: Span,
    path: Vec<String>,
    span: Span,
    /// Read only to compute an index: it carries no gradient.
    index_only: bool,
    /// Per path step: the index arguments of a `[...]` step (`None` for a
    /// field).
    indices: Vec<Option<Vec<IndexArg>>>,
}

impl Place {
    fn of(expr: &Expr) -> Option<Place> {
        nilang_syntax::stack::deep(|| match &expr.kind {
            ExprKind::Var(name) => Some(Place {
                root: name.clone(),
                root_span: expr.span,
                path: Vec::new(),
                span: expr.span,
                index_only: false,
                indices: Vec::new(),
            }),
            ExprKind::Index { base, indices } => {
                let mut place = Place::of(base)?;
                let text: Vec<String> = indices
                    .iter()
                    .map(|i| match i {
                        IndexArg::Expr(e) => print_expr(e),
                        IndexArg::Range(_) | IndexArg::Colon(_) => ":".to_string(),
                    })
                    .collect();
                place.path.push(format!("[{}]", text.join(",")));
                place.indices.push(Some(indices.clone()));
                place.span = expr.span;
                Some(place)
            }
            ExprKind::Field { base, field } => {
                let mut place = Place::of(base)?;
                place.path.push(format!(".{}", field.name));
                place.indices.push(None);
                place.span = expr.span;
                Some(place)
            }
            ExprKind::Call { callee, args, .. }
                if args.len() == 1 && matches!(callee.name.as_str(), "real" | "imag") =>
            {
                let mut place = Place::of(&args[0])?;
                place
                    .path
                    .push(if callee.name == "real" { ".re" } else { ".im" }.to_string());
                place.indices.push(None);
                place.span = expr.span;
                Some(place)
            }
            ExprKind::Adjoint(inner)
            | ExprKind::Paren(inner)
            | ExprKind::Unary {
                op: UnaryOp::Neg,
                operand: inner,
            } => {
                let mut place = Place::of(inner)?;
                place.span = expr.span;
                Some(place)
            }
            _ => None,
        })
    }

    /// Whether writing one may change the other, as far as the source
    /// tells: the same root, and along the common part of the two paths the
    /// same fields and, per axis, indices that are equal, a whole axis (`:`
    /// or a range: a slice may hold any element), or not decidable.
    fn alias(&self, other: &Place) -> Alias {
        if self.root != other.root {
            return Alias::Distinct;
        }
        let n = self.path.len().min(other.path.len());
        let mut pairs = Vec::new();
        for k in 0..n {
            match (&self.indices[k], &other.indices[k]) {
                (Some(a), Some(b)) if a.len() == b.len() => {
                    for (x, y) in a.iter().zip(b) {
                        let (IndexArg::Expr(x), IndexArg::Expr(y)) = (x, y) else {
                            continue;
                        };
                        let (bx, cx) = linear_index(x);
                        let (by, cy) = linear_index(y);
                        if bx == by {
                            if cx != cy {
                                return Alias::Distinct;
                            }
                        } else {
                            pairs.push((x.clone(), y.clone()));
                        }
                    }
                }
                _ if self.path[k] != other.path[k] => return Alias::Distinct,
                _ => {}
            }
        }
        if pairs.is_empty() {
            Alias::Same
        } else {
            Alias::Maybe(pairs)
        }
    }

    /// The root and the path up to the last index step.
    fn array_text(&self) -> String {
        let last = self.indices.iter().rposition(Option::is_some).unwrap_or(0);
        format!("{}{}", self.root, self.path[..last].concat())
    }

    fn text(&self) -> String {
        format!("{}{}", self.root, self.path.concat())
    }
}

/// The reads inside an index expression: they carry no gradient.
fn index_reads(expr: &Expr, out: &mut Vec<Place>) {
    let mut inner = Vec::new();
    read_places(expr, &mut inner);
    out.extend(inner.into_iter().map(|p| Place {
        index_only: true,
        ..p
    }));
}

/// The places an expression reads: maximal place sub-expressions, plus the
/// places read inside their indices (marked `index_only`). The argument of
/// `length`, `size`, `zero` and friends is not read: only its shape or type is.
fn read_places(expr: &Expr, out: &mut Vec<Place>) {
    nilang_syntax::stack::deep(|| {
        if let Some(place) = Place::of(expr) {
            out.push(place);
            expr.walk(&mut |e| {
                if let ExprKind::Index { indices, .. } = &e.kind {
                    for index in indices {
                        match index {
                            IndexArg::Expr(i) => index_reads(i, out),
                            IndexArg::Range(r) => {
                                index_reads(&r.start, out);
                                if let Some(s) = &r.step {
                                    index_reads(s, out);
                                }
                                index_reads(&r.stop, out);
                            }
                            IndexArg::Colon(_) => {}
                        }
                    }
                }
            });
            return;
        }
        if let ExprKind::Call { callee, args, .. } = &expr.kind
            && crate::builtins::first_argument_not_read(&callee.name)
        {
            args.iter().skip(1).for_each(|a| read_places(a, out));
            return;
        }
        match &expr.kind {
            ExprKind::Call { args, kwargs, .. } => {
                args.iter().for_each(|a| read_places(a, out));
                kwargs.iter().for_each(|k| read_places(&k.value, out));
            }
            ExprKind::Index { base, .. } => read_places(base, out),
            ExprKind::Field { base, .. } => read_places(base, out),
            ExprKind::Adjoint(e) | ExprKind::Paren(e) => read_places(e, out),
            ExprKind::Unary { operand, .. } => read_places(operand, out),
            ExprKind::Binary { lhs, rhs, .. } => {
                read_places(lhs, out);
                read_places(rhs, out);
            }
            ExprKind::Tuple(items) => items.iter().for_each(|e| read_places(e, out)),
            _ => {}
        }
    })
}

/// The variables an expression reads the value of (shape-only uses excluded).
fn value_names(expr: &Expr) -> Vec<(String, Span)> {
    let mut places = Vec::new();
    read_places(expr, &mut places);
    places.into_iter().map(|p| (p.root, p.root_span)).collect()
}

/// Whether values of this type have an adjoint in the gradient program:
/// floats, type parameters, complex numbers, and arrays of them.
fn carries_gradient(ty: &Ty) -> bool {
    match ty.element() {
        Ty::Scalar(s) => s.is_float(),
        Ty::Generic(_) => true,
        Ty::Constructed(Ctor::Complex | Ctor::ULogarithmic, _) => true,
        _ => false,
    }
}

struct Checker<'a> {
    resolution: &'a Resolution,
    types: &'a FunctionTypes,
    callees: &'a dyn CalleeInfo,
    /// Which variables carry a derivative: reading one that does not twice
    /// is no shared write.
    activity: &'a Activity,
    /// The parameters declared `Const<T>`, by position.
    constant_params: Vec<bool>,
    /// The function has a parameter that carries a gradient, so the compiler
    /// generates its adjoint: a shared read there is an error (E0210).
    differentiated: bool,
    /// How many `@tape` loops enclose the statement being checked: inside
    /// one, overwrites (`=`, `*=`, `/=`) and conditions without a
    /// postcondition are recorded on the tape and allowed.
    tape: usize,
    /// How many `~stmt` enclose it: a tape loop cannot run there (E0409).
    inverted: usize,
    kernel: bool,
    out: Vec<Diagnostic>,
    alias_checks: Vec<AliasCheck>,
    /// The statement being checked.
    stmt: Span,
}

impl Checker<'_> {
    fn def_kind(&self, span: Span) -> Option<&DefKind> {
        self.resolution
            .def_at(span)
            .map(|d| &self.resolution.defs[d].kind)
    }

    /// A built-in constant (`im`, `π`, ...) not shadowed by a variable: it
    /// has no adjoint, so reading it twice shares nothing.
    fn is_constant(&self, place: &Place) -> bool {
        place.path.is_empty()
            && crate::builtins::CONSTANTS.contains(&place.root.as_str())
            && self.resolution.def_at(place.root_span).is_none()
    }

    /// Whether `e` reads a variable that carries a derivative.
    fn reads_active(&self, e: &Expr) -> bool {
        self.resolution.defs_in(e.span).any(|id| {
            self.activity.is_active(id) && self.types.defs.get(id).is_some_and(Ty::has_adjoint)
        })
    }

    /// Whether the place's variable carries a derivative (see
    /// [`crate::activity`]).
    fn is_active(&self, place: &Place) -> bool {
        nilang_syntax::stack::deep(|| {
            self.resolution
                .def_at(place.root_span)
                .is_none_or(|id| self.activity.is_active(id))
        })
    }

    fn is_integer(&self, place: &Place) -> bool {
        nilang_syntax::stack::deep(|| {
            let Some(id) = self.resolution.def_at(place.root_span) else {
                return false;
            };
            let ty = &self.types.defs[id];
            if place.path.iter().any(|p| p.starts_with('[')) {
                ty.element().is_integer()
            } else {
                ty.is_integer()
            }
        })
    }

    /// Which argument positions a call statement mutates.
    fn mutated_positions(&self, call: &Call) -> Vec<bool> {
        if let Some(instr) = builtins::instruction(&call.callee.name) {
            return (0..call.args.len())
                .map(|i| instr.mutates.contains(&i))
                .collect();
        }
        let m = self.callees.call_mutations(call).unwrap_or_default();
        (0..call.args.len())
            .map(|i| m.get(i).copied().unwrap_or(false))
            .collect()
    }

    fn block_writes(&self, block: &Block) -> Vec<(String, Span)> {
        let mut out = Vec::new();
        visit_block(block, &mut |s| self.direct_writes(s, &mut out));
        out
    }

    fn direct_writes(&self, stmt: &Stmt, out: &mut Vec<(String, Span)>) {
        match &stmt.kind {
            StmtKind::Instr { target, .. } => {
                if let Some((root, _)) = target.root_var() {
                    out.push((root.to_string(), target.span));
                }
            }
            StmtKind::Typecast { value, .. } => {
                if let Some((root, _)) = value.root_var() {
                    out.push((root.to_string(), value.span));
                }
            }
            StmtKind::Alloc { name, .. } | StmtKind::Dealloc { name, .. } => {
                out.push((name.name.clone(), name.span));
            }
            StmtKind::Call(call) => {
                for (arg, mutated) in call.args.iter().zip(self.mutated_positions(call)) {
                    if mutated && let Some((root, _)) = arg.root_var() {
                        out.push((root.to_string(), arg.span));
                    }
                }
            }
            _ => {}
        }
    }

    /// A written place indexed by values read from the same array
    /// (`y[y[i]] += 1`): the write may change its own index.
    fn own_index_reads(&mut self, target: &Expr, written: &Place) {
        let mut reads = Vec::new();
        read_places(target, &mut reads);
        for read in reads.iter().filter(|r| r.index_only) {
            if let Alias::Maybe(pairs) = written.alias(read) {
                self.alias_check(written, read, pairs);
            }
        }
    }

    /// Records that `written` and `other` are one element when `pairs` are
    /// pairwise equal (checked at run time).
    fn alias_check(&mut self, written: &Place, other: &Place, pairs: Vec<(Expr, Expr)>) {
        let check = AliasCheck {
            stmt: self.stmt,
            array: written.array_text(),
            first: written.text(),
            second: other.text(),
            pairs,
        };
        if !self.alias_checks.contains(&check) {
            self.alias_checks.push(check);
        }
    }

    fn block(&mut self, block: &Block) {
        for stmt in &block.stmts {
            self.stmt(stmt);
        }
    }

    fn stmt(&mut self, stmt: &Stmt) {
        self.stmt = stmt.span;
        match &stmt.kind {
            StmtKind::Instr {
                target,
                op,
                op_span,
                value,
                ..
            } => self.instruction(target, *op, *op_span, value),
            StmtKind::Call(call) => self.call(call),
            StmtKind::If {
                branches,
                otherwise,
            } => {
                // In a tape loop the branch taken is recorded: no
                // postcondition is needed, and none is checked.
                if self.tape == 0 {
                    for (k, branch) in branches.iter().enumerate() {
                        self.branch_condition(branch, &branches[k..], otherwise.as_ref());
                    }
                }
                for branch in branches {
                    self.block(&branch.body);
                }
                if let Some(block) = otherwise {
                    self.block(block);
                }
            }
            StmtKind::While { cond, body } => {
                if matches!(cond.post, Post::Missing) && self.tape == 0 {
                    self.out.push(
                        Diagnostic::error("E0404", cond.span, "`while` without a postcondition")
                            .with_label("only a precondition is given")
                            .with_help(
                                "write `while (pre, post)`: `post` must be false before the first iteration and true after every one, so that the loop can run backwards",
                            ),
                    );
                }
                self.block(body);
            }
            StmtKind::For { var, range, body } => self.for_loop(var, range, body),
            StmtKind::Begin(block) => self.block(block),
            StmtKind::Inverse(inner) => {
                self.inverted += 1;
                self.stmt(inner);
                self.inverted -= 1;
            }
            StmtKind::Tape(inner) => {
                self.tape_loop(stmt.span, inner);
                self.tape += 1;
                self.stmt(inner);
                self.tape -= 1;
            }
            StmtKind::Routine(inner, _)
            | StmtKind::InvCheckOff(inner)
            | StmtKind::InBounds(inner) => self.stmt(inner),
            StmtKind::Typecast { value, .. } => {
                if !value.is_place() {
                    self.not_a_place(value, "a typecast converts a variable in place");
                }
            }
            StmtKind::Alloc { .. }
            | StmtKind::Dealloc { .. }
            | StmtKind::Unroutine
            | StmtKind::Safe(_) => {}
        }
    }

    /// Where a `@tape` loop may not stand.
    fn tape_loop(&mut self, span: Span, inner: &Stmt) {
        // `@tape` and the loop keyword.
        let head = Span::new(span.start, inner.span.start.saturating_add(5).min(span.end));
        if self.kernel {
            self.out.push(
                Diagnostic::error("E0805", head, "a tape loop in a GPU kernel")
                    .with_label("kernels keep no tape")
                    .with_help(
                        "remove `@tape` and write the loop reversibly (`while (pre, post)`, no `=`, `*=` or `/=`), or move it into a function that is not a kernel",
                    ),
            );
        }
        if self.inverted > 0 {
            self.out.push(
                Diagnostic::error("E0409", head, "a tape loop run backwards with `~`")
                    .with_label("its tape would be read before it is written")
                    .with_help(
                        "run the loop forwards: the inverse of the function walks it back with the tape it recorded",
                    ),
            );
        }
    }

    fn not_a_place(&mut self, expr: &Expr, why: &str) {
        self.out.push(
            Diagnostic::error(
                "E0207",
                expr.span,
                format!("`{}` is not an assignable place", print_expr(expr)),
            )
            .with_label(why.to_string())
            .with_help(
                "change a variable, an element `x[i]`, a field `x.re`, or a view of one such as `-x` or `x'`",
            ),
        );
    }

    fn immutable_root(&mut self, expr: &Expr) {
        self.stack_element_written(expr);
        let Some((root, span)) = expr.root_var() else {
            return;
        };
        // A loop variable gets E0402 from the loop itself.
        let what = match self.def_kind(span) {
            Some(DefKind::KwParam(_)) => "a keyword parameter",
            Some(DefKind::Param(i)) if self.constant_params.get(*i) == Some(&true) => {
                "a `Const` parameter"
            }
            _ => return,
        };
        self.out.push(
            Diagnostic::error(
                "E0209",
                expr.span,
                format!("`{root}` is {what} and cannot be changed"),
            )
            .with_label("changed here")
            .with_help(format!(
                "copy it into an ancilla first: `tmp ← zero(T); tmp += {root}`"
            )),
        );
    }

    /// E0620 for a written place inside a stack (`s[k] += x`): a stack's
    /// values change only by pushing and popping.
    fn stack_element_written(&mut self, expr: &Expr) {
        let mut e = expr;
        loop {
            match &e.kind {
                ExprKind::Paren(inner)
                | ExprKind::Adjoint(inner)
                | ExprKind::Unary { operand: inner, .. }
                | ExprKind::Field { base: inner, .. } => e = inner,
                ExprKind::Call { args, .. } if args.len() == 1 => e = &args[0],
                ExprKind::Index { base, .. } => {
                    let ty = crate::types::place_type(base, self.resolution, &self.types.defs);
                    if matches!(ty, Ty::Constructed(Ctor::Stack, _)) {
                        self.out.push(
                            Diagnostic::error(
                                "E0620",
                                e.span,
                                format!("`{}` is a value inside a stack", print_expr(e)),
                            )
                            .with_label("a stack's values cannot be changed in place")
                            .with_help(
                                "pop it into a variable (`POP!(s, x)` or `s[end] ↔ x::∅`), change that, and push it back",
                            ),
                        );
                        return;
                    }
                    e = base;
                }
                _ => return,
            }
        }
    }

    fn instruction(&mut self, target: &Expr, op: InstrOp, op_span: Span, value: &Expr) {
        if !target.is_place() {
            self.not_a_place(target, "an instruction changes its left-hand side");
            return;
        }
        self.immutable_root(target);
        let number = self.number_system(target);
        if let Some(name) = number
            && !self.number_instruction(name, op, op_span)
        {
            return;
        }
        let tropical_max = number == Some(Ctor::Tropical) && op == InstrOp::Add;
        if self.tape > 0
            && (matches!(op, InstrOp::Assign | InstrOp::Mul | InstrOp::Div) || tropical_max)
        {
            // The old value goes on the tape; reading it on the right, even
            // more than once, is fine: the new value is computed from it
            // before the write, and the reverse pass sums the target's
            // adjoint over its reads after restoring it. Other places read
            // twice are shared reads as anywhere else (E0210).
            let mut reads = Vec::new();
            read_places(value, &mut reads);
            if let Some(target_place) = Place::of(target) {
                reads.retain(|r| matches!(r.alias(&target_place), Alias::Distinct));
            }
            self.shared_reads(&reads);
            return;
        }
        match op {
            InstrOp::Assign => {
                self.out.push(
                    Diagnostic::error("E0204", op_span, "irreversible assignment")
                        .with_label("`=` overwrites the old value, which is lost")
                        .with_help(
                            "accumulate instead: allocate a zero ancilla and write `y += value`; use `@safe` only for side effects such as printing",
                        ),
                );
                return;
            }
            InstrOp::Mul | InstrOp::Div if number.is_some() => {}
            InstrOp::Mul | InstrOp::Div => {
                let sym = if op == InstrOp::Mul { "*=" } else { "/=" };
                self.out.push(
                    Diagnostic::error(
                        "E0205",
                        op_span,
                        format!("`{sym}` is not reversible on ordinary numbers"),
                    )
                    .with_label("multiplying by zero, or rounding, loses the old value")
                    .with_help(
                        "accumulate the product into a fresh ancilla (`z ← zero(T); z += y * x`), or use `MULINT`/`DIVINT` for integer factors",
                    ),
                );
                return;
            }
            _ => {}
        }
        let Some(target_place) = Place::of(target) else {
            return;
        };
        self.own_index_reads(target, &target_place);
        let mut reads = Vec::new();
        read_places(value, &mut reads);
        for read in &reads {
            if let Alias::Maybe(pairs) = target_place.alias(read) {
                self.alias_check(&target_place, read, pairs);
            }
        }
        if let Some(read) = reads
            .iter()
            .find(|r| matches!(r.alias(&target_place), Alias::Same))
        {
            self.out.push(
                Diagnostic::error(
                    "E0201",
                    read.span,
                    format!(
                        "`{}` is read and written by the same instruction",
                        target_place.text()
                    ),
                )
                .with_label("read here")
                .with_secondary(target_place.span, "written here")
                .with_help(format!(
                    "copy the value first: `tmp ← zero(T); tmp += {}`, use `tmp` on the right, then uncompute it",
                    read.text()
                )),
            );
            return;
        }
        // `⊻=` works on bits and booleans: nothing to differentiate.
        if op != InstrOp::Xor {
            self.shared_reads(&reads);
        }
    }

    /// The number system (`ULogarithmic`, `Tropical`) of an instruction's
    /// target, where `*=` and `/=` are reversible.
    fn number_system(&self, target: &Expr) -> Option<Ctor> {
        match crate::types::place_type(target, self.resolution, &self.types.defs) {
            Ty::Constructed(name @ (Ctor::ULogarithmic | Ctor::Tropical), _) => Some(name),
            _ => None,
        }
    }

    /// The instructions a number system allows; false (after reporting)
    /// when this one is rejected.
    fn number_instruction(&mut self, system: Ctor, op: InstrOp, op_span: Span) -> bool {
        match (system, op) {
            (Ctor::ULogarithmic, InstrOp::Add | InstrOp::Sub | InstrOp::Xor) => {
                self.out.push(
                    Diagnostic::error(
                        "E0220",
                        op_span,
                        format!(
                            "`{}` on a logarithmic number",
                            op.as_str(false)
                        ),
                    )
                    .with_label("a log number only multiplies and divides reversibly")
                    .with_help(
                        "multiply by a sum instead (`x *= y + z` goes through the Gaussian logarithm), or accumulate its value into a float: `f += float(x)`",
                    ),
                );
                false
            }
            (Ctor::Tropical, InstrOp::Add) if self.tape == 0 => {
                self.out.push(
                    Diagnostic::error("E0221", op_span, "tropical `+=` outside a `@tape` loop")
                        .with_label("tropical `+` is the maximum, which loses the smaller value")
                        .with_help(
                            "put it in a `@tape for` loop, which records the old value and restores it backwards; `*=` and `/=` (adding and subtracting values) need no tape",
                        ),
                );
                false
            }
            (Ctor::Tropical, InstrOp::Sub | InstrOp::Xor) => {
                self.out.push(
                    Diagnostic::error(
                        "E0221",
                        op_span,
                        format!("`{}` on a tropical number", op.as_str(false)),
                    )
                    .with_label("the max-plus semiring has no subtraction")
                    .with_help(
                        "tropical `*=` adds values and `/=` subtracts them; `+=` (the maximum) is allowed in `@tape` loops",
                    ),
                );
                false
            }
            _ => true,
        }
    }

    fn shared_reads(&mut self, reads: &[Place]) {
        let reads: Vec<&Place> = reads.iter().filter(|p| !p.index_only).collect();
        // Each place's first read, by text: one pass, so that a sum of
        // 10,000 terms is not 10,000² comparisons.
        let mut first: FxHashMap<String, &Place> = FxHashMap::default();
        for b in &reads {
            let a = *first.entry(b.text()).or_insert(b);
            if !std::ptr::eq(a, *b) {
                if self.is_integer(b) || self.is_constant(b) {
                    continue;
                }
                // In a differentiated function, a variable that carries no
                // derivative has no adjoint to write twice.
                if self.differentiated && !self.is_active(b) {
                    continue;
                }
                let text = b.text();
                // The copy's name in the help: one the place does not use.
                let copy = ["t", "tmp", "copy", "c"]
                    .into_iter()
                    .find(|n| {
                        !text
                            .split(|c: char| !(c.is_alphanumeric() || c == '_' || c == '!'))
                            .any(|w| w == *n)
                    })
                    .unwrap_or("copy_");
                let diagnostic = if self.differentiated {
                    Diagnostic::error(
                        "E0210",
                        b.span,
                        format!("`{text}` is read twice by one instruction of a differentiated function"),
                    )
                    .with_help(format!(
                        "the gradient program would write the adjoint of `{text}` twice from one instruction (a shared write); square with `abs2({text})` or `{text}^2`, or copy it into an ancilla first: `{copy} ← zero(T); {copy} += {text}`, use `{copy}`, then `{copy} -= {text}; {copy} → zero(T)`"
                    ))
                } else {
                    Diagnostic::warning(
                        "W0203",
                        b.span,
                        format!("`{text}` is passed twice to one instruction"),
                    )
                    .with_help(format!(
                        "its gradient would be written twice (a shared write); square with `abs2({text})`, or copy it into an ancilla first"
                    ))
                };
                self.out.push(
                    diagnostic
                        .with_label("second use")
                        .with_secondary(a.span, "first use"),
                );
                return;
            }
        }
    }

    fn call(&mut self, call: &Call) {
        let mutated = self.mutated_positions(call);
        let name = &call.callee.name;
        // What each `Const` parameter receives: the call's arguments, and
        // the values a partial application (`g(_, c)`) captures for `g`.
        let mut to_constants: Vec<(&Expr, String)> = Vec::new();
        if let Some(constant) = self.callees.constant_params(name) {
            to_constants.extend(
                call.args
                    .iter()
                    .zip(&constant)
                    .filter(|(_, c)| **c)
                    .map(|(arg, _)| (arg, name.clone())),
            );
        }
        for arg in &call.args {
            if let Some((passed, captured)) = crate::values::passed(arg)
                && passed.holes.is_some()
                && let Some(constant) = self.callees.constant_params(&passed.name)
            {
                for (k, x) in passed.captured().into_iter().zip(captured) {
                    if constant.get(k).copied().unwrap_or(false) {
                        to_constants.push((x, passed.name.clone()));
                    }
                }
            }
        }
        for (arg, callee) in to_constants {
            if self.reads_active(arg) {
                self.out.push(
                    Diagnostic::error(
                        "E0211",
                        arg.span,
                        format!(
                            "`{}` carries a derivative, and `{callee}` takes it as `Const`",
                            print_expr(arg)
                        ),
                    )
                    .with_label("its derivative through this call would be lost")
                    .with_help(format!(
                        "remove `Const` from that parameter of `{callee}`, or declare `{}` `Const` here too",
                        arg.root_var().map(|(n, _)| n).unwrap_or("it")
                    )),
                );
            }
        }
        // A keyword parameter is read as a constant: the gradient program
        // passes no adjoint for it.
        for kw in &call.kwargs {
            if self.reads_active(&kw.value) {
                self.out.push(
                    Diagnostic::error(
                        "E0211",
                        kw.value.span,
                        format!(
                            "`{}` carries a derivative, and `{name}` takes its keyword `{}` as a constant",
                            print_expr(&kw.value),
                            kw.name.name
                        ),
                    )
                    .with_label("its derivative through this keyword would be lost")
                    .with_help(format!(
                        "keyword parameters carry no derivative: make `{}` a positional parameter of `{name}`, or declare `{}` `Const` here",
                        kw.name.name,
                        kw.value.root_var().map(|(n, _)| n).unwrap_or("it")
                    )),
                );
            }
        }
        for (arg, &m) in call.args.iter().zip(&mutated) {
            if m {
                if !arg.is_place() {
                    self.not_a_place(arg, &format!("`{name}` changes this argument"));
                } else {
                    self.immutable_root(arg);
                    if let Some(written) = Place::of(arg) {
                        self.own_index_reads(arg, &written);
                    }
                }
            }
        }
        let places: Vec<Option<Place>> = call.args.iter().map(Place::of).collect();
        for j in 0..call.args.len() {
            for i in 0..j {
                let (mi, mj) = (mutated[i], mutated[j]);
                match (mi, mj) {
                    (true, true) => {
                        let (Some(a), Some(b)) = (&places[i], &places[j]) else {
                            continue;
                        };
                        let alias = a.alias(b);
                        if let Alias::Maybe(pairs) = alias {
                            self.alias_check(a, b, pairs);
                        } else if let Alias::Same = alias {
                            self.out.push(
                                Diagnostic::error(
                                    "E0202",
                                    b.span,
                                    format!("`{}` is passed twice to `{name}`, which changes both", b.text()),
                                )
                                .with_label("passed again here")
                                .with_secondary(a.span, "first passed here")
                                .with_help("pass two different variables; aliasing makes the instruction irreversible"),
                            );
                            return;
                        }
                    }
                    (true, false) | (false, true) => {
                        let (w, r) = if mi { (i, j) } else { (j, i) };
                        let Some(written) = &places[w] else { continue };
                        let mut reads = Vec::new();
                        read_places(&call.args[r], &mut reads);
                        for read in &reads {
                            if let Alias::Maybe(pairs) = written.alias(read) {
                                self.alias_check(written, read, pairs);
                            }
                        }
                        if let Some(read) = reads
                            .iter()
                            .find(|p| matches!(p.alias(written), Alias::Same))
                        {
                            self.out.push(
                                Diagnostic::error(
                                    "E0201",
                                    read.span,
                                    format!(
                                        "`{}` is changed by `{name}` and also read by it",
                                        written.text()
                                    ),
                                )
                                .with_label("read here")
                                .with_secondary(written.span, "changed here")
                                .with_help(format!(
                                    "pass a copy: `tmp ← zero(T); tmp += {}`, call with `tmp`, then uncompute it",
                                    read.text()
                                )),
                            );
                            return;
                        }
                    }
                    (false, false) => {}
                }
            }
        }
        let reads: Vec<Place> = places
            .iter()
            .zip(&mutated)
            .filter(|(_, m)| !**m)
            .filter_map(|(p, _)| p.clone())
            .collect();
        self.shared_reads(&reads);
    }

    fn branch_condition(&mut self, branch: &Branch, rest: &[Branch], otherwise: Option<&Block>) {
        match &branch.cond.post {
            Post::Missing => self.out.push(
                Diagnostic::error("E0405", branch.cond.span, "`if` without a postcondition")
                    .with_label("only a precondition is given")
                    .with_help(format!(
                        "write `if ({}, ~)` if the branch leaves the condition's variables alone, or give the postcondition that holds after it",
                        print_expr(&branch.cond.pre)
                    )),
            ),
            Post::SameAsPre(tilde) => {
                let read_roots: FxHashSet<String> = value_names(&branch.cond.pre)
                    .into_iter()
                    .map(|(n, _)| n)
                    .collect();
                let mut writes = Vec::new();
                for b in rest {
                    writes.extend(self.block_writes(&b.body));
                }
                if let Some(block) = otherwise {
                    writes.extend(self.block_writes(block));
                }
                if let Some((name, span)) = writes.into_iter().find(|(n, _)| read_roots.contains(n)) {
                    self.out.push(
                        Diagnostic::error(
                            "E0401",
                            branch.cond.pre.span,
                            format!("the condition reads `{name}`, which the branch changes"),
                        )
                        .with_label("evaluated again after the branch, because of `~`")
                        .with_secondary(span, format!("`{name}` changed here"))
                        .with_secondary(*tilde, "postcondition taken to be the precondition")
                        .with_help(
                            "write the postcondition explicitly, `if (pre, post)`, with `post` true exactly when the first branch ran",
                        ),
                    );
                }
            }
            Post::Expr(_) => {}
        }
    }

    fn for_loop(&mut self, var: &Ident, range: &Range, body: &Block) {
        let writes = self.block_writes(body);
        // Allocating or deallocating the loop variable is reported by resolution.
        let mut memory = FxHashSet::default();
        visit_block(body, &mut |s| {
            if let StmtKind::Alloc { name, .. } | StmtKind::Dealloc { name, .. } = &s.kind {
                memory.insert(name.span);
            }
        });
        if let Some((_, span)) = writes
            .iter()
            .find(|(n, span)| *n == var.name && !memory.contains(span))
        {
            self.out.push(
                Diagnostic::error(
                    "E0402",
                    *span,
                    format!(
                        "the loop variable `{}` is changed in the loop body",
                        var.name
                    ),
                )
                .with_label("changed here")
                .with_secondary(var.span, "loop variable")
                .with_help("copy it into an ancilla and change the copy"),
            );
        }
        if let Some(step) = &range.step
            && linear_index(step) == (None, 0)
        {
            self.out.push(
                Diagnostic::error("E0410", step.span, "a `for` loop with step 0")
                    .with_label("the step is 0")
                    .with_help("a range `a:s:b` needs a step other than 0: `1:1:n` counts up, `n:-1:1` down"),
            );
        }
        let mut bound_names = FxHashSet::default();
        for e in [Some(&range.start), range.step.as_ref(), Some(&range.stop)]
            .into_iter()
            .flatten()
        {
            bound_names.extend(value_names(e).into_iter().map(|(n, _)| n));
        }
        if let Some((name, span)) = writes
            .iter()
            .find(|(n, _)| bound_names.contains(n) && *n != var.name)
        {
            self.out.push(
                Diagnostic::error(
                    "E0403",
                    *span,
                    format!("`{name}` is used in the loop's range and changed in its body"),
                )
                .with_label("changed here")
                .with_secondary(range.span, "range read here")
                .with_help("running the loop backwards needs the same range: change a copy, or move the change out of the loop"),
            );
        }
        if let Some(each) = ForEach::of(var, range, body) {
            self.for_each_collection(&each);
        }
        self.block(body);
    }

    /// E0411 for a `for x in xs` whose body changes `xs`: the loop counts
    /// `xs`'s positions before it runs and checks `x` equal to `xs[k]`
    /// after each pass (the parser's lowering, `x ← xs[k]; body; x → xs[k]`),
    /// and going backwards it needs the same collection.
    fn for_each_collection(&mut self, each: &ForEach<'_>) {
        let Some((collection, _)) = each.value.root_var() else {
            return;
        };
        let mut writes = Vec::new();
        for stmt in each.body {
            visit_stmt(stmt, &mut |s| self.direct_writes(s, &mut writes));
        }
        if let Some((_, span)) = writes.iter().find(|(n, _)| n == collection) {
            self.out.push(
                Diagnostic::error(
                    "E0411",
                    *span,
                    format!(
                        "the body of `for {} in {collection}` changes `{collection}`",
                        each.element.name
                    ),
                )
                .with_label("changed here")
                .with_secondary(each.collection, "the collection the loop walks")
                .with_help(format!(
                    "loop over the positions instead, `for k = 1:length({collection})`, and change `{collection}[k]` there; a stack grows and shrinks outside the loop"
                )),
            );
        }
    }

    /// Ancillas alive at the end of their scope are deallocated with the
    /// value they were allocated with, if that value is still computable.
    fn open_ancillas(&mut self, function: &Function) {
        // Changes of values; allocating or deallocating an ancilla is not one.
        let mut written: FxHashSet<String> = FxHashSet::default();
        for stmt in &function.body.stmts {
            visit_stmt(stmt, &mut |s| {
                if !matches!(s.kind, StmtKind::Alloc { .. } | StmtKind::Dealloc { .. }) {
                    let mut direct = Vec::new();
                    self.direct_writes(s, &mut direct);
                    written.extend(direct.into_iter().map(|(n, _)| n));
                }
            });
        }
        for open in &self.resolution.open_ancillas {
            let def = &self.resolution.defs[open.def];
            let Some(value) = &def.alloc_value else {
                continue;
            };
            let culprit = value_names(value)
                .into_iter()
                .map(|(n, _)| n)
                .find(|n| written.contains(n));
            if let Some(culprit) = culprit {
                self.out.push(
                    Diagnostic::error(
                        "E0301",
                        def.span,
                        format!("ancilla `{}` is never deallocated", def.name),
                    )
                    .with_label(format!(
                        "allocated with a value that reads `{culprit}`, which changes later"
                    ))
                    .with_secondary(open.scope_end, "still allocated at the end of this block")
                    .with_help(format!(
                        "deallocate it explicitly with `{} → value`, giving the value it has at that point",
                        def.name
                    )),
                );
            }
        }
    }
}

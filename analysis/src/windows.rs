//! Index windows of `for` loops: the elements of a vector that a loop
//! `for i = a:b` reads or writes at `x[i + c]`, with `c` the same in every
//! iteration. The Rust backend takes such a window as one slice before the
//! loop and indexes the slice with the loop's counter, so that the length
//! is checked once and the compiler can drop the per-access bounds checks.
//!
//! Only what is certain is a window:
//! - the index is the loop variable plus an offset that reads nothing the
//!   body changes (no loop variable, ancilla, changed place or call
//!   argument of the body);
//! - some access of that form runs in every iteration, checks on or off
//!   (it is not inside an `if`, a `while`, an inner loop, the right operand
//!   of `&&` / `||`, or the value a deallocation is checked against), so
//!   a window out of bounds is an index a plain loop would also have used;
//! - `exclusive` when every mention of the vector in the body is an access
//!   of that one form: only then may the window be borrowed mutably.
//!
//! A *line* is a window of a matrix: the accesses `x[i + c, j]` (or
//! `x[j, i + c]`) with `j` read-only in the body as the offset is, so that
//! the loop walks one column (or row) and the backend can take it as one
//! strided view checked once. Lines are only read, never written, by
//! the backends.
//!
//! A *cell* is the same for an element whose index does not depend on the
//! loop at all (`x[j]` in a loop over `k`): the backend keeps it in a local
//! for the whole loop and writes it back after, so that an accumulation
//! into it (`x_bar[j] += ...` in a reverse pass) is not a load and a store
//! through memory in every iteration.
//!
//! No IO; a pure function of the loop.

use nilang_syntax::ast::*;

use crate::printer::print_expr;
use crate::resolve::{DefId, Resolution};

/// The accesses `x[var + offset]` of one vector in a loop body.
#[derive(Clone, Debug, PartialEq)]
pub struct Window {
    pub def: DefId,
    /// The part of the index that is not the loop variable; `None` for
    /// `x[i]` itself. For a cell, the whole index.
    pub offset: Option<Expr>,
    /// The index does not mention the loop variable: one element.
    pub cell: bool,
    /// The first access, as written (for generating the element's code).
    pub first: Expr,
    /// The spans of the index expressions `x[...]` of this form.
    pub accesses: Vec<Span>,
    /// For each access, the span of its index (inside the brackets).
    pub index_spans: Vec<Span>,
    /// For each access, how many elements past the window's first its
    /// element is: 0 unless windows of one vector at whole-number offsets
    /// (`x[i - 1]`, `x[i]`, `x[i + 1]`) were merged into this one, whose
    /// `offset` is then the least of theirs.
    pub shifts: Vec<i64>,
    /// How many elements the window holds past the loop's trip count: the
    /// greatest shift.
    pub extra: i64,
    /// For each access, its place in the order the body evaluates the
    /// accesses of all windows (an update's value before its place).
    pub order: Vec<usize>,
    /// Every mention of the vector in the body is one of `accesses`.
    pub exclusive: bool,
    /// The body may change the vector.
    pub written: bool,
    /// For a matrix (a *line*): the axis the loop walks (0 for the rows,
    /// `x[i + c, j]`; 1 for the columns, `x[j, i + c]`) and the index `j`
    /// on the other axis. `None` for a vector.
    pub line: Option<(usize, Expr)>,
}

/// The windows of the loop `for var = ...` with this body. `dims` says
/// which definitions are one-dimensional arrays (1) and which matrices
/// (2); anything else is 0. `mutates` whether a call
/// may change its argument at a position (what the callee's analysis says;
/// `true` when unknown).
pub fn windows(
    var: &str,
    body: &Block,
    resolution: &Resolution,
    dims: &dyn Fn(DefId) -> u8,
    mutates: &dyn Fn(&Call, usize) -> bool,
) -> Vec<Window> {
    let mut scan = Scan {
        var,
        mutates,
        resolution,
        written: Vec::new(),
        mentions: Vec::new(),
    };
    scan.block(body, true);
    let Scan {
        written, mentions, ..
    } = scan;
    let mut out: Vec<Window> = Vec::new();
    for m in &mentions {
        let Mention::Access {
            def,
            offset,
            span,
            cell,
            expr,
            line,
            ..
        } = m
        else {
            continue;
        };
        let bound_here = written.contains(&resolution.defs[*def].name);
        let shape = if line.is_some() { 2 } else { 1 };
        if dims(*def) != shape
            || bound_here && defined_inside(resolution, *def, body)
            || offset
                .iter()
                .chain(line.as_deref().map(|(_, j)| j))
                .any(|o| !invariant(o, var, &written))
        {
            continue;
        }
        let text = offset.as_ref().map(print_expr);
        let line_text = line.as_deref().map(|(axis, j)| (*axis, print_expr(j)));
        let index_span = match &expr.kind {
            ExprKind::Index { indices, .. } => match indices.first() {
                Some(IndexArg::Expr(i)) => i.span,
                _ => *span,
            },
            _ => *span,
        };
        match out.iter_mut().find(|w| {
            w.def == *def
                && w.cell == *cell
                && w.offset.as_ref().map(print_expr) == text
                && w.line.as_ref().map(|(axis, j)| (*axis, print_expr(j))) == line_text
        }) {
            Some(w) => {
                w.accesses.push(*span);
                w.index_spans.push(index_span);
                w.shifts.push(0);
            }
            None => out.push(Window {
                def: *def,
                offset: offset.clone(),
                cell: *cell,
                first: (**expr).clone(),
                accesses: vec![*span],
                index_spans: vec![index_span],
                shifts: vec![0],
                extra: 0,
                order: Vec::new(),
                exclusive: false,
                written: written.contains(&resolution.defs[*def].name),
                line: line.as_deref().cloned(),
            }),
        }
    }
    // A window needs an access in every iteration.
    out.retain(|w| {
        mentions.iter().any(|m| {
            matches!(m, Mention::Access { span, unconditional: true, .. } if w.accesses.contains(span))
        })
    });
    let mut out = merge_constant_offsets(out);
    // Accesses in the order the body makes them (the mentions' order).
    let order = |span: &Span| {
        mentions
            .iter()
            .position(|m| matches!(m, Mention::Access { span: s, .. } if s == span))
    };
    for w in &mut out {
        let mut all: Vec<(Span, Span, i64)> = (0..w.accesses.len())
            .map(|k| (w.accesses[k], w.index_spans[k], w.shifts[k]))
            .collect();
        all.sort_by_key(|(a, _, _)| order(a));
        w.order = all
            .iter()
            .map(|t| order(&t.0).unwrap_or(usize::MAX))
            .collect();
        w.accesses = all.iter().map(|t| t.0).collect();
        w.index_spans = all.iter().map(|t| t.1).collect();
        w.shifts = all.iter().map(|t| t.2).collect();
    }
    for w in &mut out {
        w.exclusive = mentions.iter().all(|m| match m {
            Mention::Access { def, span, .. } => *def != w.def || w.accesses.contains(span),
            Mention::Other(def) => *def != w.def,
        });
    }
    out
}

/// Windows of one vector whose offsets are whole numbers (`x[i - 1]`,
/// `x[i]`, `x[i + 1]`: a stencil, or `p[j] += p[j - 1] * t`) become one
/// window over the union of their elements, from the least offset, so that
/// one slice serves them all (and a vector changed through one and read
/// through another can still be borrowed once, mutably). Each window kept
/// an access in every iteration, so the union holds no element the loop
/// does not reach.
fn merge_constant_offsets(windows: Vec<Window>) -> Vec<Window> {
    let whole = |w: &Window| -> Option<i64> {
        if w.cell || w.line.is_some() {
            return None;
        }
        match &w.offset {
            None => Some(0),
            Some(o) => o.whole_number(),
        }
    };
    let mut out: Vec<Window> = Vec::new();
    for w in windows {
        let Some(k) = whole(&w) else {
            out.push(w);
            continue;
        };
        let Some(m) = out
            .iter_mut()
            .find(|m| m.def == w.def && whole(m).is_some())
        else {
            out.push(w);
            continue;
        };
        // `m`'s offset is its least; its shifts are counted from it.
        let base = whole(m).unwrap_or(0);
        let w_shift = if k < base {
            // `w` starts lower: it becomes the base.
            let up = base - k;
            for s in &mut m.shifts {
                *s += up;
            }
            m.extra += up;
            m.offset = w.offset.clone();
            m.first = w.first.clone();
            0
        } else {
            k - base
        };
        for ((a, i), s) in w.accesses.iter().zip(&w.index_spans).zip(&w.shifts) {
            m.accesses.push(*a);
            m.index_spans.push(*i);
            m.shifts.push(s + w_shift);
        }
        m.extra = m.extra.max(w_shift);
        m.written |= w.written;
    }
    out
}

enum Mention {
    /// `x[e]` with `e` the loop variable plus an offset, or (`cell`) an
    /// index without the loop variable, then `offset` is the index; or
    /// `x[e, j]` / `x[j, e]` of a matrix (`line`: the axis of `e`, and `j`).
    Access {
        def: DefId,
        offset: Option<Expr>,
        span: Span,
        unconditional: bool,
        cell: bool,
        expr: Box<Expr>,
        line: Option<Box<(usize, Expr)>>,
    },
    /// Any other mention of a variable.
    Other(DefId),
}

struct Scan<'a> {
    var: &'a str,
    mutates: &'a dyn Fn(&Call, usize) -> bool,
    resolution: &'a Resolution,
    /// The names the body changes or binds.
    written: Vec<String>,
    mentions: Vec<Mention>,
}

impl Scan<'_> {
    fn block(&mut self, block: &Block, always: bool) {
        for stmt in &block.stmts {
            self.stmt(stmt, always);
        }
    }

    fn stmt(&mut self, stmt: &Stmt, always: bool) {
        match &stmt.kind {
            // The value is evaluated before the place it updates.
            StmtKind::Instr { target, value, .. } => {
                self.write(target);
                self.expr(value, always);
                self.expr(target, always);
            }
            StmtKind::Call(call) => {
                for (i, arg) in call.args.iter().enumerate() {
                    if (self.mutates)(call, i) {
                        self.write(arg);
                    }
                    self.expr(arg, always);
                }
                for kw in &call.kwargs {
                    self.expr(&kw.value, always);
                }
            }
            StmtKind::Alloc { name, value } => {
                self.written.push(name.name.clone());
                self.expr(value, always);
            }
            // A deallocation's value is only computed by a checked build.
            StmtKind::Dealloc { name, value } => {
                self.written.push(name.name.clone());
                self.expr(value, false);
            }
            StmtKind::If {
                branches,
                otherwise,
            } => {
                for (i, b) in branches.iter().enumerate() {
                    // Only the first condition is evaluated every time.
                    self.cond(&b.cond, always && i == 0);
                    self.block(&b.body, false);
                }
                if let Some(o) = otherwise {
                    self.block(o, false);
                }
            }
            StmtKind::While { cond, body } => {
                self.cond(cond, false);
                self.block(body, false);
            }
            StmtKind::For { var, range, body } => {
                self.written.push(var.name.clone());
                for e in [&range.start, &range.stop]
                    .into_iter()
                    .chain(range.step.as_ref())
                {
                    self.expr(e, always);
                }
                self.block(body, false);
            }
            StmtKind::Begin(b) => self.block(b, always),
            StmtKind::Inverse(inner)
            | StmtKind::Routine(inner, _)
            | StmtKind::Tape(inner)
            | StmtKind::InvCheckOff(inner)
            | StmtKind::InBounds(inner) => self.stmt(inner, always),
            StmtKind::Typecast { value, .. } => {
                self.write(value);
                self.expr(value, always);
            }
            StmtKind::Safe(e) => self.expr(e, false),
            StmtKind::Unroutine => {}
        }
    }

    fn cond(&mut self, cond: &Cond, always: bool) {
        self.expr(&cond.pre, always);
        if let Post::Expr(post) = &cond.post {
            self.expr(post, false);
        }
    }

    /// The root of a place the statement may change.
    fn write(&mut self, place: &Expr) {
        if let Some((root, _)) = place.root_var() {
            self.written.push(root.to_string());
        }
    }

    fn expr(&mut self, e: &Expr, always: bool) {
        nilang_syntax::stack::deep(|| match &e.kind {
            ExprKind::Var(_) => {
                if let Some(def) = self.resolution.def_at(e.span) {
                    self.mentions.push(Mention::Other(def));
                }
            }
            ExprKind::Index { base, indices } => {
                if let (ExprKind::Var(_), [IndexArg::Expr(index)]) =
                    (&base.kind, indices.as_slice())
                    && let Some(def) = self.resolution.def_at(base.span)
                {
                    let access = match offset_of(index, self.var) {
                        Some(offset) => Some((offset, false)),
                        None if !mentions(index, self.var) => Some((Some(index.clone()), true)),
                        None => None,
                    };
                    if let Some((offset, cell)) = access {
                        self.mentions.push(Mention::Access {
                            def,
                            offset,
                            span: e.span,
                            unconditional: always,
                            cell,
                            expr: Box::new(e.clone()),
                            line: None,
                        });
                        self.expr(index, always);
                        return;
                    }
                }
                if let (ExprKind::Var(_), [IndexArg::Expr(row), IndexArg::Expr(col)]) =
                    (&base.kind, indices.as_slice())
                    && let Some(def) = self.resolution.def_at(base.span)
                {
                    let walked = |walk: &Expr, fixed: &Expr| {
                        offset_of(walk, self.var).filter(|_| !mentions(fixed, self.var))
                    };
                    let access = match (walked(row, col), walked(col, row)) {
                        (Some(offset), _) => Some((offset, 0, col)),
                        (None, Some(offset)) => Some((offset, 1, row)),
                        (None, None) => None,
                    };
                    if let Some((offset, axis, fixed)) = access {
                        self.mentions.push(Mention::Access {
                            def,
                            offset,
                            span: e.span,
                            unconditional: always,
                            cell: false,
                            expr: Box::new(e.clone()),
                            line: Some(Box::new((axis, fixed.clone()))),
                        });
                        self.expr(row, always);
                        self.expr(col, always);
                        return;
                    }
                }
                self.expr(base, always);
                for i in indices {
                    match i {
                        IndexArg::Expr(x) => self.expr(x, always),
                        IndexArg::Range(r) => {
                            for x in [&r.start, &r.stop].into_iter().chain(r.step.as_ref()) {
                                self.expr(x, always);
                            }
                        }
                        IndexArg::Colon(_) => {}
                    }
                }
            }
            ExprKind::Binary { op, lhs, rhs } => {
                self.expr(lhs, always);
                let short = matches!(op, BinaryOp::And | BinaryOp::Or);
                self.expr(rhs, always && !short);
            }
            ExprKind::Call {
                callee,
                args,
                kwargs,
                ..
            } => {
                let lazy = callee.name == "ifelse";
                for (i, a) in args.iter().enumerate() {
                    self.expr(a, always && !(lazy && i > 0));
                }
                for kw in kwargs {
                    self.expr(&kw.value, always);
                }
            }
            ExprKind::Field { base: inner, .. }
            | ExprKind::Adjoint(inner)
            | ExprKind::Paren(inner)
            | ExprKind::Unary { operand: inner, .. } => self.expr(inner, always),
            ExprKind::Tuple(items) => items.iter().for_each(|x| self.expr(x, always)),
            ExprKind::Macro { arg: Some(arg), .. } => self.expr(arg, always),
            _ => {}
        })
    }
}

/// `var + c`, `c + var`, `var - c` (and sums of these): `Some(offset)`,
/// `Some(None)` for `var` alone; `None` when the index is not the loop
/// variable plus something without it.
fn offset_of(index: &Expr, var: &str) -> Option<Option<Expr>> {
    nilang_syntax::stack::deep(|| match &index.kind {
        ExprKind::Var(v) if v == var => Some(None),
        ExprKind::Paren(inner) => offset_of(inner, var),
        ExprKind::Binary {
            op: op @ (BinaryOp::Add | BinaryOp::Sub),
            lhs,
            rhs,
        } => {
            let add = |o: Option<Expr>, term: &Expr, op: BinaryOp| -> Expr {
                match o {
                    None if op == BinaryOp::Add => term.clone(),
                    None => Expr::new(
                        ExprKind::Unary {
                            op: UnaryOp::Neg,
                            operand: Box::new(term.clone()),
                        },
                        term.span,
                    ),
                    Some(o) => Expr::new(
                        ExprKind::Binary {
                            op,
                            lhs: Box::new(o),
                            rhs: Box::new(term.clone()),
                        },
                        index.span,
                    ),
                }
            };
            if !mentions(rhs, var) {
                let o = offset_of(lhs, var)?;
                Some(Some(add(o, rhs, *op)))
            } else if *op == BinaryOp::Add && !mentions(lhs, var) {
                let o = offset_of(rhs, var)?;
                Some(Some(add(o, lhs, BinaryOp::Add)))
            } else {
                None
            }
        }
        _ => None,
    })
}

fn mentions(e: &Expr, var: &str) -> bool {
    let mut found = false;
    e.walk(&mut |x| {
        if matches!(&x.kind, ExprKind::Var(v) if v == var) {
            found = true;
        }
    });
    found
}

/// Whether `offset` reads nothing the body changes or binds.
fn invariant(offset: &Expr, var: &str, written: &[String]) -> bool {
    let mut ok = true;
    offset.walk(&mut |x| match &x.kind {
        ExprKind::Var(v) if v == var || written.contains(v) => ok = false,
        ExprKind::Call { callee, .. }
            if crate::builtins::pure_function(&callee.name).is_none()
                && !matches!(callee.name.as_str(), "length" | "size") =>
        {
            ok = false
        }
        _ => {}
    });
    ok
}

/// Whether `def` is defined inside the loop body (an ancilla of the body:
/// it does not exist before the loop).
fn defined_inside(resolution: &Resolution, def: DefId, body: &Block) -> bool {
    let at = resolution.defs[def].span;
    let (Some(first), Some(last)) = (body.stmts.first(), body.stmts.last()) else {
        return false;
    };
    first.span.start <= at.start && at.end <= last.span.end
}

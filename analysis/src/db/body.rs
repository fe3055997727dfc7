//! The typed body of a function: its statements and expressions in arenas,
//! addressed by id, each expression carrying the type the one inference
//! ([`crate::typeck`]) gave it, each name resolved to a local (a
//! [`DefId`] of the resolution) and each callee to what it calls.
//!
//! It is built once per function ([`function_body`]) from the
//! tree, the resolution and the types, and decides nothing of its own: a
//! consumer reads a type here instead of working it out again. The
//! interpreter (`nilang-interp`) runs it; the Rust and WGSL backends still
//! walk the tree (issue 41 tracks moving them onto this body).
//!
//! The lowering is total: text the parser could not read, a name nothing
//! defines and a callee nothing resolves to become [`Expr::Missing`] or
//! [`CallTarget::Unresolved`], for which the analysis has already
//! reported an error.

use super::front::{Callable, function_expr_types, function_types, resolve_function};
use super::functions::function_ast;
use super::inputs::{Db, FnId};
use crate::ast::{self, BinaryOp, InstrOp, Storing, UnaryOp};
use crate::builtins::{self, Instruction, PureFn};
use crate::resolve::{Callee, DefId, DefKind, Resolution};
use crate::ty::Ty;
use crate::typeck::ExprTypes;
use crate::types::FunctionTypes;
use nilang_syntax::ast::Span;

/// An expression of a [`Body`].
#[derive(Clone, Copy, PartialEq, Eq, Hash, Debug, PartialOrd, Ord, salsa::SalsaValue)]
pub struct ExprId(u32);

/// A statement of a [`Body`].
#[derive(Clone, Copy, PartialEq, Eq, Hash, Debug, PartialOrd, Ord, salsa::SalsaValue)]
pub struct StmtId(u32);

/// A parameter, keyword parameter, ancilla or loop variable: the
/// definition's id in the function's resolution.
pub type LocalId = DefId;

#[derive(Clone, PartialEq, Debug, salsa::SalsaValue)]
pub struct Body<'db> {
    /// The positional parameters, in order.
    pub params: Vec<LocalId>,
    /// The keyword parameters, with their default values.
    pub kwparams: Vec<(LocalId, ExprId)>,
    /// The type parameters of the `where` clause, by name.
    pub generics: Vec<String>,
    /// Every local, by id.
    pub locals: Vec<Local>,
    exprs: Vec<ExprData<'db>>,
    stmts: Vec<StmtData<'db>>,
    /// The function's statements.
    pub root: Vec<StmtId>,
}

#[derive(Clone, PartialEq, Debug)]
pub struct Local {
    pub name: String,
    pub kind: DefKind,
    /// Where it is defined (function-relative).
    pub span: Span,
    pub ty: Ty,
}

#[derive(Clone, PartialEq, Debug, salsa::SalsaValue)]
pub struct ExprData<'db> {
    pub kind: Expr<'db>,
    /// The type the inference gave it ([`Ty::Unknown`] where it gave none).
    pub ty: Ty,
    /// Where it is written (function-relative).
    pub span: Span,
}

#[derive(Clone, PartialEq, Debug, salsa::SalsaValue)]
pub enum Expr<'db> {
    Local(LocalId),
    /// A name that is no local: a type (`zero(f64)`, `stack(T)`), a named
    /// constant (`π`, `im`) or a type parameter.
    Name(String),
    /// A function passed as a value (`map!(square!, ys, xs)`).
    Function(Callable<'db>),
    Int(i64),
    Float(f64),
    Bool(bool),
    Str(String),
    /// A call of a pure built-in function (`sin(x)`, `length(xs)`).
    Pure {
        func: PureFn,
        args: Vec<ExprId>,
        broadcast: bool,
    },
    /// A partial application `f(_, _, 2)`: the function and its arguments,
    /// `None` for each hole.
    Partial {
        callee: Callable<'db>,
        args: Vec<Option<ExprId>>,
    },
    /// A struct or number constructor (`Pt(x, y)`, `Complex(a, b)`),
    /// by the name written.
    Construct {
        name: String,
        args: Vec<ExprId>,
    },
    Index {
        base: ExprId,
        indices: Vec<Index>,
    },
    Field {
        base: ExprId,
        field: String,
    },
    /// `x'`: the complex conjugate.
    Conj(ExprId),
    Unary {
        op: UnaryOp,
        operand: ExprId,
    },
    Binary {
        op: BinaryOp,
        lhs: ExprId,
        rhs: ExprId,
    },
    Tuple(Vec<ExprId>),
    /// `@name arg` under `@safe`.
    Macro {
        name: String,
        arg: Option<ExprId>,
    },
    /// Text that did not parse, a partial application with holes, or a
    /// call of nothing the analysis knows: an error was reported.
    Missing,
}

#[derive(Clone, PartialEq, Debug, salsa::SalsaValue)]
pub enum Index {
    At(ExprId),
    Range {
        start: ExprId,
        step: Option<ExprId>,
        stop: ExprId,
    },
    /// `:`, the whole axis.
    All,
}

#[derive(Clone, PartialEq, Debug, salsa::SalsaValue)]
pub struct StmtData<'db> {
    pub kind: Stmt<'db>,
    /// Where it is written (function-relative).
    pub span: Span,
}

/// The `(pre, post)` of an `if` branch or a `while`.
#[derive(Clone, Copy, PartialEq, Debug, salsa::SalsaValue)]
pub struct Cond {
    pub pre: ExprId,
    /// `None` for `~` (the postcondition is the precondition) and when it
    /// is not written.
    pub post: Option<ExprId>,
    /// Written without a postcondition: in a `@tape` loop, the branch (or
    /// a `while`'s trip count) is recorded; elsewhere an error was reported.
    pub recorded: bool,
    pub span: Span,
}

#[derive(Clone, PartialEq, Debug, salsa::SalsaValue)]
pub enum Stmt<'db> {
    Instr {
        target: ExprId,
        op: InstrOp,
        broadcast: bool,
        value: ExprId,
    },
    Call {
        target: CallTarget<'db>,
        inverted: bool,
        args: Vec<ExprId>,
        kwargs: Vec<(String, ExprId)>,
    },
    Alloc {
        local: LocalId,
        value: ExprId,
    },
    Dealloc {
        local: Option<LocalId>,
        value: ExprId,
        /// The name freed; an implicit deallocation at the end of a block
        /// has the allocation's name, outside the statement.
        name_span: Span,
    },
    If {
        branches: Vec<(Cond, Vec<StmtId>)>,
        otherwise: Option<Vec<StmtId>>,
    },
    While {
        cond: Cond,
        body: Vec<StmtId>,
    },
    For {
        var: LocalId,
        start: ExprId,
        step: Option<ExprId>,
        stop: ExprId,
        reversed: bool,
        body: Vec<StmtId>,
        /// Where the range is: the run-time checks of the range report
        /// here, as the generated code's do.
        range: Span,
        /// The range as the backends print it in those checks' messages,
        /// without `reverse(…)` (`printer::range_text`).
        range_text: String,
    },
    Block(Vec<StmtId>),
    Inverse(StmtId),
    /// `@routine`, and whether the reverse pass stores (`@store`) or
    /// recomputes its local derivatives (the interpreter recomputes).
    Routine(StmtId, Storing),
    /// `~@routine`: undoes the `@routine` it closes (`None` when there is
    /// none before it; an error was reported).
    Unroutine(Option<StmtId>),
    Tape(StmtId),
    Safe(ExprId),
    InvCheckOff(StmtId),
    InBounds(StmtId),
    Typecast {
        from: Ty,
        to: Ty,
        value: ExprId,
    },
}

/// What a call statement calls.
#[derive(Clone, PartialEq, Debug, salsa::SalsaValue)]
pub enum CallTarget<'db> {
    Instruction(&'static Instruction),
    Function(Callable<'db>),
    /// A parameter of type `Fn<…>`.
    Local(LocalId),
    /// Nothing the analysis resolved (an error was reported).
    Unresolved(String),
}

impl<'db> Body<'db> {
    pub fn expr(&self, id: ExprId) -> &ExprData<'db> {
        &self.exprs[id.0 as usize]
    }

    pub fn stmt(&self, id: StmtId) -> &StmtData<'db> {
        &self.stmts[id.0 as usize]
    }

    pub fn local(&self, id: LocalId) -> &Local {
        &self.locals[id]
    }

    /// Every expression's id, in the order they were made.
    pub fn expr_ids(&self) -> impl Iterator<Item = ExprId> + use<> {
        (0..self.exprs.len() as u32).map(ExprId)
    }

    /// Every statement's id, in the order they were made.
    pub fn stmt_ids(&self) -> impl Iterator<Item = StmtId> + use<> {
        (0..self.stmts.len() as u32).map(StmtId)
    }
}

impl ExprId {
    /// The position of the expression in its body (0-based, dense): an
    /// index for tables kept beside the body.
    pub fn index(self) -> usize {
        self.0 as usize
    }
}

impl StmtId {
    /// The position of the statement in its body (0-based, dense).
    pub fn index(self) -> usize {
        self.0 as usize
    }
}

/// The typed body of `f`, or `None` when `f` is not in its file any more.
#[salsa::tracked(returns(ref))]
pub fn function_body<'db>(db: &'db dyn Db, f: FnId<'db>) -> Option<Body<'db>> {
    let ast = function_ast(db, f)?;
    let project = f.project(db);
    let callable = |name: &str| Callable::named(db, project, name);
    let structs = super::items::struct_table(db, project);
    let facts = Facts {
        resolution: resolve_function(db, f),
        structs,
        types: function_types(db, f),
        exprs: function_expr_types(db, f),
        callable: &callable,
    };
    Some(lower(&ast, &facts))
}

/// What the lowering reads besides the tree: the function's resolution
/// and types, and how to look callees up.
pub struct Facts<'a, 'db> {
    pub resolution: &'a Resolution,
    /// The project's structs, for the types a statement writes.
    pub structs: &'a crate::structs::StructTable,
    pub types: &'a FunctionTypes,
    pub exprs: &'a ExprTypes,
    /// The callable a call names, as the resolver recorded the name.
    pub callable: &'a dyn Fn(&str) -> Option<Callable<'db>>,
}

/// Lowers `function` into its typed body. The ancillas still allocated at
/// the end of their block are deallocated there explicitly, as the
/// inversion does ([`crate::invert::explicit_deallocations`]).
pub fn lower<'db>(function: &ast::Function, facts: &Facts<'_, 'db>) -> Body<'db> {
    let function = &crate::invert::explicit_deallocations(function);
    let locals = facts
        .resolution
        .defs
        .iter()
        .enumerate()
        .map(|(i, d)| Local {
            name: d.name.clone(),
            kind: d.kind.clone(),
            span: d.span,
            ty: facts.types.defs.get(i).cloned().unwrap_or(Ty::Unknown),
        })
        .collect();
    let mut l = Lower {
        facts,
        function,
        body: Body {
            params: Vec::new(),
            kwparams: Vec::new(),
            generics: function
                .generics
                .iter()
                .map(|g| g.name.name.clone())
                .collect(),
            locals,
            exprs: Vec::new(),
            stmts: Vec::new(),
            root: Vec::new(),
        },
    };
    for (i, d) in facts.resolution.defs.iter().enumerate() {
        if let DefKind::Param(_) = d.kind {
            l.body.params.push(i);
        }
    }
    for (k, p) in function.kwparams.iter().enumerate() {
        let default = l.expr(&p.default);
        if let Some(i) = facts
            .resolution
            .defs
            .iter()
            .position(|d| d.kind == DefKind::KwParam(k))
        {
            l.body.kwparams.push((i, default));
        }
    }
    l.body.root = l.block(&function.body.stmts);
    l.body
}

struct Lower<'a, 'f, 'db> {
    facts: &'a Facts<'f, 'db>,
    /// The function lowered (its type parameters, for written types).
    function: &'a ast::Function,
    body: Body<'db>,
}

impl<'db> Lower<'_, '_, 'db> {
    fn push_expr(&mut self, kind: Expr<'db>, span: Span) -> ExprId {
        let ty = self.facts.exprs.at(span).cloned().unwrap_or(Ty::Unknown);
        let id = ExprId(self.body.exprs.len() as u32);
        self.body.exprs.push(ExprData { kind, ty, span });
        id
    }

    fn push_stmt(&mut self, kind: Stmt<'db>, span: Span) -> StmtId {
        let id = StmtId(self.body.stmts.len() as u32);
        self.body.stmts.push(StmtData { kind, span });
        id
    }

    fn block(&mut self, stmts: &[ast::Stmt]) -> Vec<StmtId> {
        // Each `~@routine` closes the `@routine` the inversion pairs it with.
        let mut opened_by = vec![None; stmts.len()];
        for (start, end) in crate::invert::routine_pairs(stmts).into_iter().enumerate() {
            if let Some(end) = end {
                opened_by[end] = Some(start);
            }
        }
        let mut out: Vec<StmtId> = Vec::with_capacity(stmts.len());
        for (i, s) in stmts.iter().enumerate() {
            let id = match s.kind {
                ast::StmtKind::Unroutine => {
                    let routine = opened_by[i].map(|start| out[start]);
                    self.push_stmt(Stmt::Unroutine(routine), s.span)
                }
                _ => self.stmt(s),
            };
            out.push(id);
        }
        out
    }

    fn stmt(&mut self, s: &ast::Stmt) -> StmtId {
        use ast::StmtKind as K;
        let kind = match &s.kind {
            K::Instr {
                target,
                op,
                broadcast,
                value,
                ..
            } => Stmt::Instr {
                target: self.expr(target),
                op: *op,
                broadcast: *broadcast,
                value: self.expr(value),
            },
            K::Call(call) => {
                let target = self.call_target(call, s.span);
                Stmt::Call {
                    target,
                    inverted: call.inverted,
                    args: call.args.iter().map(|a| self.expr(a)).collect(),
                    kwargs: call
                        .kwargs
                        .iter()
                        .map(|k| (k.name.name.clone(), self.expr(&k.value)))
                        .collect(),
                }
            }
            K::Alloc { name, value } => {
                let value = self.expr(value);
                match self.defined_at(name.span) {
                    Some(local) => Stmt::Alloc { local, value },
                    None => Stmt::Safe(value),
                }
            }
            K::Dealloc { name, value } => Stmt::Dealloc {
                local: self.def_at(name.span),
                value: self.expr(value),
                name_span: name.span,
            },
            K::If {
                branches,
                otherwise,
            } => Stmt::If {
                branches: branches
                    .iter()
                    .map(|b| (self.cond(&b.cond), self.block(&b.body.stmts)))
                    .collect(),
                otherwise: otherwise.as_ref().map(|b| self.block(&b.stmts)),
            },
            K::While { cond, body } => Stmt::While {
                cond: self.cond(cond),
                body: self.block(&body.stmts),
            },
            K::For { var, range, body } => {
                let start = self.expr(&range.start);
                let step = range.step.as_ref().map(|e| self.expr(e));
                let stop = self.expr(&range.stop);
                let body = self.block(&body.stmts);
                match self
                    .defined_at(var.span)
                    .or_else(|| self.def_named(&var.name))
                {
                    Some(var) => Stmt::For {
                        var,
                        start,
                        step,
                        stop,
                        reversed: range.reversed,
                        body,
                        range: range.span,
                        range_text: crate::printer::range_text(&crate::ast::Range {
                            reversed: false,
                            ..range.clone()
                        }),
                    },
                    None => Stmt::Block(body),
                }
            }
            K::Begin(block) => Stmt::Block(self.block(&block.stmts)),
            K::Inverse(inner) => Stmt::Inverse(self.stmt(inner)),
            K::Routine(inner, storing) => Stmt::Routine(self.stmt(inner), *storing),
            // Paired in `block`; one written alone closes nothing.
            K::Unroutine => Stmt::Unroutine(None),
            K::Tape(inner) => Stmt::Tape(self.stmt(inner)),
            K::Safe(e) => Stmt::Safe(self.expr(e)),
            K::InvCheckOff(inner) => Stmt::InvCheckOff(self.stmt(inner)),
            K::InBounds(inner) => Stmt::InBounds(self.stmt(inner)),
            K::Typecast { from, to, value } => Stmt::Typecast {
                from: self.written_type(from),
                to: self.written_type(to),
                value: self.expr(value),
            },
        };
        self.push_stmt(kind, s.span)
    }

    /// The type the inference gave a type written in a statement.
    /// A type written in a statement, lowered as parameter types are
    /// (its errors were reported with the function's types).
    fn written_type(&self, ty: &ast::Type) -> Ty {
        crate::types::lower_type(ty, self.function, self.facts.structs, &mut Vec::new())
    }

    fn cond(&mut self, c: &ast::Cond) -> Cond {
        let pre = self.expr(&c.pre);
        let post = match &c.post {
            ast::Post::Expr(e) => Some(self.expr(e)),
            ast::Post::SameAsPre(_) | ast::Post::Missing => None,
        };
        Cond {
            pre,
            post,
            recorded: matches!(c.post, ast::Post::Missing),
            span: c.span,
        }
    }

    fn def_at(&self, span: Span) -> Option<LocalId> {
        self.facts.resolution.def_at(span)
    }

    /// The definition made at `span` (an ancilla's `x ←`, a loop's `for x`).
    fn defined_at(&self, span: Span) -> Option<LocalId> {
        self.facts
            .resolution
            .defs
            .iter()
            .position(|d| d.span == span && matches!(d.kind, DefKind::Ancilla | DefKind::LoopVar))
            .or_else(|| self.def_at(span))
    }

    /// A loop variable the parser wrote with an empty span (`for x in
    /// xs`'s position), found by its name.
    fn def_named(&self, name: &str) -> Option<LocalId> {
        self.facts
            .resolution
            .defs
            .iter()
            .position(|d| d.name == name && d.kind == DefKind::LoopVar)
    }

    fn call_target(&self, call: &ast::Call, span: Span) -> CallTarget<'db> {
        let name = &call.callee.name;
        // A parameter of type `Fn<…>` called by name.
        let parameter = self.def_at(call.callee.span).or_else(|| {
            self.facts
                .resolution
                .defs
                .iter()
                .position(|d| d.name == *name && matches!(d.kind, DefKind::Param(_)))
        });
        if let Some(local) = parameter {
            return CallTarget::Local(local);
        }
        // A derivative call names `f` in the resolution; the callee is `∇f`.
        if ast::Derivative::of(name).is_some() {
            return match (self.facts.callable)(name) {
                Some(c) => CallTarget::Function(c),
                None => CallTarget::Unresolved(name.clone()),
            };
        }
        let resolved = self
            .facts
            .resolution
            .calls
            .iter()
            .find(|c| c.span == span || c.span == call.callee.span)
            .map(|c| &c.callee);
        match resolved {
            Some(Callee::Instruction(i)) => match builtins::instruction(i) {
                Some(i) => CallTarget::Instruction(i),
                None => CallTarget::Unresolved(name.clone()),
            },
            Some(Callee::Function(f)) => match (self.facts.callable)(f) {
                Some(c) => CallTarget::Function(c),
                None => CallTarget::Unresolved(f.clone()),
            },
            None => match builtins::instruction(name) {
                Some(i) => CallTarget::Instruction(i),
                None => match (self.facts.callable)(name) {
                    Some(c) => CallTarget::Function(c),
                    None => CallTarget::Unresolved(name.clone()),
                },
            },
        }
    }

    fn expr(&mut self, e: &ast::Expr) -> ExprId {
        nilang_syntax::stack::deep(|| self.expr_inner(e))
    }

    fn expr_inner(&mut self, e: &ast::Expr) -> ExprId {
        use ast::ExprKind as K;
        let kind = match &e.kind {
            K::Var(name) => match self.def_at(e.span) {
                Some(local) => Expr::Local(local),
                None => match self
                    .facts
                    .resolution
                    .fn_refs
                    .iter()
                    .find(|(s, _)| *s == e.span)
                    .and_then(|(_, f)| (self.facts.callable)(f))
                {
                    Some(c) => Expr::Function(c),
                    None => Expr::Name(name.clone()),
                },
            },
            K::Int(text) => match text.replace('_', "").parse::<i64>() {
                Ok(v) => Expr::Int(v),
                Err(_) => Expr::Missing,
            },
            K::Float(text) => match text.replace('_', "").parse::<f64>() {
                Ok(v) => Expr::Float(v),
                Err(_) => Expr::Missing,
            },
            K::Bool(b) => Expr::Bool(*b),
            K::Str(s) => Expr::Str(s.clone()),
            K::Call {
                callee,
                args,
                broadcast,
                kwargs: _,
            } => {
                let hole = |a: &ast::Expr| matches!(&a.kind, K::Var(n) if n == "_");
                if PureFn::named(&callee.name).is_none()
                    && args.iter().any(hole)
                    && let Some(c) = (self.facts.callable)(&callee.name)
                {
                    let args = args
                        .iter()
                        .map(|a| (!hole(a)).then(|| self.expr(a)))
                        .collect();
                    return self.push_expr(Expr::Partial { callee: c, args }, e.span);
                }
                let args: Vec<ExprId> = args.iter().map(|a| self.expr(a)).collect();
                match PureFn::named(&callee.name) {
                    Some(func) => Expr::Pure {
                        func,
                        args,
                        broadcast: *broadcast,
                    },
                    None if callee.name == "_" => Expr::Missing,
                    None => Expr::Construct {
                        name: callee.name.clone(),
                        args,
                    },
                }
            }
            K::Index { base, indices } => {
                let base = self.expr(base);
                let indices = indices
                    .iter()
                    .map(|i| match i {
                        ast::IndexArg::Expr(e) => Index::At(self.expr(e)),
                        ast::IndexArg::Range(r) => Index::Range {
                            start: self.expr(&r.start),
                            step: r.step.as_ref().map(|s| self.expr(s)),
                            stop: self.expr(&r.stop),
                        },
                        ast::IndexArg::Colon(_) => Index::All,
                    })
                    .collect();
                Expr::Index { base, indices }
            }
            K::Field { base, field } => Expr::Field {
                base: self.expr(base),
                field: field.name.clone(),
            },
            K::Adjoint(inner) => Expr::Conj(self.expr(inner)),
            K::Unary { op, operand } => Expr::Unary {
                op: *op,
                operand: self.expr(operand),
            },
            K::Binary { op, lhs, rhs } => Expr::Binary {
                op: *op,
                lhs: self.expr(lhs),
                rhs: self.expr(rhs),
            },
            // Parentheses decide nothing the tree did not: the inner
            // expression stands for them (its type is theirs).
            K::Paren(inner) => return self.expr(inner),
            K::Tuple(items) => Expr::Tuple(items.iter().map(|i| self.expr(i)).collect()),
            K::Macro { name, arg } => Expr::Macro {
                name: name.clone(),
                arg: arg.as_ref().map(|a| self.expr(a)),
            },
            K::Error => Expr::Missing,
        };
        let id = self.push_expr(kind, e.span);
        // A number literal passed for a type parameter another argument
        // binds has the type it is passed as.
        if matches!(e.kind, K::Int(_) | K::Float(_))
            && let Some(ty) = self.facts.exprs.literal_argument(e.span)
        {
            self.body.exprs[id.0 as usize].ty = ty.clone();
        }
        id
    }
}

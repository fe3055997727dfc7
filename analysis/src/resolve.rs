//! Name resolution for one function: which definition every name refers to,
//! and the life of each ancilla (allocated, used, deallocated).
//!
//! Scopes: the function body, each `if`/`elseif`/`else` branch, each loop
//! body. `begin` blocks and `@routine` bodies do not open a scope, so an
//! ancilla allocated in `@routine begin ... end` lives until `~@routine`
//! deallocates it. A statement `~s` executes the inverse of `s`, so it is
//! resolved in the inverse's order; `~@routine` stands for the inverse of its
//! `@routine`.

use rustc_hash::FxHashMap;

use crate::ast::*;
use crate::builtins;
use crate::diagnostics::Diagnostic;
use crate::invert::{invert_stmt, routine_pairs, unroutine_expansion};
use crate::ty::{Scalar, is_builtin_type};

pub type DefId = usize;

#[derive(Clone, PartialEq, Eq, Hash, Debug)]
pub enum DefKind {
    /// A positional parameter, by index.
    Param(usize),
    KwParam(usize),
    Ancilla,
    LoopVar,
}

#[derive(Clone, PartialEq, Eq, Hash, Debug)]
pub struct Def {
    pub name: String,
    pub kind: DefKind,
    /// Where it is defined (the name in the parameter list, `x ←`, `for x`).
    pub span: Span,
    /// For an ancilla: the value it was allocated with.
    pub alloc_value: Option<Expr>,
    /// For an ancilla: where it is deallocated, if it is.
    pub dealloc: Option<Span>,
}

/// What a call statement calls.
#[derive(Clone, PartialEq, Eq, Hash, Debug)]
pub enum Callee {
    /// A `.nil` function of the project.
    Function(String),
    /// A built-in instruction such as `SWAP`.
    Instruction(&'static str),
}

#[derive(Clone, PartialEq, Eq, Hash, Debug)]
pub struct CallRef {
    pub span: Span,
    pub callee: Callee,
}

/// An ancilla still alive at the end of its scope: deallocated implicitly
/// with its allocation value, if that value can be recomputed there.
#[derive(Clone, PartialEq, Eq, Hash, Debug)]
pub struct OpenAncilla {
    pub def: DefId,
    /// The end of the scope (for the label).
    pub scope_end: Span,
}

#[derive(Clone, PartialEq, Eq, Hash, Debug, Default)]
pub struct Resolution {
    pub defs: Vec<Def>,
    /// Every name occurrence that refers to a definition.
    pub uses: Vec<(Span, DefId)>,
    /// Every call of a function or instruction (statement position).
    pub calls: Vec<CallRef>,
    /// Functions passed by name as arguments of a call (`map!(square!,
    /// xs)`): the argument's span and the function's name.
    pub fn_refs: Vec<(Span, String)>,
    pub open_ancillas: Vec<OpenAncilla>,
    pub diagnostics: Vec<Diagnostic>,
}

impl Resolution {
    /// The definitions named inside `span`, in order (`uses` is sorted by
    /// span). An empty span holds the use at exactly that span: the lowering
    /// gives the values of a tuple variable read by destructuring
    /// (`a, b ← t`) empty spans of their own.
    pub fn defs_in(&self, span: Span) -> impl Iterator<Item = DefId> + '_ {
        let start = self.uses.partition_point(|(s, _)| s.start < span.start);
        self.uses[start..]
            .iter()
            .take_while(move |(s, _)| s.start < span.end || *s == span)
            .filter(move |(s, _)| s.end <= span.end)
            .map(|&(_, d)| d)
    }

    /// The definition a name at `span` refers to: a binary search, since
    /// [`resolve`] leaves `uses` sorted by span (stably, so of two uses at
    /// one span the first recorded wins).
    pub fn def_at(&self, span: Span) -> Option<DefId> {
        let at = self.uses.partition_point(|(s, _)| *s < span);
        self.uses
            .get(at)
            .filter(|(s, _)| *s == span)
            .map(|(_, d)| *d)
    }
}

/// What the resolver needs to know of other functions.
#[derive(Clone, PartialEq, Eq, Hash, Debug)]
pub struct Signature {
    pub name: String,
    pub params: Vec<String>,
    pub kwparams: Vec<String>,
}

pub trait Items {
    fn signature(&self, name: &str) -> Option<Signature>;
    fn function_names(&self) -> Vec<String>;
    /// The number of fields of the user struct `name`, if there is one
    /// (`Name(args...)` then builds it).
    fn struct_arity(&self, _name: &str) -> Option<usize> {
        None
    }
    /// The library modules that define a function `name` the file does
    /// not import (for the help of E0102).
    fn defined_in(&self, _name: &str) -> Vec<String> {
        Vec::new()
    }
    /// Why the derivative call `name` (`∇f`, `∂f`) cannot be made, as far
    /// as `f`'s signature tells (`crate::derivatives`).
    fn derivative_problem(&self, _name: &str) -> Option<String> {
        None
    }
}

/// The function a call names: `f` for a derivative call `(∇f)(...)`,
/// whose callee span is the name `f` (so that navigation, references and
/// renaming treat it as a mention of `f`).
fn called_function(name: &str) -> String {
    crate::derivatives::Derivative::of(name)
        .map_or_else(|| name.to_string(), |(_, f)| f.to_string())
}

pub fn resolve(function: &Function, items: &dyn Items) -> Resolution {
    let mut r = Resolver {
        items,
        function,
        out: Resolution::default(),
        scopes: vec![FxHashMap::default()],
    };
    let positional = function
        .params
        .iter()
        .enumerate()
        .map(|(i, p)| (&p.name, DefKind::Param(i), None));
    let keyword = function
        .kwparams
        .iter()
        .enumerate()
        .map(|(i, p)| (&p.name, DefKind::KwParam(i), Some(&p.default)));
    let mut seen: FxHashMap<&str, Span> = FxHashMap::default();
    for (name, kind, default) in positional.chain(keyword) {
        if let Some(default) = default {
            r.read_expr(default);
        }
        if let Some(first) = seen.insert(&name.name, name.span) {
            r.out.diagnostics.push(
                Diagnostic::error(
                    "E0107",
                    name.span,
                    format!("parameter `{}` is declared twice", name.name),
                )
                .with_label("second declaration")
                .with_secondary(first, "first declared here")
                .with_help("rename one of the parameters"),
            );
        }
        r.define(name, kind, None);
    }
    if let Some(d) = &function.primitive
        && items.signature(&d.name).is_none()
    {
        r.out.diagnostics.push(
            Diagnostic::error(
                "E0102",
                d.span,
                format!("unknown function `{}`", d.name),
            )
            .with_label("the derivatives of this primitive")
            .with_help(format!(
                "define `function {}(...)`: one parameter per pair (changed, read) of differentiable parameters, to which it adds the partial derivative, then the read parameters of `{}`",
                d.name, function.name.name
            )),
        );
    }
    r.block_stmts(&function.body.stmts);
    let end = Span::new(function.span.end, function.span.end);
    r.close_scope(end);
    r.out.uses.sort_by_key(|(span, _)| *span);
    let clashes = name_clashes(function, &r.out.defs);
    r.out.diagnostics.extend(clashes);
    r.out
}

/// E0110: variables that generated code would spell alike, or that take a
/// name generated code keeps (`crate::names`). Each clash is reported once,
/// at the later definition.
fn name_clashes(function: &Function, defs: &[Def]) -> Vec<Diagnostic> {
    use crate::names::{ADJOINT_TYPE, bar_of, reserved_name, rust_name};
    let mut out = Vec::new();
    for g in &function.generics {
        if rust_name(&g.name.name) == ADJOINT_TYPE {
            out.push(
                Diagnostic::error(
                    "E0110",
                    g.name.span,
                    format!("`{}` is a name generated code keeps for itself", g.name.name),
                )
                .with_label("this type parameter")
                .with_help(format!(
                    "reverse passes take the adjoints' type as the type parameter `{ADJOINT_TYPE}`; rename it"
                )),
            );
        }
    }
    // Each name's first definition, in source order. Names the parser makes
    // up (the position `__v_k` of `for v in xs`) have empty spans: the
    // compiler's own, like its temporaries.
    let mut first: FxHashMap<&str, &Def> = FxHashMap::default();
    for d in defs.iter().filter(|d| d.span.start < d.span.end) {
        first.entry(d.name.as_str()).or_insert(d);
    }
    let mut names: Vec<(&Def, String)> = first
        .into_values()
        .map(|d| (d, rust_name(&d.name).trim_start_matches("r#").to_string()))
        .collect();
    names.sort_by_key(|(d, _)| d.span);
    // The first name of each spelling.
    let mut spelled: FxHashMap<&str, &Def> = FxHashMap::default();
    for (d, s) in &names {
        spelled.entry(s.as_str()).or_insert(d);
    }
    let clash = |d: &Def, message: String, other: Option<&Def>, help: String| {
        let mut diag = Diagnostic::error("E0110", d.span, message)
            .with_label("this name")
            .with_help(help);
        if let Some(o) = other {
            diag = diag.with_secondary(o.span, format!("`{}` defined here", o.name));
        }
        diag
    };
    for (d, s) in &names {
        let o = spelled[s.as_str()];
        if !std::ptr::eq(o, *d) {
            out.push(clash(
                d,
                format!(
                    "`{}` and `{}` are both `{s}` in generated Rust",
                    d.name, o.name
                ),
                Some(o),
                "Greek letters are spelled out and `!` is dropped; rename one of them".into(),
            ));
        } else if let Some(why) = reserved_name(s) {
            out.push(clash(
                d,
                format!("`{}` is a name generated code keeps for itself", d.name),
                None,
                format!("{why}; rename it"),
            ));
        } else if let Some(o) = bar_of(s).and_then(|x| spelled.get(x)) {
            out.push(clash(
                d,
                format!(
                    "`{}` is the name generated code gives the reverse pass's adjoint of `{}`",
                    d.name, o.name
                ),
                Some(o),
                format!("rename `{}`", d.name),
            ));
        }
    }
    out
}

struct Resolver<'a> {
    items: &'a dyn Items,
    function: &'a Function,
    out: Resolution,
    /// Name to definition, innermost scope last.
    scopes: Vec<FxHashMap<String, DefId>>,
}

impl Resolver<'_> {
    fn define(&mut self, name: &Ident, kind: DefKind, alloc_value: Option<Expr>) -> DefId {
        let id = self.out.defs.len();
        self.out.defs.push(Def {
            name: name.name.clone(),
            kind,
            span: name.span,
            alloc_value,
            dealloc: None,
        });
        self.out.uses.push((name.span, id));
        self.scopes
            .last_mut()
            .expect("a scope is open")
            .insert(name.name.clone(), id);
        id
    }

    fn lookup(&self, name: &str) -> Option<DefId> {
        self.scopes.iter().rev().find_map(|s| s.get(name).copied())
    }

    fn is_live(&self, id: DefId) -> bool {
        self.out.defs[id].dealloc.is_none()
    }

    fn open_scope(&mut self) {
        self.scopes.push(FxHashMap::default());
    }

    fn close_scope(&mut self, end: Span) {
        let scope = self.scopes.pop().unwrap_or_default();
        let mut open: Vec<DefId> = scope
            .values()
            .copied()
            .filter(|&d| self.out.defs[d].kind == DefKind::Ancilla && self.is_live(d))
            .collect();
        open.sort_unstable();
        for def in open {
            self.out.open_ancillas.push(OpenAncilla {
                def,
                scope_end: end,
            });
        }
    }

    fn block_stmts(&mut self, stmts: &[Stmt]) {
        let pairs = routine_pairs(stmts);
        for (i, stmt) in stmts.iter().enumerate() {
            match &stmt.kind {
                StmtKind::Unroutine => match unroutine_expansion(stmts, &pairs, i) {
                    Some(expansion) => self.stmt(&expansion),
                    None => self.out.diagnostics.push(
                        Diagnostic::error(
                            "E0407",
                            stmt.span,
                            "`~@routine` without a preceding `@routine`",
                        )
                        .with_label("nothing to uncompute here")
                        .with_help(
                            "put `@routine stmt` earlier in the same block, or remove this line",
                        ),
                    ),
                },
                StmtKind::Routine(..) if pairs[i].is_none() => {
                    self.out.diagnostics.push(
                        Diagnostic::error(
                            "E0406",
                            stmt.span,
                            "`@routine` without a matching `~@routine`",
                        )
                        .with_label("this computation is never uncomputed")
                        .with_help("add `~@routine` later in the same block to uncompute it"),
                    );
                    self.stmt(stmt);
                }
                _ => self.stmt(stmt),
            }
        }
    }

    fn scoped_block(&mut self, block: &Block, end: Span) {
        self.open_scope();
        self.block_stmts(&block.stmts);
        self.close_scope(end);
    }

    fn stmt(&mut self, stmt: &Stmt) {
        let end = Span::new(stmt.span.end, stmt.span.end);
        match &stmt.kind {
            StmtKind::Instr { target, value, .. } => {
                self.read_expr(value);
                self.place(target);
            }
            StmtKind::Call(call) => self.call(call, stmt.span),
            StmtKind::Alloc { name, value } => {
                self.read_expr(value);
                if let Some(existing) = self.lookup(&name.name).filter(|&d| self.is_live(d)) {
                    let def = &self.out.defs[existing];
                    let what = match def.kind {
                        DefKind::Param(_) | DefKind::KwParam(_) => "a parameter",
                        DefKind::LoopVar => "a loop variable",
                        DefKind::Ancilla => "an ancilla that is still allocated",
                    };
                    self.out.diagnostics.push(
                        Diagnostic::error(
                            "E0103",
                            name.span,
                            format!("`{}` is already {what}", name.name),
                        )
                        .with_label("allocated again here")
                        .with_secondary(def.span, "first defined here")
                        .with_help(format!(
                            "pick a fresh name, or deallocate `{}` first with `{} → value`",
                            name.name, name.name
                        )),
                    );
                    self.out.uses.push((name.span, existing));
                    return;
                }
                self.define(name, DefKind::Ancilla, Some(value.clone()));
            }
            StmtKind::Dealloc { name, value } => {
                self.read_expr(value);
                let in_this_scope = self.scopes.last().and_then(|s| s.get(&name.name)).copied();
                match self.lookup(&name.name) {
                    None => self.undefined(name),
                    Some(id) if !self.is_live(id) => self.dead_use(name, id),
                    Some(id) => {
                        self.out.uses.push((name.span, id));
                        let def = &self.out.defs[id];
                        if def.kind != DefKind::Ancilla {
                            let what = if matches!(def.kind, DefKind::LoopVar) {
                                "a loop variable"
                            } else {
                                "a parameter"
                            };
                            self.out.diagnostics.push(
                                Diagnostic::error(
                                    "E0105",
                                    name.span,
                                    format!("`{}` is {what}, not an ancilla", name.name),
                                )
                                .with_label("cannot be deallocated")
                                .with_secondary(def.span, "defined here")
                                .with_help("only variables allocated with `←` can be deallocated"),
                            );
                        } else if in_this_scope != Some(id) {
                            self.out.diagnostics.push(
                                Diagnostic::error(
                                    "E0105",
                                    name.span,
                                    format!(
                                        "`{}` is deallocated in a different block than it was allocated in",
                                        name.name
                                    ),
                                )
                                .with_label("deallocated inside a branch or loop")
                                .with_secondary(def.span, "allocated in an outer block")
                                .with_help("allocate and deallocate an ancilla in the same block"),
                            );
                        } else {
                            self.out.defs[id].dealloc = Some(stmt.span);
                        }
                    }
                }
            }
            StmtKind::If {
                branches,
                otherwise,
            } => {
                for branch in branches {
                    self.cond(&branch.cond);
                }
                for branch in branches {
                    self.scoped_block(&branch.body, end);
                }
                if let Some(block) = otherwise {
                    self.scoped_block(block, end);
                }
            }
            StmtKind::While { cond, body } => {
                self.cond(cond);
                self.scoped_block(body, end);
            }
            StmtKind::For { var, range, body } => {
                self.read_expr(&range.start);
                if let Some(step) = &range.step {
                    self.read_expr(step);
                }
                self.read_expr(&range.stop);
                self.open_scope();
                self.define(var, DefKind::LoopVar, None);
                self.block_stmts(&body.stmts);
                self.close_scope(end);
            }
            StmtKind::Begin(block) => self.block_stmts(&block.stmts),
            // A tape loop run backwards defines what it does forwards.
            StmtKind::Inverse(inner) if matches!(inner.kind, StmtKind::Tape(_)) => self.stmt(inner),
            StmtKind::Inverse(inner) => self.stmt(&invert_stmt(inner)),
            StmtKind::Routine(inner, _)
            | StmtKind::Tape(inner)
            | StmtKind::InvCheckOff(inner)
            | StmtKind::InBounds(inner) => self.stmt(inner),
            StmtKind::Unroutine => {}
            StmtKind::Safe(expr) => self.read_expr(expr),
            StmtKind::Typecast { value, .. } => self.place(value),
        }
    }

    fn cond(&mut self, cond: &Cond) {
        self.read_expr(&cond.pre);
        if let Post::Expr(post) = &cond.post {
            self.read_expr(post);
        }
    }

    /// A call statement (`span`: the whole statement).
    fn call(&mut self, call: &Call, span: Span) {
        let name = &call.callee.name;
        let arity;
        let mut kwnames: Vec<String> = Vec::new();
        if let Some(instr) = builtins::instruction(name) {
            self.out.calls.push(CallRef {
                span: call.callee.span,
                callee: Callee::Instruction(instr.name),
            });
            arity = Some(instr.arity);
        } else if let Some(why) = self.items.derivative_problem(name).or_else(|| {
            // `(∇f)` of a function parameter: its function is only known
            // per instance.
            let (_, base) = crate::derivatives::Derivative::of(name)?;
            crate::values::function_params(self.function)
                .iter()
                .any(|(_, p, _)| *p == base)
                .then(|| format!("`{base}` is a function parameter; derivative calls take a function of the project by name"))
        }) {
            self.out.calls.push(CallRef {
                span: call.callee.span,
                callee: Callee::Function(called_function(name)),
            });
            self.out
                .diagnostics
                .push(crate::derivatives::problem(name, call.callee.span, &why));
            arity = None;
        } else if let Some(sig) = self.items.signature(name) {
            self.out.calls.push(CallRef {
                span: call.callee.span,
                callee: Callee::Function(called_function(name)),
            });
            arity = Some(sig.params.len());
            kwnames = sig.kwparams;
        } else if builtins::pure_function(name).is_some() {
            self.out.diagnostics.push(
                Diagnostic::error(
                    "E0206",
                    call.callee.span,
                    format!("`{name}` is not a reversible function"),
                )
                .with_label("its result would be thrown away")
                .with_help(format!(
                    "accumulate its value into a variable instead, e.g. `y += {name}(...)`"
                )),
            );
            arity = None;
        } else {
            let mut candidates = self.items.function_names();
            candidates.extend(builtins::INSTRUCTIONS.iter().map(|i| i.name.to_string()));
            // `(∇f)` of an unknown `f`: the suggestions are for `f`.
            let name = &crate::derivatives::Derivative::of(name)
                .map_or_else(|| name.clone(), |(_, base)| base.to_string());
            let suggestion = builtins::closest(name, candidates.iter().map(String::as_str));
            let julia = crate::julia::instruction_call(name, &call.args);
            let modules = self.items.defined_in(name);
            let help = match (&julia, suggestion) {
                _ if !modules.is_empty() => format!(
                    "`{name}` is defined in {}: add `using {}` at the top of the file",
                    modules
                        .iter()
                        .map(|m| format!("`{m}`"))
                        .collect::<Vec<_>>()
                        .join(" and "),
                    modules[0]
                ),
                (Some(rewrite), _) => {
                    format!("`{name}` is NiLang.jl's spelling of an instruction: write `{rewrite}`")
                }
                (None, Some(s)) => format!("a function with a similar name exists: `{s}`"),
                (None, None) => "define it with `function ... end` in a `.nil` file of this project, or check the spelling".to_string(),
            };
            let mut d = Diagnostic::error(
                "E0102",
                call.callee.span,
                format!("unknown function `{name}`"),
            )
            .with_label("not defined in this project")
            .with_help(help);
            if let Some(rewrite) = julia
                && !call.inverted
                && call.kwargs.is_empty()
            {
                d = d.with_suggestion(span, rewrite);
            }
            self.out.diagnostics.push(d);
            arity = None;
        }
        if let Some(arity) = arity
            && arity != call.args.len()
        {
            let span = call
                .args
                .first()
                .zip(call.args.last())
                .map(|(a, b)| Span::new(a.span.start, b.span.end))
                .unwrap_or(call.callee.span);
            self.out.diagnostics.push(
                Diagnostic::error(
                    "E0108",
                    span,
                    format!(
                        "`{name}` takes {arity} argument{}, but {} {} given",
                        if arity == 1 { "" } else { "s" },
                        call.args.len(),
                        if call.args.len() == 1 { "was" } else { "were" }
                    ),
                )
                .with_label("wrong number of arguments")
                .with_help(format!("pass exactly {arity} positional arguments")),
            );
        }
        for arg in &call.args {
            // A function passed by name (see `crate::values`).
            if let ExprKind::Var(n) = &arg.kind
                && self.lookup(n).is_none()
                && builtins::instruction(n).is_none()
                && self.items.signature(n).is_some()
            {
                self.out.fn_refs.push((arg.span, n.clone()));
                continue;
            }
            // A function partially applied (`scale!(_, c)`): its captured
            // arguments are read here.
            if let ExprKind::Call { callee, args, .. } = &arg.kind
                && args.iter().any(crate::values::is_hole)
                && let Some(sig) = self.items.signature(&callee.name)
            {
                if sig.params.len() != args.len() {
                    self.out.diagnostics.push(
                        Diagnostic::error(
                            "E0108",
                            arg.span,
                            format!(
                                "`{}` takes {} arguments, and this partial application gives {}",
                                callee.name,
                                sig.params.len(),
                                args.len()
                            ),
                        )
                        .with_label("wrong number of arguments")
                        .with_help("write one argument or `_` for each of its parameters"),
                    );
                }
                self.out.fn_refs.push((arg.span, callee.name.clone()));
                for a in args.iter().filter(|a| !crate::values::is_hole(a)) {
                    self.read_expr(a);
                }
                continue;
            }
            self.read_expr(arg);
        }
        for kw in &call.kwargs {
            if !kwnames.contains(&kw.name.name) {
                self.out.diagnostics.push(
                    Diagnostic::error(
                        "E0109",
                        kw.name.span,
                        format!("`{name}` has no keyword parameter `{}`", kw.name.name),
                    )
                    .with_label("unknown keyword")
                    .with_help(if kwnames.is_empty() {
                        format!("`{name}` takes no keyword arguments")
                    } else {
                        format!("its keyword parameters are: {}", kwnames.join(", "))
                    }),
                );
            }
            self.read_expr(&kw.value);
        }
    }

    /// A place written to: its root must be a live variable.
    fn place(&mut self, expr: &Expr) {
        self.read_expr(expr);
    }

    fn read_expr(&mut self, expr: &Expr) {
        let mut names: Vec<(Ident, bool)> = Vec::new();
        let mut calls: Vec<(Ident, usize, bool)> = Vec::new();
        let mut in_macro = false;
        collect_names(expr, &mut names, &mut calls, &mut in_macro);
        for (ident, is_type_position) in names {
            match self.lookup(&ident.name) {
                Some(id) if self.is_live(id) => self.out.uses.push((ident.span, id)),
                Some(id) => self.dead_use(&ident, id),
                None => {
                    if is_type_position || self.is_global_name(&ident.name) {
                        continue;
                    }
                    self.undefined(&ident);
                }
            }
        }
        for (callee, nargs, broadcast) in calls {
            self.expr_call(&callee, nargs, broadcast);
        }
    }

    fn is_global_name(&self, name: &str) -> bool {
        builtins::CONSTANTS.contains(&name)
            || is_builtin_type(name)
            || self.function.generics.iter().any(|g| g.name.name == name)
    }

    fn expr_call(&mut self, callee: &Ident, nargs: usize, broadcast: bool) {
        let name = &callee.name;
        if let Some(arity) = builtins::pure_function(name) {
            if let Some(arity) = arity
                && arity != nargs
                && !broadcast
            {
                self.out.diagnostics.push(
                    Diagnostic::error(
                        "E0108",
                        callee.span,
                        format!(
                            "`{name}` takes {arity} argument{}, but {nargs} {} given",
                            if arity == 1 { "" } else { "s" },
                            if nargs == 1 { "was" } else { "were" }
                        ),
                    )
                    .with_label("wrong number of arguments")
                    .with_help(format!("pass exactly {arity} arguments")),
                );
            }
            return;
        }
        if self.items.signature(name).is_some() || builtins::instruction(name).is_some() {
            self.out.diagnostics.push(
                Diagnostic::error(
                    "E0208",
                    callee.span,
                    format!("`{name}` is reversible and changes its arguments; it has no value"),
                )
                .with_label("used as a value here")
                .with_help(format!(
                    "call it as a statement on its own line, `{name}(...)`, and read the variable it updates"
                )),
            );
            return;
        }
        if is_builtin_type(name) || self.items.struct_arity(name).is_some() {
            // The arity of a construction is checked with the structs (E0905).
            return;
        }
        let known = builtins::PureFn::ALL.map(builtins::PureFn::name);
        let help = match builtins::closest(name, known) {
            Some(s) => format!("a function with a similar name exists: `{s}`"),
            None => "expressions may call the built-in math functions (abs, sqrt, exp, log, sin, ...) and `zero`, `length`, `size`".to_string(),
        };
        self.out.diagnostics.push(
            Diagnostic::error("E0102", callee.span, format!("unknown function `{name}`"))
                .with_label("not a known function")
                .with_help(help),
        );
    }

    fn undefined(&mut self, ident: &Ident) {
        let mut candidates: Vec<&str> = self
            .scopes
            .iter()
            .flat_map(|s| s.keys().map(String::as_str))
            .collect();
        candidates.sort_unstable();
        let base = ident.name.trim_end_matches('!');
        let help = match builtins::closest(&ident.name, candidates.iter().copied()) {
            _ if base != ident.name && candidates.contains(&base) => format!(
                "`{}` is not `{base}`: a name may end in `!`, so `{base}!=` reads as `{base}! =`; for \"not equal\" write `{base} != ...`",
                ident.name
            ),
            Some(s) => format!("a variable with a similar name is in scope: `{s}`"),
            None => format!(
                "declare it as a parameter, or allocate it first with `{} ← zero(T)`",
                ident.name
            ),
        };
        self.out.diagnostics.push(
            Diagnostic::error(
                "E0101",
                ident.span,
                format!("undefined variable `{}`", ident.name),
            )
            .with_label("not defined here")
            .with_help(help),
        );
    }

    fn dead_use(&mut self, ident: &Ident, id: DefId) {
        let def = &self.out.defs[id];
        let mut d = Diagnostic::error(
            "E0104",
            ident.span,
            format!("`{}` is used after it was deallocated", ident.name),
        )
        .with_label("used here")
        .with_help(format!(
            "move the use before the deallocation, or allocate `{}` again with `←`",
            ident.name
        ));
        if let Some(dealloc) = def.dealloc {
            d = d.with_secondary(dealloc, "deallocated here");
        }
        self.out.diagnostics.push(d);
        self.out.uses.push((ident.span, id));
    }
}

/// Names read by an expression. A name directly inside `zero(..)`, `one(..)`
/// or `zeros(..)` may be a type, which is fine when nothing else defines it.
fn collect_names(
    expr: &Expr,
    names: &mut Vec<(Ident, bool)>,
    calls: &mut Vec<(Ident, usize, bool)>,
    in_macro: &mut bool,
) {
    nilang_syntax::stack::deep(|| match &expr.kind {
        ExprKind::Var(name) => names.push((
            Ident {
                name: name.clone(),
                span: expr.span,
            },
            false,
        )),
        ExprKind::Call {
            callee,
            args,
            kwargs,
            broadcast,
        } => {
            if !*in_macro {
                calls.push((callee.clone(), args.len(), *broadcast));
            }
            let type_call = builtins::first_argument_may_be_a_type(&callee.name);
            for (i, arg) in args.iter().enumerate() {
                if type_call
                    && i == 0
                    && let ExprKind::Var(name) = &arg.kind
                {
                    names.push((
                        Ident {
                            name: name.clone(),
                            span: arg.span,
                        },
                        name.chars().next().is_some_and(char::is_uppercase)
                            || Scalar::named(name).is_some(),
                    ));
                    continue;
                }
                collect_names(arg, names, calls, in_macro);
            }
            for kw in kwargs {
                collect_names(&kw.value, names, calls, in_macro);
            }
        }
        ExprKind::Field { base, .. } => collect_names(base, names, calls, in_macro),
        ExprKind::Macro { arg, .. } => {
            let was = *in_macro;
            *in_macro = true;
            if let Some(arg) = arg {
                collect_names(arg, names, calls, in_macro);
            }
            *in_macro = was;
        }
        ExprKind::Index { base, indices } => {
            collect_names(base, names, calls, in_macro);
            for index in indices {
                match index {
                    IndexArg::Expr(e) => collect_names(e, names, calls, in_macro),
                    IndexArg::Range(r) => {
                        collect_names(&r.start, names, calls, in_macro);
                        if let Some(step) = &r.step {
                            collect_names(step, names, calls, in_macro);
                        }
                        collect_names(&r.stop, names, calls, in_macro);
                    }
                    IndexArg::Colon(_) => {}
                }
            }
        }
        ExprKind::Adjoint(e) | ExprKind::Paren(e) => collect_names(e, names, calls, in_macro),
        ExprKind::Unary { operand, .. } => collect_names(operand, names, calls, in_macro),
        ExprKind::Binary { lhs, rhs, .. } => {
            collect_names(lhs, names, calls, in_macro);
            collect_names(rhs, names, calls, in_macro);
        }
        ExprKind::Tuple(items) => {
            for e in items {
                collect_names(e, names, calls, in_macro);
            }
        }
        ExprKind::Int(_)
        | ExprKind::Float(_)
        | ExprKind::Bool(_)
        | ExprKind::Str(_)
        | ExprKind::Error => {}
    })
}

//! The type of every expression of a function, and the type errors.
//!
//! [`crate::types`] gives each definition (parameter, ancilla, loop variable)
//! its type; this pass walks the body once and types every expression from
//! those, the literals and the built-in functions, with the same promotion
//! rules the backends use to convert values: an integer widens to a float,
//! a real number to a complex one or to a number system, integer `/` gives
//! a float. What no backend can convert is an error here, before code
//! generation:
//!
//! - E0603: a complex value into a real place;
//! - E0610: values of unrelated types (an array into a number, a number
//!   system into another, a non-boolean condition, an argument of the wrong
//!   kind, `⊻=` on floats);
//! - E0611: a float into an integer place, which would truncate silently;
//! - W0612: a value of a type parameter into a concrete float place, which
//!   drops a dual number's derivative part silently;
//! - E0612: indexing a value that is not an array;
//! - E0602, E0621, E0622: a typecast `(T1 => T2)(x)` naming something not a
//!   number type, from a type `x` does not have there, or of something whose
//!   type cannot change there (a parameter; an ancilla outside the block
//!   that allocates it). A cast changes the ancilla's type from there on,
//!   and back at the `~@routine` of a routine that cast it.
//!
//! Linear in the size of the function: each expression is typed once.

use rustc_hash::FxHashMap;

use crate::ast::*;
use crate::builtins::{self, ComplexArgs, PureFn};
use crate::diagnostics::Diagnostic;
use crate::resolve::Resolution;
use crate::structs::StructTable;
use crate::ty::{Class, Ctor, Scalar, Ty, class, field_type, is_number, promote};
use crate::types::FunctionTypes;

/// The positional parameter types of the project's functions.
pub trait CalleeTypes {
    /// The types of `name`'s positional parameters, and which it mutates.
    fn param_types(&self, name: &str) -> Option<(Vec<Ty>, Vec<bool>)>;
}

/// The type of each expression, by span (sorted), and the type errors.
#[derive(Clone, PartialEq, Eq, Hash, Debug, Default)]
pub struct ExprTypes {
    types: Vec<(Span, Ty)>,
    /// A number literal passed for a callee's type parameter that another
    /// argument binds (`h(0.5, x)` with `x::T`, `scale!(_, _, 2)` captured
    /// for a `T` bound by an array of `f64`): the type it is passed as.
    literal_arguments: Vec<(Span, Ty)>,
    /// The calls, at the callee's name, of a function whose reverse pass
    /// is in another float than the caller's (an `f64` function calling
    /// one whose floats are all `f32`): the callee's adjoint scalar. The
    /// Rust backend lends the caller's adjoints to the call converted to
    /// it (`nilang::adjoint::Precision`).
    precision_calls: Vec<(Span, Ty)>,
    /// The calls that bind a callee's type parameter to an integer (at the
    /// callee's name): the callee's body was typed for a float there, and
    /// the analysis types it again at these types (`db::checks`), since
    /// the built-ins it calls need not take integers.
    pub instantiations: Vec<Instantiation>,
    pub diagnostics: Vec<Diagnostic>,
}

/// A call binding type parameters of a generic callee to concrete types,
/// one at least an integer: the callee's name span, its name and the
/// bindings (sorted by parameter).
#[derive(Clone, PartialEq, Eq, Hash, Debug)]
pub struct Instantiation {
    pub span: Span,
    pub callee: String,
    pub bindings: Vec<(String, Ty)>,
}

impl ExprTypes {
    /// The type of the expression at `span` (function-relative), if typed.
    pub fn at(&self, span: Span) -> Option<&Ty> {
        by_span(&self.types, span)
    }

    /// The type a number literal argument at `span` is passed as, when it
    /// stands for a type parameter that another argument of the call binds.
    pub fn literal_argument(&self, span: Span) -> Option<&Ty> {
        by_span(&self.literal_arguments, span)
    }

    /// The adjoint scalar of the callee named at `span`, where its reverse
    /// pass is in another float than the caller's.
    pub fn adjoint_precision(&self, span: Span) -> Option<&Ty> {
        by_span(&self.precision_calls, span)
    }
}

/// The type at `span` in a table sorted by span (a binary search).
fn by_span(table: &[(Span, Ty)], span: Span) -> Option<&Ty> {
    let i = table.partition_point(|(s, _)| *s < span);
    table.get(i).filter(|(s, _)| *s == span).map(|(_, t)| t)
}

/// Types a function: every expression, and every ancilla from the value it
/// is allocated with. `declared` holds the types written in the source
/// (parameters, keyword parameters, loop variables; ancillas `Unknown`); the
/// [`FunctionTypes`] returned has every definition's type, the one
/// inference the checks and both backends read.
pub fn check_types(
    function: &Function,
    resolution: &Resolution,
    declared: &FunctionTypes,
    callees: &dyn CalleeTypes,
    structs: &StructTable,
) -> (FunctionTypes, ExprTypes) {
    check_instance_types(function, resolution, declared, callees, structs, &[])
}

/// [`check_types`] of one instance of a generic function: each type
/// parameter `instance` binds stands for its type where the body names it
/// (`zero(U)`, `stack(U)`, `(U => f64)(x)`); `declared` is instantiated
/// already.
pub fn check_instance_types(
    function: &Function,
    resolution: &Resolution,
    declared: &FunctionTypes,
    callees: &dyn CalleeTypes,
    structs: &StructTable,
    instance: &[(String, Ty)],
) -> (FunctionTypes, ExprTypes) {
    let params = crate::types::param_types(function, resolution, &declared.defs);
    let mut cx = Cx {
        instance,
        function,
        resolution,
        defs: declared.defs.clone(),
        adjoint_scalar: crate::types::adjoint_scalar(function, &params),
        differentiated: params.iter().any(Ty::has_adjoint),
        callees,
        structs,
        out: ExprTypes::default(),
        cast: FxHashMap::default(),
        frames: vec![Vec::new()],
        routines: Vec::new(),
        in_routine: 0,
        fixed_by_functions: Vec::new(),
    };
    cx.params();
    cx.block(&function.body.stmts);
    cx.out.types.sort_by_key(|(s, _)| *s);
    cx.out.literal_arguments.sort_by_key(|(s, _)| *s);
    cx.out.precision_calls.sort_by_key(|(s, _)| *s);
    cx.out.types.dedup_by_key(|(s, _)| *s);
    let types = FunctionTypes {
        defs: cx.defs,
        diagnostics: declared.diagnostics.clone(),
    };
    (types, cx.out)
}

/// A typed value: its type, and whether it is a literal (an integer literal
/// adapts to any number) or rounded (`floor`, `ceil`, `round`: an explicit
/// float-to-integer conversion).
#[derive(Clone, Debug)]
struct Val {
    ty: Ty,
    literal: bool,
    rounded: bool,
}

impl Val {
    fn of(ty: Ty) -> Val {
        Val {
            ty,
            literal: false,
            rounded: false,
        }
    }

    /// The value of a call of type `ty` with arguments `args`: a literal
    /// when they all are and it is a number.
    fn computed(ty: Ty, args: &[Val]) -> Val {
        let literal = !args.is_empty() && args.iter().all(|v| v.literal) && is_number(class(&ty));
        Val {
            ty,
            literal,
            rounded: false,
        }
    }
}

struct Cx<'a> {
    function: &'a Function,
    /// The type each bound type parameter stands for, when the walk types
    /// an instance ([`check_instance_types`]); empty otherwise.
    instance: &'a [(String, Ty)],
    resolution: &'a Resolution,
    /// The type of each definition: as declared, and each ancilla's from
    /// its allocation on (set when the walk reaches it).
    defs: Vec<Ty>,
    /// The scalar this function's reverse pass takes adjoints in
    /// (`types::adjoint_scalar`).
    adjoint_scalar: Ty,
    /// Whether it has a parameter with an adjoint (a reverse pass).
    differentiated: bool,
    callees: &'a dyn CalleeTypes,
    structs: &'a StructTable,
    out: ExprTypes,
    /// The type of each ancilla a typecast changed, from the cast on.
    cast: FxHashMap<usize, Ty>,
    /// Per open block (a branch, a loop body, the function body; `begin`
    /// and `@routine` open none): the ancillas it allocates.
    frames: Vec<Vec<usize>>,
    /// Per open `@routine` (until its `~@routine`): the casts in it, with the
    /// type each ancilla had before.
    routines: Vec<Vec<(usize, Option<Ty>)>>,
    /// How many `@routine` bodies the walk is in.
    in_routine: usize,
    /// The callee's type parameters that the concrete functions passed to
    /// the call being typed fix (its instance is not generic in them).
    fixed_by_functions: Vec<String>,
}

/// Whether the Rust backend has a type for a parameter of type `ty`: no
/// tuples, and sparse matrices only as the parameter itself.
fn has_rust_type(ty: &Ty, top: bool) -> bool {
    match ty {
        Ty::Tuple(_) => false,
        Ty::Constructed(Ctor::Csc, args) => top && args.iter().all(|a| has_rust_type(a, false)),
        Ty::Slice(inner) => has_rust_type(inner, false),
        Ty::Constructed(_, args) => args.iter().all(|a| has_rust_type(a, false)),
        _ => true,
    }
}

impl Cx<'_> {
    fn error(&mut self, d: Diagnostic) {
        self.out.diagnostics.push(d);
    }

    /// E0701 for parameters (and keyword parameters) the Rust backend has
    /// no type for.
    fn params(&mut self) {
        let spans: Vec<(Span, Span)> = self
            .function
            .params
            .iter()
            .map(|p| (p.name.span, p.span))
            .chain(
                self.function
                    .kwparams
                    .iter()
                    .map(|k| (k.name.span, k.name.span)),
            )
            .collect();
        for (name, span) in spans {
            let Some(id) = self.resolution.def_at(name) else {
                continue;
            };
            let ty = &self.defs[id];
            if !has_rust_type(ty, true) {
                let shown = ty.display();
                self.error(
                    Diagnostic::error(
                        "E0701",
                        span,
                        format!("a parameter of type `{shown}` is not supported by the Rust backend yet"),
                    )
                    .with_label("cannot generate Rust for this")
                    .with_help("pass the parts as separate parameters (a tuple's items, a sparse matrix on its own)"),
                );
            }
        }
    }

    fn block(&mut self, stmts: &[Stmt]) {
        for stmt in stmts {
            self.stmt(stmt);
        }
    }

    /// A block with a scope of its own (a branch, a loop body, `~(...)`).
    fn scoped(&mut self, f: impl FnOnce(&mut Self)) {
        self.frames.push(Vec::new());
        f(self);
        self.frames.pop();
    }

    fn stmt(&mut self, stmt: &Stmt) {
        match &stmt.kind {
            StmtKind::Instr {
                target,
                op,
                op_span,
                broadcast,
                value,
            } => {
                let place = self.expr(target);
                let val = self.expr(value);
                if !*broadcast {
                    self.instruction(target, &place.ty, *op, *op_span, value, &val);
                } else if *op == InstrOp::Xor
                    && matches!(
                        class(place.ty.element()),
                        Class::Float
                            | Class::Complex
                            | Class::Fixed
                            | Class::ULog
                            | Class::Tropical
                    )
                {
                    self.error(
                        Diagnostic::error(
                            "E0610",
                            *op_span,
                            format!(
                                "`.⊻=` on elements of type `{}`",
                                place.ty.element().display()
                            ),
                        )
                        .with_label("needs integers or booleans")
                        .with_help("`⊻=` flips bits; use `.+=`/`.-=` for numbers"),
                    );
                }
            }
            StmtKind::Call(call) => self.call(call),
            StmtKind::Alloc { name, value } => {
                let v = self.expr(value);
                let new_stack =
                    matches!(&value.kind, ExprKind::Call { callee, .. } if callee.name == "stack");
                if class(&v.ty) == Class::Stack && !new_stack {
                    self.stack_as_value(value);
                }
                if let Some(id) = self.resolution.def_at(name.span) {
                    if let Some(ty) = self.defs.get_mut(id) {
                        *ty = v.ty;
                    }
                    if let Some(frame) = self.frames.last_mut() {
                        frame.push(id);
                    }
                }
            }
            StmtKind::Dealloc { value, .. } => {
                self.expr(value);
            }
            StmtKind::If {
                branches,
                otherwise,
            } => {
                for b in branches {
                    self.cond(&b.cond);
                    self.scoped(|cx| cx.block(&b.body.stmts));
                }
                if let Some(o) = otherwise {
                    self.scoped(|cx| cx.block(&o.stmts));
                }
            }
            StmtKind::While { cond, body } => {
                self.cond(cond);
                self.scoped(|cx| cx.block(&body.stmts));
            }
            StmtKind::For { range, body, .. } => {
                self.range(range);
                self.scoped(|cx| cx.block(&body.stmts));
            }
            StmtKind::Begin(block) => self.block(&block.stmts),
            StmtKind::Inverse(inner) => self.scoped(|cx| cx.stmt(inner)),
            StmtKind::Routine(inner, _) => {
                self.routines.push(Vec::new());
                self.in_routine += 1;
                self.stmt(inner);
                self.in_routine -= 1;
            }
            StmtKind::Unroutine => {
                // `~@routine` runs the routine's casts backwards.
                for (id, before) in self.routines.pop().unwrap_or_default().into_iter().rev() {
                    match before {
                        Some(ty) => self.cast.insert(id, ty),
                        None => self.cast.remove(&id),
                    };
                }
            }
            StmtKind::Tape(inner) | StmtKind::InvCheckOff(inner) | StmtKind::InBounds(inner) => {
                self.stmt(inner)
            }
            StmtKind::Safe(e) => {
                self.expr(e);
            }
            StmtKind::Typecast { from, to, value } => {
                self.expr(value);
                self.typecast(from, to, value, stmt.span);
            }
        }
    }

    /// The type a typecast names: a scalar, a type parameter or `Complex`
    /// of one; E0602 otherwise.
    fn cast_type(&mut self, ty: &Type) -> Option<Ty> {
        fn go(ty: &Type, generics: &[Generic]) -> Option<Ty> {
            nilang_syntax::stack::deep(|| {
                let TypeKind::Named { name, args } = &ty.kind else {
                    return None;
                };
                match (name.as_str(), args.as_slice()) {
                    ("Complex", [inner]) => {
                        Some(Ty::Constructed(Ctor::Complex, vec![go(inner, generics)?]))
                    }
                    (n, []) if generics.iter().any(|g| g.name.name == n) => {
                        Some(Ty::Generic(n.to_string()))
                    }
                    (n, []) => Scalar::named(n).map(Ty::Scalar),
                    _ => None,
                }
            })
        }
        let found = go(ty, &self.function.generics).map(|t| instantiate(&t, self.instance));
        if found.is_none() {
            let shown = crate::printer::print_type(ty);
            const CASTS: &str = "typecasts convert between f64, f32, the integer types and Complex<f64>, Complex<f32>";
            // A type the language has, which no cast converts (a number
            // system, an array, a struct), is not called unknown.
            let name = match &ty.kind {
                TypeKind::Named { name, .. } => Some(name.as_str()),
                _ => None,
            };
            let ctor = name.and_then(Ctor::written);
            let known = ctor.is_some() || name.is_some_and(|n| self.structs.get(n).is_some());
            let d = if known {
                let help = match ctor {
                    Some(Ctor::Fixed43 | Ctor::ULogarithmic | Ctor::Tropical) => format!(
                        "{CASTS}; a number-system value is made from a number into a new ancilla: `q ← fixed(x)`, `l ← ulog(x)`, `t ← tropical(x)`"
                    ),
                    _ => CASTS.to_string(),
                };
                Diagnostic::error(
                    "E0602",
                    ty.span,
                    format!("a typecast cannot convert to or from `{shown}`"),
                )
                .with_label("not a type a typecast converts")
                .with_help(help)
            } else {
                Diagnostic::error(
                    "E0602",
                    ty.span,
                    format!("unknown type `{shown}` in a typecast"),
                )
                .with_label("not a number type")
                .with_help(CASTS)
            };
            self.error(d);
        }
        found
    }

    /// `(from => to)(value)`.
    fn typecast(&mut self, from: &Type, to: &Type, value: &Expr, span: Span) {
        let (Some(from_ty), Some(to_ty)) = (self.cast_type(from), self.cast_type(to)) else {
            return;
        };
        // Anything but a variable is E0207, from the checks.
        let ExprKind::Var(x) = &value.kind else {
            return;
        };
        let Some(id) = self.resolution.def_at(value.span) else {
            return;
        };
        let kind = &self.resolution.defs[id].kind;
        let own_block = self.frames.last().is_some_and(|f| f.contains(&id));
        if *kind != crate::resolve::DefKind::Ancilla || !own_block {
            let param = matches!(kind, crate::resolve::DefKind::Param(_));
            let d = Diagnostic::error(
                "E0622",
                span,
                if param {
                    format!("a typecast cannot change the type of the parameter `{x}`")
                } else {
                    format!("a typecast of `{x}` outside the block that allocates it")
                },
            )
            .with_label("cannot change the type here");
            self.error(if param {
                d.with_help(format!(
                    "copy it into an ancilla and cast that: `t ← {x}`, then `(T1 => T2)(t)`"
                ))
            } else {
                d.with_help("move the cast into the block (function body, branch or loop body) that allocates the ancilla")
            });
            return;
        }
        let now = self.var_type(value).unwrap_or(Ty::Unknown);
        if now != Ty::Unknown && now != from_ty {
            self.error(
                Diagnostic::error(
                    "E0621",
                    from.span,
                    format!(
                        "this typecast converts from `{}`, but `{x}` is `{}` here",
                        from_ty.display(),
                        now.display()
                    ),
                )
                .with_label("not the variable's type")
                .with_secondary(value.span, format!("`{x}` is `{}`", now.display()))
                .with_help(format!(
                    "write `({} => {})({x})`",
                    now.display(),
                    to_ty.display()
                )),
            );
            return;
        }
        let numeric = |t: &Ty| match t {
            Ty::Scalar(s) => *s != Scalar::Bool,
            Ty::Constructed(Ctor::Complex, a) => {
                matches!(a.as_slice(), [Ty::Scalar(Scalar::F64 | Scalar::F32)])
            }
            _ => false,
        };
        if !numeric(&from_ty) || !numeric(&to_ty) {
            self.error(
                Diagnostic::error(
                    "E0701",
                    span,
                    "a typecast from or to a type parameter or `bool` is not supported by the Rust backend yet",
                )
                .with_label("cannot generate Rust for this")
                .with_help("the language accepts it, but the Rust backend cannot generate code for it yet"),
            );
            return;
        }
        let before = self.cast.insert(id, to_ty);
        if self.in_routine > 0
            && let Some(log) = self.routines.last_mut()
        {
            log.push((id, before));
        }
    }

    fn range(&mut self, range: &Range) {
        for e in [Some(&range.start), range.step.as_ref(), Some(&range.stop)]
            .into_iter()
            .flatten()
        {
            let v = self.expr(e);
            if matches!(
                class(&v.ty),
                Class::Array | Class::Stack | Class::Struct | Class::Tuple | Class::Complex
            ) {
                self.error(
                    Diagnostic::error(
                        "E0610",
                        e.span,
                        format!("a loop bound must be an integer, not `{}`", v.ty.display()),
                    )
                    .with_label(format!("this is `{}`", v.ty.display()))
                    .with_help("count with integers: `for i = 1:length(x)`"),
                );
            }
        }
    }

    fn cond(&mut self, cond: &Cond) {
        let one = |cx: &mut Self, e: &Expr| {
            let v = cx.expr(e);
            let c = class(&v.ty);
            if c != Class::Bool && c != Class::Unknown {
                cx.error(
                    Diagnostic::error(
                        "E0610",
                        e.span,
                        format!("a condition must be a boolean, not `{}`", v.ty.display()),
                    )
                    .with_label(format!("this is `{}`", v.ty.display()))
                    .with_help("compare it: `x > 0`, `x != 0`"),
                );
            }
        };
        one(self, &cond.pre);
        if let Post::Expr(e) = &cond.post {
            one(self, e);
        }
    }

    /// `target op= value` on one place.
    fn instruction(
        &mut self,
        target: &Expr,
        place: &Ty,
        op: InstrOp,
        op_span: Span,
        value: &Expr,
        val: &Val,
    ) {
        let (to, from) = (class(place), class(&val.ty));
        let mut bare = value;
        while let ExprKind::Paren(inner) = &bare.kind {
            bare = inner;
        }
        if matches!(bare.kind, ExprKind::Str(_)) {
            self.error(
                Diagnostic::error("E0610", value.span, "a string is not a number")
                    .with_label("a string literal")
                    .with_help("strings only go to `@safe println(...)`"),
            );
            return;
        }
        if to == Class::Unknown || from == Class::Unknown {
            return;
        }
        // A value of the function's float type into a concrete float: run
        // on dual numbers (a derivative call, a Hessian), its dual part
        // would be dropped without a word.
        if let (Ty::Scalar(concrete @ (Scalar::F64 | Scalar::F32)), Ty::Generic(t)) =
            (place, &val.ty)
        {
            self.error(
                Diagnostic::warning(
                    "W0612",
                    value.span,
                    format!(
                        "a value of type `{t}` into the `{concrete}` place `{}`",
                        crate::printer::print_expr(target)
                    ),
                )
                .with_label(format!("this is `{t}`"))
                .with_secondary(target.span, format!("this place is `{concrete}`"))
                .with_help(format!(
                    "when `{t}` is a dual number (derivative calls, Hessians) its derivative part would be lost here: make the place `{t}` (an ancilla `zero({t})`)"
                )),
            );
        }
        let sym = op.as_str(false);
        let mismatch = |what: String, help: String| {
            Diagnostic::error("E0610", value.span, what)
                .with_label(format!("this is `{}`", val.ty.display()))
                .with_secondary(target.span, format!("this place is `{}`", place.display()))
                .with_help(help)
        };
        match (to, from) {
            (Class::Array, _) => self.error(
                Diagnostic::error(
                    "E0610",
                    target.span,
                    format!("`{sym}` on a whole array (`{}`)", place.display()),
                )
                .with_label("an array, not a number")
                .with_help(format!(
                    "change one element (`x[i] {sym} ...`), or every element with the broadcast `.{}`",
                    &sym
                )),
            ),
            (_, Class::Stack) => self.stack_as_value(value),
            (_, Class::Array) => self.error(mismatch(
                format!(
                    "`{sym}` of an array (`{}`) into a number",
                    val.ty.display()
                ),
                "use one element (`v[i]`), or a loop over the elements".into(),
            )),
            (c, Class::Tuple) if c != Class::Tuple => self.error(mismatch(
                format!("a tuple into a place of type `{}`", place.display()),
                "use one item of it, or a tuple target: `(s, c) += sincos(x)`".into(),
            )),
            (Class::Stack | Class::Struct | Class::Tuple, _)
            | (_, Class::Struct | Class::Tuple) => {}
            (Class::Int | Class::Float | Class::Fixed | Class::ULog | Class::Tropical, Class::Complex) => {
                self.error(
                    Diagnostic::error(
                        "E0603",
                        value.span,
                        "a complex value cannot be added to a real place",
                    )
                    .with_label("this value is complex")
                    .with_secondary(target.span, "this place is real")
                    .with_help(
                        "take its part first: `real(...)`, `imag(...)`, `abs(...)` or `angle(...)`",
                    ),
                );
            }
            (Class::Int, Class::Float | Class::Fixed) if !val.rounded => {
                let help = if val.literal {
                    "write an integer literal, or make the place a float".to_string()
                } else {
                    "convert explicitly: `round(...)`, `floor(...)` or `ceil(...)`, or make the place a float".to_string()
                };
                self.error(
                    Diagnostic::error(
                        "E0611",
                        value.span,
                        format!(
                            "a value of type `{}` into the integer place `{}` would be truncated",
                            val.ty.display(),
                            crate::printer::print_expr(target)
                        ),
                    )
                    .with_label(format!("this is `{}`", val.ty.display()))
                    .with_secondary(target.span, format!("this place is `{}`", place.display()))
                    .with_help(help),
                );
            }
            // A fixed-point value into a log number over `Fixed43`.
            (Class::ULog, Class::Fixed) if is_fixed_ulog(place) => {}
            (Class::Int, Class::ULog | Class::Tropical)
            | (Class::Fixed, Class::ULog | Class::Tropical)
            | (Class::ULog, Class::Fixed | Class::Tropical)
            | (Class::Tropical, Class::Fixed | Class::ULog) => self.error(mismatch(
                format!(
                    "a value of type `{}` cannot go into a place of type `{}`",
                    val.ty.display(),
                    place.display()
                ),
                "convert it to a float first: `float(...)`".into(),
            )),
            (Class::Tropical, Class::Tropical) if *place != val.ty => self.error(mismatch(
                format!(
                    "a value of type `{}` into a place of type `{}`",
                    val.ty.display(),
                    place.display()
                ),
                "make both tropical numbers of one float type: `tropical(x)` takes `x`'s type".into(),
            )),
            (Class::Bool, c) if c != Class::Bool => self.error(mismatch(
                format!("a value of type `{}` into a boolean place", val.ty.display()),
                "compare it (`x > 0`) to get a boolean".into(),
            )),
            (c, Class::Bool) if c != Class::Bool && c != Class::Int => self.error(mismatch(
                format!("a boolean into a place of type `{}`", place.display()),
                "branch on it instead: `if (b, ~) ... end`".into(),
            )),
            _ => {}
        }
        if !matches!(op, InstrOp::Xor | InstrOp::Assign) && to == Class::Bool {
            self.error(
                Diagnostic::error(
                    "E0610",
                    op_span,
                    format!("`{}` on a boolean place", op.as_str(false)),
                )
                .with_label("booleans are not added to")
                .with_help("a boolean changes by `⊻=`: `b ⊻= c` flips it where `c` is true"),
            );
        }
        if op == InstrOp::Xor && !matches!(to, Class::Int | Class::Bool | Class::Unknown) {
            self.error(
                Diagnostic::error(
                    "E0610",
                    op_span,
                    format!("`⊻=` on a place of type `{}`", place.display()),
                )
                .with_label("needs integers or booleans")
                .with_help("`⊻=` flips bits; use `+=`/`-=` for numbers"),
            );
        }
    }

    /// A statement call: a `.nil` function's arguments against its
    /// parameters, an instruction's against what it needs.
    fn call(&mut self, call: &Call) {
        // A function parameter passed on whole is checked against the
        // callee's parameter (`function_argument`), not read as a value.
        // Per argument, the values a partial application captures.
        let mut captured_vals: Vec<Vec<Val>> = vec![Vec::new(); call.args.len()];
        let mut args: Vec<Val> = Vec::with_capacity(call.args.len());
        for (i, a) in call.args.iter().enumerate() {
            let val = match self.var_type(a) {
                Some(ty @ Ty::Constructed(Ctor::Fn, _)) if matches!(a.kind, ExprKind::Var(_)) => {
                    self.record(a, Val::of(ty))
                }
                // A partial application is no value; its captured
                // arguments are, checked below against the instance.
                _ => match self.partial(a) {
                    Some(inner) => {
                        captured_vals[i] = inner.into_iter().map(|x| self.expr(x)).collect();
                        Val::of(Ty::Unknown)
                    }
                    None => self.expr(a),
                },
            };
            args.push(val);
        }
        for kw in &call.kwargs {
            self.expr(&kw.value);
        }
        let name = call.callee.name.as_str();
        if let Some(instr) = builtins::instruction(name) {
            self.instruction_args(instr.name, &call.args, &args);
            return;
        }
        let Some((params, mutated)) = self.callees.param_types(name) else {
            return;
        };
        let mut bound: FxHashMap<String, Ty> = FxHashMap::default();
        // The captured arguments of partial applications, with the types
        // their parameters have in this callee's type parameters: the
        // instance takes them as parameters of its own.
        let mut captured: Vec<(Ty, &Expr, Val)> = Vec::new();
        for ((param, arg), vals) in params.iter().zip(&call.args).zip(&captured_vals) {
            let (Ty::Constructed(Ctor::Fn, open), Some(inner)) = (param, self.partial(arg)) else {
                continue;
            };
            let ExprKind::Call {
                callee, args: all, ..
            } = &arg.kind
            else {
                continue;
            };
            let Some((types, _)) = self.callees.param_types(&callee.name) else {
                continue;
            };
            let mut map: Vec<(String, Ty)> = Vec::new();
            let open_types = types
                .iter()
                .zip(all)
                .filter(|(_, a)| crate::values::is_hole(a))
                .map(|(t, _)| t);
            for (t, want) in open_types.zip(open) {
                bind_generics(t, want, &mut map);
            }
            let captured_types = types
                .iter()
                .zip(all)
                .filter(|(_, a)| !crate::values::is_hole(a))
                .map(|(t, _)| t);
            for ((t, x), val) in captured_types.zip(inner).zip(vals) {
                captured.push((substitute_generics(t, &map), x, val.clone()));
            }
        }
        let positional =
            params
                .iter()
                .zip(&call.args)
                .zip(&args)
                .enumerate()
                .map(|(i, ((p, a), v))| {
                    (
                        p.clone(),
                        a,
                        v.clone(),
                        mutated.get(i).copied().unwrap_or(false),
                    )
                });
        let all: Vec<(Ty, &Expr, Val, bool)> = positional
            .chain(captured.into_iter().map(|(t, x, v)| (t, x, v, false)))
            .collect();
        for (param, arg, val, mutable) in &all {
            let (param, arg, val, mutable) = (param, *arg, val, *mutable);
            if self.function_argument(name, param, arg, val) {
                continue;
            }
            let (to, from) = (class(param), class(&val.ty));
            if to == Class::Unknown || from == Class::Unknown {
                continue;
            }
            let wrong = |why: String, help: &str| {
                Diagnostic::error("E0610", arg.span, why)
                    .with_label(format!("this is `{}`", val.ty.display()))
                    .with_help(help.to_string())
            };
            // The parameter's type against the argument's, for the checks
            // below that refuse the argument's type outright.
            let not_this = || {
                format!(
                    "`{name}` takes `{}` here, not `{}`",
                    param.display(),
                    val.ty.display()
                )
            };
            if (to == Class::Array) != (from == Class::Array)
                || (to == Class::Stack) != (from == Class::Stack)
            {
                self.error(wrong(
                    not_this(),
                    "pass a value of the parameter's kind (a number for a number, an array for an array)",
                ));
                continue;
            }
            // Arrays and stacks go by reference: their shapes and element
            // types must be the parameter's (a type parameter binds).
            if matches!(to, Class::Array | Class::Stack) {
                let shape = |t: &Ty| match t {
                    Ty::Constructed(c @ (Ctor::Matrix | Ctor::Csc | Ctor::Stack), _) => Some(*c),
                    _ => None,
                };
                let (pe, ae) = (param.element(), val.ty.element());
                let clash = shape(param) != shape(&val.ty) || !instantiates(pe, ae, &mut bound);
                if clash {
                    self.error(wrong(
                        not_this(),
                        "an array or a stack is passed by reference: its element type must be the parameter's exactly",
                    ));
                }
                continue;
            }
            // A struct or a tuple goes by reference as well, and nothing
            // converts into or out of one: the argument's type must be the
            // parameter's (a type parameter of the struct binds).
            let compound = |c: Class| matches!(c, Class::Struct | Class::Tuple);
            if !matches!(param, Ty::Generic(_)) && (compound(to) || compound(from)) {
                if !instantiates(param, &val.ty, &mut bound) {
                    self.error(wrong(
                        not_this(),
                        "a struct or a tuple is passed by reference: pass one of the parameter's type",
                    ));
                }
                continue;
            }
            // Nor does anything convert between a condition and a number.
            if !matches!(param, Ty::Generic(_)) && (to == Class::Bool) != (from == Class::Bool) {
                self.error(wrong(
                    not_this(),
                    "a `bool` and a number do not convert into each other: compare to make a condition (`x > 0`), or branch to make a number",
                ));
                continue;
            }
            if let Ty::Generic(g) = param {
                if from == Class::Bool && !val.literal {
                    // A condition's value for a type parameter: refused
                    // below (`type_arguments`).
                    bound.entry(g.clone()).or_insert_with(|| val.ty.clone());
                }
                if !is_number(from) {
                    continue;
                }
                match bound.get(g) {
                    Some(prev) if !val.literal && prev != &val.ty => self.error(wrong(
                        format!(
                            "`{name}` takes its `{g}` parameters of one type: `{}` here, `{}` before",
                            val.ty.display(),
                            prev.display()
                        ),
                        "pass values of one type to the same type parameter",
                    )),
                    Some(_) => {}
                    None if !val.literal => {
                        bound.insert(g.clone(), val.ty.clone());
                    }
                    None => {}
                }
                continue;
            }
            if mutable && !val.literal && is_number(to) && !instantiates(param, &val.ty, &mut bound)
            {
                self.error(wrong(
                    format!(
                        "`{name}` changes a `{}` here, and this is `{}`",
                        param.display(),
                        val.ty.display()
                    ),
                    "a changed argument must have the parameter's type exactly",
                ));
                continue;
            }
            if let (Ty::Scalar(concrete @ (Scalar::F64 | Scalar::F32)), Ty::Generic(t)) =
                (param, &val.ty)
            {
                self.error(
                    Diagnostic::warning(
                        "W0612",
                        arg.span,
                        format!("`{name}` takes a `{concrete}` here, and this is `{t}`"),
                    )
                    .with_label(format!("this is `{t}`"))
                    .with_help(format!(
                        "when `{t}` is a dual number (derivative calls, Hessians) its derivative part would be lost here: make `{name}` generic in its float type"
                    )),
                );
            }
            if to == Class::Int && matches!(from, Class::Float | Class::Fixed) && !val.rounded {
                self.error(
                    Diagnostic::error(
                        "E0611",
                        arg.span,
                        format!(
                            "`{name}` takes an integer here; this `{}` would be truncated",
                            val.ty.display()
                        ),
                    )
                    .with_label(format!("this is `{}`", val.ty.display()))
                    .with_help("convert explicitly: `round(...)`, `floor(...)` or `ceil(...)`"),
                );
            } else if is_number(to) && from == Class::Complex && to != Class::Complex {
                self.error(wrong(
                    format!(
                        "`{name}` takes `{}` here, not a complex number",
                        param.display()
                    ),
                    "take its part first: `real(...)`, `imag(...)`, `abs(...)`",
                ));
            }
        }
        self.columns_of_one_matrix(name, &call.args, &mutated);
        self.type_arguments(name, &all, &bound);
        if bound.values().any(|t| class(t) == Class::Int)
            && bound
                .values()
                .all(|t| matches!(t, Ty::Scalar(_)) && t.can_be_type_argument())
        {
            let mut bindings: Vec<(String, Ty)> =
                bound.iter().map(|(g, t)| (g.clone(), t.clone())).collect();
            bindings.sort_by(|a, b| a.0.cmp(&b.0));
            self.out.instantiations.push(Instantiation {
                span: call.callee.span,
                callee: name.to_string(),
                bindings,
            });
        }
        // The literals for type parameters the call binds: passed as the
        // bound type (read by the Rust backend, which converts them).
        for (param, arg, val, _) in &all {
            if let Ty::Generic(g) = param
                && val.literal
                && let Some(ty) = bound.get(g)
            {
                self.out.literal_arguments.push((arg.span, ty.clone()));
            }
        }
        // The reverse pass of this function takes adjoints in its own scalar
        // (`types::adjoint_scalar`); a callee whose type parameter this call
        // binds to another float would need adjoints in that one.
        let scalar = self.adjoint_scalar.clone();
        if self.differentiated {
            let mut others: Vec<(&String, &Ty)> = bound
                .iter()
                .filter(|(_, t)| class(t) == Class::Float && **t != scalar)
                .collect();
            others.sort_by_key(|(g, _)| *g);
            // A callee without type parameters takes its adjoints in its own
            // scalar (`f32` when all its floats are).
            let callee_scalar = (!params.iter().any(mentions_generic)
                && params.iter().any(Ty::has_adjoint))
            .then(|| crate::types::concrete_adjoint_scalar(&params))
            // A generic caller hands an `f64` callee its own scratch adjoints
            // (W0612 says what is lost); only `f32` adjoints on one side
            // and not the other need converting.
            .filter(|s| {
                *s != scalar && (*s == Ty::Scalar(Scalar::F32) || scalar == Ty::Scalar(Scalar::F32))
            });
            // Between a concrete `f64` and a concrete `f32` reverse pass,
            // the adjoints of float scalars and arrays are lent converted.
            // So are those of a generic callee's one type parameter, bound
            // to the other float.
            let lent = |t: &Ty| match t {
                Ty::Scalar(Scalar::F64 | Scalar::F32) | Ty::Generic(_) => true,
                Ty::Slice(inner) => {
                    matches!(
                        **inner,
                        Ty::Scalar(Scalar::F64 | Scalar::F32) | Ty::Generic(_)
                    )
                }
                t => !t.has_adjoint(),
            };
            let lent_to = match (&callee_scalar, others.as_slice()) {
                (Some(s), _) => Some(s.clone()),
                (None, [(_, t)]) if bound.len() == 1 => Some((*t).clone()),
                _ => None,
            };
            if let Some(lent_to) = lent_to
                && matches!(scalar, Ty::Scalar(Scalar::F64 | Scalar::F32))
                && matches!(lent_to, Ty::Scalar(Scalar::F64 | Scalar::F32))
                && params.iter().all(lent)
            {
                self.out.precision_calls.push((call.callee.span, lent_to));
            } else if let Some(callee_scalar) = callee_scalar {
                self.error(
                    Diagnostic::error(
                        "E0701",
                        call.callee.span,
                        format!(
                            "calling `{name}`, whose gradient is in `{}`, from a function whose gradient is in `{}` is not supported by the Rust backend yet",
                            callee_scalar.display(),
                            scalar.display()
                        ),
                    )
                    .with_label("cannot generate its reverse pass")
                    .with_help(format!(
                        "make `{name}` generic in its float type (`where T: Real`), so that it takes adjoints in `{}`",
                        scalar.display()
                    )),
                );
            } else if let Some((g, t)) = others.first() {
                self.error(
                    Diagnostic::error(
                        "E0701",
                        call.callee.span,
                        format!(
                            "calling `{name}` with `{g} = {}` from a function whose gradient is in `{}` is not supported by the Rust backend yet",
                            t.display(),
                            scalar.display()
                        ),
                    )
                    .with_label("cannot generate its reverse pass")
                    .with_help(format!(
                        "pass `{name}` values of `{}`, or give `{name}` concrete parameter types",
                        scalar.display()
                    )),
                );
            }
        }
    }

    /// E0701 for two columns of one matrix (`A[:, j]`, `A[:, k]`) passed to
    /// one call that changes one of them, or whose matrix carries adjoints:
    /// the Rust backend borrows each changed column (and, in a reverse pass,
    /// each column's adjoint) mutably for the whole call.
    fn columns_of_one_matrix(&mut self, name: &str, args: &[Expr], mutated: &[bool]) {
        let columns: Vec<(usize, &str, Option<Ty>)> = args
            .iter()
            .enumerate()
            .filter_map(|(i, a)| {
                let (base, m, _) = a.matrix_column()?;
                Some((i, m, self.var_type(base)))
            })
            .collect();
        for (k, (i, m, ty)) in columns.iter().enumerate() {
            let Some((j, _, _)) = columns[..k].iter().find(|(_, n, _)| n == m) else {
                continue;
            };
            let changed = mutated.get(*i).copied().unwrap_or(false)
                || mutated.get(*j).copied().unwrap_or(false);
            let adjoints = ty.as_ref().is_some_and(Ty::has_adjoint);
            if !(changed || adjoints) {
                continue;
            }
            self.error(
                Diagnostic::error(
                    "E0701",
                    args[*i].span,
                    format!(
                        "two columns of `{m}` passed to `{name}`, which {} is not supported by the Rust backend yet",
                        if changed {
                            "changes one of them,"
                        } else {
                            "gets their adjoints in its reverse pass,"
                        }
                    ),
                )
                .with_label(format!("a second column of `{m}`"))
                .with_secondary(args[*j].span, "the first")
                .with_help(format!(
                    "copy one of the columns into an ancilla vector first (`c ← zeros(T, size({m}, 1))`, `c .+= {m}[:, k]`) and pass that"
                )),
            );
            return;
        }
    }

    /// E0701 for an unsigned integer given to an operation the backends
    /// compute through real-number arithmetic (`nilang::Real`, which has a
    /// negation): negation, `^`, the math functions, `INC`/`DEC`, `NEG`.
    /// Unsigned integers are added, subtracted, multiplied, compared,
    /// swapped and xor-ed.
    fn unsigned_unsupported(&mut self, what: &str, e: &Expr, v: &Val) {
        let Ty::Scalar(s) = &v.ty else { return };
        if !s.is_unsigned() || v.literal {
            return;
        }
        self.error(
            Diagnostic::error(
                "E0701",
                e.span,
                format!("{what} of an unsigned integer is not supported by the Rust backend yet"),
            )
            .with_label(format!("this is `{}`", v.ty.display()))
            .with_help("use a signed integer type (`i64`, `i32`, ...) for values that are negated or given to math functions; unsigned ones are added, multiplied, compared, swapped and xor-ed"),
        );
    }

    /// E0610 for a log or tropical value given to what needs a sign or
    /// an additive unit (`what`: an instruction, negation); whether it was.
    fn signless_unsupported(&mut self, what: &str, e: &Expr, v: &Val, help: &str) -> bool {
        if !matches!(class(&v.ty), Class::ULog | Class::Tropical) {
            return false;
        }
        self.error(
            Diagnostic::error("E0610", e.span, format!("{what} of a `{}`", v.ty.display()))
                .with_label(format!("this is `{}`", v.ty.display()))
                .with_help(help),
        );
        true
    }

    /// E0610 for a boolean given to arithmetic (`what`: the operator or
    /// function): the backends compute it through the runtime's
    /// real-number arithmetic, which `bool` is not part of.
    fn boolean_unsupported(&mut self, what: &str, e: &Expr, v: &Val) {
        if v.ty != Ty::Scalar(Scalar::Bool) {
            return;
        }
        self.error(
            Diagnostic::error("E0610", e.span, format!("{what} of a `bool`"))
                .with_label("this is `bool`")
                .with_help(
                    "a `bool` is not a number in arithmetic: branch on it (`if b ... end`), or keep the number it stands for in a variable of a number type",
                ),
        );
    }

    /// E0610 for each argument that is not a number (an array, a stack, a
    /// boolean); structs are the struct checks' (E0908).
    fn numbers_only(&mut self, name: &str, exprs: &[Expr], args: &[Val]) {
        for (e, v) in exprs.iter().zip(args) {
            let c = class(&v.ty);
            if !(is_number(c) || matches!(c, Class::Unknown | Class::Struct)) {
                self.error(
                    Diagnostic::error(
                        "E0610",
                        e.span,
                        format!("`{name}` needs a number, not `{}`", v.ty.display()),
                    )
                    .with_label(format!("this is `{}`", v.ty.display()))
                    .with_help(match c {
                        Class::Bool => {
                            "a `bool` changes by `⊻=` (`x ⊻= true` flips it) or by `SWAP` with another"
                        }
                        Class::Array => "pass one element (`x[i]`), or loop over the array",
                        _ => "pass a number",
                    }),
                );
            }
        }
    }

    fn instruction_args(&mut self, name: &str, exprs: &[Expr], args: &[Val]) {
        match (name, args) {
            ("PUSH!" | "POP!" | "COPYPUSH!" | "COPYPOP!", [s, x]) => {
                let elem = match (&exprs[0].kind, &s.ty) {
                    (ExprKind::Var(_), Ty::Constructed(Ctor::Stack, a)) if a.len() == 1 => {
                        a[0].clone()
                    }
                    _ if class(&s.ty) == Class::Unknown => return,
                    _ => {
                        self.error(
                            Diagnostic::error("E0620", exprs[0].span, "this is not a stack")
                                .with_label("expected a variable of type `Stack<T>`")
                                .with_help(
                                    "pass a parameter `s::Stack<T>` or an ancilla allocated with `s ← stack(T)`",
                                ),
                        );
                        return;
                    }
                };
                let copy = name.starts_with("COPY");
                let fits = x.ty == elem
                    || class(&x.ty) == Class::Unknown
                    || class(&elem) == Class::Unknown
                    || (copy
                        && matches!(class(&elem), Class::Float | Class::Complex)
                        && class(&x.ty) == Class::Int);
                if !fits {
                    self.error(
                        Diagnostic::error(
                            "E0620",
                            exprs[1].span,
                            format!(
                                "a value of type `{}` on a stack of `{}`",
                                x.ty.display(),
                                elem.display()
                            ),
                        )
                        .with_label("this value has another type")
                        .with_secondary(exprs[0].span, "the stack's element type")
                        .with_help(
                            "a stack holds values of its element type only; convert with a typecast first",
                        ),
                    );
                }
            }
            ("SWAP" | "ROT" | "IROT" | "HADAMARD", [a, b, ..]) => {
                let (ca, cb) = (class(&a.ty), class(&b.ty));
                if ca != Class::Unknown && cb != Class::Unknown && a.ty != b.ty {
                    self.error(
                        Diagnostic::error(
                            "E0610",
                            exprs[1].span,
                            format!(
                                "`{name}` of a `{}` and a `{}`",
                                a.ty.display(),
                                b.ty.display()
                            ),
                        )
                        .with_label(format!("this is `{}`", b.ty.display()))
                        .with_secondary(exprs[0].span, format!("this is `{}`", a.ty.display()))
                        .with_help(format!("`{name}` changes two places of one type")),
                    );
                } else if name != "SWAP"
                    && matches!(
                        ca,
                        Class::Int | Class::Fixed | Class::ULog | Class::Tropical | Class::Complex
                    )
                {
                    let help = if ca == Class::Complex {
                        format!(
                            "`{name}` mixes two real numbers, as in NiLang.jl: apply it to the parts, `{name}(a.re, b.re{rest})` and `{name}(a.im, b.im{rest})`",
                            rest = if name == "HADAMARD" { "" } else { ", θ" }
                        )
                    } else {
                        format!(
                            "`{name}` mixes its two places with irrational factors: it needs floats (`f64`, `f32`, a type parameter)"
                        )
                    };
                    self.error(
                        Diagnostic::error(
                            "E0610",
                            exprs[0].span,
                            format!("`{name}` of `{}` values", a.ty.display()),
                        )
                        .with_label(format!("this is `{}`", a.ty.display()))
                        .with_help(help),
                    );
                }
                // Two booleans may trade places; the others mix numbers.
                let booleans = name == "SWAP" && ca == Class::Bool && cb == Class::Bool;
                if !booleans {
                    self.numbers_only(name, &exprs[..2.min(exprs.len())], args);
                }
            }
            ("NEG" | "INC" | "DEC" | "CONJ" | "MULINT" | "DIVINT", _) => {
                if matches!(name, "NEG" | "INC" | "DEC")
                    && let (Some(e), Some(v)) = (exprs.first(), args.first())
                {
                    self.unsigned_unsupported(&format!("`{name}`"), e, v);
                }
                // Log and tropical numbers have no negation, no one to add
                // and no integer scaling of their own.
                if let (Some(e), Some(v)) = (exprs.first(), args.first())
                    && name != "CONJ"
                    && self.signless_unsupported(
                        &format!("`{name}`"),
                        e,
                        v,
                        "log and tropical numbers change by `*=` and `/=` (see Number systems)",
                    )
                {
                    return;
                }
                self.numbers_only(name, exprs, args);
                if matches!(name, "MULINT" | "DIVINT")
                    && let (Some(e), Some(v)) = (exprs.get(1), args.get(1))
                    && matches!(class(&v.ty), Class::Float | Class::Fixed | Class::Complex)
                {
                    self.error(
                        Diagnostic::error(
                            "E0611",
                            e.span,
                            format!("`{name}` takes an integer factor, not `{}`", v.ty.display()),
                        )
                        .with_label(format!("this is `{}`", v.ty.display()))
                        .with_help("use `*=`/`/=` for a float factor"),
                    );
                }
            }
            _ => {}
        }
    }

    fn record(&mut self, expr: &Expr, val: Val) -> Val {
        self.out.types.push((expr.span, val.ty.clone()));
        val
    }

    fn var_type(&self, expr: &Expr) -> Option<Ty> {
        let id = self.resolution.def_at(expr.span)?;
        self.cast.get(&id).or_else(|| self.defs.get(id)).cloned()
    }

    /// A type named as a value (`zero(T)`, `zeros(f64, n)`).
    fn type_name(&self, expr: &Expr) -> Option<Ty> {
        let ExprKind::Var(name) = &expr.kind else {
            return None;
        };
        if self.resolution.def_at(expr.span).is_some() {
            return None;
        }
        if let Some(s) = Scalar::named(name) {
            return Some(Ty::Scalar(s));
        }
        if name == "Fixed43" {
            return Some(Ty::Constructed(Ctor::Fixed43, vec![]));
        }
        self.function
            .generics
            .iter()
            .any(|g| &g.name.name == name)
            .then(|| instantiate(&Ty::Generic(name.clone()), self.instance))
    }

    fn expr(&mut self, expr: &Expr) -> Val {
        let val = self.expr_inner(expr);
        self.record(expr, val)
    }

    fn expr_inner(&mut self, expr: &Expr) -> Val {
        nilang_syntax::stack::deep(|| {
            match &expr.kind {
                ExprKind::Var(name) => match self.var_type(expr) {
                    Some(Ty::Constructed(Ctor::Fn, _)) => {
                        self.error(
                        Diagnostic::error(
                            "E0623",
                            expr.span,
                            format!("the function `{name}` is not a value"),
                        )
                        .with_label("a function used as a number or an array")
                        .with_help(format!(
                            "call it, `{name}(...)`, or pass it on to a parameter of an `Fn<...>` type"
                        )),
                    );
                        Val::of(Ty::Unknown)
                    }
                    Some(ty) => Val::of(ty),
                    None => match crate::types::constant_type(name) {
                        // `im` is not a literal: a real literal is not promoted
                        // to a complex place.
                        Some(ty) => Val {
                            literal: name != "im",
                            ..Val::of(ty)
                        },
                        None => Val::of(self.type_name(expr).unwrap_or(Ty::Unknown)),
                    },
                },
                ExprKind::Int(_) => Val {
                    literal: true,
                    ..Val::of(Ty::Scalar(Scalar::I64))
                },
                ExprKind::Float(_) => Val {
                    literal: true,
                    ..Val::of(Ty::Scalar(Scalar::F64))
                },
                ExprKind::Bool(_) => Val::of(Ty::Scalar(Scalar::Bool)),
                ExprKind::Str(_) | ExprKind::Error => Val::of(Ty::Unknown),
                ExprKind::Paren(inner) | ExprKind::Adjoint(inner) => self.expr(inner),
                ExprKind::Unary { op, operand } => {
                    let v = self.expr(operand);
                    if *op == UnaryOp::Neg {
                        self.unsigned_unsupported("negating", operand, &v);
                        self.boolean_unsupported("negation", operand, &v);
                        self.signless_unsupported(
                            "negation",
                            operand,
                            &v,
                            "log and tropical numbers have no sign: divide by the value instead (`y /= a` undoes `y *= a`), or negate its float (`-float(a)`)",
                        );
                    }
                    v
                }
                ExprKind::Field { base, field } => {
                    let b = self.expr(base);
                    Val::of(field_type(&b.ty, &field.name))
                }
                ExprKind::Index { base, indices } => {
                    let b = self.expr(base);
                    let mut whole_axis = false;
                    for index in indices {
                        match index {
                            IndexArg::Expr(e) => {
                                self.expr(e);
                            }
                            IndexArg::Range(r) => {
                                whole_axis = true;
                                self.range(r);
                            }
                            IndexArg::Colon(_) => whole_axis = true,
                        }
                    }
                    match class(&b.ty) {
                        // `s[k]`: the k-th value from the bottom, read only.
                        Class::Stack if !whole_axis && indices.len() == 1 => {
                            Val::of(b.ty.element().clone())
                        }
                        Class::Stack => {
                            self.error(
                            Diagnostic::error(
                                "E0620",
                                expr.span,
                                "a stack is indexed by one position",
                            )
                            .with_label("not a single position")
                            .with_help("read one value with `s[k]` (`s[1]` is the bottom, `s[end]` the top), or visit them all with `for v in s`"),
                        );
                            Val::of(Ty::Unknown)
                        }
                        Class::Array if whole_axis => Val::of(Ty::Unknown),
                        Class::Array => Val::of(b.ty.element().clone()),
                        Class::Unknown => Val::of(Ty::Unknown),
                        _ => {
                            self.error(
                                Diagnostic::error(
                                    "E0612",
                                    expr.span,
                                    format!(
                                        "`{}` is `{}`, not an array: it cannot be indexed",
                                        crate::printer::print_expr(base),
                                        b.ty.display()
                                    ),
                                )
                                .with_label("indexed here")
                                .with_secondary(base.span, format!("this is `{}`", b.ty.display()))
                                .with_help(
                                    "drop the index, or make the parameter an array: `x::[f64]`",
                                ),
                            );
                            Val::of(Ty::Unknown)
                        }
                    }
                }
                ExprKind::Binary { op, lhs, rhs } => {
                    let l = self.expr(lhs);
                    let r = self.expr(rhs);
                    if matches!(op, BinaryOp::Pow | BinaryOp::DotPow) {
                        self.unsigned_unsupported("`^`", lhs, &l);
                    }
                    if let Some(sym) = arithmetic_symbol(*op) {
                        self.boolean_unsupported(&format!("`{sym}`"), lhs, &l);
                        self.boolean_unsupported(&format!("`{sym}`"), rhs, &r);
                    }
                    // What complex numbers lack: an order, and with it a
                    // remainder or truncated quotient (Julia has neither; nor
                    // has the interpreter, and the Rust backend has no rule).
                    let lacking = match op {
                        BinaryOp::Lt | BinaryOp::Le | BinaryOp::Gt | BinaryOp::Ge => Some(
                            "complex numbers have no order: compare their parts (`real(z)`, `imag(z)`) or their moduli (`abs(z)`)",
                        ),
                        BinaryOp::Rem | BinaryOp::IntDiv => Some(
                            "a remainder or an integer quotient is defined for real numbers: take it of the parts (`real(z) % m`, `imag(z) % m`)",
                        ),
                        _ => None,
                    };
                    if let Some(help) = lacking {
                        for (side, v) in [(lhs, &l), (rhs, &r)] {
                            if class(&v.ty) == Class::Complex {
                                self.error(
                                    Diagnostic::error(
                                        "E0610",
                                        side.span,
                                        format!("`{}` of a complex number", op.as_str()),
                                    )
                                    .with_label(format!("this is `{}`", v.ty.display()))
                                    .with_help(help),
                                );
                            }
                        }
                    }
                    self.binary(*op, &l, &r)
                }
                ExprKind::Tuple(items) => {
                    let tys = items.iter().map(|e| self.expr(e).ty).collect();
                    Val::of(Ty::Tuple(tys))
                }
                ExprKind::Macro { arg, .. } => {
                    if let Some(a) = arg {
                        self.expr(a);
                    }
                    Val::of(Ty::Unknown)
                }
                ExprKind::Call {
                    callee,
                    args,
                    kwargs,
                    ..
                } => {
                    for kw in kwargs {
                        self.expr(&kw.value);
                    }
                    self.call_expr(&callee.name, args, expr.span)
                }
            }
        })
    }

    fn binary(&mut self, op: BinaryOp, l: &Val, r: &Val) -> Val {
        use BinaryOp::*;
        let literal = l.literal && r.literal;
        match op {
            Eq | Ne | Lt | Le | Gt | Ge | And | Or => Val::of(Ty::Scalar(Scalar::Bool)),
            Div | DotDiv => {
                let ty = match promote(&l.ty, &r.ty) {
                    Ty::Scalar(s) if !s.is_float() && s != Scalar::Bool => Ty::Scalar(Scalar::F64),
                    t => t,
                };
                Val {
                    ty,
                    literal,
                    rounded: false,
                }
            }
            Pow | DotPow if class(&r.ty) == Class::Int => Val {
                ty: l.ty.clone(),
                literal,
                rounded: l.rounded,
            },
            _ => Val {
                ty: promote(&l.ty, &r.ty),
                literal,
                rounded: (l.rounded || l.literal && class(&l.ty) == Class::Int)
                    && (r.rounded || r.literal && class(&r.ty) == Class::Int)
                    && matches!(op, Add | Sub | Mul | Rem | IntDiv),
            },
        }
    }

    fn call_expr(&mut self, name: &str, args: &[Expr], span: Span) -> Val {
        // `zero(T)` and friends name a type: do not type it as a variable.
        let arg_val = |cx: &mut Self, e: &Expr| match cx.type_name(e) {
            Some(ty) => cx.record(e, Val::of(ty)),
            None => cx.expr(e),
        };
        let vals: Vec<Val> = args.iter().map(|a| arg_val(self, a)).collect();
        let first = vals.first().map(|v| v.ty.clone()).unwrap_or(Ty::Unknown);
        let function = PureFn::named(name);
        // The math functions go through real-number arithmetic, which
        // unsigned integers lack (the catalogue's `unsigned`).
        let real_math = function.is_some_and(|f| !f.spec().unsigned);
        if real_math {
            for (a, v) in args.iter().zip(&vals) {
                self.unsigned_unsupported(&format!("`{name}`"), a, v);
            }
        }
        if function.is_some_and(|f| !f.spec().boolean) {
            for (a, v) in args.iter().zip(&vals) {
                self.boolean_unsupported(&format!("`{name}`"), a, v);
            }
        }
        self.call_limits(name, function, args, &vals, span);
        let real_part = |t: &Ty| match t {
            Ty::Constructed(Ctor::Complex, a) if a.len() == 1 => a[0].clone(),
            t => t.clone(),
        };
        // Struct constructions, and calls the resolver reported (E0102).
        let Some(function) = function else {
            let ty = match self.structs.get(name) {
                Some(def) => {
                    let tys: Vec<Ty> = vals.iter().map(|v| v.ty.clone()).collect();
                    crate::structs::construction_type(def, &tys, self.structs)
                }
                None => Ty::Unknown,
            };
            return Val::computed(ty, &vals);
        };
        // The typing rule of each pure function, matched exhaustively: a
        // new one does not compile until it has one. A wrong number of
        // arguments (the resolver's E0108) types as unknown.
        use PureFn::*;
        let n = vals.len();
        let ty = match function {
            Zero | One if n == 1 => first,
            Zeros | Ones if n >= 2 => {
                let ctor = if n == 2 { Ctor::Vec } else { Ctor::Matrix };
                Ty::Constructed(ctor, vec![first])
            }
            // `size(A)` is the tuple of every dimension (`(m, n)` of a
            // matrix), `size(A, d)` one of them.
            Size if n == 1 => match &vals[0].ty {
                Ty::Constructed(Ctor::Matrix | Ctor::Csc, _) => {
                    Ty::Tuple(vec![Ty::Scalar(Scalar::I64); 2])
                }
                Ty::Slice(_) | Ty::Constructed(Ctor::Vec, _) => {
                    Ty::Tuple(vec![Ty::Scalar(Scalar::I64)])
                }
                // Of a stack or a number: refused by `call_limits`.
                _ => Ty::Unknown,
            },
            Length | Size | Nnz | GlobalIndex => Ty::Scalar(Scalar::I64),
            Isempty | Iseven | Isodd => Ty::Scalar(Scalar::Bool),
            Stack if n == 1 => Ty::Constructed(Ctor::Stack, vec![first]),
            Fixed if n == 1 => {
                self.real_argument(name, &args[0], &vals[0]);
                Ty::Constructed(Ctor::Fixed43, vec![])
            }
            Ulog | Tropical if n == 1 => {
                self.real_argument(name, &args[0], &vals[0]);
                crate::types::number_of(name, &vals[0].ty)
            }
            Float if n == 1 => match &vals[0].ty {
                Ty::Constructed(Ctor::ULogarithmic | Ctor::Tropical, a) if a.len() == 1 => {
                    a[0].clone()
                }
                _ => Ty::Scalar(Scalar::F64),
            },
            Abs | Abs2 | Angle | Real | Imag if n == 1 => real_part(&first),
            Floor | Ceil | Round if n == 1 => {
                return Val {
                    ty: first,
                    literal: false,
                    rounded: true,
                };
            }
            Min | Max | Div | Rem | Mod if n == 2 => promote(&vals[0].ty, &vals[1].ty),
            Atan | Logaddexp | Logsubexp if n == 2 => in_floats(promote(&vals[0].ty, &vals[1].ty)),
            // `value` and `unwrap` give their argument back (NiLang.jl's
            // unwrapping of its number types, which are plain here).
            Identity | Conj | Sign | Value | Unwrap if n == 1 => first,
            // The transcendental functions of an integer are floats, as in
            // Julia (`exp(2)` is `7.389...`): the backends compute them so.
            Sqrt | Exp | Log | Sin | Cos | Tan | Sinh | Cosh | Tanh | Asin | Acos | Atan | Inv
                if n == 1 =>
            {
                in_floats(first)
            }
            // Not values of a type decided here: `sincos` (a pair, refused
            // as a value), `tget` (typed by its statement), the prints; and
            // the forms above with another
            // number of arguments.
            Sincos | Value | Unwrap | Tget | Println | Print | Zero | One | Zeros | Ones
            | Stack | Fixed | Ulog | Tropical | Float | Abs | Abs2 | Angle | Real | Imag
            | Floor | Ceil | Round | Min | Max | Atan | Div | Rem | Mod | Logaddexp | Logsubexp
            | Identity | Sqrt | Exp | Log | Sin | Cos | Tan | Sinh | Cosh | Tanh | Asin | Acos
            | Conj | Inv | Sign => Ty::Unknown,
        };
        Val::computed(ty, &vals)
    }

    /// What a pure function's arguments must be beyond their number: the
    /// shape queries take arrays, `stack` a scalar type or a variable, and
    /// the Rust backend lacks some functions of complex numbers (E0701).
    fn call_limits(
        &mut self,
        name: &str,
        function: Option<PureFn>,
        args: &[Expr],
        vals: &[Val],
        span: Span,
    ) {
        match (name, vals) {
            ("length" | "size", [v, ..]) => match class(&v.ty) {
                Class::Array | Class::Unknown => {}
                // How many values a stack holds (NiLang.jl's `length(s)`).
                Class::Stack if name == "length" => {}
                Class::Stack => self.stack_as_value(&args[0]),
                _ => self.error(
                    Diagnostic::error(
                        "E0610",
                        args[0].span,
                        format!("`{name}` of a value of type `{}`", v.ty.display()),
                    )
                    .with_label("not an array")
                    .with_help("`length` and `size` take arrays and matrices"),
                ),
            },
            ("nnz", [v]) if !matches!(v.ty, Ty::Constructed(Ctor::Csc, _) | Ty::Unknown) => self.error(
                Diagnostic::error(
                    "E0610",
                    args[0].span,
                    format!("`nnz` of a value of type `{}`", v.ty.display()),
                )
                .with_label("not a sparse matrix")
                .with_help("`nnz` counts the stored entries of a `Csc{T}` matrix; `length` counts an array's elements"),
            ),
            ("stack", [v]) => {
                let named_type = self.type_name(&args[0]);
                let ok = match (&args[0].kind, named_type) {
                    (ExprKind::Var(_), Some(Ty::Scalar(_) | Ty::Generic(_))) => true,
                    (ExprKind::Var(_), Some(_)) => false,
                    (ExprKind::Var(_), None) => matches!(
                        class(&v.ty),
                        Class::Int
                            | Class::Float
                            | Class::Bool
                            | Class::Complex
                            | Class::Fixed
                            | Class::ULog
                            | Class::Tropical
                            | Class::Struct
                            | Class::Unknown
                    ),
                    _ => false,
                };
                if !ok {
                    self.error(
                        Diagnostic::error("E0620", args[0].span, "`stack` needs a scalar element type")
                            .with_label("not a scalar type, nor a variable of one")
                            .with_help("write `stack(f64)`, `stack(i64)`, `stack(T)`, or `stack(z)` for a stack of `z`'s type"),
                    );
                }
            }
            (_, _)
                if function.is_some_and(|f| f.spec().complex == ComplexArgs::Refused)
                    && vals.iter().any(|v| class(&v.ty) == Class::Complex) =>
            {
                let generated: Vec<String> = PureFn::ALL
                    .iter()
                    .filter(|f| f.spec().complex == ComplexArgs::Generated)
                    .map(|f| format!("`{}`", f.name()))
                    .collect();
                let (last, rest) = generated.split_last().expect("some are generated");
                self.error(
                    Diagnostic::error(
                        "E0701",
                        span,
                        format!("`{name}` of a complex number is not supported by the Rust backend yet"),
                    )
                    .with_label("cannot generate Rust for this")
                    .with_help(format!(
                        "the Rust backend has {} and {last} of complex numbers",
                        rest.join(", ")
                    )),
                )
            }
            _ => {}
        }
    }

    /// E0610 for a type parameter of `callee` that this call binds to a
    /// type that cannot stand for one: the backends compile a type
    /// parameter as a real number type (`T: nilang::Real` in Rust), which
    /// the floats and the signed integers are, and `bool`, the unsigned
    /// integers, complex numbers and the number systems are not.
    fn type_arguments(
        &mut self,
        callee: &str,
        args: &[(Ty, &Expr, Val, bool)],
        bound: &FxHashMap<String, Ty>,
    ) {
        let fixed = std::mem::take(&mut self.fixed_by_functions);
        let mut bad: Vec<(&String, &Ty)> = bound
            .iter()
            .filter(|(g, t)| !t.can_be_type_argument() && !fixed.contains(g))
            .collect();
        bad.sort_by_key(|(g, _)| *g);
        for (g, ty) in bad {
            let binds =
                |p: &Ty| p == &Ty::Generic(g.clone()) || p.element() == &Ty::Generic(g.clone());
            let Some((_, arg, _, _)) = args.iter().find(|(p, ..)| binds(p)) else {
                continue;
            };
            self.error(
                Diagnostic::error(
                    "E0610",
                    arg.span,
                    format!(
                        "`{callee}` is generic in `{g}`, which `{}` cannot stand for",
                        ty.display()
                    ),
                )
                .with_label(format!("this makes `{g}` a `{}`", ty.display()))
                .with_help(format!(
                    "a type parameter stands for a float or a signed integer (f64, f32, i64, i32, i16, i8, isize); write a version of `{callee}` for `{}`",
                    ty.display()
                )),
            );
        }
    }

    /// The captured arguments of `arg` when it is a partial application
    /// (`scale!(_, c)`) of a function.
    fn partial<'e>(&self, arg: &'e Expr) -> Option<Vec<&'e Expr>> {
        if !self.resolution.fn_refs.iter().any(|(s, _)| *s == arg.span) {
            return None;
        }
        match crate::values::passed(arg)? {
            (crate::values::Passed { holes: Some(_), .. }, captured) => Some(captured),
            _ => None,
        }
    }

    /// A function passed by name, or a parameter that takes one
    /// (`crate::values`): E0623 unless a function whose parameter types
    /// are the `Fn` type's meets an `Fn` parameter. True when either side
    /// is a function (nothing else to check).
    fn function_argument(&mut self, callee: &str, param: &Ty, arg: &Expr, val: &Val) -> bool {
        let passed = self
            .resolution
            .fn_refs
            .iter()
            .find(|(s, _)| *s == arg.span)
            .map(|(_, n)| n.clone());
        let given: Option<Vec<Ty>> = match (&passed, &val.ty) {
            (Some(f), _) => Some({
                let all = self
                    .callees
                    .param_types(f)
                    .map(|(p, _)| p)
                    .unwrap_or_default();
                // A partial application: the parameters it leaves open
                // (of another number of arguments: E0108, reported).
                match &arg.kind {
                    ExprKind::Call { args, .. } if args.len() != all.len() => return true,
                    ExprKind::Call { args, .. } => all
                        .into_iter()
                        .zip(args)
                        .filter(|(_, a)| crate::values::is_hole(a))
                        .map(|(t, _)| t)
                        .collect(),
                    _ => all,
                }
            }),
            (None, Ty::Constructed(Ctor::Fn, args)) => Some(args.clone()),
            _ => None,
        };
        let text = crate::printer::print_expr(arg);
        match (param, given) {
            (Ty::Constructed(Ctor::Fn, expected), Some(given)) => {
                let unknown = |ts: &[Ty]| ts.iter().any(|t| matches!(t, Ty::Unknown));
                let fits = fits_function_type(expected, &given);
                if let Some(fixed) = &fits {
                    self.fixed_by_functions.extend(fixed.iter().cloned());
                }
                if fits.is_none() && !unknown(expected) && !unknown(&given) {
                    let show =
                        |ts: &[Ty]| ts.iter().map(Ty::display).collect::<Vec<_>>().join(", ");
                    self.error(
                        Diagnostic::error(
                            "E0623",
                            arg.span,
                            format!(
                                "`{callee}` takes a function of `({})` here, and `{text}` takes `({})`",
                                show(expected),
                                show(&given)
                            ),
                        )
                        .with_label("parameter types differ")
                        .with_help("pass a function whose positional parameters have exactly these types (a generic function's type parameters may have other names, used the same way)"),
                    );
                }
                true
            }
            (Ty::Constructed(Ctor::Fn, _), None) => {
                self.error(
                    Diagnostic::error(
                        "E0623",
                        arg.span,
                        format!("`{callee}` takes a function here, and `{text}` is not one"),
                    )
                    .with_label("not a function")
                    .with_help("pass a `.nil` function by its name, e.g. `map!(square!, xs)`"),
                );
                true
            }
            (_, Some(_)) => {
                self.error(
                    Diagnostic::error(
                        "E0623",
                        arg.span,
                        format!("`{text}` is a function, and `{callee}` takes a value here"),
                    )
                    .with_label("a function where a value is expected")
                    .with_help("functions are passed only to parameters of an `Fn<...>` type"),
                );
                true
            }
            _ => false,
        }
    }

    /// A stack read as a number (`y += s`, a condition, an operand).
    fn stack_as_value(&mut self, value: &Expr) {
        let name = crate::printer::print_expr(value);
        self.error(
            Diagnostic::error("E0620", value.span, format!("the stack `{name}` is not a number"))
                .with_label("a stack used as a value")
                .with_help("use a stack through PUSH!, POP!, COPYPUSH! and COPYPOP!, or pass it to a function that takes a `Stack<T>`"),
        );
    }

    /// The argument of `fixed`, `ulog`, `tropical`: a real number.
    fn real_argument(&mut self, name: &str, arg: &Expr, v: &Val) {
        if matches!(class(&v.ty), Class::Int | Class::Float | Class::Unknown)
            || (name == "ulog" && class(&v.ty) == Class::Fixed)
        {
            return;
        }
        self.error(
            Diagnostic::error(
                "E0610",
                arg.span,
                format!("`{name}` takes a real number, not `{}`", v.ty.display()),
            )
            .with_label(format!("this is `{}`", v.ty.display()))
            .with_help(
                if matches!(class(&v.ty), Class::Fixed | Class::ULog | Class::Tropical) {
                    format!("convert it to a float first: `{name}(float(...))`")
                } else {
                    "pass an integer or a float".to_string()
                },
            ),
        );
    }
}

/// `ULogarithmic<Fixed43>`.
fn is_fixed_ulog(ty: &Ty) -> bool {
    matches!(ty, Ty::Constructed(Ctor::ULogarithmic, a) if matches!(a.as_slice(), [Ty::Constructed(Ctor::Fixed43, _)]))
}

/// Whether a type mentions a type parameter.
fn mentions_generic(ty: &Ty) -> bool {
    match ty {
        Ty::Generic(_) => true,
        Ty::Slice(a) => mentions_generic(a),
        Ty::Constructed(_, a) | Ty::Tuple(a) => a.iter().any(mentions_generic),
        Ty::Struct { args, .. } => args.iter().any(mentions_generic),
        _ => false,
    }
}

/// Whether `actual` is `pattern` (a callee's parameter type) with its type
/// parameters put in, binding them in `bound` on the way (a parameter bound
/// before must meet the same type again). A part not known on either side
/// matches: an error was reported where it came from.
fn instantiates(pattern: &Ty, actual: &Ty, bound: &mut FxHashMap<String, Ty>) -> bool {
    match (pattern, actual) {
        (Ty::Unknown, _) | (_, Ty::Unknown) => true,
        (Ty::Generic(g), _) => match bound.get(g) {
            Some(prev) => prev == actual,
            None => {
                bound.insert(g.clone(), actual.clone());
                true
            }
        },
        (Ty::Slice(a), Ty::Slice(b)) => instantiates(a, b, bound),
        (Ty::Constructed(n, a), Ty::Constructed(m, b)) if n == m && a.len() == b.len() => {
            a.iter().zip(b).all(|(x, y)| instantiates(x, y, bound))
        }
        (
            Ty::Struct {
                name: n, args: a, ..
            },
            Ty::Struct {
                name: m, args: b, ..
            },
        ) if n == m && a.len() == b.len() => {
            a.iter().zip(b).all(|(x, y)| instantiates(x, y, bound))
        }
        (Ty::Tuple(a), Ty::Tuple(b)) if a.len() == b.len() => {
            a.iter().zip(b).all(|(x, y)| instantiates(x, y, bound))
        }
        _ => pattern == actual,
    }
}

/// The type of a transcendental function's value of an argument of type
/// `ty`: an integer's is `f64`, the others their own.
fn in_floats(ty: Ty) -> Ty {
    if ty.is_integer() && ty != Ty::Scalar(Scalar::Bool) {
        Ty::Scalar(Scalar::F64)
    } else {
        ty
    }
}

/// Binds the type parameters of `pattern` (a function's parameter type) to
/// the parts of `actual` in the same places (first binding wins).
fn bind_generics(pattern: &Ty, actual: &Ty, map: &mut Vec<(String, Ty)>) {
    match (pattern, actual) {
        (Ty::Generic(g), _) if !map.iter().any(|(n, _)| n == g) => {
            map.push((g.clone(), actual.clone()));
        }
        (Ty::Generic(_), _) => {}
        (Ty::Slice(a), Ty::Slice(b)) => bind_generics(a, b, map),
        (Ty::Constructed(n, a), Ty::Constructed(m, b)) if n == m => {
            for (x, y) in a.iter().zip(b) {
                bind_generics(x, y, map);
            }
        }
        (Ty::Tuple(a), Ty::Tuple(b)) => {
            for (x, y) in a.iter().zip(b) {
                bind_generics(x, y, map);
            }
        }
        _ => {}
    }
}

/// `ty` with the type parameters `map` binds replaced (unbound ones become
/// `Unknown`).
fn substitute_generics(ty: &Ty, map: &[(String, Ty)]) -> Ty {
    map_generics(ty, &|g| {
        map.iter()
            .find(|(n, _)| n == g)
            .map_or(Ty::Unknown, |(_, t)| t.clone())
    })
}

/// `ty` with the type parameters `bindings` binds replaced, the others
/// kept: a generic function's type at an instantiation.
pub fn instantiate(ty: &Ty, bindings: &[(String, Ty)]) -> Ty {
    map_generics(ty, &|g| {
        bindings
            .iter()
            .find(|(n, _)| n == g)
            .map_or_else(|| Ty::Generic(g.to_string()), |(_, t)| t.clone())
    })
}

/// `ty` with each type parameter `g` replaced by `by(g)`.
fn map_generics(ty: &Ty, by: &dyn Fn(&str) -> Ty) -> Ty {
    match ty {
        Ty::Generic(g) => by(g),
        Ty::Slice(a) => Ty::Slice(Box::new(map_generics(a, by))),
        Ty::Constructed(n, a) => {
            Ty::Constructed(*n, a.iter().map(|x| map_generics(x, by)).collect())
        }
        Ty::Tuple(a) => Ty::Tuple(a.iter().map(|x| map_generics(x, by)).collect()),
        other => other.clone(),
    }
}

/// Whether a function whose open parameters have the types `given` fits an
/// `Fn` parameter of the types `expected`: the same once the type
/// parameters of `given` are renamed one to one into those of `expected`
/// (`square!(y::U, x::U) where U: Real` fits `Fn<T, T>`), or once one
/// side's type parameters are fixed to the other's concrete types, each to
/// one type (`add!(y::f64, x::f64)` fits `Fn<T, T>`, making `T` an `f64` in
/// the instance; `g(y::U, n::U)` does not fit `Fn<f64, i64>`). When it
/// fits: the type parameters of `expected` fixed to concrete types.
fn fits_function_type(expected: &[Ty], given: &[Ty]) -> Option<Vec<String>> {
    /// What each side's type parameters stand for on the other side.
    #[derive(Default)]
    struct Maps {
        expected: Vec<(String, Ty)>,
        given: Vec<(String, Ty)>,
    }
    fn bind(map: &mut Vec<(String, Ty)>, name: &str, to: &Ty) -> bool {
        match map.iter().find(|(n, _)| n == name) {
            Some((_, t)) => t == to,
            None => {
                map.push((name.to_string(), to.clone()));
                true
            }
        }
    }
    fn walk(e: &Ty, g: &Ty, maps: &mut Maps) -> bool {
        nilang_syntax::stack::deep(|| match (e, g) {
            (Ty::Generic(a), Ty::Generic(b)) => {
                bind(&mut maps.expected, a, g) && bind(&mut maps.given, b, e)
            }
            // A concrete function passed where the template's type
            // parameter is: the instance fixes the parameter.
            (Ty::Generic(a), _) => !mentions_generic(g) && bind(&mut maps.expected, a, g),
            // A generic function passed where the template has a type: its
            // parameter is fixed there.
            (_, Ty::Generic(b)) => !mentions_generic(e) && bind(&mut maps.given, b, e),
            (Ty::Slice(a), Ty::Slice(b)) => walk(a, b, maps),
            (Ty::Constructed(n, a), Ty::Constructed(m, b)) => {
                n == m && a.len() == b.len() && a.iter().zip(b).all(|(x, y)| walk(x, y, maps))
            }
            (Ty::Tuple(a), Ty::Tuple(b)) => {
                a.len() == b.len() && a.iter().zip(b).all(|(x, y)| walk(x, y, maps))
            }
            (a, b) => a == b,
        })
    }
    let mut maps = Maps::default();
    let fits = expected.len() == given.len()
        && expected
            .iter()
            .zip(given)
            .all(|(e, g)| walk(e, g, &mut maps));
    fits.then(|| {
        maps.expected
            .into_iter()
            .filter(|(_, t)| !matches!(t, Ty::Generic(_)))
            .map(|(g, _)| g)
            .collect()
    })
}

/// The arithmetic operators, which need numbers (`a + b`, `a .* b`), as
/// written; `None` for comparisons, logic and bit operations.
fn arithmetic_symbol(op: BinaryOp) -> Option<&'static str> {
    use BinaryOp::*;
    match op.scalar() {
        Add | Sub | Mul | Div | IntDiv | Rem | Pow => Some(op.as_str()),
        Or | And | Eq | Ne | Lt | Le | Gt | Ge | BitOr | Xor | BitAnd | Shl | Shr | DotAdd
        | DotSub | DotMul | DotDiv | DotPow => None,
    }
}

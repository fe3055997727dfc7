//! What the backends cannot generate yet (E0701), decided here from the
//! types, so that `nilc check`, the build plugin and the language server
//! report it without running code generation. The backends keep their own
//! E0701 for what slips through (the build still stops with a located
//! error, never with rustc's), and `tests/tests/same_diagnostics.rs` holds
//! the two to the same list on every `.nil` file of the repository.
//!
//! Two sets of rules: the Rust backend's, for every function, and the GPU
//! backend's, for the body of a `@kernel` and of each function it calls.

use crate::ast::*;
use crate::diagnostics::Diagnostic;
use crate::resolve::Resolution;
use crate::ty::{Ctor, Scalar, Ty};
use crate::typeck::ExprTypes;

fn is_number_system(ty: &Ty) -> Option<Ctor> {
    match ty {
        Ty::Constructed(n @ (Ctor::Fixed43 | Ctor::ULogarithmic | Ctor::Tropical), _) => Some(*n),
        _ => None,
    }
}

/// Whether the Rust backend generates the stack instructions and `stack(x)`
/// for stacks of `elem`: integers, floats, booleans, type parameters and
/// complex numbers of floats, type parameters, `i64` or `i32` (the
/// backend's `stack::element_zero`). Not number systems, structs, arrays or
/// stacks.
pub fn stack_element(elem: &Ty) -> bool {
    match elem {
        Ty::Scalar(_) | Ty::Generic(_) | Ty::Unknown => true,
        Ty::Constructed(Ctor::Complex, args) => matches!(
            args.as_slice(),
            [
                Ty::Scalar(Scalar::F64 | Scalar::F32 | Scalar::I64 | Scalar::I32)
                    | Ty::Generic(_)
                    | Ty::Unknown
            ]
        ),
        _ => false,
    }
}

fn is_complex(ty: &Ty) -> bool {
    matches!(ty, Ty::Constructed(Ctor::Complex, _))
}

/// Whether a value of this type exists in WGSL: integers, floats, type
/// parameters (the kernel's float), booleans, and arrays of numbers.
pub fn device_type(ty: &Ty, array_ok: bool) -> bool {
    let number =
        |t: &Ty| matches!(t, Ty::Generic(_)) || matches!(t, Ty::Scalar(s) if *s != Scalar::Bool);
    match ty {
        Ty::Scalar(_) | Ty::Generic(_) | Ty::Unknown => true,
        Ty::Slice(inner) => array_ok && number(inner),
        Ty::Constructed(Ctor::Vec, args) => array_ok && args.len() == 1 && number(&args[0]),
        _ => false,
    }
}

pub struct Limits<'a> {
    resolution: &'a Resolution,
    defs: &'a [Ty],
    exprs: &'a ExprTypes,
    /// The GPU backend's rules apply (a kernel, or a function a kernel
    /// calls).
    device: bool,
    /// Inside the value of a broadcast instruction.
    in_broadcast: bool,
    /// Inside a `@tape` loop.
    tape: usize,
    /// The function's type parameters.
    generics: Vec<String>,
    /// Inside `@safe`, whose calls the resolver does not check.
    in_safe: bool,
    /// Inside an operand of `==` or `!=` (tuples compare there).
    in_compare: bool,
    /// The value of `x *= y ^ p` (or `/=`) on a log number, which the
    /// backend writes as `x.log += p * y.log`.
    log_power: bool,
    pub out: Vec<Diagnostic>,
}

fn e0701(span: Span, what: &str) -> Diagnostic {
    Diagnostic::error(
        "E0701",
        span,
        format!("{what} is not supported by the Rust backend yet"),
    )
    .with_label("cannot generate Rust for this")
    .with_help("the language accepts it, but the Rust backend cannot generate code for it yet")
}

fn gpu0701(span: Span, what: &str) -> Diagnostic {
    Diagnostic::error(
        "E0701",
        span,
        format!("the GPU backend cannot generate {what} yet"),
    )
    .with_label("cannot generate WGSL for this")
    .with_help("write it with scalars and arrays of numbers, or move it out of the kernel")
}

/// The Rust backend's limits in one function (and, with `device`, the GPU
/// backend's in a kernel or a function a kernel calls), with
/// function-relative spans.
pub fn limits(
    function: &Function,
    resolution: &Resolution,
    defs: &[Ty],
    exprs: &ExprTypes,
    device: bool,
) -> Vec<Diagnostic> {
    let mut l = Limits {
        resolution,
        defs,
        exprs,
        device,
        in_broadcast: false,
        tape: 0,
        generics: function
            .generics
            .iter()
            .map(|g| g.name.name.clone())
            .collect(),
        in_safe: false,
        in_compare: false,
        log_power: false,
        out: Vec::new(),
    };
    if device {
        for p in &function.params {
            let ty = l.def_type(p.name.span);
            if !device_type(&ty, true) {
                l.out.push(gpu0701(p.span, "this parameter type"));
            } else if p.constant && function.kernel {
                // A kernel's reverse pass gives every float parameter an
                // adjoint.
                l.out.push(gpu0701(p.span, "a `Const` parameter"));
            }
        }
    }
    // A keyword default is generated at each call that leaves it out (a
    // tuple default has its tuple type refused already).
    for kw in &function.kwparams {
        if !matches!(kw.default.kind, ExprKind::Tuple(_)) {
            l.value(&kw.default);
        }
    }
    l.block(&function.body.stmts);
    l.out
}

impl Limits<'_> {
    fn def_type(&self, span: Span) -> Ty {
        self.resolution
            .def_at(span)
            .and_then(|id| self.defs.get(id).cloned())
            .unwrap_or(Ty::Unknown)
    }

    fn ty(&self, e: &Expr) -> Ty {
        self.exprs.at(e.span).cloned().unwrap_or(Ty::Unknown)
    }

    /// The type of a stack instruction's first argument (a variable).
    fn stack_type(&self, e: &Expr) -> Ty {
        match self.ty(e) {
            Ty::Unknown => self.def_type(e.span),
            t => t,
        }
    }

    fn block(&mut self, stmts: &[Stmt]) {
        for s in stmts {
            self.stmt(s);
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
            } => self.instruction(target, *op, *broadcast, value, stmt.span),
            StmtKind::Call(call) => self.call(call),
            StmtKind::Alloc { value, name } | StmtKind::Dealloc { value, name } => {
                self.value(value);
                let ty = self.def_type(name.span);
                if self.device && !device_type(&ty, false) {
                    self.out.push(gpu0701(stmt.span, "this ancilla"));
                }
                // An ancilla is made from and checked against a zero of
                // the runtime's `Real`, which unsigned integers are not
                // (it needs negation).
                if let Ty::Scalar(t) = ty
                    && t.is_unsigned()
                    && matches!(stmt.kind, StmtKind::Alloc { .. })
                {
                    self.out.push(e0701(
                        name.span,
                        &format!("an ancilla of the unsigned type `{t}`"),
                    ).with_help("use a signed integer type (`i64`, `i32`, `i16`, `i8`) for the ancilla"));
                }
            }
            StmtKind::If {
                branches,
                otherwise,
            } => {
                for b in branches {
                    self.cond(&b.cond);
                    self.block(&b.body.stmts);
                }
                if let Some(o) = otherwise {
                    self.block(&o.stmts);
                }
            }
            StmtKind::While { cond, body } => {
                self.cond(cond);
                self.block(&body.stmts);
            }
            StmtKind::For { range, body, .. } => {
                self.value(&range.start);
                if let Some(s) = &range.step {
                    self.value(s);
                }
                self.value(&range.stop);
                self.block(&body.stmts);
            }
            StmtKind::Begin(b) => self.block(&b.stmts),
            StmtKind::Tape(inner) => {
                self.tape += 1;
                self.stmt(inner);
                self.tape -= 1;
            }
            StmtKind::Inverse(inner)
            | StmtKind::Routine(inner, _)
            | StmtKind::InvCheckOff(inner)
            | StmtKind::InBounds(inner) => self.stmt(inner),
            StmtKind::Unroutine => {}
            StmtKind::Safe(e) => self.safe(e, stmt.span),
            StmtKind::Typecast { value, .. } => {
                self.value(value);
                if self.device {
                    self.out.push(gpu0701(stmt.span, "a typecast"));
                }
            }
        }
    }

    fn cond(&mut self, cond: &Cond) {
        self.value(&cond.pre);
        if let Post::Expr(e) = &cond.post {
            self.value(e);
        }
    }

    fn safe(&mut self, e: &Expr, span: Span) {
        self.in_safe = true;
        self.safe_inner(e, span);
        self.in_safe = false;
    }

    fn safe_inner(&mut self, e: &Expr, span: Span) {
        match &e.kind {
            ExprKind::Call { callee, args, .. }
                if matches!(callee.name.as_str(), "println" | "print") =>
            {
                for a in args {
                    if !matches!(a.kind, ExprKind::Str(_)) {
                        self.value(a);
                    }
                }
            }
            ExprKind::Macro {
                name,
                arg: Some(arg),
            } if name == "@assert" || name == "@show" => self.value(arg),
            _ => self.out.push(e0701(
                span,
                "this `@safe` expression (use println, @assert or @show)",
            )),
        }
    }

    fn instruction(
        &mut self,
        target: &Expr,
        op: InstrOp,
        broadcast: bool,
        value: &Expr,
        span: Span,
    ) {
        let target_ty = self.ty(target);
        if broadcast {
            if self.device {
                self.out.push(gpu0701(span, "a broadcast"));
            }
            if let Some(n) = is_number_system(target_ty.element()) {
                self.out.push(e0701(
                    span,
                    &format!("a broadcast instruction on `{n}` elements (write a `for` loop)"),
                ));
            }
            if self.tape > 0 && matches!(op, InstrOp::Assign | InstrOp::Mul | InstrOp::Div) {
                self.out
                    .push(e0701(span, "a broadcast overwrite in a tape loop"));
            }
            if is_negated(target) {
                self.out
                    .push(e0701(target.span, "a negated broadcast target"));
            } else if !matches!(
                target_ty,
                Ty::Slice(_) | Ty::Constructed(Ctor::Vec | Ctor::Matrix, _) | Ty::Unknown
            ) && !is_column(target)
            {
                self.out
                    .push(e0701(target.span, "a broadcast into a scalar"));
            }
            self.place(target, true);
            self.in_broadcast = true;
            self.value(value);
            self.in_broadcast = false;
            return;
        }
        // `(s, c) op= sincos(x)`: the one tuple target.
        if let ExprKind::Tuple(items) = &target.kind {
            let sincos = matches!(&value.kind, ExprKind::Call { callee, args, .. } if callee.name == "sincos" && args.len() == 1);
            if !sincos || items.len() != 2 {
                self.out.push(e0701(target.span, "this kind of place"));
            } else if self.device {
                self.out.push(gpu0701(target.span, "writing this place"));
            }
            if let ExprKind::Call { args, .. } = &value.kind {
                args.iter().for_each(|a| self.value(a));
            }
            return;
        }
        if self.tape > 0
            && matches!(op, InstrOp::Assign | InstrOp::Mul | InstrOp::Div)
            && (is_negated(target)
                || matches!(
                    target_ty,
                    Ty::Slice(_)
                        | Ty::Constructed(Ctor::Vec | Ctor::Matrix | Ctor::Stack | Ctor::Csc, _)
                ))
        {
            self.out.push(e0701(
                span,
                "an overwrite of this place in a tape loop (only scalars and elements)",
            ));
        }
        // `z' += e` and `z' -= e` are rewritten; any other change of a
        // conjugate view is not.
        let conj_ok = matches!(&target.kind, ExprKind::Adjoint(_))
            && matches!(op, InstrOp::Add | InstrOp::Sub);
        if !conj_ok {
            self.conj_written(target);
        } else if let ExprKind::Adjoint(inner) = &target.kind {
            self.place(inner, false);
            self.value(value);
            if self.device {
                self.out.push(gpu0701(target.span, "writing this place"));
            }
            return;
        }
        if self.device && (is_negated(target) || matches!(target.kind, ExprKind::Adjoint(_))) {
            self.out.push(gpu0701(target.span, "writing this place"));
        }
        self.place(target, false);
        // A string or a tuple as the whole value is the type checker's
        // (E0610).
        let mut bare = value;
        while let ExprKind::Paren(inner) = &bare.kind {
            bare = inner;
        }
        if matches!(bare.kind, ExprKind::Str(_) | ExprKind::Tuple(_)) {
            return;
        }
        self.log_power = matches!(op, InstrOp::Mul | InstrOp::Div)
            && matches!(target_ty, Ty::Constructed(Ctor::ULogarithmic, _))
            && matches!(
                value.kind,
                ExprKind::Binary {
                    op: BinaryOp::Pow,
                    ..
                }
            );
        self.value(value);
        self.log_power = false;
    }

    fn call(&mut self, call: &Call) {
        let name = call.callee.name.as_str();
        if let Some(instr) = crate::builtins::instruction(name) {
            let stack = matches!(instr.rule, crate::builtins::Rule::Stack);
            if stack
                && let Some(s) = call.args.first()
                && let Ty::Constructed(Ctor::Stack, elem) = self.stack_type(s)
                && let [elem] = elem.as_slice()
                && !stack_element(elem)
            {
                self.out.push(e0701(
                    s.span,
                    &format!("`{name}` on a stack of `{}` values", elem.display()),
                ));
            }
            for (i, arg) in call.args.iter().enumerate() {
                let mutated = instr.mutates.contains(&i);
                if mutated && is_negated(arg) {
                    let what = if stack {
                        "a negated argument to a stack instruction"
                    } else {
                        "a negated argument to an instruction"
                    };
                    if !(stack && matches!(instr.name, "COPYPUSH!" | "COPYPOP!")) {
                        self.out.push(e0701(arg.span, what));
                    }
                }
                if mutated {
                    self.conj_written(arg);
                    self.place(arg, false);
                } else {
                    self.value(arg);
                }
            }
            return;
        }
        if self.device && crate::derivatives::Derivative::of(name).is_some() {
            self.out.push(gpu0701(
                call.callee.span,
                "a derivative call (`(∇f)`, `(∂f)`)",
            ));
        }
        for arg in &call.args {
            if is_negated(arg) && arg.is_place() {
                self.out.push(e0701(
                    arg.span,
                    "passing `-x` to a function that changes it",
                ));
            }
            self.conj_written(arg);
            if arg.is_place() {
                // A column `A[:, j]` may be passed whole.
                self.place(arg, true);
            } else {
                self.value(arg);
            }
        }
        for kw in &call.kwargs {
            self.value(&kw.value);
        }
    }

    /// E0701 for a changed place through a conjugate view `z'` of a
    /// complex `z` (other than the instruction target `z' ±= e`).
    fn conj_written(&mut self, place: &Expr) {
        let mut e = place;
        loop {
            match &e.kind {
                ExprKind::Adjoint(inner) => {
                    if is_complex(&self.ty(inner)) {
                        self.out.push(e0701(
                            e.span,
                            "changing the conjugate view `z'` of a complex `z` other than by `+=` or `-=`",
                        ));
                    }
                    return;
                }
                ExprKind::Paren(inner)
                | ExprKind::Unary { operand: inner, .. }
                | ExprKind::Field { base: inner, .. }
                | ExprKind::Index { base: inner, .. } => e = inner,
                _ => return,
            }
        }
    }

    /// A place: its access path against what the backends can write.
    fn place(&mut self, e: &Expr, broadcast_target: bool) {
        nilang_syntax::stack::deep(|| match &e.kind {
            ExprKind::Var(_) => {}
            ExprKind::Paren(inner) | ExprKind::Adjoint(inner) => {
                self.place(inner, broadcast_target)
            }
            ExprKind::Unary { operand, .. } => self.place(operand, broadcast_target),
            ExprKind::Field { base, field } => {
                if let ExprKind::Field { field: f, .. } = &base.kind
                    && matches!(f.name.as_str(), "colptr" | "rowval")
                {
                    self.out
                        .push(e0701(e.span, "changing the structure of a sparse matrix"));
                }
                self.place(base, false);
                self.field(base, &field.name, e.span);
            }
            ExprKind::Index { base, indices } => {
                if let ExprKind::Field { field, .. } = &base.kind
                    && matches!(field.name.as_str(), "colptr" | "rowval")
                {
                    self.out
                        .push(e0701(e.span, "changing the structure of a sparse matrix"));
                }
                self.place(base, false);
                self.index(e, base, indices, !broadcast_target);
            }
            ExprKind::Call { callee, args, .. }
                if matches!(callee.name.as_str(), "real" | "imag") && args.len() == 1 =>
            {
                if callee.name == "imag"
                    && !is_complex(&self.ty(&args[0]))
                    && self.ty(&args[0]) != Ty::Unknown
                {
                    self.out.push(e0701(e.span, "`imag` of a real place"));
                }
                self.place(&args[0], false);
            }
            _ => {}
        })
    }

    fn field(&mut self, base: &Expr, field: &str, span: Span) {
        let ty = self.ty(base);
        let ok = match &ty {
            Ty::Unknown | Ty::Struct { .. } => true,
            Ty::Constructed(Ctor::Complex, _) => matches!(field, "re" | "im"),
            Ty::Constructed(Ctor::ULogarithmic, _) => field == "log",
            Ty::Constructed(Ctor::Tropical, _) => field == "n",
            Ty::Constructed(Ctor::Csc, _) => matches!(field, "colptr" | "rowval" | "nzval"),
            _ => false,
        };
        if !ok {
            self.out
                .push(e0701(span, &format!("the field `{field}` of this value")));
        }
        if self.device {
            self.out.push(gpu0701(span, "this expression"));
        }
    }

    /// `base[indices]`: an element of a vector or a matrix, a column
    /// `A[:, j]` of a matrix; `element` when an element is needed (not a
    /// broadcast operand or target, nor an argument).
    fn index(&mut self, e: &Expr, base: &Expr, indices: &[IndexArg], element: bool) {
        let ty = self.ty(base);
        for i in indices {
            match i {
                IndexArg::Expr(x) => self.value(x),
                IndexArg::Range(r) => {
                    self.value(&r.start);
                    self.value(&r.stop);
                }
                IndexArg::Colon(_) => {}
            }
        }
        let exprs = indices.iter().all(|i| matches!(i, IndexArg::Expr(_)));
        let column = matches!(indices, [IndexArg::Colon(_), IndexArg::Expr(_)]);
        let ok = match (&ty, indices.len()) {
            (Ty::Unknown, _) => true,
            (Ty::Slice(_) | Ty::Constructed(Ctor::Vec, _), 1) => exprs,
            (Ty::Constructed(Ctor::Matrix, _), 2) => exprs || column && !element,
            (Ty::Slice(_) | Ty::Constructed(Ctor::Vec | Ctor::Matrix, _), _) => false,
            // Stacks: E0620; complex numbers: E0612; others E0612 too.
            (Ty::Constructed(Ctor::Stack, _), _) => true,
            (t, _)
                if !matches!(t, Ty::Constructed(Ctor::Csc, _))
                    && !matches!(base.kind, ExprKind::Call { .. }) =>
            {
                true
            }
            _ => {
                self.out.push(e0701(e.span, "indexing this value"));
                return;
            }
        };
        if !ok {
            self.out.push(e0701(e.span, "this kind of indexing here"));
        }
        if self.device
            && !(matches!(ty, Ty::Slice(_) | Ty::Constructed(Ctor::Vec, _))
                && exprs
                && indices.len() == 1)
        {
            self.out.push(gpu0701(e.span, "this indexing"));
        }
    }

    /// A value: expressions the backends can compute.
    fn value(&mut self, e: &Expr) {
        nilang_syntax::stack::deep(|| {
            let ty = self.ty(e);
            if self.device && !device_type(&ty, true) {
                self.out.push(gpu0701(
                    e.span,
                    &format!("a value of type `{}`", ty.display()),
                ));
                return;
            }
            match &e.kind {
                ExprKind::Var(name) => {
                    if self.device && matches!(name.as_str(), "Inf" | "NaN" | "im") {
                        self.out
                            .push(gpu0701(e.span, &format!("the name `{name}` here")));
                    }
                    // A type (or `nothing`) where a value goes (other unknown
                    // names are the resolver's E0101).
                    if self.resolution.def_at(e.span).is_none()
                        && (Scalar::named(name).is_some()
                            || self.generics.contains(name)
                            || matches!(
                                name.as_str(),
                                "nothing"
                                    | "Fixed43"
                                    | "Complex"
                                    | "Vec"
                                    | "Matrix"
                                    | "Csc"
                                    | "Stack"
                                    | "ULogarithmic"
                                    | "Tropical"
                            ))
                    {
                        self.out
                            .push(e0701(e.span, &format!("the name `{name}` here")));
                    }
                }
                ExprKind::Int(_) | ExprKind::Float(_) | ExprKind::Bool(_) | ExprKind::Error => {}
                ExprKind::Tuple(items) if self.in_compare => {
                    items.iter().for_each(|i| self.value(i))
                }
                ExprKind::Str(_) | ExprKind::Tuple(_) | ExprKind::Macro { .. } => {
                    self.out.push(e0701(e.span, "this expression"));
                }
                ExprKind::Paren(inner) => self.value(inner),
                ExprKind::Adjoint(inner) => {
                    if self.device {
                        self.out.push(gpu0701(e.span, "this expression"));
                    }
                    self.value(inner);
                }
                ExprKind::Unary { operand, .. } => self.value(operand),
                ExprKind::Field { base, field } => {
                    self.value(base);
                    self.field(base, &field.name, e.span);
                }
                ExprKind::Index { base, indices } => {
                    if !matches!(
                        base.kind,
                        ExprKind::Var(_)
                            | ExprKind::Field { .. }
                            | ExprKind::Index { .. }
                            | ExprKind::Paren(_)
                    ) {
                        self.out.push(e0701(e.span, "indexing this value"));
                        return;
                    }
                    self.value_base(base);
                    self.index(e, base, indices, !self.in_broadcast);
                }
                ExprKind::Binary { op, lhs, rhs } => {
                    let log_power = std::mem::take(&mut self.log_power);
                    let compare = matches!(op, BinaryOp::Eq | BinaryOp::Ne);
                    let was = std::mem::replace(&mut self.in_compare, compare);
                    self.value(lhs);
                    self.value(rhs);
                    self.in_compare = was;
                    if op.scalar() != *op && !self.in_broadcast {
                        self.out.push(e0701(
                            e.span,
                            "an element-wise operator outside a broadcast instruction",
                        ));
                    }
                    let (lt, rt) = (self.ty(lhs), self.ty(rhs));
                    if let Some(n) = is_number_system(&lt).or(is_number_system(&rt))
                        && !(log_power && *op == BinaryOp::Pow)
                    {
                        use BinaryOp::*;
                        let op = op.scalar();
                        let allowed = match n {
                            Ctor::Fixed43 => {
                                matches!(op, Add | Sub | Mul | Eq | Ne | Lt | Le | Gt | Ge)
                            }
                            Ctor::ULogarithmic => {
                                matches!(op, Add | Sub | Mul | Div | Eq | Ne | Lt | Le | Gt | Ge)
                            }
                            _ => matches!(op, Add | Mul | Div | Eq | Ne | Lt | Le | Gt | Ge),
                        };
                        if !allowed {
                            self.out.push(e0701(
                            e.span,
                            &format!(
                                "the operator `{}` on `{n}` values (convert them with `float(x)` first)",
                                op.as_str()
                            ),
                        ));
                        }
                    }
                }
                ExprKind::Call {
                    callee,
                    args,
                    kwargs,
                    broadcast,
                } => {
                    if *broadcast && !self.in_broadcast {
                        self.out.push(e0701(e.span, "this expression"));
                    }
                    for kw in kwargs {
                        self.value(&kw.value);
                    }
                    self.pure_call(&callee.name, args, e.span, *broadcast);
                }
            }
        })
    }

    /// The base of an indexed read: a variable or a path to an array.
    fn value_base(&mut self, base: &Expr) {
        match &base.kind {
            ExprKind::Var(_) => {}
            _ => self.value(base),
        }
    }

    fn pure_call(&mut self, name: &str, args: &[Expr], span: Span, broadcast: bool) {
        // Constructions of structs are typed by the analysis.
        if let Some(Ty::Struct { .. }) = self.exprs.at(span) {
            args.iter().for_each(|a| self.value(a));
            return;
        }
        let spec = crate::builtins::PureFn::named(name).map(|f| f.spec());
        let known = |arities: fn(&crate::builtins::PureSpec) -> &'static [usize]| {
            spec.is_some_and(|s| arities(&s).contains(&args.len()))
        };
        // Unknown names and wrong numbers of arguments are the resolver's
        // (E0102, E0108, E0208), except in `@safe`, which it does not check.
        let accepted = match crate::builtins::pure_function(name) {
            Some(None) => true,
            Some(Some(n)) => n == args.len(),
            None => false,
        };
        // Type names called as functions and broadcast calls are not
        // checked by the resolver either.
        let type_name = crate::ty::is_builtin_type(name);
        if !known(|s| s.rust) && (accepted || self.in_safe || broadcast || type_name) {
            let mut d = e0701(
                span,
                &format!(
                    "a call of `{name}` with {} arguments in an expression",
                    args.len()
                ),
            );
            if name == "Complex" {
                d = d.with_help(
                    "write the number with `im`: `x + y * im`, or `1.0 + 2.0im` for literals",
                );
            }
            self.out.push(d);
            return;
        }
        if !known(|s| s.rust) {
            return;
        }
        if self.device && !known(|s| s.gpu) {
            self.out.push(gpu0701(span, &format!("a call of `{name}`")));
        }
        let first = args.first().map(|a| self.ty(a)).unwrap_or(Ty::Unknown);
        if let Some(n) = args.iter().find_map(|a| is_number_system(&self.ty(a)))
            && spec.is_some_and(|s| {
                !crate::builtins::number_arguments_generated(s, n == Ctor::Fixed43)
            })
        {
            self.out.push(e0701(
                span,
                &format!("`{name}` of a `{n}` value (convert it with `float(x)` first)"),
            ));
        }
        match (name, args) {
            ("stack", [x]) => {
                let elem = match self.exprs.at(span) {
                    Some(Ty::Constructed(Ctor::Stack, elem)) if elem.len() == 1 => elem[0].clone(),
                    _ => Ty::Unknown,
                };
                match &x.kind {
                    // A name that is no variable: a scalar type or a type
                    // parameter (another type the checks know is E0620;
                    // a struct or an unknown name types as nothing).
                    ExprKind::Var(n) if self.resolution.def_at(x.span).is_none() => {
                        let known = elem != Ty::Unknown
                            || Scalar::named(n).is_some()
                            || self.generics.contains(n);
                        if !known {
                            self.out
                                .push(e0701(x.span, &format!("a stack of `{n}` values")));
                        }
                    }
                    _ if !stack_element(&elem) => {
                        self.out.push(e0701(
                            span,
                            &format!("a stack of `{}` values", elem.display()),
                        ));
                    }
                    _ => {}
                }
            }
            ("zero" | "one", [x]) => {
                // A scalar type, a type parameter, `Fixed43`, or a value.
                let unknown_name = matches!(&x.kind, ExprKind::Var(n)
                    if self.resolution.def_at(x.span).is_none()
                        && Scalar::named(n).is_none()
                        && n != "Fixed43"
                        && !matches!(first, Ty::Generic(_)));
                if unknown_name
                    || matches!(
                        first,
                        Ty::Slice(_)
                            | Ty::Tuple(_)
                            | Ty::Constructed(
                                Ctor::Vec | Ctor::Matrix | Ctor::Csc | Ctor::Stack,
                                _
                            )
                    )
                {
                    self.out
                        .push(e0701(span, &format!("`{name}` of this value")));
                }
                if !matches!(x.kind, ExprKind::Var(_)) {
                    self.value(x);
                }
                return;
            }
            ("zeros" | "ones", [t, dims @ ..]) => {
                let element = matches!(&t.kind, ExprKind::Var(n) if Scalar::named(n).is_some() && self.resolution.def_at(t.span).is_none())
                    || matches!(first, Ty::Generic(_)) && self.resolution.def_at(t.span).is_none();
                if !element {
                    self.out
                        .push(e0701(span, &format!("`{name}` without an element type")));
                }
                dims.iter().for_each(|d| self.value(d));
                return;
            }
            ("size", [x, d]) => {
                let dim = matches!(&d.kind, ExprKind::Int(_));
                let shaped = matches!(
                    self.ty(x),
                    Ty::Slice(_)
                        | Ty::Constructed(Ctor::Vec | Ctor::Matrix | Ctor::Csc, _)
                        | Ty::Unknown
                );
                if !dim || !shaped {
                    self.out.push(e0701(span, "`size` with this dimension"));
                }
                if self.device {
                    self.out.push(gpu0701(span, "a call of `size`"));
                }
                return;
            }
            ("div" | "rem" | "mod" | "imag" | "angle", _) if self.device => {
                self.out
                    .push(gpu0701(span, &format!("an adjoint rule for `{name}`")));
            }
            ("length", [x])
                if self.device
                    && !matches!(self.ty(x), Ty::Slice(_) | Ty::Constructed(Ctor::Vec, _)) =>
            {
                self.out.push(gpu0701(span, "`length` of this value"));
            }
            _ => {}
        }
        if crate::builtins::first_argument_not_read(name) {
            args.iter().skip(1).for_each(|a| self.value(a));
        } else {
            args.iter().for_each(|a| self.value(a));
        }
    }
}

fn is_negated(e: &Expr) -> bool {
    nilang_syntax::stack::deep(|| match &e.kind {
        ExprKind::Unary {
            op: UnaryOp::Neg, ..
        } => true,
        ExprKind::Paren(inner) => is_negated(inner),
        _ => false,
    })
}

fn is_column(e: &Expr) -> bool {
    matches!(&e.kind, ExprKind::Index { indices, .. } if matches!(indices.as_slice(), [IndexArg::Colon(_), IndexArg::Expr(_)]))
}

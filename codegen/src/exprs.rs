//! Expressions in the Rust backend: each becomes Rust code and a kind,
//! with conversions where kinds meet.

use super::*;
use nilang_analysis::builtins::{ComplexArgs, PureFn};

/// An array of one value (`zeros(T, n)`, `ones(T, m, n)`) in parts: the
/// element's code, each length's code and the element kind.
pub(super) struct Fill {
    pub elem: String,
    pub lens: Vec<String>,
    pub kind: Kind,
}

impl Fill {
    /// The code that builds the array, and its kind.
    pub(super) fn array(&self) -> (String, Kind) {
        let elem = &self.elem;
        match self.lens.as_slice() {
            [m, n] => (
                format!(
                    "nilang::ndarray::Array2::from_elem(nilang::ndarray::ShapeBuilder::f((({m}) as usize, ({n}) as usize)), {elem})"
                ),
                Kind::Matrix(Box::new(self.kind.clone())),
            ),
            lens => (
                format!("vec![{elem}; ({}) as usize]", lens[0]),
                Kind::Array(Box::new(self.kind.clone())),
            ),
        }
    }

    /// Its shape as `nilang::CheckFill` takes it: a length, or rows and
    /// columns.
    pub(super) fn shape(&self) -> String {
        match self.lens.as_slice() {
            [m, n] => format!("(({m}) as usize, ({n}) as usize)"),
            lens => format!("({}) as usize", lens[0]),
        }
    }
}

impl Gen<'_> {
    /// A variable read as a value (typeck refuses a stack here, E0620).
    pub(super) fn var(&mut self, name: &str, span: Span) -> (String, Kind) {
        self.var_code(name, span)
    }

    /// The collection of an index `base[...]`, read whole; a stack is
    /// fine here, since `s[k]` is one of its values.
    pub(super) fn indexed(&mut self, base: &Expr) -> (String, Kind) {
        match &base.kind {
            ExprKind::Var(name) => self.var_code(name, base.span),
            _ => self.whole(|g| g.expr(base)),
        }
    }

    /// A variable's code, stacks included (`length(s)` reads one whole).
    fn var_code(&mut self, name: &str, span: Span) -> (String, Kind) {
        if let Some((id, kind)) = self.def_kind(span) {
            let code = match self.access(id) {
                Access::MutRef => format!("(*{})", rust_name(name)),
                Access::Direct => rust_name(name),
            };
            return (code, kind);
        }
        match name {
            "π" | "pi" => ("std::f64::consts::PI".into(), Kind::Float(Scalar::F64)),
            "Inf" => ("f64::INFINITY".into(), Kind::Float(Scalar::F64)),
            "im" => (
                "nilang::Complex::new(0.0_f64, 1.0_f64)".into(),
                Kind::Complex(Box::new(Kind::Float(Scalar::F64))),
            ),
            "NaN" => ("f64::NAN".into(), Kind::Float(Scalar::F64)),
            _ => {
                self.unsupported(span, &format!("the name `{name}` here"));
                ("()".into(), Kind::Unknown)
            }
        }
    }

    /// A type named in an expression (`zero(T)`).
    pub(super) fn type_kind(&self, expr: &Expr) -> Option<Kind> {
        let ExprKind::Var(name) = &expr.kind else {
            return None;
        };
        if self.resolution.def_at(expr.span).is_some() {
            return None;
        }
        if self.generics.contains(name) {
            return Some(Kind::Generic(name.clone()));
        }
        Scalar::named(name).map(|s| kind_of(&Ty::Scalar(s)))
    }

    pub(super) fn expr(&mut self, expr: &Expr) -> (String, Kind) {
        let generated = self.expr_and_kind(expr);
        if self.mode.ad.is_none() && self.bcast.is_none() {
            crate::audit::compare(
                self.sites.function(),
                if self.mode.cast_report {
                    "forward"
                } else {
                    "inverse"
                },
                expr,
                &generated.1,
                self.expr_types.at(expr.span),
            );
        }
        generated
    }

    fn expr_and_kind(&mut self, expr: &Expr) -> (String, Kind) {
        nilang_syntax::stack::deep(|| match &expr.kind {
            ExprKind::Var(name) => {
                let (code, kind) = self.var(name, expr.span);
                match (&mut self.bcast, kind) {
                    (Some(b), Kind::Array(elem)) if !b.two_d => {
                        b.operands.push((format!("{code}.len()"), name.clone()));
                        (format!("{code}[__i]"), *elem)
                    }
                    (Some(b), Kind::Matrix(elem)) if b.two_d => {
                        b.operands
                            .push((format!("({code}.nrows(), {code}.ncols())"), name.clone()));
                        (format!("{code}[[__r, __c]]"), *elem)
                    }
                    (_, kind) => (code, kind),
                }
            }
            ExprKind::Int(text) => (
                format!("{}_i64", text.replace('_', "")),
                Kind::Int(Scalar::I64),
            ),
            ExprKind::Float(text) => {
                let mut t = text.replace('_', "");
                if t.starts_with('.') {
                    t.insert(0, '0');
                }
                if let Some(dot) = t.find('.')
                    && !t[dot + 1..].starts_with(|c: char| c.is_ascii_digit())
                {
                    t.insert(dot + 1, '0');
                }
                (format!("{t}_f64"), Kind::Float(Scalar::F64))
            }
            ExprKind::Bool(b) => (b.to_string(), Kind::Bool),
            ExprKind::Str(s) => (s.clone(), Kind::Unknown),
            ExprKind::Paren(inner) => {
                let (code, kind) = self.expr(inner);
                (format!("({code})"), kind)
            }
            ExprKind::Adjoint(inner) => {
                let (code, kind) = self.expr(inner);
                match kind {
                    Kind::Complex(_) => (format!("nilang::complex::conj({code})"), kind),
                    _ => (code, kind),
                }
            }
            ExprKind::Field { base, field } => {
                let (base_code, base_kind) = self.whole(|g| g.expr(base));
                self.field(base_code, &base_kind, &field.name, false, expr.span)
                    .unwrap_or_else(|| ("()".into(), Kind::Unknown))
            }
            ExprKind::Tuple(items) => {
                let codes: Vec<String> = items.iter().map(|e| self.expr(e).0).collect();
                (format!("({},)", codes.join(", ")), Kind::Unknown)
            }
            ExprKind::Unary { op, operand } => {
                let (code, kind) = self.expr(operand);
                match op {
                    // Integers wrap, as Julia's do.
                    UnaryOp::Neg if matches!(kind, Kind::Int(_)) => {
                        (format!("{code}.wrapping_neg()"), kind)
                    }
                    UnaryOp::Neg => (format!("(-{code})"), kind),
                    UnaryOp::Plus => (code, kind),
                    UnaryOp::Not => (format!("(!{code})"), kind),
                }
            }
            ExprKind::Binary { op, lhs, rhs } => self.binary(*op, lhs, rhs, expr.span),
            ExprKind::Index { base, indices } => {
                if self.bcast.as_ref().is_some_and(|b| !b.two_d)
                    && let Some((m, c, elem)) = self.whole(|g| g.column_of(expr))
                {
                    let text = crate::printer::print_expr(expr);
                    if let Some(b) = &mut self.bcast {
                        b.operands.push((format!("{m}.nrows()"), text));
                    }
                    return (format!("{m}[[__i, {c}]]"), elem);
                }
                let (base_code, base_kind) = self.indexed(base);
                let of = Indexed {
                    base,
                    adjoint: false,
                    place: false,
                };
                self.element(base_code, base_kind, indices, of, expr.span)
                    .unwrap_or_else(|| ("()".into(), Kind::Unknown))
            }
            ExprKind::Call {
                callee,
                args,
                broadcast,
                ..
            } if !*broadcast || self.bcast.is_some() => {
                self.call_expr(&callee.name, args, expr.span)
            }
            _ => {
                self.unsupported(expr.span, "this expression");
                ("()".into(), Kind::Unknown)
            }
        })
    }

    pub(super) fn binary(
        &mut self,
        op: BinaryOp,
        lhs: &Expr,
        rhs: &Expr,
        span: Span,
    ) -> (String, Kind) {
        // A chain `a + b - c + …` (or of `*`, `&&` or `||`) is walked along
        // its left spine without recursion and written as Rust reads it,
        // `(a + b - c + …)`, not `(((a + b) - c) + …)`; past `CHAIN` terms
        // it continues in a `let` of a block: rustc's parser recurses on
        // each operator and overflows its stack near 7,000 terms. The
        // terms are added in the order written, so the rounding is the
        // same.
        const CHAIN: usize = 1000;
        let class = |o: BinaryOp| match o {
            BinaryOp::Add | BinaryOp::Sub => 1,
            BinaryOp::And => 2,
            BinaryOp::Or => 3,
            BinaryOp::Mul => 4,
            _ => 0,
        };
        let mut spine = vec![(op, rhs, span)];
        let mut first = lhs;
        while class(op) != 0
            && let ExprKind::Binary {
                op: inner,
                lhs,
                rhs,
            } = &first.kind
            && class(*inner) == class(op)
        {
            spine.push((*inner, rhs, first.span));
            first = lhs;
        }
        let (mut l, mut lk) = self.expr(first);
        let mut lets = Vec::new();
        for (step, (op, rhs, span)) in spine.into_iter().rev().enumerate() {
            let (r, rk) = self.expr(rhs);
            // After the first step the left operand is this chain so far,
            // rendered by `binary_codes`'s plain branch (neither
            // fixed-point nor refused), so it is `(…)`; unconverted here,
            // its parentheses can come off.
            // Integer `+`, `-`, `*` are method calls (`wrapping_add`).
            let arithmetic = matches!(class(op), 1 | 4);
            let plain = match lk {
                Kind::Fixed | Kind::Unknown => false,
                Kind::Int(_) => !arithmetic,
                _ => !arithmetic || unify(&lk, &rk) == lk,
            };
            if step > 0
                && plain
                && let Some(inner) = l.strip_prefix('(').and_then(|l| l.strip_suffix(')'))
            {
                l = inner.to_string();
            }
            (l, lk) = self.binary_codes(op, (l, lk), (r, rk), span);
            if (step + 1) % CHAIN == 0 {
                let name = self.fresh("chain");
                lets.push(format!("let {name} = {l};"));
                l = name;
            }
        }
        if lets.is_empty() {
            (l, lk)
        } else {
            (format!("{{ {} {l} }}", lets.join(" ")), lk)
        }
    }

    pub(super) fn binary_codes(
        &mut self,
        op: BinaryOp,
        (l, lk): (String, Kind),
        (r, rk): (String, Kind),
        span: Span,
    ) -> (String, Kind) {
        use BinaryOp::*;
        if self.number_operator(op, &lk, &rk, span) {
            return ("()".into(), Kind::Unknown);
        }
        match op {
            And | Or => (format!("({l} {} {r})", op.as_str()), Kind::Bool),
            Eq | Ne | Lt | Le | Gt | Ge => {
                let k = if lk == Kind::Bool && rk == Kind::Bool {
                    Kind::Bool
                } else {
                    unify(&lk, &rk)
                };
                let sym = match op {
                    Eq => "==",
                    Ne => "!=",
                    Lt => "<",
                    Le => "<=",
                    Gt => ">",
                    _ => ">=",
                };
                (
                    format!("({} {sym} {})", convert(l, &lk, &k), convert(r, &rk, &k)),
                    Kind::Bool,
                )
            }
            // Fixed-point intermediates and integers wrap around, as
            // Julia's integers do (and the interpreter's): a debug build's
            // `+` would panic instead.
            Add | Sub | Mul if matches!(unify(&lk, &rk), Kind::Fixed | Kind::Int(_)) => {
                let k = unify(&lk, &rk);
                let method = match op {
                    Add => "wrapping_add",
                    Sub => "wrapping_sub",
                    _ => "wrapping_mul",
                };
                let l = receiver(convert(l, &lk, &k));
                (format!("{l}.{method}({})", convert(r, &rk, &k)), k)
            }
            // An integer divisor of zero is an error, not Rust's panic.
            Rem | IntDiv if matches!(unify(&lk, &rk), Kind::Int(_)) => {
                let k = unify(&lk, &rk);
                let f = if op == Rem { "rem" } else { "div" };
                let at = self.location(span);
                (
                    format!(
                        "nilang::int::{f}({}, {}, {at})?",
                        convert(l, &lk, &k),
                        convert(r, &rk, &k)
                    ),
                    k,
                )
            }
            Add | Sub | Mul | Rem => {
                let k = unify(&lk, &rk);
                let sym = match op {
                    Add => "+",
                    Sub => "-",
                    Mul => "*",
                    _ => "%",
                };
                (
                    format!("({} {sym} {})", convert(l, &lk, &k), convert(r, &rk, &k)),
                    k,
                )
            }
            Div => {
                // Julia's `/` on integers gives a float.
                let mut k = unify(&lk, &rk);
                if let Kind::Int(_) = k {
                    k = Kind::Float(Scalar::F64);
                }
                (
                    format!("({} / {})", convert(l, &lk, &k), convert(r, &rk, &k)),
                    k,
                )
            }
            // `÷` of floats is Julia's `div` (`nilang::div`: the exact
            // quotient truncated; of integers, `nilang::int::div` above).
            IntDiv => {
                let k = unify(&lk, &rk);
                (
                    format!(
                        "nilang::div({}, {})",
                        convert(l, &lk, &k),
                        convert(r, &rk, &k)
                    ),
                    k,
                )
            }
            BitAnd | BitOr | Xor | Shl | Shr => {
                let k = if lk == Kind::Bool && rk == Kind::Bool {
                    Kind::Bool
                } else {
                    unify(&lk, &rk)
                };
                let sym = match op {
                    BitAnd => "&",
                    BitOr => "|",
                    Xor => "^",
                    Shl => "<<",
                    _ => ">>",
                };
                (
                    format!("({} {sym} {})", convert(l, &lk, &k), convert(r, &rk, &k)),
                    k,
                )
            }
            Pow if matches!(lk, Kind::Complex(_)) || matches!(rk, Kind::Complex(_)) => {
                if let (Kind::Complex(_), Kind::Int(_)) = (&lk, &rk) {
                    let n = convert(r, &rk, &Kind::Int(Scalar::I64));
                    return (format!("nilang::complex::powi({l}, {n})"), lk);
                }
                let k = unify(&lk, &rk);
                (
                    format!(
                        "nilang::complex::powc({}, {})",
                        convert(l, &lk, &k),
                        convert(r, &rk, &k)
                    ),
                    k,
                )
            }
            Pow => match rk {
                Kind::Int(_) => (
                    format!(
                        "nilang::Real::powi({l}, {})",
                        convert(r, &rk, &Kind::Int(Scalar::I64))
                    ),
                    lk,
                ),
                _ => {
                    let k = unify(&lk, &rk);
                    (
                        format!(
                            "nilang::Real::powf({}, {})",
                            convert(l, &lk, &k),
                            convert(r, &rk, &k)
                        ),
                        k,
                    )
                }
            },
            DotAdd | DotSub | DotMul | DotDiv | DotPow if self.bcast.is_some() => {
                self.binary_codes(op.scalar(), (l, lk), (r, rk), span)
            }
            DotAdd | DotSub | DotMul | DotDiv | DotPow => {
                self.unsupported(
                    span,
                    "an element-wise operator outside a broadcast instruction",
                );
                ("()".into(), Kind::Unknown)
            }
        }
    }

    /// The parts of `zeros(T, dims...)` / `ones(T, dims...)` (one or two
    /// dimensions); `None` after reporting a missing element type.
    pub(super) fn fill(&mut self, name: &str, t: &Expr, dims: &[Expr], span: Span) -> Option<Fill> {
        let Some(kind) = self.type_kind(t) else {
            self.unsupported(span, "`zeros` without an element type");
            return None;
        };
        let elem = match &kind {
            Kind::Bool => (name == "ones").to_string(),
            k => format!(
                "nilang::{}::<{}>()",
                if name == "zeros" { "zero" } else { "one" },
                rust_scalar(k).unwrap_or_default()
            ),
        };
        let int = Kind::Int(Scalar::I64);
        let lens = dims
            .iter()
            .map(|d| self.whole(|g| g.value_as(d, &int)))
            .collect();
        Some(Fill { elem, lens, kind })
    }

    /// A call of a pure function in an expression: matched on the
    /// catalogue's [`PureFn`] with no catch-all arm, so a new pure function
    /// does not compile until it is written here or marked as not
    /// generated (the analysis refuses those, E0701, from the catalogue's
    /// `rust` arities).
    pub(super) fn call_expr(&mut self, name: &str, args: &[Expr], span: Span) -> (String, Kind) {
        let Some(function) = PureFn::named(name) else {
            return self.not_generated(name, span);
        };
        if self.number_math(name, args, span) {
            return ("()".into(), Kind::Unknown);
        }
        use PureFn::*;
        match function {
            GlobalIndex => match args {
                [] => ("global_index".into(), Kind::Int(Scalar::I64)),
                _ => self.not_generated(name, span),
            },
            Identity | Value | Unwrap => match args {
                [x] => self.expr(x),
                _ => self.not_generated(name, span),
            },
            Real | Imag | Conj | Angle => match args {
                [x] => self.complex_part(function, x),
                _ => self.not_generated(name, span),
            },
            Atan => match args {
                [x] => self.math("atan", x),
                [y, x] => {
                    let (yc, yk) = self.expr(y);
                    let (xc, xk) = self.expr(x);
                    let k = float_kind(&unify(&yk, &xk));
                    (
                        format!(
                            "nilang::Real::atan2({}, {})",
                            convert(yc, &yk, &k),
                            convert(xc, &xk, &k)
                        ),
                        k,
                    )
                }
                _ => self.not_generated(name, span),
            },
            Abs => self.unary_math(Abs, "abs", args, span),
            Abs2 => self.unary_math(Abs2, "abs2", args, span),
            Sqrt => self.unary_math(Sqrt, "sqrt", args, span),
            Exp => self.unary_math(Exp, "exp", args, span),
            Log => self.unary_math(Log, "ln", args, span),
            Sin => self.unary_math(Sin, "sin", args, span),
            Cos => self.unary_math(Cos, "cos", args, span),
            Tan => self.unary_math(Tan, "tan", args, span),
            Sinh => self.unary_math(Sinh, "sinh", args, span),
            Cosh => self.unary_math(Cosh, "cosh", args, span),
            Tanh => self.unary_math(Tanh, "tanh", args, span),
            Asin => self.unary_math(Asin, "asin", args, span),
            Acos => self.unary_math(Acos, "acos", args, span),
            Inv => self.unary_math(Inv, "inv", args, span),
            Sign => self.unary_math(Sign, "signum", args, span),
            Floor => self.unary_math(Floor, "floor", args, span),
            Ceil => self.unary_math(Ceil, "ceil", args, span),
            Round => self.unary_math(Round, "round", args, span),
            Min | Max => match args {
                [a, b] => {
                    let (ac, ak) = self.expr(a);
                    let (bc, bk) = self.expr(b);
                    let k = unify(&ak, &bk);
                    (
                        format!(
                            "nilang::Real::{name}({}, {})",
                            convert(ac, &ak, &k),
                            convert(bc, &bk, &k)
                        ),
                        k,
                    )
                }
                _ => self.not_generated(name, span),
            },
            // Of a fixed-point, log or tropical number: `number_call`.
            Zero | One => match (self.number_call(name, args), args) {
                (Some(r), _) => r,
                (None, [x]) => self.zero_or_one(name, x, span),
                (None, _) => self.not_generated(name, span),
            },
            Zeros | Ones => match args {
                [t, dims @ ..] if matches!(dims.len(), 1 | 2) => {
                    match self.fill(name, t, dims, span) {
                        Some(fill) => fill.array(),
                        None => ("()".into(), Kind::Unknown),
                    }
                }
                _ => self.not_generated(name, span),
            },
            Length | Size | Nnz => self.shape_call(function, args, span),
            Div | Rem | Mod => match args {
                [a, b] => {
                    let (ac, ak) = self.expr(a);
                    let (bc, bk) = self.expr(b);
                    let k = unify(&ak, &bk);
                    let (ac, bc) = (convert(ac, &ak, &k), convert(bc, &bk, &k));
                    let code = match function {
                        // Julia's `div` truncates the quotient; of integers
                        // (`nilang::int`), a zero divisor is an error.
                        Div if !matches!(k, Kind::Int(_)) => {
                            format!("nilang::div({ac}, {bc})")
                        }
                        Div | Rem | Mod if matches!(k, Kind::Int(_)) => {
                            let f = match function {
                                Div => "div",
                                Rem => "rem",
                                _ => "modulo",
                            };
                            let at = self.location(span);
                            format!("nilang::int::{f}({ac}, {bc}, {at})?")
                        }
                        Rem => format!("({ac} % {bc})"),
                        // Julia's `mod`, exact (`nilang::modulo`).
                        _ => format!("nilang::modulo({ac}, {bc})"),
                    };
                    (code, k)
                }
                _ => self.not_generated(name, span),
            },
            Stack => match args {
                [t] => self.stack_new(t, span),
                _ => self.not_generated(name, span),
            },
            // The number systems' conversions and Gaussian logarithms.
            Fixed | Ulog | Tropical | Float | Logaddexp | Logsubexp => {
                match self.number_call(name, args) {
                    Some(r) => r,
                    None => self.not_generated(name, span),
                }
            }
            // Not generated by the Rust backend (the catalogue's `rust` is
            // empty, so the analysis refuses them).
            Sincos | Tget | Isempty | Iseven | Isodd | Println | Print => {
                self.not_generated(name, span)
            }
        }
    }

    /// E0701 for a call the Rust backend does not generate.
    fn not_generated(&mut self, name: &str, span: Span) -> (String, Kind) {
        self.unsupported(span, &format!("a call of `{name}` in an expression"));
        ("()".into(), Kind::Unknown)
    }

    /// `real`, `imag`, `conj` and `angle` of a complex or real number.
    fn complex_part(&mut self, function: PureFn, x: &Expr) -> (String, Kind) {
        let (code, kind) = self.expr(x);
        match (function, kind) {
            (PureFn::Real, Kind::Complex(inner)) => (format!("{code}.re"), *inner),
            (PureFn::Imag, Kind::Complex(inner)) => (format!("{code}.im"), *inner),
            (PureFn::Conj, k @ Kind::Complex(_)) => (format!("nilang::complex::conj({code})"), k),
            (PureFn::Angle, Kind::Complex(inner)) => {
                (format!("nilang::complex::angle({code})"), *inner)
            }
            (PureFn::Real | PureFn::Conj, k) => (code, k),
            (PureFn::Imag, k) => {
                let s = rust_scalar(&k).unwrap_or_else(|| "f64".into());
                (format!("nilang::zero::<{s}>()"), k)
            }
            (_, k) => {
                // angle of a real number: 0 or π.
                let kf = float_kind(&k);
                let s = rust_scalar(&kf).unwrap_or_else(|| "f64".into());
                let x = convert(code, &k, &kf);
                (
                    format!(
                        "{{ let __x: {s} = {x}; if __x < nilang::zero::<{s}>() {{ <{s} as nilang::Real>::from_f64(std::f64::consts::PI) }} else {{ nilang::zero::<{s}>() }} }}"
                    ),
                    kf,
                )
            }
        }
    }

    /// The function of one number `function`, written with the
    /// `nilang::Real` method `m` (or `nilang::complex`'s for the complex
    /// numbers the catalogue says it takes, or `nilang::fixed`'s).
    fn unary_math(
        &mut self,
        function: PureFn,
        m: &'static str,
        args: &[Expr],
        span: Span,
    ) -> (String, Kind) {
        let name = function.name();
        let [x] = args else {
            return self.not_generated(name, span);
        };
        let (code, kind) = self.expr(x);
        if let Kind::Complex(inner) = &kind {
            if function.spec().complex != ComplexArgs::Generated {
                self.unsupported(span, &format!("`{name}` of a complex number"));
                return ("()".into(), Kind::Unknown);
            }
            // The modulus and its square are real.
            let kind = match function {
                PureFn::Abs | PureFn::Abs2 => (**inner).clone(),
                _ => kind,
            };
            return (format!("nilang::complex::{m}({code})"), kind);
        }
        // `exp` and `log` of a fixed-point number: in f64, rounded
        // back; out of range is an overflow error when checked.
        if kind == Kind::Fixed && matches!(function, PureFn::Exp | PureFn::Log) {
            return if self.mode.checks {
                let location = self.location(span);
                let what = format!(
                    "`{}` must be within the range of Fixed43",
                    crate::printer::print_expr(&Expr {
                        kind: ExprKind::Call {
                            callee: Ident {
                                name: name.to_string(),
                                span,
                            },
                            args: args.to_vec(),
                            kwargs: Vec::new(),
                            broadcast: false,
                        },
                        span,
                    })
                );
                (
                    format!("nilang::fixed::{m}_at({code}, {location}, {what:?})?"),
                    Kind::Fixed,
                )
            } else {
                (format!("nilang::fixed::{m}({code})"), Kind::Fixed)
            };
        }
        // `abs` keeps integers integral; the rest work on floats.
        if matches!(function, PureFn::Abs | PureFn::Abs2 | PureFn::Sign) {
            (format!("nilang::Real::{m}({code})"), kind)
        } else {
            let k = float_kind(&kind);
            (
                format!("nilang::Real::{m}({})", convert(code, &kind, &k)),
                k,
            )
        }
    }

    /// `zero(x)` and `one(x)` of a scalar, boolean or complex type or value.
    fn zero_or_one(&mut self, name: &str, x: &Expr, span: Span) -> (String, Kind) {
        let kind = match self.type_kind(x) {
            Some(k) => k,
            None => self.whole(|g| g.expr(x)).1,
        };
        let scalar = |k: &Kind| rust_scalar(k).map(|s| format!("nilang::{name}::<{s}>()"));
        match &kind {
            Kind::Bool => ((name == "one").to_string(), Kind::Bool),
            Kind::Complex(inner) => match (scalar(inner), rust_scalar(inner)) {
                (Some(v), Some(s)) => (
                    format!("nilang::Complex::new({v}, nilang::zero::<{s}>())"),
                    kind,
                ),
                _ => {
                    self.unsupported(span, &format!("`{name}` of this value"));
                    ("()".into(), Kind::Unknown)
                }
            },
            k if k.is_scalar_like() => (scalar(k).unwrap_or_default(), kind),
            _ => {
                self.unsupported(span, &format!("`{name}` of this value"));
                ("()".into(), Kind::Unknown)
            }
        }
    }

    /// `length`, `size` and `nnz`.
    fn shape_call(&mut self, function: PureFn, args: &[Expr], span: Span) -> (String, Kind) {
        match (function, args) {
            (PureFn::Length, [x]) => {
                let (code, kind) = match &x.kind {
                    ExprKind::Var(name)
                        if matches!(self.def_kind(x.span), Some((_, Kind::Stack(_)))) =>
                    {
                        self.var_code(name, x.span)
                    }
                    _ => self.whole(|g| g.expr(x)),
                };
                let code = match kind {
                    Kind::Csc(_) => format!("(({code}.rows() * {code}.cols()) as i64)"),
                    _ => format!("({code}.len() as i64)"),
                };
                (code, Kind::Int(Scalar::I64))
            }
            (PureFn::Size, [x]) => {
                let (code, kind) = self.whole(|g| g.expr(x));
                let code = match kind {
                    Kind::Matrix(_) => format!("({code}.nrows() as i64, {code}.ncols() as i64)"),
                    Kind::Csc(_) => format!("({code}.rows() as i64, {code}.cols() as i64)"),
                    _ => format!("({code}.len() as i64,)"),
                };
                (code, Kind::Unknown)
            }
            (PureFn::Size, [x, d]) => {
                let (code, kind) = self.whole(|g| g.expr(x));
                let dim = match &d.kind {
                    ExprKind::Int(t) => t.parse::<u32>().ok(),
                    _ => None,
                };
                let code = match (kind, dim) {
                    (Kind::Matrix(_), Some(1)) => format!("({code}.nrows() as i64)"),
                    (Kind::Matrix(_), Some(2)) => format!("({code}.ncols() as i64)"),
                    (Kind::Csc(_), Some(1)) => format!("({code}.rows() as i64)"),
                    (Kind::Csc(_), Some(2)) => format!("({code}.cols() as i64)"),
                    (Kind::Array(_), Some(1)) => format!("({code}.len() as i64)"),
                    (Kind::Array(_) | Kind::Matrix(_) | Kind::Csc(_), Some(_)) => "1_i64".into(),
                    _ => {
                        self.unsupported(span, "`size` with this dimension");
                        "()".into()
                    }
                };
                (code, Kind::Int(Scalar::I64))
            }
            (PureFn::Nnz, [x]) => {
                let (code, _) = self.whole(|g| g.expr(x));
                (format!("({code}.nnz() as i64)"), Kind::Int(Scalar::I64))
            }
            _ => self.not_generated(function.name(), span),
        }
    }

    pub(super) fn math(&mut self, method: &str, x: &Expr) -> (String, Kind) {
        let (code, kind) = self.expr(x);
        let k = float_kind(&kind);
        (
            format!("nilang::Real::{method}({})", convert(code, &kind, &k)),
            k,
        )
    }
}

/// `code` as the receiver of a method call: as it is when it is a postfix
/// expression (a name, a literal, a call, an index, a method chain, or a
/// whole parenthesized expression), in parentheses otherwise (`x as i32`,
/// `-n`, `*a`): what matters is what stands outside every bracket.
fn receiver(code: String) -> String {
    let mut depth = 0i32;
    let postfix = code.chars().all(|c| {
        match c {
            '(' | '[' => depth += 1,
            ')' | ']' => depth -= 1,
            _ => {}
        }
        depth > 0
            || matches!(c, ')' | ']')
            || c.is_ascii_alphanumeric()
            || matches!(c, '_' | ':' | '.')
    });
    if postfix { code } else { format!("({code})") }
}

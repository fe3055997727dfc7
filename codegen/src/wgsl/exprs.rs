//! Expressions and places in WGSL, and where adjoints of places go.

use super::*;
use nilang_analysis::builtins::PureFn;

impl W<'_> {
    /// A variable: its code and kind.
    pub(super) fn var(&mut self, name: &str, span: Span) -> (String, K) {
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
    pub(super) fn var_bar(&self, span: Span) -> Option<String> {
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

    pub(super) fn conv(&self, code: String, from: K, to: K) -> String {
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

    pub(super) fn value_as(&mut self, e: &Expr, k: K) -> String {
        let (code, from) = self.expr(e);
        self.conv(code, from, k)
    }

    pub(super) fn unify(&self, a: K, b: K) -> K {
        match (a, b) {
            (K::Float(f), _) | (_, K::Float(f)) => K::Float(f),
            (K::LitFloat, _) | (_, K::LitFloat) => K::Float(self.float),
            (K::Int, _) | (_, K::Int) => K::Int,
            (K::LitInt, K::LitInt) => K::LitInt,
            (K::Bool, K::Bool) => K::Bool,
            _ => K::Unknown,
        }
    }

    pub(super) fn index(&mut self, e: &Expr) -> String {
        let i = self.value_as(e, K::Int);
        format!("({i}) - 1")
    }

    pub(super) fn expr(&mut self, e: &Expr) -> (String, K) {
        nilang_syntax::stack::deep(|| match &e.kind {
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
        })
    }

    pub(super) fn binary(
        &mut self,
        op: BinaryOp,
        lhs: &Expr,
        rhs: &Expr,
        span: Span,
    ) -> (String, K) {
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
                // A left-nested chain of one precedence (`a + b - c`,
                // `a * b * c`) is written flat, as WGSL reads it (from the
                // left): naga refuses an expression nested 200 deep, so a
                // nested sum of 200 terms would fail at pipeline creation.
                let class =
                    |o: BinaryOp| matches!(o, Add | Sub) as u8 + 2 * matches!(o, Mul | Rem) as u8;
                let a = match &lhs.kind {
                    ExprKind::Binary { op: inner, .. }
                        if class(*inner) == class(op) && a == l && a.starts_with('(') =>
                    {
                        a[1..a.len() - 1].to_string()
                    }
                    _ => a,
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
                    // `÷` is Julia's `div`: the quotient truncated.
                    _ => (format!("trunc({a} / {b})"), k),
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

    /// A call of a pure function in an expression: matched on the
    /// catalogue's [`PureFn`] with no catch-all arm (what is not written
    /// here the analysis refuses on the GPU, from the catalogue's `gpu`
    /// arities).
    pub(super) fn call_expr(&mut self, name: &str, args: &[Expr], span: Span) -> (String, K) {
        let Some(function) = PureFn::named(name) else {
            return self.not_generated(name, span);
        };
        let fl = self.float;
        use PureFn::*;
        match function {
            GlobalIndex => match args {
                [] if self.entry => ("nil_index".into(), K::Int),
                _ => self.not_generated(name, span),
            },
            Identity | Value | Unwrap | Real | Conj => match args {
                [x] => self.expr(x),
                _ => self.not_generated(name, span),
            },
            Imag => match args {
                [x] => {
                    let (_, k) = self.expr(x);
                    (self.conv("0".into(), K::LitInt, k), k)
                }
                _ => self.not_generated(name, span),
            },
            Abs => match args {
                [x] => {
                    let (c, k) = self.expr(x);
                    (format!("abs({c})"), k)
                }
                _ => self.not_generated(name, span),
            },
            Abs2 => match args {
                [x] => {
                    let (c, k) = self.expr(x);
                    (format!("({c} * {c})"), k)
                }
                _ => self.not_generated(name, span),
            },
            Sqrt | Floor | Ceil | Round | Sign => {
                self.float_math(WgslMath::Builtin, name, args, span)
            }
            Exp | Log | Sin | Cos | Tan | Sinh | Cosh | Tanh | Asin | Acos => {
                self.float_math(WgslMath::Transcendental, name, args, span)
            }
            Atan => match args {
                [_] => self.float_math(WgslMath::Transcendental, name, args, span),
                [y, x] => {
                    let (a, ak) = self.expr(y);
                    let (b, bk) = self.expr(x);
                    let fk = match self.unify(ak, bk) {
                        K::Float(f) => K::Float(f),
                        _ => K::Float(fl),
                    };
                    let args = format!("{}, {}", self.conv(a, ak, fk), self.conv(b, bk, fk));
                    (trans("atan2", &args, wgsl_ty(fk)), fk)
                }
                _ => self.not_generated(name, span),
            },
            Inv => match args {
                [x] => {
                    let (c, k) = self.expr(x);
                    let fk = match k {
                        K::Float(f) => K::Float(f),
                        _ => K::Float(fl),
                    };
                    let c = self.conv(c, k, fk);
                    (format!("({}(1) / {c})", wgsl_ty(fk)), fk)
                }
                _ => self.not_generated(name, span),
            },
            Min | Max => match args {
                [a, b] => {
                    let (x, xk) = self.expr(a);
                    let (y, yk) = self.expr(b);
                    let k = self.unify(xk, yk);
                    (
                        format!("{name}({}, {})", self.conv(x, xk, k), self.conv(y, yk, k)),
                        k,
                    )
                }
                _ => self.not_generated(name, span),
            },
            Div | Rem | Mod => match args {
                [a, b] => {
                    let (x, xk) = self.expr(a);
                    let (y, yk) = self.expr(b);
                    let k = self.unify(xk, yk);
                    let (x, y) = (self.conv(x, xk, k), self.conv(y, yk, k));
                    let int = matches!(k, K::Int | K::LitInt);
                    let code = match (function, int) {
                        (Div, true) => format!("({x} / {y})"),
                        (Div, false) => format!("trunc({x} / {y})"),
                        (Rem, _) => format!("({x} % {y})"),
                        (_, true) => format!("((({x} % {y}) + {y}) % {y})"),
                        (_, false) => format!("({x} - {y} * floor({x} / {y}))"),
                    };
                    (code, k)
                }
                _ => self.not_generated(name, span),
            },
            Zero | One => match args {
                [x] => {
                    let k = match &x.kind {
                        // A type: `zero(T)`, `one(f64)`.
                        ExprKind::Var(t) if self.def_of(x.span).is_none() => {
                            match Scalar::named(t) {
                                Some(Scalar::F32) => K::Float("f32"),
                                Some(Scalar::F64) => K::Float("f64"),
                                Some(Scalar::Bool) => K::Bool,
                                Some(_) => K::Int,
                                None => K::Float(fl),
                            }
                        }
                        _ => self.expr(x).1,
                    };
                    let k = match k {
                        K::Array(e) => elem_kind(e),
                        K::LitFloat => K::Float(fl),
                        K::LitInt => K::Int,
                        k => k,
                    };
                    let v = if function == Zero { "0" } else { "1" };
                    (format!("{}({v})", wgsl_ty(k)), k)
                }
                _ => self.not_generated(name, span),
            },
            Length => match args {
                [x] if self.entry => {
                    let (c, k) = self.expr(x);
                    if matches!(k, K::Array(_)) {
                        (format!("i32(arrayLength(&{c}))"), K::Int)
                    } else {
                        self.unsupported(span, "`length` of this value");
                        ("0".into(), K::Unknown)
                    }
                }
                _ => self.not_generated(name, span),
            },
            Iseven | Isodd => match args {
                [x] => {
                    let c = self.value_as(x, K::Int);
                    let r = if function == Iseven { 0 } else { 1 };
                    (format!("(abs({c} % 2) == {r})"), K::Bool)
                }
                _ => self.not_generated(name, span),
            },
            // Not generated for the GPU (the catalogue's `gpu` is empty, so
            // the analysis refuses them there).
            Sincos | Angle | Zeros | Ones | Stack | Size | Nnz | Tget | Isempty | Println
            | Print | Fixed | Ulog | Tropical | Float | Logaddexp | Logsubexp => {
                self.not_generated(name, span)
            }
        }
    }

    /// E0701 for a call the GPU backend does not generate.
    fn not_generated(&mut self, name: &str, span: Span) -> (String, K) {
        self.unsupported(span, &format!("a call of `{name}`"));
        ("0".into(), K::Unknown)
    }

    /// A float function of one number: a WGSL built-in of the same name, or
    /// a transcendental with an f64 helper.
    fn float_math(&mut self, math: WgslMath, name: &str, args: &[Expr], span: Span) -> (String, K) {
        let [x] = args else {
            return self.not_generated(name, span);
        };
        let (c, k) = self.expr(x);
        let fk = match k {
            K::Float(f) => K::Float(f),
            _ => K::Float(self.float),
        };
        let c = self.conv(c, k, fk);
        match math {
            WgslMath::Builtin => (format!("{name}({c})"), fk),
            WgslMath::Transcendental => (trans(name, &c, wgsl_ty(fk)), fk),
        }
    }

    /// A place as an lvalue.
    pub(super) fn place(&mut self, e: &Expr) -> Option<(String, K)> {
        nilang_syntax::stack::deep(|| match &e.kind {
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
        })
    }

    /// The adjoint of a place that this invocation writes (never atomic).
    pub(super) fn bar_lvalue(&mut self, e: &Expr) -> Option<String> {
        nilang_syntax::stack::deep(|| match &e.kind {
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
        })
    }

    /// Adds `amount` to the adjoint of a place read (atomically where
    /// several invocations add to it).
    pub(super) fn bar_add(&mut self, leaf: &Expr, amount: &str) {
        nilang_syntax::stack::deep(|| match &leaf.kind {
            ExprKind::Paren(inner) => self.bar_add(inner, amount),
            ExprKind::Index { base, indices } => {
                let Some(id) = self.def_of(base.span) else {
                    return;
                };
                let atomic = match self.resolution.defs[id].kind {
                    DefKind::Param(i) if self.entry && self.atomic.contains(&i) => Some(i),
                    _ => None,
                };
                let ExprKind::Var(name) = &base.kind else {
                    return;
                };
                if let (Some(param), [IndexArg::Expr(i)]) = (atomic, indices.as_slice()) {
                    let i = self.index(i);
                    *self.log_sites.entry(param).or_default() += 1;
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
        })
    }
}

/// How WGSL writes a function of one float.
#[derive(Clone, Copy)]
enum WgslMath {
    /// WGSL's own built-in of that name, in `f32` and `f64`.
    Builtin,
    /// WGSL's built-in in `f32`; in `f64`, which WGSL lacks, the shader's
    /// helper `nil_<name>_f64` (`F64_MATH`).
    Transcendental,
}

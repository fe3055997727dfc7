//! The typed syntax tree of a `.nil` file.
//!
//! Every node carries a [`Span`]. Spans inside a [`Function`] are relative to
//! the start of that function's text, so that editing one function leaves the
//! trees of the others equal (and salsa does not re-run their checks). The
//! function's absolute offset lives next to it in [`crate::parser::Item`].

use std::fmt;

/// A byte range. Inside a function it is relative to the function's start.
#[derive(Clone, Copy, PartialEq, Eq, Hash, Default, PartialOrd, Ord)]
pub struct Span {
    pub start: u32,
    pub end: u32,
}

impl Span {
    pub fn new(start: u32, end: u32) -> Span {
        Span { start, end }
    }

    pub fn shift(self, offset: u32) -> Span {
        Span::new(self.start + offset, self.end + offset)
    }

    pub fn range(self) -> std::ops::Range<usize> {
        self.start as usize..self.end as usize
    }

    pub fn contains(self, offset: u32) -> bool {
        self.start <= offset && offset <= self.end
    }
}

impl fmt::Debug for Span {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}..{}", self.start, self.end)
    }
}

/// `using std.linalg` (every function of a module) or `import std.linalg:
/// i_dot, i_norm2` (the functions named), with absolute spans.
#[derive(Clone, PartialEq, Eq, Hash, Debug)]
pub struct Import {
    /// The module's dotted path as written (`std.linalg`), spaces removed.
    pub module: Ident,
    /// `None` for `using`; the names of an `import`.
    pub names: Option<Vec<Ident>>,
    /// The whole declaration.
    pub span: Span,
}

/// A name and where it was written.
#[derive(Clone, PartialEq, Eq, Hash, Debug)]
pub struct Ident {
    pub name: String,
    pub span: Span,
}

#[derive(Clone, PartialEq, Eq, Hash, Debug)]
pub struct Function {
    pub name: Ident,
    pub doc: Option<String>,
    pub kernel: bool,
    pub inline: bool,
    /// `@primitive(d)`: the function `d` gives this function's derivatives,
    /// and the gradient program uses them instead of differentiating the body.
    pub primitive: Option<Ident>,
    pub params: Vec<Param>,
    pub kwparams: Vec<KwParam>,
    pub generics: Vec<Generic>,
    pub body: Block,
    /// The whole definition, `function` to `end` (docstring included).
    pub span: Span,
    /// The signature line: from `function` to the end of the `where` clause.
    pub header_span: Span,
}

#[derive(Clone, PartialEq, Eq, Hash, Debug)]
pub struct Param {
    pub name: Ident,
    /// The declared type; for `x::Const<T>`, `T`.
    pub ty: Option<Type>,
    pub span: Span,
    /// Declared `Const<T>`: data the gradient program does not
    /// differentiate (no adjoint; see `nilang_analysis::activity`).
    pub constant: bool,
}

#[derive(Clone, PartialEq, Eq, Hash, Debug)]
pub struct KwParam {
    pub name: Ident,
    pub ty: Option<Type>,
    pub default: Expr,
    pub span: Span,
}

#[derive(Clone, PartialEq, Eq, Hash, Debug)]
pub struct Generic {
    pub name: Ident,
    pub bounds: Vec<Ident>,
}

#[derive(Clone, PartialEq, Eq, Hash, Debug)]
pub struct Type {
    pub kind: TypeKind,
    pub span: Span,
}

#[derive(Clone, PartialEq, Eq, Hash, Debug)]
pub enum TypeKind {
    /// `f64`, `T`, `Complex<T>`, `Matrix{T}`.
    Named { name: String, args: Vec<Type> },
    /// `[T]`
    Slice(Box<Type>),
    /// `(T, U)`
    Tuple(Vec<Type>),
}

#[derive(Clone, PartialEq, Eq, Hash, Debug, Default)]
pub struct Block {
    pub stmts: Vec<Stmt>,
}

#[derive(Clone, PartialEq, Eq, Hash, Debug)]
pub struct Stmt {
    pub kind: StmtKind,
    pub span: Span,
}

/// The operator of an instruction `target op= value`.
#[derive(Clone, Copy, PartialEq, Eq, Hash, Debug)]
pub enum InstrOp {
    Add,
    Sub,
    Xor,
    Mul,
    Div,
    /// `=`: irreversible, always rejected by the checks.
    Assign,
}

impl InstrOp {
    pub fn inverse(self) -> InstrOp {
        match self {
            InstrOp::Add => InstrOp::Sub,
            InstrOp::Sub => InstrOp::Add,
            InstrOp::Xor => InstrOp::Xor,
            InstrOp::Mul => InstrOp::Div,
            InstrOp::Div => InstrOp::Mul,
            InstrOp::Assign => InstrOp::Assign,
        }
    }

    pub fn as_str(self, broadcast: bool) -> &'static str {
        match (self, broadcast) {
            (InstrOp::Add, false) => "+=",
            (InstrOp::Sub, false) => "-=",
            (InstrOp::Xor, false) => "⊻=",
            (InstrOp::Mul, false) => "*=",
            (InstrOp::Div, false) => "/=",
            (InstrOp::Assign, false) => "=",
            (InstrOp::Add, true) => ".+=",
            (InstrOp::Sub, true) => ".-=",
            (InstrOp::Xor, true) => ".⊻=",
            (InstrOp::Mul, true) => ".*=",
            (InstrOp::Div, true) => "./=",
            (InstrOp::Assign, true) => ".=",
        }
    }
}

#[derive(Clone, PartialEq, Eq, Hash, Debug)]
pub enum StmtKind {
    /// `target op= value`
    Instr {
        target: Expr,
        op: InstrOp,
        op_span: Span,
        broadcast: bool,
        value: Expr,
    },
    /// `f(args...)`, or `~f(args...)` / `(~f)(args...)` when `inverted`.
    Call(Call),
    /// `name ← value`
    Alloc { name: Ident, value: Expr },
    /// `name → value`
    Dealloc { name: Ident, value: Expr },
    /// `if (pre, post) ... elseif ... else ... end`
    If {
        branches: Vec<Branch>,
        otherwise: Option<Block>,
    },
    /// `while (pre, post) ... end`
    While { cond: Cond, body: Block },
    /// `for var = range ... end`
    For {
        var: Ident,
        range: Range,
        body: Block,
    },
    /// `begin ... end`
    Begin(Block),
    /// `~stmt`: run the inverse of `stmt`.
    Inverse(Box<Stmt>),
    /// `@routine stmt`, or `@store @routine stmt`
    Routine(Box<Stmt>, Storing),
    /// `~@routine`
    Unroutine,
    /// `@tape for ...` / `@tape while ...`: a loop that records on a tape
    /// what it overwrites and which branches it takes, so its body may use
    /// `=`, `*=` and `/=` and `if`/`while` without postconditions. The inner
    /// statement is a `For` or a `While` (the grammar allows nothing else).
    Tape(Box<Stmt>),
    /// `@safe expr`: an irreversible expression evaluated for its side effects.
    Safe(Expr),
    /// `@invcheckoff stmt`
    InvCheckOff(Box<Stmt>),
    /// `@inbounds stmt`
    InBounds(Box<Stmt>),
    /// `(from => to)(value)`
    Typecast { from: Type, to: Type, value: Expr },
}

/// Where a reverse pass takes the local derivatives of a `@routine`'s
/// instructions from, when its `~@routine` is differentiated.
#[derive(Clone, Copy, PartialEq, Eq, Hash, Debug, Default)]
pub enum Storing {
    /// `@routine`: from the values the reverse pass recomputes (no memory
    /// beyond the ancillas).
    #[default]
    Recompute,
    /// `@store @routine`: from a tape that the routine's run before the
    /// reverse rules fills (memory for time).
    Store,
}

#[derive(Clone, PartialEq, Eq, Hash, Debug)]
pub struct Call {
    pub callee: Ident,
    pub inverted: bool,
    pub args: Vec<Expr>,
    pub kwargs: Vec<KwArg>,
}

/// A derived function: `(∇f)(...)` calls the gradient program of `f`,
/// `(∂f)(...)` its tangent (forward-mode) program. The call's callee is
/// named `∇f` / `∂f` (a name no definition can have); the analysis
/// derives its parameters from `f`'s (`nilang_analysis::derivatives`).
#[derive(Clone, Copy, PartialEq, Eq, Hash, Debug)]
pub enum Derivative {
    Gradient,
    Tangent,
}

impl Derivative {
    pub const fn symbol(self) -> char {
        match self {
            Derivative::Gradient => '∇',
            Derivative::Tangent => '∂',
        }
    }

    /// The derivative its symbol (`∇`, `∂`) stands for.
    pub fn from_symbol(c: char) -> Option<Derivative> {
        [Derivative::Gradient, Derivative::Tangent]
            .into_iter()
            .find(|d| d.symbol() == c)
    }

    /// The derivative a callee name asks for, and the function it is of.
    pub fn of(name: &str) -> Option<(Derivative, &str)> {
        let mut chars = name.chars();
        let d = Derivative::from_symbol(chars.next()?)?;
        Some((d, chars.as_str()))
    }

    /// The derivative whose `(∇` / `(∂` ends `text`: what the source has
    /// before the function's name in a derivative call `(∇f)(...)`.
    pub fn written_before(text: &str) -> Option<Derivative> {
        let mut chars = text.chars();
        let d = Derivative::from_symbol(chars.next_back()?)?;
        chars.as_str().ends_with('(').then_some(d)
    }

    /// The callee name of this derivative of `base`.
    pub fn name(self, base: &str) -> String {
        format!("{}{base}", self.symbol())
    }
}

#[derive(Clone, PartialEq, Eq, Hash, Debug)]
pub struct KwArg {
    pub name: Ident,
    pub value: Expr,
}

#[derive(Clone, PartialEq, Eq, Hash, Debug)]
pub struct Branch {
    pub cond: Cond,
    pub body: Block,
}

/// The `(pre, post)` pair of `if` and `while`.
#[derive(Clone, PartialEq, Eq, Hash, Debug)]
pub struct Cond {
    pub pre: Expr,
    pub post: Post,
    pub span: Span,
}

#[derive(Clone, PartialEq, Eq, Hash, Debug)]
pub enum Post {
    Expr(Expr),
    /// `~`: the postcondition is the precondition.
    SameAsPre(Span),
    /// Written without a postcondition (`while x > 0`): an error for `while`
    /// and `if`, kept so that the rest can still be checked.
    Missing,
}

#[derive(Clone, PartialEq, Eq, Hash, Debug)]
pub struct Range {
    pub start: Expr,
    pub step: Option<Expr>,
    pub stop: Expr,
    /// `reverse(start:step:stop)`: the same elements, last first.
    pub reversed: bool,
    pub span: Span,
}

#[derive(Eq)]
pub struct Expr {
    pub kind: ExprKind,
    pub span: Span,
}

// An expression is as deep as its longest chain (`a + b + … `, any number
// of terms), so the derived traits, which recurse, each take their step
// down through `stack::deep`.
impl Clone for Expr {
    fn clone(&self) -> Self {
        crate::stack::deep(|| Expr {
            kind: self.kind.clone(),
            span: self.span,
        })
    }
}

impl PartialEq for Expr {
    fn eq(&self, other: &Self) -> bool {
        crate::stack::deep(|| self.span == other.span && self.kind == other.kind)
    }
}

impl std::hash::Hash for Expr {
    fn hash<H: std::hash::Hasher>(&self, state: &mut H) {
        crate::stack::deep(|| {
            self.kind.hash(state);
            self.span.hash(state);
        })
    }
}

impl std::fmt::Debug for Expr {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        crate::stack::deep(|| {
            f.debug_struct("Expr")
                .field("kind", &self.kind)
                .field("span", &self.span)
                .finish()
        })
    }
}

#[derive(Clone, Copy, PartialEq, Eq, Hash, Debug)]
pub enum UnaryOp {
    Neg,
    Plus,
    Not,
}

impl UnaryOp {
    pub fn as_str(self) -> &'static str {
        match self {
            UnaryOp::Neg => "-",
            UnaryOp::Plus => "+",
            UnaryOp::Not => "!",
        }
    }
}

#[derive(Clone, Copy, PartialEq, Eq, Hash, Debug)]
pub enum BinaryOp {
    Or,
    And,
    Eq,
    Ne,
    Lt,
    Le,
    Gt,
    Ge,
    Add,
    Sub,
    BitOr,
    Xor,
    DotAdd,
    DotSub,
    Mul,
    Div,
    IntDiv,
    Rem,
    BitAnd,
    DotMul,
    DotDiv,
    Shl,
    Shr,
    Pow,
    DotPow,
}

impl BinaryOp {
    /// The scalar operator an element-wise one applies to each element
    /// (`.*` is `*`); other operators are their own.
    pub fn scalar(self) -> BinaryOp {
        use BinaryOp::*;
        match self {
            DotAdd => Add,
            DotSub => Sub,
            DotMul => Mul,
            DotDiv => Div,
            DotPow => Pow,
            op => op,
        }
    }

    pub fn parse(s: &str) -> Option<BinaryOp> {
        Some(match s {
            "||" => BinaryOp::Or,
            "&&" => BinaryOp::And,
            "==" => BinaryOp::Eq,
            "!=" | "≠" => BinaryOp::Ne,
            "<" => BinaryOp::Lt,
            "<=" | "≤" => BinaryOp::Le,
            ">" => BinaryOp::Gt,
            ">=" | "≥" => BinaryOp::Ge,
            "+" => BinaryOp::Add,
            "-" => BinaryOp::Sub,
            "|" => BinaryOp::BitOr,
            "⊻" => BinaryOp::Xor,
            ".+" => BinaryOp::DotAdd,
            ".-" => BinaryOp::DotSub,
            "*" => BinaryOp::Mul,
            "/" => BinaryOp::Div,
            "÷" => BinaryOp::IntDiv,
            "%" => BinaryOp::Rem,
            "&" => BinaryOp::BitAnd,
            ".*" => BinaryOp::DotMul,
            "./" => BinaryOp::DotDiv,
            "<<" => BinaryOp::Shl,
            ">>" => BinaryOp::Shr,
            "^" => BinaryOp::Pow,
            ".^" => BinaryOp::DotPow,
            _ => return None,
        })
    }

    pub fn as_str(self) -> &'static str {
        match self {
            BinaryOp::Or => "||",
            BinaryOp::And => "&&",
            BinaryOp::Eq => "==",
            BinaryOp::Ne => "!=",
            BinaryOp::Lt => "<",
            BinaryOp::Le => "<=",
            BinaryOp::Gt => ">",
            BinaryOp::Ge => ">=",
            BinaryOp::Add => "+",
            BinaryOp::Sub => "-",
            BinaryOp::BitOr => "|",
            BinaryOp::Xor => "⊻",
            BinaryOp::DotAdd => ".+",
            BinaryOp::DotSub => ".-",
            BinaryOp::Mul => "*",
            BinaryOp::Div => "/",
            BinaryOp::IntDiv => "÷",
            BinaryOp::Rem => "%",
            BinaryOp::BitAnd => "&",
            BinaryOp::DotMul => ".*",
            BinaryOp::DotDiv => "./",
            BinaryOp::Shl => "<<",
            BinaryOp::Shr => ">>",
            BinaryOp::Pow => "^",
            BinaryOp::DotPow => ".^",
        }
    }

    /// Binding strength, higher binds tighter (matches the grammar).
    pub fn precedence(self) -> u8 {
        use BinaryOp::*;
        match self {
            Or => 1,
            And => 2,
            Eq | Ne | Lt | Le | Gt | Ge => 3,
            Add | Sub | BitOr | Xor | DotAdd | DotSub => 5,
            Mul | Div | IntDiv | Rem | BitAnd | DotMul | DotDiv => 6,
            Shl | Shr => 7,
            Pow | DotPow => 9,
        }
    }

    pub fn right_assoc(self) -> bool {
        matches!(self, BinaryOp::Pow | BinaryOp::DotPow)
    }
}

#[derive(Clone, PartialEq, Eq, Hash, Debug)]
pub enum ExprKind {
    Var(String),
    /// An integer literal, as written.
    Int(String),
    /// A float literal, as written.
    Float(String),
    Bool(bool),
    Str(String),
    Call {
        callee: Ident,
        args: Vec<Expr>,
        kwargs: Vec<KwArg>,
        broadcast: bool,
    },
    Index {
        base: Box<Expr>,
        indices: Vec<IndexArg>,
    },
    Field {
        base: Box<Expr>,
        field: Ident,
    },
    /// `x'`: the complex conjugate.
    Adjoint(Box<Expr>),
    Unary {
        op: UnaryOp,
        operand: Box<Expr>,
    },
    Binary {
        op: BinaryOp,
        lhs: Box<Expr>,
        rhs: Box<Expr>,
    },
    Paren(Box<Expr>),
    Tuple(Vec<Expr>),
    /// `@name arg`, only meaningful under `@safe`.
    Macro {
        name: String,
        arg: Option<Box<Expr>>,
    },
    /// Text that did not parse; a syntax error was reported for it.
    Error,
}

#[derive(Clone, PartialEq, Eq, Hash, Debug)]
pub enum IndexArg {
    Expr(Expr),
    Range(Box<Range>),
    /// `:`, the whole axis.
    Colon(Span),
}

/// The position variable the parser gives `for x in xs`: `__x_k`, written
/// with an empty span so that it is never taken for `x`.
pub fn for_each_position(element: &str) -> String {
    format!("__{element}_k")
}

/// Which line of a matrix `for x in A[:, j]` or `for x in A[i, :]` walks.
#[derive(Clone, Copy, PartialEq, Eq, Debug)]
pub enum Line {
    /// `A[:, j]`: the fixed index is the column.
    Column,
    /// `A[i, :]`: the fixed index is the row.
    Row,
}

/// A `for x in xs` as the parser lowers it: `for __x_k = 1:length(xs);
/// x ← xs[__x_k]; body; x → xs[__x_k]; end` (reversed for `reverse(xs)`),
/// the position variable with an empty span. Read back by the printer
/// (which writes the loop as it was written) and by the checks (E0411).
pub struct ForEach<'a> {
    /// `x`.
    pub element: &'a Ident,
    /// What `x` copies: `xs[k]`, `A[k, j]` or `A[i, k]`.
    pub value: &'a Expr,
    /// The array or matrix walked (`xs`, `A`).
    pub base: &'a Expr,
    /// The collection as written after `in` (`xs`, `A[:, j]`).
    pub collection: Span,
    /// For a matrix, the line walked and its fixed index.
    pub line: Option<(Line, &'a Expr)>,
    /// The body as written, between the copy and its release.
    pub body: &'a [Stmt],
}

impl<'a> ForEach<'a> {
    /// The loop `for var = range body end`, if the parser lowered it from
    /// a `for x in xs`.
    pub fn of(var: &Ident, range: &Range, body: &'a Block) -> Option<ForEach<'a>> {
        if var.span.start != var.span.end || range.step.is_some() {
            return None;
        }
        let [first, inner @ .., last] = body.stmts.as_slice() else {
            return None;
        };
        let (
            StmtKind::Alloc { name, value },
            StmtKind::Dealloc {
                name: freed,
                value: again,
            },
        ) = (&first.kind, &last.kind)
        else {
            return None;
        };
        if var.name != for_each_position(&name.name) || freed.name != name.name || value != again {
            return None;
        }
        let ExprKind::Index { base, indices } = &value.kind else {
            return None;
        };
        let is_position = |a: &IndexArg| matches!(a, IndexArg::Expr(e) if matches!(&e.kind, ExprKind::Var(n) if *n == var.name));
        let line = match indices.as_slice() {
            [k] if is_position(k) => None,
            [k, IndexArg::Expr(j)] if is_position(k) => Some((Line::Column, j)),
            [IndexArg::Expr(i), k] if is_position(k) => Some((Line::Row, i)),
            _ => return None,
        };
        Some(ForEach {
            element: name,
            value,
            base,
            collection: range.span,
            line,
            body: inner,
        })
    }
}

impl Expr {
    /// The value of a whole-number literal, maybe in parentheses or
    /// negated: `2`, `(2)`, `-1`.
    pub fn whole_number(&self) -> Option<i64> {
        match &self.kind {
            ExprKind::Int(v) => v.replace('_', "").parse().ok(),
            ExprKind::Paren(inner) => inner.whole_number(),
            ExprKind::Unary {
                op: UnaryOp::Neg,
                operand,
            } => operand.whole_number().and_then(i64::checked_neg),
            _ => None,
        }
    }

    pub fn new(kind: ExprKind, span: Span) -> Expr {
        Expr { kind, span }
    }

    /// A column `A[:, j]` of a matrix variable: the variable's expression,
    /// its name and the column index.
    pub fn matrix_column(&self) -> Option<(&Expr, &str, &Expr)> {
        let ExprKind::Index { base, indices } = &self.kind else {
            return None;
        };
        match (&base.kind, indices.as_slice()) {
            (ExprKind::Var(m), [IndexArg::Colon(_), IndexArg::Expr(j)]) => Some((base, m, j)),
            _ => None,
        }
    }

    /// A call `name(args...)` written by the compiler, all of it at `span`.
    pub fn call(name: &str, args: Vec<Expr>, span: Span) -> Expr {
        Expr::new(
            ExprKind::Call {
                callee: Ident {
                    name: name.to_string(),
                    span,
                },
                args,
                kwargs: Vec::new(),
                broadcast: false,
            },
            span,
        )
    }

    /// The variable at the root of a place expression: `x` for `x[i].re'`.
    pub fn root_var(&self) -> Option<(&str, Span)> {
        match &self.kind {
            ExprKind::Var(name) => Some((name, self.span)),
            ExprKind::Index { base, .. } | ExprKind::Field { base, .. } => base.root_var(),
            ExprKind::Adjoint(inner) | ExprKind::Paren(inner) => inner.root_var(),
            ExprKind::Unary {
                op: UnaryOp::Neg,
                operand,
            } => operand.root_var(),
            ExprKind::Call { callee, args, .. }
                if args.len() == 1 && matches!(callee.name.as_str(), "real" | "imag") =>
            {
                args[0].root_var()
            }
            _ => None,
        }
    }

    /// Whether the expression is a dataview: a place an instruction can change.
    pub fn is_place(&self) -> bool {
        match &self.kind {
            ExprKind::Var(_) => true,
            ExprKind::Index { base, .. } | ExprKind::Field { base, .. } => base.is_place(),
            ExprKind::Adjoint(inner) | ExprKind::Paren(inner) => inner.is_place(),
            ExprKind::Unary {
                op: UnaryOp::Neg,
                operand,
            } => operand.is_place(),
            ExprKind::Call { callee, args, .. }
                if args.len() == 1 && matches!(callee.name.as_str(), "real" | "imag") =>
            {
                args[0].is_place()
            }
            ExprKind::Tuple(items) => items.iter().all(Expr::is_place),
            _ => false,
        }
    }

    /// Calls `f` on this expression and every sub-expression, parents first.
    pub fn walk(&self, f: &mut dyn FnMut(&Expr)) {
        crate::stack::deep(|| self.walk_here(f))
    }

    fn walk_here(&self, f: &mut dyn FnMut(&Expr)) {
        f(self);
        match &self.kind {
            ExprKind::Call { args, kwargs, .. } => {
                args.iter().for_each(|a| a.walk(f));
                kwargs.iter().for_each(|k| k.value.walk(f));
            }
            ExprKind::Index { base, indices } => {
                base.walk(f);
                for index in indices {
                    match index {
                        IndexArg::Expr(e) => e.walk(f),
                        IndexArg::Range(r) => r.walk(f),
                        IndexArg::Colon(_) => {}
                    }
                }
            }
            ExprKind::Field { base, .. } => base.walk(f),
            ExprKind::Adjoint(e) | ExprKind::Paren(e) => e.walk(f),
            ExprKind::Unary { operand, .. } => operand.walk(f),
            ExprKind::Binary { lhs, rhs, .. } => {
                lhs.walk(f);
                rhs.walk(f);
            }
            ExprKind::Tuple(items) => items.iter().for_each(|e| e.walk(f)),
            ExprKind::Macro { arg: Some(arg), .. } => arg.walk(f),
            _ => {}
        }
    }
}

impl Expr {
    /// Calls `f` on this expression and every sub-expression, children
    /// first, to change them.
    pub fn walk_mut(&mut self, f: &mut dyn FnMut(&mut Expr)) {
        crate::stack::deep(|| self.walk_mut_here(f))
    }

    fn walk_mut_here(&mut self, f: &mut dyn FnMut(&mut Expr)) {
        match &mut self.kind {
            ExprKind::Call { args, kwargs, .. } => {
                args.iter_mut().for_each(|a| a.walk_mut(f));
                kwargs.iter_mut().for_each(|k| k.value.walk_mut(f));
            }
            ExprKind::Index { base, indices } => {
                base.walk_mut(f);
                for index in indices {
                    match index {
                        IndexArg::Expr(e) => e.walk_mut(f),
                        IndexArg::Range(r) => r.walk_mut(f),
                        IndexArg::Colon(_) => {}
                    }
                }
            }
            ExprKind::Field { base, .. } => base.walk_mut(f),
            ExprKind::Adjoint(e) | ExprKind::Paren(e) => e.walk_mut(f),
            ExprKind::Unary { operand, .. } => operand.walk_mut(f),
            ExprKind::Binary { lhs, rhs, .. } => {
                lhs.walk_mut(f);
                rhs.walk_mut(f);
            }
            ExprKind::Tuple(items) => items.iter_mut().for_each(|e| e.walk_mut(f)),
            ExprKind::Macro { arg: Some(arg), .. } => arg.walk_mut(f),
            _ => {}
        }
        f(self);
    }
}

impl Range {
    pub fn walk_mut(&mut self, f: &mut dyn FnMut(&mut Expr)) {
        self.start.walk_mut(f);
        if let Some(step) = &mut self.step {
            step.walk_mut(f);
        }
        self.stop.walk_mut(f);
    }

    pub fn walk(&self, f: &mut dyn FnMut(&Expr)) {
        self.start.walk(f);
        if let Some(step) = &self.step {
            step.walk(f);
        }
        self.stop.walk(f);
    }
}

impl Block {
    pub fn new(stmts: Vec<Stmt>) -> Block {
        Block { stmts }
    }
}

/// The values `for i = start:step:stop` visits, last first when `reversed`
/// (Julia's semantics: the last value is `start + step * ((stop - start) ÷ step)`;
/// empty when `step` is zero or points away from `stop`). Code generation
/// iterates the same way; this is its reference.
pub fn range_values(start: i64, step: i64, stop: i64, reversed: bool) -> Vec<i64> {
    if step == 0 || (step > 0 && start > stop) || (step < 0 && start < stop) {
        return Vec::new();
    }
    let count = (stop - start) / step + 1;
    let values = (0..count).map(|k| start + k * step);
    if reversed {
        values.rev().collect()
    } else {
        values.collect()
    }
}

/// `struct Name{T, U} field::Type ... end`: a user type. Unlike a
/// function's, its spans are absolute (byte offsets in the file): a struct
/// is small and only read whole.
#[derive(Clone, PartialEq, Eq, Hash, Debug)]
pub struct StructDef {
    pub name: Ident,
    pub doc: Option<String>,
    /// The type parameters, `{T, U: Real}`.
    pub generics: Vec<Generic>,
    pub fields: Vec<FieldDef>,
    /// The whole definition, docstring to `end`.
    pub span: Span,
}

impl StructDef {
    /// The definition with its spans relative to its start: what does not
    /// change when an edit above it only moves it (the analysis of
    /// functions reads structs this way, and does not point into them).
    pub fn relative(&self) -> StructDef {
        let base = self.span.start;
        let at = |s: Span| Span::new(s.start.saturating_sub(base), s.end.saturating_sub(base));
        let ident = |i: &Ident| Ident {
            name: i.name.clone(),
            span: at(i.span),
        };
        fn ty(t: &Type, at: &dyn Fn(Span) -> Span) -> Type {
            let kind = match &t.kind {
                TypeKind::Named { name, args } => TypeKind::Named {
                    name: name.clone(),
                    args: args.iter().map(|a| ty(a, at)).collect(),
                },
                TypeKind::Slice(inner) => TypeKind::Slice(Box::new(ty(inner, at))),
                TypeKind::Tuple(items) => {
                    TypeKind::Tuple(items.iter().map(|a| ty(a, at)).collect())
                }
            };
            Type {
                kind,
                span: at(t.span),
            }
        }
        StructDef {
            name: ident(&self.name),
            doc: self.doc.clone(),
            generics: self
                .generics
                .iter()
                .map(|g| Generic {
                    name: ident(&g.name),
                    bounds: g.bounds.iter().map(ident).collect(),
                })
                .collect(),
            fields: self
                .fields
                .iter()
                .map(|f| FieldDef {
                    name: ident(&f.name),
                    ty: ty(&f.ty, &at),
                    span: at(f.span),
                })
                .collect(),
            span: at(self.span),
        }
    }
}

/// One field `name::Type` of a struct.
#[derive(Clone, PartialEq, Eq, Hash, Debug)]
pub struct FieldDef {
    pub name: Ident,
    pub ty: Type,
    pub span: Span,
}

/// Calls `f` on every statement of `stmts` and of the blocks nested in
/// them, each before the statements inside it, in the order of the text.
pub fn walk_stmts<'a>(stmts: &'a [Stmt], f: &mut dyn FnMut(&'a Stmt)) {
    for s in stmts {
        f(s);
        match &s.kind {
            StmtKind::If {
                branches,
                otherwise,
            } => {
                for b in branches {
                    walk_stmts(&b.body.stmts, f);
                }
                if let Some(o) = otherwise {
                    walk_stmts(&o.stmts, f);
                }
            }
            StmtKind::While { body, .. } | StmtKind::For { body, .. } | StmtKind::Begin(body) => {
                walk_stmts(&body.stmts, f)
            }
            StmtKind::Inverse(inner)
            | StmtKind::Routine(inner, _)
            | StmtKind::Tape(inner)
            | StmtKind::InvCheckOff(inner)
            | StmtKind::InBounds(inner) => walk_stmts(std::slice::from_ref(&**inner), f),
            _ => {}
        }
    }
}

/// Calls `f` on every call statement of `stmts` and of the blocks nested
/// in them, in the order of the text, to change it.
pub fn walk_calls_mut(stmts: &mut [Stmt], f: &mut dyn FnMut(&mut Call)) {
    for s in stmts {
        match &mut s.kind {
            StmtKind::Call(call) => f(call),
            StmtKind::If {
                branches,
                otherwise,
            } => {
                for b in branches {
                    walk_calls_mut(&mut b.body.stmts, f);
                }
                if let Some(o) = otherwise {
                    walk_calls_mut(&mut o.stmts, f);
                }
            }
            StmtKind::While { body, .. } | StmtKind::For { body, .. } | StmtKind::Begin(body) => {
                walk_calls_mut(&mut body.stmts, f)
            }
            StmtKind::Inverse(inner)
            | StmtKind::Routine(inner, _)
            | StmtKind::Tape(inner)
            | StmtKind::InvCheckOff(inner)
            | StmtKind::InBounds(inner) => walk_calls_mut(std::slice::from_mut(&mut **inner), f),
            _ => {}
        }
    }
}

/// Calls `f` on every statement of `stmts` and of the blocks nested in
/// them, each after the statements inside it, to change it.
pub fn walk_stmts_mut(stmts: &mut [Stmt], f: &mut dyn FnMut(&mut Stmt)) {
    for s in stmts {
        match &mut s.kind {
            StmtKind::If {
                branches,
                otherwise,
            } => {
                for b in branches {
                    walk_stmts_mut(&mut b.body.stmts, f);
                }
                if let Some(o) = otherwise {
                    walk_stmts_mut(&mut o.stmts, f);
                }
            }
            StmtKind::While { body, .. } | StmtKind::For { body, .. } | StmtKind::Begin(body) => {
                walk_stmts_mut(&mut body.stmts, f)
            }
            StmtKind::Inverse(inner)
            | StmtKind::Routine(inner, _)
            | StmtKind::Tape(inner)
            | StmtKind::InvCheckOff(inner)
            | StmtKind::InBounds(inner) => walk_stmts_mut(std::slice::from_mut(&mut **inner), f),
            _ => {}
        }
        f(s);
    }
}

/// Calls `f` on each expression of `stmt` itself (not of the statements
/// nested in it), to change it. An allocation's name is not an expression
/// here.
pub fn stmt_exprs_mut(stmt: &mut Stmt, f: &mut dyn FnMut(&mut Expr)) {
    let cond = |c: &mut Cond, f: &mut dyn FnMut(&mut Expr)| {
        f(&mut c.pre);
        if let Post::Expr(e) = &mut c.post {
            f(e);
        }
    };
    match &mut stmt.kind {
        StmtKind::Instr { target, value, .. } => {
            f(target);
            f(value);
        }
        StmtKind::Call(call) => {
            call.args.iter_mut().for_each(&mut *f);
            call.kwargs.iter_mut().for_each(|k| f(&mut k.value));
        }
        StmtKind::Alloc { value, .. } | StmtKind::Dealloc { value, .. } => f(value),
        StmtKind::If { branches, .. } => branches.iter_mut().for_each(|b| cond(&mut b.cond, f)),
        StmtKind::While { cond: c, .. } => cond(c, f),
        StmtKind::For { range, .. } => {
            f(&mut range.start);
            if let Some(step) = &mut range.step {
                f(step);
            }
            f(&mut range.stop);
        }
        StmtKind::Safe(e) | StmtKind::Typecast { value: e, .. } => f(e),
        StmtKind::Begin(_)
        | StmtKind::Inverse(_)
        | StmtKind::Routine(..)
        | StmtKind::Tape(_)
        | StmtKind::Unroutine
        | StmtKind::InvCheckOff(_)
        | StmtKind::InBounds(_) => {}
    }
}

/// Calls `f` on each expression of `stmt` itself (not of the statements
/// nested in it).
pub fn stmt_exprs(stmt: &Stmt, f: &mut dyn FnMut(&Expr)) {
    let cond = |c: &Cond, f: &mut dyn FnMut(&Expr)| {
        f(&c.pre);
        if let Post::Expr(e) = &c.post {
            f(e);
        }
    };
    match &stmt.kind {
        StmtKind::Instr { target, value, .. } => {
            f(target);
            f(value);
        }
        StmtKind::Call(call) => {
            call.args.iter().for_each(&mut *f);
            call.kwargs.iter().for_each(|k| f(&k.value));
        }
        StmtKind::Alloc { name, value } | StmtKind::Dealloc { name, value } => {
            f(&Expr {
                kind: ExprKind::Var(name.name.clone()),
                span: name.span,
            });
            f(value);
        }
        StmtKind::If { branches, .. } => branches.iter().for_each(|b| cond(&b.cond, f)),
        StmtKind::While { cond: c, .. } => cond(c, f),
        StmtKind::For { range, .. } => {
            f(&range.start);
            if let Some(step) = &range.step {
                f(step);
            }
            f(&range.stop);
        }
        StmtKind::Safe(e) | StmtKind::Typecast { value: e, .. } => f(e),
        StmtKind::Begin(_)
        | StmtKind::Inverse(_)
        | StmtKind::Routine(..)
        | StmtKind::Tape(_)
        | StmtKind::Unroutine
        | StmtKind::InvCheckOff(_)
        | StmtKind::InBounds(_) => {}
    }
}

//! The Rust backend: each `.nil` function becomes two Rust functions, the
//! call `f` and the uncall `uncall_f`.
//!
//! The generated API:
//! - a parameter the function changes is `&mut T` (`&mut [T]` for arrays);
//!   one it only reads is `T` (`&[T]`); keyword parameters come last;
//! - `where T: Real` becomes `T: nilang::Real`, so the same code runs on
//!   `f64`, `f32`, integers and later dual, complex and fixed-point numbers;
//! - every function returns `nilang::Result`: `Err` names the `.nil` file,
//!   line and column of the failed run-time check and both values; checks
//!   under `@invcheckoff` are not generated;
//! - indices are 1-based as in NiLang (`x[1]` is `x[0]` in Rust);
//! - `!` is dropped from names (`out!` is `out`).
//!
//! Values are read into temporaries before they are written back, so that
//! `SWAP(x[i], x[j])` and calls with several elements of one array borrow
//! nothing twice. No `unsafe`, no global state, no allocation beyond the
//! `.nil` code's own (`zeros(T, n)`).

use std::fmt::Write;

// The layers below, under the names the modules of this crate use.
use nilang_analysis::{
    builtins, check, diagnostics, effects, invert, kernel, resolve, taping, types,
};
use nilang_syntax::{ast, printer, render};

mod adjoint;
mod cast;
pub(crate) mod numbers;
pub mod queries;
mod stack;
pub mod structs;
pub(crate) mod tape;
mod view;
pub mod wgsl;

use crate::ast::*;
use crate::diagnostics::Diagnostic;
use crate::invert::{
    explicit_deallocations, invert_function, invert_stmt, routine_pairs, unroutine_expansion,
};
use crate::resolve::{DefKind, Resolution};
use crate::types::{FunctionTypes, Ty};

/// What code generation needs to know about a callee.
#[derive(Clone, PartialEq, Eq, Debug)]
pub struct CalleeSig {
    /// The Rust module the callee lives in, relative to the caller's module:
    /// `None` for the same module, `Some("bessel")` for a sibling.
    pub module: Option<String>,
    /// Per positional parameter: whether the callee mutates it, and its type.
    pub params: Vec<(bool, Ty)>,
    /// Keyword parameters: name, type, default.
    pub kwparams: Vec<(String, Ty, Expr)>,
    /// The callee records a tape (see `codegen::tape`): its generated
    /// functions take `__tape: &mut nilang::Tape` last.
    pub taped: bool,
}

pub trait CodegenContext {
    fn callee(&self, name: &str) -> Option<CalleeSig>;
    /// A callee's tree, for the GPU backend (functions a kernel calls).
    fn callee_body(&self, _name: &str) -> Option<wgsl::CalleeBody> {
        None
    }
}

/// Which parameters a callee mutates, from a [`CodegenContext`].
struct CtxCallees<'a>(&'a dyn CodegenContext);

impl crate::check::CalleeInfo for CtxCallees<'_> {
    fn mutated_params(&self, name: &str) -> Option<Vec<bool>> {
        self.0
            .callee(name)
            .map(|s| s.params.iter().map(|(m, _)| *m).collect())
    }
}

/// Where a function sits in its file, to turn spans into line:column.
pub struct Place<'a> {
    pub path: &'a str,
    pub text: &'a str,
    pub offset: u32,
    /// Byte offsets of the starts of the file's lines (the first is 0), so
    /// that each run-time check finds its line without rescanning the file.
    pub line_starts: &'a [u32],
}

/// Options that change the generated code.
#[derive(Clone, Debug, PartialEq)]
pub struct Options {
    /// Absolute tolerance of the run-time checks on floating-point values.
    pub atol: f64,
    /// Generate the run-time checks (off: as if everything were `@invcheckoff`).
    pub checks: bool,
    /// Generate the adjoint (gradient) functions `f_adjoint`,
    /// `uncall_f_adjoint` and `f_grad`.
    pub gradients: bool,
    /// Make every `for` and `while` a `@tape` loop (outside `~` and
    /// kernels), so that one source compiles to reverse computing or to
    /// taping (for benchmarks that compare them).
    pub tape_loops: bool,
}

impl Default for Options {
    fn default() -> Self {
        Options {
            atol: 1e-8,
            checks: true,
            gradients: true,
            tape_loops: false,
        }
    }
}

/// The Rust name of a NiLang name: `!` dropped, Greek letters spelled out
/// (`θ` is `theta`; rustc warns about mixed scripts otherwise), other
/// non-ASCII letters as `u` and their code point, keywords raw.
pub fn rust_name(name: &str) -> String {
    let mut base = String::new();
    for c in name.chars().filter(|&c| c != '!') {
        if c.is_ascii() {
            base.push(c);
        } else if let Some(spelled) = greek(c) {
            base.push_str(spelled);
        } else {
            base.push_str(&format!("u{:x}", c as u32));
        }
    }
    const KEYWORDS: &[&str] = &[
        "as", "break", "const", "continue", "crate", "else", "enum", "extern", "false", "fn",
        "for", "if", "impl", "in", "let", "loop", "match", "mod", "move", "mut", "pub", "ref",
        "return", "static", "struct", "trait", "true", "type", "unsafe", "use", "where", "while",
        "async", "await", "dyn", "abstract", "become", "box", "do", "final", "macro", "override",
        "priv", "typeof", "unsized", "virtual", "yield", "try", "gen",
    ];
    if ["self", "Self", "super", "crate"].contains(&base.as_str()) {
        format!("{base}_")
    } else if KEYWORDS.contains(&base.as_str()) {
        format!("r#{base}")
    } else if base.is_empty() {
        "_".to_string()
    } else {
        base
    }
}

fn greek(c: char) -> Option<&'static str> {
    const LOWER: [&str; 25] = [
        "alpha", "beta", "gamma", "delta", "epsilon", "zeta", "eta", "theta", "iota", "kappa",
        "lambda", "mu", "nu", "xi", "omicron", "pi", "rho", "sigmaf", "sigma", "tau", "upsilon",
        "phi", "chi", "psi", "omega",
    ];
    const UPPER: [&str; 25] = [
        "Alpha", "Beta", "Gamma", "Delta", "Epsilon", "Zeta", "Eta", "Theta", "Iota", "Kappa",
        "Lambda", "Mu", "Nu", "Xi", "Omicron", "Pi", "Rho", "Sigmaf", "Sigma", "Tau", "Upsilon",
        "Phi", "Chi", "Psi", "Omega",
    ];
    match c {
        'α'..='ω' => Some(LOWER[c as usize - 'α' as usize]),
        'Α'..='Ω' => Some(UPPER[c as usize - 'Α' as usize]),
        _ => None,
    }
}

pub fn uncall_name(name: &str) -> String {
    format!("uncall_{}", rust_name(name).trim_start_matches("r#"))
}

/// A numeric kind, as far as code generation cares.
#[derive(Clone, PartialEq, Eq, Debug)]
enum Kind {
    Int(&'static str),
    Float(&'static str),
    Generic(String),
    Bool,
    /// `Complex<T>`: `nilang::Complex<T>`.
    Complex(Box<Kind>),
    /// `[T]`, `Vec<T>`: a slice or a `Vec`.
    Array(Box<Kind>),
    /// `Matrix<T>`: an `ndarray` view or `Array2`, column-major.
    Matrix(Box<Kind>),
    /// `Csc<T>`: a `sprs` CSC view.
    Csc(Box<Kind>),
    /// `Fixed43`: `nilang::Fixed43` (see `numbers.rs`).
    Fixed,
    /// `ULogarithmic<T>`: `nilang::ULog<T>`.
    ULog(Box<Kind>),
    /// `Tropical<T>`: `nilang::Tropical<T>`.
    Tropical(Box<Kind>),
    /// A user struct `Point<T>`: name, type arguments, and per field its
    /// name, kind and whether its declared type mentions a type parameter.
    Struct {
        name: String,
        args: Vec<Kind>,
        fields: Vec<(String, Kind, bool)>,
    },
    /// `A.colptr`, `A.rowval` of a `Csc`: 0-based `usize` offsets in Rust,
    /// read as NiLang's 1-based `i64`.
    Offsets,
    /// `Stack<T>`: a `nilang::Stack<T>` (see `codegen::stack`).
    Stack(Box<Kind>),
    Unknown,
}

impl Kind {
    /// Whether a `&mut` parameter of this kind is written through `*name`.
    fn is_scalar_like(&self) -> bool {
        matches!(
            self,
            Kind::Int(_)
                | Kind::Float(_)
                | Kind::Generic(_)
                | Kind::Bool
                | Kind::Complex(_)
                | Kind::Fixed
                | Kind::ULog(_)
                | Kind::Tropical(_)
                | Kind::Struct { .. }
        )
    }
}

fn kind_of(ty: &Ty) -> Kind {
    match ty {
        Ty::Scalar("bool") => Kind::Bool,
        Ty::Scalar(s @ ("f64" | "f32")) => Kind::Float(s),
        Ty::Scalar(s) => Kind::Int(s),
        Ty::Generic(g) => Kind::Generic(g.clone()),
        Ty::Slice(inner) => Kind::Array(Box::new(kind_of(inner))),
        Ty::Struct {
            name,
            args,
            fields,
            generic,
        } => Kind::Struct {
            name: name.clone(),
            args: args.iter().map(kind_of).collect(),
            fields: fields
                .iter()
                .zip(generic)
                .map(|((f, t), g)| (f.clone(), kind_of(t), *g))
                .collect(),
        },
        Ty::Constructed(name, args) if args.len() == 1 => {
            let inner = Box::new(kind_of(&args[0]));
            match *name {
                "Vec" => Kind::Array(inner),
                "Matrix" => Kind::Matrix(inner),
                "Csc" => Kind::Csc(inner),
                "Complex" => Kind::Complex(inner),
                "Stack" => Kind::Stack(inner),
                "ULogarithmic" => Kind::ULog(inner),
                "Tropical" => Kind::Tropical(inner),
                _ => Kind::Unknown,
            }
        }
        Ty::Constructed("Fixed43", args) if args.is_empty() => Kind::Fixed,
        _ => Kind::Unknown,
    }
}

/// The Rust type of a local of this kind.
fn rust_scalar(kind: &Kind) -> Option<String> {
    match kind {
        Kind::Int(s) | Kind::Float(s) => Some(s.to_string()),
        Kind::Generic(g) => Some(g.clone()),
        Kind::Bool => Some("bool".into()),
        Kind::Complex(inner) => rust_scalar(inner).map(|s| format!("nilang::Complex<{s}>")),
        Kind::Array(inner) => rust_scalar(inner).map(|s| format!("Vec<{s}>")),
        Kind::Matrix(inner) => rust_scalar(inner).map(|s| format!("nilang::ndarray::Array2<{s}>")),
        Kind::Stack(inner) => rust_scalar(inner).map(|s| format!("nilang::Stack<{s}>")),
        Kind::Fixed => Some("nilang::Fixed43".into()),
        Kind::ULog(inner) => rust_scalar(inner).map(|s| format!("nilang::ULog<{s}>")),
        Kind::Tropical(inner) => rust_scalar(inner).map(|s| format!("nilang::Tropical<{s}>")),
        Kind::Struct { name, args, .. } => {
            let args: Option<Vec<String>> = args.iter().map(rust_scalar).collect();
            let args = args?;
            Some(if args.is_empty() {
                rust_name(name)
            } else {
                format!("{}<{}>", rust_name(name), args.join(", "))
            })
        }
        Kind::Csc(_) | Kind::Offsets | Kind::Unknown => None,
    }
}

/// The common kind two operands are converted to.
fn unify(a: &Kind, b: &Kind) -> Kind {
    match (a, b) {
        (Kind::Complex(x), Kind::Complex(y)) => Kind::Complex(Box::new(unify(x, y))),
        (Kind::Complex(x), other) | (other, Kind::Complex(x)) => {
            Kind::Complex(Box::new(unify(x, other)))
        }
        (k @ (Kind::Fixed | Kind::ULog(_) | Kind::Tropical(_)), _)
        | (_, k @ (Kind::Fixed | Kind::ULog(_) | Kind::Tropical(_))) => k.clone(),
        (Kind::Generic(g), _) | (_, Kind::Generic(g)) => Kind::Generic(g.clone()),
        (Kind::Float(x), Kind::Float(y)) => Kind::Float(if x == y { x } else { "f64" }),
        (Kind::Float(f), _) | (_, Kind::Float(f)) => Kind::Float(f),
        (Kind::Int(x), _) => Kind::Int(x),
        (_, Kind::Int(y)) => Kind::Int(y),
        (Kind::Unknown, other) | (other, Kind::Unknown) => other.clone(),
        (a, _) => a.clone(),
    }
}

fn convert(code: String, from: &Kind, to: &Kind) -> String {
    if from == to || *from == Kind::Unknown || *to == Kind::Unknown {
        return code;
    }
    match (from, to) {
        (Kind::Complex(a), Kind::Complex(b)) => {
            let re = convert("__z.re".into(), a, b);
            let im = convert("__z.im".into(), a, b);
            format!("{{ let __z = {code}; nilang::Complex::new({re}, {im}) }}")
        }
        (Kind::Complex(_), _) => code,
        (_, Kind::Complex(inner)) => {
            let zero = rust_scalar(inner)
                .map(|s| format!("nilang::zero::<{s}>()"))
                .unwrap_or_else(|| "0.0".into());
            format!(
                "nilang::Complex::new({}, {zero})",
                convert(code, from, inner)
            )
        }
        (Kind::Int(_) | Kind::Float(_), Kind::Int(t) | Kind::Float(t)) => {
            format!("({code} as {t})")
        }
        (Kind::Int(_), Kind::Generic(g)) => {
            format!("<{g} as nilang::Real>::from_i64({code} as i64)")
        }
        (Kind::Float(_), Kind::Generic(g)) => {
            format!("<{g} as nilang::Real>::from_f64({code} as f64)")
        }
        (Kind::Generic(_), Kind::Float(t) | Kind::Int(t)) => {
            format!("(nilang::Real::to_f64({code}) as {t})")
        }
        (Kind::Generic(a), Kind::Generic(b)) => {
            format!("<{b} as nilang::Real>::from_f64(<{a} as nilang::Real>::to_f64({code}))")
        }
        (Kind::Bool, Kind::Int(t)) => format!("({code} as {t})"),
        // Number systems (numbers.rs).
        (Kind::Int(_), Kind::Fixed) => format!("nilang::fixed::from_i64({code} as i64)"),
        (Kind::Float(_), Kind::Fixed) => format!("nilang::fixed::from_f64({code} as f64)"),
        (Kind::Generic(_), Kind::Fixed) => {
            format!("nilang::fixed::from_f64(nilang::Real::to_f64({code}))")
        }
        (Kind::Fixed, Kind::Float(_) | Kind::Generic(_) | Kind::Int(_)) => convert(
            format!("nilang::fixed::to_f64({code})"),
            &Kind::Float("f64"),
            to,
        ),
        (Kind::ULog(inner), Kind::Float(_) | Kind::Generic(_)) => {
            convert(format!("nilang::Real::exp({code}.log)"), inner, to)
        }
        (Kind::Tropical(inner), Kind::Float(_) | Kind::Generic(_)) => {
            convert(format!("{code}.n"), inner, to)
        }
        (Kind::Int(_) | Kind::Float(_) | Kind::Generic(_), Kind::ULog(inner)) => {
            format!("nilang::ULog::from_value({})", convert(code, from, inner))
        }
        (Kind::Int(_) | Kind::Float(_) | Kind::Generic(_), Kind::Tropical(inner)) => {
            format!("nilang::Tropical::new({})", convert(code, from, inner))
        }
        _ => code,
    }
}

/// A checked Rust function pair for one `.nil` function.
#[derive(Default)]
pub struct Generated {
    pub code: String,
    pub diagnostics: Vec<Diagnostic>,
}

pub fn generate_function(
    f: &Function,
    resolution: &Resolution,
    types: &FunctionTypes,
    mutated: &[bool],
    ctx: &dyn CodegenContext,
    place: &Place<'_>,
    options: &Options,
) -> Generated {
    let taped_all;
    let f = if options.tape_loops {
        taped_all = crate::taping::tape_all_loops(f);
        &taped_all
    } else {
        f
    };
    let taped = |n: &str| ctx.callee(n).is_some_and(|s| s.taped);
    let recording = crate::taping::Recording {
        taped: &taped,
        all: options.tape_loops,
    };
    let mut uncalled = Vec::new();
    crate::taping::uncalled_taped(&f.body.stmts, false, &taped, &mut uncalled);
    if !uncalled.is_empty() {
        return Generated {
            code: String::new(),
            diagnostics: uncalled,
        };
    }
    let forward = explicit_deallocations(f);
    let backward = invert_function(f);
    let records = crate::taping::uses_tape(&f.body.stmts, false, &recording)
        || crate::taping::tropical_tape(&f.body.stmts, resolution, types, false);
    let any_tape = crate::taping::any_tape(&f.body.stmts, &recording)
        || crate::taping::tropical_tape(&f.body.stmts, resolution, types, true);
    let mut g = Gen {
        resolution,
        types,
        mutated,
        ctx,
        place,
        out: String::new(),
        level: 0,
        diagnostics: Vec::new(),
        tmp: 0,
        checks: options.checks,
        generics: f.generics.iter().map(|g| g.name.name.clone()).collect(),
        bcast: None,
        ad: None,
        plain: false,
        body: Vec::new(),
        tape: None,
        mode: None,
        tape_param: records,
        any_tape,
        reserve: Vec::new(),
        record_all: options.tape_loops,
        skip_values: Vec::new(),
        casts: Vec::new(),
        cast_blocks: Vec::new(),
        cast_report: true,
    };
    let mutates = |name: &str| {
        ctx.callee(name)
            .map(|sig| sig.params.iter().map(|(m, _)| *m).collect())
    };
    let mut routine_tapes = crate::taping::RoutineTapes {
        resolution,
        taped: &taped,
        mutates: &mutates,
        record_all: options.tape_loops,
        diagnostics: Vec::new(),
    };
    routine_tapes.routine_tapes(&f.body.stmts);
    g.diagnostics.extend(routine_tapes.diagnostics);
    g.function(&forward, &rust_name(&f.name.name), true);
    g.out.push('\n');
    g.cast_report = false;
    g.function(&backward, &uncall_name(&f.name.name), false);
    if options.gradients && g.diagnostics.is_empty() {
        adjoint::generate(&mut g, f, &forward, &backward);
    }
    let mut diagnostics = g.diagnostics;
    if f.kernel && diagnostics.is_empty() {
        let facts = crate::kernel::analyze(f, resolution, types, &CtxCallees(ctx));
        let (code, d) = wgsl::launchers(&wgsl::KernelInput {
            function: f,
            resolution,
            types,
            mutated,
            facts: &facts,
            ctx,
        });
        g.out.push('\n');
        g.out.push_str(&code);
        diagnostics.extend(d);
    }
    diagnostics.sort_by_key(|d| (d.primary.span.start, d.code));
    diagnostics.dedup();
    Generated {
        code: g.out,
        diagnostics,
    }
}

/// How the factors of an instruction's linear rule read in Rust: the angle's
/// sine and cosine (bound to locals), `1/√2` in the scalar type.
pub(crate) struct Factors<'a> {
    pub angle: Option<&'a (String, String)>,
    pub rsqrt2: &'a str,
}

impl Factors<'_> {
    /// `Σ factor · values[j]` of one row: `ta * c - tb * s`, `-ta`, and
    /// `(ta + tb) * r` when every factor is `±1/√2` (one rounding fewer).
    pub fn linear_combination(
        &self,
        row: &[(usize, crate::builtins::Factor)],
        values: &[String],
    ) -> String {
        use crate::builtins::Factor::*;
        let (s, c) = self
            .angle
            .map(|(s, c)| (s.as_str(), c.as_str()))
            .unwrap_or(("0.0", "1.0"));
        let common = row.iter().all(|(_, f)| matches!(f, Rsqrt2 | MinusRsqrt2));
        let mut out = String::new();
        for (k, (j, f)) in row.iter().enumerate() {
            let negative = matches!(f, MinusOne | MinusSin | MinusRsqrt2);
            let magnitude = match f {
                One | MinusOne => None,
                Cos => Some(c),
                Sin | MinusSin => Some(s),
                Rsqrt2 | MinusRsqrt2 => (!common).then_some(self.rsqrt2),
            };
            let term = match magnitude {
                Some(m) => format!("{} * {m}", values[*j]),
                None => values[*j].clone(),
            };
            out.push_str(match (k, negative) {
                (0, true) => "-",
                (0, false) => "",
                (_, true) => " - ",
                (_, false) => " + ",
            });
            out.push_str(&term);
        }
        if common {
            format!("({out}) * {}", self.rsqrt2)
        } else {
            out
        }
    }
}

struct Gen<'a> {
    resolution: &'a Resolution,
    types: &'a FunctionTypes,
    mutated: &'a [bool],
    ctx: &'a dyn CodegenContext,
    place: &'a Place<'a>,
    out: String,
    level: usize,
    diagnostics: Vec<Diagnostic>,
    tmp: usize,
    checks: bool,
    generics: Vec<String>,
    /// Set while the value of a broadcast instruction is generated.
    bcast: Option<Bcast>,
    /// Set while an adjoint (reverse-mode gradient) function is generated.
    ad: Option<adjoint::AdMode>,
    /// Set inside an adjoint while a `@routine` runs without adjoint rules
    /// (see [`Gen::plain_routine`]): ancillas still get their adjoints.
    plain: bool,
    /// The statements of the function being generated (set by
    /// [`Gen::function`]), for analyses that look beyond the current block.
    body: Vec<Stmt>,
    /// The tape that tape loops and recording callees use now: `None` for
    /// the function's parameter `__tape`, or a `@routine`'s local tape.
    tape: Option<String>,
    /// Inside a tape loop: whether it records or reads back.
    mode: Option<tape::TapeMode>,
    /// The generated functions take `__tape` (the function records on its
    /// own line).
    tape_param: bool,
    /// Anything in the function records (also in its `@routine`s).
    any_tape: bool,
    /// What the next `for` loop reserves on the tape per iteration (a tape
    /// `for` about to be generated in push mode).
    reserve: Vec<(String, usize)>,
    /// Tape loops record every scalar write, not only overwrites (the
    /// `tape_loops` option: taping instead of uncomputing).
    record_all: bool,
    /// Definitions (parameters) whose value updates a reverse pass leaves
    /// out, applying only their adjoint rules: set while generating
    /// `f_adjoint_accumulating` (see `adjoint::skip_forward`).
    skip_values: Vec<usize>,
    /// The kinds typecasts gave ancillas so far, by definition, latest last
    /// (see `codegen::cast`).
    casts: Vec<(usize, Kind)>,
    /// The spans of the typecasts that sit in the block allocating their
    /// variable (the only ones that can be generated).
    cast_blocks: Vec<Span>,
    /// Typecast errors are reported (while the forward program is generated).
    cast_report: bool,
}

/// The target of a broadcast instruction: the element the loop updates, the
/// loop's shape, the element kind and the target's source text.
struct BcastTarget {
    place: String,
    shape: String,
    elem: Kind,
    text: String,
    two_d: bool,
}

/// The broadcast being generated: its loop indices are `__i` (vectors) or
/// `__r`, `__c` (matrices).
struct Bcast {
    two_d: bool,
    /// The shape of each array operand read, and its source text.
    operands: Vec<(String, String)>,
}

/// How a variable is reached in the generated Rust.
enum Access {
    /// A `&mut` scalar parameter: read and written through `*name`.
    MutRef,
    /// Anything else: by name.
    Direct,
}

impl Gen<'_> {
    fn line(&mut self, text: &str) {
        for _ in 0..self.level {
            self.out.push_str("    ");
        }
        self.out.push_str(text);
        self.out.push('\n');
    }

    fn fresh(&mut self, prefix: &str) -> String {
        self.tmp += 1;
        format!("__{prefix}{}", self.tmp)
    }

    fn unsupported(&mut self, span: Span, what: &str) {
        self.diagnostics.push(
            Diagnostic::error(
                "E0701",
                span,
                format!("{what} is not supported by the Rust backend yet"),
            )
            .with_label("cannot generate Rust for this")
            .with_help(
                "the language accepts it, but the Rust backend cannot generate code for it yet",
            ),
        );
    }

    /// E0603: a complex value added to a real place (`y.im += log(x)`).
    fn complex_into_real(&mut self, target: &Expr, value: &Expr) {
        self.diagnostics.push(
            Diagnostic::error(
                "E0603",
                value.span,
                "a complex value cannot be added to a real place",
            )
            .with_label("this value is complex")
            .with_secondary(target.span, "this place is real")
            .with_help("take its part first: `real(...)`, `imag(...)`, `abs(...)` or `angle(...)`"),
        );
    }

    fn location(&self, span: Span) -> String {
        let (line, col) = crate::render::line_col_indexed(
            self.place.text,
            self.place.line_starts,
            span.start + self.place.offset,
        );
        format!(
            "nilang::Location {{ file: {:?}, line: {line}, column: {col} }}",
            self.place.path
        )
    }

    fn def_kind(&self, span: Span) -> Option<(usize, Kind)> {
        let id = self.resolution.def_at(span)?;
        // A typecast changes an ancilla's type from where it runs on.
        if let Some((_, kind)) = self.casts.iter().rev().find(|(d, _)| *d == id) {
            return Some((id, kind.clone()));
        }
        Some((id, kind_of(&self.types.defs[id])))
    }

    fn access(&self, id: usize) -> Access {
        match self.resolution.defs[id].kind {
            DefKind::Param(i) if self.mutated.get(i).copied().unwrap_or(false) => {
                if kind_of(&self.types.defs[id]).is_scalar_like() {
                    Access::MutRef
                } else {
                    Access::Direct
                }
            }
            _ => Access::Direct,
        }
    }

    fn function(&mut self, f: &Function, name: &str, with_doc: bool) {
        self.body.clone_from(&f.body.stmts);
        self.casts.clear();
        if let Some(doc) = self.ad.as_ref().map(|ad| ad.doc.clone()) {
            for l in doc.lines() {
                self.line(format!("/// {l}").trim_end());
            }
        } else if with_doc {
            if let Some(doc) = &f.doc {
                for l in doc.lines() {
                    self.line(format!("/// {}", l.trim()).trim_end());
                }
            }
        } else {
            self.line(&format!(
                "/// Undoes [`{}`]: runs its inverse.",
                rust_name(&f.name.name)
            ));
        }
        let mut list: Vec<String> = f
            .generics
            .iter()
            .map(|g| format!("{}: nilang::Real", g.name.name))
            .collect();
        if let Some(ad) = &self.ad {
            list.push(format!("G: nilang::Adjoint<{}>", ad.scalar));
        }
        let generics = if list.is_empty() {
            String::new()
        } else {
            format!("<{}>", list.join(", "))
        };
        let mut params = Vec::new();
        if f.kernel {
            // The invocation's index (`global_index()`), 1-based.
            params.push("global_index: i64".to_string());
        }
        let mut csc_checks = Vec::new();
        for (i, p) in f.params.iter().enumerate() {
            let kind = self
                .resolution
                .def_at(p.name.span)
                .filter(|_| p.ty.is_some())
                .map(|id| kind_of(&self.types.defs[id]))
                .unwrap_or(Kind::Unknown);
            let mutated = self.mutated.get(i).copied().unwrap_or(false);
            let name = rust_name(&p.name.name);
            let elem = |k: &Kind| match k {
                Kind::Array(e) | Kind::Matrix(e) | Kind::Csc(e) => rust_scalar(e),
                _ => None,
            };
            let rust = match (&kind, mutated) {
                (Kind::Array(_), m) => elem(&kind).map(|s| {
                    let r = if m { "&mut " } else { "&" };
                    format!("{name}: {r}[{s}]")
                }),
                (Kind::Matrix(_), m) => elem(&kind).map(|s| {
                    if m {
                        format!("mut {name}: nilang::ndarray::ArrayViewMut2<'_, {s}>")
                    } else {
                        format!("{name}: nilang::ndarray::ArrayView2<'_, {s}>")
                    }
                }),
                (Kind::Csc(_), m) => elem(&kind).map(|s| {
                    csc_checks.push((name.clone(), p.name.name.clone(), p.span));
                    if m {
                        format!("mut {name}: nilang::sprs::CsMatViewMut<'_, {s}>")
                    } else {
                        format!("{name}: nilang::sprs::CsMatView<'_, {s}>")
                    }
                }),
                (Kind::Stack(_), m) => rust_scalar(&kind).map(|s| {
                    let r = if m { "&mut " } else { "&" };
                    format!("{name}: {r}{s}")
                }),
                (k, m) => rust_scalar(k).map(|s| {
                    let r = if m { "&mut " } else { "" };
                    format!("{name}: {r}{s}")
                }),
            };
            match rust {
                Some(r) => params.push(r),
                None => {
                    self.unsupported(p.span, "this parameter type");
                    params.push(format!("{name}: ()"));
                }
            }
            if self.ad.is_some()
                && let Some(bar) = adjoint::bar_param_type(&kind)
            {
                let m = if let Kind::Matrix(_) = kind {
                    "mut "
                } else {
                    ""
                };
                params.push(format!("{m}{}: {bar}", adjoint::bar_name(&p.name.name)));
            }
        }
        for kw in &f.kwparams {
            let kind = self
                .def_kind(kw.name.span)
                .map(|(_, k)| k)
                .unwrap_or(Kind::Unknown);
            let rust = rust_scalar(&kind).unwrap_or_else(|| "f64".into());
            params.push(format!("{}: {rust}", rust_name(&kw.name.name)));
        }
        if self.tape_param {
            params.push("__tape: &mut nilang::Tape".to_string());
        }
        // Generated functions are generic, so they are compiled in the
        // user's crate anyway; the hint lets LLVM inline small callees (a
        // distance, a multiplier) into the loops that call them, where their
        // view set-up and bounds checks are hoisted and, without checks,
        // dead uncomputations removed. `@inline` insists.
        self.line(if f.inline {
            "#[inline(always)]"
        } else {
            "#[inline]"
        });
        self.line(&format!(
            "pub fn {name}{generics}({}) -> nilang::Result {{",
            params.join(", ")
        ));
        self.level += 1;
        for (name, nil_name, span) in csc_checks {
            let location = self.location(span);
            let what = format!("`{nil_name}` must be stored by column (CSC)");
            self.line(&format!(
                "if !{name}.is_csc() {{ return Err(nilang::Error::new({location}, nilang::Check::Shape, {what:?}, \"CSC\", \"CSR\")); }}"
            ));
        }
        if let Some(body) = self.ad.as_ref().and_then(|ad| ad.body.clone()) {
            for l in body {
                self.line(&l);
            }
        } else {
            self.block(&f.body.stmts);
            self.line("Ok(())");
        }
        self.level -= 1;
        self.line("}");
    }

    /// Whether instructions get their adjoint rules: in an adjoint, outside
    /// a plain routine.
    fn differentiating(&self) -> bool {
        self.ad.is_some() && !self.plain
    }

    fn block(&mut self, stmts: &[Stmt]) {
        self.block_from(stmts, 0, Vec::new());
    }

    /// The statements of a block from index `start` on (a `~@routine` there
    /// may undo a `@routine` before it); `after` holds lines to emit after
    /// the `~@routine` at an index (see `plain_routine`).
    fn block_from(&mut self, stmts: &[Stmt], start: usize, mut after: Vec<(usize, Vec<String>)>) {
        if start == 0 {
            self.cast_block(stmts);
        }
        let pairs = routine_pairs(stmts);
        // The local tapes of the `@routine`s that record, by the index of
        // their `~@routine`.
        let mut local_tapes: Vec<(usize, String)> = Vec::new();
        for (i, stmt) in stmts.iter().enumerate().skip(start) {
            if let StmtKind::Unroutine = stmt.kind {
                if let Some(expansion) = unroutine_expansion(stmts, &pairs, i)
                    && !self.dead_uncomputation(&expansion, &stmts[i + 1..])
                {
                    let local = local_tapes
                        .iter()
                        .find(|(end, _)| *end == i)
                        .map(|(_, t)| t.clone());
                    let saved = (self.tape.clone(), self.mode);
                    if local.is_some() {
                        self.tape = local;
                        self.mode = self.mode.map(|_| tape::TapeMode::Pop);
                    }
                    self.stmt(&expansion);
                    (self.tape, self.mode) = saved;
                }
                if let Some(k) = after.iter().position(|(at, _)| *at == i) {
                    for l in after.remove(k).1 {
                        self.line(&l);
                    }
                }
                continue;
            }
            let saved = (self.tape.clone(), self.mode);
            if let (StmtKind::Routine(inner), Some(end)) = (&stmt.kind, pairs[i])
                && self.routine_needs_tape(inner)
            {
                let t = self.fresh("tape_r");
                self.line(&format!("let mut {t} = nilang::Tape::new();"));
                local_tapes.push((end, t.clone()));
                self.tape = Some(t);
                self.mode = self.mode.map(|_| tape::TapeMode::Push);
            }
            if let (StmtKind::Routine(inner), Some(end)) = (&stmt.kind, pairs[i])
                && self.differentiating()
                && let Some((save, restore)) = self.plain_routine(stmts, i, end, inner)
            {
                for l in save {
                    self.line(&l);
                }
                self.plain = true;
                self.stmt(stmt);
                self.plain = false;
                after.push((end, restore));
                (self.tape, self.mode) = saved;
                continue;
            }
            self.stmt(stmt);
            (self.tape, self.mode) = saved;
        }
    }

    /// Whether a `~@routine` can be skipped: with checks off, an
    /// uncomputation that writes only ancillas, followed by nothing but
    /// deallocations, changes nothing a caller can see (the ancillas are
    /// freed unchecked). Its result would only feed the checks, so it is not
    /// generated; this halves the work of the compute-copy-uncompute pattern.
    /// Not in an adjoint (see below).
    fn dead_uncomputation(&self, expansion: &Stmt, rest: &[Stmt]) -> bool {
        // In a reverse pass the uncomputation's adjoint rules pass the
        // ancillas' adjoints on to the inputs: it is never dead there.
        if self.checks
            || self.ad.is_some()
            || !rest
                .iter()
                .all(|s| matches!(s.kind, StmtKind::Dealloc { .. }))
        {
            return false;
        }
        // Every variable written must be an ancilla that `rest` frees.
        let freed: Vec<usize> = rest
            .iter()
            .filter_map(|s| match &s.kind {
                StmtKind::Dealloc { name, .. } => self.resolution.def_at(name.span),
                _ => None,
            })
            .collect();
        let mut dead = true;
        self.visit_writes(std::slice::from_ref(expansion), &mut |root| {
            let def = root.and_then(|span| self.resolution.def_at(span));
            dead &= def.is_some_and(|id| {
                matches!(self.resolution.defs[id].kind, DefKind::Ancilla) && freed.contains(&id)
            });
        });
        dead
    }

    /// Calls `f` with the span of the root variable of every place the
    /// statements may write, and `None` for an effect that is not a write to
    /// a variable (printing, an unknown callee).
    fn visit_writes(&self, stmts: &[Stmt], f: &mut dyn FnMut(Option<Span>)) {
        let mutates = |name: &str| {
            self.ctx
                .callee(name)
                .map(|sig| sig.params.iter().map(|(m, _)| *m).collect())
        };
        crate::taping::visit_writes(stmts, &mutates, f);
    }

    fn stmt(&mut self, stmt: &Stmt) {
        if let Some(rewritten) = self.conj_view(stmt) {
            return self.stmt(&rewritten);
        }
        if let Some(rewritten) = self.number_rewrite(stmt) {
            return self.stmt(&rewritten);
        }
        if self.number_broadcast(stmt) {
            return;
        }
        if let StmtKind::Instr {
            target, op, value, ..
        } = &stmt.kind
            && self.tropical_max(target, *op, value, stmt.span)
        {
            return;
        }
        match &stmt.kind {
            StmtKind::Instr {
                target,
                op,
                broadcast,
                value,
                ..
            } if self.mode.is_some()
                && (matches!(op, InstrOp::Assign | InstrOp::Mul | InstrOp::Div)
                    || (self.record_all && !broadcast && split_sincos(stmt).is_none())) =>
            {
                self.tape_overwrite(target, *op, value, *broadcast, stmt.span)
            }
            StmtKind::Instr {
                target,
                op,
                broadcast,
                value,
                ..
            } => {
                if let Some(parts) = split_sincos(stmt) {
                    for part in &parts {
                        self.stmt(part);
                    }
                    return;
                }
                // In `f_adjoint_accumulating`, an accumulator's own value is
                // neither read by any rule nor wanted afterwards.
                let skip = self.differentiating()
                    && !self.skip_values.is_empty()
                    && target
                        .root_var()
                        .and_then(|(_, span)| self.resolution.def_at(span))
                        .is_some_and(|id| self.skip_values.contains(&id));
                if *broadcast {
                    if self.differentiating() {
                        self.ad_broadcast(target, *op, value, stmt.span);
                    }
                    if !skip {
                        self.broadcast_instruction(target, *op, value, stmt.span);
                    }
                } else {
                    if self.differentiating() {
                        self.ad_instruction(target, *op, value, stmt.span);
                    }
                    if !skip {
                        self.instruction(target, *op, value, stmt.span);
                    }
                }
            }
            StmtKind::Call(call) => self.call(call, stmt.span),
            StmtKind::Alloc { name, value } => {
                let kind = self
                    .def_kind(name.span)
                    .map(|(_, k)| k)
                    .unwrap_or(Kind::Unknown);
                let code = self.value_as(value, &kind);
                let annotation = rust_scalar(&kind)
                    .map(|s| format!(": {s}"))
                    .unwrap_or_default();
                self.line(&format!(
                    "let mut {}{annotation} = {code};",
                    rust_name(&name.name)
                ));
                if self.ad.is_some() {
                    self.ad_alloc(name, &kind);
                }
            }
            StmtKind::Dealloc { name, .. } if self.is_stack_def(name.span) => {
                self.stack_dealloc(name, stmt.span)
            }
            StmtKind::Dealloc { name, value } => {
                if self.differentiating() {
                    // `t → e` is `t -= e; t → 0`: in a reverse pass this undoes
                    // the forward `t ← e`, so what `e` reads gets t̄ ∂e. A
                    // constant `e` passes nothing on (the paper's theorem 1).
                    let var = Expr {
                        kind: ExprKind::Var(name.name.clone()),
                        span: name.span,
                    };
                    if let Some((log, value)) = self.ulog_dealloc(&var, value, stmt.span) {
                        self.ad_instruction(&log, InstrOp::Sub, &value, stmt.span);
                    } else {
                        match self.destructure(&var, value) {
                            // A struct: the rule of each field.
                            Some(fields) => {
                                for (place, v) in fields {
                                    self.ad_instruction(&place, InstrOp::Sub, &v, stmt.span);
                                }
                            }
                            None => self.ad_instruction(&var, InstrOp::Sub, value, stmt.span),
                        }
                    }
                }
                if !self.checks {
                    return;
                }
                let kind = self
                    .def_kind(name.span)
                    .map(|(_, k)| k)
                    .unwrap_or(Kind::Unknown);
                let expected = self.value_as(value, &kind);
                let var = rust_name(&name.name);
                let e = self.fresh("expected");
                self.line(&format!("let {e} = {expected};"));
                let location = self.location(stmt.span);
                let what = format!(
                    "`{}` must equal `{}` when deallocated",
                    name.name,
                    crate::printer::print_expr(value)
                );
                self.line(&format!(
                    "if !nilang::CheckEq::check_eq(&{var}, &{e}, ATOL) {{ return Err(nilang::Error::new({location}, nilang::Check::Deallocation, {what:?}, &{e}, &{var})); }}"
                ));
            }
            StmtKind::If {
                branches,
                otherwise,
            } if self.mode.is_some() => self.tape_if(branches, otherwise.as_ref(), stmt.span),
            StmtKind::If {
                branches,
                otherwise,
            } => self.if_chain(branches, otherwise.as_ref()),
            StmtKind::While { cond, body } if self.mode == Some(tape::TapeMode::Push) => {
                self.tape_while_push(cond, body)
            }
            StmtKind::While { cond, body } if self.mode == Some(tape::TapeMode::Pop) => {
                self.tape_while_pop(cond, body)
            }
            StmtKind::While { cond, body } => self.while_loop(cond, body),
            StmtKind::Tape(inner) => self.tape_forward(inner),
            StmtKind::Inverse(inner) if matches!(inner.kind, StmtKind::Tape(_)) => {
                if let StmtKind::Tape(l) = &inner.kind {
                    self.tape_backward(l);
                }
            }
            StmtKind::For { var, range, body } => self.for_loop(var, range, body),
            StmtKind::Begin(block) => self.block(&block.stmts),
            StmtKind::Inverse(inner) => self.stmt(&invert_stmt(inner)),
            StmtKind::Routine(inner) | StmtKind::InBounds(inner) => self.stmt(inner),
            StmtKind::InvCheckOff(inner) => {
                let was = self.checks;
                self.checks = false;
                self.stmt(inner);
                self.checks = was;
            }
            StmtKind::Unroutine => {}
            StmtKind::Safe(expr) => self.safe(expr, stmt.span),
            StmtKind::Typecast { from, to, value } => self.typecast(from, to, value, stmt.span),
        }
    }

    /// An lvalue for a place, and the place's kind; `negated` when the place
    /// is `-x` (the instruction's sign flips).
    fn lvalue(&mut self, expr: &Expr) -> Option<(String, Kind, bool)> {
        match &expr.kind {
            ExprKind::Var(name) => {
                let (id, kind) = self.def_kind(expr.span)?;
                let code = match self.access(id) {
                    Access::MutRef => format!("(*{})", rust_name(name)),
                    Access::Direct => rust_name(name),
                };
                Some((code, kind, false))
            }
            ExprKind::Index { base, indices } => {
                let (base_code, base_kind, negated) = self.lvalue(base)?;
                if base_kind == Kind::Offsets {
                    self.unsupported(expr.span, "changing the structure of a sparse matrix");
                    return None;
                }
                let (code, elem) = self.element(base_code, base_kind, indices, expr.span)?;
                Some((code, elem, negated))
            }
            ExprKind::Field { base, field } => {
                let (base_code, base_kind, negated) = self.lvalue(base)?;
                let (code, kind) =
                    self.field(base_code, &base_kind, &field.name, true, expr.span)?;
                Some((code, kind, negated))
            }
            ExprKind::Paren(inner) => self.lvalue(inner),
            ExprKind::Adjoint(inner) => {
                let (code, kind, negated) = self.lvalue(inner)?;
                if let Kind::Complex(_) = kind {
                    // `z' += e` and `z' -= e` are rewritten (`codegen::view`).
                    self.unsupported(
                        expr.span,
                        "changing the conjugate view `z'` of a complex `z` other than by `+=` or `-=`",
                    );
                    return None;
                }
                Some((code, kind, negated))
            }
            ExprKind::Call { callee, args, .. }
                if matches!(callee.name.as_str(), "real" | "imag") && args.len() == 1 =>
            {
                let (base_code, base_kind, negated) = self.lvalue(&args[0])?;
                if let Kind::Complex(_) = base_kind {
                    let f = if callee.name == "real" { "re" } else { "im" };
                    let (code, kind) = self.field(base_code, &base_kind, f, true, expr.span)?;
                    Some((code, kind, negated))
                } else if callee.name == "real" {
                    Some((base_code, base_kind, negated))
                } else {
                    self.unsupported(expr.span, "`imag` of a real place");
                    None
                }
            }
            ExprKind::Unary {
                op: UnaryOp::Neg,
                operand,
            } => {
                let (code, kind, negated) = self.lvalue(operand)?;
                Some((code, kind, !negated))
            }
            _ => {
                self.unsupported(expr.span, "this kind of place");
                None
            }
        }
    }

    /// `base.field`: the parts of a complex number, the arrays of a CSC
    /// matrix (`nzval` mutably when `place`).
    fn field(
        &mut self,
        base_code: String,
        base_kind: &Kind,
        field: &str,
        place: bool,
        span: Span,
    ) -> Option<(String, Kind)> {
        match (base_kind, field) {
            (Kind::Complex(inner), "re" | "im") => {
                Some((format!("{base_code}.{field}"), (**inner).clone()))
            }
            (Kind::ULog(inner), "log") | (Kind::Tropical(inner), "n") => {
                Some((format!("{base_code}.{field}"), (**inner).clone()))
            }
            (Kind::Struct { fields, .. }, _) => match fields.iter().find(|(f, _, _)| f == field) {
                Some((_, kind, _)) => {
                    Some((format!("{base_code}.{}", rust_name(field)), kind.clone()))
                }
                None => {
                    self.unsupported(span, &format!("the field `{field}` of this value"));
                    None
                }
            },
            (Kind::Csc(_), "colptr") => {
                Some((format!("{base_code}.indptr().raw_storage()"), Kind::Offsets))
            }
            (Kind::Csc(_), "rowval") => Some((format!("{base_code}.indices()"), Kind::Offsets)),
            (Kind::Csc(inner), "nzval") => {
                let method = if place { "data_mut" } else { "data" };
                Some((
                    format!("{base_code}.{method}()"),
                    Kind::Array(inner.clone()),
                ))
            }
            _ => {
                self.unsupported(span, &format!("the field `{field}` of this value"));
                None
            }
        }
    }

    /// `base[indices]`: an element of a vector or a matrix; the code and the
    /// element kind.
    fn element(
        &mut self,
        base_code: String,
        base_kind: Kind,
        indices: &[IndexArg],
        span: Span,
    ) -> Option<(String, Kind)> {
        match (base_kind, indices) {
            (Kind::Array(elem), [IndexArg::Expr(index)]) => {
                let i = self.index(index);
                Some((format!("{base_code}[{i}]"), *elem))
            }
            (Kind::Offsets, [IndexArg::Expr(index)]) => {
                let i = self.index(index);
                Some((format!("({base_code}[{i}] as i64 + 1)"), Kind::Int("i64")))
            }
            (Kind::Matrix(elem), [IndexArg::Expr(row), IndexArg::Expr(col)]) => {
                let r = self.index(row);
                let c = self.index(col);
                Some((format!("{base_code}[[{r}, {c}]]"), *elem))
            }
            (Kind::Array(_) | Kind::Matrix(_) | Kind::Offsets, _) => {
                self.unsupported(span, "this kind of indexing here");
                None
            }
            _ => {
                self.unsupported(span, "indexing this value");
                None
            }
        }
    }

    /// `A[:, j]` of a matrix `A`: the matrix, the 0-based column and the
    /// element kind.
    fn column_of(&mut self, expr: &Expr) -> Option<(String, String, Kind)> {
        let ExprKind::Index { base, indices } = &expr.kind else {
            return None;
        };
        let [IndexArg::Colon(_), IndexArg::Expr(col)] = indices.as_slice() else {
            return None;
        };
        let ExprKind::Var(name) = &base.kind else {
            return None;
        };
        let (_, Kind::Matrix(elem)) = self.def_kind(base.span)? else {
            return None;
        };
        let c = self.index(col);
        Some((rust_name(name), c, *elem))
    }

    /// A 1-based index expression as a 0-based `usize`.
    fn index(&mut self, index: &Expr) -> String {
        let (code, kind) = self.expr(index);
        let code = convert(code, &kind, &Kind::Int("i64"));
        format!("({code} - 1) as usize")
    }

    fn instruction(&mut self, target: &Expr, op: InstrOp, value: &Expr, span: Span) {
        let Some((place, kind, negated)) = self.lvalue(target) else {
            return;
        };
        let (code, from) = self.expr(value);
        if matches!(from, Kind::Complex(_)) && !matches!(kind, Kind::Complex(_) | Kind::Unknown) {
            self.complex_into_real(target, value);
            return;
        }
        let op = if negated { op.inverse() } else { op };
        if self.fixed_update(target, &place, &kind, op, code.clone(), &from, span) {
            return;
        }
        let code = convert(code, &from, &kind);
        let t = self.fresh("v");
        let Some(update) = self.update(&place, op, &t, span) else {
            return;
        };
        self.line(&format!("let {t} = {code};"));
        self.line(&update);
    }

    fn update(&mut self, place: &str, op: InstrOp, value: &str, span: Span) -> Option<String> {
        let sym = match op {
            InstrOp::Add => "+=",
            InstrOp::Sub => "-=",
            InstrOp::Xor => "^=",
            InstrOp::Mul => "*=",
            InstrOp::Div => "/=",
            InstrOp::Assign => {
                self.unsupported(span, "an irreversible assignment");
                return None;
            }
        };
        Some(format!("{place} {sym} {value};"))
    }

    /// `x .+= f.(y, z)`: a loop over the elements of `x` (a vector, a matrix
    /// column `A[:, j]` or a matrix); array operands of the value are read
    /// element by element and must have `x`'s shape.
    /// The element place, shape and element kind of a broadcast target.
    fn bcast_target(&mut self, target: &Expr) -> Option<BcastTarget> {
        let text = crate::printer::print_expr(target);
        if let Some((m, c, elem)) = self.column_of(target) {
            return Some(BcastTarget {
                place: format!("{m}[[__i, {c}]]"),
                shape: format!("{m}.nrows()"),
                elem,
                text,
                two_d: false,
            });
        }
        let (place, kind, negated) = self.lvalue(target)?;
        if negated {
            self.unsupported(target.span, "a negated broadcast target");
            return None;
        }
        match kind {
            Kind::Array(e) => Some(BcastTarget {
                place: format!("{place}[__i]"),
                shape: format!("{place}.len()"),
                elem: *e,
                text,
                two_d: false,
            }),
            Kind::Matrix(e) => Some(BcastTarget {
                place: format!("{place}[[__r, __c]]"),
                shape: format!("({place}.nrows(), {place}.ncols())"),
                elem: *e,
                text,
                two_d: true,
            }),
            _ => {
                self.unsupported(target.span, "a broadcast into a scalar");
                None
            }
        }
    }

    /// A loop over the elements of a broadcast target running `body`
    /// (`__i`, or `__r` and `__c`), after checking that every array operand
    /// has the target's shape.
    fn bcast_loop(
        &mut self,
        t: &BcastTarget,
        operands: Vec<(String, String)>,
        span: Span,
        body: &[String],
    ) {
        self.line("{");
        self.level += 1;
        self.line(&format!("let __shape = {};", t.shape));
        let location = self.location(span);
        let mut checked = Vec::new();
        for (operand_shape, text) in operands {
            if checked.contains(&operand_shape) {
                continue;
            }
            checked.push(operand_shape.clone());
            let what = format!("`{text}` must have the shape of `{}`", t.text);
            self.line(&format!(
                "if {operand_shape} != __shape {{ return Err(nilang::Error::new({location}, nilang::Check::Shape, {what:?}, __shape, {operand_shape})); }}"
            ));
        }
        if t.two_d {
            self.line("for __c in 0..__shape.1 {");
            self.line("    for __r in 0..__shape.0 {");
            for l in body {
                self.line(&format!("        {l}"));
            }
            self.line("    }");
        } else {
            self.line("for __i in 0..__shape {");
            for l in body {
                self.line(&format!("    {l}"));
            }
        }
        self.line("}");
        self.level -= 1;
        self.line("}");
    }

    fn broadcast_instruction(&mut self, target: &Expr, op: InstrOp, value: &Expr, span: Span) {
        let Some(t) = self.bcast_target(target) else {
            return;
        };
        self.bcast = Some(Bcast {
            two_d: t.two_d,
            operands: Vec::new(),
        });
        let code = self.value_as(value, &t.elem);
        let operands = self.bcast.take().map(|b| b.operands).unwrap_or_default();
        let Some(update) = self.update(&t.place, op, "__v", span) else {
            return;
        };
        self.bcast_loop(&t, operands, span, &[format!("let __v = {code};"), update]);
    }

    /// Runs `f` outside the current broadcast: arrays are whole values again
    /// (the base of `x[k]`, the argument of `length(x)`).
    fn whole<R>(&mut self, f: impl FnOnce(&mut Self) -> R) -> R {
        let saved = self.bcast.take();
        let r = f(self);
        self.bcast = saved;
        r
    }

    fn value_as(&mut self, value: &Expr, kind: &Kind) -> String {
        if let Some(code) = self.construct(value, kind) {
            return code;
        }
        let (code, from) = self.expr(value);
        convert(code, &from, kind)
    }

    fn call(&mut self, call: &Call, span: Span) {
        if let Some(instr) = crate::builtins::instruction(&call.callee.name) {
            if stack::is_stack_instruction(instr.name) {
                self.stack_instruction(instr.name, call, span);
                return;
            }
            if self.differentiating() {
                self.ad_instruction_call(instr.name, call, span);
            }
            self.instruction_call(instr.name, call, span);
            return;
        }
        let Some(sig) = self.ctx.callee(&call.callee.name) else {
            self.unsupported(span, "a call of an unknown function");
            return;
        };
        // A callee without differentiable parameters passes no adjoint: its
        // own inverse is all the reverse pass needs.
        let ad = self.differentiating()
            && sig
                .params
                .iter()
                .any(|(_, ty)| adjoint::bar_param_type(&kind_of(ty)).is_some());
        let name = match (call.inverted, ad) {
            (true, false) => uncall_name(&call.callee.name),
            (false, false) => rust_name(&call.callee.name),
            // In an adjoint, `~g(...)` undoes a call of `g`: its reverse pass
            // is `g_adjoint`; `g(...)` undoes `~g`, so it is `uncall_g_adjoint`.
            (true, true) => adjoint::adjoint_name(&call.callee.name),
            (false, true) => adjoint::uncall_adjoint_name(&call.callee.name),
        };
        let path = match &sig.module {
            Some(m) => format!("super::{}::{name}", rust_name(m)),
            None => name,
        };
        let mut args = Vec::new();
        let mut write_back = Vec::new();
        for (arg, (mutated, ty)) in call.args.iter().zip(&sig.params) {
            let param_kind = kind_of(ty);
            if *mutated {
                match self.mutable_arg(arg) {
                    Some((code, back)) => {
                        args.push(code);
                        write_back.extend(back);
                    }
                    None => return,
                }
            } else if let Kind::Array(_) = param_kind {
                if let Some((m, c, _)) = self.column_of(arg) {
                    args.push(format!("&nilang::column({m}.column({c}))"));
                } else {
                    let (code, _) = self.expr(arg);
                    args.push(format!("&{code}[..]"));
                }
            } else if let Kind::Matrix(_) | Kind::Csc(_) = param_kind {
                let (code, _) = self.expr(arg);
                args.push(format!("{code}.view()"));
            } else if let Kind::Stack(_) = param_kind {
                match self.stack_arg(arg) {
                    Some(code) => args.push(code),
                    None => return,
                }
            } else {
                let (code, from) = self.expr(arg);
                let to = match &param_kind {
                    Kind::Generic(_) | Kind::Unknown => from.clone(),
                    k => k.clone(),
                };
                args.push(convert(code, &from, &to));
            }
            if ad && adjoint::bar_param_type(&param_kind).is_some() {
                match self.ad_bar_arg(arg, &param_kind) {
                    Some((code, back)) => {
                        args.push(code);
                        write_back.extend(back);
                    }
                    None => return,
                }
            }
        }
        for (kw_name, ty, default) in &sig.kwparams {
            let value = call
                .kwargs
                .iter()
                .find(|k| &k.name.name == kw_name)
                .map(|k| &k.value)
                .unwrap_or(default);
            // A struct default (`p::P = P(1.0)`) is a construction.
            let (code, from) = match self.construct(value, &kind_of(ty)) {
                Some(code) => (code, kind_of(ty)),
                None => self.expr(value),
            };
            let to = match kind_of(ty) {
                Kind::Generic(_) | Kind::Unknown => from.clone(),
                k => k,
            };
            args.push(convert(code, &from, &to));
        }
        if sig.taped {
            args.push(self.tape_arg());
        }
        let call_line = format!("{path}({})?;", args.join(", "));
        if write_back.is_empty() {
            self.line(&call_line);
        } else {
            self.line("{");
            self.level += 1;
            for (decl, _) in &write_back {
                self.line(decl);
            }
            self.line(&call_line);
            for (_, back) in &write_back {
                if !back.is_empty() {
                    self.line(back);
                }
            }
            self.level -= 1;
            self.line("}");
        }
    }

    /// The argument for a mutated parameter, and, for an element of an
    /// array, the temporary that carries it (declaration, write-back).
    fn mutable_arg(&mut self, arg: &Expr) -> Option<(String, Option<(String, String)>)> {
        if let ExprKind::Var(name) = &arg.kind {
            let (id, kind) = self.def_kind(arg.span)?;
            let n = rust_name(name);
            return Some(match (self.access(id), kind) {
                (Access::MutRef, _) => (format!("&mut *{n}"), None),
                (Access::Direct, Kind::Array(_)) => (format!("&mut {n}[..]"), None),
                (Access::Direct, Kind::Matrix(_) | Kind::Csc(_)) => {
                    (format!("{n}.view_mut()"), None)
                }
                (Access::Direct, Kind::Stack(_)) => (self.stack_ref(id, &n, true), None),
                (Access::Direct, _) => (format!("&mut {n}"), None),
            });
        }
        if let Some((m, c, _)) = self.column_of(arg) {
            // The column is written back (if it had to be copied) when the
            // guard is dropped at the end of the call's block.
            let t = self.fresh("col");
            return Some((
                format!("&mut {t}"),
                Some((
                    format!("let mut {t} = nilang::ColumnMut::new({m}.column_mut({c}));"),
                    String::new(),
                )),
            ));
        }
        let (place, _, negated) = self.lvalue(arg)?;
        if negated {
            self.unsupported(arg.span, "passing `-x` to a function that changes it");
            return None;
        }
        let t = self.fresh("arg");
        Some((
            format!("&mut {t}"),
            Some((format!("let mut {t} = {place};"), format!("{place} = {t};"))),
        ))
    }

    fn instruction_call(&mut self, name: &str, call: &Call, span: Span) {
        let mut places = Vec::new();
        let instr = crate::builtins::instruction(name).expect("known instruction");
        for (i, arg) in call.args.iter().enumerate() {
            if instr.mutates.contains(&i) {
                match self.lvalue(arg) {
                    Some((place, kind, false)) => places.push((place, kind)),
                    Some(_) => {
                        self.unsupported(arg.span, "a negated argument to an instruction");
                        return;
                    }
                    None => return,
                }
            }
        }
        if call.inverted {
            // `~SWAP(a, b)` is `SWAP`'s inverse instruction.
            let inverse = crate::builtins::instruction(instr.inverse).expect("inverse");
            let call = Call {
                inverted: false,
                callee: Ident {
                    name: inverse.name.to_string(),
                    span: call.callee.span,
                },
                ..call.clone()
            };
            self.instruction_call(inverse.name, &call, span);
            return;
        }
        let scalar = |k: &Kind| rust_scalar(k).unwrap_or_else(|| "f64".into());
        let Some((_, ka)) = places.first().cloned() else {
            return;
        };
        // The instruction's rule is the analysis's (`builtins::Rule`); this
        // renders it in Rust.
        match instr.rule {
            crate::builtins::Rule::Linear { rows, angle, .. } => {
                let uses_angle = rows
                    .iter()
                    .flat_map(|r| r.iter())
                    .any(|(_, f)| f.uses_angle());
                let angle = match angle {
                    Some(k) if uses_angle => {
                        let theta = self.value_as(&call.args[k], &ka);
                        let (s, c) = (self.fresh("s"), self.fresh("c"));
                        self.line(&format!(
                            "let ({s}, {c}) = (nilang::Real::sin({theta}), nilang::Real::cos({theta}));"
                        ));
                        Some((s, c))
                    }
                    _ => None,
                };
                let rsqrt2 = format!(
                    "<{} as nilang::Real>::from_f64(std::f64::consts::FRAC_1_SQRT_2)",
                    scalar(&ka)
                );
                let factors = Factors {
                    angle: angle.as_ref(),
                    rsqrt2: &rsqrt2,
                };
                let olds = self.old_values(&places);
                for ((place, _), row) in places.iter().zip(rows) {
                    let value = factors.linear_combination(row, &olds);
                    self.line(&format!("{place} = {value};"));
                }
            }
            crate::builtins::Rule::Scale { by, divide } => {
                let (a, k) = places[0].clone();
                let n = self.value_as(&call.args[by], &k);
                let op = if divide { "/=" } else { "*=" };
                let t = self.fresh("n");
                self.line(&format!("let {t} = {n};"));
                self.line(&format!("{a} {op} {t};"));
            }
            crate::builtins::Rule::Shift { up } => {
                let (a, k) = &places[0];
                let op = if up { "+=" } else { "-=" };
                self.line(&format!("{a} {op} nilang::one::<{}>();", scalar(k)));
            }
            crate::builtins::Rule::Conj => {
                // The conjugate of a real number is itself.
                let (a, k) = &places[0];
                if matches!(k, Kind::Complex(_)) {
                    self.line(&format!("{a} = nilang::complex::conj({a});"));
                }
            }
            crate::builtins::Rule::Stack => {
                self.unsupported(span, &format!("the instruction `{name}` here"))
            }
        }
    }

    /// Copies of the old values of an instruction's changed places, so each
    /// new value reads the old ones (a single place that only itself reads
    /// needs none, but the copy costs nothing after optimization).
    fn old_values(&mut self, places: &[(String, Kind)]) -> Vec<String> {
        let names: Vec<String> = (0..places.len())
            .map(|i| self.fresh(["a", "b"].get(i).copied().unwrap_or("x")))
            .collect();
        if let [single] = names.as_slice() {
            self.line(&format!("let {single} = {};", places[0].0));
        } else {
            let values: Vec<&str> = places.iter().map(|(p, _)| p.as_str()).collect();
            self.line(&format!(
                "let ({}) = ({});",
                names.join(", "),
                values.join(", ")
            ));
        }
        names
    }

    fn if_chain(&mut self, branches: &[Branch], otherwise: Option<&Block>) {
        let Some((first, rest)) = branches.split_first() else {
            return;
        };
        let (pre, kind) = self.expr(&first.cond.pre);
        let pre = convert(pre, &kind, &Kind::Bool);
        let p = self.fresh("pre");
        self.line(&format!("let {p}: bool = {pre};"));
        self.line(&format!("if {p} {{"));
        self.level += 1;
        self.block(&first.body.stmts);
        self.level -= 1;
        if !rest.is_empty() || otherwise.is_some() {
            self.line("} else {");
            self.level += 1;
            if rest.is_empty() {
                if let Some(block) = otherwise {
                    self.block(&block.stmts);
                }
            } else {
                self.if_chain(rest, otherwise);
            }
            self.level -= 1;
        }
        self.line("}");
        if self.checks {
            let post = match &first.cond.post {
                Post::Expr(e) => e,
                Post::SameAsPre(_) | Post::Missing => &first.cond.pre,
            };
            let (code, _) = self.expr(post);
            let location = self.location(first.cond.span);
            let what = format!(
                "the postcondition `{}` must agree with the branch taken",
                crate::printer::print_expr(post)
            );
            self.line(&format!(
                "if ({code}) != {p} {{ return Err(nilang::Error::new({location}, nilang::Check::IfPostcondition, {what:?}, {p}, !{p})); }}"
            ));
        }
    }

    fn while_loop(&mut self, cond: &Cond, body: &Block) {
        let (pre, _) = self.expr(&cond.pre);
        let post = match &cond.post {
            Post::Expr(e) => Some(e),
            _ => None,
        };
        let post_code = post.map(|p| (self.expr(p).0, crate::printer::print_expr(p)));
        let location = self.location(cond.span);
        if self.checks
            && let Some((code, text)) = &post_code
        {
            let what = format!("the postcondition `{text}` must be false before the loop");
            self.line(&format!(
                "if {code} {{ return Err(nilang::Error::new({location}, nilang::Check::WhileEntry, {what:?}, false, true)); }}"
            ));
        }
        self.line(&format!("while {pre} {{"));
        self.level += 1;
        self.block(&body.stmts);
        if self.checks
            && let Some((code, text)) = &post_code
        {
            let what = format!("the postcondition `{text}` must be true after each iteration");
            self.line(&format!(
                "if !({code}) {{ return Err(nilang::Error::new({location}, nilang::Check::WhileIteration, {what:?}, true, false)); }}"
            ));
        }
        self.level -= 1;
        self.line("}");
    }

    fn for_loop(&mut self, var: &Ident, range: &Range, body: &Block) {
        let int = Kind::Int("i64");
        let start = self.value_as(&range.start, &int);
        let step = match &range.step {
            Some(s) => self.value_as(s, &int),
            None => "1_i64".to_string(),
        };
        let stop = self.value_as(&range.stop, &int);
        let (a, s, b, n, k) = (
            self.fresh("start"),
            self.fresh("step"),
            self.fresh("stop"),
            self.fresh("count"),
            self.fresh("k"),
        );
        self.line("{");
        self.level += 1;
        self.line(&format!(
            "let ({a}, {s}, {b}): (i64, i64, i64) = ({start}, {step}, {stop});"
        ));
        self.line(&format!(
            "let {n}: i64 = if {s} == 0 || ({s} > 0 && {a} > {b}) || ({s} < 0 && {a} < {b}) {{ 0 }} else {{ ({b} - {a}) / {s} + 1 }};"
        ));
        // A tape `for` knows its trip count: what it records fits in
        // memory reserved up front.
        let tape = self.tape.clone().unwrap_or_else(|| "__tape".into());
        for (ty, per) in std::mem::take(&mut self.reserve) {
            self.line(&format!(
                "{tape}.reserve::<{ty}>(({n} as usize).saturating_mul({per}));"
            ));
        }
        let iter = if range.reversed {
            format!("(0..{n}).rev()")
        } else {
            format!("0..{n}")
        };
        self.line(&format!("for {k} in {iter} {{"));
        self.level += 1;
        self.line(&format!(
            "let {}: i64 = {a} + {k} * {s};",
            rust_name(&var.name)
        ));
        self.block(&body.stmts);
        self.level -= 1;
        self.line("}");
        if self.checks {
            let location = self.location(range.span);
            let what = format!(
                "the range `{}` must not change while the loop runs",
                crate::printer::range_text(range)
            );
            self.line(&format!(
                "let __now: (i64, i64, i64) = ({start}, {step}, {stop});"
            ));
            self.line(&format!(
                "if __now != ({a}, {s}, {b}) {{ return Err(nilang::Error::new({location}, nilang::Check::ForBounds, {what:?}, ({a}, {s}, {b}), __now)); }}"
            ));
        }
        self.level -= 1;
        self.line("}");
    }

    fn safe(&mut self, expr: &Expr, span: Span) {
        match &expr.kind {
            ExprKind::Call { callee, args, .. }
                if matches!(callee.name.as_str(), "println" | "print") =>
            {
                let mut fmt = String::new();
                let mut vals = Vec::new();
                for a in args {
                    if let ExprKind::Str(s) = &a.kind {
                        fmt.push_str("{}");
                        vals.push(s.clone());
                    } else {
                        fmt.push_str("{:?}");
                        vals.push(self.expr(a).0);
                    }
                }
                let mac = if callee.name == "println" {
                    "println"
                } else {
                    "print"
                };
                let sep = if vals.is_empty() { "" } else { ", " };
                self.line(&format!("{mac}!(\"{fmt}\"{sep}{});", vals.join(", ")));
            }
            ExprKind::Macro {
                name,
                arg: Some(arg),
            } if name == "@assert" => {
                // A false assertion is an error the caller gets back, like a
                // failed reversibility check, not a panic.
                let (code, _) = self.expr(arg);
                let what = format!("`@assert {}`", crate::printer::print_expr(arg));
                let location = self.location(span);
                self.line(&format!(
                    "if !({code}) {{ return Err(nilang::Error::new({location}, nilang::Check::Assertion, {what:?}, true, false)); }}"
                ));
            }
            ExprKind::Macro {
                name,
                arg: Some(arg),
            } if name == "@show" => {
                let (code, _) = self.expr(arg);
                let text = crate::printer::print_expr(arg);
                self.line(&format!("eprintln!(\"{{}} = {{:?}}\", {text:?}, {code});"));
            }
            _ => self.unsupported(
                span,
                "this `@safe` expression (use println, @assert or @show)",
            ),
        }
    }

    fn var(&mut self, name: &str, span: Span) -> (String, Kind) {
        if let Some((_, Kind::Stack(_))) = self.def_kind(span) {
            self.stack_as_value(name, span);
        }
        if let Some((id, kind)) = self.def_kind(span) {
            let code = match self.access(id) {
                Access::MutRef => format!("(*{})", rust_name(name)),
                Access::Direct => rust_name(name),
            };
            return (code, kind);
        }
        match name {
            "π" | "pi" => ("std::f64::consts::PI".into(), Kind::Float("f64")),
            "Inf" => ("f64::INFINITY".into(), Kind::Float("f64")),
            "im" => (
                "nilang::Complex::new(0.0_f64, 1.0_f64)".into(),
                Kind::Complex(Box::new(Kind::Float("f64"))),
            ),
            "NaN" => ("f64::NAN".into(), Kind::Float("f64")),
            _ => {
                self.unsupported(span, &format!("the name `{name}` here"));
                ("()".into(), Kind::Unknown)
            }
        }
    }

    /// A type named in an expression (`zero(T)`).
    fn type_kind(&self, expr: &Expr) -> Option<Kind> {
        let ExprKind::Var(name) = &expr.kind else {
            return None;
        };
        if self.resolution.def_at(expr.span).is_some() {
            return None;
        }
        if self.generics.contains(name) {
            return Some(Kind::Generic(name.clone()));
        }
        crate::builtins::SCALAR_TYPES
            .iter()
            .find(|s| *s == name)
            .map(|s| kind_of(&Ty::Scalar(s)))
    }

    fn expr(&mut self, expr: &Expr) -> (String, Kind) {
        match &expr.kind {
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
            ExprKind::Int(text) => (format!("{}_i64", text.replace('_', "")), Kind::Int("i64")),
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
                (format!("{t}_f64"), Kind::Float("f64"))
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
                let (base_code, base_kind) = self.whole(|g| g.expr(base));
                self.element(base_code, base_kind, indices, expr.span)
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
        }
    }

    fn binary(&mut self, op: BinaryOp, lhs: &Expr, rhs: &Expr, span: Span) -> (String, Kind) {
        let l = self.expr(lhs);
        let r = self.expr(rhs);
        self.binary_codes(op, l, r, span)
    }

    fn binary_codes(
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
            Add | Sub | Mul if unify(&lk, &rk) == Kind::Fixed => {
                // Fixed-point intermediates wrap instead of panicking.
                let k = Kind::Fixed;
                let method = match op {
                    Add => "wrapping_add",
                    Sub => "wrapping_sub",
                    _ => "wrapping_mul",
                };
                (
                    format!("{}.{method}({})", convert(l, &lk, &k), convert(r, &rk, &k)),
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
                    k = Kind::Float("f64");
                }
                (
                    format!("({} / {})", convert(l, &lk, &k), convert(r, &rk, &k)),
                    k,
                )
            }
            IntDiv => {
                let k = unify(&lk, &rk);
                match k {
                    Kind::Int(_) => (
                        format!("({} / {})", convert(l, &lk, &k), convert(r, &rk, &k)),
                        k,
                    ),
                    _ => (
                        format!(
                            "nilang::Real::floor({} / {})",
                            convert(l, &lk, &k),
                            convert(r, &rk, &k)
                        ),
                        k,
                    ),
                }
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
                    let n = convert(r, &rk, &Kind::Int("i64"));
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
                        convert(r, &rk, &Kind::Int("i64"))
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

    fn call_expr(&mut self, name: &str, args: &[Expr], span: Span) -> (String, Kind) {
        if let Some(r) = self.number_call(name, args) {
            return r;
        }
        if self.number_math(name, args, span) {
            return ("()".into(), Kind::Unknown);
        }
        let unary_math = |n: &str| -> Option<&'static str> {
            Some(match n {
                "abs" => "abs",
                "abs2" => "abs2",
                "sqrt" => "sqrt",
                "exp" => "exp",
                "log" => "ln",
                "sin" => "sin",
                "cos" => "cos",
                "tan" => "tan",
                "sinh" => "sinh",
                "cosh" => "cosh",
                "tanh" => "tanh",
                "asin" => "asin",
                "acos" => "acos",
                "inv" => "inv",
                "sign" => "signum",
                "floor" => "floor",
                "ceil" => "ceil",
                "round" => "round",
                _ => return None,
            })
        };
        match (name, args) {
            ("global_index", []) => ("global_index".into(), Kind::Int("i64")),
            ("identity" | "value" | "unwrap", [x]) => self.expr(x),
            ("real" | "imag" | "conj" | "angle", [x]) => {
                let (code, kind) = self.expr(x);
                match (name, kind) {
                    ("real", Kind::Complex(inner)) => (format!("{code}.re"), *inner),
                    ("imag", Kind::Complex(inner)) => (format!("{code}.im"), *inner),
                    ("conj", k @ Kind::Complex(_)) => (format!("nilang::complex::conj({code})"), k),
                    ("angle", Kind::Complex(inner)) => {
                        (format!("nilang::complex::angle({code})"), *inner)
                    }
                    ("real" | "conj", k) => (code, k),
                    ("imag", k) => {
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
            ("atan", [x]) => self.math("atan", x),
            ("atan", [y, x]) => {
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
            (n, [x]) if unary_math(n).is_some() => {
                let m = unary_math(n).expect("checked");
                let (code, kind) = self.expr(x);
                if let Kind::Complex(inner) = &kind {
                    return match m {
                        "abs" | "abs2" => {
                            (format!("nilang::complex::{m}({code})"), (**inner).clone())
                        }
                        "sqrt" | "exp" | "ln" | "sin" | "cos" | "inv" => {
                            (format!("nilang::complex::{m}({code})"), kind)
                        }
                        _ => {
                            self.unsupported(span, &format!("`{n}` of a complex number"));
                            ("()".into(), Kind::Unknown)
                        }
                    };
                }
                // `abs` keeps integers integral; the rest work on floats.
                if matches!(m, "abs" | "abs2" | "signum") {
                    (format!("nilang::Real::{m}({code})"), kind)
                } else {
                    let k = float_kind(&kind);
                    (
                        format!("nilang::Real::{m}({})", convert(code, &kind, &k)),
                        k,
                    )
                }
            }
            ("min" | "max", [a, b]) => {
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
            ("zero" | "one", [x]) => {
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
            ("zeros" | "ones", [t, dims @ ..]) if matches!(dims.len(), 1 | 2) => {
                let Some(kind) = self.type_kind(t) else {
                    self.unsupported(span, "`zeros` without an element type");
                    return ("()".into(), Kind::Unknown);
                };
                let elem = match &kind {
                    Kind::Bool => (name == "ones").to_string(),
                    k => format!(
                        "nilang::{}::<{}>()",
                        if name == "zeros" { "zero" } else { "one" },
                        rust_scalar(k).unwrap_or_default()
                    ),
                };
                let int = Kind::Int("i64");
                let lens: Vec<String> = dims
                    .iter()
                    .map(|d| self.whole(|g| g.value_as(d, &int)))
                    .collect();
                if let [m, n] = lens.as_slice() {
                    (
                        format!(
                            "nilang::ndarray::Array2::from_elem(nilang::ndarray::ShapeBuilder::f((({m}) as usize, ({n}) as usize)), {elem})"
                        ),
                        Kind::Matrix(Box::new(kind)),
                    )
                } else {
                    (
                        format!("vec![{elem}; ({}) as usize]", lens[0]),
                        Kind::Array(Box::new(kind)),
                    )
                }
            }
            ("length", [x]) => {
                let (code, kind) = self.whole(|g| g.expr(x));
                let code = match kind {
                    Kind::Csc(_) => format!("(({code}.rows() * {code}.cols()) as i64)"),
                    _ => format!("({code}.len() as i64)"),
                };
                (code, Kind::Int("i64"))
            }
            ("size", [x]) => {
                let (code, kind) = self.whole(|g| g.expr(x));
                let code = match kind {
                    Kind::Matrix(_) => format!("({code}.nrows() as i64, {code}.ncols() as i64)"),
                    Kind::Csc(_) => format!("({code}.rows() as i64, {code}.cols() as i64)"),
                    _ => format!("({code}.len() as i64,)"),
                };
                (code, Kind::Unknown)
            }
            ("size", [x, d]) => {
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
                (code, Kind::Int("i64"))
            }
            ("nnz", [x]) => {
                let (code, _) = self.whole(|g| g.expr(x));
                (format!("({code}.nnz() as i64)"), Kind::Int("i64"))
            }
            ("div", [a, b]) | ("rem", [a, b]) | ("mod", [a, b]) => {
                let (ac, ak) = self.expr(a);
                let (bc, bk) = self.expr(b);
                let k = unify(&ak, &bk);
                let (ac, bc) = (convert(ac, &ak, &k), convert(bc, &bk, &k));
                let code = match name {
                    "div" => format!("({ac} / {bc})"),
                    "rem" => format!("({ac} % {bc})"),
                    _ => format!("((({ac} % {bc}) + {bc}) % {bc})"),
                };
                (code, k)
            }
            ("stack", [t]) => self.stack_new(t, span),
            _ => {
                self.unsupported(span, &format!("a call of `{name}` in an expression"));
                ("()".into(), Kind::Unknown)
            }
        }
    }

    fn math(&mut self, method: &str, x: &Expr) -> (String, Kind) {
        let (code, kind) = self.expr(x);
        let k = float_kind(&kind);
        (
            format!("nilang::Real::{method}({})", convert(code, &kind, &k)),
            k,
        )
    }
}

/// `(s, c) op= sincos(x)` as `s op= sin(x)` and `c op= cos(x)`.
fn split_sincos(stmt: &Stmt) -> Option<Vec<Stmt>> {
    let StmtKind::Instr {
        target,
        value,
        broadcast: false,
        ..
    } = &stmt.kind
    else {
        return None;
    };
    let ExprKind::Tuple(items) = &target.kind else {
        return None;
    };
    let ExprKind::Call { callee, args, .. } = &value.kind else {
        return None;
    };
    let ([s, c], "sincos", [x]) = (items.as_slice(), callee.name.as_str(), args.as_slice()) else {
        return None;
    };
    let part = |place: &Expr, f: &str| {
        let mut call = value.clone();
        if let ExprKind::Call { callee, args, .. } = &mut call.kind {
            callee.name = f.to_string();
            *args = vec![x.clone()];
        }
        let mut part = stmt.clone();
        if let StmtKind::Instr { target, value, .. } = &mut part.kind {
            *target = place.clone();
            *value = call;
        }
        part
    };
    Some(vec![part(s, "sin"), part(c, "cos")])
}

/// Integers are computed on as `f64` by the transcendental functions.
fn float_kind(kind: &Kind) -> Kind {
    match kind {
        Kind::Int(_) | Kind::Unknown | Kind::Bool => Kind::Float("f64"),
        k => k.clone(),
    }
}

/// The header of a generated module.
pub fn module_header(source: &str, options: &Options) -> String {
    let mut out = String::new();
    let _ = writeln!(out, "// Generated by nilang from {source}. Do not edit.");
    let _ = writeln!(
        out,
        "/// Absolute tolerance of the run-time reversibility checks."
    );
    let _ = writeln!(out, "pub const ATOL: f64 = {:?};", options.atol);
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn names_become_rust_identifiers() {
        assert_eq!(rust_name("out!"), "out");
        assert_eq!(rust_name("θ"), "theta");
        assert_eq!(rust_name("Ω2"), "Omega2");
        assert_eq!(rust_name("type"), "r#type");
        assert_eq!(rust_name("self"), "self_");
        assert_eq!(rust_name("x∂"), "xu2202");
        assert_eq!(uncall_name("umm!"), "uncall_umm");
        assert_eq!(uncall_name("type"), "uncall_type");
    }
}

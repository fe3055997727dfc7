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
use nilang_analysis::{builtins, diagnostics, effects, invert, kernel, resolve, taping, ty, types};
use nilang_syntax::{ast, printer, render};

mod adjoint;
pub mod audit;
mod calls;
mod cast;
mod control;
pub(crate) mod derivatives;
mod exprs;
mod first_writes;
mod instructions;
mod kinds;
pub(crate) mod numbers;
mod places;
mod sites;
mod small;
use places::Indexed;
pub mod queries;
mod stack;
pub mod structs;
pub(crate) mod tape;
mod view;
pub mod wgsl;

pub(crate) use kinds::*;
pub use nilang_analysis::names::{ADJOINT_TYPE, inner_name, rust_name, uncall_name};

use crate::ast::*;
use crate::diagnostics::Diagnostic;
use crate::invert::{
    explicit_deallocations, invert_function, invert_stmt, routine_pairs, unroutine_expansion,
};
use crate::resolve::{DefKind, Resolution};
use crate::ty::{Ctor, Scalar, Ty};
use crate::types::FunctionTypes;

/// How a generated entry point passes one argument on to its body, and,
/// for an argument it changes, how it saves and restores it: (the value
/// saved, the statement that puts it back with `{}` for that value).
/// Arrays, matrices, sparse values and stacks go through
/// `nilang::rollback::Saved`, whose buffers are reused from call to call.
fn entry_argument(name: &str, kind: &Kind, mutated: bool) -> (String, Option<(String, String)>) {
    if !mutated {
        return (name.to_string(), None);
    }
    match kind {
        Kind::Array(_) => (
            format!("&mut *{name}"),
            Some((
                format!("nilang::rollback::Saved::of(&*{name})"),
                format!("{{}}.restore(&mut *{name});"),
            )),
        ),
        Kind::Matrix(_) => (
            format!("{name}.view_mut()"),
            Some((
                format!("nilang::rollback::Saved::of_iter({name}.iter())"),
                format!("{{}}.restore_iter({name}.iter_mut());"),
            )),
        ),
        // A sparse matrix changes only its values, never its structure.
        Kind::Csc(_) => (
            format!("{name}.view_mut()"),
            Some((
                format!("nilang::rollback::Saved::of({name}.data())"),
                format!("{{}}.restore({name}.data_mut());"),
            )),
        ),
        Kind::Stack(_) => (
            format!("&mut *{name}"),
            Some((
                format!("nilang::rollback::Saved::of({name}.as_slice())"),
                format!("{name}.assign({{}}.as_slice());"),
            )),
        ),
        _ => (
            format!("&mut *{name}"),
            Some((format!("(*{name}).clone()"), format!("*{name} = {{}};"))),
        ),
    }
}

/// What code generation needs to know about a callee.
#[derive(Clone, PartialEq, Eq, Debug)]
pub struct CalleeSig {
    /// The Rust module the callee lives in, as a path from the caller's
    /// module: `None` for the same module, `Some("super::bessel")` for a
    /// sibling, `Some("nilang::stdlib::linalg")` for a library module.
    pub module: Option<String>,
    /// Per positional parameter: whether the callee mutates it, and its type.
    pub params: Vec<(bool, Ty)>,
    /// Per positional parameter: declared `Const<T>` (it has no adjoint).
    pub constant: Vec<bool>,
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

/// Where a function sits in its file, to turn spans into line:column.
pub struct Place<'a> {
    pub path: &'a str,
    pub text: &'a str,
    pub offset: u32,
    /// Byte offsets of the starts of the file's lines (the first is 0), so
    /// that each run-time check finds its line without rescanning the file.
    pub line_starts: &'a [u32],
}

/// The Rust expression of a `.nil` location (`nilang::Location`), for the
/// errors generated code returns.
pub(crate) fn location_code(path: &str, line: usize, column: usize) -> String {
    format!("nilang::Location {{ file: {path:?}, line: {line}, column: {column} }}")
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
    /// Without checks, still run every uncomputation: the `~@routine`s an
    /// unchecked build otherwise skips or replaces by zeroing the scratch
    /// ancillas (`dead_uncomputation`, `zeroing_uncomputation`), and each
    /// freed ancilla is handed to `std::hint::black_box`, so that the
    /// optimizer cannot drop the work whose result only the checks read.
    /// Only for measuring what the checks themselves cost: the checked build
    /// against the same work without them.
    pub keep_uncomputation: bool,
    /// The path through which generated code reaches the runtime crate
    /// (like prost-build's `prost_path`): `nilang_runtime`, the name of a
    /// renamed dependency, or a re-export such as `crate::rt`. A bare crate
    /// name is taken from the crate root (`::name`).
    pub runtime_path: String,
    /// Functions compiled a second time with some parameters `Const`, for
    /// Rust callers that differentiate with respect to the others only
    /// (per-call activity, decided when the crate builds).
    pub variants: Vec<Variant>,
}

/// A function compiled again with some parameters `Const` (the analysis
/// decides whether it can be made: `db::variant_errors`).
pub use nilang_analysis::db::Variant;

/// The runtime crate's name as Rust code writes it.
pub const RUNTIME_CRATE: &str = "nilang_runtime";

impl Default for Options {
    fn default() -> Self {
        Options {
            atol: 1e-8,
            checks: true,
            gradients: true,
            tape_loops: false,
            keep_uncomputation: false,
            runtime_path: RUNTIME_CRATE.to_string(),
            variants: Vec::new(),
        }
    }
}

/// A checked Rust function pair for one `.nil` function.
#[derive(Default)]
pub struct Generated {
    pub code: String,
    pub diagnostics: Vec<Diagnostic>,
}

/// What the backends read of one function: its tree and the analysis's
/// results for it.
pub struct Input<'a> {
    pub function: &'a Function,
    pub resolution: &'a Resolution,
    pub types: &'a FunctionTypes,
    pub mutated: &'a [bool],
    /// Which variables carry a derivative (`Const` parameters and what is
    /// computed from them only do not).
    pub activity: &'a nilang_analysis::activity::Activity,
    /// The shared-write facts of a `@kernel` (empty for other functions).
    pub facts: &'a crate::kernel::KernelFacts,
    /// The element aliasing the checks left to run time.
    pub alias_checks: &'a [nilang_analysis::check::AliasCheck],
    /// The analysis's types of the function's expressions (`typeck`).
    pub expr_types: &'a nilang_analysis::typeck::ExprTypes,
    pub ctx: &'a dyn CodegenContext,
}

pub fn generate_function(input: &Input<'_>, place: &Place<'_>, options: &Options) -> Generated {
    let Input {
        function: f,
        resolution,
        types,
        mutated,
        activity,
        ctx,
        ..
    } = *input;
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
        activity,
        ctx,
        place,
        out: String::new(),
        level: 0,
        diagnostics: Vec::new(),
        tmp: 0,
        partial_lets: None,
        slot_vectors: 0,
        generics: f.generics.iter().map(|g| g.name.name.clone()).collect(),
        bcast: None,
        alias_checks: input.alias_checks,
        expr_types: input.expr_types,
        alias_guarded: None,
        store: None,
        seeded_stores: Vec::new(),
        body: Vec::new(),
        tape: None,
        reserve: Vec::new(),
        casts: Vec::new(),
        windows: Vec::new(),
        failing: Vec::new(),
        sites: sites::Sites::new(&f.name.name),
        mode: Mode {
            checks: options.checks,
            keep_uncomputation: options.keep_uncomputation,
            inbounds: false,
            record_all: options.tape_loops,
            tape_param: records,
            any_tape,
            ad: None,
            plain: false,
            skip_values: Vec::new(),
            first_writes: Vec::new(),
            tape: None,
            cast_report: true,
        },
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
    g.mode.cast_report = false;
    g.function(&backward, &uncall_name(&f.name.name), false);
    if options.gradients && g.diagnostics.is_empty() {
        adjoint::generate(&mut g, f, &forward, &backward);
    }
    let mut diagnostics = g.diagnostics;
    if f.kernel && diagnostics.is_empty() {
        let (code, d) = wgsl::launchers(&Input {
            function: f,
            ..*input
        });
        g.out.push('\n');
        g.out.push_str(&code);
        diagnostics.extend(d);
    }
    diagnostics.sort_by_key(|d| (d.primary.span.start, d.code));
    diagnostics.dedup();
    g.sites.write(&mut g.out);
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
    /// `∂newᵢ/∂θ` of a rule with an angle, from its `dangle` rows (±1
    /// factors) applied to the new `values`, each parenthesized.
    pub fn angle_derivatives(
        dangle: &[&[(usize, crate::builtins::Factor)]],
        values: &[String],
    ) -> Vec<String> {
        let plain = Factors {
            angle: None,
            rsqrt2: "",
        };
        dangle
            .iter()
            .map(|row| format!("({})", plain.linear_combination(row, values)))
            .collect()
    }

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
    activity: &'a nilang_analysis::activity::Activity,
    ctx: &'a dyn CodegenContext,
    place: &'a Place<'a>,
    out: String,
    level: usize,
    diagnostics: Vec<Diagnostic>,
    tmp: usize,
    /// While a rule's partials are worked out for lines that can fill a
    /// vector first: its slots (`adjoint::partials`, long products).
    partial_lets: Option<adjoint::Slots>,
    /// How many such vectors the function has named.
    slot_vectors: usize,
    generics: Vec<String>,
    /// What is being generated: the function's options and the pass.
    mode: Mode,
    /// The element aliasing checks of the function, by statement.
    alias_checks: &'a [nilang_analysis::check::AliasCheck],
    /// The analysis's types of the function's expressions.
    expr_types: &'a nilang_analysis::typeck::ExprTypes,
    /// The `@store @routine` whose run (pushing) or `~@routine` (popping)
    /// is being generated (see `adjoint::storing`).
    store: Option<adjoint::Store>,
    /// The tapes of stored routines generated before `block_from` starts,
    /// by the index of their `~@routine` (the fused gradient's).
    seeded_stores: Vec<(usize, String)>,
    /// The statement whose alias checks were generated last (a statement
    /// rewritten into others gets them once).
    alias_guarded: Option<Span>,
    /// Set while the value of a broadcast instruction is generated.
    bcast: Option<Bcast>,
    /// The statements of the function being generated (set by
    /// [`Gen::function`]), for analyses that look beyond the current block.
    body: Vec<Stmt>,
    /// The tape that tape loops and recording callees use now: `None` for
    /// the function's parameter `__tape`, or a `@routine`'s local tape.
    tape: Option<String>,
    /// What the next `for` loop reserves on the tape per iteration (a tape
    /// `for` about to be generated in push mode).
    reserve: Vec<(String, usize)>,
    /// The kinds typecasts gave ancillas so far, by definition, latest last
    /// (see `codegen::cast`).
    casts: Vec<(usize, Kind)>,
    /// The index windows of the `for` loops being generated, innermost
    /// last (see `codegen::control`).
    windows: Vec<control::Slice>,
    /// The bodies generated so far that can fail (`__nil_f_adjoint`, ...):
    /// an entry point that ends in a call of one saves its arguments too.
    failing: Vec<String>,
    /// The index checks' sites (`nilang::IndexSite` values), each once:
    /// see [`Gen::index_site`].
    sites: sites::Sites,
}

/// The one value that says what [`Gen`] is generating: options fixed for the
/// function, then what changes from pass to pass.
struct Mode {
    /// Run-time checks are generated (off: as if all were `@invcheckoff`).
    checks: bool,
    /// Every uncomputation is generated, even without checks
    /// (`Options::keep_uncomputation`).
    keep_uncomputation: bool,
    /// Inside `@inbounds`: indices are not checked (Rust's own check
    /// panics), whatever `checks` says.
    inbounds: bool,
    /// Tape loops record every scalar write, not only overwrites (the
    /// `tape_loops` option: taping instead of uncomputing).
    record_all: bool,
    /// The generated functions take `__tape` (the function records on its
    /// own line).
    tape_param: bool,
    /// Anything in the function records (also in its `@routine`s).
    any_tape: bool,
    /// Set while an adjoint (reverse-mode gradient) function is generated.
    ad: Option<adjoint::AdMode>,
    /// Set inside an adjoint while a `@routine` runs without adjoint rules
    /// (see [`Gen::plain_routine`]): ancillas still get their adjoints.
    plain: bool,
    /// Definitions (parameters) whose value updates a reverse pass leaves
    /// out, applying only their adjoint rules: set while generating
    /// `f_adjoint_accumulating` (see `adjoint::skip_forward`).
    skip_values: Vec<usize>,
    /// The updates (statement, and the ancilla they write) that are the
    /// first writes of a scratch ancilla's cells in the `@routine` being
    /// generated: assignments (see `first_writes`).
    first_writes: Vec<(Span, usize)>,
    /// Inside a tape loop: whether it records or reads back.
    tape: Option<tape::TapeMode>,
    /// The forward program is generated (ancillas are allocated with their
    /// inferred types, and cast from them).
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

    fn location(&self, span: Span) -> String {
        let (line, col) = crate::render::line_col_indexed(
            self.place.text,
            self.place.line_starts,
            span.start + self.place.offset,
        );
        location_code(self.place.path, line, col)
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
        if let Some(doc) = self.mode.ad.as_ref().map(|ad| ad.doc.clone()) {
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
        if let Some(ad) = &self.mode.ad {
            list.push(format!("{ADJOINT_TYPE}: nilang::Adjoint<{}>", ad.scalar));
        }
        let generics = if list.is_empty() {
            String::new()
        } else {
            format!("<{}>", list.join(", "))
        };
        let mut params = Vec::new();
        // The entry point's arguments to the body, and what it saves of
        // the arguments it changes: (value saved, how it is put back, with
        // `{}` for the saved value).
        let mut forwards: Vec<String> = Vec::new();
        let mut saves: Vec<(String, String)> = Vec::new();
        if f.kernel {
            // The invocation's index (`global_index()`), 1-based.
            params.push("global_index: i64".to_string());
            forwards.push("global_index".to_string());
        }
        let mut csc_checks = Vec::new();
        // The stack parameters that have an adjoint stack here.
        let mut stack_bars = Vec::new();
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
            let (forward, save) = entry_argument(&name, &kind, mutated);
            forwards.push(forward);
            saves.extend(save);
            if self.mode.ad.is_some()
                && !p.constant
                && let Some(bar) = adjoint::bar_param_type(&kind)
            {
                let m = if let Kind::Matrix(_) = kind {
                    "mut "
                } else {
                    ""
                };
                let b = adjoint::bar_name(&p.name.name);
                params.push(format!("{m}{b}: {bar}"));
                if let Kind::Stack(_) = kind {
                    stack_bars.push((name.clone(), b.clone(), p.name.name.clone(), p.span));
                }
                // The adjoints are laid out like the values.
                let bar_kind = match &kind {
                    Kind::Csc(inner) => Kind::Array(inner.clone()),
                    k => k.clone(),
                };
                let (forward, save) = entry_argument(&b, &bar_kind, true);
                forwards.push(forward);
                saves.extend(save);
            }
        }
        for kw in &f.kwparams {
            let kind = self
                .def_kind(kw.name.span)
                .map(|(_, k)| k)
                .unwrap_or(Kind::Unknown);
            let rust = rust_scalar(&kind).unwrap_or_else(|| "f64".into());
            params.push(format!("{}: {rust}", rust_name(&kw.name.name)));
            forwards.push(rust_name(&kw.name.name));
        }
        if self.mode.tape_param {
            params.push("__tape: &mut nilang::Tape".to_string());
            forwards.push("&mut *__tape".to_string());
        }
        // Generated functions are generic, so they are compiled in the
        // user's crate anyway; the hint lets LLVM inline small callees (a
        // distance, a multiplier) into the loops that call them, where their
        // view set-up and bounds checks are hoisted and, without checks,
        // dead uncomputations removed. `@inline` insists.
        let inline = if f.inline {
            "#[inline(always)]"
        } else {
            "#[inline]"
        };
        // The entry point: with checks, it saves what the call changes and
        // puts it back when the call fails, so that an `Err` leaves every
        // argument as it was passed. Generated code calls the body
        // (`__nil_f`) directly: only the outermost call saves. The entry
        // point goes before the body, once the body shows whether it can
        // fail at all.
        let inner = inner_name(name);
        let entry_at = self.out.len();
        let body_level = self.level;
        self.line("#[doc(hidden)]");
        self.line(inline);
        self.line(&format!(
            "pub fn {inner}{generics}({}) -> nilang::Result {{",
            params.join(", ")
        ));
        let body_at = self.out.len();
        self.level += 1;
        for (name, nil_name, span) in csc_checks {
            let location = self.location(span);
            let what = format!("`{nil_name}` must be stored by column (CSC)");
            self.line(&format!(
                "if !{name}.is_csc() {{ return Err(nilang::Error::new({location}, nilang::Check::Shape, {what:?}, \"CSC\", \"CSR\")); }}"
            ));
        }
        // A reverse pass keeps each adjoint stack as long as its stack and
        // indexes it by the stack's positions: one of another length is
        // reported (checks on or off), never left to panic.
        for (name, bar, nil_name, span) in stack_bars {
            let location = self.location(span);
            let what = format!(
                "the adjoint stack `{bar}` must hold one adjoint per value of `{nil_name}`"
            );
            self.line(&format!(
                "if {bar}.len() != {name}.len() {{ return Err(nilang::Error::new({location}, nilang::Check::Stack, {what:?}, {name}.len(), {bar}.len())); }}"
            ));
        }
        if let Some(body) = self.mode.ad.as_ref().and_then(|ad| ad.body.clone()) {
            for l in body {
                self.line(&l);
            }
        } else {
            self.block(&f.body.stmts);
            self.line("Ok(())");
        }
        self.level -= 1;
        self.line("}");
        // A body fails when it returns an error, passes one on (`?`), or
        // ends in a call of a body generated before it that fails (`f_grad`
        // calling `f_adjoint_accumulating`).
        let (fails_here, fails_in_tail) = {
            let body = &self.out[body_at..];
            (
                body.contains("Err(") || body.contains('?'),
                self.failing
                    .iter()
                    .any(|callee| body.contains(&format!("{callee}("))),
            )
        };
        let fails = fails_here || fails_in_tail;
        if fails {
            self.failing.push(inner.clone());
        }
        if fails_in_tail && !fails_here {
            // An entry point that is one call of another body (`f_grad` of an
            // accumulate-only `f`, `f_adjoint_accumulating`) puts back its
            // scalars and tapes, but copies no array: the gradient of such a
            // loss allocates nothing (examples/tests/allocations.rs), and an
            // adjoint array it fails in keeps what was added to it.
            saves.retain(|(save, _)| !save.contains("rollback::Saved"));
        }
        if self.mode.tape_param {
            // The tape is an argument like the others. A call that only
            // records marks its lengths and cuts back to them; one that
            // pops what an earlier call recorded (an uncall, a reverse
            // pass, or a body that pops or calls one that does) copies it
            // first.
            let pops = nilang_analysis::names::is_uncall(name)
                || self.mode.ad.is_some()
                || self.out[body_at..].contains("__tape.pop");
            saves.push(if pops {
                (
                    "__tape.snapshot()".to_string(),
                    "__tape.restore({});".to_string(),
                )
            } else {
                (
                    "__tape.mark()".to_string(),
                    "__tape.rollback({});".to_string(),
                )
            });
        }
        let saved_out = self.out.split_off(entry_at);
        let saved_level = std::mem::replace(&mut self.level, body_level);
        self.line(inline);
        self.line(&format!(
            "pub fn {name}{generics}({}) -> nilang::Result {{",
            params.join(", ")
        ));
        self.level += 1;
        let call = format!("{inner}({})", forwards.join(", "));
        if self.mode.checks && fails && !saves.is_empty() {
            for (i, (save, _)) in saves.iter().enumerate() {
                self.line(&format!("let __entry_{i} = {save};"));
            }
            self.line(&format!("let __result = {call};"));
            self.line("if __result.is_err() {");
            self.level += 1;
            for (i, (_, restore)) in saves.iter().enumerate() {
                self.line(&restore.replace("{}", &format!("__entry_{i}")));
            }
            self.level -= 1;
            self.line("}");
            self.line("__result");
        } else {
            self.line(&call);
        }
        self.level -= 1;
        self.line("}");
        self.level = saved_level;
        self.out.push_str(&saved_out);
    }

    /// Whether instructions get their adjoint rules: in an adjoint, outside
    /// a plain routine.
    fn differentiating(&self) -> bool {
        self.mode.ad.is_some() && !self.mode.plain
    }

    /// Whether the build may leave out an uncomputation that only the
    /// checks would read (`dead_uncomputation`, `zeroing_uncomputation`):
    /// checks off, and not `Options::keep_uncomputation`.
    fn uncomputation_skippable(&self) -> bool {
        !self.mode.checks && !self.mode.keep_uncomputation
    }

    /// Whether the variable defined or named at `span` carries a
    /// derivative (see `nilang_analysis::activity`).
    fn active_at(&self, span: Span) -> bool {
        self.resolution
            .def_at(span)
            .is_none_or(|id| self.activity.is_active(id))
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
        // The tapes of the `@store @routine`s, by the index of their
        // `~@routine` (`adjoint::storing`).
        let mut stores = std::mem::take(&mut self.seeded_stores);
        for (i, stmt) in stmts.iter().enumerate().skip(start) {
            if let StmtKind::Unroutine = stmt.kind {
                let routine = pairs.iter().position(|end| *end == Some(i));
                let expansion = unroutine_expansion(stmts, &pairs, i)
                    .filter(|e| !self.dead_uncomputation(e, &stmts[i + 1..]));
                let zeroing = expansion
                    .as_ref()
                    .and(routine)
                    .and_then(|j| self.zeroing_uncomputation(&stmts[j]));
                if let Some(zeroing) = zeroing {
                    for l in zeroing {
                        self.line(&l);
                    }
                } else if let Some(expansion) = expansion {
                    let local = local_tapes
                        .iter()
                        .find(|(end, _)| *end == i)
                        .map(|(_, t)| t.clone());
                    let saved = (self.tape.clone(), self.mode.tape);
                    if local.is_some() {
                        self.tape = local;
                        self.mode.tape = self.mode.tape.map(|_| tape::TapeMode::Pop);
                    }
                    // In a reverse pass, the updates of scalar scratch
                    // ancillas nothing in the uncomputation reads are left
                    // out, and the ancillas set back to zero after it.
                    let dead = routine
                        .map(|j| self.dead_scratch_updates(&stmts[j]))
                        .unwrap_or_default();
                    let kept = self.mode.skip_values.len();
                    self.mode.skip_values.extend(dead.iter().map(|(id, _)| *id));
                    // A stored routine's rules pop; any other pair's
                    // leave an enclosing one's tape alone.
                    let popping =
                        stores
                            .iter()
                            .find(|(end, _)| *end == i)
                            .map(|(_, tape)| adjoint::Store {
                                tape: tape.clone(),
                                mode: tape::TapeMode::Pop,
                            });
                    let outer = std::mem::replace(&mut self.store, popping);
                    self.stmt(&expansion);
                    self.store = outer;
                    self.mode.skip_values.truncate(kept);
                    for (_, zero) in dead {
                        self.line(&zero);
                    }
                    (self.tape, self.mode.tape) = saved;
                }
                if let Some(k) = after.iter().position(|(at, _)| *at == i) {
                    for l in after.remove(k).1 {
                        self.line(&l);
                    }
                }
                continue;
            }
            let saved = (self.tape.clone(), self.mode.tape);
            // A routine pair leaves an enclosing stored routine's tape
            // alone; a stored one, whose `~@routine` gets rules, pushes.
            let pair = matches!(stmt.kind, StmtKind::Routine(..)) && pairs[i].is_some();
            let outer_store = pair.then(|| self.store.take());
            if let (StmtKind::Routine(_, Storing::Store), Some(end)) = (&stmt.kind, pairs[i])
                && self.differentiating()
                && self.stores_adjoint_scalars()
            {
                let tape = self.fresh("store");
                self.line(&format!("let mut {tape} = nilang::Tape::new();"));
                stores.push((end, tape.clone()));
                self.store = Some(adjoint::Store {
                    tape,
                    mode: tape::TapeMode::Push,
                });
            }
            if let (StmtKind::Routine(inner, _), Some(end)) = (&stmt.kind, pairs[i])
                && self.routine_needs_tape(inner)
            {
                let t = self.fresh("tape_r");
                self.line(&format!("let mut {t} = nilang::Tape::new();"));
                local_tapes.push((end, t.clone()));
                self.tape = Some(t);
                self.mode.tape = self.mode.tape.map(|_| tape::TapeMode::Push);
            }
            if let (StmtKind::Routine(inner, _), Some(end)) = (&stmt.kind, pairs[i])
                && self.differentiating()
                && let Some((save, restore)) = self.plain_routine(stmts, i, end, inner)
            {
                for l in save {
                    self.line(&l);
                }
                self.mode.plain = true;
                self.routine(stmt, inner);
                self.mode.plain = false;
                after.push((end, restore));
                (self.tape, self.mode.tape) = saved;
                if let Some(outer) = outer_store {
                    self.store = outer;
                }
                continue;
            }
            self.alias_guarded = None;
            match (&stmt.kind, pairs[i]) {
                (StmtKind::Routine(inner, _), Some(_)) => self.routine(stmt, inner),
                _ => self.stmt(stmt),
            }
            (self.tape, self.mode.tape) = saved;
            if let Some(outer) = outer_store {
                self.store = outer;
            }
        }
    }

    /// A `@routine` that a `~@routine` undoes, its first writes of scratch
    /// ancillas as assignments (`first_writes`).
    fn routine(&mut self, stmt: &Stmt, inner: &Stmt) {
        let first = self.first_writes(inner);
        let kept = self.mode.first_writes.len();
        self.mode.first_writes.extend(first);
        self.stmt(stmt);
        self.mode.first_writes.truncate(kept);
    }

    /// Before an instruction or call whose places may be one array element
    /// (`y[i] += y[j]`), the checked build compares the indices and stops
    /// with `Check::Alias` when they are equal.
    fn alias_guards(&mut self, span: Span) {
        if !self.mode.checks || self.alias_guarded == Some(span) {
            return;
        }
        self.alias_guarded = Some(span);
        let checks: Vec<&nilang_analysis::check::AliasCheck> = self
            .alias_checks
            .iter()
            .filter(|c| c.stmt == span)
            .collect();
        for check in checks {
            let mut conds = Vec::new();
            let mut values = Vec::new();
            for (a, b) in &check.pairs {
                let (ac, ak) = self.expr(a);
                let (bc, bk) = self.expr(b);
                let ac = convert(ac, &ak, &Kind::Int(Scalar::I64));
                let bc = convert(bc, &bk, &Kind::Int(Scalar::I64));
                let (x, y) = (self.fresh("ia"), self.fresh("ib"));
                self.line(&format!("let {x}: i64 = {ac};"));
                self.line(&format!("let {y}: i64 = {bc};"));
                conds.push(format!("{x} == {y}"));
                values.push(format!(
                    "({:?}, {x}), ({:?}, {y})",
                    crate::printer::print_expr(a),
                    crate::printer::print_expr(b)
                ));
            }
            let location = self.location(span);
            let what = format!(
                "`{}` and `{}` must not overlap in `{}`",
                check.first, check.second, check.array
            );
            self.line(&format!(
                "if {} {{ return Err(nilang::Error::new({location}, nilang::Check::Alias, {what:?}, \"different indices\", nilang::IndexValues(&[{}]))); }}",
                conds.join(" && "),
                values.join(", ")
            ));
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
        if !self.uncomputation_skippable()
            || self.mode.ad.is_some()
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

    /// With checks off, a `~@routine` whose routine writes only scratch
    /// ancillas (allocated and freed as zeros, written nowhere else:
    /// `scratch_ancilla`) is the same as setting them back to zero: before
    /// every run of the routine they hold zeros, and the uncomputation's
    /// whole purpose is to bring them back. The lines that do so, instead of
    /// running the inverse (which, unlike LLVM, nobody can prove dead when
    /// the next run of the routine reads the arrays). Scalars and vectors of
    /// numbers only; not where adjoint rules run (a reverse pass passes the
    /// ancillas' adjoints on through the uncomputation's rules), but in the
    /// routines a reverse pass runs plainly (`plain_routine`, such as the
    /// forward sweep of a gradient); not in a tape loop. Outside adjoints, a
    /// vector whose leftover values nothing can read is not even set back
    /// (`stale_scratch_unread`).
    fn zeroing_uncomputation(&self, routine: &Stmt) -> Option<Vec<String>> {
        if !self.uncomputation_skippable() || self.differentiating() || self.mode.tape.is_some() {
            return None;
        }
        let StmtKind::Routine(inner, _) = &routine.kind else {
            return None;
        };
        if self.routine_needs_tape(inner) {
            return None;
        }
        let mut written: Vec<usize> = Vec::new();
        let mut unknown = false;
        self.visit_writes(std::slice::from_ref(&**inner), &mut |root| match root
            .and_then(|span| self.resolution.def_at(span))
        {
            Some(id) if !written.contains(&id) => written.push(id),
            Some(_) => {}
            None => unknown = true,
        });
        if unknown || written.is_empty() {
            return None;
        }
        // An ancilla allocated inside a loop or branch of the routine lives
        // and dies there: at the `~@routine` it is out of scope (as a Rust
        // local too), and nothing of it is left to set back.
        let mut nested = Vec::new();
        nested_allocations(inner, false, &mut |span| {
            nested.extend(self.resolution.def_at(span));
        });
        let mut lines = Vec::new();
        for id in written {
            if nested.contains(&id) {
                continue;
            }
            if !self.scratch_ancilla(id, inner) {
                return None;
            }
            let name = rust_name(&self.resolution.defs[id].name);
            let kind = kind_of(&self.types.defs[id]);
            let scalar = |k: &Kind| match k {
                Kind::Float(_) | Kind::Int(_) | Kind::Generic(_) => rust_scalar(k),
                _ => None,
            };
            match &kind {
                Kind::Array(elem) => {
                    let s = scalar(elem)?;
                    if !self.stale_scratch_unread(inner, id) {
                        lines.push(format!("{name}.fill(nilang::zero::<{s}>());"));
                    }
                }
                k => {
                    let s = scalar(k)?;
                    lines.push(format!("{name} = nilang::zero::<{s}>();"));
                }
            }
        }
        Some(lines)
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
        if matches!(stmt.kind, StmtKind::Instr { .. } | StmtKind::Call(_)) {
            self.alias_guards(stmt.span);
        }
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
            } if self.mode.tape.is_some()
                && (matches!(op, InstrOp::Assign | InstrOp::Mul | InstrOp::Div)
                    || (self.mode.record_all && !broadcast && split_sincos(stmt).is_none())) =>
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
                    && !self.mode.skip_values.is_empty()
                    && target
                        .root_var()
                        .and_then(|(_, span)| self.resolution.def_at(span))
                        .is_some_and(|id| self.mode.skip_values.contains(&id));
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
                    // In the run of a `@store @routine` before its rules.
                    self.push_stored(target, *op, value);
                }
            }
            StmtKind::Call(call) => self.call(call, stmt.span),
            StmtKind::Alloc { name, value } => {
                let kind = self
                    .def_kind(name.span)
                    .map(|(_, k)| k)
                    .unwrap_or(Kind::Unknown);
                let small = self
                    .resolution
                    .def_at(name.span)
                    .is_some_and(|id| self.small_buffer(id, value));
                if small {
                    self.small_alloc(name, value, &kind);
                } else {
                    let code = self.value_as(value, &kind);
                    let annotation = rust_scalar(&kind)
                        .map(|s| format!(": {s}"))
                        .unwrap_or_default();
                    self.line(&format!(
                        "let mut {}{annotation} = {code};",
                        rust_name(&name.name)
                    ));
                }
                if self.mode.ad.is_some() {
                    self.ad_alloc(name, &kind, small);
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
                if !self.mode.checks {
                    // What the checks would compare is still computed: the
                    // freed value is handed to an opaque use, so the
                    // optimizer cannot drop the uncomputation that made it.
                    if self.mode.keep_uncomputation && !self.differentiating() {
                        self.line(&format!(
                            "std::hint::black_box(&{});",
                            rust_name(&name.name)
                        ));
                    }
                    return;
                }
                let kind = self
                    .def_kind(name.span)
                    .map(|(_, k)| k)
                    .unwrap_or(Kind::Unknown);
                // A whole array freed as `zeros(...)`/`ones(...)` is compared
                // element by element with the value; the array is built only
                // to report a failure.
                let filled = match (&value.kind, &kind) {
                    (
                        ExprKind::Call {
                            callee,
                            args,
                            broadcast: false,
                            ..
                        },
                        Kind::Array(_) | Kind::Matrix(_),
                    ) if matches!(callee.name.as_str(), "zeros" | "ones")
                        && matches!(args.len(), 2 | 3)
                        && self.type_kind(&args[0]).is_some() =>
                    {
                        self.fill(&callee.name, &args[0], &args[1..], value.span)
                    }
                    _ => None,
                };
                let var = rust_name(&name.name);
                // A small buffer's name is a slice of it (`codegen::small`).
                let whole = match self.resolution.def_at(name.span) {
                    Some(id) if self.small_buffer(id, value) => format!("{var}[..]"),
                    _ => var.clone(),
                };
                let e = self.fresh("expected");
                let (test, build) = match filled {
                    Some(fill) => (
                        format!(
                            "nilang::CheckFill::check_fill(&{whole}, {}, &{}, ATOL)",
                            fill.shape(),
                            fill.elem
                        ),
                        format!("let {e} = {}; ", fill.array().0),
                    ),
                    None => {
                        let expected = self.value_as(value, &kind);
                        self.line(&format!("let {e} = {expected};"));
                        (
                            format!("nilang::CheckEq::check_eq(&{var}, &{e}, ATOL)"),
                            String::new(),
                        )
                    }
                };
                let location = self.location(stmt.span);
                // An implicit deallocation sits at the `end` of its block;
                // its name keeps the allocation's span.
                let implicit = name.span.start < stmt.span.start || name.span.end > stmt.span.end;
                let what = if implicit {
                    let (line, _) = crate::render::line_col_indexed(
                        self.place.text,
                        self.place.line_starts,
                        name.span.start + self.place.offset,
                    );
                    format!(
                        "`{}` (allocated at line {line}) must equal `{}` when freed at the end of its block",
                        name.name,
                        crate::printer::print_expr(value)
                    )
                } else {
                    format!(
                        "`{}` must equal `{}` when deallocated",
                        name.name,
                        crate::printer::print_expr(value)
                    )
                };
                self.line(&format!(
                    "if !{test} {{ {build}return Err(nilang::Error::new({location}, nilang::Check::Deallocation, {what:?}, &{e}, &{var})); }}"
                ));
            }
            StmtKind::If {
                branches,
                otherwise,
            } if self.mode.tape.is_some() => self.tape_if(branches, otherwise.as_ref(), stmt.span),
            StmtKind::If {
                branches,
                otherwise,
            } => self.if_chain(branches, otherwise.as_ref()),
            StmtKind::While { cond, body } if self.mode.tape == Some(tape::TapeMode::Push) => {
                self.tape_while_push(cond, body)
            }
            StmtKind::While { cond, body } if self.mode.tape == Some(tape::TapeMode::Pop) => {
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
            StmtKind::Routine(inner, _) => self.stmt(inner),
            StmtKind::InBounds(inner) => {
                let was = self.mode.inbounds;
                self.mode.inbounds = true;
                self.stmt(inner);
                self.mode.inbounds = was;
            }
            StmtKind::InvCheckOff(inner) => {
                let was = self.mode.checks;
                self.mode.checks = false;
                self.stmt(inner);
                self.mode.checks = was;
            }
            StmtKind::Unroutine => {}
            StmtKind::Safe(expr) => self.safe(expr, stmt.span),
            StmtKind::Typecast { from, to, value } => self.typecast(from, to, value, stmt.span),
        }
    }
}

/// Calls `f` with the name span of each allocation in `stmt` that sits in
/// a block of its own in the generated Rust (the body of a loop or of a
/// branch), below the scope `stmt` itself is generated in; `inside` says
/// that `stmt` already is in such a block. `begin ... end`, `@routine`,
/// `~`, `@invcheckoff` and `@inbounds` open no Rust block.
fn nested_allocations(stmt: &Stmt, inside: bool, f: &mut dyn FnMut(Span)) {
    let block = |stmts: &[Stmt], f: &mut dyn FnMut(Span)| {
        for s in stmts {
            nested_allocations(s, true, f);
        }
    };
    match &stmt.kind {
        StmtKind::Alloc { name, .. } if inside => f(name.span),
        StmtKind::Begin(b) => {
            for s in &b.stmts {
                nested_allocations(s, inside, f);
            }
        }
        StmtKind::Routine(s, _)
        | StmtKind::Inverse(s)
        | StmtKind::InvCheckOff(s)
        | StmtKind::InBounds(s)
        | StmtKind::Tape(s) => nested_allocations(s, inside, f),
        StmtKind::For { body, .. } | StmtKind::While { body, .. } => block(&body.stmts, f),
        StmtKind::If {
            branches,
            otherwise,
        } => {
            for b in branches {
                block(&b.body.stmts, f);
            }
            if let Some(o) = otherwise {
                block(&o.stmts, f);
            }
        }
        _ => {}
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

/// The header of a generated module.
pub fn module_header(source: &str, options: &Options) -> String {
    let mut out = String::new();
    let _ = writeln!(out, "// Generated by nilang from {source}. Do not edit.");
    let _ = writeln!(
        out,
        "/// Absolute tolerance of the run-time reversibility checks."
    );
    let _ = writeln!(out, "pub const ATOL: f64 = {:?};", options.atol);
    // Generated code names the runtime `nilang::`; this one line decides
    // which crate (or re-export) that is.
    let path = options.runtime_path.trim();
    let rooted = if path.contains("::") || matches!(path, "crate" | "self" | "super") {
        path.to_string()
    } else {
        format!("::{path}")
    };
    let _ = writeln!(out, "use {rooted} as nilang;");
    out
}

/// Whether `path` can be a runtime path: `::`-separated Rust identifiers,
/// optionally starting with `::`, `crate`, `self` or `super`.
pub fn is_runtime_path(path: &str) -> bool {
    let path = path.strip_prefix("::").unwrap_or(path);
    !path.is_empty()
        && path.split("::").all(|part| {
            let mut chars = part.chars();
            chars
                .next()
                .is_some_and(|c| c == '_' || c.is_ascii_alphabetic())
                && chars.all(|c| c == '_' || c.is_ascii_alphanumeric())
                && part != "_"
        })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_runtime_is_reached_through_the_configured_path() {
        let header = |path: &str| {
            module_header(
                "a.nil",
                &Options {
                    runtime_path: path.to_string(),
                    ..Options::default()
                },
            )
        };
        assert!(header("nilang_runtime").contains("use ::nilang_runtime as nilang;"));
        assert!(header("rt").contains("use ::rt as nilang;"));
        assert!(header("crate::deps::rt").contains("use crate::deps::rt as nilang;"));
        assert!(header("::nilang_runtime").contains("use ::nilang_runtime as nilang;"));
        for good in ["nilang_runtime", "::a::b", "crate::rt", "super::x", "_r2"] {
            assert!(is_runtime_path(good), "{good}");
        }
        for bad in ["", "::", "a::", "a b", "1a", "a-b", "_", "a::::b", "a;b"] {
            assert!(!is_runtime_path(bad), "{bad}");
        }
    }

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

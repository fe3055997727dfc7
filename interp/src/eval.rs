//! The evaluator: runs a function's typed body forwards or backwards.
//!
//! Backwards is the language's inverse read statement by statement, as
//! `invert` writes it: the statements of a block last first, each undone —
//! `+=` as `-=`, an instruction as its inverse, an allocation as a
//! deallocation (checked), `if` choosing its branch by the postcondition
//! and checking the precondition after it, `while (pre, post)` as
//! `while (post, pre)`, a `for` loop over the same values last first, a
//! call as a call of the inverse. `~@routine` runs its `@routine` in the
//! other direction than the block it is in.
//!
//! Arguments are passed as the generated Rust passes them: a place the
//! callee changes is moved into the callee and written back after the call;
//! anything else is a value (arrays are shared until written).

use crate::error::{Check, Location, RunError};
use crate::numbers;
use crate::ops::{self, check_eq, convert};
use crate::pure::{self, Out};
use crate::value::{Value, zero_of};
use nilang_analysis::ast::{BinaryOp, InstrOp, Span};
use nilang_analysis::builtins::PureFn;
use nilang_analysis::builtins::{self, Instruction, Rule};
use nilang_analysis::db::body::{
    Body, CallTarget, Cond, Expr, ExprId, Index, LocalId, Stmt, StmtId,
};
use nilang_analysis::db::{self, Callable};
use nilang_analysis::ty::{Ctor, Scalar, Ty};
use nilang_analysis::{Db, FnId, Project, SourceFile};
use rustc_hash::FxHashMap;
use smallvec::SmallVec;
use std::rc::Rc;

mod derivative;
mod grad;
mod lowered;
mod wirtinger;

use derivative::DerivativeCall;
use lowered::Lowered;

/// Which way a body runs.
#[derive(Clone, Copy, PartialEq, Eq, Debug)]
pub enum Direction {
    Forward,
    Backward,
}

impl Direction {
    pub fn flip(self) -> Direction {
        match self {
            Direction::Forward => Direction::Backward,
            Direction::Backward => Direction::Forward,
        }
    }

    fn flipped_if(self, yes: bool) -> Direction {
        if yes { self.flip() } else { self }
    }
}

/// Why a call could not run: the call itself is wrong (no such function,
/// the wrong arguments), or the program stopped at a check.
#[derive(Clone, Debug, PartialEq)]
pub enum Error {
    Usage(String),
    Run(RunError),
}

impl std::fmt::Display for Error {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            Error::Usage(m) => f.write_str(m),
            Error::Run(e) => write!(f, "{e}"),
        }
    }
}

impl std::error::Error for Error {}

/// A run's result. The error is boxed: it is rare and large, and an
/// unboxed one would make every `Value` returned through `R` as large.
type R<T> = Result<T, Box<RunError>>;

/// A file as errors name it.
struct FileInfo {
    shown: String,
    text: String,
    line_starts: Vec<u32>,
}

/// Where a call is, kept as the file and byte offset and made a
/// [`Location`] (line and column) only when an error names it.
#[derive(Clone)]
struct Site {
    file: Rc<FileInfo>,
    at: u32,
}

impl Site {
    fn location(&self) -> Location {
        self.file.location(self.at)
    }
}

/// The interpreter of one project.
pub struct Interpreter<'db> {
    db: &'db dyn Db,
    project: Project,
    /// The tolerance of the deallocation checks (`nilang::DEFAULT_ATOL`).
    pub atol: f64,
    /// What `println` and `print` wrote.
    pub output: String,
    /// How many more statements a run may execute (`None`: no limit); an
    /// editor running an example on each keystroke sets one.
    pub fuel: Option<u64>,
    /// What `@tape` loops recorded going forwards (old values of
    /// overwrites, branches, trip counts), popped by their inverses: one
    /// stack for the whole run, as the generated code threads one `Tape`.
    tape: Vec<Value>,
    /// What each function's runs read of the analysis, looked up once.
    functions: FxHashMap<FnId<'db>, Rc<FnInfo<'db>>>,
    depth: usize,
    /// How deeply the expression being evaluated is nested (`eval`).
    nesting: u32,
    files: FxHashMap<SourceFile, Rc<FileInfo>>,
    /// The 1-based index of the kernel invocation being run
    /// ([`Interpreter::launch`]): what `global_index()` reads.
    invocation: Option<i64>,
    /// Emptied frames' vectors, reused by calls (`call_on_locals`).
    spare: Vec<Vec<Value>>,
    /// The functions called by name ([`Interpreter::call`]), looked up
    /// once.
    named: FxHashMap<String, FnId<'db>>,
    /// Whether runs use each function's number code (`lowered`), a cache
    /// of the general path: on unless a test turns it off, before the
    /// first run, to compare the two.
    pub lowered: bool,
}

/// What a run of a function reads of the analysis: its typed body, where
/// it is, and which parameters it changes.
struct FnInfo<'db> {
    body: Option<&'db Body<'db>>,
    offset: u32,
    file: Rc<FileInfo>,
    mutated: Vec<bool>,
    /// For a function without type parameters, the float its reverse pass
    /// takes adjoints in (`concrete_adjoint`), decided once.
    concrete_adjoint: Option<Scalar>,
    /// Its number code (empty when [`Interpreter::lowered`] is off).
    low: Rc<Lowered>,
    /// Whether a run reads what its type parameters are bound to (a type
    /// parameter named as a value, a struct built): else a run without
    /// adjoints leaves them unbound.
    reads_generics: bool,
}

/// How deep calls may nest before the run stops (runaway recursion).
const MAX_DEPTH: usize = 100_000;

struct Frame<'db> {
    body: &'db Body<'db>,
    /// The body's number code.
    low: Rc<Lowered>,
    locals: Vec<Value>,
    /// In a gradient run, the adjoint of each local (shaped like it).
    grads: Option<Vec<Value>>,
    /// Inside a `@tape` loop: overwrites and branches are recorded.
    taping: bool,
    /// In a gradient run, the float the reverse pass takes its adjoints
    /// in (`types::adjoint_scalar`): every adjoint of a float is one, and
    /// the values a local derivative reads are taken in it, as the Rust
    /// backend writes `(u as f64)` for an `f32` `u` in an `f64` reverse
    /// pass. `None` outside gradient runs and where it is no float.
    scalar: Option<Scalar>,
    generics: Generics<'db>,
    checks: bool,
    offset: u32,
    file: Rc<FileInfo>,
}

/// An instruction's target that is a view of places, not a place.
pub(super) enum View {
    Tuple(Vec<ExprId>),
    Conj(ExprId),
}

/// A place: a local and the steps into it.
#[derive(Clone, Debug, PartialEq)]
struct Path {
    root: LocalId,
    /// Inline up to two steps (an element, a field of an element): no
    /// allocation for the places instructions usually change.
    steps: SmallVec<[Step; 2]>,
}

#[derive(Clone, Copy, Debug, PartialEq)]
enum Step {
    /// An element of an array, stack or tuple, a cell of a matrix
    /// (0-based, column-major).
    At(usize),
    Field(usize),
    /// A column of a matrix.
    Column(usize),
    /// The real (`false`) or imaginary (`true`) part of a complex number.
    Part(bool),
    /// The logarithm of a log number (`x.log`), the value of a tropical
    /// number (`x.n`). In an adjoint, which is the logarithm's (or none),
    /// it stays where it is.
    Inner,
}

impl<'db> Interpreter<'db> {
    pub fn new(db: &'db dyn Db, project: Project) -> Self {
        Interpreter {
            db,
            project,
            atol: 1e-8,
            output: String::new(),
            fuel: None,
            tape: Vec::new(),
            functions: FxHashMap::default(),
            depth: 0,
            nesting: 0,
            files: FxHashMap::default(),
            invocation: None,
            spare: Vec::new(),
            named: FxHashMap::default(),
            lowered: true,
        }
    }

    /// The function `name` of the project.
    pub fn function(&self, name: &str) -> Option<FnId<'db>> {
        match Callable::named(self.db, self.project, name)? {
            Callable::Function(f) => Some(f),
            Callable::Derived { .. } => None,
        }
    }

    /// The names and declared types of `f`'s positional parameters.
    pub fn params(&self, f: FnId<'db>) -> Vec<(String, Ty)> {
        match db::function_body(self.db, f) {
            Some(body) => body
                .params
                .iter()
                .map(|&l| (body.local(l).name.clone(), body.local(l).ty.clone()))
                .collect(),
            None => Vec::new(),
        }
    }

    /// Runs `name` on `args` in `direction` and returns its parameters'
    /// values after the call.
    pub fn call(
        &mut self,
        name: &str,
        args: Vec<Value>,
        direction: Direction,
    ) -> Result<Vec<Value>, Error> {
        let (f, given) = self.arguments(name, args)?;
        if self.is_kernel(f) {
            return Err(Error::Usage(format!(
                "`{name}` is a `@kernel` function, run once per invocation: launch it over the invocation indices (`nilc run --launch N`)"
            )));
        }
        self.invoke(f, given, None, Vec::new(), direction, None)
            .map(|(values, _)| values)
            .map_err(|e| Error::Run(*e))
    }

    /// Runs the kernel `name` once for each invocation index `1..=n`, in
    /// order, each run reading `global_index()` as its index and changing
    /// the same arguments, as the generated code's CPU form of a kernel
    /// runs it; returns the parameters' values after the last.
    pub fn launch(
        &mut self,
        name: &str,
        n: usize,
        args: Vec<Value>,
        direction: Direction,
    ) -> Result<Vec<Value>, Error> {
        let (f, mut values) = self.arguments(name, args)?;
        if !self.is_kernel(f) {
            return Err(Error::Usage(format!(
                "`{name}` is no `@kernel` function, so it is not launched: call it (without `--launch`)"
            )));
        }
        for i in 1..=n {
            self.invocation = Some(i as i64);
            let ran = self.invoke(f, values, None, Vec::new(), direction, None);
            self.invocation = None;
            values = ran.map_err(|e| Error::Run(*e))?.0;
        }
        Ok(values)
    }

    fn is_kernel(&self, f: FnId<'db>) -> bool {
        db::function_ast(self.db, f).is_some_and(|a| a.kernel)
    }

    /// The function `name` and `args` converted to its parameters' types.
    fn arguments(
        &mut self,
        name: &str,
        args: Vec<Value>,
    ) -> Result<(FnId<'db>, Vec<Value>), Error> {
        let f = match self.named.get(name) {
            Some(&f) => f,
            None => {
                let f = self.function(name).ok_or_else(|| {
                    Error::Usage(format!("no function `{name}` in the files given"))
                })?;
                self.named.insert(name.to_string(), f);
                f
            }
        };
        let info = self.info(f);
        let body = info.body;
        let params: SmallVec<[(&str, &Ty); 4]> = body.map_or_else(SmallVec::new, |body| {
            body.params
                .iter()
                .map(|&l| (body.local(l).name.as_str(), &body.local(l).ty))
                .collect()
        });
        if params.len() != args.len() {
            return Err(Error::Usage(format!(
                "`{name}` takes {} argument{} ({}), {} given",
                params.len(),
                if params.len() == 1 { "" } else { "s" },
                params
                    .iter()
                    .map(|(n, t)| format!("{n}::{}", t.display()))
                    .collect::<Vec<_>>()
                    .join(", "),
                args.len()
            )));
        }
        // Type parameters take the type of the first argument that binds
        // them (`0.0` for `out!::T` makes `T` an `f64`); the arguments are
        // then converted to the parameters' types (`[1, 2]` for `x::[T]`
        // becomes `[1.0, 2.0]`), as a Rust caller would have to write them.
        let mut generics = Generics::default();
        for ((_, ty), v) in params.iter().zip(&args) {
            if !matches!(ty, Ty::Generic(_)) || v.is_number() {
                bind_generics(ty, v, &mut generics);
            }
        }
        // As long as the frame's locals will be (`invoke_as` takes it).
        let mut given = Vec::with_capacity(body.map_or(0, |b| b.locals.len()).max(args.len()));
        for ((pname, ty), v) in params.iter().zip(args) {
            let ty = resolve_generics(ty, &generics);
            given.push(
                coerce(v, &ty)
                    .map_err(|m| Error::Usage(format!("argument `{pname}` of `{name}`: {m}")))?,
            );
        }
        Ok((f, given))
    }

    /// What runs of `f` read of the analysis (looked up on its first run).
    fn info(&mut self, f: FnId<'db>) -> Rc<FnInfo<'db>> {
        if let Some(info) = self.functions.get(&f) {
            return info.clone();
        }
        let body = db::function_body(self.db, f).as_ref();
        let info = Rc::new(FnInfo {
            body,
            offset: db::function_offset(self.db, f),
            file: self.file(f.file(self.db)),
            mutated: db::mutated_params(self.db, self.project, f.name(self.db)).unwrap_or_default(),
            concrete_adjoint: body.and_then(concrete_adjoint),
            reads_generics: body.is_some_and(|b| {
                !b.generics.is_empty()
                    && b.expr_ids()
                        .any(|e| matches!(b.expr(e).kind, Expr::Name(_) | Expr::Construct { .. }))
            }),
            low: Rc::new(match (body, self.lowered) {
                (Some(body), true) => Lowered::of(body),
                _ => Lowered::default(),
            }),
        });
        self.functions.insert(f, info.clone());
        info
    }

    fn file(&mut self, file: SourceFile) -> Rc<FileInfo> {
        let db = self.db;
        self.files
            .entry(file)
            .or_insert_with(|| {
                let text = file.text(db).clone();
                Rc::new(FileInfo {
                    shown: nilang_analysis::stdlib::shown_path(file.path(db)).into_owned(),
                    line_starts: nilang_syntax::render::line_starts(&text),
                    text,
                })
            })
            .clone()
    }

    fn invoke(
        &mut self,
        f: FnId<'db>,
        args: Vec<Value>,
        grads: Option<Vec<Value>>,
        kwargs: Vec<(String, Value)>,
        direction: Direction,
        call_site: Option<Site>,
    ) -> R<(Vec<Value>, Option<Vec<Value>>)> {
        let info = self.info(f);
        self.invoke_as(f, &info, args, grads, kwargs, direction, call_site)
    }

    /// [`Interpreter::invoke`] with what the run reads of `f` looked up
    /// already (a call statement has it).
    #[allow(clippy::too_many_arguments)]
    fn invoke_as(
        &mut self,
        f: FnId<'db>,
        info: &FnInfo<'db>,
        args: Vec<Value>,
        grads: Option<Vec<Value>>,
        kwargs: Vec<(String, Value)>,
        direction: Direction,
        call_site: Option<Site>,
    ) -> R<(Vec<Value>, Option<Vec<Value>>)> {
        let unsupported = |what: String| RunError {
            location: call_site.as_ref().map(Site::location).unwrap_or(Location {
                file: String::new(),
                line: 0,
                column: 0,
            }),
            check: Check::Unsupported,
            what,
            expected: "a function the analysis accepted".into(),
            found: "none".into(),
        };
        let Some(body) = info.body else {
            return Err(Box::new(unsupported(format!(
                "`{}` has no body",
                f.name(self.db)
            ))));
        };
        if self.depth >= MAX_DEPTH {
            return Err(Box::new(RunError {
                check: Check::Depth,
                ..unsupported(format!(
                    "calling `{}` nested {MAX_DEPTH} calls deep",
                    f.name(self.db)
                ))
            }));
        }
        // The parameters are usually the body's first locals: then the
        // arguments' vector becomes the frame's locals (no second vector
        // and no moves), and the locals, cut back to the parameters, the
        // values returned.
        let leading =
            args.len() == body.params.len() && body.params.iter().enumerate().all(|(i, &l)| l == i);
        let mut frame = Frame {
            body,
            low: info.low.clone(),
            locals: Vec::new(),
            generics: Generics::default(),
            checks: true,
            offset: info.offset,
            file: info.file.clone(),
            grads: grads
                .as_ref()
                .map(|_| vec![Value::Moved; body.locals.len()]),
            taping: false,
            scalar: None,
        };
        if info.reads_generics || grads.is_some() {
            for (&l, v) in body.params.iter().zip(&args) {
                bind_generics(&body.local(l).ty, v, &mut frame.generics);
            }
        }
        if grads.is_some() {
            frame.scalar = match body.generics.first() {
                Some(g) => frame.generics.get(g).and_then(float_scalar),
                None => info.concrete_adjoint,
            };
        }
        if leading {
            frame.locals = args;
            frame.locals.resize(body.locals.len(), Value::Moved);
        } else {
            frame.locals = vec![Value::Moved; body.locals.len()];
            for (&l, v) in body.params.iter().zip(args) {
                frame.locals[l] = v;
            }
        }
        if let (Some(store), Some(grads)) = (&mut frame.grads, grads) {
            // A caller whose reverse pass is in the other float lends its
            // adjoints converted (`nilang::adjoint::Precision`).
            for (&l, g) in body.params.iter().zip(grads) {
                store[l] = in_scalar(g, frame.scalar);
            }
        }
        for &(l, default) in &body.kwparams {
            let name = &body.local(l).name;
            let v = match kwargs.iter().find(|(n, _)| n == name) {
                Some((_, v)) => v.clone(),
                None => self.eval(&mut frame, default)?,
            };
            if let Some(store) = &mut frame.grads {
                store[l] = in_scalar(v.zero_like(), frame.scalar);
            }
            frame.locals[l] = v;
        }
        self.depth += 1;
        let ran = stacker::maybe_grow(256 * 1024, 4 * 1024 * 1024, || {
            self.block(&mut frame, &body.root, direction)
        });
        self.depth -= 1;
        ran?;
        let values = if leading {
            let mut values = std::mem::take(&mut frame.locals);
            values.truncate(body.params.len());
            values
        } else {
            body.params
                .iter()
                .map(|&l| std::mem::take(&mut frame.locals[l]))
                .collect()
        };
        let grads = frame.grads.as_mut().map(|store| {
            body.params
                .iter()
                .map(|&l| std::mem::take(&mut store[l]))
                .collect()
        });
        Ok((values, grads))
    }

    fn block(&mut self, fr: &mut Frame<'db>, stmts: &[StmtId], dir: Direction) -> R<()> {
        // A statement in number code runs here, without `stmt`'s dispatch,
        // where no fuel is counted (`stmt` runs it otherwise, after
        // counting it).
        let fast = self.fuel.is_none();
        let backward = dir == Direction::Backward;
        let mut one = |s: StmtId| {
            if fast && fr.number_code(s, backward, self.atol) {
                return Ok(());
            }
            self.stmt(fr, s, dir)
        };
        match dir {
            Direction::Forward => stmts.iter().try_for_each(|&s| one(s)),
            Direction::Backward => stmts.iter().rev().try_for_each(|&s| one(s)),
        }
    }

    fn stmt(&mut self, fr: &mut Frame<'db>, s: StmtId, dir: Direction) -> R<()> {
        let body = fr.body;
        let data = body.stmt(s);
        let span = data.span;
        if let Some(fuel) = &mut self.fuel {
            if *fuel == 0 {
                return Err(fr.error(
                    span,
                    Check::Steps,
                    "the run was stopped at its limit of statements".into(),
                    "a run that ends sooner".into(),
                    "more statements".into(),
                ));
            }
            *fuel -= 1;
        }
        if fr.number_code(s, dir == Direction::Backward, self.atol) {
            return Ok(());
        }
        match &data.kind {
            Stmt::Instr {
                target,
                op,
                broadcast,
                value,
            } => {
                // In a tape loop, an overwrite, and a tropical `+=` (the
                // maximum, which loses the smaller value).
                if fr.taping
                    && (matches!(op, InstrOp::Assign | InstrOp::Mul | InstrOp::Div)
                        || (matches!(op, InstrOp::Add)
                            && matches!(body.expr(*target).ty, Ty::Constructed(Ctor::Tropical, _))))
                {
                    return self.overwrite(fr, *target, *op, *value, dir, span);
                }
                let op = if dir == Direction::Backward {
                    op.inverse()
                } else {
                    *op
                };
                self.instr(fr, *target, op, *broadcast, *value, span)
            }
            Stmt::Call {
                target,
                inverted,
                args,
                kwargs,
            } => self.call_stmt(fr, target, dir.flipped_if(*inverted), args, kwargs, span),
            Stmt::Alloc { local, value } => match dir {
                Direction::Forward => self.allocate(fr, *local, *value),
                Direction::Backward => self.deallocate(fr, Some(*local), *value, span, None),
            },
            Stmt::Dealloc {
                local,
                value,
                name_span,
            } => match dir {
                Direction::Forward => self.deallocate(fr, *local, *value, span, Some(*name_span)),
                Direction::Backward => match local {
                    Some(l) => self.allocate(fr, *l, *value),
                    None => Ok(()),
                },
            },
            Stmt::If {
                branches,
                otherwise,
            } => self.if_chain(fr, branches, otherwise.as_deref(), dir),
            Stmt::While { cond, body: inner } => self.while_loop(fr, cond, inner, dir),
            Stmt::For {
                var,
                start,
                step,
                stop,
                reversed,
                body: inner,
                range,
                range_text,
            } => self.for_loop(
                fr,
                *var,
                *start,
                *step,
                *stop,
                *reversed,
                inner,
                dir,
                (*range, range_text),
            ),
            Stmt::Block(stmts) => self.block(fr, stmts, dir),
            Stmt::Inverse(inner) => self.stmt(fr, *inner, dir.flip()),
            Stmt::Routine(inner, _) => self.stmt(fr, *inner, dir),
            Stmt::Unroutine(routine) => match routine.map(|r| &body.stmt(r).kind) {
                Some(Stmt::Routine(inner, _)) => self.stmt(fr, *inner, dir.flip()),
                _ => Ok(()),
            },
            Stmt::Tape(inner) => {
                let was = std::mem::replace(&mut fr.taping, true);
                let r = self.stmt(fr, *inner, dir);
                fr.taping = was;
                r
            }
            Stmt::Safe(e) => self.safe(fr, *e, span),
            Stmt::InvCheckOff(inner) => {
                let was = std::mem::replace(&mut fr.checks, false);
                let r = self.stmt(fr, *inner, dir);
                fr.checks = was;
                r
            }
            Stmt::InBounds(inner) => self.stmt(fr, *inner, dir),
            Stmt::Typecast { from, to, value } => {
                let (from, to) = match dir {
                    Direction::Forward => (from, to),
                    Direction::Backward => (to, from),
                };
                self.typecast(fr, from, to, *value, span)
            }
        }
    }

    /// `(T1 => T2)(x)`: `x` becomes a `T2` holding the same number, or
    /// the run stops (a cast that would lose information). Its adjoint
    /// follows it.
    fn typecast(
        &mut self,
        fr: &mut Frame<'db>,
        from: &Ty,
        to: &Ty,
        x: ExprId,
        span: Span,
    ) -> R<()> {
        let path = self
            .path(fr, x)?
            .ok_or_else(|| fr.domain(span, "a typecast of something that is not a place".into()))?;
        let v = self.read(fr, &path, span)?;
        if let Value::Dual(..) = v {
            return Err(fr.unsupported(span, "a typecast of a dual number (in a tangent call)"));
        }
        let Some(cast) = cast_exact(&v, to) else {
            let text = fr.text(span);
            return Err(match zero_of(to) {
                Some(_) if v.is_number() => fr.error(
                    span,
                    Check::Cast,
                    format!("`{}` must not lose information", text.trim()),
                    format!("a value that {} holds exactly", to.display()),
                    v.debug(),
                ),
                _ => fr.unsupported(
                    span,
                    &format!("a typecast from `{}` to `{}`", from.display(), to.display()),
                ),
            });
        };
        self.write(fr, &path, cast, span)?;
        if fr.grads.is_some() {
            let g = self.grad_read(fr, &path, span)?;
            // A float's adjoint stays in the reverse pass's float.
            let like = in_scalar(zero_of(to).unwrap_or(Value::Moved), fr.scalar);
            let g = match (&g, &like) {
                (_, Value::Int(..) | Value::Bool(_)) => like,
                (Value::Int(..) | Value::Bool(_), _) => like,
                // A complex adjoint of what becomes real again: the real
                // part is the real number's (the imaginary direction is
                // not one it can move in).
                (Value::Complex(..), Value::F64(_) | Value::F32(_)) => {
                    convert(grad::real_part(&g), &like).map_err(|m| fr.domain(span, m))?
                }
                _ => convert(g, &like).map_err(|m| fr.domain(span, m))?,
            };
            self.grad_write(fr, &path, g, span)?;
        }
        Ok(())
    }

    fn safe(&mut self, fr: &mut Frame<'db>, e: ExprId, span: Span) -> R<()> {
        if let Expr::Macro { name, arg } = &fr.body.expr(e).kind {
            let name = name.trim_start_matches('@');
            if name == "assert" {
                let Some(arg) = arg else { return Ok(()) };
                let ok = self.eval(fr, *arg)?;
                if fr.checks && ok.as_bool() == Some(false) {
                    return Err(fr.error(
                        span,
                        Check::Assertion,
                        format!("`{}`", fr.text(fr.body.expr(e).span)),
                        "true".into(),
                        "false".into(),
                    ));
                }
                return Ok(());
            }
            return Err(fr.error(
                span,
                Check::Unsupported,
                format!("the macro `@{name}`"),
                "`@assert`".into(),
                format!("`@{name}`"),
            ));
        }
        self.eval(fr, e).map(drop)
    }

    fn allocate(&mut self, fr: &mut Frame<'db>, local: LocalId, value: ExprId) -> R<()> {
        let v = self.eval(fr, value)?;
        let v = match zero_of(&fr.body.local(local).ty) {
            Some(like) if like.is_number() => {
                let span = fr.body.expr(value).span;
                convert(v, &like).map_err(|m| fr.domain(span, m))?
            }
            _ => v,
        };
        if let Some(g) = &mut fr.grads {
            g[local] = in_scalar(v.zero_like(), fr.scalar);
        }
        fr.locals[local] = v;
        Ok(())
    }

    fn deallocate(
        &mut self,
        fr: &mut Frame<'db>,
        local: Option<LocalId>,
        value: ExprId,
        span: Span,
        name_span: Option<Span>,
    ) -> R<()> {
        let Some(local) = local else { return Ok(()) };
        if fr.checks {
            let expected = self.eval(fr, value)?;
            let found = &fr.locals[local];
            // A stack is freed empty (the generated code's stack check).
            if let (Value::Stack(items, _), Value::Stack(..)) = (found, &expected)
                && !items.is_empty()
            {
                let name = &fr.body.local(local).name;
                return Err(fr.error(
                    span,
                    Check::Stack,
                    format!("the stack `{name}` must be empty when freed"),
                    "stack of 0 []".into(),
                    found.debug(),
                ));
            }
            if !check_eq(found, &expected, self.atol) {
                let name = &fr.body.local(local).name;
                let text = fr.text(fr.body.expr(value).span);
                let implicit = name_span.is_some_and(|n| n.start < span.start || n.end > span.end);
                let what = if implicit {
                    let line = fr.location(fr.body.local(local).span).line;
                    format!(
                        "`{name}` (allocated at line {line}) must equal `{text}` when freed at the end of its block"
                    )
                } else {
                    format!("`{name}` must equal `{text}` when deallocated")
                };
                return Err(fr.error(
                    span,
                    Check::Deallocation,
                    what,
                    expected.debug(),
                    found.debug(),
                ));
            }
        }
        // The adjoint of the freed ancilla goes to what its value reads.
        if let Some(g) = &mut fr.grads {
            let cot = std::mem::take(&mut g[local]);
            // A log number freed against a real: the real's logarithm.
            let cot = match &fr.locals[local] {
                Value::ULog(_) => numbers::through_log(cot, &self.eval(fr, value)?),
                _ => cot,
            };
            self.backprop(fr, value, cot, span)?;
        }
        fr.locals[local] = Value::Moved;
        Ok(())
    }

    fn if_chain(
        &mut self,
        fr: &mut Frame<'db>,
        branches: &[(Cond, Vec<StmtId>)],
        otherwise: Option<&[StmtId]>,
        dir: Direction,
    ) -> R<()> {
        if fr.taping && branches.first().is_some_and(|(c, _)| c.recorded) {
            return self.recorded_if(fr, branches, otherwise, dir);
        }
        let Some(((cond, inner), rest)) = branches.split_first() else {
            return match otherwise {
                Some(stmts) => self.block(fr, stmts, dir),
                None => Ok(()),
            };
        };
        let post = cond.post.unwrap_or(cond.pre);
        let (before, after) = match dir {
            Direction::Forward => (cond.pre, post),
            Direction::Backward => (post, cond.pre),
        };
        let taken = self.condition(fr, before)?;
        if taken {
            self.block(fr, inner, dir)?;
        } else {
            self.if_chain(fr, rest, otherwise, dir)?;
        }
        if fr.checks {
            let now = self.condition(fr, after)?;
            if now != taken {
                let text = fr.text(fr.body.expr(after).span);
                let what = match dir {
                    Direction::Forward => {
                        format!("the postcondition `{text}` must agree with the branch taken")
                    }
                    Direction::Backward => {
                        format!("the precondition `{text}` must agree with the branch taken")
                    }
                };
                let found = fr.with_values(after, now);
                return Err(fr.error(
                    cond.span,
                    Check::IfPostcondition,
                    what,
                    taken.to_string(),
                    found,
                ));
            }
        }
        Ok(())
    }

    /// An `if` chain without postconditions in a `@tape` loop: going
    /// forwards the branch taken is pushed after it runs (so that what it
    /// recorded is popped first); backwards it is popped and undone.
    fn recorded_if(
        &mut self,
        fr: &mut Frame<'db>,
        branches: &[(Cond, Vec<StmtId>)],
        otherwise: Option<&[StmtId]>,
        dir: Direction,
    ) -> R<()> {
        let span = branches[0].0.span;
        match dir {
            Direction::Forward => {
                let mut taken = branches.len();
                for (k, (cond, _)) in branches.iter().enumerate() {
                    if self.condition(fr, cond.pre)? {
                        taken = k;
                        break;
                    }
                }
                match branches.get(taken) {
                    Some((_, stmts)) => self.block(fr, stmts, dir)?,
                    None => {
                        if let Some(stmts) = otherwise {
                            self.block(fr, stmts, dir)?;
                        }
                    }
                }
                self.tape.push(Value::int(taken as i64));
                Ok(())
            }
            Direction::Backward => {
                let taken = self.pop_tape(fr, span)?.as_i64().unwrap_or(-1);
                match usize::try_from(taken).ok().and_then(|k| branches.get(k)) {
                    Some((_, stmts)) => self.block(fr, stmts, dir),
                    None => match otherwise {
                        Some(stmts) => self.block(fr, stmts, dir),
                        None => Ok(()),
                    },
                }
            }
        }
    }

    fn pop_tape(&mut self, fr: &Frame<'db>, span: Span) -> R<Value> {
        self.tape.pop().ok_or_else(|| {
            fr.error(
                span,
                Check::Tape,
                "the inverse of a tape loop needs what its forward run recorded".into(),
                "a recorded value".into(),
                "an empty tape".into(),
            )
        })
    }

    /// `x = e`, `x *= e`, `x /= e` in a `@tape` loop: going forwards the
    /// old value is pushed; backwards it is popped back, and in a gradient
    /// run the adjoint of the new value goes to what made it.
    fn overwrite(
        &mut self,
        fr: &mut Frame<'db>,
        target: ExprId,
        op: InstrOp,
        value: ExprId,
        dir: Direction,
        span: Span,
    ) -> R<()> {
        let path = self
            .path(fr, target)?
            .ok_or_else(|| fr.domain(span, "an overwrite whose target is not a place".into()))?;
        match dir {
            Direction::Forward => {
                let v = self.eval(fr, value)?;
                let old = self.read(fr, &path, span)?;
                let new = match op {
                    InstrOp::Mul => ops::binary(BinaryOp::Mul, &old, &v),
                    InstrOp::Div => ops::binary(BinaryOp::Div, &old, &v),
                    InstrOp::Add => ops::binary(BinaryOp::Add, &old, &v),
                    _ => Ok(v),
                }
                .and_then(|n| convert(n, &old))
                .map_err(|m| fr.domain(span, m))?;
                self.tape.push(old);
                self.write(fr, &path, new, span)
            }
            Direction::Backward => {
                let old = self.pop_tape(fr, span)?;
                let cot = match fr.grads.is_some() {
                    true => Some(self.grad_take(fr, &path, span)?),
                    false => None,
                };
                self.write(fr, &path, old, span)?;
                if let Some(cot) = cot {
                    self.grad_write(fr, &path, cot.zero_like(), span)?;
                    self.overwrite_adjoint(fr, target, op, value, cot, span)?;
                }
                Ok(())
            }
        }
    }

    fn condition(&mut self, fr: &mut Frame<'db>, e: ExprId) -> R<bool> {
        if let Some(b) = fr.low.condition(e, &fr.locals) {
            return Ok(b);
        }
        let v = self.eval(fr, e)?;
        v.as_bool().ok_or_else(|| {
            fr.error(
                fr.body.expr(e).span,
                Check::Domain,
                "a condition must be a `bool`".into(),
                "a `bool`".into(),
                v.kind_name(),
            )
        })
    }

    fn while_loop(
        &mut self,
        fr: &mut Frame<'db>,
        cond: &Cond,
        inner: &[StmtId],
        dir: Direction,
    ) -> R<()> {
        if fr.taping && cond.recorded {
            return self.recorded_while(fr, cond, inner, dir);
        }
        let (pre, post) = match (dir, cond.post) {
            (Direction::Forward, Some(post)) => (cond.pre, Some(post)),
            (Direction::Backward, Some(post)) => (post, Some(cond.pre)),
            (_, None) => (cond.pre, None),
        };
        let checks = fr.checks;
        if checks
            && let Some(post) = post
            && self.condition(fr, post)?
        {
            let text = fr.text(fr.body.expr(post).span);
            let found = fr.with_values(post, true);
            return Err(fr.error(
                cond.span,
                Check::WhileEntry,
                format!("the postcondition `{text}` must be false before the loop"),
                "false".into(),
                found,
            ));
        }
        while self.condition(fr, pre)? {
            self.block(fr, inner, dir)?;
            if checks
                && let Some(post) = post
                && !self.condition(fr, post)?
            {
                let text = fr.text(fr.body.expr(post).span);
                let found = fr.with_values(post, false);
                return Err(fr.error(
                    cond.span,
                    Check::WhileIteration,
                    format!("the postcondition `{text}` must be true after each iteration"),
                    "true".into(),
                    found,
                ));
            }
        }
        Ok(())
    }

    /// A `while` without postcondition in a `@tape` loop: its trip count
    /// is pushed after it; backwards it is popped and the body undone as
    /// many times.
    fn recorded_while(
        &mut self,
        fr: &mut Frame<'db>,
        cond: &Cond,
        inner: &[StmtId],
        dir: Direction,
    ) -> R<()> {
        match dir {
            Direction::Forward => {
                let mut trips = 0i64;
                while self.condition(fr, cond.pre)? {
                    self.block(fr, inner, dir)?;
                    trips += 1;
                }
                self.tape.push(Value::int(trips));
                Ok(())
            }
            Direction::Backward => {
                let trips = self.pop_tape(fr, cond.span)?.as_i64().unwrap_or(0);
                for _ in 0..trips {
                    self.block(fr, inner, dir)?;
                }
                Ok(())
            }
        }
    }

    #[allow(clippy::too_many_arguments)]
    fn for_loop(
        &mut self,
        fr: &mut Frame<'db>,
        var: LocalId,
        start: ExprId,
        step: Option<ExprId>,
        stop: ExprId,
        reversed: bool,
        inner: &[StmtId],
        dir: Direction,
        (range, range_text): (Span, &str),
    ) -> R<()> {
        let backwards = reversed != (dir == Direction::Backward);
        // The range as the generated code's messages print it: reversed
        // where the loop runs last value first (in an uncall, or in the
        // uncomputation of a routine).
        let shown = || match backwards {
            true => format!("reverse({range_text})"),
            false => range_text.to_string(),
        };
        let bounds = |this: &mut Self, fr: &mut Frame<'db>| -> R<(i64, i64, i64)> {
            let a = this.integer(fr, start)?;
            let s = match step {
                Some(s) => this.integer(fr, s)?,
                None => 1,
            };
            let b = this.integer(fr, stop)?;
            Ok((a, s, b))
        };
        let (a, s, b) = bounds(self, fr)?;
        // Checked as the generated code checks it; unchecked, a step of 0
        // runs no iteration, as there.
        if s == 0 && fr.checks {
            return Err(fr.error(
                range,
                Check::ForStep,
                format!("the step of `{}` must not be 0", shown()),
                "a step other than 0".into(),
                "0".into(),
            ));
        }
        // The values in order, as a count from `a`.
        let count = if s == 0 || (s > 0 && a > b) || (s < 0 && a < b) {
            0
        } else {
            // (A step of 1 needs no 128-bit division.)
            let width = b as i128 - a as i128;
            (if s == 1 { width } else { width / s as i128 }) as i64 + 1
        };
        for k in 0..count {
            let k = if backwards { count - 1 - k } else { k };
            // Written into the counter where it is (a new `Value` built
            // and copied in costs a store-forwarding stall per iteration).
            match &mut fr.locals[var] {
                Value::Int(x, Scalar::I64) => *x = a + k * s,
                slot => *slot = Value::int(a + k * s),
            }
            self.block(fr, inner, dir)?;
        }
        fr.locals[var] = Value::Moved;
        // Once, after the loop, as the generated code checks it.
        if fr.checks {
            let now = bounds(self, fr)?;
            if now != (a, s, b) {
                return Err(fr.error(
                    range,
                    Check::ForBounds,
                    format!(
                        "the range `{}` must not change while the loop runs",
                        shown()
                    ),
                    format!("({a}, {s}, {b})"),
                    format!("({}, {}, {})", now.0, now.1, now.2),
                ));
            }
        }
        Ok(())
    }

    fn integer(&mut self, fr: &mut Frame<'db>, e: ExprId) -> R<i64> {
        if let Some(k) = int_fast(fr, e) {
            return Ok(k);
        }
        let v = self.eval(fr, e)?;
        v.as_i64().ok_or_else(|| {
            fr.error(
                fr.body.expr(e).span,
                Check::Unsupported,
                "a loop bound that is not an integer".into(),
                "an integer".into(),
                v.kind_name(),
            )
        })
    }

    fn instr(
        &mut self,
        fr: &mut Frame<'db>,
        target: ExprId,
        op: InstrOp,
        broadcast: bool,
        value: ExprId,
        span: Span,
    ) -> R<()> {
        let bop = match op {
            InstrOp::Add => BinaryOp::Add,
            InstrOp::Sub => BinaryOp::Sub,
            InstrOp::Xor => BinaryOp::Xor,
            InstrOp::Mul => BinaryOp::Mul,
            InstrOp::Div => BinaryOp::Div,
            InstrOp::Assign => {
                return Err(fr.error(
                    span,
                    Check::Unsupported,
                    "an assignment `=` outside a `@tape` loop".into(),
                    "a reversible instruction".into(),
                    "`=`".into(),
                ));
            }
        };
        // A view of places: `(s, c) += sincos(a)` updates each place of the
        // tuple with its part of the value, `z' += e` updates `z` with
        // `conj(e)` (so that `conj(z)` is changed by `e`), as the generated
        // code writes them.
        let view = match &fr.body.expr(target).kind {
            Expr::Tuple(items) if !broadcast => Some(View::Tuple(items.clone())),
            Expr::Conj(inner) if !broadcast => Some(View::Conj(*inner)),
            _ => None,
        };
        if let Some(view) = view {
            if fr.grads.is_some() {
                self.view_adjoint(fr, &view, op, value, span)?;
            }
            let v = self.eval(fr, value)?;
            return match view {
                View::Conj(inner) => {
                    let v = match v {
                        Value::Complex(re, im) => Value::Complex(re, -im),
                        v => v,
                    };
                    self.update(fr, inner, bop, v, span)
                }
                View::Tuple(items) => {
                    let parts = match v {
                        Value::Tuple(parts) if parts.len() == items.len() => parts,
                        v => {
                            return Err(fr.error(
                                span,
                                Check::Shape,
                                "a tuple of places updated by a value that is no tuple of as many"
                                    .into(),
                                format!("a tuple of {}", items.len()),
                                v.kind_name(),
                            ));
                        }
                    };
                    for (&item, part) in items.iter().zip(parts.iter()) {
                        self.update(fr, item, bop, part.clone(), span)?;
                    }
                    Ok(())
                }
            };
        }
        // In the generated code's order, so that a run that stops stops at
        // the same check: `e` of `y[i] += e` before the place `y[i]`; for a
        // broadcast, the place's shape, then each operand's against it,
        // then the values.
        let early = if broadcast {
            None
        } else {
            let v = self.eval(fr, value)?;
            if fr.grads.is_none() && update_in_place(fr, target, bop, &v) {
                return Ok(());
            }
            Some(v)
        };
        let path = self.path(fr, target)?.ok_or_else(|| {
            fr.error(
                span,
                Check::Unsupported,
                "an instruction whose target is not a place".into(),
                "a variable, element or field".into(),
                "an expression".into(),
            )
        })?;
        let cur = self.read(fr, &path, span)?;
        let v = match early {
            Some(v) => v,
            None => {
                self.broadcast_shapes(fr, target, &cur, value, span)?;
                self.eval(fr, value)?
            }
        };
        // The adjoints move before the value changes (evaluating and
        // sending adjoints change no value, so `cur` is still the place's).
        if fr.grads.is_some() {
            self.instr_adjoint(fr, &path, op, value, span)?;
            // Then a number place is updated where it is, as in a run
            // without adjoints.
            if !broadcast && update_in_place(fr, target, bop, &v) {
                return Ok(());
            }
        }
        let new = if broadcast {
            self.broadcast_update(fr, bop, cur, v, span)?
        } else if fr.checks
            && matches!(cur, Value::Fixed(_) | Value::ULog(_))
            && let Some(new) = fixed_checked(fr, target, bop, &cur, &v, span)?
        {
            new
        } else {
            updated(fr, bop, &cur, v, span)?
        };
        self.write(fr, &path, new, span)
    }

    /// The place `target` updated by `op` with the value `v`.
    fn update(
        &mut self,
        fr: &mut Frame<'db>,
        target: ExprId,
        op: BinaryOp,
        v: Value,
        span: Span,
    ) -> R<()> {
        let path = self.path(fr, target)?.ok_or_else(|| {
            fr.error(
                span,
                Check::Unsupported,
                "an instruction whose target is not a place".into(),
                "a variable, element or field".into(),
                "an expression".into(),
            )
        })?;
        let cur = self.read(fr, &path, span)?;
        let new = updated(fr, op, &cur, v, span)?;
        self.write(fr, &path, new, span)
    }

    /// Each array operand of a broadcast instruction against the shape of
    /// the place it updates, in the order the operands are written (each
    /// once), as the generated code checks them before its loop.
    fn broadcast_shapes(
        &mut self,
        fr: &mut Frame<'db>,
        target: ExprId,
        cur: &Value,
        value: ExprId,
        span: Span,
    ) -> R<()> {
        let Some(want) = shape(cur) else {
            return Ok(());
        };
        let mut operands = Vec::new();
        self.broadcast_operands(fr, value, want.1, &mut operands)?;
        let target_text = fr.text(fr.body.expr(target).span);
        let mut seen: Vec<String> = Vec::new();
        for (text, found) in operands {
            if seen.contains(&text) {
                continue;
            }
            seen.push(text.clone());
            if found != want.0 {
                return Err(fr.error(
                    span,
                    Check::Shape,
                    format!("`{text}` must have the shape of `{target_text}`"),
                    want.0,
                    found,
                ));
            }
        }
        Ok(())
    }

    /// The array operands of a broadcast's value (variables, and matrix
    /// columns in a one-dimensional broadcast) with their shapes printed as
    /// the generated code prints them (`4`, `(3, 3)`).
    fn broadcast_operands(
        &mut self,
        fr: &mut Frame<'db>,
        e: ExprId,
        two_d: bool,
        out: &mut Vec<(String, String)>,
    ) -> R<()> {
        let data = fr.body.expr(e);
        match &data.kind {
            Expr::Local(l) => {
                if let Some((s, d2)) = shape(&fr.locals[*l])
                    && d2 == two_d
                {
                    out.push((fr.body.local(*l).name.clone(), s));
                }
            }
            Expr::Index { indices, .. }
                if !two_d && matches!(indices.as_slice(), [Index::All, Index::At(_)]) =>
            {
                let v = self.eval(fr, e)?;
                if let Some((s, false)) = shape(&v) {
                    out.push((fr.text(data.span), s));
                }
            }
            Expr::Pure { args, .. } | Expr::Construct { args, .. } => {
                for &a in args {
                    self.broadcast_operands(fr, a, two_d, out)?;
                }
            }
            Expr::Unary { operand, .. } | Expr::Conj(operand) => {
                self.broadcast_operands(fr, *operand, two_d, out)?;
            }
            Expr::Binary { lhs, rhs, .. } => {
                self.broadcast_operands(fr, *lhs, two_d, out)?;
                self.broadcast_operands(fr, *rhs, two_d, out)?;
            }
            _ => {}
        }
        Ok(())
    }

    fn broadcast_update(
        &mut self,
        fr: &Frame<'db>,
        op: BinaryOp,
        cur: Value,
        v: Value,
        span: Span,
    ) -> R<Value> {
        let apply = |c: &Value, x: &Value| {
            ops::binary(op, c, x)
                .and_then(|n| convert(n, c))
                .map_err(|m| fr.domain(span, m))
        };
        match (&cur, &v) {
            (Value::Array(items), Value::Array(xs)) => {
                if items.len() != xs.len() {
                    return Err(fr.error(
                        span,
                        Check::Shape,
                        "the arrays of a broadcast must have one length".into(),
                        items.len().to_string(),
                        xs.len().to_string(),
                    ));
                }
                let out = items
                    .iter()
                    .zip(xs.iter())
                    .map(|(c, x)| apply(c, x))
                    .collect::<R<Vec<_>>>()?;
                Ok(Value::Array(Rc::new(out)))
            }
            (Value::Array(items), x) => {
                let out = items.iter().map(|c| apply(c, x)).collect::<R<Vec<_>>>()?;
                Ok(Value::Array(Rc::new(out)))
            }
            (Value::Matrix { rows, cols, data }, x) => {
                let out: Vec<Value> = match x {
                    Value::Matrix { data: xs, .. } if xs.len() == data.len() => data
                        .iter()
                        .zip(xs.iter())
                        .map(|(c, x)| apply(c, x))
                        .collect::<R<_>>()?,
                    _ => data.iter().map(|c| apply(c, x)).collect::<R<_>>()?,
                };
                Ok(Value::Matrix {
                    rows: *rows,
                    cols: *cols,
                    data: Rc::new(out),
                })
            }
            _ => apply(&cur, &v),
        }
    }

    fn call_stmt(
        &mut self,
        fr: &mut Frame<'db>,
        target: &CallTarget<'db>,
        dir: Direction,
        args: &[ExprId],
        kwargs: &[(String, ExprId)],
        span: Span,
    ) -> R<()> {
        let f = match target {
            CallTarget::Instruction(ins) => return self.instruction(fr, ins, dir, args, span),
            CallTarget::Function(Callable::Function(f)) => *f,
            CallTarget::Function(Callable::Derived {
                derivative,
                base,
                mask,
            }) => {
                let call = DerivativeCall {
                    derivative: *derivative,
                    base: *base,
                    inverted: dir == Direction::Backward,
                };
                // A gradient run runs the call's reverse pass (a second
                // derivative). The run goes the other way than the program
                // whose reverse pass it is, so that program made the call
                // uncalled when this run makes it forwards.
                if fr.grads.is_some() {
                    let call = DerivativeCall {
                        inverted: !call.inverted,
                        ..call
                    };
                    return self.derivative_reverse(fr, call, mask, args, span);
                }
                return self.derivative_call(fr, call, mask, args, span);
            }
            CallTarget::Local(l) => {
                let (name, captured) = match &fr.locals[*l] {
                    Value::Function(name) => (name.clone(), None),
                    Value::Partial(name, captured) => (name.clone(), Some(captured.clone())),
                    v => {
                        return Err(fr.error(
                            span,
                            Check::Unsupported,
                            format!("a call of `{}`", fr.body.local(*l).name),
                            "a function".into(),
                            v.kind_name(),
                        ));
                    }
                };
                match self.function(&name) {
                    Some(f) => {
                        return self.call_function(
                            fr,
                            f,
                            captured.as_deref().map(|c| (c.as_slice(), *l)),
                            dir,
                            args,
                            kwargs,
                            span,
                        );
                    }
                    None => {
                        return Err(fr.error(
                            span,
                            Check::Unsupported,
                            format!("a call of the function value `{name}`"),
                            "a function of the project".into(),
                            format!("`{name}`"),
                        ));
                    }
                }
            }
            CallTarget::Unresolved(name) => {
                return Err(fr.error(
                    span,
                    Check::Unsupported,
                    format!("a call of `{name}`, which the analysis did not resolve"),
                    "a function of the project".into(),
                    format!("`{name}`"),
                ));
            }
        };
        self.call_function(fr, f, None, dir, args, kwargs, span)
    }

    /// A call of the function `f`, with `captured` arguments of a partial
    /// application (the call's arguments fill its holes in order).
    #[allow(clippy::too_many_arguments)]
    fn call_function(
        &mut self,
        fr: &mut Frame<'db>,
        f: FnId<'db>,
        captured: Option<(&[Option<Value>], LocalId)>,
        dir: Direction,
        args: &[ExprId],
        kwargs: &[(String, ExprId)],
        span: Span,
    ) -> R<()> {
        let info = self.info(f);
        if captured.is_none()
            && kwargs.is_empty()
            && let Some(done) = self.call_on_locals(fr, f, &info, dir, args, span)?
        {
            return Ok(done);
        }
        let mutated = &info.mutated;
        let mut given = args.iter();
        let slots: SmallVec<[Result<ExprId, Value>; 8]> = match captured {
            None => args.iter().map(|&a| Ok(a)).collect(),
            Some((captured, _)) => {
                let mut slots = SmallVec::with_capacity(captured.len());
                for c in captured {
                    match c {
                        Some(v) => slots.push(Err(v.clone())),
                        None => match given.next() {
                            Some(&a) => slots.push(Ok(a)),
                            None => {
                                return Err(fr.domain(
                                    span,
                                    "a partial application called with too few arguments".into(),
                                ));
                            }
                        },
                    }
                }
                slots
            }
        };
        let mut paths: SmallVec<[Option<Path>; 8]> = SmallVec::with_capacity(slots.len());
        // As long as the callee's locals: the callee's frame takes it over
        // (`invoke`).
        let mut values =
            Vec::with_capacity(info.body.map_or(0, |b| b.locals.len()).max(slots.len()));
        // In a gradient run, the arguments the callee only reads: it adds
        // to their adjoints, which go back to the places or expressions.
        let mut read_only: Vec<(usize, ExprId, Option<Path>)> = Vec::new();
        // The arguments a partial application captured, by position.
        let mut fixed: Vec<usize> = Vec::new();
        for (i, slot) in slots.into_iter().enumerate() {
            let a = match slot {
                Ok(a) => a,
                Err(v) => {
                    fixed.push(i);
                    paths.push(None);
                    values.push(v);
                    continue;
                }
            };
            let changed = mutated.get(i).copied().unwrap_or(true);
            let path = if changed { self.path(fr, a)? } else { None };
            if fr.grads.is_some() && !changed {
                read_only.push((i, a, self.path(fr, a)?));
            }
            if let Some(p) = &path
                && paths.iter().flatten().any(|q| overlaps(q, p))
            {
                return Err(fr.error(
                    span,
                    Check::Alias,
                    format!(
                        "`{}` is passed twice to a call that changes it",
                        fr.text(fr.body.expr(a).span)
                    ),
                    "different places".into(),
                    "the same place".into(),
                ));
            }
            let v = match &path {
                Some(p) => self.take(fr, p, span)?,
                None => {
                    let v = self.eval(fr, a)?;
                    match info
                        .body
                        .and_then(|b| b.params.get(i).map(|&l| &b.local(l).ty))
                    {
                        Some(ty) => argument_as(v, ty),
                        None => v,
                    }
                }
            };
            paths.push(path);
            values.push(v);
        }
        let mut kw = Vec::with_capacity(kwargs.len());
        for (name, e) in kwargs {
            kw.push((name.clone(), self.eval(fr, *e)?));
        }
        let at = fr.site(span);
        let grads = match fr.grads.is_some() {
            true => Some(
                paths
                    .iter()
                    .zip(&values)
                    .map(|(p, v)| match p {
                        Some(p) => self.grad_take(fr, p, span),
                        // Read-only and captured arguments collect adjoints
                        // from zero; they are added back after the call.
                        None => Ok(v.zero_like()),
                    })
                    .collect::<R<Vec<_>>>()?,
            ),
            false => None,
        };
        let (results, grads) = self.invoke_as(f, &info, values, grads, kw, dir, Some(at))?;
        // What a callee in the other float left, back in this one.
        let grads = grads.map(|g| {
            g.into_iter()
                .map(|g| in_scalar(g, fr.scalar))
                .collect::<Vec<_>>()
        });
        for (path, v) in paths.iter().zip(results) {
            if let Some(p) = path {
                self.write(fr, p, v, span)?;
            }
        }
        if let Some(mut grads) = grads {
            if let (Some((_, via)), Some(store)) = (captured, &mut fr.grads) {
                let mut into: Vec<Option<Value>> = match &store[via] {
                    Value::Partial(_, c) => (**c).clone(),
                    _ => Vec::new(),
                };
                // The k-th captured value was passed at `fixed[k]`.
                for (c, &i) in into.iter_mut().flatten().zip(&fixed) {
                    *c = accumulate(c, &grads[i]);
                }
                if let Value::Partial(name, _) = &store[via] {
                    store[via] = Value::Partial(name.clone(), Rc::new(into));
                }
            }
            for (i, a, path) in read_only {
                let g = std::mem::take(&mut grads[i]);
                match path {
                    Some(p) => {
                        let sum = accumulate(&self.grad_read(fr, &p, span)?, &g);
                        self.grad_write(fr, &p, sum, span)?;
                    }
                    None => self.backprop(fr, a, g, span)?,
                }
            }
            for (path, g) in paths.iter().zip(grads) {
                if let Some(p) = path {
                    self.grad_write(fr, p, g, span)?;
                }
            }
        }
        Ok(())
    }

    /// [`Interpreter::call_function`] of a call whose changed arguments
    /// are whole locals of the caller, each named once, and, in a gradient
    /// run, whose other arguments are locals too (`imul(out, x, anc)`, the
    /// most frequent call): each changed local, and its adjoint, is moved
    /// into the callee's frame and back without the general path's places,
    /// a read-only local's adjoint gets what the callee added to its zero,
    /// and the frame's vector is reused from call to call. `None`, with
    /// nothing done, where the general path is needed.
    fn call_on_locals(
        &mut self,
        fr: &mut Frame<'db>,
        f: FnId<'db>,
        info: &FnInfo<'db>,
        dir: Direction,
        args: &[ExprId],
        span: Span,
    ) -> R<Option<()>> {
        let Some(body) = info.body else {
            return Ok(None);
        };
        if body.params.len() != args.len() || info.mutated.len() != args.len() {
            return Ok(None);
        }
        // Each argument's local, where it is one: the changed arguments'
        // each once (else the general path reports the alias); in a
        // gradient run, every argument a local.
        let gradient = fr.grads.is_some();
        let mut locals: SmallVec<[Option<LocalId>; 4]> = SmallVec::with_capacity(args.len());
        for (&a, &changed) in args.iter().zip(&info.mutated) {
            let local = match fr.body.expr(a).kind {
                Expr::Local(l) => Some(l),
                _ => None,
            };
            let twice = changed
                && locals
                    .iter()
                    .zip(&info.mutated)
                    .any(|(&m, &c)| c && m == local);
            if twice || (local.is_none() && (changed || gradient)) {
                return Ok(None);
            }
            locals.push(local);
        }
        let changed_local = |i: usize| locals[i].filter(|_| info.mutated[i]);
        let mut values = self.spare.pop().unwrap_or_default();
        values.reserve(body.locals.len());
        // In the order written, as the general path takes them: a changed
        // local is moved out, anything else evaluated and converted.
        for (i, &a) in args.iter().enumerate() {
            let v = match changed_local(i) {
                Some(l) => std::mem::take(&mut fr.locals[l]),
                None => argument_as(self.eval(fr, a)?, &body.local(body.params[i]).ty),
            };
            values.push(v);
        }
        // A changed local's adjoint moves with it; a read-only argument's
        // starts from zero.
        let grads = fr.grads.as_mut().map(|store| {
            values
                .iter()
                .enumerate()
                .map(|(i, v)| match changed_local(i) {
                    Some(l) => std::mem::take(&mut store[l]),
                    None => v.zero_like(),
                })
                .collect::<Vec<_>>()
        });
        let at = fr.site(span);
        let (mut results, grads) =
            self.invoke_as(f, info, values, grads, Vec::new(), dir, Some(at))?;
        for (i, v) in results.drain(..).enumerate() {
            if let Some(l) = changed_local(i) {
                fr.locals[l] = v;
            }
        }
        self.spare.push(results);
        if let (Some(grads), Some(store)) = (grads, &mut fr.grads) {
            for ((&local, &changed), g) in locals.iter().zip(&info.mutated).zip(grads) {
                // What a callee in the other float left, back in this one.
                let g = in_scalar(g, fr.scalar);
                if let Some(l) = local {
                    store[l] = match changed {
                        true => g,
                        false => accumulate(&store[l], &g),
                    };
                }
            }
        }
        Ok(Some(()))
    }

    fn instruction(
        &mut self,
        fr: &mut Frame<'db>,
        ins: &'static Instruction,
        dir: Direction,
        args: &[ExprId],
        span: Span,
    ) -> R<()> {
        let ins = match dir {
            Direction::Forward => ins,
            Direction::Backward => builtins::instruction(ins.inverse).unwrap_or(ins),
        };
        // `SWAP(a, b)` of two number locals of one type: exchanged where
        // they are (the general path reads both, converts each to the
        // other's type, which is its own, and writes both).
        if ins.name == "SWAP"
            && fr.grads.is_none()
            && let [a, b] = args
            && let (Expr::Local(a), Expr::Local(b)) =
                (&fr.body.expr(*a).kind, &fr.body.expr(*b).kind)
            && a != b
            && matches!(
                (&fr.locals[*a], &fr.locals[*b]),
                (Value::F64(_), Value::F64(_))
                    | (Value::Int(_, Scalar::I64), Value::Int(_, Scalar::I64))
            )
        {
            fr.locals.swap(*a, *b);
            return Ok(());
        }
        let mut paths = Vec::with_capacity(ins.mutates.len());
        for &m in ins.mutates {
            let Some(&a) = args.get(m) else {
                return Err(fr.domain(
                    span,
                    format!("`{}` needs {} arguments", ins.name, ins.arity),
                ));
            };
            let p = self.path(fr, a)?.ok_or_else(|| {
                fr.domain(
                    span,
                    format!("`{}` changes an argument that is not a place", ins.name),
                )
            })?;
            paths.push(p);
        }
        let old: Vec<Value> = paths
            .iter()
            .map(|p| self.read(fr, p, span))
            .collect::<R<_>>()?;
        if fr.grads.is_some() {
            self.instruction_adjoint(fr, ins, &paths, &old, args, span)?;
        }
        let new = match ins.rule {
            Rule::Linear { rows, angle, .. } => {
                let theta = match angle {
                    Some(k) => {
                        let v = self.eval(fr, args[k])?;
                        // The rotation's factors are computed from the
                        // angle's value: a tangent of the angle would be
                        // lost.
                        if let Value::Dual(_, eps) = v
                            && eps != 0.0
                        {
                            return Err(fr.unsupported(
                                span,
                                "an angle that carries a tangent (in a tangent call)",
                            ));
                        }
                        v.as_f64().ok_or_else(|| {
                            fr.domain(span, format!("an angle of {}", v.kind_name()))
                        })?
                    }
                    None => 0.0,
                };
                rows.iter()
                    .zip(&old)
                    .map(|(row, like)| {
                        // `±a ± b` times `1/√2`, factored as the backends
                        // render it (`(a + b) * FRAC_1_SQRT_2`).
                        if row.iter().all(|(_, f)| {
                            matches!(f, builtins::Factor::Rsqrt2 | builtins::Factor::MinusRsqrt2)
                        }) {
                            return self.rsqrt2_row(fr, row, &old, like, span);
                        }
                        let mut acc: Option<Value> = None;
                        for &(j, factor) in *row {
                            let term = match factor {
                                builtins::Factor::One => old[j].clone(),
                                builtins::Factor::MinusOne => {
                                    ops::negate(&old[j]).map_err(|m| fr.domain(span, m))?
                                }
                                f => {
                                    let c = match like {
                                        Value::F32(_) => Value::F32(f.at_f32(theta as f32)),
                                        _ => Value::F64(f.at(theta)),
                                    };
                                    ops::binary(BinaryOp::Mul, &c, &old[j])
                                        .map_err(|m| fr.domain(span, m))?
                                }
                            };
                            acc = Some(match acc {
                                None => term,
                                Some(a) => ops::binary(BinaryOp::Add, &a, &term)
                                    .map_err(|m| fr.domain(span, m))?,
                            });
                        }
                        let v = acc.unwrap_or_else(|| like.zero_like());
                        if like.is_number() {
                            convert(v, like).map_err(|m| fr.domain(span, m))
                        } else {
                            Ok(v)
                        }
                    })
                    .collect::<R<Vec<_>>>()?
            }
            Rule::Scale { by, divide } => {
                let n = self.eval(fr, args[by])?;
                let op = if divide { BinaryOp::Div } else { BinaryOp::Mul };
                let v = ops::binary(op, &old[0], &n)
                    .and_then(|v| convert(v, &old[0]))
                    .map_err(|m| fr.domain(span, m))?;
                vec![v]
            }
            Rule::Shift { up } => {
                let op = if up { BinaryOp::Add } else { BinaryOp::Sub };
                let v = ops::binary(op, &old[0], &Value::int(1))
                    .and_then(|v| convert(v, &old[0]))
                    .map_err(|m| fr.domain(span, m))?;
                vec![v]
            }
            Rule::Conj => vec![match &old[0] {
                Value::Complex(re, im) => Value::Complex(*re, -im),
                v => v.clone(),
            }],
            Rule::Stack => self.stack_instruction(fr, ins, old, args, span)?,
        };
        for (p, v) in paths.iter().zip(new) {
            self.write(fr, p, v, span)?;
        }
        Ok(())
    }

    /// A row `Σ ±old[j] / √2` of a linear rule, summed first and scaled once.
    fn rsqrt2_row(
        &self,
        fr: &Frame<'db>,
        row: &[(usize, builtins::Factor)],
        old: &[Value],
        like: &Value,
        span: Span,
    ) -> R<Value> {
        let mut acc: Option<Value> = None;
        for &(j, f) in row {
            let minus = f == builtins::Factor::MinusRsqrt2;
            acc = Some(match (acc, minus) {
                (None, false) => old[j].clone(),
                (None, true) => ops::negate(&old[j]).map_err(|m| fr.domain(span, m))?,
                (Some(a), m) => {
                    let op = if m { BinaryOp::Sub } else { BinaryOp::Add };
                    ops::binary(op, &a, &old[j]).map_err(|m| fr.domain(span, m))?
                }
            });
        }
        let r = match like {
            Value::F32(_) => Value::F32(std::f32::consts::FRAC_1_SQRT_2),
            _ => Value::F64(std::f64::consts::FRAC_1_SQRT_2),
        };
        let v = ops::binary(BinaryOp::Mul, &acc.unwrap_or_else(|| like.zero_like()), &r)
            .map_err(|m| fr.domain(span, m))?;
        convert(v, like).map_err(|m| fr.domain(span, m))
    }

    /// `PUSH!(s, x)`, `POP!(s, x)`, `COPYPUSH!(s, x)`, `COPYPOP!(s, x)`:
    /// the new values of the arguments they change.
    fn stack_instruction(
        &mut self,
        fr: &mut Frame<'db>,
        ins: &Instruction,
        old: Vec<Value>,
        args: &[ExprId],
        span: Span,
    ) -> R<Vec<Value>> {
        let mut old = old.into_iter();
        let Some(Value::Stack(items, elem)) = old.next() else {
            return Err(fr.domain(span, format!("`{}` of something not a stack", ins.name)));
        };
        let s_name = fr.text(fr.body.expr(args[0]).span);
        let mut items = items;
        let x = match old.next() {
            Some(x) => x,
            None => self.eval(fr, args[1])?,
        };
        let empty = |fr: &Frame<'db>| {
            fr.error(
                span,
                Check::Stack,
                format!(
                    "{}({s_name}, {}): the stack `{s_name}` is empty",
                    ins.name,
                    fr.text(fr.body.expr(args[1]).span)
                ),
                "a value to take".into(),
                format!("the stack `{s_name}` empty"),
            )
        };
        Ok(match ins.name {
            "PUSH!" => {
                let zero = x.zero_like();
                Rc::make_mut(&mut items).push(x);
                vec![Value::Stack(items, elem), zero]
            }
            "COPYPUSH!" => {
                Rc::make_mut(&mut items).push(x);
                vec![Value::Stack(items, elem)]
            }
            "POP!" => {
                if fr.checks && !x.is_zero() {
                    return Err(fr.error(
                        span,
                        Check::Stack,
                        {
                            let x_text = fr.text(fr.body.expr(args[1]).span);
                            format!("`{x_text}` must be zero before `POP!({s_name}, {x_text})`")
                        },
                        x.zero_like().debug(),
                        x.debug(),
                    ));
                }
                let top = Rc::make_mut(&mut items).pop().ok_or_else(|| empty(fr))?;
                vec![Value::Stack(items, elem), top]
            }
            _ => {
                let top = Rc::make_mut(&mut items).pop().ok_or_else(|| empty(fr))?;
                if fr.checks && !check_eq(&top, &x, self.atol) {
                    return Err(fr.error(
                        span,
                        Check::Stack,
                        format!(
                            "COPYPOP!({s_name}, {}): the top of the stack must equal the value",
                            fr.text(fr.body.expr(args[1]).span)
                        ),
                        x.debug(),
                        top.debug(),
                    ));
                }
                vec![Value::Stack(items, elem)]
            }
        })
    }

    // --- places -------------------------------------------------------

    /// The place `e` names, if it is one.
    fn path(&mut self, fr: &mut Frame<'db>, e: ExprId) -> R<Option<Path>> {
        let data = fr.body.expr(e);
        Ok(match &data.kind {
            Expr::Local(l) => Some(Path {
                root: *l,
                steps: SmallVec::new(),
            }),
            Expr::Index { base, indices } => {
                if let Some((root, k)) = local_element(fr, *base, indices) {
                    return Ok(Some(Path {
                        root,
                        steps: smallvec::smallvec![Step::At(k)],
                    }));
                }
                let Some(mut p) = self.path(fr, *base)? else {
                    return Ok(None);
                };
                let at = self.read(fr, &p, data.span)?;
                let step = self.index_step(fr, &at, indices, *base)?;
                match step {
                    Some(s) => {
                        p.steps.push(s);
                        Some(p)
                    }
                    None => None,
                }
            }
            Expr::Field { base, field } => {
                let Some(mut p) = self.path(fr, *base)? else {
                    return Ok(None);
                };
                let at = self.read(fr, &p, data.span)?;
                match &at {
                    Value::Complex(..) if field == "re" || field == "im" => {
                        p.steps.push(Step::Part(field == "im"));
                        Some(p)
                    }
                    Value::ULog(_) if field == "log" => {
                        p.steps.push(Step::Inner);
                        Some(p)
                    }
                    Value::Tropical(_) if field == "n" => {
                        p.steps.push(Step::Inner);
                        Some(p)
                    }
                    Value::Struct { fields, .. } => {
                        match fields.iter().position(|(n, _)| n == field) {
                            Some(k) => {
                                p.steps.push(Step::Field(k));
                                Some(p)
                            }
                            None => return Err(fr.domain(data.span, format!("no field `{field}`"))),
                        }
                    }
                    _ => None,
                }
            }
            // `real(z)` and `imag(z)` of a complex place are its parts.
            Expr::Pure {
                func: func @ (PureFn::Real | PureFn::Imag),
                args,
                broadcast: false,
            } if args.len() == 1 => {
                let Some(mut p) = self.path(fr, args[0])? else {
                    return Ok(None);
                };
                match self.read(fr, &p, data.span)? {
                    Value::Complex(..) => {
                        p.steps.push(Step::Part(*func == PureFn::Imag));
                        Some(p)
                    }
                    _ => None,
                }
            }
            _ => None,
        })
    }

    /// The step an index takes into `at`, checked against its shape.
    fn index_step(
        &mut self,
        fr: &mut Frame<'db>,
        at: &Value,
        indices: &[Index],
        base: ExprId,
    ) -> R<Option<Step>> {
        let base_span = fr.body.expr(base).span;
        let one = |this: &mut Self,
                   fr: &mut Frame<'db>,
                   i: &Index,
                   len: usize,
                   unit: &str|
         -> R<Option<usize>> {
            let Index::At(e) = i else { return Ok(None) };
            let k = this.integer(fr, *e)?;
            if k < 1 || k as u64 > len as u64 {
                return Err(index_error(fr, base_span, *e, k, len, unit));
            }
            Ok(Some(k as usize - 1))
        };
        Ok(match (at, indices) {
            (Value::Array(items) | Value::Stack(items, _) | Value::Tuple(items), [i]) => {
                one(self, fr, i, items.len(), "element")?.map(Step::At)
            }
            // The row is checked before the column, as the generated code
            // checks them.
            (Value::Matrix { rows, cols, .. }, [i, j]) => {
                let r = one(self, fr, i, *rows, "row")?;
                let c = one(self, fr, j, *cols, "column")?;
                match (i, r, c) {
                    (Index::All, _, Some(c)) => Some(Step::Column(c)),
                    (_, Some(r), Some(c)) => Some(Step::At(c * rows + r)),
                    _ => None,
                }
            }
            (Value::Matrix { data, .. }, [i]) => {
                one(self, fr, i, data.len(), "element")?.map(Step::At)
            }
            _ => None,
        })
    }

    fn read(&self, fr: &Frame<'db>, p: &Path, span: Span) -> R<Value> {
        read_in(&fr.locals[p.root], &p.steps)
            .ok_or_else(|| fr.domain(span, "a place that changed shape".into()))
    }

    fn take(&self, fr: &mut Frame<'db>, p: &Path, span: Span) -> R<Value> {
        take_in(&mut fr.locals[p.root], &p.steps)
            .ok_or_else(|| fr.domain(span, "a place that changed shape".into()))
    }

    fn write(&self, fr: &mut Frame<'db>, p: &Path, v: Value, span: Span) -> R<()> {
        if write_in(&mut fr.locals[p.root], &p.steps, v) {
            Ok(())
        } else {
            Err(fr.domain(span, "a place written with a value of another shape".into()))
        }
    }

    /// The adjoint of a place, in a gradient run.
    fn grad_read(&self, fr: &Frame<'db>, p: &Path, span: Span) -> R<Value> {
        fr.grads
            .as_ref()
            .and_then(|g| read_in(&g[p.root], &p.steps))
            .ok_or_else(|| fr.domain(span, "an adjoint that changed shape".into()))
    }

    fn grad_take(&self, fr: &mut Frame<'db>, p: &Path, span: Span) -> R<Value> {
        match &mut fr.grads {
            Some(g) => take_in(&mut g[p.root], &p.steps),
            None => None,
        }
        .ok_or_else(|| fr.domain(span, "an adjoint that changed shape".into()))
    }

    fn grad_write(&self, fr: &mut Frame<'db>, p: &Path, v: Value, span: Span) -> R<()> {
        let ok = match &mut fr.grads {
            Some(g) => write_in(&mut g[p.root], &p.steps, v),
            None => true,
        };
        if ok {
            Ok(())
        } else {
            Err(fr.domain(
                span,
                "an adjoint written with a value of another shape".into(),
            ))
        }
    }

    // --- expressions --------------------------------------------------

    fn eval(&mut self, fr: &mut Frame<'db>, e: ExprId) -> R<Value> {
        match &fr.body.expr(e).kind {
            // A leaf recurses no further: no stack check.
            Expr::Local(l) if !matches!(fr.locals[*l], Value::Moved) => {
                Ok(fr.locals[*l].read_copy())
            }
            Expr::Int(v) => Ok(int_literal(*v, &fr.body.expr(e).ty)),
            Expr::Float(v) => Ok(float_literal(*v, &fr.body.expr(e).ty)),
            Expr::Bool(b) => Ok(Value::Bool(*b)),
            // Number code computes it (`lowered`).
            _ if let Some(v) = fr.low.value(e, &fr.locals) => Ok(v),
            // Integer arithmetic and an element of a local array by an
            // index `int_fast` computes (its depth bounded): no recursion
            // through `eval`, so no stack check.
            Expr::Binary { .. }
                if matches!(fr.body.expr(e).ty, Ty::Scalar(Scalar::I64))
                    && let Some(k) = int_fast(fr, e) =>
            {
                Ok(Value::int(k))
            }
            // (In range: `eval_inner` reports one out of range.)
            Expr::Index { base, indices }
                if let Some((l, k)) = local_element(fr, *base, indices) =>
            {
                match &fr.locals[l] {
                    Value::Array(items) => Ok(items[k].read_copy()),
                    _ => unreachable!("local_element finds arrays"),
                }
            }
            // Anything else may nest: the stack is checked (a call into
            // `stacker`) every eighth level of nesting only, a few frames
            // being far less than `deep`'s red zone.
            _ => {
                self.nesting += 1;
                let v = if self.nesting.is_multiple_of(8) {
                    nilang_syntax::stack::deep(|| self.eval_nested(fr, e))
                } else {
                    self.eval_nested(fr, e)
                };
                self.nesting -= 1;
                v
            }
        }
    }

    /// [`Interpreter::eval`] of an expression that is not a leaf: the most
    /// frequent forms computed here without the general path's lists and
    /// dispatch, each giving what `eval_inner` gives, and falling back to it.
    fn eval_nested(&mut self, fr: &mut Frame<'db>, e: ExprId) -> R<Value> {
        let data = fr.body.expr(e);
        match &data.kind {
            Expr::Binary { op, lhs, rhs } if !matches!(op, BinaryOp::And | BinaryOp::Or) => {
                self.operator(fr, *op, *lhs, *rhs, data.span)
            }
            // `&&` and `||` read their right side only when needed.
            Expr::Binary { op, lhs, rhs } => {
                let l = self.condition(fr, *lhs)?;
                if (*op == BinaryOp::And) != l {
                    return Ok(Value::Bool(l));
                }
                Ok(Value::Bool(self.condition(fr, *rhs)?))
            }
            // `abs` of an `f64` (`pure::call`'s `real`).
            Expr::Pure {
                func: PureFn::Abs,
                args,
                broadcast: false,
            } if args.len() == 1 => match self.eval(fr, args[0])? {
                Value::F64(x) => Ok(Value::F64(x.abs())),
                v => self.apply_pure(fr, PureFn::Abs, args, &[v], false, data.span),
            },
            // `identity(x)` (and `value`, `unwrap`) is `x`, whatever it
            // is (`pure::call`), without the general call's list of values.
            Expr::Pure {
                func: PureFn::Identity | PureFn::Value | PureFn::Unwrap,
                args,
                broadcast: false,
            } if args.len() == 1 => self.eval(fr, args[0]),
            _ => self.eval_inner(fr, e),
        }
    }

    fn eval_inner(&mut self, fr: &mut Frame<'db>, e: ExprId) -> R<Value> {
        let body = fr.body;
        let data = body.expr(e);
        let span = data.span;
        Ok(match &data.kind {
            Expr::Local(l) => match &fr.locals[*l] {
                Value::Moved => {
                    return Err(fr.domain(
                        span,
                        format!("`{}` read while it has no value", body.local(*l).name),
                    ));
                }
                v => v.clone(),
            },
            Expr::Name(n) => self.name(fr, n, &data.ty, span)?,
            Expr::Function(c) => match c {
                Callable::Function(f) => Value::Function(f.name(self.db).as_str().into()),
                Callable::Derived { .. } => {
                    return Err(fr.unsupported(span, "a derivative passed as a value"));
                }
            },
            Expr::Partial { callee, args } => {
                let Callable::Function(f) = callee else {
                    return Err(fr.unsupported(span, "a partial application of a derivative"));
                };
                let mut captured = Vec::with_capacity(args.len());
                for a in args {
                    captured.push(match a {
                        Some(a) => Some(self.eval(fr, *a)?),
                        None => None,
                    });
                }
                Value::Partial(f.name(self.db).as_str().into(), Rc::new(captured))
            }
            Expr::Int(v) => int_literal(*v, &data.ty),
            Expr::Float(v) => float_literal(*v, &data.ty),
            Expr::Bool(b) => Value::Bool(*b),
            Expr::Str(s) => Value::Str(s.as_str().into()),
            Expr::Pure {
                func: PureFn::GlobalIndex,
                ..
            } => match self.invocation {
                Some(i) => Value::int(i),
                None => {
                    return Err(fr.unsupported(
                        span,
                        "`global_index()` outside a kernel launch (`Interpreter::launch`)",
                    ));
                }
            },
            Expr::Pure {
                func,
                args,
                broadcast,
            } => {
                let mut values: SmallVec<[Value; 3]> = SmallVec::with_capacity(args.len());
                for &a in args {
                    values.push(self.eval(fr, a)?);
                }
                self.apply_pure(fr, *func, args, &values, *broadcast, span)?
            }
            Expr::Construct { name, args } => {
                let mut values = Vec::with_capacity(args.len());
                for &a in args {
                    values.push(self.eval(fr, a)?);
                }
                self.construct(fr, name, values, &data.ty, span)?
            }
            Expr::Index { base, indices } => {
                // An element of a local array, `x[i]`, the most frequent
                // read: taken where the array is, without holding it.
                if let ([Index::At(i)], Expr::Local(l)) =
                    (indices.as_slice(), &body.expr(*base).kind)
                    && matches!(fr.locals[*l], Value::Array(_))
                {
                    let k = self.integer(fr, *i)?;
                    // (Reading the index changes no local: still an array.)
                    if let Value::Array(items) = &fr.locals[*l] {
                        if k < 1 || k as u64 > items.len() as u64 {
                            let (base_span, len) = (body.expr(*base).span, items.len());
                            return Err(index_error(fr, base_span, *i, k, len, "element"));
                        }
                        return Ok(items[k as usize - 1].read_copy());
                    }
                }
                let at = self.eval(fr, *base)?;
                let any_range = indices.iter().any(|i| matches!(i, Index::Range { .. }));
                if any_range {
                    return self.slice(fr, at, indices, span);
                }
                match self.index_step(fr, &at, indices, *base)? {
                    Some(Step::At(k)) => match &at {
                        Value::Array(items) | Value::Stack(items, _) | Value::Tuple(items) => {
                            items[k].clone()
                        }
                        Value::Matrix { data, .. } => data[k].clone(),
                        _ => unreachable!("index_step gives At for sequences"),
                    },
                    Some(Step::Column(c)) => match &at {
                        Value::Matrix { rows, data, .. } => {
                            Value::Array(Rc::new(data[c * rows..(c + 1) * rows].to_vec()))
                        }
                        _ => unreachable!("index_step gives Column for matrices"),
                    },
                    _ => return Err(fr.unsupported(span, "this kind of indexing")),
                }
            }
            Expr::Field { base, field } => {
                let at = self.eval(fr, *base)?;
                match (&at, field.as_str()) {
                    (Value::Struct { fields, .. }, _) => {
                        match fields.iter().find(|(n, _)| n == field) {
                            Some((_, v)) => v.clone(),
                            None => return Err(fr.domain(span, format!("no field `{field}`"))),
                        }
                    }
                    (Value::Complex(re, _), "re") => Value::F64(*re),
                    (Value::Complex(_, im), "im") => Value::F64(*im),
                    (Value::ULog(log), "log") => (**log).clone(),
                    (Value::Tropical(n), "n") => (**n).clone(),
                    _ => {
                        return Err(fr.unsupported(
                            span,
                            &format!("the field `.{field}` of {}", at.kind_name()),
                        ));
                    }
                }
            }
            Expr::Conj(inner) => match self.eval(fr, *inner)? {
                Value::Complex(re, im) => Value::Complex(re, -im),
                v => v,
            },
            Expr::Unary { op, operand } => {
                let v = self.eval(fr, *operand)?;
                ops::unary(*op, &v).map_err(|m| fr.domain(span, m))?
            }
            // (`&&` and `||` are `eval_nested`'s.)
            Expr::Binary { .. } => return self.eval_nested(fr, e),
            Expr::Tuple(items) => {
                let mut values = Vec::with_capacity(items.len());
                for &i in items {
                    values.push(self.eval(fr, i)?);
                }
                Value::Tuple(Rc::new(values))
            }
            Expr::Macro { name, .. } => {
                return Err(fr.unsupported(span, &format!("the macro `@{name}` outside `@safe`")));
            }
            Expr::Missing => return Err(fr.unsupported(span, "an expression the analysis refused")),
        })
    }

    /// `lhs op rhs` of an operator other than `&&` and `||`: two numbers
    /// of one type, or an `i64` with an `f64`, without `binary`'s general
    /// path.
    fn operator(
        &mut self,
        fr: &mut Frame<'db>,
        op: BinaryOp,
        lhs: ExprId,
        rhs: ExprId,
        span: Span,
    ) -> R<Value> {
        let l = self.eval(fr, lhs)?;
        let r = self.eval(fr, rhs)?;
        if let Some(v) = ops::binary_fast(op, &l, &r) {
            return Ok(v);
        }
        if let Some(v) = ops::binary_promoted(op, &l, &r) {
            return Ok(v);
        }
        self.binary(fr, op, l, r, span)
    }

    /// The pure function `func` of the values of its arguments `args`.
    fn apply_pure(
        &mut self,
        fr: &Frame<'db>,
        func: PureFn,
        args: &[ExprId],
        values: &[Value],
        broadcast: bool,
        span: Span,
    ) -> R<Value> {
        if fr.checks
            && !broadcast
            && matches!(values.first(), Some(Value::Fixed(_) | Value::ULog(_)))
            && let Some(v) = fixed_math(fr, func, args, values, span)?
        {
            return Ok(v);
        }
        let out = if broadcast {
            pure::broadcast(func, values).map(Out::Value)
        } else {
            pure::call(func, values)
        };
        match out {
            Ok(Out::Value(v)) => Ok(v),
            Ok(Out::Print(text)) => {
                self.output.push_str(&text);
                Ok(Value::Tuple(Rc::new(Vec::new())))
            }
            Err(f) => Err(fr.error(span, f.check, f.what, f.expected, f.found)),
        }
    }

    fn binary(&self, fr: &Frame<'db>, op: BinaryOp, l: Value, r: Value, span: Span) -> R<Value> {
        let elementwise = op != op.scalar()
            || matches!(
                (&l, &r),
                (Value::Array(_) | Value::Matrix { .. }, _)
                    | (_, Value::Array(_) | Value::Matrix { .. })
            );
        if !elementwise {
            return ops::binary(op, &l, &r).map_err(|m| fr.domain(span, m));
        }
        let op = op.scalar();
        // The elements of an array or matrix operand, and its shape.
        let parts = |v: &Value| match v {
            Value::Array(items) => Some((items.clone(), None)),
            Value::Matrix { rows, cols, data } => Some((data.clone(), Some((*rows, *cols)))),
            _ => None,
        };
        let (lp, rp) = (parts(&l), parts(&r));
        let shape = lp.as_ref().or(rp.as_ref()).map(|(_, s)| *s).unwrap_or(None);
        let len = match (&lp, &rp) {
            (Some((a, sa)), Some((b, sb))) if a.len() != b.len() || sa != sb => {
                return Err(fr.error(
                    span,
                    Check::Shape,
                    "the operands of a broadcast must have one shape".into(),
                    a.len().to_string(),
                    b.len().to_string(),
                ));
            }
            (Some((a, _)), _) | (_, Some((a, _))) => a.len(),
            _ => return ops::binary(op, &l, &r).map_err(|m| fr.domain(span, m)),
        };
        let at = |p: &Parts, v: &Value, k: usize| match p {
            Some((items, _)) => items[k].clone(),
            None => v.clone(),
        };
        let out = (0..len)
            .map(|k| {
                ops::binary(op, &at(&lp, &l, k), &at(&rp, &r, k)).map_err(|m| fr.domain(span, m))
            })
            .collect::<R<Vec<_>>>()?;
        Ok(match shape {
            Some((rows, cols)) => Value::Matrix {
                rows,
                cols,
                data: Rc::new(out),
            },
            None => Value::Array(Rc::new(out)),
        })
    }

    fn slice(&mut self, fr: &mut Frame<'db>, at: Value, indices: &[Index], span: Span) -> R<Value> {
        let (Value::Array(items), [Index::Range { start, step, stop }]) = (&at, indices) else {
            return Err(fr.unsupported(span, "a range index of a matrix"));
        };
        let a = self.integer(fr, *start)?;
        let s = match step {
            Some(s) => self.integer(fr, *s)?,
            None => 1,
        };
        let b = self.integer(fr, *stop)?;
        if s == 0 {
            return Err(fr.domain(span, "a range with step 0".into()));
        }
        let mut out = Vec::new();
        let mut k = a;
        while (s > 0 && k <= b) || (s < 0 && k >= b) {
            if k < 1 || k as usize > items.len() {
                return Err(fr.error(
                    span,
                    Check::Index,
                    format!("`{}` has {} elements", fr.text(span), items.len()),
                    format!("an index in 1:{}", items.len()),
                    k.to_string(),
                ));
            }
            out.push(items[k as usize - 1].clone());
            k += s;
        }
        Ok(Value::Array(Rc::new(out)))
    }

    fn name(&self, fr: &Frame<'db>, n: &str, ty: &Ty, span: Span) -> R<Value> {
        Ok(match n {
            "π" | "pi" => Value::F64(std::f64::consts::PI),
            "Inf" => Value::F64(f64::INFINITY),
            "NaN" => Value::F64(f64::NAN),
            "im" => Value::Complex(0.0, 1.0),
            _ => {
                if let Some(t) = fr.generics.get(n) {
                    return Ok(Value::Type(Rc::new(t.clone())));
                }
                if let Some(s) = Scalar::named(n) {
                    return Ok(Value::Type(Rc::new(Ty::Scalar(s))));
                }
                match ty {
                    Ty::Unknown => return Err(fr.unsupported(span, &format!("the name `{n}`"))),
                    t => Value::Type(Rc::new(resolve_generics(t, &fr.generics))),
                }
            }
        })
    }

    fn construct(
        &self,
        fr: &Frame<'db>,
        name: &str,
        args: Vec<Value>,
        ty: &Ty,
        span: Span,
    ) -> R<Value> {
        if name == "Complex" {
            if args.iter().any(|a| matches!(a, Value::Dual(..))) {
                return Err(
                    fr.unsupported(span, "a complex number of dual numbers (in a tangent call)")
                );
            }
            let re = args.first().and_then(Value::as_f64);
            let im = args.get(1).map_or(Some(0.0), Value::as_f64);
            return match (re, im) {
                (Some(re), Some(im)) => Ok(Value::Complex(re, im)),
                _ => Err(fr.domain(span, "`Complex` of non-real values".into())),
            };
        }
        let structs = db::struct_table(self.db, self.project);
        let Some(def) = structs.get(name) else {
            return Err(fr.unsupported(span, &format!("the constructor `{name}`")));
        };
        if def.fields.len() != args.len() {
            return Err(fr.domain(
                span,
                format!(
                    "`{name}` has {} fields, {} given",
                    def.fields.len(),
                    args.len()
                ),
            ));
        }
        // Each field takes the type the inference gave it.
        let field_types: Vec<Ty> = match ty {
            Ty::Struct { fields, .. } => fields
                .iter()
                .map(|(_, t)| resolve_generics(t, &fr.generics))
                .collect(),
            _ => Vec::new(),
        };
        let fields = def
            .fields
            .iter()
            .zip(args)
            .enumerate()
            .map(|(k, (f, v))| {
                let v = match field_types.get(k).and_then(zero_of) {
                    Some(like) if like.is_number() => convert(v.clone(), &like).unwrap_or(v),
                    _ => v,
                };
                (f.name.name.clone(), v)
            })
            .collect();
        Ok(Value::Struct {
            name: name.into(),
            fields: Rc::new(fields),
        })
    }
}

/// The elements of an array or matrix operand of a broadcast, and a
/// matrix's shape.
type Parts = Option<(Rc<Vec<Value>>, Option<(usize, usize)>)>;

/// An integer literal as its inferred type reads it.
#[inline]
fn int_literal(v: i64, ty: &Ty) -> Value {
    match ty {
        Ty::Scalar(Scalar::F64) => Value::F64(v as f64),
        Ty::Scalar(Scalar::F32) => Value::F32(v as f32),
        Ty::Scalar(Scalar::Bool) | Ty::Scalar(Scalar::I64) => Value::int(v),
        Ty::Scalar(s) => Value::Int(crate::value::wrap(v, *s), *s),
        _ => Value::int(v),
    }
}

/// A value passed to a read-only parameter of a float type, in that type,
/// as the generated code converts an argument (`(1.5_f64 as f32)` for a
/// literal given to an `f32` parameter; an integer or the other float
/// converted with `as`). Anything else as it is.
fn argument_as(v: Value, ty: &Ty) -> Value {
    match (ty, &v) {
        (Ty::Scalar(Scalar::F32), Value::F64(x)) => Value::F32(*x as f32),
        (Ty::Scalar(Scalar::F32), Value::Int(k, _)) => Value::F32(*k as f32),
        (Ty::Scalar(Scalar::F64), Value::F32(x)) => Value::F64(f64::from(*x)),
        (Ty::Scalar(Scalar::F64), Value::Int(k, _)) => Value::F64(*k as f64),
        _ => v,
    }
}

/// A float literal as its inferred type reads it.
#[inline]
fn float_literal(v: f64, ty: &Ty) -> Value {
    match ty {
        Ty::Scalar(Scalar::F32) => Value::F32(v as f32),
        _ => Value::F64(v),
    }
}

/// An integer expression of `i64` locals and literals under `+`, `-`,
/// `*`, `÷` and `%` (the index arithmetic of array programs), computed
/// without making a [`Value`] of each step: what [`Interpreter::eval`] and
/// `ops::binary` give for it. `None` for anything else, and for a step
/// they refuse (a division by zero), which the caller then evaluates as
/// any expression: this only reads, so falling back costs time, not
/// meaning.
fn int_fast(fr: &Frame<'_>, e: ExprId) -> Option<i64> {
    int_nested(fr, e, 0)
}

/// How deeply [`int_fast`] follows operators: a deeper expression is left
/// to the general path, whose recursion checks the stack.
const INT_FAST_DEPTH: u32 = 64;

fn int_nested(fr: &Frame<'_>, e: ExprId, depth: u32) -> Option<i64> {
    match &fr.body.expr(e).kind {
        Expr::Binary { op, lhs, rhs } if depth < INT_FAST_DEPTH => {
            let p = int_operand(fr, *lhs, depth)?;
            let q = int_operand(fr, *rhs, depth)?;
            match op {
                BinaryOp::Add => Some(p.wrapping_add(q)),
                BinaryOp::Sub => Some(p.wrapping_sub(q)),
                BinaryOp::Mul => Some(p.wrapping_mul(q)),
                BinaryOp::IntDiv => p.checked_div(q),
                BinaryOp::Rem => p.checked_rem(q),
                _ => None,
            }
        }
        Expr::Binary { .. } => None,
        _ => int_operand(fr, e, depth),
    }
}

/// [`int_fast`] of an operand: a local or a literal read here (inlined
/// into the operator, without a call and a dispatch of its own), an
/// operator by `int_fast`.
#[inline(always)]
fn int_operand(fr: &Frame<'_>, e: ExprId, depth: u32) -> Option<i64> {
    let data = fr.body.expr(e);
    match &data.kind {
        Expr::Local(l) => match fr.locals[*l] {
            Value::Int(x, Scalar::I64) => Some(x),
            _ => None,
        },
        Expr::Int(v) => match int_literal(*v, &data.ty) {
            Value::Int(x, Scalar::I64) => Some(x),
            _ => None,
        },
        Expr::Binary { .. } => int_nested(fr, e, depth + 1),
        _ => None,
    }
}

/// `x op= v` of a number local `x`, or of an element `x[i]` of a local
/// array ([`local_element`]), when the place and `v` are both `f64` or both
/// `i64` (`ops::binary_fast`), or an `f64` place takes an `i64` (computed
/// in `f64`, as `updated` promotes it: `anc += identity(k)`): done where
/// the number is, as the general path (a path, a read, `updated`, a write)
/// would leave it. `false` when it does not apply, and then nothing
/// changed (a shared array is not copied).
fn update_in_place(fr: &mut Frame<'_>, target: ExprId, op: BinaryOp, v: &Value) -> bool {
    let (local, element) = match &fr.body.expr(target).kind {
        Expr::Local(l) => (*l, None),
        Expr::Index { base, indices } => match local_element(fr, *base, indices) {
            Some((l, k)) => (l, Some(k)),
            None => return false,
        },
        _ => return false,
    };
    let cur = match (&fr.locals[local], element) {
        (Value::Array(items), Some(k)) => &items[k],
        (_, Some(_)) => return false,
        (cur, None) => cur,
    };
    let new = match (cur, v) {
        (Value::F64(_), Value::Int(_, Scalar::I64)) => ops::binary_promoted(op, cur, v),
        _ => ops::binary_fast(op, cur, v),
    };
    let Some(new) = new else {
        return false;
    };
    match (&mut fr.locals[local], element) {
        (Value::Array(items), Some(k)) => Rc::make_mut(items)[k] = new,
        (slot, None) => *slot = new,
        (_, Some(_)) => return false,
    }
    true
}

/// `x[i]` of a local array `x` whose index [`int_fast`] computes and is in
/// range: the local and the 0-based index. `None` for anything else (an
/// index out of range included), which the general path then reads and
/// reports.
fn local_element(fr: &Frame<'_>, base: ExprId, indices: &[Index]) -> Option<(LocalId, usize)> {
    let (Expr::Local(l), [Index::At(i)]) = (&fr.body.expr(base).kind, indices) else {
        return None;
    };
    let Value::Array(items) = &fr.locals[*l] else {
        return None;
    };
    let k = int_fast(fr, *i)?;
    (k >= 1 && k as u64 <= items.len() as u64).then(|| (*l, k as usize - 1))
}

/// The shape of an array (`4`) or a matrix (`(3, 3)`) as the generated
/// code prints it, and whether it has two dimensions.
fn shape(v: &Value) -> Option<(String, bool)> {
    match v {
        Value::Array(items) => Some((items.len().to_string(), false)),
        Value::Matrix { rows, cols, .. } => Some((format!("({rows}, {cols})"), true)),
        _ => None,
    }
}

/// `v` as a number of type `to`, if `to` holds it exactly.
fn cast_exact(v: &Value, to: &Ty) -> Option<Value> {
    let like = zero_of(to)?;
    let (re, im) = match v {
        Value::Complex(re, im) => (*re, *im),
        v => (v.as_f64()?, 0.0),
    };
    let exact_int = |s: Scalar| -> Option<Value> {
        match v {
            Value::Int(i, _) => (crate::value::wrap(*i, s) == *i).then_some(Value::Int(*i, s)),
            Value::Bool(b) => Some(Value::Int(*b as i64, s)),
            _ => {
                let i = re as i64;
                (im == 0.0 && re.fract() == 0.0 && i as f64 == re && crate::value::wrap(i, s) == i)
                    .then_some(Value::Int(i, s))
            }
        }
    };
    match like {
        Value::F64(_) => {
            let ok = match v {
                Value::Int(i, _) => (*i as f64) as i64 == *i,
                _ => im == 0.0,
            };
            ok.then_some(Value::F64(re))
        }
        Value::F32(_) => {
            let x = re as f32;
            let ok = im == 0.0
                && match v {
                    Value::Int(i, _) => (x as i64) == *i,
                    _ => (x as f64) == re || re.is_nan(),
                };
            ok.then_some(Value::F32(x))
        }
        Value::Int(_, s) => exact_int(s),
        Value::Bool(_) => match v {
            Value::Bool(b) => Some(Value::Bool(*b)),
            _ => (im == 0.0 && (re == 0.0 || re == 1.0)).then_some(Value::Bool(re == 1.0)),
        },
        Value::Complex(..) => Some(Value::Complex(re, im)),
        _ => None,
    }
}

/// Whether two places overlap (one is inside the other).
fn overlaps(a: &Path, b: &Path) -> bool {
    a.root == b.root
        && a.steps.iter().zip(&b.steps).all(|(x, y)| match (x, y) {
            (Step::At(i), Step::At(j))
            | (Step::Field(i), Step::Field(j))
            | (Step::Column(i), Step::Column(j)) => i == j,
            (Step::Part(i), Step::Part(j)) => i == j,
            _ => true,
        })
}

/// `a + b` for adjoints of one shape (numbers added, arrays and matrices
/// element by element); where the shapes disagree, `a`.
fn accumulate(a: &Value, b: &Value) -> Value {
    match (a, b) {
        (Value::Array(x), Value::Array(y)) if x.len() == y.len() => Value::Array(Rc::new(
            x.iter()
                .zip(y.iter())
                .map(|(p, q)| accumulate(p, q))
                .collect(),
        )),
        (
            Value::Matrix {
                rows,
                cols,
                data: x,
            },
            Value::Matrix { data: y, .. },
        ) if x.len() == y.len() => Value::Matrix {
            rows: *rows,
            cols: *cols,
            data: Rc::new(
                x.iter()
                    .zip(y.iter())
                    .map(|(p, q)| accumulate(p, q))
                    .collect(),
            ),
        },
        (Value::Struct { name, fields: x }, Value::Struct { fields: y, .. })
            if x.len() == y.len() =>
        {
            Value::Struct {
                name: name.clone(),
                fields: Rc::new(
                    x.iter()
                        .zip(y.iter())
                        .map(|((n, p), (_, q))| (n.clone(), accumulate(p, q)))
                        .collect(),
                ),
            }
        }
        (Value::Partial(name, x), Value::Partial(_, y)) if x.len() == y.len() => Value::Partial(
            name.clone(),
            Rc::new(
                x.iter()
                    .zip(y.iter())
                    .map(|(p, q)| match (p, q) {
                        (Some(p), Some(q)) => Some(accumulate(p, q)),
                        (p, _) => p.clone(),
                    })
                    .collect(),
            ),
        ),
        (Value::F64(_) | Value::F32(_) | Value::Dual(..), Value::Dual(..))
        | (Value::Dual(..), Value::F64(_) | Value::F32(_))
        | (Value::F64(_) | Value::F32(_), Value::F64(_) | Value::F32(_)) => {
            ops::binary(BinaryOp::Add, a, b)
                .and_then(|s| convert(s, a))
                .unwrap_or_else(|_| a.clone())
        }
        (Value::Complex(re, im), Value::Complex(x, y)) => Value::Complex(re + x, im + y),
        // A complex adjoint reaching a real value (`z += x * 3`, x real):
        // its real part, as the backends' rules give it.
        (Value::F64(_) | Value::F32(_), Value::Complex(x, _)) => accumulate(a, &Value::F64(*x)),
        (Value::Complex(re, im), Value::F64(x)) => Value::Complex(re + x, *im),
        _ => a.clone(),
    }
}

/// The value at `steps` inside `root` (a column of a matrix as an array,
/// a part of a complex number as a float).
fn read_in(root: &Value, steps: &[Step]) -> Option<Value> {
    let mut v = root;
    for (k, step) in steps.iter().enumerate() {
        v = match (v, step) {
            (Value::Array(items) | Value::Stack(items, _) | Value::Tuple(items), Step::At(i)) => {
                items.get(*i)?
            }
            (Value::Matrix { data, .. }, Step::At(i)) => data.get(*i)?,
            (Value::Struct { fields, .. }, Step::Field(i)) => &fields.get(*i)?.1,
            (Value::ULog(inner) | Value::Tropical(inner), Step::Inner) => inner,
            (v, Step::Inner) => v,
            (Value::Matrix { rows, data, .. }, Step::Column(c)) if k + 1 == steps.len() => {
                return Some(Value::Array(Rc::new(
                    data.get(c * rows..(c + 1) * rows)?.to_vec(),
                )));
            }
            (Value::Complex(re, im), Step::Part(imag)) if k + 1 == steps.len() => {
                return Some(Value::F64(if *imag { *im } else { *re }));
            }
            _ => return None,
        };
    }
    Some(v.read_copy())
}

/// The value at `steps` moved out of `root` (copied for a column or a
/// part, which are not slots of their own).
fn take_in(root: &mut Value, steps: &[Step]) -> Option<Value> {
    if steps
        .iter()
        .any(|s| matches!(s, Step::Column(_) | Step::Part(_)))
    {
        return read_in(root, steps);
    }
    slot(root, steps).map(std::mem::take)
}

/// Writes `v` at `steps` inside `root`; false if the shapes disagree.
fn write_in(root: &mut Value, steps: &[Step], v: Value) -> bool {
    match steps.split_last() {
        Some((Step::Part(imag), init)) => match (slot(root, init), v.as_f64()) {
            (Some(Value::Complex(re, im)), Some(x)) => {
                *(if *imag { im } else { re }) = x;
                true
            }
            _ => false,
        },
        Some((Step::Column(c), init)) => match (slot(root, init), v) {
            (Some(Value::Matrix { rows, data, .. }), Value::Array(col)) if col.len() == *rows => {
                let rows = *rows;
                let data = Rc::make_mut(data);
                for (r, x) in col.iter().enumerate() {
                    data[c * rows + r] = x.clone();
                }
                true
            }
            _ => false,
        },
        _ => match slot(root, steps) {
            Some(s) => {
                *s = v;
                true
            }
            None => false,
        },
    }
}

/// The slot a path names, written through (copying shared arrays).
fn slot<'v>(v: &'v mut Value, steps: &[Step]) -> Option<&'v mut Value> {
    let Some((first, rest)) = steps.split_first() else {
        return Some(v);
    };
    let next = match (v, first) {
        (Value::Array(items) | Value::Stack(items, _) | Value::Tuple(items), Step::At(i)) => {
            Rc::make_mut(items).get_mut(*i)?
        }
        (Value::Matrix { data, .. }, Step::At(i)) => Rc::make_mut(data).get_mut(*i)?,
        (Value::Struct { fields, .. }, Step::Field(i)) => &mut Rc::make_mut(fields).get_mut(*i)?.1,
        (Value::ULog(inner) | Value::Tropical(inner), Step::Inner) => inner,
        (v, Step::Inner) => v,
        _ => return None,
    };
    slot(next, rest)
}

/// An index `k` (the expression `index`) outside `1:len` of what is at
/// `base`, reported at the index, as the generated code reports it.
fn index_error(
    fr: &Frame<'_>,
    base: Span,
    index: ExprId,
    k: i64,
    len: usize,
    unit: &str,
) -> Box<RunError> {
    let what = fr.text(base);
    fr.error(
        fr.body.expr(index).span,
        Check::Index,
        format!(
            "`{what}` has {len} {unit}{}",
            if len == 1 { "" } else { "s" }
        ),
        if len == 0 {
            "no index (it is empty)".into()
        } else {
            format!("an index in 1:{len}")
        },
        k.to_string(),
    )
}

/// The value of a place `cur` after an instruction `op` with `v`,
/// converted to the place's type.
fn updated(fr: &Frame<'_>, op: BinaryOp, cur: &Value, v: Value, span: Span) -> R<Value> {
    // Of the place's own type already: nothing to convert.
    if let Some(n) = ops::binary_fast(op, cur, &v) {
        return Ok(n);
    }
    // An `f64` value into an `f32` place is rounded to `f32` first, and
    // the update computed in `f32`, as the generated Rust converts the
    // value to the place's type (`y += x * 2.7` of `f32`s rounds once).
    let v = match (cur, v) {
        (Value::F32(_), Value::F64(x)) => Value::F32(x as f32),
        // A float into an integer place (`round`, `floor` and `ceil` give
        // the only ones the analysis lets in) is converted first, as the
        // generated code converts it (`as i64`), and the update computed in
        // integers: `n ⊻= round(x)` too.
        (Value::Int(..), v @ (Value::F64(_) | Value::F32(_))) => {
            convert(v, cur).map_err(|m| fr.domain(span, m))?
        }
        // A fixed-point, log or tropical number into a complex place: the
        // real it stands for (`z += q` adds `to_f64(q)`).
        (Value::Complex(..), v) if numbers::is_number_system(&v) => numbers::plain(&v).unwrap_or(v),
        (_, v) => v,
    };
    ops::binary(op, cur, &v)
        .and_then(|n| convert(n, cur))
        .map_err(|m| fr.domain(span, m))
}

/// In a checked build (the caller asks only there), `x += e` (or `-=`) on
/// a `Fixed43` place and `x *= e` (or `/=`) on a log number with a
/// `Fixed43` logarithm: the new value, or an overflow error as
/// `nilang::fixed::add` gives it (the generated code's `x.log += L(e)`).
/// `None` for any other instruction.
#[cold]
fn fixed_checked(
    fr: &Frame<'_>,
    target: ExprId,
    op: BinaryOp,
    cur: &Value,
    v: &Value,
    span: Span,
) -> R<Option<Value>> {
    // The place's text only for the message of an overflow.
    let place = || fr.text(fr.body.expr(target).span).trim().to_string();
    let (a, b, subtract, what) = match (cur, op) {
        (Value::Fixed(a), BinaryOp::Add | BinaryOp::Sub) => {
            let Some(b) = numbers::to_fixed(v) else {
                return Ok(None);
            };
            (*a, b, op == BinaryOp::Sub, None)
        }
        (Value::ULog(log), BinaryOp::Mul | BinaryOp::Div) if matches!(**log, Value::Fixed(_)) => {
            let (Value::Fixed(a), Ok(Value::Fixed(b))) = (&**log, numbers::log_of(v, log)) else {
                return Ok(None);
            };
            (*a, b, op == BinaryOp::Div, Some(".log"))
        }
        _ => return Ok(None),
    };
    let sign = if subtract { '-' } else { '+' };
    match numbers::fixed_update_checked(a, b, subtract) {
        Ok(n) => Ok(Some(match cur {
            Value::ULog(_) => Value::ULog(Box::new(Value::Fixed(n))),
            _ => Value::Fixed(n),
        })),
        Err((expected, found)) => Err(fr.error(
            span,
            Check::Overflow,
            format!(
                "`{}{} {sign}= ...` must stay within the range of Fixed43",
                place(),
                what.unwrap_or_default()
            ),
            expected,
            found,
        )),
    }
}

/// In a checked build (the caller asks only there), `exp` and `log` of a
/// `Fixed43`, and the value `float(u)` of a log number with a `Fixed43`
/// logarithm (`exp(u.log)`, as an `f64`): the result, or an overflow error where no
/// `Fixed43` holds it (`nilang::fixed::exp_at`, `ln_at`). `None` for any
/// other call.
#[cold]
fn fixed_math(
    fr: &Frame<'_>,
    func: PureFn,
    args: &[ExprId],
    values: &[Value],
    span: Span,
) -> R<Option<Value>> {
    let (x, ln, what) = match (func, values) {
        (PureFn::Exp | PureFn::Log, [Value::Fixed(x)]) => {
            (*x, func == PureFn::Log, fr.text(span).trim().to_string())
        }
        (PureFn::Float, [Value::ULog(log)]) => match (&**log, args) {
            (Value::Fixed(x), [a]) => {
                let arg = fr.text(fr.body.expr(*a).span);
                (*x, false, format!("exp({}.log)", arg.trim()))
            }
            _ => return Ok(None),
        },
        _ => return Ok(None),
    };
    match numbers::fixed_math_checked(x, ln) {
        // `float(u)` is a float: the `Fixed43` exponential as an `f64`
        // (the generated `to_f64(exp_at(…))`).
        Ok(v) if func == PureFn::Float => Ok(Some(Value::F64(numbers::fixed_to_f64(v)))),
        Ok(v) => Ok(Some(Value::Fixed(v))),
        Err((expected, found)) => Err(fr.error(
            span,
            Check::Overflow,
            format!("`{what}` must be within the range of Fixed43"),
            expected,
            found,
        )),
    }
}

/// Binds the type parameters `ty` mentions to the types of `v`.
fn bind_generics<'t>(ty: &'t Ty, v: &Value, out: &mut Generics<'t>) {
    match (ty, v) {
        // The first binding stands.
        (Ty::Generic(n), v) if out.get(n).is_none() => {
            out.0.push((n, v.ty()));
        }
        (Ty::Generic(_), _) => {}
        (Ty::Slice(_) | Ty::Constructed(Ctor::Vec, _), Value::Array(items)) => {
            if let (Some(t), Some(first)) = (element_type(ty), items.first()) {
                bind_generics(t, first, out);
            }
        }
        (Ty::Constructed(Ctor::Matrix, args), Value::Matrix { data, .. }) => {
            if let (Some(t), Some(first)) = (args.first(), data.first()) {
                bind_generics(t, first, out);
            }
        }
        (Ty::Constructed(Ctor::Complex, args), Value::Complex(..)) => {
            if let Some(t) = args.first() {
                bind_generics(t, &Value::F64(0.0), out);
            }
        }
        (Ty::Constructed(Ctor::Stack, args), Value::Stack(_, elem)) => {
            if let Some(Ty::Generic(n)) = args.first()
                && out.get(n).is_none()
            {
                out.0.push((n, (**elem).clone()));
            }
        }
        (Ty::Struct { fields, .. }, Value::Struct { fields: values, .. }) => {
            for ((_, t), (_, v)) in fields.iter().zip(values.iter()) {
                bind_generics(t, v, out);
            }
        }
        _ => {}
    }
}

/// The element type of an array type.
fn element_type(ty: &Ty) -> Option<&Ty> {
    match ty {
        Ty::Slice(t) => Some(t),
        Ty::Constructed(Ctor::Vec, args) => args.first(),
        _ => None,
    }
}

/// The types a call binds its type parameters to, by name: a function
/// has few (most one), so a short list kept inline, with no allocation
/// for a call, where a hash map allocated a table and a key for each.
#[derive(Default)]
struct Generics<'t>(SmallVec<[(&'t str, Ty); 2]>);

impl Generics<'_> {
    fn get(&self, name: &str) -> Option<&Ty> {
        self.0.iter().find(|(n, _)| *n == name).map(|(_, t)| t)
    }
}

/// `ty` with the bound type parameters put in.
fn resolve_generics(ty: &Ty, generics: &Generics<'_>) -> Ty {
    match ty {
        Ty::Generic(n) => generics.get(n).cloned().unwrap_or_else(|| ty.clone()),
        Ty::Slice(t) => Ty::Slice(Box::new(resolve_generics(t, generics))),
        Ty::Constructed(c, args) => Ty::Constructed(
            *c,
            args.iter().map(|a| resolve_generics(a, generics)).collect(),
        ),
        Ty::Tuple(items) => Ty::Tuple(
            items
                .iter()
                .map(|a| resolve_generics(a, generics))
                .collect(),
        ),
        Ty::Struct {
            name,
            args,
            fields,
            generic,
        } => Ty::Struct {
            name: name.clone(),
            args: args.iter().map(|a| resolve_generics(a, generics)).collect(),
            fields: fields
                .iter()
                .map(|(n, t)| (n.clone(), resolve_generics(t, generics)))
                .collect(),
            generic: generic.clone(),
        },
        t => t.clone(),
    }
}

/// The float a reverse pass of `body` takes its adjoints in, as
/// `types::adjoint_scalar` decides it, for a function without type
/// parameters: `f32` when every float of its parameters is `f32`, else
/// `f64`. (With one, it is the first type parameter's binding, known at
/// the call: `invoke_as`.)
fn concrete_adjoint(body: &Body<'_>) -> Option<Scalar> {
    if !body.generics.is_empty() {
        return None;
    }
    let params: Vec<Ty> = body
        .params
        .iter()
        .map(|&l| body.local(l).ty.clone())
        .collect();
    float_scalar(&nilang_analysis::types::concrete_adjoint_scalar(&params))
}

/// `f64` or `f32`, where `ty` is one (a type parameter bound to a dual
/// number is not).
fn float_scalar(ty: &Ty) -> Option<Scalar> {
    match ty {
        Ty::Scalar(s @ (Scalar::F64 | Scalar::F32)) => Some(*s),
        _ => None,
    }
}

/// `v` with its floats (an array's elements too) in the float `s`: an
/// adjoint, or a value a local derivative reads, in a reverse pass whose
/// adjoints are `s` (see `Frame::scalar`).
pub(super) fn in_scalar(v: Value, s: Option<Scalar>) -> Value {
    match (s, v) {
        (Some(Scalar::F64), Value::F32(x)) => Value::F64(x as f64),
        (Some(Scalar::F32), Value::F64(x)) => Value::F32(x as f32),
        (Some(_), Value::Array(items)) if items.iter().any(|x| other_float(x, s)) => Value::Array(
            Rc::new(items.iter().map(|x| in_scalar(x.clone(), s)).collect()),
        ),
        (_, v) => v,
    }
}

/// Whether `v` holds a float that is not `s`.
fn other_float(v: &Value, s: Option<Scalar>) -> bool {
    match (s, v) {
        (Some(Scalar::F64), Value::F32(_)) | (Some(Scalar::F32), Value::F64(_)) => true,
        (_, Value::Array(items)) => items.iter().any(|x| other_float(x, s)),
        _ => false,
    }
}

/// Whether [`coerce`] would give `v` back unchanged: a number of the
/// scalar type itself, or an array of them (no copy of a shared array).
fn is_already(v: &Value, ty: &Ty) -> bool {
    match (ty, v) {
        (Ty::Scalar(Scalar::F64), Value::F64(_))
        | (Ty::Scalar(Scalar::F32), Value::F32(_))
        | (Ty::Scalar(Scalar::Bool), Value::Bool(_)) => true,
        (Ty::Scalar(s), Value::Int(_, t)) => s == t,
        (Ty::Slice(_) | Ty::Constructed(Ctor::Vec, _), Value::Array(items)) => {
            match element_type(ty) {
                Some(t @ Ty::Scalar(_)) => items.iter().all(|x| is_already(x, t)),
                _ => false,
            }
        }
        _ => false,
    }
}

/// A value given for a parameter of type `ty`, converted as a call from
/// Rust would have to write it: integers given for floats become floats,
/// reals given for complex numbers complex, element by element.
pub fn coerce(v: Value, ty: &Ty) -> Result<Value, String> {
    if is_already(&v, ty) {
        return Ok(v);
    }
    match (ty, v) {
        (Ty::Generic(_), v) => Ok(v),
        (Ty::Slice(_) | Ty::Constructed(Ctor::Vec, _), Value::Array(items)) => {
            let t = element_type(ty).cloned().unwrap_or(Ty::Unknown);
            let items = Rc::try_unwrap(items).unwrap_or_else(|rc| (*rc).clone());
            Ok(Value::Array(Rc::new(
                items
                    .into_iter()
                    .map(|v| coerce(v, &t))
                    .collect::<Result<_, _>>()?,
            )))
        }
        (
            Ty::Struct { name, fields, .. },
            Value::Struct {
                name: given,
                fields: values,
            },
        ) if fields.len() == values.len() && **name == *given => {
            let values = Rc::try_unwrap(values).unwrap_or_else(|rc| (*rc).clone());
            let fields = fields
                .iter()
                .zip(values)
                .map(|((n, t), (_, v))| Ok((n.clone(), coerce(v, t)?)))
                .collect::<Result<Vec<_>, String>>()?;
            Ok(Value::Struct {
                name: given,
                fields: Rc::new(fields),
            })
        }
        (Ty::Constructed(Ctor::Matrix, args), Value::Matrix { rows, cols, data }) => {
            let t = args.first().cloned().unwrap_or(Ty::Unknown);
            let data = Rc::try_unwrap(data).unwrap_or_else(|rc| (*rc).clone());
            Ok(Value::Matrix {
                rows,
                cols,
                data: Rc::new(
                    data.into_iter()
                        .map(|v| coerce(v, &t))
                        .collect::<Result<_, _>>()?,
                ),
            })
        }
        (Ty::Constructed(Ctor::Stack, args), Value::Array(items)) => Ok(Value::Stack(
            items,
            Rc::new(args.first().cloned().unwrap_or(Ty::Unknown)),
        )),
        (Ty::Unknown, v) => Ok(v),
        (ty, v) => match zero_of(ty) {
            // A fixed-point, log or tropical number is given for its own
            // type only (a real may be given for one: it is converted).
            Some(like)
                if numbers::is_number_system(&v)
                    && std::mem::discriminant(&like) != std::mem::discriminant(&v) =>
            {
                Err(format!(
                    "expected `{}`, found {}",
                    ty.display(),
                    v.kind_name()
                ))
            }
            Some(like) if like.is_number() && v.is_number() => {
                if matches!(
                    (&like, &v),
                    (
                        Value::Int(..),
                        Value::F64(_) | Value::F32(_) | Value::Complex(..)
                    )
                ) || matches!(
                    (&like, &v),
                    (Value::F64(_) | Value::F32(_), Value::Complex(..))
                ) || matches!((&like, &v), (Value::Bool(_), v) if !matches!(v, Value::Bool(_)))
                    || matches!((&like, &v), (l, Value::Bool(_)) if !matches!(l, Value::Bool(_)))
                {
                    return Err(format!(
                        "expected `{}`, found {}",
                        ty.display(),
                        v.kind_name()
                    ));
                }
                convert(v, &like)
            }
            Some(Value::Struct { .. }) | Some(Value::Tuple(_)) | Some(Value::Stack(..)) => Ok(v),
            _ if v.ty() == *ty => Ok(v),
            _ => Err(format!(
                "expected `{}`, found {}",
                ty.display(),
                v.kind_name()
            )),
        },
    }
}

impl FileInfo {
    /// The file, line and column of byte `at` of the file.
    fn location(&self, at: u32) -> Location {
        let (line, column) =
            nilang_syntax::render::line_col_indexed(&self.text, &self.line_starts, at);
        Location {
            file: self.shown.clone(),
            line: line as u32,
            column: column as u32,
        }
    }
}

impl<'db> Frame<'db> {
    /// Runs the statement `s` (`backward`: its inverse) by its number code
    /// where this run has some for it: `Lowered::run` without adjoints;
    /// `Lowered::run_adjoint` in a gradient run whose adjoints of floats
    /// are `f64`s and whose partials read `f64`s as they are
    /// (`in_scalar`). `false`, with nothing changed, where the general
    /// path must run it.
    fn number_code(&mut self, s: StmtId, backward: bool, atol: f64) -> bool {
        match &mut self.grads {
            None => self
                .low
                .run(s, &mut self.locals, backward, self.checks, atol),
            Some(grads) => {
                matches!(self.scalar, Some(Scalar::F64) | None)
                    && self.low.run_adjoint(s, &mut self.locals, grads, backward)
            }
        }
    }

    fn location(&self, span: Span) -> Location {
        self.file.location(self.offset + span.start)
    }

    fn site(&self, span: Span) -> Site {
        Site {
            file: self.file.clone(),
            at: self.offset + span.start,
        }
    }

    /// The source text at `span`.
    fn text(&self, span: Span) -> String {
        let (a, b) = (
            (self.offset + span.start) as usize,
            (self.offset + span.end) as usize,
        );
        self.file.text.get(a..b).unwrap_or("").to_string()
    }

    fn error(
        &self,
        span: Span,
        check: Check,
        what: String,
        expected: String,
        found: String,
    ) -> Box<RunError> {
        Box::new(RunError {
            location: self.location(span),
            check,
            what,
            expected,
            found,
        })
    }

    fn domain(&self, span: Span, what: String) -> Box<RunError> {
        self.error(
            span,
            Check::Domain,
            what,
            "values it is defined for".into(),
            "others".into(),
        )
    }

    fn not_differentiable(&self, span: Span, what: &str) -> Box<RunError> {
        self.error(
            span,
            Check::NotDifferentiable,
            format!("the interpreter has no adjoint rule for {what}"),
            "an adjoint rule".into(),
            "none".into(),
        )
    }

    fn unsupported(&self, span: Span, what: &str) -> Box<RunError> {
        self.error(
            span,
            Check::Unsupported,
            what.to_string(),
            "a construct the interpreter runs".into(),
            what.to_string(),
        )
    }

    /// A condition's value with the values of the locals it reads:
    /// `false, where x = 3.0, n = 2`.
    fn with_values(&self, e: ExprId, value: bool) -> String {
        let mut seen = Vec::new();
        self.locals_read(e, &mut seen);
        let mut out = value.to_string();
        for (k, l) in seen.iter().enumerate() {
            out.push_str(if k == 0 { ", where " } else { ", " });
            out.push_str(&format!(
                "{} = {}",
                self.body.local(*l).name,
                self.locals[*l].debug()
            ));
        }
        out
    }

    fn locals_read(&self, e: ExprId, out: &mut Vec<LocalId>) {
        if let Expr::Local(l) = &self.body.expr(e).kind {
            if !out.contains(l) {
                out.push(*l);
            }
            return;
        }
        let mut each = |id: ExprId| self.locals_read(id, out);
        match &self.body.expr(e).kind {
            Expr::Pure { args, .. } | Expr::Construct { args, .. } | Expr::Tuple(args) => {
                args.iter().for_each(|&a| each(a))
            }
            Expr::Index { base, indices } => {
                each(*base);
                for i in indices {
                    match i {
                        Index::At(e) => each(*e),
                        Index::Range { start, step, stop } => {
                            each(*start);
                            if let Some(s) = step {
                                each(*s);
                            }
                            each(*stop);
                        }
                        Index::All => {}
                    }
                }
            }
            Expr::Field { base, .. } | Expr::Conj(base) | Expr::Unary { operand: base, .. } => {
                each(*base)
            }
            Expr::Binary { lhs, rhs, .. } => {
                each(*lhs);
                each(*rhs);
            }
            _ => {}
        }
    }
}

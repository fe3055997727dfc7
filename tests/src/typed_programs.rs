//! A seeded generator of small typed `.nil` projects, for the property
//! "accepted by `nilc check` implies compiled by rustc, and `f` then `~f`
//! restores the inputs" (`tests/typed_random.rs`).
//!
//! Each program is one file: the struct `Pt{T}`, a few helper functions
//! `h0`, `h1`, ... (one of them sometimes generic over `T: Real`) and the
//! entry function `f`, which may call (and uncall) the helpers, as the
//! helpers may call the earlier ones. Parameters and ancillas are drawn
//! from `f64`, `f32`, `i64`, `i32`, `bool` (conditions), `Complex{f64}`,
//! `Fixed43`, `ULogarithmic{f64}`, `Tropical{f64}`, `[f64]`, `Pt{f64}` and
//! `Stack{f64}`. Statements: `+=`, `-=`, `*=`/`/=` on log and tropical
//! numbers, `⊻=` on integers and booleans, `SWAP`, `NEG`, `CONJ`, `ROT`,
//! `IROT`, `HADAMARD`, `MULINT`, `DIVINT`, `INC`, `DEC`, `PUSH!`/`POP!` and
//! `COPYPUSH!`/`COPYPOP!` pairs on parameter and ancilla stacks (of floats,
//! integers and complex numbers), typecasts `(T1 => T2)(x)` of ancillas and
//! back, struct constructions, field and element updates, broadcasts,
//! calls and uncalls, `if (cond, ~)`, `for`, counted `while` and
//! `@routine ... ~@routine`.
//!
//! The programs are written to be reversible: no `=`, no place read by its
//! own update, every ancilla freed with its allocation value, whatever a
//! pattern reads left alone until the pattern is undone, increments
//! bounded (through `sin`, `tanh`, `%`, ...) so that values stay finite.
//! A fraction of the statements mixes types on purpose instead (a float
//! into an integer place, an array into a scalar, a fixed-point number
//! into a log number, an `f32` passed to a changed `f64` parameter,
//! indexing a scalar, ...), so that the checker has programs to reject;
//! [`TypedProgram::mixes`] lists them.

use std::collections::BTreeSet;
use std::fmt::Write as _;

/// How many programs [`programs`] makes.
pub const COUNT: usize = 300;
/// The seed of [`programs`].
pub const SEED: u64 = 0x5DEE_CE66_D1CE_4E5B;
/// Percent of statements that mix types on purpose.
const MIX_PERCENT: u64 = 7;

/// The types of parameters and ancillas.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord)]
pub enum Ty {
    F64,
    F32,
    I64,
    I32,
    Bool,
    C64,
    Fixed,
    ULog,
    Trop,
    Arr,
    Pt,
    Stack,
    /// `Stack{i64}` and `Stack{Complex{f64}}`: ancillas only.
    StackI64,
    StackC64,
    /// The type parameter `T` of a generic helper.
    Gen,
}

use Ty::*;

impl Ty {
    /// The type as a `.nil` signature spells it.
    pub fn nil(self) -> &'static str {
        match self {
            F64 => "f64",
            F32 => "f32",
            I64 => "i64",
            I32 => "i32",
            Bool => "bool",
            C64 => "Complex{f64}",
            Fixed => "Fixed43",
            ULog => "ULogarithmic{f64}",
            Trop => "Tropical{f64}",
            Arr => "[f64]",
            Pt => "Pt{f64}",
            Stack => "Stack{f64}",
            StackI64 => "Stack{i64}",
            StackC64 => "Stack{Complex{f64}}",
            Gen => "T",
        }
    }

    fn prefix(self) -> &'static str {
        match self {
            F64 => "x",
            F32 => "y",
            I64 => "n",
            I32 => "m",
            Bool => "c",
            C64 => "z",
            Fixed => "q",
            ULog => "l",
            Trop => "t",
            Arr => "v",
            Pt => "p",
            Stack | StackI64 | StackC64 => "s",
            Gen => "g",
        }
    }

    fn is_int(self) -> bool {
        matches!(self, I64 | I32)
    }
}

/// A positional parameter.
#[derive(Clone, Debug)]
pub struct Param {
    pub name: String,
    pub ty: Ty,
}

/// One generated project: a single `.nil` file whose entry function is `f`.
#[derive(Clone, Debug)]
pub struct TypedProgram {
    /// `t0`, `t1`, ...: the file is `{name}.nil`, its Rust module `{name}`.
    pub name: String,
    pub source: String,
    /// The parameters of `f`, in order.
    pub entry: Vec<Param>,
    /// The statements that mix types on purpose: a description and the
    /// statement.
    pub mixes: Vec<String>,
    /// The constructs the program uses (`"SWAP of Fixed43"`, `"call of a
    /// generic helper with T = f32"`, ...), for coverage counts and for
    /// the predicates of known gaps.
    pub constructs: BTreeSet<String>,
}

/// The [`COUNT`] programs of [`SEED`]; `NILANG_TYPED_SEED` and
/// `NILANG_TYPED_COUNT` (decimal or `0x` hex) pick others, to explore
/// beyond the programs CI runs.
pub fn programs() -> Vec<TypedProgram> {
    let number = |name: &str| {
        let text = std::env::var(name).ok()?;
        match text.strip_prefix("0x") {
            Some(hex) => u64::from_str_radix(&hex.replace('_', ""), 16).ok(),
            None => text.replace('_', "").parse().ok(),
        }
    };
    let count = number("NILANG_TYPED_COUNT").map_or(COUNT, |n| n as usize);
    generate(count, number("NILANG_TYPED_SEED").unwrap_or(SEED))
}

/// `count` programs from `seed` (deterministic).
pub fn generate(count: usize, seed: u64) -> Vec<TypedProgram> {
    let mut g = Generator {
        state: seed | 1,
        sigs: Vec::new(),
        written: BTreeSet::new(),
        fresh: 0,
        mixes: Vec::new(),
        constructs: BTreeSet::new(),
        grows: false,
        generic: false,
        entry: false,
    };
    (0..count).map(|k| g.program(k)).collect()
}

/// A generated function, as its callers see it.
#[derive(Clone, Debug)]
struct Sig {
    name: String,
    params: Vec<Param>,
    /// Per parameter: whether the function writes it (as the compiler
    /// infers it: any instruction or call that changes it).
    written: Vec<bool>,
    /// It multiplies (`MULINT`), directly or through a callee: not called
    /// in loops, so that integers stay small.
    grows: bool,
}

#[derive(Clone, Debug)]
struct Var {
    name: String,
    ty: Ty,
}

/// What a statement may see and change.
#[derive(Clone, Debug)]
struct Ctx {
    vars: Vec<Var>,
    /// Roots that may be read but not written here.
    frozen: BTreeSet<String>,
    /// Loop variables in scope (`i64`, read-only).
    loops: Vec<String>,
    /// Nesting depth of blocks.
    depth: usize,
    /// How many of the program's functions this one may call.
    callees: usize,
}

impl Ctx {
    fn with_frozen<'a>(&self, roots: impl IntoIterator<Item = &'a String>) -> Ctx {
        let mut c = self.clone();
        c.frozen.extend(roots.into_iter().cloned());
        c.depth += 1;
        c
    }

    /// The same, at the same depth (the rest of a block).
    fn beside<'a>(&self, roots: impl IntoIterator<Item = &'a String>) -> Ctx {
        let mut c = self.with_frozen(roots);
        c.depth -= 1;
        c
    }

    fn with_var(&self, name: &str, ty: Ty) -> Ctx {
        let mut c = self.clone();
        c.vars.push(Var {
            name: name.to_string(),
            ty,
        });
        c
    }
}

/// A place of a real scalar (or of another type, for `Var`).
#[derive(Clone, Debug)]
struct Place {
    text: String,
    root: String,
    ty: Ty,
}

impl Place {
    /// What kind of place it is, for [`TypedProgram::constructs`].
    fn kind(&self) -> String {
        if self.text.contains('[') {
            "an element of [f64]".to_string()
        } else if self.text.contains('.') {
            "a field of Pt{f64}".to_string()
        } else {
            self.ty.nil().to_string()
        }
    }
}

struct Generator {
    state: u64,
    sigs: Vec<Sig>,
    /// Roots the function being generated writes.
    written: BTreeSet<String>,
    fresh: usize,
    mixes: Vec<String>,
    constructs: BTreeSet<String>,
    /// The function being generated multiplies.
    grows: bool,
    /// The function being generated is generic (its reals are `T`).
    generic: bool,
    /// The function being generated is the entry `f`.
    entry: bool,
}

/// An expression and the roots it reads.
type Expr = (String, Vec<String>);

/// Marks an already indented block among the lines of [`Generator::lines`].
const BLOCK: &str = "\u{1}";

const FLOAT_LITERALS: [&str; 6] = ["0.5", "0.25", "1.5", "0.375", "2.0", "0.125"];

impl Generator {
    fn next(&mut self) -> u64 {
        self.state ^= self.state << 13;
        self.state ^= self.state >> 7;
        self.state ^= self.state << 17;
        self.state
    }

    fn below(&mut self, n: usize) -> usize {
        (self.next() % n.max(1) as u64) as usize
    }

    fn chance(&mut self, percent: u64) -> bool {
        self.next() % 100 < percent
    }

    fn pick<T: Clone>(&mut self, from: &[T]) -> Option<T> {
        if from.is_empty() {
            None
        } else {
            Some(from[self.below(from.len())].clone())
        }
    }

    fn lit(&mut self) -> String {
        FLOAT_LITERALS[self.below(FLOAT_LITERALS.len())].to_string()
    }

    fn fresh(&mut self, prefix: &str) -> String {
        self.fresh += 1;
        format!("{prefix}{}", self.fresh)
    }

    fn mix(&mut self, what: &str, stmt: &str) {
        self.mixes.push(format!("{what}: {}", stmt.trim()));
    }

    fn note(&mut self, construct: impl Into<String>) {
        self.constructs.insert(construct.into());
    }

    // ---- programs and functions ----

    fn program(&mut self, index: usize) -> TypedProgram {
        self.sigs.clear();
        self.mixes.clear();
        self.constructs.clear();
        let mut source = String::new();
        let _ = writeln!(source, "# typed random program {index}");
        source.push_str("struct Pt{T}\n    x::T\n    y::T\nend\n\n");
        // The entry's parameters: an f64 always, then a palette of types.
        let mut entry_tys = vec![F64];
        let extra = 3 + self.below(5);
        for _ in 0..extra {
            let ty = match self.below(22) {
                0..=3 => F64,
                4 | 5 => F32,
                6 | 7 => I64,
                8 => I32,
                9 | 10 => Bool,
                11 | 12 => C64,
                13 | 14 => Fixed,
                15 | 16 => ULog,
                17 => Trop,
                18 | 19 => Arr,
                20 => Pt,
                _ => Stack,
            };
            entry_tys.push(ty);
        }
        let entry = Self::name_params(&entry_tys);
        // Helpers: each takes a part of the entry's palette, so that every
        // caller has variables of the types it needs.
        let helpers = self.below(4);
        for h in 0..helpers {
            let text = if self.chance(20) {
                self.generic_helper(h)
            } else {
                let mut tys: Vec<Ty> = entry_tys
                    .iter()
                    .copied()
                    .filter(|_| self.chance(55))
                    .collect();
                if tys.is_empty() {
                    tys.push(F64);
                }
                tys.truncate(5);
                let params = Self::name_params(&tys);
                self.function(&format!("h{h}"), params, false, h)
            };
            source.push_str(&text);
        }
        let text = self.function("f", entry.clone(), false, helpers);
        source.push_str(&text);
        TypedProgram {
            name: format!("t{index}"),
            source,
            entry,
            mixes: self.mixes.clone(),
            constructs: self.constructs.clone(),
        }
    }

    fn name_params(tys: &[Ty]) -> Vec<Param> {
        let mut counts = std::collections::BTreeMap::new();
        tys.iter()
            .map(|&ty| {
                let k = counts.entry(ty).or_insert(0);
                *k += 1;
                Param {
                    name: format!("{}{k}", ty.prefix()),
                    ty,
                }
            })
            .collect()
    }

    fn generic_helper(&mut self, h: usize) -> String {
        let mut tys = vec![Gen, Gen];
        if self.chance(40) {
            tys.push(Gen);
        }
        if self.chance(40) {
            tys.push(I64);
        }
        let params = Self::name_params(&tys);
        self.function(&format!("h{h}"), params, true, h)
    }

    fn function(
        &mut self,
        name: &str,
        params: Vec<Param>,
        generic: bool,
        callees: usize,
    ) -> String {
        self.written.clear();
        self.fresh = 0;
        self.grows = false;
        self.generic = generic;
        self.entry = name == "f";
        let ctx = Ctx {
            vars: params
                .iter()
                .map(|p| Var {
                    name: p.name.clone(),
                    ty: p.ty,
                })
                .collect(),
            frozen: BTreeSet::new(),
            loops: Vec::new(),
            depth: 1,
            callees,
        };
        let count = 3 + self.below(6);
        let body = self.block(&ctx, count);
        let sig = Sig {
            name: name.to_string(),
            written: params
                .iter()
                .map(|p| self.written.contains(&p.name))
                .collect(),
            params: params.clone(),
            grows: self.grows,
        };
        self.sigs.push(sig);
        let list: Vec<String> = params
            .iter()
            .map(|p| format!("{}::{}", p.name, p.ty.nil()))
            .collect();
        let clause = if generic { " where T: Real" } else { "" };
        format!(
            "function {name}({}){clause}\n{body}end\n\n",
            list.join(", ")
        )
    }

    fn block(&mut self, ctx: &Ctx, count: usize) -> String {
        let mut out = String::new();
        for _ in 0..count {
            out.push_str(&self.stmt(ctx));
        }
        out
    }

    /// A block generated at the right depth, to go between lines.
    fn marker(block: String) -> String {
        format!("{BLOCK}{block}")
    }

    fn indent(ctx: &Ctx) -> String {
        "    ".repeat(ctx.depth)
    }

    /// Lines at the context's indentation (a line starting with `>`
    /// is indented one more level, `>>` two).
    fn lines(ctx: &Ctx, lines: &[String]) -> String {
        let mut out = String::new();
        for line in lines {
            if let Some(block) = line.strip_prefix(BLOCK) {
                out.push_str(block);
                continue;
            }
            let extra = line.chars().take_while(|&c| c == '>').count();
            out.push_str(&Self::indent(ctx));
            out.push_str(&"    ".repeat(extra));
            out.push_str(&line[extra..]);
            out.push('\n');
        }
        out
    }

    // ---- reading ----

    fn readable(&self, ctx: &Ctx, avoid: &[String]) -> Vec<Var> {
        ctx.vars
            .iter()
            .filter(|v| !avoid.contains(&v.name))
            .cloned()
            .collect()
    }

    fn index(&mut self, ctx: &Ctx) -> String {
        if !ctx.loops.is_empty() && self.chance(40) {
            // Loops run at most 4 times: within the arrays' length.
            self.pick(&ctx.loops).unwrap()
        } else {
            (1 + self.below(4)).to_string()
        }
    }

    /// A real-valued read of one variable (not one of `avoid`).
    fn real_atom(&mut self, ctx: &Ctx, avoid: &[String]) -> Option<Expr> {
        let mut vars = self.readable(ctx, avoid);
        vars.retain(|v| !matches!(v.ty, Stack | StackI64 | StackC64 | Bool));
        if self.generic {
            vars.retain(|v| v.ty == Gen || v.ty.is_int());
        }
        let loops: Vec<String> = ctx
            .loops
            .iter()
            .filter(|l| !avoid.contains(l))
            .cloned()
            .collect();
        if !loops.is_empty() && self.chance(15) {
            let l = self.pick(&loops).unwrap();
            return Some((l.clone(), vec![l]));
        }
        let v = self.pick(&vars)?;
        let text = match v.ty {
            F64 | F32 | I64 | I32 | Gen => v.name.clone(),
            C64 => match self.below(3) {
                0 => format!("real({})", v.name),
                1 => format!("imag({})", v.name),
                _ => format!("abs({})", v.name),
            },
            Fixed => format!("float({})", v.name),
            ULog => format!("{}.log", v.name),
            Trop => format!("float({})", v.name),
            Arr => format!("{}[{}]", v.name, self.index(ctx)),
            Pt => format!("{}.{}", v.name, if self.chance(50) { "x" } else { "y" }),
            Bool | Stack | StackI64 | StackC64 => unreachable!(),
        };
        Some((text, vec![v.name]))
    }

    /// A bounded real expression of at most two variables.
    fn real_value(&mut self, ctx: &Ctx, avoid: &[String]) -> Expr {
        let Some((a, ra)) = self.real_atom(ctx, avoid) else {
            let l = self.lit();
            return (l, vec![]);
        };
        let mut avoid2 = avoid.to_vec();
        avoid2.extend(ra.iter().cloned());
        let second = self.real_atom(ctx, &avoid2);
        let mut reads = ra;
        let text = match (self.below(9), second) {
            (0, _) => format!("sin({a})"),
            (1, _) => format!("cos({a}) * 0.5"),
            (2, _) => format!("tanh({a})"),
            (3, _) => format!("atan({a}) * 0.25"),
            (4, Some((b, rb))) => {
                reads.extend(rb);
                format!("sin({a}) * cos({b})")
            }
            (5, Some((b, rb))) => {
                reads.extend(rb);
                format!("tanh({a} - {b}) * 0.5")
            }
            (6, _) => format!("exp(sin({a})) - 1.0"),
            (7, Some((b, rb))) => {
                reads.extend(rb);
                format!("sin({a}) / (2.0 + cos({b}))")
            }
            _ => format!("0.5 * sin({a})"),
        };
        (text, reads)
    }

    /// A small integer expression.
    fn int_value(&mut self, ctx: &Ctx, avoid: &[String]) -> Expr {
        let ints: Vec<String> = ctx
            .vars
            .iter()
            .filter(|v| v.ty.is_int() && !avoid.contains(&v.name))
            .map(|v| v.name.clone())
            .chain(ctx.loops.iter().filter(|l| !avoid.contains(l)).cloned())
            .collect();
        let arrays: Vec<String> = ctx
            .vars
            .iter()
            .filter(|v| v.ty == Arr && !avoid.contains(&v.name))
            .map(|v| v.name.clone())
            .collect();
        match self.below(6) {
            0 if !ints.is_empty() => {
                let n = self.pick(&ints).unwrap();
                (format!("{n} % 5"), vec![n])
            }
            1 if !ints.is_empty() => {
                let n = self.pick(&ints).unwrap();
                (format!("rem({n}, 3) + 1"), vec![n])
            }
            2 if !arrays.is_empty() => {
                let v = self.pick(&arrays).unwrap();
                (format!("length({v})"), vec![v])
            }
            3 | 4 => {
                let (a, r) = self.real_atom(ctx, avoid).unwrap_or(("0.5".into(), vec![]));
                let text = if self.chance(50) {
                    format!("round(tanh({a}) * 3.0)")
                } else {
                    format!("floor(atan({a}))")
                };
                (text, r)
            }
            _ => ((1 + self.below(3)).to_string(), vec![]),
        }
    }

    fn vars_of(&self, ctx: &Ctx, ty: Ty, avoid: &[String]) -> Vec<String> {
        ctx.vars
            .iter()
            .filter(|v| v.ty == ty && !avoid.contains(&v.name))
            .map(|v| v.name.clone())
            .collect()
    }

    /// A value of a number-system or complex type (`ty`), not reading `avoid`.
    fn typed_value(&mut self, ctx: &Ctx, ty: Ty, avoid: &[String]) -> Expr {
        let same = self.vars_of(ctx, ty, avoid);
        match ty {
            C64 => match self.below(4) {
                0 if !same.is_empty() => {
                    let z = self.pick(&same).unwrap();
                    (format!("conj({z}) * 0.5"), vec![z])
                }
                1 if !same.is_empty() => {
                    let z = self.pick(&same).unwrap();
                    let (r, mut reads) =
                        self.real_value(ctx, &[avoid, std::slice::from_ref(&z)].concat());
                    reads.push(z.clone());
                    (format!("{z} * ({r})"), reads)
                }
                _ => self.real_value(ctx, avoid),
            },
            Fixed => match self.below(4) {
                0 if !same.is_empty() => {
                    let q = self.pick(&same).unwrap();
                    (q.clone(), vec![q])
                }
                1 => ((1 + self.below(3)).to_string(), vec![]),
                _ => {
                    let (r, reads) = self.real_value(ctx, avoid);
                    (format!("fixed({r})"), reads)
                }
            },
            ULog => match self.below(5) {
                0 if !same.is_empty() => {
                    let l = self.pick(&same).unwrap();
                    (l.clone(), vec![l])
                }
                1 if same.len() >= 2 => {
                    let a = self.pick(&same).unwrap();
                    let rest: Vec<String> = same.iter().filter(|s| **s != a).cloned().collect();
                    let b = self.pick(&rest).unwrap();
                    let op = if self.chance(50) { "+" } else { "*" };
                    (format!("{a} {op} {b}"), vec![a, b])
                }
                2 => {
                    let (r, reads) = self.real_value(ctx, avoid);
                    (format!("ulog(2.0 + {r})"), reads)
                }
                3 => ((2 + self.below(3)).to_string(), vec![]),
                _ => {
                    let (r, reads) = self.real_value(ctx, avoid);
                    (format!("1.5 + {r}"), reads)
                }
            },
            Trop => match self.below(3) {
                0 if !same.is_empty() => {
                    let t = self.pick(&same).unwrap();
                    (t.clone(), vec![t])
                }
                1 => {
                    let (r, reads) = self.real_value(ctx, avoid);
                    // The value is an `f32` when it reads an `f32` and
                    // nothing of type `f64` (integers widen to it).
                    let ty =
                        |name: &String| ctx.vars.iter().find(|v| v.name == *name).map(|v| v.ty);
                    if reads.iter().any(|r| ty(r) == Some(F32))
                        && reads
                            .iter()
                            .all(|r| matches!(ty(r), Some(F32 | I64 | I32) | None))
                    {
                        self.note("tropical(x) of an f32 value");
                    }
                    (format!("tropical({r})"), reads)
                }
                _ => self.real_value(ctx, avoid),
            },
            _ => self.real_value(ctx, avoid),
        }
    }

    // ---- places ----

    /// Writable places of type `ty` (`F64` includes array elements and
    /// struct fields).
    fn places(&mut self, ctx: &Ctx, ty: Ty) -> Vec<Place> {
        let mut out = Vec::new();
        for v in &ctx.vars {
            if ctx.frozen.contains(&v.name) {
                continue;
            }
            if v.ty == ty {
                out.push(Place {
                    text: v.name.clone(),
                    root: v.name.clone(),
                    ty,
                });
            }
            if ty == F64 && v.ty == Arr {
                let i = self.index(ctx);
                out.push(Place {
                    text: format!("{}[{i}]", v.name),
                    root: v.name.clone(),
                    ty: F64,
                });
            }
            if ty == F64 && v.ty == Pt {
                let f = if self.chance(50) { "x" } else { "y" };
                out.push(Place {
                    text: format!("{}.{f}", v.name),
                    root: v.name.clone(),
                    ty: F64,
                });
            }
        }
        out
    }

    fn any_place(&mut self, ctx: &Ctx, tys: &[Ty]) -> Option<Place> {
        let mut all = Vec::new();
        for &ty in tys {
            all.extend(self.places(ctx, ty));
        }
        self.pick(&all)
    }

    fn write(&mut self, root: &str) {
        self.written.insert(root.to_string());
    }

    // ---- statements ----

    fn stmt(&mut self, ctx: &Ctx) -> String {
        if self.chance(MIX_PERCENT)
            && let Some(s) = self.mixed(ctx)
        {
            return s;
        }
        for _ in 0..8 {
            let kind = if ctx.depth > 3 {
                self.below(6)
            } else {
                self.below(26)
            };
            if let Some(s) = self.try_stmt(ctx, kind) {
                return s;
            }
        }
        // Nothing applied: a harmless update of a real place, or nothing.
        self.accumulate(ctx).unwrap_or_default()
    }

    fn try_stmt(&mut self, ctx: &Ctx, kind: usize) -> Option<String> {
        match kind {
            0..=2 => self.accumulate(ctx),
            3 => self.typed_update(ctx),
            4 => self.swap(ctx),
            5 => self.unary(ctx),
            6 => self.rotation(ctx),
            7 => self.int_update(ctx),
            8 | 9 => self.call(ctx),
            10 | 11 => self.if_stmt(ctx),
            12 | 13 => self.for_stmt(ctx),
            14 => self.while_stmt(ctx),
            15 => self.routine(ctx),
            16 | 17 => self.stack_pattern(ctx),
            18 | 19 => self.cast_pattern(ctx),
            20 => self.struct_pattern(ctx),
            21 => self.call_pair(ctx),
            22 => self.same_root(ctx),
            23 => self.broadcast(ctx),
            24 => self.typed_update(ctx),
            _ => self.accumulate(ctx),
        }
    }

    /// `x += e` / `x -= e` on a real place, a complex part or an integer.
    fn accumulate(&mut self, ctx: &Ctx) -> Option<String> {
        let tys: &[Ty] = if self.generic {
            &[Gen, I64]
        } else {
            &[F64, F64, F32, I64, I32]
        };
        let p = self.any_place(ctx, tys)?;
        let op = if self.chance(50) { "+=" } else { "-=" };
        let (value, _) = if p.ty.is_int() {
            self.int_value(ctx, std::slice::from_ref(&p.root))
        } else {
            self.real_value(ctx, std::slice::from_ref(&p.root))
        };
        self.write(&p.root);
        self.note(format!("`{op}` on {}", p.kind()));
        Some(Self::lines(ctx, &[format!("{} {op} {value}", p.text)]))
    }

    /// Updates of complex, fixed-point, log and tropical numbers, and of
    /// booleans.
    fn typed_update(&mut self, ctx: &Ctx) -> Option<String> {
        if self.generic {
            return None;
        }
        let p = self.any_place(ctx, &[C64, Fixed, ULog, Trop, Bool])?;
        let avoid = std::slice::from_ref(&p.root);
        let line = match p.ty {
            C64 => {
                if self.chance(25) {
                    let part = if self.chance(50) { "re" } else { "im" };
                    let (v, _) = self.real_value(ctx, avoid);
                    format!("{}.{part} += {v}", p.text)
                } else {
                    let op = if self.chance(50) { "+=" } else { "-=" };
                    let (v, _) = self.typed_value(ctx, C64, avoid);
                    format!("{} {op} {v}", p.text)
                }
            }
            Fixed => {
                let op = if self.chance(50) { "+=" } else { "-=" };
                let (v, _) = self.typed_value(ctx, Fixed, avoid);
                format!("{} {op} {v}", p.text)
            }
            ULog => {
                let op = if self.chance(60) { "*=" } else { "/=" };
                let (v, _) = self.typed_value(ctx, ULog, avoid);
                format!("{} {op} {v}", p.text)
            }
            Trop => {
                let op = if self.chance(60) { "*=" } else { "/=" };
                let (v, _) = self.typed_value(ctx, Trop, avoid);
                format!("{} {op} {v}", p.text)
            }
            Bool => {
                // At 1/16, not 0.0, as the branch conditions (`condition`):
                // an ancilla at 0.0 comes back from an uncall only to
                // within rounding, and `x > 0.0` of it could flip the bool
                // backwards but not forwards (seed 0xfeed_beef_0000_0042,
                // program 150: `h0(w2, w3, s1, c1)` on ancillas).
                let (a, _) = self.real_atom(ctx, avoid).unwrap_or(("0.5".into(), vec![]));
                format!("{} ⊻= {a} > 0.0625", p.text)
            }
            _ => unreachable!(),
        };
        self.write(&p.root);
        let op = line.split(' ').nth(1).unwrap_or_default().to_string();
        let on = if line.contains(".re ") || line.contains(".im ") {
            "a part of Complex{f64}".to_string()
        } else {
            p.kind()
        };
        self.note(format!("`{op}` on {on}"));
        Some(Self::lines(ctx, &[line]))
    }

    fn swap(&mut self, ctx: &Ctx) -> Option<String> {
        let tys: &[Ty] = if self.generic {
            &[Gen, I64]
        } else {
            &[F64, F32, I64, I32, C64, Fixed, ULog, Trop, Pt]
        };
        // The types with two places (of different variables) here.
        let mut choices = Vec::new();
        for &ty in tys {
            let places = self.places(ctx, ty);
            let roots: BTreeSet<&String> = places.iter().map(|p| &p.root).collect();
            if roots.len() >= 2 {
                choices.push(places);
            }
        }
        let places = self.pick(&choices)?;
        let a = self.pick(&places)?;
        let others: Vec<Place> = places.into_iter().filter(|p| p.root != a.root).collect();
        let b = self.pick(&others)?;
        self.write(&a.root);
        self.write(&b.root);
        self.note(format!("SWAP of {} and {}", a.kind(), b.kind()));
        Some(Self::lines(ctx, &[format!("SWAP({}, {})", a.text, b.text)]))
    }

    fn unary(&mut self, ctx: &Ctx) -> Option<String> {
        let tys: &[Ty] = if self.generic {
            &[Gen, I64]
        } else {
            &[F64, F32, I64, I32, C64, C64, Fixed]
        };
        let p = self.any_place(ctx, tys)?;
        let op = match p.ty {
            C64 if self.chance(50) => "CONJ",
            I64 | I32 if self.chance(50) => {
                if self.chance(50) {
                    "INC"
                } else {
                    "DEC"
                }
            }
            _ => "NEG",
        };
        self.write(&p.root);
        self.note(format!("{op} of {}", p.kind()));
        Some(Self::lines(ctx, &[format!("{op}({})", p.text)]))
    }

    fn rotation(&mut self, ctx: &Ctx) -> Option<String> {
        let ty = if self.generic {
            Gen
        } else if self.chance(80) {
            F64
        } else {
            F32
        };
        let places = self.places(ctx, ty);
        let a = self.pick(&places)?;
        let others: Vec<Place> = places.into_iter().filter(|p| p.root != a.root).collect();
        let b = self.pick(&others)?;
        self.write(&a.root);
        self.write(&b.root);
        let line = match self.below(3) {
            0 => format!("HADAMARD({}, {})", a.text, b.text),
            k => {
                let avoid = [a.root.clone(), b.root.clone()];
                let theta = match self.real_atom(ctx, &avoid) {
                    Some((t, _)) if self.chance(50) => t,
                    _ => self.lit(),
                };
                let op = if k == 1 { "ROT" } else { "IROT" };
                format!("{op}({}, {}, {theta})", a.text, b.text)
            }
        };
        let op = line.split('(').next().unwrap_or_default().to_string();
        self.note(format!("{op} of {} and {}", a.kind(), b.kind()));
        Some(Self::lines(ctx, &[line]))
    }

    /// `MULINT`, `DIVINT` (floats only: on integers it is exact only after
    /// a `MULINT`), `⊻=` on integers.
    fn int_update(&mut self, ctx: &Ctx) -> Option<String> {
        let tys: &[Ty] = if self.generic {
            &[Gen, I64]
        } else {
            &[F64, F32, I64, I32]
        };
        let p = self.any_place(ctx, tys)?;
        let line = if p.ty.is_int() {
            if self.chance(50) {
                let (v, _) = self.int_value(ctx, std::slice::from_ref(&p.root));
                format!("{} ⊻= {v}", p.text)
            } else {
                // Integers only in `f`: the uncall of a helper would
                // divide an integer that may not be a multiple (`~f`
                // divides what `f` multiplied).
                if !ctx.loops.is_empty() || ctx.depth > 2 || !self.entry {
                    return None;
                }
                self.grows = true;
                format!("MULINT({}, {})", p.text, 2 + self.below(2))
            }
        } else {
            if !ctx.loops.is_empty() || ctx.depth > 2 {
                return None;
            }
            self.grows = true;
            let op = if self.chance(50) { "MULINT" } else { "DIVINT" };
            format!("{op}({}, {})", p.text, 2 + self.below(3))
        };
        self.write(&p.root);
        let op = line
            .split(['(', ' '])
            .find(|w| !w.is_empty() && !w.contains(&p.text))
            .unwrap_or_default()
            .to_string();
        self.note(format!("{op} of {}", p.kind()));
        Some(Self::lines(ctx, &[line]))
    }

    /// Arguments for a call of `sig` from `ctx`: distinct roots, a
    /// writable place for each parameter the callee writes. Each is its
    /// text and its root (empty for a literal); the type `T` took last.
    /// `preset` names the variables some parameters get (by position).
    fn arguments(
        &mut self,
        ctx: &Ctx,
        sig: &Sig,
        preset: &[Option<String>],
    ) -> Option<(Vec<(String, String)>, Ty)> {
        let mut used: Vec<String> = preset.iter().flatten().cloned().collect();
        let mut args = Vec::new();
        // The type the generic helper's `T` takes here.
        let gen_ty = if self.generic {
            Gen
        } else if self.chance(70) {
            F64
        } else {
            F32
        };
        for (i, (p, &w)) in sig.params.iter().zip(&sig.written).enumerate() {
            if let Some(Some(name)) = preset.get(i) {
                args.push((name.clone(), name.clone()));
                continue;
            }
            let ty = if p.ty == Gen { gen_ty } else { p.ty };
            if self.generic && ty != Gen && ty != I64 {
                return None;
            }
            let places: Vec<Place> = self
                .places(ctx, ty)
                .into_iter()
                .filter(|pl| !used.contains(&pl.root))
                .collect();
            let readable: Vec<String> = self.vars_of(ctx, ty, &used);
            let arg = if w {
                let pl = self.pick(&places)?;
                (pl.text, pl.root)
            } else if !readable.is_empty() && self.chance(70) {
                let r = self.pick(&readable).unwrap();
                (r.clone(), r)
            } else {
                let literal = |text: &str| (text.to_string(), String::new());
                match ty {
                    F64 | F32 | Gen => literal(&self.lit()),
                    I64 | I32 => literal(&(1 + self.below(3)).to_string()),
                    Bool => literal(if self.chance(50) { "true" } else { "false" }),
                    C64 => literal("0.5"),
                    Fixed => literal("fixed(0.5)"),
                    ULog => literal("ulog(1.5)"),
                    Trop => literal("tropical(0.5)"),
                    Arr | Pt | Stack | StackI64 | StackC64 => {
                        let r = self.pick(&readable)?;
                        (r.clone(), r)
                    }
                }
            };
            if !arg.1.is_empty() {
                used.push(arg.1.clone());
            }
            args.push(arg);
        }
        Some((args, gen_ty))
    }

    /// Records what a call of `sig` with `args` writes and uses.
    fn called(&mut self, sig: &Sig, args: &[(String, String)], gen_ty: Ty, inv: &str) {
        for ((arg, root), &w) in args.iter().zip(&sig.written) {
            if w && !root.is_empty() {
                self.write(root);
                if arg.contains('[') || arg.contains('.') {
                    self.note("an element or a field as a changed argument");
                }
            }
        }
        if sig.grows {
            self.grows = true;
        }
        let what = if inv.is_empty() { "call" } else { "uncall" };
        for (p, (_, root)) in sig.params.iter().zip(args) {
            if p.ty == Gen && root.is_empty() {
                self.note(format!(
                    "a float literal for a T = {} argument",
                    gen_ty.nil()
                ));
            }
        }
        if sig.params.iter().any(|p| p.ty == Gen) {
            self.note(format!(
                "{what} of a generic helper with T = {}",
                gen_ty.nil()
            ));
        } else {
            self.note(format!("{what} of a helper"));
        }
    }

    fn call(&mut self, ctx: &Ctx) -> Option<String> {
        if ctx.callees == 0 {
            return None;
        }
        let k = self.below(ctx.callees);
        let sig = self.sigs[k].clone();
        if sig.grows && (!ctx.loops.is_empty() || ctx.depth > 2) {
            return None;
        }
        let (args, gen_ty) = self.arguments(ctx, &sig, &[])?;
        let inv = if self.chance(30) { "~" } else { "" };
        self.called(&sig, &args, gen_ty, inv);
        let list: Vec<String> = args.into_iter().map(|a| a.0).collect();
        Some(Self::lines(
            ctx,
            &[format!("{inv}{}({})", sig.name, list.join(", "))],
        ))
    }

    /// `h(args)`, something that does not touch the arguments, `~h(args)`;
    /// the arguments may be ancillas allocated for it.
    fn call_pair(&mut self, ctx: &Ctx) -> Option<String> {
        if ctx.callees == 0 || self.generic {
            return None;
        }
        let k = self.below(ctx.callees);
        let sig = self.sigs[k].clone();
        if sig.grows && (!ctx.loops.is_empty() || ctx.depth > 2) {
            return None;
        }
        // Ancillas for the written parameters of some types.
        let mut pre = Vec::new();
        let mut post = Vec::new();
        let mut inner = ctx.clone();
        let mut frozen: Vec<String> = Vec::new();
        let mut preset = Vec::new();
        for (p, &w) in sig.params.iter().zip(&sig.written) {
            preset.push(None);
            if w && self.chance(50) {
                let init = match p.ty {
                    F64 => "0.0".to_string(),
                    I64 => "0".to_string(),
                    C64 => match self.pick(&self.vars_of(ctx, C64, &[])) {
                        Some(z) => {
                            frozen.push(z.clone());
                            format!("zero({z})")
                        }
                        None => continue,
                    },
                    Fixed => "zero(Fixed43)".to_string(),
                    ULog => "ulog(1.0)".to_string(),
                    Pt => {
                        let (a, reads) = self.real_value(ctx, &[]);
                        frozen.extend(reads);
                        format!("Pt(0.5, 0.5 * {a})")
                    }
                    _ => continue,
                };
                let name = self.fresh("w");
                pre.push(format!("{name} ← {init}"));
                post.push(format!("{name} → {init}"));
                inner = inner.with_var(&name, p.ty);
                *preset.last_mut().unwrap() = Some(name);
            }
        }
        // The ancillas go to their parameters, the others to variables of
        // the caller; in between, nothing changes any of them.
        let (args, gen_ty) = self.arguments(ctx, &sig, &preset)?;
        self.called(&sig, &args, gen_ty, "");
        if !pre.is_empty() {
            self.note("a call and its uncall on ancillas allocated for them");
        }
        frozen.extend(args.iter().map(|a| a.1.clone()).filter(|r| !r.is_empty()));
        let list: Vec<String> = args.into_iter().map(|a| a.0).collect();
        let call = format!("{}({})", sig.name, list.join(", "));
        pre.push(call.clone());
        let mut out = Self::lines(ctx, &pre);
        let n = self.below(3);
        out.push_str(&self.block(&inner.beside(&frozen), n));
        post.reverse();
        post.insert(0, format!("~{call}"));
        out.push_str(&Self::lines(ctx, &post));
        Some(out)
    }

    fn condition(&mut self, ctx: &Ctx) -> Option<Expr> {
        let bools = self.vars_of(ctx, Bool, &[]);
        match self.below(5) {
            0 | 1 if !bools.is_empty() => {
                let c = self.pick(&bools).unwrap();
                let text = if self.chance(30) {
                    format!("!{c}")
                } else {
                    c.clone()
                };
                Some((text, vec![c]))
            }
            2 if !bools.is_empty() => {
                let c = self.pick(&bools).unwrap();
                let (a, mut r) = self.real_atom(ctx, std::slice::from_ref(&c))?;
                r.push(c.clone());
                Some((format!("{c} && {a} > 0.25"), r))
            }
            _ => {
                let ints: Vec<String> = self
                    .vars_of(ctx, I64, &[])
                    .into_iter()
                    .chain(self.vars_of(ctx, I32, &[]))
                    .collect();
                if !ints.is_empty() && self.chance(30) {
                    let n = self.pick(&ints).unwrap();
                    return Some((format!("{n} > 1"), vec![n]));
                }
                // Not at 0.0: an ancilla starts there (`w ← 0.0`), and a
                // call's uncall brings it back only to within rounding
                // (`(a + s) - s`), so a condition at 0.0 could take the
                // other branch backwards than forwards (seed
                // 0x1234_5678_9abc_def1, program 962). The inputs are
                // thousandths, which 1/16 is not; a computed value lands on
                // it only by chance.
                let (a, r) = self.real_atom(ctx, &[])?;
                let cmp = if self.chance(50) { ">" } else { "<" };
                Some((format!("{a} {cmp} 0.0625"), r))
            }
        }
    }

    fn if_stmt(&mut self, ctx: &Ctx) -> Option<String> {
        let (cond, reads) = self.condition(ctx)?;
        let inner = ctx.with_frozen(&reads);
        let mut out = Self::lines(ctx, &[format!("if ({cond}, ~)")]);
        let n = 1 + self.below(2);
        out.push_str(&self.block(&inner, n));
        if self.chance(50) {
            out.push_str(&Self::lines(ctx, &["else".to_string()]));
            let n = 1 + self.below(2);
            out.push_str(&self.block(&inner, n));
        }
        out.push_str(&Self::lines(ctx, &["end".to_string()]));
        self.note("if (cond, ~)");
        Some(out)
    }

    fn for_stmt(&mut self, ctx: &Ctx) -> Option<String> {
        if ctx.loops.len() >= 2 {
            return None;
        }
        let var = self.fresh("i");
        let arrays = self.vars_of(ctx, Arr, &[]);
        let (range, reads) = match self.below(5) {
            0 if !arrays.is_empty() => {
                let v = self.pick(&arrays).unwrap();
                (format!("1:length({v})"), vec![v])
            }
            1 => ("3:-1:1".to_string(), vec![]),
            2 => ("1:2:4".to_string(), vec![]),
            _ => (format!("1:{}", 1 + self.below(3)), vec![]),
        };
        let mut inner = ctx.with_frozen(&reads);
        inner.loops.push(var.clone());
        self.note(if range.contains("length") {
            "for over 1:length(v)"
        } else {
            "for over a constant range"
        });
        let mut out = Self::lines(ctx, &[format!("for {var} = {range}")]);
        let n = 1 + self.below(2);
        out.push_str(&self.block(&inner, n));
        out.push_str(&Self::lines(ctx, &["end".to_string()]));
        Some(out)
    }

    fn while_stmt(&mut self, ctx: &Ctx) -> Option<String> {
        if !ctx.loops.is_empty() {
            return None;
        }
        let k = self.fresh("k");
        let n = 1 + self.below(3);
        let inner = ctx.with_var(&k, I64).with_frozen([&k]);
        self.note("counted while");
        let mut out = Self::lines(
            ctx,
            &[
                format!("{k} ← 0"),
                format!("while ({k} < {n}, {k} > 0)"),
                format!(">{k} += 1"),
            ],
        );
        let count = 1 + self.below(2);
        out.push_str(&self.block(&inner, count));
        out.push_str(&Self::lines(
            ctx,
            &["end".to_string(), format!("{k} → {n}")],
        ));
        Some(out)
    }

    /// Compute an ancilla in a routine, use it, uncompute.
    fn routine(&mut self, ctx: &Ctx) -> Option<String> {
        let w = self.fresh("w");
        let kind = if self.generic { 0 } else { self.below(4) };
        let (alloc, compute, wty) = match kind {
            0 => {
                let (e, r) = self.real_value(ctx, &[]);
                let zero = if self.generic { "zero(g1)" } else { "0.0" };
                let ty = if self.generic { Gen } else { F64 };
                (format!("{w} ← {zero}"), (format!("{w} += {e}"), r), ty)
            }
            1 => {
                let (e, r) = self.real_value(ctx, &[]);
                (
                    format!("{w} ← zero(Fixed43)"),
                    (format!("{w} += fixed({e})"), r),
                    Fixed,
                )
            }
            2 => {
                let (e, r) = self.real_value(ctx, &[]);
                (
                    format!("{w} ← ulog(1.0)"),
                    (format!("{w} *= 2.0 + {e}"), r),
                    ULog,
                )
            }
            _ => {
                let z = self.pick(&self.vars_of(ctx, C64, &[]))?;
                let (e, mut r) = self.real_value(ctx, &[]);
                r.push(z.clone());
                (format!("{w} ← zero({z})"), (format!("{w} += {e}"), r), C64)
            }
        };
        let (compute, reads) = compute;
        let mut frozen = reads.clone();
        frozen.push(w.clone());
        let use_ctx = ctx.with_var(&w, wty).beside(&frozen);
        // The use: a place of the real kind, not read by the routine.
        let target = self.any_place(&use_ctx, if self.generic { &[Gen] } else { &[F64, F32] })?;
        let read = match wty {
            Fixed => format!("tanh(float({w}))"),
            ULog => format!("tanh({w}.log)"),
            C64 => format!("sin(real({w}))"),
            _ => format!("sin({w})"),
        };
        self.write(&target.root);
        self.note(format!("@routine computing a {} ancilla", wty.nil()));
        let mut out = Self::lines(
            ctx,
            &[
                "@routine begin".to_string(),
                format!(">{alloc}"),
                format!(">{compute}"),
                "end".to_string(),
                format!("{} += {read}", target.text),
            ],
        );
        if self.chance(40) {
            out.push_str(&self.block(&use_ctx, 1));
        }
        out.push_str(&Self::lines(ctx, &["~@routine".to_string()]));
        Some(out)
    }

    /// `PUSH!`/`POP!` and `COPYPUSH!`/`COPYPOP!` pairs.
    fn stack_pattern(&mut self, ctx: &Ctx) -> Option<String> {
        if self.generic {
            return None;
        }
        let stacks: Vec<String> = self
            .vars_of(ctx, Stack, &[])
            .into_iter()
            .filter(|s| !ctx.frozen.contains(s))
            .collect();
        let mut lines = Vec::new();
        let mut tail = Vec::new();
        let kind = self.below(6);
        // Which stack: a parameter, or an ancilla of the element type.
        let elem = match kind {
            3 => I64,
            4 => C64,
            _ => F64,
        };
        let s = if elem == F64 && !stacks.is_empty() && self.chance(60) {
            self.pick(&stacks).unwrap()
        } else {
            let s = self.fresh("st");
            let of = match elem {
                I64 => "i64".to_string(),
                // `stack(e)` takes a type name or a value of the
                // element type: complex numbers have only the latter.
                C64 => self.pick(&self.vars_of(ctx, C64, &[]))?,
                _ => "f64".to_string(),
            };
            lines.push(format!("{s} ← stack({of})"));
            tail.push(format!("{s} → stack({of})"));
            s
        };
        self.write(&s);
        let inner = ctx.with_var(
            &s,
            match elem {
                I64 => StackI64,
                C64 => StackC64,
                _ => Stack,
            },
        );
        // An `f32` value does not go on a stack of `f64` (E0620).
        let no_f32 = self.vars_of(ctx, F32, &[]);
        match kind {
            0 | 1 => {
                // An ancilla moved onto the stack and back.
                let w = self.fresh("w");
                let (e, reads) = self.real_value(ctx, &no_f32);
                lines.push(format!("{w} ← 0.0"));
                lines.push(format!("{w} += {e}"));
                lines.push(format!("PUSH!({s}, {w})"));
                let mut frozen = reads;
                frozen.push(s.clone());
                frozen.push(w.clone());
                let mid = inner.with_var(&w, F64).beside(&frozen);
                let n = self.below(3);
                lines.push(Self::marker(self.block(&mid, n)));
                lines.push(format!("POP!({s}, {w})"));
                lines.push(format!("{w} -= {e}"));
                lines.push(format!("{w} → 0.0"));
            }
            2 => {
                let (e, reads) = if self.chance(30) {
                    self.int_value(ctx, &no_f32)
                } else {
                    self.real_value(ctx, &no_f32)
                };
                lines.push(format!("COPYPUSH!({s}, {e})"));
                let mut frozen = reads;
                frozen.push(s.clone());
                let mid = inner.beside(&frozen);
                let n = self.below(3);
                lines.push(Self::marker(self.block(&mid, n)));
                lines.push(format!("COPYPOP!({s}, {e})"));
            }
            _ => {
                // A variable of the element type moved through the stack.
                let p = self.any_place(ctx, &[elem])?;
                self.write(&p.root);
                lines.push(format!("PUSH!({s}, {})", p.text));
                let mid = inner.beside([&s, &p.root]);
                let n = self.below(2);
                lines.push(Self::marker(self.block(&mid, n)));
                lines.push(format!("POP!({s}, {})", p.text));
            }
        }
        tail.reverse();
        let on = if tail.is_empty() {
            "a Stack{f64} parameter".to_string()
        } else {
            format!("a {} ancilla", inner.vars.last().unwrap().ty.nil())
        };
        let what = match kind {
            0 | 1 => "PUSH!/POP! of an f64 ancilla",
            2 => "COPYPUSH!/COPYPOP!",
            _ => "PUSH!/POP! of a variable",
        };
        self.note(format!("{what} on {on}"));
        lines.extend(tail);
        Some(Self::lines(ctx, &lines))
    }

    /// An ancilla cast to another type, used, and cast back.
    fn cast_pattern(&mut self, ctx: &Ctx) -> Option<String> {
        if self.generic {
            return None;
        }
        let t = self.fresh("w");
        let mut lines = Vec::new();
        // (initial value, compute reads, from, to, use line builder)
        let (init, compute, from, to) = match self.below(6) {
            0 => (format!("{}.0", 1 + self.below(3)), None, F64, I64),
            1 => {
                let (e, r) = self.int_value(ctx, &[]);
                ("0".to_string(), Some((e, r)), I64, F64)
            }
            2 => {
                let (e, r) = self.real_value(ctx, &[]);
                ("0.0".to_string(), Some((e, r)), F64, C64)
            }
            3 => ("0.5".to_string(), None, F64, F32),
            4 => {
                let (e, r) = self.int_value(ctx, &[]);
                ("0".to_string(), Some((e, r)), I64, I32)
            }
            _ => ("1".to_string(), None, I64, F32),
        };
        let name = |ty: Ty| match ty {
            C64 => "Complex{f64}",
            other => other.nil(),
        };
        lines.push(format!("{t} ← {init}"));
        let mut frozen = vec![t.clone()];
        if let Some((e, r)) = &compute {
            lines.push(format!("{t} += {e}"));
            frozen.extend(r.iter().cloned());
        }
        lines.push(format!("({} => {})({t})", name(from), name(to)));
        let use_ctx = ctx.with_var(&t, to).beside(&frozen);
        let use_line = match to {
            I64 | I32 => {
                let p = self.any_place(&use_ctx, &[I64, I32, F64])?;
                self.write(&p.root);
                format!("{} += {t}", p.text)
            }
            C64 => {
                let p = self.any_place(&use_ctx, &[C64, F64])?;
                self.write(&p.root);
                if p.ty == C64 {
                    format!("{} += {t} * 0.5", p.text)
                } else {
                    format!("{} += abs2({t})", p.text)
                }
            }
            _ => {
                let p = self.any_place(&use_ctx, &[F64, F32])?;
                self.write(&p.root);
                format!("{} += sin({t})", p.text)
            }
        };
        lines.push(use_line);
        self.note(format!(
            "typecast ({} => {}) and back",
            name(from),
            name(to)
        ));
        lines.push(format!("({} => {})({t})", name(to), name(from)));
        if let Some((e, _)) = &compute {
            lines.push(format!("{t} -= {e}"));
        }
        lines.push(format!("{t} → {init}"));
        Some(Self::lines(ctx, &lines))
    }

    /// A `Pt` ancilla: constructed, changed, used, changed back, destroyed;
    /// or copied from a struct variable.
    fn struct_pattern(&mut self, ctx: &Ctx) -> Option<String> {
        if self.generic {
            return None;
        }
        let w = self.fresh("w");
        let pts: Vec<String> = self.vars_of(ctx, Pt, &[]);
        let (init, reads) = if !pts.is_empty() && self.chance(30) {
            let p = self.pick(&pts).unwrap();
            (p.clone(), vec![p])
        } else {
            let (a, r) = self.real_value(ctx, &[]);
            let lit = self.lit();
            // `0.5 *` first: the checker takes the struct's `T` from the
            // leftmost operand (`Pt(sin(n) * x, 0.5)` is a `Pt{i64}`).
            (format!("Pt(0.5 * {a}, {lit})"), r)
        };
        let mut lines = vec![format!("{w} ← {init}")];
        let (shift, shift_reads) = self.real_value(ctx, &[]);
        let field = if self.chance(50) { "x" } else { "y" };
        lines.push(format!("{w}.{field} += {shift}"));
        let mut frozen = reads;
        frozen.extend(shift_reads);
        frozen.push(w.clone());
        let use_ctx = ctx.with_var(&w, Pt).beside(&frozen);
        let p = self.any_place(&use_ctx, &[F64, F32])?;
        self.write(&p.root);
        if self.chance(50) {
            lines.push(format!("{} += sin({w}.x) * cos({w}.y)", p.text));
        } else {
            lines.push(format!("{} += sin({w}.{field})", p.text));
        }
        lines.push(format!("{w}.{field} -= {shift}"));
        lines.push(format!("{w} → {init}"));
        self.note(if init.starts_with("Pt(") {
            "a Pt ancilla constructed from values"
        } else {
            "a Pt ancilla copied from a Pt variable"
        });
        Some(Self::lines(ctx, &lines))
    }

    /// Two places with one root: `v[1] += sin(v[3])`, `p.x -= p.y`.
    fn same_root(&mut self, ctx: &Ctx) -> Option<String> {
        let mut options = Vec::new();
        for v in &ctx.vars {
            if ctx.frozen.contains(&v.name) {
                continue;
            }
            if v.ty == Arr {
                options.push((
                    format!("{}[1]", v.name),
                    format!("{}[3]", v.name),
                    v.name.clone(),
                ));
                options.push((
                    format!("{}[4]", v.name),
                    format!("{}[2]", v.name),
                    v.name.clone(),
                ));
            }
            if v.ty == Pt {
                options.push((
                    format!("{}.x", v.name),
                    format!("{}.y", v.name),
                    v.name.clone(),
                ));
                options.push((
                    format!("{}.y", v.name),
                    format!("{}.x", v.name),
                    v.name.clone(),
                ));
            }
        }
        let (a, b, root) = self.pick(&options)?;
        self.write(&root);
        self.note("two places of one variable in one instruction");
        let line = match self.below(3) {
            0 => format!("{a} += sin({b})"),
            1 => format!("{a} -= {b} * 0.5"),
            _ => format!("SWAP({a}, {b})"),
        };
        Some(Self::lines(ctx, &[line]))
    }

    fn broadcast(&mut self, ctx: &Ctx) -> Option<String> {
        let arrays: Vec<String> = self.vars_of(ctx, Arr, &[]);
        let writable: Vec<String> = arrays
            .iter()
            .filter(|a| !ctx.frozen.contains(*a))
            .cloned()
            .collect();
        let a = self.pick(&writable)?;
        let others: Vec<String> = arrays.into_iter().filter(|b| *b != a).collect();
        let b = self.pick(&others)?;
        self.write(&a);
        let op = if self.chance(50) { ".+=" } else { ".-=" };
        self.note("broadcast on [f64]");
        Some(Self::lines(ctx, &[format!("{a} {op} sin.({b})")]))
    }

    // ---- type mixes ----

    /// A statement that mixes types on purpose (the checker should
    /// reject most of these; whatever it accepts must still compile).
    fn mixed(&mut self, ctx: &Ctx) -> Option<String> {
        let f64s = self.places(ctx, F64);
        let writable_var = |g: &mut Generator, ty: Ty| -> Option<String> {
            let v = g.vars_of(ctx, ty, &[]);
            let v: Vec<String> = v.into_iter().filter(|x| !ctx.frozen.contains(x)).collect();
            g.pick(&v)
        };
        let any_var = |g: &mut Generator, ty: Ty| -> Option<String> {
            let v = g.vars_of(ctx, ty, &[]);
            g.pick(&v)
        };
        let target = self.pick(&f64s);
        // 0..=28: a statement; the rest (one in six): a call.
        let kind = self.below(35);
        let (what, line, root) = match kind {
            0 => {
                let n = writable_var(self, I64).or_else(|| writable_var(self, I32))?;
                let (a, _) = self.real_value(ctx, std::slice::from_ref(&n));
                (
                    "a float into an integer place",
                    format!("{n} += {a} * 1.5"),
                    n,
                )
            }
            1 => {
                let t = target?;
                let v = any_var(self, Arr)?;
                (
                    "an array into a scalar",
                    format!("{} += {v}", t.text),
                    t.root,
                )
            }
            2 => {
                let v = writable_var(self, Arr)?;
                let (a, _) = self.real_value(ctx, std::slice::from_ref(&v));
                ("`+=` on a whole array", format!("{v} += {a}"), v)
            }
            3 => {
                let t = target?;
                let z = any_var(self, C64)?;
                (
                    "a complex value into a real place",
                    format!("{} += {z}", t.text),
                    t.root,
                )
            }
            4 => {
                let l = writable_var(self, ULog)?;
                let q = any_var(self, Fixed)?;
                ("a Fixed43 into a log number", format!("{l} *= {q}"), l)
            }
            5 => {
                let q = writable_var(self, Fixed)?;
                let l = any_var(self, ULog)?;
                ("a log number into a Fixed43", format!("{q} += {l}"), q)
            }
            6 => {
                let t = target?;
                (
                    "one number system into another",
                    format!("{} += float(ulog(fixed(1.5)))", t.text),
                    t.root,
                )
            }
            7 => {
                let t = target?;
                let x = self.vars_of(ctx, F64, std::slice::from_ref(&t.root));
                let x = self.pick(&x)?;
                ("indexing a scalar", format!("{} += {x}[1]", t.text), t.root)
            }
            8 => {
                let a = writable_var(self, F64)?;
                let b = writable_var(self, F32)
                    .or_else(|| writable_var(self, I64))
                    .or_else(|| writable_var(self, C64))?;
                ("SWAP of two types", format!("SWAP({a}, {b})"), a)
            }
            9 => {
                let l = writable_var(self, ULog)?;
                ("`+=` on a log number", format!("{l} += 2.0"), l)
            }
            10 => {
                let t = writable_var(self, Trop)?;
                (
                    "tropical `+=` outside a tape loop",
                    format!("{t} += tropical(1.0)"),
                    t,
                )
            }
            11 => {
                let a = writable_var(self, F64)?;
                ("`*=` on a float", format!("{a} *= 2.0"), a)
            }
            12 => {
                let t = target?;
                let p = any_var(self, Pt)?;
                if p == t.root {
                    return None;
                }
                (
                    "a whole struct as a number",
                    format!("{} += {p}", t.text),
                    t.root,
                )
            }
            13 => {
                let t = target?;
                let s = any_var(self, Stack)?;
                ("a stack as a number", format!("{} += {s}", t.text), t.root)
            }
            14 => {
                let s = writable_var(self, Stack)?;
                let n = writable_var(self, I64)?;
                (
                    "an integer pushed onto a float stack",
                    format!("PUSH!({s}, {n})\nPOP!({s}, {n})"),
                    s,
                )
            }
            15 => {
                let t = target?;
                let c = any_var(self, Bool)?;
                (
                    "a boolean into a float",
                    format!("{} += {c}", t.text),
                    t.root,
                )
            }
            16 => {
                let a = any_var(self, F64)?;
                let t = self.any_place(ctx, &[F64, F32])?;
                if t.root == a {
                    return None;
                }
                (
                    "a non-boolean condition",
                    format!("if ({a}, ~)\n>{} += 0.5\nend", t.text),
                    t.root,
                )
            }
            17 => {
                let a = writable_var(self, F64)?;
                let b = self.vars_of(ctx, F64, std::slice::from_ref(&a));
                let b = self.pick(&b)?;
                ("`⊻=` on floats", format!("{a} ⊻= {b}"), a)
            }
            18 => {
                // A cast whose source type is not the ancilla's.
                let w = self.fresh("w");
                let t = self.any_place(ctx, &[F64])?;
                (
                    "a typecast from the wrong type",
                    format!(
                        "{w} ← 0.0\n(i64 => f64)({w})\n{} += {w}\n(f64 => i64)({w})\n{w} → 0.0",
                        t.text
                    ),
                    t.root,
                )
            }
            19 => {
                let a = writable_var(self, F64)?;
                (
                    "a typecast of a parameter",
                    format!("(f64 => f32)({a})\n(f32 => f64)({a})"),
                    a,
                )
            }
            20 => {
                let w = self.fresh("w");
                let to = self.pick(&["Fixed43", "bool", "ULogarithmic{f64}", "Tropical{f64}"])?;
                let t = self.any_place(ctx, &[F64])?;
                (
                    "a typecast to a number system or bool",
                    format!(
                        "{w} ← 1.0\n(f64 => {to})({w})\n{} += float({w})\n({to} => f64)({w})\n{w} → 1.0",
                        t.text
                    ),
                    t.root,
                )
            }
            21 => {
                let n = writable_var(self, I64).or_else(|| writable_var(self, I32))?;
                ("MULINT by a float", format!("MULINT({n}, 1.5)"), n)
            }
            22 => {
                let a = writable_var(self, F64)?;
                let n = writable_var(self, I64)?;
                (
                    "ROT of a float and an integer",
                    format!("ROT({a}, {n}, 0.5)"),
                    a,
                )
            }
            23 => {
                let l = writable_var(self, ULog).or_else(|| writable_var(self, Trop))?;
                ("NEG of a log or tropical number", format!("NEG({l})"), l)
            }
            24 => {
                let q = writable_var(self, Fixed)?;
                let z = any_var(self, C64)?;
                ("a complex value into a Fixed43", format!("{q} += {z}"), q)
            }
            25 => {
                let z = writable_var(self, C64)?;
                let q = any_var(self, Fixed)?;
                ("a Fixed43 into a complex place", format!("{z} += {q}"), z)
            }
            26 => {
                let p = writable_var(self, Pt)?;
                ("a field the struct lacks", format!("{p}.z += 1.0"), p)
            }
            27 => {
                let t = target?;
                let w = self.fresh("w");
                (
                    "a construction with too few values",
                    format!("{w} ← Pt(0.5)\n{} += {w}.x\n{w} → Pt(0.5)", t.text),
                    t.root,
                )
            }
            28 => {
                let l = writable_var(self, Trop)?;
                let u = any_var(self, ULog)?;
                ("a log number into a tropical one", format!("{l} *= {u}"), l)
            }
            _ => return self.mixed_call(ctx),
        };
        let lines: Vec<String> = line.split('\n').map(str::to_string).collect();
        self.write(&root);
        self.mix(what, &lines.join("; "));
        Some(Self::lines(ctx, &lines))
    }

    /// A call whose arguments do not fit the callee: an `f32` or an
    /// integer for a changed `f64`, an array for a scalar, a scalar for an
    /// array, two types for one type parameter.
    fn mixed_call(&mut self, ctx: &Ctx) -> Option<String> {
        if ctx.callees == 0 {
            return None;
        }
        let k = self.below(ctx.callees);
        let sig = self.sigs[k].clone();
        if sig.grows && (!ctx.loops.is_empty() || ctx.depth > 2) {
            return None;
        }
        let (mut args, gen_ty) = self.arguments(ctx, &sig, &[])?;
        let used: Vec<String> = args.iter().map(|a| a.1.clone()).collect();
        let k = self.below(args.len());
        let p = &sig.params[k];
        let w = sig.written[k];
        let free = |g: &mut Generator, ty: Ty| -> Option<String> {
            let v: Vec<String> = g
                .vars_of(ctx, ty, &used)
                .into_iter()
                .filter(|x| !ctx.frozen.contains(x))
                .collect();
            g.pick(&v)
        };
        let mut pre = Vec::new();
        let mut post = Vec::new();
        let (what, arg) = match p.ty {
            Gen => {
                // Two types for `T`: the other float type than the one
                // the other arguments gave it.
                if self.generic || sig.params.iter().filter(|q| q.ty == Gen).count() < 2 {
                    return None;
                }
                let other = if gen_ty == F32 { F64 } else { F32 };
                ("two types for one type parameter", free(self, other)?)
            }
            F64 if w => {
                let other = if self.chance(50) { F32 } else { I64 };
                (
                    "an argument of another type for a changed parameter",
                    free(self, other)?,
                )
            }
            F64 | F32 | I64 | I32 | C64 | Fixed | ULog | Trop => {
                ("an array for a scalar parameter", free(self, Arr)?)
            }
            Arr => ("a scalar for an array parameter", free(self, F64)?),
            Pt => ("a number for a struct parameter", free(self, F64)?),
            Stack if self.chance(50) => ("an array for a stack parameter", free(self, Arr)?),
            Stack => {
                let st = self.fresh("st");
                let of = match self.pick(&self.vars_of(ctx, C64, &[])) {
                    Some(z) if self.chance(50) => z,
                    _ => "i64".to_string(),
                };
                pre.push(format!("{st} ← stack({of})"));
                post.push(format!("{st} → stack({of})"));
                ("a stack of another element type for a stack parameter", st)
            }
            _ => return None,
        };
        args[k] = (arg.clone(), arg.clone());
        self.called(&sig, &args, gen_ty, "");
        let list: Vec<String> = args.into_iter().map(|a| a.0).collect();
        let line = format!("{}({})", sig.name, list.join(", "));
        self.mix(what, &line);
        pre.push(line);
        pre.extend(post);
        Some(Self::lines(ctx, &pre))
    }
}

//! `@store @routine` in a reverse pass: the local derivatives of the
//! routine's costly instructions are kept on a tape instead of derived again.
//!
//! A reverse pass runs a routine `R` forwards, then the rules of what
//! follows it, then the rules of `~R`, whose instruction `y -= e` (undoing
//! `R`'s `y += e`) sends `ȳ` to what `e` reads, times `e`'s local
//! derivatives. Those are read off the state after `R`'s `y += e`, which is
//! the state `~R` has restored when it reaches the rule (`y += e` cannot
//! read `y`). Under `@store`, `R`'s run pushes each such derivative, after
//! its instruction, on a tape local to the routine, and `~R`'s rule pops
//! them instead of computing them: the two runs visit the instructions in
//! opposite orders, loops and branches included, so a stack gives each rule
//! the values its instruction pushed. Only instructions whose right-hand
//! side calls an elementary function or raises to a power store (the
//! analysis's `storing::worth_storing`, which also warns, W0412, where a
//! `@store` keeps nothing). Nested
//! routine pairs are left out on both sides (a nested `@store @routine`
//! keeps its own tape). Real adjoints store: `f32`, `f64`, or a type
//! parameter (`T: nilang::Real`, `'static`), whose values the tape keeps in
//! its typed buffer once monomorphized.
//!
//! `~R` still runs its updates: they restore what branches, loops and
//! indices read and what the checks compare, and without checks the
//! updates of scratch ancillas nothing reads are left out as before
//! (`dead_scratch_updates`). The interpreter recomputes: `@store` changes
//! how long a gradient takes and how much memory it holds, never its value
//! beyond rounding (a stored derivative is the one at the forward's values,
//! a recomputed one at the values the uncomputation restored).

use super::*;
use crate::tape::TapeMode;
use nilang_analysis::storing::worth_storing;

/// The tape of the `@store @routine` whose run or `~@routine` is being
/// generated.
#[derive(Clone)]
pub(crate) struct Store {
    pub(crate) tape: String,
    pub(crate) mode: TapeMode,
}

/// A rule whose local derivatives a stored routine keeps: the adjoint it
/// sends on, its sign, the lines its derivatives need first, the codes of
/// the values on the tape (each once: `y += exp(a - b)` stores `exp(a - b)`
/// for both `a` and `b`), and each receiving adjoint with the value it
/// reads and whether negated.
pub(crate) struct StoredRule {
    target_bar: String,
    sign_plus: bool,
    lets: Vec<String>,
    values: Vec<String>,
    partials: Vec<(String, usize, bool)>,
}

/// The values a rule's derivatives take, each once, a derivative that is
/// another's negation (`(-code)`) reading it negated; each derivative's
/// value and whether it is negated.
fn distinct(codes: Vec<String>) -> (Vec<String>, Vec<(usize, bool)>) {
    let mut values: Vec<String> = Vec::new();
    let mut reads = Vec::new();
    for code in codes {
        let negation = |v: &String| code == format!("(-{v})") || *v == format!("(-{code})");
        if let Some(at) = values.iter().position(|v| *v == code) {
            reads.push((at, false));
        } else if let Some(at) = values.iter().position(negation) {
            reads.push((at, true));
        } else {
            values.push(code);
            reads.push((values.len() - 1, false));
        }
    }
    (values, reads)
}

impl Gen<'_> {
    /// The tape of the stored routine being generated, when this run of it
    /// is the one that works the tape in `mode` (pushes in `R`, pops in `~R`).
    fn store_tape(&self, mode: TapeMode) -> Option<String> {
        match &self.store {
            Some(Store { tape, mode: m }) if *m == mode => Some(tape.clone()),
            _ => None,
        }
    }

    /// Whether this reverse pass's adjoints are real numbers that a tape
    /// keeps: `f32`, `f64` or a type parameter (`T: nilang::Real`).
    pub(crate) fn stores_adjoint_scalars(&self) -> bool {
        matches!(self.ad_kind(), Kind::Float(_) | Kind::Generic(_))
    }

    /// The rule of `target op= value` in `~R` when it takes its derivatives
    /// from a tape: asked with `R`'s instruction inverted on the pushing
    /// side and with `~R`'s on the popping side, so that both decide alike.
    /// `None` for an instruction that stores nothing.
    pub(crate) fn stored_rule(
        &mut self,
        target: &Expr,
        op: InstrOp,
        value: &Expr,
    ) -> Option<StoredRule> {
        if !self.stores_adjoint_scalars() || !worth_storing(value) {
            return None;
        }
        let sign_plus = match op {
            InstrOp::Sub => true,
            InstrOp::Add => false,
            _ => return None,
        };
        let (_, kind, negated) = self.whole(|g| g.lvalue(target))?;
        if !differentiable(&kind) || matches!(kind, Kind::Complex(_)) || self.has_complex(value) {
            return None;
        }
        let target_bar = self.bar_place(target)?;
        let (lets, partials) = self.bound_partials(value);
        let (bars, codes): (Vec<String>, Vec<String>) = partials
            .into_iter()
            .filter_map(|(leaf, code)| Some((self.bar_elem(&leaf)?, code)))
            .unzip();
        let (values, reads) = distinct(codes);
        (!bars.is_empty()).then_some(StoredRule {
            target_bar,
            sign_plus: sign_plus != negated,
            lets,
            values,
            partials: bars
                .into_iter()
                .zip(reads)
                .map(|(bar, (at, negate))| (bar, at, negate))
                .collect(),
        })
    }

    /// After `R`'s instruction `target op= value`, under `@store`: push the
    /// local derivatives that `~R`'s rule of its inverse will pop.
    pub(crate) fn push_stored(&mut self, target: &Expr, op: InstrOp, value: &Expr) {
        let Some(tape) = self.store_tape(TapeMode::Push) else {
            return;
        };
        let Some(rule) = self.stored_rule(target, op.inverse(), value) else {
            return;
        };
        let scalar = self.ad_scalar();
        for l in rule.lets {
            self.line(&l);
        }
        for code in rule.values {
            self.line(&format!("{tape}.push::<{scalar}>({code});"));
        }
    }

    /// In the run of a stored routine, the line that makes room on its tape
    /// before a `for` of `count` iterations for what the loop's own
    /// instructions push (nested loops and branches reserve or grow on
    /// their own); `None` elsewhere or when they push nothing.
    pub(crate) fn stored_reserve(&mut self, count: &str, body: &[Stmt]) -> Option<String> {
        let tape = self.store_tape(TapeMode::Push)?;
        // Deciding emits no code, but keep whatever it might write out.
        let (out, tmp) = (self.out.len(), self.tmp);
        let mut per = 0;
        for s in body {
            if let StmtKind::Instr {
                target,
                op,
                broadcast: false,
                value,
                ..
            } = &s.kind
                && let Some(rule) = self.stored_rule(target, op.inverse(), value)
            {
                per += rule.values.len();
            }
        }
        self.out.truncate(out);
        self.tmp = tmp;
        let scalar = self.ad_scalar();
        (per > 0).then(|| {
            format!("{tape}.reserve::<{scalar}>(({count} as usize).saturating_mul({per}));")
        })
    }

    /// In `~R` under `@store`, the rule of `target op= value` with its local
    /// derivatives popped (last pushed, first popped); `false` when the
    /// instruction stores nothing and its rule is derived as usual.
    pub(crate) fn pop_stored(
        &mut self,
        target: &Expr,
        op: InstrOp,
        value: &Expr,
        span: Span,
    ) -> bool {
        let Some(tape) = self.store_tape(TapeMode::Pop) else {
            return false;
        };
        let Some(rule) = self.stored_rule(target, op, value) else {
            return false;
        };
        let scalar = self.ad_scalar();
        let location = self.location(span);
        let g = self.fresh("g");
        self.line(&format!("let {g} = {};", rule.target_bar));
        let names: Vec<String> = rule.values.iter().map(|_| self.fresh("d")).collect();
        for d in names.iter().rev() {
            self.line(&format!("let {d} = {tape}.pop::<{scalar}>({location})?;"));
        }
        for (bar, at, negate) in &rule.partials {
            let d = &names[*at];
            let s = if rule.sign_plus != *negate {
                d.clone()
            } else {
                format!("(-{d})")
            };
            let l = self.add_scaled(bar, &g, &s);
            self.line(&l);
        }
        true
    }
}

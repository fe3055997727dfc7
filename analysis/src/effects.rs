//! Which parameters a function changes.
//!
//! A parameter is mutated when it is the target of an instruction, an
//! allocation or a typecast, or is passed where a callee mutates. Calls make
//! this a fixpoint over the call graph (recursion included): [`local_effects`]
//! reads one function, [`solve`] closes over the project.

use rustc_hash::{FxHashMap, FxHashSet};

use crate::ast::*;
use crate::builtins;

/// One function's own writes and the calls that may add more.
#[derive(Clone, PartialEq, Eq, Hash, Debug, Default)]
pub struct LocalEffects {
    pub arity: usize,
    /// Parameters written directly.
    pub writes: Vec<usize>,
    /// `(callee, argument position, parameter passed there)`.
    pub forwards: Vec<(String, usize, usize)>,
    /// Which parameters have a companion in the function's derivative
    /// calls (`crate::derivatives`), where it has them.
    pub companions: Option<Vec<bool>>,
}

pub fn local_effects(function: &Function) -> LocalEffects {
    let params: FxHashMap<&str, usize> = function
        .params
        .iter()
        .enumerate()
        .map(|(i, p)| (p.name.name.as_str(), i))
        .collect();
    let mut out = LocalEffects {
        arity: function.params.len(),
        companions: crate::derivatives::companions(function).ok(),
        ..LocalEffects::default()
    };
    let mut writes = FxHashSet::default();
    // A call of a function passed in (`f::Fn<..>`) may change every
    // argument (see `crate::values`).
    let function_values: Vec<&str> = crate::values::function_params(function)
        .into_iter()
        .map(|(_, name, _)| name)
        .collect();
    visit_block(&function.body, &mut |stmt| match &stmt.kind {
        StmtKind::Instr { target, .. } => {
            let targets = match &target.kind {
                ExprKind::Tuple(items) => items.iter().collect(),
                _ => vec![target],
            };
            for t in targets {
                if let Some(&p) = t.root_var().and_then(|(n, _)| params.get(n)) {
                    writes.insert(p);
                }
            }
        }
        StmtKind::Typecast { value, .. } => {
            if let Some(&p) = value.root_var().and_then(|(n, _)| params.get(n)) {
                writes.insert(p);
            }
        }
        StmtKind::Call(call) => {
            let fixed = builtins::instruction(&call.callee.name).map(|i| i.mutates);
            let value = function_values.contains(&call.callee.name.as_str());
            for (pos, arg) in call.args.iter().enumerate() {
                let Some(&p) = arg.root_var().and_then(|(n, _)| params.get(n)) else {
                    continue;
                };
                if value {
                    writes.insert(p);
                    continue;
                }
                match fixed {
                    Some(mutates) if mutates.contains(&pos) => {
                        writes.insert(p);
                    }
                    Some(_) => {}
                    None => out.forwards.push((call.callee.name.clone(), pos, p)),
                }
            }
        }
        _ => {}
    });
    out.writes = writes.into_iter().collect();
    out.writes.sort_unstable();
    out.forwards.sort();
    out.forwards.dedup();
    out
}

/// For each function, which of its parameters it mutates.
pub type Mutations = FxHashMap<String, Vec<bool>>;

pub fn solve<'a>(functions: impl IntoIterator<Item = (&'a str, &'a LocalEffects)>) -> Mutations {
    let functions: Vec<(&str, &LocalEffects)> = functions.into_iter().collect();
    let mut index: FxHashMap<&str, usize> = FxHashMap::default();
    index.reserve(functions.len());
    index.extend(
        functions
            .iter()
            .enumerate()
            .map(|(i, (name, _))| (*name, i)),
    );
    let mut result: Vec<Vec<bool>> = functions
        .iter()
        .map(|(_, fx)| {
            let mut m = vec![false; fx.arity];
            for &w in &fx.writes {
                m[w] = true;
            }
            m
        })
        .collect();
    // A derivative call changes its companions and what its function changes.
    let companions: FxHashMap<&str, &[bool]> = functions
        .iter()
        .filter_map(|(name, fx)| Some((*name, fx.companions.as_deref()?)))
        .collect();
    // The call graph reversed: per callee, `(caller, the callee's parameter,
    // the caller's parameter passed there)`. A call of a derived function
    // `∇f` depends on `f`'s parameter, or changes a companion outright.
    let mut callers: Vec<Vec<(usize, usize, usize)>> = vec![Vec::new(); functions.len()];
    for (caller, (_, fx)) in functions.iter().enumerate() {
        for (callee, pos, param) in &fx.forwards {
            if let Some(&j) = index.get(callee.as_str()) {
                if *pos < functions[j].1.arity {
                    callers[j].push((caller, *pos, *param));
                }
                continue;
            }
            let Some((_, base)) = crate::derivatives::Derivative::of(callee) else {
                continue;
            };
            let (Some(mask), Some(&j)) = (companions.get(base), index.get(base)) else {
                continue;
            };
            match crate::derivatives::positions(mask).get(*pos) {
                Some(&(_, true)) => result[caller][*param] = true,
                Some(&(k, false)) if k < functions[j].1.arity => {
                    callers[j].push((caller, k, *param))
                }
                _ => {}
            }
        }
    }
    // A worklist: each function whose mutations grew passes them on to its
    // callers, so the fixpoint costs one visit per call edge and change
    // (it is solved again when an edit changes a function's own effects).
    let mut work: Vec<usize> = (0..functions.len()).collect();
    while let Some(callee) = work.pop() {
        for &(caller, k, param) in &callers[callee] {
            if result[callee][k] && !result[caller][param] {
                result[caller][param] = true;
                work.push(caller);
            }
        }
    }
    let mut out: Mutations = FxHashMap::default();
    out.reserve(functions.len() + 2 * companions.len());
    for (name, mask) in &companions {
        let derived = crate::derivatives::mutated(&result[index[name]], mask);
        for d in [
            crate::derivatives::Derivative::Gradient,
            crate::derivatives::Derivative::Tangent,
        ] {
            out.insert(d.name(name), derived.clone());
        }
    }
    for ((name, _), m) in functions.iter().zip(result) {
        // A derived function's entry stands (as it did when these were
        // inserted first).
        out.entry(name.to_string()).or_insert(m);
    }
    out
}

/// Calls `f` on every statement, depth first, including the inverse of the
/// statements under `~` (the same statements, so the same effects).
pub fn visit_block<'a>(block: &'a Block, f: &mut dyn FnMut(&'a Stmt)) {
    for stmt in &block.stmts {
        visit_stmt(stmt, f);
    }
}

pub fn visit_stmt<'a>(stmt: &'a Stmt, f: &mut dyn FnMut(&'a Stmt)) {
    f(stmt);
    match &stmt.kind {
        StmtKind::If {
            branches,
            otherwise,
        } => {
            for b in branches {
                visit_block(&b.body, f);
            }
            if let Some(block) = otherwise {
                visit_block(block, f);
            }
        }
        StmtKind::While { body, .. } | StmtKind::For { body, .. } | StmtKind::Begin(body) => {
            visit_block(body, f)
        }
        StmtKind::Inverse(inner)
        | StmtKind::Routine(inner)
        | StmtKind::Tape(inner)
        | StmtKind::InvCheckOff(inner)
        | StmtKind::InBounds(inner) => visit_stmt(inner, f),
        _ => {}
    }
}

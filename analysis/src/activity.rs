//! Activity analysis: which variables of a function can carry a derivative.
//!
//! A parameter declared `Const<T>` is data: the gradient program gives it
//! no adjoint and does no adjoint work for it (Enzyme's `Const`, where every
//! other differentiable parameter is `Duplicated`). What is computed only
//! from constants is constant too: an ancilla that no active value flows
//! into keeps a zero adjoint in every run, so the backends drop it and the
//! adjoint rules that would write or read it.
//!
//! The analysis is a forward "varied" analysis over variables (not over
//! versions of them): the differentiable parameters that are not `Const`
//! are active, and a statement that reads or writes an active variable makes
//! every variable it writes active, until nothing changes, except variables
//! whose type holds no derivative (integers, `bool`s, arrays of them): a
//! size read from an active array does not make what it sizes active. Control flow
//! carries no derivative; a deallocation only checks its variable; `@safe`
//! may write anything it names.

use crate::ast::*;
use crate::builtins;
use crate::effects::visit_block;
use crate::resolve::{DefId, DefKind, Resolution};
use crate::ty::Ty;
use crate::types::FunctionTypes;

/// Which definitions of a function (by [`DefId`]) carry a derivative.
#[derive(Clone, PartialEq, Eq, Hash, Debug, Default)]
pub struct Activity {
    pub active: Vec<bool>,
}

impl Activity {
    /// Whether the definition carries a derivative; `true` for an unknown
    /// one, so that a gap never drops a derivative.
    pub fn is_active(&self, def: DefId) -> bool {
        self.active.get(def).copied().unwrap_or(true)
    }
}

/// The activity of `function`'s definitions. `mutated(call)` tells which
/// parameters the callee of a call changes (`None`: unknown, every
/// argument may be); for a template, those of the instance the call
/// reaches (`check::CalleeInfo::call_mutations`).
pub fn activity(
    function: &Function,
    resolution: &Resolution,
    types: &FunctionTypes,
    mutated: &dyn Fn(&Call) -> Option<Vec<bool>>,
) -> Activity {
    let mut active = vec![false; resolution.defs.len()];
    for (id, def) in resolution.defs.iter().enumerate() {
        if let DefKind::Param(i) = def.kind {
            let constant = function.params.get(i).is_some_and(|p| p.constant);
            let has_adjoint = types.defs.get(id).is_some_and(|t| t.has_adjoint());
            active[id] = has_adjoint && !constant;
        }
    }
    // Each leaf statement as (the definitions it reads or writes, those it
    // writes), collected once.
    // A variable whose type carries no derivative (an integer, a `bool`,
    // an array of them) never becomes active, so that `m ← length(x)`
    // does not make what is sized by `m` active.
    // A variable's type here is the one it is allocated with: a typecast
    // (`(i64 => f64)(z)`) can make an integer ancilla a float, so a
    // variable a typecast names is never taken for discrete.
    let mut discrete: Vec<bool> = (0..resolution.defs.len())
        .map(|id| types.defs.get(id).is_some_and(Ty::is_discrete))
        .collect();
    let mut flows: Vec<(Vec<DefId>, Vec<DefId>)> = Vec::new();
    visit_block(&function.body, &mut |stmt| {
        if let StmtKind::Typecast { value, .. } = &stmt.kind {
            for id in resolution.defs_in(value.span) {
                discrete[id] = false;
            }
        }
        if let Some(flow) = leaf_flow(stmt, resolution, mutated) {
            flows.push(flow);
        }
    });
    loop {
        let mut changed = false;
        for (touched, written) in &flows {
            if touched.iter().any(|&d| active[d]) {
                for &w in written {
                    if !active[w] && !discrete[w] {
                        active[w] = true;
                        changed = true;
                    }
                }
            }
        }
        if !changed {
            return Activity { active };
        }
    }
}

/// The definitions a leaf statement touches, and those it writes; `None`
/// for a statement with a body (its leaves are visited on their own).
fn leaf_flow(
    stmt: &Stmt,
    resolution: &Resolution,
    mutated: &dyn Fn(&Call) -> Option<Vec<bool>>,
) -> Option<(Vec<DefId>, Vec<DefId>)> {
    let root = |e: &Expr| e.root_var().and_then(|(_, span)| resolution.def_at(span));
    let written: Vec<DefId> = match &stmt.kind {
        StmtKind::If { .. }
        | StmtKind::While { .. }
        | StmtKind::For { .. }
        | StmtKind::Begin(_)
        | StmtKind::Inverse(_)
        | StmtKind::Routine(..)
        | StmtKind::Tape(_)
        | StmtKind::InvCheckOff(_)
        | StmtKind::InBounds(_)
        | StmtKind::Unroutine => return None,
        StmtKind::Instr { target, .. } => match &target.kind {
            ExprKind::Tuple(items) => items.iter().filter_map(root).collect(),
            _ => root(target).into_iter().collect(),
        },
        StmtKind::Alloc { name, .. } => resolution.def_at(name.span).into_iter().collect(),
        // A deallocation checks its variable and frees it: nothing flows.
        StmtKind::Dealloc { .. } => Vec::new(),
        StmtKind::Typecast { value, .. } => root(value).into_iter().collect(),
        StmtKind::Call(call) => {
            let positions = match builtins::instruction(&call.callee.name) {
                Some(i) => Some(
                    (0..call.args.len())
                        .map(|p| i.mutates.contains(&p))
                        .collect::<Vec<_>>(),
                ),
                None => mutated(call),
            };
            call.args
                .iter()
                .enumerate()
                .filter(|(p, _)| {
                    positions
                        .as_ref()
                        .is_none_or(|m| m.get(*p).copied().unwrap_or(true))
                })
                .filter_map(|(_, a)| root(a))
                .collect()
        }
        // `@safe`: every variable in it.
        StmtKind::Safe(_) => resolution.defs_in(stmt.span).collect(),
    };
    Some((resolution.defs_in(stmt.span).collect(), written))
}

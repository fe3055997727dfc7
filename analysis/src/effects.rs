//! Which parameters a function changes.
//!
//! A parameter is mutated when it is the target of an instruction, an
//! allocation or a typecast, or is passed where a callee mutates. Calls make
//! this a fixpoint over the call graph (recursion included): [`local_effects`]
//! reads one function, [`solve`] closes over the project.
//!
//! A template (a function with `Fn` parameters, `crate::values`) changes
//! what the functions passed to it change, so the fixpoint has a node per
//! instance a call reaches besides one per function: a call of
//! `i_map!(square!, ys!, xs)` changes `xs` only if `square!` changes its
//! second parameter. The template's own node, standing for any function
//! passed, changes every argument of a call of a `Fn` parameter.

use rustc_hash::{FxHashMap, FxHashSet};

use crate::ast::*;
use crate::builtins;
use crate::values::Passed;

/// A function a call passes as an argument, as far as one function's text
/// tells (whether the callee takes a function there is the project's
/// business: [`solve`] reads this only at a template's `Fn` positions).
#[derive(Clone, PartialEq, Eq, Hash, Debug, PartialOrd, Ord)]
pub enum PassedFn {
    /// A function by name, or partially applied (`scale!(_, c)`).
    Named(Passed),
    /// The caller's own `Fn` parameter at this position, passed on.
    Param(usize),
    /// Something no instance can be made for (a partial application of
    /// a `Fn` parameter): the call changes what the template may.
    Other,
}

/// A call that passes something that may be a function.
#[derive(Clone, PartialEq, Eq, Hash, Debug, PartialOrd, Ord)]
pub struct PassingCall {
    pub callee: String,
    /// `(argument position, what it passes)`.
    pub functions: Vec<(usize, PassedFn)>,
    /// `(argument position, the caller's parameter passed there)`.
    pub params: Vec<(usize, usize)>,
}

/// One function's own writes and the calls that may add more.
#[derive(Clone, PartialEq, Eq, Hash, Debug, Default)]
pub struct LocalEffects {
    pub arity: usize,
    /// Parameters written directly.
    pub writes: Vec<usize>,
    /// `(callee, argument position, parameter passed there)`, for the calls
    /// that pass no function.
    pub forwards: Vec<(String, usize, usize)>,
    /// Which parameters have a companion in the function's derivative
    /// calls (`crate::derivatives`), where it has them.
    pub companions: Option<Vec<bool>>,
    /// The positions of its `Fn` parameters (a template's).
    pub fn_params: Vec<usize>,
    /// Calls of its `Fn` parameters: `(the Fn parameter's position,
    /// argument position, parameter passed there)`.
    pub fn_calls: Vec<(usize, usize, usize)>,
    /// The calls that pass functions (or may: a name that is not a
    /// parameter).
    pub passing: Vec<PassingCall>,
}

pub fn local_effects(function: &Function) -> LocalEffects {
    let params: FxHashMap<&str, usize> = function
        .params
        .iter()
        .enumerate()
        .map(|(i, p)| (p.name.name.as_str(), i))
        .collect();
    // The function's `Fn` parameters, by name.
    let function_values: FxHashMap<&str, usize> = crate::values::function_params(function)
        .into_iter()
        .map(|(i, name, _)| (name, i))
        .collect();
    let mut out = LocalEffects {
        arity: function.params.len(),
        companions: crate::derivatives::companions(function).ok(),
        fn_params: function_values.values().copied().collect(),
        ..LocalEffects::default()
    };
    out.fn_params.sort_unstable();
    let mut writes = FxHashSet::default();
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
            let name = call.callee.name.as_str();
            let param_at = |arg: &Expr| arg.root_var().and_then(|(n, _)| params.get(n)).copied();
            if let Some(mutates) = builtins::instruction(name).map(|i| i.mutates) {
                for (pos, arg) in call.args.iter().enumerate() {
                    if let Some(p) = param_at(arg)
                        && mutates.contains(&pos)
                    {
                        writes.insert(p);
                    }
                }
            } else if let Some(&k) = function_values.get(name) {
                for (pos, arg) in call.args.iter().enumerate() {
                    if let Some(p) = param_at(arg) {
                        out.fn_calls.push((k, pos, p));
                    }
                }
            } else {
                let functions: Vec<(usize, PassedFn)> = call
                    .args
                    .iter()
                    .enumerate()
                    .filter_map(|(pos, arg)| {
                        Some((pos, passed_function(arg, &params, &function_values)?))
                    })
                    .collect();
                let args = call
                    .args
                    .iter()
                    .enumerate()
                    .filter_map(|(pos, arg)| Some((pos, param_at(arg)?)));
                if functions.is_empty() {
                    out.forwards
                        .extend(args.map(|(pos, p)| (name.to_string(), pos, p)));
                } else {
                    out.passing.push(PassingCall {
                        callee: name.to_string(),
                        functions,
                        params: args.collect(),
                    });
                }
            }
        }
        _ => {}
    });
    out.writes = writes.into_iter().collect();
    out.writes.sort_unstable();
    out.forwards.sort();
    out.forwards.dedup();
    out.fn_calls.sort_unstable();
    out.fn_calls.dedup();
    out.passing.sort();
    out.passing.dedup();
    out
}

/// What an argument passes if it is a function: a `Fn` parameter passed
/// on, or a name or partial application that is no parameter.
fn passed_function(
    arg: &Expr,
    params: &FxHashMap<&str, usize>,
    function_values: &FxHashMap<&str, usize>,
) -> Option<PassedFn> {
    if let ExprKind::Var(name) = &arg.kind {
        if let Some(&k) = function_values.get(name.as_str()) {
            return Some(PassedFn::Param(k));
        }
        if params.contains_key(name.as_str()) {
            return None;
        }
    }
    let (passed, _) = crate::values::passed(arg)?;
    Some(if function_values.contains_key(passed.name.as_str()) {
        PassedFn::Other
    } else {
        PassedFn::Named(passed)
    })
}

/// For each function, which of its parameters it mutates; and for each
/// instance of a template that a call reaches, under its name
/// (`values::instance_name`), which of the template's parameters it
/// mutates with those functions passed.
pub type Mutations = FxHashMap<String, Vec<bool>>;

/// The most instance nodes [`solve`] makes: instances are keyed by names
/// written in the source, so there are finitely many, but templates that
/// pass partial applications on could make many; past this, a call is
/// taken to change what its template may.
const MAX_INSTANCES: usize = 100_000;

/// A node of the fixpoint: a function, or an instance of a template.
struct Node {
    function: usize,
    /// The functions passed for the template's `Fn` parameters, in order;
    /// `None` for the function itself (any function passed).
    passed: Option<Vec<Passed>>,
}

struct Graph<'g, 'a> {
    functions: &'g [(&'a str, &'a LocalEffects)],
    index: FxHashMap<&'a str, usize>,
    companions: FxHashMap<&'a str, &'a [bool]>,
    nodes: Vec<Node>,
    instances: FxHashMap<(usize, Vec<Passed>), usize>,
    result: Vec<Vec<bool>>,
    /// The call graph reversed: per callee node, `(caller node, the
    /// callee's parameter, the caller's parameter passed there)`.
    callers: Vec<Vec<(usize, usize, usize)>>,
}

impl<'a> Graph<'_, 'a> {
    fn node(&mut self, function: usize, passed: Option<Vec<Passed>>) -> usize {
        let fx = self.functions[function].1;
        let mut mutated = vec![false; fx.arity];
        for &w in &fx.writes {
            mutated[w] = true;
        }
        self.nodes.push(Node { function, passed });
        self.result.push(mutated);
        self.callers.push(Vec::new());
        self.nodes.len() - 1
    }

    /// The edges of `node`'s calls.
    fn expand(&mut self, node: usize) {
        let fx = self.functions[self.nodes[node].function].1;
        for (callee, pos, param) in &fx.forwards {
            self.forward(node, callee, *pos, *param);
        }
        for &(k, pos, param) in &fx.fn_calls {
            match self.passed_parameter(node, k, pos) {
                Some((g, j)) => self.callers[g].push((node, j, param)),
                None => self.result[node][param] = true,
            }
        }
        for call in &fx.passing {
            match self.instance(node, call) {
                Some(target) => {
                    let arity = self.result[target].len();
                    for &(pos, param) in &call.params {
                        if pos < arity {
                            self.callers[target].push((node, pos, param));
                        }
                    }
                }
                None => {
                    for &(pos, param) in &call.params {
                        self.forward(node, &call.callee, pos, param);
                    }
                }
            }
        }
    }

    /// An argument passed to `callee` at `pos`: an edge to the callee's
    /// node, or for a derived function `∇f` to `f`'s (a companion is
    /// changed outright).
    fn forward(&mut self, node: usize, callee: &str, pos: usize, param: usize) {
        if let Some(&j) = self.index.get(callee) {
            if pos < self.functions[j].1.arity {
                self.callers[j].push((node, pos, param));
            }
            return;
        }
        let Some((_, base)) = crate::derivatives::Derivative::of(callee) else {
            return;
        };
        let (Some(mask), Some(&j)) = (self.companions.get(base), self.index.get(base)) else {
            return;
        };
        match crate::derivatives::positions(mask).get(pos) {
            Some(&(_, true)) => self.result[node][param] = true,
            Some(&(k, false)) if k < self.functions[j].1.arity => {
                self.callers[j].push((node, k, param))
            }
            _ => {}
        }
    }

    /// The function node and its parameter that argument `pos` of a call
    /// of the `Fn` parameter `k` reaches in the instance `node`: the
    /// function passed there, through the holes of a partial application.
    /// `None` for the template itself, or a function passed that is not
    /// a plain function of the project.
    fn passed_parameter(&self, node: usize, k: usize, pos: usize) -> Option<(usize, usize)> {
        let n = &self.nodes[node];
        let fx = self.functions[n.function].1;
        let which = fx.fn_params.iter().position(|&q| q == k)?;
        let passed = n.passed.as_ref()?.get(which)?;
        let j = match &passed.holes {
            None => pos,
            Some(holes) => {
                holes
                    .iter()
                    .enumerate()
                    .filter(|(_, hole)| **hole)
                    .nth(pos)?
                    .0
            }
        };
        let &g = self.index.get(passed.name.as_str())?;
        let gx = self.functions[g].1;
        (gx.fn_params.is_empty() && j < gx.arity).then_some((g, j))
    }

    /// The instance node a call from `node` reaches: its callee is a
    /// template and each `Fn` position passes a plain function of the
    /// project (or `node`'s own `Fn` parameter, which an instance node
    /// knows).
    fn instance(&mut self, node: usize, call: &PassingCall) -> Option<usize> {
        let &c = self.index.get(call.callee.as_str())?;
        let template = self.functions[c].1;
        if template.fn_params.is_empty() {
            return None;
        }
        let caller = self.functions[self.nodes[node].function].1;
        let mut passed = Vec::with_capacity(template.fn_params.len());
        for q in &template.fn_params {
            let (_, f) = call.functions.iter().find(|(p, _)| p == q)?;
            let function = match f {
                PassedFn::Named(p) => p.clone(),
                PassedFn::Param(k) => {
                    let which = caller.fn_params.iter().position(|x| x == k)?;
                    self.nodes[node].passed.as_ref()?.get(which)?.clone()
                }
                PassedFn::Other => return None,
            };
            let &g = self.index.get(function.name.as_str())?;
            if !self.functions[g].1.fn_params.is_empty() {
                return None;
            }
            passed.push(function);
        }
        let key = (c, passed);
        if let Some(&i) = self.instances.get(&key) {
            return Some(i);
        }
        if self.instances.len() >= MAX_INSTANCES {
            return None;
        }
        let i = self.node(c, Some(key.1.clone()));
        self.instances.insert(key, i);
        Some(i)
    }
}

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
    // A derivative call changes its companions and what its function changes.
    let companions: FxHashMap<&str, &[bool]> = functions
        .iter()
        .filter_map(|(name, fx)| Some((*name, fx.companions.as_deref()?)))
        .collect();
    let mut graph = Graph {
        functions: &functions,
        index,
        companions,
        nodes: Vec::with_capacity(functions.len()),
        instances: FxHashMap::default(),
        result: Vec::with_capacity(functions.len()),
        callers: Vec::with_capacity(functions.len()),
    };
    for i in 0..functions.len() {
        graph.node(i, None);
    }
    // Instance nodes are made as the calls reaching them are read, and
    // read in turn.
    let mut next = 0;
    while next < graph.nodes.len() {
        graph.expand(next);
        next += 1;
    }
    // A worklist: each node whose mutations grew passes them on to its
    // callers, so the fixpoint costs one visit per call edge and change
    // (it is solved again when an edit changes a function's own effects).
    let Graph {
        nodes,
        companions,
        index,
        mut result,
        callers,
        ..
    } = graph;
    let mut work: Vec<usize> = (0..nodes.len()).collect();
    while let Some(callee) = work.pop() {
        for &(caller, k, param) in &callers[callee] {
            if result[callee][k] && !result[caller][param] {
                result[caller][param] = true;
                work.push(caller);
            }
        }
    }
    let mut out: Mutations = FxHashMap::default();
    out.reserve(nodes.len() + 2 * companions.len());
    for (name, mask) in &companions {
        let derived = crate::derivatives::mutated(&result[index[name]], mask);
        for d in [
            crate::derivatives::Derivative::Gradient,
            crate::derivatives::Derivative::Tangent,
        ] {
            out.insert(d.name(name), derived.clone());
        }
    }
    for (node, m) in nodes.iter().zip(result) {
        let template = functions[node.function].0;
        let name = match &node.passed {
            None => template.to_string(),
            Some(passed) => crate::values::instance_name(template, passed),
        };
        // A derived function's entry stands (as it did when these were
        // inserted first).
        out.entry(name).or_insert(m);
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
        | StmtKind::Routine(inner, _)
        | StmtKind::Tape(inner)
        | StmtKind::InvCheckOff(inner)
        | StmtKind::InBounds(inner) => visit_stmt(inner, f),
        _ => {}
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The mutations of every function of `src`, and of the instances its
    /// calls reach.
    fn mutations(src: &str) -> Mutations {
        let parsed = crate::syntax::parse(src);
        assert!(parsed.diagnostics.is_empty(), "{:?}", parsed.diagnostics);
        let effects: Vec<(String, LocalEffects)> = parsed
            .items
            .iter()
            .map(|item| {
                (
                    item.function.name.name.clone(),
                    local_effects(&item.function),
                )
            })
            .collect();
        solve(effects.iter().map(|(n, e)| (n.as_str(), e)))
    }

    const MAP: &str = "
function map!(f::Fn<f64, f64>, ys!::[f64], xs::[f64])
    for i = 1:length(xs)
        f(ys![i], xs[i])
    end
end

function map_twice!(g::Fn<f64, f64>, ys!::[f64], xs::[f64])
    map!(g, ys!, xs)
    map!(g, ys!, xs)
end

function sq!(y!::f64, x::f64)
    y! += x * x
end

function swap!(a!::f64, b!::f64)
    SWAP(a!, b!)
end

function scale!(y!::f64, x::f64, c::f64)
    y! += c * x
end
";

    #[test]
    fn an_instance_changes_what_the_function_passed_changes() {
        let m = mutations(&format!(
            "{MAP}
function squares!(ys!::[f64], xs::[f64])
    map!(sq!, ys!, xs)
end

function swaps!(ys!::[f64], xs!::[f64])
    map!(swap!, ys!, xs!)
end

function scaled!(ys!::[f64], xs::[f64], c::f64)
    map!(scale!(_, _, c), ys!, xs)
end

function passed_on!(ys!::[f64], xs::[f64])
    map_twice!(sq!, ys!, xs)
end
"
        ));
        // The template itself stands for any function passed.
        assert_eq!(m["map!"], [false, true, true]);
        assert_eq!(m["map!_with_sq!"], [false, true, false]);
        assert_eq!(m["map!_with_swap!"], [false, true, true]);
        assert_eq!(m["map!_with_scale!_p3"], [false, true, false]);
        assert_eq!(m["squares!"], [true, false]);
        assert_eq!(m["swaps!"], [true, true]);
        assert_eq!(m["scaled!"], [true, false, false]);
        // A template passing its function on: the inner instance is made
        // with the function the outer one got.
        assert_eq!(m["map_twice!_with_sq!"], [false, true, false]);
        assert_eq!(m["passed_on!"], [true, false]);
    }

    #[test]
    fn a_call_the_fixpoint_cannot_follow_changes_what_the_template_may() {
        let m = mutations(&format!(
            "{MAP}
function unknown!(ys!::[f64], xs::[f64])
    map!(nowhere!, ys!, xs)
end

function partial_of_a_parameter!(h::Fn<f64, f64, f64>, ys!::[f64], xs::[f64], c::f64)
    map!(h(_, _, c), ys!, xs)
end
"
        ));
        assert_eq!(m["unknown!"], [true, true]);
        assert_eq!(m["partial_of_a_parameter!"], [false, true, true, false]);
    }

    #[test]
    fn a_recursive_template_reaches_one_instance() {
        let m = mutations(&format!(
            "{MAP}
function again!(f::Fn<f64, f64>, ys!::[f64], xs::[f64], n::i64)
    if (n > 0, ~)
        f(ys![1], xs[1])
        again!(f, ys!, xs, n - 1)
    end
end

function run!(ys!::[f64], xs::[f64])
    again!(sq!, ys!, xs, 3)
end
"
        ));
        assert_eq!(m["again!_with_sq!"], [false, true, false, false]);
        assert_eq!(m["run!"], [true, false]);
    }
}

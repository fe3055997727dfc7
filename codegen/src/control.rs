//! Control flow in the Rust backend: `if` chains with their
//! postconditions, `while` loops, `for` loops over checked ranges, and
//! `@safe` statements.

use super::*;

impl Gen<'_> {
    pub(super) fn if_chain(&mut self, branches: &[Branch], otherwise: Option<&Block>) {
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
        if self.mode.checks {
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
            let found = self.with_values(post, &format!("!{p}"));
            self.line(&format!(
                "if ({code}) != {p} {{ return Err(nilang::Error::new({location}, nilang::Check::IfPostcondition, {what:?}, {p}, {found})); }}"
            ));
        }
    }

    pub(super) fn while_loop(&mut self, cond: &Cond, body: &Block) {
        let (pre, _) = self.expr(&cond.pre);
        let post = match &cond.post {
            Post::Expr(e) => Some(e),
            _ => None,
        };
        let post_code = post.map(|p| {
            (
                self.expr(p).0,
                crate::printer::print_expr(p),
                self.with_values(p, "true"),
                self.with_values(p, "false"),
            )
        });
        let location = self.location(cond.span);
        if self.mode.checks
            && let Some((code, text, found_true, _)) = &post_code
        {
            let what = format!("the postcondition `{text}` must be false before the loop");
            self.line(&format!(
                "if {code} {{ return Err(nilang::Error::new({location}, nilang::Check::WhileEntry, {what:?}, false, {found_true})); }}"
            ));
        }
        self.line(&format!("while {pre} {{"));
        self.level += 1;
        self.block(&body.stmts);
        if self.mode.checks
            && let Some((code, text, _, found_false)) = &post_code
        {
            let what = format!("the postcondition `{text}` must be true after each iteration");
            self.line(&format!(
                "if !({code}) {{ return Err(nilang::Error::new({location}, nilang::Check::WhileIteration, {what:?}, true, {found_false})); }}"
            ));
        }
        self.level -= 1;
        self.line("}");
    }

    pub(super) fn for_loop(&mut self, var: &Ident, range: &Range, body: &Block) {
        let int = Kind::Int(Scalar::I64);
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
        if self.mode.checks && range.step.is_some() {
            let location = self.location(range.span);
            let what = format!(
                "the step of `{}` must not be 0",
                crate::printer::range_text(range)
            );
            self.line(&format!(
                "if {s} == 0 {{ return Err(nilang::Error::new({location}, nilang::Check::ForStep, {what:?}, nilang::Plain(\"a step other than 0\"), {s})); }}"
            ));
        }
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
        // So does a `for` in the run of a stored routine (`storing`).
        if let Some(line) = self.stored_reserve(&n, &body.stmts) {
            self.line(&line);
        }
        let iter = if range.reversed {
            format!("(0..{n}).rev()")
        } else {
            format!("0..{n}")
        };
        // Index windows (step 1 or -1): one slice per vector before the
        // loop, indexed with the counter, inside `if n > 0` so that the
        // slice's length is the trip count.
        // A tape loop walked back without adjoints only pops: no reads.
        let pops_only = self.mode.tape == Some(tape::TapeMode::Pop) && !self.differentiating();
        // Step 1, or -1 (`for i = n:-1:1`): the window is the same run of
        // elements, walked from its end.
        let down = range.step.as_ref().is_some_and(minus_one);
        let slices = if (range.step.is_none() || down) && !pops_only {
            self.slices(var, body, &a, &n, &k, down, range.reversed)
        } else {
            Vec::new()
        };
        let windowed = !slices.is_empty();
        if windowed {
            self.line(&format!("if {n} > 0 {{"));
            self.level += 1;
            // The first iteration's accesses are checked first, all of
            // them in the order the body makes them, so that an index out
            // of range there is the error the plain loop returns; then each
            // window whole, for a later iteration (there the error names an
            // index the loop reaches, the first window's that fails).
            let mut firsts: Vec<&(usize, String)> = slices.iter().flat_map(|w| &w.first).collect();
            firsts.sort_by_key(|(order, _)| *order);
            let firsts: Vec<String> = firsts.into_iter().map(|(_, c)| c.clone()).collect();
            for check in firsts {
                self.line(&check);
            }
            for w in &slices {
                self.line(&w.declaration.clone());
            }
        }
        let active = self.windows.len();
        self.windows.extend(slices);
        self.line(&format!("for {k} in {iter} {{"));
        self.level += 1;
        self.line(&format!(
            "let {}: i64 = {a} + {k} * {s};",
            rust_name(&var.name)
        ));
        self.block(&body.stmts);
        self.level -= 1;
        self.line("}");
        let afters: Vec<String> = self.windows[active..]
            .iter()
            .rev()
            .filter_map(|w| w.after.clone())
            .collect();
        for line in afters {
            self.line(&line);
        }
        self.windows.truncate(active);
        if windowed {
            self.level -= 1;
            self.line("}");
        }
        if self.mode.checks {
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

    /// The slices of a `for` loop's index windows
    /// (`nilang_analysis::windows`): a vector the body only reads gets a
    /// shared slice; one it changes, a mutable slice when every mention of
    /// it in the body is the windowed access. In a reverse pass the
    /// adjoint of an exclusively windowed vector gets its own slice.
    #[allow(clippy::too_many_arguments)]
    fn slices(
        &mut self,
        var: &Ident,
        body: &Block,
        start: &str,
        n: &str,
        k: &str,
        down: bool,
        reversed: bool,
    ) -> Vec<Slice> {
        // The window's first element: at the loop's start going up, at its
        // last value (start - (n - 1)) going down; the element of counter
        // k is then k, or n - 1 - k.
        let first = if down {
            format!("{start} - ({n} - 1)")
        } else {
            start.to_string()
        };
        let counter = if down {
            format!("({n} - 1 - {k})")
        } else {
            k.to_string()
        };
        // Which way the loop walks the elements, for the error of a window
        // out of range: a loop run backwards (an inverse) turns it.
        let down = down != reversed;
        let dims = |d: usize| match kind_of(&self.types.defs[d]) {
            Kind::Array(_) => 1,
            Kind::Matrix(_) => 2,
            _ => 0,
        };
        // What a call changes: an instruction's changed operands, a callee's
        // mutated parameters (an instance's, for a call of a template: the
        // instance's arguments are the call's but the functions passed).
        let mutates = |call: &Call, i: usize| {
            if let Some(instr) = crate::builtins::instruction(&call.callee.name) {
                return instr.mutates.contains(&i);
            }
            let callee = self.callee_name(call);
            if let Some(instance) = self.instance_call(call, &callee) {
                let Some(arg) = call.args.get(i) else {
                    return true;
                };
                let Some(k) = instance.args.iter().position(|a| a.span == arg.span) else {
                    // A function passed: it changes nothing itself.
                    return false;
                };
                return self
                    .ctx
                    .callee(&callee)
                    .and_then(|sig| sig.params.get(k).map(|(m, _)| *m))
                    .unwrap_or(true);
            }
            self.ctx
                .callee(&callee)
                .and_then(|sig| sig.params.get(i).map(|(m, _)| *m))
                .unwrap_or(true)
        };
        let found =
            nilang_analysis::windows::windows(&var.name, body, self.resolution, &dims, &mutates);
        // What a `@routine` in the body writes may be handled whole inside
        // the loop (set back to zero, its adjoints set aside and restored:
        // `zeroing_uncomputation`, `plain_routine`), which a borrowed
        // slice would forbid.
        let mut routine_writes: Vec<usize> = Vec::new();
        nilang_analysis::ast::walk_stmts(&body.stmts, &mut |s| {
            if let StmtKind::Routine(inner, _) = &s.kind {
                self.visit_writes(std::slice::from_ref(&**inner), &mut |root| {
                    if let Some(id) = root.and_then(|span| self.resolution.def_at(span)) {
                        routine_writes.push(id);
                    }
                });
            }
        });
        let mut out = Vec::new();
        for w in found {
            if (w.written && !w.exclusive) || routine_writes.contains(&w.def) {
                continue;
            }
            if w.cell {
                out.extend(self.cells(&w));
                continue;
            }
            if let Some((axis, fixed)) = &w.line {
                // A matrix's line is only read.
                if !w.written {
                    out.extend(self.line_view(&w, *axis, fixed, &first, n, &counter, down));
                }
                continue;
            }
            let def = &self.resolution.defs[w.def];
            let base = rust_name(&def.name);
            let int = Kind::Int(Scalar::I64);
            let offset = match &w.offset {
                Some(o) => format!(" + {}", self.value_as(o, &int)),
                None => String::new(),
            };
            // In a checked build the window is checked once, here, for the
            // error an access out of range returns (`nilang::window`: the
            // index the loop would have failed at first); `@inbounds` and
            // unchecked builds keep the panic. The first iteration's
            // accesses are checked one by one (see `Slice::first`); past
            // it, the window can only run out at its far end, which the
            // access of the greatest shift reaches first going up, the
            // least going down: the window's error names that one's place.
            let checked = self.mode.checks && !self.mode.inbounds;
            let what = format!("`{}`", def.name);
            let mut sites: Vec<(i64, String, usize)> = Vec::new();
            if checked {
                for ((span, shift), order) in w.index_spans.iter().zip(&w.shifts).zip(&w.order) {
                    if !sites.iter().any(|(s, _, _)| s == shift) {
                        let site = self.index_site(*span, &what, "element");
                        sites.push((*shift, site, *order));
                    }
                }
            }
            let far = if down { 0 } else { w.extra };
            let site = sites
                .iter()
                .find(|(s, _, _)| *s == far)
                .map(|(_, site, _)| site.clone());
            let extra = w.extra;
            let count = if extra > 0 {
                format!("({n} + {extra})")
            } else {
                n.to_string()
            };
            let window = |g: &mut Gen<'_>, array: String, mutable: bool| {
                let slice = g.fresh("w");
                let m = if mutable { "mut " } else { "" };
                let first_check: Vec<(usize, String)> = sites
                    .iter()
                    .map(|(shift, site, order)| {
                        let at = match (down, *shift) {
                            (true, 0) => format!("{first}{offset} + ({n} - 1)"),
                            (true, k) => format!("{first}{offset} + ({n} - 1) + {k}"),
                            (false, 0) => format!("{first}{offset}"),
                            (false, k) => format!("{first}{offset} + {k}"),
                        };
                        (
                            *order,
                            format!("nilang::index({at}, {array}.len(), {site})?;"),
                        )
                    })
                    .collect();
                // The range is a local of its own: `&mut x[…x.len()…]`
                // would read `x` while borrowing it.
                let declaration = match &site {
                    Some(site) => format!(
                        "let {slice} = nilang::window(({first}{offset}), {count}, {array}.len(), {down}, {site})?; let {slice} = &{m}{array}[{slice}];"
                    ),
                    None => format!(
                        "let {slice} = &{m}{array}[(({first}{offset} - 1) as usize)..][..({count} as usize)];"
                    ),
                };
                let elements = w
                    .shifts
                    .iter()
                    .map(|&k| match k {
                        0 => format!("{slice}[{counter} as usize]"),
                        k => format!("{slice}[{counter} as usize + {k}]"),
                    })
                    .collect();
                Slice {
                    accesses: w.accesses.clone(),
                    declaration,
                    first: first_check,
                    elements,
                    array,
                    after: None,
                }
            };
            out.push(window(self, base, w.written));
            if let Some(bar) = self.window_adjoint(&w) {
                out.push(window(self, bar, true));
            }
        }
        out
    }

    /// A checked build's access to a matrix's line
    /// (`nilang_analysis::windows`): the column `x[:, j]` walked by the
    /// loop over its rows (`axis` 0), or the row `x[j, :]` walked over its
    /// columns. The fixed index and the walked window are checked once,
    /// before the loop (see `slices` for the order), and each access is
    /// Rust's indexing at the checked positions, whose bounds the compiler
    /// then knows. (A strided view per loop, `x.slice(s![..])`, cost more
    /// than the checks it saved on short loops.) Unchecked builds and
    /// `@inbounds` index as before: there is no `Result` to hoist there.
    #[allow(clippy::too_many_arguments)]
    fn line_view(
        &mut self,
        w: &nilang_analysis::windows::Window,
        axis: usize,
        fixed: &Expr,
        first: &str,
        n: &str,
        counter: &str,
        down: bool,
    ) -> Option<Slice> {
        if !self.mode.checks || self.mode.inbounds {
            return None;
        }
        let def = &self.resolution.defs[w.def];
        let base = rust_name(&def.name);
        let what = format!("`{}`", def.name);
        let int = Kind::Int(Scalar::I64);
        let offset = match &w.offset {
            Some(o) => format!(" + {}", self.value_as(o, &int)),
            None => String::new(),
        };
        let j = self.value_as(fixed, &int);
        let line = self.fresh("line");
        let (walked, other, units) = if axis == 0 {
            ("nrows", "ncols", ["row", "column"])
        } else {
            ("ncols", "nrows", ["column", "row"])
        };
        let walked_span = match &w.first.kind {
            ExprKind::Index { indices, .. } => match indices.get(axis) {
                Some(IndexArg::Expr(i)) => i.span,
                _ => w.first.span,
            },
            _ => w.first.span,
        };
        let site = self.index_site(walked_span, &what, units[0]);
        let fixed_site = self.index_site(fixed.span, &what, units[1]);
        let start = if down {
            format!("{first}{offset} + ({n} - 1)")
        } else {
            format!("{first}{offset}")
        };
        // The first iteration's access checks its row, then its column;
        // the fixed index, checked there, is the same in every iteration,
        // so the walked axis's window is all that is left to check.
        let walked_check = format!("nilang::index({start}, {base}.{walked}(), {site})?;");
        let fixed_check =
            format!("let {line}_at = nilang::index({j}, {base}.{other}(), {fixed_site})?;");
        let first_check = if axis == 0 {
            format!("{walked_check} {fixed_check}")
        } else {
            format!("{fixed_check} {walked_check}")
        };
        let order = w.order.first().copied().unwrap_or(usize::MAX);
        let declaration = format!(
            "let {line} = nilang::window(({first}{offset}), {n}, {base}.{walked}(), {down}, {site})?;"
        );
        let at = format!("{line}.start + {counter} as usize");
        let element = if axis == 0 {
            format!("{base}[[{at}, {line}_at]]")
        } else {
            format!("{base}[[{line}_at, {at}]]")
        };
        Some(Slice {
            accesses: w.accesses.clone(),
            declaration,
            first: vec![(order, first_check)],
            elements: vec![element; w.accesses.len()],
            array: base,
            after: None,
        })
    }

    /// In a reverse pass, the adjoint array of an exclusive window's or
    /// cell's vector (which then gets a window or cell of its own).
    fn window_adjoint(&mut self, w: &nilang_analysis::windows::Window) -> Option<String> {
        let def = &self.resolution.defs[w.def];
        if !(self.differentiating() && w.exclusive && self.activity.is_active(w.def)) {
            return None;
        }
        self.bar_place(&Expr::new(ExprKind::Var(def.name.clone()), def.span))
    }

    /// The locals of a cell (an element at an index the loop does not
    /// change): the element itself when the body changes it, and in a
    /// reverse pass its adjoint, which the body accumulates into. Each is
    /// read before the loop and written back after it; elsewhere the
    /// element stays where it is (a read-only one is hoisted by the
    /// compiler anyway). The element's code is generated here, before the
    /// loop's own windows exist, so that an outer loop's window or cell
    /// reaches it.
    fn cells(&mut self, w: &nilang_analysis::windows::Window) -> Vec<Slice> {
        let mut out = Vec::new();
        let mut cell = |g: &mut Gen<'_>, array: String, element: String| {
            let local = g.fresh("cell");
            out.push(Slice {
                accesses: w.accesses.clone(),
                first: Vec::new(),
                array,
                declaration: format!("let mut {local} = {element};"),
                after: Some(format!("{element} = {local};")),
                elements: vec![local; w.accesses.len()],
            });
        };
        if w.written {
            let base = rust_name(&self.resolution.defs[w.def].name);
            // A place: it is written back after the loop.
            if let Some((element, _, _)) = self.whole(|g| g.lvalue(&w.first)) {
                cell(self, base, element);
            }
        }
        if let Some(bar) = self.window_adjoint(w)
            && let Some(element) = self.bar_place(&w.first)
        {
            cell(self, bar, element);
        }
        out
    }

    /// The windowed slice for the access `array[...]` at `span`, if any:
    /// the code of the element.
    pub(super) fn windowed(&self, array: &str, span: Span) -> Option<String> {
        self.windows.iter().rev().find_map(|w| {
            let k = w.accesses.iter().position(|a| *a == span)?;
            (w.array == array).then(|| w.elements[k].clone())
        })
    }

    /// A condition's value as a failed check shows it, with the values of
    /// the scalars and elements the condition reads
    /// (`nilang::WithValues(false, &[("x", &x), ...])`).
    fn with_values(&mut self, cond: &Expr, value: &str) -> String {
        let mut reads = Vec::new();
        condition_reads(cond, &mut reads);
        let mut shown: Vec<String> = Vec::new();
        let mut values = Vec::new();
        for e in reads {
            let text = crate::printer::print_expr(e);
            if shown.contains(&text) {
                continue;
            }
            let scalar = match &e.kind {
                ExprKind::Var(_) => self
                    .def_kind(e.span)
                    .is_some_and(|(_, k)| k.is_scalar_like() && !matches!(k, Kind::Struct { .. })),
                _ => true,
            };
            if !scalar {
                continue;
            }
            let (code, _) = self.expr(e);
            values.push(format!("({text:?}, &({code}) as &dyn std::fmt::Debug)"));
            shown.push(text);
        }
        format!("nilang::WithValues({value}, &[{}])", values.join(", "))
    }

    pub(super) fn safe(&mut self, expr: &Expr, span: Span) {
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
}

/// The scalars and elements a condition reads, outermost first: variables,
/// indexed elements and fields (not the arrays `length(x)` and `size(x, d)`
/// read only for their shape).
fn condition_reads<'e>(e: &'e Expr, out: &mut Vec<&'e Expr>) {
    nilang_syntax::stack::deep(|| match &e.kind {
        ExprKind::Var(name) if !matches!(name.as_str(), "π" | "pi" | "Inf" | "NaN" | "im") => {
            out.push(e)
        }
        ExprKind::Index { indices, .. } => {
            out.push(e);
            for i in indices {
                if let IndexArg::Expr(x) = i {
                    condition_reads(x, out);
                }
            }
        }
        ExprKind::Field { .. } => out.push(e),
        ExprKind::Call { callee, args, .. }
            if matches!(callee.name.as_str(), "length" | "size") =>
        {
            args.iter().skip(1).for_each(|a| condition_reads(a, out))
        }
        ExprKind::Call { args, .. } => args.iter().for_each(|a| condition_reads(a, out)),
        ExprKind::Paren(x) | ExprKind::Unary { operand: x, .. } => condition_reads(x, out),
        ExprKind::Binary { lhs, rhs, .. } => {
            condition_reads(lhs, out);
            condition_reads(rhs, out);
        }
        _ => {}
    })
}

/// One index window or cell of a loop being generated: the accesses (by
/// span) of `array` that read `element` instead (`slice[counter]`, or the
/// cell's local).
pub(super) struct Slice {
    accesses: Vec<Span>,
    array: String,
    /// The code of each access's element, in the order of `accesses`.
    elements: Vec<String>,
    /// Before the loop.
    declaration: String,
    /// In a checked build, the checks of the loop's first accesses
    /// through the window, each with its place in the body's order of
    /// evaluation, made before any window is checked whole.
    first: Vec<(usize, String)>,
    /// A cell's write-back after the loop (`None` for a slice).
    after: Option<String>,
}

/// Whether a step is the literal `-1`.
fn minus_one(step: &Expr) -> bool {
    nilang_syntax::stack::deep(|| match &step.kind {
        ExprKind::Int(v) => v == "-1",
        ExprKind::Unary {
            op: UnaryOp::Neg,
            operand,
        } => matches!(&operand.kind, ExprKind::Int(v) if v == "1"),
        ExprKind::Paren(inner) => minus_one(inner),
        _ => false,
    })
}

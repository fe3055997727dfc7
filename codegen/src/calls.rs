//! Calls of `.nil` functions in the Rust backend: arguments by value or
//! by `&mut`, element copies written back, keyword arguments.

use super::*;

impl Gen<'_> {
    pub(super) fn call(&mut self, call: &Call, span: Span) {
        self.call_only(call, span);
        self.sync_call_stacks(call);
    }

    fn call_only(&mut self, call: &Call, span: Span) {
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
        let callee = self.callee_name(call);
        // A call of a template is a call of its instance, which takes the
        // other arguments, then the captured values of partial applications.
        let instance_call = self.instance_call(call, &callee);
        let call = instance_call.as_ref().unwrap_or(call);
        let Some(sig) = self.ctx.callee(&callee) else {
            self.unsupported(span, "a call of an unknown function");
            return;
        };
        // A callee without differentiable parameters passes no adjoint: its
        // own inverse is all the reverse pass needs.
        let ad = self.differentiating()
            && sig.params.iter().enumerate().any(|(i, (_, ty))| {
                !sig.constant.get(i).copied().unwrap_or(false)
                    && adjoint::bar_param_type(&kind_of(ty)).is_some()
            });
        // The float of the callee's reverse pass where it is not the
        // caller's (the analysis decided it: `ExprTypes::adjoint_precision`).
        let lent_to: Option<String> = ad
            .then(|| self.expr_types.adjoint_precision(call.callee.span))
            .flatten()
            .map(|t| t.display());
        // A library function is generated in its own module under its
        // own name (`sig.module` says where).
        let own = nilang_analysis::modules::bare_name(&callee);
        let name = match (call.inverted, ad) {
            (true, false) => uncall_name(own),
            (false, false) => rust_name(own),
            // In an adjoint, `~g(...)` undoes a call of `g`: its reverse pass
            // is `g_adjoint`; `g(...)` undoes `~g`, so it is `uncall_g_adjoint`.
            (true, true) => adjoint::adjoint_name(own),
            (false, true) => adjoint::uncall_adjoint_name(own),
        };
        let name = inner_name(&name);
        let path = match (crate::ast::Derivative::of(&callee), &sig.module) {
            // A derivative call goes to this module's entry point for it
            // (`crate::derivatives`); in a reverse pass, to its reverse pass.
            (Some((d, base)), _) => {
                crate::derivatives::entry_name(d, base, call.inverted != ad, ad)
            }
            (None, Some(m)) => format!("{m}::{name}"),
            (None, None) => name,
        };
        // Columns the call changes (`f(A[:, j], ...)`) stay borrowed while
        // it runs: the other arguments that read those matrices are
        // evaluated first, into temporaries (`pre`).
        let guarded: Vec<&str> = call
            .args
            .iter()
            .zip(&sig.params)
            .filter(|(_, (mutated, _))| *mutated)
            .filter_map(|(arg, _)| arg.matrix_column().map(|(_, m, _)| m))
            .collect();
        let reads_guarded = |e: &Expr| guarded.iter().any(|m| mentions(e, m));
        // A literal for a type parameter that another argument binds is
        // passed as the type the analysis bound (`h(0.5, x)` with `x::T`
        // passes `T::from_f64(0.5)`, not an `f64` that would fix `T = f64`).
        let literal_kind = |arg: &Expr| self.expr_types.literal_argument(arg.span).map(kind_of);
        let mut pre: Vec<String> = Vec::new();
        let mut args = Vec::new();
        let mut write_back = Vec::new();
        for (i, (arg, (mutated, ty))) in call.args.iter().zip(&sig.params).enumerate() {
            if let Ty::Constructed(Ctor::Fn, _) = ty {
                // A function passed: the instance called is that of it.
                continue;
            }
            let param_kind = kind_of(ty);
            // A `Const` parameter has no adjoint in the callee's passes.
            let constant = sig.constant.get(i).copied().unwrap_or(false);
            // A literal converted to the type a variable binds: a constant,
            // whose adjoint is a scratch value of the caller's `G`.
            let bound_literal = matches!(param_kind, Kind::Generic(_))
                && literal_kind(arg).is_some_and(|k| kinds::differentiable(&k));
            if *mutated {
                match self.mutable_arg(arg) {
                    Some((code, back)) => {
                        args.push(code);
                        write_back.extend(back);
                    }
                    None => return,
                }
            } else if let Kind::Array(_) = param_kind {
                let owned = reads_guarded(arg);
                if let Some((m, c, _)) = self.column_of(arg) {
                    if owned {
                        let t = self.fresh("v");
                        pre.push(format!(
                            "let {t} = nilang::column({m}.column({c})).into_owned();"
                        ));
                        args.push(format!("&{t}[..]"));
                    } else {
                        args.push(format!("&nilang::column({m}.column({c}))"));
                    }
                } else {
                    let (code, _) = self.expr(arg);
                    args.push(format!("&{code}[..]"));
                }
            } else if let Kind::Matrix(_) | Kind::Csc(_) = param_kind {
                let (code, _) = self.expr(arg);
                if reads_guarded(arg) {
                    let t = self.fresh("v");
                    pre.push(format!("let {t} = {code}.to_owned();"));
                    args.push(format!("{t}.view()"));
                } else {
                    args.push(format!("{code}.view()"));
                }
            } else if let Kind::Stack(_) = param_kind {
                match self.stack_arg(arg) {
                    Some(code) => args.push(code),
                    None => return,
                }
            } else {
                let (code, from) = self.expr(arg);
                let to = match &param_kind {
                    Kind::Generic(_) => literal_kind(arg).unwrap_or_else(|| from.clone()),
                    // `Complex<T>` given a `Complex<f64>`: rustc binds `T`
                    // from the value as it is (the analysis checked it).
                    k if k.is_unknown() || k.mentions_generic() => from.clone(),
                    k => k.clone(),
                };
                let code = convert(code, &from, &to);
                if reads_guarded(arg) {
                    let t = self.fresh("v");
                    pre.push(format!("let {t} = {code};"));
                    args.push(t);
                } else {
                    args.push(code);
                }
            }
            let bar = if constant {
                // No adjoint argument.
                None
            } else if ad && bound_literal {
                let t = self.fresh("argbar");
                let zero = self.ad_zero();
                write_back.push((format!("let mut {t}: G = {zero};"), String::new()));
                Some(format!("&mut {t}"))
            } else if ad && adjoint::bar_param_type(&param_kind).is_some() {
                match self.ad_bar_arg(arg, &param_kind) {
                    Some((code, back)) => {
                        write_back.extend(back);
                        Some(code)
                    }
                    None => return,
                }
            } else {
                None
            };
            if let Some(code) = bar {
                args.push(match &lent_to {
                    // The callee's reverse pass is in another float: the
                    // adjoint is lent converted, and written back when the
                    // guard drops after the call.
                    Some(s) => {
                        let t = self.fresh("lent");
                        let (guard, arg) = match param_kind {
                            Kind::Array(_) => ("Precisions", format!("&mut {t}[..]")),
                            _ => ("Precision", format!("&mut *{t}")),
                        };
                        write_back.push((
                            format!(
                                "let mut {t} = nilang::adjoint::{guard}::<_, {s}, _>::new({code});"
                            ),
                            String::new(),
                        ));
                        arg
                    }
                    None => code,
                });
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
                k if k.is_unknown() || k.mentions_generic() => from.clone(),
                k => k,
            };
            let code = convert(code, &from, &to);
            if reads_guarded(value) {
                let t = self.fresh("v");
                pre.push(format!("let {t} = {code};"));
                args.push(t);
            } else {
                args.push(code);
            }
        }
        if sig.taped {
            args.push(self.tape_arg());
        }
        let call_line = format!("{path}({})?;", args.join(", "));
        if write_back.is_empty() && pre.is_empty() {
            self.line(&call_line);
            return;
        }
        // Column guards (no write-back line: they write back when dropped)
        // live in an inner block, so that the elements copied out are
        // written back after the columns are released.
        let (guards, elements): (Vec<_>, Vec<_>) =
            write_back.iter().partition(|(_, back)| back.is_empty());
        self.line("{");
        self.level += 1;
        for line in &pre {
            self.line(line);
        }
        for (decl, _) in &elements {
            self.line(decl);
        }
        if guards.is_empty() || elements.is_empty() {
            for (decl, _) in &guards {
                self.line(decl);
            }
            self.line(&call_line);
        } else {
            self.line("{");
            self.level += 1;
            for (decl, _) in &guards {
                self.line(decl);
            }
            self.line(&call_line);
            self.level -= 1;
            self.line("}");
        }
        for (_, back) in &elements {
            self.line(back);
        }
        self.level -= 1;
        self.line("}");
    }

    /// The function a call statement calls: for a template the instance
    /// of the functions passed to it (`nilang_analysis::values`), or the
    /// callee itself.
    pub(super) fn callee_name(&self, call: &Call) -> String {
        let name = &call.callee.name;
        let positions = self.function_positions(name);
        if positions.is_empty() {
            return name.clone();
        }
        match nilang_analysis::values::passed_functions(call, positions) {
            Some(functions) if !functions.is_empty() => {
                nilang_analysis::values::instance_name(name, &functions)
            }
            _ => name.clone(),
        }
    }

    /// The positions of a callee's `Fn` parameters (none unless it is a
    /// template).
    fn function_positions(&self, name: &str) -> Vec<usize> {
        self.ctx.callee(name).map_or_else(Vec::new, |sig| {
            sig.params
                .iter()
                .enumerate()
                .filter(|(_, (_, ty))| matches!(ty, Ty::Constructed(Ctor::Fn, _)))
                .map(|(i, _)| i)
                .collect()
        })
    }

    /// `call` (of a template) as a call of its instance `callee`: its
    /// arguments as the instance takes them
    /// (`values::instance_arguments`); `None` for other calls.
    pub(super) fn instance_call(&self, call: &Call, callee: &str) -> Option<Call> {
        if callee == call.callee.name {
            return None;
        }
        let positions = self.function_positions(&call.callee.name);
        if positions.is_empty() {
            return None;
        }
        Some(Call {
            args: nilang_analysis::values::instance_arguments(call, &positions)
                .into_iter()
                .cloned()
                .collect(),
            ..call.clone()
        })
    }

    /// The argument for a mutated parameter, and, for an element of an
    /// array, the temporary that carries it (declaration, write-back).
    pub(super) fn mutable_arg(&mut self, arg: &Expr) -> Option<(String, Option<(String, String)>)> {
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
}

/// Whether an expression reads the variable `name` anywhere.
fn mentions(e: &Expr, name: &str) -> bool {
    let mut found = false;
    e.walk(&mut |x| {
        if let ExprKind::Var(n) = &x.kind
            && n == name
        {
            found = true;
        }
    });
    found
}

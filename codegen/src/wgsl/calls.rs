//! Calls of `.nil` functions from a kernel: WGSL function calls, with
//! temporaries for arguments that are not local variables.

use super::*;

impl W<'_> {
    /// A call of a `.nil` function: a WGSL function call, arguments that
    /// are not local variables going through temporaries.
    pub(super) fn call(&mut self, call: &Call, span: Span) {
        let Some(callee) = self.ctx.callee_body(&call.callee.name) else {
            return self.unsupported(span, &format!("a call of `{}`", call.callee.name));
        };
        let pass = match (self.ad, call.inverted) {
            (false, false) => Pass::Forward,
            (false, true) => Pass::Inverse,
            (true, true) => Pass::Adjoint,
            (true, false) => Pass::UncallAdjoint,
        };
        self.needs.insert((call.callee.name.clone(), pass));
        let fl = self.float;
        let mut args = Vec::new();
        let mut after: Vec<After> = Vec::new();
        for (i, p) in callee.function.params.iter().enumerate() {
            let Some(arg) = call.args.get(i) else { return };
            let pk = callee
                .resolution
                .def_at(p.name.span)
                .map(|id| kind_of_ty(&callee.types.defs[id], fl))
                .unwrap_or(K::Unknown);
            if matches!(pk, K::Array(_) | K::Unknown) {
                return self.unsupported(arg.span, "passing an array to a function from a kernel");
            }
            let changed = callee.mutated.get(i).copied().unwrap_or(false);
            if changed {
                let Some((code, k)) = self.place(arg) else {
                    return;
                };
                if let Some(ptr) = code
                    .strip_prefix("(*")
                    .and_then(|c| c.strip_suffix(')'))
                    .filter(|_| k == pk)
                {
                    args.push(ptr.to_string());
                } else if k == pk && self.is_local_var(arg) {
                    args.push(format!("&{code}"));
                } else {
                    let t = self.fresh("arg");
                    self.line(&format!(
                        "var {t}: {} = {};",
                        wgsl_ty(pk),
                        self.conv(code.clone(), k, pk)
                    ));
                    args.push(format!("&{t}"));
                    after.push(After::Line(format!("{code} = {};", self.conv(t, pk, k))));
                }
            } else {
                let v = self.value_as(arg, pk);
                args.push(v);
            }
            if self.ad && matches!(pk, K::Float(_)) && !matches!(self.place_kind(arg), K::Float(_))
            {
                // An integer argument of a generic callee: no derivative.
                let t = self.fresh("bar");
                self.line(&format!("var {t}: {fl} = {fl}(0);"));
                args.push(format!("&{t}"));
            } else if self.ad && matches!(pk, K::Float(_)) {
                let direct = match &arg.kind {
                    ExprKind::Var(_) => self.var_bar(arg.span),
                    _ => None,
                };
                match direct {
                    Some(b) if b.starts_with("(*") => {
                        args.push(b[2..b.len() - 1].to_string());
                    }
                    Some(b) => args.push(format!("&{b}")),
                    None if changed => {
                        let Some(b) = self.bar_lvalue(arg) else {
                            return self.unsupported(arg.span, "the adjoint of this argument");
                        };
                        let t = self.fresh("bar");
                        self.line(&format!("var {t}: {fl} = {b};"));
                        args.push(format!("&{t}"));
                        after.push(After::Line(format!("{b} = {t};")));
                    }
                    None => {
                        // A read argument: its adjoint goes to what it reads.
                        let t = self.fresh("bar");
                        self.line(&format!("var {t}: {fl} = {fl}(0);"));
                        args.push(format!("&{t}"));
                        after.push(After::Spread { adjoint: t, arg: i });
                    }
                }
            }
        }
        for kw in &callee.function.kwparams {
            let k = callee
                .resolution
                .def_at(kw.name.span)
                .map(|id| kw_kind(kind_of_ty(&callee.types.defs[id], fl), fl))
                .unwrap_or(K::Float(fl));
            let value = call
                .kwargs
                .iter()
                .find(|a| a.name.name == kw.name.name)
                .map(|a| self.value_as(&a.value, k));
            let value = match value {
                Some(v) => v,
                None => {
                    // The default is written in the callee's terms: a literal.
                    let mut w = W {
                        resolution: &callee.resolution,
                        types: &callee.types,
                        mutated: &callee.mutated,
                        ctx: self.ctx,
                        float: fl,
                        out: String::new(),
                        level: 0,
                        tmp: 0,
                        diagnostics: Vec::new(),
                        ad: false,
                        entry: false,
                        atomic: BTreeSet::new(),
                        atomics: self.atomics,
                        log_sites: Default::default(),
                        needs: BTreeSet::new(),
                        partial_slots: None,
                    };
                    let v = w.value_as(&kw.default, k);
                    self.diagnostics.extend(w.diagnostics);
                    v
                }
            };
            args.push(value);
        }
        self.line(&format!(
            "{}({});",
            fn_name(&call.callee.name, pass),
            args.join(", ")
        ));
        for a in after {
            match a {
                After::Line(l) => self.line(&l),
                After::Spread { adjoint, arg } => {
                    let mut partials = Vec::new();
                    push_partials(self, &call.args[arg], None, &mut partials);
                    for (leaf, p) in partials {
                        self.bar_add(&leaf, &format!("{adjoint} * {p}"));
                    }
                }
            }
        }
    }
}

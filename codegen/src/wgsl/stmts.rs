//! Statements in WGSL: blocks, control flow, ancillas and instructions' dispatch.

use super::*;

impl W<'_> {
    pub(super) fn block(&mut self, stmts: &[Stmt]) {
        let pairs = routine_pairs(stmts);
        for (i, stmt) in stmts.iter().enumerate() {
            if let StmtKind::Unroutine = stmt.kind {
                if let Some(expansion) = unroutine_expansion(stmts, &pairs, i) {
                    self.stmt(&expansion);
                }
                continue;
            }
            self.stmt(stmt);
        }
    }

    pub(super) fn stmt(&mut self, stmt: &Stmt) {
        match &stmt.kind {
            StmtKind::Instr {
                target,
                op,
                broadcast,
                value,
                ..
            } => {
                if *broadcast {
                    return self.unsupported(stmt.span, "a broadcast");
                }
                if self.ad {
                    self.ad_instruction(target, *op, value, stmt.span);
                }
                let Some((p, pk)) = self.place(target) else {
                    return;
                };
                match op {
                    InstrOp::Add | InstrOp::Sub => {
                        let v = self.value_as(value, pk);
                        let sym = if *op == InstrOp::Add { "+=" } else { "-=" };
                        self.line(&format!("{p} {sym} {v};"));
                    }
                    InstrOp::Xor if pk == K::Bool => {
                        let v = self.value_as(value, K::Bool);
                        self.line(&format!("{p} = {p} != {v};"));
                    }
                    InstrOp::Xor => {
                        let v = self.value_as(value, K::Int);
                        self.line(&format!("{p} ^= {v};"));
                    }
                    _ => self.unsupported(stmt.span, "this instruction"),
                }
            }
            StmtKind::Call(call) => {
                if crate::builtins::instruction(&call.callee.name).is_some() {
                    let name = if call.inverted {
                        crate::builtins::instruction(&call.callee.name)
                            .map(|i| i.inverse)
                            .unwrap_or("")
                    } else {
                        crate::builtins::instruction(&call.callee.name)
                            .map(|i| i.name)
                            .unwrap_or("")
                    };
                    if self.ad {
                        self.ad_instruction_call(name, call, stmt.span);
                    }
                    self.instruction_call(name, call, stmt.span);
                } else {
                    self.call(call, stmt.span);
                }
            }
            StmtKind::Alloc { name, value } => {
                let id = self.def_of(name.span);
                let k = id
                    .map(|id| kind_of_ty(&self.types.defs[id], self.float))
                    .unwrap_or(K::Unknown);
                let k = match k {
                    K::Unknown => {
                        let (_, vk) = self.expr(value);
                        match vk {
                            K::LitInt => K::Int,
                            K::LitFloat => K::Float(self.float),
                            k => k,
                        }
                    }
                    k => k,
                };
                if matches!(k, K::Array(_) | K::Unknown) {
                    return self.unsupported(stmt.span, "this ancilla");
                }
                let v = self.value_as(value, k);
                let (var, _) = self.var(&name.name, name.span);
                self.line(&format!("var {var}: {} = {v};", wgsl_ty(k)));
                if self.ad
                    && let Some(b) = self.var_bar(name.span)
                {
                    self.line(&format!("var {b}: {} = {}(0);", self.float, self.float));
                }
            }
            StmtKind::Dealloc { name, value } => {
                if self.ad {
                    let var = Expr {
                        kind: ExprKind::Var(name.name.clone()),
                        span: name.span,
                    };
                    self.ad_instruction(&var, InstrOp::Sub, value, stmt.span);
                }
            }
            StmtKind::If {
                branches,
                otherwise,
            } => {
                for (i, b) in branches.iter().enumerate() {
                    let c = self.value_as(&b.cond.pre, K::Bool);
                    if i == 0 {
                        self.line(&format!("if ({c}) {{"));
                    } else {
                        self.level -= 1;
                        self.line(&format!("}} else if ({c}) {{"));
                    }
                    self.level += 1;
                    self.block(&b.body.stmts);
                }
                if let Some(o) = otherwise {
                    self.level -= 1;
                    self.line("} else {");
                    self.level += 1;
                    self.block(&o.stmts);
                }
                self.level -= 1;
                self.line("}");
            }
            StmtKind::While { cond, body } => {
                self.line("loop {");
                self.level += 1;
                let c = self.value_as(&cond.pre, K::Bool);
                self.line(&format!("if (!({c})) {{ break; }}"));
                self.block(&body.stmts);
                self.level -= 1;
                self.line("}");
            }
            StmtKind::For { var, range, body } => {
                let a = self.value_as(&range.start, K::Int);
                let s = match &range.step {
                    Some(s) => self.value_as(s, K::Int),
                    None => "1".into(),
                };
                let b = self.value_as(&range.stop, K::Int);
                let (va, vs, vb, n, k) = (
                    self.fresh("start"),
                    self.fresh("step"),
                    self.fresh("stop"),
                    self.fresh("count"),
                    self.fresh("k"),
                );
                self.line("{");
                self.level += 1;
                self.line(&format!("let {va}: i32 = {a};"));
                self.line(&format!("let {vs}: i32 = {s};"));
                self.line(&format!("let {vb}: i32 = {b};"));
                self.line(&format!("var {n}: i32 = 0;"));
                self.line(&format!(
                    "if (!({vs} == 0 || ({vs} > 0 && {va} > {vb}) || ({vs} < 0 && {va} < {vb}))) {{ {n} = ({vb} - {va}) / {vs} + 1; }}"
                ));
                self.line(&format!("for (var {k}: i32 = 0; {k} < {n}; {k}++) {{"));
                self.level += 1;
                let step = if range.reversed {
                    format!("({n} - 1 - {k})")
                } else {
                    k.clone()
                };
                let (v, _) = self.var(&var.name, var.span);
                self.line(&format!("let {v}: i32 = {va} + {step} * {vs};"));
                self.block(&body.stmts);
                self.level -= 1;
                self.line("}");
                self.level -= 1;
                self.line("}");
            }
            StmtKind::Begin(block) => self.block(&block.stmts),
            StmtKind::Inverse(inner) if matches!(inner.kind, StmtKind::Tape(_)) => self.stmt(inner),
            StmtKind::Inverse(inner) => self.stmt(&invert_stmt(inner)),
            StmtKind::Routine(inner, _)
            | StmtKind::InBounds(inner)
            | StmtKind::InvCheckOff(inner) => self.stmt(inner),
            // The analysis refuses a tape loop in a kernel and in each
            // function it calls (`db::kernel_callee_tapes`).
            StmtKind::Tape(_) => {}
            StmtKind::Unroutine => {}
            // Printing and assertions do not run on the device.
            StmtKind::Safe(_) => {}
            StmtKind::Typecast { .. } => self.unsupported(stmt.span, "a typecast"),
        }
    }

    /// Whether `e` is an ancilla (a `var` of this function, which a
    /// pointer can point to).
    pub(super) fn is_local_var(&self, e: &Expr) -> bool {
        matches!(e.kind, ExprKind::Var(_))
            && self
                .def_of(e.span)
                .is_some_and(|id| self.resolution.defs[id].kind == DefKind::Ancilla)
    }
}

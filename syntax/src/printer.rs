//! Prints the tree back as `.nil` source.
//!
//! The output parses to the same tree (modulo spans and comments, which the
//! tree does not keep). Arrows print as `←`/`→` and `xor` as `⊻=`.

use std::fmt::Write;

use crate::ast::*;

const INDENT: &str = "    ";

pub fn print_function(f: &Function) -> String {
    let mut p = Printer::default();
    p.function(f);
    p.out
}

pub fn print_stmt(stmt: &Stmt) -> String {
    let mut p = Printer::default();
    p.stmt(stmt);
    p.out.trim_end().to_string()
}

pub fn print_expr(expr: &Expr) -> String {
    let mut out = String::new();
    write_expr(&mut out, expr, 0);
    out
}

pub fn print_type(ty: &Type) -> String {
    let mut out = String::new();
    write_type(&mut out, ty);
    out
}

/// The signature line of a function: `function f(x::T; k::i64 = 1) where T: Real`.
pub fn print_signature(f: &Function) -> String {
    let mut out = String::new();
    if let Some(d) = &f.primitive {
        let _ = write!(out, "@primitive({}) ", d.name);
    }
    for (on, name) in [(f.kernel, "@kernel"), (f.inline, "@inline")] {
        if on {
            out.push_str(name);
            out.push(' ');
        }
    }
    let _ = write!(out, "function {}(", f.name.name);
    for (i, param) in f.params.iter().enumerate() {
        if i > 0 {
            out.push_str(", ");
        }
        out.push_str(&param.name.name);
        if let Some(ty) = &param.ty {
            out.push_str("::");
            if param.constant {
                out.push_str("Const<");
                write_type(&mut out, ty);
                out.push('>');
            } else {
                write_type(&mut out, ty);
            }
        }
    }
    if !f.kwparams.is_empty() {
        out.push_str("; ");
        for (i, kw) in f.kwparams.iter().enumerate() {
            if i > 0 {
                out.push_str(", ");
            }
            out.push_str(&kw.name.name);
            if let Some(ty) = &kw.ty {
                out.push_str("::");
                write_type(&mut out, ty);
            }
            out.push_str(" = ");
            write_expr(&mut out, &kw.default, 0);
        }
    }
    out.push(')');
    if !f.generics.is_empty() {
        out.push_str(" where ");
        for (i, g) in f.generics.iter().enumerate() {
            if i > 0 {
                out.push_str(", ");
            }
            out.push_str(&g.name.name);
            for (j, bound) in g.bounds.iter().enumerate() {
                out.push_str(if j == 0 { ": " } else { " + " });
                out.push_str(&bound.name);
            }
        }
    }
    out
}

#[derive(Default)]
struct Printer {
    out: String,
    level: usize,
}

impl Printer {
    fn line(&mut self, text: &str) {
        for _ in 0..self.level {
            self.out.push_str(INDENT);
        }
        self.out.push_str(text);
        self.out.push('\n');
    }

    fn function(&mut self, f: &Function) {
        if let Some(doc) = &f.doc {
            if doc.contains('\n') {
                self.line(&format!("\"\"\"\n{doc}\n\"\"\""));
            } else {
                self.line(&format!("\"\"\"{doc}\"\"\""));
            }
        }
        self.line(&print_signature(f));
        self.block(&f.body);
        self.line("end");
    }

    fn block(&mut self, block: &Block) {
        self.stmts(&block.stmts);
    }

    /// Statements one level in.
    fn stmts(&mut self, stmts: &[Stmt]) {
        self.level += 1;
        for stmt in stmts {
            self.stmt(stmt);
        }
        self.level -= 1;
    }

    fn stmt(&mut self, stmt: &Stmt) {
        self.stmt_with_prefix(stmt, "");
    }

    /// Prints `stmt`, its first line preceded by `prefix` (`@routine `, `~`...).
    fn stmt_with_prefix(&mut self, stmt: &Stmt, prefix: &str) {
        match &stmt.kind {
            StmtKind::Instr {
                target,
                op,
                broadcast,
                value,
                ..
            } => {
                let mut s = prefix.to_string();
                write_expr(&mut s, target, 0);
                let _ = write!(s, " {} ", op.as_str(*broadcast));
                write_expr(&mut s, value, 0);
                self.line(&s);
            }
            StmtKind::Call(call) => {
                let mut s = prefix.to_string();
                if call.inverted {
                    s.push('~');
                }
                let callee = match crate::ast::Derivative::of(&call.callee.name) {
                    Some(_) => format!("({})", call.callee.name),
                    None => call.callee.name.clone(),
                };
                write_call(&mut s, &callee, &call.args, &call.kwargs, false);
                self.line(&s);
            }
            StmtKind::Alloc { name, value } | StmtKind::Dealloc { name, value } => {
                let arrow = if matches!(stmt.kind, StmtKind::Alloc { .. }) {
                    "←"
                } else {
                    "→"
                };
                let mut s = format!("{prefix}{} {arrow} ", element_name(&name.name));
                write_expr(&mut s, value, 0);
                self.line(&s);
            }
            StmtKind::If {
                branches,
                otherwise,
            } => {
                for (i, branch) in branches.iter().enumerate() {
                    let keyword = if i == 0 {
                        format!("{prefix}if")
                    } else {
                        "elseif".to_string()
                    };
                    self.line(&format!("{keyword} {}", cond_text(&branch.cond)));
                    self.block(&branch.body);
                }
                if let Some(block) = otherwise {
                    self.line("else");
                    self.block(block);
                }
                self.line("end");
            }
            StmtKind::While { cond, body } => {
                self.line(&format!("{prefix}while {}", cond_text(cond)));
                self.block(body);
                self.line("end");
            }
            StmtKind::For { var, range, body } => {
                if let Some(each) = ForEach::of(var, range, body) {
                    let collection = collection_text(&each);
                    let collection = if range.reversed {
                        format!("reverse({collection})")
                    } else {
                        collection
                    };
                    self.line(&format!(
                        "{prefix}for {} in {collection}",
                        each.element.name
                    ));
                    self.stmts(each.body);
                } else {
                    self.line(&format!("{prefix}for {} = {}", var.name, range_text(range)));
                    self.block(body);
                }
                self.line("end");
            }
            StmtKind::Begin(block) if tuple_block(block).is_some() => {
                let (tuple, arrow, values) = tuple_block(block).unwrap_or_default();
                let mut s = format!("{prefix}{tuple} {arrow} (");
                for (i, v) in values.iter().enumerate() {
                    if i > 0 {
                        s.push_str(", ");
                    }
                    write_expr(&mut s, v, 0);
                }
                s.push(')');
                self.line(&s);
            }
            StmtKind::Begin(block) => {
                self.line(&format!("{prefix}begin"));
                self.block(block);
                self.line("end");
            }
            StmtKind::Inverse(inner) => {
                if is_compound(inner) {
                    self.stmt_with_prefix(inner, &format!("{prefix}~"));
                } else {
                    let body = print_stmt(inner);
                    self.line(&format!("{prefix}~({body})"));
                }
            }
            StmtKind::Routine(inner, storing) => {
                let store = match storing {
                    Storing::Store => "@store ",
                    Storing::Recompute => "",
                };
                self.stmt_with_prefix(inner, &format!("{prefix}{store}@routine "))
            }
            StmtKind::Unroutine => self.line(&format!("{prefix}~@routine")),
            StmtKind::Tape(inner) => self.stmt_with_prefix(inner, &format!("{prefix}@tape ")),
            StmtKind::Safe(expr) => {
                let mut s = format!("{prefix}@safe ");
                write_expr(&mut s, expr, 0);
                self.line(&s);
            }
            StmtKind::InvCheckOff(inner) => {
                self.stmt_with_prefix(inner, &format!("{prefix}@invcheckoff "))
            }
            StmtKind::InBounds(inner) => {
                self.stmt_with_prefix(inner, &format!("{prefix}@inbounds "))
            }
            StmtKind::Typecast { from, to, value } => {
                let mut s = format!("{prefix}(");
                write_type(&mut s, from);
                s.push_str(" => ");
                write_type(&mut s, to);
                s.push_str(")(");
                write_expr(&mut s, value, 0);
                s.push(')');
                self.line(&s);
            }
        }
    }
}

fn is_compound(stmt: &Stmt) -> bool {
    match &stmt.kind {
        StmtKind::If { .. }
        | StmtKind::While { .. }
        | StmtKind::For { .. }
        | StmtKind::Begin(_) => true,
        StmtKind::Inverse(inner) | StmtKind::InvCheckOff(inner) | StmtKind::InBounds(inner) => {
            is_compound(inner)
        }
        _ => false,
    }
}

/// A tuple variable's value `t.k` as the source writes it, `t[k]`; other
/// names as they are.
fn element_name(name: &str) -> String {
    match name.rsplit_once('.') {
        Some((tuple, k)) if k.bytes().all(|b| b.is_ascii_digit()) => format!("{tuple}[{k}]"),
        _ => name.to_string(),
    }
}

/// A block that allocates a tuple variable's values in order (`t ← (x,
/// y)`), or frees them last first (`t → (x, y)`): the tuple, the arrow and
/// the values in order.
fn tuple_block(block: &Block) -> Option<(String, &'static str, Vec<&Expr>)> {
    let mut tuple = None;
    let mut arrow = "";
    let mut values = Vec::new();
    for stmt in &block.stmts {
        let (name, value, a) = match &stmt.kind {
            StmtKind::Alloc { name, value } => (name, value, "←"),
            StmtKind::Dealloc { name, value } => (name, value, "→"),
            _ => return None,
        };
        let (t, k) = name.name.rsplit_once('.')?;
        let k: usize = k.parse().ok()?;
        if *tuple.get_or_insert(t) != t || (!arrow.is_empty() && arrow != a) {
            return None;
        }
        arrow = a;
        values.push((k, value));
    }
    if arrow == "→" {
        values.reverse();
    }
    values
        .iter()
        .enumerate()
        .all(|(i, (k, _))| *k == i + 1)
        .then(|| {
            (
                tuple.unwrap_or_default().to_string(),
                arrow,
                values.into_iter().map(|(_, v)| v).collect::<Vec<_>>(),
            )
        })
        .filter(|(_, _, v)| !v.is_empty())
}

pub fn cond_text(cond: &Cond) -> String {
    let mut s = String::new();
    match &cond.post {
        Post::Expr(post) => {
            s.push('(');
            write_expr(&mut s, &cond.pre, 0);
            s.push_str(", ");
            write_expr(&mut s, post, 0);
            s.push(')');
        }
        Post::SameAsPre(_) => {
            s.push('(');
            write_expr(&mut s, &cond.pre, 0);
            s.push_str(", ~)");
        }
        Post::Missing => write_expr(&mut s, &cond.pre, 0),
    }
    s
}

/// The collection a `for x in xs` walks, as written: `xs`, `A[:, j]`,
/// `A[i, :]`.
fn collection_text(each: &ForEach<'_>) -> String {
    let base = print_expr(each.base);
    match each.line {
        None => base,
        Some((Line::Column, j)) => format!("{base}[:, {}]", print_expr(j)),
        Some((Line::Row, i)) => format!("{base}[{}, :]", print_expr(i)),
    }
}

pub fn range_text(range: &Range) -> String {
    let mut s = String::new();
    if range.reversed {
        s.push_str("reverse(");
    }
    write_range(&mut s, range);
    if range.reversed {
        s.push(')');
    }
    s
}

fn write_range(out: &mut String, range: &Range) {
    write_expr(out, &range.start, 4);
    out.push(':');
    if let Some(step) = &range.step {
        write_expr(out, step, 4);
        out.push(':');
    }
    write_expr(out, &range.stop, 4);
}

fn write_type(out: &mut String, ty: &Type) {
    match &ty.kind {
        TypeKind::Named { name, args } => {
            out.push_str(name);
            if !args.is_empty() {
                out.push('<');
                for (i, a) in args.iter().enumerate() {
                    if i > 0 {
                        out.push_str(", ");
                    }
                    write_type(out, a);
                }
                out.push('>');
            }
        }
        TypeKind::Slice(inner) => {
            out.push('[');
            write_type(out, inner);
            out.push(']');
        }
        TypeKind::Tuple(items) => {
            out.push('(');
            for (i, a) in items.iter().enumerate() {
                if i > 0 {
                    out.push_str(", ");
                }
                write_type(out, a);
            }
            out.push(')');
        }
    }
}

fn write_call(out: &mut String, callee: &str, args: &[Expr], kwargs: &[KwArg], broadcast: bool) {
    out.push_str(callee);
    if broadcast {
        out.push('.');
    }
    out.push('(');
    for (i, a) in args.iter().enumerate() {
        if i > 0 {
            out.push_str(", ");
        }
        write_expr(out, a, 0);
    }
    if !kwargs.is_empty() {
        out.push_str("; ");
        for (i, k) in kwargs.iter().enumerate() {
            if i > 0 {
                out.push_str(", ");
            }
            let _ = write!(out, "{} = ", k.name.name);
            write_expr(out, &k.value, 0);
        }
    }
    out.push(')');
}

/// Writes `expr`, parenthesised if it binds looser than `min_prec`.
fn write_expr(out: &mut String, expr: &Expr, min_prec: u8) {
    crate::stack::deep(|| match &expr.kind {
        ExprKind::Var(name) => out.push_str(&element_name(name)),
        ExprKind::Int(text) | ExprKind::Float(text) | ExprKind::Str(text) => out.push_str(text),
        ExprKind::Bool(b) => out.push_str(if *b { "true" } else { "false" }),
        ExprKind::Call {
            callee,
            args,
            kwargs,
            broadcast,
        } => write_call(out, &callee.name, args, kwargs, *broadcast),
        ExprKind::Index { base, indices } => {
            write_expr(out, base, 10);
            out.push('[');
            for (i, index) in indices.iter().enumerate() {
                if i > 0 {
                    out.push_str(", ");
                }
                match index {
                    IndexArg::Expr(e) => write_expr(out, e, 0),
                    IndexArg::Range(r) => write_range(out, r),
                    IndexArg::Colon(_) => out.push(':'),
                }
            }
            out.push(']');
        }
        ExprKind::Field { base, field } => {
            write_expr(out, base, 10);
            out.push('.');
            out.push_str(&field.name);
        }
        ExprKind::Adjoint(inner) => {
            write_expr(out, inner, 10);
            out.push('\'');
        }
        ExprKind::Unary { op, operand } => {
            let wrap = min_prec > 8;
            if wrap {
                out.push('(');
            }
            out.push_str(op.as_str());
            write_expr(out, operand, 8);
            if wrap {
                out.push(')');
            }
        }
        ExprKind::Binary { op, lhs, rhs } => {
            let prec = op.precedence();
            let wrap = prec < min_prec;
            if wrap {
                out.push('(');
            }
            let (lp, rp) = if op.right_assoc() {
                (prec + 1, prec)
            } else {
                (prec, prec + 1)
            };
            write_expr(out, lhs, lp);
            let _ = write!(out, " {} ", op.as_str());
            write_expr(out, rhs, rp);
            if wrap {
                out.push(')');
            }
        }
        ExprKind::Paren(inner) => {
            out.push('(');
            write_expr(out, inner, 0);
            out.push(')');
        }
        ExprKind::Tuple(items) => {
            out.push('(');
            for (i, e) in items.iter().enumerate() {
                if i > 0 {
                    out.push_str(", ");
                }
                write_expr(out, e, 0);
            }
            if items.len() == 1 {
                out.push(',');
            }
            out.push(')');
        }
        ExprKind::Macro { name, arg } => {
            let wrap = min_prec > 0;
            if wrap {
                out.push('(');
            }
            out.push_str(name);
            if let Some(arg) = arg {
                out.push(' ');
                write_expr(out, arg, 0);
            }
            if wrap {
                out.push(')');
            }
        }
        ExprKind::Error => out.push_str("__error__"),
    })
}

/// A `using` or `import` declaration, one line.
pub fn print_import(import: &Import) -> String {
    match &import.names {
        None => format!("using {}\n", import.module.name),
        Some(names) => {
            let names: Vec<&str> = names.iter().map(|n| n.name.as_str()).collect();
            format!("import {}: {}\n", import.module.name, names.join(", "))
        }
    }
}

/// A struct definition, one field a line.
pub fn print_struct(def: &StructDef) -> String {
    let mut p = Printer::default();
    if let Some(doc) = &def.doc {
        if doc.contains('\n') {
            p.line(&format!("\"\"\"\n{doc}\n\"\"\""));
        } else {
            p.line(&format!("\"\"\"{doc}\"\"\""));
        }
    }
    let mut head = format!("struct {}", def.name.name);
    if !def.generics.is_empty() {
        head.push('{');
        for (i, g) in def.generics.iter().enumerate() {
            if i > 0 {
                head.push_str(", ");
            }
            head.push_str(&g.name.name);
            for (j, bound) in g.bounds.iter().enumerate() {
                head.push_str(if j == 0 { ": " } else { " + " });
                head.push_str(&bound.name);
            }
        }
        head.push('}');
    }
    p.line(&head);
    p.level += 1;
    for field in &def.fields {
        p.line(&format!("{}::{}", field.name.name, print_type(&field.ty)));
    }
    p.level -= 1;
    p.line("end");
    p.out
}

//! The checks of how one function uses structs (E0904, E0905, E0907), and
//! the type of a place through a struct's fields. Struct types themselves
//! (the table, instantiation) are [`crate::structs`].

use crate::ast::*;
use crate::builtins;
use crate::diagnostics::Diagnostic;
use crate::resolve::Resolution;
use crate::structs::StructTable;
use crate::ty::Ty;
use crate::types::FunctionTypes;

/// The checks of struct uses in one function (function-relative spans):
/// E0904 (a field the struct does not have), E0905 (a construction with the
/// wrong number of values), E0907 (a construction anywhere but as the value
/// of `←` or `→`).
pub fn check_function(
    function: &Function,
    resolution: &Resolution,
    types: &FunctionTypes,
    table: &StructTable,
) -> Vec<Diagnostic> {
    let mut out = Vec::new();
    if table.by_name.is_empty() {
        return out;
    }
    let mut stmts: Vec<&Stmt> = Vec::new();
    crate::effects::visit_block(&function.body, &mut |s| stmts.push(s));
    for stmt in &stmts {
        whole_struct_uses(stmt, resolution, types, table, &mut out);
    }
    for stmt in stmts {
        // The constructions allowed here: the value of `←`/`→`, and the
        // constructions nested in it as field values.
        let mut allowed: Vec<Span> = Vec::new();
        if let StmtKind::Alloc { value, .. } | StmtKind::Dealloc { value, .. } = &stmt.kind {
            allowed_constructions(value, table, &mut allowed);
        }
        crate::ast::stmt_exprs(stmt, &mut |e: &Expr| {
            e.walk(&mut |sub: &Expr| match &sub.kind {
                ExprKind::Call { callee, args, .. } => {
                    let Some(def) = table.get(&callee.name) else {
                        return;
                    };
                    if args.len() != def.fields.len() {
                        out.push(
                            Diagnostic::error(
                                "E0905",
                                callee.span,
                                format!(
                                    "struct `{}` has {} field{}, but {} value{} given",
                                    def.name.name,
                                    def.fields.len(),
                                    if def.fields.len() == 1 { "" } else { "s" },
                                    args.len(),
                                    if args.len() == 1 { " was" } else { "s were" }
                                ),
                            )
                            .with_label("wrong number of values")
                            .with_help(format!(
                                "give one value per field, in order: `{}({})`",
                                def.name.name,
                                def.fields
                                    .iter()
                                    .map(|f| f.name.name.as_str())
                                    .collect::<Vec<_>>()
                                    .join(", ")
                            )),
                        );
                    }
                    if !allowed.contains(&sub.span) {
                        out.push(
                            Diagnostic::error(
                                "E0907",
                                sub.span,
                                format!("`{}(...)` builds a struct value here", def.name.name),
                            )
                            .with_label("a construction inside an expression")
                            .with_help(format!(
                                "construct into an ancilla, `p ← {}(...)`, and take it apart with `p → {}(...)`",
                                def.name.name, def.name.name
                            )),
                        );
                    }
                }
                ExprKind::Field { base, field } => {
                    if let Some(Ty::Struct { name, fields, .. }) =
                        place_type(base, resolution, types).as_ref()
                        && !fields.iter().any(|(f, _)| *f == field.name)
                    {
                        let names: Vec<&str> = fields.iter().map(|(f, _)| f.as_str()).collect();
                        let help = match builtins::closest(&field.name, names.iter().copied()) {
                            Some(s) => format!("did you mean `{s}`?"),
                            None => format!("the fields of `{name}` are {}", names.join(", ")),
                        };
                        out.push(
                            Diagnostic::error(
                                "E0904",
                                field.span,
                                format!("struct `{name}` has no field `{}`", field.name),
                            )
                            .with_label("unknown field")
                            .with_help(help),
                        );
                    }
                }
                _ => {}
            })
        });
    }
    out
}

/// E0908: a whole struct where a number is needed, in an instruction (as
/// its target or inside its value), a condition, a range, or as the
/// operand of a built-in instruction other than `SWAP`. A whole struct may
/// be allocated from, compared at a deallocation, passed to a function, put
/// in a field of a construction, and swapped.
fn whole_struct_uses(
    stmt: &Stmt,
    resolution: &Resolution,
    types: &FunctionTypes,
    table: &StructTable,
    out: &mut Vec<Diagnostic>,
) {
    let mut values: Vec<(&Expr, bool)> = Vec::new();
    match &stmt.kind {
        StmtKind::Instr { target, value, .. } => {
            values.push((target, false));
            values.push((value, false));
        }
        StmtKind::Call(call) => {
            let instruction = builtins::instruction(&call.callee.name);
            let whole = instruction.is_none() || call.callee.name == "SWAP";
            for a in &call.args {
                values.push((a, whole));
            }
            for k in &call.kwargs {
                values.push((&k.value, whole));
            }
        }
        StmtKind::Alloc { value, .. } | StmtKind::Dealloc { value, .. } => {
            values.push((value, true));
        }
        StmtKind::If { branches, .. } => {
            for b in branches {
                values.push((&b.cond.pre, false));
                if let Post::Expr(e) = &b.cond.post {
                    values.push((e, false));
                }
            }
        }
        StmtKind::While { cond, .. } => {
            values.push((&cond.pre, false));
            if let Post::Expr(e) = &cond.post {
                values.push((e, false));
            }
        }
        StmtKind::For { range, .. } => {
            values.push((&range.start, false));
            if let Some(step) = &range.step {
                values.push((step, false));
            }
            values.push((&range.stop, false));
        }
        _ => {}
    }
    for (e, whole) in values {
        check_value(e, whole, resolution, types, table, out);
    }
}

fn check_value(
    e: &Expr,
    whole: bool,
    resolution: &Resolution,
    types: &FunctionTypes,
    table: &StructTable,
    out: &mut Vec<Diagnostic>,
) {
    nilang_syntax::stack::deep(|| {
        let children = |e: &Expr, whole: bool, out: &mut Vec<Diagnostic>| {
            check_value(e, whole, resolution, types, table, out)
        };
        match &e.kind {
            ExprKind::Var(_) | ExprKind::Index { .. } | ExprKind::Field { .. } => {
                if !whole && let Some(Ty::Struct { name, .. }) = place_type(e, resolution, types) {
                    out.push(
                    Diagnostic::error(
                        "E0908",
                        e.span,
                        format!("a whole `{name}` struct is used where a number is needed"),
                    )
                    .with_label("a struct value")
                    .with_help(
                        "use one of its fields (`p.x`); a whole struct can be allocated from, passed to a function, swapped, or put in a field of a construction",
                    ),
                );
                }
                // The base of a field access is read only through the field;
                // the indices of an element are numbers.
                if let ExprKind::Index { indices, .. } = &e.kind {
                    for i in indices {
                        match i {
                            IndexArg::Expr(x) => children(x, false, out),
                            IndexArg::Range(r) => {
                                children(&r.start, false, out);
                                if let Some(step) = &r.step {
                                    children(step, false, out);
                                }
                                children(&r.stop, false, out);
                            }
                            IndexArg::Colon(_) => {}
                        }
                    }
                }
            }
            ExprKind::Call { callee, args, .. } if table.get(&callee.name).is_some() => {
                for a in args {
                    children(a, true, out);
                }
            }
            ExprKind::Call { args, kwargs, .. } => {
                for a in args {
                    children(a, false, out);
                }
                for k in kwargs {
                    children(&k.value, false, out);
                }
            }
            ExprKind::Paren(inner) => children(inner, whole, out),
            ExprKind::Adjoint(inner) | ExprKind::Unary { operand: inner, .. } => {
                children(inner, false, out)
            }
            ExprKind::Binary { lhs, rhs, .. } => {
                children(lhs, false, out);
                children(rhs, false, out);
            }
            ExprKind::Tuple(items) => {
                for i in items {
                    children(i, whole, out);
                }
            }
            _ => {}
        }
    })
}

fn allowed_constructions(value: &Expr, table: &StructTable, out: &mut Vec<Span>) {
    nilang_syntax::stack::deep(|| {
        if let ExprKind::Call { callee, args, .. } = &value.kind
            && table.get(&callee.name).is_some()
        {
            out.push(value.span);
            for a in args {
                allowed_constructions(a, table, out);
            }
        }
    })
}

/// The type of a place (`p`, `ps[i]`, `p.q`), where it is evident.
pub fn place_type(expr: &Expr, resolution: &Resolution, types: &FunctionTypes) -> Option<Ty> {
    nilang_syntax::stack::deep(|| match &expr.kind {
        ExprKind::Var(_) => {
            let id = resolution.def_at(expr.span)?;
            types.defs.get(id).cloned()
        }
        ExprKind::Index { base, .. } => {
            Some(place_type(base, resolution, types)?.element().clone())
        }
        ExprKind::Field { base, field } => Some(crate::ty::field_type(
            &place_type(base, resolution, types)?,
            &field.name,
        )),
        ExprKind::Paren(inner) => place_type(inner, resolution, types),
        _ => None,
    })
}

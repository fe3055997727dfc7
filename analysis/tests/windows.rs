//! The index windows of `for` loops (`nilang_analysis::windows`): which
//! vector accesses the Rust backend may take as one slice per loop, and
//! which elements (cells) as one local per loop.

use expect_test::{Expect, expect};
use nilang_analysis::ast::{Stmt, StmtKind, walk_stmts};
use nilang_analysis::db::{
    function_ast, function_types, lookup_function, mutated_params, resolve_function,
};
use nilang_analysis::printer::print_expr;
use nilang_analysis::ty::{Ctor, Ty};
use nilang_analysis::windows::windows;
use nilang_analysis::{Project, RootDatabase, SourceFile};

/// Each `for` loop of `f` in `source` and its windows, one per line:
/// `array[var + offset]`, then `exclusive` / `written`, then how many
/// accesses.
fn check(source: &str, expected: Expect) {
    let db = RootDatabase::default();
    let file = SourceFile::new(&db, "w.nil".into(), source.to_string());
    let project = Project::new(&db, vec![file]);
    let f = lookup_function(&db, project, "f").expect("a function f");
    let ast = function_ast(&db, f).expect("its tree");
    let resolution = resolve_function(&db, f);
    let types = function_types(&db, f);
    let dims = |d: usize| match &types.defs[d] {
        Ty::Slice(_) | Ty::Constructed(Ctor::Vec, _) => 1,
        Ty::Constructed(Ctor::Matrix, _) => 2,
        _ => 0,
    };
    let mut out = String::new();
    walk_stmts(&ast.body.stmts, &mut |s: &Stmt| {
        if let StmtKind::For { var, body, .. } = &s.kind {
            out.push_str(&format!("for {}:\n", var.name));
            // What a call changes: the callee's analysis, as the Rust
            // backend asks it.
            let mutates = |call: &nilang_analysis::ast::Call, i: usize| {
                match nilang_analysis::builtins::instruction(&call.callee.name) {
                    Some(instr) => instr.mutates.contains(&i),
                    None => mutated_params(&db, project, &call.callee.name)
                        .and_then(|m| m.get(i).copied())
                        .unwrap_or(true),
                }
            };
            for w in windows(&var.name, body, resolution, &dims, &mutates) {
                let offset = w.offset.as_ref().map(|o| format!(" + ({})", print_expr(o)));
                let index = match (w.cell, &w.offset) {
                    (true, Some(i)) => format!("{} (cell)", print_expr(i)),
                    _ => format!("{}{}", var.name, offset.unwrap_or_default()),
                };
                let index = match &w.line {
                    Some((0, j)) => format!("{index}, {} (line)", print_expr(j)),
                    Some((_, j)) => format!("{}, {index} (line)", print_expr(j)),
                    None => index,
                };
                let index = if w.extra > 0 {
                    format!("{index} .. +{} {:?}", w.extra, w.shifts)
                } else {
                    index
                };
                out.push_str(&format!(
                    "  {}[{}]{}{} x{}\n",
                    resolution.defs[w.def].name,
                    index,
                    if w.exclusive { " exclusive" } else { "" },
                    if w.written { " written" } else { "" },
                    w.accesses.len()
                ));
            }
        }
    });
    expected.assert_eq(&out);
}

#[test]
fn a_triangular_product() {
    check(
        r#"
function f(y::[f64], q::[f64], l::[f64], x::[f64], off::i64, d::i64)
    for c = 1:d
        y[off + c] += q[off + c] * x[off + c]
        for r = c + 1:d
            y[off + r] += l[d + ((c - 1) * (2 * d - c)) ÷ 2 + r - c] * x[off + c]
        end
    end
end
"#,
        expect![[r#"
            for c:
              q[c + (off)] exclusive x1
              x[c + (off)] exclusive x2
              y[c + (off)] written x1
            for r:
              l[r + (d + ((c - 1) * (2 * d - c)) ÷ 2 - c)] exclusive x1
              x[off + c (cell)] exclusive x1
              y[r + (off)] exclusive written x1
        "#]],
    );
}

#[test]
fn what_is_not_a_window() {
    check(
        r#"
function f(y::[f64], x::[f64], z::[f64], k::i64, n::i64)
    for i = 1:n
        if (x[i] > 0.0, ~)
            y[i] += 1.0
        end
        z[2 * i] += x[i + k]
        z[i] += x[i + i]
        k += 1
    end
    for i = 1:n
        y[i] += x[i]
        y[i + 1] += x[i]
        SWAP(z[i], z[1])
        t ← zeros(f64, n)
        t[i] += 1.0
        t[i] -= 1.0
        t → zeros(f64, n)
    end
end
"#,
        expect![[r#"
            for i:
              x[i] x1
              z[i] written x1
            for i:
              x[i] exclusive x2
              y[i .. +1 [0, 1]] exclusive written x2
              z[i] written x1
              z[1 (cell)] written x1
        "#]],
    );
}

#[test]
fn a_vector_passed_to_a_call_that_only_reads_it_is_not_written() {
    check(
        r#"
function acc!(out::f64, a::f64, b::f64)
    out += a * b
end

function f(out::f64, x::[f64], y::[f64])
    for i = 1:length(x)
        acc!(out, x[i], y[i])
    end
end
"#,
        expect![[r#"
            for i:
              x[i] exclusive x1
              y[i] exclusive x1
        "#]],
    );
}

#[test]
fn lines_of_a_matrix() {
    check(
        r#"
function f(d::f64, x::Matrix{f64}, y::Matrix{f64}, a::i64, b::i64)
    for i = 1:size(x, 1)
        d += (x[i, a] - x[i, b]) ^ 2
        d += x[a, i + 1] * y[i, a]
    end
    for j = 1:size(y, 2)
        y[1, j] += x[j, j]
        d += x[j, a + b]
        if d > 0.0
            d += x[j, 1]
        end
        y[j, j] += 1.0
    end
end
"#,
        expect![[r#"
            for i:
              x[i, a (line)] x1
              x[i, b (line)] x1
              x[a, i + (1) (line)] x1
              y[i, a (line)] exclusive x1
            for j:
              y[1, j (line)] written x1
              x[j, a + b (line)] x1
        "#]],
    );
}

#[test]
fn whole_number_offsets_of_one_vector_are_one_window() {
    check(
        r#"
function f(y::[f64], x::[f64], p::[f64], t::f64, o::i64)
    for i = 2:length(x) - 1
        y[i] += x[i + 1] - 2.0 * x[i] + x[i - 1]
    end
    for j = 2:length(p)
        p[j] += p[j - 1] * t
        y[j] += p[j] * x[j + o] + x[j - 1]
    end
end
"#,
        expect![[r#"
            for i:
              x[i + (-1) .. +2 [2, 1, 0]] exclusive x3
              y[i] exclusive written x1
            for j:
              p[j + (-1) .. +1 [0, 1, 1]] exclusive written x3
              x[j + (o)] x1
              x[j + (-1)] x1
              y[j] exclusive written x1
        "#]],
    );
}

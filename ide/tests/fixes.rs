//! Quick fixes at a `$0` cursor: each fix's title and the file after its
//! edits, and the promise that the fix removes the diagnostic it answers
//! (the fixed file is checked again).

mod fixture;

use expect_test::{Expect, expect};
use fixture::Fixture;
use nilang_ide::{RootDatabase, SourceFile, Span};

fn apply(text: &str, edits: &[(Span, String)]) -> String {
    let mut edits = edits.to_vec();
    edits.sort_by_key(|(span, _)| std::cmp::Reverse(span.start));
    let mut out = text.to_string();
    for (span, new) in edits {
        out.replace_range(span.range(), &new);
    }
    out
}

fn codes_at_line(text: &str, code: &str) -> usize {
    let db = RootDatabase::default();
    let file = SourceFile::new(&db, "t.nil".into(), text.to_string());
    let project = nilang_ide::project_with_std(&db, vec![file], Vec::new());
    nilang_ide::file_diagnostics(&db, project, file)
        .iter()
        .filter(|d| d.code == code)
        .count()
}

fn check(marked: &str, expected: Expect) {
    let f = Fixture::new(marked);
    let fixes = nilang_ide::fixes(&f.db, f.project, f.file, Span::new(f.offset, f.offset));
    let mut actual = String::new();
    for fix in &fixes {
        let fixed = apply(&f.text, &fix.edits);
        let before = codes_at_line(&f.text, fix.diagnostic.code);
        let after = codes_at_line(&fixed, fix.diagnostic.code);
        assert!(
            after < before,
            "`{}` leaves {after} of {before} {}:\n{fixed}",
            fix.title,
            fix.diagnostic.code
        );
        actual.push_str(&format!(
            "{}: {}\n{fixed}\n",
            fix.diagnostic.code, fix.title
        ));
    }
    if fixes.is_empty() {
        actual.push_str("no fix\n");
    }
    expected.assert_eq(&actual);
}

#[test]
fn an_assignment_accumulates() {
    check(
        "function f(y::f64, x::f64)\n    y $0= x\nend\n",
        expect![[r#"
            E0204: Accumulate instead: `+=` (the place must hold zero first)
            function f(y::f64, x::f64)
                y += x
            end

        "#]],
    );
}

#[test]
fn a_float_product_goes_into_an_ancilla() {
    check(
        "function f(y::f64, x::f64, z::f64)\n    $0y *= x + 1.0\n    z += identity(y)\nend\n",
        expect![[r#"
            E0205: Accumulate the product into a new ancilla `y_times`
            function f(y::f64, x::f64, z::f64)
                y_times ← zero(y)
                y_times += y * (x + 1.0)
                z += identity(y)
            end

        "#]],
    );
}

#[test]
fn a_shared_read_is_squared_or_copied() {
    check(
        "function f(y::f64, x::f64)\n    y += x * $0x\nend\n",
        expect![[r#"
            E0210: Square with `abs2(x)`
            function f(y::f64, x::f64)
                y += abs2(x)
            end

            E0210: Read `x` the second time through a copy `x_copy`
            function f(y::f64, x::f64)
                x_copy ← zero(x)
                x_copy += x
                y += x * x_copy
                x_copy -= x
                x_copy → zero(x)
            end

        "#]],
    );
    // Not side by side: the copy only.
    check(
        "function f(y::f64, x::f64)\n    y += sin(x) / $0x\nend\n",
        expect![[r#"
            E0210: Read `x` the second time through a copy `x_copy`
            function f(y::f64, x::f64)
                x_copy ← zero(x)
                x_copy += x
                y += sin(x) / x_copy
                x_copy -= x
                x_copy → zero(x)
            end

        "#]],
    );
}

#[test]
fn an_unpaired_routine_is_closed_at_the_end_of_its_block() {
    check(
        "function f(y::f64, x::f64)\n    t ← 0.0\n    $0@routine begin\n        t += x\n    end\n    y += identity(t)\nend\n",
        expect![[r#"
            E0406: Uncompute it: add `~@routine` at the end of the block
            function f(y::f64, x::f64)
                t ← 0.0
                @routine begin
                    t += x
                end
                y += identity(t)
                ~@routine
            end

        "#]],
    );
}

#[test]
fn an_undefined_name_is_allocated_and_a_misspelt_call_corrected() {
    check(
        "function f(y::T, x::T) where T: Real\n    y += $0z * x\nend\n",
        expect![[r#"
            E0101: Allocate `z` here: `z ← zero(T)`
            function f(y::T, x::T) where T: Real
                z ← zero(T)
                y += z * x
            end

        "#]],
    );
    check(
        "function f(y::f64, x::f64)\n    $0hepler(y, x)\nend\nfunction helper(y::f64, x::f64)\n    y += x\nend\n",
        expect![[r#"
            E0102: Change to `helper`
            function f(y::f64, x::f64)
                helper(y, x)
            end
            function helper(y::f64, x::f64)
                y += x
            end

        "#]],
    );
}

#[test]
fn nothing_to_fix_where_no_diagnostic_is() {
    check(
        "function f(y::f64, x::f64)\n    y += $0x\nend\n",
        expect![[r#"
            no fix
        "#]],
    );
}

#[test]
fn nilang_jl_spellings_are_rewritten() {
    check(
        "$0@i function f(y::f64, x::f64)\n    y += x\nend\n",
        expect![[r#"
            E0006: Remove `@i`
            function f(y::f64, x::f64)
                y += x
            end

        "#]],
    );
    check(
        "function f(y::f64, k::i64)\n    if ($0k!=0, ~)\n        y += 1.0\n    end\nend\n",
        expect![[r#"
            E0006: Write `k != 0`
            function f(y::f64, k::i64)
                if (k != 0, ~)
                    y += 1.0
                end
            end

        "#]],
    );
    check(
        "function f(y::f64, n::i64)\n    k ← 0\n    $0@from k == 0 while k < n\n        k += 1\n    end\n    k → n\nend\n",
        expect![[r#"
            E0006: Write `while (k < n, k != 0)`
            function f(y::f64, n::i64)
                k ← 0
                while (k < n, k != 0)
                    k += 1
                end
                k → n
            end

        "#]],
    );
    check(
        "function f(y::f64, x::f64)\n    $0add(y, x)\nend\n",
        expect![[r#"
            E0102: Write `y += x`
            function f(y::f64, x::f64)
                y += x
            end

        "#]],
    );
    check(
        "function f(y::f64, v::$0AbstractVector{Float64})\n    y += v[1]\nend\n",
        expect![[r#"
            E0602: Write `[f64]`
            function f(y::f64, v::[f64])
                y += v[1]
            end

        "#]],
    );
}

#[test]
fn a_standard_library_function_not_imported() {
    check(
        "function f(out::f64, x::[f64], y::[f64])\n    i_do$0t(out, x, y)\nend\n",
        expect![[r#"
            E0102: Add `using std.linalg`
            using std.linalg

            function f(out::f64, x::[f64], y::[f64])
                i_dot(out, x, y)
            end

        "#]],
    );
    // After the file's imports.
    check(
        "using std.stats\n\nfunction f(out::f64, x::[f64])\n    i_nor$0m2(out, x)\nend\n",
        expect![[r#"
            E0102: Add `using std.linalg`
            using std.stats
            using std.linalg

            function f(out::f64, x::[f64])
                i_norm2(out, x)
            end

        "#]],
    );
}

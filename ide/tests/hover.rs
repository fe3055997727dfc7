//! Hover text at a `$0` cursor, one snapshot a case: the span the hover is
//! about, then the Markdown an editor shows.

mod fixture;

use expect_test::{Expect, expect};
use fixture::Fixture;

fn check(marked: &str, expected: Expect) {
    let f = Fixture::new(marked);
    let actual = match nilang_ide::hover(&f.db, f.project, f.file, f.offset) {
        Some(hover) => format!("{}\n\n{}\n", f.span(hover.range), hover.markdown),
        None => "no hover\n".to_string(),
    };
    expected.assert_eq(&actual);
}

const ADD: &str = r#""""Add `x` to `y!`."""
function add(y!::f64, x::f64)
    a ← zero(f64)
    a += x
    y! += identity(a)
    a -= x
    a → zero(f64)
end
"#;

/// `ADD` followed by `rest`, with the cursor somewhere in `rest`.
fn with_add(rest: &str) -> String {
    format!("{ADD}\n{rest}")
}

#[test]
fn function_call() {
    check(
        &with_add("function twice(y!::f64, x::f64)\n    ad$0d(y!, x)\n    add(y!, x)\nend\n"),
        expect![[r#"
            11:5-11:8 `add`

            ```nilang
            function add(y!::f64, x::f64)
            ```

            Add `x` to `y!`.

            **mutates:** `y!`  
            **reads only:** `x`

            ---

            **inverse of this statement:**
            ```nilang
            ~add(y!, x)
            ```
        "#]],
    );
}

#[test]
fn function_definition_shows_its_inverse() {
    check(
        &ADD.replacen("add(", "a$0dd(", 1),
        expect![[r#"
        2:10-2:13 `add`

        ```nilang
        function add(y!::f64, x::f64)
        ```

        Add `x` to `y!`.

        **mutates:** `y!`  
        **reads only:** `x`

        ---

        **inverse** `~add`:
        ```nilang
        """Add `x` to `y!`."""
        function add(y!::f64, x::f64)
            a ← zero(f64)
            a += x
            y! -= identity(a)
            a -= x
            a → zero(f64)
        end
        ```
    "#]],
    );
}

#[test]
fn parameter() {
    check(
        &ADD.replacen("a += x", "a += $0x", 1),
        expect![[r#"
        4:10-4:11 `x`

        ```nilang
        x::f64
        ```

        parameter 2 of `add`, read only

        ---

        **inverse of this statement:**
        ```nilang
        a -= x
        ```
    "#]],
    );
}

#[test]
fn mutated_parameter() {
    check(
        &ADD.replacen("y! +=", "$0y! +=", 1),
        expect![[r#"
        5:5-5:7 `y!`

        ```nilang
        y!::f64
        ```

        parameter 1 of `add`, **mutated**

        ---

        **inverse of this statement:**
        ```nilang
        y! -= identity(a)
        ```
    "#]],
    );
}

#[test]
fn ancilla() {
    check(
        &ADD.replacen("a += x", "$0a += x", 1),
        expect![[r#"
        4:5-4:6 `a`

        ```nilang
        a::f64
        ```

        ancilla, allocated as `a ← zero(f64)`, deallocated explicitly

        ---

        **inverse of this statement:**
        ```nilang
        a -= x
        ```
    "#]],
    );
}

#[test]
fn loop_variable() {
    check(
        "function count(n!::i64)\n    for i = 1:3\n        n! += $0i\n    end\nend\n",
        expect![[r#"
            3:15-3:16 `i`

            ```nilang
            i::i64
            ```

            loop variable, read only

            ---

            **inverse of this statement:**
            ```nilang
            n! -= i
            ```
        "#]],
    );
}

#[test]
fn instruction() {
    check(
        "function swap(a!::f64, b!::f64)\n    SW$0AP(a!, b!)\nend\n",
        expect![[r#"
            2:5-2:9 `SWAP`

            ```nilang
            SWAP(a!, b!)
            ```

            SWAP: exchange the values of `a` and `b` (inverse: SWAP)

            ---

            **inverse of this statement:**
            ```nilang
            SWAP(a!, b!)
            ```
        "#]],
    );
}

const POINT: &str = r#""""A point."""
struct Point{T}
    x::T
    y::T
end

function shift(p::Point{f64}, d::f64)
    q ← Point(d, 2.0)
    p.x += q.y
    q → Point(d, 2.0)
end
"#;

#[test]
fn struct_in_a_parameter_type() {
    check(
        &POINT.replacen("p::Point", "p::Po$0int", 1),
        expect![[r#"
        7:19-7:24 `Point`

        ```nilang
        """A point."""
        struct Point{T}
            x::T
            y::T
        end
        ```
    "#]],
    );
}

#[test]
fn struct_field() {
    check(
        &POINT.replacen("p.x", "p.$0x", 1),
        expect![[r#"
        9:7-9:8 `x`

        field `x::T` of struct `Point`

        ---

        ```nilang
        """A point."""
        struct Point{T}
            x::T
            y::T
        end
        ```

        ---

        **inverse of this statement:**
        ```nilang
        p.x -= q.y
        ```
    "#]],
    );
}

#[test]
fn nothing_between_functions() {
    check(
        &with_add("$0\nfunction g(x::f64)\nend\n"),
        expect![[r#"
        no hover
    "#]],
    );
}

#[test]
fn hover_on_a_derivative_call_shows_its_parameters() {
    check(
        r#"function sq(y::T, x::T) where T: Real
    y += x ^ 2
end

function use_it(y::T, x::T, yb::T, xb::T) where T: Real
    (∇s$0q)(y, yb, x, xb)
end
"#,
        expect![[r#"
            6:7-6:9 `sq`

            **gradient call: the arguments come back unchanged, each companion `b` becomes `Jᵀb`**
            ```nilang
            function (∇sq)(y::T, y_bar::T, x::T, x_bar::T) where T: Real
            ```

            ---

            ```nilang
            function sq(y::T, x::T) where T: Real
            ```

            **mutates:** `y`  
            **reads only:** `x`

            ---

            **inverse of this statement:**
            ```nilang
            ~(∇sq)(y, yb, x, xb)
            ```
        "#]],
    );
}

//! NiLang.jl's spellings that lower to forms the rest of the compiler
//! already knows: `end` in an index, `a ↔ b`, imaginary literals. The
//! printer shows what each became.

use expect_test::expect;
use nilang_syntax::{parser, printer};

fn lowered(body: &str) -> String {
    let text = format!("function f(y, x, A, z)\n{body}end\n");
    let parsed = parser::parse(&text);
    assert!(parsed.diagnostics.is_empty(), "{:?}", parsed.diagnostics);
    printer::print_function(&parsed.items[0].function)
}

#[test]
fn end_in_an_index_is_the_last_position_of_its_dimension() {
    expect![[r#"
        function f(y, x, A, z)
            y += x[length(x)] * x[length(x) - 1]
            y += A[1, size(A, 2)] + A[size(A, 1) - k, 1]
            y += x[y[length(y)]]
            z .+= x[2:length(x)]
            y += x[length(x) - (k + 1)]
        end
    "#]]
    .assert_eq(&lowered(
        "    y += x[end] * x[end - 1]\n    y += A[1, end] + A[end - k, 1]\n    y += x[y[end]]\n    z .+= x[2:end]\n    y += x[end - (k + 1)]\n",
    ));
}

#[test]
fn the_swap_arrow_and_imaginary_literals() {
    expect![[r#"
        function f(y, x, A, z)
            SWAP(x, y)
            SWAP(x[1], z.re)
            z += 3.0 * im + 2 * im
        end
    "#]]
    .assert_eq(&lowered(
        "    x ↔ y\n    x[1] ↔ z.re\n    z += 3.0im + 2im\n",
    ));
}

#[test]
fn end_outside_an_index_is_still_an_error() {
    let parsed = parser::parse("function f(y)\n    y += end\nend\n");
    assert!(!parsed.diagnostics.is_empty());
}

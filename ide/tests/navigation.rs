//! Go to definition and find references at a `$0` cursor, one snapshot a
//! case: each location as `line:column-line:column` and the text there;
//! and the signature a derivative call shows.

mod fixture;

use expect_test::{Expect, expect};
use fixture::Fixture;

fn check_definition(marked: &str, expected: Expect) {
    let f = Fixture::new(marked);
    let actual = nilang_ide::symbol_at(&f.db, f.project, f.file, f.offset)
        .and_then(|(symbol, _)| nilang_ide::definition(&f.db, f.project, &symbol))
        .map(|(file, span)| {
            assert_eq!(file, f.file);
            format!("{}\n", f.span(span))
        })
        .unwrap_or_else(|| "no definition\n".to_string());
    expected.assert_eq(&actual);
}

fn check_references(marked: &str, include_declaration: bool, expected: Expect) {
    let f = Fixture::new(marked);
    let Some((symbol, _)) = nilang_ide::symbol_at(&f.db, f.project, f.file, f.offset) else {
        expected.assert_eq("no symbol\n");
        return;
    };
    let actual: String = nilang_ide::references(&f.db, f.project, &symbol, include_declaration)
        .into_iter()
        .map(|(file, span)| {
            assert_eq!(file, f.file);
            format!("{}\n", f.span(span))
        })
        .collect();
    expected.assert_eq(&actual);
}

const ADD: &str = r#"function add(y!::f64, x::f64)
    a ← zero(f64)
    a += x
    y! += identity(a)
    a -= x
    a → zero(f64)
end

function twice(y!::f64, x::f64)
    add(y!, x)
    ~add(y!, x)
end
"#;

#[test]
fn definition_of_an_ancilla() {
    check_definition(
        &ADD.replacen("y! += identity(a)", "y! += identity($0a)", 1),
        expect![[r#"
            2:5-2:6 `a`
        "#]],
    );
}

#[test]
fn definition_of_a_function_call() {
    check_definition(
        &ADD.replacen("~add", "~a$0dd", 1),
        expect![[r#"
        1:10-1:13 `add`
    "#]],
    );
}

#[test]
fn definition_of_an_instruction() {
    check_definition(
        "function f(a!::f64, b!::f64)\n    $0SWAP(a!, b!)\nend\n",
        expect![[r#"
            no definition
        "#]],
    );
}

#[test]
fn references_of_a_parameter() {
    check_references(
        &ADD.replacen("a += x", "a += $0x", 1),
        true,
        expect![[r#"
        1:23-1:24 `x`
        3:10-3:11 `x`
        5:10-5:11 `x`
    "#]],
    );
}

#[test]
fn references_of_a_parameter_without_its_declaration() {
    check_references(
        &ADD.replacen("a += x", "a += $0x", 1),
        false,
        expect![[r#"
            3:10-3:11 `x`
            5:10-5:11 `x`
        "#]],
    );
}

#[test]
fn references_of_a_function() {
    check_references(
        &ADD.replacen("add(", "$0add(", 1),
        true,
        expect![[r#"
        1:10-1:13 `add`
        10:5-10:8 `add`
        11:6-11:9 `add`
    "#]],
    );
}

#[test]
fn references_of_a_struct_field() {
    check_references(
        "struct P{T}\n    x::T\nend\nfunction f(p::P{f64}, q::P{f64})\n    p.$0x += q.x\nend\n",
        true,
        expect![[r#"
            2:5-2:6 `x`
            5:7-5:8 `x`
            5:14-5:15 `x`
        "#]],
    );
}

const MOVES: &str = r#"function moves(y!::f64, x::f64, s::Stack<f64>)
    a ← zero(x)
    a += x
    b::∅ ↔ a
    y! += b
    s[end+1] ↔ b
    s[end] ↔ c::∅
    y! -= c
    c ↔ s[end+1]
end
"#;

#[test]
fn definition_of_a_variable_moved_into_an_empty_slot() {
    check_definition(
        &MOVES.replacen("y! += b", "y! += $0b", 1),
        expect![[r#"
            4:5-4:6 `b`
        "#]],
    );
    check_definition(
        &MOVES.replacen("y! -= c", "y! -= $0c", 1),
        expect![[r#"
            7:14-7:15 `c`
        "#]],
    );
}

#[test]
fn references_of_a_moved_variable() {
    check_references(
        &MOVES.replacen("b::∅", "$0b::∅", 1),
        true,
        expect![[r#"
            4:5-4:6 `b`
            5:11-5:12 `b`
            6:16-6:17 `b`
        "#]],
    );
}

const TEMPLATE: &str = r#"function square!(y!::T, x::T) where T: Real
    y! += x ^ 2
end

function map!(f::Fn<T, T>, ys::[T], xs::[T]) where T: Real
    for i = 1:length(xs)
        f(ys[i], xs[i])
    end
end

function squares(ys::[f64], xs::[f64])
    map!(square!, ys, xs)
end
"#;

#[test]
fn definition_of_a_function_passed_and_of_a_function_parameter() {
    check_definition(
        &TEMPLATE.replacen("map!(square!", "map!(squ$0are!", 1),
        expect![[r#"
            1:10-1:17 `square!`
        "#]],
    );
    check_definition(
        &TEMPLATE.replacen("        f(ys[i]", "        $0f(ys[i]", 1),
        expect![[r#"
            5:15-5:16 `f`
        "#]],
    );
}

#[test]
fn definition_of_a_function_of_another_package() {
    for marked in [
        "using lib.shapes\nfunction f(a::f64, w::f64)\n    ar$0ea!(a, w, w)\nend\n",
        "import lib.shapes: ar$0ea!\nfunction f(a::f64, w::f64)\n    area!(a, w, w)\nend\n",
    ] {
        let (f, library) = Fixture::with_library(marked);
        let (symbol, span) =
            nilang_ide::symbol_at(&f.db, f.project, f.file, f.offset).expect("symbol");
        assert!(f.span(span).ends_with("`area!`"), "{}", f.span(span));
        let (file, def) = nilang_ide::definition(&f.db, f.project, &symbol).expect("definition");
        assert_eq!(file, library);
        assert_eq!((def.start, def.end), (9, 14));
        // Its references include the call in this file.
        let refs = nilang_ide::references(&f.db, f.project, &symbol, false);
        assert!(refs.iter().any(|(file, _)| *file == f.file), "{refs:?}");
    }
}

#[test]
fn a_function_of_another_package_is_not_renamed() {
    let (f, _) = Fixture::with_library(
        "using lib.shapes\nfunction f(a::f64, w::f64)\n    ar$0ea!(a, w, w)\nend\n",
    );
    assert_eq!(
        nilang_ide::prepare_rename(&f.db, f.project, f.file, f.offset),
        Err("`area!` belongs to the module `lib.shapes` of another package".to_string())
    );
    // This crate's own functions still are.
    let (f, _) = Fixture::with_library(
        "function g!(y::f64)\n    y += 1.0\nend\nfunction f(y::f64)\n    g$0!(y)\nend\n",
    );
    assert!(nilang_ide::prepare_rename(&f.db, f.project, f.file, f.offset).is_ok());
}

#[test]
fn a_module_path_goes_to_its_file_and_hovers_with_its_functions() {
    let (f, library) = Fixture::with_library(
        "using lib.sha$0pes\nfunction f(a::f64, w::f64)\n    area!(a, w, w)\nend\n",
    );
    let (symbol, span) = nilang_ide::symbol_at(&f.db, f.project, f.file, f.offset).expect("symbol");
    assert!(f.span(span).ends_with("`lib.shapes`"), "{}", f.span(span));
    let (file, at) = nilang_ide::definition(&f.db, f.project, &symbol).expect("definition");
    assert_eq!((file, at.start), (library, 0));
    let hover = nilang_ide::hover(&f.db, f.project, f.file, f.offset).expect("hover");
    assert!(
        hover
            .markdown
            .contains("**module** `lib.shapes`: 2 functions")
            && hover.markdown.contains("`perimeter!`"),
        "{}",
        hover.markdown
    );
    assert!(nilang_ide::prepare_rename(&f.db, f.project, f.file, f.offset).is_err());
}

#[test]
fn a_partial_application_names_its_function_and_its_captured_values() {
    const PARTIAL: &str = "function scale!(y!::T, x::T, c::T) where T: Real\n    y! += c * x\nend\n\nfunction map!(f::Fn<T, T>, ys::[T], xs::[T]) where T: Real\n    for i = 1:length(xs)\n        f(ys[i], xs[i])\n    end\nend\n\nfunction scaled(ys::[f64], xs::[f64], c::f64)\n    map!(scale!(_, _, c), ys, xs)\nend\n";
    check_definition(
        &PARTIAL.replacen("map!(scale!", "map!(sca$0le!", 1),
        expect![[r#"
            1:10-1:16 `scale!`
        "#]],
    );
    check_definition(
        &PARTIAL.replacen("_, _, c)", "_, _, $0c)", 1),
        expect![[r#"
            11:39-11:40 `c`
        "#]],
    );
}

const DERIVATIVES: &str = r#"function sq(y::T, x::T) where T: Real
    y += x ^ 2
end

function use_both(y::T, x::T, yb::T, xb::T) where T: Real
    (∇sq)(y, yb, x, xb)
    ~(∂sq)(y, yb, x, xb)
end
"#;

#[test]
fn derivative_calls_are_mentions_of_their_function() {
    check_definition(
        &DERIVATIVES.replacen("(∇sq)", "(∇s$0q)", 1),
        expect![[r#"
            1:10-1:12 `sq`
        "#]],
    );
    check_references(
        &DERIVATIVES.replacen("function sq", "function s$0q", 1),
        true,
        expect![[r#"
            1:10-1:12 `sq`
            6:7-6:9 `sq`
            7:8-7:10 `sq`
        "#]],
    );
}

/// Signature help inside `(∇f)(` shows the derived parameters, companions
/// included, with the one at the cursor.
#[test]
fn signature_help_of_a_derivative_call() {
    let f = Fixture::new(&DERIVATIVES.replacen("(∇sq)(y, yb, x, xb)", "(∇sq)(y, yb, $0", 1));
    let help = nilang_ide::signature_help(&f.db, f.project, f.file, f.offset).expect("help");
    let active = help.parameters[help.active];
    let actual = format!(
        "{}\nactive: {}\n",
        help.label,
        &help.label[active.0 as usize..active.1 as usize]
    );
    expect![[r#"
        function (∇sq)(y::T, y_bar::T, x::T, x_bar::T) where T: Real
        active: x::T
    "#]]
    .assert_eq(&actual);
}

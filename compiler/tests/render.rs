//! Snapshots of how diagnostics look to a person and to a tool.

use expect_test::expect;
use nilang_compiler::db::{self, Project, RootDatabase, SourceFile};
use nilang_compiler::render;

const TEXT: &str = "function f(out!::f64, x::f64)\n    out! += x * out!\n    out! += x * x\nend\n";

fn diagnostics() -> Vec<nilang_compiler::Diagnostic> {
    let db = RootDatabase::default();
    let file = SourceFile::new(&db, "f.nil".into(), TEXT.into());
    let project = Project::new(&db, vec![file]);
    db::file_diagnostics(&db, project, file).to_vec()
}

#[test]
fn human_rendering() {
    let out = render::render_human("f.nil", TEXT, &diagnostics(), false);
    expect![[r#"
        error[E0201]: `out!` is read and written by the same instruction
          ┌─ f.nil:2:17
          │
        2 │     out! += x * out!
          │     ----        ^^^^ read here
          │     │            
          │     written here
          │
          = help: copy the value first: `tmp ← zero(T); tmp += out!`, use `tmp` on the right, then uncompute it

        error[E0210]: `x` is read twice by one instruction of a differentiated function
          ┌─ f.nil:3:17
          │
        3 │     out! += x * x
          │             -   ^ second use
          │             │    
          │             first use
          │
          = help: the gradient program would write the adjoint of `x` twice from one instruction (a shared write); square with `abs2(x)` or `x^2`, or copy it into an ancilla first: `t ← zero(T); t += x`, use `t`, then `t -= x; t → zero(T)`

    "#]]
    .assert_eq(&out);
}

#[test]
fn json_rendering() {
    let d = &diagnostics()[0];
    let json = serde_json::to_string_pretty(&render::to_json("f.nil", TEXT, d)).unwrap();
    expect![[r#"
        {
          "file": "f.nil",
          "code": "E0201",
          "severity": "error",
          "message": "`out!` is read and written by the same instruction",
          "range": {
            "start_byte": 46,
            "end_byte": 50,
            "start_line": 2,
            "start_column": 17,
            "end_line": 2,
            "end_column": 21
          },
          "label": "read here",
          "secondary": [
            {
              "range": {
                "start_byte": 34,
                "end_byte": 38,
                "start_line": 2,
                "start_column": 5,
                "end_line": 2,
                "end_column": 9
              },
              "message": "written here"
            }
          ],
          "help": "copy the value first: `tmp ← zero(T); tmp += out!`, use `tmp` on the right, then uncompute it"
        }"#]]
    .assert_eq(&json);
}

#[test]
fn indexed_line_and_column_agree_with_the_scan() {
    use nilang_compiler::render::{line_col, line_col_indexed, line_starts};
    for text in [
        "",
        "a",
        "\n",
        "ab\ncd\n\nθx\r\ny",
        "function f(y::f64)\n    y += 1\nend\n",
    ] {
        let starts = line_starts(text);
        for offset in 0..=text.len() as u32 + 2 {
            assert_eq!(
                line_col_indexed(text, &starts, offset),
                line_col(text, offset),
                "{text:?} at {offset}"
            );
        }
    }
}

/// The diagnostics of one file of the ui suite, one a line with the text
/// it points at, its message and help line, and (`edits`) the suggested
/// edit.
fn ui_messages(name: &str, edits: bool) -> String {
    let path = format!("{}/tests/ui/{name}", env!("CARGO_MANIFEST_DIR"));
    let text = std::fs::read_to_string(path).expect("the ui file");
    let db = RootDatabase::default();
    let file = SourceFile::new(&db, name.into(), text.clone());
    let project = Project::new(&db, vec![file]);
    let mut out = String::new();
    for d in db::file_diagnostics(&db, project, file).iter() {
        let (line, column) = render::line_col(&text, d.primary.span.start);
        let shown = &text[d.primary.span.range()];
        out.push_str(&format!(
            "{line}:{column} {} `{shown}`: {}\n    help: {}\n",
            d.code,
            d.message,
            d.help.as_deref().unwrap_or("-")
        ));
        if let Some(s) = d.suggestion.as_ref().filter(|_| edits) {
            out.push_str(&format!(
                "    edit: `{}` -> `{}`\n",
                &text[s.span.range()],
                s.replacement
            ));
        }
    }
    out
}

/// NiLang.jl habits that used to get cascades (`tests/ui/julia_cascades.nil`):
/// one diagnostic each, its message, help line and suggested edit.
#[test]
fn julia_cascades_get_one_error_naming_what_to_write() {
    let out = ui_messages("julia_cascades.nil", true);
    expect![[r#"
        6:15 E0006 `x -> x < 0`: `x -> x < 0` is a closure; closures are not in the language
            help: write it as a named `function` and pass its name, or pass a partial application of one, such as `f!(_, c)` with `c` fixed (docs/language.md, "Functions as values")
        11:5 E0006 `return y`: `return` is not in the language: a function returns nothing
            help: a function's results are written into the parameters it changes (by convention named with `!`, such as `out!`): accumulate into one (`out! += y`) and remove the `return`
        15:5 E0006 `@zeros f64 a b`: `@zeros` is NiLang.jl's macro; here each ancilla is allocated on its own line
            help: write `a ← zero(f64)`, `b ← zero(f64)`
            edit: `@zeros f64 a b` -> `a ← zero(f64)
            b ← zero(f64)`
        20:12 E0006 `|> INV`: `|> INV` is NiLang.jl's; here what runs backwards is written with `~`
            help: to run a call backwards write `~f(args...)` (or `~begin ... end` for a block); to apply a function, call it: `f(x)`
        24:5 E0006 `PlusEq(identity)(y, x)`: `PlusEq(f)(y, x...)` is NiLang.jl's instruction object; here it is the operator `+=`
            help: write `y += x`
            edit: `PlusEq(identity)(y, x)` -> `y += x`
        28:5 E0006 `Grad(f)(Val(1), y, x)`: `Grad(f)(Val(i), ...)` is NiLang.jl's gradient; here it is the derivative call `(∇f)(...)`
            help: write `(∇f)(...)` with `f`'s arguments, each differentiable one followed by its companion that receives the gradient (docs/language.md, "Derivatives inside `.nil`")
        32:5 E0006 `@skip! y`: `@skip!` is NiLang.jl's macro; it is not in the language
            help: remove `@skip!`: an argument a call only reads needs no mark here (the analysis finds what each call changes), and a statement for its side effect only (printing) is written `@safe ...`
        37:13 E0006 `@skip!(x)`: `@skip!` is NiLang.jl's macro; it is not in the language
            help: remove `@skip!`: an argument a call only reads needs no mark here (the analysis finds what each call changes), and a statement for its side effect only (printing) is written `@safe ...`
        41:10 E0006 `@const length(x)`: `@const` is NiLang.jl's macro; it is not needed here
            help: remove `@const`: an expression on the right of an instruction is only read, and a parameter that carries no derivative is declared `Const<T>`
            edit: `@const ` -> ``
        45:5 E0006 `FLOAT64_STACK`: `FLOAT64_STACK` is one of NiLang.jl's global stacks; here there is no global state
            help: use a stack of your own: a parameter `s::Stack<f64>`, or an ancilla `s ← stack(f64)` that is empty again when freed; then `s[end+1] ↔ x` pushes and `s[end] ↔ x` pops (docs/language.md, "Stacks")
        49:12 E0006 `2i`: `2i` is Julia's implicit multiplication; here `*` is written
            help: write `2 * i`
            edit: `2i` -> `2 * i`
        53:5 E0006 `for (i, v) in enumerate(x)`: `for (i, v) in enumerate(x)` is Julia's; here a loop runs over a range or over one collection
            help: write `for i = 1:length(x)` and read `x[i]` where the body reads `v`
    "#]].assert_eq(&out);
}

/// NiLang.jl habits (`tests/ui/julia_habits.nil`): each diagnostic's message
/// and the rewrite in its help line.
#[test]
fn julia_habits_get_the_rewrite_as_help() {
    let out = ui_messages("julia_habits.nil", false);
    expect![[r#"
        4:1 E0006 `@i`: `@i` is NiLang.jl's macro; a `.nil` function is reversible without it
            help: remove `@i`: write `function name(...) ... end`
        9:5 E0102 `add`: unknown function `add`
            help: `add` is NiLang.jl's spelling of an instruction: write `y += x`
        10:5 E0102 `neg`: unknown function `neg`
            help: `neg` is NiLang.jl's spelling of an instruction: write `NEG(y)`
        11:5 E0102 `swap`: unknown function `swap`
            help: `swap` is NiLang.jl's spelling of an instruction: write `SWAP(x, y)`
        19:9 E0006 `k!=`: `k!=` reads as the name `k!` followed by `=`
            help: for "not equal", put a space before `!=`: `k != 0`
        24:25 E0602 `Float64`: unknown type `Float64`
            help: this is Julia's spelling: write `f64`
        24:37 E0602 `AbstractVector{Float64}`: unknown type `AbstractVector`
            help: this is Julia's spelling: write `[f64]`
        24:65 E0602 `AbstractMatrix{Float32}`: unknown type `AbstractMatrix`
            help: this is Julia's spelling: write `Matrix<f32>`
        28:18 E0601 `y`: parameter `y` has no type
            help: unlike NiLang.jl, which leaves types to Julia's dispatch, a parameter here needs one: `y::f64`, `y::[f64]`, or a type parameter (`y::T` with `where T: Real`)
        28:21 E0601 `x`: parameter `x` has no type
            help: unlike NiLang.jl, which leaves types to Julia's dispatch, a parameter here needs one: `x::f64`, `x::[f64]`, or a type parameter (`x::T` with `where T: Real`)
        34:5 E0006 `@from k == 0 while k < n`: `@from c while d` is NiLang.jl's loop; here it is `while (d, !c)`
            help: write `while (k < n, k != 0)`: the first condition decides whether to iterate, the second must be false on entry and true after every iteration
    "#]].assert_eq(&out);
}

#[test]
fn the_shared_read_help_names_a_copy_the_place_does_not_use() {
    let text = "function f(out!::f64, t::f64)\n    out! += t * t\nend\n";
    let db = RootDatabase::default();
    let file = SourceFile::new(&db, "f.nil".into(), text.into());
    let project = Project::new(&db, vec![file]);
    let d = db::file_diagnostics(&db, project, file);
    let help = d[0].help.as_deref().unwrap_or_default();
    assert!(help.contains("`tmp ← zero(T); tmp += t`"), "{help}");
    assert!(!help.contains("t += t"), "{help}");
}

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

/// NiLang.jl habits (`tests/ui/julia_habits.nil`): each diagnostic's message
/// and the rewrite in its help line.
#[test]
fn julia_habits_get_the_rewrite_as_help() {
    let path = concat!(env!("CARGO_MANIFEST_DIR"), "/tests/ui/julia_habits.nil");
    let text = std::fs::read_to_string(path).expect("the ui file");
    let db = RootDatabase::default();
    let file = SourceFile::new(&db, "julia_habits.nil".into(), text.clone());
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
    }
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
        19:9 E0101 `k!`: undefined variable `k!`
            help: `k!` is not `k`: a name may end in `!`, so `k!=` reads as `k! =`; for "not equal" write `k != ...`
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

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

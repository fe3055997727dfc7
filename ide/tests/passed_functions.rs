//! Functions passed as values (`i_mapsum(sq!, …)`, `map!(sq!, …)` to a
//! parameter `f::Fn<…>`) and partially applied (`scale!(_, _, c)`) are
//! mentions of their function, as calls and derivative calls (`(∇sq!)`)
//! are: find references lists them, document highlights show them, and a
//! rename changes them, so that the renamed program still checks clean.

mod fixture;

use expect_test::{Expect, expect};
use fixture::Fixture;
use nilang_ide::{Project, RootDatabase, SourceFile, Span};

const PROGRAM: &str = r#"using std.functional

function sq!(y!::T, x::T) where T: Real
    y! += x ^ 2
end

function scale!(y!::T, x::T, c::T) where T: Real
    y! += c * x
end

function map!(f::Fn<T, T>, ys!::[T], xs::[T]) where T: Real
    for i = 1:length(xs)
        f(ys![i], xs[i])
    end
end

function use_all(out!::f64, ys!::[f64], xs::[f64], c::f64)
    sq!(out!, c)
    i_mapsum(sq!, out!, xs)
    i_map!(sq!, ys!, xs)
    map!(sq!, ys!, xs)
    map!(scale!(_, _, c), ys!, xs)
    i_map!(scale!(_, _, c), ys!, xs)
end

function grad(y::f64, yb::f64, x::f64, xb::f64)
    (∇sq!)(y, yb, x, xb)
end
"#;

/// The `nth` occurrence of `needle` in `PROGRAM`, with `$0` inserted
/// `into` bytes after its start.
fn marked(needle: &str, nth: usize, into: usize) -> String {
    let at = PROGRAM.match_indices(needle).nth(nth).expect("needle").0 + into;
    format!("{}$0{}", &PROGRAM[..at], &PROGRAM[at..])
}

fn check_references(marked: &str, include_declaration: bool, expected: &Expect) {
    let f = Fixture::new(marked);
    let (symbol, _) = nilang_ide::symbol_at(&f.db, f.project, f.file, f.offset).expect("a symbol");
    let actual: String = nilang_ide::references(&f.db, f.project, &symbol, include_declaration)
        .into_iter()
        .map(|(file, span)| {
            assert_eq!(file, f.file);
            format!("{}\n", f.span(span))
        })
        .collect();
    expected.assert_eq(&actual);
}

fn check_highlights(marked: &str, expected: Expect) {
    let f = Fixture::new(marked);
    let actual: String = nilang_ide::highlights(&f.db, f.project, f.file, f.offset)
        .into_iter()
        .map(|(span, definition)| {
            let kind = if definition { " (definition)" } else { "" };
            format!("{}{kind}\n", f.span(span))
        })
        .collect();
    expected.assert_eq(&actual);
}

/// What `nilc check` reports for each file (errors and warnings), as
/// `path: CODE message`.
fn diagnostics(db: &RootDatabase, project: Project, files: &[SourceFile]) -> Vec<String> {
    files
        .iter()
        .flat_map(|&file| {
            nilang_ide::file_diagnostics(db, project, file)
                .iter()
                .map(move |d| format!("{}: {} {}", file.path(db), d.code, d.message))
        })
        .collect()
}

/// `text` with each span replaced by `new_name`.
fn apply(text: &str, spans: &[Span], new_name: &str) -> String {
    let mut spans = spans.to_vec();
    spans.sort_by_key(|s| std::cmp::Reverse(s.start));
    let mut out = text.to_string();
    for span in spans {
        out.replace_range(span.range(), new_name);
    }
    out
}

#[test]
fn the_program_checks_clean() {
    let f = Fixture::new(&marked("sq!", 0, 0));
    assert_eq!(
        diagnostics(&f.db, f.project, &[f.file]),
        Vec::<String>::new()
    );
}

#[test]
fn references_of_a_function_passed_by_name_and_partially_applied() {
    let expected_sq = expect![[r#"
        3:10-3:13 `sq!`
        18:5-18:8 `sq!`
        19:14-19:17 `sq!`
        20:12-20:15 `sq!`
        21:10-21:13 `sq!`
        27:7-27:10 `sq!`
    "#]];
    // From its definition, a call, each place it is passed, and the
    // derivative call: the same list.
    for (needle, nth) in [
        ("function sq!", 0),
        ("sq!(out!", 0),
        ("i_mapsum(sq!", 0),
        ("i_map!(sq!", 0),
        ("map!(sq!", 1),
        ("(∇sq!)", 0),
    ] {
        let into = needle.find("sq!").unwrap() + 1;
        check_references(&marked(needle, nth, into), true, &expected_sq);
    }
    let expected_scale = expect![[r#"
        22:10-22:16 `scale!`
        23:12-23:18 `scale!`
    "#]];
    for (needle, nth) in [("function scale!", 0), ("scale!(_", 1)] {
        let into = needle.find("scale!").unwrap() + 2;
        check_references(&marked(needle, nth, into), false, &expected_scale);
    }
}

#[test]
fn a_captured_value_stays_a_use_of_its_variable() {
    check_references(
        &marked("_, _, c)", 0, 6),
        true,
        &expect![[r#"
            17:52-17:53 `c`
            18:15-18:16 `c`
            22:23-22:24 `c`
            23:25-23:26 `c`
        "#]],
    );
}

#[test]
fn document_highlights_of_a_function_passed_as_a_value() {
    check_highlights(
        &marked("map!(sq!", 1, 6),
        expect![[r#"
            3:10-3:13 `sq!` (definition)
            18:5-18:8 `sq!`
            19:14-19:17 `sq!`
            20:12-20:15 `sq!`
            21:10-21:13 `sq!`
            27:7-27:10 `sq!`
        "#]],
    );
    check_highlights(
        &marked("map!(scale!", 0, 5),
        expect![[r#"
            7:10-7:16 `scale!` (definition)
            22:10-22:16 `scale!`
            23:12-23:18 `scale!`
        "#]],
    );
}

#[test]
fn a_function_passed_as_a_value_is_highlighted_as_a_function() {
    let f = Fixture::new(&marked("sq!", 0, 0));
    let classes = nilang_ide::classify_names(&f.db, f.project, f.file);
    for (needle, nth, name) in [
        ("i_mapsum(sq!", 0, "sq!"),
        ("map!(sq!", 1, "sq!"),
        ("map!(scale!", 0, "scale!"),
    ] {
        let start =
            (f.text.match_indices(needle).nth(nth).unwrap().0 + needle.find(name).unwrap()) as u32;
        let span = Span::new(start, start + name.len() as u32);
        assert!(
            classes.contains(&(span, nilang_ide::NameClass::FunctionCall)),
            "{} in {classes:?}",
            f.span(span)
        );
    }
}

#[test]
fn renaming_a_function_passed_as_a_value_renames_every_mention() {
    for (needle, nth, name) in [
        ("i_mapsum(sq!", 0, "sq!"),
        ("function sq!", 0, "sq!"),
        ("map!(scale!", 1, "scale!"),
    ] {
        let f = Fixture::new(&marked(needle, nth, needle.find(name).unwrap() + 1));
        let (span, old) =
            nilang_ide::prepare_rename(&f.db, f.project, f.file, f.offset).expect("renamable");
        assert_eq!(old, name, "{}", f.span(span));
        let new_name = "renamed!";
        let edits =
            nilang_ide::rename(&f.db, f.project, f.file, f.offset, new_name).expect("a rename");
        assert!(edits.iter().all(|(file, _)| *file == f.file));
        let spans: Vec<Span> = edits.iter().map(|(_, s)| *s).collect();
        let renamed = apply(&f.text, &spans, new_name);
        // Every mention went, the function's name included.
        assert!(
            !renamed.contains(&format!("{name}(")) && !renamed.contains(&format!("{name},")),
            "{renamed}"
        );
        let db = RootDatabase::default();
        let file = SourceFile::new(&db, "t.nil".into(), renamed.clone());
        let project = nilang_ide::project_with_std(&db, vec![file], Vec::new());
        assert_eq!(
            diagnostics(&db, project, &[file]),
            Vec::<String>::new(),
            "{renamed}"
        );
    }
}

/// A function of one file of the crate passed in another, to a template of
/// the standard library and to one of this crate, by name and partially
/// applied.
#[test]
fn renaming_across_files_of_a_project() {
    const DEFS: &str = "function sq!(y!::T, x::T) where T: Real\n    y! += x ^ 2\nend\n\nfunction each!(f::Fn<T, T>, ys!::[T], xs::[T]) where T: Real\n    for i = 1:length(xs)\n        f(ys![i], xs[i])\n    end\nend\n";
    const USES: &str = "using std.functional\n\nfunction total(out!::f64, ys!::[f64], xs::[f64])\n    i_mapsum(sq!, out!, xs)\n    each!(sq!, ys!, xs)\n    i_map!(sq!(_, _), ys!, xs)\nend\n";
    let db = RootDatabase::default();
    let defs = SourceFile::new(&db, "defs.nil".into(), DEFS.into());
    let uses = SourceFile::new(&db, "uses.nil".into(), USES.into());
    let project = nilang_ide::project_with_std(&db, vec![defs, uses], Vec::new());
    assert_eq!(
        diagnostics(&db, project, &[defs, uses]),
        Vec::<String>::new()
    );
    let offset = (USES.find("i_mapsum(sq!").unwrap() + "i_mapsum(s".len()) as u32;
    let edits = nilang_ide::rename(&db, project, uses, offset, "square!").expect("a rename");
    let in_file = |file: SourceFile| -> Vec<Span> {
        edits
            .iter()
            .filter(|(f, _)| *f == file)
            .map(|(_, s)| *s)
            .collect()
    };
    assert_eq!(in_file(defs).len(), 1, "{edits:?}");
    assert_eq!(in_file(uses).len(), 3, "{edits:?}");
    let new_defs = apply(DEFS, &in_file(defs), "square!");
    let new_uses = apply(USES, &in_file(uses), "square!");
    assert!(!new_uses.contains("sq!"), "{new_uses}");
    let db = RootDatabase::default();
    let defs = SourceFile::new(&db, "defs.nil".into(), new_defs);
    let uses = SourceFile::new(&db, "uses.nil".into(), new_uses);
    let project = nilang_ide::project_with_std(&db, vec![defs, uses], Vec::new());
    assert_eq!(
        diagnostics(&db, project, &[defs, uses]),
        Vec::<String>::new()
    );
}

//! The unit tests of the navigation, scope, inverse, formatting and
//! highlighting functions, over one small file.

use crate::*;
use nilang_analysis::db;

const TEXT: &str = "\"\"\"Add x to y.\"\"\"\nfunction add(y::f64, x::f64)\n    a ← zero(f64)\n    a += x\n    y += identity(a)\n    a -= x\n    a → zero(f64)\nend\n\nfunction twice(y::f64, x::f64)\n    add(y, x)\n    ~add(y, x)\n    for i = 1:3\n        INC(y)\n    end\nend\n";

fn setup() -> (RootDatabase, Project, SourceFile) {
    let db = RootDatabase::default();
    let file = SourceFile::new(&db, "t.nil".into(), TEXT.into());
    let project = Project::new(&db, vec![file]);
    (db, project, file)
}

fn at(needle: &str, nth: usize) -> u32 {
    TEXT.match_indices(needle).nth(nth).expect("needle").0 as u32
}

#[test]
fn struct_names_and_fields() {
    const S: &str = "struct Point{T}\n    x::T\n    y::T\nend\nstruct Seg{T} a::Point{T}; b::Point{T} end\nfunction f(p::Point{f64}, s::Seg{f64})\n    q ← Point(p.y, 1.0)\n    p.x += s.a.y\n    q → Point(p.y, 1.0)\nend\n";
    let db = RootDatabase::default();
    let file = SourceFile::new(&db, "s.nil".into(), S.into());
    let project = Project::new(&db, vec![file]);
    let pos = |needle: &str, nth: usize| S.match_indices(needle).nth(nth).unwrap().0 as u32;
    let point_def = (file, Span::new(pos("Point", 0), pos("Point", 0) + 5));
    // A struct name in a parameter type, a construction, a field type.
    for at in [
        pos("Point{f64}", 0),
        pos("Point(p.y", 0),
        pos("Point{T}; b", 0),
    ] {
        let (symbol, span) = symbol_at(&db, project, file, at + 2).expect("struct");
        assert_eq!(symbol, Symbol::Struct("Point".into()));
        assert_eq!(&S[span.range()], "Point");
        assert_eq!(definition(&db, project, &symbol), Some(point_def));
    }
    // A field, through a parameter and through a nested struct.
    let (symbol, span) = symbol_at(&db, project, file, pos("p.x", 0) + 2).expect("field");
    assert_eq!(
        symbol,
        Symbol::Field {
            structure: "Point".into(),
            field: "x".into()
        }
    );
    assert_eq!(&S[span.range()], "x");
    let x_def = pos("x::T", 0);
    assert_eq!(
        definition(&db, project, &symbol),
        Some((file, Span::new(x_def, x_def + 1)))
    );
    let (symbol, _) = symbol_at(&db, project, file, pos("s.a.y", 0) + 4).expect("field");
    assert_eq!(
        symbol,
        Symbol::Field {
            structure: "Point".into(),
            field: "y".into()
        }
    );
    // `y` of Point: in `p.y` twice, `s.a.y`, and its declaration.
    assert_eq!(references(&db, project, &symbol, true).len(), 4);
    // On the definition itself.
    let (symbol, _) = symbol_at(&db, project, file, pos("Seg", 0) + 1).expect("struct");
    assert_eq!(symbol, Symbol::Struct("Seg".into()));
    // `Point` everywhere: definition, 2 field types, a parameter, 2 constructions.
    let refs = references(&db, project, &Symbol::Struct("Point".into()), true);
    assert_eq!(refs.len(), 6, "{refs:?}");
}

#[test]
fn symbols_definitions_and_references() {
    let (db, project, file) = setup();
    let (symbol, span) = symbol_at(&db, project, file, at("add(y, x)", 0) + 1).expect("symbol");
    assert_eq!(symbol, Symbol::Function("add".into()));
    assert_eq!(&TEXT[span.range()], "add");
    let (def_file, def_span) = definition(&db, project, &symbol).expect("definition");
    assert_eq!(def_file, file);
    assert_eq!(def_span.start, at("add(y::f64", 0));
    let refs = references(&db, project, &symbol, true);
    assert_eq!(refs.len(), 3, "{refs:?}");
    let refs = references(&db, project, &symbol, false);
    assert_eq!(refs.len(), 2);

    let (symbol, _) = symbol_at(&db, project, file, at("a += x", 0)).expect("ancilla");
    let Symbol::Local { .. } = symbol else {
        panic!("not a local: {symbol:?}");
    };
    let refs = references(&db, project, &symbol, true);
    assert_eq!(
        refs.len(),
        5,
        "allocation, three uses, deallocation: {refs:?}"
    );
    let (_, def_span) = definition(&db, project, &symbol).expect("definition");
    assert_eq!(def_span.start, at("a ←", 0));
}

#[test]
fn statement_inverses() {
    let (db, project, file) = setup();
    let inv = |needle: &str| {
        statement_inverse(&db, project, file, at(needle, 0) + 1)
            .expect("inverse")
            .0
    };
    assert_eq!(inv("a += x"), "a -= x");
    assert_eq!(inv("a ← zero"), "a → zero(f64)");
    assert_eq!(inv("~add"), "add(y, x)");
    assert_eq!(inv("INC(y)"), "DEC(y)");
    assert_eq!(inv("for i"), "for i = reverse(1:3)\n    DEC(y)\nend");
    assert_eq!(statement_inverse(&db, project, file, 0).map(|s| s.0), None);
}

#[test]
fn scope() {
    let (db, project, file) = setup();
    let f = function_at(&db, project, file, at("y += identity", 0)).expect("function");
    let ast = db::function_ast(&db, f).expect("ast");
    let names = |needle: &str| {
        let rel = at(needle, 0) - db::function_offset(&db, f);
        names_in_scope(&ast, rel)
            .into_iter()
            .map(|n| n.name)
            .collect::<Vec<_>>()
    };
    assert_eq!(names("a ← zero"), ["y", "x"]);
    assert_eq!(names("y += identity"), ["y", "x", "a"]);
    let g = function_at(&db, project, file, at("INC", 0)).expect("function");
    let ast = db::function_ast(&db, g).expect("ast");
    let rel = at("INC", 0) - db::function_offset(&db, g);
    let names: Vec<_> = names_in_scope(&ast, rel)
        .into_iter()
        .map(|n| n.name)
        .collect();
    assert_eq!(names, ["y", "x", "i"]);
}

#[test]
fn formatting_edits_only_the_lines_that_change() {
    let text = "# a comment\nfunction f(x::f64)\n  INC(x)  \n    DEC(x)\nend\n\n\n";
    let edits = format_edits(text, Indent::Spaces(4)).unwrap();
    let mut fixed = text.to_string();
    for (span, new) in edits.iter().rev() {
        fixed.replace_range(span.range(), new);
    }
    assert_eq!(
        fixed,
        "# a comment\nfunction f(x::f64)\n    INC(x)\n    DEC(x)\nend\n"
    );
    assert_eq!(
        edits.len(),
        2,
        "the INC line and the blank lines at the end: {edits:?}"
    );
    assert_eq!(format_edits(&fixed, Indent::Spaces(4)).unwrap(), vec![]);
    // A missing final line break is added.
    let edits = format_edits("function f(x::f64)\n    INC(x)\nend", Indent::Spaces(4)).unwrap();
    assert_eq!(edits, vec![(Span::new(33, 33), "\n".to_string())]);
    assert_eq!(
        format_edits("function f(x::f64)\n  INC(x\nend\n", Indent::Spaces(4)),
        Err(FormatRefusal::SyntaxErrors)
    );
}

#[test]
fn classes() {
    let (db, project, file) = setup();
    let classes = classify_names(&db, project, file);
    let class_of = |needle: &str| {
        let start = at(needle, 0);
        classes
            .iter()
            .find(|(s, _)| s.start == start)
            .map(|(_, c)| *c)
    };
    assert_eq!(class_of("add(y::"), Some(NameClass::FunctionDefinition));
    assert_eq!(
        class_of("y::f64, x::f64)\n    a"),
        Some(NameClass::Parameter { mutated: true })
    );
    assert_eq!(
        class_of("x::f64)\n    a"),
        Some(NameClass::Parameter { mutated: false })
    );
    assert_eq!(class_of("INC"), Some(NameClass::Instruction));
    assert_eq!(class_of("add(y, x)"), Some(NameClass::FunctionCall));
}

#[test]
fn import_lines_are_classified() {
    const M: &str = "using std.linalg\nimport std.stats: i_mean_sum\nfunction f(y::f64, x::[f64])\n    i_norm2(y, x)\nend\n";
    let db = RootDatabase::default();
    let file = SourceFile::new(&db, "m.nil".into(), M.into());
    let project = db::project_with_std(&db, vec![file], Vec::new());
    let classes = classify_names(&db, project, file);
    let class_of = |needle: &str| {
        let start = M.find(needle).expect("needle") as u32;
        classes
            .iter()
            .find(|(s, _)| s.start == start)
            .map(|(_, c)| *c)
    };
    assert_eq!(class_of("std.linalg"), Some(NameClass::Module));
    assert_eq!(class_of("std.stats"), Some(NameClass::Module));
    assert_eq!(class_of("i_mean_sum"), Some(NameClass::FunctionCall));
    assert_eq!(class_of("i_norm2"), Some(NameClass::FunctionCall));
}

//! Structs in the editor: hover shows the struct (and the field), go to
//! definition jumps to the struct's name or the field's declaration, and
//! every request answers without panicking anywhere in a file with structs.

use nilang_lsp::features;
use nilang_lsp::line_index::{Encoding, LineIndex};
use nilang_lsp::workspace::Workspace;
use tower_lsp_server::ls_types::Uri;

const TEXT: &str = "\
\"\"\"A point.\"\"\"
struct Point{T}
    x::T
    y::T
end

function shift(p::Point{f64}, d::f64)
    q ← Point(d, 2.0)
    p.x += q.y
    q → Point(d, 2.0)
end
";

fn offset(needle: &str) -> u32 {
    TEXT.find(needle).expect("needle") as u32
}

#[test]
fn hover_and_definition_of_structs_and_fields() {
    let mut workspace = Workspace::new();
    let uri: Uri = "file:///nilang-test/structs/s.nil".parse().expect("uri");
    workspace.open(uri.clone(), TEXT.to_string(), 0);
    let snap = workspace.snapshot(&uri).expect("open");
    let index = LineIndex::new(TEXT, Encoding::Utf16);

    let hover = |at: u32| -> String {
        let h = features::hover(&snap, index.position(at)).expect("hover");
        match h.contents {
            tower_lsp_server::ls_types::HoverContents::Markup(m) => m.value,
            other => panic!("{other:?}"),
        }
    };
    let struct_text = "struct Point{T}\n    x::T\n    y::T\nend";
    let on_type = hover(offset("Point{f64}") + 1);
    assert!(on_type.contains(struct_text), "{on_type}");
    let on_field = hover(offset("p.x") + 2);
    assert!(
        on_field.contains("field `x::T` of struct `Point`"),
        "{on_field}"
    );
    assert!(on_field.contains(struct_text), "{on_field}");

    let def = features::definition(&snap, index.position(offset("Point(d") + 1)).expect("def");
    assert_eq!(def.range.start, index.position(offset("Point{T}")));
    let def = features::definition(&snap, index.position(offset("q.y") + 2)).expect("def");
    assert_eq!(def.range.start, index.position(offset("y::T")));
}

#[test]
fn semantic_tokens_of_structs_and_fields() {
    use nilang_compiler::ide::{self, NameClass};
    let mut workspace = Workspace::new();
    let uri: Uri = "file:///nilang-test/structs/t.nil".parse().expect("uri");
    workspace.open(uri.clone(), TEXT.to_string(), 0);
    let snap = workspace.snapshot(&uri).expect("open");
    let classes = ide::classify_names(&snap.db, snap.project, snap.file);
    let class_at = |needle: &str, delta: u32| {
        let at = offset(needle) + delta;
        classes.iter().find(|(s, _)| s.start == at).map(|(_, c)| *c)
    };
    assert_eq!(
        class_at("Point{T}", 0),
        Some(NameClass::Struct { definition: true })
    );
    assert_eq!(
        class_at("x::T", 0),
        Some(NameClass::Field { definition: true })
    );
    assert_eq!(
        class_at("Point{f64}", 0),
        Some(NameClass::Struct { definition: false })
    );
    assert_eq!(
        class_at("Point(d", 0),
        Some(NameClass::Struct { definition: false })
    );
    assert_eq!(
        class_at("p.x", 2),
        Some(NameClass::Field { definition: false })
    );
    assert!(!features::semantic_tokens(&snap).is_empty());
}

#[test]
fn every_request_everywhere_in_a_file_with_structs() {
    let mut workspace = Workspace::new();
    let uri: Uri = "file:///nilang-test/structs/all.nil".parse().expect("uri");
    for cut in [TEXT.len(), TEXT.len() / 2, TEXT.len() / 3] {
        let text = &TEXT[..cut];
        workspace.open(uri.clone(), text.to_string(), 0);
        let snap = workspace.snapshot(&uri).expect("open");
        let index = LineIndex::new(text, Encoding::Utf16);
        for (at, _) in text.char_indices() {
            let p = index.position(at as u32);
            let _ = features::hover(&snap, p);
            let _ = features::definition(&snap, p);
            let _ = features::references(&snap, p, true);
        }
    }
}

//! Robustness: every request at many positions of the paper's programs, and
//! on truncated (broken) versions of them, answers without panicking, and
//! what it answers stays inside the text.

use std::path::Path;

use nilang_lsp::features::{self, InverseParams};
use nilang_lsp::line_index::{Encoding, LineIndex};
use nilang_lsp::workspace::Workspace;
use tower_lsp_server::ls_types::{Position, TextDocumentIdentifier, Uri};

fn examples() -> Vec<(String, String)> {
    let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("../examples");
    let mut out: Vec<(String, String)> = std::fs::read_dir(&dir)
        .expect("examples/")
        .map(|e| e.expect("entry").path())
        .filter(|p| p.extension().is_some_and(|e| e == "nil"))
        .map(|p| {
            let name = p.file_name().expect("name").to_string_lossy().into_owned();
            (name, std::fs::read_to_string(&p).expect("readable"))
        })
        .collect();
    out.sort();
    out
}

fn within(text: &str, position: Position) -> bool {
    let index = LineIndex::new(text, Encoding::Utf16);
    let end = index.end();
    (position.line, position.character) <= (end.line, end.character)
}

#[test]
fn requests_everywhere_in_the_examples() {
    let files = examples();
    assert!(files.len() >= 5);
    let mut workspace = Workspace::new();
    let uris: Vec<Uri> = files
        .iter()
        .map(|(name, _)| {
            format!("file:///nilang-test/examples/{name}")
                .parse()
                .expect("uri")
        })
        .collect();
    for ((_, text), uri) in files.iter().zip(&uris) {
        workspace.open(uri.clone(), text.clone(), 0);
    }
    let mut answered = 0;
    for ((name, text), uri) in files.iter().zip(&uris) {
        let snap = workspace.snapshot(uri).expect("open");
        assert!(
            features::file_diagnostics(&snap.db, snap.project, snap.file, uri, Encoding::Utf16)
                .is_empty(),
            "{name} checks cleanly as one project"
        );
        let index = LineIndex::new(text, Encoding::Utf16);
        for (offset, _) in text.char_indices().step_by(2) {
            let p = index.position(offset as u32);
            if let Some(hover) = features::hover(&snap, p) {
                answered += 1;
                if let Some(range) = hover.range {
                    assert!(within(text, range.end), "{name} {p:?}");
                }
            }
            if let Some(location) = features::definition(&snap, p) {
                assert!(uris.contains(&location.uri), "{name} {p:?}: {location:?}");
            }
            for location in features::references(&snap, p, true).unwrap_or_default() {
                assert!(uris.contains(&location.uri));
            }
            // Filtered by the word before the cursor, and bounded.
            let completion = features::completion(&snap, p);
            assert!(completion.items.len() <= nilang_ide::completion::MAX_COMPLETIONS);
            let params = InverseParams {
                text_document: TextDocumentIdentifier::new(uri.clone()),
                function: None,
                position: Some(p),
            };
            let _ = features::inverse(&snap, &params);
        }
        // A "Show inverse" per function; the examples of the docstrings
        // each get the interpreter's answer, which agrees with them.
        let lenses = features::code_lenses(&snap);
        let (inverses, examples): (Vec<_>, Vec<_>) = lenses.iter().partition(|l| {
            l.command
                .as_ref()
                .is_some_and(|c| c.command == features::SHOW_INVERSE_COMMAND)
        });
        assert_eq!(inverses.len(), features::document_symbols(&snap).len());
        for lens in examples {
            let title = &lens.command.as_ref().expect("a title").title;
            assert!(title.starts_with('✓'), "{name}: {title}");
        }
        let _ = features::semantic_tokens(&snap);
        let _ = features::formatting(&snap, &Default::default());
        let _ = features::generated_rust(&snap);
    }
    assert!(answered > 100, "hovers answered: {answered}");
}

#[test]
fn broken_prefixes_of_the_examples() {
    let mut workspace = Workspace::new();
    let uri: Uri = "file:///nilang-test/prefixes/broken.nil"
        .parse()
        .expect("uri");
    workspace.open(uri.clone(), String::new(), 0);
    let mut version = 0;
    for (name, text) in examples() {
        let cuts: Vec<usize> = text.char_indices().map(|(i, _)| i).step_by(37).collect();
        for cut in cuts {
            version += 1;
            let prefix = &text[..cut];
            workspace.change(
                &uri,
                version,
                vec![tower_lsp_server::ls_types::TextDocumentContentChangeEvent {
                    range: None,
                    range_length: None,
                    text: prefix.to_string(),
                }],
            );
            let snap = workspace.snapshot(&uri).expect("open");
            let diagnostics = features::file_diagnostics(
                &snap.db,
                snap.project,
                snap.file,
                &uri,
                Encoding::Utf16,
            );
            for d in &diagnostics {
                assert!(within(prefix, d.range.end), "{name} cut at {cut}: {d:?}");
            }
            let end = LineIndex::new(prefix, Encoding::Utf16).end();
            let _ = features::hover(&snap, end);
            let _ = features::completion(&snap, end);
            let _ = features::semantic_tokens(&snap);
            let _ = features::document_symbols(&snap);
            let _ = features::formatting(&snap, &Default::default());
            let _ = features::generated_rust(&snap);
        }
    }
}

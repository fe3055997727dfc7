//! The parser's diagnostic codes as a user sees them: one small program per
//! code, `tests/diagnostics/<CODE>.nil` (or `<CODE>_<what>.nil`), and the
//! snapshot of its syntax diagnostics rendered by `render_human` (the
//! codespan text `nilc check` prints, without colour). A fixture raises its
//! own code and nothing else, unless its `# also: CODE ...` line names
//! more. Bless a change with `INSTA_UPDATE=always cargo test -p
//! nilang-syntax --test diagnostics` after reading the diff.
//!
//! `analysis/tests/diagnostics.rs` holds that every code of the table has
//! a fixture in some layer.

use std::collections::BTreeSet;
use std::path::Path;

use nilang_syntax::diagnostics::CODES;
use nilang_syntax::parser;
use nilang_syntax::render::render_human;

fn code_of(path: &Path) -> String {
    let name = path.file_name().unwrap().to_str().unwrap();
    name.get(..5)
        .filter(|c| c.starts_with(['E', 'W']) && c[1..].chars().all(|d| d.is_ascii_digit()))
        .unwrap_or_else(|| panic!("`{name}`: a fixture is named after its code"))
        .to_string()
}

#[test]
fn each_code_rendered() {
    // Every fixture runs; the ones that raise other codes are listed at the
    // end (`glob!` lists the snapshots that differ).
    let failures = std::cell::RefCell::new(Vec::new());
    insta::glob!("diagnostics/*.nil", |path| {
        let name = path.file_name().unwrap().to_str().unwrap();
        let text = std::fs::read_to_string(path).unwrap();
        let code = code_of(path);
        let mut expected: BTreeSet<String> = text
            .lines()
            .filter_map(|l| l.strip_prefix("# also:"))
            .flat_map(|l| l.split_whitespace().map(str::to_string))
            .collect();
        expected.insert(code.clone());
        let diagnostics = parser::parse(&text).diagnostics;
        let raised: BTreeSet<String> = diagnostics.iter().map(|d| d.code.to_string()).collect();
        if raised != expected {
            failures.borrow_mut().push(format!(
                "{name}: expected {expected:?}, got {diagnostics:#?}"
            ));
            return;
        }
        let summary = CODES
            .iter()
            .find(|(c, _)| *c == code)
            .map(|(_, s)| *s)
            .unwrap_or_else(|| panic!("{code} is not in the table"));
        let mut settings = insta::Settings::clone_current();
        settings.set_description(format!("{code}: {summary}"));
        settings.set_omit_expression(true);
        settings.bind(|| {
            insta::assert_snapshot!(render_human(name, &text, &diagnostics, false));
        });
    });
    let failures = failures.into_inner();
    assert!(failures.is_empty(), "{}", failures.join("\n"));
}

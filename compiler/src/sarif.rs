//! `nilc check --format sarif`: the diagnostics as one SARIF 2.1.0 log, the
//! format code-scanning services (GitHub's among them) read.
//!
//! One run, one result per diagnostic, and a rule per diagnostic code that
//! occurs, described by its summary in `diagnostics::CODES`.
//! Columns count Unicode code points, as the other formats' do, and regions
//! end one past their last character, as SARIF's `endColumn` does.
//! `compiler/tests/cli.rs` validates the output against the schema in
//! `compiler/tests/data/`.

use nilang_syntax::ast::Span;
use nilang_syntax::diagnostics::{CODES, Diagnostic, Severity};
use nilang_syntax::render::json_range;
use serde_json::{Value, json};

/// The schema the log declares (the OASIS errata 01 text of 2.1.0).
pub const SCHEMA: &str =
    "https://docs.oasis-open.org/sarif/sarif/v2.1.0/errata01/os/schemas/sarif-schema-2.1.0.json";

/// One checked file and what was found in it.
pub struct Checked<'a> {
    pub path: &'a str,
    pub text: &'a str,
    pub diagnostics: &'a [Diagnostic],
}

/// The SARIF log of one `nilc check` run.
pub fn log(files: &[Checked<'_>]) -> Value {
    let mut rules: Vec<(&str, &Diagnostic)> = Vec::new();
    let mut results = Vec::new();
    for file in files {
        for d in file.diagnostics {
            let index = match rules.iter().position(|(code, _)| *code == d.code) {
                Some(i) => i,
                None => {
                    rules.push((d.code, d));
                    rules.len() - 1
                }
            };
            let mut message = d.message.clone();
            if let Some(help) = &d.help {
                message.push_str(&format!("\nhelp: {help}"));
            }
            let mut result = json!({
                "ruleId": d.code,
                "ruleIndex": index,
                "level": level(d.severity),
                "message": { "text": message },
                "locations": [location(file, d.primary.span, &d.primary.message)],
            });
            if !d.secondary.is_empty() {
                result["relatedLocations"] = d
                    .secondary
                    .iter()
                    .enumerate()
                    .map(|(i, l)| {
                        let mut related = location(file, l.span, &l.message);
                        related["id"] = json!(i);
                        related
                    })
                    .collect();
            }
            results.push(result);
        }
    }
    let rules: Vec<Value> = rules
        .iter()
        .map(|(code, first)| {
            let summary = CODES
                .iter()
                .find(|(c, _)| c == code)
                .map_or(first.message.as_str(), |(_, summary)| summary);
            json!({
                "id": code,
                "shortDescription": { "text": summary },
                "defaultConfiguration": { "level": level(first.severity) },
            })
        })
        .collect();
    json!({
        "$schema": SCHEMA,
        "version": "2.1.0",
        "runs": [{
            "tool": {
                "driver": {
                    "name": "nilc",
                    "version": env!("CARGO_PKG_VERSION"),
                    "rules": rules,
                }
            },
            "columnKind": "unicodeCodePoints",
            "artifacts": files
                .iter()
                .map(|f| json!({ "location": { "uri": uri(f.path) } }))
                .collect::<Vec<_>>(),
            "results": results,
        }]
    })
}

fn level(severity: Severity) -> &'static str {
    match severity {
        Severity::Error => "error",
        Severity::Warning => "warning",
    }
}

fn location(file: &Checked<'_>, span: Span, label: &str) -> Value {
    let range = json_range(file.text, span);
    let mut location = json!({
        "physicalLocation": {
            "artifactLocation": { "uri": uri(file.path) },
            "region": {
                "startLine": range.start_line,
                "startColumn": range.start_column,
                "endLine": range.end_line,
                "endColumn": range.end_column,
            }
        }
    });
    if !label.is_empty() {
        location["message"] = json!({ "text": label });
    }
    location
}

/// A path as a URI reference: relative paths stay relative (to where
/// `nilc` ran, which is how code scanning resolves them from the
/// repository root), absolute ones become `file://` URIs; characters
/// outside RFC 3986's unreserved set and `/` are percent-encoded.
pub fn uri(path: &str) -> String {
    let path = path.replace('\\', "/");
    let path = path.strip_prefix("./").unwrap_or(&path);
    let mut out = String::new();
    if path.starts_with('/') {
        out.push_str("file://");
    }
    for byte in path.bytes() {
        if byte.is_ascii_alphanumeric() || b"-._~/".contains(&byte) {
            out.push(byte as char);
        } else {
            out.push_str(&format!("%{byte:02X}"));
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::uri;

    #[test]
    fn paths_become_uri_references() {
        assert_eq!(uri("src/nil/a.nil"), "src/nil/a.nil");
        assert_eq!(uri("./a b/é.nil"), "a%20b/%C3%A9.nil");
        assert_eq!(uri("/tmp/x+y.nil"), "file:///tmp/x%2By.nil");
    }
}

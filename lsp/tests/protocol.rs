//! The language server over real JSON-RPC: a client in this process writes
//! framed messages into a pipe, the server reads them as it reads stdin.

mod support;

use std::path::{Path, PathBuf};

use expect_test::expect;
use serde_json::{Value, json};
use support::{TestClient, find, position, text_position};

const URI: &str = "file:///nilang-test/protocol/main.nil";

/// A file with two errors: E0201 and a shared read, E0210.
const WRONG: &str = "\
\"\"\"Accumulate into `y`.\"\"\"
function acc(y::f64, x::f64)
    y += x * y
    y += x * x
end
";

const FIXED: &str = "\
\"\"\"Accumulate into `y`.\"\"\"
function acc(y::f64, x::f64)
    y += x * 2.0
    y += identity(x)
end
";

/// Diagnostics as compact lines: `line:col-line:col severity code message`.
fn summarize(published: &Value) -> String {
    let mut out = String::new();
    for d in published["diagnostics"].as_array().expect("a list") {
        let r = &d["range"];
        out.push_str(&format!(
            "{}:{}-{}:{} {} {} {:?}",
            r["start"]["line"],
            r["start"]["character"],
            r["end"]["line"],
            r["end"]["character"],
            d["severity"],
            d["code"].as_str().unwrap_or("?"),
            d["message"].as_str().unwrap_or("?"),
        ));
        for related in d["relatedInformation"].as_array().into_iter().flatten() {
            let r = &related["location"]["range"];
            out.push_str(&format!(
                " [{}:{} {:?}]",
                r["start"]["line"],
                r["start"]["character"],
                related["message"].as_str().unwrap_or("?")
            ));
        }
        out.push('\n');
    }
    out
}

#[test]
fn initialize_announces_the_capabilities() {
    support::run(async {
        let mut client = TestClient::start();
        let result = client
            .request(
                "initialize",
                json!({ "capabilities": { "general": { "positionEncodings": ["utf-8", "utf-16"] } } }),
            )
            .await;
        let caps = &result["capabilities"];
        assert_eq!(caps["positionEncoding"], "utf-8", "utf-8 when offered");
        assert_eq!(caps["textDocumentSync"]["change"], 2, "incremental sync");
        for provider in [
            "hoverProvider",
            "definitionProvider",
            "referencesProvider",
            "documentSymbolProvider",
            "documentFormattingProvider",
        ] {
            assert_eq!(caps[provider], true, "{provider}");
        }
        assert!(caps["codeLensProvider"].is_object());
        assert!(caps["completionProvider"].is_object());
        assert_eq!(
            caps["semanticTokensProvider"]["legend"]["tokenTypes"],
            json!([
                "function",
                "parameter",
                "variable",
                "struct",
                "property",
                "namespace"
            ])
        );
        assert_eq!(result["serverInfo"]["name"], "nilang-lsp");
        client.notify("initialized", json!({})).await;
        client.shutdown_and_exit().await;
    });
}

#[test]
fn diagnostics_then_fixed_then_empty() {
    support::run(async {
        let mut client = TestClient::initialized().await;
        client.open(URI, WRONG).await;
        let published = client.diagnostics(URI).await;
        assert_eq!(published["version"], 0);
        expect![[r#"
            2:13-2:14 1 E0201 "`y` is read and written by the same instruction\nhelp: copy the value first: `tmp ← zero(T); tmp += y`, use `tmp` on the right, then uncompute it" [2:4 "written here"]
            3:13-3:14 1 E0210 "`x` is read twice by one instruction of a differentiated function\nhelp: the gradient program would write the adjoint of `x` twice from one instruction (a shared write); square with `abs2(x)` or `x^2`, or copy it into an ancilla first: `t ← zero(T); t += x`, use `t`, then `t -= x; t → zero(T)`" [3:9 "first use"]
        "#]]
        .assert_eq(&summarize(&published));
        let first = &published["diagnostics"][0];
        assert_eq!(first["source"], "nilang");
        assert_eq!(first["relatedInformation"][0]["location"]["uri"], URI);
        assert!(first["data"]["help"].is_string());

        client.change_full(URI, 1, FIXED).await;
        let published = client.diagnostics_at(URI, 1).await;
        assert_eq!(published["diagnostics"], json!([]), "{published}");
        client.shutdown_and_exit().await;
    });
}

fn ui_files() -> Vec<PathBuf> {
    let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("../compiler/tests/ui");
    let mut files: Vec<PathBuf> = std::fs::read_dir(&dir)
        .expect("compiler/tests/ui exists")
        .map(|e| e.expect("readable").path())
        .filter(|p| p.extension().is_some_and(|e| e == "nil"))
        .collect();
    files.sort();
    files
}

/// Every wrong program of the compiler's UI suite gets, over LSP, exactly the
/// diagnostics `nilc check --format json` reports: codes, severities, ranges,
/// messages, help lines and secondary labels.
#[test]
fn diagnostics_match_nilc_check_on_the_ui_suite() {
    support::run(async {
        use nilang_compiler::db::{self, RootDatabase, SourceFile};
        use nilang_compiler::render;

        let files = ui_files();
        assert!(files.len() >= 10, "the UI suite is there");
        let mut client = TestClient::initialized().await;
        let mut compared = 0;
        for path in files {
            let text = std::fs::read_to_string(&path).expect("readable");
            let stem = path.file_stem().expect("stem").to_string_lossy();
            // One folder per file: each is its own project, as for `nilc check FILE`.
            let uri = format!("file:///nilang-test/ui/{stem}/{stem}.nil");
            client.open(&uri, &text).await;
            let published = client.diagnostics(&uri).await;
            let got = published["diagnostics"].as_array().expect("list").clone();

            let db = RootDatabase::default();
            let file = SourceFile::new(
                &db,
                format!("/nilang-test/ui/{stem}/{stem}.nil"),
                text.clone(),
            );
            let project = db::project_with_std(&db, vec![file], Vec::new());
            let want: Vec<_> = db::file_diagnostics(&db, project, file)
                .iter()
                .map(|d| render::to_json("", &text, d))
                .collect();
            assert!(!want.is_empty(), "{stem} is a wrong program");
            assert_eq!(got.len(), want.len(), "{stem}: {published}");
            compared += same_diagnostics(&got, &want, &stem);
        }
        assert!(compared >= 20, "compared {compared} diagnostics");
        client.shutdown_and_exit().await;
    });
}

/// Asserts that the diagnostics a server published are `want` (as `nilc
/// check --format json` renders them): codes, severities, ranges, messages,
/// help lines and secondary labels. Returns how many were compared.
fn same_diagnostics(
    got: &[Value],
    want: &[nilang_compiler::render::JsonDiagnostic],
    stem: &str,
) -> usize {
    let mut compared = 0;
    for (g, w) in got.iter().zip(want) {
        let line_col = |p: &Value| {
            (
                p["line"].as_u64().expect("line") as usize + 1,
                p["character"].as_u64().expect("character") as usize + 1,
            )
        };
        assert_eq!(g["code"], w.code, "{stem}");
        let severity = if w.severity == nilang_compiler::Severity::Error {
            1
        } else {
            2
        };
        assert_eq!(g["severity"], severity, "{stem}");
        assert_eq!(
            line_col(&g["range"]["start"]),
            (w.range.start_line, w.range.start_column),
            "{stem} {}",
            w.code
        );
        assert_eq!(
            line_col(&g["range"]["end"]),
            (w.range.end_line, w.range.end_column),
            "{stem} {}",
            w.code
        );
        let message = match &w.help {
            Some(help) => format!("{}\nhelp: {help}", w.message),
            None => w.message.clone(),
        };
        assert_eq!(g["message"], message.as_str());
        assert_eq!(g["data"]["label"], w.label.as_str());
        let related = g["relatedInformation"]
            .as_array()
            .cloned()
            .unwrap_or_default();
        assert_eq!(related.len(), w.secondary.len(), "{stem} {}", w.code);
        for (r, s) in related.iter().zip(&w.secondary) {
            assert_eq!(r["message"], s.message.as_str());
            assert_eq!(
                line_col(&r["location"]["range"]["start"]),
                (s.range.start_line, s.range.start_column)
            );
        }
        compared += 1;
    }
    compared
}

/// Every other `.nil` folder of the repository (the examples, the GPU and
/// ADBench cases, the tests' programs, the editors' and the grammar's
/// samples), opened at its real path so that the server reads the folder's
/// other files as one project: what it publishes is `file_diagnostics`
/// of that project, as `nilc check` and the build plugin report it.
#[test]
fn diagnostics_match_nilc_check_on_every_file_of_the_repository() {
    support::run(async {
        use nilang_compiler::db::{self, RootDatabase, SourceFile};
        use nilang_compiler::render;

        let root = Path::new(env!("CARGO_MANIFEST_DIR"))
            .join("..")
            .canonicalize()
            .expect("the workspace");
        let folders = [
            "examples",
            "gpu",
            "adbench",
            "tests/nil",
            "tests/typed_bugs",
            "editors/vscode/tests/grammar",
            "tree-sitter-nilang/test/highlight",
            "tree-sitter-nilang/test/tags",
        ];
        let mut client = TestClient::initialized().await;
        let (mut files_seen, mut compared) = (0, 0);
        for folder in folders {
            let dir = root.join(folder);
            let mut paths: Vec<PathBuf> = std::fs::read_dir(&dir)
                .expect("the folder exists")
                .map(|e| e.expect("readable").path())
                .filter(|p| p.extension().is_some_and(|e| e == "nil"))
                .collect();
            paths.sort();
            let db = RootDatabase::default();
            let sources: Vec<SourceFile> = paths
                .iter()
                .map(|p| {
                    SourceFile::new(
                        &db,
                        p.display().to_string(),
                        std::fs::read_to_string(p).expect("readable"),
                    )
                })
                .collect();
            // As `nilc check` makes it: with the dependencies' modules
            // where the files import them.
            let project = nilang_compiler::project::load(
                &db,
                sources.clone(),
                paths.first().map(|p| p.as_path()),
            );
            for (path, &file) in paths.iter().zip(&sources) {
                let text = file.text(&db).clone();
                let uri = format!("file://{}", path.display());
                client.open(&uri, &text).await;
                let published = client.diagnostics(&uri).await;
                let got = published["diagnostics"].as_array().expect("list").clone();
                let want: Vec<_> = db::file_diagnostics(&db, project, file)
                    .iter()
                    .map(|d| render::to_json("", &text, d))
                    .collect();
                let name = path.display().to_string();
                assert_eq!(got.len(), want.len(), "{name}: {published}");
                compared += same_diagnostics(&got, &want, &name);
                files_seen += 1;
            }
        }
        assert!(files_seen >= 35, "only {files_seen} files");
        assert!(compared >= 10, "compared {compared} diagnostics");
        client.shutdown_and_exit().await;
    });
}

const PROGRAM: &str = "\
\"\"\"Accumulate `x * y` into `out!`.\"\"\"
function multiplier(out!::f64, x::f64, y::f64)
    anc ← zero(f64)
    @routine begin
        anc += x * y
    end
    out! += identity(anc)
    ~@routine
end

function twice(out!::f64, x::f64, z::f64)
    multiplier(out!, x, z)
    INC(out!)
end
";

async fn hover_text(client: &mut TestClient, uri: &str, needle: &str, nth: usize) -> String {
    let (line, character) = find(PROGRAM, needle, nth);
    let hover = client
        .request(
            "textDocument/hover",
            text_position(uri, line, character + 1),
        )
        .await;
    hover["contents"]["value"]
        .as_str()
        .unwrap_or_else(|| panic!("no hover at {needle}: {hover}"))
        .to_string()
}

#[test]
fn hover_shows_signature_mutation_and_inverses() {
    support::run(async {
        let mut client = TestClient::initialized().await;
        client.open(URI, PROGRAM).await;
        client.diagnostics(URI).await;

        let at_definition = hover_text(&mut client, URI, "multiplier(out!::", 0).await;
        expect![[r#"
            ```nilang
            function multiplier(out!::f64, x::f64, y::f64)
            ```

            Accumulate `x * y` into `out!`.

            **mutates:** `out!`  
            **reads only:** `x`, `y`

            ---

            **inverse** `~multiplier`:
            ```nilang
            """Accumulate `x * y` into `out!`."""
            function multiplier(out!::f64, x::f64, y::f64)
                anc ← zero(f64)
                @routine begin
                    anc += x * y
                end
                out! -= identity(anc)
                ~@routine
                anc → zero(f64)
            end
            ```"#]]
        .assert_eq(&at_definition);

        let at_statement = hover_text(&mut client, URI, "+= identity", 0).await;
        assert_eq!(
            at_statement,
            "**inverse of this statement:**\n```nilang\nout! -= identity(anc)\n```"
        );

        let at_call = hover_text(&mut client, URI, "multiplier(out!, x, z)", 0).await;
        assert!(at_call.contains("**mutates:** `out!`"), "{at_call}");
        assert!(
            at_call.contains("```nilang\n~multiplier(out!, x, z)\n```"),
            "{at_call}"
        );

        let at_param = hover_text(&mut client, URI, "x * y", 1).await;
        assert!(at_param.starts_with("```nilang\nx::f64\n```"), "{at_param}");
        assert!(at_param.contains("read only"), "{at_param}");
        let at_ancilla = hover_text(&mut client, URI, "anc +=", 0).await;
        assert!(
            at_ancilla.contains("ancilla, allocated as `anc ← zero(f64)`"),
            "{at_ancilla}"
        );

        let at_instruction = hover_text(&mut client, URI, "INC", 0).await;
        assert!(at_instruction.contains("inverse: DEC"), "{at_instruction}");
        assert!(at_instruction.contains("DEC(out!)"), "{at_instruction}");

        let at_unroutine = hover_text(&mut client, URI, "~@routine", 0).await;
        assert!(
            at_unroutine.contains("begin\n    anc -= x * y\nend"),
            "{at_unroutine}"
        );

        // Blank line between the functions: nothing to show.
        let (line, _) = find(PROGRAM, "\n\nfunction twice", 0);
        let none = client
            .request("textDocument/hover", text_position(URI, line + 1, 0))
            .await;
        assert_eq!(none, Value::Null);
        client.shutdown_and_exit().await;
    });
}

#[test]
fn inverse_and_generated_rust_requests() {
    support::run(async {
        let mut client = TestClient::initialized().await;
        client.open(URI, PROGRAM).await;
        client.diagnostics(URI).await;

        let by_name = client
            .request(
                "nilang/inverse",
                json!({ "textDocument": { "uri": URI }, "function": "twice" }),
            )
            .await;
        assert_eq!(by_name["function"], "twice");
        assert_eq!(
            by_name["source"],
            "function twice(out!::f64, x::f64, z::f64)\n    DEC(out!)\n    ~multiplier(out!, x, z)\nend\n"
        );
        let (line, character) = find(PROGRAM, "INC", 0);
        let by_position = client
            .request(
                "nilang/inverse",
                json!({ "textDocument": { "uri": URI }, "position": position(line, character) }),
            )
            .await;
        assert_eq!(by_position, by_name);
        let whole = client
            .request("nilang/inverse", json!({ "textDocument": { "uri": URI } }))
            .await;
        assert_eq!(whole["function"], Value::Null);
        let source = whole["source"].as_str().expect("source");
        assert!(source.contains("function multiplier") && source.contains("function twice"));

        let missing = client
            .request_raw(
                "nilang/inverse",
                json!({ "textDocument": { "uri": URI }, "function": "nope" }),
            )
            .await;
        assert_eq!(missing["error"]["code"], -32803, "{missing}");

        let rust = client
            .request(
                "nilang/generatedRust",
                json!({ "textDocument": { "uri": URI } }),
            )
            .await;
        let rust = rust["source"].as_str().expect("source");
        assert!(rust.contains("pub fn multiplier"), "{rust}");
        assert!(rust.contains("pub fn uncall_twice"), "{rust}");

        // With an error, neither is produced, and the message says why.
        client.change_full(URI, 1, WRONG).await;
        client.diagnostics_at(URI, 1).await;
        let refused = client
            .request_raw(
                "nilang/inverse",
                json!({ "textDocument": { "uri": URI }, "function": "acc" }),
            )
            .await;
        assert_eq!(refused["error"]["code"], -32803);
        assert!(
            refused["error"]["message"]
                .as_str()
                .expect("message")
                .contains("`acc` has errors")
        );
        let refused = client
            .request_raw(
                "nilang/generatedRust",
                json!({ "textDocument": { "uri": URI } }),
            )
            .await;
        let message = refused["error"]["message"].as_str().expect("message");
        assert!(message.contains("E0201"), "{message}");
        client.shutdown_and_exit().await;
    });
}

const OTHER_URI: &str = "file:///nilang-test/protocol/helpers.nil";
const HELPERS: &str = "\
function helper(y::f64, x::f64)
    y += identity(x)
end
";
const CALLER: &str = "\
function caller(y::f64, x::f64)
    helper(y, x)
    t ← zero(f64)
    t += identity(x)
    helper(t, x)
    ~helper(t, x)
    t → zero(f64)
end
";

#[test]
fn definition_and_references_across_files() {
    support::run(async {
        let mut client = TestClient::initialized().await;
        client.open(OTHER_URI, HELPERS).await;
        client.open(URI, CALLER).await;
        let published = client.diagnostics(URI).await;
        assert_eq!(
            published["diagnostics"],
            json!([]),
            "the call resolves across files"
        );

        let (line, character) = find(CALLER, "helper(t", 0);
        let definition = client
            .request(
                "textDocument/definition",
                text_position(URI, line, character + 2),
            )
            .await;
        assert_eq!(definition["uri"], OTHER_URI);
        assert_eq!(definition["range"]["start"], position(0, 9));
        assert_eq!(definition["range"]["end"], position(0, 15));

        let (line, character) = find(CALLER, "t += ", 0);
        let definition = client
            .request(
                "textDocument/definition",
                text_position(URI, line, character),
            )
            .await;
        assert_eq!(definition["uri"], URI);
        assert_eq!(
            definition["range"]["start"],
            position(2, 4),
            "the allocation"
        );

        let mut params = text_position(URI, line, character);
        params["context"] = json!({ "includeDeclaration": true });
        let refs = client
            .request("textDocument/references", params.clone())
            .await;
        let lines: Vec<u64> = refs
            .as_array()
            .expect("list")
            .iter()
            .map(|l| l["range"]["start"]["line"].as_u64().expect("line"))
            .collect();
        assert_eq!(
            lines,
            [2, 3, 4, 5, 6],
            "allocation, uses and deallocation of `t`"
        );

        let (line, character) = find(HELPERS, "helper", 0);
        let mut params = text_position(OTHER_URI, line, character);
        params["context"] = json!({ "includeDeclaration": false });
        let refs = client.request("textDocument/references", params).await;
        let found: Vec<(String, u64)> = refs
            .as_array()
            .expect("list")
            .iter()
            .map(|l| {
                (
                    l["uri"].as_str().expect("uri").to_string(),
                    l["range"]["start"]["line"].as_u64().expect("line"),
                )
            })
            .collect();
        assert_eq!(
            found,
            [
                (URI.to_string(), 1),
                (URI.to_string(), 4),
                (URI.to_string(), 5)
            ],
            "three calls, the uncall included"
        );

        // Parameter: definition in the signature.
        let (line, character) = find(CALLER, "x)\n    t ←", 0);
        let definition = client
            .request(
                "textDocument/definition",
                text_position(URI, line, character),
            )
            .await;
        assert_eq!(definition["range"]["start"], position(0, 24));

        // Renaming the helper in its own file breaks the calls in the other
        // open file, whose diagnostics are republished.
        client
            .change(OTHER_URI, 1, [(0, 9), (0, 15)], "assist")
            .await;
        let published = client.diagnostics(URI).await;
        let codes: Vec<&str> = published["diagnostics"]
            .as_array()
            .expect("list")
            .iter()
            .map(|d| d["code"].as_str().expect("code"))
            .collect();
        assert_eq!(codes, ["E0102", "E0102", "E0102"], "{published}");

        // Closing a document clears its diagnostics.
        client
            .notify(
                "textDocument/didClose",
                json!({ "textDocument": { "uri": URI } }),
            )
            .await;
        let cleared = client.diagnostics(URI).await;
        assert_eq!(cleared["diagnostics"], json!([]));
        client.shutdown_and_exit().await;
    });
}

#[test]
fn symbols_tokens_lenses_completion() {
    support::run(async {
        let mut client = TestClient::initialized().await;
        client.open(URI, PROGRAM).await;
        client.diagnostics(URI).await;
        let doc = json!({ "textDocument": { "uri": URI } });

        let symbols = client
            .request("textDocument/documentSymbol", doc.clone())
            .await;
        let names: Vec<&str> = symbols
            .as_array()
            .expect("list")
            .iter()
            .map(|s| s["name"].as_str().expect("name"))
            .collect();
        assert_eq!(names, ["multiplier", "twice"]);
        let children: Vec<&str> = symbols[0]["children"]
            .as_array()
            .expect("children")
            .iter()
            .map(|s| s["name"].as_str().expect("name"))
            .collect();
        assert_eq!(children, ["out!", "x", "y", "anc"]);
        assert_eq!(symbols[0]["kind"], 12, "function");

        let lenses = client.request("textDocument/codeLens", doc.clone()).await;
        let lenses = lenses.as_array().expect("list");
        assert_eq!(lenses.len(), 2, "one per function");
        assert_eq!(lenses[1]["command"]["title"], "Show inverse");
        assert_eq!(lenses[1]["command"]["command"], "nilang.showInverse");
        assert_eq!(lenses[1]["command"]["arguments"], json!([URI, "twice"]));
        assert_eq!(lenses[1]["range"]["start"], position(10, 9));

        let tokens = client
            .request("textDocument/semanticTokens/full", doc.clone())
            .await;
        let data: Vec<u64> = tokens["data"]
            .as_array()
            .expect("data")
            .iter()
            .map(|v| v.as_u64().expect("u32"))
            .collect();
        assert_eq!(data.len() % 5, 0);
        // First token: `multiplier` on line 1, column 9, a function declaration.
        assert_eq!(&data[..5], &[1, 9, 10, 0, 1]);
        // Second: `out!`, a mutated parameter (modifier bit 3).
        assert_eq!(&data[5..10], &[0, 11, 4, 1, 8]);
        // Third: `x`, a read-only parameter (bit 2).
        assert_eq!(&data[10..15], &[0, 11, 1, 1, 4]);

        let (line, character) = find(PROGRAM, "out! += identity", 0);
        let items = client
            .request(
                "textDocument/completion",
                text_position(URI, line, character),
            )
            .await;
        assert_eq!(items["isIncomplete"], false);
        let labels: Vec<&str> = items["items"]
            .as_array()
            .expect("list")
            .iter()
            .map(|i| i["label"].as_str().expect("label"))
            .collect();
        for expected in [
            "out!",
            "x",
            "y",
            "anc",
            "SWAP",
            "ROT",
            "multiplier",
            "twice",
            "sin",
            "while",
        ] {
            assert!(labels.contains(&expected), "{expected} in {labels:?}");
        }
        let (line, character) = find(PROGRAM, "multiplier(out!, x, z)", 0);
        let items = client
            .request(
                "textDocument/completion",
                text_position(URI, line, character),
            )
            .await;
        assert_eq!(items["isIncomplete"], false);
        let labels: Vec<&str> = items["items"]
            .as_array()
            .expect("list")
            .iter()
            .map(|i| i["label"].as_str().expect("label"))
            .collect();
        assert!(!labels.contains(&"anc"), "not in scope in `twice`");
        assert!(!labels.contains(&"y"), "not in scope in `twice`");
        client.shutdown_and_exit().await;
    });
}

#[test]
fn formatting_keeps_comments_honours_the_options_and_edits_only_changed_lines() {
    support::run(async {
        let mut client = TestClient::initialized().await;
        let messy =
            "# keep me\nfunction f(x::f64, y::f64)\n  x += y   # and me\n    SWAP(x, y)\nend\n";
        client.open(URI, messy).await;
        client.diagnostics(URI).await;
        let params = json!({ "textDocument": { "uri": URI }, "options": { "tabSize": 4, "insertSpaces": true } });
        let edits = client
            .request("textDocument/formatting", params.clone())
            .await;
        assert_eq!(
            edits,
            json!([{
                "range": { "start": position(2, 0), "end": position(2, 19) },
                "newText": "    x += y   # and me"
            }])
        );
        // The client's indentation: two spaces, or tabs.
        let two = json!({ "textDocument": { "uri": URI }, "options": { "tabSize": 2, "insertSpaces": true } });
        let edits = client.request("textDocument/formatting", two).await;
        assert_eq!(edits.as_array().unwrap().len(), 1, "{edits}");
        assert_eq!(edits[0]["newText"], "  SWAP(x, y)");
        let tabs = json!({ "textDocument": { "uri": URI }, "options": { "tabSize": 8, "insertSpaces": false } });
        let edits = client.request("textDocument/formatting", tabs).await;
        assert_eq!(edits[0]["newText"], "\tx += y   # and me");

        client
            .change_full(URI, 1, "function f(x::f64)\n  INC(x\nend\n")
            .await;
        let refused = client.request_raw("textDocument/formatting", params).await;
        assert_eq!(refused["error"]["code"], -32803);
        assert!(
            refused["error"]["message"]
                .as_str()
                .expect("message")
                .contains("syntax errors")
        );
        client.shutdown_and_exit().await;
    });
}

/// 200 one-character edits sent without waiting: the server keeps up, and
/// the last diagnostics published are those of the final text.
#[test]
fn two_hundred_rapid_edits() {
    support::run(async {
        let mut client = TestClient::initialized().await;
        let text = support::generate(300);
        client.open(URI, &text).await;
        let first = client.diagnostics(URI).await;
        assert_eq!(first["diagnostics"], json!([]));
        // Line 2 is `    a ← zero(f64)` of f0: type `ab`, then remove, 100 times,
        // and finally break it with `y += x * y`.
        let (line, _) = find(&text, "    a ← zero(f64)", 0);
        let mut version = 0;
        for _ in 0..100 {
            version += 1;
            client
                .change(URI, version, [(line, 5), (line, 5)], "b")
                .await;
            version += 1;
            client
                .change(URI, version, [(line, 5), (line, 6)], "")
                .await;
        }
        let (body_line, _) = find(&text, "        a += sin(x)", 0);
        version += 1;
        client
            .change(
                URI,
                version,
                [(body_line, 8), (body_line, 19)],
                "x += x * a",
            )
            .await;
        let published = client.diagnostics_at(URI, version).await;
        let codes: Vec<&str> = published["diagnostics"]
            .as_array()
            .expect("list")
            .iter()
            .map(|d| d["code"].as_str().expect("code"))
            .collect();
        assert_eq!(codes, ["E0201"], "{published}");
        assert_eq!(
            published["diagnostics"][0]["range"]["start"]["line"],
            body_line
        );

        // Still answering.
        let hover = client
            .request("textDocument/hover", text_position(URI, body_line, 9))
            .await;
        assert!(
            hover["contents"]["value"]
                .as_str()
                .expect("hover")
                .contains("x -= x * a")
        );
        client.shutdown_and_exit().await;
    });
}

#[test]
fn malformed_messages_and_unknown_methods_leave_it_alive() {
    support::run(async {
        let mut client = TestClient::initialized().await;
        client.open(URI, PROGRAM).await;
        client.diagnostics(URI).await;

        // Invalid JSON inside a well-formed frame: a parse error response.
        let body = b"{\"jsonrpc\": \"2.0\", \"id\": 99, \"method\": ";
        client
            .send_raw(
                &[
                    format!("Content-Length: {}\r\n\r\n", body.len()).as_bytes(),
                    body,
                ]
                .concat(),
            )
            .await;
        let error = client.wait_for(|m| m.get("error").is_some()).await;
        assert_eq!(error["error"]["code"], -32700, "{error}");

        // Valid JSON that is not a JSON-RPC message.
        client.send(&json!({ "hello": "world" })).await;
        let error = client.wait_for(|m| m.get("error").is_some()).await;
        assert_eq!(error["error"]["code"], -32600, "{error}");

        let unknown = client.request_raw("nilang/noSuchThing", json!({})).await;
        assert_eq!(unknown["error"]["code"], -32601, "{unknown}");
        client.notify("nilang/unknownNotification", json!({})).await;

        // Bad parameters for a known method.
        let bad = client
            .request_raw("textDocument/hover", json!({ "textDocument": 5 }))
            .await;
        assert_eq!(bad["error"]["code"], -32602, "{bad}");

        // Positions far outside the text, and unknown documents.
        let hover = client
            .request("textDocument/hover", text_position(URI, 9999, 9999))
            .await;
        assert_eq!(hover, Value::Null);
        let hover = client
            .request(
                "textDocument/hover",
                text_position("file:///nilang-test/nowhere.nil", 0, 0),
            )
            .await;
        assert_eq!(hover, Value::Null);
        client
            .change(URI, 1, [(500, 0), (0, 3)], "garbage ( ( (")
            .await;
        client.diagnostics_at(URI, 1).await;

        let hover = client
            .request("textDocument/hover", text_position(URI, 2, 5))
            .await;
        assert!(hover.is_object(), "still serving: {hover}");
        client.shutdown_and_exit().await;
    });
}

/// The `nilang-lsp` binary with piped stdin and stdout.
fn spawn_binary() -> std::process::Child {
    use std::process::{Command, Stdio};
    Command::new(env!("CARGO_BIN_EXE_nilang-lsp"))
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::null())
        .spawn()
        .expect("nilang-lsp starts")
}

/// One JSON-RPC message framed with its `Content-Length`.
fn frame(v: Value) -> String {
    let body = v.to_string();
    format!("Content-Length: {}\r\n\r\n{body}", body.len())
}

/// The binary itself over stdio: initialize, shutdown, exit with status 0.
#[test]
fn the_binary_speaks_lsp_on_stdio() {
    use std::io::{Read, Write};

    let mut child = spawn_binary();
    let mut stdin = child.stdin.take().expect("stdin");
    let initialize = frame(
        json!({ "jsonrpc": "2.0", "id": 1, "method": "initialize", "params": { "capabilities": {} } }),
    );
    stdin.write_all(initialize.as_bytes()).expect("write");
    stdin.flush().expect("flush");
    // Read on another thread, so that a silent server fails the test
    // instead of hanging it.
    let mut stdout = child.stdout.take().expect("stdout");
    let (tx, rx) = std::sync::mpsc::channel::<String>();
    std::thread::spawn(move || {
        let mut chunk = [0u8; 4096];
        while let Ok(n) = stdout.read(&mut chunk) {
            if n == 0
                || tx
                    .send(String::from_utf8_lossy(&chunk[..n]).into_owned())
                    .is_err()
            {
                break;
            }
        }
    });
    let mut seen = String::new();
    let wait_for = |needle: &str, seen: &mut String| {
        while !seen.contains(needle) {
            match rx.recv_timeout(support::TIMEOUT) {
                Ok(chunk) => seen.push_str(&chunk),
                Err(_) => panic!("no {needle} from the server: {seen}"),
            }
        }
    };
    // A client sends nothing more before the answer to `initialize`.
    wait_for("\"id\":1", &mut seen);
    let input = [
        frame(json!({ "jsonrpc": "2.0", "method": "initialized", "params": {} })),
        frame(json!({ "jsonrpc": "2.0", "method": "textDocument/didOpen", "params": {
            "textDocument": { "uri": URI, "languageId": "nilang", "version": 3, "text": WRONG } } })),
    ]
    .concat();
    stdin.write_all(input.as_bytes()).expect("write");
    stdin.flush().expect("flush");
    wait_for("publishDiagnostics", &mut seen);
    stdin
        .write_all(frame(json!({ "jsonrpc": "2.0", "id": 2, "method": "shutdown" })).as_bytes())
        .expect("write shutdown");
    stdin.flush().expect("flush");
    wait_for("\"id\":2", &mut seen);
    assert!(seen.contains("\"E0201\""), "{seen}");
    stdin
        .write_all(frame(json!({ "jsonrpc": "2.0", "method": "exit" })).as_bytes())
        .expect("write exit");
    drop(stdin);
    let status = child.wait().expect("exits");
    assert!(status.success(), "{status}");
}

/// The binary resynchronises after broken frames (a header line that is
/// not UTF-8, a frame without `Content-Length`, one whose length is too
/// short), answers `$/` requests with MethodNotFound, and exits with status
/// 1 when `exit` comes without `shutdown` (here the only `shutdown` sits in
/// the frame without a length, which is dropped).
#[test]
fn the_binary_survives_broken_frames_and_exits_1_without_shutdown() {
    use std::io::{Read, Write};

    let mut child = spawn_binary();
    let frame = |v: Value| frame(v).into_bytes();
    let mut input = Vec::new();
    input.extend(frame(
        json!({ "jsonrpc": "2.0", "id": 1, "method": "initialize", "params": { "capabilities": {} } }),
    ));
    input.extend(b"X-Broken: \xff\xfe\r\n");
    input.extend(frame(
        json!({ "jsonrpc": "2.0", "id": 2, "method": "$/probe" }),
    ));
    input.extend(b"Content-Type: nothing\r\n\r\n");
    input.extend(
        json!({ "jsonrpc": "2.0", "id": 99, "method": "shutdown" })
            .to_string()
            .into_bytes(),
    );
    input.extend(frame(
        json!({ "jsonrpc": "2.0", "id": 3, "method": "$/other" }),
    ));
    input.extend(b"Content-Length: 5\r\n\r\n");
    input.extend(
        json!({ "jsonrpc": "2.0", "id": 98, "method": "x" })
            .to_string()
            .into_bytes(),
    );
    input.extend(frame(
        json!({ "jsonrpc": "2.0", "id": 4, "method": "$/third" }),
    ));
    input.extend(frame(json!({ "jsonrpc": "2.0", "method": "exit" })));
    let mut stdin = child.stdin.take().expect("stdin");
    stdin.write_all(&input).expect("write");
    drop(stdin);
    let mut out = String::new();
    child
        .stdout
        .take()
        .expect("stdout")
        .read_to_string(&mut out)
        .expect("read");
    let status = child.wait().expect("exits");
    for id in ["\"id\":2", "\"id\":3", "\"id\":4"] {
        assert!(out.contains(id), "{id} answered: {out}");
    }
    assert!(out.contains("-32601"), "{out}");
    assert!(
        out.contains("-32700"),
        "the short frame is a parse error: {out}"
    );
    assert!(!out.contains("\"id\":99"), "{out}");
    assert_eq!(status.code(), Some(1), "{status}");
}

/// Neovim's spelling of a path as a URI: lowercase escapes, `+ ( )` left
/// as they are.
fn neovim_uri(path: &Path) -> String {
    let mut uri = String::from("file://");
    for b in path.to_string_lossy().bytes() {
        if b.is_ascii_alphanumeric() || b"/-._~+()".contains(&b) {
            uri.push(b as char);
        } else {
            uri.push_str(&format!("%{b:02x}"));
        }
    }
    uri
}

/// Two files of one folder whose name needs escaping, opened with the URIs
/// Neovim sends: one project, no false "defined twice", diagnostics under
/// the one spelling the server uses for the file.
#[test]
fn uris_of_one_file_in_other_spellings_are_one_document() {
    let dir = std::env::temp_dir().join(format!("nvdup é +(x) {}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let a = dir.join("a.nil");
    let b = dir.join("b.nil");
    let a_text = "function helper(y::f64)\n    y += 1.0\nend\n";
    let b_text = "function user(y::f64)\n    helper(y)\nend\n";
    std::fs::write(&a, a_text).unwrap();
    std::fs::write(&b, b_text).unwrap();
    let (a_uri, b_uri) = (neovim_uri(&a), neovim_uri(&b));
    assert!(
        a_uri.contains("%c3%a9") && a_uri.contains("+(x)"),
        "{a_uri}"
    );
    let canonical = |p: &Path| {
        tower_lsp_server::ls_types::Uri::from_file_path(p)
            .expect("a file URI")
            .as_str()
            .to_string()
    };
    let (a_key, b_key) = (canonical(&a), canonical(&b));
    assert_ne!(b_key, b_uri, "the server spells it otherwise");
    support::run(async move {
        let mut client = TestClient::initialized().await;
        client.open(&a_uri, a_text).await;
        client.open(&b_uri, b_text).await;
        let published = client.diagnostics(&b_key).await;
        assert_eq!(published["diagnostics"], json!([]), "{published}");
        let published = client.diagnostics(&a_key).await;
        assert_eq!(published["diagnostics"], json!([]), "{published}");
        // An edit through the client's spelling reaches the same document.
        client
            .change_full(&b_uri, 1, "function user(y::f64)\n    helpr(y)\nend\n")
            .await;
        let published = client.diagnostics_at(&b_key, 1).await;
        assert_eq!(published["diagnostics"][0]["code"], "E0102", "{published}");
        client.shutdown_and_exit().await;
    });
    let _ = std::fs::remove_dir_all(&dir);
}

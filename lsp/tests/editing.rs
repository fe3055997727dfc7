//! Editing features over the protocol: rename (with its refusals),
//! document highlights, folding ranges, workspace symbols and quick fixes.

mod support;

use serde_json::{Value, json};
use support::{TestClient, text_position};

const A: &str = "\
function helper(y::f64, x::f64)
    y += x
end

# Two comment lines
# fold together.
function caller(out::f64, v::f64)
    t ← 0.0
    t += v
    for i = 1:3
        helper(out, t)
    end
    t -= v
    t → 0.0
end
";
const B: &str = "function other(z::f64, w::f64)\n    helper(z, w)\nend\n";

fn edits_by_file(edit: &Value) -> Vec<(String, usize)> {
    let mut out: Vec<(String, usize)> = edit["changes"]
        .as_object()
        .expect("changes")
        .iter()
        .map(|(uri, edits)| {
            let file = uri.rsplit('/').next().unwrap_or_default().to_string();
            (file, edits.as_array().map_or(0, Vec::len))
        })
        .collect();
    out.sort();
    out
}

#[test]
fn rename_highlight_folding_and_workspace_symbols() {
    let tmp = tempfile::tempdir().expect("a folder");
    let dir = tmp.path().canonicalize().unwrap();
    let a = format!("file://{}", dir.join("a.nil").display());
    let b = format!("file://{}", dir.join("b.nil").display());
    std::fs::write(dir.join("a.nil"), A).unwrap();
    std::fs::write(dir.join("b.nil"), B).unwrap();
    support::run(async move {
        let mut client = TestClient::initialized().await;
        client.open(&a, A).await;
        client.open(&b, B).await;
        client.diagnostics_at(&b, 0).await;

        // prepareRename: the name under the cursor.
        let at_call = text_position(&a, 10, 10);
        let prepared = client
            .request("textDocument/prepareRename", at_call.clone())
            .await;
        assert_eq!(prepared["placeholder"], "helper");
        assert_eq!(
            prepared["range"]["start"],
            json!({ "line": 10, "character": 8 })
        );

        // A function: its definition and the calls in both files.
        let mut params = at_call.clone();
        params["newName"] = json!("accumulate!");
        let edit = client.request("textDocument/rename", params).await;
        assert_eq!(
            edits_by_file(&edit),
            [("a.nil".to_string(), 2), ("b.nil".to_string(), 1)]
        );
        // Refusals, with the reason.
        for (position, new_name, reason) in [
            (
                at_call.clone(),
                "caller",
                "a function named `caller` exists already",
            ),
            (
                text_position(&a, 7, 4),
                "out",
                "`out` is already a name in `caller`",
            ),
            (text_position(&a, 7, 4), "end", "`end` is not a name"),
            (
                text_position(&a, 7, 4),
                "sin",
                "`sin` is a built-in function or instruction",
            ),
        ] {
            let mut params = position;
            params["newName"] = json!(new_name);
            let response = client.request_raw("textDocument/rename", params).await;
            assert_eq!(response["error"]["message"], reason, "{response}");
        }
        // A local: every use in its function.
        let mut params = text_position(&a, 8, 4);
        params["newName"] = json!("tmp");
        let edit = client.request("textDocument/rename", params).await;
        assert_eq!(edits_by_file(&edit), [("a.nil".to_string(), 5)]);

        // Highlights: the definition is a write (3), the uses reads (2).
        let highlights = client
            .request("textDocument/documentHighlight", text_position(&a, 12, 4))
            .await;
        let kinds: Vec<(u64, u64)> = highlights
            .as_array()
            .unwrap()
            .iter()
            .map(|h| {
                (
                    h["range"]["start"]["line"].as_u64().unwrap(),
                    h["kind"].as_u64().unwrap(),
                )
            })
            .collect();
        assert_eq!(kinds, [(7, 3), (8, 2), (10, 2), (12, 2), (13, 2)]);

        // Folding: both functions and the loop keep their `end` line; the
        // comment run folds as a comment.
        let folds = client
            .request(
                "textDocument/foldingRange",
                json!({ "textDocument": { "uri": a } }),
            )
            .await;
        let mut folds: Vec<(u64, u64, String)> = folds
            .as_array()
            .unwrap()
            .iter()
            .map(|f| {
                (
                    f["startLine"].as_u64().unwrap(),
                    f["endLine"].as_u64().unwrap(),
                    f["kind"].as_str().unwrap_or("").to_string(),
                )
            })
            .collect();
        folds.sort();
        assert_eq!(
            folds,
            [
                (0, 1, "region".to_string()),
                (4, 5, "comment".to_string()),
                (6, 13, "region".to_string()),
                (9, 10, "region".to_string()),
            ]
        );

        // Workspace symbols, filtered by the query, across files.
        let symbols = client
            .request("workspace/symbol", json!({ "query": "HELP" }))
            .await;
        let names: Vec<&str> = symbols
            .as_array()
            .unwrap()
            .iter()
            .map(|s| s["name"].as_str().unwrap())
            .collect();
        assert_eq!(names, ["helper"]);
        let all = client
            .request("workspace/symbol", json!({ "query": "" }))
            .await;
        assert_eq!(all.as_array().unwrap().len(), 3, "{all}");
        // Completion: after `p.` the fields of `p`'s type (through an
        // index and a nested struct), filtered by what follows the dot;
        // elsewhere filtered by the word before the cursor.
        let d = format!("file://{}", dir.join("d.nil").display());
        let structs = "struct Pt{T}\n    x::T\n    y::T\nend\nstruct Seg{T}\n    a::Pt{T}\n    b::Pt{T}\nend\nfunction g(s::[Seg{f64}], p::Pt{f64}, z::Complex{f64}, w::f64)\n    w += p.x\n    w += s[1].a.y\n    w += z.re\nend\n";
        client.open(&d, structs).await;
        client.diagnostics_at(&d, 0).await;
        let labels = |list: &Value| -> Vec<String> {
            list["items"]
                .as_array()
                .unwrap()
                .iter()
                .map(|i| i["label"].as_str().unwrap().to_string())
                .collect()
        };
        for (line, character, expected) in [
            (9, 11, vec!["x", "y"]),
            (10, 16, vec!["x", "y"]),
            (10, 14, vec!["a", "b"]),
            (11, 11, vec!["re", "im"]),
            (11, 12, vec!["re"]),
        ] {
            let list = client
                .request(
                    "textDocument/completion",
                    text_position(&d, line, character),
                )
                .await;
            assert_eq!(labels(&list), expected, "{line}:{character}");
            assert_eq!(list["items"][0]["kind"], 5, "a field");
        }
        let list = client
            .request("textDocument/completion", text_position(&d, 9, 5))
            .await;
        assert!(
            labels(&list)
                .iter()
                .all(|l| l.to_lowercase().starts_with('w')),
            "{list}"
        );
        assert!(labels(&list).contains(&"w".to_string()));

        // Signature help inside a call: the callee's signature and the
        // parameter at the cursor, also where the call is unfinished.
        let help = client
            .request("textDocument/signatureHelp", text_position(&a, 10, 20))
            .await;
        assert_eq!(
            help["signatures"][0]["label"],
            "function helper(y::f64, x::f64)"
        );
        assert_eq!(help["activeParameter"], 1);
        assert_eq!(
            help["signatures"][0]["parameters"][1]["label"],
            json!([24, 30])
        );
        let e = format!("file://{}", dir.join("e.nil").display());
        client
            .open(&e, "function half(y::f64, x::f64)\n    SWAP(y, \n")
            .await;
        let help = client
            .request("textDocument/signatureHelp", text_position(&e, 1, 12))
            .await;
        assert_eq!(help["signatures"][0]["label"], "SWAP(a!, b!)");
        assert_eq!(help["activeParameter"], 1);
        let none = client
            .request("textDocument/signatureHelp", text_position(&a, 8, 5))
            .await;
        assert!(none.is_null(), "{none}");

        // Expand selection: from `t` in `helper(out, t)` outwards.
        let ranges = client
            .request(
                "textDocument/selectionRange",
                json!({ "textDocument": { "uri": a }, "positions": [{ "line": 10, "character": 20 }] }),
            )
            .await;
        let mut spans = Vec::new();
        let mut at = &ranges[0];
        while at.is_object() {
            spans.push((
                at["range"]["start"]["line"].as_u64().unwrap(),
                at["range"]["start"]["character"].as_u64().unwrap(),
                at["range"]["end"]["line"].as_u64().unwrap(),
                at["range"]["end"]["character"].as_u64().unwrap(),
            ));
            at = &at["parent"];
        }
        assert_eq!(spans[0], (10, 20, 10, 21), "`t`");
        assert!(spans.contains(&(10, 8, 10, 22)), "the call: {spans:?}");
        assert!(spans.contains(&(6, 0, 14, 3)), "the function: {spans:?}");

        // Inlay hints: the parameter an argument goes to, `!` where the
        // call changes it.
        let hints = client
            .request(
                "textDocument/inlayHint",
                json!({ "textDocument": { "uri": a }, "range": { "start": { "line": 0, "character": 0 }, "end": { "line": 15, "character": 0 } } }),
            )
            .await;
        let hints: Vec<(u64, u64, String)> = hints
            .as_array()
            .unwrap()
            .iter()
            .map(|h| {
                (
                    h["position"]["line"].as_u64().unwrap(),
                    h["position"]["character"].as_u64().unwrap(),
                    h["label"].as_str().unwrap().to_string(),
                )
            })
            .collect();
        assert_eq!(
            hints,
            [(10, 15, "y!:".to_string()), (10, 20, "x:".to_string())]
        );

        // The outline lists structs with their fields, in text order.
        let outline = client
            .request(
                "textDocument/documentSymbol",
                json!({ "textDocument": { "uri": d } }),
            )
            .await;
        let outline: Vec<(String, u64, Vec<String>)> = outline
            .as_array()
            .unwrap()
            .iter()
            .map(|s| {
                let children = s["children"]
                    .as_array()
                    .map(|c| {
                        c.iter()
                            .map(|c| c["name"].as_str().unwrap().to_string())
                            .collect()
                    })
                    .unwrap_or_default();
                (
                    s["name"].as_str().unwrap().to_string(),
                    s["kind"].as_u64().unwrap(),
                    children,
                )
            })
            .collect();
        assert_eq!(
            outline[0],
            ("Pt".to_string(), 23, vec!["x".to_string(), "y".to_string()])
        );
        assert_eq!(outline[1].0, "Seg");
        assert_eq!((outline[2].0.as_str(), outline[2].1), ("g", 12));

        // Quick fixes for a shared read: squaring (preferred) and a copy.
        let c = format!("file://{}", dir.join("c.nil").display());
        let shared = "function sq(y::f64, x::f64)\n    y += x * x\nend\n";
        client.open(&c, shared).await;
        client.diagnostics_at(&c, 0).await;
        let actions = client
            .request(
                "textDocument/codeAction",
                json!({
                    "textDocument": { "uri": c },
                    "range": { "start": { "line": 1, "character": 4 }, "end": { "line": 1, "character": 4 } },
                    "context": { "diagnostics": [] },
                }),
            )
            .await;
        let actions = actions.as_array().unwrap();
        assert_eq!(actions.len(), 2, "{actions:?}");
        assert_eq!(actions[0]["title"], "Square with `abs2(x)`");
        assert_eq!(actions[0]["kind"], "quickfix");
        assert_eq!(actions[0]["isPreferred"], true);
        assert_eq!(actions[1]["isPreferred"], false);
        assert_eq!(actions[0]["diagnostics"][0]["code"], "E0210");
        let edit = &actions[0]["edit"]["changes"][c.as_str()][0];
        assert_eq!(edit["newText"], "abs2(x)");
        assert_eq!(edit["range"]["start"], json!({ "line": 1, "character": 9 }));
        assert_eq!(
            actions[1]["edit"]["changes"][c.as_str()]
                .as_array()
                .unwrap()
                .len(),
            3
        );
        client.shutdown_and_exit().await;
    });
}

#[test]
fn a_huge_outline_is_bounded_functions_first_and_says_it_was_cut() {
    support::run(async {
        let mut client = TestClient::initialized().await;
        let uri = "untitled:huge.nil";
        // 6,000 functions with two parameters each: 18,000 entries in all.
        let text: String = (0..6000)
            .map(|i| format!("function f{i}(y::f64, x::f64)\n    y += x\nend\n"))
            .collect();
        client.open(uri, &text).await;
        let outline = client
            .request(
                "textDocument/documentSymbol",
                json!({ "textDocument": { "uri": uri } }),
            )
            .await;
        let outline = outline.as_array().unwrap();
        // Every function, then the entry that says the outline was cut.
        assert_eq!(outline.len(), 6001);
        let (functions, note) = outline.split_at(6000);
        let children: usize = functions
            .iter()
            .map(|s| s["children"].as_array().map_or(0, Vec::len))
            .sum();
        assert_eq!(
            functions.len() + children,
            nilang_lsp::features::MAX_OUTLINE
        );
        assert_eq!(functions[0]["children"].as_array().unwrap().len(), 2);
        assert_eq!(functions[1999]["children"].as_array().unwrap().len(), 2);
        assert_eq!(functions[2000]["children"].as_array().unwrap().len(), 0);
        assert_eq!(functions[5999]["name"], "f5999");
        assert_eq!(
            note[0]["name"],
            "… 8000 more symbols not shown (limit 10000)"
        );
        assert!(note[0].get("children").is_none(), "{}", note[0]);
        // At the first entry left out: `y` of `f2000`, on line 6000.
        assert_eq!(
            note[0]["selectionRange"]["start"],
            json!({ "line": 6000, "character": 15 })
        );
        client.shutdown_and_exit().await;
    });
}

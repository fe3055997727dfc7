//! Incremental parsing gives what a fresh parse gives: every example and UI
//! test file, edited at random many times over (a seeded generator, so a
//! failure replays), parsed by one `Reparser` and compared after each edit
//! with `parser::parse` of the same text.

use std::path::Path;

use nilang_syntax::parser;
use nilang_syntax::reparse::Reparser;

/// splitmix64: a small seeded generator, enough to pick edits.
struct Rng(u64);

impl Rng {
    fn next(&mut self) -> u64 {
        self.0 = self.0.wrapping_add(0x9e37_79b9_7f4a_7c15);
        let mut z = self.0;
        z = (z ^ (z >> 30)).wrapping_mul(0xbf58_476d_1ce4_e5b9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94d0_49bb_1331_11eb);
        z ^ (z >> 31)
    }

    fn below(&mut self, n: usize) -> usize {
        (self.next() % n.max(1) as u64) as usize
    }
}

const SNIPPETS: &[&str] = &[
    "x",
    "1",
    "\n",
    " ",
    "+ 1.0",
    "end\n",
    "(",
    ")",
    "é",
    "θ",
    "#",
    "\"",
    "y += x\n",
    "function g(x::f64)\n    x += 1.0\nend\n",
    "@routine",
    "←",
    "\r\n",
    "~",
    "[",
    "::f64",
];

fn char_boundary(text: &str, mut at: usize) -> usize {
    while !text.is_char_boundary(at) {
        at -= 1;
    }
    at
}

/// One random edit: a deletion, an insertion, a replacement, or a line
/// copied from elsewhere in the file.
fn edit(text: &str, rng: &mut Rng) -> String {
    let at = char_boundary(text, rng.below(text.len() + 1));
    let end = char_boundary(text, (at + rng.below(24)).min(text.len()));
    let end = end.max(at);
    let mut out = String::with_capacity(text.len() + 64);
    out.push_str(&text[..at]);
    match rng.below(4) {
        0 => {}
        1 => {
            out.push_str(SNIPPETS[rng.below(SNIPPETS.len())]);
            out.push_str(&text[at..end]);
        }
        2 => out.push_str(SNIPPETS[rng.below(SNIPPETS.len())]),
        _ => {
            let lines: Vec<&str> = text.lines().collect();
            if !lines.is_empty() {
                out.push_str(lines[rng.below(lines.len())]);
                out.push('\n');
            }
            out.push_str(&text[at..end]);
        }
    }
    out.push_str(&text[end..]);
    out
}

fn corpus() -> Vec<(String, String)> {
    let root = Path::new(env!("CARGO_MANIFEST_DIR")).join("..");
    let mut files = Vec::new();
    for dir in ["examples", "compiler/tests/ui", "adbench"] {
        let Ok(entries) = std::fs::read_dir(root.join(dir)) else {
            continue;
        };
        for entry in entries.flatten() {
            let path = entry.path();
            if path.extension().is_some_and(|e| e == "nil") {
                let text = std::fs::read_to_string(&path).expect("a readable .nil file");
                files.push((path.display().to_string(), text));
            }
        }
    }
    files.sort();
    files
}

#[test]
fn reparsing_after_random_edits_equals_a_fresh_parse() {
    let files = corpus();
    assert!(
        files.len() >= 40,
        "the corpus was not found: {}",
        files.len()
    );
    let (mut clean, mut recalled, mut local, mut steps) = (0, 0, 0, 0);
    for (seed, (path, original)) in files.iter().enumerate() {
        let mut rng = Rng(seed as u64);
        let mut reparser = Reparser::new();
        let mut text = original.clone();
        for step in 0..60 {
            let (got, stats) = reparser.parse_with_stats(&text);
            assert_eq!(
                got,
                parser::parse(&text),
                "{path}, step {step}: the reparse differs from a fresh parse of\n{text}"
            );
            // Every parse after the first reuses the previous tree, unless
            // the text has a syntax error (a small file is then parsed
            // afresh, see `FRESH_ON_ERROR`).
            let broken = got
                .diagnostics
                .iter()
                .any(|d| matches!(d.code, "E0001" | "E0002" | "E0006"));
            if !broken {
                assert_eq!(stats.incremental, step > 0, "{path}, step {step}");
            }
            if !got
                .diagnostics
                .iter()
                .any(|d| matches!(d.code, "E0001" | "E0002"))
            {
                clean += 1;
            }
            recalled += stats.recalled;
            local += usize::from(stats.local);
            steps += 1;
            // Now and then the edit is undone wholesale, as an editor's undo does.
            text = if rng.below(8) == 0 {
                original.clone()
            } else {
                edit(&text, &mut rng)
            };
        }
    }
    // The generator does reach clean texts, and functions are recalled.
    assert!(
        clean * 10 > steps,
        "{clean} of {steps} steps had no syntax error"
    );
    assert!(
        recalled > steps,
        "{recalled} functions recalled in {steps} steps"
    );
    // Some edits are parsed at the function level, and full reparses
    // follow them (their tree then carries several edits).
    assert!(
        local * 40 > steps,
        "{local} of {steps} steps parsed one function"
    );
}

#[test]
fn an_edit_inside_one_function_lowers_that_function_only() {
    let mut text = String::new();
    for i in 0..50 {
        text.push_str(&format!(
            "function f{i}(y::f64, x::f64)\n    y += x * 2.0\nend\n\n"
        ));
    }
    let mut reparser = Reparser::new();
    let (_, first) = reparser.parse_with_stats(&text);
    assert_eq!(
        (first.incremental, first.lowered, first.recalled),
        (false, 50, 0)
    );
    let edited = text.replace(
        "function f7(y::f64, x::f64)\n    y += x * 2.0",
        "function f7(y::f64, x::f64)\n    y += x * 3.0",
    );
    let (parsed, stats) = reparser.parse_with_stats(&edited);
    assert_eq!(parsed, parser::parse(&edited));
    assert_eq!(
        (
            stats.incremental,
            stats.local,
            stats.lowered,
            stats.recalled
        ),
        (true, true, 1, 49)
    );
    // A line inserted above every function shifts them all; none is lowered
    // again, since their spans are relative to their own start.
    let shifted = format!("\n{edited}");
    let (parsed, stats) = reparser.parse_with_stats(&shifted);
    assert_eq!(parsed, parser::parse(&shifted));
    assert_eq!((stats.local, stats.lowered, stats.recalled), (false, 0, 50));
}

/// Edits that keep a function whole are parsed at the function level; one
/// that breaks it (an `end` deleted, so it would swallow the next function)
/// or that lands between functions falls back to the full reparse, whose
/// tree then carries every edit made since the last one.
#[test]
fn function_level_reparses_and_their_fallbacks_agree_with_a_fresh_parse() {
    let mut text = String::from("struct P\n    a::f64\nend\n\n");
    for i in 0..20 {
        text.push_str(&format!(
            "function f{i}(y::f64, x::f64)\n    y += x * 2.0\nend\n\n"
        ));
    }
    let mut reparser = Reparser::new();
    reparser.parse(&text);
    let steps: &[(&str, &str, bool)] = &[
        (
            "y += x * 2.0\nend\n\nfunction f3",
            "y += x * 2.5\nend\n\nfunction f3",
            true,
        ),
        (
            "function f5(y::f64, x::f64)\n",
            "function f5(y::f64, x::f64)\n    y += x\n",
            true,
        ),
        (
            "function f7(y::f64, x::f64)",
            "function f7(y::f64, x::f64, z::f64)",
            true,
        ),
        // A syntax error inside one function: the full reparse.
        (
            "function f9(y::f64, x::f64)\n    y +=",
            "function f9(y::f64, x::f64)\n    y += (",
            false,
        ),
        (
            "function f9(y::f64, x::f64)\n    y += (",
            "function f9(y::f64, x::f64)\n    y +=",
            false,
        ),
        // The file is clean again.
        (
            "function f11(y::f64, x::f64)\n    y += x * 2.0",
            "function f11(y::f64, x::f64)\n    y -= x * 2.0",
            true,
        ),
        // An `end` removed: f12 would run into f13.
        (
            "y += x * 2.0\nend\n\nfunction f13",
            "y += x * 2.0\n\n\nfunction f13",
            false,
        ),
        (
            "y += x * 2.0\n\n\nfunction f13",
            "y += x * 2.0\nend\n\nfunction f13",
            false,
        ),
        // A new function between two others.
        (
            "end\n\nfunction f15",
            "end\nfunction g(x::f64)\n    x += 1.0\nend\n\nfunction f15",
            false,
        ),
        (
            "function g(x::f64)\n    x += 1.0",
            "function g(x::f64)\n    x += 2.0",
            true,
        ),
        // An edit in the struct, before every function.
        ("a::f64", "a::f32", false),
        ("y += x * 2.5", "y += x * 3.5", true),
    ];
    for (k, &(from, to, local)) in steps.iter().enumerate() {
        assert_eq!(text.matches(from).count(), 1, "step {k}: {from:?}");
        text = text.replacen(from, to, 1);
        let (parsed, stats) = reparser.parse_with_stats(&text);
        assert_eq!(parsed, parser::parse(&text), "step {k}:\n{text}");
        assert!(
            stats.incremental || !parsed.diagnostics.is_empty(),
            "step {k}"
        );
        assert_eq!(stats.local, local, "step {k}");
    }
}

#[test]
fn a_syntax_error_is_parsed_afresh_and_its_repair_incrementally() {
    let text = "function f(y::f64, x::f64)\n    y += x\nend\n";
    let mut reparser = Reparser::new();
    reparser.parse(text);
    let broken = text.replace("y += x", "y += (x");
    let (parsed, stats) = reparser.parse_with_stats(&broken);
    // A small text with a syntax error is parsed afresh: tree-sitter's
    // error recovery on a reused tree can end differently.
    assert!(!stats.incremental);
    // The broken function is lowered afresh and not remembered.
    assert_eq!(stats.recalled, 0);
    assert_eq!(parsed, parser::parse(&broken));
    assert!(!parsed.diagnostics.is_empty());
    let (parsed, stats) = reparser.parse_with_stats(text);
    assert!(stats.incremental);
    assert_eq!(parsed, parser::parse(text));
    assert!(parsed.diagnostics.is_empty());
}

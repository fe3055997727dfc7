//! The playground's requests answered natively: the same code the page
//! runs as WebAssembly (`test_browser.py` drives the page itself).

use nilang_playground::{EXAMPLES, Playground};
use serde_json::{Value, json};

fn ask(p: &mut Playground, request: Value) -> Value {
    serde_json::from_str(&p.handle(&request.to_string())).expect("the answer is JSON")
}

fn check(p: &mut Playground, text: &str) -> Value {
    ask(p, json!({ "op": "check", "text": text }))
}

const MULTIPLIER: &str = "function multiplier(out!::f64, x::f64, y::f64)\n    out! += x * y\nend\n";

#[test]
fn the_first_program_checks_clean_and_offers_its_example() {
    let mut p = Playground::new();
    let examples = ask(&mut p, json!({ "op": "examples" }));
    let first = examples[0]["text"].as_str().unwrap().to_string();
    let answer = check(&mut p, &first);
    assert_eq!(answer["diagnostics"], json!([]));
    assert_eq!(answer["functions"][0]["name"], "multiplier");
    assert_eq!(
        answer["functions"][0]["example"],
        "multiplier(0.0, 3.0, 5.0)"
    );
}

#[test]
fn every_example_checks_clean() {
    let mut p = Playground::new();
    for (name, text) in EXAMPLES {
        let answer = check(&mut p, text);
        let errors: Vec<&Value> = answer["diagnostics"]
            .as_array()
            .unwrap()
            .iter()
            .filter(|d| d["severity"] == "error")
            .collect();
        assert!(errors.is_empty(), "{name}: {errors:?}");
        assert!(
            !answer["functions"].as_array().unwrap().is_empty(),
            "{name}"
        );
    }
}

#[test]
fn a_diagnostic_has_its_code_and_place_in_utf16_units() {
    let mut p = Playground::new();
    // `←` is one UTF-16 unit and three bytes: the range is in units.
    let text = "function f(y!::f64)\n    t ← zero(f64)\n    y! += t\n    y! += q\nend\n";
    let answer = check(&mut p, text);
    let d = &answer["diagnostics"][0];
    assert_eq!(d["code"], "E0101", "{answer}");
    assert_eq!(d["severity"], "error");
    assert_eq!(d["line"], 4);
    assert_eq!(d["column"], 11);
    let from = text.find("q\n").unwrap() - 2; // two bytes more than units
    assert_eq!(d["from"], from);
    assert_eq!(d["to"], from + 1);
}

#[test]
fn the_check_answer_highlights_the_program() {
    let mut p = Playground::new();
    // `←` is one UTF-16 unit: the ranges are in units.
    let text = "# the product\nfunction multiplier(out!::f64, x::f64, y::f64)\n    t ← zero(f64)\n    out! += x * y\n    t → zero(f64)\nend\n";
    let answer = check(&mut p, text);
    let units: Vec<u16> = text.encode_utf16().collect();
    let tokens: Vec<(String, String)> = answer["tokens"]
        .as_array()
        .unwrap()
        .iter()
        .map(|t| {
            let (from, to) = (
                t["from"].as_u64().unwrap() as usize,
                t["to"].as_u64().unwrap() as usize,
            );
            (
                String::from_utf16(&units[from..to]).unwrap(),
                t["tag"].as_str().unwrap().to_string(),
            )
        })
        .collect();
    let tag = |s: &str| {
        tokens
            .iter()
            .filter(|(t, _)| t == s)
            .map(|(_, tag)| tag.as_str())
            .collect::<Vec<_>>()
    };
    assert_eq!(tag("# the product"), ["comment"]);
    assert_eq!(tag("function"), ["keyword.function"]);
    assert!(
        tag("f64").iter().all(|t| *t == "type.builtin"),
        "{tokens:?}"
    );
    // What the analysis knows: `out!` is changed, `x` only read, `t` an
    // ancilla (after the `←`, whose unit count the offsets account for).
    assert!(
        tag("out!")
            .iter()
            .all(|t| *t == "variable.parameter.mutated"),
        "{tokens:?}"
    );
    assert!(
        tag("x").iter().all(|t| *t == "variable.parameter"),
        "{tokens:?}"
    );
    assert_eq!(tag("t"), ["variable.ancilla"; 2], "{tokens:?}");
}

#[test]
fn hover_and_inverse_at_a_utf16_offset() {
    let mut p = Playground::new();
    check(&mut p, MULTIPLIER);
    let at = MULTIPLIER.find("x *").unwrap();
    let hover = ask(&mut p, json!({ "op": "hover", "offset": at }));
    assert!(
        hover["markdown"].as_str().unwrap().contains("f64"),
        "{hover}"
    );
    let inverse = ask(&mut p, json!({ "op": "inverse", "offset": at }));
    assert_eq!(inverse["function"], "multiplier");
    assert!(
        inverse["source"]
            .as_str()
            .unwrap()
            .contains("out! -= x * y"),
        "{inverse}"
    );
}

#[test]
fn the_generated_rust_or_why_not() {
    let mut p = Playground::new();
    check(&mut p, MULTIPLIER);
    let rust = ask(&mut p, json!({ "op": "rust" }));
    assert!(
        rust["code"].as_str().unwrap().contains("pub fn multiplier"),
        "{rust}"
    );
    check(&mut p, "function f(y!::f64)\n    y! += q\nend\n");
    let refused = ask(&mut p, json!({ "op": "rust" }));
    let e = refused["error"].as_str().unwrap();
    assert!(e.contains("2:11: error[E0101]"), "{e}");
}

#[test]
fn runs_forwards_backwards_and_through_the_gradient() {
    let mut p = Playground::new();
    check(&mut p, MULTIPLIER);
    let run = |p: &mut Playground, mode: &str, args: &str, seeds: &str| {
        ask(
            p,
            json!({ "op": "run", "function": "multiplier", "mode": mode, "args": args, "seeds": seeds }),
        )
    };
    let call = run(&mut p, "call", "1.0, 3.0, 5.0", "");
    assert_eq!(call["output"], "out! = 16.0\nx = 3.0\ny = 5.0", "{call}");
    let uncall = run(&mut p, "uncall", "16.0, 3.0, 5.0", "");
    assert_eq!(uncall["output"], "out! = 1.0\nx = 3.0\ny = 5.0");
    let inv = run(&mut p, "check_inv", "1.0, 3.0, 5.0", "");
    assert!(
        inv["output"]
            .as_str()
            .unwrap()
            .ends_with("check_inv: every argument came back"),
        "{inv}"
    );
    let grad = run(&mut p, "grad", "1.0, 3.0, 5.0", "out!");
    let text = grad["output"].as_str().unwrap();
    assert!(text.contains("gradient:"), "{grad}");
    // The arguments come back as they were given, with their adjoints.
    assert_eq!(
        text,
        "out! = 1.0\nx = 3.0\ny = 5.0\ngradient:\nout_bar = 1.0\nx_bar = 5.0\ny_bar = 3.0"
    );
    let unseeded = run(&mut p, "grad", "1.0, 3.0, 5.0", "");
    assert!(unseeded["error"].as_str().unwrap().contains("seed"));
}

#[test]
fn a_run_that_stops_names_the_line_and_values() {
    let mut p = Playground::new();
    // `t` is not zero when the function ends, where it is freed.
    let text = "function g(y!::f64, x::f64)\n    t ← zero(f64)\n    t += x\n    y! += t\nend\n";
    let answer = check(&mut p, text);
    assert_eq!(answer["diagnostics"], json!([]), "{answer}");
    let run = ask(
        &mut p,
        json!({ "op": "run", "function": "g", "mode": "call", "args": "0.0, 2.0" }),
    );
    let e = run["error"].as_str().unwrap();
    assert!(
        e.starts_with("playground.nil:5:1: deallocation check failed"),
        "{e}"
    );
    assert!(e.contains("(expected 0.0, found 2.0)"), "{e}");
}

#[test]
fn bad_requests_are_answered_with_an_error() {
    let mut p = Playground::new();
    let not_json = p.handle("{");
    assert!(not_json.contains("not JSON"), "{not_json}");
    let no_op = ask(&mut p, json!({ "op": "fly" }));
    assert_eq!(no_op["error"], "no request `fly`");
    check(&mut p, MULTIPLIER);
    let missing = ask(
        &mut p,
        json!({ "op": "run", "function": "nope", "args": "" }),
    );
    assert_eq!(missing["error"], "no function `nope` in the program");
    let arity = ask(
        &mut p,
        json!({ "op": "run", "function": "multiplier", "args": "1.0" }),
    );
    assert!(
        arity["error"]
            .as_str()
            .unwrap()
            .contains("takes 3 arguments"),
        "{arity}"
    );
    let bad = ask(
        &mut p,
        json!({ "op": "run", "function": "multiplier", "args": "1.0, [" }),
    );
    assert!(
        bad["error"].as_str().unwrap().starts_with("the arguments:"),
        "{bad}"
    );
    check(&mut p, "function f(y!::f64)\n    y! += q\nend\n");
    let broken = ask(
        &mut p,
        json!({ "op": "run", "function": "f", "args": "1.0" }),
    );
    assert!(broken["error"].as_str().unwrap().contains("has errors"));
}

//! The playground's engine: one salsa database holding the program being
//! edited (with the standard library), answering the page's requests.
//!
//! The page talks to it in JSON, one request at a time
//! ([`Playground::handle`]): the same code answers natively (the tests of
//! `tests/requests.rs`) and inside the browser, where `wasm.rs` exports it
//! as three C functions. Everything here is what the editor and `nilc run`
//! already do: diagnostics, hover and the inverse preview from `nilang-ide`,
//! the generated Rust from the Rust backend, and runs from the reference
//! interpreter (`nilang-interp`); the playground adds only the plumbing.
//!
//! Offsets cross the boundary in UTF-16 code units, the unit of a browser's
//! strings, and are turned into byte offsets here ([`Text`]).

use nilang_ide::{Db, Project, RootDatabase, Severity, SourceFile};
use nilang_interp::{Direction, Interpreter, Value, literal};
use salsa::Setter as _;
use serde_json::{Value as Json, json};

#[cfg(target_family = "wasm")]
mod wasm;

/// The programs offered to start from: the paper's examples, as the
/// repository runs them.
pub const EXAMPLES: &[(&str, &str)] = &[
    ("multiplier", MULTIPLIER),
    // Bessel's approximate multiplication `imul` is in arithmetic.nil.
    (
        "bessel",
        concat!(
            include_str!("../../examples/bessel.nil"),
            "\n",
            include_str!("../../examples/arithmetic.nil")
        ),
    ),
    ("fib", include_str!("../../examples/fib.nil")),
    ("complex", include_str!("../../examples/complex.nil")),
    ("boxmuller", include_str!("../../examples/boxmuller.nil")),
    ("leapfrog", include_str!("../../examples/leapfrog.nil")),
    ("bennett", include_str!("../../examples/bennett.nil")),
    ("tape", include_str!("../../examples/tape.nil")),
];

/// The program the page opens with.
const MULTIPLIER: &str = r#""""
Accumulate `x * y` into `out!`: the paper's first example.

```jldoctest
julia> multiplier(0.0, 3.0, 5.0)
(15.0, 3.0, 5.0)
```
"""
function multiplier(out!::f64, x::f64, y::f64)
    @routine begin
        t ← zero(f64)
        t += x * y
    end
    out! += t
    ~@routine
end
"#;

/// The file the page edits, in a project with the standard library.
pub struct Playground {
    db: RootDatabase,
    file: SourceFile,
    project: Project,
}

impl Default for Playground {
    fn default() -> Self {
        Playground::new()
    }
}

impl Playground {
    pub fn new() -> Playground {
        let db = RootDatabase::default();
        let file = SourceFile::new(&db, "playground.nil".into(), MULTIPLIER.to_string());
        let project = nilang_ide::project_with_std(&db, vec![file], Vec::new());
        Playground { db, file, project }
    }

    /// Answers one request, a JSON object with an `op`; the answer is a
    /// JSON object too, with `error` set when the request could not be
    /// answered (a malformed request, an unknown function, a run that
    /// stopped at a check).
    pub fn handle(&mut self, request: &str) -> String {
        let answer = match serde_json::from_str::<Json>(request) {
            Ok(request) => self.answer(&request),
            Err(e) => Err(format!("the request is not JSON: {e}")),
        };
        match answer {
            Ok(v) => v.to_string(),
            Err(e) => json!({ "error": e }).to_string(),
        }
    }

    fn answer(&mut self, request: &Json) -> Result<Json, String> {
        let op = request["op"].as_str().ok_or("the request has no `op`")?;
        match op {
            "examples" => Ok(json!(
                EXAMPLES
                    .iter()
                    .map(|(name, text)| json!({ "name": name, "text": text }))
                    .collect::<Vec<_>>()
            )),
            "check" => {
                let text = request["text"].as_str().ok_or("`check` needs a `text`")?;
                self.file.set_text(&mut self.db).to(text.to_string());
                Ok(self.check())
            }
            "hover" => Ok(self.hover(offset(request)?)),
            "inverse" => Ok(self.inverse(offset(request)?)),
            "rust" => Ok(self.rust()),
            "run" => Ok(self.run(request)),
            other => Err(format!("no request `{other}`")),
        }
    }

    fn text(&self) -> Text<'_> {
        Text(self.file.text(&self.db))
    }

    /// The diagnostics of the file, its functions with the first docstring
    /// example of each (what Run offers), and its highlighting.
    fn check(&self) -> Json {
        let text = self.text();
        let diagnostics: Vec<Json> =
            nilang_ide::file_diagnostics(&self.db, self.project, self.file)
                .iter()
                .map(|d| {
                    let span = d.primary.span;
                    let (line, column) = text.line_column(span.start);
                    json!({
                        "code": d.code,
                        "severity": d.severity.as_str(),
                        "message": d.message,
                        "help": d.help,
                        "from": text.utf16(span.start),
                        "to": text.utf16(span.end),
                        "line": line,
                        "column": column,
                    })
                })
                .collect();
        let db: &dyn Db = &self.db;
        let functions: Vec<Json> = nilang_analysis::db::file_functions(db, self.project, self.file)
            .iter()
            .filter_map(|&f| {
                let ast = nilang_analysis::db::function_ast(db, f)?;
                let example = ast
                    .doc
                    .as_deref()
                    .and_then(|doc| nilang_interp::doctest::examples(doc).into_iter().next())
                    .map(|e| e.call);
                Some(json!({
                    "name": ast.name.name,
                    "params": ast.params.iter().map(|p| p.name.name.clone()).collect::<Vec<_>>(),
                    "example": example,
                }))
            })
            .collect();
        // Highlighting: lexical classes refined by what the analysis knows.
        let tokens: Vec<Json> = nilang_ide::highlight_tokens(&self.db, self.project, self.file)
            .into_iter()
            .map(|(span, tag)| {
                json!({ "from": text.utf16(span.start), "to": text.utf16(span.end), "tag": tag })
            })
            .collect();
        json!({ "diagnostics": diagnostics, "functions": functions, "tokens": tokens })
    }

    fn hover(&self, at: usize) -> Json {
        let text = self.text();
        let byte = text.byte(at);
        match nilang_ide::hover(&self.db, self.project, self.file, byte) {
            Some(h) => json!({
                "markdown": h.markdown,
                "from": text.utf16(h.range.start),
                "to": text.utf16(h.range.end),
            }),
            None => json!({ "markdown": null }),
        }
    }

    /// The inverse of the function around the cursor.
    fn inverse(&self, at: usize) -> Json {
        let byte = self.text().byte(at);
        let target = nilang_ide::InverseTarget::At(byte);
        match nilang_ide::inverse_preview(&self.db, self.project, self.file, target) {
            Ok(p) => json!({ "function": p.function, "source": p.source }),
            Err(refusal) => json!({ "error": refusal.message() }),
        }
    }

    /// The Rust module the build plugin would write for the file.
    fn rust(&self) -> Json {
        let text = self.text();
        match nilang_ide::generated_rust(&self.db, self.project, self.file) {
            Ok(code) => json!({ "code": code }),
            Err(refusal) => json!({
                "error": refusal.message(|byte| {
                    let (line, column) = text.line_column(byte);
                    (line as u32 - 1, column as u32 - 1)
                })
            }),
        }
    }

    /// Runs a function of the file in the reference interpreter, as
    /// `nilc run` does: `mode` is `call`, `uncall`, `grad` (the adjoints
    /// of every argument, seeded by `seeds`, `y` or `y=2.0` separated by
    /// commas) or `check_inv` (forwards, then backwards to the arguments).
    fn run(&self, request: &Json) -> Json {
        let output = |lines: Vec<String>, printed: &str| json!({ "output": format!("{printed}{}", lines.join("\n")) });
        let stopped = |printed: &str, e: String| json!({ "output": printed, "error": e });
        let function = request["function"].as_str().unwrap_or_default();
        let mode = request["mode"].as_str().unwrap_or("call");
        let args = request["args"].as_str().unwrap_or_default();
        if self.has_errors() {
            return json!({ "error": "the program has errors; fix them before running it" });
        }
        let mut interpreter = Interpreter::new(&self.db, self.project);
        let Some(f) = interpreter.function(function) else {
            return json!({ "error": format!("no function `{function}` in the program") });
        };
        let params = interpreter.params(f);
        let values = match arguments(args) {
            Ok(v) => v,
            Err(e) => return json!({ "error": format!("the arguments: {e}") }),
        };
        if values.len() != params.len() {
            return json!({ "error": format!(
                "`{function}` takes {} arguments ({}); {} given",
                params.len(),
                params.iter().map(|(n, _)| n.as_str()).collect::<Vec<_>>().join(", "),
                values.len()
            )});
        }
        let mut inputs = Vec::with_capacity(values.len());
        for ((name, ty), v) in params.iter().zip(values) {
            match nilang_interp::coerce(v, ty) {
                Ok(v) => inputs.push(v),
                Err(e) => {
                    return json!({ "error": format!("argument `{name}` of `{function}`: {e}") });
                }
            }
        }
        let show = |values: &[Value]| -> Vec<String> {
            params
                .iter()
                .zip(values)
                .map(|((n, _), v)| format!("{n} = {v}"))
                .collect()
        };
        match mode {
            "call" | "uncall" | "check_inv" => {
                let direction = match mode {
                    "uncall" => Direction::Backward,
                    _ => Direction::Forward,
                };
                let out = match interpreter.call(function, inputs.clone(), direction) {
                    Ok(out) => out,
                    Err(e) => return stopped(&interpreter.output, error_text(e)),
                };
                let mut lines = show(&out);
                if mode == "check_inv" {
                    let back = match interpreter.call(function, out, Direction::Backward) {
                        Ok(back) => back,
                        Err(e) => {
                            let e = format!("the inverse stopped: {}", error_text(e));
                            return stopped(&interpreter.output, e);
                        }
                    };
                    let differs: Vec<String> = params
                        .iter()
                        .zip(inputs.iter().zip(&back))
                        .filter(|(_, (a, b))| !nilang_interp::same(a, b, interpreter.atol))
                        .map(|((n, _), (a, b))| format!("`{n}`: given {a}, came back {b}"))
                        .collect();
                    if !differs.is_empty() {
                        let e = format!("check_inv: {}", differs.join("; "));
                        return json!({ "output": output(lines, &interpreter.output)["output"], "error": e });
                    }
                    lines.push("check_inv: every argument came back".into());
                }
                output(lines, &interpreter.output)
            }
            "grad" => {
                let seeds = match seeds(request["seeds"].as_str().unwrap_or_default()) {
                    Ok(s) if !s.is_empty() => s,
                    Ok(_) => {
                        return json!({ "error": "name the results to seed, as `out!` or `out!=1.0`" });
                    }
                    Err(e) => return json!({ "error": e }),
                };
                let (out, grads) = match interpreter.gradient(function, inputs, &seeds) {
                    Ok(r) => r,
                    Err(e) => {
                        let e = format!("the gradient stopped: {}", error_text(e));
                        return stopped(&interpreter.output, e);
                    }
                };
                let mut lines = show(&out);
                lines.push("gradient:".into());
                lines.extend(
                    params
                        .iter()
                        .zip(&grads)
                        .filter(|(_, g)| g.has_adjoint())
                        .map(|((n, _), g)| {
                            format!("{} = {g}", nilang_analysis::names::bar_name(n))
                        }),
                );
                output(lines, &interpreter.output)
            }
            other => json!({ "error": format!("no run mode `{other}`") }),
        }
    }

    fn has_errors(&self) -> bool {
        nilang_ide::file_diagnostics(&self.db, self.project, self.file)
            .iter()
            .any(|d| d.severity == Severity::Error)
    }
}

/// The `offset` of a request (UTF-16 code units).
fn offset(request: &Json) -> Result<usize, String> {
    request["offset"]
        .as_u64()
        .map(|o| o as usize)
        .ok_or_else(|| "the request needs an `offset`".to_string())
}

/// Arguments written as in a call: `0.0, [1, 2], Complex(1, 2)`.
fn arguments(text: &str) -> Result<Vec<Value>, String> {
    if text.trim().is_empty() {
        return Ok(Vec::new());
    }
    match literal::parse(&format!("({text},)"))? {
        Value::Tuple(items) => Ok((*items).clone()),
        v => Ok(vec![v]),
    }
}

/// Seeds written `y` (seeded 1) or `y=2.0`, separated by commas outside
/// brackets.
fn seeds(text: &str) -> Result<Vec<(String, Value)>, String> {
    let mut out = Vec::new();
    let mut depth = 0i32;
    let mut start = 0;
    let mut parts = Vec::new();
    for (i, c) in text.char_indices() {
        match c {
            '[' | '(' => depth += 1,
            ']' | ')' => depth -= 1,
            ',' if depth == 0 => {
                parts.push(&text[start..i]);
                start = i + 1;
            }
            _ => {}
        }
    }
    parts.push(&text[start..]);
    for part in parts.into_iter().map(str::trim).filter(|p| !p.is_empty()) {
        out.push(match part.split_once('=') {
            Some((name, v)) => (
                name.trim().to_string(),
                literal::parse(v).map_err(|e| format!("the seed of `{}`: {e}", name.trim()))?,
            ),
            None => (part.to_string(), Value::F64(1.0)),
        });
    }
    Ok(out)
}

fn error_text(e: nilang_interp::Error) -> String {
    match e {
        nilang_interp::Error::Usage(m) => m,
        nilang_interp::Error::Run(e) => e.to_string(),
    }
}

/// The file's text, with conversions between byte offsets and the page's
/// UTF-16 offsets and lines.
struct Text<'a>(&'a str);

impl Text<'_> {
    /// The UTF-16 offset of a byte offset.
    fn utf16(&self, byte: u32) -> usize {
        let byte = (byte as usize).min(self.0.len());
        let byte = (0..=byte)
            .rev()
            .find(|&b| self.0.is_char_boundary(b))
            .unwrap_or(0);
        self.0[..byte].encode_utf16().count()
    }

    /// The byte offset of a UTF-16 offset (the end of the text past it).
    fn byte(&self, utf16: usize) -> u32 {
        let mut units = 0;
        for (i, c) in self.0.char_indices() {
            if units >= utf16 {
                return i as u32;
            }
            units += c.len_utf16();
        }
        self.0.len() as u32
    }

    /// The 1-based line and column (in characters) of a byte offset.
    fn line_column(&self, byte: u32) -> (usize, usize) {
        let byte = (byte as usize).min(self.0.len());
        let before = self.0.get(..byte).unwrap_or(self.0);
        let line = before.matches('\n').count() + 1;
        let start = before.rfind('\n').map_or(0, |i| i + 1);
        (line, before[start..].chars().count() + 1)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn offsets_cross_in_utf16_units() {
        // `←` is 3 bytes and one UTF-16 unit; `𝑥` is 4 bytes and two.
        let t = Text("a ← 𝑥\nb");
        assert_eq!(t.utf16(2), 2);
        assert_eq!(t.utf16(5), 3);
        assert_eq!(t.utf16(6), 4);
        assert_eq!(t.utf16(10), 6);
        assert_eq!(t.byte(2), 2);
        assert_eq!(t.byte(3), 5);
        assert_eq!(t.byte(4), 6);
        assert_eq!(t.byte(7), 11);
        assert_eq!(t.line_column(11), (2, 1));
        assert_eq!(t.line_column(6), (1, 5));
    }

    #[test]
    fn seeds_are_named_with_an_optional_value() {
        let s = seeds("out!, y = [1.0, 2.0]").unwrap();
        assert_eq!(s.len(), 2);
        assert_eq!(s[0].0, "out!");
        assert_eq!(s[1].0, "y");
        assert!(seeds("y = [").is_err());
    }
}

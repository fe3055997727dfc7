//! Docs as tests (in the manner of Rust's doctests and ty's mdtest): every
//! `.nil` code block of the repository's Markdown (README.md, docs/*.md,
//! build-plugin/README.md, the crates' READMEs) is checked as `nilc check`
//! checks a file, and every Rust block that shows generated code names only
//! what the generated code of its `.nil` files defines.
//!
//! A `.nil` block is a fenced block whose language is `julia` (what the docs
//! use, for GitHub's highlighting), `nil` or `nilang`, or an unlabelled
//! block that reads as `.nil` (a `function` or `struct` line and an `end`
//! line). It must check clean, unless its info string says otherwise
//! after the language, in words GitHub ignores:
//!
//! - `fails=E0201` (or `fails=E0201,E0623`): the block's errors have
//!   exactly these codes, each at least once;
//! - `warns=W0203`: the same for its warnings (otherwise it has none);
//! - `ignore (reason)`: a fragment (or NiLang.jl code), not checked; the
//!   reason is required, and a block marked `ignore` that checks clean
//!   fails the test, so the mark is removed once the block is whole;
//! - `project=name`: the blocks of one page with this name are files of one
//!   project (a struct in one block, the functions using it in the next).
//!
//! Otherwise each block is a file of its own, checked with the standard
//! library and with a stand-in for `mylib`, the dependency crate the docs'
//! module examples import.
//!
//! A Rust block whose info string has `generated=examples/bessel.nil,...`
//! shows the generated API of those files (compiled with their folders, as
//! `nilc emit` does): every `stem::name` it writes, and every name it
//! imports from a module `stem`, must be a public item of the Rust
//! generated for `stem.nil`, a call must pass as many arguments as the
//! generated function takes, and a `pub struct`, `#[derive]` or `impl` line
//! must be generated as written. The blocks are not compiled.
//!
//! A shell block of README.md, docs/*.md or build-plugin/README.md is run by
//! `.ci/run` (a line of it has every word of each command, `--release`
//! aside), or says why not in a comment just above it.

use std::collections::{BTreeMap, BTreeSet};
use std::path::{Path, PathBuf};

use nilang_compiler::db::{self, LibraryModule, RootDatabase, SourceFile};
use nilang_compiler::render::{line_col, render_human};
use nilang_compiler::{Diagnostic, Severity};

fn repository() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("..")
        .canonicalize()
        .unwrap()
}

/// The Markdown files of the repository, relative to its root, sorted:
/// hidden folders, `target/` and `node_modules/` skipped.
fn pages() -> Vec<String> {
    fn walk(root: &Path, dir: &Path, out: &mut Vec<String>) {
        for entry in std::fs::read_dir(dir).unwrap() {
            let path = entry.unwrap().path();
            let name = path.file_name().unwrap().to_string_lossy().into_owned();
            if path.is_dir() {
                if !name.starts_with('.') && name != "target" && name != "node_modules" {
                    walk(root, &path, out);
                }
            } else if name.ends_with(".md") {
                let relative = path.strip_prefix(root).unwrap();
                out.push(relative.to_string_lossy().replace('\\', "/"));
            }
        }
    }
    let root = repository();
    let mut out = Vec::new();
    walk(&root, &root, &mut out);
    out.sort();
    out
}

/// A fenced code block of a Markdown page.
#[derive(Debug)]
struct Block {
    /// The page, relative to the repository.
    page: String,
    /// The line of the opening fence (1-based).
    line: usize,
    /// The first word of the info string (`julia`, `rust`, or empty).
    language: String,
    /// The rest of the info string.
    annotations: String,
    /// The lines between the fences, without the fence's indentation.
    text: String,
    /// The last line before the fence that is not blank, trimmed.
    before: String,
}

impl Block {
    fn at(&self) -> String {
        format!("{}:{}", self.page, self.line)
    }
}

/// The fenced blocks (``` or ~~~, indented or not) of `page`'s text.
fn blocks(page: &str, text: &str) -> Vec<Block> {
    let mut out = Vec::new();
    let mut open: Option<(Block, usize, char, usize)> = None;
    let mut before = "";
    for (i, line) in text.lines().enumerate() {
        if open.is_none() && line.trim().is_empty() {
            continue;
        }
        let indent = line.len() - line.trim_start().len();
        let rest = line.trim_start();
        let fence_char = rest.chars().next().filter(|c| *c == '`' || *c == '~');
        let fence_len = fence_char.map_or(0, |c| rest.chars().take_while(|x| *x == c).count());
        match &mut open {
            None if fence_len >= 3 => {
                let info = rest[fence_len..].trim();
                // CommonMark: such a line is no fence, and GitHub shows
                // the block as text.
                assert!(
                    fence_char != Some('`') || !info.contains('`'),
                    "{page}:{}: the info string of a ``` fence may not contain a backtick",
                    i + 1
                );
                let (language, annotations) = info.split_once(' ').unwrap_or((info, ""));
                let block = Block {
                    page: page.to_string(),
                    line: i + 1,
                    language: language.to_string(),
                    annotations: annotations.trim().to_string(),
                    text: String::new(),
                    before: before.to_string(),
                };
                open = Some((block, indent, fence_char.unwrap(), fence_len));
            }
            None => before = line.trim(),
            Some((_, _, c, n))
                if fence_char == Some(*c)
                    && fence_len >= *n
                    && rest[fence_len..].trim().is_empty() =>
            {
                out.push(open.take().unwrap().0);
                before = "";
            }
            Some((block, indent, _, _)) => {
                let strip = line.len() - line.trim_start().len();
                block.text.push_str(&line[strip.min(*indent)..]);
                block.text.push('\n');
            }
        }
    }
    if let Some((block, ..)) = open {
        panic!("{}: the code block is not closed", block.at());
    }
    out
}

/// Whether an unlabelled block reads as `.nil` code.
fn reads_as_nil(text: &str) -> bool {
    let lines: Vec<&str> = text.lines().map(str::trim).collect();
    let header = lines.iter().any(|l| {
        l.starts_with("function ")
            || l.starts_with("struct ")
            || (l.starts_with('@') && l.contains(" function "))
    });
    header && lines.contains(&"end")
}

fn is_nil(block: &Block) -> bool {
    match block.language.as_str() {
        "julia" | "nil" | "nilang" => true,
        "" => reads_as_nil(&block.text),
        _ => false,
    }
}

/// What a `.nil` block's info string asks.
#[derive(Debug, Default)]
struct Expect {
    ignore: Option<String>,
    errors: BTreeSet<String>,
    warnings: BTreeSet<String>,
    /// The blocks of a page with one `project=` name are checked together,
    /// each a file of one project (a struct in one, functions in another).
    project: Option<String>,
}

fn expectations(block: &Block) -> Result<Expect, String> {
    let mut expect = Expect::default();
    let info = block.annotations.as_str();
    if info == "ignore" || info.starts_with("ignore ") {
        let reason = info["ignore".len()..].trim();
        if reason.is_empty() {
            return Err("`ignore` needs a reason after it: ```julia ignore (why)".into());
        }
        expect.ignore = Some(reason.to_string());
        return Ok(expect);
    }
    for word in info.split_whitespace() {
        let (key, codes) = word
            .split_once('=')
            .ok_or_else(|| format!("unknown annotation `{word}`"))?;
        let set = match key {
            "fails" => &mut expect.errors,
            "warns" => &mut expect.warnings,
            "project" => {
                expect.project = Some(codes.to_string());
                continue;
            }
            _ => return Err(format!("unknown annotation `{word}`")),
        };
        for code in codes.split(',') {
            if !nilang_compiler::diagnostics::CODES
                .iter()
                .any(|c| c.0 == code)
            {
                return Err(format!("`{code}` is not a diagnostic code"));
            }
            set.insert(code.to_string());
        }
    }
    Ok(expect)
}

/// `mylib`, the dependency crate of the docs' module examples
/// (`using mylib.shapes`), stood in by one module.
fn mylib(db: &RootDatabase) -> Vec<LibraryModule> {
    let text = "\
\"\"\"`out += w h`: a stand-in for the docs' `mylib.shapes`.\"\"\"
function rectangle_area!(out::f64, w::f64, h::f64)
    out += w * h
end
";
    let file = SourceFile::new(db, "mylib/shapes.nil".to_string(), text.to_string());
    vec![LibraryModule {
        file,
        package: "mylib".to_string(),
        path: "mylib.shapes".to_string(),
        rust_path: "::mylib::shapes".to_string(),
    }]
}

/// The file name a block is checked under.
fn file_name(block: &Block) -> String {
    format!("block_{}.nil", block.line)
}

/// The diagnostics of each of `group` (the blocks of one project, usually
/// one block), each a file of one project, as `nilc check` reports them.
fn check(db: &RootDatabase, group: &[&Block]) -> Vec<Vec<Diagnostic>> {
    let files: Vec<SourceFile> = group
        .iter()
        .map(|b| SourceFile::new(db, file_name(b), b.text.clone()))
        .collect();
    let project = db::project_with_std(db, files.clone(), mylib(db));
    files
        .iter()
        .map(|&f| db::file_diagnostics(db, project, f).to_vec())
        .collect()
}

fn codes(diagnostics: &[Diagnostic], severity: Severity) -> BTreeSet<String> {
    diagnostics
        .iter()
        .filter(|d| d.severity == severity)
        .map(|d| d.code.to_string())
        .collect()
}

/// Why `block`, with `diagnostics`, is wrong, if it is: the page's lines of
/// the diagnostics, then the diagnostics rendered.
fn judge(block: &Block, expect: &Expect, diagnostics: &[Diagnostic]) -> Option<String> {
    if let Some(reason) = &expect.ignore {
        return diagnostics
            .is_empty()
            .then(|| format!("marked `ignore` {reason} but checks clean: remove the mark"));
    }
    let errors = codes(diagnostics, Severity::Error);
    let warnings = codes(diagnostics, Severity::Warning);
    if errors == expect.errors && warnings == expect.warnings {
        return None;
    }
    let wanted = if expect.errors.is_empty() && expect.warnings.is_empty() {
        "to check clean".to_string()
    } else {
        format!(
            "errors {:?} and warnings {:?}",
            expect.errors, expect.warnings
        )
    };
    let mut got = String::new();
    for d in diagnostics {
        let (line, col) = line_col(&block.text, d.primary.span.start);
        got.push_str(&format!(
            "  {}:{}:{col}: {}[{}]: {}\n",
            block.page,
            block.line + line,
            d.severity.as_str(),
            d.code,
            d.message
        ));
    }
    got.push_str(&render_human(
        &file_name(block),
        &block.text,
        diagnostics,
        false,
    ));
    Some(format!("expected {wanted}, got:\n{got}"))
}

fn all_blocks() -> Vec<Block> {
    let root = repository();
    pages()
        .into_iter()
        .flat_map(|page| {
            let text = std::fs::read_to_string(root.join(&page)).unwrap();
            blocks(&page, &text)
        })
        .collect()
}

/// What is wrong with the `.nil` blocks among `blocks`, one entry per
/// wrong block, and how many there are of each kind.
fn nil_failures(blocks: &[Block]) -> (Vec<String>, BTreeMap<&'static str, usize>) {
    let db = RootDatabase::default();
    let mut failures = Vec::new();
    let mut counts = BTreeMap::new();
    // The checks: a block alone, or the blocks of one `project=` together.
    let mut groups: Vec<Vec<(&Block, Expect)>> = Vec::new();
    let mut named: BTreeMap<(String, String), usize> = BTreeMap::new();
    for block in blocks.iter().filter(|b| is_nil(b)) {
        let expect = match expectations(block) {
            Ok(e) => e,
            Err(why) => {
                failures.push(format!("{}: {why}", block.at()));
                continue;
            }
        };
        let kind = if expect.ignore.is_some() {
            "ignored"
        } else if expect.errors.is_empty() && expect.warnings.is_empty() {
            "clean"
        } else {
            "expected to fail"
        };
        *counts.entry(kind).or_default() += 1;
        match expect.project.clone() {
            Some(name) => {
                let key = (block.page.clone(), name);
                let at = *named.entry(key).or_insert_with(|| {
                    groups.push(Vec::new());
                    groups.len() - 1
                });
                groups[at].push((block, expect));
            }
            None => groups.push(vec![(block, expect)]),
        }
    }
    for group in &groups {
        let blocks: Vec<&Block> = group.iter().map(|(b, _)| *b).collect();
        for ((block, expect), diagnostics) in group.iter().zip(check(&db, &blocks)) {
            if let Some(why) = judge(block, expect, &diagnostics) {
                failures.push(format!(
                    "{} (```{} {}): {why}",
                    block.at(),
                    block.language,
                    block.annotations
                ));
            }
        }
    }
    (failures, counts)
}

#[test]
fn every_nil_block_of_the_docs_checks_as_annotated() {
    let blocks = all_blocks();
    let (failures, counts) = nil_failures(&blocks);
    let total: usize = counts.values().sum();
    eprintln!("{total} .nil blocks: {counts:?}");
    assert!(
        total >= 20,
        "the docs have {total} .nil blocks: are they found?"
    );
    assert!(
        failures.is_empty(),
        "{} .nil blocks of the docs are wrong:\n\n{}",
        failures.len(),
        failures.join("\n\n")
    );
}

/// The public items of the Rust generated for a `.nil` file: each
/// function's number of parameters, and the structs (`None`).
type Items = BTreeMap<String, Option<usize>>;

/// The Rust generated for `relative` (a `.nil` file of the repository)
/// with the default options, its folder's other `.nil` files in its
/// project, as `nilc emit` compiles it.
fn generated(relative: &str) -> Result<String, String> {
    let root = repository();
    let path = root.join(relative);
    let folder = path.parent().unwrap();
    let mut paths: Vec<PathBuf> = std::fs::read_dir(folder)
        .map_err(|e| format!("cannot read {}: {e}", folder.display()))?
        .map(|e| e.unwrap().path())
        .filter(|p| p.extension().is_some_and(|e| e == "nil") && *p != path)
        .collect();
    paths.sort();
    paths.insert(0, path.clone());
    let db = RootDatabase::default();
    let mut files = Vec::new();
    for p in &paths {
        let text =
            std::fs::read_to_string(p).map_err(|e| format!("cannot read {}: {e}", p.display()))?;
        let shown = p.strip_prefix(&root).unwrap().display().to_string();
        files.push(SourceFile::new(&db, shown, text));
    }
    let project = nilang_compiler::project::load(&db, files.clone(), Some(&path));
    let options = nilang_compiler::codegen::Options::default();
    db::rust_module_text(&db, project, files[0], &options).map_err(|errors| {
        let codes: Vec<&str> = errors.iter().map(|d| d.code).collect();
        format!("no Rust generated for {relative}: {codes:?}")
    })
}

/// The text from `open` (an opening bracket at `text[at]`) to its closing
/// bracket, without either; `angles` counts `<` `>` as brackets too.
fn bracketed(text: &str, at: usize, angles: bool) -> &str {
    let mut depth = 0i32;
    for (i, c) in text[at..].char_indices() {
        match c {
            '(' | '[' | '{' => depth += 1,
            '<' if angles => depth += 1,
            ')' | ']' | '}' => depth -= 1,
            '>' if angles && !text[..at + i].ends_with('-') => depth -= 1,
            _ => {}
        }
        if depth == 0 {
            return &text[at + 1..at + i];
        }
    }
    &text[at + 1..]
}

/// The pieces of a bracket's contents between its top-level commas (empty
/// ones, after a trailing comma, left out).
fn top_level(list: &str, angles: bool) -> Vec<&str> {
    let mut out = Vec::new();
    let (mut depth, mut start) = (0i32, 0);
    for (i, c) in list.char_indices() {
        match c {
            '(' | '[' | '{' => depth += 1,
            '<' if angles => depth += 1,
            ')' | ']' | '}' => depth -= 1,
            '>' if angles && !list[..i].ends_with('-') => depth -= 1,
            ',' if depth == 0 => {
                out.push(list[start..i].trim());
                start = i + 1;
            }
            _ => {}
        }
    }
    out.push(list[start..].trim());
    out.retain(|p| !p.is_empty());
    out
}

fn is_ident(c: char) -> bool {
    c.is_alphanumeric() || c == '_'
}

/// The word of identifier characters that starts at `text[at..]`.
fn word_at(text: &str, at: usize) -> &str {
    let rest = &text[at..];
    &rest[..rest.find(|c: char| !is_ident(c)).unwrap_or(rest.len())]
}

fn items(code: &str) -> Items {
    let mut out = Items::new();
    for (at, _) in code.match_indices("pub fn ") {
        let name = word_at(code, at + "pub fn ".len());
        let mut rest = at + "pub fn ".len() + name.len();
        if code[rest..].starts_with('<') {
            rest += bracketed(code, rest, true).len() + 2;
        }
        let params = top_level(bracketed(code, rest, true), true).len();
        out.insert(name.to_string(), Some(params));
    }
    for (at, _) in code.match_indices("pub struct ") {
        out.insert(word_at(code, at + "pub struct ".len()).to_string(), None);
    }
    out
}

/// `text` with runs of white space as one space, and the runtime as
/// generated code names it (`nilang::`).
fn normalized(text: &str) -> String {
    text.split_whitespace()
        .collect::<Vec<_>>()
        .join(" ")
        .replace("nilang_runtime::", "nilang::")
        .replace("< ", "<")
        .replace(" >", ">")
}

/// What is wrong with a Rust block that shows the generated API of
/// `modules` (module name: its items and its generated text).
fn rust_block_failures(block: &Block, modules: &BTreeMap<String, (Items, String)>) -> Vec<String> {
    let text = &block.text;
    let mut failures = Vec::new();
    let line_of = |at: usize| block.line + text[..at].matches('\n').count() + 1;
    // How many generated items the block names.
    let mut named = 0;
    // Aliases: `use path::stem::{self as s, Name}`.
    let mut aliases: BTreeMap<String, String> =
        modules.keys().map(|m| (m.clone(), m.clone())).collect();
    for (at, _) in text.match_indices("use ") {
        if at > 0 && is_ident(text[..at].chars().last().unwrap()) {
            continue;
        }
        let statement = &text[at + 4..at + text[at..].find(';').unwrap_or(text.len() - at)];
        for module in modules.keys() {
            let pattern = format!("{module}::{{");
            if let Some(open) = statement.find(&pattern) {
                let list = bracketed(statement, open + module.len() + 2, false);
                for piece in top_level(list, false) {
                    let mut words = piece.split_whitespace();
                    let name = words.next().unwrap();
                    let alias = words.nth(1);
                    if name == "self" {
                        aliases.insert(alias.unwrap_or(module).to_string(), module.clone());
                        continue;
                    }
                    named += 1;
                    if !modules[module].0.contains_key(name) {
                        failures.push(format!(
                            "{}:{}: imports `{name}`, which the Rust generated for `{module}` lacks",
                            block.page,
                            line_of(at)
                        ));
                    }
                }
            }
        }
    }
    // Paths `stem::name`, and the number of arguments of calls.
    for (alias, module) in &aliases {
        let (items, _) = &modules[module];
        for (at, _) in text.match_indices(&format!("{alias}::")) {
            if at > 0 && is_ident(text[..at].chars().last().unwrap())
                || text[at..].starts_with(&format!("{alias}::{{"))
            {
                continue;
            }
            let after = at + alias.len() + 2;
            let name = word_at(text, after);
            named += 1;
            let Some(kind) = items.get(name) else {
                failures.push(format!(
                    "{}:{}: `{alias}::{name}` is not in the Rust generated for `{module}`",
                    block.page,
                    line_of(at)
                ));
                continue;
            };
            let open = after + name.len();
            if let (Some(params), true) = (kind, text[open..].starts_with('(')) {
                let arguments = top_level(bracketed(text, open, false), false).len();
                if arguments != *params {
                    failures.push(format!(
                        "{}:{}: `{alias}::{name}` is called with {arguments} arguments; the generated function takes {params}",
                        block.page,
                        line_of(at)
                    ));
                }
            }
        }
    }
    // Structs and their impls, as the block writes them.
    for (at, _) in text.match_indices("pub struct ") {
        named += 1;
        let declaration = &text[at..at + text[at..].find('}').map_or(text.len() - at, |i| i + 1)];
        let shown = normalized(declaration)
            .replace("{ ", "{")
            .replace(" }", "}");
        let found = modules.values().any(|(_, code)| {
            normalized(code)
                .replace(",}", "}")
                .replace(", }", "}")
                .replace("{ ", "{")
                .replace(" }", "}")
                .contains(&shown)
        });
        if !found {
            failures.push(format!(
                "{}:{}: `{shown}` is not generated as written",
                block.page,
                line_of(at)
            ));
        }
    }
    for (i, line) in text.lines().map(str::trim).enumerate() {
        let shown = if line.starts_with("#[derive(") {
            line.to_string()
        } else if line.starts_with("impl") {
            line[..line
                .find(" where")
                .or(line.find(" {"))
                .unwrap_or(line.len())]
                .to_string()
        } else {
            continue;
        };
        let shown = normalized(&shown);
        if !modules
            .values()
            .any(|(_, code)| normalized(code).contains(&shown))
        {
            failures.push(format!(
                "{}:{}: `{shown}` is not generated as written",
                block.page,
                block.line + i + 1
            ));
        }
    }
    if named == 0 {
        failures.push(format!(
            "{}: names nothing generated for {:?}",
            block.at(),
            modules.keys().collect::<Vec<_>>()
        ));
    }
    failures
}

/// The `.nil` files a Rust block's `generated=` annotation names.
fn generated_files(block: &Block) -> Option<Vec<String>> {
    block
        .annotations
        .split_whitespace()
        .find_map(|w| w.strip_prefix("generated="))
        .map(|list| list.split(',').map(str::to_string).collect())
}

/// What is wrong with the Rust blocks among `blocks`, and how many were
/// checked against generated code.
fn rust_failures(blocks: &[Block]) -> (Vec<String>, usize) {
    let mut failures = Vec::new();
    let mut checked = 0;
    let mut cache: BTreeMap<String, (Items, String)> = BTreeMap::new();
    for block in blocks.iter().filter(|b| b.language == "rust") {
        let Some(files) = generated_files(block) else {
            // A block that calls generated functions must say whose.
            if ["::uncall_", "_grad(", "_adjoint(", "_gpu(", "_device("]
                .iter()
                .any(|p| block.text.contains(p))
            {
                failures.push(format!(
                    "{}: calls generated functions: name their `.nil` files (```rust generated=path/to/file.nil)",
                    block.at()
                ));
            }
            continue;
        };
        let mut modules = BTreeMap::new();
        for file in files {
            let stem = Path::new(&file)
                .file_stem()
                .unwrap()
                .to_string_lossy()
                .into_owned();
            if !cache.contains_key(&file) {
                match generated(&file) {
                    Ok(code) => {
                        cache.insert(file.clone(), (items(&code), code));
                    }
                    Err(why) => {
                        failures.push(format!("{}: {why}", block.at()));
                        continue;
                    }
                }
            }
            modules.insert(stem, cache[&file].clone());
        }
        checked += 1;
        failures.extend(rust_block_failures(block, &modules));
    }
    (failures, checked)
}

#[test]
fn rust_blocks_name_what_the_generated_code_defines() {
    let (failures, checked) = rust_failures(&all_blocks());
    eprintln!("{checked} Rust blocks checked against generated code");
    assert!(
        checked >= 5,
        "only {checked} Rust blocks say which generated code they show"
    );
    assert!(failures.is_empty(), "\n{}", failures.join("\n"));
}

/// The annotations do what the module's documentation says, on a page
/// made up here: each kind of block once as it should be and once wrong.
#[test]
fn the_annotations_are_enforced() {
    let page = r#"
```julia
function clean(y::f64, x::f64)
    y += x
end
```

```julia
function unannotated_error(y::f64, x::f64)
    y += x * y
end
```

```julia fails=E0201
function expected_error(y::f64, x::f64)
    y += x * y
end
```

```julia fails=E0204
function other_error(y::f64, x::f64)
    y += x * y
end
```

```julia warns=W0203
function expected_warning(n::i64)
    t ← 0.5
    u ← 0.0
    u += t * t
    u -= t * t
end
```

```julia ignore (a fragment)
y += x
```

```julia ignore (stale)
function whole(y::f64, x::f64)
    y += x
end
```

```julia ignore
y += x
```

```julia fails=E9999
```

```julia should_panic
```

```
function unlabelled(y::f64, x::f64)
    y += x * y
end
```

```julia project=p
struct Pt{T} x::T; y::T end
```

```julia project=p
function moved(p::Pt{T}, d::T) where T: Real
    p.x += identity(d)
end
```
"#;
    let blocks = blocks("page.md", page);
    let (failures, counts) = nil_failures(&blocks);
    let lines: Vec<&str> = failures
        .iter()
        .map(|f| f.split(' ').next().unwrap().trim_end_matches(':'))
        .collect();
    assert_eq!(
        lines,
        [
            "page.md:45",
            "page.md:49",
            "page.md:52",
            "page.md:8",
            "page.md:20",
            "page.md:39",
            "page.md:55",
        ],
        "{failures:#?}"
    );
    let message = |line: &str| {
        failures
            .iter()
            .find(|f| {
                f.starts_with(&format!("page.md:{line} "))
                    || f.starts_with(&format!("page.md:{line}:"))
            })
            .unwrap()
            .clone()
    };
    // The error's own line of the page, its code and its message.
    assert!(
        message("8").contains("page.md:10:14: error[E0201]"),
        "{}",
        message("8")
    );
    assert!(
        message("8").contains("expected to check clean"),
        "{}",
        message("8")
    );
    assert!(
        message("8").contains("read and written by the same instruction"),
        "{}",
        message("8")
    );
    assert!(
        message("20").contains("expected errors {\"E0204\"}"),
        "{}",
        message("20")
    );
    assert!(
        message("39").contains("remove the mark"),
        "{}",
        message("39")
    );
    assert!(
        message("45").contains("needs a reason"),
        "{}",
        message("45")
    );
    assert!(
        message("49").contains("`E9999` is not a diagnostic code"),
        "{}",
        message("49")
    );
    assert!(
        message("52").contains("unknown annotation `should_panic`"),
        "{}",
        message("52")
    );
    assert!(
        message("55").contains("page.md:57:14: error[E0201]"),
        "{}",
        message("55")
    );
    assert_eq!(counts["ignored"], 2);
    assert_eq!(counts["expected to fail"], 3);
}

/// The Rust blocks' check, on a page made up here: a wrong name, a wrong
/// number of arguments, a wrong import, and a block that calls generated
/// functions without saying whose.
#[test]
fn rust_blocks_that_disagree_with_the_generated_code_fail() {
    let page = r#"
```rust generated=examples/arithmetic.nil
use crate::arithmetic::{self as a, multiplier};
a::multiplier(&mut out, 3.0, 5.0)?;
arithmetic::uncall_multiplier(&mut out, 3.0)?;
arithmetic::multiply(&mut out, 3.0, 5.0)?;
```

```rust generated=examples/arithmetic.nil
use crate::arithmetic::{Multiplier};
```

```rust
arithmetic::uncall_multiplier(&mut out, 3.0, 5.0)?;
```
"#;
    let (failures, checked) = rust_failures(&blocks("page.md", page));
    assert_eq!(checked, 2);
    assert_eq!(
        failures,
        [
            "page.md:5: `arithmetic::uncall_multiplier` is called with 2 arguments; the generated function takes 3",
            "page.md:6: `arithmetic::multiply` is not in the Rust generated for `arithmetic`",
            "page.md:10: imports `Multiplier`, which the Rust generated for `arithmetic` lacks",
            "page.md:13: calls generated functions: name their `.nil` files (```rust generated=path/to/file.nil)",
        ]
    );
}

/// The pages whose shell blocks are held to CI: the ones this test's
/// annotations are written in.
fn owned_page(page: &str) -> bool {
    page == "README.md" || page == "build-plugin/README.md" || page.starts_with("docs/")
}

/// The words of a command line that a CI line must have to run it:
/// without its comment, and without `--release` (CI builds in debug).
fn command_words(line: &str) -> Vec<&str> {
    let line = line.split(" #").next().unwrap();
    line.split_whitespace()
        .filter(|w| *w != "--release")
        .collect()
}

/// The command lines of `block` that no line of `ci` runs, and how many
/// command lines it has.
fn not_run_by(block: &Block, ci: &str) -> (Vec<String>, usize) {
    let ci: Vec<BTreeSet<&str>> = ci.lines().map(|l| l.split_whitespace().collect()).collect();
    let commands: Vec<&str> = block
        .text
        .lines()
        .map(str::trim)
        .filter(|l| !l.is_empty() && !l.starts_with('#'))
        .collect();
    let missing = commands
        .iter()
        .filter(|c| {
            let words = command_words(c);
            !ci.iter().any(|line| words.iter().all(|w| line.contains(w)))
        })
        .map(|c| c.to_string())
        .collect();
    (missing, commands.len())
}

/// What is wrong with the shell blocks of `blocks` against the CI script
/// `ci`: a block that CI does not run has to say so, and why, in a
/// comment just before it (`<!-- not run in CI: needs a GPU -->`, which
/// GitHub does not show); a block that says so while CI runs all of it is
/// wrong too.
fn shell_failures(blocks: &[Block], ci: &str) -> Vec<String> {
    let mut failures = Vec::new();
    for block in blocks.iter().filter(|b| owned_page(&b.page)) {
        if !matches!(block.language.as_str(), "sh" | "bash" | "shell" | "console") {
            continue;
        }
        let marked =
            block.before.starts_with("<!-- not run in CI:") && block.before.ends_with("-->");
        let (missing, commands) = not_run_by(block, ci);
        if !marked && !missing.is_empty() {
            failures.push(format!(
                "{}: .ci/run does not run {missing:?}: run it there, or say why not just above the block (<!-- not run in CI: ... -->)",
                block.at()
            ));
        }
        if marked && missing.is_empty() && commands > 0 {
            failures.push(format!(
                "{}: marked as not run in CI, but .ci/run runs every command of it: remove the mark",
                block.at()
            ));
        }
    }
    failures
}

#[test]
fn shell_blocks_are_run_by_ci_or_say_why_not() {
    let ci = std::fs::read_to_string(repository().join(".ci/run")).unwrap();
    let blocks = all_blocks();
    let failures = shell_failures(&blocks, &ci);
    assert!(failures.is_empty(), "\n{}", failures.join("\n"));
    // On a page made up here: one block CI runs, one it does not, each
    // marked and unmarked.
    let page = "\
```sh
cargo test --workspace
```

<!-- not run in CI: a demonstration -->
```sh
cargo test --workspace
```

```sh
cargo run --release -p nilang-examples   # runs in debug in CI
cargo bench -p nilang-compiler
```

<!-- not run in CI: minutes -->
```sh
cargo bench -p nilang-compiler
```
";
    let failures = shell_failures(&self::blocks("README.md", page), &ci);
    assert_eq!(failures.len(), 2, "{failures:#?}");
    assert!(
        failures[0].starts_with("README.md:6: marked as not run in CI"),
        "{}",
        failures[0]
    );
    assert!(
        failures[1]
            .starts_with("README.md:10: .ci/run does not run [\"cargo bench -p nilang-compiler\"]"),
        "{}",
        failures[1]
    );
}

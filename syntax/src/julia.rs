//! NiLang.jl habits the grammar cannot read: `@i function`, `@from c while
//! d`, `k!=0` (a name may end in `!`), closures (`x -> x < 0`), `return`,
//! `@zeros T a b`, `x |> INV`, `PlusEq(f)(y, x)`, `Grad(f)(...)`, `@skip!`,
//! `@const e`, `2i` (implicit multiplication) and `for (i, v) in
//! enumerate(x)`. Each gets one E0006, with what this language has instead
//! as the help line (and as a machine-applicable suggestion where the
//! rewrite is certain), instead of a cascade of syntax and name errors: the
//! lowering leaves the statement out, and the errors inside its range are not
//! reported. The habits the grammar does read (`add(a, b)`, Julia's type
//! names) are diagnosed by the analysis, which knows the names.

use tree_sitter::Node;

use crate::ast::Span;
use crate::diagnostics::Diagnostic;
use crate::fields::Field;

const CODE: &str = "E0006";

/// A targeted diagnostic for an `ERROR` node, if it is a Julia habit.
pub(crate) fn error_node(node: Node<'_>, text: &str) -> Option<Diagnostic> {
    error_habit(node, text).map(|(d, _)| d)
}

/// A targeted diagnostic for an `ERROR` node, if it is a Julia habit, and
/// whether the statements after it in its block are the body of the loop
/// it opens (`for (i, v) in enumerate(x)`: tree-sitter reads the loop's
/// `end` as the function's).
pub(crate) fn error_habit(node: Node<'_>, text: &str) -> Option<(Diagnostic, bool)> {
    if let Some(d) = statement(node, text, 0) {
        return Some((d, false));
    }
    if let Some(d) = enumerate_loop(node, text) {
        return Some((d, true));
    }
    arrow(node, text)
        .or_else(|| implicit_product(node, text))
        .or_else(|| error_node_rest(node, text))
        .map(|d| (d, false))
}

/// Whether a statement holds an `ERROR` node that is a Julia habit
/// (a closure, `|>`, `2i`), outside its nested blocks: the lowering leaves
/// such a statement out, for what is left of it would be checked as
/// something else (`x -> x < 0` reads as `x - x < 0`).
pub(crate) fn holds_habit(node: Node<'_>, text: &str) -> bool {
    crate::stack::deep(|| {
        if !node.has_error() {
            return false;
        }
        let mut cursor = node.walk();
        let children: Vec<Node<'_>> = node.children(&mut cursor).collect();
        children.into_iter().any(|child| {
            if child.kind() == "block" {
                false
            } else if child.is_error() {
                error_node(child, text).is_some() || holds_habit(child, text)
            } else {
                holds_habit(child, text)
            }
        })
    })
}

fn error_node_rest(node: Node<'_>, text: &str) -> Option<Diagnostic> {
    let (start, end) = (node.start_byte(), node.end_byte());
    let source = &text[start..end];
    if let Some(rest) = source.strip_prefix("@i")
        && rest.chars().next().is_none_or(char::is_whitespace)
        && (text[end..].trim_start().starts_with("function")
            || rest.trim_start().starts_with("function"))
    {
        return Some(
            Diagnostic::error(
                CODE,
                span(start, start + 2),
                "`@i` is NiLang.jl's macro; a `.nil` function is reversible without it",
            )
            .with_label("not needed here")
            .with_help("remove `@i`: write `function name(...) ... end`")
            .with_suggestion(span(start, end_of_blanks(text, start + 2)), ""),
        );
    }
    if source.starts_with('=') && text[..start].ends_with('!') {
        let name_end = start - 1;
        let name_start = text[..name_end]
            .char_indices()
            .rev()
            .take_while(|&(_, c)| c.is_alphanumeric() || c == '_' || c == '!')
            .last()
            .map_or(name_end, |(i, _)| i);
        let name = &text[name_start..name_end];
        let after = &text[start + 1..];
        let value = after.split([',', ')', '\n', '#']).next().unwrap_or("");
        let value_end = start + 1 + value.trim_end().len();
        let value = value.trim();
        return Some(
            Diagnostic::error(
                CODE,
                span(name_start, start + 1),
                format!("`{name}!=` reads as the name `{name}!` followed by `=`"),
            )
            .with_label("a name may end in `!`")
            .with_help(format!(
                "for \"not equal\", put a space before `!=`: `{name} != {value}`"
            ))
            .with_suggestion(span(name_start, value_end), format!("{name} != {value}")),
        );
    }
    None
}

/// A targeted diagnostic for a statement of a block written as NiLang.jl
/// would (`@from c while d`, `return y`, `@zeros T a b`, `@skip! x`,
/// `PlusEq(f)(y, x)`, `Grad(f)(...)`), with spans relative to `base`. The
/// one test of what such a statement is: the lowering leaves it out, and the
/// syntax errors inside it are not reported again.
pub(crate) fn statement(node: Node<'_>, text: &str, base: usize) -> Option<Diagnostic> {
    let start = node.start_byte();
    if node.parent().is_none_or(|p| p.kind() != "block") {
        return None;
    }
    let line = text[start..].lines().next().unwrap_or("");
    let code = &line[..code_end(line)];
    let at = |a: usize, b: usize| span(start + a - base, start + b - base);
    let whole = at(0, code.len());
    if let Some((a, b)) = global_stack(code) {
        let name = &code[a..b];
        let element = match name.trim_end_matches("_STACK") {
            "FLOAT64" => "f64",
            "FLOAT32" => "f32",
            "INT64" => "i64",
            "INT32" => "i32",
            "BOOL" => "bool",
            "COMPLEXF64" => "Complex<f64>",
            "COMPLEXF32" => "Complex<f32>",
            _ => "T",
        };
        return Some(
            Diagnostic::error(CODE, at(a, b), format!("`{name}` is one of NiLang.jl's global stacks; here there is no global state"))
                .with_label("NiLang.jl's global stack")
                .with_help(format!(
                    "use a stack of your own: a parameter `s::Stack<{element}>`, or an ancilla `s ← stack({element})` that is empty again when freed; then `s[end+1] ↔ x` pushes and `s[end] ↔ x` pops (docs/language.md, \"Stacks\")"
                )),
        );
    }
    if !matches!(
        code.as_bytes().first(),
        Some(b'@' | b'r' | b'P' | b'M' | b'X' | b'G')
    ) {
        return None;
    }
    if let Some(rest) = line.strip_prefix("@from") {
        return from_loop(rest, whole);
    }
    if let Some(rest) = code.strip_prefix("return")
        && rest.chars().next().is_none_or(char::is_whitespace)
    {
        return Some(
            Diagnostic::error(CODE, whole, "`return` is not in the language: a function returns nothing")
                .with_label("NiLang.jl spelling")
                .with_help(
                    "a function's results are written into the parameters it changes (by convention named with `!`, such as `out!`): accumulate into one (`out! += y`) and remove the `return`",
                ),
        );
    }
    if let Some(rest) = code.strip_prefix("@zeros")
        && rest.starts_with(char::is_whitespace)
    {
        let words: Vec<&str> = rest.split_whitespace().collect();
        let indent = indentation(text, start);
        let (ty, names) = words.split_first()?;
        let lines: Vec<String> = names.iter().map(|n| format!("{n} ← zero({ty})")).collect();
        let d = Diagnostic::error(
            CODE,
            whole,
            "`@zeros` is NiLang.jl's macro; here each ancilla is allocated on its own line",
        )
        .with_label("NiLang.jl spelling");
        return Some(if lines.is_empty() {
            d.with_help(format!("allocate each ancilla with `name ← zero({ty})`"))
        } else {
            let rewrite = lines.join(&format!("\n{indent}"));
            d.with_help(format!("write `{}`", lines.join("`, `")))
                .with_suggestion(whole, rewrite)
        });
    }
    if code.starts_with("@skip!") {
        return Some(skip(whole));
    }
    for (julia, op) in [("PlusEq", "+="), ("MinusEq", "-="), ("XorEq", "⊻=")] {
        if let Some(rest) = code.strip_prefix(julia)
            && let Some((f, args)) = applied_call(rest)
        {
            let (y, xs) = args.split_first()?;
            let value = if f == "identity" && xs.len() == 1 {
                xs[0].to_string()
            } else {
                format!("{f}({})", xs.join(", "))
            };
            let rewrite = format!("{y} {op} {value}");
            return Some(
                Diagnostic::error(CODE, whole, format!("`{julia}(f)(y, x...)` is NiLang.jl's instruction object; here it is the operator `{op}`"))
                    .with_label("NiLang.jl spelling")
                    .with_help(format!("write `{rewrite}`"))
                    .with_suggestion(whole, rewrite),
            );
        }
    }
    if let Some(rest) = code.strip_prefix("Grad")
        && let Some((f, _)) = applied_call(rest)
    {
        return Some(
            Diagnostic::error(CODE, whole, "`Grad(f)(Val(i), ...)` is NiLang.jl's gradient; here it is the derivative call `(∇f)(...)`")
                .with_label("NiLang.jl spelling")
                .with_help(format!(
                    "write `(∇{f})(...)` with `{f}`'s arguments, each differentiable one followed by its companion that receives the gradient (docs/language.md, \"Derivatives inside `.nil`\")"
                )),
        );
    }
    None
}

/// `@from c while d` (what follows `@from` in `rest`) at `whole`.
fn from_loop(rest: &str, whole: Span) -> Option<Diagnostic> {
    if !rest.starts_with(char::is_whitespace) {
        return None;
    }
    let rest = rest.split('#').next().unwrap_or(rest);
    let (from, condition) = rest.split_once(" while ")?;
    let (from, condition) = (from.trim(), condition.trim());
    let post = match from.split_once("==") {
        Some((a, b)) if !b.contains("==") => format!("{} != {}", a.trim(), b.trim()),
        _ => format!("!({from})"),
    };
    Some(
        Diagnostic::error(
            CODE,
            whole,
            "`@from c while d` is NiLang.jl's loop; here it is `while (d, !c)`",
        )
        .with_label("NiLang.jl spelling")
        .with_help(format!(
            "write `while ({condition}, {post})`: the first condition decides whether to iterate, the second must be false on entry and true after every iteration"
        ))
        .with_suggestion(whole, format!("while ({condition}, {post})")),
    )
}

/// `@skip!`, as a statement or around an argument, at `at`.
pub(crate) fn skip(at: Span) -> Diagnostic {
    Diagnostic::error(CODE, at, "`@skip!` is NiLang.jl's macro; it is not in the language")
        .with_label("NiLang.jl spelling")
        .with_help(
            "remove `@skip!`: an argument a call only reads needs no mark here (the analysis finds what each call changes), and a statement for its side effect only (printing) is written `@safe ...`",
        )
}

/// `@const e` at `at`, `e` starting at `arg`: the same as `e` here.
pub(crate) fn constant(at: Span, arg: Span) -> Diagnostic {
    Diagnostic::error(CODE, at, "`@const` is NiLang.jl's macro; it is not needed here")
        .with_label("NiLang.jl spelling")
        .with_help(
            "remove `@const`: an expression on the right of an instruction is only read, and a parameter that carries no derivative is declared `Const<T>`",
        )
        .with_suggestion(Span::new(at.start, arg.start), "")
}

/// `(f)(a, b, ...)` at the start of `rest`: `f` and the arguments.
fn applied_call(rest: &str) -> Option<(&str, Vec<&str>)> {
    let rest = rest.strip_prefix('(')?;
    let close = matching(rest)?;
    let f = rest[..close].trim();
    let args = rest[close + 1..].trim_start().strip_prefix('(')?;
    let end = matching(args)?;
    let mut out = Vec::new();
    let (mut depth, mut from) = (0usize, 0usize);
    for (i, c) in args[..end].char_indices() {
        match c {
            '(' | '[' | '{' => depth += 1,
            ')' | ']' | '}' => depth = depth.saturating_sub(1),
            ',' if depth == 0 => {
                out.push(args[from..i].trim());
                from = i + 1;
            }
            _ => {}
        }
    }
    out.push(args[from..end].trim());
    out.retain(|a| !a.is_empty());
    Some((f, out))
}

/// The offset of the `)` that closes the text `s` opens (after its `(`).
fn matching(s: &str) -> Option<usize> {
    let mut depth = 0usize;
    for (i, c) in s.char_indices() {
        match c {
            '(' | '[' | '{' => depth += 1,
            ')' | ']' | '}' if depth == 0 => return (c == ')').then_some(i),
            ')' | ']' | '}' => depth -= 1,
            _ => {}
        }
    }
    None
}

/// A closure `x -> e` (read as `x - > e`) or a pipe `x |> f`: the `ERROR`
/// node is the `>`.
fn arrow(node: Node<'_>, text: &str) -> Option<Diagnostic> {
    let (start, end) = (node.start_byte(), node.end_byte());
    if text[start..end].trim() != ">" {
        return None;
    }
    let before = &text[..start];
    if before.ends_with('-') {
        // The closure is the whole argument (or value) the arrow is in.
        let mut closure = node.parent()?;
        while let Some(parent) = closure.parent()
            && matches!(
                parent.kind(),
                "binary" | "unary" | "parenthesized" | "ERROR"
            )
        {
            closure = parent;
        }
        let source = &text[closure.byte_range()];
        return Some(
            Diagnostic::error(
                CODE,
                span(closure.start_byte(), closure.end_byte()),
                format!("`{}` is a closure; closures are not in the language", snippet(source)),
            )
            .with_label("a function written inline")
            .with_help(
                "write it as a named `function` and pass its name, or pass a partial application of one, such as `f!(_, c)` with `c` fixed (docs/language.md, \"Functions as values\")",
            ),
        );
    }
    if before.ends_with('|') {
        let rhs = node.next_named_sibling();
        let stop = rhs.map_or(end, |r| r.end_byte());
        let f = rhs.map_or("", |r| &text[r.byte_range()]);
        let message = if f == "INV" {
            "`|> INV` is NiLang.jl's; here what runs backwards is written with `~`".to_string()
        } else {
            format!("`|> {f}` is Julia's pipe; it is not in the language")
        };
        return Some(
            Diagnostic::error(CODE, span(start - 1, stop), message)
                .with_label("Julia spelling")
                .with_help(
                    "to run a call backwards write `~f(args...)` (or `~begin ... end` for a block); to apply a function, call it: `f(x)`",
                ),
        );
    }
    None
}

/// `2i`: Julia's implicit multiplication of a literal and a name.
fn implicit_product(node: Node<'_>, text: &str) -> Option<Diagnostic> {
    let (start, end) = (node.start_byte(), node.end_byte());
    let number = &text[start..end];
    if number.is_empty() || !number.bytes().all(|b| b.is_ascii_digit() || b == b'.') {
        return None;
    }
    let after = &text[end..];
    let name_len = after
        .char_indices()
        .take_while(|&(_, c)| c.is_alphanumeric() || c == '_')
        .last()
        .map(|(i, c)| i + c.len_utf8())?;
    if !after.starts_with(|c: char| c.is_alphabetic() || c == '_') {
        return None;
    }
    let name = &after[..name_len];
    let rewrite = format!("{number} * {name}");
    Some(
        Diagnostic::error(
            CODE,
            span(start, end + name_len),
            format!("`{number}{name}` is Julia's implicit multiplication; here `*` is written"),
        )
        .with_label("Julia spelling")
        .with_help(format!("write `{rewrite}`"))
        .with_suggestion(span(start, end + name_len), rewrite),
    )
}

/// `for (i, v) in enumerate(x)`: the `ERROR` node is the loop's head up to
/// `in`, the call `enumerate(x)` follows it.
fn enumerate_loop(node: Node<'_>, text: &str) -> Option<Diagnostic> {
    let start = node.start_byte();
    let line = text[start..].lines().next().unwrap_or("");
    let code = &line[..code_end(line)];
    let head = code.strip_prefix("for")?;
    let (names, collection) = head.split_once(" in ")?;
    let inner = collection
        .trim()
        .strip_prefix("enumerate(")?
        .strip_suffix(')')?;
    let names = names.trim().trim_start_matches('(').trim_end_matches(')');
    let (i, v) = names.split_once(',')?;
    let (i, v, x) = (i.trim(), v.trim(), inner.trim());
    Some(
        Diagnostic::error(
            CODE,
            span(start, start + code.len()),
            "`for (i, v) in enumerate(x)` is Julia's; here a loop runs over a range or over one collection",
        )
        .with_label("Julia spelling")
        .with_help(format!(
            "write `for {i} = 1:length({x})` and read `{x}[{i}]` where the body reads `{v}`"
        )),
    )
}

/// The first line of `source`, shortened.
fn snippet(source: &str) -> String {
    let line = source.lines().next().unwrap_or("").trim();
    if line.chars().count() > 40 {
        format!("{}…", line.chars().take(40).collect::<String>())
    } else {
        line.to_string()
    }
}

/// The blanks between the start of the line holding `at` and `at`.
fn indentation(text: &str, at: usize) -> &str {
    let line_start = text[..at].rfind('\n').map_or(0, |i| i + 1);
    let indent = &text[line_start..at];
    if indent.trim().is_empty() { indent } else { "" }
}

/// The length of a line's code: up to a `#` comment, trailing blanks left out.
fn code_end(line: &str) -> usize {
    line.split('#').next().unwrap_or(line).trim_end().len()
}

/// The offset after the spaces and tabs at `at`.
fn end_of_blanks(text: &str, at: usize) -> usize {
    at + (text[at..].len() - text[at..].trim_start_matches([' ', '\t']).len())
}

fn span(start: usize, end: usize) -> Span {
    Span::new(start as u32, end as u32)
}

/// `Complex{T}`, `Complex<T>`, `ULogarithmic{Fixed43}`, `Tropical{f64}` as
/// the argument of `zero` or `one`, which the grammar reads as a name and a
/// syntax error or as comparisons: the type constructor, its element type
/// and where the spelling ends. The lowering takes it for a value of that
/// type (`zero(T) * im`, `ulog(zero(T))`, `tropical(zero(T))`), which is all
/// `zero` and `one` need.
pub(crate) fn type_spelling<'t>(
    node: Node<'_>,
    text: &'t str,
) -> Option<(&'t str, &'t str, usize)> {
    // The node's own shape first: asking for a parent walks down from the
    // root, which would make a long chain quadratic.
    if !matches!(node.kind(), "identifier" | "binary")
        || !TYPE_SPELLINGS
            .iter()
            .any(|c| text[node.byte_range()].starts_with(c))
    {
        return None;
    }
    let arguments = node.parent().filter(|p| p.kind() == "argument_list")?;
    let call = arguments.parent()?;
    let callee = call.field("function").or_else(|| call.named_child(0))?;
    if !matches!(&text[callee.byte_range()], "zero" | "one") {
        return None;
    }
    let source = &text[node.byte_range()];
    let (ctor, element, end) = if node.kind() == "identifier" {
        let error = node.next_sibling().filter(|e| e.is_error())?;
        let braces = &text[error.byte_range()];
        let element = braces.strip_prefix('{')?.strip_suffix('}')?;
        (source, element.trim(), error.end_byte())
    } else {
        let (ctor, rest) = source.split_once('<')?;
        (
            ctor.trim(),
            rest.trim().strip_suffix('>')?.trim(),
            node.end_byte(),
        )
    };
    let simple = |s: &str| !s.is_empty() && s.chars().all(|c| c.is_alphanumeric() || c == '_');
    (TYPE_SPELLINGS.contains(&ctor) && simple(element)).then_some((ctor, element, end))
}

/// The constructors [`type_spelling`] reads.
const TYPE_SPELLINGS: [&str; 3] = ["Complex", "ULogarithmic", "Tropical"];

/// The first name of `code` spelt as one of NiLang.jl's global stacks
/// (`GLOBAL_STACK`, `FLOAT64_STACK`): all capitals, ending in `_STACK`.
fn global_stack(code: &str) -> Option<(usize, usize)> {
    let mut from = 0;
    while let Some(i) = code[from..].find("_STACK") {
        let end = from + i + "_STACK".len();
        let start = code[..from + i]
            .char_indices()
            .rev()
            .take_while(|&(_, c)| c.is_ascii_uppercase() || c.is_ascii_digit() || c == '_')
            .last()
            .map_or(from + i, |(j, _)| j);
        let boundary_before = code[..start]
            .chars()
            .next_back()
            .is_none_or(|c| !(c.is_alphanumeric() || c == '_'));
        let boundary_after = code[end..]
            .chars()
            .next()
            .is_none_or(|c| !(c.is_alphanumeric() || c == '_' || c == '!'));
        if start < from + i && boundary_before && boundary_after {
            return Some((start, end));
        }
        from = end;
    }
    None
}

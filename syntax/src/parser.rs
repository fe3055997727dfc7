//! From text to the typed tree: tree-sitter parses, this module lowers the
//! concrete tree to [`crate::ast`].
//!
//! Parsing never fails. Tree-sitter recovers from errors; every `ERROR` and
//! `MISSING` node becomes a diagnostic and is left out of the tree, so the
//! rest of the file is still checked.

use std::cell::RefCell;
use std::sync::Arc;

use tree_sitter::{Node, Parser, Tree};

use crate::ast::*;
use crate::diagnostics::Diagnostic;
use crate::fields::Field;

/// How deep statements and expressions may nest. Deeper input is reported
/// (E0003) instead of being walked, so that no pass can overflow the stack.
pub const MAX_DEPTH: u32 = 128;

/// One function of a file, with its offset in the file.
#[derive(Clone, PartialEq, Eq, Hash, Debug)]
pub struct Item {
    pub function: Arc<Function>,
    /// Byte offset of the function's first byte (its docstring, if any).
    pub offset: u32,
}

/// The result of parsing one file.
#[derive(Clone, PartialEq, Eq, Hash, Debug, Default)]
pub struct ParsedFile {
    pub items: Vec<Item>,
    /// The `struct` definitions, in order (absolute spans).
    pub structs: Vec<Arc<StructDef>>,
    /// The `using` and `import` declarations, in order (absolute spans).
    pub imports: Vec<Import>,
    /// Syntax errors, with absolute spans.
    pub diagnostics: Vec<Diagnostic>,
}

thread_local! {
    static PARSER: RefCell<Parser> = RefCell::new({
        let mut parser = Parser::new();
        parser
            .set_language(&tree_sitter_nilang::LANGUAGE.into())
            .expect("the bundled grammar matches the tree-sitter runtime");
        parser
    });
}

/// Parses with tree-sitter. Returns `None` only if tree-sitter itself gives up,
/// which it does not do without a timeout or cancellation flag.
pub fn parse_tree(text: &str) -> Option<Tree> {
    PARSER.with(|parser| parser.borrow_mut().parse(text, None))
}

/// Parses `text` reusing `old`, a tree of the previous text already told of
/// the edit (`Tree::edit`).
pub(crate) fn reparse_tree(text: &str, old: &Tree) -> Option<Tree> {
    PARSER.with(|parser| parser.borrow_mut().parse(text, Some(old)))
}

/// Parses `text` and lowers it. Never fails.
pub fn parse(text: &str) -> ParsedFile {
    if let Some(refused) = refuse(text) {
        return refused;
    }
    match parse_tree(text) {
        Some(tree) => lower_file(text, &tree, |node| lower_function(text, node)).0,
        None => gave_up(),
    }
}

/// The result for a file too large to parse, if `text` is one.
pub(crate) fn refuse(text: &str) -> Option<ParsedFile> {
    (text.len() > u32::MAX as usize / 2).then(|| ParsedFile {
        diagnostics: vec![
            Diagnostic::error("E0001", Span::new(0, 0), "file is too large to parse")
                .with_help("split the file; files up to 2 GiB are supported"),
        ],
        ..ParsedFile::default()
    })
}

/// The result when tree-sitter returns no tree.
pub(crate) fn gave_up() -> ParsedFile {
    ParsedFile {
        diagnostics: vec![Diagnostic::error(
            "E0001",
            Span::new(0, 0),
            "the parser gave up on this file",
        )],
        ..ParsedFile::default()
    }
}

/// One `function_definition` node lowered: its tree and the diagnostics of
/// lowering, both with spans relative to the node's first byte, so the same
/// text lowers to the same value wherever it sits in a file.
#[derive(Clone, Debug)]
pub(crate) struct LoweredFunction {
    pub function: Option<Arc<Function>>,
    pub diagnostics: Vec<Diagnostic>,
}

/// Lowers one `function_definition` node of `text`'s tree.
pub(crate) fn lower_function(text: &str, node: Node<'_>) -> LoweredFunction {
    let mut lower = Lower {
        text,
        offset: node.start_byte() as u32,
        diagnostics: Vec::new(),
        end: None,
        tuples: Vec::new(),
        habit_end: 0,
    };
    let function = lower.function(node).map(Arc::new);
    LoweredFunction {
        function,
        diagnostics: lower.diagnostics,
    }
}

/// Lowers a whole tree; `function` lowers (or recalls) each function node.
/// Also returns the structs' lowering diagnostics on their own (they are in
/// the file's too).
pub(crate) fn lower_file(
    text: &str,
    tree: &Tree,
    mut function: impl FnMut(Node<'_>) -> LoweredFunction,
) -> (ParsedFile, Vec<Diagnostic>) {
    let mut out = ParsedFile::default();
    let mut struct_diagnostics = Vec::new();
    let root = tree.root_node();
    collect_syntax_errors(root, text, &mut out.diagnostics);
    let mut cursor = root.walk();
    for child in root.named_children(&mut cursor) {
        if child.kind() == "function_definition" {
            let offset = child.start_byte() as u32;
            let lowered = function(child);
            if let Some(function) = lowered.function {
                out.items.push(Item { function, offset });
            }
            out.diagnostics
                .extend(lowered.diagnostics.into_iter().map(|d| d.shifted(offset)));
        } else if child.kind() == "struct_definition" {
            let mut lower = Lower {
                text,
                offset: 0,
                diagnostics: Vec::new(),
                end: None,
                tuples: Vec::new(),
                habit_end: 0,
            };
            if let Some(def) = lower.struct_def(child) {
                out.structs.push(Arc::new(def));
            }
            struct_diagnostics.extend(lower.diagnostics);
        } else if matches!(child.kind(), "using_declaration" | "import_declaration")
            && let Some(import) = lower_import(text, child)
        {
            out.imports.push(import);
        }
    }
    out.diagnostics.extend(struct_diagnostics.iter().cloned());
    out.diagnostics
        .sort_by_key(|d| (d.primary.span.start, d.code));
    (out, struct_diagnostics)
}

/// A `using_declaration` or `import_declaration` node (absolute spans).
fn lower_import(text: &str, node: Node<'_>) -> Option<Import> {
    let span = |n: Node<'_>| Span::new(n.start_byte() as u32, n.end_byte() as u32);
    let path = node.field("module")?;
    let mut cursor = path.walk();
    // An unfinished path (`using std.` and a line break) ends at the line
    // break: tree-sitter goes on into the next lines' comment and `using`.
    let line_end = text[path.start_byte()..]
        .find('\n')
        .map_or(text.len(), |i| path.start_byte() + i);
    let parts: Vec<&str> = path
        .named_children(&mut cursor)
        .filter(|n| n.end_byte() <= line_end)
        .map(|n| &text[n.byte_range()])
        .collect();
    let module = if path.end_byte() <= line_end {
        Ident {
            name: parts.join("."),
            span: span(path),
        }
    } else {
        let written = text[path.start_byte()..line_end].trim_end();
        Ident {
            name: written.to_string(),
            span: Span::new(
                path.start_byte() as u32,
                (path.start_byte() + written.len()) as u32,
            ),
        }
    };
    let names = (node.kind() == "import_declaration").then(|| {
        let mut cursor = node.walk();
        node.children_by_field_name("name", &mut cursor)
            .map(|n| Ident {
                name: text[n.byte_range()].to_string(),
                span: span(n),
            })
            .collect()
    });
    Some(Import {
        module,
        names,
        span: span(node),
    })
}

/// `name ← value` (`allocate`) or `name → value`, at `span`.
fn ancilla_stmt(allocate: bool, name: Ident, value: Expr, span: Span) -> Stmt {
    let kind = if allocate {
        StmtKind::Alloc { name, value }
    } else {
        StmtKind::Dealloc { name, value }
    };
    Stmt { kind, span }
}

/// Reports every `ERROR` and `MISSING` node, without recursion.
fn collect_syntax_errors(root: Node<'_>, text: &str, out: &mut Vec<Diagnostic>) {
    if !root.has_error() {
        return;
    }
    let mut cursor = root.walk();
    let mut saw_from = false;
    // The end of the last Julia habit reported: what starts inside it (the
    // `(y, x)` of `PlusEq(f)(y, x)`) is not reported again.
    let mut habit_end = 0;
    loop {
        let node = cursor.node();
        let mut descend = node.has_error();
        if node.start_byte() < habit_end && node.id() != root.id() {
            descend = false;
        } else if let Some((_, _, end)) = crate::julia::type_spelling(node, text) {
            // Accepted as written (`zero(Complex{T})`).
            descend = false;
            habit_end = end;
        } else if !node.is_error()
            && let Some(habit) = crate::julia::statement(node, text, 0)
        {
            // A NiLang.jl statement (`@from` loop, `return`, ...): the
            // lowering reports it (E0006) and leaves it out; what it
            // contains is not reported again, nor the `end` it leaves over.
            descend = false;
            saw_from |= habit.message.starts_with("`@from");
            habit_end = habit.primary.span.end as usize;
        } else if saw_from && node.is_error() && text[node.byte_range()].trim() == "end" {
            descend = false;
        } else if node.is_missing() {
            let what = missing_description(node.kind());
            // Tree-sitter puts a missing token where the next one starts,
            // often lines later; report it right after the previous token.
            let at = text[..node.start_byte()].trim_end().len() as u32;
            out.push(
                Diagnostic::error("E0002", Span::new(at, at), format!("missing {what}"))
                    .with_label(format!("expected {what} here"))
                    .with_help(format!("insert {what}")),
            );
            descend = false;
        } else if node.is_error()
            && let Some((habit, opens_loop)) = crate::julia::error_habit(node, text)
        {
            habit_end = habit.primary.span.end as usize;
            saw_from |= opens_loop;
            out.push(habit);
            descend = false;
        } else if node.is_error() {
            let span = Span::new(node.start_byte() as u32, node.end_byte() as u32);
            let snippet = snippet(&text[span.range()]);
            let message = if snippet.is_empty() {
                "syntax error".to_string()
            } else {
                format!("syntax error: unexpected `{snippet}`")
            };
            out.push(
                Diagnostic::error("E0001", span, message)
                    .with_label("the parser could not make sense of this")
                    .with_help(error_hint(node, text)),
            );
            descend = false;
        }
        if descend && cursor.goto_first_child() {
            continue;
        }
        loop {
            if cursor.goto_next_sibling() {
                break;
            }
            if !cursor.goto_parent() {
                return;
            }
        }
    }
}

fn missing_description(kind: &str) -> String {
    match kind {
        "end" | ")" | "]" | "}" | "(" | "," | "=" => format!("`{kind}`"),
        "identifier" => "a name".to_string(),
        _ if kind.starts_with('_') || kind.contains('_') => "an expression".to_string(),
        _ => format!("`{kind}`"),
    }
}

fn error_hint(node: Node<'_>, text: &str) -> String {
    let error_text = &text[node.start_byte()..node.end_byte()];
    if error_text.contains("!=") || error_text.contains("!=") {
        return "a name may end in `!`, so `k!=0` reads as `k! = 0`: write `k != 0`".into();
    }
    if let Some(parent) = node.parent() {
        match parent.kind() {
            "parameter_list" => {
                return "parameters are `name::Type`, separated by commas; keyword parameters follow a `;`".into();
            }
            "condition" | "if_statement" | "while_statement" => {
                return "conditions are written `(precondition, postcondition)`, e.g. `if (x > 0, ~)`".into();
            }
            _ => {}
        }
    }
    "statements are instructions (`y += f(x)`), calls, `x ← value`, `if`, `while`, `for`, `begin` or `@routine`; each ends at a newline or `;`".into()
}

fn snippet(text: &str) -> String {
    let first_line = text.lines().next().unwrap_or("").trim();
    let mut out: String = first_line.chars().take(40).collect();
    if first_line.chars().count() > 40 || text.trim().lines().count() > 1 {
        out.push('…');
    }
    out
}

struct Lower<'a> {
    text: &'a str,
    /// Absolute offset of the current function; spans are relative to it.
    offset: u32,
    diagnostics: Vec<Diagnostic>,
    /// Inside an index: what `end` stands for there.
    end: Option<Expr>,
    /// The tuple variables of the function so far (`t ← (x, y)`) and how
    /// many values each holds: each value is an ancilla of its own, named
    /// `t.1`, `t.2`, ... ([`tuple_element`]).
    tuples: Vec<(String, usize)>,
    /// Where the Julia habit the last statement was (absolute), if it was
    /// one: the statements of its block that start before are left out.
    habit_end: usize,
}

/// The name of the `k`-th value (from 1) of the tuple variable `tuple`:
/// an ancilla of its own, which `t[k]` reads. The printer writes it back
/// as `t[k]`.
pub fn tuple_element(tuple: &str, k: usize) -> String {
    format!("{tuple}.{k}")
}

/// The last position of dimension `position` (of `count`) of `base`, as
/// `end` in an index means it: `length(base)`, or `size(base, d)`. The
/// query and its dimension get the empty range where `base` ends, a range
/// of their own (the analysis keys an expression's type by its range).
fn last_position(base: &Expr, position: usize, count: usize) -> Expr {
    let span = Span::new(base.span.end, base.span.end);
    let mut args = vec![base.clone()];
    let name = if count == 1 {
        "length"
    } else {
        args.push(Expr::new(ExprKind::Int((position + 1).to_string()), span));
        "size"
    };
    Expr::call(name, args, span)
}

impl<'a> Lower<'a> {
    fn span(&self, node: Node<'_>) -> Span {
        Span::new(
            node.start_byte() as u32 - self.offset,
            node.end_byte() as u32 - self.offset,
        )
    }

    fn text(&self, node: Node<'_>) -> &'a str {
        &self.text[node.start_byte()..node.end_byte()]
    }

    fn ident(&self, node: Node<'_>) -> Ident {
        Ident {
            name: self.text(node).to_string(),
            span: self.span(node),
        }
    }

    fn too_deep(&mut self, node: Node<'_>, depth: u32) -> bool {
        if depth <= MAX_DEPTH {
            return false;
        }
        let span = self.span(node);
        // A long flat chain (`a + b + c + …`) nests to the left: say so,
        // with the rewrite that helps.
        let operator = |n: Node<'_>| {
            (n.kind() == "binary")
                .then(|| n.field("operator"))
                .flatten()
                .map(|o| self.text(o).to_string())
        };
        let chain = operator(node).filter(|op| {
            node.parent()
                .and_then(operator)
                .is_some_and(|parent| parent == *op)
        });
        let diagnostic = match chain {
            Some(op) => Diagnostic::error(
                "E0003",
                span,
                format!("a chain of more than {MAX_DEPTH} `{op}` operations"),
            )
            .with_label("each operation nests one level deeper")
            .with_help(format!(
                "group the terms in parentheses, at most {MAX_DEPTH} to a group: `(a {op} b {op} …) {op} (…)`; sums, differences and products have no such limit"
            )),
            None => Diagnostic::error(
                "E0003",
                span,
                format!("nesting deeper than {MAX_DEPTH} levels"),
            )
            .with_label("this is nested too deeply to be checked")
            .with_help("move the inner part into a function of its own"),
        };
        self.diagnostics.push(diagnostic);
        true
    }

    /// Whether `left`, the left operand of a binary `op`, continues a chain
    /// of sums, differences, products or logical operators (`a + b - c +
    /// …`, `a * b * …`). Such a chain is as deep as it is long, but walking
    /// it cannot overflow the stack (`stack::deep`), and its derivatives
    /// grow with its length only (a sum's are constants; a long product's
    /// are prefix and suffix products bound to locals, see
    /// `codegen::adjoint::partials`), so its length is not nesting and has
    /// no limit. A chain of quotients or powers still counts.
    fn linear_spine(&self, op: BinaryOp, left: Node<'_>) -> bool {
        // Sums and logical operators may mix in one chain; a product
        // continues a chain of products only (`(a * x + b) * x + …`
        // nests: each product's derivative reads the sum under it).
        let class = |op: BinaryOp| {
            use BinaryOp::*;
            match op {
                Add | Sub | DotAdd | DotSub | Or | And | BitOr | Xor | BitAnd => Some(0),
                Mul | DotMul => Some(1),
                _ => None,
            }
        };
        class(op).is_some()
            && left.kind() == "binary"
            && left
                .field("operator")
                .and_then(|o| BinaryOp::parse(self.text(o)))
                .is_some_and(|inner| class(inner) == class(op))
    }

    fn not_allowed(&mut self, node: Node<'_>, message: impl Into<String>, help: impl Into<String>) {
        let span = self.span(node);
        self.diagnostics
            .push(Diagnostic::error("E0004", span, message).with_help(help));
    }

    /// `struct Name{T} x::T; ... end` (spans absolute: `offset` is 0).
    fn struct_def(&mut self, node: Node<'_>) -> Option<StructDef> {
        let name = self.ident(node.field("name")?);
        let doc = node.field("doc").map(|d| docstring_text(self.text(d)));
        let mut generics = Vec::new();
        let mut cursor = node.walk();
        for bound in node.children_by_field_name("parameter", &mut cursor) {
            let Some(gname) = bound.field("name") else {
                continue;
            };
            let mut c2 = bound.walk();
            let bounds = bound
                .children_by_field_name("trait", &mut c2)
                .map(|t| self.ident(t))
                .collect();
            generics.push(Generic {
                name: self.ident(gname),
                bounds,
            });
        }
        let mut fields = Vec::new();
        let mut cursor = node.walk();
        for f in node.children_by_field_name("field", &mut cursor) {
            let (Some(fname), Some(ty)) =
                (f.field("name"), f.field("type").and_then(|t| self.ty(t, 0)))
            else {
                continue;
            };
            fields.push(FieldDef {
                name: self.ident(fname),
                ty,
                span: self.span(f),
            });
        }
        Some(StructDef {
            name,
            doc,
            generics,
            fields,
            span: self.span(node),
        })
    }

    fn function(&mut self, node: Node<'_>) -> Option<Function> {
        let name = self.ident(node.field("name")?);
        let doc = node.field("doc").map(|d| docstring_text(self.text(d)));
        let mut kernel = false;
        let mut inline = false;
        let mut cursor = node.walk();
        let mut primitive = None;
        for attr in node.children_by_field_name("attribute", &mut cursor) {
            if let Some(p) = attr
                .named_child(0)
                .filter(|c| c.kind() == "primitive_attribute")
            {
                primitive = p.field("derivative").map(|d| self.ident(d));
                continue;
            }
            match self.text(attr) {
                "@kernel" => kernel = true,
                _ => inline = true,
            }
        }
        let mut params = Vec::new();
        let mut kwparams = Vec::new();
        if let Some(list) = node.field("parameters") {
            let mut cursor = list.walk();
            for p in list.children_by_field_name("parameter", &mut cursor) {
                let Some(pname) = p.field("name") else {
                    continue;
                };
                let mut ty = p.field("type").and_then(|t| self.ty(t, 0));
                // `x::Const<T>`: a parameter of type `T` that is not
                // differentiated.
                let constant = matches!(
                    &ty,
                    Some(Type { kind: TypeKind::Named { name, args }, .. })
                        if name == "Const" && args.len() == 1
                );
                if constant
                    && let Some(Type {
                        kind: TypeKind::Named { args, .. },
                        ..
                    }) = ty
                {
                    ty = args.into_iter().next();
                }
                params.push(Param {
                    name: self.ident(pname),
                    ty,
                    span: self.span(p),
                    constant,
                });
            }
            let mut cursor = list.walk();
            for p in list.children_by_field_name("keyword", &mut cursor) {
                let (Some(pname), Some(default)) = (p.field("name"), p.field("default")) else {
                    continue;
                };
                kwparams.push(KwParam {
                    name: self.ident(pname),
                    ty: p.field("type").and_then(|t| self.ty(t, 0)),
                    default: self.expr(default, 0),
                    span: self.span(p),
                });
            }
        }
        let mut generics = Vec::new();
        let mut header_end = node
            .field("parameters")
            .map(|p| p.end_byte())
            .unwrap_or(node.start_byte());
        if let Some(clause) = node.field("where") {
            header_end = clause.end_byte();
            let mut cursor = clause.walk();
            for bound in clause.children_by_field_name("bound", &mut cursor) {
                let Some(gname) = bound.field("name") else {
                    continue;
                };
                let mut c2 = bound.walk();
                let bounds = bound
                    .children_by_field_name("trait", &mut c2)
                    .map(|t| self.ident(t))
                    .collect();
                generics.push(Generic {
                    name: self.ident(gname),
                    bounds,
                });
            }
        }
        let body = match node.field("body") {
            Some(block) => self.block(block, 0),
            None => Block::default(),
        };
        let header_start = {
            let mut c = node.walk();
            node.children(&mut c)
                .find(|c| c.kind() == "function")
                .map(|c| c.start_byte())
                .unwrap_or(node.start_byte())
        };
        Some(Function {
            name,
            doc,
            kernel,
            inline,
            primitive,
            params,
            kwparams,
            generics,
            body,
            span: self.span(node),
            header_span: Span::new(
                header_start as u32 - self.offset,
                header_end as u32 - self.offset,
            ),
        })
    }

    fn ty(&mut self, node: Node<'_>, depth: u32) -> Option<Type> {
        if self.too_deep(node, depth) {
            return None;
        }
        let span = self.span(node);
        let kind = match node.kind() {
            "type_identifier" => TypeKind::Named {
                name: self.text(node).to_string(),
                args: Vec::new(),
            },
            "generic_type" => {
                let name = self.text(node.field("name")?).to_string();
                let mut cursor = node.walk();
                let children: Vec<_> = node
                    .children_by_field_name("argument", &mut cursor)
                    .collect();
                let args = children
                    .into_iter()
                    .filter_map(|a| self.ty(a, depth + 1))
                    .collect();
                TypeKind::Named { name, args }
            }
            "slice_type" => TypeKind::Slice(Box::new(self.ty(node.field("element")?, depth + 1)?)),
            "tuple_type" => {
                let mut cursor = node.walk();
                let children: Vec<_> = node
                    .children_by_field_name("element", &mut cursor)
                    .collect();
                TypeKind::Tuple(
                    children
                        .into_iter()
                        .filter_map(|a| self.ty(a, depth + 1))
                        .collect(),
                )
            }
            _ => return None,
        };
        Some(Type { kind, span })
    }

    fn block(&mut self, node: Node<'_>, depth: u32) -> Block {
        let mut stmts = Vec::new();
        let mut cursor = node.walk();
        // The end of a Julia habit (absolute): the statements that start
        // inside it are left out with it.
        let mut habit_end = 0;
        for child in node.named_children(&mut cursor) {
            if child.start_byte() < habit_end {
                continue;
            }
            if child.is_error()
                && let Some((habit, opens_loop)) = crate::julia::error_habit(child, self.text)
            {
                // Reported with the syntax errors. A loop head that is a
                // habit: the rest of the block is its body.
                if opens_loop {
                    break;
                }
                habit_end = habit.primary.span.end as usize;
                continue;
            }
            self.habit_end = 0;
            if let Some(stmt) = self.stmt(child, depth + 1) {
                stmts.push(stmt);
            }
            habit_end = habit_end.max(self.habit_end);
        }
        Block::new(stmts)
    }

    fn opt_block(&mut self, node: Option<Node<'_>>, depth: u32) -> Block {
        node.map(|b| self.block(b, depth)).unwrap_or_default()
    }

    fn stmt(&mut self, node: Node<'_>, depth: u32) -> Option<Stmt> {
        if node.is_error() || node.is_missing() || node.kind() == "comment" {
            return None;
        }
        if self.too_deep(node, depth) {
            return None;
        }
        if let Some(habit) = crate::julia::statement(node, self.text, self.offset as usize) {
            self.habit_end = (habit.primary.span.end + self.offset) as usize;
            self.diagnostics.push(habit);
            return None;
        }
        if crate::julia::holds_habit(node, self.text) {
            // Reported with the syntax errors; what is left of the
            // statement would be checked as something else.
            return None;
        }
        let span = self.span(node);
        let field = |name: &str| node.field(name);
        let kind = match node.kind() {
            "instruction" => {
                let op_node = field("operator")?;
                let op_text = self.text(op_node);
                let broadcast = op_text.starts_with('.');
                let op = match op_text.trim_start_matches('.') {
                    "+=" => InstrOp::Add,
                    "-=" => InstrOp::Sub,
                    "⊻=" | "^=" => InstrOp::Xor,
                    "*=" => InstrOp::Mul,
                    "/=" => InstrOp::Div,
                    _ => InstrOp::Assign,
                };
                StmtKind::Instr {
                    target: self.expr(field("target")?, depth),
                    op,
                    op_span: self.span(op_node),
                    broadcast,
                    value: self.expr(field("value")?, depth),
                }
            }
            "call_statement" => StmtKind::Call(self.call(node, depth)?),
            "swap_statement" => {
                let arrow = node.child(1).map_or(span, |a| self.span(a));
                self.swap(field("left")?, field("right")?, arrow, span, depth)?
            }
            "ancilla_statement" => {
                let target = field("name")?;
                if matches!(target.kind(), "destructuring" | "tuple") {
                    let allocate = field("direction")?.kind() == "allocate";
                    return self
                        .destructure(target, field("value")?, allocate, depth)
                        .map(|block| Stmt {
                            kind: StmtKind::Begin(block),
                            span,
                        });
                }
                let value = self.expr(field("value")?, depth);
                let allocate = field("direction")?.kind() == "allocate";
                // `s[end+1] ← x` copies `x` onto the stack `s`, `s[end] → x`
                // pops a copy that must equal `x` (NiLang.jl's spellings).
                match (self.stack_slot(target), allocate) {
                    (Some((stack, true)), true) | (Some((stack, false)), false) => {
                        let stack = self.expr(stack, depth + 1);
                        let name = if allocate { "COPYPUSH!" } else { "COPYPOP!" };
                        let arrow = self.span(field("direction")?);
                        return Some(Stmt {
                            kind: StmtKind::Call(instruction(name, arrow, vec![stack, value])),
                            span,
                        });
                    }
                    _ => {}
                }
                if target.kind() != "identifier" {
                    self.not_allowed(
                        target,
                        "only a plain name can be allocated or deallocated",
                        "write `name ← value` with a fresh variable name",
                    );
                    return None;
                }
                if let Some(value_node) = field("value")
                    && value_node.kind() == "tuple"
                {
                    // `t ← (x, y)`: a tuple variable, one ancilla a value.
                    let name = self.ident(target);
                    return self
                        .tuple_variable(name, value_node, allocate, depth)
                        .map(|block| Stmt {
                            kind: StmtKind::Begin(block),
                            span,
                        });
                }
                let name = self.ident(target);
                match field("direction")?.kind() {
                    "allocate" => StmtKind::Alloc { name, value },
                    _ => StmtKind::Dealloc { name, value },
                }
            }
            "if_statement" => {
                let mut branches = vec![Branch {
                    cond: self.cond(field("condition")?, depth),
                    body: self.opt_block(field("consequence"), depth),
                }];
                let mut otherwise = None;
                let mut cursor = node.walk();
                let alternatives: Vec<_> = node
                    .children_by_field_name("alternative", &mut cursor)
                    .collect();
                for alt in alternatives {
                    if alt.kind() == "elseif_clause" {
                        let Some(cond) = alt.field("condition") else {
                            continue;
                        };
                        branches.push(Branch {
                            cond: self.cond(cond, depth),
                            body: self.opt_block(alt.field("body"), depth),
                        });
                    } else {
                        otherwise = Some(self.opt_block(alt.field("body"), depth));
                    }
                }
                StmtKind::If {
                    branches,
                    otherwise,
                }
            }
            "while_statement" => StmtKind::While {
                cond: self.cond(field("condition")?, depth),
                body: self.opt_block(field("body"), depth),
            },
            "for_statement" => {
                let var = self.ident(field("variable")?);
                let range = field("range")?;
                // `reverse(xs)` of a collection (not of a range) walks it
                // backwards.
                let reversed_collection = (range.kind() == "reversed_range")
                    .then(|| range.field("range"))
                    .flatten()
                    .filter(|inner| inner.kind() != "range");
                if let Some(xs) = reversed_collection {
                    let body = self.opt_block(field("body"), depth);
                    self.for_each(var, xs, true, body, span.end, depth)
                } else if matches!(range.kind(), "range" | "reversed_range") {
                    StmtKind::For {
                        var,
                        range: self.for_range(range, depth)?,
                        body: self.opt_block(field("body"), depth),
                    }
                } else {
                    let body = self.opt_block(field("body"), depth);
                    self.for_each(var, range, false, body, span.end, depth)
                }
            }
            "begin_block" => StmtKind::Begin(self.opt_block(field("body"), depth)),
            "inverse_statement" => {
                let mut cursor = node.walk();
                let bodies: Vec<_> = node.children_by_field_name("body", &mut cursor).collect();
                let mut inner: Vec<Stmt> = bodies
                    .into_iter()
                    .filter_map(|b| self.stmt(b, depth + 1))
                    .collect();
                let inner = match inner.len() {
                    0 => return None,
                    // `~(s1; s2)` inverts the block `s1; s2`.
                    n if n > 1 => Stmt {
                        span: Span::new(inner[0].span.start, inner[n - 1].span.end),
                        kind: StmtKind::Begin(Block::new(inner)),
                    },
                    _ => inner.remove(0),
                };
                match inner.kind {
                    // `~f(x)` is the uncall of `f`: keep it a call.
                    StmtKind::Call(mut call) => {
                        call.inverted = !call.inverted;
                        StmtKind::Call(call)
                    }
                    other => StmtKind::Inverse(Box::new(Stmt {
                        kind: other,
                        span: inner.span,
                    })),
                }
            }
            "routine_statement" => {
                let storing = match node.child_by_field_name("storing") {
                    Some(_) => Storing::Store,
                    None => Storing::Recompute,
                };
                StmtKind::Routine(Box::new(self.stmt(field("body")?, depth + 1)?), storing)
            }
            "unroutine_statement" => StmtKind::Unroutine,
            "tape_statement" => StmtKind::Tape(Box::new(self.stmt(field("body")?, depth + 1)?)),
            "safe_statement" => StmtKind::Safe(self.expr(field("body")?, depth)),
            "invcheckoff_statement" => {
                StmtKind::InvCheckOff(Box::new(self.stmt(field("body")?, depth + 1)?))
            }
            "inbounds_statement" => {
                StmtKind::InBounds(Box::new(self.stmt(field("body")?, depth + 1)?))
            }
            "typecast_statement" => {
                let cast = field("cast")?;
                let from = self.ty(cast.field("from")?, depth)?;
                let to = self.ty(cast.field("to")?, depth)?;
                let args = field("arguments")?;
                let (mut positional, _) = self.arguments(args, depth);
                if positional.len() != 1 {
                    self.not_allowed(
                        args,
                        "a typecast converts exactly one variable",
                        "write `(T1 => T2)(x)`",
                    );
                    return None;
                }
                StmtKind::Typecast {
                    from,
                    to,
                    value: positional.remove(0),
                }
            }
            _ => return None,
        };
        Some(Stmt { kind, span })
    }

    fn call(&mut self, node: Node<'_>, depth: u32) -> Option<Call> {
        let callee_node = node.field("function")?;
        let (callee, inverted) = if callee_node.kind() == "parenthesized_inverse" {
            (self.ident(callee_node.field("function")?), true)
        } else if callee_node.kind() == "parenthesized_derivative" {
            // `(∇f)` / `(∂f)`: a call of the derived function named
            // `∇f` / `∂f` (see `ast::Derivative`), spanning the name `f`.
            let operator = self.text(callee_node.field("operator")?);
            let mut ident = self.ident(callee_node.field("function")?);
            ident.name = format!("{operator}{}", ident.name);
            (ident, false)
        } else {
            (self.ident(callee_node), false)
        };
        let (args, kwargs) = self.arguments(node.field("arguments")?, depth);
        Some(Call {
            callee,
            inverted,
            args,
            kwargs,
        })
    }

    fn arguments(&mut self, node: Node<'_>, depth: u32) -> (Vec<Expr>, Vec<KwArg>) {
        let mut cursor = node.walk();
        let positional: Vec<_> = node
            .children_by_field_name("argument", &mut cursor)
            .collect();
        let args = positional
            .into_iter()
            .map(|a| self.expr(a, depth + 1))
            .collect();
        let mut cursor = node.walk();
        let keywords: Vec<_> = node
            .children_by_field_name("keyword", &mut cursor)
            .collect();
        let kwargs = keywords
            .into_iter()
            .filter_map(|k| {
                Some(KwArg {
                    name: self.ident(k.field("name")?),
                    value: self.expr(k.field("value")?, depth + 1),
                })
            })
            .collect();
        (args, kwargs)
    }

    fn cond(&mut self, node: Node<'_>, depth: u32) -> Cond {
        let span = self.span(node);
        if node.kind() != "condition" {
            return Cond {
                pre: self.expr(node, depth),
                post: Post::Missing,
                span,
            };
        }
        let pre = match node.field("pre") {
            Some(pre) => self.expr(pre, depth),
            None => Expr::new(ExprKind::Error, span),
        };
        let post = match node.field("post") {
            Some(post) if post.kind() == "same_as_pre" => Post::SameAsPre(self.span(post)),
            Some(post) => Post::Expr(self.expr(post, depth)),
            None => Post::Missing,
        };
        Cond { pre, post, span }
    }

    /// `for x in xs body end` (with `reversed`, `for x in reverse(xs)`, the
    /// positions last first): a loop over the positions of `xs` in which
    /// `x` is a copy of the element, allocated before the body and checked
    /// equal to it (and freed) after: `for k = 1:length(xs); x ← xs[k];
    /// body; x → xs[k]; end`. The position variable has an empty span at the
    /// start of `x`, so it is never taken for `x`; the deallocation has an
    /// empty span at `end_at` (the loop's end), after the body.
    fn for_each(
        &mut self,
        var: Ident,
        xs: Node<'_>,
        reversed: bool,
        body: Block,
        end_at: u32,
        depth: u32,
    ) -> StmtKind {
        let whole = self.span(xs);
        let xs = self.expr(xs, depth + 1);
        let at = Span::new(var.span.start, var.span.start);
        // What the loop makes up gets ranges of its own (the analysis keys
        // an expression's type by its range): the element `xs[k]` is
        // `x in xs`, the first position an empty range where `xs` starts,
        // the length one where it ends.
        let element_at = Span::new(var.span.start, whole.end);
        let first_at = Span::new(whole.start, whole.start);
        let length_at = Span::new(whole.end, whole.end);
        let position = Ident {
            name: for_each_position(&var.name),
            span: at,
        };
        let k = IndexArg::Expr(Expr::new(ExprKind::Var(position.name.clone()), at));
        let (element, length) = match line_of_matrix(&xs) {
            // `for v in A[:, j]` and `for v in A[i, :]`: the elements of one
            // column or row, `A[k, j]` for k = 1:size(A, 1) (or `A[i, k]`).
            Some((matrix, axis, fixed)) => {
                let mut indices = vec![k, IndexArg::Expr(fixed.clone())];
                if axis == 2 {
                    indices.reverse();
                }
                let element = Expr::new(
                    ExprKind::Index {
                        base: Box::new(matrix.clone()),
                        indices,
                    },
                    element_at,
                );
                let mut length = last_position(matrix, usize::from(axis) - 1, 2);
                length.span = length_at;
                (element, length)
            }
            None => {
                let element = Expr::new(
                    ExprKind::Index {
                        base: Box::new(xs.clone()),
                        indices: vec![k],
                    },
                    element_at,
                );
                (element, Expr::call("length", vec![xs], length_at))
            }
        };
        let mut stmts = Vec::with_capacity(body.stmts.len() + 2);
        stmts.push(Stmt {
            kind: StmtKind::Alloc {
                name: var.clone(),
                value: element.clone(),
            },
            span: whole,
        });
        stmts.extend(body.stmts);
        stmts.push(Stmt {
            kind: StmtKind::Dealloc {
                name: var,
                value: element,
            },
            span: Span::new(end_at, end_at),
        });
        StmtKind::For {
            var: position,
            range: Range {
                start: Expr::new(ExprKind::Int("1".to_string()), first_at),
                step: None,
                stop: length,
                reversed,
                span: whole,
            },
            body: Block::new(stmts),
        }
    }

    /// `x ↔ y` as NiLang.jl reads it:
    /// - two places: `SWAP(x, y)`;
    /// - `a::∅ ↔ b`, an empty slot and a variable: `b` moves into `a`,
    ///   `a ← b; b → a` (either side may be the slot);
    /// - `s[end+1] ↔ x`: `x` moves onto the stack, `PUSH!(s, x); x → zero(..)`;
    /// - `s[end] ↔ a::∅`: the top moves into a new `a`,
    ///   `a ← zero(s[end]); POP!(s, a)` (`zero` only reads the element type).
    fn swap(
        &mut self,
        left: Node<'_>,
        right: Node<'_>,
        arrow: Span,
        span: Span,
        depth: u32,
    ) -> Option<StmtKind> {
        let stmt = |kind| Stmt { kind, span };
        let block = |stmts: Vec<Stmt>| Some(StmtKind::Begin(Block::new(stmts)));
        let (slot, other) = match (left.kind() == "empty_slot", right.kind() == "empty_slot") {
            (true, true) => {
                self.not_allowed(
                    right,
                    "both sides of `↔` are empty",
                    "move a value into an empty slot: `a::∅ ↔ b`",
                );
                return None;
            }
            (true, false) => (Some(left), right),
            (false, true) => (Some(right), left),
            (false, false) => {
                let (stack, x) = match (self.stack_slot(left), self.stack_slot(right)) {
                    (Some((s, true)), _) => (s, right),
                    (_, Some((s, true))) => (s, left),
                    _ => {
                        let args = vec![self.expr(left, depth + 1), self.expr(right, depth + 1)];
                        return Some(StmtKind::Call(instruction("SWAP", arrow, args)));
                    }
                };
                if x.kind() != "identifier" {
                    self.not_allowed(
                        x,
                        "only a variable can be moved onto a stack with `↔`",
                        "push a copy with `s[end+1] ← x` (`COPYPUSH!`), or move a variable: `s[end+1] ↔ x`",
                    );
                    return None;
                }
                let s = self.expr(stack, depth + 1);
                let x = self.ident(x);
                let xv = Expr::new(ExprKind::Var(x.name.clone()), x.span);
                let top = self.top_of(s.clone(), span);
                return block(vec![
                    stmt(StmtKind::Call(instruction("PUSH!", arrow, vec![s, xv]))),
                    stmt(StmtKind::Dealloc {
                        name: x,
                        value: Expr::call("zero", vec![top], span),
                    }),
                ]);
            }
        };
        let slot = self.ident(slot?.field("name")?);
        match (other.kind(), self.stack_slot(other)) {
            ("identifier", _) => {
                let from = self.ident(other);
                let read = |i: &Ident| Expr::new(ExprKind::Var(i.name.clone()), i.span);
                let (a, b) = (read(&slot), read(&from));
                block(vec![
                    stmt(StmtKind::Alloc {
                        name: slot,
                        value: b,
                    }),
                    stmt(StmtKind::Dealloc {
                        name: from,
                        value: a,
                    }),
                ])
            }
            (_, Some((stack, false))) => {
                let s = self.expr(stack, depth + 1);
                let top = self.top_of(s.clone(), span);
                let a = Expr::new(ExprKind::Var(slot.name.clone()), slot.span);
                block(vec![
                    stmt(StmtKind::Alloc {
                        name: slot,
                        value: Expr::call("zero", vec![top], span),
                    }),
                    stmt(StmtKind::Call(instruction("POP!", arrow, vec![s, a]))),
                ])
            }
            _ => {
                self.not_allowed(
                    other,
                    "only a variable or the top of a stack (`s[end]`) can move into an empty slot",
                    "copy an element instead: `a ← x[i]`",
                );
                None
            }
        }
    }

    /// `s[end+1]` (true: a push) or `s[end]` (false: the top): the stack
    /// slots of NiLang.jl's `↔`, `←` and `→`; the stack's node.
    fn stack_slot<'t>(&self, node: Node<'t>) -> Option<(Node<'t>, bool)> {
        if node.kind() != "index" {
            return None;
        }
        let mut cursor = node.walk();
        let indices: Vec<Node<'_>> = node.children_by_field_name("index", &mut cursor).collect();
        let [end] = indices.as_slice() else {
            return None;
        };
        if end.kind() != "end_index" {
            return None;
        }
        let push = match (end.field("operator"), end.field("offset")) {
            (None, None) => false,
            (Some(op), Some(offset)) if self.text(op) == "+" && self.text(offset) == "1" => true,
            _ => return None,
        };
        Some((node.field("value")?, push))
    }

    /// `s[end]`, the top of the stack `s`, as the lowering writes it.
    fn top_of(&self, s: Expr, span: Span) -> Expr {
        let last = last_position(&s, 0, 1);
        Expr::new(
            ExprKind::Index {
                base: Box::new(s),
                indices: vec![IndexArg::Expr(last)],
            },
            span,
        )
    }

    /// `m, n ← size(A)` or `(a, b) ← (x, y)`: one allocation (or
    /// deallocation) per name, in a `begin` block.
    fn destructure(
        &mut self,
        names: Node<'_>,
        value: Node<'_>,
        allocate: bool,
        depth: u32,
    ) -> Option<Block> {
        let mut cursor = names.walk();
        let elements: Vec<Node<'_>> = names
            .named_children(&mut cursor)
            .filter(|c| c.kind() != "comment")
            .collect();
        if let Some(bad) = elements.iter().find(|e| e.kind() != "identifier") {
            self.not_allowed(
                *bad,
                "only plain names can be destructured",
                "write `a, b ← (x, y)` or `m, n ← size(A)` with fresh variable names",
            );
            return None;
        }
        let names: Vec<Ident> = elements.iter().map(|e| self.ident(*e)).collect();
        let values: Vec<Expr> = match value.kind() {
            "identifier" if self.tuple_arity(self.text(value)).is_some() => {
                let tuple = self.text(value).to_string();
                let arity = self.tuple_arity(&tuple).unwrap_or_default();
                if arity != names.len() {
                    self.not_allowed(
                        value,
                        format!(
                            "{} names but the tuple `{tuple}` holds {arity} values",
                            names.len()
                        ),
                        "give as many names as the tuple holds values",
                    );
                    return None;
                }
                // Each value read gets a span of its own (the analysis
                // keys uses by span): empty, just after its name.
                names
                    .iter()
                    .enumerate()
                    .map(|(k, name)| {
                        let at = Span::new(name.span.end, name.span.end);
                        Expr::new(ExprKind::Var(tuple_element(&tuple, k + 1)), at)
                    })
                    .collect()
            }
            "tuple" => {
                let mut cursor = value.walk();
                let parts: Vec<Node<'_>> = value
                    .children_by_field_name("element", &mut cursor)
                    .collect();
                if parts.len() != names.len() {
                    self.not_allowed(
                        value,
                        format!("{} names but {} values", names.len(), parts.len()),
                        "give as many values as names",
                    );
                    return None;
                }
                parts.into_iter().map(|p| self.expr(p, depth + 1)).collect()
            }
            "call"
                if value
                    .field("function")
                    .is_some_and(|f| self.text(f) == "size") =>
            {
                let call = self.expr(value, depth + 1);
                let ExprKind::Call { callee, args, .. } = call.kind else {
                    return None;
                };
                let [array] = args.as_slice() else {
                    self.not_allowed(
                        value,
                        "destructuring takes `size(A)` of one array",
                        "write `m, n ← size(A)`",
                    );
                    return None;
                };
                (1..=names.len())
                    .map(|d| {
                        let dimension = Expr::new(ExprKind::Int(d.to_string()), callee.span);
                        Expr::call("size", vec![array.clone(), dimension], call.span)
                    })
                    .collect()
            }
            _ => {
                self.not_allowed(
                    value,
                    "destructuring takes a tuple of values or `size(A)`",
                    "write `a, b ← (x, y)` or `m, n ← size(A)`",
                );
                return None;
            }
        };
        // A value of a tuple variable has an empty span after its name:
        // the statement reaches to the tuple's name, so that it holds it.
        let whole = self.span(value).end;
        let stmts = names
            .into_iter()
            .zip(values)
            .map(|(name, value)| {
                let end = if value.span.start == value.span.end {
                    whole
                } else {
                    value.span.end
                };
                let span = Span::new(name.span.start, end);
                ancilla_stmt(allocate, name, value, span)
            })
            .collect();
        Some(Block::new(stmts))
    }

    /// How many values the tuple variable `name` holds, if it is one.
    fn tuple_arity(&self, name: &str) -> Option<usize> {
        self.tuples
            .iter()
            .rev()
            .find(|(t, _)| t == name)
            .map(|(_, n)| *n)
    }

    /// `t ← (x, y)` (a new tuple variable) or `t → (x, y)` (its values
    /// checked and freed): one statement per value.
    fn tuple_variable(
        &mut self,
        name: Ident,
        tuple: Node<'_>,
        allocate: bool,
        depth: u32,
    ) -> Option<Block> {
        let mut cursor = tuple.walk();
        let parts: Vec<Node<'_>> = tuple
            .children_by_field_name("element", &mut cursor)
            .collect();
        let values: Vec<Expr> = parts.into_iter().map(|p| self.expr(p, depth + 1)).collect();
        if allocate {
            self.tuples.push((name.name.clone(), values.len()));
        } else if let Some(at) = self.tuples.iter().rposition(|(t, _)| *t == name.name) {
            // Freed: the name may be a plain variable again.
            let (_, arity) = self.tuples.remove(at);
            if arity != values.len() {
                self.not_allowed(
                    tuple,
                    format!(
                        "the tuple `{}` holds {arity} values, and {} are given",
                        name.name,
                        values.len()
                    ),
                    "give one value for each value of the tuple, in order",
                );
                return None;
            }
        }
        let mut stmts: Vec<Stmt> = values
            .into_iter()
            .enumerate()
            .map(|(k, value)| {
                // A span of its own (the analysis keys definitions by
                // span): empty, where its value ends.
                let element = Ident {
                    name: tuple_element(&name.name, k + 1),
                    span: Span::new(value.span.end, value.span.end),
                };
                let span = Span::new(name.span.start, value.span.end);
                ancilla_stmt(allocate, element, value, span)
            })
            .collect();
        if !allocate {
            // Freed last first, as the inverse of the allocation frees them.
            stmts.reverse();
        }
        Some(Block::new(stmts))
    }

    fn for_range(&mut self, node: Node<'_>, depth: u32) -> Option<Range> {
        if node.kind() == "reversed_range" {
            let mut range = self.range(node.field("range")?, depth)?;
            range.reversed = true;
            range.span = self.span(node);
            return Some(range);
        }
        self.range(node, depth)
    }

    fn range(&mut self, node: Node<'_>, depth: u32) -> Option<Range> {
        let start = self.expr(node.field("start")?, depth + 1);
        let second = self.expr(node.field("step_or_stop")?, depth + 1);
        let (step, stop) = match node.field("stop") {
            Some(stop) => (Some(second), self.expr(stop, depth + 1)),
            None => (None, second),
        };
        Some(Range {
            start,
            step,
            stop,
            reversed: false,
            span: self.span(node),
        })
    }

    fn expr(&mut self, node: Node<'_>, depth: u32) -> Expr {
        crate::stack::deep(|| self.expr_at(node, depth))
    }

    fn expr_at(&mut self, node: Node<'_>, depth: u32) -> Expr {
        let span = self.span(node);
        if node.is_error() || node.is_missing() || self.too_deep(node, depth) {
            return Expr::new(ExprKind::Error, span);
        }
        let d = depth + 1;
        let field = |name: &str| node.field(name);
        if let Some((ctor, element, end)) = crate::julia::type_spelling(node, self.text) {
            // `zero(Complex{T})`, `one(ULogarithmic<Fixed43>)`: the type
            // written where `zero` and `one` take a value of it. Each
            // expression made here gets a range of its own inside the
            // spelling (the analysis keys its types by range): the element
            // type's name, the constructor's name for `im`, the spelling
            // but its closing bracket for `zero(T)`, the whole spelling
            // (`Complex` and its `{T}`) for the value.
            let start = span.start;
            let after_ctor = start + ctor.len() as u32;
            let end = end as u32 - self.offset;
            let element_at = self.text
                [(after_ctor + self.offset) as usize..(end + self.offset) as usize]
                .find(element)
                .map_or(span, |k| {
                    let k = after_ctor + k as u32;
                    Span::new(k, k + element.len() as u32)
                });
            let element = Expr::new(ExprKind::Var(element.to_string()), element_at);
            let zero = Expr::call("zero", vec![element], Span::new(start, end - 1));
            let whole = Span::new(start, end);
            return if ctor == "Complex" {
                let im = Expr::new(
                    ExprKind::Var("im".to_string()),
                    Span::new(start, after_ctor),
                );
                Expr::new(
                    ExprKind::Binary {
                        op: BinaryOp::Mul,
                        lhs: Box::new(zero),
                        rhs: Box::new(im),
                    },
                    whole,
                )
            } else if ctor == "Tropical" {
                Expr::call("tropical", vec![zero], whole)
            } else {
                Expr::call("ulog", vec![zero], whole)
            };
        }
        let kind = match node.kind() {
            "identifier" => {
                let name = self.text(node);
                if self.tuple_arity(name).is_some() {
                    self.not_allowed(
                        node,
                        format!("the tuple `{name}` is used as one value"),
                        format!("read one of its values (`{name}[1]`), take it apart (`a, b ← {name}`) or free it (`{name} → (x, y)`)"),
                    );
                    return Expr::new(ExprKind::Error, span);
                }
                ExprKind::Var(name.to_string())
            }
            "integer" => ExprKind::Int(self.text(node).to_string()),
            "float" => ExprKind::Float(self.text(node).to_string()),
            // `3.0im` is `3.0 * im`.
            "imaginary" => {
                let text = self.text(node);
                let number = &text[..text.len() - 2];
                let digits = Span::new(span.start, span.end - 2);
                let unit = Span::new(span.end - 2, span.end);
                let literal = if number.contains(['.', 'e', 'E']) {
                    ExprKind::Float(number.to_string())
                } else {
                    ExprKind::Int(number.to_string())
                };
                ExprKind::Binary {
                    op: BinaryOp::Mul,
                    lhs: Box::new(Expr::new(literal, digits)),
                    rhs: Box::new(Expr::new(ExprKind::Var("im".to_string()), unit)),
                }
            }
            // `end` in an index: the last position of that dimension.
            "end_index" => match self.end.clone() {
                Some(last) => {
                    let last = Expr::new(last.kind, span);
                    match (field("operator"), field("offset")) {
                        (Some(op), Some(offset)) => ExprKind::Binary {
                            op: if self.text(op) == "+" {
                                BinaryOp::Add
                            } else {
                                BinaryOp::Sub
                            },
                            lhs: Box::new(last),
                            rhs: Box::new(self.expr(offset, d)),
                        },
                        _ => last.kind,
                    }
                }
                None => {
                    self.not_allowed(
                        node,
                        "`end` as a value is only meaningful inside an index",
                        "write `x[end]` for the last element of `x`, or `length(x)`",
                    );
                    ExprKind::Error
                }
            },
            "boolean" => ExprKind::Bool(self.text(node) == "true"),
            "string" => ExprKind::Str(self.text(node).to_string()),
            "call" => match self.call(node, depth) {
                Some(call) if crate::ast::Derivative::of(&call.callee.name).is_some() => {
                    self.not_allowed(
                        node,
                        "a derivative call `(∇f)(...)` is a statement, not a value",
                        "write the call on a line of its own",
                    );
                    ExprKind::Error
                }
                Some(call) if !call.inverted => ExprKind::Call {
                    callee: call.callee,
                    args: call.args,
                    kwargs: call.kwargs,
                    broadcast: false,
                },
                Some(_) => {
                    self.not_allowed(
                        node,
                        "an uncall `(~f)(...)` is a statement, not a value",
                        "write the uncall on a line of its own",
                    );
                    ExprKind::Error
                }
                None => ExprKind::Error,
            },
            "broadcast_call" => {
                let Some(function) = field("function") else {
                    return Expr::new(ExprKind::Error, span);
                };
                if function.kind() != "identifier" {
                    self.not_allowed(
                        function,
                        "only a named function can be broadcast",
                        "write `f.(x)` with `f` a function name",
                    );
                    return Expr::new(ExprKind::Error, span);
                }
                let callee = self.ident(function);
                let (args, kwargs) = match field("arguments") {
                    Some(a) => self.arguments(a, depth),
                    None => (Vec::new(), Vec::new()),
                };
                ExprKind::Call {
                    callee,
                    args,
                    kwargs,
                    broadcast: true,
                }
            }
            "index" => {
                let Some(base) = field("value") else {
                    return Expr::new(ExprKind::Error, span);
                };
                if base.kind() == "identifier"
                    && let Some(arity) = self.tuple_arity(self.text(base))
                {
                    // `t[k]` of a tuple variable: its k-th value.
                    let tuple = self.text(base).to_string();
                    let mut cursor = node.walk();
                    let indices: Vec<_> =
                        node.children_by_field_name("index", &mut cursor).collect();
                    let k = match indices.as_slice() {
                        [i] if i.kind() == "integer" => self.text(*i).parse::<usize>().ok(),
                        _ => None,
                    };
                    match k {
                        Some(k) if (1..=arity).contains(&k) => {
                            return Expr::new(ExprKind::Var(tuple_element(&tuple, k)), span);
                        }
                        _ => {
                            self.not_allowed(
                                node,
                                format!("the tuple `{tuple}` holds {arity} values, read by a literal position"),
                                format!("write `{tuple}[1]` ... `{tuple}[{arity}]`"),
                            );
                            return Expr::new(ExprKind::Error, span);
                        }
                    }
                }
                let base = Box::new(self.expr(base, d));
                let mut cursor = node.walk();
                let children: Vec<_> = node.children_by_field_name("index", &mut cursor).collect();
                let mut indices = Vec::new();
                let count = children.len();
                let outer = self.end.take();
                for (position, index) in children.into_iter().enumerate() {
                    // What `end` means in this index: `length(x)` for a
                    // vector, `size(x, d)` in the d-th of several.
                    self.end = Some(last_position(&base, position, count));
                    match index.kind() {
                        "colon" => indices.push(IndexArg::Colon(self.span(index))),
                        "range" => {
                            if let Some(r) = self.range(index, d) {
                                indices.push(IndexArg::Range(Box::new(r)));
                            }
                        }
                        _ => indices.push(IndexArg::Expr(self.expr(index, d))),
                    }
                }
                self.end = outer;
                ExprKind::Index { base, indices }
            }
            "field_access" => match (field("value"), field("field")) {
                (Some(base), Some(f)) => ExprKind::Field {
                    base: Box::new(self.expr(base, d)),
                    field: self.ident(f),
                },
                _ => ExprKind::Error,
            },
            "adjoint" => match field("value") {
                Some(v) => ExprKind::Adjoint(Box::new(self.expr(v, d))),
                None => ExprKind::Error,
            },
            "unary" => match (field("operator"), field("operand")) {
                (Some(op), Some(operand)) => ExprKind::Unary {
                    op: match self.text(op) {
                        "-" => UnaryOp::Neg,
                        "+" => UnaryOp::Plus,
                        _ => UnaryOp::Not,
                    },
                    operand: Box::new(self.expr(operand, d)),
                },
                _ => ExprKind::Error,
            },
            "binary" => match (field("left"), field("operator"), field("right")) {
                (Some(l), Some(op), Some(r)) => match BinaryOp::parse(self.text(op)) {
                    Some(op) => {
                        let spine = self.linear_spine(op, l);
                        let lhs = self.expr(l, if spine { depth } else { d });
                        // A chain cut off at the limit was reported once, on
                        // its left part; its last term is not reported again.
                        let rhs = if d > MAX_DEPTH && !spine && l.kind() == "binary" {
                            Expr::new(ExprKind::Error, self.span(r))
                        } else {
                            self.expr(r, d)
                        };
                        ExprKind::Binary {
                            op,
                            lhs: Box::new(lhs),
                            rhs: Box::new(rhs),
                        }
                    }
                    None => ExprKind::Error,
                },
                _ => ExprKind::Error,
            },
            "parenthesized" => match field("expression") {
                Some(e) => ExprKind::Paren(Box::new(self.expr(e, d))),
                None => ExprKind::Error,
            },
            "tuple" => {
                let mut cursor = node.walk();
                let children: Vec<_> = node
                    .named_children(&mut cursor)
                    .filter(|c| c.kind() != "comment")
                    .collect();
                ExprKind::Tuple(children.into_iter().map(|c| self.expr(c, d)).collect())
            }
            "macro_call"
                if let (Some(name), Some(arg)) = (field("name"), field("argument"))
                    && matches!(self.text(name), "@const" | "@skip") =>
            {
                // NiLang.jl's `@const e` and `@skip!(e)`: one E0006, and
                // `e` is checked as written without the macro.
                let arg = if self.text(name) == "@skip" {
                    if !(arg.kind() == "unary" && self.text(arg).starts_with('!')) {
                        return Expr::new(ExprKind::Error, span);
                    }
                    self.diagnostics.push(crate::julia::skip(span));
                    match arg.named_child(arg.named_child_count().saturating_sub(1) as u32) {
                        Some(operand) => operand,
                        None => return Expr::new(ExprKind::Error, span),
                    }
                } else {
                    self.diagnostics
                        .push(crate::julia::constant(span, self.span(arg)));
                    arg
                };
                return self.expr(arg, d);
            }
            "macro_call" => ExprKind::Macro {
                name: field("name")
                    .map(|n| self.text(n))
                    .unwrap_or("@")
                    .to_string(),
                arg: field("argument").map(|a| Box::new(self.expr(a, d))),
            },
            _ => ExprKind::Error,
        };
        Expr::new(kind, span)
    }
}

fn docstring_text(raw: &str) -> String {
    let inner = raw
        .strip_prefix("\"\"\"")
        .and_then(|s| s.strip_suffix("\"\"\""))
        .or_else(|| raw.strip_prefix('"').and_then(|s| s.strip_suffix('"')))
        .unwrap_or(raw);
    inner.trim().to_string()
}

/// The ranges an editor's "expand selection" steps through at `offset`:
/// the named nodes of the tree that contain it, innermost first, without
/// repeats (byte ranges of `text`).
pub fn enclosing_ranges(text: &str, offset: u32) -> Vec<(u32, u32)> {
    let Some(tree) = parse_tree(text) else {
        return Vec::new();
    };
    let offset = (offset as usize).min(text.len());
    let Some(mut node) = tree
        .root_node()
        .named_descendant_for_byte_range(offset, offset)
    else {
        return Vec::new();
    };
    let mut out: Vec<(u32, u32)> = Vec::new();
    loop {
        let range = (node.start_byte() as u32, node.end_byte() as u32);
        if out.last() != Some(&range) {
            out.push(range);
        }
        match node.parent() {
            Some(parent) => node = parent,
            None => break,
        }
    }
    out
}

/// A built-in instruction `name(args...)` the lowering writes.
fn instruction(name: &str, span: Span, args: Vec<Expr>) -> Call {
    Call {
        callee: Ident {
            name: name.to_string(),
            span,
        },
        inverted: false,
        args,
        kwargs: Vec::new(),
    }
}

/// `A[:, j]` (a column: axis 1, `j` fixed) or `A[i, :]` (a row: axis 2,
/// `i` fixed), as the collection of a `for x in` loop.
fn line_of_matrix(xs: &Expr) -> Option<(&Expr, u8, &Expr)> {
    let ExprKind::Index { base, indices } = &xs.kind else {
        return None;
    };
    match indices.as_slice() {
        [IndexArg::Colon(_), IndexArg::Expr(j)] => Some((base, 1, j)),
        [IndexArg::Expr(i), IndexArg::Colon(_)] => Some((base, 2, i)),
        _ => None,
    }
}

#[cfg(test)]
mod enclosing_tests {
    use super::enclosing_ranges;

    #[test]
    fn innermost_first_up_to_the_file() {
        let text = "function f(y::f64, x::f64)\n    y += sin(x)\nend\n";
        let at = text.find("x)\n").unwrap() as u32;
        let ranges: Vec<&str> = enclosing_ranges(text, at)
            .iter()
            .map(|&(a, b)| &text[a as usize..b as usize])
            .collect();
        assert_eq!(ranges[0], "x");
        assert!(ranges.contains(&"sin(x)"));
        assert!(ranges.contains(&"y += sin(x)"));
        assert_eq!(*ranges.last().unwrap(), text);
        assert!(ranges.windows(2).all(|w| w[1].len() >= w[0].len()));
    }
}

//! Completion: the names in scope at a point of a function, the
//! instructions, the project's functions, the pure functions and the
//! keywords, as plain items the language server converts.

use nilang_analysis::ast::*;
use nilang_analysis::builtins;
use nilang_analysis::db::{self, Db, Project, SourceFile};
use nilang_analysis::printer;
use nilang_analysis::resolve::DefKind;
use nilang_analysis::ty::{self, Ctor, Ty};

use crate::hover::{instruction_signature, instruction_summary};
use crate::navigation::function_at;

/// A name that can be written at some point of a function.
#[derive(Clone, PartialEq, Eq, Debug)]
pub struct ScopeName {
    pub name: String,
    pub kind: DefKind,
}

/// The variables in scope at the function-relative offset `rel`: parameters,
/// the loop variables of enclosing loops, and ancillas allocated earlier in
/// an enclosing block and not yet deallocated there.
pub fn names_in_scope(function: &Function, rel: u32) -> Vec<ScopeName> {
    let mut out = all_names_in_scope(function, rel);
    // The compiler's own names (`__x_k`, the position of `for x in xs`).
    out.retain(|n| !n.name.starts_with("__"));
    out
}

fn all_names_in_scope(function: &Function, rel: u32) -> Vec<ScopeName> {
    let mut out: Vec<ScopeName> = Vec::new();
    for (i, p) in function.params.iter().enumerate() {
        out.push(ScopeName {
            name: p.name.name.clone(),
            kind: DefKind::Param(i),
        });
    }
    for (i, p) in function.kwparams.iter().enumerate() {
        out.push(ScopeName {
            name: p.name.name.clone(),
            kind: DefKind::KwParam(i),
        });
    }
    fn walk(stmts: &[Stmt], rel: u32, out: &mut Vec<ScopeName>) {
        nilang_syntax::stack::deep(|| {
            for stmt in stmts {
                if stmt.span.start >= rel {
                    break;
                }
                let inside = stmt.span.contains(rel);
                match &stmt.kind {
                    StmtKind::Alloc { name, .. } if !inside => {
                        out.retain(|n| n.name != name.name);
                        out.push(ScopeName {
                            name: name.name.clone(),
                            kind: DefKind::Ancilla,
                        });
                    }
                    StmtKind::Dealloc { name, .. } if !inside => {
                        out.retain(|n| !(n.name == name.name && n.kind == DefKind::Ancilla));
                    }
                    StmtKind::If {
                        branches,
                        otherwise,
                    } if inside => {
                        for b in branches {
                            walk(&b.body.stmts, rel, out);
                        }
                        if let Some(b) = otherwise {
                            walk(&b.stmts, rel, out);
                        }
                    }
                    StmtKind::While { body, .. } if inside => walk(&body.stmts, rel, out),
                    StmtKind::For { var, body, .. } if inside => {
                        if var.span.end <= rel {
                            out.retain(|n| n.name != var.name);
                            out.push(ScopeName {
                                name: var.name.clone(),
                                kind: DefKind::LoopVar,
                            });
                        }
                        walk(&body.stmts, rel, out);
                    }
                    // `begin` and `@routine` open no scope: what they allocate
                    // stays visible after them.
                    StmtKind::Begin(body) => walk(&body.stmts, rel, out),
                    StmtKind::Routine(inner, _)
                    | StmtKind::Tape(inner)
                    | StmtKind::InvCheckOff(inner)
                    | StmtKind::InBounds(inner) => walk(std::slice::from_ref(inner), rel, out),
                    _ => {}
                }
            }
        })
    }
    walk(&function.body.stmts, rel, &mut out);
    out
}

/// Keywords and statement forms offered by completion, with a snippet body
/// in the LSP snippet syntax.
pub const KEYWORD_SNIPPETS: &[(&str, &str)] = &[
    ("function", "function ${1:name}(${2})\n\t$0\nend"),
    ("if", "if (${1:pre}, ${2:~})\n\t$0\nend"),
    ("while", "while (${1:pre}, ${2:post})\n\t$0\nend"),
    ("for", "for ${1:i} = ${2:1}:${3:n}\n\t$0\nend"),
    ("begin", "begin\n\t$0\nend"),
    ("@routine", "@routine begin\n\t$0\nend"),
    ("@store", "@store @routine begin\n\t$0\nend"),
    ("~@routine", "~@routine"),
    ("@safe", "@safe $0"),
    ("@invcheckoff", "@invcheckoff $0"),
    ("@inbounds", "@inbounds $0"),
    ("elseif", "elseif (${1:pre}, ${2:~})"),
    ("else", "else"),
    ("end", "end"),
];

/// What a completion item is.
#[derive(Clone, Copy, PartialEq, Eq, Debug)]
pub enum CompletionKind {
    /// A keyword or statement form (with a snippet).
    Keyword,
    /// A parameter, ancilla or loop variable in scope.
    Variable,
    /// An instruction, a project function or a pure function.
    Function,
    /// A field of the value before the `.`.
    Field,
    /// A module (or a part of a module's path) after `using` / `import`.
    Module,
}

/// One completion item.
#[derive(Clone, PartialEq, Eq, Debug)]
pub struct CompletionItem {
    pub label: String,
    pub kind: CompletionKind,
    /// One line shown beside the label (a signature, what a name is).
    pub detail: Option<String>,
    /// Plain text shown with the item (what an instruction does).
    pub documentation: Option<String>,
    /// For keywords: the text to insert, in the LSP snippet syntax
    /// ([`KEYWORD_SNIPPETS`]), for editors that support snippets.
    pub snippet: Option<String>,
}

impl CompletionItem {
    fn keyword(label: &str, snippet: &str) -> CompletionItem {
        CompletionItem {
            label: label.to_string(),
            kind: CompletionKind::Keyword,
            detail: None,
            documentation: None,
            snippet: Some(snippet.to_string()),
        }
    }

    fn function(label: impl Into<String>, detail: Option<String>) -> CompletionItem {
        CompletionItem {
            label: label.into(),
            kind: CompletionKind::Function,
            detail,
            documentation: None,
            snippet: None,
        }
    }
}

/// What a kind of local name is called in completion details and symbols.
pub(crate) fn def_kind_name(kind: &DefKind) -> &'static str {
    match kind {
        DefKind::Param(_) => "parameter",
        DefKind::KwParam(_) => "keyword parameter",
        DefKind::Ancilla => "ancilla",
        DefKind::LoopVar => "loop variable",
    }
}

/// The most items one completion answer holds; more makes it incomplete.
pub const MAX_COMPLETIONS: usize = 200;

/// The completion items at the byte `offset` of `file` whose labels start
/// with the word before the cursor (ignoring case), at most
/// [`MAX_COMPLETIONS`], and whether some were left out. After `x.` they are
/// the fields of `x`'s type.
pub fn completions(
    db: &dyn Db,
    project: Project,
    file: SourceFile,
    offset: u32,
) -> (Vec<CompletionItem>, bool) {
    let text = file.text(db);
    let offset = (offset as usize).min(text.len());
    let offset = (0..=offset)
        .rev()
        .find(|&i| text.is_char_boundary(i))
        .unwrap_or(0);
    let before = &text[..offset];
    let word_start = name_start(before).unwrap_or(offset);
    let prefix = before[word_start..].to_lowercase();
    let line = &before[before.rfind('\n').map_or(0, |i| i + 1)..word_start];
    let items = if let Some(items) = import_items(db, project, file, line) {
        items
    } else {
        match before[..word_start].strip_suffix('.') {
            Some(base) => field_items(db, project, file, base, word_start as u32),
            None => all_items(db, project, file, offset as u32),
        }
    };
    let mut matching: Vec<CompletionItem> = items
        .into_iter()
        .filter(|i| i.label.to_lowercase().starts_with(&prefix))
        .collect();
    let incomplete = matching.len() > MAX_COMPLETIONS;
    matching.truncate(MAX_COMPLETIONS);
    (matching, incomplete)
}

/// In a `using` or `import` line (`line` is its text up to the word being
/// typed): the next part of a module path, or after `import M:` the
/// functions of `M`. `None` elsewhere.
fn import_items(
    db: &dyn Db,
    project: Project,
    file: SourceFile,
    line: &str,
) -> Option<Vec<CompletionItem>> {
    let trimmed = line.trim_start();
    let rest = trimmed
        .strip_prefix("using ")
        .or_else(|| trimmed.strip_prefix("import "))?
        .trim_start();
    let registry = db::module_registry(db, project);
    let own = db::module_path(db, project, file);
    if let Some((module, names)) = rest.split_once(':') {
        // After `import M:`: the functions of M not already listed.
        let listed: Vec<&str> = names.split(',').map(str::trim).collect();
        let mut items: Vec<CompletionItem> = registry
            .modules
            .get(module.trim())?
            .iter()
            .flat_map(|m| m.functions.iter())
            .filter(|f| !listed.contains(&f.as_str()))
            .map(|f| CompletionItem::function(f.clone(), None))
            .collect();
        items.sort_by(|a, b| a.label.cmp(&b.label));
        items.dedup();
        return Some(items);
    }
    // The module path typed so far, up to its last `.`.
    let typed = rest.rsplit_once('.').map_or("", |(p, _)| p);
    let mut parts: Vec<String> = registry
        .paths()
        .into_iter()
        .filter(|p| *p != own)
        .filter_map(|p| {
            let tail = if typed.is_empty() {
                p
            } else {
                p.strip_prefix(typed)?.strip_prefix('.')?
            };
            Some(tail.split('.').next()?.to_string())
        })
        .collect();
    parts.sort();
    parts.dedup();
    Some(
        parts
            .into_iter()
            .map(|label| CompletionItem {
                label,
                kind: CompletionKind::Module,
                detail: None,
                documentation: None,
                snippet: None,
            })
            .collect(),
    )
}

/// Where the name that `text` ends with starts; `None` when it does not
/// end with one.
pub(crate) fn name_start(text: &str) -> Option<usize> {
    text.char_indices()
        .rev()
        .take_while(|(_, c)| is_name_char(*c))
        .last()
        .map(|(i, _)| i)
}

/// Whether `c` can be part of a name (`out!`, `θ2`).
fn is_name_char(c: char) -> bool {
    c.is_alphanumeric() || c == '_' || c == '!'
}

/// The fields of the place that `base` (the text before the `.`) ends
/// with: a name in scope followed by `.field`s and indexing.
fn field_items(
    db: &dyn Db,
    project: Project,
    file: SourceFile,
    base: &str,
    offset: u32,
) -> Vec<CompletionItem> {
    // `ps[i].a.` -> [("ps", 1), ("a", 0)]: each name and how many times
    // it is indexed.
    let mut chain: Vec<(String, usize)> = Vec::new();
    let mut rest = base;
    loop {
        let mut indexed = 0;
        while let Some(inner) = rest.strip_suffix(']') {
            indexed += 1;
            let mut depth = 1;
            let mut cut = None;
            for (i, c) in inner.char_indices().rev() {
                match c {
                    ']' => depth += 1,
                    '[' => {
                        depth -= 1;
                        if depth == 0 {
                            cut = Some(i);
                            break;
                        }
                    }
                    _ => {}
                }
            }
            match cut {
                Some(i) => rest = &inner[..i],
                None => return Vec::new(),
            }
        }
        let Some(start) = name_start(rest) else {
            return Vec::new();
        };
        chain.push((rest[start..].to_string(), indexed));
        match rest[..start].strip_suffix('.') {
            Some(r) => rest = r,
            None => break,
        }
    }
    chain.reverse();
    let Some(f) = function_at(db, project, file, offset) else {
        return Vec::new();
    };
    let rel = offset.saturating_sub(db::function_offset(db, f));
    let resolution = db::resolve_function(db, f);
    let defs = &db::function_types(db, f).defs;
    let Some(i) = resolution
        .defs
        .iter()
        .rposition(|d| d.name == chain[0].0 && d.span.start <= rel)
    else {
        return Vec::new();
    };
    // Indexing gives the element type.
    let element = |t: Ty, times: usize| {
        (0..times).fold(t, |t, _| match t {
            Ty::Slice(inner) => *inner,
            Ty::Constructed(Ctor::Vec | Ctor::Matrix, a) if a.len() == 1 => a[0].clone(),
            _ => Ty::Unknown,
        })
    };
    let mut ty = element(defs.get(i).cloned().unwrap_or(Ty::Unknown), chain[0].1);
    for (field, indexed) in &chain[1..] {
        ty = element(ty::field_type(&ty, field), *indexed);
    }
    ty::fields_of(&ty)
        .into_iter()
        .map(|(name, t)| CompletionItem {
            label: name,
            kind: CompletionKind::Field,
            detail: Some(t.display()),
            documentation: None,
            snippet: None,
        })
        .collect()
}

/// Every item at a point of `file`, before filtering.
fn all_items(db: &dyn Db, project: Project, file: SourceFile, offset: u32) -> Vec<CompletionItem> {
    let mut items = Vec::new();
    let Some(f) = function_at(db, project, file, offset) else {
        items.extend(
            KEYWORD_SNIPPETS
                .iter()
                .filter(|(k, _)| *k == "function")
                .map(|(k, body)| CompletionItem::keyword(k, body)),
        );
        return items;
    };
    if let Some(ast) = db::function_ast(db, f) {
        let rel = offset.saturating_sub(db::function_offset(db, f));
        for name in names_in_scope(&ast, rel) {
            items.push(CompletionItem {
                label: name.name,
                kind: CompletionKind::Variable,
                detail: Some(def_kind_name(&name.kind).to_string()),
                documentation: None,
                snippet: None,
            });
        }
    }
    for instruction in builtins::INSTRUCTIONS {
        items.push(CompletionItem {
            documentation: Some(instruction_summary(instruction)),
            ..CompletionItem::function(instruction.name, Some(instruction_signature(instruction)))
        });
    }
    for name in db::function_names(db, project) {
        let detail = db::lookup_function(db, project, &name)
            .and_then(|g| db::function_ast(db, g))
            .map(|ast| printer::print_signature(&ast));
        items.push(CompletionItem::function(name, detail));
    }
    // Other packages' functions the file imports, by the names it calls
    // them by.
    let mut imported: Vec<(&String, &String)> =
        db::file_scope(db, project, file).names.iter().collect();
    imported.sort();
    for (name, qualified) in imported {
        let detail = db::lookup_function(db, project, qualified)
            .and_then(|g| db::function_ast(db, g))
            .map(|ast| printer::print_signature(&ast));
        items.push(CompletionItem::function(name.clone(), detail));
    }
    for name in builtins::PureFn::ALL.map(builtins::PureFn::name) {
        items.push(CompletionItem::function(
            name,
            Some("pure function (expressions only)".to_string()),
        ));
    }
    items.extend(
        KEYWORD_SNIPPETS
            .iter()
            .filter(|(k, _)| *k != "function")
            .map(|(k, body)| CompletionItem::keyword(k, body)),
    );
    items
}

//! Quick fixes: the edits that the help lines of some diagnostics describe.
//!
//! Each fix is computed from the file's own diagnostics (the same list an
//! editor shows) and the tree, never from the message text: E0204 (`y = e`
//! becomes `y += e`), E0205 (`y *= e` accumulates the product into a new
//! ancilla), E0210 and W0203 (a name read twice: `abs2(x)` for `x * x`, or a
//! copy through an ancilla), E0406 (the missing `~@routine` at the end of
//! the block), E0101 (allocate the undefined name) and E0102 (`using` the
//! library module that defines the name, or the function with the closest
//! name). A diagnostic that carries its own suggestion (the
//! NiLang.jl spellings, E0006 and some E0102 and E0602) offers that edit.

use nilang_analysis::ast::{Span, StmtKind};
use nilang_analysis::builtins;
use nilang_analysis::db::{self, Db, Project, SourceFile};
use nilang_analysis::diagnostics::Diagnostic;

use crate::navigation::{function_at, statement_at};

/// One quick fix: a title, the diagnostic it answers, and its edits to the
/// file (absolute spans of the text before the fix; they never overlap).
#[derive(Clone, PartialEq, Eq, Debug)]
pub struct Fix {
    pub title: String,
    pub diagnostic: Diagnostic,
    pub edits: Vec<(Span, String)>,
}

/// The quick fixes for the diagnostics of `file` on the lines of `range`
/// (a cursor anywhere on a diagnostic's line offers its fixes).
pub fn fixes(db: &dyn Db, project: Project, file: SourceFile, range: Span) -> Vec<Fix> {
    let text = file.text(db);
    let clamp = |o: u32| (o as usize).min(text.len());
    let first = text[..clamp(range.start)].rfind('\n').map_or(0, |i| i + 1) as u32;
    let last = text[clamp(range.end)..]
        .find('\n')
        .map_or(text.len(), |i| clamp(range.end) + i) as u32;
    let mut out = Vec::new();
    for d in crate::file_diagnostics(db, project, file) {
        let span = d.primary.span;
        if span.end < first || span.start > last {
            continue;
        }
        let cx = Cx {
            db,
            project,
            file,
            text,
            d,
        };
        let found: Vec<(String, Vec<(Span, String)>)> = match d.code {
            // The diagnostic carries its own edit (NiLang.jl spellings).
            _ if d.suggestion.is_some() => cx.suggested().into_iter().collect(),
            "E0204" => cx.accumulate().into_iter().collect(),
            "E0205" => cx.product_into_ancilla().into_iter().collect(),
            "E0210" | "W0203" => cx.shared_read(),
            "E0406" => cx.close_routine().into_iter().collect(),
            "E0101" => cx.allocate().into_iter().collect(),
            "E0102" => {
                let mut fixes = cx.import_module();
                fixes.extend(cx.closest_function());
                fixes
            }
            _ => Vec::new(),
        };
        out.extend(found.into_iter().map(|(title, edits)| Fix {
            title,
            diagnostic: d.clone(),
            edits,
        }));
    }
    out
}

struct Cx<'a> {
    db: &'a dyn Db,
    project: Project,
    file: SourceFile,
    text: &'a str,
    d: &'a Diagnostic,
}

impl Cx<'_> {
    /// The diagnostic's own suggestion as a fix.
    fn suggested(&self) -> Option<(String, Vec<(Span, String)>)> {
        let s = self.d.suggestion.as_ref()?;
        let title = if s.replacement.is_empty() {
            format!("Remove `{}`", self.slice(s.span).trim())
        } else {
            format!("Write `{}`", s.replacement)
        };
        Some((title, vec![(s.span, s.replacement.clone())]))
    }

    fn slice(&self, span: Span) -> &str {
        self.text
            .get(span.start as usize..span.end as usize)
            .unwrap_or_default()
    }

    /// The line holding `offset`: its start, its end (before the line
    /// break) and its indentation.
    fn line(&self, offset: u32) -> (u32, u32, String) {
        let at = (offset as usize).min(self.text.len());
        let start = self.text[..at].rfind('\n').map_or(0, |i| i + 1);
        let end = self.text[at..]
            .find('\n')
            .map_or(self.text.len(), |i| at + i);
        let line = &self.text[start..end];
        let indent: String = line.chars().take_while(|c| c.is_whitespace()).collect();
        let end = if self.text[..end].ends_with('\r') {
            end - 1
        } else {
            end
        };
        (start as u32, end as u32, indent)
    }

    /// The statement the diagnostic is in (its absolute span) and the
    /// absolute spans of its block's statements. The statement's own
    /// spans are relative to the function, which starts at the returned
    /// offset.
    fn statement(&self) -> Option<(StmtKind, Span, Vec<Span>, u32)> {
        let at = self.d.primary.span.start;
        let f = function_at(self.db, self.project, self.file, at)?;
        let offset = db::function_offset(self.db, f);
        let ast = db::function_ast(self.db, f)?;
        let (block, i) = statement_at(&ast, at.checked_sub(offset)?)?;
        let spans = block.iter().map(|s| s.span.shift(offset)).collect();
        Some((
            block[i].kind.clone(),
            block[i].span.shift(offset),
            spans,
            offset,
        ))
    }

    /// A name not used in the file yet, from `base`.
    fn fresh(&self, base: &str) -> String {
        let base: String = base
            .chars()
            .map(|c| {
                if c.is_alphanumeric() || c == '_' {
                    c
                } else {
                    '_'
                }
            })
            .collect();
        let base = base.trim_matches('_');
        let base = if base.is_empty() { "t" } else { base };
        (0..)
            .map(|n| {
                if n == 0 {
                    base.to_string()
                } else {
                    format!("{base}{n}")
                }
            })
            .find(|name| !self.text.contains(name.as_str()))
            .unwrap_or_else(|| base.to_string())
    }

    /// E0204: `y = e` becomes `y += e`.
    fn accumulate(&self) -> Option<(String, Vec<(Span, String)>)> {
        let (StmtKind::Instr { op_span, .. }, _, _, offset) = self.statement()? else {
            return None;
        };
        Some((
            "Accumulate instead: `+=` (the place must hold zero first)".to_string(),
            vec![(op_span.shift(offset), "+=".to_string())],
        ))
    }

    /// E0205: `y *= e` becomes a new ancilla holding the product.
    fn product_into_ancilla(&self) -> Option<(String, Vec<(Span, String)>)> {
        let (StmtKind::Instr { target, value, .. }, span, _, offset) = self.statement()? else {
            return None;
        };
        let place = self.slice(target.span.shift(offset)).to_string();
        let factor = self.slice(value.span.shift(offset)).to_string();
        let (_, _, indent) = self.line(span.start);
        let name = self.fresh(&format!("{place}_times"));
        Some((
            format!("Accumulate the product into a new ancilla `{name}`"),
            vec![(
                span,
                format!("{name} ← zero({place})\n{indent}{name} += {place} * ({factor})"),
            )],
        ))
    }

    /// E0210 / W0203: a name read twice by one instruction.
    fn shared_read(&self) -> Vec<(String, Vec<(Span, String)>)> {
        let mut out = Vec::new();
        let second = self.d.primary.span;
        let Some(first) = self.d.secondary.first().map(|l| l.span) else {
            return out;
        };
        let name = self.slice(second).to_string();
        if name.is_empty() || self.slice(first) != name {
            return out;
        }
        let between = self.slice(Span::new(first.end, second.start));
        if first.end <= second.start && between.trim() == "*" {
            out.push((
                format!("Square with `abs2({name})`"),
                vec![(Span::new(first.start, second.end), format!("abs2({name})"))],
            ));
        }
        let Some((_, span, _, _)) = self.statement() else {
            return out;
        };
        let (line_start, line_end, indent) = self.line(span.start);
        if span.end > line_end {
            // A statement over several lines: no place for the copy lines.
            return out;
        }
        let copy = self.fresh(&format!("{name}_copy"));
        out.push((
            format!("Read `{name}` the second time through a copy `{copy}`"),
            vec![
                (
                    Span::new(line_start, line_start),
                    format!("{indent}{copy} ← zero({name})\n{indent}{copy} += {name}\n"),
                ),
                (second, copy.clone()),
                (
                    Span::new(line_end, line_end),
                    format!("\n{indent}{copy} -= {name}\n{indent}{copy} → zero({name})"),
                ),
            ],
        ));
        out
    }

    /// E0406: `~@routine` after the last statement of the routine's block.
    fn close_routine(&self) -> Option<(String, Vec<(Span, String)>)> {
        let (_, span, block, _) = self.statement()?;
        let last = *block.last()?;
        let (_, _, indent) = self.line(span.start);
        Some((
            "Uncompute it: add `~@routine` at the end of the block".to_string(),
            vec![(
                Span::new(last.end, last.end),
                format!("\n{indent}~@routine"),
            )],
        ))
    }

    /// E0101: allocate the name as an ancilla before the statement.
    fn allocate(&self) -> Option<(String, Vec<(Span, String)>)> {
        let name = self.slice(self.d.primary.span).to_string();
        // `k!=0`: the name is a misread `!=` (E0006 there), not a variable
        // to allocate.
        let at = self.d.primary.span.start;
        if crate::file_diagnostics(self.db, self.project, self.file)
            .iter()
            .any(|d| d.code == "E0006" && d.primary.span.start == at)
        {
            return None;
        }
        let (_, span, _, _) = self.statement()?;
        let (line_start, _, indent) = self.line(span.start);
        let f = function_at(self.db, self.project, self.file, span.start)?;
        let ast = db::function_ast(self.db, f)?;
        let zero = match ast.generics.first() {
            Some(g) => format!("zero({})", g.name.name),
            None => "0.0".to_string(),
        };
        Some((
            format!("Allocate `{name}` here: `{name} ← {zero}`"),
            vec![(
                Span::new(line_start, line_start),
                format!("{indent}{name} ← {zero}\n"),
            )],
        ))
    }

    /// E0102: the function or instruction with the closest name.
    /// `using M` for each library module that defines the unknown name,
    /// after the file's last import (or at its top).
    fn import_module(&self) -> Vec<(String, Vec<(Span, String)>)> {
        let name = self.slice(self.d.primary.span);
        let at = db::parse_file(self.db, self.file)
            .imports
            .iter()
            .map(|i| i.span.end)
            .max();
        db::module_registry(self.db, self.project)
            .defining(name)
            .into_iter()
            .map(|m| {
                let edit = match at {
                    Some(end) => (Span::new(end, end), format!("\nusing {m}")),
                    None => (Span::new(0, 0), format!("using {m}\n\n")),
                };
                (format!("Add `using {m}`"), vec![edit])
            })
            .collect()
    }

    fn closest_function(&self) -> Option<(String, Vec<(Span, String)>)> {
        let name = self.slice(self.d.primary.span);
        // The candidates of the resolver's suggestion, in its order.
        let mut candidates = db::function_names(self.db, self.project);
        candidates.extend(builtins::INSTRUCTIONS.iter().map(|i| i.name.to_string()));
        let best = builtins::closest(name, candidates.iter().map(String::as_str))?;
        Some((
            format!("Change to `{best}`"),
            vec![(self.d.primary.span, best.to_string())],
        ))
    }
}

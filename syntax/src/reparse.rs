//! Incremental parsing: the next version of a file parsed from the previous
//! one.
//!
//! A [`Reparser`] keeps the last text it parsed, its tree-sitter tree and the
//! lowered functions. Given the next text it finds the edited byte range (the
//! common prefix and suffix of the two texts), tells the old tree of the edit
//! and lets tree-sitter reuse every subtree the edit did not touch. Lowering
//! is then skipped for each function whose text is unchanged: a function's
//! tree has spans relative to its own first byte, so the same text lowers to
//! the same value wherever it moved to.
//!
//! The result is the one [`crate::parser::parse`] gives for the same text:
//! `tests/reparse.rs` compares the two after each of thousands of random
//! edits, most of which leave syntax errors behind, so tree-sitter's error
//! recovery is covered too. Only functions without a syntax error are
//! remembered: recovery inside a function may depend on what follows it, so
//! the text of a broken function does not determine its tree.

use std::hash::BuildHasher;
use std::sync::Arc;

use rustc_hash::{FxBuildHasher, FxHashMap};
use tree_sitter::{InputEdit, Point, Tree};

use crate::ast::{Import, StructDef};
use crate::diagnostics::Diagnostic;
use crate::parser::{self, Item, LoweredFunction, ParsedFile};

/// Parses successive versions of one file.
#[derive(Default)]
pub struct Reparser {
    last: Option<Last>,
}

struct Last {
    text: String,
    /// The tree of `text`, or of an earlier version told of every edit
    /// since (`Tree::edit`): an edit inside one function does not reparse
    /// the file, so the tree may lag behind until an edit that does.
    tree: Tree,
    /// The file's top-level function nodes in order, with their lowering.
    functions: Vec<Remembered>,
    /// Indices into `functions` of the ones without a syntax error, by the
    /// hash of their text.
    by_hash: FxHashMap<u64, usize>,
    /// The file's structs and their lowering diagnostics, and its imports
    /// (absolute spans), and where the last struct or import ends.
    structs: Vec<Arc<StructDef>>,
    struct_diagnostics: Vec<Diagnostic>,
    imports: Vec<Import>,
    structs_end: usize,
    /// No syntax error anywhere in the file.
    clean: bool,
}

struct Remembered {
    /// Where the function's text is in `Last::text`.
    start: usize,
    end: usize,
    lowered: LoweredFunction,
}

/// What the last call did, for tests and benchmarks.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct ReparseStats {
    /// The previous version was reused (its tree, or all of it but one
    /// function).
    pub incremental: bool,
    /// Only the edited function's text was parsed (see [`Reparser`]).
    pub local: bool,
    /// Functions lowered afresh and recalled unchanged.
    pub lowered: usize,
    pub recalled: usize,
}

impl Reparser {
    pub fn new() -> Reparser {
        Reparser::default()
    }

    /// Parses `text`, the next version of the file this reparser has seen.
    /// Equal to `parser::parse(text)`.
    pub fn parse(&mut self, text: &str) -> ParsedFile {
        self.parse_with_stats(text).0
    }

    /// [`Reparser::parse`], with what it reused.
    pub fn parse_with_stats(&mut self, text: &str) -> (ParsedFile, ReparseStats) {
        let mut stats = ReparseStats::default();
        if let Some(refused) = parser::refuse(text) {
            self.last = None;
            return (refused, stats);
        }
        let last = self.last.take();
        let mut tree = None;
        let mut last = match last {
            Some(mut last) => {
                let edit = edit_between(&last.text, text);
                last.tree.edit(&edit);
                if last.reparse_one_function(text, &edit) {
                    stats.incremental = true;
                    stats.local = true;
                    stats.lowered = 1;
                    stats.recalled = last.functions.len() - 1;
                    let parsed = last.parsed();
                    self.last = Some(last);
                    return (parsed, stats);
                }
                tree = parser::reparse_tree(text, &last.tree)
                    // Tree-sitter's error recovery can end differently
                    // when it reuses an old tree (seen: an error range
                    // starting at the file's first byte instead of at the
                    // function it is in). A text with an error is parsed
                    // afresh up to FRESH_ON_ERROR bytes, so that editors
                    // show the ranges `nilc check` does.
                    .filter(|t| !t.root_node().has_error() || text.len() > FRESH_ON_ERROR);
                stats.incremental = tree.is_some();
                Some(last)
            }
            None => None,
        };
        let Some(tree) = tree.or_else(|| parser::parse_tree(text)) else {
            return (parser::gave_up(), stats);
        };
        let mut functions = Vec::new();
        let mut by_hash = FxHashMap::default();
        let (parsed, struct_diagnostics) = parser::lower_file(text, &tree, |node| {
            let range = node.byte_range();
            let source = &text[range.clone()];
            // Only functions without a syntax error are recalled or kept.
            let key = (!node.has_error()).then(|| hash(source));
            let recalled = key.and_then(|key| {
                let last = last.as_mut()?;
                let &i = last.by_hash.get(&key)?;
                let r = &last.functions[i];
                (last.text[r.start..r.end] == *source).then(|| r.lowered.clone())
            });
            let lowered = match recalled {
                Some(lowered) => {
                    stats.recalled += 1;
                    lowered
                }
                None => {
                    stats.lowered += 1;
                    parser::lower_function(text, node)
                }
            };
            if let Some(key) = key {
                by_hash.insert(key, functions.len());
            }
            functions.push(Remembered {
                start: range.start,
                end: range.end,
                lowered: lowered.clone(),
            });
            lowered
        });
        drop(last);
        let root = tree.root_node();
        let mut structs_end = 0;
        let mut cursor = root.walk();
        for child in root.named_children(&mut cursor) {
            if matches!(
                child.kind(),
                "struct_definition" | "using_declaration" | "import_declaration"
            ) {
                structs_end = child.end_byte();
            }
        }
        drop(cursor);
        let clean = !root.has_error();
        self.last = Some(Last {
            text: text.to_owned(),
            tree,
            functions,
            by_hash,
            structs: parsed.structs.clone(),
            struct_diagnostics,
            imports: parsed.imports.clone(),
            structs_end,
            clean,
        });
        (parsed, stats)
    }
}

/// The size up to which a text with a syntax error is parsed afresh
/// rather than incrementally (a fresh parse of 256 KiB takes about 90 ms).
const FRESH_ON_ERROR: usize = 256 * 1024;

impl Last {
    /// The function-level reparse: when `edit` (already applied to the
    /// tree) lies inside one function of a file without syntax errors, and
    /// the function's new text parses on its own as one function without
    /// an error, only that text is parsed and lowered. The file is then
    /// the same run of items with one replaced: the grammar's file is a
    /// sequence of items, and the edit touches neither the function's first
    /// nor its last byte, so the tokens at its borders are the same. The
    /// tree is not reparsed; it keeps the edit for the next full reparse.
    /// Updates `self` to `text` and returns `true`, or leaves it for a full
    /// reparse and returns `false`.
    fn reparse_one_function(&mut self, text: &str, edit: &InputEdit) -> bool {
        if !self.clean || edit.start_byte < self.structs_end {
            return false;
        }
        let i = self.functions.partition_point(|f| f.end <= edit.start_byte);
        let Some(f) = self.functions.get(i) else {
            return false;
        };
        if !(f.start < edit.start_byte && edit.old_end_byte < f.end) {
            return false;
        }
        // Parsing the function afresh costs its length; tree-sitter's
        // incremental reparse costs about the number of top-level items.
        // A function that is most of its file is cheaper to reparse
        // incrementally.
        if f.end - f.start > (8 << 10).max(self.text.len() / 16) {
            return false;
        }
        let delta = edit.new_end_byte as isize - edit.old_end_byte as isize;
        let (start, end) = (f.start, (f.end as isize + delta) as usize);
        let source = &text[start..end];
        let Some(tree) = parser::parse_tree(source) else {
            return false;
        };
        let root = tree.root_node();
        let mut cursor = root.walk();
        let mut children = root.named_children(&mut cursor);
        let (Some(node), None) = (children.next(), children.next()) else {
            return false;
        };
        if root.has_error()
            || node.kind() != "function_definition"
            || node.byte_range() != (0..source.len())
        {
            return false;
        }
        let lowered = parser::lower_function(source, node);
        let old_key = hash(&self.text[f.start..f.end]);
        if self.by_hash.get(&old_key) == Some(&i) {
            self.by_hash.remove(&old_key);
        }
        self.by_hash.insert(hash(source), i);
        self.functions[i] = Remembered {
            start,
            end,
            lowered,
        };
        for f in &mut self.functions[i + 1..] {
            f.start = (f.start as isize + delta) as usize;
            f.end = (f.end as isize + delta) as usize;
        }
        self.text.replace_range(
            edit.start_byte..edit.old_end_byte,
            &text[edit.start_byte..edit.new_end_byte],
        );
        debug_assert_eq!(self.text, text);
        true
    }

    /// The parse of `self.text` from the remembered parts.
    fn parsed(&self) -> ParsedFile {
        let mut items = Vec::with_capacity(self.functions.len());
        let mut diagnostics = self.struct_diagnostics.clone();
        for f in &self.functions {
            let offset = f.start as u32;
            if let Some(function) = &f.lowered.function {
                items.push(Item {
                    function: function.clone(),
                    offset,
                });
            }
            diagnostics.extend(
                f.lowered
                    .diagnostics
                    .iter()
                    .map(|d| d.clone().shifted(offset)),
            );
        }
        diagnostics.sort_by_key(|d| (d.primary.span.start, d.code));
        ParsedFile {
            items,
            structs: self.structs.clone(),
            imports: self.imports.clone(),
            diagnostics,
        }
    }
}

fn hash(text: &str) -> u64 {
    FxBuildHasher.hash_one(text)
}

/// The edit that turns `old` into `new`: everything between their common
/// prefix and common suffix, widened to character boundaries.
fn edit_between(old: &str, new: &str) -> InputEdit {
    let (a, b) = (old.as_bytes(), new.as_bytes());
    let mut prefix = a.iter().zip(b).take_while(|(x, y)| x == y).count();
    while !new.is_char_boundary(prefix) || !old.is_char_boundary(prefix) {
        prefix -= 1;
    }
    let most = a.len().min(b.len()) - prefix;
    let mut suffix = a
        .iter()
        .rev()
        .zip(b.iter().rev())
        .take(most)
        .take_while(|(x, y)| x == y)
        .count();
    while !old.is_char_boundary(a.len() - suffix) {
        suffix -= 1;
    }
    let start_position = point_at(new, prefix);
    InputEdit {
        start_byte: prefix,
        old_end_byte: a.len() - suffix,
        new_end_byte: b.len() - suffix,
        start_position,
        old_end_position: point_after(start_position, &old[prefix..a.len() - suffix]),
        new_end_position: point_after(start_position, &new[prefix..b.len() - suffix]),
    }
}

/// Tree-sitter's point (row, byte column) of `offset`; rows end at `\n`.
fn point_at(text: &str, offset: usize) -> Point {
    point_after(Point::new(0, 0), &text[..offset])
}

fn point_after(start: Point, text: &str) -> Point {
    match text.rfind('\n') {
        None => Point::new(start.row, start.column + text.len()),
        Some(last) => Point::new(
            start.row + text.bytes().filter(|&b| b == b'\n').count(),
            text.len() - last - 1,
        ),
    }
}

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

use rustc_hash::{FxBuildHasher, FxHashMap};
use tree_sitter::{InputEdit, Point, Tree};

use crate::parser::{self, LoweredFunction, ParsedFile};

/// Parses successive versions of one file.
#[derive(Default)]
pub struct Reparser {
    last: Option<Last>,
}

struct Last {
    text: String,
    tree: Tree,
    /// Lowered functions by the hash of their text.
    functions: FxHashMap<u64, Remembered>,
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
    /// Tree-sitter reused the previous tree.
    pub incremental: bool,
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
        if let Some(last) = &last {
            let mut old = last.tree.clone();
            old.edit(&edit_between(&last.text, text));
            tree = parser::reparse_tree(text, &old);
            stats.incremental = tree.is_some();
        }
        let Some(tree) = tree.or_else(|| parser::parse_tree(text)) else {
            return (parser::gave_up(), stats);
        };
        let mut functions = FxHashMap::default();
        let parsed = parser::lower_file(text, &tree, |node| {
            let range = node.byte_range();
            let source = &text[range.clone()];
            // Only functions without a syntax error are recalled or kept.
            let key = (!node.has_error()).then(|| hash(source));
            let recalled = key.and_then(|key| {
                let last = last.as_ref()?;
                let r = last.functions.get(&key)?;
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
                functions.insert(
                    key,
                    Remembered {
                        start: range.start,
                        end: range.end,
                        lowered: lowered.clone(),
                    },
                );
            }
            lowered
        });
        self.last = Some(Last {
            text: text.to_owned(),
            tree,
            functions,
        });
        (parsed, stats)
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

//! Byte offsets (the compiler's spans) to LSP positions and back.
//!
//! LSP positions count lines and, within a line, code units of the encoding
//! agreed at initialization: UTF-16 by default, UTF-8 when the client offers
//! it. `.nil` files are full of non-ASCII (`←`, `⊻`, `π`), so the difference
//! matters. Out-of-range positions are clamped, never a panic.
//!
//! Conversions cost a binary search, not a scan of the line: for UTF-16,
//! each line keeps the characters whose UTF-16 length differs from their
//! UTF-8 length, with the difference accumulated before them, so that a
//! long line (a 700 KB one-line file) converts each position in
//! logarithmic time. That table is made for a line the first time a
//! position on it is converted, and the line starts are found with
//! `memchr`: an index is made for each keystroke (to apply the edit, then
//! for the diagnostics), and in a 10 MB file making every line's table up
//! front cost about 10 ms each time.

use nilang_ide::Span;
use std::cell::RefCell;
use std::collections::HashMap;
use std::rc::Rc;
use tower_lsp_server::ls_types::{Position, Range};

#[derive(Clone, Copy, PartialEq, Eq, Debug, Default)]
pub enum Encoding {
    Utf8,
    #[default]
    Utf16,
}

pub struct LineIndex<'a> {
    text: &'a str,
    /// Byte offset of the first byte of every line.
    starts: Vec<u32>,
    encoding: Encoding,
    /// For UTF-16, per line converted so far: its non-ASCII characters.
    wide: RefCell<HashMap<u32, Rc<[Wide]>>>,
}

/// A character whose UTF-8 and UTF-16 lengths differ, in its line.
#[derive(Clone, Copy, Debug)]
struct Wide {
    /// Byte offset in the line.
    byte: u32,
    /// UTF-16 column where it starts.
    column: u32,
    len8: u32,
    len16: u32,
}

impl<'a> LineIndex<'a> {
    /// Lines end at `\n`, `\r\n` or a lone `\r`, as LSP counts them.
    pub fn new(text: &'a str, encoding: Encoding) -> LineIndex<'a> {
        let bytes = text.as_bytes();
        let mut starts = vec![0];
        starts.extend(
            memchr::memchr2_iter(b'\n', b'\r', bytes)
                .filter(|&i| bytes[i] == b'\n' || bytes.get(i + 1) != Some(&b'\n'))
                .map(|i| i as u32 + 1),
        );
        LineIndex {
            text,
            starts,
            encoding,
            wide: RefCell::default(),
        }
    }

    /// The wide characters of `line` (none for an ASCII line), found the
    /// first time they are asked for.
    fn wide_chars(&self, line: usize) -> Rc<[Wide]> {
        if let Some(w) = self.wide.borrow().get(&(line as u32)) {
            return Rc::clone(w);
        }
        let start = self.starts[line] as usize;
        let end = self
            .starts
            .get(line + 1)
            .map_or(self.text.len(), |&s| s as usize);
        let slice = &self.text[start..end];
        let mut chars = Vec::new();
        if !slice.is_ascii() {
            let mut shrink = 0u32;
            for (i, c) in slice.char_indices() {
                let (len8, len16) = (c.len_utf8() as u32, c.len_utf16() as u32);
                if len8 != len16 {
                    chars.push(Wide {
                        byte: i as u32,
                        column: i as u32 - shrink,
                        len8,
                        len16,
                    });
                    shrink += len8 - len16;
                }
            }
        }
        let chars: Rc<[Wide]> = chars.into();
        self.wide
            .borrow_mut()
            .insert(line as u32, Rc::clone(&chars));
        chars
    }

    /// Code units from the start of `line` to the byte `rel` of it.
    fn units(&self, line: usize, rel: u32) -> u32 {
        if self.encoding == Encoding::Utf8 {
            return rel;
        }
        let wide = self.wide_chars(line);
        let before = wide.partition_point(|w| w.byte < rel);
        match before.checked_sub(1).map(|i| wide[i]) {
            // Every wide character before `rel` ends at or before it.
            Some(w) => w.column + w.len16 + (rel - w.byte - w.len8),
            None => rel,
        }
    }

    /// The text of line `line` without its line break.
    fn line_text(&self, line: usize) -> &'a str {
        let start = self.starts[line] as usize;
        let end = self
            .starts
            .get(line + 1)
            .map(|&s| s as usize - 1)
            .unwrap_or(self.text.len());
        let text = self.text.get(start..end).unwrap_or("");
        text.strip_suffix('\r').unwrap_or(text)
    }

    pub fn position(&self, offset: u32) -> Position {
        let mut offset = (offset as usize).min(self.text.len());
        while !self.text.is_char_boundary(offset) {
            offset -= 1;
        }
        let line = self.starts.partition_point(|&s| s as usize <= offset) - 1;
        let start = self.starts[line] as usize;
        Position::new(line as u32, self.units(line, (offset - start) as u32))
    }

    pub fn range(&self, span: Span) -> Range {
        Range::new(self.position(span.start), self.position(span.end))
    }

    /// The byte offset of a position, clamped to the end of its line (and of
    /// the text).
    pub fn offset(&self, position: Position) -> u32 {
        let line = position.line as usize;
        if line >= self.starts.len() {
            return self.text.len() as u32;
        }
        let start = self.starts[line];
        let text = self.line_text(line);
        let column = position.character;
        let rel = match self.encoding {
            Encoding::Utf8 => column,
            Encoding::Utf16 => {
                let wide = self.wide_chars(line);
                let before = wide.partition_point(|w| w.column < column);
                match before.checked_sub(1).map(|i| wide[i]) {
                    // Inside a character: the next one.
                    Some(w) if column < w.column + w.len16 => w.byte + w.len8,
                    Some(w) => w.byte + w.len8 + (column - w.column - w.len16),
                    None => column,
                }
            }
        };
        // Clamped to the line; a byte inside a character moves to its end.
        let mut rel = (rel as usize).min(text.len());
        while !text.is_char_boundary(rel) {
            rel += 1;
        }
        start + rel as u32
    }

    /// The position just after the last character.
    pub fn end(&self) -> Position {
        self.position(self.text.len() as u32)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_lone_carriage_return_is_a_line_break() {
        let text = "a\rbc\r\nd\ne";
        let index = LineIndex::new(text, Encoding::Utf16);
        assert_eq!(index.position(2), Position::new(1, 0), "b");
        assert_eq!(index.position(3), Position::new(1, 1), "c");
        assert_eq!(index.position(6), Position::new(2, 0), "d");
        assert_eq!(index.position(8), Position::new(3, 0), "e");
        assert_eq!(
            index.offset(Position::new(1, 5)),
            4,
            "clamped before `\r\n`"
        );
        assert_eq!(index.offset(Position::new(0, 3)), 1, "clamped before `\r`");
    }

    #[test]
    fn round_trips_in_both_encodings() {
        let text = "a ← b\r\n  x ⊻= 𝑦\nlast";
        for encoding in [Encoding::Utf8, Encoding::Utf16] {
            let index = LineIndex::new(text, encoding);
            for (offset, _) in text.char_indices() {
                let p = index.position(offset as u32);
                if text[offset..].starts_with('\n') {
                    continue; // after `\r`: both map to the end of the line
                }
                assert_eq!(
                    index.offset(p),
                    offset as u32,
                    "{encoding:?} {offset} {p:?}"
                );
            }
        }
        let utf16 = LineIndex::new(text, Encoding::Utf16);
        assert_eq!(
            utf16.position(text.find('b').unwrap() as u32),
            Position::new(0, 4)
        );
        let y = text.find('𝑦').unwrap() as u32;
        assert_eq!(
            utf16.position(y + 4),
            Position::new(1, 9),
            "a surrogate pair"
        );
        let utf8 = LineIndex::new(text, Encoding::Utf8);
        assert_eq!(
            utf8.position(text.find('b').unwrap() as u32),
            Position::new(0, 6)
        );
    }

    #[test]
    fn agrees_with_a_scan_on_every_offset_and_column() {
        let text = "a ← 𝑦 ⊻= b\r\nplain\n  π²+𝑥𝑥 ←\rlast ü";
        for encoding in [Encoding::Utf8, Encoding::Utf16] {
            let index = LineIndex::new(text, encoding);
            let unit = |c: char| match encoding {
                Encoding::Utf8 => c.len_utf8() as u32,
                Encoding::Utf16 => c.len_utf16() as u32,
            };
            for line in 0..index.starts.len() {
                let start = index.starts[line];
                let line_text = index.line_text(line);
                // Offsets: the scan's column.
                let mut column = 0;
                for (i, c) in line_text.char_indices() {
                    assert_eq!(
                        index.position(start + i as u32),
                        Position::new(line as u32, column),
                        "{encoding:?} line {line} byte {i}"
                    );
                    column += unit(c);
                }
                // Columns: the scan's offset (a column inside a character
                // goes to the next one; past the end, to the end).
                for target in 0..column + 3 {
                    let mut units = 0;
                    let mut expected = start + line_text.len() as u32;
                    for (i, c) in line_text.char_indices() {
                        if units >= target {
                            expected = start + i as u32;
                            break;
                        }
                        units += unit(c);
                    }
                    assert_eq!(
                        index.offset(Position::new(line as u32, target)),
                        expected,
                        "{encoding:?} line {line} column {target}"
                    );
                }
            }
        }
    }

    #[test]
    fn clamps_out_of_range() {
        let index = LineIndex::new("ab\ncd", Encoding::Utf16);
        assert_eq!(index.offset(Position::new(0, 99)), 2);
        assert_eq!(index.offset(Position::new(9, 0)), 5);
        assert_eq!(index.position(99), Position::new(1, 2));
        let index = LineIndex::new("←", Encoding::Utf16);
        assert_eq!(index.position(1), Position::new(0, 0), "inside a character");
        assert_eq!(index.end(), Position::new(0, 1));
    }
}

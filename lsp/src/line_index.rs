//! Byte offsets (the compiler's spans) to LSP positions and back.
//!
//! LSP positions count lines and, within a line, code units of the encoding
//! agreed at initialization: UTF-16 by default, UTF-8 when the client offers
//! it. `.nil` files are full of non-ASCII (`←`, `⊻`, `π`), so the difference
//! matters. Out-of-range positions are clamped, never a panic.

use nilang_ide::Span;
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
}

impl<'a> LineIndex<'a> {
    /// Lines end at `\n`, `\r\n` or a lone `\r`, as LSP counts them.
    pub fn new(text: &'a str, encoding: Encoding) -> LineIndex<'a> {
        let bytes = text.as_bytes();
        let mut starts = vec![0];
        starts.extend(
            bytes
                .iter()
                .enumerate()
                .filter(|&(i, &b)| b == b'\n' || b == b'\r' && bytes.get(i + 1) != Some(&b'\n'))
                .map(|(i, _)| i as u32 + 1),
        );
        LineIndex {
            text,
            starts,
            encoding,
        }
    }

    fn units(&self, s: &str) -> u32 {
        match self.encoding {
            Encoding::Utf8 => s.len() as u32,
            Encoding::Utf16 => s.chars().map(|c| c.len_utf16() as u32).sum(),
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
        Position::new(line as u32, self.units(&self.text[start..offset]))
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
        let mut units = 0;
        for (i, c) in self.line_text(line).char_indices() {
            if units >= position.character {
                return start + i as u32;
            }
            units += match self.encoding {
                Encoding::Utf8 => c.len_utf8() as u32,
                Encoding::Utf16 => c.len_utf16() as u32,
            };
        }
        start + self.line_text(line).len() as u32
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

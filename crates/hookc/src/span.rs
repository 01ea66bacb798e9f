//! Source files and byte spans: where every diagnostic points.
//!
//! Every input file is registered once in a [`SourceMap`] and gets a [`FileId`].
//! A [`Span`] is a half-open byte range in one file. Expressions embedded in a
//! YAML scalar or an XML attribute are parsed with an [`Origin`] that maps
//! offsets in the embedded text back to the file.

use std::fmt;

/// Identifies one registered source file.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct FileId(pub u32);

/// A half-open byte range `start..end` in one source file.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub struct Span {
    /// The file the range is in.
    pub file: FileId,
    /// First byte.
    pub start: u32,
    /// One past the last byte.
    pub end: u32,
}

impl Span {
    /// A span from byte offsets (saturating at `u32::MAX`; inputs are far smaller,
    /// see [`hookc_runtime::limits::MAX_INPUT_BYTES`]).
    pub fn new(file: FileId, start: usize, end: usize) -> Span {
        let start = u32::try_from(start).unwrap_or(u32::MAX);
        let end = u32::try_from(end).unwrap_or(u32::MAX).max(start);
        Span { file, start, end }
    }

    /// The smallest span covering both (same file assumed; `self`'s file wins).
    pub fn to(self, other: Span) -> Span {
        Span {
            file: self.file,
            start: self.start.min(other.start),
            end: self.end.max(other.end),
        }
    }

    /// Byte range as `usize`.
    pub fn range(self) -> std::ops::Range<usize> {
        self.start as usize..self.end as usize
    }
}

/// A value with the span it was read from.
#[derive(Debug, Clone, PartialEq)]
pub struct Spanned<T> {
    /// The value.
    pub value: T,
    /// Where it was written.
    pub span: Span,
}

impl<T> Spanned<T> {
    /// Pairs a value with its span.
    pub fn new(value: T, span: Span) -> Self {
        Spanned { value, span }
    }
}

/// How byte offsets inside an embedded text (an expression in a YAML scalar or
/// an XML attribute) map to offsets in the file.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Origin {
    /// The embedded text appears verbatim in the file starting at `base`:
    /// offset `i` in the text is byte `base + i` of `file`.
    Exact {
        /// The file.
        file: FileId,
        /// Byte offset of the text's first byte.
        base: u32,
    },
    /// The text was unescaped or folded on the way (quoted YAML with escapes,
    /// XML entities): every position maps to the whole scalar's span.
    Whole(Span),
}

impl Origin {
    /// The file span for the byte range `start..end` of the embedded text.
    pub fn span(self, start: usize, end: usize) -> Span {
        match self {
            Origin::Exact { file, base } => {
                Span::new(file, base as usize + start, base as usize + end)
            }
            Origin::Whole(span) => span,
        }
    }

    /// An origin for text that starts at byte 0 of its own file (standalone
    /// expressions such as `hookc eval --expr`).
    pub fn file_start(file: FileId) -> Origin {
        Origin::Exact { file, base: 0 }
    }
}

/// One registered source.
#[derive(Debug, Clone)]
pub struct SourceText {
    name: String,
    text: String,
    line_starts: Vec<usize>,
}

impl SourceText {
    /// The name as given (a path relative to where hookc ran, or `<expr>`).
    pub fn name(&self) -> &str {
        &self.name
    }

    /// The full text.
    pub fn text(&self) -> &str {
        &self.text
    }
}

/// All sources of one compilation.
#[derive(Debug, Clone, Default)]
pub struct SourceMap {
    files: Vec<SourceText>,
}

impl SourceMap {
    /// An empty map.
    pub fn new() -> Self {
        SourceMap::default()
    }

    /// Registers a source and returns its id.
    pub fn add(&mut self, name: impl Into<String>, text: impl Into<String>) -> FileId {
        let text = text.into();
        let line_starts = std::iter::once(0)
            .chain(text.match_indices('\n').map(|(i, _)| i + 1))
            .collect();
        let id = FileId(u32::try_from(self.files.len()).unwrap_or(u32::MAX));
        self.files.push(SourceText {
            name: name.into(),
            text,
            line_starts,
        });
        id
    }

    /// The file behind an id, if registered here.
    pub fn get(&self, id: FileId) -> Option<&SourceText> {
        self.files.get(id.0 as usize)
    }

    /// All files in registration order.
    pub fn files(&self) -> impl Iterator<Item = (FileId, &SourceText)> {
        self.files
            .iter()
            .enumerate()
            .map(|(i, f)| (FileId(u32::try_from(i).unwrap_or(u32::MAX)), f))
    }

    /// The file's name, or `<unknown>`.
    pub fn name(&self, id: FileId) -> &str {
        self.get(id).map_or("<unknown>", |f| f.name())
    }

    /// `file:line:col` of a span's start (just the file name if the offset
    /// is not in it).
    pub fn location(&self, span: Span) -> String {
        match self.line_col(span.file, span.start) {
            Some(lc) => format!("{}:{lc}", self.name(span.file)),
            None => self.name(span.file).to_owned(),
        }
    }

    /// 1-based line and column (in characters) of a byte offset.
    pub fn line_col(&self, file: FileId, offset: u32) -> Option<LineCol> {
        let f = self.get(file)?;
        let offset = (offset as usize).min(f.text.len());
        let line = f
            .line_starts
            .partition_point(|&s| s <= offset)
            .saturating_sub(1);
        let start = *f.line_starts.get(line)?;
        let column = f.text.get(start..offset).map_or(0, |s| s.chars().count()) + 1;
        Some(LineCol {
            line: line + 1,
            column,
        })
    }
}

/// A 1-based line and column.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct LineCol {
    /// Line, from 1.
    pub line: usize,
    /// Column in characters, from 1.
    pub column: usize,
}

impl fmt::Display for LineCol {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}:{}", self.line, self.column)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn line_col_counts_characters_from_one() {
        let mut map = SourceMap::new();
        let id = map.add("a", "ab\nçd\n");
        assert_eq!(map.line_col(id, 0), Some(LineCol { line: 1, column: 1 }));
        assert_eq!(map.line_col(id, 3), Some(LineCol { line: 2, column: 1 }));
        // 'ç' is two bytes: offset 5 is 'd', the second character.
        assert_eq!(map.line_col(id, 5), Some(LineCol { line: 2, column: 2 }));
        assert_eq!(map.line_col(FileId(9), 0), None);
    }

    #[test]
    fn origin_maps_exact_and_whole() {
        let f = FileId(0);
        let exact = Origin::Exact { file: f, base: 10 };
        assert_eq!(exact.span(2, 4), Span::new(f, 12, 14));
        let whole = Origin::Whole(Span::new(f, 3, 9));
        assert_eq!(whole.span(2, 4), Span::new(f, 3, 9));
    }
}

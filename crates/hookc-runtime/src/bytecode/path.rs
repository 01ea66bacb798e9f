//! Context paths (`error.headers['retry-after']`, `items[0]`) and their
//! interning.
//!
//! A path is a root name followed by field and index segments. Paths are
//! interned once per compilation in a [`PathTable`]; the IR and everything
//! after it refer to them by [`PathId`], so the runtime never re-parses one.

use std::collections::HashMap;
use std::fmt;

/// One step of a path.
#[derive(Debug, Clone, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum Segment {
    /// An object key: `.name` or `['any key']`.
    Field(String),
    /// A list index: `[0]`.
    Index(i64),
}

/// A root name and the segments after it.
///
/// Invariant: `root` is an identifier (the expression language's root names).
#[derive(Debug, Clone, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct Path {
    root: String,
    segments: Vec<Segment>,
}

impl Path {
    /// A path with only a root.
    pub fn root(name: impl Into<String>) -> Path {
        Path {
            root: name.into(),
            segments: Vec::new(),
        }
    }

    /// This path extended by a segment.
    pub fn child(&self, segment: Segment) -> Path {
        let mut p = self.clone();
        p.segments.push(segment);
        p
    }

    /// The root name.
    pub fn root_name(&self) -> &str {
        &self.root
    }

    /// The segments after the root.
    pub fn segments(&self) -> &[Segment] {
        &self.segments
    }

    /// Every segment including the root, as field names and indexes.
    pub fn steps(&self) -> impl Iterator<Item = Step<'_>> {
        std::iter::once(Step::Field(self.root.as_str())).chain(self.segments.iter().map(
            |s| match s {
                Segment::Field(f) => Step::Field(f.as_str()),
                Segment::Index(i) => Step::Index(*i),
            },
        ))
    }
}

/// One step of a path, borrowed.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Step<'a> {
    /// An object key.
    Field(&'a str),
    /// A list index.
    Index(i64),
}

/// Whether `s` is an identifier: an ASCII letter or `_`, then letters,
/// digits and `_`.
pub fn is_identifier(s: &str) -> bool {
    let mut chars = s.chars();
    chars
        .next()
        .is_some_and(|c| c.is_ascii_alphabetic() || c == '_')
        && chars.all(|c| c.is_ascii_alphanumeric() || c == '_')
}

/// Words that cannot be identifiers: literals, word operators and CEL's
/// reserved words.
pub const KEYWORDS: &[&str] = &[
    "true",
    "false",
    "null",
    "in",
    "and",
    "or",
    "not",
    "as",
    "break",
    "const",
    "continue",
    "else",
    "for",
    "function",
    "if",
    "import",
    "let",
    "loop",
    "package",
    "namespace",
    "return",
    "var",
    "void",
    "while",
];

/// Whether `word` is one of [`KEYWORDS`].
pub fn is_keyword(word: &str) -> bool {
    KEYWORDS.contains(&word)
}

/// Whether `s` can be written as `.s` (an identifier that is not a keyword).
pub fn is_plain_field(s: &str) -> bool {
    is_identifier(s) && !is_keyword(s)
}

/// Writes a string literal in single quotes with CEL escapes.
pub fn write_quoted(f: &mut impl fmt::Write, s: &str) -> fmt::Result {
    f.write_char('\'')?;
    for c in s.chars() {
        match c {
            '\'' => f.write_str("\\'")?,
            '\\' => f.write_str("\\\\")?,
            '\n' => f.write_str("\\n")?,
            '\r' => f.write_str("\\r")?,
            '\t' => f.write_str("\\t")?,
            c if c.is_control() => write!(f, "\\u{:04x}", c as u32)?,
            c => f.write_char(c)?,
        }
    }
    f.write_char('\'')
}

impl fmt::Display for Path {
    /// The canonical spelling: `a.b['retry-after'][0]`.
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.root)?;
        for seg in &self.segments {
            match seg {
                Segment::Field(name) if is_plain_field(name) => write!(f, ".{name}")?,
                Segment::Field(name) => {
                    f.write_str("[")?;
                    write_quoted(f, name)?;
                    f.write_str("]")?;
                }
                Segment::Index(i) => write!(f, "[{i}]")?,
            }
        }
        Ok(())
    }
}

/// An interned path.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct PathId(pub u32);

/// The paths of one compilation, each stored once.
#[derive(Debug, Clone, Default)]
pub struct PathTable {
    paths: Vec<Path>,
    index: HashMap<Path, PathId>,
}

impl PathTable {
    /// An empty table.
    pub fn new() -> Self {
        PathTable::default()
    }

    /// The id of `path`, adding it if new.
    pub fn intern(&mut self, path: Path) -> PathId {
        if let Some(&id) = self.index.get(&path) {
            return id;
        }
        let id = PathId(u32::try_from(self.paths.len()).unwrap_or(u32::MAX));
        self.paths.push(path.clone());
        self.index.insert(path, id);
        id
    }

    /// The path behind an id of this table.
    pub fn get(&self, id: PathId) -> Option<&Path> {
        self.paths.get(id.0 as usize)
    }

    /// Number of distinct paths.
    pub fn len(&self) -> usize {
        self.paths.len()
    }

    /// Whether there are none.
    pub fn is_empty(&self) -> bool {
        self.paths.is_empty()
    }

    /// All paths in id order.
    pub fn iter(&self) -> impl Iterator<Item = (PathId, &Path)> {
        self.paths
            .iter()
            .enumerate()
            .map(|(i, p)| (PathId(u32::try_from(i).unwrap_or(u32::MAX)), p))
    }
}

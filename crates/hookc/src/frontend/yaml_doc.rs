//! YAML text → the spanned document tree [`crate::frontend::doc::Node`].
//!
//! This module owns everything hookc knows about YAML as a syntax: it drives the
//! `saphyr-parser` event stream (pulled one event at a time, never recursively),
//! types plain scalars by the YAML 1.2 core schema, expands aliases, rejects
//! duplicate keys, and turns the parser's character positions into the byte spans
//! every diagnostic points at. It knows nothing about hooks; see
//! [`crate::frontend::yaml`] for that.
//!
//! # Input safety
//! - input longer than [`MAX_INPUT_BYTES`] is refused before parsing;
//! - nesting deeper than [`MAX_DOC_DEPTH`] is refused while events arrive, so
//!   neither building nor dropping the tree can overflow the stack;
//! - the number of nodes, aliases expanded, is bounded by [`MAX_DOC_NODES`]: each
//!   anchored node remembers its size, and an alias is refused *before* it is
//!   cloned, so an alias bomb fails after at most that many nodes;
//! - likewise the scalar text that aliases copy is bounded by
//!   [`MAX_ALIAS_BYTES`] (each anchored node remembers its bytes too), so a
//!   few aliases of a long string cannot expand to gigabytes.
//!
//! # Spans
//! `saphyr-parser` reports positions in characters, and its token ends are not
//! always tight (a quoted scalar's end may include a trailing comment, a block
//! scalar's start is its first content line). Spans are therefore rebuilt from
//! the source: a scalar covers its text including quotes or its `|`/`>` header,
//! without anchor and tag; a collection covers from its `-`, first key or opening
//! bracket to its last item or closing bracket. An expanded alias keeps the spans
//! of the anchored node it copies (where that text was written).

use crate::diag::{Code, Diagnostic};
use crate::frontend::doc::{Key, Node, NodeKind};
use crate::span::{FileId, Origin, Span};
use hookc_runtime::limits::{MAX_ALIAS_BYTES, MAX_DOC_DEPTH, MAX_DOC_NODES, MAX_INPUT_BYTES};
use saphyr_parser::{Event, Parser, ScalarStyle, ScanError, Tag};
use std::collections::HashMap;

/// Parses one YAML document into a [`Node`] tree.
///
/// An empty document (nothing but whitespace and comments) is a `Null` node.
/// Returns the first problem found: malformed YAML, a second document, an
/// unsupported tag, a literal out of range, a duplicate or complex key, or input
/// past a limit of [`hookc_runtime::limits`].
#[expect(
    clippy::result_large_err,
    reason = "the shared front-end API; the error path is cold and taken once"
)]
pub fn parse(text: &str, file: FileId) -> Result<Node, Diagnostic> {
    parse_boxed(text, file).map_err(|d| *d)
}

/// A step that may fail with a (boxed, to keep `Result` small) diagnostic.
type Fallible<T = ()> = Result<T, Box<Diagnostic>>;

#[cold]
fn fail<T>(d: Diagnostic) -> Fallible<T> {
    Err(Box::new(d))
}

fn parse_boxed(text: &str, file: FileId) -> Fallible<Node> {
    if text.len() > MAX_INPUT_BYTES {
        return fail(
            Diagnostic::new(
                Code::TooLarge,
                format!(
                    "file is {} bytes, more than the limit of {MAX_INPUT_BYTES} bytes",
                    text.len()
                ),
            )
            .at(Span::new(file, 0, 0)),
        );
    }
    let mut builder = Builder::new(text, file);
    let mut parser = Parser::new_from_str(text);
    let mut documents = 0usize;
    while let Some(item) = parser.next_event() {
        let (event, span) = item.map_err(|e| builder.scan_error(&e))?;
        let start = builder.chars.byte(span.start.index());
        let end = builder.chars.byte(span.end.index()).max(start);
        match event {
            Event::StreamEnd => break,
            Event::DocumentStart(_) => {
                documents += 1;
                if documents > 1 {
                    return fail(
                        Diagnostic::new(Code::YamlSyntax, "only one YAML document per file")
                            .at(Span::new(file, start, end))
                            .help("put each document in a file of its own"),
                    );
                }
            }
            Event::Nothing | Event::StreamStart | Event::DocumentEnd => {}
            Event::Scalar(value, style, anchor, tag) => {
                builder.scalar(&value, style, anchor, tag.as_deref(), start, end)?;
            }
            Event::Alias(id) => builder.alias(id, start, end)?,
            Event::SequenceStart(anchor, tag) => {
                builder.open(true, anchor, tag.as_deref(), start, end)?;
            }
            Event::MappingStart(anchor, tag) => {
                builder.open(false, anchor, tag.as_deref(), start, end)?;
            }
            Event::SequenceEnd | Event::MappingEnd => builder.close(start)?,
        }
    }
    Ok(builder.finish())
}

/// How offsets in the text of a string node map back to the file.
///
/// A plain scalar whose source text is its content maps exactly from its start;
/// a quoted one without escapes maps exactly from after its opening quote;
/// anything else (escapes, folding, block scalars, non-strings) maps every
/// offset to the whole node.
pub fn origin_of(text: &str, node: &Node) -> Origin {
    let whole = Origin::Whole(node.span);
    let Some(content) = node.as_str() else {
        return whole;
    };
    let Some(source) = text.get(node.span.range()) else {
        return whole;
    };
    if source == content {
        return Origin::Exact {
            file: node.span.file,
            base: node.span.start,
        };
    }
    for quote in ['"', '\''] {
        let inner = source
            .strip_prefix(quote)
            .and_then(|s| s.strip_suffix(quote));
        if inner == Some(content) {
            return Origin::Exact {
                file: node.span.file,
                base: node.span.start.saturating_add(1),
            };
        }
    }
    whole
}

// ---- character → byte positions ---------------------------------------------

/// Distance between two remembered char→byte checkpoints.
const STRIDE: usize = 64;

/// Converts the parser's character indexes into byte offsets.
///
/// ASCII text maps one to one; otherwise every [`STRIDE`]th character's byte
/// offset is remembered and the rest is walked, so a lookup costs at most
/// `STRIDE` steps and the table a 64th of the text.
struct CharMap<'t> {
    text: &'t str,
    ascii: bool,
    checkpoints: Vec<usize>,
}

impl<'t> CharMap<'t> {
    fn new(text: &'t str) -> Self {
        let ascii = text.is_ascii();
        let checkpoints = if ascii {
            Vec::new()
        } else {
            text.char_indices()
                .step_by(STRIDE)
                .map(|(i, _)| i)
                .collect()
        };
        CharMap {
            text,
            ascii,
            checkpoints,
        }
    }

    /// The byte offset of character `index` (the text's length past the end).
    fn byte(&self, index: usize) -> usize {
        let len = self.text.len();
        if self.ascii {
            return index.min(len);
        }
        let Some(&base) = self.checkpoints.get(index / STRIDE) else {
            return len;
        };
        self.text
            .get(base..)
            .and_then(|rest| rest.char_indices().nth(index % STRIDE))
            .map_or(len, |(offset, _)| base + offset)
    }
}

// ---- the tree builder -----------------------------------------------------------

/// A node under construction: an open sequence or mapping.
struct Frame {
    /// Items or entries so far.
    body: Body,
    /// Byte offset where the collection starts.
    start: usize,
    /// Furthest byte end of what it holds so far (the end of a block collection).
    end: usize,
    /// Whether it opened with `[` or `{`.
    flow: bool,
    /// Anchor id to register it under when complete (0 = none).
    anchor: usize,
    /// Nodes in it, itself included, aliases expanded.
    size: usize,
    /// Bytes of scalar text in it (keys included), aliases expanded.
    bytes: usize,
    /// Collections on the longest path down from it, itself included.
    height: usize,
}

enum Body {
    Seq(Vec<Node>),
    Map(MapBody),
}

struct MapBody {
    entries: Vec<(Key, Node)>,
    /// The key read, waiting for its value.
    pending: Option<Key>,
    /// Key name → entry index, built once the mapping is too big for a scan.
    index: Option<HashMap<String, usize>>,
}

/// Mappings up to this many entries are searched linearly for duplicate keys.
const LINEAR_KEYS: usize = 16;

impl MapBody {
    /// The earlier key named `name`, if any.
    fn find(&mut self, name: &str) -> Option<&Key> {
        if self.entries.len() > LINEAR_KEYS && self.index.is_none() {
            let index = self
                .entries
                .iter()
                .enumerate()
                .map(|(i, (k, _))| (k.name.clone(), i))
                .collect();
            self.index = Some(index);
        }
        match &self.index {
            Some(index) => index
                .get(name)
                .and_then(|&i| self.entries.get(i))
                .map(|(k, _)| k),
            None => self.entries.iter().map(|(k, _)| k).find(|k| k.name == name),
        }
    }

    fn push(&mut self, key: Key, value: Node) {
        if let Some(index) = &mut self.index {
            index.insert(key.name.clone(), self.entries.len());
        }
        self.entries.push((key, value));
    }
}

/// A completed anchored node, kept for the aliases that follow.
struct Anchored {
    node: Node,
    size: usize,
    /// Bytes of scalar text in it, aliases expanded.
    bytes: usize,
    height: usize,
    /// The scalar's text, for use as a mapping key; `None` for collections.
    key: Option<String>,
}

struct Builder<'t> {
    text: &'t str,
    file: FileId,
    chars: CharMap<'t>,
    stack: Vec<Frame>,
    anchors: HashMap<usize, Anchored>,
    /// Nodes produced so far, aliases expanded.
    nodes: usize,
    /// Bytes of scalar text copied by aliases so far.
    copied: usize,
    root: Option<Node>,
}

impl<'t> Builder<'t> {
    fn new(text: &'t str, file: FileId) -> Self {
        Builder {
            text,
            file,
            chars: CharMap::new(text),
            stack: Vec::new(),
            anchors: HashMap::new(),
            nodes: 0,
            copied: 0,
            root: None,
        }
    }

    fn finish(self) -> Node {
        self.root.unwrap_or(Node {
            kind: NodeKind::Null,
            span: Span::new(self.file, 0, 0),
        })
    }

    fn span(&self, start: usize, end: usize) -> Span {
        Span::new(self.file, start, end)
    }

    /// The character at `at` (empty at the end of the text).
    fn one_char(&self, at: usize) -> Span {
        let width = self
            .text
            .get(at..)
            .and_then(|s| s.chars().next())
            .map_or(0, char::len_utf8);
        self.span(at, at + width)
    }

    /// Whether the next node is a mapping key.
    fn expecting_key(&self) -> bool {
        matches!(
            self.stack.last(),
            Some(Frame {
                body: Body::Map(MapBody { pending: None, .. }),
                ..
            })
        )
    }

    /// The node path of the node being read (`hooks[2].action`), for diagnostics.
    fn path(&self) -> String {
        let mut path = String::new();
        for frame in &self.stack {
            match &frame.body {
                Body::Seq(items) => path.push_str(&format!("[{}]", items.len())),
                Body::Map(map) => {
                    if let Some(key) = &map.pending {
                        if !path.is_empty() {
                            path.push('.');
                        }
                        path.push_str(&key.name);
                    }
                }
            }
        }
        path
    }

    /// Adds `n` nodes to the count, failing past [`MAX_DOC_NODES`].
    fn count(&mut self, n: usize, span: Span, alias: bool) -> Fallible {
        let total = self.nodes.saturating_add(n);
        if total > MAX_DOC_NODES {
            let message = if alias {
                format!("YAML expands to more than {MAX_DOC_NODES} nodes (alias bomb?)")
            } else {
                format!("YAML document has more than {MAX_DOC_NODES} nodes")
            };
            return fail(
                Diagnostic::new(Code::TooLarge, message)
                    .at(span)
                    .node(self.path()),
            );
        }
        self.nodes = total;
        Ok(())
    }

    fn too_deep(&self, span: Span) -> Diagnostic {
        Diagnostic::new(
            Code::TooDeep,
            format!("YAML nesting is deeper than {MAX_DOC_DEPTH} levels"),
        )
        .at(span)
        .node(self.path())
    }

    /// A scalar event.
    fn scalar(
        &mut self,
        value: &str,
        style: ScalarStyle,
        anchor: usize,
        tag: Option<&Tag>,
        ev_start: usize,
        ev_end: usize,
    ) -> Fallible {
        let (start, end) = self.scalar_bounds(value.is_empty(), style, ev_start, ev_end);
        let span = self.span(start, end);
        self.count(1, span, false)?;
        let typed = scalar_kind(value, style, tag).map_err(|(code, message, help)| {
            Diagnostic::new(code, message)
                .at(span)
                .node(self.path())
                .maybe_help(help)
        });
        let is_key = self.expecting_key();
        let kind = if is_key && tag.is_none() {
            // An untagged key is only a name: `99999999999999999999: x` is fine.
            typed.unwrap_or_else(|_| NodeKind::Str(value.to_owned()))
        } else {
            typed?
        };
        let node = Node { kind, span };
        if anchor != 0 {
            self.anchors.insert(
                anchor,
                Anchored {
                    node: node.clone(),
                    size: 1,
                    bytes: value.len(),
                    height: 0,
                    key: Some(value.to_owned()),
                },
            );
        }
        let key = is_key.then(|| value.to_owned());
        self.deliver(node, 1, value.len(), 0, key, span)
    }

    /// An alias event: the anchored node, cloned once the limits allow it.
    fn alias(&mut self, id: usize, start: usize, end: usize) -> Fallible {
        let span = self.span(start, end);
        let Some(anchored) = self.anchors.get(&id) else {
            let name = self.text.get(start..end).unwrap_or("*");
            return fail(
                Diagnostic::new(
                    Code::YamlSyntax,
                    format!("alias `{name}` refers to a node that contains it"),
                )
                .at(span)
                .node(self.path()),
            );
        };
        let (size, bytes, height) = (anchored.size, anchored.bytes, anchored.height);
        if self.stack.len().saturating_add(height) > MAX_DOC_DEPTH {
            return fail(self.too_deep(span));
        }
        self.count(size, span, true)?;
        // Few nodes can still hold much text: `&a "<a megabyte>"`, then lists
        // of `*a` ten at a time. Bound the text an alias copies as well.
        let copied = self.copied.saturating_add(bytes);
        if copied > MAX_ALIAS_BYTES {
            return fail(
                Diagnostic::new(
                    Code::TooLarge,
                    format!(
                        "YAML aliases copy more than {MAX_ALIAS_BYTES} bytes of text (alias bomb?)"
                    ),
                )
                .at(span)
                .node(self.path()),
            );
        }
        self.copied = copied;
        let Some(anchored) = self.anchors.get(&id) else {
            return Ok(());
        };
        let (node, key) = (anchored.node.clone(), anchored.key.clone());
        self.deliver(node, size, bytes, height, key, span)
    }

    /// A sequence or mapping starts.
    fn open(
        &mut self,
        seq: bool,
        anchor: usize,
        tag: Option<&Tag>,
        ev_start: usize,
        ev_end: usize,
    ) -> Fallible {
        let start = self.collection_start(seq, ev_start, ev_end);
        let span = self.one_char(start);
        let what = if seq { "a list" } else { "a mapping" };
        if self.expecting_key() {
            return fail(
                Diagnostic::new(
                    Code::WrongShape,
                    format!("a mapping key must be a scalar, found {what}"),
                )
                .at(span)
                .node(self.path()),
            );
        }
        if let Some(tag) = tag {
            check_collection_tag(tag, seq).map_err(|(code, message, help)| {
                Diagnostic::new(code, message)
                    .at(span)
                    .node(self.path())
                    .maybe_help(help)
            })?;
        }
        if self.stack.len() >= MAX_DOC_DEPTH {
            return fail(self.too_deep(span));
        }
        self.count(1, span, false)?;
        let flow = matches!(self.text.as_bytes().get(start), Some(b'[' | b'{'));
        let body = if seq {
            Body::Seq(Vec::new())
        } else {
            Body::Map(MapBody {
                entries: Vec::new(),
                pending: None,
                index: None,
            })
        };
        self.stack.push(Frame {
            body,
            start,
            end: start,
            flow,
            anchor,
            size: 1,
            bytes: 0,
            height: 1,
        });
        Ok(())
    }

    /// The innermost sequence or mapping ends; `ev_start` is where its end event is.
    fn close(&mut self, ev_start: usize) -> Fallible {
        let Some(frame) = self.stack.pop() else {
            return Ok(());
        };
        let closer = self.text.as_bytes().get(ev_start);
        let end = if frame.flow && matches!(closer, Some(b']' | b'}')) {
            ev_start + 1
        } else {
            frame.end.max(frame.start)
        };
        let kind = match frame.body {
            Body::Seq(items) => NodeKind::Seq(items),
            Body::Map(map) => NodeKind::Map(map.entries),
        };
        let node = Node {
            kind,
            span: self.span(frame.start, end),
        };
        if frame.anchor != 0 {
            self.anchors.insert(
                frame.anchor,
                Anchored {
                    node: node.clone(),
                    size: frame.size,
                    bytes: frame.bytes,
                    height: frame.height,
                    key: None,
                },
            );
        }
        let at = node.span;
        self.deliver(node, frame.size, frame.bytes, frame.height, None, at)
    }

    /// Hands a completed node to its parent (or makes it the root). `key` is the
    /// scalar text, should the node be a mapping key; `at` is where the node is
    /// written (an alias's own position, for an expanded alias).
    fn deliver(
        &mut self,
        node: Node,
        size: usize,
        bytes: usize,
        height: usize,
        key: Option<String>,
        at: Span,
    ) -> Fallible {
        let path = self.path();
        let text = self.text;
        let Some(frame) = self.stack.last_mut() else {
            self.root = Some(node);
            return Ok(());
        };
        frame.end = frame.end.max(at.end as usize);
        frame.size = frame.size.saturating_add(size);
        frame.bytes = frame.bytes.saturating_add(bytes);
        frame.height = frame.height.max(height.saturating_add(1));
        match &mut frame.body {
            Body::Seq(items) => items.push(node),
            Body::Map(map) => match map.pending.take() {
                Some(k) => map.push(k, node),
                None => {
                    let Some(name) = key else {
                        return fail(
                            Diagnostic::new(
                                Code::WrongShape,
                                format!(
                                    "a mapping key must be a scalar, found {}",
                                    node.kind_name()
                                ),
                            )
                            .at(at)
                            .node(path),
                        );
                    };
                    if let Some(first) = map.find(&name) {
                        let line = line_of(text, first.span.start as usize);
                        let key_path = if path.is_empty() {
                            name.clone()
                        } else {
                            format!("{path}.{name}")
                        };
                        return fail(
                            Diagnostic::new(
                                Code::DuplicateKey,
                                format!("key `{name}` is already defined on line {line}"),
                            )
                            .at(at)
                            .node(key_path)
                            .help("remove one of them"),
                        );
                    }
                    map.pending = Some(Key { name, span: at });
                }
            },
        }
        Ok(())
    }

    /// A parser error as a diagnostic at its position.
    fn scan_error(&self, e: &ScanError) -> Diagnostic {
        let at = self.chars.byte(e.marker().index());
        let rest = self.text.get(at..).unwrap_or("");
        if e.info().contains("unknown anchor") && rest.starts_with('*') {
            let len = rest
                .find(|c: char| c.is_whitespace() || ",[]{}".contains(c))
                .unwrap_or(rest.len());
            let name = rest.get(..len).unwrap_or("*");
            return Diagnostic::new(Code::YamlSyntax, format!("unknown alias `{name}`"))
                .at(self.span(at, at + len))
                .help("an alias `*name` must follow its anchor `&name` in the same document");
        }
        if e.info() == "recursion limit exceeded" {
            // The scanner counts flow levels in a `u8` and may look that far
            // ahead of the events: past our own limit either way.
            return self.too_deep(self.one_char(at));
        }
        let mut message = e.info().to_owned();
        if let Some(first) = message.get(..1) {
            let lower = first.to_lowercase();
            message.replace_range(..1, &lower);
        }
        Diagnostic::new(Code::YamlSyntax, message).at(self.one_char(at))
    }

    // ---- spans from the source ---------------------------------------------

    /// Byte range of a scalar's own text, given its event's range.
    fn scalar_bounds(
        &self,
        empty: bool,
        style: ScalarStyle,
        ev_start: usize,
        ev_end: usize,
    ) -> (usize, usize) {
        let bytes = self.text.as_bytes();
        let p = self.skip_props(ev_start, ev_end);
        match style {
            ScalarStyle::Plain if empty => (ev_start, self.trim_end(ev_start, p)),
            ScalarStyle::Plain => (p, self.trim_end(p, ev_end)),
            ScalarStyle::SingleQuoted | ScalarStyle::DoubleQuoted => match quoted_end(bytes, p) {
                Some(end) => (p, end),
                None => (p, self.trim_end(p, ev_end)),
            },
            ScalarStyle::Literal | ScalarStyle::Folded => {
                let header = if matches!(bytes.get(p), Some(b'|' | b'>')) {
                    Some(p)
                } else {
                    block_header_before(self.text, ev_start)
                };
                match header {
                    Some(h) => (h, self.trim_end(h, ev_end).max(h + 1)),
                    None => (ev_start, self.trim_end(ev_start, ev_end)),
                }
            }
        }
    }

    /// Where a collection starts, given its start event's range: past its
    /// anchor and tag, at the `-` of a block sequence.
    fn collection_start(&self, seq: bool, ev_start: usize, ev_end: usize) -> usize {
        let bytes = self.text.as_bytes();
        let p = self.skip_props(ev_start, ev_end);
        if seq && !matches!(bytes.get(p), Some(b'-' | b'[')) {
            // An indentless sequence starts at its first item: step back to the `-`.
            let mut q = p;
            while q > 0 && matches!(bytes.get(q - 1), Some(b' ' | b'\t')) {
                q -= 1;
            }
            if q > 0 && bytes.get(q - 1) == Some(&b'-') {
                return q - 1;
            }
        }
        p
    }

    /// Skips anchors, tags, blanks and comments from `start`, up to `end`.
    fn skip_props(&self, start: usize, end: usize) -> usize {
        let bytes = self.text.as_bytes();
        let mut i = start;
        while i < end {
            match bytes.get(i) {
                Some(b' ' | b'\t' | b'\r' | b'\n') => i += 1,
                Some(b'#') => {
                    while i < end && bytes.get(i) != Some(&b'\n') {
                        i += 1;
                    }
                }
                Some(b'!') if bytes.get(i + 1) == Some(&b'<') => {
                    while i < end && bytes.get(i) != Some(&b'>') {
                        i += 1;
                    }
                    i += 1;
                }
                Some(b'&' | b'!') => {
                    i += 1;
                    while i < end
                        && !matches!(
                            bytes.get(i),
                            None | Some(
                                b' ' | b'\t' | b'\r' | b'\n' | b',' | b'[' | b']' | b'{' | b'}'
                            )
                        )
                    {
                        i += 1;
                    }
                }
                _ => break,
            }
        }
        i.min(end)
    }

    /// `end`, moved back over trailing blanks and line breaks (not before `start`).
    fn trim_end(&self, start: usize, end: usize) -> usize {
        let bytes = self.text.as_bytes();
        let mut e = end;
        while e > start && matches!(bytes.get(e - 1), Some(b' ' | b'\t' | b'\r' | b'\n')) {
            e -= 1;
        }
        e
    }
}

/// One past the closing quote of the quoted scalar opening at `start`.
fn quoted_end(bytes: &[u8], start: usize) -> Option<usize> {
    let quote = *bytes.get(start)?;
    let mut i = start + 1;
    match quote {
        b'\'' => loop {
            match bytes.get(i)? {
                b'\'' if bytes.get(i + 1) == Some(&b'\'') => i += 2,
                b'\'' => return Some(i + 1),
                _ => i += 1,
            }
        },
        b'"' => loop {
            match bytes.get(i)? {
                b'\\' => i += 2,
                b'"' => return Some(i + 1),
                _ => i += 1,
            }
        },
        _ => None,
    }
}

/// The `|` or `>` header of the block scalar whose content starts at `content`:
/// on the nearest non-blank line before it, followed only by chomping and
/// indentation indicators and a comment.
fn block_header_before(text: &str, content: usize) -> Option<usize> {
    let before = text.get(..content)?;
    let mut line_start = before.rfind('\n').map_or(0, |i| i + 1);
    while line_start > 0 {
        let line_end = line_start - 1;
        let prev_start = text.get(..line_end)?.rfind('\n').map_or(0, |i| i + 1);
        let line = text.get(prev_start..line_end)?;
        if !line.trim().is_empty() {
            return line.char_indices().find_map(|(i, c)| {
                let rest = line.get(i + 1..)?;
                let rest =
                    rest.trim_start_matches(|c: char| c == '+' || c == '-' || c.is_ascii_digit());
                let rest = rest.trim_start_matches([' ', '\t']).trim_end_matches('\r');
                ((c == '|' || c == '>') && (rest.is_empty() || rest.starts_with('#')))
                    .then_some(prev_start + i)
            });
        }
        line_start = prev_start;
    }
    None
}

/// The 1-based line of a byte offset.
fn line_of(text: &str, offset: usize) -> usize {
    text.get(..offset)
        .map_or(0, |s| s.bytes().filter(|&b| b == b'\n').count())
        + 1
}

// ---- scalar typing ----------------------------------------------------------------

/// A typing failure: code, message, optional help.
type TypeError = (Code, String, Option<String>);

const TAG_HELP: &str = "hookc reads the tags `!!str`, `!!int`, `!!float`, `!!bool` and `!!null`";

/// How a tag is written, for messages.
fn tag_text(tag: &Tag) -> String {
    if tag.is_yaml_core_schema() {
        format!("!!{}", tag.suffix)
    } else if tag.handle == "!" {
        format!("!{}", tag.suffix)
    } else if tag.handle.is_empty() && tag.suffix == "!" {
        "!".to_owned()
    } else {
        format!("!<{}{}>", tag.handle, tag.suffix)
    }
}

fn unsupported_tag(tag: &Tag) -> TypeError {
    (
        Code::YamlSyntax,
        format!("unsupported tag `{}`", tag_text(tag)),
        Some(TAG_HELP.to_owned()),
    )
}

/// The non-specific tag `!`: "not a plain scalar", i.e. a string.
fn is_non_specific(tag: &Tag) -> bool {
    tag.handle.is_empty() && tag.suffix == "!"
}

/// Checks the tag of a sequence (`seq`) or mapping.
fn check_collection_tag(tag: &Tag, seq: bool) -> Result<(), TypeError> {
    if is_non_specific(tag) {
        return Ok(());
    }
    if !tag.is_yaml_core_schema() {
        return Err(unsupported_tag(tag));
    }
    match (tag.suffix.as_str(), seq) {
        ("seq", true) | ("map", false) => Ok(()),
        ("str" | "int" | "float" | "bool" | "null" | "seq" | "map", _) => Err((
            Code::BadLiteral,
            format!(
                "tag `{}` does not apply to {}",
                tag_text(tag),
                if seq { "a list" } else { "a mapping" }
            ),
            None,
        )),
        _ => Err(unsupported_tag(tag)),
    }
}

/// The value of a scalar: by its tag if it has one, else by the core schema
/// for plain scalars; quoted and block scalars are strings.
fn scalar_kind(value: &str, style: ScalarStyle, tag: Option<&Tag>) -> Result<NodeKind, TypeError> {
    let Some(tag) = tag else {
        return if style == ScalarStyle::Plain {
            plain_kind(value)
        } else {
            Ok(NodeKind::Str(value.to_owned()))
        };
    };
    if is_non_specific(tag) {
        return Ok(NodeKind::Str(value.to_owned()));
    }
    if !tag.is_yaml_core_schema() {
        return Err(unsupported_tag(tag));
    }
    let not_a = |what: &str| {
        (
            Code::BadLiteral,
            format!("`{value}` is not {what} (tag `{}`)", tag_text(tag)),
            None,
        )
    };
    match tag.suffix.as_str() {
        "str" => Ok(NodeKind::Str(value.to_owned())),
        "int" => match core_int(value)? {
            Some(i) => Ok(NodeKind::Int(i)),
            None => Err(not_a("an integer")),
        },
        "float" => match core_float(value)? {
            Some(f) => Ok(NodeKind::Float(f)),
            None => match core_int(value) {
                // An integer written where a float is wanted: its (nearest) value.
                Ok(Some(i)) => Ok(NodeKind::Float(i as f64)),
                _ => Err(not_a("a number")),
            },
        },
        "bool" => core_bool(value)
            .map(NodeKind::Bool)
            .ok_or_else(|| not_a("a bool")),
        "null" => {
            if is_core_null(value) {
                Ok(NodeKind::Null)
            } else {
                Err(not_a("null"))
            }
        }
        "seq" | "map" => Err((
            Code::BadLiteral,
            format!("tag `{}` does not apply to a scalar", tag_text(tag)),
            None,
        )),
        _ => Err(unsupported_tag(tag)),
    }
}

/// A plain scalar by the YAML 1.2 core schema.
fn plain_kind(value: &str) -> Result<NodeKind, TypeError> {
    if is_core_null(value) {
        return Ok(NodeKind::Null);
    }
    if let Some(b) = core_bool(value) {
        return Ok(NodeKind::Bool(b));
    }
    if let Some(i) = core_int(value)? {
        return Ok(NodeKind::Int(i));
    }
    if let Some(f) = core_float(value)? {
        return Ok(NodeKind::Float(f));
    }
    Ok(NodeKind::Str(value.to_owned()))
}

fn is_core_null(value: &str) -> bool {
    matches!(value, "" | "~" | "null" | "Null" | "NULL")
}

fn core_bool(value: &str) -> Option<bool> {
    match value {
        "true" | "True" | "TRUE" => Some(true),
        "false" | "False" | "FALSE" => Some(false),
        _ => None,
    }
}

fn all_digits(s: &str, radix: u32) -> bool {
    !s.is_empty() && s.chars().all(|c| c.is_digit(radix))
}

/// A core-schema integer (`[-+]?[0-9]+`, `0o[0-7]+`, `0x[0-9a-fA-F]+`):
/// `Ok(None)` when `value` is not written as one, an error when it does not fit `i64`.
fn core_int(value: &str) -> Result<Option<i64>, TypeError> {
    let (digits, radix) = if let Some(oct) = value.strip_prefix("0o") {
        (oct, 8)
    } else if let Some(hex) = value.strip_prefix("0x") {
        (hex, 16)
    } else {
        let unsigned = value.strip_prefix(['-', '+']).unwrap_or(value);
        if !all_digits(unsigned, 10) {
            return Ok(None);
        }
        (value, 10)
    };
    if radix != 10 && !all_digits(digits, radix) {
        return Ok(None);
    }
    i64::from_str_radix(digits, radix).map(Some).map_err(|_| {
        (
            Code::BadLiteral,
            format!("integer `{value}` does not fit in 64 bits"),
            Some(format!(
                "integers range from {} to {}; quote it to keep it as a string",
                i64::MIN,
                i64::MAX
            )),
        )
    })
}

/// A core-schema float (`1.5`, `-1e3`, `.5`, `.inf`, `-.Inf`, `.nan`, ...):
/// `Ok(None)` when `value` is not written as one, an error when it overflows.
fn core_float(value: &str) -> Result<Option<f64>, TypeError> {
    let unsigned = value.strip_prefix(['-', '+']).unwrap_or(value);
    let negative = value.starts_with('-');
    if matches!(unsigned, ".inf" | ".Inf" | ".INF") {
        return Ok(Some(if negative {
            f64::NEG_INFINITY
        } else {
            f64::INFINITY
        }));
    }
    if matches!(value, ".nan" | ".NaN" | ".NAN") {
        return Ok(Some(f64::NAN));
    }
    let (mantissa, exponent) = match unsigned.find(['e', 'E']) {
        Some(i) => (unsigned.get(..i).unwrap_or(""), unsigned.get(i + 1..)),
        None => (unsigned, None),
    };
    let mantissa_ok = match mantissa.split_once('.') {
        Some(("", frac)) => all_digits(frac, 10),
        Some((int, frac)) => all_digits(int, 10) && (frac.is_empty() || all_digits(frac, 10)),
        None => all_digits(mantissa, 10),
    };
    let exponent_ok =
        exponent.is_none_or(|e| all_digits(e.strip_prefix(['-', '+']).unwrap_or(e), 10));
    if !mantissa_ok || !exponent_ok {
        return Ok(None);
    }
    match value.parse::<f64>() {
        Ok(f) if f.is_finite() => Ok(Some(f)),
        _ => Err((
            Code::BadLiteral,
            format!("number `{value}` is out of range"),
            Some("quote it to keep it as a string".to_owned()),
        )),
    }
}

#[cfg(test)]
#[allow(
    clippy::unwrap_used,
    clippy::expect_used,
    clippy::panic,
    clippy::indexing_slicing
)]
mod tests {
    use super::*;

    const F: FileId = FileId(0);

    fn doc(text: &str) -> Node {
        match parse(text, F) {
            Ok(n) => n,
            Err(d) => panic!("unexpected error {d:?} for {text:?}"),
        }
    }

    fn err(text: &str) -> Diagnostic {
        match parse(text, F) {
            Ok(n) => panic!("expected an error for {text:?}, got {n:?}"),
            Err(d) => d,
        }
    }

    fn src<'a>(text: &'a str, node: &Node) -> &'a str {
        &text[node.span.range()]
    }

    fn kind(text: &str) -> NodeKind {
        doc(&format!("v: {text}\n")).get("v").unwrap().kind.clone()
    }

    #[test]
    fn empty_documents_are_null() {
        for text in ["", "   \n\n", "# just a comment\n", "---\n", "---\n...\n"] {
            assert_eq!(doc(text).kind, NodeKind::Null, "{text:?}");
        }
    }

    #[test]
    fn scalar_spans_cover_their_text() {
        let text =
            "a: plain words   # c\nb: \"dq\"   # c\nc: 'it''s'\nd: &x !!str tagged\n\"k k\": v\n";
        let root = doc(text);
        let map = root.as_map().unwrap();
        let got: Vec<(&str, &str)> = map
            .iter()
            .map(|(k, v)| {
                (
                    src(
                        text,
                        &Node {
                            kind: NodeKind::Null,
                            span: k.span,
                        },
                    ),
                    src(text, v),
                )
            })
            .collect();
        assert_eq!(
            got,
            [
                ("a", "plain words"),
                ("b", "\"dq\""),
                ("c", "'it''s'"),
                ("d", "tagged"),
                ("\"k k\"", "v"),
            ]
        );
        assert_eq!(map[4].0.name, "k k");
        assert_eq!(root.span.range(), 0..text.len() - 1);
    }

    #[test]
    fn spans_are_bytes_after_non_ascii_text() {
        let text = "# héllo wörld ✓\nkey: \"ünï\" # ✓✓\nlist: [é, {ö: ß}]\nafter: plain\n";
        let root = doc(text);
        assert_eq!(src(text, root.get("key").unwrap()), "\"ünï\"");
        let list = root.get("list").unwrap();
        assert_eq!(src(text, list), "[é, {ö: ß}]");
        let items = list.as_seq().unwrap();
        assert_eq!(src(text, &items[0]), "é");
        assert_eq!(src(text, &items[1]), "{ö: ß}");
        let (k, v) = &items[1].as_map().unwrap()[0];
        assert_eq!(&text[k.span.range()], "ö");
        assert_eq!(src(text, v), "ß");
        assert_eq!(src(text, root.get("after").unwrap()), "plain");
        // Past a long non-ASCII run (more than one checkpoint stride).
        let long = format!("# {}\nx: y\n", "é".repeat(300));
        let root = doc(&long);
        assert_eq!(src(&long, root.get("x").unwrap()), "y");
    }

    #[test]
    fn collection_spans() {
        let text = "m:\n  a: 1\n  b: [x, y]   \ns:\n- one\n- two\nt: &t\n  - 3\nu: {p: q}\n";
        let root = doc(text);
        assert_eq!(src(text, root.get("m").unwrap()), "a: 1\n  b: [x, y]");
        assert_eq!(src(text, root.get("s").unwrap()), "- one\n- two");
        assert_eq!(src(text, root.get("t").unwrap()), "- 3");
        assert_eq!(src(text, root.get("u").unwrap()), "{p: q}");
    }

    #[test]
    fn block_scalars_are_strings_spanning_the_header() {
        let text = "a: |\n  line one\n  line two\n\nb: >- # folded\n  x\n  y\nc: !!str |\n  t\n";
        let root = doc(text);
        let a = root.get("a").unwrap();
        assert_eq!(a.as_str(), Some("line one\nline two\n"));
        assert_eq!(src(text, a), "|\n  line one\n  line two");
        let b = root.get("b").unwrap();
        assert_eq!(b.as_str(), Some("x y"));
        assert_eq!(src(text, b), ">- # folded\n  x\n  y");
        assert_eq!(src(text, root.get("c").unwrap()), "|\n  t");
    }

    /// Every span of the tree, keys included.
    fn all_spans(node: &Node, out: &mut Vec<Span>) {
        out.push(node.span);
        match &node.kind {
            NodeKind::Seq(items) => items.iter().for_each(|n| all_spans(n, out)),
            NodeKind::Map(entries) => {
                for (k, v) in entries {
                    out.push(k.span);
                    all_spans(v, out);
                }
            }
            _ => {}
        }
    }

    #[test]
    fn every_span_is_a_slice_of_the_text() {
        let docs = [
            include_str!("../../../../examples/seed000/hooks.yaml"),
            include_str!("../../../../examples/seed000/directive_hooks.yaml"),
            "[a: b, {c, d}, ? e : f]",
            "a: &x\n  - ü\n  - [ö]\nb: *x\nc: ! é\nd:\n  ? é\n  : |-\n    ü\ne: !!str\n",
            "- - - x\n  - y\n- 'z'  \n-\n- \"a\\\"b\"\n",
        ];
        for text in docs {
            let mut spans = Vec::new();
            all_spans(&doc(text), &mut spans);
            for span in spans {
                assert!(span.start <= span.end, "{span:?} in {text:?}");
                assert!(text.get(span.range()).is_some(), "{span:?} in {text:?}");
            }
        }
        let text = "[a: b, {c, d}]";
        let root = doc(text);
        let items = root.as_seq().unwrap();
        assert_eq!(items[0].get("a").unwrap().as_str(), Some("b"));
        assert_eq!(src(text, &items[1]), "{c, d}");
        assert_eq!(items[1].get("d").unwrap().kind, NodeKind::Null);
    }

    #[test]
    fn crlf_and_bom() {
        let text = "\u{feff}a: b\r\nc:\r\n  - \"d\"\r\n";
        let root = doc(text);
        assert_eq!(src(text, root.get("a").unwrap()), "b");
        let c = root.get("c").unwrap();
        assert_eq!(src(text, c), "- \"d\"");
        assert_eq!(src(text, &c.as_seq().unwrap()[0]), "\"d\"");
    }

    #[test]
    fn plain_scalars_follow_the_core_schema() {
        for s in ["~", "null", "Null", "NULL", ""] {
            assert_eq!(kind(s), NodeKind::Null, "{s}");
        }
        for (s, b) in [
            ("true", true),
            ("True", true),
            ("TRUE", true),
            ("false", false),
            ("FALSE", false),
        ] {
            assert_eq!(kind(s), NodeKind::Bool(b), "{s}");
        }
        for (s, i) in [
            ("0", 0),
            ("-12", -12),
            ("+7", 7),
            ("007", 7),
            ("0o17", 15),
            ("0x1F", 31),
        ] {
            assert_eq!(kind(s), NodeKind::Int(i), "{s}");
        }
        assert_eq!(kind("9223372036854775807"), NodeKind::Int(i64::MAX));
        assert_eq!(kind("-9223372036854775808"), NodeKind::Int(i64::MIN));
        for (s, f) in [
            ("1.5", 1.5),
            ("-1e3", -1000.0),
            (".5", 0.5),
            ("1.", 1.0),
            ("+2.5E-1", 0.25),
        ] {
            assert_eq!(kind(s), NodeKind::Float(f), "{s}");
        }
        assert_eq!(kind(".inf"), NodeKind::Float(f64::INFINITY));
        assert_eq!(kind("-.Inf"), NodeKind::Float(f64::NEG_INFINITY));
        assert!(matches!(kind(".NaN"), NodeKind::Float(f) if f.is_nan()));
        for s in [
            "yes", "on", "1.0.0", "0x", "0o8", "1_000", "nan", "inf", "1e", "e3", ".", "tRue",
            "1.2.3",
        ] {
            assert_eq!(kind(s), NodeKind::Str(s.into()), "{s}");
        }
        for s in ["'1'", "\"true\"", "'~'", "|\n  12\n"] {
            assert!(matches!(kind(s), NodeKind::Str(_)), "{s}");
        }
    }

    #[test]
    fn out_of_range_literals_are_errors() {
        let d = err("v: 9223372036854775808\n");
        assert_eq!(d.code, Code::BadLiteral);
        assert_eq!(
            d.message,
            "integer `9223372036854775808` does not fit in 64 bits"
        );
        assert_eq!(d.span, Some(Span::new(F, 3, 22)));
        assert_eq!(d.node_path.as_deref(), Some("v"));
        assert_eq!(
            err("v: [0xFFFFFFFFFFFFFFFFFF]").node_path.as_deref(),
            Some("v[0]")
        );
        assert_eq!(err("v: 1e999").code, Code::BadLiteral);
        // A quoted big number is a string, and so is a big key.
        assert!(matches!(kind("'9223372036854775808'"), NodeKind::Str(_)));
        assert!(doc("99999999999999999999: x")
            .get("99999999999999999999")
            .is_some());
    }

    #[test]
    fn tags() {
        assert_eq!(kind("!!str 12"), NodeKind::Str("12".into()));
        assert_eq!(kind("!!int '12'"), NodeKind::Int(12));
        assert_eq!(kind("!!float 3"), NodeKind::Float(3.0));
        assert_eq!(kind("!!float 2.5"), NodeKind::Float(2.5));
        assert_eq!(kind("!!bool \"true\""), NodeKind::Bool(true));
        assert_eq!(kind("!!null ''"), NodeKind::Null);
        assert_eq!(kind("! 12"), NodeKind::Str("12".into()));
        assert!(matches!(kind("!!map {a: 1}"), NodeKind::Map(_)));
        assert!(matches!(kind("!!seq [1]"), NodeKind::Seq(_)));
        let d = err("v: !!int abc\n");
        assert_eq!(d.code, Code::BadLiteral);
        assert_eq!(d.message, "`abc` is not an integer (tag `!!int`)");
        assert_eq!(err("v: !!bool 1").code, Code::BadLiteral);
        assert_eq!(err("v: !!null x").code, Code::BadLiteral);
        assert_eq!(err("v: !!float x").code, Code::BadLiteral);
        assert_eq!(err("v: !!str [1]").code, Code::BadLiteral);
        let d = err("v: !foo x\n");
        assert_eq!(d.code, Code::YamlSyntax);
        assert_eq!(d.message, "unsupported tag `!foo`");
        assert_eq!(d.span, Some(Span::new(F, 8, 9)));
        assert_eq!(
            err("v: !!binary eA==").message,
            "unsupported tag `!!binary`"
        );
        assert_eq!(err("v: !!set {a}").message, "unsupported tag `!!set`");
        assert_eq!(
            err("!!int a: b").code,
            Code::BadLiteral,
            "a tagged key is checked"
        );
        assert!(doc("!!str a: b").get("a").is_some());
    }

    #[test]
    fn aliases_expand() {
        let text =
            "base: &b {x: 1, y: [2]}\nname: &n hello\ncopy: *b\nnames: [*n, *n]\n*n : keyed\n";
        let root = doc(text);
        assert_eq!(root.get("copy"), root.get("base"));
        let names = root.get("names").unwrap().as_seq().unwrap();
        assert_eq!(names[0].as_str(), Some("hello"));
        assert_eq!(root.get("hello").unwrap().as_str(), Some("keyed"));
        // The aliased key is written where the alias is.
        let (k, _) = root.as_map().unwrap().last().unwrap();
        assert_eq!(&text[k.span.range()], "*n");
    }

    #[test]
    fn bad_aliases() {
        let d = err("a: *nope\n");
        assert_eq!(d.code, Code::YamlSyntax);
        assert_eq!(d.message, "unknown alias `*nope`");
        assert_eq!(d.span, Some(Span::new(F, 3, 8)));
        let d = err("a: &r [1, *r]\n");
        assert_eq!(d.code, Code::YamlSyntax);
        assert_eq!(d.node_path.as_deref(), Some("a[1]"));
        let d = err("a: &m {k: v}\n*m : x\n");
        assert_eq!(d.code, Code::WrongShape);
    }

    #[test]
    fn billion_laughs_fails_fast() {
        let mut text = String::from("l0: &l0 [lol, lol, lol, lol, lol, lol, lol, lol, lol, lol]\n");
        for i in 1..=9 {
            let refs = vec![format!("*l{}", i - 1); 10].join(", ");
            text.push_str(&format!("l{i}: &l{i} [{refs}]\n"));
        }
        let started = std::time::Instant::now();
        let d = err(&text);
        assert_eq!(d.code, Code::TooLarge);
        assert!(d.message.contains("alias bomb"), "{}", d.message);
        assert!(started.elapsed() < std::time::Duration::from_secs(5));
        // Deep rather than wide: an alias may not push nesting past the limit.
        let mut deep = String::from("a0: &a0 [x]\n");
        for i in 1..70 {
            deep.push_str(&format!("a{i}: &a{i} [[*a{}]]\n", i - 1));
        }
        assert_eq!(err(&deep).code, Code::TooDeep);
    }

    #[test]
    fn too_many_plain_nodes() {
        let text = format!("[{}]", "1,".repeat(MAX_DOC_NODES + 1));
        let d = err(&text);
        assert_eq!(d.code, Code::TooLarge);
        assert!(!d.message.contains("alias"));
    }

    #[test]
    fn duplicate_keys() {
        let d = err("a: 1\nb:\n  c: 2\n  c: 3\n");
        assert_eq!(d.code, Code::DuplicateKey);
        assert_eq!(d.message, "key `c` is already defined on line 3");
        assert_eq!(d.span, Some(Span::new(F, 17, 18)));
        assert_eq!(d.node_path.as_deref(), Some("b.c"));
        assert_eq!(err("{a: 1, 'a': 2}").code, Code::DuplicateKey);
        // Past the linear scan.
        let many: String = (0..40).map(|i| format!("k{i}: {i}\n")).collect();
        assert_eq!(doc(&many).as_map().unwrap().len(), 40);
        let d = err(&format!("{many}k7: again\n"));
        assert_eq!(d.code, Code::DuplicateKey);
        assert_eq!(d.message, "key `k7` is already defined on line 8");
    }

    #[test]
    fn complex_keys_are_rejected() {
        let d = err("? [a, b]\n: c\n");
        assert_eq!(d.code, Code::WrongShape);
        assert_eq!(d.message, "a mapping key must be a scalar, found a list");
        assert_eq!(err("{? {a: b} : c}").code, Code::WrongShape);
    }

    #[test]
    fn deep_nesting_is_an_error_not_a_crash() {
        for n in [MAX_DOC_DEPTH + 1, 100_000] {
            let text = format!("{}{}", "[".repeat(n), "]".repeat(n));
            let d = err(&text);
            assert_eq!(d.code, Code::TooDeep);
        }
        let ok = format!("{}{}", "[".repeat(MAX_DOC_DEPTH), "]".repeat(MAX_DOC_DEPTH));
        assert!(doc(&ok).as_seq().is_some());
        let text = format!("{}x\n", "- ".repeat(100_000));
        assert_eq!(err(&text).code, Code::TooDeep);
        let text = "{a: ".repeat(100_000);
        assert_eq!(err(&text).code, Code::TooDeep);
        let text: String = (0..200).map(|i| format!("{}k:\n", " ".repeat(i))).collect();
        assert_eq!(err(&text).code, Code::TooDeep);
    }

    #[test]
    fn one_document_only() {
        let d = err("a: 1\n---\nb: 2\n");
        assert_eq!(d.code, Code::YamlSyntax);
        assert_eq!(d.message, "only one YAML document per file");
        assert_eq!(d.span, Some(Span::new(F, 5, 8)));
        assert!(parse("---\na: 1\n...\n", F).is_ok());
    }

    #[test]
    fn syntax_errors_point_at_the_problem() {
        let d = err("a: [b\n");
        assert_eq!(d.code, Code::YamlSyntax);
        assert!(!d.message.contains("line"), "{}", d.message);
        assert_eq!(d.span.map(|s| s.start), Some(6));
        let d = err("a: b\n c: d\n");
        assert_eq!(d.code, Code::YamlSyntax);
        let d = err("é: \"x\n");
        assert_eq!(d.code, Code::YamlSyntax);
        let d = err("a: 'unterminated");
        assert_eq!(d.code, Code::YamlSyntax);
    }

    #[test]
    fn too_large_input() {
        let text = " ".repeat(MAX_INPUT_BYTES + 1);
        assert_eq!(err(&text).code, Code::TooLarge);
    }

    #[test]
    fn origins() {
        let text = "a: x == 1\nb: 'y > 2'\nc: \"z\\t\"\nd: 'it''s'\ne: >\n  f\nn: 3\n";
        let root = doc(text);
        let origin = |k: &str| origin_of(text, root.get(k).unwrap());
        assert_eq!(origin("a"), Origin::Exact { file: F, base: 3 });
        assert_eq!(origin("b"), Origin::Exact { file: F, base: 14 });
        for k in ["c", "d", "e", "n"] {
            assert_eq!(origin(k), Origin::Whole(root.get(k).unwrap().span), "{k}");
        }
        // Non-ASCII before the scalar: the base is a byte offset.
        let text = "é: ok\nw: a.b == 'ü'\n";
        let root = doc(text);
        let Origin::Exact { base, .. } = origin_of(text, root.get("w").unwrap()) else {
            panic!("not exact");
        };
        assert_eq!(&text[base as usize..], "a.b == 'ü'\n");
    }
}

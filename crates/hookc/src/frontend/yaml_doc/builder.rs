//! The tree builder: the parser's events, one at a time, into a [`Node`]
//! tree, with an explicit stack of open collections, anchors remembered with
//! their sizes, aliases expanded within the limits, and duplicate keys refused.

use super::scalar::{check_collection_tag, scalar_kind};
use super::spans::{block_header_before, line_of, quoted_end, CharMap};
use super::{fail, Fallible};

use crate::diag::{Code, Diagnostic};
use crate::frontend::doc::{Key, Node, NodeKind};
use crate::span::{FileId, Span};
use hookc_runtime::limits::{MAX_ALIAS_BYTES, MAX_DOC_DEPTH, MAX_DOC_NODES};
use saphyr_parser::{ScalarStyle, ScanError, Tag};
use std::collections::HashMap;

/// A node under construction: an open sequence or mapping.
struct BuildFrame {
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

pub(super) struct TreeBuilder<'t> {
    text: &'t str,
    file: FileId,
    pub(super) chars: CharMap<'t>,
    stack: Vec<BuildFrame>,
    anchors: HashMap<usize, Anchored>,
    /// Nodes produced so far, aliases expanded.
    nodes: usize,
    /// Bytes of scalar text copied by aliases so far.
    copied: usize,
    root: Option<Node>,
}

impl<'t> TreeBuilder<'t> {
    pub(super) fn new(text: &'t str, file: FileId) -> Self {
        TreeBuilder {
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

    pub(super) fn finish(self) -> Node {
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
            Some(BuildFrame {
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
    pub(super) fn scalar(
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
    pub(super) fn alias(&mut self, id: usize, start: usize, end: usize) -> Fallible {
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
    pub(super) fn open(
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
        self.stack.push(BuildFrame {
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
    pub(super) fn close(&mut self, ev_start: usize) -> Fallible {
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
        // A key must be a scalar that the mapping does not have yet. The
        // node path is built only for these errors (building it for every
        // node was a tenth of reading a large file).
        // `Some(None)`: a key that is not a scalar; `Some(Some(at))`: a key
        // the mapping already has, first written at `at`.
        let bad_key = match self.stack.last_mut().map(|f| &mut f.body) {
            Some(Body::Map(map)) if map.pending.is_none() => match &key {
                None => Some(None),
                Some(name) => map.find(name).map(|first| Some(first.span.start)),
            },
            _ => None,
        };
        match (bad_key, &key) {
            (Some(None), _) | (Some(Some(_)), None) => {
                return fail(
                    Diagnostic::new(
                        Code::WrongShape,
                        format!("a mapping key must be a scalar, found {}", node.kind_name()),
                    )
                    .at(at)
                    .node(self.path()),
                );
            }
            (Some(Some(first)), Some(name)) => {
                let line = line_of(self.text, first as usize);
                let path = self.path();
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
            (None, _) => {}
        }
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
                    if let Some(name) = key {
                        map.pending = Some(Key { name, span: at });
                    }
                }
            },
        }
        Ok(())
    }

    /// A parser error as a diagnostic at its position.
    pub(super) fn scan_error(&self, e: &ScanError) -> Diagnostic {
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
        if e.info().contains("unknown escape character") && rest.starts_with('"') {
            if let Some((offset, escape)) = unknown_escape(rest) {
                let start = at + offset;
                return Diagnostic::new(
                    Code::YamlSyntax,
                    format!("`\\{escape}` is no escape of a YAML double-quoted string"),
                )
                .at(self.span(start, start + 1 + escape.len_utf8()))
                .label("read as a YAML escape")
                .help(format!(
                    "in YAML double quotes a backslash starts an escape: for the backslash \
                     itself (a regex's `\\{escape}`), quote the value with single quotes, where \
                     backslashes are plain (a `'` inside is written `''`), write it as a block \
                     scalar (`>-` and the text on the next lines), or double it (`\\\\{escape}`)"
                ));
            }
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
        Diagnostic::new(Code::YamlSyntax, message)
            .at(self.one_char(at))
            .maybe_help(indentation_hint(e.info()).map(str::to_owned))
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

/// A help line for the parser's messages about block structure, which in a
/// hook file nearly always means a line indented wrongly (the parser's own
/// words, "did not find expected key", do not say so).
pub(super) fn indentation_hint(info: &str) -> Option<&'static str> {
    const BLOCK: [&str; 6] = [
        "did not find expected '-' indicator",
        "did not find expected key",
        "block sequence entries are not allowed",
        "mapping keys are not allowed",
        "invalid indentation",
        "simple key expect",
    ];
    if info.contains("mapping values are not allowed") {
        Some(
            "a `key: value` where the line above does not allow one: check this line's \
             indentation against the lines above, or quote a value that contains `: `",
        )
    } else if info.contains("tab") && (info.contains("indentation") || info.contains("disallowed"))
    {
        Some("indent with spaces: YAML does not allow tabs in indentation")
    } else if BLOCK.iter().any(|b| info.contains(b)) {
        Some(
            "check this line's indentation against the lines above: the keys of one \
             mapping and the `-` entries of one list start in the same column, and what \
             belongs to a key is indented more than the key",
        )
    } else {
        None
    }
}

/// The first escape of the double-quoted scalar `quoted` (from its opening
/// quote) that YAML does not have, with its byte offset: where the
/// scanner's "unknown escape character" is.
fn unknown_escape(quoted: &str) -> Option<(usize, char)> {
    // YAML 1.2's escapes (`\x`, `\u`, `\U` take digits after them).
    const KNOWN: &str = "0abt\tnvfre \"/\\N_LPxuU";
    let mut chars = quoted.char_indices().skip(1);
    while let Some((i, c)) = chars.next() {
        match c {
            '"' => return None,
            '\\' => {
                let (_, e) = chars.next()?;
                if !KNOWN.contains(e) && e != '\n' && e != '\r' {
                    return Some((i, e));
                }
            }
            _ => {}
        }
    }
    None
}

//! The spanned document tree both front ends read into: YAML nodes, and XML
//! attribute and `<param>` values.
//!
//! It is JSON's data model plus [`NodeKind::Text`], an untyped string from XML
//! whose type the reader decides (an action parameter declared `integer`
//! accepts `timeout_seconds="7200"`).

use crate::diag::{Code, Diagnostic};
use crate::span::Span;
use hookc_runtime::limits::{MAX_LIST_ITEMS, MAX_STRING_BYTES};

/// The node path of `key` under the node path `base`, as diagnostics name
/// nodes: `base.key`, or `base['odd key']` for keys that are not
/// identifiers.
pub fn child_path(base: &str, key: &str) -> String {
    if hookc_runtime::bytecode::path::is_identifier(key) {
        format!("{base}.{key}")
    } else {
        let mut out = format!("{base}[");
        // Writing to a `String` cannot fail.
        let _ = hookc_runtime::bytecode::path::write_quoted(&mut out, key);
        out.push(']');
        out
    }
}

/// One node with the span of its source text.
#[derive(Debug, Clone, PartialEq)]
pub struct Node {
    /// What it is.
    pub kind: NodeKind,
    /// Where it was written.
    pub span: Span,
}

/// A node's value.
#[derive(Debug, Clone, PartialEq)]
pub enum NodeKind {
    /// `null`, `~` or an empty YAML value.
    Null,
    /// `true` / `false`.
    Bool(bool),
    /// An integer that fits `i64`.
    Int(i64),
    /// A floating-point number.
    Float(f64),
    /// A string (quoted, or a plain YAML scalar that is no other type).
    Str(String),
    /// An untyped string from XML: coerced by whoever reads it.
    Text(String),
    /// A sequence.
    Seq(Vec<Node>),
    /// A mapping, in source order; keys are strings.
    Map(Vec<(Key, Node)>),
}

/// A mapping key with its own span.
#[derive(Debug, Clone, PartialEq)]
pub struct Key {
    /// The key text.
    pub name: String,
    /// Where the key was written.
    pub span: Span,
}

impl Node {
    /// A short name of the node's kind for messages: `a string`, `a mapping`, ...
    pub fn kind_name(&self) -> &'static str {
        match self.kind {
            NodeKind::Null => "null",
            NodeKind::Bool(_) => "a bool",
            NodeKind::Int(_) => "an integer",
            NodeKind::Float(_) => "a number",
            NodeKind::Str(_) | NodeKind::Text(_) => "a string",
            NodeKind::Seq(_) => "a list",
            NodeKind::Map(_) => "a mapping",
        }
    }

    /// The string, for `Str` and `Text`.
    pub fn as_str(&self) -> Option<&str> {
        match &self.kind {
            NodeKind::Str(s) | NodeKind::Text(s) => Some(s),
            _ => None,
        }
    }

    /// The entries, for a mapping.
    pub fn as_map(&self) -> Option<&[(Key, Node)]> {
        match &self.kind {
            NodeKind::Map(m) => Some(m),
            _ => None,
        }
    }

    /// The items, for a sequence.
    pub fn as_seq(&self) -> Option<&[Node]> {
        match &self.kind {
            NodeKind::Seq(s) => Some(s),
            _ => None,
        }
    }

    /// The value of `key` in a mapping (the first, if repeated).
    pub fn get(&self, key: &str) -> Option<&Node> {
        self.as_map()?
            .iter()
            .find(|(k, _)| k.name == key)
            .map(|(_, v)| v)
    }

    /// The first string (value or mapping key) longer than
    /// [`MAX_STRING_BYTES`] or sequence longer than [`MAX_LIST_ITEMS`] in this
    /// tree, as an `E0006` diagnostic naming `what` (`a condition value`, ...).
    /// A walk with an explicit stack: no recursion over the tree.
    pub fn too_large(&self, what: &str) -> Option<Diagnostic> {
        let long_string = |len: usize, span: Span| {
            Diagnostic::new(
                Code::TooLarge,
                format!(
                    "a string of {len} bytes in {what} is longer than the limit of \
                     {MAX_STRING_BYTES} bytes (MAX_STRING_BYTES)"
                ),
            )
            .at(span)
            .label("string too long")
        };
        let mut stack = vec![self];
        while let Some(node) = stack.pop() {
            match &node.kind {
                NodeKind::Str(s) | NodeKind::Text(s) if s.len() > MAX_STRING_BYTES => {
                    return Some(long_string(s.len(), node.span));
                }
                NodeKind::Seq(items) if items.len() > MAX_LIST_ITEMS => {
                    return Some(
                        Diagnostic::new(
                            Code::TooLarge,
                            format!(
                                "a list of {} items in {what} is longer than the limit of \
                                 {MAX_LIST_ITEMS} items (MAX_LIST_ITEMS)",
                                items.len()
                            ),
                        )
                        .at(node.span)
                        .label("list too long"),
                    );
                }
                NodeKind::Seq(items) => stack.extend(items.iter().rev()),
                NodeKind::Map(entries) => {
                    if let Some((k, _)) = entries
                        .iter()
                        .find(|(k, _)| k.name.len() > MAX_STRING_BYTES)
                    {
                        return Some(long_string(k.name.len(), k.span));
                    }
                    stack.extend(entries.iter().rev().map(|(_, v)| v));
                }
                _ => {}
            }
        }
        None
    }

    /// The node as plain JSON (text becomes a string).
    pub fn to_json(&self) -> serde_json::Value {
        use serde_json::Value;
        match &self.kind {
            NodeKind::Null => Value::Null,
            NodeKind::Bool(b) => Value::Bool(*b),
            NodeKind::Int(i) => Value::from(*i),
            NodeKind::Float(f) => {
                serde_json::Number::from_f64(*f).map_or(Value::Null, Value::Number)
            }
            NodeKind::Str(s) | NodeKind::Text(s) => Value::String(s.clone()),
            NodeKind::Seq(items) => Value::Array(items.iter().map(Node::to_json).collect()),
            NodeKind::Map(entries) => Value::Object(
                entries
                    .iter()
                    .map(|(k, v)| (k.name.clone(), v.to_json()))
                    .collect(),
            ),
        }
    }
}

impl Node {
    /// A node tree from JSON, every node at `span` (for built-in defaults and
    /// for data that did not come from a file).
    pub fn from_json(value: &serde_json::Value, span: Span) -> Node {
        use serde_json::Value;
        let kind = match value {
            Value::Null => NodeKind::Null,
            Value::Bool(b) => NodeKind::Bool(*b),
            Value::Number(n) => match n.as_i64() {
                Some(i) => NodeKind::Int(i),
                None => NodeKind::Float(n.as_f64().unwrap_or(f64::NAN)),
            },
            Value::String(s) => NodeKind::Str(s.clone()),
            Value::Array(items) => {
                NodeKind::Seq(items.iter().map(|v| Node::from_json(v, span)).collect())
            }
            Value::Object(map) => NodeKind::Map(
                map.iter()
                    .map(|(k, v)| {
                        (
                            Key {
                                name: k.clone(),
                                span,
                            },
                            Node::from_json(v, span),
                        )
                    })
                    .collect(),
            ),
        };
        Node { kind, span }
    }
}

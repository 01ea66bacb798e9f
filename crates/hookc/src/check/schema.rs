//! The event-context schema (`docs/src/semantics.md#static-checking`): a JSON-Schema subset read from
//! `event_context_schema`, and the resolution of context paths against it.
//!
//! Supported keywords: `type` (a name or a list), `properties`, `items`,
//! `additionalProperties`, `enum`, `const`, `format`, `required`,
//! `description`. Annotation keywords (`title`, `examples`, `default`, ...) and
//! value constraints that do not change a type (`minimum`, `pattern`, ...) are
//! accepted and ignored; keywords that would change typing (`oneOf`, `$ref`,
//! ...) are rejected, so a schema never means less than it says.
//!
//! How an object treats keys it does not list:
//! - `additionalProperties: false`: closed, an unknown key is an error;
//! - `additionalProperties: {schema}`: every other key has that schema;
//! - `properties` given, `additionalProperties` absent or `true`: open, an
//!   unknown key is a warning and has type `any`;
//! - neither given (`{type: object}`): free-form, any key is `any`, silently.

use crate::check::ty::{Kinds, Type};
use crate::diag::{Code, Diagnostic, Diagnostics};
use crate::frontend::doc::{Node, NodeKind};
use crate::span::Span;
use crate::suggest;
use hookc_runtime::bytecode::path::{Path, Step};

/// An index into [`ContextSchema`]'s nodes.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub struct SchemaId(u32);

/// How an object treats keys outside `properties`.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Additional {
    /// `additionalProperties: false`.
    Closed,
    /// `properties` listed, other keys allowed: warn, type `any`.
    Open,
    /// Nothing listed: any key, type `any`, no warning.
    FreeForm,
    /// `additionalProperties: {schema}`.
    Schema(SchemaId),
}

/// One schema node.
#[derive(Debug, Clone)]
pub struct SchemaNode {
    /// The kinds `type` allows (all when absent).
    pub kinds: Kinds,
    /// `properties`, in declaration order.
    pub properties: Vec<(String, SchemaId)>,
    /// Keys outside `properties`.
    pub additional: Additional,
    /// `items`.
    pub items: Option<SchemaId>,
    /// `enum`, or `const` as a one-value enum.
    pub allowed: Option<Vec<serde_json::Value>>,
    /// `format`.
    pub format: Option<String>,
    /// `description`.
    pub description: Option<String>,
    /// `required`: the keys an object here always has.
    pub required: Vec<String>,
}

/// A whole context schema.
#[derive(Debug, Clone)]
pub struct ContextSchema {
    nodes: Vec<SchemaNode>,
    /// The schema as written, for `--emit` (absent for the built-in default).
    source: Option<serde_json::Value>,
}

/// The context-schema keywords that type paths.
pub const SUPPORTED: &[&str] = &[
    "type",
    "properties",
    "items",
    "additionalProperties",
    "enum",
    "const",
    "format",
    "required",
    "description",
];

/// The context-schema keywords accepted and ignored (annotations, value
/// constraints that do not change a type).
pub const IGNORED: &[&str] = &[
    "title",
    "$schema",
    "$id",
    "$comment",
    "examples",
    "default",
    "deprecated",
    "readOnly",
    "writeOnly",
    "minimum",
    "maximum",
    "exclusiveMinimum",
    "exclusiveMaximum",
    "multipleOf",
    "minLength",
    "maxLength",
    "pattern",
    "minItems",
    "maxItems",
    "uniqueItems",
    "minProperties",
    "maxProperties",
];

/// What a path resolved to.
#[derive(Debug, Clone)]
pub struct ResolvedPath {
    /// Its type (`any` past an open or free-form object).
    pub ty: Type,
    /// Where the path left the schema, if it did: the prefix that is known and
    /// how the next key was treated.
    pub outside: Option<Outside>,
}

/// A path that leaves the schema.
#[derive(Debug, Clone)]
pub struct Outside {
    /// The part of the path the schema knows (`error` for `error.headers.x`).
    pub known_prefix: String,
    /// The key not in the schema.
    pub key: String,
    /// Whether the object is closed (error) or open (warning).
    pub closed: bool,
    /// The keys the object does list (for did-you-mean).
    pub candidates: Vec<String>,
}

/// A path step applied to a type that cannot have it (`error.code.x` where
/// `error.code` is a string).
#[derive(Debug, Clone)]
pub struct BadStep {
    /// The prefix and its kinds.
    pub prefix: String,
    /// The prefix's kinds.
    pub kinds: Kinds,
    /// What was asked of it: `field `x`` or `index 0`.
    pub step: String,
}

impl ContextSchema {
    /// The built-in event context schema (that of
    /// `examples/seed000/hooks.yaml`), used when no file declares one.
    pub fn builtin() -> ContextSchema {
        let json = serde_json::json!({
            "type": "object",
            "properties": {
                "event": {"type": "object", "properties": {
                    "type": {"type": "string"},
                    "timestamp": {"type": "string", "format": "date-time"},
                    "thread_id": {"type": "string"},
                    "directive": {"type": "string"}
                }},
                "error": {"type": "object", "properties": {
                    "type": {"type": "string"},
                    "message": {"type": "string"},
                    "code": {"type": "string"}
                }},
                "classification": {"type": "object", "properties": {
                    "category": {"type": "string"},
                    "retryable": {"type": "boolean"},
                    "retry_policy": {"type": "object"}
                }},
                "limit_code": {"type": "string"},
                "limit_value": {"type": "number"},
                "limit_max": {"type": "number"},
                "tokens_used": {"type": "integer"},
                "max_tokens": {"type": "integer"},
                "pressure_ratio": {"type": "number"},
                "turn_number": {"type": "integer"},
                "cost": {"type": "object"}
            }
        });
        let mut schema = ContextSchema {
            nodes: Vec::new(),
            source: None,
        };
        // The built-in JSON is fixed and known valid (tested below); a
        // diagnostic here would be a bug, and is dropped rather than shown.
        let mut sink = Diagnostics::new();
        let node = Node::from_json(&json, Span::new(crate::span::FileId(u32::MAX), 0, 0));
        schema.read_node(&node, 0, &mut sink);
        schema
    }

    /// Reads `event_context_schema`. Problems are reported; the schema read is
    /// still usable (bad parts become `any`).
    pub fn from_node(node: &Node, diags: &mut Diagnostics) -> ContextSchema {
        let mut schema = ContextSchema {
            nodes: Vec::new(),
            source: Some(node.to_json()),
        };
        schema.read_node(node, 0, diags);
        schema
    }

    /// The schema as written, if one was declared.
    pub fn source(&self) -> Option<&serde_json::Value> {
        self.source.as_ref()
    }

    /// The root node's id.
    pub fn root(&self) -> SchemaId {
        SchemaId(0)
    }

    /// A node by id.
    pub fn node(&self, id: SchemaId) -> Option<&SchemaNode> {
        self.nodes.get(id.0 as usize)
    }

    fn push(&mut self, node: SchemaNode) -> SchemaId {
        let id = SchemaId(u32::try_from(self.nodes.len()).unwrap_or(u32::MAX));
        self.nodes.push(node);
        id
    }

    fn set(&mut self, id: SchemaId, node: SchemaNode) {
        if let Some(slot) = self.nodes.get_mut(id.0 as usize) {
            *slot = node;
        }
    }

    /// Reads one schema node (pre-order, so the root is id 0).
    fn read_node(&mut self, node: &Node, depth: usize, diags: &mut Diagnostics) -> SchemaId {
        let id = self.push(SchemaNode::any());
        if depth > hookc_runtime::limits::MAX_DOC_DEPTH {
            diags.push(
                Diagnostic::new(Code::TooDeep, "event_context_schema is nested too deeply")
                    .at(node.span),
            );
            return id;
        }
        let Some(entries) = node.as_map() else {
            diags.push(
                Diagnostic::new(
                    Code::ContextSchema,
                    format!("expected a schema (a mapping), found {}", node.kind_name()),
                )
                .at(node.span),
            );
            return id;
        };
        let mut out = SchemaNode::any();
        let mut has_properties = false;
        let mut additional = None;
        for (key, value) in entries {
            match key.name.as_str() {
                "type" => out.kinds = read_type(value, diags),
                "properties" => {
                    has_properties = true;
                    match value.as_map() {
                        Some(props) => {
                            for (pk, pv) in props {
                                let child = self.read_node(pv, depth + 1, diags);
                                out.properties.push((pk.name.clone(), child));
                            }
                        }
                        None => {
                            diags.push(shape(value, "`properties` must be a mapping of schemas"))
                        }
                    }
                }
                "items" => out.items = Some(self.read_node(value, depth + 1, diags)),
                "additionalProperties" => {
                    additional = Some(match &value.kind {
                        NodeKind::Bool(false) => Additional::Closed,
                        NodeKind::Bool(true) => Additional::Open,
                        NodeKind::Map(_) => {
                            Additional::Schema(self.read_node(value, depth + 1, diags))
                        }
                        _ => {
                            diags.push(shape(
                                value,
                                "`additionalProperties` must be a bool or a schema",
                            ));
                            Additional::Open
                        }
                    })
                }
                "enum" => match value.as_seq() {
                    Some(items) => out.allowed = Some(items.iter().map(Node::to_json).collect()),
                    None => diags.push(shape(value, "`enum` must be a list of values")),
                },
                "const" => out.allowed = Some(vec![value.to_json()]),
                "format" => out.format = value.as_str().map(str::to_owned),
                "description" => out.description = value.as_str().map(str::to_owned),
                "required" => {
                    match value
                        .as_seq()
                        .and_then(|s| s.iter().map(Node::as_str).collect::<Option<Vec<_>>>())
                    {
                        Some(names) => {
                            out.required = names.into_iter().map(str::to_owned).collect()
                        }
                        None => {
                            diags.push(shape(value, "`required` must be a list of property names"))
                        }
                    }
                }
                name if IGNORED.contains(&name) => {}
                name => {
                    let d = Diagnostic::new(
                        Code::ContextSchema,
                        format!("schema keyword `{name}` is not supported"),
                    )
                    .at(key.span);
                    let d = match suggest::did_you_mean(name, SUPPORTED.iter().copied()) {
                        Some(best) => d.help(format!("did you mean `{best}`?")),
                        None => d.help(format!(
                            "event_context_schema supports {}",
                            SUPPORTED
                                .iter()
                                .map(|k| format!("`{k}`"))
                                .collect::<Vec<_>>()
                                .join(", ")
                        )),
                    };
                    diags.push(d);
                }
            }
        }
        out.additional = match additional {
            Some(Additional::Open) if !has_properties => Additional::FreeForm,
            Some(a) => a,
            None if has_properties => Additional::Open,
            None => Additional::FreeForm,
        };
        self.set(id, out);
        id
    }

    /// Resolves a path: its type, and whether (and how) it leaves the schema.
    /// `Err` when a step is applied to a type that cannot have it.
    pub fn resolve(&self, path: &Path) -> Result<ResolvedPath, BadStep> {
        self.resolve_from(
            Some(self.root()),
            Kinds::OBJECT,
            path.steps(),
            String::new(),
        )
    }

    /// Resolves a field step on a value of schema `base` (used for fields of
    /// macro variables).
    pub fn resolve_from<'a>(
        &self,
        base: Option<SchemaId>,
        base_kinds: Kinds,
        steps: impl Iterator<Item = Step<'a>>,
        mut prefix: String,
    ) -> Result<ResolvedPath, BadStep> {
        let mut cur = base;
        let mut kinds = base_kinds;
        for step in steps {
            let Some(node) = cur.and_then(|id| self.node(id)) else {
                // Past the schema: nothing more is known.
                return Ok(ResolvedPath {
                    ty: Type::any(),
                    outside: None,
                });
            };
            match step {
                Step::Field(name) => {
                    if !kinds.intersects(Kinds::OBJECT) {
                        return Err(BadStep {
                            prefix,
                            kinds,
                            step: format!("field `{name}`"),
                        });
                    }
                    let next = node
                        .properties
                        .iter()
                        .find(|(k, _)| k == name)
                        .map(|(_, v)| *v);
                    let next = match (next, node.additional) {
                        (Some(id), _) | (None, Additional::Schema(id)) => id,
                        (None, Additional::FreeForm) => {
                            return Ok(ResolvedPath {
                                ty: Type::any(),
                                outside: None,
                            })
                        }
                        (None, extra) => {
                            return Ok(ResolvedPath {
                                ty: Type::any(),
                                outside: Some(Outside {
                                    known_prefix: prefix,
                                    key: name.to_owned(),
                                    closed: extra == Additional::Closed,
                                    candidates: node
                                        .properties
                                        .iter()
                                        .map(|(k, _)| k.clone())
                                        .collect(),
                                }),
                            })
                        }
                    };
                    if prefix.is_empty() {
                        prefix.push_str(name);
                    } else if hookc_runtime::bytecode::path::is_plain_field(name) {
                        prefix.push('.');
                        prefix.push_str(name);
                    } else {
                        prefix.push('[');
                        let _ = hookc_runtime::bytecode::path::write_quoted(&mut prefix, name);
                        prefix.push(']');
                    }
                    cur = Some(next);
                }
                Step::Index(i) => {
                    if !kinds.intersects(Kinds::LIST) {
                        return Err(BadStep {
                            prefix,
                            kinds,
                            step: format!("index {i}"),
                        });
                    }
                    prefix.push_str(&format!("[{i}]"));
                    cur = node.items;
                }
            }
            kinds = cur
                .and_then(|id| self.node(id))
                .map_or(Kinds::ANY, |n| n.kinds);
        }
        Ok(ResolvedPath {
            ty: Type {
                kinds,
                schema: cur,
                elem: None,
            },
            outside: None,
        })
    }

    /// The type of a context path, reporting where it leaves the schema:
    /// an error under a closed object (with did-you-mean), a warning under an
    /// open one, an error for a step into a scalar. Used for condition paths
    /// and `${...}` templates alike.
    pub fn type_of_path(&self, path: &Path, span: Span, diags: &mut Diagnostics) -> Type {
        match self.resolve(path) {
            Ok(ResolvedPath { ty, outside: None }) => ty,
            Ok(ResolvedPath {
                ty,
                outside: Some(out),
            }) => {
                let (code, what) = if out.closed {
                    (Code::UnknownPath, "is not allowed by the schema")
                } else {
                    (Code::PathNotInSchema, "is not in the schema")
                };
                let within = if out.known_prefix.is_empty() {
                    "the context".to_owned()
                } else {
                    format!("`{}`", out.known_prefix)
                };
                let mut d = Diagnostic::new(
                    code,
                    format!("`{path}` {what}: {within} has no key `{}`", out.key),
                )
                .at(span)
                .maybe_help(
                    suggest::did_you_mean(&out.key, out.candidates.iter().map(String::as_str))
                        .map(|best| format!("did you mean `{best}`?")),
                );
                if out.closed {
                    d = d.label("unknown key");
                } else {
                    // One warning per undeclared path and file (see
                    // `Diagnostics::fold_repeats`); errors stay per use.
                    d = d
                        .label("typed `any`")
                        .note(format!(
                            "{within} allows other keys; declare `{}` in event_context_schema to type-check it",
                            out.key
                        ))
                        .once_per_file(path.to_string());
                }
                diags.push(d);
                ty
            }
            Err(bad) => {
                diags.push(
                    Diagnostic::new(
                        Code::TypeMismatch,
                        format!(
                            "`{path}` cannot be resolved: `{}` is {} and has no {}",
                            bad.prefix, bad.kinds, bad.step
                        ),
                    )
                    .at(span),
                );
                Type::of(Kinds::NONE)
            }
        }
    }

    /// The allowed values of a schema node (`enum`/`const`).
    pub fn allowed(&self, id: Option<SchemaId>) -> Option<&[serde_json::Value]> {
        self.node(id?)?.allowed.as_deref()
    }

    /// Whether the schema says `path` is always present: each of its steps
    /// is a key its object lists in `required` (an index never is). The
    /// context is not validated against the schema, so this is what the
    /// policy's author declared, which the lints take at its word.
    pub fn always_present(&self, path: &Path) -> bool {
        let mut cur = Some(self.root());
        for step in path.steps() {
            let (Some(node), Step::Field(name)) = (cur.and_then(|id| self.node(id)), step) else {
                return false;
            };
            if !node.required.iter().any(|r| r == name) {
                return false;
            }
            cur = node
                .properties
                .iter()
                .find(|(k, _)| k == name)
                .map(|(_, id)| *id);
        }
        true
    }
}

impl SchemaNode {
    fn any() -> SchemaNode {
        SchemaNode {
            kinds: Kinds::ANY,
            properties: Vec::new(),
            additional: Additional::FreeForm,
            items: None,
            allowed: None,
            format: None,
            description: None,
            required: Vec::new(),
        }
    }
}

fn shape(node: &Node, msg: &str) -> Diagnostic {
    Diagnostic::new(
        Code::ContextSchema,
        format!("{msg}, found {}", node.kind_name()),
    )
    .at(node.span)
}

fn read_type(node: &Node, diags: &mut Diagnostics) -> Kinds {
    let one = |n: &Node, diags: &mut Diagnostics| -> Kinds {
        let Some(name) = n.as_str() else {
            diags.push(shape(n, "a schema `type` must be a type name"));
            return Kinds::ANY;
        };
        Kinds::from_schema_name(name).unwrap_or_else(|| {
            let names = [
                "object", "string", "number", "integer", "boolean", "array", "null",
            ];
            diags.push(
                Diagnostic::new(Code::ContextSchema, format!("unknown schema type `{name}`"))
                    .at(n.span)
                    .maybe_help(suggest::help_for(name, names)),
            );
            Kinds::ANY
        })
    };
    match &node.kind {
        NodeKind::Seq(items) => items
            .iter()
            .fold(Kinds::NONE, |acc, n| acc.or(one(n, diags))),
        _ => one(node, diags),
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
    use hookc_runtime::bytecode::path::Segment;

    fn path(root: &str, fields: &[&str]) -> Path {
        fields.iter().fold(Path::root(root), |p, f| {
            p.child(Segment::Field((*f).to_owned()))
        })
    }

    #[test]
    fn builtin_schema_reads_without_diagnostics() {
        let json = serde_json::json!({"type": "object"});
        let mut diags = Diagnostics::new();
        let node = Node::from_json(&json, Span::new(crate::span::FileId(0), 0, 0));
        let _ = ContextSchema::from_node(&node, &mut diags);
        assert!(diags.is_empty());
        let s = ContextSchema::builtin();
        let r = s.resolve(&path("classification", &["category"])).unwrap();
        assert_eq!(r.ty.kinds, Kinds::STRING);
        assert!(r.outside.is_none());
    }

    #[test]
    fn open_free_form_and_closed_objects() {
        let s = ContextSchema::builtin();
        // `event` lists properties: `limit_code` is outside, open.
        let r = s.resolve(&path("event", &["limit_code"])).unwrap();
        let out = r.outside.unwrap();
        assert!(!out.closed);
        assert_eq!(out.known_prefix, "event");
        // `cost` is free-form.
        let r = s.resolve(&path("cost", &["spend"])).unwrap();
        assert!(r.outside.is_none());
        assert!(r.ty.kinds.is_any());
        // A field of a string.
        let err = s.resolve(&path("error", &["code", "x"])).unwrap_err();
        assert_eq!(err.prefix, "error.code");

        let json = serde_json::json!({"type": "object", "additionalProperties": false,
            "properties": {"a": {"type": ["string", "null"], "enum": ["x", null]}}});
        let mut diags = Diagnostics::new();
        let node = Node::from_json(&json, Span::new(crate::span::FileId(0), 0, 0));
        let s = ContextSchema::from_node(&node, &mut diags);
        assert!(diags.is_empty());
        let out = s.resolve(&path("b", &[])).unwrap().outside.unwrap();
        assert!(out.closed);
        let a = s.resolve(&path("a", &[])).unwrap();
        assert_eq!(a.ty.kinds, Kinds::STRING.or(Kinds::NULL));
        assert_eq!(s.allowed(a.ty.schema).map(<[_]>::len), Some(2));
    }

    #[test]
    fn unsupported_keywords_are_reported() {
        let json = serde_json::json!({"type": "object", "propertes": {}, "oneOf": [], "title": "x",
            "properties": {"a": {"type": "float"}}});
        let mut diags = Diagnostics::new();
        let node = Node::from_json(&json, Span::new(crate::span::FileId(0), 0, 0));
        let _ = ContextSchema::from_node(&node, &mut diags);
        let msgs: Vec<String> = diags.iter().map(|d| d.message.clone()).collect();
        assert_eq!(msgs.len(), 3, "{msgs:?}");
        assert!(msgs.iter().any(|m| m.contains("`propertes`")));
        assert!(msgs.iter().any(|m| m.contains("`oneOf`")));
        assert!(msgs.iter().any(|m| m.contains("`float`")));
    }
}

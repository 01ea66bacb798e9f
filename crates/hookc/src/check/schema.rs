//! The event-context schema (`docs/src/semantics.md#static-checking`): a JSON-Schema subset read from
//! `event_context_schema`, and the resolution of context paths against it.
//!
//! Supported keywords: `type` (a name or a list), `properties`, `items`,
//! `additionalProperties`, `enum`, `const`, `format`, `required`,
//! `description`, and hookc's own `vocabulary` (a string's complete set of
//! names, [`Vocabulary`]). `format` is kept; its value `shell-command`
//! ([`SHELL_COMMAND`]) marks a shell command line. Annotation keywords (`title`, `examples`, `default`, ...) and
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

use crate::check::ty::{Kinds, SchemaId, Type};
use crate::diag::{Code, Diagnostic, Diagnostics};
use crate::frontend::doc::{Node, NodeKind};
use crate::span::Span;
use crate::suggest;
use hookc_runtime::bytecode::path::{Path, Step};

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
    /// `vocabulary`.
    pub vocabulary: Option<Vocabulary>,
    /// `format`.
    pub format: Option<String>,
    /// `required`: the keys an object of this schema always has.
    pub required: Vec<String>,
    /// `description`.
    pub description: Option<String>,
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
    "vocabulary",
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

/// The `format` of a string that is a shell command line, as the host runs
/// it (Claude Code's Bash `tool_input.command`): the command's text is not
/// what it runs (`sudo rm`, `cd /tmp && rm`, `"rm"`), so a string test on
/// it is warning W0016, which suggests the shell functions.
pub const SHELL_COMMAND: &str = "shell-command";

/// `format: file-path` (hookc's keyword): the string is a file's path as a
/// tool takes it (Claude Code's `tool_input.file_path`): a string test on
/// it, in a hook that denies, asks or blocks, is warning W0019, which
/// suggests the path functions.
pub const FILE_PATH: &str = "file-path";

/// `vocabulary: {values: [...], prefixes: [...], open: bool}` (hookc's
/// keyword): the values a string takes, as a host profile declares its
/// tool names: one of `values`, or any string starting with one of
/// `prefixes` (Claude Code's MCP tools, `mcp__SERVER__TOOL`). Unlike
/// `enum`, whose values a policy's own schema may leave incomplete (a
/// comparison outside it is warning W0002), a comparison with a constant
/// outside a closed vocabulary is error E0310: the name is misspelt or the
/// host has no such thing. An `open` vocabulary is the known names of a
/// set that grows (a host's tools, which new versions and plugins add to):
/// a name outside it is warning W0018, with the same did-you-mean.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Vocabulary {
    /// The names.
    pub values: Vec<String>,
    /// Prefixes of further names.
    pub prefixes: Vec<String>,
    /// Whether names outside it may still come (a warning, not an error).
    pub open: bool,
}

impl Vocabulary {
    /// Whether `name` is in the vocabulary.
    pub fn has(&self, name: &str) -> bool {
        self.values.iter().any(|v| v == name) || self.prefixes.iter().any(|p| name.starts_with(p))
    }
}

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
    /// `examples/thread-hooks/hooks.yaml`), used when no file declares one.
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

    /// This schema extended by a declared event's `context`
    /// (`docs/src/semantics.md#declared-events`): the fragment describes
    /// the root object, and its `properties` are added to the root's,
    /// replacing a property of the same name; its `required` keys are
    /// added; its `additionalProperties`, when given, replaces the root's.
    /// Keywords that do not describe an object's keys (`items`, `enum`,
    /// `const`), and a `type` without `object`, are errors. Problems are
    /// reported; the rest is applied.
    pub fn extended(&self, fragment: &Node, diags: &mut Diagnostics) -> ContextSchema {
        let mut out = self.clone();
        let Some(entries) = fragment.as_map() else {
            diags.push(
                Diagnostic::new(
                    Code::ContextSchema,
                    format!(
                        "an event's `context` must be a schema (a mapping), found {}",
                        fragment.kind_name()
                    ),
                )
                .at(fragment.span),
            );
            return out;
        };
        let ext_id = out.read_node(fragment, 0, diags);
        let Some(ext) = out.node(ext_id).cloned() else {
            return out;
        };
        for (key, value) in entries {
            let problem = match key.name.as_str() {
                "type" if !ext.kinds.intersects(Kinds::OBJECT) => {
                    Some("its `type` must be `object`")
                }
                "items" | "enum" | "const" => Some("it takes the keywords of an object"),
                _ => None,
            };
            if let Some(problem) = problem {
                diags.push(
                    Diagnostic::new(
                        Code::ContextSchema,
                        format!("`{}` does not apply to an event's `context`: {problem}", key.name),
                    )
                    .at(key.span.to(value.span))
                    .help("an event's context extends the root object of event_context_schema: give it `properties`, `required` and `additionalProperties`"),
                );
            }
        }
        let declares_additional = fragment.get("additionalProperties");
        if let Some(root) = out.nodes.get_mut(self.root().0 as usize) {
            for (name, id) in ext.properties {
                match root.properties.iter_mut().find(|(k, _)| *k == name) {
                    Some(slot) => slot.1 = id,
                    None => root.properties.push((name, id)),
                }
            }
            for name in ext.required {
                if !root.required.contains(&name) {
                    root.required.push(name);
                }
            }
            root.additional = match (declares_additional.map(|n| &n.kind), ext.additional) {
                (None, _) => root.additional,
                // `true` lists nothing: open when the root lists properties.
                (Some(NodeKind::Bool(true)), _) if !root.properties.is_empty() => Additional::Open,
                (Some(_), additional) => additional,
            };
        }
        out
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
                "vocabulary" => match read_vocabulary(value) {
                    Some(v) => out.vocabulary = Some(v),
                    None => diags.push(shape(
                        value,
                        "`vocabulary` must be `{values: [names...], prefixes: [prefixes...], open: BOOL}` (strings; `prefixes` and `open` optional)",
                    )),
                },
                "format" => out.format = value.as_str().map(str::to_owned),
                "description" => out.description = value.as_str().map(str::to_owned),
                "required" => match value
                    .as_seq()
                    .and_then(|s| s.iter().map(Node::as_str).collect::<Option<Vec<_>>>())
                {
                    Some(names) => out.required = names.into_iter().map(str::to_owned).collect(),
                    None => diags.push(shape(value, "`required` must be a list of property names")),
                },
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

    /// Whether the schema guarantees that a context has `path`: every step
    /// is a field its object lists in `required`, from the root down
    /// (`docs/src/semantics.md#static-checking`, W0007). An index is never
    /// guaranteed.
    pub fn guarantees(&self, path: &Path) -> bool {
        let mut cur = Some(self.root());
        for step in path.steps() {
            let Step::Field(name) = step else {
                return false;
            };
            let Some(node) = cur.and_then(|id| self.node(id)) else {
                return false;
            };
            if !node.required.iter().any(|r| r == name) {
                return false;
            }
            cur = match node.properties.iter().find(|(k, _)| k == name) {
                Some((_, id)) => Some(*id),
                None => match node.additional {
                    Additional::Schema(id) => Some(id),
                    _ => None,
                },
            };
        }
        true
    }

    /// The allowed values of a schema node (`enum`/`const`).
    pub fn allowed(&self, id: Option<SchemaId>) -> Option<&[serde_json::Value]> {
        self.node(id?)?.allowed.as_deref()
    }

    /// The `vocabulary` of a schema node.
    pub fn vocabulary(&self, id: Option<SchemaId>) -> Option<&Vocabulary> {
        self.node(id?)?.vocabulary.as_ref()
    }

    /// Whether a schema node is a shell command line ([`SHELL_COMMAND`]):
    /// a string test on it is warning W0016.
    pub fn is_shell_command(&self, id: Option<SchemaId>) -> bool {
        id.and_then(|id| self.node(id))
            .and_then(|n| n.format.as_deref())
            == Some(SHELL_COMMAND)
    }

    /// Whether a schema node is a file's path ([`FILE_PATH`]): a string
    /// test on it in a guarding hook is warning W0019.
    pub fn is_file_path(&self, id: Option<SchemaId>) -> bool {
        id.and_then(|id| self.node(id))
            .and_then(|n| n.format.as_deref())
            == Some(FILE_PATH)
    }
}

impl ContextSchema {
    /// This schema with a root member `name` of any value (an object whose
    /// keys are free), unless the root already declares it: so that a
    /// closed schema admits the members hookc itself adds to a context
    /// (`results`, `docs/src/semantics.md#resumable-decisions`).
    pub fn with_free_member(&self, name: &str) -> ContextSchema {
        self.with_member(name, SchemaNode::any())
    }

    /// This schema with `name: {hook: string, cause: string}` at the root:
    /// what an `on_error` action's templates read
    /// (`docs/src/semantics.md#hook-errors`).
    pub fn with_policy_error(&self, name: &str) -> ContextSchema {
        let mut out = self.clone();
        let string = |out: &mut ContextSchema| {
            out.push(SchemaNode {
                kinds: Kinds::STRING,
                ..SchemaNode::any()
            })
        };
        let hook = string(&mut out);
        let cause = string(&mut out);
        let node = SchemaNode {
            kinds: Kinds::OBJECT,
            properties: vec![("hook".to_owned(), hook), ("cause".to_owned(), cause)],
            additional: Additional::Closed,
            ..SchemaNode::any()
        };
        out.with_member(name, node)
    }

    /// This schema with `name` at the root (in place of any declared
    /// member of that name) a closed object of these fields, each of its
    /// kinds: what the templates of a hook with a pattern table read its
    /// row as (`docs/src/semantics.md#pattern-tables`).
    pub fn with_row(&self, name: &str, fields: &[(String, Kinds)]) -> ContextSchema {
        let fields = fields.iter().map(|(field, kinds)| {
            let node = SchemaNode {
                kinds: *kinds,
                ..SchemaNode::any()
            };
            (field.clone(), node)
        });
        self.with_closed_object(name, fields.collect())
    }

    /// This schema with `name` at the root (in place of any declared
    /// member of that name) a closed object of the declared environment
    /// variables, each an optional string of its `enum`
    /// ([`super::environment`]).
    pub fn with_environment(
        &self,
        name: &str,
        env: &super::environment::DeclaredEnvironment,
    ) -> ContextSchema {
        let fields = env.iter().map(|var| {
            let node = SchemaNode {
                kinds: Kinds::STRING,
                allowed: var
                    .allowed
                    .as_ref()
                    .map(|a| a.iter().cloned().map(serde_json::Value::from).collect()),
                description: var.description.clone(),
                ..SchemaNode::any()
            };
            (var.name.clone(), node)
        });
        self.with_closed_object(name, fields.collect())
    }

    /// This schema with `name` at the root (in place of any declared
    /// member of that name) a closed object of `fields`.
    fn with_closed_object(&self, name: &str, fields: Vec<(String, SchemaNode)>) -> ContextSchema {
        let mut out = self.clone();
        let properties = fields
            .into_iter()
            .map(|(field, node)| (field, out.push(node)))
            .collect();
        let id = out.push(SchemaNode {
            kinds: Kinds::OBJECT,
            properties,
            additional: Additional::Closed,
            ..SchemaNode::any()
        });
        let root = out.root();
        if let Some(r) = out.nodes.get_mut(root.0 as usize) {
            match r.properties.iter_mut().find(|(k, _)| k == name) {
                Some((_, member)) => *member = id,
                None => r.properties.push((name.to_owned(), id)),
            }
        }
        out
    }

    fn with_member(&self, name: &str, node: SchemaNode) -> ContextSchema {
        let mut out = self.clone();
        let root = out.root();
        let declared = out
            .node(root)
            .is_some_and(|r| r.properties.iter().any(|(k, _)| k == name));
        if declared {
            return out;
        }
        let id = out.push(node);
        if let Some(r) = out.nodes.get_mut(root.0 as usize) {
            r.properties.push((name.to_owned(), id));
        }
        out
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
            vocabulary: None,
            format: None,
            required: Vec::new(),
            description: None,
        }
    }
}

/// `{values: [str...], prefixes: [str...]}`; `None` when it is not.
fn read_vocabulary(node: &Node) -> Option<Vocabulary> {
    let strings = |n: &Node| -> Option<Vec<String>> {
        n.as_seq()?
            .iter()
            .map(|item| item.as_str().map(str::to_owned))
            .collect()
    };
    let mut values = None;
    let mut prefixes = Vec::new();
    let mut open = false;
    for (key, value) in node.as_map()? {
        match key.name.as_str() {
            "values" => values = Some(strings(value)?),
            "prefixes" => prefixes = strings(value)?,
            "open" => match value.kind {
                crate::frontend::doc::NodeKind::Bool(b) => open = b,
                _ => return None,
            },
            _ => return None,
        }
    }
    Some(Vocabulary {
        values: values?,
        prefixes,
        open,
    })
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
mod tests;

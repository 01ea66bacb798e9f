//! Action type declarations in directive XML: `<action_type>` elements in
//! `<hooks>`, with `<parameter>` children, read into the same definition
//! tree as a YAML file's `action_types` section, so that one checker
//! (`check::actions::define`) reads both:
//!
//! ```xml
//! <hooks>
//!   <action_type name="observe" effect="collected" description="Record the event">
//!     <parameter name="note" type="string" required="true"/>
//!     <parameter name="level" type="string" enum="info,warn" default="info"/>
//!   </action_type>
//! </hooks>
//! ```
//!
//! An attribute is a definition key of the same name. Attribute values are
//! text; they are given the JSON type the definition needs: `required` and
//! `optional` are booleans when they say `true` or `false`; `enum` is a
//! comma-separated list; `type` is one name, or a comma-separated list of
//! names; `default` and each `enum` item are read as JSON when the
//! parameter's `type` is not `string` (so `default="3"` of an integer is
//! `3`), and as text otherwise. Whatever does not fit is reported by the
//! definition checker, as for YAML.

use super::{trim_xml, Attr, DocReader, OpenElement};
use crate::diag::{Code, Diagnostic};
use crate::frontend::doc::{Key, Node, NodeKind};
use crate::span::Span;
use crate::suggest::help_for;

/// The attributes of an `<action_type>`.
const TYPE_ATTRS: &[&str] = &["name", "effect", "description"];

/// An `<action_type>` being read: its name and its definition's entries.
pub(super) struct ActionTypeBuilder {
    name: Option<Key>,
    entries: Vec<(Key, Node)>,
    parameters: Vec<(Key, Node)>,
}

impl DocReader<'_, '_> {
    pub(super) fn begin_action_type(&mut self, tag: Span, attrs: Vec<Attr>) -> OpenElement {
        let mut out = ActionTypeBuilder {
            name: None,
            entries: Vec::new(),
            parameters: Vec::new(),
        };
        for attr in attrs {
            match attr.name.as_str() {
                "name" => out.name = Some(self.name_key(&attr, "action_type")),
                "effect" | "description" => {
                    out.entries.push(text_entry(&attr));
                }
                other => self.unknown_attr(&attr, other, "action_type", TYPE_ATTRS),
            }
        }
        if out.name.is_none() {
            self.report(
                Diagnostic::new(Code::MissingKey, "`<action_type>` has no `name` attribute")
                    .at(tag)
                    .help("name the action type: `<action_type name=\"observe\">`"),
            );
        }
        OpenElement::ActionType(Box::new(out))
    }

    /// A `<parameter>` of the open `<action_type>`: complete at its start tag.
    pub(super) fn begin_parameter(&mut self, tag: Span, attrs: Vec<Attr>) -> OpenElement {
        let mut name = None;
        let mut entries: Vec<(Key, Node)> = Vec::new();
        let ty = attrs
            .iter()
            .find(|a| a.name == "type")
            .map(|a| trim_xml(&a.value).to_owned());
        // A string parameter's values are text as written; other types'
        // values are JSON (`3`, `true`, `null`, `[1, 2]`).
        let as_json = ty
            .as_deref()
            .is_some_and(|t| !t.split(',').any(|n| trim_xml(n) == "string"));
        for attr in &attrs {
            let key = Key {
                name: attr.name.clone(),
                span: attr.name_span,
            };
            let value = trim_xml(&attr.value);
            let node = |kind| Node {
                kind,
                span: attr.value_span,
            };
            match attr.name.as_str() {
                "name" => name = Some(self.name_key(attr, "parameter")),
                "type" if value.contains(',') => {
                    let names = list(value, attr.value_span, |s| NodeKind::Str(s.to_owned()));
                    entries.push((key, node(NodeKind::Seq(names))));
                }
                "type" | "description" => entries.push(text_entry(attr)),
                "required" | "optional" => {
                    let kind = match value {
                        "true" => NodeKind::Bool(true),
                        "false" => NodeKind::Bool(false),
                        other => NodeKind::Str(other.to_owned()),
                    };
                    entries.push((key, node(kind)));
                }
                "default" => {
                    let kind = typed(&attr.value, as_json, attr.value_span);
                    entries.push((key, kind));
                }
                "enum" => {
                    let items = list(value, attr.value_span, |s| {
                        typed(s, as_json, attr.value_span).kind
                    });
                    entries.push((key, node(NodeKind::Seq(items))));
                }
                other => self.unknown_attr(attr, other, "parameter", PARAMETER_ATTRS),
            }
        }
        match (name, self.action_type_mut()) {
            (Some(name), Some(ty)) => ty.parameters.push((
                name,
                Node {
                    kind: NodeKind::Map(entries),
                    span: tag,
                },
            )),
            (None, _) => self.report(
                Diagnostic::new(Code::MissingKey, "`<parameter>` has no `name` attribute")
                    .at(tag)
                    .help("name the parameter: `<parameter name=\"reason\" type=\"string\"/>`"),
            ),
            (Some(_), None) => {}
        }
        OpenElement::Parameter
    }

    /// At `</action_type>`: the definition joins the file's `action_types`.
    pub(super) fn finish_action_type(&mut self, ty: ActionTypeBuilder, whole: Span) {
        let Some(name) = ty.name else {
            return;
        };
        let mut entries = ty.entries;
        entries.push((
            Key {
                name: "parameters".into(),
                span: whole,
            },
            Node {
                kind: NodeKind::Map(ty.parameters),
                span: whole,
            },
        ));
        self.action_types.push((
            name,
            Node {
                kind: NodeKind::Map(entries),
                span: whole,
            },
        ));
    }

    fn action_type_mut(&mut self) -> Option<&mut ActionTypeBuilder> {
        match self.open.last_mut().map(|o| &mut o.frame) {
            Some(OpenElement::ActionType(t)) => Some(t),
            _ => None,
        }
    }

    /// A `name` attribute as a definition key (an empty one is reported).
    pub(super) fn name_key(&mut self, attr: &Attr, element: &str) -> Key {
        if trim_xml(&attr.value).is_empty() {
            self.report(
                Diagnostic::new(
                    Code::WrongShape,
                    format!("`<{element}>` has an empty `name`"),
                )
                .at(attr.value_span),
            );
        }
        Key {
            name: trim_xml(&attr.value).to_owned(),
            span: attr.value_span,
        }
    }

    pub(super) fn unknown_attr(&mut self, attr: &Attr, name: &str, element: &str, known: &[&str]) {
        self.report(
            Diagnostic::new(
                Code::UnknownKey,
                format!("unknown attribute `{name}` on `<{element}>`"),
            )
            .at(attr.name_span)
            .maybe_help(help_for(name, known.iter().copied())),
        );
    }
}

/// The attributes of a `<parameter>`: the keys of a parameter definition.
const PARAMETER_ATTRS: &[&str] = &[
    "name",
    "type",
    "enum",
    "default",
    "required",
    "optional",
    "description",
];

/// An attribute as a definition entry whose value is its text.
pub(super) fn text_entry(attr: &Attr) -> (Key, Node) {
    (
        Key {
            name: attr.name.clone(),
            span: attr.name_span,
        },
        Node {
            kind: NodeKind::Str(trim_xml(&attr.value).to_owned()),
            span: attr.value_span,
        },
    )
}

/// A comma-separated attribute value as list items.
fn list(value: &str, span: Span, item: impl Fn(&str) -> NodeKind) -> Vec<Node> {
    value
        .split(',')
        .map(|piece| Node {
            kind: item(trim_xml(piece)),
            span,
        })
        .collect()
}

/// A `default` or `enum` item: JSON when the parameter's type is not a
/// string (and the text is JSON), else the text.
fn typed(text: &str, as_json: bool, span: Span) -> Node {
    let text = trim_xml(text);
    match serde_json::from_str::<serde_json::Value>(text) {
        Ok(value) if as_json => Node::from_json(&value, span),
        _ => Node {
            kind: NodeKind::Str(text.to_owned()),
            span,
        },
    }
}

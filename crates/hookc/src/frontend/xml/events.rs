//! Event declarations in directive XML: `<event>` elements in `<hooks>`,
//! read into the same mapping as a YAML file's `events` section, so that
//! one reader (`check::events`) reads both
//! (`docs/src/semantics.md#declared-events`):
//!
//! ```xml
//! <hooks>
//!   <event name="PreToolUse" effects="terminal,collected">
//!     <context>{"properties": {"tool_input": {"type": "object"}}}</context>
//!   </event>
//!   <event name="PostToolUse" effects="collected"/>
//! </hooks>
//! ```
//!
//! `name` is the event, `effects` a comma-separated list of effect words
//! (absent: every effect; empty: none), `description` its description;
//! the optional `<context>` child holds the context schema fragment as
//! JSON text (XML has no other way to write a schema). Problems with the
//! declaration's content are reported by the reader of declarations, as
//! for YAML.

use super::action_types::text_entry;
use super::{trim_xml, Attr, DocReader, OpenElement, TextBuf};
use crate::diag::{Code, Diagnostic};
use crate::frontend::doc::{Key, Node, NodeKind};
use crate::span::Span;

/// The attributes of an `<event>`.
const EVENT_ATTRS: &[&str] = &["name", "effects", "description"];

/// An `<event>` being read: its name and its declaration's entries.
pub(super) struct EventBuilder {
    name: Option<Key>,
    entries: Vec<(Key, Node)>,
    /// Whether a `<context>` was read already.
    context_seen: bool,
}

impl DocReader<'_, '_> {
    pub(super) fn begin_event(&mut self, tag: Span, attrs: Vec<Attr>) -> OpenElement {
        let mut out = EventBuilder {
            name: None,
            entries: Vec::new(),
            context_seen: false,
        };
        for attr in attrs {
            let key = Key {
                name: attr.name.clone(),
                span: attr.name_span,
            };
            let node = |kind| Node {
                kind,
                span: attr.value_span,
            };
            match attr.name.as_str() {
                "name" => out.name = Some(self.name_key(&attr, "event")),
                "effects" => {
                    let words = trim_xml(&attr.value)
                        .split(',')
                        .map(trim_xml)
                        .filter(|w| !w.is_empty())
                        .map(|w| node(NodeKind::Str(w.to_owned())))
                        .collect();
                    out.entries.push((key, node(NodeKind::Seq(words))));
                }
                "description" => out.entries.push(text_entry(&attr)),
                other => self.unknown_attr(&attr, other, "event", EVENT_ATTRS),
            }
        }
        if out.name.is_none() {
            self.report(
                Diagnostic::new(Code::MissingKey, "`<event>` has no `name` attribute")
                    .at(tag)
                    .help("name the event: `<event name=\"PreToolUse\">`"),
            );
        }
        OpenElement::Event(Box::new(out))
    }

    /// A `<context>` of the open `<event>`: its text is gathered until its
    /// end tag.
    pub(super) fn begin_event_context(&mut self, tag: Span, attrs: &[Attr]) -> OpenElement {
        for attr in attrs {
            self.unknown_attr(attr, &attr.name, "context", &[]);
        }
        let repeated = match self.open.last_mut().map(|o| &mut o.frame) {
            Some(OpenElement::Event(e)) => std::mem::replace(&mut e.context_seen, true),
            _ => false,
        };
        if repeated {
            self.report(
                Diagnostic::new(Code::DuplicateKey, "`<event>` has two `<context>` elements")
                    .at(tag)
                    .help("write the event's context schema in one `<context>`"),
            );
            return OpenElement::Skip;
        }
        OpenElement::EventContext(TextBuf::default())
    }

    /// At `</context>`: the JSON text becomes the declaration's `context`.
    pub(super) fn finish_event_context(&mut self, text: TextBuf, tag: Span, whole: Span) {
        let Some(text) = text.finish(whole) else {
            self.report(
                Diagnostic::new(Code::WrongShape, "`<context>` is empty")
                    .at(tag)
                    .help("write the event's context schema as JSON: `<context>{\"properties\": {...}}</context>`"),
            );
            return;
        };
        let value = match serde_json::from_str::<serde_json::Value>(&text.text) {
            Ok(value) => value,
            Err(err) => {
                self.report(
                    Diagnostic::new(
                        Code::WrongShape,
                        format!("`<context>` is not JSON: {err}"),
                    )
                    .at(text.span)
                    .help("write the event's context schema as JSON: `{\"properties\": {\"tool_input\": {\"type\": \"object\"}}}`"),
                );
                return;
            }
        };
        if let Some(OpenElement::Event(e)) = self.open.last_mut().map(|o| &mut o.frame) {
            e.entries.push((
                Key {
                    name: "context".into(),
                    span: tag,
                },
                Node::from_json(&value, text.span),
            ));
        }
    }

    /// At `</event>`: the declaration joins the file's `events`.
    pub(super) fn finish_event(&mut self, event: EventBuilder, whole: Span) {
        let Some(name) = event.name else {
            return;
        };
        self.events.push((
            name,
            Node {
                kind: NodeKind::Map(event.entries),
                span: whole,
            },
        ));
    }
}

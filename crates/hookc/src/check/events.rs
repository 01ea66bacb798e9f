//! Declared events (`docs/src/semantics.md#declared-events`): a policy's
//! `events:` (YAML) or `<event>` elements (XML), each with the context
//! schema its hooks are checked against and the action effects its hooks
//! may have.
//!
//! An event's `context` is a fragment that extends the shared
//! `event_context_schema` ([`ContextSchema::extended`]); `effects` lists
//! the effect words of [`EFFECT_WORDS`] (absent: all). Declarations are
//! compile-time only: the artifact does not change.
//!
//! Several files may declare events; their declarations are merged, and
//! one event declared twice must be declared the same (else
//! [`Code::DuplicateDefinition`], naming both places).

use crate::check::schema::ContextSchema;
use crate::diag::{Code, Diagnostic, Diagnostics};
use crate::frontend::doc::{child_path, Key, Node, NodeKind};
use crate::span::{SourceMap, Span};
use crate::suggest;
use hookc_runtime::bytecode::{Effect, Spelled};

/// The keys of an event declaration.
pub const EVENT_KEYS: &[&str] = &["description", "context", "effects"];

/// The words `effects` may list: every action effect there is or will be.
/// An action's effect is written as its [`Effect`] spelling
/// ([`effect_word`]), so a new effect needs its word here and nothing else.
pub const EFFECT_WORDS: &[&str] = &["terminal", "collected", "transform", "await"];

/// The word an `effects` list uses for an action's effect.
pub fn effect_word(effect: Effect) -> &'static str {
    effect.name()
}

/// One declared event.
#[derive(Debug, Clone)]
pub struct EventDecl {
    name: String,
    /// Where its name is declared.
    span: Span,
    /// The `context` fragment as written.
    context: Option<serde_json::Value>,
    /// The shared schema extended with `context` (`None`: the shared one).
    schema: Option<ContextSchema>,
    /// `effects` as written, without repeats (`None`: every effect).
    effects: Option<Vec<String>>,
    description: Option<String>,
}

impl EventDecl {
    /// The event's name.
    pub fn name(&self) -> &str {
        &self.name
    }

    /// Where its name is declared.
    pub fn span(&self) -> Span {
        self.span
    }

    /// The context schema of its hooks, when it extends the shared one.
    pub fn schema(&self) -> Option<&ContextSchema> {
        self.schema.as_ref()
    }

    /// The effect words its hooks may have (`None`: all).
    pub fn effects(&self) -> Option<&[String]> {
        self.effects.as_deref()
    }

    /// Whether a hook on this event may have an action of this effect.
    pub fn allows(&self, effect: Effect) -> bool {
        let word = effect_word(effect);
        self.effects
            .as_ref()
            .is_none_or(|allowed| allowed.iter().any(|w| w == word))
    }

    /// The declaration as written (for normalized output).
    pub fn to_json(&self) -> serde_json::Value {
        let mut m = serde_json::Map::new();
        if let Some(d) = &self.description {
            m.insert("description".into(), d.clone().into());
        }
        if let Some(c) = &self.context {
            m.insert("context".into(), c.clone());
        }
        if let Some(e) = &self.effects {
            m.insert("effects".into(), e.clone().into());
        }
        serde_json::Value::Object(m)
    }

    /// Whether two declarations of one event say the same.
    fn same_as(&self, other: &EventDecl) -> bool {
        let sorted = |e: &Option<Vec<String>>| {
            e.clone().map(|mut e| {
                e.sort();
                e
            })
        };
        self.context == other.context && sorted(&self.effects) == sorted(&other.effects)
    }
}

/// The events a policy declares: `None` when no file declares any, and
/// then every event name is allowed (and W0006 judges them).
#[derive(Debug, Clone, Default)]
pub struct DeclaredEvents {
    events: Option<Vec<EventDecl>>,
}

impl DeclaredEvents {
    /// Reads every file's declarations (`declarations`: each file's
    /// `events` node), extending `shared` for each event's context.
    pub fn read<'n>(
        declarations: impl Iterator<Item = &'n Node>,
        shared: &ContextSchema,
        sources: &SourceMap,
        diags: &mut Diagnostics,
    ) -> DeclaredEvents {
        let mut out: Option<Vec<EventDecl>> = None;
        for node in declarations {
            let events = out.get_or_insert_with(Vec::new);
            let Some(entries) = entries(
                node,
                "a mapping of event declarations for `events`",
                "events",
                "write `events: {EventName: {effects: [terminal, collected]}}`",
                diags,
            ) else {
                continue;
            };
            for (key, value) in entries {
                let Some(decl) = read_one(&key.name, key.span, value, shared, diags) else {
                    continue;
                };
                match events.iter().find(|e| e.name == decl.name) {
                    Some(first) if !first.same_as(&decl) => diags.push(
                        Diagnostic::new(
                            Code::DuplicateDefinition,
                            format!("event `{}` is declared twice, differently", decl.name),
                        )
                        .at(decl.span)
                        .node(child_path("events", &decl.name))
                        .label("declared again here")
                        .note(format!(
                            "first declared at {}",
                            sources.location(first.span)
                        ))
                        .help("declare each event once, or the same way in every file"),
                    ),
                    Some(_) => {}
                    None => events.push(decl),
                }
            }
        }
        DeclaredEvents { events: out }
    }

    /// Whether the policy declares its events.
    pub fn is_declared(&self) -> bool {
        self.events.is_some()
    }

    /// A declared event by name.
    pub fn get(&self, name: &str) -> Option<&EventDecl> {
        self.events.as_ref()?.iter().find(|e| e.name == name)
    }

    /// Every declared event, in declaration order.
    pub fn iter(&self) -> impl Iterator<Item = &EventDecl> {
        self.events.iter().flatten()
    }

    /// The context schema of an event's hooks: its own, or `shared`.
    pub fn schema_of<'s>(&'s self, name: &str, shared: &'s ContextSchema) -> &'s ContextSchema {
        self.get(name).and_then(EventDecl::schema).unwrap_or(shared)
    }
}

/// One event's declaration; `None` (reported) when it is unusable.
fn read_one(
    name: &str,
    span: Span,
    value: &Node,
    shared: &ContextSchema,
    diags: &mut Diagnostics,
) -> Option<EventDecl> {
    let at = child_path("events", name);
    if name.trim().is_empty() || name == "*" {
        diags.push(
            Diagnostic::new(
                Code::WrongShape,
                format!("`{name}` cannot be declared as an event"),
            )
            .at(span)
            .node(at)
            .help("declare events by their names; `\"*\"` in a hook's `event` means every event"),
        );
        return None;
    }
    let entries = entries(
        value,
        &format!("a mapping for event `{name}`"),
        &at,
        "write `{context: {...}, effects: [...]}`, or `{}` for an event with the shared context and every effect",
        diags,
    )?;
    let mut decl = EventDecl {
        name: name.to_owned(),
        span,
        context: None,
        schema: None,
        effects: None,
        description: None,
    };
    for (key, v) in entries {
        let key_at = child_path(&at, &key.name);
        match key.name.as_str() {
            "context" => {
                decl.context = Some(v.to_json());
                decl.schema = Some(shared.extended(v, diags));
            }
            "effects" => decl.effects = Some(effects(v, &key_at, diags)),
            "description" => match v.as_str() {
                Some(d) => decl.description = Some(d.to_owned()),
                None => diags.push(
                    Diagnostic::new(
                        Code::WrongShape,
                        format!(
                            "expected a string for `description`, found {}",
                            v.kind_name()
                        ),
                    )
                    .at(v.span)
                    .node(key_at),
                ),
            },
            other => diags.push(
                Diagnostic::new(
                    Code::UnknownKey,
                    format!("unknown key `{other}` in the declaration of event `{name}`"),
                )
                .at(key.span)
                .node(key_at)
                .maybe_help(suggest::help_for(other, EVENT_KEYS.iter().copied())),
            ),
        }
    }
    Some(decl)
}

/// The entries of a mapping (null: none); `None` (reported, with `help`)
/// for anything else. `what` says what is expected, `at` is the node path.
fn entries<'n>(
    node: &'n Node,
    what: &str,
    at: &str,
    help: &str,
    diags: &mut Diagnostics,
) -> Option<&'n [(Key, Node)]> {
    match &node.kind {
        NodeKind::Map(entries) => Some(entries),
        NodeKind::Null => Some(&[]),
        _ => {
            diags.push(
                Diagnostic::new(
                    Code::WrongShape,
                    format!("expected {what}, found {}", node.kind_name()),
                )
                .at(node.span)
                .node(at)
                .help(help),
            );
            None
        }
    }
}

/// An `effects` list: its known words, without repeats (unknown ones reported).
fn effects(node: &Node, at: &str, diags: &mut Diagnostics) -> Vec<String> {
    let Some(items) = node.as_seq() else {
        diags.push(
            Diagnostic::new(
                Code::WrongShape,
                format!(
                    "expected a list of effects for `effects`, found {}",
                    node.kind_name()
                ),
            )
            .at(node.span)
            .node(at)
            .help(format!(
                "list some of `{}`: `effects: [collected]`",
                EFFECT_WORDS.join("`, `")
            )),
        );
        return EFFECT_WORDS.iter().map(|w| (*w).to_owned()).collect();
    };
    let mut out: Vec<String> = Vec::new();
    for (i, item) in items.iter().enumerate() {
        match item.as_str().filter(|w| EFFECT_WORDS.contains(w)) {
            Some(word) => {
                if !out.iter().any(|w| w == word) {
                    out.push(word.to_owned());
                }
            }
            None => {
                let found = item
                    .as_str()
                    .map_or_else(|| item.kind_name().to_owned(), |s| format!("`{s}`"));
                diags.push(
                    Diagnostic::new(
                        Code::WrongShape,
                        format!(
                            "an effect is one of `{}`, found {found}",
                            EFFECT_WORDS.join("`, `")
                        ),
                    )
                    .at(item.span)
                    .node(format!("{at}[{i}]"))
                    .maybe_help(
                        item.as_str()
                            .and_then(|s| suggest::did_you_mean(s, EFFECT_WORDS.iter().copied()))
                            .map(|best| format!("did you mean `{best}`?")),
                    ),
                );
            }
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_effect_has_a_word() {
        for (effect, name) in Effect::ALL {
            assert_eq!(effect_word(*effect), *name);
            assert!(
                EFFECT_WORDS.contains(name),
                "effect `{name}` is not in EFFECT_WORDS"
            );
        }
    }
}

//! YAML hook files: the document tree of [`yaml_doc`] → [`SourceFile`].
//!
//! This module owns the structure of a hook file (`docs/src/policies/yaml.md`): the
//! top-level keys, the hook lists of both layers, and the keys and shapes of a
//! hook and its action. It reports every structural problem it finds, each with
//! the node path (`hooks[2].action.type`) and the span of the most precise node,
//! and keeps going; a hook with an error is left out of the result. Conditions
//! and action parameters are passed on raw, to be resolved by later stages.

use super::{yaml_doc, Layer, RawAction, RawCondition, RawOnError, SourceFile, SourceHook};
use crate::diag::{Code, Diagnostic, Diagnostics};
use crate::frontend::doc::{Key, Node, NodeKind};
use crate::span::{FileId, Spanned};
use crate::suggest::help_for;
use hookc_runtime::limits::MAX_HOOKS;

/// The top-level keys of a hook file.
pub const TOP_LEVEL_KEYS: &[&str] = &[
    "schema_version",
    "host",
    "priority_order",
    "layer_order",
    "combine",
    "attribution",
    "on_error",
    "let",
    "env",
    "sensitive",
    "default_priority",
    "builtin_hooks",
    "hooks",
    "event_context_schema",
    "events",
    "action_types",
    "operators",
    "combinators",
    "return_schema",
];

/// The keys of a hook.
pub const HOOK_KEYS: &[&str] = &[
    "id",
    "event",
    "priority",
    "condition",
    "when",
    "action",
    "enabled",
    "replace",
    "description",
    "table",
    "let",
];

/// Reads a YAML hook file.
///
/// Malformed YAML is reported as one diagnostic and gives an empty
/// [`SourceFile`]; otherwise every structural error is reported (with its node
/// path) and the hooks without errors are returned, in file order.
pub fn read(text: &str, file: FileId, file_name: &str, diags: &mut Diagnostics) -> SourceFile {
    let root = match yaml_doc::parse(text, file) {
        Ok(root) => root,
        Err(d) => {
            diags.push(d);
            return SourceFile::default();
        }
    };
    let mut reader = Reader {
        text,
        diags,
        out: SourceFile::default(),
        too_many: false,
    };
    reader.top(&root, file_name);
    reader.out
}

struct Reader<'a> {
    text: &'a str,
    diags: &'a mut Diagnostics,
    out: SourceFile,
    /// Whether [`MAX_HOOKS`] was reported already.
    too_many: bool,
}

/// `parent.key`.
fn child(parent: &str, key: &str) -> String {
    format!("{parent}.{key}")
}

impl Reader<'_> {
    /// Reports a node of the wrong shape: "expected {expected}, found a list".
    fn wrong_shape(&mut self, node: &Node, path: String, expected: &str, help: Option<String>) {
        self.diags.push(
            Diagnostic::new(
                Code::WrongShape,
                format!("expected {expected}, found {}", node.kind_name()),
            )
            .at(node.span)
            .node(path)
            .maybe_help(help),
        );
    }

    fn top(&mut self, root: &Node, file_name: &str) {
        let entries = match &root.kind {
            NodeKind::Null => return,
            NodeKind::Map(entries) => entries,
            _ => {
                self.diags.push(
                    Diagnostic::new(
                        Code::WrongShape,
                        format!(
                            "expected a mapping of top-level keys, found {}",
                            root.kind_name()
                        ),
                    )
                    .at(root.span)
                    .help(format!(
                        "`{file_name}` should be a mapping such as `schema_version: \"1.0.0\"` \
                         and `hooks:` with a list of hooks"
                    )),
                );
                return;
            }
        };
        for (key, value) in entries {
            match key.name.as_str() {
                "schema_version" => self.schema_version(value),
                "host" => match &value.kind {
                    NodeKind::Str(name) => {
                        self.out.host.push(Spanned::new(name.clone(), value.span));
                    }
                    _ => {
                        let help = Some(format!(
                            "write a host's name, one of `{}`",
                            crate::hosts::names().collect::<Vec<_>>().join("`, `")
                        ));
                        self.wrong_shape(value, "host".into(), "a string", help);
                    }
                },
                "priority_order" => {
                    let declared = self.spelled("priority_order", value);
                    self.out.priority_order.extend(declared);
                }
                "layer_order" => {
                    let declared = self.spelled("layer_order", value);
                    self.out.layer_order.extend(declared);
                }
                "combine" => {
                    let declared = self.spelled("combine", value);
                    self.out.combine.extend(declared);
                }
                "attribution" => {
                    let declared = self.spelled("attribution", value);
                    self.out.attribution.extend(declared);
                }
                "on_error" => {
                    let declared = self.on_error(value);
                    self.out.on_error.extend(declared);
                }
                "default_priority" => match &value.kind {
                    NodeKind::Int(p) => {
                        self.out.default_priority.push(Spanned::new(*p, value.span));
                    }
                    _ => {
                        let help = priority_help("default_priority", value);
                        let expected = "an integer for `default_priority`";
                        self.wrong_shape(value, "default_priority".into(), expected, help);
                    }
                },
                "let" => {
                    let declared = self.locals(value, "let".into());
                    self.out.locals.extend(declared);
                }
                "builtin_hooks" => self.hooks(Layer::Builtin, value),
                "hooks" => self.hooks(Layer::Directive, value),
                "event_context_schema" => self.out.context_schema = Some(value.clone()),
                "action_types" => self.out.action_types = Some(value.clone()),
                "events" => self.out.events = Some(value.clone()),
                "env" => self.out.environment = Some(value.clone()),
                "sensitive" => self.sensitive(value),
                "operators" => self.out.operators_doc = Some(value.clone()),
                "combinators" | "return_schema" => {}
                // A host profile's own data, read by `hosts.rs` (through
                // the build script), never by the compiler.
                "host_profile" if crate::hosts::is_profile_name(file_name) => {}
                name => self.diags.push(
                    Diagnostic::new(Code::UnknownKey, format!("unknown top-level key `{name}`"))
                        .at(key.span)
                        .node(name)
                        .maybe_help(help_for(name, TOP_LEVEL_KEYS.iter().copied())),
                ),
            }
        }
    }

    /// `sensitive: [PATH, ...]`: dotted context paths, checked against
    /// the schema later.
    fn sensitive(&mut self, value: &Node) {
        let help = "write a list of context members, `sensitive: [tool_input.content, prompt]`";
        let NodeKind::Seq(items) = &value.kind else {
            self.wrong_shape(
                value,
                "sensitive".into(),
                "a list of paths",
                Some(help.into()),
            );
            return;
        };
        for (i, item) in items.iter().enumerate() {
            match &item.kind {
                NodeKind::Str(path) => self
                    .out
                    .sensitive
                    .push(Spanned::new(path.clone(), item.span)),
                _ => self.wrong_shape(
                    item,
                    format!("sensitive[{i}]"),
                    "a path string",
                    Some(help.into()),
                ),
            }
        }
    }

    /// A top-level choice spelled as a word (`priority_order: lower_first`,
    /// `layer_order: highest_first`); `None` (reported) when it is not one.
    fn spelled<T: crate::ir::Spelled>(&mut self, key: &str, value: &Node) -> Option<Spanned<T>> {
        let names: Vec<&str> = T::names().collect();
        let NodeKind::Str(name) = &value.kind else {
            let help = format!("write one of `{}`", names.join("`, `"));
            self.wrong_shape(value, key.into(), "a string", Some(help));
            return None;
        };
        match T::from_name(name) {
            Some(choice) => Some(Spanned::new(choice, value.span)),
            None => {
                self.diags.push(
                    Diagnostic::new(
                        Code::WrongShape,
                        format!("`{key}` is `{name}`, not one of `{}`", names.join("`, `")),
                    )
                    .at(value.span)
                    .node(key)
                    .maybe_help(help_for(name, names.iter().copied())),
                );
                None
            }
        }
    }

    /// `on_error: skip | fail | {action: {...}}`; `None` (reported) when it
    /// is none of them.
    fn on_error(&mut self, value: &Node) -> Option<Spanned<RawOnError>> {
        let choice = match &value.kind {
            NodeKind::Str(word) if word == "skip" => RawOnError::Skip,
            NodeKind::Str(word) if word == "fail" => RawOnError::Fail,
            NodeKind::Map(entries) => match entries.as_slice() {
                [(key, action)] if key.name == "action" => {
                    RawOnError::Action(Box::new(self.action(action, "on_error.action".into())?))
                }
                _ => {
                    let help = "write `on_error: {action: {type: deny, reason: \"policy error\"}}`";
                    self.wrong_shape(
                        value,
                        "on_error".into(),
                        "a mapping with one key, `action`",
                        Some(help.into()),
                    );
                    return None;
                }
            },
            _ => {
                let help = "write `skip` (the default), `fail`, or `{action: {...}}`".to_owned();
                self.wrong_shape(
                    value,
                    "on_error".into(),
                    "`skip`, `fail` or `{action: ...}`",
                    Some(help),
                );
                return None;
            }
        };
        Some(Spanned::new(choice, value.span))
    }

    fn schema_version(&mut self, value: &Node) {
        let path = "schema_version";
        let NodeKind::Str(version) = &value.kind else {
            let help = "quote it: \"1.0.0\"".to_owned();
            self.wrong_shape(value, path.into(), "a version string", Some(help));
            return;
        };
        let parts: Vec<&str> = version.split('.').collect();
        let well_formed = parts.len() == 3
            && parts
                .iter()
                .all(|p| !p.is_empty() && p.bytes().all(|b| b.is_ascii_digit()));
        if !well_formed {
            self.diags.push(
                Diagnostic::new(
                    Code::SchemaVersion,
                    format!("malformed schema_version `{version}`"),
                )
                .at(value.span)
                .node(path)
                .help("write it as MAJOR.MINOR.PATCH, e.g. \"1.0.0\""),
            );
            return;
        }
        let major = parts.first().and_then(|m| m.parse::<u64>().ok());
        if major != Some(1) {
            self.diags.push(
                Diagnostic::new(
                    Code::SchemaVersion,
                    format!("schema_version `{version}` is not supported"),
                )
                .at(value.span)
                .node(path)
                .help("hookc reads schema_version 1.x.y"),
            );
            return;
        }
        self.out.schema_version = Some(Spanned::new(version.clone(), value.span));
    }

    fn hooks(&mut self, layer: Layer, value: &Node) {
        let key = layer.yaml_key();
        let items = match &value.kind {
            // `hooks:` with nothing after it is a file cut short or not
            // finished (a guard truncated on disk must not load as one that
            // allows everything): an empty list is written `[]`.
            NodeKind::Null => {
                let help = format!("write `{key}: []` for none");
                self.wrong_shape(value, key.into(), "a list of hooks", Some(help));
                return;
            }
            NodeKind::Seq(items) => items,
            // `hooks: {PreToolUse: [{matcher, hooks: [...]}]}`: an agent
            // host's settings file (or seed 002's hooks by timing point),
            // given to hookc as a policy.
            NodeKind::Map(entries) => {
                let names: Vec<&str> = entries
                    .iter()
                    .map(|(k, _)| k.name.as_str())
                    .take(3)
                    .collect();
                let help =
                    format!(
                    "`{key}:` keyed by event names ({}) is the shape of an agent host's settings \
                     file (Claude Code's, Gemini CLI's or Codex's `hooks`, which run commands): \
                     hookc's `{key}` is a list whose entries name their `event`. \
                     `hookc init --host HOST` writes a policy and the settings that run it; \
                     the guide's porting chapter turns a settings file's hooks into hookc hooks",
                    names.iter().map(|n| format!("`{n}`")).collect::<Vec<_>>().join(", ")
                );
                self.wrong_shape(value, key.into(), "a list of hooks", Some(help));
                return;
            }
            _ => {
                self.wrong_shape(value, key.into(), "a list of hooks", None);
                return;
            }
        };
        for (index, item) in items.iter().enumerate() {
            if let Some(hook) = self.hook(layer, index, item) {
                if self.out.hooks.len() >= MAX_HOOKS {
                    if !self.too_many {
                        self.too_many = true;
                        self.diags.push(
                            Diagnostic::new(
                                Code::TooLarge,
                                format!("more than {MAX_HOOKS} hooks in one file"),
                            )
                            .at(item.span)
                            .node(format!("{key}[{index}]")),
                        );
                    }
                    return;
                }
                self.out.hooks.push(hook);
            }
        }
    }

    /// One hook; `None` if it has an error (reported).
    fn hook(&mut self, layer: Layer, index: usize, node: &Node) -> Option<SourceHook> {
        let path = format!("{}[{index}]", layer.yaml_key());
        let Some(entries) = node.as_map() else {
            self.wrong_shape(node, path, "a hook mapping", None);
            return None;
        };
        let mut id = None;
        let mut events = None;
        let mut priority = None;
        let mut enabled = true;
        let mut replace = None;
        let mut description = None;
        let mut condition: Option<(RawCondition, &Key)> = None;
        let mut action = None;
        let mut table = None;
        let mut locals = Vec::new();
        let mut saw_event = false;
        let mut saw_action = false;
        for (key, value) in entries {
            let field = child(&path, &key.name);
            match key.name.as_str() {
                "id" => match &value.kind {
                    NodeKind::Str(s) => id = Some(Spanned::new(s.clone(), value.span)),
                    _ => {
                        let help = is_scalar(value).then(|| "quote it".to_owned());
                        self.wrong_shape(value, field, "a string for `id`", help);
                    }
                },
                "event" => {
                    saw_event = true;
                    events = self.events(value, &field);
                }
                "priority" => match &value.kind {
                    NodeKind::Int(p) => priority = Some(Spanned::new(*p, value.span)),
                    _ => {
                        let help = priority_help("priority", value);
                        self.wrong_shape(value, field, "an integer for `priority`", help);
                    }
                },
                "condition" | "when" => {
                    let raw = if key.name == "condition" {
                        Some(RawCondition::Tree(value.clone()))
                    } else {
                        self.when(value, field.clone())
                    };
                    if let Some((_, first)) = &condition {
                        self.diags.push(
                            Diagnostic::new(
                                Code::ConditionAndWhen,
                                format!("hook has both `{}` and `{}`", first.name, key.name),
                            )
                            .at(key.span)
                            .node(field)
                            .help("use one of them"),
                        );
                    } else if let Some(raw) = raw {
                        condition = Some((raw, key));
                    }
                }
                "action" => {
                    saw_action = true;
                    action = self.action(value, field);
                }
                "enabled" => {
                    if let Some(b) = self.flag(value, field, "enabled") {
                        enabled = b;
                    }
                }
                "replace" => {
                    if let Some(b) = self.flag(value, field, "replace") {
                        replace = b.then_some(value.span);
                    }
                }
                "table" => table = Some(value.clone()),
                "let" => locals = self.locals(value, field),
                "description" => match &value.kind {
                    NodeKind::Str(s) => description = Some(s.clone()),
                    _ => {
                        let help = is_scalar(value).then(|| "quote it".to_owned());
                        self.wrong_shape(value, field, "a string for `description`", help);
                    }
                },
                name => {
                    self.diags.push(
                        Diagnostic::new(Code::UnknownKey, format!("unknown hook key `{name}`"))
                            .at(key.span)
                            .node(field)
                            .maybe_help(help_for(name, HOOK_KEYS.iter().copied())),
                    );
                }
            }
        }
        if !saw_event {
            self.diags.push(
                Diagnostic::new(Code::MissingKey, "hook has no `event`")
                    .at(node.span)
                    .node(path.clone())
                    .help("add `event:` with the event the hook listens to, e.g. `event: error`"),
            );
        }
        if !saw_action {
            self.diags.push(
                Diagnostic::new(Code::MissingKey, "hook has no `action`")
                    .at(node.span)
                    .node(path.clone())
                    .help("add `action:` with the action's `type`, e.g. `action: {type: retry}`"),
            );
        }
        // A hook without its events or action cannot be checked. Any other
        // structural error (an unknown key, a malformed `id` or `priority`,
        // both `condition` and `when`) is reported and the hook is still
        // checked, so that its condition's and action's errors show in the
        // same run; the compilation fails on the reported error anyway.
        let (Some(events), Some(action)) = (events, action) else {
            return None;
        };
        Some(SourceHook {
            layer,
            index,
            node_path: Some(path),
            span: node.span,
            id,
            events,
            priority,
            enabled,
            replace,
            description,
            condition: condition.map(|(raw, _)| raw),
            action,
            table,
            locals,
        })
    }

    /// `let: {NAME: EXPR, ...}`: the names as written, each an identifier
    /// whose value is an expression string; a bad entry is reported and
    /// left out.
    fn locals(&mut self, value: &Node, path: String) -> Vec<super::RawLocal> {
        let Some(entries) = value.as_map() else {
            let help = "write `let: {name: \"expression\"}`".to_owned();
            self.wrong_shape(value, path, "a mapping of names to expressions", Some(help));
            return Vec::new();
        };
        let mut out = Vec::new();
        for (key, expr) in entries {
            let field = child(&path, &key.name);
            if let Some(d) = super::local_name_problem(&key.name, key.span) {
                self.diags.push(d.node(field));
                continue;
            }
            let NodeKind::Str(text) = &expr.kind else {
                let help = "quote the expression: `name: \"...\"`".to_owned();
                self.wrong_shape(expr, field, "an expression string", Some(help));
                continue;
            };
            out.push(super::RawLocal {
                name: Spanned::new(key.name.clone(), key.span),
                text: text.clone(),
                origin: yaml_doc::origin_of(self.text, expr),
                span: expr.span,
            });
        }
        out
    }

    /// A hook's `true`/`false` key (`enabled`, `replace`); `None` (reported)
    /// for anything else.
    fn flag(&mut self, value: &Node, field: String, key: &str) -> Option<bool> {
        if let NodeKind::Bool(b) = value.kind {
            return Some(b);
        }
        let help = matches!(value.as_str(), Some("true" | "false"))
            .then(|| "remove the quotes".to_owned());
        let expected = format!("`true` or `false` for `{key}`");
        self.wrong_shape(value, field, &expected, help);
        None
    }

    /// `event`: a name or a non-empty list of names.
    fn events(&mut self, value: &Node, path: &str) -> Option<Vec<Spanned<String>>> {
        const HELP: &str =
            "name the event the hook listens to, e.g. `event: error`, or `\"*\"` for every event";
        match &value.kind {
            NodeKind::Str(name) if name.trim().is_empty() => {
                self.no_event(value, path.into(), "hook has an empty event name", HELP);
                None
            }
            NodeKind::Str(name) => Some(vec![Spanned::new(name.clone(), value.span)]),
            NodeKind::Null => {
                self.no_event(value, path.into(), "hook has no event", HELP);
                None
            }
            NodeKind::Seq(items) if items.is_empty() => {
                self.no_event(value, path.into(), "hook has an empty `event` list", HELP);
                None
            }
            NodeKind::Seq(items) => {
                let mut names = Vec::with_capacity(items.len());
                for (j, item) in items.iter().enumerate() {
                    let item_path = format!("{path}[{j}]");
                    match &item.kind {
                        NodeKind::Str(name) if name.trim().is_empty() => {
                            self.no_event(item, item_path, "hook has an empty event name", HELP);
                        }
                        NodeKind::Str(name) => names.push(Spanned::new(name.clone(), item.span)),
                        _ => self.wrong_shape(item, item_path, "an event name", None),
                    }
                }
                (names.len() == items.len()).then_some(names)
            }
            _ => {
                self.wrong_shape(
                    value,
                    path.into(),
                    "an event name or a list of event names",
                    None,
                );
                None
            }
        }
    }

    fn no_event(&mut self, node: &Node, path: String, message: &str, help: &str) {
        self.diags.push(
            Diagnostic::new(Code::NoEvent, message)
                .at(node.span)
                .node(path)
                .help(help),
        );
    }

    /// `when`: an expression string (a YAML bool is the expression `true`/`false`).
    fn when(&mut self, value: &Node, path: String) -> Option<RawCondition> {
        let text = match &value.kind {
            NodeKind::Str(s) => s.clone(),
            NodeKind::Bool(b) => b.to_string(),
            NodeKind::Seq(_) | NodeKind::Map(_) => {
                let help = "use `condition:` for a condition tree".to_owned();
                self.wrong_shape(value, path, "an expression string for `when`", Some(help));
                return None;
            }
            _ => {
                let help = "quote the expression: `when: \"...\"`".to_owned();
                self.wrong_shape(value, path, "an expression string for `when`", Some(help));
                return None;
            }
        };
        Some(RawCondition::When {
            text,
            origin: yaml_doc::origin_of(self.text, value),
            span: value.span,
        })
    }

    /// `action`: a mapping with `type`; every other entry is a parameter.
    fn action(&mut self, value: &Node, path: String) -> Option<RawAction> {
        let Some(entries) = value.as_map() else {
            let help = value
                .as_str()
                .map(|name| format!("write `action: {{type: {name}}}`"));
            self.wrong_shape(value, path, "an action mapping for `action`", help);
            return None;
        };
        let mut kind = None;
        let mut ok = true;
        let mut params = Vec::new();
        for (key, param) in entries {
            if key.name == "type" {
                match &param.kind {
                    NodeKind::Str(name) => kind = Some(Spanned::new(name.clone(), param.span)),
                    _ => {
                        let field = child(&path, "type");
                        self.wrong_shape(param, field, "an action type name for `type`", None);
                        ok = false;
                    }
                }
            } else {
                params.push((Spanned::new(key.name.clone(), key.span), param.clone()));
            }
        }
        if !ok {
            return None;
        }
        let Some(kind) = kind else {
            self.diags.push(
                Diagnostic::new(Code::MissingKey, "action has no `type`")
                    .at(value.span)
                    .node(path)
                    .help("add `type:` naming the action, e.g. `type: retry`"),
            );
            return None;
        };
        Some(RawAction {
            kind,
            params,
            xml_params: Vec::new(),
            span: value.span,
            node_path: Some(path),
        })
    }
}

/// Whether the node is a scalar other than a string (a value one could quote).
fn is_scalar(node: &Node) -> bool {
    matches!(
        node.kind,
        NodeKind::Null | NodeKind::Bool(_) | NodeKind::Int(_) | NodeKind::Float(_)
    )
}

/// Help for a `priority` (or `default_priority`) that is not an integer
/// but reads as one.
fn priority_help(key: &str, value: &Node) -> Option<String> {
    match &value.kind {
        NodeKind::Str(s) if s.trim().parse::<i64>().is_ok() => {
            Some(format!("remove the quotes: `{key}: {}`", s.trim()))
        }
        NodeKind::Float(f) if f.fract() == 0.0 && f.abs() < 1e15 => {
            Some(format!("priorities are integers: `{key}: {f:.0}`"))
        }
        _ => None,
    }
}

#[cfg(test)]
mod tests;

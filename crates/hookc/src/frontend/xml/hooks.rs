//! The directive layer of the reader: what a `<hook>`, its `<when>`, its
//! action element and the action's `<param>` children mean. Each is begun at
//! its start tag and finished at its end tag, a finished hook becoming a
//! [`SourceHook`].

use super::{
    is_xml_space, trim_xml, ActionBuilder, Attr, DocReader, HookBuilder, OpenElement, ParamBuilder,
    Stop, TableBuilder, TextBuf, WhenBuilder, ACTION_HELP, HOOKS_ATTRS, HOOK_ATTRS, PARAM_HELP,
};

use crate::diag::{Code, Diagnostic};
use crate::frontend::doc::{Node, NodeKind};
use crate::frontend::{Layer, RawAction, RawCondition, SourceHook};
use crate::span::{Origin, Span, Spanned};
use crate::suggest::help_for;
use hookc_runtime::limits::MAX_HOOKS;

impl<'t> DocReader<'t, '_> {
    // ---- hooks --------------------------------------------------------------

    pub(super) fn begin_hook(&mut self, tag: Span, attrs: Vec<Attr>) -> Result<OpenElement, Stop> {
        if self.next_index >= MAX_HOOKS {
            let diag = Diagnostic::new(
                Code::TooLarge,
                format!("more than {MAX_HOOKS} hooks in one file"),
            )
            .at(tag);
            return Err(self.fatal(diag));
        }
        let mut hook = HookBuilder {
            index: self.next_index,
            tag,
            id: None,
            event_given: false,
            events: Vec::new(),
            priority: None,
            enabled: true,
            replace: None,
            description: None,
            when_from_attribute: None,
            condition: None,
            action_seen: false,
            action: None,
            table: None,
            locals: Vec::new(),
            text_reported: false,
        };
        self.next_index += 1;
        for attr in attrs {
            match attr.name.as_str() {
                "event" => {
                    hook.event_given = true;
                    hook.events = self.events(&attr);
                }
                "when" => {
                    hook.when_from_attribute = Some(true);
                    hook.condition = self.when_attribute(&attr);
                }
                "id" => {
                    if trim_xml(&attr.value).is_empty() {
                        self.report(
                            Diagnostic::new(Code::WrongShape, "`id` is empty")
                                .at(attr.value_span)
                                .help("give the hook a name, or remove `id` for a default one"),
                        );
                    } else {
                        hook.id = Some(Spanned::new(attr.value, attr.value_span));
                    }
                }
                "priority" => hook.priority = self.priority(&attr),
                "enabled" => {
                    if let Some(b) = self.flag(&attr) {
                        hook.enabled = b;
                    }
                }
                "replace" => {
                    if let Some(b) = self.flag(&attr) {
                        hook.replace = b.then_some(attr.value_span);
                    }
                }
                "description" => hook.description = Some(attr.value),
                other => self.report(
                    Diagnostic::new(
                        Code::UnknownKey,
                        format!("unknown attribute `{other}` on `<hook>`"),
                    )
                    .at(attr.name_span)
                    .maybe_help(help_for(other, HOOK_ATTRS.iter().copied())),
                ),
            }
        }
        Ok(OpenElement::Hook(Box::new(hook)))
    }

    /// A `true`/`false` attribute (`enabled`, `replace`); `None` (reported)
    /// for anything else.
    fn flag(&mut self, attr: &Attr) -> Option<bool> {
        match trim_xml(&attr.value) {
            "true" => Some(true),
            "false" => Some(false),
            other => {
                self.report(
                    Diagnostic::new(
                        Code::WrongShape,
                        format!("`{}` must be `true` or `false`, found `{other}`", attr.name),
                    )
                    .at(attr.value_span),
                );
                None
            }
        }
    }

    /// The attributes of a `<hooks>` element: the policy-wide
    /// `priority_order`, `layer_order`, `default_priority`, `combine`,
    /// `attribution`, `on_error` and `host`, as a YAML
    /// file's top-level keys.
    /// Other attributes are ignored, as everything outside hooks is, unless
    /// one looks like a misspelling of these.
    pub(super) fn hooks_attributes(&mut self, attrs: Vec<Attr>) {
        for attr in attrs {
            match attr.name.as_str() {
                "priority_order" => {
                    let declared = self.spelled(&attr);
                    self.declared.priority_order.extend(declared);
                }
                "layer_order" => {
                    let declared = self.spelled(&attr);
                    self.declared.layer_order.extend(declared);
                }
                "combine" => {
                    let declared = self.spelled(&attr);
                    self.declared.combine.extend(declared);
                }
                "attribution" => {
                    let declared = self.spelled(&attr);
                    self.declared.attribution.extend(declared);
                }
                "host" => {
                    let name = trim_xml(&attr.value).to_owned();
                    self.declared.host.push(crate::span::Spanned::new(name, attr.value_span));
                }
                "on_error" => match attr.value.as_str() {
                    "skip" | "fail" => {
                        let choice = match attr.value.as_str() {
                            "fail" => crate::frontend::RawOnError::Fail,
                            _ => crate::frontend::RawOnError::Skip,
                        };
                        let span = attr.value_span;
                        self.declared.on_error.push(crate::span::Spanned::new(choice, span));
                    }
                    other => self.report(
                        Diagnostic::new(
                            Code::WrongShape,
                            format!("`on_error` is `{other}`, not one of `skip`, `fail`"),
                        )
                        .at(attr.value_span)
                        .help("an error action is declared in a YAML hook file: `on_error: {action: {...}}`"),
                    ),
                },
                "default_priority" => {
                    let declared = self.priority(&attr);
                    self.declared.default_priority.extend(declared);
                }
                other => {
                    if let Some(help) = help_for(other, HOOKS_ATTRS.iter().copied()) {
                        self.report(
                            Diagnostic::new(
                                Code::UnknownKey,
                                format!("unknown attribute `{other}` on `<hooks>`"),
                            )
                            .at(attr.name_span)
                            .help(help),
                        );
                    }
                }
            }
        }
    }

    /// An attribute spelled as one of `T`'s words; `None` (reported) if not.
    fn spelled<T: crate::ir::Spelled>(&mut self, attr: &Attr) -> Option<Spanned<T>> {
        let value = trim_xml(&attr.value);
        if let Some(choice) = T::from_name(value) {
            return Some(Spanned::new(choice, attr.value_span));
        }
        let names: Vec<&str> = T::names().collect();
        self.report(
            Diagnostic::new(
                Code::WrongShape,
                format!(
                    "`{}` is `{value}`, not one of `{}`",
                    attr.name,
                    names.join("`, `")
                ),
            )
            .at(attr.value_span)
            .maybe_help(help_for(value, names.iter().copied())),
        );
        None
    }

    /// `event="a, b"`: the trimmed, non-empty names.
    fn events(&mut self, attr: &Attr) -> Vec<Spanned<String>> {
        let mut events = Vec::new();
        if trim_xml(&attr.value).is_empty() {
            self.report(
                Diagnostic::new(Code::NoEvent, "hook listens to no event: `event` is empty")
                    .at(attr.value_span)
                    .help(
                        "name an event such as `error`, several as `error,limit`, or `*` for \
                         every event",
                    ),
            );
            return events;
        }
        let mut start = 0;
        for piece in attr.value.split(',') {
            let lead = piece.len() - piece.trim_start_matches(is_xml_space).len();
            let name = trim_xml(piece);
            let span = self.value_part(attr, start + lead, start + lead + name.len());
            if name.is_empty() {
                self.report(
                    Diagnostic::new(
                        Code::NoEvent,
                        format!("empty event name in `{}`", attr.value),
                    )
                    .at(span)
                    .help("separate event names with single commas"),
                );
            } else {
                events.push(Spanned::new(name.to_owned(), span));
            }
            start += piece.len() + 1;
        }
        events
    }

    /// `when="expr"`.
    fn when_attribute(&mut self, attr: &Attr) -> Option<RawCondition> {
        let text = trim_xml(&attr.value);
        if text.is_empty() {
            self.report(
                Diagnostic::new(Code::WrongShape, "`when` is empty")
                    .at(attr.value_span)
                    .help("write a condition, or remove `when` to match every event"),
            );
            return None;
        }
        let lead = attr.value.len() - attr.value.trim_start_matches(is_xml_space).len();
        let origin = if attr.exact {
            let base = attr.value_span.start as usize + lead;
            Origin::Exact {
                file: self.file,
                base: u32::try_from(base).unwrap_or(u32::MAX),
            }
        } else {
            Origin::Whole(attr.value_span)
        };
        Some(RawCondition::When {
            text: text.to_owned(),
            origin,
            span: attr.value_span,
        })
    }

    /// `priority="10"`.
    fn priority(&mut self, attr: &Attr) -> Option<Spanned<i64>> {
        let text = trim_xml(&attr.value);
        match text.parse::<i64>() {
            Ok(p) => Some(Spanned::new(p, attr.value_span)),
            Err(err) => {
                let diag = match err.kind() {
                    std::num::IntErrorKind::PosOverflow | std::num::IntErrorKind::NegOverflow => {
                        Diagnostic::new(
                            Code::BadLiteral,
                            format!(
                                "`{}` `{text}` is out of the 64-bit integer range",
                                attr.name
                            ),
                        )
                    }
                    _ => Diagnostic::new(
                        Code::WrongShape,
                        format!("`{}` must be an integer, found `{text}`", attr.name),
                    )
                    .help("higher priorities run first; the default is 0"),
                };
                self.report(diag.at(attr.value_span));
                None
            }
        }
    }

    pub(super) fn finish_hook(&mut self, hook: HookBuilder, whole: Span) {
        if !hook.event_given {
            self.report(
                Diagnostic::new(Code::MissingKey, "`<hook>` has no `event` attribute")
                    .at(hook.tag)
                    .help(
                        "name the event it listens to: `event=\"error\"`, several as \
                         `event=\"error,limit\"`, every event as `event=\"*\"`",
                    ),
            );
        }
        if !hook.action_seen {
            self.report(
                Diagnostic::new(Code::HookAction, "hook has no action element")
                    .at(hook.tag)
                    .help(ACTION_HELP),
            );
        }
        let Some(action) = hook.action else {
            return;
        };
        if hook.events.is_empty() {
            return;
        }
        self.hooks.push(SourceHook {
            layer: Layer::Directive,
            index: hook.index,
            node_path: None,
            span: whole,
            id: hook.id,
            events: hook.events,
            priority: hook.priority,
            enabled: hook.enabled,
            replace: hook.replace,
            description: hook.description,
            condition: hook.condition,
            action,
            table: hook.table,
            locals: hook.locals,
        });
    }

    // ---- <table> ------------------------------------------------------------

    /// `<table on="PATH">`: its attributes become the entries of the
    /// mapping YAML's `table:` is (the compiler checks them).
    pub(super) fn begin_table(&mut self, tag: Span, attrs: Vec<Attr>) -> OpenElement {
        let seen = self.hook_mut().is_some_and(|h| h.table.is_some());
        if seen {
            self.report(
                Diagnostic::new(Code::DuplicateKey, "hook has more than one `<table>`")
                    .at(tag)
                    .help("a hook has one pattern table; put every row in it"),
            );
            return OpenElement::Skip;
        }
        OpenElement::Table(Box::new(TableBuilder {
            tag,
            entries: attr_entries(attrs),
            rows: Vec::new(),
        }))
    }

    /// `<row pattern="RE" FIELD="VALUE" .../>`: a mapping of its attributes.
    pub(super) fn begin_row(&mut self, tag: Span, attrs: Vec<Attr>) -> OpenElement {
        let row = Node {
            kind: NodeKind::Map(attr_entries(attrs)),
            span: tag,
        };
        if let Some(OpenElement::Table(t)) = self.open.last_mut().map(|o| &mut o.frame) {
            t.rows.push(row);
        }
        OpenElement::Row
    }

    pub(super) fn finish_table(&mut self, table: TableBuilder, whole: Span) {
        let TableBuilder {
            tag,
            mut entries,
            rows,
        } = table;
        entries.push((
            crate::frontend::doc::Key {
                name: "rows".to_owned(),
                span: tag,
            },
            Node {
                kind: NodeKind::Seq(rows),
                span: whole,
            },
        ));
        let node = Node {
            kind: NodeKind::Map(entries),
            span: whole,
        };
        if let Some(hook) = self.hook_mut() {
            hook.table = Some(node);
        }
    }

    // ---- <when> -------------------------------------------------------------

    pub(super) fn begin_when(&mut self, tag: Span, attrs: &[Attr]) -> OpenElement {
        for attr in attrs {
            self.report(
                Diagnostic::new(
                    Code::UnknownKey,
                    format!("unknown attribute `{}` on `<when>`", attr.name),
                )
                .at(attr.name_span)
                .help("`<when>` takes no attributes: its text is the condition"),
            );
        }
        let previous = self.hook_mut().and_then(|h| {
            let previous = h.when_from_attribute;
            h.when_from_attribute.get_or_insert(false);
            previous
        });
        let discard = previous.is_some();
        if let Some(from_attribute) = previous {
            let message = if from_attribute {
                "hook has both a `when` attribute and a `<when>` element"
            } else {
                "hook has two `<when>` elements"
            };
            self.report(
                Diagnostic::new(Code::ConditionAndWhen, message)
                    .at(tag)
                    .label("second condition")
                    .help("keep one condition; join conditions with `&&` (or `and`)"),
            );
        }
        OpenElement::When(WhenBuilder {
            discard,
            text: TextBuf::default(),
        })
    }

    pub(super) fn finish_when(&mut self, when: WhenBuilder, tag: Span, whole: Span) {
        if when.discard {
            return;
        }
        let Some(text) = when.text.finish(whole) else {
            self.report(
                Diagnostic::new(Code::WrongShape, "`<when>` is empty")
                    .at(tag)
                    .help(
                        "write the condition as its text, or remove `<when>` to match every event",
                    ),
            );
            return;
        };
        if let Some(hook) = self.hook_mut() {
            hook.condition = Some(RawCondition::When {
                text: text.text,
                origin: text.origin,
                span: text.span,
            });
        }
    }

    // ---- actions ------------------------------------------------------------

    pub(super) fn begin_action(
        &mut self,
        name: &str,
        name_span: Span,
        tag: Span,
        attrs: Vec<Attr>,
    ) -> OpenElement {
        let seen = self
            .hook_mut()
            .is_some_and(|h| std::mem::replace(&mut h.action_seen, true));
        if seen {
            self.report(
                Diagnostic::new(Code::HookAction, "hook has more than one action element")
                    .at(tag)
                    .label("second action")
                    .help("a hook runs one action; split it into several hooks"),
            );
        }
        let params = attrs
            .into_iter()
            .map(|a| {
                let key = Spanned::new(a.name, a.name_span);
                let value = Node {
                    kind: NodeKind::Text(a.value),
                    span: a.value_span,
                };
                (key, value)
            })
            .collect();
        OpenElement::Action(Box::new(ActionBuilder {
            name: Spanned::new(name.to_owned(), name_span),
            tag,
            discard: seen,
            params,
            xml_params: Vec::new(),
            text: TextBuf::default(),
        }))
    }

    pub(super) fn finish_action(&mut self, action: ActionBuilder, whole: Span) {
        let ActionBuilder {
            name,
            tag,
            discard,
            mut params,
            xml_params,
            text,
        } = action;
        let text = text.finish(whole);
        let mut kind = name.clone();
        let mut complete = true;
        if name.value == "directive" {
            // The seed's shorthand: `<directive>X</directive>`.
            kind.value = "call_directive".to_owned();
            let attribute = params.iter().any(|(k, _)| k.value == "directive");
            match text {
                Some(t) if attribute => self.report(
                    Diagnostic::new(
                        Code::DuplicateKey,
                        "the directive is named twice: as text and as the `directive` attribute",
                    )
                    .at(t.span)
                    .help("keep one of them"),
                ),
                Some(t) => {
                    let key = Spanned::new("directive".to_owned(), t.span);
                    let value = Node {
                        kind: NodeKind::Text(t.text),
                        span: t.span,
                    };
                    params.insert(0, (key, value));
                }
                None if attribute => {}
                None => {
                    complete = false;
                    self.report(
                        Diagnostic::new(Code::MissingKey, "`<directive>` names no directive")
                            .at(tag)
                            .help(
                                "write the directive's name as its text: \
                                 `<directive>my_app/handler</directive>`",
                            ),
                    );
                }
            }
        } else if let Some(t) = text {
            self.report(
                Diagnostic::new(
                    Code::WrongShape,
                    format!("unexpected text in `<{}>`", name.value),
                )
                .at(t.span)
                .help(PARAM_HELP),
            );
        }
        for (i, (key, _)) in xml_params.iter().enumerate() {
            let repeated = xml_params
                .iter()
                .take(i)
                .any(|(earlier, _)| earlier.value == key.value);
            if repeated {
                self.report(
                    Diagnostic::new(
                        Code::DuplicateKey,
                        format!("`<param name=\"{}\">` is given twice", key.value),
                    )
                    .at(key.span),
                );
            }
        }
        if discard || !complete {
            return;
        }
        if let Some(hook) = self.hook_mut() {
            hook.action = Some(RawAction {
                kind,
                params,
                xml_params,
                span: whole,
                node_path: None,
            });
        }
    }

    // ---- <param> ------------------------------------------------------------

    pub(super) fn begin_param(&mut self, tag: Span, attrs: Vec<Attr>) -> OpenElement {
        let mut name = None;
        let mut named = false;
        for attr in attrs {
            if attr.name == "name" {
                named = true;
                if trim_xml(&attr.value).is_empty() {
                    self.report(
                        Diagnostic::new(Code::WrongShape, "`<param>` has an empty `name`")
                            .at(attr.value_span),
                    );
                } else {
                    name = Some(Spanned::new(attr.value, attr.value_span));
                }
            } else {
                self.report(
                    Diagnostic::new(
                        Code::UnknownKey,
                        format!("unknown attribute `{}` on `<param>`", attr.name),
                    )
                    .at(attr.name_span)
                    .maybe_help(help_for(&attr.name, ["name"])),
                );
            }
        }
        if !named {
            self.report(
                Diagnostic::new(Code::MissingKey, "`<param>` has no `name` attribute")
                    .at(tag)
                    .help("name the parameter: `<param name=\"key\">value</param>`"),
            );
        }
        OpenElement::Param(ParamBuilder {
            name,
            text: TextBuf::default(),
        })
    }

    pub(super) fn finish_param(&mut self, param: ParamBuilder, whole: Span) {
        let Some(name) = param.name else {
            return;
        };
        let value = match param.text.finish(whole) {
            Some(t) => Node {
                kind: NodeKind::Text(t.text),
                span: t.span,
            },
            None => Node {
                kind: NodeKind::Text(String::new()),
                span: whole,
            },
        };
        if let Some(OpenElement::Action(action)) = self.open.last_mut().map(|o| &mut o.frame) {
            action.xml_params.push((name, value));
        }
    }
}

/// Attributes as the entries of a mapping: text values at their spans.
fn attr_entries(attrs: Vec<Attr>) -> Vec<(crate::frontend::doc::Key, Node)> {
    attrs
        .into_iter()
        .map(|a| {
            let key = crate::frontend::doc::Key {
                name: a.name,
                span: a.name_span,
            };
            let value = Node {
                kind: NodeKind::Text(a.value),
                span: a.value_span,
            };
            (key, value)
        })
        .collect()
}

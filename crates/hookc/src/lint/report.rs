//! Findings as diagnostics: where each points (the hook's condition, id or
//! event as written, which the checked hook does not keep: [`HookOrigin`]),
//! and its message, labels and help.

use super::{analyze, Finding, TemplateHole, KNOWN_EVENTS};

use crate::check::policy::{CheckedPolicy, Hook};
use crate::diag::{and_list, Code, Diagnostic, Diagnostics};
use crate::frontend::{RawCondition, SourceHook};
use crate::ir::PriorityOrder;
use crate::span::{SourceMap, Span, Spanned};

/// Where a hook was written, for locating findings (what the checked
/// [`Hook`] does not keep).
#[derive(Debug, Clone)]
pub struct HookOrigin {
    /// YAML node path of the hook (`hooks[2]`); `None` for XML.
    pub node_path: Option<String>,
    /// The `id` value, if written.
    pub id_span: Option<Span>,
    /// The event names as written.
    pub events: Vec<Spanned<String>>,
    /// `when` or `condition`: the key holding the condition.
    pub condition_key: &'static str,
    /// The first key of a YAML condition tree (`all`, `path`, ...): where to
    /// point when the whole condition spans several lines.
    pub condition_head: Option<Span>,
}

impl HookOrigin {
    /// What a hook as written says about its locations.
    pub fn of(raw: &SourceHook) -> HookOrigin {
        HookOrigin {
            node_path: raw.node_path.clone(),
            id_span: raw.id.as_ref().map(|id| id.span),
            events: raw.events.clone(),
            condition_key: match raw.condition {
                Some(RawCondition::Tree(_)) => "condition",
                _ => "when",
            },
            condition_head: match &raw.condition {
                Some(RawCondition::Tree(node)) => node
                    .as_map()
                    .and_then(|entries| entries.first())
                    .map(|(key, _)| key.span),
                _ => None,
            },
        }
    }
}

/// Turns findings into diagnostics. `origins` are by [`Hook::source_order`].
/// `decided`: hooks whose W0005 a W0014 already explains (by index in
/// [`CheckedPolicy::hooks`]), not reported again.
pub fn report(
    policy: &CheckedPolicy,
    origins: &[HookOrigin],
    sources: &SourceMap,
    decided: &std::collections::HashSet<usize>,
    diags: &mut Diagnostics,
) {
    let hooks = policy.hooks();
    let origin_of = |h: &Hook| origins.get(h.source_order);
    // Where to point for a hook: its condition, else its id, else its event.
    let anchor = |h: &Hook| -> (Span, Option<String>) {
        let o = origin_of(h);
        let np = o.and_then(|o| o.node_path.clone());
        if let Some(c) = &h.condition {
            let key = o.map_or("when", |o| o.condition_key);
            let line = |at: u32| sources.line_col(c.span.file, at).map(|lc| lc.line);
            let span = match o.and_then(|o| o.condition_head) {
                Some(head) if line(c.span.start) != line(c.span.end) => head,
                _ => c.span,
            };
            return (span, np.map(|p| format!("{p}.{key}")));
        }
        if let Some(id) = o.and_then(|o| o.id_span) {
            return (id, np.map(|p| format!("{p}.id")));
        }
        match o.and_then(|o| o.events.first()) {
            Some(e) => (e.span, np.map(|p| format!("{p}.event"))),
            None => (h.span, np),
        }
    };
    let named = |h: &Hook| format!("`{}` (priority {})", h.id, h.priority);
    // The priority that runs earlier, for the help.
    let earlier_priority = match policy.priority_order() {
        PriorityOrder::HigherFirst => "higher",
        PriorityOrder::LowerFirst => "lower",
    };
    for f in analyze(policy) {
        let d = match f {
            Finding::AlwaysFalse { hook, .. } | Finding::AlwaysTrue { hook }
                if decided.contains(&hook) =>
            {
                continue
            }
            Finding::Shadowed {
                hook,
                by,
                events,
                duplicate,
            } => {
                let Some(h) = hooks.get(hook) else { continue };
                let earlier: Vec<&Hook> = by.iter().filter_map(|i| hooks.get(*i)).collect();
                let names: Vec<String> = earlier.iter().map(|a| named(a)).collect();
                let on = if events.is_empty() {
                    String::new()
                } else {
                    let evs: Vec<String> = events.iter().map(|e| format!("`{e}`")).collect();
                    let s = if evs.len() == 1 { "" } else { "s" };
                    format!("on event{s} {}, ", and_list(&evs))
                };
                let (span, np) = anchor(h);
                let message = if duplicate {
                    let which = if earlier.len() == 1 { "hook" } else { "hooks" };
                    format!(
                        "{on}hook `{}` has the same condition as {which} {} and can never match",
                        h.id,
                        and_list(&names)
                    )
                } else if earlier.len() == 1 {
                    format!(
                        "{on}hook `{}` can never match: hook {} matches whenever it would",
                        h.id,
                        and_list(&names)
                    )
                } else {
                    format!(
                        "{on}hook `{}` can never match: hooks {} together match whenever it would",
                        h.id,
                        and_list(&names)
                    )
                };
                let code = if duplicate {
                    Code::DuplicateCondition
                } else {
                    Code::ShadowedHook
                };
                let mut d = Diagnostic::new(code, message).at(span).label(if duplicate {
                    "repeated condition"
                } else {
                    "shadowed"
                });
                if let Some(np) = np {
                    d = d.node(np);
                }
                for a in &earlier {
                    let what = if a.condition.is_none() {
                        ", with no condition"
                    } else {
                        ""
                    };
                    d = d.note(format!(
                        "hook `{}` is at {}{what}",
                        a.id,
                        sources.location(anchor(a).0)
                    ));
                }
                if earlier.iter().any(|a| a.priority == h.priority) {
                    d = d.note(
                        "at equal priority the directive layer runs before the builtin layer, then source order",
                    );
                }
                let first = earlier.first().map_or(String::new(), |a| a.id.clone());
                d.help(if duplicate {
                    format!("remove `{}`, or merge it into `{first}`", h.id)
                } else {
                    format!(
                        "remove `{}`, give it a {earlier_priority} priority than `{first}`, or narrow the earlier condition",
                        h.id
                    )
                })
            }
            Finding::AlwaysFalse {
                hook,
                why,
                contradiction,
            } => {
                let Some(h) = hooks.get(hook) else { continue };
                let (span, np) = anchor(h);
                let quoted: Vec<String> = why.iter().map(|w| format!("`{w}`")).collect();
                let reason = match (quoted.as_slice(), contradiction) {
                    ([], _) => String::new(),
                    ([one], false) => format!(": {one} is never true"),
                    ([one], true) => format!(": {one} is required both true and false"),
                    (more, _) => format!(": contradictory: {}", and_list(more)),
                };
                let mut d = Diagnostic::new(
                    Code::ConstantCondition,
                    format!("the condition of hook `{}` is always false{reason}", h.id),
                )
                .at(span)
                .label("never true")
                .help("the hook can never match: fix the condition or remove the hook");
                if let Some(np) = np {
                    d = d.node(np);
                }
                d
            }
            Finding::AlwaysTrue { hook } => {
                let Some(h) = hooks.get(hook) else { continue };
                let (span, np) = anchor(h);
                let mut d = Diagnostic::new(
                    Code::ConstantCondition,
                    format!("the condition of hook `{}` is always true", h.id),
                )
                .at(span)
                .label("true in every context")
                .help("a hook without a condition always matches: remove the condition, or fix it");
                if let Some(np) = np {
                    d = d.node(np);
                }
                d
            }
            Finding::UnknownEvent {
                hook,
                event,
                suggestion,
            } => {
                let Some(h) = hooks.get(hook) else { continue };
                let o = origin_of(h);
                let at = o.and_then(|o| {
                    o.events
                        .iter()
                        .position(|e| e.value == event)
                        .and_then(|i| o.events.get(i).map(|e| (i, e.span)))
                });
                let mut d = Diagnostic::new(
                    Code::UnknownEvent,
                    format!(
                        "hook `{}` listens to event `{event}`, which no other hook, known event or schema names",
                        h.id
                    ),
                )
                .at(at.map_or(h.span, |(_, s)| s))
                .label("unknown event");
                if let (Some(np), Some((i, _))) = (o.and_then(|o| o.node_path.clone()), at) {
                    let many = o.is_some_and(|o| o.events.len() > 1);
                    d = d.node(if many {
                        format!("{np}.event[{i}]")
                    } else {
                        format!("{np}.event")
                    });
                }
                match suggestion {
                    Some(s) => d.help(format!("did you mean `{s}`?")),
                    None => d
                        .help(format!(
                            "if your runtime raises `{event}`, declare it in the `enum` of `event.type` in event_context_schema"
                        ))
                        .note(format!(
                            "known events: {}",
                            and_list(
                                &KNOWN_EVENTS
                                    .iter()
                                    .map(|e| format!("`{e}`"))
                                    .collect::<Vec<_>>()
                            )
                        )),
                }
            }
            Finding::UnguardedTemplate {
                hook,
                path,
                span,
                hole,
                param,
            } => {
                let Some(h) = hooks.get(hook) else { continue };
                let text = policy
                    .paths()
                    .get(path)
                    .map_or_else(|| "?".to_owned(), ToString::to_string);
                let mut d = Diagnostic::new(
                    Code::UnguardedTemplate,
                    format!(
                        "the action of hook `{}` reads `${{{text}}}`, but its condition does not ensure that `{text}` exists",
                        h.id
                    ),
                )
                .at(span)
                .label(match hole {
                    TemplateHole::Whole => "null when missing",
                    TemplateHole::Part => "empty when missing",
                    TemplateHole::Expr => "an error when missing: the action cannot be filled",
                })
                .help(format!(
                    "if the action needs it, add `has({text})` to the condition"
                ))
                // Generated policies repeat one template in many hooks: one
                // warning per path and file (`Diagnostics::fold_repeats`).
                .once_per_file(text.clone());
                if let Some(np) = origin_of(h).and_then(|o| o.node_path.clone()) {
                    d = d.node(format!("{np}.action.{}", param.trim_start_matches('.')));
                }
                d
            }
        };
        diags.push(d);
    }
}

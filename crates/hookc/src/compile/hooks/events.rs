//! The driver's part of declared events (`docs/src/semantics.md#declared-events`):
//! a hook's events must be declared (when the policy declares any), each
//! must allow the hook's action effect, and the hook is checked against
//! the context schema of each of its events.

use super::{hook_id, HookContext};
use crate::check::events::{effect_word, EventDecl};
use crate::check::policy::Events;
use crate::check::schema::ContextSchema;
use crate::diag::{and_list, Code, Diagnostic, Diagnostics};
use crate::frontend::SourceHook;
use crate::ir::Effect;
use crate::suggest;

/// The events of a hook that share one context schema.
pub(super) struct SchemaGroup<'a> {
    schema: &'a ContextSchema,
    /// The events (empty for a `"*"` hook, which gets the shared schema).
    events: Vec<&'a str>,
}

/// A hook's events grouped by their context schemas, in the order first
/// named: one group unless declared events give some their own `context`.
pub(super) fn schema_groups<'a>(cx: &HookContext<'a>, events: &'a Events) -> Vec<SchemaGroup<'a>> {
    let mut groups: Vec<SchemaGroup<'a>> = Vec::new();
    let names = match events {
        Events::Any => &[][..],
        Events::Named(names) => names.as_slice(),
    };
    for name in names {
        let schema = cx.events.schema_of(name, cx.schema);
        match groups.iter_mut().find(|g| std::ptr::eq(g.schema, schema)) {
            Some(g) => g.events.push(name),
            None => groups.push(SchemaGroup {
                schema,
                events: vec![name],
            }),
        }
    }
    if groups.is_empty() {
        groups.push(SchemaGroup {
            schema: cx.schema,
            events: Vec::new(),
        });
    }
    groups
}

/// Runs `check` against each group's schema. With one group (every
/// policy without per-event contexts) it reports into `out` directly; with
/// several, a finding of every group is reported once, and a finding of
/// some groups only says which events' context it comes from.
pub(super) fn per_schema<R>(
    groups: &[SchemaGroup<'_>],
    out: &mut Diagnostics,
    mut check: impl FnMut(&ContextSchema, &mut Diagnostics) -> R,
) -> Vec<R> {
    if let [one] = groups {
        return vec![check(one.schema, out)];
    }
    let mut results = Vec::with_capacity(groups.len());
    let mut found: Vec<Vec<Diagnostic>> = Vec::with_capacity(groups.len());
    for g in groups {
        let mut local = Diagnostics::new();
        results.push(check(g.schema, &mut local));
        found.push(local.into_vec());
    }
    let same = |a: &Diagnostic, b: &Diagnostic| {
        a.code == b.code && a.span == b.span && a.message == b.message
    };
    for (g, ds) in groups.iter().zip(&found) {
        for d in ds {
            let everywhere = found.iter().all(|other| other.iter().any(|o| same(o, d)));
            let mut d = d.clone();
            if !everywhere {
                d = d.note(format!(
                    "checked against the context of {}",
                    events_phrase(&g.events)
                ));
            }
            out.push(d);
        }
    }
    results
}

/// `event `a`` or `events `a` and `b``.
fn events_phrase(names: &[&str]) -> String {
    let quoted: Vec<String> = names.iter().map(|n| format!("`{n}`")).collect();
    let s = if quoted.len() == 1 { "" } else { "s" };
    format!("event{s} {}", and_list(&quoted))
}

/// Whether every event the hook names is declared, when the policy
/// declares its events (each one that is not: E0114, with did-you-mean).
pub(super) fn events_declared(
    cx: &HookContext<'_>,
    raw: &SourceHook,
    diags: &mut Diagnostics,
) -> bool {
    if !cx.events.is_declared() {
        return true;
    }
    let declared: Vec<&str> = cx.events.iter().map(EventDecl::name).collect();
    let mut ok = true;
    for (i, e) in raw.events.iter().enumerate() {
        if e.value == "*" || cx.events.get(&e.value).is_some() {
            continue;
        }
        ok = false;
        let help = suggest::did_you_mean(&e.value, declared.iter().copied())
            .map(|best| format!("did you mean `{best}`?"))
            .unwrap_or_else(|| {
                format!(
                    "declare `{}` under `events:`, or name a declared event",
                    e.value
                )
            });
        let mut d = Diagnostic::new(
            Code::UndeclaredEvent,
            format!(
                "hook `{}` listens to event `{}`, which the policy does not declare",
                hook_id(raw, cx.file_name),
                e.value
            ),
        )
        .at(e.span)
        .label("not declared")
        .help(help);
        if !declared.is_empty() && declared.len() <= 16 {
            let quoted: Vec<String> = declared.iter().map(|n| format!("`{n}`")).collect();
            d = d.note(format!("the declared events are {}", and_list(&quoted)));
        }
        if let Some(np) = &raw.node_path {
            d = d.node(if raw.events.len() > 1 {
                format!("{np}.event[{i}]")
            } else {
                format!("{np}.event")
            });
        }
        diags.push(d);
    }
    ok
}

/// Whether each declared event of the hook allows its action's effect (a
/// `"*"` hook: every declared event); else E0406, naming the events, the
/// action type and the effect, with where each event is declared.
pub(super) fn effects_allowed(
    cx: &HookContext<'_>,
    raw: &SourceHook,
    events: &Events,
    effect: Effect,
    diags: &mut Diagnostics,
) -> bool {
    let refusing: Vec<&EventDecl> = match events {
        Events::Any => cx.events.iter().filter(|e| !e.allows(effect)).collect(),
        Events::Named(names) => names
            .iter()
            .filter_map(|n| cx.events.get(n))
            .filter(|e| !e.allows(effect))
            .collect(),
    };
    if refusing.is_empty() {
        return true;
    }
    let word = effect_word(effect);
    // `an `await``, `a `terminal``.
    let a = if word.starts_with(['a', 'e', 'i', 'o', 'u']) {
        "an"
    } else {
        "a"
    };
    let kind = &raw.action.kind.value;
    let names: Vec<&str> = refusing.iter().map(|e| e.name()).collect();
    let quoted: Vec<String> = names.iter().map(|n| format!("`{n}`")).collect();
    let help = match events {
        Events::Any => format!(
            "the hook listens to every event (`\"*\"`): list the events it is for instead, or use an action type with an effect that {} allows",
            and_list(&quoted)
        ),
        Events::Named(_) => format!(
            "use an action type with an effect that {} allows, or take {} out of the hook's `event`",
            and_list(&quoted),
            and_list(&quoted)
        ),
    };
    let verb = if names.len() == 1 { "does" } else { "do" };
    let mut d = Diagnostic::new(
        Code::EffectNotAllowed,
        format!(
            "hook `{}` has {a} `{word}` action (`{kind}`), which {} {verb} not allow",
            hook_id(raw, cx.file_name),
            events_phrase(&names)
        ),
    )
    .at(raw.action.kind.span)
    .label(format!("{a} `{word}` action"))
    .help(help);
    for e in &refusing {
        let allowed: Vec<String> = e
            .effects()
            .unwrap_or_default()
            .iter()
            .map(|w| format!("`{w}`"))
            .collect();
        let allows = if allowed.is_empty() {
            "no effect".to_owned()
        } else {
            and_list(&allowed)
        };
        d = d.note(format!(
            "event `{}` is declared at {} and allows {allows}",
            e.name(),
            cx.sources.location(e.span())
        ));
    }
    if let Some(np) = &raw.action.node_path {
        d = d.node(format!("{np}.type"));
    }
    diags.push(d);
    false
}

//! `hookc diff OLD NEW --events LOG`: the events of a log two policies
//! decide differently (`docs/src/testing/replay.md`), grouped twice. First
//! by what the decision does: per event, the deciding action's type and
//! severity under each policy ([`DecisionEffect`]), so that a rule weakened from
//! deny to allow is never a line among reworded reasons. Then by
//! transition: a [`Change`] kind with the deciding hook under each policy
//! (`None`: no hook decided). Each group keeps its count and the line
//! numbers of its first few events. Tallied per chunk on the workers and
//! merged in input order, so the examples are the first ones of the log.

use hookc_runtime::{Decision, Match, Policy};
use serde_json::Value;
use std::collections::{BTreeMap, HashMap};

/// Line numbers kept per transition.
pub const EXAMPLES: usize = 5;

/// How two decisions of one event differ. The order is the output's tie
/// order.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord)]
pub enum Change {
    /// Another hook decides (or a hook where none did, or none where one
    /// did): `"hook"`.
    Hook,
    /// The same hook decides with an action of another type or severity
    /// (a deny made an allow): `"verdict"`.
    Verdict,
    /// The same hook decides with the same type of action, other
    /// parameters (templates filled from the context, or the action's
    /// text changed): `"action"`.
    Action,
    /// The same terminal match, but other collected matches before it
    /// (`docs/semantics.md#action-effects`): `"collected"`.
    Collected,
}

impl Change {
    /// The kind as the JSON output spells it.
    pub fn name(self) -> &'static str {
        match self {
            Change::Hook => "hook",
            Change::Verdict => "verdict",
            Change::Action => "action",
            Change::Collected => "collected",
        }
    }

    /// How `new` differs from `old`, if it does.
    pub fn between(old: &Decision<'_>, new: &Decision<'_>) -> Option<Change> {
        let (old_hook, new_hook) = (
            old.terminal.as_ref().map(|m| m.hook),
            new.terminal.as_ref().map(|m| m.hook),
        );
        if old_hook != new_hook {
            Some(Change::Hook)
        } else if old.terminal != new.terminal {
            Some(Change::Action)
        } else if old.collected != new.collected {
            Some(Change::Collected)
        } else {
            None
        }
    }
}

/// A change of decision: its kind, the old and the new deciding hook.
pub type Transition = (Change, Option<String>, Option<String>);

/// What a decision does: the type of the action that decides (`None`: no
/// terminal match) and that action's severity (`combine: strictest`; 0
/// where the policy declares none).
#[derive(Debug, Clone, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub struct DecisionEffect {
    /// The deciding action's type.
    pub action: Option<String>,
    /// Its severity.
    pub severity: i64,
}

impl DecisionEffect {
    /// The text form: the type, `(no decision)` for none, and the
    /// severity when `show_severity`.
    fn text(&self, show_severity: bool) -> String {
        let action = self.action.as_deref().unwrap_or("(no decision)");
        if show_severity && self.action.is_some() {
            format!("{action} (severity {})", self.severity)
        } else {
            action.to_owned()
        }
    }
}

/// A change of what an event's decision does: the event, the old and the
/// new verdict.
pub type EffectChange = (String, DecisionEffect, DecisionEffect);

/// Each hook's action severity in one policy, to read a decision's
/// [`DecisionEffect`] (made once per policy, not per event).
#[derive(Debug, Default)]
pub struct Severities(HashMap<String, i64>);

impl Severities {
    /// The severities of `policy`'s hooks.
    pub fn of(policy: &Policy) -> Severities {
        let p = policy.program();
        Severities(
            p.hooks
                .iter()
                .map(|h| {
                    let severity = p.action(h.action).map_or(0, |a| a.severity);
                    (p.string(h.id).to_owned(), severity)
                })
                .collect(),
        )
    }

    /// What `decision` does.
    pub fn verdict(&self, decision: &Decision<'_>) -> DecisionEffect {
        let terminal: Option<&Match<'_>> = decision.terminal.as_ref();
        DecisionEffect {
            action: terminal.map(|m| m.action_type().to_owned()),
            severity: terminal
                .and_then(|m| self.0.get(m.hook))
                .copied()
                .unwrap_or(0),
        }
    }
}

/// One side of a compared event: its decision and its policy's
/// severities.
pub type Side<'d, 'p> = (&'d Decision<'p>, &'d Severities);

/// One transition's events: how many, and the first lines.
#[derive(Debug, Default, Clone, PartialEq, Eq)]
pub struct Group {
    /// Events with this transition.
    pub count: u64,
    /// The line numbers of the first [`EXAMPLES`] of them, ascending.
    pub examples: Vec<u64>,
}

/// The differences over (part of) a log.
#[derive(Debug, Default, Clone, PartialEq, Eq)]
pub struct DiffTally {
    /// Event records evaluated under both policies.
    pub events: u64,
    /// Lines that are not event records, or that either policy fails to
    /// evaluate (reported on standard error, not counted in `events`).
    pub errors: u64,
    /// The transitions seen.
    pub groups: BTreeMap<Transition, Group>,
    /// The changes of what a decision does, per event.
    pub verdicts: BTreeMap<EffectChange, Group>,
}

impl Group {
    /// One more event, line `line`.
    fn add(&mut self, line: u64) {
        self.count += 1;
        if self.examples.len() < EXAMPLES {
            self.examples.push(line);
        }
    }

    /// Adds a later part's group (its lines come after this one's).
    fn absorb(&mut self, later: Group) {
        self.count += later.count;
        let room = EXAMPLES.saturating_sub(self.examples.len());
        self.examples.extend(later.examples.into_iter().take(room));
    }
}

impl DiffTally {
    /// One event `event`, line `line`, decided `old` and `new`.
    pub fn record(&mut self, line: u64, event: &str, old: Side<'_, '_>, new: Side<'_, '_>) {
        self.events += 1;
        let (old, old_severities) = old;
        let (new, new_severities) = new;
        let (was, is) = (old_severities.verdict(old), new_severities.verdict(new));
        // The same hook with an action of another type, or the same match
        // under an action type whose severity changed, is a verdict.
        let change = match Change::between(old, new) {
            Some(Change::Action) | None if was != is => Change::Verdict,
            Some(change) => change,
            None => return,
        };
        let id = |d: &Decision<'_>| d.terminal.as_ref().map(|m| m.hook.to_owned());
        self.groups
            .entry((change, id(old), id(new)))
            .or_default()
            .add(line);
        if was != is {
            self.verdicts
                .entry((event.to_owned(), was, is))
                .or_default()
                .add(line);
        }
    }

    /// Adds the tally of the next part of the log (later lines).
    pub fn merge(&mut self, later: DiffTally) {
        self.events += later.events;
        self.errors += later.errors;
        for (key, g) in later.groups {
            self.groups.entry(key).or_default().absorb(g);
        }
        for (key, g) in later.verdicts {
            self.verdicts.entry(key).or_default().absorb(g);
        }
    }

    /// The changes of what a decision does: by event (in byte order),
    /// then largest count first, then the old and the new verdict.
    pub fn ordered_verdicts(&self) -> Vec<(&EffectChange, &Group)> {
        let mut all: Vec<_> = self.verdicts.iter().collect();
        // The map is in (event, old, new) order; a stable sort keeps it
        // among equal events and counts.
        all.sort_by(|(a, ga), (b, gb)| a.0.cmp(&b.0).then(gb.count.cmp(&ga.count)));
        all
    }

    /// Events whose decision changed.
    pub fn changed(&self) -> u64 {
        self.groups.values().map(|g| g.count).sum()
    }

    /// The transitions, largest count first; equal counts in the order of
    /// kind (hook, verdict, action, collected), then old hook, then new hook, each
    /// `null` (no match) before any id and ids in byte order.
    pub fn ordered(&self) -> Vec<(&Transition, &Group)> {
        let mut all: Vec<_> = self.groups.iter().collect();
        // The map is already in (kind, from, to) order; a stable sort by
        // count keeps it among equal counts.
        all.sort_by_key(|(_, g)| std::cmp::Reverse(g.count));
        all
    }

    /// `{"events": N, "changed": M, "decisions": [{"event": E, "from":
    /// TYPE|null, "to": TYPE|null, "from_severity": S|null, "to_severity":
    /// S|null, "count": C, "examples": [LINE, ...]}, ...], "transitions":
    /// [{"kind": K, "from": ID|null, "to": ID|null, "count": C, "examples":
    /// [LINE, ...]}, ...]}`.
    pub fn to_json(&self) -> Value {
        let severity = |v: &DecisionEffect| v.action.as_ref().map(|_| v.severity);
        let decisions: Vec<Value> = self
            .ordered_verdicts()
            .into_iter()
            .map(|((event, from, to), g)| {
                serde_json::json!({
                    "event": event,
                    "from": from.action,
                    "to": to.action,
                    "from_severity": severity(from),
                    "to_severity": severity(to),
                    "count": g.count,
                    "examples": g.examples,
                })
            })
            .collect();
        let transitions: Vec<Value> = self
            .ordered()
            .into_iter()
            .map(|((kind, from, to), g)| {
                serde_json::json!({
                    "kind": kind.name(),
                    "from": from,
                    "to": to,
                    "count": g.count,
                    "examples": g.examples,
                })
            })
            .collect();
        serde_json::json!({
            "events": self.events,
            "changed": self.changed(),
            "decisions": decisions,
            "transitions": transitions,
        })
    }

    /// The human form: a header line; then, when a decision changed what
    /// it does, those changes by event; then one line per transition.
    pub fn to_text(&self) -> String {
        let changed = self.changed();
        let mut out = format!("{} events, {changed} changed\n", self.events);
        let verdicts: Vec<(String, &Group)> = self
            .ordered_verdicts()
            .into_iter()
            .map(|((event, from, to), g)| {
                // The severity is shown where the type alone does not say
                // what changed.
                let show = from.action == to.action;
                (
                    format!("{event}: {} -> {}", from.text(show), to.text(show)),
                    g,
                )
            })
            .collect();
        let name = |id: &Option<String>| id.clone().unwrap_or_else(|| "(no match)".to_owned());
        let transitions: Vec<(String, &Group)> = self
            .ordered()
            .into_iter()
            .map(|((kind, from, to), g)| {
                let what = match kind {
                    Change::Hook => format!("{} -> {}", name(from), name(to)),
                    Change::Verdict => format!("{}: action type or severity", name(from)),
                    Change::Action => format!("{}: action parameters", name(from)),
                    Change::Collected => format!("{}: collected actions", name(from)),
                };
                (what, g)
            })
            .collect();
        if !verdicts.is_empty() {
            out.push_str("\ndecisions changed, by event:\n");
            rows(&mut out, &verdicts);
            out.push_str("\nby deciding hook:\n");
        }
        rows(&mut out, &transitions);
        out
    }
}

/// Rows of `(what, group)`, counts and `what` aligned.
fn rows(out: &mut String, rows: &[(String, &Group)]) {
    let width = rows.iter().map(|(w, _)| w.len()).max().unwrap_or(0);
    let count_width = rows
        .iter()
        .map(|(_, g)| g.count.to_string().len())
        .max()
        .unwrap_or(1);
    for (what, g) in rows {
        let lines: Vec<String> = g.examples.iter().map(u64::to_string).collect();
        let more = if g.count > g.examples.len() as u64 {
            ", ..."
        } else {
            ""
        };
        let label = if lines.len() == 1 { "line" } else { "lines" };
        out.push_str(&format!(
            "  {:>count_width$}  {what:<width$}  {label} {}{more}\n",
            g.count,
            lines.join(", ")
        ));
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn t(kind: Change, from: Option<&str>, to: Option<&str>) -> Transition {
        (kind, from.map(str::to_owned), to.map(str::to_owned))
    }

    #[test]
    fn merging_keeps_the_first_examples_and_ties_keep_key_order() {
        let mut a = DiffTally::default();
        let mut b = DiffTally::default();
        let key = t(Change::Hook, Some("x"), None);
        a.groups.insert(
            key.clone(),
            Group {
                count: 4,
                examples: vec![1, 2, 3, 4],
            },
        );
        b.groups.insert(
            key.clone(),
            Group {
                count: 3,
                examples: vec![9, 10, 11],
            },
        );
        let tie = t(Change::Action, Some("a"), Some("a"));
        let first = t(Change::Hook, None, Some("z"));
        b.groups.insert(
            tie.clone(),
            Group {
                count: 2,
                examples: vec![5, 6],
            },
        );
        b.groups.insert(
            first.clone(),
            Group {
                count: 2,
                examples: vec![7, 8],
            },
        );
        a.merge(b);
        assert_eq!(a.groups.get(&key).unwrap().count, 7);
        assert_eq!(a.groups.get(&key).unwrap().examples, vec![1, 2, 3, 4, 9]);
        let order: Vec<&Transition> = a.ordered().into_iter().map(|(k, _)| k).collect();
        assert_eq!(order, vec![&key, &first, &tie]);
        assert_eq!(a.changed(), 11);
    }
}

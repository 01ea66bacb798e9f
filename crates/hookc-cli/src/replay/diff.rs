//! `hookc diff OLD NEW --events LOG`: the events of a log two policies
//! decide differently, grouped by transition. A transition is a [`Change`]
//! kind with the deciding hook under each policy (`None`: no hook
//! decided); each group keeps its count and the line numbers of its first
//! few events. Tallied per chunk on the workers and merged in input order,
//! so the examples are the first ones of the log.

use hookc_runtime::Decision;
use serde_json::Value;
use std::collections::BTreeMap;

/// Line numbers kept per transition.
pub const EXAMPLES: usize = 5;

/// How two decisions of one event differ. The order is the output's tie
/// order.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord)]
pub enum Change {
    /// Another hook decides (or a hook where none did, or none where one
    /// did): `"hook"`.
    Hook,
    /// The same hook decides with other action parameters (templates
    /// filled from the context, or the action itself changed): `"action"`.
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
}

impl DiffTally {
    /// One event, line `line`, decided `old` and `new`.
    pub fn record(&mut self, line: u64, old: &Decision<'_>, new: &Decision<'_>) {
        self.events += 1;
        let Some(change) = Change::between(old, new) else {
            return;
        };
        let id = |d: &Decision<'_>| d.terminal.as_ref().map(|m| m.hook.to_owned());
        let group = self.groups.entry((change, id(old), id(new))).or_default();
        group.count += 1;
        if group.examples.len() < EXAMPLES {
            group.examples.push(line);
        }
    }

    /// Adds the tally of the next part of the log (later lines).
    pub fn merge(&mut self, later: DiffTally) {
        self.events += later.events;
        self.errors += later.errors;
        for (key, g) in later.groups {
            let group = self.groups.entry(key).or_default();
            group.count += g.count;
            let room = EXAMPLES.saturating_sub(group.examples.len());
            group.examples.extend(g.examples.into_iter().take(room));
        }
    }

    /// Events whose decision changed.
    pub fn changed(&self) -> u64 {
        self.groups.values().map(|g| g.count).sum()
    }

    /// The transitions, largest count first; equal counts in the order of
    /// kind (hook, action, collected), then old hook, then new hook, each
    /// `null` (no match) before any id and ids in byte order.
    pub fn ordered(&self) -> Vec<(&Transition, &Group)> {
        let mut all: Vec<_> = self.groups.iter().collect();
        // The map is already in (kind, from, to) order; a stable sort by
        // count keeps it among equal counts.
        all.sort_by_key(|(_, g)| std::cmp::Reverse(g.count));
        all
    }

    /// `{"events": N, "changed": M, "transitions": [{"kind": K, "from":
    /// ID|null, "to": ID|null, "count": C, "examples": [LINE, ...]}, ...]}`.
    pub fn to_json(&self) -> Value {
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
            "transitions": transitions,
        })
    }

    /// The human form: a header line, then one line per transition.
    pub fn to_text(&self) -> String {
        let changed = self.changed();
        let mut out = format!("{} events, {changed} changed\n", self.events);
        let name = |id: &Option<String>| id.clone().unwrap_or_else(|| "(no match)".to_owned());
        let rows: Vec<(String, &Group)> = self
            .ordered()
            .into_iter()
            .map(|((kind, from, to), g)| {
                let what = match kind {
                    Change::Hook => format!("{} -> {}", name(from), name(to)),
                    Change::Action => format!("{}: action parameters", name(from)),
                    Change::Collected => format!("{}: collected actions", name(from)),
                };
                (what, g)
            })
            .collect();
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
        out
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

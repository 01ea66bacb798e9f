//! `eval --events LOG --summary`: what a policy decided over a whole log,
//! counted per event, per deciding hook and per action type, with the
//! events no hook decided and the lines that could not be evaluated.
//! Counted per chunk on the workers and merged in order.

use hookc_runtime::Decision;
use serde_json::{Map, Value};
use std::collections::HashMap;

/// Counts by name.
#[derive(Debug, Default, Clone, PartialEq, Eq)]
pub struct Counts(HashMap<String, u64>);

impl Counts {
    /// One more of `name` (allocating only for a name not seen before).
    pub fn add(&mut self, name: &str) {
        match self.0.get_mut(name) {
            Some(n) => *n += 1,
            None => {
                self.0.insert(name.to_owned(), 1);
            }
        }
    }

    fn merge(&mut self, other: Counts) {
        for (name, n) in other.0 {
            *self.0.entry(name).or_default() += n;
        }
    }

    /// The counts, largest first; equal counts by name.
    pub fn sorted(&self) -> Vec<(&str, u64)> {
        let mut all: Vec<(&str, u64)> = self.0.iter().map(|(k, v)| (k.as_str(), *v)).collect();
        all.sort_by(|a, b| b.1.cmp(&a.1).then(a.0.cmp(b.0)));
        all
    }

    fn to_json(&self) -> Value {
        let map: Map<String, Value> = self
            .sorted()
            .into_iter()
            .map(|(k, v)| (k.to_owned(), Value::from(v)))
            .collect();
        Value::Object(map)
    }
}

/// What a policy decided over a log.
#[derive(Debug, Default, Clone, PartialEq, Eq)]
pub struct Summary {
    /// Event records evaluated (malformed lines and failed evaluations
    /// not included).
    pub events: u64,
    /// Lines that are not event records, or whose evaluation failed.
    pub errors: u64,
    /// Records no terminal hook decided.
    pub no_match: u64,
    /// Records per event name.
    pub by_event: Counts,
    /// Records per deciding (terminal) hook.
    pub by_hook: Counts,
    /// Records per action type of the deciding hook.
    pub by_action: Counts,
    /// Matches of collected actions per hook (`docs/semantics.md#action-effects`).
    pub collected: Counts,
}

impl Summary {
    /// One evaluated record.
    pub fn record(&mut self, event: &str, decision: &Decision<'_>) {
        self.events += 1;
        self.by_event.add(event);
        match &decision.terminal {
            Some(m) => {
                self.by_hook.add(m.hook);
                self.by_action.add(m.action_type());
            }
            None => self.no_match += 1,
        }
        for m in &decision.collected {
            self.collected.add(m.hook);
        }
    }

    /// Adds another part of the log's counts.
    pub fn merge(&mut self, other: Summary) {
        self.events += other.events;
        self.errors += other.errors;
        self.no_match += other.no_match;
        self.by_event.merge(other.by_event);
        self.by_hook.merge(other.by_hook);
        self.by_action.merge(other.by_action);
        self.collected.merge(other.collected);
    }

    /// `{"events": N, "errors": E, "no_match": K, "by_event": {NAME: N,
    /// ...}, "by_hook": {...}, "by_action": {...}, "collected": {...}}`,
    /// each object largest count first.
    pub fn to_json(&self) -> Value {
        serde_json::json!({
            "events": self.events,
            "errors": self.errors,
            "no_match": self.no_match,
            "by_event": self.by_event.to_json(),
            "by_hook": self.by_hook.to_json(),
            "by_action": self.by_action.to_json(),
            "collected": self.collected.to_json(),
        })
    }

    /// The human form: a header line, then a table per grouping, largest
    /// count first.
    pub fn to_text(&self) -> String {
        let mut out = format!(
            "{} events, {} decided, {} no match, {} errors\n",
            self.events,
            self.events.saturating_sub(self.no_match),
            self.no_match,
            self.errors
        );
        let no_match = [("(no match)", self.no_match)];
        let hooks: Vec<(&str, u64)> = self
            .by_hook
            .sorted()
            .into_iter()
            .chain(no_match.into_iter().filter(|(_, n)| *n > 0))
            .collect();
        let groups = [
            ("by event", self.by_event.sorted()),
            ("by deciding hook", hooks),
            ("by action type", self.by_action.sorted()),
            ("collected, by hook", self.collected.sorted()),
        ];
        for (title, rows) in groups {
            if rows.is_empty() {
                continue;
            }
            out.push_str(&format!("\n{title}:\n"));
            let width = rows
                .iter()
                .map(|(_, n)| n.to_string().len())
                .max()
                .unwrap_or(1);
            for (name, n) in rows {
                out.push_str(&format!("  {n:>width$}  {name}\n"));
            }
        }
        out
    }
}

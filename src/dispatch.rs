//! Equality dispatch: hooks whose condition requires `path == 'constant'`
//! are found through a hash table instead of being tried one by one.
//!
//! A hook *requires* `P == c` when its condition is `P == c` alone or an `&&`
//! chain whose leftmost operand is `P == c`: such a condition is `true` only
//! if `P == c` is `true` (CEL's `&&` is `false` when either side is `false`,
//! and an error or a non-bool otherwise — never `true`). So, for a run of
//! consecutive hooks (in evaluation order) that all require `P == <string>`
//! for the same path `P`, only the hooks whose string equals the context's
//! value at `P` can match; the others are skipped without running them. The
//! candidates are still run in full, in order, so the result is exactly the
//! one-by-one result.
//!
//! The plan is derived at load time from the verified bytecode (the artifact
//! format does not change): it is an acceleration structure like
//! [`crate::json_text::PathTrie`], built once per [`crate::runtime::Policy`].

use crate::bytecode::{CmpOp, Op, Program};
use crate::fnv::FnvMap;

/// Runs shorter than this are tried one by one: a hash lookup costs about as
/// much as a few fused comparisons.
pub const MIN_RUN: usize = 2;

/// One step of an event's plan.
#[derive(Debug, Clone, PartialEq)]
pub enum Step {
    /// Try this hook.
    Hook(u32),
    /// A run of hooks that each require `paths[path] == <string>`: look the
    /// context's value up in `tables[table]`.
    Dispatch {
        /// The path every hook of the run compares.
        path: u32,
        /// Index into [`Plans::tables`].
        table: u32,
    },
}

/// The hooks of a run, by the string their condition requires.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct Table {
    by_value: FnvMap<String, Vec<u32>>,
}

impl Table {
    /// The hooks (in evaluation order) that can match when the path's value
    /// is `v` (`None`: the path does not resolve): none unless `v` is a
    /// string.
    pub fn candidates(&self, v: Option<&serde_json::Value>) -> &[u32] {
        match v {
            Some(serde_json::Value::String(s)) => {
                self.by_value.get(s.as_str()).map_or(&[], Vec::as_slice)
            }
            _ => &[],
        }
    }
}

/// The dispatch plans of a program: one per named event, plus the wildcard's.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct Plans {
    /// Parallel to `Program::events.named`.
    named: Vec<Vec<Step>>,
    /// Event name to its index in `named`.
    by_name: EventNames,
    wildcard: Vec<Step>,
    tables: Vec<Table>,
}

/// Most named events looked up by a linear scan instead of hashing.
// PERF: a policy names a handful of events; comparing the name with each
// (lengths first) costs less than hashing it (callgrind: the FNV hash and
// probe were ~55 instructions of a ~900-instruction evaluation).
const SCAN_EVENTS: usize = 8;

/// Event names to their index in [`Plans::named`].
#[derive(Debug, Clone, PartialEq)]
enum EventNames {
    /// At most [`SCAN_EVENTS`]: scanned.
    Few(Vec<(Box<str>, usize)>),
    /// More: hashed.
    Many(FnvMap<String, usize>),
}

impl Default for EventNames {
    fn default() -> EventNames {
        EventNames::Few(Vec::new())
    }
}

impl EventNames {
    fn new(names: Vec<(String, usize)>) -> EventNames {
        if names.len() <= SCAN_EVENTS {
            EventNames::Few(names.into_iter().map(|(n, i)| (n.into(), i)).collect())
        } else {
            EventNames::Many(names.into_iter().collect())
        }
    }

    fn get(&self, event: &str) -> Option<usize> {
        match self {
            EventNames::Few(names) => names
                .iter()
                .find(|(name, _)| name.len() == event.len() && **name == *event)
                .map(|&(_, i)| i),
            EventNames::Many(map) => map.get(event).copied(),
        }
    }
}

impl Plans {
    /// Plans for every event of a (verified) program.
    pub fn new(program: &Program) -> Plans {
        let mut plans = Plans::default();
        let named: Vec<Vec<Step>> = program
            .events
            .named
            .iter()
            .map(|(_, hooks)| plans.plan(program, hooks))
            .collect();
        plans.named = named;
        plans.by_name = EventNames::new(
            program
                .events
                .named
                .iter()
                .enumerate()
                .map(|(i, (name, _))| (program.string(*name).to_owned(), i))
                .collect(),
        );
        plans.wildcard = plans.plan(program, &program.events.wildcard);
        plans
    }

    /// The plan of `event` (the hooks of [`Program::hooks_for`]).
    pub fn for_event(&self, event: &str) -> &[Step] {
        match self.by_name.get(event) {
            Some(i) => self.named.get(i).map_or(&[], Vec::as_slice),
            None => &self.wildcard,
        }
    }

    /// A dispatch table.
    pub fn table(&self, i: u32) -> Option<&Table> {
        self.tables.get(i as usize)
    }

    fn plan(&mut self, program: &Program, hooks: &[u32]) -> Vec<Step> {
        let keys: Vec<Option<(u32, &str)>> =
            hooks.iter().map(|&h| required_eq(program, h)).collect();
        let mut steps = Vec::new();
        let mut i = 0;
        while i < hooks.len() {
            let run_path = keys.get(i).copied().flatten().map(|(p, _)| p);
            let run_len = match run_path {
                Some(p) => keys.get(i..).map_or(0, |rest| {
                    rest.iter()
                        .take_while(|k| matches!(k, Some((q, _)) if *q == p))
                        .count()
                }),
                None => 0,
            };
            match run_path {
                Some(path) if run_len >= MIN_RUN => {
                    let mut table = Table::default();
                    for (&h, key) in hooks.iter().zip(&keys).skip(i).take(run_len) {
                        if let Some((_, value)) = key {
                            table
                                .by_value
                                .entry((*value).to_owned())
                                .or_default()
                                .push(h);
                        }
                    }
                    let index = u32::try_from(self.tables.len()).unwrap_or(u32::MAX);
                    self.tables.push(table);
                    steps.push(Step::Dispatch { path, table: index });
                    i += run_len;
                }
                _ => {
                    if let Some(&h) = hooks.get(i) {
                        steps.push(Step::Hook(h));
                    }
                    i += 1;
                }
            }
        }
        steps
    }
}

/// `Some((path, s))` when hook `h`'s condition requires `paths[path] == s`
/// for a string constant `s`: its code starts with that fused comparison and
/// every `&&` above it continues the chain up to `Return` (see the module doc).
fn required_eq(program: &Program, h: u32) -> Option<(u32, &str)> {
    let entry = program.hooks.get(h as usize)?;
    let (start, end) = (entry.code.0 as usize, entry.code.1 as usize);
    let code = program.code.get(start..end)?;
    let Some(Op::PathCmpConst {
        path,
        konst,
        op: CmpOp::Eq,
    }) = code.first()
    else {
        return None;
    };
    let value = program.consts.get(*konst as usize)?.as_str()?;
    // Follow the chain: after the first operand, each `AndShort` jumps past
    // its `AndJoin`, where the next link (or the end) must be.
    let mut ip = 1usize;
    loop {
        match code.get(ip)? {
            Op::Return => return Some((*path, value)),
            Op::AndShort(target) => ip = (*target as usize).checked_sub(start)?,
            _ => return None,
        }
    }
}

#[cfg(test)]
#[allow(
    clippy::unwrap_used,
    clippy::expect_used,
    clippy::panic,
    clippy::indexing_slicing
)]
mod tests {
    use super::*;
    use crate::compile::{compile, Input};
    use serde_json::json;

    fn program(src: &str) -> Program {
        let c = compile(&[Input::new("t.yaml", src)]);
        assert!(!c.diagnostics.has_errors(), "{:?}", c.diagnostics);
        crate::lower::lower(c.policy.as_ref().unwrap())
    }

    #[test]
    fn events_are_found_by_scan_or_hash_alike() {
        // Event names of equal length and shared prefixes; a `*` hook.
        for n in [1, SCAN_EVENTS, SCAN_EVENTS + 1, 40] {
            let mut src =
                String::from("hooks:\n  - {id: any, event: '*', action: {type: abort}}\n");
            for i in 0..n {
                src.push_str(&format!(
                    "  - {{id: h{i}, event: ev{i:02}, action: {{type: abort}}}}\n"
                ));
            }
            let p = program(&src);
            let plans = Plans::new(&p);
            assert_eq!(
                matches!(plans.by_name, EventNames::Few(_)),
                n <= SCAN_EVENTS
            );
            for i in 0..n {
                let event = format!("ev{i:02}");
                let hooks: Vec<Step> = p.hooks_for(&event).iter().map(|&h| Step::Hook(h)).collect();
                assert_eq!(plans.for_event(&event), hooks.as_slice(), "{event}");
                assert_eq!(hooks.len(), 2);
            }
            for other in ["ev", "ev0", "ev999", "", "EV00"] {
                assert_eq!(plans.for_event(other), [Step::Hook(0)], "{other}");
            }
        }
    }

    #[test]
    fn only_conditions_that_require_the_equality_are_keys() {
        let p = program(
            r#"
hooks:
  - {id: alone, event: e, when: "c == 'a'", action: {type: abort}}
  - {id: chain, event: e, when: "c == 'b' && n > 1 && s.startsWith('x')", action: {type: abort}}
  - {id: long, event: e, condition: {all: [{path: c, op: eq, value: d}, {path: n, op: gt, value: 2}]}, action: {type: abort}}
  - {id: or, event: e, when: "c == 'a' || n > 1", action: {type: abort}}
  - {id: nested, event: e, when: "(c == 'a' && n > 1) || n < 0", action: {type: abort}}
  - {id: int, event: e, when: "n == 1 && c == 'a'", action: {type: abort}}
  - {id: ne, event: e, when: "c != 'a'", action: {type: abort}}
"#,
        );
        let keys: Vec<_> = (0..7).map(|h| required_eq(&p, h).map(|(_, v)| v)).collect();
        assert_eq!(
            keys,
            [Some("a"), Some("b"), Some("d"), None, None, None, None]
        );
    }

    #[test]
    fn runs_become_tables_and_keep_order() {
        let mut src = String::from("hooks:\n");
        for (i, v) in ["x", "y", "x", "z", "x"].iter().enumerate() {
            src.push_str(&format!(
                "  - {{id: h{i}, event: e, priority: {}, when: \"c == '{v}' && n > {i}\", action: {{type: abort}}}}\n",
                100 - i
            ));
        }
        src.push_str(
            "  - {id: other, event: e, priority: 0, when: \"n > 0\", action: {type: abort}}\n",
        );
        let p = program(&src);
        let plans = Plans::new(&p);
        let steps = plans.for_event("e");
        assert_eq!(steps.len(), 2);
        let Step::Dispatch { table, .. } = steps[0] else {
            panic!("{steps:?}")
        };
        let t = plans.table(table).unwrap();
        assert_eq!(t.candidates(Some(&json!("x"))), [0, 2, 4]);
        assert_eq!(t.candidates(Some(&json!("w"))), [] as [u32; 0]);
        assert_eq!(t.candidates(Some(&json!(1))), [] as [u32; 0]);
        assert_eq!(t.candidates(None), [] as [u32; 0]);
        assert_eq!(steps[1], Step::Hook(5));
    }
}

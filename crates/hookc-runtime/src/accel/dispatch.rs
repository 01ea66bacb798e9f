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
//! format does not change), by the same code-shape decoder the lowering
//! writes through ([`crate::bytecode::shape`]), so the two cannot drift
//! apart: it is an acceleration structure like
//! [`crate::context::json_text::PathTrie`], built once per [`crate::eval::Policy`].
//!
//! A hook also requires each operand of the `&&` chain of a `b` in its
//! condition's `a ? b : false` (a condition tree's `all` after an item that
//! can be an error, [`HookShape::sequenced_conjuncts`]): the condition is
//! `true` only if `b` is. Where such an operand is `false` the condition is
//! not `false` but an error when `a` is one; so the plans key hooks by these
//! operands only where that cannot show, which [`errors_are_no_matches`]
//! decides once per program at load: in a program without the decision
//! model, every answer the plans serve (`first`, `decide`, `decision`,
//! `all`, `evaluate`; `eval/mod.rs`, `each_match`) takes a hook whose
//! condition is anything but `true` as a non-match and reports nothing of
//! it. (A program with the decision model is walked hook by hook,
//! `eval/model.rs`, and `explain` always is; neither reads the plans.)
//!
//! An event whose hooks the general hook index ([`super::index`]) serves
//! for a lower estimated cost (see [`cost`]) gets that index instead: its
//! plan is one [`PlanStep::Index`].

use crate::accel::fnv::FnvMap;
use crate::accel::index::{HookIndex, RegexLiteral};
use crate::accel::str_map::StrMap;
use crate::bytecode::shape::{Conjunct, HookShape, Leaf};
use crate::bytecode::{CmpOp, PathIdx, Program, RegexIdx};
use crate::value::PolicyRegex;
use crate::verify::VerifiedProgram;
use std::sync::OnceLock;

/// Runs shorter than this are tried one by one: a hash lookup costs about as
/// much as a few fused comparisons.
pub const MIN_RUN: usize = 2;

/// One step of an event's plan (named apart from the path step, [`crate::bytecode::Step`]).
#[derive(Debug, Clone, PartialEq)]
pub enum PlanStep {
    /// Try this hook.
    Hook(u32),
    /// A run of hooks that each require `paths[path] == <string>`: look the
    /// context's value up in `tables[table]`.
    Dispatch {
        /// The path every hook of the run compares.
        path: PathIdx,
        /// Its table: [`Plans::table`]'s index.
        table: u32,
    },
    /// Every hook of the event, through its hook index
    /// (`accel::index`): [`Plans::index`]'s index. When this step
    /// is there, it is the plan's only step.
    Index(u32),
}
/// Estimated costs of a plan, in tries of a hook: what choosing between a
/// plan of runs and the hook index weighs.
// PERF: a hash lookup of the context's value costs about as much as two
// fused comparisons; merging the index's candidate lists a few more. So a
// small event (the seed set's) keeps its plan of runs.
mod cost {
    /// One hook tried.
    pub const HOOK: usize = 1;
    /// One lookup of a path's value in a table.
    pub const LOOKUP: usize = 2;
    /// The index's fixed cost: its candidate lists and their merge.
    pub const INDEX: usize = 3;
}

/// The hooks of a run, by the string their condition requires.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct Table {
    by_value: StrMap<Vec<u32>>,
}

impl Table {
    /// Every hook of the run, by value (for tests and tools).
    pub fn hooks(&self) -> impl Iterator<Item = u32> + '_ {
        self.by_value.values().flatten().copied()
    }

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
    named: Vec<Vec<PlanStep>>,
    /// Event name to its index in `named`.
    by_name: StrMap<usize>,
    wildcard: Vec<PlanStep>,
    tables: Vec<Table>,
    indexes: Vec<HookIndex>,
    /// Whether hooks are keyed by their [`HookShape::sequenced_conjuncts`]
    /// too: [`errors_are_no_matches`] of the program.
    sequenced: bool,
}

impl Plans {
    /// Plans for every event of a (verified) program.
    pub fn new(program: &Program) -> Plans {
        Plans::with_shapes(program, &HookShape::of_hooks(program))
    }

    /// [`Plans::new`] given the shapes of the program's hooks
    /// ([`HookShape::of_hooks`]), decoded once by the caller. The
    /// program's regexes are parsed here for their required literals (a
    /// loaded policy parses each on first use instead:
    /// [`Plans::one_event`]).
    pub fn with_shapes(program: &Program, shapes: &[HookShape]) -> Plans {
        let regexes: Vec<Option<PolicyRegex>> = program
            .regexes
            .iter()
            .map(|p| PolicyRegex::parse(p).ok())
            .collect();
        let literal = |i: RegexIdx| regexes.get(i.as_usize())?.as_ref()?.required_literal();
        let mut plans = Plans {
            sequenced: errors_are_no_matches(program),
            ..Plans::default()
        };
        let named: Vec<Vec<PlanStep>> = program
            .events
            .named
            .iter()
            .map(|(_, hooks)| plans.plan(program, shapes, hooks, &literal))
            .collect();
        plans.named = named;
        plans.by_name = events_by_name(program);
        plans.wildcard = plans.plan(program, shapes, &program.events.wildcard, &literal);
        plans
    }

    /// The plan of the one event whose hooks are `hooks` (its
    /// [`Plans::steps`]; its tables and indexes numbered from 0), given the
    /// shapes of the program's hooks: what [`EventPlans`] builds on an
    /// event's first use. `sequenced` is [`errors_are_no_matches`] of the
    /// program.
    pub fn one_event(
        program: &VerifiedProgram,
        shapes: &[HookShape],
        hooks: &[u32],
        sequenced: bool,
    ) -> Plans {
        let mut plans = Plans {
            sequenced,
            ..Plans::default()
        };
        let literal = |i: RegexIdx| program.regex(i)?.required_literal();
        plans.wildcard = plans.plan(program.program(), shapes, hooks, &literal);
        plans
    }

    /// The steps of a plan built by [`Plans::one_event`] (the wildcard's
    /// plan of any other).
    #[inline]
    pub fn steps(&self) -> &[PlanStep] {
        &self.wildcard
    }

    /// Whether event names are found by a linear scan (at most
    /// [`SCAN_KEYS`](crate::accel::str_map::SCAN_KEYS) names) rather than
    /// through a hash map.
    pub fn scans_event_names(&self) -> bool {
        self.by_name.is_scanned()
    }

    /// The plan of `event` (the hooks of [`Program::hooks_for`]).
    pub fn for_event(&self, event: &str) -> &[PlanStep] {
        match self.by_name.get(event) {
            Some(&i) => self.named.get(i).map_or(&[], Vec::as_slice),
            None => &self.wildcard,
        }
    }

    /// Whether hooks are keyed by the operands their condition requires
    /// after an item that can be an error
    /// ([`HookShape::sequenced_conjuncts`]): [`errors_are_no_matches`] of
    /// the program, decided at load.
    pub fn keys_sequenced(&self) -> bool {
        self.sequenced
    }

    /// Every dispatch table.
    pub fn tables(&self) -> &[Table] {
        &self.tables
    }

    /// A dispatch table.
    pub fn table(&self, i: u32) -> Option<&Table> {
        self.tables.get(i as usize)
    }

    /// Every hook index.
    pub fn indexes(&self) -> &[HookIndex] {
        &self.indexes
    }

    /// A hook index.
    #[inline]
    pub fn index(&self, i: u32) -> Option<&HookIndex> {
        self.indexes.get(i as usize)
    }

    /// The plan of one event's hooks: its runs ([`Plans::runs`]), or its
    /// hook index when that costs less (see [`cost`]).
    fn plan(
        &mut self,
        program: &Program,
        shapes: &[HookShape],
        hooks: &[u32],
        literal: &RegexLiteral<'_>,
    ) -> Vec<PlanStep> {
        let keys: Vec<Option<(PathIdx, &str)>> = hooks
            .iter()
            .map(|&h| {
                shapes
                    .get(h as usize)
                    .and_then(|shape| required_eq_of(program, shape, self.sequenced))
            })
            .collect();
        let runs = runs(&keys);
        let runs_cost: usize = runs
            .iter()
            .map(|run| match run.path {
                Some(_) => cost::LOOKUP,
                None => cost::HOOK,
            })
            .sum();
        // PERF: the index is only built for an event where a run of
        // dispatch could not already serve every hook at the lowest cost.
        let index = (runs_cost > cost::INDEX)
            .then(|| HookIndex::new(program, shapes, hooks, self.sequenced, literal))
            .flatten();
        if let Some(index) = index {
            let index_cost =
                cost::INDEX + index.always() * cost::HOOK + index.paths().count() * cost::LOOKUP;
            if let (true, Ok(at)) = (index_cost < runs_cost, u32::try_from(self.indexes.len())) {
                self.indexes.push(index);
                return vec![PlanStep::Index(at)];
            }
        }
        let mut steps = Vec::with_capacity(runs.len());
        for run in runs {
            let (Some(path), Some(members)) = (run.path, hooks.get(run.start..run.start + run.len))
            else {
                steps.extend(hooks.get(run.start).map(|&h| PlanStep::Hook(h)));
                continue;
            };
            let mut by_value: FnvMap<String, Vec<u32>> = FnvMap::default();
            for (&h, key) in members.iter().zip(keys.iter().skip(run.start)) {
                if let Some((_, value)) = key {
                    by_value.entry((*value).to_owned()).or_default().push(h);
                }
            }
            let table = u32::try_from(self.tables.len()).unwrap_or(u32::MAX);
            self.tables.push(Table {
                by_value: StrMap::new(by_value),
            });
            steps.push(PlanStep::Dispatch { path, table });
        }
        steps
    }
}

/// The plans of a [`crate::eval::Policy`], each event's built on the first
/// evaluation of that event ([`Plans::one_event`]), so that a load pays
/// only for finding event names, and a process that evaluates one event
/// (`hookc hook`) builds one plan. The same plans as [`Plans::new`] builds
/// for every event at once (`tests/suite/dispatch_plans.rs`).
///
/// Built once per event and then only read: a [`OnceLock`] per event, so
/// the policy stays `Sync` and an evaluation after the first of its event
/// reads its plan with one atomic load, without a lock. (The first
/// evaluation of an event allocates the plan: the no-allocation guarantee
/// of a no-match evaluation holds from the second on, as it does for a
/// regex's first use.)
#[derive(Debug, Default)]
pub struct EventPlans {
    /// Event name to its index in `named` (and in `Program::events.named`).
    by_name: StrMap<usize>,
    /// Parallel to `Program::events.named`.
    named: Vec<OnceLock<Plans>>,
    /// The plan of an event no hook names.
    wildcard: OnceLock<Plans>,
    /// [`errors_are_no_matches`] of the program.
    sequenced: bool,
}

impl EventPlans {
    /// The event names of a (verified) program; no plan is built yet.
    pub fn new(program: &Program) -> EventPlans {
        EventPlans {
            by_name: events_by_name(program),
            named: program
                .events
                .named
                .iter()
                .map(|_| OnceLock::new())
                .collect(),
            wildcard: OnceLock::new(),
            sequenced: errors_are_no_matches(program),
        }
    }

    /// The plan of `event` (the hooks of [`Program::hooks_for`]), built on
    /// its first use from `program`, which must be the program these plans
    /// were made for, and `shapes`, its hooks' shapes
    /// ([`HookShape::of_hooks`]).
    #[inline]
    pub fn for_event(
        &self,
        program: &VerifiedProgram,
        shapes: &[HookShape],
        event: &str,
    ) -> &Plans {
        let events = &program.program().events;
        let named = self
            .by_name
            .get(event)
            .and_then(|&i| Some((self.named.get(i)?, events.named.get(i)?)));
        match named {
            Some((cell, (_, hooks))) => {
                cell.get_or_init(|| Plans::one_event(program, shapes, hooks, self.sequenced))
            }
            None => self.wildcard.get_or_init(|| {
                Plans::one_event(program, shapes, &events.wildcard, self.sequenced)
            }),
        }
    }

    /// How many events' plans have been built (for tests).
    pub fn built(&self) -> usize {
        self.named
            .iter()
            .filter(|cell| cell.get().is_some())
            .count()
            + usize::from(self.wildcard.get().is_some())
    }
}

/// A piece of an event's plan by runs: one hook tried alone (`path` is
/// `None`, `len` 1), or a run of at least [`MIN_RUN`] consecutive hooks
/// that each require an equality with a string on `path`.
#[derive(Debug, Clone, Copy)]
struct DispatchRun {
    path: Option<PathIdx>,
    start: usize,
    len: usize,
}

/// The runs of equality dispatch over an event's hooks, given each hook's
/// required equality ([`required_eq_of`]).
/// Each event name hooks name, to its position in the program's event
/// table.
fn events_by_name(program: &Program) -> StrMap<usize> {
    StrMap::new(
        program
            .events
            .named
            .iter()
            .enumerate()
            .map(|(i, (name, _))| (program.string(*name).to_owned(), i)),
    )
}

fn runs(keys: &[Option<(PathIdx, &str)>]) -> Vec<DispatchRun> {
    let mut out = Vec::new();
    let mut i = 0;
    while i < keys.len() {
        let run_path = keys.get(i).copied().flatten().map(|(p, _)| p);
        let run_len = match run_path {
            Some(p) => keys.get(i..).map_or(0, |rest| {
                rest.iter()
                    .take_while(|k| matches!(k, Some((q, _)) if *q == p))
                    .count()
            }),
            None => 0,
        };
        if run_len >= MIN_RUN {
            out.push(DispatchRun {
                path: run_path,
                start: i,
                len: run_len,
            });
            i += run_len;
        } else {
            out.push(DispatchRun {
                path: None,
                start: i,
                len: 1,
            });
            i += 1;
        }
    }
    out
}

/// Whether an error in a hook's condition is indistinguishable from
/// `false` in every answer the plans serve, so that a hook may be skipped
/// by an operand its condition requires only for being `true`
/// ([`HookShape::sequenced_conjuncts`]). True of a program without the
/// decision model (`docs/src/semantics.md#hook-errors`: `on_error: skip`,
/// first match, no transforms, awaits or severities), whose answers count
/// a condition that is an error or a non-bool as a non-match and report
/// nothing of it; false of one with it, where `on_error: fail` or an
/// `on_error` action would answer such a condition (its walk does not read
/// the plans today; this keeps them exact if it ever does).
pub fn errors_are_no_matches(program: &Program) -> bool {
    !program.uses_model()
}

/// `Some((path, s))` when hook `h`'s condition requires `paths[path] == s`
/// for a string constant `s`: that comparison is the leaf the code-shape
/// decoder finds required ([`HookShape::required`]; see the module doc),
/// or, in a program whose errors are no-matches ([`errors_are_no_matches`]),
/// the first such comparison of its [`HookShape::sequenced_conjuncts`].
pub fn required_eq(program: &Program, h: u32) -> Option<(PathIdx, &str)> {
    let entry = program.hooks.get(h as usize)?;
    let code = program
        .code
        .get(entry.code.0 as usize..entry.code.1 as usize)?;
    let shape = HookShape::decode(code, entry.code.0);
    required_eq_of(program, &shape, errors_are_no_matches(program))
}

/// [`required_eq`] of a hook's decoded shape, keyed by its sequenced
/// conjuncts too when `sequenced`.
fn required_eq_of<'p>(
    program: &'p Program,
    shape: &HookShape,
    sequenced: bool,
) -> Option<(PathIdx, &'p str)> {
    let string_eq = |leaf: Leaf| match leaf {
        Leaf::Cmp {
            path,
            op: CmpOp::Eq,
            konst,
        } => Some((path, program.konst(konst)?.as_str()?)),
        Leaf::Cmp { .. } | Leaf::InSet { .. } | Leaf::Matches { .. } | Leaf::Has { .. } => None,
    };
    let later = || {
        let conjuncts = if sequenced {
            shape.sequenced_conjuncts.as_slice()
        } else {
            &[]
        };
        conjuncts.iter().find_map(|c| match *c {
            Conjunct::Leaf(leaf) => string_eq(leaf),
            Conjunct::In { .. } | Conjunct::StartsWith { .. } | Conjunct::Contains { .. } => None,
        })
    };
    shape.required.and_then(string_eq).or_else(later)
}

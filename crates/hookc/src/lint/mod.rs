//! Lints: static analysis of a checked hook set (`docs/src/semantics.md#static-checking`), reported as
//! warnings with their own codes.
//!
//! - **W0004** a hook that can never match because earlier hooks with a
//!   *terminal* action for the same event always match whenever it would
//!   (shadowed). A collected match lets evaluation go on, so a collected
//!   hook covers nothing (and guards no template, for W0007);
//! - **W0005** a condition that is always false (a contradiction) or always
//!   true;
//! - **W0006** an event that no other hook, no known event and no schema
//!   names (a likely typo), with did-you-mean; not for a policy that
//!   declares its events (`events:`), where an undeclared event is an error;
//! - **W0007** a template reading a path the condition does not guarantee to
//!   exist;
//! - **W0008** a condition repeated from an earlier hook on the same event
//!   (the later hook never matches there);
//! - **W0011** a `!=` or `!` in a `when` that reads a path which may be
//!   absent, where it is an error, not `true` (`absent`, a walk of its own);
//! - **W0012** two transforms of one event patching the same context
//!   member, where the later one in hook order wins (`transforms`);
//! - **W0014** a constant operand of `&&` or `||` (`x && false`), which
//!   replaces W0005 on a hook where it decides the condition
//!   (`constant_operand`).
//!
//! Conditions are decided in a small abstract domain (`domain`): per-path
//! sets of states (missing, `null`, bools, number intervals, strings by
//! exact value and prefix, lists, objects; `endsWith`/`contains` tests as
//! atoms that know how they relate), combined into unions of
//! conjunctions (`approx`) that over- and under-approximate where a
//! condition is true, following CEL's error rules. "B is shadowed" is
//! reported only when the over-approximation of B's true-set lies inside the
//! union of the under-approximations of the earlier hooks' true-sets: a
//! condition part the domain does not know can only make that harder to
//! prove. A "maybe" is never reported.
//!
//! The analysis is bounded: past [`MAX_WORK`] candidate checks per
//! compilation it stops proving shadowing, and a hook one of whose cubes
//! has more than [`MAX_CANDIDATES`] candidate cubes among the
//! earlier hooks' is not proved shadowed (large policies then get fewer
//! W0004s, never wrong ones; the work per hook is bounded, so it grows
//! linearly with the policy). Likewise W0007 is not checked for a hook with
//! more than [`MAX_GUARDS`] guards for one cube (fewer W0007s,
//! never a path the guards would make certain).
//!
//! This file runs the analysis, [`analyze`], into [`Finding`]s; [`report`](fn@report)
//! turns them into diagnostics.

mod absent;
pub(crate) mod approx;
mod constant_operand;
pub(crate) mod domain;
mod guards;
mod index;
mod report;
mod transforms;

use crate::check::actions::ActionValue;
use crate::check::policy::{CheckedPolicy, Events, Hook};
use crate::frontend::doc::child_path;
use crate::ir::Effect;
use crate::span::Span;
use approx::{covered_by, Analyzer, Cube, Dnf, Prefixes, StrTests};
use domain::ValueSet;
use guards::Guards;
use hookc_runtime::bytecode::path::{Path, PathId, Segment};
use index::{Index, Ref};
use std::collections::{BTreeSet, HashMap, HashSet};

/// The events the built-in schema describes (`docs/src/semantics.md#events`):
/// never reported by W0006.
pub const KNOWN_EVENTS: [&str; 5] = [
    "error",
    "limit",
    "context_window_pressure",
    "before_step",
    "after_step",
];

pub use approx::{MAX_CANDIDATES, MAX_WORK};
pub use guards::MAX_GUARDS;
pub use report::HookOrigin;

/// Runs every lint and reports its findings (`origins` by
/// [`Hook::source_order`]).
pub fn report(
    policy: &CheckedPolicy,
    origins: &[HookOrigin],
    sources: &crate::span::SourceMap,
    diags: &mut crate::diag::Diagnostics,
) {
    let decided = constant_operand::report(policy, origins, diags);
    report::report(policy, origins, sources, &decided, diags);
    absent::report(policy, origins, diags);
    transforms::report(policy, origins, diags);
}

/// One finding, by hook index in evaluation order ([`CheckedPolicy::hooks`]).
#[derive(Debug, Clone, PartialEq)]
pub enum Finding {
    /// W0004, or W0008 when every covering hook has the identical condition.
    Shadowed {
        /// The hook that never matches.
        hook: usize,
        /// The earlier terminal hooks that match whenever it would.
        by: Vec<usize>,
        /// The events where it never matches; empty: all of its events.
        events: Vec<String>,
        /// Every covering hook has the identical condition (W0008).
        duplicate: bool,
    },
    /// W0005: the condition is never true.
    AlwaysFalse {
        /// The hook.
        hook: usize,
        /// The leaves that contradict each other, as source text, each once.
        why: Vec<String>,
        /// Several leaves (or one, both ways) conflict; else one leaf is
        /// never true by itself (`x in []`, `false`).
        contradiction: bool,
    },
    /// W0005: the condition is true in every context.
    AlwaysTrue {
        /// The hook.
        hook: usize,
    },
    /// W0006: an event no other hook, known event or schema names.
    UnknownEvent {
        /// The hook.
        hook: usize,
        /// The event name.
        event: String,
        /// The closest known name.
        suggestion: Option<String>,
    },
    /// W0007: a template reads a path the condition does not ensure.
    UnguardedTemplate {
        /// The hook.
        hook: usize,
        /// The path read.
        path: PathId,
        /// Where the reference is written.
        span: Span,
        /// How the template reads it, which says what a missing path gives.
        hole: TemplateHole,
        /// The parameter, as a node path below the action (`parameters.retry_after`).
        param: String,
    },
}

/// What the analysis knows about one hook's condition.
struct Facts {
    /// Contains every context where the condition is true (normalized).
    t_over: Dnf,
    /// Inside the set of contexts where the condition is true.
    t_under: Dnf,
    /// The condition is exactly one path in one set (for W0007 guards).
    single: Option<(PathId, ValueSet)>,
}

/// How one event of a hook is covered.
enum Coverage {
    /// By an earlier hook with the identical condition.
    Duplicate(usize),
    /// By these earlier hooks, proved in the domain.
    Proved(BTreeSet<usize>),
}

struct Analysis {
    facts: Vec<Facts>,
    tests: StrTests,
    /// Candidate checks, against [`MAX_WORK`].
    work: usize,
    /// Pairs of hooks looked at together (candidate cubes, W0007 guards):
    /// the measure of [`analyze_counting`].
    pairs: usize,
}

impl Analysis {
    /// Whether every context where hook `b` is true is covered by the cubes
    /// of `indexes`; the covering hooks.
    fn prove(&mut self, b: usize, indexes: &[&Index]) -> Option<BTreeSet<usize>> {
        if let Some(top) = indexes.iter().filter_map(|i| i.top).min() {
            return Some([top].into_iter().collect());
        }
        let facts = &self.facts;
        let mut by = BTreeSet::new();
        for cube in &facts.get(b)?.t_over.cubes {
            if self.work > MAX_WORK {
                return None;
            }
            let mut refs = BTreeSet::new();
            let mut deferred = Vec::new();
            for index in indexes {
                self.work += index.candidates(cube, &self.tests, &mut refs, &mut deferred)?;
            }
            let under = |(h, c): &Ref| facts.get(*h).and_then(|f| f.t_under.cubes.get(*c));
            let first: Vec<&Cube> = refs.iter().filter_map(under).collect();
            // The paths `cube` leaves free that a found cube allows missing:
            // the only ones whose keyed cubes a union may need (`index`).
            for a in &first {
                for (k, c) in a.iter() {
                    if c.set.may_be_missing() && cube.iter().all(|(q, _)| q != k) {
                        deferred.push((k, index::Need::Missing));
                    }
                }
            }
            deferred.sort_by_key(|(k, need)| (*k, *need == index::Need::Root));
            deferred.dedup();
            for (k, need) in deferred {
                if index::needed(cube, k, need, &first, &self.tests) {
                    for index in indexes {
                        index.deferred(k, need, &mut refs)?;
                    }
                }
            }
            self.work += refs.len();
            self.pairs += refs.len();
            if self.work > MAX_WORK {
                return None;
            }
            let cands: Vec<(usize, &Cube)> = refs
                .iter()
                .filter_map(|(h, c)| Some((*h, facts.get(*h)?.t_under.cubes.get(*c)?)))
                .collect();
            let cubes: Vec<&Cube> = cands.iter().map(|(_, c)| *c).collect();
            let used = covered_by(cube, &cubes, &self.tests, &mut self.work)?;
            by.extend(used.iter().filter_map(|i| cands.get(*i).map(|(h, _)| *h)));
        }
        Some(by)
    }
}

/// Whether hook `a` listens to `event` (`None`: an event only `"*"` hooks get).
fn listens(a: &Hook, event: Option<&str>) -> bool {
    match event {
        None => a.events == Events::Any,
        Some(e) => a.events.includes(e),
    }
}

/// Whether hook `a` listens to every event hook `b` does.
fn listens_to_all_of(a: &Hook, b: &Hook) -> bool {
    match &b.events {
        Events::Any => a.events == Events::Any,
        Events::Named(names) => names.iter().all(|n| a.events.includes(n)),
    }
}

/// Runs every lint over a checked policy.
pub fn analyze(policy: &CheckedPolicy) -> Vec<Finding> {
    analyze_counting(policy).0
}

/// [`analyze`], and the number of pairs of hooks it looked at together
/// (candidate cubes of the shadowing proofs, guards of W0007): a
/// deterministic measure of its work, for tests of how it grows.
#[doc(hidden)]
pub fn analyze_counting(policy: &CheckedPolicy) -> (Vec<Finding>, usize) {
    let hooks = policy.hooks();
    let paths = policy.paths();
    let prefixes = Prefixes::new(paths);
    let mut analyzer = Analyzer::new(paths);
    let mut findings = Vec::new();
    let mut facts = Vec::with_capacity(hooks.len());
    for (i, hook) in hooks.iter().enumerate() {
        let Some(cond) = &hook.condition else {
            facts.push(Facts {
                t_over: Dnf::top(),
                t_under: Dnf::top(),
                single: None,
            });
            continue;
        };
        let a = analyzer.condition(cond);
        let single = match (a.t.over.cubes.as_slice(), a.t.under.cubes.as_slice()) {
            ([o], [u]) if o == u => {
                let mut it = o.iter();
                match (it.next(), it.next()) {
                    (Some((p, c)), None) => Some((p, c.set.clone())),
                    _ => None,
                }
            }
            _ => None,
        };
        let t_over = a.t.over.normalize(&prefixes);
        if t_over.is_empty() {
            let leaves = t_over.empty_why.as_deref().unwrap_or_default();
            let mut why: Vec<String> = Vec::new();
            for e in leaves
                .iter()
                .filter_map(|id| analyzer.leaves.get(*id as usize))
            {
                let text = e
                    .describe(paths)
                    .unwrap_or_else(|| "a `matches` schema".to_owned());
                if !why.contains(&text) {
                    why.push(text);
                }
            }
            findings.push(Finding::AlwaysFalse {
                hook: i,
                why,
                contradiction: leaves.len() > 1,
            });
        } else {
            let cands: Vec<&Cube> = a.t.under.cubes.iter().collect();
            let mut work = 0;
            if covered_by(&Cube::default(), &cands, &analyzer.tests, &mut work).is_some() {
                findings.push(Finding::AlwaysTrue { hook: i });
            }
        }
        facts.push(Facts {
            t_over,
            t_under: a.t.under,
            single,
        });
    }
    // A hook with a pattern table matches only where a row does, which the
    // analysis does not model: what it says of the condition stays an
    // over-approximation, but nothing is certain to match (so such a hook
    // shadows nothing and guards no later template).
    for (hook, f) in hooks.iter().zip(facts.iter_mut()) {
        if hook.table.is_some() {
            f.t_under = Dnf::bottom(None);
            f.single = None;
        }
    }

    let tests = std::mem::take(&mut analyzer.tests);
    let mut an = Analysis {
        facts,
        tests,
        work: 0,
        pairs: 0,
    };
    let mut shadowed: HashSet<usize> = HashSet::new();
    let mut any_index = Index::default();
    let mut named: HashMap<&str, Index> = HashMap::new();
    let mut by_condition: HashMap<String, Vec<usize>> = HashMap::new();
    let mut guards = Guards::default();
    let ending = ending_severity(policy);
    for (b, hook) in hooks.iter().enumerate() {
        if !hook.enabled {
            continue;
        }
        let Some(fb) = an.facts.get(b) else {
            continue;
        };
        if fb.t_over.is_empty() {
            continue;
        }
        let key = hook.condition.as_ref().map(|c| condition_key(c, paths));
        let events: Vec<Option<&str>> = match &hook.events {
            Events::Any => vec![None],
            Events::Named(names) => names.iter().map(|n| Some(n.as_str())).collect(),
        };
        let mut covered: Vec<(Option<&str>, Coverage)> = Vec::new();
        for ev in &events {
            let dup = key
                .as_ref()
                .and_then(|k| by_condition.get(k))
                .into_iter()
                .flatten()
                .copied()
                .find(|a| {
                    // An earlier hook with a pattern table matches only
                    // where a row does: the same condition does not make
                    // it match whenever this one would.
                    hooks.get(*a).is_some_and(|h| {
                        listens(h, *ev)
                            && h.table.is_none()
                            && match (&h.condition, &hook.condition) {
                                (Some(x), Some(y)) => x.same_as(y),
                                _ => false,
                            }
                    })
                });
            if let Some(a) = dup {
                covered.push((*ev, Coverage::Duplicate(a)));
                continue;
            }
            let mut indexes: Vec<&Index> = vec![&any_index];
            if let Some(e) = ev {
                if let Some(ix) = named.get(e) {
                    indexes.push(ix);
                }
            }
            if let Some(by) = an.prove(b, &indexes) {
                covered.push((*ev, Coverage::Proved(by)));
            }
        }
        if !covered.is_empty() {
            let all = covered.len() == events.len();
            let duplicate = covered
                .iter()
                .all(|(_, c)| matches!(c, Coverage::Duplicate(_)));
            let mut by = BTreeSet::new();
            for (_, c) in &covered {
                match c {
                    Coverage::Duplicate(a) => {
                        by.insert(*a);
                    }
                    Coverage::Proved(hs) => by.extend(hs.iter().copied()),
                }
            }
            if all {
                shadowed.insert(b);
            }
            findings.push(Finding::Shadowed {
                hook: b,
                by: by.into_iter().collect(),
                events: if all {
                    Vec::new()
                } else {
                    covered
                        .iter()
                        .filter_map(|(e, _)| e.map(str::to_owned))
                        .collect()
                },
                duplicate,
            });
        }

        // W0007, with the earlier single-path hooks as guards: when this hook
        // runs, none of them matched.
        if !shadowed.contains(&b) {
            if let Some(fb) = an.facts.get(b) {
                // A table's `row` always has every field of the table, and
                // a hook with a table matches only where its `on` path (and
                // so each of its prefixes) holds a string.
                let on = hook.table.as_ref().and_then(|t| paths.get(t.on));
                let required = |p: PathId| {
                    paths.get(p).is_some_and(|path| {
                        (hook.table.is_some() && path.root_name() == crate::ir::ROW_ROOT)
                            || on.is_some_and(|on| {
                                on.root_name() == path.root_name()
                                    && on.segments().starts_with(path.segments())
                            })
                            || policy.schema_guarantees(hook, path)
                    })
                };
                an.pairs += template_findings(
                    b,
                    hook,
                    (&fb.t_over, &required),
                    (&guards, hooks),
                    &prefixes,
                    &mut findings,
                );
            }
        }

        // This hook now precedes the rest. Only a terminal match ends the
        // evaluation: a collected one lets the later hooks run, so it
        // neither covers them nor guards their templates; under strictest
        // combining, neither does a terminal match that a more severe one
        // can follow. A transform or an awaited result changes the context
        // the later hooks read, so no earlier hook covers or guards them
        // (`docs/src/semantics.md#static-checking`).
        match hook.action.effect {
            Effect::Collected => continue,
            Effect::Transform | Effect::Await => {
                any_index = Index::default();
                named.clear();
                by_condition.clear();
                guards = Guards::default();
                continue;
            }
            Effect::Terminal if !ends_walk(policy, hook, ending) => continue,
            Effect::Terminal => {}
        }
        if let Some(fb) = an.facts.get(b) {
            match &hook.events {
                Events::Any => any_index.insert(b, &fb.t_under.cubes, &an.tests),
                Events::Named(names) => {
                    for n in names {
                        named.entry(n.as_str()).or_default().insert(
                            b,
                            &fb.t_under.cubes,
                            &an.tests,
                        );
                    }
                }
            }
            if let Some((p, set)) = &fb.single {
                guards.push(b, *p, set);
            }
        }
        if let Some(k) = key {
            by_condition.entry(k).or_default().push(b);
        }
    }
    event_findings(policy, &mut findings);
    (findings, an.pairs)
}

/// A hash key for identical conditions (equal keys are confirmed with
/// [`crate::ir::IrExpr::same_as`]).
fn condition_key(
    e: &crate::ir::IrExpr,
    paths: &hookc_runtime::bytecode::path::PathTable,
) -> String {
    e.key_text(paths)
}

/// W0007 for one hook: template paths not present in every context where
/// the hook can match, given the guards of the earlier hooks, unless the
/// context schema guarantees them (`required`): `t_over` is where the hook
/// can match, `required` whether a path is guaranteed. Returns the number
/// of guards looked at (only hooks with templates look at them).
fn template_findings(
    b: usize,
    hook: &Hook,
    (t_over, required): (&Dnf, &dyn Fn(PathId) -> bool),
    (guards, hooks): (&Guards, &[Hook]),
    prefixes: &Prefixes,
    findings: &mut Vec<Finding>,
) -> usize {
    let mut refs = Vec::new();
    for (name, value) in &hook.action.params {
        template_refs(value, name.clone(), &mut refs);
    }
    refs.retain(|r| {
        r.1.file == hook.span.file
            && hook.span.start <= r.1.start
            && r.1.end <= hook.span.end
            && !required(r.0)
    });
    if refs.is_empty() {
        return 0;
    }
    let mut looked = 0;
    let mut reach = Dnf::bottom(None);
    for cube in &t_over.cubes {
        let mut c = cube.clone();
        let Some(relevant) = guards.relevant(cube) else {
            // Past `MAX_GUARDS`: nothing is reported for this hook.
            return looked;
        };
        looked += relevant.len();
        let ok = relevant
            .iter()
            .filter(|(a, _, _)| hooks.get(*a).is_some_and(|h| listens_to_all_of(h, hook)))
            .all(|(_, p, set)| c.restrict(*p, set, &[]).is_ok());
        if ok {
            reach.cubes.push(c);
        }
    }
    let reach = reach.normalize(prefixes);
    for (path, span, hole, param) in refs {
        let guaranteed = reach.cubes.iter().all(|c| !c.set_of(path).may_be_missing());
        if !guaranteed {
            findings.push(Finding::UnguardedTemplate {
                hook: b,
                path,
                span,
                hole,
                param,
            });
        }
    }
    looked
}

/// Every path a parameter value's templates read: a `${path}`, or a path
/// whose absence makes a `${expression}` an error for certain (a macro's
/// range is read, its body's variables are not), with its span, how it is
/// read, and the parameter's node path.
fn template_refs(
    value: &ActionValue,
    at: String,
    out: &mut Vec<(PathId, Span, TemplateHole, String)>,
) {
    match value {
        ActionValue::Template(t) => {
            let hole = if t.is_whole() {
                TemplateHole::Whole
            } else {
                TemplateHole::Part
            };
            for (p, span) in t.refs() {
                out.push((p, span, hole, at.clone()));
            }
            for (e, span) in t.exprs() {
                for p in approx::certain_error_paths(&e.expr) {
                    out.push((p, span, TemplateHole::Expr, at.clone()));
                }
            }
        }
        ActionValue::List(items) => {
            for (i, v) in items.iter().enumerate() {
                template_refs(v, format!("{at}[{i}]"), out);
            }
        }
        ActionValue::Object(entries) => {
            for (k, v) in entries {
                template_refs(v, child_path(&at, k), out);
            }
        }
        _ => {}
    }
}

/// How a template reads a path (W0007), which says what a missing path
/// gives.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum TemplateHole {
    /// `${path}` is the whole parameter: `null` when missing.
    Whole,
    /// `${path}` inside text: empty when missing.
    Part,
    /// An expression (`${items.map(i, i.name).join(', ')}`) that is an
    /// error where the path is missing: the action cannot be filled.
    Expr,
}

/// The least severity at which a terminal match ends the evaluation: every
/// one under first match (`None`); under strictest combining the highest
/// severity of the policy's terminal action types
/// (`docs/src/semantics.md#combining`).
fn ending_severity(policy: &CheckedPolicy) -> Option<i64> {
    (policy.combine() == crate::ir::Combine::Strictest).then(|| {
        policy
            .action_types()
            .iter()
            .filter(|t| t.effect() == Effect::Terminal)
            .map(|t| t.severity())
            .max()
            .unwrap_or(0)
    })
}

/// Whether a terminal match of `hook` ends the evaluation, given
/// [`ending_severity`].
fn ends_walk(policy: &CheckedPolicy, hook: &Hook, ending: Option<i64>) -> bool {
    ending.is_none_or(|max| {
        let types = policy.action_types();
        types.get(&hook.action.kind).map_or(0, |t| t.severity()) >= max
    })
}

/// W0006: event names no other hook, known event, schema enum
/// (`event.type`) or `emit_event` action names.
///
/// A policy that declares its events has none to report: the
/// declaration replaces the list of known events, and a hook on an
/// undeclared event is an error (E0114) of the compilation.
fn event_findings(policy: &CheckedPolicy, findings: &mut Vec<Finding>) {
    if policy.events().is_declared() {
        return;
    }
    let hooks = policy.hooks();
    let mut count: HashMap<&str, usize> = HashMap::new();
    for h in hooks {
        if let Events::Named(names) = &h.events {
            for n in names {
                *count.entry(n.as_str()).or_default() += 1;
            }
        }
    }
    let mut known: BTreeSet<String> = KNOWN_EVENTS.iter().map(|s| (*s).to_owned()).collect();
    let event_type = Path::root("event").child(Segment::Field("type".to_owned()));
    if let Ok(resolved) = policy.schema().resolve(&event_type) {
        if let Some(values) = policy.schema().allowed(resolved.ty.schema) {
            known.extend(values.iter().filter_map(|v| v.as_str().map(str::to_owned)));
        }
    }
    for h in hooks {
        if h.action.kind == "emit_event" {
            if let Some(ActionValue::String(s)) = h.action.param("event_type") {
                known.insert(s.clone());
            }
        }
    }
    for (i, h) in hooks.iter().enumerate() {
        let Events::Named(names) = &h.events else {
            continue;
        };
        for n in names {
            if count.get(n.as_str()).copied().unwrap_or(0) > 1 || known.contains(n) {
                continue;
            }
            let candidates = known
                .iter()
                .map(String::as_str)
                .chain(count.keys().copied().filter(|c| *c != n.as_str()));
            findings.push(Finding::UnknownEvent {
                hook: i,
                event: n.clone(),
                suggestion: crate::suggest::did_you_mean(n, candidates).map(str::to_owned),
            });
        }
    }
}

#[cfg(test)]
mod tests;

//! Lints: static analysis of a checked hook set (SPEC §3), reported as
//! warnings with their own codes.
//!
//! - **W0004** a hook that can never match because earlier hooks for the same
//!   event always match whenever it would (shadowed);
//! - **W0005** a condition that is always false (a contradiction) or always
//!   true;
//! - **W0006** an event that no other hook, no known event and no schema
//!   names (a likely typo), with did-you-mean;
//! - **W0007** a template reading a path the condition does not guarantee to
//!   exist;
//! - **W0008** a condition repeated from an earlier hook on the same event
//!   (the later hook never matches there).
//!
//! Conditions are decided in a small abstract domain ([`domain`]): per-path
//! sets of states (missing, `null`, bools, number intervals, strings by
//! exact value and prefix, lists, objects), combined into unions of
//! conjunctions ([`approx`]) that over- and under-approximate where a
//! condition is true, following CEL's error rules. "B is shadowed" is
//! reported only when the over-approximation of B's true-set lies inside the
//! union of the under-approximations of the earlier hooks' true-sets: a
//! condition part the domain does not know can only make that harder to
//! prove. A "maybe" is never reported.
//!
//! The analysis is bounded: past [`MAX_WORK`] candidate checks per
//! compilation it stops proving shadowing (large policies then get fewer
//! W0004s, never wrong ones).

pub mod approx;
pub mod domain;

use crate::check::actions::ActionValue;
use crate::diag::{Code, Diagnostic, Diagnostics};
use crate::frontend::doc::child_path;
use crate::frontend::{RawCondition, SourceHook};
use crate::ir::{Events, Hook, Policy};
use crate::span::{SourceMap, Span, Spanned};
use approx::{covered_by, Analyzer, Cube, Dnf, Prefixes};
use domain::{Scalar, ValueSet};
use hookc_runtime::bytecode::path::{Path, PathId, Segment};
use std::collections::{BTreeSet, HashMap, HashSet};

/// The events every runtime of seed 000 raises: never reported by W0006.
pub const KNOWN_EVENTS: [&str; 5] = [
    "error",
    "limit",
    "context_window_pressure",
    "before_step",
    "after_step",
];

pub use approx::MAX_WORK;

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

/// One finding, by hook index in evaluation order ([`Policy::hooks`]).
#[derive(Debug, Clone, PartialEq)]
pub enum Finding {
    /// W0004, or W0008 when every covering hook has the identical condition.
    Shadowed {
        /// The hook that never matches.
        hook: usize,
        /// The earlier hooks that match whenever it would.
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
        /// The template is the whole parameter (missing gives `null`, not `""`).
        whole: bool,
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

/// Earlier hooks' true-sets, indexed for candidate lookup.
#[derive(Default)]
struct Index {
    /// The first hook that is always true.
    top: Option<usize>,
    /// Cubes keyed by one path's finite set of values.
    keyed: HashMap<(PathId, Scalar), Vec<(usize, usize)>>,
    /// The same cubes by their key path.
    by_path: HashMap<PathId, Vec<(usize, usize)>>,
    /// Cubes with no finite path.
    general: Vec<(usize, usize)>,
}

impl Index {
    fn insert(&mut self, hook: usize, cubes: &[Cube]) {
        for (i, c) in cubes.iter().enumerate() {
            if c.is_top() {
                self.top.get_or_insert(hook);
                continue;
            }
            let key = c
                .iter()
                .filter_map(|(p, con)| con.set.finite().map(|v| (p, v)))
                .min_by_key(|(_, v)| v.len());
            match key {
                Some((p, values)) => {
                    for v in values {
                        self.keyed.entry((p, v)).or_default().push((hook, i));
                    }
                    self.by_path.entry(p).or_default().push((hook, i));
                }
                None => self.general.push((hook, i)),
            }
        }
    }

    /// Candidate cubes that may contain `b` or share in covering it.
    fn candidates(&self, b: &Cube, out: &mut BTreeSet<(usize, usize)>) {
        for (p, c) in b.iter() {
            match c.set.finite() {
                Some(values) => {
                    for v in values {
                        if let Some(refs) = self.keyed.get(&(p, v)) {
                            out.extend(refs.iter().copied());
                        }
                    }
                }
                None => {
                    if let Some(refs) = self.by_path.get(&p) {
                        out.extend(refs.iter().copied());
                    }
                }
            }
        }
        out.extend(self.general.iter().copied());
    }
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
    work: usize,
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
            for index in indexes {
                index.candidates(cube, &mut refs);
            }
            self.work += refs.len();
            if self.work > MAX_WORK {
                return None;
            }
            let cands: Vec<(usize, &Cube)> = refs
                .iter()
                .filter_map(|(h, c)| Some((*h, facts.get(*h)?.t_under.cubes.get(*c)?)))
                .collect();
            let cubes: Vec<&Cube> = cands.iter().map(|(_, c)| *c).collect();
            let used = covered_by(cube, &cubes, &mut self.work)?;
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
pub fn analyze(policy: &Policy) -> Vec<Finding> {
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
                    .to_source(paths)
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
            if covered_by(&Cube::default(), &cands, &mut work).is_some() {
                findings.push(Finding::AlwaysTrue { hook: i });
            }
        }
        facts.push(Facts {
            t_over,
            t_under: a.t.under,
            single,
        });
    }

    let mut an = Analysis { facts, work: 0 };
    let mut shadowed: HashSet<usize> = HashSet::new();
    let mut any_index = Index::default();
    let mut named: HashMap<&str, Index> = HashMap::new();
    let mut by_condition: HashMap<String, Vec<usize>> = HashMap::new();
    let mut guards: Vec<(usize, PathId, ValueSet)> = Vec::new();
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
                    hooks.get(*a).is_some_and(|h| {
                        listens(h, *ev)
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
                let applicable: Vec<&(usize, PathId, ValueSet)> = guards
                    .iter()
                    .filter(|(a, _, _)| hooks.get(*a).is_some_and(|h| listens_to_all_of(h, hook)))
                    .collect();
                template_findings(b, hook, &fb.t_over, &applicable, &prefixes, &mut findings);
            }
        }

        // This hook now precedes the rest.
        if let Some(fb) = an.facts.get(b) {
            match &hook.events {
                Events::Any => any_index.insert(b, &fb.t_under.cubes),
                Events::Named(names) => {
                    for n in names {
                        named
                            .entry(n.as_str())
                            .or_default()
                            .insert(b, &fb.t_under.cubes);
                    }
                }
            }
            if let Some((p, set)) = &fb.single {
                guards.push((b, *p, set.not()));
            }
        }
        if let Some(k) = key {
            by_condition.entry(k).or_default().push(b);
        }
    }
    event_findings(policy, &mut findings);
    findings
}

/// A hash key for identical conditions (equal keys are confirmed with
/// [`crate::ir::Expr::same_as`]).
fn condition_key(e: &crate::ir::Expr, paths: &hookc_runtime::bytecode::path::PathTable) -> String {
    e.to_source(paths)
        .unwrap_or_else(|| "\u{0}matches".to_owned())
}

/// W0007 for one hook: template paths not present in every context where
/// the hook can match.
fn template_findings(
    b: usize,
    hook: &Hook,
    t_over: &Dnf,
    guards: &[&(usize, PathId, ValueSet)],
    prefixes: &Prefixes,
    findings: &mut Vec<Finding>,
) {
    let mut refs = Vec::new();
    for (name, value) in &hook.action.params {
        template_refs(value, name.clone(), &mut refs);
    }
    refs.retain(|r| {
        r.1.file == hook.span.file && hook.span.start <= r.1.start && r.1.end <= hook.span.end
    });
    if refs.is_empty() {
        return;
    }
    let mut reach = Dnf::bottom(None);
    for cube in &t_over.cubes {
        let mut c = cube.clone();
        let ok = guards
            .iter()
            .all(|(_, p, set)| c.restrict(*p, set, &[]).is_ok());
        if ok {
            reach.cubes.push(c);
        }
    }
    let reach = reach.normalize(prefixes);
    for (path, span, whole, param) in refs {
        let guaranteed = reach.cubes.iter().all(|c| !c.set_of(path).may_be_missing());
        if !guaranteed {
            findings.push(Finding::UnguardedTemplate {
                hook: b,
                path,
                span,
                whole,
                param,
            });
        }
    }
}

/// Every `${path}` reference in a parameter value: path, span, whether the
/// template is the whole value, and the parameter's node path.
fn template_refs(value: &ActionValue, at: String, out: &mut Vec<(PathId, Span, bool, String)>) {
    match value {
        ActionValue::Template(t) => {
            for (p, span) in t.refs() {
                out.push((p, span, t.is_whole(), at.clone()));
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

/// W0006: event names no other hook, known event, schema enum
/// (`event.type`) or `emit_event` action names.
fn event_findings(policy: &Policy, findings: &mut Vec<Finding>) {
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

/// `file:line:col` of a span.
fn location(sources: &SourceMap, span: Span) -> String {
    match sources.line_col(span.file, span.start) {
        Some(lc) => format!("{}:{lc}", sources.name(span.file)),
        None => sources.name(span.file).to_owned(),
    }
}

/// `a`, `a and b`, `a, b and c`.
fn and_list(items: &[String]) -> String {
    match items {
        [] => String::new(),
        [one] => one.clone(),
        [init @ .., last] => format!("{} and {last}", init.join(", ")),
    }
}

/// Turns findings into diagnostics. `origins` are by [`Hook::source_order`].
pub fn report(
    policy: &Policy,
    origins: &[HookOrigin],
    sources: &SourceMap,
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
    for f in analyze(policy) {
        let d = match f {
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
                        location(sources, anchor(a).0)
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
                        "remove `{}`, give it a higher priority than `{first}`, or narrow the earlier condition",
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
                whole,
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
                .label(if whole {
                    "null when missing"
                } else {
                    "empty when missing"
                })
                .help(format!(
                    "if the action needs it, add `has({text})` to the condition"
                ));
                if let Some(np) = origin_of(h).and_then(|o| o.node_path.clone()) {
                    d = d.node(format!("{np}.action.{}", param.trim_start_matches('.')));
                }
                d
            }
        };
        diags.push(d);
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

    fn findings(src: &str) -> (Policy, Vec<Finding>) {
        let c = compile(&[Input::new("t.yaml", src)]);
        let p = c.policy.unwrap_or_else(|| panic!("{:?}", c.diagnostics));
        let f = analyze(&p);
        (p, f)
    }

    /// Ids of hooks shadowed on all their events (W0004 or W0008).
    fn shadowed(src: &str) -> Vec<String> {
        let (p, f) = findings(src);
        f.iter()
            .filter_map(|f| match f {
                Finding::Shadowed { hook, events, .. } if events.is_empty() => {
                    Some(p.hooks()[*hook].id.clone())
                }
                _ => None,
            })
            .collect()
    }

    fn hooks(list: &[(&str, &str, &str, i64)]) -> String {
        let mut s = String::from("hooks:\n");
        for (id, event, when, prio) in list {
            s.push_str(&format!(
                "  - id: {id}\n    event: {event}\n    priority: {prio}\n"
            ));
            if !when.is_empty() {
                s.push_str(&format!("    when: \"{when}\"\n"));
            }
            s.push_str("    action: {type: abort}\n");
        }
        s
    }

    #[test]
    fn unconditional_shadows_later_hooks_of_its_event() {
        let src = hooks(&[
            ("a", "error", "", 10),
            ("b", "error", "error.code == 'E1'", 5),
            ("c", "limit", "limit_code == 'x'", 5),
        ]);
        assert_eq!(shadowed(&src), ["b"]);
    }

    #[test]
    fn weaker_condition_shadows() {
        let src = hooks(&[
            ("a", "limit", "limit_value > 5", 10),
            ("b", "limit", "limit_value > 10", 5),
            ("c", "limit", "limit_value > 1", 1),
        ]);
        assert_eq!(shadowed(&src), ["b"]);
    }

    #[test]
    fn multi_event_hooks_need_every_event_covered() {
        let src = hooks(&[("a", "error", "", 10), ("b", "[error, limit]", "", 5)]);
        let (p, f) = findings(&src);
        assert!(f.iter().any(|f| matches!(f,
            Finding::Shadowed { hook, events, .. }
                if p.hooks()[*hook].id == "b" && events == &["error".to_owned()])));
        assert!(shadowed(&src).is_empty());
    }

    #[test]
    fn star_hooks_only_fall_to_star_hooks() {
        let src = hooks(&[
            ("a", "error", "", 10),
            ("b", "'*'", "", 5),
            ("c", "'*'", "has(error)", 10),
            ("d", "limit", "error.code == 'x'", 1),
        ]);
        assert_eq!(shadowed(&src), ["d"]);
    }

    #[test]
    fn disabled_hooks_shadow_nothing() {
        let src = "hooks:\n  - {id: a, event: error, enabled: false, action: {type: abort}}\n  - {id: b, event: error, action: {type: abort}}\n";
        assert!(shadowed(src).is_empty());
    }

    #[test]
    fn duplicates_are_w0008() {
        let src = hooks(&[
            ("a", "error", "error.message.matches('x')", 10),
            ("b", "error", "error.message.matches('x')", 5),
        ]);
        let (_, f) = findings(&src);
        assert!(f.iter().any(|f| matches!(f,
            Finding::Shadowed { hook: 1, duplicate: true, events, .. } if events.is_empty())));
    }

    #[test]
    fn contradictions_and_tautologies() {
        let src = hooks(&[
            ("a", "error", "error.code == 'a' && error.code == 'b'", 0),
            ("b", "limit", "has(limit_code) || !has(limit_code)", 0),
        ]);
        let (_, f) = findings(&src);
        assert!(f.contains(&Finding::AlwaysFalse {
            hook: 0,
            why: vec!["error.code == 'a'".into(), "error.code == 'b'".into()],
            contradiction: true,
        }));
        assert!(f.contains(&Finding::AlwaysTrue { hook: 1 }));
    }

    #[test]
    fn templates_guarded_by_condition_or_earlier_hook() {
        let src = r#"
hooks:
  - id: guard
    event: "*"
    priority: 100
    when: "!has(event.thread_id)"
    action: {type: abort}
  - id: t
    event: error
    when: "has(error.code)"
    action: {type: fail, error_message: "${error.code} ${error.message} ${event.thread_id}"}
"#;
        let (p, f) = findings(src);
        let unguarded: Vec<String> = f
            .iter()
            .filter_map(|f| match f {
                Finding::UnguardedTemplate { path, .. } => {
                    Some(p.paths().get(*path).unwrap().to_string())
                }
                _ => None,
            })
            .collect();
        assert_eq!(unguarded, ["error.message"]);
    }

    #[test]
    fn unknown_events_with_suggestions() {
        let src = hooks(&[
            ("a", "eror", "", 0),
            ("b", "custom", "", 0),
            ("c", "custom", "", 0),
        ]);
        let (_, mut f) = findings(&src);
        f.retain(|f| matches!(f, Finding::UnknownEvent { .. }));
        assert_eq!(
            f,
            vec![Finding::UnknownEvent {
                hook: 0,
                event: "eror".into(),
                suggestion: Some("error".into())
            }]
        );
    }
}

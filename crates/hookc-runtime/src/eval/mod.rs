//! Evaluation: a loaded [`Policy`] and the [`Query`] API that evaluates an
//! event against it (semantics in `docs/src/semantics.md`).
//!
//! A [`Policy`] is loaded from artifact bytes (decoded and verified first) or
//! from a program the compiler just lowered (verified the same way), then
//! evaluates events: the hooks of the event in evaluation order; a matching
//! hook whose action is *collected* is gathered and evaluation goes on, the
//! first matching hook whose action is *terminal* decides and ends it
//! (`docs/src/semantics.md#action-effects`). Only matched hooks' templates are
//! filled.
//!
//! A `Policy` is immutable, `Send + Sync`, and can be shared across threads.
//! Evaluation allocates nothing on the heap until a hook matches (the operand
//! stack and the path cache live on the call stack; see
//! [`crate::context::INLINE_PATHS`]).

use crate::accel::dispatch::{EventPlans, PlanStep as Step};
use crate::accel::index::HookIndex;
use crate::bytecode::shape::{HookShape, Leaf};
use crate::bytecode::{Effect, Program};
use crate::context::json_text::PathTrie;
use crate::context::{PathCache, PathPlan, Source};
use crate::value::check::ActionError;
use crate::value::Val;
use crate::verify::VerifiedProgram;
use serde_json::{Map, Value};
use thiserror::Error;
use vm::{ActionSink, JsonSink};

mod explain;
mod flat;
mod model;
mod query;
pub mod vm;

pub use crate::context::Context;
pub use explain::{Derivation, HookTrace, ModelTrace, Outcome, Read, SubCondition, Trace};
pub use flat::{FlatHook, FlatLeaf};
pub use model::merge_patch;
pub use query::Query;

/// Why a policy could not be loaded.
#[derive(Debug, Error)]
#[non_exhaustive]
pub enum LoadError {
    /// The artifact is damaged, from another format version, or fails verification.
    #[error("cannot load the policy artifact: {0}")]
    Artifact(#[from] crate::artifact::ArtifactError),
    /// A program handed over in memory ([`Policy::from_program`]) fails
    /// verification: for a program the compiler just lowered, a compiler bug.
    #[error("the compiled program failed verification: {0}")]
    Verify(#[from] crate::verify::VerifyError),
}

/// Why a context given as JSON text could not be read.
#[derive(Debug, Error)]
#[error("the context is not valid JSON: {0}")]
pub struct ContextError(#[from] serde_json::Error);

/// Why an evaluation has no answer. Conditions never fail an evaluation
/// (an error in a condition is a non-match, `docs/src/semantics.md#errors`);
/// what can fail is reading the context, and building an action.
#[derive(Debug, Error)]
#[non_exhaustive]
pub enum QueryError {
    /// The context given as JSON text is not valid JSON.
    #[error(transparent)]
    Context(#[from] ContextError),
    /// A filled parameter of the matched action does not fit the
    /// parameter's declared type (`docs/src/semantics.md#templates`).
    #[error(transparent)]
    Action(#[from] ActionError),
    /// A hook could not decide and the policy declares `on_error: fail`
    /// (`docs/src/semantics.md#hook-errors`).
    // (Boxed: every variant is a pointer, which keeps the drop of a
    // `Result<_, QueryError>` on the no-error path as cheap as before.)
    #[error("{0}")]
    Hook(Box<HookFailure>),
    /// A transform or an awaited result must patch the context, and the
    /// context is a host's lookup that cannot give itself whole
    /// ([`crate::PathLookup::document`]).
    #[error(
        "a transform or an awaited result patches the context, but this context source cannot \
         give the whole context: implement `PathLookup::document`, or pass a JSON value or text"
    )]
    WholeContext,
}

/// A hook that could not decide: its condition gave an error or a
/// non-bool, or its action's templates do not fit
/// (`docs/src/semantics.md#hook-errors`).
#[derive(Debug, Clone, PartialEq, Eq, Error)]
#[error("policy error in hook `{hook}`: {cause}")]
pub struct HookFailure {
    /// The hook's id.
    pub hook: String,
    /// Why it could not decide.
    pub cause: String,
}

impl HookFailure {
    /// `{"hook": ID, "cause": TEXT}`.
    pub fn to_json(&self) -> Value {
        let mut m = Map::new();
        m.insert("hook".into(), self.hook.clone().into());
        m.insert("cause".into(), self.cause.clone().into());
        Value::Object(m)
    }
}

/// The host's results for awaited hooks, by hook id: an evaluation that
/// reaches a matching awaited hook binds its result and goes on, or, when
/// it has none, suspends with the hook as [`Decision::pending`]
/// (`docs/src/semantics.md#resumable-decisions`).
#[derive(Debug, Clone, Default, PartialEq)]
pub struct Results(Map<String, Value>);

impl Results {
    /// No results.
    pub fn new() -> Results {
        Results::default()
    }

    /// Adds (or replaces) hook `hook`'s result.
    pub fn insert(&mut self, hook: impl Into<String>, result: Value) -> &mut Results {
        self.0.insert(hook.into(), result);
        self
    }

    /// Hook `hook`'s result, if given.
    pub fn get(&self, hook: &str) -> Option<&Value> {
        self.0.get(hook)
    }

    /// Whether no result is given.
    pub fn is_empty(&self) -> bool {
        self.0.is_empty()
    }

    /// The hook ids results are given for, in the order given.
    pub fn ids(&self) -> impl Iterator<Item = &str> {
        self.0.keys().map(String::as_str)
    }
}

impl From<Map<String, Value>> for Results {
    /// `{"HOOK_ID": RESULT, ...}`.
    fn from(map: Map<String, Value>) -> Results {
        Results(map)
    }
}

/// An id given to [`Policy::overrides`] that names no hook.
#[derive(Debug, Error, PartialEq, Eq)]
#[error("no hook has the id `{0}`")]
pub struct UnknownHook(pub String);

/// The first matching hook of an event, with its action's templates filled.
#[derive(Debug, Clone, PartialEq)]
pub struct Match<'p> {
    /// The hook's id.
    pub hook: &'p str,
    /// `{"type": T, ...params}`: complete parameters, templates filled.
    pub action: Map<String, Value>,
}

impl Match<'_> {
    /// The action type.
    pub fn action_type(&self) -> &str {
        self.action
            .get("type")
            .and_then(Value::as_str)
            .unwrap_or("")
    }

    /// `{"hook": ID, "action": {...}}`, the line `hookc eval` prints.
    pub fn to_json(&self) -> Value {
        self.clone().into_json()
    }

    /// [`Match::to_json`], moving the action instead of copying it (for
    /// hosts that convert every result, such as the Python package).
    pub fn into_json(self) -> Value {
        let mut m = Map::new();
        m.insert("hook".into(), Value::from(self.hook));
        m.insert("action".into(), Value::Object(self.action));
        Value::Object(m)
    }
}

/// What an evaluation decided (`docs/src/semantics.md#action-effects`): the
/// collected actions that matched before the decision, in evaluation order,
/// and the terminal match that ended it, if any; with the decision model,
/// also the transforms applied, the patched context members, the hooks
/// that failed, and an awaited match the evaluation suspended at.
#[derive(Debug, Clone, PartialEq, Default)]
pub struct Decision<'p> {
    /// Matches of collected actions (observe, inject_context, allow, ...),
    /// in evaluation order, up to the terminal match.
    pub collected: Vec<Match<'p>>,
    /// The match of a terminal action that decides: the first (or, under
    /// `combine: strictest`, the most severe).
    pub terminal: Option<Match<'p>>,
    /// Matches of transform actions, in the order their patches applied.
    pub transforms: Vec<Match<'p>>,
    /// The final value of every top-level context member a transform
    /// patched (`null` when a patch removed it): what a host sends on as the
    /// rewritten input.
    pub patched: Map<String, Value>,
    /// Hooks that could not decide and were skipped (`on_error: skip`: a
    /// collected, transform or awaited action that does not fit), or whose
    /// failure the `on_error` action answered.
    pub errors: Vec<HookFailure>,
    /// An awaited match with no result yet: the evaluation suspended here;
    /// resume it with the host's result ([`Results`]).
    pub pending: Option<Match<'p>>,
}

impl Decision<'_> {
    /// Whether nothing matched at all.
    pub fn is_empty(&self) -> bool {
        self.collected.is_empty()
            && self.terminal.is_none()
            && self.transforms.is_empty()
            && self.errors.is_empty()
            && self.pending.is_none()
    }

    /// Whether the decision has anything beyond collected and terminal
    /// matches (which the first-match JSON shape cannot show).
    fn has_model_parts(&self) -> bool {
        !self.transforms.is_empty()
            || !self.patched.is_empty()
            || !self.errors.is_empty()
            || self.pending.is_some()
    }

    /// The result `hookc eval` prints, one JSON shape for every policy:
    /// `null` when nothing matched; the terminal match's
    /// `{"hook": ID, "action": {...}}` when nothing was collected (so a
    /// policy without collected actions prints what it always printed);
    /// otherwise `{"hook": ID|null, "action": {...}|null, "collected":
    /// [{"hook": ID, "action": {...}}, ...]}`.
    pub fn to_json(&self) -> Value {
        self.clone().into_json()
    }

    /// [`Decision::to_json`], moving the actions instead of copying them.
    /// With the decision model's parts, the object form also has
    /// `"transforms"`, `"patched"`, `"errors"` and `"pending"`, each only when
    /// not empty.
    pub fn into_json(self) -> Value {
        let model = self.has_model_parts();
        if self.collected.is_empty() && !model {
            return self.terminal.map_or(Value::Null, Match::into_json);
        }
        let mut m = match self.terminal.map(Match::into_json) {
            Some(Value::Object(m)) => m,
            _ => {
                let mut m = Map::new();
                m.insert("hook".into(), Value::Null);
                m.insert("action".into(), Value::Null);
                m
            }
        };
        if !self.collected.is_empty() {
            m.insert(
                "collected".into(),
                Value::Array(self.collected.into_iter().map(Match::into_json).collect()),
            );
        }
        if !self.transforms.is_empty() {
            m.insert(
                "transforms".into(),
                Value::Array(self.transforms.into_iter().map(Match::into_json).collect()),
            );
        }
        if !self.patched.is_empty() {
            m.insert("patched".into(), Value::Object(self.patched));
        }
        if !self.errors.is_empty() {
            let errors = self.errors.iter().map(HookFailure::to_json).collect();
            m.insert("errors".into(), Value::Array(errors));
        }
        if let Some(pending) = self.pending {
            m.insert("pending".into(), pending.into_json());
        }
        Value::Object(m)
    }
}

/// A set of hooks of one program, by position: one bit per hook, words
/// allocated only once a hook is in it (so an empty set costs nothing).
#[derive(Debug, Clone, Default, PartialEq, Eq)]
struct HookSet(Vec<u64>);

impl HookSet {
    /// No hook.
    const EMPTY: HookSet = HookSet(Vec::new());

    /// Adds hook `pos` of a program of `len` hooks.
    fn insert(&mut self, pos: usize, len: usize) {
        self.0.resize(len.div_ceil(64).max(self.0.len()), 0);
        if let Some(word) = self.0.get_mut(pos / 64) {
            *word |= 1 << (pos % 64);
        }
    }

    #[inline]
    fn contains(&self, hook: u32) -> bool {
        let (word, bit) = ((hook / 64) as usize, hook % 64);
        self.0.get(word).is_some_and(|w| w & (1 << bit) != 0)
    }

    fn is_empty(&self) -> bool {
        self.0.is_empty()
    }
}

/// Hooks switched off for some evaluations (run overrides), resolved to hook
/// positions once.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Overrides {
    disabled: HookSet,
}

impl Overrides {
    /// No hook switched off.
    pub(crate) const NONE: Overrides = Overrides {
        disabled: HookSet::EMPTY,
    };

    fn is_disabled(&self, hook: u32) -> bool {
        self.disabled.contains(hook)
    }
}

/// A loaded, verified policy.
#[derive(Debug)]
pub struct Policy {
    program: VerifiedProgram,
    trie: PathTrie,
    /// Each event's plan, built on the event's first evaluation.
    plans: EventPlans,
    /// Per hook: what the plans read of its condition (decoded once, at
    /// load; the flat conjunction is taken out into `conjunctions`). Empty
    /// in a policy that uses the decision model, whose walk reads neither.
    shapes: Vec<HookShape>,
    paths: PathPlan,
    /// Per hook: its leaves when its condition is a flat `&&` chain of
    /// context leaves (evaluated without the interpreter; same semantics).
    /// Empty (every hook runs in the VM) in a policy that uses the decision
    /// model.
    conjunctions: Vec<Option<Box<[Leaf]>>>,
    /// The hooks whose action is collected; empty when none is, so that a
    /// policy of terminal actions only never looks at it.
    collected: HookSet,
    /// Whether the policy uses the decision model beyond first match, so
    /// that evaluations take the model's walk (`eval/model.rs`).
    general: bool,
    /// The highest severity of a terminal action: under strictest
    /// combining, a match of it ends the walk.
    max_severity: i64,
}

impl Policy {
    /// Loads an artifact (`.hkb` bytes): decoded and verified before use.
    pub fn from_artifact(bytes: &[u8]) -> Result<Policy, LoadError> {
        Ok(Policy::new(crate::artifact::load(bytes)?))
    }

    /// Verifies a program built in memory (by the compiler's lowering) and
    /// loads it: the same checks as [`Policy::from_artifact`], without the
    /// encoding round trip.
    pub fn from_program(program: Program) -> Result<Policy, LoadError> {
        Ok(Policy::new(crate::verify::verify(program)?))
    }

    fn new(program: VerifiedProgram) -> Policy {
        let trie = PathTrie::new(&program.program().paths);
        // A policy that uses the decision model answers every query by its
        // walk (`model.rs`), which runs each hook in the VM and reads
        // neither the plans nor the flat conjunctions: its hooks' shapes
        // are not decoded (a tenth of a 10,000-hook guard's load).
        let mut shapes = if program.program().uses_model() {
            Vec::new()
        } else {
            HookShape::of_hooks(program.program())
        };
        let plans = EventPlans::new(program.program());
        let paths =
            PathPlan::new(&program.program().paths).deriving(program.program().uses_functions());
        let p = program.program();
        let conjunctions = shapes
            .iter_mut()
            .map(|shape| shape.conjunction.take().map(Vec::into_boxed_slice))
            .collect();
        let mut collected = HookSet::EMPTY;
        for (i, h) in p.hooks.iter().enumerate() {
            if p.action(h.action).map(|a| a.effect) == Some(Effect::Collected) {
                collected.insert(i, p.hooks.len());
            }
        }
        let general = p.uses_model();
        let max_severity = p
            .actions
            .iter()
            .filter(|a| a.effect == Effect::Terminal)
            .map(|a| a.severity)
            .max()
            .unwrap_or(0);
        Policy {
            program,
            trie,
            plans,
            shapes,
            paths,
            conjunctions,
            collected,
            general,
            max_severity,
        }
    }

    /// How many hooks have their shape decoded for the fast paths (all of
    /// them, or none in a policy that uses the decision model); for tests.
    #[doc(hidden)]
    pub fn decoded_shapes(&self) -> usize {
        self.shapes.len()
    }

    /// The artifact bytes of this policy (deterministic).
    pub fn to_artifact(&self) -> Vec<u8> {
        crate::artifact::encode(self.program.program())
    }

    /// [`Policy::to_artifact`] without the debug section (`hookc compile
    /// --strip`): smaller, and explain traces of the loaded artifact list
    /// the paths each hook reads instead of its sub-conditions.
    pub fn to_artifact_stripped(&self) -> Vec<u8> {
        let mut program = self.program.program().clone();
        program.debug = crate::bytecode::DebugInfo::default();
        crate::artifact::encode(&program)
    }

    /// The verified program (for disassembly and tools).
    pub fn program(&self) -> &Program {
        self.program.program()
    }

    /// Every hook id, in evaluation order.
    pub fn hook_ids(&self) -> impl Iterator<Item = &str> {
        let p = self.program.program();
        p.hooks.iter().map(move |h| p.string(h.id))
    }

    /// The number of hooks that run (those of [`Policy::hook_ids`]).
    pub fn hook_count(&self) -> usize {
        self.program.program().hooks.len()
    }

    /// The event names hooks name, each once, in the artifact's order
    /// (`"*"` hooks, which run for every event, name none).
    pub fn event_names(&self) -> impl Iterator<Item = &str> {
        let p = self.program.program();
        p.events.named.iter().map(move |(name, _)| p.string(*name))
    }

    /// How many hooks listen to every event (`event: "*"`): when none
    /// does, an event outside [`Policy::event_names`] has no hook, and a
    /// binding can answer "no match" without reading its context.
    pub fn every_event_hooks(&self) -> usize {
        self.program.program().events.wildcard.len()
    }

    /// The context paths the policy's hooks read, by path index (the
    /// `index` of [`crate::PathLookup::lookup`]): what a binding prepares to read
    /// a host language's objects path by path.
    pub fn context_paths(&self) -> &[crate::bytecode::path::Path] {
        &self.program.program().paths
    }

    /// Where hook `id` is written (`guard.yaml:4:5`), when the artifact
    /// kept its debug section and `id` is a hook that runs.
    pub fn hook_location(&self, id: &str) -> Option<&str> {
        let p = self.program.program();
        p.hooks
            .iter()
            .position(|h| p.string(h.id) == id)
            .and_then(|i| p.debug.hooks.get(i))
            .map(|d| p.string(d.at))
            .filter(|at| !at.is_empty())
    }

    /// What a host answer adds to a decision's reason (`attribution:` of
    /// the policy; `docs/src/semantics.md#attribution`).
    pub fn attribution(&self) -> crate::bytecode::Attribution {
        self.program.program().attribution
    }

    /// The context members the policy marks sensitive (`sensitive:`), as
    /// dotted paths (`tool_input.content`): a decision log keeps them only
    /// as a keyed hash (`docs/src/hosts/teams.md`).
    pub fn sensitive_members(&self) -> Vec<String> {
        let p = self.program.program();
        p.sensitive
            .iter()
            .filter_map(|&i| p.paths.get(i.as_usize()))
            .map(ToString::to_string)
            .collect()
    }

    /// The environment variables a hook call gives this policy as
    /// `env.NAME` (`docs/src/semantics.md#environment-variables`): those
    /// its code reads, when it declares any; each name once, in the
    /// order of the paths table.
    pub fn environment_names(&self) -> Vec<&str> {
        let p = self.program.program();
        if !p.reads_environment {
            return Vec::new();
        }
        let mut names: Vec<&str> = Vec::new();
        for path in &p.paths {
            if path.root_name() != crate::bytecode::ENV_ROOT {
                continue;
            }
            if let Some(crate::bytecode::path::Segment::Field(name)) = path.segments().first() {
                if !names.contains(&name.as_str()) {
                    names.push(name);
                }
            }
        }
        names
    }

    /// Whether some hook awaits a result (`Effect::Await`: `run`,
    /// `test_path`, or an action only a host performs), so that an
    /// evaluation may pause for one.
    pub fn awaits(&self) -> bool {
        self.awaiting_hook_ids().next().is_some()
    }

    /// The ids of the hooks that await a result (a [`Results`] entry is
    /// for one of them), in evaluation order.
    pub fn awaiting_hook_ids(&self) -> impl Iterator<Item = &str> {
        let p = self.program.program();
        p.hooks
            .iter()
            .filter(move |h| p.action(h.action).is_none_or(|a| a.effect == Effect::Await))
            .map(move |h| p.string(h.id))
    }

    /// The ids of the hooks the policy leaves out (disabled, or replaced
    /// by a hook of a higher layer): known to [`Policy::overrides`], never
    /// run.
    pub fn absent_hook_ids(&self) -> impl Iterator<Item = &str> {
        let p = self.program.program();
        p.absent.iter().map(move |a| p.string(a.id))
    }

    /// Overrides switching off the hooks with these ids. Switching off a
    /// hook the policy leaves out ([`Policy::absent_hook_ids`]) does
    /// nothing; an id the policy does not know is an error (the first
    /// one). [`Policy::overrides_lenient`] ignores such ids instead.
    pub fn overrides<'i, I: IntoIterator<Item = &'i str>>(
        &self,
        ids: I,
    ) -> Result<Overrides, UnknownHook> {
        let (overrides, unknown) = self.overrides_lenient(ids);
        match unknown.first() {
            Some(id) => Err(UnknownHook((*id).to_owned())),
            None => Ok(overrides),
        }
    }

    /// Overrides switching off the hooks with these ids, ignoring the ids
    /// the policy does not know (a host whose run overrides treat an
    /// unknown id as a no-op, as Meerkat's do); returns them too, in the
    /// order given, so the host can still report them.
    pub fn overrides_lenient<'i, I: IntoIterator<Item = &'i str>>(
        &self,
        ids: I,
    ) -> (Overrides, Vec<&'i str>) {
        let p = self.program.program();
        let mut disabled = HookSet::EMPTY;
        let mut unknown = Vec::new();
        for id in ids {
            match p.hooks.iter().position(|h| p.string(h.id) == id) {
                Some(pos) => disabled.insert(pos, p.hooks.len()),
                None if self.absent_hook_ids().any(|a| a == id) => {}
                None => unknown.push(id),
            }
        }
        (Overrides { disabled }, unknown)
    }

    /// The decision for `event`: the one-line form of
    /// `policy.query(event, ctx).decision()` for a context that is already
    /// a `serde_json::Value` (which cannot fail to read; the error is a
    /// [`QueryError::Action`]).
    pub fn evaluate(&self, event: &str, ctx: &Value) -> Result<Decision<'_>, QueryError> {
        if self.general {
            return self.query(event, ctx).decision();
        }
        crate::context::path_cache!(cache, &self.paths, Source::Document(ctx));
        self.decision(event, &mut cache, &Overrides::NONE)
    }

    /// An evaluation of `event` against `context` (a `&serde_json::Value`,
    /// or JSON text through [`Context::json`]), to be narrowed with
    /// [`Query::with_overrides`] and asked for the decision, the terminal
    /// match alone, its hook's id, every match, or an explain trace.
    #[inline]
    pub fn query<'p, 'c>(
        &'p self,
        event: &'c str,
        context: impl Into<Context<'c>>,
    ) -> Query<'p, 'c> {
        Query::new(self, event, context.into())
    }

    fn hook_id(&self, hook: u32) -> &str {
        let p = self.program.program();
        p.hooks.get(hook as usize).map_or("", |h| p.string(h.id))
    }

    /// Whether hook `h`'s action is collected rather than terminal.
    #[inline]
    fn is_collected(&self, h: u32) -> bool {
        self.collected.contains(h)
    }

    // PERF: the no-match path allocates nothing: `for_event` borrows the
    // plan, `eval_hook` keeps its stack inline, the cache is on our stack.
    /// The first matching hook of `event` whose action is terminal, by
    /// index. Collected hooks cannot change which one that is, so they are
    /// skipped without running.
    #[inline]
    fn first<'p: 'c, 'c>(
        &'p self,
        event: &str,
        cache: &mut PathCache<'c>,
        overrides: &Overrides,
    ) -> Option<u32> {
        self.each_match(event, cache, overrides, true, |_, _| true)
    }

    /// The collected matches up to the first terminal match, and that match.
    fn decision<'p: 'c, 'c>(
        &'p self,
        event: &str,
        cache: &mut PathCache<'c>,
        overrides: &Overrides,
    ) -> Result<Decision<'p>, QueryError> {
        if self.collected.is_empty() {
            // Terminal actions only: the decision is the first match.
            let terminal = self
                .first(event, cache, overrides)
                .map(|h| self.matched(h, cache))
                .transpose()?;
            return Ok(Decision {
                terminal,
                ..Decision::default()
            });
        }
        // A collected action that fails its checks is reported and skipped
        // (it must not lose a later terminal match); a terminal one fails
        // the evaluation (`docs/src/semantics.md#hook-errors`).
        let mut decision = Decision::default();
        let mut failed = None;
        self.each_match(event, cache, overrides, false, |h, cache| {
            match self.matched(h, cache) {
                Err(QueryError::Action(e)) if self.is_collected(h) => {
                    decision.errors.push(HookFailure {
                        hook: self.hook_id(h).to_owned(),
                        cause: e.to_string(),
                    })
                }
                Err(e) => failed = Some(e),
                Ok(m) if self.is_collected(h) => decision.collected.push(m),
                Ok(m) => decision.terminal = Some(m),
            }
            failed.is_some() || decision.terminal.is_some()
        });
        failed.map_or(Ok(decision), Err)
    }

    /// Every matching hook of `event`, in evaluation order, with its
    /// action; the first action that fails its checks fails them all.
    fn all<'p: 'c, 'c>(
        &'p self,
        event: &str,
        cache: &mut PathCache<'c>,
        overrides: &Overrides,
    ) -> Result<Vec<Match<'p>>, QueryError> {
        let mut out = Vec::new();
        let mut failed = None;
        self.each_match(event, cache, overrides, false, |h, cache| {
            match self.matched(h, cache) {
                Ok(m) => out.push(m),
                Err(e) => failed = Some(e),
            }
            failed.is_some()
        });
        failed.map_or(Ok(out), Err)
    }

    /// Calls `stop` on each hook of `event` whose condition is `true`, in
    /// evaluation order, until it returns `true`; returns that hook. Hooks
    /// that the event's plan proves cannot match (see `accel::dispatch`)
    /// are skipped without running, and so are collected hooks when
    /// `terminal_only`; every other hook runs in full, so the matches are
    /// exactly those of evaluating the hooks one by one.
    #[inline(always)]
    fn each_match<'p: 'c, 'c>(
        &'p self,
        event: &str,
        cache: &mut PathCache<'c>,
        overrides: &Overrides,
        terminal_only: bool,
        mut stop: impl FnMut(u32, &mut PathCache<'c>) -> bool,
    ) -> Option<u32> {
        // Loop-invariant: a policy without collected hooks never asks.
        let skip_collected = terminal_only && !self.collected.is_empty();
        let skip = |h: u32| skip_collected && self.is_collected(h);
        let plan = self.plans.for_event(&self.program, &self.shapes, event);
        for step in plan.steps() {
            match *step {
                Step::Hook(h) => {
                    if !skip(h) && self.try_hook(h, cache, overrides) && stop(h, cache) {
                        return Some(h);
                    }
                }
                Step::Dispatch { path, table } => {
                    // Only hooks requiring the path's actual value can match
                    // (see `dispatch`); they run in full, in order.
                    let value = cache.get(path);
                    let candidates = plan.table(table).map_or(&[][..], |t| t.candidates(value));
                    for &h in candidates {
                        if !skip(h) && self.try_hook(h, cache, overrides) && stop(h, cache) {
                            return Some(h);
                        }
                    }
                }
                // The plan's only step.
                Step::Index(index) => {
                    let index = plan.index(index)?;
                    return self.each_candidate(index, cache, overrides, skip_collected, stop);
                }
            }
        }
        None
    }

    /// [`Policy::each_match`] over the candidates of hook index `index`:
    /// only hooks keyed by the indexed paths' actual values, and those keyed
    /// on none, can match (see `accel::index`); they run in full, in order.
    // PERF: out of line, and handed `stop` by value (no closure of the
    // caller needs an address), so that the loop over a plan's steps, which
    // every small policy takes, keeps its registers (callgrind: otherwise
    // the seed evaluations took ~2% more instructions).
    #[inline(never)]
    fn each_candidate<'p: 'c, 'c>(
        &'p self,
        index: &'p HookIndex,
        cache: &mut PathCache<'c>,
        overrides: &Overrides,
        skip_collected: bool,
        mut stop: impl FnMut(u32, &mut PathCache<'c>) -> bool,
    ) -> Option<u32> {
        let skip = |h: u32| skip_collected && self.is_collected(h);
        index.find_candidate(
            cache,
            |cache, path| cache.get(path),
            |cache, h| !skip(h) && self.try_hook(h, cache, overrides) && stop(h, cache),
        )
    }

    #[inline]
    fn try_hook<'p: 'c, 'c>(
        &'p self,
        h: u32,
        cache: &mut PathCache<'c>,
        overrides: &Overrides,
    ) -> bool {
        if overrides.is_disabled(h) {
            return false;
        }
        match self.conjunctions.get(h as usize) {
            Some(Some(leaves)) => vm::conjunction_holds(&self.program, leaves, cache),
            _ => matches!(
                vm::eval_hook(&self.program, h, cache, None),
                Val::Bool(true)
            ),
        }
    }

    fn matched<'p: 'c, 'c>(
        &'p self,
        hook: u32,
        cache: &mut PathCache<'c>,
    ) -> Result<Match<'p>, QueryError> {
        let (id, action) = self.matched_with(hook, cache, &mut JsonSink)?;
        Ok(Match {
            hook: id,
            action: match action {
                Value::Object(map) => map,
                // (`JsonSink` ends every object as one.)
                _ => Map::new(),
            },
        })
    }

    /// Hook `hook`'s id and its action filled into `sink` (an empty object
    /// for a hook index out of range, which a verified plan never gives).
    fn matched_with<'p: 'c, 'c, S: ActionSink>(
        &'p self,
        hook: u32,
        cache: &mut PathCache<'c>,
        sink: &mut S,
    ) -> Result<(&'p str, S::Value), QueryError> {
        let p = self.program.program();
        let entry = p.hooks.get(hook as usize);
        let id = entry.map_or("", |h| p.string(h.id));
        let action = match entry {
            Some(h) => vm::fill_action_with(&self.program, id, h.action, cache, sink)?,
            None => {
                let empty = sink.object(0);
                sink.end_object(empty)
            }
        };
        Ok((id, action))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn policy_is_send_and_sync() {
        fn assert_send_sync<T: Send + Sync>() {}
        assert_send_sync::<Policy>();
    }
}

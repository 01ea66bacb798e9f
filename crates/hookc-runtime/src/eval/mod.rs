//! The runtime library (SPEC §6): what an application embeds to evaluate
//! events against a compiled policy.
//!
//! A [`Policy`] is loaded from artifact bytes (decoded and verified first) or
//! compiled from sources (checked, lowered and verified the same way), then
//! evaluates events: the hooks of the event in evaluation order, the first
//! whose condition is `true` wins, and only that hook's templates are filled.
//!
//! A `Policy` is immutable, `Send + Sync`, and can be shared across threads.
//! Evaluation allocates nothing on the heap until a hook matches (the operand
//! stack and the path cache live on the call stack; see
//! [`crate::context::INLINE_PATHS`]).

use crate::accel::dispatch::{Plans, Step};
use crate::bytecode::{HookDebug, Op, Program};
use crate::context::json_text::PathTrie;
use crate::context::{PathCache, PathPlan, Source};
use crate::eval::value::{EvalError, Val};
use crate::eval::vm::ErrorSite;
use crate::verify::VerifiedProgram;
use serde_json::{Map, Value};
use thiserror::Error;

pub mod value;
pub mod vm;

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
        let mut m = Map::new();
        m.insert("hook".into(), Value::from(self.hook));
        m.insert("action".into(), Value::Object(self.action.clone()));
        Value::Object(m)
    }
}

/// Hooks switched off for some evaluations (like seed 004's run overrides),
/// resolved to hook positions once.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Overrides {
    /// One bit per hook of the program.
    disabled: Vec<u64>,
}

impl Overrides {
    fn is_disabled(&self, hook: u32) -> bool {
        let (word, bit) = ((hook / 64) as usize, hook % 64);
        self.disabled.get(word).is_some_and(|w| w & (1 << bit) != 0)
    }
}

/// What happened to one hook of an event in an explained evaluation.
#[derive(Debug, Clone, PartialEq)]
pub enum Outcome {
    /// Its condition was `true` (or it has none).
    Matched,
    /// Its condition was `false`.
    NotMatched,
    /// Its condition ended in an error value: it does not match.
    Error {
        /// The error.
        error: EvalError,
        /// What the failing instruction was doing, e.g. "reading `error.headers`".
        at: Option<String>,
    },
    /// Its condition gave a value that is not a bool: it does not match.
    NotBool(Value),
    /// Switched off by the call's [`Overrides`].
    Disabled,
}

/// One hook's line in a [`Trace`].
#[derive(Debug, Clone, PartialEq)]
pub struct HookTrace {
    /// The hook's id.
    pub hook: String,
    /// Its priority.
    pub priority: i64,
    /// Its description, if any.
    pub description: Option<String>,
    /// Where it is in the sources (`file:line:col`), when the policy kept
    /// debug information (policies compiled from sources, and artifacts not
    /// written with `--strip`).
    pub at: Option<String>,
    /// What happened.
    pub outcome: Outcome,
    /// With debug information: its sub-conditions in the order they ran
    /// (short-circuiting skips some). The last one decided the outcome.
    pub evaluated: Vec<SubCondition>,
    /// Without debug information: every context path its condition reads,
    /// with the value found.
    pub reads: Vec<Read>,
}

/// A sub-condition that ran in an explained hook: an operand of `&&`, `||`,
/// `!` or `?:` that is none of those itself.
#[derive(Debug, Clone, PartialEq)]
pub struct SubCondition {
    /// Its canonical `when` text.
    pub condition: String,
    /// Where it is in the sources, `file:line:col`.
    pub at: String,
    /// Its value; an error value is `Err`.
    pub result: Result<Value, EvalError>,
    /// The context paths it reads, with the values found.
    pub reads: Vec<Read>,
}

/// A context path a condition reads, and what the context holds there.
#[derive(Debug, Clone, PartialEq)]
pub struct Read {
    /// The path, as written in policies.
    pub path: String,
    /// The value found; `None` when the path does not resolve.
    pub value: Option<Value>,
}

/// Every hook of an event, in evaluation order, with what happened to it.
#[derive(Debug, Clone, PartialEq)]
pub struct Trace {
    /// The event.
    pub event: String,
    /// The hooks of the event, in evaluation order (all of them are evaluated).
    pub hooks: Vec<HookTrace>,
    /// Position in `hooks` of the first match: the one `evaluate` returns.
    pub winner: Option<usize>,
    /// The policy's other hooks, skipped because they listen to other
    /// events (counted, not listed).
    pub other_events: usize,
}

/// A loaded, verified policy.
#[derive(Debug)]
pub struct Policy {
    program: VerifiedProgram,
    trie: PathTrie,
    plans: Plans,
    paths: PathPlan,
    /// Per hook: its leaves when its condition is a flat `&&` chain of
    /// context leaves (evaluated without the interpreter; same semantics).
    conjunctions: Vec<Option<Vec<crate::bytecode::Op>>>,
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
        let plans = Plans::new(program.program());
        let paths = PathPlan::new(&program.program().paths);
        let p = program.program();
        let conjunctions = p
            .hooks
            .iter()
            .map(|h| {
                p.code
                    .get(h.code.0 as usize..h.code.1 as usize)
                    .and_then(vm::flat_conjunction)
            })
            .collect();
        Policy {
            program,
            trie,
            plans,
            paths,
            conjunctions,
        }
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

    /// Overrides switching off the hooks with these ids.
    pub fn overrides<'i, I: IntoIterator<Item = &'i str>>(
        &self,
        ids: I,
    ) -> Result<Overrides, UnknownHook> {
        let p = self.program.program();
        let mut disabled = vec![0u64; p.hooks.len().div_ceil(64)];
        for id in ids {
            let pos = p
                .hooks
                .iter()
                .position(|h| p.string(h.id) == id)
                .ok_or_else(|| UnknownHook(id.to_owned()))?;
            if let Some(word) = disabled.get_mut(pos / 64) {
                *word |= 1 << (pos % 64);
            }
        }
        Ok(Overrides { disabled })
    }

    /// The first match for `event` with the context as a `serde_json::Value`.
    pub fn evaluate(&self, event: &str, ctx: &Value) -> Option<Match<'_>> {
        self.evaluate_with(event, ctx, &Overrides::default())
    }

    /// [`Policy::evaluate`] with some hooks switched off.
    pub fn evaluate_with(
        &self,
        event: &str,
        ctx: &Value,
        overrides: &Overrides,
    ) -> Option<Match<'_>> {
        let mut cache = PathCache::with_plan(&self.paths, Source::Document(ctx));
        let hook = self.first(event, &mut cache, overrides)?;
        Some(self.matched(hook, &mut cache))
    }

    /// The id of the first matching hook, without building its action: the
    /// decision alone, on the same path as [`Policy::evaluate`] (for callers
    /// that only route on the hook, and for measuring the decision apart
    /// from template filling).
    pub fn decide(&self, event: &str, ctx: &Value) -> Option<&str> {
        let mut cache = PathCache::with_plan(&self.paths, Source::Document(ctx));
        let hook = self.first(event, &mut cache, &Overrides::default())?;
        Some(self.hook_id(hook))
    }

    /// [`Policy::decide`] with the context as JSON text.
    pub fn decide_json(&self, event: &str, json: &[u8]) -> Result<Option<&str>, ContextError> {
        let paths = &self.program.program().paths;
        let values = self.trie.extract(paths, json)?;
        let mut cache = PathCache::with_plan(&self.paths, Source::Extracted(&values));
        let hook = self.first(event, &mut cache, &Overrides::default());
        Ok(hook.map(|h| self.hook_id(h)))
    }

    fn hook_id(&self, hook: u32) -> &str {
        let p = self.program.program();
        p.hooks.get(hook as usize).map_or("", |h| p.string(h.id))
    }

    /// The first match for `event` with the context as JSON text: one pass
    /// over the text extracts only the paths the policy reads.
    pub fn evaluate_json(
        &self,
        event: &str,
        json: &[u8],
    ) -> Result<Option<Match<'_>>, ContextError> {
        self.evaluate_json_with(event, json, &Overrides::default())
    }

    /// [`Policy::evaluate_json`] with some hooks switched off.
    pub fn evaluate_json_with(
        &self,
        event: &str,
        json: &[u8],
        overrides: &Overrides,
    ) -> Result<Option<Match<'_>>, ContextError> {
        let paths = &self.program.program().paths;
        let values = self.trie.extract(paths, json)?;
        let mut cache = PathCache::with_plan(&self.paths, Source::Extracted(&values));
        let hook = self.first(event, &mut cache, overrides);
        Ok(hook.map(|h| self.matched(h, &mut cache)))
    }

    /// Every match for `event`, in evaluation order (for observers).
    pub fn evaluate_all(&self, event: &str, ctx: &Value, overrides: &Overrides) -> Vec<Match<'_>> {
        let mut cache = PathCache::with_plan(&self.paths, Source::Document(ctx));
        self.all(event, &mut cache, overrides)
    }

    /// Every match for `event` from JSON text.
    pub fn evaluate_all_json(
        &self,
        event: &str,
        json: &[u8],
        overrides: &Overrides,
    ) -> Result<Vec<Match<'_>>, ContextError> {
        let paths = &self.program.program().paths;
        let values = self.trie.extract(paths, json)?;
        let mut cache = PathCache::with_plan(&self.paths, Source::Extracted(&values));
        Ok(self.all(event, &mut cache, overrides))
    }

    /// Evaluates every hook of `event` and records what happened to each.
    pub fn explain(&self, event: &str, ctx: &Value, overrides: &Overrides) -> Trace {
        let mut cache = PathCache::with_plan(&self.paths, Source::Document(ctx));
        self.trace(event, &mut cache, overrides)
    }

    /// [`Policy::explain`] from JSON text.
    pub fn explain_json(
        &self,
        event: &str,
        json: &[u8],
        overrides: &Overrides,
    ) -> Result<Trace, ContextError> {
        let paths = &self.program.program().paths;
        let values = self.trie.extract(paths, json)?;
        let mut cache = PathCache::with_plan(&self.paths, Source::Extracted(&values));
        Ok(self.trace(event, &mut cache, overrides))
    }

    // PERF: the no-match path allocates nothing: `hooks_for` borrows the
    // index, `eval_hook` keeps its stack inline, the cache is on our stack.
    /// The first matching hook of `event`, by index.
    fn first<'p: 'c, 'c>(
        &'p self,
        event: &str,
        cache: &mut PathCache<'c>,
        overrides: &Overrides,
    ) -> Option<u32> {
        for step in self.plans.for_event(event) {
            match *step {
                Step::Hook(h) => {
                    if self.try_hook(h, cache, overrides) {
                        return Some(h);
                    }
                }
                Step::Dispatch { path, table } => {
                    // Only hooks requiring the path's actual value can match
                    // (see `dispatch`); they run in full, in order.
                    let value = cache.get(path);
                    let candidates = self
                        .plans
                        .table(table)
                        .map_or(&[][..], |t| t.candidates(value));
                    for &h in candidates {
                        if self.try_hook(h, cache, overrides) {
                            return Some(h);
                        }
                    }
                }
            }
        }
        None
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
        let value = match self.conjunctions.get(h as usize) {
            Some(Some(leaves)) => vm::eval_conjunction(&self.program, leaves, cache),
            _ => vm::eval_hook(&self.program, h, cache, None),
        };
        matches!(value, Val::Bool(true))
    }

    fn all<'p: 'c, 'c>(
        &'p self,
        event: &str,
        cache: &mut PathCache<'c>,
        overrides: &Overrides,
    ) -> Vec<Match<'p>> {
        let mut out = Vec::new();
        for &h in self.program.program().hooks_for(event) {
            if overrides.is_disabled(h) {
                continue;
            }
            if let Val::Bool(true) = vm::eval_hook(&self.program, h, cache, None) {
                out.push(self.matched(h, cache));
            }
        }
        out
    }

    fn matched<'p: 'c, 'c>(&'p self, hook: u32, cache: &mut PathCache<'c>) -> Match<'p> {
        let p = self.program.program();
        let entry = p.hooks.get(hook as usize);
        Match {
            hook: entry.map_or("", |h| p.string(h.id)),
            action: entry.map_or_else(Map::new, |h| {
                vm::fill_action(&self.program, h.action, cache)
            }),
        }
    }

    fn trace<'p: 'c, 'c>(
        &'p self,
        event: &str,
        cache: &mut PathCache<'c>,
        overrides: &Overrides,
    ) -> Trace {
        let p = self.program.program();
        let mut hooks = Vec::new();
        let mut winner = None;
        for &h in p.hooks_for(event) {
            let Some(entry) = p.hooks.get(h as usize) else {
                continue;
            };
            let debug = p.debug.hooks.get(h as usize);
            let mut site = ErrorSite {
                watch: debug.map_or_else(Vec::new, |d| d.marks.iter().map(|m| m.op).collect()),
                ..ErrorSite::default()
            };
            let outcome = if overrides.is_disabled(h) {
                Outcome::Disabled
            } else {
                match vm::eval_hook(&self.program, h, cache, Some(&mut site)) {
                    Val::Bool(true) => Outcome::Matched,
                    Val::Bool(false) => Outcome::NotMatched,
                    Val::Error(error) => Outcome::Error {
                        error,
                        at: site.op.and_then(|op| self.describe_op(op)),
                    },
                    other => Outcome::NotBool(other.to_json().unwrap_or(Value::Null)),
                }
            };
            if outcome == Outcome::Matched && winner.is_none() {
                winner = Some(hooks.len());
            }
            let (evaluated, reads) = match debug {
                Some(d) => (self.steps(entry.code.0, d, site.values, cache), Vec::new()),
                None if outcome != Outcome::Disabled => {
                    (Vec::new(), self.reads(entry.code.0, entry.code.1, cache))
                }
                None => (Vec::new(), Vec::new()),
            };
            hooks.push(HookTrace {
                hook: p.string(entry.id).to_owned(),
                priority: entry.priority,
                description: entry.description.map(|d| p.string(d).to_owned()),
                at: debug.map(|d| p.string(d.at).to_owned()),
                outcome,
                evaluated,
                reads,
            });
        }
        Trace {
            event: event.to_owned(),
            other_events: p.hooks.len().saturating_sub(hooks.len()),
            hooks,
            winner,
        }
    }

    /// The sub-conditions that ran, from the values the VM recorded at their
    /// marks. A sub-condition's code is what follows the previous mark (or
    /// the hook's start) up to its own: the paths read there are its reads.
    fn steps(
        &self,
        start: u32,
        debug: &HookDebug,
        values: Vec<(u32, Result<Value, EvalError>)>,
        cache: &mut PathCache<'_>,
    ) -> Vec<SubCondition> {
        let p = self.program.program();
        values
            .into_iter()
            .filter_map(|(op, result)| {
                let k = debug.marks.binary_search_by_key(&op, |m| m.op).ok()?;
                let mark = debug.marks.get(k)?;
                let from = match k.checked_sub(1) {
                    Some(prev) => debug.marks.get(prev)?.op.saturating_add(1),
                    None => start,
                };
                Some(SubCondition {
                    condition: p.string(mark.text).to_owned(),
                    at: p.string(mark.at).to_owned(),
                    result,
                    reads: self.reads(from, op.saturating_add(1), cache),
                })
            })
            .collect()
    }

    /// The context paths read by the code in `[from, to)`, each once, with
    /// their values.
    fn reads(&self, from: u32, to: u32, cache: &mut PathCache<'_>) -> Vec<Read> {
        let p = self.program.program();
        let code = p.code.get(from as usize..to as usize).unwrap_or_default();
        let mut seen: Vec<u32> = Vec::new();
        for op in code {
            if let Op::Path(i)
            | Op::HasPath(i)
            | Op::PathCmpConst { path: i, .. }
            | Op::PathInSet { path: i, .. }
            | Op::PathMatches { path: i, .. } = *op
            {
                if !seen.contains(&i) {
                    seen.push(i);
                }
            }
        }
        seen.into_iter()
            .filter_map(|i| {
                Some(Read {
                    path: p.paths.get(i as usize)?.to_string(),
                    value: cache.get(i).cloned(),
                })
            })
            .collect()
    }

    /// What an instruction was doing, for explain output.
    fn describe_op(&self, op: u32) -> Option<String> {
        let p = self.program.program();
        let path = |i: u32| {
            p.paths
                .get(i as usize)
                .map(|path| format!("reading `{path}`"))
        };
        match p.code.get(op as usize)? {
            Op::Path(i)
            | Op::PathCmpConst { path: i, .. }
            | Op::PathInSet { path: i, .. }
            | Op::PathMatches { path: i, .. } => path(*i),
            Op::Field(s) | Op::HasField(s) => Some(format!("selecting `{}`", p.string(*s))),
            Op::Index => Some("indexing".to_owned()),
            Op::Add | Op::Sub | Op::Mul | Op::Div | Op::Rem | Op::Neg => {
                Some("in arithmetic".to_owned())
            }
            Op::Cmp(_) => Some("comparing".to_owned()),
            Op::MacroStart { .. } | Op::MacroNext => Some("in a list macro".to_owned()),
            other => Some(format!("at `{other:?}`")),
        }
    }
}

impl Trace {
    /// The trace as JSON: `{"event", "hooks": [{"hook", "priority", "outcome", ...}], "winner"}`.
    pub fn to_json(&self) -> Value {
        let hooks: Vec<Value> = self
            .hooks
            .iter()
            .map(|h| {
                let mut m = Map::new();
                m.insert("hook".into(), h.hook.clone().into());
                m.insert("priority".into(), h.priority.into());
                let (outcome, detail) = match &h.outcome {
                    Outcome::Matched => ("matched", None),
                    Outcome::NotMatched => ("not_matched", None),
                    Outcome::Error { error, at } => (
                        "error",
                        Some(match at {
                            Some(at) => format!("{error} {at}"),
                            None => error.to_string(),
                        }),
                    ),
                    Outcome::NotBool(v) => {
                        ("not_bool", Some(format!("condition gave {v}, not a bool")))
                    }
                    Outcome::Disabled => ("disabled", None),
                };
                m.insert("outcome".into(), outcome.into());
                if let Some(d) = detail {
                    m.insert("why".into(), d.into());
                }
                if let Some(d) = &h.description {
                    m.insert("description".into(), d.clone().into());
                }
                if let Some(at) = &h.at {
                    m.insert("at".into(), at.clone().into());
                }
                if !h.evaluated.is_empty() {
                    let evaluated = h.evaluated.iter().map(SubCondition::to_json).collect();
                    m.insert("evaluated".into(), Value::Array(evaluated));
                    m.insert("decided_by".into(), (h.evaluated.len() - 1).into());
                }
                if !h.reads.is_empty() {
                    m.insert("reads".into(), reads_json(&h.reads));
                }
                Value::Object(m)
            })
            .collect();
        let mut m = Map::new();
        m.insert("event".into(), self.event.clone().into());
        m.insert("hooks".into(), Value::Array(hooks));
        m.insert("other_events".into(), self.other_events.into());
        m.insert(
            "winner".into(),
            self.winner
                .and_then(|w| self.hooks.get(w))
                .map_or(Value::Null, |h| h.hook.clone().into()),
        );
        Value::Object(m)
    }

    /// The trace for people: one line per hook, then the result.
    pub fn to_text(&self) -> String {
        let mut out = format!(
            "event `{}`: {} hook(s); {} skipped (other events)\n",
            self.event,
            self.hooks.len(),
            self.other_events
        );
        for (i, h) in self.hooks.iter().enumerate() {
            let what = match &h.outcome {
                Outcome::Matched if Some(i) == self.winner => {
                    "matched (first match: this action is returned)".to_owned()
                }
                Outcome::Matched => "matched (an earlier hook matched first)".to_owned(),
                Outcome::NotMatched => "not matched: condition is false".to_owned(),
                Outcome::Error {
                    error,
                    at: Some(at),
                } => format!("not matched: error ({error}) {at}"),
                Outcome::Error { error, at: None } => format!("not matched: error ({error})"),
                Outcome::NotBool(v) => format!("not matched: condition gave {v}, not a bool"),
                Outcome::Disabled => "skipped: disabled for this call".to_owned(),
            };
            let at = h.at.as_deref().map_or(String::new(), |a| format!(", {a}"));
            out.push_str(&format!(
                "  {}. {} (priority {}{at}): {what}\n",
                i + 1,
                h.hook,
                h.priority
            ));
            let last = h.evaluated.len().checked_sub(1);
            for (k, c) in h.evaluated.iter().enumerate() {
                let result = match &c.result {
                    Ok(v) => v.to_string(),
                    Err(e) => format!("error ({e})"),
                };
                let decided = if Some(k) == last { "  <- decided" } else { "" };
                out.push_str(&format!(
                    "       {}  `{}` -> {result}{decided}\n",
                    c.at, c.condition
                ));
                for r in &c.reads {
                    out.push_str(&format!("           {}\n", r.to_text()));
                }
            }
            for r in &h.reads {
                out.push_str(&format!("       read {}\n", r.to_text()));
            }
        }
        match self.winner.and_then(|w| self.hooks.get(w)) {
            Some(h) => out.push_str(&format!("result: {}\n", h.hook)),
            None => out.push_str("result: no hook matched\n"),
        }
        out
    }
}

impl SubCondition {
    /// `{"condition", "at", "result" | "error", "reads"}`.
    pub fn to_json(&self) -> Value {
        let mut m = Map::new();
        m.insert("condition".into(), self.condition.clone().into());
        m.insert("at".into(), self.at.clone().into());
        match &self.result {
            Ok(v) => m.insert("result".into(), v.clone()),
            Err(e) => m.insert("error".into(), e.to_string().into()),
        };
        m.insert("reads".into(), reads_json(&self.reads));
        Value::Object(m)
    }
}

impl Read {
    /// `path = value`, or `path is missing`.
    pub fn to_text(&self) -> String {
        match &self.value {
            Some(v) => format!("{} = {v}", self.path),
            None => format!("{} is missing", self.path),
        }
    }
}

/// Reads as JSON: `[{"path", "value"}, ...]`, with `"missing": true`
/// instead of a value where the path does not resolve.
fn reads_json(reads: &[Read]) -> Value {
    Value::Array(
        reads
            .iter()
            .map(|r| {
                let mut m = Map::new();
                m.insert("path".into(), r.path.clone().into());
                match &r.value {
                    Some(v) => m.insert("value".into(), v.clone()),
                    None => m.insert("missing".into(), true.into()),
                };
                Value::Object(m)
            })
            .collect(),
    )
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

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

use crate::accel::dispatch::{PlanStep as Step, Plans};
use crate::bytecode::Program;
use crate::context::json_text::PathTrie;
use crate::context::{PathCache, PathPlan, Source};
use crate::eval::value::Val;
use crate::verify::VerifiedProgram;
use serde_json::{Map, Value};
use thiserror::Error;

mod explain;
pub mod value;
pub mod vm;

pub use explain::{HookTrace, Outcome, Read, SubCondition, Trace};

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

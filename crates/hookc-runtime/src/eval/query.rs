//! The one evaluation API: a [`Query`] on an event and its [`Context`],
//! optionally narrowed by [`Overrides`] and resumed with [`Results`], asked
//! for one of five answers.
//!
//! | answer | method | what it builds |
//! |---|---|---|
//! | the collected matches and the terminal one, templates filled | [`Query::decision`] | a [`Decision`] |
//! | the terminal match only, its action's templates filled | [`Query::first`] | one [`Match`] |
//! | the id of the deciding hook only | [`Query::decide`] | nothing |
//! | the terminal match, its action built into a host's own values | [`Query::first_with`] | what the [`ActionSink`] makes |
//! | every match, in evaluation order | [`Query::all`] | a [`Match`] per matching hook |
//! | what happened to every hook, and why | [`Query::explain`] | a [`Trace`] |
//!
//! Every answer is available for every kind of context and with or without
//! overrides, through the same code: the context is read into a path cache
//! once per answer (from a `serde_json::Value`, in one pass over JSON text
//! that extracts only the paths the policy reads, or from a host's lookup),
//! then the event's hooks run in evaluation order: through the event's plan
//! for a first-match policy, through the decision model's walk
//! (`eval/model.rs`) for a policy that uses it. The semantics are in
//! `docs/src/semantics.md`.
//!
//! ```
//! # fn demo(policy: &hookc_runtime::Policy) -> Result<(), hookc_runtime::QueryError> {
//! use hookc_runtime::Context;
//! let ctx = serde_json::json!({"classification": {"category": "rate_limited"}});
//! // The one-line form, from a Value:
//! let decision = policy.evaluate("error", &ctx)?;
//! // The same through a query, then other answers:
//! assert_eq!(policy.query("error", &ctx).decision()?, decision);
//! assert_eq!(policy.query("error", &ctx).first()?, decision.terminal);
//! let text = br#"{"classification": {"category": "rate_limited"}}"#;
//! let id = policy.query("error", Context::json(text)).decide()?;
//! let off = policy.overrides(["rate_limit_backoff"]).unwrap_or_default();
//! let trace = policy.query("error", &ctx).with_overrides(&off).explain()?;
//! # let _ = (id, trace); Ok(()) }
//! ```

use super::model::{ModelWalk, Want};
use super::vm::ActionSink;
use super::{Decision, Match, Overrides, Policy, QueryError, Results, Trace};
use crate::context::{Context, Source};
use std::borrow::Cow;

/// Reads the query's context into a path cache, then evaluates `$answer`
/// with the policy, the cache and the overrides bound to the given names.
/// (A macro rather than a closure-taking method: the cache borrows the
/// policy and the context for a lifetime local to each arm, which a
/// closure's signature cannot name.)
macro_rules! read {
    ($query:expr, |$policy:ident, $cache:ident, $overrides:ident| $answer:expr) => {{
        let query = $query;
        let $policy = query.policy;
        let $overrides = query.overrides;
        match query.context {
            Context::Value(value) => {
                crate::context::path_cache!(cache, &$policy.paths, Source::Document(value));
                let $cache = &mut cache;
                Ok($answer)
            }
            Context::Json(text) => {
                let values = $policy
                    .trie
                    .extract(&$policy.program.program().paths, text)
                    .map_err(super::ContextError::from)?;
                crate::context::path_cache!(cache, &$policy.paths, Source::Extracted(&values));
                let $cache = &mut cache;
                Ok($answer)
            }
            Context::Lookup(lookup) => {
                crate::context::looked_up!(values, &$policy.program.program().paths, lookup);
                crate::context::path_cache!(cache, &$policy.paths, Source::LookedUp(&values));
                let $cache = &mut cache;
                Ok($answer)
            }
        }
    }};
}

/// What [`Query::first_with`] answers: the deciding hook's position in
/// [`Policy::hook_ids`](crate::Policy::hook_ids), its id and its action as
/// the sink built it; `None` when no terminal hook matches.
pub type BuiltMatch<'p, V> = Option<(usize, &'p str, V)>;

/// No hook switched off: the overrides of a query until
/// [`Query::with_overrides`].
static NO_OVERRIDES: Overrides = Overrides::NONE;

/// An evaluation of one event against one policy: built by
/// [`Policy::query`], narrowed by [`Query::with_overrides`], answered by
/// [`Query::first`], [`Query::decide`], [`Query::all`] or
/// [`Query::explain`]. Cheap to build and to copy; answering it twice
/// evaluates twice.
#[derive(Debug, Clone, Copy)]
#[must_use = "a query does nothing until it is answered (first, decide, all, explain)"]
pub struct Query<'p, 'c> {
    policy: &'p Policy,
    event: &'c str,
    context: Context<'c>,
    overrides: &'c Overrides,
    results: Option<&'c Results>,
}

impl<'p, 'c> Query<'p, 'c> {
    #[inline]
    pub(super) fn new(policy: &'p Policy, event: &'c str, context: Context<'c>) -> Query<'p, 'c> {
        Query {
            policy,
            event,
            context,
            overrides: &NO_OVERRIDES,
            results: None,
        }
    }

    /// The same query resuming awaited hooks with the host's results
    /// (`docs/src/semantics.md#resumable-decisions`): a matching awaited
    /// hook with a result binds it and evaluation goes on; one without
    /// suspends the evaluation ([`Decision::pending`]).
    #[inline]
    pub fn with_results(self, results: &'c Results) -> Query<'p, 'c> {
        Query {
            results: Some(results),
            ..self
        }
    }

    /// The decision model's walk, for a policy that uses it.
    // PERF: out of line and cold, so that the first-match answers, which
    // only test `general`, keep their code and registers (callgrind: inlined,
    // it cost a seed decide about 13 instructions).
    #[cold]
    #[inline(never)]
    fn walk(&self, want: Want) -> Result<ModelWalk<'p, 'c>, QueryError> {
        let context = self.context;
        read!(self, |policy, cache, overrides| ModelWalk::new(
            policy,
            self.event,
            overrides,
            self.results,
            want
        )
        .run(cache, context)?)
    }

    /// The same query with some hooks switched off (see
    /// [`Policy::overrides`]): they neither match nor run.
    #[inline]
    pub fn with_overrides(self, overrides: &'c Overrides) -> Query<'p, 'c> {
        Query { overrides, ..self }
    }

    /// What the evaluation decided: the matches of collected actions in
    /// evaluation order up to the first match of a terminal action, and
    /// that match (`docs/src/semantics.md#action-effects`), templates filled.
    #[inline]
    pub fn decision(&self) -> Result<Decision<'p>, QueryError> {
        if self.policy.general {
            return Ok(self.walk(Want::Decision)?.decision);
        }
        read!(self, |policy, cache, overrides| policy
            .decision(self.event, cache, overrides)?)
    }

    /// The first matching hook in evaluation order whose action is
    /// terminal (the decision without the collected actions), with its
    /// action's templates filled; `None` when no terminal hook matches. In
    /// a policy without collected actions, simply the first match.
    #[inline]
    pub fn first(&self) -> Result<Option<Match<'p>>, QueryError> {
        if self.policy.general {
            return Ok(self.walk(Want::Decision)?.decision.terminal);
        }
        read!(self, |policy, cache, overrides| policy
            .first(self.event, cache, overrides)
            .map(|hook| policy.matched(hook, cache))
            .transpose()?)
    }

    /// The id of the hook [`Query::first`] would return, without building
    /// its action: the decision alone, on the same path. (So the action's
    /// parameter checks do not run: where `first` fails with
    /// [`QueryError::Action`], `decide` still names the hook.) A policy that
    /// uses the decision model (`docs/src/semantics.md#transforms` and after)
    /// decides by its walk, which fills the actions it needs.
    #[inline]
    pub fn decide(&self) -> Result<Option<&'p str>, QueryError> {
        if self.policy.general {
            return self.walk_decide();
        }
        read!(self, |policy, cache, overrides| policy
            .first(self.event, cache, overrides)
            .map(|hook| policy.hook_id(hook)))
    }

    /// [`Query::decide`] as the deciding hook's position in
    /// [`Policy::hook_ids`](crate::Policy::hook_ids): a binding that keeps
    /// its language's string of each id answers with it, allocating
    /// nothing.
    #[inline]
    pub fn decide_position(&self) -> Result<Option<usize>, QueryError> {
        if self.policy.general {
            let id = self.walk_decide()?;
            return Ok(id.and_then(|id| self.policy.hook_ids().position(|h| h == id)));
        }
        read!(self, |policy, cache, overrides| policy
            .first(self.event, cache, overrides)
            .map(|hook| hook as usize))
    }

    /// Whether [`Query::decision`] is [`Query::first`]'s match alone,
    /// whatever the context: the policy has no collected actions and does
    /// not use the decision model. Then a binding may answer the decision
    /// with [`Query::first_with`].
    #[inline]
    pub fn decision_is_first(&self) -> bool {
        !self.policy.general && self.policy.collected.is_empty()
    }

    /// [`Query::first`], the action built into `sink`'s values (an object,
    /// from the same filling as [`Query::first`]'s `serde_json` map), the
    /// hook as its position in [`Policy::hook_ids`](crate::Policy::hook_ids)
    /// and its id:
    /// a host language's objects made once, with no `serde_json` value in
    /// between to convert and free.
    #[inline]
    pub fn first_with<S: ActionSink>(
        &self,
        sink: &mut S,
    ) -> Result<BuiltMatch<'p, S::Value>, QueryError> {
        if self.policy.general {
            return self.walk_first_with(sink);
        }
        read!(
            self,
            |policy, cache, overrides| match policy.first(self.event, cache, overrides) {
                Some(hook) => {
                    let (id, action) = policy.matched_with(hook, cache, sink)?;
                    Some((hook as usize, id, action))
                }
                None => None,
            }
        )
    }

    /// [`Query::first_with`] by the decision model's walk, which fills the
    /// actions it needs as `serde_json` maps: the terminal one is handed to
    /// the sink as it is.
    #[cold]
    #[inline(never)]
    fn walk_first_with<S: ActionSink>(
        &self,
        sink: &mut S,
    ) -> Result<BuiltMatch<'p, S::Value>, QueryError> {
        let terminal = self.walk(Want::Decision)?.decision.terminal;
        Ok(terminal.and_then(|m| {
            let position = self.policy.hook_ids().position(|h| h == m.hook)?;
            let action = serde_json::Value::Object(m.action);
            Some((position, m.hook, sink.json(Cow::Owned(action))))
        }))
    }

    /// [`Query::decide`] by the decision model's walk.
    #[cold]
    #[inline(never)]
    fn walk_decide(&self) -> Result<Option<&'p str>, QueryError> {
        let terminal = self.walk(Want::Decision)?.decision.terminal;
        Ok(terminal.map(|m| m.hook))
    }

    /// Every matching hook, in evaluation order, each with its action's
    /// templates filled, whatever its effect: past terminal matches too.
    #[inline]
    pub fn all(&self) -> Result<Vec<Match<'p>>, QueryError> {
        if self.policy.general {
            return Ok(self.walk(Want::All)?.all);
        }
        read!(self, |policy, cache, overrides| policy
            .all(self.event, cache, overrides)?)
    }

    /// Every hook of the event in evaluation order and what happened to it
    /// (matched, not matched, error, disabled), with the sub-conditions that
    /// ran and the context values they read.
    pub fn explain(&self) -> Result<Trace, QueryError> {
        if self.policy.general {
            return Ok(self.walk(Want::Trace)?.into_trace(self.event));
        }
        read!(self, |policy, cache, overrides| policy
            .trace(self.event, cache, overrides))
    }
}

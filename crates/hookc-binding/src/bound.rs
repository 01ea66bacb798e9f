//! A policy as a binding holds it: the four [`Question`]s answered as the
//! JSON `hookc eval` prints, hook ids switched off with a did-you-mean, and
//! the events no hook listens to answered without reading the context.

use crate::error::BindingError;
use hookc_runtime::{ActionSink, Context, Overrides, Policy, Query, QueryError, Results};
use serde_json::Value;
use std::collections::HashMap;

/// What a binding asks of a policy, each answered as the JSON the `hookc`
/// command prints for it.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Question {
    /// The decision: `hookc eval` (`null`, `{"hook", "action"}`, or with
    /// collected matches and the decision model's parts).
    Evaluate,
    /// The deciding hook's id, or `null`: builds no action.
    Decide,
    /// Every match in evaluation order: `hookc eval --all`.
    All,
    /// The trace: `hookc eval --explain --format json`.
    Explain,
}

impl Question {
    /// The answer when no hook listens to the event: known without
    /// evaluating (`None` for a trace, which is built all the same).
    pub fn unheard(self) -> Option<Value> {
        match self {
            Question::Evaluate | Question::Decide => Some(Value::Null),
            Question::All => Some(Value::Array(Vec::new())),
            Question::Explain => None,
        }
    }

    /// The answer to `query`.
    pub fn ask(self, query: Query<'_, '_>) -> Result<Value, QueryError> {
        match self {
            Question::Evaluate => query.decision().map(|d| d.into_json()),
            Question::Decide => query.decide().map(|id| id.map_or(Value::Null, Value::from)),
            Question::All => query
                .all()
                .map(|all| Value::Array(all.into_iter().map(|m| m.into_json()).collect())),
            Question::Explain => query.explain().map(|t| t.to_json()),
        }
    }
}

/// What narrows one call: hooks switched off, results of awaited hooks
/// (`docs/src/semantics.md#resumable-decisions`).
#[derive(Debug, Default)]
pub struct Narrowing {
    /// The hooks switched off ([`BoundPolicy::overrides`]).
    pub overrides: Overrides,
    /// The awaited hooks' results, by hook id.
    pub results: Results,
}

/// Why a result for `id` cannot be read: `id` is no hook of `policy` (a
/// typo would leave the decision pending, silently:
/// `docs/src/semantics.md#resumable-decisions`), with the closest id of a
/// hook that awaits one. A result for a hook that awaits none, or that the
/// policy leaves out, is read by nothing and is no error (a host may hand
/// the same results to several policies).
pub fn unknown_result(policy: &Policy, id: &str) -> Option<String> {
    if policy
        .hook_ids()
        .chain(policy.absent_hook_ids())
        .any(|h| h == id)
    {
        return None;
    }
    let close = hookc::suggest::did_you_mean(id, policy.awaiting_hook_ids())
        .or_else(|| hookc::suggest::did_you_mean(id, policy.hook_ids()))
        .map(|c| format!("; did you mean `{c}`?"))
        .unwrap_or_default();
    Some(format!(
        "a result is given for `{id}`, which is no hook of the policy{close}"
    ))
}

impl Narrowing {
    /// The results of awaited hooks from a JSON object of them by hook id,
    /// each for a hook of `policy` ([`unknown_result`]).
    pub fn results_from(policy: &Policy, value: Value) -> Result<Results, BindingError> {
        let results = match value {
            Value::Null => Results::new(),
            Value::Object(map) => Results::from(map),
            _ => {
                return Err(BindingError::Argument(
                    "`results` is an object of awaited hooks' results by hook id".to_owned(),
                ))
            }
        };
        let why = results.ids().find_map(|id| unknown_result(policy, id));
        match why {
            Some(why) => Err(BindingError::Argument(why)),
            None => Ok(results),
        }
    }
}

/// [`Question::Evaluate`]'s answer with the deciding action built into a
/// binding's own values ([`BoundPolicy::evaluate_with`]).
#[derive(Debug, Clone, PartialEq)]
pub enum Evaluated<'p, V> {
    /// The decision is the terminal match alone: the deciding hook's
    /// position in the policy's hook ids, its id and its action, or `None` when no
    /// hook decides (the JSON answer `{"hook": ID, "action": ACTION}`, or
    /// `null`).
    Built(Option<(usize, &'p str, V)>),
    /// A decision that may have other parts (collected matches, the
    /// decision model's), as the JSON `hookc eval` prints.
    Json(Value),
}

/// A loaded policy and what a binding needs of it, prepared once.
#[derive(Debug)]
pub struct BoundPolicy {
    policy: Policy,
    /// The event names hooks name, to their position in `event_names`.
    events: HashMap<String, usize>,
    event_names: Vec<String>,
    /// Whether some hook listens to every event (`"*"`).
    every_event: bool,
}

impl BoundPolicy {
    /// Prepares `policy` for a binding.
    pub fn new(policy: Policy) -> BoundPolicy {
        let event_names: Vec<String> = policy.event_names().map(str::to_owned).collect();
        let events = event_names
            .iter()
            .enumerate()
            .map(|(i, name)| (name.clone(), i))
            .collect();
        let every_event = policy.every_event_hooks() > 0;
        BoundPolicy {
            policy,
            events,
            event_names,
            every_event,
        }
    }

    /// Loads artifact bytes (decoded and verified).
    pub fn from_artifact(bytes: &[u8]) -> Result<BoundPolicy, BindingError> {
        Policy::from_artifact(bytes)
            .map(BoundPolicy::new)
            .map_err(BindingError::Artifact)
    }

    /// The policy.
    pub fn policy(&self) -> &Policy {
        &self.policy
    }

    /// The event names hooks name.
    pub fn event_names(&self) -> &[String] {
        &self.event_names
    }

    /// The position of `event` in [`BoundPolicy::event_names`], if a hook
    /// names it.
    pub fn event_position(&self, event: &str) -> Option<usize> {
        self.events.get(event).copied()
    }

    /// Whether no hook runs for `event`: no hook names it and none listens
    /// to every event. Its answer is [`Question::unheard`], whatever the
    /// context (a binding need not read it).
    pub fn unheard(&self, event: &str) -> bool {
        !self.every_event && !self.events.contains_key(event)
    }

    /// Overrides switching off the hooks `ids`; an id the policy does not
    /// know is an error naming the closest one it does.
    pub fn overrides<'i>(
        &self,
        ids: impl IntoIterator<Item = &'i str>,
    ) -> Result<Overrides, BindingError> {
        self.policy.overrides(ids).map_err(|e| {
            let known = self.policy.hook_ids().chain(self.policy.absent_hook_ids());
            BindingError::Argument(match hookc::suggest::did_you_mean(&e.0, known) {
                Some(close) => format!("{e}; did you mean `{close}`?"),
                None => e.to_string(),
            })
        })
    }

    /// The answer to `question` on `event` against `context`, narrowed.
    pub fn answer(
        &self,
        question: Question,
        event: &str,
        context: Context<'_>,
        narrowing: &Narrowing,
    ) -> Result<Value, BindingError> {
        Ok(question.ask(self.query(event, context, narrowing))?)
    }

    /// [`Question::Evaluate`], with the deciding action built into `sink`
    /// when the decision is the terminal match alone (a policy with no
    /// collected actions that does not use the decision model): a binding
    /// makes its language's objects once, with no JSON value in between.
    pub fn evaluate_with<S: ActionSink>(
        &self,
        event: &str,
        context: Context<'_>,
        narrowing: &Narrowing,
        sink: &mut S,
    ) -> Result<Evaluated<'_, S::Value>, BindingError> {
        let query = self.query(event, context, narrowing);
        if query.decision_is_first() {
            return Ok(Evaluated::Built(query.first_with(sink)?));
        }
        Ok(Evaluated::Json(Question::Evaluate.ask(query)?))
    }

    /// The deciding hook's position in the policy's hook ids (what
    /// [`Question::Decide`] names), for a binding that answers with its
    /// own string of each id.
    pub fn decide_position(
        &self,
        event: &str,
        context: Context<'_>,
        narrowing: &Narrowing,
    ) -> Result<Option<usize>, BindingError> {
        Ok(self.query(event, context, narrowing).decide_position()?)
    }

    /// The query of `event` on `context`, narrowed as the call asks.
    fn query<'p, 'c>(
        &'p self,
        event: &'c str,
        context: Context<'c>,
        narrowing: &'c Narrowing,
    ) -> Query<'p, 'c> {
        self.policy
            .query(event, context)
            .with_overrides(&narrowing.overrides)
            .with_results(&narrowing.results)
    }

    /// A summary of the policy for a binding's `repr`: `3 hooks`.
    pub fn describe(&self) -> String {
        let n = self.policy.hook_count();
        format!("{n} hook{}", if n == 1 { "" } else { "s" })
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::compile::compile_texts;
    use crate::error::ErrorKind;
    use hookc_runtime::JsonSink;

    fn bound(text: &str) -> BoundPolicy {
        match compile_texts([("hooks.yaml".to_owned(), text.to_owned())]) {
            Ok(c) => BoundPolicy::new(c.policy),
            Err(e) => panic!("{e}"),
        }
    }

    const HOOKS: &str = "hooks:\n  - id: big_spend\n    event: error\n    condition: {path: cost.spend, op: gt, value: 5}\n    action: {type: retry, max_attempts: 2}\n";

    #[test]
    fn questions_answer_what_the_cli_prints() {
        let p = bound(HOOKS);
        let ctx = serde_json::json!({"cost": {"spend": 9}});
        let ask = |q| {
            p.answer(q, "error", Context::Value(&ctx), &Narrowing::default())
                .map_err(|e| e.to_string())
        };
        assert_eq!(
            ask(Question::Evaluate),
            Ok(
                serde_json::json!({"hook": "big_spend", "action": {"type": "retry", "max_attempts": 2, "backoff_policy": "inherit"}})
            )
        );
        assert_eq!(ask(Question::Decide), Ok(Value::from("big_spend")));
        let position = p.decide_position("error", Context::Value(&ctx), &Narrowing::default());
        assert_eq!(position.ok().flatten(), Some(0));
        assert_eq!(
            ask(Question::All).map(|v| v.as_array().map(Vec::len)),
            Ok(Some(1))
        );
        assert!(ask(Question::Explain).is_ok_and(|t| t["event"] == "error"));
        assert!(p.unheard("limit") && !p.unheard("error"));
        assert_eq!(p.event_names(), ["error"]);
    }

    /// `evaluate_with`'s answer as the JSON `answer` gives.
    fn evaluated_json(p: &BoundPolicy, e: Evaluated<'_, Value>) -> Value {
        match e {
            Evaluated::Json(v) => v,
            Evaluated::Built(None) => Value::Null,
            Evaluated::Built(Some((i, hook, action))) => {
                let id = p.policy().hook_ids().nth(i).map(Value::from);
                assert_eq!(id, Some(Value::from(hook)));
                serde_json::json!({"hook": id, "action": action})
            }
        }
    }

    #[test]
    fn an_action_built_by_a_sink_is_the_evaluate_answer() {
        const COLLECTED: &str = "action_types:\n  observe:\n    effect: collected\n    parameters: {note: {type: string}}\nhooks:\n  - {id: watch, event: error, priority: 9, action: {type: observe, note: \"saw ${cost.spend}\"}}\n  - {id: big_spend, event: error, condition: {path: cost.spend, op: gt, value: 5}, action: {type: retry, max_attempts: 2}}\n";
        for (text, built) in [(HOOKS, true), (COLLECTED, false)] {
            let p = bound(text);
            for ctx in [
                serde_json::json!({"cost": {"spend": 9}}),
                serde_json::json!({"cost": {"spend": 1}}),
            ] {
                let n = Narrowing::default();
                let want = p.answer(Question::Evaluate, "error", Context::Value(&ctx), &n);
                let got = p.evaluate_with("error", Context::Value(&ctx), &n, &mut JsonSink);
                assert_eq!(matches!(got, Ok(Evaluated::Built(_))), built, "{text}");
                let got = got.map(|e| evaluated_json(&p, e));
                assert_eq!(got.ok(), want.ok(), "{text}\n{ctx}");
            }
        }
    }

    #[test]
    fn an_unknown_hook_id_suggests_the_closest() {
        let p = bound(HOOKS);
        let e = p.overrides(["big_spendd"]).err();
        assert_eq!(
            e.as_ref().map(BindingError::kind),
            Some(ErrorKind::Argument)
        );
        assert!(e.is_some_and(|e| e.to_string().contains("did you mean `big_spend`")));
    }

    #[test]
    fn bad_json_text_is_a_context_error() {
        let p = bound(HOOKS);
        let e = p
            .answer(
                Question::Evaluate,
                "error",
                Context::json(b"{not json"),
                &Narrowing::default(),
            )
            .err()
            .map(|e| e.kind());
        assert_eq!(e, Some(ErrorKind::Context));
    }
}

//! The decision model's walk over an event's hooks, for policies that go
//! beyond "first terminal match" (`docs/src/semantics.md#action-effects`):
//! transforms whose patches later hooks read, awaited actions that suspend
//! and resume with the host's result, strictest-wins combining, and error
//! policies. A first-match policy never comes here (`Policy::general` is
//! false), so its evaluation is the plan-driven walk of `eval/mod.rs`.
//!
//! The walk runs the event's hooks one by one, in hook order, on a path
//! cache over the current context. When a transform or a resumed await
//! changes the context, the context is made a whole document (once: cloned
//! from a `Value`, parsed from JSON text, or asked of a host's lookup),
//! patched, and the walk goes on with a fresh cache over the patched
//! document, so every later condition and template reads the change.

use super::explain::{ModelTrace, Outcome};
use super::{Decision, HookFailure, HookTrace, Match, Overrides, Policy, QueryError, Results};
use crate::bytecode::{
    Binding, Combine, Effect, OnError, Path, Segment, PATCH_PARAM, POLICY_ERROR_ROOT, RESULTS_ROOT,
    SET_PARAM,
};
use crate::context::{Context, PathCache, Source};
use crate::eval::vm;
use crate::value::Val;
use serde_json::{Map, Value};

/// What a walk is asked for.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(super) enum Want {
    /// The decision (`Query::decision`, `first`, `decide`).
    Decision,
    /// Every match, past the decision (`Query::all`).
    All,
    /// A trace of every hook (`Query::explain`).
    Trace,
}

/// The state of one walk over an event's hooks.
pub(super) struct ModelWalk<'p, 'q> {
    policy: &'p Policy,
    hooks: &'p [u32],
    /// The next position in `hooks`.
    next: usize,
    want: Want,
    overrides: &'q Overrides,
    results: Option<&'q Results>,
    /// The decision so far.
    pub(super) decision: Decision<'p>,
    /// The terminal match's severity (strictest combining).
    best: Option<i64>,
    /// Once decided (or suspended), no later match has an effect; a trace
    /// still lists the hooks.
    settled: bool,
    /// Every match (`Want::All`).
    pub(super) all: Vec<Match<'p>>,
    /// The trace (`Want::Trace`).
    pub(super) lines: Vec<HookTrace>,
    pub(super) model: ModelTrace,
    /// What functions derived, over every context the walk read.
    pub(super) derived: Vec<super::explain::Derivation>,
    /// Top-level members of the context that a transform patched.
    touched: Vec<String>,
    /// Trace positions of the winner and of the collected matches.
    winner: Option<usize>,
    collected: Vec<usize>,
    /// Under strictest combining and `on_error: skip`, the terminal match
    /// whose action could not be filled and that would decide unless a
    /// later match is more severe: its severity, trace position, failure
    /// and error (`docs/src/semantics.md#combining`).
    unfilled: Option<(i64, usize, HookFailure, QueryError)>,
}

/// Why a walk over one context paused.
enum Pause {
    /// Every hook ran, or the decision is made.
    Done,
    /// A transform matched: merge this patch into the context, then set
    /// these members (its `set`), go on.
    Patch(Map<String, Value>, Map<String, Value>),
    /// An awaited hook resumed: bind its result there, go on.
    Bind(BindAt, Value),
    /// A hook failed under `on_error: {action}`: that action decides.
    Failed(u32, HookFailure),
}

impl<'p, 'q> ModelWalk<'p, 'q> {
    pub(super) fn new(
        policy: &'p Policy,
        event: &str,
        overrides: &'q Overrides,
        results: Option<&'q Results>,
        want: Want,
    ) -> ModelWalk<'p, 'q> {
        ModelWalk {
            policy,
            hooks: policy.program().hooks_for(event),
            next: 0,
            want,
            overrides,
            results,
            decision: Decision::default(),
            best: None,
            settled: false,
            all: Vec::new(),
            lines: Vec::new(),
            model: ModelTrace::default(),
            derived: Vec::new(),
            touched: Vec::new(),
            winner: None,
            collected: Vec::new(),
            unfilled: None,
        }
    }

    /// Runs the walk to its end: the first stretch on `cache` (over the
    /// query's context), the rest on the patched document.
    pub(super) fn run<'c>(
        mut self,
        cache: &mut PathCache<'c>,
        context: Context<'_>,
    ) -> Result<ModelWalk<'p, 'q>, QueryError>
    where
        'p: 'c,
    {
        let mut pause = self.stretch(cache)?;
        let mut doc: Option<Value> = None;
        loop {
            match pause {
                Pause::Done => break,
                Pause::Patch(patch, set) => {
                    let doc = whole(&mut doc, context)?;
                    for key in patch.keys().chain(set.keys()) {
                        if !self.touched.contains(key) {
                            self.touched.push(key.clone());
                        }
                    }
                    merge_patch(doc, Value::Object(patch));
                    merge_set(doc, set);
                }
                Pause::Bind(BindAt::Nowhere, _) => {
                    // Nothing changes: the walk goes on on the same context.
                    if doc.is_none() {
                        pause = self.stretch(cache)?;
                        continue;
                    }
                }
                Pause::Bind(at, value) => {
                    let doc = whole(&mut doc, context)?;
                    let program = self.policy.program();
                    match &at {
                        BindAt::Results(hook) => bind(doc, &[RESULTS_ROOT, hook], value),
                        BindAt::Key(key) => bind(doc, &[key], value),
                        BindAt::Path(path) => {
                            if let Some(path) = program.path(*path) {
                                bind(doc, &fields(path), value);
                            }
                        }
                        BindAt::Nowhere => {}
                    }
                }
                Pause::Failed(h, failure) => {
                    let doc = whole(&mut doc, context)?;
                    self.decide_failure(doc, h, failure)?;
                    // A trace still lists the rest of the hooks; under
                    // strictest, a more severe match may still come.
                    if self.settled && self.want != Want::Trace {
                        break;
                    }
                }
            }
            let Some(doc) = doc.as_ref() else { break };
            crate::context::path_cache!(cache, &self.policy.paths, Source::Document(doc));
            pause = self.stretch(&mut cache)?;
        }
        if let Some((_, position, _, error)) = self.unfilled.take() {
            // No later match was more severe: the action that cannot be
            // filled would decide, so the evaluation fails (a trace says
            // where, and lists every hook).
            if self.want != Want::Trace {
                return Err(error);
            }
            self.model.failed = Some(position);
        }
        if let Some(doc) = doc {
            self.decision.patched = self
                .touched
                .iter()
                .map(|k| (k.clone(), doc.get(k).cloned().unwrap_or(Value::Null)))
                .collect();
        }
        Ok(self)
    }

    /// Under strictest combining and `on_error: skip`, a terminal match
    /// whose action cannot be filled: it fails the evaluation only if it
    /// would decide, so it is kept until a later match is more severe
    /// (it is earlier, so it wins a tie); one that an earlier match
    /// already outranks, or that an earlier such failure does, is a
    /// decision error and no more.
    fn unfilled(
        &mut self,
        h: u32,
        position: usize,
        severity: i64,
        error: QueryError,
    ) -> Result<(), QueryError> {
        let failure = HookFailure {
            hook: self.policy.hook_id(h).to_owned(),
            cause: error.to_string(),
        };
        // A trace lists every hook that could not decide, whether or not
        // its failure ends up deciding.
        self.model.failures.push((position, failure.cause.clone()));
        let outranked = self.best.is_some_and(|best| best >= severity)
            || self.unfilled.as_ref().is_some_and(|(s, ..)| *s >= severity);
        if outranked {
            self.decision.errors.push(failure);
            return Ok(());
        }
        if severity >= self.policy.max_severity {
            // Nothing can outrank it.
            if self.want != Want::Trace {
                return Err(error);
            }
            self.settled = true;
        }
        if let Some((_, _, earlier, _)) = self.unfilled.take() {
            self.decision.errors.push(earlier);
        }
        self.unfilled = Some((severity, position, failure, error));
        Ok(())
    }

    /// Runs hooks on one context until the context changes or the walk ends.
    fn stretch<'c>(&mut self, cache: &mut PathCache<'c>) -> Result<Pause, QueryError>
    where
        'p: 'c,
    {
        let pause = self.stretch_on(cache);
        if self.want == Want::Trace {
            super::explain::Derivation::collect(cache.scratch(), &mut self.derived);
        }
        pause
    }

    /// [`Self::stretch`] without recording what functions derived.
    fn stretch_on<'c>(&mut self, cache: &mut PathCache<'c>) -> Result<Pause, QueryError>
    where
        'p: 'c,
    {
        let policy = self.policy;
        let p = policy.program();
        while let Some(&h) = self.hooks.get(self.next) {
            self.next += 1;
            let outcome = match self.want {
                Want::Trace => match policy.trace_hook(h, cache, self.overrides) {
                    Some(line) => {
                        let outcome = line.outcome.clone();
                        self.lines.push(line);
                        outcome
                    }
                    None => continue,
                },
                Want::Decision | Want::All if self.overrides.is_disabled(h) => continue,
                Want::Decision | Want::All => {
                    match vm::eval_hook(&policy.program, h, cache, None) {
                        Val::Bool(true) => Outcome::Matched,
                        Val::Bool(false) => Outcome::NotMatched,
                        Val::Error(error) => Outcome::Error { error, at: None },
                        other => Outcome::NotBool(other.to_json().unwrap_or(Value::Null)),
                    }
                }
            };
            // Once decided, a trace still lists the hooks; nothing else.
            if self.settled && self.want != Want::All {
                continue;
            }
            let position = self.lines.len().saturating_sub(1);
            let cause = match &outcome {
                Outcome::Matched => None,
                Outcome::NotMatched | Outcome::Disabled => continue,
                Outcome::Error {
                    error,
                    at: Some(at),
                } => Some(format!("condition error: {error} {at}")),
                Outcome::Error { error, at: None } => Some(format!("condition error: {error}")),
                Outcome::NotBool(v) => Some(format!("condition gave {v}, not a bool")),
            };
            if let Some(cause) = cause {
                // Under `skip` a condition that cannot decide is a non-match.
                if p.model.on_error == OnError::Skip {
                    continue;
                }
                match self.fail(h, position, cause)? {
                    Some(stop) => return Ok(stop),
                    None => continue,
                }
            }
            let action = p.hooks.get(h as usize).and_then(|e| p.action(e.action));
            let effect = action.map_or(Effect::Terminal, |a| a.effect);
            let filled = match policy.matched(h, cache) {
                Ok(m) => m,
                // A terminal action that does not fit fails the evaluation
                // under `skip`, as it always did: dropping it could skip a
                // guard.
                Err(QueryError::Action(e))
                    if effect != Effect::Terminal || p.model.on_error != OnError::Skip =>
                {
                    match self.fail(h, position, e.to_string())? {
                        Some(stop) => return Ok(stop),
                        None => continue,
                    }
                }
                Err(e @ QueryError::Action(_))
                    if p.model.combine == Combine::Strictest && !self.settled =>
                {
                    self.unfilled(h, position, action.map_or(0, |a| a.severity), e)?;
                    continue;
                }
                Err(other) => return Err(other),
            };
            if self.want == Want::All {
                self.all.push(filled.clone());
                if self.settled {
                    continue;
                }
            }
            match effect {
                Effect::Collected => {
                    self.decision.collected.push(filled);
                    self.collected.push(position);
                }
                Effect::Transform => {
                    let Some(Value::Object(patch)) = filled.action.get(PATCH_PARAM) else {
                        let cause = format!(
                            "its action's `{PATCH_PARAM}` is not an object, so it patches nothing"
                        );
                        match self.fail(h, position, cause)? {
                            Some(stop) => return Ok(stop),
                            None => continue,
                        }
                    };
                    let set = match filled.action.get(SET_PARAM) {
                        None | Some(Value::Null) => Map::new(),
                        Some(Value::Object(set)) => set.clone(),
                        Some(_) => {
                            let cause = format!(
                                "its action's `{SET_PARAM}` is not an object, so it sets nothing"
                            );
                            match self.fail(h, position, cause)? {
                                Some(stop) => return Ok(stop),
                                None => continue,
                            }
                        }
                    };
                    let patch = patch.clone();
                    self.decision.transforms.push(filled);
                    self.model.transforms.push(position);
                    return Ok(Pause::Patch(patch, set));
                }
                Effect::Await => {
                    let given = self.results.and_then(|r| r.get(filled.hook)).cloned();
                    let Some(result) = given else {
                        self.decision.pending = Some(filled);
                        self.model.pending = Some(position);
                        self.settled = true;
                        continue;
                    };
                    self.model.resumed.push(position);
                    let at = match action.and_then(|a| a.bind) {
                        None => BindAt::Results(filled.hook.to_owned()),
                        Some(Binding::Path(path)) => BindAt::Path(path),
                        Some(Binding::Parameter(name)) => match filled.action.get(p.string(name)) {
                            Some(Value::String(key)) => BindAt::Key(key.clone()),
                            _ => BindAt::Nowhere,
                        },
                    };
                    return Ok(Pause::Bind(at, result));
                }
                Effect::Terminal => {
                    self.terminal(filled, position, action.map_or(0, |a| a.severity));
                }
            }
            if self.settled && self.want == Want::Decision {
                break;
            }
        }
        Ok(Pause::Done)
    }

    /// A terminal match: it decides under first match; under strictest it
    /// decides when it is more severe than the match so far, and ends the
    /// walk when nothing can be more severe.
    fn terminal(&mut self, filled: Match<'p>, position: usize, severity: i64) {
        let policy = self.policy;
        match policy.program().model.combine {
            Combine::FirstMatch => {
                self.decision.terminal = Some(filled);
                self.winner = Some(position);
                self.settled = true;
            }
            Combine::Strictest => {
                if let Some((s, ..)) = &self.unfilled {
                    if severity <= *s {
                        // The earlier failure would decide: this match
                        // changes nothing.
                        return;
                    }
                    if let Some((_, _, failure, _)) = self.unfilled.take() {
                        self.decision.errors.push(failure);
                    }
                }
                if self.best.is_none_or(|best| severity > best) {
                    self.model.reason = Some(format!(
                        "`{}` has the highest severity ({severity}) of the terminal matches \
                         (strictest combining; the earlier hook wins a tie)",
                        filled.hook
                    ));
                    self.decision.terminal = Some(filled);
                    self.best = Some(severity);
                    self.winner = Some(position);
                }
                if severity >= policy.max_severity {
                    self.settled = true;
                }
            }
        }
    }

    /// A hook that cannot decide, by the policy's `on_error`: under `skip`
    /// it is reported in the decision's errors and the walk goes on
    /// (`None`); under `fail` the evaluation fails; under an action, that
    /// action decides.
    fn fail(
        &mut self,
        h: u32,
        position: usize,
        cause: String,
    ) -> Result<Option<Pause>, QueryError> {
        let failure = HookFailure {
            hook: self.policy.hook_id(h).to_owned(),
            cause,
        };
        self.model.failures.push((position, failure.cause.clone()));
        match self.policy.program().model.on_error {
            OnError::Skip => {
                self.decision.errors.push(failure);
                Ok(None)
            }
            // A trace goes on: it is the one place that shows which hook
            // failed the evaluation, and what the others did.
            OnError::Fail if self.want == Want::Trace => {
                if self.model.failed.is_none() {
                    self.model.failed = Some(position);
                    self.settled = true;
                }
                Ok(None)
            }
            OnError::Fail => Err(QueryError::Hook(Box::new(failure))),
            OnError::Action(_) => Ok(Some(Pause::Failed(h, failure))),
        }
    }

    /// Decides with the error policy's action, its templates filled on the
    /// context with `policy_error: {hook, cause}` added.
    fn decide_failure(
        &mut self,
        doc: &Value,
        h: u32,
        failure: HookFailure,
    ) -> Result<(), QueryError> {
        let policy = self.policy;
        let OnError::Action(action) = policy.program().model.on_error else {
            return Ok(());
        };
        let mut doc = doc.clone();
        let mut error = Map::new();
        error.insert("hook".into(), failure.hook.clone().into());
        error.insert("cause".into(), failure.cause.clone().into());
        set_member(&mut doc, POLICY_ERROR_ROOT, Value::Object(error));
        crate::context::path_cache!(cache, &policy.paths, Source::Document(&doc));
        let filled = vm::fill_action(&policy.program, &failure.hook, action, &mut cache)?;
        let hook = policy.hook_id(h);
        let position = self.model.failures.last().map(|(p, _)| *p);
        let reason = format!(
            "hook `{}` could not decide ({}), so the policy's `on_error` action decides",
            failure.hook, failure.cause
        );
        self.decision.errors.push(failure);
        let filled = Match {
            hook,
            action: filled,
        };
        if policy.program().model.combine == Combine::Strictest {
            // Under strictest combining the error action is a terminal
            // match like the others, at its type's severity: a later,
            // more severe match still decides.
            let severity = policy.program().action(action).map_or(0, |a| a.severity);
            let unfilled = self.unfilled.as_ref().is_some_and(|(s, ..)| *s >= severity);
            if !unfilled && self.best.is_none_or(|best| severity > best) {
                self.model.reason = Some(format!(
                    "{reason} (severity {severity}, strictest combining)"
                ));
                self.decision.terminal = Some(filled);
                self.best = Some(severity);
                self.winner = position;
                if let Some((_, _, earlier, _)) = self.unfilled.take() {
                    self.decision.errors.push(earlier);
                }
            }
            if severity >= policy.max_severity {
                self.settled = true;
            }
            return Ok(());
        }
        self.model.reason = Some(reason);
        self.winner = position;
        self.decision.terminal = Some(filled);
        self.settled = true;
        Ok(())
    }

    /// The trace of the walk (`Want::Trace`).
    pub(super) fn into_trace(mut self, event: &str) -> super::Trace {
        let p = self.policy.program();
        if self.model.failed.is_some() {
            // The evaluation failed: nothing decides, nothing is collected.
            self.winner = None;
            self.collected.clear();
            self.model.reason = None;
        }
        super::Trace {
            event: event.to_owned(),
            other_events: p.hooks.len().saturating_sub(self.lines.len()),
            hooks: self.lines,
            winner: self.winner,
            collected: self.collected,
            model: self.model,
            derived: self.derived,
        }
    }
}

/// The context as a whole document, made once: cloned from a `Value`,
/// parsed from JSON text, or asked of a host's lookup.
fn whole<'d>(
    doc: &'d mut Option<Value>,
    context: Context<'_>,
) -> Result<&'d mut Value, QueryError> {
    if doc.is_none() {
        *doc = Some(match context {
            Context::Value(v) => v.clone(),
            Context::Json(text) => {
                serde_json::from_slice(text).map_err(super::ContextError::from)?
            }
            Context::Lookup(lookup) => lookup.document().ok_or(QueryError::WholeContext)?,
        });
    }
    doc.as_mut().ok_or(QueryError::WholeContext)
}

/// Merges `patch` into `target` as RFC 7396 says: an object patch sets
/// each member (a `null` member removes it), recursively; any other patch
/// replaces the target.
pub fn merge_patch(target: &mut Value, patch: Value) {
    let Value::Object(patch) = patch else {
        *target = patch;
        return;
    };
    if !target.is_object() {
        *target = Value::Object(Map::new());
    }
    let Value::Object(members) = target else {
        return;
    };
    for (key, value) in patch {
        if value.is_null() {
            members.remove(&key);
        } else {
            merge_patch(members.entry(key).or_insert(Value::Null), value);
        }
    }
}

/// Sets the members of `set` in `target` (made an object if it is not
/// one): an object member is set member by member, recursively; any other
/// value, `null` included, replaces the member.
pub fn merge_set(target: &mut Value, set: Map<String, Value>) {
    if !target.is_object() {
        *target = Value::Object(Map::new());
    }
    let Value::Object(members) = target else {
        return;
    };
    for (key, value) in set {
        match value {
            Value::Object(inner) => merge_set(members.entry(key).or_insert(Value::Null), inner),
            other => {
                members.insert(key, other);
            }
        }
    }
}

/// Sets member `key` of `doc` (made an object if it is not one).
fn set_member(doc: &mut Value, key: &str, value: Value) {
    if !doc.is_object() {
        *doc = Value::Object(Map::new());
    }
    if let Value::Object(members) = doc {
        members.insert(key.to_owned(), value);
    }
}

/// Where a resumed hook's result goes.
enum BindAt {
    /// `results.<hook id>`.
    Results(String),
    /// A path of the program (fields only).
    Path(crate::bytecode::PathIdx),
    /// A top-level key, from the action's binding parameter.
    Key(String),
    /// Nowhere: the binding parameter is `null` (a side effect only).
    Nowhere,
}

/// The fields of a path (the compiler allows no index in a binding).
fn fields(path: &Path) -> Vec<&str> {
    std::iter::once(path.root_name())
        .chain(path.segments().iter().filter_map(|s| match s {
            Segment::Field(name) => Some(name.as_str()),
            Segment::Index(_) => None,
        }))
        .collect()
}

/// Binds an awaited hook's result into `doc` at the path of `fields`,
/// making objects on the way where a step is missing or not an object.
fn bind<S: AsRef<str>>(doc: &mut Value, fields: &[S], value: Value) {
    let Some((last, parents)) = fields.split_last() else {
        return;
    };
    let mut at = doc;
    for field in parents {
        if !at.is_object() {
            *at = Value::Object(Map::new());
        }
        let Value::Object(members) = at else { return };
        at = members
            .entry(field.as_ref().to_owned())
            .or_insert(Value::Null);
    }
    set_member(at, last.as_ref(), value);
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn merge_set_keeps_a_null_as_a_value() {
        let mut doc = json!({"a": {"b": 1, "c": 2}, "d": [1], "e": 3});
        let Value::Object(set) = json!({"a": {"b": null}, "d": {"x": 1}, "e": null, "f": null})
        else {
            unreachable!()
        };
        merge_set(&mut doc, set);
        assert_eq!(
            doc,
            json!({"a": {"b": null, "c": 2}, "d": {"x": 1}, "e": null, "f": null})
        );
    }

    #[test]
    fn merge_patch_follows_rfc_7396() {
        // RFC 7396, appendix A (a selection).
        let cases = [
            (json!({"a": "b"}), json!({"a": "c"}), json!({"a": "c"})),
            (
                json!({"a": "b"}),
                json!({"b": "c"}),
                json!({"a": "b", "b": "c"}),
            ),
            (json!({"a": "b"}), json!({"a": null}), json!({})),
            (
                json!({"a": "b", "b": "c"}),
                json!({"a": null}),
                json!({"b": "c"}),
            ),
            (json!({"a": ["b"]}), json!({"a": "c"}), json!({"a": "c"})),
            (json!({"a": "c"}), json!({"a": ["b"]}), json!({"a": ["b"]})),
            (
                json!({"a": {"b": "c"}}),
                json!({"a": {"b": "d", "c": null}}),
                json!({"a": {"b": "d"}}),
            ),
            (
                json!({"a": [{"b": "c"}]}),
                json!({"a": [1]}),
                json!({"a": [1]}),
            ),
            (json!(["a", "b"]), json!(["c", "d"]), json!(["c", "d"])),
            (json!({"a": "b"}), json!(["c"]), json!(["c"])),
            (json!({"a": "foo"}), json!(null), json!(null)),
            (json!({"a": "foo"}), json!("bar"), json!("bar")),
            (
                json!({"e": null}),
                json!({"a": 1}),
                json!({"e": null, "a": 1}),
            ),
            (
                json!([1, 2]),
                json!({"a": "b", "c": null}),
                json!({"a": "b"}),
            ),
            (
                json!({}),
                json!({"a": {"bb": {"ccc": null}}}),
                json!({"a": {"bb": {}}}),
            ),
        ];
        for (target, patch, want) in cases {
            let mut got = target.clone();
            merge_patch(&mut got, patch.clone());
            assert_eq!(got, want, "{target} patched with {patch}");
        }
    }

    #[test]
    fn bind_makes_objects_on_the_way() {
        let mut doc = json!({"results": 3});
        bind(&mut doc, &["results", "git"], json!({"branch": "main"}));
        assert_eq!(doc, json!({"results": {"git": {"branch": "main"}}}));
        let mut doc = json!({"a": {"x": 1}});
        let path = Path::root("a").child(Segment::Field("b".into()));
        bind(&mut doc, &fields(&path), json!(null));
        assert_eq!(doc, json!({"a": {"x": 1, "b": null}}));
    }
}

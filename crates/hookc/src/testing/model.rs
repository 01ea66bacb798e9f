//! The reference semantics of the decision model
//! (`docs/src/semantics.md#action-effects`): an obviously sequential walk
//! over a checked policy's hooks, on a context held as a `serde_json::Value`
//! that transforms and awaited results rewrite in place, for the
//! differential tests of the runtime's walk (`eval/model.rs`). Conditions
//! and actions go through the reference evaluator ([`super::reference`]);
//! the merge patch and the binding of results are written here again, apart
//! from the runtime's.

use super::reference::{eval_with, fill_action, Constants};
use crate::check::actions::TypeBinding;
use crate::check::policy::{CheckedPolicy, Hook, OnErrorPolicy};
use crate::ir::{Combine, Effect};
use hookc_runtime::bytecode::Segment;
use hookc_runtime::internals::value::Val;
use serde_json::{Map, Value};

/// What the reference walk decided, as `Decision::to_json` shows it, with
/// the failures' causes left out (their wording is the runtime's).
#[derive(Debug, Clone, PartialEq)]
pub enum ModelOutcome {
    /// The decision's JSON, each error only `{"hook": ID}`.
    Decided(Value),
    /// `on_error: fail`: the evaluation failed at this hook.
    Failed(String),
    /// A terminal action did not fit under `on_error: skip`: the evaluation
    /// failed at this hook (under strictest, only when no later match was
    /// more severe).
    ActionMisfit(String),
}

impl ModelOutcome {
    /// The runtime's decision in the reference's terms: its JSON with each
    /// error's cause left out; an evaluation that failed at a hook is
    /// `Failed` or `ActionMisfit`. Any other error is the runtime's, which
    /// the reference has no outcome for.
    pub fn of_runtime(
        decision: Result<hookc_runtime::Decision<'_>, hookc_runtime::QueryError>,
    ) -> Result<ModelOutcome, hookc_runtime::QueryError> {
        use hookc_runtime::QueryError;
        match decision {
            Ok(d) => {
                let mut v = d.into_json();
                if let Some(Value::Array(errors)) = v.get_mut("errors") {
                    for e in errors {
                        if let Some(m) = e.as_object_mut() {
                            m.remove("cause");
                        }
                    }
                }
                Ok(ModelOutcome::Decided(v))
            }
            Err(QueryError::Hook(f)) => Ok(ModelOutcome::Failed(f.hook.clone())),
            Err(QueryError::Action(e)) => Ok(ModelOutcome::ActionMisfit(e.hook().to_owned())),
            Err(e) => Err(e),
        }
    }
}

/// Evaluates `event` on `ctx` by the decision model, resuming awaited hooks
/// from `results` (by hook id).
pub fn decide(
    policy: &CheckedPolicy,
    event: &str,
    ctx: &Value,
    results: &Map<String, Value>,
) -> ModelOutcome {
    let mut ctx = ctx.clone();
    let mut touched: Vec<String> = Vec::new();
    let mut collected = Vec::new();
    let mut transforms = Vec::new();
    let mut errors: Vec<String> = Vec::new();
    let mut terminal: Option<(Value, i64)> = None;
    let mut pending = None;
    // The most severe terminal action a hook, or the error policy's action,
    // can decide with: a match of it ends the walk under strictest.
    let on_error = match policy.on_error() {
        OnErrorPolicy::Action(a) => Some(kind_severity(policy, &a.kind)),
        OnErrorPolicy::Skip | OnErrorPolicy::Fail => None,
    };
    let max = policy
        .hooks()
        .iter()
        .filter(|h| h.enabled && h.action.effect == Effect::Terminal)
        .map(|h| severity(policy, h))
        .chain(on_error)
        .max()
        .unwrap_or(0);
    let strictest = policy.combine() == Combine::Strictest;
    // Under strictest and `on_error: skip`, a terminal match whose action
    // does not fit and that would decide unless a later match is more
    // severe: its severity and hook.
    let mut unfilled: Option<(i64, String)> = None;
    for hook in policy.hooks() {
        if !hook.enabled || !hook.events.includes(event) {
            continue;
        }
        let holds = match &hook.condition {
            None => Some(true),
            Some(cond) => {
                let consts = Constants::new(cond);
                match eval_with(cond, policy.paths(), &ctx, &consts) {
                    Val::Bool(b) => Some(b),
                    _ => None,
                }
            }
        };
        // `cond && <a row matched>`; the row test is never an error.
        let holds = if super::reference::table_holds(policy, hook, &ctx) {
            holds
        } else {
            Some(false)
        };
        let failed = match holds {
            Some(false) => continue,
            Some(true) => None,
            None if matches!(policy.on_error(), OnErrorPolicy::Skip) => continue,
            None => Some(()),
        };
        let filled = match failed {
            Some(()) => None,
            None => super::reference::fill_hook_action(policy, hook, &ctx).ok(),
        };
        let Some(action) = filled else {
            // The hook could not decide.
            match policy.on_error() {
                OnErrorPolicy::Skip if hook.action.effect == Effect::Terminal && strictest => {
                    let s = severity(policy, hook);
                    let outranked = terminal.as_ref().is_some_and(|(_, best)| *best >= s)
                        || unfilled.as_ref().is_some_and(|(u, _)| *u >= s);
                    if outranked {
                        errors.push(hook.id.clone());
                        continue;
                    }
                    if s >= max {
                        return ModelOutcome::ActionMisfit(hook.id.clone());
                    }
                    if let Some((_, earlier)) = unfilled.take() {
                        errors.push(earlier);
                    }
                    unfilled = Some((s, hook.id.clone()));
                    continue;
                }
                OnErrorPolicy::Skip if hook.action.effect == Effect::Terminal => {
                    return ModelOutcome::ActionMisfit(hook.id.clone());
                }
                OnErrorPolicy::Skip => {
                    errors.push(hook.id.clone());
                    continue;
                }
                OnErrorPolicy::Fail => return ModelOutcome::Failed(hook.id.clone()),
                OnErrorPolicy::Action(action) => {
                    errors.push(hook.id.clone());
                    let mut with_error = ctx.clone();
                    if let Value::Object(m) = &mut with_error {
                        m.insert(
                            "policy_error".into(),
                            serde_json::json!({"hook": hook.id, "cause": ""}),
                        );
                    }
                    let Ok(filled) = fill_action(policy, action, &with_error) else {
                        return ModelOutcome::ActionMisfit(hook.id.clone());
                    };
                    if !strictest {
                        terminal = Some((entry(&hook.id, filled), i64::MAX));
                        break;
                    }
                    // Under strictest, a terminal match at its type's
                    // severity: a later, more severe match still decides.
                    let s = kind_severity(policy, &action.kind);
                    let beaten = unfilled.as_ref().is_some_and(|(u, _)| *u >= s);
                    if !beaten && terminal.as_ref().is_none_or(|(_, best)| s > *best) {
                        terminal = Some((entry(&hook.id, filled), s));
                        if let Some((_, earlier)) = unfilled.take() {
                            errors.push(earlier);
                        }
                    }
                    if s >= max {
                        break;
                    }
                    continue;
                }
            }
        };
        match hook.action.effect {
            Effect::Collected => collected.push(entry(&hook.id, action)),
            Effect::Transform => {
                let patch = action.get("patch").cloned().unwrap_or(Value::Null);
                if let Value::Object(p) = &patch {
                    for k in p.keys() {
                        if !touched.contains(k) {
                            touched.push(k.clone());
                        }
                    }
                }
                merge(&mut ctx, patch);
                // `set`: as the patch, but a null is a value.
                if let Some(Value::Object(set)) = action.get("set") {
                    for k in set.keys() {
                        if !touched.contains(k) {
                            touched.push(k.clone());
                        }
                    }
                    set_members(&mut ctx, set);
                }
                transforms.push(entry(&hook.id, action));
            }
            Effect::Await => match results.get(&hook.id) {
                Some(result) => {
                    let binding = policy
                        .action_types()
                        .get(&hook.action.kind)
                        .and_then(|t| t.bind());
                    let path: Option<Vec<String>> = match binding {
                        None => Some(vec!["results".to_owned(), hook.id.clone()]),
                        Some(TypeBinding::Path(p)) => Some(
                            std::iter::once(p.root_name().to_owned())
                                .chain(p.segments().iter().filter_map(|s| match s {
                                    Segment::Field(name) => Some(name.clone()),
                                    Segment::Index(_) => None,
                                }))
                                .collect(),
                        ),
                        Some(TypeBinding::Parameter(name)) => match action.get(name) {
                            Some(Value::String(key)) => Some(vec![key.clone()]),
                            _ => None,
                        },
                    };
                    if let Some(path) = path {
                        set(&mut ctx, &path, result.clone());
                    }
                }
                None => {
                    pending = Some(entry(&hook.id, action));
                    break;
                }
            },
            Effect::Terminal => {
                let s = severity(policy, hook);
                if !strictest {
                    terminal = Some((entry(&hook.id, action), s));
                    break;
                }
                if let Some((u, _)) = &unfilled {
                    if s <= *u {
                        // The earlier misfit would decide.
                        continue;
                    }
                    if let Some((_, earlier)) = unfilled.take() {
                        errors.push(earlier);
                    }
                }
                if terminal.as_ref().is_none_or(|(_, best)| s > *best) {
                    terminal = Some((entry(&hook.id, action), s));
                }
                if s >= max {
                    break;
                }
            }
        }
    }
    if let Some((_, id)) = unfilled {
        return ModelOutcome::ActionMisfit(id);
    }
    let mut out = Map::new();
    let (hook, action) = match terminal {
        Some((Value::Object(mut m), _)) => (
            m.remove("hook").unwrap_or(Value::Null),
            m.remove("action").unwrap_or(Value::Null),
        ),
        _ => (Value::Null, Value::Null),
    };
    let plain = transforms.is_empty() && errors.is_empty() && pending.is_none();
    if plain && collected.is_empty() {
        if hook.is_null() {
            return ModelOutcome::Decided(Value::Null);
        }
        out.insert("hook".into(), hook);
        out.insert("action".into(), action);
        return ModelOutcome::Decided(Value::Object(out));
    }
    out.insert("hook".into(), hook);
    out.insert("action".into(), action);
    if !collected.is_empty() {
        out.insert("collected".into(), Value::Array(collected));
    }
    if !transforms.is_empty() {
        out.insert("transforms".into(), Value::Array(transforms));
        let patched: Map<String, Value> = touched
            .iter()
            .map(|k| (k.clone(), ctx.get(k).cloned().unwrap_or(Value::Null)))
            .collect();
        out.insert("patched".into(), Value::Object(patched));
    }
    if !errors.is_empty() {
        let errors = errors
            .into_iter()
            .map(|h| serde_json::json!({ "hook": h }))
            .collect();
        out.insert("errors".into(), Value::Array(errors));
    }
    if let Some(p) = pending {
        out.insert("pending".into(), p);
    }
    ModelOutcome::Decided(Value::Object(out))
}

fn severity(policy: &CheckedPolicy, hook: &Hook) -> i64 {
    kind_severity(policy, &hook.action.kind)
}

fn kind_severity(policy: &CheckedPolicy, kind: &str) -> i64 {
    policy.action_types().get(kind).map_or(0, |t| t.severity())
}

fn entry(hook: &str, action: Map<String, Value>) -> Value {
    serde_json::json!({"hook": hook, "action": Value::Object(action)})
}

/// RFC 7396, section 2's pseudocode, line by line.
fn merge(target: &mut Value, patch: Value) {
    match patch {
        Value::Object(patch) => {
            if !target.is_object() {
                *target = Value::Object(Map::new());
            }
            if let Value::Object(t) = target {
                for (name, value) in patch {
                    if value.is_null() {
                        t.remove(&name);
                    } else {
                        let slot = t.entry(name).or_insert(Value::Null);
                        merge(slot, value);
                    }
                }
            }
        }
        other => *target = other,
    }
}

/// A transform's `set`: each member set, objects member by member, any
/// other value (`null` too) as it is.
fn set_members(target: &mut Value, members: &Map<String, Value>) {
    if !target.is_object() {
        *target = Value::Object(Map::new());
    }
    if let Value::Object(t) = target {
        for (name, value) in members {
            let slot = t.entry(name.clone()).or_insert(Value::Null);
            match value {
                Value::Object(inner) => set_members(slot, inner),
                other => *slot = other.clone(),
            }
        }
    }
}

/// Sets `value` at the path of fields `path`, making objects on the way.
fn set(target: &mut Value, path: &[String], value: Value) {
    let Some((first, rest)) = path.split_first() else {
        *target = value;
        return;
    };
    if !target.is_object() {
        *target = Value::Object(Map::new());
    }
    if let Value::Object(t) = target {
        set(t.entry(first.clone()).or_insert(Value::Null), rest, value);
    }
}

//! A call's options object (`{disable: [hook ids], results: {hook id:
//! result}}`), read into the shared layer's [`Narrowing`] with a
//! did-you-mean for an unknown option: the same for `ask` ([`crate::fast`])
//! and the policy's methods ([`crate::policy`]).

use crate::convert::to_value;
use crate::error::NodeError;
use crate::js::{Js, JsKind};
use hookc_binding::{BoundPolicy, Narrowing};
use serde_json::Value;

/// The `disable` and `results` of a call's options object (`undefined`
/// or `null`: none).
pub fn read_options(bound: &BoundPolicy, options: Js<'_>) -> Result<Narrowing, NodeError> {
    match options.kind() {
        JsKind::Undefined | JsKind::Null => return Ok(Narrowing::default()),
        JsKind::Object if !options.is_array() => {}
        _ => {
            return Err(NodeError::Type(
                "the options are an object: {disable: [hook ids], results: {hook id: result}}"
                    .to_owned(),
            ))
        }
    }
    let options = match to_value(options, &mut String::new(), 0) {
        Ok(v) => v.unwrap_or(Value::Null),
        Err(e) => return Err(NodeError::Context(e.under("options").message())),
    };
    if let Value::Object(members) = &options {
        const KNOWN: [&str; 2] = ["disable", "results"];
        if let Some(unknown) = members.keys().find(|k| !KNOWN.contains(&k.as_str())) {
            let hint = hookc::suggest::did_you_mean(unknown, KNOWN)
                .map(|close| format!("; did you mean `{close}`?"))
                .unwrap_or_default();
            return Err(NodeError::Type(format!(
                "unknown option `{unknown}`{hint} (the options are `disable` and `results`)"
            )));
        }
    }
    let mut narrowing = Narrowing::default();
    if let Some(disable) = options.get("disable").filter(|v| !v.is_null()) {
        let ids = disable
            .as_array()
            .and_then(|ids| ids.iter().map(Value::as_str).collect::<Option<Vec<_>>>())
            .ok_or_else(|| {
                NodeError::Type(
                    "`disable` takes an array of hook ids (strings): disable: ['id']".to_owned(),
                )
            })?;
        narrowing.overrides = bound.overrides(ids).map_err(NodeError::Binding)?;
    }
    if let Some(results) = options.get("results").filter(|v| !v.is_null()) {
        if !results.is_object() {
            return Err(NodeError::Type(
                "`results` is an object of awaited hooks' results by hook id".to_owned(),
            ));
        }
        narrowing.results =
            Narrowing::results_from(bound.policy(), results.clone()).map_err(NodeError::Binding)?;
    }
    Ok(narrowing)
}

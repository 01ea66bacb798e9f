//! `NativePolicy`: a loaded, verified policy as the addon's class, behind
//! the package's `Policy` (`index.js`). Each method answers what the
//! `hookc` command prints, through the shared binding layer
//! (`hookc_binding::BoundPolicy`).
//!
//! A context is a JavaScript object (read path by path,
//! [`crate::lookup`]) or JSON text as a string or a `Uint8Array`. The
//! policy itself is shared (`Arc`) between the objects that worker threads
//! make of it with `share()` / `fromShared()`; the key strings a lookup
//! uses are each object's own, made in its thread's environment.

use crate::convert::to_value;
use crate::error::{fail, thrown, type_error, NodeError};
use crate::js::{Js, Kind, Reference, Scope};
use crate::lookup::{key_array, ObjectLookup, PreparedPaths};
use hookc_binding::{BoundPolicy, Narrowing, Question};
use hookc_runtime::Context;
use napi::bindgen_prelude::{Buffer, Env, ObjectFinalize, Uint8Array, Unknown};
use napi::JsValue;
use napi_derive::napi;
use serde_json::Value;
use std::sync::Arc;

/// A loaded policy, in one JavaScript environment.
#[napi(custom_finalize)]
pub struct NativePolicy {
    bound: Arc<BoundPolicy>,
    paths: PreparedPaths,
    /// The JavaScript array of `paths.names`, kept for this object's life.
    keys: Option<Reference>,
}

impl ObjectFinalize for NativePolicy {
    fn finalize(self, env: Env) -> napi::Result<()> {
        if let Some(keys) = self.keys {
            keys.delete(&env);
        }
        Ok(())
    }
}

impl NativePolicy {
    /// The object for `bound` in `env`'s environment.
    pub fn new(env: &Env, bound: Arc<BoundPolicy>) -> napi::Result<NativePolicy> {
        let paths = PreparedPaths::new(bound.policy().context_paths());
        let scope = Scope::new(env);
        let keys = key_array(scope, &paths.names)
            .and_then(|array| scope.reference(array))
            .map_err(thrown)?;
        Ok(NativePolicy {
            bound,
            paths,
            keys: Some(keys),
        })
    }

    /// The answer to `question` on `event` against `context`.
    fn answer(
        &self,
        env: &Env,
        question: Question,
        event: Unknown<'_>,
        context: Unknown<'_>,
        options: Option<Unknown<'_>>,
    ) -> napi::Result<Value> {
        let scope = Scope::new(env);
        let event = scope.value(event.raw());
        if event.kind() != Kind::String {
            return Err(type_error("the event must be a string"));
        }
        let mut name = String::new();
        event.read_string(&mut name).map_err(thrown)?;
        let context = scope.value(context.raw());
        let narrowing = self.narrowing(scope, options)?;
        let is_text = context.kind() == Kind::String || context.uint8_bytes().is_some();
        // No hook runs for an event no hook names (and no "*" hook): from
        // an object, which is read only where a hook reads it, the answer
        // is known. Text is still evaluated: it must be valid JSON.
        if !is_text && self.bound.unheard(&name) {
            if let Some(nothing) = question.unheard() {
                return match context.kind() {
                    Kind::Object => Ok(nothing),
                    _ => Err(context_type()),
                };
            }
        }
        if context.kind() == Kind::String {
            let mut text = String::new();
            context.read_string(&mut text).map_err(thrown)?;
            return self
                .bound
                .answer(question, &name, Context::json(text.as_bytes()), &narrowing)
                .map_err(fail);
        }
        if let Some(bytes) = context.uint8_bytes() {
            return self
                .bound
                .answer(question, &name, Context::json(bytes), &narrowing)
                .map_err(fail);
        }
        if context.kind() != Kind::Object {
            return Err(context_type());
        }
        let keys = match &self.keys {
            Some(keys) => scope.get_reference(keys).map_err(thrown)?,
            None => {
                return Err(fail(hookc_binding::BindingError::Internal(
                    "a policy object without its keys".to_owned(),
                )))
            }
        };
        let lookup = ObjectLookup::new(context, keys, &self.paths.steps);
        let result = self
            .bound
            .answer(question, &name, Context::Lookup(&lookup), &narrowing);
        if let Some(e) = lookup.take_error() {
            return Err(NodeError::Context(e.message()).into());
        }
        result.map_err(fail)
    }

    /// The `disable` and `results` of a call's options object.
    fn narrowing(&self, scope: Scope<'_>, options: Option<Unknown<'_>>) -> napi::Result<Narrowing> {
        let Some(options) = options.map(|o| scope.value(o.raw())) else {
            return Ok(Narrowing::default());
        };
        match options.kind() {
            Kind::Undefined | Kind::Null => return Ok(Narrowing::default()),
            Kind::Object if !options.is_array() => {}
            _ => {
                return Err(type_error(
                    "the options are an object: {disable: [hook ids], results: {hook id: result}}",
                ))
            }
        }
        let options = read(options, "options")?;
        let mut narrowing = Narrowing::default();
        if let Some(disable) = options.get("disable").filter(|v| !v.is_null()) {
            let ids = disable
                .as_array()
                .and_then(|ids| ids.iter().map(Value::as_str).collect::<Option<Vec<_>>>())
                .ok_or_else(|| {
                    type_error("`disable` takes an array of hook ids (strings): disable: ['id']")
                })?;
            narrowing.overrides = self.bound.overrides(ids).map_err(fail)?;
        }
        if let Some(results) = options.get("results").filter(|v| !v.is_null()) {
            if !results.is_object() {
                return Err(type_error(
                    "`results` is an object of awaited hooks' results by hook id",
                ));
            }
            narrowing.results = Narrowing::results_from(results.clone()).map_err(fail)?;
        }
        Ok(narrowing)
    }
}

/// The error for a context of the wrong type.
fn context_type() -> napi::Error {
    type_error("the context must be an object, or JSON text as a string or a Buffer/Uint8Array")
}

/// A JavaScript value the caller gave as JSON, `what` naming it in errors.
fn read(value: Js<'_>, what: &str) -> napi::Result<Value> {
    match to_value(value, &mut String::new(), 0) {
        Ok(v) => Ok(v.unwrap_or(Value::Null)),
        Err(e) => Err(NodeError::Context(e.under(what).message()).into()),
    }
}

#[napi]
impl NativePolicy {
    /// Loads artifact bytes, decoded and verified.
    #[napi(factory)]
    pub fn from_artifact(env: Env, data: Uint8Array) -> napi::Result<NativePolicy> {
        let bound = BoundPolicy::from_artifact(&data).map_err(fail)?;
        NativePolicy::new(&env, Arc::new(bound))
    }

    /// The policy another object shared with `share()`, in this thread.
    #[napi(factory)]
    pub fn from_shared(env: Env, token: String) -> napi::Result<NativePolicy> {
        let bound = crate::share::take(&token)?;
        NativePolicy::new(&env, bound)
    }

    /// A token for `fromShared`, valid while some object holds the policy.
    #[napi]
    pub fn share(&self) -> String {
        crate::share::put(&self.bound)
    }

    /// The policy's artifact bytes.
    #[napi]
    pub fn to_artifact(&self) -> Buffer {
        self.bound.policy().to_artifact().into()
    }

    /// Every hook id, in evaluation order.
    #[napi]
    pub fn hook_ids(&self) -> Vec<String> {
        self.bound.policy().hook_ids().map(str::to_owned).collect()
    }

    /// The event names hooks name.
    #[napi]
    pub fn events(&self) -> Vec<String> {
        self.bound.event_names().to_vec()
    }

    /// What `hookc eval` prints.
    #[napi]
    pub fn evaluate(
        &self,
        env: Env,
        event: Unknown<'_>,
        context: Unknown<'_>,
        options: Option<Unknown<'_>>,
    ) -> napi::Result<Value> {
        self.answer(&env, Question::Evaluate, event, context, options)
    }

    /// The deciding hook's id, or null.
    #[napi]
    pub fn decide(
        &self,
        env: Env,
        event: Unknown<'_>,
        context: Unknown<'_>,
        options: Option<Unknown<'_>>,
    ) -> napi::Result<Value> {
        self.answer(&env, Question::Decide, event, context, options)
    }

    /// What `hookc eval --all` prints.
    #[napi]
    pub fn evaluate_all(
        &self,
        env: Env,
        event: Unknown<'_>,
        context: Unknown<'_>,
        options: Option<Unknown<'_>>,
    ) -> napi::Result<Value> {
        self.answer(&env, Question::All, event, context, options)
    }

    /// What `hookc eval --explain --format json` prints.
    #[napi]
    pub fn explain(
        &self,
        env: Env,
        event: Unknown<'_>,
        context: Unknown<'_>,
        options: Option<Unknown<'_>>,
    ) -> napi::Result<Value> {
        self.answer(&env, Question::Explain, event, context, options)
    }

    /// `N hooks`, for the package's inspection.
    #[napi]
    pub fn describe(&self) -> String {
        self.bound.describe()
    }
}

//! The evaluation entry point, `ask(handle, question, event, context,
//! options)`, registered with N-API directly rather than through
//! napi-rs's class methods.
//!
//! Why: a napi-rs method call pays for its borrow tracking (a global
//! mutex and hash map per call) and class identity checks, several
//! hundred nanoseconds measured (docs/src/embedding/typescript.md, "Numbers");
//! an evaluation is often less. `ask` takes the policy as a *handle*, an
//! N-API external tagged with [`TAG`], made once per policy object
//! ([`handle`]) and owning what a lookup needs in its environment: the
//! shared policy and the key strings.
//!
//! Like `js.rs`, this module holds `unsafe` code, each block with its
//! reason. Nothing unwinds across the FFI boundary (`catch_unwind`), and
//! every error is thrown as a JavaScript `Error` with the codes of
//! [`crate::error`].

#![allow(unsafe_code)]

use crate::action::JsSink;
use crate::error::{NodeError, ThrowSpec};
use crate::js::{Js, JsKind, Reference, Scope};
use crate::lookup::{key_array, ObjectLookup, PreparedPaths};
use crate::options::read_options;
use hookc_binding::{BindingError, BoundPolicy, Evaluated, Question};
use hookc_runtime::Context;
use napi::bindgen_prelude::Unknown;
use napi::sys;
use serde_json::Value;
use std::borrow::Cow;
use std::ffi::{c_void, CString};
use std::ptr;
use std::sync::Arc;

/// The type tag of a policy handle, so that `ask` never reads another
/// external as one (random, fixed).
const TAG: sys::napi_type_tag = sys::napi_type_tag {
    lower: 0x6f6b_6863_2d70_6f6c,
    upper: 0x9e37_79b9_7f4a_7c15,
};

/// What a handle owns: the policy, its paths prepared for lookups, and
/// the key strings (an array kept by a reference of the handle's
/// environment, deleted when the handle is collected).
struct Handle {
    bound: Arc<BoundPolicy>,
    paths: PreparedPaths,
    keys: Option<Reference>,
}

/// A handle of `bound` in `env`'s environment, for `ask`.
pub fn handle<'e>(env: &'e napi::Env, bound: Arc<BoundPolicy>) -> napi::Result<Unknown<'e>> {
    let scope = Scope::new(env);
    let paths = PreparedPaths::new(bound.policy().context_paths());
    let keys = key_array(scope, &paths.names)
        .and_then(|array| scope.reference(array))
        .map_err(crate::error::thrown)?;
    let data = Box::into_raw(Box::new(Handle {
        bound,
        paths,
        keys: Some(keys),
    }));
    let mut raw = ptr::null_mut();
    // SAFETY: `data` is a leaked Box that `finalize` takes back, once, when
    // the external is collected; `raw` is written by the call.
    let status = unsafe {
        sys::napi_create_external(
            env.raw(),
            data.cast(),
            Some(finalize),
            ptr::null_mut(),
            &mut raw,
        )
    };
    if status != sys::Status::napi_ok {
        // SAFETY: the external was not made, so nothing else owns `data`.
        let handle = unsafe { Box::from_raw(data) };
        if let Some(keys) = handle.keys {
            keys.delete(env);
        }
        return Err(crate::error::thrown(scope.take_exception().unwrap_or(
            crate::js::Thrown(format!(
                "cannot make a policy handle (N-API status {status})"
            )),
        )));
    }
    // SAFETY: `raw` is the external just made.
    let status = unsafe { sys::napi_type_tag_object(env.raw(), raw, &TAG) };
    if status != sys::Status::napi_ok {
        return Err(crate::error::thrown(crate::js::Thrown(format!(
            "cannot tag a policy handle (N-API status {status})"
        ))));
    }
    // SAFETY: `raw` is a value of this call's environment.
    Ok(unsafe { Unknown::from_raw_unchecked(env.raw(), raw) })
}

/// The external's finalizer: the handle's memory and its reference.
unsafe extern "C" fn finalize(env: sys::napi_env, data: *mut c_void, _hint: *mut c_void) {
    if data.is_null() {
        return;
    }
    // SAFETY: `data` is the Box `handle` leaked for this external, and the
    // engine finalizes an external once.
    let handle = unsafe { Box::from_raw(data.cast::<Handle>()) };
    let env = napi::Env::from_raw(env);
    if let Some(keys) = handle.keys {
        keys.delete(&env);
    }
}

/// Registers `ask` on the module's exports.
pub fn register(env: &napi::Env, exports: &napi::bindgen_prelude::Object<'_>) -> napi::Result<()> {
    use napi::JsValue;
    let exports = exports.raw();
    let mut f = ptr::null_mut();
    let name = "ask";
    // SAFETY: `name` is valid for its length; `ask` has the callback's
    // signature; `f` is written by the call.
    let status = unsafe {
        sys::napi_create_function(
            env.raw(),
            name.as_ptr().cast(),
            name.len() as isize,
            Some(ask),
            ptr::null_mut(),
            &mut f,
        )
    };
    if status == sys::Status::napi_ok {
        // SAFETY: `exports` is the module's object, `f` the function made.
        let status =
            unsafe { sys::napi_set_named_property(env.raw(), exports, c"ask".as_ptr(), f) };
        if status == sys::Status::napi_ok {
            return Ok(());
        }
    }
    Err(napi::Error::from_reason(format!(
        "cannot register `ask` (N-API status {status})"
    )))
}

/// `ask(handle, question, event, context, options, eventIndex)`:
/// `question` is 0 (evaluate), 1 (decide), 2 (evaluateAll) or 3
/// (explain), answered as JavaScript values; `eventIndex`, when a number,
/// is the event's position in the policy's `events()` (`index.js` knows
/// it), so that its name is not read from the string.
unsafe extern "C" fn ask(env: sys::napi_env, info: sys::napi_callback_info) -> sys::napi_value {
    let outcome = std::panic::catch_unwind(|| {
        let mut argv = [ptr::null_mut(); 6];
        let mut argc = argv.len();
        // SAFETY: `argv` has room for `argc` values; the call writes at
        // most that many and the count it had.
        let status = unsafe {
            sys::napi_get_cb_info(
                env,
                info,
                &mut argc,
                argv.as_mut_ptr(),
                ptr::null_mut(),
                ptr::null_mut(),
            )
        };
        if status != sys::Status::napi_ok {
            return Err(NodeError::Type("cannot read the arguments".to_owned()));
        }
        // Missing arguments read as `undefined`.
        for slot in argv.iter_mut().skip(argc) {
            // SAFETY: `slot` is written by the call.
            unsafe { sys::napi_get_undefined(env, slot) };
        }
        let napi_env = napi::Env::from_raw(env);
        let scope = Scope::new(&napi_env);
        let [handle, question, event, context, options, index] = argv.map(|v| scope.value(v));
        // SAFETY: read only when the tag check passed.
        let handle = unsafe { handle_of(env, handle) }
            .ok_or_else(|| NodeError::Type("not a policy handle".to_owned()))?;
        let n = match question.kind() {
            JsKind::Number => question.number().ok(),
            _ => None,
        };
        let question = match n {
            Some(0.0) => Question::Evaluate,
            Some(1.0) => Question::Decide,
            Some(2.0) => Question::All,
            Some(3.0) => Question::Explain,
            _ => return Err(NodeError::Type("not a question".to_owned())),
        };
        let event = AskedEvent { name: event, index };
        match answer(handle, scope, question, event, context, options)? {
            Answered::Json(answer) => write(env, &answer),
            Answered::Built(value) => Ok(value.raw()),
        }
    });
    let result = match outcome {
        Ok(Ok(answer)) => Ok(answer),
        Ok(Err(e)) => Err(e),
        Err(_) => Err(NodeError::Binding(BindingError::Internal(
            "the evaluation panicked".to_owned(),
        ))),
    };
    match result {
        Ok(v) => v,
        Err(e) => {
            throw(env, &e.spec());
            ptr::null_mut()
        }
    }
}

/// The handle behind `value`, when it is one of ours.
///
/// # Safety
/// `env` is the current call's environment and `value` one of its values.
unsafe fn handle_of<'s>(env: sys::napi_env, value: Js<'s>) -> Option<&'s Handle> {
    if value.kind() != JsKind::External {
        return None;
    }
    let mut tagged = false;
    // SAFETY: a value of this call; `tagged` is written.
    let status = unsafe { sys::napi_check_object_type_tag(env, value.raw(), &TAG, &mut tagged) };
    if status != sys::Status::napi_ok || !tagged {
        return None;
    }
    let mut data = ptr::null_mut();
    // SAFETY: an external of ours (tagged); `data` is written.
    let status = unsafe { sys::napi_get_value_external(env, value.raw(), &mut data) };
    if status != sys::Status::napi_ok || data.is_null() {
        return None;
    }
    // SAFETY: the external's data is the `Handle` that `handle` boxed; the
    // external is alive for this call (it is an argument), so the handle is.
    Some(unsafe { &*data.cast::<Handle>() })
}

/// The event of a call: its name, and its position among the policy's
/// events when the caller knows it.
struct AskedEvent<'s> {
    name: Js<'s>,
    index: Js<'s>,
}

impl AskedEvent<'_> {
    /// The event's name: the policy's own copy when `index` gives it.
    fn read<'h>(&self, bound: &'h BoundPolicy) -> Result<Cow<'h, str>, NodeError> {
        if self.index.kind() == JsKind::Number {
            let i = self.index.number().map_err(|e| NodeError::Context(e.0))?;
            return bound
                .event_names()
                .get(i as usize)
                .filter(|_| i >= 0.0 && i.fract() == 0.0)
                .map(|name| Cow::Borrowed(name.as_str()))
                .ok_or_else(|| NodeError::Type("not an event index of this policy".to_owned()));
        }
        if self.name.kind() != JsKind::String {
            return Err(NodeError::Type("the event must be a string".to_owned()));
        }
        let mut name = String::new();
        self.name
            .read_string(&mut name)
            .map_err(|e| NodeError::Context(e.0))?;
        Ok(Cow::Owned(name))
    }
}

/// An answer: JSON, or JavaScript values already built.
enum Answered<'s> {
    Json(Value),
    Built(Js<'s>),
}

/// The answer to `question`.
fn answer<'s>(
    handle: &Handle,
    scope: Scope<'s>,
    question: Question,
    event: AskedEvent<'_>,
    context: Js<'_>,
    options: Js<'_>,
) -> Result<Answered<'s>, NodeError> {
    let name = event.read(&handle.bound)?;
    let name = name.as_ref();
    let narrowing = read_options(&handle.bound, options)?;
    let bound = &handle.bound;
    match context.kind() {
        JsKind::String => {
            let mut text = String::new();
            context
                .read_string(&mut text)
                .map_err(|e| NodeError::Context(e.0))?;
            bound
                .answer(question, name, Context::json(text.as_bytes()), &narrowing)
                .map(Answered::Json)
                .map_err(NodeError::Binding)
        }
        JsKind::Object => {
            if let Some(bytes) = context.uint8_bytes() {
                return bound
                    .answer(question, name, Context::json(bytes), &narrowing)
                    .map(Answered::Json)
                    .map_err(NodeError::Binding);
            }
            // No hook runs for an event no hook names (and no "*" hook):
            // an object is read only where a hook reads it, so the answer
            // is known. Text is still evaluated: it must be valid JSON.
            if bound.unheard(name) {
                if let Some(nothing) = question.unheard() {
                    return Ok(Answered::Json(nothing));
                }
            }
            let keys = match &handle.keys {
                Some(keys) => scope
                    .get_reference(keys)
                    .map_err(|e| NodeError::Context(e.0))?,
                None => {
                    return Err(NodeError::Binding(BindingError::Internal(
                        "a policy handle without its keys".to_owned(),
                    )))
                }
            };
            let lookup = ObjectLookup::new(context, keys, &handle.paths.steps);
            if question == Question::Evaluate {
                return evaluate(bound, scope, name, &lookup, &narrowing);
            }
            let result = bound.answer(question, name, Context::Lookup(&lookup), &narrowing);
            if let Some(e) = lookup.take_error() {
                return Err(NodeError::Context(e.message()));
            }
            result.map(Answered::Json).map_err(NodeError::Binding)
        }
        _ => Err(NodeError::Type(
            "the context must be an object, or JSON text as a string or a Buffer/Uint8Array"
                .to_owned(),
        )),
    }
}

/// `evaluate` on an object: the deciding action built straight into
/// JavaScript values ([`JsSink`]) when the decision is that match alone;
/// otherwise the JSON answer.
fn evaluate<'s>(
    bound: &BoundPolicy,
    scope: Scope<'s>,
    event: &str,
    lookup: &ObjectLookup<'_, '_>,
    narrowing: &hookc_binding::Narrowing,
) -> Result<Answered<'s>, NodeError> {
    // The action is the answer's `action` member: one level down.
    let mut sink = JsSink::new(scope, 1);
    let result = bound.evaluate_with(event, Context::Lookup(lookup), narrowing, &mut sink);
    if let Some(e) = lookup.take_error() {
        return Err(NodeError::Context(e.message()));
    }
    match result.map_err(NodeError::Binding)? {
        Evaluated::Json(v) => Ok(Answered::Json(v)),
        Evaluated::Built(None) => Ok(Answered::Json(Value::Null)),
        Evaluated::Built(Some((_, hook, action))) => {
            let action = sink.finish(action).map_err(internal)?;
            let answer = scope.object().map_err(internal)?;
            let hook = scope.string(hook).map_err(internal)?;
            answer.set("hook", hook).map_err(internal)?;
            answer.set("action", action).map_err(internal)?;
            Ok(Answered::Built(answer))
        }
    }
}

/// An answer that could not be made into JavaScript values.
fn internal(e: crate::js::Thrown) -> NodeError {
    NodeError::Binding(BindingError::Internal(format!(
        "cannot return the answer: {}",
        e.0
    )))
}

/// The answer as `ask` returns it: JavaScript values, built directly.
fn write(env: sys::napi_env, answer: &Value) -> Result<sys::napi_value, NodeError> {
    let napi_env = napi::Env::from_raw(env);
    Scope::new(&napi_env)
        .json(answer, 0)
        .map(|v| v.raw())
        .map_err(internal)
}

/// Throws `spec` as a JavaScript `Error` (a message with a NUL is cut
/// there: C strings cannot hold it).
fn throw(env: sys::napi_env, spec: &ThrowSpec) {
    let message = format!("{}: {}", spec.code, spec.message);
    let cut = message.split('\0').next().unwrap_or_default();
    let Ok(message) = CString::new(cut) else {
        return;
    };
    // SAFETY: a NUL-terminated message; no code (the message carries it).
    let _ = unsafe { sys::napi_throw_error(env, ptr::null(), message.as_ptr()) };
}

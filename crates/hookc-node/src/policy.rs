//! `NativePolicy`: a loaded, verified policy as the addon's class, behind
//! the package's `Policy` (`index.js`): loading, artifacts, hook ids and
//! events, sharing, the hosts' answers, and the handle the evaluations go
//! through ([`crate::fast`]), all over the shared binding layer
//! (`hookc_binding::BoundPolicy`).
//!
//! The policy itself is shared (`Arc`) between the objects that worker
//! threads make of it with `share()` / `fromShared()`; a handle, with the
//! key strings its lookups use, belongs to one thread's environment.

use crate::convert::to_value;
use crate::error::{fail, NodeError};
use crate::js::{Js, JsKind};
use hookc_binding::hosts::{HookOptions, Host};
use hookc_binding::{BoundPolicy, Narrowing};
use napi::bindgen_prelude::{Buffer, Either, Env, Uint8Array, Unknown};
use napi_derive::napi;
use serde_json::Value;
use std::path::PathBuf;
use std::sync::Arc;

/// What `hookc hook --host HOST` writes and exits with.
#[napi(object)]
pub struct NativeReply {
    /// Standard output: empty, or one JSON document and a newline.
    pub stdout: String,
    /// Standard error.
    pub stderr: String,
    /// The exit code.
    pub exit_code: u32,
}

/// A loaded policy.
#[napi]
pub struct NativePolicy {
    bound: Arc<BoundPolicy>,
}

impl NativePolicy {
    /// The object of `bound`.
    pub fn new(bound: Arc<BoundPolicy>) -> NativePolicy {
        NativePolicy { bound }
    }
}

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

#[napi]
impl NativePolicy {
    /// Loads artifact bytes, decoded and verified.
    #[napi(factory)]
    pub fn from_artifact(data: Uint8Array) -> napi::Result<NativePolicy> {
        let bound = BoundPolicy::from_artifact(&data).map_err(fail)?;
        Ok(NativePolicy::new(Arc::new(bound)))
    }

    /// The policy another object shared with `share()`, in this thread.
    #[napi(factory)]
    pub fn from_shared(token: String) -> napi::Result<NativePolicy> {
        crate::share::take(&token).map(NativePolicy::new)
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

    /// The handle `ask` evaluates with (`fast.rs`), made in this thread.
    #[napi]
    pub fn handle<'e>(&self, env: &'e Env) -> napi::Result<Unknown<'e>> {
        crate::fast::handle(env, Arc::clone(&self.bound))
    }

    /// The answer of `host` to one hook `payload` (JSON text or its
    /// bytes): what `hookc hook --host HOST [--event E] [--fail-open]
    /// [--log FILE]` writes and exits with, byte for byte, the host actions
    /// its hooks await (`run`, `test_path`) performed as the command does.
    #[napi]
    pub fn hook(
        &self,
        host: String,
        payload: Either<String, Uint8Array>,
        event: Option<String>,
        fail_open: bool,
        log: Option<String>,
    ) -> napi::Result<NativeReply> {
        let host: Host = host
            .parse()
            .map_err(|e: hookc_binding::hosts::UnknownHost| fail(e.into()))?;
        let bytes: &[u8] = match &payload {
            Either::A(text) => text.as_bytes(),
            Either::B(bytes) => bytes,
        };
        let log = log.map(PathBuf::from);
        let options = HookOptions {
            event: event.as_deref(),
            fail_open,
            log: log.as_deref(),
        };
        let reply = hookc_binding::hosts::hook(self.bound.policy(), host, bytes, &options);
        Ok(NativeReply {
            stdout: reply.stdout,
            stderr: reply.stderr,
            exit_code: u32::from(reply.exit),
        })
    }

    /// Whether a hook listens to every event (`"*"`).
    #[napi]
    pub fn listens_to_every_event(&self) -> bool {
        self.bound.policy().every_event_hooks() > 0
    }

    /// `N hooks`, for the package's inspection.
    #[napi]
    pub fn describe(&self) -> String {
        self.bound.describe()
    }
}

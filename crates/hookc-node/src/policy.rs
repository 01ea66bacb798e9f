//! `NativePolicy`: a loaded, verified policy as the addon's class, behind
//! the package's `Policy` (`index.js`): loading, artifacts, hook ids and
//! events, sharing, the hosts' answers, and the handle the evaluations go
//! through ([`crate::fast`]), all over the shared binding layer
//! (`hookc_binding::BoundPolicy`).
//!
//! The policy itself is shared (`Arc`) between the objects that worker
//! threads make of it with `share()` / `fromShared()`; a handle, with the
//! key strings its lookups use, belongs to one thread's environment.

use crate::error::fail;
use hookc_binding::hosts::{HookOptions, Host};
use hookc_binding::BoundPolicy;
use napi::bindgen_prelude::{Buffer, Either, Env, Uint8Array, Unknown};
use napi_derive::napi;
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

    /// The event's hooks as flat conjunctions that `flat.js` decides in
    /// JavaScript exactly as the addon would (`Policy::flat_plan`), as
    /// JSON: `[{id, decides, leaves}]`, each leaf `["cmp", path, op,
    /// value]`, `["in", path, values]` or `["has", path]`, a path `[root,
    /// key or index, ...]`; `null` when the event has none, or a leaf
    /// JavaScript would read another way (a comparison that orders
    /// strings, a number JavaScript does not hold exactly).
    #[napi]
    pub fn flat_plan(&self, event: String) -> Option<String> {
        let plan = self.bound.policy().flat_plan(&event)?;
        let hooks: Option<Vec<serde_json::Value>> = plan
            .iter()
            .map(|h| {
                let leaves: Option<Vec<serde_json::Value>> =
                    h.leaves.iter().map(crate::flat::leaf_json).collect();
                Some(serde_json::json!({"id": h.id, "decides": h.decides, "leaves": leaves?}))
            })
            .collect();
        Some(serde_json::Value::Array(hooks?).to_string())
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
            log: log.as_deref().map(hookc_binding::hosts::DecisionLog::at),
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

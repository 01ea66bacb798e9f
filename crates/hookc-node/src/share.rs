//! Policies shared between worker threads: `policy.share()` gives a token
//! that `Policy.fromShared(token)` in another thread (another JavaScript
//! environment) turns into an object of the same loaded policy, without
//! loading it again. The registry holds weak references only, so a token
//! never keeps a policy alive: it is valid while some object, in any
//! thread, still holds the policy. Dead entries are dropped on each
//! `share()`, so the registry is as large as the policies alive.

use crate::error::NodeError;
use hookc_binding::{BindingError, BoundPolicy};
use std::collections::HashMap;
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::{Arc, Mutex, OnceLock, Weak};

/// The shared policies by token number.
fn registry() -> &'static Mutex<HashMap<u64, Weak<BoundPolicy>>> {
    static REGISTRY: OnceLock<Mutex<HashMap<u64, Weak<BoundPolicy>>>> = OnceLock::new();
    REGISTRY.get_or_init(|| Mutex::new(HashMap::new()))
}

/// The token prefix, so a stray string is told apart from a stale token.
const PREFIX: &str = "hookc-policy:";

/// A token for `policy`.
pub fn put(policy: &Arc<BoundPolicy>) -> String {
    static NEXT: AtomicU64 = AtomicU64::new(1);
    let n = NEXT.fetch_add(1, Ordering::Relaxed);
    // A poisoned lock only means another thread panicked while holding
    // it; the map itself is always whole (inserts and retains).
    let mut map = registry().lock().unwrap_or_else(|e| e.into_inner());
    map.retain(|_, weak| weak.strong_count() > 0);
    map.insert(n, Arc::downgrade(policy));
    format!("{PREFIX}{n}")
}

/// The policy of `token`.
pub fn take(token: &str) -> napi::Result<Arc<BoundPolicy>> {
    let n = token
        .strip_prefix(PREFIX)
        .and_then(|n| n.parse::<u64>().ok())
        .ok_or_else(|| {
            NodeError::Type(format!(
                "`{token}` is not a token of `policy.share()` (they look like `{PREFIX}1`)"
            ))
        })?;
    let map = registry().lock().unwrap_or_else(|e| e.into_inner());
    map.get(&n).and_then(Weak::upgrade).ok_or_else(|| {
        NodeError::Binding(BindingError::Argument(format!(
            "the policy of `{token}` is gone: no object holds it any more (keep the shared \
             policy alive in the thread that shared it while others use it)"
        )))
        .into()
    })
}

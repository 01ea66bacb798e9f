//! Codex's settings (`docs/src/hosts/codex.md#install`): the project's
//! `.codex/hooks.json`, `{"hooks": {"<Event>": [matcher groups]}}`.
//!
//! Codex reads hooks from a `hooks.json` beside each config layer and from
//! `[hooks]` tables in its `config.toml`, with the same vocabulary
//! (`codex-rs/config`'s `HooksFile` in openai/codex: a matcher group is
//! `{matcher?, hooks: [{type: "command", command, timeout?,
//! statusMessage?}]}`, `timeout` in seconds); `hooks.json` is its own
//! file, so writing it leaves the user's `config.toml` untouched. Codex
//! refuses a `hooks.json` with root members other than `hooks` and
//! `description`, so nothing else is added. Codex has no fail-closed
//! setting (a failed hook lets the call through): `hookc hook --host
//! codex` answers a blocking decision itself when the policy cannot answer.

use super::{matcher_group, no_members, Event, Setup};
use serde_json::{json, Value};

/// What `hookc init --host codex` writes.
pub(super) const SETUP: Setup = Setup {
    name: "codex",
    policy: include_str!("../../../../examples/hosts/codex/guard.yaml"),
    tests: include_str!("../../../../examples/hosts/codex/guard.test.yaml"),
    settings: ".codex/hooks.json",
    // Codex runs a hook through the shell in the session's folder, which
    // may be below the project's, and names no project folder: the
    // repository's top is the project (outside a repository the policy is
    // not found, and `hookc hook` blocks, saying so).
    command: "hookc hook --host codex \"$(git rev-parse --show-toplevel)\"/.hookc/guard.yaml",
    required: no_members,
    entry,
};

/// A matcher group without a matcher: it runs for every call of the event,
/// and the policy chooses.
fn entry(_event: &Event, command: &str) -> Value {
    let handler = json!({"type": "command", "command": command, "timeout": 10});
    matcher_group(None, handler)
}

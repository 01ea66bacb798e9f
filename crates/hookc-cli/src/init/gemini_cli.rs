//! Gemini CLI's settings (`docs/src/hosts/gemini-cli.md#install`): the
//! project's `.gemini/settings.json`, `hooks.<Event>` lists of matcher
//! groups (Gemini CLI's hooks reference, `docs/hooks/reference.md` in
//! google-gemini/gemini-cli: `{matcher?, sequential?, hooks: [{type:
//! "command", command, name?, timeout?, description?}]}`, `timeout` in
//! milliseconds).
//!
//! Gemini CLI has no fail-closed setting: a hook that fails other than by
//! exiting 2 is a warning, and the call goes on. `hookc hook --host
//! gemini-cli` exits 2 (a block) itself when the policy cannot answer.

use super::{matcher_group, no_members, Event, Setup};
use serde_json::{json, Value};

/// What `hookc init --host gemini-cli` writes.
pub(super) const SETUP: Setup = Setup {
    name: "gemini-cli",
    policy: include_str!("../../../../examples/hosts/gemini-cli/guard.yaml"),
    tests: include_str!("../../../../examples/hosts/gemini-cli/guard.test.yaml"),
    settings: ".gemini/settings.json",
    // Gemini CLI names the project's folder in `GEMINI_PROJECT_DIR`.
    command: "hookc hook --host gemini-cli \"$GEMINI_PROJECT_DIR\"/.hookc/guard.yaml",
    required: no_members,
    entry,
};

/// A matcher group without a matcher (every tool: a tool matcher is a
/// regular expression, and the policy's `tool_name` conditions are
/// type-checked where a pattern is not).
fn entry(_event: &Event, command: &str) -> Value {
    let handler = json!({"name": "hookc", "type": "command", "command": command, "timeout": 10000});
    matcher_group(None, handler)
}

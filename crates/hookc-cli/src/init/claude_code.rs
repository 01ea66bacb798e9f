//! Claude Code's settings (`docs/src/hosts/claude-code.md#install`):
//! `.claude/settings.json`, `hooks.<Event>` lists of matcher groups, each
//! running `hookc hook --host claude-code` with `onFailure: "block"` so
//! that a hook that crashes or times out blocks too.

use super::{matcher_group, no_members, Event, Setup};
use serde_json::{json, Value};

/// What `hookc init --host claude-code` writes.
pub(super) const SETUP: Setup = Setup {
    name: "claude-code",
    policy: include_str!("../../../../examples/hosts/claude-code/guard.yaml"),
    tests: include_str!("../../../../examples/hosts/claude-code/guard.test.yaml"),
    settings: ".claude/settings.json",
    // Claude Code runs hooks in the session's folder, which may be below
    // the project's; it names the project in `CLAUDE_PROJECT_DIR`.
    command: "hookc hook --host claude-code \"$CLAUDE_PROJECT_DIR\"/.hookc/guard.yaml",
    required: no_members,
    entry,
};

/// A matcher group; the tool events match every tool (`*`), so that the
/// policy, whose `tool_name` conditions are type-checked, chooses.
fn entry(event: &Event, command: &str) -> Value {
    let handler =
        json!({"type": "command", "command": command, "timeout": 10, "onFailure": "block"});
    matcher_group(event.tools.then_some("*"), handler)
}

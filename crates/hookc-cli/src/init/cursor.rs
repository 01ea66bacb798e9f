//! Cursor's settings (`docs/src/hosts/cursor.md#install`): the project's
//! `.cursor/hooks.json`, `{"version": 1, "hooks": {"<event>": [{"command":
//! ...}]}}`, flat entries without matcher groups.
//!
//! Each entry sets `failClosed: true`, so that a hook that crashes or times
//! out blocks instead of letting the call through, and `timeout` (seconds);
//! both keys, and the folder hooks run in, are from secondary pages
//! (`docs/src/hosts/cursor.md#sources`).

use super::{Event, Setup};
use serde_json::{json, Value};

/// What `hookc init --host cursor` writes.
pub(super) const SETUP: Setup = Setup {
    name: "cursor",
    policy: include_str!("../../../../examples/hosts/cursor/guard.yaml"),
    tests: include_str!("../../../../examples/hosts/cursor/guard.test.yaml"),
    settings: ".cursor/hooks.json",
    // Cursor runs a project's hooks in the project's folder.
    command: "hookc hook --host cursor .hookc/guard.yaml",
    required,
    entry,
};

/// Cursor reads a hooks file of `version` 1.
fn required() -> Vec<(&'static str, Value)> {
    vec![("version", json!(1))]
}

/// One flat entry.
fn entry(_event: &Event, command: &str) -> Value {
    json!({"command": command, "timeout": 10, "failClosed": true})
}

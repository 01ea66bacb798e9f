//! GitHub Copilot's settings (`docs/src/hosts/copilot.md#install`): its
//! own file among the `.github/hooks/*.json` Copilot reads,
//! `.github/hooks/hookc.json`: `{"version": 1, "hooks": {"<event>":
//! [{"type": "command", "bash", "powershell", "cwd", "timeoutSec"}]}}`, flat
//! entries.
//!
//! Copilot's camelCase payloads do not name their event, so each entry
//! passes it (`--event`). Copilot names no variable for the project's
//! folder: the entries run from the repository's root (`cwd: "."`), where
//! `.hookc/` is. It has no fail-closed setting (a hook that fails is
//! skipped): `hookc hook --host copilot` answers a deny itself when the
//! policy cannot answer.

use super::{Event, Setup};
use serde_json::{json, Value};

/// What `hookc init --host copilot` writes.
pub(super) const SETUP: Setup = Setup {
    name: "copilot",
    policy: include_str!("../../../../examples/hosts/copilot/guard.yaml"),
    tests: include_str!("../../../../examples/hosts/copilot/guard.test.yaml"),
    settings: ".github/hooks/hookc.json",
    command: "hookc hook --host copilot --event {event} .hookc/guard.yaml",
    required,
    entry,
};

/// Copilot reads a hooks file of `version` 1.
fn required() -> Vec<(&'static str, Value)> {
    vec![("version", json!(1))]
}

/// One flat entry, the same command for bash and PowerShell.
fn entry(_event: &Event, command: &str) -> Value {
    json!({
        "type": "command",
        "bash": command,
        "powershell": command,
        "cwd": ".",
        "timeoutSec": 30,
    })
}

//! GitHub Copilot's wire (the Copilot CLI hooks reference,
//! docs.github.com/en/copilot/reference/copilot-cli-reference/cli-hooks-reference,
//! and the hooks configuration reference,
//! docs.github.com/en/copilot/reference/hooks-configuration): the one place
//! that reads its payloads' peculiarities and spells a [`Ruling`] and a
//! failure in its answers (docs/src/hosts/copilot.md).
//!
//! Reading: the camelCase payloads of `.github/hooks/*.json` do not name
//! their event, so `hookc hook --host copilot --event NAME` is told it
//! ([`super::HookOptions::event`]), and
//! a name that is not one of [`EVENTS`] is refused (a misspelt event would
//! otherwise never decide). The CLI sends `toolArgs` as a JSON string; it is
//! parsed in place, so a policy reads `toolArgs.command`.
//!
//! Answering:
//! - No decision: exit 0, nothing on standard output (never `allow`).
//! - preToolUse: `{"permissionDecision": "allow"|"ask"|"deny",
//!   "permissionDecisionReason"}` (the attributed reason), with
//!   `modifiedArgs`, the final rewritten `toolArgs` (an object, as the
//!   reference types it), when a `rewrite` matched.
//! - permissionRequest: `{"behavior": "allow"|"deny"}`, `message` the reason
//!   of a deny; `ask` answers nothing, which falls through to Copilot's own
//!   permission flow (it asks).
//! - agentStop, subagentStop: `{"decision": "block", "reason"}` for any word
//!   but `allow`: the agent goes on with the reason as its prompt.
//! - subagentStart: `additionalContext`.
//! - The rest: nothing (Copilot does not read a command hook's answer).
//! - A failure, fail-closed: Copilot logs and skips a hook that exits
//!   non-zero, so a block is an answer with exit 0: preToolUse's
//!   `permissionDecision: "deny"`, permissionRequest's `behavior: "deny"`,
//!   both when the event is not known; on the events that cannot block,
//!   exit 1 with the reason on standard error (logged).

use super::outcome::{behavior, Reply, Ruling};
use super::{HookError, Host};
use serde_json::{Map, Value};

/// The camelCase events of Copilot's hook files, as its profile declares
/// them (`crates/hookc/src/hosts/copilot.yaml`).
pub const EVENTS: [&str; 12] = [
    "preToolUse",
    "permissionRequest",
    "postToolUse",
    "postToolUseFailure",
    "userPromptSubmitted",
    "sessionStart",
    "sessionEnd",
    "agentStop",
    "subagentStart",
    "subagentStop",
    "errorOccurred",
    "preCompact",
];

/// What Copilot lets a command hook answer on an event.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum CopilotReply {
    /// `permissionDecision`, its reason, `modifiedArgs` (preToolUse).
    Permission,
    /// `behavior` and `message` (permissionRequest).
    Behavior,
    /// `decision: "block"` and `reason` (agentStop, subagentStop).
    Continue,
    /// `additionalContext` (subagentStart).
    Context,
    /// Nothing.
    Nothing,
}

/// What Copilot lets a hook answer on `event`; `None` for an event it does
/// not have.
fn shape(event: &str) -> Option<CopilotReply> {
    Some(match event {
        "preToolUse" => CopilotReply::Permission,
        "permissionRequest" => CopilotReply::Behavior,
        "agentStop" | "subagentStop" => CopilotReply::Continue,
        "subagentStart" => CopilotReply::Context,
        e if EVENTS.contains(&e) => CopilotReply::Nothing,
        _ => return None,
    })
}

/// Prepares a payload for the evaluation on `event`: refuses an event
/// Copilot does not have, and parses a `toolArgs` sent as JSON text into
/// its object (a text that is not a JSON object stays as it is).
pub fn prepare(event: &str, payload: &mut Map<String, Value>) -> Result<(), HookError> {
    if shape(event).is_none() {
        return Err(HookError::UnknownEvent {
            host: Host::Copilot.name(),
            event: event.to_owned(),
            events: EVENTS.join(", "),
        });
    }
    let Some(Value::String(text)) = payload.get("toolArgs") else {
        return Ok(());
    };
    if let Ok(args @ Value::Object(_)) = serde_json::from_str::<Value>(text) {
        payload.insert("toolArgs".to_owned(), args);
    }
    Ok(())
}

/// The answer's members to `outcome` as `shape` says.
fn members(shape: CopilotReply, outcome: &Ruling) -> Map<String, Value> {
    let mut out = Map::new();
    let verdict = outcome.verdict.as_ref();
    let text = |s: &str| Value::from(s);
    match shape {
        CopilotReply::Permission => {
            if let Some(v) = verdict {
                out.insert("permissionDecision".to_owned(), text(&v.word));
                out.insert("permissionDecisionReason".to_owned(), text(&v.reason));
            }
            if let Some(args) = outcome.updated_input.clone() {
                out.insert("modifiedArgs".to_owned(), args);
            }
        }
        CopilotReply::Behavior => out.extend(behavior(verdict).unwrap_or_default()),
        CopilotReply::Continue => {
            if let Some(v) = verdict.filter(|v| v.word != "allow") {
                out.insert("decision".to_owned(), text("block"));
                out.insert("reason".to_owned(), text(&v.reason));
            }
        }
        CopilotReply::Context => {
            if let Some(context) = &outcome.context {
                out.insert("additionalContext".to_owned(), text(context));
            }
        }
        CopilotReply::Nothing => {}
    }
    out
}

/// Copilot's answer to `outcome` on `event`.
pub fn answer(event: &str, outcome: &Ruling) -> Reply {
    Reply::json(shape(event).map_or_else(Map::new, |s| members(s, outcome)))
}

/// Copilot's block on `event` (`None`: not known), for a failure, with the
/// reason on standard error (Copilot logs it): the event's deny with exit 0
/// where it can deny (both deciding events' members when the event is not
/// known, each read only on its own event); exit 1 where it cannot.
pub fn block(event: Option<&str>, reason: &str) -> Reply {
    let denied = Ruling::denied(reason);
    let (answer, exit) = match event.map(shape) {
        Some(Some(s @ (CopilotReply::Permission | CopilotReply::Behavior))) => {
            (members(s, &denied), 0)
        }
        Some(Some(_)) => (Map::new(), 1),
        Some(None) | None => {
            let mut both = members(CopilotReply::Permission, &denied);
            both.extend(members(CopilotReply::Behavior, &denied));
            (both, 0)
        }
    };
    Reply {
        stdout: Reply::json(answer).stdout,
        ..Reply::exit_with(exit, reason)
    }
}

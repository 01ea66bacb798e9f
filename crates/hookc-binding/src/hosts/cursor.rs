//! Cursor's answer (cursor.com/docs/agent/hooks): the one place that
//! spells a [`Ruling`] and a failure in its wire. The members below and
//! exit 2 are from secondary pages, not quoted from Cursor's own
//! (`docs/src/hosts/cursor.md#sources`).
//!
//! - No decision: exit 0, nothing on standard output (never `allow`).
//! - beforeShellExecution, beforeMCPExecution, beforeReadFile, preToolUse:
//!   `{"permission": "allow"|"ask"|"deny", "user_message", "agent_message"}`
//!   (both messages the attributed reason); preToolUse adds
//!   `updated_input`, the final rewritten `tool_input`.
//! - beforeSubmitPrompt: `{"continue": false, "user_message"}` for any word
//!   but `allow`, `{"continue": true}` for `allow`.
//! - postToolUse, sessionStart: `additional_context`.
//! - stop: `followup_message`, the reason, for any word but `allow`.
//! - afterShellExecution, afterFileEdit and the rest: nothing.
//! - A failure, fail-closed: the event's blocking answer where it has one
//!   (permission `deny`, `continue: false`) and exit 2, which Cursor reads
//!   as a block; elsewhere exit 2 with the reason on standard error.

use super::outcome::{Reply, Ruling};
use serde_json::{Map, Value};

/// What Cursor lets a hook answer on an event.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum CursorReply {
    /// `permission` with its messages; `updated_input` when `rewrite`.
    Permission {
        /// Whether `updated_input` is read (preToolUse).
        rewrite: bool,
    },
    /// `continue` and `user_message` (beforeSubmitPrompt).
    Continue,
    /// `additional_context`.
    Context,
    /// `followup_message` (stop).
    Followup,
    /// Nothing.
    Nothing,
}

/// What Cursor lets a hook answer on `event`.
fn shape(event: &str) -> CursorReply {
    match event {
        "preToolUse" => CursorReply::Permission { rewrite: true },
        "beforeShellExecution" | "beforeMCPExecution" | "beforeReadFile" => {
            CursorReply::Permission { rewrite: false }
        }
        "beforeSubmitPrompt" => CursorReply::Continue,
        "postToolUse" | "sessionStart" => CursorReply::Context,
        "stop" => CursorReply::Followup,
        _ => CursorReply::Nothing,
    }
}

/// The answer's members to `outcome` as `shape` says.
fn members(shape: CursorReply, outcome: &Ruling) -> Map<String, Value> {
    let mut out = Map::new();
    let verdict = outcome.verdict.as_ref();
    let blocking = verdict.filter(|v| v.word != "allow");
    match shape {
        CursorReply::Permission { rewrite } => {
            if let Some(v) = verdict {
                out.insert("permission".to_owned(), Value::from(v.word.as_str()));
                out.insert("user_message".to_owned(), Value::from(v.reason.as_str()));
                out.insert("agent_message".to_owned(), Value::from(v.reason.as_str()));
            }
            if let Some(input) = outcome.updated_input.clone().filter(|_| rewrite) {
                out.insert("updated_input".to_owned(), input);
            }
        }
        CursorReply::Continue => {
            if let Some(v) = verdict {
                out.insert("continue".to_owned(), Value::Bool(v.word == "allow"));
            }
            if let Some(v) = blocking {
                out.insert("user_message".to_owned(), Value::from(v.reason.as_str()));
            }
        }
        CursorReply::Context => {
            if let Some(text) = outcome.context.clone() {
                out.insert("additional_context".to_owned(), Value::from(text));
            }
        }
        CursorReply::Followup => {
            if let Some(v) = blocking {
                out.insert(
                    "followup_message".to_owned(),
                    Value::from(v.reason.as_str()),
                );
            }
        }
        CursorReply::Nothing => {}
    }
    out
}

/// Cursor's answer to `outcome` on `event`.
pub fn answer(event: &str, outcome: &Ruling) -> Reply {
    Reply::json(members(shape(event), outcome))
}

/// Cursor's block on `event` (`None`: not known), for a failure: exit 2,
/// the reason on standard error, and the event's blocking answer on
/// standard output where it has one.
pub fn block(event: Option<&str>, reason: &str) -> Reply {
    let denied = Ruling::denied(reason);
    let can_block = event
        .map(shape)
        .filter(|a| matches!(a, CursorReply::Permission { .. } | CursorReply::Continue));
    let stdout = match can_block {
        Some(a) => format!("{}\n", Value::Object(members(a, &denied))),
        None => String::new(),
    };
    Reply {
        stdout,
        ..Reply::exit_with(2, reason)
    }
}

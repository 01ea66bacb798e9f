//! The Codex CLI's answer (developers.openai.com/codex/hooks; the answer
//! schemas of openai/codex `codex-rs/hooks/schema/generated/`): the one
//! place that spells a [`Ruling`] and a failure in its wire. Its answer
//! schemas forbid unknown members, so each event gets exactly the members
//! its schema has; everything exits 0.
//!
//! - No decision: nothing on standard output.
//! - PreToolUse: `hookSpecificOutput` with `permissionDecision`
//!   (`allow|ask|deny`), `permissionDecisionReason`, `updatedInput`,
//!   `additionalContext`.
//! - PermissionRequest: `hookSpecificOutput.decision`, `{"behavior":
//!   "allow"}` or `{"behavior": "deny", "message"}`; `ask` answers nothing,
//!   so Codex goes on to its own approval. Never `updatedInput` or
//!   `interrupt`, on which Codex fails closed.
//! - PostToolUse, UserPromptSubmit: `{"decision": "block", "reason"}` for
//!   any word but `allow`, with `hookSpecificOutput.additionalContext`.
//! - Stop: `{"decision": "block", "reason"}`.
//! - SessionStart: `hookSpecificOutput.additionalContext`.
//! - A failure, fail-closed: PreToolUse's and PermissionRequest's `deny`,
//!   the other blocking events' `block`, and elsewhere (or when the event
//!   is not known) `{"continue": false, "stopReason"}`, which every answer
//!   schema has.

use super::outcome::{answer as spell, Answers, Reply, Ruling};
use serde_json::{Map, Value};

/// What Codex lets a hook answer on `event`.
fn answers(event: &str) -> Answers {
    match event {
        "PreToolUse" => Answers::Permission,
        // Codex fails closed on the reserved `updatedInput`.
        "PermissionRequest" => Answers::Behavior {
            updated_input: false,
        },
        "PostToolUse" | "UserPromptSubmit" => Answers::BlockAndContext,
        "Stop" => Answers::Block,
        "SessionStart" => Answers::Context,
        _ => Answers::Nothing,
    }
}

/// Codex's answer to `outcome` on `event`.
pub fn answer(event: &str, outcome: &Ruling) -> Reply {
    spell(event, answers(event), outcome)
}

/// Codex's block on `event` (`None`: not known), for a failure: the
/// event's own block where it has one, else `{"continue": false,
/// "stopReason"}`.
pub fn block(event: Option<&str>, reason: &str) -> Reply {
    let can_block = event.map(|e| (e, answers(e))).filter(|(_, a)| {
        matches!(
            a,
            Answers::Permission
                | Answers::Behavior { .. }
                | Answers::BlockAndContext
                | Answers::Block
        )
    });
    match can_block {
        Some((event, answers)) => {
            let denied = Ruling::denied(reason);
            spell(event, answers, &denied)
        }
        None => {
            let mut out = Map::new();
            out.insert("continue".to_owned(), Value::Bool(false));
            out.insert("stopReason".to_owned(), Value::from(reason));
            Reply::json(out)
        }
    }
}

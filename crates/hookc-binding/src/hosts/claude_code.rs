//! Claude Code's answer (code.claude.com/docs/en/hooks): the one place
//! that spells a [`Ruling`] and a failure in its wire.
//!
//! - No decision: exit 0, nothing on standard output (never `allow`,
//!   which would skip the permission prompt).
//! - PreToolUse: `hookSpecificOutput` with `permissionDecision`
//!   (`allow|ask|defer|deny`), `permissionDecisionReason`, `updatedInput`
//!   and `additionalContext`.
//! - PermissionRequest: `hookSpecificOutput.decision`, `{"behavior":
//!   "allow"}` (with `updatedInput` when a rewrite matched) or
//!   `{"behavior": "deny", "message"}`; `ask` and `defer` answer nothing,
//!   so the permission dialog shows.
//! - PostToolUse, UserPromptSubmit, Stop, SubagentStop: `{"decision":
//!   "block", "reason"}` for any word but `allow`; PostToolUse and
//!   UserPromptSubmit add `hookSpecificOutput.additionalContext`.
//! - SessionStart, PostToolUseFailure: `hookSpecificOutput.additionalContext`.
//! - A failure, fail-closed: exit 2 with the reason on standard error,
//!   which Claude Code documents as blocking for every event that can
//!   block (on PermissionRequest it denies the permission).

use super::outcome::{answer as spell, Answers, Reply, Ruling};

/// What Claude Code lets a hook answer on `event`.
fn answers(event: &str) -> Answers {
    match event {
        "PreToolUse" => Answers::Permission,
        "PermissionRequest" => Answers::Behavior {
            updated_input: true,
        },
        "PostToolUse" | "UserPromptSubmit" => Answers::BlockAndContext,
        "Stop" | "SubagentStop" => Answers::Block,
        "SessionStart" | "PostToolUseFailure" => Answers::Context,
        _ => Answers::Nothing,
    }
}

/// Claude Code's answer to `outcome` on `event`.
pub fn answer(event: &str, outcome: &Ruling) -> Reply {
    spell(event, answers(event), outcome)
}

/// Claude Code's block, for a failure: exit 2, the reason on standard
/// error.
pub fn block(reason: &str) -> Reply {
    Reply::exit_with(2, reason)
}

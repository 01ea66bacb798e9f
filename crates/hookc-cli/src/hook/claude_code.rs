//! Claude Code's answer (code.claude.com/docs/en/hooks): the one place
//! that spells an [`Outcome`] and a failure in its wire.
//!
//! - No decision: exit 0, nothing on standard output (never `allow`,
//!   which would skip the permission prompt).
//! - PreToolUse: `hookSpecificOutput` with `permissionDecision`
//!   (`allow|ask|defer|deny`), `permissionDecisionReason`, `updatedInput`
//!   and `additionalContext`.
//! - PostToolUse, UserPromptSubmit, Stop, SubagentStop: `{"decision":
//!   "block", "reason"}` for any word but `allow`; PostToolUse and
//!   UserPromptSubmit add `hookSpecificOutput.additionalContext`.
//! - SessionStart: `hookSpecificOutput.additionalContext`.
//! - A failure, fail-closed: exit 2 with the reason on standard error,
//!   which Claude Code documents as blocking for every event that can
//!   block.

use super::outcome::{block_or_pass, pre_tool_use, specific, Outcome, Reply};
use serde_json::{Map, Value};

/// Claude Code's answer to `outcome` on `event`.
pub fn answer(event: &str, outcome: &Outcome) -> Reply {
    let context = || {
        specific(
            event,
            &[(
                "additionalContext",
                outcome.context.clone().map(Value::from),
            )],
        )
    };
    let verdict = outcome.verdict.as_ref();
    Reply::json(match event {
        "PreToolUse" => pre_tool_use(outcome),
        "PostToolUse" | "UserPromptSubmit" => block_or_pass(verdict, context()),
        "Stop" | "SubagentStop" => block_or_pass(verdict, None),
        "SessionStart" => block_or_pass(None, context()),
        _ => Map::new(),
    })
}

/// Claude Code's block, for a failure: exit 2, the reason on standard
/// error.
pub fn block(reason: &str) -> Reply {
    Reply::exit_with(2, reason)
}

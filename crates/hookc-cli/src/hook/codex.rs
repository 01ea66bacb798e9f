//! The Codex CLI's answer (developers.openai.com/codex/hooks; the answer
//! schemas of openai/codex `codex-rs/hooks/schema/generated/`): the one
//! place that spells an [`Outcome`] and a failure in its wire. Its answer
//! schemas forbid unknown members, so each event gets exactly the members
//! its schema has; everything exits 0.
//!
//! - No decision: nothing on standard output.
//! - PreToolUse: `hookSpecificOutput` with `permissionDecision`
//!   (`allow|ask|deny`), `permissionDecisionReason`, `updatedInput`,
//!   `additionalContext`.
//! - PostToolUse, UserPromptSubmit: `{"decision": "block", "reason"}` for
//!   any word but `allow`, with `hookSpecificOutput.additionalContext`.
//! - Stop: `{"decision": "block", "reason"}`.
//! - SessionStart: `hookSpecificOutput.additionalContext`.
//! - A failure, fail-closed: PreToolUse's `deny`, the other blocking
//!   events' `block`, and elsewhere (or when the event is not known)
//!   `{"continue": false, "stopReason"}`, which every answer schema has.

use super::outcome::{block_or_pass, pre_tool_use, specific, Outcome, Reply, Verdict};
use serde_json::{Map, Value};

/// Codex's answer to `outcome` on `event`.
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
        "Stop" => block_or_pass(verdict, None),
        "SessionStart" => block_or_pass(None, context()),
        _ => Map::new(),
    })
}

/// Codex's block on `event` (`None`: not known), for a failure.
pub fn block(event: Option<&str>, reason: &str) -> Reply {
    let verdict = Verdict {
        word: "deny".to_owned(),
        reason: reason.to_owned(),
    };
    match event {
        Some(event @ ("PreToolUse" | "PostToolUse" | "UserPromptSubmit" | "Stop")) => answer(
            event,
            &Outcome {
                verdict: Some(verdict),
                ..Outcome::default()
            },
        ),
        _ => {
            let mut out = Map::new();
            out.insert("continue".to_owned(), Value::Bool(false));
            out.insert("stopReason".to_owned(), Value::from(reason));
            Reply::json(out)
        }
    }
}

//! Gemini CLI's answer (google-gemini/gemini-cli `docs/hooks/reference.md`):
//! the one place that spells a [`Ruling`] and a failure in its wire.
//!
//! - No decision: exit 0, nothing on standard output (never `allow`).
//! - BeforeTool: `{"decision": WORD, "reason"}` with the word as the
//!   policy wrote it (`allow`, `deny`, or its alias `block`), and
//!   `hookSpecificOutput.tool_input`, the final rewritten arguments, which
//!   Gemini merges over the model's.
//! - AfterTool, BeforeAgent: the decision and its reason, with
//!   `hookSpecificOutput.additionalContext`.
//! - AfterAgent, BeforeModel, AfterModel: the decision and its reason.
//! - SessionStart: `hookSpecificOutput.additionalContext`.
//! - BeforeToolSelection, SessionEnd, PreCompress, Notification: nothing
//!   (the host reads no decision there).
//! - A failure, fail-closed: exit 2 with the reason on standard error,
//!   which Gemini CLI documents as blocking the tool call, hiding its
//!   result, aborting the turn or retrying the response; the advisory
//!   events ignore it.

use super::outcome::{Reply, Ruling};
use serde_json::{Map, Value};

/// What Gemini CLI reads from a hook on an event.
struct Reads {
    /// `decision` and `reason`.
    decision: bool,
    /// `hookSpecificOutput.additionalContext`.
    context: bool,
    /// `hookSpecificOutput.tool_input`.
    tool_input: bool,
}

/// What Gemini CLI lets a hook answer on `event`.
fn reads(event: &str) -> Reads {
    let (decision, context, tool_input) = match event {
        "BeforeTool" => (true, false, true),
        "AfterTool" | "BeforeAgent" => (true, true, false),
        "AfterAgent" | "BeforeModel" | "AfterModel" => (true, false, false),
        "SessionStart" => (false, true, false),
        _ => (false, false, false),
    };
    Reads {
        decision,
        context,
        tool_input,
    }
}

/// Gemini CLI's answer to `outcome` on `event`.
pub fn answer(event: &str, outcome: &Ruling) -> Reply {
    let can = reads(event);
    let mut out = Map::new();
    if let Some(v) = outcome.verdict.as_ref().filter(|_| can.decision) {
        out.insert("decision".to_owned(), Value::from(v.word.as_str()));
        out.insert("reason".to_owned(), Value::from(v.reason.as_str()));
    }
    let mut specific = Map::new();
    if let Some(input) = outcome.updated_input.clone().filter(|_| can.tool_input) {
        specific.insert("tool_input".to_owned(), input);
    }
    if let Some(text) = outcome.context.clone().filter(|_| can.context) {
        specific.insert("additionalContext".to_owned(), Value::from(text));
    }
    if !specific.is_empty() {
        out.insert("hookSpecificOutput".to_owned(), Value::Object(specific));
    }
    Reply::json(out)
}

/// Gemini CLI's block, for a failure: exit 2, the reason on standard
/// error.
pub fn block(reason: &str) -> Reply {
    Reply::exit_with(2, reason)
}

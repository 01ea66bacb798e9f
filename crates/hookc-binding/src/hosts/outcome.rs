//! What a hook call answers ([`super::hook`]), before a host's wire spells
//! it: the host-neutral [`Ruling`] of one evaluation (the deciding word with its
//! attributed reason, the collected context, the rewritten input), and the
//! [`Reply`] a host module writes (standard output, standard error, exit
//! code).

use hookc_runtime::{Decision, Policy};
use serde_json::{Map, Value};

/// The terminal decision of one evaluation.
#[derive(Debug, Clone, PartialEq)]
pub struct Verdict {
    /// The action type: the host's decision word (`deny`, `ask`, ...).
    pub word: String,
    /// The action's `reason`, with the hook's id and where it is written:
    /// `no rm -rf [hook no_rm_rf at guard.yaml:4:5]`.
    pub reason: String,
}

/// What one evaluation decided, as every host module reads it.
#[derive(Debug, Clone, PartialEq, Default)]
pub struct Ruling {
    /// The terminal decision, if a hook decided.
    pub verdict: Option<Verdict>,
    /// The `text` of every collected `context` action, in order, joined
    /// by newlines; `None` when none matched.
    pub context: Option<String>,
    /// The rewritten tool input (`patched.tool_input`, or the host's
    /// member of that name), if a transform patched it.
    pub updated_input: Option<Value>,
}

impl Ruling {
    /// A `deny` with `reason`: what a host's block answers for a failure.
    pub fn denied(reason: &str) -> Ruling {
        Ruling {
            verdict: Some(Verdict {
                word: "deny".to_owned(),
                reason: reason.to_owned(),
            }),
            ..Ruling::default()
        }
    }

    /// The outcome of `decision` under `policy` (for the hooks' locations);
    /// `input` is the payload member holding the tool's input
    /// (`tool_input`; Copilot's `toolArgs`).
    pub fn of(policy: &Policy, decision: &Decision<'_>, input: &str) -> Ruling {
        let verdict = decision.terminal.as_ref().map(|m| Verdict {
            word: m.action_type().to_owned(),
            reason: attributed(
                policy,
                m.hook,
                m.action.get("reason").and_then(Value::as_str),
            ),
        });
        let texts: Vec<&str> = decision
            .collected
            .iter()
            .filter_map(|m| m.action.get("text").and_then(Value::as_str))
            .collect();
        Ruling {
            verdict,
            context: (!texts.is_empty()).then(|| texts.join("\n")),
            updated_input: decision.patched.get(input).cloned(),
        }
    }
}

/// `REASON [hook ID at FILE:LINE:COL]` (without the location when the
/// artifact was stripped of its debug section; `[hook ID ...]` alone when
/// the action gives no reason).
pub fn attributed(policy: &Policy, hook: &str, reason: Option<&str>) -> String {
    let tag = match policy.hook_location(hook) {
        Some(at) => format!("[hook {hook} at {at}]"),
        None => format!("[hook {hook}]"),
    };
    match reason {
        Some(reason) if !reason.is_empty() => format!("{reason} {tag}"),
        _ => tag,
    }
}

/// What a hook call answers: what `hookc hook` writes and exits with (and
/// `hookc serve` maps to a response, and the Python and Node packages
/// return).
#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub struct Reply {
    /// Standard output (empty, or one JSON document and a newline).
    pub stdout: String,
    /// Standard error (empty, or a reason and a newline).
    pub stderr: String,
    /// The exit code.
    pub exit: u8,
}

impl Reply {
    /// No decision: exit 0, nothing written.
    pub fn nothing() -> Reply {
        Reply::default()
    }

    /// Exit 0 with a JSON answer; no decision when the object is empty.
    pub fn json(answer: Map<String, Value>) -> Reply {
        if answer.is_empty() {
            return Reply::nothing();
        }
        Reply {
            stdout: format!("{}\n", Value::Object(answer)),
            ..Reply::default()
        }
    }

    /// Exit `code` with `reason` on standard error.
    pub fn exit_with(code: u8, reason: &str) -> Reply {
        Reply {
            stderr: format!("{reason}\n"),
            exit: code,
            ..Reply::default()
        }
    }
}

/// What a host lets a hook answer on an event: each host module maps its
/// events to these, and [`answer`] spells them.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Answers {
    /// PreToolUse: a permission decision, its reason, the rewritten input,
    /// context.
    Permission,
    /// A block (any word but `allow`) and context.
    BlockAndContext,
    /// A block only.
    Block,
    /// PermissionRequest: `hookSpecificOutput.decision`, a `behavior`
    /// (allow or deny, see [`behavior`]), with the rewritten input as
    /// `updatedInput` on an allow when `updated_input` (Claude Code reads
    /// it; Codex fails closed on it).
    Behavior {
        /// Whether the host reads `updatedInput` with an allow.
        updated_input: bool,
    },
    /// Context only.
    Context,
    /// Nothing: the host reads no answer on this event.
    Nothing,
}

/// The answer to `outcome` on `event`, which answers as `answers` says.
pub fn answer(event: &str, answers: Answers, outcome: &Ruling) -> Reply {
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
    Reply::json(match answers {
        Answers::Permission => pre_tool_use(outcome),
        Answers::Behavior { updated_input } => permission_request(event, outcome, updated_input),
        Answers::BlockAndContext => block_or_pass(verdict, context()),
        Answers::Block => block_or_pass(verdict, None),
        Answers::Context => block_or_pass(None, context()),
        Answers::Nothing => Map::new(),
    })
}

/// `{"hookEventName": EVENT, ...}` with `members` that are given: the
/// `hookSpecificOutput` object of Claude Code's wire (Codex speaks it too);
/// `None` when no member is given.
fn specific(event: &str, members: &[(&str, Option<Value>)]) -> Option<Value> {
    if members.iter().all(|(_, value)| value.is_none()) {
        return None;
    }
    let mut out = Map::new();
    out.insert("hookEventName".to_owned(), Value::from(event));
    for (name, value) in members {
        if let Some(value) = value {
            out.insert((*name).to_owned(), value.clone());
        }
    }
    Some(Value::Object(out))
}

/// `{"decision": "block", "reason": REASON}` (with `hookSpecificOutput`
/// when given) when the verdict is not `allow`: the answer of the events
/// that can only block (Stop, PostToolUse, UserPromptSubmit).
fn block_or_pass(verdict: Option<&Verdict>, specific_output: Option<Value>) -> Map<String, Value> {
    let mut out = Map::new();
    if let Some(v) = verdict.filter(|v| v.word != "allow") {
        out.insert("decision".to_owned(), Value::from("block"));
        out.insert("reason".to_owned(), Value::from(v.reason.as_str()));
    }
    if let Some(s) = specific_output {
        out.insert("hookSpecificOutput".to_owned(), s);
    }
    out
}

/// The `PreToolUse` answer both hosts share: the decision word, its
/// reason, the rewritten input and the context, each only when there is
/// one.
fn pre_tool_use(outcome: &Ruling) -> Map<String, Value> {
    let v = outcome.verdict.as_ref();
    let specific_output = specific(
        "PreToolUse",
        &[
            (
                "permissionDecision",
                v.map(|v| Value::from(v.word.as_str())),
            ),
            (
                "permissionDecisionReason",
                v.map(|v| Value::from(v.reason.as_str())),
            ),
            ("updatedInput", outcome.updated_input.clone()),
            (
                "additionalContext",
                outcome.context.clone().map(Value::from),
            ),
        ],
    );
    let mut out = Map::new();
    if let Some(s) = specific_output {
        out.insert("hookSpecificOutput".to_owned(), s);
    }
    out
}

/// `{"behavior": "allow"}` or `{"behavior": "deny", "message": REASON}`:
/// the decision of a permission request (Claude Code's and Codex's
/// PermissionRequest, Copilot's permissionRequest). `None` for any other
/// word or none: `ask` and `defer` cannot be said there, and no answer lets
/// the host ask as it would have.
pub fn behavior(verdict: Option<&Verdict>) -> Option<Map<String, Value>> {
    let v = verdict.filter(|v| v.word == "allow" || v.word == "deny")?;
    let mut out = Map::new();
    out.insert("behavior".to_owned(), Value::from(v.word.as_str()));
    if v.word == "deny" {
        out.insert("message".to_owned(), Value::from(v.reason.as_str()));
    }
    Some(out)
}

/// The `PermissionRequest` answer: `hookSpecificOutput.decision`, the
/// [`behavior`], with `updatedInput` on an allow when `updated_input` and a
/// rewrite matched (a rewrite without an allow cannot be said: the host
/// reads `updatedInput` with an allow only); nothing without a behavior.
fn permission_request(event: &str, outcome: &Ruling, updated_input: bool) -> Map<String, Value> {
    let mut out = Map::new();
    let Some(mut decision) = behavior(outcome.verdict.as_ref()) else {
        return out;
    };
    if let Some(input) = outcome.updated_input.clone().filter(|_| updated_input) {
        if decision.get("behavior").and_then(Value::as_str) == Some("allow") {
            decision.insert("updatedInput".to_owned(), input);
        }
    }
    if let Some(s) = specific(event, &[("decision", Some(Value::Object(decision)))]) {
        out.insert("hookSpecificOutput".to_owned(), s);
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    fn ruling(word: Option<&str>, rewrite: bool) -> Ruling {
        Ruling {
            verdict: word.map(|w| Verdict {
                word: w.to_owned(),
                reason: "why".to_owned(),
            }),
            context: Some("ignored".to_owned()),
            updated_input: rewrite.then(|| serde_json::json!({"command": "ls"})),
        }
    }

    fn said(answers: Answers, word: Option<&str>, rewrite: bool) -> String {
        answer("PermissionRequest", answers, &ruling(word, rewrite)).stdout
    }

    #[test]
    fn a_permission_request_is_allowed_or_denied_or_left_to_the_dialog() {
        let claude = Answers::Behavior {
            updated_input: true,
        };
        let codex = Answers::Behavior {
            updated_input: false,
        };
        let decision = |d: &str| {
            format!("{{\"hookSpecificOutput\":{{\"hookEventName\":\"PermissionRequest\",\"decision\":{d}}}}}\n")
        };
        assert_eq!(
            said(claude, Some("allow"), true),
            decision(r#"{"behavior":"allow","updatedInput":{"command":"ls"}}"#)
        );
        assert_eq!(
            said(codex, Some("allow"), true),
            decision(r#"{"behavior":"allow"}"#)
        );
        // A deny carries its reason, never the rewritten input.
        for answers in [claude, codex] {
            assert_eq!(
                said(answers, Some("deny"), true),
                decision(r#"{"behavior":"deny","message":"why"}"#)
            );
            // ask, defer, no decision: nothing, so the host asks; a rewrite
            // alone cannot be said.
            for word in [Some("ask"), Some("defer"), None] {
                assert_eq!(said(answers, word, true), "", "{word:?}");
            }
        }
    }
}

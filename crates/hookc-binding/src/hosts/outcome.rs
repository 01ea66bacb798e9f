//! What a hook call answers ([`super::hook`]), before a host's wire spells
//! it: the host-neutral [`Ruling`] of one evaluation (the deciding word with its
//! attributed reason, the collected context, the rewritten input), and the
//! [`Reply`] a host module writes (standard output, standard error, exit
//! code).

use hookc::hosts::{fill, situation, Filled, HostProfile};
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

/// The answer of `host` to `outcome` on `event`: the template its answer
/// table gives for the situation ([`hookc::hosts::situation`]), filled in
/// with the outcome (`$event`, `$word`, `$reason`, `$context`, `$input`);
/// nothing on an event the host does not have, or for a situation its
/// table does not list.
pub fn answer(host: HostProfile, event: &str, outcome: &Ruling) -> Reply {
    let Some(Ok(table)) = host.answers(event) else {
        return Reply::nothing();
    };
    let word = outcome.verdict.as_ref().map(|v| v.word.as_str());
    let template = situation(&table, word, outcome.updated_input.is_some());
    match template.and_then(|t| fill(t, &|name| placeholder(name, event, outcome))) {
        Some(Value::Object(members)) => Reply::json(members),
        _ => Reply::nothing(),
    }
}

/// The value of `$name` in an answer to `outcome` on `event`.
fn placeholder(name: &str, event: &str, outcome: &Ruling) -> Option<Filled> {
    let verdict = outcome.verdict.as_ref();
    let (value, live) = match name {
        "event" => (Value::from(event), false),
        "word" => (Value::from(verdict?.word.as_str()), false),
        "reason" => (Value::from(verdict?.reason.as_str()), true),
        "context" => (Value::from(outcome.context.as_deref()?), true),
        "input" => (outcome.updated_input.clone()?, true),
        _ => return None,
    };
    Some(Filled { value, live })
}

/// The block of `host` for a failure on `event` (`None`: not known), with
/// `reason`: the profile's failure answer for the event, else for an
/// unknown event, else its default, its template filled in as a `deny`
/// with the reason.
pub fn block(host: HostProfile, event: Option<&str>, reason: &str) -> Reply {
    let failure = &host.meta().failure;
    // An event the host does not have is as good as none.
    let known = event.filter(|e| host.answers(e).is_some());
    let spec = match known {
        Some(event) => failure.events.get(event),
        None => failure.unknown_event.as_ref(),
    }
    .unwrap_or(&failure.default);
    let denied = Ruling::denied(reason);
    let shown = event.unwrap_or_default();
    let stdout = spec
        .json
        .as_ref()
        .and_then(|t| fill(t, &|name| placeholder(name, shown, &denied)))
        .and_then(|v| match v {
            Value::Object(members) => Some(Reply::json(members).stdout),
            _ => None,
        })
        .unwrap_or_default();
    Reply {
        stdout,
        stderr: if spec.stderr {
            format!("{reason}\n")
        } else {
            String::new()
        },
        exit: spec.exit,
    }
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

    fn said(host: &str, word: Option<&str>, rewrite: bool) -> String {
        let host = hookc::hosts::find(host)
            .map(|h| answer(h, "PermissionRequest", &ruling(word, rewrite)));
        host.map(|r| r.stdout).unwrap_or_default()
    }

    #[test]
    fn a_permission_request_is_allowed_or_denied_or_left_to_the_dialog() {
        let decision = |d: &str| {
            format!("{{\"hookSpecificOutput\":{{\"hookEventName\":\"PermissionRequest\",\"decision\":{d}}}}}\n")
        };
        assert_eq!(
            said("claude-code", Some("allow"), true),
            decision(r#"{"behavior":"allow","updatedInput":{"command":"ls"}}"#)
        );
        assert_eq!(
            said("codex", Some("allow"), true),
            decision(r#"{"behavior":"allow"}"#)
        );
        // A deny carries its reason, never the rewritten input.
        for host in ["claude-code", "codex"] {
            assert_eq!(
                said(host, Some("deny"), true),
                decision(r#"{"behavior":"deny","message":"why"}"#)
            );
            // ask, defer, no decision: nothing, so the host asks; a rewrite
            // alone cannot be said.
            for word in [Some("ask"), Some("defer"), None] {
                assert_eq!(said(host, word, true), "", "{word:?}");
            }
        }
    }

    #[test]
    fn every_answer_table_and_failure_reads() {
        for host in hookc::hosts::all() {
            assert!(host.check_meta().is_ok(), "{:?}", host.check_meta());
            for event in host.answered_events() {
                let table = host.answers(event);
                assert!(
                    matches!(table, Some(Ok(_))),
                    "{}: {event}: {table:?}",
                    host.name()
                );
            }
        }
    }
}

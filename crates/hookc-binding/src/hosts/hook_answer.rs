//! A hook program's answer, read as its host reads it: what a `run` action
//! with `read_answer: true` adds to its result as `answer`
//! (`docs/src/hosts/adopt.md`). This is how hookc runs a host's existing
//! hooks under its own policy (`hookc init --adopt`): each program's answer
//! becomes a decision word, a reason, a rewritten input and context that
//! the policy combines with the others.
//!
//! Nothing here is written per host. The answer JSON is matched against
//! the host profile's own answer table for the event
//! (`hookc::hosts::HostProfile::answers`, the templates `hookc hook` fills
//! in to answer): the template that matches the answer most specifically
//! (the most literal members equal, a decision word found) says which
//! decision it is, and its placeholders say where the reason, the input
//! and the context are. The exit codes every host shares are read first:
//!
//! | the program | `answer` |
//! |---|---|
//! | exits 0 with nothing, or with text that is not JSON | no decision |
//! | exits 0 with a JSON object | the decision the host's table reads in it |
//! | exits 0 with JSON the table does not read (another JSON value, an unknown decision shape) | `failed` |
//! | exits 2 | `deny`, its standard error the reason |
//! | exits otherwise, or is ended by a signal | `failed`, with its standard error |
//!
//! `failed` is a reason, not a decision: the adopting policy turns it into
//! a block (the hosts let a failed hook's call go ahead; an adopted hook
//! fails closed).

use hookc::hosts::{AnswerTable, HostProfile};
use serde_json::{json, Map, Value};

/// The members of an answer: `{decision, reason, input, context,
/// user_message, failed}`, each `null` when the answer has none.
pub fn read(host: HostProfile, event: &str, result: &Value) -> Value {
    let text = |member: &str| result.get(member).and_then(Value::as_str).unwrap_or("");
    let stderr = text("stderr").trim();
    match result.get("exit_code").and_then(Value::as_i64) {
        Some(0) => read_stdout(host, event, text("stdout")),
        Some(2) => answer(ReadAnswer {
            decision: Some("deny".into()),
            reason: Some(if stderr.is_empty() {
                "blocked (exit 2)".to_owned()
            } else {
                stderr.to_owned()
            }),
            ..ReadAnswer::default()
        }),
        Some(code) => failed(&format!("exited {code}{}", said(stderr))),
        None => failed(&format!("was ended by a signal{}", said(stderr))),
    }
}

/// `: TEXT` for a program's standard error, when it wrote any.
fn said(stderr: &str) -> String {
    if stderr.is_empty() {
        String::new()
    } else {
        format!(": {stderr}")
    }
}

/// What an answer says, before it is written as JSON.
#[derive(Debug, Default)]
struct ReadAnswer {
    decision: Option<String>,
    reason: Option<String>,
    input: Option<Value>,
    context: Option<String>,
    user_message: Option<String>,
    failed: Option<String>,
}

fn answer(read: ReadAnswer) -> Value {
    json!({
        "decision": read.decision,
        "reason": read.reason,
        "input": read.input,
        "context": read.context,
        "user_message": read.user_message,
        "failed": read.failed,
    })
}

fn failed(why: &str) -> Value {
    answer(ReadAnswer {
        failed: Some(why.to_owned()),
        ..ReadAnswer::default()
    })
}

/// The answer of a program that exited 0 with `stdout`.
fn read_stdout(host: HostProfile, event: &str, stdout: &str) -> Value {
    let stdout = stdout.trim();
    if stdout.is_empty() {
        return answer(ReadAnswer::default());
    }
    let members = match serde_json::from_str::<Value>(stdout) {
        // Text that is not JSON: the hosts show it, or ignore it; it
        // decides nothing.
        Err(_) => return answer(ReadAnswer::default()),
        Ok(Value::Object(members)) => members,
        Ok(_) => return failed("answered JSON that is not an object"),
    };
    let Some(Ok(table)) = host.answers(event) else {
        return answer(ReadAnswer::default());
    };
    match best(&table, &members) {
        Some(read) => answer(read),
        // Members no answer of the event has: the host ignores them.
        None if !members.keys().any(|k| named(&table, k)) => answer(ReadAnswer::default()),
        None => failed(&format!(
            "answered {} in a shape {} does not read on {event}",
            shortened(stdout),
            host.title()
        )),
    }
}

/// Whether a template of `table` has the top-level member `key`.
fn named(table: &AnswerTable, key: &str) -> bool {
    table.values().any(|t| {
        t.as_object().is_some_and(|members| {
            members
                .keys()
                .any(|k| k.strip_suffix('?').unwrap_or(k) == key)
        })
    })
}

/// At most 200 characters of an answer, for a reason.
fn shortened(text: &str) -> String {
    match text.char_indices().nth(200) {
        Some((at, _)) => format!("{}…", &text[..at]),
        None => text.to_owned(),
    }
}

/// The most specific template of `table` that `members` match, read.
/// At equal specificity, no decision comes before a decision word (a
/// host whose answers for `allow` and for no decision are the same
/// shape, Codex's, reads it as none), and a named word before `*`.
fn best(table: &AnswerTable, members: &Map<String, Value>) -> Option<ReadAnswer> {
    let answer = Value::Object(members.clone());
    let mut found: Option<(usize, u8, ReadAnswer)> = None;
    for (situation, template) in table {
        let word = situation.strip_suffix("+rewrite").unwrap_or(situation);
        let rank = match word {
            "none" => 0,
            "*" => 2,
            _ => 1,
        };
        // The placeholders found, the word (`$word`) as the decision.
        let mut read = ReadAnswer::default();
        let Some(score) = unfill(template, &answer, &mut read) else {
            continue;
        };
        read.decision = match word {
            "none" => None,
            "*" if mentions(template, "$word") => match read.decision.take() {
                Some(word) => Some(word),
                // A template that names the word, without one: not this.
                None => continue,
            },
            // `*` with the word written as a literal (Codex's deny):
            // the block.
            "*" => Some("deny".to_owned()),
            named => Some(named.to_owned()),
        };
        let better = match &found {
            None => true,
            Some((s, r, _)) => score > *s || (score == *s && rank < *r),
        };
        if better {
            found = Some((score, rank, read));
        }
    }
    found.map(|(_, _, read)| read)
}

/// Whether `template` holds the string `text` anywhere.
fn mentions(template: &Value, text: &str) -> bool {
    match template {
        Value::String(s) => s == text,
        Value::Object(members) => members.values().any(|m| mentions(m, text)),
        Value::Array(items) => items.iter().any(|i| mentions(i, text)),
        _ => false,
    }
}

/// Matches `value` against `template` (the inverse of
/// `hookc::hosts::fill`): literals must be equal, objects must have the
/// template's members but those whose key ends in `?` and those that are
/// a bare placeholder (which `fill` leaves out when it has no value);
/// members the template does not name are ignored, as the hosts ignore
/// them. The score counts the literals matched and the decision word
/// found; `None` when the value does not match.
fn unfill(template: &Value, value: &Value, captures: &mut ReadAnswer) -> Option<usize> {
    match template {
        Value::String(s) if s.starts_with('$') => {
            let as_text = || value.as_str().map(str::to_owned);
            match s.as_str() {
                "$word" => {
                    captures.decision = Some(as_text()?);
                    return Some(1);
                }
                "$reason" => captures.reason = as_text(),
                "$context" => captures.context = as_text(),
                "$user_message" | "$for_user" => captures.user_message = as_text(),
                "$input" => captures.input = value.is_object().then(|| value.clone()),
                _ => {}
            }
            Some(0)
        }
        Value::Object(members) => {
            let Value::Object(given) = value else {
                return None;
            };
            let mut score = 0;
            for (key, member) in members {
                let (key, optional) = match key.strip_suffix('?') {
                    Some(key) => (key, true),
                    None => (key.as_str(), false),
                };
                match given.get(key) {
                    Some(v) => score += unfill(member, v, captures)?,
                    None if optional || is_placeholder(member) => {}
                    None => return None,
                }
            }
            Some(score)
        }
        Value::Array(items) => {
            let Value::Array(given) = value else {
                return None;
            };
            if items.len() != given.len() {
                return None;
            }
            let mut score = 0;
            for (t, v) in items.iter().zip(given) {
                score += unfill(t, v, captures)?;
            }
            Some(score)
        }
        literal => (literal == value).then_some(1),
    }
}

fn is_placeholder(template: &Value) -> bool {
    template.as_str().is_some_and(|s| s.starts_with('$'))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn host(name: &str) -> HostProfile {
        hookc::hosts::find(name).unwrap()
    }

    fn ran(exit: i64, stdout: &str, stderr: &str) -> Value {
        json!({"exit_code": exit, "stdout": stdout, "stderr": stderr, "timed_out": false, "truncated": false})
    }

    fn read_as(name: &str, event: &str, exit: i64, stdout: &str) -> Value {
        read(host(name), event, &ran(exit, stdout, "why not"))
    }

    #[test]
    fn exit_codes_are_read_as_every_host_reads_them() {
        for name in hookc::hosts::names() {
            let event = host(name).answered_events().next().unwrap();
            let none = read_as(name, event, 0, "");
            assert_eq!(none["decision"], Value::Null, "{name}");
            assert_eq!(none["failed"], Value::Null, "{name}");
            assert_eq!(
                read_as(name, event, 0, "plain text")["decision"],
                Value::Null
            );
            let blocked = read_as(name, event, 2, "");
            assert_eq!(blocked["decision"], "deny", "{name}");
            assert_eq!(blocked["reason"], "why not", "{name}");
            let broken = read_as(name, event, 1, "");
            assert_eq!(broken["decision"], Value::Null, "{name}");
            assert_eq!(broken["failed"], "exited 1: why not", "{name}");
        }
        let killed = read(
            host("claude-code"),
            "Stop",
            &json!({"exit_code": null, "stdout": "", "stderr": ""}),
        );
        assert_eq!(killed["failed"], "was ended by a signal");
    }

    #[test]
    fn a_claude_code_answer_gives_its_word_reason_and_input() {
        let said = read_as(
            "claude-code",
            "PreToolUse",
            0,
            r#"{"hookSpecificOutput": {"hookEventName": "PreToolUse", "permissionDecision": "ask",
                "permissionDecisionReason": "sure?", "updatedInput": {"command": "ls -l"}}}"#,
        );
        assert_eq!(said["decision"], "ask");
        assert_eq!(said["reason"], "sure?");
        assert_eq!(said["input"], json!({"command": "ls -l"}));
        // A rewrite alone is no decision.
        let said = read_as(
            "claude-code",
            "PreToolUse",
            0,
            r#"{"hookSpecificOutput": {"hookEventName": "PreToolUse", "updatedInput": {"command": "ls"}, "additionalContext": "note"}}"#,
        );
        assert_eq!(said["decision"], Value::Null);
        assert_eq!(said["input"], json!({"command": "ls"}));
        assert_eq!(said["context"], "note");
        // Stop reads `decision: block` as the block.
        let said = read_as(
            "claude-code",
            "Stop",
            0,
            r#"{"decision": "block", "reason": "tests fail"}"#,
        );
        assert_eq!(said["decision"], "deny");
        assert_eq!(said["reason"], "tests fail");
    }

    #[test]
    fn codex_allow_alone_is_no_decision_and_its_deny_is_read() {
        let said = read_as(
            "codex",
            "PreToolUse",
            0,
            r#"{"hookSpecificOutput": {"hookEventName": "PreToolUse", "permissionDecision": "deny", "permissionDecisionReason": "no"}}"#,
        );
        assert_eq!(said["decision"], "deny");
        assert_eq!(said["reason"], "no");
        let said = read_as("codex", "PreToolUse", 0, "{}");
        assert_eq!(said["decision"], Value::Null);
        assert_eq!(said["failed"], Value::Null);
        let said = read_as(
            "codex",
            "PreToolUse",
            0,
            r#"{"hookSpecificOutput": {"hookEventName": "PreToolUse", "permissionDecision": "allow", "updatedInput": {"command": "ls"}}}"#,
        );
        // hookc writes a rewrite the same way with or without an allow
        // (Codex applies a rewrite only under one, and refuses a bare
        // allow): the same shape is read as the rewrite alone.
        assert_eq!(said["decision"], Value::Null);
        assert_eq!(said["input"], json!({"command": "ls"}));
    }

    #[test]
    fn gemini_words_are_its_own() {
        let said = read_as(
            "gemini-cli",
            "BeforeTool",
            0,
            r#"{"decision": "block", "reason": "r"}"#,
        );
        assert_eq!(said["decision"], "block");
        assert_eq!(said["reason"], "r");
    }

    #[test]
    fn an_answer_the_host_does_not_read_fails() {
        let said = read_as("claude-code", "PreToolUse", 0, "[1, 2]");
        assert_eq!(said["failed"], "answered JSON that is not an object");
        // PermissionRequest's decisions are literal shapes: another
        // behavior matches none of them.
        let said = read_as(
            "claude-code",
            "PermissionRequest",
            0,
            r#"{"hookSpecificOutput": {"hookEventName": "PermissionRequest", "decision": {"behavior": "maybe"}}}"#,
        );
        assert!(
            said["failed"]
                .as_str()
                .unwrap()
                .contains("does not read on PermissionRequest"),
            "{said}"
        );
        // Members no answer of the event names are ignored, as the host
        // ignores them.
        let said = read_as("claude-code", "PermissionRequest", 0, r#"{"note": 1}"#);
        assert_eq!(said["failed"], Value::Null, "{said}");
        assert_eq!(said["decision"], Value::Null, "{said}");
    }
}

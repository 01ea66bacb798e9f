//! What a hook call answers ([`super::hook`]), before a host's wire spells
//! it: the host-neutral [`Ruling`] of one evaluation (the deciding word with its
//! attributed reason, the collected context, the rewritten input), and the
//! [`Reply`] a host module writes (standard output, standard error, exit
//! code).

use hookc::hosts::{fill, situation, Filled, HostProfile};
use hookc_runtime::bytecode::Attribution;
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
    /// The action's `user_message`, as written: what the host shows the
    /// user and never the model (`docs/src/semantics.md#audiences`).
    pub user_message: Option<String>,
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
                user_message: None,
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
                m.action_type(),
                m.action.get("reason").and_then(Value::as_str),
            ),
            user_message: m
                .action
                .get("user_message")
                .and_then(Value::as_str)
                .filter(|t| !t.is_empty())
                .map(str::to_owned),
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

/// The reason a host answer carries for hook `hook`'s decision `word`,
/// as the policy's `attribution:` chooses
/// (`docs/src/semantics.md#attribution`): `REASON [hook ID at
/// FILE:LINE:COL]` by default (without the location when the artifact was
/// stripped of its debug section; `[hook ID ...]` alone when the action
/// gives no reason), `REASON [hook ID]` under `id`, and `REASON` as
/// written under `off`. Under `off` an `allow` without a reason has none
/// (its answer leaves the member out); any other decision without one is
/// `[hook ID]`, because a host shows a block's reason to the model and the
/// user, and an empty one explains nothing.
pub fn attributed(policy: &Policy, hook: &str, word: &str, reason: Option<&str>) -> String {
    let reason = reason.filter(|r| !r.is_empty());
    let location = match policy.attribution() {
        Attribution::Off => {
            return match reason {
                Some(reason) => reason.to_owned(),
                None if word == "allow" => String::new(),
                None => format!("[hook {hook}]"),
            }
        }
        Attribution::Id => None,
        Attribution::Location => policy.hook_location(hook),
    };
    let tag = match location {
        Some(at) => format!("[hook {hook} at {}]", project_relative(at)),
        None => format!("[hook {hook}]"),
    };
    match reason {
        Some(reason) => format!("{reason} {tag}"),
        None => tag,
    }
}

/// A hook's location `FILE:LINE:COL` with an absolute FILE made relative
/// to the project: from its `.hookc` folder on (`.hookc/guard.yaml:4:5`),
/// else its file name. A reason reaches the model and the host's logs,
/// which have no business with the user's folders.
fn project_relative(at: &str) -> std::borrow::Cow<'_, str> {
    let mut parts = at.rsplitn(3, ':');
    let (Some(col), Some(line), Some(file)) = (parts.next(), parts.next(), parts.next()) else {
        return at.into();
    };
    let path = std::path::Path::new(file);
    if !path.is_absolute() {
        return at.into();
    }
    // Outside a `.hookc` folder, the file's name alone.
    let relative = hookc::files::from_project_folder(path)
        .or_else(|| path.file_name().map(std::path::PathBuf::from))
        .unwrap_or_default();
    format!("{}:{line}:{col}", relative.display()).into()
}

/// `text` with every absolute path into a project's `.hookc` folder
/// written from `.hookc/` on (`/home/u/proj/.hookc/guard.yaml` is
/// `.hookc/guard.yaml`): a failure's reason reaches the model and the
/// host's logs, which have no business with the user's folders.
pub fn without_project_folders(text: &str) -> String {
    const MARK: &str = "/.hookc/";
    let mut out = String::with_capacity(text.len());
    let mut rest = text;
    let mut ticks = 0;
    while let Some(at) = rest.find(MARK) {
        let before = &rest[..at];
        // Inside backticks (an odd number before it), the path starts
        // after the last one (it may have spaces: `my proj`); else after
        // the last character that cannot be in an unquoted path.
        let quoted = (ticks + before.matches('`').count()) % 2 == 1;
        let start = if quoted {
            before.rfind('`')
        } else {
            before.rfind([' ', '\'', '"', '\n', '(', '[', '='])
        }
        .map_or(0, |i| i + 1);
        if before[start..].starts_with('/') {
            out.push_str(&before[..start]);
        } else {
            out.push_str(before);
            out.push('/');
        }
        out.push_str(".hookc/");
        ticks += before.matches('`').count();
        rest = &rest[at + MARK.len()..];
    }
    out.push_str(rest);
    out
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
        // Empty only for an `allow` that gave none under `attribution:
        // off`: the member is left out.
        "reason" => match verdict?.reason.as_str() {
            "" => return None,
            reason => (Value::from(reason), true),
        },
        "user_message" => (Value::from(verdict?.user_message.as_deref()?), true),
        // What the user is shown where the host has one message for them:
        // the action's `user_message`, else the reason.
        "for_user" => {
            let verdict = verdict?;
            match verdict.user_message.as_deref().unwrap_or(&verdict.reason) {
                "" => return None,
                text => (Value::from(text), true),
            }
        }
        "context" => (Value::from(outcome.context.as_deref()?), true),
        "input" => (outcome.updated_input.clone()?, true),
        _ => return None,
    };
    Some(Filled { value, live })
}

/// The block of `host` for a failure on `event` (`None`: not known), with
/// `reason`: the profile's failure answer for the event, else for an
/// unknown event, else its default (each maybe turned to its `otherwise`
/// by the `payload`), its template filled in as a `deny` with the
/// reason.
pub fn block(
    host: HostProfile,
    event: Option<&str>,
    payload: Option<&Value>,
    reason: &str,
) -> Reply {
    let failure = &host.meta().failure;
    // An event the host does not have is as good as none.
    let known = event.filter(|e| host.answers(e).is_some());
    let mut spec = match known {
        Some(event) => failure.events.get(event),
        None => failure.unknown_event.as_ref(),
    }
    .unwrap_or(&failure.default);
    // `unless: MEMBER`: when the payload's MEMBER is true, the answer is
    // `otherwise` (a Stop hook already blocked once: blocking again on a
    // failure would loop).
    while let (Some(member), Some(otherwise)) = (&spec.unless, &spec.otherwise) {
        if payload.and_then(|p| p.get(member)) != Some(&Value::Bool(true)) {
            break;
        }
        spec = otherwise;
    }
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
                user_message: None,
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
    fn a_failure_on_codex_stop_blocks_once_then_stops() {
        let codex = hookc::hosts::find("codex").unwrap();
        let first = serde_json::json!({"stop_hook_active": false});
        let again = serde_json::json!({"stop_hook_active": true});
        let said = |payload: Option<&Value>| block(codex, Some("Stop"), payload, "broken").stdout;
        assert_eq!(
            said(Some(&first)),
            "{\"decision\":\"block\",\"reason\":\"broken\"}\n"
        );
        assert_eq!(
            said(None),
            "{\"decision\":\"block\",\"reason\":\"broken\"}\n"
        );
        assert_eq!(
            said(Some(&again)),
            "{\"continue\":false,\"stopReason\":\"broken\"}\n"
        );
    }

    #[test]
    fn a_reason_names_no_folder_of_the_user() {
        let said = without_project_folders(
            "the policy `/home/u/my proj/.hookc/guard.yaml` is not there; ┌─ /srv/p/.hookc/g.yaml:3:4",
        );
        assert_eq!(
            said,
            "the policy `.hookc/guard.yaml` is not there; ┌─ .hookc/g.yaml:3:4"
        );
        assert_eq!(without_project_folders("no path here"), "no path here");
        assert_eq!(
            without_project_folders("at .hookc/x.yaml"),
            "at .hookc/x.yaml"
        );
        assert_eq!(without_project_folders("`/a/.hookc/b`"), "`.hookc/b`");
    }

    #[test]
    fn a_location_names_no_folder_of_the_user() {
        assert_eq!(
            project_relative("/home/u/my proj/.hookc/guard.yaml:4:5"),
            ".hookc/guard.yaml:4:5"
        );
        assert_eq!(
            project_relative("/srv/policies/guard.yaml:1:2"),
            "guard.yaml:1:2"
        );
        assert_eq!(project_relative("guard.yaml:1:2"), "guard.yaml:1:2");
        assert_eq!(
            project_relative(".hookc/guard.yaml:1:2"),
            ".hookc/guard.yaml:1:2"
        );
        assert_eq!(project_relative("no location"), "no location");
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

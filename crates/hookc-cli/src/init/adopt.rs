//! `hookc init --adopt` and `--unadopt`: the hooks a host's settings file
//! already has, moved under hookc (`docs/src/hosts/adopt.md`).
//!
//! Each command hook of the settings becomes, in `.hookc/adopted.yaml`, an
//! awaited `run` of the same command (through `sh -c`, in the payload's
//! `cwd`, the payload on standard input, `read_answer: true`), and hooks
//! that turn its answer, read as the host reads a hook's
//! (`hookc_binding::hosts::hook_answer`), into decisions of the policy:
//! one per decision word of the host, a rewrite of the tool's input, the
//! context it adds, and a block when it failed. The host then calls one
//! hook per event, hookc, which runs them in the order the settings listed
//! them, rewrites applied before the next one runs, the strictest decision
//! winning, failures closed.
//!
//! Nothing here is written per host: which decision words, rewrites and
//! context an event takes comes from compiling the host's profile; how a
//! settings entry holds its commands, from the profile's entry template
//! (`host_profile.settings`). The settings as they were are kept in
//! `.hookc/adopted.record.json`, with a digest of the settings as adopt
//! wrote them: `--unadopt` puts the file back, byte for byte, when it has
//! not changed since (hookc's own commands may have been re-pinned).

use hookc::check::actions::Performer;
use hookc::hosts::SettingsSpec;
use hookc_binding::hosts::Host;
use hookc_runtime::bytecode::Effect;
use serde_json::{json, Value};
use std::fmt::Write as _;

/// The adopted hooks' policy, beside the guard in `.hookc/`.
pub(super) const POLICY: &str = "adopted.yaml";
/// How a settings command names the adopted hooks' policy.
pub(super) const ADOPTED_WORD: &str = ".hookc/adopted.yaml";
/// The record of an adoption: the settings as they were, for `--unadopt`.
pub(super) const RECORD: &str = "adopted.record.json";

/// One command hook found in a settings file.
#[derive(Debug, Clone, PartialEq)]
pub(super) struct FoundHook {
    /// Its event, as the host spells it.
    pub event: String,
    /// Its entry's matcher, when it has one that selects tools.
    pub matcher: Option<String>,
    /// The command line.
    pub command: String,
    /// Its own timeout, in milliseconds, when it gives one.
    pub timeout_ms: Option<u64>,
    /// The folder it runs in, relative to the project, when it gives one
    /// (Copilot's `cwd`).
    pub cwd: Option<String>,
}

/// What adoption takes from a settings file.
#[derive(Debug)]
pub(super) struct Taken {
    /// The hooks adopted, in the order the file lists them.
    pub hooks: Vec<FoundHook>,
    /// The settings without them.
    pub settings: Value,
    /// The hooks left in place, each with why.
    pub left: Vec<String>,
}

/// An event of the host's profile, with what an adopted hook's answer may
/// become there.
struct EventEffects {
    /// Its name.
    name: String,
    /// Whether its payload names a tool (`tool_name`), which a matcher
    /// selects.
    tools: bool,
    /// The decision words (terminal action types) it takes.
    words: Vec<String>,
    /// Whether it takes a rewrite of the tool's input.
    rewrite: bool,
    /// Whether it takes context (a collected `context` action).
    context: bool,
}

/// The host's words and events, from compiling its profile.
pub(super) struct HostFacts {
    /// The host.
    host: Host,
    /// Terminal action types the host performs, by decreasing severity.
    words: Vec<(String, bool)>,
    events: Vec<EventEffects>,
}

impl HostFacts {
    /// The facts of `host`'s profile, compiled once per `init --adopt`
    /// (`None`: the profile does not compile, a hookc bug).
    pub(super) fn of(host: Host) -> Option<HostFacts> {
        let source = format!("host: {}\nhooks: []\n", host.name());
        let compiled = hookc::compile::compile(&[hookc::compile::Input::new("host.yaml", source)]);
        let policy = compiled.policy?;
        let types = policy.action_types();
        let mut words: Vec<(i64, String, bool)> = types
            .custom_definitions()
            .filter_map(|(name, _)| types.get(name))
            .filter(|t| t.effect() == Effect::Terminal && t.performer() == Performer::Host)
            .map(|t| {
                (
                    t.severity(),
                    t.name().to_owned(),
                    t.param("user_message").is_some(),
                )
            })
            .collect();
        words.sort_by_key(|w| std::cmp::Reverse(w.0));
        let has =
            |name: &str, effect: Effect| types.get(name).is_some_and(|t| t.effect() == effect);
        let (rewrite, context) = (
            has("rewrite", Effect::Transform),
            has("context", Effect::Collected),
        );
        // Every event: a `run` is hookc's own (`performed_by: hookc`), so
        // it runs on an event whose host reads no answer too (an observer,
        // Cursor's `afterFileEdit`), where only the decisions are left out.
        let events = policy
            .events()
            .iter()
            .map(|e| EventEffects {
                name: e.name().to_owned(),
                tools: e
                    .to_json()
                    .pointer("/context/properties/tool_name")
                    .is_some(),
                words: if e.allows(Effect::Terminal) {
                    words.iter().map(|(_, w, _)| w.clone()).collect()
                } else {
                    Vec::new()
                },
                rewrite: rewrite && e.allows(Effect::Transform),
                context: context && e.allows(Effect::Collected),
            })
            .collect();
        Some(HostFacts {
            host,
            words: words.into_iter().map(|(_, w, m)| (w, m)).collect(),
            events,
        })
    }

    fn event(&self, name: &str) -> Option<&EventEffects> {
        self.events.iter().find(|e| e.name == name)
    }
}

/// Takes the command hooks out of `settings` (one of the host's hook
/// files, read as JSON): every one that does not run hookc and runs on an
/// event of the host's profile, its timeout read with the profile's
/// `timeout_unit_ms`.
pub(super) fn take(
    facts: &HostFacts,
    settings: &Value,
    spec: &SettingsSpec,
) -> Result<Taken, String> {
    let timeout_key = timeout_member(&spec.entry);
    let mut settings = settings.clone();
    let mut hooks = Vec::new();
    let mut left = Vec::new();
    let Some(Value::Object(events)) = settings.get_mut("hooks") else {
        return Ok(Taken {
            hooks,
            settings,
            left,
        });
    };
    for (event, list) in events.iter_mut() {
        let Value::Array(entries) = list else {
            return Err(format!("has a `hooks.{event}` member that is not a list"));
        };
        let known = facts.event(event);
        entries.retain_mut(|entry| {
            let matcher = entry
                .get("matcher")
                .and_then(Value::as_str)
                .filter(|m| !m.is_empty() && *m != "*")
                .map(str::to_owned);
            let mut adopt_one = |hook: &Value| -> bool {
                let command = ["command", "bash"]
                    .iter()
                    .find_map(|k| hook.get(*k).and_then(Value::as_str));
                let kind = hook
                    .get("type")
                    .and_then(Value::as_str)
                    .unwrap_or("command");
                let Some(command) = command.filter(|_| kind == "command") else {
                    left.push(format!(
                        "a `{kind}` hook on {event} (only command hooks are adopted)"
                    ));
                    return false;
                };
                if runs_hookc(command) {
                    return false;
                }
                if hook
                    .get("env")
                    .and_then(Value::as_object)
                    .is_some_and(|env| !env.is_empty())
                {
                    left.push(format!(
                        "`{command}` on {event} (it sets environment variables, which a `run` does not)"
                    ));
                    return false;
                }
                let Some(known) = known else {
                    left.push(format!(
                        "`{command}` on {event} (hookc does not answer {event})"
                    ));
                    return false;
                };
                if matcher.is_some() && !known.tools {
                    left.push(format!(
                        "`{command}` on {event} (its matcher selects something other than a tool)"
                    ));
                    return false;
                }
                let timeout_ms = timeout_key
                    .as_deref()
                    .and_then(|k| hook.get(k))
                    .and_then(Value::as_f64)
                    .filter(|t| t.is_finite() && *t > 0.0)
                    .map(|t| (t * spec.timeout_unit_ms as f64) as u64);
                hooks.push(FoundHook {
                    event: event.clone(),
                    matcher: matcher.clone(),
                    command: command.to_owned(),
                    timeout_ms,
                    cwd: hook
                        .get("cwd")
                        .and_then(Value::as_str)
                        .filter(|c| !c.is_empty() && *c != ".")
                        .map(str::to_owned),
                });
                true
            };
            match entry.get_mut("hooks") {
                Some(Value::Array(group)) => {
                    group.retain(|h| !adopt_one(h));
                    !group.is_empty()
                }
                _ => !adopt_one(entry),
            }
        });
    }
    events.retain(|_, list| list.as_array().is_none_or(|l| !l.is_empty()));
    Ok(Taken {
        hooks,
        settings,
        left,
    })
}

/// Whether a settings command runs hookc's hook (ours, never adopted).
pub(super) fn runs_hookc(command: &str) -> bool {
    command.contains("hookc hook ")
}

/// The member of a settings hook holding its timeout: the numeric member
/// of the entry template's hook.
fn timeout_member(entry: &Value) -> Option<String> {
    let hook = match entry.get("hooks") {
        Some(Value::Array(hooks)) => hooks.first()?,
        _ => entry,
    };
    hook.as_object()?
        .iter()
        .find(|(_, v)| v.is_number())
        .map(|(k, _)| k.clone())
}

/// The policy that runs `hooks` for `host`: YAML, its strings written as
/// JSON strings (which YAML reads as they are). `deadline_ms` bounds each
/// program's timeout (the whole call has no more).
pub(super) fn policy(
    facts: &HostFacts,
    hooks: &[FoundHook],
    settings_file: &str,
    deadline_ms: u64,
) -> String {
    let host = facts.host;
    let title = host.profile().title();
    let input = &host.profile().meta().payload.tool_input;
    let q = |s: &str| Value::from(s).to_string();
    let mut out = String::new();
    let _ = writeln!(
        out,
        "# The hooks `hookc init --adopt` moved here from {settings_file}, run by\n\
         # hookc in the order they were listed there (docs/src/hosts/adopt.md).\n\
         # Each is an awaited `run` of the same command, the payload on standard\n\
         # input; its answer, read as {title} reads a hook's, becomes a decision of\n\
         # this policy: the strictest decision wins, a rewrite is applied before\n\
         # the next hook runs, and a hook that fails (exits other than 0 or 2, or\n\
         # answers what {title} does not read) blocks.\n\
         # `hookc init --unadopt` puts them back.\n\
         host: {}\n\
         hooks:",
        host.name()
    );
    for (n, hook) in hooks.iter().enumerate() {
        let id = format!("adopted_{}", n + 1);
        let Some(event) = facts.event(&hook.event) else {
            continue;
        };
        let ev = q(&hook.event);
        let result = format!("results.{id}");
        let timeout = hook
            .timeout_ms
            .unwrap_or(deadline_ms)
            .min(deadline_ms)
            .clamp(1, hookc_runtime::limits::MAX_HOST_TIMEOUT_MS);
        let when = hook
            .matcher
            .as_ref()
            .map(|m| format!("tool_name.matches({})", cel_string(&format!("^(?:{m})$"))));
        let _ = writeln!(out, "  - id: {id}");
        let _ = writeln!(
            out,
            "    description: {}",
            q(&format!("{} hook: {}", hook.event, hook.command))
        );
        let _ = writeln!(out, "    event: {ev}");
        if let Some(when) = when {
            let _ = writeln!(out, "    when: {}", q(&when));
        }
        let cwd = hook
            .cwd
            .as_ref()
            .map(|c| format!(", cwd: {}", q(c)))
            .unwrap_or_default();
        let _ = writeln!(
            out,
            "    action: {{type: run, argv: [{}], shell: true{cwd}, stdin_payload: true, read_answer: true, timeout_ms: {timeout}}}",
            q(&hook.command)
        );
        let seen = format!("has({result}) && ");
        let words: Vec<String> = event.words.iter().map(|w| cel_string(w)).collect();
        // A failure, or a word the host has no decision of: a block.
        let failed = format!(
            "{seen}({result}.answer.failed != null || (has({result}.answer.decision) && {result}.answer.decision != null && !({result}.answer.decision in [{}])))",
            words.join(", ")
        );
        let block = event
            .words
            .iter()
            .find(|w| *w == "deny")
            .or(event.words.first());
        if let Some(block) = block {
            let _ = writeln!(
                out,
                "  - id: {id}_failed\n    event: {ev}\n    when: {}",
                q(&failed)
            );
            let reason = format!(
                "the adopted hook `{}` failed: ${{{result}.answer.failed ?? ('it answered ' + {result}.answer.decision)}}",
                hook.command.replace("${", "$${")
            );
            let _ = writeln!(out, "    action: {{type: {block}, reason: {}}}", q(&reason));
        }
        for word in &event.words {
            let shows_user = facts.words.iter().any(|(w, m)| w == word && *m);
            let _ = writeln!(
                out,
                "  - id: {id}_{word}\n    event: {ev}\n    when: {}",
                q(&format!(
                    "{seen}{result}.answer.decision == {}",
                    cel_string(word)
                ))
            );
            let mut action = format!(
                "{{type: {word}, reason: {}",
                q(&format!("${{{result}.answer.reason ?? ''}}"))
            );
            if shows_user {
                let _ = write!(
                    action,
                    ", user_message: {}",
                    q(&format!("${{{result}.answer.user_message ?? ''}}"))
                );
            }
            let _ = writeln!(out, "    action: {action}}}");
        }
        if event.rewrite {
            let _ = writeln!(
                out,
                "  - id: {id}_rewrite\n    event: {ev}\n    when: {}\n    action: {{type: rewrite, patch: {{{input}: {}}}}}",
                q(&format!("{seen}{result}.answer.input != null")),
                q(&format!("${{{result}.answer.input}}"))
            );
        }
        if event.context {
            let _ = writeln!(
                out,
                "  - id: {id}_context\n    event: {ev}\n    when: {}\n    action: {{type: context, text: {}}}",
                q(&format!("{seen}{result}.answer.context != null")),
                q(&format!("${{{result}.answer.context}}"))
            );
        }
    }
    if hooks.is_empty() {
        out.push_str(" []\n");
    }
    out
}

/// `text` as a string literal of the `when` language (CEL escapes).
fn cel_string(text: &str) -> String {
    let mut out = String::with_capacity(text.len() + 2);
    out.push('\'');
    for c in text.chars() {
        match c {
            '\\' => out.push_str("\\\\"),
            '\'' => out.push_str("\\'"),
            '\n' => out.push_str("\\n"),
            '\r' => out.push_str("\\r"),
            '\t' => out.push_str("\\t"),
            c => out.push(c),
        }
    }
    out.push('\'');
    out
}

/// The record `--unadopt` reads: the settings file as it was, and the
/// digest of the settings adopt wrote (hookc's own commands normalised).
pub(super) fn record(
    settings_file: &str,
    original: Option<&str>,
    written: &str,
    others: &[OtherFile],
) -> String {
    let others: Vec<Value> = others
        .iter()
        .map(|o| json!({"file": o.file, "original": o.original, "written": o.written}))
        .collect();
    let record = json!({
        "settings": settings_file,
        "original": original,
        "written": normalized_digest(written),
        "others": others,
    });
    let mut text = serde_json::to_string_pretty(&record).unwrap_or_default();
    text.push('\n');
    text
}

/// Another hook file adoption changed (`adopt_from`): its path relative to
/// the project, its text before, and the digest of the text written.
pub(super) struct OtherFile {
    pub file: String,
    pub original: String,
    pub written: String,
}

/// What a record says, read back.
pub(super) struct Record {
    /// The settings file's text before adoption; `None`: there was none.
    pub original: Option<String>,
    /// The digest of the settings adopt wrote, normalised.
    pub written: String,
    /// The other hook files it changed.
    pub others: Vec<OtherFile>,
}

/// Reads a record; `Err` says what is wrong with it.
pub(super) fn read_record(text: &str) -> Result<Record, String> {
    let value: Value =
        serde_json::from_str(text).map_err(|e| format!("is not valid JSON ({e})"))?;
    let original = match value.get("original") {
        Some(Value::String(s)) => Some(s.clone()),
        Some(Value::Null) => None,
        _ => return Err("has no `original` settings".to_owned()),
    };
    let written = value
        .get("written")
        .and_then(Value::as_str)
        .ok_or("has no `written` digest")?
        .to_owned();
    let text = |o: &Value, key: &str| o.get(key).and_then(Value::as_str).map(str::to_owned);
    let others = match value.get("others") {
        None => Vec::new(),
        Some(Value::Array(items)) => items
            .iter()
            .map(|o| {
                Some(OtherFile {
                    file: text(o, "file")?,
                    original: text(o, "original")?,
                    written: text(o, "written")?,
                })
            })
            .collect::<Option<Vec<_>>>()
            .ok_or("has an `others` entry without its file, original and written")?,
        Some(_) => return Err("has `others` that is not a list".to_owned()),
    };
    Ok(Record {
        original,
        written,
        others,
    })
}

/// The digest of a settings text with hookc's own commands normalised
/// (pins and deadlines left out), parsed so that formatting does not
/// count: what `--unadopt` compares to know the file is as adopt left it.
pub(super) fn normalized_digest(settings: &str) -> String {
    let mut value: Value = serde_json::from_str(settings).unwrap_or(Value::Null);
    normalize(&mut value);
    crate::trust::digest(value.to_string().as_bytes())
}

fn normalize(value: &mut Value) {
    match value {
        Value::String(s) if runs_hookc(s) => *s = super::merge::unpinned(s),
        Value::Array(items) => items.iter_mut().for_each(normalize),
        Value::Object(members) => members.values_mut().for_each(normalize),
        _ => {}
    }
}

/// `command` running `.hookc/adopted.yaml` before each guard it runs:
/// every word naming `.hookc/guard.yaml` gets a twin naming the adopted
/// hooks, placed first so that the guard decides on what they rewrote.
pub(super) fn with_adopted(command: &str) -> String {
    let mut out: Vec<String> = Vec::new();
    for word in command.split(' ') {
        if word.contains(".hookc/guard.yaml") {
            out.push(word.replace(".hookc/guard.yaml", ADOPTED_WORD));
        }
        out.push(word.to_owned());
    }
    out.join(" ")
}

/// The settings' events, for tests.
#[cfg(test)]
fn events_of(settings: &Value) -> serde_json::Map<String, Value> {
    settings
        .get("hooks")
        .and_then(Value::as_object)
        .cloned()
        .unwrap_or_default()
}

#[cfg(test)]
mod tests {
    use super::*;

    fn claude() -> Host {
        Host::from_name("claude-code").unwrap()
    }

    #[test]
    fn command_hooks_are_taken_and_the_rest_left() {
        let settings = json!({"model": "x", "hooks": {
            "PreToolUse": [
                {"matcher": "Bash", "hooks": [
                    {"type": "command", "command": "./a.sh", "timeout": 5},
                    {"type": "http", "url": "http://x"}]},
                {"matcher": "*", "hooks": [{"type": "command", "command": "hookc hook --host claude-code g.yaml"}]}],
            "Stop": [{"hooks": [{"type": "command", "command": "./b.sh"}]}],
            "FileChanged": [{"hooks": [{"type": "command", "command": "./c.sh"}]}]}});
        let spec = claude().profile().settings();
        let facts = HostFacts::of(claude()).unwrap();
        let taken = take(&facts, &settings, spec).unwrap();
        let commands: Vec<_> = taken.hooks.iter().map(|h| h.command.as_str()).collect();
        assert_eq!(commands, ["./a.sh", "./b.sh"]);
        assert_eq!(taken.hooks[0].matcher.as_deref(), Some("Bash"));
        assert_eq!(taken.hooks[0].timeout_ms, Some(5000));
        assert_eq!(taken.hooks[1].matcher, None);
        let events = events_of(&taken.settings);
        // The http hook stays in its group; hookc's own entry stays; Stop's
        // list is gone; FileChanged is left (hookc does not answer it).
        assert_eq!(
            events["PreToolUse"][0]["hooks"].as_array().unwrap().len(),
            1
        );
        assert_eq!(events["PreToolUse"][0]["hooks"][0]["type"], "http");
        assert!(events["PreToolUse"][1]["hooks"][0]["command"]
            .as_str()
            .unwrap()
            .contains("hookc hook"));
        assert!(!events.contains_key("Stop"));
        assert!(events.contains_key("FileChanged"));
        assert_eq!(taken.left.len(), 2, "{:?}", taken.left);
        assert_eq!(taken.settings["model"], "x");
    }

    #[test]
    fn the_adopted_policy_compiles_for_every_host_that_adopts() {
        for name in ["claude-code", "codex", "gemini-cli", "copilot", "cursor"] {
            let host = Host::from_name(name).unwrap();
            let facts = HostFacts::of(host).unwrap();
            let hooks: Vec<FoundHook> = facts
                .events
                .iter()
                .map(|e| FoundHook {
                    event: e.name.clone(),
                    matcher: e.tools.then(|| "Bash|Write".to_owned()),
                    command: "./it's \"quoted\" ${HOME}.sh".to_owned(),
                    timeout_ms: Some(120_000),
                    cwd: Some("sub dir".to_owned()),
                })
                .collect();
            assert!(!hooks.is_empty(), "{name}");
            let text = policy(&facts, &hooks, "settings.json", 9000);
            let compiled = hookc::compile::compile(&[hookc::compile::Input::new(
                "adopted.yaml",
                text.clone(),
            )]);
            let errors: Vec<_> = compiled
                .diagnostics
                .iter()
                .filter(|d| d.is_error())
                .map(|d| d.message.clone())
                .collect();
            assert!(errors.is_empty(), "{name}: {errors:?}\n{text}");
            assert!(compiled.policy.is_some(), "{name}");
        }
    }

    #[test]
    fn the_adopted_policy_runs_before_the_guard() {
        assert_eq!(
            with_adopted(
                r#"hookc hook --host claude-code "$CLAUDE_PROJECT_DIR"/.hookc/guard.yaml"#
            ),
            r#"hookc hook --host claude-code "$CLAUDE_PROJECT_DIR"/.hookc/adopted.yaml "$CLAUDE_PROJECT_DIR"/.hookc/guard.yaml"#
        );
        assert_eq!(
            with_adopted("hookc hook --find .hookc/guard.yaml || exit 2"),
            "hookc hook --find .hookc/adopted.yaml .hookc/guard.yaml || exit 2"
        );
    }

    #[test]
    fn strings_are_written_for_the_when_language() {
        assert_eq!(cel_string(r"a'b\c"), r"'a\'b\\c'");
    }
}

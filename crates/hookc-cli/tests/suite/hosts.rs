//! `hookc hook` played as its hosts play it: each payload of
//! `tests/data/hosts/HOST/cases/` written to the standard input of a
//! spawned `hookc hook --host HOST`, its exit code and standard output
//! compared with `NAME.out` (`UPDATE_EXPECT=1` rewrites them), from the
//! sources and from the compiled artifact alike; Codex's, Gemini CLI's and
//! GitHub Copilot's answers checked against the members they publish; every
//! failure answered with the host's block (or nothing under `--fail-open`);
//! the `--log` replayed by `hookc eval --events` and `hookc diff`.
//!
//! GitHub Copilot's payloads do not name their event: its cases are named
//! `EVENT.NAME` and `hookc hook` is given `--event EVENT`.

use serde_json::Value;
use std::io::Write;
use std::path::{Path, PathBuf};
use std::process::{Command, Output, Stdio};

const DATA: &str = concat!(env!("CARGO_MANIFEST_DIR"), "/tests/data/hosts");
/// The repository root, where `hookc` runs: the guards are the guide's,
/// `examples/hosts/HOST/guard.yaml`.
const ROOT: &str = concat!(env!("CARGO_MANIFEST_DIR"), "/../..");
const HOSTS: [&str; 5] = ["claude-code", "codex", "gemini-cli", "cursor", "copilot"];

/// A scratch directory of this test binary.
fn scratch(name: &str) -> PathBuf {
    let dir = std::env::temp_dir().join(format!("hookc-hosts-{}-{name}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    dir
}

/// `hookc ARGS` with `stdin` on its standard input.
fn hookc(args: &[&str], stdin: &[u8]) -> Output {
    run(crate::hookc_command(), args, stdin)
}

/// `command ARGS` in the repository root, `stdin` on its standard input.
fn run(mut command: Command, args: &[&str], stdin: &[u8]) -> Output {
    let mut child = command
        .args(args)
        .current_dir(ROOT)
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    child.stdin.take().unwrap().write_all(stdin).unwrap();
    child.wait_with_output().unwrap()
}

/// `hookc hook --host HOST POLICY EXTRA...` on `payload`.
fn hook(host: &str, policy: &str, extra: &[&str], payload: &[u8]) -> Output {
    let mut args = vec!["hook", "--host", host, policy];
    args.extend(extra);
    hookc(&args, payload)
}

/// `exit N` and the standard output: what a host reads.
fn seen(out: &Output) -> String {
    format!(
        "exit {}\n{}",
        out.status.code().unwrap(),
        String::from_utf8_lossy(&out.stdout)
    )
}

/// The cases of a host, by name.
fn cases(host: &str) -> Vec<(String, PathBuf)> {
    let mut cases: Vec<_> = std::fs::read_dir(Path::new(DATA).join(host).join("cases"))
        .unwrap()
        .map(|e| e.unwrap().path())
        .filter(|p| p.extension().is_some_and(|x| x == "json"))
        .map(|p| (p.file_stem().unwrap().to_string_lossy().into_owned(), p))
        .collect();
    cases.sort();
    assert!(!cases.is_empty(), "{host} has no cases");
    cases
}

/// The event of case `name` of `host`: Copilot's is named by the case, the
/// others' by the payload's `hook_event_name`.
fn event_of(host: &str, name: &str, payload: &[u8]) -> String {
    if host == "copilot" {
        return name.split('.').next().unwrap().to_owned();
    }
    serde_json::from_slice::<Value>(payload).unwrap()["hook_event_name"]
        .as_str()
        .unwrap()
        .to_owned()
}

/// The arguments that tell `host` the event: `--event EVENT` for Copilot,
/// whose payloads do not name it; none for the others.
fn event_args(host: &str, event: &str) -> Vec<String> {
    if host == "copilot" {
        vec!["--event".to_owned(), event.to_owned()]
    } else {
        Vec::new()
    }
}

/// `hookc hook` on `host`'s case `name` (its event given as the host needs),
/// with `extra` arguments.
fn hook_case(host: &str, policy: &str, extra: &[&str], name: &str, payload: &[u8]) -> Output {
    let given = event_args(host, &event_of(host, name, payload));
    let mut args: Vec<&str> = given.iter().map(String::as_str).collect();
    args.extend(extra);
    hook(host, policy, &args, payload)
}

/// The cases of a host: name, event and payload.
fn payloads(host: &str) -> Vec<(String, String, Vec<u8>)> {
    cases(host)
        .into_iter()
        .map(|(name, path)| {
            let payload = std::fs::read(&path).unwrap();
            (name.clone(), event_of(host, &name, &payload), payload)
        })
        .collect()
}

/// The host's guard, as the guide shows it.
fn guard(host: &str) -> String {
    format!("examples/hosts/{host}/guard.yaml")
}

/// The host's guard compiled to an artifact.
fn artifact(host: &str) -> PathBuf {
    let out = scratch(host).join("guard.hkb");
    let guard = guard(host);
    let done = hookc(&["compile", &guard, "-o", out.to_str().unwrap()], b"");
    assert!(
        done.status.success(),
        "{}",
        String::from_utf8_lossy(&done.stderr)
    );
    out
}

#[test]
fn every_payload_gets_the_exact_answer() {
    let update = std::env::var_os("UPDATE_EXPECT").is_some();
    let mut wrong = Vec::new();
    for host in HOSTS {
        let guard = guard(host);
        let compiled = artifact(host);
        for (name, path) in cases(host) {
            let payload = std::fs::read(&path).unwrap();
            let from_sources = hook_case(host, &guard, &[], &name, &payload);
            assert!(
                from_sources.stderr.is_empty(),
                "{host}/{name}: {}",
                String::from_utf8_lossy(&from_sources.stderr)
            );
            let got = seen(&from_sources);
            let from_artifact = hook_case(host, compiled.to_str().unwrap(), &[], &name, &payload);
            assert_eq!(
                seen(&from_artifact),
                got,
                "{host}/{name}: artifact and sources differ"
            );
            let expected_path = path.with_extension("out");
            if update {
                std::fs::write(&expected_path, &got).unwrap();
                continue;
            }
            let expected = std::fs::read_to_string(&expected_path).unwrap_or_default();
            if expected != got {
                wrong.push(format!(
                    "{host}/{name}:\nexpected:\n{expected}\ngot:\n{got}"
                ));
            }
        }
    }
    assert!(wrong.is_empty(), "{}", wrong.join("\n"));
}

#[test]
fn no_decision_is_silence_never_allow() {
    for host in HOSTS {
        let (name, path) = cases(host)
            .into_iter()
            .find(|(name, _)| name.ends_with("pre_bash_nothing"))
            .unwrap();
        let payload = std::fs::read(path).unwrap();
        let out = hook_case(host, &guard(host), &[], &name, &payload);
        assert_eq!(seen(&out), "exit 0\n", "{host}");
    }
}

/// The members each Codex answer may have, by event, as its published
/// answer schemas list them (openai/codex,
/// `codex-rs/hooks/schema/generated/*.command.output.schema.json`, read
/// in November 2026; every object there has `additionalProperties:
/// false`): `(top-level members, hookSpecificOutput members)`.
fn codex_members(event: &str) -> (Vec<&'static str>, Vec<&'static str>) {
    let common = ["continue", "stopReason", "suppressOutput", "systemMessage"];
    let (top, specific): (&[&str], &[&str]) = match event {
        "PreToolUse" => (
            &["hookSpecificOutput"],
            &[
                "hookEventName",
                "permissionDecision",
                "permissionDecisionReason",
                "updatedInput",
                "additionalContext",
            ],
        ),
        "PostToolUse" => (
            &["decision", "reason", "hookSpecificOutput"],
            &[
                "hookEventName",
                "additionalContext",
                "updatedMCPToolOutput",
                "updatedToolOutput",
            ],
        ),
        "UserPromptSubmit" => (
            &["decision", "reason", "hookSpecificOutput"],
            &["hookEventName", "additionalContext"],
        ),
        "PermissionRequest" => (&["hookSpecificOutput"], &["hookEventName", "decision"]),
        "Stop" => (&["decision", "reason"], &[]),
        "SessionStart" => (
            &["hookSpecificOutput"],
            &["hookEventName", "additionalContext", "env"],
        ),
        other => panic!("no Codex answer schema for {other}"),
    };
    (
        common.iter().chain(top).copied().collect(),
        specific.to_vec(),
    )
}

/// Checks one Codex answer against [`codex_members`] and the schemas'
/// value rules: `permissionDecision` is `allow|deny|ask`, `decision` is
/// `block` with a reason that is not blank, `hookEventName` is the event;
/// and against what Codex 0.171 refuses at run time, a failed hook whose
/// call goes ahead (scripts/hosts/codex.py, its findings): `ask`, an
/// `allow` without `updatedInput` or `updatedInput` without `allow`, a
/// deny without a reason, a reason without a decision; `continue`,
/// `stopReason`, `suppressOutput` on PreToolUse and PermissionRequest;
/// `suppressOutput` and `updatedMCPToolOutput` on PostToolUse.
fn check_codex_answer(event: &str, answer: &Value) -> Result<(), String> {
    let (top, specific) = codex_members(event);
    let object = answer.as_object().ok_or("not an object")?;
    for key in object.keys() {
        if !top.contains(&key.as_str()) {
            return Err(format!("unknown member `{key}`"));
        }
    }
    let refused: &[&str] = match event {
        "PreToolUse" | "PermissionRequest" => &["continue", "stopReason", "suppressOutput"],
        "PostToolUse" => &["suppressOutput"],
        _ => &[],
    };
    if let Some(key) = refused.iter().find(|k| object.contains_key(**k)) {
        return Err(format!(
            "`{key}`, which Codex refuses on {event} at run time"
        ));
    }
    if let Some(s) = object.get("hookSpecificOutput").and_then(Value::as_object) {
        let decision = s.get("permissionDecision").and_then(Value::as_str);
        let reason = s.get("permissionDecisionReason").and_then(Value::as_str);
        match decision {
            Some("ask") => return Err("permissionDecision ask, refused at run time".into()),
            Some("allow") if !s.contains_key("updatedInput") => {
                return Err("an allow without updatedInput, refused at run time".into())
            }
            Some("deny") if reason.is_none_or(|r| r.trim().is_empty()) => {
                return Err("a deny without a reason, refused at run time".into())
            }
            None if s.contains_key("updatedInput") || reason.is_some() => {
                return Err(
                    "updatedInput or a reason without a decision, refused at run time".into(),
                )
            }
            _ => {}
        }
        if s.contains_key("updatedMCPToolOutput") {
            return Err("updatedMCPToolOutput, refused at run time".into());
        }
    }
    if let Some(decision) = object.get("decision") {
        if decision != "block" {
            return Err(format!("decision {decision}"));
        }
        let reason = object.get("reason").and_then(Value::as_str).unwrap_or("");
        if reason.trim().is_empty() {
            return Err("a block without a reason".into());
        }
    }
    if let Some(s) = object.get("hookSpecificOutput") {
        let s = s.as_object().ok_or("hookSpecificOutput is not an object")?;
        for key in s.keys() {
            if !specific.contains(&key.as_str()) {
                return Err(format!("unknown member `hookSpecificOutput.{key}`"));
            }
        }
        if s.get("hookEventName").and_then(Value::as_str) != Some(event) {
            return Err("hookEventName is not the event".into());
        }
        if let Some(d) = s.get("permissionDecision") {
            if !["allow", "deny", "ask"].iter().any(|w| d == w) {
                return Err(format!("permissionDecision {d}"));
            }
        }
        if let Some(d) = s.get("decision") {
            check_codex_permission_decision(d)?;
        }
    }
    Ok(())
}

/// Checks PermissionRequest's `hookSpecificOutput.decision` against
/// `PermissionRequestDecisionWire` of the same schemas: `behavior` is
/// `allow|deny`, the members are the schema's, and none of those Codex
/// fails closed on (`updatedInput` present, `interrupt: true`) is there.
fn check_codex_permission_decision(decision: &Value) -> Result<(), String> {
    let members = [
        "behavior",
        "message",
        "interrupt",
        "updatedInput",
        "updatedPermissions",
        "addDirectories",
    ];
    let d = decision.as_object().ok_or("decision is not an object")?;
    for key in d.keys() {
        if !members.contains(&key.as_str()) {
            return Err(format!("unknown member `decision.{key}`"));
        }
    }
    let behavior = d.get("behavior").ok_or("a decision without a behavior")?;
    if behavior != "allow" && behavior != "deny" {
        return Err(format!("behavior {behavior}"));
    }
    if d.contains_key("updatedInput") || d.get("interrupt") == Some(&Value::Bool(true)) {
        return Err("a member Codex fails closed on".into());
    }
    Ok(())
}

/// Every JSON answer of `host` to its cases under each of `policies`
/// (each call exits 0), checked by `check`; how many there were.
fn check_answers(
    host: &str,
    policies: &[&str],
    check: fn(&str, &Value) -> Result<(), String>,
) -> usize {
    let mut checked = 0;
    for (name, event, payload) in payloads(host) {
        for policy in policies {
            let out = hook_case(host, policy, &[], &name, &payload);
            assert_eq!(out.status.code(), Some(0), "{host}/{name}");
            if out.stdout.is_empty() {
                continue;
            }
            let answer: Value = serde_json::from_slice(&out.stdout).unwrap();
            check(&event, &answer).unwrap_or_else(|e| panic!("{host}/{name}: {e} in {answer}"));
            checked += 1;
        }
    }
    checked
}

#[test]
fn codex_answers_have_only_the_members_its_schemas_allow() {
    // The answers, and the fail-closed answers to the same events.
    let checked = check_answers(
        "codex",
        &[&guard("codex"), "missing.hkb"],
        check_codex_answer,
    );
    assert!(checked > 12, "only {checked} answers checked");
}

#[test]
fn the_codex_check_refuses_what_the_schemas_refuse() {
    let bad = [
        (
            "PreToolUse",
            r#"{"hookSpecificOutput": {"hookEventName": "PreToolUse", "permissionDecision": "defer"}}"#,
        ),
        ("PreToolUse", r#"{"decision": "block", "reason": "x"}"#),
        ("Stop", r#"{"decision": "block"}"#),
        (
            "Stop",
            r#"{"hookSpecificOutput": {"hookEventName": "Stop"}}"#,
        ),
        (
            "SessionStart",
            r#"{"hookSpecificOutput": {"hookEventName": "SessionStart", "updatedInput": {}}}"#,
        ),
        (
            "PermissionRequest",
            r#"{"decision": "block", "reason": "x"}"#,
        ),
        (
            "PermissionRequest",
            r#"{"hookSpecificOutput": {"hookEventName": "PermissionRequest", "decision": {"behavior": "ask"}}}"#,
        ),
        (
            "PermissionRequest",
            r#"{"hookSpecificOutput": {"hookEventName": "PermissionRequest", "decision": {"message": "x"}}}"#,
        ),
        (
            "PermissionRequest",
            r#"{"hookSpecificOutput": {"hookEventName": "PermissionRequest", "decision": {"behavior": "allow", "updatedInput": {}}}}"#,
        ),
        (
            "PermissionRequest",
            r#"{"hookSpecificOutput": {"hookEventName": "PermissionRequest", "decision": {"behavior": "deny", "interrupt": true}}}"#,
        ),
        (
            "PermissionRequest",
            r#"{"hookSpecificOutput": {"hookEventName": "PermissionRequest", "permissionDecision": "deny"}}"#,
        ),
        // What Codex 0.171 refuses at run time, though its schemas allow it.
        (
            "PreToolUse",
            r#"{"hookSpecificOutput": {"hookEventName": "PreToolUse", "permissionDecision": "ask", "permissionDecisionReason": "x"}}"#,
        ),
        (
            "PreToolUse",
            r#"{"hookSpecificOutput": {"hookEventName": "PreToolUse", "permissionDecision": "allow", "permissionDecisionReason": "x"}}"#,
        ),
        (
            "PreToolUse",
            r#"{"hookSpecificOutput": {"hookEventName": "PreToolUse", "updatedInput": {"command": "ls"}}}"#,
        ),
        (
            "PreToolUse",
            r#"{"hookSpecificOutput": {"hookEventName": "PreToolUse", "permissionDecision": "deny"}}"#,
        ),
        ("PreToolUse", r#"{"continue": false, "stopReason": "x"}"#),
        (
            "PermissionRequest",
            r#"{"continue": false, "stopReason": "x"}"#,
        ),
        ("PostToolUse", r#"{"suppressOutput": true}"#),
    ];
    for (event, answer) in bad {
        let answer: Value = serde_json::from_str(answer).unwrap();
        assert!(check_codex_answer(event, &answer).is_err(), "{answer}");
    }
}

/// Checks one Gemini CLI answer against what Gemini CLI 0.61 obeys (its
/// hooks reference, google-gemini/gemini-cli `docs/hooks/reference.md`, and
/// the end-to-end suite): `decision` is `allow`, `deny` or `block` (never
/// `ask`, which leaves `gemini -p` waiting) with a reason that is not blank,
/// on the events whose decision it acts on (not AfterModel: a deny there
/// does not withhold the chunk); `hookSpecificOutput.tool_input` on
/// BeforeTool only; `additionalContext` on AfterTool, BeforeAgent and
/// SessionStart (BeforeTool ignores it).
fn check_gemini_answer(event: &str, answer: &Value) -> Result<(), String> {
    let object = answer.as_object().ok_or("not an object")?;
    let decides = [
        "BeforeTool",
        "AfterTool",
        "BeforeAgent",
        "AfterAgent",
        "BeforeModel",
    ];
    for (key, value) in object {
        match key.as_str() {
            "decision" => {
                if !decides.contains(&event) {
                    return Err(format!("{event} reads no decision"));
                }
                if !["allow", "deny", "block"].iter().any(|w| value == *w) {
                    return Err(format!("decision {value}"));
                }
                let reason = object.get("reason").and_then(Value::as_str);
                if reason.is_none_or(|r| r.trim().is_empty()) {
                    return Err("a decision without a reason".to_owned());
                }
            }
            "reason" => {}
            "hookSpecificOutput" => {
                let specific = value.as_object().ok_or("hookSpecificOutput")?;
                for member in specific.keys() {
                    let allowed = match member.as_str() {
                        "tool_input" => event == "BeforeTool",
                        "additionalContext" => {
                            ["AfterTool", "BeforeAgent", "SessionStart"].contains(&event)
                        }
                        _ => false,
                    };
                    if !allowed {
                        return Err(format!("`{member}` on {event}"));
                    }
                }
            }
            other => return Err(format!("unexpected member `{other}`")),
        }
    }
    Ok(())
}

#[test]
fn gemini_answers_have_only_the_members_its_reference_documents() {
    let answered = check_answers("gemini-cli", &[&guard("gemini-cli")], check_gemini_answer);
    assert!(answered >= 8, "{answered}");
    let bad = [
        ("BeforeTool", r#"{"decision": "ask", "reason": "x"}"#),
        ("BeforeTool", r#"{"decision": "deny"}"#),
        ("SessionStart", r#"{"decision": "block", "reason": "x"}"#),
        (
            "BeforeTool",
            r#"{"hookSpecificOutput": {"additionalContext": "x"}}"#,
        ),
        ("AfterTool", r#"{"hookSpecificOutput": {"tool_input": {}}}"#),
        ("BeforeTool", r#"{"permissionDecision": "deny"}"#),
        // Gemini 0.61 passes a denied AfterModel chunk on (e2e findings).
        ("AfterModel", r#"{"decision": "deny", "reason": "x"}"#),
    ];
    for (event, answer) in bad {
        let answer: Value = serde_json::from_str(answer).unwrap();
        assert!(check_gemini_answer(event, &answer).is_err(), "{answer}");
    }
}

/// A failure, answered by each host: Claude Code's, Gemini CLI's and
/// Cursor's exit 2 with the reason on standard error (Cursor's answer to
/// the events it knows is tested by [`cursor_fails_closed_with_its_own_block`]),
/// Codex's deny; `--fail-open`: nothing, exit 0.
fn assert_fails_closed(policy: &str, payload: &[u8], reason: &str) {
    for host in ["claude-code", "gemini-cli", "cursor"] {
        let out = hook(host, policy, &[], payload);
        let stderr = String::from_utf8_lossy(&out.stderr);
        assert_eq!(out.status.code(), Some(2), "{host}: {stderr}");
        assert!(out.stdout.is_empty(), "{host}");
        assert!(
            stderr.contains(reason),
            "{host}: `{reason}` not in {stderr}"
        );
    }

    let out = hook("codex", policy, &[], payload);
    assert_eq!(out.status.code(), Some(0));
    let answer: Value = serde_json::from_slice(&out.stdout).unwrap();
    let said = answer.to_string();
    assert!(said.contains(reason), "codex: `{reason}` not in {said}");
    let deny = Some(Value::from("deny"));
    let blocks = answer.pointer("/hookSpecificOutput/permissionDecision") == deny.as_ref()
        || answer.pointer("/hookSpecificOutput/decision/behavior") == deny.as_ref()
        || answer.get("decision") == Some(&Value::from("block"))
        || answer.get("continue") == Some(&Value::Bool(false));
    assert!(blocks, "codex: {said}");

    for host in ["claude-code", "codex", "gemini-cli", "cursor"] {
        assert_fails_open(host, policy, &[], payload, reason);
    }
}

/// `--fail-open` on the same failure: nothing, exit 0, the reason on
/// standard error.
fn assert_fails_open(host: &str, policy: &str, extra: &[&str], payload: &[u8], reason: &str) {
    let mut args = extra.to_vec();
    args.push("--fail-open");
    let out = hook(host, policy, &args, payload);
    assert_eq!(seen(&out), "exit 0\n", "{host} --fail-open");
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(
        stderr.contains(reason) && stderr.contains("--fail-open"),
        "{host}: {stderr}"
    );
}

fn pre_tool_use() -> Vec<u8> {
    std::fs::read(Path::new(DATA).join("codex/cases/pre_bash_deny.json")).unwrap()
}

/// A policy file `name` written with `text` in a scratch directory; its
/// path.
fn policy_file(name: &str, text: &str) -> String {
    let path = scratch("policies").join(name);
    std::fs::write(&path, text).unwrap();
    path.to_str().unwrap().to_owned()
}

#[test]
fn a_payload_file_is_read_like_standard_input_and_a_missing_one_blocks() {
    let file = scratch("payload-file").join("payload.json");
    std::fs::write(&file, pre_tool_use()).unwrap();
    let policy = guard("claude-code");
    let from_stdin = hook("claude-code", &policy, &[], &pre_tool_use());
    let from_file = hook(
        "claude-code",
        &policy,
        &["--payload", file.to_str().unwrap()],
        b"",
    );
    assert_eq!(seen(&from_file), seen(&from_stdin));
    assert!(!from_file.stdout.is_empty());

    let missing = hook(
        "claude-code",
        &policy,
        &["--payload", "no-such-payload.json"],
        b"",
    );
    assert_eq!(missing.status.code(), Some(2));
    let stderr = String::from_utf8_lossy(&missing.stderr);
    assert!(
        stderr.contains("cannot read the payload `no-such-payload.json`"),
        "{stderr}"
    );
}

#[test]
fn a_missing_policy_fails_closed() {
    assert_fails_closed(
        "missing.hkb",
        &pre_tool_use(),
        "the policy `missing.hkb` is not there",
    );
}

#[test]
fn a_failure_on_a_permission_request_denies_it() {
    // Codex's PermissionRequest payload: Claude Code's exit 2 denies the
    // permission (its hooks reference), Codex's answer is a deny.
    let payload =
        std::fs::read(Path::new(DATA).join("codex/cases/permission_nothing.json")).unwrap();
    assert_fails_closed(
        "missing.hkb",
        &payload,
        "the policy `missing.hkb` is not there",
    );
    let out = hook("codex", "missing.hkb", &[], &payload);
    let answer: Value = serde_json::from_slice(&out.stdout).unwrap();
    let decision = &answer["hookSpecificOutput"]["decision"];
    assert_eq!(decision["behavior"], "deny", "{answer}");
    assert!(decision["message"]
        .as_str()
        .unwrap()
        .contains("missing.hkb"));
    check_codex_answer("PermissionRequest", &answer).unwrap();
}

/// Codex re-runs Stop after every blocked stop, with no limit: a failure
/// that blocked would keep the agent going for ever (seen on 0.171 by the
/// end-to-end suite), so a failure on Stop stops the session instead.
#[test]
fn a_failure_on_a_codex_stop_stops_and_does_not_loop() {
    let payload = std::fs::read(Path::new(DATA).join("codex/cases/stop_again.json")).unwrap();
    let out = hook("codex", "missing.hkb", &[], &payload);
    assert_eq!(out.status.code(), Some(0));
    let answer: Value = serde_json::from_slice(&out.stdout).unwrap();
    assert_eq!(answer["continue"], false, "{answer}");
    assert!(answer.get("decision").is_none(), "{answer}");
    assert!(answer.to_string().contains("missing.hkb"), "{answer}");
    check_codex_answer("Stop", &answer).unwrap();
}

#[test]
fn a_damaged_or_stale_artifact_fails_closed() {
    let good = std::fs::read(artifact("codex")).unwrap();
    let dir = scratch("damaged");
    let truncated = dir.join("truncated.hkb");
    std::fs::write(&truncated, good.get(..good.len() / 2).unwrap()).unwrap();
    assert_fails_closed(
        truncated.to_str().unwrap(),
        &pre_tool_use(),
        "truncated.hkb",
    );
    let mut stale = good.clone();
    stale.splice(8..10, 99u16.to_le_bytes());
    let stale_path = dir.join("stale.hkb");
    std::fs::write(&stale_path, stale).unwrap();
    assert_fails_closed(
        stale_path.to_str().unwrap(),
        &pre_tool_use(),
        "format version",
    );
}

#[test]
fn sources_with_errors_fail_closed() {
    let bad = policy_file(
        "bad.yaml",
        "host: codex\nhooks:\n  - {id: a, event: PreTooluse, action: {type: deny}}\n",
    );
    assert_fails_closed(&bad, &pre_tool_use(), "E0114");
}

#[test]
fn a_payload_not_json_or_not_the_hosts_fails_closed() {
    let guard = &guard("codex");
    assert_fails_closed(guard, b"PreToolUse rm -rf /", "the payload is not JSON");
    assert_fails_closed(guard, br#"{"tool_name": "Bash"}"#, "no `hook_event_name`");
    assert_fails_closed(guard, b"[1, 2]", "not a JSON object");
    assert_fails_closed(guard, br#"{"hook_event_name": 7}"#, "not a string");
}

#[test]
fn an_evaluation_error_fails_closed() {
    let policy = policy_file(
        "fails.yaml",
        "host: claude-code\non_error: fail\nhooks:\n  - id: depth\n    event: PreToolUse\n    \
         when: \"tool_input.timeout > 10\"\n    action: {type: deny, reason: slow}\n",
    );
    // `tool_input.timeout` is absent: the condition errs, and the policy
    // says such an error fails the evaluation.
    assert_fails_closed(&policy, &pre_tool_use(), "could not decide PreToolUse");
}

#[test]
fn an_awaited_hook_fails_closed() {
    let policy = policy_file(
        "awaits.yaml",
        "action_types:\n  probe: {effect: await, parameters: {path: {type: string}}}\n\
         hooks:\n  - id: lockfile\n    event: PreToolUse\n    action: {type: probe, path: uv.lock}\n",
    );
    assert_fails_closed(&policy, &pre_tool_use(), "hook `lockfile` awaits");
}

#[test]
fn the_log_replays_to_the_same_decisions() {
    for host in HOSTS {
        let dir = scratch(&format!("log-{host}"));
        let log = dir.join("decisions.jsonl");
        let _ = std::fs::remove_file(&log);
        let guard = guard(host);
        let log_arg = log.to_str().unwrap();
        let all = cases(host);
        for (name, path) in &all {
            let payload = std::fs::read(path).unwrap();
            let out = hook_case(host, &guard, &["--log", log_arg], name, &payload);
            assert!(out.status.success());
        }
        let text = std::fs::read_to_string(&log).unwrap();
        let lines: Vec<Value> = text
            .lines()
            .map(|l| serde_json::from_str(l).unwrap())
            .collect();
        assert_eq!(lines.len(), all.len(), "{host}: a line per call");
        for (line, (name, path)) in lines.iter().zip(&all) {
            let bytes = std::fs::read(path).unwrap();
            let mut payload: Value = serde_json::from_slice(&bytes).unwrap();
            // Copilot's `toolArgs` is logged as the policy saw it: parsed.
            if let Some(Value::String(args)) = payload.get("toolArgs") {
                payload["toolArgs"] = serde_json::from_str(args).unwrap();
            }
            assert_eq!(line["context"], payload);
            assert_eq!(line["event"], event_of(host, name, &bytes).as_str());
            assert!(line["time"].as_str().unwrap().ends_with('Z'));
            assert_eq!(
                line["hook"],
                line["decision"].get("hook").cloned().unwrap_or(Value::Null)
            );
        }
        let replayed = hookc(&["eval", &guard, "--events", log_arg], b"");
        assert!(
            replayed.status.success(),
            "{}",
            String::from_utf8_lossy(&replayed.stderr)
        );
        let decisions: Vec<Value> = String::from_utf8(replayed.stdout)
            .unwrap()
            .lines()
            .map(|l| serde_json::from_str(l).unwrap())
            .collect();
        let logged: Vec<Value> = lines.iter().map(|l| l["decision"].clone()).collect();
        assert_eq!(
            decisions, logged,
            "{host}: the replay decides as the calls did"
        );
        let diff = hookc(&["diff", &guard, &guard, "--events", log_arg], b"");
        assert_eq!(
            diff.status.code(),
            Some(0),
            "{}",
            String::from_utf8_lossy(&diff.stderr)
        );
    }
}

/// Host actions: `hookc hook` runs the program or tests the path an
/// awaiting hook asks for, relative to the payload's `cwd`, and the hooks
/// after it read the result.
#[test]
fn host_actions_are_performed_and_their_results_read() {
    let project = scratch("project");
    std::fs::write(project.join("uv.lock"), "").unwrap();
    let policy = policy_file(
        "actions.yaml",
        "host: claude-code\nhooks:\n  - id: lockfile\n    event: PreToolUse\n    \
         when: \"tool_name == 'Bash' && tool_input.command.startsWith('pip ')\"\n    \
         action: {type: test_path, path: uv.lock}\n  - id: branch\n    event: PreToolUse\n    \
         when: \"tool_name == 'Bash'\"\n    \
         action: {type: run, argv: [sh, -c, 'echo main'], timeout_ms: 5000}\n  - id: use_uv\n    \
         event: PreToolUse\n    \
         when: \"has(results.lockfile) && results.lockfile.is_file\"\n    \
         action: {type: deny, reason: \"this project uses uv\"}\n  - id: on_main\n    \
         event: PreToolUse\n    \
         when: \"has(results.branch) && results.branch.stdout == 'main\\\\n'\"\n    \
         action: {type: ask, reason: \"on main\"}\n",
    );
    let payload = |command: &str, cwd: &Path| {
        serde_json::json!({
            "session_id": "s", "cwd": cwd, "hook_event_name": "PreToolUse",
            "tool_name": "Bash", "tool_input": {"command": command}
        })
        .to_string()
    };
    // The lock file is there: deny (the strictest).
    let out = hook(
        "claude-code",
        &policy,
        &[],
        payload("pip install x", &project).as_bytes(),
    );
    let answer: Value = serde_json::from_slice(&out.stdout).unwrap();
    assert_eq!(
        answer.pointer("/hookSpecificOutput/permissionDecision"),
        Some(&Value::from("deny")),
        "{answer}"
    );
    // Elsewhere, no lock file: the branch program's output decides (ask).
    let elsewhere = scratch("elsewhere");
    let out = hook(
        "claude-code",
        &policy,
        &[],
        payload("pip install x", &elsewhere).as_bytes(),
    );
    let answer: Value = serde_json::from_slice(&out.stdout).unwrap();
    assert_eq!(
        answer.pointer("/hookSpecificOutput/permissionDecision"),
        Some(&Value::from("ask")),
        "{answer}"
    );
}

#[test]
fn a_timed_out_or_failing_host_action_fails_closed() {
    let slow = policy_file(
        "slow.yaml",
        "host: claude-code\nhooks:\n  - id: slow\n    event: PreToolUse\n    \
         action: {type: run, argv: [sleep, '5'], timeout_ms: 50}\n",
    );
    // A payload whose `cwd` exists.
    let mut payload: Value = serde_json::from_slice(&pre_tool_use()).unwrap();
    payload["cwd"] = Value::from(scratch("slow").to_str().unwrap());
    let payload = payload.to_string().into_bytes();
    assert_fails_closed(
        &slow,
        &payload,
        "hook `slow`: its program ran past its timeout",
    );
    let missing = policy_file(
        "missing_program.yaml",
        "host: claude-code\nhooks:\n  - id: nothing\n    event: PreToolUse\n    \
         action: {type: run, argv: [/no/such/program]}\n",
    );
    assert_fails_closed(&missing, &payload, "cannot run `/no/such/program`");
    // The payload's own `cwd` does not exist.
    assert_fails_closed(&slow, &pre_tool_use(), "no such directory");
}

/// Cursor, failing closed on an event it lets a hook block: exit 2, the
/// reason on standard error, and the event's own block on standard output.
#[test]
fn cursor_fails_closed_with_its_own_block() {
    let case = |name: &str| {
        std::fs::read(Path::new(DATA).join(format!("cursor/cases/{name}.json"))).unwrap()
    };
    let reason = "the policy `missing.hkb` is not there";
    for (name, blocks) in [
        ("pre_bash_nothing", "/permission"),
        ("tool_deny", "/permission"),
        ("prompt_nothing", "/continue"),
        ("session_start", ""),
    ] {
        let out = hook("cursor", "missing.hkb", &[], &case(name));
        let stderr = String::from_utf8_lossy(&out.stderr);
        assert_eq!(out.status.code(), Some(2), "{name}: {stderr}");
        assert!(stderr.contains(reason), "{name}: {stderr}");
        if blocks.is_empty() {
            assert!(out.stdout.is_empty(), "{name}");
            continue;
        }
        let answer: Value = serde_json::from_slice(&out.stdout).unwrap();
        let said = answer.pointer(blocks).unwrap();
        assert!(said == "deny" || said == false, "{name}: {answer}");
        assert!(answer["user_message"].as_str().unwrap().contains(reason));
    }
}

/// Checks one GitHub Copilot answer against what the CLI 1.0.102 reads
/// (its SDK's hook output types, and the end-to-end suite,
/// /tmp/findings/copilot.md): preToolUse reads `permissionDecision`
/// (`allow|deny|ask`; a deny with a reason that is not blank),
/// `permissionDecisionReason`, `modifiedArgs` (an object) and
/// `additionalContext`; permissionRequest `behavior` (`allow|deny`) and
/// `message`; userPromptSubmitted `decision` (`block`), `reason` and
/// `additionalContext`; agentStop and subagentStop `decision`
/// (`block|allow`) and `reason`; sessionStart, postToolUse,
/// postToolUseFailure and subagentStart `additionalContext`; the other
/// events nothing.
fn check_copilot_answer(event: &str, answer: &Value) -> Result<(), String> {
    let object = answer.as_object().ok_or("not an object")?;
    let reads: &[&str] = match event {
        "preToolUse" => &[
            "permissionDecision",
            "permissionDecisionReason",
            "modifiedArgs",
            "additionalContext",
        ],
        "permissionRequest" => &["behavior", "message"],
        "userPromptSubmitted" => &["decision", "reason", "additionalContext"],
        "agentStop" | "subagentStop" => &["decision", "reason"],
        "sessionStart" | "postToolUse" | "postToolUseFailure" | "subagentStart" => {
            &["additionalContext"]
        }
        _ => &[],
    };
    for key in object.keys() {
        if !reads.contains(&key.as_str()) {
            return Err(format!("`{key}` on {event}"));
        }
    }
    let text = |key: &str| object.get(key).and_then(Value::as_str).unwrap_or("");
    let word = |key: &str, words: &[&str]| match object.get(key) {
        Some(w) if !words.iter().any(|x| w == x) => Err(format!("{key} {w}")),
        _ => Ok(()),
    };
    word("permissionDecision", &["allow", "deny", "ask"])?;
    word("behavior", &["allow", "deny"])?;
    word("decision", &["block", "allow"])?;
    let blank_reason = (object.get("permissionDecision") == Some(&Value::from("deny"))
        && text("permissionDecisionReason").trim().is_empty())
        || (object.get("decision") == Some(&Value::from("block"))
            && text("reason").trim().is_empty());
    if blank_reason {
        return Err("a deny or block without a reason".to_owned());
    }
    if object.get("modifiedArgs").is_some_and(|a| !a.is_object()) {
        return Err("modifiedArgs is not an object".to_owned());
    }
    Ok(())
}

#[test]
fn copilot_answers_have_only_the_members_its_reference_documents() {
    let answered = check_answers("copilot", &[&guard("copilot")], check_copilot_answer);
    assert!(answered >= 7, "{answered}");
    let bad = [
        ("preToolUse", r#"{"permissionDecision": "defer"}"#),
        ("preToolUse", r#"{"permissionDecision": "deny"}"#),
        ("preToolUse", r#"{"modifiedArgs": "{\"command\": \"ls\"}"}"#),
        ("preToolUse", r#"{"hookSpecificOutput": {}}"#),
        ("permissionRequest", r#"{"behavior": "ask"}"#),
        ("agentStop", r#"{"decision": "block"}"#),
        ("userPromptSubmitted", r#"{"decision": "block"}"#),
        // Copilot 1.0.102 reads context on sessionStart (findings F2), not
        // on sessionEnd.
        ("sessionEnd", r#"{"additionalContext": "x"}"#),
    ];
    for (event, answer) in bad {
        let answer: Value = serde_json::from_str(answer).unwrap();
        assert!(check_copilot_answer(event, &answer).is_err(), "{answer}");
    }
}

/// A Copilot payload of `event` from the cases (the first of that event).
fn copilot_case(event: &str) -> Vec<u8> {
    let (_, path) = cases("copilot")
        .into_iter()
        .find(|(name, _)| name.starts_with(&format!("{event}.")))
        .unwrap();
    std::fs::read(path).unwrap()
}

/// A failure, answered by Copilot on `event` (`None`: no `--event`): a deny
/// with exit 0 where the event can deny, a block with exit 0 on agentStop
/// (Copilot 1.0.102 lets the agent stop when its hook exits non-zero),
/// both tool events' denies when the event is not known, exit 1 where the
/// event cannot block (`sessionStart` here); the reason on standard error
/// too. `--fail-open`: nothing, exit 0.
fn assert_copilot_fails_closed(policy: &str, event: Option<&str>, payload: &[u8], reason: &str) {
    let extra: Vec<&str> = event.map_or_else(Vec::new, |e| vec!["--event", e]);
    let out = hook("copilot", policy, &extra, payload);
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(stderr.contains(reason), "`{reason}` not in {stderr}");
    let denies: &[&str] = match event {
        Some("preToolUse") => &["/permissionDecision"],
        Some("permissionRequest") => &["/behavior"],
        Some("agentStop") => &["/decision"],
        Some("sessionStart") => &[],
        // No event, or one Copilot does not have: both deciding events'.
        _ => &["/permissionDecision", "/behavior"],
    };
    if denies.is_empty() {
        assert_eq!(seen(&out), "exit 1\n", "{stderr}");
    } else {
        assert_eq!(out.status.code(), Some(0), "{stderr}");
        let answer: Value = serde_json::from_slice(&out.stdout).unwrap();
        for at in denies {
            let word = if *at == "/decision" { "block" } else { "deny" };
            assert_eq!(answer.pointer(at), Some(&Value::from(word)), "{answer}");
        }
        assert!(answer.to_string().contains(reason), "{answer}");
        if let (Some(event), [_]) = (event, denies) {
            check_copilot_answer(event, &answer).unwrap();
        }
    }
    assert_fails_open("copilot", policy, &extra, payload, reason);
}

#[test]
fn copilot_fails_closed_with_a_deny() {
    let pre = copilot_case("preToolUse");
    let missing = "`missing.hkb` is not there";
    assert_copilot_fails_closed("missing.hkb", Some("preToolUse"), &pre, missing);
    let request = copilot_case("permissionRequest");
    assert_copilot_fails_closed("missing.hkb", Some("permissionRequest"), &request, missing);
    let stop = copilot_case("agentStop");
    assert_copilot_fails_closed("missing.hkb", Some("agentStop"), &stop, missing);
    let start = copilot_case("sessionStart");
    assert_copilot_fails_closed("missing.hkb", Some("sessionStart"), &start, missing);

    let good = std::fs::read(artifact("copilot")).unwrap();
    let truncated = scratch("copilot-damaged").join("truncated.hkb");
    std::fs::write(&truncated, good.get(..good.len() / 2).unwrap()).unwrap();
    let truncated = truncated.to_str().unwrap();
    assert_copilot_fails_closed(truncated, Some("preToolUse"), &pre, "truncated.hkb");

    let guard = &guard("copilot");
    assert_copilot_fails_closed(guard, Some("preToolUse"), b"rm -rf /", "not JSON");
    assert_copilot_fails_closed(guard, Some("preToolUse"), b"[1]", "not a JSON object");
    // The event: not given, given but not Copilot's (the PascalCase names
    // are another payload format), or contradicted by the payload.
    assert_copilot_fails_closed(guard, None, &pre, "give it with `--event`");
    assert_copilot_fails_closed(
        guard,
        Some("PreToolUse"),
        &pre,
        "not an event of `--host copilot`",
    );
    let named = br#"{"hook_event_name": "PreToolUse", "tool_name": "bash"}"#;
    assert_copilot_fails_closed(guard, Some("preToolUse"), named, "`--event preToolUse` but");

    let fails = policy_file(
        "copilot_fails.yaml",
        "host: copilot\non_error: fail\nhooks:\n  - id: slow_tool\n    event: preToolUse\n    \
         when: \"toolArgs.timeout > 10\"\n    action: {type: deny, reason: slow}\n",
    );
    assert_copilot_fails_closed(
        &fails,
        Some("preToolUse"),
        &pre,
        "could not decide preToolUse",
    );

    let slow = policy_file(
        "copilot_slow.yaml",
        "host: copilot\nhooks:\n  - id: slow\n    event: preToolUse\n    \
         action: {type: run, argv: [sleep, '5'], timeout_ms: 50}\n",
    );
    let mut payload: Value = serde_json::from_slice(&pre).unwrap();
    payload["cwd"] = Value::from(scratch("copilot-slow").to_str().unwrap());
    let payload = payload.to_string().into_bytes();
    let timed_out = "hook `slow`: its program ran past its timeout";
    assert_copilot_fails_closed(&slow, Some("preToolUse"), &payload, timed_out);
}

/// The guide's Copilot guard asks git for the branch before a commit, in
/// the payload's `cwd`, and denies a commit on `main`; `toolArgs` is read
/// whether the CLI sent it as JSON text or the SDK as an object.
#[test]
fn copilot_guard_protects_main() {
    let repo = scratch("copilot-repo");
    let git = Command::new("git")
        .args(["init", "-q", "-b", "main"])
        .current_dir(&repo)
        .status()
        .unwrap();
    assert!(git.success());
    let commit = |args: Value| {
        serde_json::json!({
            "sessionId": "s", "timestamp": 1, "cwd": repo,
            "toolName": "bash", "toolArgs": args
        })
        .to_string()
    };
    let command = serde_json::json!({"command": "git commit -m fix"});
    for args in [Value::from(command.to_string()), command] {
        let out = hook(
            "copilot",
            &guard("copilot"),
            &["--event", "preToolUse"],
            commit(args).as_bytes(),
        );
        let answer: Value = serde_json::from_slice(&out.stdout).unwrap();
        assert_eq!(answer["permissionDecision"], "deny", "{answer}");
        let reason = answer["permissionDecisionReason"].as_str().unwrap();
        assert!(reason.contains("[hook protected_branch"), "{reason}");
    }
}

/// `--event` is an option of every host: the event a payload names agrees
/// with it, or the call fails closed.
#[test]
fn an_event_given_must_agree_with_the_payload() {
    let guard = guard("codex");
    let payload = pre_tool_use();
    let named = hook("codex", &guard, &[], &payload);
    let given = hook("codex", &guard, &["--event", "PreToolUse"], &payload);
    assert_eq!(seen(&given), seen(&named));
    let out = hook("codex", &guard, &["--event", "Stop"], &payload);
    let said = String::from_utf8_lossy(&out.stdout);
    assert!(
        said.contains("`--event Stop` but the payload's `hook_event_name` is `PreToolUse`"),
        "{said}"
    );
}

/// Cursor's profile knows every agent event its documentation lists
/// (cursor.com/docs/agent/hooks, "Hook categories"): a policy naming one
/// is not refused as unknown (E0114), and `deny` is taken only where
/// hookc answers a permission, `continue` or `followup_message`.
#[test]
fn cursor_knows_every_documented_agent_event() {
    let deciding = [
        "beforeShellExecution",
        "beforeMCPExecution",
        "beforeReadFile",
        "beforeSubmitPrompt",
        "preToolUse",
        "stop",
    ];
    let observing = [
        "sessionStart",
        "sessionEnd",
        "postToolUse",
        "postToolUseFailure",
        "subagentStart",
        "subagentStop",
        "afterShellExecution",
        "afterMCPExecution",
        "afterFileEdit",
        "preCompact",
        "afterAgentResponse",
        "afterAgentThought",
    ];
    for event in deciding.iter().chain(&observing) {
        let text = format!(
            "host: cursor\nhooks:\n  - id: h\n    event: {event}\n    action: {{type: deny, reason: r}}\n"
        );
        let policy = policy_file(&format!("cursor-{event}.yaml"), &text);
        let out = hookc(&["check", &policy], b"");
        let stderr = String::from_utf8_lossy(&out.stderr);
        let stdout = String::from_utf8_lossy(&out.stdout);
        let said = format!("{stdout}{stderr}");
        assert!(!said.contains("E0114"), "{event}: {said}");
        assert_eq!(
            out.status.success(),
            deciding.contains(event),
            "{event}: {said}"
        );
    }
}

/// `hookc hook --host claude-code` with the bundled guard, its session
/// memory kept in `state`.
fn hook_with_memory(state: &Path, payload: &Value) -> Output {
    let mut command = crate::hookc_command();
    command.env("HOOKC_STATE_DIR", state);
    let args = [
        "hook",
        "--host",
        "claude-code",
        "examples/hosts/claude-code/guard.yaml",
    ];
    run(command, &args, payload.to_string().as_bytes())
}

fn claude_call(session: &str, tool: &str, input: Value) -> Value {
    serde_json::json!({
        "session_id": session, "cwd": "/home/u/app", "hook_event_name": "PreToolUse",
        "tool_name": tool, "tool_input": input,
    })
}

#[test]
fn a_session_remembers_what_it_wrote_and_asks_before_running_it() {
    let state = scratch("memory");
    let run = claude_call(
        "s-mem",
        "Bash",
        serde_json::json!({"command": "python3 diag.py"}),
    );
    // Nothing written yet: the script is the project's, and runs.
    let before = hook_with_memory(&state, &run);
    assert_eq!(
        seen(&before),
        "exit 0\n",
        "{}",
        String::from_utf8_lossy(&before.stderr)
    );
    let write = claude_call(
        "s-mem",
        "Write",
        serde_json::json!({"file_path": "/home/u/app/diag.py", "content": "print(1)"}),
    );
    assert_eq!(seen(&hook_with_memory(&state, &write)), "exit 0\n");
    // The session wrote it: running it asks.
    let after = seen(&hook_with_memory(&state, &run));
    assert!(after.contains("\"permissionDecision\":\"ask\""), "{after}");
    assert!(after.contains("session_written_code"), "{after}");
    // Another session did not write it.
    let other = claude_call(
        "s-other",
        "Bash",
        serde_json::json!({"command": "python3 diag.py"}),
    );
    assert_eq!(seen(&hook_with_memory(&state, &other)), "exit 0\n");
    // A script written through a redirection is remembered too.
    let echo = claude_call(
        "s-mem",
        "Bash",
        serde_json::json!({"command": "echo 'echo hi' > run.sh"}),
    );
    assert_eq!(seen(&hook_with_memory(&state, &echo)), "exit 0\n");
    let bash = claude_call(
        "s-mem",
        "Bash",
        serde_json::json!({"command": "bash run.sh"}),
    );
    assert!(seen(&hook_with_memory(&state, &bash)).contains("\"ask\""));
    let sessions: Vec<_> = std::fs::read_dir(state.join("sessions")).unwrap().collect();
    assert_eq!(
        sessions.len(),
        1,
        "one file for the one session that remembered"
    );
}

#[test]
fn a_damaged_session_memory_blocks_rather_than_forgets() {
    let state = scratch("memory-damaged");
    let write = claude_call(
        "s-bad",
        "Write",
        serde_json::json!({"file_path": "/home/u/app/a.py", "content": ""}),
    );
    assert_eq!(seen(&hook_with_memory(&state, &write)), "exit 0\n");
    let file = std::fs::read_dir(state.join("sessions"))
        .unwrap()
        .next()
        .unwrap()
        .unwrap()
        .path();
    std::fs::write(&file, "{\"set\": \"written\"\n").unwrap();
    let run = claude_call("s-bad", "Bash", serde_json::json!({"command": "ls"}));
    let out = hook_with_memory(&state, &run);
    // Claude Code's block: exit 2, the reason on standard error.
    assert_eq!(out.status.code(), Some(2));
    let reason = String::from_utf8_lossy(&out.stderr);
    assert!(reason.contains("session's memory"), "{reason}");
    assert!(reason.contains("remove the file"), "{reason}");
}

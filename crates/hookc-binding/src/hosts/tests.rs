//! Unit tests of the hosts' answers (`hosts/mod.rs`).

use super::*;
use crate::compile::compile_texts;

#[test]
fn days_become_dates() {
    assert_eq!(civil_from_days(0), (1970, 1, 1));
    assert_eq!(civil_from_days(20_418), (2025, 11, 26));
    assert_eq!(civil_from_days(11_016), (2000, 2, 29));
}

const GUARD: &str = "host: claude-code\nhooks:\n  - id: no_rm_rf\n    event: PreToolUse\n    when: \"tool_name == 'Bash' && tool_input.command.startsWith('rm -rf')\"\n    action: {type: deny, reason: \"no rm -rf\"}\n";

fn guard() -> Policy {
    match compile_texts([("guard.yaml".to_owned(), GUARD.to_owned())]) {
        Ok(c) => c.policy,
        Err(e) => panic!("{e}"),
    }
}

fn claude() -> Host {
    Host::from_name("claude-code").unwrap_or_else(|| panic!("no claude-code profile"))
}

fn pre_tool_use(command: &str) -> Vec<u8> {
    serde_json::json!({
        "hook_event_name": "PreToolUse",
        "cwd": "/tmp",
        "tool_name": "Bash",
        "tool_input": {"command": command},
    })
    .to_string()
    .into_bytes()
}

#[test]
fn a_hook_call_is_answered_as_hookc_hook_prints_it() {
    let policy = guard();
    let ask = |payload: &[u8], options: &HookOptions<'_>| hook(&policy, claude(), payload, options);
    let closed = HookOptions::default();
    // A deny: the host's JSON with the attributed reason, exit 0.
    assert_eq!(
        ask(&pre_tool_use("rm -rf build"), &closed),
        Reply {
            stdout: "{\"hookSpecificOutput\":{\"hookEventName\":\"PreToolUse\",\
                         \"permissionDecision\":\"deny\",\"permissionDecisionReason\":\
                         \"no rm -rf [hook no_rm_rf at guard.yaml:3:5]\"}}\n"
                .to_owned(),
            stderr: String::new(),
            exit: 0,
        }
    );
    // No match: no decision, nothing written.
    assert_eq!(ask(&pre_tool_use("ls"), &closed), Reply::nothing());
    // A payload that is not JSON: Claude Code's block, exit 2.
    let blocked = ask(b"{not json", &closed);
    assert_eq!((blocked.exit, blocked.stdout.as_str()), (2, ""));
    assert!(
        blocked
            .stderr
            .starts_with("hookc: the payload is not JSON: "),
        "{blocked:?}"
    );
    // Fail open: no decision, the same reason on standard error.
    let open = HookOptions {
        fail_open: true,
        ..HookOptions::default()
    };
    let passed = ask(b"{not json", &open);
    assert_eq!((passed.exit, passed.stdout.as_str()), (0, ""));
    assert_eq!(
        passed.stderr,
        blocked
            .stderr
            .replace('\n', " (--fail-open: no decision)\n")
    );
    // An event given that the payload contradicts is refused.
    let other = HookOptions {
        event: Some("Stop"),
        ..HookOptions::default()
    };
    let refused = ask(&pre_tool_use("rm -rf build"), &other);
    assert_eq!(refused.exit, 2);
    assert!(refused.stderr.contains("`--event Stop`"), "{refused:?}");
}

/// The reason of a Claude Code answer to `command` under a guard with
/// `attribution` (none: the default), `None` when it has no reason.
fn answered_reason(attribution: Option<&str>, command: &str) -> Option<String> {
    let setting = attribution.map_or(String::new(), |a| format!("attribution: {a}\n"));
    let source = format!(
        "host: claude-code\n{setting}hooks:\n\
             - id: no_rm\n  event: PreToolUse\n  when: \"tool_input.command == 'rm x'\"\n  \
               action: {{type: deny, reason: \"no rm\"}}\n\
             - id: bare_deny\n  event: PreToolUse\n  when: \"tool_input.command == 'dd'\"\n  \
               action: {{type: deny}}\n\
             - id: quiet_allow\n  event: PreToolUse\n  when: \"tool_input.command == 'ls'\"\n  \
               action: {{type: allow}}\n"
    );
    let policy = match compile_texts([("guard.yaml".to_owned(), source)]) {
        Ok(c) => c.policy,
        Err(e) => panic!("{e}"),
    };
    let reply = hook(
        &policy,
        claude(),
        &pre_tool_use(command),
        &HookOptions::default(),
    );
    let answer: Value = serde_json::from_str(&reply.stdout).unwrap_or_else(|e| panic!("{e}"));
    let reason = &answer["hookSpecificOutput"]["permissionDecisionReason"];
    reason.as_str().map(str::to_owned)
}

#[test]
fn the_policy_chooses_what_a_reason_is_attributed_with() {
    let cases: [(Option<&str>, [Option<&str>; 3]); 4] = [
        // The default; the file has one line less.
        (
            None,
            [
                Some("no rm [hook no_rm at guard.yaml:3:3]"),
                Some("[hook bare_deny at guard.yaml:7:3]"),
                Some("[hook quiet_allow at guard.yaml:11:3]"),
            ],
        ),
        (
            Some("location"),
            [
                Some("no rm [hook no_rm at guard.yaml:4:3]"),
                Some("[hook bare_deny at guard.yaml:8:3]"),
                Some("[hook quiet_allow at guard.yaml:12:3]"),
            ],
        ),
        (
            Some("id"),
            [
                Some("no rm [hook no_rm]"),
                Some("[hook bare_deny]"),
                Some("[hook quiet_allow]"),
            ],
        ),
        // The reason as written; a deny without one still says which
        // hook; an allow without one has none.
        (Some("off"), [Some("no rm"), Some("[hook bare_deny]"), None]),
    ];
    for (attribution, expected) in cases {
        for (command, reason) in ["rm x", "dd", "ls"].into_iter().zip(expected) {
            assert_eq!(
                answered_reason(attribution, command).as_deref(),
                reason,
                "attribution {attribution:?}, command {command}"
            );
        }
    }
}

/// The answer of `host` to a `deny` of `command` whose action gives
/// a reason and a `user_message`.
fn audience_answer(host: &str, event: &str, payload: Value) -> Value {
    let source = format!(
        "host: {host}\nattribution: off\nhooks:\n\
             - id: no_rm\n  event: {event}\n  \
               action: {{type: deny, reason: \"for the model\", user_message: \"for the user\"}}\n"
    );
    let policy = match compile_texts([("guard.yaml".to_owned(), source)]) {
        Ok(c) => c.policy,
        Err(e) => panic!("{e}"),
    };
    let host = Host::from_name(host).unwrap_or_else(|| panic!("no profile {host}"));
    let reply = hook(
        &policy,
        host,
        payload.to_string().as_bytes(),
        &HookOptions::default(),
    );
    serde_json::from_str(&reply.stdout).unwrap_or_else(|e| panic!("{e}: {reply:?}"))
}

#[test]
fn a_user_message_goes_where_each_host_shows_the_user() {
    let claude_code = audience_answer(
        "claude-code",
        "PreToolUse",
        serde_json::json!({"hook_event_name": "PreToolUse", "cwd": "/tmp",
                               "tool_name": "Bash", "tool_input": {"command": "ls"}}),
    );
    assert_eq!(claude_code["systemMessage"], "for the user");
    assert_eq!(
        claude_code["hookSpecificOutput"]["permissionDecisionReason"],
        "for the model"
    );
    let gemini = audience_answer(
        "gemini-cli",
        "BeforeTool",
        serde_json::json!({"hook_event_name": "BeforeTool", "cwd": "/tmp",
                               "tool_name": "run_shell_command", "tool_input": {"command": "ls"}}),
    );
    assert_eq!(gemini["systemMessage"], "for the user");
    assert_eq!(gemini["reason"], "for the model");
    let cursor = audience_answer(
        "cursor",
        "beforeShellExecution",
        serde_json::json!({"hook_event_name": "beforeShellExecution", "cwd": "/tmp",
                               "command": "ls", "conversation_id": "c"}),
    );
    assert_eq!(cursor["user_message"], "for the user");
    assert_eq!(cursor["agent_message"], "for the model");
    // Without a user_message, Cursor shows the user the reason, and
    // Claude Code writes no systemMessage.
    let plain = guard();
    let reply = hook(
        &plain,
        claude(),
        &pre_tool_use("rm -rf x"),
        &HookOptions::default(),
    );
    assert!(!reply.stdout.contains("systemMessage"), "{reply:?}");
}

#[test]
fn a_run_on_an_event_that_takes_no_answer_is_performed() {
    let out = std::env::temp_dir().join(format!("hookc-session-end-{}.json", std::process::id()));
    let _ = std::fs::remove_file(&out);
    let source = format!(
            "host: claude-code\nhooks:\n\
             - id: archive\n  event: SessionEnd\n  \
               action: {{type: run, argv: [\"sh\", \"-c\", \"cat > '{}'\"], stdin_payload: true}}\n",
            out.display()
        );
    let policy = match compile_texts([("guard.yaml".to_owned(), source)]) {
        Ok(c) => c.policy,
        Err(e) => panic!("{e}"),
    };
    let payload = serde_json::json!({"hook_event_name": "SessionEnd", "session_id": "s",
                                         "cwd": "/tmp", "reason": "logout"});
    let reply = hook(
        &policy,
        claude(),
        payload.to_string().as_bytes(),
        &HookOptions::default(),
    );
    // SessionEnd reads no answer: nothing is written, exit 0.
    assert_eq!(reply, Reply::nothing());
    let written = std::fs::read_to_string(&out).unwrap_or_else(|e| panic!("{e}"));
    let _ = std::fs::remove_file(&out);
    assert_eq!(
        serde_json::from_str::<Value>(&written).unwrap_or_else(|e| panic!("{e}")),
        payload
    );
}

#[test]
fn a_hook_call_gives_the_policy_its_declared_environment() {
    // A variable only this test sets (the process's environment is
    // shared by the tests that run beside it).
    const VAR: &str = "HOOKC_TEST_DEPLOY_ENV_OF_HOSTS";
    let source = format!(
            "host: claude-code\nenv: {{{VAR}: {{}}, HOOKC_TEST_UNSET_OF_HOSTS: {{}}}}\nhooks:\n\
             - id: prod\n  event: PreToolUse\n  \
               when: \"has(env.{VAR}) && env.{VAR} == 'prod' && !has(env.HOOKC_TEST_UNSET_OF_HOSTS)\"\n  \
               action: {{type: deny, reason: \"in ${{env.{VAR}}}\"}}\n"
        );
    let policy = match compile_texts([("guard.yaml".to_owned(), source)]) {
        Ok(c) => c.policy,
        Err(e) => panic!("{e}"),
    };
    let ask = || {
        hook(
            &policy,
            claude(),
            &pre_tool_use("ls"),
            &HookOptions::default(),
        )
    };
    assert_eq!(ask(), Reply::nothing());
    std::env::set_var(VAR, "prod");
    let reply = ask();
    std::env::remove_var(VAR);
    assert!(reply.stdout.contains("\"in prod [hook prod"), "{reply:?}");
}

#[test]
fn an_evaluated_call_is_logged_as_one_line() {
    let log = std::env::temp_dir().join(format!("hookc-hosts-log-{}.jsonl", std::process::id()));
    let _ = std::fs::remove_file(&log);
    let options = HookOptions {
        log: Some(super::DecisionLog::at(&log)),
        ..HookOptions::default()
    };
    let reply = hook(&guard(), claude(), &pre_tool_use("rm -rf x"), &options);
    assert_eq!(reply.exit, 0);
    let text = std::fs::read_to_string(&log).unwrap_or_default();
    let _ = std::fs::remove_file(&log);
    let line: Value = serde_json::from_str(text.trim_end()).unwrap_or_default();
    assert_eq!(line["event"], "PreToolUse");
    assert_eq!(line["hook"], "no_rm_rf");
    assert_eq!(line["context"]["tool_input"]["command"], "rm -rf x");
}

#[test]
fn hosts_are_named_as_the_cli_spells_them() {
    for host in Host::all() {
        assert_eq!(host.name().parse::<Host>(), Ok(host));
        assert_eq!(host.to_string(), host.name());
    }
    assert_eq!(
        Host::from_name("gemini-cli").map(Host::name),
        Some("gemini-cli")
    );
    // Every host answered has a profile to compile against, and every
    // profile a host that answers (`hookc::hosts`).
    let names: Vec<_> = Host::all().map(Host::name).collect();
    assert_eq!(
        names,
        ["claude-code", "codex", "gemini-cli", "cursor", "copilot"]
    );
    let unknown = "claude".parse::<Host>().err().map(|e| e.to_string());
    assert_eq!(
        unknown.as_deref(),
        Some("no host `claude`: one of claude-code, codex, gemini-cli, cursor, copilot")
    );
}

#[test]
fn a_sink_gets_each_line_masked_with_or_without_a_file() {
    let lines = std::sync::Mutex::new(Vec::new());
    let gather = |line: &Value| lines.lock().unwrap().push(line.clone());
    let mask = ["tool_input.command".to_owned()];
    std::env::set_var("HOOKC_LOG_KEY", "sink-test");
    let log = std::env::temp_dir().join(format!("hookc-hosts-sink-{}.jsonl", std::process::id()));
    let _ = std::fs::remove_file(&log);
    for path in [None, Some(log.as_path())] {
        let options = HookOptions {
            log: Some(super::DecisionLog {
                mask: &mask,
                sink: Some(super::DecisionSink(&gather)),
                ..super::DecisionLog::new(path)
            }),
            ..HookOptions::default()
        };
        let reply = hook(&guard(), claude(), &pre_tool_use("rm -rf x"), &options);
        assert_eq!(reply.exit, 0);
    }
    std::env::remove_var("HOOKC_LOG_KEY");
    let written = std::fs::read_to_string(&log).unwrap_or_default();
    let _ = std::fs::remove_file(&log);
    let lines = lines.into_inner().unwrap();
    assert_eq!(lines.len(), 2);
    // The file has the second line only, as the sink got it.
    let in_file: Value = serde_json::from_str(written.trim_end()).unwrap_or_default();
    assert_eq!(in_file, lines[1]);
    for line in &lines {
        assert_eq!(line["hook"], "no_rm_rf");
        let command = line["context"]["tool_input"]["command"]
            .as_str()
            .unwrap_or("");
        assert!(command.starts_with("hmac-sha256:"), "{line}");
    }
}

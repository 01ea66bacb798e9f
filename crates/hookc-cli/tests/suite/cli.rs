//! The `hookc` binary: exit codes, output channels and formats.

use std::process::Output;

fn hookc(args: &[&str]) -> Output {
    crate::hookc_command()
        .args(args)
        .current_dir(concat!(env!("CARGO_MANIFEST_DIR"), "/../.."))
        .output()
        .unwrap()
}

fn text(bytes: &[u8]) -> String {
    String::from_utf8(bytes.to_vec()).unwrap()
}

const SEED: [&str; 3] = [
    "examples/thread-hooks/hooks.yaml",
    "examples/thread-hooks/directive_hooks.yaml",
    "examples/thread-hooks/directive.xml",
];

#[test]
fn check_of_the_examples_exits_0_with_warnings_on_stderr() {
    let out = hookc(&["check", SEED[0], SEED[1], SEED[2], "examples/policy.xml"]);
    let err = text(&out.stderr);
    assert_eq!(out.status.code(), Some(0), "{err}");
    assert!(err.contains("warning[W0001]"), "{err}");
    assert!(err.trim_end().ends_with("warnings"), "{err}");
    // After the diagnostics, their count by code, then the summary.
    let lines: Vec<&str> = err.lines().collect();
    assert_eq!(
        lines[lines.len() - 2],
        "warning summary: 5 × W0001, 1 × W0004, 5 × W0007",
        "{err}"
    );
    assert!(out.stdout.is_empty());
}

#[test]
fn deny_warnings_turns_warnings_into_failure() {
    let out = hookc(&["check", "--deny-warnings", SEED[0]]);
    assert_eq!(out.status.code(), Some(1));
}

#[test]
fn errors_exit_1() {
    let out = hookc(&[
        "check",
        "crates/hookc/tests/diagnostics/e0106_unknown_operator.yaml",
    ]);
    assert_eq!(out.status.code(), Some(1));
    assert!(text(&out.stderr).contains("error[E0106]: unknown operator `startswith`"));
}

#[test]
fn json_format_prints_one_object_per_diagnostic_on_stdout() {
    let out = hookc(&[
        "check",
        "--format",
        "json",
        "crates/hookc/tests/diagnostics/e0106_unknown_operator.yaml",
        SEED[0],
    ]);
    assert_eq!(out.status.code(), Some(1));
    let lines: Vec<serde_json::Value> = text(&out.stdout)
        .lines()
        .map(|l| serde_json::from_str(l).unwrap())
        .collect();
    // One error, then the seed000 example's four `event.*` paths outside its
    // own schema, one warning each (`event.pressure_ratio` is read twice).
    assert_eq!(lines.len(), 5);
    let e = &lines[0];
    assert_eq!(e["code"], "E0106");
    assert_eq!(e["severity"], "error");
    assert_eq!(
        e["file"],
        "crates/hookc/tests/diagnostics/e0106_unknown_operator.yaml"
    );
    assert_eq!(
        (e["line"].as_u64(), e["column"].as_u64()),
        (Some(5), Some(11))
    );
    assert_eq!(e["node_path"], "hooks[0].condition.op");
    assert_eq!(e["help"], "did you mean `starts_with`?");
    assert!(lines[1..]
        .iter()
        .all(|w| w["code"] == "W0001" && w["severity"] == "warning"));
    assert!(lines[1..].iter().any(|w| w["message"]
        .as_str()
        .unwrap()
        .ends_with("(and 1 more use in this file)")));
}

#[test]
fn missing_file_is_a_usage_error() {
    let out = hookc(&["check", "no/such/file.yaml"]);
    assert_eq!(out.status.code(), Some(2));
    assert!(text(&out.stderr).contains("cannot read `no/such/file.yaml`"));
}

#[test]
fn compile_emits_normalized_yaml_and_json() {
    let out = hookc(&["compile", SEED[0], SEED[1], SEED[2], "--emit", "yaml"]);
    assert_eq!(out.status.code(), Some(0), "{}", text(&out.stderr));
    let yaml = text(&out.stdout);
    let doc: serde_yaml::Value = serde_yaml::from_str(&yaml).unwrap();
    // The XML `when` stays a `when`: a condition tree would read an absent
    // path as `null` (`docs/src/semantics.md#condition-trees`).
    let hooks = doc["hooks"].as_sequence().unwrap();
    let xml_hook = hooks
        .iter()
        .find(|h| h["id"] == "examples/thread-hooks/directive.xml#directive[0]")
        .unwrap();
    assert_eq!(
        xml_hook["when"],
        "classification.category == 'rate_limited'"
    );
    // The YAML tree stays a tree.
    let tree_hook = hooks
        .iter()
        .find(|h| h["id"] == "examples/thread-hooks/directive_hooks.yaml#directive[0]")
        .unwrap();
    assert_eq!(tree_hook["condition"]["op"], "eq");
    assert_eq!(tree_hook["condition"]["path"], "classification.category");
    assert_eq!(xml_hook["action"]["type"], "call_directive");
    // Defaults filled in.
    assert_eq!(xml_hook["action"]["inherit_token"], true);

    let out = hookc(&["compile", SEED[0], "--emit", "json"]);
    assert_eq!(out.status.code(), Some(0));
    let json: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
    assert_eq!(json["builtin_hooks"][0]["id"], "default_limit_escalation");
    assert_eq!(json["builtin_hooks"][0]["action"]["timeout_seconds"], 3600);
}

#[test]
fn compile_writes_to_a_file_and_refuses_bad_input() {
    let dir = std::env::temp_dir().join(format!("hookc-cli-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let target = dir.join("normalized.yaml");
    let out = hookc(&[
        "compile",
        SEED[0],
        "--emit",
        "yaml",
        "-o",
        target.to_str().unwrap(),
    ]);
    assert_eq!(out.status.code(), Some(0));
    assert!(std::fs::read_to_string(&target)
        .unwrap()
        .contains("default_compaction"));
    let out = hookc(&[
        "compile",
        "crates/hookc/tests/diagnostics/e0404_parameter_enum.yaml",
        "--emit",
        "yaml",
    ]);
    assert_eq!(out.status.code(), Some(1));
    assert!(out.stdout.is_empty());
    std::fs::remove_dir_all(&dir).unwrap();
}

const ALL: [&str; 4] = [SEED[0], SEED[1], SEED[2], "examples/policy.xml"];

fn temp_dir(name: &str) -> std::path::PathBuf {
    let dir = std::env::temp_dir().join(format!("hookc-{name}-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    dir
}

#[test]
fn compile_ends_with_a_line_saying_what_it_wrote() {
    let dir = temp_dir("wrote");
    let small = dir.join("small.yaml");
    std::fs::write(
        &small,
        "hooks:\n  - {id: a, event: error, action: {type: abort}}\n  - {id: b, event: '*', when: 'true', action: {type: abort}}\n",
    )
    .unwrap();
    let hkb = dir.join("small.hkb");
    let out = hookc(&[
        "compile",
        small.to_str().unwrap(),
        "-o",
        hkb.to_str().unwrap(),
    ]);
    assert_eq!(out.status.code(), Some(0), "{}", text(&out.stderr));
    let bytes = std::fs::metadata(&hkb).unwrap().len();
    assert!(bytes < 1024, "{bytes} bytes");
    assert_eq!(
        text(&out.stderr).lines().last(),
        Some(format!("wrote {}: 2 hooks, 2 events, {bytes} B", hkb.display()).as_str()),
        "`*` counts as an event"
    );

    let hkb = dir.join("all.hkb");
    let mut args = vec!["compile"];
    args.extend(ALL);
    args.extend(["-o", hkb.to_str().unwrap()]);
    let out = hookc(&args);
    assert_eq!(out.status.code(), Some(0), "{}", text(&out.stderr));
    let err = text(&out.stderr);
    let lines: Vec<&str> = err.lines().collect();
    assert_eq!(
        lines[lines.len() - 2],
        "4 files checked: 20 hooks, 11 warnings"
    );
    assert_eq!(
        lines[lines.len() - 1],
        // The size is the file's (between 1 and 1024 KiB: one decimal).
        format!(
            "wrote {}: 20 hooks, 6 events, {:.1} KiB",
            hkb.display(),
            std::fs::metadata(&hkb).unwrap().len() as f64 / 1024.0
        )
    );
    std::fs::remove_dir_all(&dir).unwrap();
}

#[test]
fn compiling_twice_gives_identical_bytes() {
    let dir = temp_dir("twice");
    let (a, b) = (dir.join("a.hkb"), dir.join("b.hkb"));
    for out in [&a, &b] {
        let mut args = vec!["compile"];
        args.extend(ALL);
        args.extend(["-o", out.to_str().unwrap()]);
        let run = hookc(&args);
        assert_eq!(run.status.code(), Some(0), "{}", text(&run.stderr));
    }
    let (x, y) = (std::fs::read(&a).unwrap(), std::fs::read(&b).unwrap());
    assert!(x.starts_with(b"HOOKCBC\0"));
    assert_eq!(x, y);
    std::fs::remove_dir_all(&dir).unwrap();
}

#[test]
fn eval_on_the_artifact_and_on_the_sources_prints_the_same() {
    let dir = temp_dir("same");
    let hkb = dir.join("p.hkb");
    let mut args = vec!["compile"];
    args.extend(ALL);
    args.extend(["-o", hkb.to_str().unwrap()]);
    assert_eq!(hookc(&args).status.code(), Some(0));
    let ctx = dir.join("ctx.json");
    std::fs::write(
        &ctx,
        r#"{"event": {"thread_id": "t1"}, "error": {"code": "E9"},
            "classification": {"category": "rate_limited", "retry_policy": {"retry_after": "30"}}}"#,
    )
    .unwrap();
    for extra in [
        &[][..],
        &["--all"][..],
        &["--explain"][..],
        &["--explain", "--format", "json"][..],
    ] {
        let run = |policy: &[&str]| {
            let mut args = vec!["eval"];
            args.extend(policy);
            args.extend(["--event", "error", "--context", ctx.to_str().unwrap()]);
            args.extend(extra);
            let out = hookc(&args);
            assert_eq!(out.status.code(), Some(0), "{}", text(&out.stderr));
            text(&out.stdout)
        };
        let from_sources = run(&ALL);
        assert_eq!(from_sources, run(&[hkb.to_str().unwrap()]), "{extra:?}");
        if extra.is_empty() {
            let line: serde_json::Value = serde_json::from_str(&from_sources).unwrap();
            assert_eq!(line["hook"], "rate_limit_backoff");
            assert_eq!(line["action"]["parameters"]["retry_after"], "30");
        }
    }
    std::fs::remove_dir_all(&dir).unwrap();
}

#[test]
fn eval_prints_null_when_nothing_matches_and_reads_stdin() {
    use std::io::Write as _;
    let mut child = crate::hookc_command()
        .args(["eval", SEED[0], "--event", "limit", "--context", "-"])
        .current_dir(concat!(env!("CARGO_MANIFEST_DIR"), "/../.."))
        .stdin(std::process::Stdio::piped())
        .stdout(std::process::Stdio::piped())
        .spawn()
        .unwrap();
    child
        .stdin
        .take()
        .unwrap()
        .write_all(br#"{"event": {}}"#)
        .unwrap();
    let out = child.wait_with_output().unwrap();
    assert_eq!(out.status.code(), Some(0));
    assert_eq!(text(&out.stdout), "null\n");
}

#[test]
fn replaying_an_event_log_prints_one_line_per_record() {
    let dir = temp_dir("replay");
    let log = dir.join("events.jsonl");
    std::fs::write(
        &log,
        concat!(
            r#"{"event": "limit", "context": {"event": {"limit_code": "turns"}}}"#, "\n",
            r#"{"event": "error", "context": {"classification": {"category": "transient"}}}"#, "\n",
            "\n",
            r#"{"event": "context_window_pressure", "context": {"event": {"pressure_ratio": 0.5}}}"#, "\n",
            "not json\n",
        ),
    )
    .unwrap();
    let out = hookc(&["eval", SEED[0], "--events", log.to_str().unwrap()]);
    assert_eq!(
        out.status.code(),
        Some(2),
        "a bad line makes the exit code 2"
    );
    let lines: Vec<serde_json::Value> = text(&out.stdout)
        .lines()
        .map(|l| serde_json::from_str(l).unwrap())
        .collect();
    assert_eq!(lines.len(), 4);
    assert_eq!(lines[0]["hook"], "default_limit_escalation");
    assert_eq!(lines[0]["action"]["timeout_seconds"], 3600);
    assert_eq!(lines[1]["hook"], "default_transient_retry");
    assert_eq!(lines[2], serde_json::Value::Null);
    assert!(lines[3]["error"]
        .as_str()
        .unwrap()
        .contains("events.jsonl:5"));
    std::fs::remove_dir_all(&dir).unwrap();
}

#[test]
fn disabling_a_hook_lets_the_next_one_win() {
    let dir = temp_dir("disable");
    let ctx = dir.join("ctx.json");
    std::fs::write(&ctx, r#"{"classification": {"category": "rate_limited"}, "error": {"code": "E9"}, "event": {"thread_id": "t"}}"#).unwrap();
    let mut args = vec!["eval"];
    args.extend(ALL);
    args.extend([
        "--event",
        "error",
        "--context",
        ctx.to_str().unwrap(),
        "--disable",
        "rate_limit_backoff",
    ]);
    let out = hookc(&args);
    let line: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
    assert_eq!(
        line["hook"],
        "examples/thread-hooks/directive_hooks.yaml#directive[0]"
    );
    let mut args = vec!["eval"];
    args.extend(ALL);
    args.extend(["--event", "error", "--disable", "no_such_hook"]);
    let out = hookc(&args);
    assert_eq!(out.status.code(), Some(2));
    assert!(text(&out.stderr).ends_with("\nerror: no hook has the id `no_such_hook`\n"));
    // A misspelt id gets the closest one.
    let mut args = vec!["eval"];
    args.extend(ALL);
    args.extend(["--event", "error", "--disable", "rate_limit_backof"]);
    let out = hookc(&args);
    assert_eq!(out.status.code(), Some(2));
    assert!(text(&out.stderr).ends_with(
        "\nerror: no hook has the id `rate_limit_backof`; did you mean `rate_limit_backoff`?\n"
    ));
    // A disabled hook is a known id: switching it off again does nothing,
    // and a misspelling of it gets it as the suggestion.
    let mut args = vec!["eval"];
    args.extend(ALL);
    args.extend(["--event", "error", "--disable", "step_budget_guard"]);
    let out = hookc(&args);
    assert_eq!(out.status.code(), Some(0), "{}", text(&out.stderr));
    let mut args = vec!["eval"];
    args.extend(ALL);
    args.extend(["--event", "error", "--disable", "step_budget_gaurd"]);
    let out = hookc(&args);
    assert!(text(&out.stderr).ends_with("did you mean `step_budget_guard`?\n"));
    std::fs::remove_dir_all(&dir).unwrap();
}

#[test]
fn an_event_no_hook_names_gets_a_note_and_the_result_stays() {
    let dir = temp_dir("unheard");
    let hkb = dir.join("seed.hkb");
    let out = hookc(&["compile", SEED[0], "-o", hkb.to_str().unwrap()]);
    assert_eq!(out.status.code(), Some(0), "{}", text(&out.stderr));
    let ctx = "crates/hookc/benches/data/seed/contexts/error_none.json";
    // From the artifact, so that standard error holds the note alone.
    let eval = |event: &str| {
        let out = hookc(&[
            "eval",
            hkb.to_str().unwrap(),
            "--event",
            event,
            "--context",
            ctx,
        ]);
        assert_eq!(out.status.code(), Some(0), "{}", text(&out.stderr));
        (text(&out.stdout), text(&out.stderr))
    };
    assert_eq!(
        eval("erorr"),
        (
            "null\n".to_owned(),
            "note: no hook of the policy names the event `erorr`; did you mean `error`?\n"
                .to_owned()
        )
    );
    let (_, stderr) = eval("error");
    assert_eq!(stderr, "");
    let (stdout, stderr) = eval("nothing_like_it");
    assert_eq!(stdout, "null\n");
    assert_eq!(
        stderr,
        "note: no hook of the policy names the event `nothing_like_it`\n"
    );
    // `*` is a name at evaluation, not a wildcard: no hook names it, and
    // the seed policy has no `"*"` hooks.
    let (stdout, stderr) = eval("*");
    assert_eq!(stdout, "null\n");
    assert_eq!(
        stderr,
        "note: `*` is not a wildcard at evaluation: it is evaluated as an event named `*`, \
         which no hook names; the policy has no `\"*\"` hooks, so no hook ran\n"
    );
    // With a `"*"` hook, that hook ran (and decided).
    let out = hookc(&[
        "compile",
        "examples/policy.xml",
        "-o",
        hkb.to_str().unwrap(),
    ]);
    assert_eq!(out.status.code(), Some(0), "{}", text(&out.stderr));
    let (stdout, stderr) = eval("*");
    assert_eq!(
        stdout,
        "{\"hook\":\"orphan_event\",\"action\":{\"type\":\"abort\"}}\n"
    );
    assert_eq!(
        stderr,
        "note: `*` is not a wildcard at evaluation: it is evaluated as an event named `*`, \
         which no hook names; only the policy's `\"*\"` hook ran, as it runs for every event\n"
    );
    std::fs::remove_dir_all(&dir).unwrap();
}

#[test]
fn eval_of_sources_prints_their_warnings_on_stderr() {
    let ctx = "crates/hookc/benches/data/seed/contexts/error_none.json";
    let check = hookc(&["check", SEED[0]]);
    let eval = hookc(&["eval", SEED[0], "--event", "error", "--context", ctx]);
    assert_eq!(eval.status.code(), Some(0));
    // The same warnings and summary line as `check` prints, on stderr; the
    // result alone on stdout.
    assert!(
        text(&check.stderr).contains("warning[W0001]"),
        "{}",
        text(&check.stderr)
    );
    assert_eq!(text(&eval.stderr), text(&check.stderr));
    let line: serde_json::Value = serde_json::from_str(&text(&eval.stdout)).unwrap();
    assert!(line.is_null() || line["hook"].is_string());
}

#[test]
fn expr_prints_a_value_or_an_error() {
    let run = |expr: &str| text(&hookc(&["eval", "--expr", expr]).stdout);
    assert_eq!(run("1 + 2 * 3"), "7\n");
    assert_eq!(run("[1, 'a'] + [true]"), "[1,\"a\",true]\n");
    assert_eq!(run("1 / 0"), "{\"error\":\"division by zero\"}\n");
    assert_eq!(run("x.y"), "{\"error\":\"no such key\"}\n");
    let bad = hookc(&["eval", "--expr", "1 +"]);
    assert_eq!(bad.status.code(), Some(1));
    assert!(text(&bad.stderr).contains("error[E0003]"));
}

#[test]
fn disasm_lists_hooks_code_and_tables() {
    let out = hookc(&["disasm", SEED[0]]);
    assert_eq!(out.status.code(), Some(0), "{}", text(&out.stderr));
    let listing = text(&out.stdout);
    for needle in ["default_limit_escalation", "default_compaction", "Return"] {
        assert!(
            listing.contains(needle),
            "{needle} missing from:\n{listing}"
        );
    }
}

#[test]
fn a_damaged_artifact_is_a_clear_error() {
    let dir = temp_dir("damaged");
    let hkb = dir.join("p.hkb");
    assert_eq!(
        hookc(&["compile", SEED[0], "-o", hkb.to_str().unwrap()])
            .status
            .code(),
        Some(0)
    );
    let mut bytes = std::fs::read(&hkb).unwrap();
    let last = bytes.len() - 1;
    bytes[last] ^= 0x40;
    std::fs::write(&hkb, &bytes).unwrap();
    let out = hookc(&["eval", hkb.to_str().unwrap(), "--event", "limit"]);
    assert_eq!(out.status.code(), Some(2));
    assert!(
        text(&out.stderr).contains("checksum"),
        "{}",
        text(&out.stderr)
    );
    std::fs::remove_dir_all(&dir).unwrap();
}

#[test]
fn layers_on_the_command_line_order_hooks_and_refuse_misuse() {
    let dir = temp_dir("layers");
    let out_path = dir.join("layered.hkb");
    let out = hookc(&[
        "compile",
        "--layer",
        "base=fuzz/seed_sources/small.yaml",
        "--layer",
        "run=examples/thread-hooks/hooks.yaml",
        "-o",
        out_path.to_str().unwrap(),
    ]);
    assert_eq!(out.status.code(), Some(0), "{}", text(&out.stderr));
    let listing = text(&hookc(&["disasm", out_path.to_str().unwrap()]).stdout);
    let heads: Vec<&str> = listing.lines().filter(|l| l.starts_with("hook ")).collect();
    // Priority 5 first; at priority 0 the later layer (`run`) before `base`.
    assert!(
        heads[0].contains("\"rate\" (priority 5, layer base"),
        "{listing}"
    );
    assert!(heads[2].contains("(priority 0, layer run"), "{listing}");
    assert!(
        heads[5].contains("\"tool\" (priority 0, layer base"),
        "{listing}"
    );

    let bad = hookc(&["check", "--layer", "2x=a.yaml"]);
    assert_eq!(bad.status.code(), Some(2));
    assert!(text(&bad.stderr).contains("`2x` is not a layer name"));
    let mixed = hookc(&["check", SEED[0], "--layer", "x=b.yaml"]);
    assert_eq!(mixed.status.code(), Some(2));
    assert!(text(&mixed.stderr).contains("cannot be used with"));
    let none = hookc(&["check"]);
    assert_eq!(none.status.code(), Some(2));
    assert!(text(&none.stderr).contains("no policy given"));
}

#[test]
fn strip_leaves_the_debug_section_out_and_explain_says_what_it_read() {
    let dir = temp_dir("strip");
    let (full, stripped) = (dir.join("full.hkb"), dir.join("stripped.hkb"));
    for (path, extra) in [(&full, None), (&stripped, Some("--strip"))] {
        let mut args = vec!["compile", SEED[0], SEED[1], "-o", path.to_str().unwrap()];
        args.extend(extra);
        assert_eq!(hookc(&args).status.code(), Some(0));
    }
    let (a, b) = (
        std::fs::read(&full).unwrap(),
        std::fs::read(&stripped).unwrap(),
    );
    assert!(b.len() < a.len(), "{} vs {}", b.len(), a.len());
    let ctx = dir.join("ctx.json");
    std::fs::write(&ctx, r#"{"classification": {"category": "permanent"}}"#).unwrap();
    let explain = |artifact: &std::path::Path| {
        let out = hookc(&[
            "eval",
            artifact.to_str().unwrap(),
            "--event",
            "error",
            "--context",
            ctx.to_str().unwrap(),
            "--explain",
        ]);
        assert_eq!(out.status.code(), Some(0));
        text(&out.stdout)
    };
    let with = explain(&full);
    // The tree leaf is `p == v && has(p)`: its guard decides last.
    assert!(
        with.contains("examples/thread-hooks/directive_hooks.yaml:43:7  `classification.category == 'permanent'` -> true\n"),
        "{with}"
    );
    assert!(
        with.contains("examples/thread-hooks/directive_hooks.yaml:43:14  `has(classification.category)` -> true  <- decided"),
        "{with}"
    );
    let without = explain(&stripped);
    assert!(
        without.contains("read classification.category = \"permanent\""),
        "{without}"
    );
    assert!(!without.contains("<- decided"), "{without}");
}

/// `hookc eval` on a policy with collected actions prints the one result
/// shape of `docs/src/semantics.md#action-effects`: the decision, with the
/// collected matches before it.
#[test]
fn eval_prints_collected_matches_with_the_decision() {
    let policy = "examples/agent-loop/hooks.yaml";
    let run = |ctx: &str, extra: &[&str]| {
        let dir = temp_dir("collected");
        let file = dir.join(format!("{}.json", ctx.len()));
        std::fs::write(&file, ctx).unwrap();
        let mut args = vec!["eval", policy, "--event", "pre_tool_execution", "--context"];
        let file = file.display().to_string();
        args.push(&file);
        args.extend_from_slice(extra);
        let out = hookc(&args);
        assert_eq!(out.status.code(), Some(0), "{}", text(&out.stderr));
        text(&out.stdout)
    };
    let denied: serde_json::Value = serde_json::from_str(&run(
        r#"{"turn_number": 3, "tool_call": {"tool_use_id": "t", "name": "read_file", "args": {"path": "config/.env"}}}"#,
        &[],
    ))
    .unwrap();
    assert_eq!(denied["hook"], "safety-check");
    assert_eq!(denied["action"]["type"], "deny");
    assert_eq!(denied["collected"][0]["hook"], "read-only-approval");
    assert_eq!(denied["collected"].as_array().unwrap().len(), 1);
    let allowed: serde_json::Value = serde_json::from_str(&run(
        r#"{"turn_number": 3, "tool_call": {"tool_use_id": "t", "name": "read_file", "args": {"path": "src/main.rs"}}}"#,
        &[],
    ))
    .unwrap();
    assert_eq!(allowed["hook"], serde_json::Value::Null);
    assert_eq!(allowed["action"], serde_json::Value::Null);
    assert!(
        allowed["collected"].as_array().unwrap().len() >= 2,
        "{allowed}"
    );
    let explained = run(
        r#"{"turn_number": 3, "tool_call": {"tool_use_id": "t", "name": "read_file", "args": {"path": "config/.env"}}}"#,
        &["--explain"],
    );
    assert!(
        explained.contains("result: safety-check; collected: read-only-approval"),
        "{explained}"
    );
}

#[test]
fn overlays_layer_hooks_over_a_compiled_policy_for_one_run() {
    let dir = temp_dir("overlay");
    let base = dir.join("base.hkb");
    let mut args = vec!["compile"];
    args.extend(ALL);
    args.extend(["-o", base.to_str().unwrap()]);
    assert!(hookc(&args).status.success());
    // Sources: replaces `rate_limit_backoff`, no W0009 for it.
    let src = dir.join("run.yaml");
    std::fs::write(
        &src,
        "hooks:\n  - {id: rate_limit_backoff, replace: true, event: error, priority: 1000, action: {type: abort}}\n",
    )
    .unwrap();
    let ctx = dir.join("ctx.json");
    std::fs::write(&ctx, r#"{"classification": {"category": "rate_limited"}}"#).unwrap();
    let eval = |overlay: &str| {
        hookc(&[
            "eval",
            base.to_str().unwrap(),
            "--overlay",
            overlay,
            "--event",
            "error",
            "--context",
            ctx.to_str().unwrap(),
        ])
    };
    let out = eval(src.to_str().unwrap());
    assert!(out.status.success(), "{}", text(&out.stderr));
    assert!(
        !text(&out.stderr).contains("W0009"),
        "{}",
        text(&out.stderr)
    );
    let line: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
    assert_eq!(line["hook"], "rate_limit_backoff");
    assert_eq!(line["action"]["type"], "abort");
    // Named layer, and as an artifact.
    let over = dir.join("run.hkb");
    let layer = format!("project={}", src.display());
    let out = hookc(&["compile", "--layer", &layer, "-o", over.to_str().unwrap()]);
    assert!(out.status.success(), "{}", text(&out.stderr));
    let out = eval(over.to_str().unwrap());
    assert!(out.status.success(), "{}", text(&out.stderr));
    let out = eval(&format!("extra={}", src.display()));
    let listing = hookc(&[
        "disasm",
        base.to_str().unwrap(),
        "--overlay",
        &format!("extra={}", src.display()),
    ]);
    assert!(out.status.success() && listing.status.success());
    assert!(text(&listing.stdout).contains("layer extra, replace"));
    // Without `replace`, the shared id is an error naming the overlay.
    std::fs::write(
        &src,
        "hooks:\n  - {id: rate_limit_backoff, event: error, action: {type: abort}}\n",
    )
    .unwrap();
    let out = eval(src.to_str().unwrap());
    assert_eq!(out.status.code(), Some(2));
    assert!(
        text(&out.stderr)
            .contains("does not layer over the policy: hook id `rate_limit_backoff` is in both"),
        "{}",
        text(&out.stderr)
    );
    std::fs::remove_dir_all(&dir).unwrap();
}

/// An action whose filled parameter falls outside its declared type is an
/// error on standard error with exit code 2, never a result line.
#[test]
fn eval_of_an_action_outside_its_type_exits_2_without_a_result() {
    let dir = temp_dir("typed");
    let ctx = dir.join("nuke.json");
    std::fs::write(&ctx, r#"{"limit_code": "nuke", "limit_max": 5}"#).unwrap();
    let out = hookc(&[
        "eval",
        "crates/hookc-cli/tests/data/policy_tests/typed_results.yaml",
        "--event",
        "limit",
        "--context",
        ctx.to_str().unwrap(),
    ]);
    assert_eq!(out.status.code(), Some(2));
    assert!(out.stdout.is_empty(), "{}", text(&out.stdout));
    assert!(
        text(&out.stderr).contains(
            "error: hook `escalate_budget`: parameter `target` of action `escalate` is \"nuke\", not one of"
        ),
        "{}",
        text(&out.stderr)
    );
    // With `--explain`, the trace is printed all the same (which hook
    // matched, on which values), then the error, with the same exit code.
    let explained = hookc(&[
        "eval",
        "crates/hookc-cli/tests/data/policy_tests/typed_results.yaml",
        "--event",
        "limit",
        "--context",
        ctx.to_str().unwrap(),
        "--explain",
    ]);
    assert_eq!(explained.status.code(), Some(2));
    let trace = text(&explained.stdout);
    assert!(trace.starts_with("event `limit`: 1 hook(s)"), "{trace}");
    assert!(
        trace.contains("1. escalate_budget (priority 0, ")
            && trace.contains("limit_code = \"nuke\""),
        "{trace}"
    );
    assert_eq!(text(&explained.stderr), text(&out.stderr));
    // Replayed, the error line stands for the result line, the trace
    // follows it.
    let log = dir.join("log.jsonl");
    std::fs::write(
        &log,
        "{\"event\": \"limit\", \"context\": {\"limit_code\": \"nuke\"}}\n",
    )
    .unwrap();
    let replayed = hookc(&[
        "eval",
        "crates/hookc-cli/tests/data/policy_tests/typed_results.yaml",
        "--events",
        log.to_str().unwrap(),
        "--explain",
        "--format",
        "json",
    ]);
    assert_eq!(replayed.status.code(), Some(2));
    let lines: Vec<serde_json::Value> = text(&replayed.stdout)
        .lines()
        .map(|l| serde_json::from_str(l).unwrap())
        .collect();
    assert_eq!(lines.len(), 2, "{lines:?}");
    assert!(lines[0]["error"].as_str().unwrap().contains("is \"nuke\""));
    assert_eq!(lines[1]["winner"], "escalate_budget");
    std::fs::remove_dir_all(&dir).unwrap();
}

/// An overlay given as source over a policy given as sources is compiled
/// with the policy's declarations: its action types and context schema
/// (so no W0001 for its paths), and conflicting declarations are the
/// errors of two files of one compilation. A failing overlay prints its
/// warnings with its errors, as many as the summary line counts.
#[test]
fn overlay_sources_use_the_policys_declarations() {
    let dir = temp_dir("overlay-declarations");
    let base = dir.join("base.yaml");
    std::fs::write(
        &base,
        "action_types:\n  note:\n    effect: collected\n    parameters: {text: {type: string}}\n\
         event_context_schema:\n  type: object\n  properties:\n    tool: {type: string}\n\
         hooks:\n  - {id: base, event: error, action: {type: note, text: base}}\n",
    )
    .unwrap();
    let run = dir.join("run.yaml");
    std::fs::write(
        &run,
        "hooks:\n  - {id: run, event: error, when: \"tool == 'x'\", action: {type: note, text: \"${tool}\"}}\n",
    )
    .unwrap();
    let (base, run_path) = (base.to_str().unwrap(), run.to_str().unwrap());
    let ctx = dir.join("ctx.json");
    std::fs::write(&ctx, r#"{"tool": "x"}"#).unwrap();
    let ctx = ctx.to_str().unwrap();
    let eval = |args: &[&str]| {
        let mut all = vec!["eval", base, "--event", "error", "--context", ctx];
        all.extend(args);
        hookc(&all)
    };
    for flag in ["--overlay", "--overlay-below"] {
        let out = eval(&[flag, run_path]);
        assert_eq!(out.status.code(), Some(0), "{}", text(&out.stderr));
        assert_eq!(text(&out.stderr), "", "{flag}");
        let line: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
        let order: Vec<&str> = line["collected"]
            .as_array()
            .unwrap()
            .iter()
            .map(|m| m["hook"].as_str().unwrap())
            .collect();
        let expected = if flag == "--overlay" {
            ["run", "base"]
        } else {
            ["base", "run"]
        };
        assert_eq!(order, expected, "{flag}");
    }
    // A second context schema is the error of two files declaring one.
    std::fs::write(
        &run,
        "event_context_schema: {type: object}\nhooks:\n  - {id: run, event: error, action: {type: note, text: run}}\n",
    )
    .unwrap();
    let out = eval(&["--overlay", run_path]);
    assert_eq!(out.status.code(), Some(2));
    let err = text(&out.stderr);
    assert!(
        err.contains("`event_context_schema` is declared twice"),
        "{err}"
    );
    assert!(err.contains("1 file checked: 1 error"), "{err}");
    // Over an artifact, the overlay is compiled alone: `note` is unknown,
    // and its warnings (an undeclared path) are printed with the error.
    let hkb = dir.join("base.hkb");
    let out = hookc(&["compile", base, "-o", hkb.to_str().unwrap()]);
    assert!(out.status.success(), "{}", text(&out.stderr));
    std::fs::write(
        &run,
        "hooks:\n  - {id: run, event: error, when: \"tool.name == 'x'\", action: {type: note, text: run}}\n",
    )
    .unwrap();
    let out = hookc(&[
        "eval",
        hkb.to_str().unwrap(),
        "--overlay",
        run_path,
        "--event",
        "error",
    ]);
    assert_eq!(out.status.code(), Some(2));
    let err = text(&out.stderr);
    assert!(
        err.contains("error[E0400]: unknown action type `note`"),
        "{err}"
    );
    assert!(err.contains("warning[W0001]"), "{err}");
    assert!(err.contains("1 file checked: 1 error, 1 warning"), "{err}");
    std::fs::remove_dir_all(&dir).unwrap();
}

/// `--disable` of an id the policy does not know is an error, unless
/// `--ignore-unknown-disables`: then it is ignored with a note, and the
/// known ids are still switched off.
#[test]
fn unknown_disables_are_ignored_on_request() {
    let dir = temp_dir("lenient-disable");
    let policy = dir.join("p.yaml");
    std::fs::write(
        &policy,
        "hooks:\n  - {id: rate_limit_backoff, event: error, priority: 1, action: {type: abort}}\n  \
         - {id: fallback, event: error, action: {type: continue}}\n",
    )
    .unwrap();
    let policy = policy.to_str().unwrap().to_owned();
    let eval = |extra: &[&str]| {
        let mut args = vec!["eval", &policy, "--event", "error"];
        args.extend(extra);
        hookc(&args)
    };
    let strict = eval(&["--disable", "rate_limit_backof"]);
    assert_eq!(strict.status.code(), Some(2));
    assert!(
        text(&strict.stderr).contains(
            "error: no hook has the id `rate_limit_backof`; did you mean `rate_limit_backoff`?"
        ),
        "{}",
        text(&strict.stderr)
    );
    let plain = eval(&[]);
    let switched_off = eval(&["--disable", "rate_limit_backoff"]);
    let lenient = eval(&[
        "--disable",
        "rate_limit_backoff",
        "--disable",
        "rate_limit_backof",
        "--ignore-unknown-disables",
    ]);
    assert_eq!(lenient.status.code(), Some(0), "{}", text(&lenient.stderr));
    assert_eq!(lenient.stdout, switched_off.stdout);
    assert_ne!(lenient.stdout, plain.stdout);
    assert!(
        text(&lenient.stderr).contains(
            "note: no hook has the id `rate_limit_backof`; did you mean `rate_limit_backoff`? \
             (`--disable rate_limit_backof` ignored)"
        ),
        "{}",
        text(&lenient.stderr)
    );
    std::fs::remove_dir_all(&dir).unwrap();
}

/// `hookc eval --explain` names the row of a pattern table that matched,
/// and the decision's action reads it.
#[test]
fn explain_names_the_matching_row_of_a_pattern_table() {
    let dir = temp_dir("table");
    let policy = dir.join("guard.yaml");
    std::fs::write(
        &policy,
        "hooks:
  - id: guard
    event: tool
    table:
      on: command
      rows:
        - {pattern: 'rm -rf', message: deletes everything}
        - {pattern: 'mkfs', message: formats a disk}
    action: {type: fail, error_message: \"${row.message}\"}
",
    )
    .unwrap();
    let ctx = dir.join("ctx.json");
    std::fs::write(&ctx, r#"{"command": "sudo mkfs /dev/sda"}"#).unwrap();
    let run = |extra: &[&str]| {
        let mut args = vec![
            "eval",
            policy.to_str().unwrap(),
            "--event",
            "tool",
            "--context",
            ctx.to_str().unwrap(),
        ];
        args.extend(extra);
        let out = hookc(&args);
        assert_eq!(out.status.code(), Some(0), "{}", text(&out.stderr));
        text(&out.stdout)
    };
    let explained = run(&["--explain"]);
    assert!(
        explained.contains("pattern table: row 1 matched"),
        "{explained}"
    );
    let decided = run(&[]);
    assert!(decided.contains("formats a disk"), "{decided}");
}

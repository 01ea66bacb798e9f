//! `hookc test` end to end: every shipped test file (`examples/**/*.test.yaml`)
//! passes, against its sources and against a compiled artifact; and golden
//! runs of the cases in `tests/data/policy_tests/` (a deliberately broken
//! policy, test files with mistakes, a policy that does not compile), whose
//! exit code, standard output and standard error must equal
//! `<case>.expected`.
//!
//! The goldens hold explain traces, whose format belongs to the runtime.
//! When it changes, regenerate them with one command and review the diff:
//!
//! ```sh
//! UPDATE_EXPECT=1 cargo test -p hookc-cli --test suite policy_tests::
//! ```

use crate::walk;
use std::path::Path;
use std::process::Output;

fn root() -> &'static Path {
    Path::new(concat!(env!("CARGO_MANIFEST_DIR"), "/../.."))
}

fn hookc_in(dir: &Path, args: &[&str]) -> Output {
    crate::hookc_command()
        .args(args)
        .current_dir(dir)
        .output()
        .unwrap()
}

fn hookc(args: &[&str]) -> Output {
    hookc_in(root(), args)
}

fn text(bytes: &[u8]) -> String {
    String::from_utf8(bytes.to_vec()).unwrap()
}

/// Every `*.test.yaml` under `dir`, relative to the crate root, sorted.
fn test_files(dir: &Path, out: &mut Vec<String>) {
    for path in walk::files_under(dir, &|name| name.ends_with(".test.yaml")) {
        let rel = path.strip_prefix(root()).unwrap();
        out.push(rel.to_string_lossy().into_owned());
    }
}

/// Every `examples/**/*.test.yaml`, relative to the repository root, sorted.
fn example_test_files() -> Vec<String> {
    let mut files = Vec::new();
    test_files(&root().join("examples"), &mut files);
    files
}

/// The policy a test file names (its `policy:`, as written: relative to the
/// test file's folder), read from `hookc test --format json`.
fn policy_of(test: &str) -> Vec<String> {
    let out = hookc(&["test", "--format", "json", test]);
    let report: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
    report["files"][0]["policy"]
        .as_array()
        .unwrap_or_else(|| panic!("{test}: no policy in {report}"))
        .iter()
        .map(|p| p.as_str().unwrap().to_owned())
        .collect()
}

#[test]
fn every_example_test_file_passes() {
    let files = example_test_files();
    for expected in [
        "examples/policy.test.yaml",
        "examples/thread-hooks/seed.test.yaml",
        "examples/hook-registry/hooks.test.yaml",
        "examples/workflow-layers/other_step.test.yaml",
        "examples/workflow-layers/purchase_step.test.yaml",
        "examples/shell-settings/settings.test.yaml",
        "examples/agent-loop/hooks.test.yaml",
    ] {
        assert!(
            files.contains(&expected.to_owned()),
            "the example test files are found: {expected} not in {files:?}"
        );
    }
    let mut args = vec!["test"];
    args.extend(files.iter().map(String::as_str));
    let out = hookc(&args);
    let stdout = text(&out.stdout);
    assert_eq!(
        out.status.code(),
        Some(0),
        "{stdout}\n{}",
        text(&out.stderr)
    );
    assert!(out.stderr.is_empty(), "{}", text(&out.stderr));
    for file in &files {
        assert!(
            stdout.contains(&format!("from {file}\n")),
            "{file} ran:\n{stdout}"
        );
    }
    assert_eq!(
        stdout.matches("test result: ok.").count(),
        files.len(),
        "{stdout}"
    );
    assert!(!stdout.contains("FAILED"), "{stdout}");
}

#[test]
fn example_tests_cover_every_hook_and_no_match() {
    // The shipped tests are meant as a complete specification of the
    // examples: each enabled hook of a folder's policies matches in some
    // case of the folder's test files (as the deciding hook or a collected
    // one), and each test file has a case that expects no match at all.
    let mut by_dir: std::collections::BTreeMap<String, (Vec<String>, Vec<String>)> =
        std::collections::BTreeMap::new();
    for test in example_test_files() {
        let dir = Path::new(&test).parent().unwrap().display().to_string();
        let entry = by_dir.entry(dir).or_default();
        for p in policy_of(&test) {
            if !entry.1.contains(&p) {
                entry.1.push(p);
            }
        }
        entry.0.push(test);
    }
    for (dir, (tests, policy)) in &by_dir {
        let mut winners = std::collections::BTreeSet::new();
        for test in tests {
            let out = hookc(&["test", "--format", "json", test]);
            assert_eq!(out.status.code(), Some(0), "{}", text(&out.stdout));
            let report: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
            let cases = report["files"][0]["cases"].as_array().unwrap();
            for c in cases {
                let actual = &c["actual"];
                winners.extend(actual["hook"].as_str().map(str::to_owned));
                for m in actual["collected"].as_array().into_iter().flatten() {
                    winners.extend(m["hook"].as_str().map(str::to_owned));
                }
                // The decision model's matches count too: a transform
                // applied, an awaited hook pending, a hook that failed.
                for key in ["transforms", "errors"] {
                    for m in actual[key].as_array().into_iter().flatten() {
                        winners.extend(m["hook"].as_str().map(str::to_owned));
                    }
                }
                winners.extend(actual["pending"]["hook"].as_str().map(str::to_owned));
            }
            assert!(
                cases.iter().any(|c| c["actual"].is_null()),
                "{test}: no no-match case"
            );
        }
        // The policies' hook ids, their files named as the test files name them.
        let inputs: Vec<hookc::compile::Input> = policy
            .iter()
            .map(|p| {
                let src = std::fs::read_to_string(root().join(dir).join(p)).unwrap();
                hookc::compile::Input::new(p, src)
            })
            .collect();
        let compiled = hookc::compile::policy_from_sources(&inputs).unwrap();
        let ids: std::collections::BTreeSet<String> =
            compiled.hook_ids().map(str::to_owned).collect();
        let never: Vec<_> = ids.difference(&winners).collect();
        assert!(
            never.is_empty(),
            "{dir}: hooks that match in no case: {never:?}"
        );
    }
}

#[test]
fn example_tests_pass_against_compiled_artifacts() {
    let tmp = Path::new(env!("CARGO_TARGET_TMPDIR")).join("policy_tests_artifacts");
    std::fs::create_dir_all(&tmp).unwrap();
    // Compiled from the test file's folder, the files get the names the test
    // file gives them, so hooks without an `id` keep the ids it expects.
    for test in example_test_files() {
        let dir = Path::new(&test).parent().unwrap();
        let sources = policy_of(&test);
        let hkb = tmp.join(format!("{}.hkb", test.replace('/', "_")));
        let hkb_arg = hkb.to_str().unwrap();
        let mut args = vec!["compile"];
        args.extend(sources.iter().map(String::as_str));
        args.extend(["-o", hkb_arg]);
        let out = hookc_in(&root().join(dir), &args);
        assert_eq!(out.status.code(), Some(0), "{}", text(&out.stderr));
        let out = hookc(&["test", "--policy", hkb_arg, &test]);
        let stdout = text(&out.stdout);
        assert_eq!(out.status.code(), Some(0), "{stdout}{}", text(&out.stderr));
        assert!(stdout.contains("test result: ok."), "{stdout}");
    }
}

/// Findings `check --deny-warnings` may still report on the ported seed
/// examples, as (folder, code, hook): each is explained in the folder's
/// README.
// (Seed 002's W0007 findings went away when its timing points declared
// what they always pass, `events:` with `required`.)
const KNOWN_FINDINGS: &[(&str, &str, &str)] = &[];

/// The names in backquotes in `s`, in order.
fn quoted(s: &str) -> Vec<&str> {
    s.split('`').skip(1).step_by(2).collect()
}

/// The example folders ported from the seed systems 001-004.
const PORTED_EXAMPLES: [&str; 4] = [
    "hook-registry",
    "workflow-layers",
    "shell-settings",
    "agent-loop",
];

#[test]
fn ported_seed_examples_pass_check_deny_warnings() {
    // The policies ported from the other seed systems (the thread hooks'
    // files are seed 000's own, warnings included). Every finding fails the test
    // unless listed in KNOWN_FINDINGS; in particular no W0004 ("can never
    // match") behind collected hooks, which do not end evaluation.
    let mut checked = 0;
    for test in example_test_files() {
        let dir = Path::new(&test).parent().unwrap();
        let dir_name = dir.display().to_string();
        let folder = dir.file_name().unwrap().to_string_lossy().into_owned();
        if !PORTED_EXAMPLES.contains(&folder.as_str()) {
            continue;
        }
        let sources = policy_of(&test);
        let mut args = vec!["check", "--deny-warnings", "--format", "json"];
        args.extend(sources.iter().map(String::as_str));
        let out = hookc_in(&root().join(dir), &args);
        let stdout = text(&out.stdout);
        let mut unexpected = Vec::new();
        for line in stdout.lines().filter(|l| !l.trim().is_empty()) {
            let d: serde_json::Value = serde_json::from_str(line).unwrap();
            let code = d["code"].as_str().unwrap_or("");
            let message = d["message"].as_str().unwrap_or("");
            let names = quoted(message);
            let hook = names.first().copied().unwrap_or("");
            if KNOWN_FINDINGS.contains(&(dir_name.as_str(), code, hook)) {
                continue;
            }
            unexpected.push(line.to_owned());
        }
        assert!(
            unexpected.is_empty(),
            "{test}: `hookc check --deny-warnings {}` reports:\n{}",
            sources.join(" "),
            unexpected.join("\n")
        );
        if stdout.trim().is_empty() {
            assert_eq!(out.status.code(), Some(0), "{}", text(&out.stderr));
        }
        checked += 1;
    }
    assert!(
        checked >= 5,
        "the seed examples are found ({checked} test files)"
    );
}

#[test]
fn json_report_is_one_document_with_failures_and_traces() {
    let out = hookc(&[
        "test",
        "--format",
        "json",
        "crates/hookc-cli/tests/data/policy_tests/budget.test.yaml",
    ]);
    assert_eq!(out.status.code(), Some(1));
    let report: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
    assert_eq!(
        (report["passed"].as_u64(), report["failed"].as_u64()),
        (Some(2), Some(2))
    );
    let file = &report["files"][0];
    assert_eq!(file["policy"], serde_json::json!(["budget.yaml"]));
    let budget = &file["cases"][0];
    assert_eq!(budget["outcome"], "failed");
    assert_eq!(
        budget["location"],
        "crates/hookc-cli/tests/data/policy_tests/budget.test.yaml:4:5"
    );
    assert_eq!(
        budget["mismatches"],
        serde_json::json!([{"what": "hook", "expected": "budget", "actual": "any_limit"}])
    );
    assert_eq!(budget["trace"]["winner"], "any_limit");
    let retry = &file["cases"][1];
    assert_eq!(
        retry["mismatches"],
        serde_json::json!([{"what": "action_field", "field": "max_attempts", "expected": 5, "actual": 2}])
    );
    let ok = &file["cases"][2];
    assert_eq!(ok["outcome"], "ok");
    assert!(ok.get("trace").is_none() && ok.get("mismatches").is_none());
}

#[test]
fn test_file_errors_are_json_diagnostics_too() {
    let out = hookc(&[
        "test",
        "--format",
        "json",
        "crates/hookc-cli/tests/data/policy_tests/unknown_hook.test.yaml",
    ]);
    assert_eq!(out.status.code(), Some(2));
    let report: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
    let errors = report["files"][0]["errors"].as_array().unwrap();
    assert_eq!(errors.len(), 2);
    assert_eq!(errors[0]["code"], "E0102");
    assert_eq!(errors[0]["help"], "did you mean `budget`?");
    assert_eq!(
        (errors[0]["line"].as_u64(), errors[0]["column"].as_u64()),
        (Some(7), Some(20))
    );
}

#[test]
fn policy_flag_replaces_the_files_policy_and_a_missing_policy_is_an_error() {
    let tmp = Path::new(env!("CARGO_TARGET_TMPDIR")).join("policy_tests_no_policy");
    std::fs::create_dir_all(&tmp).unwrap();
    let file = tmp.join("nopolicy.test.yaml");
    std::fs::write(
        &file,
        "cases:\n  - name: budget\n    event: limit\n    context: {event: {thread_id: t1}, limit_code: spend_exceeded, limit_value: 10, limit_max: 10}\n    expect: {hook: budget_escalation}\n",
    )
    .unwrap();
    let file = file.to_str().unwrap();
    let out = hookc(&["test", file]);
    assert_eq!(out.status.code(), Some(2));
    let err = text(&out.stderr);
    assert!(
        err.contains("error[E0101]: the test file names no policy"),
        "{err}"
    );
    let out = hookc(&["test", "--policy", "examples/policy.xml", file]);
    assert_eq!(out.status.code(), Some(0), "{}", text(&out.stdout));
}

#[test]
fn a_file_that_does_not_run_makes_the_exit_code_2_but_others_still_run() {
    let out = hookc(&[
        "test",
        "crates/hookc-cli/tests/data/policy_tests/budget.test.yaml",
        "no/such.test.yaml",
    ]);
    assert_eq!(out.status.code(), Some(2));
    let stdout = text(&out.stdout);
    assert!(
        stdout.contains("test result: FAILED. 2 passed; 2 failed"),
        "{stdout}"
    );
    assert!(
        stdout.ends_with("2 test files (1 did not run): 2 passed; 2 failed\n"),
        "{stdout}"
    );
    assert!(text(&out.stderr).starts_with("error: cannot read `no/such.test.yaml`: "));
}

/// The output of one golden run, as stored in `<case>.expected`.
fn golden_output(test_file: &str) -> String {
    let out = hookc(&["test", test_file]);
    format!(
        "exit: {}\n--- stdout\n{}--- stderr\n{}",
        out.status
            .code()
            .map_or("signal".to_owned(), |c| c.to_string()),
        text(&out.stdout),
        text(&out.stderr)
    )
}

#[test]
fn golden_runs() {
    let update = std::env::var_os("UPDATE_EXPECT").is_some();
    let dir = root().join("crates/hookc-cli/tests/data/policy_tests");
    let mut files = Vec::new();
    test_files(&dir, &mut files);
    assert!(files.len() >= 4, "{files:?}");
    let mut failures = Vec::new();
    for file in files {
        let actual = golden_output(&file);
        let expected_path = root().join(file.replace(".test.yaml", ".expected"));
        if update {
            std::fs::write(&expected_path, &actual).unwrap();
            continue;
        }
        let expected = std::fs::read_to_string(&expected_path).unwrap_or_default();
        if actual != expected {
            failures.push(format!(
                "--- {file}: expected ({})\n{expected}\n--- actual\n{actual}",
                expected_path.display()
            ));
        }
    }
    assert!(
        failures.is_empty(),
        "{} golden mismatches (regenerate with `UPDATE_EXPECT=1 cargo test -p hookc-cli --test suite policy_tests::` \
         and review the diff):\n{}",
        failures.len(),
        failures.join("\n")
    );
}

#[test]
fn seed002_levels_as_named_layers_run_in_the_test_files_order() {
    // Seed 002 runs agent-level hooks, then workflow, then step. Its test
    // files give the levels as files in that order; as named layers, in the
    // same order (examples/workflow-layers/README.md).
    let dir = root().join("examples/workflow-layers");
    let ctx = Path::new(env!("CARGO_TARGET_TMPDIR")).join("seed002_ctx.json");
    std::fs::write(&ctx, r#"{"current_goal": "build a stall"}"#).unwrap();
    let ctx = ctx.to_str().unwrap();
    // Every invocation, in order: `--all` lists every match (each
    // invocation suspends the decision, see purchase_step.test.yaml).
    let collected = |args: &[&str]| -> Vec<String> {
        let mut all = vec!["eval", "--all", "--event", "pre_decision", "--context", ctx];
        all.extend(args);
        let out = hookc_in(&dir, &all);
        assert_eq!(out.status.code(), Some(0), "{}", text(&out.stderr));
        let v: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
        v.as_array()
            .unwrap()
            .iter()
            .map(|m| m["hook"].as_str().unwrap().to_owned())
            .collect()
    };
    let files = collected(&[
        "schema.yaml",
        "agent.yaml",
        "builder.workflow.yaml",
        "purchase.step.yaml",
    ]);
    assert_eq!(
        files,
        [
            "subscribed_my_handbook",
            "subscribed_team_sop",
            "genesis_search",
            "my_prompt_library"
        ]
    );
    // As named layers in the seed's order: `layer_order: highest_first`
    // (schema.yaml) makes the first named run first.
    let seed_order = [
        "--layer",
        "agent=schema.yaml",
        "--layer",
        "agent=agent.yaml",
        "--layer",
        "workflow=builder.workflow.yaml",
        "--layer",
        "step=purchase.step.yaml",
    ];
    assert_eq!(collected(&seed_order), files);
    // A command line that says otherwise disagrees with the file: E0110.
    let mut args = vec!["eval", "--event", "pre_decision", "--context", ctx];
    args.extend(seed_order);
    args.extend(["--layer-order", "lowest-first"]);
    let out = hookc_in(&dir, &args);
    assert_eq!(out.status.code(), Some(2), "{}", text(&out.stdout));
    assert!(text(&out.stderr).contains("E0110"), "{}", text(&out.stderr));
}

#[test]
fn seed004_run_entries_are_appended_below_the_realm_policy() {
    // `HookRunOverrides.entries`: hooks added for one run, after the
    // configured ones (examples/agent-loop/run_entries.yaml), compiled with
    // the realm's declarations.
    let tmp = Path::new(env!("CARGO_TARGET_TMPDIR"));
    let fetch = tmp.join("seed004_fetch.json");
    std::fs::write(
        &fetch,
        r#"{"turn_number": 2, "tool_call": {"tool_use_id": "t", "name": "web_fetch", "args": {"url": "https://example.com"}}}"#,
    )
    .unwrap();
    let result = tmp.join("seed004_result.json");
    std::fs::write(
        &result,
        r#"{"tool_result": {"tool_use_id": "t", "name": "read_file", "content": "ok"}}"#,
    )
    .unwrap();
    let (fetch, result) = (fetch.to_str().unwrap(), result.to_str().unwrap());
    let dir = root().join("examples/agent-loop");
    let eval = |event: &str, ctx: &str, extra: &[&str]| -> serde_json::Value {
        let mut args = vec!["eval", "hooks.yaml", "--event", event, "--context", ctx];
        args.extend(extra);
        let out = hookc_in(&dir, &args);
        assert_eq!(out.status.code(), Some(0), "{}", text(&out.stderr));
        assert!(out.stderr.is_empty(), "{}", text(&out.stderr));
        serde_json::from_slice(&out.stdout).unwrap()
    };
    let below = ["--overlay-below", "run=run_entries.yaml"];
    // The realm policy alone lets the fetch through (observers only).
    let realm = eval("pre_tool_execution", fetch, &[]);
    assert!(realm["hook"].is_null(), "{realm}");
    // With the run's entry, it is denied; the observers after it do not run.
    let run = eval("pre_tool_execution", fetch, &below);
    assert_eq!(run["hook"], "run-no-network", "{run}");
    assert_eq!(
        run["action"]["message"],
        "network tools are off for this run (web_fetch)"
    );
    assert!(run.get("collected").is_none(), "{run}");
    // A run override can switch the run's own entry off again.
    let mut off = below.to_vec();
    off.extend(["--disable", "run-no-network"]);
    assert_eq!(eval("pre_tool_execution", fetch, &off), realm);
    // Appended: at the default priority (100), the run's observer comes
    // after the realm's; placed above, it would come first.
    let collected = |v: serde_json::Value| -> Vec<String> {
        v["collected"]
            .as_array()
            .unwrap()
            .iter()
            .map(|m| m["hook"].as_str().unwrap().to_owned())
            .collect()
    };
    assert_eq!(
        collected(eval("post_tool_execution", result, &below)),
        ["noisy-observer", "audit-log", "run-transcript"]
    );
    assert_eq!(
        collected(eval(
            "post_tool_execution",
            result,
            &["--overlay", "run=run_entries.yaml"]
        )),
        ["run-transcript", "noisy-observer", "audit-log"]
    );
    // Over the compiled artifact (no declarations), the run entries are
    // compiled alone: `deny` is not an action type there.
    let artifact = tmp.join("seed004.hkb");
    let artifact = artifact.to_str().unwrap();
    let out = hookc_in(&dir, &["compile", "hooks.yaml", "-o", artifact]);
    assert_eq!(out.status.code(), Some(0), "{}", text(&out.stderr));
    let out = hookc_in(
        &dir,
        &[
            "eval",
            artifact,
            "--overlay-below",
            "run=run_entries.yaml",
            "--event",
            "pre_tool_execution",
        ],
    );
    assert_eq!(out.status.code(), Some(2));
    assert!(
        text(&out.stderr).contains("unknown action type `deny`"),
        "{}",
        text(&out.stderr)
    );
}

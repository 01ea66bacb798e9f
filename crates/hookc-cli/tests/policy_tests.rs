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
//! UPDATE_EXPECT=1 cargo test --test policy_tests
//! ```

#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]

#[path = "../../hookc/tests/common/walk.rs"]
mod walk;
use std::path::Path;
use std::process::{Command, Output};

fn root() -> &'static Path {
    Path::new(concat!(env!("CARGO_MANIFEST_DIR"), "/../.."))
}

fn hookc_in(dir: &Path, args: &[&str]) -> Output {
    Command::new(env!("CARGO_BIN_EXE_hookc"))
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

#[test]
fn every_example_test_file_passes() {
    let mut files = Vec::new();
    test_files(&root().join("examples"), &mut files);
    assert!(
        files.contains(&"examples/policy.test.yaml".to_owned())
            && files.contains(&"examples/seed000/seed.test.yaml".to_owned()),
        "the example test files are found: {files:?}"
    );
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
    // examples: each enabled hook wins in some case, and some case of each
    // file expects no match.
    for (test, policy) in [
        ("examples/policy.test.yaml", vec!["examples/policy.xml"]),
        (
            "examples/seed000/seed.test.yaml",
            vec![
                "examples/seed000/hooks.yaml",
                "examples/seed000/directive_hooks.yaml",
                "examples/seed000/directive.xml",
            ],
        ),
        (
            "examples/embedded/policies/embedded.test.yaml",
            vec![
                "examples/embedded/policies/fallback.xml",
                "examples/embedded/policies/hooks.yaml",
            ],
        ),
    ] {
        let out = hookc(&["test", "--format", "json", test]);
        assert_eq!(out.status.code(), Some(0), "{}", text(&out.stdout));
        let report: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
        let cases = report["files"][0]["cases"].as_array().unwrap();
        let winners: std::collections::BTreeSet<&str> = cases
            .iter()
            .filter_map(|c| c["actual"]["hook"].as_str())
            .collect();
        assert!(
            cases.iter().any(|c| c["actual"].is_null()),
            "{test}: no no-match case"
        );
        // The policy's hook ids, named as the test file names its files.
        let dir = Path::new(test).parent().unwrap();
        let names: Vec<String> = policy
            .iter()
            .map(|p| {
                Path::new(p)
                    .strip_prefix(dir)
                    .unwrap()
                    .display()
                    .to_string()
            })
            .collect();
        let inputs: Vec<hookc::compile::Input> = policy
            .iter()
            .zip(&names)
            .map(|(p, n)| {
                hookc::compile::Input::new(n, std::fs::read_to_string(root().join(p)).unwrap())
            })
            .collect();
        let compiled = hookc::compile::policy_from_sources(&inputs).unwrap();
        let ids: std::collections::BTreeSet<&str> = compiled.hook_ids().collect();
        let never: Vec<_> = ids.difference(&winners).collect();
        assert!(
            never.is_empty(),
            "{test}: hooks that win no case: {never:?}"
        );
    }
}

#[test]
fn example_tests_pass_against_compiled_artifacts() {
    let tmp = Path::new(env!("CARGO_TARGET_TMPDIR")).join("policy_tests_artifacts");
    std::fs::create_dir_all(&tmp).unwrap();
    // Compiled from the test file's folder, the files get the names the test
    // file gives them, so hooks without an `id` keep the ids it expects.
    for (dir, sources, test) in [
        ("examples", vec!["policy.xml"], "examples/policy.test.yaml"),
        (
            "examples/seed000",
            vec!["hooks.yaml", "directive_hooks.yaml", "directive.xml"],
            "examples/seed000/seed.test.yaml",
        ),
    ] {
        let hkb = tmp.join(format!("{}.hkb", dir.replace('/', "_")));
        let hkb_arg = hkb.to_str().unwrap();
        let mut args = vec!["compile"];
        args.extend(&sources);
        args.extend(["-o", hkb_arg]);
        let out = hookc_in(&root().join(dir), &args);
        assert_eq!(out.status.code(), Some(0), "{}", text(&out.stderr));
        let out = hookc(&["test", "--policy", hkb_arg, test]);
        let stdout = text(&out.stdout);
        assert_eq!(out.status.code(), Some(0), "{stdout}{}", text(&out.stderr));
        assert!(stdout.contains("test result: ok."), "{stdout}");
    }
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
        "{} golden mismatches (regenerate with `UPDATE_EXPECT=1 cargo test --test policy_tests` \
         and review the diff):\n{}",
        failures.len(),
        failures.join("\n")
    );
}

//! The `hookc` binary: exit codes, output channels and formats.

#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]

use std::path::Path;
use std::process::{Command, Output};

fn hookc(args: &[&str]) -> Output {
    Command::new(env!("CARGO_BIN_EXE_hookc"))
        .args(args)
        .current_dir(env!("CARGO_MANIFEST_DIR"))
        .output()
        .unwrap()
}

fn text(bytes: &[u8]) -> String {
    String::from_utf8(bytes.to_vec()).unwrap()
}

const SEED: [&str; 3] = [
    "examples/seed000/hooks.yaml",
    "examples/seed000/directive_hooks.yaml",
    "examples/seed000/directive.xml",
];

#[test]
fn check_of_the_examples_exits_0_with_warnings_on_stderr() {
    let out = hookc(&["check", SEED[0], SEED[1], SEED[2], "examples/policy.xml"]);
    let err = text(&out.stderr);
    assert_eq!(out.status.code(), Some(0), "{err}");
    assert!(err.contains("warning[W0001]"), "{err}");
    assert!(err.trim_end().ends_with("warnings"), "{err}");
    assert!(out.stdout.is_empty());
}

#[test]
fn deny_warnings_turns_warnings_into_failure() {
    let out = hookc(&["check", "--deny-warnings", SEED[0]]);
    assert_eq!(out.status.code(), Some(1));
}

#[test]
fn errors_exit_1() {
    let out = hookc(&["check", "tests/diagnostics/e0106_unknown_operator.yaml"]);
    assert_eq!(out.status.code(), Some(1));
    assert!(text(&out.stderr).contains("error[E0106]: unknown operator `startswith`"));
}

#[test]
fn json_format_prints_one_object_per_diagnostic_on_stdout() {
    let out = hookc(&[
        "check",
        "--format",
        "json",
        "tests/diagnostics/e0106_unknown_operator.yaml",
        SEED[0],
    ]);
    assert_eq!(out.status.code(), Some(1));
    let lines: Vec<serde_json::Value> = text(&out.stdout)
        .lines()
        .map(|l| serde_json::from_str(l).unwrap())
        .collect();
    // One error, then seed 000's five `event.*` paths outside its own schema.
    assert_eq!(lines.len(), 6);
    let e = &lines[0];
    assert_eq!(e["code"], "E0106");
    assert_eq!(e["severity"], "error");
    assert_eq!(e["file"], "tests/diagnostics/e0106_unknown_operator.yaml");
    assert_eq!(
        (e["line"].as_u64(), e["column"].as_u64()),
        (Some(5), Some(11))
    );
    assert_eq!(e["node_path"], "hooks[0].condition.op");
    assert_eq!(e["help"], "did you mean `starts_with`?");
    assert!(lines[1..]
        .iter()
        .all(|w| w["code"] == "W0001" && w["severity"] == "warning"));
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
    // Seed 000: the XML `when` is "compiled to" a condition tree.
    let hooks = doc["hooks"].as_sequence().unwrap();
    let xml_hook = hooks
        .iter()
        .find(|h| h["id"] == "examples/seed000/directive.xml#directive[0]")
        .unwrap();
    assert_eq!(xml_hook["condition"]["op"], "eq");
    assert_eq!(xml_hook["condition"]["path"], "classification.category");
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
        "tests/diagnostics/e0404_parameter_enum.yaml",
        "--emit",
        "yaml",
    ]);
    assert_eq!(out.status.code(), Some(1));
    assert!(out.stdout.is_empty());
    std::fs::remove_dir_all(&dir).unwrap();
    assert!(!Path::new(&target).exists());
}

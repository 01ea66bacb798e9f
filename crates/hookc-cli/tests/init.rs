//! `hookc init --host claude-code` and `--host copilot`: the starter guard,
//! its tests and the host's settings (Claude Code's `.claude/settings.json`,
//! Copilot's `.github/hooks/hookc.json`), merged into an existing file without losing
//! anything; idempotent; `--print` writes nothing; a settings file of
//! another shape is refused, not replaced.

#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]

use serde_json::Value;
use std::path::{Path, PathBuf};
use std::process::{Command, Output};

fn hookc(args: &[&str]) -> Output {
    Command::new(env!("CARGO_BIN_EXE_hookc"))
        .args(args)
        .output()
        .unwrap()
}

fn project(name: &str) -> PathBuf {
    let dir = Path::new(env!("CARGO_TARGET_TMPDIR")).join(format!("init-{name}"));
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(dir.join(".claude")).unwrap();
    dir
}

/// `hookc init --host claude-code --dir DIR EXTRA...`.
fn init(dir: &Path, extra: &[&str]) -> Output {
    let mut args = vec![
        "init",
        "--host",
        "claude-code",
        "--dir",
        dir.to_str().unwrap(),
    ];
    args.extend(extra);
    hookc(&args)
}

fn text(bytes: &[u8]) -> String {
    String::from_utf8_lossy(bytes).into_owned()
}

#[test]
fn init_writes_a_tested_guard_and_merges_the_settings() {
    let dir = project("merge");
    let settings = dir.join(".claude/settings.json");
    std::fs::write(
        &settings,
        r#"{"permissions": {"allow": ["Bash(ls)"]}, "hooks": {"Stop": [{"hooks": [{"type": "command", "command": "notify.sh"}]}]}}"#,
    )
    .unwrap();
    let out = init(&dir, &[]);
    assert_eq!(out.status.code(), Some(0), "{}", text(&out.stderr));
    assert!(text(&out.stdout).contains("wrote"), "{}", text(&out.stdout));

    let v: Value = serde_json::from_slice(&std::fs::read(&settings).unwrap()).unwrap();
    assert_eq!(v["permissions"]["allow"][0], "Bash(ls)", "kept");
    let stop = v["hooks"]["Stop"].as_array().unwrap();
    assert_eq!(stop[0]["hooks"][0]["command"], "notify.sh", "kept, first");
    let ours = &v["hooks"]["PreToolUse"][0];
    assert_eq!(ours["matcher"], "*");
    let command = ours["hooks"][0]["command"].as_str().unwrap();
    assert!(
        command.starts_with("hookc hook --host claude-code"),
        "{command}"
    );
    assert_eq!(ours["hooks"][0]["onFailure"], "block");

    // The guard compiles warning-free and its tests pass.
    let guard = dir.join(".hookc/guard.yaml");
    let out = hookc(&["check", "--deny-warnings", guard.to_str().unwrap()]);
    assert_eq!(out.status.code(), Some(0), "{}", text(&out.stderr));
    let tests = dir.join(".hookc/guard.test.yaml");
    let out = hookc(&["test", tests.to_str().unwrap()]);
    assert_eq!(out.status.code(), Some(0), "{}", text(&out.stdout));

    // Again: nothing changes.
    let before = std::fs::read(&settings).unwrap();
    let out = init(&dir, &[]);
    assert_eq!(out.status.code(), Some(0));
    assert!(
        !text(&out.stdout).contains("wrote"),
        "{}",
        text(&out.stdout)
    );
    assert_eq!(std::fs::read(&settings).unwrap(), before);
}

#[test]
fn print_writes_nothing() {
    let dir = project("print");
    let out = init(&dir, &["--print"]);
    assert_eq!(out.status.code(), Some(0));
    let shown = text(&out.stdout);
    assert!(shown.contains("guard.yaml") && shown.contains("\"onFailure\": \"block\""));
    assert!(!dir.join(".hookc").exists());
    assert!(!dir.join(".claude/settings.json").exists());
}

#[test]
fn a_settings_file_of_another_shape_is_left_alone() {
    let dir = project("refuse");
    let settings = dir.join(".claude/settings.json");
    std::fs::write(&settings, "[\"not\", \"settings\"]").unwrap();
    let out = init(&dir, &[]);
    assert_eq!(out.status.code(), Some(2));
    assert!(
        text(&out.stderr).contains("is not a JSON object"),
        "{}",
        text(&out.stderr)
    );
    assert_eq!(
        std::fs::read_to_string(&settings).unwrap(),
        "[\"not\", \"settings\"]"
    );
    assert!(
        !dir.join(".hookc").exists(),
        "nothing written when the settings are refused"
    );
}

/// `hookc init --host copilot --dir DIR EXTRA...`.
fn init_copilot(dir: &Path, extra: &[&str]) -> Output {
    let mut args = vec!["init", "--host", "copilot", "--dir", dir.to_str().unwrap()];
    args.extend(extra);
    hookc(&args)
}

#[test]
fn init_copilot_writes_the_guard_and_merges_its_hook_file() {
    let dir = project("copilot");
    let hooks = dir.join(".github/hooks/hookc.json");
    std::fs::create_dir_all(hooks.parent().unwrap()).unwrap();
    std::fs::write(
        &hooks,
        r#"{"version": 1, "hooks": {"sessionEnd": [{"type": "command", "bash": "./bye.sh", "timeoutSec": 5}]}, "mine": true}"#,
    )
    .unwrap();
    let out = init_copilot(&dir, &[]);
    assert_eq!(out.status.code(), Some(0), "{}", text(&out.stderr));

    let v: Value = serde_json::from_slice(&std::fs::read(&hooks).unwrap()).unwrap();
    assert_eq!(v["mine"], true, "kept");
    assert_eq!(v["hooks"]["sessionEnd"][0]["bash"], "./bye.sh", "kept");
    let ours = &v["hooks"]["preToolUse"][0];
    assert_eq!(ours["type"], "command");
    assert_eq!(
        ours["bash"],
        "hookc hook --host copilot --event preToolUse .hookc/guard.yaml"
    );
    assert_eq!(ours["powershell"], ours["bash"]);
    assert_eq!(ours["cwd"], ".");
    assert_eq!(
        v["hooks"]["permissionRequest"][0]["bash"],
        "hookc hook --host copilot --event permissionRequest .hookc/guard.yaml"
    );

    // The guard compiles warning-free and its tests pass.
    let guard = dir.join(".hookc/guard.yaml");
    let out = hookc(&["check", "--deny-warnings", guard.to_str().unwrap()]);
    assert_eq!(out.status.code(), Some(0), "{}", text(&out.stderr));
    let tests = dir.join(".hookc/guard.test.yaml");
    let out = hookc(&["test", tests.to_str().unwrap()]);
    assert_eq!(out.status.code(), Some(0), "{}", text(&out.stdout));

    // Again: nothing changes.
    let before = std::fs::read(&hooks).unwrap();
    let out = init_copilot(&dir, &[]);
    assert_eq!(out.status.code(), Some(0));
    assert!(
        !text(&out.stdout).contains("wrote"),
        "{}",
        text(&out.stdout)
    );
    assert_eq!(std::fs::read(&hooks).unwrap(), before);
}

#[test]
fn init_copilot_print_writes_nothing_and_a_foreign_file_is_left_alone() {
    let dir = project("copilot-print");
    let out = init_copilot(&dir, &["--print"]);
    assert_eq!(out.status.code(), Some(0));
    let shown = text(&out.stdout);
    assert!(shown.contains(".github/hooks/hookc.json"), "{shown}");
    assert!(shown.contains("\"version\": 1") && shown.contains("--event preToolUse"));
    assert!(!dir.join(".hookc").exists());
    assert!(!dir.join(".github").exists());

    let hooks = dir.join(".github/hooks/hookc.json");
    std::fs::create_dir_all(hooks.parent().unwrap()).unwrap();
    std::fs::write(&hooks, r#"{"version": 2, "hooks": {}}"#).unwrap();
    let out = init_copilot(&dir, &[]);
    assert_eq!(out.status.code(), Some(2));
    assert!(
        text(&out.stderr).contains("`version: 2`"),
        "{}",
        text(&out.stderr)
    );
    assert_eq!(
        std::fs::read_to_string(&hooks).unwrap(),
        r#"{"version": 2, "hooks": {}}"#
    );
    assert!(!dir.join(".hookc").exists());
}

//! `hookc probe` where it cannot probe: the host missing, a host with no
//! CLI, a project not set up, a guard without tests or without a case to
//! play. Each is a clear error (exit 2) that says what to do, and nothing
//! in the project changes. What the real hosts do under the probe is the
//! end-to-end suite's (`scripts/hosts/probe.py`,
//! `docs/src/hosts/probe.md`).

use std::path::{Path, PathBuf};
use std::process::Output;

/// A fresh folder for `case`, with `bin/` (the PATH of the run) and
/// `proj/`.
fn scratch(case: &str) -> PathBuf {
    let dir = Path::new(env!("CARGO_TARGET_TMPDIR")).join(format!("probe-{case}"));
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(dir.join("bin")).unwrap();
    std::fs::create_dir_all(dir.join("proj")).unwrap();
    dir
}

/// A stand-in host program `name` in `dir/bin` that only prints a version.
fn fake_host(dir: &Path, name: &str) {
    let path = dir.join("bin").join(name);
    std::fs::write(&path, "#!/bin/sh\necho 9.9.9\n").unwrap();
    #[cfg(unix)]
    {
        use std::os::unix::fs::PermissionsExt;
        std::fs::set_permissions(&path, std::fs::Permissions::from_mode(0o755)).unwrap();
    }
}

fn probe(dir: &Path, host: &str) -> Output {
    crate::hookc_command()
        .args(["probe", "--host", host, "--dir"])
        .arg(dir.join("proj"))
        .env("PATH", dir.join("bin"))
        .env("HOME", dir)
        // As a user runs it: the artifact cache where it would go, so that
        // a probe that wrote one in the project would be seen.
        .env_remove("HOOKC_CACHE_DIR")
        .output()
        .unwrap()
}

fn init(dir: &Path, host: &str) {
    let out = crate::hookc_command()
        .args(["init", "--host", host, "--dir"])
        .arg(dir.join("proj"))
        .output()
        .unwrap();
    assert_eq!(
        out.status.code(),
        Some(0),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
}

/// The project's files and their contents.
fn tree(dir: &Path) -> Vec<(PathBuf, Vec<u8>)> {
    crate::walk::files_under(dir, &|_| true)
        .into_iter()
        .map(|path| {
            let bytes = std::fs::read(&path).unwrap();
            (path, bytes)
        })
        .collect()
}

fn fails_saying(out: &Output, needles: &[&str]) {
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(2), "{stderr}");
    assert!(
        out.stdout.is_empty(),
        "{}",
        String::from_utf8_lossy(&out.stdout)
    );
    for needle in needles {
        assert!(stderr.contains(needle), "no `{needle}` in: {stderr}");
    }
}

#[test]
fn a_host_not_installed_is_said_with_how_to_install_it() {
    let dir = scratch("missing");
    init(&dir, "claude-code");
    fails_saying(
        &probe(&dir, "claude-code"),
        &[
            "`claude` is not on PATH",
            "npm install -g @anthropic-ai/claude-code",
        ],
    );
    fails_saying(&probe(&dir, "gemini-cli"), &["`gemini` is not on PATH"]);
}

#[test]
fn a_host_without_a_cli_is_said() {
    let dir = scratch("cursor");
    fails_saying(
        &probe(&dir, "cursor"),
        &["Cursor has no command-line agent"],
    );
}

#[test]
fn a_project_not_set_up_is_sent_to_init() {
    let dir = scratch("not-set-up");
    fake_host(&dir, "codex");
    fails_saying(
        &probe(&dir, "codex"),
        &[".codex/hooks.json", "run `hookc init --host codex`"],
    );
    assert!(tree(&dir.join("proj")).is_empty());
}

#[test]
fn a_guard_without_tests_or_a_case_to_play_is_said_and_nothing_changes() {
    let dir = scratch("no-case");
    fake_host(&dir, "claude");
    init(&dir, "claude-code");
    let tests = dir.join("proj/.hookc/guard.test.yaml");

    // Only cases the probe cannot play: a denied command with an operator,
    // an allowed builtin.
    std::fs::write(
        &tests,
        "policy: [guard.yaml]\ncases:\n  - name: chained\n    event: PreToolUse\n    context: {session_id: s, cwd: /p, hook_event_name: PreToolUse, tool_name: Bash, tool_input: {command: \"cd /tmp && rm -rf x\"}}\n    expect: {hook: no_rm_rf}\n  - name: echo\n    event: PreToolUse\n    context: {session_id: s, cwd: /p, hook_event_name: PreToolUse, tool_name: Bash, tool_input: {command: \"echo hi\"}}\n    expect: {hook: null}\n",
    )
    .unwrap();
    let before = tree(&dir.join("proj"));
    fails_saying(
        &probe(&dir, "claude-code"),
        &[
            "denies a `Bash` call on PreToolUse",
            "one program with plain arguments",
        ],
    );
    assert_eq!(tree(&dir.join("proj")), before);

    std::fs::remove_file(&tests).unwrap();
    fails_saying(
        &probe(&dir, "claude-code"),
        &["guard.test.yaml` is not there"],
    );
}

/// A guard the settings name outside the project (an absolute path, or
/// one with `..`) is refused before anything is copied: the probe removes
/// the copy's guard in its failure case, and must never reach the user's.
#[test]
fn a_guard_outside_the_project_is_refused_and_left_alone() {
    let dir = scratch("outside");
    fake_host(&dir, "claude");
    init(&dir, "claude-code");
    let outside = dir.join("elsewhere.yaml");
    std::fs::copy(dir.join("proj/.hookc/guard.yaml"), &outside).unwrap();
    let settings = dir.join("proj/.claude/settings.json");
    let text = std::fs::read_to_string(&settings).unwrap();
    for named in [
        outside.display().to_string(),
        "../elsewhere.yaml".to_owned(),
    ] {
        // The settings are JSON: the quotes of the command are escaped.
        let changed = text.replace(r#"\"$CLAUDE_PROJECT_DIR\"/.hookc/guard.yaml"#, &named);
        assert!(changed != text, "the settings name no guard to move");
        std::fs::write(&settings, changed).unwrap();
        let before = std::fs::read(&outside).unwrap();
        fails_saying(&probe(&dir, "claude-code"), &["outside the project"]);
        assert_eq!(std::fs::read(&outside).unwrap(), before, "{named}");
    }
}

//! `hookc hook --find`, and the words of a policy that is not there: a
//! settings entry that finds the policy from any folder of the project,
//! and a failure that no host mistakes for a hook that could not start.

use serde_json::json;
use std::io::Write;
use std::path::{Path, PathBuf};
use std::process::{Output, Stdio};

/// A scratch project of this test: `proj/.hookc/guard.yaml` and a
/// folder `proj/app/src` below it.
fn project(name: &str) -> PathBuf {
    let root = std::env::temp_dir().join(format!("hookc-find-{}-{name}", std::process::id()));
    let _ = std::fs::remove_dir_all(&root);
    let proj = root.join("my proj");
    std::fs::create_dir_all(proj.join(".hookc")).unwrap();
    std::fs::create_dir_all(proj.join("app/src")).unwrap();
    std::fs::write(
        proj.join(".hookc/guard.yaml"),
        "host: claude-code\nhooks:\n  - id: no_rm\n    event: PreToolUse\n    when: \"tool_name == 'Bash' && tool_input.command.contains('rm ')\"\n    action: {type: deny, reason: no rm}\n",
    )
    .unwrap();
    proj
}

/// `hookc hook --host claude-code ARGS` on a PreToolUse payload whose `cwd` is `cwd`,
/// the process itself started in `/`.
fn hook_in(cwd: &Path, event: &str, args: &[&str]) -> Output {
    let payload = json!({
        "session_id": "s", "cwd": cwd, "hook_event_name": event,
        "tool_name": "Bash", "tool_input": {"command": "rm x"},
    });
    let mut child = crate::hookc_command()
        .args(["hook", "--host", "claude-code"])
        .args(args)
        .current_dir("/")
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    child
        .stdin
        .take()
        .unwrap()
        .write_all(payload.to_string().as_bytes())
        .unwrap();
    child.wait_with_output().unwrap()
}

#[test]
fn find_looks_in_the_payloads_folder_and_above() {
    let proj = project("above");
    for cwd in [proj.clone(), proj.join("app"), proj.join("app/src")] {
        let out = hook_in(&cwd, "PreToolUse", &["--find", ".hookc/guard.yaml"]);
        let stdout = String::from_utf8_lossy(&out.stdout);
        assert_eq!(
            out.status.code(),
            Some(0),
            "{}",
            String::from_utf8_lossy(&out.stderr)
        );
        assert!(
            stdout.contains("\"permissionDecision\":\"deny\""),
            "{cwd:?}: {stdout}"
        );
        // The reason names the hook and the project's own path, never the
        // user's folders.
        assert!(
            stdout.contains("[hook no_rm at .hookc/guard.yaml:"),
            "{stdout}"
        );
        assert!(!stdout.contains("my proj"), "{stdout}");
    }
    let _ = std::fs::remove_dir_all(proj.parent().unwrap());
}

#[test]
fn find_without_the_policy_blocks_and_says_where_it_looked() {
    let proj = project("none");
    std::fs::remove_file(proj.join(".hookc/guard.yaml")).unwrap();
    let out = hook_in(
        &proj.join("app"),
        "PreToolUse",
        &["--find", ".hookc/guard.yaml"],
    );
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(2), "{stderr}");
    assert!(
        stderr
            .contains("`.hookc/guard.yaml` is not in the payload's folder or any folder above it"),
        "{stderr}"
    );
    assert!(!stderr.contains("my proj"), "{stderr}");
    let _ = std::fs::remove_dir_all(proj.parent().unwrap());
}

/// Claude Code lets the agent stop when a Stop hook exits 2 with nothing
/// on standard output and `no such file` or `can't open` on standard
/// error (it takes that for a hook script that is missing): a missing
/// policy must block there like anywhere else.
#[test]
fn a_missing_policy_is_never_said_as_a_missing_hook() {
    let proj = project("stop");
    let missing = proj.join(".hookc/nothing.yaml");
    for (event, args) in [
        ("Stop", vec![missing.to_str().unwrap()]),
        ("PreToolUse", vec![missing.to_str().unwrap()]),
        ("Stop", vec!["--find", ".hookc/nothing.yaml"]),
    ] {
        let out = hook_in(&proj, event, &args);
        let stderr = String::from_utf8_lossy(&out.stderr).to_lowercase();
        assert_eq!(out.status.code(), Some(2), "{event}: {stderr}");
        assert!(
            !stderr.contains("no such file") && !stderr.contains("can't open"),
            "{event}: {stderr}"
        );
        assert!(stderr.contains("not"), "{event}: {stderr}");
        // The reason reaches the model: the project's path, not the user's.
        assert!(
            !stderr.contains("my proj") && stderr.contains(".hookc/nothing.yaml"),
            "{event}: {stderr}"
        );
    }
    let _ = std::fs::remove_dir_all(proj.parent().unwrap());
}

//! `hookc init --adopt` and `--unadopt` end to end
//! (`docs/src/hosts/adopt.md`): a Claude Code project whose settings have
//! hooks of their own; after adoption the host calls the one command the
//! settings now hold, which is run here exactly as written (`sh -c`, with
//! `$CLAUDE_PROJECT_DIR` and `hookc` on `PATH`), and it must decide as the
//! adopted hooks did: rewrites in their order, blocks, failures closed.

use serde_json::{json, Value};
use std::io::Write;
use std::path::{Path, PathBuf};
use std::process::{Output, Stdio};

fn scratch(name: &str) -> PathBuf {
    let dir = std::env::temp_dir().join(format!("hookc-adopt-{}-{name}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(dir.join(".claude")).unwrap();
    std::fs::create_dir_all(dir.join("hooks")).unwrap();
    dir
}

/// A hook script: `body` after a line reading the payload's command into
/// `$c` (hookc writes the payload as compact JSON, one line).
fn script(dir: &Path, name: &str, body: &str) {
    use std::os::unix::fs::PermissionsExt;
    let path = dir.join("hooks").join(name);
    let text =
        format!("#!/bin/sh\nc=$(sed -n 's/.*\"command\":\"\\([^\"]*\\)\".*/\\1/p')\n{body}\n");
    std::fs::write(&path, text).unwrap();
    std::fs::set_permissions(&path, std::fs::Permissions::from_mode(0o755)).unwrap();
}

/// A hook script that appends ` SUFFIX` to the command, as an
/// `updatedInput`, after sleeping `sleep` seconds (so that, run in
/// parallel as the host runs them, the other one would finish first).
fn appender(dir: &Path, name: &str, suffix: &str, sleep: &str, decision: &str) {
    script(
        dir,
        name,
        &format!(
            "sleep {sleep}\nprintf '{{\"hookSpecificOutput\":{{\"hookEventName\":\"PreToolUse\",{decision}\"updatedInput\":{{\"command\":\"%s {suffix}\"}}}}}}' \"$c\""
        ),
    );
}

fn settings_path(dir: &Path) -> PathBuf {
    dir.join(".claude/settings.json")
}

fn write_settings(dir: &Path, settings: &Value) -> String {
    let text = serde_json::to_string_pretty(settings).unwrap() + "\n";
    std::fs::write(settings_path(dir), &text).unwrap();
    text
}

fn ok(out: Output) -> String {
    assert!(out.status.success(), "{out:?}");
    String::from_utf8(out.stdout).unwrap()
}

/// The command the settings run on `event` (the HTTP hook has none):
/// there must be exactly one.
fn settings_command(dir: &Path, event: &str) -> String {
    let settings: Value =
        serde_json::from_slice(&std::fs::read(settings_path(dir)).unwrap()).unwrap();
    let commands: Vec<String> = settings["hooks"][event]
        .as_array()
        .unwrap()
        .iter()
        .flat_map(|e| e["hooks"].as_array().unwrap().iter())
        .filter_map(|h| h["command"].as_str())
        .map(str::to_owned)
        .collect();
    assert_eq!(commands.len(), 1, "{event}: {commands:?}");
    commands.into_iter().next().unwrap()
}

/// A folder with `hookc` in it, for the settings' commands to find.
fn bin_dir() -> PathBuf {
    let dir = Path::new(env!("CARGO_TARGET_TMPDIR")).join("adopt-bin");
    std::fs::create_dir_all(&dir).unwrap();
    let link = dir.join("hookc");
    if std::fs::symlink_metadata(&link).is_err() {
        let _ = std::os::unix::fs::symlink(env!("CARGO_BIN_EXE_hookc"), &link);
    }
    dir
}

/// Runs `command` as Claude Code would, on a Bash call of `bash`.
fn host_runs(dir: &Path, command: &str, bash: &str) -> Output {
    let payload = json!({"session_id": "s", "cwd": dir, "hook_event_name": "PreToolUse",
                         "tool_name": "Bash", "tool_input": {"command": bash}});
    run_settings_command(dir, command, &payload)
}

/// Runs a settings `command` through `sh -c` in `dir`, as a host runs it,
/// `payload` on its standard input, with `hookc` on `PATH` and
/// `hookc_command`'s environment (state and cache folders).
fn run_settings_command(dir: &Path, command: &str, payload: &Value) -> Output {
    let path = format!(
        "{}:{}",
        bin_dir().display(),
        std::env::var("PATH").unwrap_or_default()
    );
    let mut sh = std::process::Command::new("sh");
    for (key, value) in crate::hookc_command().get_envs() {
        if let Some(value) = value {
            sh.env(key, value);
        }
    }
    let mut running = sh
        .args(["-c", command])
        .env("PATH", &path)
        .env("CLAUDE_PROJECT_DIR", dir)
        .current_dir(dir)
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    running
        .stdin
        .take()
        .unwrap()
        .write_all(payload.to_string().as_bytes())
        .unwrap();
    running.wait_with_output().unwrap()
}

fn answer(out: &Output) -> Value {
    assert_eq!(out.status.code(), Some(0), "{out:?}");
    serde_json::from_slice::<Value>(&out.stdout).unwrap_or_else(|_| panic!("{out:?}"))
        ["hookSpecificOutput"]
        .clone()
}

/// The project every test starts from: two rewriting hooks in one group
/// (the slower first), a blocking one and a broken one in another, an
/// HTTP hook hookc does not adopt, and a member of the user's.
fn project(name: &str) -> (PathBuf, String) {
    let dir = scratch(name);
    appender(&dir, "a.sh", "--a", "0.3", "");
    appender(
        &dir,
        "b.sh",
        "--b",
        "0",
        "\"permissionDecision\":\"allow\",",
    );
    script(
        &dir,
        "no.sh",
        "case \"$c\" in *secret*) echo \"no secrets here\" >&2; exit 2;; esac",
    );
    script(
        &dir,
        "broken.sh",
        "case \"$c\" in *broken*) echo oops >&2; exit 1;; esac",
    );
    let text = write_settings(
        &dir,
        &json!({"model": "opus", "hooks": {"PreToolUse": [
            {"matcher": "Bash", "hooks": [
                {"type": "command", "command": "./hooks/a.sh"},
                {"type": "command", "command": "./hooks/b.sh", "timeout": 5}]},
            {"matcher": "Bash|Write", "hooks": [
                {"type": "command", "command": "./hooks/no.sh"},
                {"type": "command", "command": "./hooks/broken.sh"},
                {"type": "http", "url": "http://127.0.0.1:9/hook"}]}]}}),
    );
    (dir, text)
}

#[test]
fn two_adopted_rewrites_give_the_same_result_on_every_run() {
    let (dir, _) = project("rewrites");
    let said = ok(crate::hookc_in(
        &dir,
        &["init", "--host", "claude-code", "--adopt"],
    ));
    assert!(said.contains("adopted 4 hook(s)"), "{said}");
    assert!(said.contains("a `http` hook on PreToolUse"), "{said}");
    let command = settings_command(&dir, "PreToolUse");
    assert!(command.contains(".hookc/adopted.yaml"), "{command}");
    // The HTTP hook stays where it was, alone in its group.
    let settings: Value =
        serde_json::from_slice(&std::fs::read(settings_path(&dir)).unwrap()).unwrap();
    assert_eq!(settings["model"], "opus");
    let groups = settings["hooks"]["PreToolUse"].as_array().unwrap();
    assert!(
        groups.iter().any(|g| g["hooks"][0]["type"] == "http"),
        "{settings}"
    );
    for _ in 0..5 {
        let out = host_runs(&dir, &command, "ls");
        let said = answer(&out);
        assert_eq!(said["updatedInput"]["command"], "ls --a --b", "{out:?}");
        assert_eq!(said["permissionDecision"], "allow", "{out:?}");
    }
}

#[test]
fn an_adopted_block_or_failure_blocks_and_later_hooks_read_the_rewrites() {
    let (dir, _) = project("blocks");
    ok(crate::hookc_in(
        &dir,
        &["init", "--host", "claude-code", "--adopt"],
    ));
    let command = settings_command(&dir, "PreToolUse");
    // Exit 2: its reason. The block hook read the rewritten command.
    let said = answer(&host_runs(&dir, &command, "cat secret"));
    assert_eq!(said["permissionDecision"], "deny");
    let reason = said["permissionDecisionReason"].as_str().unwrap();
    assert!(reason.starts_with("no secrets here"), "{reason}");
    // Exit 1 (a failed hook, which Claude Code lets through): a block.
    let said = answer(&host_runs(&dir, &command, "broken"));
    assert_eq!(said["permissionDecision"], "deny");
    let reason = said["permissionDecisionReason"].as_str().unwrap();
    assert!(
        reason.contains("the adopted hook `./hooks/broken.sh` failed: exited 1: oops"),
        "{reason}"
    );
    // The guard still decides after them, on what they rewrote.
    let said = answer(&host_runs(&dir, &command, "rm -rf /"));
    assert_eq!(said["permissionDecision"], "deny", "{said}");
}

#[test]
fn print_shows_the_adopted_policy_and_writes_nothing() {
    let (dir, before) = project("print");
    let said = ok(crate::hookc_in(
        &dir,
        &["init", "--host", "claude-code", "--adopt", "--print"],
    ));
    assert!(
        said.contains("adopted.yaml\n# The hooks `hookc init --adopt` moved here"),
        "{said}"
    );
    assert!(said.contains("argv: [\"./hooks/a.sh\"]"), "{said}");
    assert_eq!(
        std::fs::read_to_string(settings_path(&dir)).unwrap(),
        before
    );
    assert!(!dir.join(".hookc").exists());
}

#[test]
fn unadopt_puts_the_settings_back_byte_for_byte() {
    let (dir, before) = project("unadopt");
    ok(crate::hookc_in(
        &dir,
        &["init", "--host", "claude-code", "--adopt"],
    ));
    // Adopting again is refused until undone.
    let again = crate::hookc_in(&dir, &["init", "--host", "claude-code", "--adopt"]);
    assert_eq!(again.status.code(), Some(2), "{again:?}");
    assert!(
        String::from_utf8_lossy(&again.stderr).contains("--unadopt"),
        "{again:?}"
    );
    // A re-pin since is no change of the user's.
    ok(crate::hookc_in(
        &dir,
        &["init", "--host", "claude-code", "--pin"],
    ));
    let pinned = settings_command(&dir, "PreToolUse");
    assert_eq!(pinned.matches("--pin sha256:").count(), 2, "{pinned}");
    let said = ok(crate::hookc_in(
        &dir,
        &["init", "--host", "claude-code", "--unadopt"],
    ));
    assert!(said.contains("restored"), "{said}");
    assert_eq!(
        std::fs::read_to_string(settings_path(&dir)).unwrap(),
        before
    );
    assert!(!dir.join(".hookc/adopted.yaml").exists());
    assert!(!dir.join(".hookc/adopted.record.json").exists());
    // Nothing left to undo.
    let out = crate::hookc_in(&dir, &["init", "--host", "claude-code", "--unadopt"]);
    assert!(
        String::from_utf8_lossy(&out.stderr).contains("nothing was adopted"),
        "{out:?}"
    );
}

#[test]
fn unadopt_refuses_settings_changed_since() {
    let (dir, _) = project("changed");
    ok(crate::hookc_in(
        &dir,
        &["init", "--host", "claude-code", "--adopt"],
    ));
    let mut settings: Value =
        serde_json::from_slice(&std::fs::read(settings_path(&dir)).unwrap()).unwrap();
    settings["theme"] = json!("dark");
    let changed = write_settings(&dir, &settings);
    let out = crate::hookc_in(&dir, &["init", "--host", "claude-code", "--unadopt"]);
    assert_eq!(out.status.code(), Some(2), "{out:?}");
    assert!(String::from_utf8_lossy(&out.stderr).contains("changed since the hooks were adopted"));
    assert_eq!(
        std::fs::read_to_string(settings_path(&dir)).unwrap(),
        changed
    );
    assert!(dir.join(".hookc/adopted.yaml").exists());
}

#[test]
fn a_pinned_adoption_blocks_when_the_adopted_hooks_change() {
    let (dir, _) = project("pinned");
    ok(crate::hookc_in(
        &dir,
        &["init", "--host", "claude-code", "--adopt", "--pin"],
    ));
    let command = settings_command(&dir, "PreToolUse");
    assert_eq!(command.matches("--pin sha256:").count(), 2, "{command}");
    assert_eq!(
        answer(&host_runs(&dir, &command, "ls"))["updatedInput"]["command"],
        "ls --a --b"
    );
    let adopted = dir.join(".hookc/adopted.yaml");
    let text = std::fs::read_to_string(&adopted).unwrap();
    std::fs::write(&adopted, text.replace("./hooks/no.sh", "true")).unwrap();
    let out = host_runs(&dir, &command, "cat secret");
    assert_eq!(out.status.code(), Some(2), "{out:?}");
    assert!(
        String::from_utf8_lossy(&out.stderr).contains("changed since it was pinned"),
        "{out:?}"
    );
}

#[test]
fn copilot_hooks_in_other_files_of_its_folder_are_adopted_and_put_back() {
    let dir = scratch("copilot");
    std::fs::create_dir_all(dir.join(".github/hooks")).unwrap();
    // Blocks a secret, and says whether it read `toolArgs` as Copilot
    // sends it: JSON text, not an object.
    {
        use std::os::unix::fs::PermissionsExt;
        let path = dir.join("hooks/no.sh");
        std::fs::write(
            &path,
            "#!/bin/sh\np=$(cat)\n\
             case \"$p\" in *'\"toolArgs\":\"{'*) ;; *) echo 'toolArgs not as text' >&2; exit 2;; esac\n\
             case \"$p\" in *secret*) echo 'no secrets here' >&2; exit 2;; esac\n",
        )
        .unwrap();
        std::fs::set_permissions(&path, std::fs::Permissions::from_mode(0o755)).unwrap();
    }
    let mine = dir.join(".github/hooks/mine.json");
    let before = serde_json::to_string_pretty(&json!({"version": 1, "hooks": {"preToolUse": [
        {"type": "command", "bash": "./hooks/no.sh", "timeoutSec": 5},
        {"type": "command", "bash": "./hooks/no.sh", "env": {"A": "1"}}]}}))
    .unwrap();
    std::fs::write(&mine, &before).unwrap();
    let said = ok(crate::hookc_in(
        &dir,
        &["init", "--host", "copilot", "--adopt"],
    ));
    assert!(said.contains("adopted 1 hook(s) from"), "{said}");
    assert!(said.contains("sets environment variables"), "{said}");
    // The hook with `env` stays in its file; the other moved.
    let left: Value = serde_json::from_slice(&std::fs::read(&mine).unwrap()).unwrap();
    assert_eq!(left["hooks"]["preToolUse"].as_array().unwrap().len(), 1);
    assert!(left["hooks"]["preToolUse"][0]["env"].is_object());
    let settings: Value =
        serde_json::from_slice(&std::fs::read(dir.join(".github/hooks/hookc.json")).unwrap())
            .unwrap();
    let command = settings["hooks"]["preToolUse"][0]["bash"]
        .as_str()
        .unwrap()
        .to_owned();
    assert!(command.contains(".hookc/adopted.yaml"), "{command}");
    let call = |tool_args: &str| -> Output {
        let payload =
            json!({"timestamp": 1, "cwd": dir, "toolName": "bash", "toolArgs": tool_args});
        run_settings_command(&dir, &command, &payload)
    };
    let denied = call(r#"{"command": "cat secret"}"#);
    let answer: Value =
        serde_json::from_slice(&denied.stdout).unwrap_or_else(|_| panic!("{denied:?}"));
    assert_eq!(answer["permissionDecision"], "deny", "{denied:?}");
    let reason = answer["permissionDecisionReason"].as_str().unwrap();
    assert!(reason.starts_with("no secrets here"), "{reason}");
    let allowed = call(r#"{"command": "ls"}"#);
    assert_eq!(allowed.status.code(), Some(0), "{allowed:?}");
    assert!(
        !String::from_utf8_lossy(&allowed.stdout).contains("deny"),
        "{allowed:?}"
    );
    // Undone: the file as it was, byte for byte.
    let said = ok(crate::hookc_in(
        &dir,
        &["init", "--host", "copilot", "--unadopt"],
    ));
    assert!(said.contains("restored"), "{said}");
    assert_eq!(std::fs::read_to_string(&mine).unwrap(), before);
}

//! Decision logs through `hookc hook --log` (`docs/src/hosts/teams.md`):
//! each line's decision id, host, policy digest (the one `hookc disasm`
//! prints), masked members (a keyed hash: equal values log equal under one
//! key, differently under another, and nothing else changes; the members
//! the policy marks `sensitive:` too), rotation
//! past `--log-max-bytes`, and `hookc eval --events` replaying the log.

use serde_json::Value;
use std::path::{Path, PathBuf};

const GUARD: &str = "host: claude-code\nhooks:\n  - id: no_rm\n    event: PreToolUse\n    when: \"tool_name == 'Bash' && tool_input.command.contains('rm ')\"\n    action: {type: deny, reason: no rm}\n";

fn scratch(name: &str) -> PathBuf {
    let dir = std::env::temp_dir().join(format!("hookc-dlog-{}-{name}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).unwrap();
    std::fs::write(dir.join("guard.yaml"), GUARD).unwrap();
    dir
}

/// One logged `rm x` call, with `env` set.
fn call(dir: &Path, args: &[&str], env: &[(&str, &str)]) {
    let mut all = vec!["--log", "log.jsonl"];
    all.extend_from_slice(args);
    all.push("guard.yaml");
    let out = crate::bash_call_with(dir, &all, "rm x", |c| {
        c.envs(env.iter().copied());
    })
    .wait_with_output()
    .unwrap();
    assert_eq!(out.status.code(), Some(0), "{out:?}");
}

fn lines(path: &Path) -> Vec<Value> {
    std::fs::read_to_string(path)
        .unwrap_or_default()
        .lines()
        .map(|l| serde_json::from_str(l).unwrap())
        .collect()
}

#[test]
fn a_line_names_its_decision_host_and_policy_digest() {
    let dir = scratch("line");
    call(&dir, &[], &[]);
    call(&dir, &[], &[]);
    let log = lines(&dir.join("log.jsonl"));
    assert_eq!(log.len(), 2);
    let disasm = crate::hookc_command()
        .args(["disasm", "guard.yaml"])
        .current_dir(&dir)
        .output()
        .unwrap();
    let digest = String::from_utf8(disasm.stdout).unwrap();
    let digest = digest
        .lines()
        .next()
        .unwrap()
        .trim_start_matches("digest: ");
    for line in &log {
        let id = line["decision_id"].as_str().unwrap();
        assert_eq!(id.len(), 32);
        assert!(id.bytes().all(|b| b.is_ascii_hexdigit()));
        assert_eq!(line["host"], "claude-code");
        assert_eq!(line["event"], "PreToolUse");
        assert_eq!(line["hook"], "no_rm");
        assert_eq!(line["policy_digest"], digest);
        assert_eq!(line["hookc"], env!("CARGO_PKG_VERSION"));
        assert_eq!(line["context"]["tool_input"]["command"], "rm x");
    }
    assert_ne!(log[0]["decision_id"], log[1]["decision_id"]);
    // The log replays.
    let replay = crate::hookc_command()
        .args(["eval", "guard.yaml", "--events", "log.jsonl"])
        .current_dir(&dir)
        .output()
        .unwrap();
    assert!(replay.status.success(), "{replay:?}");
    assert!(String::from_utf8_lossy(&replay.stdout).contains("no_rm"));
}

#[test]
fn masked_members_log_as_their_keyed_hash() {
    let dir = scratch("mask");
    let mask = ["--mask", "tool_input.command", "--mask", "no.such.member"];
    call(&dir, &mask, &[("HOOKC_LOG_KEY", "k1")]);
    call(&dir, &mask, &[("HOOKC_LOG_KEY", "k1")]);
    call(&dir, &mask, &[("HOOKC_LOG_KEY", "k2")]);
    // Without a key, one is made in the state folder, and kept.
    let state = dir.join("state");
    let state = state.to_str().unwrap();
    call(&dir, &mask, &[("HOOKC_STATE_DIR", state)]);
    call(&dir, &mask, &[("HOOKC_STATE_DIR", state)]);
    let log = lines(&dir.join("log.jsonl"));
    let hashed: Vec<&str> = log
        .iter()
        .map(|l| l["context"]["tool_input"]["command"].as_str().unwrap())
        .collect();
    assert!(hashed
        .iter()
        .all(|h| h.starts_with("hmac-sha256:") && h.len() == 12 + 64));
    assert_eq!(hashed[0], hashed[1]);
    assert_ne!(hashed[0], hashed[2]);
    assert_eq!(hashed[3], hashed[4]);
    assert_ne!(hashed[3], hashed[0]);
    assert!(Path::new(state).join("log.key").is_file());
    // The rest of the context is as it was, and the decision too.
    for line in &log {
        assert_eq!(line["context"]["tool_name"], "Bash");
        assert_eq!(line["hook"], "no_rm");
        assert!(!line.to_string().contains("rm x"));
    }
}

#[test]
fn the_digest_is_disasms_in_the_project_however_the_settings_name_the_guard() {
    // As Claude Code's settings name it (an absolute path into `.hookc`),
    // and as Codex's find it (`--find .hookc/guard.yaml`).
    let dir = scratch("named");
    std::fs::create_dir_all(dir.join(".hookc")).unwrap();
    std::fs::write(dir.join(".hookc/guard.yaml"), GUARD).unwrap();
    let absolute = dir.join(".hookc/guard.yaml");
    let absolute = absolute.to_str().unwrap();
    for args in [
        vec!["--log", "log.jsonl", absolute],
        vec!["--log", "log.jsonl", "--find", ".hookc/guard.yaml"],
    ] {
        let out = crate::bash_call(&dir, &args, "rm x")
            .wait_with_output()
            .unwrap();
        assert_eq!(out.status.code(), Some(0), "{out:?}");
    }
    let disasm = crate::hookc_in(&dir, &["disasm", ".hookc/guard.yaml"]);
    let listing = String::from_utf8(disasm.stdout).unwrap();
    let digest = listing
        .lines()
        .next()
        .unwrap()
        .trim_start_matches("digest: ");
    let log = lines(&dir.join("log.jsonl"));
    assert_eq!(log.len(), 2);
    for line in &log {
        assert_eq!(line["policy_digest"], digest, "{line}");
    }
}

#[test]
fn members_the_policy_marks_sensitive_log_as_their_keyed_hash() {
    let dir = scratch("sensitive");
    let marked = GUARD.replace("hooks:\n", "sensitive: [tool_input.command]\nhooks:\n");
    std::fs::write(dir.join("guard.yaml"), marked).unwrap();
    // The first call compiles the source, the second loads the artifact
    // the cache kept (the members are in it).
    call(&dir, &[], &[("HOOKC_LOG_KEY", "k1")]);
    call(
        &dir,
        &["--mask", "tool_input.command"],
        &[("HOOKC_LOG_KEY", "k1")],
    );
    let log = lines(&dir.join("log.jsonl"));
    assert_eq!(log.len(), 2);
    for line in &log {
        let hashed = line["context"]["tool_input"]["command"].as_str().unwrap();
        assert!(hashed.starts_with("hmac-sha256:"), "{line}");
        assert!(!line.to_string().contains("rm x"), "{line}");
    }
    // Marked and given with `--mask`: hashed once, the same hash.
    assert_eq!(log[0]["context"], log[1]["context"]);
}

#[test]
fn a_log_past_its_bound_is_rotated() {
    let dir = scratch("rotate");
    for _ in 0..3 {
        call(&dir, &["--log-max-bytes", "100"], &[]);
    }
    // Each line is over 100 bytes: the file holds the last, `.1` the one
    // before (the first was replaced).
    assert_eq!(lines(&dir.join("log.jsonl")).len(), 1);
    assert_eq!(lines(&dir.join("log.jsonl.1")).len(), 1);
}

#[test]
fn a_shadow_policy_is_logged_beside_the_live_one_and_reported() {
    let dir = scratch("shadow");
    std::fs::write(
        dir.join("candidate.yaml"),
        GUARD.replace("type: deny", "type: ask"),
    )
    .unwrap();
    std::fs::write(dir.join("broken.yaml"), "hooks: [").unwrap();
    let answer = |args: &[&str], command: &str| {
        let mut all = vec!["--log", "log.jsonl"];
        all.extend_from_slice(args);
        all.push("guard.yaml");
        crate::bash_call(&dir, &all, command)
            .wait_with_output()
            .unwrap()
    };
    let live = answer(&[], "rm x");
    for (candidate, command) in [
        ("candidate.yaml", "rm x"),
        ("candidate.yaml", "ls"),
        ("broken.yaml", "rm x"),
    ] {
        let out = answer(&["--shadow", candidate], command);
        // The host hears the live decision only, whatever the candidate.
        if command == "rm x" {
            assert_eq!(out.stdout, live.stdout, "{candidate}");
        }
        assert_eq!(out.status.code(), Some(0));
    }
    let log = lines(&dir.join("log.jsonl"));
    // The live call alone, then three live lines, two with a shadow line
    // (the broken candidate logs nothing).
    assert_eq!(log.len(), 6, "{log:#?}");
    let shadows: Vec<&Value> = log.iter().filter(|l| l["shadow"] == true).collect();
    assert_eq!(shadows.len(), 2);
    for s in &shadows {
        let twin = log
            .iter()
            .find(|l| l["shadow"] != true && l["decision_id"] == s["decision_id"])
            .unwrap();
        assert_eq!(twin["context"], s["context"]);
        assert_ne!(twin["policy_digest"], s["policy_digest"]);
    }
    assert_eq!(shadows[0]["decision"]["action"]["type"], "ask");
    // What the candidate would have changed: one call of the two.
    let report = crate::hookc_command()
        .args(["diff", "--log", "log.jsonl"])
        .current_dir(&dir)
        .output()
        .unwrap();
    assert_eq!(report.status.code(), Some(1), "{report:?}");
    let text = String::from_utf8(report.stdout).unwrap();
    assert!(
        text.contains("2 calls with a shadow decision, 1 decided otherwise"),
        "{text}"
    );
    assert!(
        text.contains("PreToolUse: no_rm (deny) -> no_rm (ask): 1"),
        "{text}"
    );
    let json = crate::hookc_command()
        .args(["diff", "--log", "log.jsonl", "--format", "json"])
        .current_dir(&dir)
        .output()
        .unwrap();
    let v: Value = serde_json::from_slice(&json.stdout).unwrap();
    assert_eq!(v["compared"], 2);
    assert_eq!(v["changed"], 1);
    assert_eq!(v["transitions"][0]["shadow"], "no_rm (ask)");
}

/// A shadow report of something that cannot be read says so and ends (a
/// folder used to make it read forever), and a line that is not UTF-8 is
/// counted, not fatal.
#[test]
fn a_shadow_report_of_an_unreadable_log_ends_with_an_error() {
    let dir = scratch("unreadable");
    let out = crate::hookc_command()
        .args(["diff", "--log", "."])
        .current_dir(&dir)
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(2), "{out:?}");
    assert!(
        String::from_utf8_lossy(&out.stderr).contains("cannot read"),
        "{out:?}"
    );
    std::fs::write(dir.join("bad.jsonl"), b"\xff\xfe\n{}\n").unwrap();
    let out = crate::hookc_command()
        .args(["diff", "--log", "bad.jsonl"])
        .current_dir(&dir)
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(0), "{out:?}");
    assert!(String::from_utf8_lossy(&out.stdout).contains("(1 lines were not JSON)"));
}

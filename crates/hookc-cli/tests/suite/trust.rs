//! Signed and pinned guards through `hookc hook` (`docs/src/hosts/teams.md`):
//! `hookc keygen`, `hookc sign`, `--trust` refusing an unsigned, tampered,
//! replaced or wrongly signed artifact with the host's block; `hookc init
//! --pin` writing settings whose guard, once changed, blocks every call
//! until it is pinned again; `hookc disasm`'s digest being the one signed.

use serde_json::Value;
use std::path::{Path, PathBuf};
use std::process::Output;

const GUARD: &str = "host: claude-code\nhooks:\n  - id: no_rm\n    event: PreToolUse\n    when: \"tool_name == 'Bash' && tool_input.command.contains('rm ')\"\n    action: {type: deny, reason: no rm}\n";

fn scratch(name: &str) -> PathBuf {
    let dir = std::env::temp_dir().join(format!("hookc-trust-{}-{name}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).unwrap();
    dir
}

/// A PreToolUse call of `rm x` with `args` after `hook --host claude-code`.
fn hook(dir: &Path, args: &[&str]) -> Output {
    crate::bash_call(dir, args, "rm x")
        .wait_with_output()
        .unwrap()
}

fn denied(out: &Output) -> bool {
    out.status.code() == Some(0)
        && serde_json::from_slice::<Value>(&out.stdout).is_ok_and(|v| {
            v["hookSpecificOutput"]["permissionDecision"] == "deny"
                && v["hookSpecificOutput"]["permissionDecisionReason"]
                    .as_str()
                    .is_some_and(|r| r.starts_with("no rm"))
        })
}

/// Claude Code's block for a hook that failed: exit 2, the reason on
/// standard error.
fn blocked_saying(out: &Output, needle: &str) {
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(2), "{out:?}");
    assert!(stderr.contains(needle), "{stderr}");
}

/// A project with `guard.hkb` signed by `keys/`, and `other/`, another key.
fn signed(name: &str) -> PathBuf {
    let dir = scratch(name);
    std::fs::write(dir.join("guard.yaml"), GUARD).unwrap();
    for args in [
        &["keygen", "--out", "keys"][..],
        &["keygen", "--out", "other"],
        &["compile", "guard.yaml", "-o", "guard.hkb"],
        &["sign", "guard.hkb", "--key", "keys/hookc.key"],
    ] {
        let out = crate::hookc_in(&dir, args);
        assert!(out.status.success(), "{args:?}: {out:?}");
    }
    dir
}

#[test]
fn a_signed_artifact_runs_under_its_key_and_the_digest_is_disasms() {
    let dir = signed("ok");
    assert!(denied(&hook(
        &dir,
        &["--trust", "keys/hookc.pub", "guard.hkb"]
    )));
    // Several keys: one of them signed it.
    assert!(denied(&hook(
        &dir,
        &[
            "--trust",
            "other/hookc.pub",
            "--trust",
            "keys/hookc.pub",
            "guard.hkb"
        ]
    )));
    let sig = std::fs::read_to_string(dir.join("guard.hkb.sig")).unwrap();
    let signed_digest = sig.split_whitespace().nth(2).unwrap().to_owned();
    let disasm = String::from_utf8(crate::hookc_in(&dir, &["disasm", "guard.hkb"]).stdout).unwrap();
    assert_eq!(
        disasm.lines().next().unwrap(),
        format!("digest: {signed_digest}")
    );
    // The sources compile to the same bytes: the same digest.
    let from_sources =
        String::from_utf8(crate::hookc_in(&dir, &["disasm", "guard.yaml"]).stdout).unwrap();
    assert_eq!(from_sources.lines().next(), disasm.lines().next());
}

#[test]
fn what_is_not_signed_by_a_trusted_key_over_these_bytes_blocks() {
    let dir = signed("refused");
    let trust = ["--trust", "keys/hookc.pub", "guard.hkb"];
    blocked_saying(
        &hook(&dir, &["--trust", "other/hookc.pub", "guard.hkb"]),
        "which is not trusted",
    );
    // Another valid policy put in its place, its checksum right: refused
    // for its bytes, before it is loaded.
    let original = std::fs::read(dir.join("guard.hkb")).unwrap();
    std::fs::write(dir.join("allow.yaml"), GUARD.replace("deny", "allow")).unwrap();
    assert!(
        crate::hookc_in(&dir, &["compile", "allow.yaml", "-o", "guard.hkb"])
            .status
            .success()
    );
    blocked_saying(&hook(&dir, &trust), "was changed after it was signed");
    // One byte changed.
    let mut flipped = original.clone();
    let last = flipped.len() - 1;
    flipped[last] ^= 1;
    std::fs::write(dir.join("guard.hkb"), &flipped).unwrap();
    blocked_saying(&hook(&dir, &trust), "was changed after it was signed");
    std::fs::write(dir.join("guard.hkb"), &original).unwrap();
    assert!(denied(&hook(&dir, &trust)));
    // A signature that is not the key's.
    let sig = std::fs::read_to_string(dir.join("guard.hkb.sig")).unwrap();
    let mut words: Vec<String> = sig.split_whitespace().map(str::to_owned).collect();
    let s = &mut words[3];
    let first = if s.starts_with('0') { "1" } else { "0" };
    s.replace_range(0..1, first);
    std::fs::write(dir.join("guard.hkb.sig"), words.join(" ")).unwrap();
    blocked_saying(&hook(&dir, &trust), "does not verify");
    // No signature, or sources: not run under --trust.
    std::fs::remove_file(dir.join("guard.hkb.sig")).unwrap();
    blocked_saying(&hook(&dir, &trust), "is not signed");
    blocked_saying(
        &hook(&dir, &["--trust", "keys/hookc.pub", "guard.yaml"]),
        "runs only a signed artifact",
    );
    // --fail-open: no decision, the reason on standard error.
    let open = hook(
        &dir,
        &["--fail-open", "--trust", "keys/hookc.pub", "guard.hkb"],
    );
    assert_eq!(open.status.code(), Some(0), "{open:?}");
    assert!(open.stdout.is_empty());
    assert!(String::from_utf8_lossy(&open.stderr).contains("is not signed"));
}

#[test]
fn a_pinned_guard_that_changed_blocks_until_pinned_again() {
    let dir = scratch("pin");
    assert!(
        crate::hookc_in(&dir, &["init", "--host", "claude-code", "--pin"])
            .status
            .success()
    );
    let settings = || -> String {
        let v: Value =
            serde_json::from_slice(&std::fs::read(dir.join(".claude/settings.json")).unwrap())
                .unwrap();
        v["hooks"]["PreToolUse"][0]["hooks"][0]["command"]
            .as_str()
            .unwrap()
            .to_owned()
    };
    let pin_of = |command: &str| -> String {
        let words: Vec<&str> = command.split(' ').collect();
        let at = words.iter().position(|w| *w == "--pin").unwrap();
        words[at + 1].to_owned()
    };
    let pinned = pin_of(&settings());
    let guard = ".hookc/guard.yaml";
    let entries = std::fs::read_to_string(dir.join(".claude/settings.json"))
        .unwrap()
        .matches("hookc hook --pin")
        .count();
    assert!(entries > 1);
    let out = hook(&dir, &["--pin", &pinned, guard]);
    assert_eq!(out.status.code(), Some(0), "{out:?}");
    // Changed without re-pinning: every call blocks, saying why.
    let mut text = std::fs::read_to_string(dir.join(guard)).unwrap();
    text.push_str("# changed\n");
    std::fs::write(dir.join(guard), &text).unwrap();
    blocked_saying(
        &hook(&dir, &["--pin", &pinned, guard]),
        "changed since it was pinned",
    );
    // Pinned again: the settings carry the new digest, in every entry,
    // and no entry twice.
    assert!(
        crate::hookc_in(&dir, &["init", "--host", "claude-code", "--pin"])
            .status
            .success()
    );
    let repinned = pin_of(&settings());
    assert_ne!(repinned, pinned);
    let all = std::fs::read_to_string(dir.join(".claude/settings.json")).unwrap();
    assert!(!all.contains(&pinned));
    assert_eq!(
        all.matches(&format!("hookc hook --pin {repinned}")).count(),
        entries
    );
    let out = hook(&dir, &["--pin", &repinned, guard]);
    assert_eq!(out.status.code(), Some(0), "{out:?}");
}

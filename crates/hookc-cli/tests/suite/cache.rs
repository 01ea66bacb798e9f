//! The artifact cache of policy sources (`docs/src/reference/cache.md`), through
//! `hookc hook` as a host runs it: an entry beside the policy after the
//! first call, used by the next; a source edited between calls; processes
//! racing on a cold cache; damaged entries rebuilt and never used; a
//! folder that cannot be written; the cache turned off. Each test works in
//! a scratch folder of its own, with `HOOKC_CACHE_DIR` removed so that the
//! cache goes where a user's would.

use serde_json::Value;
use std::path::{Path, PathBuf};
use std::process::Child;

/// Denies `rm`; the same with `allow` for the edited policy.
const DENY: &str = "host: claude-code\nhooks:\n  - id: no_rm\n    event: PreToolUse\n    when: \"tool_name == 'Bash' && tool_input.command.contains('rm ')\"\n    action: {type: deny, reason: no rm}\n";

/// A scratch project with `.hookc/guard.yaml` = `policy`.
fn project(name: &str, policy: &str) -> PathBuf {
    let root = std::env::temp_dir().join(format!("hookc-cache-{}-{name}", std::process::id()));
    let _ = std::fs::remove_dir_all(&root);
    std::fs::create_dir_all(root.join(".hookc")).unwrap();
    std::fs::write(root.join(".hookc/guard.yaml"), policy).unwrap();
    root
}

/// Starts `hookc hook --host claude-code .hookc/guard.yaml` in `proj` on a
/// Bash call of `command`; the user's cache folder is `proj/user-cache`
/// (`XDG_CACHE_HOME`), and `extra` environment variables are set.
fn start(proj: &Path, command: &str, extra: &[(&str, &str)]) -> Child {
    crate::bash_call_with(proj, &[".hookc/guard.yaml"], command, |c| {
        c.env_remove("HOOKC_CACHE_DIR")
            .env_remove("HOOKC_CACHE")
            .env("XDG_CACHE_HOME", proj.join("user-cache"))
            .envs(extra.iter().copied());
    })
}

/// The decision a started call answered: `deny: REASON`, `allow`, or
/// `none`.
fn decided(child: Child) -> String {
    let out = child.wait_with_output().unwrap();
    assert_eq!(out.status.code(), Some(0), "{out:?}");
    let stdout = String::from_utf8_lossy(&out.stdout);
    if stdout.trim().is_empty() {
        return "none".to_owned();
    }
    let v: Value = serde_json::from_str(&stdout).unwrap();
    let h = &v["hookSpecificOutput"];
    let reason = h["permissionDecisionReason"].as_str().unwrap_or("");
    // The reason as written, without the attribution hookc appends.
    let reason = reason.split(" [hook ").next().unwrap_or(reason);
    format!(
        "{}: {reason}",
        h["permissionDecision"].as_str().unwrap_or("?")
    )
}

fn hook(proj: &Path, command: &str) -> String {
    decided(start(proj, command, &[]))
}

/// The entries (`*.hkb`) of a cache folder; anything else but its
/// `.gitignore` there (a temporary file left behind) fails the test.
fn entries(folder: &Path) -> Vec<PathBuf> {
    let Ok(dir) = std::fs::read_dir(folder) else {
        return Vec::new();
    };
    let mut out = Vec::new();
    for e in dir.flatten() {
        let name = e.file_name().to_string_lossy().into_owned();
        if name.ends_with(".hkb") && !name.starts_with('.') {
            out.push(e.path());
        } else {
            assert_eq!(name, ".gitignore", "left in {}", folder.display());
        }
    }
    out.sort();
    out
}

/// The one entry of a folder.
fn the_entry(folder: &Path) -> PathBuf {
    let mut all = entries(folder);
    assert_eq!(all.len(), 1, "{all:?}");
    all.remove(0)
}

#[test]
fn the_first_call_keeps_an_entry_that_the_next_calls_use() {
    let proj = project("hit", DENY);
    let cache = proj.join(".hookc/cache");
    assert_eq!(hook(&proj, "rm x"), "deny: no rm");
    let entry = the_entry(&cache);
    assert_eq!(
        std::fs::read_to_string(cache.join(".gitignore")).unwrap(),
        "*\n"
    );
    let written = std::fs::read(&entry).unwrap();
    let stamp = std::fs::metadata(&entry).unwrap().modified().unwrap();
    assert_eq!(hook(&proj, "rm x"), "deny: no rm");
    assert_eq!(hook(&proj, "ls"), "none");
    // Read, not written again.
    assert_eq!(the_entry(&cache), entry);
    assert_eq!(std::fs::read(&entry).unwrap(), written);
    assert_eq!(
        std::fs::metadata(&entry).unwrap().modified().unwrap(),
        stamp
    );
    // The user's folder was not needed.
    assert!(entries(&proj.join("user-cache/hookc")).is_empty());
}

#[test]
fn a_source_edited_between_calls_is_compiled_again() {
    let proj = project("edit", DENY);
    let cache = proj.join(".hookc/cache");
    assert_eq!(hook(&proj, "rm x"), "deny: no rm");
    let before = the_entry(&cache);
    // The same length, one word changed: no size or time to go by.
    std::fs::write(
        proj.join(".hookc/guard.yaml"),
        DENY.replace("deny, reason: no rm", "deny, reason: no RM"),
    )
    .unwrap();
    assert_eq!(hook(&proj, "rm x"), "deny: no RM");
    let after = the_entry(&cache);
    assert_ne!(after, before, "the older entry is replaced");
    std::fs::write(proj.join(".hookc/guard.yaml"), DENY).unwrap();
    assert_eq!(hook(&proj, "rm x"), "deny: no rm");
}

#[test]
fn processes_racing_on_a_cold_cache_all_answer_and_leave_one_entry() {
    let proj = project("race", DENY);
    for round in 0..3 {
        let _ = std::fs::remove_dir_all(proj.join(".hookc/cache"));
        let children: Vec<Child> = (0..8)
            .map(|k| start(&proj, if k % 2 == 0 { "rm x" } else { "ls" }, &[]))
            .collect();
        for (k, child) in children.into_iter().enumerate() {
            let want = if k % 2 == 0 { "deny: no rm" } else { "none" };
            assert_eq!(decided(child), want, "round {round}, call {k}");
        }
        the_entry(&proj.join(".hookc/cache"));
        assert_eq!(hook(&proj, "rm x"), "deny: no rm");
    }
}

#[test]
fn a_damaged_entry_is_rebuilt_and_never_used() {
    let proj = project("damaged", DENY);
    let cache = proj.join(".hookc/cache");
    assert_eq!(hook(&proj, "rm x"), "deny: no rm");
    let entry = the_entry(&cache);
    let good = std::fs::read(&entry).unwrap();
    // An entry of the policy that allows `rm`, under this policy's name:
    // used, it would answer `allow`.
    let allow = project("damaged-allow", &DENY.replace("type: deny", "type: allow"));
    assert_eq!(hook(&allow, "rm x"), "allow: no rm");
    let other = std::fs::read(the_entry(&allow.join(".hookc/cache"))).unwrap();
    let key_line =
        |bytes: &[u8]| -> Vec<u8> { bytes.split(|&b| b == b'\n').nth(1).unwrap().to_vec() };
    let with_key = |bytes: &[u8], key: &[u8]| -> Vec<u8> {
        let mut lines: Vec<&[u8]> = bytes.splitn(3, |&b| b == b'\n').collect();
        lines[1] = key;
        lines.join(&b'\n')
    };
    let own_key = key_line(&good);
    let mut flipped = with_key(&other, &own_key);
    let end = flipped.len() - 1;
    flipped[end] ^= 0x20;
    let damaged: Vec<(&str, Vec<u8>)> = vec![
        ("garbage", b"not an entry".to_vec()),
        ("empty", Vec::new()),
        ("cut short", good[..good.len() / 2].to_vec()),
        ("another key", other.clone()),
        ("a flipped byte", flipped),
    ];
    for (what, bytes) in damaged {
        std::fs::write(&entry, &bytes).unwrap();
        assert_eq!(hook(&proj, "rm x"), "deny: no rm", "{what}");
        // Rebuilt: the entry is whole again, and the next call reads it.
        assert_eq!(std::fs::read(the_entry(&cache)).unwrap(), good, "{what}");
    }
}

#[test]
fn a_folder_that_cannot_be_written_passes_to_the_users_cache_or_none() {
    let proj = project("blocked", DENY);
    // `.hookc/cache` cannot be made: a file stands where it would be (this
    // holds even for root, who may write a read-only folder).
    std::fs::write(proj.join(".hookc/cache"), "a file").unwrap();
    assert_eq!(hook(&proj, "rm x"), "deny: no rm");
    let user = proj.join("user-cache/hookc");
    the_entry(&user);
    assert_eq!(hook(&proj, "rm x"), "deny: no rm");
    // Neither can be written: the call compiles and answers all the same.
    std::fs::remove_dir_all(proj.join("user-cache")).unwrap();
    std::fs::write(proj.join("user-cache"), "a file").unwrap();
    assert_eq!(hook(&proj, "rm x"), "deny: no rm");
    assert_eq!(hook(&proj, "ls"), "none");
}

#[cfg(unix)]
#[test]
fn a_read_only_policy_folder_passes_to_the_users_cache() {
    use std::os::unix::fs::PermissionsExt;
    let proj = project("read-only", DENY);
    let folder = proj.join(".hookc");
    std::fs::set_permissions(&folder, std::fs::Permissions::from_mode(0o555)).unwrap();
    // Root writes a read-only folder: then only the answer is checked.
    let writable = std::fs::write(folder.join("probe"), "").is_ok();
    assert_eq!(hook(&proj, "rm x"), "deny: no rm");
    assert_eq!(hook(&proj, "rm x"), "deny: no rm");
    if !writable {
        assert!(!folder.join("cache").exists());
        the_entry(&proj.join("user-cache/hookc"));
    }
    std::fs::set_permissions(&folder, std::fs::Permissions::from_mode(0o755)).unwrap();
}

#[test]
fn the_cache_can_be_turned_off_or_sent_elsewhere() {
    let proj = project("off", DENY);
    assert_eq!(
        decided(start(&proj, "rm x", &[("HOOKC_CACHE", "off")])),
        "deny: no rm"
    );
    assert!(!proj.join(".hookc/cache").exists());
    assert!(!proj.join("user-cache").exists());
    let elsewhere = proj.join("elsewhere");
    let dir = elsewhere.to_str().unwrap();
    assert_eq!(
        decided(start(&proj, "rm x", &[("HOOKC_CACHE_DIR", dir)])),
        "deny: no rm"
    );
    the_entry(&elsewhere);
    assert!(!proj.join(".hookc/cache").exists());
}

//! `hookc init --host NAME` for every host: the starter guard, its tests
//! and the host's settings file, merged into an existing one without losing
//! anything and in its order; idempotent; `--print` writes nothing; a
//! settings file of another shape is refused, left byte for byte, and
//! nothing else is written. The guard compiles and its tests pass.

use serde_json::Value;
use std::path::{Path, PathBuf};
use std::process::Output;

/// A host `hookc init` sets up, and what its settings look like.
struct Host {
    name: &'static str,
    /// The settings file, relative to the project.
    settings: &'static str,
    /// A settings file with members of the user's, one entry of theirs on
    /// `event` among them.
    theirs: &'static str,
    /// An event the host's profile lets decide.
    event: &'static str,
    /// The host's fail-closed setting on an entry, as a JSON pointer and
    /// its value (`None`: the host has none, `hookc hook` blocks itself).
    fail_closed: Option<(&'static str, Value)>,
}

fn hosts() -> Vec<Host> {
    vec![
        Host {
            name: "claude-code",
            settings: ".claude/settings.json",
            theirs: r#"{"permissions": {"allow": ["Bash(ls)"]}, "hooks": {"Stop": [{"hooks": [{"type": "command", "command": "notify.sh"}]}]}, "model": "opus"}"#,
            event: "Stop",
            fail_closed: Some(("/hooks/0/onFailure", "block".into())),
        },
        Host {
            name: "codex",
            settings: ".codex/hooks.json",
            theirs: r#"{"description": "team hooks", "hooks": {"Stop": [{"hooks": [{"type": "command", "command": "notify.sh", "timeout": 5}]}]}}"#,
            event: "Stop",
            fail_closed: None,
        },
        Host {
            name: "gemini-cli",
            settings: ".gemini/settings.json",
            theirs: r#"{"general": {"vimMode": true}, "hooks": {"AfterAgent": [{"hooks": [{"type": "command", "command": "notify.sh"}]}]}, "ui": {"theme": "GitHub"}}"#,
            event: "AfterAgent",
            fail_closed: None,
        },
        Host {
            name: "cursor",
            settings: ".cursor/hooks.json",
            theirs: r#"{"version": 1, "hooks": {"stop": [{"command": "notify.sh"}]}, "x-team": "ours"}"#,
            event: "stop",
            fail_closed: Some(("/failClosed", true.into())),
        },
        Host {
            name: "copilot",
            settings: ".github/hooks/hookc.json",
            theirs: r#"{"version": 1, "hooks": {"preToolUse": [{"type": "command", "bash": "./notify.sh"}]}, "x-team": "ours"}"#,
            event: "preToolUse",
            fail_closed: None,
        },
    ]
}

fn hookc(args: &[&str]) -> Output {
    crate::hookc_command().args(args).output().unwrap()
}

fn project(host: &Host, case: &str) -> PathBuf {
    let dir = Path::new(env!("CARGO_TARGET_TMPDIR")).join(format!("init-{}-{case}", host.name));
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(dir.join(host.settings).parent().unwrap()).unwrap();
    dir
}

/// `hookc init --host NAME --dir DIR EXTRA...`.
fn init(host: &Host, dir: &Path, extra: &[&str]) -> Output {
    let mut args = vec!["init", "--host", host.name, "--dir", dir.to_str().unwrap()];
    args.extend(extra);
    hookc(&args)
}

fn text(bytes: &[u8]) -> String {
    String::from_utf8_lossy(bytes).into_owned()
}

fn read_json(path: &Path) -> Value {
    serde_json::from_slice(&std::fs::read(path).unwrap()).unwrap()
}

/// Whether a settings entry runs `hookc hook --host NAME`, flat (as its
/// `command`, or Copilot's `bash`) or in a matcher group.
fn runs_hookc(entry: &Value, host: &str) -> bool {
    let is_it = |h: &Value| {
        ["command", "bash"].iter().any(|key| {
            h[*key]
                .as_str()
                .is_some_and(|c| c.contains(&format!("hookc hook --host {host} ")))
        })
    };
    is_it(entry)
        || entry["hooks"]
            .as_array()
            .is_some_and(|hs| hs.iter().any(is_it))
}

/// The guard under DIR compiles warning-free and its tests pass.
fn guard_is_tested(dir: &Path) {
    let guard = dir.join(".hookc/guard.yaml");
    let out = hookc(&["check", "--deny-warnings", guard.to_str().unwrap()]);
    assert_eq!(out.status.code(), Some(0), "{}", text(&out.stderr));
    let tests = dir.join(".hookc/guard.test.yaml");
    let out = hookc(&["test", tests.to_str().unwrap()]);
    assert_eq!(out.status.code(), Some(0), "{}", text(&out.stdout));
}

#[test]
fn a_fresh_project_gets_a_tested_guard_and_the_settings() {
    for host in hosts() {
        let dir = project(&host, "fresh");
        let out = init(&host, &dir, &[]);
        assert_eq!(out.status.code(), Some(0), "{}", text(&out.stderr));
        let said = text(&out.stdout);
        assert_eq!(said.matches("wrote ").count(), 3, "{said}");
        let v = read_json(&dir.join(host.settings));
        let hooks = v["hooks"].as_object().unwrap();
        assert!(!hooks.is_empty(), "{}: {v}", host.name);
        for (event, entries) in hooks {
            let entries = entries.as_array().unwrap();
            assert_eq!(entries.len(), 1, "{}: {event}", host.name);
            assert!(runs_hookc(&entries[0], host.name), "{}: {event}", host.name);
            if let Some((pointer, value)) = &host.fail_closed {
                assert_eq!(entries[0].pointer(pointer), Some(value), "{}", host.name);
            }
        }
        guard_is_tested(&dir);
    }
}

#[test]
fn an_existing_settings_file_is_merged_keeping_its_members_in_order() {
    for host in hosts() {
        let dir = project(&host, "merge");
        let settings = dir.join(host.settings);
        std::fs::write(&settings, host.theirs).unwrap();
        let before: Value = serde_json::from_str(host.theirs).unwrap();
        let out = init(&host, &dir, &[]);
        assert_eq!(out.status.code(), Some(0), "{}", text(&out.stderr));

        let after = read_json(&settings);
        let keys = |v: &Value| v.as_object().unwrap().keys().cloned().collect::<Vec<_>>();
        assert_eq!(
            keys(&after),
            keys(&before),
            "{}: members, in order",
            host.name
        );
        for (key, value) in before.as_object().unwrap() {
            if key != "hooks" {
                assert_eq!(&after[key], value, "{}: {key} kept", host.name);
            }
        }
        // The user's entry first, then ours.
        let list = after["hooks"][host.event].as_array().unwrap();
        assert_eq!(list.len(), 2, "{}: {after}", host.name);
        assert_eq!(list[0], before["hooks"][host.event][0], "{}", host.name);
        assert!(runs_hookc(&list[1], host.name), "{}", host.name);

        // Again: nothing changes, nothing is written.
        let bytes = std::fs::read(&settings).unwrap();
        let out = init(&host, &dir, &[]);
        assert_eq!(out.status.code(), Some(0), "{}", text(&out.stderr));
        let said = text(&out.stdout);
        assert!(!said.contains("wrote"), "{}: {said}", host.name);
        assert_eq!(said.matches("kept ").count(), 3, "{said}");
        assert_eq!(std::fs::read(&settings).unwrap(), bytes, "{}", host.name);
    }
}

#[test]
fn print_writes_nothing() {
    for host in hosts() {
        let dir = project(&host, "print");
        let out = init(&host, &dir, &["--print"]);
        assert_eq!(out.status.code(), Some(0), "{}", text(&out.stderr));
        let shown = text(&out.stdout);
        assert!(shown.contains("guard.yaml"), "{shown}");
        assert!(shown.contains(&format!("--- {}", dir.join(host.settings).display())));
        assert!(shown.contains(&format!("hookc hook --host {}", host.name)));
        assert!(!dir.join(".hookc").exists(), "{}", host.name);
        assert!(!dir.join(host.settings).exists(), "{}", host.name);
    }
}

#[test]
fn a_settings_file_of_another_shape_is_left_alone() {
    let shapes = [
        ("[\"not\", \"settings\"]", "is not a JSON object"),
        ("{\"hooks\": ", "is not valid JSON"),
        ("{\"hooks\": [1]}", "`hooks` member that is not an object"),
    ];
    for host in hosts() {
        for (i, (content, problem)) in shapes.iter().enumerate() {
            let dir = project(&host, &format!("refuse{i}"));
            let settings = dir.join(host.settings);
            std::fs::write(&settings, content).unwrap();
            let out = init(&host, &dir, &[]);
            assert_eq!(out.status.code(), Some(2), "{}", host.name);
            let err = text(&out.stderr);
            assert!(err.contains(problem), "{}: {err}", host.name);
            assert!(err.contains(host.settings), "names the file: {err}");
            assert_eq!(std::fs::read_to_string(&settings).unwrap(), *content);
            assert!(
                !dir.join(".hookc").exists(),
                "nothing written when the settings are refused"
            );
        }
    }
}

/// The project's own guard decides the events: `init` again after a hook
/// on a new event adds that event's entry (and keeps the rest); a guard
/// that does not compile is named, and nothing is written.
#[test]
fn init_again_sets_up_the_events_the_projects_guard_has_grown() {
    let host = &hosts()[0];
    let dir = project(host, "grown");
    let guard = dir.join(".hookc/guard.yaml");
    std::fs::create_dir_all(guard.parent().unwrap()).unwrap();
    let stop = "host: claude-code\nhooks:\n  - {id: go_on, event: Stop, action: {type: deny, reason: go on}}\n";
    std::fs::write(&guard, stop).unwrap();
    let out = init(host, &dir, &[]);
    assert_eq!(out.status.code(), Some(0), "{}", text(&out.stderr));
    let events = |dir: &Path| {
        let settings = read_json(&dir.join(host.settings));
        settings["hooks"]
            .as_object()
            .unwrap()
            .keys()
            .cloned()
            .collect::<Vec<_>>()
    };
    assert_eq!(events(&dir), ["Stop"]);

    let grown = format!("{stop}  - {{id: no_secrets, event: UserPromptSubmit, when: \"prompt.contains('API_KEY=')\", action: {{type: deny, reason: no secrets}}}}\n");
    std::fs::write(&guard, grown).unwrap();
    let out = init(host, &dir, &[]);
    assert_eq!(out.status.code(), Some(0), "{}", text(&out.stderr));
    assert_eq!(events(&dir), ["Stop", "UserPromptSubmit"]);

    std::fs::write(
        &guard,
        "host: claude-code\nhooks: [{id: x, event: Stpo, action: {type: deny}}]\n",
    )
    .unwrap();
    let before = std::fs::read(dir.join(host.settings)).unwrap();
    let out = init(host, &dir, &[]);
    assert_eq!(out.status.code(), Some(2), "{}", text(&out.stdout));
    assert!(
        text(&out.stderr).contains("does not compile"),
        "{}",
        text(&out.stderr)
    );
    assert_eq!(std::fs::read(dir.join(host.settings)).unwrap(), before);
}

//! `hookc init --managed --host NAME --root DIR`: the guard in hookc's
//! system folder and the host's managed settings, under a scratch root
//! (never the machine's `/`): the files and what they hold (parsed), their
//! modes, idempotence, the merge into an administrator's file, the
//! refusal of a broken one, Codex's TOML, and a guard changed after it
//! was pinned blocking the call that the settings' own command makes.

use serde_json::Value;
use std::io::Write;
use std::path::{Path, PathBuf};
use std::process::{Output, Stdio};

/// A host with managed settings, and where they go.
struct Managed {
    name: &'static str,
    /// The settings file, under the root.
    file: &'static str,
    /// The member that makes the managed hooks the only ones.
    only: &'static str,
}

const CLAUDE: Managed = Managed {
    name: "claude-code",
    file: "etc/claude-code/managed-settings.json",
    only: "allowManagedHooksOnly",
};

const CODEX: Managed = Managed {
    name: "codex",
    file: "etc/codex/requirements.toml",
    only: "allow_managed_hooks_only",
};

fn text(bytes: &[u8]) -> String {
    String::from_utf8_lossy(bytes).into_owned()
}

/// A fresh scratch root for one case.
fn root(host: &Managed, case: &str) -> PathBuf {
    let dir = Path::new(env!("CARGO_TARGET_TMPDIR")).join(format!("managed-{}-{case}", host.name));
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).unwrap();
    dir
}

/// `hookc init --managed --host NAME --root ROOT EXTRA...`.
fn init(host: &Managed, root: &Path, extra: &[&str]) -> Output {
    let mut args = vec![
        "init",
        "--managed",
        "--host",
        host.name,
        "--root",
        root.to_str().unwrap(),
    ];
    args.extend(extra);
    crate::hookc_command().args(&args).output().unwrap()
}

fn ok(out: &Output) -> String {
    assert_eq!(out.status.code(), Some(0), "{}", text(&out.stderr));
    text(&out.stdout)
}

/// The settings file, parsed (TOML as JSON).
fn settings(host: &Managed, root: &Path) -> Value {
    let bytes = std::fs::read(root.join(host.file)).unwrap();
    if host.file.ends_with(".toml") {
        toml_json(&text(&bytes))
    } else {
        serde_json::from_slice(&bytes).unwrap()
    }
}

fn toml_json(text: &str) -> Value {
    fn item(i: &toml_edit::Item) -> Value {
        match i {
            toml_edit::Item::Value(v) => value(v),
            toml_edit::Item::Table(t) => t.iter().map(|(k, v)| (k.to_owned(), item(v))).collect(),
            toml_edit::Item::ArrayOfTables(a) => a
                .iter()
                .map(|t| -> Value {
                    t.iter()
                        .map(|(k, v)| (k.to_owned(), item(v)))
                        .collect::<serde_json::Map<_, _>>()
                        .into()
                })
                .collect::<Vec<_>>()
                .into(),
            toml_edit::Item::None => Value::Null,
        }
    }
    fn value(v: &toml_edit::Value) -> Value {
        match v {
            toml_edit::Value::String(s) => s.value().as_str().into(),
            toml_edit::Value::Integer(i) => (*i.value()).into(),
            toml_edit::Value::Boolean(b) => (*b.value()).into(),
            toml_edit::Value::Array(a) => a.iter().map(value).collect(),
            toml_edit::Value::InlineTable(t) => {
                t.iter().map(|(k, v)| (k.to_owned(), value(v))).collect()
            }
            other => other.to_string().into(),
        }
    }
    let doc: toml_edit::DocumentMut = text.parse().unwrap();
    item(doc.as_item())
}

/// Every command the settings' hooks run, by event.
fn commands(v: &Value) -> Vec<(String, String)> {
    let mut out = Vec::new();
    for (event, entries) in v["hooks"].as_object().unwrap() {
        let Some(entries) = entries.as_array() else {
            continue;
        };
        for entry in entries {
            for h in entry["hooks"].as_array().unwrap() {
                out.push((event.clone(), h["command"].as_str().unwrap().to_owned()));
            }
        }
    }
    out
}

#[cfg(unix)]
fn mode(path: &Path) -> u32 {
    use std::os::unix::fs::PermissionsExt;
    std::fs::metadata(path).unwrap().permissions().mode() & 0o777
}

#[test]
fn a_managed_install_writes_the_guard_and_the_hosts_managed_settings() {
    for host in [CLAUDE, CODEX] {
        let root = root(&host, "fresh");
        let said = ok(&init(&host, &root, &[]));
        assert_eq!(said.matches("wrote ").count(), 3, "{said}");
        let guard = root.join("etc/hookc").join(host.name).join("guard.yaml");
        let digest = {
            use sha2::Digest;
            let d = sha2::Sha256::digest(std::fs::read(&guard).unwrap());
            format!(
                "sha256:{}",
                d.iter().map(|b| format!("{b:02x}")).collect::<String>()
            )
        };
        let v = settings(&host, &root);
        assert_eq!(v[host.only], true, "{}: {v}", host.name);
        let all = commands(&v);
        assert!(all.iter().any(|(e, _)| e == "PreToolUse"), "{all:?}");
        let hookc = Path::new(env!("CARGO_BIN_EXE_hookc"));
        for (event, command) in &all {
            // Absolute paths, no project folder, the deadline, the pin.
            assert!(
                command.contains(&format!("{} hook --host {} ", hookc.display(), host.name)),
                "{event}: {command}"
            );
            assert!(
                command.contains(&format!(" {}", guard.display())),
                "{command}"
            );
            assert!(command.contains("--deadline 9000"), "{command}");
            assert!(command.contains(&format!("--pin {digest} ")), "{command}");
            assert!(!command.contains("CLAUDE_PROJECT_DIR"), "{command}");
            assert!(!command.contains("--find"), "{command}");
        }
        if host.name == "codex" {
            assert_eq!(
                v["hooks"]["managed_dir"],
                guard.parent().unwrap().to_str().unwrap()
            );
        } else {
            let entry = &v["hooks"]["PreToolUse"][0];
            assert_eq!(entry["hooks"][0]["onFailure"], "block", "{entry}");
            assert_eq!(entry["hooks"][0]["timeout"], 10, "{entry}");
        }
        #[cfg(unix)]
        {
            for file in [
                guard.clone(),
                guard.with_file_name("guard.test.yaml"),
                root.join(host.file),
            ] {
                assert_eq!(mode(&file), 0o644, "{}", file.display());
            }
            for dir in [
                guard.parent().unwrap(),
                root.join(host.file).parent().unwrap(),
            ] {
                assert_eq!(mode(dir), 0o755, "{}", dir.display());
            }
        }
        // The guard compiles and its tests pass where it is.
        let out = crate::hookc_command()
            .args([
                "test",
                guard.with_file_name("guard.test.yaml").to_str().unwrap(),
            ])
            .output()
            .unwrap();
        assert_eq!(out.status.code(), Some(0), "{}", text(&out.stdout));

        // Again: nothing written.
        let before = std::fs::read(root.join(host.file)).unwrap();
        let said = ok(&init(&host, &root, &[]));
        assert!(!said.contains("wrote"), "{said}");
        assert_eq!(said.matches("kept ").count(), 3, "{said}");
        assert_eq!(std::fs::read(root.join(host.file)).unwrap(), before);
    }
}

#[test]
fn print_writes_nothing() {
    for host in [CLAUDE, CODEX] {
        let root = root(&host, "print");
        let shown = ok(&init(&host, &root, &["--print"]));
        assert!(
            shown.contains(&format!("--- {}", root.join(host.file).display())),
            "{shown}"
        );
        assert!(shown.contains(host.only), "{shown}");
        assert_eq!(std::fs::read_dir(&root).unwrap().count(), 0, "{shown}");
    }
}

#[test]
fn an_administrators_file_is_merged_keeping_their_settings() {
    let claude = root(&CLAUDE, "merge");
    let file = claude.join(CLAUDE.file);
    std::fs::create_dir_all(file.parent().unwrap()).unwrap();
    let theirs = r#"{"permissions": {"deny": ["Bash(curl:*)"]}, "allowManagedHooksOnly": false,
        "hooks": {"PreToolUse": [{"matcher": "Bash", "hooks": [{"type": "command", "command": "/opt/org/audit.sh"}]}]}}"#;
    std::fs::write(&file, theirs).unwrap();
    ok(&init(&CLAUDE, &claude, &[]));
    let v = settings(&CLAUDE, &claude);
    let keys: Vec<_> = v.as_object().unwrap().keys().cloned().collect();
    assert_eq!(
        keys,
        ["permissions", "allowManagedHooksOnly", "hooks"],
        "{v}"
    );
    assert_eq!(v["permissions"]["deny"][0], "Bash(curl:*)");
    // What makes the install one the developer cannot bypass is set.
    assert_eq!(v["allowManagedHooksOnly"], true);
    let pre = v["hooks"]["PreToolUse"].as_array().unwrap();
    assert_eq!(pre.len(), 2, "{v}");
    assert_eq!(pre[0]["hooks"][0]["command"], "/opt/org/audit.sh");

    let codex = root(&CODEX, "merge");
    let file = codex.join(CODEX.file);
    std::fs::create_dir_all(file.parent().unwrap()).unwrap();
    let theirs = "# Set by IT.\nallowed_sandbox_modes = [\"read-only\", \"workspace-write\"]\n\n[[hooks.Stop]]\nhooks = [{ type = \"command\", command = \"/opt/org/notify.sh\" }]\n";
    std::fs::write(&file, theirs).unwrap();
    ok(&init(&CODEX, &codex, &[]));
    let written = std::fs::read_to_string(&file).unwrap();
    assert!(written.starts_with("# Set by IT.\n"), "{written}");
    let v = toml_json(&written);
    assert_eq!(v["allowed_sandbox_modes"][1], "workspace-write");
    assert_eq!(v["allow_managed_hooks_only"], true);
    let stop = v["hooks"]["Stop"].as_array().unwrap();
    assert_eq!(stop.len(), 2, "{written}");
    assert_eq!(stop[0]["hooks"][0]["command"], "/opt/org/notify.sh");
}

#[test]
fn a_broken_managed_file_is_refused_and_nothing_is_written() {
    for (host, broken, problem) in [
        (CLAUDE, "{\"hooks\": ", "is not valid JSON"),
        (CODEX, "allowed_sandbox_modes = [", "is not valid TOML"),
        (
            CODEX,
            "hooks = \"none\"\n",
            "`hooks` member that is not a table",
        ),
    ] {
        let root = root(&host, "broken");
        let file = root.join(host.file);
        std::fs::create_dir_all(file.parent().unwrap()).unwrap();
        std::fs::write(&file, broken).unwrap();
        let out = init(&host, &root, &[]);
        assert_eq!(out.status.code(), Some(2), "{}", text(&out.stdout));
        let err = text(&out.stderr);
        assert!(err.contains(problem), "{err}");
        assert!(err.contains(host.file), "names the file: {err}");
        assert_eq!(std::fs::read_to_string(&file).unwrap(), broken);
        assert!(!root.join("etc/hookc").exists(), "no guard written");
    }
}

/// Runs `command` with `sh -c`, as the host does, on a Bash call of `ls`.
fn host_runs(command: &str, cwd: &Path) -> Output {
    let mut child = std::process::Command::new("sh")
        .args(["-c", command])
        .current_dir(cwd)
        .env("HOOKC_STATE_DIR", crate::state_dir())
        .env(
            "HOOKC_CACHE_DIR",
            Path::new(env!("CARGO_TARGET_TMPDIR")).join("hookc-cache"),
        )
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    let payload = serde_json::json!({"session_id": "s", "cwd": cwd, "hook_event_name": "PreToolUse",
                                     "tool_name": "Bash", "tool_input": {"command": "ls"}});
    let mut stdin = child.stdin.take().unwrap();
    stdin.write_all(payload.to_string().as_bytes()).unwrap();
    drop(stdin);
    child.wait_with_output().unwrap()
}

#[test]
fn a_guard_changed_after_the_install_blocks_until_it_is_pinned_again() {
    for host in [CLAUDE, CODEX] {
        let root = root(&host, "pin");
        ok(&init(&host, &root, &[]));
        let command = |root: &Path| {
            let all = commands(&settings(&host, root));
            all.into_iter().find(|(e, _)| e == "PreToolUse").unwrap().1
        };
        // Any project folder: the command names no project.
        let project = root.join("some/project");
        std::fs::create_dir_all(&project).unwrap();
        let out = host_runs(&command(&root), &project);
        assert_eq!(out.status.code(), Some(0), "{}", text(&out.stderr));
        let answer: Value = serde_json::from_slice(&out.stdout).unwrap_or(Value::Null);
        assert_ne!(
            answer.pointer("/hookSpecificOutput/permissionDecision"),
            Some(&Value::from("deny")),
            "{answer}"
        );

        let guard = root.join("etc/hookc").join(host.name).join("guard.yaml");
        let mut changed = std::fs::read_to_string(&guard).unwrap();
        changed.push_str("# edited without a review\n");
        std::fs::write(&guard, changed).unwrap();
        let out = host_runs(&command(&root), &project);
        let said = format!("{}{}", text(&out.stdout), text(&out.stderr));
        assert!(said.contains("changed since it was pinned"), "{said}");
        match host.name {
            // onFailure block and exit 2: Claude Code blocks the call.
            "claude-code" => assert_eq!(out.status.code(), Some(2), "{said}"),
            // Codex: the host's deny, on standard output.
            _ => {
                let answer: Value = serde_json::from_slice(&out.stdout).unwrap();
                assert_eq!(
                    answer.pointer("/hookSpecificOutput/permissionDecision"),
                    Some(&Value::from("deny")),
                    "{answer}"
                );
            }
        }

        // Reviewed: init again re-pins, in place, and the call decides.
        let said = ok(&init(&host, &root, &[]));
        assert!(said.contains("wrote"), "{said}");
        let all = commands(&settings(&host, &root));
        assert_eq!(
            all.iter().filter(|(e, _)| e == "PreToolUse").count(),
            1,
            "{all:?}"
        );
        let out = host_runs(&command(&root), &project);
        assert_eq!(out.status.code(), Some(0), "{}", text(&out.stderr));
    }
}

#[test]
fn managed_is_for_the_hosts_that_have_managed_settings() {
    let root = root(&CLAUDE, "cursor");
    let out = crate::hookc_command()
        .args(["init", "--managed", "--host", "cursor", "--root"])
        .arg(&root)
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(2), "{}", text(&out.stdout));
    assert!(
        text(&out.stderr).contains("no managed settings"),
        "{}",
        text(&out.stderr)
    );
    // `--root` is for managed installs only.
    let out = crate::hookc_command()
        .args(["init", "--host", "codex", "--root"])
        .arg(&root)
        .output()
        .unwrap();
    assert_ne!(out.status.code(), Some(0));
}

#[test]
fn a_moved_hookc_replaces_the_entries_that_ran_the_old_one() {
    for host in [CLAUDE, CODEX] {
        let root = root(&host, "moved");
        ok(&init(&host, &root, &[]));
        let before = commands(&settings(&host, &root));
        let moved = root.join("usr/local/bin/hookc");
        ok(&init(&host, &root, &["--hookc", moved.to_str().unwrap()]));
        let after = commands(&settings(&host, &root));
        assert_eq!(after.len(), before.len(), "{after:?}");
        for (_, command) in &after {
            assert!(
                command.contains(&format!("{} hook", moved.display())),
                "{command}"
            );
            assert!(!command.contains(env!("CARGO_BIN_EXE_hookc")), "{command}");
        }
    }
}

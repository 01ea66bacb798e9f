//! `hookc init --host NAME [--dir DIR] [--print]`: a starter policy for a
//! host, its test file, and the host's settings entries that call `hookc
//! hook` (`docs/src/hosts/index.md`).
//!
//! The policy and its tests are the guide's guard for the host
//! (`examples/hosts/<host>/`), written under `DIR/.hookc/` unless files of
//! those names are there already (they are never overwritten). For Claude
//! Code the settings are `DIR/.claude/settings.json`: one `hooks` entry per
//! event the profile lets decide, each running `hookc hook --host
//! claude-code` on the policy, with `onFailure: "block"` so that a crashed or
//! timed-out hook blocks. They are merged into the file: every member it has
//! is kept, in its order, an entry that
//! already runs the same command is not added twice, and a file that is not
//! a JSON object is refused rather than replaced. For GitHub Copilot they
//! are `DIR/.github/hooks/hookc.json` (Copilot reads every
//! `.github/hooks/*.json`): `version: 1` and one `command` entry per event
//! the profile lets act, each running `hookc hook --host copilot --event
//! EVENT` from the repository root, merged the same way. `--print` shows
//! what would be written and writes nothing.

use crate::hook::Host;
use serde_json::{json, Map, Value};
use std::path::{Path, PathBuf};
use thiserror::Error;

/// `hookc init`'s arguments.
#[derive(clap::Args)]
pub struct InitArgs {
    /// The host to set up.
    #[arg(long, value_enum)]
    host: Host,
    /// The project's folder.
    #[arg(long, default_value = ".")]
    dir: PathBuf,
    /// Print what would be written instead of writing it.
    #[arg(long)]
    print: bool,
}

/// Why `hookc init` did not set the project up.
#[derive(Debug, Error)]
pub enum InitError {
    /// A file could not be read or written.
    #[error("cannot {what} `{path}`: {source}")]
    Io {
        /// `read` or `write`.
        what: &'static str,
        /// The file.
        path: PathBuf,
        /// Why.
        source: std::io::Error,
    },
    /// The existing settings file is not a JSON object with a `hooks`
    /// object of lists: it is left as it is.
    #[error("`{path}` {problem}: fix it by hand, or move it aside, and run `hookc init` again")]
    Settings {
        /// The file.
        path: PathBuf,
        /// What is wrong.
        problem: String,
    },
    /// `hookc init` does not set this host up yet.
    #[error(
        "`hookc init` sets up `claude-code` and `copilot` only so far; for `{0}`, copy the guard \
         of the guide's chapter on the host and call `hookc hook --host {0}` from its hook settings"
    )]
    Unsupported(&'static str),
}

/// The guide's guard and its tests, for the hosts `hookc init` sets up.
fn starter(host: Host) -> Result<(&'static str, &'static str), InitError> {
    match host {
        Host::ClaudeCode => Ok((
            include_str!("../../../examples/hosts/claude-code/guard.yaml"),
            include_str!("../../../examples/hosts/claude-code/guard.test.yaml"),
        )),
        Host::Copilot => Ok((
            include_str!("../../../examples/hosts/copilot/guard.yaml"),
            include_str!("../../../examples/hosts/copilot/guard.test.yaml"),
        )),
        Host::Codex | Host::GeminiCli | Host::Cursor => {
            Err(InitError::Unsupported(host_name(host)))
        }
    }
}

/// The host's name on the command line.
fn host_name(host: Host) -> &'static str {
    match host {
        Host::ClaudeCode => "claude-code",
        Host::Codex => "codex",
        Host::GeminiCli => "gemini-cli",
        Host::Cursor => "cursor",
        Host::Copilot => "copilot",
    }
}

/// The Claude Code events the settings call `hookc hook` for: those whose
/// hooks may decide (the profile's), with a tool matcher where the event
/// has tools.
const CLAUDE_EVENTS: [(&str, bool); 6] = [
    ("PreToolUse", true),
    ("PostToolUse", true),
    ("UserPromptSubmit", false),
    ("Stop", false),
    ("SubagentStop", false),
    ("SessionStart", false),
];

/// Runs `hookc init`: what it wrote (or would write), one line per file.
pub fn run(args: &InitArgs) -> Result<String, InitError> {
    let (policy, tests) = starter(args.host)?;
    let folder = args.dir.join(".hookc");
    let mut report = String::new();
    let mut plan: Vec<(PathBuf, String)> = Vec::new();
    for (name, text) in [("guard.yaml", policy), ("guard.test.yaml", tests)] {
        let path = folder.join(name);
        if path.exists() {
            report.push_str(&format!("kept {} (already there)\n", path.display()));
        } else {
            plan.push((path, text.to_owned()));
        }
    }
    let (settings, merged) = match args.host {
        Host::Copilot => (copilot_hooks_path(&args.dir), merge_copilot_hooks as Merge),
        Host::ClaudeCode | Host::Codex | Host::GeminiCli | Host::Cursor => (
            args.dir.join(".claude").join("settings.json"),
            merge_claude_settings as Merge,
        ),
    };
    let existing = match std::fs::read(&settings) {
        Ok(bytes) => Some(bytes),
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => None,
        Err(source) => {
            return Err(InitError::Io {
                what: "read",
                path: settings,
                source,
            })
        }
    };
    let merged = merged(existing.as_deref()).map_err(|problem| InitError::Settings {
        path: settings.clone(),
        problem,
    })?;
    match merged {
        Some(text) => plan.push((settings, text)),
        None => report.push_str(&format!(
            "kept {} (it already runs hookc hook)\n",
            settings.display()
        )),
    }
    finish(args, plan, report)
}

/// Writes (or, with `--print`, shows) the planned files.
fn finish(
    args: &InitArgs,
    plan: Vec<(PathBuf, String)>,
    mut report: String,
) -> Result<String, InitError> {
    for (path, text) in plan {
        if args.print {
            report.push_str(&format!("--- {}\n{text}", path.display()));
            if !text.ends_with('\n') {
                report.push('\n');
            }
            continue;
        }
        write(&path, &text)?;
        report.push_str(&format!("wrote {}\n", path.display()));
    }
    Ok(report)
}

fn write(path: &Path, text: &str) -> Result<(), InitError> {
    let io = |source| InitError::Io {
        what: "write",
        path: path.to_owned(),
        source,
    };
    if let Some(parent) = path.parent() {
        std::fs::create_dir_all(parent).map_err(io)?;
    }
    std::fs::write(path, text).map_err(io)
}

/// A host's settings merge: the file's bytes, if any, to the text to write
/// (`None`: nothing to add) or what is wrong with the file.
type Merge = fn(Option<&[u8]>) -> Result<Option<String>, String>;

/// Claude Code's settings with `hookc hook` on the guard under `.hookc/`.
fn merge_claude_settings(existing: Option<&[u8]>) -> Result<Option<String>, String> {
    merge_settings(
        existing,
        "hookc hook --host claude-code \"$CLAUDE_PROJECT_DIR\"/.hookc/guard.yaml",
    )
}

/// The settings with a `hooks` entry running `command` for each decision
/// event, merged into `existing` (the file's bytes, if any); `None` when
/// every event already runs it. An error names what is wrong with the file.
fn merge_settings(existing: Option<&[u8]>, command: &str) -> Result<Option<String>, String> {
    let wanted = CLAUDE_EVENTS.map(|(event, tools)| {
        let mut entry = Map::new();
        if tools {
            entry.insert("matcher".into(), json!("*"));
        }
        entry.insert(
            "hooks".into(),
            json!([{"type": "command", "command": command, "timeout": 10, "onFailure": "block"}]),
        );
        (event, Value::Object(entry))
    });
    // An entry of any matcher that already runs the command counts.
    let runs_it = |entry: &Value, _: &Value| {
        entry
            .get("hooks")
            .and_then(Value::as_array)
            .is_some_and(|hs| hs.iter().any(|h| h.get("command") == Some(&json!(command))))
    };
    merge_hooks(existing, &[], &wanted, runs_it)
}

/// `existing` (a settings file's bytes, if any; a JSON object) with each
/// `(event, entry)` of `wanted` appended to its `hooks.EVENT` list unless
/// `present(an entry there, entry)`, and each `(member, value)` of `top`
/// set where it is missing (a different value is refused). Every member the
/// file has is kept, in its order. `None` when nothing was added; an error
/// names what is wrong with the file.
fn merge_hooks(
    existing: Option<&[u8]>,
    top: &[(&str, Value)],
    wanted: &[(&str, Value)],
    present: impl Fn(&Value, &Value) -> bool,
) -> Result<Option<String>, String> {
    let mut root = match existing {
        None => Value::Object(Map::new()),
        Some(bytes) => {
            serde_json::from_slice(bytes).map_err(|e| format!("is not valid JSON ({e})"))?
        }
    };
    let Value::Object(members) = &mut root else {
        return Err("is not a JSON object".to_owned());
    };
    let mut added = false;
    for (name, value) in top {
        match members.get(*name) {
            Some(v) if v == value => {}
            Some(v) => return Err(format!("has `{name}: {v}` where hookc writes `{value}`")),
            None => {
                members.insert((*name).to_owned(), value.clone());
                added = true;
            }
        }
    }
    let hooks = members
        .entry("hooks")
        .or_insert_with(|| Value::Object(Map::new()));
    let Value::Object(hooks) = hooks else {
        return Err("has a `hooks` member that is not an object".to_owned());
    };
    for (event, entry) in wanted {
        let entries = hooks
            .entry(*event)
            .or_insert_with(|| Value::Array(Vec::new()));
        let Value::Array(entries) = entries else {
            return Err(format!("has a `hooks.{event}` member that is not a list"));
        };
        if entries.iter().any(|there| present(there, entry)) {
            continue;
        }
        entries.push(entry.clone());
        added = true;
    }
    if !added {
        return Ok(None);
    }
    serde_json::to_string_pretty(&root)
        .map(|mut text| {
            text.push('\n');
            Some(text)
        })
        .map_err(|e| format!("cannot be written back ({e})"))
}

/// GitHub Copilot's hook file `hookc init` writes: its own file among the
/// `.github/hooks/*.json` Copilot reads.
fn copilot_hooks_path(dir: &Path) -> PathBuf {
    dir.join(".github").join("hooks").join("hookc.json")
}

/// The Copilot events the hook file calls `hookc hook` for: those its
/// profile lets act (decide, add context, or run the guard's programs, as
/// the formatting after an edit on postToolUse).
const COPILOT_EVENTS: [&str; 6] = [
    "preToolUse",
    "permissionRequest",
    "postToolUse",
    "subagentStart",
    "agentStop",
    "subagentStop",
];

/// Copilot's hook file with one `command` entry per event running
/// `hookc hook --host copilot --event EVENT` on the guard under `.hookc/`,
/// from the repository root (`cwd: "."`), merged into `existing`. Copilot
/// names no variable for the project's folder, hence the relative path and
/// the `cwd`. An entry whose `bash` is the same command counts as there.
fn merge_copilot_hooks(existing: Option<&[u8]>) -> Result<Option<String>, String> {
    let wanted = COPILOT_EVENTS.map(|event| {
        let command = format!("hookc hook --host copilot --event {event} .hookc/guard.yaml");
        let entry = json!({
            "type": "command",
            "bash": command,
            "powershell": command,
            "cwd": ".",
            "timeoutSec": 30,
        });
        (event, entry)
    });
    let same_bash = |there: &Value, ours: &Value| there.get("bash") == ours.get("bash");
    merge_hooks(existing, &[("version", json!(1))], &wanted, same_bash)
}

#[cfg(test)]
#[allow(clippy::unwrap_used, clippy::indexing_slicing)]
mod tests {
    use super::*;

    const CMD: &str = "hookc hook --host claude-code p.yaml";

    #[test]
    fn settings_are_merged_keeping_what_is_there() {
        let before = br#"{"model": "opus", "hooks": {"PreToolUse": [{"matcher": "Bash",
            "hooks": [{"type": "command", "command": "mine.sh"}]}]}, "env": {"A": "1"}}"#;
        let merged = merge_settings(Some(before), CMD).unwrap().unwrap();
        let v: Value = serde_json::from_str(&merged).unwrap();
        assert_eq!(v["model"], "opus");
        assert_eq!(v["env"]["A"], "1");
        let pre = v["hooks"]["PreToolUse"].as_array().unwrap();
        assert_eq!(pre.len(), 2, "{merged}");
        assert_eq!(pre[0]["hooks"][0]["command"], "mine.sh");
        assert_eq!(pre[1]["matcher"], "*");
        assert_eq!(pre[1]["hooks"][0]["onFailure"], "block");
        assert!(v["hooks"]["Stop"][0].get("matcher").is_none());
        // Again: nothing to add.
        assert_eq!(merge_settings(Some(merged.as_bytes()), CMD).unwrap(), None);
    }

    #[test]
    fn copilot_hooks_are_merged_keeping_what_is_there() {
        let before = br#"{"version": 1, "hooks": {"preToolUse": [{"type": "command",
            "bash": "./audit.sh"}], "sessionEnd": [{"type": "command", "bash": "./bye.sh"}]},
            "note": "mine"}"#;
        let merged = merge_copilot_hooks(Some(before)).unwrap().unwrap();
        let v: Value = serde_json::from_str(&merged).unwrap();
        assert_eq!(v["note"], "mine");
        assert_eq!(v["hooks"]["sessionEnd"][0]["bash"], "./bye.sh");
        let pre = v["hooks"]["preToolUse"].as_array().unwrap();
        assert_eq!(pre.len(), 2, "{merged}");
        assert_eq!(pre[0]["bash"], "./audit.sh");
        assert_eq!(
            pre[1]["bash"],
            "hookc hook --host copilot --event preToolUse .hookc/guard.yaml"
        );
        assert_eq!(pre[1]["cwd"], ".");
        assert_eq!(merge_copilot_hooks(Some(merged.as_bytes())).unwrap(), None);
        // A new file gets its version.
        let fresh: Value =
            serde_json::from_str(&merge_copilot_hooks(None).unwrap().unwrap()).unwrap();
        assert_eq!(fresh["version"], 1);
        assert_eq!(
            fresh["hooks"].as_object().unwrap().len(),
            COPILOT_EVENTS.len()
        );
        // Another version is not ours to rewrite.
        let e = merge_copilot_hooks(Some(br#"{"version": 2, "hooks": {}}"#)).unwrap_err();
        assert!(e.contains("`version: 2`"), "{e}");
    }

    #[test]
    fn a_settings_file_of_another_shape_is_refused() {
        assert!(merge_settings(Some(b"[1]"), CMD)
            .unwrap_err()
            .contains("not a JSON object"));
        assert!(merge_settings(Some(b"{"), CMD)
            .unwrap_err()
            .contains("not valid JSON"));
        let e = merge_settings(Some(br#"{"hooks": {"Stop": {}}}"#), CMD).unwrap_err();
        assert!(e.contains("`hooks.Stop`"), "{e}");
    }
}

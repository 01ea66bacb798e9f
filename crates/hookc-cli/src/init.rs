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
//! a JSON object is refused rather than replaced. `--print` shows what would
//! be written and writes nothing.

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
        "`hookc init` sets up `claude-code` only so far; for `{0}`, copy the guard of the \
         guide's chapter on the host and call `hookc hook --host {0}` from its hook settings"
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
    let settings = args.dir.join(".claude").join("settings.json");
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
    let command = format!(
        "hookc hook --host {} \"$CLAUDE_PROJECT_DIR\"/.hookc/guard.yaml",
        host_name(args.host)
    );
    let merged =
        merge_settings(existing.as_deref(), &command).map_err(|problem| InitError::Settings {
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

/// The settings with a `hooks` entry running `command` for each decision
/// event, merged into `existing` (the file's bytes, if any); `None` when
/// every event already runs it. An error names what is wrong with the file.
fn merge_settings(existing: Option<&[u8]>, command: &str) -> Result<Option<String>, String> {
    let mut root = match existing {
        None => Value::Object(Map::new()),
        Some(bytes) => {
            serde_json::from_slice(bytes).map_err(|e| format!("is not valid JSON ({e})"))?
        }
    };
    let Value::Object(top) = &mut root else {
        return Err("is not a JSON object".to_owned());
    };
    let hooks = top
        .entry("hooks")
        .or_insert_with(|| Value::Object(Map::new()));
    let Value::Object(hooks) = hooks else {
        return Err("has a `hooks` member that is not an object".to_owned());
    };
    let mut added = false;
    for (event, tools) in CLAUDE_EVENTS {
        let entries = hooks
            .entry(event)
            .or_insert_with(|| Value::Array(Vec::new()));
        let Value::Array(entries) = entries else {
            return Err(format!("has a `hooks.{event}` member that is not a list"));
        };
        let runs_it = entries.iter().any(|entry| {
            entry
                .get("hooks")
                .and_then(Value::as_array)
                .is_some_and(|hs| hs.iter().any(|h| h.get("command") == Some(&json!(command))))
        });
        if runs_it {
            continue;
        }
        let mut entry = Map::new();
        if tools {
            entry.insert("matcher".into(), json!("*"));
        }
        entry.insert(
            "hooks".into(),
            json!([{"type": "command", "command": command, "timeout": 10, "onFailure": "block"}]),
        );
        entries.push(Value::Object(entry));
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

#[cfg(test)]
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

//! `hookc init --host NAME [--dir DIR] [--print]`: a starter policy for a
//! host, its test file, and the host's settings entries that call `hookc
//! hook` (`docs/src/hosts/index.md`).
//!
//! The policy and its tests are the guide's guard for the host
//! (`examples/hosts/<host>/`), written under `DIR/.hookc/` unless files of
//! those names are there already (they are never overwritten). The settings
//! are the host's own file and shape, one module per host ([`claude_code`],
//! [`codex`], [`gemini_cli`], [`cursor`], [`copilot`]): one entry per event the host's
//! profile lets decide (see [`events`]), each running `hookc hook --host
//! NAME` on the policy, with the host's fail-closed setting where it has
//! one. They are merged into the file by the one routine every host shares
//! ([`merge`]): every member the file has is kept, in its order, an entry
//! that already runs the same command is not added twice, and a file that
//! is not a JSON object of that shape is refused rather than replaced.
//! `--print` shows what would be written and writes nothing.

mod claude_code;
mod codex;
mod copilot;
mod cursor;
mod gemini_cli;
mod merge;

use crate::args::host_parser;
use hookc_binding::hosts::Host;
use serde_json::Value;
use std::path::{Path, PathBuf};
use thiserror::Error;

/// `hookc init`'s arguments.
#[derive(clap::Args)]
pub struct InitArgs {
    /// The host to set up.
    #[arg(long, value_parser = host_parser())]
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
    /// The starter guard shipped for the host does not compile against its
    /// profile, so the events to set up are unknown (a hookc bug).
    #[error(
        "the starter guard of `{0}` does not compile (a hookc bug: please report it); \
         copy `examples/hosts/{0}/guard.yaml` by hand and check it with `hookc check`"
    )]
    Starter(&'static str),
}

/// What `hookc init` writes for one host; each host's module has one.
struct Setup {
    /// The host's name on the command line.
    name: &'static str,
    /// The guide's guard for the host, and its tests.
    policy: &'static str,
    tests: &'static str,
    /// The settings file, relative to the project's folder.
    settings: &'static str,
    /// What each entry runs: `hookc hook` on the guard under `.hookc/`,
    /// found the way the host lets a command find the project; `{event}`
    /// stands for the entry's event (for hosts whose payloads do not name
    /// it).
    command: &'static str,
    /// Members a settings file must have besides `hooks`.
    required: fn() -> Vec<(&'static str, Value)>,
    /// The settings entry that runs the command for an event.
    entry: fn(&Event, &str) -> Value,
}

/// An event `hookc init` sets up, as its profile declares it.
struct Event {
    /// Its name, as the host spells it.
    name: String,
    /// Whether its payload names a tool (`tool_name`), so that hosts whose
    /// entries filter tools by a matcher give it one.
    tools: bool,
}

/// The host's setup.
fn setup(host: Host) -> &'static Setup {
    match host {
        Host::ClaudeCode => &claude_code::SETUP,
        Host::Codex => &codex::SETUP,
        Host::GeminiCli => &gemini_cli::SETUP,
        Host::Cursor => &cursor::SETUP,
        Host::Copilot => &copilot::SETUP,
    }
}

/// The events the settings call `hookc hook` for, in the profile's order.
///
/// Derived, not listed per host: the starter guard is compiled (it says
/// `host: NAME`, so its profile comes with it), and an event is set up when
/// the profile lets its hooks do anything (its `effects` are absent or not
/// empty: an event with `effects: []` reads no answer, and calling a hook
/// there would only cost time) or when a hook of the guard listens to it.
/// A profile that gains an event, or a guard that uses one, changes what
/// `hookc init` writes with no change here.
fn events(setup: &Setup) -> Result<Vec<Event>, InitError> {
    let input = hookc::compile::Input::new("guard.yaml", setup.policy);
    let compiled = hookc::compile::compile(&[input]);
    let Some(policy) = compiled.policy else {
        return Err(InitError::Starter(setup.name));
    };
    let used = |name: &str| policy.hooks().iter().any(|h| h.events.includes(name));
    Ok(policy
        .events()
        .iter()
        .filter(|e| e.effects().is_none_or(|fx| !fx.is_empty()) || used(e.name()))
        .map(|e| Event {
            name: e.name().to_owned(),
            tools: e
                .to_json()
                .pointer("/context/properties/tool_name")
                .is_some(),
        })
        .collect())
}

/// Runs `hookc init`: what it wrote (or would write), one line per file.
pub fn run(args: &InitArgs) -> Result<String, InitError> {
    let setup = setup(args.host);
    let folder = args.dir.join(".hookc");
    let mut report = String::new();
    let mut plan: Vec<(PathBuf, String)> = Vec::new();
    for (name, text) in [
        ("guard.yaml", setup.policy),
        ("guard.test.yaml", setup.tests),
    ] {
        let path = folder.join(name);
        if path.exists() {
            report.push_str(&format!("kept {} (already there)\n", path.display()));
        } else {
            plan.push((path, text.to_owned()));
        }
    }
    let settings = args.dir.join(setup.settings);
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
    let entries = events(setup)?
        .iter()
        .map(|e| {
            let command = setup.command.replace("{event}", &e.name);
            merge::Wanted {
                event: e.name.clone(),
                entry: (setup.entry)(e, &command),
                command,
            }
        })
        .collect();
    let wanted = merge::Merge {
        required: (setup.required)(),
        entries,
    };
    let merged =
        merge::merge(existing.as_deref(), wanted).map_err(|problem| InitError::Settings {
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

/// No members besides `hooks`: the settings of most hosts.
fn no_members() -> Vec<(&'static str, Value)> {
    Vec::new()
}

/// A matcher group, the entry shape Claude Code, Codex and Gemini CLI
/// share: `{"matcher": ..., "hooks": [handler]}`, without `matcher` when
/// there is none (the group then runs for every call of the event).
fn matcher_group(matcher: Option<&str>, handler: Value) -> Value {
    let mut group = serde_json::Map::new();
    if let Some(matcher) = matcher {
        group.insert("matcher".into(), matcher.into());
    }
    group.insert("hooks".into(), Value::Array(vec![handler]));
    Value::Object(group)
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

#[cfg(test)]
mod tests {
    use super::*;

    /// The events set up for `host`, space-separated.
    fn names(host: Host) -> String {
        let events = events(setup(host)).unwrap();
        let names: Vec<_> = events.into_iter().map(|e| e.name).collect();
        names.join(" ")
    }

    #[test]
    fn every_host_sets_up_the_events_its_profile_lets_decide() {
        assert_eq!(
            names(Host::ClaudeCode),
            "PreToolUse PermissionRequest PostToolUse PostToolUseFailure UserPromptSubmit Stop \
             SubagentStop SessionStart"
        );
        assert_eq!(
            names(Host::Codex),
            "PreToolUse PermissionRequest PostToolUse UserPromptSubmit Stop SessionStart"
        );
        // Not BeforeToolSelection, SessionEnd, PreCompress, Notification:
        // they read no answer.
        assert_eq!(
            names(Host::GeminiCli),
            "BeforeTool AfterTool BeforeAgent AfterAgent BeforeModel AfterModel SessionStart"
        );
        // Not afterShellExecution, afterFileEdit.
        assert_eq!(
            names(Host::Cursor),
            "beforeShellExecution beforeMCPExecution beforeReadFile beforeSubmitPrompt \
             preToolUse postToolUse sessionStart stop"
        );
        // Not sessionStart, userPromptSubmitted, errorOccurred and the
        // rest: Copilot reads no answer there.
        assert_eq!(
            names(Host::Copilot),
            "preToolUse permissionRequest postToolUse agentStop subagentStart subagentStop"
        );
    }

    #[test]
    fn tool_events_are_those_whose_payload_names_a_tool() {
        let tools: Vec<_> = events(setup(Host::ClaudeCode))
            .unwrap()
            .into_iter()
            .filter(|e| e.tools)
            .map(|e| e.name)
            .collect();
        assert_eq!(
            tools,
            [
                "PreToolUse",
                "PermissionRequest",
                "PostToolUse",
                "PostToolUseFailure"
            ]
        );
    }
}

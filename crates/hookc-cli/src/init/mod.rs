//! `hookc init --host NAME [--dir DIR] [--print]`: a starter policy for a
//! host, its test file, and the host's settings entries that call `hookc
//! hook` (`docs/src/hosts/index.md`).
//!
//! The policy and its tests are the guide's guard for the host
//! (`examples/hosts/<host>/`), written under `DIR/.hookc/` unless files of
//! those names are there already (they are never overwritten). The
//! settings are the host's own file and shape, as its profile's
//! `host_profile.settings` says (`hookc::hosts::SettingsSpec`; nothing
//! here is written per host): one entry per event the guard has hooks for
//! (see [`events`]), each running `hookc hook --host NAME` on the policy,
//! with the host's fail-closed setting where it has one. They are merged
//! into the file by the one routine every host shares ([`merge`]): every
//! member the file has is kept, in its order, an entry that already runs
//! the same command is not added twice, and a file that is not a JSON
//! object of that shape is refused rather than replaced. `--print` shows
//! what would be written and writes nothing.
//!
//! `--adopt` moves the command hooks the settings file already has under
//! hookc ([`adopt`]): into `.hookc/adopted.yaml`, which every entry then
//! runs before the guard; `--unadopt` puts the file back as it was.
//! `--managed` installs for the whole machine instead ([`managed`]): the
//! guard in hookc's system folder and the host's managed settings.

mod adopt;
mod managed;
mod merge;
mod merge_toml;

use crate::args::host_parser;
use hookc::hosts::{fill, Filled, SettingsSpec};
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
    #[arg(long, default_value = ".", conflicts_with = "managed")]
    dir: PathBuf,
    /// Install for every user of the machine, as its administrator: the
    /// guard in hookc's system folder (`/etc/hookc/HOST/`) and the host's
    /// managed settings (`/etc/claude-code/managed-settings.json`,
    /// `/etc/codex/requirements.toml`), whose hooks the host runs alone
    /// and no user or project setting removes; the guard is pinned.
    #[arg(long)]
    managed: bool,
    /// With `--managed`: the folder the system paths are taken under (to
    /// try an install without being root); the commands name the guard
    /// where it is written, under this folder.
    #[arg(long, default_value = "/", requires = "managed")]
    root: PathBuf,
    /// With `--managed`: the `hookc` the hooks run, by absolute path (this
    /// binary's by default).
    #[arg(long, value_name = "PATH", requires = "managed")]
    hookc: Option<PathBuf>,
    /// Print what would be written instead of writing it.
    #[arg(long)]
    print: bool,
    /// Pin the guard: each settings entry runs `hookc hook --pin DIGEST`,
    /// the guard's digest now, so that a guard changed without running
    /// `hookc init --pin` again blocks every call (run it again to re-pin).
    #[arg(long)]
    pin: bool,
    /// Move the command hooks the settings file has under hookc: each is
    /// run by hookc's one hook, in their order, its answer read as the
    /// host reads it, into `.hookc/adopted.yaml`; the settings as they
    /// were are kept for `--unadopt`.
    #[arg(long, conflicts_with_all = ["unadopt", "managed"])]
    adopt: bool,
    /// Put the settings file back as it was before `--adopt`, and remove
    /// the adopted hooks' policy.
    #[arg(long, conflicts_with = "managed")]
    unadopt: bool,
}

/// Why `hookc init` did not set the project up.
#[derive(Debug, Error)]
pub enum InitError {
    /// A file could not be read or written.
    #[error("cannot {what} `{path}`: {source}")]
    Io {
        /// `read`, `write` or `find`.
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
    /// The project's own guard, kept, does not compile, so the events to
    /// set up are unknown.
    #[error(
        "`{0}` does not compile, so the events to set up are unknown: \
         `hookc check {0}` says why; fix it and run `hookc init` again"
    )]
    Guard(PathBuf),
    /// `--adopt` or `--unadopt` cannot go ahead.
    #[error("{0}")]
    Adopt(String),
    /// `--managed` for a host without managed settings hookc writes.
    #[error(
        "`{0}` has no managed settings hookc writes (`--managed` is for claude-code and codex): \
         install its hooks per project, or in the user's settings by hand"
    )]
    NoManaged(&'static str),
    /// `--managed` on a system the host's profile names no file for.
    #[error("`{0}` names no managed settings file on `{1}`: write them by hand (docs/src/hosts/managed.md)")]
    NoManagedHere(&'static str, &'static str),
}

/// An event `hookc init` sets up, as its profile declares it.
struct Event {
    /// Its name, as the host spells it.
    name: String,
    /// Whether its payload names a tool (`tool_name`), so that hosts whose
    /// entries filter tools by a matcher give it one.
    tools: bool,
}

/// The events the settings call `hookc hook` for, in the profile's order:
/// those the guard has hooks for. Derived, not listed per host: the
/// starter guard is compiled (it says `host: NAME`, so its profile comes
/// with it). A host runs every registered hook on every call of its event
/// (Gemini CLI's AfterModel once per streamed chunk), so an event without
/// a hook would only cost time.
fn events(
    host: Host,
    guard: &str,
    adopted: Option<&str>,
    kept: Option<&Path>,
) -> Result<Vec<Event>, InitError> {
    let mut inputs = Vec::new();
    if let Some(adopted) = adopted {
        inputs.push(hookc::compile::Input::new(adopt::POLICY, adopted));
    }
    inputs.push(hookc::compile::Input::new("guard.yaml", guard));
    let compiled = hookc::compile::compile(&inputs);
    let Some(policy) = compiled.policy else {
        return Err(match kept {
            Some(path) => InitError::Guard(path.to_owned()),
            None => InitError::Starter(host.name()),
        });
    };
    let used = |name: &str| policy.hooks().iter().any(|h| h.events.includes(name));
    Ok(policy
        .events()
        .iter()
        .filter(|e| used(e.name()))
        .map(|e| Event {
            name: e.name().to_owned(),
            tools: e
                .to_json()
                .pointer("/context/properties/tool_name")
                .is_some(),
        })
        .collect())
}

/// The settings entry that runs `command` for `event`.
fn entry(settings: &SettingsSpec, event: &Event, command: &str) -> Value {
    let matcher = settings.tool_matcher.as_deref().filter(|_| event.tools);
    let value = |name: &str| -> Option<Filled> {
        let value = match name {
            "command" => Value::from(command),
            "event" => Value::from(event.name.as_str()),
            "matcher" => Value::from(matcher?),
            _ => return None,
        };
        Some(Filled { value, live: true })
    };
    fill(&settings.entry, &value).unwrap_or(Value::Null)
}

/// Runs `hookc init`: what it wrote (or would write), one line per file.
pub fn run(args: &InitArgs) -> Result<String, InitError> {
    if args.unadopt {
        return unadopt(args);
    }
    if args.managed {
        return managed::run(args);
    }
    let host = args.host;
    let settings_spec = &host.profile().settings();
    let (policy, tests) = host
        .profile()
        .guard()
        .ok_or(InitError::Starter(host.name()))?;
    let folder = args.dir.join(".hookc");
    // A guard already there is the project's own, maybe grown since the
    // last `init`: its events are the ones to set up, so that running
    // `init` again after a hook on a new event adds that event's entry.
    let guard_path = folder.join("guard.yaml");
    let kept = read_text(&guard_path)?;
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
    let settings = args.dir.join(&settings_spec.file);
    let existing = read_bytes(&settings)?;
    let guard_text = kept.as_deref().unwrap_or(policy);
    // The adopted hooks: taken from the settings now (`--adopt`), or those
    // an earlier adoption wrote.
    let adopted_path = folder.join(adopt::POLICY);
    let record_path = folder.join(adopt::RECORD);
    let mut settings_after_adopt: Option<String> = None;
    // The other hook files adoption changed: (file, text before, text after).
    let mut adopted_others: Vec<(PathBuf, String, String)> = Vec::new();
    let adopted = if args.adopt {
        if record_path.exists() {
            return Err(InitError::Adopt(format!(
                "hooks were adopted here already (`{}`): run `hookc init --unadopt` first, then adopt again",
                record_path.display()
            )));
        }
        // The settings file, then the other files the host reads hooks
        // from (`adopt_from`: Copilot's `.github/hooks/*.json`), each in
        // turn; the hooks numbered in that order.
        let facts = adopt::HostFacts::of(host).ok_or_else(|| {
            InitError::Adopt(format!(
                "the profile of `{}` does not compile (a hookc bug: please report it)",
                host.name()
            ))
        })?;
        let mut hooks = Vec::new();
        let mut others_written = Vec::new();
        for (path, bytes) in adoptable_files(args, &settings, existing.as_deref())? {
            let value =
                serde_json::from_slice::<Value>(&bytes).map_err(|e| InitError::Settings {
                    path: path.clone(),
                    problem: format!("is not valid JSON ({e})"),
                })?;
            let taken = adopt::take(&facts, &value, settings_spec).map_err(|problem| {
                InitError::Settings {
                    path: path.clone(),
                    problem,
                }
            })?;
            for why in &taken.left {
                report.push_str(&format!("left in {}: {why}\n", path.display()));
            }
            if taken.hooks.is_empty() {
                continue;
            }
            report.push_str(&format!(
                "adopted {} hook(s) from {}\n",
                taken.hooks.len(),
                path.display()
            ));
            hooks.extend(taken.hooks);
            let text = pretty(&taken.settings);
            if path == settings {
                settings_after_adopt = Some(text);
            } else {
                others_written.push((
                    path.clone(),
                    String::from_utf8_lossy(&bytes).into_owned(),
                    text.clone(),
                ));
                plan.push((path, text));
            }
        }
        if hooks.is_empty() {
            report.push_str(&format!(
                "nothing to adopt: {} has no command hook that hookc can run\n",
                settings.display()
            ));
            None
        } else {
            let text = adopt::policy(
                &facts,
                &hooks,
                &settings_spec.file,
                deadline_ms(&settings_spec.command),
            );
            plan.push((adopted_path.clone(), text.clone()));
            adopted_others = others_written;
            Some(text)
        }
    } else {
        read_text(&adopted_path)?
    };
    let wanted_events = events(
        host,
        guard_text,
        adopted.as_deref(),
        kept.is_some().then_some(guard_path.as_path()),
    )?;
    let pin = args.pin.then(|| {
        let mut words = String::from("hookc hook ");
        for text in adopted.iter().map(String::as_str).chain([guard_text]) {
            words.push_str(&format!("--pin {} ", crate::trust::digest(text.as_bytes())));
        }
        words
    });
    let entries = wanted_events
        .iter()
        .map(|e| {
            let mut command = settings_spec
                .commands
                .get(&e.name)
                .unwrap_or(&settings_spec.command)
                .replace("$event", &e.name);
            if adopted.is_some() {
                command = adopt::with_adopted(&command);
            }
            if let Some(pinned) = &pin {
                command = command.replacen("hookc hook ", pinned, 1);
            }
            merge::Wanted {
                event: e.name.clone(),
                entry: entry(settings_spec, e, &command),
                command,
            }
        })
        .collect();
    let wanted = merge::Merge {
        required: settings_spec.required.clone().into_iter().collect(),
        set: Vec::new(),
        ours: None,
        entries,
    };
    let base = settings_after_adopt
        .as_deref()
        .map(str::as_bytes)
        .or(existing.as_deref());
    let merged = merge::merge(base, wanted)
        .map_err(|problem| InitError::Settings {
            path: settings.clone(),
            problem,
        })?
        .or(settings_after_adopt);
    if args.adopt {
        if let Some(written) = merged.as_deref().filter(|_| adopted.is_some()) {
            let original = existing
                .as_deref()
                .map(|b| String::from_utf8_lossy(b).into_owned());
            let others: Vec<adopt::OtherFile> = adopted_others
                .iter()
                .map(|(path, before, after)| adopt::OtherFile {
                    file: path
                        .strip_prefix(&args.dir)
                        .unwrap_or(path)
                        .display()
                        .to_string(),
                    original: before.clone(),
                    written: crate::trust::digest(after.as_bytes()),
                })
                .collect();
            plan.push((
                record_path,
                adopt::record(&settings_spec.file, original.as_deref(), written, &others),
            ));
        }
    }
    match merged {
        Some(text) => plan.push((settings, text)),
        None => report.push_str(&format!(
            "kept {} (it already runs hookc hook)\n",
            settings.display()
        )),
    }
    let mut report = finish(args, plan, report, Readers::Project)?;
    // What the host needs before it runs a project's hooks: without it
    // the settings are there and nothing runs, and nothing says so.
    if let Some(trust) = &settings_spec.trust {
        report.push_str(&format!("note: {trust}\n"));
    }
    Ok(report)
}

/// The `--deadline MS` a settings command gives (the profile's), which
/// bounds every adopted program; 9 s when it gives none.
fn deadline_ms(command: &str) -> u64 {
    let mut words = command.split(' ');
    while let Some(word) = words.next() {
        if word == "--deadline" {
            if let Some(ms) = words.next().and_then(|w| w.parse().ok()) {
                return ms;
            }
        }
    }
    9000
}

/// The files `--adopt` reads hooks from, with their bytes: the settings
/// file (when there is one), then each `*.json` of the profile's
/// `adopt_from` folder but the settings file, by name.
fn adoptable_files(
    args: &InitArgs,
    settings: &Path,
    existing: Option<&[u8]>,
) -> Result<Vec<(PathBuf, Vec<u8>)>, InitError> {
    let mut files: Vec<(PathBuf, Vec<u8>)> = Vec::new();
    if let Some(bytes) = existing {
        files.push((settings.to_owned(), bytes.to_vec()));
    }
    let Some(folder) = &args.host.profile().settings().adopt_from else {
        return Ok(files);
    };
    let folder = args.dir.join(folder);
    let entries = match std::fs::read_dir(&folder) {
        Ok(entries) => entries,
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => return Ok(files),
        Err(source) => {
            return Err(InitError::Io {
                what: "read",
                path: folder,
                source,
            })
        }
    };
    let mut others: Vec<PathBuf> = entries
        .filter_map(Result::ok)
        .map(|e| e.path())
        .filter(|p| p.extension().is_some_and(|x| x == "json") && p.as_path() != settings)
        .collect();
    others.sort();
    for path in others {
        if let Some(bytes) = read_bytes(&path)? {
            files.push((path, bytes));
        }
    }
    Ok(files)
}

/// Settings as JSON text, as `init` writes them.
fn pretty(value: &Value) -> String {
    let mut text = serde_json::to_string_pretty(value).unwrap_or_default();
    text.push('\n');
    text
}

/// `hookc init --unadopt`: the settings file put back as it was before
/// `--adopt` (or removed, when there was none), if it is still as adopt
/// left it; the adopted hooks' policy and the record removed.
fn unadopt(args: &InitArgs) -> Result<String, InitError> {
    let folder = args.dir.join(".hookc");
    let record_path = folder.join(adopt::RECORD);
    let text = read_text(&record_path)?.ok_or_else(|| {
        InitError::Adopt(format!(
            "nothing was adopted here: `{}` is not there",
            record_path.display()
        ))
    })?;
    let record = adopt::read_record(&text).map_err(|problem| InitError::Settings {
        path: record_path.clone(),
        problem,
    })?;
    let settings = args.dir.join(&args.host.profile().settings().file);
    let current = read_text(&settings)?;
    if current.as_deref().map(adopt::normalized_digest) != Some(record.written.clone()) {
        return Err(InitError::Adopt(format!(
            "`{}` changed since the hooks were adopted, so it is not put back: \
             its text before adoption is the `original` of `{}`; restore it by hand, \
             then remove that file and `.hookc/{}`",
            settings.display(),
            record_path.display(),
            adopt::POLICY
        )));
    }
    // The other hook files, each as adopt wrote it.
    for other in &record.others {
        let path = args.dir.join(&other.file);
        let now = read_text(&path)?;
        if now.as_deref().map(|t| crate::trust::digest(t.as_bytes())) != Some(other.written.clone())
        {
            return Err(InitError::Adopt(format!(
                "`{}` changed since the hooks were adopted, so nothing is put back: \
                 its text before adoption is in `{}`; restore it by hand",
                path.display(),
                record_path.display(),
            )));
        }
    }
    let mut report = String::new();
    let adopted_path = folder.join(adopt::POLICY);
    if args.print {
        match &record.original {
            Some(text) => report.push_str(&format!("--- {}\n{text}", settings.display())),
            None => report.push_str(&format!("would remove {}\n", settings.display())),
        }
        for other in &record.others {
            let path = args.dir.join(&other.file);
            report.push_str(&format!("--- {}\n{}", path.display(), other.original));
        }
        report.push_str(&format!(
            "would remove {}\nwould remove {}\n",
            adopted_path.display(),
            record_path.display()
        ));
        return Ok(report);
    }
    match &record.original {
        Some(text) => {
            write(&settings, text)?;
            report.push_str(&format!("restored {}\n", settings.display()));
        }
        None => {
            remove(&settings)?;
            report.push_str(&format!(
                "removed {} (there was none)\n",
                settings.display()
            ));
        }
    }
    for other in &record.others {
        let path = args.dir.join(&other.file);
        write(&path, &other.original)?;
        report.push_str(&format!("restored {}\n", path.display()));
    }
    for path in [adopted_path, record_path] {
        remove(&path)?;
        report.push_str(&format!("removed {}\n", path.display()));
    }
    Ok(report)
}

/// A file's text; `None` when it is not there.
fn read_text(path: &Path) -> Result<Option<String>, InitError> {
    read_bytes(path)?
        .map(|bytes| {
            String::from_utf8(bytes).map_err(|_| InitError::Settings {
                path: path.to_owned(),
                problem: "is not UTF-8 text".to_owned(),
            })
        })
        .transpose()
}

/// A file's bytes; `None` when it is not there.
fn read_bytes(path: &Path) -> Result<Option<Vec<u8>>, InitError> {
    match std::fs::read(path) {
        Ok(bytes) => Ok(Some(bytes)),
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => Ok(None),
        Err(source) => Err(InitError::Io {
            what: "read",
            path: path.to_owned(),
            source,
        }),
    }
}

fn remove(path: &Path) -> Result<(), InitError> {
    match std::fs::remove_file(path) {
        Err(e) if e.kind() != std::io::ErrorKind::NotFound => Err(InitError::Io {
            what: "remove",
            path: path.to_owned(),
            source: e,
        }),
        _ => Ok(()),
    }
}

/// Who reads the files `init` writes, which says how they are written.
#[derive(Clone, Copy, PartialEq, Eq)]
enum Readers {
    /// The project's: written as any file of the project.
    Project,
    /// Every user of the machine (`--managed`): mode 0644, new folders
    /// 0755 ([`managed::write_shared`]).
    Everyone,
}

/// Writes (or, with `--print`, shows) the planned files.
fn finish(
    args: &InitArgs,
    plan: Vec<(PathBuf, String)>,
    mut report: String,
    readers: Readers,
) -> Result<String, InitError> {
    for (path, text) in plan {
        if args.print {
            report.push_str(&format!("--- {}\n{text}", path.display()));
            if !text.ends_with('\n') {
                report.push('\n');
            }
            continue;
        }
        match readers {
            Readers::Project => write(&path, &text)?,
            Readers::Everyone => managed::write_shared(&path, &text)?,
        }
        let mode = if readers == Readers::Everyone {
            " (mode 0644)"
        } else {
            ""
        };
        report.push_str(&format!("wrote {}{mode}\n", path.display()));
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

    fn host(name: &str) -> Host {
        Host::from_name(name).unwrap()
    }

    fn guard(name: &str) -> &'static str {
        host(name).profile().guard().unwrap().0
    }

    /// The events set up for `host`, space-separated.
    fn names(name: &str) -> String {
        let events = events(host(name), guard(name), None, None).unwrap();
        let names: Vec<_> = events.into_iter().map(|e| e.name).collect();
        names.join(" ")
    }

    #[test]
    fn every_host_sets_up_the_events_its_guard_has_hooks_for() {
        for name in hookc::hosts::names() {
            // The events the guard's hooks name, one or a list each.
            let doc: serde_yaml::Value = serde_yaml::from_str(guard(name)).unwrap();
            let mut named = std::collections::BTreeSet::new();
            for hook in doc["hooks"].as_sequence().unwrap() {
                match &hook["event"] {
                    serde_yaml::Value::Sequence(list) => {
                        named.extend(list.iter().filter_map(|e| e.as_str()))
                    }
                    one => named.extend(one.as_str()),
                }
            }
            let set_up: std::collections::BTreeSet<_> =
                names(name).split(' ').map(str::to_owned).collect();
            let named: std::collections::BTreeSet<_> =
                named.into_iter().map(str::to_owned).collect();
            assert_eq!(set_up, named, "{name}");
        }
        // Not BeforeModel or AfterModel: the guard has no hook there, and
        // AfterModel runs once per streamed chunk.
        assert!(!names("gemini-cli").contains("Model"));
    }

    #[test]
    fn a_guard_with_one_hook_sets_up_one_event() {
        let guard = "host: claude-code\nhooks:\n  - {id: a, event: Stop, action: {type: deny, reason: go on}}\n";
        let events = events(host("claude-code"), guard, None, None).unwrap();
        let names: Vec<_> = events.iter().map(|e| e.name.as_str()).collect();
        assert_eq!(names, ["Stop"]);
    }

    #[test]
    fn tool_events_are_those_whose_payload_names_a_tool() {
        let tools: Vec<_> = events(host("claude-code"), guard("claude-code"), None, None)
            .unwrap()
            .into_iter()
            .filter(|e| e.tools)
            .map(|e| e.name)
            .collect();
        assert!(tools.contains(&"PreToolUse".to_owned()), "{tools:?}");
        assert!(
            !tools.iter().any(|t| t == "Stop" || t == "SessionStart"),
            "{tools:?}"
        );
    }
}

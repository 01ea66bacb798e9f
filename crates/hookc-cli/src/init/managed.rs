//! `hookc init --managed --host NAME [--root DIR] [--hookc PATH]
//! [--print]`: a policy the developer cannot bypass, installed by the
//! organisation (`docs/src/hosts/managed.md`).
//!
//! Writes, under the root (`/` unless `--root`):
//! - the guard and its tests in hookc's machine-wide folder
//!   ([`GUARD_DIRS`]: `/etc/hookc/NAME/` on Linux and macOS), kept when
//!   there (its events are the ones set up, as the project's init does);
//! - the host's managed settings, at the path its profile gives for this
//!   operating system (`host_profile.settings.managed`, e.g.
//!   `/etc/claude-code/managed-settings.json`), merged as the project's
//!   settings are ([`super::merge`], [`super::merge_toml`]): entries
//!   running `hookc hook` on the guard by absolute paths (the binary and
//!   the guard, so that no project folder and no `PATH` of the developer's
//!   is involved), pinned to the guard's digest, and the members that make
//!   them the only hooks the host runs (`allowManagedHooksOnly: true`).
//!
//! Files are written mode 0644 and the folders made 0755: every user's
//! host reads them, only their owner (root) writes them.

use super::{entry, events, merge, merge_toml, InitArgs, InitError};
use hookc::hosts::{ManagedFormat, ManagedSpec};
use hookc_binding::hosts::Host;
use serde_json::Value;
use std::path::{Component, Path, PathBuf};

/// hookc's machine-wide folder for the guards, by operating system; the
/// guard of host NAME is `FOLDER/NAME/guard.yaml`.
const GUARD_DIRS: &[(&str, &str)] = &[
    ("linux", "/etc/hookc"),
    ("macos", "/etc/hookc"),
    ("windows", r"C:\ProgramData\hookc"),
];

/// The absolute path `system` as it is under `root`.
fn under(root: &Path, system: &str) -> PathBuf {
    let mut out = root.to_path_buf();
    out.extend(
        Path::new(system)
            .components()
            .filter(|c| matches!(c, Component::Normal(_))),
    );
    out
}

/// `path` quoted for a POSIX shell where it needs to be.
fn shell_quote(path: &Path) -> String {
    let text = path.to_string_lossy();
    let plain = |c: char| c.is_ascii_alphanumeric() || "/._-+:@%,=".contains(c);
    if !text.is_empty() && text.chars().all(plain) {
        text.into_owned()
    } else {
        format!("'{}'", text.replace('\'', r"'\''"))
    }
}

/// Runs `hookc init --managed`: what it wrote (or would write), one line
/// per file.
pub(super) fn run(args: &InitArgs) -> Result<String, InitError> {
    let host = args.host;
    let os = std::env::consts::OS;
    let spec = host
        .profile()
        .settings()
        .managed
        .as_ref()
        .ok_or(InitError::NoManaged(host.name()))?;
    let (system_file, guard_dir) = match (
        spec.files.get(os),
        GUARD_DIRS.iter().find(|(o, _)| *o == os),
    ) {
        (Some(file), Some((_, dir))) => (file.as_str(), *dir),
        _ => return Err(InitError::NoManagedHere(host.name(), os)),
    };
    let root = std::path::absolute(&args.root).map_err(|source| InitError::Io {
        what: "find",
        path: args.root.clone(),
        source,
    })?;
    let folder = under(&root, guard_dir).join(host.name());
    let guard_path = folder.join("guard.yaml");
    let (starter, tests) = host
        .profile()
        .guard()
        .ok_or(InitError::Starter(host.name()))?;
    let kept = super::read_text(&guard_path)?;
    let guard = kept.as_deref().unwrap_or(starter);
    let wanted_events = events(
        host,
        guard,
        None,
        kept.as_ref().map(|_| guard_path.as_path()),
    )?;
    let mut report = String::new();
    let mut plan: Vec<(PathBuf, String)> = Vec::new();
    for (name, text) in [("guard.yaml", starter), ("guard.test.yaml", tests)] {
        let path = folder.join(name);
        if path.exists() {
            report.push_str(&format!("kept {} (already there)\n", path.display()));
        } else {
            plan.push((path, text.to_owned()));
        }
    }
    let hookc = match &args.hookc {
        Some(path) => std::path::absolute(path).map_err(|source| InitError::Io {
            what: "find",
            path: path.clone(),
            source,
        })?,
        None => std::env::current_exe().map_err(|source| InitError::Io {
            what: "find",
            path: PathBuf::from("hookc"),
            source,
        })?,
    };
    let pin = crate::trust::digest(guard.as_bytes());
    let settings = under(&root, system_file);
    let existing = super::read_bytes(&settings)?;
    let wanted = wanted_merge(
        host,
        spec,
        &wanted_events,
        &hookc,
        &pin,
        &guard_path,
        &folder,
    );
    let merged = match spec.format {
        ManagedFormat::Json => merge::merge(existing.as_deref(), wanted),
        ManagedFormat::Toml => merge_toml::merge(existing.as_deref(), wanted),
    }
    .map_err(|problem| InitError::Settings {
        path: settings.clone(),
        problem,
    })?;
    match merged {
        Some(text) => plan.push((settings, text)),
        None => report.push_str(&format!(
            "kept {} (it already runs hookc hook on the guard as pinned)\n",
            settings.display()
        )),
    }
    let mut report = super::finish(args, plan, report, super::Readers::Everyone)?;
    report.push_str(&format!(
        "note: the guard is pinned (sha256 of {}): after any change to it, review it and run \
         `hookc init --managed` again to re-pin; until then every call is blocked\n",
        guard_path.display()
    ));
    report.push_str(&format!(
        "note: the hooks run {}: keep it, the guard and their folders owned by root and \
         writable by nobody else\n",
        hookc.display()
    ));
    if let Some(note) = &spec.note {
        report.push_str(&format!("note: {note}\n"));
    }
    Ok(report)
}

/// The members and entries of the managed settings.
fn wanted_merge(
    host: Host,
    spec: &ManagedSpec,
    wanted_events: &[super::Event],
    hookc: &Path,
    pin: &str,
    guard: &Path,
    folder: &Path,
) -> merge::Merge {
    let settings = host.profile().settings();
    let fill = |v: &Value| match v.as_str() {
        Some("$guard_dir") => Value::from(folder.to_string_lossy().into_owned()),
        _ => v.clone(),
    };
    let entries = wanted_events
        .iter()
        .map(|e| {
            let command = spec
                .commands
                .get(&e.name)
                .unwrap_or(&spec.command)
                .replace("$hookc", &shell_quote(hookc))
                .replace("$pin", pin)
                .replace("$guard", &shell_quote(guard));
            merge::Wanted {
                event: e.name.clone(),
                entry: entry(settings, e, &command),
                command,
            }
        })
        .collect();
    // An entry that runs this guard for this host is ours whatever runs
    // it: after `hookc` moved (`--hookc`, an upgrade), init again replaces
    // the entries that name the old binary rather than adding beside them.
    let marks = [
        format!(" hook --host {} ", host.name()),
        format!(" {}", shell_quote(guard)),
    ];
    let ours = move |c: &str| marks.iter().all(|m| c.contains(m.as_str()));
    merge::Merge {
        ours: Some(Box::new(ours)),
        required: spec
            .required
            .iter()
            .map(|(k, v)| (k.clone(), fill(v)))
            .collect(),
        set: spec.set.iter().map(|(k, v)| (k.clone(), fill(v))).collect(),
        entries,
    }
}

/// Writes `text` to `path` readable by every user (0644), making the
/// missing folders on the way readable and searchable by every user
/// (0755).
pub(super) fn write_shared(path: &Path, text: &str) -> Result<(), InitError> {
    let io = |p: &Path| {
        let p = p.to_owned();
        move |source| InitError::Io {
            what: "write",
            path: p,
            source,
        }
    };
    if let Some(parent) = path.parent() {
        let missing: Vec<&Path> = parent.ancestors().take_while(|a| !a.exists()).collect();
        std::fs::create_dir_all(parent).map_err(io(parent))?;
        for dir in missing {
            set_mode(dir, 0o755).map_err(io(dir))?;
        }
    }
    std::fs::write(path, text).map_err(io(path))?;
    set_mode(path, 0o644).map_err(io(path))
}

#[cfg(unix)]
fn set_mode(path: &Path, mode: u32) -> std::io::Result<()> {
    use std::os::unix::fs::PermissionsExt;
    std::fs::set_permissions(path, std::fs::Permissions::from_mode(mode))
}

#[cfg(not(unix))]
fn set_mode(_: &Path, _: u32) -> std::io::Result<()> {
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn system_paths_land_under_the_root() {
        let root = Path::new("/tmp/r");
        assert_eq!(
            under(root, "/etc/claude-code/managed-settings.json"),
            Path::new("/tmp/r/etc/claude-code/managed-settings.json")
        );
        assert_eq!(under(Path::new("/"), "/etc/hookc"), Path::new("/etc/hookc"));
    }

    #[test]
    fn paths_are_quoted_only_when_they_need_it() {
        assert_eq!(shell_quote(Path::new("/usr/bin/hookc")), "/usr/bin/hookc");
        assert_eq!(
            shell_quote(Path::new("/Library/Application Support/x")),
            "'/Library/Application Support/x'"
        );
        assert_eq!(shell_quote(Path::new("/a'b")), r"'/a'\''b'");
    }

    #[test]
    fn the_hosts_with_managed_settings_name_a_file_per_system() {
        for name in ["claude-code", "codex"] {
            let host = Host::from_name(name).unwrap();
            let spec = host.profile().settings().managed.as_ref().unwrap();
            for os in ["linux", "macos", "windows"] {
                let file = spec.files.get(os).unwrap();
                assert!(
                    file.starts_with('/') || file.starts_with("C:\\"),
                    "{name} {os}"
                );
            }
        }
    }
}

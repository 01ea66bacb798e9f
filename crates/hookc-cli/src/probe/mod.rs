//! `hookc probe --host NAME [--dir DIR]`: is the hook actually firing? The
//! real host, installed on this machine, run headless against a scripted
//! model on 127.0.0.1, in a throw-away copy of the project's hook settings
//! and guard, playing a few of the guard's own test cases: a shell command
//! the guard denies, one it lets through, and the denied one again with
//! the guard gone (a hook that cannot decide must block). Each is judged by
//! what the host did (whether a logging stand-in of the command's program
//! ran), not by what hookc answered (`docs/src/hosts/probe.md`).
//!
//! How to run each host is its profile's `host_profile.probe`
//! ([`hookc::hosts::ProbeSpec`]): nothing here is written per host. The
//! pieces: [`cases`] chooses the cases, [`stage`] builds the throw-away
//! world, [`model`] is the scripted model.

mod cases;
mod model;
mod stage;

use crate::args::host_parser;
use crate::exit::Exit;
use cases::{CaseInput, Played};
use hookc::hosts::ProbeSpec;
use hookc_binding::hosts::Host;
use model::{ModelApi, ModelServer, ToolCall};
use serde_json::Value;
use stage::{Stage, StageError};
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::time::{Duration, Instant};
use thiserror::Error;

/// `hookc probe`'s arguments.
#[derive(clap::Args)]
pub struct ProbeArgs {
    /// The host to run (installed, on PATH).
    #[arg(long, value_parser = host_parser())]
    host: Host,
    /// The project's folder (its hook settings and guard are copied, never
    /// changed).
    #[arg(long, default_value = ".")]
    dir: PathBuf,
    /// Seconds one run of the host may take.
    #[arg(long, default_value_t = 120, value_name = "SECONDS")]
    timeout: u64,
    /// Keep the throw-away folder (its path is printed), to look at what
    /// the host did.
    #[arg(long)]
    keep: bool,
}

/// Why `hookc probe` could not probe.
#[derive(Debug, Error)]
pub enum ProbeError {
    /// The host has no command-line agent to run.
    #[error("{0} has no command-line agent hookc can run headless: its answers are checked against its schemas only (docs/src/hosts/probe.md)")]
    NoCli(&'static str),
    /// The host's program is not on PATH.
    #[error("`{program}` is not on PATH: install {title} ({install}) to probe it")]
    HostMissing {
        /// The program.
        program: String,
        /// The host's name for people.
        title: &'static str,
        /// How to install it.
        install: String,
    },
    /// The project has no settings for the host.
    #[error("no `{0}`: the project is not set up for this host; run `hookc init --host {1}`")]
    NoSettings(PathBuf, &'static str),
    /// The settings run no `hookc hook`.
    #[error("`{0}` runs no `hookc hook`: run `hookc init --host {1}`")]
    NoHook(PathBuf, &'static str),
    /// The settings name a guard outside the project: the probe copies
    /// only the project's own files, and must never write or remove the
    /// user's.
    #[error("`{0}` names the guard `{1}`, outside the project: the probe runs a copy of the project's own files; run it where the guard is inside the project (`hookc init` puts it in `.hookc/`)")]
    GuardOutside(PathBuf, PathBuf),
    /// The guard's test file is not there.
    #[error("the probe plays the guard's own test cases, and `{0}` is not there: write one (`hookc init` does) beside the guard")]
    NoTests(PathBuf),
    /// A file could not be read.
    #[error("cannot read `{0}`: {1}")]
    Read(PathBuf, std::io::Error),
    /// The test file does not parse.
    #[error("{0}")]
    Tests(String),
    /// The guard does not load.
    #[error("{0}")]
    Guard(String),
    /// No case the probe can play.
    #[error("none of the cases of `{0}` denies {1}: add one (a shell command the guard denies, one program with plain arguments naming nothing outside the project, as `rm -rf build`)")]
    NoDeniedCase(PathBuf, String),
    /// The throw-away folder could not be set up.
    #[error(transparent)]
    Stage(#[from] StageError),
    /// The scripted model could not start.
    #[error("cannot start the scripted model on 127.0.0.1: {0}")]
    Model(std::io::Error),
    /// The host could not be started.
    #[error("cannot run `{0}`: {1}")]
    Spawn(String, std::io::Error),
    /// The profile's probe section names a wire hookc does not speak (a
    /// hookc bug).
    #[error("the profile of `{0}` names the model API `{1}`, which hookc does not speak (a hookc bug: please report it)")]
    ModelApi(&'static str, String),
}

/// What one played case found.
#[derive(Debug)]
struct ProbeFinding {
    /// What was played.
    kind: Trial,
    case: Played,
    /// Whether the host did as the guard decided.
    outcome: Enforcement,
    /// What happened, in words.
    said: String,
    /// How many times the host ran `hookc` (when it can be counted).
    hookc_calls: Option<usize>,
}

/// The three trials of a probe.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Trial {
    /// A command the guard denies: it must not run.
    Denied,
    /// A command the guard lets through: it must run.
    Allowed,
    /// The denied command with the guard gone: a hook that cannot decide
    /// must block.
    Failure,
}

impl Trial {
    fn name(self) -> &'static str {
        match self {
            Trial::Denied => "denied",
            Trial::Allowed => "allowed",
            Trial::Failure => "failure",
        }
    }
}

/// The judgement of one case.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Enforcement {
    /// The host did as the guard decided.
    Enforced,
    /// It did not.
    NotEnforced,
    /// The host ended before the case was played (it asked the model
    /// nothing and ran no hook): nothing can be said.
    Unknown,
}

/// Runs `hookc probe`: the report on standard output; exit 0 when every
/// case was enforced, 1 when one was not.
pub fn run(args: &ProbeArgs) -> Result<Exit, ProbeError> {
    let host = args.host;
    let profile = host.profile();
    let spec = profile.probe().ok_or(ProbeError::NoCli(profile.title()))?;
    let wire = ModelApi::from_name(&spec.wire)
        .ok_or_else(|| ProbeError::ModelApi(host.name(), spec.wire.clone()))?;
    let path = std::env::var_os("PATH").unwrap_or_default();
    let program = which(&spec.program, &path).ok_or_else(|| ProbeError::HostMissing {
        program: spec.program.clone(),
        title: host.profile().title(),
        install: format!("`npm install -g {}`", spec.package),
    })?;
    let version = host_version(&program, &spec.version_args);

    // The project's settings, guard and tests.
    let dir =
        std::fs::canonicalize(&args.dir).map_err(|e| ProbeError::Read(args.dir.clone(), e))?;
    let settings_rel = PathBuf::from(&profile.settings().file);
    let settings_path = dir.join(&settings_rel);
    if !settings_path.is_file() {
        return Err(ProbeError::NoSettings(settings_path, host.name()));
    }
    let settings_text = std::fs::read_to_string(&settings_path)
        .map_err(|e| ProbeError::Read(settings_path.clone(), e))?;
    let guard_rel = guard_in_settings(&settings_text)
        .ok_or_else(|| ProbeError::NoHook(settings_path.clone(), host.name()))?;
    // Copied into the throw-away folder, and removed there for the failure
    // case: a path that is absolute or climbs out would name the user's
    // own file.
    if !inside(&guard_rel) {
        return Err(ProbeError::GuardOutside(settings_path, guard_rel));
    }
    let guard = dir.join(&guard_rel);
    let tests_path = guard.with_extension("test.yaml");
    if !tests_path.is_file() {
        return Err(ProbeError::NoTests(tests_path));
    }
    // Not through the artifact cache: the probe writes nothing in the
    // project (the host's calls, on the copy, cache in the copy).
    let policy =
        hookc::files::load_policy(&hookc::files::policy_files(std::slice::from_ref(&guard)))
            .map_err(|e| ProbeError::Guard(e.render().trim_end().to_owned()))?
            .policy;
    let tests_text = std::fs::read_to_string(&tests_path)
        .map_err(|e| ProbeError::Read(tests_path.clone(), e))?;
    let tests_dir = tests_path.parent().unwrap_or(&dir).to_owned();
    let tests = crate::policy_test::file::TestFile::parse(
        &tests_path.display().to_string(),
        &tests_text,
        &tests_dir,
    )
    .map_err(|e| ProbeError::Tests(e.render()))?;
    let chosen = cases::choose(
        host,
        &spec.shell,
        &policy,
        tests.cases().iter().map(|c| CaseInput {
            name: &c.name,
            event: &c.event,
            context: &c.context,
        }),
    );
    let denied = chosen.denied.ok_or_else(|| {
        ProbeError::NoDeniedCase(
            tests_path.clone(),
            format!("a `{}` call on {}", spec.shell.tool, spec.shell.event),
        )
    })?;

    // The throw-away world.
    let stage = Stage::new(args.keep)?;
    stage.copy_file(&dir, &settings_rel)?;
    let guard_folder = guard_rel.parent().unwrap_or(Path::new("")).to_owned();
    stage.copy_folder(&dir, &guard_folder)?;
    if let Some(user_home) = std::env::var_os("HOME").map(PathBuf::from) {
        let renamed: Vec<PathBuf> = dir
            .ancestors()
            .filter(|a| a.parent().is_some())
            .map(Path::to_owned)
            .collect();
        for rel in &spec.copy {
            stage.copy_config(&user_home, rel, &renamed)?;
        }
    }
    let hookc = which("hookc", &path);
    if let Some(real) = &hookc {
        stage.counting_hookc(real)?;
    }
    let mut played = vec![(Trial::Denied, denied.clone())];
    if let Some(allowed) = chosen.allowed {
        played.push((Trial::Allowed, allowed));
    }
    played.push((Trial::Failure, denied));
    for (_, case) in &played {
        if let Some(program) = case.words.first() {
            stage.stand_in(program)?;
        }
    }

    let run = Runner {
        spec,
        wire,
        program: &program,
        stage: &stage,
        path: &path,
        timeout: Duration::from_secs(args.timeout),
        counted: hookc.is_some(),
    };
    let mut findings = Vec::new();
    for (kind, case) in played {
        if kind == Trial::Failure {
            let copy = stage.project.join(&guard_rel);
            std::fs::remove_file(&copy).map_err(|e| StageError::Io {
                what: "remove",
                path: copy,
                source: e,
            })?;
        }
        findings.push(run.play(kind, case)?);
    }

    print_report(host, &version, &dir, hookc.as_deref(), &findings);
    let all = findings.iter().all(|f| f.outcome == Enforcement::Enforced);
    Ok(Exit::findings_if(!all))
}

/// What a run of the host needs.
struct Runner<'a> {
    spec: &'a ProbeSpec,
    wire: ModelApi,
    program: &'a Path,
    stage: &'a Stage,
    path: &'a std::ffi::OsStr,
    timeout: Duration,
    /// Whether the stage's `hookc` counts the host's calls (a `hookc` is on
    /// PATH).
    counted: bool,
}

impl Runner<'_> {
    /// Runs the host once on `case` and judges what it did.
    fn play(&self, kind: Trial, case: Played) -> Result<ProbeFinding, ProbeError> {
        let stage = self.stage;
        stage.clear_logs();
        let call = ToolCall {
            name: self.spec.shell.tool.clone(),
            arguments: fill_value(&self.spec.shell.arguments, &[("$command", &case.command)]),
        };
        let server =
            ModelServer::start(self.wire, &self.spec.model, call).map_err(ProbeError::Model)?;
        let home = stage.home.to_string_lossy().into_owned();
        let project = stage.project.to_string_lossy().into_owned();
        let prompt = "Run the one command you are given, then say done.";
        let vars = [
            ("$url", server.url()),
            ("$home", &home),
            ("$project", &project),
            ("$prompt", prompt),
        ];
        for rel in &self.spec.dirs {
            stage.make_dir(rel)?;
        }
        for (rel, text) in &self.spec.files {
            stage.write_config(rel, &fill(text, &vars))?;
        }
        let mut command = Command::new(self.program);
        command
            .args(self.spec.args.iter().map(|a| fill(a, &vars)))
            .current_dir(&stage.project)
            .env_clear()
            .envs(base_env(stage, self.path))
            .envs(self.spec.env.iter().map(|(k, v)| (k, fill(v, &vars))))
            .stdin(Stdio::null());
        let out_path = stage.root.join(format!("host-{}.out", kind.name()));
        let out = std::fs::File::create(&out_path).map_err(|e| StageError::Io {
            what: "create",
            path: out_path.clone(),
            source: e,
        })?;
        let err = out.try_clone().map_err(|e| StageError::Io {
            what: "open",
            path: out_path.clone(),
            source: e,
        })?;
        command.stdout(out).stderr(err);
        own_process_group(&mut command);
        let finished = run_bounded(command, self.timeout)
            .map_err(|e| ProbeError::Spawn(self.program.display().to_string(), e))?;
        let ran = stage.ran().contains(&case.logged());
        let hookc_calls = self.counted.then(|| stage.hookc_calls());
        let model_calls = server.model_calls();
        // Whether the guard's reason came back to the model (its first
        // line: hosts add their own words around it).
        let told = case
            .reason
            .as_deref()
            .and_then(|r| r.lines().next())
            .is_some_and(|r| server.saw_after_first(r));
        drop(server);
        let played = HostRun {
            ran,
            finished,
            model_calls,
            hookc_calls,
        };
        let (outcome, mut said) = judge(kind, &played, self.timeout);
        if told && kind == Trial::Denied {
            said.push_str(", and the guard's reason reached the model");
        }
        if outcome != Enforcement::Enforced {
            if let Some(last) = last_words(&out_path) {
                said.push_str(&format!("; the host's last words: {last}"));
            }
        }
        Ok(ProbeFinding {
            kind,
            case,
            outcome,
            said,
            hookc_calls,
        })
    }
}

/// What one run of the host did.
struct HostRun {
    /// Whether the case's command ran.
    ran: bool,
    /// Whether the host ended by itself.
    finished: bool,
    /// The model calls it made.
    model_calls: usize,
    /// The times it ran `hookc`, when counted.
    hookc_calls: Option<usize>,
}

/// Whether the host did as the guard decided, and what it did, in words.
/// `denied` and `failure` (the guard gone) must not run the command,
/// `allowed` must. A host that asked the model nothing and ran no hook
/// ended before the case was played: unknown.
fn judge(kind: Trial, run: &HostRun, timeout: Duration) -> (Enforcement, String) {
    let should_run = kind == Trial::Allowed;
    let (outcome, what) = if run.ran {
        let outcome = if should_run {
            Enforcement::Enforced
        } else {
            Enforcement::NotEnforced
        };
        (outcome, "the host ran it".to_owned())
    } else if run.model_calls == 0 && run.hookc_calls == Some(0) {
        (
            Enforcement::Unknown,
            "could not tell: the host ended before it asked the model, without running hookc"
                .to_owned(),
        )
    } else if run.model_calls == 0 {
        let outcome = if should_run {
            Enforcement::NotEnforced
        } else {
            Enforcement::Enforced
        };
        (
            outcome,
            "a hook blocked the prompt before the model was asked".to_owned(),
        )
    } else if run.hookc_calls == Some(0) {
        (
            Enforcement::Unknown,
            "the host did not run it, but it never ran hookc: something else stopped it".to_owned(),
        )
    } else {
        let outcome = if should_run {
            Enforcement::NotEnforced
        } else {
            Enforcement::Enforced
        };
        (outcome, "the host did not run it".to_owned())
    };
    if run.finished {
        (outcome, what)
    } else {
        (
            outcome,
            format!(
                "{what}; the host did not finish in {} s and was stopped",
                timeout.as_secs()
            ),
        )
    }
}

/// The last line the host printed, shortened.
fn last_words(path: &Path) -> Option<String> {
    let text = std::fs::read_to_string(path).ok()?;
    let line = text.lines().rev().map(str::trim).find(|l| !l.is_empty())?;
    let mut short: String = line.chars().take(300).collect();
    if short.len() < line.len() {
        short.push_str("...");
    }
    Some(short)
}

/// The environment of a host's run: the private home, the stage's `bin/`
/// first on PATH, nothing of the caller's own (no keys, no settings).
fn base_env(stage: &Stage, path: &std::ffi::OsStr) -> Vec<(String, std::ffi::OsString)> {
    let dirs = std::iter::once(stage.bin.clone()).chain(std::env::split_paths(path));
    // A folder with the separator in its name cannot be on any PATH: the
    // stage's alone then.
    let search = std::env::join_paths(dirs).unwrap_or_else(|_| stage.bin.clone().into_os_string());
    let home = stage.home.clone();
    let mut env = vec![
        ("HOME".to_owned(), home.clone().into_os_string()),
        ("PATH".to_owned(), search),
        ("TMPDIR".to_owned(), stage.root.join("tmp").into_os_string()),
        (
            "XDG_CONFIG_HOME".to_owned(),
            home.join(".config").into_os_string(),
        ),
        (
            "XDG_CACHE_HOME".to_owned(),
            home.join(".cache").into_os_string(),
        ),
        (
            "XDG_DATA_HOME".to_owned(),
            home.join(".local/share").into_os_string(),
        ),
        (
            "XDG_STATE_HOME".to_owned(),
            home.join(".local/state").into_os_string(),
        ),
    ];
    for (key, value) in [
        ("LANG", "C.UTF-8"),
        ("TERM", "dumb"),
        ("NO_COLOR", "1"),
        ("CI", "true"),
    ] {
        env.push((key.to_owned(), value.into()));
    }
    // Who the user is and their shell: hosts run commands in it.
    for key in ["USER", "LOGNAME", "SHELL"] {
        if let Some(value) = std::env::var_os(key) {
            env.push((key.to_owned(), value));
        }
    }
    env
}

/// Runs `command` until it ends or `timeout` passes (then its process
/// group is killed); whether it ended by itself.
fn run_bounded(mut command: Command, timeout: Duration) -> std::io::Result<bool> {
    let mut child = command.spawn()?;
    let started = Instant::now();
    loop {
        if child.try_wait()?.is_some() {
            return Ok(true);
        }
        if started.elapsed() >= timeout {
            kill_group(&mut child);
            let _ = child.wait();
            return Ok(false);
        }
        std::thread::sleep(Duration::from_millis(50));
    }
}

#[cfg(unix)]
fn own_process_group(command: &mut Command) {
    use std::os::unix::process::CommandExt;
    command.process_group(0);
}

#[cfg(not(unix))]
fn own_process_group(_: &mut Command) {}

/// Kills the child and what it started (its process group, on Unix).
fn kill_group(child: &mut std::process::Child) {
    #[cfg(unix)]
    {
        let _ = Command::new("kill")
            .args(["-KILL", &format!("-{}", child.id())])
            .stdout(Stdio::null())
            .stderr(Stdio::null())
            .status();
    }
    let _ = child.kill();
}

/// The host's version: the first line its version arguments print.
fn host_version(program: &Path, args: &[String]) -> String {
    let mut command = Command::new(program);
    command
        .args(args)
        .stdin(Stdio::null())
        .stderr(Stdio::null());
    command
        .output()
        .ok()
        .and_then(|o| String::from_utf8(o.stdout).ok())
        .and_then(|t| t.lines().next().map(|l| l.trim().to_owned()))
        .filter(|l| !l.is_empty())
        .unwrap_or_else(|| "(version unknown)".to_owned())
}

/// `name` in the folders of `path`, when it is a file there.
fn which(name: &str, path: &std::ffi::OsStr) -> Option<PathBuf> {
    std::env::split_paths(path)
        .map(|dir| dir.join(name))
        .find(|candidate| candidate.is_file())
}

/// The policy a settings file's `hookc hook` commands name, relative to
/// the project: the first argument after `hook` that is not an option,
/// a leading `$VAR/` or `"$VAR"/` (the host's project folder) dropped.
fn guard_in_settings(text: &str) -> Option<PathBuf> {
    let value: Value = serde_json::from_str(text).ok()?;
    let mut commands = Vec::new();
    strings(&value, &mut commands);
    // The options of `hookc hook` that take a value, from its own parser.
    let hook = <crate::hook::HookArgs as clap::Args>::augment_args(clap::Command::new("hook"));
    let valued: Vec<String> = hook
        .get_arguments()
        .filter(|a| a.get_action().takes_values())
        .filter_map(|a| a.get_long().map(|l| format!("--{l}")))
        .collect();
    commands.iter().find_map(|command| {
        let rest = command.split("hookc hook").nth(1)?;
        let mut words = rest.split_whitespace();
        while let Some(word) = words.next() {
            match word {
                w if valued.iter().any(|v| v == w) => {
                    words.next();
                }
                w if w.starts_with('-') => {}
                w => return Some(PathBuf::from(without_leading_variable(w))),
            }
        }
        None
    })
}

/// Whether `path` is relative and stays below the folder it is relative
/// to (no root, no `..`).
fn inside(path: &Path) -> bool {
    use std::path::Component;
    path.components()
        .all(|c| matches!(c, Component::Normal(_) | Component::CurDir))
        && path.components().any(|c| matches!(c, Component::Normal(_)))
}

/// `word` without quotes and without a leading variable folder.
fn without_leading_variable(word: &str) -> String {
    let word = word.trim_matches(|c| c == '"' || c == '\'');
    let unquoted: String = word.chars().filter(|c| *c != '"' && *c != '\'').collect();
    match unquoted.strip_prefix('$') {
        Some(rest) => rest
            .split_once('/')
            .map_or(unquoted.clone(), |(_, p)| p.to_owned()),
        None => unquoted,
    }
}

fn strings<'v>(value: &'v Value, out: &mut Vec<&'v str>) {
    match value {
        Value::String(s) if s.contains("hookc hook") => out.push(s),
        Value::Array(items) => items.iter().for_each(|v| strings(v, out)),
        Value::Object(members) => members.values().for_each(|v| strings(v, out)),
        _ => {}
    }
}

/// `text` with each variable of `vars` replaced.
fn fill(text: &str, vars: &[(&str, &str)]) -> String {
    vars.iter()
        .fold(text.to_owned(), |t, (k, v)| t.replace(k, v))
}

fn fill_value(value: &Value, vars: &[(&str, &str)]) -> Value {
    match value {
        Value::String(s) => Value::String(fill(s, vars)),
        Value::Array(items) => Value::Array(items.iter().map(|v| fill_value(v, vars)).collect()),
        Value::Object(members) => Value::Object(
            members
                .iter()
                .map(|(k, v)| (k.clone(), fill_value(v, vars)))
                .collect(),
        ),
        other => other.clone(),
    }
}

fn print_report(
    host: Host,
    version: &str,
    dir: &Path,
    hookc: Option<&Path>,
    findings: &[ProbeFinding],
) {
    let profile = host.profile();
    println!(
        "{} ({version}), in a throw-away copy of {}",
        profile.title(),
        dir.display()
    );
    for f in findings {
        let mark = match f.outcome {
            Enforcement::Enforced => "ok  ",
            Enforcement::NotEnforced => "FAIL",
            Enforcement::Unknown => "??  ",
        };
        let with = if f.kind == Trial::Failure {
            " with the guard gone"
        } else {
            ""
        };
        println!(
            "{mark} {:<7} `{}` ({}){with}: {}",
            f.kind.name(),
            f.case.command,
            f.case.name,
            f.said
        );
    }
    let enforced = findings
        .iter()
        .filter(|f| f.outcome == Enforcement::Enforced)
        .count();
    println!("{enforced} of {} enforced", findings.len());
    let calls: Option<usize> = findings.iter().map(|f| f.hookc_calls).sum();
    match (hookc, calls) {
        (None, _) => println!(
            "note: `hookc` is not on PATH: the host cannot run the hook (the failure case shows what it does then)"
        ),
        (Some(_), Some(0)) => {
            println!("note: the host never ran `hookc`: its project hooks are not active here");
            if let Some(trust) = &profile.settings().trust {
                println!("note: {trust}");
            }
        }
        _ => {}
    }
    if let Some(note) = profile.probe().and_then(|p| p.note.as_deref()) {
        println!("note: {note}");
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_guard_is_read_from_each_hosts_settings() {
        for (settings, guard) in [
            (
                r#"{"hooks": {"PreToolUse": [{"hooks": [{"command": "hookc hook --host claude-code \"$CLAUDE_PROJECT_DIR\"/.hookc/guard.yaml"}]}]}}"#,
                ".hookc/guard.yaml",
            ),
            (
                r#"{"hooks": {"Stop": [{"hooks": [{"command": "hookc hook --host codex --find .hookc/guard.yaml || exit 2"}]}]}}"#,
                ".hookc/guard.yaml",
            ),
            (
                r#"{"version": 1, "hooks": {"preToolUse": [{"bash": "hookc hook --host copilot --event preToolUse policy/g.yaml"}]}}"#,
                "policy/g.yaml",
            ),
            (
                r#"{"hooks": {"BeforeTool": [{"hooks": [{"command": "hookc hook --host gemini-cli $GEMINI_PROJECT_DIR/.hookc/guard.yaml"}]}]}}"#,
                ".hookc/guard.yaml",
            ),
        ] {
            assert_eq!(
                guard_in_settings(settings),
                Some(PathBuf::from(guard)),
                "{settings}"
            );
        }
        assert_eq!(guard_in_settings(r#"{"hooks": {}}"#), None);
        assert_eq!(guard_in_settings("not json"), None);
    }

    #[test]
    fn only_a_guard_inside_the_project_is_probed() {
        for inner in [".hookc/guard.yaml", "guard.yaml", "./policy/g.yaml"] {
            assert!(inside(Path::new(inner)), "{inner}");
        }
        for outer in [
            "/etc/guard.yaml",
            "../guard.yaml",
            ".hookc/../../g.yaml",
            "",
            ".",
        ] {
            assert!(!inside(Path::new(outer)), "{outer}");
        }
    }

    #[test]
    fn a_case_is_enforced_when_the_host_did_what_the_guard_decided() {
        let t = Duration::from_secs(1);
        let run = |ran, model_calls, hookc_calls| HostRun {
            ran,
            finished: true,
            model_calls,
            hookc_calls,
        };
        use Enforcement::{Enforced, NotEnforced, Unknown};
        use Trial::{Allowed, Denied, Failure};
        for (trial, played, expected) in [
            (Denied, run(false, 2, Some(3)), Enforced),
            (Denied, run(true, 2, Some(3)), NotEnforced),
            (Allowed, run(true, 2, Some(3)), Enforced),
            (Allowed, run(false, 2, Some(3)), NotEnforced),
            // A hook blocked the prompt: the command cannot have run.
            (Failure, run(false, 0, Some(1)), Enforced),
            (Failure, run(false, 0, None), Enforced),
            // The host ended by itself (an untrusted folder): nothing to say.
            (Denied, run(false, 0, Some(0)), Unknown),
            (Denied, run(false, 2, Some(0)), Unknown),
            // Untrusted and running anyway: the hook did nothing.
            (Denied, run(true, 2, Some(0)), NotEnforced),
        ] {
            assert_eq!(
                judge(trial, &played, t).0,
                expected,
                "{trial:?} {}",
                played.ran
            );
        }
        let slow = HostRun {
            finished: false,
            ..run(false, 1, Some(1))
        };
        assert!(judge(Failure, &slow, t).1.contains("did not finish"));
    }

    #[test]
    fn every_probe_section_names_a_wire_hookc_speaks() {
        for host in hookc::hosts::all() {
            if let Some(probe) = host.probe() {
                assert!(
                    ModelApi::from_name(&probe.wire).is_some(),
                    "{}: {}",
                    host.name(),
                    probe.wire
                );
                assert!(!probe.args.is_empty(), "{}", host.name());
                assert!(
                    probe.args.iter().any(|a| a.contains("$prompt")),
                    "{}",
                    host.name()
                );
                assert!(
                    host.meta().verified.contains_key(&probe.package),
                    "{}: {}",
                    host.name(),
                    probe.package
                );
            }
        }
    }
}

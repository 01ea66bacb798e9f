//! The host actions a hook call ([`super::hook`], `hookc hook`) performs
//! itself for awaited hooks
//! (`docs/src/semantics.md#resumable-decisions`): a guard that needs the
//! world (is the branch `main`? does `uv.lock` exist?) is a policy too. Two
//! actions, each a declared action type of `effect: await`:
//!
//! - `run`: a program, as `argv` (never a shell unless `shell: true`, when
//!   `argv` is one command line for `sh -c`), in `cwd` (relative to the
//!   payload's `cwd`), its standard input `stdin` (a string as it is, any
//!   other value as JSON) or the payload (`stdin_payload: true`, the
//!   payload as the host sent it, members it sends as JSON text as text,
//!   with the rewrites of the hooks before it applied), else closed, killed after
//!   `timeout_ms`; its result is
//!   `{exit_code, stdout, stderr, timed_out, truncated}` (and `answer`, the
//!   program's answer read as the host reads a hook's, with `read_answer:
//!   true`: [`super::hook_answer`]), each output kept to
//!   [`MAX_HOST_OUTPUT_BYTES`] (the rest read and dropped, so the program
//!   never blocks on a full pipe). Output is waited for only until the
//!   timeout: a process the program leaves behind may hold its pipes open,
//!   and then the result says `truncated`.
//! - `test_path`: `path` relative to the payload's `cwd`; its result is
//!   `{exists, is_file, is_dir}` (symbolic links followed).
//!
//! Nothing runs unless a matching hook asks for it. Every failure to
//! perform (a malformed action, a program that cannot start) is a
//! [`HostActionError`], which the hook call answers fail-closed.

use hookc_runtime::limits::{MAX_HOST_OUTPUT_BYTES, MAX_HOST_TIMEOUT_MS};
use serde_json::{json, Map, Value};
use std::io::Read;
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::time::{Duration, Instant};
use thiserror::Error;

/// The action type of a program run.
pub const RUN: &str = "run";
/// The action type of a path test.
pub const TEST_PATH: &str = "test_path";

/// Why a host action was not performed.
#[derive(Debug, Error, PartialEq, Eq)]
pub enum HostActionError {
    /// The pending action is none hookc performs.
    #[error("hookc performs only `{RUN}` and `{TEST_PATH}` actions, not `{0}`: the host must")]
    Unknown(String),
    /// A parameter is missing or of the wrong kind.
    #[error("action `{action}`: parameter `{param}` {problem}")]
    BadParameter {
        /// The action type.
        action: &'static str,
        /// The parameter.
        param: &'static str,
        /// What is wrong.
        problem: &'static str,
    },
    /// The directory to run in is not one (the payload's `cwd`, or the
    /// action's under it).
    #[error("cannot run `{program}` in `{dir}`: no such directory")]
    NoDirectory {
        /// `argv[0]`.
        program: String,
        /// The directory.
        dir: String,
    },
    /// The program could not be started.
    #[error("cannot run `{program}`: {reason}")]
    Spawn {
        /// `argv[0]`.
        program: String,
        /// The system's reason.
        reason: String,
    },
}

/// A program to run.
#[derive(Debug, Clone, PartialEq)]
pub struct RunSpec {
    /// The program and its arguments (never empty).
    pub argv: Vec<String>,
    /// Where it runs, relative to the payload's `cwd`.
    pub cwd: Option<PathBuf>,
    /// When it is killed.
    pub timeout: Duration,
    /// Its standard input.
    pub stdin: RunInput,
    /// Whether its answer is read as the host reads a hook's
    /// (`read_answer: true`), into the result's `answer`
    /// ([`super::hook_answer`]): how `hookc init --adopt` runs a host's
    /// existing hooks.
    pub read_answer: bool,
}

/// What a program run reads on its standard input.
#[derive(Debug, Clone, PartialEq, Default)]
pub enum RunInput {
    /// Nothing: standard input is closed (`/dev/null`).
    #[default]
    Closed,
    /// This text (`stdin`).
    Text(String),
    /// The hook's payload as JSON (`stdin_payload: true`).
    Payload,
}

/// A host action, read from a pending match's filled action.
#[derive(Debug, Clone, PartialEq)]
pub enum HostAction {
    /// `run`.
    Run(RunSpec),
    /// `test_path`.
    TestPath(PathBuf),
}

impl HostAction {
    /// The host action a pending match's action (`{"type": ..., params}`)
    /// asks for.
    pub fn from_action(action: &Map<String, Value>) -> Result<HostAction, HostActionError> {
        match action.get("type").and_then(Value::as_str).unwrap_or("") {
            RUN => run_spec(action).map(HostAction::Run),
            TEST_PATH => match action.get("path") {
                Some(Value::String(p)) => Ok(HostAction::TestPath(PathBuf::from(p))),
                _ => Err(HostActionError::BadParameter {
                    action: TEST_PATH,
                    param: "path",
                    problem: "must be a string",
                }),
            },
            other => Err(HostActionError::Unknown(other.to_owned())),
        }
    }

    /// Performs the action, paths relative to `base` (the payload's `cwd`),
    /// `payload` for a run that reads it, and returns its result for the
    /// evaluation to resume with.
    pub fn perform(&self, base: &Path, payload: &Value) -> Result<Value, HostActionError> {
        match self {
            HostAction::TestPath(p) => {
                let full = base.join(p);
                let meta = std::fs::metadata(&full).ok();
                Ok(json!({
                    "exists": meta.is_some(),
                    "is_file": meta.as_ref().is_some_and(|m| m.is_file()),
                    "is_dir": meta.as_ref().is_some_and(|m| m.is_dir()),
                }))
            }
            HostAction::Run(spec) => run(spec, base, payload),
        }
    }
}

/// The `run` parameters: `argv` (a non-empty list of strings), `cwd`,
/// `timeout_ms` (at most [`MAX_HOST_TIMEOUT_MS`]), `shell`, and `stdin`
/// or `stdin_payload`.
fn run_spec(action: &Map<String, Value>) -> Result<RunSpec, HostActionError> {
    let bad = |param, problem| HostActionError::BadParameter {
        action: RUN,
        param,
        problem,
    };
    let argv: Vec<String> = match action.get("argv") {
        Some(Value::Array(items)) if !items.is_empty() => items
            .iter()
            .map(|i| i.as_str().map(str::to_owned))
            .collect::<Option<_>>()
            .ok_or(bad("argv", "must hold strings only"))?,
        _ => return Err(bad("argv", "must be a non-empty list of strings")),
    };
    let shell = match action.get("shell") {
        None | Some(Value::Null) => false,
        Some(Value::Bool(b)) => *b,
        Some(_) => return Err(bad("shell", "must be a boolean")),
    };
    let argv = match (shell, argv.as_slice()) {
        (false, _) => argv,
        (true, [line]) => vec!["sh".to_owned(), "-c".to_owned(), line.clone()],
        (true, _) => return Err(bad("argv", "must be one command line with `shell: true`")),
    };
    let cwd = match action.get("cwd") {
        None | Some(Value::Null) => None,
        Some(Value::String(c)) => Some(PathBuf::from(c)),
        Some(_) => return Err(bad("cwd", "must be a string")),
    };
    let timeout_ms = match action.get("timeout_ms") {
        None | Some(Value::Null) => MAX_HOST_TIMEOUT_MS,
        Some(v) => v.as_u64().filter(|t| *t <= MAX_HOST_TIMEOUT_MS).ok_or(bad(
            "timeout_ms",
            "must be a whole number of milliseconds up to 60000",
        ))?,
    };
    let payload = match action.get("stdin_payload") {
        None | Some(Value::Null) => false,
        Some(Value::Bool(b)) => *b,
        Some(_) => return Err(bad("stdin_payload", "must be a boolean")),
    };
    let read_answer = match action.get("read_answer") {
        None | Some(Value::Null) => false,
        Some(Value::Bool(b)) => *b,
        Some(_) => return Err(bad("read_answer", "must be a boolean")),
    };
    let stdin = match (action.get("stdin"), payload) {
        (None | Some(Value::Null), false) => RunInput::Closed,
        (None | Some(Value::Null), true) => RunInput::Payload,
        (Some(Value::String(text)), false) => RunInput::Text(text.clone()),
        (Some(value), false) => RunInput::Text(value.to_string()),
        (Some(_), true) => {
            return Err(bad(
                "stdin",
                "cannot be given with `stdin_payload: true`: the input is one or the other",
            ))
        }
    };
    Ok(RunSpec {
        argv,
        cwd,
        timeout: Duration::from_millis(timeout_ms),
        stdin,
        read_answer,
    })
}

/// The call's deadline (`hookc hook --deadline`): a program still running
/// then is ended, whatever its own timeout.
static DEADLINE: std::sync::OnceLock<Instant> = std::sync::OnceLock::new();

/// Programs started and not yet waited for.
static RUNNING: std::sync::atomic::AtomicUsize = std::sync::atomic::AtomicUsize::new(0);

/// Sets the call's deadline (once per process: `hookc hook` is one call).
pub fn set_deadline(at: Instant) {
    let _ = DEADLINE.set(at);
}

/// How many programs `run` actions started are still running.
pub fn running_programs() -> usize {
    RUNNING.load(std::sync::atomic::Ordering::SeqCst)
}

/// Counts a started program until it has been waited for.
struct Running;

impl Running {
    fn start() -> Running {
        RUNNING.fetch_add(1, std::sync::atomic::Ordering::SeqCst);
        Running
    }
}

impl Drop for Running {
    fn drop(&mut self) {
        RUNNING.fetch_sub(1, std::sync::atomic::Ordering::SeqCst);
    }
}

/// Runs a program: its input written and output read on threads of their
/// own (so that no pipe fills and blocks it), output kept to the bound,
/// the process killed at the timeout (or at the call's deadline).
fn run(spec: &RunSpec, base: &Path, payload: &Value) -> Result<Value, HostActionError> {
    let (program, args) = match spec.argv.split_first() {
        Some(split) => split,
        None => {
            return Err(HostActionError::BadParameter {
                action: RUN,
                param: "argv",
                problem: "must be a non-empty list of strings",
            })
        }
    };
    let dir = spec
        .cwd
        .as_ref()
        .map_or_else(|| base.to_owned(), |c| base.join(c));
    if !dir.is_dir() {
        return Err(HostActionError::NoDirectory {
            program: program.clone(),
            dir: dir.display().to_string(),
        });
    }
    let input = match &spec.stdin {
        RunInput::Closed => None,
        RunInput::Text(text) => Some(text.clone().into_bytes()),
        RunInput::Payload => Some(payload.to_string().into_bytes()),
    };
    let spawned = Command::new(program)
        .args(args)
        .current_dir(&dir)
        .stdin(if input.is_some() {
            Stdio::piped()
        } else {
            Stdio::null()
        })
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn();
    let mut child = spawned.map_err(|e| HostActionError::Spawn {
        program: program.clone(),
        reason: e.to_string(),
    })?;
    let running = Running::start();
    // A program that exits without reading its input ends the write with
    // a broken pipe, which is no failure of the run.
    if let (Some(input), Some(mut pipe)) = (input, child.stdin.take()) {
        std::thread::spawn(move || {
            let _ = std::io::Write::write_all(&mut pipe, &input);
        });
    }
    let stdout = child.stdout.take().map(Capture::start);
    let stderr = child.stderr.take().map(Capture::start);
    let started = Instant::now();
    let end = DEADLINE
        .get()
        .map_or(started + spec.timeout, |d| (*d).min(started + spec.timeout));
    let mut timed_out = false;
    let status = loop {
        match child.try_wait() {
            Ok(Some(status)) => break Some(status),
            Ok(None) if Instant::now() >= end => {
                timed_out = true;
                let _ = child.kill();
                break child.wait().ok();
            }
            Ok(None) => std::thread::sleep(Duration::from_millis(2)),
            Err(_) => break None,
        }
    };
    // The pipes close when the program's last holder exits: a process it
    // left behind may hold them open, so the output is waited for only up
    // to the timeout (and a moment past the exit), never longer.
    drop(running);
    let deadline = end.max(Instant::now() + PIPE_GRACE);
    let (out, out_cut) = stdout.map_or_else(Default::default, |c| c.finish(deadline));
    let (err, err_cut) = stderr.map_or_else(Default::default, |c| c.finish(deadline));
    Ok(json!({
        "exit_code": if timed_out { None } else { status.and_then(|s| s.code()) },
        "stdout": String::from_utf8_lossy(&out),
        "stderr": String::from_utf8_lossy(&err),
        "timed_out": timed_out,
        "truncated": out_cut || err_cut,
    }))
}

/// How long a pipe is still read after its program ended.
const PIPE_GRACE: Duration = Duration::from_millis(50);

/// A pipe read to its end on a thread, keeping the first
/// [`MAX_HOST_OUTPUT_BYTES`].
struct Capture {
    kept: std::sync::Arc<std::sync::Mutex<(Vec<u8>, bool)>>,
    done: std::sync::mpsc::Receiver<()>,
}

impl Capture {
    fn start<R: Read + Send + 'static>(mut pipe: R) -> Capture {
        let kept = std::sync::Arc::new(std::sync::Mutex::new((Vec::new(), false)));
        let (tell, done) = std::sync::mpsc::channel();
        let shared = std::sync::Arc::clone(&kept);
        std::thread::spawn(move || {
            let mut buf = [0u8; 8192];
            while let Ok(n @ 1..) = pipe.read(&mut buf) {
                let chunk = buf.get(..n).unwrap_or_default();
                if let Ok(mut k) = shared.lock() {
                    let room = MAX_HOST_OUTPUT_BYTES.saturating_sub(k.0.len());
                    k.0.extend_from_slice(chunk.get(..n.min(room)).unwrap_or_default());
                    k.1 |= n > room;
                }
            }
            let _ = tell.send(());
        });
        Capture { kept, done }
    }

    /// What was read by `deadline`: the bytes kept, and whether there was
    /// (or may be) more.
    fn finish(self, deadline: Instant) -> (Vec<u8>, bool) {
        let wait = deadline.saturating_duration_since(Instant::now());
        let ended = self.done.recv_timeout(wait).is_ok();
        match self.kept.lock() {
            Ok(mut k) => (std::mem::take(&mut k.0), k.1 || !ended),
            Err(_) => (Vec::new(), true),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn action(v: Value) -> Map<String, Value> {
        match v {
            Value::Object(m) => m,
            _ => Map::new(),
        }
    }

    fn dir() -> PathBuf {
        let d = std::env::temp_dir().join(format!("hookc-host-actions-{}", std::process::id()));
        std::fs::create_dir_all(d.join("sub")).unwrap();
        std::fs::write(d.join("uv.lock"), "x").unwrap();
        d
    }

    #[test]
    fn path_tests_are_relative_to_the_payload_cwd() {
        let d = dir();
        let test = |p: &str| {
            HostAction::from_action(&action(json!({"type": "test_path", "path": p})))
                .unwrap()
                .perform(&d, &Value::Null)
                .unwrap()
        };
        assert_eq!(
            test("uv.lock"),
            json!({"exists": true, "is_file": true, "is_dir": false})
        );
        assert_eq!(
            test("sub"),
            json!({"exists": true, "is_file": false, "is_dir": true})
        );
        assert_eq!(
            test("nope"),
            json!({"exists": false, "is_file": false, "is_dir": false})
        );
    }

    /// Performs the action `v` in [`dir`].
    fn run(v: Value) -> Value {
        HostAction::from_action(&action(v))
            .unwrap()
            .perform(
                &dir(),
                &json!({"hook_event_name": "PreToolUse", "cwd": "/p"}),
            )
            .unwrap()
    }

    #[test]
    fn a_program_runs_without_a_shell_and_reports_its_exit_and_output() {
        let r = run(json!({"type": "run", "argv": ["sh", "-c", "echo hi; echo err >&2; exit 3"]}));
        assert_eq!(r["exit_code"], 3);
        assert_eq!(r["stdout"], "hi\n");
        assert_eq!(r["stderr"], "err\n");
        // No shell: the argument is one word, metacharacters and all.
        let r = run(json!({"type": "run", "argv": ["echo", "$HOME; ls"]}));
        assert_eq!(r["stdout"], "$HOME; ls\n");
        // With `shell: true`, one command line; in `cwd` under the payload's.
        let r = run(json!({"type": "run", "argv": ["pwd"], "cwd": "sub"}));
        assert!(
            r["stdout"].as_str().unwrap().trim_end().ends_with("/sub"),
            "{r}"
        );
        let r = run(json!({"type": "run", "argv": ["test -f uv.lock && echo yes"], "shell": true}));
        assert_eq!(r["stdout"], "yes\n");
    }

    #[test]
    fn a_program_reads_the_text_or_the_payload_given_it() {
        let r = run(json!({"type": "run", "argv": ["cat"], "stdin": "line one\nline two\n"}));
        assert_eq!(r["stdout"], "line one\nline two\n");
        // Any other value as JSON (a whole template of an object).
        let r = run(json!({"type": "run", "argv": ["cat"], "stdin": {"command": "ls"}}));
        assert_eq!(r["stdout"], "{\"command\":\"ls\"}");
        let r = run(json!({"type": "run", "argv": ["cat"], "stdin_payload": true}));
        assert_eq!(
            serde_json::from_str::<Value>(r["stdout"].as_str().unwrap()).unwrap(),
            json!({"hook_event_name": "PreToolUse", "cwd": "/p"})
        );
        // Without either, standard input is closed: `cat` reads nothing.
        let r = run(json!({"type": "run", "argv": ["cat"]}));
        assert_eq!(r["stdout"], "");
        // A program that never reads a large input still ends.
        let big = "x".repeat(1 << 20);
        let r = run(json!({"type": "run", "argv": ["true"], "stdin": big}));
        assert_eq!(r["exit_code"], 0);
    }

    #[test]
    fn timeouts_kill_and_output_is_bounded() {
        let t = Instant::now();
        let r = run(json!({"type": "run", "argv": ["sleep", "5"], "timeout_ms": 100}));
        assert!(t.elapsed() < Duration::from_secs(4));
        assert_eq!(r["timed_out"], true);
        assert_eq!(r["exit_code"], Value::Null);
        let r = run(json!({"type": "run", "argv": ["head", "-c", "200000", "/dev/zero"]}));
        assert_eq!(r["truncated"], true);
        assert_eq!(r["stdout"].as_str().unwrap().len(), MAX_HOST_OUTPUT_BYTES);
        assert_eq!(r["exit_code"], 0);
        // A process the program leaves behind holds the pipes open: the
        // timeout still bounds the wait.
        let t = Instant::now();
        let r = run(
            json!({"type": "run", "argv": ["sh", "-c", "sleep 5 & echo started"],
                           "timeout_ms": 300}),
        );
        assert!(t.elapsed() < Duration::from_secs(3), "{:?}", t.elapsed());
        assert_eq!(r["exit_code"], 0);
        assert_eq!(r["stdout"], "started\n");
        assert_eq!(
            r["truncated"], true,
            "the pipe did not end: there may be more"
        );
    }

    #[test]
    fn bad_actions_are_errors_not_runs() {
        let err = |v: Value| HostAction::from_action(&action(v)).unwrap_err().to_string();
        assert!(err(json!({"type": "deploy"})).contains("not `deploy`"));
        assert!(err(json!({"type": "run"})).contains("`argv` must be a non-empty list"));
        assert!(err(json!({"type": "run", "argv": [1]})).contains("strings only"));
        assert!(
            err(json!({"type": "run", "argv": ["a", "b"], "shell": true}))
                .contains("one command line")
        );
        assert!(
            err(json!({"type": "run", "argv": ["a"], "timeout_ms": 100000000})).contains("60000")
        );
        assert!(
            err(json!({"type": "run", "argv": ["a"], "stdin": "x", "stdin_payload": true}))
                .contains("one or the other")
        );
        let spawn = HostAction::from_action(&action(
            json!({"type": "run", "argv": ["/no/such/program"]}),
        ))
        .unwrap()
        .perform(Path::new("/"), &Value::Null)
        .unwrap_err();
        assert!(matches!(spawn, HostActionError::Spawn { .. }));
    }
}

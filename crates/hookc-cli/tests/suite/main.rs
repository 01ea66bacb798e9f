//! The command line's integration tests, one test binary (one link, and
//! one process whose tests run side by side): each module is one suite,
//! named for what it tests. `docs` stays a binary of its own, as it
//! changes the process's working directory.

// Test code may unwrap, expect, panic and index: a failing test stops
// loudly where it failed. `#[test]` functions and `#[cfg(test)]` modules
// are exempt through clippy.toml; the helpers of this test crate are
// exempt here, once.
#![allow(
    clippy::unwrap_used,
    clippy::expect_used,
    clippy::panic,
    clippy::indexing_slicing
)]

/// `hookc`, with its session memory (`remember`) kept under the target
/// folder, a folder of its own for each process: tests write nowhere
/// else, and no call sees what another test's call remembered (a test of
/// the memory gives its calls one folder). The artifact cache of policy
/// sources is under the target folder too (the cache's own tests remove
/// the variable, in scratch folders).
pub fn hookc_command() -> std::process::Command {
    let mut command = std::process::Command::new(env!("CARGO_BIN_EXE_hookc"));
    command.env("HOOKC_STATE_DIR", state_dir());
    command.env(
        "HOOKC_CACHE_DIR",
        std::path::Path::new(env!("CARGO_TARGET_TMPDIR")).join("hookc-cache"),
    );
    command
}

/// Runs `hookc ARGS...` in `dir` to its end.
pub fn hookc_in(dir: &std::path::Path, args: &[&str]) -> std::process::Output {
    hookc_command()
        .args(args)
        .current_dir(dir)
        .output()
        .unwrap()
}

/// Starts `hookc hook --host claude-code ARGS...` in `cwd` on a Bash call
/// of `command` whose payload names `cwd`, the payload written.
pub fn bash_call(cwd: &std::path::Path, args: &[&str], command: &str) -> std::process::Child {
    bash_call_with(cwd, args, command, |_| {})
}

/// [`bash_call`], the command changed by `tweak` first (its environment).
pub fn bash_call_with(
    cwd: &std::path::Path,
    args: &[&str],
    command: &str,
    tweak: impl FnOnce(&mut std::process::Command),
) -> std::process::Child {
    use std::io::Write;
    use std::process::Stdio;
    let mut hookc = hookc_command();
    tweak(&mut hookc);
    let mut child = hookc
        .args(["hook", "--host", "claude-code"])
        .args(args)
        .current_dir(cwd)
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    let payload = serde_json::json!({"session_id": "s", "cwd": cwd, "hook_event_name": "PreToolUse",
                                     "tool_name": "Bash", "tool_input": {"command": command}});
    child
        .stdin
        .take()
        .unwrap()
        .write_all(payload.to_string().as_bytes())
        .unwrap();
    child
}

/// A fresh folder for a `hookc` process's session memory (created by
/// hookc only if it stores something).
pub fn state_dir() -> std::path::PathBuf {
    use std::sync::atomic::{AtomicUsize, Ordering};
    static NEXT: AtomicUsize = AtomicUsize::new(0);
    std::path::Path::new(env!("CARGO_TARGET_TMPDIR")).join(format!(
        "hookc-state/{}-{}",
        std::process::id(),
        NEXT.fetch_add(1, Ordering::Relaxed)
    ))
}

#[path = "../../../hookc/tests/common/walk.rs"]
mod walk;

mod adopt;
mod bench_hook;
mod cache;
mod cli;
mod cli_bench;
mod deadline;
mod decision_log;
mod first_match_output;
mod help;
mod hook_find;
mod hosts;
mod init;
mod managed;
mod otlp;
mod policy_tests;
mod probe;
mod replay;
mod serve;
mod serve_client;
mod trust;

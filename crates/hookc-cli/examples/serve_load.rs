//! A loopback load generator for `hookc serve`: starts the server on a
//! free port with a policy, runs CLIENTS threads each on one keep-alive
//! connection posting Claude Code Bash payloads (a mix that denies, asks,
//! allows and matches nothing) for SECONDS after a one-second warm-up, and
//! reports decisions per second, latency percentiles, failed requests,
//! and the server's resident memory idle, after the warm-up and at the
//! end (flat memory: the last two agree).
//!
//! ```sh
//! cargo build --release -p hookc-cli --bin hookc --example serve_load
//! target/release/examples/serve_load [HOOKC] [POLICY] [CLIENTS] [SECONDS]
//! ```
//!
//! Defaults: `target/release/hookc`, the 60-hook Bash guard
//! `crates/hookc-cli/tests/data/serve/bash-guard.yaml`, 4 clients, 10
//! seconds. The clients share the machine with the server, so on a small
//! machine they take part of its cores (docs/src/hosts/serve.md has the
//! numbers).

#[path = "../tests/suite/serve_client.rs"]
mod serve_client;

use serve_client::{percentile, Client, Served};
use std::path::Path;
use std::process::ExitCode;
use std::time::{Duration, Instant};

/// The commands posted, round robin.
const COMMANDS: [&str; 8] = [
    "rm -rf build",
    "git push --force origin main",
    "git push origin main",
    "ls",
    "cargo build --release",
    "cat .env",
    "make test",
    "echo hello world",
];

fn main() -> ExitCode {
    match run() {
        Ok(()) => ExitCode::SUCCESS,
        Err(message) => {
            eprintln!("serve_load: {message}");
            ExitCode::from(2)
        }
    }
}

fn run() -> Result<(), String> {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let root = Path::new(env!("CARGO_MANIFEST_DIR")).join("../..");
    let arg = |i: usize, default: &str| args.get(i).cloned().unwrap_or_else(|| default.to_owned());
    let hookc = arg(0, "target/release/hookc");
    let policy = arg(1, "crates/hookc-cli/tests/data/serve/bash-guard.yaml");
    let number = |i: usize, default: &str| {
        arg(i, default)
            .parse::<u64>()
            .map_err(|_| format!("argument {} is not a whole number", i + 1))
    };
    let clients = usize::try_from(number(2, "4")?).map_err(|e| e.to_string())?;
    let seconds = number(3, "10")?;

    let served = Served::start(&hookc, &[&policy], &root)
        .map_err(|e| format!("cannot start `{hookc} serve`: {e}"))?;
    let idle = rss_kib(served.pid());
    let payloads: Vec<Vec<u8>> = COMMANDS.iter().map(|c| payload(c)).collect();

    drive(&served, clients, Duration::from_secs(1), &payloads)?;
    let warm = rss_kib(served.pid());
    let started = Instant::now();
    let (mut latencies, failed) = drive(&served, clients, Duration::from_secs(seconds), &payloads)?;
    let elapsed = started.elapsed().as_secs_f64();
    let end = rss_kib(served.pid());
    latencies.sort_unstable();
    let us = |d: Duration| d.as_secs_f64() * 1e6;
    println!(
        "policy {policy}: {clients} clients, {seconds} s, {} cores",
        std::thread::available_parallelism().map_or(1, |n| n.get())
    );
    println!(
        "{} decisions, {:.0} decisions/s, {failed} failed",
        latencies.len(),
        latencies.len() as f64 / elapsed
    );
    println!(
        "latency us: p50 {:.0}, p90 {:.0}, p99 {:.0}, p99.9 {:.0}, max {:.0}",
        us(percentile(&latencies, 50.0)),
        us(percentile(&latencies, 90.0)),
        us(percentile(&latencies, 99.0)),
        us(percentile(&latencies, 99.9)),
        us(latencies.last().copied().unwrap_or_default()),
    );
    println!("server RSS KiB: idle {idle}, after warm-up {warm}, at the end {end}");
    Ok(())
}

/// Runs `clients` connections for `time`; every latency, and the count of
/// requests that failed or were not answered 200.
fn drive(
    served: &Served,
    clients: usize,
    time: Duration,
    payloads: &[Vec<u8>],
) -> Result<(Vec<Duration>, u64), String> {
    let until = Instant::now() + time;
    let threads: Vec<_> = (0..clients)
        .map(|i| {
            let addr = served.addr;
            let payloads = payloads.to_vec();
            std::thread::spawn(move || -> Result<(Vec<Duration>, u64), String> {
                let mut client = Client::connect(addr).map_err(|e| e.to_string())?;
                let (mut seen, mut failed) = (Vec::new(), 0);
                let mut next = i;
                while Instant::now() < until {
                    let body = payloads
                        .get(next % payloads.len())
                        .map_or(&[][..], Vec::as_slice);
                    next += 1;
                    let start = Instant::now();
                    match client.post("/hook/claude-code", body) {
                        Ok(r) if r.status == 200 => seen.push(start.elapsed()),
                        Ok(_) => failed += 1,
                        Err(_) => {
                            failed += 1;
                            client = Client::connect(addr).map_err(|e| e.to_string())?;
                        }
                    }
                }
                Ok((seen, failed))
            })
        })
        .collect();
    let mut all = Vec::new();
    let mut failed = 0;
    for thread in threads {
        let (seen, f) = thread
            .join()
            .map_err(|_| "a client thread panicked".to_owned())??;
        all.extend(seen);
        failed += f;
    }
    Ok((all, failed))
}

/// A Claude Code PreToolUse payload for a Bash `command`.
fn payload(command: &str) -> Vec<u8> {
    serde_json::json!({
        "session_id": "load",
        "transcript_path": "/tmp/transcript.jsonl",
        "cwd": "/tmp",
        "permission_mode": "default",
        "hook_event_name": "PreToolUse",
        "tool_name": "Bash",
        "tool_input": {"command": command, "description": "a command"},
        "tool_use_id": "toolu_01",
    })
    .to_string()
    .into_bytes()
}

/// The resident memory of process `pid` in KiB (0 where /proc has none).
fn rss_kib(pid: u32) -> u64 {
    std::fs::read_to_string(format!("/proc/{pid}/status"))
        .ok()
        .and_then(|s| {
            s.lines()
                .find_map(|l| l.strip_prefix("VmRSS:"))
                .and_then(|v| v.trim().trim_end_matches("kB").trim().parse().ok())
        })
        .unwrap_or(0)
}

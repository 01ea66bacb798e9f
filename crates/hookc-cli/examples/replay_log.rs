//! Writes a seed-shaped event log for replay benchmarks: the ten seed
//! contexts of `crates/hookc/benches/data/seed/contexts/` as
//! `{"event": E, "context": {...}}` lines, round robin, each with its thread
//! id made unique by the line number (so no two lines are the same text),
//! until the log reaches the asked size.
//!
//! ```sh
//! cargo run --release -p hookc-cli --example replay_log -- /tmp/events.jsonl 1024
//! ```
//!
//! (`SIZE_MB` in MiB; `crates/hookc-cli/benches/replay.sh` runs it and the
//! measurements; the guide's performance chapter,
//! `docs/src/internals/performance.md`, has the numbers.)

use std::io::{BufWriter, Write};
use std::path::Path;
use std::process::ExitCode;

fn main() -> ExitCode {
    match run() {
        Ok(()) => ExitCode::SUCCESS,
        Err(message) => {
            eprintln!("replay_log: {message}");
            ExitCode::from(2)
        }
    }
}

fn run() -> Result<(), String> {
    let args: Vec<String> = std::env::args().collect();
    let [_, out, size_mb] = args.as_slice() else {
        return Err("usage: replay_log OUT.jsonl SIZE_MB".to_owned());
    };
    let size: u64 = size_mb
        .parse::<u64>()
        .map_err(|_| format!("SIZE_MB `{size_mb}` is not a whole number"))?
        << 20;
    let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("../hookc/benches/data/seed/contexts");
    let cannot = |what: &Path, e: &dyn std::fmt::Display| format!("{}: {e}", what.display());
    let mut names = Vec::new();
    for entry in std::fs::read_dir(&dir).map_err(|e| cannot(&dir, &e))? {
        let path = entry.map_err(|e| cannot(&dir, &e))?.path();
        if path.extension().is_some_and(|x| x == "json") {
            names.push(path);
        }
    }
    names.sort();
    let mut seeds = Vec::new();
    for path in names {
        let text = std::fs::read(&path).map_err(|e| cannot(&path, &e))?;
        let v: serde_json::Value = serde_json::from_slice(&text).map_err(|e| cannot(&path, &e))?;
        let event = v["event"]
            .as_str()
            .ok_or_else(|| format!("{}: no string `event`", path.display()))?;
        seeds.push((event.to_owned(), v["context"].clone()));
    }
    if seeds.is_empty() {
        return Err(format!("{}: no seed contexts", dir.display()));
    }
    let file = std::fs::File::create(out).map_err(|e| format!("{out}: {e}"))?;
    let mut w = BufWriter::new(file);
    let write_error = |e: std::io::Error| format!("{out}: {e}");
    let (mut written, mut lines) = (0u64, 0usize);
    for (event, ctx) in seeds.iter().cycle() {
        if written >= size {
            break;
        }
        let mut ctx = ctx.clone();
        if let Some(t) = ctx.pointer_mut("/event/thread_id") {
            *t = serde_json::Value::from(format!("thr_{lines:08}"));
        }
        let line = format!("{}\n", serde_json::json!({"event": event, "context": ctx}));
        w.write_all(line.as_bytes()).map_err(write_error)?;
        written += line.len() as u64;
        lines += 1;
    }
    w.flush().map_err(write_error)?;
    eprintln!("{out}: {lines} events, {written} bytes");
    Ok(())
}

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
//! measurements, README "Performance" has the numbers.)

#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]

use std::io::{BufWriter, Write};
use std::path::Path;

fn main() {
    let args: Vec<String> = std::env::args().collect();
    let [_, out, size_mb] = args.as_slice() else {
        eprintln!("usage: replay_log OUT.jsonl SIZE_MB");
        std::process::exit(2);
    };
    let size: u64 = size_mb.parse::<u64>().expect("SIZE_MB: a whole number") << 20;
    let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("../hookc/benches/data/seed/contexts");
    let mut seeds = Vec::new();
    let mut names: Vec<_> = std::fs::read_dir(&dir)
        .expect("the seed contexts")
        .map(|e| e.expect("a directory entry").path())
        .filter(|p| p.extension().is_some_and(|x| x == "json"))
        .collect();
    names.sort();
    for path in names {
        let v: serde_json::Value =
            serde_json::from_slice(&std::fs::read(&path).expect("a seed context")).expect("JSON");
        seeds.push((
            v["event"].as_str().expect("an event").to_owned(),
            v["context"].clone(),
        ));
    }
    let mut w = BufWriter::new(std::fs::File::create(out).expect("the output file"));
    let (mut written, mut lines) = (0u64, 0u64);
    while written < size {
        let (event, ctx) = &seeds[(lines % seeds.len() as u64) as usize];
        let mut ctx = ctx.clone();
        if let Some(t) = ctx.pointer_mut("/event/thread_id") {
            *t = serde_json::Value::from(format!("thr_{lines:08}"));
        }
        let line = format!("{}\n", serde_json::json!({"event": event, "context": ctx}));
        w.write_all(line.as_bytes()).expect("write");
        written += line.len() as u64;
        lines += 1;
    }
    w.flush().expect("write");
    eprintln!("{out}: {lines} events, {written} bytes");
}

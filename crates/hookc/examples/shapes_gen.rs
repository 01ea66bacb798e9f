//! Writes a random policy of the `shapes` bench (`benches/common/random_policy.rs`:
//! `shapes(N, SEED, 3)`) and its contexts to a directory, for instruction
//! counts outside criterion:
//!
//! ```sh
//! cargo run --release -p hookc --example shapes_gen 1000 1 /tmp/shapes
//! # wrote /tmp/shapes/shapes_1000_1.yaml and shapes_1000_1_{none,last,random-0,random-1,random-2}.json
//! hookc compile /tmp/shapes/shapes_1000_1.yaml -o /tmp/shapes/shapes_1000_1.hkb
//! for n in 1000 11000; do
//!   valgrind --tool=callgrind --callgrind-out-file=/dev/null target/release/examples/decide_count \
//!     /tmp/shapes/shapes_1000_1.hkb /tmp/shapes/shapes_1000_1_none.json $n 2>&1 | grep Collected
//! done   # (second - first) / 10000 = instructions per decide
//! ```
//!
//! Each context file is `{"event": E, "context": {...}, "expect": ID or null}`,
//! as `decide_count` and the bench data read them.

#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]

#[path = "../benches/common/mod.rs"]
mod common;

use std::path::PathBuf;
use std::process::ExitCode;

fn main() -> ExitCode {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let (Some(n), Some(seed), Some(dir)) = (
        args.first().and_then(|n| n.parse::<usize>().ok()),
        args.get(1).and_then(|s| s.parse::<u32>().ok()),
        args.get(2),
    ) else {
        eprintln!("usage: shapes_gen N SEED DIR");
        return ExitCode::from(2);
    };
    let dir = PathBuf::from(dir);
    if let Err(e) = std::fs::create_dir_all(&dir) {
        eprintln!("shapes_gen: {}: {e}", dir.display());
        return ExitCode::from(2);
    }
    let s = common::random_policy::shapes(n, seed, 3);
    let mut written = Vec::new();
    for input in &s.inputs {
        written.push((dir.join(&input.name), input.text.clone()));
    }
    for ctx in &s.contexts {
        let file = serde_json::json!({
            "event": common::random_policy::SHAPES_EVENT,
            "context": ctx.context,
            "expect": ctx.expect,
        });
        written.push((
            dir.join(format!("shapes_{n}_{seed}_{}.json", ctx.name)),
            format!("{file}\n"),
        ));
    }
    for (path, text) in written {
        if let Err(e) = std::fs::write(&path, text) {
            eprintln!("shapes_gen: {}: {e}", path.display());
            return ExitCode::from(2);
        }
        println!("wrote {}", path.display());
    }
    ExitCode::SUCCESS
}

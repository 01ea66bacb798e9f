//! A harness for load profiles: loads an artifact N times, so that
//! `valgrind --tool=callgrind` run with two values of N gives the
//! instructions of one load by difference (start-up and reading the file
//! cancel out).
//!
//! ```sh
//! cargo build --release -p hookc-cli -p hookc-runtime --example load_count
//! cargo run --release -p hookc --example scale_policy 10000 > scale_10000.yaml
//! hookc compile scale_10000.yaml -o scale_10000.hkb
//! for n in 1 11; do
//!   valgrind --tool=callgrind --callgrind-out-file=/dev/null \
//!     target/release/examples/load_count scale_10000.hkb $n 2>&1 | grep Collected
//! done   # (second - first) / 10 = instructions per load
//! ```
//!
//! The third argument picks what one load is: `policy` (the default,
//! `Policy::from_artifact`: decode, verify and the load-time indexes),
//! `load` (`artifact::load`: decode and verify) or `decode` alone.

use hookc_runtime::Policy;
use std::hint::black_box;
use std::process::ExitCode;

fn main() -> ExitCode {
    match run() {
        Ok(loaded) => {
            println!("{loaded} loads");
            ExitCode::SUCCESS
        }
        Err(message) => {
            eprintln!("error: {message}");
            ExitCode::from(2)
        }
    }
}

fn run() -> Result<usize, String> {
    let usage = "usage: load_count POLICY.hkb N [policy|load|decode]";
    let mut args = std::env::args().skip(1);
    let (Some(artifact), Some(n)) = (args.next(), args.next()) else {
        return Err(usage.to_owned());
    };
    let n: usize = n.parse().map_err(|_| usage.to_owned())?;
    let what = args.next().unwrap_or_else(|| "policy".to_owned());
    let bytes = std::fs::read(&artifact).map_err(|e| format!("cannot read `{artifact}`: {e}"))?;
    let mut loaded = 0;
    for _ in 0..n {
        let ok = match what.as_str() {
            "policy" => black_box(Policy::from_artifact(black_box(&bytes))).is_ok(),
            "load" => black_box(hookc_runtime::artifact::load(black_box(&bytes))).is_ok(),
            "decode" => black_box(hookc_runtime::artifact::decode(black_box(&bytes))).is_ok(),
            _ => return Err(usage.to_owned()),
        };
        if !ok {
            return Err(format!("`{artifact}` does not load"));
        }
        loaded += 1;
    }
    Ok(loaded)
}

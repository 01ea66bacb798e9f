//! Prints a generated scale policy of the benches (`benches/common/mod.rs`:
//! `scale_policy(N)`, or `mixed_policy(N)`), or one of its bench contexts,
//! for profiling outside criterion:
//!
//! ```sh
//! cargo run --release -p hookc --example scale_policy 10000 > scale.yaml
//! cargo run --release -p hookc --example scale_policy 1000 mixed > mixed.yaml
//! # the context matching only the last hook (or `none`), as
//! # {"event": E, "context": {...}} for `decide_count`:
//! cargo run --release -p hookc --example scale_policy 1000 mixed last > last.json
//! ```

#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]

#[path = "../benches/common/mod.rs"]
mod common;

use std::process::ExitCode;

fn main() -> ExitCode {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let n = args.first().and_then(|n| n.parse().ok()).unwrap_or(10_000);
    let mixed = match args.get(1).map(String::as_str) {
        None | Some("uniform") => false,
        Some("mixed") => true,
        Some(other) => return usage(&format!("unknown set `{other}`: uniform or mixed")),
    };
    let which = match args.get(2).map(String::as_str) {
        None => None,
        Some("last") => Some(common::ScaleCase::Last),
        Some("none") => Some(common::ScaleCase::None),
        Some(other) => return usage(&format!("unknown case `{other}`: last or none")),
    };
    match (which, mixed) {
        (None, false) => print!("{}", common::scale_policy(n)),
        (None, true) => print!("{}", common::mixed_policy(n)),
        (Some(which), _) => {
            let case = if mixed {
                common::mixed_case(n, which)
            } else {
                common::scale_case(n, which)
            };
            let out = serde_json::json!({"event": case.event, "context": case.context});
            println!("{out}");
        }
    }
    ExitCode::SUCCESS
}

fn usage(problem: &str) -> ExitCode {
    eprintln!("scale_policy: {problem}\nusage: scale_policy [N] [uniform|mixed] [last|none]");
    ExitCode::from(2)
}

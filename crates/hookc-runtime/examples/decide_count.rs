//! A harness for instruction counts: loads an artifact and decides one
//! context N times, so that `valgrind --tool=callgrind` run with two values of
//! N gives the instructions of one `Policy::decide` by difference (start-up
//! and loading cancel out).
//!
//! ```sh
//! cargo build --release -p hookc-runtime --example decide_count
//! hookc compile crates/hookc/benches/data/seed/policy.yaml -o seed.hkb
//! ctx=crates/hookc/benches/data/seed/contexts/error_none.json
//! for n in 100 1100; do
//!   valgrind --tool=callgrind --callgrind-out-file=/dev/null \
//!     target/release/examples/decide_count seed.hkb $ctx $n 2>&1 | grep Collected
//! done   # (second - first) / 1000 = instructions per decide
//! ```
//!
//! The context file is `{"event": NAME, "context": {...}}` (other keys are
//! ignored), as in the bench data. An optional fourth argument picks what
//! one iteration is: `value` (the default: `decide` on the context as a
//! `serde_json::Value`), `json` (`decide` on the context's compact JSON
//! text), `json-first` (`first` on that text: the decision and its filled
//! action) or `parse` (`serde_json::from_str::<Value>` of that text alone, the
//! baseline of `json`).

use hookc_runtime::{Context, Policy};
use std::hint::black_box;
use std::process::ExitCode;

fn main() -> ExitCode {
    match run() {
        Ok(hits) => {
            println!("{hits} matches");
            ExitCode::SUCCESS
        }
        Err(message) => {
            eprintln!("error: {message}");
            ExitCode::from(2)
        }
    }
}

fn run() -> Result<usize, String> {
    let usage = "usage: decide_count POLICY.hkb CONTEXT.json N [value|json|json-first|parse]";
    let mut args = std::env::args().skip(1);
    let (Some(artifact), Some(context), Some(n)) = (args.next(), args.next(), args.next()) else {
        return Err(usage.to_owned());
    };
    let n: usize = n.parse().map_err(|_| usage.to_owned())?;
    let bytes = std::fs::read(&artifact).map_err(|e| format!("cannot read `{artifact}`: {e}"))?;
    let policy = Policy::from_artifact(&bytes).map_err(|e| e.to_string())?;
    let text =
        std::fs::read_to_string(&context).map_err(|e| format!("cannot read `{context}`: {e}"))?;
    let case: serde_json::Value = serde_json::from_str(&text).map_err(|e| e.to_string())?;
    let event = case
        .get("event")
        .and_then(|e| e.as_str())
        .ok_or_else(|| format!("`{context}` has no string `event`"))?;
    let ctx = case
        .get("context")
        .ok_or_else(|| format!("`{context}` has no `context`"))?;
    let mode = args.next().unwrap_or_else(|| "value".to_owned());
    let text = serde_json::to_string(ctx).map_err(|e| e.to_string())?;
    let mut hits = 0;
    for _ in 0..n {
        let hit = match mode.as_str() {
            "value" => policy.query(black_box(event), black_box(ctx)).decide(),
            "json" => policy
                .query(black_box(event), Context::json(black_box(text.as_str())))
                .decide(),
            "json-first" => policy
                .query(black_box(event), Context::json(black_box(text.as_str())))
                .first()
                .map(|m| m.map(|m| m.hook)),
            "parse" => {
                let parsed: Result<serde_json::Value, _> = serde_json::from_str(black_box(&text));
                black_box(parsed.map_err(|e| e.to_string())?);
                Ok(None)
            }
            _ => return Err(usage.to_owned()),
        };
        if let Ok(Some(_)) = black_box(hit) {
            hits += 1;
        }
    }
    Ok(hits)
}

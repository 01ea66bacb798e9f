//! A program with its hook policy built in: `build.rs` compiles
//! `policies/` into an artifact, `include_bytes!` embeds it, and it is
//! decoded and verified once, at start-up, before any event is evaluated.
//!
//! Run with `cargo run -p hookc-embedded`.

use hookc_runtime::Policy;
use serde_json::json;
use std::process::ExitCode;

/// The artifact `build.rs` wrote.
static POLICY: &[u8] = include_bytes!(concat!(env!("OUT_DIR"), "/policy.hkb"));

fn main() -> ExitCode {
    // Verified here, once: a damaged artifact is an error at start-up,
    // never a surprise at the first event.
    let policy = match Policy::from_artifact(POLICY) {
        Ok(p) => p,
        Err(e) => {
            eprintln!("error: the embedded policy does not load: {e}");
            return ExitCode::FAILURE;
        }
    };
    println!(
        "policy.hkb: {} bytes, {} hooks, verified",
        POLICY.len(),
        policy.hook_ids().count()
    );
    let events = [
        (
            "error",
            json!({"classification": {"category": "transient"}, "error": {"code": "E504"}}),
        ),
        (
            "error",
            json!({"classification": {"category": "permanent"}, "error": {"message": "model not found"}}),
        ),
        (
            "limit",
            json!({"limit_code": "spend_exceeded", "limit_value": 9.5, "limit_max": 10}),
        ),
        ("after_step", json!({"turn_number": 3})),
    ];
    for (event, ctx) in &events {
        let result = match policy.evaluate(event, ctx).map(|d| d.terminal) {
            Ok(Some(m)) => format!("{} {}", m.hook, serde_json::Value::Object(m.action)),
            Ok(None) => "no hook matched".to_owned(),
            Err(e) => format!("error: {e}"),
        };
        println!("{event} {ctx} -> {result}");
    }
    ExitCode::SUCCESS
}

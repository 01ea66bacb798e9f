//! An application embedding hookc: it depends on `hookc-runtime` alone,
//! loads a compiled policy artifact once, then evaluates the events the
//! agent runtime raises.
//!
//! ```sh
//! cargo run -p hookc-runtime --example embed -- crates/hookc/tests/wire/examples.hkb
//! ```
//!
//! (that artifact is the bundled examples, compiled and checked in for the
//! wire-format tests; `hookc compile ... -o policy.hkb` makes your own).

use hookc_runtime::Policy;
use serde_json::json;
use std::process::ExitCode;

fn main() -> ExitCode {
    match run() {
        Ok(()) => ExitCode::SUCCESS,
        Err(message) => {
            eprintln!("error: {message}");
            ExitCode::FAILURE
        }
    }
}

fn run() -> Result<(), String> {
    let path = std::env::args()
        .nth(1)
        .ok_or("usage: embed POLICY.hkb (an artifact written by `hookc compile`)")?;
    let bytes = std::fs::read(&path).map_err(|e| format!("cannot read `{path}`: {e}"))?;
    // Loading decodes and verifies the whole artifact before the first
    // evaluation; a damaged file is an error here, never a crash later.
    let policy = Policy::from_artifact(&bytes).map_err(|e| e.to_string())?;
    println!("loaded {} hooks", policy.hook_ids().count());

    // A `Policy` is `Send + Sync`: share it across worker threads.
    let policy = std::sync::Arc::new(policy);
    let events = [
        (
            "error",
            json!({"event": {"thread_id": "t1"}, "classification": {"category": "rate_limited"},
                          "error": {"code": "E429", "headers": {"retry-after": "30"}}}),
        ),
        (
            "limit",
            json!({"event": {"thread_id": "t1"}, "limit_code": "spend_exceeded",
                          "limit_value": 95.0, "limit_max": 100.0}),
        ),
        (
            "context_window_pressure",
            json!({"event": {"thread_id": "t1"}, "pressure_ratio": 0.92,
                          "tokens_used": 184000, "max_tokens": 200000}),
        ),
        (
            "after_step",
            json!({"event": {"thread_id": "t1"}, "turn_number": 3}),
        ),
    ];
    let workers: Vec<_> = events
        .into_iter()
        .map(|(event, ctx)| {
            let policy = std::sync::Arc::clone(&policy);
            std::thread::spawn(
                move || match policy.evaluate(event, &ctx).map(|d| d.terminal) {
                    Ok(Some(m)) => format!(
                        "{event}: hook `{}` -> {}",
                        m.hook,
                        serde_json::Value::Object(m.action)
                    ),
                    Ok(None) => {
                        format!("{event}: no hook matched; continue with the default behaviour")
                    }
                    Err(e) => format!("{event}: {e}"),
                },
            )
        })
        .collect();
    for worker in workers {
        println!(
            "{}",
            worker
                .join()
                .map_err(|_| "a worker thread panicked".to_owned())?
        );
    }

    // Other languages hand over JSON text: evaluated in one pass over it,
    // extracting only the paths the policy reads.
    let text = br#"{"event": {"thread_id": "t2"}, "classification": {"category": "permanent"},
                    "error": {"type": "tool_error", "message": "disk full"}}"#;
    match policy
        .query("error", hookc_runtime::Context::json(text))
        .first()
        .map_err(|e| e.to_string())?
    {
        Some(m) => println!("from JSON text: hook `{}` ({})", m.hook, m.action_type()),
        None => println!("from JSON text: no match"),
    }
    Ok(())
}

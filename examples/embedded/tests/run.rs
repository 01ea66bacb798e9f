//! The embedding example end to end: its build script compiled
//! `policies/` into the artifact the binary embeds; running the binary
//! (built by this same `cargo test`, in the workspace target directory)
//! loads it and prints one decision per event.

#![allow(clippy::unwrap_used)]

#[test]
fn the_embedded_example_runs() {
    let out = std::process::Command::new(env!("CARGO_BIN_EXE_hookc-embedded"))
        .output()
        .unwrap();
    let stdout = String::from_utf8_lossy(&out.stdout);
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(out.status.success(), "{stdout}\n{stderr}");
    let (first, rest) = stdout.split_once('\n').unwrap();
    assert!(
        first.starts_with("policy.hkb: ") && first.ends_with(" bytes, 3 hooks, verified"),
        "{first}"
    );
    assert_eq!(
        rest,
        r#"error {"classification":{"category":"transient"},"error":{"code":"E504"}} -> transient_retry {"type":"retry","max_attempts":5,"backoff_policy":"exponential"}
error {"classification":{"category":"permanent"},"error":{"message":"model not found"}} -> permanent_failure {"type":"fail","error_message":"model not found"}
limit {"limit_code":"spend_exceeded","limit_value":9.5,"limit_max":10} -> budget_escalation {"type":"escalate","target":"user_approval","timeout_seconds":7200}
after_step {"turn_number":3} -> no hook matched
"#
    );
}

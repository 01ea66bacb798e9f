//! Policies whose conditions are very long lists: they compile, evaluate and
//! round-trip without deep recursion (a YAML `any:` of N leaves is not an IR
//! chain N deep), within the 2 MiB stack of a test thread.

use hookc::compile::{compile, Input};
use serde_json::json;

fn long_any(n: usize) -> String {
    let mut src = String::from("hooks:\n  - id: many\n    event: e\n    condition:\n      any:\n");
    for i in 0..n {
        src.push_str(&format!("        - {{path: code, op: eq, value: C{i}}}\n"));
    }
    src.push_str("    action: {type: abort}\n");
    src
}

#[test]
fn a_twenty_thousand_leaf_any_compiles_and_evaluates() {
    let n = 20_000;
    let policy =
        hookc::compile::policy_from_sources(&[Input::new("big.yaml", long_any(n))]).unwrap();
    let hit = policy
        .evaluate("e", &json!({"code": format!("C{}", n - 1)}))
        .unwrap()
        .terminal;
    assert_eq!(hit.map(|m| m.hook), Some("many"));
    assert!(policy
        .evaluate("e", &json!({"code": "other"}))
        .unwrap()
        .terminal
        .is_none());
    // Every leaf but the matching one reads `code`: an error anywhere is absorbed.
    assert!(policy.evaluate("e", &json!({})).unwrap().terminal.is_none());
}

#[test]
fn long_lists_round_trip_through_the_normalized_output() {
    let c = compile(&[Input::new("big.yaml", long_any(1000))]);
    assert!(!c.diagnostics.has_errors());
    let first = hookc::normalize::to_yaml(c.policy.as_ref().unwrap()).unwrap();
    let again = compile(&[Input::new("normalized.yaml", first.clone())]);
    assert!(!again.diagnostics.has_errors());
    assert_eq!(
        first,
        hookc::normalize::to_yaml(again.policy.as_ref().unwrap()).unwrap()
    );
}

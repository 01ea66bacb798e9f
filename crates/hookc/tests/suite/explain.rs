//! Explain traces (`Policy::explain`, `hookc eval --explain`): for each
//! hook, the sub-conditions that ran with their source locations, results
//! and the context values they read; the last one decided the hook. The
//! same from a policy compiled from sources and from its artifact; a
//! stripped artifact lists the values each hook reads instead.

use hookc::compile::Input;
use hookc_runtime::{Outcome, Overrides, Policy, Read, SubCondition};
use serde_json::{json, Value};

const POLICY: &str = r#"schema_version: "1.0.0"
hooks:
  - id: transient_retry
    event: error
    priority: 10
    condition:
      all:
        - path: error.code
          op: in
          value: [rate_limit, overloaded]
        - path: classification.category
          op: eq
          value: transient
    action:
      type: retry
      max_attempts: 3
  - id: either
    event: error
    when: "error.message.startsWith('quota') || size(error.message) > 20"
    action:
      type: abort
"#;

fn policy() -> Policy {
    hookc::compile::policy_from_sources(&[Input::new("hooks.yaml", POLICY)]).unwrap()
}

fn read(path: &str, value: Option<Value>) -> Read {
    Read {
        path: path.to_owned(),
        value,
    }
}

#[test]
fn the_sub_condition_that_decided_with_its_location_and_values() {
    let ctx = json!({
        "error": {"code": "rate_limit", "message": "slow down"},
        "classification": {"category": "permanent"}
    });
    let trace = policy()
        .query("error", &ctx)
        .with_overrides(&Overrides::default())
        .explain()
        .unwrap();
    let [first, second] = trace.hooks.as_slice() else {
        panic!("{trace:?}")
    };
    assert_eq!(first.at.as_deref(), Some("hooks.yaml:3:5"));
    assert_eq!(first.outcome, Outcome::NotMatched);
    assert_eq!(
        first.evaluated,
        vec![
            SubCondition {
                condition: "error.code in ['rate_limit', 'overloaded']".into(),
                at: "hooks.yaml:8:11".into(),
                result: Ok(json!(true)),
                reads: vec![read("error.code", Some(json!("rate_limit")))],
            },
            // The tree leaf's guard (`docs/src/semantics.md#condition-trees`).
            SubCondition {
                condition: "has(error.code)".into(),
                at: "hooks.yaml:8:17".into(),
                result: Ok(json!(true)),
                reads: vec![read("error.code", Some(json!("rate_limit")))],
            },
            SubCondition {
                condition: "classification.category == 'transient'".into(),
                at: "hooks.yaml:11:11".into(),
                result: Ok(json!(false)),
                reads: vec![read("classification.category", Some(json!("permanent")))],
            },
        ]
    );
    // `||`: both sides ran, the second decided; the `when` text's own
    // positions are in the file.
    assert_eq!(second.outcome, Outcome::NotMatched);
    let texts: Vec<(&str, &str)> = second
        .evaluated
        .iter()
        .map(|c| (c.condition.as_str(), c.at.as_str()))
        .collect();
    assert_eq!(
        texts,
        [
            ("error.message.startsWith('quota')", "hooks.yaml:19:12"),
            ("size(error.message) > 20", "hooks.yaml:19:49"),
        ]
    );
    let text = trace.to_text();
    assert!(
        text.contains(
            "hooks.yaml:11:11  `classification.category == 'transient'` -> false  <- decided"
        ),
        "{text}"
    );
    assert!(
        text.contains("classification.category = \"permanent\""),
        "{text}"
    );
}

#[test]
fn short_circuits_show_only_what_ran_and_missing_paths_say_so() {
    let ctx = json!({"error": {"message": "quota exceeded"}});
    let trace = policy()
        .query("error", &ctx)
        .with_overrides(&Overrides::default())
        .explain()
        .unwrap();
    let [first, second] = trace.hooks.as_slice() else {
        panic!("{trace:?}")
    };
    // `error.code in [...]` on a missing path is an error value, which
    // `&&` absorbs only if the other side is false: it ran and errored,
    // then the category (missing too) errored as well.
    assert_eq!(first.evaluated.len(), 2, "{first:?}");
    assert_eq!(first.evaluated[0].reads, vec![read("error.code", None)]);
    assert!(first.evaluated[0].result.is_err());
    // The `||` stopped at its first, true, operand.
    assert_eq!(second.outcome, Outcome::Matched);
    assert_eq!(second.evaluated.len(), 1);
    assert_eq!(second.evaluated[0].result, Ok(json!(true)));
    assert_eq!(trace.winner, Some(1));
    let j = trace.to_json();
    assert_eq!(j["winner"], "either");
    assert_eq!(j["hooks"][1]["decided_by"], 0);
    assert_eq!(
        j["hooks"][0]["evaluated"][0]["reads"],
        json!([{"path": "error.code", "missing": true}])
    );
    assert!(trace.to_text().contains("error.code is missing"));
    assert_eq!(trace.other_events, 0);
    // Hooks of other events are skipped: counted, not listed.
    let other = policy()
        .query("limit", &ctx)
        .with_overrides(&Overrides::default())
        .explain()
        .unwrap();
    assert!(other.hooks.is_empty());
    assert_eq!(other.other_events, 2);
    assert_eq!(other.to_json()["other_events"], 2);
    assert!(other
        .to_text()
        .starts_with("event `limit`: 0 hook(s); 2 skipped (other events)\n"));
}

#[test]
fn artifacts_keep_the_trace_and_stripped_ones_list_reads() {
    let p = policy();
    let ctx = json!({"error": {"code": "overloaded", "message": "x"},
                     "classification": {"category": "transient"}});
    let none = Overrides::default();
    let direct = p
        .query("error", &ctx)
        .with_overrides(&none)
        .explain()
        .unwrap();
    let loaded = Policy::from_artifact(&p.to_artifact()).unwrap();
    assert_eq!(
        loaded
            .query("error", &ctx)
            .with_overrides(&none)
            .explain()
            .unwrap(),
        direct
    );

    let stripped_bytes = p.to_artifact_stripped();
    assert!(stripped_bytes.len() < p.to_artifact().len());
    let stripped = Policy::from_artifact(&stripped_bytes).unwrap();
    let trace = stripped
        .query("error", &ctx)
        .with_overrides(&none)
        .explain()
        .unwrap();
    let first = &trace.hooks[0];
    assert_eq!(first.at, None);
    assert!(first.evaluated.is_empty());
    assert_eq!(
        first.reads,
        vec![
            read("error.code", Some(json!("overloaded"))),
            read("classification.category", Some(json!("transient"))),
        ]
    );
    assert_eq!(trace.winner, direct.winner);
}

/// Under `on_error: fail`, an evaluation that fails is still explained
/// (issue 35, defect 2): the trace lists every hook, names the one that
/// failed, and nothing decides, whatever matched before or after.
#[test]
fn a_failed_evaluation_is_explained() {
    let source = r#"
combine: strictest
on_error: fail
action_types:
  deny: {severity: 20, parameters: {reason: {type: string}}}
  ask: {severity: 10, parameters: {reason: {type: string}}}
event_context_schema:
  type: object
  properties:
    n: {}
    cmd: {type: string}
hooks:
  - id: first
    event: E
    when: "cmd == 'x'"
    action: {type: ask, reason: "x?"}
  - id: count
    event: E
    when: "n > 3"
    action: {type: deny, reason: "many"}
  - id: last
    event: E
    when: "cmd.startsWith('x')"
    action: {type: deny, reason: "no x"}
"#;
    let policy = hookc::compile::policy_from_sources(&[Input::new("p.yaml", source)]).unwrap();
    let ctx = json!({"n": "many", "cmd": "x"});
    // The decision is the error.
    assert!(policy.query("E", &ctx).decision().is_err());
    let trace = policy.query("E", &ctx).explain().unwrap();
    assert_eq!(trace.hooks.len(), 3);
    assert_eq!(trace.model.failed, Some(1));
    assert_eq!(trace.winner, None);
    let json = trace.to_json();
    assert_eq!(json["failed"], "count");
    assert!(json.get("winner").is_none_or(Value::is_null), "{json}");
    let text = trace.to_text();
    assert!(text.contains("1. first (priority 0, p.yaml:13:5): matched (but the evaluation fails at `count`: nothing decides)"), "{text}");
    assert!(text.contains("3. last (priority 0, p.yaml:21:5): matched (after the evaluation failed: decides nothing)"), "{text}");
    assert!(
        text.ends_with("result: the evaluation fails at count\n"),
        "{text}"
    );
    // A context on which nothing fails decides as before.
    let trace = policy
        .query("E", &json!({"n": 1, "cmd": "x"}))
        .explain()
        .unwrap();
    assert_eq!(trace.model.failed, None);
    assert_eq!(trace.winner, Some(2));
}

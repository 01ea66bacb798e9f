//! Unit tests of `hookc test`.

use super::file::*;
use super::run::*;
use hookc::compile::Input;
use hookc::diag::Code;
use hookc_runtime::Policy;
use serde_json::json;
use std::path::{Path, PathBuf};

const POLICY: &str = r#"
hooks:
  - id: rate_limited
    event: error
    priority: 10
    when: "classification.category == 'rate_limited'"
    action: {type: retry, max_attempts: 5, backoff_policy: exponential}
  - id: anything
    event: error
    action: {type: fail, error_message: "failed: ${error.code}"}
"#;

fn policy() -> Policy {
    hookc::compile::policy_from_sources(&[Input::new("p.yaml", POLICY)]).unwrap()
}

fn parse(text: &str) -> Result<TestFile, Invalid> {
    TestFile::parse("t.test.yaml", text, Path::new("dir"))
}

fn codes(invalid: &Invalid) -> Vec<(&str, Option<&str>)> {
    invalid
        .diagnostics
        .iter()
        .map(|d| (d.code.as_str(), d.node_path.as_deref()))
        .collect()
}

#[test]
fn parses_cases_and_resolves_policy_paths_against_the_test_file() {
    let t = parse(
            "policy: [../p.yaml, q.xml]\ncases:\n  - name: a\n    event: error\n    disabled: [x]\n    expect: {hook: null}\n",
        )
        .unwrap();
    let names: Vec<_> = t
        .policy()
        .unwrap()
        .iter()
        .map(|f| (f.name.as_str(), f.path.clone()))
        .collect();
    assert_eq!(
        names,
        [
            ("../p.yaml", PathBuf::from("p.yaml")),
            ("q.xml", PathBuf::from("dir/q.xml"))
        ]
    );
    let case = &t.cases()[0];
    assert_eq!((case.name.as_str(), case.event.as_str()), ("a", "error"));
    assert_eq!(case.context, json!({}));
    assert_eq!(case.disabled[0].value, "x");
    assert_eq!(case.expect.hook.value, None);
    assert_eq!(t.location(case.span), "t.test.yaml:3:5");
}

#[test]
fn structural_mistakes_are_diagnostics_with_node_paths() {
    let invalid = parse(
            "policy: p.yaml\ncases:\n  - name: a\n    evnt: error\n    expect: {hook: h, action: {type: abort}, extra: 1}\n  - name: a\n    event: error\n    expect: {hook: null, action: {type: abort}}\n",
        )
        .unwrap_err();
    assert_eq!(
        codes(&invalid),
        [
            ("E0100", Some("cases[0].evnt")),
            ("E0100", Some("cases[0].expect.extra")),
            ("E0101", Some("cases[0]")),
            ("E0102", Some("cases[1].expect.action")),
        ]
    );
    assert_eq!(
        invalid.diagnostics[0].help.as_deref(),
        Some("did you mean `event`?")
    );
    let text = invalid.render();
    assert!(text.contains("t.test.yaml:4:5"), "{text}");
}

#[test]
fn duplicate_case_names_and_missing_cases_are_errors() {
    let dup = parse("cases:\n  - {name: a, event: e, expect: {hook: null}}\n  - {name: a, event: e, expect: {hook: null}}\n").unwrap_err();
    assert_eq!(codes(&dup), [("E0110", Some("cases[1].name"))]);
    let none = parse("policy: p.yaml\n").unwrap_err();
    assert_eq!(codes(&none), [("E0101", Some("cases"))]);
    let yaml = parse("cases: [\n").unwrap_err();
    assert_eq!(yaml.diagnostics[0].code, Code::YamlSyntax);
}

#[test]
fn unknown_hook_ids_are_reported_with_a_did_you_mean() {
    let t = parse(
        "cases:\n  - {name: a, event: error, disabled: [anythin], expect: {hook: rate_limitd}}\n",
    )
    .unwrap();
    let invalid = t.check_ids(&policy()).unwrap_err();
    let helps: Vec<_> = invalid
        .diagnostics
        .iter()
        .map(|d| d.help.as_deref())
        .collect();
    assert_eq!(
        helps,
        [
            Some("did you mean `rate_limited`?"),
            Some("did you mean `anything`?")
        ]
    );
    assert_eq!(
        invalid.diagnostics[0].node_path.as_deref(),
        Some("cases[0].expect.hook")
    );
}

fn run_one(case_yaml: &str) -> TestResult {
    let t = parse(&format!("cases:\n  - {case_yaml}\n")).unwrap();
    let p = policy();
    t.check_ids(&p).unwrap();
    t.run(&p).remove(0)
}

#[test]
fn a_passing_case_compares_only_the_given_action_fields() {
    let r = run_one(
            "{name: a, event: error, context: {classification: {category: rate_limited}}, expect: {hook: rate_limited, action: {max_attempts: 5}}}",
        );
    assert!(r.passed(), "{r:?}");
    assert_eq!(r.trace, None);
    assert_eq!(r.actual["hook"], "rate_limited");
}

#[test]
fn a_failing_case_names_every_difference_and_carries_the_trace() {
    let r = run_one(
            "{name: a, event: error, context: {error: {code: E1}}, expect: {hook: anything, action: {error_message: \"failed: E2\", delay: 1}}}",
        );
    assert_eq!(
        r.mismatches,
        [
            Mismatch::ActionField {
                field: "error_message".into(),
                expected: json!("failed: E2"),
                actual: Some(json!("failed: E1")),
            },
            Mismatch::ActionField {
                field: "delay".into(),
                expected: json!(1),
                actual: None,
            },
        ]
    );
    let trace = r.trace.unwrap();
    assert_eq!(trace.hooks.len(), 2);
    assert_eq!(trace.winner, Some(1));
    // JSON types count: `5` is not `"5"`.
    let r = run_one(
            "{name: a, event: error, context: {classification: {category: rate_limited}}, expect: {hook: rate_limited, action: {max_attempts: \"5\"}}}",
        );
    assert!(!r.passed());
}

#[test]
fn disabled_hooks_are_switched_off_for_the_case() {
    let r = run_one("{name: a, event: error, disabled: [anything], expect: {hook: null}}");
    assert!(r.passed(), "{r:?}");
    let r = run_one("{name: a, event: error, expect: {hook: null}}");
    assert_eq!(
        r.mismatches,
        [Mismatch::Hook {
            expected: None,
            actual: Some("anything".into())
        }]
    );
}

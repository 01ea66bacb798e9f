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
    assert_eq!(case.expect.hook.as_ref().unwrap().value, None);
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

/// A result for no hook would leave the case pending, silently (issue 35,
/// defect 4): an unknown id is reported with the closest hook that awaits;
/// a hook that awaits nothing takes a result it ignores.
#[test]
fn results_for_unknown_hooks_are_reported() {
    let awaiting = hookc::compile::policy_from_sources(&[Input::new(
        "m.yaml",
        include_str!("../../../hookc/tests/wire/policies/model.yaml"),
    )])
    .unwrap();
    let t = parse(
        "cases:\n  - {name: a, event: PreToolUse, results: {brnch: main, ask_rm: 1, branch: dev}, expect: {hook: null}}\n",
    )
    .unwrap();
    let invalid = t.check_ids(&awaiting).unwrap_err();
    let messages: Vec<&str> = invalid
        .diagnostics
        .iter()
        .map(|d| d.message.as_str())
        .collect();
    assert_eq!(
        messages,
        ["a result is given for `brnch`, which is no hook of the policy; did you mean `branch`?"]
    );
    assert_eq!(
        invalid.diagnostics[0].node_path.as_deref(),
        Some("cases[0].results.brnch")
    );
}

#[test]
fn unknown_disabled_ids_are_ignored_when_the_file_says_so() {
    let t = parse(
        "ignore_unknown_disables: true\ncases:\n  - {name: a, event: error, disabled: [rate_limited, not_a_hook], context: {classification: {category: rate_limited}}, expect: {hook: anything}}\n",
    )
    .unwrap();
    let p = policy();
    t.check_ids(&p).unwrap();
    let r = t.run(&p).remove(0);
    assert!(r.passed(), "{r:?}");
    // The report lists the hooks switched off, not the ignored ids.
    assert_eq!(r.disabled, ["rate_limited"]);
    // Without the key, the unknown id is an error; the key takes a bool.
    let strict = parse(
        "ignore_unknown_disables: false\ncases:\n  - {name: a, event: error, disabled: [not_a_hook], expect: {hook: anything}}\n",
    )
    .unwrap();
    let invalid = strict.check_ids(&p).unwrap_err();
    assert_eq!(codes(&invalid), [("E0102", Some("cases[0].disabled[0]"))]);
    let bad = parse("ignore_unknown_disables: yes please\ncases: []\n").unwrap_err();
    assert_eq!(codes(&bad), [("E0102", Some("ignore_unknown_disables"))]);
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
                hook: "anything".into(),
                collected: false,
                field: "error_message".into(),
                expected: json!("failed: E2"),
                actual: Some(json!("failed: E1")),
            },
            Mismatch::ActionField {
                hook: "anything".into(),
                collected: false,
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

/// A policy with collected actions: two observers, then a terminal deny.
const COLLECTING: &str = r#"
action_types:
  log:
    effect: collected
    parameters:
      message: {type: string, required: true}
  deny:
    parameters:
      reason: {type: string}
hooks:
  - id: log_all
    event: tool
    priority: 30
    action: {type: log, message: "tool ${tool.name}"}
  - id: deny_rm
    event: tool
    priority: 20
    when: "tool.name == 'rm'"
    action: {type: deny, reason: no}
  - id: log_late
    event: tool
    priority: 10
    action: {type: log, message: late}
"#;

fn run_collecting(case_yaml: &str) -> TestResult {
    let t = parse(&format!("cases:\n  - {case_yaml}\n")).unwrap();
    let p = hookc::compile::policy_from_sources(&[Input::new("c.yaml", COLLECTING)]).unwrap();
    t.check_ids(&p).unwrap();
    t.run(&p).remove(0)
}

#[test]
fn collected_matches_are_compared_exactly_and_in_order_when_given() {
    // Denied: the observer before the deny is collected, the one after is not.
    let r = run_collecting(
        "{name: a, event: tool, context: {tool: {name: rm}}, expect: {hook: deny_rm, collected: [{hook: log_all, action: {message: tool rm}}]}}",
    );
    assert!(r.passed(), "{r:?}");
    assert_eq!(r.actual["collected"][0]["hook"], "log_all");
    assert_eq!(r.expected["collected"][0]["action"]["message"], "tool rm");
    // Not denied: both observers, no decision.
    let r = run_collecting(
        "{name: a, event: tool, context: {tool: {name: ls}}, expect: {hook: null, collected: [log_all, log_late]}}",
    );
    assert!(r.passed(), "{r:?}");
    // Without `collected`, only the decision is compared.
    let r = run_collecting(
        "{name: a, event: tool, context: {tool: {name: rm}}, expect: {hook: deny_rm}}",
    );
    assert!(r.passed(), "{r:?}");
}

#[test]
fn collected_mismatches_name_the_lists_or_the_field() {
    let r = run_collecting(
        "{name: a, event: tool, context: {tool: {name: ls}}, expect: {hook: null, collected: [log_late, log_all]}}",
    );
    assert_eq!(
        r.mismatches,
        [Mismatch::Collected {
            expected: vec!["log_late".into(), "log_all".into()],
            actual: vec!["log_all".into(), "log_late".into()],
        }]
    );
    let r = run_collecting(
        "{name: a, event: tool, context: {tool: {name: rm}}, expect: {hook: deny_rm, collected: []}}",
    );
    assert_eq!(
        r.mismatches,
        [Mismatch::Collected {
            expected: vec![],
            actual: vec!["log_all".into()],
        }]
    );
    let r = run_collecting(
        "{name: a, event: tool, context: {tool: {name: ls}}, expect: {hook: null, collected: [{hook: log_all, action: {message: tool rm}}, log_late]}}",
    );
    assert_eq!(
        r.mismatches,
        [Mismatch::ActionField {
            hook: "log_all".into(),
            collected: true,
            field: "message".into(),
            expected: json!("tool rm"),
            actual: Some(json!("tool ls")),
        }]
    );
}

#[test]
fn collected_entries_are_checked_like_the_rest_of_the_file() {
    let e = parse("cases:\n  - {name: a, event: tool, expect: {hook: null, collected: 3}}\n")
        .unwrap_err();
    assert_eq!(
        codes(&e),
        [("E0102", Some("cases[0].expect.collected"))],
        "{}",
        e.render()
    );
    let e = parse(
        "cases:\n  - {name: a, event: tool, expect: {hook: null, collected: [{action: {}}]}}\n",
    )
    .unwrap_err();
    assert!(
        codes(&e).contains(&("E0101", Some("cases[0].expect.collected[0]"))),
        "{}",
        e.render()
    );
    let t =
        parse("cases:\n  - {name: a, event: tool, expect: {hook: null, collected: [log_al]}}\n")
            .unwrap();
    let p = hookc::compile::policy_from_sources(&[Input::new("c.yaml", COLLECTING)]).unwrap();
    let e = t.check_ids(&p).unwrap_err();
    assert!(
        e.render().contains("did you mean `log_all`"),
        "{}",
        e.render()
    );
}

/// A policy whose action fills an enum parameter from the context.
const TYPED: &str = r#"
hooks:
  - id: esc
    event: limit
    action: {type: escalate, target: "${code}"}
"#;

fn run_typed(case_yaml: &str) -> TestResult {
    let t = parse(&format!("cases:\n  - {case_yaml}\n")).unwrap();
    let p = hookc::compile::policy_from_sources(&[Input::new("t.yaml", TYPED)]).unwrap();
    t.check_ids(&p).unwrap();
    t.run(&p).remove(0)
}

#[test]
fn an_expected_error_passes_only_when_the_evaluation_fails_with_it() {
    let r = run_typed("{name: a, event: limit, context: {code: nuke}, expect: {error: 'is \"nuke\", not one of'}}");
    assert!(r.passed(), "{r:?}");
    assert_eq!(r.expected, json!({"error": "is \"nuke\", not one of"}));
    // Another message, or no error at all, fails the case.
    let r = run_typed(
        "{name: a, event: limit, context: {code: nuke}, expect: {error: 'not an integer'}}",
    );
    assert!(
        matches!(
            &r.mismatches[..],
            [Mismatch::Error {
                expected: Some(_),
                actual: Some(_)
            }]
        ),
        "{r:?}"
    );
    let r =
        run_typed("{name: a, event: limit, context: {code: both}, expect: {error: 'not one of'}}");
    assert!(
        matches!(
            &r.mismatches[..],
            [Mismatch::Error {
                expected: Some(_),
                actual: None
            }]
        ),
        "{r:?}"
    );
    // A failure where a decision is expected names the error.
    let r = run_typed("{name: a, event: limit, context: {code: nuke}, expect: {hook: esc}}");
    assert!(
        matches!(&r.mismatches[..], [Mismatch::Error { expected: None, actual: Some(e) }] if e.contains("nuke")),
        "{r:?}"
    );
}

#[test]
fn an_error_and_a_decision_cannot_both_be_expected() {
    let e =
        parse("cases:\n  - {name: a, event: limit, expect: {error: x, hook: esc}}\n").unwrap_err();
    assert!(
        e.render().contains("`error` and `hook` given"),
        "{}",
        e.render()
    );
}

#[test]
fn a_case_may_check_collected_alone_but_must_check_something() {
    // Without `hook`, the decision is not compared: denied or not, the
    // observers before it are what the case checks.
    let r = run_collecting(
        "{name: a, event: tool, context: {tool: {name: rm}}, expect: {collected: [log_all]}}",
    );
    assert!(r.passed(), "{r:?}");
    assert_eq!(r.expected, json!({"collected": [{"hook": "log_all"}]}));
    let r = run_collecting(
        "{name: a, event: tool, context: {tool: {name: ls}}, expect: {collected: [log_all]}}",
    );
    assert_eq!(
        r.mismatches,
        [Mismatch::Collected {
            expected: vec!["log_all".to_owned()],
            actual: vec!["log_all".to_owned(), "log_late".to_owned()],
        }]
    );
    // No expectation at all, or an action without its hook, is an error.
    let none = parse("cases:\n  - {name: a, event: e, expect: {}}\n").unwrap_err();
    assert_eq!(codes(&none), [("E0101", Some("cases[0].expect"))]);
    assert!(
        none.diagnostics[0]
            .help
            .as_deref()
            .unwrap()
            .contains("`collected`"),
        "{:?}",
        none.diagnostics[0]
    );
    let action =
        parse("cases:\n  - {name: a, event: e, expect: {action: {type: abort}, collected: []}}\n")
            .unwrap_err();
    assert_eq!(codes(&action), [("E0102", Some("cases[0].expect.action"))]);
}

//! A YAML condition tree and the `when` expression of the same meaning give
//! the same IR (`docs/src/semantics.md#condition-trees`), and the same normalized output.

#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]

use hookc::compile::{compile, Input};

/// Compiles one hook with `condition:` (a YAML flow mapping) and one with
/// `when:`, and compares their IR.
fn assert_same(tree: &str, when: &str) {
    let src = format!(
        "hooks:\n  - id: tree\n    event: e\n    condition: {tree}\n    action: {{type: abort}}\n  - id: when\n    event: e\n    when: {when:?}\n    action: {{type: abort}}\n"
    );
    let c = compile(&[Input::new("eq.yaml", src.clone())]);
    assert!(!c.diagnostics.has_errors(), "{src}\n{:?}", c.diagnostics);
    let policy = c.policy.unwrap();
    let by_id = |id: &str| policy.hooks().iter().find(|h| h.id == id).unwrap();
    let (a, b) = (by_id("tree"), by_id("when"));
    let (ca, cb) = (a.condition.as_ref().unwrap(), b.condition.as_ref().unwrap());
    assert!(
        ca.same_as(cb),
        "not the same IR:\n tree: {tree}\n when: {when}\n{ca:#?}\n{cb:#?}"
    );
    assert_eq!(ca.to_source(policy.paths()), cb.to_source(policy.paths()));
}

#[test]
fn every_leaf_operator_matches_its_expression() {
    assert_same(
        "{path: classification.category, op: eq, value: rate_limited}",
        "classification.category == 'rate_limited'",
    );
    assert_same(
        "{path: error.code, op: ne, value: E42}",
        "error.code != 'E42'",
    );
    assert_same(
        "{path: pressure_ratio, op: gt, value: 0.85}",
        "pressure_ratio > 0.85",
    );
    assert_same(
        "{path: tokens_used, op: gte, value: 1000}",
        "tokens_used >= 1000",
    );
    assert_same(
        "{path: limit_value, op: lt, value: -1.5}",
        "limit_value < -1.5",
    );
    assert_same(
        "{path: turn_number, op: lte, value: -3}",
        "turn_number <= -3",
    );
    assert_same(
        "{path: error.code, op: in, value: [E1, E2]}",
        "error.code in ['E1', 'E2']",
    );
    assert_same(
        "{path: error.message, op: contains, value: quota}",
        "error.message.contains('quota')",
    );
    assert_same(
        "{path: error.message, op: starts_with, value: rate}",
        "error.message.startsWith('rate')",
    );
    assert_same(
        "{path: error.message, op: ends_with, value: later}",
        "error.message.endsWith('later')",
    );
    assert_same(
        "{path: error.message, op: regex, value: '^rate.*limit'}",
        "error.message.matches('^rate.*limit')",
    );
    assert_same(
        "{path: limit_code, op: exists}",
        "has(limit_code) && limit_code != null",
    );
    assert_same(
        "{path: \"error.headers['retry-after']\", op: exists}",
        "has(error.headers['retry-after']) && error.headers['retry-after'] != null",
    );
}

#[test]
fn combinators_match_operators() {
    assert_same(
        "{all: [{path: limit_code, op: eq, value: spend_exceeded}, {path: cost.spend, op: gt, value: 10.0}]}",
        "limit_code == 'spend_exceeded' && cost.spend > 10.0",
    );
    assert_same(
        "{any: [{path: error.code, op: eq, value: a}, {path: error.code, op: eq, value: b}, {path: error.code, op: eq, value: c}]}",
        "error.code == 'a' || error.code == 'b' || error.code == 'c'",
    );
    assert_same(
        "{not: {path: classification.retryable, op: eq, value: true}}",
        "!(classification.retryable == true)",
    );
    assert_same(
        "{all: [{any: [{path: error.type, op: eq, value: x}, {not: {path: error.code, op: exists}}]}, {path: turn_number, op: lt, value: 5}]}",
        "(error.type == 'x' || !(has(error.code) && error.code != null)) && turn_number < 5",
    );
    assert_same("{all: []}", "true");
    assert_same("{any: []}", "false");
}

#[test]
fn word_aliases_give_the_same_ir_as_symbols() {
    assert_same(
        "{all: [{path: error.code, op: eq, value: a}, {not: {path: error.type, op: eq, value: b}}]}",
        "error.code == 'a' and not (error.type == 'b')",
    );
}

#[test]
fn xml_and_yaml_give_the_same_normalized_output() {
    let xml = r#"<directive name="d"><hooks>
      <hook id="h" event="error" when="classification.category == 'rate_limited'">
        <directive>my_app/custom_backoff</directive>
      </hook></hooks></directive>"#;
    let yaml = "hooks:\n  - id: h\n    event: error\n    condition: {path: classification.category, op: eq, value: rate_limited}\n    action: {type: call_directive, directive: my_app/custom_backoff}\n";
    let emit = |input: Input| {
        let c = compile(&[input]);
        assert!(!c.diagnostics.has_errors(), "{:?}", c.diagnostics);
        hookc::normalize::to_yaml(c.policy.as_ref().unwrap()).unwrap()
    };
    assert_eq!(
        emit(Input::new("a.xml", xml)),
        emit(Input::new("a.yaml", yaml))
    );
}

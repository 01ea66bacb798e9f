//! A YAML condition tree and the `when` expression of the same meaning give
//! the same IR (`docs/src/semantics.md#condition-trees`): a tree means what
//! seed 000's evaluator means, so its `when` twin guards each comparison
//! with `has()`; the string operators' type guard has no `when` spelling and
//! is checked on the IR.

use hookc::check::ty::Kinds;
use hookc::compile::{compile, Input};
use hookc::ir::IrExprKind;

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

/// Compiles a tree leaf of a string operator and asserts that its IR is
/// `when && p is string`: the guard has no `when` spelling.
fn assert_string_guarded(tree: &str, when: &str) {
    let src = format!(
        "hooks:\n  - id: tree\n    event: e\n    condition: {tree}\n    action: {{type: abort}}\n  - id: when\n    event: e\n    when: {when:?}\n    action: {{type: abort}}\n"
    );
    let c = compile(&[Input::new("eq.yaml", src.clone())]);
    assert!(!c.diagnostics.has_errors(), "{src}\n{:?}", c.diagnostics);
    let policy = c.policy.unwrap();
    let by_id = |id: &str| policy.hooks().iter().find(|h| h.id == id).unwrap();
    let (a, b) = (by_id("tree"), by_id("when"));
    let (ca, cb) = (a.condition.as_ref().unwrap(), b.condition.as_ref().unwrap());
    let IrExprKind::And(core, guard) = &ca.kind else {
        panic!("{tree}: not `core && guard`: {ca:#?}");
    };
    assert!(core.same_as(cb), "{tree}: core is not `{when}`: {ca:#?}");
    let IrExprKind::TypeIs(subject, kinds) = &guard.kind else {
        panic!("{tree}: the guard is no type test: {guard:#?}");
    };
    assert_eq!(*kinds, Kinds::STRING);
    assert!(matches!(subject.kind, IrExprKind::Path(_)));
}

#[test]
fn every_leaf_operator_matches_its_expression() {
    // `eq`: false where the path is absent (`None == v`).
    assert_same(
        "{path: classification.category, op: eq, value: rate_limited}",
        "classification.category == 'rate_limited' && has(classification.category)",
    );
    // `eq null`: true where it is absent (`None == None`).
    assert_same(
        "{path: error.code, op: eq, value: null}",
        "!has(error.code) || error.code == null",
    );
    // `ne`: true where it is absent (`None != v`).
    assert_same(
        "{path: error.code, op: ne, value: E42}",
        "!has(error.code) || error.code != 'E42'",
    );
    // `ne null` is `exists` (`a != None` is `a is not None`).
    assert_same(
        "{path: error.code, op: ne, value: null}",
        "has(error.code) && error.code != null",
    );
    // Ordering: an error where it is absent, as Python raises.
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
    // `in`: `None in list` is true only when the list holds `null`.
    assert_same(
        "{path: error.code, op: in, value: [E1, E2]}",
        "error.code in ['E1', 'E2'] && has(error.code)",
    );
    assert_same(
        "{path: error.code, op: in, value: [E1, null]}",
        "!has(error.code) || error.code in ['E1', null]",
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
fn string_operators_are_false_on_non_strings() {
    assert_string_guarded(
        "{path: error.message, op: contains, value: quota}",
        "error.message.contains('quota')",
    );
    assert_string_guarded(
        "{path: error.message, op: starts_with, value: rate}",
        "error.message.startsWith('rate')",
    );
    assert_string_guarded(
        "{path: error.message, op: ends_with, value: later}",
        "error.message.endsWith('later')",
    );
    assert_string_guarded(
        "{path: error.message, op: regex, value: '^rate.*limit'}",
        "error.message.matches('^rate.*limit')",
    );
    assert_string_guarded(
        "{path: error.message, op: glob, value: 'rate*'}",
        "error.message.glob('rate*')",
    );
}

#[test]
fn combinators_match_operators() {
    // Leaves that cannot fail join with `&&`/`||`, spliced into one chain.
    assert_same(
        "{all: [{path: limit_code, op: eq, value: spend_exceeded}, {path: cost.spend, op: gt, value: 10.0}]}",
        "limit_code == 'spend_exceeded' && has(limit_code) && cost.spend > 10.0",
    );
    assert_same(
        "{any: [{path: error.code, op: eq, value: a}, {path: error.code, op: ne, value: b}, {path: error.code, op: eq, value: c}]}",
        "(error.code == 'a' && has(error.code)) || !has(error.code) || error.code != 'b' || (error.code == 'c' && has(error.code))",
    );
    assert_same(
        "{not: {path: classification.retryable, op: eq, value: true}}",
        "!(classification.retryable == true && has(classification.retryable))",
    );
    // After an item that can fail, `?:`: Python raises there, where CEL's
    // `err && false` would be `false`.
    assert_same(
        "{all: [{path: cost.spend, op: gt, value: 10.0}, {path: limit_code, op: eq, value: x}, {path: turn_number, op: lt, value: 5}]}",
        "(cost.spend > 10.0 ? limit_code == 'x' && has(limit_code) : false) ? turn_number < 5 : false",
    );
    assert_same(
        "{any: [{path: cost.spend, op: gt, value: 10.0}, {path: limit_code, op: eq, value: x}]}",
        "cost.spend > 10.0 ? true : limit_code == 'x' && has(limit_code)",
    );
    assert_same(
        "{all: [{any: [{path: error.type, op: eq, value: x}, {not: {path: error.code, op: exists}}]}, {path: turn_number, op: lt, value: 5}]}",
        "((error.type == 'x' && has(error.type)) || !(has(error.code) && error.code != null)) && turn_number < 5",
    );
    assert_same(
        "{all: [{not: {path: turn_number, op: lt, value: 5}}, {path: error.type, op: eq, value: x}]}",
        "!(turn_number < 5) ? error.type == 'x' && has(error.type) : false",
    );
    assert_same("{all: []}", "true");
    assert_same("{any: []}", "false");
}

#[test]
fn word_aliases_give_the_same_ir_as_symbols() {
    assert_same(
        "{all: [{path: error.code, op: eq, value: a}, {not: {path: error.type, op: eq, value: b}}]}",
        "error.code == 'a' and has(error.code) and not (error.type == 'b' and has(error.type))",
    );
}

#[test]
fn xml_and_yaml_give_the_same_normalized_output() {
    // An XML `when` is a `when` in YAML too; it is not rewritten as a tree,
    // which would mean something else where the path is absent.
    let xml = r#"<directive name="d"><hooks>
      <hook id="h" event="error" when="classification.category == 'rate_limited'">
        <directive>my_app/custom_backoff</directive>
      </hook></hooks></directive>"#;
    let when = "hooks:\n  - id: h\n    event: error\n    when: \"classification.category == 'rate_limited'\"\n    action: {type: call_directive, directive: my_app/custom_backoff}\n";
    let tree = "hooks:\n  - id: h\n    event: error\n    condition: {path: classification.category, op: eq, value: rate_limited}\n    action: {type: call_directive, directive: my_app/custom_backoff}\n";
    let emit = |input: Input| {
        let c = compile(&[input]);
        assert!(!c.diagnostics.has_errors(), "{:?}", c.diagnostics);
        hookc::normalize::to_yaml(c.policy.as_ref().unwrap()).unwrap()
    };
    let from_xml = emit(Input::new("a.xml", xml));
    assert_eq!(from_xml, emit(Input::new("a.yaml", when)));
    assert!(
        from_xml.contains("when: classification.category == 'rate_limited'"),
        "{from_xml}"
    );
    let from_tree = emit(Input::new("b.yaml", tree));
    assert!(from_tree.contains("op: eq"), "{from_tree}");
    assert_eq!(emit(Input::new("c.yaml", from_tree.clone())), from_tree);
}

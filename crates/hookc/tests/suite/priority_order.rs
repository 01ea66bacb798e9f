//! `priority_order:` declares which priorities run first
//! (`docs/src/semantics.md#hook-order`): hook registries that run lower
//! priorities first are ported without rewriting every priority.

use hookc::compile::{compile, Input};
use hookc::diag::Code;
use hookc::ir::PriorityOrder;
use serde_json::json;

const HOOKS: &str = r#"
hooks:
  - {id: audit, event: tool, priority: 10, action: {type: abort}}
  - {id: guard, event: tool, priority: 100, action: {type: abort}}
  - {id: also_audit, event: tool, priority: 10, action: {type: abort}}
"#;

fn order(inputs: &[Input]) -> Vec<String> {
    let c = compile(inputs);
    assert!(!c.diagnostics.has_errors(), "{:#?}", c.diagnostics);
    let policy = c.policy.unwrap();
    policy.hooks().iter().map(|h| h.id.clone()).collect()
}

/// The one error of a compilation whose second file says `higher_first`
/// after a first that says `lower_first`.
fn disagreement(c: &hookc::compile::Compilation) -> Vec<&hookc::diag::Diagnostic> {
    let errors: Vec<_> = c.diagnostics.iter().filter(|d| d.is_error()).collect();
    assert_eq!(errors.len(), 1, "{errors:#?}");
    assert_eq!(errors[0].code, Code::DuplicateDefinition);
    assert_eq!(
        errors[0].message,
        "`priority_order` is `higher_first` here but `lower_first` in another file"
    );
    errors
}

#[test]
fn higher_first_is_the_default_and_can_be_written() {
    let default = order(&[Input::new("a.yaml", HOOKS)]);
    assert_eq!(default, ["guard", "audit", "also_audit"]);
    let written = format!("priority_order: higher_first\n{HOOKS}");
    assert_eq!(order(&[Input::new("a.yaml", written)]), default);
}

#[test]
fn lower_first_reverses_priorities_but_not_source_order() {
    let text = format!("priority_order: lower_first\n{HOOKS}");
    assert_eq!(
        order(&[Input::new("a.yaml", text.clone())]),
        ["audit", "also_audit", "guard"]
    );
    // The first match follows the same order.
    let policy = compile(&[Input::new("a.yaml", text)])
        .into_policy()
        .unwrap();
    let m = policy
        .evaluate("tool", &json!({}))
        .unwrap()
        .terminal
        .unwrap();
    assert_eq!(m.hook, "audit");
}

#[test]
fn a_file_without_a_declaration_follows_the_one_that_has_it() {
    let declared = "priority_order: lower_first\nhooks: []\n";
    let got = order(&[Input::new("a.yaml", HOOKS), Input::new("b.yaml", declared)]);
    assert_eq!(got, ["audit", "also_audit", "guard"]);
}

#[test]
fn files_that_disagree_are_an_error_naming_both() {
    let c = compile(&[
        Input::new("a.yaml", format!("priority_order: lower_first\n{HOOKS}")),
        Input::new("b.yaml", "priority_order: higher_first\nhooks: []\n"),
    ]);
    assert!(c.policy.is_none());
    let errors = disagreement(&c);
    assert!(
        errors[0]
            .notes
            .iter()
            .any(|n| n == "`lower_first` is declared at a.yaml:1:17"),
        "{:?}",
        errors[0].notes
    );
}

#[test]
fn a_bad_value_is_an_error_with_a_suggestion() {
    let c = compile(&[Input::new(
        "a.yaml",
        "priority_order: lower_frist\nhooks: []\n",
    )]);
    let errors: Vec<_> = c.diagnostics.iter().filter(|d| d.is_error()).collect();
    assert_eq!(errors.len(), 1, "{errors:#?}");
    assert_eq!(errors[0].code, Code::WrongShape);
    assert_eq!(
        errors[0].help.as_deref(),
        Some("did you mean `lower_first`?")
    );
}

#[test]
fn normalized_output_keeps_the_direction() {
    let text = format!("priority_order: lower_first\n{HOOKS}");
    let c = compile(&[Input::new("a.yaml", text)]);
    let policy = c.policy.unwrap();
    assert_eq!(policy.priority_order(), PriorityOrder::LowerFirst);
    let yaml = hookc::normalize::to_yaml(&policy).unwrap();
    assert!(yaml.contains("priority_order: lower_first"), "{yaml}");
    // It compiles to the same order and the same output again.
    let again = compile(&[Input::new("normalized.yaml", yaml.clone())]);
    let again = again.policy.unwrap();
    let ids = |p: &hookc::check::policy::CheckedPolicy| -> Vec<String> {
        p.hooks().iter().map(|h| h.id.clone()).collect()
    };
    assert_eq!(ids(&again), ids(&policy));
    assert_eq!(hookc::normalize::to_yaml(&again).unwrap(), yaml);
    // The default writes nothing.
    let default = compile(&[Input::new("a.yaml", HOOKS)]).policy.unwrap();
    assert!(!hookc::normalize::to_yaml(&default)
        .unwrap()
        .contains("priority_order"));
}

#[test]
fn the_artifact_records_the_direction_and_the_verifier_checks_it() {
    use hookc_runtime::artifact::FLAG_LOWER_FIRST;
    use hookc_runtime::bytecode::PriorityOrder as Order;
    let lower = format!("priority_order: lower_first\n{HOOKS}");
    let policy = compile(&[Input::new("a.yaml", lower)])
        .into_policy()
        .unwrap();
    let bytes = policy.to_artifact();
    // Header bytes 10..12 are the flags (little-endian).
    assert_eq!(bytes[10..12], FLAG_LOWER_FIRST.to_le_bytes());
    let loaded = hookc_runtime::Policy::from_artifact(&bytes).unwrap();
    assert_eq!(loaded.program().priority_order, Order::LowerFirst);
    assert_eq!(
        loaded
            .evaluate("tool", &json!({}))
            .unwrap()
            .terminal
            .unwrap()
            .hook,
        "audit"
    );
    // The default writes no flag, as before the flag existed.
    let default = compile(&[Input::new("a.yaml", HOOKS)])
        .into_policy()
        .unwrap();
    assert_eq!(default.to_artifact()[10..12], [0, 0]);
    // Hooks sorted one way under the other direction's flag do not verify.
    let mut program = default.program().clone();
    program.priority_order = Order::LowerFirst;
    assert!(matches!(
        hookc_runtime::verify::verify(program),
        Err(hookc_runtime::verify::VerifyError::OutOfOrder { .. })
    ));
}

#[test]
fn directive_xml_declares_it_on_hooks() {
    let xml = r#"<directive><hooks priority_order="lower_first">
  <hook id="x_guard" event="tool" priority="100"><abort/></hook>
  <hook id="x_audit" event="tool" priority="10"><abort/></hook>
</hooks></directive>"#;
    let got = order(&[Input::new("a.xml", xml)]);
    assert_eq!(got, ["x_audit", "x_guard"]);
    // Against a YAML file: the same E0110, naming both.
    let c = compile(&[
        Input::new("a.xml", xml),
        Input::new("b.yaml", "priority_order: higher_first\nhooks: []\n"),
    ]);
    let errors = disagreement(&c);
    assert!(
        errors[0].notes.iter().any(|n| n.contains("a.xml:1:")),
        "{:?}",
        errors[0].notes
    );
    // Two `<hooks>` of one document that disagree.
    let two =
        r#"<d><hooks priority_order="lower_first"/><hooks priority_order="higher_first"/></d>"#;
    let c = compile(&[Input::new("two.xml", two)]);
    assert_eq!(c.diagnostics.error_count(), 1, "{:#?}", c.diagnostics);
    // A bad value, and a misspelt attribute.
    let bad = r#"<d><hooks priority_order="lower_frist" priorty_order="x"/></d>"#;
    let c = compile(&[Input::new("bad.xml", bad)]);
    let errors: Vec<_> = c.diagnostics.iter().filter(|d| d.is_error()).collect();
    assert_eq!(errors.len(), 2, "{errors:#?}");
    assert_eq!(errors[0].code, Code::WrongShape);
    assert_eq!(
        errors[0].help.as_deref(),
        Some("did you mean `lower_first`?")
    );
    assert_eq!(errors[1].code, Code::UnknownKey);
}

// ---- `default_priority:` ------------------------------------------------

/// A hook without `priority`, one with 50 and one with 150.
const UNPRIORITIZED: &str = r#"
hooks:
  - {id: plain, event: tool, action: {type: abort}}
  - {id: low, event: tool, priority: 50, action: {type: abort}}
  - {id: high, event: tool, priority: 150, action: {type: abort}}
"#;

fn priorities(inputs: &[Input]) -> Vec<(String, i64)> {
    let c = compile(inputs);
    assert!(!c.diagnostics.has_errors(), "{:#?}", c.diagnostics);
    let policy = c.policy.unwrap();
    policy
        .hooks()
        .iter()
        .map(|h| (h.id.clone(), h.priority))
        .collect()
}

#[test]
fn default_priority_is_the_priority_of_hooks_that_give_none() {
    let zero = priorities(&[Input::new("a.yaml", UNPRIORITIZED)]);
    assert_eq!(
        zero,
        [
            ("high".into(), 150),
            ("low".into(), 50),
            ("plain".into(), 0)
        ]
    );
    let text = format!("default_priority: 100\n{UNPRIORITIZED}");
    assert_eq!(
        priorities(&[Input::new("a.yaml", text)]),
        [
            ("high".into(), 150),
            ("plain".into(), 100),
            ("low".into(), 50)
        ]
    );
}

#[test]
fn default_priority_applies_to_files_that_do_not_declare_it() {
    let declares = Input::new("a.yaml", "default_priority: -5\n");
    let other = Input::new("b.yaml", UNPRIORITIZED);
    let xml = Input::new(
        "c.xml",
        r#"<d><hooks><hook id="x" event="tool"><abort/></hook></hooks></d>"#,
    );
    let got = priorities(&[other, declares, xml]);
    assert_eq!(
        got,
        [
            ("high".into(), 150),
            ("low".into(), 50),
            ("plain".into(), -5),
            ("x".into(), -5)
        ]
    );
}

#[test]
fn default_priorities_that_differ_are_an_error_naming_both() {
    let a = Input::new("a.yaml", "default_priority: 100\n");
    let b = Input::new(
        "b.xml",
        r#"<d><hooks default_priority="0"><hook event="tool"><abort/></hook></hooks></d>"#,
    );
    let c = compile(&[a.clone(), b]);
    let errors: Vec<_> = c.diagnostics.iter().filter(|d| d.is_error()).collect();
    assert_eq!(errors.len(), 1, "{errors:#?}");
    assert_eq!(errors[0].code, Code::DuplicateDefinition);
    assert_eq!(
        errors[0].message,
        "`default_priority` is `0` here but `100` in another file"
    );
    assert!(
        errors[0].notes[0].contains("a.yaml:1:"),
        "{:?}",
        errors[0].notes
    );
    // The same value twice is one declaration.
    let same = Input::new("c.yaml", "default_priority: 100\n");
    assert!(!compile(&[a, same]).diagnostics.has_errors());
}

#[test]
fn default_priority_must_be_an_integer() {
    for (text, help) in [
        (
            "default_priority: \"100\"\n",
            "remove the quotes: `default_priority: 100`",
        ),
        (
            "default_priority: 1.0\n",
            "priorities are integers: `default_priority: 1`",
        ),
    ] {
        let c = compile(&[Input::new("a.yaml", text)]);
        let errors: Vec<_> = c.diagnostics.iter().filter(|d| d.is_error()).collect();
        assert_eq!(errors.len(), 1, "{errors:#?}");
        assert_eq!(errors[0].code, Code::WrongShape);
        assert_eq!(errors[0].help.as_deref(), Some(help));
    }
    let xml = r#"<d><hooks default_priority="high"/></d>"#;
    let c = compile(&[Input::new("a.xml", xml)]);
    let errors: Vec<_> = c.diagnostics.iter().filter(|d| d.is_error()).collect();
    assert_eq!(errors.len(), 1, "{errors:#?}");
    assert_eq!(
        errors[0].message,
        "`default_priority` must be an integer, found `high`"
    );
}

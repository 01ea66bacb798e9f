//! `attribution:` chooses what an agent host's answer adds to a decision's
//! reason (`docs/src/semantics.md#attribution`): read from YAML and XML,
//! one choice per policy, carried by the artifact and by the normalized
//! policy. What a host answer then says is tested beside the answers
//! (`hookc-binding`'s `hosts` tests).

use hookc::compile::{compile, Input};
use hookc::diag::Code;
use hookc::ir::Attribution;

const HOOKS: &str = "hooks:\n  - {id: stop, event: tool, action: {type: abort}}\n";

fn attribution(inputs: &[Input]) -> Attribution {
    let c = compile(inputs);
    assert!(!c.diagnostics.has_errors(), "{:#?}", c.diagnostics);
    c.policy.unwrap().attribution()
}

#[test]
fn location_is_the_default_and_each_choice_is_read() {
    assert_eq!(
        attribution(&[Input::new("a.yaml", HOOKS)]),
        Attribution::Location
    );
    for (word, choice) in [
        ("location", Attribution::Location),
        ("id", Attribution::Id),
        ("off", Attribution::Off),
    ] {
        let yaml = format!("attribution: {word}\n{HOOKS}");
        assert_eq!(attribution(&[Input::new("a.yaml", yaml)]), choice);
        let xml = format!(
            "<d><hooks attribution=\"{word}\"><hook id=\"x\" event=\"tool\"><abort/></hook></hooks></d>"
        );
        assert_eq!(attribution(&[Input::new("a.xml", xml)]), choice);
    }
}

#[test]
fn the_artifact_and_the_normalized_policy_keep_the_choice() {
    let yaml = format!("attribution: off\n{HOOKS}");
    let c = compile(&[Input::new("a.yaml", yaml)]);
    let checked = c.policy.clone().unwrap();
    let emitted = hookc::normalize::normalized(&checked);
    assert_eq!(emitted["attribution"], "off");
    let again = serde_json::to_string(&emitted).unwrap();
    assert_eq!(
        attribution(&[Input::new("again.yaml", again)]),
        Attribution::Off
    );
    let policy = c.into_policy().unwrap();
    let loaded = hookc_runtime::Policy::from_artifact(&policy.to_artifact()).unwrap();
    assert_eq!(loaded.attribution(), Attribution::Off);
    // The default is not written.
    let plain = compile(&[Input::new("a.yaml", HOOKS)]).policy.unwrap();
    assert!(hookc::normalize::normalized(&plain)
        .get("attribution")
        .is_none());
}

#[test]
fn files_that_disagree_or_misspell_it_are_errors() {
    let c = compile(&[
        Input::new("a.yaml", format!("attribution: id\n{HOOKS}")),
        Input::new("b.yaml", "attribution: off\nhooks: []\n"),
    ]);
    let errors: Vec<_> = c.diagnostics.iter().filter(|d| d.is_error()).collect();
    assert_eq!(errors.len(), 1, "{errors:#?}");
    assert_eq!(errors[0].code, Code::DuplicateDefinition);
    assert_eq!(
        errors[0].message,
        "`attribution` is `off` here but `id` in another file"
    );
    let c = compile(&[Input::new("a.yaml", format!("attribution: of\n{HOOKS}"))]);
    let errors: Vec<_> = c.diagnostics.iter().filter(|d| d.is_error()).collect();
    assert_eq!(errors.len(), 1, "{errors:#?}");
    assert_eq!(errors[0].code, Code::WrongShape);
    assert_eq!(errors[0].help.as_deref(), Some("did you mean `off`?"));
}

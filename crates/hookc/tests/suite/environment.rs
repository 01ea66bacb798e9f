//! Declared environment variables (`env:`;
//! `docs/src/semantics.md#environment-variables`): what a policy may read
//! as `env.NAME`, how it is checked, and what the artifact tells a hook
//! call to read. The hook call's reading is tested beside it
//! (`hookc-binding`'s `hosts` tests).

use hookc::compile::{compile, Input};
use hookc::diag::Code;
use serde_json::json;

const POLICY: &str = r#"
env:
  DEPLOY_ENV: {description: "where this checkout deploys", enum: [prod, staging]}
  CI: {}
  UNREAD:
hooks:
  - id: prod_push
    event: push
    when: "has(env.DEPLOY_ENV) && env.DEPLOY_ENV == 'prod'"
    action: {type: abort}
  - id: in_ci
    event: push
    when: "has(env.CI)"
    action: {type: abort}
"#;

fn errors(c: &hookc::compile::Compilation) -> Vec<(Code, String)> {
    c.diagnostics
        .iter()
        .filter(|d| d.is_error())
        .map(|d| (d.code, d.message.clone()))
        .collect()
}

#[test]
fn declared_variables_are_read_as_env_members() {
    let c = compile(&[Input::new("p.yaml", POLICY)]);
    assert!(!c.diagnostics.has_errors(), "{:#?}", c.diagnostics);
    let policy = c.into_policy().unwrap();
    // The variables the code reads, which a hook call looks up.
    assert_eq!(policy.environment_names(), ["DEPLOY_ENV", "CI"]);
    let decided = |ctx| {
        policy
            .evaluate("push", &ctx)
            .unwrap()
            .terminal
            .map(|m| m.hook)
    };
    assert_eq!(
        decided(json!({"env": {"DEPLOY_ENV": "prod"}})),
        Some("prod_push")
    );
    assert_eq!(decided(json!({"env": {"CI": "true"}})), Some("in_ci"));
    assert_eq!(decided(json!({"env": {}})), None);
    // The artifact keeps the flag, and with it the names.
    let loaded = hookc_runtime::Policy::from_artifact(&policy.to_artifact()).unwrap();
    assert_eq!(loaded.environment_names(), ["DEPLOY_ENV", "CI"]);
}

#[test]
fn a_policy_without_env_reads_no_variable() {
    // An open schema lets a condition read `env.HOME`, but the policy
    // declared nothing: a hook call gives it no variable.
    let text = "hooks:\n  - {id: a, event: push, when: \"has(env.HOME)\", action: {type: abort}}\n";
    let policy = compile(&[Input::new("p.yaml", text)])
        .into_policy()
        .unwrap();
    assert!(policy.environment_names().is_empty());
}

#[test]
fn undeclared_variables_and_values_outside_the_enum_are_found() {
    let text = format!(
        "{POLICY}  - id: home\n    event: push\n    when: \"env.HOME == '/root' || env.DEPLOY_ENV == 'production'\"\n    action: {{type: abort}}\n"
    );
    let c = compile(&[Input::new("p.yaml", text)]);
    assert_eq!(
        errors(&c),
        [(
            Code::UnknownPath,
            "`env.HOME` is not allowed by the schema: `env` has no key `HOME`".to_owned()
        )]
    );
    assert!(c
        .diagnostics
        .iter()
        .any(|d| d.code == Code::OutsideEnum && d.message.contains("'production'")));
}

#[test]
fn declarations_are_checked_and_merged() {
    let c = compile(&[Input::new(
        "p.yaml",
        "env:\n  N: {type: integer}\n  M: {enum: []}\n  'A-B': {}\n  K: {descrption: x}\nhooks: []\n",
    )]);
    let codes: Vec<Code> = errors(&c).into_iter().map(|(code, _)| code).collect();
    assert_eq!(
        codes,
        [
            Code::WrongShape,
            Code::WrongShape,
            Code::WrongShape,
            Code::UnknownKey
        ]
    );
    // Two files may declare a variable the same, not differently.
    let same = "env:\n  CI: {description: ci}\nhooks: []\n";
    let c = compile(&[Input::new("a.yaml", same), Input::new("b.yaml", same)]);
    assert!(!c.diagnostics.has_errors(), "{:#?}", c.diagnostics);
    let other = "env:\n  CI: {description: other}\nhooks: []\n";
    let c = compile(&[Input::new("a.yaml", same), Input::new("b.yaml", other)]);
    assert_eq!(
        errors(&c),
        [(
            Code::DuplicateDefinition,
            "variable `CI` is declared twice, differently".to_owned()
        )]
    );
}

#[test]
fn the_emitted_policy_declares_the_same_variables() {
    let c = compile(&[Input::new("p.yaml", POLICY)]);
    let emitted = hookc::normalize::normalized(c.policy.as_ref().unwrap());
    assert_eq!(
        emitted["env"],
        json!({"DEPLOY_ENV": {"description": "where this checkout deploys", "enum": ["prod", "staging"]},
               "CI": {}, "UNREAD": {}})
    );
    let again = compile(&[Input::new("again.json", emitted.to_string())])
        .into_policy()
        .unwrap();
    assert_eq!(again.environment_names(), ["DEPLOY_ENV", "CI"]);
}

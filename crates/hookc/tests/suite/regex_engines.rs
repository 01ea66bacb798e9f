//! Regexes on the two engines end to end (`docs/src/semantics.md#regular-expressions`):
//! a policy whose patterns need backtracking (look-around, backreferences)
//! compiles with W0017 for each of them and none for the others, and is
//! evaluated alike by the runtime (from a `serde_json::Value`, from JSON
//! text, reloaded from its artifact) and by the reference evaluator; a
//! search past the step limit is an error value where it is searched.

use hookc::compile::{compile, Input};
use hookc::diag::Code;
use hookc_runtime::internals::value::EvalError;
use hookc_runtime::{Outcome, Policy};
use serde_json::{json, Value};

const POLICY: &str = r#"
event_context_schema:
  type: object
  properties:
    command: {type: string}
hooks:
  - id: force_push
    event: tool
    priority: 40
    when: "command.matches(r'^git push(?=.*--force)(?!.*--dry-run)')"
    action: {type: fail, error_message: "no force push"}
  - id: unsudoed_rm
    event: tool
    priority: 30
    when: 'command.matches(r"(?<!sudo )\brm -rf\b")'
    action: {type: fail, error_message: "rm -rf needs sudo here"}
  - id: doubled_word
    event: tool
    priority: 20
    condition: {path: command, op: regex, value: '\b(\w+) \1\b'}
    action: {type: fail, error_message: "doubled word"}
  - id: push
    event: tool
    priority: 10
    when: 'command.matches(r"^git push\b")'
    action: {type: continue}
"#;

/// The first match's hook id by every evaluator, which must agree.
fn first(ir: &hookc::check::policy::CheckedPolicy, policy: &Policy, ctx: &Value) -> Option<String> {
    let by_value = policy
        .evaluate("tool", ctx)
        .unwrap()
        .terminal
        .map(|m| m.hook.to_owned());
    let text = serde_json::to_vec(ctx).unwrap();
    let by_text = policy
        .query("tool", hookc_runtime::Context::json(&text))
        .first()
        .unwrap()
        .map(|m| m.hook.to_owned());
    let reloaded = Policy::from_artifact(&policy.to_artifact()).unwrap();
    let by_artifact = reloaded
        .evaluate("tool", ctx)
        .unwrap()
        .terminal
        .map(|m| m.hook.to_owned());
    let by_reference =
        hookc::testing::reference::first_match(ir, "tool", ctx).map(|h| h.id.clone());
    assert_eq!(by_value, by_text, "Value vs JSON text on {ctx}");
    assert_eq!(by_value, by_artifact, "compiled vs reloaded on {ctx}");
    assert_eq!(by_value, by_reference, "VM vs reference on {ctx}");
    by_value
}

#[test]
fn look_around_and_backreferences_compile_with_w0017_and_evaluate_end_to_end() {
    let c = compile(&[Input::new("p.yaml", POLICY)]);
    assert!(!c.diagnostics.has_errors(), "{:#?}", c.diagnostics);
    assert!(
        c.diagnostics
            .iter()
            .all(|d| d.code == Code::BacktrackingRegex),
        "{:#?}",
        c.diagnostics
    );
    let warned: Vec<&str> = c
        .diagnostics
        .iter()
        .filter(|d| d.code == Code::BacktrackingRegex)
        .map(|d| d.message.as_str())
        .collect();
    assert_eq!(warned.len(), 3, "{warned:#?}");
    assert!(
        warned[0].contains("a look-ahead `(?=` at column 10"),
        "{}",
        warned[0]
    );
    assert!(
        warned[1].contains("a negative look-behind `(?<!` at column 1"),
        "{}",
        warned[1]
    );
    assert!(
        warned[2].contains(r"a backreference `\1` at column 9"),
        "{}",
        warned[2]
    );
    assert!(warned.iter().all(|w| w.contains("step limit of 1,000,000")));
    let ir = c.policy.clone().unwrap();
    let policy = c.into_policy().unwrap();
    let cases = [
        ("git push --force origin", Some("force_push")),
        ("git push --force --dry-run", Some("push")),
        ("git push origin", Some("push")),
        ("rm -rf /tmp/x", Some("unsudoed_rm")),
        ("sudo rm -rf /tmp/x", None),
        ("echo the the end", Some("doubled_word")),
        ("echo then the end", None),
        ("ls", None),
    ];
    for (command, expect) in cases {
        let got = first(&ir, &policy, &json!({ "command": command }));
        assert_eq!(got.as_deref(), expect, "{command:?}");
    }
}

#[test]
fn a_search_past_the_step_limit_is_an_error_value() {
    let src = r#"
hooks:
  - id: catastrophic
    event: tool
    priority: 10
    when: "command.matches(r'^((?=a)a+)+$')"
    action: {type: fail, error_message: "x"}
  - id: fallback
    event: tool
    action: {type: continue}
"#;
    let c = compile(&[Input::new("p.yaml", src)]);
    assert!(!c.diagnostics.has_errors(), "{:#?}", c.diagnostics);
    let ir = c.policy.clone().unwrap();
    let policy = c.into_policy().unwrap();
    // Short: the pattern answers; long: the search stops with the error,
    // the hook does not match and the next one decides.
    let short = json!({"command": "aaaa"});
    assert_eq!(first(&ir, &policy, &short).as_deref(), Some("catastrophic"));
    let long = json!({"command": format!("{}b", "a".repeat(40))});
    assert_eq!(first(&ir, &policy, &long).as_deref(), Some("fallback"));
    let trace = policy.query("tool", &long).explain().unwrap();
    match &trace.hooks[0].outcome {
        Outcome::Error { error, .. } => assert_eq!(*error, EvalError::RegexStepLimit),
        other => panic!("{other:?}"),
    }
    assert!(
        trace.to_text().contains("regex step limit exceeded"),
        "{}",
        trace.to_text()
    );
}

/// Constant folding runs the same engine as the VM: a constant haystack
/// through a backtracking pattern folds to the VM's answer, and one past
/// the step limit is left to the VM, which gives the error.
#[test]
fn folding_agrees_with_the_vm_on_backtracking_patterns() {
    let src = r#"
hooks:
  - id: folded_true
    event: tool
    when: "'git push --force'.matches(r'^git push(?=.*--force)') && command == 'a'"
    action: {type: continue}
  - id: folded_false
    event: tool
    when: "'sudo rm -rf'.matches(r'(?<!sudo )rm -rf') || command == 'b'"
    action: {type: continue}
  - id: not_folded
    event: tool
    when: "'aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaab'.matches(r'^((?=a)a+)+$') || command == 'c'"
    action: {type: continue}
"#;
    let c = compile(&[Input::new("p.yaml", src)]);
    assert!(!c.diagnostics.has_errors(), "{:#?}", c.diagnostics);
    let ir = c.policy.clone().unwrap();
    let policy = c.into_policy().unwrap();
    // The two answered searches were folded away; the one past the limit
    // is left for the VM.
    assert_eq!(policy.program().regexes, [r"^((?=a)a+)+$"]);
    // `error || true` is `true`, `error || false` the error: no match.
    let cases = [
        ("a", Some("folded_true")),
        ("b", Some("folded_false")),
        ("c", Some("not_folded")),
        ("d", None),
    ];
    for (command, expect) in cases {
        assert_eq!(
            first(&ir, &policy, &json!({ "command": command })).as_deref(),
            expect,
            "{command:?}"
        );
    }
}

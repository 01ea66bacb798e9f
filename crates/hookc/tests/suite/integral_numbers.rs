//! `integer` is JSON Schema's `integer`: a whole number, so an integral
//! double (`2.0`) is one (`docs/src/semantics.md#actions`,
//! `#condition-trees`), wherever a type named `integer` is checked: action
//! parameters at compile time, filled parameters at run time, and the
//! `type` of a YAML `matches` schema, in the VM and in the reference
//! evaluator alike. A value is kept as written: `2.0` stays `2.0`.

use hookc::compile::{compile, Input};
use serde_json::{json, Value};

/// A policy with one `matches` hook of the given `type`.
fn matches_policy(ty: &str) -> hookc::compile::Compilation {
    let text = format!(
        r#"
hooks:
  - id: typed
    event: e
    condition: {{path: n, op: matches, value: {{type: {ty}}}}}
    action: {{type: abort}}
"#
    );
    compile(&[Input::new("a.yaml", text)])
}

/// Whether `n` in the context passes `type: ty`, in the VM and in the
/// reference evaluator (which must agree).
fn passes(ty: &str, n: &Value) -> bool {
    let c = matches_policy(ty);
    assert!(!c.diagnostics.has_errors(), "{:#?}", c.diagnostics);
    let checked = c.policy.clone().unwrap();
    let ctx = json!({ "n": n });
    let reference = hookc::testing::reference::first_match(&checked, "e", &ctx).is_some();
    let vm = c
        .into_policy()
        .unwrap()
        .evaluate("e", &ctx)
        .unwrap()
        .terminal
        .is_some();
    assert_eq!(vm, reference, "VM and reference differ on `{ty}` for {n}");
    vm
}

#[test]
fn matches_integer_admits_integral_doubles() {
    let big = 2f64.powi(52);
    let yes = [
        json!(2),
        json!(2.0),
        json!(-3.0),
        json!(0.0),
        json!(-0.0),
        json!(1e300),
        json!(-1e300),
        json!(big),
        json!(big + 2.0),
        json!(-big - 2.0),
        json!(big - 1.0),
        json!(-(big - 1.0)),
        json!(i64::MAX),
        json!(u64::MAX),
    ];
    for n in &yes {
        assert!(passes("integer", n), "{n} is an integer");
    }
    let no = [
        json!(2.5),
        json!(-2.5),
        json!(0.1),
        json!(big - 0.5),
        json!(-(big - 0.5)),
        json!(1e-300),
        json!("2"),
        json!(null),
        json!([2]),
    ];
    for n in &no {
        assert!(!passes("integer", n), "{n} is not an integer");
    }
    // In a union with another kind; `number` needs no extra test.
    assert!(passes("[integer, string]", &json!(4.0)));
    assert!(passes("[integer, string]", &json!("x")));
    assert!(!passes("[integer, string]", &json!(4.5)));
    assert!(passes("number", &json!(4.5)));
    assert!(!passes("string", &json!(4.0)));
}

#[test]
fn integer_parameters_admit_integral_doubles_and_keep_them() {
    let text = r#"
action_types:
  wait:
    parameters:
      seconds: {type: integer}
      tries: {type: integer, enum: [1, 2, 3]}
hooks:
  - id: literal
    event: literal
    action: {type: wait, seconds: 30.0, tries: 2.0}
  - id: filled
    event: filled
    action: {type: wait, seconds: "${n}"}
"#;
    let c = compile(&[Input::new("a.yaml", text)]);
    assert!(!c.diagnostics.has_errors(), "{:#?}", c.diagnostics);
    let policy = c.into_policy().unwrap();
    let decided = |event: &str, ctx: Value| -> Result<Value, String> {
        policy
            .evaluate(event, &ctx)
            .map(|d| Value::Object(d.terminal.unwrap().action))
            .map_err(|e| e.to_string())
    };
    assert_eq!(
        decided("literal", json!({})).unwrap(),
        json!({"type": "wait", "seconds": 30.0, "tries": 2.0})
    );
    // Filled at run time: `2.0` is an integer and stays `2.0`.
    let filled = decided("filled", json!({"n": 2.0})).unwrap();
    assert_eq!(filled["seconds"], json!(2.0));
    assert!(filled["seconds"].is_f64());
    assert_eq!(
        decided("filled", json!({"n": 2})).unwrap()["seconds"],
        json!(2)
    );
    let err = decided("filled", json!({"n": 2.5})).unwrap_err();
    assert!(err.contains("is 2.5, not an integer"), "{err}");

    // A fractional literal is still an error.
    let bad = text.replace("seconds: 30.0", "seconds: 30.5");
    let c = compile(&[Input::new("a.yaml", bad)]);
    let errors: Vec<_> = c.diagnostics.iter().filter(|d| d.is_error()).collect();
    assert_eq!(errors.len(), 1, "{errors:#?}");
    assert_eq!(
        errors[0].message,
        "parameter `seconds` of `wait` must be an integer, found a number"
    );
}

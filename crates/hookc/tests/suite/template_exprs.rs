//! Expressions in templates (`docs/src/semantics.md#templates`): a `${...}`
//! hole holds any expression of the `when` language. Each case compiles a
//! policy, writes and loads its artifact, decides an event and compares the
//! filled action's JSON; the reference evaluator fills the same action.

use hookc::compile::{compile, Compilation, Input};
use hookc::diag::render;
use hookc::testing::reference;
use hookc_runtime::Policy;
use serde_json::{json, Value};

/// The policy: one hook per case, each on its own event, its action a
/// `note` with one parameter `text` (untyped) filled by `template`.
fn policy_text(template: &str) -> String {
    format!(
        r#"event_context_schema:
  type: object
  properties:
    tool_input:
      type: object
      properties:
        command: {{type: string}}
        files: {{type: array, items: {{type: string}}}}
    count: {{type: integer}}
action_types:
  note:
    parameters:
      text: {{}}
hooks:
  - id: h
    event: e
    action:
      type: note
      text: {}
"#,
        serde_json::to_string(template).unwrap()
    )
}

fn rendered(c: &Compilation) -> String {
    let diags: Vec<_> = c.diagnostics.iter().collect();
    render::human(&diags, &c.sources)
}

/// The filled `text` of the note, through the artifact, and checked
/// against the reference evaluator.
fn fill(template: &str, ctx: &Value) -> Value {
    let text = policy_text(template);
    let c = compile(&[Input::new("t.yaml", text.as_str())]);
    assert!(!c.diagnostics.has_errors(), "{template}: {}", rendered(&c));
    let checked = c.policy.as_ref().unwrap();
    let program = hookc::lower::lower(checked);
    let bytes = hookc_runtime::artifact::encode(&program);
    let policy = Policy::from_artifact(&bytes).unwrap();
    let decision = policy.evaluate("e", ctx).unwrap();
    let got = decision.terminal.unwrap().action["text"].clone();
    let hook = &checked.hooks()[0];
    let want = reference::fill_action(checked, &hook.action, ctx).unwrap()["text"].clone();
    assert_eq!(got, want, "VM and reference differ for {template}");
    got
}

#[test]
fn captures_truncation_fallback_and_lists() {
    let ctx = json!({
        "tool_input": {"command": "git push --branch=main --force", "files": ["a.rs", "b/c.rs"]},
        "count": 3
    });
    let cases = [
        (
            r"branch ${tool_input.command.capture(r'--branch[= ](\S+)')[1]}",
            json!("branch main"),
        ),
        ("${tool_input.command.truncate(8)}", json!("git push")),
        ("${missing ?? 'none'}", json!("none")),
        ("${count ?? 0}", json!(3)),
        ("n=${count + 1}", json!("n=4")),
        ("${has(missing) ? missing : 'dflt'}", json!("dflt")),
        (
            "${tool_input.files.map(f, path.base(f)).join(', ')}",
            json!("a.rs, c.rs"),
        ),
        (
            "${tool_input.files.filter(f, f.endsWith('.rs'))}",
            json!(["a.rs", "b/c.rs"]),
        ),
        (
            "files: ${tool_input.files.map(f, f + '!')}",
            json!("files: [\"a.rs!\",\"b/c.rs!\"]"),
        ),
        // An error: the empty string inside text, `null` whole.
        ("x${count / 0}y", json!("xy")),
        ("${count / 0}", Value::Null),
        // Braces and `}` inside string literals do not end the hole.
        ("${'{' + 'a}b' + '}'}", json!("{a}b}")),
        ("$${literal} ${'}'}", json!("${literal} }")),
    ];
    for (template, want) in cases {
        assert_eq!(fill(template, &ctx), want, "{template}");
    }
}

#[test]
fn path_only_templates_lower_as_before() {
    // A bare path stays a path part: no code, format 3.
    let text = policy_text("${tool_input.command} and ${tool_input['command']}");
    let c = compile(&[Input::new("t.yaml", text.as_str())]);
    let program = hookc::lower::lower(c.policy.as_ref().unwrap());
    assert!(!program.uses_template_code());
    assert!(program.code.is_empty());
    let bytes = hookc_runtime::artifact::encode(&program);
    assert_eq!(
        bytes[8..10],
        hookc_runtime::artifact::FORMAT_VERSION_FIRST_MATCH.to_le_bytes()
    );
    // An expression: code of its own, format 5.
    let text = policy_text("${tool_input.command.truncate(3)}");
    let c = compile(&[Input::new("t.yaml", text.as_str())]);
    let program = hookc::lower::lower(c.policy.as_ref().unwrap());
    assert!(program.uses_template_code());
    let bytes = hookc_runtime::artifact::encode(&program);
    assert_eq!(
        bytes[8..10],
        hookc_runtime::artifact::FORMAT_VERSION_FUNCTIONS.to_le_bytes()
    );
    let listing = hookc_runtime::disasm::disassemble(&program);
    assert!(listing.contains("template code 0.."), "{listing}");
}

#[test]
fn type_errors_inside_a_hole_are_located() {
    let text = policy_text("size ${count.startsWith('a')}");
    let c = compile(&[Input::new("t.yaml", text.as_str())]);
    assert!(c.diagnostics.has_errors());
    let rendered = rendered(&c);
    assert!(rendered.contains("t.yaml:19:"), "{rendered}");
}

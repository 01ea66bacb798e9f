//! Action effects (`docs/src/semantics.md#action-effects`): action types declare
//! whether a match ends evaluation (terminal) or is collected; YAML and
//! directive XML declare them alike; the artifact, disassembly, explain and
//! the JSON result carry them.

use hookc::compile::{compile, policy_from_sources, Input};
use hookc::ir::Effect;
use hookc_runtime::{Context, Policy};
use serde_json::json;

const YAML: &str = r#"
action_types:
  observe:
    effect: collected
    description: Record the event
    parameters:
      note: {type: string, required: true}
      level: {type: integer, default: 3}
  deny:
    parameters:
      reason: {type: string, enum: [policy, risk], default: policy}
hooks:
  - {id: watch, event: tool, priority: 30, action: {type: observe, note: "saw ${tool}"}}
  - {id: block_rm, event: tool, priority: 20, when: "tool == 'rm'", action: {type: deny}}
  - {id: watch_late, event: tool, priority: 10, action: {type: observe, note: late}}
"#;

const XML: &str = r#"<directive name="d">
  <hooks>
    <action_type name="observe" effect="collected" description="Record the event">
      <parameter name="note" type="string" required="true"/>
      <parameter name="level" type="integer" default="3"/>
    </action_type>
    <action_type name="deny">
      <parameter name="reason" type="string" enum="policy, risk" default="policy"/>
    </action_type>
    <hook id="watch" event="tool" priority="30"><observe note="saw ${tool}"/></hook>
    <hook id="block_rm" event="tool" priority="20" when="tool == 'rm'"><deny/></hook>
    <hook id="watch_late" event="tool" priority="10"><observe note="late"/></hook>
  </hooks>
</directive>"#;

fn policy(name: &str, text: &str) -> Policy {
    policy_from_sources(&[Input::new(name, text)]).unwrap()
}

#[test]
fn yaml_and_xml_declare_the_same_action_types() {
    let from = |name: &str, text: &str| {
        let c = compile(&[Input::new(name, text)]);
        assert!(!c.diagnostics.has_errors(), "{name}: {:#?}", c.diagnostics);
        let p = c.policy.unwrap();
        let types: Vec<_> = ["observe", "deny"]
            .iter()
            .map(|t| {
                let ty = p.action_types().get(t).unwrap();
                (ty.effect(), ty.source().cloned())
            })
            .collect();
        types
    };
    let yaml = from("p.yaml", YAML);
    assert_eq!(yaml, from("p.xml", XML));
    assert_eq!(yaml[0].0, Effect::Collected);
    assert_eq!(yaml[1].0, Effect::Terminal);
    // And evaluate alike.
    for ctx in [json!({"tool": "rm"}), json!({"tool": "ls"})] {
        assert_eq!(
            policy("p.yaml", YAML)
                .evaluate("tool", &ctx)
                .unwrap()
                .to_json(),
            policy("p.xml", XML)
                .evaluate("tool", &ctx)
                .unwrap()
                .to_json()
        );
    }
}

#[test]
fn collected_matches_come_before_the_decision_and_stop_with_it() {
    let p = policy("p.yaml", YAML);
    let denied = p.evaluate("tool", &json!({"tool": "rm"})).unwrap();
    assert_eq!(
        denied.to_json(),
        json!({
            "hook": "block_rm",
            "action": {"type": "deny", "reason": "policy"},
            "collected": [{"hook": "watch", "action": {"type": "observe", "note": "saw rm", "level": 3}}]
        })
    );
    let allowed = p.evaluate("tool", &json!({"tool": "ls"})).unwrap();
    assert_eq!(
        allowed.to_json(),
        json!({
            "hook": null,
            "action": null,
            "collected": [
                {"hook": "watch", "action": {"type": "observe", "note": "saw ls", "level": 3}},
                {"hook": "watch_late", "action": {"type": "observe", "note": "late", "level": 3}}
            ]
        })
    );
    // `first` and `decide` answer the decision alone; `all` every match.
    let q = p.query("tool", Context::json(r#"{"tool": "rm"}"#));
    assert_eq!(q.first().unwrap().map(|m| m.hook), Some("block_rm"));
    assert_eq!(q.decide().unwrap(), Some("block_rm"));
    let all: Vec<_> = q.all().unwrap().into_iter().map(|m| m.hook).collect();
    assert_eq!(all, ["watch", "block_rm", "watch_late"]);
    assert_eq!(
        p.query("tool", &json!({"tool": "ls"})).decide().unwrap(),
        None
    );
    // Nothing for another event.
    assert_eq!(
        p.evaluate("other", &json!({})).unwrap().to_json(),
        json!(null)
    );
}

#[test]
fn effects_survive_the_artifact_and_show_in_disassembly_and_explain() {
    let p = policy("p.yaml", YAML);
    let loaded = Policy::from_artifact(&p.to_artifact()).unwrap();
    let ctx = json!({"tool": "rm"});
    assert_eq!(
        loaded.evaluate("tool", &ctx).unwrap().to_json(),
        p.evaluate("tool", &ctx).unwrap().to_json()
    );
    let listing = hookc_runtime::disasm::disassemble(loaded.program());
    assert!(listing.contains("observe (collected)"), "{listing}");
    assert!(!listing.contains("deny (collected)"), "{listing}");
    let trace = loaded.query("tool", &ctx).explain().unwrap();
    let text = trace.to_text();
    let line = |hook: &str| {
        text.lines()
            .find(|l| l.contains(&format!(" {hook} (priority")))
            .unwrap_or_default()
    };
    assert!(
        line("watch").ends_with("matched (collected: evaluation goes on)"),
        "{text}"
    );
    assert!(
        line("block_rm").ends_with("matched (terminal: this action decides)"),
        "{text}"
    );
    assert!(
        line("watch_late").ends_with("matched (collected, but an earlier hook decided first)"),
        "{text}"
    );
    assert!(
        text.ends_with("result: block_rm; collected: watch\n"),
        "{text}"
    );
    let j = trace.to_json();
    assert_eq!(j["winner"], "block_rm");
    assert_eq!(j["collected"], json!(["watch"]));
    assert_eq!(j["hooks"][0]["effect"], "collected");
    assert!(j["hooks"][1].get("effect").is_none());
}

#[test]
fn terminal_only_policies_give_what_they_always_gave() {
    let text = "hooks:\n  - {id: a, event: e, action: {type: abort}}\n";
    let p = policy("p.yaml", text);
    assert_eq!(
        p.evaluate("e", &json!({})).unwrap().to_json(),
        json!({"hook": "a", "action": {"type": "abort"}})
    );
    let trace = p.query("e", &json!({})).explain().unwrap();
    assert!(trace
        .to_text()
        .contains("matched (first match: this action is returned)"));
    assert!(trace.to_json().get("collected").is_none());
}

#[test]
fn bad_declarations_are_reported_in_both_formats() {
    let c = compile(&[Input::new(
        "p.yaml",
        "action_types:\n  log: {effect: colected, parameters: {}}\n",
    )]);
    let msgs: Vec<String> = c.diagnostics.iter().map(|d| d.message.clone()).collect();
    assert!(
        msgs.iter()
            .any(|m| m.contains("`effect` of action type `log` must be one of `terminal`, `collected`, `transform`, `await`, found `colected`")),
        "{msgs:?}"
    );
    let helps: Vec<_> = c
        .diagnostics
        .iter()
        .filter_map(|d| d.help.clone())
        .collect();
    assert!(helps.iter().any(|h| h.contains("`collected`")), "{helps:?}");
    let c = compile(&[Input::new(
        "p.xml",
        r#"<d><hooks><action_type name="log" efect="collected"><parameter type="string"/></action_type><action_typ/></hooks></d>"#,
    )]);
    let msgs: Vec<String> = c.diagnostics.iter().map(|d| d.message.clone()).collect();
    assert!(
        msgs.iter()
            .any(|m| m.contains("unknown attribute `efect` on `<action_type>`")),
        "{msgs:?}"
    );
    assert!(
        msgs.iter()
            .any(|m| m.contains("`<parameter>` has no `name` attribute")),
        "{msgs:?}"
    );
    assert!(
        msgs.iter()
            .any(|m| m.contains("unknown element `<action_typ>` in `<hooks>`")),
        "{msgs:?}"
    );
    // A typed default that is not of its type is the checker's error, as in YAML.
    let c = compile(&[Input::new(
        "p.xml",
        r#"<d><hooks><action_type name="log"><parameter name="n" type="integer" default="three"/></action_type></hooks></d>"#,
    )]);
    assert!(c.diagnostics.has_errors(), "{:#?}", c.diagnostics);
}

//! Run-time layering (`Policy::with_layer`) against compiled layers: a base
//! policy with an overlay layered over it at run time gives exactly what
//! the same sources give compiled together as layers (the base's layer,
//! then the overlay's): the same hook order, the same ids left out, and
//! the same answers on random contexts, replacement and collected actions
//! included; and the layered policy decides as the reference evaluator
//! does over the layers compiled together. An overlay placed below
//! (`Policy::with_layer_below`) is the same stack seen from the other
//! side: the result equals compiling the overlay's layers first.

use crate::rng;

use hookc::compile::{compile_layers, Compilation, Input, LayerName};
use hookc_runtime::compose::ComposeError;
use hookc_runtime::{Overrides, Policy};
use rng::Rng;
use serde_json::{json, Map, Value};

const BASE: &str = r#"
hooks:
  - id: rate
    event: error
    priority: 10
    when: "classification.category == 'rate_limited'"
    action: {type: retry, max_attempts: 5}
  - id: codes
    event: [error, limit]
    priority: 5
    when: "error.code in ['E1', 'E2', 'E3', 'E4', 'E5', 'E6', 'E7', 'E8', 'E9']"
    action: {type: fail, error_message: "code ${error.code}"}
  - id: overloaded
    event: error
    priority: 5
    when: "error.message.matches('(?i)overloaded')"
    action: {type: abort}
  - id: tokens
    event: limit
    when: "tokens_used > 1000 && tags.exists(t, t == 'big')"
    action: {type: escalate, target: user_approval}
  - id: any
    event: "*"
    priority: -10
    condition: {path: event.thread_id, op: exists}
    action: {type: call_directive, directive: "app/${event.thread_id}"}
  - id: off
    event: error
    enabled: false
    action: {type: abort}
  - id: swapped
    event: error
    priority: 1
    when: "error.code == 'E1'"
    action: {type: abort}
  - id: gone
    event: limit
    priority: 2
    action: {type: continue}
"#;

const OVERLAY: &str = r#"
action_types:
  note:
    effect: collected
    parameters:
      text: {type: string}
hooks:
  - id: run_watch
    event: "*"
    priority: 20
    action: {type: note, text: seen}
  - id: run_note
    event: error
    priority: 8
    when: "has(error.code)"
    action: {type: note, text: "a coded error"}
  - id: swapped
    replace: true
    event: [error, step]
    priority: 7
    when: "error.code == 'E2' || tokens_used < 10"
    action: {type: fail, error_message: "run ${tokens_used}"}
  - id: run_rate
    event: error
    priority: 10
    when: "classification.category == 'rate_limited' && error.code != 'E3'"
    action: {type: retry, max_attempts: 1}
  - id: run_any
    event: "*"
    priority: -10
    when: "size(tags) > 2"
    action: {type: abort}
  - id: run_set
    event: limit
    priority: 6
    when: "error.code in ['E1', 'E2', 'E3', 'E4', 'E5', 'E6', 'E7', 'E8', 'E9'] && error.message.matches('(?i)overloaded')"
    action: {type: abort}
  - id: gone
    replace: true
    enabled: false
    event: limit
    action: {type: abort}
"#;

fn layer(name: &str, text: &str) -> (LayerName, Vec<Input>) {
    (
        LayerName::new(name).unwrap(),
        vec![Input::new(format!("{name}.yaml"), text)],
    )
}

fn policy(c: Compilation) -> Policy {
    assert!(!c.diagnostics.has_errors(), "{:#?}", c.diagnostics);
    c.into_policy().unwrap()
}

/// The two policies compiled alone, loaded from artifacts as an
/// application would hold them: `BASE` in layer `base`, `OVERLAY` in
/// layer `run`.
fn alone() -> (Policy, Policy) {
    let base = policy(compile_layers(&[layer("base", BASE)]));
    let overlay = policy(compile_layers(&[layer("run", OVERLAY)]));
    (
        Policy::from_artifact(&base.to_artifact()).unwrap(),
        Policy::from_artifact(&overlay.to_artifact()).unwrap(),
    )
}

/// The reference (compiled together) and the layered policy.
fn both() -> (Policy, Policy) {
    let together = policy(compile_layers(&[
        layer("base", BASE),
        layer("run", OVERLAY),
    ]));
    let (base, overlay) = alone();
    (together, base.with_layer(&overlay).unwrap())
}

/// A random context over the paths the policies read; `null` stands for
/// a missing key.
fn context(rng: &mut Rng) -> Value {
    let fields: [(&str, &str, Vec<Value>); 6] = [
        (
            "classification",
            "category",
            vec![json!("rate_limited"), json!("permanent"), Value::Null],
        ),
        (
            "error",
            "code",
            vec![
                json!("E1"),
                json!("E2"),
                json!("E3"),
                json!("X"),
                json!(5),
                Value::Null,
            ],
        ),
        (
            "error",
            "message",
            vec![json!("Overloaded now"), json!("fine"), Value::Null],
        ),
        ("event", "thread_id", vec![json!("t1"), Value::Null]),
        (
            "",
            "tokens_used",
            vec![json!(0), json!(5), json!(2000), json!("many"), Value::Null],
        ),
        (
            "",
            "tags",
            vec![
                json!([]),
                json!(["big"]),
                json!(["a", "b", "c"]),
                Value::Null,
            ],
        ),
    ];
    let mut root = Map::new();
    for (parent, key, values) in fields {
        let value = rng.pick(&values).clone();
        if value.is_null() {
            continue;
        }
        let target = if parent.is_empty() {
            &mut root
        } else {
            root.entry(parent)
                .or_insert_with(|| json!({}))
                .as_object_mut()
                .unwrap()
        };
        target.insert(key.to_owned(), value);
    }
    Value::Object(root)
}

/// Everything a policy answers for one evaluation: the decision, and the
/// hooks of the explain trace in order with their outcomes.
fn answers(p: &Policy, event: &str, ctx: &Value, overrides: &Overrides) -> String {
    let query = p.query(event, ctx).with_overrides(overrides);
    let first = query.decision().unwrap().to_json();
    let trace = query.explain().unwrap();
    let hooks: Vec<String> = trace
        .hooks
        .iter()
        .map(|h| format!("{} {:?}", h.hook, h.outcome))
        .collect();
    format!("{first:?} {hooks:?}")
}

#[test]
fn layering_at_run_time_equals_compiling_the_layers_together() {
    let (together, layered) = both();
    assert_eq!(
        together.hook_ids().collect::<Vec<_>>(),
        layered.hook_ids().collect::<Vec<_>>()
    );
    let sorted = |p: &Policy| {
        let mut ids: Vec<String> = p.absent_hook_ids().map(str::to_owned).collect();
        ids.sort();
        ids
    };
    assert_eq!(sorted(&together), ["gone", "off"]);
    assert_eq!(sorted(&layered), sorted(&together));
    let layers = |p: &Policy| -> Vec<String> {
        let prog = p.program();
        prog.layers
            .iter()
            .map(|&l| prog.string(l).to_owned())
            .collect()
    };
    assert_eq!(layers(&layered), ["base", "run"]);
    assert_eq!(layers(&together), layers(&layered));

    let mut rng = Rng(0x9e37_79b9_7f4a_7c15);
    let events = ["error", "limit", "step", "other"];
    let overrides = [
        (Overrides::default(), Overrides::default()),
        (
            together.overrides(["run_rate", "off"]).unwrap(),
            layered.overrides(["run_rate", "off"]).unwrap(),
        ),
        (
            together.overrides(["swapped", "gone"]).unwrap(),
            layered.overrides(["swapped", "gone"]).unwrap(),
        ),
    ];
    // The reference evaluator over the layers compiled together.
    let ir = compile_layers(&[layer("base", BASE), layer("run", OVERLAY)])
        .policy
        .unwrap();
    let mut winners = std::collections::BTreeSet::new();
    for _ in 0..2000 {
        let ctx = context(&mut rng);
        for event in events {
            let (collected, terminal) = hookc::testing::reference::decision(&ir, event, &ctx);
            let decision = layered.evaluate(event, &ctx).unwrap();
            assert_eq!(
                (
                    decision
                        .collected
                        .iter()
                        .map(|m| m.hook)
                        .collect::<Vec<_>>(),
                    decision.terminal.as_ref().map(|m| m.hook)
                ),
                (
                    collected.iter().map(|h| h.id.as_str()).collect::<Vec<_>>(),
                    terminal.map(|h| h.id.as_str())
                ),
                "event {event}, context {ctx}: layered policy against the reference"
            );
            if let Some(m) = layered.evaluate(event, &ctx).unwrap().terminal {
                winners.insert(m.hook.to_owned());
            }
            for (a, b) in &overrides {
                assert_eq!(
                    answers(&together, event, &ctx, a),
                    answers(&layered, event, &ctx, b),
                    "event {event}, context {ctx}"
                );
            }
        }
    }
    // The contexts reach hooks of both layers, the replacement included.
    let winners: Vec<&str> = winners.iter().map(String::as_str).collect();
    assert_eq!(
        winners,
        [
            "any",
            "codes",
            "overloaded",
            "rate",
            "run_any",
            "run_rate",
            "run_set",
            "swapped",
            "tokens"
        ]
    );
}

#[test]
fn the_layered_policy_round_trips_as_an_artifact() {
    let (_, layered) = both();
    let again = Policy::from_artifact(&layered.to_artifact()).unwrap();
    assert_eq!(again.program(), layered.program());
    // Layering again: a second overlay over the layered policy.
    let more = policy(compile_layers(&[layer(
        "more",
        "hooks:\n  - {id: run_rate, replace: true, event: error, priority: 100, action: {type: abort}}\n",
    )]));
    let twice = layered.with_layer(&more).unwrap();
    let m = twice
        .evaluate("error", &json!({"classification": {"category": "x"}}))
        .unwrap()
        .terminal
        .unwrap();
    assert_eq!((m.hook, m.action_type()), ("run_rate", "abort"));
}

#[test]
fn what_compiling_rejects_layering_rejects() {
    let base = policy(compile_layers(&[layer("base", BASE)]));
    // An unmarked duplicate, of a hook or of an absent hook (E0104 together).
    for id in ["rate", "off"] {
        let text = format!("hooks:\n  - {{id: {id}, event: error, action: {{type: abort}}}}\n");
        let overlay = policy(compile_layers(&[layer("run", &text)]));
        let e = base.with_layer(&overlay).unwrap_err();
        assert!(
            matches!(&e, ComposeError::DuplicateId { id: got } if got == id),
            "{e}"
        );
        let together = compile_layers(&[layer("base", BASE), layer("run", &text)]);
        assert!(together.diagnostics.has_errors());
    }
    // A layer of the same name.
    let same = policy(compile_layers(&[layer("base", "hooks: []\n")]));
    assert!(matches!(
        base.with_layer(&same),
        Err(ComposeError::LayerClash { .. })
    ));
    // Another priority direction (E0110 together).
    let lower = policy(compile_layers(&[layer(
        "run",
        "priority_order: lower_first\nhooks: []\n",
    )]));
    let e = base.with_layer(&lower).unwrap_err().to_string();
    assert!(e.contains("priority_order"), "{e}");
}

#[test]
fn an_overlay_placed_below_equals_compiling_its_layers_first() {
    // `BASE` placed below `OVERLAY` is the stack of `both`: compiled
    // together, `BASE`'s layer first (lowest). `OVERLAY`'s hooks marked
    // `replace` (a hook of the policy above) replace `BASE`'s.
    let (together, layered) = both();
    let (base, overlay) = alone();
    let below = overlay.with_layer_below(&base).unwrap();
    assert_eq!(below.program(), layered.program());
    let mut rng = Rng(0x2545_f491_4f6c_dd1d);
    for _ in 0..300 {
        let ctx = context(&mut rng);
        for event in ["error", "limit", "step"] {
            assert_eq!(
                answers(&together, event, &ctx, &Overrides::default()),
                answers(&below, event, &ctx, &Overrides::default()),
                "event {event}, context {ctx}"
            );
        }
    }
}

/// Seed 004's run entries: appended after the configured hooks, so at
/// equal priority (Meerkat's default, 100) the configured ones run first.
#[test]
fn a_run_overlay_below_runs_after_the_base_at_equal_priority() {
    let realm = "priority_order: lower_first\nhooks:\n  \
        - {id: configured, event: e, priority: 100, action: {type: abort}}\n  \
        - {id: swapped, replace: true, event: e, priority: 100, action: {type: continue}}\n";
    let run = "priority_order: lower_first\nhooks:\n  \
        - {id: appended, event: e, priority: 100, action: {type: retry}}\n  \
        - {id: early, event: e, priority: 50, when: \"x == 1\", action: {type: fail}}\n  \
        - {id: swapped, event: e, priority: 1, action: {type: escalate, target: user_approval}}\n";
    let base = policy(compile_layers(&[layer("realm", realm)]));
    let overlay = policy(compile_layers(&[layer("run", run)]));
    let below = base.with_layer_below(&overlay).unwrap();
    // The realm's `swapped` (marked `replace`) replaces the run's.
    assert_eq!(
        below.hook_ids().collect::<Vec<_>>(),
        ["early", "configured", "swapped", "appended"]
    );
    let together = policy(compile_layers(&[layer("run", run), layer("realm", realm)]));
    assert_eq!(
        together.hook_ids().collect::<Vec<_>>(),
        below.hook_ids().collect::<Vec<_>>()
    );
    let evaluated = |p: &Policy| p.evaluate("e", &json!({})).unwrap().to_json();
    assert_eq!(evaluated(&below), evaluated(&together));
    fn first(p: &Policy, ctx: Value) -> String {
        p.evaluate("e", &ctx)
            .unwrap()
            .terminal
            .unwrap()
            .hook
            .to_owned()
    }
    assert_eq!(first(&below, json!({})), "configured");
    assert_eq!(first(&below, json!({"x": 1})), "early");
    // Over the base (the default), the run's hook would come first.
    let base_plain = policy(compile_layers(&[layer(
        "realm",
        "priority_order: lower_first\nhooks:\n  - {id: configured, event: e, priority: 100, action: {type: abort}}\n",
    )]));
    let appended = policy(compile_layers(&[layer(
        "run",
        "priority_order: lower_first\nhooks:\n  - {id: appended, event: e, priority: 100, action: {type: retry}}\n",
    )]));
    assert_eq!(
        first(&base_plain.with_layer(&appended).unwrap(), json!({})),
        "appended"
    );
    assert_eq!(
        first(&base_plain.with_layer_below(&appended).unwrap(), json!({})),
        "configured"
    );
}

#[test]
fn below_the_policy_replacing_is_the_policys_to_mark() {
    let base = policy(compile_layers(&[layer("base", BASE)]));
    // An overlay hook marked `replace` is the lower layer's: it replaces
    // nothing above it, and its id is the policy's.
    let marked = policy(compile_layers(&[layer(
        "run",
        "hooks:\n  - {id: rate, replace: true, event: error, action: {type: abort}}\n",
    )]));
    let e = base.with_layer_below(&marked).unwrap_err();
    assert!(
        matches!(&e, ComposeError::DuplicateIdBelow { id } if id == "rate"),
        "{e}"
    );
    assert!(e.to_string().contains("placed below"), "{e}");
    let together = compile_layers(&[
        layer(
            "run",
            "hooks:\n  - {id: rate, replace: true, event: error, action: {type: abort}}\n",
        ),
        layer("base", BASE),
    ]);
    assert!(together.diagnostics.has_errors());
    // Another priority direction, below as above.
    let lower = policy(compile_layers(&[layer(
        "run",
        "priority_order: lower_first\nhooks: []\n",
    )]));
    assert!(matches!(
        base.with_layer_below(&lower),
        Err(ComposeError::PriorityOrder {
            base: "higher_first",
            overlay: "lower_first"
        })
    ));
}

/// An overlay compiled with its base's sources for their declarations
/// (`compile_layers_with_declarations`): it uses the base's action types
/// and schema, conflicts are the errors of two files of one compilation,
/// and the base's own hooks and warnings are not its.
#[test]
fn an_overlay_compiles_with_the_declarations_of_its_base() {
    use hookc::compile::compile_layers_with_declarations;
    let base = Input::new(
        "base.yaml",
        "priority_order: lower_first\naction_types:\n  note: {effect: collected, parameters: {text: {type: string}}}\n\
         event_context_schema: {type: object, properties: {tool: {type: string}}}\n\
         hooks:\n  - {id: b, event: error, when: \"undeclared == 1\", action: {type: note, text: b}}\n",
    );
    let run = |text: &str| {
        compile_layers_with_declarations(
            std::slice::from_ref(&base),
            &[(
                LayerName::new("run").unwrap(),
                vec![Input::new("run.yaml", text)],
            )],
        )
    };
    let c = run("hooks:\n  - {id: r, event: error, when: \"tool == 'x'\", action: {type: note, text: \"${tool}\"}}\n");
    // The base's W0001 (`undeclared`) is the base's, not reported again.
    assert!(c.diagnostics.is_empty(), "{:#?}", c.diagnostics);
    assert_eq!(hookc::summary(&c), "1 file checked: 1 hook, 0 warnings");
    let policy = policy(c);
    assert_eq!(policy.hook_ids().collect::<Vec<_>>(), ["r"]);
    let base_alone = policy_from(&base);
    assert!(base_alone.with_layer(&policy).is_ok());
    // The same text compiled alone knows neither `note` nor the direction.
    let alone = compile_layers(&[layer(
        "run",
        "hooks:\n  - {id: r, event: error, action: {type: note, text: x}}\n",
    )]);
    assert!(alone.diagnostics.iter().any(|d| d.code.as_str() == "E0400"));
    // Conflicts, reported in the overlay's file.
    for (text, code) in [
        ("event_context_schema: {type: object}\nhooks: []\n", "E0110"),
        ("priority_order: higher_first\nhooks: []\n", "E0110"),
        (
            "action_types:\n  note: {effect: terminal}\nhooks: []\n",
            "E0110",
        ),
    ] {
        let c = run(text);
        let errors: Vec<_> = c.diagnostics.iter().filter(|d| d.is_error()).collect();
        assert_eq!(errors.len(), 1, "{text}: {errors:#?}");
        assert_eq!(errors[0].code.as_str(), code, "{text}");
        assert_eq!(c.sources.name(errors[0].span.unwrap().file), "run.yaml");
    }
    // An identical action type is allowed, as between two files.
    let same = run(
        "action_types:\n  note: {effect: collected, parameters: {text: {type: string}}}\nhooks: []\n",
    );
    assert!(!same.diagnostics.has_errors(), "{:#?}", same.diagnostics);
}

fn policy_from(input: &Input) -> Policy {
    policy(hookc::compile::compile(std::slice::from_ref(input)))
}

#[test]
fn layering_keeps_both_policies_sensitive_members_once_each() {
    let base = policy(compile_layers(&[layer(
        "base",
        "sensitive: [token, secret.key]\nhooks:\n  - {id: a, event: e, when: \"token == 'x'\", action: {type: abort}}\n",
    )]));
    let overlay = policy(compile_layers(&[layer(
        "over",
        "sensitive: [secret.key, prompt]\nhooks:\n  - {id: b, event: e, action: {type: abort}}\n",
    )]));
    let layered = base.with_layer(&overlay).unwrap();
    assert_eq!(
        layered.sensitive_members(),
        ["token", "secret.key", "prompt"]
    );
    let again = Policy::from_artifact(&layered.to_artifact()).unwrap();
    assert_eq!(again.sensitive_members(), layered.sensitive_members());
}

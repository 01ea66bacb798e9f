//! Named layers (`compile_layers`, `hookc compile --layer NAME=FILE`):
//! evaluation order is priority, then layer (later first), then source
//! order; layers survive the artifact; the normalized output keeps the
//! order; the verifier refuses hooks out of that order.

use hookc::compile::{
    compile, compile_layers, compile_layers_ordered, Input, LayerName, LayerOrder,
};
use hookc_runtime::{Overrides, Policy};
use serde_json::json;

/// A hook file whose hooks all match `error` at `priority`, ids prefixed.
fn file(name: &str, prefix: &str, priority: i64, section: &str) -> Input {
    Input::new(
        name,
        format!(
            "{section}:\n  - id: {prefix}_a\n    event: error\n    priority: {priority}\n    action: {{type: abort}}\n  - id: {prefix}_b\n    event: error\n    priority: {priority}\n    action: {{type: abort}}\n"
        ),
    )
}

fn layer(name: &str) -> LayerName {
    LayerName::new(name).unwrap()
}

fn order(p: &Policy) -> Vec<String> {
    p.query("error", &json!({}))
        .with_overrides(&Overrides::default())
        .explain()
        .unwrap()
        .hooks
        .into_iter()
        .map(|h| h.hook)
        .collect()
}

fn layered() -> Policy {
    // `builtin_hooks:` in a named layer's file is still that layer.
    let layers = vec![
        (
            layer("builtin"),
            vec![file("b.yaml", "builtin", 0, "builtin_hooks")],
        ),
        (
            layer("project"),
            vec![file("p.yaml", "project", 0, "hooks")],
        ),
        (
            layer("directive"),
            vec![file("d.yaml", "directive", 0, "hooks")],
        ),
        (
            layer("run"),
            vec![
                file("r1.yaml", "run1", 0, "hooks"),
                file("r2.yaml", "low", -1, "hooks"),
            ],
        ),
    ];
    hookc::compile::Compilation::into_policy(compile_layers(&layers)).unwrap()
}

#[test]
fn later_layers_first_at_equal_priority_then_source_order() {
    assert_eq!(
        order(&layered()),
        [
            "run1_a",
            "run1_b",
            "directive_a",
            "directive_b",
            "project_a",
            "project_b",
            "builtin_a",
            "builtin_b",
            "low_a",
            "low_b"
        ]
    );
}

#[test]
fn a_layer_named_again_is_the_same_layer_at_its_first_position() {
    let layers = vec![
        (layer("base"), vec![file("a.yaml", "a", 0, "hooks")]),
        (layer("top"), vec![file("t.yaml", "t", 0, "hooks")]),
        (layer("base"), vec![file("c.yaml", "c", 0, "hooks")]),
    ];
    let p = hookc::compile::Compilation::into_policy(compile_layers(&layers)).unwrap();
    assert_eq!(order(&p), ["t_a", "t_b", "a_a", "a_b", "c_a", "c_b"]);
}

#[test]
fn default_layers_are_builtin_then_directive() {
    let c = compile(&[
        file("b.yaml", "builtin", 0, "builtin_hooks"),
        file("d.yaml", "directive", 0, "hooks"),
    ]);
    assert_eq!(
        c.policy.as_ref().unwrap().layers(),
        ["builtin", "directive"]
    );
    let p = hookc::compile::Compilation::into_policy(c).unwrap();
    assert_eq!(
        order(&p),
        ["directive_a", "directive_b", "builtin_a", "builtin_b"]
    );
}

#[test]
fn layers_survive_the_artifact_and_the_disassembly() {
    let p = layered();
    let loaded = Policy::from_artifact(&p.to_artifact()).unwrap();
    assert_eq!(order(&loaded), order(&p));
    let prog = loaded.program();
    let names: Vec<&str> = prog.layers.iter().map(|&s| prog.string(s)).collect();
    assert_eq!(names, ["builtin", "project", "directive", "run"]);
    let text = hookc_runtime::disasm::disassemble(prog);
    assert!(
        text.contains("(priority 0, layer run, events error)"),
        "{text}"
    );
    assert!(
        text.contains("(priority 0, layer project, events error)"),
        "{text}"
    );
}

#[test]
fn normalized_output_of_named_layers_compiles_to_the_same_order() {
    let layers = vec![
        (
            layer("builtin"),
            vec![file("b.yaml", "builtin", 0, "builtin_hooks")],
        ),
        (layer("run"), vec![file("r.yaml", "run", 0, "hooks")]),
    ];
    let c = compile_layers(&layers);
    let yaml = hookc::normalize::to_yaml(c.policy.as_ref().unwrap()).unwrap();
    let again = hookc::compile::policy_from_sources(&[Input::new("n.yaml", yaml)]).unwrap();
    let original = hookc::compile::Compilation::into_policy(c).unwrap();
    assert_eq!(order(&again), order(&original));
}

#[test]
fn layer_names_are_checked() {
    for good in ["builtin", "run-2", "_x", "Project_1"] {
        assert!(LayerName::new(good).is_ok(), "{good}");
    }
    for bad in ["", "2run", "a b", "a=b", "é"] {
        let e = LayerName::new(bad).unwrap_err().to_string();
        assert!(e.contains("is not a layer name"), "{e}");
    }
}

#[test]
fn the_verifier_refuses_hooks_out_of_evaluation_order() {
    let p = layered();
    let mut prog = p.program().clone();
    // Swap a run hook and a builtin hook of the same priority.
    let (first, last) = (0, 6);
    let (a, b) = (prog.hooks[first].layer, prog.hooks[last].layer);
    assert_ne!(a, b);
    prog.hooks[first].layer = b;
    prog.hooks[last].layer = a;
    let e = hookc_runtime::verify::verify(prog).unwrap_err().to_string();
    assert!(e.contains("not in evaluation order"), "{e}");
}

/// Seed 002's merge order: agent, workflow, step (agent hooks first at
/// equal priority), listed highest first.
fn seed_002_layers() -> Vec<(LayerName, Vec<Input>)> {
    vec![
        (layer("agent"), vec![file("a.yaml", "agent", 0, "hooks")]),
        (
            layer("workflow"),
            vec![file("w.yaml", "workflow", 0, "hooks")],
        ),
        (layer("step"), vec![file("s.yaml", "step", 0, "hooks")]),
    ]
}

const SEED_002_ORDER: [&str; 6] = [
    "agent_a",
    "agent_b",
    "workflow_a",
    "workflow_b",
    "step_a",
    "step_b",
];

#[test]
fn layers_listed_highest_first() {
    let c = compile_layers_ordered(&seed_002_layers(), Some(LayerOrder::HighestFirst));
    assert_eq!(
        c.policy.as_ref().unwrap().layers(),
        ["step", "workflow", "agent"]
    );
    let p = hookc::compile::Compilation::into_policy(c).unwrap();
    assert_eq!(order(&p), SEED_002_ORDER);
    // Lowest first (the default) is the reverse.
    let low = hookc::compile::Compilation::into_policy(compile_layers(&seed_002_layers())).unwrap();
    assert_eq!(
        order(&low),
        [
            "step_a",
            "step_b",
            "workflow_a",
            "workflow_b",
            "agent_a",
            "agent_b"
        ]
    );
}

#[test]
fn a_file_may_declare_the_layer_order() {
    let mut layers = seed_002_layers();
    layers[1]
        .1
        .push(Input::new("order.yaml", "layer_order: highest_first\n"));
    let p = hookc::compile::Compilation::into_policy(compile_layers(&layers)).unwrap();
    assert_eq!(order(&p), SEED_002_ORDER);
    // XML says it on `<hooks>`.
    let mut layers = seed_002_layers();
    layers[2].1.push(Input::new(
        "order.xml",
        r#"<directive><hooks layer_order="highest_first"/></directive>"#,
    ));
    let p = hookc::compile::Compilation::into_policy(compile_layers(&layers)).unwrap();
    assert_eq!(order(&p), SEED_002_ORDER);
}

#[test]
fn a_declared_layer_order_that_disagrees_is_an_error_naming_both() {
    let mut layers = seed_002_layers();
    layers[0]
        .1
        .push(Input::new("low.yaml", "layer_order: lowest_first\n"));
    layers[1]
        .1
        .push(Input::new("high.yaml", "layer_order: highest_first\n"));
    let c = compile_layers(&layers);
    let errors: Vec<_> = c.diagnostics.iter().filter(|d| d.is_error()).collect();
    assert_eq!(errors.len(), 1, "{errors:#?}");
    assert_eq!(errors[0].code, hookc::diag::Code::DuplicateDefinition);
    assert_eq!(
        errors[0].message,
        "`layer_order` is `highest_first` here but `lowest_first` in another file"
    );
    assert!(
        errors[0].notes.iter().any(|n| n.contains("low.yaml:1:14")),
        "{:?}",
        errors[0].notes
    );
    // Against the order the compiler is given.
    let mut layers = seed_002_layers();
    layers[0]
        .1
        .push(Input::new("low.yaml", "layer_order: lowest_first\n"));
    let c = compile_layers_ordered(&layers, Some(LayerOrder::HighestFirst));
    let errors: Vec<_> = c.diagnostics.iter().filter(|d| d.is_error()).collect();
    assert_eq!(errors.len(), 1, "{errors:#?}");
    assert_eq!(
        errors[0].message,
        "`layer_order` is `lowest_first` here but `highest_first` is given to the compiler"
    );
}

#[test]
fn without_named_layers_a_layer_order_changes_nothing() {
    let c = compile(&[
        Input::new("o.yaml", "layer_order: highest_first\n"),
        file("b.yaml", "builtin", 0, "builtin_hooks"),
        file("d.yaml", "directive", 0, "hooks"),
    ]);
    let p = hookc::compile::Compilation::into_policy(c).unwrap();
    assert_eq!(
        order(&p),
        ["directive_a", "directive_b", "builtin_a", "builtin_b"]
    );
}

/// A hook `id` at `priority` whose action is `fail` with `error_message`.
fn one(name: &str, id: &str, priority: i64, extra: &str, reason: &str) -> Input {
    Input::new(
        name,
        format!("hooks:\n  - {{id: {id}, event: error, priority: {priority}{extra}, action: {{type: fail, error_message: {reason}}}}}\n"),
    )
}

#[test]
fn a_marked_hook_of_a_higher_layer_replaces_the_lower_one() {
    let layers = vec![
        (
            layer("global"),
            vec![
                one("g.yaml", "guard", 10, "", "global"),
                one("g2.yaml", "other", 0, "", "other"),
            ],
        ),
        (
            layer("project"),
            vec![one("p.yaml", "guard", -5, ", replace: true", "project")],
        ),
    ];
    let c = compile_layers(&layers);
    assert!(!c.diagnostics.has_errors(), "{:#?}", c.diagnostics);
    let nothing_replaced = hookc::diag::Code::NothingReplaced;
    assert!(!c.diagnostics.iter().any(|d| d.code == nothing_replaced));
    let p = hookc::compile::Compilation::into_policy(c).unwrap();
    // The replacing hook takes its own place (priority -5); the replaced
    // one is gone, its id still known.
    assert_eq!(order(&p), ["other", "guard"]);
    let m = p.evaluate("error", &json!({})).unwrap().terminal.unwrap();
    assert_eq!(m.hook, "other");
    let only_guard = p.overrides(["other"]).unwrap();
    let m = p
        .query("error", &json!({}))
        .with_overrides(&only_guard)
        .first()
        .unwrap()
        .unwrap();
    assert_eq!(m.action["error_message"], "project");
    // A chain: each higher layer replaces the one below.
    let mut chain = layers.clone();
    chain.push((
        layer("run"),
        vec![one("r.yaml", "guard", 1, ", replace: true", "run")],
    ));
    let p = hookc::compile::Compilation::into_policy(compile_layers(&chain)).unwrap();
    assert_eq!(order(&p), ["guard", "other"]);
    // Directive XML marks it with an attribute; default layers: `hooks:`
    // and XML replace `builtin_hooks:`.
    let c = compile(&[
        Input::new(
            "b.yaml",
            "builtin_hooks:\n  - {id: guard, event: error, action: {type: abort}}\n",
        ),
        Input::new(
            "d.xml",
            r#"<d><hooks><hook id="guard" event="error" replace="true"><retry/></hook></hooks></d>"#,
        ),
    ]);
    assert!(!c.diagnostics.has_errors(), "{:#?}", c.diagnostics);
    let p = hookc::compile::Compilation::into_policy(c).unwrap();
    assert_eq!(
        p.evaluate("error", &json!({}))
            .unwrap()
            .terminal
            .unwrap()
            .action_type(),
        "retry"
    );
}

#[test]
fn an_unmarked_duplicate_across_layers_is_still_e0104() {
    let layers = vec![
        (layer("global"), vec![one("g.yaml", "guard", 0, "", "g")]),
        (layer("project"), vec![one("p.yaml", "guard", 0, "", "p")]),
    ];
    let c = compile_layers(&layers);
    let errors: Vec<_> = c.diagnostics.iter().filter(|d| d.is_error()).collect();
    assert_eq!(errors.len(), 1, "{errors:#?}");
    assert_eq!(errors[0].code, hookc::diag::Code::DuplicateId);
    assert!(
        errors[0].help.as_deref().unwrap().contains("replace: true"),
        "{:?}",
        errors[0].help
    );
    // Listed in another order, the lower layer's hook is still the first use.
    let c = compile_layers_ordered(
        &[layers[1].clone(), layers[0].clone()],
        Some(LayerOrder::HighestFirst),
    );
    let errors: Vec<_> = c.diagnostics.iter().filter(|d| d.is_error()).collect();
    assert_eq!(errors.len(), 1, "{errors:#?}");
    assert!(
        errors[0].notes[0].contains("g.yaml"),
        "{:?}",
        errors[0].notes
    );
}

#[test]
fn disabled_and_replaced_hooks_stay_known_ids() {
    let layers = vec![
        (
            layer("global"),
            vec![
                one("g.yaml", "off", 0, ", enabled: false", "g"),
                one("g2.yaml", "swapped", 0, "", "g"),
                one("g3.yaml", "kept", 0, "", "g"),
            ],
        ),
        (
            layer("project"),
            // Replaces `swapped` and is disabled itself: both left out.
            vec![one(
                "p.yaml",
                "swapped",
                0,
                ", replace: true, enabled: false",
                "p",
            )],
        ),
    ];
    let c = compile_layers(&layers);
    assert!(!c.diagnostics.has_errors(), "{:#?}", c.diagnostics);
    let p = hookc::compile::Compilation::into_policy(c).unwrap();
    for p in [&p, &Policy::from_artifact(&p.to_artifact()).unwrap()] {
        assert_eq!(order(p), ["kept"]);
        let mut absent: Vec<&str> = p.absent_hook_ids().collect();
        absent.sort_unstable();
        assert_eq!(absent, ["off", "swapped"]);
        // Switching them off again is a no-op; an unknown id stays an error.
        let o = p.overrides(["off", "swapped"]).unwrap();
        let m = p
            .query("error", &json!({}))
            .with_overrides(&o)
            .first()
            .unwrap();
        assert_eq!(m.unwrap().hook, "kept");
        let e = p.overrides(["of"]).unwrap_err();
        assert_eq!(e, hookc_runtime::UnknownHook("of".to_owned()));
        // Leniently, unknown ids are ignored and returned; the known ones
        // are switched off all the same.
        let (lenient, unknown) = p.overrides_lenient(["of", "kept", "off", "nope"]);
        assert_eq!(unknown, ["of", "nope"]);
        assert_eq!(lenient, p.overrides(["kept"]).unwrap());
        let m = p
            .query("error", &json!({}))
            .with_overrides(&lenient)
            .first();
        assert_eq!(m.unwrap(), None);
        // The disabled replacement keeps its mark, for layering.
        assert!(p.program().absent.iter().any(|a| a.replace));
    }
}

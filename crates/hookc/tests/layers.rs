//! Named layers (`compile_layers`, `hookc compile --layer NAME=FILE`):
//! evaluation order is priority, then layer (later first), then source
//! order; layers survive the artifact; the normalized output keeps the
//! order; the verifier refuses hooks out of that order.

#![allow(
    clippy::unwrap_used,
    clippy::expect_used,
    clippy::panic,
    clippy::indexing_slicing
)]

use hookc::compile::{compile, compile_layers, Input, LayerName};
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
    let text = hookc_runtime::bytecode::disasm::disassemble(prog);
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

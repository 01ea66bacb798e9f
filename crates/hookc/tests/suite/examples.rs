//! The bundled examples: the seed000 example's complete YAML block, its example
//! directive hooks and its directive XML, and our richer XML policy, all
//! compile (warnings allowed, but none in the XML policy users copy); the
//! normalized output is itself an input that compiles to the same
//! normalized output.

use hookc::compile::{compile, Compilation, Input};
use hookc::diag::Code;
use std::path::Path;

fn input(rel: &str) -> Input {
    let path = Path::new(concat!(env!("CARGO_MANIFEST_DIR"), "/../..")).join(rel);
    Input::new(rel, std::fs::read_to_string(path).unwrap())
}

fn no_errors(c: &Compilation) {
    let errors: Vec<_> = c.diagnostics.iter().filter(|d| d.is_error()).collect();
    assert!(errors.is_empty(), "{errors:#?}");
}

#[test]
fn seed_yaml_block_compiles_with_the_expected_warning() {
    let c = compile(&[input("examples/thread-hooks/hooks.yaml")]);
    no_errors(&c);
    // Its builtin hooks read `event.*` paths that its own schema puts at the
    // top level (`event` lists other properties): warnings, not errors. And
    // `default_compaction` fills `tokens_used` and `max_tokens` from paths its
    // condition (`event.pressure_ratio > 0.8`) does not ensure (W0007). A
    // path read twice is one warning (the action's `pressure_ratio` is
    // folded into the condition's).
    let warnings: Vec<_> = c
        .diagnostics
        .iter()
        .map(|d| (d.code, d.node_path.clone().unwrap_or_default()))
        .collect();
    let at = |p: &str| (Code::PathNotInSchema, p.to_owned());
    let unguarded = |p: &str| (Code::UnguardedTemplate, p.to_owned());
    assert_eq!(
        warnings,
        vec![
            at("builtin_hooks[0].condition.path"),
            at("builtin_hooks[2].condition.path"),
            at("builtin_hooks[2].action.parameters.tokens_used"),
            unguarded("builtin_hooks[2].action.parameters.tokens_used"),
            at("builtin_hooks[2].action.parameters.max_tokens"),
            unguarded("builtin_hooks[2].action.parameters.max_tokens"),
        ]
    );
    let p = c.policy.unwrap();
    let ids: Vec<_> = p.hooks().iter().map(|h| h.id.as_str()).collect();
    assert_eq!(
        ids,
        [
            "default_limit_escalation",
            "default_transient_retry",
            "default_compaction"
        ]
    );
    // Defaults are filled in.
    let escalate = &p.hooks()[0].action;
    assert_eq!(escalate.kind, "escalate");
    let names: Vec<_> = escalate.params.iter().map(|(n, _)| n.as_str()).collect();
    assert_eq!(names, ["target", "timeout_seconds"]);
}

#[test]
fn the_complete_example_policy_has_no_warnings() {
    let c = compile(&[input("examples/policy.xml")]);
    let diags: Vec<_> = c.diagnostics.iter().collect();
    assert!(diags.is_empty(), "{diags:#?}");
    assert_eq!(c.policy.unwrap().hooks().len(), 12);
}

#[test]
fn all_examples_compile_together() {
    let c = compile(&[
        input("examples/thread-hooks/hooks.yaml"),
        input("examples/thread-hooks/directive_hooks.yaml"),
        input("examples/thread-hooks/directive.xml"),
        input("examples/policy.xml"),
    ]);
    no_errors(&c);
    let p = c.policy.unwrap();
    assert!(p.hooks().len() >= 3 + 4 + 1 + 8);
    // Evaluation order: priority descending, later layer (directive) before
    // earlier (builtin), source order.
    assert_eq!(p.layers(), ["builtin", "directive"]);
    let keys: Vec<_> = p
        .hooks()
        .iter()
        .map(|h| (-h.priority, std::cmp::Reverse(h.layer), h.source_order))
        .collect();
    let mut sorted = keys.clone();
    sorted.sort();
    assert_eq!(keys, sorted);
}

#[test]
fn normalized_output_round_trips() {
    for files in [
        vec![
            "examples/thread-hooks/hooks.yaml",
            "examples/thread-hooks/directive_hooks.yaml",
            "examples/thread-hooks/directive.xml",
        ],
        vec!["examples/policy.xml"],
    ] {
        let inputs: Vec<_> = files.iter().map(|f| input(f)).collect();
        let c = compile(&inputs);
        no_errors(&c);
        let first = hookc::normalize::to_yaml(c.policy.as_ref().unwrap()).unwrap();
        let again = compile(&[Input::new("normalized.yaml", first.clone())]);
        no_errors(&again);
        let second = hookc::normalize::to_yaml(again.policy.as_ref().unwrap()).unwrap();
        assert_eq!(
            first, second,
            "normalized output of {files:?} is not stable"
        );
    }
}

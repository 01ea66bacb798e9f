//! The plans a loaded policy builds per event on first use
//! (`accel::dispatch::EventPlans`) are the plans built for every event at
//! once (`Plans::new`): the same steps, tables and hook indexes, on every
//! golden artifact of `crates/hookc/tests/wire/`, for each of its events and
//! an event none of its hooks names. (That evaluation through them answers
//! as the hooks one by one is the compiler's random-policy suites,
//! `hook_index.rs` and `dispatch.rs`, which evaluate through `Policy`.)

use hookc_runtime::bytecode::shape::HookShape;
use hookc_runtime::internals::dispatch::{EventPlans, PlanStep, Plans};

use crate::wire_manifest::{manifest, wire_dir, Case};

/// Every golden artifact's name and bytes.
fn golden_artifacts() -> impl Iterator<Item = (String, Vec<u8>)> {
    manifest().into_iter().map(|Case { name, .. }| {
        let path = wire_dir().join(format!("{name}.hkb"));
        let bytes = std::fs::read(&path).unwrap_or_else(|e| panic!("{}: {e}", path.display()));
        (name, bytes)
    })
}

#[test]
fn each_event_plan_built_on_first_use_is_the_eager_plan() {
    let mut events_seen = 0;
    for (name, bytes) in golden_artifacts() {
        let verified = hookc_runtime::artifact::load(&bytes).unwrap();
        let program = verified.program();
        let shapes = HookShape::of_hooks(program);
        let eager = Plans::new(program);
        let lazy = EventPlans::new(program);
        assert_eq!(lazy.built(), 0, "{name}: nothing is built at load");
        let mut events: Vec<String> = program
            .events
            .named
            .iter()
            .map(|(e, _)| program.string(*e).to_owned())
            .collect();
        events.push("no hook names this event".to_owned());
        for (n, event) in events.iter().enumerate() {
            let plan = lazy.for_event(&verified, &shapes, event);
            assert_eq!(lazy.built(), n + 1, "{name} {event}: one plan more");
            assert!(
                std::ptr::eq(plan, lazy.for_event(&verified, &shapes, event)),
                "{name} {event}: built once"
            );
            let want = eager.for_event(event);
            assert_eq!(plan.steps().len(), want.len(), "{name} {event}");
            for (got, want) in plan.steps().iter().zip(want) {
                match (got, want) {
                    (PlanStep::Hook(a), PlanStep::Hook(b)) => assert_eq!(a, b, "{name} {event}"),
                    (
                        PlanStep::Dispatch { path: a, table: i },
                        PlanStep::Dispatch { path: b, table: j },
                    ) => {
                        assert_eq!(a, b, "{name} {event}");
                        assert_eq!(plan.table(*i), eager.table(*j), "{name} {event}");
                        assert!(plan.table(*i).is_some(), "{name} {event}");
                    }
                    (PlanStep::Index(i), PlanStep::Index(j)) => {
                        assert_eq!(plan.index(*i), eager.index(*j), "{name} {event}");
                        assert!(plan.index(*i).is_some(), "{name} {event}");
                    }
                    (got, want) => panic!("{name} {event}: {got:?}, expected {want:?}"),
                }
            }
            events_seen += 1;
        }
    }
    assert!(
        events_seen > 10,
        "{events_seen} events in the golden artifacts"
    );
}

/// A policy that uses the decision model answers by its walk, which reads
/// no plan and no flat conjunction: its load decodes no hook shape. One
/// without it decodes every hook's. (That the walk's answers are the
/// reference walk's is the compiler's `decision_model.rs` suite.)
#[test]
fn hook_shapes_are_decoded_only_where_the_fast_paths_read_them() {
    use hookc_runtime::Policy;
    let mut seen = [false; 2];
    for (name, bytes) in golden_artifacts() {
        let policy = Policy::from_artifact(&bytes).unwrap();
        let program = policy.program();
        let model = program.uses_model();
        seen[usize::from(model)] = true;
        let want = if model { 0 } else { program.hooks.len() };
        assert_eq!(policy.decoded_shapes(), want, "{name}");
    }
    assert_eq!(
        seen,
        [true, true],
        "golden artifacts with and without the model"
    );
}

/// A load builds no string constant nor list of strings
/// (`bytecode::consts`): not decoding, verifying (which reads only the
/// constants inside checked parameters, none of them strings in these
/// artifacts), nor `Policy::new`; reading one builds that one alone.
#[test]
fn a_load_builds_no_string_constant() {
    use hookc_runtime::Policy;
    use serde_json::Value;
    let texts = |v: &Value| match v {
        Value::String(_) => true,
        Value::Array(items) => items.iter().all(Value::is_string),
        _ => false,
    };
    let mut strings = 0;
    for (name, bytes) in golden_artifacts() {
        let policy = Policy::from_artifact(&bytes).unwrap();
        let consts = &policy.program().consts;
        let built = || consts.built().count();
        let before = built();
        assert!(
            consts.built().all(|(_, v)| !v.is_string()),
            "{name}: a string constant built at load"
        );
        let unbuilt = consts.len() - before;
        if let Some(i) = (0..consts.len()).find(|&i| !consts.built().any(|(j, _)| i == j)) {
            assert!(consts.get(i).is_some_and(texts), "{name}");
            assert_eq!(built(), before + 1, "{name}: one constant built");
        }
        strings += unbuilt;
    }
    assert!(
        strings > 20,
        "{strings} string constants in the golden artifacts"
    );
}

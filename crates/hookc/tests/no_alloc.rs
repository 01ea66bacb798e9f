//! Evaluation allocates nothing on the heap when no hook matches (an invariant of ARCHITECTURE.md),
//! checked with a counting global allocator. Counting is per thread, so the
//! test harness's own threads do not disturb it.

#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]

use hookc::compile::Input;
use serde_json::json;
#[path = "common/counting_alloc.rs"]
mod counting_alloc;

use counting_alloc::allocations;

fn example(rel: &str) -> Input {
    let path = std::path::Path::new(concat!(env!("CARGO_MANIFEST_DIR"), "/../..")).join(rel);
    Input::new(rel, std::fs::read_to_string(path).unwrap())
}

#[test]
fn no_match_evaluation_does_not_allocate() {
    let policy = hookc::compile::policy_from_sources(&[
        example("examples/thread-hooks/hooks.yaml"),
        example("examples/thread-hooks/directive_hooks.yaml"),
        example("examples/thread-hooks/directive.xml"),
        example("examples/policy.xml"),
    ])
    .unwrap();
    // Contexts under which no hook of the event matches, with the paths the
    // hooks read present, absent and of the wrong kind.
    let cases = [
        (
            "error",
            json!({"event": {"thread_id": "t1"}, "classification": {"category": "other", "retryable": false},
                          "error": {"type": "x", "message": "fine", "code": "E1"}}),
        ),
        (
            "error",
            json!({"event": {"thread_id": "t1"}, "classification": {"category": "other"}}),
        ),
        (
            "limit",
            json!({"event": {"thread_id": "t1"}, "limit_code": null, "limit_value": 1, "limit_max": 100}),
        ),
        (
            "context_window_pressure",
            json!({"event": {"thread_id": "t1", "pressure_ratio": 0.1}, "pressure_ratio": 0.2,
                          "tokens_used": 10, "max_tokens": 100000}),
        ),
        ("unknown_event", json!({"event": {"thread_id": "t1"}})),
    ];
    for (event, ctx) in &cases {
        assert!(
            policy.evaluate(event, ctx).unwrap().terminal.is_none(),
            "{event} {ctx} should not match"
        );
    }
    let before = allocations();
    for _ in 0..100 {
        for (event, ctx) in &cases {
            std::hint::black_box(
                policy
                    .evaluate(std::hint::black_box(event), std::hint::black_box(ctx))
                    .unwrap()
                    .terminal,
            );
        }
    }
    assert_eq!(allocations() - before, 0, "no-match evaluations allocated");

    // The counter works: a match fills templates and allocates.
    let hit = json!({"event": {"thread_id": "t1"}, "classification": {"category": "permanent"},
                     "error": {"type": "x", "message": "boom"}});
    let before = allocations();
    assert!(policy.evaluate("error", &hit).unwrap().terminal.is_some());
    assert!(allocations() > before);

    // Through a hook index (equality, membership, a number, a prefix), too.
    // (In this one test: the counter is the whole process's.)
    let mut src = String::from("hooks:\n");
    for i in 0..40 {
        let when = match i % 4 {
            0 => format!("c == 'v{i}' && n > 1"),
            1 => format!("n > 1 && c in ['v{i}', 'w{i}']"),
            2 => format!("k == {i} && f == true"),
            _ => format!("s.startsWith('p{i}:') && n > 1"),
        };
        src.push_str(&format!(
            "  - {{id: h{i}, event: e, when: {when:?}, action: {{type: abort}}}}\n"
        ));
    }
    let policy = hookc::compile::policy_from_sources(&[Input::new("p.yaml", src)]).unwrap();
    let plans = hookc_runtime::internals::dispatch::Plans::new(policy.program());
    assert_eq!(plans.indexes().len(), 1, "the index is in use");
    let cases = [
        json!({"c": "v0", "n": 0, "k": 3, "f": true, "s": "p3:x"}),
        json!({"c": "x", "n": 2, "k": 1.5, "s": "zz"}),
        json!({}),
    ];
    for ctx in &cases {
        assert!(
            policy.evaluate("e", ctx).unwrap().terminal.is_none(),
            "{ctx}"
        );
    }
    assert_eq!(
        allocations_of(&policy, &cases),
        0,
        "indexed no-match evaluations allocated"
    );

    // A policy with the decision model but no transform or await
    // (strictest combining, a failing error policy) takes the model's walk:
    // it allocates nothing on a no-match either.
    let src = "combine: strictest\non_error: fail\naction_types:\n  \
               deny: {severity: 2, parameters: {r: {type: string}}}\n  \
               ask: {severity: 1, parameters: {r: {type: string}}}\n\
               hooks:\n  \
               - {id: a, event: e, when: \"has(n) && n > 1\", action: {type: ask, r: x}}\n  \
               - {id: d, event: e, when: \"has(c) && c == 'v'\", action: {type: deny, r: y}}\n";
    let policy = hookc::compile::policy_from_sources(&[Input::new("m.yaml", src)]).unwrap();
    assert_eq!(policy.to_artifact()[8], 4, "the policy uses the model");
    let cases = [json!({"n": 0, "c": "w"}), json!({})];
    for ctx in &cases {
        assert!(policy.evaluate("e", ctx).unwrap().is_empty(), "{ctx}");
    }
    assert_eq!(
        allocations_of(&policy, &cases),
        0,
        "model no-match evaluations allocated"
    );
}

/// The allocations of 100 evaluations of event `e` on each of `cases`.
fn allocations_of(policy: &hookc_runtime::Policy, cases: &[serde_json::Value]) -> usize {
    let before = allocations();
    for _ in 0..100 {
        for ctx in cases {
            std::hint::black_box(policy.evaluate("e", std::hint::black_box(ctx)).unwrap());
        }
    }
    allocations() - before
}

//! A binding's call allocates nothing on the heap when no hook matches
//! (issue 24's "allocates nothing on a no-match"): every question a binding
//! asks of a [`BoundPolicy`] (the evaluate answer, `null`, from JSON or
//! through a sink; the deciding position; every match, `[]`), on a context
//! given as a `serde_json::Value` and as a host's [`PathLookup`] (how the
//! Python package reads a dict and the Node package an object), checked
//! with the compiler's counting global allocator.
//!
//! The host's lookup here copies the value at each path out of a JSON
//! document, and the contexts hold no non-empty string, list or object at
//! a path a hook reads, so the copies allocate nothing: whatever is counted
//! is the binding's or the runtime's. (What a real host's lookup allocates
//! to convert its values is its own: a Python `str` becomes a `String`.)
//! JSON text is left out: its one-pass extraction allocates, a documented
//! exception (ARCHITECTURE.md).

#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]

#[path = "../../hookc/tests/common/counting_alloc.rs"]
mod counting_alloc;

use counting_alloc::{allocations, frees};
use hookc_binding::compile::compile_texts;
use hookc_binding::{BoundPolicy, Evaluated, Narrowing, Question};
use hookc_runtime::bytecode::path::Path;
use hookc_runtime::internals::context::resolve;
use hookc_runtime::{Context, JsonSink, PathLookup};
use serde_json::{json, Value};

/// A host's lookup over a JSON document.
struct Copying<'a>(&'a Value);

impl PathLookup for Copying<'_> {
    fn lookup(&self, _index: usize, path: &Path) -> Option<Value> {
        resolve(self.0, path).cloned()
    }
}

fn example(rel: &str) -> (String, String) {
    let path = std::path::Path::new(concat!(env!("CARGO_MANIFEST_DIR"), "/../..")).join(rel);
    (rel.to_owned(), std::fs::read_to_string(path).unwrap())
}

/// Every question of a binding on `event` and `ctx`, from the value and
/// through the lookup; each must find no match.
fn ask_everything(p: &BoundPolicy, event: &str, ctx: &Value) {
    let n = Narrowing::default();
    let lookup = Copying(ctx);
    for context in [Context::Value(ctx), Context::Lookup(&lookup)] {
        for q in [Question::Evaluate, Question::Decide, Question::All] {
            let answer = p.answer(q, event, context, &n).unwrap();
            assert!(
                answer.is_null() || answer == json!([]),
                "{event} {ctx}: {answer}"
            );
        }
        let position = p.decide_position(event, context, &n).unwrap();
        assert_eq!(position, None, "{event} {ctx}");
        let built = p.evaluate_with(event, context, &n, &mut JsonSink).unwrap();
        assert_eq!(built, Evaluated::Built(None), "{event} {ctx}");
    }
}

#[test]
fn no_match_calls_of_a_binding_do_not_allocate() {
    let compiled = compile_texts([
        example("examples/thread-hooks/hooks.yaml"),
        example("examples/thread-hooks/directive_hooks.yaml"),
        example("examples/thread-hooks/directive.xml"),
    ])
    .unwrap();
    let p = BoundPolicy::new(compiled.policy);
    // Contexts under which no hook of the event matches, with the paths
    // the hooks read present (empty strings, numbers), absent, and null.
    let cases = [
        (
            "error",
            json!({"classification": {"category": "", "retryable": false},
                   "error": {"code": "", "message": ""}}),
        ),
        ("error", json!({"classification": {"category": null}})),
        ("error", json!({})),
        ("limit", json!({"limit_code": null, "cost": {"spend": 1}})),
        (
            "context_window_pressure",
            json!({"event": {"pressure_ratio": 0.1}, "pressure_ratio": 0.2}),
        ),
    ];
    // The first call of each event builds its plan; the counter starts
    // after.
    for (event, ctx) in &cases {
        ask_everything(&p, event, ctx);
    }
    let before = allocations();
    for _ in 0..20 {
        for (event, ctx) in &cases {
            ask_everything(&p, std::hint::black_box(event), std::hint::black_box(ctx));
        }
        assert!(p.unheard(std::hint::black_box("no_such_event")));
    }
    assert_eq!(allocations() - before, 0, "no-match calls allocated");

    // The counter works: a match fills the action and allocates.
    let hit = json!({"classification": {"category": "transient"}});
    let before = allocations();
    let answer = p.answer(
        Question::Evaluate,
        "error",
        Context::Value(&hit),
        &Narrowing::default(),
    );
    assert!(answer.is_ok_and(|a| !a.is_null()));
    assert!(allocations() > before);
}

#[test]
fn calls_through_a_lookup_free_every_value_they_read() {
    // A lookup's values own heap memory (strings, a list): a matching call
    // reads them into the slots on the call's stack (`LookupSlots`), which
    // must free each one, wherever it sits among the program's paths.
    let compiled = compile_texts([example("examples/thread-hooks/hooks.yaml")]).unwrap();
    let p = BoundPolicy::new(compiled.policy);
    let ctx = json!({"classification": {"category": "transient", "retryable": true},
                     "error": {"code": "E_TIMEOUT", "message": "a message long enough to own memory"},
                     "attempts": [1, 2, 3]});
    let lookup = Copying(&ctx);
    let n = Narrowing::default();
    let ask = |q| p.answer(q, "error", Context::Lookup(&lookup), &n).unwrap();
    // The first call builds the event's plan, which stays.
    assert!(!ask(Question::Evaluate).is_null());
    for q in [Question::Evaluate, Question::Decide, Question::All] {
        let (allocated, freed) = (allocations(), frees());
        let answer = std::hint::black_box(ask(q));
        assert!(!answer.is_null() && answer != json!([]), "{answer}");
        drop(answer);
        assert!(allocations() > allocated, "the lookup's values allocate");
        assert_eq!(
            allocations() - allocated,
            frees() - freed,
            "{q:?}: every block allocated was freed"
        );
    }
}

//! Fuzz target `compile`: whole-source compilation, then evaluation.
//!
//! Input layout: segments separated by NUL bytes. With one segment, it is
//! the only source and the context is `{}`; with more, the last segment is
//! the context's JSON text and the others (at most four) are sources, in
//! order. Sources are named `f0`, `f1`, ... with no extension, so each is
//! read as XML if it starts with `<` and as YAML otherwise (as `hookc`
//! does for such names).
//!
//! Checks, in order:
//! - [`hookc::compile::compile`] and rendering every diagnostic (human and
//!   JSON) do not panic or hang;
//! - a policy without errors emits normalized YAML ([`hookc::normalize`]) that
//!   compiles without errors and emits the same YAML again;
//! - it lowers and verifies ([`Policy::from_compilation`]; a verification
//!   failure is a compiler bug), and its artifact loads back;
//! - on every event its hooks name (and one they do not), the context gives
//!   the same answer through `evaluate`, the `explain` winner,
//!   `evaluate_json` on the context text, `evaluate_all`, the reloaded
//!   artifact and the reference evaluator on the IR
//!   ([`hookc_fuzz::check_agreement`]). A context text that `serde_json`
//!   rejects must be rejected by `evaluate_json` too (except for nesting
//!   past `serde_json`'s recursion limit, which `evaluate_json` skips
//!   where no path reads, as documented).
#![no_main]

use hookc::compile::{compile, Input};
use hookc::diag::render;
use hookc_runtime::Policy;
use hookc_fuzz::{check_agreement, events_of};
use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| {
    let mut segments: Vec<&[u8]> = data.split(|&b| b == 0).collect();
    let context: &[u8] = if segments.len() > 1 {
        segments.pop().unwrap_or_default()
    } else {
        b"{}"
    };
    if segments.len() > 4 {
        return;
    }
    let inputs: Vec<Input> = segments
        .iter()
        .enumerate()
        .map(|(i, s)| Input::new(format!("f{i}"), String::from_utf8_lossy(s)))
        .collect();

    let c = compile(&inputs);
    let all: Vec<_> = c.diagnostics.iter().collect();
    let _ = render::human(&all, &c.sources);
    for d in &all {
        let _ = render::json(d, &c.sources);
    }
    let Some(ir) = c.policy.clone() else {
        return;
    };

    let emitted = hookc::normalize::to_yaml(&ir).expect("normalized YAML serializes");
    let again = compile(&[Input::new("emitted.yaml", emitted.clone())]);
    if again.diagnostics.has_errors() {
        let errors: Vec<_> = again.diagnostics.iter().collect();
        panic!(
            "the emitted YAML does not compile:\n{emitted}\n{}",
            render::human(&errors, &again.sources)
        );
    }
    let reemitted = again
        .policy
        .as_ref()
        .map(|p| hookc::normalize::to_yaml(p).expect("normalized YAML serializes"));
    assert_eq!(
        Some(&emitted),
        reemitted.as_ref(),
        "emitting the emitted policy again changes it"
    );

    let rt = hookc::compile::Compilation::into_policy(c)
        .unwrap_or_else(|e| panic!("a checked policy fails to lower and verify: {e}"));
    let reloaded = Policy::from_artifact(&rt.to_artifact())
        .unwrap_or_else(|e| panic!("the policy's own artifact does not load: {e}"));

    let value: serde_json::Value = match serde_json::from_slice(context) {
        Ok(v) => v,
        Err(_) => {
            for event in events_of(&rt) {
                assert!(
                    rt.query(&event, hookc_runtime::Context::json(context)).first().is_err(),
                    "evaluate_json accepts a context serde_json rejects: {}",
                    String::from_utf8_lossy(context)
                );
            }
            return;
        }
    };
    for event in events_of(&rt) {
        check_agreement(Some(&ir), &rt, &reloaded, &event, &value, Some(context));
    }
});

//! Shared pieces of hookc's fuzz targets: the oracles that every target
//! checks a compiled policy or expression against.
//!
//! A failed check panics with a message naming the inputs, which libFuzzer
//! reports as a crash (with the input saved under `artifacts/<target>/`).

use hookc_runtime::internals::context::{PathCache, Source};
use hookc::testing::reference;
use hookc_runtime::{Match, Outcome, Overrides, Policy};
use hookc_runtime::internals::value::Val;
use hookc_runtime::verify::VerifiedProgram;
use hookc_runtime::internals::vm::{eval_hook, ErrorSite};
use serde_json::{json, Value};

/// Contexts the expression target evaluates every compiled expression on:
/// empty, and one over the names of the seeds with values of every kind.
pub fn expression_contexts() -> Vec<Value> {
    vec![
        json!({}),
        json!({
            "a": {"b": {"c": 1, "k": "x"}, "c": [1, 2.5, "s", null]},
            "n": 7,
            "d": -0.0,
            "s": "héllo k-1",
            "b": true,
            "l": [3, -1, 9_007_199_254_740_993_i64, "a", true, null, [1], {"k": 1}],
            "o": {"k-1": 2, "k": "v", "": null},
            "x": i64::MIN,
            "y": 1e300,
            "classification": {"category": "rate_limited", "retryable": true},
            "error": {"code": "E9", "headers": {"retry-after": "30"}, "type": "auth"},
            "event": {"thread_id": "t1", "limit_code": "tokens"},
            "tokens_used": 120_000,
            "pressure_ratio": 0.93
        }),
        json!({"a": null, "n": "7", "d": 2, "s": 3, "b": "true", "l": {"k": 1}, "o": []}),
    ]
}

/// The VM's value of hook 0 of a one-expression program on `ctx`, without
/// and with error tracing.
pub fn vm_value<'a>(prog: &'a VerifiedProgram, ctx: &'a Value) -> (Val<'a>, Val<'a>) {
    let paths = &prog.program().paths;
    let mut cache = PathCache::new(paths, Source::Document(ctx));
    let plain = eval_hook(prog, 0, &mut cache, None);
    let mut cache = PathCache::new(paths, Source::Document(ctx));
    let mut site = ErrorSite::default();
    let traced = eval_hook(prog, 0, &mut cache, Some(&mut site));
    (plain, traced)
}

fn ids(matches: &[Match<'_>]) -> Vec<String> {
    matches.iter().map(|m| m.hook.to_owned()).collect()
}

/// Checks that every way of evaluating `event` on `ctx` gives the same
/// answer: [`Policy::evaluate`] (the dispatch path), the winner of
/// the explain trace, the first match from the context's JSON text, every
/// match ([`hookc_runtime::Query::all`]) and the explain trace against each other,
/// `reloaded` (the policy read back from its artifact) against `rt`, and,
/// given the IR, [`reference::first_match`] and [`reference::all_matches`].
///
/// `text` is the context as JSON text when it came as text (it must parse
/// to `ctx`); otherwise `ctx` is serialized.
pub fn check_agreement(
    ir: Option<&hookc::check::policy::CheckedPolicy>,
    rt: &Policy,
    reloaded: &Policy,
    event: &str,
    ctx: &Value,
    text: Option<&[u8]>,
) {
    let none = Overrides::default();
    let serialized;
    let text = match text {
        Some(t) => t,
        None => {
            serialized = serde_json::to_vec(ctx).unwrap_or_default();
            &serialized
        }
    };
    // The fuzzed policies use the built-in action types, all terminal: the
    // decision is the first match, and nothing is collected.
    let by_value = match rt.evaluate(event, ctx).map(|d| d.terminal) {
        Ok(m) => m,
        // The winner's action fails its parameter checks: every answer that
        // builds it fails alike.
        Err(e) => {
            let by_text = rt.query(event, hookc_runtime::Context::json(text)).first();
            assert!(by_text.is_err(), "from a Value: {e}; from text: {by_text:?}");
            return;
        }
    };
    let by_text = rt
        .query(event, hookc_runtime::Context::json(text)).first()
        .unwrap_or_else(|e| panic!("evaluate_json rejects a context serde_json reads: {e}"));
    let trace = rt.query(event, ctx).with_overrides(&none).explain().unwrap();
    let winner = trace
        .winner
        .and_then(|w| trace.hooks.get(w))
        .map(|h| h.hook.clone());
    let Ok(all) = rt.query(event, ctx).with_overrides(&none).all() else {
        // A later match's action fails its parameter checks.
        return;
    };
    let all_text = rt
        .query(event, hookc_runtime::Context::json(text)).with_overrides(&none).all()
        .unwrap_or_else(|e| panic!("evaluate_all_json rejects a context serde_json reads: {e}"));
    let traced_matches: Vec<String> = trace
        .hooks
        .iter()
        .filter(|h| h.outcome == Outcome::Matched)
        .map(|h| h.hook.clone())
        .collect();
    let again = reloaded.evaluate(event, ctx).unwrap().terminal;
    let decided = rt.query(event, ctx).decide().unwrap();

    let first = by_value.as_ref().map(|m| m.hook.to_owned());
    assert_eq!(
        decided,
        by_value.as_ref().map(|m| m.hook),
        "decide and evaluate disagree on event `{event}`"
    );
    let context = String::from_utf8_lossy(text);
    assert_eq!(
        by_value, by_text,
        "evaluate and evaluate_json disagree on event `{event}`, context {context}"
    );
    assert_eq!(
        first, winner,
        "evaluate and the explain winner disagree on event `{event}`, context {context}"
    );
    assert_eq!(
        by_value, again,
        "the policy and its artifact round trip disagree on event `{event}`, context {context}"
    );
    assert_eq!(
        all, all_text,
        "evaluate_all and evaluate_all_json disagree on event `{event}`, context {context}"
    );
    assert_eq!(
        ids(&all),
        traced_matches,
        "evaluate_all and the explain trace disagree on event `{event}`, context {context}"
    );
    assert_eq!(
        all.first().map(|m| m.hook.to_owned()),
        first,
        "evaluate and evaluate_all disagree on event `{event}`, context {context}"
    );
    if let Some(ir) = ir {
        let reference_first = reference::first_match(ir, event, ctx).map(|h| h.id.clone());
        assert_eq!(
            first, reference_first,
            "the VM and the reference evaluator disagree on event `{event}`, context {context}"
        );
        let reference_all: Vec<String> = reference::all_matches(ir, event, ctx)
            .into_iter()
            .map(|h| h.id.clone())
            .collect();
        assert_eq!(
            ids(&all),
            reference_all,
            "evaluate_all and reference::all_matches disagree on event `{event}`, context {context}"
        );
    }
}

/// The events to try on a policy: every event its hooks name (at most
/// eight), and one that none names (the wildcard hooks only).
pub fn events_of(rt: &Policy) -> Vec<String> {
    let p = rt.program();
    let mut events: Vec<String> = p
        .events
        .named
        .iter()
        .take(8)
        .map(|(name, _)| p.string(*name).to_owned())
        .collect();
    events.push("no_hook_names_this_event".to_owned());
    events
}

/// Renders every diagnostic, sorted, both ways (human and JSON): what the
/// front-end targets require never to panic, whatever the spans.
pub fn render_all(diags: &mut hookc::diag::Diagnostics, sources: &hookc::span::SourceMap) {
    use hookc::diag::render;
    diags.sort();
    let all: Vec<_> = diags.iter().collect();
    let _ = render::human(&all, sources);
    for d in &all {
        let _ = render::json(d, sources);
    }
}

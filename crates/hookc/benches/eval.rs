//! Evaluation benchmarks on the checked-in inputs of `benches/data/`, with
//! their baselines in the same run (`cargo bench --bench eval`).
//!
//! | id | measures |
//! |---|---|
//! | `eval/seed/<ctx>/value` | `Policy::evaluate` with the context as a `serde_json::Value`: find the match, fill its action |
//! | `eval/seed/<ctx>/json` | `Policy::query(event, Context::json(text)).first()` on the context's compact JSON text |
//! | `eval/seed/<ctx>/find` | finding the match only: `Policy::query(..).decide()`, the same path as `evaluate` without building the action |
//! | `eval/seed/<ctx>/fill` | filling the winner's action only (`vm::fill_action`, fresh path cache) |
//! | `baseline/hand/seed/<ctx>` | the hand-written Rust function (`common::seed_by_hand`): decide, then build the action |
//! | `baseline/hand/seed/<ctx>/find` | its decision alone (`common::seed_hand_decide`; compare with `…/find`) |
//! | `baseline/reference/seed/<ctx>` | the tree-walking reference evaluator plus a tree-walking action fill: same output as `evaluate` |
//! | `baseline/reference/seed/<ctx>/find` | `reference::first_match` alone |
//! | `baseline/serde_parse/seed/<ctx>` | `serde_json::from_str::<Value>` of the same text as `…/json`, alone |
//! | `eval/{regex_heavy,template_heavy}/…` | the same for the regex-heavy and template-heavy inputs (no hand-written baseline) |
//!
//! Every input is checked before anything is timed: hookc (value and text),
//! the reference evaluator and the hand-written function must pick the hook
//! the context file names and fill the same action.

#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]

mod common;

use common::Case;
use criterion::{criterion_group, criterion_main, Criterion};
use hookc_runtime::internals::context::{PathCache, Source};
use hookc_runtime::verify::VerifiedProgram;
use hookc_runtime::Policy;
use serde_json::Value;
use std::hint::black_box;
use std::time::Duration;

/// Hook `h`'s action filled from a fresh path cache (empty if it fails its
/// parameter checks).
fn fill(prog: &VerifiedProgram, h: u32, ctx: &Value) -> serde_json::Map<String, Value> {
    let p = prog.program();
    let mut cache = PathCache::new(&p.paths, Source::Document(ctx));
    let action = p
        .hooks
        .get(h as usize)
        .map_or(hookc_runtime::bytecode::ActionIdx::new(u32::MAX), |e| {
            e.action
        });
    hookc_runtime::internals::vm::fill_action(prog, "bench", action, &mut cache).unwrap_or_default()
}

/// An input compiled every way the benches need it.
struct Compiled {
    policy: Policy,
    ir: hookc::check::policy::CheckedPolicy,
    verified: VerifiedProgram,
}

impl Compiled {
    fn new(inputs: &[hookc::compile::Input]) -> Compiled {
        let ir = common::checked(inputs);
        let verified = hookc_runtime::verify::verify(hookc::lower::lower(&ir)).unwrap();
        Compiled {
            policy: common::runtime(inputs),
            ir,
            verified,
        }
    }

    /// Checks `case` every way, returning the winner's index for `fill`.
    fn check(&self, case: &Case) -> Option<u32> {
        let action = common::assert_case(&self.policy, &self.ir, case);
        let id = self
            .policy
            .query(&case.event, &case.context)
            .decide()
            .unwrap();
        assert_eq!(
            id,
            case.expect.as_deref(),
            "context `{}`: `decide` disagrees",
            case.name
        );
        let p = self.verified.program();
        let found = id.and_then(|id| p.hooks.iter().position(|h| p.string(h.id) == id));
        let found = found.map(|h| u32::try_from(h).unwrap());
        if let Some(h) = found {
            assert_eq!(
                Some(fill(&self.verified, h, &case.context)),
                action,
                "context `{}`: `fill` disagrees",
                case.name
            );
        }
        found
    }

    /// `eval/<name>/{value,json,find,fill}` and the `baseline/reference/<name>`
    /// and `baseline/serde_parse/<name>` baselines of one case.
    fn bench(&self, c: &mut Criterion, name: &str, case: &Case) {
        let winner = self.check(case);
        let (event, ctx, text) = (case.event.as_str(), &case.context, case.text.as_str());
        let policy = &self.policy;
        common::bench_value_and_json(c, &format!("eval/{name}"), policy, case);
        let verified = &self.verified;
        c.bench_function(&format!("eval/{name}/find"), |b| {
            b.iter(|| {
                policy
                    .query(black_box(event), black_box(ctx))
                    .decide()
                    .unwrap()
            })
        });
        if let Some(h) = winner {
            c.bench_function(&format!("eval/{name}/fill"), |b| {
                b.iter(|| fill(verified, black_box(h), black_box(ctx)))
            });
        }
        let ir = &self.ir;
        c.bench_function(&format!("baseline/reference/{name}"), |b| {
            b.iter(|| common::reference_evaluate(ir, black_box(event), black_box(ctx)))
        });
        c.bench_function(&format!("baseline/reference/{name}/find"), |b| {
            b.iter(|| hookc::testing::reference::first_match(ir, black_box(event), black_box(ctx)))
        });
        c.bench_function(&format!("baseline/serde_parse/{name}"), |b| {
            b.iter(|| serde_json::from_str::<Value>(black_box(text)).unwrap())
        });
    }
}

fn seed(c: &mut Criterion) {
    let compiled = Compiled::new(&common::seed_inputs());
    let cases = common::seed_cases();
    // Check every context with the hand-written function before timing anything.
    for case in &cases {
        let by_hand = common::seed_by_hand(&case.event, &case.context);
        let hookc = compiled
            .policy
            .evaluate(&case.event, &case.context)
            .ok()
            .and_then(|d| d.terminal);
        assert_eq!(
            by_hand.as_ref().map(|(h, _)| *h),
            case.expect.as_deref(),
            "context `{}`: the hand-written function disagrees with the input's expectation",
            case.name
        );
        assert_eq!(
            by_hand.map(|(_, a)| a),
            hookc.map(|m| m.action),
            "context `{}`: the hand-written function fills a different action",
            case.name
        );
    }
    for case in &cases {
        compiled.bench(c, &format!("seed/{}", case.name), case);
        let (event, ctx) = (case.event.as_str(), &case.context);
        c.bench_function(&format!("baseline/hand/seed/{}", case.name), |b| {
            b.iter(|| common::seed_by_hand(black_box(event), black_box(ctx)))
        });
        c.bench_function(&format!("baseline/hand/seed/{}/find", case.name), |b| {
            b.iter(|| common::seed_hand_decide(black_box(event), black_box(ctx)))
        });
    }
}

fn heavy(c: &mut Criterion) {
    for (inputs, case) in [common::regex_heavy(), common::template_heavy()] {
        let compiled = Compiled::new(&inputs);
        compiled.bench(c, &case.name, &case);
    }
}

/// Sub-microsecond routines: short runs give tight estimates; the whole
/// target stays around three minutes.
fn config() -> Criterion {
    Criterion::default()
        .warm_up_time(Duration::from_millis(500))
        .measurement_time(Duration::from_millis(1500))
        .sample_size(60)
}

criterion_group! {
    name = benches;
    config = config();
    targets = seed, heavy
}
criterion_main!(benches);

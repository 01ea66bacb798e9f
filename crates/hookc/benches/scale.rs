//! Evaluation as the number of hooks on one event grows
//! (`cargo bench --bench scale`), on the generated policies of
//! `common::scale_policy` (N = 10, 100, 1,000, 10,000 hooks on `error`).
//!
//! | id | measures |
//! |---|---|
//! | `scale/<N>/last/value` | `Policy::evaluate`, context as a `Value`, matching only the last hook in evaluation order |
//! | `scale/<N>/last/json` | `Policy::query(event, Context::json(text)).first()` on the same context as compact JSON text |
//! | `scale/<N>/none/{value,json}` | the same with a context matching no hook |
//! | `baseline/reference/scale/<N>/{last,none}` | the tree-walking reference evaluator (`first_match`, plus the action fill for `last`) |
//!
//! Every case is checked (hookc from value and text, and the reference
//! evaluator, pick the expected hook and fill the same action) before timing.

#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]

mod common;

use common::{ScaleCase, SCALE_SIZES};
use criterion::{criterion_group, criterion_main, Criterion, SamplingMode};
use std::hint::black_box;
use std::time::Duration;

fn scale(c: &mut Criterion) {
    for n in SCALE_SIZES {
        let inputs = common::scale_inputs(n);
        let policy = common::runtime(&inputs);
        let ir = common::checked(&inputs);
        assert_eq!(policy.hook_ids().count(), n, "scale policy of {n} hooks");
        for which in [ScaleCase::Last, ScaleCase::None] {
            let case = common::scale_case(n, which);
            common::assert_case(&policy, &ir, &case);
            let (event, ctx, text) = (case.event.as_str(), &case.context, case.text.as_str());
            let name = &case.name;
            let policy = &policy;
            c.bench_function(&format!("scale/{name}/value"), |b| {
                b.iter(|| {
                    policy
                        .evaluate(black_box(event), black_box(ctx))
                        .ok()
                        .flatten()
                })
            });
            c.bench_function(&format!("scale/{name}/json"), |b| {
                b.iter(|| {
                    policy
                        .query(
                            black_box(event),
                            hookc_runtime::Context::json(black_box(text.as_bytes())),
                        )
                        .first()
                })
            });
            // The reference walks every hook's tree: milliseconds at 10,000.
            let mut group = c.benchmark_group("baseline/reference/scale");
            if n >= 1_000 {
                group
                    .sample_size(10)
                    .sampling_mode(SamplingMode::Flat)
                    .measurement_time(Duration::from_secs(1));
            }
            let ir = &ir;
            group.bench_function(name.as_str(), |b| {
                b.iter(|| common::reference_evaluate(ir, black_box(event), black_box(ctx)))
            });
            group.finish();
        }
    }
}

/// Sub-microsecond to millisecond routines; the whole target stays around
/// one and a half minutes.
fn config() -> Criterion {
    Criterion::default()
        .warm_up_time(Duration::from_millis(500))
        .measurement_time(Duration::from_millis(1500))
        .sample_size(60)
}

criterion_group! {
    name = benches;
    config = config();
    targets = scale
}
criterion_main!(benches);

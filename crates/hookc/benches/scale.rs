//! Evaluation as the number of hooks on one event grows
//! (`cargo bench --bench scale`), on the generated policies of
//! `common::scale_policy` (N = 10, 100, 1,000, 10,000 hooks on `error`), where
//! every hook leads with a string equality, and of `common::mixed_policy`,
//! where the discriminating test takes every shape a hook index must handle.
//!
//! | id | measures |
//! |---|---|
//! | `scale/<N>/last/value` | `Policy::evaluate`, context as a `Value`, matching only the last hook in evaluation order |
//! | `scale/<N>/last/json` | `Policy::query(event, Context::json(text)).first()` on the same context as compact JSON text |
//! | `scale/<N>/none/{value,json}` | the same with a context matching no hook |
//! | `baseline/reference/scale/<N>/{last,none}` | the tree-walking reference evaluator (`first_match`, plus the action fill for `last`) |
//! | `scale/mixed/<N>/{last,none}/{value,json}` | the same on `common::mixed_policy`: discriminating tests of interleaved shapes (membership every 7th hook, equality second or third every 5th, a number and a bool every 3rd, a `startsWith` only every 11th, leading equality otherwise) |
//! | `baseline/reference/scale/mixed/<N>/{last,none}` | the reference evaluator on those |
//!
//! Every case is checked (hookc from value and text, and the reference
//! evaluator, pick the expected hook and fill the same action) before timing.

#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]

mod common;

use common::{Case, ScaleCase, SCALE_SIZES};
use criterion::{criterion_group, criterion_main, Criterion, SamplingMode};
use hookc::compile::Input;
use std::hint::black_box;
use std::time::Duration;

type Family = (fn(usize) -> Vec<Input>, fn(usize, ScaleCase) -> Case);

fn scale(c: &mut Criterion) {
    let families: [Family; 2] = [
        (common::scale_inputs, common::scale_case),
        (common::mixed_inputs, common::mixed_case),
    ];
    for (inputs_of, case_of) in families {
        for n in SCALE_SIZES {
            family_at(c, n, inputs_of(n), case_of);
        }
    }
}

fn family_at(
    c: &mut Criterion,
    n: usize,
    inputs: Vec<Input>,
    case_of: fn(usize, ScaleCase) -> Case,
) {
    let policy = common::runtime(&inputs);
    let ir = common::checked(&inputs);
    assert_eq!(policy.hook_ids().count(), n, "scale policy of {n} hooks");
    for which in [ScaleCase::Last, ScaleCase::None] {
        let case = case_of(n, which);
        common::assert_case(&policy, &ir, &case);
        let (event, ctx) = (case.event.as_str(), &case.context);
        let name = &case.name;
        common::bench_value_and_json(c, &format!("scale/{name}"), &policy, &case);
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

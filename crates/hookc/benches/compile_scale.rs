//! The whole build step as the policy grows (`cargo bench --bench
//! compile_scale`): issue 24's compile targets, 10,000 hooks of every shape
//! in at most 0.5 s and 50,000 in at most 6.5 times as long as 10,000.
//!
//! | id | measures |
//! |---|---|
//! | `compile_scale/random/<N>` | `hookc::compile::policy_from_sources` then `to_artifact` (read, check, lints, lower, verify, encode) on `common::random_policy::random_inputs(N, 7)`: random `when` trees and condition trees of every leaf shape, shared constants, repeated conditions, two layers, five events, templates |
//! | `compile_scale/mixed/<N>` | the same on `common::mixed_inputs(N)`, the `scale` bench's mixed shapes on one event |
//!
//! N is 10,000 and 50,000. Each iteration takes about a second to a few
//! seconds: ten flat samples each, about two minutes in all. The ratio of
//! the two medians of one family is the growth the issue bounds; the work
//! itself is kept linear by `tests/linear_compile.rs`, which counts it.

#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]

mod common;

use common::random_policy::random_inputs;
use criterion::{criterion_group, criterion_main, Criterion, SamplingMode};
use hookc::compile::{policy_from_sources, Input};
use std::hint::black_box;
use std::time::Duration;

/// A family of inputs: its name and its generator.
type Family = (&'static str, fn(usize) -> Vec<Input>);

/// The sizes compared.
const SIZES: [usize; 2] = [10_000, 50_000];

fn build(inputs: &[Input]) -> usize {
    policy_from_sources(inputs).unwrap().to_artifact().len()
}

fn compile_scale(c: &mut Criterion) {
    let families: [Family; 2] = [
        ("random", |n| random_inputs(n, 7)),
        ("mixed", common::mixed_inputs),
    ];
    let mut group = c.benchmark_group("compile_scale");
    group
        .sample_size(10)
        .sampling_mode(SamplingMode::Flat)
        .warm_up_time(Duration::from_millis(100))
        .measurement_time(Duration::from_secs(1));
    for (name, inputs_of) in families {
        for n in SIZES {
            let inputs = inputs_of(n);
            assert!(build(&inputs) > 0, "{name}/{n} compiles");
            group.bench_function(format!("{name}/{n}"), |b| {
                b.iter(|| build(black_box(&inputs)))
            });
        }
    }
    group.finish();
}

criterion_group!(benches, compile_scale);
criterion_main!(benches);

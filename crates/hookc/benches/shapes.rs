//! Evaluation of random policies of every shape on one event (`cargo bench
//! --bench shapes`): issue 24's targets "every shape, 10 hooks (random mixes
//! you did not design): faster than a tree-walker and than datalogic-rs on
//! every context" (the tree-walker here; datalogic-rs in `bench-peers`, family
//! `random`) and "every shape, 1,000 hooks: last hook and no match ≤ 1 µs;
//! 10,000 ≤ 3× 10".
//!
//! | id | measures |
//! |---|---|
//! | `shapes/<n>/<seed>/<ctx>/find` | `policy.query(event, &value).decide()`: the first match's hook id |
//! | `shapes/<n>/<seed>/<ctx>/value` | `Policy::evaluate(event, &value)`: the first match with its action filled |
//! | `baseline/reference/shapes/<n>/<seed>/<ctx>/find` | the tree-walking reference evaluator, `reference::first_match` (compare with `…/find`); n = 10 and 1,000 |
//!
//! `<n>` is 10, 1,000 and 10,000 hooks, `<seed>` 1, 2 and 3 (the policies
//! of `common::random_policy::shapes(n, seed, 3)`: `when` trees and
//! condition trees of every leaf shape, random priorities, terminal
//! actions). `<ctx>` is `none` (matches no hook), `last` (its first match is
//! the last hook in evaluation order) or `random-0` … `random-2` (whatever
//! they match). Every context is checked before timing: hookc from the value
//! and from JSON text, `decide`, and the reference evaluator pick the
//! context's hook and fill the same action.

#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]

mod common;

use common::random_policy::{shapes, Shapes, SHAPES_EVENT};
use common::Case;
use criterion::{criterion_group, criterion_main, Criterion, SamplingMode};
use std::hint::black_box;
use std::time::Duration;

/// Hooks per policy.
const SIZES: [usize; 3] = [10, 1_000, 10_000];

/// The generator's seeds.
const SEEDS: [u32; 3] = [1, 2, 3];

/// Random contexts per policy (besides `none` and `last`).
const RANDOMS: usize = 3;

/// The largest policy the reference evaluator is timed on (it walks every
/// hook's tree: milliseconds at 10,000, and nothing more to learn).
const MAX_REFERENCE: usize = 1_000;

/// The context of `s` as a bench case.
fn case(s: &Shapes, name: &str, context: &serde_json::Value, expect: Option<String>) -> Case {
    let name = format!("{}/{}/{name}", s.n, s.seed);
    Case::new(&name, SHAPES_EVENT, context.clone(), expect)
}

fn shapes_bench(c: &mut Criterion) {
    for n in SIZES {
        for seed in SEEDS {
            let s = shapes(n, seed, RANDOMS);
            let policy = common::runtime(&s.inputs);
            let ir = common::checked(&s.inputs);
            assert_eq!(policy.hook_ids().count(), n, "shapes/{n}/{seed}: hooks");
            for ctx in &s.contexts {
                let case = case(&s, &ctx.name, &ctx.context, ctx.expect.clone());
                common::assert_case(&policy, &ir, &case);
                let event = SHAPES_EVENT;
                let value = &ctx.context;
                let decided = policy.query(event, value).decide().unwrap();
                assert_eq!(
                    decided,
                    ctx.expect.as_deref(),
                    "shapes/{}: decide disagrees with the reference evaluator",
                    case.name
                );
                let id = format!("shapes/{}", case.name);
                c.bench_function(&format!("{id}/find"), |b| {
                    b.iter(|| policy.query(black_box(event), black_box(value)).decide())
                });
                c.bench_function(&format!("{id}/value"), |b| {
                    b.iter(|| policy.evaluate(black_box(event), black_box(value)))
                });
                if n <= MAX_REFERENCE {
                    let mut group = c.benchmark_group("baseline/reference/shapes");
                    if n >= 1_000 {
                        group
                            .sample_size(10)
                            .sampling_mode(SamplingMode::Flat)
                            .measurement_time(Duration::from_millis(500));
                    }
                    let ir = &ir;
                    group.bench_function(format!("{}/find", case.name), |b| {
                        b.iter(|| {
                            hookc::testing::reference::first_match(
                                ir,
                                black_box(event),
                                black_box(value),
                            )
                        })
                    });
                    group.finish();
                }
            }
        }
    }
}

/// 120 benchmarks of 0.1 µs to a millisecond: short runs keep the target
/// at about two and a half minutes, setup included.
fn config() -> Criterion {
    Criterion::default()
        .warm_up_time(Duration::from_millis(200))
        .measurement_time(Duration::from_millis(600))
        .sample_size(40)
}

criterion_group! {
    name = benches;
    config = config();
    targets = shapes_bench
}
criterion_main!(benches);

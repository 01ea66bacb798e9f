//! Benchmarks of the compiler and loader, by stage (`cargo bench --bench
//! pipeline`), on the checked-in inputs of `benches/data/`, the bundled
//! examples and the generated scale policies (`common::scale_policy`).
//!
//! | id | measures |
//! |---|---|
//! | `parse/{leaf,compound,macro}` | the `when` parser alone, on one expression |
//! | `parse/yaml/<input>` | the YAML front end alone: text → `SourceFile` (structure checked, conditions raw) |
//! | `check/<input>` | `compile::compile`: sources → checked `check::policy::CheckedPolicy` (read, resolve, type-check, order) |
//! | `lower/<input>` | `lower::lower`: checked IR → bytecode `Program` |
//! | `load/<input>` | `artifact::load` of the artifact bytes: decode + verify (what loading guarantees) |
//! | `load/<input>/decode` | `artifact::decode` alone |
//! | `load/<input>/runtime` | `Policy::from_artifact`: decode, verify and the runtime's load-time indexes |
//! | `compile/<input>` | the whole build step: `hookc::compile::policy_from_sources` (check, lower, verify) then `to_artifact` |
//!
//! Inputs: `seed` (`benches/data/seed/policy.yaml`), `seed_set` and
//! `policy_xml` (the bundled examples), `scale_<N>` (N hooks).

#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]

mod common;

use common::SCALE_SIZES;
use criterion::{criterion_group, criterion_main, Criterion, SamplingMode};
use hookc::compile::{compile, Input};
use hookc::span::{FileId, Origin};
use hookc_runtime::Policy;
use std::hint::black_box;
use std::path::Path;
use std::time::Duration;

fn example(rel: &str) -> Input {
    let path = Path::new(concat!(env!("CARGO_MANIFEST_DIR"), "/../..")).join(rel);
    let text = std::fs::read_to_string(&path).unwrap_or_else(|e| panic!("{}: {e}", path.display()));
    Input::new(rel, text)
}

/// The inputs of the `check/`, `lower/` and `load/` benches, by name.
fn inputs() -> Vec<(String, Vec<Input>)> {
    let mut all = vec![("seed".to_owned(), common::seed_inputs())];
    for n in SCALE_SIZES {
        all.push((format!("scale_{n}"), common::scale_inputs(n)));
    }
    all
}

/// Large inputs take tens to hundreds of milliseconds per iteration: ten
/// samples of equal size.
fn slow(group: &mut criterion::BenchmarkGroup<'_, criterion::measurement::WallTime>, name: &str) {
    if name.ends_with("_1000") || name.ends_with("_10000") {
        group
            .sample_size(10)
            .sampling_mode(SamplingMode::Flat)
            .measurement_time(Duration::from_secs(3));
    }
}

fn parse(c: &mut Criterion) {
    let exprs = [
        ("leaf", "classification.category == 'rate_limited'"),
        (
            "compound",
            "limit_code == 'spend_exceeded' && limit_value >= limit_max * 0.9 || error.headers['retry-after'] != null",
        ),
        ("macro", "error.details.exists(d, d.code.startsWith('E4') && d.retryable)"),
    ];
    for (name, text) in exprs {
        assert!(hookc::syntax::parse(text, Origin::file_start(FileId(0))).is_ok());
        c.bench_function(&format!("parse/{name}"), |b| {
            b.iter(|| hookc::syntax::parse(black_box(text), Origin::file_start(FileId(0))).is_ok())
        });
    }
    for (name, inputs) in inputs() {
        let text = inputs[0].text.as_str();
        let mut diags = hookc::diag::Diagnostics::new();
        let file = hookc::frontend::yaml::read(text, FileId(0), "policy.yaml", &mut diags);
        assert!(!diags.has_errors(), "parse/yaml/{name}: {diags:#?}");
        assert!(!file.hooks.is_empty());
        let mut group = c.benchmark_group("parse/yaml");
        slow(&mut group, &name);
        group.bench_function(name.as_str(), |b| {
            b.iter(|| {
                let mut diags = hookc::diag::Diagnostics::new();
                hookc::frontend::yaml::read(black_box(text), FileId(0), "policy.yaml", &mut diags)
            })
        });
        group.finish();
    }
}

fn check(c: &mut Criterion) {
    let seed_set = vec![
        example("examples/thread-hooks/hooks.yaml"),
        example("examples/thread-hooks/directive_hooks.yaml"),
        example("examples/thread-hooks/directive.xml"),
    ];
    let policy_xml = vec![example("examples/policy.xml")];
    let mut all = vec![
        ("seed_set".to_owned(), seed_set),
        ("policy_xml".to_owned(), policy_xml),
    ];
    all.extend(inputs());
    for (name, inputs) in &all {
        let c0 = compile(inputs);
        assert!(
            !c0.diagnostics.has_errors(),
            "check/{name}: {:#?}",
            c0.diagnostics
        );
        let mut group = c.benchmark_group("check");
        slow(&mut group, name);
        group.bench_function(name.as_str(), |b| b.iter(|| compile(black_box(inputs))));
        group.finish();
    }
}

fn lower(c: &mut Criterion) {
    for (name, inputs) in inputs() {
        let ir = common::checked(&inputs);
        assert!(hookc_runtime::verify::verify(hookc::lower::lower(&ir)).is_ok());
        let mut group = c.benchmark_group("lower");
        slow(&mut group, &name);
        group.bench_function(name.as_str(), |b| {
            b.iter(|| hookc::lower::lower(black_box(&ir)))
        });
        group.finish();
    }
}

fn load(c: &mut Criterion) {
    for (name, inputs) in inputs() {
        let policy = common::runtime(&inputs);
        let bytes = policy.to_artifact();
        let loaded = hookc_runtime::artifact::load(&bytes).unwrap();
        assert_eq!(
            loaded.program(),
            policy.program(),
            "load/{name}: the artifact round-trips"
        );
        let mut group = c.benchmark_group("load");
        slow(&mut group, &name);
        group.bench_function(name.as_str(), |b| {
            b.iter(|| hookc_runtime::artifact::load(black_box(&bytes)).is_ok())
        });
        group.bench_function(format!("{name}/decode"), |b| {
            b.iter(|| hookc_runtime::artifact::decode(black_box(&bytes)).is_ok())
        });
        group.bench_function(format!("{name}/runtime"), |b| {
            b.iter(|| Policy::from_artifact(black_box(&bytes)).is_ok())
        });
        group.finish();
    }
}

fn build(c: &mut Criterion) {
    for (name, inputs) in inputs() {
        if !(name == "seed" || name.ends_with("_10000")) {
            continue;
        }
        assert!(hookc::compile::policy_from_sources(&inputs).is_ok());
        let mut group = c.benchmark_group("compile");
        slow(&mut group, &name);
        group.bench_function(name.as_str(), |b| {
            b.iter(|| {
                hookc::compile::policy_from_sources(black_box(&inputs))
                    .unwrap()
                    .to_artifact()
            })
        });
        group.finish();
    }
}

/// Microseconds (seed) to hundreds of milliseconds (10,000 hooks); the
/// whole target stays around three minutes.
fn config() -> Criterion {
    Criterion::default()
        .warm_up_time(Duration::from_millis(500))
        .measurement_time(Duration::from_millis(1500))
        .sample_size(40)
}

criterion_group! {
    name = benches;
    config = config();
    targets = parse, check, lower, load, build
}
criterion_main!(benches);

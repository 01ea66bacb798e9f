//! Benchmarks of the compiler's front half, by stage, on the bundled example
//! policies (seed 000's hooks and directive XML, and `examples/policy.xml`).
//!
//! `cargo bench --bench pipeline`; ids are `parse/…` (the `when` parser alone)
//! and `check/…` (read, resolve and type-check whole sources).

#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]

use criterion::{criterion_group, criterion_main, Criterion};
use hookc::compile::{compile, Input};
use hookc::span::{FileId, Origin};
use std::hint::black_box;
use std::path::Path;

fn example(rel: &str) -> Input {
    let path = Path::new(env!("CARGO_MANIFEST_DIR")).join(rel);
    let text = std::fs::read_to_string(&path).unwrap_or_else(|e| panic!("{}: {e}", path.display()));
    Input::new(rel, text)
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
        c.bench_function(&format!("parse/{name}"), |b| {
            b.iter(|| hookc::syntax::parse(black_box(text), Origin::file_start(FileId(0))).is_ok())
        });
    }
}

fn check(c: &mut Criterion) {
    let seed = [
        example("examples/seed000/hooks.yaml"),
        example("examples/seed000/directive_hooks.yaml"),
        example("examples/seed000/directive.xml"),
    ];
    let rich = [example("examples/policy.xml")];
    let ok = |inputs: &[Input]| assert!(!compile(inputs).diagnostics.has_errors());
    ok(&seed);
    ok(&rich);
    c.bench_function("check/seed_set", |b| b.iter(|| compile(black_box(&seed))));
    c.bench_function("check/policy_xml", |b| b.iter(|| compile(black_box(&rich))));
}

criterion_group!(benches, parse, check);
criterion_main!(benches);

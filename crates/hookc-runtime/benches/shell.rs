//! Shell-parser benchmarks (`cargo bench -p hookc-runtime --bench shell`).
//!
//! | id | measures |
//! |---|---|
//! | `shell/corpus` | [`parse`] of every command of `tests/data/shell/corpus.jsonl`, one call each; throughput in bytes of command text |
//! | `shell/compound_200` | [`parse`] of one 200-character compound command (pipes, `&&`, a substitution, quotes, `sudo`, a redirection) |
//! | `shell/compound_200/to_json` | the same, then [`ShellScript::to_json`](hookc_runtime::functions::shell::ShellScript::to_json) |
//!
//! Targets: at least 100 MB/s on the corpus; about 2 µs or less for the
//! compound command.

#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]

use criterion::{criterion_group, criterion_main, Criterion, Throughput};
use hookc_runtime::functions::shell::parse;
use std::hint::black_box;

const CORPUS: &str = include_str!("../tests/data/shell/corpus.jsonl");

/// 200 characters: a pipeline, `&&`, `||`, a substitution, single and
/// double quotes, an assignment, `sudo`, a redirection.
const COMPOUND: &str = "cd /srv/app && FOO=1 sudo -u deploy git pull --rebase origin main 2>&1 | tee -a \"$HOME/logs/pull.log\" && rm -rf ./build/'tmp dir' || echo \"failed at $(date +%s)\" >> /tmp/errors.txt; ls -la ./build/out";

fn commands() -> Vec<String> {
    CORPUS
        .lines()
        .map(|l| {
            let v: serde_json::Value = serde_json::from_str(l).unwrap();
            v["src"].as_str().unwrap().to_owned()
        })
        .collect()
}

fn bench(c: &mut Criterion) {
    assert_eq!(COMPOUND.len(), 200);
    let script = parse(COMPOUND);
    assert!(script.is_valid());
    assert_eq!(script.commands.len(), 7);

    let commands = commands();
    let bytes: usize = commands.iter().map(String::len).sum();
    let mut g = c.benchmark_group("shell");
    g.throughput(Throughput::Bytes(bytes as u64));
    g.bench_function("corpus", |b| {
        b.iter(|| {
            for cmd in &commands {
                black_box(parse(black_box(cmd)));
            }
        })
    });
    g.throughput(Throughput::Bytes(COMPOUND.len() as u64));
    g.bench_function("compound_200", |b| {
        b.iter(|| black_box(parse(black_box(COMPOUND))))
    });
    g.bench_function("compound_200/to_json", |b| {
        b.iter(|| black_box(parse(black_box(COMPOUND)).to_json()))
    });
    g.finish();
}

criterion_group!(benches, bench);
criterion_main!(benches);

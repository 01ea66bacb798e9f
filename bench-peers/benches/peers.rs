//! hookc and its peers on the same workloads, in one run (`cd bench-peers &&
//! cargo bench`).
//!
//! | id | measures |
//! |---|---|
//! | `hookc/seed/<ctx>` | `Policy::evaluate(event, &serde_json::Value)`: the decision, its action filled |
//! | `hookc-find/seed/<ctx>` | the first matching hook only: `Policy::decide` (the same path as `evaluate`, no action built) |
//! | `peers/<engine>/convert/seed/<ctx>` | the peer's first matching hook, the context converted from the `serde_json::Value` in the call |
//! | `peers/<engine>/preconverted/seed/<ctx>` | the same with the context converted before timing, to the engine's own value type |
//! | `…/scale/<n>/{last,none}` | the scale policy of `n` hooks (`benches/common/mod.rs`): the context matching only the last hook, and none |
//! | `…/scale/mixed/<n>/{last,none}` | the same on the mixed scale policy (`common::mixed_policy`: membership, equality second or third, a number and a bool, a `startsWith`, interleaved) |
//! | `…/regex_heavy`, `…/template_heavy` | the other inputs of `benches/data/`, where an engine can state them |
//! | `{hookc,hookc-find}/random/<n>/<seed>/<ctx>`, `peers/datalogic/preconverted/random/…` | the `random` family: `common::random_policy::shapes(n, seed, 2)`, random policies of every shape on one event (n = 10, seeds 1 to 5; n = 1,000, seeds 1 and 2); `<ctx>` is `none`, `last`, `random-0`, `random-1`; only datalogic-rs pre-converted is timed among the peers (every peer is checked) |
//! | `tree-walker/random/<n>/<seed>/<ctx>` | hookc's tree-walking reference evaluator (`hookc::testing::reference::first_match` over the checked IR) on the same |
//!
//! Engines: `cel`, `datalogic` (JSON Logic), `regorus` (Rego interpreter),
//! `regorus-rvm` (Rego VM). Before anything is timed every engine in every
//! mode must pick the hook hookc picks on every context (and hookc the hook
//! the context file names). After the run the tables of the README are
//! printed and written to `<criterion dir>/peers-report.md`.
//!
//! `PEERS_SCALE=10,100,1000` picks the scale sizes (default: 10, 100, 1000,
//! 10000). Times are this thread's CPU time (`CLOCK_THREAD_CPUTIME_ID`),
//! which leaves out waiting for a core on a busy machine; `PEERS_CLOCK=wall`
//! measures wall time instead. `PEERS_FILTER=REGEX` times only the ids the regex finds (every
//! check still runs; the report shows the other ids' last saved results);
//! the report lists the benchmarks during which another `rustc` ran, to be
//! re-run with it when the machine is quiet.

#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic, missing_docs)]

#[path = "../../crates/hookc/benches/common/mod.rs"]
mod common;

use bench_peers::rego::{RegoInterp, RegoRvm};
use bench_peers::{compile_model, report, Engine, Mode, Peers, Workload};
use criterion::measurement::{Measurement, ValueFormatter, WallTime};
use criterion::{Criterion, Throughput};
use datalogic_rs::bumpalo::Bump;
use serde_json::Value;
use std::collections::BTreeSet;
use std::hint::black_box;
use std::path::PathBuf;
use std::time::{Duration, Instant};

/// Everything benchmarked in this run, for the report.
#[derive(Default)]
struct Run {
    ids: BTreeSet<String>,
    /// Benchmarks during which other processes used more than a quarter of
    /// the machine's CPU time, with that share.
    busy: Vec<(String, f64)>,
    /// The largest share of CPU time other processes used during a benchmark.
    max_other: f64,
    notes: Vec<String>,
    /// `PEERS_FILTER`: only ids this regex finds are timed (the report
    /// still shows the others' last saved estimates).
    filter: Option<regex::Regex>,
}

impl Run {
    fn bench<M: Measurement + 'static, O>(
        &mut self,
        c: &mut Criterion<M>,
        id: String,
        mut f: impl FnMut() -> O,
    ) {
        if self.filter.as_ref().is_some_and(|re| !re.is_match(&id)) {
            self.ids.insert(id);
            return;
        }
        let before = CpuTimes::now();
        c.bench_function(&id, |b| b.iter(&mut f));
        if let (Some(a), Some(b)) = (before, CpuTimes::now()) {
            let other = a.other_share(&b);
            self.max_other = self.max_other.max(other);
            if other > 0.25 {
                self.busy.push((id.clone(), other));
            }
        }
        self.ids.insert(id);
    }
}

/// The machine's busy and total CPU time and this process's, in ticks.
struct CpuTimes {
    busy: u64,
    total: u64,
    own: u64,
}

impl CpuTimes {
    fn now() -> Option<CpuTimes> {
        let stat = std::fs::read_to_string("/proc/stat").ok()?;
        let cpu: Vec<u64> = stat
            .lines()
            .next()?
            .split_whitespace()
            .skip(1)
            .filter_map(|n| n.parse().ok())
            .collect();
        // user nice system idle iowait irq softirq steal
        let idle = cpu.get(3)? + cpu.get(4)?;
        let total: u64 = cpu.iter().take(8).sum();
        let own_stat = std::fs::read_to_string("/proc/self/stat").ok()?;
        let fields: Vec<&str> = own_stat.rsplit_once(')')?.1.split_whitespace().collect();
        // utime and stime: fields 14 and 15 of the line, 12 and 13 after `)`.
        let own = fields.get(11)?.parse::<u64>().ok()? + fields.get(12)?.parse::<u64>().ok()?;
        Some(CpuTimes {
            busy: total - idle,
            total,
            own,
        })
    }

    /// The share of the machine's CPU time (all cores) that other
    /// processes used between `self` and `later`.
    fn other_share(&self, later: &CpuTimes) -> f64 {
        let total = later.total.saturating_sub(self.total).max(1) as f64;
        let other = later
            .busy
            .saturating_sub(self.busy)
            .saturating_sub(later.own.saturating_sub(self.own));
        other as f64 / total
    }
}

/// What a workload times besides hookc.
#[derive(Clone, Copy, PartialEq, Eq)]
enum Timed {
    /// Every peer that can state the policy, in both modes.
    AllPeers,
    /// datalogic-rs with the context pre-converted, and the tree-walking
    /// reference evaluator (`tree-walker/...`): the `random` family.
    DatalogicAndTreeWalker,
}

/// Checks every engine and mode on every case, then times hookc and what
/// `timed` says. `label` is the id part after the engine and mode:
/// `seed/<ctx>` for each case, or `label` itself for one case.
fn bench_workload<M: Measurement + 'static>(
    c: &mut Criterion<M>,
    run: &mut Run,
    w: &Workload,
    label: &dyn Fn(&str) -> String,
    timed: Timed,
) {
    let t = Instant::now();
    let (policy, model) = compile_model(&w.inputs).unwrap();
    let model = match model {
        Ok(m) => m,
        Err(e) => {
            run.notes
                .push(format!("{}: no peer can state it: {e}", w.name));
            return;
        }
    };
    let mut peers = Peers::new(model);
    run.notes.push(format!(
        "{}: hookc and the peers compiled in {:.2?}",
        w.name,
        t.elapsed()
    ));
    let mut ok = Vec::new();
    for engine in Engine::ALL {
        match peers.unsupported(engine) {
            Some(why) => run.notes.push(format!(
                "{}: {} cannot state it: {why}",
                w.name,
                engine.id()
            )),
            None => ok.push(engine),
        }
    }
    // The tree-walker's policy: hookc's own checked IR.
    let ir = (timed == Timed::DatalogicAndTreeWalker).then(|| common::checked(&w.inputs));
    for case in &w.cases {
        let want = policy
            .evaluate(&case.event, &case.context)
            .ok()
            .and_then(|d| d.terminal)
            .map(|m| m.hook.to_owned());
        assert_eq!(want, case.expect, "hookc on `{}`", case.name);
        for &engine in &ok {
            for mode in Mode::ALL {
                let got = peers.answer(engine, mode, &case.event, &case.context);
                assert_eq!(
                    got,
                    Ok(want.clone()),
                    "{} {} on `{}` of {}",
                    engine.id(),
                    mode.id(),
                    case.name,
                    w.name
                );
            }
        }
        if let Some(ir) = &ir {
            let walked = hookc::testing::reference::first_match(ir, &case.event, &case.context)
                .map(|h| h.id.clone());
            assert_eq!(walked, want, "tree-walker on `{}` of {}", case.name, w.name);
        }
    }
    for case in &w.cases {
        let (event, ctx) = (case.event.as_str(), &case.context);
        let found = policy
            .query(event, ctx)
            .decide()
            .unwrap()
            .map(str::to_owned);
        assert_eq!(found, case.expect, "hookc decide on `{}`", case.name);
        let l = label(&case.name);
        run.bench(c, format!("hookc/{l}"), || {
            policy
                .evaluate(black_box(event), black_box(ctx))
                .ok()
                .and_then(|d| d.terminal)
        });
        run.bench(c, format!("hookc-find/{l}"), || {
            policy
                .query(black_box(event), black_box(ctx))
                .decide()
                .unwrap()
        });
        match (timed, &ir) {
            (Timed::AllPeers, _) => {
                for &engine in &ok {
                    bench_peer(c, run, &mut peers, engine, &Mode::ALL, event, ctx, &l);
                }
            }
            (Timed::DatalogicAndTreeWalker, Some(ir)) => {
                if ok.contains(&Engine::JsonLogic) {
                    let modes = [Mode::Preconverted];
                    bench_peer(
                        c,
                        run,
                        &mut peers,
                        Engine::JsonLogic,
                        &modes,
                        event,
                        ctx,
                        &l,
                    );
                }
                run.bench(c, format!("tree-walker/{l}"), || {
                    hookc::testing::reference::first_match(ir, black_box(event), black_box(ctx))
                });
            }
            (Timed::DatalogicAndTreeWalker, None) => {}
        }
    }
}

/// Times one engine in each of `modes`.
#[allow(clippy::too_many_arguments)]
fn bench_peer<M: Measurement + 'static>(
    c: &mut Criterion<M>,
    run: &mut Run,
    peers: &mut Peers,
    engine: Engine,
    modes: &[Mode],
    event: &str,
    ctx: &Value,
    label: &str,
) {
    let id = |mode: Mode| format!("peers/{}/{}/{label}", engine.id(), mode.id());
    let convert = modes.contains(&Mode::Convert);
    let preconverted = modes.contains(&Mode::Preconverted);
    match engine {
        Engine::Cel => {
            let p = peers.cel.as_ref().unwrap();
            if convert {
                run.bench(c, id(Mode::Convert), || {
                    p.first(black_box(event), black_box(ctx))
                });
            }
            if preconverted {
                let prepared = p.prepare(ctx);
                run.bench(c, id(Mode::Preconverted), || {
                    p.first_prepared(black_box(event), black_box(&prepared))
                });
            }
        }
        Engine::JsonLogic => {
            let p = peers.jsonlogic.as_ref().unwrap();
            let mut arena = Bump::new();
            if convert {
                run.bench(c, id(Mode::Convert), || {
                    p.first(black_box(event), black_box(ctx), &mut arena)
                        .unwrap()
                });
            }
            if preconverted {
                let prepared = p.prepare(ctx).unwrap();
                run.bench(c, id(Mode::Preconverted), || {
                    p.first_prepared(black_box(event), black_box(&prepared), &mut arena)
                        .unwrap()
                });
            }
        }
        Engine::RegoInterp => {
            let p = peers.rego.as_mut().unwrap();
            let (first, prepared) = (RegoInterp::first, RegoInterp::first_prepared);
            bench_rego(c, run, p, first, prepared, &id, modes, event, ctx);
        }
        Engine::RegoRvm => {
            let p = peers.rvm.as_mut().unwrap();
            let (first, prepared) = (RegoRvm::first, RegoRvm::first_prepared);
            bench_rego(c, run, p, first, prepared, &id, modes, event, ctx);
        }
    }
}

/// A Rego engine's call, the context converted in it or pre-converted (the
/// interpreter and the RVM have the same two).
type RegoCall<P, C> = fn(&mut P, &str, &C) -> anyhow::Result<Option<usize>>;

/// Times a Rego engine (interpreter or RVM) in each of `modes`.
#[allow(clippy::too_many_arguments)]
fn bench_rego<M: Measurement + 'static, P>(
    c: &mut Criterion<M>,
    run: &mut Run,
    p: &mut P,
    first: RegoCall<P, Value>,
    first_prepared: RegoCall<P, regorus::Value>,
    id: &dyn Fn(Mode) -> String,
    modes: &[Mode],
    event: &str,
    ctx: &Value,
) {
    if modes.contains(&Mode::Convert) {
        run.bench(c, id(Mode::Convert), || {
            first(p, black_box(event), black_box(ctx)).unwrap()
        });
    }
    if modes.contains(&Mode::Preconverted) {
        let prepared = bench_peers::rego::to_value(ctx).unwrap();
        run.bench(c, id(Mode::Preconverted), || {
            first_prepared(p, black_box(event), black_box(&prepared)).unwrap()
        });
    }
}

fn scale_sizes() -> Vec<usize> {
    match std::env::var("PEERS_SCALE") {
        Ok(s) => s.split(',').filter_map(|n| n.trim().parse().ok()).collect(),
        Err(_) => common::SCALE_SIZES.to_vec(),
    }
}

/// A scale family: its id part (`scale/<family><n>/...`), its policy and its
/// contexts, from `benches/common/mod.rs`.
type ScaleFamily = (
    &'static str,
    fn(usize) -> Vec<hookc::compile::Input>,
    fn(usize, common::ScaleCase) -> common::Case,
);

/// The uniform scale set (every hook leads with a string equality) and the
/// mixed one (interleaved discriminating shapes), as `crates/hookc/benches/scale.rs`
/// runs them.
const FAMILIES: [ScaleFamily; 2] = [
    ("", common::scale_inputs, common::scale_case),
    ("mixed/", common::mixed_inputs, common::mixed_case),
];

fn scale<M: Measurement + 'static>(c: &mut Criterion<M>, run: &mut Run) {
    for (family, inputs_of, case_of) in FAMILIES {
        for n in scale_sizes() {
            let cases = [common::ScaleCase::Last, common::ScaleCase::None]
                .into_iter()
                .map(|which| {
                    let k = case_of(n, which);
                    bench_peers::Case {
                        name: which.name().to_owned(),
                        event: k.event,
                        context: k.context,
                        expect: k.expect,
                    }
                })
                .collect();
            let w = Workload {
                name: format!("scale/{family}{n}"),
                inputs: inputs_of(n),
                cases,
            };
            bench_workload(
                c,
                run,
                &w,
                &|ctx| format!("scale/{family}{n}/{ctx}"),
                Timed::AllPeers,
            );
        }
    }
}

/// The `random` family's policies: hooks, and the generator's seeds.
const RANDOM: [(usize, &[u32]); 2] = [(10, &[1, 2, 3, 4, 5]), (1_000, &[1, 2])];

/// Random contexts per policy of the `random` family (besides `none` and
/// `last`).
const RANDOM_CONTEXTS: usize = 2;

/// The `random` family (issue 24, item 2): `common::random_policy::shapes`,
/// random policies of every shape on one event, `n` hooks and a seed each,
/// with the contexts `none`, `last`, `random-0` and `random-1`. Every
/// engine is checked on every context; hookc, datalogic-rs pre-converted
/// and the tree-walking reference are timed.
fn random<M: Measurement + 'static>(c: &mut Criterion<M>, run: &mut Run) {
    for (n, seeds) in RANDOM {
        for &seed in seeds {
            let s = common::random_policy::shapes(n, seed, RANDOM_CONTEXTS);
            let cases = s
                .contexts
                .into_iter()
                .map(|k| bench_peers::Case {
                    name: k.name,
                    event: common::random_policy::SHAPES_EVENT.to_owned(),
                    context: k.context,
                    expect: k.expect,
                })
                .collect();
            let w = Workload {
                name: format!("random/{n}/{seed}"),
                inputs: s.inputs,
                cases,
            };
            bench_workload(
                c,
                run,
                &w,
                &|ctx| format!("random/{n}/{seed}/{ctx}"),
                Timed::DatalogicAndTreeWalker,
            );
        }
    }
}

/// Where criterion writes (as criterion finds it: `CRITERION_HOME`, else
/// `$CARGO_TARGET_DIR/criterion`, else the workspace's `target/criterion`).
fn criterion_dir() -> PathBuf {
    if let Some(home) = std::env::var_os("CRITERION_HOME") {
        return PathBuf::from(home);
    }
    let target = std::env::var_os("CARGO_TARGET_DIR")
        .map(PathBuf::from)
        .unwrap_or_else(|| PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../target"));
    target.join("criterion")
}

/// The `rustc` processes and the load average, to say in the report
/// whether the machine was quiet.
fn machine_state() -> String {
    let load = std::fs::read_to_string("/proc/loadavg").unwrap_or_default();
    let rustc = std::process::Command::new("pgrep")
        .args(["-c", "rustc"])
        .output()
        .map(|o| String::from_utf8_lossy(&o.stdout).trim().to_owned())
        .unwrap_or_else(|_| "?".into());
    format!(
        "load average {}, rustc processes: {rustc}",
        load.split_whitespace()
            .take(3)
            .collect::<Vec<_>>()
            .join(" ")
    )
}

/// The time this thread spends on the CPU (`CLOCK_THREAD_CPUTIME_ID`): on
/// a machine shared with other work it leaves out the time the thread waits
/// for a core, which wall time counts. Single-threaded, CPU-bound routines
/// take the same time either way on a quiet machine.
struct ThreadCpu;

impl Measurement for ThreadCpu {
    type Intermediate = cpu_time::ThreadTime;
    type Value = Duration;

    fn start(&self) -> Self::Intermediate {
        cpu_time::ThreadTime::now()
    }
    fn end(&self, i: Self::Intermediate) -> Self::Value {
        i.elapsed()
    }
    fn add(&self, a: &Self::Value, b: &Self::Value) -> Self::Value {
        *a + *b
    }
    fn zero(&self) -> Self::Value {
        Duration::ZERO
    }
    fn to_f64(&self, v: &Self::Value) -> f64 {
        v.as_nanos() as f64
    }
    fn formatter(&self) -> &dyn ValueFormatter {
        &Nanoseconds
    }
}

/// Formats nanosecond values (criterion's own formatter is private).
struct Nanoseconds;

impl ValueFormatter for Nanoseconds {
    fn scale_values(&self, typical: f64, values: &mut [f64]) -> &'static str {
        let (factor, unit) = if typical < 1e3 {
            (1.0, "ns")
        } else if typical < 1e6 {
            (1e-3, "µs")
        } else if typical < 1e9 {
            (1e-6, "ms")
        } else {
            (1e-9, "s")
        };
        for v in values {
            *v *= factor;
        }
        unit
    }
    fn scale_throughputs(&self, _: f64, _: &Throughput, _: &mut [f64]) -> &'static str {
        "ns"
    }
    fn scale_for_machines(&self, _: &mut [f64]) -> &'static str {
        "ns"
    }
}

/// Sub-microsecond to millisecond routines: short runs, tight enough
/// estimates, the whole target in about ten minutes.
fn config<M: Measurement + 'static>(m: M) -> Criterion<M> {
    Criterion::default()
        .with_measurement(m)
        .warm_up_time(Duration::from_millis(300))
        .measurement_time(Duration::from_millis(900))
        .sample_size(30)
        .configure_from_args()
}

/// Runs every workload; returns what was benchmarked.
fn run_all<M: Measurement + 'static>(c: &mut Criterion<M>, run: &mut Run) {
    let seed = bench_peers::seed().unwrap();
    bench_workload(c, run, &seed, &|ctx| format!("seed/{ctx}"), Timed::AllPeers);
    scale(c, run);
    for name in ["regex_heavy", "template_heavy"] {
        let w = bench_peers::single(name).unwrap();
        bench_workload(c, run, &w, &|_| name.to_owned(), Timed::AllPeers);
    }
    random(c, run);
    c.final_summary();
}

fn main() {
    let mut run = Run {
        filter: std::env::var("PEERS_FILTER")
            .ok()
            .map(|f| regex::Regex::new(&f).unwrap()),
        ..Run::default()
    };
    let wall = std::env::var("PEERS_CLOCK").is_ok_and(|c| c == "wall");
    let start = machine_state();
    let t = Instant::now();
    if wall {
        run_all(&mut config(WallTime), &mut run);
    } else {
        run_all(&mut config(ThreadCpu), &mut run);
    }
    let end = machine_state();

    let all = report::collect(&criterion_dir());
    let medians: report::Medians = all
        .into_iter()
        .filter(|(id, _)| run.ids.contains(id))
        .collect();
    let engines: Vec<&str> = Engine::ALL.iter().map(|e| e.id()).collect();
    let modes: Vec<&str> = Mode::ALL.iter().rev().map(|m| m.id()).collect();
    let mut out = format!(
        "Run of {:.0?}, {} time. Before: {start}. After: {end}.\n\n",
        t.elapsed(),
        if wall { "wall" } else { "thread CPU" }
    );
    for n in &run.notes {
        out.push_str(&format!("- {n}\n"));
    }
    out.push_str(&format!(
        "\nLargest share of the machine's CPU time used by other processes during one benchmark: {:.0}%.\n",
        run.max_other * 100.0
    ));
    if !run.busy.is_empty() {
        out.push_str(&format!(
            "Measured while other processes used over 25% ({}): {}\n",
            run.busy.len(),
            run.busy
                .iter()
                .map(|(id, share)| format!("{id} ({:.0}%)", share * 100.0))
                .collect::<Vec<_>>()
                .join(" ")
        ));
        out.push_str(&format!(
            "Re-run them: PEERS_FILTER='^({})$' cargo bench\n",
            run.busy
                .iter()
                .map(|(id, _)| regex::escape(id))
                .collect::<Vec<_>>()
                .join("|")
        ));
    }
    out.push('\n');
    out.push_str(&report::tables(&medians, &engines, &modes));
    out.push_str(&report::summary(&medians, &engines, &modes));
    out.push_str(&report::random_table(&medians));
    println!("\n{out}");
    let path = criterion_dir().join("peers-report.md");
    if std::fs::write(&path, &out).is_ok() {
        println!("written to {}", path.display());
    }
}

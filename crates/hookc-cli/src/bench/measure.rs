//! Benchmarking a policy on your own contexts (`hookc bench`).
//!
//! This module is a user tool, not hookc's own performance suite (that is
//! `benches/`, with criterion). It answers "how long does *my* policy take on
//! *my* events?": for each [`BenchCase`] (a name, an event and a context) it
//! reports the nanoseconds per evaluation (median and p99) and the
//! evaluations per second, with the hook that matched.
//!
//! # Method
//!
//! One evaluation takes tens to hundreds of nanoseconds, too short to time
//! alone, so evaluations are timed in **batches**, with [`std::time::Instant`]:
//!
//! 1. **Match**: the case is evaluated once, untimed, to record which hook
//!    matched (and to reject a context the policy cannot read).
//! 2. **Calibration**: the batch size starts at 1 and doubles until one batch
//!    takes at least [`Settings::min_batch`] (50 µs by default), so that the
//!    timer's own cost (tens of ns) is below 0.1% of a measurement. It never
//!    exceeds [`MAX_BATCH`].
//! 3. **Warm-up**: batches of that size run until [`Settings::warmup`] has
//!    passed since the case started (caches, branch predictors, the
//!    allocator). Calibration counts as warm-up.
//! 4. **Sampling**: batches run for [`Settings::time_per_case`] (at least
//!    [`MIN_SAMPLES`] of them, at most [`MAX_SAMPLES`]); each gives one sample,
//!    batch time / batch size, in ns per evaluation.
//!
//! The **median** and **p99** are taken over those samples (linear
//! interpolation between the closest ranks, as numpy's default). They are
//! percentiles of *batch averages*: the p99 shows jitter between batches
//! (interrupts, cache evictions, the other cores' work), not the tail of single
//! evaluations, which cannot be timed individually. **Evaluations per second**
//! are 1e9 / the mean (total sampled time / evaluations sampled). Every call's
//! inputs and result go through [`std::hint::black_box`], and a matched
//! action's map is built and dropped inside the timed region, as a caller
//! would.
//!
//! # Modes
//!
//! [`ContextForm::Json`] (the default of `hookc bench`) times
//! [`Policy::query`] on the context's JSON text: what a runtime in
//! another language does, and what the CLI does; the time includes the
//! one-pass extraction of the paths the policy reads. [`ContextForm::Value`] times
//! the same query on a parsed `serde_json::Value`: an application in
//! Rust that already has its context as a `Value`; parsing is not included.

use crate::error::{BenchError, ContextFileError};
use hookc_runtime::{Context, Match, Policy};
use indicatif::{ProgressBar, ProgressDrawTarget, ProgressStyle};
use serde_json::{json, Value};
use std::fmt::Write as _;
use std::hint::black_box;
use std::time::{Duration, Instant};

/// The largest batch calibration will choose (about 16 million evaluations).
pub const MAX_BATCH: u64 = 1 << 24;
/// The fewest samples a case gets, even when its time budget is used up.
pub const MIN_SAMPLES: usize = 10;
/// The most samples a case keeps (8 MB of samples); sampling stops there.
pub const MAX_SAMPLES: usize = 1_000_000;
/// The most warm-up batches, so that warm-up ends even on a clock that does
/// not advance.
const MAX_WARMUP_BATCHES: u64 = 1_000_000;
/// How often, at most, the progress reporter hears from a running case.
const PROGRESS_EVERY: Duration = Duration::from_millis(25);

/// The form in which contexts are handed to the policy (`--mode`; the
/// variants' docs are its help text).
#[derive(Debug, Clone, Copy, PartialEq, Eq, clap::ValueEnum)]
pub enum ContextForm {
    /// A query on the context's JSON text (what other languages and the CLI
    /// do; extraction included).
    Json,
    /// A query on a parsed `serde_json::Value` (embedding in Rust; parsing
    /// not included).
    Value,
}

impl ContextForm {
    /// `"json"` or `"value"`.
    pub fn name(self) -> &'static str {
        match self {
            ContextForm::Json => "json",
            ContextForm::Value => "value",
        }
    }

    /// The runtime call this mode times.
    pub fn call(self) -> &'static str {
        match self {
            ContextForm::Json => "Policy::query(event, Context::json(text)).decision()",
            ContextForm::Value => "Policy::query(event, &value).decision()",
        }
    }
}

/// One thing to benchmark: an event and its context, under a name.
#[derive(Debug, Clone, PartialEq)]
pub struct BenchCase {
    /// Shown in the report (a file name, `line 3`, ...).
    pub name: String,
    /// The event.
    pub event: String,
    /// The context as JSON text ([`ContextForm::Json`]).
    pub text: Vec<u8>,
    /// The same context parsed ([`ContextForm::Value`]).
    pub value: Value,
}

impl BenchCase {
    /// The context in the given form.
    pub fn context(&self, form: ContextForm) -> Context<'_> {
        match form {
            ContextForm::Json => Context::json(&self.text),
            ContextForm::Value => Context::Value(&self.value),
        }
    }

    /// A case whose JSON text is the compact serialization of `value` (for
    /// contexts that only exist parsed, like a line of an event log).
    pub fn from_value(
        name: impl Into<String>,
        event: impl Into<String>,
        value: Value,
    ) -> BenchCase {
        BenchCase {
            name: name.into(),
            event: event.into(),
            text: value.to_string().into_bytes(),
            value,
        }
    }

    /// A case from one file of `--contexts`: an event record
    /// `{"event": E, "context": {...}}`, which may also have the `expect`
    /// key of hookc's bench data (the hook that should win; not checked
    /// here, since hook ids depend on the path the policy was named by), or
    /// a bare context, whose event is `event` (`--event`). With `event`
    /// given, an object that is not quite a record is a bare context.
    pub fn from_context_file(
        name: impl Into<String>,
        text: Vec<u8>,
        event: Option<&str>,
    ) -> Result<BenchCase, ContextFileError> {
        let value: Value = serde_json::from_slice(&text).map_err(ContextFileError::Json)?;
        let object = value.as_object();
        let record = object.and_then(|o| Some((o.get("event")?, o.get("context")?)));
        match (record, event) {
            (Some((Value::String(e), context)), _) => {
                let extra: Vec<String> = object
                    .into_iter()
                    .flat_map(|o| o.keys())
                    .filter(|k| !RECORD_KEYS.contains(&k.as_str()))
                    .map(|k| format!("`{k}`"))
                    .collect();
                if extra.is_empty() {
                    return Ok(BenchCase::from_value(name, e.clone(), context.clone()));
                }
                if event.is_none() {
                    return Err(ContextFileError::ExtraKeys(extra.join(", ")));
                }
            }
            (Some((e, _)), None) => return Err(ContextFileError::EventNotString(kind_of(e))),
            (None, None) => {
                let why = match object {
                    None => format!("it is {}, not an object", kind_of(&value)),
                    Some(o) if o.contains_key("context") => "it has no `event`".to_owned(),
                    Some(o) if o.contains_key("event") => "it has no `context`".to_owned(),
                    Some(_) => "it has neither `event` nor `context`".to_owned(),
                };
                return Err(ContextFileError::Bare(why));
            }
            (_, Some(_)) => {}
        }
        Ok(BenchCase {
            name: name.into(),
            event: event.unwrap_or_default().to_owned(),
            text,
            value,
        })
    }
}

/// The keys an event record of `--contexts` may have.
const RECORD_KEYS: [&str; 3] = ["event", "context", "expect"];

/// A JSON value's kind, with its article, for messages.
fn kind_of(value: &Value) -> &'static str {
    match value {
        Value::Null => "null",
        Value::Bool(_) => "a bool",
        Value::Number(_) => "a number",
        Value::String(_) => "a string",
        Value::Array(_) => "an array",
        Value::Object(_) => "an object",
    }
}

/// How to measure.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Settings {
    /// Which runtime call is timed.
    pub mode: ContextForm,
    /// How long each case is sampled, after its warm-up.
    pub time_per_case: Duration,
    /// How long each case runs before sampling starts (calibration included).
    pub warmup: Duration,
    /// The shortest batch: calibration grows batches until one takes this long.
    pub min_batch: Duration,
}

impl Settings {
    /// The default settings for a time budget per case: a warm-up of a tenth
    /// of it (at least 1 ms, at most 100 ms) and batches of at least 50 µs.
    pub fn new(mode: ContextForm, time_per_case: Duration) -> Settings {
        Settings {
            mode,
            time_per_case,
            warmup: (time_per_case / 10)
                .clamp(Duration::from_millis(1), Duration::from_millis(100)),
            min_batch: Duration::from_micros(50),
        }
    }

    /// The planned time of one case: warm-up plus sampling (a little more in
    /// practice: calibration can outlast the warm-up and the last batch the
    /// budget).
    pub fn planned_per_case(&self) -> Duration {
        self.warmup.saturating_add(self.time_per_case)
    }
}

/// The measurements of one case.
#[derive(Debug, Clone, PartialEq)]
pub struct BenchResult {
    /// The case's name.
    pub name: String,
    /// The case's event.
    pub event: String,
    /// The id of the hook that matched, if any.
    pub matched: Option<String>,
    /// The type of the matched hook's action, if any.
    pub action: Option<String>,
    /// Evaluations per timed batch, as calibrated.
    pub batch_size: u64,
    /// The number of samples (timed batches).
    pub batches: usize,
    /// Evaluations timed (warm-up and calibration not counted).
    pub evaluations: u64,
    /// Time spent in timed batches, in ns.
    pub sampled_ns: u64,
    /// Median of the samples, in ns per evaluation.
    pub median_ns: f64,
    /// 99th percentile of the samples, in ns per evaluation.
    pub p99_ns: f64,
    /// Sampled time / evaluations, in ns per evaluation.
    pub mean_ns: f64,
}

impl BenchResult {
    /// Evaluations per second: 1e9 / the mean (0 when nothing was measured).
    pub fn evals_per_sec(&self) -> f64 {
        per_second(self.mean_ns)
    }
}

/// The result of a run: every case in the order given.
#[derive(Debug, Clone, PartialEq)]
pub struct BenchReport {
    /// How it was measured.
    pub settings: Settings,
    /// One result per case.
    pub cases: Vec<BenchResult>,
}

/// Hears about a run's progress (for a progress bar). Every method has a
/// do-nothing default.
pub trait Progress {
    /// The run starts: `cases` cases, planned to take `planned` in all.
    fn begin(&mut self, cases: usize, planned: Duration) {
        let _ = (cases, planned);
    }
    /// Case `index` (from 0) starts.
    fn case(&mut self, index: usize, name: &str) {
        let _ = (index, name);
    }
    /// The current case has run for `elapsed` (called at most every 25 ms).
    fn advance(&mut self, elapsed: Duration) {
        let _ = elapsed;
    }
    /// The run is over.
    fn end(&mut self) {}
}

/// An `indicatif` progress bar on standard error, for runs planned to take a
/// second or more. It is drawn only when standard error is a terminal (and
/// `TERM` is not `dumb`), and cleared at the end, so piped or redirected
/// output never holds it.
#[derive(Debug)]
pub struct TerminalProgress {
    bar: ProgressBar,
    cases: usize,
    index: usize,
    per_case: Duration,
}

impl TerminalProgress {
    /// A bar that appears on [`Progress::begin`] if the run is long enough.
    pub fn new() -> TerminalProgress {
        TerminalProgress {
            bar: ProgressBar::hidden(),
            cases: 0,
            index: 0,
            per_case: Duration::ZERO,
        }
    }

    fn set(&self, elapsed_in_case: Duration) {
        let done = self
            .per_case
            .saturating_mul(u32::try_from(self.index).unwrap_or(u32::MAX))
            .saturating_add(elapsed_in_case.min(self.per_case));
        self.bar
            .set_position(u64::try_from(done.as_millis()).unwrap_or(u64::MAX));
    }
}

impl Default for TerminalProgress {
    fn default() -> TerminalProgress {
        TerminalProgress::new()
    }
}

impl Progress for TerminalProgress {
    fn begin(&mut self, cases: usize, planned: Duration) {
        self.cases = cases;
        self.per_case = planned / u32::try_from(cases.max(1)).unwrap_or(u32::MAX);
        if planned < Duration::from_secs(1) {
            return;
        }
        // `stderr()` is itself hidden when standard error is not a terminal.
        let bar = ProgressBar::with_draw_target(
            Some(u64::try_from(planned.as_millis()).unwrap_or(u64::MAX)),
            ProgressDrawTarget::stderr(),
        );
        if let Ok(style) =
            ProgressStyle::with_template("bench [{bar:30}] {elapsed}/~{duration} {wide_msg}")
        {
            bar.set_style(style.progress_chars("=> "));
        }
        self.bar = bar;
    }

    fn case(&mut self, index: usize, name: &str) {
        self.index = index;
        self.bar
            .set_message(format!("case {}/{}: {name}", index + 1, self.cases));
        self.set(Duration::ZERO);
    }

    fn advance(&mut self, elapsed: Duration) {
        self.set(elapsed);
    }

    fn end(&mut self) {
        self.bar.finish_and_clear();
    }
}

/// Benchmarks every case, in order.
///
/// Errors before any timing if there are no cases or, in [`ContextForm::Json`], if
/// a case's text is not JSON the policy can read.
pub fn run(
    policy: &Policy,
    cases: &[BenchCase],
    settings: &Settings,
    progress: &mut dyn Progress,
) -> Result<BenchReport, BenchError> {
    if cases.is_empty() {
        return Err(BenchError::NoCases);
    }
    // Check every case before timing any, so that a bad one fails fast.
    let mut matches = Vec::with_capacity(cases.len());
    for case in cases {
        let decision = policy
            .query(&case.event, case.context(settings.mode))
            .decision()
            .map_err(|source| BenchError::Eval {
                case: case.name.clone(),
                source,
            })?;
        let m = decision.terminal;
        matches.push((
            m.as_ref().map(|m| m.hook.to_owned()),
            m.as_ref().map(|m| Match::action_type(m).to_owned()),
        ));
    }
    let planned = settings
        .planned_per_case()
        .saturating_mul(u32::try_from(cases.len()).unwrap_or(u32::MAX));
    progress.begin(cases.len(), planned);
    let mut results = Vec::with_capacity(cases.len());
    for (index, (case, (matched, action))) in cases.iter().zip(matches).enumerate() {
        progress.case(index, &case.name);
        let mut clock = RealClock(Instant::now());
        let mut tick = |ns: u64| progress.advance(Duration::from_nanos(ns));
        let (event, context) = (case.event.as_str(), case.context(settings.mode));
        let samples = measure(
            &mut clock,
            &mut |n| {
                for _ in 0..n {
                    let _ = black_box(
                        policy
                            .query(black_box(event), black_box(context))
                            .decision(),
                    );
                }
            },
            settings,
            &mut tick,
        );
        results.push(samples.into_result(case, matched, action));
    }
    progress.end();
    Ok(BenchReport {
        settings: *settings,
        cases: results,
    })
}

/// A monotonic clock in ns (a trait so that tests can use a fake one).
trait Clock {
    fn now_ns(&mut self) -> u64;
}

/// [`Instant`], as ns since the case started.
struct RealClock(Instant);

impl Clock for RealClock {
    fn now_ns(&mut self) -> u64 {
        u64::try_from(self.0.elapsed().as_nanos()).unwrap_or(u64::MAX)
    }
}

/// What [`measure`] collected for one case.
#[derive(Debug)]
struct Samples {
    batch_size: u64,
    /// ns per evaluation, one per timed batch.
    per_eval_ns: Vec<f64>,
    evaluations: u64,
    sampled_ns: u64,
}

impl Samples {
    fn into_result(
        mut self,
        case: &BenchCase,
        matched: Option<String>,
        action: Option<String>,
    ) -> BenchResult {
        self.per_eval_ns.sort_by(f64::total_cmp);
        let mean_ns = if self.evaluations == 0 {
            0.0
        } else {
            self.sampled_ns as f64 / self.evaluations as f64
        };
        BenchResult {
            name: case.name.clone(),
            event: case.event.clone(),
            matched,
            action,
            batch_size: self.batch_size,
            batches: self.per_eval_ns.len(),
            evaluations: self.evaluations,
            sampled_ns: self.sampled_ns,
            median_ns: percentile(&self.per_eval_ns, 0.5),
            p99_ns: percentile(&self.per_eval_ns, 0.99),
            mean_ns,
        }
    }
}

/// Calibrates, warms up and samples `run(n)` (which does `n` evaluations);
/// `tick` hears the time since the start, at most every 25 ms.
fn measure(
    clock: &mut impl Clock,
    run: &mut impl FnMut(u64),
    settings: &Settings,
    tick: &mut impl FnMut(u64),
) -> Samples {
    let as_ns = |d: Duration| u64::try_from(d.as_nanos()).unwrap_or(u64::MAX);
    let (min_batch, warmup, budget) = (
        as_ns(settings.min_batch),
        as_ns(settings.warmup),
        as_ns(settings.time_per_case),
    );
    let every = as_ns(PROGRESS_EVERY);
    let start = clock.now_ns();
    let mut last_tick = start;
    let mut tick_if_due = |now: u64| {
        if now.saturating_sub(last_tick) >= every {
            last_tick = now;
            tick(now.saturating_sub(start));
        }
    };
    // Calibration, then warm-up at the calibrated size.
    let mut batch: u64 = 1;
    let mut calibrated = false;
    for _ in 0..MAX_WARMUP_BATCHES {
        let t0 = clock.now_ns();
        run(batch);
        let t1 = clock.now_ns();
        if !calibrated {
            if t1.saturating_sub(t0) >= min_batch || batch >= MAX_BATCH {
                calibrated = true;
            } else {
                batch = batch.saturating_mul(2).min(MAX_BATCH);
            }
        }
        if calibrated && t1.saturating_sub(start) >= warmup {
            break;
        }
        tick_if_due(t1);
    }
    // Sampling.
    let mut per_eval_ns = Vec::new();
    let (mut evaluations, mut sampled_ns) = (0u64, 0u64);
    let sampling_start = clock.now_ns();
    loop {
        let t0 = clock.now_ns();
        run(batch);
        let t1 = clock.now_ns();
        let dt = t1.saturating_sub(t0);
        per_eval_ns.push(dt as f64 / batch as f64);
        evaluations = evaluations.saturating_add(batch);
        sampled_ns = sampled_ns.saturating_add(dt);
        let done = t1.saturating_sub(sampling_start) >= budget && per_eval_ns.len() >= MIN_SAMPLES;
        if done || per_eval_ns.len() >= MAX_SAMPLES {
            break;
        }
        tick_if_due(t1);
    }
    Samples {
        batch_size: batch,
        per_eval_ns,
        evaluations,
        sampled_ns,
    }
}

/// The `q` quantile (0 to 1) of sorted samples, interpolating linearly
/// between the closest ranks (numpy's default); 0 for no samples.
pub fn percentile(sorted: &[f64], q: f64) -> f64 {
    let Some(last) = sorted.len().checked_sub(1) else {
        return 0.0;
    };
    let rank = q.clamp(0.0, 1.0) * last as f64;
    let lo = rank.floor() as usize;
    let hi = (rank.ceil() as usize).min(last);
    let (a, b) = (
        sorted.get(lo).copied().unwrap_or(0.0),
        sorted.get(hi).copied().unwrap_or(0.0),
    );
    a + (b - a) * (rank - lo as f64)
}

fn per_second(mean_ns: f64) -> f64 {
    if mean_ns > 0.0 {
        1e9 / mean_ns
    } else {
        0.0
    }
}

/// Rounds to one decimal, for stable JSON.
fn tenth(x: f64) -> f64 {
    (x * 10.0).round() / 10.0
}

impl BenchReport {
    /// Evaluations timed in all cases.
    pub fn total_evaluations(&self) -> u64 {
        self.cases.iter().map(|c| c.evaluations).sum()
    }

    /// Time spent in timed batches in all cases, in ns.
    pub fn total_sampled_ns(&self) -> u64 {
        self.cases.iter().map(|c| c.sampled_ns).sum()
    }

    /// The mean of the cases' means, in ns: the cost of one evaluation in a
    /// workload where every case is equally frequent.
    pub fn mean_ns(&self) -> f64 {
        if self.cases.is_empty() {
            return 0.0;
        }
        self.cases.iter().map(|c| c.mean_ns).sum::<f64>() / self.cases.len() as f64
    }

    /// Evaluations per second of that workload: 1e9 / [`BenchReport::mean_ns`].
    pub fn evals_per_sec(&self) -> f64 {
        per_second(self.mean_ns())
    }

    /// The report as one JSON document: `parameters`, `machine`, `cases` and
    /// `totals` (ns rounded to 0.1, evaluations per second to integers).
    pub fn to_json(&self) -> Value {
        let s = &self.settings;
        let cases: Vec<Value> = self
            .cases
            .iter()
            .map(|c| {
                json!({
                    "name": c.name,
                    "event": c.event,
                    "matched": c.matched,
                    "action": c.action,
                    "median_ns": tenth(c.median_ns),
                    "p99_ns": tenth(c.p99_ns),
                    "mean_ns": tenth(c.mean_ns),
                    "evals_per_sec": c.evals_per_sec().round() as u64,
                    "batch_size": c.batch_size,
                    "batches": c.batches,
                    "evaluations": c.evaluations,
                })
            })
            .collect();
        json!({
            "hookc_version": env!("CARGO_PKG_VERSION"),
            "parameters": {
                "mode": s.mode.name(),
                "call": s.mode.call(),
                "time_per_case_s": s.time_per_case.as_secs_f64(),
                "warmup_s": s.warmup.as_secs_f64(),
                "min_batch_ns": u64::try_from(s.min_batch.as_nanos()).unwrap_or(u64::MAX),
            },
            "machine": machine(),
            "cases": cases,
            "totals": {
                "cases": self.cases.len(),
                "evaluations": self.total_evaluations(),
                "sampled_s": self.total_sampled_ns() as f64 / 1e9,
                "mean_ns": tenth(self.mean_ns()),
                "evals_per_sec": self.evals_per_sec().round() as u64,
            },
        })
    }

    /// The report as a table, one row per case, then the totals.
    pub fn to_table(&self) -> String {
        let header = [
            "case",
            "event",
            "matched hook",
            "median ns",
            "p99 ns",
            "evals/s",
        ];
        let rows: Vec<[String; 6]> = self
            .cases
            .iter()
            .map(|c| {
                [
                    c.name.clone(),
                    c.event.clone(),
                    c.matched.clone().unwrap_or_else(|| "(no match)".to_owned()),
                    format!("{:.1}", c.median_ns),
                    format!("{:.1}", c.p99_ns),
                    thousands(c.evals_per_sec()),
                ]
            })
            .collect();
        let mut width = header.map(str::len);
        for row in &rows {
            for (w, cell) in width.iter_mut().zip(row) {
                *w = (*w).max(cell.chars().count());
            }
        }
        let mut out = String::new();
        let mut line = |cells: [&str; 6]| {
            let mut l = String::new();
            for (i, (cell, w)) in cells.iter().zip(width).enumerate() {
                let pad = w.saturating_sub(cell.chars().count());
                if i > 0 {
                    l.push_str("  ");
                }
                if i < 3 {
                    l.push_str(cell);
                    l.extend(std::iter::repeat_n(' ', pad));
                } else {
                    l.extend(std::iter::repeat_n(' ', pad));
                    l.push_str(cell);
                }
            }
            out.push_str(l.trim_end());
            out.push('\n');
        };
        line(header);
        for row in &rows {
            line([
                row[0].as_str(),
                row[1].as_str(),
                row[2].as_str(),
                row[3].as_str(),
                row[4].as_str(),
                row[5].as_str(),
            ]);
        }
        let s = &self.settings;
        let plural = if self.cases.len() == 1 { "" } else { "s" };
        let _ = writeln!(
            out,
            "\n{} case{plural}, mode {} ({}), {} s per case: {} evaluations timed",
            self.cases.len(),
            s.mode.name(),
            s.mode.call(),
            s.time_per_case.as_secs_f64(),
            thousands(self.total_evaluations() as f64),
        );
        let _ = writeln!(
            out,
            "every case equally often: {:.1} ns per evaluation, {} evals/s",
            self.mean_ns(),
            thousands(self.evals_per_sec()),
        );
        out
    }
}

/// What the JSON report says about the machine: cheap facts only.
fn machine() -> Value {
    json!({
        "available_parallelism": std::thread::available_parallelism().map(|n| n.get()).ok(),
        "os": std::env::consts::OS,
        "arch": std::env::consts::ARCH,
        "optimized": !cfg!(debug_assertions),
    })
}

/// Whether this build is optimized (a debug build's numbers mean little).
pub fn optimized_build() -> bool {
    !cfg!(debug_assertions)
}

/// A rounded number with `,` between thousands: `1,234,567`.
fn thousands(x: f64) -> String {
    // Saturating: a negative or huge rate prints as 0 or u64::MAX.
    hookc::diag::thousands(x.max(0.0).round() as u64)
}

#[cfg(test)]
mod tests;

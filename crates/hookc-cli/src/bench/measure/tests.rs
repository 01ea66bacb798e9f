//! Unit tests of `bench/measure.rs`: reading context files and event records, and the measurement.

use super::*;

/// A [`Progress`] that reports nothing.
struct NoProgress;

impl Progress for NoProgress {}
use std::cell::Cell;

fn context_file(text: &str, event: Option<&str>) -> Result<BenchCase, ContextFileError> {
    BenchCase::from_context_file("f.json", text.as_bytes().to_vec(), event)
}

#[test]
fn a_record_may_have_an_expect_key_and_keeps_its_event() {
    for text in [
        r#"{"event": "error", "context": {"a": 1}}"#,
        r#"{"event": "error", "expect": null, "context": {"a": 1}}"#,
        r#"{"event": "error", "expect": "h", "context": {"a": 1}}"#,
    ] {
        for given in [None, Some("limit")] {
            let case = context_file(text, given).unwrap();
            assert_eq!(
                (case.event.as_str(), &case.value),
                ("error", &json!({"a": 1}))
            );
            assert_eq!(case.text, br#"{"a":1}"#);
        }
    }
}

#[test]
fn a_context_file_that_is_wrong_names_its_problem() {
    let err = |text: &str| context_file(text, None).unwrap_err().to_string();
    assert!(err("{").starts_with("is not valid JSON: "));
    assert_eq!(
            err(r#"{"event": "error", "context": {}, "expected": "h", "x": 1}"#),
            "is an event record with other keys than `event`, `context` and `expect`: \
             `expected`, `x`; remove them, or give --event to read the whole file as a bare context"
        );
    assert_eq!(
        err(r#"{"event": {"type": "error"}, "context": {}}"#),
        "is an event record whose `event` is an object, not a string (the event's name)"
    );
    let bare = |why: &str| {
        format!(
                "is a bare context, not an event record {{\"event\": E, \"context\": {{...}}}} ({why}): give its event with --event"
            )
    };
    assert_eq!(err(r#"{"context": {}}"#), bare("it has no `event`"));
    assert_eq!(err(r#"{"event": "e"}"#), bare("it has no `context`"));
    assert_eq!(
        err(r#"{"a": 1}"#),
        bare("it has neither `event` nor `context`")
    );
    assert_eq!(err("[1]"), bare("it is an array, not an object"));
}

#[test]
fn with_an_event_given_anything_but_a_record_is_a_bare_context() {
    for text in [
        r#"{"a": 1}"#,
        r#"{"event": {"type": "error"}, "context": 1}"#,
        r#"{"event": "x", "context": 1, "other": 2}"#,
    ] {
        let case = context_file(text, Some("limit")).unwrap();
        assert_eq!(case.event, "limit");
        assert_eq!(case.text, text.as_bytes());
        assert_eq!(case.value, serde_json::from_str::<Value>(text).unwrap());
    }
}

#[test]
fn percentiles_of_known_samples() {
    let hundred: Vec<f64> = (1..=100).map(f64::from).collect();
    assert_eq!(percentile(&hundred, 0.5), 50.5);
    assert!((percentile(&hundred, 0.99) - 99.01).abs() < 1e-9);
    assert_eq!(percentile(&hundred, 0.0), 1.0);
    assert_eq!(percentile(&hundred, 1.0), 100.0);
    assert_eq!(percentile(&[1.0, 2.0, 3.0], 0.5), 2.0);
    assert_eq!(percentile(&[1.0, 2.0, 3.0, 4.0], 0.5), 2.5);
    assert_eq!(percentile(&[7.0], 0.99), 7.0);
    assert_eq!(percentile(&[], 0.5), 0.0);
    // One outlier in a hundred moves the p99 but not the median.
    let mut spiky = vec![10.0; 99];
    spiky.push(1000.0);
    assert_eq!(percentile(&spiky, 0.5), 10.0);
    assert!(percentile(&spiky, 0.99) > 10.0);
}

#[test]
fn thousands_separators() {
    assert_eq!(thousands(0.0), "0");
    assert_eq!(thousands(999.4), "999");
    assert_eq!(thousands(1000.0), "1,000");
    assert_eq!(thousands(12_345_678.0), "12,345,678");
}

/// A fake clock: `now` advances only when the measured code "runs".
struct Fake<'a>(&'a Cell<u64>);

impl Clock for Fake<'_> {
    fn now_ns(&mut self) -> u64 {
        self.0.get()
    }
}

fn settings(time_per_case: Duration) -> Settings {
    Settings::new(ContextForm::Json, time_per_case)
}

/// Measures code whose evaluations cost `cost(i)` ns each (`i` counts
/// evaluations); returns the samples and the ticks.
fn fake_measure(s: &Settings, cost: impl Fn(u64) -> u64) -> (Samples, Vec<u64>) {
    let now = Cell::new(0u64);
    let mut done = 0u64;
    let mut ticks = Vec::new();
    let samples = measure(
        &mut Fake(&now),
        &mut |n| {
            for _ in 0..n {
                now.set(now.get() + cost(done));
                done += 1;
            }
        },
        s,
        &mut |t| ticks.push(t),
    );
    (samples, ticks)
}

#[test]
fn calibration_picks_the_first_doubling_over_the_minimum_batch() {
    // 20 ns per evaluation: 50 µs needs 2,500, so 4,096.
    let s = settings(Duration::from_millis(10));
    let (samples, _) = fake_measure(&s, |_| 20);
    assert_eq!(samples.batch_size, 4096);
    assert!(samples.per_eval_ns.iter().all(|&x| x == 20.0));
    // Sampling stops at the first batch past the budget.
    let budget = 10_000_000;
    assert!(samples.sampled_ns >= budget);
    assert!(samples.sampled_ns < budget + 4096 * 20);
    assert_eq!(samples.evaluations, samples.per_eval_ns.len() as u64 * 4096);
    let r = samples.into_result(&BenchCase::from_value("c", "e", json!({})), None, None);
    assert_eq!((r.median_ns, r.p99_ns, r.mean_ns), (20.0, 20.0, 20.0));
    assert_eq!(r.evals_per_sec(), 5e7);
}

#[test]
fn slow_evaluations_get_batches_of_one_and_at_least_min_samples() {
    // 10 ms per evaluation, a 1 ms budget: still MIN_SAMPLES samples.
    let s = settings(Duration::from_millis(1));
    let (samples, ticks) = fake_measure(&s, |_| 10_000_000);
    assert_eq!(samples.batch_size, 1);
    assert_eq!(samples.per_eval_ns.len(), MIN_SAMPLES);
    // Progress heard from the case, with growing times.
    assert!(!ticks.is_empty());
    assert!(ticks.windows(2).all(|w| w[0] < w[1]));
}

#[test]
fn a_clock_that_does_not_advance_still_ends() {
    let s = Settings {
        min_batch: Duration::from_nanos(1),
        ..settings(Duration::from_millis(1))
    };
    // Free evaluations: calibration stops at MAX_BATCH... which would
    // be slow to run for real, so cap the fake work instead.
    let now = Cell::new(0u64);
    let mut batches = 0u64;
    let samples = measure(&mut Fake(&now), &mut |_| batches += 1, &s, &mut |_| {});
    assert_eq!(samples.batch_size, MAX_BATCH);
    assert_eq!(samples.per_eval_ns.len(), MAX_SAMPLES);
    assert!(batches <= MAX_WARMUP_BATCHES + MAX_SAMPLES as u64);
}

#[test]
fn the_median_ignores_a_slow_batch_and_the_p99_sees_it() {
    // One evaluation in 3,200 costs 100x: one batch of 64 in 50 is slower.
    let s = Settings {
        min_batch: Duration::from_nanos(640),
        ..settings(Duration::from_millis(2))
    };
    let (samples, _) = fake_measure(&s, |i| if i % 3200 == 1600 { 1000 } else { 10 });
    let r = samples.into_result(&BenchCase::from_value("c", "e", json!({})), None, None);
    assert_eq!(r.median_ns, 10.0);
    assert!(r.p99_ns > 10.0, "{r:?}");
    assert!(r.mean_ns > 10.0);
}

#[test]
fn warmup_defaults_scale_with_the_budget() {
    let w = |ms| settings(Duration::from_millis(ms)).warmup;
    assert_eq!(w(1000), Duration::from_millis(100));
    assert_eq!(w(50), Duration::from_millis(5));
    assert_eq!(w(5), Duration::from_millis(1));
    assert_eq!(w(60_000), Duration::from_millis(100));
}

fn seed_policy() -> Policy {
    let src = r#"
hooks:
  - id: rl
    event: error
    when: "classification.category == 'rate_limited'"
    action: {type: retry, max_attempts: 5}
"#;
    hookc::compile::policy_from_sources(&[hookc::compile::Input::new("p.yaml", src)]).unwrap()
}

#[test]
fn run_reports_every_case_in_order_with_its_match() {
    let policy = seed_policy();
    let cases = [
        BenchCase::from_value(
            "hit",
            "error",
            json!({"classification": {"category": "rate_limited"}}),
        ),
        BenchCase::from_value("miss", "error", json!({})),
        BenchCase::from_value("other event", "limit", json!({})),
    ];
    for mode in [ContextForm::Json, ContextForm::Value] {
        let s = Settings::new(mode, Duration::from_millis(2));
        let report = run(&policy, &cases, &s, &mut NoProgress).unwrap();
        let names: Vec<_> = report.cases.iter().map(|c| c.name.as_str()).collect();
        assert_eq!(names, ["hit", "miss", "other event"]);
        assert_eq!(report.cases[0].matched.as_deref(), Some("rl"));
        assert_eq!(report.cases[0].action.as_deref(), Some("retry"));
        assert_eq!(report.cases[1].matched, None);
        for c in &report.cases {
            assert!(c.median_ns > 0.0 && c.p99_ns >= c.median_ns);
            assert!(c.evaluations > 0 && c.batches >= MIN_SAMPLES);
        }
        let j = report.to_json();
        assert_eq!(j["parameters"]["mode"], mode.name());
        assert_eq!(j["cases"].as_array().unwrap().len(), 3);
        assert_eq!(j["totals"]["cases"], 3);
        let table = report.to_table();
        assert_eq!(
            table.lines().next().unwrap().split_whitespace().next(),
            Some("case")
        );
        assert!(table.contains("(no match)"), "{table}");
    }
}

#[test]
fn run_rejects_no_cases_and_bad_text() {
    let policy = seed_policy();
    let s = Settings::new(ContextForm::Json, Duration::from_millis(1));
    assert!(matches!(
        run(&policy, &[], &s, &mut NoProgress),
        Err(BenchError::NoCases)
    ));
    let bad = BenchCase {
        text: b"{\"classification\": ".to_vec(),
        ..BenchCase::from_value("bad", "error", json!({}))
    };
    let e = run(&policy, &[bad], &s, &mut NoProgress).unwrap_err();
    assert!(e.to_string().starts_with("case `bad`: "), "{e}");
}

#[test]
fn progress_hears_every_case() {
    #[derive(Default)]
    struct Log(Vec<String>);
    impl Progress for Log {
        fn begin(&mut self, cases: usize, planned: Duration) {
            self.0
                .push(format!("begin {cases} {}", planned.as_millis()));
        }
        fn case(&mut self, index: usize, name: &str) {
            self.0.push(format!("case {index} {name}"));
        }
        fn end(&mut self) {
            self.0.push("end".into());
        }
    }
    let policy = seed_policy();
    let cases = [
        BenchCase::from_value("a", "error", json!({})),
        BenchCase::from_value("b", "error", json!({})),
    ];
    let mut log = Log::default();
    let s = Settings::new(ContextForm::Value, Duration::from_millis(1));
    run(&policy, &cases, &s, &mut log).unwrap();
    assert_eq!(log.0, ["begin 2 4", "case 0 a", "case 1 b", "end"]);
}

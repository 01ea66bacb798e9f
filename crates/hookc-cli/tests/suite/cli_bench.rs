//! `hookc bench`: its inputs, errors and output shape (never its timings).

use std::path::{Path, PathBuf};
use std::process::Output;

const POLICY: &str = "examples/thread-hooks/hooks.yaml";
/// Short runs: these tests check behaviour, not speed.
const TIME: [&str; 2] = ["--time-per-case", "0.02"];

fn hookc(args: &[&str]) -> Output {
    crate::hookc_command()
        .args(args)
        .current_dir(concat!(env!("CARGO_MANIFEST_DIR"), "/../.."))
        .output()
        .unwrap()
}

fn text(bytes: &[u8]) -> String {
    String::from_utf8(bytes.to_vec()).unwrap()
}

/// A fresh directory holding `files` (name, content).
fn dir_with(name: &str, files: &[(&str, &str)]) -> PathBuf {
    let dir = Path::new(env!("CARGO_TARGET_TMPDIR")).join(format!("bench-{name}"));
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).unwrap();
    for (file, content) in files {
        std::fs::write(dir.join(file), content).unwrap();
    }
    dir
}

/// Event records for the seed000 example's builtin hooks, deliberately not in name order
/// on the command line's side: the directory is read sorted by name.
const RECORDS: [(&str, &str); 4] = [
    (
        "b_limit.json",
        r#"{"event": "limit", "context": {"event": {"limit_code": "turns"}}}"#,
    ),
    (
        "a_transient.json",
        r#"{"event": "error", "context": {"classification": {"category": "transient"}}}"#,
    ),
    ("c_no_match.json", r#"{"event": "error", "context": {}}"#),
    ("notes.txt", "not a context: ignored"),
];

fn run_bench(dir: &Path, extra: &[&str]) -> Output {
    let dir = dir.to_str().unwrap();
    let mut args = vec!["bench", POLICY, "--contexts", dir];
    args.extend(TIME);
    args.extend(extra);
    hookc(&args)
}

/// The number in a table cell (`1,234.5` → 1234.5).
fn number(cell: &str) -> f64 {
    cell.replace(',', "").parse().unwrap()
}

#[test]
fn the_table_lists_every_case_in_name_order_with_its_match() {
    let dir = dir_with("table", &RECORDS);
    let out = run_bench(&dir, &[]);
    let stdout = text(&out.stdout);
    assert_eq!(out.status.code(), Some(0), "{}", text(&out.stderr));
    let mut lines = stdout.lines();
    let header: Vec<_> = lines
        .next()
        .unwrap()
        .split("  ")
        .filter(|c| !c.is_empty())
        .collect();
    let header: Vec<_> = header.iter().map(|c| c.trim()).collect();
    assert_eq!(
        header,
        [
            "case",
            "event",
            "matched hook",
            "median ns",
            "p99 ns",
            "evals/s"
        ]
    );
    let rows: Vec<Vec<&str>> = lines
        .by_ref()
        .take_while(|l| !l.is_empty())
        .map(|l| l.split_whitespace().collect())
        .collect();
    let expected = [
        ("a_transient.json", "error", "default_transient_retry"),
        ("b_limit.json", "limit", "default_limit_escalation"),
        ("c_no_match.json", "error", "(no"),
    ];
    assert_eq!(rows.len(), expected.len(), "{stdout}");
    for (row, (name, event, hook)) in rows.iter().zip(expected) {
        assert_eq!((row[0], row[1], row[2]), (name, event, hook), "{stdout}");
        let n = row.len();
        let (median, p99, rate) = (number(row[n - 3]), number(row[n - 2]), number(row[n - 1]));
        assert!(median > 0.0 && p99 >= median && rate > 0.0, "{stdout}");
    }
    let totals: Vec<_> = lines.collect();
    assert!(totals[0].starts_with("3 cases, mode json"), "{stdout}");
    assert!(
        totals[1].starts_with("every case equally often:"),
        "{stdout}"
    );
}

#[test]
fn json_output_has_the_cases_parameters_machine_and_totals() {
    let dir = dir_with("json", &RECORDS);
    let out = run_bench(&dir, &["--json", "--mode", "value"]);
    assert_eq!(out.status.code(), Some(0), "{}", text(&out.stderr));
    let doc: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
    assert_eq!(doc["parameters"]["mode"], "value");
    assert_eq!(doc["parameters"]["time_per_case_s"], 0.02);
    assert!(doc["machine"]["available_parallelism"].as_u64().unwrap() >= 1);
    assert!(doc["machine"]["optimized"].is_boolean());
    let cases = doc["cases"].as_array().unwrap();
    let names: Vec<_> = cases.iter().map(|c| c["name"].as_str().unwrap()).collect();
    assert_eq!(
        names,
        ["a_transient.json", "b_limit.json", "c_no_match.json"]
    );
    assert_eq!(cases[0]["matched"], "default_transient_retry");
    assert_eq!(cases[0]["action"], "retry");
    assert_eq!(cases[1]["matched"], "default_limit_escalation");
    assert_eq!(cases[2]["matched"], serde_json::Value::Null);
    for c in cases {
        let f = |k: &str| c[k].as_f64().unwrap();
        assert!(f("median_ns") > 0.0 && f("p99_ns") >= f("median_ns") && f("mean_ns") > 0.0);
        assert!(c["evals_per_sec"].as_u64().unwrap() > 0);
        assert!(c["batch_size"].as_u64().unwrap() >= 1);
        assert!(c["batches"].as_u64().unwrap() >= 10);
        assert!(c["evaluations"].as_u64().unwrap() >= c["batches"].as_u64().unwrap());
    }
    assert_eq!(doc["totals"]["cases"], 3);
    assert!(doc["totals"]["evaluations"].as_u64().unwrap() > 0);
    assert!(doc["totals"]["evals_per_sec"].as_u64().unwrap() > 0);
}

#[test]
fn an_event_log_is_replayed_one_case_per_line() {
    let dir = dir_with(
        "log",
        &[(
            "log.jsonl",
            "{\"event\": \"error\", \"context\": {\"classification\": {\"category\": \"transient\"}}}\n\
             \n\
             {\"event\": \"limit\", \"context\": {\"event\": {\"limit_code\": \"x\"}}}\n",
        )],
    );
    let log = dir.join("log.jsonl");
    let mut args = vec!["bench", POLICY, "--events", log.to_str().unwrap(), "--json"];
    args.extend(TIME);
    let out = hookc(&args);
    assert_eq!(out.status.code(), Some(0), "{}", text(&out.stderr));
    let doc: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
    let cases: Vec<_> = doc["cases"]
        .as_array()
        .unwrap()
        .iter()
        .map(|c| (c["name"].as_str().unwrap(), c["matched"].as_str().unwrap()))
        .collect();
    assert_eq!(
        cases,
        [
            ("line 1", "default_transient_retry"),
            ("line 3", "default_limit_escalation")
        ]
    );
    assert_eq!(doc["parameters"]["mode"], "json");
}

#[test]
fn a_bad_log_line_is_exit_2_naming_the_line() {
    let dir = dir_with(
        "badlog",
        &[(
            "log.jsonl",
            "{\"event\": \"error\", \"context\": {}}\n{\"context\": {}}\n",
        )],
    );
    let log = dir.join("log.jsonl");
    let out = hookc(&[
        "bench",
        POLICY,
        "--events",
        log.to_str().unwrap(),
        "--quick",
    ]);
    assert_eq!(out.status.code(), Some(2));
    let err = text(&out.stderr);
    assert!(err.contains("log.jsonl:2: not an event record"), "{err}");
    assert!(out.stdout.is_empty());
}

#[test]
fn the_bench_data_the_repository_ships_is_accepted() {
    let out = hookc(&[
        "bench",
        "crates/hookc/benches/data/seed/policy.yaml",
        "--contexts",
        "crates/hookc/benches/data/seed/contexts",
        "--json",
        TIME[0],
        TIME[1],
    ]);
    assert_eq!(out.status.code(), Some(0), "{}", text(&out.stderr));
    let doc: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
    let names: Vec<_> = doc["cases"]
        .as_array()
        .unwrap()
        .iter()
        .map(|c| c["name"].as_str().unwrap())
        .collect();
    // Every file is a case (they are event records with an `expect` key).
    let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("../hookc/benches/data/seed/contexts");
    let mut files: Vec<String> = std::fs::read_dir(dir)
        .unwrap()
        .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
        .filter(|n| n.ends_with(".json"))
        .collect();
    files.sort();
    assert!(files.len() >= 5, "{files:?}");
    assert_eq!(names, files);
}

#[test]
fn a_bare_context_needs_an_event() {
    let bare = r#"{"classification": {"category": "transient"}}"#;
    let dir = dir_with("bare", &[("bare.json", bare), RECORDS[0]]);
    let out = run_bench(&dir, &[]);
    assert_eq!(out.status.code(), Some(2));
    let err = text(&out.stderr);
    assert!(err.contains("bare.json` is a bare context"), "{err}");
    assert!(err.contains("--event"), "{err}");
    // With `--event`, bare contexts take it; records keep their own.
    let out = run_bench(&dir, &["--event", "error", "--json"]);
    assert_eq!(out.status.code(), Some(0), "{}", text(&out.stderr));
    let doc: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
    let cases: Vec<_> = doc["cases"]
        .as_array()
        .unwrap()
        .iter()
        .map(|c| (c["name"].as_str().unwrap(), c["event"].as_str().unwrap()))
        .collect();
    assert_eq!(cases, [("b_limit.json", "limit"), ("bare.json", "error")]);
}

#[test]
fn a_malformed_context_is_exit_2_naming_the_file_and_line() {
    let dir = dir_with(
        "malformed",
        &[RECORDS[1], ("broken.json", "{\n  \"a\": [1,\n}\n")],
    );
    let out = run_bench(&dir, &[]);
    assert_eq!(out.status.code(), Some(2));
    let err = text(&out.stderr);
    assert!(err.contains("broken.json` is not valid JSON"), "{err}");
    assert!(err.contains("line 3"), "{err}");
    assert!(out.stdout.is_empty());
}

#[test]
fn usage_errors_are_exit_2() {
    let dir = dir_with("usage", &[RECORDS[0]]);
    let d = dir.to_str().unwrap();
    let empty = dir_with("usage-empty", &[]);
    for args in [
        vec!["bench", POLICY],                                          // no cases
        vec!["bench", POLICY, "--contexts", d, "--time-per-case", "0"], // no time
        vec!["bench", POLICY, "--contexts", d, "--mode", "fast"],       // no such mode
        vec!["bench", POLICY, "--contexts", empty.to_str().unwrap()],   // no *.json
        vec!["bench", POLICY, "--contexts", "no/such/dir"],
        vec!["bench", "no/such/policy.yaml", "--contexts", d],
    ] {
        let out = hookc(&args);
        assert_eq!(out.status.code(), Some(2), "{args:?}");
        assert!(out.stdout.is_empty(), "{args:?}");
    }
}

#[test]
fn an_artifact_is_a_policy_too() {
    let dir = dir_with("artifact", &[RECORDS[1]]);
    let hkb = dir.join("policy.hkb");
    let out = hookc(&["compile", POLICY, "-o", hkb.to_str().unwrap()]);
    assert_eq!(out.status.code(), Some(0));
    let contexts = dir.to_str().unwrap();
    let mut args = vec!["bench", hkb.to_str().unwrap(), "--contexts", contexts];
    args.extend(TIME);
    let out = hookc(&args);
    assert_eq!(out.status.code(), Some(0), "{}", text(&out.stderr));
    assert!(text(&out.stdout).contains("a_transient.json  error  default_transient_retry"));
}

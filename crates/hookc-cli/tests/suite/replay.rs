//! Replaying event logs at scale: `eval --events` streaming from a file,
//! standard input and gzip, in order under parallelism, with malformed
//! lines; `--summary` and `hookc diff` checked against evaluating each event
//! one by one with the runtime library. (The guide's replay chapter,
//! `docs/src/testing/replay.md`, is run as written by `tests/docs.rs`.)

use hookc_runtime::{Decision, Policy};
use serde_json::{json, Value};
use std::collections::BTreeMap;
use std::io::{Read, Write};
use std::path::{Path, PathBuf};
use std::process::{Output, Stdio};

const ROOT: &str = concat!(env!("CARGO_MANIFEST_DIR"), "/../..");
/// A 40-line log of seed-shaped events (every seed context and test case).
const LOG: &str = "crates/hookc-cli/tests/data/seed000_eval/events.jsonl";
const POLICY: &str = "examples/policy.xml";
const CHANGED: &str = "examples/diff/policy.xml";
const SEED: [&str; 3] = [
    "examples/thread-hooks/hooks.yaml",
    "examples/thread-hooks/directive_hooks.yaml",
    "examples/thread-hooks/directive.xml",
];

fn hookc(args: &[&str]) -> Output {
    crate::hookc_command()
        .args(args)
        .current_dir(ROOT)
        .output()
        .unwrap()
}

/// `hookc eval POLICY --events LOG EXTRA...`.
fn eval_log(log: &str, extra: &[&str]) -> Output {
    let mut args = vec!["eval", POLICY, "--events", log];
    args.extend(extra);
    hookc(&args)
}

fn text(bytes: &[u8]) -> String {
    String::from_utf8(bytes.to_vec()).unwrap()
}

fn temp_dir(name: &str) -> PathBuf {
    let dir = Path::new(env!("CARGO_TARGET_TMPDIR")).join(format!("replay-{name}"));
    std::fs::create_dir_all(&dir).unwrap();
    dir
}

fn log_lines() -> Vec<String> {
    std::fs::read_to_string(Path::new(ROOT).join(LOG))
        .unwrap()
        .lines()
        .map(str::to_owned)
        .collect()
}

/// The 40-line log `times` times over: a log whose lines repeat with
/// varied neighbours.
fn repeated_log(dir: &Path, times: usize) -> PathBuf {
    let lines = log_lines();
    let mut out = String::new();
    for _ in 0..times {
        for l in &lines {
            out.push_str(l);
            out.push('\n');
        }
    }
    let path = dir.join(format!("repeated{times}.jsonl"));
    std::fs::write(&path, out).unwrap();
    path
}

/// `files` compiled into an artifact and loaded with the runtime library:
/// the one-by-one oracle does not go through the replay code.
fn load(dir: &Path, name: &str, files: &[&str]) -> Policy {
    let out = dir.join(format!("{name}.hkb"));
    let mut args = vec!["compile"];
    args.extend(files);
    args.extend(["-o", out.to_str().unwrap()]);
    let o = hookc(&args);
    assert_eq!(o.status.code(), Some(0), "{}", text(&o.stderr));
    Policy::from_artifact(&std::fs::read(out).unwrap()).unwrap()
}

/// Each line of a log, parsed: (line number, event, context).
fn records(path: &Path) -> Vec<(u64, String, Value)> {
    let text = std::fs::read_to_string(path).unwrap();
    (1..)
        .zip(text.lines())
        .filter(|(_, l)| !l.trim().is_empty())
        .map(|(n, l)| {
            let v: Value = serde_json::from_str(l).unwrap();
            (
                n,
                v["event"].as_str().unwrap().to_owned(),
                v["context"].clone(),
            )
        })
        .collect()
}

#[test]
fn parallel_replay_prints_the_same_bytes_as_one_job_in_input_order() {
    let dir = temp_dir("order");
    let log = repeated_log(&dir, 25);
    let log = log.to_str().unwrap();
    let one = eval_log(log, &["--jobs", "1"]);
    assert_eq!(one.status.code(), Some(0));
    assert_eq!(text(&one.stdout).lines().count(), 1000);
    // One line per chunk and many workers: chunks finish out of order.
    for (jobs, chunk) in [("2", "1"), ("4", "1"), ("2", "3000"), ("3", "100000")] {
        let many = eval_log(log, &["--jobs", jobs, "--chunk-bytes", chunk]);
        assert_eq!(many.status.code(), Some(0));
        assert!(
            many.stdout == one.stdout,
            "--jobs {jobs} --chunk-bytes {chunk} differs from --jobs 1"
        );
    }
    // And with every match and the explain traces, which are longer.
    let args = |jobs| {
        [
            "eval",
            POLICY,
            "--events",
            log,
            "--all",
            "--explain",
            "--jobs",
            jobs,
            "--chunk-bytes",
            "1",
        ]
    };
    assert!(hookc(&args("1")).stdout == hookc(&args("2")).stdout);
}

#[test]
fn replay_output_is_each_event_evaluated_alone() {
    let dir = temp_dir("alone");
    let policy = load(&dir, "policy", &[POLICY]);
    let log = Path::new(ROOT).join(LOG);
    let out = eval_log(log.to_str().unwrap(), &["--jobs", "2"]);
    let printed: Vec<Value> = text(&out.stdout)
        .lines()
        .map(|l| serde_json::from_str(l).unwrap())
        .collect();
    let want: Vec<Value> = records(&log)
        .iter()
        .map(|(_, event, ctx)| policy.evaluate(event, ctx).unwrap().to_json())
        .collect();
    assert_eq!(printed, want);
}

#[test]
fn malformed_lines_are_reported_with_their_numbers_and_the_rest_replayed() {
    let dir = temp_dir("malformed");
    let lines = log_lines();
    let bad = [
        (3, "not json"),
        (7, r#"{"context": {}}"#),
        (8, r#"["event", "error"]"#),
        (12, r#"{"event": "error", "context": {"a": 1"#),
    ];
    let mut body: Vec<String> = lines[..20].to_vec();
    for (n, l) in bad {
        body.insert(n - 1, l.to_owned());
    }
    body.insert(15, String::new()); // a blank line: skipped, but counted
    let log = dir.join("bad.jsonl");
    std::fs::write(&log, body.join("\n")).unwrap();
    let log = log.to_str().unwrap();
    for jobs in ["1", "2"] {
        let out = eval_log(log, &["--jobs", jobs, "--chunk-bytes", "1"]);
        assert_eq!(
            out.status.code(),
            Some(2),
            "a bad line makes the exit code 2"
        );
        let printed: Vec<Value> = text(&out.stdout)
            .lines()
            .map(|l| serde_json::from_str(l).unwrap())
            .collect();
        assert_eq!(printed.len(), 24, "every other line is still evaluated");
        for (n, _) in bad {
            let msg = printed[n - 1]["error"].as_str().unwrap();
            assert!(
                msg.starts_with(&format!("{log}:{n}: not an event record")),
                "{msg}"
            );
        }
        let errors = printed.iter().filter(|v| v.get("error").is_some()).count();
        assert_eq!(errors, 4);
        // The summary says the same, the lines on standard error.
        let out = eval_log(log, &["--jobs", jobs, "--summary", "--format", "json"]);
        assert_eq!(out.status.code(), Some(2));
        let summary: Value = serde_json::from_slice(&out.stdout).unwrap();
        assert_eq!(summary["errors"], 4);
        assert_eq!(summary["events"], 20);
        let err = text(&out.stderr);
        let reported: Vec<&str> = err.lines().filter(|l| l.starts_with("error: ")).collect();
        let want: Vec<String> = bad
            .iter()
            .map(|(n, _)| format!("error: {log}:{n}: "))
            .collect();
        assert_eq!(reported.len(), 4, "{err}");
        for (line, prefix) in reported.iter().zip(&want) {
            assert!(line.starts_with(prefix.as_str()), "{line}");
        }
    }
}

#[test]
fn gzip_logs_replay_as_their_text_from_a_file_and_from_stdin() {
    let dir = temp_dir("gzip");
    let plain = repeated_log(&dir, 10);
    let gz = dir.join("events.jsonl.gz");
    let mut enc = flate2::write::GzEncoder::new(
        std::fs::File::create(&gz).unwrap(),
        flate2::Compression::default(),
    );
    enc.write_all(&std::fs::read(&plain).unwrap()).unwrap();
    enc.finish().unwrap();
    let want = eval_log(plain.to_str().unwrap(), &[]);
    assert_eq!(want.status.code(), Some(0));
    let from_file = eval_log(gz.to_str().unwrap(), &["--jobs", "2"]);
    assert_eq!(
        from_file.status.code(),
        Some(0),
        "{}",
        text(&from_file.stderr)
    );
    assert!(from_file.stdout == want.stdout);
    let from_stdin = crate::hookc_command()
        .args(["eval", POLICY, "--events", "-"])
        .current_dir(ROOT)
        .stdin(std::fs::File::open(&gz).unwrap())
        .output()
        .unwrap();
    assert_eq!(from_stdin.status.code(), Some(0));
    assert!(from_stdin.stdout == want.stdout);
    // A damaged gzip log is an I/O error, exit 2, after what it could read.
    let mut cut = std::fs::read(&gz).unwrap();
    cut.truncate(cut.len() / 2);
    std::fs::write(dir.join("cut.jsonl.gz"), &cut).unwrap();
    let damaged = eval_log(dir.join("cut.jsonl.gz").to_str().unwrap(), &[]);
    assert_eq!(damaged.status.code(), Some(2));
    assert!(text(&damaged.stderr).contains("cannot read the event log"));
}

/// The summary's counts, recounted from one-by-one evaluations.
fn expected_summary(policy: &Policy, log: &Path) -> Value {
    let mut by_event = BTreeMap::<String, u64>::new();
    let mut by_hook = BTreeMap::<String, u64>::new();
    let mut by_action = BTreeMap::<String, u64>::new();
    let mut collected = BTreeMap::<String, u64>::new();
    let (mut events, mut no_match) = (0, 0);
    for (_, event, ctx) in records(log) {
        let d = policy.evaluate(&event, &ctx).unwrap();
        events += 1;
        *by_event.entry(event).or_default() += 1;
        match &d.terminal {
            Some(m) => {
                *by_hook.entry(m.hook.to_owned()).or_default() += 1;
                *by_action.entry(m.action_type().to_owned()).or_default() += 1;
            }
            None => no_match += 1,
        }
        for m in &d.collected {
            *collected.entry(m.hook.to_owned()).or_default() += 1;
        }
    }
    json!({
        "events": events, "errors": 0, "no_match": no_match, "by_event": by_event,
        "by_hook": by_hook, "by_action": by_action, "collected": collected,
    })
}

#[test]
fn summary_counts_are_the_counts_of_one_by_one_evaluation() {
    let dir = temp_dir("summary");
    let log = repeated_log(&dir, 3);
    for (name, files) in [("policy", vec![POLICY]), ("seed", SEED.to_vec())] {
        let policy = load(&dir, name, &files);
        let want = expected_summary(&policy, &log);
        for jobs in ["1", "2"] {
            let mut args = vec!["eval"];
            args.extend(&files);
            args.extend([
                "--events",
                log.to_str().unwrap(),
                "--summary",
                "--format",
                "json",
            ]);
            args.extend(["--jobs", jobs, "--chunk-bytes", "500"]);
            let out = hookc(&args);
            assert_eq!(out.status.code(), Some(0));
            let got: Value = serde_json::from_slice(&out.stdout).unwrap();
            // The output orders by count; the comparison is of the counts.
            assert_eq!(got, want, "{name}, --jobs {jobs}");
            let counts: Vec<u64> = got["by_hook"]
                .as_object()
                .unwrap()
                .values()
                .map(|v| v.as_u64().unwrap())
                .collect();
            assert!(
                counts.windows(2).all(|w| w[0] >= w[1]),
                "largest first: {counts:?}"
            );
        }
    }
}

/// What a decision does under `policy`: its terminal action's type and
/// that hook's action severity, read from the program.
fn verdict(policy: &Policy, d: &Decision<'_>) -> (Option<String>, i64) {
    let Some(m) = &d.terminal else {
        return (None, 0);
    };
    let p = policy.program();
    let severity = p
        .hooks
        .iter()
        .find(|h| p.string(h.id) == m.hook)
        .and_then(|h| p.action(h.action))
        .map_or(0, |a| a.severity);
    (Some(m.action_type().to_owned()), severity)
}

/// The decisions and transitions of a diff, from one-by-one evaluations
/// of every event under each policy, in the documented order.
fn expected_diff(old: &Policy, new: &Policy, log: &Path) -> Value {
    type Key = (u8, Option<String>, Option<String>);
    type Verdicts = (String, (Option<String>, i64), (Option<String>, i64));
    let mut groups = BTreeMap::<Key, (u64, Vec<u64>)>::new();
    let mut verdicts = BTreeMap::<Verdicts, (u64, Vec<u64>)>::new();
    let mut events = 0;
    let hook = |d: &Decision<'_>| d.terminal.as_ref().map(|m| m.hook.to_owned());
    let add = |g: &mut (u64, Vec<u64>), line| {
        g.0 += 1;
        if g.1.len() < 5 {
            g.1.push(line);
        }
    };
    for (line, event, ctx) in records(log) {
        let (a, b) = (
            old.evaluate(&event, &ctx).unwrap(),
            new.evaluate(&event, &ctx).unwrap(),
        );
        events += 1;
        let (was, is) = (verdict(old, &a), verdict(new, &b));
        let kind = if hook(&a) != hook(&b) {
            0
        } else if was != is {
            1
        } else if a.terminal != b.terminal {
            2
        } else if a.collected != b.collected {
            3
        } else {
            continue;
        };
        add(groups.entry((kind, hook(&a), hook(&b))).or_default(), line);
        if was != is {
            add(verdicts.entry((event, was, is)).or_default(), line);
        }
    }
    let mut all: Vec<_> = groups.into_iter().collect();
    all.sort_by(|a, b| b.1 .0.cmp(&a.1 .0).then(a.0.cmp(&b.0)));
    let changed: u64 = all.iter().map(|(_, g)| g.0).sum();
    let transitions: Vec<Value> = all
        .into_iter()
        .map(|((kind, from, to), (count, examples))| {
            let kind = ["hook", "verdict", "action", "collected"][kind as usize];
            json!({"kind": kind, "from": from, "to": to, "count": count, "examples": examples})
        })
        .collect();
    let mut by_event: Vec<_> = verdicts.into_iter().collect();
    by_event.sort_by(|a, b| {
        a.0 .0
            .cmp(&b.0 .0)
            .then(b.1 .0.cmp(&a.1 .0))
            .then(a.0.cmp(&b.0))
    });
    let severity = |v: &(Option<String>, i64)| v.0.as_ref().map(|_| v.1);
    let decisions: Vec<Value> = by_event
        .into_iter()
        .map(|((event, from, to), (count, examples))| {
            json!({"event": event, "from": from.0, "to": to.0, "from_severity": severity(&from),
                   "to_severity": severity(&to), "count": count, "examples": examples})
        })
        .collect();
    json!({"events": events, "changed": changed, "decisions": decisions, "transitions": transitions})
}

fn diff_json(args: &[&str]) -> (Option<i32>, Value, String) {
    let mut all = vec!["diff"];
    all.extend(args);
    all.extend(["--format", "json"]);
    let out = hookc(&all);
    let v = serde_json::from_slice(&out.stdout).unwrap_or(Value::Null);
    (out.status.code(), v, text(&out.stderr))
}

#[test]
fn diff_transitions_are_those_of_one_by_one_evaluation() {
    let dir = temp_dir("diff");
    let log = repeated_log(&dir, 3);
    let log = log.to_str().unwrap();
    let policy = load(&dir, "policy", &[POLICY]);
    let changed = load(&dir, "changed", &[CHANGED]);
    let seed = load(&dir, "seed", &SEED);
    // A small change: a hook transition and an action transition.
    let want = expected_diff(&policy, &changed, Path::new(log));
    assert!(want["changed"].as_u64().unwrap() > 0);
    for jobs in ["1", "2"] {
        let (code, got, err) = diff_json(&[
            POLICY,
            CHANGED,
            "--events",
            log,
            "--jobs",
            jobs,
            "--chunk-bytes",
            "700",
        ]);
        assert_eq!(code, Some(1), "{err}");
        assert_eq!(got, want, "--jobs {jobs}");
    }
    // A large change, a policy of several files (`--old`/`--new`), and
    // the same from artifacts.
    let want = expected_diff(&seed, &policy, Path::new(log));
    assert!(want["transitions"].as_array().unwrap().len() > 3);
    let (code, got, _) = diff_json(&[
        "--old", SEED[0], "--old", SEED[1], "--old", SEED[2], "--new", POLICY, "--events", log,
    ]);
    assert_eq!(code, Some(1));
    assert_eq!(got, want);
    let (old, new) = (dir.join("seed.hkb"), dir.join("policy.hkb"));
    let (code, got, _) = diff_json(&[
        old.to_str().unwrap(),
        new.to_str().unwrap(),
        "--events",
        log,
    ]);
    assert_eq!(code, Some(1));
    assert_eq!(got, want);
    // Layers, as `eval` takes them: the seed's files in named layers.
    let out = dir.join("layered.hkb");
    let layers = [
        format!("builtin={}", SEED[0]),
        format!("project={}", SEED[1]),
        format!("directive={}", SEED[2]),
    ];
    let mut args = vec!["compile"];
    for l in &layers {
        args.extend(["--layer", l.as_str()]);
    }
    args.extend(["-o", out.to_str().unwrap()]);
    assert_eq!(hookc(&args).status.code(), Some(0));
    let layered = Policy::from_artifact(&std::fs::read(&out).unwrap()).unwrap();
    let want = expected_diff(&policy, &layered, Path::new(log));
    let mut args = vec!["--old", POLICY, "--events", log];
    for l in &layers {
        args.extend(["--new-layer", l.as_str()]);
    }
    let (code, got, _) = diff_json(&args);
    assert_eq!(code, Some(1));
    assert_eq!(got, want);
}

#[test]
fn diff_exit_codes_nothing_changed_and_errors_first() {
    let dir = temp_dir("diff-exit");
    let (code, got, _) = diff_json(&[POLICY, POLICY, "--events", LOG]);
    assert_eq!(code, Some(0));
    assert_eq!(
        got,
        json!({"events": 40, "changed": 0, "decisions": [], "transitions": []})
    );
    // A malformed line: reported, not counted, and exit 2 even though
    // decisions changed.
    let mut lines = log_lines();
    lines.insert(4, "{".to_owned());
    let log = dir.join("bad.jsonl");
    std::fs::write(&log, lines.join("\n")).unwrap();
    let (code, got, err) = diff_json(&[POLICY, CHANGED, "--events", log.to_str().unwrap()]);
    assert_eq!(code, Some(2));
    assert_eq!(got["events"], 40);
    assert!(got["changed"].as_u64().unwrap() > 0);
    assert!(
        err.contains(&format!("{}:5: not an event record", log.display())),
        "{err}"
    );
}

/// A rule weakened from deny to allow, and an action type ranked anew, are
/// said first, per event, apart from a reworded reason (issue 35, defect
/// 1; `tests/data/diff_verdicts/README.md`).
#[test]
fn diff_says_first_what_a_decision_does() {
    let data = concat!(env!("CARGO_MANIFEST_DIR"), "/tests/data/diff_verdicts");
    let (old, new, log) = (
        format!("{data}/old.yaml"),
        format!("{data}/new.yaml"),
        format!("{data}/events.jsonl"),
    );
    let out = hookc(&["diff", &old, &new, "--events", &log]);
    assert_eq!(out.status.code(), Some(1));
    assert_eq!(
        text(&out.stdout),
        "5 events, 4 changed\n\
         \n\
         decisions changed, by event:\n  \
           2  PreToolUse: deny -> allow                           lines 1, 4\n  \
           1  PreToolUse: ask (severity 10) -> ask (severity 30)  line 2\n\
         \n\
         by deciding hook:\n  \
           2  no_rm: action type or severity  lines 1, 4\n  \
           1  push: action type or severity   line 2\n  \
           1  reads: action parameters        line 3\n"
    );
    let (code, got, _) = diff_json(&[&old, &new, "--events", &log]);
    assert_eq!(code, Some(1));
    let load_one = |path: &str| {
        let text = std::fs::read_to_string(path).unwrap();
        hookc::compile::policy_from_sources(&[hookc::compile::Input::new(path, &text)]).unwrap()
    };
    assert_eq!(
        got,
        expected_diff(&load_one(&old), &load_one(&new), Path::new(&log))
    );
    assert_eq!(got["decisions"][0]["from"], "deny");
    assert_eq!(got["decisions"][0]["to"], "allow");
}

/// `--result` for no hook of the policy is an error naming the closest
/// hook that awaits (issue 35, defect 4): a typo left the decision pending.
#[test]
fn results_name_hooks_of_the_policy() {
    let policy_file = "crates/hookc/tests/wire/policies/model.yaml";
    let dir = temp_dir("unknown-result");
    let ctx = dir.join("ctx.json");
    std::fs::write(&ctx, r#"{"tool_input": {"command": "pip x"}}"#).unwrap();
    let ctx = ctx.to_str().unwrap();
    let eval = |result: &str| {
        hookc(&[
            "eval",
            policy_file,
            "--event",
            "PreToolUse",
            "--context",
            ctx,
            "--result",
            result,
        ])
    };
    let out = eval("brnch=\"main\"");
    assert_eq!(out.status.code(), Some(2));
    assert!(out.stdout.is_empty());
    assert_eq!(
        text(&out.stderr).trim(),
        "error: a result is given for `brnch`, which is no hook of the policy; \
         did you mean `branch`?"
    );
    // A hook that awaits nothing ignores its result.
    let out = eval("ask_rm=1");
    assert_eq!(out.status.code(), Some(0), "{}", text(&out.stderr));
    let out = eval("branch=\"main\"");
    assert_eq!(out.status.code(), Some(0), "{}", text(&out.stderr));
}

/// `eval --explain` of an evaluation that fails (`on_error: fail`)
/// prints the trace before the error (issue 35, defect 2).
#[test]
fn a_failed_evaluation_is_explained() {
    let dir = temp_dir("explain-fail");
    let policy = dir.join("p.yaml");
    std::fs::write(
        &policy,
        "on_error: fail\nhooks:\n  - id: count\n    event: E\n    when: \"n > 3\"\n    \
         action: {type: abort}\n",
    )
    .unwrap();
    let ctx = dir.join("ctx.json");
    std::fs::write(&ctx, r#"{"n": "many"}"#).unwrap();
    let out = hookc(&[
        "eval",
        policy.to_str().unwrap(),
        "--event",
        "E",
        "--context",
        ctx.to_str().unwrap(),
        "--explain",
    ]);
    assert_eq!(out.status.code(), Some(2));
    let stdout = text(&out.stdout);
    assert!(stdout.starts_with("event `E`: 1 hook(s)"), "{stdout}");
    assert!(
        stdout.ends_with("result: the evaluation fails at count\n"),
        "{stdout}"
    );
    assert!(text(&out.stderr).contains("policy error in hook `count`"));
}

#[test]
fn summary_needs_a_log() {
    let out = hookc(&["eval", POLICY, "--summary", "--event", "error"]);
    assert_eq!(out.status.code(), Some(2));
    assert!(text(&out.stderr).contains("--summary counts the events of a log"));
    assert!(out.stdout.is_empty());
}

/// Peak resident memory of a running process, in KiB (Linux).
#[cfg(target_os = "linux")]
fn peak_rss_kib(pid: u32) -> u64 {
    let status = std::fs::read_to_string(format!("/proc/{pid}/status")).unwrap();
    let line = status.lines().find(|l| l.starts_with("VmHWM:")).unwrap();
    line.split_whitespace().nth(1).unwrap().parse().unwrap()
}

/// A 64 MiB log through standard input, its output read as it comes: by
/// the time the whole log is written (so all but a pipe buffer of it has
/// been read), hookc's peak memory must be far below the log's size. A
/// replay that held the log (or its results) in memory fails this.
#[cfg(target_os = "linux")]
#[test]
fn replay_streams_a_log_larger_than_its_memory_budget() {
    const LOG_BYTES: usize = 64 << 20;
    const BUDGET_KIB: u64 = 32 << 10;
    let lines = log_lines();
    // Long lines (a padding member, and one in the context the policy does
    // not read) make a big log of few events: quick in a debug build.
    let pad = "x".repeat(16_000);
    let padded: Vec<String> = lines
        .iter()
        .map(|l| {
            let mut v: Value = serde_json::from_str(l).unwrap();
            v["padding"] = json!(pad);
            if let Some(ctx) = v["context"].as_object_mut() {
                ctx.insert("padding".into(), json!(pad));
            }
            format!("{v}\n")
        })
        .collect();
    let mut child = crate::hookc_command()
        .args(["eval", POLICY, "--events", "-", "--jobs", "2"])
        .current_dir(ROOT)
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::null())
        .spawn()
        .unwrap();
    let mut stdout = child.stdout.take().unwrap();
    let reader = std::thread::spawn(move || {
        let (mut lines, mut buf) = (0usize, vec![0u8; 1 << 16]);
        loop {
            let n = stdout.read(&mut buf).unwrap();
            if n == 0 {
                return lines;
            }
            lines += buf[..n].iter().filter(|b| **b == b'\n').count();
        }
    });
    let mut stdin = child.stdin.take().unwrap();
    let (mut written, mut records) = (0, 0);
    while written < LOG_BYTES {
        let line = &padded[records % padded.len()];
        stdin.write_all(line.as_bytes()).unwrap();
        written += line.len();
        records += 1;
    }
    stdin.flush().unwrap();
    let peak = peak_rss_kib(child.id());
    drop(stdin);
    let status = child.wait().unwrap();
    let printed = reader.join().unwrap();
    assert_eq!(status.code(), Some(0));
    assert_eq!(printed, records, "one result line per record");
    assert!(
        peak < BUDGET_KIB,
        "peak RSS {peak} KiB after reading {} MiB; budget {BUDGET_KIB} KiB",
        LOG_BYTES >> 20
    );
}

/// A line may carry the awaited hooks' results it resumes with
/// (`"results"`); replayed, each line answers what the single evaluation
/// with those results answers, and a line without them uses `--result`.
#[test]
fn replayed_lines_resume_with_their_own_results() {
    let dir = temp_dir("results");
    let policy_file = "crates/hookc/tests/wire/policies/model.yaml";
    let policy = load(&dir, "model", &[policy_file]);
    let lines = [
        r#"{"event": "PreToolUse", "context": {"tool_input": {"command": "pip x"}}}"#,
        r#"{"event": "PreToolUse", "context": {"tool_input": {"command": "pip x"}}, "results": {"branch": "main", "lockfile": true}}"#,
        r#"{"results": {"branch": "dev", "lockfile": true}, "event": "PreToolUse", "context": {}}"#,
        r#"{"event": "PreToolUse", "context": {}, "results": [1]}"#,
        r#"{"event": "PreToolUse", "context": {}, "results": {}, "results": {}}"#,
    ];
    let log = dir.join("results.jsonl");
    std::fs::write(&log, lines.join("\n")).unwrap();
    let out = hookc(&[
        "eval",
        policy_file,
        "--events",
        log.to_str().unwrap(),
        "--result",
        "branch=\"feature\"",
        "--result",
        "lockfile=true",
    ]);
    assert_eq!(out.status.code(), Some(2), "{}", text(&out.stderr));
    let printed: Vec<Value> = text(&out.stdout)
        .lines()
        .map(|l| serde_json::from_str(l).unwrap())
        .collect();
    let answer = |ctx: Value, results: &[(&str, Value)]| {
        let mut r = hookc_runtime::Results::new();
        for (id, v) in results {
            r.insert(*id, v.clone());
        }
        policy
            .query("PreToolUse", &ctx)
            .with_results(&r)
            .decision()
            .unwrap()
            .to_json()
    };
    let pip = json!({"tool_input": {"command": "pip x"}});
    let both = |branch: &str| [("branch", json!(branch)), ("lockfile", json!(true))];
    assert_eq!(printed[0], answer(pip.clone(), &both("feature")));
    assert_eq!(printed[1], answer(pip, &both("main")));
    assert_eq!(printed[1]["hook"], "on_main");
    assert_eq!(
        printed[2],
        answer(
            json!({}),
            &[("branch", json!("dev")), ("lockfile", json!(true))]
        )
    );
    assert_ne!(printed[1], printed[0], "the line's results were used");
    // Bad lines print their error in their place.
    let error = |i: usize| printed[i]["error"].as_str().unwrap_or_default().to_owned();
    assert!(
        error(3).contains(":4: `results` is not an object"),
        "{}",
        error(3)
    );
    assert!(
        error(4).contains(":5: not an event record (duplicate field `results`)"),
        "{}",
        error(4)
    );
}

//! Policies whose action types are all terminal print, byte for byte, what
//! `hookc eval` printed before action effects existed: the pinned outputs
//! in `tests/data/seed000_eval/` (see its README for how they were made).

use std::path::Path;

const DATA: &str = "crates/hookc-cli/tests/data/seed000_eval";
const SEED: [&str; 3] = [
    "examples/thread-hooks/hooks.yaml",
    "examples/thread-hooks/directive_hooks.yaml",
    "examples/thread-hooks/directive.xml",
];

/// Where `examples/policy.xml` is as it was when the outputs were made
/// (its README): the policy runs are made there, so that the example can
/// change.
const SNAPSHOT: &str = "crates/hookc/tests/data/examples_snapshot";

/// Runs `hookc eval POLICY... --events events.jsonl EXTRA...` in `cwd`
/// (relative to the repository's root) and compares its standard output
/// with `golden`.
fn same_as_before(cwd: &str, policy: &[&str], extra: &[&str], golden: &str) {
    let root = Path::new(env!("CARGO_MANIFEST_DIR")).join("../..");
    let events = root.join(DATA).join("events.jsonl");
    let out = crate::hookc_command()
        .arg("eval")
        .args(policy)
        .arg("--events")
        .arg(&events)
        .args(extra)
        .current_dir(root.join(cwd))
        .output()
        .unwrap();
    assert_eq!(
        out.status.code(),
        Some(0),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let path = root.join(DATA).join(golden);
    if std::env::var_os("UPDATE_EXPECT").is_some() {
        std::fs::write(&path, &out.stdout).unwrap();
        return;
    }
    let expected = std::fs::read(&path).unwrap();
    if out.stdout != expected {
        let got = String::from_utf8_lossy(&out.stdout);
        let want = String::from_utf8_lossy(&expected);
        let first = got
            .lines()
            .zip(want.lines())
            .position(|(g, w)| g != w)
            .unwrap_or(0);
        panic!(
            "`{golden}` differs, first at line {}:\n  now:    {}\n  before: {}",
            first + 1,
            got.lines().nth(first).unwrap_or("<end>"),
            want.lines().nth(first).unwrap_or("<end>")
        );
    }
}

#[test]
fn seed_000_decisions_are_byte_identical() {
    same_as_before(".", &SEED, &[], "seed000.out");
}

#[test]
fn seed_000_explain_traces_are_byte_identical() {
    same_as_before(
        ".",
        &SEED,
        &["--explain", "--format", "json"],
        "seed000_explain.out",
    );
}

#[test]
fn all_matches_and_text_traces_are_byte_identical() {
    same_as_before(
        SNAPSHOT,
        &["examples/policy.xml"],
        &["--all"],
        "policy_all.out",
    );
    same_as_before(
        SNAPSHOT,
        &["examples/policy.xml"],
        &["--explain"],
        "policy_explain.out",
    );
}

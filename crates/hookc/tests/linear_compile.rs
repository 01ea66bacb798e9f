//! Compilation work grows linearly with the number of hooks (issue 12,
//! "linear compile"): N and 10×N generated hooks, in two shapes, and the
//! work of the 10×N policy must be at most about 12 times that of the N
//! one. Work is counted, not timed: the lints' pairs of hooks looked at
//! together (`lint::analyze_counting`) and the heap allocations of the whole
//! build (sources to a loaded policy, and its artifact), with a counting
//! allocator; and random policies of every shape
//! (`benches/common/random_policy.rs`, issue 24).

#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]

#[path = "common/counting_alloc.rs"]
mod counting_alloc;
#[path = "../benches/common/random_policy.rs"]
mod random_policy;

use counting_alloc::allocations;
use hookc::compile::{compile, Input};

/// At most this growth of work from N to 10×N hooks.
const MAX_GROWTH: f64 = 12.0;

/// Hooks in the small policy (the large one has ten times as many).
const N: usize = 250;

/// Hook `i`'s action: every fourth one fills a template from `path` (which
/// its condition guarantees, so W0007 looks at every earlier guard and
/// reports nothing).
fn action(i: usize, path: &str) -> String {
    if i % 4 == 0 {
        format!("{{type: call_directive, directive: d{i}, parameters: {{x: \"${{{path}}}\"}}}}")
    } else {
        "{type: abort}".to_owned()
    }
}

/// `n` one-line hooks on `error`, each `error.code == 'C<i>'`.
fn uniform(n: usize) -> String {
    let mut s = String::from("hooks:\n");
    for i in 0..n {
        s.push_str(&format!(
            "  - {{id: h{i}, event: error, when: \"error.code == 'C{i}'\", action: {}}}\n",
            action(i, "error.code")
        ));
    }
    s
}

/// `n` hooks on two events, in turn a comparison with an equality, an `in`,
/// a `startsWith`, a `matches`, an `||` of two paths and a plain equality.
fn mixed(n: usize) -> String {
    let mut s = String::from("hooks:\n");
    for i in 0..n {
        let event = if i % 2 == 0 { "error" } else { "limit" };
        let (when, read) = match i % 6 {
            0 => (format!("error.code == 'C{i}'"), "error.code"),
            1 => (
                format!("cost.spend > {}.5 && error.code == 'D{i}'", i % 97),
                "cost.spend",
            ),
            2 => (
                format!("error.code in ['E{i}', 'F{i}', 'G{i}']"),
                "error.code",
            ),
            3 => (
                format!("error.message.startsWith('svc{i}: ')"),
                "error.message",
            ),
            4 => (
                format!("error.message.matches('^t{i}[0-9]+$')"),
                "error.message",
            ),
            _ => (
                format!("error.code == 'H{i}' || classification.category == 'K{i}'"),
                "classification",
            ),
        };
        s.push_str(&format!(
            "  - {{id: h{i}, event: {event}, when: \"{when}\", action: {}}}\n",
            action(i, read)
        ));
    }
    s
}

/// The lints' pairs and the build's allocations for one policy; `clean`:
/// the lints must find nothing.
fn work(input: &[Input], clean: bool) -> (usize, usize) {
    let c = compile(input);
    let policy = c.policy.as_ref().expect("compiles");
    let (findings, pairs) = hookc::lint::analyze_counting(policy);
    assert!(!clean || findings.is_empty(), "{findings:?}");
    let before = allocations();
    let bytes = compile(input).into_policy().unwrap().to_artifact();
    assert!(!bytes.is_empty());
    (pairs, allocations() - before)
}

fn assert_linear(shape: &str, generate: fn(usize) -> String) {
    assert_linear_inputs(shape, true, |n| vec![Input::new("gen.yaml", generate(n))]);
}

fn assert_linear_inputs(shape: &str, clean: bool, generate: impl Fn(usize) -> Vec<Input>) {
    let (small_pairs, small_allocs) = work(&generate(N), clean);
    let (large_pairs, large_allocs) = work(&generate(10 * N), clean);
    eprintln!("{shape}: pairs {small_pairs} -> {large_pairs}, allocations {small_allocs} -> {large_allocs}");
    for (what, small, large) in [
        ("lint pairs", small_pairs, large_pairs),
        ("allocations", small_allocs, large_allocs),
    ] {
        let growth = large as f64 / small.max(1) as f64;
        assert!(
            growth <= MAX_GROWTH,
            "{shape}: {what} grow {growth:.1}× from {N} to {} hooks ({small} to {large})",
            10 * N
        );
    }
}

#[test]
fn uniform_equalities_compile_in_linear_work() {
    assert_linear("uniform", uniform);
}

#[test]
fn mixed_conditions_compile_in_linear_work() {
    assert_linear("mixed", mixed);
}

/// Random policies of every shape (`benches/common/random_policy.rs`:
/// condition trees, `when` trees of `&&`, `||` and `!`, every kind of leaf,
/// shared constants, repeated conditions, two layers, five events,
/// templates), which the lints do find things in.
#[test]
fn random_shapes_compile_in_linear_work() {
    for seed in [1, 2, 3] {
        assert_linear_inputs(&format!("random (seed {seed})"), false, |n| {
            random_policy::random_inputs(n, seed)
        });
    }
}

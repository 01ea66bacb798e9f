//! Writes a random policy of the `shapes` bench (`benches/common/random_policy.rs`:
//! `shapes(N, SEED, 3)`) and its contexts to a directory, for instruction
//! counts outside criterion:
//!
//! ```sh
//! cargo run --release -p hookc --example shapes_gen 1000 1 /tmp/shapes
//! # wrote /tmp/shapes/shapes_1000_1.yaml and shapes_1000_1_{none,last,random-0,random-1,random-2}.json
//! hookc compile /tmp/shapes/shapes_1000_1.yaml -o /tmp/shapes/shapes_1000_1.hkb
//! for n in 1000 11000; do
//!   valgrind --tool=callgrind --callgrind-out-file=/dev/null target/release/examples/decide_count \
//!     /tmp/shapes/shapes_1000_1.hkb /tmp/shapes/shapes_1000_1_none.json $n 2>&1 | grep Collected
//! done   # (second - first) / 10000 = instructions per decide
//! ```
//!
//! Each context file is `{"event": E, "context": {...}, "expect": ID or null}`,
//! as `decide_count` and the bench data read them.
//!
//! With a fourth argument `by-shape` it also writes the policy split by the
//! shape of each hook's top level (`by_shape_N_SEED/<class>.yaml`: a
//! top-level `||`, an `&&` with or without a `==`/`in`/bool conjunct, a
//! lone leaf by kind, a condition tree's `all`/`any`/`not` or lone leaf by
//! operator), so that the cost of each class can be counted on the same
//! contexts (`docs/src/internals/performance.md`, "Where the no-match time
//! goes at 1,000 hooks"): no class matches `none`, as no hook does.

#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]

#[path = "../benches/common/mod.rs"]
mod common;

use std::collections::BTreeMap;
use std::path::PathBuf;
use std::process::ExitCode;

fn main() -> ExitCode {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let by_shape = match args.get(3).map(String::as_str) {
        None => false,
        Some("by-shape") => true,
        Some(other) => {
            eprintln!(
                "shapes_gen: unknown option `{other}`\nusage: shapes_gen N SEED DIR [by-shape]"
            );
            return ExitCode::from(2);
        }
    };
    let (Some(n), Some(seed), Some(dir)) = (
        args.first().and_then(|n| n.parse::<usize>().ok()),
        args.get(1).and_then(|s| s.parse::<u32>().ok()),
        args.get(2),
    ) else {
        eprintln!("usage: shapes_gen N SEED DIR [by-shape]");
        return ExitCode::from(2);
    };
    let dir = PathBuf::from(dir);
    if let Err(e) = std::fs::create_dir_all(&dir) {
        eprintln!("shapes_gen: {}: {e}", dir.display());
        return ExitCode::from(2);
    }
    let s = common::random_policy::shapes(n, seed, 3);
    let mut written = Vec::new();
    for input in &s.inputs {
        written.push((dir.join(&input.name), input.text.clone()));
    }
    for ctx in &s.contexts {
        let file = serde_json::json!({
            "event": common::random_policy::SHAPES_EVENT,
            "context": ctx.context,
            "expect": ctx.expect,
        });
        written.push((
            dir.join(format!("shapes_{n}_{seed}_{}.json", ctx.name)),
            format!("{file}\n"),
        ));
    }
    if by_shape {
        let mut classes: BTreeMap<String, String> = BTreeMap::new();
        for input in &s.inputs {
            for line in input.text.lines().filter(|l| l.starts_with("  - {id:")) {
                let text = classes
                    .entry(shape_class(line))
                    .or_insert_with(|| "hooks:\n".to_owned());
                text.push_str(line);
                text.push('\n');
            }
        }
        let sub = dir.join(format!("by_shape_{n}_{seed}"));
        if let Err(e) = std::fs::create_dir_all(&sub) {
            eprintln!("shapes_gen: {}: {e}", sub.display());
            return ExitCode::from(2);
        }
        for (class, text) in classes {
            written.push((sub.join(format!("{class}.yaml")), text));
        }
    }
    for (path, text) in written {
        if let Err(e) = std::fs::write(&path, text) {
            eprintln!("shapes_gen: {}: {e}", path.display());
            return ExitCode::from(2);
        }
        println!("wrote {}", path.display());
    }
    ExitCode::SUCCESS
}

/// The shape class of one generated hook line (`  - {id: .., when: "..",
/// action: ..}` or `condition: {..}`), from the generator's own spelling.
fn shape_class(line: &str) -> String {
    if let Some((_, rest)) = line.split_once(", when: \"") {
        let when = rest.split_once("\", action:").map_or(rest, |(w, _)| w);
        return when_class(when);
    }
    let tree = line.split_once("condition: {").map_or("", |(_, rest)| rest);
    match tree.split_once(':').map(|(key, _)| key) {
        Some("path") => {
            let op = tree
                .split_once("op: ")
                .and_then(|(_, rest)| rest.split([',', '}']).next())
                .unwrap_or("?");
            format!("tree_leaf_{op}")
        }
        Some(key) => format!("tree_{key}"),
        None => "unknown".to_owned(),
    }
}

/// The class of a `when` expression by its top level.
fn when_class(when: &str) -> String {
    let whole_group = |open: usize| closing(when, open) == Some(when.len() - 1);
    if when.starts_with("!(") && whole_group(1) {
        return "when_not".to_owned();
    }
    if when.starts_with('(') && whole_group(0) {
        return "when_or".to_owned();
    }
    let parts = top_level_and(when);
    if let [one] = parts.as_slice() {
        return format!("when_leaf_{}", leaf_kind(one));
    }
    let keyable = parts
        .iter()
        .any(|p| matches!(leaf_kind(p), "string_eq" | "in" | "bool_eq"));
    if keyable {
        "when_and_keyable".to_owned()
    } else {
        "when_and_unkeyable".to_owned()
    }
}

/// The index of the `)` that closes the `(` at `open`.
fn closing(s: &str, open: usize) -> Option<usize> {
    let mut depth = 0usize;
    for (i, c) in s.char_indices().skip_while(|&(i, _)| i < open) {
        match c {
            '(' => depth += 1,
            ')' => {
                depth = depth.checked_sub(1)?;
                if depth == 0 {
                    return Some(i);
                }
            }
            _ => {}
        }
    }
    None
}

/// The conjuncts of the top-level `&&` chain (outside brackets and quotes).
fn top_level_and(s: &str) -> Vec<&str> {
    let (mut depth, mut quoted, mut start, mut parts) = (0i32, false, 0, Vec::new());
    let bytes = s.as_bytes();
    let mut i = 0;
    while i < bytes.len() {
        match bytes[i] {
            b'\'' => quoted = !quoted,
            b'(' | b'[' if !quoted => depth += 1,
            b')' | b']' if !quoted => depth -= 1,
            b'&' if !quoted && depth == 0 && bytes.get(i + 1) == Some(&b'&') => {
                parts.push(s[start..i].trim());
                start = i + 2;
                i += 1;
            }
            _ => {}
        }
        i += 1;
    }
    parts.push(s[start..].trim());
    parts
}

/// Conjunct kinds by a piece of their spelling, in the order tried.
const KINDS: [(&str, &str); 8] = [
    ("retryable ==", "bool_eq"),
    ("== '", "string_eq"),
    ("!= '", "string_ne"),
    (" in [", "in"),
    (".startsWith(", "startsWith"),
    (".endsWith(", "endsWith"),
    (".contains(", "contains"),
    (".matches(", "matches"),
];

/// The kind of one conjunct, as the generator writes leaves
/// (`random_policy::when_leaf`); a comparison of numbers is the rest.
fn leaf_kind(leaf: &str) -> &'static str {
    if leaf.starts_with("!(") {
        "not"
    } else if leaf.starts_with('(') {
        "or"
    } else {
        KINDS
            .iter()
            .find(|(spelling, _)| leaf.contains(spelling))
            .map_or("number", |(_, kind)| kind)
    }
}

//! The runtime stays lean: an application that embeds it must not compile the
//! compiler, its YAML/XML readers, the diagnostics renderer or the CLI's
//! crates. Asserted on `cargo tree` of the runtime's normal dependencies, so a
//! new dependency (direct or transitive) that pulls one in fails here.

use std::process::Command;

/// Crates an embedder of the runtime must never build.
const FORBIDDEN: &[&str] = &[
    "hookc",
    "hookc-cli",
    "clap",
    "indicatif",
    "codespan-reporting",
    "quick-xml",
    "saphyr-parser",
    "logos",
    "serde_yaml",
];

/// What the runtime is allowed to depend on directly.
const DIRECT: &[&str] = &[
    "aho-corasick",
    "crc32fast",
    "fancy-regex",
    "memchr",
    "regex",
    "regex-lite",
    "regex-syntax",
    "serde",
    "serde_json",
    "smallvec",
    "thiserror",
    "typed-arena",
];

fn cargo_tree(args: &[&str]) -> Vec<String> {
    let cargo = std::env::var_os("CARGO").unwrap_or_else(|| "cargo".into());
    let out = Command::new(cargo)
        .args([
            "tree",
            "-p",
            "hookc-runtime",
            "-e",
            "normal",
            "--prefix",
            "none",
        ])
        .args(args)
        .current_dir(env!("CARGO_MANIFEST_DIR"))
        .output()
        .expect("run cargo tree");
    assert!(
        out.status.success(),
        "cargo tree failed:\n{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let mut names: Vec<String> = String::from_utf8_lossy(&out.stdout)
        .lines()
        .filter_map(|l| l.split_whitespace().next().map(str::to_owned))
        .collect();
    names.sort();
    names.dedup();
    names
}

#[test]
fn the_runtime_builds_none_of_the_compiler_crates() {
    let all = cargo_tree(&[]);
    assert!(all.iter().any(|n| n == "hookc-runtime"), "{all:?}");
    assert!(all.iter().any(|n| n == "regex"), "{all:?}");
    let heavy: Vec<_> = all
        .iter()
        .filter(|n| FORBIDDEN.contains(&n.as_str()))
        .collect();
    assert!(
        heavy.is_empty(),
        "hookc-runtime depends on {heavy:?}: embedders would compile them"
    );
}

#[test]
fn the_runtime_depends_directly_on_the_listed_crates_only() {
    let direct: Vec<String> = cargo_tree(&["--depth", "1"])
        .into_iter()
        .filter(|n| n != "hookc-runtime")
        .collect();
    assert_eq!(direct, DIRECT, "update DIRECT (and the README) on purpose");
}

//! `hookc --help` and `hookc <command> --help` for every command, pinned in
//! `tests/data/help/`, so that a change of a help text is seen in review.
//! `UPDATE_EXPECT=1 cargo test -p hookc-cli --test suite help::` rewrites them.

use std::path::{Path, PathBuf};

fn help_of(args: &[&str]) -> String {
    let out = crate::hookc_command()
        .args(args)
        .arg("--help")
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(0), "hookc {args:?} --help");
    String::from_utf8(out.stdout).unwrap()
}

fn data() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/data/help")
}

/// The commands `hookc --help` lists (but `help` itself).
fn commands(top: &str) -> Vec<String> {
    top.lines()
        .skip_while(|l| *l != "Commands:")
        .skip(1)
        .take_while(|l| l.starts_with("  "))
        .filter_map(|l| l.split_whitespace().next())
        .filter(|c| *c != "help")
        .map(str::to_owned)
        .collect()
}

#[test]
fn help_texts_match_their_snapshots() {
    let top = help_of(&[]);
    let commands = commands(&top);
    assert!(
        commands.len() >= 6 && commands.iter().any(|c| c == "eval"),
        "{top}"
    );
    let mut pages = vec![("hookc".to_owned(), top)];
    for c in &commands {
        pages.push((format!("hookc-{c}"), help_of(&[c.as_str()])));
    }
    let update = std::env::var_os("UPDATE_EXPECT").is_some();
    let mut stale = Vec::new();
    for (name, text) in &pages {
        let path = data().join(format!("{name}.txt"));
        if update {
            std::fs::write(&path, text).unwrap();
        } else if std::fs::read_to_string(&path).ok().as_deref() != Some(text.as_str()) {
            stale.push(name.clone());
        }
    }
    // Every snapshot is of a command that exists.
    let mut files: Vec<String> = std::fs::read_dir(data())
        .unwrap()
        .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
        .collect();
    files.sort();
    let mut expected: Vec<String> = pages.iter().map(|(n, _)| format!("{n}.txt")).collect();
    expected.sort();
    assert_eq!(files, expected, "snapshots without a command, or missing");
    assert!(
        stale.is_empty(),
        "help changed for {stale:?}: review, then `UPDATE_EXPECT=1 cargo test -p hookc-cli --test suite help::`"
    );
}

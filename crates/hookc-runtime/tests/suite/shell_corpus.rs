//! The shell parser against a corpus of real-world commands
//! (`tests/data/shell/`, from tldr-pages, see its README): every simple
//! command's argv, in order, as bashlex (a port of GNU bash's parser)
//! parsed them, and bash's verdict on the ones it rejects.

use hookc_runtime::functions::shell::{parse, parse_as_written};
use serde_json::Value;

const CORPUS: &str = include_str!("../data/shell/corpus.jsonl");

/// The argv of every command with one (the corpus leaves out commands of
/// assignments or redirections only), as written.
fn argvs(src: &str) -> (Vec<Vec<String>>, bool) {
    let script = parse_as_written(src);
    let argvs = script
        .commands
        .iter()
        .filter(|c| !c.argv.is_empty())
        .map(|c| c.argv.iter().map(|a| a.to_string()).collect())
        .collect();
    (argvs, script.is_valid())
}

#[test]
fn corpus_commands_parse_as_bash_does() {
    let mut failures = Vec::new();
    let mut count = 0;
    for line in CORPUS.lines() {
        let entry: Value = serde_json::from_str(line).unwrap();
        let src = entry["src"].as_str().unwrap();
        count += 1;
        let (got, valid) = argvs(src);
        // Unwrapping parses the scripts of `bash -c` and the like too: on
        // these commands, none has an error of its own.
        assert_eq!(parse(src).is_valid(), valid, "{src:?}");
        if entry["invalid"] == Value::Bool(true) {
            if valid {
                failures.push(format!("{src:?}: bash rejects it, parsed as {got:?}"));
            }
            continue;
        }
        let expected: Vec<Vec<String>> = serde_json::from_value(entry["argvs"].clone()).unwrap();
        if !valid {
            failures.push(format!("{src:?}: {:?}", parse(src).error));
        } else if got != expected {
            failures.push(format!(
                "{src:?}:\n   got      {got:?}\n   expected {expected:?}"
            ));
        }
    }
    assert!(count >= 500, "{count} commands");
    assert!(
        failures.is_empty(),
        "{} of {count} commands differ:\n{}",
        failures.len(),
        failures.join("\n")
    );
}

/// The invariant the compiler's shell-program prefilter reads
/// (`crates/hookc/src/lower/prefilter.rs`): a command's `program` is its
/// `argv[0]` without the directory, after unwrapping too, so a command
/// `c.argvPrefix(['W', ...])` holds for runs `shell::program_name(W)`.
#[test]
fn every_program_is_its_first_word_without_the_directory() {
    use hookc_runtime::functions::shell::program_name;
    let mut seen = 0;
    let extra = [
        "sudo -u root /usr/bin/git -C . push",
        "busybox rm -rf /; toybox ls",
        "X=/bin/rm; $X -rf /",
        "env -S 'bash -c \"./x.sh\"'",
        "find . -exec /bin/rm {} +",
        "{rm,-rf,/}",
    ];
    let corpus = CORPUS.lines().filter_map(|line| {
        let entry: Value = serde_json::from_str(line).ok()?;
        Some(entry["src"].as_str()?.to_owned())
    });
    for src in corpus.chain(extra.iter().map(|s| s.to_string())) {
        for c in parse(&src).commands {
            let first = c.argv.first().map_or("", |a| a.as_ref());
            assert_eq!(c.program, program_name(first), "{src:?}: {c:?}");
            seen += 1;
        }
    }
    assert!(seen > 1_000, "{seen}");
}

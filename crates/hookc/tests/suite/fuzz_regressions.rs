//! Regression tests for what the fuzz targets (`fuzz/`, see
//! `fuzz/README.md`) found: each feeds the minimized input through the API
//! its target calls, and checks the fixed behavior.

use hookc::diag::{Code, Diagnostics};
use hookc::span::FileId;
use hookc_runtime::limits::MAX_ALIAS_BYTES;
use std::time::Instant;

/// Target `yaml`, from its peak memory: 415 MB for an input of at most 6 KB
/// (a mutated "billion laughs" with longer strings). `MAX_DOC_NODES` bounds
/// the nodes an alias bomb expands to, but not their text: a 1 MB string
/// aliased ten at a time three levels deep is about 1,000 nodes and 1 GB of
/// text (2.2 GB and 8 s for the reader; one level more runs out of memory).
/// Aliases now also count the scalar bytes they copy, up to
/// `MAX_ALIAS_BYTES`.
#[test]
fn yaml_alias_bomb_of_long_strings() {
    let mut text = format!("a: &a \"{}\"\n", "x".repeat(1_000_000));
    for (name, of) in [("b", "a"), ("c", "b"), ("d", "c"), ("e", "d")] {
        let items = vec![format!("*{of}"); 10].join(",");
        text.push_str(&format!("{name}: &{name} [{items}]\n"));
    }
    let started = Instant::now();
    let mut diags = Diagnostics::new();
    hookc::frontend::yaml::read(&text, FileId(0), "bomb.yaml", &mut diags);
    let d = diags.iter().find(|d| d.is_error()).expect("an error");
    assert_eq!(d.code, Code::TooLarge);
    assert!(
        d.message.contains(&MAX_ALIAS_BYTES.to_string()) && d.message.contains("alias bomb"),
        "{}",
        d.message
    );
    assert!(
        started.elapsed().as_secs() < 5,
        "took {:?}",
        started.elapsed()
    );

    // At the bound: aliases copying exactly MAX_ALIAS_BYTES are fine.
    let chunk = MAX_ALIAS_BYTES / 16;
    let text = format!(
        "a: &a \"{}\"\nb: [{}]\n",
        "x".repeat(chunk),
        vec!["*a"; 16].join(",")
    );
    let mut diags = Diagnostics::new();
    hookc::frontend::yaml::read(&text, FileId(0), "ok.yaml", &mut diags);
    assert!(
        !diags.iter().any(|d| d.code == Code::TooLarge),
        "{:?}",
        diags.iter().map(|d| &d.message).collect::<Vec<_>>()
    );
}

/// Target `compile` (a mutated seed: one byte of a context key, in a part
/// of the context no hook reads, made invalid UTF-8). `evaluate_json`
/// accepted the text while `serde_json` (and so `evaluate`'s callers and
/// `hookc eval`'s documented "a context that is not JSON" error) rejects
/// it: the extractor skips what the policy does not read with
/// `IgnoredAny`, and `serde_json` checks UTF-8 only in strings it builds.
/// The extractor now checks the whole text is UTF-8 first.
#[test]
fn json_context_with_invalid_utf8_where_no_path_reads_is_an_error() {
    use hookc::compile::Input;
    use hookc_runtime::Overrides;
    let policy = hookc::compile::policy_from_sources(&[Input::new(
        "p.yaml",
        "hooks:\n  - event: e\n    when: \"error.code == 'E9'\"\n    action: {type: abort}\n",
    )])
    .unwrap();
    let good: &[u8] = br#"{"error": {"code": "E9", "headers": {"retry-after": "30"}}}"#;
    assert!(policy
        .query("e", hookc_runtime::Context::json(good))
        .first()
        .unwrap()
        .is_some());
    for bad in [
        &b"{\"error\": {\"code\": \"E9\", \"headers\": {\"retr\x89\xd2after\": \"30\"}}}"[..],
        &b"{\"error\": {\"code\": \"E9\"}, \"other\": \"\xff\"}"[..],
        &b"{\"error\": {\"code\": \"E9\"}, \"\xc3\": 1}"[..],
    ] {
        assert!(serde_json::from_slice::<serde_json::Value>(bad).is_err());
        assert!(
            policy
                .query("e", hookc_runtime::Context::json(bad))
                .first()
                .is_err(),
            "{bad:?}"
        );
        assert!(policy
            .query("e", hookc_runtime::Context::json(bad))
            .with_overrides(&Overrides::default())
            .all()
            .is_err());
        assert!(policy
            .query("e", hookc_runtime::Context::json(bad))
            .with_overrides(&Overrides::default())
            .explain()
            .is_err());
    }
}

/// Target `artifact` (the seed000 example's artifact with one path's name changed from
/// `turn_number` to `tokens_used`, which the program already had as
/// another path; header repaired). The program decoded and verified, and
/// then `Policy::evaluate` (a `Value` context, read through the shared-
/// prefix `PathPlan`) and `Policy::evaluate_json` (the JSON extractor)
/// disagreed: the plan keeps one slot per distinct path, so the first of
/// two equal paths never resolved. The compiler interns paths, so only a
/// crafted artifact has duplicates; the verifier now rejects them.
#[test]
fn artifact_with_two_equal_paths_is_rejected() {
    use hookc::compile::Input;
    use hookc_runtime::Policy;
    let policy = hookc::compile::policy_from_sources(&[Input::new(
        "p.yaml",
        "hooks:\n  - event: e\n    when: \"turn_number % 25 == 0 && tokens_used > 0\"\n    action: {type: abort}\n",
    )])
    .unwrap();
    let mut program = policy.program().clone();
    let names: Vec<String> = program.paths.iter().map(ToString::to_string).collect();
    let turn = names.iter().position(|n| n == "turn_number").unwrap();
    let tokens = names.iter().position(|n| n == "tokens_used").unwrap();
    program.paths[turn] = program.paths[tokens].clone();
    let bytes = hookc_runtime::artifact::encode(&program);
    // It decodes (the format allows it) but does not verify.
    assert!(hookc_runtime::artifact::decode(&bytes).is_ok());
    let err = Policy::from_artifact(&bytes).unwrap_err().to_string();
    assert!(err.contains("duplicate path `tokens_used`"), "{err}");
    // The policy as compiled still loads back from its own artifact.
    assert!(Policy::from_artifact(&policy.to_artifact()).is_ok());
}

/// Target `compile` (753,204 runs in; input: an empty policy, the context
/// `4440755095629703E250956297`): `evaluate_json` accepted a number that
/// `serde_json::from_slice::<Value>` rejects as out of range. The extractor
/// skipped what no path reads with `IgnoredAny`, which `serde_json` scans
/// without parsing numbers (nor checking `\u` surrogates); it now skips by
/// parsing each scalar as `Value` would, building nothing. Each text here is
/// accepted by the extractor exactly when `serde_json` accepts it, wherever
/// it sits: at the root, under a key no path reads, or on a path.
#[test]
fn json_context_is_accepted_exactly_when_serde_json_accepts_it() {
    use hookc::compile::Input;

    let policy = hookc::compile::policy_from_sources(&[Input::new(
        "p.yaml",
        "hooks:\n  - event: e\n    when: \"error.code == 'E9'\"\n    action: {type: abort}\n",
    )])
    .unwrap();
    let scalars = [
        "4440755095629703E250956297",
        "1E400",
        "-1e309",
        "1E308",
        "1e-400",
        &"9".repeat(400),
        &"9".repeat(300),
        "18446744073709551616",
        r#""\ud800""#,
        r#""\udc00x""#,
        r#""\ud83d\ude00""#,
        r#""\q""#,
        r#""\u12""#,
        "0.5",
        "-0",
    ];
    for scalar in scalars {
        for text in [
            scalar.to_owned(),
            format!(r#"{{"error": {{"code": "E9"}}, "other": [{scalar}]}}"#),
            format!(r#"{{"error": {{"code": {scalar}}}}}"#),
            format!(r#"{{"error": {{"code": "E9", "x": {{"y": {scalar}}}}}}}"#),
        ] {
            let serde_ok = serde_json::from_str::<serde_json::Value>(&text).is_ok();
            let ours = policy
                .query("e", hookc_runtime::Context::json(text.as_bytes()))
                .first();
            assert_eq!(ours.is_ok(), serde_ok, "{text}: {ours:?}");
        }
    }
}

/// Target `shell_parse`, its invariant "what `parse` accepts,
/// `parse_as_written` accepts": the input (bytes as the target reads them,
/// lossily) feeds `mksh` a heredoc whose body opens a backquote inside
/// single quotes. `parse`, which read the body only as `mksh`'s script
/// (where the quotes quote), accepted it; the shell of the line expands
/// the body first, and there the backquote is left open. Both readings
/// now expand the body in the shell of the line, so `parse` fails too, and
/// `bash <<EOF` of `echo '`rm -rf /`'` shows the `rm` the line runs.
#[test]
fn heredoc_into_a_shell_is_expanded_by_the_line_first() {
    use hookc_runtime::functions::shell::{parse, parse_as_written};
    let input: &[u8] = b"mksh<<EOF |\xfb\xdb\xd7\x96zd\nEO\0\0\0u\0OF | bash[ -c 'za` rm {}'\n$(i=t;d)F\xff\xff\xff\xff\xff\xff\x03xfor f in *.t=\nEOF\nf\nf\nr ";
    let text = String::from_utf8_lossy(input);
    let (script, written) = (parse(&text), parse_as_written(&text));
    assert!(!script.is_valid() || written.is_valid());
    assert!(!script.is_valid(), "{:?}", script.commands);
    let rm = parse("bash <<EOF\necho '`rm -rf /`'\nEOF");
    assert!(rm.commands.iter().any(|c| c.argv == ["rm", "-rf", "/"]));
}

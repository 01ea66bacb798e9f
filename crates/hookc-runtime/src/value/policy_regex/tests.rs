//! Tests of `policy_regex`: random patterns and haystacks against the
//! compiled regex alone, and both small and full engines.

use super::*;

/// A xorshift generator from `seed`: `next(n)` is below `n`, the same
/// sequence on every run.
fn xorshift(mut seed: u64) -> impl FnMut(u64) -> u64 {
    move |n| {
        seed ^= seed << 13;
        seed ^= seed >> 7;
        seed ^= seed << 17;
        seed % n
    }
}

impl PolicyRegex {
    /// Whether the regex has been compiled.
    fn is_compiled(&self) -> bool {
        self.compiled.get().is_some()
    }

    /// Whether the pattern has been parsed.
    fn is_parsed(&self) -> bool {
        self.parsed.get().is_some()
    }
}

/// A recorded one-of set answers a haystack with none of its literals
/// without parsing the pattern; one with a literal gets the regex's answer.
#[test]
fn a_recorded_one_of_set_answers_without_parsing() {
    let pattern = r"169\.254\.169\.254|metadata\.google\.internal|fd00:ec2::254";
    assert!(required_literals(pattern).is_empty());
    let one_of = one_of_literals_in(pattern);
    assert_eq!(
        one_of,
        [
            "169.254.169.254",
            "fd00:ec2::254",
            "metadata.google.internal"
        ]
    );
    let re = PolicyRegex::with_literals(pattern, &[], &one_of);
    assert_eq!(re.is_match("curl http://example.com/"), Ok(false));
    assert_eq!(re.captures("ls -la"), Ok(None));
    assert!(!re.is_parsed());
    assert_eq!(re.is_match("curl http://169.254.169.254/latest"), Ok(true));
    assert!(re.is_parsed());
    // Not recorded (an artifact written before the `one_of` section): the
    // parse finds the set, as before.
    let unrecorded = PolicyRegex::with_literals(pattern, &[], &[]);
    assert_eq!(unrecorded.is_match("ls"), Ok(false));
    assert!(unrecorded.is_parsed());
    // Only patterns that require no literal have a set; flags that change
    // literals, and backtracking patterns, none.
    assert!(one_of_literals_in(r"ab(c|d)").is_empty());
    assert!(one_of_literals_in(r"(?i)ab|cd").is_empty());
    assert!(one_of_literals_in(r"(?=a)b|c").is_empty());
    assert!(one_of_literals_in(r"ab(").is_empty());
}

#[test]
fn recorded_literals_answer_a_search_without_parsing() {
    let pattern = r"(^|;\s*)terraform\s+apply\b";
    let literals = required_literals(pattern);
    assert_eq!(literals, ["terraform", "apply"]);
    let re = PolicyRegex::with_required(pattern, &literals);
    assert_eq!(re.required_literal(), Some("terraform"));
    assert_eq!(re.is_match("ls -la"), Ok(false));
    assert_eq!(re.captures("terraform plan"), Ok(None));
    assert!(!re.is_parsed());
    assert_eq!(re.is_match("x; terraform  apply"), Ok(true));
    assert!(re.is_parsed() && re.is_compiled());
    // A pattern that does not parse (only a hand-made artifact has one)
    // is an error where a search gets past its recorded literals.
    let bad = PolicyRegex::with_required("ab(", &["ab".to_owned()]);
    assert_eq!(bad.is_match("xy"), Ok(false));
    assert_eq!(bad.is_match("xab"), Err(EvalError::InvalidArgument));
    // No literals recorded: the parse finds them, as without a record.
    let none = PolicyRegex::with_required(pattern, &[]);
    assert_eq!(none.is_match("ls"), Ok(false));
    assert!(none.is_parsed() && !none.is_compiled());
    // What is recorded is what the parse finds, for the compiler to write.
    for p in [
        r"^a+$",
        r"(?i)abc",
        r"x(?=y)",
        r"ab|cd",
        r"\bgit\s+push\b.*--force",
    ] {
        let parsed = PolicyRegex::parse(p).unwrap();
        let found: Vec<&str> = parsed
            .parsed()
            .unwrap()
            .required
            .iter()
            .filter_map(|f| std::str::from_utf8(f.needle()).ok())
            .collect();
        assert_eq!(required_literals(p), found, "{p}");
    }
    assert!(required_literals("ab(").is_empty());
}

fn required(pattern: &str) -> Vec<String> {
    let ast = regex_syntax::ast::parse::Parser::new()
        .parse(pattern)
        .unwrap();
    let mut out = Vec::new();
    match walk(&ast, true, &mut out) {
        Ok(()) => out,
        Err(Flagged) => Vec::new(),
    }
}

/// Flags that leave literals alone are read past, by the compiler and
/// at run time.
#[test]
fn neutral_flags_keep_their_literals() {
    let glob = r"(?s)\A(?:.*/)?\.hookc/.*\z";
    let ast = regex_syntax::ast::parse::Parser::new().parse(glob).unwrap();
    assert_eq!(required_of(&ast), [".hookc/"]);
    assert_eq!(required_literals(glob), [".hookc/"]);
    for flagged in [r"(?i)abc", r"abc(?i:d)", r"(?x)a b", r"(?s-i)x(?i)y"] {
        let ast = regex_syntax::ast::parse::Parser::new()
            .parse(flagged)
            .unwrap();
        assert!(required_of(&ast).is_empty(), "{flagged}");
    }
    let ast = regex_syntax::ast::parse::Parser::new()
        .parse(r"(?m)^ab(?s:.)c$")
        .unwrap();
    assert_eq!(required_of(&ast), ["ab", "c"]);
    let re = PolicyRegex::parse(glob).unwrap();
    assert_eq!(re.is_match("/work/app/build.log"), Ok(false));
    assert!(!re.is_compiled());
    assert_eq!(re.required_literal(), Some(".hookc/"));
    assert_eq!(re.is_match("a/.hookc/guard.yaml"), Ok(true));
}

#[test]
fn required_literals_are_read_from_the_pattern() {
    assert_eq!(required("git push"), ["git push"]);
    assert_eq!(required(r"(^|;\s*)pip\s(.*\s)?777(\s|$)"), ["pip", "777"]);
    assert_eq!(required(r"(ab)+c"), ["ab", "c"]);
    assert!(required(r"(ab)*c?").is_empty());
    assert!(required(r"a|b").is_empty());
    assert!(required(r"(?i)abc").is_empty());
    assert!(required(r"abc(?i:d)").is_empty());
    assert!(required(r"x|(?i)y").is_empty());
    assert_eq!(required(r"\bfoo\.bar\b"), ["foo.bar"]);
    assert_eq!(required(r"ab?c"), ["a", "c"]);
    assert_eq!(required(r"(?:ab){2,}"), ["ab"]);
    let re = PolicyRegex::parse("ab.cd.ab").unwrap();
    assert_eq!(
        re.parsed().unwrap().required.len(),
        2,
        "`ab` once, `cd` once"
    );
    assert!(required(r"[a-z]+").is_empty());
}

#[test]
fn a_haystack_without_a_required_literal_never_compiles_the_regex() {
    let re = PolicyRegex::parse(r"\bterraform\s+apply\b").unwrap();
    assert_eq!(re.is_match("ls -la"), Ok(false));
    assert!(!re.is_compiled());
    assert_eq!(re.is_match("terraform  apply -auto"), Ok(true));
    assert!(re.is_compiled());
    assert_eq!(re.is_match("terraform plan; apply"), Ok(false));
}

#[test]
fn a_pattern_over_the_size_limit_is_an_evaluation_error() {
    let re = PolicyRegex::parse("a{1000}{1000}").unwrap();
    assert_eq!(re.is_match("bbb"), Ok(false));
    let haystack = "a".repeat(1000);
    assert_eq!(re.is_match(&haystack), Err(EvalError::InvalidArgument));
}

#[test]
fn what_only_compiling_finds_is_an_evaluation_error() {
    let re = PolicyRegex::parse(r"x\p{NoSuchClass}").unwrap();
    assert_eq!(re.is_match("abc"), Ok(false));
    assert_eq!(re.is_match("x"), Err(EvalError::InvalidArgument));
}

#[test]
fn bad_syntax_and_deep_nesting_are_refused_at_parse() {
    assert!(PolicyRegex::parse("(").is_err());
    let deep = format!("{}a{}", "(".repeat(300), ")".repeat(300));
    assert!(PolicyRegex::parse(&deep).is_err());
}

#[test]
fn a_deferred_pattern_is_parsed_on_first_use_and_a_bad_one_is_an_evaluation_error() {
    let re = PolicyRegex::deferred(r"\bterraform\s+apply\b");
    assert!(re.parsed.get().is_none(), "a load parses nothing");
    assert_eq!(re.is_match("ls"), Ok(false));
    assert!(re.parsed.get().is_some() && !re.is_compiled());
    assert_eq!(re.required_literal(), Some("terraform"));
    let deep = format!("{}a{}", "(".repeat(300), ")".repeat(300));
    for bad in ["(", "[z-a]", deep.as_str(), r"(a)\2"] {
        let re = PolicyRegex::deferred(bad);
        assert_eq!(re.pattern(), bad);
        assert_eq!(re.is_match("a"), Err(EvalError::InvalidArgument), "{bad:?}");
        assert_eq!(re.captures("a"), Err(EvalError::InvalidArgument), "{bad:?}");
        assert_eq!(re.required_literal(), None);
        assert!(re.group_count().is_err() && !re.is_backtracking());
        // The same reason as an eager parse gives.
        assert_eq!(
            re.group_names().unwrap_err(),
            PolicyRegex::parse(bad).unwrap_err()
        );
    }
}

fn backtracking(pattern: &str) -> Backtracking {
    match engine(pattern) {
        Ok(Engine::Backtracking(b)) => b,
        other => panic!("{pattern:?}: {other:?}"),
    }
}

#[test]
fn the_engine_is_chosen_from_the_pattern_text() {
    for linear in [
        r"git push",
        r"^a+$",
        r"(a+)+$",
        r"a++",
        r"\bword\b",
        r"(?i)x",
        r"(?<n>a)",
    ] {
        assert_eq!(engine(linear), Ok(Engine::Linear), "{linear:?}");
    }
    let b = backtracking(r"^(?=.*--force)git push");
    assert_eq!(
        (b.construct, b.text.as_str(), b.offset, b.column),
        (Construct::LookAhead, "(?=", 1, 2)
    );
    assert_eq!(b.to_string(), "a look-ahead `(?=` at column 2");
    assert_eq!(
        backtracking(r"a(?!b)").construct,
        Construct::NegativeLookAhead
    );
    assert_eq!(backtracking(r"(?<=a)b").construct, Construct::LookBehind);
    assert_eq!(
        backtracking(r"(?<!sudo )rm").construct,
        Construct::NegativeLookBehind
    );
    let b = backtracking(r"(\w+) \1");
    assert_eq!(
        (b.construct, b.text.as_str(), b.column),
        (Construct::Backreference, r"\1", 7)
    );
    assert_eq!(backtracking(r"(?<w>a)\k<w>").text, r"\k<w>");
    assert_eq!(backtracking(r"(?P<w>a)(?P=w)").text, "(?P=w)");
    let b = backtracking(r"é(?>ab|a)c");
    assert_eq!(
        (b.construct, b.offset, b.column),
        (Construct::AtomicGroup, 2, 2)
    );
    // Only the first construct is named; the rest may be any.
    assert_eq!(
        backtracking(r"(a)\1(?=b)").construct,
        Construct::Backreference
    );
    // Refused: another error first, a construct `fancy-regex` cannot
    // parse, an extension hookc leaves out, a missing group.
    for (bad, reason) in [
        (r"[z-a](?=b)", "class range"),
        (r"x(?=", "parenthesis"),
        (r"(?=a)\K", r"`\K`"),
        (r"(?=a)(?(1)a|b)", "conditional"),
        (r"(a)(?=\g<1>)", "subroutine"),
        (r"(a)\2", "group 2"),
        (r"a\0", "group 0"),
        (r"(?i>a)", "unrecognized flag"),
    ] {
        let err = engine(bad).unwrap_err();
        assert!(err.contains(reason), "{bad:?}: {err}");
        assert!(PolicyRegex::parse(bad).is_err(), "{bad:?}");
        assert!(compile_regex(bad).is_err(), "{bad:?}");
    }
}

#[test]
fn look_around_and_backreferences_match_as_searches() {
    let cases: &[(&str, &str, bool)] = &[
        (r"^(?=.*--force)git push", "git push --force", true),
        (r"^(?=.*--force)git push", "git push", false),
        (r"rm -rf(?! --dry-run)", "rm -rf /", true),
        (r"rm -rf(?! --dry-run)", "rm -rf --dry-run", false),
        (r"(?<!sudo )rm", "sudo rm x", false),
        (r"(?<!sudo )rm", "ls; rm x", true),
        (r"(?<=é)x", "éx", true),
        (r"(?<=ab|c)d", "cd", true),
        (r"(?<=a+)b", "xaab", true),
        (r"\b(\w+) \1\b", "say it it again", true),
        (r"\b(\w+) \1\b", "say it is", false),
        (r"(?<w>日)\k<w>", "x日日", true),
        (r"(?>ab|a)c", "ac", true),
        (r"(?>a|ab)c", "abc", false),
    ];
    for &(pattern, haystack, expect) in cases {
        let re = PolicyRegex::parse(pattern).unwrap();
        assert!(re.is_backtracking(), "{pattern:?}");
        assert_eq!(
            re.is_match(haystack),
            Ok(expect),
            "{pattern:?} on {haystack:?}"
        );
        let compiled = compile_regex(pattern).unwrap();
        assert_eq!(
            compiled.is_match(haystack),
            Ok(expect),
            "{pattern:?} on {haystack:?}"
        );
    }
}

#[test]
fn the_step_limit_stops_a_catastrophic_search_with_an_error() {
    let haystack = format!("{}b", "a".repeat(40));
    let started = std::time::Instant::now();
    // The repetition's body holds a look-ahead, so the backtracking
    // engine explores every split of the `a`s: 2^40 without the limit.
    let re = PolicyRegex::parse(r"^((?=a)a+)+$").unwrap();
    assert_eq!(re.is_match(&haystack), Err(EvalError::RegexStepLimit));
    assert_eq!(re.captures(&haystack), Err(EvalError::RegexStepLimit));
    // An error value through `matches`, like any other.
    let v = super::super::matches(&super::super::Val::Str(haystack.as_str().into()), &re);
    assert!(
        matches!(v, super::super::Val::Error(EvalError::RegexStepLimit)),
        "{v:?}"
    );
    let compiled = compile_regex(r"^((?=a)a+)+$").unwrap();
    assert_eq!(compiled.test(&haystack), Err(EvalError::RegexStepLimit));
    // `fancy-regex` hands a look-ahead with an ordinary body to the
    // linear engine: `^(?=(a+)+$)` answers, quickly.
    let re = PolicyRegex::parse(r"^(?=(a+)+$)").unwrap();
    assert_eq!(re.is_match(&haystack), Ok(false));
    assert_eq!(re.is_match("aaaa"), Ok(true));
    // Quick even unoptimized: four searches of a million steps at most.
    assert!(
        started.elapsed() < std::time::Duration::from_secs(20),
        "{:?}",
        started.elapsed()
    );
    // Well under the limit, the same pattern answers.
    let re = PolicyRegex::parse(r"^((?=a)a+)+$").unwrap();
    assert_eq!(re.is_match("aaaaaaaaaa"), Ok(true));
    assert_eq!(re.is_match("aaaab"), Ok(false));
}

#[test]
fn captures_give_the_first_match_groups_on_both_engines() {
    let caps = |pattern: &str, haystack: &'static str| {
        let re = PolicyRegex::parse(pattern).unwrap();
        let lazy = re.captures(haystack).unwrap();
        let compiled = compile_regex(pattern).unwrap();
        assert_eq!(compiled.captures(haystack).unwrap(), lazy, "{pattern:?}");
        assert_eq!(
            compiled.group_count(),
            re.group_count().unwrap(),
            "{pattern:?}"
        );
        if let Some(groups) = &lazy {
            assert_eq!(groups.len(), re.group_count().unwrap(), "{pattern:?}");
        }
        lazy
    };
    // Linear: nested groups, an optional group that took no part, the
    // leftmost match first, code points.
    assert_eq!(
        caps(r"(\w+)@((\w+)\.(com|org))?", "mail ann@ x@y.org"),
        Some(vec![Some("ann@"), Some("ann"), None, None, None])
    );
    assert_eq!(
        caps(r"(é+)(日)", "aéé日b"),
        Some(vec![Some("éé日"), Some("éé"), Some("日")])
    );
    assert_eq!(
        caps(r"(x)|(y)", "ay"),
        Some(vec![Some("y"), None, Some("y")])
    );
    assert_eq!(caps(r"(a)+", "aaa"), Some(vec![Some("aaa"), Some("a")]));
    assert_eq!(caps(r"z(a)", "abc"), None);
    assert_eq!(caps(r"()", ""), Some(vec![Some(""), Some("")]));
    // Backtracking: the same rules; look-around groups capture too.
    assert_eq!(
        caps(r"(?<=(é))(\w)(?=(x)|(y))", "éay éb"),
        Some(vec![Some("a"), Some("é"), Some("a"), None, Some("y")])
    );
    assert_eq!(
        caps(r"(?<w>\w+) (\k<w>)", "go go"),
        Some(vec![Some("go go"), Some("go"), Some("go")])
    );
    assert_eq!(caps(r"(a)(?!b)", "ab"), None);
    // Counts and names are known from the parse.
    let re = PolicyRegex::parse(r"(?<year>\d+)-(\d+)(?:-(?<day>\d+))?").unwrap();
    assert_eq!(re.group_count(), Ok(4));
    assert_eq!(
        re.group_names().unwrap(),
        [None, Some("year".to_owned()), None, Some("day".to_owned())]
    );
    let re = PolicyRegex::parse(r"(?<a>x)(?=(?<b>y))(z)?").unwrap();
    assert_eq!(re.group_count(), Ok(4));
    assert_eq!(
        re.group_names().unwrap(),
        [None, Some("a".to_owned()), Some("b".to_owned()), None]
    );
    assert_eq!(
        compile_regex(r"(?<a>x)(?=(?<b>y))(z)?")
            .unwrap()
            .group_count(),
        4
    );
    assert_eq!(PolicyRegex::parse("abc").unwrap().group_count(), Ok(1));
    // The prefilter answers for captures too, without compiling.
    let re = PolicyRegex::parse(r"terraform (\w+)").unwrap();
    assert_eq!(re.captures("ls"), Ok(None));
    assert!(!re.is_compiled());
    assert_eq!(
        re.captures("terraform apply"),
        Ok(Some(vec![Some("terraform apply"), Some("apply")]))
    );
}

#[test]
fn both_engines_compile_on_first_use_only() {
    let re = PolicyRegex::parse(r"\bterraform\s+apply\b").unwrap();
    assert!(!re.is_backtracking() && !re.is_compiled());
    let re = PolicyRegex::parse(r"^(?=.*--force)git push").unwrap();
    assert!(re.is_backtracking() && !re.is_compiled());
    assert_eq!(re.group_count(), Ok(1));
    assert_eq!(re.is_match("git push"), Ok(false));
    assert!(re.is_compiled());
    // What only compiling finds is an evaluation error on both.
    let re = PolicyRegex::parse(r"(?=a)\p{NoSuchClass}").unwrap();
    assert_eq!(re.is_match("a"), Err(EvalError::InvalidArgument));
    assert_eq!(re.captures("a"), Err(EvalError::InvalidArgument));
    // The size limit holds for the parts `fancy-regex` hands to `regex`.
    let re = PolicyRegex::parse(r"(?=x)(a{1000}){1000}").unwrap();
    assert_eq!(re.is_match("x"), Err(EvalError::InvalidArgument));
    assert!(compile_regex(r"(?=x)(a{1000}){1000}").is_err());
    assert!(compile_regex(r"(?=x)(a{10}){10}").is_ok());
}

/// Every group `fancy-regex` reports is counted by the parse, on random
/// patterns mixing groups, names and look-around.
#[test]
fn group_counts_of_the_parse_agree_with_the_compiled_regex() {
    let parts = [
        "(a)", "(?:b)", "(?<n>c)", "(?=(d))", "(?<!(e))", "((f)|g)", "(?>(h))", "x", r"\d",
    ];
    let mut next = xorshift(0x2545_f491_4f6c_dd1d);
    for _ in 0..300 {
        let mut pattern = String::new();
        for _ in 0..=next(5) {
            pattern.push_str(parts[next(parts.len() as u64) as usize]);
        }
        // Names must be unique.
        if pattern.matches("(?<n>").count() > 1 {
            continue;
        }
        let Ok(re) = PolicyRegex::parse(&pattern) else {
            panic!("{pattern:?}");
        };
        let compiled = compile_regex(&pattern).unwrap();
        assert_eq!(
            re.group_count().unwrap(),
            compiled.group_count(),
            "{pattern:?}"
        );
    }
}

/// `regex-lite` answers exactly as `regex` on every pattern
/// [`lite_safe`] admits: random patterns of literals (non-ASCII ones
/// too), `.`, classes, anchors, the `s` and `m` flags, groups,
/// counted and open repetitions and alternations, on random haystacks
/// of ASCII and non-ASCII letters, `/` and newlines, whole matches and
/// every group compared; a pattern with a construct the two read
/// differently is refused.
#[test]
fn regex_lite_answers_as_regex_on_the_patterns_it_is_given() {
    let mut next = xorshift(0x2f6b_3a1c_9d4e_8b07);
    let safe = [
        "a",
        "b",
        "é",
        "ß",
        "/",
        r"\.",
        ".",
        "[^/]",
        "[a-c]",
        "[^a]",
        "[é-ü]",
        "^",
        "$",
        r"\A",
        r"\z",
        "(?s)",
        "(?m)",
        "(?s:.)",
        "(a)",
        "(?<n>b)",
        "a{2,3}",
        "[/é]",
        r"\n",
        "(?:ab|é)",
        "x*?",
    ];
    let unsafe_atoms = [
        r"\w",
        r"\d",
        r"\s",
        r"\b",
        r"\B",
        "(?i)a",
        r"\pL",
        "[[:alpha:]]",
        r"[\w]",
        "(?u)",
        "(?x)a",
        "[a&&b]",
    ];
    let letters = ['a', 'b', 'c', 'é', 'ß', 'K', '/', '\n', '.', 'x', 'ü', 'A'];
    let mut compared = 0;
    for round in 0..1500 {
        let mut pattern = String::new();
        for _ in 0..=next(5) {
            let atom = safe[next(safe.len() as u64) as usize];
            let piece = match next(7) {
                0 => format!("(?:{atom})+"),
                1 => format!("({atom})*"),
                2 => format!("({atom}|{})", safe[next(safe.len() as u64) as usize]),
                3 => format!("(?:{atom})?"),
                _ => atom.to_owned(),
            };
            pattern.push_str(&piece);
        }
        let tainted = round % 5 == 0;
        if tainted {
            pattern.push_str(unsafe_atoms[next(unsafe_atoms.len() as u64) as usize]);
        }
        let Ok(ast) = regex_syntax::ast::parse::Parser::new().parse(&pattern) else {
            continue;
        };
        let Ok(full) = regex::Regex::new(&pattern) else {
            continue;
        };
        if tainted {
            assert!(
                !lite_safe(&ast),
                "{pattern:?} holds a construct regex-lite reads otherwise"
            );
            continue;
        }
        assert!(lite_safe(&ast), "{pattern:?}");
        let lite = regex_lite::Regex::new(&pattern).unwrap();
        for _ in 0..30 {
            let haystack: String = (0..next(10))
                .map(|_| letters[next(letters.len() as u64) as usize])
                .collect();
            assert_eq!(
                lite.is_match(&haystack),
                full.is_match(&haystack),
                "{pattern:?} on {haystack:?}"
            );
            let groups = |caps: Option<Vec<Option<(usize, usize)>>>| caps;
            let want = groups(
                full.captures(&haystack)
                    .map(|c| c.iter().map(|m| m.map(|m| (m.start(), m.end()))).collect()),
            );
            let got = groups(
                lite.captures(&haystack)
                    .map(|c| c.iter().map(|m| m.map(|m| (m.start(), m.end()))).collect()),
            );
            assert_eq!(got, want, "{pattern:?} on {haystack:?}");
            compared += 1;
        }
    }
    assert!(compared > 20_000, "{compared}");
}

/// A pattern is searched on `regex-lite` for its first searches of
/// short strings only: past [`LITE_SEARCHES`] searches, or on a longer
/// string, it is compiled on `regex`, and the answers stay the same.
#[test]
fn regex_lite_answers_only_the_first_short_searches() {
    let re = PolicyRegex::parse(r"(?s)\A(?:.*/)?\.env[^/]*\z").unwrap();
    for _ in 0..LITE_SEARCHES {
        assert_eq!(re.is_match("a/.env.local"), Ok(true));
    }
    assert!(
        !re.is_compiled(),
        "the first searches compile nothing on regex"
    );
    assert_eq!(re.is_match("a/.envx/b"), Ok(false));
    assert!(re.is_compiled(), "a later search compiles it");
    let long = PolicyRegex::parse(r"(?s)\A(?:.*/)?\.env[^/]*\z").unwrap();
    let path = format!("{}/.env", "d/".repeat(LITE_HAYSTACK_BYTES));
    assert_eq!(long.is_match(&path), Ok(true));
    assert!(long.is_compiled(), "a long haystack is searched on regex");
    let unicode = PolicyRegex::parse(r"\w+").unwrap();
    assert_eq!(unicode.is_match("é"), Ok(true));
    assert!(
        unicode.is_compiled(),
        "a pattern regex-lite reads otherwise runs on regex"
    );
}

/// A pattern of alternatives with no literal in common is searched
/// only in a haystack holding one of its branches' literals.
#[test]
fn one_of_the_branches_literals_is_required() {
    let key = r"(ghp|gho)_[A-Za-z0-9]{30,}|AKIA[0-9A-Z]{16}|xox[abpr]-[a-z]+|-----BEGIN [A-Z ]*PRIVATE KEY";
    let ast = regex_syntax::ast::parse::Parser::new().parse(key).unwrap();
    let set = one_of_literals(&ast).unwrap();
    assert_eq!(set, ["-----BEGIN ", "AKIA", "gho", "ghp", "xox"]);
    let re = PolicyRegex::parse(key).unwrap();
    assert_eq!(
        re.is_match("cd /work/app && make -j4 build | tee build.log"),
        Ok(false)
    );
    assert_eq!(re.captures("cargo test --locked"), Ok(None));
    assert!(!re.is_compiled());
    assert_eq!(re.is_match("export T=AKIAABCDEFGHIJKLMNOP"), Ok(true));
    for none in [r"a|b?", r"(?i)ab|cd", r"ab|.", r"[ab]|d", "x*|y"] {
        let ast = regex_syntax::ast::parse::Parser::new().parse(none).unwrap();
        assert_eq!(one_of_literals(&ast), None, "{none:?}");
    }
    let ast = regex_syntax::ast::parse::Parser::new()
        .parse(r"169\.254\.169\.254|metadata\.google\.internal")
        .unwrap();
    assert_eq!(one_of_literals(&ast).unwrap().len(), 2);
}

/// The prefilter never changes an answer: random patterns of literals,
/// groups, repetitions, alternations and classes against random
/// haystacks, compared with the compiled regex alone.
#[test]
fn the_prefilter_is_exact_on_random_patterns() {
    let mut next = xorshift(0x9e37_79b9_7f4a_7c15);
    let atoms = [
        "ab", "b", "c", "abc", r"\s", "[ab]", ".", "a", "ca", r"\x61", r"\bc", "(?i)a", "(?:b)",
        "A", "a{2}",
    ];
    let (mut compared, mut ruled_out, mut with_one_of) = (0, 0, 0);
    for _ in 0..2000 {
        let mut pattern = String::new();
        for _ in 0..=next(4) {
            let atom = atoms[next(atoms.len() as u64) as usize];
            let piece = match next(6) {
                0 => format!("({atom})+"),
                1 => format!("({atom})*"),
                2 => format!("({atom}|{})", atoms[next(atoms.len() as u64) as usize]),
                3 => format!("({atom})?"),
                _ => atom.to_owned(),
            };
            pattern.push_str(&piece);
        }
        // Alternatives at the top, whose literals one of which every
        // match holds are tested too (`one_of_literals`).
        if next(3) == 0 {
            let other = atoms[next(atoms.len() as u64) as usize];
            pattern = format!(
                "{pattern}|{other}{}",
                atoms[next(atoms.len() as u64) as usize]
            );
        }
        let lazy = PolicyRegex::parse(&pattern).unwrap();
        // As a loaded format 6 artifact has it: the literals recorded, and
        // the one-of set where there are none.
        let one_of = one_of_literals_in(&pattern);
        with_one_of += usize::from(!one_of.is_empty());
        let recorded = PolicyRegex::with_literals(&pattern, &required_literals(&pattern), &one_of);
        let eager = regex::Regex::new(&pattern).unwrap();
        for _ in 0..20 {
            // `!` shares its bit of a byte set with `a`.
            let haystack: String = (0..next(8))
                .map(|_| ['a', 'b', 'c', ' ', 'A', '!'][next(6) as usize])
                .collect();
            let want = Ok(eager.is_match(&haystack));
            // A byte set that rules the regex out is right to.
            if recorded.surely_lacks(byte_set(&haystack)) {
                assert_eq!(want, Ok(false), "{pattern:?} on {haystack:?}");
                ruled_out += 1;
            }
            assert_eq!(
                lazy.is_match(&haystack),
                want,
                "{pattern:?} on {haystack:?}"
            );
            assert_eq!(
                recorded.is_match(&haystack),
                want,
                "{pattern:?} on {haystack:?}"
            );
            assert_eq!(
                recorded.captures(&haystack).map(|c| c.is_some()),
                want,
                "{pattern:?} on {haystack:?}"
            );
            compared += 1;
        }
    }
    assert_eq!(compared, 40_000);
    // The recorded one-of sets were tested, not only the required literals.
    assert!(
        with_one_of > 100,
        "{with_one_of} patterns with a one-of set"
    );
    assert!(ruled_out > 5_000, "{ruled_out} ruled out by byte sets");
}

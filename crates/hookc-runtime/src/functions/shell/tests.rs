//! Unit tests of the shell parser: each bypass a guard must catch, quoting,
//! compound syntax, here-documents, wrappers, errors and the helpers; and
//! properties (never panics, bounded nesting, quoting round trip).

use super::*;
use proptest::prelude::*;

/// The argv of every command.
fn argvs(src: &str) -> Vec<Vec<String>> {
    let s = parse(src);
    assert!(s.is_valid(), "{src:?}: {:?}", s.error);
    s.commands
        .iter()
        .map(|c| c.argv.iter().map(|a| a.to_string()).collect())
        .collect()
}

/// The programs of every command.
fn programs(src: &str) -> Vec<String> {
    let s = parse(src);
    assert!(s.is_valid(), "{src:?}: {:?}", s.error);
    s.commands.iter().map(|c| c.program.to_string()).collect()
}

fn one(src: &str) -> SimpleCommand<'_> {
    let s = parse(src);
    assert!(s.is_valid(), "{src:?}: {:?}", s.error);
    assert_eq!(s.commands.len(), 1, "{src:?}: {:?}", s.commands);
    s.commands.into_iter().next().unwrap()
}

fn error(src: &str) -> ShellError {
    parse(src).error.unwrap_or_else(|| panic!("{src:?} parsed"))
}

#[test]
fn the_bypasses_all_show_rm() {
    for src in [
        "rm -rf x",
        "cd /tmp && rm -rf x",
        "cd /tmp; rm -rf x",
        "true || rm -rf x",
        "ls | rm -rf x",
        "ls |& rm -rf x",
        "sleep 1 & rm -rf x",
        "ls\nrm -rf x",
        "sudo rm -rf x",
        "sudo -u root -- rm -rf x",
        "bash -c 'rm -rf x'",
        "sh -c \"rm -rf x\"",
        "FOO=1 rm -rf x",
        "\"rm\" -rf x",
        "'rm' -rf x",
        "r\\m -rf x",
        "'r'm -rf x",
        "/bin/rm -rf x",
        "echo $(rm -rf x)",
        "echo `rm -rf x`",
        "(rm -rf x)",
        "{ rm -rf x; }",
        "env FOO=1 rm -rf x",
        "eval 'rm -rf x'",
        "eval rm -rf x",
        "xargs rm -rf < list",
        "find . | xargs -I {} rm -rf {}",
        "nohup rm -rf x &",
        "timeout 5 rm -rf x",
        "command rm -rf x",
        "exec rm -rf x",
        "nice -n 10 rm -rf x",
        "time rm -rf x",
        "/usr/bin/sudo /usr/bin/env rm -rf x",
        "if true; then rm -rf x; fi",
        "while true; do rm -rf x; done",
        "for f in a b; do rm -rf $f; done",
        "case $x in a) rm -rf x;; esac",
        "f() { rm -rf x; }; f",
        "cat <(rm -rf x)",
        "A=$(rm -rf x)",
        "echo \"$(rm -rf x)\"",
        "sudo bash -c 'cd / && rm -rf x'",
        "bash -lc 'rm -rf x'",
        "$'rm' -rf x",
        "echo $((1+1)) && rm -rf x",
        "echo $((cd /; ls) && rm -rf x)",
        "cat <<EOF\n$(rm -rf x)\nEOF",
    ] {
        let s = parse(src);
        assert!(s.is_valid(), "{src:?}: {:?}", s.error);
        assert!(
            s.commands.iter().any(|c| c.program == "rm"),
            "{src:?}: {:?}",
            s.commands
        );
    }
}

/// An unquoted `$IFS` splits words as Bash's default IFS does; quoted, in
/// an assignment's value, or as part of a longer name, it is text.
#[test]
fn ifs_splits_words() {
    for src in [
        "rm${IFS}-rf${IFS}x",
        "rm$IFS-rf$IFS x",
        "${IFS}rm -rf x",
        "rm -rf${IFS}${IFS}x",
    ] {
        assert_eq!(argvs(src), [vec!["rm", "-rf", "x"]], "{src}");
    }
    assert_eq!(argvs("echo a${IFS}"), [vec!["echo", "a"]]);
    assert_eq!(argvs("echo \"a\"$IFS'b'"), [vec!["echo", "a", "b"]]);
    assert_eq!(
        argvs("echo \"$IFS\" '${IFS}'"),
        [vec!["echo", "$IFS", "${IFS}"]]
    );
    assert_eq!(
        argvs("echo $IFSX ${IFS_X}"),
        [vec!["echo", "$IFSX", "${IFS_X}"]]
    );
    // An assignment's value is not split: the command is `-rf x`.
    let c = one("X=1${IFS}rm -rf x");
    assert_eq!(c.argv, ["-rf", "x"]);
    assert_eq!(c.env, [("X".into(), "1${IFS}rm".into())]);
    // Only IFS: no word at all.
    assert_eq!(argvs("ls ${IFS}"), [vec!["ls"]]);
    assert_eq!(programs("bash -c 'rm${IFS}-rf${IFS}/'"), ["rm"]);
}

#[test]
fn quoted_text_is_no_command() {
    for src in [
        "echo \"rm -rf\"",
        "echo 'rm -rf x'",
        "echo rm -rf x",
        "grep -r 'rm -rf' .",
        "echo \\$\\(rm -rf x\\)",
        "echo '$(rm -rf x)'",
        "cat <<'EOF'\n$(rm -rf x)\nEOF",
        "cat <<EOF\nrm -rf x\nEOF",
        "# rm -rf x",
        "echo hi # rm -rf x",
        "echo $((rm + 1))",
        "for rm in a; do echo; done",
        "command -v rm",
    ] {
        let s = parse(src);
        assert!(s.is_valid(), "{src:?}: {:?}", s.error);
        assert!(
            !s.commands.iter().any(|c| c.program == "rm"),
            "{src:?}: {:?}",
            s.commands
        );
    }
}

#[test]
fn substitution_keeps_its_text_in_the_outer_word() {
    assert_eq!(
        argvs("echo $(rm -rf x)"),
        [vec!["rm", "-rf", "x"], vec!["echo", "$(rm -rf x)"]]
    );
    assert_eq!(argvs("echo a`ls`b"), [vec!["ls"], vec!["echo", "a`ls`b"]]);
    assert_eq!(
        argvs("echo \"x $(ls) y\""),
        [vec!["ls"], vec!["echo", "x $(ls) y"]]
    );
    assert_eq!(
        argvs("diff <(ls a) >(wc)"),
        [
            vec!["ls", "a"],
            vec!["wc"],
            vec!["diff", "<(ls a)", ">(wc)"]
        ]
    );
    assert_eq!(
        argvs("echo $(echo $(id))"),
        [
            vec!["id"],
            vec!["echo", "$(id)"],
            vec!["echo", "$(echo $(id))"]
        ]
    );
    assert_eq!(
        argvs("echo `echo \\`id\\``"),
        [
            vec!["id"],
            vec!["echo", "`id`"],
            vec!["echo", "`echo \\`id\\``"]
        ]
    );
    // `)` of a case pattern inside `$(`.
    assert_eq!(argvs("echo $(case x in a) ls;; esac)").len(), 2);
}

#[test]
fn arithmetic_is_a_word() {
    assert_eq!(
        argvs("echo $((1 + (2 * 3)))"),
        [vec!["echo", "$((1 + (2 * 3)))"]]
    );
    assert_eq!(argvs("((i++)); ls"), [vec!["ls"]]);
    assert_eq!(
        argvs("echo $(( $(id -u) + 1 ))"),
        [vec!["id", "-u"], vec!["echo", "$(( $(id -u) + 1 ))"]]
    );
    assert_eq!(argvs("for ((i=0; i<3; i++)); do ls; done"), [vec!["ls"]]);
    // Not arithmetic: a subshell in a substitution.
    assert_eq!(
        argvs("echo $((ls) | wc)"),
        [vec!["ls"], vec!["wc"], vec!["echo", "$((ls) | wc)"]]
    );
    assert_eq!(argvs("((ls) | wc)"), [vec!["ls"], vec!["wc"]]);
}

#[test]
fn quote_removal() {
    assert_eq!(
        argvs(r#"echo "a b" 'c d' e\ f "g\"h" 'i'"j"k"#),
        [vec!["echo", "a b", "c d", "e f", "g\"h", "ijk"]]
    );
    assert_eq!(argvs(r#"echo "\a \$ \` \\""#), [vec!["echo", "\\a $ ` \\"]]);
    assert_eq!(argvs("echo \"a\\\nb\""), [vec!["echo", "ab"]]);
    assert_eq!(argvs("echo a\\\nb"), [vec!["echo", "ab"]]);
    assert_eq!(argvs("ec\\\nho x"), [vec!["echo", "x"]]);
    assert_eq!(argvs("echo '\\n'"), [vec!["echo", "\\n"]]);
    assert_eq!(argvs("echo $\"a b\""), [vec!["echo", "a b"]]);
    assert_eq!(argvs("echo ''"), [vec!["echo", ""]]);
    assert_eq!(argvs("echo \"\""), [vec!["echo", ""]]);
    assert_eq!(argvs("echo é\\ü"), [vec!["echo", "éü"]]);
}

#[test]
fn ansi_c_quotes_are_decoded() {
    assert_eq!(
        argvs(r"echo $'a\nb\t\\\'\x41\101\u00e9\cA\e\q'"),
        [vec!["echo", "a\nb\t\\'AAé\u{1}\u{1b}\\q"]]
    );
    assert_eq!(argvs("$'\\x72m' x"), [vec!["rm", "x"]]);
}

#[test]
fn words_that_need_no_quote_removal_are_borrowed() {
    let c = one("rm -rf 'x y' \"z\" a'b'");
    assert!(
        c.argv.iter().take(4).all(|a| matches!(a, Cow::Borrowed(_))),
        "{:?}",
        c.argv
    );
    assert!(matches!(c.argv[4], Cow::Owned(_)));
    assert!(matches!(c.program, Cow::Borrowed("rm")));
}

#[test]
fn parameters_and_globs_are_kept_as_text() {
    assert_eq!(
        argvs("echo $HOME ${X:-y} ${#a[@]} *.txt ~ '{a,b}' $1"),
        [vec![
            "echo", "$HOME", "${X:-y}", "${#a[@]}", "*.txt", "~", "{a,b}", "$1"
        ]]
    );
    assert_eq!(
        argvs("echo ${X:-$(id)}"),
        [vec!["id"], vec!["echo", "${X:-$(id)}"]]
    );
    assert_eq!(argvs("echo \"${X:-it's}\""), [vec!["echo", "${X:-it's}"]]);
    assert_eq!(argvs("echo ${X:-'}'}"), [vec!["echo", "${X:-'}'}"]]);
}

#[test]
fn comments() {
    assert_eq!(
        argvs("ls # rm\n# rm\necho a#b"),
        [vec!["ls"], vec!["echo", "a#b"]]
    );
    assert_eq!(argvs("echo $# '#'"), [vec!["echo", "$#", "#"]]);
}

#[test]
fn reserved_words_are_structure() {
    assert_eq!(
        programs("if true; then rm -rf /; elif false; then ls; else pwd; fi"),
        ["true", "rm", "false", "ls", "pwd"]
    );
    assert_eq!(programs("until false; do ls; done"), ["false", "ls"]);
    assert_eq!(argvs("for x in a b; do rm $x; done"), [vec!["rm", "$x"]]);
    assert_eq!(
        argvs("for x in $(ls); do rm $x; done"),
        [vec!["ls"], vec!["rm", "$x"]]
    );
    assert_eq!(argvs("for x\ndo\nrm $x\ndone"), [vec!["rm", "$x"]]);
    assert_eq!(
        argvs("select x in a b; do echo $x; done"),
        [vec!["echo", "$x"]]
    );
    assert_eq!(
        programs("case $x in a|b) rm x;; (c) ls ;& *) pwd ;;& esac; echo"),
        ["rm", "ls", "pwd", "echo"]
    );
    assert_eq!(
        programs("case $x in\n  a)\n    rm x\n    ;;\n  *) ls\nesac"),
        ["rm", "ls"]
    );
    assert_eq!(programs("case a in esac; ls"), ["ls"]);
    assert_eq!(
        programs("case a in (a) case b in b) ls;; esac;; esac"),
        ["ls"]
    );
    assert_eq!(
        programs("if a; then if b; then c; fi; fi; { d; }"),
        ["a", "b", "c", "d"]
    );
    assert_eq!(programs("f() { rm -rf /; }"), ["rm"]);
    assert_eq!(programs("function f { rm -rf /; }"), ["rm"]);
    assert_eq!(programs("function f() ( ls )"), ["ls"]);
    assert_eq!(programs("! grep x f && ls"), ["grep", "ls"]);
    assert_eq!(
        programs("time { ls; }; time (pwd); time if a; then b; fi"),
        ["ls", "pwd", "a", "b"]
    );
    assert_eq!(one("time -p ls").wrappers, ["time"]);
    assert_eq!(
        argvs("[[ -f a && $x == \"(\" ]] && ls"),
        [
            vec!["[[", "-f", "a", "&&", "$x", "==", "(", "]]"],
            vec!["ls"]
        ]
    );
    // Reserved only at a command's start and unquoted.
    assert_eq!(argvs("echo if then fi"), [vec!["echo", "if", "then", "fi"]]);
    assert_eq!(argvs("'if' x"), [vec!["if", "x"]]);
    assert_eq!(argvs("echo }"), [vec!["echo", "}"]]);
    assert_eq!(programs("{ ls; } > out"), ["ls", ""]);
}

#[test]
fn assignments_go_to_env() {
    let c = one("A=1 B='x y' C+=z rm x");
    assert_eq!(c.argv, ["rm", "x"]);
    assert_eq!(
        c.env,
        [
            ("A".into(), "1".into()),
            ("B".into(), "x y".into()),
            ("C".into(), "z".into())
        ]
    );
    let s = parse("A=$(rm x)");
    assert_eq!(s.commands.len(), 2);
    assert_eq!(s.commands[0].program, "rm");
    assert!(s.commands[1].argv.is_empty() && s.commands[1].program.is_empty());
    assert_eq!(s.commands[1].env, [("A".into(), "$(rm x)".into())]);
    assert_eq!(argvs("ls A=1"), [vec!["ls", "A=1"]]);
    assert_eq!(argvs("export A=1"), [vec!["export", "A=1"]]);
    let s = parse("a=(1 2 $(id)) ls");
    assert_eq!(programs_of(&s), ["id", "ls"]);
    assert_eq!(s.commands[1].env, [("a".into(), "(1 2 $(id))".into())]);
    assert_eq!(one("'A'=1 ls").argv, ["A=1", "ls"]);
    assert_eq!(one("1A=1").argv, ["1A=1"]);
}

#[test]
fn redirections() {
    let c = one("cmd >out 2>&1 <in >>log &>all &>>alll >|clob 3<>rw 4<&0 <<<'here str'");
    let r: Vec<(Option<u32>, &str, &str)> = c
        .redirects
        .iter()
        .map(|r| (r.fd, r.op.as_str(), &*r.target))
        .collect();
    assert_eq!(
        r,
        [
            (None, ">", "out"),
            (Some(2), ">&", "1"),
            (None, "<", "in"),
            (None, ">>", "log"),
            (None, "&>", "all"),
            (None, "&>>", "alll"),
            (None, ">|", "clob"),
            (Some(3), "<>", "rw"),
            (Some(4), "<&", "0"),
            (None, "<<<", "here str"),
        ]
    );
    assert_eq!(c.argv, ["cmd"]);
    assert_eq!(one("echo 2 > '/tmp/a b'").argv, ["echo", "2"]);
    assert_eq!(one("echo 99999999999>x").argv, ["echo", "99999999999"]);
    let c = one("> f");
    assert!(c.argv.is_empty() && c.redirects.len() == 1);
    assert_eq!(error("echo >"), ShellError::MissingRedirectTarget { at: 5 });
    assert_eq!(
        error("echo > ;"),
        ShellError::MissingRedirectTarget { at: 5 }
    );
}

#[test]
fn heredocs() {
    assert_eq!(
        argvs("cat <<EOF > f\nrm -rf /\n  EOF\nEOF\nls"),
        [vec!["cat"], vec!["ls"]]
    );
    assert_eq!(
        argvs("cat <<-EOF\n\trm\n\tEOF\nls"),
        [vec!["cat"], vec!["ls"]]
    );
    assert_eq!(
        argvs("cat <<'E F'\n$(rm)\nE F\nls"),
        [vec!["cat"], vec!["ls"]]
    );
    assert_eq!(argvs("cat <<\"EOF\"\n`rm`\nEOF"), [vec!["cat"]]);
    assert_eq!(argvs("cat <<E\\OF\n$(rm)\nEOF"), [vec!["cat"]]);
    assert_eq!(
        argvs("cat <<EOF\n$(rm x) `id`\nEOF"),
        [vec!["cat"], vec!["rm", "x"], vec!["id"]]
    );
    // Two on one line, bodies in order; a pipe after the operator.
    assert_eq!(
        argvs("cat <<A <<B | wc\na\nA\nb\nB\nls"),
        [vec!["cat"], vec!["wc"], vec!["ls"]]
    );
    // Inside a substitution.
    assert_eq!(
        argvs("x=$(cat <<EOF\nrm\nEOF\n); ls"),
        [vec!["cat"], vec![], vec!["ls"]]
    );
    assert_eq!(one("cat <<EOF\nEOF").redirects[0].target, "EOF");
    // The last line may end without a newline.
    assert_eq!(argvs("cat <<EOF\nx\nEOF"), [vec!["cat"]]);
    assert!(
        matches!(error("cat <<EOF\nrm\n"), ShellError::UnterminatedHeredoc { at: 4, ref delimiter } if delimiter == "EOF")
    );
    assert!(matches!(
        error("cat <<EOF"),
        ShellError::UnterminatedHeredoc { .. }
    ));
}

#[test]
fn wrappers_are_unwrapped_and_recorded() {
    let c = one("sudo -u root -g wheel --chdir /tmp -E FOO=1 env -i -u X BAR=2 nice -n 5 nohup timeout -s KILL 10s rm -rf x");
    assert_eq!(c.argv, ["rm", "-rf", "x"]);
    assert_eq!(c.wrappers, ["sudo", "env", "nice", "nohup", "timeout"]);
    assert_eq!(
        c.env,
        [("FOO".into(), "1".into()), ("BAR".into(), "2".into())]
    );
    assert_eq!(one("sudo -uroot rm").argv, ["rm"]);
    assert_eq!(one("xargs -0 -n1 -P 4 -I{} rm {}").argv, ["rm", "{}"]);
    assert_eq!(one("xargs -i rm {}").argv, ["rm", "{}"]);
    assert_eq!(one("xargs --max-args 1 --null rm").argv, ["rm"]);
    assert_eq!(one("exec -a name -c rm").argv, ["rm"]);
    assert_eq!(one("nice -10 rm").argv, ["rm"]);
    assert_eq!(one("time -p rm").argv, ["rm"]);
    assert_eq!(one("stdbuf -oL -e 0 grep x").argv, ["grep", "x"]);
    assert_eq!(one("command -p rm").argv, ["rm"]);
    assert_eq!(one("builtin echo").argv, ["echo"]);
    assert_eq!(one("chroot /mnt rm").argv, ["rm"]);
    assert_eq!(one("doas -u root rm").argv, ["rm"]);
    // Multi-call binaries run their applet, a shell's script included.
    let c = one("busybox rm -rf /");
    assert_eq!(
        (c.argv.clone(), c.wrappers.clone()),
        (
            vec!["rm".into(), "-rf".into(), "/".into()],
            vec!["busybox".into()]
        )
    );
    assert_eq!(one("/bin/toybox rm -rf x").argv, ["rm", "-rf", "x"]);
    assert_eq!(
        one("busybox sh -c 'rm -rf x'").wrappers,
        ["busybox", "sh -c"]
    );
    // Queries and wrappers with nothing to run stay.
    for src in [
        "command -v rm",
        "command -V rm",
        "sudo -l rm",
        "sudo",
        "sudo -s",
        "env",
        "env A=1",
        "xargs",
        "timeout 5",
        "nohup",
        "ionice -p 1",
        "busybox",
        "busybox --list",
        "busybox --install /bin",
        "toybox --help",
    ] {
        let c = one(src);
        assert!(c.wrappers.is_empty(), "{src}: {c:?}");
        assert_eq!(c.argv.len(), src.split(' ').count(), "{src}");
    }
}

/// The fast test every command passes through names exactly the programs
/// the tables unwrap.
#[test]
fn is_wrapper_names_every_unwrapped_program() {
    for program in [
        "sudo", "doas", "env", "command", "builtin", "exec", "nice", "nohup", "setsid", "timeout",
        "time", "stdbuf", "ionice", "chroot", "busybox", "toybox", "xargs", "bash", "sh", "zsh",
        "dash", "ksh", "mksh", "ash", "fish", "su", "eval",
    ] {
        assert!(super::unwrap::is_wrapper(program), "{program}");
        assert!(super::unwrap::unwraps(program), "{program}");
    }
    for program in ["rm", "git", "python", "ssh", "watch"] {
        assert!(!super::unwrap::is_wrapper(program), "{program}");
        assert!(!super::unwrap::unwraps(program), "{program}");
    }
}

#[test]
fn find_exec_lists_the_commands_find_runs() {
    let s = parse("sudo find . -name '*.o' -exec rm -f {} \\; -execdir sh -c 'ls; id' \\; -ok env A=1 rm {} +");
    assert!(s.is_valid());
    let got: Vec<(String, Vec<&str>)> = s
        .commands
        .iter()
        .map(|c| (c.argv.join(" "), c.wrappers.iter().map(|w| &**w).collect()))
        .collect();
    assert_eq!(got[0].1, ["sudo"]);
    assert!(got[0].0.starts_with("find . -name *.o -exec rm"));
    assert_eq!(got[1], ("rm -f {}".into(), vec!["sudo", "find -exec"]));
    assert_eq!(got[2], ("ls".into(), vec!["sudo", "find -exec", "sh -c"]));
    assert_eq!(got[3], ("id".into(), vec!["sudo", "find -exec", "sh -c"]));
    assert_eq!(got[4], ("rm {}".into(), vec!["sudo", "find -exec", "env"]));
    assert_eq!(got.len(), 5);
    assert_eq!(programs("find . -exec"), ["find"]);
    assert_eq!(programs("find . -delete"), ["find"]);
    // `find -exec find -exec ...` nests; bounded like everything else.
    // A copy each level: too deep or too large, never quadratic.
    let deep = "find -exec ".repeat(100_000);
    assert!(matches!(
        parse(&deep).error,
        Some(ShellError::NestingTooDeep | ShellError::TooLarge)
    ));
    let many = format!("{}rm", "sudo ".repeat(MAX_NESTING));
    assert_eq!(one(&many).wrappers.len(), MAX_NESTING);
    let wide = format!(
        "sudo {}bash -c '{}'",
        "A=1 ".repeat(50_000),
        "ls;".repeat(50_000)
    );
    assert_eq!(parse(&wide).error, Some(ShellError::TooLarge));
    let wide = format!("find {}", "-exec ls {} + ".repeat(100_000));
    assert!(parse(&wide).is_valid());
    let deep = format!("{}rm", "sudo ".repeat(200_000));
    assert_eq!(parse(&deep).error, Some(ShellError::NestingTooDeep));
}

#[test]
fn as_written_unwraps_nothing() {
    let s = parse_as_written("sudo -u root env A=1 bash -c 'rm x' | xargs eval ls");
    assert!(s.is_valid());
    let argvs: Vec<Vec<&str>> = s
        .commands
        .iter()
        .map(|c| c.argv.iter().map(|a| &**a).collect())
        .collect();
    assert_eq!(
        argvs,
        [
            vec!["sudo", "-u", "root", "env", "A=1", "bash", "-c", "rm x"],
            vec!["xargs", "eval", "ls"]
        ]
    );
    assert!(s.commands.iter().all(|c| c.wrappers.is_empty()));
    assert_eq!(s.commands[0].program, "sudo");
    // Substitutions are still parsed.
    assert_eq!(parse_as_written("sudo echo $(id)").commands.len(), 2);
}

#[test]
fn scripts_are_parsed_recursively() {
    let s = parse("sudo FOO=1 bash -c 'cd / && rm -rf x' > log");
    assert!(s.is_valid());
    assert_eq!(s.commands.len(), 2);
    for c in &s.commands {
        assert_eq!(c.wrappers, ["sudo", "bash -c"]);
        assert_eq!(c.env, [("FOO".into(), "1".into())]);
        assert_eq!(c.redirects[0].target, "log");
    }
    assert_eq!(argvs("bash -e -o pipefail -c 'ls' name arg"), [vec!["ls"]]);
    assert_eq!(argvs("sh -c -- 'ls'"), [vec!["ls"]]);
    assert_eq!(argvs("bash script.sh"), [vec!["bash", "script.sh"]]);
    assert_eq!(argvs("bash -c"), [vec!["bash", "-c"]]);
    assert_eq!(argvs("eval \"ls; id\""), [vec!["ls"], vec!["id"]]);
    assert_eq!(one("eval").argv, ["eval"]);
    assert_eq!(one("su -c 'rm x' root").wrappers, ["su -c"]);
    assert_eq!(one("su root --command='rm x'").argv, ["rm", "x"]);
    assert_eq!(one("env -S 'rm -rf x'").wrappers, ["env -S"]);
    assert_eq!(one("env -S'rm -rf x'").argv, ["rm", "-rf", "x"]);
    assert_eq!(one("env --split-string='rm x'").argv, ["rm", "x"]);
    assert_eq!(
        one("bash -c 'bash -c \"sudo rm x\"'").wrappers,
        ["bash -c", "bash -c", "sudo"]
    );
    assert_eq!(one("zsh -c 'xargs rm'").wrappers, ["zsh -c", "xargs"]);
    assert_eq!(one("eval 'rm \"a b\"'").argv, ["rm", "a b"]);
    // An error inside the script is the command string's error.
    assert!(matches!(
        error("bash -c 'echo \"'"),
        ShellError::UnterminatedQuote { quote: '"', .. }
    ));
}

#[test]
fn errors_keep_what_came_before() {
    let s = parse("ls; echo 'oops");
    assert_eq!(
        s.error,
        Some(ShellError::UnterminatedQuote { at: 9, quote: '\'' })
    );
    assert!(!s.is_valid());
    assert_eq!(s.commands.len(), 1);
    assert_eq!(
        error("echo \"x"),
        ShellError::UnterminatedQuote { at: 5, quote: '"' }
    );
    assert_eq!(
        error("echo $'x"),
        ShellError::UnterminatedQuote { at: 5, quote: '\'' }
    );
    assert_eq!(
        error("echo $(ls"),
        ShellError::UnterminatedSubstitution { at: 5 }
    );
    assert_eq!(
        error("echo `ls"),
        ShellError::UnterminatedSubstitution { at: 5 }
    );
    assert_eq!(
        error("echo ${X"),
        ShellError::UnterminatedSubstitution { at: 5 }
    );
    assert_eq!(
        error("echo $((1"),
        ShellError::UnterminatedSubstitution { at: 5 }
    );
    assert_eq!(error("(ls"), ShellError::UnbalancedParen { at: 0 });
    assert_eq!(error("ls)"), ShellError::UnbalancedParen { at: 2 });
    assert_eq!(error("echo (x)"), ShellError::UnbalancedParen { at: 5 });
    assert_eq!(error("f ( x"), ShellError::UnbalancedParen { at: 2 });
    assert_eq!(error("a=(1 2"), ShellError::UnbalancedParen { at: 2 });
    assert_eq!(
        error("echo `echo \\`ls`"),
        ShellError::UnterminatedSubstitution { at: 5 }
    );
    assert_eq!(
        error("if true; then ls"),
        ShellError::UnbalancedCompound {
            at: 0,
            keyword: "if"
        }
    );
    assert_eq!(
        error("ls; fi"),
        ShellError::UnbalancedCompound {
            at: 4,
            keyword: "fi"
        }
    );
    assert_eq!(
        error("while x; do ls; fi"),
        ShellError::UnbalancedCompound {
            at: 16,
            keyword: "fi"
        }
    );
    assert_eq!(
        error("f() { ls }"),
        ShellError::UnbalancedCompound {
            at: 4,
            keyword: "{"
        }
    );
    assert_eq!(
        error("case x in a) ls;;"),
        ShellError::UnbalancedCompound {
            at: 0,
            keyword: "case"
        }
    );
    assert_eq!(
        error("for x in a; do ls"),
        ShellError::UnbalancedCompound {
            at: 0,
            keyword: "for"
        }
    );
    assert_eq!(
        error("echo $(if x; then ls)"),
        ShellError::UnbalancedCompound {
            at: 7,
            keyword: "if"
        }
    );
    assert_eq!(
        error("ls && [[ -f x"),
        ShellError::UnbalancedCompound {
            at: 6,
            keyword: "[["
        }
    );
    assert_eq!(error("f();"), ShellError::MissingFunctionBody { at: 1 });
    assert_eq!(error("f()"), ShellError::MissingFunctionBody { at: 1 });
    assert_eq!(error("f() ls"), ShellError::MissingFunctionBody { at: 1 });
    assert_eq!(
        error("function f"),
        ShellError::MissingFunctionBody { at: 9 }
    );
    assert_eq!(programs("f()\n{\nls\n}"), ["ls"]);
    assert_eq!(programs("function f () ( ls ); f"), ["ls", "f"]);
    assert_eq!(programs("f() if a; then b; fi"), ["a", "b"]);
    let s = parse("ls; rm $(id");
    assert_eq!(programs_of(&s), ["ls", "id"]);
    for e in [error("echo 'x"), error("(("), error(&"$(".repeat(40))] {
        assert!(!e.to_string().is_empty());
    }
}

fn programs_of(s: &ShellScript<'_>) -> Vec<String> {
    s.commands.iter().map(|c| c.program.to_string()).collect()
}

#[test]
fn nesting_is_bounded() {
    let ok = format!("{}ls{}", "$(".repeat(MAX_NESTING), ")".repeat(MAX_NESTING));
    assert!(parse(&ok).is_valid());
    let deep = format!(
        "{}ls{}",
        "$(".repeat(MAX_NESTING + 1),
        ")".repeat(MAX_NESTING + 1)
    );
    assert_eq!(parse(&deep).error, Some(ShellError::NestingTooDeep));
    let ok = format!("{}ls{}", "( ".repeat(MAX_NESTING), " )".repeat(MAX_NESTING));
    assert_eq!(argvs(&ok), [vec!["ls"]]);
    let mut script = "rm".to_owned();
    for _ in 0..MAX_NESTING + 1 {
        script = format!("eval {}", quote(&script));
    }
    assert_eq!(parse(&script).error, Some(ShellError::NestingTooDeep));
    for big in [
        "(".repeat(1 << 20),
        "$(".repeat(1 << 19),
        "${".repeat(1 << 19),
        "$((".repeat(300_000),
        "`".repeat((1 << 20) + 1),
        "((".repeat(1 << 19),
    ] {
        assert!(!parse(&big).is_valid());
    }
}

#[test]
fn large_flat_inputs_are_linear() {
    // 1 MB of commands, 1 MB of one word, 1 MB of heredoc body.
    let many = "ls -l a; ".repeat(120_000);
    assert_eq!(parse(&many).commands.len(), 120_000);
    let word = "a".repeat(1 << 20);
    assert_eq!(parse(&word).commands.len(), 1);
    let body = format!("cat <<EOF\n{}EOF\n", "x $y\n".repeat(200_000));
    assert!(parse(&body).is_valid());
    let escaped = "\\a".repeat(500_000);
    assert_eq!(parse(&escaped).commands[0].argv[0].len(), 500_000);
}

#[test]
fn json_shape() {
    let s = parse("A=1 A=2 sudo rm -rf x 2>/dev/null");
    assert_eq!(
        s.to_json(),
        serde_json::json!([{
            "argv": ["rm", "-rf", "x"],
            "program": "rm",
            "env": {"A": "2"},
            "redirects": [{"fd": 2, "op": ">", "target": "/dev/null"}],
            "wrappers": ["sudo"],
            "pipedFrom": "",
            "code": "",
            "codeFrom": "",
            "dynamic": false,
            "dir": "",
            "paths": ["x", "/dev/null"]
        }])
    );
    assert_eq!(parse("").to_json(), serde_json::json!([]));
    assert_eq!(
        parse("> f").to_json()[0]["redirects"][0]["fd"],
        serde_json::Value::Null
    );
}

#[test]
fn has_flag_spellings() {
    let argv = [
        "rm",
        "-rf",
        "--no-preserve-root",
        "--interactive=never",
        "-v",
        "--",
        "-x",
    ];
    assert!(has_flag(&argv, "r", "recursive"));
    assert!(has_flag(&argv, "f", "force"));
    assert!(has_flag(&argv, "v", ""));
    assert!(has_flag(&argv, "", "no-preserve-root"));
    assert!(has_flag(&argv, "", "interactive"));
    assert!(!has_flag(&argv, "", "interact"));
    assert!(!has_flag(&argv, "x", ""), "after --");
    assert!(!has_flag(&argv, "R", "recursive"));
    assert!(!has_flag(&argv, "", ""));
    assert!(has_flag(&["rm", "-R"], "R", "recursive"));
    assert!(has_flag(&["rm", "--recursive"], "r", "recursive"));
    assert!(!has_flag(&["rm", "-recursive"], "", "recursive"));
    assert!(has_flag(&["find", ".", "-name", "x"], "name", ""));
    assert!(!has_flag(&["find", ".", "-namex"], "name", ""));
    assert!(has_flag(&["x", "-rf"], "rf", ""), "spelled exactly");
    assert!(
        !has_flag(&["x", "-fr"], "rf", ""),
        "no multi-letter cluster rule"
    );
    // A value attached to the cluster's last letter: the letters before it
    // are flags, the value is not.
    assert!(has_flag(&["head", "-n5"], "n", ""));
    assert!(!has_flag(&["head", "-n5"], "5", ""));
    assert!(has_flag(&["sed", "-i.bak", "s/a/b/"], "i", "in-place"));
    assert!(has_flag(&["sed", "-ni.bak", "p"], "i", "in-place"));
    assert!(!has_flag(&["sed", "-e.i", "p"], "i", "in-place"));
    assert!(has_flag(&["tar", "-xzf-"], "f", "file"));
    assert!(!has_flag(&["rm", "-rf"], "-", ""));
    assert!(!has_flag(&["-f"], "f", ""), "argv[0] is the program");
    assert!(has_flag(
        &parse("rm -r -f x").commands[0].argv,
        "f",
        "force"
    ));
}

#[test]
fn argv_prefix_is_elementwise() {
    assert!(argv_prefix(&["git", "push", "-f"], &["git", "push"]));
    assert!(argv_prefix(&["git"], &[] as &[&str]));
    assert!(!argv_prefix(&["git", "pushx"], &["git", "push"]));
    assert!(!argv_prefix(&["git"], &["git", "push"]));
    assert!(argv_prefix(
        &parse("git push").commands[0].argv,
        &["git", "push"]
    ));
}

#[test]
fn argv_prefix_reads_past_gits_global_options() {
    let starts = |src: &str, prefix: &[&str]| argv_prefix(&parse(src).commands[0].argv, prefix);
    for src in [
        "git -C . push --force",
        "git -C /repo -c user.name=x push",
        "git --git-dir=.git --work-tree . push",
        "git --no-pager -p push",
        "git -Crepo push",
        "git -- push",
    ] {
        assert!(starts(src, &["git", "push"]), "{src}");
        assert!(!starts(src, &["git", "pull"]), "{src}");
    }
    // The options' values are not the subcommand.
    assert!(!starts("git -C push status", &["git", "push"]));
    assert!(starts("git -C push status", &["git", "status"]));
    // The program is the one named, run by its path too (as its
    // `program`), but a path named must be the path run; a prefix of the
    // program alone is the plain test.
    assert!(starts("/usr/bin/git -C . push", &["git", "push"]));
    assert!(starts("/usr/bin/git push", &["git", "push"]));
    assert!(starts("sudo /usr/bin/git push -f", &["git", "push"]));
    assert!(!starts("/usr/bin/git push", &["/bin/git", "push"]));
    assert!(!starts("/usr/bin/gitx push", &["git", "push"]));
    assert!(starts("git -C . push", &["git"]));
    assert!(!starts("git -C .", &["git", "push"]));
    // Only programs with a table entry.
    assert!(!starts("npm -g install", &["npm", "install"]));
}

/// `word` single-quoted for the shell.
fn quote(word: &str) -> String {
    format!("'{}'", word.replace('\'', "'\\''"))
}

/// Text made of shell-ish pieces.
fn shellish() -> impl Strategy<Value = String> {
    let piece = prop::sample::select(vec![
        "'",
        "\"",
        "$(",
        "$((",
        "${",
        ")",
        "(",
        "`",
        "<<",
        "<<-",
        "EOF",
        "\n",
        "\\",
        " ",
        "|",
        "&&",
        ";",
        ";;",
        "case",
        "in",
        "esac",
        "for",
        "do",
        "done",
        "if",
        "then",
        "fi",
        "{",
        "}",
        "[[",
        "]]",
        "$'",
        "\\n",
        "a",
        "rm",
        "bash -c",
        "eval",
        "sudo",
        "=",
        "A=",
        "<(",
        ">",
        "2>&1",
        "#",
        "\t",
        "é",
        "find -exec",
        "\\;",
        "f()",
        "function",
        "env -S",
        "xargs",
        "su -c",
        "((",
        "))",
        "!",
    ]);
    prop::collection::vec(piece, 0..40).prop_map(|v| v.concat())
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 512, ..ProptestConfig::default() })]

    #[test]
    fn never_panics_on_any_text(s in ".{0,200}") {
        let script = parse(&s);
        let _ = script.to_json();
    }

    #[test]
    fn never_panics_on_shellish_text(s in shellish()) {
        let script = parse(&s);
        let _ = script.to_json();
        // Unwrapping only adds the errors of the scripts it parses.
        prop_assert!(!script.is_valid() || parse_as_written(&s).is_valid(), "{:?}", s);
        for c in &script.commands {
            let first = c.argv.first().map_or("", |a| a.rsplit('/').next().unwrap_or(a));
            prop_assert_eq!(&*c.program, first);
        }
        if let Some(e) = script.error {
            let _ = e.to_string();
        }
    }

    #[test]
    fn quoted_words_round_trip(words in prop::collection::vec(".{0,12}", 1..8)) {
        let src = words.iter().map(|w| quote(w)).collect::<Vec<_>>().join(" ");
        let script = parse(&src);
        prop_assert!(script.is_valid(), "{:?}: {:?}", src, script.error);
        prop_assert_eq!(script.commands.len(), 1);
        let argv: Vec<String> = script.commands[0].argv.iter().map(|a| a.to_string()).collect();
        // Only the first word may be taken as a wrapper or an assignment:
        // compare from the second when it is one.
        let c = &script.commands[0];
        if c.wrappers.is_empty() && c.env.is_empty() {
            prop_assert_eq!(argv, words);
        }
    }

    #[test]
    fn escaped_words_round_trip(words in prop::collection::vec("[^\n]{1,12}", 1..8)) {
        // Every character backslash-escaped: `\x` is `x` outside quotes.
        let src = words
            .iter()
            .map(|w| w.chars().map(|c| format!("\\{c}")).collect::<String>())
            .collect::<Vec<_>>()
            .join(" ");
        let script = parse(&src);
        prop_assert!(script.is_valid(), "{:?}: {:?}", src, script.error);
        let c = &script.commands[0];
        let argv: Vec<String> = c.argv.iter().map(|a| a.to_string()).collect();
        prop_assert_eq!(argv, words);
    }
}

#[test]
fn braces_expand_unquoted() {
    assert_eq!(argvs("rm -{r,f} /"), [vec!["rm", "-r", "-f", "/"]]);
    assert_eq!(argvs("{rm,-rf,/}"), [vec!["rm", "-rf", "/"]]);
    assert_eq!(
        argvs("cat ~/.{ssh,x}/id_rsa"),
        [vec!["cat", "~/.ssh/id_rsa", "~/.x/id_rsa"]]
    );
    assert_eq!(
        argvs("echo '{a,b}' \"{c,d}\" \\{e,f}"),
        [vec!["echo", "{a,b}", "{c,d}", "{e,f}"]]
    );
    assert_eq!(argvs("echo a{1..3}"), [vec!["echo", "a1", "a2", "a3"]]);
    // Structure and find's `{}` are no expansion; an assignment is none.
    assert_eq!(programs("{ ls; }"), ["ls"]);
    assert_eq!(argvs("find . -exec rm {} +")[1], ["rm", "{}"]);
    assert_eq!(one("X={a,b} ls").env[0].1, "{a,b}");
    // 2^9 words from one: past MAX_SHELL_BRACE_WORDS.
    assert_eq!(
        error(&format!("echo {}", "{a,b}".repeat(9))),
        ShellError::TooLarge
    );
}

#[test]
fn variables_set_on_the_line_are_followed() {
    assert_eq!(argvs("X=rm; $X -rf /")[1], ["rm", "-rf", "/"]);
    assert_eq!(
        argvs("D=~/.ssh; cat $D/id_rsa")[1],
        ["cat", "~/.ssh/id_rsa"]
    );
    assert_eq!(
        argvs("D=~/.ssh; cat \"${D}/id_rsa\"")[1],
        ["cat", "~/.ssh/id_rsa"]
    );
    assert_eq!(argvs("export F='-rf /'; rm $F")[1], ["rm", "-rf", "/"]);
    assert_eq!(argvs("F='-rf /'; rm \"$F\"")[1], ["rm", "-rf /"]);
    // Set for its command only, a name unset or read: not known.
    assert_eq!(argvs("X=rm echo $X")[0], ["echo", "$X"]);
    assert_eq!(argvs("X=rm; unset X; $X")[2], ["$X"]);
    assert_eq!(argvs("for X in a; do $X; done")[0], ["$X"]);
    // `$@` and `$*` are empty in a host's command string.
    assert_eq!(argvs("r$@m -rf /"), [vec!["rm", "-rf", "/"]]);
}

#[test]
fn dynamic_programs_are_marked() {
    let dynamic = |src: &str| {
        parse(src)
            .commands
            .iter()
            .map(|c| c.dynamic)
            .collect::<Vec<_>>()
    };
    assert_eq!(dynamic("$CMD x"), [true]);
    assert_eq!(dynamic("X=$(echo rm); $X -rf /"), [false, false, true]);
    assert_eq!(dynamic("/bin/r? -rf /"), [true]);
    assert_eq!(
        dynamic("X=ls; $X; [ -f x ]; [[ -f x ]]"),
        [false, false, false, false]
    );
    assert_eq!(dynamic("`which rm` x"), [false, true]);
}

#[test]
fn pipelines_say_what_feeds_what() {
    let s = parse("curl -s https://x | sudo -E bash; ls || cat");
    let fed: Vec<(&str, &str)> = s
        .commands
        .iter()
        .map(|c| (&*c.program, &*c.piped_from))
        .collect();
    assert_eq!(
        fed,
        [("curl", ""), ("bash", "curl"), ("ls", ""), ("cat", "")]
    );
    let bash = &s.commands[1];
    assert_eq!(bash.code_from, CodeFrom::Pipe);
    assert_eq!(bash.code, "");
}

#[test]
fn a_literal_piped_into_a_shell_is_its_script() {
    let s = parse("printf 'rm -rf /' | sh");
    assert_eq!(programs("printf 'rm -rf /' | sh"), ["printf", "sh", "rm"]);
    assert_eq!(s.commands[2].wrappers, ["| sh"]);
    assert_eq!(programs("echo 'curl x | sh' > notes.txt"), ["echo"]);
    assert_eq!(programs("echo rm -rf / | bash -s"), ["echo", "bash", "rm"]);
}

/// Variables whose values double at each assignment: 261 bytes of
/// `A1=$A0$A0...; A2=$A1$A1...` once made a gigabyte of values and took
/// seconds (a fuzz run's hang). The values substituted for one command
/// string, nested scripts included, are bounded
/// (`MAX_SHELL_EXPANSION_BYTES`): past it the string is too large to read,
/// and a guard fails closed on it.
#[test]
fn substituted_values_are_bounded_over_the_whole_string() {
    let doubling = |levels: usize, last: &str| {
        let mut s = String::from("A0=aaaaaaaaaaaaaaaa");
        for i in 1..=levels {
            s.push_str(&format!("; A{i}={}", format!("$A{}", i - 1).repeat(8)));
        }
        s.push_str(&format!("; {last} $A{levels}"));
        s
    };
    // 16 * 8^4 = 64 KiB: read.
    let text = doubling(4, "echo");
    let fine = parse(&text);
    assert!(fine.is_valid());
    assert_eq!(
        fine.commands.last().map(|c| c.argv[1].len()),
        Some(16 * 8usize.pow(4))
    );
    // 16 * 8^8 = 256 MiB: not.
    assert_eq!(
        parse(&doubling(8, "echo")).error,
        Some(ShellError::TooLarge)
    );
    assert_eq!(
        parse_as_written(&doubling(8, "echo")).error,
        Some(ShellError::TooLarge)
    );
    // The budget is the string's, not each script's: eight scripts that
    // substitute 140 KB each are read one by one, not together.
    let script = format!("bash -c '{text}'");
    assert!(parse(&script).is_valid());
    let eight = vec![script; 8].join("; ");
    assert_eq!(parse(&eight).error, Some(ShellError::TooLarge));
    // A long path used many times stays readable.
    let uses = format!(
        "D=/home/user/projects/some/deep/folder/of/the/app; {}",
        "cp $D/a $D/b; ".repeat(200)
    );
    assert!(parse(&uses).is_valid());
}

#[test]
fn heredocs_and_here_strings_feed_their_interpreter() {
    let s = parse("bash <<'EOF'\nrm -rf /\nEOF\nls");
    assert_eq!(
        programs("bash <<'EOF'\nrm -rf /\nEOF\nls"),
        ["bash", "rm", "ls"]
    );
    assert_eq!(s.commands[0].code, "rm -rf /\n");
    assert_eq!(s.commands[0].code_from, CodeFrom::Heredoc);
    assert_eq!(s.commands[1].wrappers, ["sh <<"]);
    assert_eq!(programs("sudo sh <<< 'rm -rf /'"), ["sh", "rm"]);
    assert_eq!(
        parse("sudo sh <<< 'rm -rf /'").commands[1].wrappers,
        ["sudo", "sh <<<"]
    );
    let py = parse("python3 - <<EOF\nimport os\nEOF");
    assert_eq!(py.commands[0].code, "import os\n");
    assert_eq!(py.commands[0].code_from, CodeFrom::Heredoc);
    // A heredoc into a program that is no interpreter is data.
    let cat = parse("cat > f <<EOF\nrm -rf /\nEOF");
    assert_eq!(programs("cat > f <<EOF\nrm -rf /\nEOF"), ["cat"]);
    assert_eq!(cat.commands[0].code, "");
    assert_eq!(programs("bash <<-EOF\n\trm -rf /\n\tEOF"), ["bash", "rm"]);
}

/// The substitutions of a body whose delimiter is not quoted run in the
/// shell of the line, before the shell the body feeds reads it: single
/// quotes do not quote there (a fuzz finding: the body parsed only as the
/// inner shell's script hid `rm`, and a backquote left open there was no
/// error).
#[test]
fn a_heredoc_body_into_a_shell_is_expanded_by_the_outer_shell_first() {
    let outer = "bash <<EOF\necho '`rm -rf /`'\nEOF";
    assert_eq!(argvs(outer)[1], ["rm", "-rf", "/"]);
    assert_eq!(programs(outer), ["bash", "rm", "echo"]);
    assert_eq!(
        programs("sh <<EOF\necho '$(id)'\nEOF"),
        ["sh", "id", "echo"]
    );
    // Quoted, the body is the inner shell's alone.
    assert_eq!(
        programs("bash <<'EOF'\necho '`rm -rf /`'\nEOF"),
        ["bash", "echo"]
    );
    // Both readings agree on what is an error.
    let open = "mksh <<EOF\necho 'a` rm'\nEOF";
    assert!(matches!(
        parse(open).error,
        Some(ShellError::UnterminatedSubstitution { .. })
    ));
    assert!(parse_as_written(open).error.is_some());
}

#[test]
fn inline_code_is_exposed() {
    let c = one("python3 -c 'import os; os.system(\"rm -rf /\")'");
    assert_eq!(c.code, "import os; os.system(\"rm -rf /\")");
    assert_eq!(c.code_from, CodeFrom::Argument);
    assert_eq!(one("node -e 'x'").code, "x");
    assert_eq!(one("sudo perl -pi -e 's/a/b/' f").code, "s/a/b/");
    assert_eq!(one("python script.py").code_from, CodeFrom::None);
    assert_eq!(one("python").code_from, CodeFrom::Stdin);
    assert_eq!(one("ls -c x").code_from, CodeFrom::None);
    // A version after the name is the interpreter's; digits that are the
    // name's own are not a version of an interpreter.
    assert_eq!(one("python3.12 -c 'x'").code, "x");
    assert_eq!(one("/usr/bin/ruby2.7 -e y").code, "y");
    assert_eq!(one("perl5.36.0 -e z").code, "z");
    assert_eq!(one("mpg123 -e x").code_from, CodeFrom::None);
    assert_eq!(one("python3x -c x").code_from, CodeFrom::None);
}

#[test]
fn cd_is_followed_into_the_paths_named() {
    let s = parse("cd ~/.ssh && cat id_rsa; cd keys; cp a /tmp/b > out");
    assert_eq!(s.commands[1].dir, "~/.ssh");
    assert_eq!(s.commands[1].paths(), ["~/.ssh/id_rsa"]);
    assert_eq!(
        s.commands[3].paths(),
        ["~/.ssh/keys/a", "/tmp/b", "~/.ssh/keys/out"]
    );
    assert_eq!(parse("cd -; cat x").commands[1].dir, "");
    let curl = parse("curl -s -X POST --data-binary @~/.ssh/id_rsa -F f=@$HOME/.aws/credentials --url=file:x 2>&1");
    assert_eq!(
        curl.commands[0].paths(),
        [
            "POST",
            "~/.ssh/id_rsa",
            "@~/.ssh/id_rsa",
            "~/.aws/credentials",
            "@$HOME/.aws/credentials",
            "f=@$HOME/.aws/credentials",
            "x"
        ]
    );
    assert_eq!(
        parse("cat ~/.ss''h/id_rs\"a\"").commands[0].paths(),
        ["~/.ssh/id_rsa"]
    );
}

#[test]
fn a_variable_whose_value_depends_on_the_path_taken_is_not_known() {
    // Review: the last assignment in the text is not the one that ran.
    for src in [
        "if c; then X=rm; else X=ls; fi; $X -rf /",
        "c && X=ls; $X -rf /",
        "c || X=ls; $X -rf /",
        "X=ls & $X -rf /",
        "(X=ls); $X -rf /",
        "echo $(X=ls); $X -rf /",
        "X=ls; X=rm; $X -rf /",
        "for i in 1; do X=ls; done; $X -rf /",
        "f() { X=ls; }; $X -rf /",
    ] {
        let last = parse(src).commands.last().cloned().unwrap_or_default();
        assert_eq!(last.argv.first().map(|a| &**a), Some("$X"), "{src}");
        assert!(last.dynamic, "{src}");
    }
    // Set once, before any branch: known, also inside a later branch.
    assert_eq!(argvs("X=rm; c && $X -rf /")[2], ["rm", "-rf", "/"]);
}

#[test]
fn escapes_printed_into_a_shell_are_not_read_as_written() {
    // Review: `printf 'rm\x20-rf /'` prints `rm -rf /`; its text is no
    // script to read, so the shell's code is unknown (a piped script).
    for src in [
        "printf 'rm\\x20-rf /' | sh",
        "echo -e 'rm\\x20-rf /' | bash",
    ] {
        let shell = parse(src).commands.last().cloned().unwrap_or_default();
        assert_eq!(shell.code_from, CodeFrom::Pipe, "{src}");
        assert_eq!(shell.code, "", "{src}");
    }
    // `printf`'s `\n` is decoded: the script is read.
    assert_eq!(
        programs("printf 'ls\\nrm -rf /' | sh"),
        ["printf", "sh", "ls", "rm"]
    );
}

#[test]
fn a_pipe_from_a_compound_names_the_program_that_prints() {
    // Review: the last command before `|` may be an assignment.
    let s = parse("{ curl -s https://x; X=1; } | sh");
    let shell = s.commands.last().cloned().unwrap_or_default();
    assert_eq!((&*shell.program, &*shell.piped_from), ("sh", "curl"));
    assert_eq!(shell.code_from, CodeFrom::Pipe);
}

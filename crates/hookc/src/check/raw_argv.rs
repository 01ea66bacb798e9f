//! W0020: a program or a flag tested on the raw words of a parsed command,
//! in a hook that stops a call.
//!
//! `shell.commands(s)` gives each simple command its words (`argv`) and
//! what they mean: `program` is `argv[0]` without its directory, and
//! `c.hasFlag(short, long)` reads the flags as programs parse them. A
//! guard that tests the words themselves decides on one spelling:
//! `c.argv[0] == 'rm'` is false for `/bin/rm -rf x`, and `'-rf' in c.argv`
//! for `rm -fr x`, `rm -r -f x` and `rm --recursive --force x`. The warning
//! names those spellings for the test at hand and writes the test out on
//! `program` or `hasFlag`. As for W0019, only hooks that deny, ask or block
//! are warned: a test that adds context decides nothing an agent could
//! slip past.
//!
//! Not warned, since the raw words are what they mean to test: a literal
//! naming a directory (`c.argv[0].startsWith('./')`, a script run by its
//! path), a flag word with a value (`-n5`, `--output=x`), a word of four
//! letters or more after one dash (`-name`, `-exec`: find's options are
//! spelled that way, and `hasFlag` reads them only as written).
//!
//! This file reads the literals and builds the message; the type checker
//! ([`crate::check::typeck`]) finds the tests, since it follows which
//! macro variables range over `shell.commands` and over a command's
//! `argv`.

use crate::diag::{and_list, Code, Diagnostic};
use crate::span::Span;

/// The longest word after one dash read as a cluster of one-letter flags:
/// a longer one is more likely one option spelled with one dash (find's
/// `-name`, `-exec`), which `hasFlag` reads only as written. At three
/// letters `-rfv` is the likelier reading, and the note names the other.
const MAX_CLUSTER: usize = 3;

/// A literal word a test looks for among a command's arguments, read as
/// the flags it gives.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum FlagWord<'a> {
    /// `-rf`: one-letter flags in a cluster, the letters (ASCII, at most
    /// [`MAX_CLUSTER`]).
    Letters(&'a str),
    /// `--force`: a long flag, its name.
    Long(&'a str),
}

impl<'a> FlagWord<'a> {
    /// The flags `word` gives, when it is only flags: `None` for `-`,
    /// `--` (the end of the options), `-9`, a word with a value (`-n5`,
    /// `-i.bak`, `--out=x`) and a long word after one dash (`-name`).
    pub fn parse(word: &'a str) -> Option<FlagWord<'a>> {
        if let Some(name) = word.strip_prefix("--") {
            let mut chars = name.chars();
            let first_ok = chars.next().is_some_and(|c| c.is_ascii_alphanumeric());
            let rest_ok = chars.all(|c| c.is_ascii_alphanumeric() || c == '-');
            return (first_ok && rest_ok).then_some(FlagWord::Long(name));
        }
        let letters = word.strip_prefix('-')?;
        let ok = (1..=MAX_CLUSTER).contains(&letters.len())
            && letters.bytes().all(|b| b.is_ascii_alphabetic());
        ok.then_some(FlagWord::Letters(letters))
    }

    /// The test on `hasFlag` of the command `cmd` that reads these flags
    /// in every spelling it knows.
    fn has_flag(self, cmd: &str) -> String {
        match self {
            FlagWord::Letters(letters) => letters
                .chars()
                .map(|l| format!("{cmd}.hasFlag('{l}')"))
                .collect::<Vec<_>>()
                .join(" && "),
            FlagWord::Long(name) => format!("{cmd}.hasFlag('', '{name}')"),
        }
    }

    /// Spellings of the same flags that an exact word misses, for the
    /// message (without backticks), and what else gives them.
    fn bypasses(self) -> (Vec<String>, &'static str) {
        match self {
            FlagWord::Letters(letters) => {
                // Another letter, to show the flags inside a cluster.
                let other = ['v', 'x', 'y']
                    .into_iter()
                    .find(|c| !letters.contains(*c))
                    .unwrap_or('z');
                if letters.len() == 1 {
                    let shown = vec![format!("-{letters}{other}"), format!("-{other}{letters}")];
                    return (shown, "the flag's long name give the same flag");
                }
                let reversed: String = letters.chars().rev().collect();
                let split: Vec<String> = letters.chars().map(|l| format!("-{l}")).collect();
                let mut shown = vec![format!("-{reversed}"), split.join(" ")];
                if letters.len() < MAX_CLUSTER {
                    shown.push(format!("-{letters}{other}"));
                }
                (shown, "the flags' long names give the same flags")
            }
            FlagWord::Long(name) => (
                vec![format!("--{name}=VALUE")],
                "the flag's one-letter spelling, alone or in a cluster, give the same flag",
            ),
        }
    }

    /// Whether `spelling` is this very word.
    fn is(self, spelling: &str) -> bool {
        match self {
            FlagWord::Letters(l) => spelling.strip_prefix('-') == Some(l),
            FlagWord::Long(n) => spelling.strip_prefix("--") == Some(n),
        }
    }
}

/// The W0020 warning for `shown` (the test as written), which tests the
/// program on `argv[0]`; `fixed` is the same test on `program`, `name` the
/// program the literal names when it is one plain word.
pub fn program_diagnostic(shown: &str, fixed: &str, name: Option<&str>, at: Span) -> Diagnostic {
    let misses = match name {
        Some(x) => format!("`/bin/{x}` and `/usr/bin/{x}` as other programs"),
        None => "a program run by its path (`/usr/bin/NAME`) as another program".to_owned(),
    };
    Diagnostic::new(
        Code::RawArgvTest,
        format!(
            "`{shown}` tests the program on the raw words of a command: `argv[0]` keeps \
             the directory the program is run from, so the test reads {misses}"
        ),
    )
    .at(at)
    .label("`argv[0]` is the program as written")
    .help(format!("test the program without its directory: `{fixed}`"))
    .note(
        "`shell.commands` gives each command its `program`: `argv[0]` without its \
         directory (`/usr/bin/rm` runs `rm`)",
    )
}

/// The W0020 warning for `shown` (the test as written), which looks for
/// the flag words `flags` among the words of the command `cmd` (`c`);
/// `contains` says the test is `c.argv.contains(...)`.
pub fn flag_diagnostic(
    shown: &str,
    cmd: &str,
    flags: &[FlagWord<'_>],
    contains: bool,
    at: Span,
) -> Diagnostic {
    let why = match flags.first() {
        Some(first) => {
            let (spellings, rest) = first.bypasses();
            // A spelling the test also looks for (`a in ['-rf', '-fr']`)
            // is not one it misses.
            let mut shown: Vec<String> = spellings
                .iter()
                .filter(|s| !flags.iter().any(|f| f.is(s)))
                .map(|s| format!("`{s}`"))
                .collect();
            shown.push(rest.to_owned());
            and_list(&shown)
        }
        None => "a flag has other spellings".to_owned(),
    };
    // One alternative per set of flags: `['-rf', '-fr']` is one test.
    let mut alternatives: Vec<(Vec<char>, String)> = Vec::new();
    for f in flags {
        let mut key: Vec<char> = match f {
            FlagWord::Letters(l) => l.chars().collect(),
            FlagWord::Long(n) => std::iter::once('-').chain(n.chars()).collect(),
        };
        key.sort_unstable();
        key.dedup();
        if !alternatives.iter().any(|(k, _)| *k == key) {
            alternatives.push((key, f.has_flag(cmd)));
        }
    }
    let tests: Vec<String> = alternatives.into_iter().map(|(_, t)| t).collect();
    let fix = match tests.as_slice() {
        [one] => one.clone(),
        many => format!("({})", many.join(" || ")),
    };
    let letter = flags.iter().find_map(|f| match f {
        FlagWord::Letters(l) => l.chars().next(),
        FlagWord::Long(_) => None,
    });
    let long = flags.iter().find_map(|f| match f {
        FlagWord::Long(n) => Some(*n),
        FlagWord::Letters(_) => None,
    });
    let mut hints = Vec::new();
    if let Some(l) = letter {
        hints.push(format!(
            "give a flag's long name as the second argument where it has one \
             (`{cmd}.hasFlag('{l}', 'NAME')` also reads `--NAME`)"
        ));
    }
    if let Some(n) = long {
        hints.push(format!(
            "give the flag's one-letter spelling as the first argument where it has one \
             (`{cmd}.hasFlag('X', '{n}')` also reads `-X` and `-rX`)"
        ));
    }
    let mut help = format!("read the flags as the program does: `{fix}`");
    for h in hints {
        help.push_str("; ");
        help.push_str(&h);
    }
    let mut d = Diagnostic::new(
        Code::RawArgvTest,
        format!("`{shown}` tests flags on the raw words of a command: {why}"),
    )
    .at(at)
    .label("a flag tested as one exact word")
    .help(help)
    .note(
        "`hasFlag` reads a one-letter flag alone or in a cluster (`-rf`, `-fr`, `-i.bak`) \
         and a long one as `--name` or `--name=VALUE`, up to the `--` that ends the options",
    );
    if contains {
        // `contains` is a string function: on a list it is an evaluation
        // error (no such overload), so today the test never holds.
        d = d.note(format!(
            "`contains` tests a string: on the list `{cmd}.argv` it is an evaluation error, \
             and the hook never matches"
        ));
    }
    if let Some(FlagWord::Letters(l)) = flags.iter().find(|f| match f {
        FlagWord::Letters(l) => l.len() == MAX_CLUSTER,
        FlagWord::Long(_) => false,
    }) {
        d = d.note(format!(
            "`-{l}` is read as {} one-letter flags; if it is one option spelled with one dash \
             (as find's `-name`), `{cmd}.hasFlag('{l}', '')` reads it",
            l.len()
        ));
    }
    d
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::span::FileId;

    fn at() -> Span {
        Span::new(FileId(0), 0, 1)
    }

    #[test]
    fn flag_words_are_clusters_and_long_names() {
        assert_eq!(FlagWord::parse("-rf"), Some(FlagWord::Letters("rf")));
        assert_eq!(FlagWord::parse("-R"), Some(FlagWord::Letters("R")));
        assert_eq!(FlagWord::parse("--force"), Some(FlagWord::Long("force")));
        assert_eq!(
            FlagWord::parse("--no-preserve-root"),
            Some(FlagWord::Long("no-preserve-root"))
        );
        for not in [
            "-", "--", "-9", "-n5", "-i.bak", "--out=x", "-name", "rf", "---x", "",
        ] {
            assert_eq!(FlagWord::parse(not), None, "{not}");
        }
    }

    #[test]
    fn a_cluster_is_written_out_letter_by_letter() {
        let d = flag_diagnostic(
            "'-rf' in c.argv",
            "c",
            &[FlagWord::Letters("rf")],
            false,
            at(),
        );
        assert_eq!(d.code, Code::RawArgvTest);
        assert_eq!(
            d.message,
            "`'-rf' in c.argv` tests flags on the raw words of a command: \
             `-fr`, `-r -f`, `-rfv` and the flags' long names give the same flags"
        );
        let help = d.help.unwrap_or_default();
        assert!(
            help.starts_with(
                "read the flags as the program does: `c.hasFlag('r') && c.hasFlag('f')`;"
            ),
            "{help}"
        );
        assert!(help.contains("`c.hasFlag('r', 'NAME')`"), "{help}");
        assert_eq!(d.notes.len(), 1);
    }

    #[test]
    fn a_long_flag_and_contains_say_what_they_miss() {
        let d = flag_diagnostic(
            "c.argv.contains('--force')",
            "c",
            &[FlagWord::Long("force")],
            true,
            at(),
        );
        assert!(
            d.message.ends_with(
                "`--force=VALUE` and the flag's one-letter spelling, alone or in a cluster, \
                 give the same flag"
            ),
            "{}",
            d.message
        );
        let help = d.help.unwrap_or_default();
        assert!(help.contains("`c.hasFlag('', 'force')`"), "{help}");
        assert!(help.contains("`c.hasFlag('X', 'force')`"), "{help}");
        assert!(d.notes.iter().any(|n| n.contains("evaluation error")));
    }

    #[test]
    fn spellings_of_one_set_are_one_alternative() {
        let flags = [
            FlagWord::Letters("rf"),
            FlagWord::Letters("fr"),
            FlagWord::Letters("Rf"),
        ];
        let d = flag_diagnostic("a in ['-rf', '-fr', '-Rf']", "c", &flags, false, at());
        assert!(
            d.message
                .ends_with(": `-r -f`, `-rfv` and the flags' long names give the same flags"),
            "{}",
            d.message
        );
        let help = d.help.unwrap_or_default();
        assert!(
            help.contains(
                "`(c.hasFlag('r') && c.hasFlag('f') || c.hasFlag('R') && c.hasFlag('f'))`"
            ),
            "{help}"
        );
        let d = flag_diagnostic("a == '-rfv'", "c", &[FlagWord::Letters("rfv")], false, at());
        assert!(
            d.message.contains("`-vfr`, `-r -f -v` and"),
            "{}",
            d.message
        );
        assert!(d.notes.iter().any(|n| n.contains("`c.hasFlag('rfv', '')`")));
        let d = flag_diagnostic("a == '-v'", "c", &[FlagWord::Letters("v")], false, at());
        assert!(d
            .message
            .ends_with("`-vx`, `-xv` and the flag's long name give the same flag"));
    }

    #[test]
    fn the_program_test_is_written_on_program() {
        let d = program_diagnostic("c.argv[0] == 'rm'", "c.program == 'rm'", Some("rm"), at());
        assert_eq!(d.code, Code::RawArgvTest);
        assert!(
            d.message
                .ends_with("so the test reads `/bin/rm` and `/usr/bin/rm` as other programs"),
            "{}",
            d.message
        );
        assert_eq!(
            d.help.as_deref(),
            Some("test the program without its directory: `c.program == 'rm'`")
        );
        let d = program_diagnostic(
            "c.argv[0].matches('^r')",
            "c.program.matches('^r')",
            None,
            at(),
        );
        assert!(d.message.contains("`/usr/bin/NAME`"), "{}", d.message);
    }

    /// The W0020 warnings of a Claude Code policy with one hook on `when`
    /// (over the commands of `tool_input.command`), of action `action`.
    fn w0020(when: &str, action: &str) -> usize {
        let yaml = format!(
            "host: claude-code\nhooks:\n  - id: h\n    event: PreToolUse\n    \
             when: \"tool_name == 'Bash' && {when}\"\n    action: {action}\n"
        );
        let c = crate::compile::compile(&[crate::compile::Input::new("t.yaml", &yaml)]);
        c.diagnostics
            .iter()
            .filter(|d| d.code == Code::RawArgvTest)
            .count()
    }

    const DENY: &str = "{type: deny, reason: no}";

    fn each(test: &str) -> String {
        format!("shell.commands(tool_input.command).exists(c, {test})")
    }

    #[test]
    fn raw_word_tests_of_a_command_are_found() {
        for test in [
            "c.argv[0] == 'rm'",
            "'rm' != c.argv[0]",
            "c.argv[0] in ['rm', 'rmdir']",
            "c.argv[0].startsWith('python')",
            "c.argv[0].matches('^rm$')",
            "c.argv.contains('-rf')",
            "'-rf' in c.argv",
            "'--force' in c.argv",
            "c.argv[1] == '-r'",
            "c.argv.exists(a, a == '-rf')",
            "c.argv.exists(a, a in ['-rf', '-fr'])",
        ] {
            assert_eq!(w0020(&each(test), DENY), 1, "{test}");
        }
        let nested = "shell.commands(tool_input.command).filter(c, c.program != '')\
                      .exists(d, d.argv[0] == 'rm') \
                      || shell.commands(tool_input.command)[0].argv[0] == 'rm'";
        assert_eq!(w0020(nested, DENY), 2);
        assert_eq!(
            w0020(&each("c.argv[0] == 'rm'"), "{type: ask, reason: sure?}"),
            1
        );
    }

    #[test]
    fn other_tests_and_hooks_that_stop_nothing_are_not() {
        for test in [
            "c.program == 'rm' && c.hasFlag('r', 'recursive')",
            "c.argv[0].startsWith('./')",
            "c.argv[0] in ['rm', '/bin/rm']",
            "c.argv[0] == null",
            "'-name' in c.argv",
            "'-n5' in c.argv",
            "'--' in c.argv",
            "c.argv[1] == 'install'",
            "c.argv.exists(a, a in ['-f', 'install'])",
            "c.argvPrefix(['git', 'push'])",
            "['rm'].exists(w, w == 'rm')",
        ] {
            assert_eq!(w0020(&each(test), DENY), 0, "{test}");
        }
        let context = "{type: context, text: note}";
        assert_eq!(w0020(&each("c.argv[0] == 'rm'"), context), 0);
    }
}

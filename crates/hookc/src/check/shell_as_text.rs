//! W0016: a string test on a shell command line.
//!
//! A field the schema marks `format: shell-command`
//! ([`crate::check::schema::SHELL_COMMAND`]) holds a command line as a
//! shell runs it. Testing its text (`startsWith`, `contains`, `endsWith`,
//! `matches`, `==`) decides on the spelling, not on what runs: `sudo rm`,
//! `cd /tmp && rm` and `"rm"` all run `rm`, and `echo rm` does not. The
//! warning names such commands for the test at hand, and suggests the shell
//! functions, which parse the line into commands.
//!
//! This file builds the message; the type checker
//! ([`crate::check::typeck`]) finds the tests, since it knows each
//! operand's schema.

use crate::diag::{and_list, Code, Diagnostic};
use crate::span::Span;

/// Which string test, with its literal operand when it has one.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Test<'a> {
    /// `s.startsWith(lit)`
    StartsWith(Option<&'a str>),
    /// `s.contains(lit)`
    Contains(Option<&'a str>),
    /// `s.endsWith(lit)`
    EndsWith(Option<&'a str>),
    /// `s == lit` or `s != lit`
    Equals(Option<&'a str>),
    /// `s.matches(pattern)` or `s.glob(pattern)`: the pattern.
    Matches(&'a str),
}

impl<'a> Test<'a> {
    /// The program the test most likely means: the first word of its
    /// literal (of a regex: its leading run of name characters), when that
    /// is a plain word and the test is anchored at the start (a `contains`
    /// or `endsWith` literal is as often an argument: `--force`, `.env`).
    fn program(self) -> Option<&'a str> {
        let word = match self {
            Test::StartsWith(lit) | Test::Equals(lit) => lit?.split_whitespace().next()?,
            Test::Contains(_) | Test::EndsWith(_) => return None,
            Test::Matches(pattern) => {
                let p = pattern.trim_start_matches('^');
                let end = p
                    .find(|c: char| !(c.is_alphanumeric() || matches!(c, '_' | '-')))
                    .unwrap_or(p.len());
                p.get(..end)?
            }
        };
        (is_word(word) && !word.starts_with('-')).then_some(word)
    }

    /// The test's literal, when it is a plain command (words of
    /// [`Self::program`]'s characters).
    fn command(self) -> Option<&'a str> {
        let lit = match self {
            Test::StartsWith(lit)
            | Test::Contains(lit)
            | Test::EndsWith(lit)
            | Test::Equals(lit) => lit?,
            Test::Matches(_) => return None,
        };
        let plain = lit.split_whitespace().all(is_word) && !lit.trim().is_empty();
        plain.then_some(lit.trim())
    }

    /// Commands the test misses that run `cmd` (the command tested: `rm`,
    /// `git push`, `--force`), and commands it matches that do not run it:
    /// shown in the message, in backticks.
    fn bypasses(self, cmd: &str) -> (Vec<String>, Vec<String>) {
        // The first word quoted: the shell removes the quotes.
        let quoted = match cmd.split_once(' ') {
            Some((x, rest)) => format!("\"{x}\" {rest}"),
            None => format!("\"{cmd}\""),
        };
        let wrapped = vec![format!("sudo {cmd}"), format!("cd /tmp && {cmd}"), quoted];
        match self {
            // Anchored at the start: a prefix, a compound command or
            // quoting moves the program.
            Test::StartsWith(_) | Test::Equals(_) => (wrapped, Vec::new()),
            Test::Contains(_) => {
                // The shell joins adjacent quoted parts (`r''m` runs `rm`),
                // and splits words on any run of blanks.
                let mut chars = cmd.chars();
                let split = match (chars.next(), chars.as_str()) {
                    (Some(first), rest) if !rest.starts_with(' ') && !rest.is_empty() => {
                        format!("{first}''{rest}")
                    }
                    _ => format!("$(echo {cmd})"),
                };
                (vec![split], vec![format!("echo {cmd}")])
            }
            Test::EndsWith(_) => (vec![format!("{cmd};")], vec![format!("echo {cmd}")]),
            Test::Matches(_) => (wrapped, vec![format!("echo {cmd}")]),
        }
    }
}

/// Whether a word is plain: a program name, an option or a path, with no
/// shell syntax or quote.
fn is_word(w: &str) -> bool {
    !w.is_empty()
        && w.chars()
            .all(|c| c.is_alphanumeric() || matches!(c, '_' | '-' | '.' | '/' | '+' | '=' | ':'))
}

/// The W0016 warning for `shown` (the test as written, e.g.
/// `tool_input.command.startsWith('rm')`) on the shell command `subject`.
pub fn diagnostic(shown: &str, subject: &str, test: Test<'_>, at: Span) -> Diagnostic {
    let program = test.program();
    let why = match test.command().or(program) {
        Some(cmd) => {
            let (misses, matches) = test.bypasses(cmd);
            let quote = |items: Vec<String>| -> Vec<String> {
                items.into_iter().map(|i| format!("`{i}`")).collect()
            };
            let also = if matches.is_empty() {
                String::new()
            } else {
                format!(", and matches {}", and_list(&quote(matches)))
            };
            format!("it misses {}{also}", and_list(&quote(misses)))
        }
        None => "it decides on how the command is spelled (`sudo`, `cd /tmp && ...`, \
                 quotes), not on what it runs"
            .to_owned(),
    };
    let help = match program {
        Some(x) => format!(
            "test the commands the line runs: \
             `shell.commands({subject}).exists(c, c.program == '{x}')`"
        ),
        None => format!(
            "test the commands the line runs, their programs and arguments: \
             `shell.commands({subject})`"
        ),
    };
    Diagnostic::new(
        Code::StringTestOnShell,
        format!("`{shown}` tests the text of a shell command: {why}"),
    )
    .at(at)
    .label("a string test on a shell command line")
    .help(help)
    .note(format!(
        "the schema marks `{subject}` as a shell command (`format: shell-command`)"
    ))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::span::FileId;

    fn at() -> Span {
        Span::new(FileId(0), 0, 1)
    }

    #[test]
    fn starts_with_names_the_program_and_its_bypasses() {
        let d = diagnostic(
            "tool_input.command.startsWith('rm')",
            "tool_input.command",
            Test::StartsWith(Some("rm")),
            at(),
        );
        assert_eq!(d.code, Code::StringTestOnShell);
        assert_eq!(
            d.message,
            "`tool_input.command.startsWith('rm')` tests the text of a shell command: \
             it misses `sudo rm`, `cd /tmp && rm` and `\"rm\"`"
        );
        assert_eq!(
            d.help.as_deref(),
            Some(
                "test the commands the line runs: \
                 `shell.commands(tool_input.command).exists(c, c.program == 'rm')`"
            )
        );
    }

    #[test]
    fn contains_splits_the_word_and_matches_an_echo() {
        let d = diagnostic(
            "c.contains('git push')",
            "c",
            Test::Contains(Some("git push")),
            at(),
        );
        assert!(
            d.message
                .ends_with("misses `g''it push`, and matches `echo git push`"),
            "{}",
            d.message
        );
        let d = diagnostic(
            "c.startsWith('git push')",
            "c",
            Test::StartsWith(Some("git push")),
            at(),
        );
        assert!(
            d.message
                .ends_with("`cd /tmp && git push` and `\"git\" push`"),
            "{}",
            d.message
        );
    }

    #[test]
    fn the_program_of_a_regex_is_its_leading_word() {
        assert_eq!(Test::Matches(r"^rm\s").program(), Some("rm"));
        assert_eq!(Test::Matches(r"\brm\b").program(), None);
        assert_eq!(Test::Equals(Some("it's")).program(), None);
        assert_eq!(Test::EndsWith(None).program(), None);
        assert_eq!(Test::StartsWith(Some("--force")).program(), None);
        let d = diagnostic("c.matches('(a|b)')", "c", Test::Matches("(a|b)"), at());
        assert!(d.message.ends_with("not on what it runs"), "{}", d.message);
        assert!(d.help.is_some_and(|h| h.ends_with("`shell.commands(c)`")));
        let d = diagnostic(
            "c.contains('--force')",
            "c",
            Test::Contains(Some("--force")),
            at(),
        );
        assert!(d
            .message
            .ends_with("misses `-''-force`, and matches `echo --force`"));
        assert!(d.help.is_some_and(|h| !h.contains("c.program")));
    }

    /// The W0016 warnings of a policy with one hook on `when`, over a
    /// schema whose `command` is a shell command and `cwd` a plain string.
    fn w0016(when: &str) -> usize {
        let yaml = format!(
            "event_context_schema:\n  type: object\n  properties:\n    \
             command: {{type: string, format: shell-command}}\n    cwd: {{type: string}}\n\
             hooks:\n  - id: h\n    event: shell\n    when: \"{when}\"\n    action: {{type: abort}}\n"
        );
        let c = crate::compile::compile(&[crate::compile::Input::new("t.yaml", &yaml)]);
        c.diagnostics
            .iter()
            .filter(|d| d.code == Code::StringTestOnShell)
            .count()
    }

    #[test]
    fn string_tests_on_the_command_are_found() {
        assert_eq!(w0016("command.startsWith('rm')"), 1);
        assert_eq!(w0016("command.endsWith('rm') || 'ls' == command"), 2);
        assert_eq!(w0016("command.matches('^rm ')"), 1);
        assert_eq!(w0016("command.glob('rm *')"), 1);
    }

    #[test]
    fn other_strings_and_presence_tests_are_not() {
        assert_eq!(w0016("cwd.startsWith('/tmp') && cwd == '/'"), 0);
        assert_eq!(w0016("command != null && has(command)"), 0);
        assert_eq!(w0016("size(command) > 100"), 0);
    }
}

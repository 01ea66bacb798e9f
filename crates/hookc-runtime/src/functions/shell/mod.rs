//! `shell.commands(s)`: the simple commands a Bash command string runs.
//!
//! A guard on an agent's `Bash` tool must see `rm` in `cd /tmp && rm -rf x`,
//! `sudo rm -rf x`, `bash -c 'rm -rf x'`, `FOO=1 rm`, `"rm" -rf x` and
//! `echo $(rm -rf x)`, and must not see it in `echo "rm -rf"`. [`parse`]
//! reads a command string the way Bash's parser does (without running or
//! expanding anything) and lists every simple command in it, with wrappers
//! such as `sudo` and `bash -c` peeled off. [`has_flag`] and [`argv_prefix`]
//! are the matching helpers for the argument lists.
//!
//! ```
//! use hookc_runtime::functions::shell::{has_flag, parse};
//! let script = parse("cd /tmp && sudo rm -rf x; echo \"rm -rf\"");
//! assert!(script.is_valid());
//! let programs: Vec<&str> = script.commands.iter().map(|c| &*c.program).collect();
//! assert_eq!(programs, ["cd", "rm", "echo"]);
//! assert_eq!(script.commands[1].wrappers, ["sudo"]);
//! assert!(has_flag(&script.commands[1].argv, "r", "recursive"));
//! ```
//!
//! # The documented subset
//!
//! This is what the parser understands; anything else is read as ordinary
//! words. It never runs, expands or looks anything up.
//!
//! **Lists.** Commands are split at `;`, `&&`, `||`, `|`, `|&`, `&` and
//! newlines, and found inside subshells `( ... )`, groups `{ ...; }`, and
//! the bodies of `if`/`while`/`until`/`for`/`select`/`case` and function
//! definitions. Commands are listed in source order, except that the
//! commands of a substitution come before the command whose word holds it
//! (Bash runs them first).
//!
//! **Substitutions.** Command substitution `$(...)` and `` `...` ``, and
//! process substitution `<(...)` and `>(...)`, are parsed: their commands
//! are listed as commands of their own, *and* the word that holds them keeps
//! the substitution's text verbatim (`echo $(rm -rf x)` lists `rm -rf x`,
//! then `echo` with argv `["echo", "$(rm -rf x)"]`). Inside backquotes,
//! `` \` ``, `\$` and `\\` are unescaped before the inner text is parsed.
//! Arithmetic `$((...))` and the arithmetic command `((...))` are words,
//! not commands, but a substitution inside them is still parsed; like Bash,
//! a `$((` that does not end in `))` is read as `$(` followed by a subshell.
//! Parameter expansions (`$HOME`, `${X:-y}`) are kept verbatim (a
//! substitution inside `${...}` is parsed), but for an unquoted `$IFS` or
//! `${IFS}`, which splits words as Bash's default IFS (blank, tab, newline)
//! does: `rm${IFS}-rf${IFS}/` is `rm -rf /`, a word of nothing else is no
//! word, and an assignment's value is not split (`X=1${IFS}rm` sets `X`);
//! and but for `$NAME`/`${NAME}` of a variable set earlier on the line
//! (`X=v`, `export`/`declare`/`local`/`readonly`/`typeset X=v`), which is
//! its value (split at blanks when unquoted): `X=rm; $X -rf /` runs `rm`.
//! A name set by a command's own prefix (`X=1 cmd $X`), or whose value
//! depends on the path taken (set twice; set in a branch, a loop, a
//! function, a subshell or a substitution, or after `&&`, `||`, `&` or
//! `|`; unset, read or looped over) is not known and stays as written;
//! `$@` and `$*` are empty (a host's command string has no positional
//! parameters).
//!
//! **Braces.** Unquoted brace expansion, as Bash does it before the
//! other expansions: `rm -{r,f} /` is `rm -r -f /`,
//! `{rm,-rf,/}` is `rm -rf /`, `a{1..3}`, `{a..c}`, nested; not in an
//! assignment, not `{}` or `{a}`. More than
//! [`MAX_SHELL_BRACE_WORDS`](crate::limits::MAX_SHELL_BRACE_WORDS) words
//! from one word is [`ShellError::TooLarge`], and so are more than
//! [`MAX_SHELL_EXPANSION_BYTES`](crate::limits::MAX_SHELL_EXPANSION_BYTES)
//! bytes of variable values substituted in the whole string, its nested
//! scripts included. Globs and `~` are not expanded.
//!
//! **Pipes and code.** A command after `|` or `|&` has the program before it
//! in [`SimpleCommand::piped_from`]. An interpreter's program
//! ([`SimpleCommand::code`], [`CodeFrom`]) is read from its command line
//! (`python -c`, `node -e`, `perl -ne`, `ruby -e`, `php -r`, `awk PROGRAM`,
//! `deno eval`, ...: the table of `interp.rs`) or, when it reads its
//! program from its input, from a here-string, a heredoc (after the line)
//! or a pipe. A shell fed a here-string, a heredoc or the literal an `echo`
//! or `printf` prints into it (a literal without a backslash, whose
//! escapes would print other characters) has that text parsed as its script: its
//! commands follow the shell's, their wrappers ending in `"sh <<<"`, `"sh
//! <<"` or `"| sh"`. `cd DIR`/`pushd DIR` on the line set the
//! [`SimpleCommand::dir`] of the commands after it.
//!
//! **Quotes.** Single quotes; double quotes, inside which `\` escapes only
//! `$`, `` ` ``, `"`, `\` and a newline; `$'...'` (ANSI-C: `\n`, `\t`, `\r`,
//! `\a`, `\b`, `\e`, `\E`, `\f`, `\v`, `\\`, `\'`, `\"`, `\?`, octal `\nnn`,
//! `\xHH`, `\uHHHH`, `\UHHHHHHHH`, `\cX`); `$"..."` as double quotes;
//! backslash escapes outside quotes; `\<newline>` joins lines. Quotes are
//! removed: `"rm"`, `r\m` and `'r'm` are all `rm`. A word of one quoted or
//! unquoted piece borrows the input ([`Cow::Borrowed`]). A `#` at the start
//! of a word starts a comment to the end of the line.
//!
//! **Reserved words** are recognised, unquoted, at the start of a command
//! (as in Bash, not after an assignment or a redirection) and are
//! structure, not commands: `if then elif else fi while until do done { }
//! ! coproc`. `for NAME in WORDS` and `select` skip the name and the word
//! list (`for x in a b; do rm $x; done` lists only `rm`; a substitution in
//! the list is still parsed); `for ((...))` is arithmetic. `case WORD in`
//! skips the word and each `PATTERN|PATTERN)` and lists the commands of the
//! branches (ended by `;;`, `;&`, `;;&` or `esac`). `function NAME` and
//! `NAME ()` skip the name; the body's commands are listed. `[[ ... ]]` is
//! one command with program `[[`, whose argv runs to the closing `]]`
//! (operators inside it, `&&`, `<`, `(`, are words). `time` before a
//! compound command (`time { ...; }`, `time (...)`) is skipped like a
//! reserved word; before a simple command it is a wrapper (below).
//!
//! **Assignments.** Words `NAME=VALUE` (and `NAME+=VALUE`, `NAME=(...)`)
//! before the program go to [`SimpleCommand::env`] as (`NAME`, `VALUE`)
//! with quotes removed; a command of assignments only has an empty argv,
//! and substitutions in the values are still listed (`A=$(rm x)` lists `rm`
//! and the assignment). `export`, `local`, `declare` are ordinary programs.
//!
//! **Redirections** `[N]>`, `>>`, `<`, `<<`, `<<-`, `<<<`, `>&`, `<&`,
//! `&>`, `&>>`, `>|`, `<>` go to [`SimpleCommand::redirects`] with the
//! quote-removed target. A here-document's body (the lines after the
//! command's line, up to the delimiter line; `<<-` strips leading tabs) is
//! not commands, unless it feeds a shell (above). When the delimiter is
//! unquoted, Bash expands the body, so a `$(...)` or `` `...` `` in it is
//! parsed and its commands listed. A
//! command of redirections only (`> f`, or one after a compound command:
//! `done < f` gives a command with an empty argv holding `< f`) is listed
//! with an empty argv.
//!
//! **Wrappers** are unwrapped repeatedly, each recorded in
//! [`SimpleCommand::wrappers`] (outermost first), whether the program is
//! named bare or with a path (`/usr/bin/sudo`): `sudo`, `doas`, `env`,
//! `command`, `builtin`, `exec`, `nice`, `nohup`, `setsid`, `timeout`,
//! `time`, `stdbuf`, `ionice`, `chroot`, `xargs`, and the multi-call
//! binaries `busybox` and `toybox` (whose first operand is the applet run),
//! their options skipped
//! (with their arguments: `sudo -u root`, `xargs -I {}`, `timeout -s KILL
//! 5`; `--` ends options), `sudo`'s and `env`'s `NAME=VALUE` arguments going
//! to `env`. A wrapper with nothing left to run, or with a query option
//! (`command -v x`, `sudo -l`, `sudo -e`, `ionice -p`), stays as it is.
//! Scripts are parsed recursively and their commands replace the wrapper
//! command: `bash`/`sh`/`zsh`/`dash`/`ksh`/`mksh`/`ash`/`fish` with `-c`
//! (also in a cluster such as `-lc`; recorded as the shell's name and
//! `-c`: `"bash -c"`, `"sh -c"`), `su ... -c`
//! (`"su -c"`), `eval ARGS...` (the arguments joined with spaces;
//! `"eval"`) and `env -S STRING` (`"env -S"`). The inner commands get the
//! outer command's wrappers, env and redirections in front of their own.
//! `find` with `-exec`, `-execdir`, `-ok` or `-okdir` is listed as it is,
//! followed by each command it runs (the words up to `;` or `+`, unwrapped
//! in turn) with find's wrappers and env and the wrapper `"find -exec"`.
//! Nesting (subshells, substitutions, `${`, scripts) deeper than
//! [`MAX_NESTING`], or more wrappers than that on one command, is an
//! error; so is unwrapping that would copy more words between commands
//! (the outer env into each command of a script) than the string has bytes
//! ([`ShellError::TooLarge`]).
//!
//! **Errors.** An unterminated quote, substitution or here-document, an
//! unbalanced parenthesis, a function definition without a body, a
//! compound command without its end keyword or an end keyword with
//! nothing to end (`if`/`fi`, `while`/`until`/`for`/`select` and `done`,
//! `case`/`esac`, `{`/`}`, `[[`/`]]`), a redirection without a target, too
//! deep nesting or too many copies set [`ShellScript::error`] (so
//! [`ShellScript::is_valid`] is false: a policy should fail closed), also
//! when the error is inside a `bash -c` or `eval` script; parsing stops
//! there and the commands recognised before it are kept. The parser is
//! otherwise lenient: some inputs Bash rejects (`; ls`, `a && && b`,
//! `if; then ls; fi`) are read without an error. [`parse`] never panics,
//! and its time is linear in the input (nesting is bounded, nothing is
//! scanned more than [`MAX_NESTING`] times).
//!
//! **Not seen**, because only running the command would tell: commands
//! built at run time from what the line does not say (`$cmd x` of a
//! variable from the environment or a substitution, which marks the
//! command [`dynamic`](SimpleCommand::dynamic); an `IFS` set on the line),
//! aliases (Bash expands none in a command string it is given), what a
//! function called by name or a script run from a file does (`f`, `bash
//! script.sh`, `source x`), what an interpreter's code does, what a pipe
//! carries into a shell ([`CodeFrom::Pipe`] with no `code`), and the
//! commands of programs this list does not unwrap (`ssh host cmd`,
//! `watch`, `parallel`, `trap`, `docker exec`, `git -c core.pager=...`). A
//! guard that must be strict can refuse dynamic programs, piped scripts,
//! or such programs.

use std::borrow::Cow;

mod expand;
mod interp;
mod parser;
#[cfg(test)]
mod tests;
mod unwrap;

/// Deepest nesting [`parse`] follows: subshells, substitutions, `${...}`,
/// and scripts of `bash -c`, `eval` and the like, together. One more is
/// [`ShellError::NestingTooDeep`]. The bound is
/// [`limits::MAX_SHELL_NESTING`](crate::limits::MAX_SHELL_NESTING).
pub const MAX_NESTING: usize = crate::limits::MAX_SHELL_NESTING;

/// The keys of [`ShellScript::to_json`]'s objects (the members of a
/// command object).
pub use crate::value::command::{keys, CodeFrom, Redirect, RedirectOp, SimpleCommand};

/// Parses a Bash command string into the simple commands it runs (see the
/// module documentation for the subset understood). Never panics; on input
/// it cannot parse, the result has an [`error`](ShellScript::error) and the
/// commands recognised before it.
pub fn parse(src: &str) -> ShellScript<'_> {
    let (commands, error) = parser::parse_script(
        src,
        0,
        0,
        parser::Unwrap::Yes,
        &parser::ExpansionBudget::new(),
    );
    ShellScript { commands, error }
}

/// Like [`parse`], but the commands as written: no wrapper is unwrapped
/// and no `bash -c`/`eval` script parsed (`wrappers` is always empty). What
/// a shell's grammar alone gives, which the corpus test compares with
/// bashlex; a guard wants [`parse`].
pub fn parse_as_written(src: &str) -> ShellScript<'_> {
    let (commands, error) = parser::parse_script(
        src,
        0,
        0,
        parser::Unwrap::No,
        &parser::ExpansionBudget::new(),
    );
    ShellScript { commands, error }
}

/// What [`parse`] found in a command string.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ShellScript<'s> {
    /// Every simple command, in the order described in the module docs.
    pub commands: Vec<SimpleCommand<'s>>,
    /// Why the string did not parse, if it did not; `commands` then holds
    /// what was recognised before the error.
    pub error: Option<ShellError>,
}

impl ShellScript<'_> {
    /// Whether the whole string parsed.
    pub fn is_valid(&self) -> bool {
        self.error.is_none()
    }

    /// The commands as the policy language sees them: a list of objects
    /// `{"argv", "program", "env", "redirects", "wrappers"}` (see [`keys`]).
    pub fn to_json(&self) -> serde_json::Value {
        serde_json::Value::Array(self.commands.iter().map(SimpleCommand::to_json).collect())
    }
}

impl<'s> SimpleCommand<'s> {
    /// This command as a JSON object (see [`ShellScript::to_json`]).
    pub fn to_json(&self) -> serde_json::Value {
        serde_json::Value::Object(crate::value::CommandRecord::new(self.clone()).into_map())
    }

    /// The same command owning all its text.
    pub fn into_owned(self) -> SimpleCommand<'static> {
        let own = |s: Cow<'_, str>| Cow::Owned(s.into_owned());
        SimpleCommand {
            argv: self.argv.into_iter().map(own).collect(),
            program: own(self.program),
            env: self
                .env
                .into_iter()
                .map(|(n, v)| (own(n), own(v)))
                .collect(),
            redirects: self
                .redirects
                .into_iter()
                .map(|r| Redirect {
                    fd: r.fd,
                    op: r.op,
                    target: own(r.target),
                })
                .collect(),
            wrappers: self.wrappers.into_iter().map(own).collect(),
            piped_from: own(self.piped_from),
            code: own(self.code),
            code_from: self.code_from,
            dynamic: self.dynamic,
            dir: own(self.dir),
        }
    }

    /// The paths this command names ([`named_paths`]).
    pub fn paths(&self) -> Vec<String> {
        named_paths(
            self.argv.iter().map(|a| &**a),
            self.redirects.iter().map(|r| (r.op, &*r.target)),
            &self.dir,
        )
    }
}

/// [`named_paths`] of a command object's members: `argv` (strings),
/// `redirects` (objects `{op, target}`) and `dir`. Items of another shape
/// are skipped.
pub fn record_paths(
    argv: &[serde_json::Value],
    redirects: &[serde_json::Value],
    dir: &str,
) -> Vec<String> {
    let redirects = redirects.iter().filter_map(|r| {
        let r = r.as_object()?;
        let op = crate::value::lookup(r, keys::OP).and_then(serde_json::Value::as_str)?;
        let target = crate::value::lookup(r, keys::TARGET).and_then(serde_json::Value::as_str)?;
        Some((RedirectOp::parse(op)?, target))
    });
    named_paths(
        argv.iter().filter_map(serde_json::Value::as_str),
        redirects,
        dir,
    )
}

/// The paths a command names, each [`normal`](crate::functions::paths::normal)ised
/// and, when relative, joined to `dir` (where an earlier `cd` went): every
/// operand (not the program: what runs is not a path it is given), the value of an option
/// written `--name=VALUE` or `NAME=VALUE` (`dd if=x`), what follows an `@`
/// (`curl -d @file`, `-F k=@file`), and the files of its redirections
/// (not a descriptor, a here-document's delimiter or a here-string).
/// Options themselves (`-rf`) are none; every other word is, since which
/// word is a file only the program knows: a guard matching known paths
/// (`path.secret`) is not misled by the words that are not.
pub fn named_paths<'w>(
    argv: impl Iterator<Item = &'w str>,
    redirects: impl Iterator<Item = (RedirectOp, &'w str)>,
    dir: &str,
) -> Vec<String> {
    use crate::functions::paths;
    let mut out = Vec::new();
    let mut push = |p: &str| {
        if p.is_empty() {
            return;
        }
        let p = paths::normal(p);
        if dir.is_empty() || p.starts_with('/') || p.starts_with('~') {
            out.push(p.into_owned());
        } else {
            out.push(paths::normal_owned(paths::join(dir, &p)));
        }
    };
    // The program is what runs, not a path it is given.
    for word in argv.skip(1) {
        let value = if word.starts_with('-') {
            match word.split_once('=') {
                Some((_, v)) => v,
                None => continue,
            }
        } else {
            word
        };
        match value.split_once('@') {
            Some((before, file)) if before.is_empty() || before.ends_with('=') => push(file),
            _ => {}
        }
        match value.split_once('=') {
            Some((key, v)) if !key.is_empty() && !key.contains('/') => push(v),
            _ => {}
        }
        push(value);
    }
    for (op, target) in redirects {
        let file = match op {
            RedirectOp::Heredoc | RedirectOp::HeredocStripTabs | RedirectOp::HereString => false,
            RedirectOp::DupOut | RedirectOp::DupIn => {
                !(target == "-" || target.bytes().all(|b| b.is_ascii_digit()))
            }
            _ => true,
        };
        if file {
            push(target);
        }
    }
    out
}

/// Why a command string did not parse. Positions are byte offsets into the
/// string given to [`parse`] (inside a `bash -c` script or an escaped
/// backquote, the position of the construct that holds it).
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum ShellError {
    /// A quote is not closed.
    #[error("unterminated {quote} quote starting at byte {at}: close it with a matching {quote}")]
    UnterminatedQuote {
        /// Where the quote opens.
        at: usize,
        /// The quote character.
        quote: char,
    },
    /// A `$(`, `` ` ``, `${` or `$((` is not closed.
    #[error(
        "unterminated substitution starting at byte {at}: close it (`)`, `` ` ``, `}}` or `))`)"
    )]
    UnterminatedSubstitution {
        /// Where it opens.
        at: usize,
    },
    /// A `(` without its `)`, or a `)` or `(` where none can be.
    #[error("unbalanced or unexpected parenthesis at byte {at}")]
    UnbalancedParen {
        /// The parenthesis.
        at: usize,
    },
    /// A here-document's delimiter line never comes.
    #[error("here-document starting at byte {at} is not ended by a line `{delimiter}`")]
    UnterminatedHeredoc {
        /// Where the `<<` is.
        at: usize,
        /// The delimiter expected, quotes removed.
        delimiter: String,
    },
    /// A redirection operator with no word after it.
    #[error("redirection at byte {at} has no target word")]
    MissingRedirectTarget {
        /// Where the operator is.
        at: usize,
    },
    /// A compound command without its end (`if` without `fi`, `do`
    /// without `done`, `case` without `esac`, `{` without `}`), or an end
    /// keyword that closes nothing open.
    #[error("`{keyword}` at byte {at} has no match: `if` ends with `fi`, `while`/`until`/`for`/`select` with `done`, `case` with `esac`, `{{` with `}}`, `[[` with `]]`")]
    UnbalancedCompound {
        /// Where the keyword is.
        at: usize,
        /// The keyword.
        keyword: &'static str,
    },
    /// A function definition without a body (a compound command).
    #[error("function defined at byte {at} has no body: write `name() {{ ...; }}`")]
    MissingFunctionBody {
        /// Where the definition's `(` or name is.
        at: usize,
    },
    /// Wrappers that would copy more words between commands than the
    /// string has bytes (and a small allowance): e.g. thousands of
    /// assignments before a `bash -c` script of thousands of commands.
    #[error("the command string is too large to analyse: its wrappers copy more words than it has bytes")]
    TooLarge,
    /// Nesting deeper than [`MAX_NESTING`].
    #[error(
        "nesting (subshells, substitutions, `bash -c`, `eval`) deeper than {MAX_NESTING} levels"
    )]
    NestingTooDeep,
}

/// The program a command whose `argv[0]` is `word` runs, as its `program`
/// member names it: `word` without its directory (`/usr/bin/git` is `git`).
pub fn program_name(word: &str) -> &str {
    unwrap::basename(word)
}

/// A word of an argument list: a string, or a JSON string (a command
/// object's `argv`, read in place; a JSON value that is not a string is
/// no word: `''`).
pub trait ArgWord {
    /// The word.
    fn word(&self) -> &str;
}

impl ArgWord for &str {
    fn word(&self) -> &str {
        self
    }
}

impl ArgWord for String {
    fn word(&self) -> &str {
        self
    }
}

impl ArgWord for Cow<'_, str> {
    fn word(&self) -> &str {
        self
    }
}

impl ArgWord for serde_json::Value {
    fn word(&self) -> &str {
        self.as_str().unwrap_or_default()
    }
}

/// Whether `argv[1..]`, up to a `--` that ends the options, holds the flag:
/// `-<short>` on its own; for a one-letter `short`, that letter inside a
/// cluster of single-letter flags (`-rf`, `-fr`), where the cluster's
/// letters may end in a value attached to the last of them (`-i.bak`,
/// `-n5`, `-xzf-`: the letters before the first character that is not an
/// ASCII letter are the flags); `--<long>` or `--<long>=VALUE`. An empty
/// `short` or `long` means the flag has no such spelling. A `short` of
/// several characters matches only an argument spelled exactly `-<short>`
/// (find's `-name`), never inside a cluster.
///
/// ```
/// use hookc_runtime::functions::shell::has_flag;
/// assert!(has_flag(&["rm", "-rf", "x"], "f", "force"));
/// assert!(has_flag(&["rm", "--force", "x"], "f", "force"));
/// assert!(!has_flag(&["rm", "--", "-f"], "f", "force"));
/// assert!(has_flag(&["sed", "-i.bak", "s/a/b/", "f"], "i", "in-place"));
/// assert!(has_flag(&["head", "-n5"], "n", ""));
/// assert!(!has_flag(&["head", "-n5"], "5", ""));
/// ```
pub fn has_flag(argv: &[impl ArgWord], short: &str, long: &str) -> bool {
    let one_letter = short.len() == 1 && short.as_bytes().iter().all(u8::is_ascii_alphabetic);
    for arg in argv.iter().skip(1).map(ArgWord::word) {
        if arg == "--" {
            return false;
        }
        if let Some(rest) = arg.strip_prefix("--") {
            if !long.is_empty() {
                if let Some(after) = rest.strip_prefix(long) {
                    if after.is_empty() || after.starts_with('=') {
                        return true;
                    }
                }
            }
        } else if let Some(rest) = arg.strip_prefix('-') {
            if short.is_empty() {
                continue;
            }
            if rest == short {
                return true;
            }
            // The cluster's letters, up to a value attached to the last.
            let letters = rest
                .bytes()
                .position(|b| !b.is_ascii_alphabetic())
                .map_or(rest, |end| rest.get(..end).unwrap_or_default());
            if one_letter && letters.contains(short) {
                return true;
            }
        }
    }
    false
}

/// Whether `argv` starts with `prefix`, element by element, exactly, but
/// for the program: a first word without a `/` also names the program run
/// by its path (`/usr/bin/git push` starts with `['git', 'push']`, as its
/// `program` is `git`), so that a subcommand test holds however the
/// program is reached. For a program with global options before its
/// subcommand ([`GLOBAL_OPTIONS`]: `git -C dir push`), also when `prefix`
/// names the program and then matches the words after those options, so
/// that a subcommand test holds however the global options are spelled.
///
/// ```
/// use hookc_runtime::functions::shell::argv_prefix;
/// assert!(argv_prefix(&["git", "push", "--force"], &["git", "push"]));
/// assert!(argv_prefix(&["/usr/bin/git", "push"], &["git", "push"]));
/// assert!(argv_prefix(&["git", "-C", ".", "push", "--force"], &["git", "push"]));
/// assert!(argv_prefix(&["git", "-c", "x=y", "--no-pager", "push"], &["git", "push"]));
/// assert!(!argv_prefix(&["git"], &["git", "push"]));
/// assert!(!argv_prefix(&["/usr/bin/git", "push"], &["/bin/git", "push"]));
/// ```
pub fn argv_prefix(argv: &[impl ArgWord], prefix: &[impl ArgWord]) -> bool {
    /// The program `argv[0]` runs is the one `named`.
    fn program_is(argv0: &str, named: &str) -> bool {
        argv0 == named || !named.contains('/') && unwrap::basename(argv0) == named
    }
    fn same(argv: &[impl ArgWord], prefix: &[impl ArgWord]) -> bool {
        argv.len() >= prefix.len()
            && argv.iter().zip(prefix).enumerate().all(|(i, (a, p))| {
                if i == 0 {
                    program_is(a.word(), p.word())
                } else {
                    a.word() == p.word()
                }
            })
    }
    if same(argv, prefix) {
        return true;
    }
    // A subcommand test (`['git', 'push']`) past the program's global
    // options.
    let (Some(program), Some(named), Some(wanted)) =
        (argv.first(), prefix.first(), prefix.get(1..))
    else {
        return false;
    };
    if wanted.is_empty() || !program_is(program.word(), named.word()) {
        return false;
    }
    let name = unwrap::basename(program.word());
    let Some(globals) = GLOBAL_OPTIONS.iter().find(|g| g.program == name) else {
        return false;
    };
    let rest = argv.get(1..).unwrap_or_default();
    same(
        rest.get(globals.skipped(rest)..).unwrap_or_default(),
        wanted,
    )
}

/// A program whose global options come before its subcommand.
pub struct GlobalOptions {
    /// The program's name.
    pub program: &'static str,
    /// Options that take the next word as their value (unless attached
    /// with `=`, or, for one letter, attached to the letter).
    pub with_value: &'static [&'static str],
}

/// The programs [`argv_prefix`] reads past the global options of: every
/// word starting with `-` before the subcommand is one, and those of
/// `with_value` take the next word too.
pub const GLOBAL_OPTIONS: &[GlobalOptions] = &[GlobalOptions {
    program: "git",
    with_value: &[
        "-C",
        "-c",
        "--git-dir",
        "--work-tree",
        "--namespace",
        "--config-env",
        "--exec-path",
        "--super-prefix",
        "--list-cmds",
        "--attr-source",
    ],
}];

impl GlobalOptions {
    /// How many of `words` (the arguments after the program) are global
    /// options and their values.
    fn skipped(&self, words: &[impl ArgWord]) -> usize {
        let mut i = 0;
        while let Some(word) = words.get(i).map(ArgWord::word) {
            if !word.starts_with('-') || word == "-" {
                break;
            }
            i += 1;
            if word == "--" {
                break;
            }
            // `--git-dir=x` and `-Cdir` carry their value.
            if self.with_value.contains(&word) {
                i += 1;
            }
        }
        i
    }
}

//! Which of the guard's own `hookc test` cases `hookc probe` plays: a shell
//! command the guard denies and one it lets through, each one the probe
//! can run without harm (`docs/src/hosts/probe.md`).
//!
//! A case qualifies when it is on the host's shell event, its payload is a
//! shell call (`host_profile.probe.shell.when`), and its command is one
//! simple command whose program is a bare name: no operators, expansions,
//! redirections or globs, and no argument naming anything outside the
//! throw-away copy (an absolute path, `~`, `..`). The probe then puts a stand-in of that name
//! first on the host's PATH, which only logs its arguments, so whatever
//! the host does, nothing the command names is touched; whether the
//! stand-in logged the case's exact words is whether the host ran it.

use hookc::hosts::ProbeShell;
use hookc_binding::hosts::{Call, Host};
use hookc_runtime::Policy;
use serde_json::Value;

/// A case the probe plays.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Played {
    /// The case's name in the test file.
    pub name: String,
    /// The command, as the model sends it.
    pub command: String,
    /// Its words, as the shell splits them: the program first.
    pub words: Vec<String>,
    /// The guard's reason, when it denies the command.
    pub reason: Option<String>,
}

impl Played {
    /// The line the stand-in logs when the command runs.
    pub fn logged(&self) -> String {
        self.words.join(" ")
    }
}

/// The cases chosen from a test file's.
#[derive(Debug, Default)]
pub struct Chosen {
    /// A command the guard denies.
    pub denied: Option<Played>,
    /// A command no hook stops (no decision, or `allow`).
    pub allowed: Option<Played>,
}

/// One test case as the probe reads it.
pub struct CaseInput<'a> {
    /// Its name.
    pub name: &'a str,
    /// Its event.
    pub event: &'a str,
    /// Its payload.
    pub context: &'a Value,
}

/// Chooses the first playable denied and allowed cases, in file order.
pub fn choose<'a>(
    host: Host,
    shell: &ProbeShell,
    policy: &Policy,
    cases: impl IntoIterator<Item = CaseInput<'a>>,
) -> Chosen {
    let mut chosen = Chosen::default();
    for case in cases {
        if case.event != shell.event {
            continue;
        }
        let Ok(call) = Call::of_value(host, case.context.clone(), Some(case.event)) else {
            continue;
        };
        let context = call.context();
        if !shell
            .when
            .iter()
            .all(|(ptr, v)| context.pointer(ptr) == Some(v))
        {
            continue;
        }
        let Some(command) = context.pointer(&shell.command).and_then(Value::as_str) else {
            continue;
        };
        let Some(words) = harmless_words(command) else {
            continue;
        };
        let Ok(ruling) = call.ruling(policy) else {
            continue;
        };
        if ruling.updated_input.is_some() {
            continue;
        }
        let played = Played {
            name: case.name.to_owned(),
            command: command.to_owned(),
            words,
            reason: ruling
                .verdict
                .as_ref()
                .map(|v| v.reason.clone())
                .filter(|r| !r.is_empty()),
        };
        match ruling.verdict.as_ref().map(|v| v.word.as_str()) {
            Some("deny" | "block") if chosen.denied.is_none() => chosen.denied = Some(played),
            None | Some("allow") if chosen.allowed.is_none() => chosen.allowed = Some(played),
            _ => {}
        }
        if chosen.denied.is_some() && chosen.allowed.is_some() {
            break;
        }
    }
    chosen
}

/// Programs the hosts themselves run through PATH (a shell for every
/// command, Node, hookc): a stand-in of that name would stand in for the
/// host's own use too.
const HOST_PROGRAMS: &[&str] = &[
    "sh", "bash", "zsh", "dash", "ksh", "fish", "env", "node", "hookc",
];

/// The shell's builtins (bash's and POSIX's): the shell runs them itself,
/// never a program on PATH, so a stand-in would not see them.
const BUILTINS: &[&str] = &[
    ".", ":", "alias", "bg", "bind", "break", "builtin", "caller", "cd", "command", "compgen",
    "complete", "continue", "declare", "dirs", "disown", "echo", "enable", "eval", "exec", "exit",
    "export", "false", "fc", "fg", "getopts", "hash", "help", "history", "jobs", "kill", "let",
    "local", "logout", "mapfile", "popd", "printf", "pushd", "pwd", "read", "readonly", "return",
    "set", "shift", "shopt", "source", "suspend", "test", "time", "times", "trap", "true", "type",
    "typeset", "ulimit", "umask", "unalias", "unset", "wait", "[",
];

/// The words of `command` when it is one simple command the probe can run
/// harmlessly under a stand-in for its program: plain words and quoted
/// strings only, the program a bare name. `None` otherwise.
pub fn harmless_words(command: &str) -> Option<Vec<String>> {
    let mut words = Vec::new();
    let mut word = String::new();
    let mut in_word = false;
    let mut chars = command.chars();
    while let Some(c) = chars.next() {
        match c {
            ' ' | '\t' => {
                if in_word {
                    words.push(std::mem::take(&mut word));
                    in_word = false;
                }
            }
            '\'' | '"' => {
                in_word = true;
                loop {
                    match chars.next() {
                        Some(q) if q == c => break,
                        // In double quotes these still expand.
                        Some('$' | '`' | '\\') if c == '"' => return None,
                        Some(other) => word.push(other),
                        None => return None,
                    }
                }
            }
            c if c.is_ascii_alphanumeric() || "-_./=,:@%+".contains(c) => {
                in_word = true;
                word.push(c);
            }
            // Operators, expansions, redirections, globs, escapes, newlines,
            // comments: not a simple command the probe can vouch for.
            _ => return None,
        }
    }
    if in_word {
        words.push(word);
    }
    // The arguments name nothing outside the throw-away copy (no absolute
    // path, no home, no `..`, also as an option's value): should a host
    // bypass the stand-in, the command still reaches only the copy.
    let outside = |w: &str| {
        let value = w.split_once('=').map_or(w, |(_, v)| v);
        [w, value].iter().any(|w| {
            w.starts_with('/') || w.starts_with('~') || w.split('/').any(|part| part == "..")
        })
    };
    if words.iter().skip(1).any(|w| outside(w)) {
        return None;
    }
    let program = words.first()?;
    let bare = !program.is_empty()
        && !HOST_PROGRAMS.contains(&program.as_str())
        && !BUILTINS.contains(&program.as_str())
        && !program.contains('/')
        && !program.contains('=')
        && program
            .chars()
            .all(|c| c.is_ascii_alphanumeric() || "-_.+".contains(c));
    bare.then_some(words)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn simple_commands_are_split_as_the_shell_splits_them() {
        assert_eq!(
            harmless_words("rm -rf build").unwrap(),
            ["rm", "-rf", "build"]
        );
        assert_eq!(
            harmless_words("\"rm\" -r -f x").unwrap(),
            ["rm", "-r", "-f", "x"]
        );
        assert_eq!(
            harmless_words("git commit -m 'a b'").unwrap(),
            ["git", "commit", "-m", "a b"]
        );
        assert_eq!(harmless_words("  ls  ").unwrap(), ["ls"]);
    }

    #[test]
    fn anything_the_shell_would_do_more_with_is_refused() {
        for command in [
            "cd /tmp && rm -rf x",
            "rm -rf x; ls",
            "echo $HOME",
            "echo \"$HOME\"",
            "rm `which x`",
            "rm $(pwd)",
            "ls > out",
            "rm *.o",
            "/bin/rm -rf x",
            "FOO=1 rm x",
            "rm 'unterminated",
            "rm x\nls",
            "ls # comment",
            "bash -c 'rm -rf x'",
            "hookc hook",
            "echo \"rm -rf x\"",
            "cd build",
            "rm -rf /",
            "rm -rf ~/x",
            "rm -rf ../x",
            "rm -rf a/../../x",
            "rm --dir=/etc",
            "",
        ] {
            assert_eq!(harmless_words(command), None, "{command}");
        }
    }
}

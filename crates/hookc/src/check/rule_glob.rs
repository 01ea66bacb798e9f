//! W0021: a permission rule's spelling as a glob on a tool's name.
//!
//! Hosts write permission rules as a tool and what it is given:
//! `Bash(git:*)`, `Bash(npm run test:*)`, `WebFetch(domain:x.com)`. A
//! hook's context has the tool's name alone (`tool_name` is `Bash`), so
//! `tool_name.glob('Bash(git:*)')` compiles and never matches: the guard
//! it belongs to stops nothing. The warning names the test to write: the
//! name compared, and the command read by `shell.commands` (for a prefix
//! rule, `c.argvPrefix` of its words).
//!
//! This file recognises the subject and the glob and builds the message;
//! the type checker ([`crate::check::typeck`]) finds the glob tests.

use crate::diag::{Code, Diagnostic};
use crate::span::Span;

/// The hosts' shell tools, whose rules give a command's first words
/// (Claude Code's and Codex's `Bash`, Copilot's `bash`, Cursor's `Shell`,
/// Gemini CLI's `run_shell_command`), compared without case.
const SHELL_TOOLS: &[&str] = &["Bash", "Shell", "run_shell_command"];

/// Whether `subject` (a path as written: `tool_name`, `toolName`,
/// `tool.name`, `input.tool_name`) names a tool's name.
pub fn is_tool_name(subject: &str) -> bool {
    let mut segments = subject.rsplit('.');
    let last = segments.next().unwrap_or_default();
    let squashed: String = last
        .chars()
        .filter(|c| *c != '_')
        .flat_map(char::to_lowercase)
        .collect();
    squashed == "toolname" || last == "name" && segments.next() == Some("tool")
}

/// The W0021 warning for `glob` tested on `subject` (a tool's name), when
/// the glob is a permission rule's spelling `TOOL(...)`.
pub fn diagnostic(glob: &str, subject: &str, at: Span) -> Option<Diagnostic> {
    let (tool, rest) = glob.split_once('(')?;
    let inner = rest.strip_suffix(')')?;
    let is_name = |s: &str| {
        s.chars().next().is_some_and(|c| c.is_ascii_alphabetic())
            && s.chars()
                .all(|c| c.is_ascii_alphanumeric() || c == '_' || c == '-')
    };
    if !is_name(tool) {
        return None;
    }
    // A shell tool's prefix rule (`git:*`, `npm run test *`): the words
    // its commands start with.
    let shell = SHELL_TOOLS.iter().any(|t| t.eq_ignore_ascii_case(tool));
    let prefix = Some(inner)
        .filter(|_| shell)
        .and_then(|inner| {
            inner
                .strip_suffix(":*")
                .or_else(|| inner.strip_suffix(" *"))
                .or_else(|| inner.strip_suffix('*'))
        })
        .filter(|p| !p.is_empty() && !p.contains(['*', '?', '[', '\'', '\\']));
    let help = match prefix {
        Some(p) => {
            let words: Vec<String> = p.split_whitespace().map(|w| format!("'{w}'")).collect();
            format!(
                "test the name and the command apart: `{subject} == '{tool}' && \
                 shell.commands(COMMAND).exists(c, c.argvPrefix([{}]))`, COMMAND being the \
                 command in the context (`tool_input.command` on Claude Code)",
                words.join(", ")
            )
        }
        None => format!(
            "test the name and the input apart: `{subject} == '{tool}'`, and a test of what \
             the tool is given (its input in the context)"
        ),
    };
    Some(
        Diagnostic::new(
            Code::PermissionRuleGlob,
            format!(
                "`{subject}` is a tool's name, such as `{tool}`: the glob `{glob}` is a \
                 permission rule's spelling (the tool and what it is given), which no tool's \
                 name matches"
            ),
        )
        .at(at)
        .label("never matches a tool's name")
        .help(help)
        .note(format!(
            "a glob matches the whole string: `{glob}` matches a text that holds the \
             parentheses, never the name `{tool}`"
        )),
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Where the warning points does not matter here.
    const AT: Span = Span {
        file: crate::span::FileId(0),
        start: 0,
        end: 1,
    };

    #[test]
    fn tool_name_subjects() {
        for s in [
            "tool_name",
            "toolName",
            "tool.name",
            "input.tool_name",
            "TOOL_NAME",
        ] {
            assert!(is_tool_name(s), "{s}");
        }
        for s in [
            "name",
            "tool",
            "tool_input.command",
            "server.name",
            "tool_names",
        ] {
            assert!(!is_tool_name(s), "{s}");
        }
    }

    #[test]
    fn permission_rules_and_their_command_tests() {
        let d = diagnostic("Bash(git:*)", "tool_name", AT).unwrap();
        assert_eq!(d.code, Code::PermissionRuleGlob);
        let help = d.help.unwrap_or_default();
        assert!(
            help.contains(
                "`tool_name == 'Bash' && shell.commands(COMMAND).exists(c, c.argvPrefix(['git']))`"
            ),
            "{help}"
        );
        let d = diagnostic("Bash(npm run test:*)", "tool.name", AT).unwrap();
        assert!(d
            .help
            .unwrap_or_default()
            .contains("c.argvPrefix(['npm', 'run', 'test'])"));
        let d = diagnostic("WebFetch(domain:x.com)", "tool_name", AT).unwrap();
        let help = d.help.unwrap_or_default();
        assert!(
            help.contains("`tool_name == 'WebFetch'`, and a test of what"),
            "{help}"
        );
        // Globs of tool names are not rules.
        for g in [
            "Bash",
            "mcp__*",
            "*",
            "Bash*",
            "(x)",
            "Edit|Write",
            "a b(c)",
        ] {
            assert!(diagnostic(g, "tool_name", AT).is_none(), "{g}");
        }
    }
}

//! W0019: a path tested as text in a hook that stops a call.
//!
//! A field the schema marks `format: file-path`
//! ([`crate::check::schema::FILE_PATH`]) is a file's path as a tool takes
//! it. A guard that tests its text (`endsWith('.env')`,
//! `contains('/.ssh/')`, `startsWith(cwd)`) decides on one spelling of the
//! file: `./.env`, `src/../.env`, `//home/u/.ssh/x`, `$HOME/.ssh/x` and
//! `file:.env` name the same files, and `/home/u/app2` starts with
//! `/home/u/app`. The warning names those spellings and the path functions
//! that read them all. Only hooks that deny, ask or block are warned: a
//! test that adds context or formats a file decides nothing an agent
//! could slip past.
//!
//! This file builds the message; the type checker
//! ([`crate::check::typeck`]) finds the tests, since it knows each
//! operand's schema and whether the hook guards.

use crate::diag::{Code, Diagnostic};
use crate::span::Span;

/// The W0019 warning for `shown` (the test as written) on the path
/// `subject`.
pub fn diagnostic(shown: &str, subject: &str, at: Span) -> Diagnostic {
    Diagnostic::new(
        Code::PathAsText,
        format!(
            "`{shown}` tests the text of a path: the same file is also `./x`, `a/../x`, \
             `//x`, `$HOME/x` or `file:x`, and `/p/app2` starts with `/p/app`"
        ),
    )
    .at(at)
    .label("a string test on a file's path")
    .help(format!(
        "read it as a path: `path.secret({subject})` for credential files, \
         `path.match(path.normal({subject}), '**/NAME')` for a name anywhere, \
         `path.within({subject}, root)` for a folder"
    ))
    .note(format!(
        "the schema marks `{subject}` as a file's path (`format: file-path`)"
    ))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::span::FileId;

    #[test]
    fn names_the_spellings_and_the_functions() {
        let d = diagnostic(
            "tool_input.file_path.endsWith('.env')",
            "tool_input.file_path",
            Span::new(FileId(0), 0, 1),
        );
        assert_eq!(d.code, Code::PathAsText);
        assert!(d.message.contains("a/../x"), "{}", d.message);
        let help = d.help.unwrap_or_default();
        assert!(help.contains("path.secret(tool_input.file_path)"), "{help}");
    }
}

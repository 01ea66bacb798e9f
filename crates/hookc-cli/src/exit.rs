//! [`Exit`]: how a command ended, as the one table of the exit codes
//! (`main` turns it into the process's). A command that could not do its
//! job at all returns a [`crate::error::CliError`] instead, which `main`
//! prints and exits [`Exit::Failed`] with.

use std::process::ExitCode;

/// How a command ended.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Exit {
    /// 0: done, nothing to report.
    Ok,
    /// 1: done, and what it found fails the run: diagnostics (errors, or
    /// warnings with `--deny-warnings`), a failing `test` case, a decision
    /// `diff` saw change, a call a probed host did not enforce.
    Findings,
    /// 2: the command could not do (all of) its job: usage and I/O
    /// errors, malformed lines of a replayed log, a test file that did not
    /// run, a server that stopped on an error.
    Failed,
    /// What the host's hook protocol defines (`hookc hook`: 0, or 2 for a
    /// block on the hosts that read one from the exit code).
    Host(u8),
}

impl Exit {
    /// [`Exit::Findings`] when `found`, else [`Exit::Ok`].
    pub fn findings_if(found: bool) -> Exit {
        if found {
            Exit::Findings
        } else {
            Exit::Ok
        }
    }

    /// The process's exit code.
    pub fn code(self) -> u8 {
        match self {
            Exit::Ok => 0,
            Exit::Findings => 1,
            Exit::Failed => 2,
            Exit::Host(code) => code,
        }
    }
}

impl From<Exit> for ExitCode {
    fn from(exit: Exit) -> ExitCode {
        ExitCode::from(exit.code())
    }
}

#[cfg(test)]
mod tests {
    use super::Exit;

    #[test]
    fn the_codes_are_the_documented_ones() {
        assert_eq!(
            [Exit::Ok, Exit::Findings, Exit::Failed, Exit::Host(2)].map(Exit::code),
            [0, 1, 2, 2]
        );
        assert_eq!(Exit::findings_if(true), Exit::Findings);
        assert_eq!(Exit::findings_if(false), Exit::Ok);
    }
}

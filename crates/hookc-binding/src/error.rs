//! Every failure a binding reports, as one enum with a stable kind: each
//! binding maps [`ErrorKind`] to its own classes (Python's `CompileError`,
//! `ArtifactError`, `ValueError`...; Node's `CompileError`, `ContextError`...)
//! and keeps the message, which says what to do.

use crate::context::NotJson;
use hookc::files::ReadError;
use hookc_runtime::{LoadError, QueryError};
use serde_json::Value;
use thiserror::Error;

/// A compilation's diagnostics (an error's, or the warnings that come
/// with a compiled policy).
#[derive(Debug, Clone, PartialEq)]
pub struct Report {
    /// Rendered as `hookc check` prints them, with its summary line.
    pub text: String,
    /// One object per diagnostic, as `hookc check --format json` prints
    /// them (`code`, `severity`, `message`, `file`, `line`, ...).
    pub diagnostics: Vec<Value>,
}

/// Why a binding could not do what it was asked.
#[derive(Debug, Error)]
pub enum BindingError {
    /// The policy sources have errors: the report holds the rendered
    /// diagnostics (as `hookc check` prints them) and their JSON (as
    /// `hookc check --format json` prints them), warnings included.
    #[error("{}", .0.text)]
    Compile(Report),
    /// A policy file could not be read (missing, too large, not UTF-8...).
    #[error(transparent)]
    Read(#[from] ReadError),
    /// Artifact bytes that do not load: damaged, of another format
    /// version, or failing verification.
    #[error(transparent)]
    Artifact(LoadError),
    /// A context that cannot be read: JSON text that is not JSON, or a host
    /// language's value with no JSON form.
    #[error("{0}")]
    Context(String),
    /// The evaluation has no answer: the matched action's filled
    /// parameters do not fit their types, or a hook failed under
    /// `on_error: fail`.
    #[error(transparent)]
    Evaluation(QueryError),
    /// An argument the caller gave that the policy cannot take: a hook id
    /// it does not know, a layer name that is not one, no policy files.
    #[error("{0}")]
    Argument(String),
    /// Something hookc itself got wrong (a freshly compiled program that
    /// fails verification).
    #[error("{0} (a bug in hookc: please report it)")]
    Internal(String),
}

/// The kind of a [`BindingError`], which decides a binding's exception
/// class; each has a stable code ([`ErrorKind::code`]).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum ErrorKind {
    /// [`BindingError::Compile`].
    Compile,
    /// [`BindingError::Read`] of a file that does not exist.
    FileNotFound,
    /// [`BindingError::Read`] for any other reason.
    Read,
    /// [`BindingError::Artifact`].
    Artifact,
    /// [`BindingError::Context`].
    Context,
    /// [`BindingError::Evaluation`].
    Evaluation,
    /// [`BindingError::Argument`].
    Argument,
    /// [`BindingError::Internal`].
    Internal,
}

impl ErrorKind {
    /// The kind's stable code, as the Node package's errors carry it in
    /// `code` (`HOOKC_COMPILE`, ...).
    pub fn code(self) -> &'static str {
        match self {
            ErrorKind::Compile => "HOOKC_COMPILE",
            ErrorKind::FileNotFound => "ENOENT",
            ErrorKind::Read => "HOOKC_READ",
            ErrorKind::Artifact => "HOOKC_ARTIFACT",
            ErrorKind::Context => "HOOKC_CONTEXT",
            ErrorKind::Evaluation => "HOOKC_EVALUATION",
            ErrorKind::Argument => "HOOKC_ARGUMENT",
            ErrorKind::Internal => "HOOKC_INTERNAL",
        }
    }
}

impl BindingError {
    /// The error's kind.
    pub fn kind(&self) -> ErrorKind {
        match self {
            BindingError::Compile(_) => ErrorKind::Compile,
            BindingError::Read(ReadError::Io { source, .. })
                if source.kind() == std::io::ErrorKind::NotFound =>
            {
                ErrorKind::FileNotFound
            }
            BindingError::Read(_) => ErrorKind::Read,
            BindingError::Artifact(_) => ErrorKind::Artifact,
            BindingError::Context(_) => ErrorKind::Context,
            BindingError::Evaluation(_) => ErrorKind::Evaluation,
            BindingError::Argument(_) => ErrorKind::Argument,
            BindingError::Internal(_) => ErrorKind::Internal,
        }
    }

    /// The diagnostics of a [`BindingError::Compile`], as JSON objects.
    pub fn diagnostics(&self) -> Option<&[serde_json::Value]> {
        match self {
            BindingError::Compile(report) => Some(&report.diagnostics),
            _ => None,
        }
    }
}

impl From<QueryError> for BindingError {
    /// A context that does not read is the caller's input; anything else
    /// is the evaluation's.
    fn from(e: QueryError) -> BindingError {
        match e {
            QueryError::Context(e) => BindingError::Context(e.to_string()),
            other => BindingError::Evaluation(other),
        }
    }
}

impl From<NotJson> for BindingError {
    fn from(e: NotJson) -> BindingError {
        BindingError::Context(e.to_string())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_missing_file_is_its_own_kind() {
        let missing = BindingError::Read(ReadError::Io {
            name: "hooks.yaml".to_owned(),
            source: std::io::Error::from(std::io::ErrorKind::NotFound),
        });
        assert_eq!(missing.kind(), ErrorKind::FileNotFound);
        let denied = BindingError::Read(ReadError::Io {
            name: "hooks.yaml".to_owned(),
            source: std::io::Error::from(std::io::ErrorKind::PermissionDenied),
        });
        assert_eq!(denied.kind(), ErrorKind::Read);
        assert_eq!(denied.kind().code(), "HOOKC_READ");
    }
}

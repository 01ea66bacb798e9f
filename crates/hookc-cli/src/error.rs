//! [`CliError`]: why a command could not do its job. Each variant's
//! message says what failed and, where there is one, what to do about it;
//! `main` prints it after `error: ` and exits 2 (`hookc hook` never
//! returns one: it answers the host, `crate::hook`).

use hookc_runtime::QueryError;
use std::path::PathBuf;
use thiserror::Error;

/// Why a command failed (exit code 2).
#[derive(Debug, Error)]
pub enum CliError {
    /// Neither files nor `--layer`s were given.
    #[error("no policy given: name its files, or `--layer NAME=FILE`")]
    NoPolicy,
    /// `hookc diff` with neither an event log nor a shadow log.
    #[error(
        "`hookc diff` needs `--events LOG`, or a decision log with shadow lines, `--log FILE`"
    )]
    NoEvents,
    /// The policy does not load: a file that cannot be read, sources with
    /// errors (rendered with their snippets), a damaged or stale artifact,
    /// an overlay that does not layer over it.
    #[error("{}", .0.render())]
    Policy(#[from] hookc::files::PolicyError),
    /// A policy source could not be read.
    #[error(transparent)]
    Source(#[from] hookc::files::ReadError),
    /// A file could not be read.
    #[error("cannot read `{path}`: {source}")]
    Read {
        /// The file.
        path: PathBuf,
        /// Why.
        source: std::io::Error,
    },
    /// A file could not be written.
    #[error("cannot write `{path}`: {source}")]
    Write {
        /// The file.
        path: PathBuf,
        /// Why.
        source: std::io::Error,
    },
    /// Standard input could not be read.
    #[error("cannot read {what} from standard input: {source}")]
    Stdin {
        /// What was read (`the context`).
        what: &'static str,
        /// Why.
        source: std::io::Error,
    },
    /// Standard output could not be written (closed?).
    #[error("cannot write to standard output: {0}")]
    Stdout(std::io::Error),
    /// Standard error could not be written.
    #[error("cannot write to standard error: {0}")]
    Stderr(std::io::Error),
    /// Input that must be JSON is not.
    #[error("{what} is not valid JSON: {source}")]
    Json {
        /// What was read (`the context`, `` `results.json` ``).
        what: String,
        /// Where it stops being JSON.
        source: serde_json::Error,
    },
    /// The normalized hooks could not be written as YAML or JSON.
    #[error("cannot write the normalized hooks as {format}: {message}")]
    Emit {
        /// `YAML` or `JSON`.
        format: &'static str,
        /// Why.
        message: String,
    },
    /// The compiled program does not load back (a compiler bug).
    #[error("the compiled artifact does not load ({0}); this is a bug in hookc, please report it")]
    Artifact(hookc::compile::SourcesError),
    /// `--expr` failed verification (a compiler bug).
    #[error(transparent)]
    Expr(hookc::expr_program::ExprError),
    /// `--disable ID` names no hook of the policy.
    #[error("{error}{}", .suggestion.as_ref().map(|s| format!("; did you mean `{s}`?")).unwrap_or_default())]
    UnknownHook {
        /// The runtime's error, naming the id.
        error: hookc_runtime::UnknownHook,
        /// The closest id the policy has.
        suggestion: Option<String>,
    },
    /// `--result`/`--results` name no hook of the policy (a typo would
    /// leave the decision pending).
    #[error("{0}")]
    UnknownResult(String),
    /// `--result` is not `HOOK_ID=JSON`.
    #[error("--result `{0}` is not `HOOK_ID=JSON` (e.g. --result git_branch='\"main\"')")]
    ResultSyntax(String),
    /// `--results FILE` holds JSON that is not an object.
    #[error("`{path}` must hold a JSON object of results by hook id, not {found}")]
    ResultsNotObject {
        /// The file.
        path: PathBuf,
        /// What it holds.
        found: serde_json::Value,
    },
    /// `--summary` without `--events`.
    #[error("--summary counts the events of a log: give it with --events LOG")]
    SummaryWithoutLog,
    /// An evaluation failed.
    #[error(transparent)]
    Eval(#[from] hookc_runtime::QueryError),
    /// A replay could not go on.
    #[error(transparent)]
    Replay(#[from] crate::replay::ReplayError),
    /// `--time-per-case` out of range.
    #[error("--time-per-case must be more than 0 and at most 3600 seconds, not {0}")]
    TimePerCase(f64),
    /// `--contexts DIR` has no `*.json` file.
    #[error("`{0}` has no `*.json` files")]
    NoContexts(PathBuf),
    /// A file of `--contexts` is not a case.
    #[error("`{path}` {source}")]
    ContextFile {
        /// The file.
        path: PathBuf,
        /// Why.
        source: ContextFileError,
    },
    /// A line of `--events` is not an event record.
    #[error("{}:{line}: not an event record ({source})", .path.display())]
    EventRecord {
        /// The log.
        path: PathBuf,
        /// The line number, from 1.
        line: usize,
        /// Why.
        source: serde_json::Error,
    },
    /// `--events LOG` has no records.
    #[error("`{0}` has no event records")]
    NoRecords(PathBuf),
    /// A benchmark could not run.
    #[error(transparent)]
    Bench(#[from] BenchError),
}

/// Why a file of `--contexts` is not a case. The messages follow the
/// file's name (`` `a.json` is not valid JSON: ... ``).
#[derive(Debug, Error)]
pub enum ContextFileError {
    /// The file is not JSON.
    #[error("is not valid JSON: {0}")]
    Json(serde_json::Error),
    /// An event record with keys besides `event`, `context` and `expect`.
    #[error(
        "is an event record with other keys than `event`, `context` and `expect`: {0}; \
         remove them, or give --event to read the whole file as a bare context"
    )]
    ExtraKeys(String),
    /// An event record whose `event` is not a string.
    #[error("is an event record whose `event` is {0}, not a string (the event's name)")]
    EventNotString(&'static str),
    /// A bare context without `--event`.
    #[error(
        "is a bare context, not an event record {{\"event\": E, \"context\": {{...}}}} ({0}): \
         give its event with --event"
    )]
    Bare(String),
}

/// Why a run could not start.
#[derive(Debug, Error)]
#[non_exhaustive]
pub enum BenchError {
    /// There is nothing to measure.
    #[error("there are no cases to benchmark")]
    NoCases,
    /// A case could not be evaluated (its context text is not JSON, or
    /// its action cannot be built).
    #[error("case `{case}`: {source}")]
    Eval {
        /// The case's name.
        case: String,
        /// What went wrong.
        source: QueryError,
    },
}

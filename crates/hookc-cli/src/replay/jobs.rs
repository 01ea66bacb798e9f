//! The per-line work of each replay, as [`ChunkJob`]s: printing every
//! answer (`eval --events`), counting decisions (`--summary`) and comparing
//! two policies (`diff`); and [`Answer`], the one rendering of an `eval`
//! result, shared with the single-event `eval`.
//!
//! Per line, the work is finding the `event` and `context` members
//! ([`LogRecord`]) and the runtime's evaluation of the context's JSON text
//! (`Context::Json`): the line is never parsed into a `serde_json::Value`.

use super::diff::{DiffTally, Severities};
use super::log::Chunk;
use super::record::{is_blank, LogRecord};
use super::summary::Summary;
use super::ChunkJob;
use hookc_runtime::{Context, Match, Overrides, Policy, Query, QueryError, Results};
use std::io::Write;

/// How `eval` prints its result for one event.
#[derive(Clone, Copy)]
pub struct Answer<'a> {
    /// Hooks switched off (`--disable`).
    pub overrides: &'a Overrides,
    /// Every match (`--all`) instead of the decision.
    pub all: bool,
    /// The host's results for awaited hooks (`--result`, `--results`).
    pub results: &'a Results,
    /// The explain trace after the result (`--explain`), and its form.
    pub explain: Option<TraceForm>,
}

/// A line's own results (`"results"`), or the command line's when it has
/// none.
fn line_results<'r>(
    record: &LogRecord<'_>,
    given: &'r Results,
) -> Result<std::borrow::Cow<'r, Results>, String> {
    Ok(match record.results().map_err(|e| e.to_string())? {
        Some(own) => std::borrow::Cow::Owned(own),
        None => std::borrow::Cow::Borrowed(given),
    })
}

/// The form of an explain trace.
#[derive(Clone, Copy)]
pub enum TraceForm {
    /// `Trace::to_text`.
    Text,
    /// `Trace::to_json`, one line.
    Json,
}

impl Answer<'_> {
    /// Appends the result line (and the trace, if asked) for `event` and
    /// `ctx` under `policy` to `out`. When filling the matched action fails
    /// ([`QueryError::Action`]) or a hook fails the evaluation
    /// ([`QueryError::Hook`], `on_error: fail`) there is no result line,
    /// but the trace, if asked, is still appended before the error is
    /// returned: that is when it is needed most (which hook failed, on
    /// which values).
    pub fn write(
        &self,
        policy: &Policy,
        event: &str,
        ctx: Context<'_>,
        out: &mut Vec<u8>,
    ) -> Result<(), QueryError> {
        let query = policy
            .query(event, ctx)
            .with_overrides(self.overrides)
            .with_results(self.results);
        let result = if self.all {
            query
                .all()
                .map(|all| serde_json::Value::Array(all.iter().map(Match::to_json).collect()))
        } else {
            query.decision().map(|d| d.to_json())
        };
        let result = match result {
            Ok(result) => result,
            Err(e @ (QueryError::Action(_) | QueryError::Hook(_))) => {
                if self.explain.is_some() {
                    self.trace(&query, out)?;
                }
                return Err(e);
            }
            Err(e) => return Err(e),
        };
        // Writing into a Vec cannot fail; the results' only failure is I/O.
        let _ = writeln!(out, "{result}");
        self.trace(&query, out)
    }

    /// Appends the explain trace, if asked, in its form.
    fn trace(&self, query: &Query<'_, '_>, out: &mut Vec<u8>) -> Result<(), QueryError> {
        let Some(form) = self.explain else {
            return Ok(());
        };
        let trace = query.explain()?;
        match form {
            TraceForm::Text => out.extend_from_slice(trace.to_text().as_bytes()),
            TraceForm::Json => {
                let _ = writeln!(out, "{}", trace.to_json());
            }
        }
        Ok(())
    }
}

/// Calls `each` with every record of `chunk` and its line number, or with
/// the message of a line that is not one; blank lines are skipped.
fn records<'c>(chunk: &'c Chunk, mut each: impl FnMut(u64, Result<LogRecord<'c>, String>)) {
    for (n, line) in chunk.lines() {
        match line {
            Ok(text) if is_blank(text) => {}
            Ok(text) => each(
                n,
                LogRecord::parse(text).map_err(|e| format!("not an event record ({e})")),
            ),
            Err(e) => each(n, Err(format!("not an event record ({e})"))),
        }
    }
}

/// `eval --events`: one result line per record, `{"error": "LOG:N: ..."}`
/// for a line that is not one or fails to evaluate.
pub struct PrintJob<'a> {
    /// The policy.
    pub policy: &'a Policy,
    /// What to print per record.
    pub answer: Answer<'a>,
    /// The log's name in messages.
    pub log: &'a str,
}

/// A chunk's printed results and its count of bad lines.
pub struct Printed {
    /// The output lines, in order.
    pub text: Vec<u8>,
    /// Lines that printed an error.
    pub errors: u64,
}

impl ChunkJob for PrintJob<'_> {
    type Output = Printed;

    fn run(&self, chunk: &Chunk) -> Printed {
        let mut out = Printed {
            text: Vec::with_capacity(chunk.len() * 256),
            errors: 0,
        };
        records(chunk, |n, record| {
            let start = out.text.len();
            let result = record.and_then(|r| {
                let results = line_results(&r, self.answer.results)?;
                let answer = Answer {
                    results: &results,
                    ..self.answer
                };
                answer
                    .write(
                        self.policy,
                        &r.event,
                        Context::json(r.context()),
                        &mut out.text,
                    )
                    .map_err(|e| e.to_string())
            });
            if let Err(e) = result {
                // The error line stands for the result line; what the answer
                // wrote (the trace of a failed fill, with `--explain`)
                // follows it.
                let trace = out.text.split_off(start);
                out.errors += 1;
                let msg = format!("{}:{n}: {e}", self.log);
                let _ = writeln!(out.text, "{}", serde_json::json!({ "error": msg }));
                out.text.extend_from_slice(&trace);
            }
        });
        out
    }
}

/// The messages of a chunk's bad lines (`LOG:N: ...`), for standard error,
/// with what the job counted.
pub struct Counted<T> {
    /// The counts.
    pub tally: T,
    /// One message per bad line, in order.
    pub errors: Vec<String>,
}

/// `eval --events --summary`: counts, no output per record.
pub struct SummaryJob<'a> {
    /// The policy.
    pub policy: &'a Policy,
    /// Hooks switched off (`--disable`).
    pub overrides: &'a Overrides,
    /// The awaited hooks' results of lines without their own.
    pub results: &'a Results,
    /// The log's name in messages.
    pub log: &'a str,
}

impl ChunkJob for SummaryJob<'_> {
    type Output = Counted<Summary>;

    fn run(&self, chunk: &Chunk) -> Counted<Summary> {
        let mut out = Counted {
            tally: Summary::default(),
            errors: Vec::new(),
        };
        records(chunk, |n, record| {
            let decided = record.and_then(|r| {
                let results = line_results(&r, self.results)?;
                let query = self.policy.query(&r.event, Context::json(r.context()));
                let query = query.with_overrides(self.overrides);
                let decision = decision(query.with_results(&results))?;
                out.tally.record(&r.event, &decision);
                Ok(())
            });
            if let Err(e) = decided {
                out.tally.errors += 1;
                out.errors.push(format!("{}:{n}: {e}", self.log));
            }
        });
        out
    }
}

/// `hookc diff`: every record under both policies.
pub struct DiffJob<'a> {
    /// The policy before the change.
    pub old: &'a Policy,
    /// The policy after it.
    pub new: &'a Policy,
    /// The old policy's action severities.
    pub old_severities: Severities,
    /// The new policy's.
    pub new_severities: Severities,
    /// The log's name in messages.
    pub log: &'a str,
}

impl ChunkJob for DiffJob<'_> {
    type Output = Counted<DiffTally>;

    fn run(&self, chunk: &Chunk) -> Counted<DiffTally> {
        let mut out = Counted {
            tally: DiffTally::default(),
            errors: Vec::new(),
        };
        records(chunk, |n, record| {
            let compared = record.and_then(|r| {
                let ctx = Context::json(r.context());
                let results = r.results().map_err(|e| e.to_string())?.unwrap_or_default();
                let old = decision(self.old.query(&r.event, ctx).with_results(&results))
                    .map_err(|e| format!("under the old policy: {e}"))?;
                let new = decision(self.new.query(&r.event, ctx).with_results(&results))
                    .map_err(|e| format!("under the new policy: {e}"))?;
                out.tally.record(
                    n,
                    &r.event,
                    (&old, &self.old_severities),
                    (&new, &self.new_severities),
                );
                Ok(())
            });
            if let Err(e) = compared {
                out.tally.errors += 1;
                out.errors.push(format!("{}:{n}: {e}", self.log));
            }
        });
        out
    }
}

/// A query's decision, its error as a message.
fn decision<'p>(query: Query<'p, '_>) -> Result<hookc_runtime::Decision<'p>, String> {
    query.decision().map_err(|e| e.to_string())
}

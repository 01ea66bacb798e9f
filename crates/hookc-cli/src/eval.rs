//! `hookc eval POLICY --event E --context FILE`: one event's decision as
//! JSON, with `--explain` what happened to every hook; `--events LOG`
//! replays a log (a line per record, or `--summary` counts); `--expr`
//! evaluates one expression.

use crate::args::{eprint, print, read_file_or_stdin, Overlays, ReplayArgs, Sources};
use crate::error::CliError;
use crate::exit::Exit;
use crate::replay::jobs::{Answer, PrintJob, SummaryJob, TraceForm};
use crate::replay::log::LogReader;
use crate::replay::summary::Summary;
use crate::replay::{report_lines, ReplayError, ReplayProgress};
use clap::ValueEnum;
use hookc::diag::render;
use hookc_runtime::{Context, Policy, Results};
use std::io::Write;
use std::path::{Path, PathBuf};

#[derive(clap::Args)]
pub struct EvalArgs {
    /// The policy (not needed with `--expr`).
    #[command(flatten)]
    sources: Sources,
    #[command(flatten)]
    overlays: Overlays,
    /// The event to evaluate.
    #[arg(long, required_unless_present_any = ["events", "expr"])]
    event: Option<String>,
    /// The context, a JSON file (`-` for standard input); default `{}`.
    #[arg(long)]
    context: Option<PathBuf>,
    /// Replay a recorded event log: one `{"event": E, "context": {...}}` per line
    /// (`-` for standard input; gzip-compressed or not); prints one result
    /// line per input line, in order.
    #[arg(long, value_name = "LOG.jsonl", conflicts_with_all = ["event", "expr"])]
    events: Option<PathBuf>,
    /// With `--events`: print counts per event, deciding hook and action
    /// type instead of a line per event (`--format json`: one object).
    // (Checked in `eval`, not with clap's `requires`: next to `--event`'s
    // `required_unless_present_any` it lets `--summary --event E` through.)
    #[arg(long, conflicts_with_all = ["all", "explain"])]
    summary: bool,
    #[command(flatten)]
    replay: ReplayArgs,
    /// Print every match in order (a JSON array) instead of the first.
    #[arg(long)]
    all: bool,
    /// After the result, print what happened to every hook of the event.
    #[arg(long)]
    explain: bool,
    /// Switch off a hook for this evaluation (repeatable).
    #[arg(long = "disable", value_name = "HOOK_ID")]
    disable: Vec<String>,
    /// Resume an awaited hook with the host's result: `HOOK_ID=JSON`
    /// (repeatable); the evaluation binds it and goes on.
    #[arg(long = "result", value_name = "HOOK_ID=JSON")]
    result: Vec<String>,
    /// Results for awaited hooks from a JSON file: `{"HOOK_ID": RESULT, ...}`.
    #[arg(long, value_name = "FILE")]
    results: Option<PathBuf>,
    /// A `--disable` id that names no hook of the policy is ignored, with
    /// a note on standard error, instead of an error (hosts whose run
    /// overrides treat an unknown id as a no-op).
    // (No `requires = "disable"`: a host may pass it on every call.)
    #[arg(long)]
    ignore_unknown_disables: bool,
    /// Evaluate one expression against the context and print its value.
    #[arg(long, conflicts_with_all = ["all", "explain"])]
    expr: Option<String>,
    /// How to print the `--explain` trace (the result line is JSON either
    /// way) or the `--summary`.
    #[arg(long, value_enum, default_value_t = ExplainFormat::Human)]
    format: ExplainFormat,
}

/// `eval`'s `--format`, for `--explain` and `--summary`.
#[derive(Clone, Copy, ValueEnum)]
enum ExplainFormat {
    /// The trace as text after the result line: what happened to every
    /// hook of the event (with `--summary`: the counts as text).
    Human,
    /// The trace as one JSON object, on the line after the result (with
    /// `--summary`: the counts as one JSON object).
    Json,
}

/// Runs `hookc eval`.
pub fn run(args: &EvalArgs) -> Result<Exit, CliError> {
    if let Some(expr) = &args.expr {
        let text = read_context(args.context.as_deref())?;
        let ctx: serde_json::Value =
            serde_json::from_slice(&text).map_err(|source| CliError::Json {
                what: "the context".to_owned(),
                source,
            })?;
        let line = match hookc::expr_program::eval_expr(expr, &ctx) {
            Ok(Ok(v)) => v,
            Ok(Err(e)) => serde_json::json!({ "error": e.to_string() }),
            Err(hookc::expr_program::ExprError::Invalid {
                diagnostics,
                sources,
            }) => {
                let refs: Vec<_> = diagnostics.iter().collect();
                eprint(&render::human(&refs, &sources))?;
                return Ok(Exit::Findings);
            }
            Err(e) => return Err(CliError::Expr(e)),
        };
        print(&format!("{line}\n"))?;
        return Ok(Exit::Ok);
    }
    if args.summary && args.events.is_none() {
        return Err(CliError::SummaryWithoutLog);
    }
    let policy = args.overlays.over(args.sources.load()?)?;
    let (overrides, unknown) = policy.overrides_lenient(args.disable.iter().map(String::as_str));
    for id in unknown {
        let error = CliError::UnknownHook {
            error: hookc_runtime::UnknownHook(id.to_owned()),
            suggestion: hookc::suggest::did_you_mean(
                id,
                policy.hook_ids().chain(policy.absent_hook_ids()),
            )
            .map(str::to_owned),
        };
        if !args.ignore_unknown_disables {
            return Err(error);
        }
        eprintln!("note: {error} (`--disable {id}` ignored)");
    }
    let results = read_results(args.results.as_deref(), &args.result)?;
    if let Some(why) = results
        .ids()
        .find_map(|id| hookc_binding::bound::unknown_result(&policy, id))
    {
        return Err(CliError::UnknownResult(why));
    }
    let answer = Answer {
        overrides: &overrides,
        all: args.all,
        results: &results,
        explain: args.explain.then_some(match args.format {
            ExplainFormat::Human => TraceForm::Text,
            ExplainFormat::Json => TraceForm::Json,
        }),
    };
    if let Some(path) = &args.events {
        let mut log = LogReader::open(path)?;
        let settings = args.replay.settings();
        let name = log.name().to_owned();
        let mut progress = ReplayProgress::new(log.size());
        let mut errors = 0;
        if args.summary {
            let job = SummaryJob {
                policy: &policy,
                overrides: &overrides,
                results: &results,
                log: &name,
            };
            let mut summary = Summary::default();
            crate::replay::replay(&mut log, settings, &job, |counted, chunk| {
                progress.advance(chunk);
                report_lines(&counted.errors)?;
                summary.merge(counted.tally);
                Ok(())
            })?;
            progress.finish();
            errors = summary.errors;
            match args.format {
                ExplainFormat::Human => print(&summary.to_text())?,
                ExplainFormat::Json => print(&format!("{:#}\n", summary.to_json()))?,
            }
        } else {
            let job = PrintJob {
                policy: &policy,
                answer,
                log: &name,
            };
            let mut out = std::io::stdout().lock();
            crate::replay::replay(&mut log, settings, &job, |printed, chunk| {
                progress.advance(chunk);
                errors += printed.errors;
                out.write_all(&printed.text).map_err(ReplayError::Write)
            })?;
            progress.finish();
            out.flush().map_err(CliError::Stdout)?;
        }
        return Ok(if errors > 0 { Exit::Failed } else { Exit::Ok });
    }
    let event = args.event.as_deref().unwrap_or_default();
    let ctx = read_context(args.context.as_deref())?;
    let mut out = Vec::new();
    let answered = answer.write(&policy, event, Context::json(&ctx), &mut out);
    // Written even when the answer failed: with `--explain`, the trace of
    // a matched action that could not be filled.
    std::io::stdout()
        .write_all(&out)
        .map_err(CliError::Stdout)?;
    answered?;
    if let Some(note) = unheard_event(&policy, event) {
        eprintln!("{note}");
    }
    Ok(Exit::Ok)
}

/// The results of `--results FILE` and `--result ID=JSON` (later ones win).
fn read_results(file: Option<&Path>, given: &[String]) -> Result<Results, CliError> {
    let mut results = Results::new();
    if let Some(path) = file {
        let text = std::fs::read(path).map_err(|source| CliError::Read {
            path: path.to_owned(),
            source,
        })?;
        match serde_json::from_slice(&text) {
            Ok(serde_json::Value::Object(map)) => results = Results::from(map),
            Ok(found) => {
                return Err(CliError::ResultsNotObject {
                    path: path.to_owned(),
                    found,
                })
            }
            Err(source) => {
                return Err(CliError::Json {
                    what: format!("`{}`", path.display()),
                    source,
                })
            }
        }
    }
    for item in given {
        let Some((id, json)) = item.split_once('=') else {
            return Err(CliError::ResultSyntax(item.clone()));
        };
        let value = serde_json::from_str(json).map_err(|source| CliError::Json {
            what: format!("--result {id}: `{json}`"),
            source,
        })?;
        results.insert(id, value);
    }
    Ok(results)
}

/// A note for an event that no hook names (only `"*"` hooks, if any, run
/// for it), with the closest event name the policy knows: a misspelt
/// `--event` otherwise looks like a quiet "no match". For `*` itself, which
/// is a name like any other at evaluation, the note says so and what ran
/// (`docs/src/semantics.md#events`). The result stays what it is; the note
/// goes to standard error.
fn unheard_event(policy: &Policy, event: &str) -> Option<String> {
    if policy.event_names().any(|name| name == event) {
        return None;
    }
    if event == "*" {
        let ran = match policy.every_event_hooks() {
            0 => "the policy has no `\"*\"` hooks, so no hook ran".to_owned(),
            1 => "only the policy's `\"*\"` hook ran, as it runs for every event".to_owned(),
            n => format!("only the policy's {n} `\"*\"` hooks ran, as they run for every event"),
        };
        return Some(format!(
            "note: `*` is not a wildcard at evaluation: it is evaluated as an event named `*`, \
             which no hook names; {ran}"
        ));
    }
    let mut note = format!("note: no hook of the policy names the event `{event}`");
    if let Some(close) = hookc::suggest::did_you_mean(event, policy.event_names()) {
        note.push_str(&format!("; did you mean `{close}`?"));
    }
    Some(note)
}

/// The context of `--context FILE` (`-` is standard input); `{}` without.
fn read_context(path: Option<&Path>) -> Result<Vec<u8>, CliError> {
    match path {
        None => Ok(b"{}".to_vec()),
        Some(path) => read_file_or_stdin(path, "the context"),
    }
}

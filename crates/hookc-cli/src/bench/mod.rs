//! `hookc bench POLICY --contexts DIR | --events LOG`: how long the
//! policy takes on your own events. This module reads the cases; the
//! measurement and its method are [`measure`].

pub mod measure;

pub use measure::ContextForm;

use crate::args::{print, Overlays, Sources};
use crate::error::CliError;
use crate::exit::Exit;
use measure::{BenchCase, Settings, TerminalProgress};
use std::path::{Path, PathBuf};

#[derive(clap::Args)]
#[command(group(clap::ArgGroup::new("cases").required(true).args(["contexts", "events"])))]
pub struct BenchArgs {
    #[command(flatten)]
    sources: Sources,
    #[command(flatten)]
    overlays: Overlays,
    /// A directory of contexts: every `*.json` file in it, by name. Each is an
    /// event record `{"event": E, "context": {...}}` (an `expect` key, as in
    /// hookc's bench data, is allowed and not checked) or a bare context
    /// (then `--event` is required).
    #[arg(long, value_name = "DIR")]
    contexts: Option<PathBuf>,
    /// A recorded event log, one `{"event": E, "context": {...}}` per line;
    /// each line is a case (`line N`).
    #[arg(long, value_name = "LOG.jsonl", conflicts_with = "event")]
    events: Option<PathBuf>,
    /// The event of the bare contexts in `--contexts`.
    #[arg(long)]
    event: Option<String>,
    /// Which runtime call is timed.
    #[arg(long, value_enum, default_value_t = ContextForm::Json)]
    mode: ContextForm,
    /// Seconds of measurement per case (after a warm-up of a tenth of that,
    /// at most 0.1 s).
    #[arg(long, value_name = "SECS", default_value_t = 1.0)]
    time_per_case: f64,
    /// A short run (CI): `--time-per-case 0.1`.
    #[arg(long, conflicts_with = "time_per_case")]
    quick: bool,
    /// Print one JSON document instead of the table.
    #[arg(long)]
    json: bool,
}

/// Runs `hookc bench`.
pub fn run(args: &BenchArgs) -> Result<Exit, CliError> {
    let secs = if args.quick { 0.1 } else { args.time_per_case };
    if !(secs.is_finite() && secs > 0.0 && secs <= 3600.0) {
        return Err(CliError::TimePerCase(secs));
    }
    let policy = args.overlays.over(args.sources.load()?)?;
    let mut cases = Vec::new();
    if let Some(dir) = &args.contexts {
        cases.extend(context_files(dir, args.event.as_deref())?);
    }
    if let Some(log) = &args.events {
        cases.extend(log_records(log)?);
    }
    let settings = Settings::new(args.mode, std::time::Duration::from_secs_f64(secs));
    if !measure::optimized_build() && !args.json {
        eprintln!("note: this hookc is a debug build; build with --release for meaningful numbers");
    }
    let report = measure::run(&policy, &cases, &settings, &mut TerminalProgress::new())?;
    if args.json {
        print(&format!("{:#}\n", report.to_json()))?;
    } else {
        print(&report.to_table())?;
    }
    Ok(Exit::Ok)
}

/// The cases of `--contexts DIR`: every `*.json` file, by name.
fn context_files(dir: &Path, event: Option<&str>) -> Result<Vec<BenchCase>, CliError> {
    let unreadable = |source| CliError::Read {
        path: dir.to_owned(),
        source,
    };
    let mut files = Vec::new();
    for entry in std::fs::read_dir(dir).map_err(unreadable)? {
        let path = entry.map_err(unreadable)?.path();
        if path.extension().is_some_and(|x| x == "json") && path.is_file() {
            files.push(path);
        }
    }
    files.sort_by(|a, b| a.file_name().cmp(&b.file_name()));
    if files.is_empty() {
        return Err(CliError::NoContexts(dir.to_owned()));
    }
    let mut cases = Vec::new();
    for path in files {
        let name = path
            .file_name()
            .map(|n| n.to_string_lossy().into_owned())
            .unwrap_or_default();
        let text = std::fs::read(&path).map_err(|source| CliError::Read {
            path: path.clone(),
            source,
        })?;
        cases.push(
            BenchCase::from_context_file(name, text, event)
                .map_err(|source| CliError::ContextFile { path, source })?,
        );
    }
    Ok(cases)
}

/// The cases of `--events LOG`: a case per record, `line N`.
fn log_records(log: &Path) -> Result<Vec<BenchCase>, CliError> {
    let text = std::fs::read_to_string(log).map_err(|source| CliError::Read {
        path: log.to_owned(),
        source,
    })?;
    let mut cases = Vec::new();
    for (n, line) in text.lines().enumerate() {
        if line.trim().is_empty() {
            continue;
        }
        let rec =
            serde_json::from_str::<LogLine>(line).map_err(|source| CliError::EventRecord {
                path: log.to_owned(),
                line: n + 1,
                source,
            })?;
        cases.push(BenchCase::from_value(
            format!("line {}", n + 1),
            rec.event,
            rec.context,
        ));
    }
    if cases.is_empty() {
        return Err(CliError::NoRecords(log.to_owned()));
    }
    Ok(cases)
}

/// One line of an event log.
#[derive(serde::Deserialize)]
struct LogLine {
    event: String,
    #[serde(default)]
    context: serde_json::Value,
}

//! `hookc diff OLD NEW --events LOG`: a log replayed under two policies,
//! the events they decide differently grouped by transition.

use crate::args::{parse_layer, parse_layer_order, print, ReplayArgs, Sources};
use crate::error::CliError;
use crate::exit::Exit;
use crate::replay::diff::{DiffTally, Severities};
use crate::replay::jobs::DiffJob;
use crate::replay::log::LogReader;
use crate::replay::{report_lines, ReplayProgress};
use clap::ValueEnum;
use hookc::compile::{LayerName, LayerOrder};
use std::path::PathBuf;

#[derive(clap::Args)]
#[command(group(clap::ArgGroup::new("old").required(true).multiple(true).args(["policies", "old_files", "old_layers", "log"])))]
#[command(group(clap::ArgGroup::new("new").required(true).multiple(true).args(["policies", "new_files", "new_layers", "log"])))]
pub struct DiffArgs {
    /// OLD and NEW, one file each: an artifact (`.hkb`) or a source file.
    /// A policy of several files is given with `--old`/`--new` or
    /// `--old-layer`/`--new-layer` instead.
    #[arg(value_name = "OLD NEW", num_args = 2, conflicts_with_all = ["old_files", "new_files", "old_layers", "new_layers", "log"])]
    policies: Vec<PathBuf>,
    /// A file of the old policy (repeatable; as `eval`'s FILE...).
    #[arg(long = "old", value_name = "FILE", conflicts_with = "old_layers")]
    old_files: Vec<PathBuf>,
    /// A file of the new policy (repeatable).
    #[arg(long = "new", value_name = "FILE", conflicts_with = "new_layers")]
    new_files: Vec<PathBuf>,
    /// A file of the old policy in a named layer (repeatable; as `eval --layer`).
    #[arg(long = "old-layer", value_name = "NAME=FILE", value_parser = parse_layer)]
    old_layers: Vec<(LayerName, PathBuf)>,
    /// A file of the new policy in a named layer (repeatable).
    #[arg(long = "new-layer", value_name = "NAME=FILE", value_parser = parse_layer)]
    new_layers: Vec<(LayerName, PathBuf)>,
    /// How the `--old-layer`s are listed (as `eval --layer-order`).
    #[arg(long, value_name = "lowest-first|highest-first", value_parser = parse_layer_order, requires = "old_layers")]
    old_layer_order: Option<LayerOrder>,
    /// How the `--new-layer`s are listed.
    #[arg(long, value_name = "lowest-first|highest-first", value_parser = parse_layer_order, requires = "new_layers")]
    new_layer_order: Option<LayerOrder>,
    /// The event log (as `eval --events`: `-` for standard input, gzip or not).
    #[arg(long, value_name = "LOG.jsonl", required_unless_present = "log")]
    events: Option<PathBuf>,
    /// Instead of two policies and an event log: a decision log written
    /// with `hookc hook --shadow`, whose shadow lines are compared with
    /// the live ones (what the candidate would have changed on live
    /// traffic).
    #[arg(long, value_name = "FILE", conflicts_with_all = ["old_files", "new_files", "old_layers", "new_layers", "events"])]
    log: Option<PathBuf>,
    /// Print the transitions as text, or as one JSON object.
    #[arg(long, value_enum, default_value_t = DiffFormat::Human)]
    format: DiffFormat,
    #[command(flatten)]
    replay: ReplayArgs,
}

impl DiffArgs {
    /// The old and the new policy's sources, as `eval` takes them.
    fn sources(&self) -> (Sources, Sources) {
        let side = |files: &[PathBuf], layers: &[(LayerName, PathBuf)], order| Sources {
            files: files.to_vec(),
            layers: layers.to_vec(),
            layer_order: order,
        };
        match self.policies.as_slice() {
            [old, new] => (
                side(std::slice::from_ref(old), &[], None),
                side(std::slice::from_ref(new), &[], None),
            ),
            _ => (
                side(&self.old_files, &self.old_layers, self.old_layer_order),
                side(&self.new_files, &self.new_layers, self.new_layer_order),
            ),
        }
    }
}

/// `diff`'s `--format`.
#[derive(Clone, Copy, ValueEnum)]
enum DiffFormat {
    /// The transitions as text: each with its count and example lines.
    Human,
    /// One JSON object: `{"events", "changed", "transitions": [...]}`.
    Json,
}

/// `hookc diff`: both policies loaded as `eval` loads one, the log
/// replayed once, each record evaluated under both. Exit code: 2 when a
/// line is not an event record or fails to evaluate under either policy
/// (whatever changed), else 1 when a decision changed, else 0.
pub fn run(args: &DiffArgs) -> Result<Exit, CliError> {
    let events = match (&args.log, &args.events) {
        (Some(log), _) => {
            return crate::shadow::report(log, matches!(args.format, DiffFormat::Json))
        }
        (None, Some(events)) => events,
        (None, None) => return Err(CliError::NoEvents),
    };
    let (old, new) = args.sources();
    let old = old.load()?.policy;
    let new = new.load()?.policy;
    let mut log = LogReader::open(events)?;
    let name = log.name().to_owned();
    let job = DiffJob {
        old: &old,
        new: &new,
        old_severities: Severities::of(&old),
        new_severities: Severities::of(&new),
        log: &name,
    };
    let mut progress = ReplayProgress::new(log.size());
    let mut tally = DiffTally::default();
    crate::replay::replay(&mut log, args.replay.settings(), &job, |counted, chunk| {
        progress.advance(chunk);
        report_lines(&counted.errors)?;
        tally.merge(counted.tally);
        Ok(())
    })?;
    progress.finish();
    match args.format {
        DiffFormat::Human => print(&tally.to_text())?,
        DiffFormat::Json => print(&format!("{}\n", tally.to_json()))?,
    }
    Ok(if tally.errors > 0 {
        Exit::Failed
    } else {
        Exit::findings_if(tally.changed() > 0)
    })
}

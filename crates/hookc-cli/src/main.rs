//! The `hookc` command line: a thin clap layer over the library.
//!
//! Exit codes: 0 ok; 1 diagnostics (errors, or warnings with
//! `--deny-warnings`), or for `diff` a changed decision; 2 usage or I/O
//! errors, and malformed lines of a replayed log (over a `diff`'s 1).

#![forbid(unsafe_code)]
#![deny(clippy::indexing_slicing)]

mod bench;
mod hook;
mod host_actions;
mod init;
mod policy_test;
mod replay;
mod serve;

use bench::ContextForm;
use clap::{Parser, Subcommand, ValueEnum};
use hookc::compile::{Compilation, LayerName, LayerOrder};
use hookc::diag::render;
use hookc::files::{LoadedPolicy, Overlay, Placement, PolicyFile};
use hookc_runtime::{Context, Policy, Results};
use replay::diff::DiffTally;
use replay::jobs::{Answer, DiffJob, PrintJob, SummaryJob, TraceForm};
use replay::log::LogReader;
use replay::summary::Summary;
use replay::{ReplayError, ReplayProgress};
use std::io::{Read, Write};
use std::path::PathBuf;
use std::process::ExitCode;

#[derive(Parser)]
#[command(
    name = "hookc",
    version,
    about = "A policy compiler and bytecode evaluator for agent hooks"
)]
struct Cli {
    #[command(subcommand)]
    command: Command,
}

#[derive(Subcommand)]
enum Command {
    /// Parse and type-check hook policies; print diagnostics.
    Check {
        #[command(flatten)]
        sources: Sources,
        #[command(flatten)]
        diag: DiagArgs,
    },
    /// Compile hook policies into a verified artifact (`-o OUT.hkb`), or
    /// write the normalized hooks (`--emit yaml|json`).
    Compile {
        #[command(flatten)]
        sources: Sources,
        /// Write the normalized hooks as YAML or JSON instead of an artifact.
        #[arg(long, value_enum)]
        emit: Option<Emit>,
        /// Where to write (required for an artifact; default for `--emit`: standard output).
        #[arg(short, long, required_unless_present = "emit")]
        output: Option<PathBuf>,
        /// Leave out the debug section (source locations and sub-condition
        /// texts for explain traces): a smaller artifact whose traces list
        /// the values each hook reads instead.
        #[arg(long, conflicts_with = "emit")]
        strip: bool,
        #[command(flatten)]
        diag: DiagArgs,
    },
    /// Evaluate an event against a policy and print the match as JSON.
    #[command(mut_arg("files", |a| a.help(ARTIFACT_OR_SOURCES)))]
    Eval(EvalArgs),
    /// Replay an event log under two policies and report the events they
    /// decide differently, grouped by transition (exit 1 when any).
    Diff(DiffArgs),
    /// Print a readable listing of a policy's bytecode.
    #[command(mut_arg("files", |a| a.help(ARTIFACT_OR_SOURCES)))]
    Disasm {
        #[command(flatten)]
        sources: Sources,
        #[command(flatten)]
        overlays: Overlays,
    },
    /// Benchmark a policy on your own contexts: ns per evaluation (median,
    /// p99) and evaluations per second, per context.
    #[command(mut_arg("files", |a| a.help(ARTIFACT_OR_SOURCES)))]
    Bench(BenchArgs),
    /// Run policy test files: each case's event and context against the
    /// policy, compared with the hook and action it expects.
    Test(TestArgs),
    /// Be an agent host's hook: read one payload on standard input and
    /// answer the policy's decision in the host's format (fail closed).
    Hook(hook::HookArgs),
    /// Set a project up for an agent host: a starter policy, its tests, and
    /// the host's settings entries calling `hookc hook` (merged into an
    /// existing settings file).
    Init(init::InitArgs),
    /// Serve the hook over HTTP on a loopback address (`POST /hook/HOST`,
    /// `GET /health`), the policy reloaded when its files change.
    Serve(serve::ServeArgs),
}

/// The FILE help of the commands that run a policy.
const ARTIFACT_OR_SOURCES: &str =
    "The policy: one artifact (`.hkb`, from `hookc compile`), or its source \
     files (YAML hook files, directive XML) in source order, compiled first";

#[derive(clap::Args)]
struct TestArgs {
    /// Test files (YAML: `policy: [FILE...]` and `cases: [...]`).
    #[arg(required = true)]
    files: Vec<PathBuf>,
    /// Test against this policy instead of the one each test file names:
    /// one artifact (`.hkb`) or sources (repeatable).
    #[arg(long, value_name = "FILE")]
    policy: Vec<PathBuf>,
    /// How to print the report.
    #[arg(long, value_enum, default_value_t = ReportFormat::Human)]
    format: ReportFormat,
    #[command(flatten)]
    overlays: Overlays,
}

#[derive(clap::Args)]
#[command(group(clap::ArgGroup::new("cases").required(true).args(["contexts", "events"])))]
struct BenchArgs {
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

#[derive(clap::Args)]
struct EvalArgs {
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

/// How a log is replayed (`eval --events`, `diff`).
#[derive(clap::Args)]
struct ReplayArgs {
    /// Worker threads evaluating the log (default: every core).
    #[arg(long, value_name = "N", value_parser = clap::value_parser!(u16).range(1..))]
    jobs: Option<u16>,
    /// Bytes of log per chunk handed to a worker (tests: many small chunks).
    #[arg(long, hide = true, value_parser = clap::value_parser!(u32).range(1..))]
    chunk_bytes: Option<u32>,
}

impl ReplayArgs {
    fn settings(&self) -> replay::ReplaySettings {
        replay::ReplaySettings {
            jobs: self.jobs.map_or_else(replay::available_jobs, usize::from),
            chunk_bytes: self
                .chunk_bytes
                .map_or(replay::ReplaySettings::CHUNK_BYTES, |n| n as usize),
        }
    }
}

#[derive(clap::Args)]
#[command(group(clap::ArgGroup::new("old").required(true).multiple(true).args(["policies", "old_files", "old_layers"])))]
#[command(group(clap::ArgGroup::new("new").required(true).multiple(true).args(["policies", "new_files", "new_layers"])))]
struct DiffArgs {
    /// OLD and NEW, one file each: an artifact (`.hkb`) or a source file.
    /// A policy of several files is given with `--old`/`--new` or
    /// `--old-layer`/`--new-layer` instead.
    #[arg(value_name = "OLD NEW", num_args = 2, conflicts_with_all = ["old_files", "new_files", "old_layers", "new_layers"])]
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
    #[arg(long, value_name = "LOG.jsonl")]
    events: PathBuf,
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

/// Where a policy comes from: files in source order, or files in named
/// layers.
#[derive(clap::Args)]
struct Sources {
    /// Policy source files (YAML hook files, directive XML), in source order.
    // `eval`, `disasm` and `bench` say that they take an artifact too
    // (`ARTIFACT_OR_SOURCES`).
    #[arg(value_name = "FILE")]
    files: Vec<PathBuf>,
    /// A policy file in a named layer, instead of FILE (repeatable): every
    /// hook of FILE is in layer NAME. Layers are ordered by first mention,
    /// lowest first unless `--layer-order highest-first`; at equal priority
    /// a higher layer's hooks run first
    /// (`--layer builtin=b.yaml --layer project=p.yaml --layer directive=d.xml --layer run=r.yaml`).
    #[arg(long = "layer", value_name = "NAME=FILE", value_parser = parse_layer, conflicts_with = "files")]
    layers: Vec<(LayerName, PathBuf)>,
    /// How the `--layer`s are listed: `lowest-first` (the default) or
    /// `highest-first` (`--layer agent=a.yaml --layer workflow=w.yaml
    /// --layer step=s.yaml`, agent hooks first at equal priority). A file
    /// that declares another `layer_order` is an error.
    #[arg(long, value_name = "lowest-first|highest-first", value_parser = parse_layer_order, requires = "layers")]
    layer_order: Option<LayerOrder>,
}

/// `--layer-order`: a [`LayerOrder`] as spelled in hook files, with `-` for `_`.
fn parse_layer_order(arg: &str) -> Result<LayerOrder, String> {
    use hookc::ir::Spelled;
    LayerOrder::from_name(&arg.replace('-', "_")).ok_or_else(|| {
        let names: Vec<String> = LayerOrder::names().map(|n| n.replace('_', "-")).collect();
        format!("expected one of `{}`, got `{arg}`", names.join("`, `"))
    })
}

impl Sources {
    fn policy_files(&self) -> Result<Vec<PolicyFile>, String> {
        if self.files.is_empty() && self.layers.is_empty() {
            return Err("no policy given: name its files, or `--layer NAME=FILE`".to_owned());
        }
        Ok(if self.layers.is_empty() {
            hookc::files::policy_files(&self.files)
        } else {
            self.layers
                .iter()
                .map(|(name, path)| PolicyFile::in_layer(name.clone(), path))
                .collect()
        })
    }

    /// Reads and compiles the sources.
    fn compile(&self) -> Result<Compilation, String> {
        hookc::files::compile_files_ordered(&self.policy_files()?, self.layer_order)
            .map_err(|e| e.to_string())
    }

    /// Loads the policy: one artifact, or the sources compiled, their
    /// warnings printed on standard error (as `check` prints them).
    fn load(&self) -> Result<LoadedPolicy, String> {
        let loaded = hookc::files::load_policy_ordered(&self.policy_files()?, self.layer_order)
            .map_err(|e| e.render())?;
        eprint!("{}", loaded.warnings);
        Ok(loaded)
    }
}

/// Policies layered over (or under) the loaded one for this run, without
/// recompiling it (`Policy::with_layer`, `Policy::with_layer_below`).
#[derive(clap::Args)]
struct Overlays {
    /// Layer this policy over the one given, for this run (repeatable; each
    /// above the ones before): an artifact (`.hkb`), or one source file
    /// compiled into layer NAME (default `run`, then `run-2`, ...) with the
    /// declarations of the policy's sources (action types, schema, ...;
    /// alone over an artifact). Its hooks marked `replace: true` replace
    /// the policy's hooks of the same id; any other id both have is an
    /// error.
    #[arg(long = "overlay", value_name = "[NAME=]FILE", value_parser = parse_overlay)]
    overlays: Vec<PolicyFile>,
    /// As `--overlay`, but below the policy (repeatable; each below the
    /// ones before, after every `--overlay`): at equal priority the
    /// policy's hooks run first. The policy's hooks marked `replace: true`
    /// replace the overlay's hooks of the same id.
    #[arg(long = "overlay-below", value_name = "[NAME=]FILE", value_parser = parse_overlay)]
    below: Vec<PolicyFile>,
}

impl Overlays {
    /// The overlays in the order they are layered: every `--overlay`, then
    /// every `--overlay-below` (the stack does not depend on how the two
    /// are interleaved on the command line).
    fn list(&self) -> Vec<Overlay> {
        let above = self.overlays.iter().map(|file| (file, Placement::Above));
        let below = self.below.iter().map(|file| (file, Placement::Below));
        above
            .chain(below)
            .map(|(file, placement)| Overlay {
                file: file.clone(),
                placement,
            })
            .collect()
    }

    /// `base` with the overlays layered over and under it, their warnings
    /// printed on standard error.
    fn over(&self, base: LoadedPolicy) -> Result<Policy, String> {
        let loaded = hookc::files::layer_overlays(base, &self.list()).map_err(|e| e.render())?;
        eprint!("{}", loaded.warnings);
        Ok(loaded.policy)
    }
}

/// `[NAME=]FILE` of `--overlay`: a prefix up to the first `=` that is a
/// layer name names the layer, else the whole argument is the file.
fn parse_overlay(arg: &str) -> Result<PolicyFile, String> {
    let named = arg
        .split_once('=')
        .is_some_and(|(name, _)| LayerName::new(name).is_ok());
    if named {
        let (name, path) = parse_layer(arg)?;
        return Ok(PolicyFile::in_layer(name, path));
    }
    if arg.is_empty() {
        return Err("expected [NAME=]FILE, got nothing".to_owned());
    }
    Ok(PolicyFile::new(arg))
}

/// `NAME=FILE` of `--layer`.
fn parse_layer(arg: &str) -> Result<(LayerName, PathBuf), String> {
    let Some((name, file)) = arg.split_once('=') else {
        return Err(format!("expected NAME=FILE, got `{arg}`"));
    };
    let name = LayerName::new(name).map_err(|e| e.to_string())?;
    if file.is_empty() {
        return Err(format!(
            "expected NAME=FILE, the file is missing in `{arg}`"
        ));
    }
    Ok((name, PathBuf::from(file)))
}

#[derive(clap::Args)]
struct DiagArgs {
    /// How to print diagnostics.
    #[arg(long, value_enum, default_value_t = DiagFormat::Human)]
    format: DiagFormat,
    /// Treat warnings as errors.
    #[arg(long)]
    deny_warnings: bool,
}

/// `check`'s and `compile`'s `--format`.
#[derive(Clone, Copy, ValueEnum)]
enum DiagFormat {
    /// Source snippets with carets, then a count by code and a summary line,
    /// on standard error.
    Human,
    /// One JSON object per diagnostic per line, on standard output.
    Json,
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

/// `diff`'s `--format`.
#[derive(Clone, Copy, ValueEnum)]
enum DiffFormat {
    /// The transitions as text: each with its count and example lines.
    Human,
    /// One JSON object: `{"events", "changed", "transitions": [...]}`.
    Json,
}

/// `test`'s `--format`.
#[derive(Clone, Copy, ValueEnum)]
enum ReportFormat {
    /// A `cargo test`-like report on standard output: a line per case,
    /// each failure with its explain trace, then a summary (a policy's
    /// diagnostics on standard error).
    Human,
    /// One JSON document on standard output: every file and case with its
    /// outcome.
    Json,
}

#[derive(Clone, Copy, ValueEnum)]
enum Emit {
    /// Normalized hooks as YAML.
    Yaml,
    /// Normalized hooks as JSON.
    Json,
}

fn main() -> ExitCode {
    let cli = Cli::parse();
    match run(cli) {
        Ok(code) => code,
        Err(message) => {
            eprintln!("error: {message}");
            ExitCode::from(2)
        }
    }
}

fn run(cli: Cli) -> Result<ExitCode, String> {
    match cli.command {
        Command::Check { sources, diag } => {
            let c = sources.compile()?;
            let failed = report(&c, &diag)?;
            Ok(exit(failed))
        }
        Command::Compile {
            sources,
            emit,
            output,
            strip,
            diag,
        } => {
            let c = sources.compile()?;
            let failed = report(&c, &diag)?;
            if failed {
                return Ok(exit(true));
            }
            let Some(policy) = c.policy.as_ref() else {
                return Ok(exit(true));
            };
            let bytes = match emit {
                Some(Emit::Yaml) => hookc::normalize::to_yaml(policy)
                    .map_err(|e| format!("cannot write YAML: {e}"))?
                    .into_bytes(),
                Some(Emit::Json) => {
                    let mut t = serde_json::to_string_pretty(&hookc::normalize::normalized(policy))
                        .map_err(|e| format!("cannot write JSON: {e}"))?;
                    t.push('\n');
                    t.into_bytes()
                }
                None => {
                    let mut program = hookc::lower::lower_with_debug(policy, &c.sources);
                    if strip {
                        program.debug = hookc_runtime::bytecode::DebugInfo::default();
                    }
                    let bytes = hookc_runtime::artifact::encode(&program);
                    // What we write must be what a runtime accepts: load it
                    // back (decode and verify) before writing it. This is
                    // the one verification (regexes compiled, indexes built).
                    Policy::from_artifact(&bytes).map_err(|e| {
                        format!("the compiled artifact does not load ({e}); this is a bug in hookc")
                    })?;
                    bytes
                }
            };
            match output {
                Some(path) => {
                    std::fs::write(&path, &bytes)
                        .map_err(|e| format!("cannot write `{}`: {e}", path.display()))?;
                    eprintln!("{}", wrote_line(&path, policy, bytes.len()));
                }
                None => std::io::stdout()
                    .write_all(&bytes)
                    .map_err(|e| format!("cannot write to standard output: {e}"))?,
            }
            Ok(ExitCode::SUCCESS)
        }
        Command::Eval(args) => eval(args),
        Command::Diff(args) => diff(args),
        Command::Disasm { sources, overlays } => {
            let policy = overlays.over(sources.load()?)?;
            print(&hookc_runtime::bytecode::disasm::disassemble(
                policy.program(),
            ))?;
            Ok(ExitCode::SUCCESS)
        }
        Command::Bench(args) => bench(args),
        Command::Test(args) => test(args),
        Command::Hook(args) => Ok(hook::run(&args)),
        Command::Serve(args) => Ok(serve::run(&args)),
        Command::Init(args) => {
            print(&init::run(&args).map_err(|e| e.to_string())?)?;
            Ok(ExitCode::SUCCESS)
        }
    }
}

fn test(args: TestArgs) -> Result<ExitCode, String> {
    use crate::policy_test::{Options, Run};
    let run = Run::new(
        &args.files,
        &Options {
            policy: args.policy,
            overlays: args.overlays.list(),
        },
    );
    match args.format {
        ReportFormat::Human => {
            let (out, err) = run.to_text();
            std::io::stderr()
                .write_all(err.as_bytes())
                .map_err(|e| format!("cannot write to standard error: {e}"))?;
            print(&out)?;
        }
        ReportFormat::Json => print(&format!("{:#}\n", run.to_json()))?,
    }
    Ok(ExitCode::from(run.exit_code()))
}

fn bench(args: BenchArgs) -> Result<ExitCode, String> {
    use crate::bench::{BenchCase, Settings, TerminalProgress};
    let secs = if args.quick { 0.1 } else { args.time_per_case };
    if !(secs.is_finite() && secs > 0.0 && secs <= 3600.0) {
        return Err(format!(
            "--time-per-case must be more than 0 and at most 3600 seconds, not {secs}"
        ));
    }
    let policy = args.overlays.over(args.sources.load()?)?;
    let mut cases = Vec::new();
    if let Some(dir) = &args.contexts {
        let entries = std::fs::read_dir(dir)
            .map_err(|e| format!("cannot read the directory `{}`: {e}", dir.display()))?;
        let mut files = Vec::new();
        for entry in entries {
            let entry =
                entry.map_err(|e| format!("cannot read the directory `{}`: {e}", dir.display()))?;
            let path = entry.path();
            if path.extension().is_some_and(|x| x == "json") && path.is_file() {
                files.push(path);
            }
        }
        files.sort_by(|a, b| a.file_name().cmp(&b.file_name()));
        if files.is_empty() {
            return Err(format!("`{}` has no `*.json` files", dir.display()));
        }
        for path in files {
            let name = path
                .file_name()
                .map(|n| n.to_string_lossy().into_owned())
                .unwrap_or_default();
            let text = std::fs::read(&path)
                .map_err(|e| format!("cannot read `{}`: {e}", path.display()))?;
            cases.push(
                BenchCase::from_context_file(name, text, args.event.as_deref())
                    .map_err(|e| format!("`{}` {e}", path.display()))?,
            );
        }
    }
    if let Some(log) = &args.events {
        let text = std::fs::read_to_string(log)
            .map_err(|e| format!("cannot read `{}`: {e}", log.display()))?;
        for (n, line) in text.lines().enumerate() {
            if line.trim().is_empty() {
                continue;
            }
            let rec = serde_json::from_str::<LogLine>(line)
                .map_err(|e| format!("{}:{}: not an event record ({e})", log.display(), n + 1))?;
            cases.push(BenchCase::from_value(
                format!("line {}", n + 1),
                rec.event,
                rec.context,
            ));
        }
        if cases.is_empty() {
            return Err(format!("`{}` has no event records", log.display()));
        }
    }
    let settings = Settings::new(args.mode, std::time::Duration::from_secs_f64(secs));
    if !crate::bench::optimized_build() && !args.json {
        eprintln!("note: this hookc is a debug build; build with --release for meaningful numbers");
    }
    let report = crate::bench::run(&policy, &cases, &settings, &mut TerminalProgress::new())
        .map_err(|e| e.to_string())?;
    if args.json {
        print(&format!("{:#}\n", report.to_json()))?;
    } else {
        print(&report.to_table())?;
    }
    Ok(ExitCode::SUCCESS)
}

/// Writes to standard output.
fn print(text: &str) -> Result<(), String> {
    std::io::stdout()
        .write_all(text.as_bytes())
        .map_err(|e| format!("cannot write to standard output: {e}"))
}

/// Reads a context file (`-` is standard input).
fn read_context(path: Option<&PathBuf>) -> Result<Vec<u8>, String> {
    match path {
        None => Ok(b"{}".to_vec()),
        Some(p) if p.as_os_str() == "-" => {
            let mut buf = Vec::new();
            std::io::stdin()
                .read_to_end(&mut buf)
                .map_err(|e| format!("cannot read the context from standard input: {e}"))?;
            Ok(buf)
        }
        Some(p) => std::fs::read(p).map_err(|e| format!("cannot read `{}`: {e}", p.display())),
    }
}

fn eval(args: EvalArgs) -> Result<ExitCode, String> {
    if let Some(expr) = &args.expr {
        let text = read_context(args.context.as_ref())?;
        let ctx: serde_json::Value = serde_json::from_slice(&text)
            .map_err(|e| format!("the context is not valid JSON: {e}"))?;
        let line = match hookc::expr_program::eval_expr(expr, &ctx) {
            Ok(Ok(v)) => v,
            Ok(Err(e)) => serde_json::json!({ "error": e.to_string() }),
            Err(hookc::expr_program::ExprError::Invalid {
                diagnostics,
                sources,
            }) => {
                let refs: Vec<_> = diagnostics.iter().collect();
                eprint!("{}", render::human(&refs, &sources));
                return Ok(ExitCode::from(1));
            }
            Err(e) => return Err(e.to_string()),
        };
        print(&format!("{line}\n"))?;
        return Ok(ExitCode::SUCCESS);
    }
    if args.summary && args.events.is_none() {
        return Err("--summary counts the events of a log: give it with --events LOG".to_owned());
    }
    let policy = args.overlays.over(args.sources.load()?)?;
    let (overrides, unknown) = policy.overrides_lenient(args.disable.iter().map(String::as_str));
    for id in unknown {
        let e = hookc_runtime::UnknownHook(id.to_owned());
        let close =
            hookc::suggest::did_you_mean(id, policy.hook_ids().chain(policy.absent_hook_ids()));
        let message = match close {
            Some(close) => format!("{e}; did you mean `{close}`?"),
            None => e.to_string(),
        };
        if !args.ignore_unknown_disables {
            return Err(message);
        }
        eprintln!("note: {message} (`--disable {id}` ignored)");
    }
    let results = read_results(args.results.as_ref(), &args.result)?;
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
        let mut log = LogReader::open(path).map_err(|e| e.to_string())?;
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
            replay::replay(&mut log, settings, &job, |counted, chunk| {
                progress.advance(chunk);
                report_lines(&counted.errors)?;
                summary.merge(counted.tally);
                Ok(())
            })
            .map_err(|e| e.to_string())?;
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
            replay::replay(&mut log, settings, &job, |printed, chunk| {
                progress.advance(chunk);
                errors += printed.errors;
                out.write_all(&printed.text).map_err(ReplayError::Write)
            })
            .map_err(|e| e.to_string())?;
            progress.finish();
            out.flush()
                .map_err(|e| format!("cannot write to standard output: {e}"))?;
        }
        return Ok(if errors > 0 {
            ExitCode::from(2)
        } else {
            ExitCode::SUCCESS
        });
    }
    let event = args.event.as_deref().unwrap_or_default();
    let ctx = read_context(args.context.as_ref())?;
    let mut out = Vec::new();
    let answered = answer.write(&policy, event, Context::json(&ctx), &mut out);
    // Written even when the answer failed: with `--explain`, the trace of
    // a matched action that could not be filled.
    std::io::stdout()
        .write_all(&out)
        .map_err(|e| format!("cannot write to standard output: {e}"))?;
    answered.map_err(|e| e.to_string())?;
    if let Some(note) = unheard_event(&policy, event) {
        eprintln!("{note}");
    }
    Ok(ExitCode::SUCCESS)
}

/// The results of `--results FILE` and `--result ID=JSON` (later ones win).
fn read_results(file: Option<&PathBuf>, given: &[String]) -> Result<Results, String> {
    let mut results = Results::new();
    if let Some(path) = file {
        let text =
            std::fs::read(path).map_err(|e| format!("cannot read `{}`: {e}", path.display()))?;
        match serde_json::from_slice(&text) {
            Ok(serde_json::Value::Object(map)) => results = Results::from(map),
            Ok(other) => {
                return Err(format!(
                    "`{}` must hold a JSON object of results by hook id, not {other}",
                    path.display()
                ))
            }
            Err(e) => return Err(format!("`{}` is not valid JSON: {e}", path.display())),
        }
    }
    for item in given {
        let Some((id, json)) = item.split_once('=') else {
            return Err(format!(
                "--result `{item}` is not `HOOK_ID=JSON` (e.g. --result git_branch='\"main\"')"
            ));
        };
        let value = serde_json::from_str(json)
            .map_err(|e| format!("--result {id}: `{json}` is not valid JSON: {e}"))?;
        results.insert(id, value);
    }
    Ok(results)
}

/// Reports a replay's bad lines (`LOG:N: ...`) on standard error.
fn report_lines(errors: &[String]) -> Result<(), ReplayError> {
    if errors.is_empty() {
        return Ok(());
    }
    let mut err = std::io::stderr().lock();
    for e in errors {
        writeln!(err, "error: {e}").map_err(ReplayError::Write)?;
    }
    Ok(())
}

/// `hookc diff`: both policies loaded as `eval` loads one, the log
/// replayed once, each record evaluated under both. Exit code: 2 when a
/// line is not an event record or fails to evaluate under either policy
/// (whatever changed), else 1 when a decision changed, else 0.
fn diff(args: DiffArgs) -> Result<ExitCode, String> {
    let (old, new) = args.sources();
    let old = old.load()?.policy;
    let new = new.load()?.policy;
    let mut log = LogReader::open(&args.events).map_err(|e| e.to_string())?;
    let name = log.name().to_owned();
    let job = DiffJob {
        old: &old,
        new: &new,
        log: &name,
    };
    let mut progress = ReplayProgress::new(log.size());
    let mut tally = DiffTally::default();
    replay::replay(&mut log, args.replay.settings(), &job, |counted, chunk| {
        progress.advance(chunk);
        report_lines(&counted.errors)?;
        tally.merge(counted.tally);
        Ok(())
    })
    .map_err(|e| e.to_string())?;
    progress.finish();
    match args.format {
        DiffFormat::Human => print(&tally.to_text())?,
        DiffFormat::Json => print(&format!("{}\n", tally.to_json()))?,
    }
    Ok(ExitCode::from(if tally.errors > 0 {
        2
    } else if tally.changed() > 0 {
        1
    } else {
        0
    }))
}

/// A note for an event that no hook names (only `"*"` hooks, if any, run
/// for it), with the closest event name the policy knows: a misspelt
/// `--event` otherwise looks like a quiet "no match". For `*` itself, which
/// is a name like any other at evaluation, the note says so and what ran
/// (`docs/src/semantics.md#events`). The result stays what it is; the note
/// goes to standard error.
fn unheard_event(policy: &Policy, event: &str) -> Option<String> {
    let program = policy.program();
    let named = || {
        program
            .events
            .named
            .iter()
            .map(|(name, _)| program.string(*name))
    };
    if named().any(|name| name == event) {
        return None;
    }
    if event == "*" {
        let ran = match program.events.wildcard.len() {
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
    if let Some(close) = hookc::suggest::did_you_mean(event, named()) {
        note.push_str(&format!("; did you mean `{close}`?"));
    }
    Some(note)
}

/// One line of an event log.
#[derive(serde::Deserialize)]
struct LogLine {
    event: String,
    #[serde(default)]
    context: serde_json::Value,
}

/// What `compile` wrote, its last line on standard error:
/// `wrote policy.hkb: 20 hooks, 3 events, 4.1 KiB` (`*` counts as an event).
fn wrote_line(path: &std::path::Path, policy: &hookc::ir::CheckedPolicy, bytes: usize) -> String {
    use hookc::ir::Events;
    let mut events = std::collections::BTreeSet::new();
    for hook in policy.hooks() {
        match &hook.events {
            Events::Any => {
                events.insert("*");
            }
            Events::Named(names) => events.extend(names.iter().map(String::as_str)),
        }
    }
    let plural = |n: usize, word: &str| format!("{n} {word}{}", if n == 1 { "" } else { "s" });
    format!(
        "wrote {}: {}, {}, {}",
        path.display(),
        plural(policy.hooks().len(), "hook"),
        plural(events.len(), "event"),
        human_size(bytes)
    )
}

/// A byte count as people read it: `812 B`, `4.1 KiB`, `2.3 MiB`.
fn human_size(bytes: usize) -> String {
    const KIB: f64 = 1024.0;
    // Exact for every size hookc writes (far below 2^53 bytes).
    let b = bytes as f64;
    if b < KIB {
        format!("{bytes} B")
    } else if b < KIB * KIB {
        format!("{:.1} KiB", b / KIB)
    } else {
        format!("{:.1} MiB", b / (KIB * KIB))
    }
}

fn exit(failed: bool) -> ExitCode {
    if failed {
        ExitCode::from(1)
    } else {
        ExitCode::SUCCESS
    }
}

/// Prints the diagnostics and a summary; whether the run failed.
fn report(c: &Compilation, args: &DiagArgs) -> Result<bool, String> {
    let diags: Vec<_> = c.diagnostics.iter().collect();
    match args.format {
        DiagFormat::Human => {
            let mut text = render::human(&diags, &c.sources);
            text.push_str(&render::code_summary(&diags));
            text.push_str(&hookc::summary(c));
            text.push('\n');
            std::io::stderr()
                .write_all(text.as_bytes())
                .map_err(|e| format!("cannot write to standard error: {e}"))?;
        }
        DiagFormat::Json => {
            let mut out = std::io::stdout().lock();
            for d in &diags {
                let line = render::json(d, &c.sources);
                writeln!(out, "{line}")
                    .map_err(|e| format!("cannot write to standard output: {e}"))?;
            }
        }
    }
    let errors = c.diagnostics.error_count();
    let warnings = c.diagnostics.warning_count();
    Ok(errors > 0 || (args.deny_warnings && warnings > 0))
}

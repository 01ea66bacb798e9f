//! `hookc compile FILE... -o OUT.hkb`: the policy's verified artifact,
//! through the library's own path ([`Compilation::into_artifact`]); or its
//! normalized hooks (`--emit yaml|json`).

use crate::args::{DiagArgs, Sources};
use crate::check::report;
use crate::error::CliError;
use crate::exit::Exit;
use clap::ValueEnum;
use hookc::check::policy::CheckedPolicy;
use hookc::compile::{ArtifactDebug, Compilation};
use std::io::Write;
use std::path::PathBuf;

/// `hookc compile`'s arguments.
#[derive(clap::Args)]
pub struct CompileArgs {
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
}

/// `--emit`: what to write instead of an artifact.
#[derive(Clone, Copy, ValueEnum)]
enum Emit {
    /// Normalized hooks as YAML.
    Yaml,
    /// Normalized hooks as JSON.
    Json,
}

/// Runs `hookc compile`: exit 1 (and nothing written) when the policy has
/// errors (or warnings, with `--deny-warnings`).
pub fn run(args: CompileArgs) -> Result<Exit, CliError> {
    let c = args.sources.compile()?;
    if report(&c, &args.diag)? {
        return Ok(Exit::Findings);
    }
    let Some(policy) = c.policy.as_ref() else {
        return Ok(Exit::Findings);
    };
    // Counted before `c` becomes the artifact.
    let counts = counts(policy);
    let bytes = match args.emit {
        Some(Emit::Yaml) => hookc::normalize::to_yaml(policy)
            .map_err(|e| CliError::Emit {
                format: "YAML",
                message: e.to_string(),
            })?
            .into_bytes(),
        Some(Emit::Json) => {
            let mut t = serde_json::to_string_pretty(&hookc::normalize::normalized(policy))
                .map_err(|e| CliError::Emit {
                    format: "JSON",
                    message: e.to_string(),
                })?;
            t.push('\n');
            t.into_bytes()
        }
        None => artifact(c, args.strip)?,
    };
    match &args.output {
        Some(path) => {
            std::fs::write(path, &bytes).map_err(|source| CliError::Write {
                path: path.clone(),
                source,
            })?;
            // `wrote policy.hkb: 20 hooks, 3 events, 4.1 KiB`.
            eprintln!(
                "wrote {}: {counts}, {}",
                path.display(),
                human_size(bytes.len())
            );
        }
        None => std::io::stdout()
            .write_all(&bytes)
            .map_err(CliError::Stdout)?,
    }
    Ok(Exit::Ok)
}

/// The artifact of a compilation without errors.
fn artifact(c: Compilation, strip: bool) -> Result<Vec<u8>, CliError> {
    let debug = if strip {
        ArtifactDebug::Strip
    } else {
        ArtifactDebug::Keep
    };
    c.into_artifact(debug).map_err(CliError::Artifact)
}

/// `20 hooks, 3 events` (`*` counts as an event): what `compile` says it
/// wrote, on its last line.
fn counts(policy: &CheckedPolicy) -> String {
    use hookc::check::policy::Events;
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
        "{}, {}",
        plural(policy.hooks().len(), "hook"),
        plural(events.len(), "event")
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

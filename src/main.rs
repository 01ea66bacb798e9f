//! The `hookc` command line: a thin clap layer over the library.
//!
//! Exit codes: 0 ok; 1 diagnostics (errors, or warnings with
//! `--deny-warnings`); 2 usage or I/O errors.

use clap::{Parser, Subcommand, ValueEnum};
use hookc::compile::{compile, Compilation, Input};
use hookc::diag::render;
use std::io::Write;
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
        /// Policy files (YAML hook files, directive XML), in source order.
        #[arg(required = true)]
        files: Vec<PathBuf>,
        #[command(flatten)]
        diag: DiagArgs,
    },
    /// Compile hook policies; `--emit` writes the normalized hooks.
    Compile {
        /// Policy files (YAML hook files, directive XML), in source order.
        #[arg(required = true)]
        files: Vec<PathBuf>,
        /// What to write: the normalized hooks as YAML or JSON.
        #[arg(long, value_enum)]
        emit: Emit,
        /// Where to write it (default: standard output).
        #[arg(short, long)]
        output: Option<PathBuf>,
        #[command(flatten)]
        diag: DiagArgs,
    },
}

#[derive(clap::Args)]
struct DiagArgs {
    /// How to print diagnostics.
    #[arg(long, value_enum, default_value_t = Format::Human)]
    format: Format,
    /// Treat warnings as errors.
    #[arg(long)]
    deny_warnings: bool,
}

#[derive(Clone, Copy, ValueEnum)]
enum Format {
    /// Source snippets with carets, on standard error.
    Human,
    /// One JSON object per diagnostic per line, on standard output.
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
        Command::Check { files, diag } => {
            let c = compile(&read_inputs(&files)?);
            let failed = report(&c, &diag)?;
            Ok(exit(failed))
        }
        Command::Compile {
            files,
            emit,
            output,
            diag,
        } => {
            let c = compile(&read_inputs(&files)?);
            let failed = report(&c, &diag)?;
            let Some(policy) = c.policy.as_ref().filter(|_| !failed) else {
                return Ok(exit(true));
            };
            let text = match emit {
                Emit::Yaml => {
                    hookc::emit::to_yaml(policy).map_err(|e| format!("cannot write YAML: {e}"))?
                }
                Emit::Json => {
                    let mut t = serde_json::to_string_pretty(&hookc::emit::normalized(policy))
                        .map_err(|e| format!("cannot write JSON: {e}"))?;
                    t.push('\n');
                    t
                }
            };
            match output {
                Some(path) => std::fs::write(&path, text)
                    .map_err(|e| format!("cannot write `{}`: {e}", path.display()))?,
                None => std::io::stdout()
                    .write_all(text.as_bytes())
                    .map_err(|e| format!("cannot write to standard output: {e}"))?,
            }
            Ok(ExitCode::SUCCESS)
        }
    }
}

fn exit(failed: bool) -> ExitCode {
    if failed {
        ExitCode::from(1)
    } else {
        ExitCode::SUCCESS
    }
}

fn read_inputs(files: &[PathBuf]) -> Result<Vec<Input>, String> {
    files
        .iter()
        .map(|path| {
            let name = path.display().to_string();
            let meta = std::fs::metadata(path).map_err(|e| format!("cannot read `{name}`: {e}"))?;
            if meta.len() > hookc::limits::MAX_INPUT_BYTES as u64 {
                return Err(format!(
                    "`{name}` is {} bytes; hookc reads policy files of at most {} bytes",
                    meta.len(),
                    hookc::limits::MAX_INPUT_BYTES
                ));
            }
            let bytes = std::fs::read(path).map_err(|e| format!("cannot read `{name}`: {e}"))?;
            let text = String::from_utf8(bytes).map_err(|e| {
                format!(
                    "`{name}` is not UTF-8 text (invalid byte at offset {})",
                    e.utf8_error().valid_up_to()
                )
            })?;
            Ok(Input::new(name, text))
        })
        .collect()
}

/// Prints the diagnostics and a summary; whether the run failed.
fn report(c: &Compilation, args: &DiagArgs) -> Result<bool, String> {
    let diags: Vec<_> = c.diagnostics.iter().collect();
    match args.format {
        Format::Human => {
            let mut text = render::human(&diags, &c.sources);
            text.push_str(&hookc::summary(c));
            text.push('\n');
            std::io::stderr()
                .write_all(text.as_bytes())
                .map_err(|e| format!("cannot write to standard error: {e}"))?;
        }
        Format::Json => {
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

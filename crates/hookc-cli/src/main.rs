//! The `hookc` command line: a thin clap layer over the library, one
//! module per command (`check`, `compile`, `eval`, `diff`, `disasm`,
//! `bench`, `test` in `policy_test`, `hook`, `init`), each with its
//! arguments and a `run` returning a typed [`CliError`]; the arguments
//! several share are in `args`.
//!
//! Exit codes ([`exit::Exit`], their one table): 0 ok; 1 diagnostics (errors, or warnings with
//! `--deny-warnings`), a failing `test` case, or for `diff` a changed
//! decision; 2 usage or I/O errors, and malformed lines of a replayed log
//! (over a `diff`'s 1). `hookc hook` exits as its host defines.

#![forbid(unsafe_code)]
#![deny(clippy::indexing_slicing)]

mod args;
mod bench;
mod check;
mod compile;
mod diff;
mod disasm;
mod error;
mod eval;
mod exit;
mod hook;
mod init;
mod otlp;
mod policy_test;
mod probe;
mod replay;
mod serve;
mod shadow;
mod trust;

use args::{print, ARTIFACT_OR_SOURCES};
use clap::{CommandFactory, Parser, Subcommand};
use error::CliError;
use exit::Exit;
use std::process::ExitCode;
use thiserror::Error;

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
    Check(check::CheckArgs),
    /// Compile hook policies into a verified artifact (`-o OUT.hkb`), or
    /// write the normalized hooks (`--emit yaml|json`).
    Compile(compile::CompileArgs),
    /// Evaluate an event against a policy and print the match as JSON.
    #[command(mut_arg("files", |a| a.help(ARTIFACT_OR_SOURCES)))]
    Eval(eval::EvalArgs),
    /// Replay an event log under two policies and report the events they
    /// decide differently, grouped by transition (exit 1 when any).
    Diff(diff::DiffArgs),
    /// Print a readable listing of a policy's bytecode.
    #[command(mut_arg("files", |a| a.help(ARTIFACT_OR_SOURCES)))]
    Disasm(disasm::DisasmArgs),
    /// Benchmark a policy on your own contexts: ns per evaluation (median,
    /// p99) and evaluations per second, per context.
    #[command(mut_arg("files", |a| a.help(ARTIFACT_OR_SOURCES)))]
    Bench(bench::BenchArgs),
    /// Run policy test files: each case's event and context against the
    /// policy, compared with the hook and action it expects.
    Test(policy_test::TestArgs),
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
    /// Is the hook actually firing? Run the real host headless against a
    /// scripted model in a throw-away copy of the project's settings, play
    /// a few of the guard's own test cases, and report whether the host
    /// enforced each.
    Probe(probe::ProbeArgs),
    /// Print a completion script for a shell (`hookc completions bash >
    /// ~/.local/share/bash-completion/completions/hookc`).
    Completions {
        /// The shell.
        shell: clap_complete::Shell,
    },
    /// Print hookc's manual page, in roff (`hookc man > hookc.1`).
    Man,
    /// Make an Ed25519 key pair for signing guards: `DIR/hookc.key` (keep
    /// it secret) and `DIR/hookc.pub` (for `hookc hook --trust`).
    Keygen {
        /// The folder to write the two files in.
        #[arg(long, value_name = "DIR")]
        out: std::path::PathBuf,
    },
    /// Sign an artifact (`.hkb`) with a key from `hookc keygen`: writes
    /// `ARTIFACT.sig`, which `hookc hook --trust` checks.
    Sign {
        /// The artifact.
        artifact: std::path::PathBuf,
        /// The secret key (`hookc.key`).
        #[arg(long, value_name = "KEY")]
        key: std::path::PathBuf,
    },
}

fn main() -> ExitCode {
    // A host starts `hookc hook` once per tool call: its arguments are read
    // by that command's own parser, not by the tree of every command, whose
    // building is a tenth of such a call (bench-hook/README.md). Whatever it
    // does not take (help, a usage error) goes to the full parser below,
    // which answers as it always does.
    if let Some(args) = hook::HookArgs::from_command_line() {
        return hook::run(&args).into();
    }
    let cli = Cli::parse();
    match run(cli) {
        Ok(exit) => exit.into(),
        Err(error) => {
            eprintln!("error: {error}");
            Exit::Failed.into()
        }
    }
}

/// Why a command failed: the shared [`CliError`], or the error of a
/// command whose failures are its own. Kept here, above every command,
/// so that no command module depends on another's errors.
#[derive(Debug, Error)]
enum CommandError {
    /// What every command can meet.
    #[error(transparent)]
    Cli(#[from] CliError),
    /// `hookc init` could not set the project up.
    #[error(transparent)]
    Init(#[from] init::InitError),
    /// `hookc probe` could not probe the host.
    #[error(transparent)]
    Probe(#[from] probe::ProbeError),
    /// `hookc keygen` or `hookc sign` could not.
    #[error(transparent)]
    Trust(#[from] trust::TrustError),
}

fn run(cli: Cli) -> Result<Exit, CommandError> {
    Ok(match cli.command {
        Command::Check(args) => check::run(&args)?,
        Command::Compile(args) => compile::run(args)?,
        Command::Eval(args) => eval::run(&args)?,
        Command::Diff(args) => diff::run(&args)?,
        Command::Disasm(args) => disasm::run(&args)?,
        Command::Bench(args) => bench::run(&args)?,
        Command::Test(args) => policy_test::run(args)?,
        Command::Hook(args) => hook::run(&args),
        Command::Serve(args) => serve::run(&args),
        Command::Probe(args) => probe::run(&args)?,
        Command::Init(args) => {
            print(&init::run(&args)?)?;
            Exit::Ok
        }
        Command::Completions { shell } => {
            let mut out = Vec::new();
            clap_complete::generate(shell, &mut Cli::command(), "hookc", &mut out);
            print(&String::from_utf8_lossy(&out))?;
            Exit::Ok
        }
        Command::Keygen { out } => {
            let (secret, public, id) = trust::keygen(&out)?;
            print(&format!(
                "wrote {} (secret: keep it out of the repository) and {}: key {id}\n",
                secret.display(),
                public.display()
            ))?;
            Exit::Ok
        }
        Command::Sign { artifact, key } => {
            let (sig, digest) = trust::sign(&artifact, &key)?;
            print(&format!("wrote {}: {digest}\n", sig.display()))?;
            Exit::Ok
        }
        Command::Man => {
            let mut out = Vec::new();
            clap_mangen::Man::new(Cli::command())
                .render(&mut out)
                .map_err(CliError::Stdout)?;
            print(&String::from_utf8_lossy(&out))?;
            Exit::Ok
        }
    })
}

//! `hookc test`: policy test files, run against the policy they name.
//!
//! A test file is YAML, read with the spanned reader of the front end
//! ([`hookc::frontend::yaml_doc`]), so every mistake in it is a diagnostic
//! with file:line:column, rendered like the compiler's:
//!
//! ```yaml
//! policy: [policy.xml]            # relative to this file: sources, or one `.hkb` artifact
//! cases:
//!   - name: rate limited, the provider says when to retry
//!     event: error
//!     context: {classification: {category: rate_limited}, error: {code: E9}}
//!     disabled: [orphan_event]    # optional: hooks switched off for this case
//!     expect:
//!       hook: rate_limit_backoff  # `null`: no hook matches
//!       action: {type: call_directive, inherit_token: true}
//! ```
//!
//! - `policy` is a path or a list of paths, resolved against the test file's
//!   folder. The files are *named* as written there (`policy.xml`, not
//!   `examples/policy.xml`), so the default id of a hook without `id`
//!   (`<file>#<layer>[<index>]`) does not depend on the directory hookc runs
//!   in. [`Options::policy`] (`--policy`) replaces it for every file, named
//!   as given.
//! - `expect.hook` and `disabled` must name hooks of the policy (checked
//!   once the policy is loaded, with a did-you-mean). `disabled` may name a
//!   hook the policy leaves out (disabled or replaced: switching it off
//!   again does nothing), and any id when the file says
//!   `ignore_unknown_disables: true`; `expect.hook` may not, as such a hook
//!   never matches.
//! - `expect.hook` may be left out (the decision is then not compared) when
//!   the case expects `collected` matches; a case gives at least one of
//!   `hook`, `collected` and `error`.
//! - `expect.action` is compared on the fields it gives only, each field as a
//!   whole and as JSON (`7200` is not `"7200"`, and a `parameters` object must
//!   be given complete).
//! - `context` is a mapping, `{}` when absent.
//!
//! Every case is evaluated twice, with [`Policy::query`] on the context as a
//! `serde_json::Value` and on its JSON text ([`Context::json`]); a
//! disagreement fails the case (it is a bug in hookc). A failing case
//! carries the explain [`Trace`] of its query.

pub mod file;
mod run;

pub use run::{Options, Run};

use crate::args::{eprint, print, Overlays};
use crate::error::CliError;
use crate::exit::Exit;
use clap::ValueEnum;
use std::path::PathBuf;

/// `hookc test`'s arguments.
#[derive(clap::Args)]
pub struct TestArgs {
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

/// Runs `hookc test`: exit 1 when a case fails.
pub fn run(args: TestArgs) -> Result<Exit, CliError> {
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
            eprint(&err)?;
            print(&out)?;
        }
        ReportFormat::Json => print(&format!("{:#}\n", run.to_json()))?,
    }
    Ok(run.exit())
}

#[cfg(test)]
mod tests;

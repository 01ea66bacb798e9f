//! `hookc check FILE...`: parse and type-check a policy's sources and
//! print every diagnostic; and [`report`], which `compile` prints with too.

use crate::args::{eprint, DiagArgs, DiagFormat, Sources};
use crate::error::CliError;
use crate::exit::Exit;
use hookc::compile::Compilation;
use hookc::diag::render;
use std::io::Write;

/// `hookc check`'s arguments.
#[derive(clap::Args)]
pub struct CheckArgs {
    #[command(flatten)]
    sources: Sources,
    #[command(flatten)]
    diag: DiagArgs,
}

/// Runs `hookc check`: exit 1 when the policy has errors (or warnings,
/// with `--deny-warnings`).
pub fn run(args: &CheckArgs) -> Result<Exit, CliError> {
    let c = args.sources.compile()?;
    let failed = report(&c, &args.diag)?;
    Ok(Exit::findings_if(failed))
}

/// Prints the diagnostics and a summary; whether the run failed.
pub fn report(c: &Compilation, args: &DiagArgs) -> Result<bool, CliError> {
    let diags: Vec<_> = c.diagnostics.iter().collect();
    match args.format {
        DiagFormat::Human => {
            let mut text = render::human(&diags, &c.sources);
            text.push_str(&render::code_summary(&diags));
            text.push_str(&hookc::summary(c));
            text.push('\n');
            eprint(&text)?;
        }
        DiagFormat::Json => {
            let mut out = std::io::stdout().lock();
            for d in &diags {
                let line = render::json(d, &c.sources);
                writeln!(out, "{line}").map_err(CliError::Stdout)?;
            }
        }
    }
    let errors = c.diagnostics.error_count();
    let warnings = c.diagnostics.warning_count();
    Ok(errors > 0 || (args.deny_warnings && warnings > 0))
}

//! `hookc disasm POLICY`: a readable listing of a policy's bytecode.

use crate::args::{print, Overlays, Sources};
use crate::error::CliError;
use crate::exit::Exit;

/// `hookc disasm`'s arguments.
#[derive(clap::Args)]
pub struct DisasmArgs {
    #[command(flatten)]
    sources: Sources,
    #[command(flatten)]
    overlays: Overlays,
}

/// Runs `hookc disasm`.
pub fn run(args: &DisasmArgs) -> Result<Exit, CliError> {
    let policy = args.overlays.over(args.sources.load()?)?;
    print(&hookc_runtime::disasm::disassemble(policy.program()))?;
    Ok(Exit::Ok)
}

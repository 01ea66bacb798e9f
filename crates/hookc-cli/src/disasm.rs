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
    // The artifact's digest (of the bytes these sources compile to, or of
    // the `.hkb` given: one encoding per program), as decision logs, pins
    // and signatures name it.
    print(&format!(
        "digest: {}\n{}",
        crate::trust::digest(&policy.to_artifact()),
        hookc_runtime::disasm::disassemble(policy.program())
    ))?;
    Ok(Exit::Ok)
}

//! Golden tests of the artifact's wire format, runtime side: every artifact
//! checked in under `crates/hookc/tests/wire/` (listed in its
//! `manifest.json`) is decoded and verified by this crate alone, with no
//! compiler involved, and its disassembly must equal the checked-in
//! `NAME.disasm` byte for byte. So an artifact written by an earlier build
//! of the compiler keeps loading, and meaning the same, until the format
//! version changes.
//!
//! The compiler's `tests/suite/wire.rs` checks the other direction (the sources
//! still compile to these bytes) and regenerates the files:
//! `UPDATE_WIRE=1 cargo test -p hookc --test suite wire::`.

use hookc_runtime::artifact::{self, FORMAT_VERSION, OPCODES};
use hookc_runtime::disasm::disassemble;
use std::path::Path;

use crate::wire_manifest;
use wire_manifest::{manifest, recorded_version, wire_dir, UPDATE};

fn read(name: &str, ext: &str) -> Vec<u8> {
    let path = wire_dir().join(format!("{name}.{ext}"));
    std::fs::read(&path).unwrap_or_else(|e| panic!("{}: {e}", path.display()))
}

#[test]
fn golden_files_have_the_current_format_version() {
    let recorded = recorded_version();
    assert_eq!(
        recorded, FORMAT_VERSION,
        "the golden artifacts were made with format version {recorded}, this runtime reads \
         version {FORMAT_VERSION}: regenerate them with `{UPDATE}`"
    );
}

#[test]
fn golden_artifacts_load_and_disassemble_to_the_golden_listings() {
    let out = Path::new(env!("CARGO_TARGET_TMPDIR")).join("wire");
    std::fs::create_dir_all(&out).unwrap();
    let mut failures = Vec::new();
    for wire_manifest::Case { name, .. } in manifest() {
        let bytes = read(&name, "hkb");
        let program = match artifact::load(&bytes) {
            Ok(p) => p,
            Err(e) => {
                failures.push(format!("{name}.hkb does not load: {e}"));
                continue;
            }
        };
        let listing = disassemble(program.program());
        if listing.as_bytes() != read(&name, "disasm") {
            let actual = out.join(format!("{name}.disasm"));
            std::fs::write(&actual, &listing).unwrap();
            failures.push(format!(
                "{name}.hkb disassembles differently from {name}.disasm (now: {})",
                actual.display()
            ));
        }
    }
    assert!(
        failures.is_empty(),
        "{}\n\nIf the decoder or the verifier changed how these bytes are read, the artifact \
         format changed: bump FORMAT_VERSION in crates/hookc-runtime/src/artifact/mod.rs, add a CHANGELOG.md entry \
         under \"Artifact format versions\", and regenerate the golden files with `{UPDATE}`. \
         If only the disassembler's output changed, regenerate them and review the diff.",
        failures.join("\n")
    );
}

/// Every program has exactly one encoding: decoding a golden artifact and
/// encoding it again gives the same bytes.
#[test]
fn golden_artifacts_are_canonical() {
    for wire_manifest::Case { name, .. } in manifest() {
        let bytes = read(&name, "hkb");
        let program = artifact::decode(&bytes).unwrap();
        assert!(
            artifact::encode(&program) == bytes,
            "{name}.hkb: decoding and encoding again changes the bytes"
        );
    }
}

/// `--strip` leaves the debug section empty; otherwise it has one entry per hook.
#[test]
fn debug_sections_match_the_strip_flag() {
    for case in manifest() {
        let (name, strip) = (&case.name, case.stripped());
        let program = artifact::decode(&read(name, "hkb")).unwrap();
        let expected = if strip { 0 } else { program.hooks.len() };
        assert_eq!(program.debug.hooks.len(), expected, "{name}.hkb");
    }
}

/// The `opcodes` policy uses every instruction, so the golden files cover
/// every opcode's encoding. A new opcode needs a hook there that uses it.
#[test]
fn the_opcodes_listing_uses_every_opcode() {
    let listing = String::from_utf8(read("opcodes", "disasm")).unwrap();
    // Code lines are `  IP  Name  operands`, before the tables.
    let code = listing.split("\nstrings (").next().unwrap();
    let used: Vec<&str> = code
        .lines()
        .filter_map(|line| {
            let mut words = line.split_whitespace();
            let ip = words.next()?;
            ip.parse::<u32>().ok()?;
            words.next()
        })
        .collect();
    let missing: Vec<&str> = OPCODES
        .iter()
        .map(|&(_, name)| name)
        .filter(|name| !used.contains(name))
        .collect();
    assert!(
        missing.is_empty(),
        "no hook of crates/hookc/tests/wire/policies/ uses {missing:?}: add one, then `{UPDATE}`"
    );
}

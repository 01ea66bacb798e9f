//! Fuzz target `artifact`: decoding and verifying `.hkb` artifacts.
//!
//! The seeds are valid artifacts written by `hookc compile`; mutations of
//! them are mostly caught by the header's CRC-32, so the target runs the
//! input twice: as is (header checks), and with the header repaired
//! (the current format version, flags 0, the body length and the checksum of the actual
//! body), so that the mutated body reaches the section decoders and the
//! verifier. Checks:
//! - [`hookc_runtime::artifact::decode`] and [`hookc_runtime::verify::verify`] return
//!   errors, never panic or hang;
//! - a decoded program re-encodes to exactly the same bytes (the format
//!   promises one encoding per program);
//! - a verified program disassembles, loads as a
//!   [`hookc_runtime::Policy`], and on a few fixed contexts every way of
//!   evaluating each of its events agrees (the dispatch path, `explain`,
//!   `evaluate_all`, `evaluate_json`, and the policy reloaded from its own
//!   artifact; [`hookc_fuzz::check_agreement`]).
#![no_main]

use hookc_runtime::artifact::{crc32, decode, encode, HEADER_LEN, MAGIC};
use hookc_runtime::Policy;
use hookc_fuzz::{check_agreement, events_of, expression_contexts};
use libfuzzer_sys::fuzz_target;
use std::sync::OnceLock;

/// The input with a header that matches its body, if it starts with the magic.
fn repaired(data: &[u8]) -> Option<Vec<u8>> {
    if data.len() < HEADER_LEN || !data.starts_with(&MAGIC) {
        return None;
    }
    let mut fixed = data.to_vec();
    let body_len = (fixed.len() - HEADER_LEN) as u64;
    let crc = crc32(fixed.get(HEADER_LEN..)?);
    // The version this hookc reads (a constant here went stale when the
    // format moved to version 2, and every repaired input stopped at the
    // version check: coverage fell from 8,344 edges to 36).
    fixed
        .get_mut(8..10)?
        .copy_from_slice(&hookc_runtime::artifact::FORMAT_VERSION.to_le_bytes());
    fixed.get_mut(10..12)?.copy_from_slice(&0u16.to_le_bytes());
    fixed.get_mut(12..16)?.copy_from_slice(&crc.to_le_bytes());
    fixed
        .get_mut(16..24)?
        .copy_from_slice(&body_len.to_le_bytes());
    Some(fixed)
}

fn contexts() -> &'static [serde_json::Value] {
    static CONTEXTS: OnceLock<Vec<serde_json::Value>> = OnceLock::new();
    CONTEXTS.get_or_init(expression_contexts)
}

fuzz_target!(|data: &[u8]| {
    let _ = decode(data);
    let Some(bytes) = repaired(data) else {
        return;
    };
    let Ok(program) = decode(&bytes) else {
        return;
    };
    assert!(
        encode(&program) == bytes,
        "a decoded program does not re-encode to its bytes"
    );
    let Ok(verified) = hookc_runtime::verify::verify(program) else {
        return;
    };
    let _ = hookc_runtime::disasm::disassemble(verified.program());
    let rt = Policy::from_artifact(&bytes).expect("decoded and verified above");
    let reloaded = Policy::from_artifact(&rt.to_artifact())
        .unwrap_or_else(|e| panic!("a loaded policy's own artifact does not load: {e}"));
    for event in events_of(&rt) {
        for ctx in contexts() {
            check_agreement(None, &rt, &reloaded, &event, ctx, None);
        }
    }
});

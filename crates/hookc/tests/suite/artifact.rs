//! The `.hkb` artifact end to end, on real policies: the bundled examples
//! compiled together and one by one, lowered, encoded, decoded and verified.
//! Round trips are exact, encoding is deterministic, and every truncation,
//! every bit flip and thousands of random corruptions are clean errors
//! (or, when resealed with a matching checksum, programs that verify),
//! never a panic.

use crate::rng;

use hookc::compile::{compile, Input};
use hookc_runtime::artifact::{self, crc32, decode, encode, load, ArtifactError, HEADER_LEN};
use hookc_runtime::bytecode::Program;
use hookc_runtime::internals::context::{PathCache, Source};
use hookc_runtime::verify::VerifiedProgram;
use rng::Rng;
use serde_json::json;
use std::path::Path;

const EXAMPLES: [&str; 4] = [
    "examples/thread-hooks/hooks.yaml",
    "examples/thread-hooks/directive_hooks.yaml",
    "examples/thread-hooks/directive.xml",
    "examples/policy.xml",
];

fn input(rel: &str) -> Input {
    let path = Path::new(concat!(env!("CARGO_MANIFEST_DIR"), "/../..")).join(rel);
    Input::new(rel, std::fs::read_to_string(path).unwrap())
}

fn program_of(files: &[&str]) -> Program {
    let inputs: Vec<Input> = files.iter().map(|f| input(f)).collect();
    let c = compile(&inputs);
    let policy = c.policy.expect("the examples compile");
    hookc::lower::lower(&policy)
}

/// All examples compiled together.
fn examples() -> Program {
    program_of(&EXAMPLES)
}

/// Rewrites the header's checksum and body length to match the body.
fn reseal(bytes: &mut [u8]) {
    let body_len = (bytes.len() - HEADER_LEN) as u64;
    let crc = crc32(&bytes[HEADER_LEN..]);
    bytes[12..16].copy_from_slice(&crc.to_le_bytes());
    bytes[16..24].copy_from_slice(&body_len.to_le_bytes());
}

/// Runs every hook and fills every action of a verified program against a
/// few contexts: whatever loaded, the VM must take it without a panic.
fn exercise(v: &VerifiedProgram) {
    let contexts = [
        json!({}),
        json!({
            "error": {"code": 429, "category": "rate_limited", "headers": {"retry-after": "5"}},
            "classification": {"category": "rate_limited", "retryable": true},
            "event": {"tokens_used": 9000, "max_tokens": 10000, "name": "limit"},
            "items": [1, "a", null, [2], {"k": true}, 2.5],
        }),
    ];
    let p = v.program();
    for ctx in &contexts {
        for (h, hook) in p.hooks.iter().enumerate() {
            let mut cache = PathCache::new(&p.paths, Source::Document(ctx));
            let _ = hookc_runtime::internals::vm::eval_hook(
                v,
                u32::try_from(h).unwrap(),
                &mut cache,
                None,
            );
            let _ = hookc_runtime::internals::vm::fill_action(v, "h", hook.action, &mut cache);
        }
    }
}

#[test]
fn examples_round_trip_exactly() {
    let p = examples();
    assert!(!p.hooks.is_empty() && !p.code.is_empty());
    let bytes = encode(&p);
    assert_eq!(decode(&bytes).unwrap(), p);
    let v = load(&bytes).unwrap();
    assert_eq!(v.program(), &p);
    exercise(&v);
    for file in EXAMPLES {
        let p = program_of(&[file]);
        let bytes = encode(&p);
        assert_eq!(decode(&bytes).unwrap(), p, "{file}");
        load(&bytes).unwrap_or_else(|e| panic!("{file}: {e}"));
    }
}

#[test]
fn compiling_twice_gives_identical_bytes() {
    let a = encode(&examples());
    let b = encode(&examples());
    assert_eq!(a, b);
    // And decoding then encoding is the identity on bytes.
    assert_eq!(encode(&decode(&a).unwrap()), a);
}

#[test]
fn every_truncation_is_a_clean_error() {
    let bytes = encode(&examples());
    for len in 0..bytes.len() {
        match decode(&bytes[..len]) {
            Err(ArtifactError::Truncated { .. }) => {}
            other => panic!("truncated to {len}: {other:?}"),
        }
    }
}

#[test]
fn bit_flips_are_detected() {
    let bytes = encode(&examples());
    let mut rng = Rng(0xD1B5_4A32_D192_ED03);
    let mut m = bytes.clone();
    // Every bit of the header, then thousands of random bits of the body.
    // Loading is decoding, then verifying: the one header bit the checksum
    // does not cover and decoding accepts, the lower-first flag (bit 80),
    // reverses the priority direction, which the verifier rejects for these
    // hooks' distinct priorities (with all priorities equal, both directions
    // give the same order); an attribution flag (bits 81 and 82) brings the
    // flags under the checksum, which then fails.
    let bits = (0..HEADER_LEN * 8).chain((0..5_000).map(|_| rng.below(bytes.len() * 8)));
    for bit in bits {
        m[bit / 8] ^= 1 << (bit % 8);
        assert!(artifact::load(&m).is_err(), "bit {bit}");
        m[bit / 8] ^= 1 << (bit % 8);
    }
}

#[test]
fn random_corruption_never_panics() {
    let bytes = encode(&examples());
    let mut rng = Rng(0x2545_F491_4F6C_DD1D);
    let mut rejected = 0;
    for round in 0..10_000 {
        let mut m = bytes.clone();
        for _ in 0..1 + rng.below(8) {
            let i = rng.below(m.len());
            match rng.below(3) {
                0 => m[i] ^= 1 << rng.below(8),
                1 => m[i] = rng.next() as u8,
                _ => m[i] = m[rng.below(m.len())],
            }
        }
        if round % 4 == 3 {
            let cut = rng.below(m.len());
            m.truncate(cut);
        }
        if round % 2 == 0 && m.len() > HEADER_LEN {
            // A "checksum collision": the damage reaches the decoder and verifier.
            m[..12].copy_from_slice(&bytes[..12]);
            reseal(&mut m);
        }
        match load(&m) {
            Ok(v) => {
                assert_eq!(decode(&m).unwrap(), *v.program());
                exercise(&v);
            }
            Err(_) => rejected += 1,
        }
    }
    assert!(rejected > 9_000, "{rejected}");
}

#[test]
fn hostile_headers_are_rejected_without_allocating() {
    let bytes = encode(&examples());
    // The first section claims 4 GiB.
    let mut m = bytes.clone();
    m[HEADER_LEN + 1..HEADER_LEN + 5].copy_from_slice(&u32::MAX.to_le_bytes());
    reseal(&mut m);
    let e = decode(&m).unwrap_err();
    assert!(
        matches!(
            e,
            ArtifactError::Overrun {
                expected: 0xFFFF_FFFF,
                ..
            }
        ),
        "{e}"
    );
    // The string table claims 2^32 entries.
    let mut m = bytes[..HEADER_LEN + 5].to_vec();
    m.extend_from_slice(&[0x80, 0x80, 0x80, 0x80, 0x10]);
    m.extend_from_slice(&bytes[HEADER_LEN + 6..]);
    reseal(&mut m);
    let e = decode(&m).unwrap_err();
    assert!(
        matches!(
            e,
            ArtifactError::TooMany {
                count: 0x1_0000_0000,
                ..
            }
        ),
        "{e}"
    );
    assert!(e.to_string().contains("claims 4294967296 entries"), "{e}");
    // The header claims a body of 2^64 - 1 bytes.
    let mut m = bytes.clone();
    m[16..24].copy_from_slice(&u64::MAX.to_le_bytes());
    assert!(decode(&m)
        .unwrap_err()
        .to_string()
        .starts_with("artifact is truncated"));
}

#[test]
fn deeply_nested_constant_is_rejected_quickly() {
    // strings, paths: empty; consts: one list nested 100,000 deep.
    let mut body = vec![1, 1, 0, 0, 0, 0, 2, 1, 0, 0, 0, 0];
    let mut consts = vec![1];
    for _ in 0..100_000 {
        consts.extend_from_slice(&[8, 1]);
    }
    consts.push(1);
    body.push(3);
    body.extend_from_slice(&u32::try_from(consts.len()).unwrap().to_le_bytes());
    body.extend_from_slice(&consts);
    let mut m = encode(&Program::default())[..HEADER_LEN].to_vec();
    m.extend_from_slice(&body);
    reseal(&mut m);
    let t = std::time::Instant::now();
    let e = decode(&m).unwrap_err();
    assert!(matches!(e, ArtifactError::TooDeep { .. }), "{e}");
    assert!(e.to_string().contains("nested deeper than 256 levels"));
    assert!(t.elapsed().as_secs() < 1);
}

#[test]
fn other_format_versions_get_a_clear_message() {
    let mut m = encode(&examples());
    m[8..10].copy_from_slice(&8u16.to_le_bytes());
    assert_eq!(
        load(&m).unwrap_err().to_string(),
        "artifact format version 8 is not supported by this hookc (reads versions 3 to 7); \
         recompile the policy with this hookc"
    );
    assert_eq!(artifact::FORMAT_VERSION, 7);
    assert_eq!(artifact::FORMAT_VERSION_LITERALS, 6);
    assert_eq!(artifact::FORMAT_VERSION_FUNCTIONS, 5);
    assert_eq!(artifact::FORMAT_VERSION_MODEL, 4);
    assert_eq!(artifact::FORMAT_VERSION_FIRST_MATCH, 3);
}

#[test]
fn sources_are_not_artifacts() {
    let text =
        std::fs::read(Path::new(concat!(env!("CARGO_MANIFEST_DIR"), "/../..")).join(EXAMPLES[0]))
            .unwrap();
    let e = load(&text).unwrap_err();
    assert_eq!(e, ArtifactError::NotAnArtifact);
    assert!(e.to_string().starts_with("not a hookc artifact"));
}

/// A kept name's artifact is format 7; the decoder holds each format to
/// the programs that need it.
#[test]
fn a_kept_name_is_written_in_format_7() {
    use hookc_runtime::artifact::{FORMAT_VERSION, FORMAT_VERSION_LITERALS};
    let kept = "let:\n  n: \"items.filter(i, i > 1)\"\nhooks:\n- id: h\n  event: e\n  \
                when: \"size(n) > 1 && n[0] == 2\"\n  action: {type: abort}\n";
    let policy = compile(&[Input::new("p.yaml", kept)])
        .into_policy()
        .unwrap();
    let bytes = policy.to_artifact();
    assert_eq!(bytes[8..10], FORMAT_VERSION.to_le_bytes());
    let program = artifact::decode(&bytes).unwrap();
    assert!(program.uses_locals());
    assert_eq!(artifact::encode(&program), bytes);
    // The same program labelled format 6 is refused, naming format 7.
    let mut older = bytes.clone();
    older[8..10].copy_from_slice(&FORMAT_VERSION_LITERALS.to_le_bytes());
    reseal(&mut older);
    let e = artifact::decode(&older).unwrap_err().to_string();
    assert!(e.contains("which need format 7"), "{e}");
    // A program that keeps nothing labelled format 7 is refused too.
    let plain = compile(&[Input::new(
        "p.yaml",
        "hooks:\n- id: h\n  event: e\n  when: \"s.matches('^a')\"\n  action: {type: abort}\n",
    )])
    .into_policy()
    .unwrap()
    .to_artifact();
    assert_eq!(plain[8..10], FORMAT_VERSION_LITERALS.to_le_bytes());
    let mut newer = plain.clone();
    newer[8..10].copy_from_slice(&FORMAT_VERSION.to_le_bytes());
    reseal(&mut newer);
    let e = artifact::decode(&newer).unwrap_err().to_string();
    assert!(e.contains("keeps no local value"), "{e}");
}

#[test]
fn sensitive_members_are_a_flag_and_a_section() {
    use hookc_runtime::artifact::FLAG_SENSITIVE;
    let src = "sensitive: [secret.key, token, token]\nhooks:\n- id: h\n  event: e\n  \
               when: \"token == 'x'\"\n  action: {type: abort}\n";
    let policy = compile(&[Input::new("p.yaml", src)]).into_policy().unwrap();
    assert_eq!(policy.sensitive_members(), ["secret.key", "token"]);
    let bytes = policy.to_artifact();
    let flags = u16::from_le_bytes([bytes[10], bytes[11]]);
    assert_ne!(flags & FLAG_SENSITIVE, 0);
    let program = decode(&bytes).unwrap();
    assert_eq!(program.sensitive.len(), 2);
    assert_eq!(encode(&program), bytes);
    let loaded = hookc_runtime::Policy::from_artifact(&bytes).unwrap();
    assert_eq!(loaded.sensitive_members(), ["secret.key", "token"]);
    let listing = hookc_runtime::disasm::disassemble(&program);
    assert!(
        listing.contains("sensitive: secret.key, token"),
        "{listing}"
    );

    // Without members, no flag and no section: the bytes of a policy that
    // never had the key.
    let plain = src.replace("sensitive: [secret.key, token, token]\n", "");
    let plain = compile(&[Input::new("p.yaml", plain)])
        .into_policy()
        .unwrap()
        .to_artifact();
    assert_eq!(
        u16::from_le_bytes([plain[10], plain[11]]) & FLAG_SENSITIVE,
        0
    );

    // The flag without its section is refused (resealed, checksum and all).
    let mut flagged = plain.clone();
    let flags = u16::from_le_bytes([plain[10], plain[11]]) | FLAG_SENSITIVE;
    flagged[10..12].copy_from_slice(&flags.to_le_bytes());
    let sealed = [&flags.to_le_bytes()[..], &flagged[HEADER_LEN..]].concat();
    flagged[12..16].copy_from_slice(&crc32(&sealed).to_le_bytes());
    assert!(decode(&flagged).is_err());

    // A member twice, or a path index out of bounds, does not verify.
    for bad in [vec![0, 0], vec![u32::MAX]] {
        let mut program = decode(&bytes).unwrap();
        program.sensitive = bad
            .into_iter()
            .map(hookc_runtime::bytecode::PathIdx::new)
            .collect();
        let e = hookc_runtime::verify::verify(program)
            .unwrap_err()
            .to_string();
        assert!(e.contains("sensitive") || e.contains("path"), "{e}");
    }
}

#[test]
fn sensitive_members_are_checked_against_the_contexts() {
    let codes = |src: &str| -> Vec<String> {
        compile(&[Input::new("p.yaml", src.to_owned())])
            .diagnostics
            .iter()
            .map(|d| format!("{}: {}", d.code.as_str(), d.message))
            .collect()
    };
    let host = "host: claude-code\nhooks: []\n";
    // A member of one event's context (PreToolUse's tool_input) is known.
    assert_eq!(
        codes(&format!("{host}sensitive: [tool_input.content, prompt]\n")),
        Vec::<String>::new()
    );
    let found = codes(&format!("{host}sensitive: [tool_input.contnt]\n"));
    assert!(
        found
            .iter()
            .any(|d| d.contains("`tool_input` has no key `contnt`")),
        "{found:?}"
    );
    let found = codes(&format!("{host}sensitive: [\"a..b\"]\n"));
    assert!(
        found.iter().any(|d| d.contains("is not a context path")),
        "{found:?}"
    );
    let found = codes(&format!("{host}sensitive: tool_input\n"));
    assert!(
        found.iter().any(|d| d.contains("a list of paths")),
        "{found:?}"
    );
}

//! Unit tests of the artifact codec: the format's fixed points, every
//! header error, hostile counts and nesting, and mutation fuzzing with a
//! deterministic PRNG (decode, then verify: never a panic).

use super::*;
use crate::bytecode::Program;
use crate::bytecode::{ConstIdx, SetIdx};
use crate::value::Val;
use crate::verify::tests::sample;
use serde_json::json;

/// xorshift64*: a small deterministic PRNG (no dependency).
pub(crate) struct Rng(u64);

impl Rng {
    pub(crate) fn next(&mut self) -> u64 {
        self.0 ^= self.0 >> 12;
        self.0 ^= self.0 << 25;
        self.0 ^= self.0 >> 27;
        self.0.wrapping_mul(0x2545_F491_4F6C_DD1D)
    }

    pub(crate) fn below(&mut self, n: usize) -> usize {
        (self.next() % n as u64) as usize
    }
}

/// Rewrites the header's body length and checksum to match the body, so a
/// mutated body reaches the section decoder.
fn reseal(bytes: &mut [u8]) {
    let body_len = (bytes.len() - HEADER_LEN) as u64;
    let crc = crc32(&bytes[HEADER_LEN..]);
    bytes[12..16].copy_from_slice(&crc.to_le_bytes());
    bytes[16..24].copy_from_slice(&body_len.to_le_bytes());
}

/// An artifact of these sections (`(id, payload)`), sealed.
fn artifact(sections: &[(u8, Vec<u8>)]) -> Vec<u8> {
    let mut bytes = vec![0; HEADER_LEN];
    bytes[..8].copy_from_slice(&MAGIC);
    bytes[8..10].copy_from_slice(&FORMAT_VERSION_FIRST_MATCH.to_le_bytes());
    for (id, payload) in sections {
        bytes.push(*id);
        bytes.extend_from_slice(&u32::try_from(payload.len()).unwrap().to_le_bytes());
        bytes.extend_from_slice(payload);
    }
    reseal(&mut bytes);
    bytes
}

/// The sections of an empty program, with section `id` replaced.
fn with_section(id: u8, payload: Vec<u8>) -> Vec<u8> {
    let sections: Vec<(u8, Vec<u8>)> = (1..=12u8)
        .map(|i| {
            if i == id {
                (i, payload.clone())
            } else if i == 9 {
                (i, vec![0, 0])
            } else {
                (i, vec![0])
            }
        })
        .collect();
    artifact(&sections)
}

/// CRC-32 by its definition, one bit at a time: the reference [`crc32`]
/// must agree with.
fn crc32_bitwise(data: &[u8]) -> u32 {
    let mut crc = !0u32;
    for &byte in data {
        crc ^= u32::from(byte);
        for _ in 0..8 {
            crc = if crc & 1 != 0 {
                0xEDB8_8320 ^ (crc >> 1)
            } else {
                crc >> 1
            };
        }
    }
    !crc
}

#[test]
fn crc32_test_vectors() {
    let vectors: [(&[u8], u32); 6] = [
        (b"", 0),
        (b"a", 0xE8B7_BE43),
        (b"abc", 0x3524_41C2),
        (b"123456789", 0xCBF4_3926),
        (b"The quick brown fox jumps over the lazy dog", 0x414F_A339),
        (&[0u8; 32], 0x190A_55AD),
    ];
    for (data, expected) in vectors {
        assert_eq!(crc32(data), expected, "{data:?}");
        assert_eq!(crc32_bitwise(data), expected, "{data:?}");
    }
}

/// Random inputs of every length up to 600 bytes and a few long ones, at
/// every alignment of the first 16: the SIMD folding, its tails and the
/// table fallback all agree with the bitwise definition.
#[test]
fn crc32_agrees_with_the_bitwise_definition() {
    let mut state = 0x9E37_79B9_7F4A_7C15u64;
    let mut next = move || {
        state ^= state << 13;
        state ^= state >> 7;
        state ^= state << 17;
        state as u8
    };
    let buf: Vec<u8> = (0..70_000).map(|_| next()).collect();
    for len in (0..600).chain([1_023, 4_096, 4_097, 65_536, 69_000]) {
        for offset in 0..16 {
            let data = &buf[offset..offset + len];
            assert_eq!(
                crc32(data),
                crc32_bitwise(data),
                "len {len} offset {offset}"
            );
        }
    }
}

#[test]
fn opcode_table_is_dense_nonzero_and_unique() {
    let mut seen = std::collections::HashSet::new();
    for (i, (code, name)) in OPCODES.iter().enumerate() {
        assert_eq!(usize::from(*code), i + 1, "{name}");
        assert!(seen.insert(*name));
    }
    // Every other byte is rejected.
    for code in 0..=255u8 {
        let mut r = ByteReader::new(&[1; 16], 0);
        let known = get_op(code, &mut r).unwrap().is_some();
        assert_eq!(known, OPCODES.iter().any(|(c, _)| *c == code), "{code}");
    }
}

#[test]
fn every_instruction_round_trips() {
    for op in sample().code {
        let mut w = ByteWriter::new();
        put_op(&op, &mut w);
        let mut r = ByteReader::new(w.bytes(), 0);
        let code = r.u8("opcode").unwrap();
        assert_eq!(get_op(code, &mut r).unwrap(), Some(op));
        assert_eq!(r.offset(), w.bytes().len() as u64);
    }
}

#[test]
fn a_load_builds_no_string_constant_nor_list_of_strings_until_it_is_read() {
    let mut p = sample();
    // Lists of strings, one that becomes a set, and lists that are not all
    // strings (built at load).
    let first_list = p.consts.len();
    for list in [
        json!(["b", "a", "b"]),
        json!([]),
        json!(["x", 1]),
        json!([["a"]]),
        json!(["é", ""]),
    ] {
        p.consts.push(list);
    }
    p.sets.push(ConstIdx::from_usize(first_list));
    let bytes = encode(&p);
    let v = load(&bytes).unwrap();
    let pool = &v.program().consts;
    let lazy = |value: &serde_json::Value| match value {
        serde_json::Value::String(_) => true,
        serde_json::Value::Array(items) => items.iter().all(serde_json::Value::is_string),
        _ => false,
    };
    let texts: Vec<usize> = (0..p.consts.len())
        .filter(|&i| p.consts.get(i).is_some_and(lazy))
        .collect();
    assert!(texts.iter().filter(|&&i| i >= first_list).count() == 3);
    // Decoding and verifying built every constant but these, the set's
    // list included (its set is made from the texts).
    let built: Vec<usize> = pool.built().map(|(i, _)| i).collect();
    let others: Vec<usize> = (0..p.consts.len()).filter(|i| !texts.contains(i)).collect();
    assert_eq!(built, others);
    let set = v.set(SetIdx::from_usize(p.sets.len() - 1)).unwrap();
    assert!(matches!(
        set.contains(&Val::from_json(&json!("a"))),
        Val::Bool(true)
    ));
    assert!(matches!(
        set.contains(&Val::from_json(&json!("c"))),
        Val::Bool(false)
    ));
    // Lists of strings give their items without being built; others none.
    for &i in &texts {
        let items = pool.text_list(i).map(|t| t.collect::<Vec<_>>());
        match p.consts.get(i) {
            Some(serde_json::Value::Array(list)) => {
                assert_eq!(
                    items.unwrap(),
                    list.iter().filter_map(|s| s.as_str()).collect::<Vec<_>>()
                );
                assert!(pool.is_list(i));
            }
            _ => assert!(items.is_none() && !pool.is_list(i)),
        }
    }
    assert!(pool.built().all(|(i, _)| !texts.contains(&i)));
    // A read builds the value, the same value the compiler wrote.
    for &i in &texts {
        assert_eq!(pool.get(i), p.consts.get(i));
        assert!(pool.built().any(|(j, _)| j == i));
    }
    // Re-encoding reads them all, to the same bytes.
    assert_eq!(encode(v.program()), bytes);
}

#[test]
fn round_trip_and_determinism() {
    let p = sample();
    let bytes = encode(&p);
    assert_eq!(bytes, encode(&p.clone()));
    let back = decode(&bytes).unwrap();
    assert_eq!(back, p);
    // Key order of objects and int/double kinds survive.
    assert_eq!(
        serde_json::to_string(back.consts.get(3).unwrap()).unwrap(),
        serde_json::to_string(p.consts.get(3).unwrap()).unwrap()
    );
    assert_eq!(encode(&back), bytes);
    let v = load(&bytes).unwrap();
    assert_eq!(v.program(), &p);
    assert_eq!(
        decode(&encode(&Program::default())).unwrap(),
        Program::default()
    );
}

#[test]
fn the_attribution_is_two_header_flags() {
    use crate::bytecode::Attribution;
    let mut p = sample();
    p.priority_order = crate::bytecode::PriorityOrder::LowerFirst;
    for (attribution, flags) in [
        (Attribution::Location, 0x01),
        (Attribution::Id, 0x03),
        (Attribution::Off, 0x05),
    ] {
        p.attribution = attribution;
        let bytes = encode(&p);
        assert_eq!(bytes[10], flags, "{attribution:?}");
        assert_eq!(decode(&bytes).unwrap().attribution, attribution);
    }
    // The checksum covers an attribution: a flipped bit is detected.
    p.attribution = Attribution::Id;
    let mut flipped = encode(&p);
    flipped[10] = 0x05;
    assert!(matches!(
        decode(&flipped).unwrap_err(),
        ArtifactError::ChecksumMismatch { .. }
    ));
    flipped[10] = 0x01;
    assert!(matches!(
        decode(&flipped).unwrap_err(),
        ArtifactError::ChecksumMismatch { .. }
    ));
    // Both at once names no attribution.
    let mut both = encode(&p);
    both[10] = 0x07;
    assert_eq!(
        decode(&both).unwrap_err(),
        ArtifactError::UnsupportedFlags { flags: 0x07 }
    );
}

#[test]
fn every_truncation_is_an_error() {
    let bytes = encode(&sample());
    for len in 0..bytes.len() {
        let e = decode(&bytes[..len]).expect_err("truncated");
        assert!(matches!(e, ArtifactError::Truncated { .. }), "{len}: {e}");
        assert!(
            e.to_string().starts_with("artifact is truncated: expected"),
            "{e}"
        );
    }
    assert_eq!(
        decode(&bytes[..30]).unwrap_err().to_string(),
        format!(
            "artifact is truncated: expected {} bytes of artifact body at offset 0x18, found 6; \
             rebuild it with `hookc compile`",
            bytes.len() - HEADER_LEN
        )
    );
    assert_eq!(
        decode(b"HOOK").unwrap_err().to_string(),
        "artifact is truncated: expected 8 bytes of magic at offset 0x0, found 4; \
         rebuild it with `hookc compile`"
    );
}

#[test]
fn header_errors() {
    let bytes = encode(&sample());
    let e = decode(b"hooks:\n  - event: error\n").unwrap_err();
    assert_eq!(e, ArtifactError::NotAnArtifact);
    assert!(e.to_string().starts_with("not a hookc artifact"));
    assert_eq!(
        decode(b"\x7fELF").unwrap_err(),
        ArtifactError::NotAnArtifact
    );

    let mut v8 = bytes.clone();
    v8[8] = 8;
    assert_eq!(
        decode(&v8).unwrap_err().to_string(),
        format!(
            "artifact format version 8 is not supported by this hookc (reads versions 3 to \
             {FORMAT_VERSION}); recompile the policy with this hookc"
        )
    );
    // The version is read before the rest of the header.
    assert_eq!(
        decode(&v8[..10]).unwrap_err(),
        ArtifactError::UnsupportedVersion { found: 8 }
    );

    let mut flags = bytes.clone();
    flags[11] = 0x80;
    assert_eq!(
        decode(&flags).unwrap_err(),
        ArtifactError::UnsupportedFlags { flags: 0x8000 }
    );

    let mut corrupt = bytes.clone();
    let last = corrupt.len() - 1;
    corrupt[last] ^= 0x10;
    let e = decode(&corrupt).unwrap_err();
    assert!(matches!(e, ArtifactError::ChecksumMismatch { .. }));
    assert!(
        e.to_string()
            .starts_with("artifact is corrupted: checksum mismatch"),
        "{e}"
    );

    let mut long = bytes.clone();
    long.push(0);
    assert_eq!(
        decode(&long).unwrap_err(),
        ArtifactError::TrailingBytes {
            what: "the artifact body",
            count: 1,
            offset: bytes.len() as u64
        }
    );

    let mut huge = bytes.clone();
    huge[16..24].copy_from_slice(&u64::MAX.to_le_bytes());
    assert!(matches!(
        decode(&huge).unwrap_err(),
        ArtifactError::Truncated {
            what: "artifact body",
            expected: u64::MAX,
            ..
        }
    ));
}

#[test]
fn hostile_section_length() {
    let mut bytes = encode(&sample());
    bytes[HEADER_LEN + 1..HEADER_LEN + 5].copy_from_slice(&u32::MAX.to_le_bytes());
    reseal(&mut bytes);
    let e = decode(&bytes).unwrap_err();
    assert!(
        matches!(
            e,
            ArtifactError::Overrun {
                what: "section `strings`",
                expected: 0xFFFF_FFFF,
                offset: 0x1d,
                container: "the artifact body",
                ..
            }
        ),
        "{e}"
    );
}

#[test]
fn hostile_counts_are_rejected_before_allocating() {
    // 2^32 strings, and u64::MAX strings, claimed in a 6-byte payload.
    let e = decode(&with_section(1, vec![0x80, 0x80, 0x80, 0x80, 0x10])).unwrap_err();
    assert!(
        matches!(
            e,
            ArtifactError::TooMany {
                count: 0x1_0000_0000,
                max: 0,
                ..
            }
        ),
        "{e}"
    );
    let max = vec![0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0x01];
    assert!(matches!(
        decode(&with_section(1, max)).unwrap_err(),
        ArtifactError::TooMany { .. }
    ));
    // A string claiming 4 GiB.
    let e = decode(&with_section(1, vec![1, 0x80, 0x80, 0x80, 0x80, 0x10])).unwrap_err();
    assert_eq!(
        e.to_string(),
        "artifact is malformed: string at offset 0x23 needs 4294967296 bytes, but section \
         `strings` has 0 left"
    );
    // A list constant claiming a million items in 3 bytes.
    let e = decode(&with_section(3, vec![1, 8, 0xc0, 0x84, 0x3d])).unwrap_err();
    assert!(
        matches!(
            e,
            ArtifactError::TooMany {
                what: "list constant length",
                ..
            }
        ),
        "{e}"
    );
    // 2^24 + 1 instructions (over MAX_TABLE_LEN even with the bytes there).
    let mut code = vec![0x81, 0x80, 0x80, 0x08];
    code.resize(code.len() + (1 << 24) + 1, 0x02);
    let e = decode(&with_section(6, code)).unwrap_err();
    assert!(
        matches!(
            e,
            ArtifactError::TooMany {
                max: 0x100_0000,
                ..
            }
        ),
        "{e}"
    );
}

#[test]
fn long_paths_and_nested_claims() {
    // A path of 257 segments is rejected before it is built.
    let mut paths = vec![1, 1, b'a', 0x81, 0x02];
    for _ in 0..257 {
        paths.extend_from_slice(&[2, 0]);
    }
    let e = decode(&with_section(2, paths)).unwrap_err();
    assert!(
        matches!(
            e,
            ArtifactError::TooMany {
                what: "path segment count",
                count: 257,
                max: 256,
                ..
            }
        ),
        "{e}"
    );
    // Lists nested 200 deep, each claiming nearly all the bytes left: no
    // level reserves room for its claim, so this is quick and small.
    let levels = 200;
    let filler = 1usize << 20;
    // Tag 8 (list), then the claim 2^20 as LEB128.
    let level = [8u8, 0x80, 0x80, 0x40];
    let mut consts = vec![1];
    consts.extend(level.iter().cycle().take(level.len() * levels));
    consts.resize(consts.len() + filler, 0);
    let t = std::time::Instant::now();
    let e = decode(&with_section(3, consts)).unwrap_err();
    assert!(matches!(e, ArtifactError::BadTag { tag: 0, .. }), "{e}");
    assert!(t.elapsed().as_secs() < 2);
}

#[test]
fn deep_nesting_is_rejected_quickly() {
    let start = std::time::Instant::now();
    // A constant nested 100,000 lists deep.
    let mut consts = vec![1];
    for _ in 0..100_000 {
        consts.extend_from_slice(&[8, 1]);
    }
    consts.push(1);
    let e = decode(&with_section(3, consts)).unwrap_err();
    assert_eq!(
        e,
        ArtifactError::TooDeep {
            what: "constant",
            limit: crate::limits::MAX_VALUE_DEPTH,
            offset: (HEADER_LEN + 6 + 6 + 5 + 1 + 2 * crate::limits::MAX_VALUE_DEPTH) as u64
        }
    );
    // Objects too.
    let mut consts = vec![1];
    for _ in 0..100_000 {
        consts.extend_from_slice(&[9, 1, 1, b'k']);
    }
    consts.push(1);
    assert!(matches!(
        decode(&with_section(3, consts)).unwrap_err(),
        ArtifactError::TooDeep { .. }
    ));
    // An action parameter nested 100,000 lists deep (one action: type 0,
    // effect 1, one parameter named 0).
    let mut actions = vec![1, 0, 1, 1, 0];
    for _ in 0..100_000 {
        actions.extend_from_slice(&[3, 1]);
    }
    actions.extend_from_slice(&[1, 0]);
    assert!(matches!(
        decode(&with_section(8, actions)).unwrap_err(),
        ArtifactError::TooDeep {
            what: "parameter value",
            ..
        }
    ));
    // A parameter check whose items nest 100,000 deep.
    let mut actions = vec![1, 0, 1, 1, 0, 5];
    for _ in 0..100_000 {
        actions.extend_from_slice(&[4, 0, 1]);
    }
    assert!(matches!(
        decode(&with_section(8, actions)).unwrap_err(),
        ArtifactError::TooDeep {
            what: "parameter check",
            ..
        }
    ));
    assert!(start.elapsed().as_secs() < 2);
}

#[test]
fn section_structure() {
    // Unknown, repeated and missing sections.
    let sections: Vec<(u8, Vec<u8>)> = vec![(1, vec![0]), (1, vec![0])];
    assert_eq!(
        decode(&artifact(&sections)).unwrap_err().to_string(),
        "artifact is malformed: expected section `paths`, found section id 1 (at offset 0x1e)"
    );
    let sections: Vec<(u8, Vec<u8>)> = vec![(0, vec![])];
    assert!(matches!(
        decode(&artifact(&sections)).unwrap_err(),
        ArtifactError::UnexpectedSection {
            found: 0,
            expected: "strings",
            ..
        }
    ));
    let sections: Vec<(u8, Vec<u8>)> = vec![(1, vec![0])];
    assert!(matches!(
        decode(&artifact(&sections)).unwrap_err(),
        ArtifactError::Overrun {
            what: "section id",
            container: "the artifact body",
            ..
        }
    ));
    // Bytes left inside a section, and after the last.
    assert!(matches!(
        decode(&with_section(5, vec![0, 0])).unwrap_err(),
        ArtifactError::TrailingBytes {
            what: "the entries of section `sets`",
            count: 1,
            ..
        }
    ));
    let mut sections: Vec<(u8, Vec<u8>)> = (1..=12u8).map(|i| (i, vec![0])).collect();
    sections[8].1 = vec![0, 0];
    sections.push((13, vec![]));
    assert!(matches!(
        decode(&artifact(&sections)).unwrap_err(),
        ArtifactError::TrailingBytes {
            what: "the last section",
            ..
        }
    ));
}

#[test]
fn bad_values() {
    let cases: Vec<(u8, Vec<u8>, &str)> = vec![
        (6, vec![1, 0x00], "unknown opcode 0x00 at instruction 0"),
        (
            6,
            vec![2, 0x02, 0xff],
            "unknown opcode 0xff at instruction 1",
        ),
        (6, vec![1, 0x12, 7], "invalid operand `op` of `Cmp` tag 7"),
        (
            6,
            vec![1, 0x25, 0, 3],
            "invalid operand `kind` of `MacroStart` tag 0",
        ),
        (
            6,
            vec![1, 0x06, 0x80, 0x80, 0x04],
            "operand `depth` of `Var`: does not fit 16 bits",
        ),
        (
            6,
            vec![1, 0x01, 0x80, 0x80, 0x80, 0x80, 0x10],
            "operand `index` of `Const`: does not fit 32 bits",
        ),
        (3, vec![1, 0], "invalid constant tag 0"),
        (3, vec![1, 5, 1], "fits i64"),
        (
            3,
            [vec![1, 6], f64::NAN.to_bits().to_le_bytes().to_vec()].concat(),
            "not a finite number",
        ),
        (
            3,
            [vec![1, 6], f64::INFINITY.to_bits().to_le_bytes().to_vec()].concat(),
            "not a finite number",
        ),
        (3, vec![1, 9, 2, 1, b'k', 1, 1, b'k', 1], "duplicate key"),
        (
            3,
            vec![1, 7, 2, 0xc3, 0x28],
            "string constant is not valid UTF-8",
        ),
        (1, vec![1, 1, 0x80], "string is not valid UTF-8"),
        (2, vec![1, 1, b'a', 1, 3, 0], "invalid path segment tag 3"),
        (10, vec![1, 0, 1, 0, 0], "sub-condition count"),
        (
            7,
            vec![1, 0, 0, 1, 2, 0, 0, 0, 0, 0],
            "invalid hook description flag tag 2",
        ),
        (8, vec![1, 0, 1, 1, 0, 6], "invalid parameter value tag 6"),
        (8, vec![1, 0, 3, 0], "invalid action effect tag 3"),
        (
            7,
            vec![1, 0, 0, 1, 0, 0, 0, 0, 0, 2],
            "invalid hook flags tag 2",
        ),
        (12, vec![1, 0, 3], "invalid hook flags tag 3"),
        (
            8,
            vec![1, 0, 1, 1, 0, 2, 1, 3, 0],
            "invalid template part tag 3",
        ),
        (
            8,
            vec![1, 0, 1, 1, 0, 5, 0, 0, 0, 1, 0],
            "invalid parameter check kinds tag 0",
        ),
        (
            8,
            vec![1, 0, 1, 1, 0, 5, 0x80, 0, 0, 1, 0],
            "invalid parameter check kinds tag 128",
        ),
        (
            8,
            vec![1, 0, 1, 1, 0, 5, 4, 2, 0, 1, 0],
            "invalid parameter check enum flag tag 2",
        ),
        (
            8,
            vec![1, 0, 1, 1, 0, 5, 4, 0, 0, 5, 4, 0, 0, 1, 0],
            "invalid parameter value tag 5",
        ),
    ];
    for (section, payload, expected) in cases {
        let e = decode(&with_section(section, payload))
            .unwrap_err()
            .to_string();
        assert!(e.contains(expected), "{expected}: {e}");
        assert!(e.contains("(at offset 0x"), "{e}");
    }
}

#[test]
fn load_wraps_verification_errors() {
    let mut p = sample();
    p.code[1] = Op::AndShort(crate::bytecode::JumpTarget::new(0));
    let e = load(&encode(&p)).unwrap_err();
    assert!(matches!(e, ArtifactError::Verify(_)));
    assert_eq!(
        e.to_string(),
        "artifact failed verification: hook 0 (`h0`), instruction 1: jump target 0 is not \
         forward; recompile the policy with this hookc"
    );
}

#[test]
fn every_single_bit_flip_is_detected() {
    let bytes = encode(&sample());
    let mut copy = bytes.clone();
    // Decoding, then verifying: the lower-first flag (bit 80) is the one
    // header bit decoding accepts and the checksum does not cover; reversed,
    // the sample's distinct priorities are out of order.
    for i in 0..bytes.len() * 8 {
        copy[i / 8] ^= 1 << (i % 8);
        assert!(load(&copy).is_err(), "bit {i}");
        copy[i / 8] ^= 1 << (i % 8);
    }
}

/// Random multi-bit flips and byte overwrites; half resealed so that the
/// section decoders and the verifier see the damage. Never a panic. (The
/// sample with its regex's literals recorded: format 6, every section.)
#[test]
fn random_mutations_never_panic() {
    let mut p = sample();
    crate::value::policy_regex::record_required_literals(&mut p);
    let bytes = encode(&p);
    assert_eq!(bytes[8..10], FORMAT_VERSION_LITERALS.to_le_bytes());
    let mut rng = Rng(0x9E37_79B9_7F4A_7C15);
    let (mut loaded, mut rejected_by_decoder, mut rejected_by_verifier) = (0, 0, 0);
    for round in 0..20_000 {
        let mut m = bytes.clone();
        for _ in 0..1 + rng.below(4) {
            let i = rng.below(m.len());
            if rng.next() & 1 == 0 {
                m[i] ^= 1 << rng.below(8);
            } else {
                m[i] = rng.next() as u8;
            }
        }
        if round % 2 == 0 && m.len() > HEADER_LEN {
            m[..12].copy_from_slice(&bytes[..12]);
            reseal(&mut m);
        }
        match load(&m) {
            Ok(_) => loaded += 1,
            Err(ArtifactError::Verify(_)) => rejected_by_verifier += 1,
            Err(ArtifactError::ChecksumMismatch { .. }) => {}
            Err(_) => rejected_by_decoder += 1,
        }
    }
    // The resealed half reaches both the section decoders and the verifier;
    // some of it is harmless (a changed string or priority) and loads.
    assert!(rejected_by_decoder > 1_000, "{rejected_by_decoder}");
    assert!(rejected_by_verifier > 100, "{rejected_by_verifier}");
    assert!(loaded > 0 && loaded < 20_000);
}

/// The sample with its function calls replaced by instructions of the same
/// stack effect: a program formats 3 and 4 can hold.
fn without_functions(mut p: Program) -> Program {
    for op in &mut p.code {
        match op {
            Op::Call(_) => *op = Op::Neg,
            Op::CallRegex { .. } => *op = Op::Not,
            _ => {}
        }
    }
    assert!(!p.uses_functions());
    p
}

/// A program that calls functions is format 5, with a `model` section
/// (the default model, or its own), and round-trips; the same program
/// without calls is format 3 or 4.
#[test]
fn functions_are_format_5() {
    use crate::bytecode::Combine;
    let p = sample();
    assert!(p.uses_functions() && !p.uses_model());
    let bytes = encode(&p);
    assert_eq!(bytes[8..10], FORMAT_VERSION_FUNCTIONS.to_le_bytes());
    assert_eq!(decode(&bytes).unwrap(), p);
    let mut with_model = sample();
    with_model.model.combine = Combine::Strictest;
    let bytes = encode(&with_model);
    assert_eq!(bytes[8..10], FORMAT_VERSION_FUNCTIONS.to_le_bytes());
    assert_eq!(decode(&bytes).unwrap(), with_model);

    // One encoding per program: format 5 without a call, and a call in
    // format 4, are errors.
    let plain = without_functions(sample());
    let mut bytes = encode(&plain);
    bytes[8..10].copy_from_slice(&FORMAT_VERSION_FUNCTIONS.to_le_bytes());
    bytes.extend_from_slice(&[13, 3 + plain.actions.len() as u8 * 2, 0, 0, 0, 1, 1]);
    bytes.push(plain.actions.len() as u8);
    for _ in &plain.actions {
        bytes.extend_from_slice(&[0, 0]);
    }
    // An empty `tables` section.
    bytes.extend_from_slice(&[14, 1, 0, 0, 0, 0]);
    reseal(&mut bytes);
    let e = decode(&bytes).unwrap_err().to_string();
    assert!(e.contains("calls no builtin function"), "{e}");
    let mut bytes = encode(&with_model);
    bytes[8..10].copy_from_slice(&FORMAT_VERSION_MODEL.to_le_bytes());
    reseal(&mut bytes);
    let e = decode(&bytes).unwrap_err().to_string();
    assert!(e.contains("which need format 5"), "{e}");
}

/// A program with the decision model: format 4, with a `model` section
/// that round-trips; the same program without it is format 3.
#[test]
fn decision_model_is_format_4() {
    use crate::bytecode::{Combine, Effect, OnError};
    let plain = without_functions(sample());
    assert!(!plain.uses_model());
    assert_eq!(
        encode(&plain)[8..10],
        FORMAT_VERSION_FIRST_MATCH.to_le_bytes()
    );

    let mut p = without_functions(sample());
    p.model.combine = Combine::Strictest;
    p.model.on_error = OnError::Action(crate::bytecode::ActionIdx::new(0));
    p.actions[0].severity = -7;
    p.actions[1].effect = Effect::Await;
    p.actions[1].bind = Some(crate::bytecode::Binding::Path(
        crate::bytecode::PathIdx::new(1),
    ));
    let bytes = encode(&p);
    assert_eq!(bytes[8..10], FORMAT_VERSION_MODEL.to_le_bytes());
    assert_eq!(decode(&bytes).unwrap(), p);
    assert!(load(&bytes).is_ok());

    // Every prefix of the model section is an error, never a panic.
    for cut in HEADER_LEN..bytes.len() {
        let mut short = bytes[..cut].to_vec();
        reseal(&mut short);
        assert!(decode(&short).is_err(), "cut at {cut}");
    }
}

/// Format 3 has no effects beyond terminal and collected, and format 4 is
/// only for programs that use the model (one encoding per program).
#[test]
fn model_parts_need_their_format() {
    use crate::bytecode::Effect;
    let mut p = without_functions(sample());
    p.actions[1].effect = Effect::Transform;
    let mut bytes = encode(&p);
    // The same bytes labelled format 3, the model section dropped: the
    // transform effect is a bad tag there.
    let model_len = {
        let mut plain = p.clone();
        plain.actions[1].effect = Effect::Collected;
        bytes.len() - encode(&plain).len()
    };
    bytes.truncate(bytes.len() - model_len);
    bytes[8..10].copy_from_slice(&FORMAT_VERSION_FIRST_MATCH.to_le_bytes());
    reseal(&mut bytes);
    let e = decode(&bytes).unwrap_err().to_string();
    assert!(e.contains("invalid action effect tag 3"), "{e}");

    // A format-4 artifact of a program without the model.
    let plain = without_functions(sample());
    let mut bytes = encode(&plain);
    bytes[8..10].copy_from_slice(&FORMAT_VERSION_MODEL.to_le_bytes());
    bytes.extend_from_slice(&[13, 3 + plain.actions.len() as u8 * 2, 0, 0, 0, 1, 1]);
    bytes.push(plain.actions.len() as u8);
    for _ in &plain.actions {
        bytes.extend_from_slice(&[0, 0]);
    }
    reseal(&mut bytes);
    let e = decode(&bytes).unwrap_err().to_string();
    assert!(e.contains("must be written as format 3"), "{e}");
}

/// The verifier holds the model to the actions: a binding only on an
/// awaited action, an error action that is terminal.
#[test]
fn model_is_verified() {
    use crate::bytecode::{ActionIdx, Effect, OnError, PathIdx};
    let mut p = sample();
    p.actions[0].bind = Some(crate::bytecode::Binding::Path(PathIdx::new(0)));
    let e = load(&encode(&p)).unwrap_err().to_string();
    assert!(
        e.contains("binds a result but is not an awaited action"),
        "{e}"
    );

    let mut p = sample();
    p.actions[1].effect = Effect::Collected;
    p.model.on_error = OnError::Action(ActionIdx::new(1));
    let e = load(&encode(&p)).unwrap_err().to_string();
    assert!(e.contains("not terminal"), "{e}");

    let mut p = sample();
    p.model.on_error = OnError::Action(ActionIdx::new(99));
    assert!(load(&encode(&p)).is_err());
}

/// The sample with a template expression: code `[Path(error.code), Return]`
/// appended after the hooks' code, as a second part of action 1.
fn with_template_expr() -> Program {
    use crate::bytecode::{ActionParam, Op, ParamValue, PathIdx, StrIdx, TemplatePart};
    let mut p = sample();
    let start = u32::try_from(p.code.len()).unwrap();
    p.code.push(Op::Path(PathIdx::new(0)));
    p.code.push(Op::Return);
    p.actions[1].params.push(ActionParam::new(
        StrIdx::new(4),
        ParamValue::Template(vec![
            TemplatePart::Lit(StrIdx::new(9)),
            TemplatePart::Expr {
                code: (start, start + 2),
                max_stack: 1,
            },
        ]),
    ));
    p
}

/// Template expressions are format 5: they round-trip, load, and are a bad
/// tag in format 4; format 5 is only for programs with them.
#[test]
fn template_expressions_are_format_5() {
    let p = with_template_expr();
    assert!(p.uses_template_code());
    let bytes = encode(&p);
    assert_eq!(bytes[8..10], FORMAT_VERSION_FUNCTIONS.to_le_bytes());
    assert_eq!(decode(&bytes).unwrap(), p);
    assert!(load(&bytes).is_ok());
    for cut in HEADER_LEN..bytes.len() {
        let mut short = bytes[..cut].to_vec();
        reseal(&mut short);
        assert!(decode(&short).is_err(), "cut at {cut}");
    }

    // The same bytes labelled format 4: tag 3 is not a template part there.
    let mut v4 = bytes.clone();
    v4[8..10].copy_from_slice(&FORMAT_VERSION_MODEL.to_le_bytes());
    reseal(&mut v4);
    let e = decode(&v4).unwrap_err().to_string();
    assert!(e.contains("template part"), "{e}");

    // A program without template expressions (or calls) labelled format 5.
    let mut p5 = without_functions(sample());
    p5.model.combine = crate::bytecode::Combine::Strictest;
    let mut bytes = encode(&p5);
    bytes[8..10].copy_from_slice(&FORMAT_VERSION_FUNCTIONS.to_le_bytes());
    // An empty `tables` section.
    bytes.extend_from_slice(&[14, 1, 0, 0, 0, 0]);
    reseal(&mut bytes);
    let e = decode(&bytes).unwrap_err().to_string();
    assert!(e.contains("no template expression"), "{e}");
}

/// The verifier checks a template expression's code as a hook's.
#[test]
fn template_expression_code_is_verified() {
    use crate::bytecode::{Op, ParamValue, TemplatePart};
    let set = |p: &mut Program, code: (u32, u32), max_stack: u32| {
        if let ParamValue::Template(parts) = &mut p.actions[1].params[0].value {
            parts[1] = TemplatePart::Expr { code, max_stack };
        }
    };
    let end = u32::try_from(with_template_expr().code.len()).unwrap();
    let mut p = with_template_expr();
    set(&mut p, (end - 2, end + 1), 1);
    let e = load(&encode(&p)).unwrap_err().to_string();
    assert!(e.contains("runs past the end of the code"), "{e}");
    let mut p = with_template_expr();
    set(&mut p, (end - 2, end - 2), 1);
    let e = load(&encode(&p)).unwrap_err().to_string();
    assert!(e.contains("is empty"), "{e}");
    let mut p = with_template_expr();
    set(&mut p, (end - 2, end), 0);
    let e = load(&encode(&p)).unwrap_err().to_string();
    assert!(e.contains("its code needs"), "{e}");
    let mut p = with_template_expr();
    let last = p.code.len() - 1;
    p.code[last] = Op::Not;
    let e = load(&encode(&p)).unwrap_err().to_string();
    assert!(e.to_lowercase().contains("return"), "{e}");
}

use crate::verify::tests::sample_with_table as with_table;

/// Pattern tables are format 5: they round-trip and load (the matcher
/// built once), and the verifier holds their rows to their patterns.
#[test]
fn pattern_tables_are_format_5_and_verified() {
    use crate::bytecode::TableIdx;
    let p = with_table();
    assert!(p.uses_format_5() && !p.uses_template_code());
    let bytes = encode(&p);
    assert_eq!(bytes[8..10], FORMAT_VERSION_FUNCTIONS.to_le_bytes());
    assert_eq!(decode(&bytes).unwrap(), p);
    let v = load(&bytes).unwrap();
    let t = TableIdx::new(0);
    assert_eq!(v.first_row(t, "xx rate"), Ok(Some(1)));
    assert_eq!(v.first_row(t, "rate x"), Ok(Some(0)));
    assert_eq!(v.first_row(t, "none"), Ok(None));
    for cut in HEADER_LEN..bytes.len() {
        let mut short = bytes[..cut].to_vec();
        reseal(&mut short);
        assert!(decode(&short).is_err(), "cut at {cut}");
    }

    let mut p = with_table();
    p.tables[0].patterns.pop();
    let e = load(&encode(&p)).unwrap_err().to_string();
    assert!(e.contains("pattern table 0"), "{e}");
    let mut p = with_table();
    p.tables[0].patterns.clear();
    let e = load(&encode(&p)).unwrap_err().to_string();
    assert!(e.contains("has no rows"), "{e}");
    let mut p = with_table();
    p.tables[0].on = crate::bytecode::PathIdx::new(99);
    assert!(load(&encode(&p)).is_err());
}

/// A program whose regexes' literals are recorded is format 6: they
/// round-trip, load into each regex's prefilter (trusted, as the code is),
/// and the decoder and the verifier hold them to one list per regex.
#[test]
fn regex_literals_are_format_6() {
    use crate::bytecode::RegexIdx;
    let mut p = sample();
    crate::value::policy_regex::record_required_literals(&mut p);
    assert_eq!(p.regex_literals, vec![vec!["rate".to_owned()]]);
    let bytes = encode(&p);
    assert_eq!(bytes[8..10], FORMAT_VERSION_LITERALS.to_le_bytes());
    let back = decode(&bytes).unwrap();
    assert_eq!(back, p);
    assert_eq!(encode(&back), bytes);
    let v = load(&bytes).unwrap();
    let re = v.regex(RegexIdx::new(0)).unwrap();
    assert_eq!(re.required_literal(), Some("rate"));
    assert_eq!(re.is_match("x rate"), Ok(false)); // `^rate`
    assert_eq!(re.is_match("rate x"), Ok(true));
    // The artifact is trusted for its literals: one that is not required
    // answers "no match" where the literal is missing.
    let mut lying = p.clone();
    lying.regex_literals = vec![vec!["zzz".to_owned()]];
    let v = load(&encode(&lying)).unwrap();
    assert_eq!(
        v.regex(RegexIdx::new(0)).unwrap().is_match("rate"),
        Ok(false)
    );
    // The verifier: one list per regex, each at most MAX_REGEX_LITERALS.
    let mut two = p.clone();
    two.regex_literals = vec![Vec::new(), Vec::new()];
    let e = load(&encode(&two)).unwrap_err().to_string();
    assert!(e.contains("are 2 lists for 1 regexes"), "{e}");
    let mut at_bound = p.clone();
    at_bound.regex_literals = vec![vec!["rate".to_owned(); crate::limits::MAX_REGEX_LITERALS]];
    load(&encode(&at_bound)).unwrap();
    let mut many = p.clone();
    many.regex_literals = vec![vec!["r".to_owned(); crate::limits::MAX_REGEX_LITERALS + 1]];
    let e = load(&encode(&many)).unwrap_err().to_string();
    assert!(e.contains("of regex 0 are more than"), "{e}");
    // The decoder: format 6 without a regex is not its encoding.
    let mut bytes = encode(&with_table());
    assert_eq!(bytes[8..10], FORMAT_VERSION_FUNCTIONS.to_le_bytes());
    bytes[8..10].copy_from_slice(&FORMAT_VERSION_LITERALS.to_le_bytes());
    bytes.extend_from_slice(&[15, 1, 0, 0, 0, 0]);
    reseal(&mut bytes);
    let e = decode(&bytes).unwrap_err().to_string();
    assert!(e.contains("must be written as format 3, 4 or 5"), "{e}");
    // Every cut of a format 6 artifact is an error, never a panic.
    let bytes = encode(&p);
    for cut in HEADER_LEN..bytes.len() {
        let mut short = bytes[..cut].to_vec();
        reseal(&mut short);
        assert!(decode(&short).is_err(), "cut at {cut}");
    }
}

/// A regex that requires no literal but whose alternatives each do has its
/// one-of set recorded (header flag [`FLAG_ONE_OF`], section `one_of`):
/// it round-trips and loads into the regex's prefilter; a program without
/// one is written as before; the decoder and the verifier hold the sets to
/// one list per regex, bounded, of non-empty literals, only where no
/// literal is required.
#[test]
fn one_of_sets_are_recorded_under_their_flag() {
    use crate::bytecode::RegexIdx;
    let flags = |bytes: &[u8]| u16::from_le_bytes([bytes[10], bytes[11]]);
    let mut p = sample();
    p.regexes = vec!["cat|dog".to_owned()];
    crate::value::policy_regex::record_required_literals(&mut p);
    assert_eq!(p.regex_literals, vec![Vec::<String>::new()]);
    assert_eq!(
        p.regex_one_of,
        vec![vec!["cat".to_owned(), "dog".to_owned()]]
    );
    let bytes = encode(&p);
    assert_eq!(flags(&bytes), FLAG_ONE_OF);
    let back = decode(&bytes).unwrap();
    assert_eq!(back, p);
    assert_eq!(encode(&back), bytes);
    let v = load(&bytes).unwrap();
    let re = v.regex(RegexIdx::new(0)).unwrap();
    assert_eq!(re.is_match("a bird"), Ok(false));
    assert_eq!(re.is_match("hotdog"), Ok(true));
    let listing = crate::disasm::disassemble(&back);
    assert!(
        listing.contains(r#""cat|dog"  requires one of "cat", "dog""#),
        "{listing}"
    );
    // No set: no flag and no section.
    let mut plain = p.clone();
    plain.regexes = vec!["^rate".to_owned()];
    crate::value::policy_regex::record_required_literals(&mut plain);
    assert!(plain.regex_one_of.is_empty());
    let plain_bytes = encode(&plain);
    assert_eq!(flags(&plain_bytes), 0);
    assert_eq!(decode(&plain_bytes).unwrap(), plain);
    // The decoder: the flag with no literal in any list is not its encoding.
    let mut empty = p.clone();
    empty.regex_one_of = vec![Vec::new()];
    let e = decode(&encode(&empty)).unwrap_err().to_string();
    assert!(e.contains("lists no literal"), "{e}");
    // The verifier.
    let refused = |one_of: Vec<Vec<String>>, literals: Vec<Vec<String>>| {
        let mut bad = p.clone();
        bad.regex_one_of = one_of;
        bad.regex_literals = literals;
        load(&encode(&bad)).unwrap_err().to_string()
    };
    let cat = || vec!["cat".to_owned()];
    let e = refused(vec![cat(), cat()], vec![Vec::new()]);
    assert!(
        e.contains("one-of literals are 2 lists for 1 regexes"),
        "{e}"
    );
    let max = crate::limits::MAX_REGEX_ONE_OF;
    let e = refused(vec![vec!["c".to_owned(); max + 1]], vec![Vec::new()]);
    assert!(e.contains("of regex 0 are more than"), "{e}");
    let e = refused(vec![vec![String::new()]], vec![Vec::new()]);
    assert!(e.contains("hold an empty literal"), "{e}");
    let e = refused(vec![cat()], vec![cat()]);
    assert!(e.contains("which has required literals"), "{e}");
    let mut at_bound = p.clone();
    at_bound.regex_one_of = vec![vec!["c".to_owned(); max]];
    load(&encode(&at_bound)).unwrap();
    // Every cut of such an artifact is an error, never a panic.
    for cut in HEADER_LEN..bytes.len() {
        assert!(decode(&bytes[..cut]).is_err(), "cut at {cut}");
    }
}

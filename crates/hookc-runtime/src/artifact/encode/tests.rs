//! Unit tests of the byte writer: minimal LEB128 and the header layout.

use super::*;
use crate::artifact::crc32;

fn uleb(v: u64) -> Vec<u8> {
    let mut w = ByteWriter::new();
    w.uleb(v);
    w.buf
}

#[test]
fn leb128_is_minimal() {
    assert_eq!(uleb(0), [0]);
    assert_eq!(uleb(127), [0x7f]);
    assert_eq!(uleb(128), [0x80, 0x01]);
    assert_eq!(uleb(624_485), [0xe5, 0x8e, 0x26]);
    assert_eq!(uleb(u64::MAX).len(), 10);
    let mut w = ByteWriter::new();
    for v in [0, -1, 1, -2, i64::MAX, i64::MIN] {
        w.sleb(v);
    }
    assert_eq!(&w.buf[..4], [0, 1, 2, 3]);
}

#[test]
fn header_layout() {
    let bytes = encode(&Program::default());
    assert_eq!(&bytes[..8], b"HOOKCBC\0");
    // A program without the decision model is format 3.
    assert_eq!(&bytes[8..10], FORMAT_VERSION_FIRST_MATCH.to_le_bytes());
    assert_eq!(&bytes[10..12], [0, 0]);
    let body = &bytes[HEADER_LEN..];
    assert_eq!(&bytes[12..16], crc32(body).to_le_bytes());
    assert_eq!(&bytes[16..24], (body.len() as u64).to_le_bytes());
    // Twelve empty sections: id, length 1, count 0 (events: two counts).
    let mut expected = Vec::new();
    for id in 1..=8u8 {
        expected.extend_from_slice(&[id, 1, 0, 0, 0, 0]);
    }
    expected.extend_from_slice(&[9, 2, 0, 0, 0, 0, 0]);
    expected.extend_from_slice(&[10, 1, 0, 0, 0, 0]);
    expected.extend_from_slice(&[11, 1, 0, 0, 0, 0]);
    expected.extend_from_slice(&[12, 1, 0, 0, 0, 0]);
    assert_eq!(body, expected);
}

#[test]
fn cmp_codes_are_distinct_and_nonzero() {
    let mut seen = std::collections::HashSet::new();
    for op in crate::artifact::CMP_OPS {
        let code = crate::artifact::cmp_code(op);
        assert!(code != 0 && seen.insert(code));
    }
}

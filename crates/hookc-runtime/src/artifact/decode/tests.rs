//! Unit tests of the byte reader: LEB128 edge cases, counts checked against
//! the bytes left, and errors that name their field.

use super::*;

fn uleb(bytes: &[u8]) -> Result<u64, ArtifactError> {
    let mut r = ByteReader::new(bytes, 0);
    let v = r.uleb("test")?;
    r.finish("test")?;
    Ok(v)
}

#[test]
fn leb128_rejects_non_canonical_and_overflow() {
    assert_eq!(uleb(&[0]).unwrap(), 0);
    assert_eq!(uleb(&[0xe5, 0x8e, 0x26]).unwrap(), 624_485);
    let max = [0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0x01];
    assert_eq!(uleb(&max).unwrap(), u64::MAX);
    let e = |b: &[u8]| uleb(b).unwrap_err().to_string();
    assert!(
        e(&[0x80, 0x00]).contains("not minimally encoded"),
        "{}",
        e(&[0x80, 0x00])
    );
    let mut over = max;
    over[9] = 0x02;
    assert!(e(&over).contains("overflows 64 bits"));
    let mut long = max;
    long[9] = 0x81;
    assert!(e(&[long.as_slice(), &[0x00]].concat()).contains("longer than 10 bytes"));
    assert!(e(&[0x80]).contains("truncated"));
    let mut r = ByteReader::new(&[0x80, 0x80, 0x80, 0x80, 0x10], 0);
    assert!(r
        .u32("x")
        .unwrap_err()
        .to_string()
        .contains("does not fit 32 bits"));
}

/// Every value of one to three bytes (the two-byte fast path and the
/// general loop on either side of it) reads back, ending where it ends;
/// a non-minimal two-byte value names the first byte's offset.
#[test]
fn uleb_values_of_one_to_three_bytes_read_back() {
    for v in (0..=20_000u64).chain([16_383, 16_384, 2_097_151]) {
        let mut w = crate::artifact::ByteWriter::new();
        w.uleb(v);
        let mut bytes = w.bytes().to_vec();
        bytes.push(0x7f); // what follows is not read
        let mut r = ByteReader::new(&bytes, 0);
        assert_eq!(r.uleb("x").unwrap(), v);
        assert_eq!(r.remaining(), 1, "{v}");
    }
    let mut r = ByteReader::new(&[0x00, 0x85, 0x00], 10);
    assert_eq!(r.uleb("x").unwrap(), 0);
    let e = r.uleb("x").unwrap_err();
    assert_eq!(
        e,
        ArtifactError::BadInteger {
            what: "x",
            reason: "LEB128 value is not minimally encoded",
            offset: 11
        }
    );
}

#[test]
fn sleb_round_trips() {
    for v in [0i64, 1, -1, 63, -64, 64, i64::MAX, i64::MIN] {
        let z = ((v << 1) ^ (v >> 63)) as u64;
        let mut bytes = Vec::new();
        let mut x = z;
        loop {
            let low = (x & 0x7f) as u8;
            x >>= 7;
            if x == 0 {
                bytes.push(low);
                break;
            }
            bytes.push(low | 0x80);
        }
        assert_eq!(ByteReader::new(&bytes, 0).sleb("x").unwrap(), v);
    }
}

#[test]
fn counts_are_checked_against_bytes_left() {
    // 2^32 entries claimed with 3 bytes left.
    let mut r = ByteReader::new(&[0x80, 0x80, 0x80, 0x80, 0x10, 1, 2, 3], 0x40);
    let err = r.count("string count", 1).unwrap_err();
    assert_eq!(
        err,
        ArtifactError::TooMany {
            what: "string count",
            count: 1 << 32,
            max: 3,
            offset: 0x40
        }
    );
    assert!(err.to_string().contains("(at offset 0x40)"), "{err}");
}

#[test]
fn strings_name_their_field_on_truncation_and_bad_utf8() {
    let mut r = ByteReader::new(&[5, b'a', b'b'], 0x10);
    assert_eq!(
        r.str("path root").unwrap_err().to_string(),
        "artifact is truncated: expected 5 bytes of path root at offset 0x11, found 2; \
             rebuild it with `hookc compile`"
    );
    let mut r = ByteReader::new(&[3, b'a', 0xff, b'b'], 0);
    assert_eq!(
        r.str("string").unwrap_err(),
        ArtifactError::InvalidUtf8 {
            what: "string",
            offset: 2
        }
    );
}

#[test]
fn cmp_codes_decode_back() {
    for op in crate::artifact::CMP_OPS {
        let mut r = ByteReader::new(&[0], 0);
        let code = [crate::artifact::cmp_code(op)];
        r.bytes = &code;
        assert_eq!(
            <crate::bytecode::CmpOp as crate::artifact::Wire>::get(&mut r, "x").unwrap(),
            op
        );
    }
}

/// The string table validates its text at once, but reports what a
/// string-by-string read does: the first bad string before a later
/// truncation, and a string that ends inside a `char` even though the text
/// as a whole is UTF-8.
#[test]
fn string_table_errors_are_those_of_a_string_by_string_read() {
    let read = |bytes: &[u8]| read_strings(&mut ByteReader::within(bytes, 0, "strings"));
    let bad_then_short = [2, 2, b'a', 0xff, 5, b'b'];
    let split_char = [2, 1, 0xC3, 1, 0xA9];
    for (bytes, offset) in [(&bad_then_short[..], 3), (&split_char[..], 2)] {
        assert_eq!(
            read(bytes).unwrap_err(),
            ArtifactError::InvalidUtf8 {
                what: "string",
                offset
            }
        );
    }
    let table = read(&[3, 2, 0xC3, 0xA9, 0, 1, b'z']).unwrap();
    assert_eq!(table.iter().collect::<Vec<_>>(), ["é", "", "z"]);
    assert!(matches!(
        read(&[2, 1, b'a', 3, b'b']).unwrap_err(),
        ArtifactError::Overrun { what: "string", .. }
    ));
}

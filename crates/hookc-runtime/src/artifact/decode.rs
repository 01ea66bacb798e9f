//! Artifact bytes → [`Program`], for untrusted input.
//!
//! [`ByteReader`] is the one place bytes are read: every read is bounds-checked
//! and names its field in the error (as regex's `util/wire.rs` does), every
//! count is checked against the bytes left and [`MAX_TABLE_LEN`] before a
//! table is allocated, and value nesting is checked against
//! [`MAX_VALUE_DEPTH`] before each recursive step. The result is only
//! structurally sound: [`super::load`] verifies it before use.

use super::{
    checksum, get_op, ArtifactError, Section, Wire, FLAG_ATTRIBUTION_ID, FLAG_ATTRIBUTION_OFF,
    FLAG_ENVIRONMENT, FLAG_LOWER_FIRST, FLAG_ONE_OF, FLAG_SENSITIVE, FORMAT_VERSION,
    FORMAT_VERSION_FIRST_MATCH, FORMAT_VERSION_FUNCTIONS, FORMAT_VERSION_LITERALS, HEADER_LEN,
    HOOK_FLAG_REPLACE, KNOWN_FLAGS, MAGIC, SECTIONS, VALUE_TAG_LIST, VALUE_TAG_STRING,
};
use crate::bytecode::path::{Path, Segment};
use crate::bytecode::{
    AbsentHook, ActionEntry, ActionParam, Attribution, Binding, Combine, ConstPool, DebugInfo,
    DecisionModel, Effect, EventIndex, HookDebug, HookEntry, Kinds, Mark, OnError, ParamValue,
    PatternTable, PriorityOrder, Program, StringTable, TemplatePart, ValueCheck,
};
use crate::limits::{MAX_ARTIFACT_BYTES, MAX_PATH_SEGMENTS, MAX_TABLE_LEN, MAX_VALUE_DEPTH};
use serde_json::{Map, Number, Value};

mod actions;

use actions::*;

/// A bounds-checked cursor over a slice of the artifact.
///
/// INVARIANT (reader position): `pos <= bytes.len()`; `base` is the offset
/// of `bytes[0]` in the whole artifact, so errors give absolute offsets.
#[derive(Clone)]
pub(super) struct ByteReader<'a> {
    bytes: &'a [u8],
    pos: usize,
    base: u64,
    /// `None` over the whole input (running out: [`ArtifactError::Truncated`]);
    /// else the body or section read (running out: [`ArtifactError::Overrun`]).
    container: Option<&'static str>,
}

impl<'a> ByteReader<'a> {
    /// A reader of the whole input.
    pub(super) fn new(bytes: &'a [u8], base: u64) -> ByteReader<'a> {
        ByteReader {
            bytes,
            pos: 0,
            base,
            container: None,
        }
    }

    /// A reader of a part whose length the artifact itself gave.
    pub(super) fn within(bytes: &'a [u8], base: u64, container: &'static str) -> ByteReader<'a> {
        ByteReader {
            container: Some(container),
            ..ByteReader::new(bytes, base)
        }
    }

    /// The error for a field of `expected` bytes at `offset` that does not fit.
    fn short(&self, what: &'static str, expected: u64, offset: u64) -> ArtifactError {
        let available = self.remaining() as u64;
        match self.container {
            None => ArtifactError::Truncated {
                what,
                expected,
                offset,
                available,
            },
            Some(container) => ArtifactError::Overrun {
                what,
                expected,
                offset,
                available,
                container,
            },
        }
    }

    /// The absolute offset of the next byte.
    pub(super) fn offset(&self) -> u64 {
        self.base.saturating_add(self.pos as u64)
    }

    pub(super) fn remaining(&self) -> usize {
        self.bytes.len().saturating_sub(self.pos)
    }

    /// The next `n` bytes of field `what`.
    fn take(&mut self, n: usize, what: &'static str) -> Result<&'a [u8], ArtifactError> {
        let slice = self
            .pos
            .checked_add(n)
            .and_then(|end| self.bytes.get(self.pos..end));
        match slice {
            Some(s) => {
                // INVARIANT (reader position): `pos + n <= bytes.len()` by `get`.
                self.pos += n;
                Ok(s)
            }
            None => Err(self.short(what, n as u64, self.offset())),
        }
    }

    fn array<const N: usize>(&mut self, what: &'static str) -> Result<[u8; N], ArtifactError> {
        let offset = self.offset();
        // `take` gave `N` bytes, so the conversion cannot fail; the error is
        // built only if it did (eagerly, it cost more than the read).
        let bytes = self.take(N, what)?;
        bytes
            .try_into()
            .map_err(|_| self.short(what, N as u64, offset))
    }

    /// One byte.
    #[inline]
    pub(super) fn u8(&mut self, what: &'static str) -> Result<u8, ArtifactError> {
        match self.bytes.get(self.pos) {
            Some(&b) => {
                // INVARIANT (reader position): `pos < bytes.len()` by `get`.
                self.pos += 1;
                Ok(b)
            }
            None => Err(self.short(what, 1, self.offset())),
        }
    }

    /// Unsigned LEB128, minimally encoded, at most 64 bits.
    #[inline]
    pub(super) fn uleb(&mut self, what: &'static str) -> Result<u64, ArtifactError> {
        let offset = self.offset();
        let first = self.u8(what)?;
        // Most fields (indexes, counts, lengths) fit one byte.
        if first & 0x80 == 0 {
            return Ok(u64::from(first));
        }
        self.uleb_rest(what, first, offset)
    }

    /// The rest of an unsigned LEB128 whose `first` byte (at `offset`) has
    /// the continuation bit.
    fn uleb_rest(
        &mut self,
        what: &'static str,
        first: u8,
        offset: u64,
    ) -> Result<u64, ArtifactError> {
        let bad = |reason| ArtifactError::BadInteger {
            what,
            reason,
            offset,
        };
        // PERF: the first byte's bits taken before the loop, which then
        // reads every further byte the same way (carrying the first byte
        // into the loop in an `Option` cost 2.2M of the 170M instructions of
        // a 10,000-hook first-match load, callgrind).
        let mut value = u64::from(first & 0x7f);
        let mut shift = 7u32;
        loop {
            let byte = self.u8(what)?;
            let low = u64::from(byte & 0x7f);
            if shift == 63 && low > 1 {
                return Err(bad("LEB128 value overflows 64 bits"));
            }
            value |= low << shift;
            if byte & 0x80 == 0 {
                if byte == 0 {
                    return Err(bad("LEB128 value is not minimally encoded"));
                }
                return Ok(value);
            }
            shift += 7;
            if shift > 63 {
                return Err(bad("LEB128 value is longer than 10 bytes"));
            }
        }
    }

    /// A `u32` field.
    pub(super) fn u32(&mut self, what: &'static str) -> Result<u32, ArtifactError> {
        let offset = self.offset();
        u32::try_from(self.uleb(what)?).map_err(|_| ArtifactError::BadInteger {
            what,
            reason: "does not fit 32 bits",
            offset,
        })
    }

    /// A typed field (a table index).
    fn get<T: Wire>(&mut self, what: &'static str) -> Result<T, ArtifactError> {
        T::get(self, what)
    }

    /// A zigzag LEB128 signed integer.
    fn sleb(&mut self, what: &'static str) -> Result<i64, ArtifactError> {
        let v = self.uleb(what)?;
        Ok(((v >> 1) as i64) ^ -((v & 1) as i64))
    }

    /// A count of entries each at least `min_bytes` long: rejected before
    /// anything is allocated if the bytes left cannot hold that many, or it
    /// is over [`MAX_TABLE_LEN`].
    fn count(&mut self, what: &'static str, min_bytes: usize) -> Result<usize, ArtifactError> {
        let offset = self.offset();
        let count = self.uleb(what)?;
        let max = (self.remaining() / min_bytes.max(1)).min(MAX_TABLE_LEN);
        match usize::try_from(count) {
            Ok(n) if n <= max => Ok(n),
            _ => Err(ArtifactError::TooMany {
                what,
                count,
                max: max as u64,
                offset,
            }),
        }
    }

    /// A length-prefixed UTF-8 string.
    fn str(&mut self, what: &'static str) -> Result<&'a str, ArtifactError> {
        let offset = self.offset();
        let len = self.uleb(what)?;
        let len = usize::try_from(len).map_err(|_| self.short(what, len, offset))?;
        let start = self.offset();
        let bytes = self.take(len, what)?;
        std::str::from_utf8(bytes).map_err(|e| ArtifactError::InvalidUtf8 {
            what,
            offset: start.saturating_add(e.valid_up_to() as u64),
        })
    }

    /// Error unless every byte was read.
    fn finish(&self, what: &'static str) -> Result<(), ArtifactError> {
        match self.remaining() {
            0 => Ok(()),
            count => Err(ArtifactError::TrailingBytes {
                what,
                count: count as u64,
                offset: self.offset(),
            }),
        }
    }

    /// The next section, which must be `section`: a reader over its payload.
    fn section(&mut self, section: Section) -> Result<ByteReader<'a>, ArtifactError> {
        let offset = self.offset();
        let found = self.u8("section id")?;
        if found != section.id {
            return Err(ArtifactError::UnexpectedSection {
                found,
                expected: section.name,
                offset,
            });
        }
        let len = u32::from_le_bytes(self.array::<4>("section length")?);
        let base = self.offset();
        let payload = self.take(len as usize, section.payload)?;
        Ok(ByteReader::within(payload, base, section.payload))
    }
}

/// Decodes an artifact into a program (layout in the [module docs](super)),
/// checking the header, the checksum and every section's structure. The
/// program is not verified yet: use [`super::load`] to run it.
pub fn decode(bytes: &[u8]) -> Result<Program, ArtifactError> {
    let (body, flags, version) = header(bytes)?;
    let with_model = version != FORMAT_VERSION_FIRST_MATCH;
    let with_exprs = version >= FORMAT_VERSION_FUNCTIONS;
    let mut r = ByteReader::within(body, HEADER_LEN as u64, "the artifact body");
    let [strings, paths, consts, regexes, sets, code, hooks, actions, events, debug, layers, absent, model, tables, literals, sensitive, one_of] =
        SECTIONS;
    let mut program = Program {
        strings: read_section(&mut r, strings, read_strings)?,
        paths: read_section(&mut r, paths, read_paths)?,
        consts: read_section(&mut r, consts, read_consts)?,
        regexes: read_section(&mut r, regexes, read_regexes)?,
        sets: read_section(&mut r, sets, |r| read_list(r, "set count", "set constant"))?,
        code: read_section(&mut r, code, read_code)?,
        hooks: read_section(&mut r, hooks, read_hooks)?,
        actions: read_section(&mut r, actions, |r| read_actions(r, with_model, with_exprs))?,
        events: read_section(&mut r, events, read_events)?,
        debug: read_section(&mut r, debug, read_debug)?,
        layers: read_section(&mut r, layers, |r| {
            read_list(r, "layer count", "layer name")
        })?,
        priority_order: if flags & FLAG_LOWER_FIRST != 0 {
            PriorityOrder::LowerFirst
        } else {
            PriorityOrder::HigherFirst
        },
        absent: read_section(&mut r, absent, read_absent)?,
        reads_environment: flags & FLAG_ENVIRONMENT != 0,
        attribution: if flags & FLAG_ATTRIBUTION_ID != 0 {
            Attribution::Id
        } else if flags & FLAG_ATTRIBUTION_OFF != 0 {
            Attribution::Off
        } else {
            Attribution::Location
        },
        model: DecisionModel::default(),
        tables: Vec::new(),
        regex_literals: Vec::new(),
        sensitive: Vec::new(),
        regex_one_of: Vec::new(),
    };
    if with_model {
        let offset = r.offset();
        let actions = &mut program.actions;
        program.model = read_section(&mut r, model, |r| read_model(r, actions))?;
        // One encoding per program: a program without the model is format
        // 3, one without template expressions format 3 or 4.
        if !with_exprs && !program.uses_model() {
            return Err(ArtifactError::Invalid {
                what: "section `model`",
                reason: "the program uses no decision model, so it must be written as format 3",
                offset,
            });
        }
    }
    if with_exprs {
        program.tables = read_section(&mut r, tables, read_tables)?;
    }
    // One encoding per program: each version holds only programs that need it.
    if version < FORMAT_VERSION && program.uses_locals() {
        return Err(ArtifactError::Invalid {
            what: "section `code`",
            reason: "the program keeps local values (`LocalLoad`, `LocalStore`), which need \
                     format 7",
            offset: r.offset(),
        });
    }
    match version {
        FORMAT_VERSION => {
            program.regex_literals = read_section(&mut r, literals, read_literals)?;
            if !program.uses_locals() {
                return Err(ArtifactError::Invalid {
                    what: "the format version",
                    reason: "the program keeps no local value, so it must be written as format \
                             3, 4, 5 or 6",
                    offset: 8,
                });
            }
        }
        FORMAT_VERSION_LITERALS => {
            let offset = r.offset();
            program.regex_literals = read_section(&mut r, literals, read_literals)?;
            if program.regex_literals.is_empty() {
                return Err(ArtifactError::Invalid {
                    what: "section `literals`",
                    reason: "lists no regex, so the program must be written as format 3, 4 or 5",
                    offset,
                });
            }
        }
        FORMAT_VERSION_FUNCTIONS if !program.uses_format_5() => {
            return Err(ArtifactError::Invalid {
                what: "the format version",
                reason: "the program calls no builtin function and has no template expression or \
                         pattern table, so it must be written as format 3 or 4",
                offset: 8,
            });
        }
        FORMAT_VERSION_FUNCTIONS => {}
        // Template expressions and tables cannot be read in formats 3 and
        // 4 at all; the function instructions can, and are refused.
        _ if program.uses_functions() => {
            return Err(ArtifactError::Invalid {
                what: "section `code`",
                reason: "the program calls builtin functions (`Call`, `CallRegex`, `map`, \
                         `filter`), which need format 5",
                offset: r.offset(),
            });
        }
        _ => {}
    }
    if flags & FLAG_SENSITIVE != 0 {
        let offset = r.offset();
        program.sensitive = read_section(&mut r, sensitive, |r| {
            read_list(r, "sensitive path count", "sensitive path")
        })?;
        // One encoding per program: the flag only with members to hash.
        if program.sensitive.is_empty() {
            return Err(ArtifactError::Invalid {
                what: "section `sensitive`",
                reason: "lists no member, so the flag must not be set",
                offset,
            });
        }
    }
    if flags & FLAG_ONE_OF != 0 {
        let offset = r.offset();
        program.regex_one_of = read_section(&mut r, one_of, |r| {
            read_str_lists(
                r,
                [
                    "one-of list count",
                    "one-of literal count",
                    "one-of literal",
                ],
            )
        })?;
        // One encoding per program: the flag only with a set to test.
        if program.regex_one_of.iter().all(Vec::is_empty) {
            return Err(ArtifactError::Invalid {
                what: "section `one_of`",
                reason: "lists no literal, so the flag must not be set",
                offset,
            });
        }
    }
    r.finish("the last section")?;
    Ok(program)
}

/// Checks the header and the checksum; returns the body, the flags and the
/// format version.
fn header(bytes: &[u8]) -> Result<(&[u8], u16, u16), ArtifactError> {
    // The magic first: a short input that is a prefix of it is a truncated
    // artifact, anything else is not an artifact at all.
    match bytes.get(..MAGIC.len()) {
        Some(magic) if magic == MAGIC => {}
        Some(_) => return Err(ArtifactError::NotAnArtifact),
        None if MAGIC.starts_with(bytes) => {
            return Err(ArtifactError::Truncated {
                what: "magic",
                expected: MAGIC.len() as u64,
                offset: 0,
                available: bytes.len() as u64,
            })
        }
        None => return Err(ArtifactError::NotAnArtifact),
    }
    let mut r = ByteReader::new(bytes, 0);
    r.take(MAGIC.len(), "magic")?;
    // The version before anything else: another version may lay out the
    // rest of the header differently.
    let version = u16::from_le_bytes(r.array::<2>("format version")?);
    if !(FORMAT_VERSION_FIRST_MATCH..=FORMAT_VERSION).contains(&version) {
        return Err(ArtifactError::UnsupportedVersion { found: version });
    }
    let flags = u16::from_le_bytes(r.array::<2>("flags")?);
    let attribution = FLAG_ATTRIBUTION_ID | FLAG_ATTRIBUTION_OFF;
    if flags & !KNOWN_FLAGS != 0 || flags & attribution == attribution {
        return Err(ArtifactError::UnsupportedFlags { flags });
    }
    let stored = u32::from_le_bytes(r.array::<4>("checksum")?);
    let body_len = u64::from_le_bytes(r.array::<8>("body length")?);
    if bytes.len() > MAX_ARTIFACT_BYTES {
        return Err(ArtifactError::TooLarge {
            len: bytes.len() as u64,
            limit: MAX_ARTIFACT_BYTES as u64,
        });
    }
    let body = bytes.get(HEADER_LEN..).unwrap_or_default();
    let actual = body.len() as u64;
    if actual < body_len {
        return Err(ArtifactError::Truncated {
            what: "artifact body",
            expected: body_len,
            offset: HEADER_LEN as u64,
            available: actual,
        });
    }
    if actual > body_len {
        return Err(ArtifactError::TrailingBytes {
            what: "the artifact body",
            count: actual - body_len,
            offset: (HEADER_LEN as u64).saturating_add(body_len),
        });
    }
    let computed = checksum(flags, body);
    if computed != stored {
        return Err(ArtifactError::ChecksumMismatch { stored, computed });
    }
    Ok((body, flags, version))
}

/// Reads `section` with `read`, which must consume its payload.
fn read_section<'a, T>(
    r: &mut ByteReader<'a>,
    section: Section,
    read: impl FnOnce(&mut ByteReader<'a>) -> Result<T, ArtifactError>,
) -> Result<T, ArtifactError> {
    let mut payload = r.section(section)?;
    let value = read(&mut payload)?;
    payload.finish(section.entries)?;
    Ok(value)
}

/// The string table, into one buffer (two allocations in all; its text is
/// at most the section's bytes).
///
/// PERF: the bytes of every string are copied first and their UTF-8
/// validated once, as one text (a third of the string table's decoding
/// went to short `from_utf8` calls). On any error, or text that is not
/// UTF-8, or a string that ends inside a `char`, the section is read again
/// string by string ([`read_strings_checked`]), which returns the error a
/// string-by-string read always returned, in the same order.
fn read_strings(r: &mut ByteReader<'_>) -> Result<StringTable, ArtifactError> {
    let start = r.clone();
    if let Some(table) = read_strings_unchecked(r) {
        return Ok(table);
    }
    *r = start;
    read_strings_checked(r)
}

/// The string table when every read succeeds and the text is UTF-8 cut at
/// `char` boundaries; else `None`, and `r` is left anywhere.
fn read_strings_unchecked(r: &mut ByteReader<'_>) -> Option<StringTable> {
    let n = r.count("string count", 1).ok()?;
    let mut text = Vec::with_capacity(r.remaining());
    let mut ends = Vec::with_capacity(n);
    for _ in 0..n {
        let len = usize::try_from(r.uleb("string").ok()?).ok()?;
        text.extend_from_slice(r.take(len, "string").ok()?);
        ends.push(text.len());
    }
    StringTable::from_parts(String::from_utf8(text).ok()?, ends)
}

/// The string table, each string's UTF-8 checked as it is read.
fn read_strings_checked(r: &mut ByteReader<'_>) -> Result<StringTable, ArtifactError> {
    let n = r.count("string count", 1)?;
    let mut out = StringTable::with_capacity(n, r.remaining());
    for _ in 0..n {
        out.push(r.str("string")?);
    }
    Ok(out)
}

fn read_paths(r: &mut ByteReader<'_>) -> Result<Vec<Path>, ArtifactError> {
    let n = r.count("path count", 2)?;
    let mut out = Vec::with_capacity(n);
    for _ in 0..n {
        let mut path = Path::root(r.str("path root")?);
        let offset = r.offset();
        let segments = r.count("path segment count", 2)?;
        if segments > MAX_PATH_SEGMENTS {
            return Err(ArtifactError::TooMany {
                what: "path segment count",
                count: segments as u64,
                max: MAX_PATH_SEGMENTS as u64,
                offset,
            });
        }
        // Each `child` copies the path: quadratic in the segments, which
        // are bounded just above.
        for _ in 0..segments {
            let offset = r.offset();
            let segment = match r.u8("path segment tag")? {
                1 => Segment::Field(r.str("path field")?.to_owned()),
                2 => Segment::Index(r.sleb("path index")?),
                tag => {
                    return Err(ArtifactError::BadTag {
                        what: "path segment",
                        tag,
                        offset,
                    })
                }
            };
            path = path.child(segment);
        }
        out.push(path);
    }
    Ok(out)
}

/// The constants: the text of a string, and the texts of a list of
/// strings, kept for the pool to build on first use
/// ([`ConstPool::push_text`], [`ConstPool::push_text_list`]), every other
/// value built now. Either way every byte is checked here, with the same
/// errors.
fn read_consts(r: &mut ByteReader<'_>) -> Result<ConstPool, ArtifactError> {
    // A list's strings are at depth 2, which a built list checks.
    const _: () = assert!(MAX_VALUE_DEPTH >= 2);
    let n = r.count("constant count", 1)?;
    let mut pool = ConstPool::with_capacity(n, r.remaining());
    for _ in 0..n {
        let offset = r.offset();
        match r.u8("constant tag")? {
            VALUE_TAG_STRING => pool.push_text(r.str("string constant")?),
            VALUE_TAG_LIST => {
                // Read ahead as texts; a list with an item that is not a
                // string is read again from its start, and built.
                let mut items = r.clone();
                let len = items.count("list constant length", 1)?;
                let texts = pool.push_text_list(len, || match items.u8("constant tag")? {
                    VALUE_TAG_STRING => items.str("string constant").map(Some),
                    _ => Ok(None),
                })?;
                match texts {
                    true => *r = items,
                    false => pool.push(read_tagged(r, VALUE_TAG_LIST, 1, offset)?),
                }
            }
            tag => pool.push(read_tagged(r, tag, 1, offset)?),
        }
    }
    Ok(pool)
}

/// Most items a list constant reserves room for before reading them.
const LIST_CAPACITY_BOUND: usize = 256;

/// One constant at nesting `depth` (1 = top level); the depth is checked
/// before anything else, so recursion stops at [`MAX_VALUE_DEPTH`].
fn read_value(r: &mut ByteReader<'_>, depth: usize) -> Result<Value, ArtifactError> {
    let offset = r.offset();
    if depth > MAX_VALUE_DEPTH {
        return Err(ArtifactError::TooDeep {
            what: "constant",
            limit: MAX_VALUE_DEPTH,
            offset,
        });
    }
    let tag = r.u8("constant tag")?;
    read_tagged(r, tag, depth, offset)
}

/// The rest of a constant at nesting `depth` whose `tag`, at `offset`, was
/// just read.
fn read_tagged(
    r: &mut ByteReader<'_>,
    tag: u8,
    depth: usize,
    offset: u64,
) -> Result<Value, ArtifactError> {
    Ok(match tag {
        1 => Value::Null,
        2 => Value::Bool(false),
        3 => Value::Bool(true),
        4 => Value::from(r.sleb("integer constant")?),
        5 => {
            let u = r.uleb("unsigned integer constant")?;
            if i64::try_from(u).is_ok() {
                return Err(ArtifactError::Invalid {
                    what: "unsigned integer constant",
                    reason: "fits i64, so it must be written as an int (tag 4)",
                    offset,
                });
            }
            Value::from(u)
        }
        6 => {
            let bits = u64::from_le_bytes(r.array::<8>("double constant")?);
            let number = Number::from_f64(f64::from_bits(bits)).ok_or(ArtifactError::Invalid {
                what: "double constant",
                reason: "not a finite number",
                offset,
            })?;
            Value::Number(number)
        }
        VALUE_TAG_STRING => Value::String(r.str("string constant")?.to_owned()),
        VALUE_TAG_LIST => {
            let n = r.count("list constant length", 1)?;
            // Capacity from the count only up to a bound: nested lists each
            // claiming all the bytes left would reserve that much once per
            // level. Past the bound, growing keeps memory proportional to
            // the items actually read. PERF: a guard's lists of names (80
            // package names, 20 hosts) were grown from empty, a copy per
            // doubling.
            let mut items = Vec::with_capacity(n.min(LIST_CAPACITY_BOUND));
            for _ in 0..n {
                items.push(read_value(r, depth + 1)?);
            }
            Value::Array(items)
        }
        9 => {
            let n = r.count("object constant size", 2)?;
            let mut map = Map::new(); // as for lists
            for _ in 0..n {
                let key_offset = r.offset();
                let key = r.str("object constant key")?;
                if map.contains_key(key) {
                    return Err(ArtifactError::Invalid {
                        what: "object constant key",
                        reason: "duplicate key",
                        offset: key_offset,
                    });
                }
                let key = key.to_owned();
                map.insert(key, read_value(r, depth + 1)?);
            }
            Value::Object(map)
        }
        tag => {
            return Err(ArtifactError::BadTag {
                what: "constant",
                tag,
                offset,
            })
        }
    })
}

fn read_regexes(r: &mut ByteReader<'_>) -> Result<Vec<String>, ArtifactError> {
    let n = r.count("regex count", 1)?;
    let mut out = Vec::with_capacity(n);
    for _ in 0..n {
        out.push(r.str("regex pattern")?.to_owned());
    }
    Ok(out)
}

/// The `literals` section (format 6): one list of literals per regex.
fn read_literals(r: &mut ByteReader<'_>) -> Result<Vec<Vec<String>>, ArtifactError> {
    read_str_lists(
        r,
        [
            "regex literal list count",
            "regex literal count",
            "regex literal",
        ],
    )
}

/// A `vec<vec<str>>`, its counts and items named by `what`.
fn read_str_lists(
    r: &mut ByteReader<'_>,
    [lists, count, item]: [&'static str; 3],
) -> Result<Vec<Vec<String>>, ArtifactError> {
    let n = r.count(lists, 1)?;
    let mut out = Vec::with_capacity(n);
    for _ in 0..n {
        let k = r.count(count, 1)?;
        let mut list = Vec::with_capacity(k);
        for _ in 0..k {
            list.push(r.str(item)?.to_owned());
        }
        out.push(list);
    }
    Ok(out)
}

/// The `tables` section (formats 5 and 6).
fn read_tables(r: &mut ByteReader<'_>) -> Result<Vec<PatternTable>, ArtifactError> {
    let n = r.count("pattern table count", 3)?;
    let mut out = Vec::with_capacity(n);
    for _ in 0..n {
        out.push(PatternTable {
            on: r.get("pattern table path")?,
            patterns: read_list(r, "pattern table row count", "pattern table pattern")?,
            rows: r.get("pattern table rows")?,
        });
    }
    Ok(out)
}

fn read_list<T: Wire>(
    r: &mut ByteReader<'_>,
    count: &'static str,
    item: &'static str,
) -> Result<Vec<T>, ArtifactError> {
    let n = r.count(count, 1)?;
    let mut out = Vec::with_capacity(n);
    for _ in 0..n {
        out.push(r.get(item)?);
    }
    Ok(out)
}

fn read_code(r: &mut ByteReader<'_>) -> Result<Vec<crate::bytecode::Op>, ArtifactError> {
    let n = r.count("instruction count", 1)?;
    let mut out = Vec::with_capacity(n);
    for index in 0..n {
        let offset = r.offset();
        let opcode = r.u8("opcode")?;
        match get_op(opcode, r)? {
            Some(op) => out.push(op),
            None => {
                return Err(ArtifactError::UnknownOpcode {
                    opcode,
                    index: index as u64,
                    offset,
                })
            }
        }
    }
    Ok(out)
}

fn read_hooks(r: &mut ByteReader<'_>) -> Result<Vec<HookEntry>, ArtifactError> {
    let n = r.count("hook count", 9)?;
    let mut out = Vec::with_capacity(n);
    for _ in 0..n {
        let id = r.get("hook id")?;
        let priority = r.sleb("hook priority")?;
        let layer = r.u32("hook layer")?;
        let offset = r.offset();
        let description = match r.u8("hook description flag")? {
            0 => None,
            1 => Some(r.get("hook description")?),
            tag => {
                return Err(ArtifactError::BadTag {
                    what: "hook description flag",
                    tag,
                    offset,
                })
            }
        };
        let start = r.u32("hook code start")?;
        let end = r.u32("hook code end")?;
        out.push(HookEntry {
            id,
            priority,
            layer,
            description,
            code: (start, end),
            max_stack: r.u32("hook max stack")?,
            action: r.get("hook action")?,
            replace: read_hook_flags(r)?,
        });
    }
    Ok(out)
}

/// A hook's flags byte: whether it replaces (bit 0); other bits are errors.
fn read_hook_flags(r: &mut ByteReader<'_>) -> Result<bool, ArtifactError> {
    let offset = r.offset();
    match r.u8("hook flags")? {
        0 => Ok(false),
        HOOK_FLAG_REPLACE => Ok(true),
        tag => Err(ArtifactError::BadTag {
            what: "hook flags",
            tag,
            offset,
        }),
    }
}

fn read_absent(r: &mut ByteReader<'_>) -> Result<Vec<AbsentHook>, ArtifactError> {
    let n = r.count("absent hook count", 2)?;
    let mut out = Vec::with_capacity(n);
    for _ in 0..n {
        out.push(AbsentHook {
            id: r.get("absent hook id")?,
            replace: read_hook_flags(r)?,
        });
    }
    Ok(out)
}

fn read_events(r: &mut ByteReader<'_>) -> Result<EventIndex, ArtifactError> {
    let n = r.count("event count", 2)?;
    let mut named = Vec::with_capacity(n);
    for _ in 0..n {
        let name = r.get("event name")?;
        named.push((name, read_list(r, "event hook count", "event hook")?));
    }
    let wildcard = read_list(r, "wildcard hook count", "wildcard hook")?;
    Ok(EventIndex { named, wildcard })
}

fn read_debug(r: &mut ByteReader<'_>) -> Result<DebugInfo, ArtifactError> {
    let n = r.count("debug hook count", 2)?;
    let mut hooks = Vec::with_capacity(n);
    for _ in 0..n {
        let at = r.get("hook location")?;
        let m = r.count("sub-condition count", 3)?;
        let mut marks = Vec::with_capacity(m);
        for _ in 0..m {
            marks.push(Mark {
                op: r.u32("sub-condition instruction")?,
                text: r.get("sub-condition text")?,
                at: r.get("sub-condition location")?,
            });
        }
        hooks.push(HookDebug { at, marks });
    }
    Ok(DebugInfo { hooks })
}

#[cfg(test)]
mod tests;

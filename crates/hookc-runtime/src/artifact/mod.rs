//! The `.hkb` artifact: a [`Program`](crate::bytecode::Program) as
//! deterministic bytes ([`encode`]), and back ([`decode`]), with [`load`] =
//! decode, then [`crate::verify`].
//!
//! The decoder treats its input as hostile: every read is bounds-checked
//! and names the field it reads, every count is checked against the bytes
//! left and against [`crate::limits`] before anything is allocated, nesting
//! is bounded before recursion, and the first problem is returned as an
//! [`ArtifactError`] with its byte offset. No input makes it panic.
//!
//! # Format (versions 3 to 7)
//!
//! All fixed-width integers are little-endian. Inside sections, integers are
//! LEB128 (`uleb`: unsigned; `sleb`: a signed value zigzag-mapped, then
//! unsigned LEB128), minimally encoded (an over-long or overflowing encoding
//! is an error), so every program has exactly one encoding.
//!
//! ```text
//! offset size  field
//! 0      8     magic  "HOOKCBC\0"
//! 8      2     format version (u16) = 3; 4 for a program that uses the
//!              decision model (then with the `model` section); 5 for a
//!              program that calls the function table (`Call`, `CallRegex`,
//!              the `map` and `filter` macros) or has template expressions
//!              or pattern tables (format 4's sections, `model` included,
//!              plus template part tag 3 and the `tables` section); 6 for a
//!              program with regexes (format 5's, plus the `literals`
//!              section); 7 for a program that keeps local names' values
//!              (format 6's, plus the instructions `LocalLoad` and
//!              `LocalStore`; its `literals` section may be empty)
//! 10     2     flags (u16): bit 0 set when lower priorities run first
//!              (`priority_order: lower_first`); bit 1 for `attribution:
//!              id`, bit 2 for `attribution: off` (never both); bit 3
//!              when the policy declares environment variables; any
//!              other bit is rejected
//! 12     4     checksum (u32): CRC-32 (IEEE 802.3, as in zip and PNG) of every byte from offset 24
//!              (with bit 1, 2 or 3 set: of the flags, then those bytes)
//! 16     8     body length (u64) = file length - 24
//! 24     ...   body: exactly these sections (twelve in format 3, thirteen
//!              in format 4, fourteen in format 5, fifteen in formats 6
//!              and 7),
//!              once each, in this order
//! ```
//!
//! A section is `id: u8`, `length: u32` (fixed width), then `length` bytes
//! of payload, which its decoder must consume exactly. Ids, in order:
//! 1 `strings`, 2 `paths`, 3 `consts`, 4 `regexes`, 5 `sets`, 6 `code`,
//! 7 `hooks`, 8 `actions`, 9 `events`, 10 `debug`, 11 `layers`, 12 `absent`,
//! and from format 4, 13 `model`, from format 5, 14 `tables`, and from
//! format 6, 15 `literals`; then, in any format, 16 `sensitive` when the
//! header flag [`FLAG_SENSITIVE`] says so, and 17 `one_of` when
//! [`FLAG_ONE_OF`] does. Each
//! program has the lowest version that holds it, and no other.
//! Payloads (`str` is `uleb` byte
//! length + UTF-8; `vec<T>` is `uleb` count + the items; tag bytes start
//! at 1, 0 being invalid, except the description flag):
//!
//! - `strings`: `vec<str>`.
//! - `paths`: `vec<(root: str, segments: vec<segment>)>`; a segment is
//!   tag 1 + `str` (a field) or tag 2 + `sleb` (an index).
//! - `consts`: `vec<value>`; a value is a tag then: 1 null, 2 false, 3 true,
//!   4 int (`sleb` i64), 5 big unsigned int (`uleb`, above `i64::MAX`),
//!   6 double (8 bytes, IEEE bits; finite), 7 string (`str`), 8 list
//!   (`vec<value>`), 9 object (`vec<(key: str, value)>`, keys unique, order
//!   kept). Nesting at most [`crate::limits::MAX_VALUE_DEPTH`].
//! - `regexes`: `vec<str>` (patterns; parsed and compiled on first search).
//! - `sets`: `vec<uleb>` (constant indexes).
//! - `code`: `vec<instruction>`: an opcode byte, then its operands in
//!   declaration order: table indexes, jump targets, counts and `Var`
//!   depths as `uleb`; `TypeIs` bits as one byte; `Cmp` ops as one byte
//!   (1 `==`, 2 `!=`, 3 `<`, 4 `<=`, 5 `>`, 6 `>=`), macro kinds as one byte
//!   (1 `exists`, 2 `all`, 3 `exists_one`, 4 `map`, 5 `filter`), function
//!   ids (`Call`, `CallRegex`) as `uleb` ([`crate::functions::Builtin::id`]).
//!   Opcodes: see [`OPCODES`].
//! - `hooks`: `vec<hook>`: id (`uleb` string), priority (`sleb`), layer
//!   (`uleb` index into `layers`), description (byte 0 none, or 1 + `uleb`
//!   string), code start, code end, max stack, action (each `uleb`), flags
//!   (one byte: 0, or 1 for a hook marked `replace`; any other value is
//!   rejected).
//! - `actions`: `vec<(kind: uleb string, effect: u8, params: vec<(name: uleb
//!   string, [5, check], param)>)>`; the effect is 1 terminal or 2 collected,
//!   and in format 4 also 3 transform or 4 await
//!   ([`Effect`](crate::bytecode::Effect)); a param is a tag then: 1 constant (`uleb`), 2 template
//!   (`vec<part>`, a part is tag 1 + `uleb` string, tag 2 + `uleb` path, or,
//!   from format 5, tag 3 + code start, code end and max stack, each
//!   `uleb`: an expression whose code is in `code`),
//!   3 list (`vec<param>`), 4 object (`vec<(key: uleb string, param)>`);
//!   nesting at most [`crate::limits::MAX_VALUE_DEPTH`]. A parameter with a
//!   run-time check ([`ValueCheck`](crate::bytecode::ValueCheck)) starts
//!   with tag 5 and its check before its value (parameters without one are
//!   written exactly as without checks): a check is its kinds (one byte, the
//!   bits of [`Kinds`](crate::bytecode::Kinds), not empty, no unknown bit),
//!   its enum (byte 0 none, or 1 + `uleb` constant, a list), its items'
//!   check (byte 0 none, or 1 + a check); nesting at most
//!   [`crate::limits::MAX_VALUE_DEPTH`].
//! - `events`: `vec<(name: uleb string, hooks: vec<uleb>)>`, then the
//!   wildcard hooks `vec<uleb>`.
//! - `debug`: `vec<(at: uleb string, marks: vec<(op: uleb, text: uleb
//!   string, at: uleb string)>)>`, empty or one entry per hook: where the
//!   hook and each of its sub-conditions are in the sources
//!   (`file:line:col`), for explain traces; see
//!   [`DebugInfo`](crate::bytecode::DebugInfo). `hookc compile --strip`
//!   writes it empty.
//! - `layers`: `vec<uleb string>`: the layers' names, lowest first
//!   (`builtin`, `directive` unless the compilation named its own).
//! - `absent`: `vec<(id: uleb string, flags: u8)>`: the hooks left out
//!   (disabled, or replaced by a hook of a higher layer), whose ids stay
//!   known to overrides and to layering; flags as a hook's. See
//!   [`AbsentHook`](crate::bytecode::AbsentHook).
//! - `model` (format 4): the [`DecisionModel`](crate::bytecode::DecisionModel):
//!   combine (one byte: 1 first match, 2 strictest), the error policy (one
//!   byte: 1 skip, 2 fail, 3 then a `uleb` action index), then one entry per
//!   action, in the order of `actions`: its severity (`sleb`) and its
//!   binding (byte 0 none, 1 + `uleb` path index, or 2 + `uleb` string
//!   index: the name of the parameter that holds the key).
//! - `tables` (formats 5 to 7): `vec<(on: uleb path, patterns: vec<uleb
//!   regex>, rows: uleb constant)>`, the hooks' pattern tables
//!   ([`PatternTable`](crate::bytecode::PatternTable)).
//! - `sensitive` (with [`FLAG_SENSITIVE`]): `vec<uleb path>`, at least one,
//!   each once: the context members a decision log hashes
//!   ([`Program::sensitive`](crate::bytecode::Program::sensitive)).
//! - `literals` (formats 6 and 7): `vec<vec<str>>`, one list per regex, in the
//!   order of `regexes`: the literals every match of the regex contains,
//!   longest first, at most [`crate::limits::MAX_REGEX_LITERALS`]
//!   ([`required_literals`](crate::value::policy_regex::required_literals);
//!   empty for a regex that has none). The runtime's prefilter tests them
//!   before it parses the pattern.
//! - `one_of` (with [`FLAG_ONE_OF`]): `vec<vec<str>>`, one list per regex,
//!   in the order of `regexes`: for a regex whose `literals` list is empty,
//!   literals of which every match contains one, at most
//!   [`crate::limits::MAX_REGEX_ONE_OF`], none empty
//!   ([`one_of_literals_in`](crate::value::policy_regex::one_of_literals_in));
//!   empty for the others, and not all empty. The prefilter tests them
//!   next: a haystack with none of them is no match.
//!
//! # Loading
//!
//! [`decode`] checks, in order: the magic (else "not a hookc artifact"),
//! the format version (a clear message naming both versions), the flags,
//! the size limit [`crate::limits::MAX_ARTIFACT_BYTES`], the body length,
//! the checksum, then each section's structure. An input shorter than its
//! header says is "truncated" ([`ArtifactError::Truncated`]); a field that
//! runs past its own section, once the checksum matched, is "malformed"
//! ([`ArtifactError::Overrun`]). [`load`] then runs
//! [`crate::verify::verify`], which checks every index, jump and stack
//! height before the program can be run (a regex is checked at its first
//! search: [`crate::value::PolicyRegex`]).

mod decode;
mod encode;

pub use decode::decode;
pub use encode::encode;

use crate::bytecode::{for_each_op, operand_type};
use crate::bytecode::{
    ActionIdx, CmpOp, ConstIdx, JumpTarget, MacroOp, Op, PathIdx, RegexIdx, SetIdx, StrIdx,
    TableIdx,
};
use crate::verify::{VerifiedProgram, VerifyError};
use decode::ByteReader;
use encode::ByteWriter;
use thiserror::Error;

/// The first 8 bytes of every artifact.
pub const MAGIC: [u8; 8] = *b"HOOKCBC\0";

/// The newest format version this hookc writes and reads: a program that
/// keeps local names' values for their later uses
/// ([`Program::uses_locals`](crate::bytecode::Program::uses_locals)) is
/// written in it. It is format 6 plus the instructions `LocalLoad` and
/// `LocalStore`, with a `literals` section that may be empty.
pub const FORMAT_VERSION: u16 = 7;

/// The format version of a program with regexes and no kept local value,
/// written with the literals every match of each regex contains (the
/// `literals` section), so that a loaded policy's search of a string
/// without them parses nothing. It is format 5 plus that section.
pub const FORMAT_VERSION_LITERALS: u16 = 6;

/// The format version of a program without regexes that calls the
/// function table, or has template expressions or pattern tables
/// ([`Program::uses_format_5`](crate::bytecode::Program::uses_format_5)):
/// format 4 plus the instructions `Call` and `CallRegex`, the macro kinds
/// `map` and `filter`, template part tag 3 and the `tables` section.
pub const FORMAT_VERSION_FUNCTIONS: u16 = 5;

/// The format version of a program that uses the decision model (a
/// combining mode, an error policy, transforms, awaits, severities;
/// [`Program::uses_model`](crate::bytecode::Program::uses_model)) and no
/// function, template expression or pattern table: written with the
/// `model` section.
pub const FORMAT_VERSION_MODEL: u16 = 4;

/// The format version of programs without the decision model: written for
/// them, byte for byte as before format 4 existed, and still read.
pub const FORMAT_VERSION_FIRST_MATCH: u16 = 3;

/// Header flag: the hooks are in ascending priority order
/// ([`crate::bytecode::PriorityOrder::LowerFirst`]). Artifacts without it
/// are laid out exactly as before the flag existed.
pub const FLAG_LOWER_FIRST: u16 = 1;

/// Header flag: the host answer names the hook by id only
/// ([`crate::bytecode::Attribution::Id`]).
pub const FLAG_ATTRIBUTION_ID: u16 = 2;

/// Header flag: the host answer carries the reason as written
/// ([`crate::bytecode::Attribution::Off`]). Never set with
/// [`FLAG_ATTRIBUTION_ID`]; without either, the attribution is
/// `location` and the artifact is laid out exactly as before the flags
/// existed.
pub const FLAG_ATTRIBUTION_OFF: u16 = 4;

/// Header flag: the policy declares environment variables, which a hook
/// call reads into the context
/// ([`Program::reads_environment`](crate::bytecode::Program::reads_environment)).
pub const FLAG_ENVIRONMENT: u16 = 8;

/// Header flag: the program marks context members sensitive, listed in
/// the `sensitive` section after the others
/// ([`Program::sensitive`](crate::bytecode::Program::sensitive)). Without
/// it the artifact is laid out exactly as before the flag existed.
pub const FLAG_SENSITIVE: u16 = 16;

/// Header flag: some regex requires no literal but has a one-of set,
/// listed in the `one_of` section after the others
/// ([`Program::regex_one_of`](crate::bytecode::Program::regex_one_of)).
/// Without it the artifact is laid out exactly as before the flag existed.
pub const FLAG_ONE_OF: u16 = 32;

/// Every header flag this hookc knows.
pub(crate) const KNOWN_FLAGS: u16 = FLAG_LOWER_FIRST
    | FLAG_ATTRIBUTION_ID
    | FLAG_ATTRIBUTION_OFF
    | FLAG_ENVIRONMENT
    | FLAG_SENSITIVE
    | FLAG_ONE_OF;

/// The header flags the checksum covers when one is set (all but the
/// lower-first flag, which the verifier checks against the hooks' order).
const CHECKED_FLAGS: u16 =
    FLAG_ATTRIBUTION_ID | FLAG_ATTRIBUTION_OFF | FLAG_ENVIRONMENT | FLAG_SENSITIVE | FLAG_ONE_OF;

/// A hook's flags byte (and an absent hook's): it is marked `replace`.
pub(crate) const HOOK_FLAG_REPLACE: u8 = 1;

/// The tag of a string constant (`consts`, above): the decoder keeps its
/// text for the pool to build on first use.
pub(crate) const VALUE_TAG_STRING: u8 = 7;

/// The tag of a list constant: the decoder keeps the texts of a list of
/// strings only, for the pool to build on first use.
pub(crate) const VALUE_TAG_LIST: u8 = 8;

/// The flags byte of a hook marked `replace` or not.
fn hook_flags(replace: bool) -> u8 {
    if replace {
        HOOK_FLAG_REPLACE
    } else {
        0
    }
}

/// Bytes before the body: magic, version, flags, checksum, body length.
pub const HEADER_LEN: usize = 24;

/// Decodes and verifies an artifact: the only way from bytes to a program
/// the VM runs.
pub fn load(bytes: &[u8]) -> Result<VerifiedProgram, ArtifactError> {
    let program = decode(bytes)?;
    Ok(crate::verify::verify(program)?)
}

/// Why an artifact could not be read. Messages give the byte offset
/// (`at offset 0x…`) where it is known.
#[derive(Debug, Clone, PartialEq, Eq, Error)]
#[non_exhaustive]
pub enum ArtifactError {
    /// The input does not start with [`MAGIC`].
    #[error(
        "not a hookc artifact: it does not start with the `.hkb` magic bytes; \
         compile policy sources with `hookc compile`, or pass them as sources"
    )]
    NotAnArtifact,
    /// The artifact was written in another format version.
    #[error(
        "artifact format version {found} is not supported by this hookc (reads versions {} \
         to {}); recompile the policy with this hookc",
        FORMAT_VERSION_FIRST_MATCH,
        FORMAT_VERSION
    )]
    UnsupportedVersion {
        /// The artifact's version.
        found: u16,
    },
    /// Header flags this hookc does not know (or two attributions).
    #[error(
        "artifact has unknown flags {flags:#06x} (at offset 0xa); it was written by another \
         hookc: recompile the policy with this hookc"
    )]
    UnsupportedFlags {
        /// The flags.
        flags: u16,
    },
    /// The input is over [`crate::limits::MAX_ARTIFACT_BYTES`].
    #[error("artifact is {len} bytes, over the limit of {limit} bytes")]
    TooLarge {
        /// Its length.
        len: u64,
        /// The limit.
        limit: u64,
    },
    /// The input ends before a header field or the body does: the file is
    /// shorter than its header says.
    #[error(
        "artifact is truncated: expected {expected} bytes of {what} at offset {offset:#x}, \
         found {available}; rebuild it with `hookc compile`"
    )]
    Truncated {
        /// The field.
        what: &'static str,
        /// Bytes the field needs.
        expected: u64,
        /// Where it starts.
        offset: u64,
        /// Bytes left there.
        available: u64,
    },
    /// A field runs past the end of its section (or of the body): the
    /// artifact's own lengths disagree.
    #[error(
        "artifact is malformed: {what} at offset {offset:#x} needs {expected} bytes, but \
         {container} has {available} left"
    )]
    Overrun {
        /// The field.
        what: &'static str,
        /// Bytes the field needs.
        expected: u64,
        /// Where it starts.
        offset: u64,
        /// Bytes left in the container.
        available: u64,
        /// The section (or the body) it is in.
        container: &'static str,
    },
    /// The body does not match its checksum.
    #[error(
        "artifact is corrupted: checksum mismatch (header says {stored:#010x}, contents give \
         {computed:#010x}); rebuild it with `hookc compile`"
    )]
    ChecksumMismatch {
        /// The header's checksum.
        stored: u32,
        /// The body's checksum.
        computed: u32,
    },
    /// Bytes left over after a section's payload or after the body.
    #[error(
        "artifact is malformed: {count} unexpected bytes after {what} (at offset {offset:#x})"
    )]
    TrailingBytes {
        /// What they follow.
        what: &'static str,
        /// How many.
        count: u64,
        /// Where they start.
        offset: u64,
    },
    /// A section is missing, out of order, repeated or unknown.
    #[error(
        "artifact is malformed: expected section `{expected}`, found section id {found} \
         (at offset {offset:#x})"
    )]
    UnexpectedSection {
        /// The id read.
        found: u8,
        /// The section due here.
        expected: &'static str,
        /// Where.
        offset: u64,
    },
    /// A byte that is no instruction's opcode.
    #[error("artifact is malformed: unknown opcode {opcode:#04x} at instruction {index} (at offset {offset:#x})")]
    UnknownOpcode {
        /// The byte.
        opcode: u8,
        /// The instruction's index in the code.
        index: u64,
        /// Where.
        offset: u64,
    },
    /// A tag byte outside its encoding.
    #[error("artifact is malformed: invalid {what} tag {tag} (at offset {offset:#x})")]
    BadTag {
        /// What it tags.
        what: &'static str,
        /// The byte.
        tag: u8,
        /// Where.
        offset: u64,
    },
    /// A function id that no builtin has: the artifact was written by a
    /// newer hookc, or damaged.
    #[error("artifact names function {id} in {what}, which this runtime does not have (at offset {offset:#x}): compile the policy with this version of hookc")]
    UnknownFunction {
        /// The operand.
        what: &'static str,
        /// The id.
        id: u16,
        /// Where.
        offset: u64,
    },
    /// A string that is not UTF-8.
    #[error("artifact is malformed: {what} is not valid UTF-8 (at offset {offset:#x})")]
    InvalidUtf8 {
        /// The field.
        what: &'static str,
        /// Where the bad byte is.
        offset: u64,
    },
    /// An integer encoding that is over-long, overflows or does not fit its field.
    #[error("artifact is malformed: {what}: {reason} (at offset {offset:#x})")]
    BadInteger {
        /// The field.
        what: &'static str,
        /// What is wrong.
        reason: &'static str,
        /// Where it starts.
        offset: u64,
    },
    /// A count larger than the bytes left could hold, or than the limit.
    #[error(
        "artifact is malformed: {what} claims {count} entries, but at most {max} are possible \
         here (at offset {offset:#x})"
    )]
    TooMany {
        /// The field.
        what: &'static str,
        /// The count read.
        count: u64,
        /// The most possible (bytes left, or the limit).
        max: u64,
        /// Where.
        offset: u64,
    },
    /// A value nested past [`crate::limits::MAX_VALUE_DEPTH`].
    #[error(
        "artifact is malformed: {what} nested deeper than {limit} levels (at offset {offset:#x})"
    )]
    TooDeep {
        /// The field.
        what: &'static str,
        /// The limit.
        limit: usize,
        /// Where.
        offset: u64,
    },
    /// A field whose value is not allowed (a non-finite double, a duplicate key, ...).
    #[error("artifact is malformed: {what}: {reason} (at offset {offset:#x})")]
    Invalid {
        /// The field.
        what: &'static str,
        /// What is wrong.
        reason: &'static str,
        /// Where.
        offset: u64,
    },
    /// The decoded program failed verification.
    #[error("artifact failed verification: {0}; recompile the policy with this hookc")]
    Verify(#[from] VerifyError),
}

/// CRC-32 (IEEE 802.3, reflected, polynomial `0xEDB88320`; the checksum of
/// zip, gzip and PNG) of `data`: the artifact's checksum. CRC-32 detects
/// every 1-, 2- and 3-bit error and every burst of up to 32 bits.
///
/// Computed by `crc32fast`, which folds with carry-less multiplication
/// (`pclmulqdq`, detected at run time) where the processor has it and
/// falls back to slicing-by-16 tables: the checksum is the one pass over
/// every byte of a load, and on x86-64 this takes about a tenth of the
/// instructions of the slicing-by-8 tables it replaced
/// (`docs/src/internals/performance.md`, "Loading in proportion to what is
/// used"). The same values as the bytewise definition
/// (`artifact/tests.rs` compares them on known vectors and random inputs).
pub fn crc32(data: &[u8]) -> u32 {
    crc32fast::hash(data)
}

/// The checksum of an artifact with header `flags` and `body`: the CRC-32
/// of the body, or, when the flags carry an attribution or the
/// environment flag, of the flags (two bytes, little-endian) then the
/// body, so that a flipped bit of them is detected (no check of the
/// program could: every choice is valid). Artifacts without them are
/// checksummed exactly as before these flags existed.
pub(crate) fn checksum(flags: u16, body: &[u8]) -> u32 {
    if flags & CHECKED_FLAGS == 0 {
        return crc32(body);
    }
    let mut hasher = crc32fast::Hasher::new();
    hasher.update(&flags.to_le_bytes());
    hasher.update(body);
    hasher.finalize()
}

/// A section of the body, with the names its errors use.
#[derive(Debug, Clone, Copy)]
struct Section {
    /// Its id byte.
    id: u8,
    /// Its name.
    name: &'static str,
    /// Its payload, as a field (`section `strings``).
    payload: &'static str,
    /// Its entries, as what trailing bytes follow.
    entries: &'static str,
}

macro_rules! sections {
    ($($id:literal $name:literal),+ $(,)?) => {
        [$(Section {
            id: $id,
            name: $name,
            payload: concat!("section `", $name, "`"),
            entries: concat!("the entries of section `", $name, "`"),
        }),+]
    };
}

/// The sections, in their required order.
const SECTIONS: [Section; 17] = sections![
    1 "strings",
    2 "paths",
    3 "consts",
    4 "regexes",
    5 "sets",
    6 "code",
    7 "hooks",
    8 "actions",
    9 "events",
    10 "debug",
    11 "layers",
    12 "absent",
    13 "model",
    14 "tables",
    15 "literals",
    16 "sensitive",
    17 "one_of",
];

// ---------------------------------------------------------------------------
// The encodings of operands and instructions.

/// A value with one encoding (an instruction operand, a table index): how
/// it is written and read.
trait Wire: Sized {
    fn put(self, w: &mut ByteWriter);
    fn get(r: &mut ByteReader<'_>, what: &'static str) -> Result<Self, ArtifactError>;
}

impl Wire for u32 {
    fn put(self, w: &mut ByteWriter) {
        w.uleb(u64::from(self));
    }
    fn get(r: &mut ByteReader<'_>, what: &'static str) -> Result<Self, ArtifactError> {
        r.u32(what)
    }
}

/// The index newtypes: written as their number.
macro_rules! index_operand {
    ($($t:ident),+) => {$(
        impl Wire for $t {
            fn put(self, w: &mut ByteWriter) {
                w.uleb(u64::from(self.as_u32()));
            }
            fn get(r: &mut ByteReader<'_>, what: &'static str) -> Result<Self, ArtifactError> {
                r.u32(what).map($t::new)
            }
        }
    )+};
}

index_operand!(StrIdx, PathIdx, ConstIdx, SetIdx, RegexIdx, ActionIdx, TableIdx, JumpTarget);

impl Wire for u16 {
    fn put(self, w: &mut ByteWriter) {
        w.uleb(u64::from(self));
    }
    fn get(r: &mut ByteReader<'_>, what: &'static str) -> Result<Self, ArtifactError> {
        let offset = r.offset();
        u16::try_from(r.uleb(what)?).map_err(|_| ArtifactError::BadInteger {
            what,
            reason: "does not fit 16 bits",
            offset,
        })
    }
}

impl Wire for u8 {
    fn put(self, w: &mut ByteWriter) {
        w.u8(self);
    }
    fn get(r: &mut ByteReader<'_>, what: &'static str) -> Result<Self, ArtifactError> {
        r.u8(what)
    }
}

/// Every comparison operator (for decoding by [`cmp_code`]).
const CMP_OPS: [CmpOp; 6] = [
    CmpOp::Eq,
    CmpOp::Ne,
    CmpOp::Lt,
    CmpOp::Le,
    CmpOp::Gt,
    CmpOp::Ge,
];

/// The byte of a comparison operator (the one mapping: decoding searches it).
fn cmp_code(op: CmpOp) -> u8 {
    match op {
        CmpOp::Eq => 1,
        CmpOp::Ne => 2,
        CmpOp::Lt => 3,
        CmpOp::Le => 4,
        CmpOp::Gt => 5,
        CmpOp::Ge => 6,
    }
}

impl Wire for CmpOp {
    fn put(self, w: &mut ByteWriter) {
        w.u8(cmp_code(self));
    }
    fn get(r: &mut ByteReader<'_>, what: &'static str) -> Result<Self, ArtifactError> {
        let offset = r.offset();
        let tag = r.u8(what)?;
        CMP_OPS
            .into_iter()
            .find(|&op| cmp_code(op) == tag)
            .ok_or(ArtifactError::BadTag { what, tag, offset })
    }
}

/// Every macro kind (for decoding by [`macro_code`]).
const MACRO_OPS: [MacroOp; 5] = [
    MacroOp::Exists,
    MacroOp::All,
    MacroOp::ExistsOne,
    MacroOp::Map,
    MacroOp::Filter,
];

/// The byte of a macro kind.
fn macro_code(op: MacroOp) -> u8 {
    match op {
        MacroOp::Exists => 1,
        MacroOp::All => 2,
        MacroOp::ExistsOne => 3,
        MacroOp::Map => 4,
        MacroOp::Filter => 5,
    }
}

impl Wire for crate::bytecode::FuncId {
    fn put(self, w: &mut ByteWriter) {
        Wire::put(self.id(), w);
    }
    fn get(r: &mut ByteReader<'_>, what: &'static str) -> Result<Self, ArtifactError> {
        let offset = r.offset();
        let id = <u16 as Wire>::get(r, what)?;
        crate::functions::Builtin::from_id(id)
            .map(crate::functions::Builtin::func_id)
            .ok_or(ArtifactError::UnknownFunction { what, id, offset })
    }
}

impl Wire for MacroOp {
    fn put(self, w: &mut ByteWriter) {
        w.u8(macro_code(self));
    }
    fn get(r: &mut ByteReader<'_>, what: &'static str) -> Result<Self, ArtifactError> {
        let offset = r.offset();
        let tag = r.u8(what)?;
        MACRO_OPS
            .into_iter()
            .find(|&op| macro_code(op) == tag)
            .ok_or(ArtifactError::BadTag { what, tag, offset })
    }
}

/// Generates the instructions' codec from the one instruction table
/// ([`crate::bytecode::for_each_op!`]): [`OPCODES`], the encoder `put_op`
/// and the decoder `get_op`. An instruction is its opcode byte, then its
/// operands in declaration order, each in its type's [`Wire`] encoding. A
/// byte given to two instructions is an unreachable pattern in `get_op`,
/// which the lints reject.
macro_rules! define_codec {
    ($(
        $(#[$meta:meta])*
        $code:literal $name:ident
        $( ( $tfield:ident : $tkind:ident ) )?
        $( { $( $(#[$fmeta:meta])* $sfield:ident : $skind:ident ),+ $(,)? } )?
        [ $($effect:tt)* ]
        $( $text:literal $note:literal )?
        ;
    )+) => {
        /// Every instruction's opcode byte and name, in opcode order
        /// (0 is reserved as invalid).
        pub const OPCODES: &[(u8, &str)] = &[$(($code, stringify!($name))),+];

        /// Writes one instruction.
        fn put_op(instr: &Op, w: &mut ByteWriter) {
            match *instr {
                $(
                    Op::$name $( ( $tfield ) )? $( { $($sfield),+ } )? => {
                        w.u8($code);
                        $( Wire::put($tfield, w); )?
                        $( $( Wire::put($sfield, w); )+ )?
                    }
                )+
            }
        }

        /// Reads the operands of the instruction with opcode `code`;
        /// `None` if no instruction has that opcode.
        fn get_op(code: u8, r: &mut ByteReader<'_>) -> Result<Option<Op>, ArtifactError> {
            Ok(Some(match code {
                $(
                    $code => Op::$name
                        $( ( <operand_type!($tkind) as Wire>::get(
                            r,
                            concat!("operand `", stringify!($tfield), "` of `", stringify!($name), "`"),
                        )? ) )?
                        $( { $( $sfield: <operand_type!($skind) as Wire>::get(
                            r,
                            concat!("operand `", stringify!($sfield), "` of `", stringify!($name), "`"),
                        )? ),+ } )?,
                )+
                _ => return Ok(None),
            }))
        }
    };
}

for_each_op!(define_codec);

#[cfg(test)]
mod tests;

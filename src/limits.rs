//! Every bound hookc enforces on its input, in one place.
//!
//! Each is checked at the earliest stage that can see it, before any recursion
//! over the input, so that hostile input gets a clear error instead of a stack
//! overflow or an unbounded allocation.

/// Largest policy source file read, in bytes.
pub const MAX_INPUT_BYTES: usize = 16 * 1024 * 1024;

/// Deepest nesting of an expression (parentheses, operators, calls, lists).
pub const MAX_EXPR_DEPTH: usize = 128;

/// Deepest nesting of a YAML or XML document (mappings, sequences, elements).
pub const MAX_DOC_DEPTH: usize = 128;

/// Most nodes a YAML document may expand to, aliases included: stops alias
/// bombs ("billion laughs") before they allocate.
pub const MAX_DOC_NODES: usize = 1_000_000;

/// Most hooks in one compilation.
pub const MAX_HOOKS: usize = 100_000;

/// Largest compiled size of one regex (the `regex` crate's `size_limit`).
pub const MAX_REGEX_SIZE: usize = 1 << 20;

/// Most macro iterations (`exists`, `all`, `exists_one`, over all nesting
/// levels) one evaluation of one hook may run; past it the macro is an error
/// value, so a huge context list cannot make evaluation unbounded.
pub const MAX_MACRO_ITERATIONS: usize = 100_000;

/// Largest `.hkb` artifact [`crate::artifact::decode`] reads, in bytes;
/// checked before the checksum is computed or anything is allocated.
pub const MAX_ARTIFACT_BYTES: usize = 256 * 1024 * 1024;

/// Most entries one table of an artifact may claim (strings, paths,
/// constants, regexes, sets, instructions, hooks, actions, events, and the
/// items of one list, object, path or template); every count is also
/// checked against the bytes left, so the decoder never allocates more than
/// the input justifies.
pub const MAX_TABLE_LEN: usize = 1 << 24;

/// Deepest operand stack one hook's code may need (the verifier's bound on
/// [`crate::bytecode::HookEntry::max_stack`]).
pub const MAX_STACK_DEPTH: usize = 1 << 16;

/// Deepest nesting of macros (`exists`, `all`, `exists_one`) in one hook's
/// code; a macro needs at least one expression level, so this is
/// [`MAX_EXPR_DEPTH`].
pub const MAX_MACRO_NESTING: usize = MAX_EXPR_DEPTH;

/// Deepest nesting of a constant (a JSON value of the constant pool) or of
/// an action parameter value: constants come from documents
/// ([`MAX_DOC_DEPTH`]) and expressions ([`MAX_EXPR_DEPTH`]). Checked by the
/// decoder before it recurses and again by the verifier.
pub const MAX_VALUE_DEPTH: usize = MAX_DOC_DEPTH + MAX_EXPR_DEPTH;

/// Most segments of one context path after its root. Paths are written as
/// expressions, so the compiler never makes one longer than
/// [`MAX_EXPR_DEPTH`]; the artifact decoder and the verifier allow twice
/// that and reject longer paths before building them.
pub const MAX_PATH_SEGMENTS: usize = 2 * MAX_EXPR_DEPTH;

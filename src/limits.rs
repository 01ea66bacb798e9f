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

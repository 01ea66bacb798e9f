//! The language's builtin functions that need more than a line of code:
//! each is a pure Rust module the evaluator calls.

pub mod shell;

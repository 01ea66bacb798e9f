//! The runtime's integration tests, one test binary: each module is one
//! suite, named for what it tests.

// Test code may unwrap, expect, panic and index: a failing test stops
// loudly where it failed. `#[test]` functions and `#[cfg(test)]` modules
// are exempt through clippy.toml; the helpers of this test crate are
// exempt here, once.
#![allow(
    clippy::unwrap_used,
    clippy::expect_used,
    clippy::panic,
    clippy::indexing_slicing
)]

#[path = "../../../hookc/tests/common/wire_manifest.rs"]
mod wire_manifest;

mod dependencies;
mod event_plans;
mod shell_corpus;
mod text_functions;
mod wire;

//! The command line's integration tests, one test binary (one link, and
//! one process whose tests run side by side): each module is one suite,
//! named for what it tests. `docs` stays a binary of its own, as it
//! changes the process's working directory.

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

#[path = "../../../hookc/tests/common/walk.rs"]
mod walk;

mod bench_hook;
mod cli;
mod cli_bench;
mod first_match_output;
mod help;
mod hook_find;
mod hosts;
mod init;
mod policy_tests;
mod probe;
mod replay;
mod serve;
mod serve_client;

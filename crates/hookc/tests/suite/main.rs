//! The compiler's integration tests, one test binary (one link, and one
//! process whose tests run side by side): each module is one suite, named
//! for what it tests. `no_alloc` and `linear_compile` stay binaries of
//! their own, as each installs a counting global allocator.

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

#[path = "../common/interesting.rs"]
mod interesting;
#[path = "../common/rng.rs"]
mod rng;
#[path = "../common/walk.rs"]
mod walk;
#[path = "../common/wire_manifest.rs"]
mod wire_manifest;

mod action_effects;
mod artifact;
mod attribution;
mod build_api;
mod cel_conformance;
mod cel_parse;
mod compose;
mod decision_model;
mod diagnostics;
mod differential;
mod disasm;
mod dispatch;
mod dispatch_plans;
mod environment;
mod equivalence;
mod events;
mod examples;
mod explain;
mod fast_paths;
mod flat_plans;
mod functions;
mod fuzz_regressions;
mod generated_policies;
mod glob;
mod hook_index;
mod hooks_schema;
mod host_snapshots;
mod integral_numbers;
mod large_policies;
mod layers;
mod limits;
mod lint;
mod locals;
mod module_graph;
mod pattern_tables;
mod priority_order;
mod regex_engines;
mod seed000_trees;
mod template_exprs;
mod type_names;
mod typed_results;
mod vm;
mod wire;

//! hookc-runtime: load a compiled hookc policy and evaluate agent-hook events
//! against it.
//!
//! An agent runtime raises events (`error`, `limit`, `PreToolUse`, …) with a
//! JSON context; a hook policy, compiled by the `hookc` compiler into a `.hkb`
//! artifact, says what to do about them. This crate is what an application
//! embeds: it depends on `serde`, `serde_json`, `regex` (and `regex-syntax`
//! and `memchr`, which `regex` builds anyway), `smallvec` and `thiserror`,
//! and on nothing that parses YAML or XML or renders diagnostics.
//!
//! ```
//! use hookc_runtime::{Context, Policy};
//! # fn load() -> Vec<u8> {
//! #     // A golden file of the wire format, checked in: the seed 000
//! #     // example policy with a snapshot of `examples/policy.xml`.
//! #     include_bytes!("../../hookc/tests/wire/examples.hkb").to_vec()
//! # }
//! // Bytes written by `hookc compile ... -o policy.hkb`, typically
//! // embedded with `include_bytes!` or read at start-up.
//! let bytes: Vec<u8> = load();
//! // Decoded and verified before anything runs: damaged or hostile bytes are
//! // an error here, never a crash later.
//! let policy = Policy::from_artifact(&bytes)?;
//!
//! let ctx = serde_json::json!({
//!     "event": {"thread_id": "t-42"},
//!     "classification": {"category": "rate_limited"},
//!     "error": {"code": "E429", "headers": {"retry-after": "30"}}
//! });
//! // An error only when a filled parameter does not fit its declared type.
//! let decision = policy.evaluate("error", &ctx)?;
//! // Collected actions (observers, context injectors) that matched before
//! // the decision, in order; none unless the policy declares such types.
//! for m in &decision.collected {
//!     println!("hook {} adds {}", m.hook, m.action_type());
//! }
//! match &decision.terminal {
//!     Some(m) => println!("hook {} says {}", m.hook, m.action_type()),
//!     None => println!("no hook decided"),
//! }
//! assert_eq!(decision.terminal.map(|m| m.hook), Some("rate_limit_backoff"));
//! // Other answers and JSON text go through a query:
//! let text = br#"{"classification": {"category": "rate_limited"}}"#;
//! let trace = policy.query("error", Context::json(text)).explain()?;
//! print!("{}", trace.to_text());
//! # Ok::<(), Box<dyn std::error::Error>>(())
//! ```
//!
//! The guide (`docs/`, an mdBook: `scripts/book` builds it) has the rest:
//! its chapter "The Rust runtime" (`docs/src/embedding/rust.md`) for this
//! API, "Build scripts" for compiling policies into a program, and the
//! reference for the CLI, every diagnostic and the artifact format.
//!
//! # What is here
//!
//! - [`Policy`]: a loaded, verified policy; immutable, `Send + Sync`.
//!   [`Policy::evaluate`] is the one-line [`Decision`] from a
//!   `serde_json::Value`; [`Policy::query`] gives a [`Query`] that answers
//!   with the decision, the terminal match, the deciding hook's id, every
//!   match, or an explain [`Trace`], from a `Value`, JSON text or a host's
//!   lookup ([`Context`]), with hooks switched off by [`Overrides`] and
//!   awaited hooks resumed by [`Results`]. A policy's decision model
//!   (transforms, strictest combining, error policies, awaited actions)
//!   shapes the [`Decision`].
//! - [`artifact`]: the `.hkb` wire format (encode, decode, load).
//! - [`compose`]: run-time layering, [`Policy::with_layer`]: another
//!   policy's hooks over a loaded one, without recompiling.
//! - [`bytecode`]: the instruction set and the [`bytecode::Program`] a policy
//!   compiles to, with its disassembler.
//! - [`verify`]: the verifier every program passes before it runs.
//! - [`functions`]: the `when` language's builtin functions, one table
//!   ([`functions::Builtin`]) read by the compiler and run by the VM, and
//!   their implementations, such as [`functions::shell`] (the simple
//!   commands of a Bash command string, for `shell.commands`).
//! - [`limits`]: every bound on untrusted input, in one place.
//!
//! The evaluation semantics (hook order, action effects and the decision
//! model, the `when` language's values and errors, templates) are written
//! down in `docs/src/semantics.md` of
//! the repository; the code map is `ARCHITECTURE.md`.
//!
//! # Input safety
//!
//! Artifacts, contexts and JSON text are untrusted. An artifact is decoded
//! with every length and index checked, then verified (every table index,
//! jump target and stack height; each regex is parsed under the nesting
//! limit and compiled under the size limit on its first search, a pattern
//! failing either being an evaluation error there) before
//! a [`Policy`] exists: the interpreter runs only verified programs. Every
//! bound is in [`limits`]. Nothing panics on bad input (`unwrap`, `expect`,
//! `panic!` and unchecked indexing are denied by lints), and one evaluation
//! of one hook runs a number of instructions bounded by its code length (see
//! [`limits::MAX_MACRO_ITERATIONS`]). Evaluation allocates nothing on the
//! heap until a hook matches.

#![forbid(unsafe_code)]
#![deny(missing_docs)]
#![deny(clippy::indexing_slicing)]

/// The README's Rust block, compiled as a doctest of this crate.
#[cfg(doctest)]
#[doc = include_str!("../../../README.md")]
struct ReadmeRustBlocks;

/// The guide's chapter on this crate, `docs/src/embedding/rust.md`: its
/// Rust blocks run as doctests of this crate, so the guide's code compiles
/// and does what it says.
#[cfg(doctest)]
#[doc = include_str!("../../../docs/src/embedding/rust.md")]
struct GuideRustRuntimeChapter;

mod accel;
pub mod artifact;
pub mod bytecode;
pub mod compose;
mod context;
pub mod disasm;
mod eval;
pub mod functions;
pub mod limits;
mod value;
pub mod verify;

/// A context held in a host's own objects (a Python mapping, an
/// application struct), looked up path by path: [`Context::Lookup`].
pub use context::PathLookup;
pub use eval::vm::{ActionSink, JsonSink, Name};
pub use eval::{
    merge_patch, Derivation, FlatHook, FlatLeaf, HookTrace, ModelTrace, Outcome, Read,
    SubCondition, Trace,
};
pub use eval::{
    Context, ContextError, Decision, HookFailure, LoadError, Match, Overrides, Policy, Query,
    QueryError, Results, UnknownHook,
};
pub use value::check::ActionError;

/// The evaluator's building blocks, shared with the hookc compiler (constant
/// folding runs the VM's own operations, `--expr` runs one condition) and
/// with the workspace's tests, benches and fuzz targets. Not API: no
/// stability promise, hidden from the docs.
#[doc(hidden)]
pub mod internals {
    /// The per-event plans and equality-dispatch tables.
    pub mod dispatch {
        pub use crate::accel::dispatch::*;
    }
    /// The per-event hook indexes.
    pub mod index {
        pub use crate::accel::index::*;
    }
    /// The FNV hasher of the dispatch tables.
    pub mod fnv {
        pub use crate::accel::fnv::*;
    }
    /// The string-keyed maps of event names and dispatch tables.
    pub mod str_map {
        pub use crate::accel::str_map::*;
    }
    /// The path cache: context values read once per evaluation.
    pub mod context {
        pub use crate::context::*;
    }
    /// One-pass extraction of the read paths from JSON text.
    pub mod json_text {
        pub use crate::context::json_text::*;
    }
    /// Runtime values and the when-language's operations.
    pub mod value {
        pub use crate::value::*;
    }
    /// The interpreter.
    pub mod vm {
        pub use crate::eval::vm::*;
    }
}

//! hookc-runtime: load a compiled hookc policy and evaluate agent-hook events
//! against it.
//!
//! (crate docs are completed below)

#![forbid(unsafe_code)]
#![deny(clippy::indexing_slicing)]

mod accel;
pub mod artifact;
pub mod bytecode;
mod context;
mod eval;
pub mod limits;
pub mod verify;

pub use eval::{Context, ContextError, LoadError, Match, Overrides, Policy, Query, UnknownHook};
pub use eval::{HookTrace, Outcome, Read, SubCondition, Trace};

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
    /// The FNV hasher of the dispatch tables.
    pub mod fnv {
        pub use crate::accel::fnv::*;
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
        pub use crate::eval::value::*;
    }
    /// The interpreter.
    pub mod vm {
        pub use crate::eval::vm::*;
    }
}

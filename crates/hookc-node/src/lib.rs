//! The `hookc` Node package's native addon: compile hookc policies from
//! files or strings and evaluate agent-hook events against them
//! in-process, with results that are exactly what the `hookc` command
//! prints. Built by `npm install` (`scripts/build.js`) into `hookc.node`;
//! `index.js` is the package's API over it and `index.d.ts` its reference.
//!
//! - [`compile`]: the shared layer's compilation, its report kept for
//!   `index.js` to raise or warn with;
//! - [`policy`]: `NativePolicy`, the four questions and the hosts' answers;
//! - [`lookup`] and [`convert`]: a JavaScript object as a context, read
//!   only at the paths the policy reads;
//! - [`fast`]: `ask`, the evaluation entry point, registered with N-API
//!   directly;
//! - [`action`]: `evaluate`'s deciding action built straight into
//!   JavaScript values;
//! - [`js`]: the N-API calls those make (with [`fast`], the modules with
//!   `unsafe`);
//! - [`options`]: a call's options object (`disable`, `results`);
//! - [`share`]: one policy shared by worker threads;
//! - [`error`]: errors with the codes `index.js` types.

/// How deeply an answer returned to JavaScript may nest: deeper than any
/// answer of a context within `MAX_CONTEXT_DEPTH` (a patch or a trace adds
/// a few levels), so only a broken invariant meets it.
pub const MAX_ANSWER_DEPTH: usize = hookc_runtime::limits::MAX_CONTEXT_DEPTH + 16;

pub mod action;
pub mod compile;
pub mod convert;
pub mod error;
pub mod fast;
pub mod flat;
pub mod js;
pub mod lookup;
pub mod options;
pub mod policy;
pub mod share;

/// Adds the functions registered without napi-rs ([`fast::register`]).
#[napi_derive::napi(module_exports)]
pub fn init(exports: napi::bindgen_prelude::Object, env: napi::Env) -> napi::Result<()> {
    fast::register(&env, &exports)
}

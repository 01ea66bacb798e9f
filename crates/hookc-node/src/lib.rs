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
//! - [`js`]: the N-API calls those make, the one module with `unsafe`;
//! - [`share`]: one policy shared by worker threads;
//! - [`error`]: errors with the codes `index.js` types.

pub mod compile;
pub mod convert;
pub mod error;
pub mod js;
pub mod lookup;
pub mod policy;
pub mod share;

//! What every hookc binding shares, written once: the `hookc` command
//! (crate `hookc-cli`), the Python package (`hookc-python`) and the Node
//! package (`hookc-node`) are thin glue over it (ARCHITECTURE.md, "The
//! bindings").
//!
//! - [`compile`]: policy files or source texts to a [`hookc_runtime::Policy`],
//!   warnings and errors as one [`compile::Report`] (the rendered text and
//!   the JSON diagnostics);
//! - [`bound`]: a [`bound::BoundPolicy`], a policy with what a binding
//!   asks of it prepared: the [`bound::Question`]s (`evaluate`, `decide`,
//!   `evaluate_all`, `explain`) answered as the JSON the CLI prints, hook
//!   ids to switch off with a did-you-mean, and whether an event has any
//!   hook at all;
//! - [`context`]: why a host language's value has no JSON form
//!   ([`context::NotJson`]), in that language's words;
//! - [`error`]: [`error::BindingError`], every failure a binding reports,
//!   with a stable [`error::ErrorKind`] each binding maps to its own
//!   exception classes.
//! - [`hosts`]: the agent hosts' hook answers, [`hosts::hook`]: one
//!   payload of a [`hosts::Host`] decided and answered in its wire, as
//!   `hookc hook` prints it (host actions performed, failures answered
//!   fail-closed).
//!
//! No binding reads the runtime's bytecode tables: what it needs of a
//! policy is a `Policy` method.

pub mod bound;
pub mod compile;
pub mod context;
pub mod error;
pub mod hosts;

pub use bound::{BoundPolicy, Evaluated, Narrowing, Question};
pub use error::{BindingError, ErrorKind};

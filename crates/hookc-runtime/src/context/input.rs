//! The context a query is asked about ([`Context`]): a `serde_json::Value`
//! the caller holds, JSON text, or a host's own objects through a
//! [`PathLookup`]. Below the evaluation: the query API and the decision
//! model's walk both take it from here.

use super::PathLookup;
use serde_json::Value;
use std::fmt;

/// The event context of one evaluation.
#[derive(Clone, Copy)]
pub enum Context<'c> {
    /// A context the caller already holds as a `serde_json::Value`.
    Value(&'c Value),
    /// JSON text (UTF-8). Read in one pass that builds only the values at
    /// the paths the policy reads; any text `serde_json` rejects is a
    /// [`ContextError`](crate::ContextError), and any text it accepts evaluates exactly as its
    /// parsed `Value` would.
    Json(&'c [u8]),
    /// A host's own objects, asked for the value of each path the
    /// evaluation reads (at most once per path), never converted whole:
    /// see [`PathLookup`](crate::PathLookup).
    Lookup(&'c dyn PathLookup),
}

impl fmt::Debug for Context<'_> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Context::Value(v) => f.debug_tuple("Value").field(v).finish(),
            Context::Json(t) => f.debug_tuple("Json").field(t).finish(),
            Context::Lookup(_) => f.write_str("Lookup(..)"),
        }
    }
}

/// Contexts are equal when they hold equal documents or texts; a lookup is
/// equal only to itself (the same object).
impl PartialEq for Context<'_> {
    fn eq(&self, other: &Self) -> bool {
        match (self, other) {
            (Context::Value(a), Context::Value(b)) => a == b,
            (Context::Json(a), Context::Json(b)) => a == b,
            (Context::Lookup(a), Context::Lookup(b)) => std::ptr::addr_eq(*a, *b),
            _ => false,
        }
    }
}

impl<'c> Context<'c> {
    /// JSON text: a `&str`, `&String`, `&[u8]` or `&Vec<u8>`.
    #[inline]
    pub fn json<T: AsRef<[u8]> + ?Sized>(text: &'c T) -> Context<'c> {
        Context::Json(text.as_ref())
    }
}

impl<'c> From<&'c Value> for Context<'c> {
    #[inline]
    fn from(value: &'c Value) -> Context<'c> {
        Context::Value(value)
    }
}

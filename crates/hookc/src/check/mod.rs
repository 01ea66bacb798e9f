//! Checking: conditions against the context schema, actions against their
//! action types, templates and globs.

pub mod actions;
pub mod events;
pub mod glob;
pub mod schema;
pub mod table;
pub mod template;
pub mod ty;
pub(crate) mod typeck;

//! Checking: conditions against the context schema, actions against their
//! action types, templates and globs.

pub mod actions;
pub mod environment;
pub mod events;
pub mod glob;
pub(crate) mod path_as_text;
pub mod policy;
pub(crate) mod raw_argv;
pub(crate) mod raw_pattern;
pub(crate) mod rule_glob;
pub mod schema;
pub(crate) mod shell_as_text;
pub mod table;
pub mod template;
pub mod ty;
pub(crate) mod typeck;
pub(crate) mod unicode_boundary;

//! Checking: conditions against the context schema, actions against their
//! action types, templates and globs.

pub mod actions;
pub(crate) mod argv_test;
pub mod environment;
pub mod events;
pub mod glob;
pub(crate) mod path_test;
pub mod policy;
pub(crate) mod raw_pattern;
pub(crate) mod rule_glob;
pub mod schema;
pub(crate) mod shell_test;
pub mod table;
pub mod template;
pub mod ty;
pub(crate) mod typeck;

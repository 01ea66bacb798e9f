//! Resolution into the IR: `when` expressions ([`ast_to_ir`]) and YAML
//! condition trees ([`tree_to_ir`]) become the same [`crate::ir`]; paths
//! written in text are read by [`path`]; local names (`let:`) by
//! [`locals`].

pub mod ast_to_ir;
pub mod locals;
pub mod path;
mod schema_kind;
pub mod tree_to_ir;

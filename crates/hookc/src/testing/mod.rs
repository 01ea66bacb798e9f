//! For hookc's own test suites, benches and fuzz targets: the reference
//! evaluator (the test oracle the VM is checked against) and the condition
//! tree's vocabulary tables (checked against the editor schema). Not API, no
//! stability promise.

pub mod model;
pub mod reference;

pub use crate::resolve::tree_to_ir::{NODE_KEYS, OPERATORS, SCHEMA_KEYWORDS};

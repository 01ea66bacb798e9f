//! Accelerations derived at load from the verified program: the per-event
//! evaluation plans with their equality-dispatch tables and hook indexes.
//! Each is exact: it only skips hooks that cannot match, and runs the rest
//! in full.

pub mod dispatch;
pub mod fnv;
pub mod index;
pub mod str_map;

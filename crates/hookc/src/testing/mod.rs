//! Test oracles for hookc's own test suites, benches and fuzz targets: not
//! API, no stability promise.

pub mod reference;

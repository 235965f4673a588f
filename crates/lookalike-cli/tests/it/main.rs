//! End-to-end tests of the `lookalike` binary.

mod common;
mod dedup;
mod errors;
mod languages;
mod params;

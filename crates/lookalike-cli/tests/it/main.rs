//! End-to-end tests of the `lookalike` binary.

mod badinputs;
mod boilerplate;
mod common;
mod compare;
mod dedup;
mod docreader;
mod errors;
mod eval;
mod ids;
mod index;
mod kill;
mod languages;
mod methods;
mod outputs;
mod paragraphs;
mod params;
mod params_methods;
mod readme;
mod report;
#[cfg(feature = "serve")]
mod serve;
mod snapshot;
mod web;

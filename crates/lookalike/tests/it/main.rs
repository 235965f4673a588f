//! Integration tests of the core pipeline (one test binary, several modules).

mod clusters;
mod combined;
mod corpus;
mod determinism;
mod methods;
mod pairs;
mod real_text;
mod recall;
mod sink;

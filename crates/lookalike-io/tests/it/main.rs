//! Integration tests of lookalike-io: one binary, one module per concern.

mod common;
mod decode;
mod html;
mod inputs;
mod reader;

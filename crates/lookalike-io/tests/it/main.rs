//! Integration tests of lookalike-io: one binary, one module per concern.

mod boilerplate;
mod charset;
mod common;
mod decode;
mod docreader;
mod html;
mod inputs;
mod main_content;
#[cfg(feature = "parquet")]
mod parquet;
mod reader;
mod skip;
mod warc;

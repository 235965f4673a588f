//! lookalike: find duplicate and near-duplicate documents in large collections.
#![warn(missing_docs)]

pub mod document;
pub mod exact;

pub use document::Document;
